"""Edits through the window: imports (good, bad, undone), pins from the IPA picker, errors from a
failing run, the run-settings form, and the Qt-free command objects underneath."""

from __future__ import annotations

import threading
from functools import partial

import pytest
from PySide6.QtWidgets import QMessageBox

from decipher_gui import commands
from decipher_gui.panels.pins import IpaPicker
from engine.corpus import PinnedValue
from engine.project.store import Project

from .conftest import DATA, RUN_TIMEOUT_MS
from .fake_runs import fake_trainer
from .test_driver import FakeTrainer


def _error_boxes(window):
    return [b for b in window.findChildren(QMessageBox) if b.objectName() == "errorBox" and b.isVisible()]


def test_bad_import_shows_file_and_line_and_changes_nothing(window):
    project = window.project
    before = (project.languages(), project.corpora())
    assert not window.acts.import_file("known", DATA / "bad_known_ipa.csv")
    title, message = window.last_error
    assert "bad_known_ipa.csv" in message and "Line: 3" in message and "z1z" in message
    assert _error_boxes(window), "the error is shown in a message box"
    assert (project.languages(), project.corpora()) == before
    assert not window.doc.undo_stack.canUndo()

    assert not window.acts.import_file("lost", DATA / "bad_truncated.csv")
    assert "bad_truncated.csv" in window.last_error[1]
    assert window.acts.import_file("lost", DATA / "does-not-exist.csv") is False
    assert window.isVisible()


def test_import_is_undoable(window):
    project = window.project
    n = len(project.corpora())
    assert window.acts.import_file("lost", DATA / "new_corpus.csv", name="New inscriptions")
    assert [c.name for c in project.corpora()][-1] == "New inscriptions"
    assert window.runs.corpus.count() == n + 1
    window.acts.undo.trigger()
    assert len(project.corpora()) == n
    window.acts.redo.trigger()
    assert [c.name for c in project.corpora()][-1] == "New inscriptions"

    assert window.acts.import_file("prior", DATA / "prior.csv")
    assert {(p.lost, p.known_ipa) for p in project.pins()} == {("l", "l"), ("m", "m")}
    window.acts.undo.trigger()
    assert project.pins() == []


def test_ipa_picker_filters_by_features_and_pins(window, qtbot):
    picker = IpaPicker(["l", "H", "<"], window, lost="H")
    qtbot.addWidget(picker)
    picker.filters["ptype"].setCurrentIndex(picker.filters["ptype"].findData("consonant"))
    place = picker.filters["c_place"]
    place.setCurrentIndex(place.findData("pharyngeal"))
    shown = {picker.listing.item(i).text() for i in range(picker.listing.count())}
    assert {"ħ", "ʕ"} <= shown and "a" not in shown
    picker.ipa.setText("ħ")
    value = picker.value()
    assert value == PinnedValue("H", "ħ", 1.0, True, "")
    window.pins.pinRequested.emit(value)
    assert window.project.pins() == [value]
    model = window.pins.grid.model()
    assert "ħ" in model.cols and "H" in model.rows
    window.acts.undo.trigger()
    assert window.project.pins() == []


def test_run_failure_is_reported_and_recorded(window, qtbot, monkeypatch):
    from decipher_gui import worker

    monkeypatch.setattr(worker, "child_build", partial(fake_trainer, steps=5, fail_at=2))  # built in the run's process
    with qtbot.waitSignal(window.runEnded, timeout=RUN_TIMEOUT_MS) as ended:
        assert window.start_run()
    assert ended.args == ["failed"]
    assert window.last_error[0] == "The training diverged"
    assert _error_boxes(window)
    run = window.project.runs()[-1]
    assert run.status == "failed" and "diverged" in run.error
    assert window.runs.start_button.isEnabled()


def test_invalid_settings_do_not_start_a_run(window):
    window.runs.form.editors["min_span"][0].setValue(9)
    window.runs.form.editors["max_span"][0].setValue(3)
    assert not window.start_run()
    assert "min_span" in window.last_error[1]
    assert window.project.runs() == []


def test_uncaught_exceptions_are_shown_not_fatal(window):
    from decipher_gui.app import install_exception_hook

    hook = install_exception_hook(window)
    try:
        try:
            raise ValueError("boom")
        except ValueError as e:
            hook(type(e), e, e.__traceback__)
    finally:
        hook.uninstall()
    assert window.last_error == ("Unexpected error", "ValueError: boom")


