"""Issue 49, item 2: can a syllabary's signs be grouped by their vowel from the text alone?

The groups of engine/model/sign_groups.py (signs that share a vowel share the signs that follow them:
echo vowels, vowel harmony), made from the text alone (the first rows of dev-vowel-classes.jsonl, at
483a423, came from this script's own copy of that code, before it moved to the engine and left out the
signs seen fewer than 5 times). The key is read
only to score the groups (their purity: the share of the text's signs whose group's most common key
vowel is their own) and, for ``cipher_suite --oracle-part vowel-classes``, to give each group the
vowel most of its signs have (the best case of a search over which group is which vowel).

Each row also gives what the diagnosis's ``vowels`` check (engine/training/diagnosis.py) would say of the key's
own vowels, a reading with every vowel right, on the text's chunks as a run with the preset ``syllabary`` cuts
them: its agreement with the groups, the shuffles' mean, the permutation p and the groups' stability
(``key_*``). A text whose key gets p >= 0.05 is one on which the check flags even a perfect reading.

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


def key_evidence(folder: Path, key: dict[str, tuple[str, str]]) -> dict[str, float | None]:
    """The diagnosis's vowel evidence (engine/model/sign_groups.py ``vowel_evidence``) on the key's own vowels,
    over the chunks a run with the preset ``syllabary`` reads (as the diagnosis takes them)."""
    from engine.config import PRESETS, Config
    from engine.model.prepared import prepare
    from engine.model.sign_groups import vowel_evidence
    from benchmarks.cipher_suite import load_folder

    prep = prepare(*load_folder(folder), Config(**PRESETS["syllabary"]))
    ev = vowel_evidence([chunk.letters for chunk in prep.chunks], {s: v for s, (_, v) in key.items()})
    if ev is None:
        return {"key_agreement": None, "key_chance": None, "key_p": None, "key_stability": None}
    return {"key_agreement": round(ev.agreement, 4), "key_chance": round(ev.chance, 4),
            "key_p": round(ev.p_value, 4), "key_stability": round(ev.stability, 4)}


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
                    "chance": round(max(collections.Counter(v for _, v in key.values()).values()) / len(key), 4),
                    **key_evidence(folder, key)},
                   "syllable_vowel_classes", argv, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
