"""Issue 51, item 1 in the app: File ▸ Import of a lost text with letters written with a dot below
asks what the dot is (letters of their own, or Leiden's uncertain readings) and imports nothing
until it is answered; the answer is the engine's ``dotted`` (the command line's ``--dotted``)."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox


def _box(window):
    return window.findChild(QMessageBox, "dottedLettersBox")


def _click(box, starts: str) -> None:
    button = next(b for b in box.buttons() if b.text().startswith(starts))
    button.click()


def test_import_asks_what_the_dot_is_and_imports_with_the_answer(window, qtbot, tmp_path):
    src = tmp_path / "uga.csv"
    src.write_text("id,text\nA,šlmḥṭṣdq\nB,ḥṭb\n", encoding="utf-8")
    before = [c.id for c in window.project.corpora()]
    assert window.acts.import_file("lost", src, name="uga") is False
    box = _box(window)
    assert box is not None and box.isVisible()
    assert "ḥ ṭ ṣ" in box.text() and "uga.csv, line 2" in box.informativeText()
    assert "--dotted" not in box.informativeText()       # the app's own words, not a flag
    assert [c.id for c in window.project.corpora()] == before   # nothing imported while it asks
    _click(box, "Letters of their own")
    added = [c for c in window.project.corpora() if c.id not in before]
    assert len(added) == 1
    assert window.project.inscriptions(added[0].id)[0].text == "šlmḥṭṣdq"


def test_the_uncertain_answer_and_cancel(window, qtbot, tmp_path):
    src = tmp_path / "uga.txt"
    src.write_text("šlmḥṭṣdq\n", encoding="utf-8")
    before = [c.id for c in window.project.corpora()]
    window.acts.import_file("text", src, name="cancelled")
    box = _box(window)
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert [c.id for c in window.project.corpora()] == before
    box.deleteLater()
    qtbot.wait(10)
    window.acts.import_file("text", src, name="uncertain")
    box = next(b for b in window.findChildren(QMessageBox, "dottedLettersBox") if b.isVisible())
    _click(box, "Uncertain readings (h t s)")
    added = [c for c in window.project.corpora() if c.id not in before]
    assert [window.project.inscriptions(c.id)[0].text for c in added] == ["šlmhtsdq"]


def test_the_import_preview_marks_no_row_for_a_dot_below(tmp_path):
    from engine.io.preview import preview_file

    for name, text, kind in (("uga.txt", "šlmḥṭṣdq\n", "text"), ("uga.csv", "id,text\nA,šlmḥṭṣdq\n", "lost")):
        src = tmp_path / name
        src.write_text(text, encoding="utf-8")
        assert preview_file(src, kind).ok, kind
