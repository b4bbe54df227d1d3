"""Quality guarded on every test run (issue 24, item 6): a short real-data Ugaritic run must clear a
floor that a broken edit DP does not, the Gothic vocabulary funnels on the full data are what the
datasets' documentation says, and the closeness null model separates a true source from an unrelated
vocabulary at test size. Fixed seeds, one torch thread; nothing here reads the clock.

The real-data tests skip, naming the missing file, where ../shared/data is absent; CI has it. The
floor, what the short run reaches and what the broken DP gives are measured by
``python -m benchmarks.quality_floor`` (benchmarks/results/quality-floor.jsonl; docs/testing.md)."""
from __future__ import annotations

import pytest

from benchmarks import quality_floor
from tests.conftest import shared_path


@pytest.mark.corpus
@pytest.mark.slow
def test_ugaritic_short_run_clears_the_floor_and_a_broken_edit_dp_does_not(one_torch_thread):
    trainer = quality_floor.make_trainer(shared_path(*quality_floor.COG))
    assert (trainer.config.steps, trainer.config.seed) == (quality_floor.STEPS, quality_floor.SEED)
    metrics = quality_floor.train(trainer)
    assert quality_floor.below_floor(metrics) == [], metrics
    # the same trained model scored through an edit DP that attaches each stem's score to another
    # stem (an off-by-one in the stem index) falls below the floor on every key
    with quality_floor.broken_dp():
        broken = dict(trainer.evaluate().metrics)
    assert len(quality_floor.below_floor(broken)) == len(quality_floor.FLOOR), broken
    # and the patch is gone afterwards: the model scores as before
    assert trainer.evaluate().metrics["p_at_1"] == metrics["p_at_1"]


#: The funnels of docs/datasets.md for the three known languages at WR 0 % (full PROIEL text and the
#: PG etymology table): what survives each stage of building the vocabulary and the gold.
FUNNELS = {
    "pgm": ({"pg_headwords_with_gothic": 1226, "pg_headwords_linked": 1061, "unlinked_word_not_in_corpus": 163,
             "unlinked_tokens_linked_elsewhere": 2, "with_words_in_table": 1061, "known_words": 1061,
             "derived_from_a_sibling": 0, "words_kept": 1061, "distinct_stems": 942, "transcribed": 942,
             "under_4_units": 277, "over_10_units": 1, "in_range": 664, "used_by_a_token": 664},
            {"tokens_linked": 40245, "with_words_in_table": 40245,
             "with_a_stem_in_range_before_the_sibling_rule": 11130, "gold_rows": 11130}),
    "non": ({"pg_headwords_with_gothic": 1226, "pg_headwords_linked": 1061, "unlinked_word_not_in_corpus": 163,
             "unlinked_tokens_linked_elsewhere": 2, "with_words_in_table": 709, "known_words": 700,
             "derived_from_a_sibling": 4, "words_kept": 696, "distinct_stems": 660, "transcribed": 660,
             "under_4_units": 246, "over_10_units": 1, "in_range": 413, "used_by_a_token": 413},
            {"tokens_linked": 40245, "with_words_in_table": 31036,
             "with_a_stem_in_range_before_the_sibling_rule": 10132, "gold_rows": 8520}),
    "ang": ({"pg_headwords_with_gothic": 1226, "pg_headwords_linked": 1061, "unlinked_word_not_in_corpus": 163,
             "unlinked_tokens_linked_elsewhere": 2, "with_words_in_table": 842, "known_words": 842,
             "derived_from_a_sibling": 6, "words_kept": 836, "distinct_stems": 810, "transcribed": 810,
             "under_4_units": 217, "over_10_units": 1, "in_range": 592, "used_by_a_token": 592},
            {"tokens_linked": 40245, "with_words_in_table": 34294,
             "with_a_stem_in_range_before_the_sibling_rule": 13033, "gold_rows": 13027}),
}


@pytest.mark.corpus
def test_gothic_vocabulary_funnels_on_the_full_data():
    from engine.datasets.gothic import build

    proiel = shared_path("gothic_proiel", "gothic-nt.conll")
    etym = shared_path("germanic_etymology", "entirePGMC_daughters.csv")
    cache: dict = {}
    for known, (vocabulary, tokens) in FUNNELS.items():
        ds = build(known, 0, 0, proiel=proiel, etymology=etym, _cache=cache)
        assert ds.stats["vocabulary_funnel"] == vocabulary, known
        assert ds.stats["token_funnel"] == tokens, known
        assert (len(ds.stems), len(ds.gold)) == (vocabulary["in_range"], tokens["gold_rows"]), known


@pytest.mark.slow
def test_null_calibration_at_test_size(one_torch_thread):
    """The skeleton null at a size that fits the suite (2 seeds, 2 nulls each, 100 steps; the
    DECIPHER_SLOW test in tests/engine/test_closeness_synthetic.py runs 3 x 3 x 200): the true source is
    closer than chance, an unrelated vocabulary with the same syllable shapes is not."""
    from benchmarks.closeness_synthetic import run
    from engine.closeness.comparison import CLOSER, NO_EVIDENCE

    c = run(seeds=(0, 1), n_null=2, steps=100, names=("source", "unrelated"))
    assert len(c.records) == 2 * 2 * (1 + 2)
    verdicts = {s.known: s.verdict for s in c.summaries}
    assert verdicts == {"source": CLOSER, "unrelated": NO_EVIDENCE}
