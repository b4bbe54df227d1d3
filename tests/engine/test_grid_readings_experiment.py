"""benchmarks/experiments/grid_readings.py: the signs only one of the grid's two readings puts at its standard value."""

from __future__ import annotations

from collections import Counter

from benchmarks.experiments.grid_readings import compare
from engine.model.syllables import NULL_ONSET

WO, KA, A = "\U0001003A", "\U0001000F", "\U00010000"     # wo, ka, a


def test_the_signs_only_one_reading_gets_right_are_named_with_what_the_other_reads():
    read = {"posterior": {WO: (NULL_ONSET, "o"), KA: ("k", "a"), A: (NULL_ONSET, "a")},
            "scores": {WO: ("w", "o"), KA: ("t", "a"), A: (NULL_ONSET, "a")}}
    row = compare(read, Counter({WO: 90, KA: 40, A: 200}))
    assert row["signs_with_standard"] == 3
    assert row["posterior_right"] == 2 and row["scores_right"] == 2
    assert row["only_scores_right"] == [["wo", 90, "o"]]          # a bare vowel is shown without the null onset
    assert row["only_posterior_right"] == [["ka", 40, "ta"]]
