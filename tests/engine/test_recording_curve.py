"""The stored loss curve keeps a point at every evaluation step (issue 27 item 5): the recorder's
time throttle thinned a 189-step run to 6 points."""

from __future__ import annotations

from engine.config import Config
from engine.project import RunRecorder
from engine.results import EvalEvent, StepEvent

from tests.engine.test_project_helpers import filled_project


def test_every_evaluation_step_has_its_loss_even_when_the_throttle_holds_steps_back(tmp_path):
    project, ids = filled_project(tmp_path / "p.decipher")
    run_id = project.start_run(Config(steps=189), ids["corpus"], ids["language"], device="cpu")
    recorder = RunRecorder(project, run_id, step_every=3600.0, clock=lambda: 100.0)  # a frozen clock
    evaluated = []
    for step in range(1, 190):
        recorder(StepEvent(step, 189, {"quality": 1.0 / step}, 0.5, 0.1, 0.9, 0.0))
        if step % 20 == 0 or step == 189:
            recorder(EvalEvent(step, (), 0.3, ((0.0, 0.3),), {"P@1": 0.5}))
            evaluated.append(step)
    steps = [s for s, _, _ in project.metrics(run_id, "loss/quality")]
    # the first step (the throttle's start), every evaluation step, and the last: nothing between
    assert steps == [1] + evaluated
    assert dict((s, v) for s, _, v in project.metrics(run_id, "loss/quality"))[40] == 1.0 / 40
    assert [s for s, _, _ in project.metrics(run_id, "batch_coverage")] == steps
    project.close()


def test_a_step_after_the_last_evaluation_is_not_written_twice_or_lost(tmp_path):
    project, ids = filled_project(tmp_path / "p.decipher")
    run_id = project.start_run(Config(steps=10), ids["corpus"], ids["language"], device="cpu")
    recorder = RunRecorder(project, run_id, step_every=3600.0, clock=lambda: 0.0)
    recorder(StepEvent(1, 10, {"quality": 3.0}, 0.5, 0.1, 0.9, 0.0))
    recorder(StepEvent(2, 10, {"quality": 2.0}, 0.5, 0.1, 0.9, 0.0))
    recorder(EvalEvent(2, (), 0.3, ((0.0, 0.3),), {"P@1": 0.5}))
    recorder(EvalEvent(2, (), 0.3, ((0.0, 0.3),), {"P@1": 0.5}))   # nothing pending: no new row
    recorder(StepEvent(3, 10, {"quality": 1.0}, 0.5, 0.1, 0.9, 0.0))
    assert [s for s, _, _ in project.metrics(run_id, "loss/quality")] == [1, 2]
    recorder.fail(RuntimeError("stop"))                               # the held-back step 3 is kept
    assert [s for s, _, _ in project.metrics(run_id, "loss/quality")] == [1, 2, 3]
    project.close()
