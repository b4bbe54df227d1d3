"""Setting feature_modifiers: an 8th feature group, the unit's first diacritic, so that units the paper's 7
groups embed alike (k, kʰ; s̺, s̻) can be read apart."""

from __future__ import annotations

import random

import pytest
import torch

from engine.config import Config, parse_value
from engine.corpus import Corpus, GoldAnnotation, Inscription, Stem, Vocabulary
from engine.model.mapping import CharMapping, feature_rows, group_sizes
from engine.model.phonology import DELETE, MODIFIERS, unit_modifier
from engine.model.prepared import prepare
from engine.model.syllable_mapping import make_mapping
from engine.model.syllables import NULL_ONSET
from engine.results import EvalEvent
from engine.training.trainer import Trainer

UNITS = ["a", "i", "u", "k", "kʰ", "t", "tʰ", "n", "s"]
KEY = {u: chr(ord("A") + i) for i, u in enumerate(UNITS)}


def _problem(n: int = 120, seed: int = 3):
    rng = random.Random(seed)
    words: list[tuple[str, ...]] = []
    while len(words) < n:
        w = tuple(rng.choice(UNITS) for _ in range(rng.randint(3, 6)))
        if w not in words:
            words.append(w)
    corpus = Corpus("aspirates", tuple(Inscription(f"w{i}", "".join(KEY[u] for u in w)) for i, w in enumerate(words)))
    vocab = Vocabulary("known", tuple(Stem("".join(w), "".join(w)) for w in words))
    gold = [GoldAnnotation(f"w{i}", 0, len(w), ("".join(w),)) for i, w in enumerate(words)]
    return corpus, vocab, gold


def test_each_unit_gets_its_first_diacritic():
    assert unit_modifier("k") == 0 and unit_modifier(DELETE) == 0
    assert MODIFIERS[unit_modifier("kʰ")] == "ʰ" and MODIFIERS[unit_modifier("kʷ")] == "ʷ"
    assert unit_modifier("s̺") != unit_modifier("s̻") != 0
    # the tie bar joins an affricate's two halves; it is not the affricate's diacritic
    assert MODIFIERS[unit_modifier("t͡s̺")] == "\u033a" and unit_modifier("t͡s") == 0
    assert MODIFIERS[unit_modifier("e̯")] == "\u032f"
    assert "ː" not in MODIFIERS and "\u0361" not in MODIFIERS     # dropped before units are made


def test_the_setting_adds_one_group_and_is_off_by_default():
    assert Config().feature_modifiers is False
    assert parse_value("feature_modifiers", "true") is True
    assert len(group_sizes(Config())) == 7 and len(group_sizes(Config(feature_modifiers=True))) == 8
    assert [len(r) for r in feature_rows(["k", "kʰ"], Config(feature_modifiers=True))] == [8, 8]
    # the paper's 7 indices are kept, the 8th is appended
    assert feature_rows(["kʰ"], Config(feature_modifiers=True))[0][:7] == feature_rows(["kʰ"], Config())[0]


@pytest.mark.parametrize("use_ipa", [True, False])
def test_units_apart_only_by_a_diacritic_get_different_embeddings(use_ipa):
    units = [DELETE, "k", "kʰ", "s̺", "s̻", "a"]
    letters = [DELETE, "A", "B", "C"]
    paper = CharMapping(letters, units, Config(feature_dim=4, seed=0, use_ipa_features=use_ipa))
    ours = CharMapping(letters, units, Config(feature_dim=4, seed=0, use_ipa_features=use_ipa, feature_modifiers=True))
    e7, e8 = paper.known_embeddings(dropout=False), ours.known_embeddings(dropout=False)
    assert e8.shape[1] == 8 * 4 and e7.shape[1] == 7 * 4
    if use_ipa:   # the paper's groups cannot tell k from kʰ, nor s̺ from s̻: identical rows
        assert torch.equal(e7[1], e7[2]) and torch.equal(e7[3], e7[4])
    assert not torch.allclose(e8[1], e8[2]) and not torch.allclose(e8[3], e8[4])


def test_a_syllable_mapping_takes_the_eighth_group_too():
    corpus = Corpus("s", (Inscription("a", "\U00010000\U00010001"),))
    vocab = Vocabulary("k", (Stem("kʰa", "kʰa"), Stem("ka", "ka"), Stem("sa", "sa")))
    prep = prepare(corpus, vocab, Config(signs="syllables", segmented=True, min_span=1, max_span=2,
                                         feature_modifiers=True, feature_dim=4))
    model = make_mapping(prep)
    e = model.known_embeddings(dropout=False)
    rows = {u: i for i, u in enumerate(prep.known_units)}
    assert e.shape[1] == 8 * 4 and NULL_ONSET in rows
    assert not torch.allclose(e[rows["k"]], e[rows["kʰ"]])


@pytest.mark.slow
def test_a_cipher_that_writes_k_and_kh_apart_is_read_only_with_the_eighth_group():
    corpus, vocab, gold = _problem()
    readings = {}
    for on in (False, True):
        cfg = Config(segmented=True, min_span=3, max_span=6, feature_dim=8, steps=200, anneal_steps=120,
                     eval_interval=0, seed=0, feature_modifiers=on)
        tr = Trainer(corpus, vocab, cfg, gold=gold, live_interval=None)
        m = [e for e in tr.run() if isinstance(e, EvalEvent)][-1].mapping
        readings[on] = {u: m.lost[int(m.probs[m.known.index(u)].argmax())] for u in ("k", "kʰ", "t", "tʰ")}
        if not on:   # one embedding: the same distribution over the letters, whatever the text says
            assert torch.equal(torch.as_tensor(m.probs[m.known.index("k")]),
                               torch.as_tensor(m.probs[m.known.index("kʰ")]))
    assert readings[False]["k"] == readings[False]["kʰ"]
    assert readings[True] == {u: KEY[u] for u in ("k", "kʰ", "t", "tʰ")}
