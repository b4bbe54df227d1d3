"""The swap polish (issue 30, engine/training/polish.py) on a finished run: what it changes.

    python -m benchmarks.search_polish --data benchmarks/.cache/gothic/ang-wr100 --run RUN_DIR \
        [--moves 5] [--share 0.1] [--prior resources/priors/gothic-full.csv] \
        --out benchmarks/results/search/polish.jsonl

RUN_DIR is a ``decipher run --out`` folder (its checkpoint.pt); ``--data`` the folder of its lost.csv,
known.csv and gold.csv. The run's model is polished as the setting ``polish_moves`` would do after its
last step, and one JSON line is appended to ``--out``: P@1/P@10 (lenient and strict), the letters its
mapping reads as ``--prior``'s standard values, and the final objective, before the polish and after it
(the ``after_`` fields), each move kept with its fall of the objective, the moves scored and the wall time (one torch thread).
``--moves 0`` only measures the run (the "after" state is the same model).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parents[1]


def state(trainer, prior) -> dict:
    from benchmarks.gothic_ranks import prior_agreement
    from engine.training.final_objective import corpus_objective

    m = trainer.evaluate().metrics
    out = {k: round(m[k], 4) for k in ("p_at_1", "p_at_10", "p_at_1_strict", "p_at_10_strict") if k in m}
    out["objective"] = round(corpus_objective(trainer)["objective"], 4)
    if prior:
        agree = prior_agreement(trainer.mapping(), prior)
        out |= {"letters_right": agree["prior_agree"], "letters": agree["prior_letters"],
                "mapping_best": agree["mapping_best"]}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.search_polish", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, required=True, help="folder with lost.csv, known.csv, gold.csv")
    p.add_argument("--run", type=Path, required=True, help="a decipher run --out folder (its checkpoint.pt)")
    p.add_argument("--moves", type=int, default=5, help="at most this many swaps kept (default 5; 0: measure only)")
    p.add_argument("--share", type=float, default=0.25, help="the screening sample's share of the letters")
    p.add_argument("--prior", type=Path, default=ROOT / "resources" / "priors" / "gothic-full.csv",
                   help="standard values to count the letters read right by (empty: none)")
    p.add_argument("--out", type=Path, required=True, help="JSON lines file to append to")
    args = p.parse_args(argv)

    import torch

    from engine.corpus import Corpus, Vocabulary
    from engine.errors import DecipherError
    from engine.io.tables import read_gold, read_known, read_lost, read_prior
    from engine.training.polish import polish
    from engine.training.trainer import Trainer

    torch.set_num_threads(1)
    try:
        inscriptions = read_lost(args.data / "lost.csv")
        corpus = Corpus(args.data.name, tuple(inscriptions))
        vocabulary = Vocabulary(args.data.name, tuple(read_known(args.data / "known.csv")))
        gold = read_gold(args.data / "gold.csv", inscriptions=inscriptions)
        trainer = Trainer.from_checkpoint(args.run / "checkpoint.pt", corpus, vocabulary, gold=gold,
                                          live_interval=None)
        prior = read_prior(args.prior) if str(args.prior) else None
    except DecipherError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    before = state(trainer, prior)
    t0 = time.perf_counter()
    result = polish(trainer, share=args.share, max_moves=args.moves,
                    log=lambda line: print(line, file=sys.stderr, flush=True)) if args.moves > 0 else None
    wall = time.perf_counter() - t0
    after = state(trainer, prior) if result is not None else before
    settings = trainer.config.to_dict()
    row = {"data": args.data.name, "run": args.run.name, "seed": trainer.config.seed, "share": args.share,
           "vowel_weight": settings["vowel_weight"], "class_init": settings["class_init"],
           "max_moves": args.moves, **before, **{f"after_{k}": v for k, v in after.items()},
           "moves_kept": len(result.kept) if result else 0,
           "kept": [[what, round(fall, 5)] for what, fall in result.kept] if result else [],
           "scored": result.scored if result else 0, "wall_s": round(wall, 1)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "a", encoding="utf-8") as f:
        f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(json.dumps(row, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
