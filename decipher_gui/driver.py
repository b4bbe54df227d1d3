"""The GUI's side of a run session (no Qt here): the bridge that turns the session's events into
``emit(kind, payload)`` calls, with step events coalesced so a view receives a few updates a second
at most. The app runs it in a child process (decipher_gui/runprocess.py), where ``emit`` sends
each event over a pipe, so every payload is a picklable frozen value.

The run itself (building the trainer, pause, stop, pins, checkpoints, the project record) is the
engine's RunSession; :class:`RunDriver` holds one and its bridge. :meth:`pause`, :meth:`resume`,
:meth:`stop`, :meth:`abort` and :meth:`send_pins` are safe from any thread; :meth:`run` runs on
the training thread and emits:

    ("started", (device, run_id))   the trainer is built (torch imported, data prepared) and,
                                    with a recorder, the run is recorded in the project
    ("steps", StepBatch)            coalesced step events, at most one per ``min_interval``
    ("paused", step: int) / ("resumed", step: int)
    ("pins_applied", PinsApplied)   new pins were handed to the trainer at ``step`` (in force for
                                    the steps after it), already recorded in the project
    ("eval", EvalEvent)             always delivered, after the steps before it
    ("finished", FinishedEvent)     always the last, unless
    ("error", RunFailure)           the run raised
    ("message", str)                something to tell the user (e.g. a write the project refused)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from engine.corpus import PinnedValue
from engine.results import EvalEvent, FinishedEvent, MappingSnapshot, Match, StepEvent
from engine.runs.session import (RunFailure, RunOutcome, RunSession, RunSink, RunStart,
                            describe_failure)


@dataclass(frozen=True)
class StepRecord:
    """What the plots keep of one training step."""

    step: int
    losses: dict[str, float]
    coverage: float
    coverage_target: float
    insertion_cost: float
    elapsed: float
    restart: int = 0
    """The start (setting restarts) the step trained: each start counts its steps from 1."""
    phase: str = ""
    """What the step trained on when not the whole model on the text (StepEvent.phase): shown beside the step."""


@dataclass(frozen=True)
class StepBatch:
    """Every step since the last update, the live matches of the newest batch, and (if the
    driver takes snapshots) the character mapping after the newest step."""

    records: tuple[StepRecord, ...]
    total_steps: int
    live_matches: tuple[Match, ...]
    mapping: MappingSnapshot | None = None
    progress: tuple[int, int] | None = None
    """(steps trained, steps planned) over every start (StepEvent.progress); None: (last step, total_steps)."""

    @property
    def last(self) -> StepRecord:
        return self.records[-1]


@dataclass(frozen=True)
class PinsApplied:
    """The pins the trainer uses for the steps after ``step`` (the run's pin history records the
    same change at the same step)."""

    step: int
    pins: tuple[PinnedValue, ...]

    def __len__(self) -> int:
        return len(self.pins)


def _record(ev: StepEvent) -> StepRecord:
    return StepRecord(ev.step, dict(ev.losses), ev.coverage, ev.coverage_target, ev.insertion_cost,
                      ev.elapsed, ev.restart, ev.phase)


class GuiBridge(RunSink):
    """A session sink that emits the events above. It must come after the recorder in the
    session's sinks, so that what the window is told is already committed to the project."""

    name = "the window"
    critical = False

    def __init__(self, emit: Callable[[str, Any], None], *, min_interval: float = 0.25,
                 snapshot_mapping: bool = True, clock: Callable[[], float] = time.monotonic,
                 run_id: Callable[[], int | None] = lambda: None):
        self.emit = emit
        self.min_interval = min_interval
        self.snapshot_mapping = snapshot_mapping
        self.clock = clock
        self.run_id = run_id
        self.trainer = None
        self.pending: list[StepRecord] = []
        self.live: tuple[Match, ...] = ()
        self.total = 0
        self.progress: tuple[int, int] | None = None
        self.last_emit = 0.0

    def flush(self) -> None:
        if not self.pending:
            return
        mapping = self.trainer.mapping() if self.snapshot_mapping else None
        self.emit("steps", StepBatch(tuple(self.pending), self.total, self.live, mapping, self.progress))
        self.pending = []
        self.last_emit = self.clock()

    def started(self, start: RunStart) -> None:
        self.trainer = start.trainer
        self.total = start.total_steps
        self.last_emit = self.clock() - self.min_interval
        self.emit("started", (start.device, self.run_id()))

    def step(self, event: StepEvent) -> None:
        self.total = event.total_steps
        self.progress = event.progress
        self.pending.append(_record(event))
        if event.batch_matches:  # the trainer decodes a batch only every so often
            self.live = tuple(event.batch_matches)
        if self.clock() - self.last_emit >= self.min_interval:
            self.flush()

    def evaluation(self, event: EvalEvent) -> None:
        self.flush()
        self.emit("eval", event)

    def pins_changed(self, step: int, pins: tuple[PinnedValue, ...]) -> None:
        self.flush()  # the steps before the change first, so the window knows where it happened
        self.emit("pins_applied", PinsApplied(int(step), tuple(pins)))

    def paused(self, step: int) -> None:
        self.flush()
        self.emit("paused", step)

    def resumed(self, step: int) -> None:
        self.emit("resumed", step)

    def message(self, text: str) -> None:
        self.emit("message", text.replace("Could not write the run's record in the project",
                                          "Could not record the run in the project"))

    def finished(self, outcome: RunOutcome) -> None:
        self.flush()
        elapsed = float(getattr(self.trainer, "elapsed", outcome.wall_time_s))
        self.emit("finished", FinishedEvent(outcome.step, "stopped" if outcome.status == "stopped" else "completed",
                                            elapsed, None if outcome.checkpoint is None else str(outcome.checkpoint)))

    def failed(self, error: BaseException, step: int | None) -> None:
        if self.trainer is not None:
            self.flush()
        self.emit("error", describe_failure(error, step))


