"""The controlled closeness experiment with real (test-sized) training: a synthetic lost text
against its source vocabulary, an unrelated vocabulary, a heavy-sound-change relative, and their
nulls (benchmarks/closeness_synthetic.py; numbers in docs/closeness.md)."""

from __future__ import annotations

import os

import pytest

from benchmarks.closeness_synthetic import run, setting
from engine.comparison import CLOSER, NO_EVIDENCE
from engine.phonology import ipa_units

#: The comparisons of 24 trainings run only when asked for (a few minutes on one core).
slow = pytest.mark.skipif(not os.environ.get("DECIPHER_SLOW"), reason="a long comparison: set DECIPHER_SLOW=1")


def test_the_relative_is_a_sound_changed_copy_and_the_stranger_is_not():
    cipher, cands = setting()
    source, relative, unrelated = cands["source"], cands["relative"], cands["unrelated"]
    assert {s.gloss for s in relative.stems} <= {s.form for s in source.stems}  # each traces to a source stem
    changed = sum(s.ipa != s.gloss for s in relative.stems)
    assert changed >= 0.9 * len(relative.stems)  # heavy: almost every word changed
    assert not {s.ipa for s in unrelated.stems} & {s.ipa for s in source.stems}
    assert {len(ipa_units(s.ipa)) for s in unrelated.stems} <= {4, 5, 6}


def test_the_true_source_beats_an_unrelated_vocabulary_and_its_nulls():
    c = run(seeds=(0, 1), n_null=1, steps=100, names=("source", "unrelated"))
    best, other = c.summaries
    assert best.known == "source" and other.known == "unrelated"
    assert best.verdict == CLOSER
    # beyond the spread over seeds, and above every null run
    assert best.score_mean - best.score_sd > other.score_mean + other.score_sd
    source_runs = [r.score for r in c.records if r.item.known == "source" and r.item.null is None]
    null_runs = [r.score for r in c.records if r.item.known == "source" and r.item.null is not None]
    assert min(source_runs) > max(null_runs)


@pytest.mark.slow
@slow
def test_the_skeleton_null_finds_no_evidence_for_an_unrelated_vocabulary():
    # an unrelated vocabulary with the source's syllable shapes covers as much as its skeleton nulls
    c = run(seeds=(0, 1, 2), n_null=3, steps=200, names=("source", "unrelated"))
    verdicts = {s.known: s.verdict for s in c.summaries}
    assert verdicts == {"source": CLOSER, "unrelated": NO_EVIDENCE}


@pytest.mark.slow
@slow
@pytest.mark.xfail(strict=False, reason="open (docs/closeness.md): at test size the heavy relative is deciphered on "
                                        "1 seed of 3-4, and no signal tried separates it from the unrelated "
                                        "vocabulary beyond the spread over seeds")
def test_a_distant_relative_beats_an_unrelated_vocabulary_beyond_the_seeds_spread():
    c = run(seeds=(0, 1, 2), n_null=3, steps=200, names=("relative", "unrelated"))
    rel, unrel = (next(s for s in c.summaries if s.known == k) for k in ("relative", "unrelated"))
    assert rel.score_mean - rel.score_sd > unrel.score_mean + unrel.score_sd
