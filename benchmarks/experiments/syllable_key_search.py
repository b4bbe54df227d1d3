"""Issue 49, item 2: a sign key found by annealing, as homophonic-cipher solvers find theirs.

Each sign gets one syllable of the known language (π: sign -> (onset, vowel)); the lost text's
likelihood under π is the known stems' syllable bigram (benchmarks/experiments/syllable_hmm.py
Bigram: words run together) over the signs' syllables, times each sign's share of its syllable
(P(sign | syllable) at its maximum-likelihood value, so splitting a syllable over several signs
costs what it should). Annealing (Gibbs moves of one sign at a time, the temperature falling)
from several random keys; the key with the highest likelihood is kept (no gold). Printed beside it:
the key's likelihood (an upper bound of what the search should reach) and how many signs each
found key gives their standard onset and vowel.

    python -m benchmarks.experiments.syllable_key_search --cipher dev-s-latin-1 --starts 4 --sweeps 400
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from benchmarks.experiments.syllable_hmm import BUILD, Bigram, judged, key_of, known_syllables, lost_chunks
from benchmarks.experiments.syllable_objective import finish_row


def counts_of(chunks, signs):
    sidx = {s: i for i, s in enumerate(signs)}
    M = len(signs)
    big = np.zeros((M, M))
    first = np.zeros(M)
    uni = np.zeros(M)
    for ch in chunks:
        ids = [sidx[c] for c in ch]
        first[ids[0]] += 1
        for i in ids:
            uni[i] += 1
        for a, b in zip(ids, ids[1:]):
            big[a, b] += 1
    return big, first, uni


def xlogx(x):
    return np.where(x > 0, x * np.log(np.maximum(x, 1e-300)), 0.0)


class KeyScore:
    """log P(text | π) = Σ C[a,b] L[π a, π b] + Σ first[a] log start[π a] + Σ_s c_s log c_s − Σ_x c_x log c_x."""

    def __init__(self, big, first, uni, lm: Bigram):
        self.C, self.first, self.uni = big, first, uni
        self.L = np.log(lm.trans)
        self.S = np.log(lm.start)
        self.const = float(xlogx(uni).sum())
        self.N = len(lm.states)

    def total(self, pi):
        c_x = np.bincount(pi, weights=self.uni, minlength=self.N)
        return float((self.C * self.L[pi][:, pi]).sum() + (self.first * self.S[pi]).sum()
                     + self.const - xlogx(c_x).sum())

    def moves(self, pi, a, c_x):
        """The score of every value x for sign a, the rest of π fixed (up to a constant)."""
        C, L = self.C, self.L
        others = np.ones(len(pi), dtype=bool)
        others[a] = False
        pb = pi[others]
        out_ = L[:, pb] @ C[a, others]                 # a -> b
        in_ = C[others, a] @ L[pb, :]                  # b -> a
        self_ = C[a, a] * np.diag(L)
        start = self.first[a] * self.S
        cx = c_x.copy()
        cx[pi[a]] -= self.uni[a]
        emit = -(xlogx(cx + self.uni[a]) - xlogx(cx))
        return out_ + in_ + self_ + start + emit


def anneal(ks: KeyScore, M: int, rng, sweeps: int, t0: float = 3.0, t1: float = 0.05, pi=None):
    N = ks.N
    pi = rng.integers(0, N, size=M) if pi is None else pi.copy()
    c_x = np.bincount(pi, weights=ks.uni, minlength=N)
    for sweep in range(sweeps):
        temp = t0 * (t1 / t0) ** (sweep / max(sweeps - 1, 1))
        for a in rng.permutation(M):
            sc = ks.moves(pi, a, c_x)
            p = np.exp((sc - sc.max()) / temp)
            x = rng.choice(N, p=p / p.sum())
            c_x[pi[a]] -= ks.uni[a]
            pi[a] = x
            c_x[x] += ks.uni[a]
    return ks.total(pi), pi


def key_search_options(ap: argparse.ArgumentParser, *, starts: int, sweeps: int, t0: float) -> None:
    """The options of an annealed key search over the dev ciphers (this one and syllable_dictionary.py)."""
    ap.add_argument("--cipher", action="append", required=True)
    ap.add_argument("--starts", type=int, default=starts)
    ap.add_argument("--sweeps", type=int, default=sweeps)
    ap.add_argument("--t0", type=float, default=t0)
    ap.add_argument("--t1", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    key_search_options(ap, starts=4, sweeps=400, t0=3.0)
    args = ap.parse_args(argv)
    for cid in args.cipher:
        folder = BUILD / cid
        lm = Bigram(known_syllables(folder))
        chunks = lost_chunks(folder)
        signs = sorted({c for ch in chunks for c in ch})
        big, first, uni = counts_of(chunks, signs)
        ks = KeyScore(big, first, uni, lm)
        key = key_of(folder)
        sti = {s: i for i, s in enumerate(lm.states)}
        rng = np.random.default_rng(args.seed)
        # the key itself (signs whose syllable the stems never have take their best value, the rest fixed)
        truth = np.array([sti.get(key.get(s), 0) for s in signs])
        known_val = np.array([key.get(s) in sti for s in signs])
        for a in np.nonzero(~known_val)[0]:
            c_x = np.bincount(truth, weights=uni, minlength=ks.N)
            truth[a] = int(np.argmax(ks.moves(truth, a, c_x)))
        oracle = {"cipher": cid, "oracle_score": ks.total(truth), **judged(truth, lm, signs, key, uni)}
        print(json.dumps(oracle), flush=True)
        t0 = time.perf_counter()
        rows = []
        for r in range(args.starts):
            score, pi = anneal(ks, len(signs), rng, args.sweeps, args.t0, args.t1)
            row = {"cipher": cid, "start": r, "score": score, **judged(pi, lm, signs, key, uni)}
            rows.append(row)
            print(json.dumps(row), flush=True)
        best = max(rows, key=lambda x: x["score"])
        summary = {"cipher": cid, "chosen_start": best["start"], "chosen_share_right": best["share_right"],
                   "chosen_onsets_right": best["onsets_right"], "chosen_vowels_right": best["vowels_right"],
                   "best_share_right": max(x["share_right"] for x in rows), "oracle_score": oracle["oracle_score"],
                   "chosen_score": best["score"], "signs": len(signs), "states": ks.N, "starts": args.starts,
                   "sweeps": args.sweeps, "t0": args.t0, "t1": args.t1, "seed": args.seed,
                   "wall_s": round(time.perf_counter() - t0, 1)}
        finish_row(summary, "syllable_key_search", argv, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
