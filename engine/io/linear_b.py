"""The conventional transliteration of Linear B (``a-e-ri-qo-ta``) read into the Unicode signs and
written back.

The table is derived from the Unicode character names of the Linear B Syllabary block
(U+10000–1007F): ``LINEAR B SYLLABLE B008 A`` is the sign with Bennett number 8 and the value
``a``; numbered homophones carry their digit (``B025 A2`` is ``a2``). The block's
``LINEAR B SYMBOL B018`` … ``B089`` (14 signs) have no agreed value; the transliteration writes
them with an asterisk and their number (``*18``, ``*56``), and so does this module.

Reading (:func:`to_signs`): the signs of a word are joined by hyphens, words are separated by
spaces, the word divider ``,`` or ``|``, or the Aegean word separators U+10100/10101; upper and
lower case are the same; ``*NN`` is the sign numbered NN. Leiden brackets (``[ ] ⟨ ⟩ { }``) stand
where they are, and a dot below a syllable (``ạ``, an uncertain reading) goes onto its sign, so the
LOST reader's Leiden markup (engine/io/text.py) applies to the signs as to any other letters. Anything
else is refused with one line naming the syllable; nothing is guessed.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from engine.corpus import DIVIDER, normalise_text
from engine.errors import InputError

BLOCK = range(0x10000, 0x10080)
DOT_BELOW = "\u0323"
HYPHEN = "-"


@dataclass(frozen=True)
class LinearBSign:
    """One sign of the Unicode block: the character, its Bennett number (``B008``) and its
    conventional value (``a``; ``""`` for the signs without one)."""

    sign: str
    bennett: str
    value: str

    @property
    def number(self) -> int:
        return int(self.bennett[1:])

    @property
    def transliteration(self) -> str:
        """As the transliteration writes it: the value, or ``*`` and the number (``*18``)."""
        return self.value or f"*{self.number}"


def _signs_of_the_block() -> tuple[LinearBSign, ...]:
    out = []
    for code in BLOCK:
        name = unicodedata.name(chr(code), "")
        parts = name.split()
        # "LINEAR B SYLLABLE B008 A" or "LINEAR B SYMBOL B018"
        if parts[:2] != ["LINEAR", "B"] or not re.fullmatch(r"B\d{3}", parts[3] if len(parts) > 3 else ""):
            continue
        if parts[2] == "SYLLABLE" and len(parts) == 5:
            out.append(LinearBSign(chr(code), parts[3], parts[4].lower()))
        elif parts[2] == "SYMBOL" and len(parts) == 4:
            out.append(LinearBSign(chr(code), parts[3], ""))
    return tuple(out)


SIGNS: tuple[LinearBSign, ...] = _signs_of_the_block()
#: the signs with a conventional value, in block order
VALUED: tuple[LinearBSign, ...] = tuple(s for s in SIGNS if s.value)
#: the signs the Unicode names give no value (B018, B019, B022 …)
UNVALUED: tuple[LinearBSign, ...] = tuple(s for s in SIGNS if not s.value)
BY_SIGN: dict[str, LinearBSign] = {s.sign: s for s in SIGNS}
#: transliteration (``a``, ``ra3``, ``*18``) → sign; ``*NN`` works for the valued signs too
TO_SIGN: dict[str, str] = {**{f"*{s.number}": s.sign for s in SIGNS}, **{s.value: s.sign for s in VALUED}}
#: sign → transliteration
TO_TRANSLITERATION: dict[str, str] = {s.sign: s.transliteration for s in SIGNS}

_SYLLABLE = re.compile(r"\*?[0-9a-z]+")


def _unknown(syllable: str, word: str, path, line) -> InputError:
    examples = "a, e, da, qo, a2, ra3, *18"
    return InputError(f"unknown Linear B syllable {syllable!r} in {word!r} (the conventional transliteration "
                      f"joins signs with hyphens: {examples}; {len(VALUED)} values and "
                      f"{len(UNVALUED)} numbered signs are known)", path=path, line=line)


def _sign_of(syllable: str, word: str, path, line) -> str:
    decomposed = unicodedata.normalize("NFD", syllable)
    dotted = DOT_BELOW in decomposed
    bare = decomposed.replace(DOT_BELOW, "")
    key = bare.lower()
    if key.startswith("*") and key[1:].isdigit():
        key = f"*{int(key[1:])}"   # *018 = *18
    sign = TO_SIGN.get(key) if _SYLLABLE.fullmatch(key) else None
    if sign is None:
        raise _unknown(syllable, word, path, line)
    return sign + DOT_BELOW if dotted else sign


_TOKEN = re.compile(r"(?P<div>[\s,|\U00010100\U00010101]+)|(?P<hyphen>-)|(?P<bracket>[\[\]{}\u27e8\u27e9\u3008\u3009])"
                    r"|(?P<dots>[.\u2026]+)|(?P<syl>\*\d+|[^\W_]+)")


def to_signs(text: str, *, path: str | Path | None = None, line: int | None = None) -> str:
    """``a-e-ri-qo-ta po-me`` → the Unicode signs, words separated by the engine's divider (NFC).
    Leiden brackets and dots (``[...]``, ``[ri]``, ``a-[...]``) stay where they are. An unknown
    syllable, a hyphen that does not stand between two signs (``a--e``, ``-a``) or any other
    character is an InputError naming it."""
    text = unicodedata.normalize("NFC", text)
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            ch = text[pos]
            raise InputError(f"{ch!r} (U+{ord(ch):04X}) in {_word_at(text, pos)!r} is not part of the Linear B "
                             "transliteration (syllables joined by hyphens, words separated by spaces or ',')",
                             path=path, line=line)
        tokens.append((m.lastgroup, m.group()))
        pos = m.end()
    out: list[str] = []
    for i, (kind, value) in enumerate(tokens):
        if kind == "syl":
            out.append(_sign_of(value, _word_at(text, _offset(tokens, i)), path, line))
        elif kind == "hyphen":
            if not (_neighbour(tokens, i, -1) and _neighbour(tokens, i, +1)):
                raise InputError(f"a hyphen in {_word_at(text, _offset(tokens, i))!r} does not stand between "
                                 "two signs", path=path, line=line)
        elif kind == "div":
            out.append(DIVIDER)
        else:
            out.append(value)
    return normalise_text("".join(out))


def _neighbour(tokens, i: int, step: int) -> bool:
    """Whether a syllable (or the dots of a lacuna) stands next to token ``i``, brackets skipped."""
    j = i + step
    while 0 <= j < len(tokens) and tokens[j][0] == "bracket":
        j += step
    return 0 <= j < len(tokens) and tokens[j][0] in ("syl", "dots")


def _offset(tokens, i: int) -> int:
    return sum(len(v) for _, v in tokens[:i])


def _word_at(text: str, pos: int) -> str:
    """The word of ``text`` around ``pos`` (for messages)."""
    start = pos
    while start > 0 and not (text[start - 1].isspace() or text[start - 1] in ",|"):
        start -= 1
    end = pos
    while end < len(text) and not (text[end].isspace() or text[end] in ",|"):
        end += 1
    return text[start:end] or text[pos:pos + 1]


def to_transliteration(signs: str, *, path: str | Path | None = None, line: int | None = None) -> str:
    """The Unicode signs (words separated by spaces) → ``a-e-ri-qo-ta po-me``. A character that is
    not a sign of the block is an InputError naming it."""
    words = []
    for word in unicodedata.normalize("NFC", signs).split():
        parts = []
        for ch in word:
            if ch not in TO_TRANSLITERATION:
                raise InputError(f"{ch!r} (U+{ord(ch):04X}) in {word!r} is not a sign of the Linear B "
                                 f"syllabary (U+10000–1007F)", path=path, line=line)
            parts.append(TO_TRANSLITERATION[ch])
        words.append(HYPHEN.join(parts))
    return " ".join(words)


#: The lost-side notations a LOST file's text column may be written in (``--lost-notation``):
#: "signs" = the characters as they are; "linear-b" = the transliteration read by :func:`to_signs`.
NOTATIONS = ("signs", "linear-b")


def lost_notation_reader(notation: str):
    """The reader of one text cell for a LOST file written in ``notation`` (None for "signs")."""
    if notation in (None, "", "signs"):
        return None
    if notation == "linear-b":
        return to_signs
    raise InputError(f"unknown lost notation {notation!r}: use one of {', '.join(NOTATIONS)}")


__all__ = ["BY_SIGN", "LinearBSign", "NOTATIONS", "SIGNS", "TO_SIGN", "TO_TRANSLITERATION", "UNVALUED",
           "VALUED", "lost_notation_reader", "to_signs", "to_transliteration"]
