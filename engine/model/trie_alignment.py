"""The edit DP of alignment.py, computed once per distinct stem *prefix*, with a hand-written backward.

Row i of the DP for a stem depends only on the stem's first i units, so stems that share a prefix
share their rows: the stems form a trie and row i is computed once per trie node of depth i
(Hebrew: 61 k nodes instead of 200 k stem rows). The forward pass runs without autograd and keeps
only the DP cells; the backward pass walks the rows in reverse, recomputing each cell's local
softmin weights, and scatters gradients into the (known unit x lost letter) cost table.
It gives the same numbers as ``alignment.span_log_probs`` (tests/engine/test_trie_alignment.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import os

import torch

from engine.model.alignment import IMPOSSIBLE, NEG


@dataclass
class StemTrie:
    """Trie nodes by depth: node p at depth i has unit ``units[i][p]`` and parent ``parent[i][p]``."""

    units: list[torch.Tensor]          # index 0 unused (the root); units[i]: (P_i,)
    parent: list[torch.Tensor]         # parent[i]: (P_i,) node index at depth i - 1
    by_len: dict[int, tuple[torch.Tensor, torch.Tensor]]
    """stem length m -> (stem indices, their node at depth m)"""
    n_stems: int

    @property
    def depth(self) -> int:
        return len(self.units) - 1

    @classmethod
    def build(cls, stem_units: torch.Tensor, stem_len: torch.Tensor) -> "StemTrie":
        """The trie of the stems, depth by depth with numpy (a batch's candidate stems are built
        every training step, issue 15): node ids in order of first occurrence, as a plain
        insertion of the stems one by one would number them."""
        import numpy as np

        lens = stem_len.cpu().numpy().astype(np.int64)
        V = len(lens)
        rows = stem_units.cpu().numpy().astype(np.int64).reshape(V, -1) if V else np.zeros((0, 0), np.int64)
        M = int(lens.max()) if V else 0
        base = int(rows.max()) + 1 if rows.size else 1
        node = np.zeros(V, dtype=np.int64)            # each stem's node at the current depth
        units: list[np.ndarray] = [np.zeros(1, dtype=np.int64)]
        parent: list[np.ndarray] = [np.zeros(1, dtype=np.int64)]
        for i in range(1, M + 1):
            alive = np.nonzero(lens >= i)[0]
            key = node[alive] * base + rows[alive, i - 1]
            uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
            rank = np.empty(len(uniq), dtype=np.int64)
            rank[np.argsort(first, kind="stable")] = np.arange(len(uniq))   # first-occurrence order
            ordered = uniq[np.argsort(rank, kind="stable")]
            units.append(ordered % base)
            parent.append(ordered // base)
            node[alive] = rank[inverse.reshape(-1)]
        as_t = lambda x: torch.from_numpy(np.ascontiguousarray(x, dtype=np.int64))  # noqa: E731
        by_len = {}
        for m in sorted(set(lens.tolist()), key=lambda m: int(np.nonzero(lens == m)[0][0])):
            stems = np.nonzero(lens == m)[0]
            by_len[int(m)] = (as_t(stems), as_t(node[stems]))
        return cls([as_t(u) for u in units], [as_t(p) for p in parent], by_len, V)

    def to(self, device) -> "StemTrie":
        return StemTrie([u.to(device) for u in self.units], [p.to(device) for p in self.parent],
                        {m: (a.to(device), b.to(device)) for m, (a, b) in self.by_len.items()}, self.n_stems)


class _Row:
    """Everything cell row i needs, for its W = 2 * band + 1 cells j = i - band + jj at once.

    Which slots exist (0 <= j <= N) and which can take a substitution (j >= 1) or an insertion
    (j >= 2) depends only on i, so it is known in Python: the candidate tensor is filled by
    slices, without masks (and without copying from the host, so a CUDA graph can capture it).
    """

    def __init__(self, i: int, cost, trie: StemTrie, win_cols, band: int, N: int, gamma, table=None,
                 gamma_pair=None):
        W = 2 * band + 1
        self.u, self.par = trie.units[i], trie.parent[i]
        j = torch.arange(i - band, i + band + 1, device=cost.device)            # (W,)
        letter = win_cols.index_select(0, (j - 1).clamp(0, N - 1))              # (W, S) letter x_j
        self.letter = letter
        P, S = self.u.shape[0], win_cols.shape[1]
        if table is None:                        # one cost table (K, C) for every start
            self.sub = cost.index_select(0, self.u)                             # (P, C)
            self.g = self.sub.index_select(1, letter.reshape(-1)).view(P, W, S).transpose(0, 1).contiguous()
            self.dele = self.sub[:, :1]                                         # (P, 1)
            self.flat = None
        else:                                    # T tables (T, K, C): start s reads table[s]
            _, K, C = cost.shape
            row = (table.view(1, S) * K + self.u.view(P, 1)) * C                # (P, S) flat (t, u, 0)
            self.flat = row.unsqueeze(0) + letter.view(W, 1, S)                 # (W, P, S)
            flat_cost = cost.reshape(-1)
            self.g = flat_cost.index_select(0, self.flat.reshape(-1)).view(W, P, S)
            self.row = row
            self.dele = flat_cost.index_select(0, row.reshape(-1)).view(P, S)   # deletion column 0
        self.W = W
        self.first = max(0, band - i)                  # first slot with j >= 0
        self.end = min(W, N - i + band + 1)            # one past the last slot with j <= N
        self.first_sub = max(0, band - i + 1)          # j >= 1
        self.first_ins = max(1, band - i + 2)          # j >= 2 (and a slot to its left)
        # an insertion into an even slot j writes slots j - 1 and j, one sign's two (signs = syllables):
        # it pays gamma_pair (engine.model.alignment.edit_costs)
        if gamma_pair is None:
            self.gamma = gamma
        else:
            even = (j[self.first_ins:] % 2 == 0).view(-1, 1, 1)
            self.gamma = torch.where(even, torch.as_tensor(gamma_pair, dtype=cost.dtype, device=cost.device),
                                     torch.as_tensor(gamma, dtype=cost.dtype, device=cost.device))

    def candidates(self, prev: torch.Tensor) -> torch.Tensor:
        """(3, W, P, S) costs of deletion (from slot jj + 1 of the parent), substitution (jj) and
        pair insertion (jj - 1) into each cell; IMPOSSIBLE where there is no such move."""
        W, g = self.W, self.g
        c = prev.new_full((3, *prev.shape), IMPOSSIBLE)
        torch.add(prev[1:], self.dele, out=c[0, : W - 1])
        a = self.first_sub
        torch.add(prev[a:], g[a:], out=c[1, a:])
        k = self.first_ins
        if k < W:
            ins = c[2, k:]
            torch.add(prev[k - 1: W - 1], g[k - 1: W - 1], out=ins)
            ins += g[k:]
            ins += self.gamma
        c[:, : self.first] = IMPOSSIBLE
        c[:, self.end:] = IMPOSSIBLE
        return c


def _combine(c: torch.Tensor, mode: str) -> torch.Tensor:
    """Combine the three candidates of each cell. A cell without a finite candidate stays at
    (about) IMPOSSIBLE: every mode returns at least the smallest candidate, less log 3."""
    m = c.amin(0)
    if mode == "max":
        return m
    e = torch.exp(m - c)
    z = e.sum(0)
    return m - torch.log(z) if mode == "sum" else (e * c).sum(0) / z


def _local_grads(c: torch.Tensor, value: torch.Tensor, mode: str) -> torch.Tensor:
    """d cell / d candidate cost, (3, W, P, S). An IMPOSSIBLE candidate beside a finite one gets
    weight exp(-1e9) = 0; cells without a finite candidate never receive a gradient."""
    if mode == "max":
        return torch.zeros_like(c).scatter_(0, c.argmin(0, keepdim=True), 1.0)
    w = torch.softmax(-c, dim=0)
    if mode == "softmin":
        w *= (value + 1.0) - c
    return w


KEEP_LOCAL_LIMIT = 64 * 2**20
"""Keep each cell's local gradients from the forward pass (3 values per cell) when the whole DP has
at most this many of them; larger DPs (e.g. every Hebrew stem) recompute them in the backward."""


def _combine_keep(c: torch.Tensor, mode: str) -> tuple[torch.Tensor, torch.Tensor]:
    """_combine, and d cell / d candidate from the same exponentials (saves the backward pass
    recomputing the candidates and their softmax)."""
    if mode == "max":
        m = c.amin(0)
        return m, torch.zeros_like(c).scatter_(0, c.argmin(0, keepdim=True), 1.0)
    m = c.amin(0)
    w = torch.exp(m - c)
    z = w.sum(0)
    w /= z
    if mode == "sum":
        return m - torch.log(z), w
    value = (w * c).sum(0)
    w *= (value + 1.0) - c
    return value, w


def _dp_forward(cost, trie: StemTrie, windows, lengths: tuple[int, ...], gamma, band: int, mode: str,
                keep_local: bool | None = None, table=None, gamma_pair=None):
    """The DP rows (each (W, P_i, S)), the read-out log-probabilities (V, S, len(lengths)) and,
    when kept, each row's local gradients (else None). ``cost`` is one (K, C) table, or T tables
    (T, K, C) with ``table`` (S,) naming each start's. ``gamma_pair``: what an insertion of one
    sign's two slots pays (None: gamma)."""
    N = max(lengths)
    M = min(trie.depth, N + band)
    W = 2 * band + 1
    win_cols = windows[:, :N].t().contiguous()                 # (N, S)
    S = windows.shape[0]
    root = cost.new_full((W, 1, S), IMPOSSIBLE)
    root[band] = 0.0                                           # D(0, 0) = 0
    rows = [root]
    if keep_local is None:
        keep_local = 3 * W * S * sum(len(u) for u in trie.units[1: M + 1]) <= KEEP_LOCAL_LIMIT
    local: list[torch.Tensor] | None = [root] if keep_local else None
    for i in range(1, M + 1):
        row = _Row(i, cost, trie, win_cols, band, N, gamma, table, gamma_pair)
        c = row.candidates(rows[i - 1].index_select(1, row.par))
        if local is None:
            rows.append(_combine(c, mode))
        else:
            value, w = _combine_keep(c, mode)
            rows.append(value)
            local.append(w)
    out = cost.new_full((trie.n_stems, S, len(lengths)), NEG)
    for k, n in enumerate(lengths):
        for m in range(max(1, n - band), min(M, n + band) + 1):
            if m not in trie.by_len:
                continue
            stems, nodes = trie.by_len[m]
            d = rows[m][n - m + band].index_select(0, nodes)
            out[stems, :, k] = torch.where(d < IMPOSSIBLE / 2, -d, NEG)
    return rows, out, local


