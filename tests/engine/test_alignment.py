"""The edit-distance DP against brute-force enumeration of every alignment."""

import itertools
import math

import pytest
import torch

from engine.model.alignment import NEG, span_log_probs


def all_alignments(m: int, n: int, band: int):
    """Every way for m known units to emit n letters (0, 1 or 2 each), staying inside the band."""
    for ops in itertools.product((0, 1, 2), repeat=m):
        if sum(ops) != n:
            continue
        j, ok = 0, True
        for i, o in enumerate(ops, start=1):
            j += o
            if abs(i - j) > band:
                ok = False
                break
        if ok:
            yield ops


def alignment_costs(log_p, stem, span, gamma, band):
    costs = []
    for ops in all_alignments(len(stem), len(span), band):
        c, j = 0.0, 0
        for unit, o in zip(stem, ops):
            if o == 0:
                c -= log_p[unit, 0]
            elif o == 1:
                c -= log_p[unit, span[j]]
            else:
                c += -log_p[unit, span[j]] - log_p[unit, span[j + 1]] + gamma
            j += o
        costs.append(float(c))
    return costs


@pytest.mark.parametrize("mode", ["max", "sum"])
@pytest.mark.parametrize("band", [1, 2])
def test_edit_dp_matches_enumeration(mode, band):
    g = torch.Generator().manual_seed(3)
    K, C = 5, 5
    log_p = torch.log_softmax(torch.randn(K, C, generator=g, dtype=torch.float64) * 2, dim=1)
    stems = [[1, 2], [3, 1, 4], [2, 2, 3, 1], [4, 3, 2, 1, 1]]
    M = max(map(len, stems))
    units = torch.tensor([s + [1] * (M - len(s)) for s in stems])
    lens = torch.tensor([len(s) for s in stems])
    windows = torch.tensor([[1, 2, 3, 4, 2], [4, 4, 1, 3, 2], [2, 3, 1, 1, 4]])
    lengths = [1, 2, 3, 4, 5]
    gamma = 0.7
    got = span_log_probs(log_p, units, lens, windows, lengths, gamma, band=band, mode=mode)
    assert got.shape == (len(stems), len(windows), len(lengths))
    checked = 0
    for v, stem in enumerate(stems):
        for s, win in enumerate(windows.tolist()):
            for k, n in enumerate(lengths):
                costs = alignment_costs(log_p, stem, win[:n], gamma, band)
                if not costs:
                    assert got[v, s, k] <= NEG / 2, (stem, win[:n])
                    continue
                want = -min(costs) if mode == "max" else math.log(sum(math.exp(-c) for c in costs))
                assert float(got[v, s, k]) == pytest.approx(want, abs=1e-9)
                checked += 1
    assert checked > 30


def test_softmin_lies_between_best_alignment_and_all_alignments():
    g = torch.Generator().manual_seed(5)
    log_p = torch.log_softmax(torch.randn(4, 4, generator=g, dtype=torch.float64), dim=1)
    units = torch.tensor([[1, 2, 3], [3, 3, 1]])
    lens = torch.tensor([3, 3])
    windows = torch.tensor([[1, 2, 3, 1], [2, 2, 1, 3]])
    args = (log_p, units, lens, windows, [2, 3, 4], 1.0)
    best = span_log_probs(*args, mode="max")
    soft = span_log_probs(*args, mode="softmin")
    total = span_log_probs(*args, mode="sum")
    ok = best > NEG / 2
    assert bool(ok.any())
    # softmin is an expected cost under a softmin weighting: never cheaper than the best path
    assert torch.all(soft[ok] <= best[ok] + 1e-9)
    assert torch.all(best[ok] <= total[ok] + 1e-9)


def test_pairs_outside_the_band_are_impossible():
    log_p = torch.log_softmax(torch.zeros(3, 3, dtype=torch.float64), dim=1)
    units = torch.tensor([[1, 1, 1, 1, 1, 1, 1]])
    got = span_log_probs(log_p, units, torch.tensor([7]), torch.tensor([[1] * 8]), [4, 5, 8], 0.0, band=2)
    assert got[0, 0, 0] <= NEG / 2          # 7 units cannot make 4 letters within band 2
    assert got[0, 0, 1] > NEG / 2
    assert got[0, 0, 2] > NEG / 2
