"""Drives a trainer's event generator on a worker thread: pause, resume, stop, new pins, and
coalescing of step events so a view receives a few updates a second at most (no Qt here).

The GUI calls :meth:`pause`, :meth:`resume`, :meth:`stop` and :meth:`send_pins` from its own
thread; :meth:`run` runs on the worker thread and hands out what happened through ``emit``:

    ("started", (device, run_id))   the trainer is built (torch imported, data prepared) and,
                                    with a recorder, the run is recorded in the project
    ("steps", StepBatch)            coalesced step events, at most one per ``min_interval``
    ("paused", step: int) / ("resumed", step: int)
    ("pins_applied", n_pins: int)   new pins were handed to the trainer (from the next step on)
    ("eval", EvalEvent)             always delivered, after the steps before it
    ("finished", FinishedEvent)     always the last, unless
    ("error", RunFailure)           the run raised
    ("message", str)                something to tell the user (e.g. a write the project refused)

With a ``recorder`` (see recorder.RunRecorder) every event is written to the project on this
thread before it is emitted, and a paused run keeps beating its heartbeat.
"""

from __future__ import annotations

import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from engine.data import PinnedValue
from engine.errors import DecipherError
from engine.results import CharMapping, EvalEvent, FinishedEvent, Match, StepEvent, UpdatePins


@dataclass(frozen=True)
class StepRecord:
    """What the plots keep of one training step."""

    step: int
    losses: dict[str, float]
    coverage: float
    coverage_target: float
    insertion_cost: float
    elapsed: float


@dataclass(frozen=True)
class StepBatch:
    """Every step since the last update, the live matches of the newest batch, and (if the
    driver takes snapshots) the character mapping after the newest step."""

    records: tuple[StepRecord, ...]
    total_steps: int
    live_matches: tuple[Match, ...]
    mapping: CharMapping | None = None

    @property
    def last(self) -> StepRecord:
        return self.records[-1]


@dataclass(frozen=True)
class RunFailure:
    """A run that raised: a user-facing ``title``/``message`` and the traceback for a report."""

    kind: str          # "input", "memory", "numeric", "internal"
    title: str
    message: str
    details: str = ""
    step: int | None = None


def describe_failure(exc: BaseException, step: int | None = None) -> RunFailure:
    """Turn an exception from the engine into words a philologist can act on."""
    details = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    text = str(exc)
    if isinstance(exc, DecipherError):
        return RunFailure("input", "The run cannot start with these data", text, details, step)
    if isinstance(exc, MemoryError) or "out of memory" in text.lower() or type(exc).__name__ == "OutOfMemoryError":
        return RunFailure("memory", "Out of memory",
                          "The run needed more memory than the machine has"
                          + (f" ({text.splitlines()[0]})" if text else "")
                          + ". Try fewer characters per batch, a shorter maximum span, a smaller "
                            "feature size, or the CPU instead of the GPU.", details, step)
    if isinstance(exc, FloatingPointError):
        return RunFailure("numeric", "The training diverged",
                          f"{text}. Try a lower learning rate, or check the pinned values "
                          "(a very large pin weight can push the loss to infinity).", details, step)
    if isinstance(exc, ValueError):
        return RunFailure("input", "Invalid run settings", text, details, step)
    return RunFailure("internal", "The run stopped with an unexpected error",
                      f"{type(exc).__name__}: {text}", details, step)


def _record(ev: StepEvent) -> StepRecord:
    return StepRecord(ev.step, dict(ev.losses), ev.coverage, ev.coverage_target, ev.insertion_cost,
                      ev.elapsed)


@dataclass
class _Control:
    paused: bool = False
    stop: bool = False
    abort: bool = False
    pins: tuple[PinnedValue, ...] | None = None
    cond: threading.Condition = field(default_factory=threading.Condition)


