"""Suffix-stripping stemmers for Proto-Germanic, Gothic, Old Norse and Old English.

The rule lists below are the whole of each stemmer; docs/datasets.md prints them and says where
they come from (for Gothic, the inflection tables of the Gomorph documentation of Project Wulfila;
for the others, the standard grammar overviews of the languages). Each stemmer strips *suffixes*
(never a character set, a known pitfall of ``str.rstrip``) and stops at a guard that keeps a
pronounceable root. The minimum length of a *kept* stem (4 IPA units in the paper) is not a guard
of the stemmer: it is a filter applied afterwards to the known vocabulary (``gothic.py``).
"""

from __future__ import annotations

import unicodedata
from typing import Sequence

# --------------------------------------------------------------------------------------------
# Proto-Germanic (Wiktionary / Ringe notation)

#: Inflectional and stem-forming endings of PG headwords, stripped repeatedly (longest first).
#: Nouns/adjectives: a-stems -az -ą, ja-stems -jaz -ją -ja, wa-stems -waz -wą, ō-stems -ō -jō,
#: i-stems -iz, u-stems -uz -u, n-stems -ô -ǭ -ī -īn -į̄ -an, r-stems -ēr; infinitives -aną -janą
#: -ōną -āną -ēną (the nasal -ą goes first, then -an/-jan/-ōn/-ēn); -i after -j- (-ijaną).
PG_ENDINGS: tuple[str, ...] = (
    "jaz", "jan", "wan", "jō", "ją",
    "az", "iz", "uz", "īn", "ēr", "ja", "an", "ōn", "ēn",
    "ą", "ō", "ī", "į̄", "i", "u", "ô", "ǭ",
)

PG_VOWELS = frozenset("aeiouāēīōūâêîôûąįųǭǫę")
GOTHIC_VOWELS = frozenset("aeiouï")
NORSE_VOWELS = frozenset("aeiouyáéíóúýæœøǫǿö")
ENGLISH_VOWELS = frozenset("aeiouyāēīōūȳæǣ")


def _base_letters(word: str) -> str:
    """NFC, lower case, with the affix and reconstruction marks ``- *`` removed."""
    word = unicodedata.normalize("NFC", word).lower()
    return word.replace("*", "").strip("-").strip()


def _letters(s: str) -> int:
    """Letters in ``s``, a letter with its combining marks (ą̄, ē₂) counting once."""
    return sum(1 for c in unicodedata.normalize("NFD", s) if not unicodedata.combining(c) and c != "₂")


def _has_vowel(s: str, vowels: frozenset[str]) -> bool:
    nfd = unicodedata.normalize("NFD", s)
    base = "".join(c for c in nfd if not unicodedata.combining(c))
    return any(c in vowels for c in s) or any(c in vowels for c in base)


def strip_suffixes(word: str, endings: Sequence[str], *, vowels: frozenset[str], min_letters: int,
                   repeat: bool) -> str:
    """Strip the longest ending of ``endings`` that leaves at least ``min_letters`` letters and a
    vowel; with ``repeat`` go on until no ending can be stripped."""
    ordered = sorted(endings, key=len, reverse=True)
    while True:
        for e in ordered:
            if word.endswith(e):
                rest = word[: -len(e)]
                if _letters(rest) >= min_letters and _has_vowel(rest, vowels):
                    word = rest
                    break
        else:
            return word
        if not repeat:
            return word


def pg_stem(word: str) -> str:
    """The stem of a Proto-Germanic headword: ``dagaz`` → ``dag``, ``habjaną`` → ``hab``,
    ``þankijaną`` → ``þank``, ``gumô`` → ``gum``, ``mann-`` → ``mann``.

    Endings of :data:`PG_ENDINGS` are stripped repeatedly, longest first; the guard keeps at least
    two letters including a vowel (so ``frijaz`` stops at ``fri``).
    """
    return strip_suffixes(_base_letters(word), PG_ENDINGS, vowels=PG_VOWELS, min_letters=2, repeat=True)


# --------------------------------------------------------------------------------------------
# Gothic (Gomorph conventions)

#: Gothic inflectional endings after the Gomorph paradigms (www.wulfila.be/gomorph): one ending is
#: stripped, the longest that applies. Nouns (a-, ja-, i-, u-, n-, ō-, ōn-, ein-stems), strong and
#: weak adjectives, verbs (present, preterite, subjunctive, passive, weak -ida-/-oda-/-aida-
#: preterites, participles -and(s) -ans -iþs -ida).
GOTHIC_ENDINGS: tuple[str, ...] = (
    # weak preterites (with the dental suffix)
    "idedeima", "idedeiþ", "idedeina", "idedeis", "idedjau", "idedun", "idedum", "ideduþ", "ideduts",
    "odedeima", "odedeina", "odedun", "odedum", "oduþ",
    "aidedun", "aidedum",
    "ida", "ides", "idai", "odes", "oda", "odai",
    # passive and subjunctive
    "anda", "ada", "aindau", "aidau", "aima", "aina", "aiþ", "ais", "au",
    "eima", "eina", "eiþ", "eis",
    # participles
    "andans", "andins", "andeins", "andein", "andin", "andan", "andam", "ande", "andei", "ands", "and",
    "ana", "ans",
    # verbs
    "jan", "an", "on", "nan", "um", "uþ", "un", "iþ", "oþ", "ats", "uts", "ts",
    # nouns and adjectives
    "amma", "aizos", "aizo", "aize", "aim", "ata", "ins", "ons", "uns", "eins", "ein",
    "ane", "ono", "im", "am", "om", "jis", "ja", "jos", "ju", "ai", "os", "is", "us", "ei",
    "a", "s", "o", "e", "u", "i",
)


