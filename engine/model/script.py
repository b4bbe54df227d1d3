"""What one lost character writes (setting ``signs``), as one object chosen when a run is prepared:
:data:`LETTERS` (one sound: the paper's model) or :data:`SYLLABLES` (an optional onset and a vowel:
engine/model/syllables.py, engine/model/syllable_mapping.py).

Every place that reads lost characters differently for the two asks the run's script
(``Prepared.script``, or :func:`script_of` where only the settings are at hand) instead of testing
the setting: how many DP positions a span takes, how a stem is laid out for the DP, which stem
lengths can meet a span, what a pin names, the mapping to build, what a message calls a lost
character. ``Config.signs`` stays the setting (files, command line, project settings).
"""

from __future__ import annotations

from typing import Sequence

import torch
from torch import nn

from engine.corpus import PinnedValue
from engine.errors import InputError
from engine.model.letter_classes import class_evidence
from engine.model.mapping import CharMapping
from engine.model.syllable_mapping import SyllableMapping, slot_windows
from engine.model.syllables import NULL_ONSET, SLOTS, looks_syllabic, parse_syllable_value, syllabify, syllable_counts
from engine.results import MappingSnapshot, SyllableTable


class Script:
    """What the two kinds share; :class:`Letters` and :class:`Syllables` say what differs."""

    #: the setting's value (``signs = letters`` or ``signs = syllables``)
    name: str
    #: what a message calls the lost characters ("letters", "signs")
    unit: str
    #: DP positions a lost character takes (a sign: onset then vowel)
    slots: int
    #: whether a lost character writes one sound, as an alphabet's letters do: vowel and consonant
    #: letter classes (engine/model/letter_classes.py), the setting vowel_weight and the warning
    #: about more signs than an alphabet has apply
    alphabet: bool
    #: known units every run of this kind has besides the stems' and the pins' (the null onset)
    added_known_units: tuple[str, ...]
    #: what a stem's length is counted in (the message of a stem left out for its length)
    stem_length_unit: str
    #: said after "no stem of the vocabulary has lo to hi IPA units"
    stem_length_note: str

    def dp_length(self, n_signs: int) -> int:
        """How many DP positions a span of ``n_signs`` characters takes."""
        return self.slots * n_signs

    def stem_dp_units(self, units: Sequence[str]) -> tuple[str, ...]:
        """A stem's IPA units as the DP reads them."""
        raise NotImplementedError

    def stem_length_range(self, config) -> tuple[int, int]:
        """The lengths (in DP units, :meth:`stem_dp_units`) a stem may have to meet some span of
        ``min_span..max_span`` characters."""
        raise NotImplementedError

    def reachable(self, n_signs: int, units: Sequence[str], config) -> bool:
        """Whether a span of ``n_signs`` characters can be aligned to a stem of IPA ``units`` under
        ``config`` (span limits, stem limits and the DP's band)."""
        if not config.min_span <= n_signs <= config.max_span:
            return False
        m = len(self.stem_dp_units(units))
        lo, hi = self.stem_length_range(config)
        return lo <= m <= hi and abs(m - self.dp_length(n_signs)) <= config.band

    def band_for(self, m: int, n_signs: int, config) -> int | None:
        """The smallest band under which a stem of ``m`` DP units meets a span of ``n_signs``
        characters (within the span limits); None when no band does."""
        raise NotImplementedError

    def dp_windows(self, windows: torch.Tensor, lengths):
        """(windows, lengths) of spans as the DP reads them: (S, N) character ids and lengths in
        characters -> the DP table's columns and lengths in DP positions."""
        return windows, lengths

    def pin_sounds(self, pin: PinnedValue) -> tuple[str, ...]:
        """The known units a pin names."""
        raise NotImplementedError

    def pin_columns(self, pin: PinnedValue, lost: int) -> list[tuple[str, int]]:
        """(known unit, column of the DP table) for each sound the pin of lost character id
        ``lost`` names."""
        raise NotImplementedError

    def onset_phase(self, config, step: int) -> bool:
        """Whether the step taken at ``step`` (counted from 0) scores vowel slots as chance
        (setting onsets_first; only with signs = syllables)."""
        return False

    def joint_vowels(self, config) -> bool:
        """Whether a stem's vowel is scored with its onset (setting vowel_slot = joint): the
        (onset, vowel) pairs are rows of the DP's table (``Prepared.vowel_pairs``)."""
        return False

    def pair_insertion_cost(self, gamma: float, config) -> float | None:
        """What an insertion that writes one lost character's two DP slots pays, where it differs from
        ``gamma`` (setting coda_insertion, signs = syllables); None: gamma, as every insertion pays."""
        return None

    def make_mapping(self, prep, config) -> nn.Module:
        """The character mapping of this kind for ``prep`` under ``config``."""
        raise NotImplementedError

    def syllable_table(self, model: nn.Module) -> SyllableTable | None:
        """What a syllable model learned of each sign; None for a letter model."""
        return None

    def snapshot(self, model: nn.Module, prep) -> MappingSnapshot:
        """What a run reports of its mapping: P(lost | known) (letters), or P(sound | sign) with the
        sign table (syllables)."""
        lost, known = tuple(prep.lost_letters), tuple(prep.known_units)
        with torch.no_grad():
            probs = model.log_probs(dropout=False).exp().cpu().numpy()
        return MappingSnapshot(lost, known, probs)

    def __repr__(self) -> str:
        return f"<script {self.name}>"


