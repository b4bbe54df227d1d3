"""Linear B from its signs (issue 25): the preset ``linear-b`` over several seeds, resumable.

    nice -n 10 python -m benchmarks.linear_b --jobs 2                 # seeds 0..4, both files, preset steps
    python -m benchmarks.linear_b --steps 30 --seeds 0 1 --results benchmarks/results/syllables/smoke/linear-b.csv

Each cognate file of ``../shared/data/linear_b/`` (``linear_b-greek.cog`` and the names file
``linear_b-greek.names.cog``) is imported once with ``decipher import-cog FILE --system greek`` into
``--cache``; then, for each seed S, a child process runs

    decipher run --lost .. --known .. --gold .. --preset linear-b --seeds S --steps N --out RUN

(``--seeds S`` with one seed is ``--seed S`` plus the final objective over the whole corpus in the
seed's metrics.json, engine/training/final_objective.py, the number ``decipher run --seeds`` chooses
by). A seed whose ``RUN/seed-S/metrics.json`` exists with the same settings (the preset's, the steps,
the seed) is not run again, so an interrupted grid resumes; a folder with other settings is run
again. ``--jobs N`` runs N children at once, each with one torch/numba thread and niceness 10.

Written: ``--results`` (default benchmarks/results/syllables/linear-b.csv), one row per (file, seed)
of the selected seeds and steps, rewritten from the run folders each time; beside it
``linear-b-summary.json``: per file the best and mean over seeds (lenient and strict P@1/P@10), the
seed chosen without gold as the brief defines it (lowest final objective) and the seed
``decipher run --seeds`` would choose (corroborated coverage, then objective: engine/runs/consensus.py).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Sequence

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DECIPHER_SHARED_DATA", ROOT.parent / "shared" / "data"))
CACHE = ROOT / "benchmarks" / ".cache" / "syllables"
RESULTS = ROOT / "benchmarks" / "results" / "syllables" / "linear-b.csv"
FILES = {"words": "linear_b-greek.cog", "names": "linear_b-greek.names.cog"}
PRESET = "linear-b"
COLUMNS = ("file", "seed", "steps", "p_at_1", "p_at_10", "p_at_1_strict", "p_at_10_strict", "signs_standard",
           "signs_with_standard", "objective", "coverage", "wall_s", "train_wall_s", "peak_rss_mb", "commit")
METRICS = ("p_at_1", "p_at_10", "p_at_1_strict", "p_at_10_strict")


class BenchError(Exception):
    """One line for the user (exit status 2)."""


# ------------------------------------------------------------------------------------------
# settings, folders

def expected_config(steps: int | None, seed: int) -> dict:
    """The settings a run of this grid must have been made with (the preset's, the steps, the seed)."""
    from engine.config import config_from_options
    return config_from_options(preset=PRESET, steps=steps, seed=seed).to_dict()


def preset_steps() -> int:
    return int(expected_config(None, 0)["steps"])


def run_folder(cache: Path, file: str, steps: int, seed: int) -> Path:
    """The group folder of one run; the run itself is ``seed-S`` inside it (``decipher run --seeds``)."""
    return cache / "runs" / file / f"steps-{steps}" / f"s{seed}"


def finished(cache: Path, file: str, steps: int, seed: int) -> dict | None:
    """The run's metrics when its metrics.json exists and matches the settings, else None."""
    path = run_folder(cache, file, steps, seed) / f"seed-{seed}" / "metrics.json"
    try:
        m = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    config = m.get("config") or {}
    want = expected_config(steps, seed)
    if any(config.get(k) != v for k, v in want.items() if k in config) or set(want) - set(config):
        return None
    if m.get("steps") != steps or "objective" not in m:
        return None
    return m


def import_file(file: str, cache: Path, shared: Path = SHARED) -> Path:
    """``decipher import-cog FILE --system greek`` into the cache, once; the folder."""
    out = cache / "import" / file
    if (out / "gold.csv").exists():
        return out
    cog = shared / "linear_b" / FILES[file]
    if not cog.is_file():
        raise BenchError(f"{cog}: file not found (the Linear B data of ../shared/data/linear_b/)")
    r = subprocess.run([sys.executable, "-m", "engine.cli", "import-cog", str(cog), "--system", "greek",
                        "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    if r.returncode:
        lines = r.stderr.strip().splitlines()
        raise BenchError(f"{cog}: import-cog failed: {lines[-1] if lines else 'exit ' + str(r.returncode)}")
    return out


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# ------------------------------------------------------------------------------------------
# one run

def run_command(data: Path, steps: int, seed: int, out: Path) -> list[str]:
    return [sys.executable, "-m", "engine.cli", "run", "--lost", str(data / "lost.csv"),
            "--known", str(data / "known.csv"), "--gold", str(data / "gold.csv"), "--preset", PRESET,
            "--seeds", str(seed), "--steps", str(steps), "--quiet", "--force-rerun", "--out", str(out)]


def launch(cmd: list[str], out: Path) -> dict:
    """Run ``cmd`` in a pinned (one thread), nice'd child; its wall time, peak RSS and exit status."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "NUMBA_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with open(out / "bench.log", "w", encoding="utf-8") as log:
        nice = ["nice", "-n", "10"] if shutil.which("nice") else []    # execs: the pid stays the run's
        proc = subprocess.Popen(nice + cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    return {"rc": proc.returncode, "wall_s": round(time.perf_counter() - t0, 1),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1)}


def run_one(file: str, data: Path, steps: int, seed: int, cache: Path,
            launcher: Callable[[list[str], Path], dict] = launch) -> str | None:
    """Run one seed; None when it finished with the right settings, else a line saying why not."""
    out = run_folder(cache, file, steps, seed)
    info = launcher(run_command(data, steps, seed, out), out)
    info["commit"] = commit()
    (out / "bench.json").write_text(json.dumps(info) + "\n", encoding="utf-8")
    if info["rc"] != 0:
        tail = (out / "bench.log").read_text(encoding="utf-8", errors="replace").strip().splitlines()
        return f"{file} seed {seed}: exit {info['rc']}: {tail[-1] if tail else ''} (log {out / 'bench.log'})"
    if finished(cache, file, steps, seed) is None:
        return f"{file} seed {seed}: no metrics.json with these settings and a final objective in {out / f'seed-{seed}'}"
    return None


# ------------------------------------------------------------------------------------------
# the table and the summary

def row_of(cache: Path, file: str, steps: int, seed: int, m: dict) -> dict:
    folder = run_folder(cache, file, steps, seed)
    try:
        bench = json.loads((folder / "bench.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        bench = {}
    return {"file": file, "seed": seed, "steps": steps, **{k: m.get(k) for k in METRICS},
            "signs_standard": m.get("signs_standard"), "signs_with_standard": m.get("signs_with_standard"),
            "objective": m.get("objective"), "coverage": m.get("coverage"), "wall_s": bench.get("wall_s"),
            "train_wall_s": m.get("wall_time_s"), "peak_rss_mb": bench.get("peak_rss_mb", m.get("peak_memory_mb")),
            "commit": bench.get("commit", "")}


def write_csv(path: Path, rows: Sequence[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None else r[k]) for k in COLUMNS})
    os.replace(tmp, path)


def chosen_like_cli(cache: Path, file: str, steps: int, seeds: Sequence[int], metrics: dict[int, dict],
                    data: Path) -> dict:
    """The seed ``decipher run --seeds`` would choose over these seeds (engine/runs/consensus.py)."""
    from engine.io.tables import read_lost
    from engine.runs.consensus import read_readings, summary

    total = sum(len(i.text.replace(" ", "")) for i in read_lost(data / "lost.csv"))
    readings = {}
    for s in seeds:
        matches = run_folder(cache, file, steps, s) / f"seed-{s}" / "matches.csv"
        readings[s] = read_readings(matches) if matches.exists() else ()
    results = {s: {k: metrics[s].get(k) for k in ("coverage", "objective", "p_at_1", "p_at_10")} for s in seeds}
    out = summary(results, readings, total)
    return {"seed": out["chosen_seed"], "because": out["chosen_because"], "criterion": out["criterion"]}


def summarise(rows: Sequence[dict], choose: Callable[[str, list[int]], dict] | None = None) -> dict:
    """Per file: best and mean of each metric over seeds, the seed with the lowest final objective
    (chosen without gold) and its metrics, and (``choose``) the CLI's own choice."""
    out: dict = {}
    for file in sorted({r["file"] for r in rows}):
        rs = sorted((r for r in rows if r["file"] == file), key=lambda r: r["seed"])
        entry: dict = {"seeds": [r["seed"] for r in rs], "steps": rs[0]["steps"]}
        for k in METRICS + ("signs_standard",):
            vals = [float(r[k]) for r in rs if r.get(k) is not None]
            if vals:
                best = max(rs, key=lambda r: (float(r[k]) if r.get(k) is not None else -1, -r["seed"]))
                entry[k] = {"best": max(vals), "best_seed": best["seed"], "mean": statistics.mean(vals)}
        with_obj = [r for r in rs if r.get("objective") is not None]
        if with_obj:
            low = min(with_obj, key=lambda r: (float(r["objective"]), r["seed"]))
            entry["lowest_objective"] = {"seed": low["seed"], "objective": low["objective"],
                                         **{k: low.get(k) for k in METRICS + ("signs_standard",)}}
        if choose is not None:
            entry["decipher_run_seeds_choice"] = choose(file, [r["seed"] for r in rs])
        entry["wall_s"] = {"max": max((r["wall_s"] or 0) for r in rs)}
        entry["peak_rss_mb"] = {"max": max((r["peak_rss_mb"] or 0) for r in rs)}
        out[file] = entry
    return out


def describe(summary: dict) -> list[str]:
    lines = []
    for file, e in summary.items():
        def fmt(k):
            v = e.get(k)
            return f"best {v['best']:.3f} (seed {v['best_seed']}), mean {v['mean']:.3f}" if v else "–"
        low = e.get("lowest_objective", {})
        lines.append(f"{file}: {len(e['seeds'])} seeds at {e['steps']} steps")
        lines.append(f"  P@1 {fmt('p_at_1')}; strict {fmt('p_at_1_strict')}")
        lines.append(f"  P@10 {fmt('p_at_10')}; strict {fmt('p_at_10_strict')}")
        if low:
            lines.append(f"  lowest final objective: seed {low['seed']}: P@1 {low['p_at_1']:.3f} "
                         f"(strict {low['p_at_1_strict']:.3f}), P@10 {low['p_at_10']:.3f} "
                         f"(strict {low['p_at_10_strict']:.3f}), signs at standard {low['signs_standard']}")
        if "decipher_run_seeds_choice" in e:
            lines.append(f"  decipher run --seeds would choose seed {e['decipher_run_seeds_choice']['seed']}")
    return lines


# ------------------------------------------------------------------------------------------

def run_grid(files: Sequence[str], seeds: Sequence[int], steps: int, *, jobs: int = 1, cache: Path = CACHE,
             results: Path = RESULTS, shared: Path = SHARED, launcher=launch,
             log: Callable[[str], None] = print) -> int:
    """Run what is not finished, then write the table and the summary; the number of failed runs."""
    data = {f: import_file(f, cache, shared) for f in files}
    todo = [(f, s) for f in files for s in seeds if finished(cache, f, steps, s) is None]
    log(f"{len(files) * len(seeds) - len(todo)} of {len(files) * len(seeds)} runs already done; {len(todo)} to run")
    failures = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(run_one, f, data[f], steps, s, cache, launcher): (f, s) for f, s in todo}
        for fut, (f, s) in futures.items():
            why = fut.result()
            if why:
                failures.append(why)
                log(f"FAILED {why}")
            else:
                log(f"done {f} seed {s}")
    rows = []
    for f in files:
        for s in seeds:
            m = finished(cache, f, steps, s)
            if m is not None:
                rows.append(row_of(cache, f, steps, s, m))
    write_csv(results, rows)
    metrics = {(r["file"], r["seed"]): finished(cache, r["file"], steps, r["seed"]) for r in rows}

    def choose(file, file_seeds):
        return chosen_like_cli(cache, file, steps, file_seeds, {s: metrics[(file, s)] for s in file_seeds},
                               data[file])

    summary = summarise(rows, choose)
    summary_path = results.with_name(results.stem + "-summary.json")
    tmp = summary_path.with_name(summary_path.name + ".tmp")
    tmp.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, summary_path)
    for line in describe(summary):
        log(line)
    log(f"wrote {results} and {summary_path}")
    return len(failures)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--files", nargs="+", choices=sorted(FILES), default=list(FILES),
                   help="words: linear_b-greek.cog; names: linear_b-greek.names.cog")
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    p.add_argument("--steps", type=int, help="training steps (default: the preset's)")
    p.add_argument("--jobs", type=int, default=1, help="runs at once, each one pinned thread, nice 10")
    p.add_argument("--cache", type=Path, default=CACHE, help="imported files and run folders")
    p.add_argument("--results", type=Path, default=RESULTS, help="the CSV (the summary goes beside it)")
    p.add_argument("--shared", type=Path, default=SHARED, help="the shared data folder")
    a = p.parse_args(argv)
    if a.jobs < 1 or any(s < 0 for s in a.seeds) or (a.steps is not None and a.steps < 1):
        print("linear_b: --jobs and --steps must be at least 1 and seeds at least 0", file=sys.stderr)
        return 2
    steps = a.steps if a.steps is not None else preset_steps()
    try:
        failed = run_grid(a.files, sorted(set(a.seeds)), steps, jobs=a.jobs, cache=a.cache, results=a.results,
                          shared=a.shared)
    except BenchError as e:
        print(f"linear_b: {e}", file=sys.stderr)
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
