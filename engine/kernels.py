"""Compiled CPU kernels (numba) for the word-boundary lattice: inside and outside passes.

Written as torch operations the lattice runs ~100 positions x 7 span lengths of tiny tensors,
and interpreter overhead dominated a training step on the CPU (65 of 115 ms on Gothic–PG). These
kernels run the same recurrences as engine/lattice.py in compiled loops, with an analytic
backward, and are checked against the torch version in tests/engine/test_lattice.py. They are
used whenever numba imports, also for CUDA runs (the tensors are tiny; see lattice.py); the torch
version remains the reference.
Set DECIPHER_KERNELS=torch to switch them off. They run serially on purpose: a second thread
pool beside torch's OpenMP threads made steps 10-100x slower whenever the cores were busy.

(The edit DP stays in torch: a compiled version was measured no faster than the vectorised,
prefix-shared torch DP, because its cost is dominated by scalar exponentials.)
"""

from __future__ import annotations

import math
import os

import numpy as np

try:  # numba is a dependency, but keep the engine importable without it
    from numba import njit
    HAVE_NUMBA = os.environ.get("DECIPHER_KERNELS", "numba") != "torch"
except ImportError:  # pragma: no cover - exercised only where numba is missing
    HAVE_NUMBA = False

INF = math.inf


if HAVE_NUMBA:

    @njit(cache=True, inline="always")
    def _lse2(a, b):
        if a < b:
            a, b = b, a
        if b == -INF:
            return a
        return a + math.log1p(math.exp(b - a))

    @njit(cache=True)
    def lattice_forward(emit, logr, lengths, span_lengths, log_o):
        """Inside pass: log alpha, log(alpha * Phi), log(alpha * Psi) for every prefix (B, L + 1)."""
        B, Lp1, nL = emit.shape
        A = np.full((B, Lp1), -INF)
        F = np.full((B, Lp1), -INF)
        G = np.full((B, Lp1), -INF)
        for b in range(B):
            A[b, 0] = 0.0
            for l in range(1, lengths[b] + 1):
                a = A[b, l - 1] + log_o
                f = F[b, l - 1] + log_o
                g = G[b, l - 1] + log_o
                for k in range(nL):
                    n = span_lengths[k]
                    if l - n < 0:
                        continue
                    e = emit[b, l, k]
                    ap = A[b, l - n]
                    a = _lse2(a, ap + e)
                    f = _lse2(f, _lse2(F[b, l - n], ap + logr[b, l, k]) + e)
                    g = _lse2(g, _lse2(G[b, l - n], ap + math.log(n)) + e)
                A[b, l] = a
                F[b, l] = f
                G[b, l] = g
        return A, F, G

    @njit(cache=True)
    def lattice_backward(emit, logr, lengths, span_lengths, log_o, A, F, G, g_logz, g_q, g_c):
        """Outside pass and the gradients of (log P(X), Q, cov) with respect to emit and log r."""
        B, Lp1, nL = emit.shape
        grad_e = np.zeros((B, Lp1, nL))
        grad_r = np.zeros((B, Lp1, nL))
        for b in range(B):
            L = lengths[b]
            Bo = np.full(L + 1, -INF)    # log beta: all suffixes from l
            FB = np.full(L + 1, -INF)    # log(beta * Phi) over suffixes
            GB = np.full(L + 1, -INF)
            Bo[L] = 0.0
            for l in range(L - 1, -1, -1):
                a = Bo[l + 1] + log_o
                f = FB[l + 1] + log_o
                g = GB[l + 1] + log_o
                for k in range(nL):
                    n = span_lengths[k]
                    if l + n > L:
                        continue
                    e = emit[b, l + n, k]
                    bn = Bo[l + n]
                    a = _lse2(a, bn + e)
                    f = _lse2(f, _lse2(FB[l + n], bn + logr[b, l + n, k]) + e)
                    g = _lse2(g, _lse2(GB[l + n], bn + math.log(n)) + e)
                Bo[l] = a
                FB[l] = f
                GB[l] = g
            logz = A[b, L]
            q = math.exp(F[b, L] - logz)
            c = math.exp(G[b, L] - logz)
            for l in range(1, L + 1):
                for k in range(nL):
                    n = span_lengths[k]
                    if l - n < 0:
                        continue
                    e = emit[b, l, k]
                    ap = A[b, l - n]
                    mu = math.exp(ap + e + Bo[l] - logz)
                    if mu == 0.0:
                        continue
                    lr = logr[b, l, k]
                    fe = math.exp(e + _lse2(_lse2(F[b, l - n] + Bo[l], ap + lr + Bo[l]), ap + FB[l]) - logz)
                    ge = math.exp(e + _lse2(_lse2(G[b, l - n] + Bo[l], ap + math.log(n) + Bo[l]), ap + GB[l])
                                  - logz)
                    grad_e[b, l, k] = g_logz[b] * mu + g_q[b] * (fe - q * mu) + g_c[b] * (ge - c * mu)
                    grad_r[b, l, k] = g_q[b] * mu * math.exp(lr)
        return grad_e, grad_r
