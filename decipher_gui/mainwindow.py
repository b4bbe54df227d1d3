"""The main window: docks for corpora, known languages, pinned values, runs, matches and plots
around the inscription view; menus, undo/redo, status bar; and the wiring between them."""

from __future__ import annotations

import html
import logging
from pathlib import Path

from PySide6.QtCore import QByteArray, QCoreApplication, QEventLoop, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (QApplication, QDockWidget, QFileDialog, QLabel, QMainWindow,
                               QMessageBox, QWidget)

from engine.config import Config
from engine.errors import DecipherError
from engine.project import exporting
from engine.project.exporting import inscription_ref
from engine.project.store import Project
from engine.results import MappingSnapshot, EvalEvent, FinishedEvent, Match
from engine.sample import RUN_CONFIG_KEY, create_sample_project

from . import settings
from .analysis import (SpanMark, known_inventory, lost_inventory, marks_by_inscription, run_label,
                       stored_closeness)
from .commands import DecideSpan, ImportCommand, ReplacePins, SetSetting, set_pin_command, toggle_pin
from .dialogs import ImportDialog, error_box
from .document import ProjectDocument
from .driver import RunFailure, StepBatch
from .errors import describe
from .importers import BY_KEY, KINDS, importer_for
from .panels.data import CorporaPanel, LanguagesPanel
from .panels.inscriptions import InscriptionPanel, explain_html
from .panels.matches import MatchesPanel
from .panels.pins import PinsPanel
from .panels.plots import PlotsPanel
from .panels.runs import RunsPanel
from .recorder import mapping_of
from .worker import IDLE, PAUSED, RunController

APP_TITLE = "Decipher Workbench"
log = logging.getLogger("decipher_gui")


