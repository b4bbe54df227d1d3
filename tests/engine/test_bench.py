"""The speed baseline computes the same loss and gradients as the engine."""

import pytest
import torch

from benchmarks.baseline import baseline_objective
from engine.config import Config
from engine.model.mapping import CharMapping
from engine.model.objective import batch_objective, pin_pairs
from engine.model.prepared import prepare
from engine.model.scoring import make_batch
from engine.datasets.synthetic import make_cipher


@pytest.mark.parametrize("segmented", [False, True])
def test_baseline_and_engine_agree(segmented):
    c = make_cipher(n_stems=20, n_inscriptions=12, seed=6, dividers=segmented)
    cfg = Config(feature_dim=6, dropout=0.0, segmented=segmented, min_span=3)
    prep = prepare(c.corpus, c.vocabulary, cfg)
    model = CharMapping(prep.lost_letters, prep.known_units, cfg).double()
    batch = make_batch(prep, list(range(6)))
    pins = pin_pairs(prep, [])
    results = []
    for fn in (batch_objective, baseline_objective):
        model.zero_grad()
        r = fn(model, prep, batch, 10, pins, prep.stem_units, prep.stem_len)
        r.loss.backward()
        results.append((r.loss.detach(), model.aligner.grad.clone(), model.feature_emb.grad.clone()))
    for a, b in zip(*results):
        assert torch.allclose(a, b, atol=1e-8)
