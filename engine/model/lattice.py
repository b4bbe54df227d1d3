"""The word-boundary DP over tags O (an unmatched letter) and E_n (a matched span of n letters ends).

For a chunk X of L letters, with emission scores e[l, n] = log Pr(E_n) + log P(x_{l-n:l} | E_n)
for the span of length n ending at l, and o = log(Pr(O) * p0) for an unmatched letter:

    alpha_l = logsumexp( alpha_{l-1} + o,  max/sum_n alpha_{l-n} + e[l, n] )

The sum form gives log P(X); carrying alpha*Phi and alpha*Psi alongside gives the posterior
expectations Q(X) (sum of span rewards) and cov(X) (number of matched letters) in one pass.
The max form (Viterbi) gives the best segmentation. Everything is batched over chunks.
"""

from __future__ import annotations

from dataclasses import dataclass

import math

import numpy as np
import torch

from engine.model import kernels
from engine.model.alignment import NEG


@dataclass
class LatticeSums:
    log_px: torch.Tensor      # (B,)   log P(X)
    quality: torch.Tensor     # (B,)   Q(X) = E[sum of rewards of matched spans]
    coverage: torch.Tensor    # (B,)   cov(X) = E[number of matched letters]


def forward_sums(emit: torch.Tensor, log_reward: torch.Tensor, lengths: torch.Tensor,
                 span_lengths: list[int], log_o: float, *, compiled: bool | None = None) -> LatticeSums:
    """Sum-product pass with the two expectation accumulators.

    With numba this runs compiled inside and outside passes with an analytic backward
    (``compiled=None`` picks that automatically); otherwise a loop of torch operations. On a GPU
    the compiled passes still win: the lattice's tensors are tiny (chunks x 101 x 7), so moving
    them to the CPU and back costs far less than ~10^4 kernel launches.

    emit:       (B, Lmax + 1, nlen) e[l, n] for spans ending at l (NEG where impossible)
    log_reward: (B, Lmax + 1, nlen) log r(span) for the same spans
    lengths:    (B,) chunk lengths (<= Lmax)
    """
    if compiled is None:
        compiled = kernels.HAVE_NUMBA
    if compiled:
        log_px, quality, coverage = _CompiledLattice.apply(emit, log_reward, lengths, tuple(span_lengths),
                                                           float(log_o))
        return LatticeSums(log_px, quality, coverage)
    lengths = lengths.to(emit.device)
    B, Lp1, _ = emit.shape
    Lmax = Lp1 - 1
    log_n = [math.log(n) for n in span_lengths]
    zero = emit.new_zeros(B)
    neg = emit.new_full((B,), NEG)
    alpha = [zero]
    phi = [neg]          # log(alpha * Phi): Phi = sum of rewards so far
    psi = [neg]          # log(alpha * Psi): Psi = matched letters so far
    emit_cols = emit.unbind(1)
    rew_cols = log_reward.unbind(1)
    for l in range(1, Lmax + 1):
        e_l = emit_cols[l].unbind(1)
        r_l = rew_cols[l].unbind(1)
        a_terms = [alpha[l - 1] + log_o]
        f_terms = [phi[l - 1] + log_o]
        s_terms = [psi[l - 1] + log_o]
        for k, n in enumerate(span_lengths):
            if l - n < 0:
                continue
            a_prev, f_prev, s_prev = alpha[l - n], phi[l - n], psi[l - n]
            a_terms.append(a_prev + e_l[k])
            f_terms.append(torch.logaddexp(f_prev, a_prev + r_l[k]) + e_l[k])
            s_terms.append(torch.logaddexp(s_prev, a_prev + log_n[k]) + e_l[k])
        alpha.append(torch.logsumexp(torch.stack(a_terms), dim=0))
        phi.append(torch.logsumexp(torch.stack(f_terms), dim=0))
        psi.append(torch.logsumexp(torch.stack(s_terms), dim=0))
    idx = lengths.view(1, B)
    a_end = torch.stack(alpha).gather(0, idx).squeeze(0)
    f_end = torch.stack(phi).gather(0, idx).squeeze(0)
    s_end = torch.stack(psi).gather(0, idx).squeeze(0)
    return LatticeSums(a_end, torch.exp(f_end - a_end), torch.exp(s_end - a_end))


class _CompiledLattice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, emit, log_reward, lengths, span_lengths, log_o):
        e = np.ascontiguousarray(emit.detach().cpu().numpy().astype(np.float64))
        r = np.ascontiguousarray(log_reward.detach().cpu().numpy().astype(np.float64))
        lens = lengths.cpu().numpy().astype(np.int64)
        sl = np.asarray(span_lengths, dtype=np.int64)
        A, F, G = kernels.lattice_forward(e, r, lens, sl, log_o)
        idx = np.arange(len(lens))
        logz, f, g = A[idx, lens], F[idx, lens], G[idx, lens]
        ctx.saved = (e, r, lens, sl, log_o, A, F, G)
        to = lambda x: torch.from_numpy(x).to(device=emit.device, dtype=emit.dtype)  # noqa: E731
        return to(logz), to(np.exp(f - logz)), to(np.exp(g - logz))

    @staticmethod
    def backward(ctx, g_logz, g_q, g_c):
        e, r, lens, sl, log_o, A, F, G = ctx.saved
        as_np = lambda t: np.ascontiguousarray(t.detach().cpu().numpy().astype(np.float64))  # noqa: E731
        ge, gr = kernels.lattice_backward(e, r, lens, sl, log_o, A, F, G, as_np(g_logz), as_np(g_q), as_np(g_c))
        to = lambda x: torch.from_numpy(x).to(device=g_q.device, dtype=g_q.dtype)  # noqa: E731
        return to(ge), to(gr), None, None, None


def viterbi(emit: torch.Tensor, lengths: torch.Tensor, span_lengths: list[int], log_o: float
            ) -> list[list[tuple[int, int]]]:
    """Max-product pass and back-trace: for each chunk, its matched spans as (start, end) pairs.

    emit: (B, Lmax + 1, nlen) as in forward_sums, but with the best stem's score in place of the
    sum over stems (the paper's inference).
    """
    emit = emit.detach().to("cpu", torch.float64)
    B, Lp1, nlen = emit.shape
    Lmax = Lp1 - 1
    best = torch.full((B, Lp1), NEG, dtype=torch.float64)
    back = torch.zeros((B, Lp1), dtype=torch.long)   # 0 = O, otherwise the span length
    best[:, 0] = 0.0
    for l in range(1, Lmax + 1):
        cand = [best[:, l - 1] + log_o]
        lens = [0]
        for k, n in enumerate(span_lengths):
            if l - n >= 0:
                cand.append(best[:, l - n] + emit[:, l, k])
                lens.append(n)
        c = torch.stack(cand, dim=1)
        v, arg = c.max(dim=1)
        best[:, l] = v
        back[:, l] = torch.tensor(lens)[arg]
    out: list[list[tuple[int, int]]] = []
    back_l = back.tolist()
    for b, L in enumerate(lengths.tolist()):
        spans = []
        l = L
        while l > 0:
            n = back_l[b][l]
            if n == 0:
                l -= 1
            else:
                spans.append((l - n, l))
                l -= n
        out.append(spans[::-1])
    return out
