"""Compiled CPU kernels (numba) for the word-boundary lattice: inside and outside passes.

Written as torch operations the lattice runs ~100 positions x 7 span lengths of tiny tensors,
and interpreter overhead dominated a training step on the CPU (65 of 115 ms on Gothic–PG). These
kernels run the same recurrences as engine/model/lattice.py in compiled loops, with an analytic
backward, and are checked against the torch version in tests/engine/test_lattice.py. They are
used whenever numba imports, also for CUDA runs (the tensors are tiny; see lattice.py); the torch
version remains the reference.
Set DECIPHER_KERNELS=torch to switch them off. They run serially on purpose: a second thread
pool beside torch's OpenMP threads made steps 10-100x slower whenever the cores were busy.

The edit DP (``edit_*``, below) is compiled too: an earlier scalar version was no faster than
the torch trie DP, because scalar libm exponentials dominated; with its own vectorisable exp and
``error_model="numpy"`` (a checked division blocks vectorisation) the loops vectorise, and a
gothic-pg step runs ~2x faster than with the torch trie DP (docs/benchmarks.md).
"""

from __future__ import annotations

import math
import os

import numpy as np

try:  # numba is a dependency, but keep the engine importable without it
    from numba import njit
    from numba.core.caching import IndexDataCacheFile
    HAVE_NUMBA = os.environ.get("DECIPHER_KERNELS", "numba") != "torch"
except ImportError:  # pragma: no cover - exercised only where numba is missing
    HAVE_NUMBA = False
    IndexDataCacheFile = None

INF = math.inf

#: Whether compiled kernels are cached on disk (numba's ``cache=True``): the first run on a machine
#: compiles them (tens of seconds), every later process loads them. numba keeps the cache beside this
#: file (``__pycache__``) when that folder is writable, else in the user's cache folder, or in
#: NUMBA_CACHE_DIR when set. DECIPHER_NUMBA_CACHE=0 compiles in every process instead (what the
#: first-run benchmark, benchmarks/numba_cache.py, compares against).
CACHE = os.environ.get("DECIPHER_NUMBA_CACHE", "1") != "0"
#: seconds a process waits for another one's cache read or write before it compiles (a load) or
#: leaves its compiled kernel unsaved (a save) instead, and from then on uses the cache no more (a
#: lock left behind on a file system without real locks): a read or write takes milliseconds
CACHE_LOCK_S = 30.0


def cached_njit(**options):
    """``numba.njit(cache=True, **options)``, or without the cache when numba finds no folder it can
    write (a read-only install with no writable home: numba refuses a cached function at definition
    with "no locator available"); the kernels then compile in each process, as without a cache.
    The cache's files are read and written under a lock (``LockedCacheFiles``)."""
    def wrap(function):
        if CACHE:
            try:
                dispatcher = njit(cache=True, **options)(function)
            except RuntimeError:   # numba: cannot cache function …: no locator available for file …
                pass
            else:
                _lock_cache_files(dispatcher)
                return dispatcher
        return njit(**options)(function)
    return wrap


def _lock_cache_files(dispatcher) -> None:
    """Make ``dispatcher``'s on-disk cache read and write its files under a lock. A numba whose
    cache is laid out otherwise keeps its own files (tests/engine/test_numba_cache.py then fails)."""
    files = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    if IndexDataCacheFile is not None and type(files) is IndexDataCacheFile:
        files.__class__ = LockedCacheFiles


