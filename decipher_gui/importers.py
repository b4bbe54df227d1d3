"""The import formats the File ▸ Import menu offers, and one function that runs any of them
through engine.project.importing (no Qt). Each importer writes all or nothing.

The import dialog's table options (delimiter, encoding, column mapping, preview) go through the
adapter functions here (``detect_encoding``, ``detect_delimiter``, ``preview_table`` and the
``encoding`` argument of ``run_import``), so that switching to the engine readers' own
``delimiter``/``encoding`` parameters and preview function (the "input" work) is one place.
"""

from __future__ import annotations

import csv
import io
import re
import tempfile
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from engine.errors import InputError
from engine.io import tables
from engine.project import importing
from engine.project.store import Project


@dataclass(frozen=True)
class ImportKind:
    key: str
    label: str
    file_filter: str
    asks_name: bool = False        # the new corpus / language gets a name
    asks_system: bool = False      # a transcription system (word lists)
    asks_language: bool = False    # which language of a multi-language file
    asks_corpus: bool = False      # the corpus gold belongs to
    asks_replace: bool = False     # PRIOR: replace the pins instead of merging
    is_dir: bool = False
    columns: tuple[str, ...] = ()  # a table: the columns it needs (mappable to the file's headers)
    optional: tuple[str, ...] = ()


TABLES = "CSV or TSV (*.csv *.tsv *.tab *.txt);;All files (*)"

KINDS: tuple[ImportKind, ...] = (
    ImportKind("lost", "Lost-language corpus (LOST.csv/.tsv)…", TABLES, asks_name=True,
               columns=tables.LOST_COLUMNS),
    ImportKind("text", "Corpus from plain text (one inscription per line)…", "Text (*.txt);;All files (*)",
               asks_name=True),
    ImportKind("hesperia", "Hesperia export (Iberian)…", "CSV (*.csv *.tsv *.txt);;All files (*)", asks_name=True),
    ImportKind("known", "Known language (KNOWN.csv/.tsv)…", TABLES, asks_name=True,
               columns=tables.KNOWN_COLUMNS, optional=("gloss",)),
    ImportKind("wordlist", "Word list with transcription to IPA…", "Word lists (*.txt *.tsv *.csv);;All files (*)",
               asks_name=True, asks_system=True, asks_language=True),
    ImportKind("cldf", "CLDF Wordlist (metadata JSON)…", "CLDF metadata (*.json);;CSV (*.csv);;All files (*)",
               asks_name=True, asks_language=True),
    ImportKind("cog", "NeuroDecipher .cog file (corpus + language + gold)…", "cog (*.cog);;All files (*)",
               asks_name=True),
    ImportKind("gold", "Gold annotations (GOLD.csv/.tsv)…", TABLES, asks_corpus=True,
               columns=tables.GOLD_COLUMNS),
    ImportKind("prior", "Pinned values (PRIOR.csv/.tsv)…", TABLES, asks_replace=True,
               columns=tables.PRIOR_COLUMNS, optional=("weight", "locked", "note")),
)

BY_KEY = {k.key: k for k in KINDS}

#: Imports whose engine reader takes an ``encoding`` and decodes the file itself (the dialog
#: offers Encoding and a preview of the first lines for them).
READS_ENCODING = frozenset({"text", "hesperia", "wordlist"})


def transcription_systems() -> list[str]:
    try:
        from engine.io.transcription import available_systems
        return list(available_systems())
    except Exception:  # the transcription module is optional for the GUI
        return []


# ---- table options: encoding, delimiter, preview ------------------------------------------------

#: (label, codec) offered by the dialog; "auto" detects.
ENCODINGS = (("Detect", "auto"), ("UTF-8", "utf-8-sig"), ("Latin-1 (ISO-8859-1)", "latin-1"),
             ("Windows-1252", "cp1252"), ("UTF-16", "utf-16"))
DELIMITERS = (("Detect", None), ("Comma ,", ","), ("Semicolon ;", ";"), ("Tab", "\t"), ("Pipe |", "|"))


def detect_encoding(data: bytes) -> str:
    """UTF-8 (with or without BOM) when the bytes are valid UTF-8, UTF-16 with its BOM, else
    Windows-1252 when it decodes (what European spreadsheets write), else Latin-1 (never fails)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    try:
        data.decode("utf-8-sig")
        return "utf-8-sig"
    except UnicodeDecodeError:
        pass
    try:
        data.decode("cp1252")
        return "cp1252"
    except UnicodeDecodeError:
        return "latin-1"


def decode(path: Path, data: bytes, encoding: str) -> str:
    """The file's text in ``encoding``; an error names the line and the word with the bad byte."""
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        start = data.rfind(b"\n", 0, e.start) + 1
        end = data.find(b"\n", e.start)
        text_line = data[start: end if end >= 0 else len(data)].decode(encoding, errors="replace")
        word = next((w for w in re.split(r"[\s,;\t|]+", text_line) if "\ufffd" in w), text_line.strip())
        raise InputError(f"the word {word.replace(chr(0xfffd), '?')!r} is not valid {encoding_name(encoding)}; "
                         "choose the file's encoding (Latin-1 or Windows-1252 for older spreadsheets)",
                         path=path, line=line) from None


