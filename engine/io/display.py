"""Display tables: how a corpus's letters are shown to people, while the engine keeps its own.

A corpus's letters are what the data files hold (the Ugaritic data use an ASCII encoding: ``$``
for š, ``<`` for ʿ, ``@`` for ġ …). A display table maps each engine letter to the text shown in
every view and in export columns meant for people, and says the writing direction. Tables live in
the project's settings (``display.corpus.<id>``, JSON), so no schema change is needed.

Known languages have display tables too (``display.language.<id>``): a stem's form in the data
(``b<lk``) is shown as scholars write it (``bʿlk`` or ``בעלך``) in every view and export for people,
and exports keep the data's form in a column of its own.

Presets: the conventional Ugaritic transliteration, the Ugaritic script (U+10380–1039F), the
Gothic script (U+10330–1034F), the Hebrew of the same ASCII data in the standard (SBL-style)
transliteration or in Hebrew script with its final letter forms (right to left), Greek script
for a Latin transliteration of Greek, the Linear B syllabary for its transliterated syllables, and
the conventional transliteration of a corpus in Linear B signs (``a-e-ri-qo-ta``: the table's
``joiner`` puts the hyphen between two signs of a word when a run of signs is shown as text).
The Ugaritic letter values follow resources/transcription/semitic.tsv (Huehnergard 2012).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from engine.errors import InputError

SETTING_KEY = "display.corpus.{}"
DIRECTIONS = ("auto", "ltr", "rtl")
#: The longest text one letter may be shown as (a digraph or a letter with marks).
MAX_SHOWN = 8

#: The ASCII encoding of the Ugaritic data (Snyder et al. 2010) → the conventional transliteration.
UGARITIC_TRANSLITERATION = {
    "a": "ʾa", "i": "ʾi", "u": "ʾu", "b": "b", "g": "g", "x": "ḫ", "d": "d", "h": "h", "w": "w",
    "z": "z", "H": "ḥ", "T": "ṭ", "y": "y", "k": "k", "$": "š", "l": "l", "m": "m", "*": "ḏ",
    "n": "n", "Z": "ẓ", "s": "s", "<": "ʿ", "p": "p", "S": "ṣ", "q": "q", "r": "r", "v": "ṯ",
    "@": "ġ", "t": "t", "&": "s̀",
}

#: The same letters in the Ugaritic cuneiform alphabet (Unicode block Ugaritic).
UGARITIC_SCRIPT = dict(zip("abgxdhwzHTyk$lm*nZs<pSqrv@tiu&", map(chr, range(0x10380, 0x1039E))))  # in block order

#: Gothic transliteration (as engine.datasets.gothic writes it) → the Gothic alphabet.
GOTHIC_SCRIPT = {
    "a": "\U00010330", "b": "\U00010331", "g": "\U00010332", "d": "\U00010333", "e": "\U00010334",
    "q": "\U00010335", "z": "\U00010336", "h": "\U00010337", "þ": "\U00010338", "i": "\U00010339",
    "k": "\U0001033A", "l": "\U0001033B", "m": "\U0001033C", "n": "\U0001033D", "j": "\U0001033E",
    "u": "\U0001033F", "p": "\U00010340", "r": "\U00010342", "s": "\U00010343", "t": "\U00010344",
    "w": "\U00010345", "f": "\U00010346", "x": "\U00010347", "ƕ": "\U00010348", "o": "\U00010349",
}

#: The ASCII Hebrew of the same data → Hebrew letters (written right to left).
HEBREW_SCRIPT = {
    "a": "א", "b": "ב", "g": "ג", "d": "ד", "h": "ה", "w": "ו", "z": "ז", "H": "ח", "T": "ט",
    "y": "י", "k": "כ", "l": "ל", "m": "מ", "n": "נ", "s": "ס", "<": "ע", "p": "פ", "S": "צ",
    "q": "ק", "r": "ר", "$": "שׁ", "&": "שׂ", "t": "ת",
}

#: Hebrew letters written differently at the end of a word.
HEBREW_FINALS = {"k": "ך", "m": "ם", "n": "ן", "p": "ף", "S": "ץ"}

#: The ASCII Hebrew of the data → the standard scholarly transliteration (SBL style); the one
#: table both the views and the field exports (engine/project/fieldexport.py) use.
HEBREW_TRANSLITERATION = {
    "a": "ʾ", "b": "b", "g": "g", "d": "d", "h": "h", "w": "w", "z": "z", "H": "ḥ", "T": "ṭ",
    "y": "y", "k": "k", "l": "l", "m": "m", "n": "n", "s": "s", "<": "ʿ", "p": "p", "S": "ṣ",
    "q": "q", "r": "r", "$": "š", "&": "ś", "t": "t",
}

#: A Latin transliteration of Greek → the Greek alphabet (digraphs read first; σ is ς at a word's end).
GREEK_SCRIPT = {
    "a": "α", "b": "β", "g": "γ", "d": "δ", "e": "ε", "z": "ζ", "ē": "η", "th": "θ", "i": "ι",
    "k": "κ", "l": "λ", "m": "μ", "n": "ν", "x": "ξ", "o": "ο", "p": "π", "r": "ρ", "s": "σ",
    "t": "τ", "u": "υ", "y": "υ", "ph": "φ", "ch": "χ", "kh": "χ", "ps": "ψ", "ō": "ω",
}
GREEK_FINALS = {"s": "ς"}


def _linear_b_syllabary() -> dict[str, str]:
    """Transliterated Linear B syllables (``da``, ``ka``, ``a`` …) → the syllabograms of the Unicode
    block Linear B Syllabary (U+10000–1005D), read from the characters' own names."""
    out: dict[str, str] = {}
    for code in range(0x10000, 0x1005E):
        name = unicodedata.name(chr(code), "")
        parts = name.split()
        # "LINEAR B SYLLABLE B008 A": the last word is the sound value when it is a plain syllable
        if len(parts) == 5 and parts[2] == "SYLLABLE" and parts[4].isalpha():
            out.setdefault(parts[4].lower(), chr(code))
    return out


