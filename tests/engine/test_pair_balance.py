"""Setting pair_balance (vowel_slot = joint): what Omega_loss evens out over the signs, each (onset, vowel)
pair alike (the default) or each onset alike whatever the number of vowels that follow it in the stems."""

from __future__ import annotations

import collections

import pytest
import torch

from engine.config import Config
from engine.corpus import Corpus, Inscription, Stem, Vocabulary
from engine.model.prepared import prepare
from engine.model.syllable_mapping import make_mapping
from engine.training.trainer import Trainer

# the known side: k before four vowels, t before one, n before two; the lost side writes three signs
STEMS = ("ka", "ke", "ki", "ko", "kaka", "keki", "ta", "tata", "na", "ni", "nani")
SIGNS = "\U00010000\U00010001\U00010002"


def _model(balance: str, seed: int = 0):
    cfg = Config(signs="syllables", vowel_slot="joint", min_span=1, max_span=4, band=2, pair_balance=balance)
    corpus = Corpus("c", tuple(Inscription(f"i{j}", SIGNS[j % 3] + SIGNS[(j + 1) % 3]) for j in range(12)))
    vocab = Vocabulary("known", tuple(Stem(s, s) for s in STEMS))
    prep = prepare(corpus, vocab, cfg)
    torch.manual_seed(seed)
    model = make_mapping(prep)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 2.0)
    return prep, model


def test_pairs_weigh_alike_by_default_and_the_loss_is_the_papers():
    prep, model = _model("pairs")
    assert torch.equal(model.pair_weight, torch.ones(len(prep.vowel_pairs)))
    K = len(prep.known_units)
    probs = model.log_probs().detach().exp()
    received = probs[K:, 1::2].sum(dim=0)
    assert float(model.sound_loss(probs)) == pytest.approx(float(((received - 1.0) ** 2).sum()), rel=1e-6)


def test_onsets_give_their_signs_the_same_mass_whatever_their_vowels():
    prep, model = _model("onsets")
    per_onset = collections.defaultdict(float)
    for (c, _), w in zip(prep.vowel_pairs, model.pair_weight.tolist()):
        per_onset[c] += w
    pairs_of = collections.Counter(c for c, _ in prep.vowel_pairs)
    assert pairs_of["k"] == 4 and pairs_of["t"] == 1 and pairs_of["n"] == 2
    # every onset's pairs weigh the same in all, and the total is the number of pairs, as by default
    assert len({round(v, 9) for v in per_onset.values()}) == 1
    assert sum(per_onset.values()) == pytest.approx(len(prep.vowel_pairs))
    # so k's four pairs, all written with one sign, give it no more than t's one pair gives its sign
    K = len(prep.known_units)
    probs = torch.zeros_like(model.log_probs().detach())
    for i, (c, _) in enumerate(prep.vowel_pairs):
        probs[K + i, 1 + 2 * "ktn".index(c) if c in "ktn" else 1] = 1.0
    received = (probs[K:, 1::2] * model.pair_weight.unsqueeze(1)).sum(dim=0)
    k_sign, t_sign = float(received[0]), float(received[1])
    assert k_sign == pytest.approx(t_sign)
    assert float(model.sound_loss(probs)) == pytest.approx(float(((received - 1.0) ** 2).sum()), rel=1e-6)
    _, default = _model("pairs")
    assert float(default.sound_loss(probs)) > float(model.sound_loss(probs))


def test_onsets_train_to_another_mapping():
    """The setting reaches training: the same seed and data, another mapping after a few steps."""
    corpus = Corpus("c", tuple(Inscription(f"i{j}", SIGNS[j % 3] + SIGNS[(j + 1) % 3] + SIGNS[j % 2]) for j in range(30)))
    vocab = Vocabulary("known", tuple(Stem(s, s) for s in STEMS))
    base = dict(signs="syllables", vowel_slot="joint", min_span=1, max_span=4, band=2, steps=6, anneal_steps=4, seed=2)
    a, c = Trainer(corpus, vocab, Config(**base)), Trainer(corpus, vocab, Config(**base, pair_balance="onsets"))
    for t in (a, c):
        for _ in t.run():
            pass
    assert any(not torch.equal(p, q) for p, q in zip(a.model.state_dict().values(), c.model.state_dict().values()))
