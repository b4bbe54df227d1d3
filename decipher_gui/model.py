"""What the window shows, worked out without Qt (MNELAB's model.py idea): the window's model.

:class:`WindowModel` holds the :class:`~decipher_gui.state.SessionState` and is the window's only
way to the open project: it reads what a view shows (the chosen corpus and its display table, the
shown run with its matches, decisions and mapping, the marks, the pins in force) and builds the
undoable commands an edit needs. Its run part (what Start starts, run settings, seed groups) is
:attr:`WindowModel.runs`, a :class:`~decipher_gui.coordinator.RunCoordinator`; its exports are
:attr:`WindowModel.exports`. The window draws what it returns and executes those commands on
the document's undo stack. Plain Python: tests use it without a display.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from engine.corpus import PinnedValue, Stem
from engine.errors import DecipherError
from engine.io import display as display_tables
from engine.project import CorpusInfo, LanguageInfo, PinChange, Project, RunRecord, pin_history
from engine.results import MappingSnapshot, Match

from decipher_gui import queries
from decipher_gui.analysis import SpanMark, known_inventory, lost_inventory, marks_by_inscription, run_label, \
    stored_closeness
from decipher_gui.commands import Command, DecideSpan, ReplacePins, SetSetting, set_pin_command, toggle_pin
from decipher_gui.coordinator import RunCoordinator
from decipher_gui.exports import ProjectExports
from decipher_gui.pinstate import PinState, pin_state
from decipher_gui.state import SessionState


@dataclass(frozen=True)
class ShownRun:
    """A stored run about to be shown: what the window draws besides matches and mapping."""

    run: RunRecord
    live: bool                                   # the run training now (its plots follow the live run)
    corpus_id: int | None                        # a corpus to choose first (None: the chosen one stays)
    language_id: int | None                      # likewise for the known language
    metrics: list | None = None                  # the plotted history (None for the live run)
    closeness: list[tuple[float, float]] | None = None
    label: str = ""
    progress: tuple[int, int, str] | None = None


@dataclass(frozen=True)
class LiveRun:
    """What the run controller says about the training run (the model asks no Qt object)."""

    active: bool = False
    paused: bool = False
    pins_from: int = 0
    run_pins: tuple[PinnedValue, ...] = ()
    pins_pending: bool = False
    last_eval_step: int = 0


def open_project_file(path: Path, *, create_sample: bool = False) -> Project:
    """Open the project file at ``path`` (made from the bundled sample first when ``create_sample``
    and it does not exist); DecipherError or OSError when it cannot."""
    if create_sample and not path.exists():
        from engine.datasets.sample import create_sample_project

        return create_sample_project(path)
    return Project.open(path)


def create_project_file(path: str | Path) -> Path:
    """A new empty project file at ``path`` (``.decipher`` added); DecipherError when it cannot."""
    path = Path(path)
    if path.suffix != ".decipher":
        path = path.with_name(path.name + ".decipher")
    Project.create(path, overwrite=path.exists()).close()
    return path


class WindowModel:
    """The window's model: the session state plus every read and edit of the open project."""

    def __init__(self, state: SessionState | None = None):
        self.state = state or SessionState()
        self.corpus: queries.CorpusView | None = None
        self.stems: list[Stem] = []
        self.display = display_tables.IDENTITY
        self.known_display = display_tables.IDENTITY  # the chosen known language's display table
        self._corpus_of_run: tuple[int | None, int | None] = (None, None)
        self._shares: tuple | None = None           # (the corpus view counted, its text shares)
        self.runs = RunCoordinator(self.state)      # starting runs, run settings, seed groups
        self.exports = ProjectExports(self.state, lambda: self.display)  # the File ▸ Export writers

    @property
    def project(self) -> Project | None:
        return self.state.project

    def reset(self, project: Project | None) -> None:
        """Another project (or none): nothing of the previous one's choices or results stays."""
        self.state.reset(project)
        self.corpus = None
        self._shares = None
        self.stems = []
        self.display = display_tables.IDENTITY
        self.known_display = display_tables.IDENTITY
        self._corpus_of_run = (None, None)

    # ---- the project --------------------------------------------------------------------------

    def opening_notes(self) -> list[str]:
        """What the status bar says about a project just opened (interrupted runs, an upgrade)."""
        p, notes = self.project, []
        if p is None:
            return notes
        if p.interrupted:
            notes.append(f"Runs {', '.join(map(str, p.interrupted))} had been interrupted (the app or machine "
                         "stopped during them); their results so far are kept.")
        if p.migrated_from is not None:
            notes.append(f"The project file was upgraded; a backup is at {p.backup}")
        return notes

    def save_as(self, path: Path) -> None:
        self.project.save_as(path)  # type: ignore[union-attr]

    def newest_run_with_matches(self) -> int | None:
        return None if self.project is None else queries.newest_run_with_matches(self.project)

    # ---- corpora, languages, pins --------------------------------------------------------------

    def choices(self) -> tuple[list[CorpusInfo], list[LanguageInfo]]:
        """The project's corpora and languages; the chosen ones follow (kept while they exist)."""
        if self.project is None:
            return [], []
        corpora, languages = queries.choices(self.project)
        self.state.follow_data([c.id for c in corpora], [x.id for x in languages])
        return corpora, languages

    def corpora(self) -> list[CorpusInfo]:
        return [] if self.project is None else self.project.corpora()

    def languages(self) -> list[LanguageInfo]:
        return [] if self.project is None else self.project.languages()

    def pins(self) -> list[PinnedValue]:
        return [] if self.project is None else self.project.pins()

    def comparison_source(self) -> queries.ComparisonSource | None:
        """What the comparison dialog may read of the project (None: no project open)."""
        return None if self.project is None else queries.ComparisonSource(self.project)

    def load_corpus(self) -> queries.CorpusView | None:
        """Read the chosen corpus and its display table (None: no corpus chosen)."""
        p, corpus_id = self.project, self.state.corpus_id
        self.display = display_tables.table_for(p, corpus_id) if p is not None else display_tables.IDENTITY
        self.load_known_display()
        self.corpus = None if p is None or corpus_id is None else queries.corpus_view(p, corpus_id)
        return self.corpus

    def load_known_display(self) -> display_tables.DisplayTable:
        p, language_id = self.project, self.state.language_id
        self.known_display = (display_tables.known_table_for(p, language_id) if p is not None
                              else display_tables.IDENTITY)
        return self.known_display

    def load_language(self) -> list[Stem]:
        p, language_id = self.project, self.state.language_id
        self.load_known_display()
        self.stems = [] if p is None or language_id is None else queries.stems(p, language_id)
        return self.stems

    @property
    def inscriptions(self) -> tuple:
        return self.corpus.inscriptions if self.corpus is not None else ()

    def refs(self) -> dict[str, str]:
        return {} if self.corpus is None else self.corpus.refs

    def inventory(self) -> tuple[list[str], list[str]]:
        """The chosen corpus's signs and the chosen language's sounds (the pin grid's axes)."""
        return lost_inventory(self.inscriptions), known_inventory(self.stems)

    def text_shares(self) -> dict[str, float]:
        """Each sign's share of the chosen corpus's text (for the signs to pin next): counted once per
        corpus read, not at every inventory update (choosing a language, an undo) on the GUI thread."""
        from engine.training.pin_suggestions import text_shares

        corpus = self.corpus
        if self._shares is None or self._shares[0] is not corpus:
            self._shares = (corpus, text_shares(ins.units for ins in self.inscriptions))
        return self._shares[1]

    # ---- the shown run -------------------------------------------------------------------------

    def run_history(self) -> queries.RunHistory | None:
        return None if self.project is None else queries.run_history(self.project)

    def show_run(self, run_id: int, active: bool) -> ShownRun:
        """Make ``run_id`` the shown run; DecipherError when the project has no such run."""
        p, s = self.project, self.state
        run = p.run(run_id)  # type: ignore[union-attr]
        live = run.id == s.live_run and active
        corpus = run.corpus_id if run.corpus_id is not None and run.corpus_id != s.corpus_id else None
        language = run.language_id if run.language_id is not None and run.language_id != s.language_id else None
        s.shown_run = run_id
        if live:
            return ShownRun(run, True, corpus, language)
        return ShownRun(run, False, corpus, language, p.metrics(run_id), stored_closeness(p, run),
                        run_label(p, run), queries.run_progress(run))

    def load_matches(self, matches: Sequence[Match] | None = None) -> str | None:
        """The shown run's matches (``matches`` when the caller has them, else the stored ones) and
        decisions become the shown ones; the matches table's caption, or None without a shown run."""
        p, s = self.project, self.state
        run = None if p is None else queries.run_of(p, s.shown_run)
        if run is None:
            return None
        s.shown_matches = list(matches) if matches is not None else p.matches(s.shown_run)
        s.decisions = p.decisions(s.shown_run)
        return queries.matches_caption(run, len(s.shown_matches))

    def reload_decisions(self) -> bool:
        """Read the shown run's decisions again (after an edit); False without a shown run."""
        p, s = self.project, self.state
        if p is None or s.shown_run is None:
            return False
        s.decisions = p.decisions(s.shown_run)
        return True

    def shown_corpus(self) -> int | None:
        """The corpus of the shown run (cached per run: asked on every live update)."""
        if self._corpus_of_run[0] != self.state.shown_run:
            run = queries.run_of(self.project, self.state.shown_run) if self.project is not None else None
            self._corpus_of_run = (self.state.shown_run, None if run is None else run.corpus_id)
        return self._corpus_of_run[1]

    def marks(self, active: bool) -> dict:
        """The inscription view's marks: the shown run's matches when they are of the chosen corpus,
        and the live run's newest decoding while it is shown and training."""
        s = self.state
        matches = s.shown_matches if self.shown_corpus() == s.corpus_id else []
        live = s.live_matches if s.shows_live(active) else ()
        return marks_by_inscription(matches, s.decisions, live)

    def current_mapping(self, active: bool) -> tuple[MappingSnapshot | None, int | None, str]:
        """The mapping to shade the grid with, its step and the caption's source ("live" only while
        the run runs)."""
        s = self.state
        if s.shown_run is not None and s.shown_run == s.live_run and s.live_mapping is not None:
            return s.live_mapping, s.live_step, f"(run {s.live_run}{', live' if active else ''})"
        if self.project is not None and s.shown_run is not None:
            mapping, step = queries.mapping_and_step(self.project, s.shown_run)
            if mapping is not None:
                return mapping, step, f"(run {s.shown_run})"
        return None, None, ""

    def gamma_band(self) -> tuple[float, int]:
        return queries.gamma_band(self.project, self.state.shown_run)

    def other_closeness(self) -> dict | None:
        """The closeness curves of the other runs on the chosen corpus and language (None: no project)."""
        s = self.state
        if self.project is None:
            return None
        return queries.other_closeness(self.project, s.corpus_id, s.language_id, s.shown_run)

    def _history(self, run_id: int) -> list:
        try:
            return list(pin_history(self.project, run_id))
        except DecipherError:
            return []

    def pin_state(self, live_run: LiveRun) -> PinState | None:
        """The project's pins against those of the reading shown (the shown run at its mapping's
        step); None when no run is shown."""
        s, p = self.state, self.project
        if p is None or s.shown_run is None:
            return None
        _, step, _ = self.current_mapping(live_run.active)
        live = s.shown_run == s.live_run and live_run.active
        history = self._history(s.shown_run)
        if live and (not history or history[-1].step < live_run.pins_from):
            # the project refused the record: the run's own word is what it applied
            history.append(PinChange(live_run.pins_from, live_run.run_pins))
        pending = ""
        if live and live_run.pins_pending:
            pending = "used from this step on when you Resume" if live_run.paused else "handed over at the next step"
        return pin_state(s.shown_run, history, step, p.pins(), live=live, pending=pending)

    def matches_pin_note(self, state: PinState | None, live_run: LiveRun) -> str:
        """The matches shown come from the shown run's last evaluation: name the project's pins
        that evaluation was made without ("" when none)."""
        s, p = self.state, self.project
        if p is None or state is None or not s.shown_matches:
            return ""
        live = s.shown_run == s.live_run and live_run.active
        step = live_run.last_eval_step if live else queries.mapping_and_step(p, s.shown_run)[1]
        if live and not step:
            return ""
        try:
            history = pin_history(p, s.shown_run)
        except DecipherError:
            return ""
        missing = pin_state(s.shown_run, history, step, p.pins()).missing
        if not missing:
            return ""
        names = ", ".join(f"{self.display.show(x.lost)} → /{x.known_ipa}/" for x in missing[:4])
        more = f" and {len(missing) - 4} more" if len(missing) > 4 else ""
        return (f"These matches (step {step}) were computed without {names}{more}: "
                + ("the run's next evaluation has it." if live and len(missing) == 1 else
                   "the run's next evaluation has them." if live else "start a run to use them."))

    # ---- edits: each returns the undoable command (None: nothing to do) ---------------------------

    def decide(self, match: Match, form: str, status: str) -> Command | None:
        s = self.state
        if self.project is None or s.shown_run is None:
            return None
        value = None if status == "open" else status
        key = (match.inscription_id, match.start, match.end, form)
        if s.decisions.get(key) == value:
            return None
        return DecideSpan.build(self.project, s.shown_run, key, value, shown=self.known_display.show_form(form))

    def toggle_pin(self, lost: str, known: str) -> Command | None:
        return None if self.project is None else toggle_pin(self.project, lost, known)

    def set_pin(self, pin: PinnedValue) -> Command | None:
        return None if self.project is None else set_pin_command(self.project, pin)

    def clear_pins(self) -> Command | None:
        pins = self.pins()
        return ReplacePins(pins, [], "Clear all pins") if pins else None

    def set_display_table(self, table: display_tables.DisplayTable) -> Command | None:
        """Store ``table`` for the chosen corpus (None without a corpus)."""
        p, corpus_id = self.project, self.state.corpus_id
        if p is None or corpus_id is None:
            return None
        key = display_tables.setting_key(corpus_id)
        return SetSetting(key, None if table.is_identity else table.to_json(), p.setting(key),
                          "Change display table", touches=frozenset({"display"}))

    def set_known_display_table(self, table: display_tables.DisplayTable) -> Command | None:
        """Store ``table`` for the chosen known language (None without one)."""
        p, language_id = self.project, self.state.language_id
        if p is None or language_id is None:
            return None
        key = display_tables.known_setting_key(language_id)
        return SetSetting(key, None if table.is_identity else table.to_json(), p.setting(key),
                          "Change the known language's display table", touches=frozenset({"display"}))


__all__ = ["LiveRun", "ShownRun", "SpanMark", "WindowModel", "create_project_file", "open_project_file"]