class RunDriver:
    """Runs ``make_trainer()`` then its generator to the end on the calling thread.

    ``min_interval`` (seconds) bounds how often step batches are emitted; ``snapshot_mapping``
    asks for ``trainer.mapping()`` with each batch (cheap: one small softmax). ``on_trainer`` is
    called on the worker thread once the trainer exists (e.g. to keep a reference for tests).
    """

    def __init__(self, make_trainer: Callable[[], Any], *, min_interval: float = 0.25,
                 snapshot_mapping: bool = True, clock: Callable[[], float] = time.monotonic,
                 recorder: Any = None, heartbeat_s: float = 60.0,
                 describe_device: Callable[[Any], str] = lambda trainer: str(trainer.device)):
        self.make_trainer = make_trainer
        self.describe_device = describe_device
        self.recorder = recorder
        self.heartbeat_s = heartbeat_s
        self.min_interval = min_interval
        self.snapshot_mapping = snapshot_mapping
        self.clock = clock
        self._c = _Control()
        self.trainer: Any = None
        self.step = 0

    # ---- called from any thread -------------------------------------------------------------

    def pause(self) -> None:
        with self._c.cond:
            self._c.paused = True

    def resume(self) -> None:
        with self._c.cond:
            self._c.paused = False
            self._c.cond.notify_all()

    def stop(self) -> None:
        """Finish after the current step (the trainer evaluates once more, then ends "stopped")."""
        with self._c.cond:
            self._c.stop = True
            self._c.paused = False
            self._c.cond.notify_all()
        trainer = self.trainer
        if trainer is not None:
            trainer.request_stop()

    def abort(self) -> None:
        """End after the current step without the final evaluation (closing the window): the
        run is recorded as stopped with the matches of its last evaluation."""
        with self._c.cond:
            self._c.abort = True
        self.stop()

    def send_pins(self, pins: Sequence[PinnedValue]) -> None:
        """Queue new pins; the trainer receives them before its next step."""
        with self._c.cond:
            self._c.pins = tuple(pins)

    @property
    def paused(self) -> bool:
        return self._c.paused

    @property
    def stopping(self) -> bool:
        return self._c.stop

    # ---- the worker thread --------------------------------------------------------------------

    def run(self, emit: Callable[[str, Any], None]) -> None:
        try:
            self._run(emit)
        except BaseException as exc:  # every failure reaches the GUI as a message, none crashes it
            failure = describe_failure(exc, self.step)
            self._record(emit, "fail", failure)
            emit("error", failure)
        finally:
            if self.recorder is not None:
                self._record(emit, "close")

    def _record(self, emit, method: str, *args) -> Any:
        """Call the recorder; a refused write becomes a message, the run goes on."""
        if self.recorder is None:
            return None
        try:
            return getattr(self.recorder, method)(*args)
        except DecipherError as exc:
            emit("message", f"Could not record the run in the project: {exc}")
        except Exception as exc:  # e.g. a full disk: tell the user, keep training
            emit("message", f"Could not record the run in the project: {type(exc).__name__}: {exc}")
        return None

    def _take_pins(self, emit) -> UpdatePins | None:
        with self._c.cond:
            pins, self._c.pins = self._c.pins, None
        if pins is None:
            return None
        emit("pins_applied", len(pins))
        return UpdatePins(pins)

    def _wait_while_paused(self, emit, flush) -> None:
        with self._c.cond:
            if not self._c.paused or self._c.stop:
                return
        flush()
        emit("paused", self.step)
        while True:
            with self._c.cond:
                if not self._c.paused or self._c.stop:
                    break
                self._c.cond.wait(self.heartbeat_s)
                if not self._c.paused or self._c.stop:
                    break
            self._record(emit, "heartbeat")  # a long pause is not a dead run
        emit("resumed", self.step)

    def _run(self, emit: Callable[[str, Any], None]) -> None:
        trainer = self.make_trainer()
        self.trainer = trainer
        if self._c.stop:
            trainer.request_stop()
        device = self.describe_device(trainer)
        run_id = self._record(emit, "start", device)
        emit("started", (device, run_id))
        gen = trainer.run()
        pending: list[StepRecord] = []
        live: tuple[Match, ...] = ()
        total = 0
        last_emit = self.clock() - self.min_interval

        def flush() -> None:
            nonlocal pending, last_emit
            if not pending:
                return
            mapping = trainer.mapping() if self.snapshot_mapping else None
            emit("steps", StepBatch(tuple(pending), total, live, mapping))
            pending = []
            last_emit = self.clock()

        outgoing: UpdatePins | None = None
        event = next(gen)
        while True:
            if isinstance(event, StepEvent):
                self.step = event.step
                total = event.total_steps
                pending.append(_record(event))
                self._record(emit, "step", event)
                if event.batch_matches:  # the trainer decodes a batch only every so often
                    live = tuple(event.batch_matches)
                if self.clock() - last_emit >= self.min_interval:
                    flush()
            elif isinstance(event, EvalEvent):
                flush()
                self._record(emit, "evaluation", event)
                emit("eval", event)
            elif isinstance(event, FinishedEvent):
                flush()
                self._record(emit, "finish", event)
                emit("finished", event)
                gen.close()
                return
            self._wait_while_paused(emit, flush)
            if self._c.abort:
                flush()
                gen.close()
                done = FinishedEvent(self.step, "stopped", getattr(trainer, "elapsed", 0.0))
                self._record(emit, "finish", done)
                emit("finished", done)
                return
            if self._c.stop:
                trainer.request_stop()
            outgoing = self._take_pins(emit)
            event = gen.send(outgoing)
