"""The word-boundary DP against brute-force enumeration of every segmentation."""

import math

import pytest
import torch

from engine.model.alignment import NEG
from engine.model.lattice import forward_sums, viterbi


def segmentations(L, span_lengths):
    """Every tag sequence: a list of pieces, 0 for an unmatched letter or n for a span of n."""
    if L == 0:
        yield []
        return
    for piece in [0, *span_lengths]:
        size = max(piece, 1)
        if size <= L:
            for rest in segmentations(L - size, span_lengths):
                yield [piece, *rest]


def brute(emit, reward, L, span_lengths, log_o):
    total, q, cov, best, best_seg = 0.0, 0.0, 0.0, -math.inf, None
    for seg in segmentations(L, span_lengths):
        pos, logw, r, c, spans = 0, 0.0, 0.0, 0, []
        for piece in seg:
            if piece == 0:
                logw += log_o
                pos += 1
            else:
                pos += piece
                k = span_lengths.index(piece)
                logw += emit[pos][k]
                r += math.exp(reward[pos][k])
                c += piece
                spans.append((pos - piece, pos))
        w = math.exp(logw)
        total += w
        q += w * r
        cov += w * c
        if logw > best:
            best, best_seg = logw, spans
    return math.log(total), q / total, cov / total, best_seg


@pytest.mark.parametrize("L", [1, 4, 7, 9])
def test_forward_sums_and_viterbi_match_enumeration(L):
    g = torch.Generator().manual_seed(L)
    span_lengths = [2, 3, 4]
    Lmax = 9
    emit = torch.randn(2, Lmax + 1, len(span_lengths), generator=g, dtype=torch.float64) - 1.0
    reward = torch.randn(2, Lmax + 1, len(span_lengths), generator=g, dtype=torch.float64)
    emit[1, 3, 1] = NEG            # an impossible span
    lengths = torch.tensor([L, Lmax])
    log_o = math.log(0.5 / 6)
    sums = forward_sums(emit, reward, lengths, span_lengths, log_o)
    paths = viterbi(emit, lengths, span_lengths, log_o)
    for b in range(2):
        e = emit[b].tolist()
        r = reward[b].tolist()
        lp, q, cov, seg = brute(e, r, int(lengths[b]), span_lengths, log_o)
        assert float(sums.log_px[b]) == pytest.approx(lp, abs=1e-9)
        assert float(sums.quality[b]) == pytest.approx(q, rel=1e-9)
        assert float(sums.coverage[b]) == pytest.approx(cov, rel=1e-9)
        assert paths[b] == seg


def test_compiled_lattice_matches_torch_values_and_gradients():
    from engine.model import kernels
    if not kernels.HAVE_NUMBA:
        pytest.skip("numba kernels switched off")
    g = torch.Generator().manual_seed(11)
    span_lengths = [2, 3, 4]
    emit = (torch.randn(3, 10, 3, generator=g, dtype=torch.float64) - 1).requires_grad_(True)
    reward = torch.randn(3, 10, 3, generator=g, dtype=torch.float64).requires_grad_(True)
    with torch.no_grad():
        emit[0, 5:, :] = NEG
    lengths = torch.tensor([4, 9, 7])
    w = torch.randn(3, 3, generator=g, dtype=torch.float64)
    grads = []
    for compiled in (False, True):
        s = forward_sums(emit, reward, lengths, span_lengths, -2.0, compiled=compiled)
        loss = (w[0] * s.log_px).sum() + (w[1] * s.quality).sum() + (w[2] * s.coverage).sum()
        grads.append((loss.detach(), *torch.autograd.grad(loss, [emit, reward])))
    for a, b in zip(*grads):
        assert torch.allclose(a, b, atol=1e-9)
