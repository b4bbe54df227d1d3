"""Feeding a training run's events into a project file.

The trainer (or the CLI's ``decipher run --project``) does::

    run_id = project.start_run(config, corpus_id, language_id, device=device)
    recorder = RunRecorder(project, run_id)
    try:
        for event in trainer:            # StepEvent / EvalEvent / FinishedEvent
            recorder(event)
    except BaseException as e:
        recorder.fail(e)                 # status "failed" (or "stopped" for KeyboardInterrupt)
        raise

Each call commits before it returns, so a process killed at any point leaves the run as
"running" with everything recorded so far; the next open marks it "interrupted".
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Callable

from ..results import EvalEvent, FinishedEvent, StepEvent
from .store import Project


class RunRecorder:
    """Writes one run's events: step metrics (at most every ``step_every`` seconds), evaluation
    metrics and matches, checkpoints, and the final status."""

    def __init__(self, project: Project, run_id: int, *, step_every: float = 2.0,
                 clock: Callable[[], float] = time.monotonic):
        self.project = project
        self.run_id = run_id
        self.step_every = step_every
        self.clock = clock
        # minus infinity, not 0.0: monotonic() counts from boot, so 0.0 would throttle the first
        # step on a machine up for less than step_every seconds
        self._last_write = -math.inf
        self.finished = False

    def __call__(self, event) -> None:
        if isinstance(event, StepEvent):
            self.step(event)
        elif isinstance(event, EvalEvent):
            self.evaluation(event)
        elif isinstance(event, FinishedEvent):
            self.finish(event)

    def step(self, event: StepEvent, *, force: bool = False) -> None:
        """Losses, coverage and schedules of a step (names ``loss/<name>``, ``batch_coverage``,
        ``insertion_cost``, ``coverage_target``); throttled, and always written on the last step."""
        now = self.clock()
        last = event.step >= event.total_steps
        if not (force or last or now - self._last_write >= self.step_every):
            return
        values = {f"loss/{k}": float(v) for k, v in event.losses.items()}
        values.update(batch_coverage=event.coverage, insertion_cost=event.insertion_cost,
                      coverage_target=event.coverage_target)
        self.project.record_metrics(self.run_id, event.step, values)
        self._last_write = now

    def evaluation(self, event: EvalEvent) -> None:
        """The evaluation's metrics (plus ``coverage``) and its decoded matches, in one transaction."""
        values = {k: float(v) for k, v in event.metrics.items()}
        values["coverage"] = event.coverage
        with self.project.transaction():
            self.project.record_metrics(self.run_id, event.step, values)
            self.project.record_matches(self.run_id, event.matches)

    def checkpoint(self, path: str | Path) -> None:
        self.project.set_checkpoint(self.run_id, path)

    def finish(self, event: FinishedEvent) -> None:
        status = event.reason if event.reason in ("completed", "stopped") else "completed"
        self.project.finish_run(self.run_id, status, checkpoint=event.checkpoint)
        self.finished = True

    def fail(self, error: BaseException) -> None:
        """End the run after an exception: "stopped" for Ctrl-C, else "failed" with the error."""
        if self.finished:
            return
        if isinstance(error, KeyboardInterrupt):
            self.project.finish_run(self.run_id, "stopped", error="interrupted by the user (Ctrl-C)")
        else:
            self.project.finish_run(self.run_id, "failed", error=f"{type(error).__name__}: {error}")
        self.finished = True
