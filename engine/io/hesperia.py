"""Import of the Hesperia epigraphic export (Palaeohispanic inscriptions) as lost-language text.

The export is a UTF-8 CSV with one record per inscription and multi-line quoted fields. The
transliteration in ``TEXTO`` carries the editors' conventions (see docs/iberian-cleaning.md):
lacunae in square brackets, ``+`` for an unreadable sign, ``$…&`` around a reading that has
variant proposals in the apparatus, under-dots and under-lines on uncertain letters, ``:`` ``·``
``│`` as word dividers, ``%…#`` editorial comments (face/side markers), ``\\`` and ``/`` line
breaks, HTML entities, numerals and Latin or Greek words in capitals, and catalogue numbers of
special signs (``S47f``). Acute accents are *signs of the script* (á é í ó ú ŕ ś ḿ) and are kept.

:func:`clean_texto` turns one ``TEXTO`` into the text the model sees; :func:`read_hesperia`
reads a whole file into :class:`~engine.corpus.Inscription` objects plus a report of what was
done, skipped or not understood; :func:`compare_with_authors` measures agreement with the
cleaned file of Luo et al. (2021).

Nothing is dropped silently: a symbol the cleaner has no rule for is never copied into
``text``; it is replaced like an unreadable sign and listed in the report with the record id
and the file line where the record starts.
"""

from __future__ import annotations

import ast
import csv
import html
import io
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from engine.corpus import DIVIDER, Corpus, Inscription, make_corpus, normalise_text
from engine.errors import InputError
from engine.io.tables import read_text
from engine.io.text import ALLOWED_CONTROLS, field_limit_problem

__all__ = [
    "IBERIAN_LETTERS", "CleanedText", "UnknownSymbol", "SkippedRow", "RenamedId", "HesperiaReport",
    "HesperiaImport", "Difference", "ComparisonReport", "clean_texto", "read_hesperia",
    "read_authors_cleaned", "compare_with_authors", "normalise_authors_chunks",
]

# --------------------------------------------------------------------------------------------
# Columns

COL_ID = "REF. HESPERIA"
COL_TEXT = "TEXTO"
COL_LANGUAGE = "LENGUA"
REQUIRED_COLUMNS = (COL_ID, COL_TEXT, COL_LANGUAGE)
#: meta key -> column of the export (a column whose name starts with the given text also matches)
META_COLUMNS: Mapping[str, str] = {
    "ref_mlh": "REF MLH",
    "site": "YACIMIENTO",
    "municipality": "MUNICIPIO",
    "material": "MATERIAL",
    "object": "OBJETO",
    "support": "TIPO SOPORTE",
    "script": "signario",
    "apparatus": "APARATO CRÍTICO",
    "language": "LENGUA",
}
_NULLS = {"", "\\N", "NULL"}

# --------------------------------------------------------------------------------------------
# Symbols

#: The letters of the Iberian transliteration that reach ``text`` (NFC).
IBERIAN_LETTERS = frozenset("abdegiklmnorstu" "áéíóúŕśḿ")
_ACUTE = "\u0301"
_ACUTE_BASES = frozenset("aeioursm")
#: combining marks of the edition (uncertain or damaged letters): removed, the letter is kept
_DOT_BELOW = frozenset("\u0323\u0324")
_UNDERLINE = frozenset("\u0320\u0330\u0331\u0332\u0333")
_DIVIDERS = frozenset(":·∙•│|¦⁝⋮∶︙")
_HYPHENS = frozenset("-‐‑‒–—−")
_NUMERAL_CHARS = frozenset("IVXLCΠΙΔΛ<>")
_CAPITALS = re.compile(r"[A-ZΑ-Ω<>]")
_LINE_BREAKS = re.compile(r"[\n\r\x0b\x0c\\\u2028\u2029]")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_COMMENT = re.compile(r"%[^#]*#")
_MARGIN_NUMBER_END = re.compile(r"(?:\t|\s{2,})\d+\s*$")
_MARGIN_NUMBER_START = re.compile(r"^\s*\d+(?:\.|\))?(?=\s|$)|^\s*\d+\)")
_LABEL_START = re.compile(r"^\s*[ABDEFHJKMNOPQRTUWYZ](?:[0-9]+[a-z]?[0-9]*[:.)]?|[:.)])(?=\s|$)"
                          r"|^\s*[ABDEFHJKMNOPQRTUWYZ]\s*$")
