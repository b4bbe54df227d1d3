"""One training run, from its inputs to its end, under every front end (CLI, project runner, GUI
worker thread, sweep worker): builds or resumes the trainer, drives it, takes pause / stop / pin
changes from any thread, decides when to write checkpoints, and hands every event to its sinks.

    inputs = RunInputs(corpus, vocabulary, config, gold=gold, pins=pins)      # picklable
    session = RunSession(inputs, sinks=[recorder, OutputFolder(out), ProgressBar()],
                         checkpoint=out / "checkpoint.pt")
    outcome = session.run(handle_signals=True)      # RunOutcome; raises what failed the run

Checkpoints (when a path is given): after the session's first step (an early stop can be
resumed), at every evaluation, after a start set aside as diverged (setting restarts), at least
every ``checkpoint_every_s`` seconds of the injected ``clock``, and at the end (completed, stopped, or interrupted by SIGINT/SIGTERM). A run that fails
(e.g. its loss turns NaN) writes none, so the last good checkpoint stays.

Sinks (:class:`RunSink`) receive ``started``, ``step``, ``evaluation``, ``pins_changed``,
``checkpoint``, ``paused``/``resumed``/``heartbeat``, ``message``, then ``finishing`` (write final
outputs; raising fails the run), and ``finished`` or ``failed``, and always ``close``. A sink with
``critical = False`` cannot fail the run: its errors become ``message`` calls to every sink.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from engine.config import Config
from engine.corpus import Corpus, GoldAnnotation, PinnedValue, Vocabulary
from engine.errors import DecipherError
from engine.results import EvalEvent, FinishedEvent, NoticeEvent, StepEvent, UpdatePins

#: How often a run writes a checkpoint at the least (seconds of the session's clock).
CHECKPOINT_EVERY_S = 600.0


# ---------------------------------------------------------------------------------------------
# values crossing threads and processes


@dataclass(frozen=True)
class RunInputs:
    """Everything a run is built from; picklable, so a sweep worker process or a Ray task can take it.

    With ``resume`` (a checkpoint file) the run continues from it: ``config`` is then ignored and
    the checkpoint's own settings are used with ``overrides`` on top (only what the user set
    explicitly, e.g. ``{"steps": 500}``); ``pins`` None keeps the checkpoint's pins.
    """

    corpus: Corpus
    vocabulary: Vocabulary
    config: Config = field(default_factory=Config)
    gold: tuple[GoldAnnotation, ...] = ()
    pins: tuple[PinnedValue, ...] | None = None
    resume: Path | None = None
    overrides: Mapping[str, Any] = field(default_factory=dict)
    force_resume: bool = False
    """Resume a checkpoint of another format or vocabulary all the same (``--force-resume``; recorded)."""


@dataclass(frozen=True)
class RunStart:
    """Handed to ``RunSink.started`` once the trainer exists (torch imported, data prepared)."""

    trainer: Any
    config: Config
    device: str
    """In words, e.g. ``cpu`` or ``cuda:0 (NVIDIA H200)``."""
    step: int
    """Where the run begins: 0, or the resumed checkpoint's step."""
    total_steps: int
    pins: tuple[PinnedValue, ...]
    resumed_from: Path | None = None
    """The checkpoint this run continues, if any."""
    restart: int = 0
    """The start (setting restarts) the run begins in: 0, or the resumed checkpoint's."""
    progress: tuple[int, int] | None = None
    """(steps trained, steps planned) over every start (StepEvent.progress); None: (step, total_steps)."""


@dataclass(frozen=True)
class RunOutcome:
    """How a run ended (picklable: no trainer inside)."""

    status: str
    """``completed``, ``stopped`` or ``failed``."""
    reason: str
    """``completed``, ``stopped``, ``interrupted`` (SIGINT/SIGTERM), or the failure in words."""
    step: int
    first_step: int
    wall_time_s: float
    device: str
    checkpoint: Path | None = None
    evaluation: Any = None
    """The last engine.training.evaluation.Evaluation (None if the run never evaluated)."""
    note: str | None = None
    """Why a run stopped early (a signal), for the run's record."""
    final_objective: Mapping[str, float] | None = None
    """The run's final objective over its whole corpus and its parts (engine/training/final_objective.py
    ``corpus_objective``), computed once at its end; None when it could not be (a fake trainer)."""
    diagnosis: Mapping[str, Any] | None = None
    """The gold-free diagnosis of the run's end (engine/training/diagnosis.py ``Diagnosis.to_json()``)."""
    inputs_digest: str | None = None
    """A digest of what the objective is computed from (the corpus, the known stems, the pins in
    force at the end): runs with the same digest and settings but the seed are compared
    (:func:`inputs_digest`); None without the session's inputs."""

    @property
    def steps_run(self) -> int:
        return self.step - self.first_step

    @property
    def steps_per_s(self) -> float:
        return self.steps_run / self.wall_time_s if self.wall_time_s > 0 else 0.0

    @property
    def metrics(self) -> dict[str, float]:
        return dict(self.evaluation.metrics) if self.evaluation is not None else {}