LINEAR_B_SYLLABARY = _linear_b_syllabary()


def _linear_b_transliteration() -> dict[str, str]:
    """Linear B signs → their conventional transliteration (``a``, ``ra3``, ``*18``), from the
    Unicode names (engine/io/linear_b.py)."""
    from engine.io.linear_b import TO_TRANSLITERATION

    return dict(TO_TRANSLITERATION)


LINEAR_B_TRANSLITERATION = _linear_b_transliteration()


@dataclass(frozen=True)
class DisplayTable:
    """Engine letter → shown text, and the writing direction ("auto" looks at the shown text)."""

    name: str = "none"
    letters: Mapping[str, str] = field(default_factory=dict)
    direction: str = "auto"
    #: letters with another form at the end of a written word (Hebrew ך ם ן ף ץ)
    finals: Mapping[str, str] = field(default_factory=dict)
    #: shown between two letters of one word when a run is shown as text (``-`` for the Linear B
    #: transliteration: a-e-ri-qo-ta); never when one letter is shown alone (a cell, a pin)
    joiner: str = ""

    def show(self, unit: str) -> str:
        return self.letters.get(unit, unit)

    def show_at(self, units, i: int) -> str:
        """Unit ``i`` of an inscription as shown: its final form before a word divider or the end."""
        unit = units[i]
        if self.finals and unit in self.finals and (i + 1 == len(units) or units[i + 1] == " "):
            return self.finals[unit]
        return self.show(unit)

    def show_text(self, units: Iterable[str] | str) -> str:
        """A run of engine letters as shown (word dividers stay spaces). A list of units gets final
        forms at the end of each word; a plain string (a span, which may end inside a word) is read
        greedily, longest table letter first, and gets none: a whole word is :meth:`show_form`."""
        if isinstance(units, str):
            units = self.split(units)
            return self._join(units, [self.show(u) for u in units])
        units = list(units)
        return self._join(units, [self.show_at(units, i) for i in range(len(units))])

    def _join(self, units: list[str], shown: list[str]) -> str:
        if not self.joiner:
            return "".join(shown)
        out: list[str] = []
        for i, text in enumerate(shown):
            if i and units[i] != " " and units[i - 1] != " ":
                out.append(self.joiner)
            out.append(text)
        return "".join(out)

    def show_form(self, form: str) -> str:
        """A whole written form (a known stem such as ``alpym``): its last letter, and the last of
        each word in it, in final form (Hebrew ``אלפים``, not ``אלפימ``)."""
        return self.show_text(self.split(form))

    def split(self, text: str) -> list[str]:
        """A string of engine letters as the table's letters (longest first; others one by one)."""
        if not self.letters:
            return list(text)
        longest = max(len(k) for k in self.letters)
        out, i = [], 0
        while i < len(text):
            for n in range(min(longest, len(text) - i), 0, -1):
                piece = text[i:i + n]
                if n == 1 or piece in self.letters:
                    out.append(piece)
                    i += n
                    break
        return out

    def right_to_left(self, sample: Iterable[str] = ()) -> bool:
        """Whether text is laid out right to left: said by the table, or (auto) most letters of
        ``sample`` (engine letters, shown through the table) are of a right-to-left script."""
        if self.direction != "auto":
            return self.direction == "rtl"
        rtl = ltr = 0
        for unit in sample:
            for ch in self.show(unit):
                kind = unicodedata.bidirectional(ch)
                if kind in ("R", "AL"):
                    rtl += 1
                elif kind == "L":
                    ltr += 1
        return rtl > ltr

    @property
    def is_identity(self) -> bool:
        return (not any(k != v for k, v in self.letters.items()) and self.direction == "auto"
                and not self.joiner)

    def to_json(self) -> dict[str, Any]:
        out = {"name": self.name, "letters": dict(self.letters), "direction": self.direction}
        if self.finals:
            out["finals"] = dict(self.finals)
        if self.joiner:
            out["joiner"] = self.joiner
        return out

    @classmethod
    def from_json(cls, data: Any) -> "DisplayTable":
        """A table from the project's settings or a user's edit (checked: strings, NFC, short)."""
        if not data:
            return IDENTITY
        if not isinstance(data, Mapping):
            raise InputError("a display table must be an object with 'letters' and 'direction'")
        letters = data.get("letters", {})
        if not isinstance(letters, Mapping):
            raise InputError("a display table's 'letters' must map letters to text")
        clean: dict[str, str] = {}
        for key, value in letters.items():
            if not isinstance(key, str) or not isinstance(value, str) or not key:
                raise InputError(f"display table: letter {key!r} → {value!r} must be text")
            value = unicodedata.normalize("NFC", value.strip())
            if not value or len(value) > MAX_SHOWN or any(unicodedata.category(c) == "Cc" for c in value):
                raise InputError(f"display table: letter {key!r} is shown as {value!r}; give 1 to "
                                 f"{MAX_SHOWN} printable characters")
            clean[unicodedata.normalize("NFC", key)] = value
        direction = data.get("direction", "auto")
        if direction not in DIRECTIONS:
            raise InputError(f"display table: direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}")
        finals = data.get("finals", {})
        if not isinstance(finals, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                      and 0 < len(v) <= MAX_SHOWN for k, v in finals.items()):
            raise InputError("a display table's 'finals' must map letters to short text")
        joiner = data.get("joiner", "")
        if not isinstance(joiner, str) or len(joiner) > MAX_SHOWN or any(
                unicodedata.category(c) == "Cc" for c in joiner):
            raise InputError(f"display table: the joiner {joiner!r} must be up to {MAX_SHOWN} printable characters")
        return cls(str(data.get("name", "custom")), clean, direction,
                   {k: unicodedata.normalize("NFC", v) for k, v in finals.items()},
                   unicodedata.normalize("NFC", joiner))


