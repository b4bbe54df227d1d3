"""The app's run in a child process (decipher_gui/runprocess.py, worker.py): it records into the
project and streams steps and evaluations, pause/pins/stop reach it, a killed child becomes a failed
run with a message, a vanished app stops it with a checkpoint, closing the window leaves the run
stopped with a checkpoint, and torch is never imported in the app's process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from functools import partial
from pathlib import Path

import pytest

from engine.config import Config
from engine.corpus import PinnedValue
from engine.project import pin_history, resolve_checkpoint
from engine.project.store import Project

from .conftest import RUN_TIMEOUT_MS, small_config
from .fake_runs import fake_trainer

ROOT = Path(__file__).resolve().parents[2]


def _ids(path: Path) -> tuple[int, int]:
    with Project.open(path) as project:
        return project.corpora()[0].id, project.languages()[0].id


@pytest.fixture
def controller(qtbot):
    from decipher_gui.worker import RunController

    c = RunController(min_interval=0)
    yield c
    if c.active:
        c.abort()
        c.wait(120_000)


def test_a_real_run_in_a_child_process_records_and_streams(window, qtbot):
    pytest.importorskip("torch")
    c = window.controller
    started, steps, evals = [], [], []
    c.started.connect(started.append)
    c.stepsArrived.connect(lambda batch: steps.extend(r.step for r in batch.records))
    c.evaluated.connect(evals.append)
    with qtbot.waitSignal(window.runEnded, timeout=RUN_TIMEOUT_MS) as ended:
        assert window.start_run(small_config(window, steps=6, eval_interval=3))
        qtbot.waitUntil(lambda: c.driver is not None and c.driver.pid is not None, timeout=RUN_TIMEOUT_MS)
        child_pid = c.driver.pid
    assert ended.args == ["completed"]
    assert child_pid != os.getpid()
    assert started == ["cpu"] and steps == [1, 2, 3, 4, 5, 6]
    assert [e.step for e in evals] == [3, 6] and evals[-1].matches and evals[-1].mapping is not None
    run = window.project.runs()[-1]
    assert run.status == "completed" and run.last_step == 6 and run.device == "cpu"
    assert len(window.project.matches(run.id)) == len(evals[-1].matches)
    assert resolve_checkpoint(window.project.path, run.checkpoint).is_file()
    assert window.matches.model.rowCount() > 0, "the window shows the run the child recorded"


def test_pause_pins_and_stop_reach_the_child(controller, qtbot, sample_path, monkeypatch):
    from decipher_gui import worker

    monkeypatch.setattr(worker, "child_build", partial(fake_trainer, steps=100_000, eval_every=0, step_sleep=0.01))
    corpus, language = _ids(sample_path)
    batches, applied = [], []
    controller.stepsArrived.connect(batches.append)
    controller.pinsApplied.connect(applied.append)
    with Project.open(sample_path) as project:
        with qtbot.waitSignal(controller.stepsArrived, timeout=RUN_TIMEOUT_MS):
            controller.start(project, corpus, language, Config(steps=100_000), pins=[])
        with qtbot.waitSignal(controller.stateChanged, timeout=RUN_TIMEOUT_MS,
                              check_params_cb=lambda s: s == worker.PAUSED):
            controller.pause()
        paused_at, seen = controller.driver.step, len(batches)
        qtbot.wait(300)
        assert len(batches) == seen and controller.driver.step == paused_at, "a paused run does not move"
        pins = (PinnedValue("l", "l"), PinnedValue("k", "q", 2.0))
        assert controller.send_pins(pins)
        with qtbot.waitSignal(controller.pinsApplied, timeout=RUN_TIMEOUT_MS):
            controller.resume()
        assert applied == [2] and controller.driver.pins == pins
        with qtbot.waitSignal(controller.stepsArrived, timeout=RUN_TIMEOUT_MS):
            pass  # the run moves again
        with qtbot.waitSignal(controller.ended, timeout=RUN_TIMEOUT_MS) as ended:
            controller.stop()
        assert ended.args == ["stopped"]
        run = project.runs()[-1]
        assert run.status == "stopped" and paused_at <= run.last_step < 100_000
        history = pin_history(project, run.id)
        assert [h.pins for h in history] == [(), pins] and history[1].step == paused_at
        assert resolve_checkpoint(project.path, run.checkpoint).read_text().startswith("step ")


@pytest.mark.skipif(not hasattr(os, "getsid"), reason="sessions are a POSIX notion")
def test_the_run_trains_in_its_own_session(controller, qtbot, sample_path, monkeypatch):
    """Linux shares the CPU between sessions first: in the app's session the run would take the
    window's turns on a busy machine (docs/benchmarks.md, "GUI responsiveness")."""
    from decipher_gui import worker

    monkeypatch.setattr(worker, "child_build", partial(fake_trainer, steps=100_000, eval_every=0, step_sleep=0.01))
    corpus, language = _ids(sample_path)
    with Project.open(sample_path) as project:
        with qtbot.waitSignal(controller.stepsArrived, timeout=RUN_TIMEOUT_MS):
            controller.start(project, corpus, language, Config(steps=100_000), pins=[])
        pid = controller.driver.pid
        assert os.getsid(pid) == pid != os.getsid(0)
        with qtbot.waitSignal(controller.ended, timeout=RUN_TIMEOUT_MS) as ended:
            controller.stop()
    assert ended.args == ["stopped"], "the app's commands still reach it"


