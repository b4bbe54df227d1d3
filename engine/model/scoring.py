"""From a batch of chunks to span scores and lattice emissions.

A batch lists its candidate span starts; each start has ``nslot`` length slots. Unsegmented
text: every start, every length min_span..max_span that fits. Segmented (whole words): one start
per chunk and a single slot, the whole chunk.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from engine.model.alignment import NEG, span_log_probs
from engine.model.prepared import Prepared
from engine.model import kernels
from engine.model.trie_alignment import StemTrie, fused_span_log_probs, trie_span_log_probs

#: "fused" runs the trie DP as compiled per-cell loops (numba; the default on the CPU); "trie"
#: shares DP rows across stem prefixes as batched torch operations with a hand-written backward
#: (the default on a GPU, and on the CPU without numba); "plain" is the straightforward autograd
#: formulation, kept as the reference both are tested against. "auto" picks.
DP_IMPLEMENTATIONS = ("auto", "fused", "trie", "plain")


def resolve_impl(impl, device) -> str:
    if impl != "auto":
        return impl
    return "fused" if kernels.HAVE_NUMBA and torch.device(device).type == "cpu" else "trie"


@dataclass
class SpanBatch:
    chunk_indices: list[int]          # which chunks of prepared.chunks, in batch order
    chunk_len: torch.Tensor           # (B,)
    start_chunk: torch.Tensor         # (S,) batch row of each start
    start_offset: torch.Tensor        # (S,) position of the start inside its chunk
    windows: torch.Tensor             # (S, max_span) letter ids after each start (0-padded)
    span_len: torch.Tensor            # (S, nslot) length of each slot's span
    valid: torch.Tensor               # (S, nslot) whether that span exists
    lattice_lengths: list[int]        # span lengths the lattice knows, min_span..max_span

    @property
    def n_starts(self) -> int:
        return self.start_chunk.shape[0]

    def to(self, device) -> "SpanBatch":
        # chunk_len stays on the CPU: it sizes tensors, and reading it from a GPU would synchronise
        return SpanBatch(self.chunk_indices, self.chunk_len, self.start_chunk.to(device),
                         self.start_offset.to(device), self.windows.to(device), self.span_len.to(device),
                         self.valid.to(device), self.lattice_lengths)


def make_batch(prep: Prepared, chunk_indices: list[int], min_span: int | None = None) -> SpanBatch:
    """``min_span`` (default: the settings'): spans shorter than it do not exist in this batch (the
    long-spans-first curriculum, Config.span_floor); the lattice keeps its lengths from the settings'
    min_span, the shorter slots marked invalid."""
    cfg = prep.config
    lidx = prep.lost_index()
    N = cfg.max_span
    lat = list(range(cfg.min_span, cfg.max_span + 1))
    floor = max(cfg.min_span, min_span or 0)
    starts, offsets, wins, slen, valid = [], [], [], [], []
    for b, ci in enumerate(chunk_indices):
        ids = [lidx[c] for c in prep.chunks[ci].letters]
        L = len(ids)
        if cfg.segmented:
            if floor <= L <= cfg.max_span:
                starts.append(b)
                offsets.append(0)
                wins.append(ids + [0] * (N - L))
                slen.append([L])
                valid.append([True])
            continue
        for s in range(0, L - floor + 1):
            w = ids[s: s + N]
            starts.append(b)
            offsets.append(s)
            wins.append(w + [0] * (N - len(w)))
            slen.append(lat)
            valid.append([s + n <= L and n >= floor for n in lat])
    nslot = 1 if cfg.segmented else len(lat)
    as_long = lambda x, shape: torch.tensor(x, dtype=torch.long).reshape(shape)  # noqa: E731
    return SpanBatch(
        chunk_indices=list(chunk_indices),
        chunk_len=torch.tensor([len(prep.chunks[ci]) for ci in chunk_indices], dtype=torch.long),
        start_chunk=as_long(starts, (-1,)),
        start_offset=as_long(offsets, (-1,)),
        windows=as_long(wins, (-1, N)),
        span_len=as_long(slen, (-1, nslot)),
        valid=torch.tensor(valid, dtype=torch.bool).reshape(-1, nslot),
        lattice_lengths=lat,
    )


def _trie(prep: Prepared, key, stem_units: torch.Tensor, stem_len: torch.Tensor) -> StemTrie:
    """Build a stem trie once per (subset, device) and keep it on the prepared problem; a key of
    None (a batch's own candidate stems, engine/model/candidate_stems.py) builds it without keeping it."""
    if key is None:
        return StemTrie.build(stem_units.cpu(), stem_len.cpu()).to(stem_units.device)
    cache = prep.__dict__.setdefault("_tries", {})
    full_key = (key, str(stem_units.device))
    if full_key not in cache:
        cache[full_key] = StemTrie.build(stem_units.cpu(), stem_len.cpu()).to(stem_units.device)
    return cache[full_key]


def _dp(log_p, prep, key, units, lens, windows, lengths, gamma, impl, col_table=None):
    cfg = prep.config
    windows, lengths = prep.script.dp_windows(windows, lengths)
    # a sign's two slots written by one unit (a coda with a sign of its own): setting coda_insertion
    pair = {} if (g2 := prep.script.pair_insertion_cost(gamma, cfg)) is None else {"gamma_pair": g2}
    if impl == "fused":
        trie = _trie(prep, key, units, lens)
        return fused_span_log_probs(log_p, trie, windows, lengths, gamma, band=cfg.band, mode=cfg.edit_mode,
                                    col_table=col_table, precision=cfg.dp_precision, **pair)
    if log_p.dim() == 3 and (callable(impl) or impl == "plain"):
        raise ValueError("several models' tables at once need the fused or the trie DP")
    if callable(impl):   # a benchmark's own formulation, with span_log_probs' contract
        return impl(log_p, units, lens, windows, lengths, gamma, band=cfg.band, mode=cfg.edit_mode, **pair)
    if impl == "plain":
        return span_log_probs(log_p, units, lens, windows, lengths, gamma, band=cfg.band, mode=cfg.edit_mode, **pair)
    trie = _trie(prep, key, units, lens)
    # A one-off trie (a batch's candidate stems) is never run twice: capturing CUDA graphs for it
    # costs more than running it, and each capture kept its own memory pool (a full-Ugaritic run
    # with candidate_stems = 1 grew past 30 GB of GPU memory). Graphs serve the kept tries only.
    per_start = {} if col_table is None else {"col_table": col_table}      # T runs' tables (a batch of runs)
    return trie_span_log_probs(log_p, trie, windows, lengths, gamma, band=cfg.band, mode=cfg.edit_mode,
                               static=None if key is not None else False, **per_start, **pair)


def span_scores(log_p: torch.Tensor, prep: Prepared, batch: SpanBatch, gamma: float,
                stem_units: torch.Tensor, stem_len: torch.Tensor, impl: str = "auto",
                col_table: torch.Tensor | None = None, cache_tries: bool = True) -> torch.Tensor:
    """(V, S, nslot) log P(span | stem), NEG where the span or the pair is impossible.

    ``log_p`` may be T models' tables (T, K, C) with ``col_table`` (S,) naming each start's table
    (a batch of runs, engine/training/lockstep.py; the fused and the trie DP). ``cache_tries=False``: the stems are a one-off subset
    (a batch's candidates), whose tries are not kept."""
    cfg = prep.config
    impl = resolve_impl(impl, log_p.device) if isinstance(impl, str) else impl
    S = batch.n_starts
    V = stem_units.shape[0]
    if S == 0:
        return log_p.new_full((V, 0, batch.span_len.shape[1]), NEG)
    if not cfg.segmented:
        out = _dp(log_p, prep, "all" if cache_tries else None, stem_units, stem_len, batch.windows, batch.lattice_lengths, gamma, impl,
                  col_table)
        return torch.where(batch.valid.unsqueeze(0), out, out.new_tensor(NEG))
    # Whole words: group the words by length and score each group only against the stems whose
    # length is within the band; every other pair is impossible anyway.
    out = log_p.new_full((V, S, 1), NEG)
    lengths = batch.span_len[:, 0]
    for L in sorted(set(lengths.tolist())):
        s_idx = (lengths == L).nonzero().squeeze(1)
        v_idx = ((stem_len - prep.script.dp_length(L)).abs() <= cfg.band).nonzero().squeeze(1)
        if v_idx.numel() == 0:
            continue
        res = _dp(log_p, prep, ("len", L) if cache_tries else None, stem_units[v_idx], stem_len[v_idx], batch.windows[s_idx, :L], [L],
                  gamma, impl, None if col_table is None else col_table[s_idx])
        out = out.index_put((v_idx.view(-1, 1), s_idx.view(1, -1), torch.zeros_like(s_idx).view(1, -1)),
                            res[:, :, 0])
    return out


class _StemsLogSumExp(torch.autograd.Function):
    """torch.logsumexp(x, 0) through the compiled kernels (CPU)."""

    @staticmethod
    def forward(ctx, x):
        x2 = x.detach().reshape(x.shape[0], -1).contiguous().numpy()
        lse = kernels.stems_logsumexp(x2)
        ctx.saved = (x2, lse, x.shape)
        return torch.from_numpy(lse.reshape(x.shape[1:])).to(x.dtype)

    @staticmethod
    def backward(ctx, g):
        import numpy as np

        x2, lse, shape = ctx.saved
        out = np.empty(x2.shape, dtype=x2.dtype)
        kernels.stems_logsumexp_backward(x2, lse, g.detach().reshape(-1).contiguous().numpy().astype(np.float64), out)
        return torch.from_numpy(out).reshape(shape)


def span_given_match(scores: torch.Tensor, n_stems: int) -> torch.Tensor:
    """(S, nslot) log P(span | E_n) = logsumexp over stems of log P(span | stem) - log |V|."""
    if kernels.HAVE_NUMBA and scores.device.type == "cpu" and scores.shape[0] > 0 and scores.numel() > 0:
        return _StemsLogSumExp.apply(scores) - math.log(n_stems)
    return torch.logsumexp(scores, dim=0) - math.log(n_stems)


def place_emissions(values: torch.Tensor, batch: SpanBatch, fill: float = NEG) -> torch.Tensor:
    """Scatter per-(start, slot) values into the lattice layout (B, Lmax + 1, n_lattice_lengths)."""
    B = batch.chunk_len.shape[0]
    Lmax = int(batch.chunk_len.max()) if B else 0
    nlat = len(batch.lattice_lengths)
    lo = batch.lattice_lengths[0]
    end = batch.start_offset.unsqueeze(1) + batch.span_len                    # (S, nslot)
    ok = batch.valid & (end <= Lmax)
    flat = (batch.start_chunk.unsqueeze(1) * (Lmax + 1) + end.clamp(max=Lmax)) * nlat + (batch.span_len - lo)
    dump = B * (Lmax + 1) * nlat
    flat = torch.where(ok, flat, torch.full_like(flat, dump))
    base = values.new_full((dump + 1,), fill)
    placed = base.scatter(0, flat.reshape(-1), torch.where(ok, values, values.new_tensor(fill)).reshape(-1))
    return placed[:dump].view(B, Lmax + 1, nlat)
