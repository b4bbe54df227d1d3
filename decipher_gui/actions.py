"""The window's actions: menus, keyboard shortcuts and the file dialogs behind them. Each action
calls one window operation; the dialogs only ask for a path and hand it on."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog

from engine.errors import DecipherError
from engine.project.store import Project

from . import settings
from .errors import describe
from .importers import KINDS

if TYPE_CHECKING:
    from .mainwindow import MainWindow

SK = QKeySequence.StandardKey


def redo_keys() -> list[QKeySequence]:
    """The platform's Redo keys plus Ctrl+Shift+Z and Ctrl+Y, so both habits work everywhere."""
    keys = list(QKeySequence.keyBindings(SK.Redo))
    for extra in ("Ctrl+Shift+Z", "Ctrl+Y"):
        seq = QKeySequence(extra)
        if seq not in keys:
            keys.append(seq)
    return keys


class WindowActions(QObject):
    """Builds the actions and menus of ``window`` and keeps the undo/redo pair current."""

    def __init__(self, window: "MainWindow"):
        super().__init__(window)
        self.w = w = window
        self.new = self._action("&New project…", self.new_project_dialog, SK.New)
        self.open = self._action("&Open project…", self.open_dialog, SK.Open)
        self.save = self._action("&Save", w.save, SK.Save,
                                 "Every change is written to the project file as you make it")
        self.save_as = self._action("Save &As…", self.save_as_dialog, SK.SaveAs)
        self.quit = self._action("&Quit", w.close, SK.Quit)
        self.export_matches = self._action("Match report (CSV)…", self.export_matches_dialog)
        self.export_prior = self._action("Pinned values (PRIOR.csv)…", self.export_prior_dialog)
        self.export_signs = self._action("Sign values (CSV)…", self.export_sign_values_dialog,
                                         tip="Each sign's best sounds with their probabilities, pinned or learned")
        self.export_cldf = self._action("Accepted matches as CLDF Wordlist…", self.export_cldf_dialog,
                                        tip="A CLDF Wordlist (metadata JSON + CSV tables) for LingPy, "
                                            "EDICTOR and supplementary data")
        self.export_edictor = self._action("Accepted matches as EDICTOR TSV…", self.export_edictor_dialog)
        self.start = self._action("&Start run", w.start_run, "F5", "Start a run with the settings in the Run panel")
        self.pause = self._action("&Pause / Resume", w.toggle_pause, "F6",
                                  "Pause after the current step; pins you change are used from that step on "
                                  "when you resume")
        self.stop = self._action("S&top run", w.stop_run, "Shift+F5")
        self.compare = self._action("&Compare known languages…", self.compare_dialog,  # issue 12
                                    tip="Which known language is closest: candidates, their nulls, seeds")
        self.bigger = self._action("Larger text", lambda: w.zoom_text(1), SK.ZoomIn)
        self.smaller = self._action("Smaller text", lambda: w.zoom_text(-1), SK.ZoomOut)
        self.display = self._action("Display table…", w.edit_display_table,
                                    tip="How the corpus's letters are shown: transliteration, script, direction")
        self.gold = self._action("Show gold annotations", w.toggle_gold)
        self.gold.setCheckable(True)
        self.gold.setChecked(True)
        self.accept = self._action("Accept selected span", lambda: w.decide_selected("accepted"))
        self.reject = self._action("Reject selected span", lambda: w.decide_selected("rejected"))
        self.reopen = self._action("Reopen selected span", lambda: w.decide_selected("open"))
        self.undo = QAction("&Undo", w)
        self.undo.setShortcut(SK.Undo)
        self.undo.setEnabled(False)
        self.redo = QAction("&Redo", w)
        self.redo.setShortcuts(redo_keys())
        self.redo.setEnabled(False)
        self._build_menus()

    def _action(self, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        act = QAction(text, self.w)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
        if tip:
            act.setToolTip(tip)
            act.setStatusTip(tip)
        act.triggered.connect(slot)
        return act

    def _build_menus(self) -> None:
        w = self.w
        bar = w.menuBar()
        file = bar.addMenu("&File")
        file.addAction(self.new)
        file.addAction(self.open)
        self.recent_menu = file.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        file.addSeparator()
        file.addAction(self.save)
        file.addAction(self.save_as)
        file.addSeparator()
        self.import_menu = file.addMenu("&Import")
        for kind in KINDS:
            self.import_menu.addAction(self._action(kind.label, lambda _=False, k=kind.key: w.import_dialog(k)))
        export = file.addMenu("&Export")
        for a in (self.export_matches, self.export_prior, self.export_signs, self.export_cldf, self.export_edictor):
            export.addAction(a)
        file.addSeparator()
        file.addAction(self.quit)
        edit = bar.addMenu("&Edit")
        edit.addAction(self.undo)
        edit.addAction(self.redo)
        self.edit_menu = edit
        edit.addSeparator()
        for a in (self.accept, self.reject, self.reopen):
            edit.addAction(a)
        run = bar.addMenu("&Run")
        for a in (self.start, self.pause, self.stop):
            run.addAction(a)
        run.addSeparator()
        run.addAction(self.compare)
        view = bar.addMenu("&View")
        for dock in w.docks():
            view.addAction(dock.toggleViewAction())
        view.addSeparator()
        for a in (self.display, self.gold, self.bigger, self.smaller):
            view.addAction(a)
        view.addAction(self._action("Reset layout", w.reset_layout))
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self._action("Keyboard shortcuts", w.show_shortcuts, SK.HelpContents))
        help_menu.addAction(self._action("About", w.show_about))

    def follow_undo_stack(self, stack) -> None:
        """Replace the Undo/Redo pair with the new document's (texts like "Undo Pin š → /ʃ/")."""
        first = self.edit_menu.actions()[2] if len(self.edit_menu.actions()) > 2 else None
        self.edit_menu.removeAction(self.undo)
        self.edit_menu.removeAction(self.redo)
        self.undo = stack.createUndoAction(self.w, "&Undo")
        self.undo.setShortcut(SK.Undo)
        self.redo = stack.createRedoAction(self.w, "&Redo")
        self.redo.setShortcuts(redo_keys())
        self.edit_menu.insertAction(first, self.undo)
        self.edit_menu.insertAction(first, self.redo)

    # ---- file dialogs -------------------------------------------------------------------------

    def new_project_dialog(self) -> None:
        from .dialogs import NewProjectDialog

        dialog = NewProjectDialog(settings.get("last_dir"), self.w)
        if dialog.exec() != NewProjectDialog.DialogCode.Accepted or dialog.path() is None:
            return
        self.w.create_project(dialog.path(), preset=dialog.preset())

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.w, "Open project", settings.get("last_dir"),
                                              "Decipher projects (*.decipher);;All files (*)")
        if path:
            settings.put("last_dir", str(Path(path).parent))
            self.w.open_project(path)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = settings.recent_projects()
        for path in recent:
            self.recent_menu.addAction(self._action(path, lambda _=False, p=path: self.w.open_project(p)))
        if not recent:
            a = self.recent_menu.addAction("(none)")
            a.setEnabled(False)
        self.recent_menu.addSeparator()
        self.recent_menu.addAction(self._action("Clear recent", settings.clear_recent))

    def save_as_dialog(self) -> None:
        if self.w.doc is None:
            return
        path, _ = QFileDialog.getSaveFileName(self.w, "Save project as", str(self.w.doc.path.parent),
                                              "Decipher projects (*.decipher)")
        if path:
            self.w.save_as(path)

    def save_path(self, title: str, default_name: str, filters: str) -> str | None:
        doc = self.w.doc
        start = Path(settings.get("last_dir") or str(doc.path.parent if doc else Path.home()))
        path, _ = QFileDialog.getSaveFileName(self.w, title, str(start / default_name), filters)
        if path:
            settings.put("last_dir", str(Path(path).parent))
        return path or None

    def _export_table(self, title: str, default_name: str, write) -> None:
        """Ask for a CSV/TSV file to write one of the open project's tables to."""
        if self.w.project is None:
            return
        path = self.save_path(title, default_name, "CSV (*.csv);;TSV (*.tsv)")
        if path:
            write(path)

    def export_matches_dialog(self) -> None:
        self._export_table("Export match report", f"matches-run{self.w.state.shown_run or ''}.csv",
                           self.w.export_matches)

    def export_prior_dialog(self) -> None:
        self._export_table("Export pinned values", "PRIOR.csv", self.w.export_prior)

    def export_sign_values_dialog(self) -> None:
        self._export_table("Export sign values", f"sign-values-run{self.w.state.shown_run or ''}.csv",
                           self.w.export_sign_values)

    def export_cldf_dialog(self) -> None:
        if self.w.project is None:
            return
        folder = QFileDialog.getExistingDirectory(self.w, "Folder for the CLDF Wordlist",
                                                  settings.get("last_dir") or str(Path.home()))
        if folder:
            settings.put("last_dir", folder)
            self.w.export_cldf(folder)

    def export_edictor_dialog(self) -> None:
        if self.w.project is None:
            return
        path = self.save_path("Export accepted matches for EDICTOR",
                              f"accepted-run{self.w.state.shown_run or ''}.tsv", "TSV (*.tsv)")
        if path:
            self.w.export_edictor(path)

    def compare_dialog(self) -> None:
        from .comparison import controller

        controller(self.w).open_dialog()

    def export_plot_dialog(self, plot) -> None:
        path = self.save_path(f"Export {plot.title} values", f"{plot.title.lower()}.csv", "CSV (*.csv)")
        if path:
            try:
                plot.export(path)
            except OSError as exc:
                self.w.report_error(*describe(exc))


def create_project_file(path: str | Path) -> Path:
    """A new empty project file at ``path`` (``.decipher`` added); DecipherError when it cannot."""
    path = Path(path)
    if path.suffix != ".decipher":
        path = path.with_name(path.name + ".decipher")
    Project.create(path, overwrite=path.exists()).close()
    return path


__all__ = ["WindowActions", "create_project_file", "redo_keys", "DecipherError"]
