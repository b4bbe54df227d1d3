"""A training run in a child process, and its controller on the GUI thread.

The run (engine RunSession, recorded in the project by the engine's recorder) trains in a child
process (decipher_gui/runprocess.py), so the engine never holds this process's GIL and torch is
never imported here. A reader (a decipher_gui.background job, the app's one pattern for background
work) blocks on the child's event pipe (the GIL released) and forwards each event by queued signal,
so every slot and every widget runs on the GUI thread; commands go to the child over a second pipe
and apply at step boundaries.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from PySide6.QtCore import QObject, Signal, Slot

from engine.config import Config
from engine.corpus import PinnedValue
from engine.project import Project, ProjectRunSpec, resolve_checkpoint

from decipher_gui.background import BackgroundJob
from decipher_gui.driver import PinsApplied, RunFailure, StepBatch, describe_failure
from decipher_gui.runprocess import RunProcess, RunRequest

#: Seconds between live decodings of the current batch (the inscription view's highlights).
LIVE_INTERVAL = 0.25

#: What builds the trainer in the child: None for the engine's build_trainer; tests set a
#: picklable (module-level) fake.
child_build: Callable[..., Any] | None = None

IDLE, STARTING, RUNNING, PAUSED, STOPPING = "idle", "starting", "running", "paused", "stopping"


def read_events(handle: RunProcess) -> Callable[[Callable[[Any], None]], None]:
    """The reader's work: start the child and report each of its events as ``(kind, payload)``
    until it ends (a child that cannot start is a failed run)."""
    def work(report: Callable[[Any], None]) -> None:
        try:
            handle.start()
            for event in handle.events():
                report(event)
        except Exception as exc:  # noqa: BLE001 — e.g. no process could be started: a failed run
            report(("error", describe_failure(exc)))
    return work


class RunController(QObject):
    """Starts, pauses, stops one run at a time and records it in the project."""

    stateChanged = Signal(str)
    started = Signal(str)               # device, e.g. "cpu" or "cuda:0"
    runRecorded = Signal(int)           # the run's id in the project
    stepsArrived = Signal(object)       # StepBatch
    evaluated = Signal(object)          # EvalEvent (after its matches are stored)
    pinsApplied = Signal(int)           # how many pins the run uses from now on
    pinsInForce = Signal(object)        # PinsApplied: the run's pins changed at that step (recorded)
    pinsQueued = Signal(object)         # the pins sent to the run, not yet applied (tuple)
    finished = Signal(object)           # FinishedEvent (after the run is closed in the project)
    errored = Signal(object)            # RunFailure
    ended = Signal(str)                 # the final status: completed, stopped or failed
    message = Signal(str)               # a line for the status bar

    def __init__(self, parent: QObject | None = None, *, min_interval: float = 0.25):
        super().__init__(parent)
        self.min_interval = min_interval
        self.state = IDLE
        self.device = ""
        self.run_id: int | None = None
        self.driver: RunProcess | None = None
        """The running child's handle (its ``step``, ``pins``, ``pid``, ``run_id``), None when idle."""
        self._reader: BackgroundJob | None = None
        self.last_step = 0
        self.total_steps = 0
        self._final = "failed"
        self.run_pins: tuple[PinnedValue, ...] = ()
        """The pins the live run's trainer uses now (those it started with, then each change applied)."""
        self.pins_from = 0
        """The step after which :attr:`run_pins` are in force."""
        self.queued_pins: tuple[PinnedValue, ...] | None = None
        """Pins sent to the run that it has not applied yet (at its next step, or on Resume)."""

    # ---- state -----------------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self.state != IDLE

    def _set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self.stateChanged.emit(state)

    # ---- commands from the GUI -------------------------------------------------------------

    def start(self, project: Project, corpus_id: int, language_id: int, config: Config,
              pins: Sequence[PinnedValue] | None = None, *, resume_run: int | None = None) -> None:
        """Start a run (or, with ``resume_run``, continue that run from its checkpoint with its
        own settings; ``config.steps`` is then its new target)."""
        if self.active:
            raise RuntimeError("a run is already active")
        pins = list(project.pins() if pins is None else pins)
        resume = None
        if resume_run is not None:
            stored = project.run(resume_run).checkpoint
            if not stored:
                raise ValueError(f"run {resume_run} has no checkpoint to resume from")
            resume = resolve_checkpoint(project.path, stored)
        spec = ProjectRunSpec(config, corpus_id, language_id, pins=tuple(pins), resume=resume,
                              resumed_from=resume_run,
                              overrides={"steps": config.steps} if resume is not None else {})
        # the child reads the run's data and records the run through its own connection to the
        # project file, with the engine's assemble_run (as `decipher run --project` does)
        request = RunRequest(project.path, spec, min_interval=self.min_interval, live_interval=LIVE_INTERVAL,
                             build=child_build)
        self.run_id = None
        self._final = "failed"
        self.driver = RunProcess(request)
        self.last_step, self.total_steps = 0, config.steps
        self.device = ""
        self.run_pins, self.pins_from, self.queued_pins = tuple(pins), 0, None
        reader = BackgroundJob(read_events(self.driver), "decipher-run-reader", self)
        reader.progressed.connect(self._on_event)
        reader.ended.connect(self._on_reader_ended)
        self._reader = reader
        self._set_state(STARTING)
        self.message.emit("Starting the run (loading the model)…")
        reader.start()

    def pause(self) -> None:
        if self.driver is not None and self.state in (RUNNING, STARTING):
            self.driver.pause()
            self.message.emit("Pausing after the current step…")

    def resume(self) -> None:
        if self.driver is not None and self.state == PAUSED:
            self.driver.resume()

    def stop(self) -> None:
        if self.driver is not None and self.state in (STARTING, RUNNING, PAUSED):
            self.driver.stop()
            self._set_state(STOPPING)
            self.message.emit("Stopping: one last evaluation, then the run ends…")

    def abort(self) -> None:
        """Stop without the final evaluation (the window is closing)."""
        if self.driver is not None and self.active:
            self.driver.abort()
            self._set_state(STOPPING)

    def send_pins(self, pins: Sequence[PinnedValue]) -> bool:
        """Queue ``pins`` for the run: a running run takes them before its next step, a paused
        one when it resumes (recorded at the step it paused at). Pins the run already has, or
        was already sent, are not sent again. False when no run can take them."""
        if self.driver is None or self.state not in (RUNNING, PAUSED, STARTING):
            return False
        pins = tuple(pins)
        if pins == (self.queued_pins if self.queued_pins is not None else self.run_pins):
            return True
        # an undo back to the pins in force still goes to the run: it replaces the queued ones
        self.driver.send_pins(pins)
        self.queued_pins = pins
        self.pinsQueued.emit(pins)
        return True

    @property
    def pins_pending(self) -> bool:
        """Whether pins were sent that the run has not applied yet (and differ from its own)."""
        return self.queued_pins is not None and self.queued_pins != self.run_pins

    def wait(self, msecs: int = 30_000) -> bool:
        """Block until the run's process has ended and its events are read (for closing the window)."""
        return True if self._reader is None else self._reader.wait(msecs)

    # ---- events from the worker (GUI thread) --------------------------------------------------

    @Slot(object)
    def _on_event(self, event: tuple[str, Any]) -> None:
        self._handle(*event)

    def _handle(self, kind: str, payload: Any) -> None:
        if kind == "started":
            self.device, self.run_id = payload
            if self.run_id is not None:
                self.runRecorded.emit(self.run_id)
            if self.state == STARTING:
                self._set_state(RUNNING)
            self.started.emit(self.device)
            self.message.emit(f"Training on {self.device}" + (f" (run {self.run_id})" if self.run_id else
                                                               " (the project did not record the run)"))
        elif kind == "steps":
            batch: StepBatch = payload
            self.last_step = batch.last.step
            self.total_steps = batch.total_steps
            self.stepsArrived.emit(batch)
        elif kind == "eval":
            self.evaluated.emit(payload)
        elif kind == "paused":
            if self.state != STOPPING:
                self._set_state(PAUSED)
            self.message.emit(f"Paused at step {payload}: pins you change now are used from step {payload} "
                              "on when you Resume")
        elif kind == "resumed":
            if self.state == PAUSED:
                self._set_state(RUNNING)
        elif kind == "pins_applied":
            change: PinsApplied = payload
            self.run_pins, self.pins_from = tuple(change.pins), change.step
            if self.queued_pins is not None and tuple(change.pins) == self.queued_pins:
                self.queued_pins = None
            self.pinsApplied.emit(len(change.pins))
            self.pinsInForce.emit(change)
            where = f" (run {self.run_id})" if self.run_id is not None else ""
            self.message.emit(f"The run uses {len(change.pins)} pinned values from step {change.step} on{where}")
        elif kind == "finished":
            self._final = "stopped" if payload.reason == "stopped" else "completed"
            self.finished.emit(payload)
        elif kind == "error":
            failure: RunFailure = payload
            self._final = "failed"
            self.errored.emit(failure)
        elif kind == "message":
            self.message.emit(str(payload))

    @Slot()
    def _on_reader_ended(self) -> None:
        final = self._final
        self._final = "failed"
        if self._reader is not None:
            self._reader.deleteLater()
        self._reader = None
        self.driver = None
        self._set_state(IDLE)
        self.ended.emit(final)


__all__ = ["RunController", "read_events", "describe_failure", "IDLE", "STARTING", "RUNNING", "PAUSED",
           "STOPPING"]
