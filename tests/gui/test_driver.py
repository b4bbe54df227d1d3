"""The run driver (a RunSession with the GUI bridge) without Qt or torch: coalescing,
pause/resume, stop, pins, errors."""

from __future__ import annotations

import threading

import numpy as np

from decipher_gui.driver import RunDriver as _RunDriver
from decipher_gui.driver import StepBatch, describe_failure
from engine.corpus import PinnedValue
from engine.errors import InputError
from engine.runs.session import RunSession, RunSink
from engine.results import MappingSnapshot, EvalEvent, FinishedEvent, StepEvent, UpdatePins


class FakeTrainer:
    """Yields like engine.training.trainer.Trainer: steps, an evaluation every ``eval_every``, the end."""

    device = "cpu"

    def __init__(self, steps=10, eval_every=5, fail_at=None, gate=None):
        self.steps = steps
        self.eval_every = eval_every
        self.fail_at = fail_at
        self.gate = gate
        self.stop = threading.Event()
        self.received: list[tuple[int, tuple]] = []
        self.step = 0
        self.saved: list[int] = []

    def save_checkpoint(self, path):
        path.write_text(f"step {self.step}\n")
        self.saved.append(self.step)
        return path

    def request_stop(self):
        self.stop.set()

    def mapping(self):
        return MappingSnapshot(("<DEL>", "a"), ("<DEL>", "a"), np.eye(2))

    def run(self):
        step = 0
        reason = "completed"
        while step < self.steps:
            if self.stop.is_set():
                reason = "stopped"
                break
            if self.gate is not None:
                self.gate(step)
            if self.fail_at == step:
                raise FloatingPointError(f"the loss became nan at step {step}")
            step += 1
            self.step = step
            sent = yield StepEvent(step, self.steps, {"total": 1.0 / step}, 0.5, 1.0, 0.5, 0.1)
            if isinstance(sent, UpdatePins):
                self.received.append((step, sent.pins))
            if self.eval_every and step % self.eval_every == 0 and step < self.steps:
                yield EvalEvent(step, (), 0.1, ((1.0, 0.0), (0.0, 0.1)), {"p_at_1": 0.5})
        yield EvalEvent(step, (), 0.2, ((1.0, 0.0), (0.0, 0.2)), {"p_at_1": 0.6})
        yield FinishedEvent(step, reason, 1.0)


def RunDriver(make_trainer, *, recorder=None, **options):
    """A driver whose session builds the fake trainer."""
    session = RunSession(None, sinks=[recorder] if recorder is not None else [],
                         build=lambda inputs, **kw: make_trainer())
    return _RunDriver(session, **options)


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        self.t += 0.1  # every reading moves time on by 0.1 s
        return self.t


def drive(driver):
    events = []
    driver.run(lambda kind, payload: events.append((kind, payload)))
    return events


def test_steps_are_coalesced_and_evaluations_always_delivered():
    trainer = FakeTrainer(steps=20, eval_every=10)
    events = drive(RunDriver(lambda: trainer, min_interval=0.35, clock=Clock()))
    kinds = [k for k, _ in events]
    assert kinds[0] == "started" and kinds[-1] == "finished"
    assert kinds.count("eval") == 2
    batches = [p for k, p in events if k == "steps"]
    assert len(batches) < 20, "step events must be coalesced"
    steps = [r.step for b in batches for r in b.records]
    assert steps == list(range(1, 21)), "no step is lost in coalescing"
    assert all(isinstance(b, StepBatch) and b.mapping is not None for b in batches)
    # the steps before an evaluation arrive before it
    first_eval = kinds.index("eval")
    before = [r.step for k, p in events[:first_eval] if k == "steps" for r in p.records]
    assert before[-1] == 10


def test_stop_ends_the_run_as_stopped():
    holder = {}

    def gate(step):
        if step == 3:
            holder["driver"].stop()

    driver = RunDriver(lambda: FakeTrainer(steps=100, eval_every=0, gate=gate), min_interval=0)
    holder["driver"] = driver
    events = drive(driver)
    finished = events[-1][1]
    assert isinstance(finished, FinishedEvent) and finished.reason == "stopped"
    assert finished.step < 100


def test_pause_waits_between_steps_and_pins_reach_the_paused_run():
    trainer = FakeTrainer(steps=6, eval_every=0)
    driver = RunDriver(lambda: trainer, min_interval=0)
    events = []
    paused = threading.Event()

    def emit(kind, payload):
        events.append((kind, payload))
        if kind == "steps" and payload.last.step == 2:
            driver.pause()
        if kind == "paused":
            paused.set()

    worker = threading.Thread(target=driver.run, args=(emit,))
    worker.start()
    assert paused.wait(120)
    step_at_pause = driver.step
    pins = (PinnedValue("a", "b"),)
    driver.send_pins(pins)
    # nothing moves while paused
    worker.join(0.2)
    assert worker.is_alive() and driver.step == step_at_pause
    driver.resume()
    worker.join(120)  # a hang guard: returns as soon as the run ends
    assert not worker.is_alive()
    kinds = [k for k, _ in events]
    assert kinds.index("paused") < kinds.index("resumed") < kinds.index("pins_applied")
    assert trainer.received and trainer.received[0][1] == pins
    assert trainer.received[0][0] == step_at_pause, "pins go in before the next step"
    assert events[-1][1].reason == "completed"


def test_errors_become_messages_not_crashes():
    events = drive(RunDriver(lambda: FakeTrainer(steps=5, fail_at=2), min_interval=0))
    kind, failure = events[-1]
    assert kind == "error"
    assert failure.kind == "numeric" and "diverged" in failure.title
    assert "nan" in failure.message and "learning rate" in failure.message
    # the steps before the failure were delivered
    assert [r.step for k, p in events if k == "steps" for r in p.records] == [1, 2]


def test_failures_are_described_for_people():
    assert describe_failure(InputError("no stems", path="x.csv", line=3)).kind == "input"
    oom = describe_failure(RuntimeError("CUDA out of memory. Tried to allocate 2 GiB"))
    assert oom.kind == "memory" and "characters per batch" in oom.message
    assert describe_failure(MemoryError()).kind == "memory"
    assert describe_failure(KeyError("x")).kind == "internal"
    events = drive(RunDriver(lambda: (_ for _ in ()).throw(InputError("bad data")), min_interval=0))
    assert events == [("error", events[0][1])] and events[0][1].kind == "input"


def test_a_recorder_that_fails_does_not_stop_the_run():
    class Refusing(RunSink):
        critical = False
        name = "the run's record in the project"
        run_id = None

        def started(self, start):
            self.run_id = 7

        def step(self, event):
            raise InputError("disk full")

    events = drive(RunDriver(lambda: FakeTrainer(steps=3, eval_every=0), min_interval=0, recorder=Refusing()))
    assert events[0] == ("started", ("cpu", 7))
    assert any(k == "message" and "disk full" in p for k, p in events)
    assert events[-1][1].reason == "completed"


def test_abort_ends_without_the_final_evaluation():
    holder = {}

    def gate(step):
        if step == 2:
            holder["driver"].abort()

    driver = RunDriver(lambda: FakeTrainer(steps=100, eval_every=0, gate=gate), min_interval=0)
    holder["driver"] = driver
    events = drive(driver)
    kinds = [k for k, _ in events]
    assert "eval" not in kinds
    assert kinds[-1] == "finished" and events[-1][1].reason == "stopped" and events[-1][1].step == 3
