"""Which signs of a syllabary share a vowel, from the text alone, and whether a reading agrees (issue 49).

A spelling that writes clusters with echo vowels (Linear B ko-no-so for Knossos: the first consonant's
vowel copies the next syllable's) and a language's vowel harmony make the signs that follow a sign lean
to signs of its own vowel, so signs that share a vowel share what follows them. Each sign gets the
positive PMI of the signs that follow it inside a chunk (or the chunk's end); the cosine similarities'
spectral embedding is cut into GROUPS groups (k-means weighted by the signs' counts, the best of 20
seeded starts, so the same text gives the same groups).

The groups are not vowels, and no vowel is named: on the invented syllabaries of issue 49 they put
0.50-0.88 (median 0.65) of the text's signs in a group whose commonest vowel is their own
(benchmarks/experiments/syllable_vowel_classes.py). What they give is evidence against a reading: the
vowels a right reading gives the signs follow the groups (on dev-s-latin-1 the weighted normalised
mutual information was 0.30 where shuffling the vowels among the signs gave 0.12), a wrong one's do not.
:func:`vowel_evidence` measures that against the reading's own vowels shuffled among its signs (a
permutation test), and how stable the groups are (the groups of the text's two halves, compared): a
short text or a word list may give groups that mean nothing, and then nothing is concluded.

Gold-free and fast (one eigendecomposition of a signs x signs matrix and a few hundred permutations).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np

#: the groups the signs are cut into: the commonest size of a vowel system (the text does not say how
#: many vowels its script writes; a fifth group of a four-vowel script only splits one)
GROUPS = 5
#: the permutations of the reading's vowels among its signs that its agreement is compared with
PERMUTATIONS = 200
#: signs with fewer occurrences than this take no part (their neighbours are noise)
MIN_COUNT = 5


def vowel_groups(chunks: Iterable[Sequence[str]], k: int = GROUPS, *, seed: int = 0,
                 starts: int = 20) -> dict[str, int]:
    """sign -> group (0..k-1) of every sign seen MIN_COUNT times or more in ``chunks`` (runs of signs
    between dividers), from the signs that follow it; {} when there are fewer such signs than 2k."""
    chunks = [tuple(c) for c in chunks]
    counts = Counter(s for c in chunks for s in c)
    signs = sorted((s for s, n in counts.items() if n >= MIN_COUNT), key=lambda s: (-counts[s], s))
    if len(signs) < 2 * k:
        return {}
    index = {s: i for i, s in enumerate(signs)}
    # the last column: the chunk's end, and with it the rare signs (seen fewer than MIN_COUNT times)
    m = np.zeros((len(signs), len(signs) + 1))
    for c in chunks:
        for a, b in zip(c, (*c[1:], None)):
            if a in index:
                m[index[a], index.get(b, len(signs)) if b is not None else len(signs)] += 1
    total = m.sum()
    rows, cols = m.sum(1, keepdims=True), m.sum(0, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log(m * total / (rows * cols))
    pmi = np.where(np.isfinite(pmi), np.maximum(pmi, 0.0), 0.0)
    x = pmi / (np.linalg.norm(pmi, axis=1, keepdims=True) + 1e-12)
    sim = np.maximum(x @ x.T, 0.0)
    d = sim.sum(1)
    _, vecs = np.linalg.eigh(sim / np.sqrt(np.outer(d, d) + 1e-12))
    e = vecs[:, -k:]
    e = e / (np.linalg.norm(e, axis=1, keepdims=True) + 1e-12)
    w = np.array([counts[s] for s in signs], float)
    rng = np.random.default_rng(seed)
    best_fit, best = -math.inf, np.zeros(len(signs), dtype=int)
    for _ in range(starts):
        centres = e[rng.choice(len(e), k, replace=False, p=w / w.sum())]
        for _ in range(100):
            labels = np.argmax(e @ centres.T, 1)
            new = np.array([(e[labels == j] * w[labels == j, None]).sum(0) if (labels == j).any() else centres[j]
                            for j in range(k)])
            new = new / (np.linalg.norm(new, axis=1, keepdims=True) + 1e-12)
            if np.allclose(new, centres):
                break
            centres = new
        fit = float((w * (e * centres[labels]).sum(1)).sum())
        if fit > best_fit:
            best_fit, best = fit, labels.copy()
    return {s: int(best[i]) for s, i in index.items()}


def weighted_nmi(a: Sequence, b: Sequence, weights: Sequence[float]) -> float:
    """The normalised mutual information (by the geometric mean of the entropies) of two labellings
    of the same items, each item counted by its weight; 0 when either labelling is constant."""
    w = np.asarray(weights, float)
    if w.sum() <= 0:
        return 0.0
    ia = {x: i for i, x in enumerate(dict.fromkeys(a))}
    ib = {x: i for i, x in enumerate(dict.fromkeys(b))}
    joint = np.zeros((len(ia), len(ib)))
    np.add.at(joint, ([ia[x] for x in a], [ib[x] for x in b]), w)
    return _nmi(joint / joint.sum())


def _nmi(p: np.ndarray) -> float:
    pa, pb = p.sum(1), p.sum(0)
    ha = -sum(x * math.log(x) for x in pa if x > 0)
    hb = -sum(x * math.log(x) for x in pb if x > 0)
    if ha <= 0 or hb <= 0:
        return 0.0
    nz = p > 0
    mi = float((p[nz] * np.log(p[nz] / np.outer(pa, pb)[nz])).sum())
    return mi / math.sqrt(ha * hb)


@dataclass(frozen=True)
class VowelEvidence:
    """What the text's vowel groups say of a reading's vowels."""

    stability: float
    """the groups of the text's two halves (alternate chunks) compared (weighted NMI): near 0, groups
    that mean nothing; the invented syllabaries of issue 49 0.35-0.63, the Linear B word list 0.13"""
    agreement: float
    """the weighted NMI of the groups and the vowels the reading gives the signs"""
    chance: float
    """the mean agreement with the reading's vowels shuffled among its signs"""
    p_value: float
    """the share of those shuffles that agree as well as the reading or better"""
    signs: int
    """the signs compared"""


def vowel_evidence(chunks: Sequence[Sequence[str]], vowels: Mapping[str, str], *, k: int = GROUPS,
                   permutations: int = PERMUTATIONS, seed: int = 0) -> VowelEvidence | None:
    """The evidence of ``chunks`` (the text's runs of signs) on ``vowels`` (each sign's vowel in the
    reading); None when the text has too few frequent signs to group."""
    chunks = [tuple(c) for c in chunks]
    groups = vowel_groups(chunks, k, seed=seed)
    counts = Counter(s for c in chunks for s in c)
    signs = [s for s in groups if s in vowels]
    if len(signs) < 2 * k:
        return None
    halves = vowel_groups(chunks[0::2], k, seed=seed), vowel_groups(chunks[1::2], k, seed=seed)
    both = [s for s in signs if s in halves[0] and s in halves[1]]
    stability = weighted_nmi([halves[0][s] for s in both], [halves[1][s] for s in both],
                             [counts[s] for s in both]) if both else 0.0
    g = [groups[s] for s in signs]
    v = [vowels[s] for s in signs]
    w = [counts[s] for s in signs]
    agreement = weighted_nmi(g, v, w)
    rng = np.random.default_rng(seed)
    shuffled = np.array([weighted_nmi(g, [v[j] for j in rng.permutation(len(v))], w) for _ in range(permutations)])
    return VowelEvidence(stability=float(stability), agreement=float(agreement), chance=float(shuffled.mean()),
                         p_value=float((shuffled >= agreement - 1e-12).mean()), signs=len(signs))