def test_a_killed_child_becomes_a_failed_run_with_a_message(controller, qtbot, sample_path, monkeypatch):
    from decipher_gui import worker

    monkeypatch.setattr(worker, "child_build", partial(fake_trainer, steps=100_000, eval_every=0, step_sleep=0.01))
    corpus, language = _ids(sample_path)
    failures = []
    controller.errored.connect(failures.append)
    with Project.open(sample_path) as project:
        with qtbot.waitSignal(controller.stepsArrived, timeout=RUN_TIMEOUT_MS):
            controller.start(project, corpus, language, Config(steps=100_000))
        run_id = controller.run_id
        with qtbot.waitSignal(controller.ended, timeout=RUN_TIMEOUT_MS) as ended:
            os.kill(controller.driver.pid, signal.SIGKILL)
        assert ended.args == ["failed"] and not controller.active
        (failure,) = failures
        assert failure.title == "The run's process ended unexpectedly"
        assert "killed by SIGKILL" in failure.message and f"Run {run_id} is marked failed" in failure.message
        run = project.run(run_id)
        assert run.status == "failed" and "killed by SIGKILL" in run.error


def test_a_child_whose_app_vanished_stops_with_a_checkpoint(sample_path):
    """The command pipe closing (the app crashed) makes the child end the run as stopped."""
    from decipher_gui.runprocess import RunProcess, RunRequest
    from engine.project.runner import ProjectRunSpec

    corpus, language = _ids(sample_path)
    handle = RunProcess(RunRequest(sample_path, ProjectRunSpec(Config(steps=100_000), corpus, language),
                                   min_interval=0, live_interval=None,
                                   build=partial(fake_trainer, steps=100_000, eval_every=0, step_sleep=0.01)))
    kinds: list[str] = []
    finished = []

    def read():
        handle.start()
        for kind, payload in handle.events():
            kinds.append(kind)
            if kind == "steps" and kinds.count("steps") == 1:
                handle._commands.close()  # what the app's death does to the pipe
            if kind == "finished":
                finished.append(payload)

    reader = threading.Thread(target=read)
    reader.start()
    reader.join(180)  # a hang guard: returns as soon as the child ends
    assert not reader.is_alive()
    # the run's warnings (engine/runs/warnings.py: the sample's gold rows the default spans cannot reach)
    # are said before it starts
    assert [k for k in kinds if k != "message"][0] == "started" and kinds[-1] == "finished" and "error" not in kinds
    assert finished[0].reason == "stopped"
    with Project.open(sample_path) as project:
        run = project.runs()[-1]
        assert run.status == "stopped" and run.error == "stopped: the app closed"
        assert resolve_checkpoint(project.path, run.checkpoint).is_file()


def test_closing_the_window_mid_run_leaves_it_stopped_with_a_checkpoint(window, qtbot, sample_path):
    pytest.importorskip("torch")
    with qtbot.waitSignal(window.controller.stepsArrived, timeout=RUN_TIMEOUT_MS):
        assert window.start_run(small_config(window, steps=2_000, eval_interval=0))
    child = window.controller.driver.process
    window.close()
    assert not window.controller.active
    assert not child.is_alive()
    with Project.open(sample_path) as project:
        run = project.runs()[-1]
        assert run.status == "stopped" and 0 < run.last_step < 2_000
        checkpoint = resolve_checkpoint(project.path, run.checkpoint)
        assert checkpoint.is_file() and checkpoint.stat().st_size > 0


def test_the_app_process_never_imports_torch_for_a_run(tmp_path, sample_path):
    pytest.importorskip("torch")
    script = f"""
import sys
from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer
from engine.config import Config
from engine.project.store import Project
from decipher_gui.worker import RunController

if __name__ == "__main__":
    app = QCoreApplication([])
    project = Project.open({str(sample_path)!r})
    c = RunController()
    loop = QEventLoop()
    ended = []
    c.ended.connect(lambda status: (ended.append(status), loop.quit()))
    QTimer.singleShot(170_000, loop.quit)
    c.start(project, project.corpora()[0].id, project.languages()[0].id,
            Config(steps=2, eval_interval=0, feature_dim=8, device="cpu"))
    loop.exec()
    print("ENDED", ended, "TORCH", "torch" in sys.modules)
"""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=200)
    assert "ENDED ['completed'] TORCH False" in out.stdout, out.stdout + out.stderr[-3000:]


def test_the_child_reads_the_run_from_the_project_and_reports_what_it_cannot(sample_path):
    """The child assembles its run from the project file (engine assemble_run, as `decipher run
    --project`): a corpus the project does not hold is one error event, and nothing is recorded."""
    from decipher_gui.runprocess import RunProcess, RunRequest
    from engine.project.runner import ProjectRunSpec

    corpus, language = _ids(sample_path)
    with Project.open(sample_path) as project:
        before = len(project.runs())
    handle = RunProcess(RunRequest(sample_path, ProjectRunSpec(Config(steps=3), corpus + 100, language),
                                   min_interval=0, live_interval=None, build=partial(fake_trainer, steps=3)))
    events: list[tuple[str, object]] = []

    def read():
        handle.start()
        events.extend(handle.events())

    reader = threading.Thread(target=read)
    reader.start()
    reader.join(180)  # a hang guard: returns as soon as the child ends
    assert not reader.is_alive()
    [(kind, failure)] = events
    assert kind == "error" and str(corpus + 100) in failure.message
    assert handle.process.exitcode == 0, "the child said how it ended; it did not crash"
    with Project.open(sample_path) as project:
        assert len(project.runs()) == before