def _dp_backward(grad_out, cost, trie: StemTrie, windows, rows, lengths: tuple[int, ...], gamma, band: int,
                 mode: str, local: list[torch.Tensor] | None = None, table=None, gamma_pair=None):
    """d loss / d cost from d loss / d out, walking the rows in reverse."""
    M = len(rows) - 1
    N = max(lengths)
    win_cols = windows[:, :N].t().contiguous()
    grad_cost = torch.zeros_like(cost)
    delta = [torch.zeros_like(r) for r in rows]
    for k, n in enumerate(lengths):
        for m in range(max(1, n - band), min(M, n + band) + 1):
            if m not in trie.by_len:
                continue
            stems, nodes = trie.by_len[m]
            live = rows[m][n - m + band].index_select(0, nodes) < IMPOSSIBLE / 2
            delta[m][n - m + band].index_add_(0, nodes, torch.where(live, -grad_out[stems, :, k], 0.0))
    for i in range(M, 0, -1):
        row = _Row(i, cost, trie, win_cols, band, N, gamma, table, gamma_pair)
        if local is not None:
            w = local[i]
        else:
            w = _local_grads(row.candidates(rows[i - 1].index_select(1, row.par)), rows[i], mode)
        dc = delta[i].unsqueeze(0) * w                                         # (3, W, P, S)
        d_del, d_sub, d_ins = dc.unbind(0)
        # to the parent row: deletion came from slot jj + 1, substitution from jj, insertion from jj - 1
        d_prev = d_sub.clone()
        d_prev[1:] += d_del[:-1]
        d_prev[:-1] += d_ins[1:]
        delta[i - 1].index_add_(1, row.par, d_prev)
        # to the costs: x_j of every substitution and insertion, x_{j-1} of every insertion
        d_g = d_sub + d_ins
        d_g[:-1] += d_ins[1:]                                                   # (W, P, S)
        if row.flat is not None:                 # each start's own table
            flat_grad = grad_cost.view(-1)
            flat_grad.index_add_(0, row.flat.reshape(-1), d_g.reshape(-1))
            flat_grad.index_add_(0, row.row.reshape(-1), d_del.sum(dim=0).reshape(-1))
            continue
        P = row.sub.shape[0]
        grad_sub = torch.zeros_like(row.sub)
        grad_sub.index_add_(1, row.letter.reshape(-1), d_g.transpose(0, 1).reshape(P, -1))
        grad_sub[:, 0] += d_del.sum(dim=(0, 2))
        grad_cost.index_add_(0, row.u, grad_sub)
    return grad_cost


