"""The live-run bridge: starts, pauses and stops runs through the RunController and turns its
signals into updates of the session state and the views (GUI thread only)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEventLoop, QObject, QTimer

from engine.config import Config
from engine.errors import DecipherError
from engine.results import EvalEvent, FinishedEvent
from engine.training.reference import STARTED as REFERENCE_STARTED

from . import queries
from .driver import RunFailure, StepBatch
from .errors import describe
from .worker import IDLE, PAUSED, RunController

if TYPE_CHECKING:
    from .view import WindowView

#: While a run trains, the plots, the views that follow its steps (span highlights, pin grid, sign
#: values) and the views that follow an evaluation (matches, the run's row) are redrawn at most once
#: per UPDATE_EVERY_MS each, a third of a period apart, so that no turn of the event loop repaints
#: them all at once: each costs ~5-10 ms of CPU, and on a busy machine the window gets a fraction of a
#: core, so a turn's wall time is a few times its CPU (docs/benchmarks.md, "GUI responsiveness").
UPDATE_EVERY_MS = 1000
#: A run's end redraws its views one part per turn of the event loop (its last evaluation's plot
#: points, the runs table, the matches, their span marks, the mapping), this far apart: each part's
#: paint comes and goes before the next part starts.
END_STAGE_MS = 30

log = logging.getLogger("decipher_gui")

RUN_WORDS = {"idle": "Idle", "starting": "Starting run…", "running": "Running", "paused": "Paused",
             "stopping": "Stopping…"}


PHASE_TIP = ("pseudo-words: the run first trains on the words a model of the text finds in it, each matched to a "
             "stem (setting words_first), then on spans anywhere in the text. onsets only: a syllabary's signs are "
             "first matched by their onsets alone, like a consonantal script, then by onset and vowel (setting "
             "onsets_first).")
"""The Run panel's state line's tooltip while a step trains on part of the problem (StepEvent.phase)."""


class LiveRunBridge(QObject):
    """Owns the run controller's wiring; the window stays a view of :class:`SessionState`."""

    def __init__(self, window: "WindowView"):
        super().__init__(window)
        self.w = window
        self.state = window.state
        self.controller: RunController = window.controller
        c = self.controller
        c.stateChanged.connect(self.set_run_state)
        c.started.connect(self._on_started)
        c.runRecorded.connect(self._on_run_recorded)
        c.stepsArrived.connect(self._on_steps)
        c.evaluated.connect(self._on_eval)
        c.finished.connect(self._on_finished)
        c.pinsInForce.connect(self._on_pins_in_force)
        c.pinsQueued.connect(lambda _pins: window.show_pin_state())
        c.errored.connect(self._on_run_error)
        c.ended.connect(self._on_ended)
        c.message.connect(self._on_message)
        self._plot_records: list = []  # step records not yet drawn
        self._eval_point: tuple | None = None  # the newest evaluation's plot points, not yet drawn
        self._eval_row: tuple[int, dict] = (0, {})  # the newest evaluation's step and metrics
        self._views_due = False  # the views that follow the steps
        self._eval_due = False  # the views that follow an evaluation
        self._phase = 0
        self._tick = QTimer(self)
        self._tick.setInterval(UPDATE_EVERY_MS // 3)
        self._tick.timeout.connect(self._on_tick)
        self._end_parts: list = []  # a run's end: the redraws still to come, one per turn
        self._end_timer = QTimer(self)
        self._end_timer.setSingleShot(True)
        self._end_timer.setInterval(END_STAGE_MS)
        self._end_timer.timeout.connect(self._end_part)

    # ---- commands ----------------------------------------------------------------------------

    def start_run(self, config: Config) -> bool:
        """Start one run of ``config`` on the chosen corpus and language (the run coordinator has
        read the form and checked that it may start: decipher_gui/coordinator.py)."""
        w, s = self.w, self.state
        project = s.project
        if project is None or self.controller.active or s.corpus_id is None or s.language_id is None:
            return False
        self._finish_end()  # the previous run's end redraws first: they read the session this run resets
        s.start_live()
        w.runs.clear_run_warnings()
        self._plot_records, self._eval_point, self._views_due, self._eval_due = [], None, False, False
        self._eval_row = (0, {})
        w.plots.reset_run()
        w.plots.set_step_range(config.steps)
        w.runs.set_progress(0, config.steps)
        try:
            self.controller.start(project, s.corpus_id, s.language_id, config)
        except (DecipherError, RuntimeError) as exc:
            w.report_error(*describe(exc))
            return False
        return True

    def _on_message(self, text: str) -> None:
        self.w.statusBar().showMessage(text, 8000)
        if text.startswith(REFERENCE_STARTED):   # the run's steps are done; its reference run trains
            self.w.runs.show_reference_phase()
        if text.startswith("warning: "):  # engine/runs/warnings.py: kept in the Run panel, not only flashed
            self.w.runs.add_run_warning(text)

    def toggle_pause(self) -> None:
        if self.controller.state == PAUSED:
            self.controller.resume()
        else:
            self.controller.pause()

    def stop_run(self) -> None:
        self.controller.stop()

    def shutdown(self) -> None:
        """The window closes: an active run ends after its current step and records itself as
        stopped (waiting up to a minute, then it shows as interrupted)."""
        if not self.controller.active:
            return
        self.w.statusBar().showMessage("Stopping the run before closing…")
        self.controller.abort()
        if not self.controller.wait(60_000):
            log.warning("the run did not stop within a minute; it will show as interrupted")
        for _ in range(3):
            QCoreApplication.sendPostedEvents()
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)

    def send_pins(self) -> None:
        """Hand the project's pins to the active run (every pin change does this by itself)."""
        if self.state.project is None or not self.controller.active:
            return
        pins = self.w.model.pins()
        if not self.controller.send_pins(pins):
            return
        if not self.controller.pins_pending:
            return
        if self.controller.state == PAUSED:
            text = (f"{len(pins)} pinned values will be used from step {self.controller.last_step} on when you "
                    "Resume; until then the readings shown are without them")
        else:
            text = f"{len(pins)} pinned values go to the run at its next step; the readings shown are without them until then"
        self.w.statusBar().showMessage(text, 8000)

    # ---- controller signals --------------------------------------------------------------------

    def set_run_state(self, run_state: str) -> None:
        w = self.w
        w.runs.set_state(run_state)
        if run_state == "starting":
            # a plain bar at step 0, not the style's busy animation: that repaints ~60 times a
            # second for the whole start-up, and on a busy machine the scheduler then hands the
            # window its share of a core late (gaps of 0.5 s measured; docs/benchmarks.md)
            w.runs.set_progress(0, self.controller.total_steps)
        text = RUN_WORDS.get(run_state, run_state)
        if self.controller.run_id is not None and run_state != IDLE:
            text = f"Run {self.controller.run_id}: {text}"
        w.status_run.setText(text)
        busy = run_state in ("running", "paused", "starting")
        w.acts.start.setEnabled(run_state == IDLE)
        w.acts.pause.setEnabled(busy)
        w.acts.stop.setEnabled(busy)
        w.pins.set_live(self.controller.active)

    def _on_pins_in_force(self, _change) -> None:
        """The run applied (and recorded) a pin change: its row and the pin marks follow."""
        self.w.refresh_runs(select=self.state.shown_run)
        self.w.show_pin_state()

    def _on_started(self, device: str) -> None:
        self.w.runs.set_device(device)
        kind = "CUDA" if device.startswith("cuda") else "CPU"
        self.w.status_device.setText(f"Device: {kind}" + ("" if device == "cpu" else f" — {device}"))

    def _on_run_recorded(self, run_id: int) -> None:
        w = self.w
        self.state.record_live(run_id)
        w.refresh_runs(select=run_id)
        w.update_marks()
        w.update_other_closeness()
        w.matches.set_matches([], w.refs(), {}, f"Run {run_id}: no evaluation yet")

    def _on_steps(self, batch: StepBatch) -> None:
        s, w = self.state, self.w
        s.live_step = batch.last.step
        # with restarts the bar counts every start's steps (it does not go back when a start begins)
        done, planned = batch.progress or (batch.last.step, batch.total_steps)
        w.runs.set_progress(done, planned, f"run {s.live_run}")
        where = f"start {batch.last.restart}, " if batch.progress is not None else ""
        # what the step trained on, when not the whole model on the text (pseudo-words, onsets only)
        phase = f" ({batch.last.phase})" if batch.last.phase else ""
        w.runs.set_state(self.controller.state, f"{where}step {batch.last.step} of {batch.total_steps}{phase}, "
                                                f"loss {batch.last.losses.get('total', float('nan')):.3f}")
        w.runs.state_label.setToolTip(PHASE_TIP if phase else "")
        s.live_matches = batch.live_matches
        if batch.mapping is not None:
            s.live_mapping = batch.mapping
        # the costly redraws later, each on its own turn of the event loop (UPDATE_EVERY_MS)
        self._plot_records.extend(batch.records)
        self._views_due = True
        if not self._tick.isActive():
            self._tick.start()

    def _on_tick(self) -> None:
        self._phase = (self._phase + 1) % 3
        if self._phase == 0:
            self._flush_plots()
        elif self._phase == 1 and self._views_due:
            self._views_due = False
            self._after_steps()
        elif self._phase == 2 and self._eval_due:
            self._eval_due = False
            self._after_eval()
        if not (self._plot_records or self._eval_point or self._views_due or self._eval_due):
            self._tick.stop()

    def _flush_plots(self, evaluation: bool = True) -> None:
        records, self._plot_records = self._plot_records, []
        if records:
            self.w.plots.add_steps(records)
        if evaluation:
            self._flush_evaluation()

    def _flush_evaluation(self) -> None:
        point, self._eval_point = self._eval_point, None
        if point is not None:  # after the steps before it
            self.w.plots.add_evaluation(*point)

    def _after_steps(self) -> None:
        s = self.state
        if s.shown_run != s.live_run or s.project is None:
            return
        if s.live_mapping is not None:
            self.w.show_mapping()
        self.w.update_marks()

    def _on_eval(self, event: EvalEvent) -> None:
        """The session takes the evaluation now; its plot points and views are drawn by the tick,
        each on a turn of its own (drawn together they were the longest turns of a run)."""
        s = self.state
        self._eval_point = (event.step, dict(event.metrics), event.closeness,
                            queries.live_label(s.project, s.live_run))
        if event.mapping is not None:
            s.live_mapping = event.mapping
        s.eval_matches = event.matches
        self._eval_row = (event.step, dict(event.metrics))
        self._eval_due = True
        if not self._tick.isActive():
            self._tick.start()

    @property
    def last_eval_step(self) -> int:
        """The step of the live run's newest evaluation (0: none yet)."""
        return self._eval_row[0]

    def _after_eval(self) -> None:
        s = self.state
        if s.project is None:
            return
        if s.shown_run == s.live_run and s.live_run is not None:
            s.live_matches = ()
            # the span marks with the views that follow the steps (the tick's next views turn):
            # with the matches table in one turn, their paints were a run's longest turn
            self.w.load_shown_matches(s.eval_matches, marks=False)
            self._views_due = True
        # only the live run's row changed: update it in place (re-reading every run from the
        # project cost the longest gaps under load; the whole table is re-read when the run ends)
        step, metrics = self._eval_row
        if s.live_run is None or not self.w.runs.update_run_row(s.live_run, step, metrics):
            QTimer.singleShot(0, lambda: self.w.refresh_runs(select=s.shown_run))

    def _on_finished(self, event: FinishedEvent) -> None:
        self.w.statusBar().showMessage(f"Run {self.state.live_run} {event.reason} after {event.step} steps "
                                       f"({event.elapsed:.1f} s)", 10000)

    def _on_run_error(self, failure: RunFailure) -> None:
        text = failure.message
        if failure.step:
            text += f"\n\n(at step {failure.step}; the results so far are kept in the project)"
        self.w.report_error(failure.title, text, failure.details)

    def _on_ended(self, status: str) -> None:
        """The run ended: its last steps' plot points and its state now, then its last evaluation's
        points, the runs table, the matches, their span marks and the mapping, one per turn
        (END_STAGE_MS apart; in one turn they were a run's longest), and ``runEnded`` once all are
        shown."""
        s, w = self.state, self.w
        self._tick.stop()
        self._flush_plots(evaluation=False)
        self._views_due = self._eval_due = False
        s.live_matches = ()
        w.runs.set_state(IDLE, f"last run {status}")

        def matches() -> None:
            if s.shown_run is not None:
                w.load_shown_matches(marks=False)

        self._end_parts = [self._flush_evaluation, lambda: w.refresh_runs(select=s.shown_run), matches,
                           w.update_marks, w.show_mapping, lambda: w.runEnded.emit(status)]
        self._end_timer.start()

    def _end_part(self) -> None:
        if not self._end_parts:
            return
        part = self._end_parts.pop(0)
        if self._end_parts:  # before the part: one that fails does not hold back the rest
            self._end_timer.start()
        part()

    def _finish_end(self) -> None:
        """The end's redraws still to come, now (a new run starts)."""
        self._end_timer.stop()
        while self._end_parts:
            self._end_parts.pop(0)()
