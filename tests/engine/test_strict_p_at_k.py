"""Strict (decode-based) P@K: the gold span must be decoded and its stem ranked in the top K."""

from engine.config import Config
from engine.corpus import Corpus, GoldAnnotation, Inscription, Stem, Vocabulary
from engine.training.evaluation import gold_targets, strict_precision_at_k
from engine.model.prepared import prepare
from engine.results import Alternative, Match


def _alts(*forms_ipa):
    return tuple(Alternative(rank=r, form=f, ipa=i, score=-r) for r, (f, i) in enumerate(forms_ipa, start=1))


def test_strict_p_at_k_counts_only_decoded_gold_spans():
    corpus = Corpus("c", (Inscription("a", "dagsxwulfsxgardsx"), Inscription("b", "saiwalaxx")))
    stems = [Stem("dag", "daɣ"), Stem("wulf", "wulɸ"), Stem("gard", "ɡard"), Stem("saiw", "sai̯w"), Stem("fisk", "fisk")]
    prep = prepare(corpus, Vocabulary("v", tuple(stems)), Config(min_span=3, max_span=10))
    gold = [
        GoldAnnotation("a", 0, 4, ("dag",)),    # decoded at rank 1
        GoldAnnotation("a", 5, 10, ("wulf",)),  # decoded, gold stem at rank 3
        GoldAnnotation("a", 11, 16, ("gard",)),  # decoded, but the span runs past the word end
        GoldAnnotation("b", 0, 7, ("saiw",)),   # not decoded at its start at all
    ]
    matches = [
        Match("a", 0, 3, "dag", _alts(("dag", "daɣ"), ("fisk", "fisk"))),
        Match("a", 5, 9, "wulf", _alts(("fisk", "fisk"), ("dag", "daɣ"), ("wulf", "wulɸ"))),
        Match("a", 11, 17, "gardsx", _alts(("gard", "ɡard"))),
        Match("b", 1, 5, "aiwa", _alts(("saiw", "sai̯w"))),
    ]
    targets = gold_targets(prep, gold)
    out = strict_precision_at_k(matches, gold, targets, prep, ks=(1, 3, 10))
    assert out == {"p_at_1_strict": 1 / 4, "p_at_3_strict": 2 / 4, "p_at_10_strict": 2 / 4}
    assert strict_precision_at_k(matches, [], [], prep) == {}


def test_evaluate_reports_strict_figures_beside_p_at_k():
    from engine.datasets.synthetic import make_cipher
    from engine.training.trainer import Trainer

    cipher = make_cipher(n_stems=20, n_inscriptions=15, seed=3)
    trainer = Trainer(cipher.corpus, cipher.vocabulary, Config(feature_dim=4, steps=0, eval_interval=0),
                      gold=cipher.gold, live_interval=None)
    m = trainer.evaluate().metrics
    assert {"p_at_1_strict", "p_at_10_strict"} <= set(m)
    assert 0.0 <= m["p_at_1_strict"] <= m["p_at_10_strict"] <= 1.0
