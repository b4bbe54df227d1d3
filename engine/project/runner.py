"""Train on a corpus and known language stored in a project and record the run there: the
project-side caller of the run session (``decipher run --project``, a sweep's workers, and the
app's run process).

:func:`assemble_run` is the one place a run in a project is put together: it reads the corpus,
the known language, the gold and the pins from the project, makes the recorder and chooses the
checkpoint. :func:`run_in_project` assembles and drives a run on the calling thread; the app's
run process (decipher_gui/runprocess.py) assembles it the same way and drives it with its bridge.

Checkpoints go to ``out`` when given, else to the folder ``<project>.runs/run-<id>/`` beside the
project file; the run records the path (relative to the project's folder when it lies inside it).
A run killed midway can be resumed with ``resume=<its checkpoint>`` (the new run then names the
old one in ``resumed_from``), keeping its own settings and target unless ``overrides`` say else.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from engine.config import Config
from engine.corpus import PinnedValue
from engine.runs.session import (CHECKPOINT_EVERY_S, RunInputs, RunOutcome, RunSession, RunSink, RunStart,
                                 build_trainer)
from engine.project.exporting import resolve_corpus, resolve_language
from engine.project.recording import (RunRecorder, checkpoint_folder, resolve_checkpoint, run_of_checkpoint,
                                      stored_path)
from engine.project.store import Project

__all__ = ["ProjectRunSpec", "AssembledRun", "assemble_run", "run_in_project", "checkpoint_folder", "stored_path",
           "resolve_checkpoint"]


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


@dataclass(frozen=True)
class ProjectRunSpec:
    """Which run to make from a project's data: what ``decipher run --project`` and the app's Run
    panel choose. Picklable (it crosses into the app's run process and a sweep's workers)."""

    config: Config
    corpus: str | int | None = None
    """A name (str) or an id (int); None: the project's only corpus."""
    language: str | int | None = None
    """A name (str) or an id (int); None: the project's only known language."""
    pins: tuple[PinnedValue, ...] | None = None
    """The pins the run starts with; None: the project's pins when the run is assembled."""
    resume: Path | None = None
    """A checkpoint to continue from (its own settings, with ``overrides`` on top)."""
    resumed_from: int | None = None
    """The run ``resume`` continues; None: the newest run that recorded that checkpoint."""
    overrides: Mapping[str, Any] = field(default_factory=dict)
    force_resume: bool = False
    """Resume a checkpoint of another format or vocabulary all the same (recorded with the run)."""


@dataclass
class AssembledRun:
    """A run put together from a project, not started yet: drive ``session`` (its sinks are the
    recorder, then the caller's), on the thread that will use ``project``."""

    session: RunSession
    recorder: RunRecorder
    corpus_name: str
    language_name: str


class _Announce(RunSink):
    """Says which run was recorded where, once the recorder has its id."""

    critical = False
    name = "the announcement"

    def __init__(self, recorder: RunRecorder, names: tuple[str, str], out: Path | None, log):
        self.recorder, self.names, self.out, self.log = recorder, names, out, log

    def started(self, start: RunStart) -> None:
        folder = self.out or checkpoint_folder(self.recorder.project_path, self.recorder.run_id)
        self.log(f"run {self.recorder.run_id} in {self.recorder.project_path} (corpus {self.names[0]!r}, "
                 f"known language {self.names[1]!r}; checkpoints in {folder})")