IDENTITY = DisplayTable()

#: name → (label, table). The first is "as the data files write them".
PRESETS: dict[str, tuple[str, DisplayTable]] = {
    "none": ("Letters as in the data files", IDENTITY),
    "ugaritic-transliteration": ("Ugaritic: conventional transliteration (š ḥ ṣ ṯ ẓ ġ ʿ …)",
                                 DisplayTable("ugaritic-transliteration", UGARITIC_TRANSLITERATION, "ltr")),
    "ugaritic-script": ("Ugaritic script (cuneiform alphabet)", DisplayTable("ugaritic-script", UGARITIC_SCRIPT, "ltr")),
    "gothic-script": ("Gothic script", DisplayTable("gothic-script", GOTHIC_SCRIPT, "ltr")),
    "hebrew-script": ("Hebrew script with final forms (right to left)",
                      DisplayTable("hebrew-script", HEBREW_SCRIPT, "rtl", HEBREW_FINALS)),
    "hebrew-transliteration": ("Hebrew: standard transliteration (ʾ ḥ ṭ ʿ ṣ š ś …)",
                               DisplayTable("hebrew-transliteration", HEBREW_TRANSLITERATION, "ltr")),
    "greek-script": ("Greek script (from a Latin transliteration)",
                     DisplayTable("greek-script", GREEK_SCRIPT, "ltr", GREEK_FINALS)),
    "linear-b": ("Linear B syllabary (from transliterated syllables)",
                 DisplayTable("linear-b", LINEAR_B_SYLLABARY, "ltr")),
    "linear-b-transliteration": ("Linear B (transliteration)",
                                 DisplayTable("linear-b-transliteration", LINEAR_B_TRANSLITERATION, "ltr",
                                              joiner="-")),
}


def preset(name: str) -> DisplayTable:
    try:
        return PRESETS[name][1]
    except KeyError:
        raise InputError(f"unknown display table {name!r}; presets: {', '.join(PRESETS)}") from None


def table_for(project, corpus_id: int | None) -> DisplayTable:
    """The display table stored for a corpus (the identity when none, or when it is unreadable)."""
    if corpus_id is None:
        return IDENTITY
    try:
        return DisplayTable.from_json(project.setting(SETTING_KEY.format(corpus_id)))
    except InputError:
        return IDENTITY


def setting_key(corpus_id: int) -> str:
    return SETTING_KEY.format(corpus_id)


#: Where a known language's display table is stored (the same JSON as a corpus's).
KNOWN_SETTING_KEY = "display.language.{}"


def known_setting_key(language_id: int) -> str:
    return KNOWN_SETTING_KEY.format(language_id)


def known_table_for(project, language_id: int | None) -> DisplayTable:
    """The display table stored for a known language (the identity when none, or unreadable: a
    view then shows the data's forms, never guessed ones)."""
    if language_id is None:
        return IDENTITY
    try:
        return DisplayTable.from_json(project.setting(known_setting_key(language_id)))
    except InputError:
        return IDENTITY
