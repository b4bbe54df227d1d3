"""How often one start of the preset ``linear-b`` finds the signs' onsets (issue 25; issue 30's "population
of short starts screened by an early signal that you validate"): each seed is trained 1,000 steps of the
preset with one start (``restarts = 1``; the onset phase: vowels scored as chance), and at steps 500 and
1,000 (``--at``) the row records

- ``obj500``/``obj1000``: the objective over the whole corpus (engine/training/final_objective.py; what a
  run with ``restarts`` ranks its starts by, without gold);
- ``loss500``/``loss1000``: the median training loss of the 50 steps up to there;
- ``onsets500``/``onsets1000``: how many of the 70 signs have their standard onset as their top-1 onset
  (resources/linear_b/standard-values.csv; analysis only, nothing is chosen by it).

    python -m benchmarks.syllable_starts --seeds 4 5 6 ... --workers 2 [--set lr=0.5] [--at 250 500]
    python -m benchmarks.syllable_starts --table

``--set KEY=VALUE`` changes a setting of the preset (the row keeps what was changed, ``settings``, and the
learning rate it trained at, ``lr``). Rows (one per seed and settings, resumable: a seed already surveyed
with the same settings is not rerun) go to benchmarks/results/syllables/linear-b-starts.jsonl, each with
the commit.
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


def survey_seed(seed: int, data: Path, window: int = 50, settings: dict | None = None,
                at: tuple[int, ...] = AT) -> dict:
    """One seed's row (see the module's text); ``settings`` change the preset's, ``at`` the steps read."""
    from engine.config import PRESETS, Config
    from engine.datasets.linear_b import standard_values
    from engine.results import StepEvent
    from engine.runs.inputs import read_run_files
    from engine.training.final_objective import corpus_objective
    from engine.training.trainer import Trainer

    files = read_run_files(lost=data / "lost.csv", known=data / "known.csv", gold=data / "gold.csv",
                           warn=lambda _: None)
    values = standard_values()
    settings = dict(settings or {})
    cfg = Config.from_dict({**PRESETS["linear-b"], **settings, "seed": seed, "restarts": 1, "eval_interval": 0})
    trainer = Trainer(files.corpus, files.vocabulary, cfg, gold=files.gold, live_interval=None)
    t0 = time.perf_counter()
    losses: list[float] = []
    row: dict = {"seed": seed, "steps": cfg.steps, "settings": settings, "lr": cfg.lr}
    for event in trainer.run():
        if not isinstance(event, StepEvent):
            continue
        losses.append(float(event.losses["total"]))
        if event.step in at:
            best = trainer.model.syllable_table().top_values()
            row[f"obj{event.step}"] = round(float(corpus_objective(trainer)["objective"]), 4)
            row[f"loss{event.step}"] = round(statistics.median(losses[-window:]), 4)
            row[f"onsets{event.step}"] = sum(onset in values[s].greek_onsets for s, (onset, _) in best.items()
                                             if s in values)
            if event.step == max(at):
                break
    row.update(wall_s=round(time.perf_counter() - t0, 1), commit=short_commit())
    return row


def read_rows(path: Path = OUT) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _key(row: dict) -> str:
    """What tells surveys apart: the settings changed and the learning rate trained at (a row from
    before ``--set`` changed nothing and trained at the preset's 0.2 of then)."""
    return json.dumps({"settings": row.get("settings", {}), "lr": row.get("lr", 0.2)}, sort_keys=True)


def table(rows: list[dict]) -> str:
    """One table per settings, the seeds sorted by the objective at the first step read; a step a row
    did not read is blank."""
    out = []
    for key in sorted({_key(r) for r in rows}):
        group = [r for r in rows if _key(r) == key]
        steps = sorted({int(k[3:]) for r in group for k in r if k.startswith("obj")})
        head = ["seed", *(f"objective at {s:,}" for s in steps), *(f"loss at {s:,}" for s in steps),
                *(f"onsets right at {s:,}" for s in steps)]
        cell = lambda r, name, s, f: format(r[f"{name}{s}"], f) if f"{name}{s}" in r else ""
        out += [f"{key}: {len(group)} starts", "",
                "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
        for r in sorted(group, key=lambda r: r.get(f"obj{steps[0]}", float("inf"))):
            out.append("| " + " | ".join([str(r["seed"]), *(cell(r, "obj", s, ".3f") for s in steps),
                                           *(cell(r, "loss", s, ".3f") for s in steps),
                                           *(cell(r, "onsets", s, "d") for s in steps)]) + " |")
        out.append("")
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.syllable_starts", description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, nargs="+", default=list(range(4, 25)))
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="change one setting of the preset (repeatable), e.g. --set lr=0.5")
    p.add_argument("--at", type=int, nargs="+", default=list(AT), help="the steps at which to read a start")
    p.add_argument("--table", action="store_true", help="print the tables of --out, one per survey, sorted by the objective at the first step read")
    args = p.parse_args(argv)
    if args.table:
        print(table(read_rows(args.out)), end="")
        return 0
    if args.workers < 1 or any(seed < 0 for seed in args.seeds) or any(a < 1 for a in args.at):
        print("error: --workers must be at least 1, every seed at least 0 and every --at step at least 1",
              file=sys.stderr)
        return 2
    from engine.config import PRESETS, Config, parse_assignments
    from engine.errors import DecipherError

    try:
        settings = parse_assignments(args.set)
        cfg = Config.from_dict({**PRESETS["linear-b"], **settings})
    except (DecipherError, ValueError) as e:
        print(f"error: --set: {e}", file=sys.stderr)
        return 2
    lr = cfg.lr
    if max(args.at) > cfg.steps:
        print(f"error: --at {max(args.at)}: the run has only {cfg.steps} steps", file=sys.stderr)
        return 2
    from benchmarks.syllable_linear_b import data

    try:
        folder = data()
    except Exception as e:      # the cognate file missing, or its import failing: one line
        print(f"error: importing the Linear B cognates failed: {e}", file=sys.stderr)
        return 2
    done = {r["seed"] for r in read_rows(args.out) if _key(r) == _key({"settings": settings, "lr": lr})}
    todo = [s for s in args.seeds if s not in done]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(args.workers, initializer=_worker_init) as pool:
        n = len(todo)
        for row in pool.map(survey_seed, todo, [folder] * n, [50] * n, [settings] * n, [tuple(args.at)] * n):
            with open(args.out, "a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