def gothic_stem(word: str) -> str:
    """The stem of a Gothic word form (Latin transliteration): ``dags`` → ``dag``,
    ``saiƕaina`` → ``saiƕ``, ``gumins`` → ``gum``, ``nam`` → ``nam``.

    One ending of :data:`GOTHIC_ENDINGS` (the longest that applies) is stripped; the guard keeps at
    least three letters including a vowel.
    """
    return strip_suffixes(_base_letters(word), GOTHIC_ENDINGS, vowels=GOTHIC_VOWELS, min_letters=3,
                          repeat=False)


# --------------------------------------------------------------------------------------------
# Old Norse and Old English (Wiktionary normalised spellings)

#: Old Norse: one strip of a nominative/infinitive ending (-r, -ur, -ir, -ar, -a, -ja, -i, -ast), as in
#: the authors' stemmer (xib ``scripts/stemmer_FH.py``, ``get_on_stem``): the longest ending that is at
#: most half the word, -r only after a consonant (``dagr`` → ``dag``, but ``sær``, ``skór``, ``vínber``
#: keep theirs); then, only when nothing was stripped, a final long consonant from assimilation of the
#: nominative -r (-nn, -ll) is shortened (``steinn`` → ``stein``), while a root's geminate before a
#: stripped ending stays (``kunna`` → ``kunn``, ``fylla`` → ``fyll``, ``fullr`` → ``full``).
NORSE_ENDINGS: tuple[str, ...] = ("ast", "ja", "ir", "ur", "ar", "a", "i", "r")
#: Words the authors' ON stemmer leaves whole (the adverb *aptr* "back", Gothic *aftra*).
NORSE_EXCEPTIONS: frozenset[str] = frozenset({"aptr"})
_NORSE_CONSONANTS = frozenset("bcdfghjklmnpqrstvwxzþð")

#: Old English: one strip of an infinitive or nominative ending (-ian, -ean, -an, -u, -a, -e).
#: (The authors' script also stripped -h; we do not, as final h is part of the root: feoh, hēah.)
#: No -on: it is not an ending of a lemma, and stripping it cut roots (heofon, seofon, niġon) and the
#: diphthong of contracted infinitives (sēon = s-ēo-n, not sē-on); the authors' list has none either.
ENGLISH_ENDINGS: tuple[str, ...] = ("ian", "ean", "an", "u", "a", "e")


def norse_stem(word: str) -> str:
    """``dagr`` → ``dag``, ``setja`` → ``set``, ``hjalpa`` → ``hjalp``, ``tǫnn`` → ``tǫn``,
    ``kunna`` → ``kunn``, ``sær`` → ``sær`` (the rules at :data:`NORSE_ENDINGS`)."""
    w = _base_letters(word)
    if w in NORSE_EXCEPTIONS:
        return w
    stripped = False
    n = _letters(w)
    for e in sorted(NORSE_ENDINGS, key=len, reverse=True):
        if not w.endswith(e) or 2 * len(e) > n:
            continue
        rest = w[: -len(e)]
        if e == "r" and rest[-1:] not in _NORSE_CONSONANTS:
            continue
        if _letters(rest) >= 2 and _has_vowel(rest, NORSE_VOWELS):
            w, stripped = rest, True
            break
    if not stripped:
        for double in ("nn", "ll"):
            if w.endswith(double) and _letters(w) > 3:
                w = w[:-1]
    return w


def english_stem(word: str) -> str:
    """``slǣpan`` → ``slǣp``, ``ferian`` → ``fer``, ``sunu`` → ``sun``, ``guma`` → ``gum``."""
    return strip_suffixes(_base_letters(word), ENGLISH_ENDINGS, vowels=ENGLISH_VOWELS, min_letters=2,
                          repeat=False)


STEMMERS = {"pgm": pg_stem, "got": gothic_stem, "non": norse_stem, "ang": english_stem}

__all__ = [
    "ENGLISH_ENDINGS", "GOTHIC_ENDINGS", "NORSE_ENDINGS", "NORSE_EXCEPTIONS", "PG_ENDINGS", "STEMMERS",
    "english_stem", "gothic_stem", "norse_stem", "pg_stem", "strip_suffixes",
]
