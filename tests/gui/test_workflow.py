"""The philologist's workflow through the real widgets (issue 14): File ▸ New after a run, run
switching, display tables in the views, right-to-left corpora, sign values and field exports,
the import dialog's table options, and presets."""

from __future__ import annotations

import csv
import json

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDialog, QFileDialog

from decipher_gui import dialogs
from decipher_gui.analysis import SpanMark
from decipher_gui.fonts import SCRIPT_SAMPLES, missing_glyphs, text_font
from engine.io import display as display_tables
from engine.config import Config
from engine.results import Alternative, Match

from .conftest import RUN_TIMEOUT_MS, small_config


def _accept_dialog(monkeypatch, cls, fill):
    """Make ``cls.exec`` fill the real dialog's widgets with ``fill(dialog)`` and press OK (a
    dialog that refuses OK, e.g. an import with problems, stays rejected)."""
    def exec_(self):
        fill(self)
        self.setResult(QDialog.DialogCode.Rejected.value)
        self.accept()
        return QDialog.DialogCode(self.result())
    monkeypatch.setattr(cls, "exec", exec_)


def _run_to_end(window, qtbot, **changes):
    with qtbot.waitSignal(window.runEnded, timeout=RUN_TIMEOUT_MS):
        assert window.start_run(small_config(window, **changes))
    return window.project.runs()[-1]


# ---- 1 + 3 + 6: a run, its sign values and field exports, then File ▸ New ------------------------

def test_run_then_sign_values_exports_and_new_project_is_empty(window, qtbot, tmp_path, monkeypatch):
    run = _run_to_end(window, qtbot)
    assert window.matches.model.rowCount() > 0
    # the grid caption says "live" only while the run runs
    assert "live" not in window.pins.caption.text() and f"run {run.id}" in window.pins.caption.text()

    # sign values: one row per sign, best sounds with shares, the caption names the run (the
    # panel fills when its tab is shown)
    signs = window.signs
    window.signs_dock.raise_()
    qtbot.waitUntil(signs.isVisible)
    assert signs.table.rowCount() >= 25 and f"run {run.id}" in signs.caption.text()
    shares = [v.share for v in signs.values if v.rank == 1 and v.share is not None]
    assert shares and all(0 < s <= 1 for s in shares)

    # File ▸ Export ▸ Sign values through the action (the save dialog answered)
    out = tmp_path / "signs.csv"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), "CSV (*.csv)"))
    window.acts.export_signs.trigger()
    assert out.read_bytes().startswith(b"\xef\xbb\xbf"), "the app's CSV exports start with a BOM by default"
    with open(out, encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["sign"] for r in rows} >= {"$", "<", "H"}
    # the app's exports are formula-guarded: the Ugaritic ASCII ġ "@" is written "'@"
    assert "'@" in {r["sign"] for r in rows} and not any(r["sign"].startswith(("=", "+", "-", "@")) for r in rows)
    assert all(r["run_id"] == str(run.id) for r in rows)
    top = [r for r in rows if r["rank"] == "1"]
    assert len(top) == len({r["sign"] for r in rows})

    # accept the best match, then CLDF (validated) and EDICTOR exports hold exactly it
    best = max(window.shown_matches, key=lambda m: m.confidence)
    assert window.decide(best, best.best.form, "accepted")
    folder = tmp_path / "cldf"
    assert window.acts.write_cldf(folder) == 1
    from pycldf import Dataset

    ds = Dataset.from_metadata(folder / "Wordlist-metadata.json")
    assert ds.validate()
    forms = list(ds["FormTable"])
    # the sample shows both sides in the scholarly transliteration, and so does the export
    lost_t = display_tables.preset("ugaritic-transliteration")
    known_t = display_tables.preset("hebrew-transliteration")
    assert {f["Form"] for f in forms} == {lost_t.show_text(best.span), known_t.show_form(best.best.form)}
    assert {f["Value"] for f in forms} == {best.span, best.best.form}
    assert len(list(ds["CognateTable"])) == 2
    tsv = tmp_path / "edictor.tsv"
    assert window.acts.write_edictor(tsv) == 1
    assert f"(run {run.id})" in window.statusBar().currentMessage()  # the run exported is said
    lines = tsv.read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t")[:6] == ["ID", "DOCULECT", "CONCEPT", "FORM", "VALUE", "TOKENS"]
    cogid = lines[0].split("\t").index("COGID")
    assert len(lines) == 3 and lines[1].split("\t")[cogid] == lines[2].split("\t")[cogid] == "1"
    # the alignment the hover shows, in both rows (the export of issue 51, item 4)
    aligned = [line.split("\t")[lines[0].split("\t").index("ALIGNMENT")] for line in lines[1:]]
    assert all(aligned) and len(set(len(a.split()) for a in aligned)) == 1

    # File ▸ New, through the action and the real dialog, with the Ugaritic preset
    new_path = tmp_path / "empty"
    _accept_dialog(monkeypatch, dialogs.NewProjectDialog, lambda d: (
        d.path_edit.setText(str(new_path)), d.preset_box.setCurrentIndex(d.preset_box.findData("ugaritic"))))
    window.acts.new.trigger()
    assert window.project.path.name == "empty.decipher"
    m = window.matches
    assert m.model.rowCount() == 0 and m.caption.text() == "No run shown"
    assert not m.accept_button.isEnabled() and not m.reject_button.isEnabled()
    assert window.runs.progress.format() == "no run yet" and window.runs.history.rowCount() == 0
    assert window.inscriptions.view.model().rowCount() == 0
    assert "No corpus" in window.inscriptions.caption.text()
    assert window.languages.model.rowCount() == 0 and window.languages.items.count() == 0
    assert window.runs.language.count() == 0 and window.runs.corpus.count() == 0
    assert window.pins.grid.model().rowCount() == 0 and window.signs.table.rowCount() == 0
    assert window.inscriptions.view.model().marks == {}
    assert window.state.shown_run is None and window.state.decisions == {}
    # the preset chosen at creation is the project's run settings
    assert window.runs.form.config().min_span == 3 and window.runs.form.config().segmented
    from engine.datasets.sample import RUN_CONFIG_KEY

    assert window.project.setting(RUN_CONFIG_KEY)["min_span"] == 3
    # exporting now says there is no run, and nothing stale is on screen to suggest otherwise
    window.acts.write_matches(tmp_path / "none.csv")
    assert window.last_error is not None


