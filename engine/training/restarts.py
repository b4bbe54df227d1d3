"""Early basin selection (setting ``restarts``; issue 15): a run trains R short starts, scores each
with the gold-free objective over the whole corpus and continues only the lowest.

With a dictionary ten times larger, many seeds end in a worse optimum of the same objective, and the
final objective ranks them as their P@1 does (docs/benchmarks.md, "Large vocabularies"); on the
synthetic cipher it does so only at the end of the run (not after a fraction of it), hence the
default restart_fraction 1: every start trains the whole run. Start 0 is the run's own seed (so
R = 1 is the paper's run and start 0 kept is exactly it); starts 1..R-1 take seeds derived from it. The record below
rides in the checkpoint, so a resumed run finishes the same choice instead of making a new one.

A start whose loss or parameters become non-finite before it is scored is set aside (recorded as
diverged, with the step, never kept) and the run goes on with the next start; only a run whose every
start diverged fails (engine.training.trainer.TrainingDiverged). With one start nothing is set aside: the
run fails as the paper's would.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from engine.errors import InputError


def start_seeds(seed: int, restarts: int) -> tuple[int, ...]:
    """The seeds of the R starts: the run's own first, then ones derived from (seed, r) by numpy's
    SeedSequence (stable across numpy versions), 32-bit as every seed."""
    derived = [int(np.random.SeedSequence([int(seed), r]).generate_state(1, np.uint32)[0])
               for r in range(1, restarts)]
    return (int(seed), *derived)


def _word_phase(config, words: bool | None) -> bool:
    """Whether the run trains on pseudo-words first: ``words`` where the trainer knows, else from the
    settings alone (words_first > 0 and not segmented)."""
    return config.words_first > 0 and not config.segmented if words is None else words


def selection_steps(config, words: bool | None = None) -> int:
    """S, the steps each start trains before the choice: words_first where restart_after_words is set and
    the run has a word phase (``words``: it trains on its text's pseudo-words first; None: judged from the
    settings alone, words_first > 0 and not segmented, as an estimate before the text is read); else
    restart_steps when set, else restart_fraction x steps (rounded), at least 1; never more than the run's
    steps (0 when it has none). S = steps: every start trains the whole run and the lowest final objective
    is kept."""
    if config.steps <= 0:
        return 0
    if config.restart_after_words and _word_phase(config, words):
        return min(config.steps, config.words_first)
    if config.restart_steps > 0:
        return min(config.steps, config.restart_steps)
    return max(1, min(config.steps, int(round(config.restart_fraction * config.steps))))


@dataclass
class Selection:
    """Where the choice among starts stands. ``objectives[r]`` is start r's objective after S steps
    (those finished so far; NaN for a start that diverged); ``diverged[r]`` the step at which start r
    diverged (0: it did not) and ``why[r]`` how; ``best`` the lowest so far (-1 while no start is
    scored, or every one scored diverged) and ``best_state`` its training state
    (engine.training.trainer.Trainer._training_state) until the choice is made; ``kept`` the start chosen."""

    seeds: tuple[int, ...]
    steps: int
    fraction: float
    objectives: list[float] = field(default_factory=list)
    best: int = -1
    best_state: dict | None = None
    kept: int = -1
    diverged: list[int] = field(default_factory=list)
    why: list[str] = field(default_factory=list)
    #: the setting restart_steps the choice was made with (0: S was restart_fraction x steps)
    set_steps: int = 0
    #: the setting restart_class_init: the class start of the starts after the first (0: none)
    class_init: float = 0.0
    #: the setting restart_after_words the choice was made with (S is words_first where the run has a word phase)
    after_words: bool = False
    #: with after_words, the setting words_first the choice was made with (0: no word phase, or a record from
    #: before it was kept)
    set_words: int = 0
    #: each start's reading after S steps where S is the word phase's end (lost letter or sign -> its value, as
    #: MappingSnapshot.top_readings gives it; {} for a start that diverged, for a screen elsewhere, or in a record
    #: from before the readings were kept): what the diagnosis's ``starts`` check compares
    readings: list[dict[str, str]] = field(default_factory=list)

    @classmethod
    def new(cls, config, words: bool | None = None) -> "Selection | None":
        """The selection a fresh run of ``config`` makes, or None (one start, or no steps). ``words``: whether
        the run trains on pseudo-words first (selection_steps)."""
        steps = selection_steps(config, words)
        if config.restarts <= 1 or steps <= 0:
            return None
        sel = cls(start_seeds(config.seed, config.restarts), steps, float(config.restart_fraction))
        sel.set_steps = int(config.restart_steps)
        sel.class_init = float(config.restart_class_init)
        sel.after_words = bool(config.restart_after_words)
        if sel.after_words and _word_phase(config, words):
            sel.set_words = int(config.words_first)
        return sel

    def settings_text(self) -> str:
        """The settings that made this choice, as a user would pass them."""
        how = f"restart_steps={self.set_steps}" if self.set_steps else f"restart_fraction={self.fraction:g}"
        lean = f", restart_class_init={self.class_init:g}" if self.class_init else ""
        words = ", restart_after_words=true" if self.after_words else ""
        return f"restarts={len(self.seeds)}, {how}{lean}{words}"

    def same_choice(self, config, words: bool | None = None) -> bool:
        """Whether ``config`` (a resumed run's settings, perhaps with more steps) makes the choice this
        record holds: as many starts, the same class start of the later ones (restart_class_init), the
        same restart_after_words, and, where that screened a run with a word phase (``words``, as for
        selection_steps), the same words_first (more steps may follow a run shorter than its word phase);
        else the same restart_steps, or the same restart_fraction where
        neither sets restart_steps; a record made with a fraction also resumes with restart_steps equal
        to its S (the same screen, said in steps)."""
        if config.restarts != len(self.seeds) or config.restart_class_init != self.class_init \
                or bool(config.restart_after_words) != self.after_words:
            return False
        if self.after_words and _word_phase(config, words):
            # the same words_first, as restart_steps below: a resume with more steps keeps a choice made in a run
            # shorter than its word phase
            if self.set_words:
                return config.words_first == self.set_words
            return selection_steps(config, True) == self.steps
        if self.set_steps:
            return config.restart_steps == self.set_steps
        if config.restart_steps:
            return config.restart_steps == self.steps
        return config.restart_fraction == self.fraction

    @property
    def done(self) -> bool:
        return self.kept >= 0

    @property
    def current(self) -> int:
        """The start being trained (R once the choice is made)."""
        return len(self.objectives)

    def record(self, objective: float, state_of, reading: dict[str, str] | None = None) -> None:
        """Start ``current`` reached S steps with ``objective`` and ``reading`` (MappingSnapshot.top_readings);
        ``state_of()`` gives its training state, taken only when it is the lowest so far (a non-finite
        objective never is, ties keep the earlier start)."""
        r = self.current
        value = objective if math.isfinite(objective) else math.inf
        if self.best < 0 or value < self._best_value():
            self.best, self.best_state = r, state_of()
        self.objectives.append(float(objective))
        self.diverged.append(0)
        self.why.append("")
        self.readings.append({str(k): str(v) for k, v in (reading or {}).items()})

    def record_diverged(self, step: int, why: str) -> None:
        """Start ``current`` diverged at ``step`` (``why``: the loss or the parameters, in words)
        before it was scored: it has no objective (NaN) and is never the best."""
        self.objectives.append(math.nan)
        self.diverged.append(int(step))
        self.why.append(str(why))
        self.readings.append({})

    @property
    def all_diverged(self) -> bool:
        """Every start is done and each one diverged: nothing to keep."""
        return len(self.objectives) == len(self.seeds) and all(self.diverged)

    def divergence_text(self) -> str:
        """The diverged starts in words, e.g. ``start 0 (seed 3): the loss became nan at step 5``."""
        return "; ".join(f"start {r} (seed {self.seeds[r]}): {self.why[r]}"
                         for r in range(len(self.objectives)) if self.diverged[r])

    def _best_value(self) -> float:
        v = self.objectives[self.best]
        return v if math.isfinite(v) else math.inf

    def choose(self) -> dict:
        """Every start scored, at least one without diverging: keep the best and hand back its
        training state."""
        if self.best < 0:
            raise ValueError("no start to keep: every start diverged")
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
        out.update({f"restart_diverged_{r}": float(d) for r, d in enumerate(self.diverged) if d})
        return out

    # ---- checkpoints (tensors and plain values only) ----
    def to_state(self) -> dict:
        out = {"seeds": list(self.seeds), "steps": int(self.steps), "fraction": float(self.fraction),
               "set_steps": int(self.set_steps), "class_init": float(self.class_init),
               "after_words": bool(self.after_words), "set_words": int(self.set_words),
               "objectives": [float(v) for v in self.objectives], "best": int(self.best), "kept": int(self.kept),
               "diverged": [int(d) for d in self.diverged], "why": [str(w) for w in self.why],
               "readings": [dict(r) for r in self.readings]}
        if self.best_state is not None:
            out["best_state"] = self.best_state
        return out

    @classmethod
    def from_state(cls, data) -> "Selection":
        try:
            sel = cls(tuple(int(s) for s in data["seeds"]), int(data["steps"]), float(data["fraction"]),
                      [float(v) for v in data["objectives"]], int(data["best"]), data.get("best_state"),
                      int(data["kept"]),
                      # checkpoints before divergent starts were set aside: none diverged
                      [int(d) for d in data.get("diverged", [0] * len(data["objectives"]))],
                      [str(w) for w in data.get("why", [""] * len(data["objectives"]))],
                      int(data.get("set_steps", 0)),     # checkpoints before restart_steps: a fraction
                      float(data.get("class_init", 0.0)),
                      bool(data.get("after_words", False)),  # checkpoints before restart_after_words: off
                      int(data.get("set_words", 0)),
                      # checkpoints before the starts' readings were kept: none
                      [{str(k): str(v) for k, v in dict(r).items()}
                       for r in data.get("readings", [{}] * len(data["objectives"]))])
        except (KeyError, TypeError, ValueError, AttributeError):
            raise InputError("the checkpoint's record of the restarts is malformed") from None
        R, n = len(sel.seeds), len(sel.objectives)
        scored = [r for r in range(n) if not sel.diverged[r]] if len(sel.diverged) == n else None
        # best names a start scored without diverging (none before the first), and the choice is made
        # only once every start is done, of the best one: else a resume would index past the scores,
        # go on with a start that was never chosen, or with one that diverged
        if not (R >= 2 and sel.steps >= 1 and n <= R and scored is not None and len(sel.why) == n and sel.set_words >= 0
                and len(sel.readings) == n
                and all(d >= 0 for d in sel.diverged)
                and (sel.best == -1 if not scored else sel.best in scored)
                and (sel.kept == -1 or (n == R and sel.kept == sel.best >= 0))
                and (sel.done or (sel.best_state is not None) == (sel.best >= 0))
                and (sel.best_state is None or isinstance(sel.best_state, dict))):
            raise InputError("the checkpoint's record of the restarts is inconsistent")
        return sel
