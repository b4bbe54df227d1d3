"""Issue 49, item 2: can a syllabary's signs be grouped by their vowel from the text alone?

A spelling with echo vowels (Linear B ko-no-so for Knossos: the vowel of a cluster's first consonant
copies the next syllable's) and a language's vowel harmony make a sign's right neighbours lean to
signs of its own vowel, so signs that share a vowel share right neighbours. Each sign gets the
positive PMI of its right neighbours; the cosine similarities' spectral embedding is cut into k
groups (k-means weighted by the signs' counts, the best of 20 starts). Gold-free: the key is read
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

import numpy as np

from benchmarks.experiments.syllable_objective import BUILD, finish_row, key_of


def vowel_classes(texts: Iterable[str], k: int, seed: int = 0, starts: int = 20) -> dict[str, int]:
    """sign -> group (0..k-1) of every sign of ``texts`` (inscriptions; spaces divide words), from its
    right neighbours inside words."""
    texts = list(texts)
    counts = collections.Counter(c for t in texts for c in t if not c.isspace())
    signs = [s for s, _ in counts.most_common()]
    index = {s: i for i, s in enumerate(signs)}
    m = np.zeros((len(signs), len(signs) + 1))            # the last column: the word's end
    for t in texts:
        for word in t.split():
            for a, b in zip(word, word[1:] + "\0"):
                m[index[a], index.get(b, len(signs))] += 1
    total = m.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log(m * total / np.outer(m.sum(1), m.sum(0)))
    pmi = np.where(np.isfinite(pmi), np.maximum(pmi, 0.0), 0.0)
    x = pmi / (np.linalg.norm(pmi, axis=1, keepdims=True) + 1e-12)
    sim = np.maximum(x @ x.T, 0.0)
    d = sim.sum(1)
    _, vecs = np.linalg.eigh(sim / np.sqrt(np.outer(d, d) + 1e-12))
    e = vecs[:, -k:]
    e /= np.linalg.norm(e, axis=1, keepdims=True) + 1e-12
    w = np.array([counts[s] for s in signs], float)
    rng = np.random.default_rng(seed)
    best: tuple[float, np.ndarray] | None = None
    for _ in range(starts):
        centres = e[rng.choice(len(e), k, replace=False, p=w / w.sum())]
        for _ in range(100):
            labels = np.argmax(e @ centres.T, 1)
            new = np.array([(e[labels == j] * w[labels == j, None]).sum(0) if (labels == j).any() else centres[j]
                            for j in range(k)])
            new /= np.linalg.norm(new, axis=1, keepdims=True) + 1e-12
            if np.allclose(new, centres):
                break
            centres = new
        fit = float((w * (e * centres[labels]).sum(1)).sum())
        if best is None or fit > best[0]:
            best = (fit, labels.copy())
    return {s: int(best[1][i]) for s, i in index.items()}


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
