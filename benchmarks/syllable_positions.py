"""Where a syllabary's signs stand in their words: do the bare-vowel signs give themselves away? (issue 25)

Ventris noticed that Linear B's pure-vowel signs stand mostly at the start of words (a Greek word starts
with a vowel, and inside a word a vowel follows a vowel only in hiatus). If the signs' positions alone
singled out the bare vowels, a run could lean those signs to "no onset" from the start without gold.
This reads a LOST.csv (words as segmented) and ranks the signs by how much more often they start a word
than chance would put them there (occurrences at a word's start / the sum of 1/len(word) over the
sign's occurrences), beside their standard values (resources/linear_b/standard-values.csv: the gold,
used here only to read the ranking):

    decipher import-cog ../shared/data/linear_b/linear_b-greek.cog --system greek --out data/linb
    python -m benchmarks.syllable_positions data/linb/lost.csv     # -> results/syllables/initial-positions.csv
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STANDARD = ROOT / "resources" / "linear_b" / "standard-values.csv"
OUT = ROOT / "benchmarks" / "results" / "syllables" / "initial-positions.csv"
MIN_COUNT = 10


def initial_ratios(words: list[str], min_count: int = MIN_COUNT) -> list[tuple[str, int, int, float]]:
    """(sign, occurrences, word-initial occurrences, initial / expected) of every sign seen at least
    ``min_count`` times, highest ratio first."""
    total, initial, expected = Counter(), Counter(), defaultdict(float)
    for w in words:
        for i, c in enumerate(w):
            total[c] += 1
            expected[c] += 1 / len(w)
            initial[c] += i == 0
    rows = [(c, total[c], initial[c], initial[c] / expected[c]) for c in total if total[c] >= min_count]
    return sorted(rows, key=lambda r: (-r[3], r[0]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.syllable_positions", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("lost", type=Path, help="a LOST.csv of Linear B words (decipher import-cog)")
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    if not args.lost.is_file():
        print(f"error: {args.lost}: no such file", file=sys.stderr)
        return 2
    with open(args.lost, encoding="utf-8", newline="") as f:
        words = [r["text"] for r in csv.DictReader(f) if r.get("text")]
    with open(STANDARD, encoding="utf-8", newline="") as f:
        std = {r["sign"]: (r["transliteration"], r["onset"]) for r in csv.DictReader(f)}
    from engine.io.atomic import write_csv

    rows = initial_ratios(words)
    table = [(rank, sign, *std.get(sign, ("?", "?")), n, ini, round(ratio, 3))
             for rank, (sign, n, ini, ratio) in enumerate(rows, 1)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_csv(args.out, ("rank", "sign", "transliteration", "onset", "count", "initial", "initial_over_chance"),
              table)
    bare = [t for t in table if t[3] == "\u2205"]
    print(f"{len(words)} words, {len(table)} signs seen {MIN_COUNT}+ times; the bare-vowel signs rank "
          + ", ".join(f"{t[2]} {t[0]}" for t in bare) + f" -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
