"""The edit DP's compiled kernels in single against double precision (setting dp_precision), side by
side: the gothic-pg workload of benchmarks/speed.py (unsegmented Gothic against Proto-Germanic, the
paper's settings), one trainer per precision on the same batches, their rounds of training steps
alternating in one process, so that the shared machine's load falls on both alike.

    OMP_NUM_THREADS=1 python -m benchmarks.dp_precision --out benchmarks/results/dp-precision.jsonl

One JSON line: the median step time of each precision over the rounds, their ratio (double / single:
how many times faster single is), the ratio of every round, and how far single's span scores are from
double's on the first batch (the largest difference of log P(span | stem), and of the loss).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from benchmarks.commit import short_commit

ROOT = Path(__file__).resolve().parents[1]


def compare(steps: int = 10, rounds: int = 5, n_batches: int = 8) -> dict:
    import torch

    from benchmarks.speed import gothic_pg, make_batches, timed_steps
    from engine.config import Config
    from engine.model.objective import batch_objective, pin_pairs
    from engine.training.trainer import Trainer

    data = gothic_pg()
    if data is None:
        raise FileNotFoundError("needs ../shared/data/gothic_proiel (or DECIPHER_SHARED_DATA)")
    corpus, vocab = data
    trainers = {p: Trainer(corpus, vocab, Config(seed=0, dp_precision=p), live_interval=None)
                for p in ("double", "single")}
    batches = make_batches(trainers["double"], n_batches)
    # the same model state and batch: how far apart the two precisions' numbers are
    first = {}
    with torch.no_grad():
        for p, t in trainers.items():
            torch.manual_seed(1)            # the same dropout masks for both
            first[p] = batch_objective(t.model, t.prep, batches[0], 1000, pin_pairs(t.prep, t.pins), t._units, t._lens)
    d, s = first["double"].scores, first["single"].scores
    finite = d > -1e8
    score_diff = float((d[finite] - s[finite]).abs().max())
    loss_diff = abs(float(first["double"].loss) - float(first["single"].loss))
    for t in trainers.values():          # warm-up: numba compiles each dtype's kernels once
        timed_steps(t, batches, batch_objective, 2)
    per_round = {p: [] for p in trainers}
    for _ in range(rounds):
        for p, t in trainers.items():
            times, _ = timed_steps(t, batches, batch_objective, steps)
            per_round[p].append(statistics.median(times))
    double, single = statistics.median(per_round["double"]), statistics.median(per_round["single"])
    return {"workload": "gothic-pg", "steps_per_round": steps, "rounds": rounds,
            "double_step_s": double, "single_step_s": single, "ratio": double / single,
            "ratio_per_round": [a / b for a, b in zip(per_round["double"], per_round["single"])],
            "ratio_min": min(a / b for a, b in zip(per_round["double"], per_round["single"])),
            "ratio_max": max(a / b for a, b in zip(per_round["double"], per_round["single"])),
            "double_steps_per_s": 1 / double, "single_steps_per_s": 1 / single,
            "max_score_diff": score_diff, "loss_diff": loss_diff, "torch_threads": torch.get_num_threads()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.dp_precision", description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=10, help="training steps per round (default 10)")
    p.add_argument("--rounds", type=int, default=5, help="rounds per precision, alternating (default 5)")
    p.add_argument("--out", type=Path, help="append the JSON line to this file")
    args = p.parse_args(argv)
    if args.steps < 1 or args.rounds < 1:
        print("error: --steps and --rounds must be at least 1", file=sys.stderr)
        return 2
    try:
        t0 = time.perf_counter()
        res = compare(args.steps, args.rounds)
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    res.update(wall_s=round(time.perf_counter() - t0, 1), commit=short_commit(), cpu=os.cpu_count(),
               machine=platform.processor() or platform.machine(),
               load_average=os.getloadavg()[0] if hasattr(os, "getloadavg") else None)
    line = json.dumps(res)
    print(line)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with open(args.out, "a", encoding="utf-8") as f:
            f.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
