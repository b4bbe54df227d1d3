"""Aggregate runs per hour of a sweep with N worker processes: on one GPU (every worker uses the
same CUDA device) or on the CPU cores. Repeats interleave the Ns. Each N gets a fresh pool, a warm-up wave (spawn, torch
import, CUDA context, numba compile: not timed), then ``--runs-per-worker`` x N timed runs.

    python -m benchmarks.gpu_sweep --device cuda --workers 1 2 4 8 16        # on a GPU machine
    python -m benchmarks.gpu_sweep --device cpu --workers 1 2 --repeats 3     # CPU scaling here

Writes one JSON line per (N, repeat) to ``--out`` (default benchmarks/results/sweep-<device>.jsonl)
and prints the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def workload(n_stems: int, n_inscriptions: int):
    """A synthetic substitution cipher (engine/datasets/synthetic.py): the same for every N."""
    from engine.datasets.synthetic import make_cipher

    c = make_cipher(n_stems=n_stems, n_inscriptions=n_inscriptions, seed=1)
    return c.corpus, c.vocabulary, c.gold


def measure(n: int, *, device: str, steps: int, runs_per_worker: int, data, folder: Path, nice: int) -> dict:
    from engine.config import Config
    from engine.runs.session import RunInputs
    from engine.runs.sweep import plan, with_seed, drive
    from engine.runs.workers import LocalPool, RunItem

    corpus, vocab, gold = data
    base = Config.from_dict({"steps": steps, "device": device, "eval_interval": 0})
    pool = LocalPool(n, nice=nice)

    def make(out: Path, config: Config):
        def per_known(known):
            return lambda p: RunItem(out / p.run_dir, known, p.seed, "",
                                     inputs=RunInputs(corpus, vocab, with_seed(config, p.seed, {}), gold=gold))
        return per_known

    try:
        warm = folder / f"warm-{n}"
        drive(warm, plan(["w"], [{}], list(range(n))), make(warm, Config.from_dict({**base.to_dict(), "steps": 2})),
              pool)
        out = folder / f"timed-{n}"
        planned = plan(["w"], [{}], list(range(n * runs_per_worker)))
        t0 = time.perf_counter()
        outcome = drive(out, planned, make(out, base), pool)
        wall = time.perf_counter() - t0
    finally:
        pool.close()
    results = list(outcome.results.values())
    ok = [r for r in results if r.status == "completed"]
    return {"workers": n, "device": device, "runs": len(planned), "completed": len(ok), "steps": steps,
            "wall_s": round(wall, 3), "runs_per_hour": round(len(ok) / wall * 3600, 1),
            "median_run_wall_s": round(statistics.median(r.wall_s for r in ok), 3) if ok else None,
            "run_device": ok[0].device if ok else "", "host": platform.node()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", choices=["cpu", "cuda"], default="cuda")
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--runs-per-worker", type=int, default=2)
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--stems", type=int, default=200)
    p.add_argument("--inscriptions", type=int, default=300)
    p.add_argument("--out", type=Path)
    p.add_argument("--nice", type=int, default=10,
                   help="the workers' niceness (the sweep's is 10; 0 measures them at the shell's priority, "
                        "e.g. on a machine shared with other work at priority 0)")
    args = p.parse_args(argv)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    if args.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            print("error: --device cuda but torch sees no GPU here", file=sys.stderr)
            return 2
    out = args.out or ROOT / "benchmarks" / "results" / f"sweep-{args.device}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    data = workload(args.stems, args.inscriptions)
    rows = []
    with tempfile.TemporaryDirectory(prefix="gpu-sweep-") as tmp, open(out, "a", encoding="utf-8") as f:
        for rep in range(args.repeats):  # interleaved: a drift in the machine's load hits every N alike
            for n in args.workers:
                row = measure(n, device=args.device, steps=args.steps, runs_per_worker=args.runs_per_worker,
                              data=data, folder=Path(tmp) / f"r{rep}", nice=args.nice)
                row["repeat"] = rep
                row["nice"] = args.nice
                row["load_avg_1min"] = round(os.getloadavg()[0], 2)
                rows.append(row)
                f.write(json.dumps(row) + "\n")
                f.flush()
                print(json.dumps(row), file=sys.stderr)
    print(f"{'workers':>7} {'runs/h (median)':>16} {'run wall s':>11}  device")
    one = None
    for n in args.workers:
        mine = [r for r in rows if r["workers"] == n]
        rate = statistics.median(r["runs_per_hour"] for r in mine)
        one = one or rate
        print(f"{n:>7} {rate:>16.1f} {statistics.median(r['median_run_wall_s'] or 0 for r in mine):>11.2f}  "
              f"{mine[0]['run_device']}  (x{rate / one:.2f} of 1 worker)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