class StaticDP:
    """The DP for one (trie, padded start count) with fixed input and output buffers.

    On CUDA the forward and backward passes are captured once as CUDA graphs and replayed: a
    step then costs two graph launches instead of ~1,000 kernel launches from Python (which is
    what bounded the GPU's speed). Start counts are padded up to a multiple of ``PAD`` so a few
    graphs serve every batch; padded starts read letter 0 and receive no gradient. Off CUDA the
    same buffers are used eagerly, which is what the CPU tests exercise.
    """

    PAD = 64

    def __init__(self, trie: StemTrie, K: int, C: int, S_pad: int, N: int, lengths, band: int, mode: str,
                 dtype, device, T: int | None = None):
        self.trie, self.lengths, self.band, self.mode = trie, tuple(lengths), band, mode
        self.cost = torch.zeros((K, C) if T is None else (T, K, C), dtype=dtype, device=device)
        # T tables: each start's table (padded starts read table 0 and receive no gradient)
        self.table = None if T is None else torch.zeros((S_pad,), dtype=torch.long, device=device)
        self.windows = torch.zeros((S_pad, N), dtype=torch.long, device=device)
        self.gamma = torch.zeros((), dtype=dtype, device=device)
        self.gamma_pair = torch.zeros((), dtype=dtype, device=device)
        self.grad_out = torch.zeros((trie.n_stems, S_pad, len(self.lengths)), dtype=dtype, device=device)
        self.graphs = device.type == "cuda"
        if self.graphs:
            self._capture()

    def _forward(self):
        self.rows, self.out, self.local = _dp_forward(self.cost, self.trie, self.windows, self.lengths,
                                                      self.gamma, self.band, self.mode, table=self.table,
                                                      gamma_pair=self.gamma_pair)

    def _backward(self):
        self.grad_cost = _dp_backward(self.grad_out, self.cost, self.trie, self.windows, self.rows, self.lengths,
                                      self.gamma, self.band, self.mode, self.local, table=self.table,
                                      gamma_pair=self.gamma_pair)

    def _capture(self):
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):          # warm-up outside the graph, as CUDA graphs require
            self._forward()
            self._backward()
        torch.cuda.current_stream().wait_stream(stream)
        self.fwd_graph, self.bwd_graph = torch.cuda.CUDAGraph(), torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.fwd_graph):
            self._forward()
        with torch.cuda.graph(self.bwd_graph, pool=self.fwd_graph.pool()):
            self._backward()

    def forward(self, cost, windows, gamma, table=None, gamma_pair=None) -> torch.Tensor:
        S = windows.shape[0]
        self.cost.copy_(cost)
        self.windows.zero_()
        self.windows[:S].copy_(windows[:, : self.windows.shape[1]])
        if self.table is not None:
            self.table.zero_()
            self.table[:S].copy_(table)
        self.gamma.fill_(gamma)
        self.gamma_pair.fill_(gamma if gamma_pair is None else gamma_pair)
        if self.graphs:
            self.fwd_graph.replay()
        else:
            self._forward()
        return self.out[:, :S].clone()

    def backward(self, grad_out) -> torch.Tensor:
        S = grad_out.shape[1]
        self.grad_out.zero_()
        self.grad_out[:, :S].copy_(grad_out)
        if self.graphs:
            self.bwd_graph.replay()
        else:
            self._backward()
        return self.grad_cost.clone()


