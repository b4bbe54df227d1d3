"""Issue 49, item 2: can a syllabary's signs be grouped by their vowel from the text alone?

The groups of engine/model/sign_groups.py (signs that share a vowel share the signs that follow them:
echo vowels, vowel harmony), made from the text alone (the first rows of dev-vowel-classes.jsonl, at
483a423, came from this script's own copy of that code, before it moved to the engine and left out the
signs seen fewer than 5 times). The key is read
only to score the groups (their purity: the share of the text's signs whose group's most common key
vowel is their own) and, for ``cipher_suite --oracle-part vowel-classes``, to give each group the
vowel most of its signs have (the best case of a search over which group is which vowel).

    python -m benchmarks.experiments.syllable_vowel_classes --ciphers dev-s-latin-1 ... [--k 5] [--out FILE]
"""

from __future__ import annotations

import argparse
import collections
import csv
import sys
from pathlib import Path
from typing import Iterable, Sequence

from benchmarks.experiments.syllable_objective import BUILD, finish_row, key_of


def vowel_classes(texts: Iterable[str], k: int) -> dict[str, int]:
    """sign -> group of the signs of ``texts`` (inscriptions; spaces divide words): the product's
    grouping (engine/model/sign_groups.py) over the words."""
    from engine.model.sign_groups import vowel_groups

    return vowel_groups((word for t in texts for word in t.split()), k)


def majority_vowels(groups: dict[str, int], key: dict[str, tuple[str, str]], counts: collections.Counter) -> dict[int, str]:
    """group -> the key vowel most of its signs (by count) have."""
    votes: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    for sign, g in groups.items():
        if sign in key:
            votes[g][key[sign][1]] += counts[sign]
    return {g: c.most_common(1)[0][0] for g, c in votes.items()}


def texts_of(folder: Path) -> list[str]:
    with open(folder / "lost.csv", encoding="utf-8", newline="") as f:
        return [r["text"] for r in csv.DictReader(f)]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ciphers", nargs="+", required=True)
    ap.add_argument("--k", type=int, help="groups (default: the cipher's vowels in its key)")
    ap.add_argument("--out", help="append one row a cipher (JSON lines) to this file")
    args = ap.parse_args(argv)
    for cipher in args.ciphers:
        folder = BUILD / cipher
        texts, key = texts_of(folder), key_of(folder)
        k = args.k or len({v for _, v in key.values()})
        counts = collections.Counter(c for t in texts for c in t if not c.isspace())
        groups = vowel_classes(texts, k)
        named = majority_vowels(groups, key, counts)
        keyed = [s for s in groups if s in key]
        right = sum(counts[s] for s in keyed if named[groups[s]] == key[s][1])
        finish_row({"cipher": cipher, "k": k, "purity": round(right / sum(counts[s] for s in keyed), 4),
                    "groups_named": sorted(named.values()),
                    "chance": round(max(collections.Counter(v for _, v in key.values()).values()) / len(key), 4)},
                   "syllable_vowel_classes", argv, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
