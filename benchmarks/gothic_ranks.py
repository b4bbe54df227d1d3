"""Per-gold-row ranks of one Gothic grid cell, and where two runs differ (issue 13: why a cell moved).

    # train one cell on a data folder (the builder's output: DATA/non-wr0/ …) and keep every gold row's rank
    python -m benchmarks.gothic_ranks train --data build/gothic --known on --wr 0 --variant partial --seed 0 \\
        --out benchmarks/results/gothic-ranks/on-wr0-partial-s0-new.csv.gz
    # compare two such files: P@10 on the gold rows both share (same start, same gold stems), on the
    # rows only one has, and the gold stems whose rows were won or lost
    python -m benchmarks.gothic_ranks compare OLD.csv.gz NEW.csv.gz

``train`` runs the grid's cell (benchmarks/gothic.py: the same settings, 3,000 steps, one torch
thread) on ``--data`` instead of the grid's cache, with ``--set name=value`` added to its settings
(e.g. ``--set restarts=4``), and writes one row per gold row: ``inscription_id,start,known,rank``
(``rank`` empty when no correct stem is among the candidates), gzip-compressed. Its JSON line
also says how many Gothic letters the learned mapping reads as the full prior's standard values
(``prior_agree`` of ``prior_letters``, and each letter's best known unit: ``mapping_best``), and the
gold-free final objective over the corpus with its parts (``final_objective``, ``final_quality`` …;
engine/training/final_objective.py; ``final_objective_without_pins`` leaves out the pins' term, so that a base
and a pinned run of one dataset can be compared by what training optimises).
"""

from __future__ import annotations

import argparse
import collections
import csv
import gzip
import json
import sys
from pathlib import Path
from typing import Sequence

from benchmarks import gothic
from engine.config import parse_assignments
from engine.errors import InputError
from engine.io.tables import read_prior

FIELDS = ("inscription_id", "start", "known", "rank")


