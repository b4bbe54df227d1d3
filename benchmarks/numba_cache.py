"""The first run's wait for numba's compilation, with and without the on-disk cache (issue 51, item 8).

    PYTHONPATH=$PWD python -m benchmarks.numba_cache [--steps 1] [--repeats 2]

Each condition is a fresh process running ``decipher run`` on the bundled sample (160 Ugaritic
words against 515 Hebrew stems, default settings) for ``--steps`` steps, timed from its start to its
exit (torch's import and the data preparation included, the same in every condition):

* ``no_cache``: DECIPHER_NUMBA_CACHE=0, every process compiles the kernels (what a process pays
  where numba has no folder it can write);
* ``first_run``: an empty NUMBA_CACHE_DIR, the first process on a machine (it compiles and writes);
* ``later_runs``: the same NUMBA_CACHE_DIR again (it loads the compiled kernels).

The difference between ``first_run`` and ``later_runs`` is the compilation the cache saves. Writes
benchmarks/results/numba-cache.json and prints a table; the box's load average is recorded beside
the times (they stretch with it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.commit import short_commit

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "numba-cache.json"


def timed_run(work: Path, env: dict, steps: int, tag: str) -> float:
    cmd = [sys.executable, "-m", "engine.cli", "run", "--lost", str(work / "d" / "lost.csv"),
           "--known", str(work / "d" / "known.csv"), "--steps", str(steps), "--out", str(work / f"r-{tag}"),
           "--quiet", "--device", "cpu"]
    t = time.perf_counter()
    subprocess.run(cmd, cwd=work, env=env, check=True, capture_output=True, text=True)
    return time.perf_counter() - t


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=1)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--out", type=Path, default=RESULTS)
    args = p.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="numba-cache-"))
    base = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "NUMBA_NUM_THREADS": "1"}
    base.pop("NUMBA_CACHE_DIR", None)
    subprocess.run([sys.executable, "-m", "engine.cli", "sample", "--out", "s"], cwd=work, env=base, check=True,
                   capture_output=True)
    subprocess.run([sys.executable, "-m", "engine.cli", "import-cog", "s/sample.cog", "--out", "d"], cwd=work,
                   env=base, check=True, capture_output=True)
    rows: dict[str, list[float]] = {"no_cache": [], "first_run": [], "later_runs": []}
    loads = []
    for r in range(args.repeats):
        cache = work / f"cache-{r}"
        cache.mkdir()
        rows["no_cache"].append(timed_run(work, {**base, "DECIPHER_NUMBA_CACHE": "0"}, args.steps, f"n{r}"))
        rows["first_run"].append(timed_run(work, {**base, "NUMBA_CACHE_DIR": str(cache)}, args.steps, f"f{r}"))
        rows["later_runs"].append(timed_run(work, {**base, "NUMBA_CACHE_DIR": str(cache)}, args.steps, f"l{r}"))
        loads.append(os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan"))
    saved = statistics.median(rows["first_run"]) - statistics.median(rows["later_runs"])
    result = {"commit": short_commit(), "steps": args.steps, "repeats": args.repeats, "cpus": os.cpu_count(),
              "load_average_1min": loads, "seconds": rows,
              "median_s": {k: statistics.median(v) for k, v in rows.items()},
              "compilation_saved_s": saved}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"decipher run --steps {args.steps} on the sample, wall seconds per process "
          f"({args.repeats} repeats; load average {', '.join(f'{x:.1f}' for x in loads)} on {os.cpu_count()} CPUs)")
    for name, values in rows.items():
        print(f"  {name.replace('_', ' '):>10}: median {statistics.median(values):6.1f} s  ({', '.join(f'{v:.1f}' for v in values)})")
    print(f"the cache saves {saved:.1f} s of each later process's start; wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