_PARENS = re.compile(r"\(([^()]*)\)")
_BARE_SECTION = re.compile(r"(?:(?<=\s)|(?<=\ue000)|^)[a-zA-Z][0-9]?\)")
_VACAT = re.compile(r"(?<![^\W\d_])(?:vacat|vac|v)(?![^\W\d_])")
_COUNT = re.compile(r"[-‐\s]*(?:c\.?\s*)?(\d+)(?:\s*(?:-|/|ó|o)\s*(\d+))?\s*\??[-‐\s]*")
_SECTION_LABEL = re.compile(r"^\s*(?:[a-eA-E][0-9]?|[0-9]+)\s*$")
_EDITORIAL_WORDS = ("vac", "marca", "aspa", "izquierda", "derecha", "texto", "signo", "lado",
                    "cara", "fragm", "palimpsesto", "lectura", "linea", "línea", "columna")

_BREAK = "\ue000"      # placeholder: a hard boundary (line break, comment, section marker …)
_NUMBER = "\ue001"     # placeholder: a count of lost signs, taken from digits in brackets
_MARKED = "\ue002"     # placeholder: a letter with a mark we have no rule for (already reported)

LACUNA_MODES = ("divide", "keep")


# --------------------------------------------------------------------------------------------
# Cleaning one TEXTO


@dataclass(frozen=True)
class CleanedText:
    """The result of cleaning one ``TEXTO``: the text, what was found, what was not understood.

    ``unknown`` holds each symbol the cleaner has no rule for, with a little context, in order.
    """

    text: str
    counts: Mapping[str, int]
    unknown: tuple[tuple[str, str], ...] = ()


@dataclass
class _Tok:
    kind: str          # L letter, U unreadable, G gap (lost signs), D divider, B break,
    value: str = ""    # N numeral, F foreign word, S special sign, X unknown symbol
    count: int = 0     # for G: number of lost signs (0 = unknown extent)
    digits: bool = False


