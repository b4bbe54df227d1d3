"""The main window, a view: docks for corpora, known languages, pinned values, sign values, runs,
matches and plots around the inscription view, and the status bar.

What it shows lives in :class:`~decipher_gui.state.SessionState` (Qt-free); what a panel shows is
read by decipher_gui.queries; runs are driven by decipher_gui.live; menus, shortcuts and file
dialogs are decipher_gui.actions; edits are commands on the document's undo stack.
"""

from __future__ import annotations

import html
import logging
from pathlib import Path

from PySide6.QtCore import QByteArray, QCoreApplication, QEventLoop, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QDockWidget, QLabel, QMainWindow, QMessageBox, QWidget

from engine.io import display as display_tables
from engine.config import Config
from engine.errors import DecipherError
from engine.project import exporting
from engine.project.recording import PinChange, pin_history
from engine.project.store import Project
from engine.results import MappingSnapshot, Match
from engine.datasets.sample import create_sample_project

from .config_form import editor_value
from . import queries, settings
from .actions import WindowActions, create_project_file
from .analysis import SpanMark, known_inventory, lost_inventory, marks_by_inscription, run_label, stored_closeness
from .commands import DecideSpan, ImportCommand, ReplacePins, SetSetting, set_pin_command, toggle_pin
from .dialogs import DisplayTableDialog, ImportDialog, error_box
from .document import ProjectDocument
from .errors import describe
from .importers import BY_KEY, importer_for
from .live import LiveRunBridge
from .panels.data import CorporaPanel, LanguagesPanel
from .panels.inscriptions import InscriptionPanel, explain_html
from .panels.matches import MatchesPanel
from .panels.pins import PinsPanel
from .panels.plots import PlotsPanel
from .panels.runs import RunsPanel
from .panels.signs import SignValuesPanel
from .seedgroup import SeedGroupBridge
from .state import SessionState
from decipher_gui.pinstate import PinState, pin_state
from .worker import PAUSED, RunController

APP_TITLE = "Decipher Workbench"
log = logging.getLogger("decipher_gui")


