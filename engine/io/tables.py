"""Readers and writers of the CSV/TSV formats in docs/formats.md (LOST, KNOWN, GOLD, PRIOR).

Every reader checks the whole file before returning anything, and every problem is an
InputError naming the file, the line (the header is line 1) and what is wrong. Text comes back
NFC-normalised, and control characters are refused (engine/io/text.py).
"""

from __future__ import annotations

import csv
import io
import math
import unicodedata
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence

from engine.corpus import (PIN_WEIGHT_MAX, GoldAnnotation, Inscription, PinnedValue, Stem, normalise_text,
                    split_units)
from engine.errors import InputError, PhonologyError
from engine.model.phonology import TRANSLITERATION, ipa_units
from engine.model.syllables import parse_syllable_value
from engine.io.text import (CSV_FIELD_LIMIT, DELIMITERS, DOTTED_MODES, ENCODINGS, DottedLetterCheck,  # noqa: F401
                            decode_bytes, detect_delimiter, detect_encoding, field_limit_problem,
                            read_leiden, read_text)

LOST_COLUMNS = ("id", "text")
KNOWN_COLUMNS = ("form", "ipa")
GOLD_COLUMNS = ("inscription_id", "start", "word_end", "known")
PRIOR_COLUMNS = ("lost", "known_ipa")

#: How many unknown IPA symbols one error lists (with their lines) before "… and N more".
UNKNOWN_SYMBOLS_SHOWN = 20


# ---------------------------------------------------------------------------------------------
# unknown IPA symbols: every one in a file, not only the first


def unknown_ipa_symbols(ipa: str) -> list[str]:
    """Every symbol of ``ipa`` the phonology does not know, in order of appearance, each once."""
    s = unicodedata.normalize("NFD", ipa)
    found: list[str] = []
    for _ in range(len(s) + 1):
        try:
            ipa_units(s)
            break
        except PhonologyError as e:
            if e.symbol not in s:
                break
            found.append(unicodedata.normalize("NFC", e.symbol))
            s = s.replace(e.symbol, "")
    return list(dict.fromkeys(found))


def _likely(symbol: str) -> str:
    """``, most likely ħ`` for a transliteration letter, else nothing."""
    ipa = TRANSLITERATION.get(unicodedata.normalize("NFC", symbol))
    return f", most likely IPA {ipa}" if ipa else ""


class UnknownIPASymbols(PhonologyError):
    """The unknown IPA symbols of a whole file: ``symbol``/``word``/``line`` are the first one's,
    ``symbols`` lists every (line, symbol, IPA string) found."""

    def __init__(self, first: PhonologyError, symbols: Sequence[tuple[int | None, str, str]],
                 limit: int = UNKNOWN_SYMBOLS_SHOWN):
        self.symbols = list(symbols)
        self.symbol, self.word, self.source = first.symbol, first.word, first.source
        named = set(getattr(first, "letters", ()))     # already named with their IPA in the first
        rest = [s for s in self.symbols[1:] if not (s[0] == first.line and s[1] in named)]
        problem = first.problem
        if rest:
            shown = ", ".join(f"{sym!r} (U+{ord(sym[0]):04X}{_likely(sym)}) in {word!r} (line {line})"
                              for line, sym, word in rest[: max(limit - 1, 0)])
            left = len(rest) - max(limit - 1, 0)
            problem += (f"; {len(rest)} more unknown symbol{'s' if len(rest) > 1 else ''}: {shown}"
                        + (f", and {left} more" if left > 0 else ""))
        InputError.__init__(self, problem, path=first.path, line=first.line)


class IpaChecker:
    """Checks IPA strings row by row and raises every unknown symbol of the file at the end."""

    def __init__(self, path=None):
        self.path = path
        self.first: PhonologyError | None = None
        self.symbols: list[tuple[int | None, str, str]] = []

    def units(self, ipa: str, *, source: str, line: int | None) -> tuple[str, ...] | None:
        """The units of ``ipa``, or None (the problem remembered) when a symbol is unknown."""
        try:
            return ipa_units(ipa, source=source, path=self.path, line=line)
        except PhonologyError as e:
            self.add(e, ipa, line)
            return None

    def add(self, error: PhonologyError, ipa: str, line: int | None) -> None:
        """Remember ``error`` (raised for ``ipa`` on ``line``) and every unknown symbol of ``ipa``."""
        if self.first is None:
            self.first = error
        self.symbols.extend((line, sym, ipa) for sym in unknown_ipa_symbols(ipa) or [error.symbol])

    def raise_any(self) -> None:
        if self.first is not None:
            raise UnknownIPASymbols(self.first, self.symbols)


