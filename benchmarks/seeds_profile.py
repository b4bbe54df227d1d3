"""Where the time of 5 seeds in lockstep goes, against one seed (issue 31 item 1).

    OMP_NUM_THREADS=1 python -m benchmarks.seeds_profile --out benchmarks/results/seeds5-profile.json

The gothic-pg setting (benchmarks/speed.py), one torch thread. One seed's ordinary steps and the
5-seed SeedGroup's steps (engine/training/lockstep.py) run in alternating rounds in one process,
each under cProfile. Per function of the step: the seconds per step of each, their ratio, and for the
fused edit DP's kernels the calls per step and the seconds per call (a call is one block of
FUSED_BLOCK starts). If the group's ratio comes from the work itself, the kernels' seconds per call
are the same for both and only the calls per step grow with the seeds.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
from collections import defaultdict
from pathlib import Path

from benchmarks.commit import short_commit

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ("edit_forward", "edit_backward", "edit_read_out", "edit_read_out_backward", "edit_gather",
           "edit_scatter", "stems_logsumexp", "stems_logsumexp_backward", "lattice_forward", "lattice_backward")


def _profile(fn, steps: int):
    """({kernel name: (calls, seconds)}, total seconds) of ``fn(steps)`` under cProfile."""
    pr = cProfile.Profile()
    pr.enable()
    fn(steps)
    pr.disable()
    stats = pstats.Stats(pr).stats
    kernels = {name: (calls, tottime) for (file, _line, name), (_cc, calls, tottime, _cum, _callers) in stats.items()
               if file.endswith("kernels.py")}
    return kernels, sum(tottime for _cc, _calls, tottime, _cum, _callers in stats.values())


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    from benchmarks.speed import gothic_pg, single_steps
    from engine.config import Config
    from engine.training.lockstep import SeedGroup
    from engine.training.trainer import Trainer

    data = gothic_pg()
    if data is None:
        print("error: needs ../shared/data/gothic_proiel", file=sys.stderr)
        return 2
    cfg = Config(seed=0)
    single = Trainer(*data, cfg, live_interval=None)
    group = SeedGroup(*data, cfg, list(range(args.seeds)))
    single_steps(single, 2)
    group.train_step()

    def run_group(n):
        for _ in range(n):
            group.train_step()

    acc = {"single": defaultdict(lambda: [0, 0.0]), "group": defaultdict(lambda: [0, 0.0])}
    totals = {"single": 0.0, "group": 0.0}
    for _ in range(args.rounds):
        for which, fn in (("single", lambda n: single_steps(single, n)), ("group", run_group)):
            funcs, total = _profile(fn, args.steps)
            totals[which] += total
            for name, (calls, t) in funcs.items():
                acc[which][name][0] += calls
                acc[which][name][1] += t
    n = args.steps * args.rounds
    rows = {}
    for name in KERNELS:
        s, g = acc["single"].get(name), acc["group"].get(name)
        if not s or not g:
            continue
        rows[name] = {"single_calls_per_step": s[0] / n, "group_calls_per_step": g[0] / n,
                      "single_ms_per_call": 1e3 * s[1] / s[0], "group_ms_per_call": 1e3 * g[1] / g[0],
                      "single_ms_per_step": 1e3 * s[1] / n, "group_ms_per_step": 1e3 * g[1] / n}
    kernel_s = {w: sum(v[1] for k, v in acc[w].items() if k in KERNELS) for w in acc}
    commit = short_commit()
    result = {"seeds": args.seeds, "steps": args.steps, "rounds": args.rounds, "threads": 1, "commit": commit,
              "single_ms_per_step": 1e3 * totals["single"] / n, "group_ms_per_step": 1e3 * totals["group"] / n,
              "ratio": totals["group"] / totals["single"],
              "kernel_share_single": kernel_s["single"] / totals["single"],
              "kernel_share_group": kernel_s["group"] / totals["group"],
              "kernels": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "kernels"}))
    for name, r in rows.items():
        print(f"{name:26s} calls/step {r['single_calls_per_step']:5.1f} -> {r['group_calls_per_step']:5.1f}   "
              f"ms/call {r['single_ms_per_call']:6.2f} -> {r['group_ms_per_call']:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
