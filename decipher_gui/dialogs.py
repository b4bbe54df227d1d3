"""Dialogs: a new project (with a settings preset), the import options, a corpus's display
table, the question a text with dotted letters asks, and the error box with details."""

from __future__ import annotations

import codecs
import html
from pathlib import Path
from typing import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFileDialog,
                               QFormLayout, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QMessageBox,
                               QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from engine.io import display as display_tables
from engine.errors import InputError
from engine.io.preview import Preview, preview_file
from engine.io.text import undotted

from .errors import app_words
from .fonts import text_font
from decipher_gui.importers import (DELIMITER_CHOICES, ENCODING_CHOICES, READS_ENCODING, ImportKind,
                                    transcription_systems)

PROBLEM_BG = "#F8D7DA"   # a cell with a problem: pink, with the reason as tooltip and a ⚠ in the text


def encoding_label(codec: str | None) -> str:
    """The dialog's name for a codec the engine's preview used ("Windows-1252" for cp1252)."""
    try:
        name = codecs.lookup(codec or "").name.removesuffix("-sig")
    except LookupError:
        return codec or "?"
    return next((label for label, value in ENCODING_CHOICES
                 if value != "auto" and codecs.lookup(value).name.removesuffix("-sig") == name), codec or "?")


def _marked_cell(cells: Sequence[str]) -> int:
    """The cell of a row with a problem that gets the ⚠: one the encoding cannot read, else an
    empty one, else the first."""
    for test in (lambda c: "\ufffd" in c, lambda c: not c.strip()):
        found = next((i for i, c in enumerate(cells) if test(c)), None)
        if found is not None:
            return found
    return 0


