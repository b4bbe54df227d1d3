"""A run that knows its reading is probably wrong (issue 49 item 3): signs crowded onto a few
syllables, or matches that cover almost none of the text, are said in plain words."""

from __future__ import annotations

import numpy as np
import pytest

from engine.config import Config
from engine.results import SyllableTable
from engine.training.diagnosis import (CROWD_SHARE_FLAG, Diagnosis, close_finding, coverage_finding, diagnose,
                                       plain_words, values_finding)

ONSETS = ("∅", "k", "t", "p", "n")
VOWELS = ("a", "e", "i")


def table(values: dict[str, tuple[str, str]]) -> SyllableTable:
    signs = tuple(values)
    on = np.full((len(signs), len(ONSETS)), 0.01)
    vo = np.full((len(signs), len(VOWELS)), 0.01)
    for i, (o, v) in enumerate(values.values()):
        on[i, ONSETS.index(o)] = 0.9
        vo[i, VOWELS.index(v)] = 0.9
    return SyllableTable(signs, ONSETS, on, VOWELS, vo)


def grid() -> dict[str, tuple[str, str]]:
    """15 signs, one per syllable: a right reading's shape."""
    return {chr(0x10600 + i): (o, v) for i, (o, v) in enumerate((o, v) for o in ONSETS for v in VOWELS)}


def test_a_grid_of_distinct_syllables_is_not_flagged():
    values = grid()
    shares = {s: 1 / len(values) for s in values}
    finding, measured = values_finding(table(values), shares)
    assert finding is None
    assert measured["diagnosis_crowded_share"] == 0.0 and measured["diagnosis_distinct_values"] == 15


def test_signs_crowded_onto_a_few_syllables_say_the_reading_is_probably_wrong():
    values = grid()
    crowded = list(values)[:6]
    for s in crowded:                      # six signs all read as a bare e, as the failed runs did
        values[s] = ("∅", "e")
    shares = {s: (0.1 if s in crowded else 0.4 / 9) for s in values}
    finding, measured = values_finding(table(values), shares)
    assert measured["diagnosis_crowded_share"] > CROWD_SHARE_FLAG
    assert finding is not None and finding.flag and finding.code == "values"
    assert "6 signs (60% of the text)" in finding.text and "e by 6" in finding.text
    d = Diagnosis([finding])
    assert d.probably_wrong and d.headline().startswith("this reading is probably wrong: ")
    assert plain_words(d).startswith("This reading is probably wrong")
    # the same crowd in rare signs (under the share) is no verdict
    rare = {s: (0.01 if s in crowded else 0.94 / 9) for s in values}
    assert values_finding(table(values), rare)[0] is None


def test_matches_covering_almost_nothing_say_the_reading_is_probably_wrong():
    finding, measured = coverage_finding(0.027, 0.5)
    assert finding is not None and finding.code == "coverage"
    assert "2.7% of the text" in finding.text and "50%" in finding.text
    assert abs(measured["diagnosis_coverage_of_target"] - 0.054) < 1e-9
    assert coverage_finding(0.44, 0.5)[0] is None
    assert Diagnosis([finding]).probably_wrong
    # a possible local optimum alone is not called wrong
    from engine.training.diagnosis import Finding
    local = Diagnosis([Finding("class", "2 letters read against how they pattern", ("a", "b"))])
    assert local.flagged and not local.probably_wrong
    assert local.headline().startswith("this reading may be a local optimum")


def test_a_trained_syllable_run_is_diagnosed_with_its_crowding_and_coverage():
    from engine.datasets.synthetic_syllabary import make_syllabary_cipher
    from engine.training.trainer import Trainer

    c = make_syllabary_cipher(seed=3, n_stems=40, n_inscriptions=30)
    cfg = Config(**{**c.settings(segmented=False), "steps": 3, "anneal_steps": 3, "eval_interval": 0})
    t = Trainer(c.running, c.vocabulary, cfg, gold=c.running_gold)
    for _ in t.run():
        pass
    d = diagnose(t)
    assert "diagnosis_crowded_share" in d.values and "diagnosis_coverage_of_target" in d.values
    assert 0.0 <= d.values["diagnosis_crowded_share"] <= 1.0


def test_a_letters_reading_with_few_close_matches_is_probably_wrong():
    # the curves of a right reading (dev cipher spanish-1) and of the same text against Latin's list, cut
    right = [(1.0, 0.0), (0.75, 0.323), (0.5, 0.432), (0.25, 0.712), (0.0, 0.798)]
    unrelated = [(1.0, 0.0), (0.75, 0.0), (0.5, 0.04), (0.25, 0.35), (0.0, 0.752)]
    assert close_finding(right)[0] is None
    finding, values = close_finding(unrelated)
    assert finding is not None and finding.code == "close" and "only 4% of the text" in finding.text
    assert abs(values["diagnosis_close_share"] - 0.04) < 1e-9
    assert Diagnosis([finding]).probably_wrong
    assert close_finding([]) == (None, {})


def test_a_letters_run_s_diagnosis_reads_its_close_matches():
    from engine.datasets.synthetic import make_cipher
    from engine.training.trainer import Trainer

    c = make_cipher(n_stems=30, n_inscriptions=20, seed=2)
    t = Trainer(c.corpus, c.vocabulary, Config(steps=2, eval_interval=0), gold=c.gold)
    for _ in t.run():
        pass
    d = diagnose(t)
    assert "diagnosis_close_share" in d.values or "diagnosis_coverage_of_target" in d.values


@pytest.mark.slow
def test_a_syllabic_grid_learned_from_scratch_is_not_called_wrong():
    """The clean cipher of test_syllable_model, whose grid training finds: every sign its own value."""
    from .test_syllable_model import train_clean_grid

    tr = train_clean_grid()
    assert tr.evaluate().metrics["p_at_1"] >= 0.9
    d = diagnose(tr)
    assert d.values["diagnosis_crowded_share"] == 0.0 and not d.probably_wrong
