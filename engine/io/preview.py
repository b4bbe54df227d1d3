"""The first rows of a file to import, as the readers would see them, each row's problem marked:
what an import dialog shows before anything is written (no Qt; the same checks as the readers)."""

from __future__ import annotations

import csv
import io
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from engine.corpus import Inscription
from engine.errors import InputError
from engine.io import tables
from engine.io.text import (CSV_FIELD_LIMIT, DELIMITERS, decode_bytes, detect_delimiter, detect_encoding,
                            encoding_name, field_limit_problem, suggest_encoding)

#: Import kinds whose rows are checked like the reader checks them.
CHECKED_KINDS = ("lost", "known", "gold", "prior", "text", "wordlist")


@dataclass(frozen=True)
class PreviewRow:
    """One row: its line in the file, its cells (header order) and its problem, if any."""

    line: int
    cells: tuple[str, ...]
    problem: str | None = None


@dataclass(frozen=True)
class Preview:
    """The head of a file: ``encoding`` and ``delimiter`` used (detected unless given; delimiter
    None for line-based files), the header, up to ``limit`` rows, a ``problem`` with the whole
    file (it cannot be decoded, a column is missing…) and, when it is not UTF-8, the encoding to
    suggest. ``more``: the file has rows after those shown."""

    path: str
    kind: str
    encoding: str | None
    delimiter: str | None
    header: tuple[str, ...]
    rows: tuple[PreviewRow, ...]
    problem: str | None = None
    problem_line: int | None = None
    suggested_encoding: str | None = None
    more: bool = False
    columns: Mapping[str, str] = field(default_factory=dict)

    @property
    def problems(self) -> list[tuple[int | None, str]]:
        """(line, message) of every problem found: the file's, then each marked row's."""
        out: list[tuple[int | None, str]] = []
        if self.problem:
            out.append((self.problem_line, self.problem))
        out.extend((r.line, r.problem) for r in self.rows if r.problem and r.line != self.problem_line)
        return out

    @property
    def ok(self) -> bool:
        return not self.problems


def _decode(data: bytes, path: Path, encoding: str | None) -> tuple[str, str, InputError | None, str | None]:
    """(text, encoding, problem, suggested encoding): undecodable text is shown with U+FFFD."""
    try:
        decoded = decode_bytes(data, encoding, path=path)
        return decoded.text, decoded.encoding, None, None
    except InputError as e:
        try:
            chosen = encoding_name(encoding) or detect_encoding(data)
        except InputError:
            chosen = detect_encoding(data)
        if chosen == "utf-8":
            chosen = "utf-8-sig"
        text = unicodedata.normalize("NFC", data.decode(chosen, errors="replace"))
        suggested = None
        if chosen.startswith("utf-8"):
            try:
                data.decode(chosen)
            except UnicodeDecodeError:
                suggested = suggest_encoding(data)
        return text, chosen, e, suggested


def preview_file(path: str | Path, kind: str, *, delimiter: str | None = None,
                 encoding: str | None = None, columns: Mapping[str, str] | None = None,
                 limit: int = 20, system: str | None = None,
                 inscriptions: Iterable[Inscription] | None = None) -> Preview:
    """Read the first ``limit`` rows of ``path`` as import ``kind`` would ("lost", "known",
    "gold", "prior", "text", "wordlist"; other kinds are shown as plain CSV/TSV rows) and mark
    each row's problem. Never raises for a bad file: its problems are in the result.
    ``system`` lets word-list rows be transcribed; ``inscriptions`` lets gold rows be checked
    against a corpus."""
    path = Path(path)
    base = dict(path=str(path), kind=kind, columns=dict(columns or {}))
    from engine.io.text import read_input

    try:
        data = read_input(path)   # a regular file of a bounded size (never a FIFO or a device)
    except InputError as e:
        return Preview(encoding=None, delimiter=None, header=(), rows=(), problem=e.problem, **base)
    except OSError as e:
        what = "is a directory, not a file" if path.is_dir() else (e.strerror or str(e))
        return Preview(encoding=None, delimiter=None, header=(), rows=(), problem=what, **base)
    text, used, problem, suggested = _decode(data, path, encoding)
    file_problem = problem.problem if problem else None
    problem_line = problem.line if problem else None
    if not text.strip():
        return Preview(encoding=used, delimiter=None, header=(), rows=(), problem="the file is empty",
                       suggested_encoding=suggested, **base)
    if kind == "text" or (kind == "wordlist" and not _wordlist_is_table(path, text, columns, delimiter)):
        header, rows, more = _lines(path, text, kind, limit, system)
        delim = None
    else:
        try:
            header, rows, more, delim = _table(path, text, kind, columns, delimiter, limit, system,
                                               inscriptions)
        except InputError as e:  # the header: a column missing, or unreadable
            delim = _header_delimiter(path, text, _required(kind, text, path, columns, delimiter),
                                      columns, delimiter)
            header, rows, more = _raw_rows(text, delim, limit)
            if file_problem is None:
                file_problem, problem_line = e.problem, e.line
    if problem_line is not None:
        rows = [PreviewRow(r.line, r.cells, r.problem or (file_problem if r.line == problem_line else None))
                for r in rows]
    return Preview(encoding=used, delimiter=delim, header=tuple(header), rows=tuple(rows),
                   problem=file_problem, problem_line=problem_line, suggested_encoding=suggested,
                   more=more, **base)


