"""Candidate stems for large vocabularies: after a first phase against every stem, each span
competes with its K best stems only (setting ``candidate_stems``; issue 15).

The paper's P(span | matched) is the mean of P(span | stem) over all |V| stems. With a
dictionary ten times larger a word's true stem weighs ten times less in that mean, and training
more often ends in a worse optimum (docs/benchmarks.md, "Large vocabularies"). With
``candidate_stems = K``, from step ``candidate_start * anneal_steps`` the number of stems each
span averages over narrows geometrically from |V| to K at the end of annealing; they are the
span's best-scoring stems under the current mapping, chosen without gradient and without gold,
and the decoder's log |V| becomes log K. Narrowing from the first step does not work: the
untrained mapping's best stems are chance, and training fixes on them. K = 0 or K >= |V| is
exactly the paper's model. Evaluation always ranks every stem of the vocabulary.
"""

from __future__ import annotations

import math

import torch

from .alignment import NEG
from .prepared import Prepared


def narrowing_step(prep: Prepared) -> int:
    """The first step at which spans compete with fewer than all stems."""
    cfg = prep.config
    return int(math.ceil(cfg.candidate_start * cfg.anneal_steps))


def competition_size(prep: Prepared, step: int | None = None) -> int:
    """How many stems a span's P(span | matched) averages over at ``step``: |V| until the
    narrowing starts, then geometrically fewer until K at the end of anneal_steps (None: the
    final K, what the decoder uses). |V| throughout when K is 0 or K >= |V|."""
    cfg = prep.config
    V, k = prep.n_stems, cfg.candidate_stems
    if k <= 0 or k >= V:
        return V
    if step is None:
        return k
    t0, t1 = narrowing_step(prep), cfg.anneal_steps
    if step < t0:
        return V
    tau = 1.0 if t1 <= t0 else min(1.0, (step - t0) / (t1 - t0))
    return max(k, min(V, int(round(math.exp(math.log(V) + tau * (math.log(k) - math.log(V)))))))


def top_candidates(scores: torch.Tensor, k: int) -> torch.Tensor:
    """(V, S, nslot) bool: for every span (start, slot), its ``k`` best-scoring stems among the
    possible ones (score above NEG / 2). Ties at the k-th score are broken by torch.topk."""
    V = scores.shape[0]
    mask = torch.zeros(scores.shape, dtype=torch.bool, device=scores.device)
    if V == 0 or scores.numel() == 0:
        return mask
    idx = torch.topk(scores, min(k, V), dim=0).indices                        # (k, S, nslot)
    mask.scatter_(0, idx, True)
    return mask & (scores > NEG / 2)
