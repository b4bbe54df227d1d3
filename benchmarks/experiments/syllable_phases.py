"""Issue 49, item 2: what a syllabary run has learned of its signs' vowels and onsets as it trains.

Trains one dev cipher (build/ciphers/ID) with the given settings and prints, every ``--every`` steps,
the share of signs (and of the text's sign tokens) whose most probable vowel, onset, and both, are the
key's (build/ciphers/ID/key.csv), beside the run's objective parts. The key is only read to report:
nothing in training sees it. Rows (JSON lines) go to ``--out``.

    python -m benchmarks.experiments.syllable_phases --cipher dev-s-latin-1 --steps 1000 --every 100 \
        --set vowel_slot=joint --set vowels_first=0.5 ...
"""

from __future__ import annotations

import argparse
import collections
import sys
import time

from benchmarks.experiments.syllable_objective import BUILD, finish_row, key_of


def shares(trainer, key, counts) -> dict:
    table = trainer.model.syllable_table()
    top = table.top_values()
    total = sum(counts[s] for s in key)
    out = {}
    for name, hit in (("vowel", lambda v, k: v[1] == k[1]), ("onset", lambda v, k: v[0] == k[0]),
                      ("both", lambda v, k: v == k)):
        right = [s for s in key if s in top and hit(top[s], key[s])]
        out[f"{name}_signs"] = round(len(right) / len(key), 4)
        out[f"{name}_tokens"] = round(sum(counts[s] for s in right) / max(total, 1), 4)
    return out


def main(argv=None) -> int:
    from engine.config import config_from_options
    from engine.training.trainer import Trainer
    from benchmarks.cipher_suite import load_folder

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cipher", required=True)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--every", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    folder = BUILD / args.cipher
    cfg = config_from_options(config_file=folder / "settings.toml", assignments=[*args.set, "eval_interval=0"],
                              seed=args.seed, steps=args.steps)
    corpus, vocab = load_folder(folder)
    key = key_of(folder)
    t = Trainer(corpus, vocab, cfg, live_interval=None)
    counts = collections.Counter(c for ch in t.prep.chunks for c in ch.letters)
    key = {s: v for s, v in key.items() if counts[s]}          # the signs the text writes
    t0 = time.perf_counter()
    last = {}
    for ev in t.run():
        parts = getattr(ev, "losses", None)
        if parts is not None:
            last = parts
        step = getattr(ev, "step", 0)
        if parts is not None and (step % args.every == 0 or step == args.steps):
            row = {"cipher": args.cipher, "seed": args.seed, "step": step, "sets": args.set,
                   **shares(t, key, counts), "total": round(last["total"], 4), "quality": round(last["quality"], 4),
                   "wall_s": round(time.perf_counter() - t0, 1)}
            finish_row(row, "syllable_phases", argv, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
