"""Five seeds batched against five separate runs on the CPU (issue 50: "5 seeds batched cost no more
than 5 separate runs"), the way ``decipher run --seeds 0 1 2 3 4 --workers W`` trains them.

Both sides go through the product's own path: ``engine.runs.sweep.drive`` into a fresh folder with a
``LocalPool`` of W worker processes (one torch/numba thread each). *separate*: one run a task (how
every seed was trained before issue 50); *batched*: ``seeds_per_task="auto"`` (what ``run --seeds``
does now: ceil(5 / W) seeds a task, each task's seeds one batch of runs, engine/training/lockstep.py).
Same data (gothic-pg, benchmarks/speed.py), settings, steps and workers on both sides; each
measurement has a fresh pool warmed with a 2-step wave (spawn, torch import, numba compile: not
timed); the sides alternate, round by round, so a drift in the machine's load hits both alike.

    python -m benchmarks.batch_cpu --seeds 0 1 2 3 4 --workers 2 --steps 100 --rounds 3

Writes one JSON line per (round, side) to ``--out`` (default benchmarks/results/batch-cpu.jsonl), each
with the commit and the command, and prints the medians and their ratio (batched / separate).
``--synthetic`` uses a small synthetic cipher instead of gothic-pg (a dry run, no shared data).
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


def _data(synthetic: bool):
    if synthetic:
        from engine.datasets.synthetic import make_cipher

        c = make_cipher(n_stems=40, n_inscriptions=60, seed=1)
        return c.corpus, c.vocabulary, tuple(c.gold)
    from benchmarks.speed import gothic_pg

    data = gothic_pg()
    return None if data is None else (*data, ())


def measure(side: str, *, seeds, workers: int, steps: int, data, folder: Path, nice: int) -> dict:
    from engine.config import Config
    from engine.runs.session import RunInputs
    from engine.runs.sweep import PlannedRun, drive
    from engine.runs.workers import LocalPool, RunItem

    corpus, vocab, gold = data
    base = Config(device="cpu", steps=steps)
    per_task = "auto" if side == "batched" else 1

    def make(out: Path, config: Config):
        def per_known(known):
            return lambda p: RunItem(out / p.run_dir, known, p.seed, "",
                                     inputs=RunInputs(corpus, vocab, config.replace(seed=p.seed), gold=gold))
        return per_known

    def planned(tag):
        return [PlannedRun(vocab.language, s, {}, f"{tag}/seed-{s}") for s in seeds]

    pool = LocalPool(workers, nice=nice)
    try:
        warm = folder / "warm"
        drive(warm, [PlannedRun(vocab.language, s, {}, f"seed-{s}") for s in range(workers)],
              make(warm, base.replace(steps=2)), pool)
        out = folder / "timed"
        t0 = time.perf_counter()
        outcome = drive(out, planned("run"), make(out, base), pool, seeds_per_task=per_task, in_flight=workers)
        wall = time.perf_counter() - t0
    finally:
        pool.close()
    ok = [r for r in outcome.results.values() if r.status == "completed"]
    return {"side": side, "seeds": list(seeds), "workers": workers, "steps": steps, "completed": len(ok),
            "wall_s": round(wall, 3), "run_steps_per_s": round(len(ok) * steps / wall, 3),
            "objectives": {str(Path(r.run_dir).name): r.objective for r in ok},
            "host": platform.node(), "cores": os.cpu_count()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--nice", type=int, default=0,
                   help="the workers' niceness (0: the shell's priority; the product's sweeps use 10)")
    p.add_argument("--synthetic", action="store_true", help="a small synthetic cipher instead of gothic-pg")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from benchmarks.commit import command_line, tree_commit

    data = _data(args.synthetic)
    if data is None:
        print("batch_cpu: needs ../shared/data/gothic_proiel (the gothic-pg data); --synthetic runs without it",
              file=sys.stderr)
        return 2
    out = args.out or ROOT / "benchmarks" / "results" / "batch-cpu.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    stamp = {"commit": tree_commit(), "command": command_line() or "python -m benchmarks.batch_cpu",
             "data": "synthetic" if args.synthetic else "gothic-pg"}
    rows = []
    with tempfile.TemporaryDirectory(prefix="batch-cpu-") as tmp, open(out, "a", encoding="utf-8") as f:
        for rnd in range(args.rounds):
            sides = ("separate", "batched") if rnd % 2 == 0 else ("batched", "separate")
            for side in sides:
                row = measure(side, seeds=args.seeds, workers=args.workers, steps=args.steps, data=data,
                              folder=Path(tmp) / f"r{rnd}-{side}", nice=args.nice)
                row.update(stamp, round=rnd, load_avg_1min=round(os.getloadavg()[0], 2))
                rows.append(row)
                f.write(json.dumps(row) + "\n")
                f.flush()
                print(json.dumps(row), file=sys.stderr)
    med = {s: statistics.median(r["wall_s"] for r in rows if r["side"] == s) for s in ("separate", "batched")}
    ratio = med["batched"] / med["separate"]
    print(f"{len(args.seeds)} seeds x {args.steps} steps on {args.workers} workers, {args.rounds} rounds: "
          f"separate {med['separate']:.1f} s, batched {med['batched']:.1f} s (medians); ratio {ratio:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
