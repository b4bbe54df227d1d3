"""Writes a live run into the project file: its record, metrics, matches, mapping and end.

Qt-free. The run driver calls it on the worker thread, before it hands each event to the
window, so the window's thread never waits on these writes and always finds them committed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from engine.config import Config
from engine.data import PinnedValue
from engine.project.store import Project
from engine.project.recording import RunRecorder as EngineRecorder
from engine.results import CharMapping, EvalEvent, FinishedEvent, StepEvent

from .driver import RunFailure

#: Project setting under which the GUI keeps a run's last character mapping (see mapping_of).
MAPPING_KEY = "gui.mapping.run.{}"


def mapping_to_json(mapping: CharMapping) -> dict:
    return {"lost": list(mapping.lost), "known": list(mapping.known),
            "probs": [[round(float(x), 6) for x in row] for row in mapping.probs]}


def mapping_from_json(data: dict | None) -> CharMapping | None:
    if not data:
        return None
    try:
        return CharMapping(tuple(data["lost"]), tuple(data["known"]), np.asarray(data["probs"], dtype=float))
    except (KeyError, TypeError, ValueError):
        return None


def mapping_of(project: Project, run_id: int) -> CharMapping | None:
    """The character mapping a GUI run left behind (None for runs from elsewhere)."""
    return mapping_from_json(project.setting(MAPPING_KEY.format(run_id)))


class RunRecorder:
    """One run's record in the project, from ``start`` to ``finish``/``fail``.

    The writing itself is engine.project.recording.RunRecorder's (the same metric names and
    throttling as ``decipher run --project``); this adds what the window needs around it: its own
    connection opened on the worker thread, the heartbeat of a paused run, the character mapping
    of each evaluation (for explanations of stored runs), and failures described for people.

    Given a path, the recorder opens its own connection to the project file in ``start`` and
    closes it in ``close``: SQLite connections belong to one thread, and WAL mode lets the
    window's connection read and write meanwhile. Given an open Project, it writes through it.
    """

    def __init__(self, project: Project | str | Path, config: Config, corpus_id: int, language_id: int,
                 pins: Sequence[PinnedValue]):
        self._path = None if isinstance(project, Project) else Path(project)
        self.project: Project | None = project if isinstance(project, Project) else None
        self.config = config
        self.corpus_id = corpus_id
        self.language_id = language_id
        self.pins = list(pins)
        self.run_id: int | None = None
        self.inner: EngineRecorder | None = None
        self.last_step = 0

    def start(self, device: str = "") -> int:
        if self.project is None:
            self.project = Project.open(self._path)
        self.run_id = self.project.start_run(self.config, self.corpus_id, self.language_id,
                                             device=device, pins=self.pins)
        self.inner = EngineRecorder(self.project, self.run_id)
        return self.run_id

    def _open(self) -> bool:
        return self.inner is not None and not self.inner.finished

    def step(self, event: StepEvent) -> None:
        """Every step event (the engine's recorder writes at most every few seconds)."""
        if self._open():
            self.inner.step(event)
            self.last_step = event.step

    def evaluation(self, event: EvalEvent) -> None:
        if not self._open():
            return
        with self.project.transaction():
            self.inner.evaluation(event)
            if event.mapping is not None:
                self.project.set_setting(MAPPING_KEY.format(self.run_id), mapping_to_json(event.mapping))
        self.last_step = max(self.last_step, event.step)

    def heartbeat(self) -> None:
        if self._open():
            self.project.heartbeat(self.run_id, self.last_step or None)

    def finish(self, event: FinishedEvent) -> None:
        if self._open():
            self.project.heartbeat(self.run_id, event.step)
            self.inner.finish(event)

    def fail(self, failure: RunFailure | str) -> None:
        if not self._open():
            return
        text = failure if isinstance(failure, str) else f"{failure.title}: {failure.message}"
        self.project.finish_run(self.run_id, "failed", error=text)
        self.inner.finished = True

    def close(self) -> None:
        """Close the connection this recorder opened (a shared Project stays open)."""
        if self._path is not None and self.project is not None:
            self.project.close()
