"""Issue 49, item 2: does a dictionary attack's score find a syllabary's key?

A key π gives each sign one syllable (onset, vowel); the lost text read through π is covered by
the known stems laid out as syllables (benchmarks/experiments/syllable_hmm.py known_syllables),
exact matches of at least ``--min-syllables`` syllables, the most syllables covered per run of signs
(a small dynamic programme). Unlike the syllable bigram (syllable_key_search.py), this scores whole
stems, as the model's objective does. The search swaps two signs' values (so the values keep the
key's own multiset: a best case, since a real search would not know it) under annealing from
shuffled keys. Printed: the key's own coverage, the shuffled keys', and what the search reaches and
how many signs it gets right. A score the search can raise above the key's with wrong keys cannot
lead it to the key.

    python -m benchmarks.experiments.syllable_dictionary --cipher dev-s-latin-1 --starts 2 --sweeps 200
"""

from __future__ import annotations

import argparse
import collections
import math
import random
import time

from benchmarks.experiments.syllable_hmm import BUILD, known_syllables, lost_chunks
from benchmarks.experiments.syllable_key_search import key_search_options
from benchmarks.experiments.syllable_objective import finish_row, key_of

UNKNOWN = ("?", "?")


class Coverage:
    """Syllables of the lost runs covered by exact known-stem matches under a key."""

    def __init__(self, stems, chunks, min_syllables: int):
        by_len = collections.defaultdict(set)
        for st in stems:
            if len(st) >= min_syllables:
                by_len[len(st)].add(tuple(st))
        self.by_len = sorted(by_len.items())
        self.chunks = [c for c in chunks if len(c) >= min_syllables]
        self.total = sum(len(c) for c in self.chunks)
        self.where = collections.defaultdict(set)
        for i, c in enumerate(self.chunks):
            for s in c:
                self.where[s].add(i)

    def chunk(self, i: int, key) -> int:
        read = [key.get(s, UNKNOWN) for s in self.chunks[i]]
        n = len(read)
        best = [0] * (n + 1)
        for j in range(n - 1, -1, -1):
            b = best[j + 1]
            for length, stems in self.by_len:
                if j + length <= n and tuple(read[j:j + length]) in stems:
                    b = max(b, length + best[j + length])
            best[j] = b
        return best[0]

    def all(self, key) -> list[int]:
        return [self.chunk(i, key) for i in range(len(self.chunks))]


def anneal(cov: Coverage, key, signs, rng, sweeps: int, t0: float, t1: float):
    """Swaps of two signs' values from a shuffled key, accepted by the Metropolis rule."""
    values = [key.get(s, UNKNOWN) for s in signs]
    rng.shuffle(values)
    cur = dict(zip(signs, values))
    per = cov.all(cur)
    total = sum(per)
    moves = sweeps * len(signs)
    for m in range(moves):
        temp = t0 * (t1 / t0) ** (m / moves)
        a, b = rng.sample(signs, 2)
        if cur[a] == cur[b]:
            continue
        touched = cov.where[a] | cov.where[b]
        cur[a], cur[b] = cur[b], cur[a]
        new = {i: cov.chunk(i, cur) for i in touched}
        gain = sum(new[i] - per[i] for i in touched)
        if gain >= 0 or rng.random() < math.exp(gain / temp):
            for i, v in new.items():
                per[i] = v
            total += gain
        else:
            cur[a], cur[b] = cur[b], cur[a]
    return total, cur


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    key_search_options(ap, starts=2, sweeps=200, t0=2.0)
    ap.add_argument("--min-syllables", type=int, default=2, help="the shortest stem a match may be")
    args = ap.parse_args(argv)
    for cid in args.cipher:
        folder = BUILD / cid
        key = key_of(folder)
        cov = Coverage(known_syllables(folder), lost_chunks(folder), args.min_syllables)
        signs = sorted({s for c in cov.chunks for s in c})
        rng = random.Random(args.seed)
        oracle = sum(cov.all(key)) / cov.total
        shuffled = []
        for _ in range(5):
            values = [key.get(s, UNKNOWN) for s in signs]
            rng.shuffle(values)
            shuffled.append(sum(cov.all(dict(zip(signs, values)))) / cov.total)
        t = time.perf_counter()
        found = []
        for _ in range(args.starts):
            total, cur = anneal(cov, key, signs, rng, args.sweeps, args.t0, args.t1)
            found.append((total / cov.total, sum(1 for s in signs if s in key and cur[s] == key[s])))
        best = max(found)
        finish_row({"cipher": cid, "min_syllables": args.min_syllables, "key_coverage": round(oracle, 4),
                    "shuffled_coverage_max": round(max(shuffled), 4),
                    "found_coverage": [round(c, 4) for c, _ in found], "found_signs_right": [r for _, r in found],
                    "chosen_coverage": round(best[0], 4), "chosen_signs_right": best[1],
                    "signs": len([s for s in signs if s in key]),
                    "found_above_key": sum(c > oracle for c, _ in found), "starts": args.starts,
                    "sweeps": args.sweeps, "t0": args.t0, "t1": args.t1, "seed": args.seed,
                    "wall_s": round(time.perf_counter() - t, 1)}, "syllable_dictionary", argv, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