def encoding_name(codec: str) -> str:
    return {c: label for label, c in ENCODINGS}.get(codec, codec)


def detect_delimiter(text: str, path: Path | None = None) -> str:
    """The delimiter of the header line: the most frequent of tab, semicolon, comma and pipe
    (a .tsv name says tab)."""
    if path is not None and path.suffix.lower() in (".tsv", ".tab"):
        return "\t"
    first = text.lstrip("\ufeff").splitlines()[0] if text.strip() else ""
    counts = {d: first.count(d) for d in ("\t", ";", ",", "|")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


@dataclass(frozen=True)
class Preview:
    """The first rows of a table as the dialog shows them, with the cells that have problems."""

    encoding: str
    delimiter: str
    header: list[str]
    rows: list[list[str]]
    problems: dict[tuple[int, int], str] = field(default_factory=dict)   # (row, column) → what is wrong
    messages: list[str] = field(default_factory=list)                     # problems of the whole file
    lines: list[int] = field(default_factory=list)
    """The file's line of each row (the header is line 1), as the importers' errors count them."""

    @property
    def ok(self) -> bool:
        """Whether the preview shows no problem at all."""
        return not self.problems and not self.messages

    def problem_lines(self) -> list[str]:
        """Each problem in one line, in the importers' words: "line N, column 'x': …"."""
        cells = []
        for (r, c), p in sorted(self.problems.items()):
            line = self.lines[r] if r < len(self.lines) else r + 2
            where = f"column {self.header[c]!r}" if c < len(self.header) else f"field {c + 1}"
            cells.append(f"line {line}, {where}: {p}")
        return self.messages + cells


def preview_table(path: str | Path, *, encoding: str = "auto", delimiter: str | None = None,
                  columns: dict[str, str] | None = None, required: tuple[str, ...] = (), limit: int = 12) -> Preview:
    """Read the first ``limit`` rows of a table with the given options and mark problems: a byte
    the encoding cannot read, a required column that is missing, an empty required cell, a row
    longer than the header. Never raises for bad content (that is what it shows)."""
    path = Path(path)
    data = path.read_bytes()
    codec = detect_encoding(data) if encoding == "auto" else encoding
    messages: list[str] = []
    try:
        text = decode(path, data, codec)
    except InputError as exc:
        messages.append(str(exc))
        text = data.decode(codec, errors="replace")
    text = unicodedata.normalize("NFC", text.lstrip("\ufeff"))
    delim = delimiter or detect_delimiter(text, path)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delim)
    try:
        header = [h.strip() for h in next(reader)]
    except (StopIteration, csv.Error):
        return Preview(codec, delim, [], [], {}, messages + ["the file is empty"])
    rows: list[list[str]] = []
    lines: list[int] = []
    problems: dict[tuple[int, int], str] = {}
    mapping = dict(columns or {})
    wanted = {name: mapping.get(name, name) for name in required}
    for name, src in wanted.items():
        if src not in header:
            messages.append(f"no column {src!r} for {name!r} (the header has "
                            f"{', '.join(repr(h) for h in header)})")
    try:
        for record in reader:
            if len(rows) >= limit:
                break
            if not record or all(not c.strip() for c in record):
                continue
            r = len(rows)
            rows.append(record)
            lines.append(reader.line_num)  # the engine's readers name this line in their errors
            if len(record) > len(header):
                problems[(r, len(header))] = f"{len(record)} fields but the header has {len(header)}"
            for name, src in wanted.items():
                if src in header:
                    c = header.index(src)
                    if c >= len(record) or not record[c].strip():
                        problems[(r, c)] = f"empty {name!r}"
            for c, cell in enumerate(record):
                if "\ufffd" in cell:
                    problems[(r, c)] = f"{cell.replace(chr(0xfffd), '?')!r} is not valid {encoding_name(codec)}"
    except csv.Error as exc:
        messages.append(f"line {reader.line_num}: malformed CSV: {exc}")
    return Preview(codec, delim, header, rows, problems, messages, lines)


def preview_source(kind: str, path: str | Path, *, encoding: str = "auto", limit: int = 12) -> Preview:
    """The first rows of a file an engine reader decodes itself (plain text, Hesperia, word list):
    a table's rows for CSV/TSV files, else the first lines; a byte the encoding cannot read is
    marked and named. Never raises for bad content."""
    path = Path(path)
    if kind == "hesperia" or (kind == "wordlist" and path.suffix.lower() in (".csv", ".tsv", ".tab")):
        return preview_table(path, encoding=encoding, limit=limit)
    data = path.read_bytes()
    codec = detect_encoding(data) if encoding == "auto" else encoding
    messages: list[str] = []
    try:
        text = decode(path, data, codec)
    except InputError as exc:
        messages.append(str(exc))
        text = data.decode(codec, errors="replace")
    text = unicodedata.normalize("NFC", text.lstrip("\ufeff"))
    rows, lines, problems = [], [], {}
    for n, line in enumerate(text.splitlines(), start=1):
        if len(rows) >= limit:
            break
        if not line.strip():
            continue
        if "\ufffd" in line:
            problems[(len(rows), 0)] = f"{line.replace(chr(0xfffd), '?')!r} is not valid {encoding_name(codec)}"
        rows.append([line])
        lines.append(n)
    return Preview(codec, "", ["text"], rows, problems, messages, lines)


