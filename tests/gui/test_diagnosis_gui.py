"""The Runs panel shows the shown run's gold-free diagnosis (issue 30, item 3) in plain words: a
flagged run framed with what to try, a run without a diagnosis (an older project) as "no
diagnosis", and a long diagnosis never widens the window."""

from __future__ import annotations

from engine.training.diagnosis import Diagnosis, Finding

FLAGGED = Diagnosis([Finding("class", "3 letters read against how they pattern in the text (a → w, e → k, "
                             "o → t; the vowels by their contexts: a e i o u); try more seeds or restarts, "
                             "or pin a vowel " + "and read the consensus of the seeds " * 8,
                             ("a", "e", "o"))], {"diagnosis_class_mismatch": 3.0})


def _newest_finished(window) -> int:
    """A finished run recorded as an older program did: without a diagnosis."""
    from engine.config import Config

    p = window.project
    run_id = p.start_run(Config(steps=5), p.corpora()[0].id, p.languages()[0].id, device="cpu")
    p.finish_run(run_id, "completed")
    window.refresh_runs()
    return run_id


def test_a_flagged_run_shows_its_diagnosis_in_plain_words_without_widening_the_window(window, qtbot):
    run_id = _newest_finished(window)
    window.show_run(run_id)
    note = window.runs.diagnosis_note
    # the sample's runs were recorded without a diagnosis (as by an older program)
    assert not note.isHidden() and note.text() == f"Run {run_id}: No diagnosis."
    width = window.width()
    window.project.record_diagnosis(run_id, -1.5, FLAGGED.to_json())
    window.show_run(run_id)
    qtbot.wait(20)
    text = note.text()
    assert text.startswith(f"\u26a0 Run {run_id}: This reading may be a local optimum: 3 letters read against")
    assert "try more seeds or restarts, or pin a vowel" in text
    assert "border" in note.styleSheet() and not note.isHidden()
    assert window.width() == width and note.width() <= window.width()
    # the history row's tooltip says it too
    row = window.runs._run_ids.index(run_id)
    assert "diagnosis: this reading may be a local optimum" in window.runs.history.item(row, 0).toolTip()
    # a run that is not flagged: plain, unframed
    window.project.record_diagnosis(run_id, -1.5, Diagnosis(values={"diagnosis_class_mismatch": 0.0}).to_json())
    window.show_run(run_id)
    assert note.text().startswith(f"Run {run_id}: Checked without the gold — whether each letter is read as a vowel")
    assert "does not say the reading is right" in note.text() and note.styleSheet() == ""


def test_a_run_from_the_app_stores_its_diagnosis_and_the_panel_shows_it(window, qtbot):
    from .conftest import RUN_TIMEOUT_MS, small_config

    with qtbot.waitSignal(window.runEnded, timeout=RUN_TIMEOUT_MS) as ended:
        assert window.start_run(small_config(window))
    assert ended.args == ["completed"]
    run = window.project.runs()[-1]
    stored = window.project.diagnosis(run.id)
    assert stored is not None and stored[0] is not None, "the app's run is diagnosed in its process"
    window.show_run(run.id)
    text = window.runs.diagnosis_note.text()
    assert text.startswith(("\u26a0 " if stored[1]["flagged"] else "") + f"Run {run.id}: ")
    assert "No diagnosis" not in text


def test_the_letters_a_finding_names_are_shown_as_the_corpus_display_table_writes_them(window, qtbot):
    from engine.training.diagnosis import class_finding_of

    run_id = _newest_finished(window)
    window.show_run(run_id)
    shown = window.model.display.show
    assert shown("T") != "T" and shown("a") != "a", "the sample opens in the scholarly transliteration"
    # T (a consonant letter by its contexts) read as a vowel, a (a vowel letter) read as a consonant
    finding, values = class_finding_of({"T": "a", "a": "ʔ", "k": "k"}, ["a", "i", "u"], {"T": 0.2, "a": 0.5, "k": 0.3})
    window.project.record_diagnosis(run_id, -1.5, Diagnosis([finding], values).to_json())
    window.show_run(run_id)
    text = window.runs.diagnosis_note.text()
    assert f"({shown('T')} → a, {shown('a')} → ʔ;" in text
    assert f"contexts: {shown('a')} {shown('i')} {shown('u')})" in text
    assert "(T → a" not in text
