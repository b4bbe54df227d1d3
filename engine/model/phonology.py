"""IPA strings -> units (a segment with its diacritics) -> the 7 ipapy feature groups.

Unitisation rules (see docs/formats.md, "IPA units"):
- input is NFD-normalised (so ``ẽ`` is ``e`` + combining tilde), except that ``ç`` stays one symbol;
- ASCII ``g`` (U+0067) is read as IPA ``ɡ`` (U+0261); ``:`` is read as the length mark ``ː``;
- a unit is one consonant or vowel plus the diacritics, modifier letters and tones after it;
- the length marks ``ː ˑ`` are dropped (the paper merges long and short vowels), as are stress
  marks ``ˈ ˌ``, the syllable break ``.`` and the linking mark ``‿``;
- a tie bar (U+0361 or U+035C) joins two consonants into one unit (``t͡s``), except for the
  doubly-articulated stops ``n͡m d͡b k͡p t͡p`` which are split as in the authors' code;
- a combining mark is kept in its unit only when the feature table knows it as an IPA diacritic,
  suprasegmental or tone; any other mark (the dot below of ``ḥ``, the macron below of ``ṯ``) is an
  error, never dropped;
- a letter of a scholarly transliteration (``ḥ ṭ ṯ š ś ʾ ʿ ḏ ẓ ġ ḫ ṣ`` …, see ``TRANSLITERATION``)
  is an error that names the IPA it most likely stands for, even where ipapy would read its mark
  as a tone (``š``, ``ś``);
- any other symbol is an error that names the symbol, the word and where it came from.
"""

from __future__ import annotations

import collections
import collections.abc
import functools
import unicodedata
from dataclasses import dataclass

# ipapy 0.0.9 still imports old collections names in some modules; make them available
# before importing it so any of its modules load on Python 3.10+.
for _name in ("MutableSequence", "MutableMapping", "Sequence", "Mapping"):
    if not hasattr(collections, _name):
        setattr(collections, _name, getattr(collections.abc, _name))

import ipapy  # noqa: E402
from ipapy.ipachar import (  # noqa: E402
    DG_C_MANNER,
    DG_C_PLACE,
    DG_C_VOICING,
    DG_V_BACKNESS,
    DG_V_HEIGHT,
    DG_V_ROUNDNESS,
)

from engine.errors import InputError, PhonologyError  # noqa: E402

NONE = "none"
TIE_BARS = ("\u0361", "\u035c")
DROPPED = {"ː", "ˑ", "ˈ", "ˌ", ".", "‿", "\u02d0"}
ALWAYS_SPLIT = frozenset({"n͡m", "d͡b", "k͡p", "t͡p"})
DELETE = "<DEL>"


#: Letters of the scholarly transliterations (Semitic, Arabic, Egyptological) that are not IPA,
#: with the IPA each most likely stands for (NFC keys; capitals are added below). The values are
#: those of resources/transcription/semitic-translit.tsv.
TRANSLITERATION: dict[str, str] = {
    "ʾ": "ʔ", "ʿ": "ʕ", "ḥ": "ħ", "ḫ": "χ", "ẖ": "x", "ṭ": "tˤ", "ṯ": "θ", "ḏ": "ð", "ḍ": "dˤ",
    "ẓ": "ðˤ", "ṣ": "sˤ", "ś": "ɬ", "š": "ʃ", "ž": "ʒ", "č": "t͡ʃ", "ǧ": "d͡ʒ", "ġ": "ɣ", "ḳ": "q",
    "ḇ": "v", "ḡ": "ɣ", "ḵ": "x",
}
TRANSLITERATION.update({k.upper(): v for k, v in list(TRANSLITERATION.items()) if k.upper() != k})


class NotIPAError(PhonologyError):
    """An IPA string holds a letter of a transliteration, or a combining mark the feature table
    does not know: the message names the letter and, when one is known, the IPA it stands for."""

    def __init__(self, symbol: str, word: str, problem: str, *, source: str | None = None,
                 path=None, line: int | None = None, letters: tuple[str, ...] = ()):
        #: the transliteration letters the message already names (NFC)
        self.letters = letters
        self.symbol = symbol
        self.word = word
        self.source = source
        InputError.__init__(self, problem, path=path, line=line)


def transliteration_letters(ipa: str) -> list[str]:
    """The transliteration letters of ``ipa`` (NFC), in order, each once."""
    s = unicodedata.normalize("NFC", ipa)
    return list(dict.fromkeys(ch for ch in s if ch in TRANSLITERATION))


def suggest_ipa(text: str) -> str:
    """``text`` with every transliteration letter replaced by its likely IPA, as space-separated
    units (``ḥṭ`` -> ``ħ tˤ``); letters that are not transliteration letters are kept."""
    s = unicodedata.normalize("NFC", text)
    units: list[str] = []
    for ch in s:
        if ch.isspace():
            continue
        if ch in TRANSLITERATION:
            units.append(TRANSLITERATION[ch])
        elif units and unicodedata.combining(ch):
            units[-1] += ch
        else:
            units.append(ch)
    return " ".join(units)