def test_sign_values_from_the_cli(window, qtbot, tmp_path):
    run = _run_to_end(window, qtbot)
    path = window.project.path
    from engine.cli.main import main

    out = tmp_path / "cli-signs.csv"
    assert main(["project", "export", str(path), "--sign-values", str(out), "--run", str(run.id)]) == 0
    with open(out, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and {r["run_id"] for r in rows} == {str(run.id)}
    assert all(0 <= float(r["share"]) <= 1 for r in rows if r["share"])


# ---- 1: switching runs switches the known language and its stems ----------------------------

def test_choosing_a_run_switches_corpus_language_and_stems(window, tmp_path):
    project = window.project
    known = tmp_path / "other.csv"
    known.write_text("form,ipa,gloss\nbt,bt,house\nmlk,mlk,king\n", encoding="utf-8")
    assert window.acts.import_file("known", known, name="Other")
    other = project.language_id("Other")
    sample_language = project.languages()[0].id
    corpus = project.corpora()[0].id
    first = project.start_run(Config(steps=1).to_dict(), corpus, sample_language, status="imported")
    second = project.start_run(Config(steps=1).to_dict(), corpus, other, status="imported")
    window.refresh_runs()
    window.runs.history.selectRow(window.runs._run_ids.index(second))
    assert window.state.language_id == other
    assert window.languages.current_id() == other and window.runs.language.currentData() == other
    assert window.languages.model.rowCount() == 2
    window.runs.history.selectRow(window.runs._run_ids.index(first))
    assert window.state.language_id == sample_language
    assert window.runs.language.currentData() == sample_language
    assert window.languages.model.rowCount() == len(project.stems(sample_language))


# ---- 2: display tables ---------------------------------------------------------------------------

def _box_text(window, unit):
    return window.inscriptions.view.display.show(unit)


def test_display_table_changes_the_inscription_view_pin_grid_and_undoes(window, monkeypatch):
    assert window.set_display_table(display_tables.IDENTITY)  # the sample opens in transliteration
    view = window.inscriptions.view
    grid = window.pins.grid.model()
    row = grid.rows.index("$")
    assert grid.headerData(row, Qt.Orientation.Vertical) == "$"
    ins = next(i for i in view.model().inscriptions if "$" in i.units)
    width = view.viewport().width()
    before = view._delegate.layout(ins, width).boxes

    _accept_dialog(monkeypatch, dialogs.DisplayTableDialog, lambda d: d.preset_box.setCurrentIndex(
        d.preset_box.findData("ugaritic-transliteration")))
    window.acts.display.trigger()
    assert grid.headerData(row, Qt.Orientation.Vertical) == "š"
    assert grid.headerData(grid.rows.index("<"), Qt.Orientation.Vertical) == "ʿ"
    assert _box_text(window, "$") == "š" and _box_text(window, "@") == "ġ"
    corpus_row = next(r for r in range(window.corpora.model.rowCount())
                      if window.corpora.model.item(r, 0).text() == ins.id)
    assert window.corpora.model.item(corpus_row, 2).text() == display_tables.UGARITIC_TRANSLITERATION["$"].join(
        "".join(display_tables.UGARITIC_TRANSLITERATION.get(u, u) for u in part) for part in ins.text.split("$"))
    assert view._delegate.layout(ins, width).boxes != before, "the letters are measured as shown"
    stored = window.project.setting(display_tables.setting_key(window.state.corpus_id))
    assert stored["name"] == "ugaritic-transliteration"

    # the script preset: the bundled Noto Sans Ugaritic draws every letter
    assert window.set_display_table(display_tables.preset("ugaritic-script"))
    assert _box_text(window, "$") == "\U0001038C"
    font = text_font(15)
    font.setFamilies(["Noto Sans Ugaritic"])
    assert missing_glyphs(font, "".join(display_tables.UGARITIC_SCRIPT.values())) == []
    assert not view.rtl

    window.acts.undo.trigger()
    window.acts.undo.trigger()
    assert grid.headerData(row, Qt.Orientation.Vertical) == "$" and _box_text(window, "$") == "$"


@pytest.mark.parametrize("family", sorted(SCRIPT_SAMPLES))
def test_bundled_script_fonts_draw_their_letters(app, family):
    font = text_font(14)
    font.setFamilies([family])
    assert missing_glyphs(font, SCRIPT_SAMPLES[family]) == []


def test_matches_and_explanations_show_the_display_table(window, qtbot):
    span = "$pt"
    match = Match("x", 0, 3, span, (Alternative(1, "$pT", "ʃpt", -1.0, "judge"),), confidence=0.9)
    window.set_display_table(display_tables.preset("ugaritic-transliteration"))
    window.matches.set_matches([match], {}, {}, "test")
    model = window.matches.model
    assert model.data(model.index(0, 1)) == "špt"
    tip = window.selection.explain(SpanMark(match, None, None), brief=True)
    assert "špt" in tip


# ---- 2: a right-to-left corpus --------------------------------------------------------------------

def test_rtl_corpus_lays_out_right_to_left_with_spans_in_place(window, qtbot, tmp_path):
    lost = tmp_path / "hebrew.csv"
    lost.write_text("id,text\nh1,מלך בית\nh2,שלום\n", encoding="utf-8")
    assert window.acts.import_file("lost", lost, name="Hebrew")
    window.corpora.items.setCurrentRow(window.corpora.items.count() - 1)
    view = window.inscriptions.view
    assert view.rtl, "a Hebrew corpus is detected as right to left"
    ins = view.model().inscriptions[0]
    layout = view._delegate.layout(ins, view.viewport().width())
    boxes = layout.boxes
    assert [round(b.left()) for b in boxes] == sorted((round(b.left()) for b in boxes), reverse=True), \
        "unit 0 on the right, each next unit to its left"
    assert boxes[0].right() > view.viewport().width() - 40
    # a span over the second word (units 4..7) is highlighted over exactly those letters
    match = Match("h1", 4, 7, "בית", (Alternative(1, "byt", "bajt", -1.0, "house"),), confidence=0.8)
    view.model().set_marks({"h1": [SpanMark(match, None, None)]})
    rects = view._delegate._span_rects(layout, 4, 7)
    assert len(rects) == 1
    assert rects[0].left() == pytest.approx(boxes[6].left()) and rects[0].right() == pytest.approx(boxes[4].right())
    origin = view.visualRect(view.model().index(0)).topLeft()
    inside = (boxes[5].center() + origin.toPointF()).toPoint()
    outside = (boxes[1].center() + origin.toPointF()).toPoint()
    assert view.mark_at(inside).match == match
    assert view.mark_at(outside) is None
    # Left moves forward in reading order in a right-to-left text
    view.setCurrentIndex(view.model().index(0))
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Left)
    assert view.selected_span == ("h1", 4, 7)


