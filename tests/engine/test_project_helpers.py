"""Shared helpers of the project-file tests (no tests here; the name keeps it among them)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from engine.config import Config
from engine.project import Project, import_gold, import_known, import_lost, import_prior
from engine.results import Alternative, Match

DATA = Path(__file__).resolve().parent.parent / "data" / "project"


def sha(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def sidecars(path: Path) -> list[Path]:
    return [p for p in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm"),
                        path.with_name(path.name + "-journal")) if p.exists()]


def dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def sample_matches() -> list[Match]:
    return [
        Match("B.1.1", 0, 8, "ba-ka-ra", (
            Alternative(1, "bakar", "bakar", -0.25, "to go", -2.0),
            Alternative(2, "-ke", "ke", -1.5, "suffix", -3.0),
        ), confidence=0.75),
        Match("B.1.2", 0, 3, "-ke", (
            Alternative(1, "-ke", "ke", -0.125, "suffix", -0.375),
        ), confidence=0.5),
        Match("B.1.3", 0, 2, "ár", (
            Alternative(1, "arbi", "arbi", -2.0, "", -4.0),
            Alternative(2, "tusu", "tusu", -3.0, "two", -8.0),
        ), confidence=0.125),
    ]


def filled_project(path: Path) -> tuple[Project, dict]:
    """A project with the fixture corpus, vocabulary, gold, pins and one finished run."""
    project = Project.create(path)
    corpus_id = import_lost(project, DATA / "lost.csv", name="iberian")
    language_id = import_known(project, DATA / "known.csv", name="basque")
    import_gold(project, DATA / "gold.csv", corpus="iberian")
    import_prior(project, DATA / "prior.csv")
    run_id = project.start_run(Config(min_span=3, coverage_end=0.1), corpus_id, language_id,
                               device="cpu", seed=7)
    project.record_metrics(run_id, 10, {"P@1": 0.5, "P@10": 0.75, "loss": 1.25})
    project.record_matches(run_id, sample_matches())
    project.decide(run_id, "B.1.1", 0, 8, "bakar", "accepted")
    project.decide(run_id, "B.1.3", 0, 2, "tusu", "rejected")
    project.finish_run(run_id, "completed", checkpoint="ckpt/run1.pt")
    return project, {"corpus": corpus_id, "language": language_id, "run": run_id}