def final_status(reason: str) -> str:
    """The one rule: a stopped run stays stopped (an interrupted one too); anything else completed."""
    return "stopped" if reason in ("stopped", "interrupted") else "completed"


@dataclass(frozen=True)
class RunFailure:
    """A run that raised, in words a philologist can act on, with the traceback for a report."""

    kind: str          # "input", "memory", "numeric", "output", "internal"
    title: str
    message: str
    details: str = ""
    step: int | None = None

    @property
    def text(self) -> str:
        """One line for the run's record."""
        return f"{self.title}: {self.message}"


def describe_failure(exc: BaseException, step: int | None = None) -> RunFailure:
    """Turn an exception from the engine into words."""
    from engine.io.atomic import WriteError

    details = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    text = str(exc)
    if isinstance(exc, WriteError):
        return RunFailure("output", "An output file could not be written", text, details, step)
    if isinstance(exc, DecipherError):
        return RunFailure("input", "The run cannot start with these data", text, details, step)
    if isinstance(exc, KeyboardInterrupt):
        return RunFailure("interrupt", "Interrupted", "interrupted by the user (Ctrl-C)", details, step)
    if isinstance(exc, MemoryError) or "out of memory" in text.lower() or type(exc).__name__ == "OutOfMemoryError":
        return RunFailure("memory", "Out of memory",
                          "The run needed more memory than the machine has"
                          + (f" ({text.splitlines()[0]})" if text else "")
                          + ". Try fewer characters per batch, a shorter maximum span, a smaller "
                            "feature size, or the CPU instead of the GPU.", details, step)
    if isinstance(exc, FloatingPointError):
        return RunFailure("numeric", "The training diverged",
                          f"{text}. Try a lower learning rate, or check the pinned values "
                          "(a very large pin weight can push the loss to infinity); the last good "
                          "checkpoint is kept.", details, step)
    if isinstance(exc, ValueError):
        return RunFailure("input", "Invalid run settings", text, details, step)
    return RunFailure("internal", "The run stopped with an unexpected error",
                      f"{type(exc).__name__}: {text}", details, step)


