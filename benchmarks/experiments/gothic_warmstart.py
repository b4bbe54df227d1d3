"""Gothic–ON (or OE) base started from a Gothic–PG run's character mapping (issue 13: why ON base fails).

    python -m benchmarks.experiments.gothic_warmstart --target on --wr 1 --seed 0 --parts features all \\
        --out benchmarks/results/gothic-warmstart.jsonl

The authors kept feature embeddings "from a Gothic run" (``got.pretrained.pth``,
reference-implementation.md §8.4), which their ON runs may have started from. The file is not
available, so this asks the question with our own runs: train the grid's Gothic–PG ``base`` cell
(no gold in training, no pins), then train the ``--target`` cell's ``base`` model with some of its
parameters copied from the PG model before the first step:

* ``features``: the IPA feature embeddings only (what ``got.pretrained.pth`` holds);
* ``all``: the feature embeddings and the aligner, whose columns are matched by known unit (a unit
  ON has and PG lacks keeps its random start), i.e. PG's whole character mapping as the start.

Each target run prints one JSON line (P@10, decode-based P@10, and how many Gothic letters its mapping
reads as the full prior's standard values, as ``benchmarks/gothic_ranks.py train`` reports it) and
appends it to ``--out``, with the gold-free final objective (without the pins' term). A warm-started
run is not the paper's ``base`` model: it uses a second language's vocabulary. It tests whether the
base failure is one of finding the basin. ``--donor on --donor-variant full`` starts the target from
the mapping of its own language's run with every letter pinned to its standard value and then trains
it without pins: if the objective kept that mapping, the base model's failure would be the search's.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Sequence

from benchmarks import gothic
from benchmarks.gothic_ranks import final_objective, prior_agreement

PARTS = ("features", "all")


def transfer(donor, target, part: str) -> dict:
    """Copy ``donor``'s parameters (an engine.model.mapping.CharMapping) into ``target`` in place: the
    feature embeddings, and with ``part == "all"`` also each aligner cell (lost letter, known unit)
    both models have. Returns counts of what was copied."""
    import torch

    if part not in PARTS:
        raise ValueError(f"part is one of {', '.join(PARTS)}, got {part!r}")
    if donor.feature_emb is None or target.feature_emb is None:
        raise ValueError("both models need IPA feature embeddings (use_ipa_features)")
    if donor.feature_emb.shape != target.feature_emb.shape:
        raise ValueError(f"feature embeddings differ in shape: {tuple(donor.feature_emb.shape)} "
                         f"against {tuple(target.feature_emb.shape)} (feature_dim)")
    copied = {"feature_rows": donor.feature_emb.shape[0], "aligner_cells": 0, "units_shared": 0, "letters_shared": 0}
    with torch.no_grad():
        target.feature_emb.copy_(donor.feature_emb)
        if part == "all":
            d_lost = {x: i for i, x in enumerate(donor.lost_letters)}
            d_known = {u: i for i, u in enumerate(donor.known_units)}
            letters = [(i, d_lost[x]) for i, x in enumerate(target.lost_letters) if x in d_lost]
            units = [(j, d_known[u]) for j, u in enumerate(target.known_units) if u in d_known]
            if letters and units:
                ti = torch.tensor([a for a, _ in letters]); di = torch.tensor([b for _, b in letters])
                tj = torch.tensor([a for a, _ in units]); dj = torch.tensor([b for _, b in units])
                target.aligner[ti[:, None], tj[None, :]] = donor.aligner[di[:, None], dj[None, :]]
            copied.update(aligner_cells=len(letters) * len(units), units_shared=len(units),
                          letters_shared=len(letters))
    return copied


def _trainer(cell: gothic.Cell, cache: Path):
    return gothic.make_trainer(*gothic.cell_arguments(cell, cache=cache))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.experiments.gothic_warmstart", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--target", choices=("on", "oe"), default="on")
    p.add_argument("--donor", choices=("pg", "on", "oe"), default="pg", help="the language of the run started from")
    p.add_argument("--donor-variant", choices=("base", "partial", "full"), default="base",
                   help="the donor's variant: full = every letter pinned to its standard value, so the "
                        "target starts from the standard values' mapping and trains without pins")
    p.add_argument("--wr", default="1", choices=gothic.WRS)
    p.add_argument("--schedule", default="0-3.5", choices=tuple(gothic.SCHEDULES))
    p.add_argument("--seed", type=int, default=0, help="the seed of the donor run and of the target runs")
    p.add_argument("--parts", nargs="+", default=list(PARTS), choices=PARTS)
    p.add_argument("--steps", type=int, default=gothic.STEPS)
    p.add_argument("--data", type=Path, default=gothic.CACHE, help="folder with <known>-wr<WR>/ datasets")
    p.add_argument("--out", type=Path, help="append the JSON lines to this file too")
    args = p.parse_args(argv)
    from engine.io.tables import read_prior

    for known in (args.donor, args.target):
        error = gothic.missing_dataset(known, args.wr, args.data)
        if error:
            print(error, file=sys.stderr)
            return 2
    gothic._pin_worker()
    standard = read_prior(gothic.prior_path("full"))
    t0 = time.perf_counter()
    donor = gothic.train(_trainer(gothic.Cell(args.donor, args.wr, args.donor_variant, args.schedule, args.seed), args.data))
    donor_line = {"run": "donor", "known": args.donor, "variant": args.donor_variant, "wr": args.wr,
                  "schedule": args.schedule, "seed": args.seed, "steps": donor.step,
                  "p_at_10": round(donor.last_evaluation.metrics["p_at_10"], 4),
                  "wall_s": round(time.perf_counter() - t0, 1), **prior_agreement(donor.mapping(), standard),
                  **final_objective(donor)}
    lines = [donor_line]
    print(json.dumps(donor_line, ensure_ascii=False), flush=True)
    for part in args.parts:
        t0 = time.perf_counter()
        target = _trainer(gothic.Cell(args.target, args.wr, "base", args.schedule, args.seed), args.data)
        copied = transfer(donor.model, target.model, part)
        gothic.train(target)
        m = target.last_evaluation.metrics
        line = {"run": "target", "known": args.target, "wr": args.wr, "schedule": args.schedule, "seed": args.seed,
                "donor": args.donor, "donor_variant": args.donor_variant, "warm_start": part, "steps": target.step,
                **copied, "p_at_10": round(m["p_at_10"], 4),
                "p_at_10_strict": round(m.get("p_at_10_strict", float("nan")), 4),
                "wall_s": round(time.perf_counter() - t0, 1), **prior_agreement(target.mapping(), standard),
                **final_objective(target)}
        lines.append(line)
        print(json.dumps(line, ensure_ascii=False), flush=True)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with open(args.out, "a", encoding="utf-8") as f:
            f.writelines(json.dumps(x, ensure_ascii=False) + "\n" for x in lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
