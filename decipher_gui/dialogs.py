"""Dialogs: the import options, and the error box with details."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFileDialog,
                               QFormLayout, QHBoxLayout, QLabel, QLineEdit, QMessageBox, QPushButton,
                               QVBoxLayout, QWidget)

from .importers import ImportKind, transcription_systems


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
        lay.addLayout(form)
        lay.addWidget(QLabel("Nothing is written unless the whole file reads without error."))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Import")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)

    def _browse(self, start_dir: str) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.windowTitle(), start_dir, self.kind.file_filter)
        if path:
            self.path.setText(path)

    def options(self) -> dict:
        out: dict = {}
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
