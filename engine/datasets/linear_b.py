"""The standard values of the Linear B signs (resources/linear_b/standard-values.csv, Ventris &
Chadwick's conventions; its README gives the source and the choices) and how many of them a
syllable model's learned grid got right.

``standard_values()`` is the parsed table (cached; re-read when the file changes), sign -> value.
``count_standard(best)`` takes what a run learned, sign -> (top-1 onset, top-1 vowel) in the known
language's IPA, and says how many of the signs with a standard value got both right: the onset is
right when it is one of the sounds alphabetic Greek (as the ``greek`` transcription table writes it)
uses for that onset, the vowel likewise.
"""

from __future__ import annotations

import csv
import io
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from engine.errors import InputError
from engine.io.linear_b import BY_SIGN
from engine.io.tables import read_text
from engine.model.phonology import ipa_units
from engine.model.syllables import NULL_ONSET
from engine.resources import resource

STANDARD_VALUES = resource("linear_b", "standard-values.csv")
COLUMNS = ("sign", "bennett", "transliteration", "onset", "vowel", "greek_onsets", "greek_vowels")


@dataclass(frozen=True)
class StandardValue:
    """One sign's conventional value and the Greek sounds that count as it."""

    sign: str
    bennett: str
    transliteration: str
    onset: str                      # IPA, one unit, or NULL_ONSET
    vowel: str                      # IPA, one unit
    greek_onsets: frozenset[str]
    greek_vowels: frozenset[str]

    def right(self, onset: str, vowel: str) -> bool:
        return onset in self.greek_onsets and vowel in self.greek_vowels


@dataclass(frozen=True)
class StandardCount:
    """How many signs with a standard value a run's top-1 onset and vowel got right."""

    right: int
    total: int                                   # signs of ``best`` that have a standard value
    wrong: tuple[tuple[str, str, str, str], ...]  # (sign, transliteration, onset got, vowel got)
    no_standard: tuple[str, ...]                 # signs of ``best`` without a standard value

    def summary(self) -> str:
        return f"{self.right} of {self.total} signs got their standard value (top-1 onset and vowel)"


def _unit(text: str, what: str, path, line: int) -> str:
    if text == NULL_ONSET:
        return text
    try:
        units = ipa_units(text)
    except Exception as e:          # PhonologyError / NotIPAError: said in one line
        raise InputError(f"{what} {text!r} is not IPA: {e}", path=path, line=line) from None
    if units != (text,):
        raise InputError(f"{what} {text!r} must be one IPA unit (or {NULL_ONSET})", path=path, line=line)
    return text


def parse_standard_values(text: str, *, path: str | Path | None = None) -> dict[str, StandardValue]:
    """The table from its CSV text; every problem is one InputError naming the file and line."""
    rows = csv.reader(io.StringIO(text))
    header = next(rows, None)
    if header is None or tuple(h.strip() for h in header) != COLUMNS:
        raise InputError(f"the header must be {','.join(COLUMNS)}", path=path, line=1)
    out: dict[str, StandardValue] = {}
    for line, cells in enumerate(rows, start=2):
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(COLUMNS):
            raise InputError(f"{len(cells)} fields, the header has {len(COLUMNS)}", path=path, line=line)
        sign, bennett, translit, onset, vowel, g_onsets, g_vowels = (c.strip() for c in cells)
        known = BY_SIGN.get(sign)
        if known is None or not known.value:
            raise InputError(f"{sign!r} is not a Linear B sign with a value (U+10000–1007F)", path=path, line=line)
        if (bennett, translit) != (known.bennett, known.value):
            raise InputError(f"{sign!r} is {known.bennett} {known.value} by its Unicode name, not "
                             f"{bennett} {translit}", path=path, line=line)
        if sign in out:
            raise InputError(f"{sign!r} ({translit}) is listed twice", path=path, line=line)
        sets = []
        for what, cell in (("greek_onsets", g_onsets), ("greek_vowels", g_vowels)):
            units = cell.split()
            if not units:
                raise InputError(f"{what} of {translit!r} is empty", path=path, line=line)
            sets.append(frozenset(_unit(u, what, path, line) for u in units))
        out[sign] = StandardValue(sign, bennett, translit, _unit(onset, "onset", path, line),
                                  _unit(vowel, "vowel", path, line), sets[0], sets[1])
    if not out:
        raise InputError("no signs", path=path)
    return out


_cache: dict[Path, tuple[float, int, dict[str, StandardValue]]] = {}
_lock = threading.Lock()


def standard_values(path: str | Path | None = None) -> dict[str, StandardValue]:
    """The standard values, sign -> :class:`StandardValue` (the bundled table unless ``path``);
    parsed once and re-read when the file changes."""
    path = Path(path) if path is not None else Path(STANDARD_VALUES)
    try:
        stat = path.stat()
    except OSError:
        raise InputError("file not found", path=path) from None
    key = (stat.st_mtime, stat.st_size)
    with _lock:
        hit = _cache.get(path)
        if hit is not None and hit[:2] == key:
            return dict(hit[2])
    values = parse_standard_values(read_text(path), path=path)
    with _lock:
        _cache[path] = (*key, values)
    return dict(values)


def count_standard(best: Mapping[str, tuple[str, str]], *,
                   values: Mapping[str, StandardValue] | None = None) -> StandardCount:
    """How many of the signs of ``best`` (sign -> (top-1 onset, top-1 vowel)) that have a standard
    value got both right, and which did not (in Unicode order)."""
    values = standard_values() if values is None else values
    right, wrong, none = 0, [], []
    for sign in sorted(best):
        onset, vowel = best[sign]
        standard = values.get(sign)
        if standard is None:
            none.append(sign)
        elif standard.right(onset, vowel):
            right += 1
        else:
            wrong.append((sign, standard.transliteration, onset, vowel))
    return StandardCount(right, right + len(wrong), tuple(wrong), tuple(none))


__all__ = ["COLUMNS", "STANDARD_VALUES", "StandardCount", "StandardValue", "count_standard",
           "parse_standard_values", "standard_values"]
