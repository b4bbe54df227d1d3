"""One batch's training objective: quality, the coverage hinge, Omega_loss and pinned values.

Scaling follows the authors' code (reference digest §5): quality, coverage and Omega_loss are
divided by the batch's letter count; the pinned-value term is not.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass

import torch

from engine.model.alignment import NEG
from engine.model.candidate_stems import CandidateCache, competition_size, lists_mask, top_candidates, top_lists
from engine.model.lattice import forward_sums
from engine.model.mapping import CharMapping
from engine.model.prepared import Prepared
from engine.model.script import script_of
from engine.model.scoring import SpanBatch, place_emissions, span_given_match, span_scores


@dataclass
class BatchResult:
    loss: torch.Tensor
    parts: dict[str, float]
    coverage_ratio: float
    scores: torch.Tensor          # (V, S, nslot) detached span scores, for live decoding
    lattice_inputs: tuple[torch.Tensor, torch.Tensor] | None = None
    """(emissions, log rewards) fed to the lattice: lets a profiler split the backward pass."""


def pin_pairs(prep: Prepared, pins) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Index tensors (known k, lost l, weight) for the pins that name letters of the corpus."""
    lidx, kidx = prep.lost_index(), prep.known_index()
    ks, ls, ws = [], [], []
    for p in pins:
        if p.lost not in lidx:
            continue
        for unit, col in prep.script.pin_columns(p, lidx[p.lost]):
            if unit in kidx:
                ks.append(kidx[unit])
                ls.append(col)
                ws.append(float(p.weight))
    return (torch.tensor(ks, dtype=torch.long), torch.tensor(ls, dtype=torch.long),
            torch.tensor(ws, dtype=torch.float32))


def lattice_log_o(prep: Prepared) -> float:
    """log(Pr(O) * p0), p0 = 1 / |C^L| with the deletion pseudo-letter counted (as the code does)."""
    return math.log(prep.config.unmatched_prior) - math.log(len(prep.lost_letters))


def log_match_prior(prep: Prepared) -> float:
    """log Pr(E_n): the matched tags share 1 - Pr(O) uniformly."""
    cfg = prep.config
    return math.log(1.0 - cfg.unmatched_prior) - math.log(cfg.max_span - cfg.min_span + 1)


def _sub_batch(batch: SpanBatch, idx: torch.Tensor) -> SpanBatch:
    """The same batch with only the starts ``idx`` (for the DP: windows, lengths, validity)."""
    return SpanBatch(batch.chunk_indices, batch.chunk_len, batch.start_chunk[idx], batch.start_offset[idx],
                     batch.windows[idx], batch.span_len[idx], batch.valid[idx], batch.lattice_lengths)


def _candidate_scores(log_p, prep: Prepared, batch: SpanBatch, gamma: float, stem_units, stem_len, dp_impl,
                      k: int, cache: CandidateCache | None = None):
    """``candidate_stems`` (engine/model/candidate_stems.py): the spans due a refresh (all of them without
    ``cache``) are scored against every stem without gradient and keep their k best; the others
    take the stems of their cached list. Then the DP with gradient runs over the union of the
    batch's candidates, and each span's log P(span | matched) is the mean over its own k (a cached
    list longer than k keeps its k best under the current scores). Returns the detached scores
    (every stem for the refreshed spans, the union for the others, NEG elsewhere) and that (S, nslot)."""
    V = stem_units.shape[0]
    S, nslot = batch.span_len.shape
    starts = [(batch.chunk_indices[b], o) for b, o in zip(batch.start_chunk.tolist(), batch.start_offset.tolist())]
    due = [True] * S if cache is None else [cache.due(key, k) for key in starts]
    due_idx = torch.tensor([s for s in range(S) if due[s]], dtype=torch.long)
    per_span: list[torch.Tensor | None] = [None] * S            # (nslot, L) stem lists, -1 = none
    full = None
    if due_idx.numel():
        sub_batch = batch if due_idx.numel() == S else _sub_batch(batch, due_idx.to(batch.windows.device))
        with torch.no_grad():
            full = span_scores(log_p.detach(), prep, sub_batch, gamma, stem_units, stem_len, impl=dp_impl)
        top = top_lists(full.cpu(), k)                                          # (S_due, nslot, k')
        for j, s in enumerate(due_idx.tolist()):
            per_span[s] = top[j]
            if cache is not None:
                cache.store(starts[s], top[j])
    longer = []                                  # cached lists with more than k stems
    for s in range(S):
        if per_span[s] is None:
            per_span[s] = cache.use(starts[s])
            if per_span[s].shape[-1] > k:
                longer.append(s)
    L = max([k] + [x.shape[-1] for x in per_span])
    lists = torch.full((S, nslot, L), -1, dtype=torch.long)
    for s, x in enumerate(per_span):
        lists[s, :, : x.shape[-1]] = x
    chosen = lists_mask(lists, V).to(stem_units.device)                        # (V, S, nslot)
    union = chosen.flatten(1).any(dim=1).nonzero().squeeze(1)
    sub = span_scores(log_p, prep, batch, gamma, stem_units[union], stem_len[union], impl=dp_impl,
                      cache_tries=False)
    keep = chosen[union]
    if longer:                                   # a list from a wider competition: its k best now
        li = torch.tensor(longer, dtype=torch.long, device=keep.device)
        vals = torch.where(keep[:, li], sub.detach()[:, li], sub.new_tensor(NEG))
        keep[:, li] = top_candidates(vals, k) & keep[:, li]
    sub = torch.where(keep, sub, sub.new_tensor(NEG))
    if full is not None and due_idx.numel() == S:
        scores = full
    else:
        scores = sub.new_full((V, S, nslot), NEG)
        scores[union] = sub.detach()
        if full is not None:
            scores[:, due_idx.to(scores.device)] = full
    return scores, span_given_match(sub, k)


