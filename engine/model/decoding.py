"""Inference: Viterbi segmentation of each chunk into matched and unmatched spans, and for every
matched span the top-K known stems with their scores (ranked alternatives, not one answer)."""

from __future__ import annotations

import math
from typing import Iterator

import torch

from engine.model.alignment import NEG
from engine.model.candidate_stems import competition_size
from engine.model.lattice import viterbi
from engine.model.objective import lattice_log_o, log_match_prior
from engine.model.prepared import Prepared
from engine.results import Alternative, Match
from engine.model.scoring import SpanBatch, make_batch, place_emissions, span_scores


def eval_batches(prep: Prepared, chunk_indices: list[int], chars_per_batch: int) -> Iterator[list[int]]:
    """Consecutive chunks packed until the padded size would exceed chars_per_batch."""
    batch: list[int] = []
    longest = 0
    for ci in chunk_indices:
        L = len(prep.chunks[ci])
        if batch and max(longest, L) * (len(batch) + 1) > chars_per_batch:
            yield batch
            batch, longest = [], 0
        batch.append(ci)
        longest = max(longest, L)
    if batch:
        yield batch


def normaliser(prep: Prepared, batch: SpanBatch, stem_len: torch.Tensor) -> torch.Tensor:
    """(V, S, nslot) lengths that divide log P(span | stem) for ranking."""
    if prep.config.score_normalisation == "stem":
        return stem_len.view(-1, 1, 1).to(torch.float32).expand(-1, *batch.span_len.shape)
    return batch.span_len.unsqueeze(0).to(torch.float32).expand(stem_len.shape[0], -1, -1)


def start_lookup(batch: SpanBatch) -> dict[tuple[int, int], int]:
    return {(b, o): s for s, (b, o) in enumerate(zip(batch.start_chunk.tolist(), batch.start_offset.tolist()))}


def decode_batch(prep: Prepared, batch: SpanBatch, scores: torch.Tensor, top_k: int) -> list[Match]:
    """Viterbi over the batch's chunks using the best stem of each span, then rank stems per span."""
    scores = scores.detach().float().cpu()
    if batch.n_starts == 0:
        return []
    best = scores.max(dim=0).values                                       # (S, nslot)
    emit = place_emissions(best - math.log(competition_size(prep)) + log_match_prior(prep), batch)
    paths = viterbi(emit, batch.chunk_len, batch.lattice_lengths, lattice_log_o(prep))
    lookup = start_lookup(batch)
    norm = normaliser(prep, batch, prep.stem_len)
    matches: list[Match] = []
    span_len = batch.span_len.tolist()
    for b, spans in enumerate(paths):
        chunk = prep.chunks[batch.chunk_indices[b]]
        for start, end in spans:
            s = lookup[(b, start)]
            k = span_len[s].index(end - start)
            col = scores[:, s, k]
            ranked = col / norm[:, s, k]
            ranked = torch.where(col > NEG / 2, ranked, torch.full_like(ranked, -math.inf))
            kk = min(top_k, int((col > NEG / 2).sum()))
            top = torch.topk(ranked, kk)
            alts = tuple(
                Alternative(rank=r + 1, form=prep.entries[v].form, ipa=prep.entries[v].ipa,
                            score=float(sc), gloss=prep.entries[v].gloss, log_prob=float(col[v]))
                for r, (sc, v) in enumerate(zip(top.values.tolist(), top.indices.tolist())))
            if not alts:
                continue
            conf = math.exp(float(col.max()) / (end - start))
            matches.append(Match(chunk.inscription_id, chunk.offset + start, chunk.offset + end,
                                 "".join(chunk.letters[start:end]), alts, conf))
    return matches


@torch.no_grad()
def score_chunks(model, prep: Prepared, chunk_indices: list[int], step: int, device,
                 chars_per_batch: int) -> Iterator[tuple[SpanBatch, torch.Tensor]]:
    """Eval-mode (no dropout) span scores, batch by batch, on the CPU."""
    log_p = model.log_probs(dropout=False)
    gamma = prep.config.insertion_cost(step)
    units, lens = prep.stem_units.to(device), prep.stem_len.to(device)
    for idx in eval_batches(prep, chunk_indices, chars_per_batch):
        batch = make_batch(prep, idx)
        scores = span_scores(log_p, prep, batch.to(device), gamma, units, lens)
        yield batch, scores.float().cpu()