class ImportDialog(QDialog):
    """The file and the few options an import needs (name, system, language, corpus, replace)."""

    def __init__(self, kind: ImportKind, corpora: Sequence[tuple[int, str]], start_dir: str = "", parent=None):
        super().__init__(parent)
        self.kind = kind
        self.setWindowTitle("Import " + kind.label.rstrip("…"))
        lay = QVBoxLayout(self)
        form = QFormLayout()
        row = QHBoxLayout()
        self.path = QLineEdit()
        self.path.setMinimumWidth(360)
        browse = QPushButton("Browse…")
        browse.clicked.connect(lambda: self._browse(start_dir))
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        holder = QWidget()
        holder.setLayout(row)
        row.setContentsMargins(0, 0, 0, 0)
        form.addRow("File", holder)
        self.name = QLineEdit()
        self.name.setPlaceholderText("default: the file's name")
        if kind.asks_name:
            form.addRow("Name", self.name)
        self.system = QComboBox()
        self.system.setEditable(True)
        if kind.asks_system:
            self.system.addItems(transcription_systems())
            self.system.setToolTip("One of our rule tables, an epitran code such as spa-Latn, or a rule-table file")
            form.addRow("Transcription system", self.system)
        self.language = QLineEdit()
        self.language.setPlaceholderText("only when the file holds several languages")
        if kind.asks_language:
            form.addRow("Language in the file", self.language)
        self.corpus = QComboBox()
        for ident, name in corpora:
            self.corpus.addItem(name, ident)
        if kind.asks_corpus:
            form.addRow("Corpus", self.corpus)
        self.replace = QCheckBox("replace the project's pins (otherwise merge)")
        if kind.asks_replace:
            form.addRow("", self.replace)
        self.delimiter = QComboBox()
        for label, value in DELIMITER_CHOICES:
            self.delimiter.addItem(label, value)
        self.encoding = QComboBox()
        for label, value in ENCODING_CHOICES:
            self.encoding.addItem(label, value)
        self.encoding.setToolTip("Detect reads UTF-8 when the file is valid UTF-8, else the encoding the "
                                 "reader suggests (Windows-1252 or Latin-1), and says so")
        self.column_boxes: dict[str, QComboBox] = {}
        self.preview = QTableWidget(0, 0)
        self.preview.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.preview.setAccessibleName("Preview of the first rows")
        self.preview.setFont(text_font(11))
        self.preview.setMinimumHeight(180)
        self.problems = QLabel("")
        self.problems.setWordWrap(True)
        self.problems.setStyleSheet("color: #B00020;")
        self.detected = QLabel("")
        self.last_preview: Preview | None = None
        if kind.columns:
            form.addRow("Delimiter", self.delimiter)
            form.addRow("Encoding", self.encoding)
            for name in kind.columns + kind.optional:
                box = QComboBox()
                box.setToolTip(f"The file's column that holds {name!r}"
                               + ("" if name in kind.columns else " (optional)"))
                self.column_boxes[name] = box
                box.currentIndexChanged.connect(self._refresh_preview)
                form.addRow(f"Column “{name}”" + ("" if name in kind.columns else " (optional)"), box)
            self.delimiter.currentIndexChanged.connect(self._reread)
            self.encoding.currentIndexChanged.connect(self._reread)
            self.path.textChanged.connect(self._reread)
        elif kind.key in READS_ENCODING:
            # the engine reader decodes the file: the encoding is chosen here, the first lines shown
            form.addRow("Encoding", self.encoding)
            self.encoding.currentIndexChanged.connect(self._refresh_preview)
            self.path.textChanged.connect(self._refresh_preview)
        lay.addLayout(form)
        if kind.columns or kind.key in READS_ENCODING:
            lay.addWidget(self.detected)
            lay.addWidget(QLabel("First rows (cells with a problem are marked ⚠):"))
            lay.addWidget(self.preview, 1)
            lay.addWidget(self.problems)
        lay.addWidget(QLabel("Nothing is written unless the whole file reads without error."))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.import_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.import_button.setText("Import")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.path.textChanged.connect(self._update_import_button)
        self._update_import_button()

    # ---- whether Import may run ---------------------------------------------------------------

    def unset_columns(self) -> list[str]:
        """Required columns no column of the file is chosen for (never guessed)."""
        return [name for name, box in self.column_boxes.items()
                if name in self.kind.columns and not box.currentData()]

    def blocker(self) -> str:
        """Why Import is disabled now ("" when it is not): no file, a column to choose, a problem
        in the preview."""
        path = self.file()
        if path is None:
            return "choose a file"
        if not (path.is_dir() if self.kind.is_dir else path.exists()):
            return f"{path}: no such file"
        if not self.kind.columns and self.kind.key not in READS_ENCODING:
            return ""
        unset = self.unset_columns()
        if unset:
            return "choose the file's column for " + ", ".join(f"“{n}”" for n in unset)
        pv = self.last_preview
        if pv is None:
            return "the file could not be read"
        if not pv.ok:
            return "the preview shows problems: fix the file or the options above"
        return ""

    def _update_import_button(self) -> None:
        why = self.blocker()
        self.import_button.setEnabled(not why)
        self.import_button.setToolTip(why or "Import the whole file (nothing is written if any line has an error)")

    def accept(self) -> None:  # Enter presses the default button even when it is disabled
        if self.blocker():
            return
        super().accept()

    def _browse(self, start_dir: str) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.windowTitle(), start_dir, self.kind.file_filter)
        if path:
            self.path.setText(path)

    def _reread(self) -> None:
        """A new file, delimiter or encoding: read the header again and offer its columns."""
        path = self.file()
        if path is None or not path.is_file():
            return
        header = self._read(limit=0).header
        for name, box in self.column_boxes.items():
            keep = box.currentData()
            box.blockSignals(True)
            box.clear()
            # a column the file does not name stays unset until the user chooses it: never the
            # first column by accident (a header "id,transliteration" once set "text" to "id")
            box.addItem("(none)" if name in self.kind.optional else "(choose a column)", "")
            for h in header:
                box.addItem(h, h)
            want = keep if keep in header else (name if name in header else None)
            box.setCurrentIndex(box.findData(want) if want is not None else 0)
            box.blockSignals(False)
        self._refresh_preview()

    def _columns(self) -> dict[str, str]:
        return {name: box.currentData() for name, box in self.column_boxes.items()
                if box.currentData() and box.currentData() != name}

    def _refresh_preview(self) -> None:
        path = self.file()
        if path is None or not path.is_file():
            return
        unset = self.unset_columns()
        self.last_preview = pv = self._read(columns=self._columns())
        if pv.encoding is None:  # the file cannot be read at all
            self.problems.setText(app_words(pv.problem or "the file could not be read", in_dialog=True))
            self.last_preview = None
            self._update_import_button()
            return
        sep = {"\t": "tab", ",": "comma", ";": "semicolon", "|": "pipe"}.get(pv.delimiter, repr(pv.delimiter))
        self.detected.setText(f"Reading as {encoding_label(pv.encoding)}" +
                              (f", {sep}-separated; {len(pv.header)} columns." if pv.delimiter else
                               "; one inscription per line." if self.kind.key == "text" else "."))
        width = max([len(pv.header)] + [len(r.cells) for r in pv.rows])
        self.preview.clear()
        self.preview.setColumnCount(width)
        self.preview.setRowCount(len(pv.rows))
        self.preview.setHorizontalHeaderLabels(list(pv.header) + [""] * (width - len(pv.header)))
        for r, row in enumerate(pv.rows):
            marked = _marked_cell(row.cells) if row.problem else None
            for c, cell in enumerate(row.cells or ("",)):
                item = QTableWidgetItem(("⚠ " if c == marked else "") + cell)
                if row.problem:
                    item.setBackground(QColor(PROBLEM_BG))
                    item.setToolTip(app_words(row.problem, in_dialog=True))
                self.preview.setItem(r, c, item)
        # rows are named by the file's line, as the importers' errors name them
        self.preview.setVerticalHeaderLabels([f"line {row.line}" for row in pv.rows])
        self.preview.resizeColumnsToContents()
        lines = [f"“{n}”: the file has no column named {n!r}; choose which of its columns holds it"
                 for n in unset] + [app_words(f"line {line}: {what}" if line else what, in_dialog=True)
                                    for line, what in pv.problems]
        self.problems.setText("\n".join(lines[:10] + ([f"… and {len(lines) - 10} more"] if len(lines) > 10 else [])))
        self._update_import_button()

    def _read(self, *, limit: int = 12, columns: dict[str, str] | None = None) -> Preview:
        """The engine's preview of the file with the chosen options. Detect reads UTF-8 (or what a
        BOM says); a file that is not UTF-8 is read as the encoding the reader suggests, which
        "Reading as …" then names."""
        chosen = self.encoding.currentData()
        options = dict(delimiter=self.delimiter.currentData() if self.kind.columns else None,
                       columns=columns or None, limit=limit)
        pv = preview_file(self.file(), self.kind.key, encoding=None if chosen == "auto" else chosen, **options)
        if chosen == "auto" and pv.suggested_encoding:
            pv = preview_file(self.file(), self.kind.key, encoding=pv.suggested_encoding, **options)
        return pv

    def options(self) -> dict:
        out: dict = {}
        # what the preview showed is what is read: "Detect" becomes the encoding (and delimiter) it used
        chosen, pv = self.encoding.currentData(), self.last_preview
        encoding = pv.encoding if chosen == "auto" and pv is not None and pv.encoding else chosen
        if self.kind.columns:
            chosen_delimiter = self.delimiter.currentData()
            out["delimiter"] = chosen_delimiter or (pv.delimiter if pv is not None else None)
            out["encoding"] = encoding
            out["columns"] = self._columns()
        elif self.kind.key in READS_ENCODING:
            out["encoding"] = encoding
        if self.kind.asks_name:
            out["name"] = self.name.text()
        if self.kind.asks_system:
            out["system"] = self.system.currentText().strip()
        if self.kind.asks_language:
            out["language"] = self.language.text()
        if self.kind.asks_corpus:
            out["corpus"] = self.corpus.currentData()
        if self.kind.asks_replace:
            out["replace"] = self.replace.isChecked()
        return out

    def file(self) -> Path | None:
        text = self.path.text().strip()
        return Path(text) if text else None


