"""Signs that write syllables (setting ``signs = syllables``): what a sign's value is, how a known
stem is laid out for the alignment (:func:`syllabify`; which stem and span lengths can meet is the
run's script's, engine/model/script.py), and the pins a philologist writes for a syllabary
(``ka``, ``a``, ``k-``, ``-a``).

The model (engine/model/syllable_mapping.py) gives every sign an onset distribution (the consonants
of the known language and "no onset") and a vowel distribution. For the edit DP each sign is read
as two slots, onset then vowel, and every vowel of a known stem that no consonant precedes gets a
null onset unit in front of it (``∅``), so that a sign worth a bare vowel aligns like any other:
its onset slot takes the null onset, its vowel slot the vowel. Spelling that leaves sounds out
(an unwritten coda, a vowel written but not spoken) is left to the DP's deletions and insertions,
as in the paper's model. docs/deviations-from-paper.md ("Syllabic scripts") has the design.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from engine.errors import InputError
from engine.model.phonology import DELETE, ipa_units, unit_features

NULL_ONSET = "∅"
"""The known-side unit written before a vowel that no consonant precedes: a syllable without onset."""

SLOTS = 2
"""A sign is read as this many slots by the edit DP (onset, vowel)."""


def is_vowel(unit: str) -> bool:
    return unit != DELETE and unit != NULL_ONSET and unit_features(unit).ptype == "vowel"


def syllabify(units: Sequence[str]) -> tuple[str, ...]:
    """``units`` with NULL_ONSET before every vowel that does not follow a consonant."""
    out: list[str] = []
    prev_consonant = False
    for u in units:
        v = is_vowel(u)
        if v and not prev_consonant:
            out.append(NULL_ONSET)
        out.append(u)
        prev_consonant = not v
    return tuple(out)


def syllable_counts(stems: Iterable[Sequence[str]]) -> dict[tuple[str, str], int]:
    """How often each syllable (onset, vowel) stands in ``stems`` (each a sequence of IPA units): every vowel
    of the syllabified stem (:func:`syllabify`) with the unit before it, a consonant or NULL_ONSET."""
    counts: dict[tuple[str, str], int] = {}
    for units in stems:
        syllables = syllabify(units)
        for onset, nucleus in zip(syllables, syllables[1:]):
            if is_vowel(nucleus) and not is_vowel(onset):
                counts[onset, nucleus] = counts.get((onset, nucleus), 0) + 1
    return counts


# --------------------------------------------------------------------------------------------
# pins of a syllabary


@dataclass(frozen=True)
class SyllableValue:
    """A pinned value of a sign: ``onset`` (a consonant, NULL_ONSET for "no onset", or None: not
    pinned) and ``vowel`` (a vowel, or None: not pinned)."""

    onset: str | None
    vowel: str | None

    def text(self) -> str:
        """As a philologist writes it: ``ka``, ``a``, ``k-``, ``-a``."""
        if self.onset is None:
            return f"-{self.vowel}"
        if self.vowel is None:
            return f"{self.onset}-"
        return self.vowel if self.onset == NULL_ONSET else f"{self.onset}{self.vowel}"


def looks_syllabic(text: str) -> bool:
    """Whether a pinned value is written as a syllable or a part of one (``ka``, ``k-``, ``-a``)
    rather than as one sound (``a`` and ``k`` are one sound)."""
    t = text.strip()
    if t.endswith("-") or t.startswith("-"):
        return True
    try:
        return len(ipa_units(t)) == 2
    except Exception:  # noqa: BLE001 - not IPA at all: the letter reader says why
        return False


def parse_syllable_value(text: str, *, source: str = "pinned value") -> SyllableValue:
    """``ka`` (onset and vowel), ``a`` (a bare vowel: no onset), ``k-`` (the onset only) or ``-a``
    (the vowel only). Raises InputError naming the problem otherwise."""
    t = text.strip()
    onset_only, vowel_only = t.endswith("-"), t.startswith("-")
    core = t.strip("-")
    if not core or (onset_only and vowel_only):
        raise InputError(f"{source} {text!r}: write a syllable (ka), a vowel (a), an onset (k-) or a vowel "
                         f"alone (-a)")
    units = ipa_units(core, source=source)
    kinds = ["vowel" if is_vowel(u) else "consonant" for u in units]
    if onset_only:
        if kinds != ["consonant"]:
            raise InputError(f"{source} {text!r}: an onset pin (k-) names one consonant")
        return SyllableValue(units[0], None)
    if vowel_only:
        if kinds != ["vowel"]:
            raise InputError(f"{source} {text!r}: a vowel pin (-a) names one vowel")
        return SyllableValue(None, units[0])
    if kinds == ["vowel"]:
        return SyllableValue(NULL_ONSET, units[0])
    if kinds == ["consonant", "vowel"]:
        return SyllableValue(units[0], units[1])
    if kinds == ["consonant"]:
        raise InputError(f"{source} {text!r}: a sign writes a syllable; write {units[0]}- for the onset "
                         f"alone or a whole syllable such as {units[0]}a")
    raise InputError(f"{source} {text!r}: a sign's value is an optional consonant and one vowel "
                     f"(ka, a, k-, -a), got {' '.join(units)}")
