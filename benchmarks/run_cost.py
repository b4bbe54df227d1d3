"""What the end-of-run diagnosis adds to a default run (issue 30's cost target: at most 2x).

    OMP_NUM_THREADS=1 python -m benchmarks.run_cost --data gothic-pg ugaritic-small --steps 3000 --repeats 2 \
        --out benchmarks/results/search/run-cost.jsonl

Each repeat runs the same default run (seed 0, the data's settings: the paper's defaults for
gothic-pg, the ugaritic preset for the small Ugaritic set) twice through engine.runs.session.RunSession,
side by side: once as every run ends today (the final objective over the corpus and the gold-free
diagnosis, ``assess_run``) and once without that pass (``assess=None``, the run as it ended before
issue 30). The order alternates between repeats. One row per run: data, with/without, wall time.
The ratio of the medians is the cost of the pass.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from benchmarks.commit import short_commit

ROOT = Path(__file__).resolve().parent.parent


def _inputs(name: str, steps: int):
    from engine.config import UGARITIC, Config
    from engine.runs.session import RunInputs

    if name == "gothic-pg":
        from benchmarks.speed import gothic_pg

        data = gothic_pg()
        if data is None:
            return None
        return RunInputs(data[0], data[1], Config(seed=0, steps=steps, eval_interval=0))
    if name == "ugaritic-small":
        from benchmarks.ugaritic import FILES, SHARED, _data

        if not (SHARED / FILES["small"]).exists():
            return None
        cog, corpus, vocab = _data("small")
        return RunInputs(corpus, vocab, Config(**{**UGARITIC, "seed": 0, "steps": steps, "eval_interval": 0}), gold=tuple(cog.gold))
    raise ValueError(name)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", nargs="+", default=["gothic-pg", "ugaritic-small"],
                   choices=["gothic-pg", "ugaritic-small"])
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    from engine.runs.session import RunSession, assess_run

    commit = short_commit()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for name in args.data:
        inputs = _inputs(name, args.steps)
        if inputs is None:
            print(f"{name}: skipped (its data is not beside the checkout)")
            continue
        walls = {True: [], False: []}
        for r in range(args.repeats):
            for with_pass in ((True, False) if r % 2 == 0 else (False, True)):
                t0 = time.perf_counter()
                outcome = RunSession(inputs, assess=assess_run if with_pass else None).run()
                wall = time.perf_counter() - t0
                walls[with_pass].append(wall)
                row = {"data": name, "steps": args.steps, "repeat": r, "diagnosis_pass": with_pass,
                       "wall_s": round(wall, 2), "final_objective": (outcome.final_objective or {}).get("objective"),
                       "commit": commit, "threads": 1}
                with open(args.out, "a", encoding="utf-8") as f:
                    f.write(json.dumps(row) + "\n")
                print(json.dumps(row), flush=True)
        ratio = statistics.median(walls[True]) / statistics.median(walls[False])
        print(f"{name}: with the pass / without, medians: {ratio:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