def error_box(parent, title: str, message: str, details: str = "") -> QMessageBox:
    """A warning box shown window-modal without blocking (tests and the event loop go on)."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle(title)
    box.setText(f"<b>{title}</b>")
    box.setInformativeText(message)
    if details:
        box.setDetailedText(details)
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.setObjectName("errorBox")
    box.open()
    return box


def dotted_letters_box(parent, path: str | Path, exc, answer) -> QMessageBox:
    """The question (window-modal, not blocking) a lost text with letters written with a dot
    below asks: letters of their own, or Leiden's uncertain readings; ``answer`` gets "letter" or
    "uncertain" (Cancel: it is not called, nothing is imported). ``exc``: the reader's
    DottedLettersUnchosen (its letters and line)."""
    letters = " ".join(exc.letters)
    plain = " ".join(undotted(c) for c in exc.letters)
    where = f"{Path(path).name}, line {exc.line}" if exc.line is not None else Path(path).name
    box = QMessageBox(parent)
    box.setObjectName("dottedLettersBox")
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Letters with a dot below")
    box.setText(f"<b>{html.escape(letters)}: what is the dot below?</b>")
    box.setInformativeText(
        f"{where} writes {letters} with a dot below. In some transliterations the dot makes a letter of its "
        f"own (ṣ ṭ ḥ of Ugaritic or Hebrew); in an edition following the Leiden conventions it marks a letter "
        f"read with doubt. Nothing is imported until you say which.")
    keep = box.addButton(f"Letters of their own ({letters})", QMessageBox.ButtonRole.AcceptRole)
    uncertain = box.addButton(f"Uncertain readings ({plain})", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)

    def clicked(button) -> None:
        choice = {id(keep): "letter", id(uncertain): "uncertain"}.get(id(button))
        if choice is not None:
            answer(choice)

    box.buttonClicked.connect(clicked)
    box.open()
    return box


def _path_row(edit: QLineEdit, browse) -> QWidget:
    row = QHBoxLayout()
    button = QPushButton("Browse…")
    button.clicked.connect(browse)
    row.addWidget(edit, 1)
    row.addWidget(button)
    row.setContentsMargins(0, 0, 0, 0)
    holder = QWidget()
    holder.setLayout(row)
    return holder


class NewProjectDialog(QDialog):
    """File ▸ New: where the project file goes and which settings preset its runs start from."""

    def __init__(self, start_dir: str = "", parent=None):
        super().__init__(parent)
        from .panels.runs import add_preset_items

        self.setWindowTitle("New project")
        self._start = start_dir
        lay = QVBoxLayout(self)
        form = QFormLayout()
        self.path_edit = QLineEdit()
        self.path_edit.setMinimumWidth(360)
        self.path_edit.setPlaceholderText("where the .decipher file goes")
        form.addRow("Project file", _path_row(self.path_edit, self._browse))
        self.preset_box = QComboBox()
        add_preset_items(self.preset_box)
        self.preset_box.setToolTip("The run settings the project starts with (changeable later in the Run panel)")
        form.addRow("Settings preset", self.preset_box)
        lay.addLayout(form)
        lay.addWidget(QLabel("The paper's defaults (Gothic) look for words of 4 to 10 letters in unsegmented "
                             "text; pick Ugaritic for word lists with short words."))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Create")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "New project", self._start, "Decipher projects (*.decipher)")
        if path:
            self.path_edit.setText(path)

    def path(self) -> Path | None:
        text = self.path_edit.text().strip()
        return Path(text) if text else None

    def preset(self) -> str:
        return self.preset_box.currentData()


class DisplayTableDialog(QDialog):
    """Choose a preset or edit, letter by letter, how the corpus's letters are shown."""

    def __init__(self, letters, current: display_tables.DisplayTable, parent=None, *, what: str = "corpus"):
        super().__init__(parent)
        self.setWindowTitle("Display table" if what == "corpus" else "Display table: known language")
        self.letters = list(letters)
        lay = QVBoxLayout(self)
        form = QFormLayout()
        self.preset_box = QComboBox()
        for key, (label, _) in display_tables.PRESETS.items():
            self.preset_box.addItem(label, key)
        self.preset_box.addItem("Custom (edited below)", "custom")
        i = self.preset_box.findData(current.name)
        self.preset_box.setCurrentIndex(i if i >= 0 else self.preset_box.count() - 1)
        self.preset_box.activated.connect(self._preset)
        form.addRow("Preset", self.preset_box)
        self.direction = QComboBox()
        for value, label in (("auto", "from the script"), ("ltr", "left to right"), ("rtl", "right to left")):
            self.direction.addItem(label, value)
        self.direction.setCurrentIndex(self.direction.findData(current.direction))
        form.addRow("Writing direction", self.direction)
        lay.addLayout(form)
        lay.addWidget(QLabel("The engine keeps the letters of the data files; views and exports for people "
                             "show them as below."))
        self.grid = QTableWidget(len(self.letters), 2)
        self.grid.setHorizontalHeaderLabels(["letter in the data", "shown as"])
        self.grid.verticalHeader().hide()
        self.grid.setFont(text_font(13))
        self.grid.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.grid.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self._fill(current)
        self.grid.itemChanged.connect(self._edited)
        lay.addWidget(self.grid, 1)
        self.problem = QLabel("")
        self.problem.setStyleSheet("color: #B00020;")
        lay.addWidget(self.problem)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        self.resize(420, 560)

    def _fill(self, table: display_tables.DisplayTable) -> None:
        self.finals, self.base_letters = dict(table.finals), dict(table.letters)
        self.joiner = table.joiner
        self.grid.blockSignals(True)
        for r, letter in enumerate(self.letters):
            key = QTableWidgetItem(letter)
            key.setFlags(key.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.grid.setItem(r, 0, key)
            self.grid.setItem(r, 1, QTableWidgetItem(table.show(letter)))
        self.grid.blockSignals(False)

    def _preset(self, index: int) -> None:
        key = self.preset_box.itemData(index)
        if key != "custom":
            table = display_tables.preset(key)
            self._fill(table)
            self.direction.setCurrentIndex(self.direction.findData(table.direction))

    def _edited(self, _item) -> None:
        self.preset_box.setCurrentIndex(self.preset_box.count() - 1)
        try:
            self.table()
            self.problem.setText("")
            self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(True)
        except InputError as exc:
            self.problem.setText(str(exc))
            self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)

    def table(self) -> display_tables.DisplayTable:
        """The table the dialog describes (InputError when a cell is not valid)."""
        key = self.preset_box.currentData()
        if key != "custom":
            base = display_tables.preset(key)
            # the preset whole: its final letter forms too (Hebrew ם ן ך ף ץ, Greek ς)
            return display_tables.DisplayTable(base.name, base.letters, self.direction.currentData(), base.finals,
                                               base.joiner)
        letters = {}
        for r, letter in enumerate(self.letters):
            item = self.grid.item(r, 1)
            shown = (item.text() if item is not None else "").strip() or letter
            if shown != letter:
                letters[letter] = shown
        # an edited preset keeps the final forms of the letters it still shows as the preset does
        finals = {k: v for k, v in self.finals.items() if letters.get(k) == self.base_letters.get(k)}
        return display_tables.DisplayTable.from_json({"name": "custom", "letters": letters, "finals": finals,
                                                      "joiner": self.joiner, "direction": self.direction.currentData()})


