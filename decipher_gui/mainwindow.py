"""The main window, a view: docks for corpora, known languages, pinned values, sign values, runs,
matches and plots around the inscription view, and the status bar.

What it shows is worked out by its model, :class:`~decipher_gui.model.WindowModel` (Qt-free, the
window's only way to the project, holding the :class:`~decipher_gui.state.SessionState`); the window
draws it. What Start starts is the model's run coordinator (decipher_gui.coordinator), reached
through the Run panel's form (decipher_gui.runform); runs are driven by decipher_gui.live and
decipher_gui.seedgroup; the data panels are filled by decipher_gui.dataviews; menus, shortcuts, file
dialogs, imports and exports are decipher_gui.actions; edits are the model's commands, executed on
the document's undo stack. Those helpers see the window through decipher_gui.view.WindowView and
none imports this module.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QByteArray, Signal
from PySide6.QtWidgets import QDockWidget, QMainWindow

from engine.io import display as display_tables
from engine.config import Config
from engine.errors import DecipherError
from engine.results import MappingSnapshot, Match

from decipher_gui import settings
from decipher_gui.actions import WindowActions
from decipher_gui.dataviews import DataViews
from decipher_gui.dialogs import error_box
from decipher_gui.document import ProjectDocument
from decipher_gui.errors import describe
from decipher_gui.live import LiveRunBridge
from decipher_gui.model import LiveRun, WindowModel, open_project_file
from decipher_gui.panels.layout import add_display_hint, build_panels, build_status, fit_docks
from decipher_gui.panels.selection import SpanSelection
from decipher_gui.screenshot import process_until
from decipher_gui.seedgroup import SeedGroupBridge
from decipher_gui.pinstate import PinState
from decipher_gui.queries import diagnosis_note
from decipher_gui.runform import RunFormBridge
from decipher_gui.view import APP_TITLE
from decipher_gui.worker import PAUSED, RunController

log = logging.getLogger("decipher_gui")


class MainWindow(QMainWindow):
    projectOpened = Signal(str)
    runEnded = Signal(str)

    def __init__(self, parent=None, *, restore_state: bool = True):
        super().__init__(parent)
        self.doc: ProjectDocument | None = None
        self.model = WindowModel()
        self.state = self.model.state
        self.controller = RunController(self)
        self.last_error: tuple[str, str] | None = None
        self._closing = False
        self._docks_fitted = False   # the docks get their shares of the window at its first show
        self.save_state_on_close = restore_state
        self.setWindowTitle(APP_TITLE)
        self.resize(1500, 950)
        self.setDockNestingEnabled(True)
        build_panels(self)
        self.data = DataViews(self)
        self.run_form = RunFormBridge(self)
        self.selection = SpanSelection(self.inscriptions, self.matches, self.model, lambda: self.current_mapping()[0],
                                       self.decide, self)
        self.acts = WindowActions(self)
        build_status(self)
        self.live = LiveRunBridge(self)
        self.seed_groups = SeedGroupBridge(self)
        self._connect()
        self.live.set_run_state(self.controller.state)
        if restore_state:
            self.restore_window()

    # ==== construction ==============================================================================

    def docks(self) -> tuple[QDockWidget, ...]:
        return (self.corpora_dock, self.languages_dock, self.runs_dock, self.matches_dock,
                self.pins_dock, self.signs_dock, self.plots_dock)

    def _connect(self) -> None:
        r = self.runs
        r.startRequested.connect(self.start_run)
        r.pauseRequested.connect(self.controller.pause)
        r.resumeRequested.connect(self.controller.resume)
        r.stopRequested.connect(self.stop_run)
        r.saveDefaultsRequested.connect(self.run_form.save_defaults)
        r.restoreDefaultsRequested.connect(self.run_form.load_defaults)
        r.presetChosen.connect(self.run_form.apply_preset)
        r.runChosen.connect(self.show_run)
        r.corpus.currentIndexChanged.connect(lambda _: self.data.choose_corpus(r.corpus.currentData()))
        r.language.currentIndexChanged.connect(lambda _: self.data.choose_language(r.language.currentData()))
        r.form.changed.connect(r.check_span_limits)
        self.corpora.corpusChosen.connect(self.data.choose_corpus)
        self.corpora.inscriptionChosen.connect(self.selection.scroll_to_inscription)
        self.languages.languageChosen.connect(self.data.choose_language)
        p = self.pins
        p.toggleRequested.connect(self.toggle_pin)
        p.pinRequested.connect(self.set_pin)
        p.unpinRequested.connect(lambda pin: self.toggle_pin(pin.lost, pin.known_ipa))
        p.clearRequested.connect(self.clear_pins)
        self.signs.exportRequested.connect(self.acts.export_sign_values_dialog)
        m = self.matches
        m.decideRequested.connect(self.decide)
        m.exportRequested.connect(self.acts.export_matches_dialog)
        self.plots.exportRequested.connect(self.acts.export_plot_dialog)

    # ==== compatibility names (tests, screenshot mode) ================================================

    @property
    def project(self):
        return None if self.doc is None else self.doc.project

    @property
    def shown_matches(self) -> list[Match]:
        return self.state.shown_matches

    @property
    def shown_run(self) -> int | None:
        return self.state.shown_run

    def start_run(self, config: Config | None = None) -> bool:
        return self.run_form.start(config)  # one run, or a seed group (Run panel ▸ Seeds)

    def stop_run(self) -> None:
        self.live.stop_run()

    @property
    def display(self) -> display_tables.DisplayTable:
        return self.model.display

    def refs(self) -> dict[str, str]:
        return self.model.refs()

    def live_run(self) -> LiveRun:
        """What the controller says of the training run, for the model."""
        c = self.controller
        return LiveRun(c.active, c.state == PAUSED, c.pins_from, tuple(c.run_pins), bool(c.pins_pending),
                       self.live.last_eval_step)

    # ==== projects ==================================================================================

    def open_project(self, path: str | Path, *, create_sample: bool = False) -> bool:
        """Open a project file (closing the current one); False with a message when it cannot."""
        if self.controller.active:
            self.report_error("A run is active", "Stop the run before opening another project file.")
            return False
        path = Path(path)
        try:
            project = open_project_file(path, create_sample=create_sample)
        except (DecipherError, OSError) as exc:
            self.report_error(*describe(exc))
            return False
        self._set_document(ProjectDocument(project, self))
        settings.add_recent(path)
        for note in self.model.opening_notes():
            self.statusBar().showMessage(note, 15000)
        add_display_hint(self)
        self.projectOpened.emit(str(path))
        return True

    def _set_document(self, doc: ProjectDocument) -> None:
        if self.doc is not None:
            self.doc.close()
            self.doc.deleteLater()
        self.doc = doc
        self.model.reset(doc.project)
        self.acts.follow_undo_stack(doc.undo_stack)
        doc.undo_stack.cleanChanged.connect(lambda clean: self.setWindowModified(not clean))
        doc.pinsChanged.connect(self._refresh_pins)
        doc.decisionsChanged.connect(lambda _: self._refresh_decisions())
        doc.dataChanged.connect(self.data.refresh)
        doc.runsChanged.connect(self.refresh_runs)
        doc.settingsChanged.connect(self.run_form.load_defaults)
        doc.displayChanged.connect(self.data.apply_display)
        doc.failed.connect(self.report_error)
        self.setWindowTitle(f"{doc.name} — {doc.path} [*] — {APP_TITLE}")
        self.setWindowModified(False)
        self.status_file.setText(f"Project: {doc.path.name}")
        self.status_file.setToolTip(str(doc.path))
        self._clear_run_views()
        self.data.refresh()
        self.run_form.load_defaults()
        self.refresh_runs()
        newest = self.model.newest_run_with_matches()
        if newest is not None:
            self.show_run(newest)
        self._refresh_pins()

    def _clear_run_views(self) -> None:
        """Nothing of a previous project's runs stays on screen (issue 14, item 1)."""
        self.plots.reset_run()
        self.plots.set_other_closeness({})
        self.matches.set_matches([], {}, {}, "No run shown")
        self.runs.reset_progress()
        self.seed_groups.show_group_of(None)
        self.inscriptions.view.clear_span()
        self.inscriptions.view.model().set_marks({})
        self.inscriptions.details.set_mark(None)
        self.status_device.setText("Device: —")
        self.show_mapping()

    def save_as(self, path: str | Path) -> bool:
        if self.doc is None:
            return False
        if self.controller.active:
            self.report_error("A run is active", "Stop the run before saving the project under another name.")
            return False
        path = Path(path)
        if path.suffix != ".decipher":
            path = path.with_suffix(".decipher")
        try:
            self.model.save_as(path)
        except (DecipherError, OSError) as exc:
            self.report_error(*describe(exc))
            return False
        settings.add_recent(path)
        self.doc.undo_stack.setClean()
        self.setWindowTitle(f"{self.doc.name} — {path} [*] — {APP_TITLE}")
        self.status_file.setText(f"Project: {path.name}")
        return True

    # ==== data panels ===============================================================================

    def set_known_display_table(self, table: display_tables.DisplayTable) -> bool:
        """Store ``table`` for the chosen known language (undoable); every view follows."""
        return self.execute(self.model.set_known_display_table(table))

    def set_display_table(self, table: display_tables.DisplayTable) -> bool:
        """Store ``table`` for the chosen corpus (undoable); every view follows."""
        return self.execute(self.model.set_display_table(table))

    # ==== pins and edits ============================================================================

    def _refresh_pins(self) -> None:
        if self.project is None:
            return
        self.pins.set_pins(self.model.pins())
        self.live.send_pins()  # a pin is never lost: the active run takes it at its next step or on Resume
        self.show_mapping()

    def toggle_pin(self, lost: str, known: str) -> None:
        self.execute(self.model.toggle_pin(lost, known))

    def set_pin(self, pin) -> None:
        self.execute(self.model.set_pin(pin))

    def clear_pins(self) -> None:
        self.execute(self.model.clear_pins())

    def execute(self, command) -> bool:
        """Execute one of the model's commands on the undo stack (False: none, or refused)."""
        if command is None or self.doc is None:
            return False
        try:
            self.doc.execute(command)
        except (DecipherError, OSError, ValueError) as exc:
            self.report_error(*describe(exc))
            return False
        return True

    def decide(self, match: Match, form: str, status: str) -> bool:
        return self.execute(self.model.decide(match, form, status))

    # ==== the shown run ===============================================================================

    def refresh_runs(self, select: int | None = None) -> None:
        history = self.model.run_history()
        if history is None:
            return
        self.runs.set_seed_groups(self.seed_groups.markers())
        self.runs.set_runs(history.runs, history.languages, history.metrics,
                           select if select is not None else self.state.shown_run, pins=history.pins,
                           diagnoses=history.diagnoses)
        shown = next((r for r in history.runs if r.id == self.state.shown_run), None)
        self.runs.set_diagnosis(*diagnosis_note(shown, history.diagnoses.get(self.state.shown_run), self.model.display))

    def show_run(self, run_id: int) -> None:
        """Show a stored (or the live) run: its corpus, its known language, matches, plots, mapping."""
        if self.project is None:
            return
        try:
            shown = self.model.show_run(run_id, self.controller.active)
        except DecipherError as exc:
            self.report_error(*describe(exc))
            return
        if shown.corpus_id is not None:
            self.data.choose_corpus(shown.corpus_id)
        if shown.language_id is not None:
            self.data.choose_language(shown.language_id)
        if not shown.live:
            self.plots.load_history(shown.metrics)
            if shown.closeness is not None:
                self.plots.set_current_closeness(shown.closeness, shown.label)
            self.runs.set_progress(*shown.progress)
        self.load_shown_matches()
        self.update_other_closeness()
        self.show_mapping()
        self.refresh_runs(select=run_id)

    def load_shown_matches(self, matches: list[Match] | None = None, *, marks: bool = True) -> None:
        """Show the shown run's matches: ``matches`` when the caller has them (a live evaluation,
        already stored by the worker), else the stored ones. ``marks=False``: the caller redraws
        the span marks (update_marks) on a later turn of the event loop."""
        caption = self.model.load_matches(matches)
        if caption is None:
            return
        s = self.state
        self.seed_groups.show_group_of(s.shown_run)
        self.matches.set_matches(s.shown_matches, self.refs(), s.decisions, caption)
        self.show_pin_state()
        if marks:
            self.update_marks()
        self.selection.refresh_details()

    def _refresh_decisions(self) -> None:
        if self.model.reload_decisions():
            self.matches.set_decisions(self.state.decisions)
            self.update_marks()
            self.selection.refresh_details()

    def update_marks(self) -> None:
        self.inscriptions.view.model().set_marks(self.model.marks(self.controller.active))  # repaints its rows

    def current_mapping(self) -> tuple[MappingSnapshot | None, int | None, str]:
        """The mapping to shade the grid with, its step and the caption's source (see the model)."""
        return self.model.current_mapping(self.controller.active)

    def show_mapping(self) -> None:
        mapping, step, source = self.current_mapping()
        live = self.controller.active and mapping is not None and mapping is self.state.live_mapping
        self.pins.set_mapping(mapping, step, source, live=live)
        self.signs.set_values(mapping, self.model.pins(), source, step)
        self.show_pin_state()

    def pin_state(self) -> PinState | None:
        """The project's pins against those of the reading shown; None when no run is shown."""
        return self.model.pin_state(self.live_run())

    def show_pin_state(self) -> None:
        state = self.pin_state()
        self.pins.set_pin_state(state)
        self.matches.set_pin_note(self.model.matches_pin_note(state, self.live_run()))

    def update_other_closeness(self) -> None:
        curves = self.model.other_closeness()
        if curves is not None:
            self.plots.set_other_closeness(curves)

    # ==== errors ===================================================================================

    def report_error(self, title: str, message: str, details: str = "") -> None:
        """Show a message box (without blocking) and keep the text for tests and the status bar."""
        self.last_error = (title, message)
        self.statusBar().showMessage(f"{title}: {message.splitlines()[0] if message else ''}", 15000)
        if not self._closing:
            error_box(self, title, message, details)

    # ==== window state =============================================================================

    def restore_window(self) -> None:
        self._default_state = self.saveState()
        geometry = settings.get("geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        state = settings.get("window_state")
        if isinstance(state, QByteArray) and not state.isEmpty():
            self.restoreState(state)
            self._docks_fitted = True   # the user's own layout is kept as it was
        self.inscriptions.view.set_point_size(settings.get("text_point_size"))

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._docks_fitted:
            self._docks_fitted = True
            fit_docks(self)

    def closeEvent(self, event) -> None:
        self._closing = True
        if not self.seed_groups.shutdown():  # ends the group's workers; finished seeds are kept
            log.warning("the seed group did not stop within a minute")
        self.live.shutdown()
        if self.save_state_on_close:
            settings.put("geometry", self.saveGeometry())
            settings.put("window_state", self.saveState())
            settings.put("advanced_run_settings", self.runs.form.advanced.button.isChecked())
        if self.doc is not None:
            self.doc.close()
            self.doc = None  # deferred view updates still queued find no project and return
            self.state.reset(None)
        super().closeEvent(event)


__all__ = ["MainWindow", "process_until"]
