"""The prefix-shared DP with its hand-written backward gives the plain DP's values and gradients."""

import pytest
import torch

from engine.model.alignment import span_log_probs
from engine.model.trie_alignment import StemTrie, trie_span_log_probs


def problem(seed, V=30, K=7, C=6, S=9, N=7):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(K, C, generator=g, dtype=torch.float64)
    lens = torch.randint(2, 8, (V,), generator=g)
    units = torch.randint(1, K, (V, 8), generator=g)
    units[::3, :3] = units[0, :3]          # shared prefixes
    units[1::4, :2] = units[1, :2]
    for v in range(V):
        units[v, lens[v]:] = 0
    uniq = {}
    for v in range(V):
        uniq[tuple(units[v, : lens[v]].tolist())] = v
    keep = torch.tensor(sorted(uniq.values()))
    windows = torch.randint(1, C, (S, N), generator=g)
    return logits, units[keep], lens[keep], windows


@pytest.mark.parametrize("mode", ["softmin", "max", "sum"])
@pytest.mark.parametrize("seed", [0, 1])
def test_trie_dp_equals_plain_dp_with_gradients(mode, seed):
    logits, units, lens, windows = problem(seed)
    lengths = [3, 4, 5, 6, 7]
    a = logits.clone().requires_grad_(True)
    b = logits.clone().requires_grad_(True)
    plain = span_log_probs(torch.log_softmax(a, 1), units, lens, windows, lengths, 0.8, mode=mode)
    trie = StemTrie.build(units, lens)
    assert sum(len(u) for u in trie.units[1:]) < int(lens.sum())   # prefixes are shared
    fast = trie_span_log_probs(torch.log_softmax(b, 1), trie, windows, lengths, 0.8, mode=mode)
    assert torch.allclose(plain, fast, atol=1e-9)
    w = torch.randn(plain.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(9))
    w = torch.where(plain > -1e8, w, torch.zeros_like(w))
    (plain * w).sum().backward()
    (fast * w).sum().backward()
    assert torch.allclose(a.grad, b.grad, atol=1e-8)


@pytest.mark.parametrize("mode", ["softmin", "max", "sum"])
def test_a_pair_insertion_cost_is_the_same_in_every_dp(mode):
    """gamma_pair (setting coda_insertion): an insertion into an even slot pays it, any other gamma. The
    plain, trie and fused DPs agree on values and gradients, and the values differ from gamma's alone
    (the pairs are charged)."""
    from engine.model import kernels
    from engine.model.trie_alignment import fused_span_log_probs

    logits, units, lens, windows = problem(5)
    lengths = [3, 4, 5, 6, 7]
    trie = StemTrie.build(units, lens)
    grads, outs = [], []
    for f in (lambda lp: span_log_probs(lp, units, lens, windows, lengths, 2.0, mode=mode, gamma_pair=0.1),
              lambda lp: trie_span_log_probs(lp, trie, windows, lengths, 2.0, mode=mode, gamma_pair=0.1),
              lambda lp: trie_span_log_probs(lp, trie, windows, lengths, 2.0, mode=mode, gamma_pair=0.1,
                                             static=True),
              *([lambda lp: fused_span_log_probs(lp, trie, windows, lengths, 2.0, mode=mode, gamma_pair=0.1)]
                if kernels.HAVE_NUMBA else [])):
        x = logits.clone().requires_grad_(True)
        out = f(torch.log_softmax(x, 1))
        w = torch.randn(out.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(9))
        (torch.where(out > -1e8, out, torch.zeros_like(out)) * w).sum().backward()
        outs.append(out)
        grads.append(x.grad)
    for out, grad in zip(outs[1:], grads[1:]):
        assert torch.allclose(outs[0], out, atol=1e-9)
        assert torch.allclose(grads[0], grad, atol=1e-8)
    plain = span_log_probs(torch.log_softmax(logits, 1), units, lens, windows, lengths, 2.0, mode=mode)
    live = plain > -1e8
    assert (outs[0][live] > plain[live] + 1e-6).any()          # cheaper pairs: some spans more probable
    assert torch.allclose(span_log_probs(torch.log_softmax(logits, 1), units, lens, windows, lengths, 2.0, mode=mode,
                                         gamma_pair=2.0), plain)


