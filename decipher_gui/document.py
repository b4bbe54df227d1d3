"""The open project as the views see it: the Project, its undo stack and change signals."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from engine.project import Project

from .commands import DATA, DECISIONS, DISPLAY, PINS, RUNS, SETTINGS, Command


class _UndoCommand(QUndoCommand):
    """A Qt-free Command at the Qt edge. The first redo() is skipped: the command has already
    been done (so a failing command never lands on the stack)."""

    def __init__(self, document: "ProjectDocument", command: Command):
        super().__init__(command.text)
        self.document = document
        self.command = command
        self._done = True

    def redo(self) -> None:
        if self._done:
            self._done = False
            return
        self.document._apply(self.command.do, self.command)

    def undo(self) -> None:
        self.document._apply(self.command.undo, self.command)


class ProjectDocument(QObject):
    """Owns the open :class:`Project` (GUI thread) and announces what changed."""

    pinsChanged = Signal()
    decisionsChanged = Signal(int)      # run id
    dataChanged = Signal()              # corpora, languages, gold
    runsChanged = Signal()
    settingsChanged = Signal()
    displayChanged = Signal()           # a corpus's display table
    failed = Signal(str, str)           # title, message: an undo/redo that the project refused

    def __init__(self, project: Project, parent: QObject | None = None):
        super().__init__(parent)
        self.project = project
        self.undo_stack = QUndoStack(self)

    @property
    def path(self) -> Path:
        return self.project.path

    @property
    def name(self) -> str:
        return self.project.setting("name") or self.project.path.stem

    def execute(self, command: Command) -> None:
        """Do ``command`` now and put it on the undo stack (exceptions propagate, nothing pushed)."""
        command.do(self.project)
        self.undo_stack.push(_UndoCommand(self, command))
        self._announce(command)

    def _apply(self, fn, command: Command) -> None:
        try:
            fn(self.project)
        except Exception as exc:  # the file changed under the command (e.g. a run was deleted)
            self.failed.emit("Cannot undo or redo", f"{command.text}: {exc}")
        self._announce(command)

    def _announce(self, command: Command) -> None:
        touched = command.touches
        if PINS in touched:
            self.pinsChanged.emit()
        if DECISIONS in touched:
            self.decisionsChanged.emit(getattr(command, "run_id", -1))
        if DATA in touched:
            self.dataChanged.emit()
        if RUNS in touched:
            self.runsChanged.emit()
        if SETTINGS in touched:
            self.settingsChanged.emit()
        if DISPLAY in touched:
            self.displayChanged.emit()

    def close(self) -> None:
        self.undo_stack.clear()
        self.project.close()