class Letters(Script):
    """Each lost character writes one sound (the paper's model)."""

    name, unit, slots, alphabet = "letters", "letters", 1, True
    added_known_units = ()
    stem_length_unit, stem_length_note = "IPA units", ""

    def stem_dp_units(self, units: Sequence[str]) -> tuple[str, ...]:
        return tuple(units)

    def stem_length_range(self, config) -> tuple[int, int]:
        return config.min_span, config.max_span

    def band_for(self, m: int, n_signs: int, config) -> int | None:
        if config.min_span <= m <= config.max_span:   # the stem limits do not move with band
            return abs(m - n_signs)
        return None

    def pin_sounds(self, pin: PinnedValue) -> tuple[str, ...]:
        """One sound; a syllable pin is refused in one line."""
        if looks_syllabic(pin.known_ipa):
            raise InputError(f"the pin {pin.lost} = {pin.known_ipa} writes a syllable, but this run reads one "
                             f"sound per sign (signs = letters); run with --set signs=syllables (or the preset "
                             f"linear-b) to pin syllables")
        return (pin.known_ipa,)

    def pin_columns(self, pin: PinnedValue, lost: int) -> list[tuple[str, int]]:
        return [(pin.known_ipa, lost)]

    def make_mapping(self, prep, config) -> nn.Module:
        vowels = None
        if config.class_init > 0 or config.vowel_weight == 0:
            vowels = class_evidence(prep)
        return CharMapping(prep.lost_letters, prep.known_units, config, vowels)


class Syllables(Script):
    """Each lost character writes a syllable: an optional onset and a vowel, two slots of the DP."""

    name, unit, slots, alphabet = "syllables", "signs", SLOTS, False
    added_known_units = (NULL_ONSET,)
    stem_length_unit, stem_length_note = "units with null onsets", " (null onsets counted: signs = syllables)"

    def stem_dp_units(self, units: Sequence[str]) -> tuple[str, ...]:
        return syllabify(units)

    def stem_length_range(self, config) -> tuple[int, int]:
        return max(1, SLOTS * config.min_span - config.band), SLOTS * config.max_span + config.band

    def band_for(self, m: int, n_signs: int, config) -> int | None:
        # |m - 2n| <= band and 2 min_span - band <= m <= 2 max_span + band
        return max(abs(m - SLOTS * n_signs), SLOTS * config.min_span - m, m - SLOTS * config.max_span, 0)

    def dp_windows(self, windows: torch.Tensor, lengths):
        # each sign is two slots of the DP table (engine/model/syllable_mapping.py); spans stay
        # counted in signs outside the DP
        return slot_windows(windows), [self.dp_length(n) for n in lengths]

    def pin_sounds(self, pin: PinnedValue) -> tuple[str, ...]:
        """A syllable's onset and vowel (``ka``, ``a``, ``k-``, ``-a``; a bare vowel's onset is
        NULL_ONSET)."""
        value = parse_syllable_value(pin.known_ipa, source=f"pinned value of {pin.lost!r}")
        return tuple(u for u in (value.onset, value.vowel) if u is not None)

    def pin_columns(self, pin: PinnedValue, lost: int) -> list[tuple[str, int]]:
        # the DP table's columns: sign l's onset slot is 2l - 1, its vowel slot 2l
        value = parse_syllable_value(pin.known_ipa, source=f"pinned value of {pin.lost!r}")
        return [(unit, col) for unit, col in ((value.onset, SLOTS * lost - 1), (value.vowel, SLOTS * lost))
                if unit is not None]

    def onset_phase(self, config, step: int) -> bool:
        return step < round(config.onsets_first * config.anneal_steps)

    def joint_vowels(self, config) -> bool:
        return config.vowel_slot == "joint"

    def pair_insertion_cost(self, gamma: float, config) -> float | None:
        # one unit writing a sign's onset and vowel slots: a coda with a sign of its own (Linear B's
        # ko-no-so), whose vowel the table already prices (setting echo_vowel_p)
        return None if config.coda_insertion == 1 else gamma * config.coda_insertion

    def make_mapping(self, prep, config) -> nn.Module:
        counts: dict[str, int] = {}
        for e in prep.entries:
            for u in e.units:
                counts[u] = counts.get(u, 0) + 1
        signs: dict[str, int] = {}
        for ch in prep.chunks:
            for c in ch.letters:
                signs[c] = signs.get(c, 0) + 1
        return SyllableMapping(prep.lost_letters, prep.known_units, config, counts, signs, prep.vowel_pairs,
                               syllable_counts(e.units for e in prep.entries))

    def syllable_table(self, model: nn.Module) -> SyllableTable:
        return model.syllable_table()

    def snapshot(self, model: nn.Module, prep) -> MappingSnapshot:
        lost, known = tuple(prep.lost_letters), tuple(prep.known_units)
        return MappingSnapshot(lost, known, model.sound_given_sign().cpu().numpy(), model.syllable_table())


LETTERS = Letters()
SYLLABLES = Syllables()
SCRIPTS: dict[str, Script] = {s.name: s for s in (LETTERS, SYLLABLES)}
"""The script of each value of the setting ``signs``."""


def script_of(config) -> Script:
    """The script the settings ask for (setting ``signs``)."""
    return SCRIPTS[config.signs]


def reachable(n_signs: int, units: Sequence[str], config) -> bool:
    """:meth:`Script.reachable` of the script ``config`` asks for."""
    return script_of(config).reachable(n_signs, units, config)