if IndexDataCacheFile is not None:
    from filelock import FileLock, Timeout

    class LockedCacheFiles(IndexDataCacheFile):
        """numba's index and data files of one cached function, read and written under one file
        lock per cache folder.

        numba keeps, per function, an index (signature -> data file ``….N.nbc``) and a data file
        per signature (a kernel here has several: float64 and float32 tables, C and non-C arrays).
        A save reads the index, takes the first free N, writes the index, then the data, with no
        lock: two processes saving two signatures of one function at once (two test processes on
        a fresh clone, a sweep's workers on a fresh install) both take N = 1, and the index can end
        up naming one signature's file while the other's code is in it. Every later process then
        runs that code on the other signature's arguments (a float64 kernel over float32 tables):
        wrong numbers, no error (numba issue #4807; tests/engine/test_numba_cache.py reproduces
        it). Under the lock a save is whole before another process reads or saves."""

        timed_out = False   # a lock waited for CACHE_LOCK_S: this process compiles without the cache

        def _locked(self, action):
            """``action()`` under the lock; None when it cannot be taken (then the caller compiles)."""
            if LockedCacheFiles.timed_out:
                return None
            try:
                with FileLock(os.path.join(self._cache_path, "decipher-numba-cache.lock"), timeout=CACHE_LOCK_S):
                    return action()
            except Timeout:
                LockedCacheFiles.timed_out = True
            except OSError:     # a folder it cannot write after all: left unsaved, or compiled here
                pass
            return None

        def save(self, key, data):
            self._locked(lambda: super(LockedCacheFiles, self).save(key, data))

        def load(self, key):
            if not os.path.isdir(self._cache_path):
                return None     # nothing saved yet (numba makes the folder at the first save)
            return self._locked(lambda: super(LockedCacheFiles, self).load(key))


if HAVE_NUMBA:

    @cached_njit(inline="always")
    def _lse2(a, b):
        if a < b:
            a, b = b, a
        if b == -INF:
            return a
        return a + math.log1p(math.exp(b - a))

    @cached_njit()
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

    @cached_njit()
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


# ---------------------------------------------------------------------------------------------
# The edit DP over a stem trie (engine/model/trie_alignment.py), fused: one pass per DP cell instead of
# ~30 tensor passes per DP row, with the span starts innermost so that the loops vectorise. The
# columns may belong to different cost tables (``col_table``): K models' DPs (e.g. K seeds) run as
# one, sharing the trie walk and the loop overhead. They compute in the dtype of the cost table they
# are given (numba compiles one version per dtype): float64, or float32 for setting dp_precision =
# single (twice the lanes per vector; engine/model/trie_alignment.py). Every constant goes through
# ``F``, the dtype's scalar type, so that float32 stays float32 (a bare 0.5 would widen the loop to
# float64); with float64 the code is the one from before, to the bit.