# ---- 4: the import dialog --------------------------------------------------------------------------

def test_semicolon_latin1_import_through_the_dialog(window, tmp_path, monkeypatch):
    path = tmp_path / "inschriften.csv"
    path.write_bytes("Nummer;Lesung;Fundort\nK1;canción;Málaga\nK2;niño;Cádiz\n".encode("latin-1"))
    seen = {}

    def fill(d):
        d.path.setText(str(path))
        d.name.setText("Inschriften")
        seen["detected"] = d.detected.text()
        seen["header"] = d.last_preview.header
        d.column_boxes["id"].setCurrentIndex(d.column_boxes["id"].findData("Nummer"))
        d.column_boxes["text"].setCurrentIndex(d.column_boxes["text"].findData("Lesung"))
        seen["problems"] = list(d.last_preview.problems)
        seen["preview"] = [d.preview.item(r, 1).text() for r in range(d.preview.rowCount())]

    _accept_dialog(monkeypatch, dialogs.ImportDialog, fill)
    window.acts.import_dialog("lost")
    assert "semicolon" in seen["detected"] and ("Latin-1" in seen["detected"] or "Windows-1252" in seen["detected"])
    assert list(seen["header"]) == ["Nummer", "Lesung", "Fundort"]
    assert seen["preview"] == ["canción", "niño"] and seen["problems"] == []
    cid = window.project.corpus_id("Inschriften")
    assert [i.text for i in window.project.inscriptions(cid)] == ["canción", "niño"]


