"""Issue 27 item 3 in the app: both languages as scholars write them (the sample opens in the
scholarly transliteration; the known language's display table in the stem list, matches, ranked
stems, span details and tooltips; the Hebrew preset keeps its final forms when chosen in the
dialog), the first-launch hint and the BOM of the app's CSV exports."""

from __future__ import annotations

import csv

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog

from decipher_gui import dialogs, settings
from decipher_gui.analysis import SpanMark
from engine.corpus import PinnedValue
from engine.io import display as display_tables
from engine.io.tables import read_prior
from engine.results import Alternative, Match


def _accept_dialog(monkeypatch, cls, fill):
    def exec_(self):
        fill(self)
        self.accept()
        return QDialog.DialogCode(self.result())
    monkeypatch.setattr(cls, "exec", exec_)


def _choose(preset):
    return lambda d: d.preset_box.setCurrentIndex(d.preset_box.findData(preset))


def _stem_cells(window):
    model = window.languages.model
    return [model.item(r, 0).text() for r in range(model.rowCount())]


def test_the_dialogs_hebrew_preset_keeps_its_final_forms(app):
    d = dialogs.DisplayTableDialog(["a", "l", "p", "y", "m"], display_tables.IDENTITY)
    d.preset_box.setCurrentIndex(d.preset_box.findData("hebrew-script"))
    d._preset(d.preset_box.currentIndex())
    table = d.table()
    assert table.finals == display_tables.HEBREW_FINALS
    assert table.show_form("alpym") == "אלפים" and table.show_text(list("alpym")) == "אלפים"
    # a letter edited in the grid: a custom table that still writes the other finals
    d.grid.item(1, 1).setText("L")
    custom = d.table()
    assert custom.name == "custom" and custom.show_form("alpym") == "אLפים"


def test_sample_opens_in_transliteration_on_both_sides(window):
    grid = window.pins.grid.model()
    assert grid.headerData(grid.rows.index("$"), Qt.Orientation.Vertical) == "š"
    stems = _stem_cells(window)
    assert "šlš" in stems and "$l$" not in stems
    stem_item = window.languages.model.item(stems.index("šlš"), 0)
    assert stem_item.toolTip() == "in the data: $l$"


def test_known_display_table_in_every_view(window, monkeypatch):
    _accept_dialog(monkeypatch, dialogs.DisplayTableDialog, _choose("hebrew-script"))
    window.acts.known_display.trigger()
    lid = window.state.language_id
    assert window.project.setting(display_tables.known_setting_key(lid))["finals"] == display_tables.HEBREW_FINALS
    assert "שׁלשׁ" in _stem_cells(window)

    match = Match("x", 0, 4, "alpm", (Alternative(1, "alpym", "ʔlpjm", -1.0, "thousands"),
                                      Alternative(2, "mlk", "mlk", -2.0, "king")), confidence=0.9)
    window.matches.set_matches([match], {}, {}, "test")
    model = window.matches.model
    stem_col = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())].index("stem")
    assert model.data(model.index(0, stem_col)) == "אלפים"
    assert "(alpym)" in model.data(model.index(0, stem_col), Qt.ItemDataRole.ToolTipRole)
    assert model.data(model.index(0, 1)) == "ʾalpm", "the span in the corpus's transliteration"
    tip = window.selection.explain(SpanMark(match, None, None), brief=True)
    assert "אלפים" in tip and "מלך" in tip and "alpym" not in tip
    details = window.inscriptions.details
    details.set_mark(SpanMark(match, None, None), {}, "")
    assert [details.table.item(r, 1).text() for r in range(2)] == ["אלפים", "מלך"]

    window.acts.undo.trigger()
    assert "šlš" in _stem_cells(window)


def test_the_edit_menus_decision_text_names_the_stem_as_shown(window, monkeypatch):
    monkeypatch.setattr(window.state, "shown_run", 1)
    monkeypatch.setattr(window.project, "decisions", lambda run_id: {})
    command = window.model.decide(Match("x", 0, 3, "$pt", (Alternative(1, "$pT", "ʃpt", -1.0, ""),)), "$pT",
                                  "accepted")
    assert command.text == "Accept špṭ at x 0–3"


def test_first_launch_hint_once_and_dismissable(window, qtbot, sample_path):
    hint = window.display_hint
    assert "View ▸ Display table" in hint.layout().itemAt(0).widget().text()
    assert not hint.isHidden()
    window.display_hint_close.click()
    assert hint.isHidden()
    assert settings.get("display_hint_seen") is True
    from decipher_gui.mainwindow import MainWindow

    window.close()
    other = MainWindow(restore_state=False)
    qtbot.addWidget(other)
    assert other.open_project(sample_path)
    assert getattr(other, "display_hint", None) is None, "shown once, on the first launch only"


def test_csv_exports_of_the_app_start_with_a_bom_by_default(window, tmp_path):
    assert window.acts.export_bom.isChecked()
    out = tmp_path / "prior.csv"
    window.model.exports.export_prior(out)
    assert out.read_bytes().startswith(b"\xef\xbb\xbf")
    window.acts.export_bom.trigger()
    assert not window.acts.export_bom.isChecked()
    window.set_pin(PinnedValue("$", "ʃ", 1.0, True, ""))
    window.model.exports.export_prior(out)
    raw = out.read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf")
    with open(out, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    # the letter as the sample shows it beside the data's letter, and the file reads back
    assert [(r["lost"], r["shown"], r["known_ipa"]) for r in rows] == [("$", "š", "ʃ")]
    assert read_prior(out) == [PinnedValue("$", "ʃ", 1.0, True, "")]
