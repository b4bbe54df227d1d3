"""What the window is showing, as plain Python (no Qt): the open project, the chosen corpus and
known language, the shown run and the live run with its newest results. Unit-testable headless."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from engine.project import Project
from engine.results import MappingSnapshot, Match


@dataclass
class SessionState:
    """The window's model (MNELAB keeps its model beside its window the same way).

    ``reset`` is called whenever another project opens, so nothing of the previous project
    (its matches, decisions, live results) can outlive it.
    """

    project: Project | None = None
    corpus_id: int | None = None
    language_id: int | None = None
    shown_run: int | None = None
    live_run: int | None = None
    live_matches: tuple[Match, ...] = ()
    live_mapping: MappingSnapshot | None = None
    live_step: int = 0
    eval_matches: Sequence[Match] | None = None
    shown_matches: list[Match] = field(default_factory=list)
    decisions: dict = field(default_factory=dict)

    def reset(self, project: Project | None) -> None:
        """A new project: every choice and every result of the previous one is forgotten."""
        self.__init__(project=project)  # type: ignore[misc]

    def follow_data(self, corpus_ids: Sequence[int], language_ids: Sequence[int]) -> None:
        """Keep the chosen corpus and language while they exist, else take the first (or none)."""
        if self.corpus_id not in corpus_ids:
            self.corpus_id = corpus_ids[0] if corpus_ids else None
        if self.language_id not in language_ids:
            self.language_id = language_ids[0] if language_ids else None

    def start_live(self) -> None:
        """A run is about to start: no live results yet."""
        self.live_matches = ()
        self.live_mapping = None
        self.live_step = 0
        self.eval_matches = None

    def record_live(self, run_id: int) -> None:
        """The started run has its record: it is live and shown, with no matches yet."""
        self.live_run = run_id
        self.shown_run = run_id
        self.shown_matches = []
        self.decisions = {}

    def show_stored(self, run_id: int, corpus_id: int | None, language_id: int | None) -> None:
        """Show a stored run: its corpus and its known language become the chosen ones."""
        self.shown_run = run_id
        if corpus_id is not None:
            self.corpus_id = corpus_id
        if language_id is not None:
            self.language_id = language_id

    def shows_live(self, active: bool) -> bool:
        """Whether the shown run is the one training now."""
        return active and self.shown_run is not None and self.shown_run == self.live_run
