"""Issue 27, item 2: no silent mapping in imports. A required column the file does not name stays
unset until the user chooses it, Import is disabled while a column is unset or the preview shows
a problem, the preview and the importers' errors name the same line of the file, and the plain
text, Hesperia and word-list dialogs offer an encoding with a preview; no message tells the user
to pass a command-line flag."""

from __future__ import annotations

import codecs

from pathlib import Path

from PySide6.QtWidgets import QDialog

from decipher_gui import dialogs
from decipher_gui.errors import app_words, describe
from decipher_gui.importers import BY_KEY
from engine.errors import InputError


def _dialog(window, kind: str, path: Path) -> dialogs.ImportDialog:
    d = dialogs.ImportDialog(BY_KEY[kind], [(c.id, c.name) for c in window.project.corpora()], "", window)
    d.path.setText(str(path))
    return d


def _import_with(window, monkeypatch, fill) -> None:
    """File ▸ Import through the real dialog: ``fill`` sets its widgets, then OK is pressed (a
    dialog that refuses OK stays rejected)."""
    def exec_(self):
        fill(self)
        self.setResult(QDialog.DialogCode.Rejected.value)
        self.accept()
        return QDialog.DialogCode(self.result())
    monkeypatch.setattr(dialogs.ImportDialog, "exec", exec_)


def test_a_missing_required_column_is_never_guessed(window, qtbot, tmp_path, monkeypatch):
    path = tmp_path / "readings.csv"
    path.write_text("id,transliteration\nKT 1.1,bnšm\nKT 1.2,ảlpm\n", encoding="utf-8")
    d = _dialog(window, "lost", path)
    qtbot.addWidget(d)
    assert d.column_boxes["id"].currentData() == "id"
    text = d.column_boxes["text"]
    assert text.currentData() == "" and text.currentText() == "(choose a column)", "not 'id' by accident"
    assert d.unset_columns() == ["text"]
    assert not d.import_button.isEnabled()
    assert "“text”: the file has no column named 'text'" in d.problems.text()
    d.accept()  # Enter on the dialog: refused as well
    assert d.result() != QDialog.DialogCode.Accepted.value

    # through File ▸ Import: nothing is imported until the column is chosen
    corpora = len(window.project.corpora())
    _import_with(window, monkeypatch, lambda dlg: dlg.path.setText(str(path)))
    window.acts.import_dialog("lost")
    assert len(window.project.corpora()) == corpora

    def choose(dlg):
        dlg.path.setText(str(path))
        dlg.name.setText("readings")
        box = dlg.column_boxes["text"]
        box.setCurrentIndex(box.findData("transliteration"))
        assert dlg.import_button.isEnabled() and dlg.problems.text() == ""

    _import_with(window, monkeypatch, choose)
    window.acts.import_dialog("lost")
    cid = window.project.corpus_id("readings")
    assert [(i.id, i.text) for i in window.project.inscriptions(cid)] == [("KT 1.1", "bnšm"), ("KT 1.2", "ảlpm")]


def test_a_problem_in_the_preview_disables_import_until_it_is_gone(window, qtbot, tmp_path):
    path = tmp_path / "lost.csv"
    path.write_text("id,text\nA1,abc\nA2,\n", encoding="utf-8")
    d = _dialog(window, "lost", path)
    qtbot.addWidget(d)
    assert not d.import_button.isEnabled()
    assert [d.preview.verticalHeaderItem(r).text() for r in range(d.preview.rowCount())] == ["line 2", "line 3"]
    assert d.problems.text() == "line 3: inscription 'A2' has no text"  # the reader's own words
    # the importer names the same line
    assert not window.acts.import_file("lost", path, encoding="auto", delimiter=",")
    assert "Line: 3" in window.last_error[1]
    path.write_text("id,text\nA1,abc\nA2,def\n", encoding="utf-8")
    d.encoding.setCurrentIndex(d.encoding.findData("utf-8-sig"))  # re-read
    assert d.import_button.isEnabled() and d.last_preview.ok


