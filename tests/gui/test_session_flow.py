"""One run session under the app and the command line: a run started in the app resumes from the
CLI, a pin change sent to a paused run is recorded with its step, and the app explains the spans
of a run made on the command line."""

from __future__ import annotations

from functools import partial

import pytest

from engine.config import Config
from engine.corpus import PinnedValue
from engine.project import pin_history, resolve_checkpoint
from engine.project.store import Project
from engine.datasets.sample import RUN_CONFIG_KEY

from .conftest import RUN_TIMEOUT_MS
from .fake_runs import fake_trainer

pytest.importorskip("torch")


def small_config(project: Project, **changes) -> Config:
    base = Config.from_dict(project.setting(RUN_CONFIG_KEY))
    return base.replace(**{"feature_dim": 8, "device": "cpu", **changes})


def test_a_run_started_in_the_app_resumes_from_the_command_line(qtbot, sample_path):
    from decipher_gui.worker import RunController
    from engine.cli.main import main

    controller = RunController(min_interval=0)
    project = Project.open(sample_path)
    try:
        corpus, language = project.corpora()[0].id, project.languages()[0].id
        config = small_config(project, steps=6, eval_interval=3)

        def stop_early(batch):
            if batch.last.step >= 2:
                controller.stop()

        controller.stepsArrived.connect(stop_early)
        with qtbot.waitSignal(controller.ended, timeout=RUN_TIMEOUT_MS) as ended:
            controller.start(project, corpus, language, config)
        assert ended.args == ["stopped"]
        first = project.runs()[-1]
        assert first.status == "stopped" and 2 <= first.last_step < 6
        assert first.checkpoint == f"sample.decipher.runs/run-{first.id}/checkpoint.pt"
    finally:
        project.close()
    checkpoint = resolve_checkpoint(sample_path, first.checkpoint)
    assert main(["run", "--project", str(sample_path), "--resume", str(checkpoint), "--quiet"]) == 0
    with Project.open(sample_path) as project:
        second = project.runs()[-1]
        assert second.resumed_from == first.id and second.status == "completed"
        assert second.last_step == 6, "the resumed run reaches the app run's own target"
        assert second.config["feature_dim"] == 8


def test_a_pin_change_sent_to_a_paused_run_is_recorded_with_its_step(qtbot, sample_path, monkeypatch):
    from decipher_gui import worker

    # The fake trainer asks for the pause itself, in the run's process, just before it makes
    # step 4: the session then pauses right after step 4 however the processes are scheduled (a
    # pause asked from the GUI thread could land after step 3 or step 4, depending on load).
    monkeypatch.setattr(worker, "child_build", partial(fake_trainer, steps=8, eval_every=0, pause_at=3))
    controller = worker.RunController(min_interval=0)
    start_pins = [PinnedValue("l", "l")]
    new_pins = (PinnedValue("l", "l"), PinnedValue("k", "q", 2.0))
    project = Project.open(sample_path)
    try:
        corpus, language = project.corpora()[0].id, project.languages()[0].id

        def while_paused(state):
            if state == worker.PAUSED:
                assert controller.send_pins(new_pins)
                controller.send_pins(new_pins)  # the same pins again are no new change
                controller.resume()

        controller.stateChanged.connect(while_paused)
        with qtbot.waitSignal(controller.ended, timeout=RUN_TIMEOUT_MS) as ended:
            controller.start(project, corpus, language, Config(steps=8), pins=start_pins)
        assert ended.args == ["completed"]
        run = project.runs()[-1]
        history = pin_history(project, run.id)
        assert history[0].step == 0 and history[0].pins == tuple(start_pins)
        assert len(history) == 2 and history[1].pins == new_pins
        paused_at = history[1].step
        assert paused_at == 4, "the change is recorded at the step the paused run had reached"
        assert run.pins == tuple(start_pins), "the pins the run started with are kept as they were"
    finally:
        project.close()


def test_the_app_explains_the_spans_of_a_command_line_run(app, qtbot, sample_path):
    from decipher_gui import queries
    from decipher_gui.analysis import marks_by_inscription
    from decipher_gui.mainwindow import MainWindow
    from decipher_gui.panels.inscriptions import explain_html
    from engine.cli.main import main

    steps = ["--steps", "4", "--set", "eval_interval=2", "--set", "feature_dim=8", "--device", "cpu",
             "--set", "unmatched_prior=0.2", "--set", "anneal_steps=4", "--set", "chars_per_batch=120"]
    assert main(["run", "--project", str(sample_path), *steps, "--quiet"]) == 0
    win = MainWindow(restore_state=False)
    qtbot.addWidget(win)
    assert win.open_project(sample_path)
    run_id = win.project.runs()[-1].id
    win.show_run(run_id)
    mapping, step, label = win.current_mapping()
    assert mapping is not None and step == 4 and label == f"(run {run_id})"
    matches = win.project.matches(run_id)
    assert matches
    mark = next(iter(marks_by_inscription(matches, {}).values()))[0]
    html = explain_html(mark, mapping, *queries.gamma_band(win.project, run_id))
    assert "alignment with" in html and "needs this run's character mapping" not in html
    win.close()


def test_a_command_line_run_resumes_in_the_app(qtbot, sample_path):
    from decipher_gui.worker import RunController
    from engine.cli.main import main

    assert main(["run", "--project", str(sample_path), "--steps", "2", "--set", "eval_interval=0",
                 "--set", "feature_dim=8", "--device", "cpu", "--quiet"]) == 0
    controller = RunController(min_interval=0)
    with Project.open(sample_path) as project:
        first = project.runs()[-1]
        config = first.settings().replace(steps=4)
        with qtbot.waitSignal(controller.ended, timeout=RUN_TIMEOUT_MS) as ended:
            controller.start(project, first.corpus_id, first.language_id, config, resume_run=first.id)
        assert ended.args == ["completed"]
        second = project.runs()[-1]
        assert second.resumed_from == first.id and second.last_step == 4
        assert pin_history(project, second.id)[0].step == 2
