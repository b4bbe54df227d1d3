"""Read-only queries that build what each panel shows (Anki's "queries" beside its "ops").

Qt-free: each takes the open :class:`Project` and ids and returns plain values; the window only
puts them on screen. Edits go through decipher_gui.commands, never through here.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from engine.config import Config
from engine.corpus import DIVIDER, GoldAnnotation, Inscription, Stem
from engine.errors import DecipherError
from engine.project import (CorpusInfo, LanguageInfo, Project, RunRecord, compared_diagnoses, default_run,
                            inscription_ref, mapping_of, pin_history)
from engine.results import MappingSnapshot, Match
from engine.datasets.sample import RUN_CONFIG_KEY

from .analysis import run_label, stored_closeness


@dataclass(frozen=True)
class CorpusView:
    """One corpus as the inscription view and the corpora panel show it."""

    corpus_id: int
    name: str
    inscriptions: tuple[Inscription, ...]
    gold: tuple[GoldAnnotation, ...]
    refs: dict[str, str] = field(default_factory=dict)

    @property
    def caption(self) -> str:
        return f"{self.name} — {len(self.inscriptions)} inscriptions"


@dataclass(frozen=True)
class ComparisonSource:
    """What the comparison dialog reads of the project (WindowModel.comparison_source): the corpora and
    languages to offer, where the project lies, and a chosen corpus's inscriptions and a language's stems."""

    project: Project = field(repr=False)

    @property
    def path(self):
        return self.project.path

    def corpora(self) -> list[CorpusInfo]:
        return self.project.corpora()

    def languages(self) -> list[LanguageInfo]:
        return self.project.languages()

    def corpus(self, corpus_id: int):
        return self.project.corpus(corpus_id)

    def vocabulary(self, language_id: int):
        return self.project.vocabulary(language_id)


def corpus_view(project: Project, corpus_id: int) -> CorpusView:
    inscriptions = tuple(project.inscriptions(corpus_id))
    return CorpusView(corpus_id, project.corpus(corpus_id).name, inscriptions, tuple(project.gold(corpus_id)),
                      {i.id: inscription_ref(i.meta, i.id) for i in inscriptions})


def stems(project: Project, language_id: int | None) -> list[Stem]:
    return [] if language_id is None else project.stems(language_id)


def choices(project: Project) -> tuple[list[CorpusInfo], list[LanguageInfo]]:
    return project.corpora(), project.languages()


def run_of(project: Project, run_id: int | None) -> RunRecord | None:
    if run_id is None:
        return None
    try:
        return project.run(run_id)
    except DecipherError:
        return None


@dataclass(frozen=True)
class RunHistory:
    runs: list[RunRecord]
    languages: dict[int, str]
    metrics: dict[int, dict]
    pins: dict[int, list] = field(default_factory=dict)
    """Run id -> its pin changes (engine.project.PinChange: step and the pins after it)."""
    diagnoses: dict[int, dict] = field(default_factory=dict)
    """Run id -> its stored gold-free diagnosis (JSON), compared with the project's runs of the same
    inputs and settings (engine.project's compared_diagnoses); absent: no diagnosis."""


def run_history(project: Project) -> RunHistory:
    runs = project.runs()
    pins = {}
    for r in runs:
        try:
            pins[r.id] = pin_history(project, r.id)
        except DecipherError:
            pins[r.id] = []
    return RunHistory(runs, {x.id: x.name for x in project.languages()},
                      {r.id: project.latest_metrics(r.id) for r in runs}, pins, run_diagnoses(project))


def run_diagnoses(project: Project) -> dict[int, dict]:
    """Every run's diagnosis as the project lists it ({} when the project cannot be read for them:
    an unreadable diagnosis only hides the diagnoses, never the runs)."""

    try:
        return compared_diagnoses(project)
    except (DecipherError, sqlite3.Error, ValueError):
        return {}


def diagnosis_note(run: RunRecord | None, diagnosis: dict | None, display=None) -> tuple[str, bool]:
    """(the run panel's diagnosis line in plain words, whether it flags the run) for the shown
    ``run``: "" while it trains (a run is diagnosed at its end), "no diagnosis" for a run stored
    without one (older projects, failed runs). ``display``: the corpus's display table, through which
    the lost letters the findings name are shown."""
    from engine.training.diagnosis import diagnosis_from, plain_words

    if run is None or run.status == "running":
        return "", False
    d = diagnosis_from(diagnosis)
    text = plain_words(d, display.show if display is not None else None)
    if d is None:
        return f"Run {run.id}: {text}", False
    return (f"\u26a0 Run {run.id}: {text}" if d.flagged else f"Run {run.id}: {text}"), d.flagged


def pins_cell(history: list) -> tuple[str, str]:
    """(text, tooltip) of a run's pins for the Runs table: how many pins from which step, e.g.
    "0 · 1 from 36" for a run that started without pins and got one at step 36."""
    if not history:
        return "", ""
    text = " · ".join(f"{len(c.pins)}" + (f" from {c.step}" if i else "") for i, c in enumerate(history))
    lines = []
    for i, c in enumerate(history):
        head = f"from step {c.step}" if i else (f"at the start (step {c.step})" if c.step else "at the start")
        body = ", ".join(f"{p.lost} → /{p.known_ipa}/ ({'locked' if p.locked else 'soft'}, weight {p.weight:g})"
                         for p in c.pins) or "no pins"
        lines.append(f"{head}: {body}")
    return text, "Pins the run used:\n" + "\n".join(lines)


def newest_run_with_matches(project: Project) -> int | None:
    try:
        return default_run(project).id
    except DecipherError:
        return None


def run_progress(run: RunRecord) -> tuple[int, int, str]:
    """(step reached, steps planned, label) of a stored run, for the progress bar."""
    try:
        total = run.settings().steps
    except DecipherError:
        total = run.last_step or 0
    return run.last_step or 0, total, f"run {run.id} {run.status}"


def matches_caption(run: RunRecord, n_matches: int) -> str:
    return f"Run {run.id} ({run.status}) — {n_matches} matched spans; settings: {run.summary()}"


def mapping_and_step(project: Project, run_id: int | None) -> tuple[MappingSnapshot | None, int | None]:
    """The character mapping a stored run left behind, and the step it is from."""
    if run_id is None:
        return None, None
    mapping = mapping_of(project, run_id)
    if mapping is None:
        return None, None
    try:  # the step of the evaluation that recorded it (what the pins in force are judged at)
        row = project.conn.execute("SELECT step FROM run_mapping WHERE run_id = ?", (run_id,)).fetchone()
    except sqlite3.Error:
        row = None
    if row is not None and row[0] is not None:
        return mapping, int(row[0])
    run = run_of(project, run_id)
    return mapping, None if run is None else run.last_step


def gamma_band(project: Project | None, run_id: int | None) -> tuple[float, int]:
    """The insertion cost and band the run ended with (what explanations must align with)."""
    from engine.model.explain import run_alignment_settings

    run = None if project is None else run_of(project, run_id)
    return run_alignment_settings(run)


def other_closeness(project: Project, corpus_id: int | None, language_id: int | None,
                    shown_run: int | None) -> dict[str, list[tuple[float, float]]]:
    """The newest run with matches on each OTHER known language, on the same corpus (label → curve)."""
    current = language_id
    run = run_of(project, shown_run)
    if run is not None:
        current = run.language_id
    newest: dict[int, RunRecord] = {}
    for r in project.runs():
        if r.language_id is None or r.language_id == current or r.status == "running":
            continue
        if corpus_id is not None and r.corpus_id != corpus_id:
            continue
        newest[r.language_id] = r
    curves = {}
    for r in newest.values():
        curve = stored_closeness(project, r)
        if curve is not None:
            curves[run_label(project, r)] = curve
    return curves


def run_defaults(project: Project | None, warn=None) -> Config:
    """The project's default run settings (setting ``run_config``). A stored value of another shape
    (a text, a number) or a setting out of range is left out with a warning (``warn``, else the
    log), never an error: the window still opens with the other settings."""
    import logging

    warn = warn or logging.getLogger(__name__).warning
    data = project.setting(RUN_CONFIG_KEY) if project is not None else None
    if data is None:
        return Config()
    if not isinstance(data, dict):
        warn(f"the project's default run settings ({RUN_CONFIG_KEY}) are {type(data).__name__} "
             f"{str(data)[:60]!r}, not a table of settings; ignored (the program's defaults are used)")
        return Config()
    kept: dict = {}
    for key, value in data.items():
        try:
            Config.from_dict({**kept, key: value})
        except (DecipherError, TypeError, ValueError) as e:
            warn(f"the project's default run setting {str(key)[:40]!r} was ignored ({str(e)[:200]})")
            continue
        kept[key] = value
    return Config.from_dict(kept)


def words_shorter_than(inscriptions, min_span: int) -> tuple[int, int]:
    """(written words shorter than ``min_span`` letters, all written words) of a corpus: such a
    word cannot be matched as a whole. A corpus without dividers counts each inscription as one word."""
    short = total = 0
    for ins in inscriptions:
        length = 0
        for u in list(ins.units) + [DIVIDER]:
            if u == DIVIDER:
                if length:
                    total += 1
                    short += length < min_span
                length = 0
            else:
                length += 1
    return short, total


def live_label(project: Project | None, run_id: int | None) -> str:
    run = None if project is None else run_of(project, run_id)
    if run is None:
        return "current run" if run_id is None else f"run {run_id}"
    return run_label(project, run)  # type: ignore[arg-type]


@dataclass(frozen=True)
class GroupProgress:
    """Where a running seed group's training stands, from what its workers have recorded so far."""

    steps: int
    """steps trained, summed over the group's seeds (a seed not yet started counts 0)"""
    total: int
    """steps planned, summed over the seeds"""
    line: str
    """one line for the run panel: which seeds train, which finished"""
    plotted: int | None = None
    """the run whose curves the plots show live (the running seed furthest along), None: none yet"""
    metrics: tuple = ()
    """that run's stored metric rows (step, name, value)"""


def group_progress(project: Project, after_run: int, seeds: list[int], steps: int, corpus_id: int | None,
                   language_id: int | None) -> GroupProgress:
    """The seed group's progress: its runs are those its workers recorded after run ``after_run``
    with one of ``seeds`` on the corpus and language (a seed's step is its heartbeat's or its last
    recorded metric's, whichever is further)."""
    runs = {}
    for r in project.runs():
        if r.id > after_run and r.seed in seeds and r.corpus_id == corpus_id and r.language_id == language_id:
            runs[r.seed] = r  # the newest run of a seed (a worker that failed and was retried)
    reached: dict[int, int] = {}
    metrics: dict[int, list] = {}
    for seed, r in runs.items():
        rows = project.metrics(r.id)
        metrics[seed] = rows
        last = max((s for s, _, _ in rows), default=0)
        reached[seed] = steps if r.status == "completed" else min(steps, max(r.last_step or 0, last))
    done = sorted(s for s, r in runs.items() if r.status != "running")
    training = sorted(s for s, r in runs.items() if r.status == "running")
    waiting = [s for s in seeds if s not in runs]
    parts = [f"Seed group of {len(seeds)} seeds"]
    if training:
        parts.append("training seed" + ("s " if len(training) > 1 else " ")
                     + ", ".join(f"{s} (step {reached[s]})" for s in training))
    if done:
        parts.append(f"{len(done)} finished")
    if waiting:
        parts.append(f"{len(waiting)} waiting for a worker" if training or done else "starting the workers…")
    plotted = max(training, key=lambda s: (reached[s], -s), default=None)
    run = runs[plotted] if plotted is not None else None
    return GroupProgress(sum(reached.values()), steps * len(seeds), "; ".join(parts),
                         None if run is None else run.id, tuple(metrics.get(plotted, ())))