def test_plain_text_and_hesperia_dialogs_offer_encoding_and_preview(window, qtbot, tmp_path):
    text = tmp_path / "inscriptions.txt"
    text.write_bytes("canción\n\nniño\n".encode("latin-1"))
    d = _dialog(window, "text", text)
    qtbot.addWidget(d)
    assert d.encoding.isVisibleTo(d) and d.preview.isVisibleTo(d)
    assert "Latin-1" in d.detected.text(), "not UTF-8: read as the encoding the reader suggests, and said"
    assert [d.preview.item(r, 0).text() for r in range(d.preview.rowCount())] == ["canción", "niño"]
    assert [d.preview.verticalHeaderItem(r).text() for r in range(d.preview.rowCount())] == ["line 1", "line 3"]
    assert d.import_button.isEnabled()
    assert codecs.lookup(d.options()["encoding"]).name == codecs.lookup("latin-1").name, \
        "Detect reads what the preview showed"
    d.encoding.setCurrentIndex(d.encoding.findData("utf-8-sig"))
    assert not d.import_button.isEnabled() and "not valid UTF-8" in d.problems.text()
    d.encoding.setCurrentIndex(d.encoding.findData("auto"))
    assert window.acts.import_file("text", text, name="plain", **{k: v for k, v in d.options().items() if k != "name"})
    cid = window.project.corpus_id("plain")
    assert [i.text for i in window.project.inscriptions(cid)] == ["canción", "niño"]

    hesperia = Path(__file__).resolve().parents[1] / "data" / "hesperia"
    sample = sorted(p for p in hesperia.iterdir() if p.suffix.lower() == ".csv")[0]
    h = _dialog(window, "hesperia", sample)
    qtbot.addWidget(h)
    assert h.encoding.isVisibleTo(h) and h.preview.rowCount() > 0
    assert h.detected.text().startswith("Reading as")


def test_no_message_asks_for_a_command_line_flag():
    exc = InputError("not valid UTF-8 in 'canci\\xf3n' (column 4; as Windows-1252 it reads 'canción'); save the "
                     "file as UTF-8, or read it as Windows-1252 (--encoding cp1252)", path="a.txt", line=3)
    title, message = describe(exc)
    assert "--" not in message and "choose Windows-1252 under Encoding" in message and "Line: 3" in message
    assert app_words("choose the file's encoding (--encoding)") == \
        "choose the file's encoding (choose it under Encoding when you import)"


def test_a_utf8_file_read_as_latin1_is_called_utf8_and_the_dialog_names_its_own_control(window, qtbot, tmp_path):
    """Issue 51, item 7: a UTF-8 file of Semitic transliteration read as Latin-1 was "maybe
    Windows-1252 (--encoding cp1252)" in the dialog."""
    path = tmp_path / "ugaritic.csv"
    path.write_text("id,text\nKTU 1.1,šlmḥṭṣdq\n", encoding="utf-8")
    d = _dialog(window, "lost", path)
    qtbot.addWidget(d)
    d.encoding.setCurrentIndex(d.encoding.findData("latin-1"))
    text = d.problems.text()
    assert "U+00AD" in text, text   # ṭ is E1 B9 AD in UTF-8: a soft hyphen in Latin-1
    assert "Windows-1252" not in text and "--" not in text
    assert "the file is UTF-8" in text and "choose UTF-8 under Encoding above" in text
    assert not d.import_button.isEnabled()
    # the same bytes that Windows-1252 reads (a curly quote) still get the Windows-1252 hint
    path.write_bytes("id,text\nA1,\u201cabc\u201d\n".encode("cp1252"))
    d.encoding.setCurrentIndex(d.encoding.findData("utf-8-sig"))
    d.encoding.setCurrentIndex(d.encoding.findData("latin-1"))
    text = d.problems.text()
    assert "may be Windows-1252" in text and "choose Windows-1252 under Encoding above" in text and "--" not in text
