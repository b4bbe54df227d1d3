"""The edit DP's compiled kernels in single against double precision (setting dp_precision), side by
side: the gothic-pg workload of benchmarks/speed.py (unsegmented Gothic against Proto-Germanic, the
paper's settings), one trainer per precision on the same batches, their rounds of training steps
alternating in one process, so that the shared machine's load falls on both alike.

    OMP_NUM_THREADS=1 python -m benchmarks.dp_precision --out benchmarks/results/dp-precision.jsonl

One JSON line: the median step time of each precision over the rounds, their ratio (double / single:
how many times faster single is), the ratio of every round, and how far single's span scores are from
double's on the first batch (the largest difference of log P(span | stem), and of the loss).

Whether single changes what training finds (``--quality``): whole runs of a dataset in both precisions,
the same seeds, the two precisions of a seed started together on two workers (one thread each); one JSON
line per run with its P@K, its final objective over the corpus, its best sound per lost letter and its
speed. Resumable: a run already in the file (dataset, seed, precision, steps) is not redone.

    nice python -m benchmarks.dp_precision --quality ugaritic-small gothic-pg --seeds 0 1 2 \
        --out benchmarks/results/dp-precision-quality.jsonl
    python -m benchmarks.dp_precision --quality-table benchmarks/results/dp-precision-quality.jsonl
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


#: the quality datasets: name -> what is scored (the figure the docs' tables give for it)
QUALITY = {"ugaritic-small": "p_at_1_span", "gothic-pg": "p_at_10"}
PRECISIONS = ("double", "single")


def prepare_quality(dataset: str) -> None:
    """What a dataset's runs read, made ready once before any worker starts (the Gothic dataset is built
    here, not by two workers at once); FileNotFoundError naming what is missing."""
    if dataset == "gothic-pg":
        from benchmarks import gothic

        try:
            gothic.ensure_dataset("pg", "0")
        except SystemExit as e:          # its own one line: the build failed (no ../shared/data)
            raise FileNotFoundError(str(e)) from None
    elif dataset == "ugaritic-small":
        from benchmarks import ugaritic

        if not (ugaritic.SHARED / ugaritic.FILES["small"]).is_file():
            raise FileNotFoundError(f"{ugaritic.SHARED / ugaritic.FILES['small']}: not found (set DECIPHER_SHARED_DATA)")


def _trainer(dataset: str, seed: int, precision: str, steps: int):
    """The trainer of one quality run, not yet trained, and a function scoring it once trained."""
    if dataset == "gothic-pg":      # Gothic against Proto-Germanic, WR 0 %, base, the paper's settings
        from benchmarks import gothic

        cell = gothic.Cell("pg", "0", "base", "0-3.5", seed)
        lost, known, gold, prior, settings = gothic.cell_arguments(cell, steps)
        trainer = gothic.make_trainer(lost, known, gold, prior, {**settings, "dp_precision": precision})

        def scored(t) -> dict:
            if t.last_evaluation is None:
                t.evaluate()
            m = t.last_evaluation.metrics
            return {"p_at_10": round(m["p_at_10"], 4), "p_at_10_strict": round(m.get("p_at_10_strict", float("nan")), 4)}
        return trainer, scored
    if dataset == "ugaritic-small":  # the paper's Table 3 data and settings (benchmarks/ugaritic.py)
        from benchmarks import ugaritic
        from engine.config import UGARITIC, Config
        from engine.training.trainer import Trainer

        cog, corpus, vocab = ugaritic._data("small")
        config = Config(**UGARITIC, steps=steps, seed=seed, eval_interval=0, dp_precision=precision)
        trainer = Trainer(corpus, vocab, config, gold=cog.gold, live_interval=None)

        def scored(t) -> dict:
            got = ugaritic.score(t, cog.gold)
            return {k: got[k] for k in ("p_at_1_span", "p_at_10_span", "p_at_1_stem", "p_at_10_stem")}
        return trainer, scored
    raise ValueError(f"unknown dataset {dataset!r}; use {', '.join(QUALITY)}")


def quality_run(dataset: str, seed: int, precision: str, steps: int) -> dict:
    """One whole run in one precision: its P@K, final objective, best sound per letter and speed."""
    from engine.training.final_objective import corpus_objective

    trainer, scored = _trainer(dataset, seed, precision, steps)
    t0 = time.perf_counter()
    for _ in trainer.run():
        pass
    wall = time.perf_counter() - t0
    mapping = trainer.mapping()
    best = {letter: mapping.best_known_for(letter, k=1)[0][0] for letter in mapping.lost}
    return {"dataset": dataset, "seed": seed, "precision": precision, "steps": trainer.step,
            "wall_s": round(wall, 1), "steps_per_s": round(trainer.step / wall, 2), **scored(trainer),
            "final_objective": round(corpus_objective(trainer)["objective"], 5), "best": best,
            "commit": short_commit(), "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None}


def _quality_task(task: tuple) -> dict:
    return quality_run(*task)


def quality_key(row: dict) -> tuple:
    return (row["dataset"], int(row["seed"]), row["precision"], int(row["steps"]))


def read_quality(path: Path) -> list[dict]:
    if not path.exists():
        return []
    rows = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            quality_key(row)
        except (ValueError, KeyError, TypeError):
            raise ValueError(f"{path}, line {line_no}: not a --quality row") from None
        rows.append(row)
    return rows


def run_quality(datasets: list[str], seeds: list[int], steps: int, out: Path, workers: int = 2) -> int:
    """Every (dataset, seed, precision) run not yet in ``out``, a seed's two precisions side by side."""
    from concurrent.futures import ProcessPoolExecutor, as_completed

    from benchmarks.gothic import _pin_worker

    done = {quality_key(r) for r in read_quality(out)}
    tasks = [(d, s, p, steps) for d in datasets for s in seeds for p in PRECISIONS if (d, s, p, steps) not in done]
    for dataset in dict.fromkeys(t[0] for t in tasks):
        prepare_quality(dataset)
    print(f"{len(tasks)} runs to make ({len(done)} already in {out})", file=sys.stderr)
    out.parent.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(max_workers=workers, initializer=_pin_worker) as pool:
        futures = [pool.submit(_quality_task, t) for t in tasks]
        for f in as_completed(futures):
            row = f.result()
            with open(out, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            print(f"{row['dataset']} seed {row['seed']} {row['precision']}: {QUALITY[row['dataset']]} "
                  f"{row[QUALITY[row['dataset']]]}, objective {row['final_objective']}, {row['wall_s']} s",
                  file=sys.stderr, flush=True)
    return len(tasks)


def quality_table(rows: list[dict]) -> list[str]:
    """Per dataset and seed: each precision's figure and objective, how many letters' best sounds differ,
    and double's time over single's."""
    by = {quality_key(r)[:3]: r for r in rows}
    lines = ["| dataset | seed | P double | P single | objective double | objective single | letters differing | "
             "time double / single |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for dataset, seed in sorted({k[:2] for k in by}):
        d, s = by.get((dataset, seed, "double")), by.get((dataset, seed, "single"))
        if d is None or s is None:
            continue
        field = QUALITY[dataset]
        differ = sum(d["best"].get(k) != v for k, v in s["best"].items())
        lines.append(f"| {dataset} ({field}) | {seed} | {d[field]:.3f} | {s[field]:.3f} | {d['final_objective']:.3f} | "
                     f"{s['final_objective']:.3f} | {differ} of {len(s['best'])} | {d['wall_s'] / s['wall_s']:.2f} |")
    return lines


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.dp_precision", description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, help="training steps per round (default 10), or per --quality run (default "
                                             "3000)")
    p.add_argument("--rounds", type=int, default=5, help="rounds per precision, alternating (default 5)")
    p.add_argument("--out", type=Path, help="append the JSON line(s) to this file")
    p.add_argument("--quality", nargs="+", choices=sorted(QUALITY), help="whole runs in both precisions instead")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="--quality's seeds (default 0 1 2)")
    p.add_argument("--workers", type=int, default=2, help="--quality's worker processes (default 2)")
    p.add_argument("--quality-table", type=Path, metavar="JSONL", help="print the table of a --quality file, and stop")
    args = p.parse_args(argv)
    if args.quality_table:
        try:
            print("\n".join(quality_table(read_quality(args.quality_table))))
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        return 0
    if args.quality:
        steps = 3000 if args.steps is None else args.steps
        if steps < 1 or args.workers < 1 or not args.out:
            print("error: --quality needs --out, and --steps and --workers of at least 1", file=sys.stderr)
            return 2
        try:
            run_quality(args.quality, args.seeds, steps, args.out, args.workers)
        except (ValueError, FileNotFoundError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        return 0
    args.steps = 10 if args.steps is None else args.steps
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