class _Cleaner:
    def __init__(self, lacunae: str, numerals: str):
        if lacunae not in LACUNA_MODES:
            raise ValueError(f"lacunae must be one of {LACUNA_MODES}, not {lacunae!r}")
        if numerals not in LACUNA_MODES:
            raise ValueError(f"numerals must be one of {LACUNA_MODES}, not {numerals!r}")
        self.lacunae = lacunae
        self.numerals = numerals
        self.counts: Counter[str] = Counter()
        self.unknown: list[tuple[str, str]] = []

    # -- helpers -----------------------------------------------------------------------------

    def _unknown(self, symbol: str, context: str) -> None:
        for placeholder, shown in ((_BREAK, " | "), (_NUMBER, "#"), (_MARKED, "?")):
            context = context.replace(placeholder, shown)
        self.unknown.append((symbol, context.strip()))

    def _marks(self, text: str) -> str:
        """Resolve combining marks (text in NFD): drop dots and lines below, keep acutes on
        the letters that carry them in the transliteration, report any other mark."""
        out: list[str] = []
        base = ""           # the last base character written, for acute placement
        has_acute = False
        for i, ch in enumerate(text):
            if not unicodedata.combining(ch):
                out.append(ch)
                base, has_acute = ch, False
                continue
            if ch in _DOT_BELOW:
                self.counts["dotted letters (under-dot removed)"] += 1
            elif ch in _UNDERLINE:
                self.counts["underlined letters (line removed)"] += 1
            elif ch == _ACUTE and base in _ACUTE_BASES and not has_acute:
                out.append(ch)
                has_acute = True
            else:
                # a mark we have no rule for: the sign it sits on is of unknown value
                if base == _MARKED:
                    continue                  # a second mark on the same sign: reported once
                name = unicodedata.name(ch, f"U+{ord(ch):04X}").lower()
                shown = f"{base or ' '}{ch}"
                ctx = unicodedata.normalize("NFC", text[max(0, i - 8): i + 4])
                self._unknown(f"{unicodedata.normalize('NFC', shown)} ({name})", ctx)
                if base and (base in IBERIAN_LETTERS or _CAPITALS.match(base)) and out and out[-1] != _ACUTE:
                    out[-1] = _MARKED
                elif base and out and out[-1] == _ACUTE:
                    out[-2:] = [_MARKED]
                base, has_acute = _MARKED, False
        return "".join(out)

    def _parens(self, line: str) -> str:
        def repl(m: re.Match[str]) -> str:
            inner = m.group(1)
            low = unicodedata.normalize("NFC", inner.strip().lower())
            if any(low.startswith(w) for w in _EDITORIAL_WORDS):
                self.counts["editorial notes in parentheses"] += 1
                return _BREAK
            if _SECTION_LABEL.match(inner):
                before = line[m.start() - 1] if m.start() > 0 else " "
                after = line[m.end()] if m.end() < len(line) else " "
                attached = _is_letter(before) and _is_letter(after)
                if inner.strip().isdigit() or inner.strip()[:1].isupper() or not attached:
                    self.counts["section markers"] += 1
                    return _BREAK
            self.counts["parentheses around signs (kept)"] += 1
            return inner
        previous = None
        while previous != line:          # innermost first, e.g. "([-])"
            previous, line = line, _PARENS.sub(repl, line)
        return line

    def _prepare_line(self, line: str) -> str:
        line, n = _MARGIN_NUMBER_END.subn("", line)
        self.counts["line numbers"] += n
        line, n = _MARGIN_NUMBER_START.subn(_BREAK, line)
        self.counts["line numbers"] += n
        line, n = _LABEL_START.subn(_BREAK, line)
        self.counts["section markers"] += n
        line = self._parens(line)
        line, n = _BARE_SECTION.subn(_BREAK, line)
        self.counts["section markers"] += n
        line, n = _VACAT.subn(_BREAK, line)
        self.counts["vacat"] += n
        return line

    # -- brackets ----------------------------------------------------------------------------

    @staticmethod
    def _regions(line: str) -> list[tuple[int, int, bool, bool]]:
        """Split a line into (start, end, in_brackets, delimited) pieces; brackets pair within
        the line only. A ``[`` with no ``]`` runs to the end of the line (the text is broken off),
        a ``]`` with no ``[`` closes a piece that starts at the line's start or last bracket."""
        pieces: list[tuple[int, int, bool, bool]] = []
        pos = 0
        open_at: int | None = None
        for i, ch in enumerate(line):
            if ch == "[":
                if open_at is not None:       # "[ … [": the first one is a broken edge
                    pieces.append((open_at, i, True, False))
                elif i > pos:
                    pieces.append((pos, i, False, True))
                open_at = i + 1
            elif ch == "]":
                if open_at is not None:
                    pieces.append((open_at, i, True, True))
                elif pos == 0:                # "…]" first on the line: broken at the start
                    pieces.append((0, i, True, False))
                elif i > pos:                 # a stray "]" later on: just an edge
                    pieces.append((pos, i, False, True))
                open_at = None
                pos = i + 1
        if open_at is not None:
            pieces.append((open_at, len(line), True, False))
        elif pos < len(line):
            pieces.append((pos, len(line), False, True))
        return pieces

    def _bracket_tokens(self, content: str, toks: list[_Tok]) -> None:
        """Tokens for what stands between brackets: lost signs, restored letters, dividers."""
        if not content.strip():
            if content:                       # "[     ]": blanks stand for lost signs
                toks.append(_Tok("G", count=0))
                self.counts["lacunae"] += 1
            return
        numbers: list[int] = []

        def count(m: re.Match[str]) -> str:
            numbers.append(max(int(g) for g in m.groups() if g))
            return _NUMBER

        if any(c.isdigit() for c in content):
            content = _COUNT.sub(count, content)
        stripped = content.replace("?", "").strip()
        if not stripped:                      # "[?]": one lost sign (the extent is uncertain)
            toks.append(_Tok("G", count=1))
            self.counts["lacunae"] += 1
            return
        letters = sum(1 for c in content if _is_letter(c))
        self.counts["restored letters (kept)"] += letters
        self._tokens(content, toks, bracketed=True, numbers=numbers)

    # -- tokens ------------------------------------------------------------------------------

    def _tokens(self, s: str, toks: list[_Tok], *, bracketed: bool,
                numbers: list[int] | None = None) -> None:
        i, n = 0, len(s)
        numbers = list(numbers or [])
        while i < n:
            ch = s[i]
            if ch in IBERIAN_LETTERS:
                toks.append(_Tok("L", ch))
            elif ch == "+":
                toks.append(_Tok("U"))
                self.counts["unreadable signs"] += 1
            elif ch in _HYPHENS:
                j, k = i, 0
                while j < n and (s[j] in _HYPHENS or (s[j] == " " and j + 1 < n and s[j + 1] in _HYPHENS
                                                      and k > 0)):
                    k += s[j] in _HYPHENS
                    j += 1
                if j < n and s[j] == "?":
                    j += 1
                toks.append(_Tok("G", count=k if k < 3 else 0))
                self.counts["lacunae"] += 1
                i = j
                continue
            elif ch == _NUMBER:
                toks.append(_Tok("G", count=numbers.pop(0) if numbers else 0, digits=True))
                self.counts["lacunae"] += 1
            elif ch == "." and bracketed:
                toks.append(_Tok("G", count=1))
                self.counts["lacunae"] += 1
            elif ch == "…":
                toks.append(_Tok("G", count=0))
                self.counts["lacunae"] += 1
            elif ch == "?":
                prev = toks[-1].kind if toks else ""
                if bracketed or prev in ("G", "N", "F", "S"):
                    self.counts["question marks (qualifier dropped)"] += 1
                else:
                    toks.append(_Tok("U"))
                    self.counts["question marks (read as unreadable)"] += 1
            elif ch.isspace():
                if bracketed:
                    # blanks between brackets are padding unless they separate two readings
                    after = s[i + 1:].lstrip()
                    if toks and toks[-1].kind in ("L", "U") and after[:1] and (
                            after[0] in IBERIAN_LETTERS or after[0] == "+"):
                        toks.append(_Tok("D"))
                else:
                    toks.append(_Tok("D"))
            elif ch in _DIVIDERS or (ch == "." and not bracketed):
                toks.append(_Tok("D"))
                self.counts["word dividers"] += 1
            elif ch == _BREAK or ch == "/":
                toks.append(_Tok("B"))
            elif ch.isdigit():
                j = i
                while j < n and s[j].isdigit():
                    j += 1
                toks.append(_Tok("B"))
                self.counts["numbers (editorial)"] += 1
                i = j
                continue
            elif _CAPITALS.match(ch):
                i = self._capitals(s, i, toks)
                continue
            elif ch == "_" and i + 1 < n and s[i + 1] == "_":
                j = i
                while j < n and s[j] == "_":
                    j += 1
                toks.append(_Tok("B"))
                i = j
                continue
            elif ch == _MARKED:
                toks.append(_Tok("X", ch))
            elif ch in "{}":
                self.counts["braces (content kept)"] += 1
            else:
                toks.append(_Tok("X", ch))
                self._unknown(ch, s[max(0, i - 8): i + 8])
            i += 1

    def _capitals(self, s: str, i: int, toks: list[_Tok]) -> int:
        j = i
        while j < len(s) and _CAPITALS.match(s[j]):
            j += 1
        run = s[i:j]
        if run in ("S", "G") and j < len(s) and s[j].isdigit():
            while j < len(s) and s[j].isdigit():
                j += 1
            if j < len(s) and s[j] == "f":
                j += 1
            toks.append(_Tok("S", s[i:j]))
            self.counts["special signs"] += 1
            return j
        if all(c in _NUMERAL_CHARS for c in run):
            toks.append(_Tok("N", run))
            self.counts["numerals"] += 1
        elif len(run) == 1 and (_is_letter(s[i - 1] if i else "") or _is_letter(s[j] if j < len(s) else "")):
            toks.append(_Tok("S", run))
            self.counts["special signs"] += 1
        else:
            toks.append(_Tok("F", run))
            self.counts["foreign words (capitals)"] += 1
        return j

    # -- whole text --------------------------------------------------------------------------

    def clean(self, texto: str) -> CleanedText:
        s = texto
        for placeholder in (_BREAK, _NUMBER, _MARKED):
            s = s.replace(placeholder, "\ufffd")
        s, n = _ENTITY.subn(lambda m: html.unescape(m.group(0)), s)
        self.counts["html entities"] += n
        s = unicodedata.normalize("NFD", s)
        self.counts["alternative-reading markers ($ &)"] += s.count("$") + s.count("&")
        s = s.replace("$", "").replace("&", "")     # a mark after "&" now sits on the letter before
        s, n = _COMMENT.subn("\n", s)
        self.counts["comments (%…#)"] += n
        s = self._marks(s)
        s = unicodedata.normalize("NFC", s)
        toks: list[_Tok] = []
        for line in _split_lines(s):
            line = self._prepare_line(line)
            for start, end, bracketed, delimited in self._regions(line):
                content = line[start:end]
                if bracketed and not delimited and not content.replace("?", "").strip():
                    self.counts["broken edges ([ or ] alone)"] += 1
                elif bracketed:
                    self._bracket_tokens(content, toks)
                else:
                    self._tokens(line[start:end], toks, bracketed=False)
            toks.append(_Tok("B"))
        counts = {k: v for k, v in self.counts.items() if v}
        return CleanedText(self._render(toks), counts, tuple(self.unknown))

    def _render(self, toks: Sequence[_Tok]) -> str:
        keep = self.lacunae == "keep"
        keep_numerals = self.numerals == "keep"
        out: list[str] = []
        for t in toks:
            if t.kind == "L":
                out.append(t.value)
            elif t.kind in ("D", "B"):
                out.append(DIVIDER)
            elif t.kind == "U":
                out.append("+" if keep else DIVIDER)
            elif t.kind == "G":
                if keep:
                    out.append("-" * t.count if t.count and (t.digits or t.count < 3) else "---")
                else:
                    out.append(DIVIDER)
            elif t.kind in ("N", "F"):
                out.append(t.value if keep_numerals else DIVIDER)
            elif t.kind in ("S", "X"):
                out.append("+" if keep else DIVIDER)
        return normalise_text("".join(out))