# ---------------------------------------------------------------------------------------------
# reading a table


def sniff_delimiter(path: str | Path, delimiter: str | None) -> str:
    """The delimiter given, else tab for .tsv/.tab files and comma for the others."""
    if delimiter:
        return delimiter
    return "\t" if Path(path).suffix.lower() in (".tsv", ".tab") else ","


def _first_line(text: str) -> str:
    return text.lstrip("\r\n").split("\n", 1)[0].rstrip("\r")


def table_delimiter(path: str | Path, text: str, required: Sequence[str],
                    columns: Mapping[str, str] | None, delimiter: str | None) -> str:
    """``delimiter`` when given; else the default for the file name, unless its header lacks a
    required column and another delimiter (comma, semicolon, tab, pipe) finds them all."""
    if delimiter:
        return delimiter
    default = sniff_delimiter(path, None)
    header = _first_line(text)
    if detect_delimiter(header, required, columns, candidates=(default,)) == default:
        return default
    return detect_delimiter(header, required, columns) or default


class _Table:
    """A CSV/TSV text with its header checked: ``rows()`` yields (line, row with our names)."""

    def __init__(self, path, text: str, required: Sequence[str], *, columns: Mapping[str, str] | None,
                 delimiter: str | None, optional: Sequence[str] = ()):
        self.path = path
        if not text.strip():
            raise InputError("the file is empty", path=path)
        self.delimiter = table_delimiter(path, text, required, columns, delimiter)
        self.reader = csv.reader(io.StringIO(text, newline=""), delimiter=self.delimiter, strict=True)
        mapping = dict(columns or {})
        try:
            header = next(self.reader)
        except csv.Error as e:
            raise InputError(self._csv_problem(e, "cannot read the header"), path=path, line=1) from None
        self.header = [h.strip() for h in header]
        self.positions: dict[str, int] = {}
        for name in list(required) + list(optional):
            src = mapping.get(name, name)
            if src in self.header:
                self.positions[name] = self.header.index(src)
            elif name in required:
                shown = ", ".join(repr(h) for h in self.header)
                sep = DELIMITERS.get(self.delimiter, repr(self.delimiter))
                raise InputError(f"missing column {src!r} (the header has {shown}; delimiter {sep})",
                                 path=path, line=1)
        used = set(self.positions.values())
        self.extra = [(i, h) for i, h in enumerate(self.header) if i not in used and h]

    @staticmethod
    def _csv_problem(e: csv.Error, what: str) -> str:
        if "field larger than field limit" in str(e):
            return field_limit_problem()
        return f"{what} ({e}); is the file truncated or a quote left open?"

    def records(self) -> Iterator[tuple[int, list[str]]]:
        """(line, cells) of every non-blank record; a CSV error is an InputError naming the line."""
        line = 1
        try:
            for record in self.reader:
                line = self.reader.line_num
                if not record or all(not c.strip() for c in record):
                    continue
                yield line, record
        except csv.Error as e:
            raise InputError(self._csv_problem(e, "malformed CSV"), path=self.path,
                             line=self.reader.line_num or line) from None

    def row(self, line: int, record: list[str]) -> dict[str, str]:
        if len(record) > len(self.header):
            raise InputError(f"{len(record)} fields but the header has {len(self.header)}",
                             path=self.path, line=line)
        row: dict = {name: (record[i] if i < len(record) else "") for name, i in self.positions.items()}
        extra = {h: record[i] for i, h in self.extra if i < len(record)}
        if extra:
            row["_extra"] = extra
        return row

    def rows(self) -> Iterator[tuple[int, dict[str, str]]]:
        for line, record in self.records():
            yield line, self.row(line, record)


