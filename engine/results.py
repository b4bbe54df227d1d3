"""Immutable results a run hands out: decoded matches, the character mapping, training events.

These are what crosses from the training thread to the GUI, the CLI and the project file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np


@dataclass(frozen=True)
class Alternative:
    """One known stem proposed for a span, with its rank (1 = best) and score.

    ``score`` is log P(span | stem) divided by the length the config names (stem or span).
    """

    rank: int
    form: str
    ipa: str
    score: float
    gloss: str = ""
    log_prob: float = 0.0
    """Un-normalised log P(span | stem)."""


@dataclass(frozen=True)
class Match:
    """A matched span of an inscription (offsets in units, end exclusive) and its ranked stems."""

    inscription_id: str
    start: int
    end: int
    span: str
    alternatives: tuple[Alternative, ...]
    confidence: float = 0.0
    """Per-character confidence: exp(best log P(span | stem) / |span|)."""

    @property
    def best(self) -> Alternative:
        return self.alternatives[0]


@dataclass(frozen=True)
class SyllableTable:
    """What a syllable model (setting ``signs = syllables``) learned of each sign, as
    P(sound | sign): ``onset_probs[i, j]`` = P(onset ``onsets[j]`` | ``signs[i]``), where
    ``onsets`` holds the consonants and NULL_ONSET (engine/model/syllables.py: no onset), and
    ``vowel_probs[i, j]`` = P(vowel ``vowels[j]`` | ``signs[i]``). Rows sum to 1."""

    signs: tuple[str, ...]
    onsets: tuple[str, ...]
    onset_probs: np.ndarray       # (n_signs, n_onsets)
    vowels: tuple[str, ...]
    vowel_probs: np.ndarray       # (n_signs, n_vowels)

    def best(self, sign: str, k: int = 3) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        """The sign's ``k`` best onsets and ``k`` best vowels, each with P(sound | sign)."""
        i = self.signs.index(sign)
        on = np.argsort(-self.onset_probs[i])[:k]
        vo = np.argsort(-self.vowel_probs[i])[:k]
        return ([(self.onsets[j], float(self.onset_probs[i, j])) for j in on],
                [(self.vowels[j], float(self.vowel_probs[i, j])) for j in vo])

    def top_values(self) -> dict[str, tuple[str, str]]:
        """Every sign's top-1 onset and top-1 vowel (what engine.datasets.linear_b.count_standard takes)."""
        out = {}
        for sign in self.signs:
            onsets, vowels = self.best(sign, 1)
            out[sign] = (onsets[0][0], vowels[0][0])
        return out

    def to_json(self) -> dict:
        return {"signs": list(self.signs), "onsets": list(self.onsets), "onset_probs": self.onset_probs.tolist(),
                "vowels": list(self.vowels), "vowel_probs": self.vowel_probs.tolist()}

    @classmethod
    def from_json(cls, data: Mapping) -> "SyllableTable":
        return cls(tuple(data["signs"]), tuple(data["onsets"]), np.asarray(data["onset_probs"], dtype=float),
                   tuple(data["vowels"]), np.asarray(data["vowel_probs"], dtype=float))


@dataclass(frozen=True)
class MappingSnapshot:
    """A snapshot of P(lost | known): ``probs[k, l]`` for known unit k and lost letter l.

    Index 0 of both axes is the deletion pseudo-character ``<DEL>``.

    With ``signs = syllables`` ``syllables`` holds what the model learned (P(sound | sign)), and
    ``probs[k, l]`` is P(sound k | sign l) for the sign's onset (consonants and NULL_ONSET) and its
    vowel (vowels): each column then sums to 2, and a sign's best sounds are its best onset and
    vowel.
    """

    lost: tuple[str, ...]
    known: tuple[str, ...]
    probs: np.ndarray
    syllables: SyllableTable | None = None

    def best_known_for(self, lost: str, k: int = 3) -> list[tuple[str, float]]:
        """The known units that most often surface as this lost letter."""
        j = self.lost.index(lost)
        col = self.probs[:, j]
        order = np.argsort(-col)[:k]
        return [(self.known[i], float(col[i])) for i in order]

    def best_sounds(self) -> dict[str, str]:
        """Each lost letter's most probable known sound (the "no sound" unit aside); {} with signs = syllables
        (a sign has two slots: :meth:`top_readings`)."""
        if self.syllables is not None:
            return {}
        best = {}
        for letter in self.lost[1:]:
            ranked = [u for u, _ in self.best_known_for(letter, k=2) if u != self.known[0]]
            if ranked:
                best[letter] = ranked[0]
        return best

    def top_readings(self) -> dict[str, str]:
        """Each sign's top-1 onset and top-1 vowel (``"k a"``) with signs = syllables, each letter's best sound
        otherwise: what the restarts keep of each start for the diagnosis's ``starts`` check."""
        if self.syllables is not None:
            return {sign: f"{onset} {vowel}" for sign, (onset, vowel) in self.syllables.top_values().items()}
        return self.best_sounds()


@dataclass(frozen=True)
class StepEvent:
    """After each training step."""

    step: int
    total_steps: int
    losses: Mapping[str, float]
    coverage: float
    """Expected share of this batch's characters inside matched spans."""
    insertion_cost: float
    coverage_target: float
    elapsed: float
    batch_matches: tuple[Match, ...] = ()
    """Viterbi decoding of the inscriptions in this batch (for live highlights)."""
    restart: int = 0
    """The start this step trained (setting restarts: 0..R-1 while the starts are trained, the kept
    one after the choice; every start counts its steps from 1). 0 with one start."""
    work: tuple[int, int] | None = None
    """(steps trained so far, steps planned) over every start, for progress that does not jump back
    when a start begins; None: (step, total_steps), as with one start."""
    phase: str = ""
    """What this step trained on, in words, when it is not the whole model on the text: "pseudo-words"
    (setting words_first), "onsets only" (setting onsets_first), both joined by ", "; "" otherwise."""

    @property
    def progress(self) -> tuple[int, int]:
        """(done, planned): the run's progress in steps trained, over every start."""
        return self.work if self.work is not None else (self.step, self.total_steps)


@dataclass(frozen=True)
class EvalEvent:
    """After a full-corpus evaluation (every ``eval_interval`` steps and at the end)."""

    step: int
    matches: tuple[Match, ...]
    coverage: float
    """Share of the corpus's characters inside decoded matched spans."""
    closeness: tuple[tuple[float, float], ...]
    """The closeness curve: (confidence threshold, coverage of spans at least that confident)."""
    metrics: Mapping[str, float] = field(default_factory=dict)
    mapping: MappingSnapshot | None = None
    restart: int = 0
    """The start (setting restarts) evaluated: the kept one once chosen (StepEvent.restart)."""


@dataclass(frozen=True)
class FinishedEvent:
    """The last event of a run."""

    step: int
    reason: str
    """"completed" or "stopped"."""
    elapsed: float
    checkpoint: str | None = None


@dataclass(frozen=True)
class NoticeEvent:
    """Something the run's log should say, e.g. that one of several starts (setting restarts)
    diverged and was set aside; the run goes on."""

    step: int
    """The step it concerns (for a diverged start: the step at which it diverged)."""
    text: str


Event = StepEvent | EvalEvent | NoticeEvent | FinishedEvent


@dataclass(frozen=True)
class UpdatePins:
    """Sent into a running trainer (``generator.send``) to replace its pinned values."""

    pins: tuple
