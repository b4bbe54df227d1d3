"""The inscription view on its own: word dividers, wrapping between words, hit-testing spans,
and the explanation of a span with a character mapping."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint

from decipher_gui.analysis import marks_by_inscription
from engine.closeness.curve import closeness_curve
from decipher_gui.panels.inscriptions import InscriptionPanel, explain_html
from engine.corpus import DIVIDER, GoldAnnotation, Inscription
from engine.results import Alternative, MappingSnapshot, Match

TEXT = "neitin iunstir baśbidirte ḿbaŕbin keŕekiar selkiteŕ biuŕ ildun ekiar ianbaŕ tolirbaś"


def _panel(qtbot, width=700):
    panel = InscriptionPanel()
    qtbot.addWidget(panel)
    panel.resize(width, 400)
    ins = [Inscription("F.13.3", TEXT, meta={"reference": "MLH F.13.3"}), Inscription("B.1", "lakn")]
    panel.view.model().set_inscriptions(ins, [GoldAnnotation("B.1", 0, 4, ("lakn",))])
    panel.show()
    qtbot.waitExposed(panel)
    return panel, ins


def test_dividers_are_drawn_and_lines_break_between_words(qtbot):
    panel, ins = _panel(qtbot, width=1000)
    view = panel.view
    layout = view._delegate.layout(ins[0], view.viewport().width())
    units = ins[0].units
    assert len(layout.boxes) == len(units)
    assert all(layout.boxes[i].width() > 0 for i, u in enumerate(units) if u == DIVIDER)
    lines = {round(b.top()) for b in layout.boxes}
    assert len(lines) > 1, "a long inscription wraps"
    for start, word in ins[0].segments():
        tops = {round(layout.boxes[i].top()) for i in range(start, start + len(word))}
        assert len(tops) == 1, f"word {''.join(word)!r} split across lines"


def test_hovering_a_span_finds_it_and_explains_it(qtbot):
    panel, ins = _panel(qtbot)
    view = panel.view
    match = Match("B.1", 0, 4, "lakn", (Alternative(1, "lqn", "lqn", -0.4, "take"),), confidence=0.7)
    view.model().set_marks(marks_by_inscription([match], {}))
    row_rect = view.visualRect(view.model().index(1))
    layout = view._delegate.layout(ins[1], row_rect.width())
    centre = layout.boxes[1].center().toPoint() + row_rect.topLeft()
    mark = view.mark_at(QPoint(centre))
    assert mark is not None and mark.match == match
    mapping = MappingSnapshot(("<DEL>", "a", "k", "l", "n"), ("<DEL>", "l", "n", "q"),
                          np.array([[0.1, 0.3, 0.2, 0.2, 0.2],
                                    [0.05, 0.05, 0.05, 0.8, 0.05],
                                    [0.05, 0.05, 0.05, 0.05, 0.8],
                                    [0.1, 0.1, 0.7, 0.05, 0.05]]))
    text = explain_html(mark, mapping, gamma=1.0, band=2, ref="B.1")
    assert "lqn" in text and "/lqn/" in text and "take" in text and "alignment with" in text
    assert "needs this run" in explain_html(mark, None, 1.0, 2)
    picked = view.select_span("B.1", 0, 4)
    assert picked == mark and view.selected_span == ("B.1", 0, 4)
    panel.details.mapping = mapping
    panel.details.set_mark(picked, {})
    assert panel.details.table.rowCount() == 1 and "Best character alignment" in panel.details.alignment.text()


def test_closeness_curve_counts_letters_of_confident_spans():
    ms = [Match("a", 0, 4, "abcd", (), confidence=0.9), Match("b", 0, 2, "ab", (), confidence=0.3)]
    curve = dict(closeness_curve(ms, 10, points=11))
    assert curve[1.0] == 0 and abs(curve[0.5] - 0.4) < 1e-9 and abs(curve[0.0] - 0.6) < 1e-9


def test_an_inscription_with_leiden_markup_shows_it_as_written(qtbot, tmp_path):
    """Issue 29 item 3: lacunae and restorations are the corpus's markup, shown in the app beside the
    letters the model reads (which hold no bracket and no dot)."""
    from PySide6.QtCore import Qt

    from engine.io.tables import read_lost

    lost = tmp_path / "lost.csv"
    lost.write_text("id,text\nA,ym [b]n [...] lk\nB,lakn\n", encoding="utf-8")
    ins = read_lost(lost)
    assert not set("[].") & set(ins[0].text)
    panel = InscriptionPanel()
    qtbot.addWidget(panel)
    panel.view.model().set_inscriptions(ins, [])
    model = panel.view.model()
    first = model.data(model.index(0, 0), Qt.ItemDataRole.AccessibleTextRole)
    second = model.data(model.index(1, 0), Qt.ItemDataRole.AccessibleTextRole)
    assert "as written: ym [b]n [...] lk" in first
    assert "as written" not in second          # no markup: nothing extra to show


def test_a_very_long_inscription_is_laid_out_in_part_and_says_how_much_is_left(qtbot):
    """Issue 28 item 4: a huge inscription opens without freezing the view: the first
    MAX_SHOWN_UNITS letters are laid out and drawn, the rest counted in a line below them."""
    from decipher_gui.panels.inscriptions import MAX_SHOWN_UNITS, hidden_text

    n = MAX_SHOWN_UNITS * 10
    panel = InscriptionPanel()
    qtbot.addWidget(panel)
    panel.resize(900, 500)
    ins = [Inscription("huge", "bakadala" * (n // 8)), Inscription("B.1", "lakn")]
    panel.view.model().set_inscriptions(ins, [])
    panel.show()
    qtbot.waitExposed(panel)
    view = panel.view
    layout = view._delegate.layout(ins[0], view.viewport().width())
    assert len(layout.boxes) == MAX_SHOWN_UNITS and layout.hidden == n - MAX_SHOWN_UNITS
    assert view._delegate.layout(ins[1], view.viewport().width()).hidden == 0
    image = panel.grab()          # paints the huge row (its units split once, not once per letter)
    assert not image.isNull()
    assert "180,000 more letters" in hidden_text(layout.hidden)


def test_a_resize_lays_out_again_from_the_measured_letters_and_the_same_boxes(qtbot):
    """A resize lays every inscription out again (QListView, Adjust): the letters' widths do not
    depend on the view's width and are measured once per inscription, font and display table."""
    panel, ins = _panel(qtbot, width=1000)
    delegate = panel.view._delegate
    delegate.layout(ins[0], 900)
    measured = dict(delegate._widths)
    warm = delegate.layout(ins[0], 500)
    assert delegate._widths == measured  # the second width measured nothing
    delegate.fonts_changed()  # forgets both
    assert delegate._widths == {}
    cold = delegate.layout(ins[0], 500)
    assert [b.getRect() for b in warm.boxes] == [b.getRect() for b in cold.boxes] and warm.height == cold.height
    assert len({round(b.top()) for b in cold.boxes}) > len({round(b.top()) for b in delegate.layout(ins[0], 900).boxes})
