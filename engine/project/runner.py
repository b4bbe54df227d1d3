"""Train on a corpus and known language stored in a project and record the run there: the
project-side caller of the run session (``decipher run --project``, and a sweep's workers).

Checkpoints go to ``out`` when given, else to the folder ``<project>.runs/run-<id>/`` beside the
project file; the run records the path (relative to the project's folder when it lies inside it).
A run killed midway can be resumed with ``resume=<its checkpoint>`` (the new run then names the
old one in ``resumed_from``), keeping its own settings and target unless ``overrides`` say else.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from engine.config import Config
from engine.runs.session import CHECKPOINT_EVERY_S, RunInputs, RunOutcome, RunSession, RunSink, RunStart
from engine.project.exporting import resolve_corpus, resolve_language
from engine.project.recording import (RunRecorder, checkpoint_folder, resolve_checkpoint, run_of_checkpoint,
                        stored_path)
from engine.project.store import Project

__all__ = ["run_in_project", "checkpoint_folder", "stored_path", "resolve_checkpoint"]


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


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


def run_in_project(project_path: str | Path, *, config: Config, corpus: str | int | None = None,
                   language: str | int | None = None, resume: str | Path | None = None,
                   overrides: Mapping[str, Any] | None = None, out: str | Path | None = None,
                   sinks: Sequence[RunSink] = (), handle_signals: bool = False,
                   checkpoint_every_s: float = CHECKPOINT_EVERY_S,
                   log: Callable[[str], None] = _stderr) -> tuple[int | None, RunOutcome]:
    """Run once on the project's data and record it; returns (run id, outcome).

    ``corpus``/``language``: a name or id (default: the only one). ``out``: a folder for the
    checkpoint and, as ``decipher run --out`` writes them, metrics.json/matches.csv/steps.csv
    (validated before anything is recorded). Raises what failed the run, after recording it
    as failed. Every argument is picklable, so a sweep worker process can call this directly.
    """
    from engine.runs.outputs import OutputFolder, prepare_output_folder

    project_path = Path(project_path)
    out_dir = prepare_output_folder(Path(out)) if out is not None else None
    with Project.open(project_path) as project:
        for run_id in project.interrupted:
            log(f"note: run {run_id} was left running by a process that is gone; marked interrupted")
        corpus_id = resolve_corpus(project, None if corpus is None else str(corpus))
        language_id = resolve_language(project, None if language is None else str(language))
        corpus_data = project.corpus(corpus_id)
        vocabulary = project.vocabulary(language_id)
        resumed_from = run_of_checkpoint(project, Path(resume)) if resume else None
        inputs = RunInputs(corpus_data, vocabulary, config, gold=tuple(project.gold(corpus_id)),
                           pins=tuple(project.pins()), resume=Path(resume) if resume else None,
                           overrides=dict(overrides or {}))
        recorder = RunRecorder(project, corpus_id=corpus_id, language_id=language_id, resumed_from=resumed_from)
        all_sinks: list[RunSink] = [recorder, _Announce(recorder, (corpus_data.name, vocabulary.language),
                                                        out_dir, log)]
        if out_dir is not None:
            all_sinks.append(OutputFolder(out_dir))
        all_sinks.extend(sinks)
        checkpoint = (out_dir / "checkpoint.pt") if out_dir is not None else recorder.checkpoint_file
        session = RunSession(inputs, sinks=all_sinks, checkpoint=checkpoint, checkpoint_every_s=checkpoint_every_s)
        outcome = session.run(handle_signals=handle_signals)
        shown = ", ".join(f"{k}={v:.3f}" for k, v in outcome.metrics.items() if k in ("p_at_1", "p_at_10", "coverage"))
        log(f"run {recorder.run_id}: {outcome.step} steps in {outcome.wall_time_s:.1f} s on {outcome.device}"
            f"{': ' + shown if shown else ''}; {outcome.status}; recorded in {project_path} (pid {os.getpid()})")
        return recorder.run_id, outcome
