"""Undoable edits of a project as plain command objects (no Qt).

Every user edit becomes a command with ``do(project)`` and ``undo(project)``; the GUI wraps each
one in a QUndoCommand (see document.py). ``touches`` names what a view has to refresh afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from engine.corpus import GoldAnnotation, PinnedValue
from engine.project import DecisionKey, Project, decide_span, span_decisions

PINS = "pins"
DECISIONS = "decisions"
DATA = "data"          # corpora, inscriptions, known languages, gold
RUNS = "runs"
SETTINGS = "settings"
DISPLAY = "display"    # a corpus's display table (a project setting that only views read)


class Command:
    """Base class: ``text`` is what Edit ▸ Undo shows."""

    text: str = ""
    touches: frozenset[str] = frozenset()

    def do(self, project: Project) -> None:
        raise NotImplementedError

    def undo(self, project: Project) -> None:
        raise NotImplementedError


def _pin_text(pin: PinnedValue) -> str:
    return f"{pin.lost} → /{pin.known_ipa}/"


@dataclass
class SetPin(Command):
    """Add a pin or change an existing one (same lost letter and IPA unit)."""

    new: PinnedValue
    old: PinnedValue | None = None
    touches: frozenset[str] = frozenset({PINS})

    @property
    def text(self) -> str:  # type: ignore[override]
        if self.old is None:
            return f"Pin {_pin_text(self.new)}"
        return f"Change pin {_pin_text(self.new)}"

    def do(self, project: Project) -> None:
        project.set_pin(self.new)

    def undo(self, project: Project) -> None:
        if self.old is None:
            project.remove_pin(self.new.lost, self.new.known_ipa)
        else:
            project.set_pin(self.old)


@dataclass
class RemovePin(Command):
    old: PinnedValue
    touches: frozenset[str] = frozenset({PINS})

    @property
    def text(self) -> str:  # type: ignore[override]
        return f"Unpin {_pin_text(self.old)}"

    def do(self, project: Project) -> None:
        project.remove_pin(self.old.lost, self.old.known_ipa)

    def undo(self, project: Project) -> None:
        project.set_pin(self.old)


def toggle_pin(project: Project, lost: str, known_ipa: str) -> Command:
    """The command that pins ``lost`` → ``known_ipa`` if it is not pinned yet, else unpins it."""
    for pin in project.pins():
        if pin.lost == lost and pin.known_ipa == known_ipa:
            return RemovePin(pin)
    return SetPin(PinnedValue(lost, known_ipa))


def set_pin_command(project: Project, pin: PinnedValue) -> SetPin:
    old = next((p for p in project.pins() if (p.lost, p.known_ipa) == (pin.lost, pin.known_ipa)), None)
    return SetPin(pin, old)


@dataclass
class ReplacePins(Command):
    """Make the project's pins exactly ``after`` (an imported PRIOR file, "clear all")."""

    before: list[PinnedValue]
    after: list[PinnedValue]
    label: str = "Replace pins"
    touches: frozenset[str] = frozenset({PINS})

    @property
    def text(self) -> str:  # type: ignore[override]
        return self.label

    def do(self, project: Project) -> None:
        project.replace_pins(self.after)

    def undo(self, project: Project) -> None:
        project.replace_pins(self.before)


@dataclass
class DecideSpan(Command):
    """Accept or reject one stem for one span of a run (``None`` opens it again).

    A span has at most one accepted stem: accepting one takes back an earlier acceptance of
    another stem for the same span (rejections stay). Undo restores every decision it changed.
    """

    run_id: int
    key: DecisionKey
    status: str | None
    before: dict[DecisionKey, str] = field(default_factory=dict)
    touches: frozenset[str] = frozenset({DECISIONS})
    #: the stem as the known language's display table shows it (the Edit menu's text)
    shown: str = ""

    @classmethod
    def build(cls, project: Project, run_id: int, key: DecisionKey, status: str | None,
              shown: str = "") -> "DecideSpan":

        return cls(run_id, key, status, span_decisions(project, run_id, key), shown=shown)

    @property
    def text(self) -> str:  # type: ignore[override]
        ins, start, end, form = self.key
        verb = {"accepted": "Accept", "rejected": "Reject", None: "Reopen"}[self.status]
        return f"{verb} {self.shown or form} at {ins} {start}–{end}"

    def do(self, project: Project) -> None:
        # decide_span: the one code path (also `decipher project decide`)

        decide_span(project, self.run_id, self.key, self.status)

    def undo(self, project: Project) -> None:
        with project.transaction():
            project.decide(self.run_id, *self.key, None)
            for k, v in self.before.items():
                project.decide(self.run_id, *k, v)


@dataclass
class SetSetting(Command):
    key: str
    value: Any
    previous: Any = None
    label: str = "Change setting"
    touches: frozenset[str] = frozenset({SETTINGS})

    @property
    def text(self) -> str:  # type: ignore[override]
        return self.label

    def do(self, project: Project) -> None:
        project.set_setting(self.key, self.value)

    def undo(self, project: Project) -> None:
        project.set_setting(self.key, self.previous)


@dataclass
class _Snapshot:
    corpora: set[int]
    languages: set[int]
    runs: set[int]
    pins: list[PinnedValue]
    gold: dict[int, list[GoldAnnotation]]


def _snapshot(project: Project) -> _Snapshot:
    corpora = {c.id for c in project.corpora()}
    return _Snapshot(corpora, {x.id for x in project.languages()}, {r.id for r in project.runs()},
                     project.pins(), {c: project.gold(c) for c in corpora})


class ImportCommand(Command):
    """Run an importer; undo removes what it added and restores the pins and gold it replaced.

    Redo runs the importer again (it re-reads the file). The importer must raise before writing
    anything when its input is bad (the engine's importers do: one transaction each).
    """

    touches = frozenset({DATA, PINS, RUNS})

    def __init__(self, label: str, importer: Callable[[Project], Any]):
        self.text = label
        self.importer = importer
        self.result: Any = None
        self._before: _Snapshot | None = None
        self._added: tuple[set[int], set[int], set[int]] = (set(), set(), set())

    def do(self, project: Project) -> None:
        before = _snapshot(project)
        self.result = self.importer(project)
        after = _snapshot(project)
        self._before = before
        self._added = (after.corpora - before.corpora, after.languages - before.languages,
                       after.runs - before.runs)

    @property
    def added(self) -> tuple[set[int], set[int], set[int]]:
        """The ids of the corpora, languages and runs the last ``do`` added."""
        return self._added

    def undo(self, project: Project) -> None:
        assert self._before is not None
        corpora, languages, runs = self._added
        with project.transaction():
            for run_id in sorted(runs, reverse=True):
                project.remove_run(run_id)
            for corpus_id in corpora:
                project.remove_corpus(corpus_id)
            for language_id in languages:
                project.remove_language(language_id)
            if project.pins() != self._before.pins:
                project.replace_pins(self._before.pins)
            for corpus_id, gold in self._before.gold.items():
                if project.gold(corpus_id) != gold:
                    project.set_gold(corpus_id, gold)
