"""Stopping a comparison's settled null runs early (issue 31 item 3; docs/closeness.md "Early stop").

A null run is stopped at a checkpoint (a fixed share of its steps, :data:`CHECKPOINTS`) when its
closeness score there (the same :func:`closeness_score` of the same curve the run's end computes) is at
least ``gap`` below the score of *every* seed of its candidate, all of which must have finished. Its
score at that step is its score in the comparison, and its result says where it stopped. The candidate's
own runs are never stopped. ``gap`` 0 is off (every run trains its full steps).

The rule is read against measured rises: how much a null's score grows from each checkpoint to the end
(``benchmarks/closeness_early_stop.py``). Only a null whose score, grown by more than any rise measured,
stays below its candidate's lowest seed is stopped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from engine.closeness.curve import closeness_score
from engine.errors import DecipherError
from engine.runs.session import RunSink

#: Where a null run may stop: these shares of its steps.
CHECKPOINTS = (1 / 3, 2 / 3)
#: The default gap: 0 = off (docs/closeness.md "Early stop" says why).
DEFAULT_GAP = 0.0
#: What runs.csv and answer.txt say of a stopped run.
SETTLED = "settled"


def check_gap(gap: float) -> float:
    """The rule's setting: a score gap from 0 (off) to 1 (the score is an area in [0, 1])."""
    if isinstance(gap, bool) or not isinstance(gap, (int, float)) or math.isnan(gap) or not 0 <= gap <= 1:
        raise DecipherError(f"the early stop's gap must be a number from 0 (off) to 1, got {gap}")
    return float(gap)


def checkpoint_steps(steps: int, fractions: Sequence[float] = CHECKPOINTS) -> tuple[int, ...]:
    """The steps a null run of ``steps`` steps is checked at: each share rounded, at least 1 and
    before the last step (a run of 1 or 2 steps has none)."""
    out = sorted({max(1, round(f * steps)) for f in fractions})
    return tuple(s for s in out if s < steps)


def settled(score: float, candidate_scores: Sequence[float], n_seeds: int, gap: float) -> bool:
    """The rule: a null run scoring ``score`` at a checkpoint is settled when every one of its
    candidate's ``n_seeds`` seeds has finished and each scored at least ``gap`` above it. Off (gap 0),
    with a seed missing or a score that is not a number, nothing is settled."""
    if gap <= 0 or n_seeds < 1 or len(candidate_scores) < n_seeds or math.isnan(score):
        return False
    if any(math.isnan(c) for c in candidate_scores):
        return False
    return score <= min(candidate_scores) - gap  # as StopRule.stops compares it


@dataclass(frozen=True)
class StopRule:
    """What one null run needs to decide for itself (picklable: it crosses to a worker process):
    its checkpoints and the score below which it is settled. ``threshold`` None: observe only
    (the checkpoint scores are recorded, the run never stops; what the benchmark measures rises with)."""

    checkpoints: tuple[int, ...]
    threshold: float | None
    """the candidate's lowest seed score minus the gap; None: never stop"""

    @classmethod
    def for_null(cls, steps: int, gap: float, candidate_scores: Sequence[float], n_seeds: int,
                 observe: bool = False) -> "StopRule | None":
        """The rule of a null run, or None when it cannot stop (off, or a seed of its candidate has not
        finished) and nothing is to be observed."""
        ready = gap > 0 and n_seeds >= 1 and len(candidate_scores) >= n_seeds and \
            not any(math.isnan(c) for c in candidate_scores)
        threshold = min(candidate_scores) - gap if ready else None
        if threshold is None and not observe:
            return None
        return cls(checkpoint_steps(steps), threshold)

    def stops(self, score: float) -> bool:
        return self.threshold is not None and not math.isnan(score) and score <= self.threshold

    def sink(self) -> "StopSink":
        return StopSink(self)


class StopSink(RunSink):
    """A session sink: at each checkpoint step it scores the run's closeness curve (a full-corpus
    evaluation, as the run's end does) and, when the rule says the run is settled, asks the trainer
    to stop after that step. ``completes_run``: a run this sink stopped is a finished run of the
    comparison (engine/runs/workers.py reads it), not an interrupted one."""

    critical = True
    name = "the comparison's early stop"

    def __init__(self, rule: StopRule):
        self.rule = rule
        self.trainer: Any = None
        self.scores: list[tuple[int, float]] = []
        """(step, closeness score) at every checkpoint reached"""
        self.stopped_at: int | None = None

    @property
    def completes_run(self) -> bool:
        return self.stopped_at is not None

    def started(self, start) -> None:
        self.trainer = start.trainer

    def step(self, event) -> None:
        trainer = self.trainer
        if self.stopped_at is not None or event.step not in self.rule.checkpoints or trainer is None:
            return
        if event.step >= event.total_steps:
            return
        selection = getattr(trainer, "selection", None)
        if selection is not None and not selection.done:  # a start (setting restarts) that may be dropped
            return
        evaluation = trainer.evaluate()
        score = closeness_score(evaluation.closeness)
        self.scores.append((event.step, score))
        if self.rule.stops(score):
            self.stopped_at = event.step
            trainer.request_stop()

    def record(self) -> dict:
        """What metrics.json keeps of the rule: where it stopped (or null) and the checkpoint scores."""
        return {"stopped_at": self.stopped_at, "reason": SETTLED if self.stopped_at is not None else None,
                "threshold": self.rule.threshold,
                "checkpoints": [[s, round(v, 6)] for s, v in self.scores]}

    def metrics(self) -> dict:
        """Added to the run's metrics.json by the worker (engine/runs/workers.py)."""
        return {"early_stop": self.record()}


__all__ = ["CHECKPOINTS", "DEFAULT_GAP", "SETTLED", "StopRule", "StopSink", "check_gap", "checkpoint_steps",
           "settled"]
