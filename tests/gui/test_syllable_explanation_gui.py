"""A syllable run's hover: each onset and vowel of the stem under the sign whose slot it takes, the row named
"signs", no null onset shown and no onset shown as left out (the letters' DP read every onset as deleted)."""

from __future__ import annotations

from decipher_gui.analysis import SpanMark
from decipher_gui.panels.inscriptions import SpanDetails, explain_html
from engine.results import Alternative, Match
from tests.engine.test_explain_syllables import A, KA, NA, TA, snapshot


def test_the_hover_aligns_a_syllable_span_sign_by_sign():
    m = Match("i1", 0, 3, KA + TA + NA, (Alternative(1, "katana", "katana", -0.2, "sword"),), 0.9)
    html = explain_html(SpanMark(m, None, None), snapshot(), 0.0, 4)
    assert "<small>signs</small>" in html and "<small>letters</small>" not in html
    for sign in (KA, TA, NA):
        assert html.count(f"<b>{sign}</b>") == 2                 # its onset and its vowel
    assert html.count("<small>0.90</small>") == 6 and "∅" not in html


def test_the_details_panel_names_the_signs_row_and_hides_the_null_onset(qtbot):
    details = SpanDetails()
    qtbot.addWidget(details)
    details.mapping = snapshot()
    details.band = 4
    details.set_mark(SpanMark(Match("i1", 0, 2, A + KA, (Alternative(1, "aka", "aka", -0.2),), 0.9), None, None))
    text = details.alignment.text()
    assert "<td>signs</td>" in text and "/∅/" not in text
    assert text.count(f"<b>{A}</b>") == 1 and text.count(f"<b>{KA}</b>") == 2