class RunDriver:
    """One run session driven on the calling (training) thread, with its GUI bridge.

    ``session`` is an engine RunSession whose sinks (e.g. the project recorder) are already set
    (the app's run process has engine/project/runner.py ``assemble_run`` set them); the bridge is
    appended to them when :meth:`run` starts. ``run_id`` says the recorded run's id once it is
    known (default: the ``run_id`` of the first sink that has one). ``min_interval`` (seconds)
    bounds how often step batches are emitted; ``snapshot_mapping`` asks for
    ``trainer.mapping()`` with each batch (cheap: one small softmax).
    """

    def __init__(self, session: RunSession, *, min_interval: float = 0.25, snapshot_mapping: bool = True,
                 clock: Callable[[], float] = time.monotonic, run_id: Callable[[], int | None] | None = None):
        self.session = session
        self.run_id = run_id
        self.min_interval = min_interval
        self.snapshot_mapping = snapshot_mapping
        self.clock = clock

    # ---- called from any thread -------------------------------------------------------------

    def pause(self) -> None:
        self.session.pause()

    def resume(self) -> None:
        self.session.resume()

    def stop(self) -> None:
        """Finish after the current step (the trainer evaluates once more, then ends "stopped")."""
        self.session.stop()

    def abort(self) -> None:
        """End after the current step without the final evaluation (closing the window): the
        run is recorded as stopped with the matches of its last evaluation, and checkpointed."""
        self.session.abort()

    def send_pins(self, pins: Sequence[PinnedValue]) -> None:
        """Queue new pins; the trainer receives them before its next step."""
        self.session.send_pins(pins)

    @property
    def paused(self) -> bool:
        return self.session.paused

    @property
    def stopping(self) -> bool:
        return self.session.stopping

    @property
    def trainer(self):
        return self.session.trainer

    @property
    def step(self) -> int:
        return self.session.step

    # ---- the training thread ------------------------------------------------------------------

    def run(self, emit: Callable[[str, Any], None]) -> None:
        run_id = self.run_id
        if run_id is None:
            recorder = next((s for s in self.session.sinks if hasattr(s, "run_id")), None)
            run_id = lambda: getattr(recorder, "run_id", None)  # noqa: E731
        bridge = GuiBridge(emit, min_interval=self.min_interval, snapshot_mapping=self.snapshot_mapping,
                           clock=self.clock, run_id=run_id)
        self.session.sinks.append(bridge)
        try:
            self.session.run()
        except BaseException:  # every failure reached the GUI as an "error" event; none crashes it
            pass


__all__ = ["RunDriver", "GuiBridge", "PinsApplied", "StepBatch", "StepRecord", "RunFailure", "describe_failure"]
