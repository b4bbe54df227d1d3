"""The main window, a view: docks for corpora, known languages, pinned values, sign values, runs,
matches and plots around the inscription view, and the status bar.

What it shows is worked out by its model, :class:`~decipher_gui.model.WindowModel` (Qt-free, the
window's only way to the project, holding the :class:`~decipher_gui.state.SessionState`); the window
draws it. Runs are driven by decipher_gui.live and decipher_gui.seedgroup; menus, shortcuts, file
dialogs, imports and exports are decipher_gui.actions; edits are the model's commands, executed on
the document's undo stack.
"""

from __future__ import annotations

import html
import logging
from pathlib import Path

from PySide6.QtCore import QByteArray, Signal
from PySide6.QtWidgets import QDockWidget, QMainWindow

from engine.io import display as display_tables
from engine.config import PRESETS, Config
from engine.errors import DecipherError
from engine.results import MappingSnapshot, Match

from decipher_gui import settings
from decipher_gui.actions import WindowActions
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
from decipher_gui.worker import PAUSED, RunController

APP_TITLE = "Decipher Workbench"
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
        r.saveDefaultsRequested.connect(self.save_run_defaults)
        r.restoreDefaultsRequested.connect(self.load_run_defaults)
        r.presetChosen.connect(self.apply_preset)
        r.runChosen.connect(self.show_run)
        r.corpus.currentIndexChanged.connect(lambda _: self._choose_corpus(r.corpus.currentData()))
        r.language.currentIndexChanged.connect(lambda _: self._choose_language(r.language.currentData()))
        r.form.changed.connect(r.check_span_limits)
        self.corpora.corpusChosen.connect(self._choose_corpus)
        self.corpora.inscriptionChosen.connect(self.selection.scroll_to_inscription)
        self.languages.languageChosen.connect(self._choose_language)
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
        return self.seed_groups.start_run(config)  # one run, or a seed group (Run panel ▸ Seeds)

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
        doc.dataChanged.connect(self._refresh_data)
        doc.runsChanged.connect(self.refresh_runs)
        doc.settingsChanged.connect(self.load_run_defaults)
        doc.displayChanged.connect(self._apply_display)
        doc.failed.connect(self.report_error)
        self.setWindowTitle(f"{doc.name} — {doc.path} [*] — {APP_TITLE}")
        self.setWindowModified(False)
        self.status_file.setText(f"Project: {doc.path.name}")
        self.status_file.setToolTip(str(doc.path))
        self._clear_run_views()
        self._refresh_data()
        self.load_run_defaults()
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

    def _refresh_data(self) -> None:
        if self.project is None:
            return
        corpora, languages = self.model.choices()
        self.corpora.set_corpora(corpora, self.state.corpus_id)
        self.languages.set_languages(languages, self.state.language_id)
        self.runs.set_choices(corpora, languages)
        self._sync_combos()
        self._load_corpus()
        self._load_language()

    def _sync_combos(self) -> None:
        for combo, value in ((self.runs.corpus, self.state.corpus_id), (self.runs.language, self.state.language_id)):
            i = combo.findData(value)
            if i >= 0 and combo.currentIndex() != i:
                combo.blockSignals(True)
                combo.setCurrentIndex(i)
                combo.blockSignals(False)

    def _choose_corpus(self, corpus_id) -> None:
        if corpus_id is None or corpus_id == self.state.corpus_id or self.project is None:
            return
        self.state.corpus_id = corpus_id
        self.corpora.set_corpora(self.model.corpora(), corpus_id)
        self._sync_combos()
        self._load_corpus()

    def _choose_language(self, language_id) -> None:
        if language_id is None or language_id == self.state.language_id or self.project is None:
            return
        self.state.language_id = language_id
        self.languages.set_languages(self.model.languages(), language_id)
        self._sync_combos()
        self._load_language()

    def _load_corpus(self) -> None:
        view = self.model.load_corpus()
        self._push_display()
        if view is None:
            self.inscriptions.view.model().set_inscriptions([])
            self.inscriptions.caption.setText("No corpus: import one with File ▸ Import")
        else:
            self.inscriptions.view.model().set_inscriptions(view.inscriptions, view.gold)
            self.inscriptions.caption.setText(f"<b>{html.escape(view.name)}</b> — {len(view.inscriptions)} inscriptions")
        self.corpora.set_inscriptions(list(self.model.inscriptions))
        self._update_inventory()
        self.update_marks()
        self.runs.set_inscriptions(self.model.inscriptions)

    def _push_display(self) -> None:
        """Every view shows the corpus's letters through its display table."""
        table = self.model.display
        rtl = table.right_to_left([u for ins in self.model.inscriptions[:200] for u in ins.units])
        self.inscriptions.set_display(table, rtl)
        self.corpora.set_display(table, rtl)
        for panel in (self.matches, self.pins, self.signs):
            panel.set_display(table)
        self._push_known_display()

    def _push_known_display(self) -> None:
        """Every view shows the known language's stems through its display table."""
        known = self.model.known_display
        for panel in (self.matches, self.inscriptions, self.languages):
            panel.set_known_display(known)

    def _apply_display(self) -> None:
        self._load_corpus()
        self.show_mapping()
        self.inscriptions.view.viewport().update()

    def _load_language(self) -> None:
        stems = self.model.load_language()
        self.languages.set_stems(stems)
        self.runs.set_stems(len(stems or ()))
        self._push_known_display()
        self._update_inventory()
        if self.state.language_id is not None:
            self.update_other_closeness()

    def _update_inventory(self) -> None:
        lost, known = self.model.inventory()
        self.pins.set_inventory(lost, known, self.model.pins())
        self.pins.set_text_shares(self.model.text_shares())
        self.show_mapping()

    def set_known_display_table(self, table: display_tables.DisplayTable) -> bool:
        """Store ``table`` for the chosen known language (undoable); every view follows."""
        return self._execute(self.model.set_known_display_table(table))

    def set_display_table(self, table: display_tables.DisplayTable) -> bool:
        """Store ``table`` for the chosen corpus (undoable); every view follows."""
        return self._execute(self.model.set_display_table(table))

    # ==== pins and edits ============================================================================

    def _refresh_pins(self) -> None:
        if self.project is None:
            return
        self.pins.set_pins(self.model.pins())
        self.live.send_pins()  # a pin is never lost: the active run takes it at its next step or on Resume
        self.show_mapping()

    def toggle_pin(self, lost: str, known: str) -> None:
        self._execute(self.model.toggle_pin(lost, known))

    def set_pin(self, pin) -> None:
        self._execute(self.model.set_pin(pin))

    def clear_pins(self) -> None:
        self._execute(self.model.clear_pins())

    def _execute(self, command) -> bool:
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
        return self._execute(self.model.decide(match, form, status))

    # ==== run settings ================================================================================

    def load_run_defaults(self) -> None:
        from . import queries

        self.runs.form.set_config(queries.run_defaults(self.model.project, warn=self._settings_warning))
        self.runs.check_span_limits()

    def _settings_warning(self, text: str) -> None:
        import logging

        logging.getLogger(__name__).warning(text)
        self.statusBar().showMessage(f"Warning: {text}", 15000)

    def save_run_defaults(self) -> None:
        try:
            values = self.runs.form.config().to_dict()
        except DecipherError as exc:
            self.report_error("Invalid run settings", str(exc))
            return
        self._execute(self.model.set_run_defaults(values))

    def apply_preset(self, name: str, save: bool = False) -> None:
        """Fill the run form with a preset's settings (paper, Ugaritic, Iberian); ``save`` also
        makes them the project's defaults."""
        if name not in PRESETS:
            self.report_error("Unknown preset", f"{name!r} is not one of {', '.join(PRESETS)}")
            return
        self.runs.fill_preset(name)
        if save:
            self.save_run_defaults()

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
            self._choose_corpus(shown.corpus_id)
        if shown.language_id is not None:
            self._choose_language(shown.language_id)
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