def iter_rows(path: str | Path, required: Sequence[str], *, columns: Mapping[str, str] | None = None,
              delimiter: str | None = None, optional: Sequence[str] = (),
              encoding: str | None = None) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line number, row) with our column names, after checking the header.

    ``columns`` maps our column names to the file's (for files with other headers); ``delimiter``
    None takes the file name's default (or the one the header shows, see :func:`table_delimiter`);
    ``encoding`` None detects it (see engine/io/text.py).
    """
    text = read_text(path, encoding=encoding)
    yield from _Table(path, text, required, columns=columns, delimiter=delimiter, optional=optional).rows()


def _need(row: dict, name: str, path, line: int) -> str:
    value = (row.get(name) or "").strip()
    if not value:
        raise InputError(f"empty {name!r}", path=path, line=line)
    return value


def _int(row: dict, name: str, path, line: int) -> int:
    value = _need(row, name, path, line)
    try:
        return int(value)
    except ValueError:
        raise InputError(f"{name!r} must be a whole number, not {value!r}", path=path, line=line) from None


def _nonempty(items: list, what: str, path) -> list:
    if not items:
        raise InputError(f"no {what} in the file (only a header?)", path=path)
    return items


# ---------------------------------------------------------------------------------------------
# one parser per format: a row -> a value (or an InputError); shared by the readers and preview


def lost_text(raw: str, ins_id: str, *, dotted: str | None = None, path=None,
              line: int | None = None) -> str:
    """The text the model sees of one lost text: its Leiden markup read (engine.io.text.read_leiden;
    lacunae become dividers, brackets never become letters). Markup alone is an InputError; a
    dotted letter while ``dotted`` is None is DottedLettersUnchosen."""
    text = read_leiden(raw, dotted=dotted, path=path, line=line).text
    if not text:
        raise InputError(f"inscription {ins_id!r} has no letter outside its markup "
                         f"({normalise_text(raw)!r}: a lacuna or an addition only)", path=path, line=line)
    return text


class _LostRows:
    required, optional = LOST_COLUMNS, ()

    def __init__(self, path, *, dotted: str | None = None, notation: str = "signs", **_):
        from engine.io.linear_b import lost_notation_reader

        self.path = path
        # the conventional Linear B transliteration has no dotted syllable: a dot below there is
        # Leiden's uncertain reading (docs/transcription.md, "Linear B"), so nothing is asked
        self.dots = DottedLetterCheck("uncertain" if dotted is None and notation == "linear-b" else dotted, path)
        #: the text column's notation read into signs (None: the characters as they are)
        self.convert = lost_notation_reader(notation)
        self.seen: dict[str, int] = {}

    def __call__(self, line: int, row: dict) -> Inscription:
        ins_id = _need(row, "id", self.path, line)
        if ins_id in self.seen:
            raise InputError(f"duplicate id {ins_id!r} (first on line {self.seen[ins_id]})",
                             path=self.path, line=line)
        self.seen[ins_id] = line
        raw = row.get("text") or ""
        if not normalise_text(raw):
            raise InputError(f"inscription {ins_id!r} has no text", path=self.path, line=line)
        signs = self.convert(raw, path=self.path, line=line) if self.convert else raw
        text = lost_text(signs, ins_id, dotted=self.dots.mode(signs, line), path=self.path, line=line)
        meta = {k: v for k, v in (row.get("_extra") or {}).items() if v}
        return Inscription(ins_id, text, raw=raw, meta=meta)


class _KnownRows:
    required, optional = KNOWN_COLUMNS, ("gloss", "source")

    def __init__(self, path, *, source: str | None = None, ipa: IpaChecker | None = None,
                 system: str | None = None, **_):
        self.path = path
        self.source = source or Path(path).name
        self.ipa = ipa or IpaChecker(path)
        #: the ipa column is written in this transcription system (a transliteration) and read into IPA
        self.transcribe = None
        if system:
            from engine.io.transcription import transcriber

            self.transcribe = transcriber(system)

    def __call__(self, line: int, row: dict) -> Stem | None:
        form = _need(row, "form", self.path, line)
        ipa = _need(row, "ipa", self.path, line)
        if self.transcribe is not None:
            ipa = self.transcribe(ipa, path=self.path, line=line)
        units = self.ipa.units(ipa, source=f"form {form!r}", line=line)
        if units is None:
            return None
        if not units:
            raise InputError(f"IPA {ipa!r} of {form!r} holds no sound (only length, stress or break "
                             "marks)", path=self.path, line=line)
        return Stem(form, ipa, (row.get("gloss") or "").strip(),
                    (row.get("source") or "").strip() or self.source)


class _GoldRows:
    required, optional = GOLD_COLUMNS, ()

    def __init__(self, path, *, inscriptions: Iterable[Inscription] | None = None, **_):
        self.path = path
        self.lengths = ({ins.id: len(split_units(ins.text)) for ins in inscriptions}
                        if inscriptions is not None else None)

    def __call__(self, line: int, row: dict) -> GoldAnnotation:
        path = self.path
        ins_id = _need(row, "inscription_id", path, line)
        start = _int(row, "start", path, line)
        end = _int(row, "word_end", path, line)
        known = tuple(k.strip() for k in _need(row, "known", path, line).split("|") if k.strip())
        if not known:
            raise InputError("'known' lists no form (only '|' separators)", path=path, line=line)
        if start < 0 or end <= start:
            raise InputError(f"need 0 <= start < word_end, got start={start}, word_end={end}",
                             path=path, line=line)
        if self.lengths is not None:
            if ins_id not in self.lengths:
                raise InputError(f"unknown inscription id {ins_id!r}", path=path, line=line)
            if end > self.lengths[ins_id]:
                raise InputError(f"word_end={end} is past the end of inscription {ins_id!r} "
                                 f"({self.lengths[ins_id]} units)", path=path, line=line)
        return GoldAnnotation(ins_id, start, end, known)


class _PriorRows:
    required, optional = PRIOR_COLUMNS, ("weight", "locked", "note")

    def __init__(self, path, *, ipa: IpaChecker | None = None, **_):
        self.path = path
        self.ipa = ipa or IpaChecker(path)
        self.seen: dict[tuple[str, str], int] = {}

    def __call__(self, line: int, row: dict) -> PinnedValue | None:
        path = self.path
        lost = normalise_text(_need(row, "lost", path, line))
        ipa = _need(row, "known_ipa", path, line)
        weight = parse_pin_weight(row.get("weight") or "", path=path, line=line)
        locked_s = (row.get("locked") or "1").strip().lower()
        if locked_s not in ("1", "0", "true", "false", "yes", "no"):
            raise InputError(f"locked must be 1/0/true/false, not {locked_s!r}", path=path, line=line)
        value = pin_value(ipa, ipa=self.ipa, lost=lost, path=path, line=line)
        if value is None:
            return None
        key = (lost, value)
        if key in self.seen:
            raise InputError(f"duplicate pin {lost} -> {value} (first on line {self.seen[key]})",
                             path=path, line=line)
        self.seen[key] = line
        return PinnedValue(lost, value, weight, locked_s in ("1", "true", "yes"),
                           (row.get("note") or "").strip())


def pin_value(text: str, *, ipa: IpaChecker | None = None, lost: str = "", path=None,
              line: int | None = None) -> str | None:
    """The value a pin stores for ``text``: one IPA unit (a letter, as the paper's model pins), or
    a syllable as a philologist writes it for a syllabary (``ka``, ``a``, ``k-`` the onset only,
    ``-a`` the vowel only; engine/model/syllables.py), normalised as SyllableValue.text() writes
    it. Whether a run can use it (a syllable pin needs ``signs = syllables``) is the run's to say.
    Raises InputError naming the problem otherwise; returns None when ``ipa`` (a checker that
    collects every unknown symbol of a file) took an unknown IPA symbol."""
    raw = text.strip()
    core = raw.strip("-")
    if not core:
        raise InputError(f"known_ipa {text!r}: write one IPA unit, or for a syllabary a syllable (ka), "
                         f"a vowel (a), an onset (k-) or a vowel alone (-a)", path=path, line=line)
    source = f"pinned value of {lost!r}" if lost else "pinned value"
    if ipa is None:
        units = ipa_units(core, source=source, path=path, line=line)
    else:
        units = ipa.units(core, source=source, line=line)
        if units is None:
            return None
    if core == raw and len(units) == 1:
        return units[0]
    try:
        value = parse_syllable_value(raw, source="known_ipa")
    except InputError as e:
        if core == raw:      # no onset/vowel mark: neither one unit nor a syllable
            raise InputError(f"known_ipa {text!r} must be one IPA unit, or a syllable for signs = syllables "
                             f"(ka, a, k-, -a); got {len(units)} units: {' '.join(units)}",
                             path=path, line=line) from None
        raise InputError(e.problem, path=path, line=line) from None
    return value.text()


def parse_pin_weight(text: str, *, path=None, line: int | None = None) -> float:
    """A pin's weight: empty means 1; else a number with 0 < weight <= PIN_WEIGHT_MAX."""
    text = text.strip()
    if not text:
        return 1.0
    allowed = f"the allowed range is 0 < weight <= {PIN_WEIGHT_MAX:g}"
    try:
        weight = float(text)
    except ValueError:
        raise InputError(f"weight must be a number, not {text!r}; {allowed}", path=path, line=line) from None
    if not (math.isfinite(weight) and 0 < weight <= PIN_WEIGHT_MAX):
        raise InputError(f"weight {text!r} is out of range; {allowed}", path=path, line=line)
    return weight


_PARSERS = {"lost": _LostRows, "known": _KnownRows, "gold": _GoldRows, "prior": _PriorRows}


def _unguarded(rows: Iterator[tuple[int, dict]], unguard: bool) -> Iterator[tuple[int, dict]]:
    """``rows`` with the formula guard's apostrophe taken off each cell (engine.io.atomic.unguard_row:
    only one before a formula's first character, which the guard put there), when ``unguard``."""
    from engine.io.atomic import unguard_row

    return ((line, unguard_row(row)) for line, row in rows) if unguard else rows


def _read_table(kind: str, path, *, columns, delimiter, encoding, what: str, unguard: bool = True,
                **options) -> list:
    parser = _PARSERS[kind](path, **options)
    out = []
    for line, row in _unguarded(iter_rows(path, parser.required, columns=columns, delimiter=delimiter,
                                          optional=parser.optional, encoding=encoding), unguard):
        try:
            value = parser(line, row)
        except InputError:
            _raise_collected(parser)  # an unknown IPA symbol (a dotted letter) on an earlier line comes first
            raise
        if value is not None:
            out.append(value)
    _raise_collected(parser)
    return _nonempty(out, what, path)


def _raise_collected(parser) -> None:
    """Raise what a row parser collected over the rows read so far (every unknown IPA symbol,
    every letter with an unchosen dot below), if anything."""
    for checker in (getattr(parser, "ipa", None), getattr(parser, "dots", None)):
        if checker is not None:
            checker.raise_any()


# ---------------------------------------------------------------------------------------------
# the readers


def read_lost(path: str | Path, *, columns: Mapping[str, str] | None = None,
              delimiter: str | None = None, encoding: str | None = None,
              dotted: str | None = None, notation: str = "signs", unguard: bool = True) -> list[Inscription]:
    """LOST.csv: ``id,text``; further columns are kept as metadata. ``unguard`` (as every table
    reader here): a cell the formula guard of an export prefixed (``'=SUM``) reads as it was
    written (``=SUM``); False reads a file written with ``--no-guard-formulas`` exactly as it is.
    ``text`` is read with its Leiden markup (``raw`` keeps the cell as written); ``dotted`` see
    engine.io.text.DOTTED_MODES (None: a file with a letter written with a dot below is refused, naming them all).
    ``notation``: how the text column writes the signs, "signs" (as they are) or "linear-b" (the
    conventional transliteration a-e-ri-qo-ta, read into the Unicode signs: engine/io/linear_b.py)."""
    return _read_table("lost", path, columns=columns, delimiter=delimiter, encoding=encoding,
                       what="inscriptions", dotted=dotted, notation=notation, unguard=unguard)


def read_plain_text(path: str | Path, *, id_prefix: str | None = None,
                    encoding: str | None = None, dotted: str | None = None) -> list[Inscription]:
    """Plain text, one inscription per line; ids are ``<prefix><line number>``. A line longer
    than CSV_FIELD_LIMIT is refused (it could not be exported to LOST.csv and read back)."""
    text = read_text(path, encoding=encoding)
    prefix = id_prefix if id_prefix is not None else Path(path).stem + ":"
    out = []
    dots = DottedLetterCheck(dotted, path)
    for i, raw in enumerate(text.splitlines(), start=1):
        if len(raw) > CSV_FIELD_LIMIT:
            raise InputError(f"the line is {len(raw):,} characters long; an inscription may have at "
                             f"most {CSV_FIELD_LIMIT:,} (the longest CSV cell, see docs/formats.md)",
                             path=path, line=i)
        if normalise_text(raw):
            ins_id = f"{prefix}{i}"
            out.append(Inscription(ins_id, lost_text(raw, ins_id, dotted=dots.mode(raw, i), path=path, line=i),
                                   raw=raw))
    dots.raise_any()
    if not text.strip():
        raise InputError("the file is empty", path=path)
    return out


def read_known(path: str | Path, *, columns: Mapping[str, str] | None = None,
               delimiter: str | None = None, source: str | None = None,
               encoding: str | None = None, system: str | None = None, unguard: bool = True) -> list[Stem]:
    """KNOWN.csv: ``form,ipa`` plus optional ``gloss`` and ``source``; every IPA string is
    checked, and every unknown symbol of the file is reported (up to UNKNOWN_SYMBOLS_SHOWN).
    ``system``: the ``ipa`` column is written in this transcription system (e.g. the
    transliteration ``semitic-translit``) and is transcribed into IPA first (a cell it cannot
    transcribe is a TranscriptionError naming file, line and characters)."""
    return _read_table("known", path, columns=columns, delimiter=delimiter, encoding=encoding,
                       what="stems", source=source, system=system, unguard=unguard)


class GoldRows(list):
    """The gold annotations read (it *is* the list), with ``lines``: each one's line in the file."""

    def __init__(self, gold: Iterable[GoldAnnotation] = (), lines: Iterable[int] = ()):
        super().__init__(gold)
        self.lines: list[int] = list(lines)


def read_gold(path: str | Path, *, columns: Mapping[str, str] | None = None,
              delimiter: str | None = None, inscriptions: Iterable[Inscription] | None = None,
              encoding: str | None = None, unguard: bool = True) -> GoldRows:
    """GOLD.csv: ``inscription_id,start,word_end,known`` (known forms separated by ``|``)."""
    parser = _GoldRows(path, inscriptions=inscriptions)
    out = GoldRows()
    for line, row in _unguarded(iter_rows(path, parser.required, columns=columns, delimiter=delimiter,
                                          encoding=encoding), unguard):
        out.append(parser(line, row))
        out.lines.append(line)
    _nonempty(out, "gold rows", path)
    return out


def read_prior(path: str | Path, *, columns: Mapping[str, str] | None = None,
               delimiter: str | None = None, encoding: str | None = None,
               unguard: bool = True) -> list[PinnedValue]:
    """PRIOR.csv: ``lost,known_ipa[,weight][,locked][,note]``: pinned sound values."""
    return _read_table("prior", path, columns=columns, delimiter=delimiter, encoding=encoding,
                       what="pinned values", unguard=unguard)


# one atomic CSV writer for the whole engine (a failed write leaves nothing, and names the file)
from engine.io.atomic import write_csv  # noqa: E402


def write_lost(path, inscriptions: Iterable[Inscription], **kw) -> None:
    write_csv(path, LOST_COLUMNS, ((i.id, i.text) for i in inscriptions), **kw)


def write_known(path, stems: Iterable[Stem], **kw) -> None:
    write_csv(path, ("form", "ipa", "gloss", "source"), ((s.form, s.ipa, s.gloss, s.source) for s in stems), **kw)


def write_gold(path, gold: Iterable[GoldAnnotation], **kw) -> None:
    write_csv(path, GOLD_COLUMNS, ((g.inscription_id, g.start, g.word_end, "|".join(g.known)) for g in gold), **kw)


def write_prior(path, pins: Iterable[PinnedValue], **kw) -> None:
    write_csv(path, ("lost", "known_ipa", "weight", "locked", "note"),
              ((p.lost, p.known_ipa, repr(float(p.weight)), int(p.locked), p.note) for p in pins), **kw)
