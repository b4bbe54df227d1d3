"""Onsets first (setting ``onsets_first``, issue 25): does learning a syllabary's consonantal skeleton
before its vowels let the syllable model find the grid from the signs alone, with nothing pinned?

On synthetic syllabaries (engine/datasets/synthetic_syllabary.py, ciphers drawn from ``--ciphers``;
their cognates, as ``tests/engine/test_syllable_model.py`` trains them: 150 stems, 300 steps, annealing
over 200), every cipher is trained from scratch (no pin) once per ``--onsets-first`` value, the
training seed fixed (``--seed``), at the learning rate ``--lr`` (the paper's 0.2 unless asked). A row
per run: P@1, P@10, the signs at their true onset and vowel (``count_right``), the run's final
objective over the corpus (what a user can read without gold) and the training time. Rows go to a JSONL file as they finish; a second call skips what is there
(resumable); ``--table`` prints the Markdown table of a file.

    nice python -m benchmarks.syllable_onsets_first --out benchmarks/results/syllables/onsets-first-synthetic.jsonl
    python -m benchmarks.syllable_onsets_first --out benchmarks/results/syllables/onsets-first-synthetic.jsonl --table
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from benchmarks.commit import short_commit


def one(cipher: int, onsets_first: float, seed: int, steps: int, anneal: int, lr: float = 0.2) -> dict:
    import torch

    torch.set_num_threads(1)
    from engine.config import Config
    from engine.datasets.synthetic_syllabary import count_right, make_syllabary_cipher
    from engine.training.final_objective import corpus_objective
    from engine.training.trainer import Trainer

    c = make_syllabary_cipher(seed=cipher, n_stems=150, n_inscriptions=75)
    cfg = Config.from_dict({**c.settings(segmented=True), "steps": steps, "anneal_steps": anneal,
                            "eval_interval": 0, "seed": seed, "onsets_first": onsets_first, "lr": lr})
    tr = Trainer(c.cognates, c.vocabulary, cfg, gold=c.cognate_gold, live_interval=None)
    t0 = time.perf_counter()
    for _ in tr.run():
        pass
    wall = time.perf_counter() - t0
    t = tr.model.syllable_table()
    best = t.top_values()
    m = tr.evaluate().metrics
    return {"cipher": cipher, "onsets_first": onsets_first, "lr": lr, "seed": seed, "steps": steps, "anneal_steps": anneal,
            "p_at_1": m["p_at_1"], "p_at_10": m["p_at_10"], "signs_right": count_right(c, best),
            "signs": len(c.signs), "objective": float(corpus_objective(tr)["objective"]), "wall_s": round(wall, 1),
            "commit": short_commit()}


def _lr(row: dict) -> float:
    return float(row.get("lr", 0.2))        # rows from before --lr trained at the paper's 0.2


def table(rows: list[dict]) -> str:
    col = lambda r: (r["onsets_first"], _lr(r), r.get("steps", 300))
    values = sorted({col(r) for r in rows})
    ciphers = sorted({r["cipher"] for r in rows})
    by = {(r["cipher"], col(r)): r for r in rows}
    head = "| cipher | " + " | ".join(f"onsets_first {v}, lr {lr}, {n:,} steps: P@1, signs right"
                                     for v, lr, n in values) + " |"
    out = [head, "|" + "---|" * (len(values) + 1)]
    for c in ciphers:
        cells = []
        for v in values:
            r = by.get((c, v))
            cells.append(f"{r['p_at_1']:.3f}, {r['signs_right']}/{r['signs']}" if r else "")
        out.append(f"| {c} | " + " | ".join(cells) + " |")
    means = []
    for v in values:
        rs = [by[(c, v)] for c in ciphers if (c, v) in by]
        means.append(f"{statistics.mean(r['p_at_1'] for r in rs):.3f}, "
                     f"{statistics.mean(r['signs_right'] / r['signs'] for r in rs):.2f}" if rs else "")
    out.append("| mean | " + " | ".join(means) + " |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--ciphers", type=int, nargs="+", default=[0, 1, 2, 3, 4, 5])
    p.add_argument("--onsets-first", type=float, nargs="+", default=[0.0, 0.5, 1.0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--anneal-steps", type=int, default=200)
    p.add_argument("--lr", type=float, default=0.2, help="the learning rate (setting lr)")
    p.add_argument("--table", action="store_true")
    args = p.parse_args(argv)
    rows = [json.loads(line) for line in args.out.read_text(encoding="utf-8").splitlines()] \
        if args.out.exists() else []
    if args.table:
        print(table(rows))
        return 0
    from engine.config import Config
    from engine.errors import DecipherError

    try:            # a setting out of range: one line before any run, not a traceback from the first
        for v in args.onsets_first:
            Config.from_dict({"steps": args.steps, "anneal_steps": args.anneal_steps, "lr": args.lr,
                              "seed": args.seed, "onsets_first": v})
    except (DecipherError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    done = {(r["cipher"], r["onsets_first"], r["seed"], r["steps"], _lr(r)) for r in rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for c in args.ciphers:
        for v in args.onsets_first:
            if (c, v, args.seed, args.steps, args.lr) in done:
                continue
            row = one(c, v, args.seed, args.steps, args.anneal_steps, args.lr)
            with args.out.open("a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")
            print(json.dumps(row), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