class LanguageCodesDialog(QDialog):
    """The Glottocode and ISO 639-3 code of the chosen corpus and known language: written into the
    CLDF and EDICTOR exports (the same settings as `decipher project import --glottocode …`)."""

    FIELDS = (("corpus", "glottocode", "Lost corpus: Glottocode"), ("corpus", "iso639_3", "Lost corpus: ISO 639-3"),
              ("language", "glottocode", "Known language: Glottocode"),
              ("language", "iso639_3", "Known language: ISO 639-3"))

    def __init__(self, parent, names: dict[str, str], codes: dict[str, dict[str, str]]):
        super().__init__(parent)
        self.setWindowTitle("Language codes")
        form = QFormLayout(self)
        intro = QLabel("Codes of the lost corpus and the known language, written into the CLDF and "
                       "EDICTOR exports (for Ugaritic: Glottocode ugar1238, ISO 639-3 uga). Leave a field "
                       "empty to clear it.")
        intro.setWordWrap(True)
        form.addRow(intro)
        self.edits: dict[tuple[str, str], QLineEdit] = {}
        for kind, key, label in self.FIELDS:
            edit = QLineEdit(codes.get(kind, {}).get(key, ""))
            edit.setEnabled(kind in names)
            edit.setPlaceholderText("four letters or digits and four digits" if key == "glottocode"
                                    else "three small letters")
            self.edits[(kind, key)] = edit
            form.addRow(f"{label} ({names.get(kind, 'none chosen')})", edit)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def values(self) -> dict[str, dict[str, str]]:
        """{"corpus": {"glottocode": …, "iso639_3": …}, "language": {…}} as typed ("" clears)."""
        out: dict[str, dict[str, str]] = {}
        for (kind, key), edit in self.edits.items():
            if edit.isEnabled():
                out.setdefault(kind, {})[key] = edit.text().strip()
        return out