def test_trie_dp_gradcheck():
    logits, units, lens, windows = problem(3, V=8, S=3, N=5)
    trie = StemTrie.build(units, lens)
    lengths = (3, 4, 5)

    def f(x):
        out = trie_span_log_probs(torch.log_softmax(x, 1), trie, windows, lengths, 0.5)
        return torch.where(out > -1e8, out, torch.zeros_like(out))

    assert torch.autograd.gradcheck(f, (logits.clone().requires_grad_(True),), eps=1e-6, atol=1e-6)



def test_static_buffers_with_padding_give_the_same_values_and_gradients():
    """The StaticDP path (CUDA graphs on a GPU) pads the starts; on the CPU it runs eagerly."""
    logits, units, lens, windows = problem(5, V=25, S=11)
    trie = StemTrie.build(units, lens)
    lengths = [3, 4, 5, 6]
    results = []
    for static in (False, True, True):          # the second static call reuses the cached buffers
        x = logits.clone().requires_grad_(True)
        out = trie_span_log_probs(torch.log_softmax(x, 1), trie, windows, lengths, 0.9, static=static)
        w = torch.where(out > -1e8, torch.ones_like(out), torch.zeros_like(out))
        (out * w * torch.arange(out.shape[1], dtype=out.dtype).view(1, -1, 1)).sum().backward()
        results.append((out.detach(), x.grad))
    for out, grad in results[1:]:
        assert out.shape == results[0][0].shape
        assert torch.allclose(out, results[0][0], atol=1e-12)
        assert torch.allclose(grad, results[0][1], atol=1e-12)
    assert len(trie._static) == 1


@pytest.mark.parametrize("mode", ["softmin", "max", "sum"])
def test_kept_and_recomputed_local_gradients_agree(mode, monkeypatch):
    import engine.model.trie_alignment as ta
    logits, units, lens, windows = problem(7, V=30, S=8)
    trie = StemTrie.build(units, lens)
    grads = []
    for limit in (0, 10**9):            # 0: recompute in the backward pass; large: keep from the forward
        monkeypatch.setattr(ta, "KEEP_LOCAL_LIMIT", limit)
        x = logits.clone().requires_grad_(True)
        out = trie_span_log_probs(torch.log_softmax(x, 1), trie, windows, [3, 4, 5, 6], 0.7, mode=mode)
        (out * (out > -1e8)).sum().backward()
        grads.append((out.detach(), x.grad))
    assert torch.allclose(grads[0][0], grads[1][0], atol=1e-12)
    assert torch.allclose(grads[0][1], grads[1][1], atol=1e-10)


@pytest.mark.parametrize("mode", ["softmin", "max", "sum"])
def test_the_compiled_dp_in_single_precision_is_the_double_one_to_float32_rounding(mode):
    """Setting dp_precision = single: the fused kernels compute in float32 (values and gradients
    within float32's rounding of the double ones); double is the reference DP's to 1e-9."""
    from engine.model import kernels
    from engine.model.trie_alignment import fused_span_log_probs

    if not kernels.HAVE_NUMBA:
        pytest.skip("the compiled kernels need numba")
    logits, units, lens, windows = problem(3)
    lengths = [3, 4, 5, 6, 7]
    trie = StemTrie.build(units, lens)
    out, grads = {}, {}
    for precision in ("double", "single"):
        x = logits.clone().float().requires_grad_(True)
        y = fused_span_log_probs(torch.log_softmax(x, 1), trie, windows, lengths, 0.8, mode=mode, precision=precision)
        w = torch.where(y > -1e8, torch.randn(y.shape, generator=torch.Generator().manual_seed(9)), torch.zeros(()))
        (torch.where(y > -1e8, y, torch.zeros(())) * w).sum().backward()
        out[precision], grads[precision] = y.detach(), x.grad
    ref = trie_span_log_probs(torch.log_softmax(logits.float(), 1), trie, windows, lengths, 0.8, mode=mode)
    assert torch.allclose(out["double"], ref, atol=1e-5)
    assert torch.equal(out["double"] > -1e8, out["single"] > -1e8)       # the same impossible spans
    ok = out["double"] > -1e8
    assert (out["double"][ok] - out["single"][ok]).abs().max() < 1e-4
    assert torch.allclose(grads["double"], grads["single"], atol=1e-4, rtol=1e-4)
    with pytest.raises(ValueError, match="double or single"):
        fused_span_log_probs(torch.log_softmax(logits, 1), trie, windows, lengths, 0.8, precision="half")


