"""``decipher run --project FILE``: train on a corpus and known language stored in a project and
record the run there (settings, metrics, matches, checkpoints, final status).

Checkpoints go to ``--out`` when given, else to the folder ``<project>.runs/run-<id>/`` beside the
project file; the run records the path (relative to the project's folder when it lies inside it).
A checkpoint is written at every evaluation, so a run killed midway can be resumed with
``--resume <its checkpoint>`` (the new run then names the old one in ``resumed_from``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..errors import ProjectError
from ..results import EvalEvent, FinishedEvent, StepEvent
from .exporting import resolve_corpus, resolve_language
from .recording import RunRecorder
from .store import Project


def checkpoint_folder(project_path: Path, run_id: int) -> Path:
    return project_path.with_name(project_path.name + ".runs") / f"run-{run_id}"


def stored_path(project_path: Path, path: Path) -> str:
    """``path`` as the run records it: relative to the project's folder when inside it."""
    try:
        return str(path.resolve().relative_to(project_path.resolve().parent))
    except ValueError:
        return str(path.resolve())


def resolve_checkpoint(project_path: Path, stored: str) -> Path:
    """The file a run's recorded checkpoint path names."""
    p = Path(stored)
    return p if p.is_absolute() else project_path.resolve().parent / p


def _resumed_run(project: Project, checkpoint: Path) -> int | None:
    wanted = checkpoint.resolve()
    for run in reversed(project.runs()):
        if run.checkpoint and resolve_checkpoint(project.path, run.checkpoint).resolve() == wanted:
            return run.id
    return None


def run_in_project(args, config) -> int:
    """Train as ``decipher run`` does, reading the data from ``args.project`` and recording the run.

    Uses ``args.project``, ``args.corpus``, ``args.language``, ``args.resume``, ``args.out`` and
    ``args.quiet``; returns the exit code.
    """
    from ..cli import drive, report_preparation, write_outputs
    from ..training import Trainer

    project_path = Path(args.project)
    with Project.open(project_path) as project:
        for run_id in project.interrupted:
            print(f"note: run {run_id} was left running by a process that is gone; marked interrupted",
                  file=sys.stderr)
        corpus_id = resolve_corpus(project, getattr(args, "corpus", None))
        language_id = resolve_language(project, getattr(args, "language", None))
        corpus = project.corpus(corpus_id)
        vocabulary = project.vocabulary(language_id)
        gold = project.gold(corpus_id)
        pins = project.pins()
        resume = getattr(args, "resume", None)
        resumed_from = None
        if resume:
            trainer = Trainer.from_checkpoint(resume, corpus, vocabulary, gold=gold, pins=pins,
                                              config_overrides={"steps": config.steps}, live_interval=None)
            resumed_from = _resumed_run(project, Path(resume))
        else:
            trainer = Trainer(corpus, vocabulary, config, gold=gold, pins=pins, live_interval=None)
        report_preparation(trainer)
        run_id = project.start_run(trainer.config, corpus_id, language_id, device=str(trainer.device),
                                   seed=trainer.config.seed, pins=pins, resumed_from=resumed_from)
        out = Path(args.out) if getattr(args, "out", None) else checkpoint_folder(project_path, run_id)
        checkpoint = out / "checkpoint.pt"
        recorder = RunRecorder(project, run_id)
        finished: list[FinishedEvent] = []
        print(f"run {run_id} in {project_path} (corpus {corpus.name!r}, known language "
              f"{vocabulary.language!r}; checkpoints in {out})", file=sys.stderr)

        def on_event(event) -> None:
            if isinstance(event, StepEvent):
                recorder.step(event)
            elif isinstance(event, EvalEvent):
                recorder.evaluation(event)
                trainer.save_checkpoint(checkpoint)
                recorder.checkpoint(stored_path(project_path, checkpoint))
            elif isinstance(event, FinishedEvent):
                finished.append(event)

        try:
            out.mkdir(parents=True, exist_ok=True)
            result = drive(trainer, quiet=getattr(args, "quiet", False), on_event=on_event)
            trainer.save_checkpoint(checkpoint)
            reason = finished[-1].reason if finished else "completed"
            project.finish_run(run_id, reason if reason in ("completed", "stopped") else "completed",
                               checkpoint=stored_path(project_path, checkpoint))
        except BaseException as e:
            try:
                recorder.fail(e)
            except ProjectError as again:
                print(f"warning: could not record the end of run {run_id}: {again}", file=sys.stderr)
            raise
        if getattr(args, "out", None):
            write_outputs(out, trainer, result)
        ev = trainer.last_evaluation
        shown = ", ".join(f"{k}={ev.metrics[k]:.3f}" for k in ("p_at_1", "p_at_10", "coverage")
                          if ev is not None and k in ev.metrics)
        print(f"run {run_id}: {trainer.step} steps in {result['wall_time_s']:.1f} s on {trainer.device}"
              f"{': ' + shown if shown else ''}; recorded in {project_path} (pid {os.getpid()})",
              file=sys.stderr)
    return 0
