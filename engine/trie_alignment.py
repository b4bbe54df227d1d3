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

import torch

from .alignment import NEG


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
        rows = stem_units.tolist()
        lens = stem_len.tolist()
        M = max(lens) if lens else 0
        nodes: list[dict[tuple, int]] = [{(): 0}] + [{} for _ in range(M)]
        units: list[list[int]] = [[0]] + [[] for _ in range(M)]
        parent: list[list[int]] = [[0]] + [[] for _ in range(M)]
        leaf = []
        for row, m in zip(rows, lens):
            prefix: tuple = ()
            for i in range(1, m + 1):
                parent_id = nodes[i - 1][prefix]
                prefix = prefix + (row[i - 1],)
                if prefix not in nodes[i]:
                    nodes[i][prefix] = len(units[i])
                    units[i].append(row[i - 1])
                    parent[i].append(parent_id)
            leaf.append(nodes[m][prefix])
        by_len: dict[int, tuple[list[int], list[int]]] = {}
        for v, (m, node) in enumerate(zip(lens, leaf)):
            by_len.setdefault(m, ([], []))
            by_len[m][0].append(v)
            by_len[m][1].append(node)
        as_t = lambda x: torch.tensor(x, dtype=torch.long)  # noqa: E731
        return cls([as_t(u) for u in units], [as_t(p) for p in parent],
                   {m: (as_t(a), as_t(b)) for m, (a, b) in by_len.items()}, len(rows))

    def to(self, device) -> "StemTrie":
        return StemTrie([u.to(device) for u in self.units], [p.to(device) for p in self.parent],
                        {m: (a.to(device), b.to(device)) for m, (a, b) in self.by_len.items()}, self.n_stems)


def _cells(i: int, band: int, N: int) -> range:
    return range(max(0, i - band), min(N, i + band) + 1)


def _candidates(i: int, j: int, prev: dict, d_i, g) -> list[tuple[str, torch.Tensor]]:
    """The incoming edit costs of cell (i, j): deletion, substitution, pair insertion."""
    out = []
    if j in prev:
        out.append(("del", prev[j] + d_i))
    if j >= 1 and (j - 1) in prev:
        out.append(("sub", prev[j - 1] + g(j)))
    if j >= 2 and (j - 2) in prev:
        out.append(("ins", prev[j - 2] + g(j - 1) + g(j)))
    return out


def _combine(costs: list[torch.Tensor], mode: str) -> torch.Tensor:
    if len(costs) == 1:
        return costs[0]
    c = torch.stack(costs)
    if mode == "max":
        return c.amin(0)
    m = c.amin(0)
    e = torch.exp(m - c)
    z = e.sum(0)
    if mode == "sum":
        return m - torch.log(z)
    return (e * c).sum(0) / z


def _local_grads(costs: list[torch.Tensor], value: torch.Tensor, mode: str) -> list[torch.Tensor]:
    """d cell / d candidate cost, for each candidate."""
    if len(costs) == 1:
        return [torch.ones_like(value)]
    c = torch.stack(costs)
    if mode == "max":
        arg = c.argmin(0, keepdim=True)
        w = torch.zeros_like(c).scatter_(0, arg, 1.0)
        return list(w.unbind(0))
    w = torch.softmax(c.neg(), dim=0)
    if mode == "sum":
        return list(w.unbind(0))
    return list((w * (1.0 + value - c)).unbind(0))