def failure_text(exc: BaseException) -> str:
    """The one-line reason a failed run's record keeps."""
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted by the user (Ctrl-C)"
    if isinstance(exc, FloatingPointError):
        return f"the training diverged: {exc}"
    if isinstance(exc, DecipherError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


# ---------------------------------------------------------------------------------------------
# sinks


class RunSink:
    """Receives a run's events on the session's thread. Override what you need; all are no-ops.

    ``critical``: whether an exception from this sink fails the run (True) or becomes a message
    (False: e.g. the GUI keeps training when the project refuses a write)."""

    critical: bool = True
    name: str = "a run sink"

    def started(self, start: RunStart) -> None: ...
    def step(self, event: StepEvent) -> None: ...
    def evaluation(self, event: EvalEvent) -> None: ...
    def pins_changed(self, step: int, pins: tuple[PinnedValue, ...]) -> None:
        """New pins handed to the trainer: in force for the steps after ``step``."""
    def checkpoint(self, path: Path, step: int) -> None: ...
    def paused(self, step: int) -> None: ...
    def resumed(self, step: int) -> None: ...
    def heartbeat(self, step: int) -> None:
        """Every ``heartbeat_s`` of a pause: the run is alive."""
    def message(self, text: str) -> None: ...
    def estimated(self, text: str) -> None:
        """How long the run will take, said before it trains (engine/runs/estimate.py)."""
    def finishing(self, outcome: RunOutcome) -> None:
        """Write final outputs; an exception here fails the run (nothing is marked done yet)."""
    def finished(self, outcome: RunOutcome) -> None: ...
    def failed(self, error: BaseException, step: int | None) -> None: ...
    def close(self) -> None: ...


# ---------------------------------------------------------------------------------------------
# building the trainer


def build_trainer(inputs: RunInputs, *, live_interval: float | None = None):
    """A new Trainer for ``inputs``, or one resumed from ``inputs.resume``."""
    from engine.training.trainer import Trainer

    if inputs.resume is not None:
        return Trainer.from_checkpoint(inputs.resume, inputs.corpus, inputs.vocabulary, gold=inputs.gold,
                                       pins=None if inputs.pins is None else list(inputs.pins),
                                       config_overrides=dict(inputs.overrides), live_interval=live_interval,
                                       force=inputs.force_resume)
    return Trainer(inputs.corpus, inputs.vocabulary, inputs.config, gold=inputs.gold,
                   pins=list(inputs.pins or ()), live_interval=live_interval)


def assess_run(trainer) -> tuple[dict[str, float], dict] | None:
    """The final objective (with its parts) and the diagnosis (as JSON) of a trainer at its end,
    from one pass over the corpus (engine/training/diagnosis.py ``assess``); None for a trainer
    that has no prepared data and model (the fakes of tests)."""
    if getattr(trainer, "prep", None) is None or getattr(trainer, "model", None) is None:
        return None
    from engine.training.diagnosis import assess

    values, diagnosis = assess(trainer)
    return {k: float(v) for k, v in values.items()}, diagnosis.to_json()


def train_reference(trainer, vocabulary, **kw):
    """The run's reference run (engine/training/reference.py ``train_reference``), imported when used."""
    from engine.training.reference import train_reference as train

    return train(trainer, vocabulary, **kw)


def inputs_digest(corpus, vocabulary, pins) -> str:
    """One digest of a run's corpus, known stems and pins (engine/inputs_digest.py's digests of each)."""
    import hashlib

    from engine.inputs_digest import corpus_digest, values_digest, vocabulary_digest

    parts = [corpus_digest(corpus), vocabulary_digest(vocabulary), values_digest(sorted(pins or (), key=repr))]
    return hashlib.sha256("\x1f".join(parts).encode("ascii")).hexdigest()


def describe_device(trainer) -> str:
    """The trainer's device in words, e.g. ``cuda:0 (NVIDIA H200)`` or ``cpu``."""
    device = getattr(trainer, "device", "cpu")
    if getattr(device, "type", str(device)) != "cuda":
        return str(device)
    try:
        import torch

        index = device.index if device.index is not None else torch.cuda.current_device()
        return f"cuda:{index} ({torch.cuda.get_device_name(index)})"
    except Exception:  # a name is a nicety; the device string is the fact
        return str(device)


# ---------------------------------------------------------------------------------------------
# the session


@dataclass
class _Control:
    paused: bool = False
    stop: bool = False
    abort: bool = False
    note: str | None = None
    pins: tuple[PinnedValue, ...] | None = None
    cond: threading.Condition = field(default_factory=threading.Condition)


class RunSession:
    """One run. Construct on any thread, call :meth:`run` on the thread that should train; the
    control methods (:meth:`pause`, :meth:`resume`, :meth:`stop`, :meth:`abort`,
    :meth:`send_pins`) are safe from any other thread.

    ``checkpoint``: the checkpoint file, or a function of the :class:`RunStart` giving it (e.g.
    a folder named after the run id a project recorder just got), or None for no checkpoints.
    ``build(inputs, live_interval=...)`` makes the trainer (default :func:`build_trainer`; the
    GUI wraps it to import torch gently, tests pass a fake). ``live_interval``: seconds between
    live decodings of the current batch (GUI highlights); None for none.
    """

    def __init__(self, inputs: RunInputs | None, *, sinks: Sequence[RunSink] = (),
                 checkpoint: Path | str | Callable[[RunStart], Path | None] | None = None,
                 checkpoint_every_s: float = CHECKPOINT_EVERY_S, clock: Callable[[], float] = time.monotonic,
                 heartbeat_s: float = 60.0, live_interval: float | None = None,
                 build: Callable[..., Any] = build_trainer,
                 assess: Callable[[Any], tuple[dict, dict] | None] | None = assess_run,
                 reference: Callable[..., Any] | None = train_reference):
        if not checkpoint_every_s > 0:
            raise ValueError(f"checkpoint_every_s must be positive, got {checkpoint_every_s!r}")
        self.inputs = inputs
        self.sinks = list(sinks)
        self._checkpoint_spec = Path(checkpoint) if isinstance(checkpoint, str) else checkpoint
        self.checkpoint_every_s = float(checkpoint_every_s)
        self.clock = clock
        self.heartbeat_s = heartbeat_s
        self.live_interval = live_interval
        self.build = build
        self.assess = assess
        self.reference = reference
        self.trainer: Any = None
        self.step = 0
        self.checkpoint_path: Path | None = None
        self._c = _Control()
        self._saved_at: Any = None  # the trainer's position when it was saved (see _save_checkpoint)
        self._interrupted: str | None = None
        from engine.runs.estimate import StepTimer

        self.step_timer = StepTimer()   # this machine's step time, recorded at the end (estimate.py)

    # ---- control, from any thread -------------------------------------------------------------

    def pause(self) -> None:
        with self._c.cond:
            self._c.paused = True

    def resume(self) -> None:
        with self._c.cond:
            self._c.paused = False
            self._c.cond.notify_all()

    def stop(self) -> None:
        """Finish after the current step: one last evaluation, a checkpoint, status "stopped"."""
        with self._c.cond:
            self._c.stop = True
            self._c.paused = False
            self._c.cond.notify_all()
        trainer = self.trainer
        if trainer is not None:
            trainer.request_stop()

    def abort(self, note: str | None = None) -> None:
        """End after the current step without the final evaluation (a closing window, a signal):
        a checkpoint is written, the run is recorded as stopped with its last evaluation."""
        with self._c.cond:
            self._c.abort = True
            self._c.note = note
        self.stop()

    def send_pins(self, pins: Sequence[PinnedValue]) -> None:
        """Queue new pins; the trainer takes them before its next step (paused or not)."""
        with self._c.cond:
            self._c.pins = tuple(pins)

    @property
    def paused(self) -> bool:
        return self._c.paused

    @property
    def stopping(self) -> bool:
        return self._c.stop

    @property
    def pins_pending(self) -> bool:
        """Whether pins were sent that the trainer has not taken yet."""
        with self._c.cond:
            return self._c.pins is not None

    @property
    def aborted_as(self) -> str | None:
        """How an aborted run ends: "interrupted" (a signal) or "stopped"; None if not aborted."""
        if not self._c.abort:
            return None
        return "interrupted" if self._interrupted else "stopped"

    @property
    def note(self) -> str | None:
        """Why the run was aborted (abort's ``note``), None if it was not or nobody said."""
        return self._c.note

    # ---- the run ------------------------------------------------------------------------------

    def run(self, *, handle_signals: bool = False) -> RunOutcome:
        """Train to the end. ``handle_signals`` (main thread only): the first SIGINT/SIGTERM ends
        the run after the current step with a checkpoint (status stopped); a second one raises
        KeyboardInterrupt at once. Raises whatever failed the run, after the sinks were told."""
        restore = self.install_signal_handlers() if handle_signals else None
        try:
            return self._run()
        except BaseException as e:
            self.fail(e)
            raise
        finally:
            if restore is not None:
                restore()
            self.close()

    def _run(self) -> RunOutcome:
        t0 = time.perf_counter()
        self.prelude()
        trainer = self.build(self.inputs, live_interval=self.live_interval)
        self.begin(trainer, t0=t0)
        gen = trainer.run()
        try:
            event = next(gen)
            while True:
                reason, pins = self.handle(event)
                if reason is not None:
                    break
                event = gen.send(UpdatePins(pins) if pins is not None else None)
        finally:
            gen.close()
        outcome = self.end(reason)
        self._record_step_time()
        return outcome

    def prelude(self) -> None:
        """What a fresh run checks and says before its trainer is built (run() does it; a driver that
        builds the trainer itself, engine/training/lockstep.py train_sessions, calls it): a corpus
        too large refused, a large one noted, the settings' warnings, the time estimate."""
        if self.inputs is None or self.inputs.resume is not None:
            return
        from engine.model.prepared import check_memory

        note = check_memory(self.inputs.corpus, self.inputs.config)  # refuses a corpus too large
        if note:
            self.message(note)   # before the trainer takes that memory
        from engine.runs.warnings import run_warnings

        # what the settings make impossible (too many signs for letters, unreachable gold, a schedule
        # cut short), each in one line, before anything trains (a resumed run was told when it began)
        for line in run_warnings(self.inputs.corpus, self.inputs.vocabulary, self.inputs.gold,
                                 self.inputs.config):
            self.message(line)
        self._tell_estimate()

    def _tell_estimate(self) -> None:
        """The run's time from this machine's earlier step times (engine/runs/estimate.py), to the
        sinks that take it (the CLI's progress bar prints it on stderr)."""
        from engine.runs.estimate import estimate, planned_steps, run_shape
        from engine.training.reference import wanted

        inputs = self.inputs
        try:
            corpus_chars = sum(len(ins.units) for ins in inputs.corpus.inscriptions)
            text = estimate(run_shape(inputs.config, corpus_chars, len(inputs.vocabulary.stems)),
                            planned_steps(inputs.config), reference=self.reference is not None
                            and wanted(inputs.config)).text()
        except Exception as e:  # noqa: BLE001 - an estimate is never worth a failed run
            logging.getLogger(__name__).warning("no time estimate: %s", e)
            return
        for sink in self.sinks:
            if hasattr(sink, "estimated"):
                self._call_quietly(sink, "estimated", text)

    def _record_step_time(self) -> None:
        """This machine's seconds per step for estimates of later runs (engine/runs/estimate.py);
        nothing when too few steps were timed. Never fails the run."""
        from engine.runs.estimate import record_step_time, run_shape

        per_step = self.step_timer.seconds_per_step
        start = getattr(self, "_start", None)
        if per_step is None or self.inputs is None or start is None:
            return
        try:
            corpus_chars = sum(len(ins.units) for ins in self.inputs.corpus.inscriptions)
            shape = run_shape(start.config, corpus_chars, len(self.inputs.vocabulary.stems),
                              "cuda" if str(start.device).startswith("cuda") else "cpu")
            record_step_time(shape, per_step, self.step_timer.intervals)
        except Exception as e:  # noqa: BLE001 - an estimate's record is never worth a failed run
            logging.getLogger(__name__).warning("step time not recorded: %s", e)

    # ---- the run's three phases, for a driver that feeds the events itself ---------------------
    # (run() is begin, handle for each event of trainer.run(), end; the seeds trained in lockstep,
    # engine/training/lockstep.py train_seeds, drive one session per seed this way)

    def begin(self, trainer: Any, *, t0: float | None = None) -> RunStart:
        """Take ``trainer`` (built, not yet run): tell the sinks ``started`` and choose the checkpoint."""
        self._t0 = time.perf_counter() if t0 is None else t0
        self.trainer = trainer
        if self._c.stop:
            trainer.request_stop()
        config = getattr(trainer, "config", None) or (self.inputs.config if self.inputs else Config())
        first = int(getattr(trainer, "step", 0))
        self.step = self._first = first
        pins = getattr(trainer, "pins", None)
        if pins is None:
            pins = (self.inputs.pins if self.inputs is not None else None) or ()
        progress = getattr(trainer, "progress_of", None)
        start = RunStart(trainer, config, describe_device(trainer), first, config.steps, tuple(pins),
                         self.inputs.resume if self.inputs is not None else None,
                         int(getattr(trainer, "restart", 0)), progress() if callable(progress) else None)
        self._start = start
        self._each_critical("started", start)
        for why in getattr(trainer, "forced_resume", None) or ():
            self.message(f"warning: resumed with --force-resume although {why}")
        spec = self._checkpoint_spec
        path = spec(start) if callable(spec) else spec
        self.checkpoint_path = Path(path) if path is not None else None
        self._last_checkpoint = self.clock()
        self._took_first = False
        return start

    def handle(self, event: Any, *, take_pins: bool = True) -> tuple[str | None, tuple[PinnedValue, ...] | None]:
        """One event of the trainer: to the sinks, checkpointed when due, then pause, stop and pins
        applied. Returns (the reason the run ends, or None to go on; the pins to send the trainer
        before its next step, or None). ``take_pins`` False leaves sent pins queued
        (:attr:`pins_pending`), for a driver whose trainers cannot change them."""
        self.step_timer.event_arrived(isinstance(event, StepEvent))
        try:
            return self._handle(event, take_pins)
        finally:
            self.step_timer.event_handled()

    def _handle(self, event: Any, take_pins: bool) -> tuple[str | None, tuple[PinnedValue, ...] | None]:
        if isinstance(event, StepEvent):
            self.step = event.step
            self._each_critical("step", event)
            if not self._took_first or self.clock() - self._last_checkpoint >= self.checkpoint_every_s:
                self._save_checkpoint()
                self._took_first, self._last_checkpoint = True, self.clock()
        elif isinstance(event, EvalEvent):
            self.step = event.step
            self._each_critical("evaluation", event)
            self._save_checkpoint()
            self._took_first, self._last_checkpoint = True, self.clock()
        elif isinstance(event, NoticeEvent):
            # e.g. a diverged start set aside (setting restarts): told to every sink, and
            # checkpointed, so that a resumed run neither trains it again nor forgets it
            self.message(event.text)
            self._save_checkpoint()
        elif isinstance(event, FinishedEvent):
            return event.reason, None
        self._wait_while_paused()
        if self._c.abort:
            if self._interrupted:
                self.message(f"{self._interrupted}: stopping after this step and writing a checkpoint "
                             "(send it again to stop at once)")
            return self.aborted_as, None
        if self._c.stop:
            self.trainer.request_stop()
        if not take_pins:
            return None, None
        pins = self._take_pins()
        if pins is not None:
            self._each_critical("pins_changed", self.step, pins)
        return None, pins

    def end(self, reason: str) -> RunOutcome:
        """The run's last checkpoint and outcome: sinks get ``finishing`` (may fail the run), then
        ``finished``. (``failed`` and ``close`` are the driver's to send, as :meth:`run` does.)"""
        self._save_checkpoint()
        final, diagnosis = self._assess()
        wall = time.perf_counter() - self._t0      # the run's own time: its reference run's is not its
        if reason == "completed":
            diagnosis = self._with_reference(final, diagnosis)
        digest = None
        if diagnosis is not None and self.inputs is not None:
            pins = getattr(self.trainer, "pins", None)
            digest = inputs_digest(self.inputs.corpus, self.inputs.vocabulary,
                                   pins if pins is not None else (self.inputs.pins or ()))
        outcome = RunOutcome(final_status(reason), reason, self.step, self._first, wall,
                             self._start.device, self.checkpoint_path if self._saved_at is not None else None,
                             getattr(self.trainer, "last_evaluation", None), self._c.note, final, diagnosis, digest)
        self._each_critical("finishing", outcome)
        self._each("finished", outcome)
        return outcome

    def _assess(self) -> tuple[dict | None, dict | None]:
        """The final objective and diagnosis every run that ends stores (stopped ones too): one
        pass over the corpus, shared by every sink through the outcome. A check that raises does
        not fail the run: the sinks are told, and the run is stored without a diagnosis. An aborted
        run (a closing window, a signal) ends at once, without it, as it ends without its final
        evaluation."""
        if self.assess is None or self.trainer is None or self._c.abort:
            return None, None
        try:
            got = self.assess(self.trainer)
        except Exception as exc:  # noqa: BLE001 - a diagnosis is advice; the run's results stand
            self.message(f"note: no diagnosis of this run ({type(exc).__name__}: {exc})")
            return None, None
        return (None, None) if got is None else got

    def _with_reference(self, final: dict | None, diagnosis: dict | None) -> dict | None:
        """The diagnosis with the reference run's finding (setting ``reference_null``;
        engine/training/reference.py): trained here, after the run's last step, when the setting
        wants one for this run. A stop or abort during it leaves the diagnosis without it; a reference
        that cannot be trained is a note, never a failed run."""
        from engine.training.reference import wanted

        trainer = self.trainer
        if self.reference is None or diagnosis is None or not final or "objective" not in final \
                or self.inputs is None or getattr(trainer, "prep", None) is None or not wanted(trainer.config):
            return diagnosis
        t0 = time.perf_counter()
        try:
            ref = self.reference(trainer, self.inputs.vocabulary, stop=lambda: self._c.stop or self._c.abort,
                                 tell=self.message)
        except Exception as exc:  # noqa: BLE001 - the reference is advice; the run's results stand
            self.message(f"note: no reference run ({type(exc).__name__}: {exc})")
            return diagnosis
        if ref is None:
            self.message("note: the reference run was stopped; the diagnosis goes without it")
            return diagnosis
        from engine.training.diagnosis import diagnosis_from, referenced

        out = referenced(diagnosis_from(diagnosis), final["objective"], ref)
        out.values["diagnosis_reference_wall_s"] = round(time.perf_counter() - t0, 3)
        return out.to_json()

    def fail(self, error: BaseException) -> None:
        """Tell every sink the run failed (at the current step when the trainer exists)."""
        self._each("failed", error, self.step if self.trainer is not None else None)

    def close(self) -> None:
        """Tell every sink the run is over (always last)."""
        self._each("close")

    def _save_checkpoint(self) -> None:
        # the step alone is not enough: with restarts every start counts from 0 and the kept start
        # goes on from the step the last one ended at (Trainer.position says which start)
        at = (getattr(self.trainer, "position", None), self.step)
        if self.checkpoint_path is None or self._saved_at == at:
            return
        from engine.io.atomic import refuse_symlinks

        self.checkpoint_path.parent.mkdir(parents=True, exist_ok=True)
        # the checkpoint's name is the program's: a link planted there is refused, never written through
        refuse_symlinks(self.checkpoint_path, self.checkpoint_path.parent)
        self.trainer.save_checkpoint(self.checkpoint_path)
        self._saved_at = at
        self._each_critical("checkpoint", self.checkpoint_path, self.step)

    def _take_pins(self) -> tuple[PinnedValue, ...] | None:
        with self._c.cond:
            pins, self._c.pins = self._c.pins, None
        return pins

    def _wait_while_paused(self) -> None:
        with self._c.cond:
            if not self._c.paused or self._c.stop:
                return
        self._each("paused", self.step)
        while True:
            with self._c.cond:
                if not self._c.paused or self._c.stop:
                    break
                self._c.cond.wait(self.heartbeat_s)
                if not self._c.paused or self._c.stop:
                    break
            self._each("heartbeat", self.step)  # a long pause is not a dead run
        self._each("resumed", self.step)

    # ---- sinks --------------------------------------------------------------------------------

    def _each_critical(self, method: str, *args) -> None:
        """Call every sink; a critical sink's exception fails the run, another's becomes a message."""
        for sink in self.sinks:
            if getattr(sink, "critical", True):
                getattr(sink, method)(*args)
            else:
                self._call_quietly(sink, method, *args)

    def _each(self, method: str, *args) -> None:
        """Call every sink; no exception stops the others (the run's end is being told)."""
        for sink in self.sinks:
            self._call_quietly(sink, method, *args)

    def _call_quietly(self, sink: RunSink, method: str, *args) -> None:
        try:
            getattr(sink, method)(*args)
        except Exception as exc:
            if method == "message":
                return
            text = exc if isinstance(exc, DecipherError) else f"{type(exc).__name__}: {exc}"
            self._each("message", f"Could not write {getattr(sink, 'name', 'a run sink')}: {text}")

    def message(self, text: str) -> None:
        """Tell every sink something (e.g. a CLI note)."""
        self._each("message", text)

    # ---- signals ------------------------------------------------------------------------------

    def install_signal_handlers(self) -> Callable[[], None] | None:
        """On the main thread: the first SIGINT/SIGTERM aborts this session after the current step
        (status interrupted, with a checkpoint), a second raises KeyboardInterrupt. Returns what
        restores the old handlers (None off the main thread: nothing installed)."""
        if threading.current_thread() is not threading.main_thread():
            return None
        wanted = [signal.SIGINT] + ([signal.SIGTERM] if hasattr(signal, "SIGTERM") else [])
        old = {s: signal.getsignal(s) for s in wanted}

        def restore() -> None:
            for s, handler in old.items():
                signal.signal(s, handler)

        def on_signal(signum, frame) -> None:
            name = signal.Signals(signum).name
            if self._interrupted is not None:  # the second one: stop now, without a checkpoint
                restore()
                raise KeyboardInterrupt
            self._interrupted = name  # told to the sinks by the loop, not from inside the handler
            self.abort(f"interrupted by {name}" + (" (Ctrl-C)" if signum == signal.SIGINT else ""))

        for s in wanted:
            signal.signal(s, on_signal)
        return restore