_PAIRED = re.compile(r"\[[^\[\]]*\]")


def _split_lines(s: str) -> list[str]:
    """Lines of the text: split at line breaks and at "/" (except inside a pair of brackets,
    where "/" belongs to a count such as "[c.2/3]")."""
    lines: list[str] = []
    for line in _LINE_BREAKS.split(s):
        start = 0
        protected = [(m.start(), m.end()) for m in _PAIRED.finditer(line)]
        for i, ch in enumerate(line):
            if ch == "/" and not any(a < i < b for a, b in protected):
                lines.append(line[start:i])
                start = i + 1
        lines.append(line[start:])
    return lines


def _is_letter(ch: str) -> bool:
    return bool(ch) and ch in IBERIAN_LETTERS


def clean_texto(texto: str, *, lacunae: str = "divide", numerals: str = "divide") -> CleanedText:
    """Clean one Hesperia ``TEXTO`` into the text the model sees (NFC, spaces = dividers).

    ``lacunae="divide"``: lacunae, unreadable and special signs become dividers, so no span
    crosses a gap. ``lacunae="keep"``: they stay as ``-`` (one per lost sign when the edition
    counts them, ``---`` for an unknown extent) and ``+``, like the authors' cleaned file.
    ``numerals`` does the same for numerals and Latin or Greek words in capitals
    (``"divide"``: dividers; ``"keep"``: kept as written).
    """
    return _Cleaner(lacunae, numerals).clean(texto)


