"""How often one start of the preset ``linear-b`` finds the signs' onsets (issue 25; issue 30's "population
of short starts screened by an early signal that you validate"): each seed is trained 1,000 steps of the
preset with one start (``restarts = 1``; the onset phase: vowels scored as chance), and at steps 500 and
1,000 the row records

- ``obj500``/``obj1000``: the objective over the whole corpus (engine/training/final_objective.py; what a
  run with ``restarts`` ranks its starts by, without gold);
- ``loss500``/``loss1000``: the median training loss of the 50 steps up to there;
- ``onsets500``/``onsets1000``: how many of the 70 signs have their standard onset as their top-1 onset
  (resources/linear_b/standard-values.csv; analysis only, nothing is chosen by it).

    python -m benchmarks.syllable_starts --seeds 4 5 6 ... --workers 2
    python -m benchmarks.syllable_starts --table

Rows (one per seed, resumable: a seed already in the file is not rerun) go to
benchmarks/results/syllables/linear-b-starts.jsonl, each with the commit.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from benchmarks.commit import short_commit

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "syllables" / "linear-b-starts.jsonl"
AT = (500, 1000)


def _worker_init() -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch

    torch.set_num_threads(1)
    try:
        os.nice(5)
    except OSError:
        pass


def survey_seed(seed: int, data: Path, window: int = 50) -> dict:
    """One seed's row (see the module's text)."""
    from engine.config import PRESETS, Config
    from engine.datasets.linear_b import standard_values
    from engine.results import StepEvent
    from engine.runs.inputs import read_run_files
    from engine.training.final_objective import corpus_objective
    from engine.training.trainer import Trainer

    files = read_run_files(lost=data / "lost.csv", known=data / "known.csv", gold=data / "gold.csv",
                           warn=lambda _: None)
    values = standard_values()
    cfg = Config.from_dict({**PRESETS["linear-b"], "seed": seed, "restarts": 1, "eval_interval": 0})
    trainer = Trainer(files.corpus, files.vocabulary, cfg, gold=files.gold, live_interval=None)
    t0 = time.perf_counter()
    losses: list[float] = []
    row: dict = {"seed": seed, "steps": cfg.steps}
    for event in trainer.run():
        if not isinstance(event, StepEvent):
            continue
        losses.append(float(event.losses["total"]))
        if event.step in AT:
            best = trainer.model.syllable_table().top_values()
            row[f"obj{event.step}"] = round(float(corpus_objective(trainer)["objective"]), 4)
            row[f"loss{event.step}"] = round(statistics.median(losses[-window:]), 4)
            row[f"onsets{event.step}"] = sum(onset in values[s].greek_onsets for s, (onset, _) in best.items()
                                             if s in values)
            if event.step == AT[-1]:
                break
    row.update(wall_s=round(time.perf_counter() - t0, 1), commit=short_commit())
    return row


def read_rows(path: Path = OUT) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def table(rows: list[dict]) -> str:
    lines = ["| seed | objective at 500 | at 1,000 | loss at 500 | at 1,000 | onsets right at 500 | at 1,000 |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in sorted(rows, key=lambda r: r["obj500"]):
        lines.append(f"| {r['seed']} | {r['obj500']:.3f} | {r['obj1000']:.3f} | {r['loss500']:.3f} | "
                     f"{r['loss1000']:.3f} | {r['onsets500']} | {r['onsets1000']} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.syllable_starts", description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, nargs="+", default=list(range(4, 25)))
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--table", action="store_true", help="print the table of --out, sorted by the objective at 500")
    args = p.parse_args(argv)
    if args.table:
        print(table(read_rows(args.out)), end="")
        return 0
    if args.workers < 1 or any(seed < 0 for seed in args.seeds):
        print("error: --workers must be at least 1 and every seed at least 0", file=sys.stderr)
        return 2
    from benchmarks.syllable_linear_b import data

    try:
        folder = data()
    except Exception as e:      # the cognate file missing, or its import failing: one line
        print(f"error: importing the Linear B cognates failed: {e}", file=sys.stderr)
        return 2
    done = {r["seed"] for r in read_rows(args.out)}
    todo = [s for s in args.seeds if s not in done]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(args.workers, initializer=_worker_init) as pool:
        for row in pool.map(survey_seed, todo, [folder] * len(todo)):
            with open(args.out, "a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