def assemble_run(project: Project, spec: ProjectRunSpec, *, out_dir: Path | None = None,
                 sinks: Sequence[RunSink] = (), critical: bool = True,
                 checkpoint_every_s: float = CHECKPOINT_EVERY_S, live_interval: float | None = None,
                 build: Callable[..., Any] = build_trainer,
                 log: Callable[[str], None] | None = None) -> AssembledRun:
    """Put a run together from ``project`` (open, and kept open while the run lasts).

    The session's sinks: the recorder (``critical=False``: a write the project refuses becomes a
    message and the run goes on, as the app wants), an announcement through ``log`` (None: none),
    an ``OutputFolder`` when ``out_dir`` is given (already checked by ``prepare_output_folder``),
    then ``sinks``. The checkpoint is ``out_dir/checkpoint.pt``, else the recorder's
    ``<project>.runs/run-<id>/checkpoint.pt``.
    """
    corpus_id = resolve_corpus(project, spec.corpus)
    language_id = resolve_language(project, spec.language)
    corpus_data = project.corpus(corpus_id)
    vocabulary = project.vocabulary(language_id)
    resume = Path(spec.resume) if spec.resume is not None else None
    resumed_from = spec.resumed_from
    if resumed_from is None and resume is not None:
        resumed_from = run_of_checkpoint(project, resume)
    pins = tuple(project.pins()) if spec.pins is None else tuple(spec.pins)
    inputs = RunInputs(corpus_data, vocabulary, spec.config, gold=tuple(project.gold(corpus_id)), pins=pins,
                       resume=resume, overrides=dict(spec.overrides), force_resume=spec.force_resume)
    recorder = RunRecorder(project, corpus_id=corpus_id, language_id=language_id, resumed_from=resumed_from,
                           critical=critical)
    all_sinks: list[RunSink] = [recorder]
    if log is not None:
        all_sinks.append(_Announce(recorder, (corpus_data.name, vocabulary.language), out_dir, log))
    if out_dir is not None:
        from engine.runs.outputs import OutputFolder

        all_sinks.append(OutputFolder(out_dir))
    all_sinks.extend(sinks)
    checkpoint = (out_dir / "checkpoint.pt") if out_dir is not None else recorder.checkpoint_file
    session = RunSession(inputs, sinks=all_sinks, checkpoint=checkpoint, checkpoint_every_s=checkpoint_every_s,
                         live_interval=live_interval, build=build)
    return AssembledRun(session, recorder, corpus_data.name, vocabulary.language)


def run_in_project(project_path: str | Path, *, config: Config, corpus: str | int | None = None,
                   language: str | int | None = None, resume: str | Path | None = None,
                   overrides: Mapping[str, Any] | None = None, out: str | Path | None = None,
                   sinks: Sequence[RunSink] = (), handle_signals: bool = False,
                   checkpoint_every_s: float = CHECKPOINT_EVERY_S,
                   log: Callable[[str], None] = _stderr, force_resume: bool = False) -> tuple[int | None, RunOutcome]:
    """Run once on the project's data and record it; returns (run id, outcome).

    ``corpus``/``language``: a name or id (default: the only one). ``out``: a folder for the
    checkpoint and, as ``decipher run --out`` writes them, metrics.json/matches.csv/steps.csv
    (validated before anything is recorded). Raises what failed the run, after recording it
    as failed. Every argument is picklable, so a sweep worker process can call this directly.
    """
    from engine.runs.outputs import prepare_output_folder

    project_path = Path(project_path)
    out_dir = prepare_output_folder(Path(out)) if out is not None else None
    # names as the command line gives them (an int is read as a name too, as it always was here)
    spec = ProjectRunSpec(config, corpus=None if corpus is None else str(corpus),
                          language=None if language is None else str(language), resume=Path(resume) if resume else None,
                          overrides=dict(overrides or {}), force_resume=force_resume)
    with Project.open(project_path) as project:
        for run_id in project.interrupted:
            log(f"note: run {run_id} was left running by a process that is gone; marked interrupted")
        run = assemble_run(project, spec, out_dir=out_dir, sinks=sinks, checkpoint_every_s=checkpoint_every_s,
                           log=log)
        outcome = run.session.run(handle_signals=handle_signals)
        shown = ", ".join(f"{k}={v:.3f}" for k, v in outcome.metrics.items() if k in ("p_at_1", "p_at_10", "coverage"))
        log(f"run {run.recorder.run_id}: {outcome.step} steps in {outcome.wall_time_s:.1f} s on {outcome.device}"
            f"{': ' + shown if shown else ''}; {outcome.status}; recorded in {project_path} (pid {os.getpid()})")
        return run.recorder.run_id, outcome
