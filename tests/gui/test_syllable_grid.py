"""Issue 25 item 3 in the app: a syllable run's learned grid (onset rows × vowel columns, each sign
in the cell of its best onset and vowel, shaded by confidence, pinned cells framed), shown in the
Sign values tab only for a syllable run, exported as CSV and PNG; and the pin dialog taking
syllable values (ka, a, k-, -a) only when signs are syllables. Headless (QT_QPA_PLATFORM=offscreen)."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from PySide6.QtGui import QImage

from engine.config import Config
from engine.corpus import PinnedValue
from engine.io.display import DisplayTable
from engine.project.signvalues import syllable_grid
from engine.project.recording import record_mapping
from engine.results import MappingSnapshot

from decipher_gui.panels.pins import IpaPicker, syllable_pin_for
from decipher_gui.panels.syllable_grid import PINNED_ROLE, SyllableGridPanel, confidence_shade
from tests.engine.test_syllable_results import A, E, KA, KE, syllable_snapshot


def cell(panel: SyllableGridPanel, onset: str, vowel: str):
    g = panel.grid
    return panel.table.item(g.onsets.index(onset), g.vowels.index(vowel))


def test_grid_puts_each_sign_in_the_cell_of_its_best_onset_and_vowel():
    grid = syllable_grid(syllable_snapshot().syllables, [PinnedValue(KA, "ka")])
    assert grid.onsets == ("k", "d", "∅") and grid.vowels == ("a", "e", "o")
    assert [g.sign for g in grid.at("k", "a")] == [KA]
    assert [g.sign for g in grid.at("k", "e")] == [KE]
    assert [g.sign for g in grid.at("∅", "a")] == [A]
    assert [g.sign for g in grid.at("∅", "e")] == [E]
    ka = grid.at("k", "a")[0]
    assert ka.confidence == pytest.approx(0.8 * 0.7) and ka.pinned == "locked" and ka.pin_value == "ka"
    assert ka.describe() == f"{KA}: onset k 80%, d 15%, ∅ 5%; vowel a 70%, e 20%, o 10%; cell 56%; pinned ka (locked)"


def test_panel_draws_the_grid_with_shading_pins_and_tooltips(qtbot, tmp_path):
    panel = SyllableGridPanel()
    qtbot.addWidget(panel)
    panel.display = DisplayTable("latin", {KA: "KA", KE: "KE", A: "A", E: "E"})
    panel.set_mapping(syllable_snapshot(), [PinnedValue(KE, "k-", 1.0, False)], "(run 3)", 40)
    panel.show()
    assert panel.table.rowCount() == 3 and panel.table.columnCount() == 3
    assert panel.table.verticalHeaderItem(2).text() == "∅ (none)"
    assert cell(panel, "k", "a").text() == "KA" and cell(panel, "∅", "a").text() == "A"
    assert cell(panel, "k", "e").text() == "•KE"                       # the pinned sign
    assert cell(panel, "k", "e").data(PINNED_ROLE) and not cell(panel, "k", "a").data(PINNED_ROLE)
    assert cell(panel, "d", "o").text() == ""
    # shading follows the cell's confidence: 𐀁 (0.9·0.5) is lighter than 𐀏 (0.8·0.7)
    assert cell(panel, "k", "a").background().color() == confidence_shade(0.8 * 0.7)
    assert cell(panel, "∅", "e").background().color().red() > cell(panel, "k", "a").background().color().red()
    assert "onset k 60%, d 30%" in cell(panel, "k", "e").toolTip()
    assert panel.caption.text() == "Learned grid (run 3) at step 40"
    # a new snapshot (training goes on): 𐀁 moves to the vowel o
    snap = syllable_snapshot()
    snap.syllables.vowel_probs[3] = [0.1, 0.2, 0.7]
    panel.set_mapping(snap, [], "(live)", 60)
    assert cell(panel, "∅", "o").text() == "E" and cell(panel, "∅", "e").text() == ""
    assert not cell(panel, "k", "e").data(PINNED_ROLE)
    # the picture: every row and column, the pinned cell framed
    png = tmp_path / "grid.png"
    panel.set_mapping(syllable_snapshot(), [PinnedValue(KE, "k-", 1.0, False)], "(run 3)", 40)
    panel.display = DisplayTable()
    panel.save_png(png)
    image = QImage(str(png))
    assert not image.isNull() and image.width() > 100 and image.height() > 60


def test_letter_mapping_shows_no_grid(qtbot):
    panel = SyllableGridPanel()
    qtbot.addWidget(panel)
    panel.set_mapping(MappingSnapshot(("<DEL>", "a"), ("<DEL>", "a"), np.eye(2)), [])
    assert panel.refresh() is None and panel.table.rowCount() == 0


def test_pin_dialog_takes_syllables_only_for_syllable_signs(qtbot):
    letters = IpaPicker([KA, A], syllables=False)
    qtbot.addWidget(letters)
    letters.ipa.setText("ka")
    assert letters.value() is None and "signs = syllables" in letters.describe.text()
    letters.ipa.setText("k")
    assert letters.value() == PinnedValue(KA, "k")
    syl = IpaPicker([KA, A], syllables=True, lost=KE)
    qtbot.addWidget(syl)
    for typed, stored, said in (("ka", "ka", "onset k, vowel a"), ("k-", "k-", "onset k (the other is learned)"),
                                (" -a", "-a", "vowel a (the other is learned)"), ("a", "a", "")):
        syl.ipa.setText(typed)
        assert syl.value() == PinnedValue(KE, stored), typed
        assert said in syl.describe.text()
    syl.ipa.setText("kt")
    assert syl.value() is None and "must be one IPA unit, or a syllable" in syl.describe.text()
    assert syl.describe.text().count("\n") == 0


def test_grid_cells_of_a_syllable_mapping_pin_onsets_and_vowels():
    assert syllable_pin_for("k") == "k-" and syllable_pin_for("a") == "-a" and syllable_pin_for("∅") is None
    assert syllable_pin_for("ka") == "ka"


def test_window_shows_the_grid_of_a_syllable_run_and_exports_it(window, qtbot, tmp_path):
    project = window.project
    corpus, language = project.corpora()[0].id, project.languages()[0].id
    letters = project.start_run(Config(steps=4), corpus, language, device="cpu", seed=1)
    record_mapping(project, letters, 4, MappingSnapshot(("<DEL>", "a"), ("<DEL>", "a"), np.eye(2)))
    project.finish_run(letters, "completed")
    run = project.start_run(Config(steps=4, signs="syllables"), corpus, language, device="cpu", seed=1)
    record_mapping(project, run, 4, syllable_snapshot())
    project.finish_run(run, "completed")
    project.replace_pins([PinnedValue(KA, "ka")])
    window.refresh_runs()
    window.signs_dock.raise_()
    window.show_run(letters)
    qtbot.wait(10)
    assert not window.signs.grid.isVisible()
    window.show_run(run)
    qtbot.waitUntil(lambda: window.signs.grid.isVisible())
    grid = window.signs.grid
    assert cell(grid, "k", "a").data(PINNED_ROLE) and KA in cell(grid, "k", "a").text()
    assert window.acts.syllable_signs()
    # the sign values table beside it ranks by P(sound | sign), per slot
    assert any(v.ipa == "k-" and v.share == pytest.approx(0.8) for v in window.signs.values if v.sign == KA)
    out, png = tmp_path / "grid.csv", tmp_path / "grid.png"
    assert window.acts.write_syllable_grid(out, "csv") == 3
    rows = list(csv.reader(out.open(encoding="utf-8-sig")))
    assert rows[0] == ["onset", "a", "e", "o"] and rows[1][:3] == ["k", f"•{KA} 56%", f"{KE} 51%"]
    assert rows[3][0] == "∅" and rows[3][1] == f"{A} 72%"
    assert window.acts.write_syllable_grid(png, "png") == 3
    assert not QImage(str(png)).isNull()


def test_pin_grid_of_a_syllable_run_says_what_it_shades_and_pins_slots(window, qtbot):
    window.pins.set_mapping(syllable_snapshot(), 4, "(run 9)")
    assert window.pins.caption.text().startswith("P(sound | sign) of a syllable run")
    window.pins.syllables = lambda: True
    got = []
    window.pins.toggleRequested.connect(lambda lost, known: got.append((lost, known)))
    window.pins._toggle(KA, "k")
    window.pins._toggle(KA, "a")
    assert got == [(KA, "k-"), (KA, "-a")]
    assert {(p.lost, p.known_ipa) for p in window.project.pins()} >= {(KA, "k-"), (KA, "-a")}


def test_the_grid_legend_explains_vowel_onset_rows_and_empty_columns(qtbot):
    """Issue 51, item 7: the Linear B grid's onset row "a" (diphthong signs) and its empty columns
    were unexplained."""
    panel = SyllableGridPanel()
    qtbot.addWidget(panel)
    snap = syllable_snapshot()
    panel.set_mapping(snap, [], "(run 3)", 40)
    panel.show()
    # the snapshot's grid: vowel o read best by no sign, onset d by none; no vowel as an onset
    text = panel.legend.text()
    assert "Empty columns o and rows d: sounds of the known language that no sign reads as its best" in text
    assert "glide" not in text
    # a sign whose best onset is the vowel a (a glide, as the model has them): its row is explained
    from engine.results import SyllableTable

    onsets, vowels = ("k", "∅", "a"), ("a", "e")
    table = SyllableTable((KA, KE), onsets, np.array([[0.8, 0.1, 0.1], [0.1, 0.1, 0.8]]), vowels,
                          np.array([[0.9, 0.1], [0.2, 0.8]]))
    panel.set_mapping(MappingSnapshot(("<DEL>", KA, KE), ("<DEL>",) + onsets + vowels,
                                      np.zeros((6, 3)), table), [], "(run 4)", 10)
    assert panel.grid.onsets == ("k", "a", "∅")
    text = panel.legend.text()
    assert "Onset row a: signs whose onset slot the model reads as a vowel" in text
    assert "Empty rows ∅ (none)" in text
    # a letters run: no grid, the plain legend
    panel.set_mapping(None, [], "", None)
    assert panel.legend.text() == SyllableGridPanel.LEGEND


def test_the_pin_grid_legend_of_a_syllable_run_says_sign_onset_vowel_not_letter(window):
    from tests.engine.test_syllable_results import syllable_snapshot as snapshot

    window.pins.set_mapping(snapshot(), 4, "(run 9)")
    legend = window.pins.legend.text()
    assert "P(letter | IPA)" not in legend and "P(onset | sign)" in legend and "P(vowel | sign)" in legend
    mapping = window.current_mapping()[0]
    if mapping is not None:
        window.pins.set_mapping(mapping, 1, "(run 1)")
        assert "P(letter | IPA)" in window.pins.legend.text()
