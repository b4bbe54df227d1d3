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

Cost (setting ``candidate_refresh``): choosing the K best takes a DP pass over every stem; a span
runs it on every N-th visit only and in between competes among the stems of its last list
(:class:`CandidateCache`, kept in checkpoints).
"""

from __future__ import annotations

import math

import torch

from engine.model.alignment import NEG
from engine.model.prepared import Prepared


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


def top_lists(scores: torch.Tensor, k: int) -> torch.Tensor:
    """(S, nslot, k') long: every span's ``k`` best-scoring stems, best first, -1 where a pair is
    impossible (k' = min(k, V)). The same choice as :func:`top_candidates` (one torch.topk)."""
    V = scores.shape[0]
    if V == 0 or scores.numel() == 0:
        return torch.full((scores.shape[1], scores.shape[2], 0), -1, dtype=torch.long)
    top = torch.topk(scores, min(k, V), dim=0)                                 # (k', S, nslot)
    idx = torch.where(top.values > NEG / 2, top.indices, torch.full_like(top.indices, -1))
    return idx.permute(1, 2, 0).contiguous()


def lists_mask(lists: torch.Tensor, n_stems: int) -> torch.Tensor:
    """(V, S, nslot) bool from (S, nslot, L) stem lists (-1 entries ignored)."""
    S, nslot, L = lists.shape
    mask = torch.zeros((n_stems + 1, S, nslot), dtype=torch.bool)
    if L:
        idx = torch.where(lists < 0, torch.full_like(lists, n_stems), lists).permute(2, 0, 1)   # (L, S, nslot)
        mask.scatter_(0, idx, True)
    return mask[:n_stems]


#: A span's list is kept between refreshes only while the competition is at most this many times K:
#: larger lists would cost memory (and checkpoint size) while the batch's candidates still cover most
#: of the vocabulary, so the gradient DP, not the pass the cache saves, is most of the step.
KEEP_FACTOR = 4


class CandidateCache:
    """Each span's candidate list between refreshes (setting ``candidate_refresh``, issue 15).

    A span (a start in a chunk) that is visited gets its best stems over the whole vocabulary from
    the DP without gradient on every ``refresh``-th visit; on the visits in between it competes among
    the stems of its last list only (the k best of them under the current mapping, k the current
    competition size), so the pass over every stem runs for 1 / ``refresh`` of the visits. A list
    longer than KEEP_FACTOR x K is not kept (the next visit refreshes). refresh = 1 keeps nothing:
    every visit is a full pass, as before the setting. The lists are part of a run's training state
    (checkpoints, restarts): a resumed run uses the lists an uninterrupted one would."""

    def __init__(self, refresh: int, keep: int):
        self.refresh = int(refresh)
        self.keep = int(keep)
        self.entries: dict[tuple[int, int], tuple[int, torch.Tensor]] = {}
        """(chunk index, offset) -> (visits served since its refresh, (nslot, L) long stem list)"""
        self.full_spans = 0          # spans scored against every stem (what the cache saves)
        self.cached_spans = 0        # spans served from their list

    @classmethod
    def for_config(cls, cfg) -> "CandidateCache | None":
        return cls(cfg.candidate_refresh, KEEP_FACTOR * cfg.candidate_stems) if cfg.candidate_stems > 0 else None

    def due(self, key: tuple[int, int], k: int) -> bool:
        """Whether this visit of span ``key`` needs the pass over every stem."""
        entry = self.entries.get(key)
        return entry is None or entry[0] >= self.refresh or entry[1].shape[-1] < k

    def use(self, key: tuple[int, int]) -> torch.Tensor:
        uses, lists = self.entries[key]
        self.entries[key] = (uses + 1, lists)
        self.cached_spans += 1
        return lists

    def store(self, key: tuple[int, int], lists: torch.Tensor) -> None:
        self.full_spans += 1
        if self.refresh > 1 and lists.shape[-1] <= self.keep:
            self.entries[key] = (1, lists.clone())
        else:
            self.entries.pop(key, None)

    # ---- checkpoints ----
    def to_state(self) -> dict:
        keys = sorted(self.entries)
        L = max((self.entries[k][1].shape[-1] for k in keys), default=0)
        nslot = self.entries[keys[0]][1].shape[0] if keys else 0
        lists = torch.full((len(keys), nslot, L), -1, dtype=torch.int32)
        lengths = []
        for i, key in enumerate(keys):
            lst = self.entries[key][1]
            lists[i, :, : lst.shape[-1]] = lst.to(torch.int32)
            lengths.append(lst.shape[-1])
        return {"refresh": self.refresh, "keep": self.keep,
                "keys": torch.tensor(keys, dtype=torch.int64).reshape(-1, 2),
                "uses": torch.tensor([self.entries[k][0] for k in keys], dtype=torch.int64),
                "lengths": torch.tensor(lengths, dtype=torch.int64), "lists": lists,
                "full_spans": int(self.full_spans), "cached_spans": int(self.cached_spans)}

    def load_state(self, state: dict, n_stems: int, n_chunks: int) -> None:
        """Take the lists of a checkpoint (InputError when they do not fit this data)."""
        from engine.errors import InputError

        try:
            keys, uses, lengths, lists = state["keys"], state["uses"], state["lengths"], state["lists"]
            n = keys.shape[0]
            ok = (uses.shape == (n,) and lengths.shape == (n,) and lists.shape[0] == n
                  and (n == 0 or (int(lists.min()) >= -1 and int(lists.max()) < n_stems
                                  and int(keys[:, 0].min()) >= 0 and int(keys[:, 0].max()) < n_chunks)))
        except (KeyError, AttributeError, TypeError, IndexError, RuntimeError):
            ok = False
        if not ok:
            raise InputError("the checkpoint's candidate lists (setting candidate_refresh) do not fit this "
                             "corpus and vocabulary; resume it with the same data")
        self.entries = {(int(c), int(o)): (int(u), lists[i, :, : int(L)].to(torch.long).clone())
                        for i, ((c, o), u, L) in enumerate(zip(keys.tolist(), uses.tolist(), lengths.tolist()))}
        self.full_spans = int(state.get("full_spans", 0))
        self.cached_spans = int(state.get("cached_spans", 0))
