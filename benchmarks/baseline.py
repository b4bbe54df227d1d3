"""The straightforward formulation of the authors' code, kept as the speed baseline.

Every candidate span (start x length) is its own column: the edit DP runs a Python loop over the
banded cells, each an autograd operation on a (stems x spans) tensor, with no sharing between
spans that start at the same place nor between stems that share a prefix; every cell is kept and
the answer read out of the stacked table at (stem length, span length). The word-boundary DP is
the loop of torch operations under autograd. Same numbers as the engine (tests/engine/test_bench.py).
"""

from __future__ import annotations

import torch

from engine.model.alignment import NEG, edit_costs


def baseline_span_log_probs(log_p, stem_units, stem_len, windows, lengths, gamma, *, band=2, mode="softmin"):
    """(V, S, len(lengths)) like alignment.span_log_probs, one DP column per (start, length)."""
    S, N = windows.shape
    lengths = list(lengths)
    n_max = max(lengths)
    spans = windows[:, :n_max].repeat_interleave(len(lengths), dim=0)           # (S * nL, n_max)
    span_len = torch.tensor(lengths, device=windows.device).repeat(S)           # (S * nL,)
    cost = -log_p
    sub = cost[stem_units]                                                       # (V, M, C)
    D = edit_costs(sub, sub[:, :, 0], spans, gamma, band=band, mode=mode)
    V, Sp = stem_units.shape[0], spans.shape[0]
    filler = sub.new_full((V, Sp), -NEG)
    table = torch.stack([torch.stack([c if c is not None else filler for c in row]) for row in D])  # (M+1, N+1, V, Sp)
    i = stem_len.clamp(max=table.shape[0] - 1).view(1, 1, V, 1).expand(1, table.shape[1], V, Sp)
    by_i = table.gather(0, i).squeeze(0)                                         # (N+1, V, Sp)
    j = span_len.view(1, 1, Sp).expand(1, V, Sp)
    picked = by_i.gather(0, j).squeeze(0)                                        # (V, Sp)
    ok = ((stem_len.view(V, 1) - span_len.view(1, Sp)).abs() <= band) & (stem_len.view(V, 1) < table.shape[0])
    out = torch.where(ok & (picked < -NEG / 2), -picked, picked.new_tensor(NEG))
    return out.view(V, S, len(lengths))


def baseline_objective(model, prep, batch, step, pins, units, lens, timer=None):
    """The training loss through the baseline formulation (same value as engine.model.objective)."""
    from engine.model.objective import _no_timer, batch_objective
    return batch_objective(model, prep, batch, step, pins, units, lens, timer=timer or _no_timer,
                           dp_impl=baseline_span_log_probs, lattice_compiled=False)