class _TrieEditDP(torch.autograd.Function):
    @staticmethod
    def forward(ctx, cost, trie: StemTrie, windows, lengths: tuple[int, ...], gamma: float, band: int, mode: str):
        N = max(lengths)
        M = min(trie.depth, N + band)
        win_cols = windows[:, :N].t().contiguous()                 # (N, S)
        S = windows.shape[0]
        rows: list[dict[int, torch.Tensor]] = [{0: cost.new_zeros((1, S))}]
        for i in range(1, M + 1):
            u, par = trie.units[i], trie.parent[i]
            sub_i = cost.index_select(0, u)                          # (P, C)
            d_i = sub_i[:, :1]
            gathered: dict[int, torch.Tensor] = {}

            def g(j, sub_i=sub_i, gathered=gathered):
                if j not in gathered:
                    gathered[j] = sub_i.index_select(1, win_cols[j - 1])
                return gathered[j]

            prev = {j: t.index_select(0, par) for j, t in rows[i - 1].items()}
            row: dict[int, torch.Tensor] = {}
            for j in _cells(i, band, N):
                cands = _candidates(i, j, prev, d_i, g)
                if not cands:
                    continue
                costs = [c + gamma if kind == "ins" else c for kind, c in cands]
                row[j] = _combine(costs, mode)
            rows.append(row)
        out = cost.new_full((trie.n_stems, S, len(lengths)), NEG)
        for k, n in enumerate(lengths):
            for m in range(max(1, n - band), min(M, n + band) + 1):
                if m not in trie.by_len or n not in rows[m]:
                    continue
                stems, nodes = trie.by_len[m]
                out[stems, :, k] = -rows[m][n].index_select(0, nodes)
        ctx.trie, ctx.rows, ctx.lengths, ctx.gamma, ctx.band, ctx.mode = trie, rows, lengths, gamma, band, mode
        ctx.save_for_backward(cost, win_cols)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        cost, win_cols = ctx.saved_tensors
        trie, rows, lengths, gamma, band, mode = ctx.trie, ctx.rows, ctx.lengths, ctx.gamma, ctx.band, ctx.mode
        M = len(rows) - 1
        N = max(lengths)
        grad_cost = torch.zeros_like(cost)
        delta: list[dict[int, torch.Tensor]] = [dict() for _ in range(M + 1)]
        for k, n in enumerate(lengths):
            for m in range(max(1, n - band), min(M, n + band) + 1):
                if m not in trie.by_len or n not in rows[m]:
                    continue
                stems, nodes = trie.by_len[m]
                d = delta[m].setdefault(n, torch.zeros_like(rows[m][n]))
                d.index_add_(0, nodes, -grad_out[stems, :, k])
        for i in range(M, 0, -1):
            if not delta[i]:
                continue
            u, par = trie.units[i], trie.parent[i]
            sub_i = cost.index_select(0, u)
            d_i = sub_i[:, :1]
            gathered: dict[int, torch.Tensor] = {}

            def g(j, sub_i=sub_i, gathered=gathered):
                if j not in gathered:
                    gathered[j] = sub_i.index_select(1, win_cols[j - 1])
                return gathered[j]

            prev = {j: t.index_select(0, par) for j, t in rows[i - 1].items()}
            to_parent: dict[int, torch.Tensor] = {}
            grad_g: dict[int, torch.Tensor] = {}
            grad_del = torch.zeros_like(d_i)

            def acc(store, key, value):
                if key in store:
                    store[key] = store[key] + value
                else:
                    store[key] = value

            for j, dj in delta[i].items():
                cands = _candidates(i, j, prev, d_i, g)
                costs = [c + gamma if kind == "ins" else c for kind, c in cands]
                local = _local_grads(costs, rows[i][j], mode)
                for (kind, _), w in zip(cands, local):
                    dc = dj * w
                    if kind == "del":
                        acc(to_parent, j, dc)
                        grad_del += dc.sum(1, keepdim=True)
                    elif kind == "sub":
                        acc(to_parent, j - 1, dc)
                        acc(grad_g, j, dc)
                    else:
                        acc(to_parent, j - 2, dc)
                        acc(grad_g, j - 1, dc)
                        acc(grad_g, j, dc)
            grad_sub = torch.zeros_like(sub_i)
            grad_sub[:, :1] += grad_del
            for j, gg in grad_g.items():
                grad_sub.index_add_(1, win_cols[j - 1], gg)
            grad_cost.index_add_(0, u, grad_sub)
            for j, dc in to_parent.items():
                tgt = delta[i - 1].setdefault(j, torch.zeros_like(rows[i - 1][j]))
                tgt.index_add_(0, par, dc)
        return grad_cost, None, None, None, None, None, None


def trie_span_log_probs(log_p: torch.Tensor, trie: StemTrie, windows: torch.Tensor, lengths, gamma: float,
                        *, band: int = 2, mode: str = "softmin") -> torch.Tensor:
    """Same contract as alignment.span_log_probs, with the stems given as a trie."""
    return _TrieEditDP.apply(-log_p, trie, windows, tuple(lengths), float(gamma), band, mode)