class MainWindow(QMainWindow):
    projectOpened = Signal(str)
    runEnded = Signal(str)

    def __init__(self, parent=None, *, restore_state: bool = True):
        super().__init__(parent)
        self.doc: ProjectDocument | None = None
        self.state = SessionState()
        self.controller = RunController(self)
        self.display = display_tables.IDENTITY
        self._corpus: queries.CorpusView | None = None
        self._stems: list = []
        self.last_error: tuple[str, str] | None = None
        self._closing = False
        self.save_state_on_close = restore_state
        self.setWindowTitle(APP_TITLE)
        self.resize(1500, 950)
        self.setDockNestingEnabled(True)
        self._build_panels()
        self.acts = WindowActions(self)
        self._build_status()
        self.live = LiveRunBridge(self)
        self.seed_groups = SeedGroupBridge(self)
        self._connect()
        self.live.set_run_state(self.controller.state)
        if restore_state:
            self.restore_window()

    # ==== construction ==============================================================================

    def _dock(self, title: str, widget: QWidget, name: str, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self.addDockWidget(area, dock)
        return dock

    def _build_panels(self) -> None:
        self.inscriptions = InscriptionPanel()
        self.setCentralWidget(self.inscriptions)
        self.inscriptions.view.explainer = self._explain
        L, R, B = (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea,
                   Qt.DockWidgetArea.BottomDockWidgetArea)
        self.corpora = CorporaPanel()
        self.languages = LanguagesPanel()
        self.runs = RunsPanel(advanced_open=settings.get("advanced_run_settings"))
        self.matches = MatchesPanel()
        self.plots = PlotsPanel()
        self.pins = PinsPanel()
        self.signs = SignValuesPanel()
        # the right column, full height: Run, Pinned values and Sign values as tabs, so the pin
        # grid gets the window's height (29 Ugaritic rows at 1600×1000); the bottom row, under the
        # inscriptions: Matches (wide enough for the gloss) beside the plots
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.corpora_dock = self._dock("Corpora and inscriptions", self.corpora, "corpora", L)
        self.languages_dock = self._dock("Known languages and stems", self.languages, "languages", L)
        self.runs_dock = self._dock("Run", self.runs, "runs", R)
        self.pins_dock = self._dock("Pinned values", self.pins, "pins", R)
        self.signs_dock = self._dock("Sign values", self.signs, "signs", R)
        self.matches_dock = self._dock("Matches", self.matches, "matches", B)
        self.plots_dock = self._dock("Plots", self.plots, "plots", B)
        self.tabifyDockWidget(self.runs_dock, self.pins_dock)
        self.tabifyDockWidget(self.pins_dock, self.signs_dock)
        self.runs_dock.raise_()
        self.splitDockWidget(self.matches_dock, self.plots_dock, Qt.Orientation.Horizontal)
        self.resizeDocks([self.corpora_dock, self.runs_dock], [290, 500], Qt.Orientation.Horizontal)
        self.resizeDocks([self.matches_dock], [330], Qt.Orientation.Vertical)
        self.resizeDocks([self.matches_dock, self.plots_dock], [760, 340], Qt.Orientation.Horizontal)

    def docks(self) -> tuple[QDockWidget, ...]:
        return (self.corpora_dock, self.languages_dock, self.runs_dock, self.matches_dock,
                self.pins_dock, self.signs_dock, self.plots_dock)

    def _build_status(self) -> None:
        sb = self.statusBar()
        self.status_project = QLabel("No project")
        self.status_device = QLabel("Device: —")
        self.status_run = QLabel("Idle")
        for w in (self.status_project, self.status_device, self.status_run):
            w.setContentsMargins(8, 0, 8, 0)
            sb.addPermanentWidget(w)

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
        r.form.changed.connect(self._check_span_limits)
        self.corpora.corpusChosen.connect(self._choose_corpus)
        self.corpora.inscriptionChosen.connect(self._scroll_to_inscription)
        self.languages.languageChosen.connect(self._choose_language)
        p = self.pins
        p.toggleRequested.connect(self.toggle_pin)
        p.pinRequested.connect(self.set_pin)
        p.unpinRequested.connect(lambda pin: self.toggle_pin(pin.lost, pin.known_ipa))
        p.clearRequested.connect(self.clear_pins)
        self.signs.exportRequested.connect(self.acts.export_sign_values_dialog)
        m = self.matches
        m.decideRequested.connect(self.decide)
        m.jumpRequested.connect(self.jump_to_match)
        m.exportRequested.connect(self.acts.export_matches_dialog)
        m.currentChanged.connect(self._match_selected)
        v = self.inscriptions.view
        v.spanSelected.connect(self._span_selected)
        self.inscriptions.details.decide.connect(self.decide_selected)
        for key, status in (("A", "accepted"), ("R", "rejected"), ("O", "open")):
            sc = QShortcut(QKeySequence(key), v)
            sc.setContext(Qt.ShortcutContext.WidgetShortcut)
            sc.activated.connect(lambda s=status: self.decide_selected(s))
        self.plots.exportRequested.connect(self.acts.export_plot_dialog)

    # ==== compatibility names (tests, screenshot mode) ================================================

    @property
    def project(self) -> Project | None:
        return None if self.doc is None else self.doc.project

    @property
    def act_undo(self):
        return self.acts.undo

    @property
    def act_redo(self):
        return self.acts.redo

    @property
    def shown_matches(self) -> list[Match]:
        return self.state.shown_matches

    @property
    def shown_run(self) -> int | None:
        return self.state.shown_run

    def start_run(self, config: Config | None = None) -> bool:
        return self.seed_groups.start_run(config)  # one run, or a seed group (Run panel ▸ Seeds)

    def toggle_pause(self) -> None:
        self.live.toggle_pause()

    def stop_run(self) -> None:
        self.live.stop_run()

    def send_pins(self) -> None:
        self.live.send_pins()

    def refs(self) -> dict[str, str]:
        return {} if self._corpus is None else self._corpus.refs

    # ==== projects ==================================================================================

    def open_project(self, path: str | Path, *, create_sample: bool = False) -> bool:
        """Open a project file (closing the current one); False with a message when it cannot."""
        if self.controller.active:
            self.report_error("A run is active", "Stop the run before opening another project.")
            return False
        path = Path(path)
        try:
            if create_sample and not path.exists():
                project = create_sample_project(path)
            else:
                project = Project.open(path)
        except (DecipherError, OSError) as exc:
            self.report_error(*describe(exc))
            return False
        self._set_document(ProjectDocument(project, self))
        settings.add_recent(path)
        if project.interrupted:
            self.statusBar().showMessage(f"Runs {', '.join(map(str, project.interrupted))} had been interrupted "
                                         "(the app or machine stopped during them); their results so far are kept.", 15000)
        if project.migrated_from is not None:
            self.statusBar().showMessage(f"The project file was upgraded; a backup is at {project.backup}", 15000)
        self.projectOpened.emit(str(path))
        return True

    def create_project(self, path: str | Path, *, preset: str | None = None) -> bool:
        """File ▸ New: an empty project file, opened, with the run settings of ``preset``."""
        if self.controller.active:
            self.report_error("A run is active", "Stop the run before creating another project.")
            return False
        try:
            path = create_project_file(path)
        except (DecipherError, OSError) as exc:
            self.report_error(*describe(exc))
            return False
        settings.put("last_dir", str(Path(path).parent))
        if not self.open_project(path):
            return False
        if preset:
            self.apply_preset(preset, save=True)
            self.doc.undo_stack.clear()  # type: ignore[union-attr]  (creating is not an edit to undo)
        return True

    def _set_document(self, doc: ProjectDocument) -> None:
        if self.doc is not None:
            self.doc.close()
            self.doc.deleteLater()
        self.doc = doc
        self.state.reset(doc.project)
        self._corpus = None
        self._stems = []
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
        self.status_project.setText(f"Project: {doc.path.name}")
        self.status_project.setToolTip(str(doc.path))
        self._clear_run_views()
        self._refresh_data()
        self.load_run_defaults()
        self.refresh_runs()
        newest = queries.newest_run_with_matches(doc.project)
        if newest is not None:
            self.show_run(newest)
        self._refresh_pins()

    def _clear_run_views(self) -> None:
        """Nothing of a previous project's runs stays on screen (issue 14, item 1)."""
        self.plots.reset_run()
        self.plots.set_other_closeness({})
        self.matches.set_matches([], {}, {}, "No run shown")
        self.runs.reset_progress()
        self.seed_groups.show_run(None)
        self.inscriptions.view.clear_span()
        self.inscriptions.view.model().set_marks({})
        self.inscriptions.details.set_mark(None)
        self.status_device.setText("Device: —")
        self.show_mapping()

    def save(self) -> None:
        if self.doc is not None:
            self.doc.undo_stack.setClean()
            self.statusBar().showMessage("Saved: every change is already in the project file", 5000)

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
            self.doc.project.save_as(path)
        except (DecipherError, OSError) as exc:
            self.report_error(*describe(exc))
            return False
        settings.add_recent(path)
        self.doc.undo_stack.setClean()
        self.setWindowTitle(f"{self.doc.name} — {path} [*] — {APP_TITLE}")
        self.status_project.setText(f"Project: {path.name}")
        return True

    # ==== data panels ===============================================================================

    def _refresh_data(self) -> None:
        project = self.project
        if project is None:
            return
        corpora, languages = queries.choices(project)
        self.state.follow_data([c.id for c in corpora], [x.id for x in languages])
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
        self.corpora.set_corpora(self.project.corpora(), corpus_id)
        self._sync_combos()
        self._load_corpus()

    def _choose_language(self, language_id) -> None:
        if language_id is None or language_id == self.state.language_id or self.project is None:
            return
        self.state.language_id = language_id
        self.languages.set_languages(self.project.languages(), language_id)
        self._sync_combos()
        self._load_language()

    def _load_corpus(self) -> None:
        project, corpus_id = self.project, self.state.corpus_id
        self.display = display_tables.table_for(project, corpus_id) if project is not None else display_tables.IDENTITY
        if project is None or corpus_id is None:
            self._corpus = None
            self.inscriptions.view.model().set_inscriptions([])
            self.inscriptions.caption.setText("No corpus: import one with File ▸ Import")
            self.corpora.set_inscriptions([])
            self._push_display()
            self._update_inventory()
            self.update_marks()
            self._check_span_limits()
            return
        view = self._corpus = queries.corpus_view(project, corpus_id)
        self._push_display()
        self.inscriptions.view.model().set_inscriptions(view.inscriptions, view.gold)
        self.inscriptions.caption.setText(f"<b>{html.escape(view.name)}</b> — {len(view.inscriptions)} inscriptions")
        self.corpora.set_inscriptions(view.inscriptions)
        self._update_inventory()
        self.update_marks()
        self._check_span_limits()

    def _push_display(self) -> None:
        """Every view shows the corpus's letters through its display table."""
        table = self.display
        sample = [u for ins in (self._corpus.inscriptions[:200] if self._corpus else ()) for u in ins.units]
        rtl = table.right_to_left(sample)
        self.inscriptions.set_display(table, rtl)
        self.corpora.set_display(table, rtl)
        self.matches.set_display(table)
        self.pins.set_display(table)
        self.signs.set_display(table)

    def _apply_display(self) -> None:
        self._load_corpus()
        self.show_mapping()
        self.inscriptions.view.viewport().update()

    def _load_language(self) -> None:
        project = self.project
        if project is None or self.state.language_id is None:
            self._stems = []
            self.languages.set_stems([])
            self._update_inventory()
            return
        self._stems = queries.stems(project, self.state.language_id)
        self.languages.set_stems(self._stems)
        self._update_inventory()
        self.update_other_closeness()

    def _update_inventory(self) -> None:
        project = self.project
        lost = lost_inventory(self._corpus.inscriptions if self._corpus else [])
        known = known_inventory(self._stems)
        self.pins.set_inventory(lost, known, project.pins() if project is not None else [])
        self.show_mapping()

    def _scroll_to_inscription(self, inscription_id: str) -> None:
        view = self.inscriptions.view
        row = view.model().row_of.get(inscription_id)
        if row is not None:
            index = view.model().index(row)
            view.setCurrentIndex(index)
            view.scrollTo(index, view.ScrollHint.PositionAtCenter)

    def edit_display_table(self) -> None:
        """View ▸ Display table…: choose a preset or edit the letters of the chosen corpus."""
        project, corpus_id = self.project, self.state.corpus_id
        if project is None or corpus_id is None:
            self.report_error("No corpus", "Import a corpus first; a display table belongs to a corpus.")
            return
        letters = lost_inventory(self._corpus.inscriptions if self._corpus else [])
        dialog = DisplayTableDialog(letters, self.display, self)
        if dialog.exec() == DisplayTableDialog.DialogCode.Accepted:
            self.set_display_table(dialog.table())

    def set_display_table(self, table: display_tables.DisplayTable) -> bool:
        """Store ``table`` for the chosen corpus (undoable); every view follows."""
        project, corpus_id = self.project, self.state.corpus_id
        if project is None or corpus_id is None:
            return False
        key = display_tables.setting_key(corpus_id)
        value = None if table.is_identity else table.to_json()
        return self._execute(SetSetting(key, value, project.setting(key), "Change display table",
                                        touches=frozenset({"display"})))

    # ==== pins ======================================================================================

    def _refresh_pins(self) -> None:
        if self.project is None:
            return
        self.pins.set_pins(self.project.pins())
        self.live.send_pins()  # a pin is never lost: the active run takes it at its next step or on Resume
        self.show_mapping()

    def toggle_pin(self, lost: str, known: str) -> None:
        if self.project is not None:
            self._execute(toggle_pin(self.project, lost, known))

    def set_pin(self, pin) -> None:
        if self.project is not None:
            self._execute(set_pin_command(self.project, pin))

    def clear_pins(self) -> None:
        if self.project is not None and self.project.pins():
            self._execute(ReplacePins(self.project.pins(), [], "Clear all pins"))

    def _execute(self, command) -> bool:
        try:
            self.doc.execute(command)  # type: ignore[union-attr]
        except (DecipherError, OSError, ValueError) as exc:
            self.report_error(*describe(exc))
            return False
        return True

    # ==== run settings ================================================================================

    def load_run_defaults(self) -> None:
        self.runs.form.set_config(queries.run_defaults(self.project))
        self._check_span_limits()

    def save_run_defaults(self) -> None:
        if self.project is None:
            return
        try:
            values = self.runs.form.config().to_dict()
        except DecipherError as exc:
            self.report_error("Invalid run settings", str(exc))
            return
        from engine.datasets.sample import RUN_CONFIG_KEY

        self._execute(SetSetting(RUN_CONFIG_KEY, values, self.project.setting(RUN_CONFIG_KEY),
                                 "Change default run settings"))

    def apply_preset(self, name: str, save: bool = False) -> None:
        """Fill the run form with a preset's settings (paper, Ugaritic, Iberian); ``save`` also
        makes them the project's defaults."""
        from engine.config import PRESETS

        if name not in PRESETS:
            self.report_error("Unknown preset", f"{name!r} is not one of {', '.join(PRESETS)}")
            return
        base = Config()
        config = base.replace(**PRESETS[name]) if PRESETS[name] else base
        self.runs.form.set_config(config)
        self.runs.show_preset(name)
        self._check_span_limits()
        if save:
            self.save_run_defaults()

    def _check_span_limits(self) -> None:
        """Tell how many written words are shorter than the shortest span (they cannot match)."""
        try:
            editor, info = self.runs.form.editors["min_span"]
            min_span = int(editor_value(editor, info))  # only this field: another may be mid-edit
        except (KeyError, TypeError, ValueError, DecipherError):
            return
        inscriptions = self._corpus.inscriptions if self._corpus else ()
        short, total = queries.words_shorter_than(inscriptions, min_span)
        self.runs.set_span_note(short, total, min_span)

    # ==== runs ======================================================================================

    def refresh_runs(self, select: int | None = None) -> None:
        project = self.project
        if project is None:
            return
        history = queries.run_history(project)
        self.runs.set_seed_groups(self.seed_groups.markers())
        self.runs.set_runs(history.runs, history.languages, history.metrics,
                           select if select is not None else self.state.shown_run, pins=history.pins)

    def show_run(self, run_id: int) -> None:
        """Show a stored (or the live) run: its corpus, its known language, matches, plots, mapping."""
        project = self.project
        if project is None:
            return
        try:
            run = project.run(run_id)
        except DecipherError as exc:
            self.report_error(*describe(exc))
            return
        live = run.id == self.state.live_run and self.controller.active
        corpus_changes = run.corpus_id is not None and run.corpus_id != self.state.corpus_id
        language_changes = run.language_id is not None and run.language_id != self.state.language_id
        self.state.shown_run = run_id
        if corpus_changes:
            self._choose_corpus(run.corpus_id)
        if language_changes:
            self._choose_language(run.language_id)
        if not live:
            self.plots.load_history(project.metrics(run_id))
            curve = stored_closeness(project, run)
            if curve is not None:
                self.plots.set_current_closeness(curve, run_label(project, run))
            self.runs.set_progress(*queries.run_progress(run))
        self.load_shown_matches()
        self.update_other_closeness()
        self.show_mapping()
        self.refresh_runs(select=run_id)

    def load_shown_matches(self, matches: list[Match] | None = None) -> None:
        """Show the shown run's matches: ``matches`` when the caller has them (a live evaluation,
        already stored by the worker), else read from the project."""
        project, s = self.project, self.state
        if project is None or s.shown_run is None:
            return
        run = queries.run_of(project, s.shown_run)
        if run is None:
            return
        s.shown_matches = list(matches) if matches is not None else project.matches(s.shown_run)
        s.decisions = project.decisions(s.shown_run)
        self.seed_groups.show_run(s.shown_run)
        self.matches.set_matches(s.shown_matches, self.refs(), s.decisions,
                                 queries.matches_caption(run, len(s.shown_matches)))
        self.show_pin_state()
        self.update_marks()
        self._refresh_details()

    def _refresh_decisions(self) -> None:
        project, s = self.project, self.state
        if project is None or s.shown_run is None:
            return
        s.decisions = project.decisions(s.shown_run)
        self.matches.set_decisions(s.decisions)
        self.update_marks()
        self._refresh_details()

    def _shown_corpus(self) -> int | None:
        """The corpus of the shown run (cached per run: asked on every live update)."""
        cached = getattr(self, "_corpus_of_run", (None, None))
        if cached[0] != self.state.shown_run:
            run = queries.run_of(self.project, self.state.shown_run) if self.project is not None else None
            self._corpus_of_run = cached = (self.state.shown_run, None if run is None else run.corpus_id)
        return cached[1]

    def update_marks(self) -> None:
        s = self.state
        matches = s.shown_matches if self._shown_corpus() == s.corpus_id else []
        live = s.live_matches if s.shows_live(self.controller.active) else ()
        self.inscriptions.view.model().set_marks(marks_by_inscription(matches, s.decisions, live))  # repaints its rows

    def current_mapping(self) -> tuple[MappingSnapshot | None, int | None, str]:
        """The mapping to shade the grid with, its step and the caption's source ("live" only while
        the run runs)."""
        s = self.state
        if s.shown_run is not None and s.shown_run == s.live_run and s.live_mapping is not None:
            live = ", live" if self.controller.active else ""
            return s.live_mapping, s.live_step, f"(run {s.live_run}{live})"
        if self.project is not None and s.shown_run is not None:
            mapping, step = queries.mapping_and_step(self.project, s.shown_run)
            if mapping is not None:
                return mapping, step, f"(run {s.shown_run})"
        return None, None, ""

    def show_mapping(self) -> None:
        mapping, step, source = self.current_mapping()
        self.pins.set_mapping(mapping, step, source)
        pins = self.project.pins() if self.project is not None else []
        self.signs.set_values(mapping, pins, source, step)
        self.show_pin_state()

    def pin_state(self) -> PinState | None:
        """The project's pins against those of the reading shown (the shown run at its mapping's
        step); None when no run is shown."""
        s, project = self.state, self.project
        if project is None or s.shown_run is None:
            return None
        _, step, _ = self.current_mapping()
        live = s.shown_run == s.live_run and self.controller.active
        try:
            history = pin_history(project, s.shown_run)
        except DecipherError:
            history = []
        if live and (not history or history[-1].step < self.controller.pins_from):
            # the project refused the record: the run's own word is what it applied
            history = list(history) + [PinChange(self.controller.pins_from, self.controller.run_pins)]
        pending = ""
        if live and self.controller.pins_pending:
            pending = ("used from this step on when you Resume" if self.controller.state == PAUSED
                       else "handed over at the next step")
        return pin_state(s.shown_run, history, step, project.pins(), live=live, pending=pending)

    def show_pin_state(self) -> None:
        state = self.pin_state()
        self.pins.set_pin_state(state)
        self.matches.set_pin_note(self._matches_pin_note(state))

    def _matches_pin_note(self, state: PinState | None) -> str:
        """The matches shown come from the shown run's last evaluation: name the project's pins
        that evaluation was made without ("" when none)."""
        s = self.state
        if state is None or not s.shown_matches:
            return ""
        live = s.shown_run == s.live_run and self.controller.active
        step = self.live.last_eval_step if live else queries.mapping_and_step(self.project, s.shown_run)[1]
        if live and not step:
            return ""
        try:
            history = pin_history(self.project, s.shown_run)
        except DecipherError:
            return ""
        missing = pin_state(s.shown_run, history, step, self.project.pins()).missing
        if not missing:
            return ""
        names = ", ".join(f"{self.display.show(p.lost)} → /{p.known_ipa}/" for p in missing[:4])
        more = f" and {len(missing) - 4} more" if len(missing) > 4 else ""
        return (f"These matches (step {step}) were computed without {names}{more}: "
                + ("the run's next evaluation has it." if live and len(missing) == 1 else
                   "the run's next evaluation has them." if live else "start a run to use them."))

    def _explain(self, mark: SpanMark, brief: bool = False) -> str:
        mapping, _, _ = self.current_mapping()
        gamma, band = queries.gamma_band(self.project, self.state.shown_run)
        return explain_html(mark, mapping, gamma, band, ref=self.refs().get(mark.match.inscription_id, ""),
                            brief=brief, display=self.display)

    def _span_selected(self, mark: SpanMark | None) -> None:
        self._refresh_details(mark)
        if mark is not None and not mark.live:
            self.matches.blockSignals(True)
            self.matches.select_match(mark.match.inscription_id, mark.match.start, mark.match.end)
            self.matches.blockSignals(False)

    def _refresh_details(self, mark: SpanMark | None = None) -> None:
        details = self.inscriptions.details
        if mark is None:
            mark = self.inscriptions.view.current_mark()
        mapping, _, _ = self.current_mapping()
        details.mapping = mapping
        details.gamma, details.band = queries.gamma_band(self.project, self.state.shown_run)
        ref = "" if mark is None else self.refs().get(mark.match.inscription_id, "")
        details.set_mark(mark, self.state.decisions, ref)

    def _match_selected(self, match: Match | None) -> None:
        view = self.inscriptions.view
        if match is not None and view.selected_span != (match.inscription_id, match.start, match.end):
            view.blockSignals(True)
            view.select_span(match.inscription_id, match.start, match.end)
            view.blockSignals(False)
            self._refresh_details()

    def jump_to_match(self, match: Match) -> None:
        if match is None:
            return
        mark = self.inscriptions.view.select_span(match.inscription_id, match.start, match.end)
        self._refresh_details(mark)
        self.inscriptions.view.setFocus()

    def update_other_closeness(self) -> None:
        if self.project is not None:
            s = self.state
            self.plots.set_other_closeness(queries.other_closeness(self.project, s.corpus_id, s.language_id,
                                                                   s.shown_run))

    # ==== decisions =================================================================================

    def decide(self, match: Match, form: str, status: str) -> bool:
        project, s = self.project, self.state
        if project is None or s.shown_run is None:
            return False
        value = None if status == "open" else status
        key = (match.inscription_id, match.start, match.end, form)
        if s.decisions.get(key) == value:
            return False
        return self._execute(DecideSpan.build(project, s.shown_run, key, value))

    def decide_selected(self, status: str) -> None:
        """A / R / O: on the span selected in the inscription view or the matches table."""
        focus = QApplication.focusWidget()
        in_table = focus is not None and self.matches.isAncestorOf(focus)
        mark = self.inscriptions.view.current_mark()
        if not in_table and mark is not None and not mark.live:
            form = self.inscriptions.details.selected_form()
            if form is not None:
                self.decide(mark.match, form, status)
                return
        self.matches.decide_current(status)

    # ==== import / export ===========================================================================

    def import_dialog(self, kind: str) -> None:
        if self.project is None:
            return
        dialog = ImportDialog(BY_KEY[kind], [(c.id, c.name) for c in self.project.corpora()],
                              settings.get("last_dir"), self)
        if dialog.exec() != ImportDialog.DialogCode.Accepted or dialog.file() is None:
            return
        settings.put("last_dir", str(dialog.file().parent))
        self.import_file(kind, dialog.file(), **dialog.options())

    def import_file(self, kind: str, path: str | Path, **options) -> bool:
        """Run an importer as an undoable command; errors appear as a message naming file and line."""
        if self.project is None:
            return False
        command = ImportCommand(f"Import {Path(path).name}", importer_for(kind, path, **options))
        try:
            self.doc.execute(command)  # type: ignore[union-attr]
        except Exception as exc:  # noqa: BLE001 - any failure of an importer is shown, never raised
            title, message = describe(exc)
            self.report_error(f"Import failed: {title[:1].lower() + title[1:]}", message)
            return False
        self.statusBar().showMessage(str(command.result), 10000)
        return True

    def _export(self, what: str, write) -> int | None:
        if self.project is None:
            return None
        try:
            n = write()
        except (DecipherError, OSError) as exc:
            self.report_error(*describe(exc))
            return None
        run_id, notes = getattr(n, "run_id", None), list(getattr(n, "warnings", ()))
        if getattr(n, "guarded", 0):
            notes.append(f"{n.guarded} cells a spreadsheet would run as formulas start with an added '")
        message = f"Wrote {int(n)} {what}" + (f" (run {run_id})" if run_id is not None else "")
        self.statusBar().showMessage("; ".join([message] + notes), 15000 if notes else 8000)
        return n

    def export_matches(self, path: str | Path, **options) -> int | None:
        options.setdefault("guard_formulas", True)  # every export of the app is formula-guarded
        return self._export(f"rows to {path}", lambda: exporting.export_matches(
            self.project, path, run_id=self.state.shown_run, **options))

    def export_prior(self, path: str | Path) -> int | None:
        return self._export(f"pinned values to {path}", lambda: exporting.export_prior(
            self.project, path, guard_formulas=True))

    def export_sign_values(self, path: str | Path) -> int | None:
        from engine.io.signvalues import export_sign_values

        mapping, _, _ = self.current_mapping()
        return self._export(f"sign values to {path}", lambda: export_sign_values(
            self.project, path, run_id=self.state.shown_run, mapping=mapping, guard_formulas=True))

    def export_cldf(self, folder: str | Path) -> int | None:
        from engine.io.fieldexport import export_cldf

        return self._export(f"accepted matches as a CLDF Wordlist in {folder}",
                            lambda: export_cldf(self.project, folder, run_id=self.state.shown_run,
                                                guard_formulas=True))

    def export_edictor(self, path: str | Path) -> int | None:
        from engine.io.fieldexport import export_edictor

        return self._export(f"accepted matches to {path}",
                            lambda: export_edictor(self.project, path, run_id=self.state.shown_run,
                                                   guard_formulas=True))

    # ==== view =====================================================================================

    def zoom_text(self, delta: int) -> None:
        size = max(8, min(40, settings.get("text_point_size") + delta))
        settings.put("text_point_size", size)
        self.inscriptions.view.set_point_size(size)

    def toggle_gold(self, on: bool) -> None:
        self.inscriptions.view.show_gold = on
        self.inscriptions.view.viewport().update()

    def reset_layout(self) -> None:
        for dock in self.docks():
            dock.setFloating(False)
            dock.show()
        if getattr(self, "_default_state", None) is not None:
            self.restoreState(self._default_state)

    def show_shortcuts(self) -> None:
        text = ("<table>"
                "<tr><td>F5 / F6 / Shift+F5</td><td>start / pause–resume / stop a run</td></tr>"
                "<tr><td>A / R / O</td><td>accept / reject / reopen the selected span's stem</td></tr>"
                "<tr><td>Left / Right</td><td>previous / next matched span in an inscription</td></tr>"
                "<tr><td>Enter, double-click</td><td>in Matches: show the span in its inscription</td></tr>"
                "<tr><td>Space, Enter, double-click</td><td>in Pinned values: pin or unpin a cell</td></tr>"
                f"<tr><td>{QKeySequence(QKeySequence.StandardKey.Undo).toString()} / "
                "Ctrl+Shift+Z or Ctrl+Y</td><td>undo / redo</td></tr>"
                "<tr><td>Ctrl++ / Ctrl+−</td><td>larger / smaller inscription text</td></tr></table>")
        QMessageBox(QMessageBox.Icon.Information, "Keyboard shortcuts", text, parent=self).open()

    def show_about(self) -> None:
        QMessageBox(QMessageBox.Icon.Information, f"About {APP_TITLE}",
                    f"<b>{APP_TITLE}</b><br>Computational decipherment of undersegmented lost "
                    "scripts with a phonetic prior (Luo et al., TACL 2021).<br><br>"
                    "Fonts: Noto Sans, Noto Sans Ugaritic, Noto Sans Gothic, Noto Sans Hebrew, "
                    "Noto Sans Phoenician (SIL Open Font License 1.1).<br>"
                    f"Settings file: {html.escape(settings.settings_file())}", parent=self).open()

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
        self.inscriptions.view.set_point_size(settings.get("text_point_size"))

    def closeEvent(self, event) -> None:
        self._closing = True
        if not self.seed_groups.shutdown():  # ends the group's workers; finished seeds are kept
            log.warning("the seed group did not stop within a minute")
        if self.controller.active:
            # the worker ends after its current step and records the run as stopped itself
            self.statusBar().showMessage("Stopping the run before closing…")
            self.controller.abort()
            if not self.controller.wait(60_000):
                log.warning("the run did not stop within a minute; it will show as interrupted")
            for _ in range(3):
                QCoreApplication.sendPostedEvents()
                QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        if self.save_state_on_close:
            settings.put("geometry", self.saveGeometry())
            settings.put("window_state", self.saveState())
            settings.put("advanced_run_settings", self.runs.form.advanced.button.isChecked())
        if self.doc is not None:
            self.doc.close()
            self.doc = None  # deferred view updates still queued find no project and return
            self.state.reset(None)
        super().closeEvent(event)


def process_until(predicate, timeout_ms: int = 60_000) -> bool:
    """Run the event loop until ``predicate()`` holds (for the screenshot mode and scripts)."""
    loop = QEventLoop()
    timer = QTimer()
    timer.setInterval(20)
    deadline = QTimer()
    deadline.setSingleShot(True)
    timer.timeout.connect(lambda: predicate() and loop.quit())
    deadline.timeout.connect(loop.quit)
    timer.start()
    deadline.start(timeout_ms)
    if not predicate():
        loop.exec()
    timer.stop()
    return bool(predicate())


__all__ = ["MainWindow", "process_until"]