def _as_utf8(path: Path, encoding: str) -> tuple[Path, tempfile.TemporaryDirectory | None]:
    """``path`` itself when it is UTF-8, else a UTF-8 copy with the same name in a temporary folder
    (the engine readers take UTF-8 only, until they take an ``encoding``)."""
    if encoding in ("utf-8", "utf-8-sig"):
        return path, None
    text = decode(path, path.read_bytes(), encoding)
    tmp = tempfile.TemporaryDirectory(prefix="decipher-import-")
    copy = Path(tmp.name) / path.name
    copy.write_text(text.lstrip("\ufeff"), encoding="utf-8", newline="")
    return copy, tmp


def run_import(project: Project, kind: str, path: str | Path, *, name: str | None = None,
               system: str | None = None, language: str | None = None, corpus: int | str | None = None,
               replace: bool = False, delimiter: str | None = None, encoding: str | None = None,
               columns: dict[str, str] | None = None) -> str:
    """Import ``path`` as ``kind``; returns a one-line summary for the status bar. ``encoding``
    ("auto" detects), ``delimiter`` and ``columns`` (our column → the file's) apply to tables."""
    path = Path(path)
    table = BY_KEY[kind].columns if kind in BY_KEY else ()
    if kind in READS_ENCODING:  # the engine reader decodes (and names a bad byte's line) itself
        return _run_import(project, kind, path, name=name, system=system, language=language, corpus=corpus,
                           replace=replace, encoding=None if encoding in (None, "auto") else encoding)
    if not table or (encoding is None and delimiter is None and not columns):
        return _run_import(project, kind, path, name=name, system=system, language=language, corpus=corpus,
                           replace=replace)
    data = path.read_bytes()
    codec = detect_encoding(data) if encoding in (None, "auto") else encoding
    text = decode(path, data, codec)  # always: a byte the encoding cannot read is named in the app's words
    delim = delimiter or detect_delimiter(text, path)
    source, tmp = _as_utf8(path, codec)
    try:
        return _run_import(project, kind, source, name=name or path.stem, system=system, language=language,
                           corpus=corpus, replace=replace, delimiter=delim, columns=columns or None)
    except InputError as exc:
        if tmp is not None and exc.path == str(source):  # name the user's file, not the temporary copy
            raise InputError(exc.problem, path=path, line=exc.line) from None
        raise
    finally:
        if tmp is not None:
            tmp.cleanup()


def _run_import(project: Project, kind: str, path: Path, *, name: str | None = None,
                system: str | None = None, language: str | None = None, corpus: int | str | None = None,
                replace: bool = False, delimiter: str | None = None, columns: dict[str, str] | None = None,
                encoding: str | None = None) -> str:
    table_options = {} if delimiter is None and columns is None else {"delimiter": delimiter, "columns": columns}
    if encoding is not None:
        table_options["encoding"] = encoding
    name = (name or "").strip() or None
    language = (language or "").strip() or None
    corpus_importers = {"lost": importing.import_lost, "text": importing.import_text,
                        "hesperia": importing.import_hesperia}
    if kind in corpus_importers:
        extra = table_options if kind == "lost" else ({"encoding": encoding} if encoding else {})
        cid = corpus_importers[kind](project, path, name=name, **extra)
        return f"Imported corpus {project.corpus(cid).name!r} ({len(project.inscriptions(cid))} inscriptions)"
    if kind in ("known", "wordlist", "cldf"):
        if kind == "known":
            lid = importing.import_known(project, path, name=name, **table_options)
        elif kind == "cldf":
            lid = importing.import_cldf(project, path, name=name, language=language)
        elif not system:
            raise ValueError("a word list needs a transcription system")
        else:
            lid = importing.import_wordlist(project, path, system, name=name, language=language,
                                            encoding=encoding)
        return f"Imported known language {project.vocabulary(lid).language!r} ({len(project.stems(lid))} stems)"
    if kind == "cog":
        cid, lid = importing.import_cog(project, path, name=name)
        return (f"Imported corpus {project.corpus(cid).name!r} and known language "
                f"{project.vocabulary(lid).language!r}")
    if kind == "gold":
        n = importing.import_gold(project, path, corpus=corpus, **table_options)
        return f"Imported {n} gold annotations"
    if kind == "prior":
        n = importing.import_prior(project, path, replace=replace, **table_options)
        return f"Imported {n} pinned values" + (" (replacing the old ones)" if replace else "")
    raise ValueError(f"unknown import kind {kind!r}")


def importer_for(kind: str, path: str | Path, **options) -> Callable[[Project], str]:
    """A one-argument callable for commands.ImportCommand."""
    return lambda project: run_import(project, kind, path, **options)