def _header_delimiter(path: Path, text: str, required, columns, delimiter: str | None) -> str:
    """The reader's delimiter; when no delimiter finds the required columns (the header names them
    otherwise and a dialog asks which column is which), the one that splits the header into the
    most cells, so that its columns can be offered."""
    delim = tables.table_delimiter(path, text, required, columns, delimiter)
    if delimiter or detect_delimiter(tables._first_line(text), required, columns, candidates=(delim,)):
        return delim
    header = tables._first_line(text).lstrip("\ufeff")
    counts = {d: header.count(d) for d in DELIMITERS}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] > header.count(delim) else delim


def _wordlist_is_table(path: Path, text: str, columns, delimiter) -> bool:
    from engine.io.wordlist import _is_table
    return _is_table(path, text, columns, delimiter)


def _required(kind: str, text: str, path: Path, columns, delimiter) -> tuple[str, ...]:
    parser = tables._PARSERS.get(kind)
    if parser is not None:
        return parser.required
    return ("form",) if kind == "wordlist" else ()


def _raw_rows(text: str, delim: str, limit: int) -> tuple[list[str], list[PreviewRow], bool]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delim)
    rows: list[PreviewRow] = []
    header: list[str] = []
    more = False
    try:
        for record in reader:
            if not header:
                header = [h.strip() for h in record]
                continue
            if not any(c.strip() for c in record):
                continue
            if len(rows) >= limit:
                more = True
                break
            rows.append(PreviewRow(reader.line_num, tuple(record)))
    except csv.Error as e:
        problem = field_limit_problem() if "field larger" in str(e) else f"malformed CSV ({e})"
        rows.append(PreviewRow(reader.line_num, (), problem))
    return header, rows, more


def _transcribe_problem(system: str | None, form: str, path: Path, line: int) -> str | None:
    if system is None or not form.strip():
        return None if form.strip() else "empty form"
    from engine.io.transcription import transcriber
    try:
        transcriber(system)(unicodedata.normalize("NFC", form.strip()), path=path, line=line)
    except InputError as e:  # TranscriptionError included
        return e.problem
    return None


def _lines(path: Path, text: str, kind: str, limit: int,
           system: str | None) -> tuple[list[str], list[PreviewRow], bool]:
    rows: list[PreviewRow] = []
    more = False
    for no, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip() or (kind == "wordlist" and raw.lstrip().startswith("#")):
            continue
        if len(rows) >= limit:
            more = True
            break
        problem = None
        if len(raw) > CSV_FIELD_LIMIT:
            problem = f"the line is {len(raw):,} characters long (at most {CSV_FIELD_LIMIT:,})"
        cells = tuple(c.strip() for c in raw.split("\t")) if kind == "wordlist" else (raw,)
        if kind == "text" and problem is None:       # its Leiden markup, read as the import reads it
            try:
                # a dot below is no problem of a row: what it is, the import asks (DottedLettersUnchosen)
                tables.lost_text(raw, f"{path.stem}:{no}", dotted="letter", path=path, line=no)
            except InputError as e:
                problem = e.problem
        if kind == "wordlist" and problem is None:
            if len(cells) > 2:
                problem = f"{len(cells)} tab-separated fields; a plain word list has 'word' or 'word<TAB>gloss'"
            else:
                problem = _transcribe_problem(system, cells[0], path, no)
        rows.append(PreviewRow(no, cells, problem))
    header = ["form", "gloss"] if kind == "wordlist" else ["text"]
    return header, rows, more


def _table(path: Path, text: str, kind: str, columns, delimiter, limit: int, system,
           inscriptions) -> tuple[list[str], list[PreviewRow], bool, str]:
    if kind in tables._PARSERS:
        parser = tables._PARSERS[kind](path, inscriptions=inscriptions)
        required, optional = parser.required, parser.optional
    elif kind == "wordlist":
        parser, required, optional = None, ("form",), ("gloss",)
    else:  # a format whose own reader checks it: show the rows as they are
        delim = tables.sniff_delimiter(path, delimiter)
        header, rows, more = _raw_rows(text, delim, limit)
        return header, rows, more, delim
    table = tables._Table(path, text, required, columns=columns, delimiter=delimiter, optional=optional)
    rows: list[PreviewRow] = []
    more = False
    try:
        for line, record in table.records():
            if len(rows) >= limit:
                more = True
                break
            rows.append(PreviewRow(line, tuple(record), _row_problem(parser, table, line, record,
                                                                     kind, system, path)))
    except InputError as e:  # a CSV error: mark where it is and stop
        rows.append(PreviewRow(e.line or 0, (), e.problem))
    return table.header, rows, more, table.delimiter


def _row_problem(parser, table, line: int, record: list[str], kind: str, system, path: Path) -> str | None:
    try:
        row = table.row(line, record)
        if parser is None:  # a word list table
            return _transcribe_problem(system, row.get("form") or "", path, line)
        ipa = getattr(parser, "ipa", None)
        before = len(ipa.symbols) if ipa is not None else 0
        parser(line, row)
        if ipa is not None and len(ipa.symbols) > before:
            found = ipa.symbols[before:]
            shown = ", ".join(f"{sym!r} (U+{ord(sym[0]):04X}{tables._likely(sym)})" for _, sym, _ in found)
            return (f"unknown IPA symbol{'s' if len(found) > 1 else ''} {shown} in {found[0][2]!r}")
    except InputError as e:
        return e.problem
    return None


__all__ = ["CHECKED_KINDS", "Preview", "PreviewRow", "preview_file"]
