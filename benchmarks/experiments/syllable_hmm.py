"""Issue 49, item 2: can a sign's syllable be guessed without gold from the text's sign order alone?

A classic decipherment start (Knight et al. 2006; Ravi & Knight 2011) read for a syllabary: the known
stems, laid out as syllables (each vowel with the consonant right before it, or none), give a bigram
model of syllables with word ends; the lost inscriptions are a hidden-Markov sequence of those
syllables, each written as a sign; EM learns P(sign | syllable) with the bigram fixed, from several
random starts, and keeps the start with the highest likelihood of the lost text (no gold). The
printout compares each sign's most probable syllable with the cipher's key (build/ciphers/ID/key.csv),
as the issue's syllabic bar counts it (a sign at its standard onset and vowel).

    python -m benchmarks.experiments.syllable_hmm --cipher dev-s-latin-1 --starts 8 --iterations 60 \
        --out benchmarks/results/ciphers/dev-hmm.jsonl
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.experiments.syllable_objective import BUILD, finish_row, key_of

NULL = "∅"


def known_syllables(folder: Path) -> list[tuple[tuple[str, str], ...]]:
    """Each known stem as (onset, vowel) pairs: a vowel with the consonant right before it (∅ when a
    vowel or nothing precedes); other consonants (codas, the first of a cluster) are left out."""
    from engine.model.phonology import ipa_units
    from engine.model.syllables import is_vowel

    out = []
    with open(folder / "known.csv", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            units = ipa_units(row["ipa"])
            syl, prev = [], None
            for u in units:
                if is_vowel(u):
                    syl.append((prev or NULL, u))
                    prev = None
                else:
                    prev = u
            if syl:
                out.append(tuple(syl))
    return out


def lost_chunks(folder: Path) -> list[list[str]]:
    """The lost inscriptions' runs of signs between word dividers."""
    out = []
    with open(folder / "lost.csv", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            out.extend([list(w) for w in row["text"].split() if w])
    return out


class Bigram:
    """P(first syllable), P(next | syllable) with a word end in between (the inscriptions run words
    together), interpolated with the unigram so that no transition is impossible."""

    def __init__(self, stems, smooth: float = 0.1):
        states = sorted({s for st in stems for s in st})
        self.states = states
        idx = {s: i for i, s in enumerate(states)}
        N = len(states)
        start, uni, end = np.zeros(N), np.zeros(N), np.zeros(N)
        big = np.zeros((N, N))
        for st in stems:
            ids = [idx[s] for s in st]
            start[ids[0]] += 1
            end[ids[-1]] += 1
            for i in ids:
                uni[i] += 1
            for a, b in zip(ids, ids[1:]):
                big[a, b] += 1
        uni_p = (uni + smooth) / (uni + smooth).sum()
        start_p = (start + smooth * uni_p * N) / (start + smooth * uni_p * N).sum()
        p_end = (end + 1) / (uni + 2)                             # each syllable's chance to end a word
        within = (big + smooth * N * uni_p[None, :])
        within /= within.sum(1, keepdims=True)
        self.start = start_p
        self.uni = uni_p
        self.trans = (1 - p_end)[:, None] * within + p_end[:, None] * start_p[None, :]
        self.p_end = p_end


def forward_backward(obs: np.ndarray, mask: np.ndarray, start, trans, emit):
    """Scaled forward-backward over padded sequences. obs (S, T) sign ids, mask (S, T).
    Returns the log-likelihood and the expected counts (N, M) of syllable -> sign."""
    S, T = obs.shape
    N, M = emit.shape
    alpha = np.zeros((T, S, N))
    scale = np.ones((T, S))
    e = emit[:, obs[:, 0]].T                                        # (S, N)
    a = start[None, :] * e
    c = a.sum(1)
    alpha[0] = a / c[:, None]
    scale[0] = c
    for t in range(1, T):
        e = emit[:, obs[:, t]].T
        a = (alpha[t - 1] @ trans) * e
        c = a.sum(1)
        m = mask[:, t]
        c = np.where(m, c, 1.0)
        a = np.where(m[:, None], a / c[:, None], alpha[t - 1])
        alpha[t] = a
        scale[t] = c
    beta = np.ones((S, N))
    counts = np.zeros((N, M))
    for t in range(T - 1, -1, -1):
        g = alpha[t] * beta
        g /= g.sum(1, keepdims=True)
        m = mask[:, t]
        np.add.at(counts.T, obs[m, t], g[m])
        if t > 0:
            e = emit[:, obs[:, t]].T
            nb = ((e * beta) @ trans.T) / scale[t][:, None]
            beta = np.where(m[:, None], nb, beta)
    return float(np.log(scale).sum()), counts


def em(obs, mask, lm: Bigram, M: int, iterations: int, rng, prior: float = 0.01, emit=None,
       anneal: int = 0, freq=None, init: str = "random"):
    """EM on P(sign | syllable). ``anneal`` > 0: the first ``anneal`` iterations read the table raised
    to a power rising from 0.1 to 1 (deterministic annealing). ``init`` "freq": a start that leans
    each syllable to the signs of a similar frequency rank, with random noise."""
    N = len(lm.states)
    if emit is None:
        emit = rng.dirichlet(np.ones(M), size=N)
        if init == "freq":
            ru = np.argsort(np.argsort(-lm.uni)) / N
            rf = np.argsort(np.argsort(-freq)) / M
            lean = np.exp(-np.abs(ru[:, None] - rf[None, :]) / 0.1)
            emit = emit * lean
            emit /= emit.sum(1, keepdims=True)
    ll = -np.inf
    for it in range(iterations):
        table = emit
        if it < anneal:
            beta = 0.1 + 0.9 * it / anneal
            table = emit ** beta
            table /= table.sum(1, keepdims=True)
        ll, counts = forward_backward(obs, mask, lm.start, lm.trans, table)
        emit = (counts + prior) / (counts + prior).sum(1, keepdims=True)
    if anneal >= iterations:
        ll, _ = forward_backward(obs, mask, lm.start, lm.trans, emit)
    return ll, emit


def judged(best, lm: Bigram, signs: list[str], key, sign_freq: np.ndarray) -> dict:
    """How many signs (and what share of the text's signs) ``best`` (each sign's state index) gives
    their key's syllable, onset and vowel."""
    right = onset = vowel = counted = 0
    weighted = 0.0
    for j, s in enumerate(signs):
        if s not in key:
            continue
        counted += 1
        on, vo = lm.states[best[j]]
        right += (on, vo) == key[s]
        onset += on == key[s][0]
        vowel += vo == key[s][1]
        weighted += sign_freq[j] * ((on, vo) == key[s])
    return {"signs_scored": counted, "signs_right": right, "share_right": right / max(counted, 1),
            "onsets_right": onset, "vowels_right": vowel, "token_share_right": weighted / sign_freq.sum()}


def score(emit, lm: Bigram, signs: list[str], sign_freq: np.ndarray, key) -> dict:
    """Each sign's most probable syllable P(syllable | sign) ∝ P(sign | syllable) P(syllable), judged."""
    return judged((emit * lm.uni[:, None]).argmax(0), lm, signs, key, sign_freq)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cipher", action="append", required=True)
    ap.add_argument("--starts", type=int, default=8)
    ap.add_argument("--iterations", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--anneal", type=int, default=0, help="iterations of deterministic annealing first")
    ap.add_argument("--init", choices=("random", "freq"), default="random")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--oracle", action="store_true", help="also start EM from the key's table (an upper bound)")
    args = ap.parse_args(argv)
    for cid in args.cipher:
        folder = BUILD / cid
        lm = Bigram(known_syllables(folder))
        chunks = lost_chunks(folder)
        signs = sorted({c for ch in chunks for c in ch})
        sidx = {s: i for i, s in enumerate(signs)}
        T = max(len(c) for c in chunks)
        obs = np.zeros((len(chunks), T), dtype=np.int64)
        mask = np.zeros((len(chunks), T), dtype=bool)
        for i, ch in enumerate(chunks):
            obs[i, : len(ch)] = [sidx[c] for c in ch]
            mask[i, : len(ch)] = True
        freq = np.bincount(obs[mask], minlength=len(signs)).astype(float)
        key = key_of(folder)
        rng = np.random.default_rng(args.seed)
        rows = []
        oracle_row = {}
        t0 = time.perf_counter()
        if args.oracle:
            sti = {st: i for i, st in enumerate(lm.states)}
            table = np.full((len(lm.states), len(signs)), 1e-3)
            for s, v in key.items():
                if v in sti and s in sidx:
                    table[sti[v], sidx[s]] += 1.0
            table /= table.sum(1, keepdims=True)
            ll0, _ = forward_backward(obs, mask, lm.start, lm.trans, table)
            ll, emit = em(obs, mask, lm, len(signs), args.iterations, rng, emit=table)
            judged = score(emit, lm, signs, freq, key)
            oracle_row = {"oracle_start_ll": ll0, "oracle_em_ll": ll, "oracle_share_right": judged["share_right"]}
            print(json.dumps({"cipher": cid, **oracle_row, **judged}), flush=True)
        for r in range(args.starts):
            ll, emit = em(obs, mask, lm, len(signs), args.iterations, rng, anneal=args.anneal, freq=freq,
                          init=args.init)
            row = {"cipher": cid, "start": r, "log_likelihood": ll, **score(emit, lm, signs, freq, key)}
            rows.append(row)
            print(json.dumps(row), flush=True)
        best = max(rows, key=lambda x: x["log_likelihood"])
        summary = {"cipher": cid, "chosen_start": best["start"], "chosen": {k: best[k] for k in
                   ("share_right", "token_share_right", "onsets_right", "vowels_right", "signs_scored")},
                   "best_share_right": max(x["share_right"] for x in rows), "states": len(lm.states),
                   "log_likelihoods": [round(x["log_likelihood"], 1) for x in rows], **oracle_row,
                   "signs": len(signs), "tokens": int(mask.sum()), "starts": args.starts,
                   "iterations": args.iterations, "seed": args.seed, "anneal": args.anneal, "init": args.init,
                   "wall_s": round(time.perf_counter() - t0, 1)}
        finish_row(summary, "syllable_hmm", argv, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