def write_ranks(path: Path, gold_rows: Sequence[dict], ranks: Sequence[int | None]) -> None:
    """One row per gold row with its rank; written whole to a temporary file, then renamed."""
    if len(gold_rows) != len(ranks):
        raise ValueError(f"{len(gold_rows)} gold rows but {len(ranks)} ranks")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    with gzip.open(tmp, "wt", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(FIELDS)
        for g, r in zip(gold_rows, ranks):
            w.writerow((g["inscription_id"], g["start"], g["known"], "" if r is None else r))
    tmp.replace(path)


def read_ranks(path: Path) -> dict[tuple[str, str], tuple[str, int | None]]:
    """(inscription_id, start) -> (gold stems, rank or None)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    if rows and set(FIELDS) - set(rows[0]):
        raise SystemExit(f"error: {path}: needs the columns {', '.join(FIELDS)}")
    out = {}
    for line, r in enumerate(rows, start=2):
        try:
            out[(r["inscription_id"], r["start"])] = (r["known"], int(r["rank"]) if r["rank"] else None)
        except ValueError:
            raise SystemExit(f"error: {path}, line {line}: rank {r['rank']!r} is not a whole number") from None
    return out


def compare(a: dict, b: dict, k: int = 10, top: int = 15) -> dict:
    """P@k of run A and run B on the gold rows both have with the same gold stems, each on its own
    other rows, and the gold stems whose shared rows B lost or won against A."""
    def hit(r):
        return r is not None and r <= k

    shared = [key for key in a if key in b and a[key][0] == b[key][0]]
    only_a = [key for key in a if key not in shared]
    only_b = [key for key in b if key not in shared]
    lost, won = collections.Counter(), collections.Counter()
    for key in shared:
        ha, hb = hit(a[key][1]), hit(b[key][1])
        if ha and not hb:
            lost[a[key][0]] += 1
        elif hb and not ha:
            won[a[key][0]] += 1

    def p(d, keys):
        return round(sum(hit(d[key][1]) for key in keys) / len(keys), 4) if keys else None

    return {"rows_a": len(a), "rows_b": len(b), "shared": len(shared),
            f"p_at_{k}_a": p(a, list(a)), f"p_at_{k}_b": p(b, list(b)),
            f"p_at_{k}_shared_a": p(a, shared), f"p_at_{k}_shared_b": p(b, shared),
            "only_a": len(only_a), f"p_at_{k}_only_a": p(a, only_a),
            "only_b": len(only_b), f"p_at_{k}_only_b": p(b, only_b),
            "lost_by_b": sum(lost.values()), "lost_by_b_stems": ", ".join(f"{s} {n}" for s, n in lost.most_common(top)),
            "won_by_b": sum(won.values()), "won_by_b_stems": ", ".join(f"{s} {n}" for s, n in won.most_common(top))}


def prior_agreement(mapping, pins) -> dict:
    """How far a learned character mapping agrees with a table of standard values (``pins``, e.g.
    the full Gothic prior): for each lost letter the table names and the corpus has, is the known
    unit the mapping puts first for it (the deletion aside) one of the table's values for it?
    Gold-free for training (read after it), a diagnostic of *why* a cell scores as it does."""
    values: dict[str, set[str]] = collections.defaultdict(set)
    for p in pins:
        values[p.lost].add(p.known_ipa)
    best, agree = {}, []
    for letter in sorted(values):
        if letter not in mapping.lost:
            continue
        ranked = [u for u, _ in mapping.best_known_for(letter, k=len(mapping.known)) if u != mapping.known[0]]
        best[letter] = ranked[0]
        if ranked[0] in values[letter]:
            agree.append(letter)
    return {"prior_letters": len(best), "prior_agree": len(agree), "prior_agree_letters": " ".join(agree),
            "mapping_best": " ".join(f"{letter}>{unit}" for letter, unit in best.items())}


def final_objective(trainer, stems: int | None = None) -> dict:
    """The gold-free final objective over the corpus and its parts (``final_objective``,
    ``final_quality`` …), and ``final_objective_without_pins``: the same without the pins' term, so
    that a base and a pinned run of one dataset can be compared by what training optimises.
    ``stems = K``: each span competing among its K best stems (engine/training/final_objective.py)."""
    from engine.training.final_objective import corpus_objective

    parts = corpus_objective(trainer, stems=stems)
    out = {f"final_{k}": round(v, 4) for k, v in parts.items()}
    out["final_objective_without_pins"] = round(parts["objective"] - trainer.config.pin_weight * parts["pins"], 4)
    return out


def train(args) -> int:
    if args.wr not in gothic.WRS or args.schedule not in gothic.SCHEDULES:
        print(f"error: --wr is one of {', '.join(gothic.WRS)} and --schedule one of {', '.join(gothic.SCHEDULES)}",
              file=sys.stderr)
        return 2
    cell = gothic.Cell(args.known, args.wr, args.variant, args.schedule, args.seed)
    try:
        extra = parse_assignments(args.set)
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    error = gothic.missing_dataset(args.known, args.wr, args.data)
    if error:
        print(error, file=sys.stderr)
        return 2
    data = gothic.dataset_dir(args.known, args.wr, args.data)
    lost, known, gold, prior, settings = gothic.cell_arguments(cell, cache=args.data)
    settings = {**settings, **extra}
    gothic._pin_worker()
    trainer = gothic.train_and_evaluate(lost, known, gold, prior, settings)
    ev = trainer.last_evaluation
    with open(gold, encoding="utf-8", newline="") as f:
        gold_rows = list(csv.DictReader(f))
    write_ranks(args.out, gold_rows, ev.gold_ranks)
    standard = prior_agreement(trainer.mapping(), read_prior(gothic.prior_path("full")))
    print(json.dumps({"data": str(data), "settings": settings,
                      **{m: round(v, 4) for m, v in ev.metrics.items() if m.startswith("p_at_") or "restart" in m},
                      **standard, **final_objective(trainer)}, ensure_ascii=False))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.gothic_ranks", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    t = sub.add_parser("train", help="train one grid cell on --data and write every gold row's rank")
    t.add_argument("--data", type=Path, required=True, help="folder with <known>-wr<WR>/ datasets")
    t.add_argument("--known", choices=sorted(gothic.KNOWN), required=True)
    t.add_argument("--wr", required=True, help="0, 0.25, 0.5, 0.75 or 1")
    t.add_argument("--variant", choices=("base", "partial", "full"), default="base")
    t.add_argument("--schedule", default="0-3.5")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    t.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare", help="where two rank files differ")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    c.add_argument("--k", type=int, default=10)
    args = p.parse_args(argv)
    if args.what == "train":
        return train(args)
    for path in (args.a, args.b):
        if not path.is_file():
            print(f"error: {path}: no such file", file=sys.stderr)
            return 2
    print(json.dumps(compare(read_ranks(args.a), read_ranks(args.b), k=args.k), ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
