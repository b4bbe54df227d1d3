"""Early basin selection (setting ``restarts``; issue 15): a run trains R short starts, scores each
with the gold-free objective over the whole corpus and continues only the lowest.

With a dictionary ten times larger, many seeds end in a worse optimum of the same objective, and the
final objective ranks them as their P@1 does (docs/benchmarks.md, "Large vocabularies"); on the
synthetic cipher it does so only at the end of the run (not after a fraction of it), hence the
default restart_fraction 1: every start trains the whole run. Start 0 is the run's own seed (so
R = 1 is the paper's run and start 0 kept is exactly it); starts 1..R-1 take seeds derived from it. The record below
rides in the checkpoint, so a resumed run finishes the same choice instead of making a new one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .errors import InputError


def start_seeds(seed: int, restarts: int) -> tuple[int, ...]:
    """The seeds of the R starts: the run's own first, then ones derived from (seed, r) by numpy's
    SeedSequence (stable across numpy versions), 32-bit as every seed."""
    derived = [int(np.random.SeedSequence([int(seed), r]).generate_state(1, np.uint32)[0])
               for r in range(1, restarts)]
    return (int(seed), *derived)


def selection_steps(config) -> int:
    """S, the steps each start trains before the choice: restart_fraction x steps (rounded), at
    least 1 (0 when the run has no steps). S = steps: every start trains the whole run and the
    lowest final objective is kept."""
    if config.steps <= 0:
        return 0
    return max(1, min(config.steps, int(round(config.restart_fraction * config.steps))))


@dataclass
class Selection:
    """Where the choice among starts stands. ``objectives[r]`` is start r's objective after S steps
    (those finished so far); ``best`` the lowest so far and ``best_state`` its training state
    (engine.training.Trainer._training_state) until the choice is made; ``kept`` the start chosen."""

    seeds: tuple[int, ...]
    steps: int
    fraction: float
    objectives: list[float] = field(default_factory=list)
    best: int = -1
    best_state: dict | None = None
    kept: int = -1

    @classmethod
    def new(cls, config) -> "Selection | None":
        """The selection a fresh run of ``config`` makes, or None (one start, or no steps)."""
        steps = selection_steps(config)
        if config.restarts <= 1 or steps <= 0:
            return None
        return cls(start_seeds(config.seed, config.restarts), steps, float(config.restart_fraction))

    @property
    def done(self) -> bool:
        return self.kept >= 0

    @property
    def current(self) -> int:
        """The start being trained (R once the choice is made)."""
        return len(self.objectives)

    def record(self, objective: float, state_of) -> None:
        """Start ``current`` reached S steps with ``objective``; ``state_of()`` gives its training
        state, taken only when it is the lowest so far (a non-finite objective never is, ties
        keep the earlier start)."""
        r = self.current
        value = objective if math.isfinite(objective) else math.inf
        if self.best < 0 or value < self._best_value():
            self.best, self.best_state = r, state_of()
        self.objectives.append(float(objective))

    def _best_value(self) -> float:
        v = self.objectives[self.best]
        return v if math.isfinite(v) else math.inf

    def choose(self) -> dict:
        """Every start scored: keep the best and hand back its training state."""
        state, self.best_state = self.best_state, None
        self.kept = self.best
        return state

    def metrics(self) -> dict[str, float]:
        """What the run's metrics record: R, S, the kept start and its seed, each start's objective."""
        out = {"restarts": float(len(self.seeds)), "restart_steps": float(self.steps)}
        if self.done:
            out["restart_kept"] = float(self.kept)
            out["restart_kept_seed"] = float(self.seeds[self.kept])
        out.update({f"restart_objective_{r}": float(v) for r, v in enumerate(self.objectives)})
        return out

    # ---- checkpoints (tensors and plain values only) ----
    def to_state(self) -> dict:
        out = {"seeds": list(self.seeds), "steps": int(self.steps), "fraction": float(self.fraction),
               "objectives": [float(v) for v in self.objectives], "best": int(self.best), "kept": int(self.kept)}
        if self.best_state is not None:
            out["best_state"] = self.best_state
        return out

    @classmethod
    def from_state(cls, data) -> "Selection":
        try:
            sel = cls(tuple(int(s) for s in data["seeds"]), int(data["steps"]), float(data["fraction"]),
                      [float(v) for v in data["objectives"]], int(data["best"]), data.get("best_state"),
                      int(data["kept"]))
        except (KeyError, TypeError, ValueError, AttributeError):
            raise InputError("the checkpoint's record of the restarts is malformed") from None
        R, n = len(sel.seeds), len(sel.objectives)
        # best names a scored start (none before the first), and the choice is made only once every
        # start is scored, of the best one: else a resume would index past the scores or go on with
        # a start that was never chosen
        if not (R >= 2 and sel.steps >= 1 and n <= R and (sel.best == -1 if n == 0 else 0 <= sel.best < n)
                and (sel.kept == -1 or (n == R and sel.kept == sel.best))
                and (sel.done or sel.best_state is not None or not sel.objectives)
                and (sel.best_state is None or isinstance(sel.best_state, dict))):
            raise InputError("the checkpoint's record of the restarts is inconsistent")
        return sel