class MainWindow(QMainWindow):
    projectOpened = Signal(str)
    runEnded = Signal(str)

    def __init__(self, parent=None, *, restore_state: bool = True):
        super().__init__(parent)
        self.doc: ProjectDocument | None = None
        self.controller = RunController(self)
        self.corpus_id: int | None = None
        self.language_id: int | None = None
        self.shown_run: int | None = None
        self.live_run: int | None = None
        self.live_matches: tuple[Match, ...] = ()
        self.live_mapping: MappingSnapshot | None = None
        self.live_step = 0
        self.shown_matches: list[Match] = []
        self.decisions: dict = {}
        self.last_error: tuple[str, str] | None = None
        self._closing = False
        self.save_state_on_close = restore_state
        self.setWindowTitle(APP_TITLE)
        self.resize(1500, 950)
        self.setDockNestingEnabled(True)
        self._build_panels()
        self._build_actions()
        self._build_menus()
        self._build_status()
        self._connect()
        self.set_run_state(IDLE)
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
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.corpora_dock = self._dock("Corpora and inscriptions", self.corpora, "corpora", L)
        self.languages_dock = self._dock("Known languages and stems", self.languages, "languages", L)
        self.runs_dock = self._dock("Run", self.runs, "runs", R)
        self.plots_dock = self._dock("Plots", self.plots, "plots", R)
        self.matches_dock = self._dock("Matches", self.matches, "matches", B)
        self.pins_dock = self._dock("Pinned values", self.pins, "pins", B)
        self.tabifyDockWidget(self.matches_dock, self.pins_dock)
        self.matches_dock.raise_()
        self.resizeDocks([self.corpora_dock, self.runs_dock], [300, 420], Qt.Orientation.Horizontal)
        self.resizeDocks([self.runs_dock, self.plots_dock], [600, 360], Qt.Orientation.Vertical)
        self.resizeDocks([self.matches_dock], [330], Qt.Orientation.Vertical)

    def _action(self, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        act = QAction(text, self)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
        if tip:
            act.setToolTip(tip)
            act.setStatusTip(tip)
        act.triggered.connect(slot)
        return act

    def _build_actions(self) -> None:
        SK = QKeySequence.StandardKey
        self.act_new = self._action("&New project…", self.new_project, SK.New)
        self.act_open = self._action("&Open project…", self.open_dialog, SK.Open)
        self.act_save = self._action("&Save", self.save, SK.Save,
                                     "Every change is written to the project file as you make it")
        self.act_save_as = self._action("Save &As…", self.save_as_dialog, SK.SaveAs)
        self.act_quit = self._action("&Quit", self.close, SK.Quit)
        self.act_export_matches = self._action("Match report (CSV)…", self.export_matches_dialog)
        self.act_export_prior = self._action("Pinned values (PRIOR.csv)…", self.export_prior_dialog)
        self.undo_stack_actions: list[QAction] = []
        self.act_start = self._action("&Start run", self.start_run, "F5", "Start a run with the settings in the Run panel")
        self.act_pause = self._action("&Pause / Resume", self.toggle_pause, "F6",
                                      "Pause after the current step; pin values, then resume")
        self.act_stop = self._action("S&top run", self.stop_run, "Shift+F5")
        self.act_send_pins = self._action("Send pins to paused run", self.send_pins)
        self.act_bigger = self._action("Larger text", lambda: self.zoom_text(1), SK.ZoomIn)
        self.act_smaller = self._action("Smaller text", lambda: self.zoom_text(-1), SK.ZoomOut)
        self.act_gold = self._action("Show gold annotations", self._toggle_gold)
        self.act_gold.setCheckable(True)
        self.act_gold.setChecked(True)
        self.act_accept = self._action("Accept selected span", lambda: self.decide_selected("accepted"))
        self.act_reject = self._action("Reject selected span", lambda: self.decide_selected("rejected"))
        self.act_reopen = self._action("Reopen selected span", lambda: self.decide_selected("open"))

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file = bar.addMenu("&File")
        file.addAction(self.act_new)
        file.addAction(self.act_open)
        self.recent_menu = file.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        file.addSeparator()
        file.addAction(self.act_save)
        file.addAction(self.act_save_as)
        file.addSeparator()
        self.import_menu = file.addMenu("&Import")
        for kind in KINDS:
            self.import_menu.addAction(self._action(kind.label, lambda _=False, k=kind.key: self.import_dialog(k)))
        export = file.addMenu("&Export")
        export.addAction(self.act_export_matches)
        export.addAction(self.act_export_prior)
        file.addSeparator()
        file.addAction(self.act_quit)
        edit = bar.addMenu("&Edit")
        self.act_undo = self.undo_placeholder = QAction("&Undo", self)
        self.act_undo.setShortcut(QKeySequence.StandardKey.Undo)
        self.act_undo.setEnabled(False)
        self.act_redo = QAction("&Redo", self)
        self.act_redo.setShortcut(QKeySequence.StandardKey.Redo)
        self.act_redo.setEnabled(False)
        edit.addAction(self.act_undo)
        edit.addAction(self.act_redo)
        self.edit_menu = edit
        edit.addSeparator()
        edit.addAction(self.act_accept)
        edit.addAction(self.act_reject)
        edit.addAction(self.act_reopen)
        run = bar.addMenu("&Run")
        for a in (self.act_start, self.act_pause, self.act_stop, self.act_send_pins):
            run.addAction(a)
        view = bar.addMenu("&View")
        for dock in (self.corpora_dock, self.languages_dock, self.runs_dock, self.matches_dock,
                     self.pins_dock, self.plots_dock):
            view.addAction(dock.toggleViewAction())
        view.addSeparator()
        view.addAction(self.act_gold)
        view.addAction(self.act_bigger)
        view.addAction(self.act_smaller)
        view.addAction(self._action("Reset layout", self.reset_layout))
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self._action("Keyboard shortcuts", self.show_shortcuts, QKeySequence.StandardKey.HelpContents))
        help_menu.addAction(self._action("About", self.show_about))

    def _build_status(self) -> None:
        sb = self.statusBar()
        self.status_project = QLabel("No project")
        self.status_device = QLabel("Device: —")
        self.status_run = QLabel("Idle")
        for w in (self.status_project, self.status_device, self.status_run):
            w.setContentsMargins(8, 0, 8, 0)
            sb.addPermanentWidget(w)

    def _connect(self) -> None:
        c = self.controller
        c.stateChanged.connect(self.set_run_state)
        c.started.connect(self._on_started)
        c.runRecorded.connect(self._on_run_recorded)
        c.stepsArrived.connect(self._on_steps)
        c.evaluated.connect(self._on_eval)
        c.finished.connect(self._on_finished)
        c.errored.connect(self._on_run_error)
        c.ended.connect(self._on_ended)
        c.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        r = self.runs
        r.startRequested.connect(self.start_run)
        r.pauseRequested.connect(self.controller.pause)
        r.resumeRequested.connect(self.controller.resume)
        r.stopRequested.connect(self.stop_run)
        r.saveDefaultsRequested.connect(self.save_run_defaults)
        r.restoreDefaultsRequested.connect(self.load_run_defaults)
        r.runChosen.connect(self.show_run)
        r.corpus.currentIndexChanged.connect(lambda _: self._choose_corpus(r.corpus.currentData()))
        r.language.currentIndexChanged.connect(lambda _: self._choose_language(r.language.currentData()))
        self.corpora.corpusChosen.connect(self._choose_corpus)
        self.corpora.inscriptionChosen.connect(self._scroll_to_inscription)
        self.languages.languageChosen.connect(self._choose_language)
        p = self.pins
        p.toggleRequested.connect(self.toggle_pin)
        p.pinRequested.connect(self.set_pin)
        p.unpinRequested.connect(lambda pin: self.toggle_pin(pin.lost, pin.known_ipa))
        p.clearRequested.connect(self.clear_pins)
        p.sendRequested.connect(self.send_pins)
        m = self.matches
        m.decideRequested.connect(self.decide)
        m.jumpRequested.connect(self.jump_to_match)
        m.exportRequested.connect(self.export_matches_dialog)
        m.currentChanged.connect(self._match_selected)
        v = self.inscriptions.view
        v.spanSelected.connect(self._span_selected)
        self.inscriptions.details.decide.connect(self.decide_selected)
        for key, status in (("A", "accepted"), ("R", "rejected"), ("O", "open")):
            sc = QShortcut(QKeySequence(key), v)
            sc.setContext(Qt.ShortcutContext.WidgetShortcut)
            sc.activated.connect(lambda s=status: self.decide_selected(s))
        self.plots.exportRequested.connect(self.export_plot_dialog)

    # ==== projects ==================================================================================

    @property
    def project(self) -> Project | None:
        return None if self.doc is None else self.doc.project

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

    def _set_document(self, doc: ProjectDocument) -> None:
        if self.doc is not None:
            self.doc.close()
            self.doc.deleteLater()
        self.doc = doc
        self.shown_run = None
        self.live_run = None
        self.live_matches = ()
        self.live_mapping = None
        self.corpus_id = None
        self.language_id = None
        stack = doc.undo_stack
        self.edit_menu.removeAction(self.act_undo)
        self.edit_menu.removeAction(self.act_redo)
        first = self.edit_menu.actions()[0] if self.edit_menu.actions() else None
        self.act_undo = stack.createUndoAction(self, "&Undo")
        self.act_undo.setShortcut(QKeySequence.StandardKey.Undo)
        self.act_redo = stack.createRedoAction(self, "&Redo")
        self.act_redo.setShortcut(QKeySequence.StandardKey.Redo)
        self.edit_menu.insertAction(first, self.act_undo)
        self.edit_menu.insertAction(first, self.act_redo)
        stack.cleanChanged.connect(lambda clean: self.setWindowModified(not clean))
        doc.pinsChanged.connect(self._refresh_pins)
        doc.decisionsChanged.connect(lambda _: self._refresh_decisions())
        doc.dataChanged.connect(self._refresh_data)
        doc.runsChanged.connect(self._refresh_runs)
        doc.settingsChanged.connect(self.load_run_defaults)
        doc.failed.connect(self.report_error)
        self.setWindowTitle(f"{doc.name} — {doc.path} [*] — {APP_TITLE}")
        self.setWindowModified(False)
        self.status_project.setText(f"Project: {doc.path.name}")
        self.status_project.setToolTip(str(doc.path))
        self.plots.reset_run()
        self.plots.set_other_closeness({})
        self._refresh_data()
        self.load_run_defaults()
        self._refresh_runs()
        try:
            newest = exporting.default_run(doc.project)  # the newest run with matches
        except DecipherError:
            newest = None
        if newest is not None:
            self.show_run(newest.id)
        self._refresh_pins()

    def new_project(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "New project", settings.get("last_dir"),
                                              "Decipher projects (*.decipher)")
        if not path:
            return
        if not path.endswith(".decipher"):
            path += ".decipher"
        try:
            Project.create(path, overwrite=Path(path).exists()).close()
        except DecipherError as exc:
            self.report_error(*describe(exc))
            return
        settings.put("last_dir", str(Path(path).parent))
        self.open_project(path)

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open project", settings.get("last_dir"),
                                              "Decipher projects (*.decipher);;All files (*)")
        if path:
            settings.put("last_dir", str(Path(path).parent))
            self.open_project(path)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = settings.recent_projects()
        for path in recent:
            self.recent_menu.addAction(self._action(path, lambda _=False, p=path: self.open_project(p)))
        if not recent:
            a = self.recent_menu.addAction("(none)")
            a.setEnabled(False)
        self.recent_menu.addSeparator()
        self.recent_menu.addAction(self._action("Clear recent", settings.clear_recent))

    def save(self) -> None:
        if self.doc is not None:
            self.doc.undo_stack.setClean()
            self.statusBar().showMessage("Saved: every change is already in the project file", 5000)

    def save_as_dialog(self) -> None:
        if self.doc is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Save project as", str(self.doc.path.parent),
                                              "Decipher projects (*.decipher)")
        if path:
            self.save_as(path)

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
        corpora, languages = project.corpora(), project.languages()
        ids_c = [c.id for c in corpora]
        ids_l = [x.id for x in languages]
        if self.corpus_id not in ids_c:
            self.corpus_id = ids_c[0] if ids_c else None
        if self.language_id not in ids_l:
            self.language_id = ids_l[0] if ids_l else None
        self.corpora.set_corpora(corpora, self.corpus_id)
        self.languages.set_languages(languages, self.language_id)
        self.runs.set_choices(corpora, languages)
        self._sync_combos()
        self._load_corpus()
        self._load_language()

    def _sync_combos(self) -> None:
        for combo, value in ((self.runs.corpus, self.corpus_id), (self.runs.language, self.language_id)):
            i = combo.findData(value)
            if i >= 0 and combo.currentIndex() != i:
                combo.blockSignals(True)
                combo.setCurrentIndex(i)
                combo.blockSignals(False)

    def _choose_corpus(self, corpus_id) -> None:
        if corpus_id is None or corpus_id == self.corpus_id or self.project is None:
            return
        self.corpus_id = corpus_id
        self.corpora.set_corpora(self.project.corpora(), corpus_id)
        self._sync_combos()
        self._load_corpus()

    def _choose_language(self, language_id) -> None:
        if language_id is None or language_id == self.language_id or self.project is None:
            return
        self.language_id = language_id
        self.languages.set_languages(self.project.languages(), language_id)
        self._sync_combos()
        self._load_language()

    def _load_corpus(self) -> None:
        project = self.project
        if project is None or self.corpus_id is None:
            self.inscriptions.view.model().set_inscriptions([])
            self.corpora.set_inscriptions([])
            return
        inscriptions = project.inscriptions(self.corpus_id)
        self._inscriptions = inscriptions
        self._refs = {i.id: inscription_ref(i.meta, i.id) for i in inscriptions}
        self.inscriptions.view.model().set_inscriptions(inscriptions, project.gold(self.corpus_id))
        name = project.corpus(self.corpus_id).name
        self.inscriptions.caption.setText(f"<b>{html.escape(name)}</b> — {len(inscriptions)} inscriptions")
        self.corpora.set_inscriptions(inscriptions)
        self._update_inventory()
        self._update_marks()

    def _load_language(self) -> None:
        project = self.project
        if project is None or self.language_id is None:
            self.languages.set_stems([])
            return
        self._stems = project.stems(self.language_id)
        self.languages.set_stems(self._stems)
        self._update_inventory()
        self._update_other_closeness()

    def _update_inventory(self) -> None:
        project = self.project
        if project is None:
            return
        lost = lost_inventory(getattr(self, "_inscriptions", []))
        known = known_inventory(getattr(self, "_stems", []))
        self.pins.set_inventory(lost, known, project.pins())
        mapping, step, source = self._current_mapping()
        self.pins.set_mapping(mapping, step, source)

    def _scroll_to_inscription(self, inscription_id: str) -> None:
        view = self.inscriptions.view
        row = view.model().row_of.get(inscription_id)
        if row is not None:
            index = view.model().index(row)
            view.setCurrentIndex(index)
            view.scrollTo(index, view.ScrollHint.PositionAtCenter)

    # ==== pins ======================================================================================

    def _refresh_pins(self) -> None:
        if self.project is None:
            return
        pins = self.project.pins()
        self.pins.set_pins(pins)
        self.pins.send_button.setEnabled(self.controller.state == PAUSED)

    def toggle_pin(self, lost: str, known: str) -> None:
        if self.project is None:
            return
        self._execute(toggle_pin(self.project, lost, known))

    def set_pin(self, pin) -> None:
        if self.project is not None:
            self._execute(set_pin_command(self.project, pin))

    def clear_pins(self) -> None:
        if self.project is not None and self.project.pins():
            self._execute(ReplacePins(self.project.pins(), [], "Clear all pins"))

    def send_pins(self) -> None:
        if self.project is None:
            return
        if self.controller.send_pins(self.project.pins()):
            self.statusBar().showMessage(f"{len(self.project.pins())} pinned values will be used from the next "
                                         "step; Resume to continue", 8000)
        else:
            self.statusBar().showMessage("No active run to send the pins to", 5000)

    def _execute(self, command) -> bool:
        try:
            self.doc.execute(command)  # type: ignore[union-attr]
        except (DecipherError, OSError, ValueError) as exc:
            self.report_error(*describe(exc))
            return False
        return True

    # ==== runs ======================================================================================

    def load_run_defaults(self) -> None:
        project = self.project
        data = project.setting(RUN_CONFIG_KEY) if project is not None else None
        try:
            config = Config.from_dict(dict(data or {}))
        except DecipherError:
            config = Config()
        self.runs.form.set_config(config)

    def save_run_defaults(self) -> None:
        if self.project is None:
            return
        try:
            values = self.runs.form.config().to_dict()
        except DecipherError as exc:
            self.report_error("Invalid run settings", str(exc))
            return
        self._execute(SetSetting(RUN_CONFIG_KEY, values, self.project.setting(RUN_CONFIG_KEY),
                                 "Change default run settings"))

    def start_run(self, config: Config | None = None) -> bool:
        project = self.project
        if project is None or self.controller.active:
            return False
        if self.corpus_id is None or self.language_id is None:
            self.report_error("Nothing to run on", "Import a corpus and a known language first (File ▸ Import).")
            return False
        if config is None or isinstance(config, bool):
            try:
                config = self.runs.form.config()
            except DecipherError as exc:
                self.report_error("Invalid run settings", str(exc))
                return False
        self.live_matches = ()
        self.live_mapping = None
        self.live_step = 0
        self.plots.reset_run()
        self.runs.set_progress(0, config.steps)
        self._run_config = config
        try:
            self.controller.start(project, self.corpus_id, self.language_id, config)
        except (DecipherError, RuntimeError) as exc:
            self.report_error(*describe(exc))
            return False
        return True

    def toggle_pause(self) -> None:
        if self.controller.state == PAUSED:
            self.controller.resume()
        else:
            self.controller.pause()

    def stop_run(self) -> None:
        self.controller.stop()

    def set_run_state(self, state: str) -> None:
        self.runs.set_state(state)
        words = {"idle": "Idle", "starting": "Starting run…", "running": "Running", "paused": "Paused",
                 "stopping": "Stopping…"}
        text = words.get(state, state)
        if self.controller.run_id is not None and state != IDLE:
            text = f"Run {self.controller.run_id}: {text}"
        self.status_run.setText(text)
        self.act_start.setEnabled(state == IDLE)
        self.act_pause.setEnabled(state in ("running", "paused", "starting"))
        self.act_stop.setEnabled(state in ("running", "paused", "starting"))
        self.act_send_pins.setEnabled(state == PAUSED)
        self.pins.send_button.setEnabled(state == PAUSED)

    def _on_started(self, device: str) -> None:
        self.runs.set_device(device)
        kind = "CUDA" if device.startswith("cuda") else "CPU"
        self.status_device.setText(f"Device: {kind}" + ("" if device == "cpu" else f" — {device}"))

    def _on_run_recorded(self, run_id: int) -> None:
        self.live_run = run_id
        self.shown_run = run_id
        self.shown_matches = []
        self.decisions = {}
        self._refresh_runs(select=run_id)
        self._update_marks()
        self._update_other_closeness()
        self.matches.set_matches([], self._refs_or_empty(), {}, f"Run {run_id}: no evaluation yet")

    def _on_steps(self, batch: StepBatch) -> None:
        self.live_step = batch.last.step
        self.runs.set_progress(batch.last.step, batch.total_steps, f"run {self.live_run}")
        self.runs.set_state(self.controller.state, f"step {batch.last.step} of {batch.total_steps}, "
                                                   f"loss {batch.last.losses.get('total', float('nan')):.3f}")
        self.plots.add_steps(batch.records)
        self.live_matches = batch.live_matches
        if batch.mapping is not None:
            self.live_mapping = batch.mapping
        # the rest in the next turn of the event loop, so no single slot blocks it for long
        QTimer.singleShot(0, self._after_steps)

    def _after_steps(self) -> None:
        if self.shown_run != self.live_run or self.project is None:
            return
        if self.live_mapping is not None:
            self.pins.set_mapping(self.live_mapping, self.live_step, f"(run {self.live_run}, live)")
        self._update_marks()

    def _on_eval(self, event: EvalEvent) -> None:
        label = self._live_label()
        self.plots.add_evaluation(event.step, dict(event.metrics), event.closeness, label)
        if event.mapping is not None:
            self.live_mapping = event.mapping
        self._eval_matches = event.matches
        QTimer.singleShot(0, self._after_eval)

    def _after_eval(self) -> None:
        if self.project is None:
            return
        if self.shown_run == self.live_run and self.live_run is not None:
            self.live_matches = ()
            self._load_shown_matches(getattr(self, "_eval_matches", None))
        QTimer.singleShot(0, lambda: self._refresh_runs(select=self.shown_run))

    def _live_label(self) -> str:
        project = self.project
        if project is None or self.live_run is None:
            return "current run"
        try:
            return run_label(project, project.run(self.live_run))
        except DecipherError:
            return f"run {self.live_run}"

    def _on_finished(self, event: FinishedEvent) -> None:
        self.statusBar().showMessage(f"Run {self.live_run} {event.reason} after {event.step} steps "
                                     f"({event.elapsed:.1f} s)", 10000)

    def _on_run_error(self, failure: RunFailure) -> None:
        text = failure.message
        if failure.step:
            text += f"\n\n(at step {failure.step}; the results so far are kept in the project)"
        self.report_error(failure.title, text, failure.details)

    def _on_ended(self, status: str) -> None:
        self.live_matches = ()
        self.runs.set_state(IDLE, f"last run {status}")
        self._refresh_runs(select=self.shown_run)
        if self.shown_run is not None:
            self._load_shown_matches()
        mapping, step, source = self._current_mapping()
        self.pins.set_mapping(mapping, step, source)
        self.runEnded.emit(status)

    def _refresh_runs(self, select: int | None = None) -> None:
        project = self.project
        if project is None:
            return
        runs = project.runs()
        languages = {x.id: x.name for x in project.languages()}
        metrics = {r.id: project.latest_metrics(r.id) for r in runs}
        self.runs.set_runs(runs, languages, metrics, select if select is not None else self.shown_run)

    # ==== the shown run: matches, highlights, explanations ============================================

    def _refs_or_empty(self) -> dict[str, str]:
        return getattr(self, "_refs", {})

    def show_run(self, run_id: int) -> None:
        project = self.project
        if project is None:
            return
        try:
            run = project.run(run_id)
        except DecipherError as exc:
            self.report_error(*describe(exc))
            return
        self.shown_run = run_id
        if run.corpus_id is not None and run.corpus_id != self.corpus_id:
            self._choose_corpus(run.corpus_id)
        if run.id != self.live_run or not self.controller.active:
            self.plots.load_history(project.metrics(run_id))
            curve = stored_closeness(project, run)
            if curve is not None:
                self.plots.set_current_closeness(curve, run_label(project, run))
        if run.id != self.live_run or not self.controller.active:
            try:
                total = run.settings().steps
            except DecipherError:
                total = run.last_step or 0
            self.runs.set_progress(run.last_step or 0, total, f"run {run.id} {run.status}")
        self._load_shown_matches()
        self._update_other_closeness()
        mapping, step, source = self._current_mapping()
        self.pins.set_mapping(mapping, step, source)
        self._refresh_runs(select=run_id)

    def _load_shown_matches(self, matches: list[Match] | None = None) -> None:
        """Show the shown run's matches: ``matches`` when the caller has them (a live evaluation,
        already stored by the worker), else read from the project."""
        project = self.project
        if project is None or self.shown_run is None:
            return
        self.shown_matches = list(matches) if matches is not None else project.matches(self.shown_run)
        self.decisions = project.decisions(self.shown_run)
        run = project.run(self.shown_run)
        caption = (f"Run {run.id} ({run.status}) — {len(self.shown_matches)} matched spans; "
                   f"settings: {run.summary()}")
        self.matches.set_matches(self.shown_matches, self._refs_or_empty(), self.decisions, caption)
        self._update_marks()
        self._refresh_details()

    def _refresh_decisions(self) -> None:
        if self.project is None or self.shown_run is None:
            return
        self.decisions = self.project.decisions(self.shown_run)
        self.matches.set_decisions(self.decisions)
        self._update_marks()
        self._refresh_details()

    def _shown_corpus(self) -> int | None:
        """The corpus of the shown run (cached per run: asked on every live update)."""
        cached = getattr(self, "_corpus_of_run", (None, None))
        if cached[0] != self.shown_run:
            corpus = None
            if self.project is not None and self.shown_run is not None:
                try:
                    corpus = self.project.run(self.shown_run).corpus_id
                except DecipherError:
                    corpus = None
            self._corpus_of_run = cached = (self.shown_run, corpus)
        return cached[1]

    def _update_marks(self) -> None:
        shown_corpus = self._shown_corpus()
        matches = self.shown_matches if shown_corpus == self.corpus_id else []
        live = self.live_matches if (self.shown_run == self.live_run and self.controller.active) else ()
        self.inscriptions.view.model().set_marks(marks_by_inscription(matches, self.decisions, live))
        self.inscriptions.view.viewport().update()

    def _current_mapping(self) -> tuple[MappingSnapshot | None, int | None, str]:
        project = self.project
        if self.shown_run is not None and self.shown_run == self.live_run and self.live_mapping is not None:
            live = ", live" if self.controller.active else ""
            return self.live_mapping, self.live_step, f"(run {self.live_run}{live})"
        if project is not None and self.shown_run is not None:
            mapping = mapping_of(project, self.shown_run)
            if mapping is not None:
                try:
                    step = project.run(self.shown_run).last_step
                except DecipherError:
                    step = None
                return mapping, step, f"(run {self.shown_run})"
        return None, None, ""

    def _gamma_band(self) -> tuple[float, int]:
        project = self.project
        try:
            run = project.run(self.shown_run)  # type: ignore[union-attr, arg-type]
            cfg = run.settings()
            return cfg.insertion_cost(run.last_step or cfg.steps), cfg.band
        except Exception:
            return Config().insertion_cost_end, Config().band

    def _explain(self, mark: SpanMark, brief: bool = False) -> str:
        mapping, _, _ = self._current_mapping()
        gamma, band = self._gamma_band()
        return explain_html(mark, mapping, gamma, band, ref=self._refs_or_empty().get(mark.match.inscription_id, ""),
                            brief=brief)

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
        mapping, _, _ = self._current_mapping()
        details.mapping = mapping
        details.gamma, details.band = self._gamma_band()
        ref = "" if mark is None else self._refs_or_empty().get(mark.match.inscription_id, "")
        details.set_mark(mark, self.decisions, ref)

    def _match_selected(self, match: Match | None) -> None:
        if match is not None and self.inscriptions.view.selected_span != (match.inscription_id, match.start, match.end):
            self.inscriptions.view.blockSignals(True)
            self.inscriptions.view.select_span(match.inscription_id, match.start, match.end)
            self.inscriptions.view.blockSignals(False)
            self._refresh_details()

    def jump_to_match(self, match: Match) -> None:
        if match is None:
            return
        mark = self.inscriptions.view.select_span(match.inscription_id, match.start, match.end)
        self._refresh_details(mark)
        self.inscriptions.view.setFocus()

    # ==== decisions =================================================================================

    def decide(self, match: Match, form: str, status: str) -> bool:
        project = self.project
        if project is None or self.shown_run is None:
            return False
        value = None if status == "open" else status
        key = (match.inscription_id, match.start, match.end, form)
        if self.decisions.get(key) == value:
            return False
        return self._execute(DecideSpan.build(project, self.shown_run, key, value))

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

    # ==== closeness of other languages ==============================================================

    def _update_other_closeness(self) -> None:
        """The newest run with matches on each OTHER known language, on the same corpus."""
        project = self.project
        if project is None:
            return
        current_language = self.language_id
        if self.shown_run is not None:
            try:
                current_language = project.run(self.shown_run).language_id
            except DecipherError:
                pass
        newest: dict[int, object] = {}
        for run in project.runs():
            if run.language_id is None or run.language_id == current_language or run.status == "running":
                continue
            if self.corpus_id is not None and run.corpus_id != self.corpus_id:
                continue
            newest[run.language_id] = run
        curves = {}
        for run in newest.values():
            curve = stored_closeness(project, run)  # type: ignore[arg-type]
            if curve is not None:
                curves[run_label(project, run)] = curve  # type: ignore[arg-type]
        self.plots.set_other_closeness(curves)

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
        label = f"Import {Path(path).name}"
        command = ImportCommand(label, importer_for(kind, path, **options))
        try:
            self.doc.execute(command)  # type: ignore[union-attr]
        except Exception as exc:  # noqa: BLE001 - any failure of an importer is shown, never raised
            title, message = describe(exc)
            self.report_error(f"Import failed: {title.lower()}", message)
            return False
        self.statusBar().showMessage(str(command.result), 10000)
        return True

    def _save_path(self, title: str, default_name: str, filters: str) -> str | None:
        start = Path(settings.get("last_dir") or str(self.doc.path.parent if self.doc else Path.home()))
        path, _ = QFileDialog.getSaveFileName(self, title, str(start / default_name), filters)
        if path:
            settings.put("last_dir", str(Path(path).parent))
        return path or None

    def export_matches_dialog(self) -> None:
        if self.project is None:
            return
        path = self._save_path("Export match report", f"matches-run{self.shown_run or ''}.csv",
                               "CSV (*.csv);;TSV (*.tsv)")
        if path:
            self.export_matches(path)

    def export_matches(self, path: str | Path, **options) -> int | None:
        if self.project is None:
            return None
        try:
            n = exporting.export_matches(self.project, path, run_id=self.shown_run, **options)
        except (DecipherError, OSError) as exc:
            self.report_error(*describe(exc))
            return None
        self.statusBar().showMessage(f"Wrote {n} rows to {path}", 8000)
        return n

    def export_prior_dialog(self) -> None:
        if self.project is None:
            return
        path = self._save_path("Export pinned values", "PRIOR.csv", "CSV (*.csv);;TSV (*.tsv)")
        if path:
            try:
                n = exporting.export_prior(self.project, path)
                self.statusBar().showMessage(f"Wrote {n} pinned values to {path}", 8000)
            except (DecipherError, OSError) as exc:
                self.report_error(*describe(exc))

    def export_plot_dialog(self, plot) -> None:
        path = self._save_path(f"Export {plot.title} values", f"{plot.title.lower()}.csv", "CSV (*.csv)")
        if path:
            try:
                plot.export(path)
            except OSError as exc:
                self.report_error(*describe(exc))

    # ==== view =====================================================================================

    def zoom_text(self, delta: int) -> None:
        size = max(8, min(40, settings.get("text_point_size") + delta))
        settings.put("text_point_size", size)
        self.inscriptions.view.set_point_size(size)

    def _toggle_gold(self, on: bool) -> None:
        self.inscriptions.view.show_gold = on
        self.inscriptions.view.viewport().update()

    def reset_layout(self) -> None:
        for dock in (self.corpora_dock, self.languages_dock, self.runs_dock, self.matches_dock,
                     self.pins_dock, self.plots_dock):
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
                f"{QKeySequence(QKeySequence.StandardKey.Redo).toString()}</td><td>undo / redo</td></tr>"
                "<tr><td>Ctrl++ / Ctrl+−</td><td>larger / smaller inscription text</td></tr></table>")
        box = QMessageBox(QMessageBox.Icon.Information, "Keyboard shortcuts", text, parent=self)
        box.open()

    def show_about(self) -> None:
        box = QMessageBox(QMessageBox.Icon.Information, f"About {APP_TITLE}",
                          f"<b>{APP_TITLE}</b><br>Computational decipherment of undersegmented lost "
                          "scripts with a phonetic prior (Luo et al., TACL 2021).<br><br>"
                          "Inscription font: Noto Sans (SIL Open Font License 1.1).<br>"
                          f"Settings file: {html.escape(settings.settings_file())}", parent=self)
        box.open()

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