def _not_ipa_problem(ipa: str, source: str | None) -> tuple[str, str, tuple[str, ...]] | None:
    letters = transliteration_letters(ipa)
    if not letters:
        return None
    origin = f" (from {source})" if source else ""
    each = ", ".join(f"{ch!r} -> {TRANSLITERATION[ch]}" for ch in letters)
    word = "letter" if len(letters) == 1 else "letters"
    # --system reads a known vocabulary's forms (KNOWN's ipa column, a word list, CLDF forms); a pin
    # is one IPA value, which no option transcribes: the hint is only given where it works
    read = "" if (source or "").startswith("pinned value") else ", or read the forms with --system semitic-translit"
    problem = (f"{ipa!r}{origin} is written in a transliteration, not in IPA: the {word} {each}; "
               f"the IPA most likely is {suggest_ipa(ipa)} (write that{read})")
    return unicodedata.normalize("NFD", letters[0]), problem, tuple(letters)


def _mark_problem(ipa: str, mark: str, base: str, source: str | None) -> str:
    origin = f" (from {source})" if source else ""
    name = unicodedata.name(mark, "")
    shown = unicodedata.normalize("NFC", base + mark) if base else mark
    return (f"unknown IPA symbol {mark!r} (U+{ord(mark):04X}{' ' + name if name else ''}) on "
            f"{shown!r} in {ipa!r}{origin}: the feature table has no such diacritic and would drop "
            "it; write the IPA the letter stands for")


def _labels(group) -> list[str]:
    return [d.canonical_label for d in group.descriptors]


#: The 7 feature groups and their values; index 0 of every group but ptype is "none".
FEATURE_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ptype", ("consonant", "vowel")),
    ("c_voicing", (NONE, *_labels(DG_C_VOICING))),
    ("c_place", (NONE, *_labels(DG_C_PLACE))),
    ("c_manner", (NONE, *_labels(DG_C_MANNER))),
    ("v_height", (NONE, *_labels(DG_V_HEIGHT))),
    ("v_backness", (NONE, *_labels(DG_V_BACKNESS))),
    ("v_roundness", (NONE, *_labels(DG_V_ROUNDNESS))),
)
GROUP_NAMES = tuple(name for name, _ in FEATURE_GROUPS)
GROUP_SIZES = tuple(len(values) for _, values in FEATURE_GROUPS)
_INDEX = {name: {v: i for i, v in enumerate(values)} for name, values in FEATURE_GROUPS}


#: The 8th feature group of setting feature_modifiers: "none", then every IPA diacritic, suprasegmental
#: and tone ipapy knows that can stay in a unit (not the dropped length and stress marks, nor a tie bar).
MODIFIERS: tuple[str, ...] = (NONE, *sorted(
    ch for ch, c in ipapy.UNICODE_TO_IPA.items()
    if len(ch) == 1 and (c.is_diacritic or c.is_suprasegmental or c.is_tone)
    and not ch.isspace() and ch not in DROPPED and ch not in TIE_BARS and ch not in ".|"))
_MODIFIER_INDEX = {m: i for i, m in enumerate(MODIFIERS)}


@functools.lru_cache(maxsize=10_000)
def unit_modifier(unit: str) -> int:
    """The index in MODIFIERS of a unit's first diacritic or modifier letter (0 for none): what the 8th
    feature group (setting feature_modifiers) tells apart where the 7 groups cannot (k, kʰ, kʷ)."""
    if unit == DELETE:
        return 0
    return next((_MODIFIER_INDEX[c] for c in _prepare(unit) if c in _MODIFIER_INDEX), 0)


@dataclass(frozen=True)
class Features:
    """The 7 feature values of one IPA unit."""

    ptype: str
    c_voicing: str = NONE
    c_place: str = NONE
    c_manner: str = NONE
    v_height: str = NONE
    v_backness: str = NONE
    v_roundness: str = NONE

    def indices(self) -> tuple[int, ...]:
        return tuple(_INDEX[g][getattr(self, g)] for g in GROUP_NAMES)

    def describe(self) -> str:
        vals = [getattr(self, g) for g in GROUP_NAMES[1:] if getattr(self, g) != NONE]
        return " ".join(vals + [self.ptype])


#: Features of the known-side deletion pseudo-unit: an all-zero row (consonant, no values).
DELETE_FEATURES = Features("consonant")


def _ipa_char(symbol: str):
    return ipapy.UNICODE_TO_IPA.get(symbol)


def _is_modifier(ch: str) -> bool:
    c = _ipa_char(ch)
    return c is not None and (c.is_diacritic or c.is_suprasegmental or c.is_tone)


def _is_segment(symbol: str) -> bool:
    c = _ipa_char(symbol)
    return c is not None and (c.is_consonant or c.is_vowel)


def _prepare(ipa: str) -> str:
    s = unicodedata.normalize("NFD", ipa).replace("c\u0327", "ç")
    return s.replace("g", "ɡ").replace(":", "ː")


