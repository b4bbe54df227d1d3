"""A reference run: the same run once more against invented words with the known list's sounds.

How well a known list fits a lost text depends on more than relatedness: on how many stems it has, how
long they are, and how the two languages' sounds pattern. A fixed share of well-matched text (the
diagnosis's ``close`` check) held on the development languages and failed on others (issue 49: 1 of 5
test controls flagged). A reference run measures that for the pair at hand. It trains the same lost
text with the same settings, seed and pins against a phonotactic null of the known list
(engine/closeness/nulls.py, as ``decipher closeness`` makes its nulls: the list's sounds, stem lengths
and sound transitions, none of its words), and the diagnosis compares the two runs' final objectives
(engine/training/final_objective.py; lower is better). A related list fits the text clearly better
than its null; an unrelated one does not, however well both cover the text (diagnosis ``chance``).

Setting ``reference_null``: ``auto`` (the default) trains it for letters runs, the kind the margin was
set on; ``on`` for any run; ``off`` never. It doubles a run's time. docs/diagnosis.md has the measured
margins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

#: The reference's final objective minus the run's must be at least this, or the reading is flagged
#: (``chance``). Set on the dev alphabets of issue 49 after seeing their margins
#: (benchmarks/results/ciphers/dev-reference-null.jsonl; docs/diagnosis.md): the 10 controls (a text read
#: against an unrelated list) -0.21 to +0.52, the 10 right readings +1.51 to +4.72 but for one far
#: relative at +0.54 to +0.60 (two nulls). A round value in the wide gap, on the controls' side of it
#: with room to spare: that far relative is flagged too (a false alarm the docs report).
REFERENCE_MARGIN = 1.0
REFERENCE_MARGIN_NOTE = "set on our development ciphers, whose unrelated lists reached 0.52"
#: The null vocabulary's kind (engine/closeness/nulls.py NULL_MODES).
REFERENCE_NULL_MODE = "phonotactic"
#: The null's index among a seed's nulls: a run's reference is the first null of its own seed.
REFERENCE_NULL_INDEX = 0
#: How the line a reference run tells its sinks begins (the app's Run panel shows the phase on it).
STARTED = "reference run:"


def wanted(config) -> bool:
    """Whether a run of ``config`` trains a reference at its end (setting ``reference_null``)."""
    return config.reference_null == "on" or (config.reference_null == "auto" and config.signs == "letters")


@dataclass(frozen=True)
class Reference:
    """What the reference run gives the diagnosis: its final objective and coverage, and its steps."""

    objective: float
    coverage: float
    steps: int


def train_reference(trainer, vocabulary, *, stop: Callable[[], bool] = lambda: False,
                    tell: Callable[[str], None] = lambda line: None) -> Reference | None:
    """Train ``trainer``'s run again (its corpus, settings, seed and pins) against a phonotactic null of
    ``vocabulary`` (the run's known list as given), to the same number of steps; None when ``stop()``
    became true first. Raises what building the reference raises (a list too small for a null)."""
    from engine.closeness.nulls import null_vocabulary
    from engine.results import FinishedEvent
    from engine.training.final_objective import corpus_objective
    from engine.training.trainer import Trainer

    config = trainer.config
    null = null_vocabulary(vocabulary, config.seed, REFERENCE_NULL_INDEX, mode=REFERENCE_NULL_MODE)
    ref = Trainer(trainer.corpus, null, config, pins=list(trainer.pins), live_interval=None)
    total = config.steps
    tell(f"{STARTED} the same settings against invented words with the known list's sounds "
         f"({len(null.stems)} stems, {total} steps; setting reference_null)")
    gen = ref.run(total)
    try:
        event: Any = next(gen)
        while not isinstance(event, FinishedEvent):
            if stop():
                return None
            event = gen.send(None)
    finally:
        gen.close()
    if event.reason != "completed":
        return None
    values = corpus_objective(ref)
    ev = ref.last_evaluation
    return Reference(float(values["objective"]), float(ev.coverage) if ev is not None else float("nan"), ref.step)