def pin_probs(model, probs: torch.Tensor, dropout: bool) -> torch.Tensor:
    """The table the pins pull on: the mapping's own (P(lost | known)) for letters; a syllable model's
    P(sound | sign), laid out like its DP table (engine/model/syllable_mapping.py)."""
    own = getattr(model, "pin_probs", None)
    return own(probs, dropout) if own is not None else probs


def pin_penalty(probs: torch.Tensor, pins) -> torch.Tensor:
    """sum of weight x -log P(lost | known) over the pinned values ``pins`` (known, lost, weight index
    tensors: pin_pairs), from ``probs`` (K, C)."""
    k, l, w = (t.to(probs.device) for t in pins)
    return (w * -torch.log(probs[k, l] + 1e-8)).sum() if k.numel() else probs.new_zeros(())


def _no_timer(name: str):
    return contextlib.nullcontext()


def dp_log_probs(model: CharMapping, cfg, step: int, dropout: bool = True) -> torch.Tensor:
    """The table a training step's edit DP reads (one dropout sample; ``dropout=False``: the mean
    table, as the objective over the corpus reads it): in the onset phase of a syllable run (setting
    onsets_first) with every vowel slot scored as chance."""
    if script_of(cfg).onset_phase(cfg, step):
        return model.log_probs(dropout=dropout, vowels_free=True)
    return model.log_probs(dropout=dropout)


def batch_objective(model: CharMapping, prep: Prepared, batch: SpanBatch, step: int, pins,
                    stem_units: torch.Tensor, stem_len: torch.Tensor, *, timer=_no_timer,
                    dp_impl: str = "auto", lattice_compiled: bool | None = None,
                    candidates: CandidateCache | None = None) -> BatchResult:
    """The loss of one batch. ``timer(name)`` is a context manager a profiler may pass to time
    the phases; ``dp_impl`` and ``lattice_compiled`` pick implementations (for benchmarks);
    ``candidates``: the run's cached candidate lists (setting candidate_refresh), None = a full
    pass for every span."""
    cfg = prep.config
    gamma = cfg.insertion_cost(step)
    with timer("char_distribution"):
        log_p = dp_log_probs(model, cfg, step)
    k = competition_size(prep, step)
    with timer("edit_dp"):
        if k < prep.n_stems:
            scores, log_e = _candidate_scores(log_p, prep, batch, gamma, stem_units, stem_len, dp_impl, k,
                                                     candidates)
        else:
            scores = span_scores(log_p, prep, batch, gamma, stem_units, stem_len, impl=dp_impl)
            log_e = None
    with timer("word_dp"):
        if log_e is None:
            log_e = span_given_match(scores, prep.n_stems)                      # (S, nslot)
        emit = place_emissions(log_e + log_match_prior(prep), batch)
        # reward r = scale * P(span | E)^(1/|span|)
        log_r = math.log(cfg.reward_scale) + log_e / batch.span_len.to(log_e.dtype)
        reward = place_emissions(log_r, batch)
        sums = forward_sums(emit, reward, batch.chunk_len, batch.lattice_lengths,
                            lattice_log_o(prep), compiled=lattice_compiled)
    n_chars = float(batch.chunk_len.sum())
    quality = sums.quality.sum() / n_chars
    cov_ratio = sums.coverage.sum() / n_chars
    coverage_loss = torch.clamp(cfg.coverage_target(step) - cov_ratio, min=0.0)
    # Omega_loss and the pins use a second dropout sample, as the authors' code does.
    probs = model.log_probs(dropout=True).exp()
    sound = model.sound_loss(probs) / n_chars
    pin_term = pin_penalty(pin_probs(model, probs, True), pins)
    likelihood = -sums.log_px.sum() / n_chars
    loss = (-cfg.quality_weight * quality + cfg.coverage_weight * coverage_loss
            + cfg.sound_loss_weight * sound + cfg.pin_weight * pin_term)
    if cfg.likelihood_weight:
        loss = loss + cfg.likelihood_weight * likelihood
    parts = {
        "total": float(loss.detach()),
        "quality": float(quality.detach()),
        "coverage": float(coverage_loss.detach()),
        "sound_loss": float(sound.detach()),
        "pins": float(pin_term.detach()),
        "log_likelihood": float(-likelihood.detach()),
    }
    return BatchResult(loss, parts, float(cov_ratio.detach()), scores.detach(), (emit, reward))