@functools.lru_cache(maxsize=200_000)
def _units_cached(ipa: str, split: frozenset[str]) -> tuple[str, ...] | tuple[int, str]:
    s = _prepare(ipa)
    units: list[str] = []
    join_next = False
    for ch in s:
        if ch in DROPPED or ch.isspace():
            continue
        if ch in TIE_BARS:
            if not units:
                return (-1, ch)
            join_next = True
            continue
        if join_next:
            join_next = False
            pair = units[-1] + "\u0361" + ch
            if pair in split or not _is_segment(ch):
                if not _is_segment(ch):
                    return (-1, ch)
                units.append(ch)
            else:
                units[-1] = pair
            continue
        if _is_segment(ch):
            units.append(ch)
        elif _is_modifier(ch) and units:
            units[-1] += ch
        elif unicodedata.combining(ch) and units:
            return (-2, ch)           # a mark the feature table does not know: never dropped
        else:
            return (-1, ch)
    return tuple(unicodedata.normalize("NFC", u) for u in units)


#: what may betray a transliteration letter in a string that unitises without an error (š = s +
#: caron, ś = s + acute: ipapy reads those marks as tones): the letters and their marks
_TONE_TRANSLIT = frozenset(
    {ch for ch in TRANSLITERATION}
    | {unicodedata.normalize("NFD", ch)[-1] for ch in TRANSLITERATION
       if len(unicodedata.normalize("NFD", ch)) > 1})


@functools.lru_cache(maxsize=200_000)
def _has_transliteration(ipa: str) -> bool:
    return any(ch in _TONE_TRANSLIT for ch in ipa) and bool(transliteration_letters(ipa))


def ipa_units(ipa: str, *, source: str | None = None, split: frozenset[str] = ALWAYS_SPLIT,
              path=None, line: int | None = None) -> tuple[str, ...]:
    """Split an IPA string into units; raise PhonologyError naming any unknown symbol."""
    out = _units_cached(ipa, split)
    if out and out[0] in (-1, -2):
        found = _not_ipa_problem(ipa, source)
        if found is not None:
            raise NotIPAError(found[0], ipa, found[1], source=source, path=path, line=line,
                              letters=found[2])
        if out[0] == -2:
            s = _prepare(ipa)
            at = s.index(str(out[1]))
            base = next((c for c in reversed(s[:at]) if not unicodedata.combining(c)), "")
            raise NotIPAError(str(out[1]), ipa, _mark_problem(ipa, str(out[1]), base, source),
                              source=source, path=path, line=line)
        raise PhonologyError(str(out[1]), ipa, source=source, path=path, line=line)
    found = _not_ipa_problem(ipa, source) if _has_transliteration(ipa) else None
    if found is not None:     # š, ś: ipapy would read the mark as a tone
        raise NotIPAError(found[0], ipa, found[1], source=source, path=path, line=line,
                          letters=found[2])
    return out  # type: ignore[return-value]


@functools.lru_cache(maxsize=10_000)
def unit_features(unit: str) -> Features:
    """The 7 feature values of a unit: for each group the first non-none value among its symbols."""
    if unit == DELETE:
        return DELETE_FEATURES
    s = _prepare(unit)
    head = None
    for tie in TIE_BARS:
        if tie in s:
            bases = [c for c in s if _is_segment(c) or c in TIE_BARS]
            head = _ipa_char("".join(bases[:3]).replace("\u035c", "\u0361"))
            break
    symbols = ([head] if head is not None else []) + [_ipa_char(c) for c in s]
    symbols = [c for c in symbols if c is not None]
    segs = [c for c in symbols if c.is_consonant or c.is_vowel]
    if not segs:
        raise PhonologyError(unit, unit, source="feature lookup")
    first = segs[0]
    values = {"ptype": "vowel" if first.is_vowel else "consonant"}
    for c in segs:
        if c.is_consonant and first.is_consonant:
            for g, attr in (("c_voicing", "voicing"), ("c_place", "place"), ("c_manner", "manner")):
                v = getattr(c, attr, None)
                if v and g not in values and v in _INDEX[g]:
                    values[g] = v
        if c.is_vowel and first.is_vowel:
            for g, attr in (("v_height", "height"), ("v_backness", "backness"), ("v_roundness", "roundness")):
                v = getattr(c, attr, None)
                if v and g not in values and v in _INDEX[g]:
                    values[g] = v
    return Features(**values)


def known_segments() -> list[tuple[str, Features]]:
    """Every plain consonant and vowel ipapy knows, with its features (for an IPA picker)."""
    out = []
    seen = set()
    for sym, c in ipapy.UNICODE_TO_IPA.items():
        if (c.is_consonant or c.is_vowel) and len(sym) == 1 and sym not in seen:
            seen.add(sym)
            out.append((sym, unit_features(sym)))
    return sorted(out, key=lambda t: (t[1].ptype, t[0]))