# --------------------------------------------------------------------------------------------
# Reading a whole export


@dataclass(frozen=True)
class UnknownSymbol:
    """A symbol with no cleaning rule: left out of ``text`` (treated like an unreadable sign)."""

    symbol: str
    record_id: str
    line: int
    context: str = ""


@dataclass(frozen=True)
class SkippedRow:
    line: int
    ref: str
    reason: str


@dataclass(frozen=True)
class RenamedId:
    line: int
    ref: str
    new_id: str


@dataclass
class HesperiaReport:
    """What an import did: counts, rows skipped (with the reason), ids made unique, and every
    symbol the cleaner did not understand (with the record and the line where it starts)."""

    path: str
    language: str | None
    lacunae: str
    numerals: str
    rows_read: int = 0
    rows_kept: int = 0
    skipped: list[SkippedRow] = field(default_factory=list)
    renamed: list[RenamedId] = field(default_factory=list)
    unknown: list[UnknownSymbol] = field(default_factory=list)
    missing_meta_columns: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def skipped_reasons(self) -> Counter[str]:
        return Counter(s.reason for s in self.skipped)

    def unknown_symbols(self) -> Counter[str]:
        return Counter(u.symbol for u in self.unknown)

    def summary(self) -> str:
        lines = [f"{self.path}: {self.rows_read} records read, {self.rows_kept} kept "
                 f"(language {self.language or 'any'}, lacunae={self.lacunae}, numerals={self.numerals})"]
        for reason, n in sorted(self.skipped_reasons().items()):
            lines.append(f"  skipped {n}: {reason}")
        if self.renamed:
            lines.append(f"  {len(self.renamed)} duplicated ids made unique")
        for key in sorted(self.counts):
            lines.append(f"  {key}: {self.counts[key]}")
        if self.unknown:
            lines.append(f"  {len(self.unknown)} unknown symbols:")
            for sym, n in self.unknown_symbols().most_common():
                where = ", ".join(f"{u.record_id} (line {u.line})" for u in self.unknown if u.symbol == sym)
                lines.append(f"    {sym!r} ×{n}: {where}")
        return "\n".join(lines)