if HAVE_NUMBA:

    IMP = 1e9

    @cached_njit(inline="always", fastmath=True)
    def _exp_le0(x, F):
        """exp(x) for x <= 0 in the scalar type ``F``, vectorisable (no libm call): exp(x / 256) by its
        Taylor series, then squared 8 times; relative error about 1e-13 in float64. Below -60 it returns
        0 (exp(-60) ~ 1e-26 is nothing beside the best candidate's weight 1)."""
        y = max(x, F(-60.0)) * F(0.00390625)
        p = F(1.0) + y * (F(1.0) + y * (F(0.5) + y * (F(1.0 / 6) + y * (F(1.0 / 24) + y * (F(1.0 / 120) + y * (
            F(1.0 / 720) + y * (F(1.0 / 5040) + y * (F(1.0 / 40320) + y * (F(1.0 / 362880) + y * F(1.0 / 3628800))))))))))
        for _ in range(8):
            p = p * p
        return p if x >= F(-60.0) else F(0.0)

    @cached_njit()
    def edit_gather(cost, col_table, win):
        """G[u, j, s] = cost[table(s), u, letter j of start s]; Dl[u, s] = cost[table(s), u, 0]."""
        T, U, C = cost.shape
        N, S = win.shape
        G = np.empty((U, N, S), cost.dtype)
        Dl = np.empty((U, S), cost.dtype)
        for u in range(U):
            for s in range(S):
                Dl[u, s] = cost[col_table[s], u, 0]
            for j in range(N):
                for s in range(S):
                    G[u, j, s] = cost[col_table[s], u, win[j, s]]
        return G, Dl

    @cached_njit(inline="always", fastmath=True, error_model="numpy")
    def _candidates(pd, ps, pi, gj, gjm1, dl, gamma, s):
        return pd[s] + dl[s], ps[s] + gj[s], pi[s] + gjm1[s] + gj[s] + gamma

    @cached_njit(fastmath=True, error_model="numpy")
    def _row_forward(out, pd, ps, pi, gj, gjm1, dl, gamma, mode):
        """One DP row slot for every start. A missing move reads an IMPOSSIBLE parent row, so
        the loop has no branches and vectorises (error_model="numpy": no division check)."""
        S = out.shape[0]
        F = out.dtype.type
        if mode == 0:
            for s in range(S):
                c0, c1, c2 = _candidates(pd, ps, pi, gj, gjm1, dl, gamma, s)
                m = min(c0, min(c1, c2))
                e0 = _exp_le0(m - c0, F)
                e1 = _exp_le0(m - c1, F)
                e2 = _exp_le0(m - c2, F)
                out[s] = (e0 * c0 + e1 * c1 + e2 * c2) / (e0 + e1 + e2)
        elif mode == 1:
            for s in range(S):
                c0, c1, c2 = _candidates(pd, ps, pi, gj, gjm1, dl, gamma, s)
                out[s] = min(c0, min(c1, c2))
        else:
            for s in range(S):
                c0, c1, c2 = _candidates(pd, ps, pi, gj, gjm1, dl, gamma, s)
                m = min(c0, min(c1, c2))
                out[s] = m - math.log(math.exp(m - c0) + math.exp(m - c1) + math.exp(m - c2))

    @cached_njit(fastmath=True, error_model="numpy")
    def _row_weights(w0, w1, w2, value, pd, ps, pi, gj, gjm1, dl, gamma, mode):
        """d cell / d candidate for one row slot (the local softmin / max / sum weights)."""
        S = value.shape[0]
        F = w0.dtype.type
        if mode == 1:
            for s in range(S):
                c0, c1, c2 = _candidates(pd, ps, pi, gj, gjm1, dl, gamma, s)
                m = min(c0, min(c1, c2))
                w0[s] = F(1.0) if c0 == m else F(0.0)
                w1[s] = F(1.0) if (c1 == m and c0 != m) else F(0.0)
                w2[s] = F(1.0) if (c2 == m and c0 != m and c1 != m) else F(0.0)
            return
        for s in range(S):
            c0, c1, c2 = _candidates(pd, ps, pi, gj, gjm1, dl, gamma, s)
            m = min(c0, min(c1, c2))
            e0 = _exp_le0(m - c0, F)
            e1 = _exp_le0(m - c1, F)
            e2 = _exp_le0(m - c2, F)
            r = F(1.0) / (e0 + e1 + e2)
            if mode == 0:
                v = value[s] + F(1.0)
                w0[s] = e0 * r * (v - c0)
                w1[s] = e1 * r * (v - c1)
                w2[s] = e2 * r * (v - c2)
            else:
                w0[s] = e0 * r
                w1[s] = e1 * r
                w2[s] = e2 * r

    @cached_njit(inline="always", fastmath=True)
    def _add_product(dst, d, w):
        for s in range(dst.shape[0]):
            dst[s] += d[s] * w[s]

    @cached_njit(inline="always")
    def _dead(i, j, N, reach_n, lo):
        """Whether cell (i, j) of a node can feed no read-out: outside the window, or too far behind
        every read-out slot (each move adds at most 2 slots per known unit, and the node's longest
        stem has ``reach_n`` units; the shortest read-out slot is ``lo``). A live cell's parents are
        live and a dead cell's children are dead, so a dead cell's value and gradient reach nothing."""
        return j < 0 or j > N or j < lo - 2 * (reach_n - i)

    @cached_njit(fastmath=True, error_model="numpy")
    def edit_forward(G, Dl, node_unit, node_parent, depth_start, M, band, gamma, gamma_pair, mode, reach, lo):
        """D[node, jj, s]: the DP cell (i = depth(node), j = i - band + jj) of every trie node up to
        depth M. mode 0 softmin, 1 max, 2 sum (as engine.model.alignment). An insertion into an even
        slot j (slots j - 1 and j: one sign's two, signs = syllables) pays ``gamma_pair``, any other
        ``gamma`` (engine.model.alignment.edit_costs). ``reach[node]``: the length
        of the longest stem through the node; ``lo``: the shortest read-out slot; cells that cannot
        feed a read-out (``_dead``) are left IMPOSSIBLE, uncomputed."""
        U, N, S = G.shape
        F = G.dtype.type
        gamma = F(gamma)
        gamma_pair = F(gamma_pair)
        W = 2 * band + 1
        n_nodes = depth_start[M + 1]
        D = np.empty((n_nodes, W, S), G.dtype)
        D[0, :, :] = F(IMP)
        D[0, band, :] = F(0.0)
        zero = np.zeros(S, G.dtype)
        imp = np.full(S, F(IMP), G.dtype)
        for i in range(1, M + 1):
            for n in range(depth_start[i], depth_start[i + 1]):
                u = node_unit[n]
                p = node_parent[n]
                for jj in range(W):
                    j = i - band + jj
                    if _dead(i, j, N, reach[n], lo):
                        D[n, jj, :] = F(IMP)
                        continue
                    pd = D[p, jj + 1] if jj + 1 < W else imp
                    ps = D[p, jj] if j >= 1 else imp
                    pi = D[p, jj - 1] if (j >= 2 and jj >= 1) else imp
                    gj = G[u, j - 1] if j >= 1 else zero
                    gjm1 = G[u, j - 2] if j >= 2 else zero
                    _row_forward(D[n, jj], pd, ps, pi, gj, gjm1, Dl[u], gamma_pair if j % 2 == 0 else gamma, mode)
        return D

    @cached_njit(fastmath=True, error_model="numpy")
    def edit_backward(G, Dl, D, delta, node_unit, node_parent, depth_start, M, band, gamma, gamma_pair, mode, reach,
                      lo):
        """Walk the rows in reverse; ``delta`` (d loss / d D, seeded at the read-out cells) is
        consumed. Returns d loss / d G and d loss / d Dl. Dead cells (``_dead``: their delta is 0)
        are skipped."""
        U, N, S = G.shape
        F = G.dtype.type
        gamma = F(gamma)
        gamma_pair = F(gamma_pair)
        W = 2 * band + 1
        gG = np.zeros((U, N, S), G.dtype)
        gDl = np.zeros((U, S), G.dtype)
        zero = np.zeros(S, G.dtype)
        imp = np.full(S, F(IMP), G.dtype)
        w0 = np.empty(S, G.dtype)
        w1 = np.empty(S, G.dtype)
        w2 = np.empty(S, G.dtype)
        for i in range(M, 0, -1):
            for n in range(depth_start[i], depth_start[i + 1]):
                u = node_unit[n]
                p = node_parent[n]
                for jj in range(W):
                    j = i - band + jj
                    if _dead(i, j, N, reach[n], lo):
                        continue
                    has_del = jj + 1 < W
                    has_sub = j >= 1
                    has_ins = j >= 2 and jj >= 1
                    pd = D[p, jj + 1] if has_del else imp
                    ps = D[p, jj] if has_sub else imp
                    pi = D[p, jj - 1] if has_ins else imp
                    gj = G[u, j - 1] if has_sub else zero
                    gjm1 = G[u, j - 2] if j >= 2 else zero
                    _row_weights(w0, w1, w2, D[n, jj], pd, ps, pi, gj, gjm1, Dl[u],
                                 gamma_pair if j % 2 == 0 else gamma, mode)
                    d = delta[n, jj]
                    _add_product(gDl[u], d, w0)
                    if has_del:
                        _add_product(delta[p, jj + 1], d, w0)
                    if has_sub:
                        _add_product(delta[p, jj], d, w1)
                        _add_product(gG[u, j - 1], d, w1)
                    if has_ins:
                        _add_product(delta[p, jj - 1], d, w2)
                        _add_product(gG[u, j - 1], d, w2)
                        _add_product(gG[u, j - 2], d, w2)
        return gG, gDl

    @cached_njit()
    def edit_scatter(gG, gDl, col_table, win, T, C):
        """d loss / d cost (T, U, C) from the gradients of the gathered tables."""
        U, N, S = gG.shape
        out = np.zeros((T, U, C), gG.dtype)
        for u in range(U):
            for s in range(S):
                t = col_table[s]
                out[t, u, 0] += gDl[u, s]
                for j in range(N):
                    out[t, u, win[j, s]] += gG[u, j, s]
        return out

    @cached_njit()
    def edit_read_out(D, stem_leaf, stem_len, lengths, band, M, neg, out):
        """out[v, s, k] = -D(leaf of v, slot n_k - m + band), or ``neg`` where impossible (``out``
        is (V, S, len(lengths)), of the model's dtype: no conversion pass afterwards)."""
        V = stem_leaf.shape[0]
        S = D.shape[2]
        half = D.dtype.type(IMP / 2)
        out[:] = neg
        for v in range(V):
            m = stem_len[v]
            if m < 1 or m > M:
                continue
            for k in range(lengths.shape[0]):
                jj = lengths[k] - m + band
                if jj < 0 or jj > 2 * band:
                    continue
                row = D[stem_leaf[v], jj]
                for s in range(S):
                    d = row[s]
                    out[v, s, k] = -d if d < half else neg
        return out

    @cached_njit()
    def edit_read_out_backward(grad_out, D, stem_leaf, stem_len, lengths, band, M):
        """delta (d loss / d D) seeded from d loss / d out at the read-out cells."""
        V, S, nL = grad_out.shape
        delta = np.zeros(D.shape, D.dtype)
        half = D.dtype.type(IMP / 2)
        for v in range(V):
            m = stem_len[v]
            if m < 1 or m > M:
                continue
            for k in range(nL):
                jj = lengths[k] - m + band
                if jj < 0 or jj > 2 * band:
                    continue
                row = D[stem_leaf[v], jj]
                drow = delta[stem_leaf[v], jj]
                for s in range(S):
                    if row[s] < half:
                        drow[s] -= grad_out[v, s, k]
        return delta


if HAVE_NUMBA:

    @cached_njit(fastmath=True, error_model="numpy")
    def stems_logsumexp(x):
        """logsumexp over axis 0 of (V, R) (R = starts x slots): stems outermost, so every pass
        runs along contiguous rows and vectorises (torch's strided reduction was ~8x slower)."""
        V, R = x.shape
        m = np.full(R, -np.inf)
        for v in range(V):
            row = x[v]
            for r in range(R):
                m[r] = max(m[r], row[r])
        z = np.zeros(R)
        for v in range(V):
            row = x[v]
            for r in range(R):
                z[r] += _exp_le0(row[r] - m[r], np.float64)
        out = np.empty(R)
        for r in range(R):
            out[r] = m[r] + math.log(z[r])
        return out

    @cached_njit(fastmath=True, error_model="numpy")
    def stems_logsumexp_backward(x, lse, g, out):
        """out[v, r] = g[r] * exp(x[v, r] - lse[r]) (the softmax over stems, times the gradient)."""
        V, R = x.shape
        for v in range(V):
            row = x[v]
            o = out[v]
            for r in range(R):
                o[r] = g[r] * _exp_le0(row[r] - lse[r], np.float64)