def test_import_dialog_marks_problems_and_names_the_word(window, tmp_path, monkeypatch):
    path = tmp_path / "bad.csv"
    path.write_bytes("id;text\nA1;\nA2;canci\xf3n\n".encode("latin-1"))
    seen = {}

    def fill(d):
        d.path.setText(str(path))
        d.encoding.setCurrentIndex(d.encoding.findData("utf-8-sig"))
        seen["problems"] = dict(d.last_preview.problems)  # line → the reader's problem
        seen["text"] = d.problems.text()
        seen["cell"] = d.preview.item(0, 1).text()
        seen["rows"] = [d.preview.verticalHeaderItem(r).text() for r in range(d.preview.rowCount())]
        seen["import"] = d.import_button.isEnabled()

    _accept_dialog(monkeypatch, dialogs.ImportDialog, fill)
    corpora = len(window.project.corpora())
    window.acts.import_dialog("lost")
    assert seen["problems"][2] == "inscription 'A1' has no text"
    assert "not valid UTF-8" in seen["problems"][3] and seen["cell"].startswith("⚠")
    assert "canci\\xf3n" in seen["text"] and "as Latin-1 it reads 'canción'" in seen["text"]
    # Import stays disabled while the preview shows a problem: nothing was imported
    assert seen["import"] is False and len(window.project.corpora()) == corpora
    # the preview and the importer's error name the same line of the file
    assert seen["rows"] == ["line 2", "line 3"]
    assert "line 2: inscription 'A1' has no text" in seen["text"]
    assert "line 3: not valid UTF-8 in 'canci\\xf3n'" in seen["text"]
    assert not window.acts.import_file("lost", path, encoding="utf-8-sig", delimiter=";")
    title, message = window.last_error
    assert title == "Import failed: problem in the input"
    assert "canci\\xf3n" in message and "Line: 3" in message and "offset" not in message