def static_dp(trie: StemTrie, cost: torch.Tensor, windows: torch.Tensor, lengths, band: int, mode: str) -> StaticDP:
    """The cached StaticDP for this trie and batch shape (kept on the trie)."""
    S_pad = -(-windows.shape[0] // StaticDP.PAD) * StaticDP.PAD
    N = max(lengths)
    key = (S_pad, N, tuple(lengths), band, mode, cost.dtype, str(cost.device), tuple(cost.shape))
    cache = trie.__dict__.setdefault("_static", {})
    if key not in cache:
        cache[key] = StaticDP(trie, cost.shape[-2], cost.shape[-1], S_pad, N, lengths, band, mode, cost.dtype,
                              cost.device, cost.shape[0] if cost.dim() == 3 else None)
    return cache[key]


def use_graphs(device: torch.device) -> bool:
    return device.type == "cuda" and os.environ.get("DECIPHER_CUDA_GRAPHS", "1") != "0"


class _TrieEditDP(torch.autograd.Function):
    @staticmethod
    def forward(ctx, cost, trie: StemTrie, windows, lengths: tuple[int, ...], gamma: float, band: int, mode: str,
                static: bool, table=None, gamma_pair: float | None = None):
        ctx.trie, ctx.lengths, ctx.gamma, ctx.band, ctx.mode = trie, lengths, gamma, band, mode
        ctx.gamma_pair = gamma_pair
        if static:
            ctx.static = static_dp(trie, cost, windows, lengths, band, mode)
            return ctx.static.forward(cost, windows, gamma, table, gamma_pair)
        ctx.static = None
        ctx.rows, out, ctx.local = _dp_forward(cost, trie, windows, lengths, gamma, band, mode,
                                               keep_local=None if ctx.needs_input_grad[0] else False, table=table,
                                               gamma_pair=gamma_pair)
        ctx.table = table
        ctx.save_for_backward(cost, windows)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        if ctx.static is not None:
            grad = ctx.static.backward(grad_out)
        else:
            cost, windows = ctx.saved_tensors
            grad = _dp_backward(grad_out, cost, ctx.trie, windows, ctx.rows, ctx.lengths, ctx.gamma, ctx.band,
                                ctx.mode, ctx.local, table=ctx.table, gamma_pair=ctx.gamma_pair)
        return grad, None, None, None, None, None, None, None, None, None


def trie_span_log_probs(log_p: torch.Tensor, trie: StemTrie, windows: torch.Tensor, lengths, gamma: float,
                        *, band: int = 2, mode: str = "softmin", static: bool | None = None,
                        col_table: torch.Tensor | None = None, gamma_pair: float | None = None) -> torch.Tensor:
    """Same contract as alignment.span_log_probs, with the stems given as a trie.

    ``static`` runs through StaticDP (CUDA graphs on a GPU); by default only on CUDA. ``log_p`` may
    hold T runs' tables, (T, K, C); start s is then scored with table ``col_table[s]`` (a batch of
    runs, engine/training/lockstep.py: one set of kernels for all T).
    """
    if static is None:
        static = use_graphs(log_p.device)
    if log_p.dim() == 3:
        if col_table is None:
            raise ValueError("several cost tables need col_table: which table each start uses")
        table = col_table.to(device=log_p.device, dtype=torch.long)
    else:
        table = None
    return _TrieEditDP.apply(-log_p, trie, windows, tuple(lengths), float(gamma), band, mode, static, table,
                             None if gamma_pair is None else float(gamma_pair))


# ---------------------------------------------------------------------------------------------
# The fused CPU kernels (engine/model/kernels.py): the same DP, one compiled pass per cell.

_MODES = {"softmin": 0, "max": 1, "sum": 2}


def _flat(trie: StemTrie):
    """The trie as flat numpy arrays (global node ids, depth by depth), cached on the trie."""
    cached = trie.__dict__.get("_flat")
    if cached is None:
        import numpy as np

        sizes = [len(u) for u in trie.units]
        depth_start = np.zeros(len(sizes) + 1, dtype=np.int64)
        depth_start[1:] = np.cumsum(sizes)
        unit = np.concatenate([u.cpu().numpy() for u in trie.units]).astype(np.int64)
        parent = np.concatenate([trie.parent[0].cpu().numpy()] + [
            p.cpu().numpy() + depth_start[i - 1] for i, p in enumerate(trie.parent) if i > 0]).astype(np.int64)
        leaf = np.zeros(trie.n_stems, dtype=np.int64)
        length = np.zeros(trie.n_stems, dtype=np.int64)
        for m, (stems, nodes) in trie.by_len.items():
            leaf[stems.cpu().numpy()] = nodes.cpu().numpy() + depth_start[m]
            length[stems.cpu().numpy()] = m
        # the longest stem through each node, carried up one depth at a time from the deepest
        reach = np.zeros(len(unit), dtype=np.int64)
        np.maximum.at(reach, leaf, length)
        for i in range(len(sizes) - 1, 0, -1):
            nodes = slice(depth_start[i], depth_start[i + 1])
            np.maximum.at(reach, parent[nodes], reach[nodes])
        cached = trie.__dict__["_flat"] = (unit, parent, depth_start, leaf, length, reach)
    return cached


FUSED_BLOCK = 128
"""Starts per block of the fused DP: a block's DP table (trie nodes x 5 x block, float64) stays
small enough for the caches; larger blocks (or all K seeds' starts at once) ran up to 2x slower."""


class _FusedEditDP(torch.autograd.Function):
    @staticmethod
    def forward(ctx, cost, trie: StemTrie, windows, col_table, lengths: tuple[int, ...], gamma: float, band: int,
                mode: str, precision: str, gamma_pair: float):
        import numpy as np

        from engine.model import kernels

        unit, parent, depth_start, leaf, length, reach = _flat(trie)
        N = max(lengths)
        M = min(trie.depth, N + band)
        c = cost.detach().cpu().numpy().astype(np.float32 if precision == "single" else np.float64)
        c3 = c if c.ndim == 3 else c[None]
        win_all = windows[:, :N].cpu().numpy().astype(np.int64)
        tables_all = col_table.cpu().numpy().astype(np.int64)
        lens = np.asarray(lengths, dtype=np.int64)
        S = win_all.shape[0]
        out = torch.empty((trie.n_stems, S, len(lengths)), dtype=cost.dtype)
        out_np = out.numpy()
        blocks = []
        for a in range(0, S, FUSED_BLOCK):
            b = min(S, a + FUSED_BLOCK)
            win = np.ascontiguousarray(win_all[a:b].T)
            tables = np.ascontiguousarray(tables_all[a:b])
            G, Dl = kernels.edit_gather(c3, tables, win)
            D = kernels.edit_forward(G, Dl, unit, parent, depth_start, M, band, float(gamma), float(gamma_pair),
                                     _MODES[mode], reach, int(lens.min()))
            kernels.edit_read_out(D, leaf, length, lens, band, M, NEG, out_np[:, a:b])
            blocks.append((a, b, G, Dl, D, win, tables) if ctx.needs_input_grad[0] else None)
        ctx.saved = (blocks, lens, M, c.shape, float(gamma), float(gamma_pair), band, _MODES[mode], trie)
        return out.to(device=cost.device)

    @staticmethod
    def backward(ctx, grad_out):
        import numpy as np

        from engine.model import kernels

        blocks, lens, M, shape, gamma, gamma_pair, band, mode, trie = ctx.saved
        unit, parent, depth_start, leaf, length, reach = _flat(trie)
        g_all = grad_out.detach().cpu().numpy()
        T = shape[0] if len(shape) == 3 else 1
        gc = np.zeros((T, shape[-2], shape[-1]))
        for a, b, G, Dl, D, win, tables in blocks:
            g = g_all[:, a:b]
            delta = kernels.edit_read_out_backward(g, D, leaf, length, lens, band, M)
            gG, gDl = kernels.edit_backward(G, Dl, D, delta, unit, parent, depth_start, M, band, gamma, gamma_pair,
                                            mode, reach, int(lens.min()))
            gc += kernels.edit_scatter(gG, gDl, tables, win, T, shape[-1])
        return (torch.from_numpy(gc.reshape(shape)).to(device=grad_out.device, dtype=grad_out.dtype),
                None, None, None, None, None, None, None, None, None)


def fused_span_log_probs(log_p: torch.Tensor, trie: StemTrie, windows: torch.Tensor, lengths, gamma: float,
                         *, band: int = 2, mode: str = "softmin",
                         col_table: torch.Tensor | None = None, precision: str = "double",
                         gamma_pair: float | None = None) -> torch.Tensor:
    """trie_span_log_probs through the fused CPU kernels (needs numba), computing in ``precision``
    (double: float64; single: float32, setting dp_precision).

    ``log_p`` may hold T models' tables, (T, K, C); start s is then scored with table
    ``col_table[s]`` (all T DPs run as one: what the multi-seed trainer does).
    """
    if log_p.dim() == 2:
        col_table = torch.zeros(windows.shape[0], dtype=torch.long)
    elif col_table is None:
        raise ValueError("several cost tables need col_table: which table each start uses")
    if precision not in ("double", "single"):
        raise ValueError(f"precision must be double or single, got {precision!r}")
    return _FusedEditDP.apply(-log_p, trie, windows, col_table, tuple(lengths), float(gamma), band, mode, precision,
                              float(gamma if gamma_pair is None else gamma_pair))
