"""The hover's and the exports' alignment of a syllable run's span to a stem: each sign's onset and vowel slot
(engine/model/explain.py), not the letters' DP that would read every onset as left out."""

from __future__ import annotations

import math

import numpy as np

from engine.model.explain import best_alignment
from engine.model.syllables import NULL_ONSET
from engine.results import MappingSnapshot, SyllableTable

A, KA, TA, NA = "\U00010000", "\U0001000F", "\U0001002A", "\U00010019"
SIGNS = (A, KA, TA, NA)
ONSETS = (NULL_ONSET, "k", "t", "n")
VOWELS = ("a", "i")


def snapshot() -> MappingSnapshot:
    """A grid that reads a, ka, ta, na with P 0.9 each (the rest spread), as a syllable run stores it."""
    on = np.full((4, 4), 0.1 / 3)
    vo = np.full((4, 2), 0.1)
    for i in range(4):
        on[i, i], vo[i, 0] = 0.9, 0.9
    table = SyllableTable(SIGNS, ONSETS, on, VOWELS, vo)
    known = ("<DEL>", *ONSETS, *VOWELS)
    probs = np.zeros((len(known), 5))
    probs[1:5, 1:] = on.T
    probs[5:, 1:] = vo.T
    return MappingSnapshot(("<DEL>", *SIGNS), known, probs, table)


def test_each_onset_and_vowel_takes_its_signs_slot():
    steps, total = best_alignment(snapshot(), KA + TA + NA, "katana", gamma=3.5, band=4)
    assert [(s.known, s.lost) for s in steps] == [("k", KA), ("a", KA), ("t", TA), ("a", TA), ("n", NA), ("a", NA)]
    assert all(abs(s.log_prob - math.log(0.9)) < 1e-9 for s in steps)
    assert abs(total - 6 * math.log(0.9)) < 1e-9


def test_a_bare_vowel_is_its_signs_null_onset_and_vowel():
    steps, _ = best_alignment(snapshot(), A + KA, "aka", gamma=3.5, band=4)
    assert [(s.known, s.lost) for s in steps] == [(NULL_ONSET, A), ("a", A), ("k", KA), ("a", KA)]


def test_a_coda_left_unwritten_pays_the_models_price_and_an_unknown_sign_has_no_alignment():
    from engine.model.syllable_mapping import CODA_DELETE_LOG_P

    steps, _ = best_alignment(snapshot(), KA + TA, "katan", gamma=3.5, band=4)
    assert (steps[-1].known, steps[-1].lost) == ("n", "") and abs(steps[-1].log_prob - CODA_DELETE_LOG_P) < 1e-9
    assert best_alignment(snapshot(), KA + "\U00010001", "kae", gamma=3.5, band=4) == ([], -math.inf)


def test_the_field_export_puts_each_sign_over_the_onset_and_vowel_it_writes():
    """Before, the export wrote the letters' alignment: k under 𐀏, a under a gap, t under the next sign."""
    from engine.io.display import IDENTITY
    from engine.project.fieldexport import pair_alignment

    def rows(units, ipa):
        return pair_alignment(snapshot(), units, ipa, IDENTITY, gamma=0.0, band=4, segments=tuple(units))

    assert rows([KA, TA, NA], "katana") == ((KA, "-", TA, "-", NA, "-"), ("k", "a", "t", "a", "n", "a"))
    # a bare vowel's sign over the vowel alone; the same sign twice stays two columns
    assert rows([A, KA, KA], "akaka") == ((A, KA, "-", KA, "-"), ("a", "k", "a", "k", "a"))
    assert rows([KA, TA], "katan") == ((KA, "-", TA, "-", "-"), ("k", "a", "t", "a", "n"))   # a coda left out