# ---- 5: presets ------------------------------------------------------------------------------------

def test_run_panel_preset_and_short_word_warning(window):
    runs = window.runs
    runs.preset.setCurrentIndex(runs.preset.findData("paper"))
    runs.preset.activated.emit(runs.preset.currentIndex())
    assert runs.form.config().min_span == 4
    note = runs.span_note.text()
    assert "shorter than the shortest span (4 letters)" in note
    short = int(note.split(" of ")[0].split()[-1])
    assert short > 0
    runs.preset.setCurrentIndex(runs.preset.findData("ugaritic"))
    runs.preset.activated.emit(runs.preset.currentIndex())
    assert runs.form.config().min_span == 3
    note = runs.span_note.text()  # no written word of the sample is shorter than 3 letters
    assert note == "Every written word (160) is at least as long as the shortest span (3 letters).", note
    # every preset's tooltip names the gold its values were fitted on (the Linear B one: in-sample)
    tips = {runs.preset.itemData(i): runs.preset.itemData(i, Qt.ItemDataRole.ToolTipRole)
            for i in range(1, runs.preset.count())}
    assert all("Fitted on:" in tip for tip in tips.values()), tips
    assert "Linear B–Greek cognates' gold" in tips["linear-b"] and "in-sample" in tips["linear-b"]
    # the generic syllabary preset (issue 49) is offered, fills syllable signs without whole words, and
    # says which of its values came from the Linear B gold
    assert "dev ciphers" in tips["syllabary"] and "Linear B gold" in tips["syllabary"]
    runs.preset.setCurrentIndex(runs.preset.findData("syllabary"))
    runs.preset.activated.emit(runs.preset.currentIndex())
    config = runs.form.config()
    assert (config.signs, config.segmented, config.vowel_slot, config.min_span) == ("syllables", False, "joint", 2)
    assert runs.span_note.text().endswith("the shortest span (2 signs)."), "a syllabary's spans count signs"


# ---- 7: small things -------------------------------------------------------------------------------

def test_redo_answers_ctrl_shift_z_and_gloss_is_on_screen(window):
    keys = [k.toString() for k in window.acts.redo.shortcuts()]
    assert QKeySequence("Ctrl+Shift+Z").toString() in keys
    from decipher_gui.panels.matches import MATCH_COLUMNS

    assert MATCH_COLUMNS.index("gloss") < MATCH_COLUMNS.index("decision")


def test_filtering_matches_uses_the_top_stem_unless_asked(window):
    a = Match("i1", 0, 3, "abc", (Alternative(1, "top", "tɔp", -1.0), Alternative(2, "other", "ɔðər", -2.0)),
              confidence=0.9)
    window.matches.set_matches([a], {}, {}, "test")
    m = window.matches
    m.search.setText("other")
    assert m.proxy.rowCount() == 0, "any column looks at the best stem only"
    m.where.setCurrentIndex(m.where.findData("alternatives"))
    assert m.proxy.rowCount() == 1
    m.search.setText("top")
    m.where.setCurrentIndex(m.where.findData("stem"))
    assert m.proxy.rowCount() == 1


def test_closeness_curves_of_one_language_share_its_colour_and_differ_in_dash(window):
    plots = window.plots
    plots.set_current_closeness([(0.1, 0.5), (0.5, 0.2)], "run 1 · Hebrew (sample)")
    plots.set_other_closeness({"run 2 · Other": [(0.1, 0.4)], "run 3 · Hebrew (sample)": [(0.1, 0.3)]})
    curves = plots.closeness.curves
    current, same, other = (curves["▶ run 1 · Hebrew (sample)"], curves["run 3 · Hebrew (sample)"],
                            curves["run 2 · Other"])
    colour = lambda c: c.opts["pen"].color().name()  # noqa: E731
    style = lambda c: c.opts["pen"].style()  # noqa: E731
    assert colour(current) == colour(same) != colour(other)
    assert style(current) != style(same)