def test_run_settings_default_to_the_project_and_save_undoably(window):
    form = window.runs.form
    assert form.values()["feature_dim"] == 35 and form.values()["segmented"] is True
    form.editors["steps"][0].setValue(123)
    window.run_form.save_defaults()
    from engine.datasets.sample import RUN_CONFIG_KEY

    assert window.project.setting(RUN_CONFIG_KEY)["steps"] == 123
    window.acts.undo.trigger()
    assert window.project.setting(RUN_CONFIG_KEY)["steps"] == 400
    assert form.values()["steps"] == 400
    assert not form.advanced.content.isVisible()
    form.advanced.button.click()
    assert form.advanced.content.isVisible()


# ---- the command objects without Qt ------------------------------------------------------------


@pytest.fixture
def project(sample_path):
    p = Project.open(sample_path)
    yield p
    p.close()


def test_pin_commands_do_and_undo(project):
    cmd = commands.toggle_pin(project, "l", "l")
    cmd.do(project)
    assert project.pins() == [PinnedValue("l", "l")]
    change = commands.set_pin_command(project, PinnedValue("l", "l", 3.0, False, "soft"))
    change.do(project)
    assert project.pins()[0].weight == 3.0
    change.undo(project)
    assert project.pins() == [PinnedValue("l", "l")]
    unpin = commands.toggle_pin(project, "l", "l")
    assert isinstance(unpin, commands.RemovePin)
    unpin.do(project)
    assert project.pins() == []
    unpin.undo(project)
    cmd.undo(project)
    assert project.pins() == []


def test_deciding_a_span_keeps_one_accepted_stem(project):
    from engine.results import Alternative, Match

    corpus = project.corpora()[0].id
    run = project.start_run({}, corpus, project.languages()[0].id)
    m = Match("uga-no_spe:85", 0, 4, "laxn", (Alternative(1, "a", "a", -1.0), Alternative(2, "b", "b", -2.0)))
    project.record_matches(run, [m])
    key_a, key_b = ("uga-no_spe:85", 0, 4, "a"), ("uga-no_spe:85", 0, 4, "b")
    first = commands.DecideSpan.build(project, run, key_a, "accepted")
    first.do(project)
    second = commands.DecideSpan.build(project, run, key_b, "accepted")
    second.do(project)
    assert project.decisions(run) == {key_b: "accepted"}
    second.undo(project)
    assert project.decisions(run) == {key_a: "accepted"}
    first.undo(project)
    assert project.decisions(run) == {}


def test_recorder_writes_a_run_from_the_worker_thread(sample_path):
    """The driver records a (fake) run through the recorder's own connection, on its thread."""
    from decipher_gui.driver import RunDriver
    from engine.config import Config
    from engine.project.recording import RunRecorder, mapping_of
    from engine.runs.session import RunSession

    with Project.open(sample_path) as project:
        corpus, language = project.corpora()[0].id, project.languages()[0].id
    rec = RunRecorder(sample_path, corpus_id=corpus, language_id=language, critical=False)
    trainer = FakeTrainer(steps=5, eval_every=0)
    trainer.config = Config(steps=5)
    session = RunSession(None, sinks=[rec], build=lambda inputs, **kw: trainer)
    driver = RunDriver(session, min_interval=0)
    events = []
    t = threading.Thread(target=driver.run, args=(lambda k, p: events.append((k, p)),))
    t.start()
    t.join(30)
    assert events[0] == ("started", ("cpu", rec.run_id)) and rec.project.closed
    with Project.open(sample_path) as project:
        run = project.run(rec.run_id)
        assert run.status == "completed" and run.device == "cpu" and run.last_step == 5
        losses = project.metrics(run.id, "loss/total")  # written every few seconds and at the end
        assert losses[0] == (1, "loss/total", 1.0) and losses[-1] == (5, "loss/total", 0.2)
        assert project.metrics(run.id, "p_at_1") == [(5, "p_at_1", 0.6)]
        assert mapping_of(project, run.id) is None  # the fake evaluation carries no mapping


def test_closing_the_window_mid_run_records_it_as_stopped(window, qtbot, monkeypatch, sample_path):
    from decipher_gui import worker

    monkeypatch.setattr(worker, "child_build", partial(fake_trainer, steps=100_000, eval_every=0, step_sleep=0.005))
    with qtbot.waitSignal(window.controller.stepsArrived, timeout=RUN_TIMEOUT_MS):
        assert window.start_run()
    window.close()
    assert not window.controller.active or window.controller.wait(120_000)
    with Project.open(sample_path) as project:
        run = project.runs()[-1]
        assert run.status == "stopped" and 0 < run.last_step < 100_000
