"""The data model: inscriptions of the lost language, stems of a known language, gold and pins.

Values are frozen dataclasses so they can cross threads and files safely.
Offsets into an inscription count *transliteration units* of its normalised text: a letter with
its combining marks is one unit, and a written word divider (a space) is one unit too.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

DIVIDER = " "

#: The largest weight a pinned value may have (PRIOR.csv ``weight``; any finite number above 0
#: up to this). The loss multiplies it by ``pin_weight``; far larger values swamp the other terms.
PIN_WEIGHT_MAX = 1000.0


def nfc(text: str) -> str:
    """``text`` in Unicode normal form C (returned as is when it already is)."""
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def _nfc_fields(value: object, names: Sequence[str]) -> None:
    """NFC every text field of a frozen dataclass instance (the root of "text is NFC everywhere":
    every reader, the project store and the GUI build their values through these constructors)."""
    for name in names:
        v = getattr(value, name)
        if isinstance(v, str):
            if not unicodedata.is_normalized("NFC", v):
                object.__setattr__(value, name, unicodedata.normalize("NFC", v))
        elif isinstance(v, tuple):
            if not all(unicodedata.is_normalized("NFC", x) for x in v if isinstance(x, str)):
                object.__setattr__(value, name, tuple(nfc(x) if isinstance(x, str) else x for x in v))
        elif isinstance(v, Mapping):
            if not all(isinstance(k, str) and isinstance(x, str) and unicodedata.is_normalized("NFC", k)
                       and unicodedata.is_normalized("NFC", x) for k, x in v.items()):
                object.__setattr__(value, name, {nfc(k) if isinstance(k, str) else k:
                                                 nfc(x) if isinstance(x, str) else x
                                                 for k, x in v.items()})


def normalise_text(text: str) -> str:
    """NFC, with any run of whitespace turned into a single divider and the ends stripped."""
    text = unicodedata.normalize("NFC", text)
    return DIVIDER.join(text.split())


def split_units(text: str) -> tuple[str, ...]:
    """Split normalised text into transliteration units (base letter + combining marks)."""
    units: list[str] = []
    for ch in text:
        if units and unicodedata.combining(ch) and units[-1] != DIVIDER:
            units[-1] += ch
        else:
            units.append(ch)
    return tuple(units)


@dataclass(frozen=True)
class Inscription:
    """One inscription (or text chunk) of the lost language.

    ``text`` is what the model sees: NFC, spaces mark word dividers the scribe wrote.
    ``raw`` keeps the text as imported (diplomatic layer), ``meta`` holds reference, site, object…
    """

    id: str
    text: str
    raw: str | None = None
    meta: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _nfc_fields(self, ("id", "text", "raw", "meta"))

    @property
    def units(self) -> tuple[str, ...]:
        return split_units(self.text)

    def segments(self) -> list[tuple[int, tuple[str, ...]]]:
        """The runs of units between written dividers, each with its start offset."""
        out: list[tuple[int, tuple[str, ...]]] = []
        start = 0
        run: list[str] = []
        for i, u in enumerate(self.units):
            if u == DIVIDER:
                if run:
                    out.append((start, tuple(run)))
                run = []
                start = i + 1
            else:
                if not run:
                    start = i
                run.append(u)
        if run:
            out.append((start, tuple(run)))
        return out


@dataclass(frozen=True)
class Stem:
    """A stem of the known language: its written form, IPA and (optionally) a gloss."""

    form: str
    ipa: str
    gloss: str = ""
    source: str = ""

    def __post_init__(self) -> None:
        _nfc_fields(self, ("form", "ipa", "gloss", "source"))


@dataclass(frozen=True)
class GoldAnnotation:
    """A lost word whose stem is known: it starts at ``start``, the word ends at ``word_end``
    (exclusive) and any of the ``known`` forms is an acceptable match."""

    inscription_id: str
    start: int
    word_end: int
    known: tuple[str, ...]

    def __post_init__(self) -> None:
        _nfc_fields(self, ("inscription_id", "known"))


@dataclass(frozen=True)
class PinnedValue:
    """A sound value a user pins for a lost letter: P(lost | known_ipa) is pulled toward it.

    ``locked`` pins are kept as they are across runs; soft ones are suggestions the user may revise.
    """

    lost: str
    known_ipa: str
    weight: float = 1.0
    locked: bool = True
    note: str = ""

    def __post_init__(self) -> None:
        _nfc_fields(self, ("lost", "known_ipa", "note"))


@dataclass(frozen=True)
class Corpus:
    """A lost-language corpus: its inscriptions in order."""

    name: str
    inscriptions: tuple[Inscription, ...]

    def __post_init__(self) -> None:
        _nfc_fields(self, ("name",))

    def by_id(self) -> dict[str, Inscription]:
        return {ins.id: ins for ins in self.inscriptions}

    def lost_alphabet(self) -> list[str]:
        """Every unit used in the corpus (dividers excluded), sorted."""
        return sorted({u for ins in self.inscriptions for u in ins.units if u != DIVIDER})


@dataclass(frozen=True)
class Vocabulary:
    """The stems of one known language."""

    language: str
    stems: tuple[Stem, ...]

    def __post_init__(self) -> None:
        _nfc_fields(self, ("language",))

    def forms(self) -> set[str]:
        return {s.form for s in self.stems}


def make_corpus(name: str, inscriptions: Iterable[Inscription]) -> Corpus:
    return Corpus(name, tuple(inscriptions))


def make_vocabulary(language: str, stems: Sequence[Stem]) -> Vocabulary:
    return Vocabulary(language, tuple(stems))
