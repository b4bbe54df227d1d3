"""Issue 49, item 2: how far a finished syllabary run's sign values are from the key, for its most
frequent signs: the rank of each sign's key value (onset, vowel) among all values by the run's
P(onset | sign) x P(vowel | sign). A cipher read once its 20 most frequent signs are given
(``cipher_suite --oracle-part top:20``) is within reach of a local search if those ranks are small.

    python -m benchmarks.experiments.syllable_ranks --cipher dev-s-latin-1 --run CHECKPOINT --top 20
"""

from __future__ import annotations

import argparse
import collections
import sys

import numpy as np

from benchmarks.experiments.syllable_objective import BUILD, finish_row, key_of


def main(argv=None) -> int:
    from benchmarks.cipher_suite import load_folder
    from engine.training.trainer import Trainer

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cipher", required=True)
    ap.add_argument("--run", required=True, help="a checkpoint.pt of a run on that cipher")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--out", help="append the summary row (JSON lines) to this file")
    args = ap.parse_args(argv)
    folder = BUILD / args.cipher
    corpus, vocab = load_folder(folder)
    t = Trainer.from_checkpoint(args.run, corpus, vocab)
    table = t.model.syllable_table()
    key = key_of(folder)
    counts = collections.Counter(c for ch in t.prep.chunks for c in ch.letters)
    onsets, vowels = list(table.onsets), list(table.vowels)
    ranks = []
    for sign, n in counts.most_common():
        if sign not in key or len(ranks) >= args.top:
            continue
        i = table.signs.index(sign)
        joint = np.outer(table.onset_probs[i], table.vowel_probs[i])            # (onsets, vowels)
        on, vo = key[sign]
        if on not in onsets or vo not in vowels:
            continue
        p_right = joint[onsets.index(on), vowels.index(vo)]
        rank = int((joint > p_right).sum()) + 1
        best = np.unravel_index(joint.argmax(), joint.shape)
        ranks.append(rank)
        print(f"{sign} n={n:5d} key {on}{vo}  rank {rank:4d} of {joint.size}  "
              f"onset rank {int((table.onset_probs[i] > table.onset_probs[i][onsets.index(on)]).sum()) + 1:3d}  "
              f"vowel rank {int((table.vowel_probs[i] > table.vowel_probs[i][vowels.index(vo)]).sum()) + 1}  "
              f"run's top {onsets[best[0]]}{vowels[best[1]]}")
    r = np.array(ranks)
    row = {"cipher": args.cipher, "run": args.run, "signs": len(r), "values": len(onsets) * len(vowels),
           **{f"within_{k}": int((r <= k).sum()) for k in (1, 5, 10, 20, 50)},
           "median_rank": float(np.median(r)) if len(r) else None, "ranks": [int(x) for x in r]}
    finish_row(row, "syllable_ranks", argv, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