def test_single_precision_kernels_keep_float32_throughout():
    import numpy as np

    from engine.model import kernels

    if not kernels.HAVE_NUMBA:
        pytest.skip("the compiled kernels need numba")
    cost = np.random.default_rng(0).uniform(0.1, 3.0, size=(1, 5, 6)).astype(np.float32)
    win = np.array([[1, 2], [3, 4], [5, 1]], dtype=np.int64)           # N = 3 letters, S = 2 starts
    G, Dl = kernels.edit_gather(cost, np.zeros(2, dtype=np.int64), win)
    assert G.dtype == Dl.dtype == np.float32
    unit = np.array([0, 1, 2], dtype=np.int64)                          # a trie of one stem: 1, 2
    parent = np.array([0, 0, 1], dtype=np.int64)
    depth_start = np.array([0, 1, 2, 3], dtype=np.int64)
    reach = np.array([2, 2, 2], dtype=np.int64)                          # its length, at every node
    D = kernels.edit_forward(G, Dl, unit, parent, depth_start, 2, 1, 0.5, 0.5, 0, reach, 0)
    assert D.dtype == np.float32
    gG, gDl = kernels.edit_backward(G, Dl, D, np.ones_like(D), unit, parent, depth_start, 2, 1, 0.5, 0.5, 0, reach,
                                    0)
    assert gG.dtype == gDl.dtype == np.float32


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("lengths", [[5], [6, 7], [3, 4, 5, 6, 7]])
def test_skipping_cells_that_feed_no_read_out_changes_no_bit(mode, lengths):
    """The fused kernels leave uncomputed the cells that cannot reach any read-out (too far behind
    the shortest read-out slot for the longest stem below them). The read-out values and the gradients
    are bitwise those of the DP that computes every cell, and cells are in fact skipped."""
    import numpy as np

    from engine.model import kernels
    from engine.model.trie_alignment import _flat

    if not kernels.HAVE_NUMBA:
        pytest.skip("the compiled kernels need numba")
    logits, units, lens, windows = problem(4, V=40)
    trie = StemTrie.build(units, lens)
    unit, parent, depth_start, leaf, length, reach = _flat(trie)
    cost = (-torch.log_softmax(logits, 1)).numpy()[None]
    lens_np = np.asarray(lengths, dtype=np.int64)
    N, band = max(lengths), 2
    M = min(trie.depth, N + band)
    win = np.ascontiguousarray(windows[:, :N].numpy().astype(np.int64).T)
    G, Dl = kernels.edit_gather(cost, np.zeros(windows.shape[0], dtype=np.int64), win)
    grad = np.random.default_rng(3).normal(size=(trie.n_stems, windows.shape[0], len(lengths)))
    res = {}
    for name, (r, lo) in {"every cell": (np.full_like(reach, 10 ** 6), 0), "pruned": (reach, int(lens_np.min()))}.items():
        D = kernels.edit_forward(G, Dl, unit, parent, depth_start, M, band, 0.8, 0.3, mode, r, lo)
        out = np.empty((trie.n_stems, windows.shape[0], len(lengths)))
        kernels.edit_read_out(D, leaf, length, lens_np, band, M, -1e9, out)
        delta = kernels.edit_read_out_backward(grad, D, leaf, length, lens_np, band, M)
        gG, gDl = kernels.edit_backward(G, Dl, D, delta, unit, parent, depth_start, M, band, 0.8, 0.3, mode, r, lo)
        res[name] = (D, out, gG, gDl)
    (D_all, out_all, gG_all, gDl_all), (D_cut, out_cut, gG_cut, gDl_cut) = res["every cell"], res["pruned"]
    assert np.array_equal(out_all, out_cut)
    assert np.array_equal(gG_all, gG_cut) and np.array_equal(gDl_all, gDl_cut)
    assert (out_all > -1e8).any()
    skipped = (D_cut >= kernels.IMP) & (D_all < kernels.IMP / 2)
    assert skipped.any()


def test_each_trie_nodes_reach_is_the_longest_stem_through_it():
    from engine.model.trie_alignment import _flat

    logits, units, lens, windows = problem(5, V=40)
    trie = StemTrie.build(units, lens)
    unit, parent, depth_start, leaf, length, reach = _flat(trie)
    through = {}
    for v in range(trie.n_stems):            # walk each stem's path from its leaf to the root
        n = int(leaf[v])
        while True:
            through[n] = max(through.get(n, 0), int(length[v]))
            if n == 0:
                break
            n = int(parent[n])
    assert {n: int(reach[n]) for n in range(len(unit))} == through