@dataclass
class HesperiaImport:
    inscriptions: list[Inscription]
    report: HesperiaReport

    def corpus(self, name: str = "iberian") -> Corpus:
        return make_corpus(name, self.inscriptions)


def _decode(path: Path, encoding: str | None = None) -> str:
    # FileMaker exports end lines inside a cell with VT (and FF): line breaks here, not controls
    return read_text(path, what="export", encoding=encoding, allowed_controls=ALLOWED_CONTROLS + "\x0b\x0c")


def _column_key(name: str) -> str:
    return unicodedata.normalize("NFC", name).strip().casefold()


def _records(path: Path, text: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and (first line, fields) of every record; CSV errors name the line."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader)
    except StopIteration:
        raise InputError("the file is empty", path=path, line=1) from None
    except csv.Error as e:
        raise InputError(f"cannot read the header: {e}", path=path, line=1) from None
    records: list[tuple[int, list[str]]] = []
    last = reader.line_num
    while True:
        start = last + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as e:
            if "field larger than field limit" in str(e):
                raise InputError(field_limit_problem(), path=path, line=start) from None
            raise InputError(f"broken CSV record from line {start} to line {reader.line_num} ({e}); "
                             "is a quoted field unterminated or the file truncated?",
                             path=path, line=start) from None
        last = reader.line_num
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise InputError(f"the record has {len(row)} fields but the header has {len(header)}; "
                             "is the file truncated or a quote unbalanced?", path=path, line=start)
        records.append((start, row))
    return header, records


def _meta_value(value: str) -> str:
    value = _ENTITY.sub(lambda m: html.unescape(m.group(0)), value).strip()
    return "" if value in _NULLS else unicodedata.normalize("NFC", value)


def read_hesperia(path: str | Path, *, language: str | Iterable[str] | None = "IBERICO",
                  lacunae: str = "divide", numerals: str = "divide",
                  encoding: str | None = None) -> HesperiaImport:
    """Read a Hesperia export: one :class:`Inscription` per record of the given ``LENGUA``.

    ``id`` is ``REF. HESPERIA`` (a repeated reference gets ``#2``, ``#3``… in file order, an
    empty one ``id=<id column>`` or ``line-<n>``; the original is then in
    ``meta["ref_hesperia"]``); ``raw`` is
    ``TEXTO`` as in the file (NFC, like all text); ``text`` is :func:`clean_texto` of it; ``meta`` holds the
    other columns (empty values omitted). ``language=None`` keeps every record. Records whose
    ``TEXTO`` is empty are skipped and listed in the report. ``encoding`` None detects it (UTF-8,
    or UTF-16 by its BOM).
    """
    if lacunae not in LACUNA_MODES:
        raise ValueError(f"lacunae must be one of {LACUNA_MODES}, not {lacunae!r}")
    if numerals not in LACUNA_MODES:
        raise ValueError(f"numerals must be one of {LACUNA_MODES}, not {numerals!r}")
    path = Path(path)
    text = _decode(path, encoding)
    if not text.strip():
        raise InputError("the file is empty", path=path, line=1)
    header, records = _records(path, text)
    keys = [_column_key(h) for h in header]

    def position(name: str) -> int | None:
        key = _column_key(name)
        if key in keys:
            return keys.index(key)
        for i, k in enumerate(keys):
            if k.startswith(key):
                return i
        return None

    pos: dict[str, int] = {}
    for name in REQUIRED_COLUMNS:
        p = position(name)
        if p is None:
            if name == COL_LANGUAGE and language is None:
                continue
            shown = ", ".join(repr(h) for h in header)
            raise InputError(f"missing column {name!r} (the header has {shown})", path=path, line=1)
        pos[name] = p
    id_pos = keys.index("id") if "id" in keys else None
    meta_pos: dict[str, int] = {}
    missing_meta: list[str] = []
    for key, name in META_COLUMNS.items():
        p = position(name)
        if p is None:
            missing_meta.append(name)
        else:
            meta_pos[key] = p
    if isinstance(language, str):
        wanted: set[str] | None = {language.strip()}
    else:
        wanted = None if language is None else {x.strip() for x in language}

    report = HesperiaReport(str(path), None if wanted is None else ", ".join(sorted(wanted)),
                            lacunae, numerals, missing_meta_columns=missing_meta)
    totals: Counter[str] = Counter()
    inscriptions: list[Inscription] = []
    seen: Counter[str] = Counter()
    used: set[str] = set()
    for line, row in records:
        report.rows_read += 1
        ref = row[pos[COL_ID]].strip()
        lang = row[pos[COL_LANGUAGE]].strip() if COL_LANGUAGE in pos else ""
        if wanted is not None and lang not in wanted:
            report.skipped.append(SkippedRow(line, ref, f"LENGUA is {lang!r}, not {report.language}"))
            continue
        raw = row[pos[COL_TEXT]]
        if not raw.strip():
            report.skipped.append(SkippedRow(line, ref, "TEXTO is empty"))
            continue
        row_id = row[id_pos].strip() if id_pos is not None else ""
        base = ref if ref else (f"id={row_id}" if row_id else f"line-{line}")
        seen[base] += 1
        new_id = base if seen[base] == 1 else f"{base}#{seen[base]}"
        while new_id in used:
            seen[base] += 1
            new_id = f"{base}#{seen[base]}"
        used.add(new_id)
        meta = {k: v for k, p in meta_pos.items() if (v := _meta_value(row[p]))}
        if new_id != ref:
            meta["ref_hesperia"] = ref
            report.renamed.append(RenamedId(line, ref, new_id))
        cleaned = clean_texto(raw, lacunae=lacunae, numerals=numerals)
        totals.update(cleaned.counts)
        for symbol, context in cleaned.unknown:
            report.unknown.append(UnknownSymbol(symbol, new_id, line, context))
        ins = Inscription(new_id, cleaned.text, raw, meta)
        if not ins.segments():
            totals["texts with no letters left"] += 1
        inscriptions.append(ins)
    report.rows_kept = len(inscriptions)
    units = [u for ins in inscriptions for u in ins.units if u != DIVIDER]
    totals["characters (units, dividers excluded)"] = len(units)
    totals["distinct characters"] = len(set(units))
    totals["words (runs between dividers)"] = sum(len(ins.segments()) for ins in inscriptions)
    report.counts = {k: v for k, v in totals.items() if v}
    return HesperiaImport(inscriptions, report)


# --------------------------------------------------------------------------------------------
# Comparison with the cleaned file of Luo et al. (2021)


def read_authors_cleaned(path: str | Path) -> dict[str, list[str]]:
    """``REF. HESPERIA`` -> list of line chunks, from the authors' ``iberian.csv``."""
    path = Path(path)
    text = _decode(path)
    if not text.strip():
        raise InputError("the file is empty", path=path, line=1)
    header, records = _records(path, text)
    keys = [_column_key(h) for h in header]
    for name in (COL_ID, "cleaned"):
        if _column_key(name) not in keys:
            raise InputError(f"missing column {name!r} (the header has "
                             f"{', '.join(repr(h) for h in header)})", path=path, line=1)
    p_ref, p_clean = keys.index(_column_key(COL_ID)), keys.index("cleaned")
    out: dict[str, list[str]] = {}
    for line, row in records:
        try:
            chunks = ast.literal_eval(row[p_clean])
        except (ValueError, SyntaxError) as e:
            raise InputError(f"'cleaned' is not a Python list literal ({e})", path=path, line=line) from None
        if not isinstance(chunks, list) or not all(isinstance(c, str) for c in chunks):
            raise InputError("'cleaned' must be a list of strings", path=path, line=line)
        out[row[p_ref].strip()] = chunks
    return out


def normalise_authors_chunks(chunks: Sequence[str]) -> str:
    """The authors' chunks joined by a divider, with ``:`` (their word divider) as a space."""
    joined = DIVIDER.join(chunks)
    return normalise_text("".join(DIVIDER if c in _DIVIDERS else c for c in joined))


@dataclass(frozen=True)
class Difference:
    ref: str
    ours: str
    authors: str
    category: str


#: categories of a difference, from the most superficial to the most substantial
DIFFERENCE_CATEGORIES = (
    "word division only",
    "lacuna length only",
    "lacuna/unreadable marking",
    "numerals, foreign words, special or unknown signs",
    "authors' text is empty",
    "letters differ",
)


def _categorise(ours: str, theirs: str) -> str:
    steps = [
        lambda s: s.replace(DIVIDER, ""),
        lambda s: re.sub(r"-+", "-", s),
        lambda s: re.sub(r"[-+?]", "", s),
        lambda s: "".join(c for c in s if c in IBERIAN_LETTERS),
    ]
    a, b = ours, theirs
    for step, name in zip(steps, DIFFERENCE_CATEGORIES):
        a, b = step(a), step(b)
        if a == b:
            return name
    if not b and a:
        return "authors' text is empty"
    return "letters differ"


@dataclass
class ComparisonReport:
    """Agreement of our ``keep``-mode cleaning with the authors' cleaned file."""

    common: int = 0
    identical: int = 0
    only_ours: list[str] = field(default_factory=list)
    only_authors: list[str] = field(default_factory=list)
    repeated: list[str] = field(default_factory=list)
    categories: dict[str, int] = field(default_factory=dict)
    samples: dict[str, list[Difference]] = field(default_factory=dict)
    letters_identical: int = 0

    @property
    def different(self) -> int:
        return self.common - self.identical

    @property
    def agreement(self) -> float:
        return self.identical / self.common if self.common else 0.0

    def summary(self) -> str:
        lines = [f"{self.common} references in both files: {self.identical} identical "
                 f"({100 * self.agreement:.1f} %), {self.different} different; "
                 f"letters alone identical in {self.letters_identical}",
                 f"only ours: {len(self.only_ours)}, only the authors': {len(self.only_authors)}"]
        for cat in DIFFERENCE_CATEGORIES:
            if self.categories.get(cat):
                lines.append(f"  {cat}: {self.categories[cat]}")
                for d in self.samples.get(cat, [])[:3]:
                    lines.append(f"    {d.ref}: ours {d.ours!r} | authors {d.authors!r}")
        return "\n".join(lines)


def compare_with_authors(imported: HesperiaImport | Sequence[Inscription], iberian_csv_path: str | Path,
                         *, samples: int = 10) -> ComparisonReport:
    """Compare each record's ``keep``-mode cleaning (dividers normalised) with the authors'
    chunks joined by a space; the texts are re-cleaned from ``raw`` so any import works.
    When a reference is repeated, its first record is compared and the others are listed in
    ``repeated``."""
    inscriptions = imported.inscriptions if isinstance(imported, HesperiaImport) else list(imported)
    authors = read_authors_cleaned(iberian_csv_path)
    report = ComparisonReport()
    ours_refs: set[str] = set()
    cats: Counter[str] = Counter()
    for ins in inscriptions:
        ref = ins.meta.get("ref_hesperia", ins.id)
        if ref in ours_refs:                  # a repeated reference: only its first record is compared
            report.repeated.append(ins.id)
            continue
        ours_refs.add(ref)
        if ref not in authors:
            report.only_ours.append(ins.id)
            continue
        report.common += 1
        raw = ins.raw if ins.raw is not None else ins.text
        ours = clean_texto(raw, lacunae="keep", numerals="keep").text
        theirs = normalise_authors_chunks(authors[ref])
        if ours == theirs:
            report.identical += 1
            report.letters_identical += 1
            continue
        cat = _categorise(ours, theirs)
        if cat != "letters differ" and cat != "authors' text is empty":
            report.letters_identical += 1
        cats[cat] += 1
        bucket = report.samples.setdefault(cat, [])
        if len(bucket) < samples:
            bucket.append(Difference(ins.id, ours, theirs, cat))
    report.only_authors = sorted(r for r in authors if r not in ours_refs)
    report.categories = dict(cats)
    return report
