"""Readers and writers of the CSV/TSV formats in docs/formats.md (LOST, KNOWN, GOLD, PRIOR).

Every reader checks the whole file before returning anything, and every problem is an
InputError naming the file, the line (the header is line 1) and what is wrong.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence

from ..data import GoldAnnotation, Inscription, PinnedValue, Stem, normalise_text, split_units
from ..errors import InputError
from ..phonology import ipa_units

LOST_COLUMNS = ("id", "text")
KNOWN_COLUMNS = ("form", "ipa")
GOLD_COLUMNS = ("inscription_id", "start", "word_end", "known")
PRIOR_COLUMNS = ("lost", "known_ipa")


def read_text(path: str | Path, what: str = "file") -> str:
    """The file's text as UTF-8 (a BOM is allowed); a decoding error names the line and asks to
    save the ``what`` (e.g. "export") as UTF-8."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", path=path) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputError(
            f"not valid UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start}); "
            f"save the {what} as UTF-8", path=path, line=line) from None


def sniff_delimiter(path: str | Path, delimiter: str | None) -> str:
    if delimiter:
        return delimiter
    return "\t" if Path(path).suffix.lower() in (".tsv", ".tab") else ","


def iter_rows(path: str | Path, required: Sequence[str], *, columns: Mapping[str, str] | None = None,
              delimiter: str | None = None, optional: Sequence[str] = ()) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line number, row) with our column names, after checking the header.

    ``columns`` maps our column names to the file's (for files with other headers).
    """
    text = read_text(path)
    if not text.strip():
        raise InputError("the file is empty", path=path)
    delim = sniff_delimiter(path, delimiter)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delim, strict=True)
    mapping = dict(columns or {})
    try:
        header = next(reader)
    except csv.Error as e:
        raise InputError(f"cannot read the header: {e}", path=path, line=1) from None
    header = [h.strip() for h in header]
    positions: dict[str, int] = {}
    for name in list(required) + list(optional):
        src = mapping.get(name, name)
        if src in header:
            positions[name] = header.index(src)
        elif name in required:
            shown = ", ".join(repr(h) for h in header)
            sep = "tab" if delim == "\t" else repr(delim)
            raise InputError(f"missing column {src!r} (the header has {shown}; delimiter {sep})",
                             path=path, line=1)
    extra = [h for i, h in enumerate(header) if i not in positions.values() and h]
    line = 1
    try:
        for record in reader:
            line = reader.line_num
            if not record or all(not c.strip() for c in record):
                continue
            if len(record) > len(header):
                raise InputError(f"{len(record)} fields but the header has {len(header)}", path=path, line=line)
            row = {name: (record[i] if i < len(record) else "") for name, i in positions.items()}
            for i, h in enumerate(header):
                if h in extra and i < len(record):
                    row.setdefault("_extra", {})[h] = record[i]  # type: ignore[index]
            yield line, row
    except csv.Error as e:
        raise InputError(f"malformed CSV ({e}); is the file truncated or a quote left open?",
                         path=path, line=reader.line_num or line) from None


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


def read_lost(path: str | Path, *, columns: Mapping[str, str] | None = None,
              delimiter: str | None = None) -> list[Inscription]:
    """LOST.csv: ``id,text``; further columns are kept as metadata."""
    out: list[Inscription] = []
    seen: dict[str, int] = {}
    for line, row in iter_rows(path, LOST_COLUMNS, columns=columns, delimiter=delimiter):
        ins_id = _need(row, "id", path, line)
        if ins_id in seen:
            raise InputError(f"duplicate id {ins_id!r} (first on line {seen[ins_id]})", path=path, line=line)
        seen[ins_id] = line
        raw = row.get("text") or ""
        text = normalise_text(raw)
        if not text:
            raise InputError(f"inscription {ins_id!r} has no text", path=path, line=line)
        meta = {k: v for k, v in (row.get("_extra") or {}).items() if v}
        out.append(Inscription(ins_id, text, raw=raw, meta=meta))
    return _nonempty(out, "inscriptions", path)


def read_plain_text(path: str | Path, *, id_prefix: str | None = None) -> list[Inscription]:
    """Plain text, one inscription per line; ids are ``<prefix><line number>``."""
    text = read_text(path)
    prefix = id_prefix if id_prefix is not None else Path(path).stem + ":"
    out = []
    for i, raw in enumerate(text.splitlines(), start=1):
        norm = normalise_text(raw)
        if norm:
            out.append(Inscription(f"{prefix}{i}", norm, raw=raw))
    if not text.strip():
        raise InputError("the file is empty", path=path)
    return out


def read_known(path: str | Path, *, columns: Mapping[str, str] | None = None,
               delimiter: str | None = None, source: str | None = None) -> list[Stem]:
    """KNOWN.csv: ``form,ipa`` plus optional ``gloss`` and ``source``; every IPA string is checked."""
    out: list[Stem] = []
    src = source or Path(path).name
    for line, row in iter_rows(path, KNOWN_COLUMNS, columns=columns, delimiter=delimiter,
                               optional=("gloss", "source")):
        form = _need(row, "form", path, line)
        ipa = _need(row, "ipa", path, line)
        if not ipa_units(ipa, source=f"form {form!r}", path=path, line=line):
            raise InputError(f"IPA {ipa!r} of {form!r} holds no sound (only length, stress or break marks)",
                             path=path, line=line)
        out.append(Stem(form, ipa, (row.get("gloss") or "").strip(), (row.get("source") or "").strip() or src))
    return _nonempty(out, "stems", path)


def read_gold(path: str | Path, *, columns: Mapping[str, str] | None = None,
              delimiter: str | None = None, inscriptions: Iterable[Inscription] | None = None) -> list[GoldAnnotation]:
    """GOLD.csv: ``inscription_id,start,word_end,known`` (known forms separated by ``|``)."""
    lengths = {ins.id: len(split_units(ins.text)) for ins in inscriptions} if inscriptions is not None else None
    out: list[GoldAnnotation] = []
    for line, row in iter_rows(path, GOLD_COLUMNS, columns=columns, delimiter=delimiter):
        ins_id = _need(row, "inscription_id", path, line)
        start = _int(row, "start", path, line)
        end = _int(row, "word_end", path, line)
        known = tuple(k.strip() for k in _need(row, "known", path, line).split("|") if k.strip())
        if not known:
            raise InputError("'known' lists no form (only '|' separators)", path=path, line=line)
        if start < 0 or end <= start:
            raise InputError(f"need 0 <= start < word_end, got start={start}, word_end={end}", path=path, line=line)
        if lengths is not None:
            if ins_id not in lengths:
                raise InputError(f"unknown inscription id {ins_id!r}", path=path, line=line)
            if end > lengths[ins_id]:
                raise InputError(f"word_end={end} is past the end of inscription {ins_id!r} "
                                 f"({lengths[ins_id]} units)", path=path, line=line)
        out.append(GoldAnnotation(ins_id, start, end, known))
    return _nonempty(out, "gold rows", path)


def read_prior(path: str | Path, *, columns: Mapping[str, str] | None = None,
               delimiter: str | None = None) -> list[PinnedValue]:
    """PRIOR.csv: ``lost,known_ipa[,weight][,locked][,note]``: pinned sound values."""
    out: list[PinnedValue] = []
    seen: dict[tuple[str, str], int] = {}
    for line, row in iter_rows(path, PRIOR_COLUMNS, columns=columns, delimiter=delimiter,
                               optional=("weight", "locked", "note")):
        lost = normalise_text(_need(row, "lost", path, line))
        ipa = _need(row, "known_ipa", path, line)
        units = ipa_units(ipa, source=f"pinned value of {lost!r}", path=path, line=line)
        if len(units) != 1:
            raise InputError(f"known_ipa {ipa!r} must be one IPA unit, got {len(units)}: {' '.join(units)}",
                             path=path, line=line)
        weight = 1.0
        if (row.get("weight") or "").strip():
            try:
                weight = float(row["weight"])
            except ValueError:
                raise InputError(f"weight must be a number, not {row['weight']!r}", path=path, line=line) from None
            if not weight > 0:
                raise InputError(f"weight must be positive, got {weight}", path=path, line=line)
        locked_s = (row.get("locked") or "1").strip().lower()
        if locked_s not in ("1", "0", "true", "false", "yes", "no"):
            raise InputError(f"locked must be 1/0/true/false, not {locked_s!r}", path=path, line=line)
        key = (lost, units[0])
        if key in seen:
            raise InputError(f"duplicate pin {lost} -> {units[0]} (first on line {seen[key]})", path=path, line=line)
        seen[key] = line
        out.append(PinnedValue(lost, units[0], weight, locked_s in ("1", "true", "yes"), (row.get("note") or "").strip()))
    return _nonempty(out, "pinned values", path)


# one atomic CSV writer for the whole engine (a failed write leaves nothing, and names the file)
from .atomic import write_csv  # noqa: E402


def write_lost(path, inscriptions: Iterable[Inscription], **kw) -> None:
    write_csv(path, LOST_COLUMNS, ((i.id, i.text) for i in inscriptions), **kw)


def write_known(path, stems: Iterable[Stem], **kw) -> None:
    write_csv(path, ("form", "ipa", "gloss", "source"), ((s.form, s.ipa, s.gloss, s.source) for s in stems), **kw)


def write_gold(path, gold: Iterable[GoldAnnotation], **kw) -> None:
    write_csv(path, GOLD_COLUMNS, ((g.inscription_id, g.start, g.word_end, "|".join(g.known)) for g in gold), **kw)


def write_prior(path, pins: Iterable[PinnedValue], **kw) -> None:
    write_csv(path, ("lost", "known_ipa", "weight", "locked", "note"),
              ((p.lost, p.known_ipa, repr(float(p.weight)), int(p.locked), p.note) for p in pins), **kw)
