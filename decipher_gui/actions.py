"""The window's actions: menus, keyboard shortcuts, the file dialogs behind them, imports and
exports (written by the window's model, reported in the status bar) and the View and Help menus'
small operations. The dialogs only ask for a path and hand it on."""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMessageBox

from engine.errors import DecipherError
from engine.io.text import DottedLettersUnchosen

from . import settings
from .model import create_project_file
from .view import APP_TITLE
from .errors import describe
from decipher_gui.commands import ImportCommand
from decipher_gui.dialogs import dotted_letters_box
from decipher_gui.importers import BY_KEY, KINDS, importer_for

if TYPE_CHECKING:
    from .view import WindowView

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

    def __init__(self, window: "WindowView"):
        super().__init__(window)
        self.w = w = window
        self.new = self._action("&New project…", self.new_project_dialog, SK.New)
        self.open = self._action("&Open project…", self.open_dialog, SK.Open)
        self.save = self._action("&Save", self.save_project, SK.Save,
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
        self.codes = self._action("Language codes for exports…", self.language_codes_dialog,
                                  tip="Glottocode and ISO 639-3 of the lost corpus and the known language "
                                      "(written into the CLDF and EDICTOR exports)")
        self.start = self._action("&Start run", w.start_run, "F5", "Start a run with the settings in the Run panel")
        self.pause = self._action("&Pause / Resume", lambda: w.live.toggle_pause(), "F6",
                                  "Pause after the current step; pins you change are used from that step on "
                                  "when you resume")
        self.stop = self._action("S&top run", w.stop_run, "Shift+F5")
        self.compare = self._action("&Compare known languages…", self.compare_dialog,  # issue 12
                                    tip="Which known language is closest: candidates, their nulls, seeds")
        self.bigger = self._action("Larger text", lambda: self.zoom_text(1), SK.ZoomIn)
        self.smaller = self._action("Smaller text", lambda: self.zoom_text(-1), SK.ZoomOut)
        self.display = self._action("Display table…", self.edit_display_table,
                                    tip="How the corpus's letters are shown: transliteration, script, direction")
        self.known_display = self._action("Display table (known language)…", self.edit_known_display_table,
                                          tip="How the known language's stems are shown: transliteration or script")
        self.gold = self._action("Show gold annotations", self.toggle_gold)
        self.gold.setCheckable(True)
        self.gold.setChecked(True)
        self.accept = self._action("Accept selected span", lambda: w.selection.decide_selected("accepted"))
        self.reject = self._action("Reject selected span", lambda: w.selection.decide_selected("rejected"))
        self.reopen = self._action("Reopen selected span", lambda: w.selection.decide_selected("open"))
        self.undo = QAction("&Undo", w)
        self.undo.setShortcut(SK.Undo)
        self.undo.setEnabled(False)
        self.redo = QAction("&Redo", w)
        self.redo.setShortcuts(redo_keys())
        self.redo.setEnabled(False)
        self._build_menus()
        # a syllable run's grid (Sign values tab) and the pin dialog's syllable values
        w.signs.grid.exportRequested.connect(self.export_syllable_grid_dialog)
        w.pins.syllables = self.syllable_signs

    def syllable_signs(self) -> bool:
        """Whether pins are syllables (ka, k-, -a): the Run panel's setting signs = syllables, or the
        mapping shown is a syllable run's."""
        mapping = self.w.current_mapping()[0]
        return (self.w.runs.form.values().get("signs") == "syllables"
                or (mapping is not None and mapping.syllables is not None))

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
            self.import_menu.addAction(self._action(kind.label, lambda _=False, k=kind.key: self.import_dialog(k)))
        export = file.addMenu("&Export")
        for a in (self.export_matches, self.export_prior, self.export_signs, self.export_cldf, self.export_edictor):
            export.addAction(a)
        export.addSeparator()
        self.export_bom = self._action("Byte-order mark in CSV exports", self.toggle_export_bom,
                                       tip="A UTF-8 BOM at the start of each CSV, so a spreadsheet reads IPA "
                                           "and transliteration correctly")
        self.export_bom.setCheckable(True)
        self.export_bom.setChecked(self.w.model.exports.export_bom)
        export.addAction(self.export_bom)
        export.addAction(self.codes)
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
        for a in (self.display, self.known_display, self.gold, self.bigger, self.smaller):
            view.addAction(a)
        view.addAction(self._action("Reset layout", self.reset_layout))
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self._action("Keyboard shortcuts", self.show_shortcuts, SK.HelpContents))
        help_menu.addAction(self._action("About", self.show_about))

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
        self.create_project(dialog.path(), preset=dialog.preset())

    def create_project(self, path: str | Path, *, preset: str | None = None) -> bool:
        """File ▸ New: an empty project file, opened, with the run settings of ``preset``."""
        w = self.w
        if w.controller.active:
            w.report_error("A run is active", "Stop the run before creating another project.")
            return False
        try:
            path = create_project_file(path)
        except (DecipherError, OSError) as exc:
            w.report_error(*describe(exc))
            return False
        settings.put("last_dir", str(Path(path).parent))
        if not w.open_project(path):
            return False
        if preset:
            w.run_form.apply_preset(preset, save=True)
            w.doc.undo_stack.clear()  # creating is not an edit to undo
        return True

    def save_project(self) -> None:
        if self.w.doc is not None:
            self.w.doc.undo_stack.setClean()
            self.w.statusBar().showMessage("Saved: every change is already in the project file", 5000)

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
        if self.w.model.project is None:
            return
        path = self.save_path(title, default_name, "CSV (*.csv);;TSV (*.tsv)")
        if path:
            write(path)

    def toggle_export_bom(self, on: bool) -> None:
        self.w.model.exports.export_bom = bool(on)

    def export_matches_dialog(self) -> None:
        self._export_table("Export match report", f"matches-run{self.w.state.shown_run or ''}.csv",
                           self.write_matches)

    def export_prior_dialog(self) -> None:
        self._export_table("Export pinned values", "PRIOR.csv", self.write_prior)

    def export_sign_values_dialog(self) -> None:
        self._export_table("Export sign values", f"sign-values-run{self.w.state.shown_run or ''}.csv",
                           self.write_sign_values)

    def export_syllable_grid_dialog(self, kind: str) -> None:
        """The learned syllable grid as CSV/TSV (``kind`` "csv") or PNG ("png")."""
        if self.w.model.project is None or self.w.signs.grid.refresh() is None:
            return
        name = f"syllable-grid-run{self.w.state.shown_run or ''}"
        path = (self.save_path("Export the syllable grid", name + ".png", "PNG (*.png)") if kind == "png" else
                self.save_path("Export the syllable grid", name + ".csv", "CSV (*.csv);;TSV (*.tsv)"))
        if path:
            self.write_syllable_grid(path, kind)

    def write_syllable_grid(self, path: str | Path, kind: str = "csv") -> int | None:
        grid_panel = self.w.signs.grid
        if kind == "png":
            def write():
                grid_panel.save_png(path)
                return len(grid_panel.grid.onsets)
            return self._write(f"grid rows as a picture to {path}", write)
        grid = grid_panel.refresh()
        if grid is None:
            return None
        return self._write(f"grid rows to {path}",
                           lambda: self.w.model.exports.export_syllable_grid(grid, path))

    def export_cldf_dialog(self) -> None:
        if self.w.model.project is None:
            return
        folder = QFileDialog.getExistingDirectory(self.w, "Folder for the CLDF Wordlist",
                                                  settings.get("last_dir") or str(Path.home()))
        if folder:
            settings.put("last_dir", folder)
            self.write_cldf(folder)

    def export_edictor_dialog(self) -> None:
        if self.w.model.project is None:
            return
        path = self.save_path("Export accepted matches for EDICTOR",
                              f"accepted-run{self.w.state.shown_run or ''}.tsv", "TSV (*.tsv)")
        if path:
            self.write_edictor(path)

    # ---- imports and exports --------------------------------------------------------------------

    def import_dialog(self, kind: str) -> None:
        from decipher_gui.dialogs import ImportDialog

        if self.w.model.project is None:
            return
        dialog = ImportDialog(BY_KEY[kind], [(c.id, c.name) for c in self.w.model.corpora()],
                              settings.get("last_dir"), self.w)
        if dialog.exec() != ImportDialog.DialogCode.Accepted or dialog.file() is None:
            return
        settings.put("last_dir", str(dialog.file().parent))
        self.import_file(kind, dialog.file(), **dialog.options())

    def import_file(self, kind: str, path: str | Path, **options) -> bool:
        """Run an importer as an undoable command; errors appear as a message naming file and line."""
        if self.w.doc is None:
            return False
        command = ImportCommand(f"Import {Path(path).name}", importer_for(kind, path, **options))
        try:
            self.w.doc.execute(command)
        except DottedLettersUnchosen as exc:  # what a dot below is is the user's to say: asked, never guessed
            # the import runs again with the answer (Cancel imports nothing)
            dotted_letters_box(self.w, path, exc,
                               lambda choice: self.import_file(kind, path, **{**options, "dotted": choice}))
            return False
        except Exception as exc:  # noqa: BLE001 - any failure of an importer is shown, never raised
            title, message = describe(exc)
            self.w.report_error(f"Import failed: {title[:1].lower() + title[1:]}", message)
            return False
        self.w.statusBar().showMessage(str(command.result), 10000)
        # what the import added is what the user wants to see: the new corpus or language is chosen
        corpora, languages, _runs = command.added
        if corpora:
            self.w.data.choose_corpus(max(corpora))
        if languages:
            self.w.data.choose_language(max(languages))
        return True

    def _write(self, what: str, write, *, of_run: bool = False) -> int | None:
        """Call ``write`` (one of the model's exports) and say in the status bar what it wrote;
        ``of_run``: it exports a run's results, and a run that has not finished is said so."""
        if self.w.model.project is None:
            return None
        try:
            n = write()
        except (DecipherError, OSError) as exc:
            self.w.report_error(*describe(exc))
            return None
        run_id, notes = getattr(n, "run_id", None), list(getattr(n, "warnings", ()))
        if getattr(n, "guarded", 0):
            notes.append(f"{n.guarded} cells a spreadsheet would run as formulas start with an added '")
        message = f"Wrote {int(n)} {what}" + (f" (run {run_id})" if run_id is not None else "")
        unfinished = self.w.model.exports.unfinished_note(run_id) if of_run else None
        if unfinished is not None:   # first: a long path must not push it out of the status bar
            message = f"{unfinished[0].upper()}{unfinished[1:]}. {message}"
        long = bool(notes) or unfinished is not None
        self.w.statusBar().showMessage("; ".join([message] + notes), 15000 if long else 8000)
        return n

    def write_matches(self, path: str | Path, **options) -> int | None:
        return self._write(f"rows to {path}", lambda: self.w.model.exports.export_matches(path, **options), of_run=True)

    def write_prior(self, path: str | Path) -> int | None:
        return self._write(f"pinned values to {path}", lambda: self.w.model.exports.export_prior(path))

    def write_sign_values(self, path: str | Path) -> int | None:
        mapping = self.w.current_mapping()[0]
        return self._write(f"sign values to {path}", lambda: self.w.model.exports.export_sign_values(path, mapping),
                           of_run=True)

    def language_codes_dialog(self) -> bool:
        """Set the chosen corpus's and known language's codes; a bad code is a message, nothing stored."""
        from .dialogs import LanguageCodesDialog

        if self.w.model.project is None:
            return False
        names, codes = self.w.model.exports.language_codes()
        dialog = LanguageCodesDialog(self.w, names, codes)
        if dialog.exec() != LanguageCodesDialog.DialogCode.Accepted:
            return False
        return self.store_language_codes(dialog.values())

    def store_language_codes(self, values: dict) -> bool:
        try:
            self.w.model.exports.set_language_codes(values)
        except DecipherError as exc:
            self.w.report_error(*describe(exc))
            return False
        self.w.statusBar().showMessage("Language codes stored; the CLDF and EDICTOR exports write them", 8000)
        return True

    def write_cldf(self, folder: str | Path) -> int | None:
        return self._write(f"accepted matches as a CLDF Wordlist in {folder}",
                           lambda: self.w.model.exports.export_cldf(folder), of_run=True)

    def write_edictor(self, path: str | Path) -> int | None:
        return self._write(f"accepted matches to {path}", lambda: self.w.model.exports.export_edictor(path),
                           of_run=True)

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


    # ---- view and help ----------------------------------------------------------------------------

    def edit_display_table(self) -> None:
        """View ▸ Display table…: choose a preset or edit the letters of the chosen corpus."""
        from .dialogs import DisplayTableDialog

        w = self.w
        if w.model.project is None or w.state.corpus_id is None:
            w.report_error("No corpus", "Import a corpus first; a display table belongs to a corpus.")
            return
        dialog = DisplayTableDialog(w.model.inventory()[0], w.model.display, w)
        if dialog.exec() == DisplayTableDialog.DialogCode.Accepted:
            w.set_display_table(dialog.table())

    def edit_known_display_table(self) -> None:
        """View ▸ Display table (known language)…: how the chosen known language's stems are shown."""
        from .dialogs import DisplayTableDialog

        w = self.w
        if w.model.project is None or w.state.language_id is None:
            w.report_error("No known language", "Import a known language first; this display table belongs to one.")
            return
        stems, known = w.model.stems, w.model.known_display
        letters = sorted({u for s in stems for u in known.split(s.form)} | {u for s in stems for u in s.form})
        dialog = DisplayTableDialog(letters, known, w, what="language")
        if dialog.exec() == DisplayTableDialog.DialogCode.Accepted:
            w.set_known_display_table(dialog.table())

    def zoom_text(self, delta: int) -> None:
        size = max(8, min(40, settings.get("text_point_size") + delta))
        settings.put("text_point_size", size)
        self.w.inscriptions.view.set_point_size(size)

    def toggle_gold(self, on: bool) -> None:
        self.w.inscriptions.view.show_gold = on
        self.w.inscriptions.view.viewport().update()

    def reset_layout(self) -> None:
        for dock in self.w.docks():
            dock.setFloating(False)
            dock.show()
        if getattr(self.w, "_default_state", None) is not None:
            self.w.restoreState(self.w._default_state)

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
        QMessageBox(QMessageBox.Icon.Information, "Keyboard shortcuts", text, parent=self.w).open()

    def show_about(self) -> None:
        QMessageBox(QMessageBox.Icon.Information, f"About {APP_TITLE}",
                    f"<b>{APP_TITLE}</b><br>Computational decipherment of undersegmented lost "
                    "scripts with a phonetic prior (Luo et al., TACL 2021).<br><br>"
                    "Fonts: Noto Sans, Noto Sans Ugaritic, Noto Sans Gothic, Noto Sans Hebrew, "
                    "Noto Sans Phoenician (SIL Open Font License 1.1).<br>"
                    f"Settings file: {html.escape(settings.settings_file())}", parent=self.w).open()


__all__ = ["WindowActions", "redo_keys"]
