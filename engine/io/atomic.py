"""Writing an output file as a transaction: a hidden temporary beside the target, renamed into
place, removed on any failure; an OS error becomes one line naming the real target and the cause.

One writer for every file the engine produces (CSV exports and reports, metrics.json,
checkpoints): the project's exporters, ``decipher run --out`` and the run session use it.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import os
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from engine.errors import DecipherError

#: Cell openings a spreadsheet would run as a formula (OWASP "CSV injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class WriteError(DecipherError):
    """An output file could not be written (disk full, no permission, a folder in the way…)."""

    def __init__(self, target: str | Path, cause: str):
        self.target = str(target)
        self.cause = cause
        super().__init__(f"{target}: cannot write the file ({cause}); nothing was written")


def describe_os_error(e: OSError) -> str:
    if e.errno == errno.ENOSPC:
        return "the disk is full"
    if e.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if e.errno == errno.EROFS:
        return "read-only file system"
    if e.errno == errno.EISDIR:
        return "it is a folder"
    if e.errno == errno.ENOENT:
        return "its folder does not exist"
    return e.strerror or str(e)


def _real_target(path: Path) -> Path:
    """Write through a symbolic link rather than replacing the link with a file."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``path``, on failure it is removed.

    OSErrors (from the caller's writing or the rename) are raised as :class:`WriteError` naming
    ``path``, never the temporary."""
    path = Path(path)
    target = _real_target(path)
    tmp = target.with_name(f".{target.name}.part")
    # a leftover temporary (or a link planted under its name) is removed, never written through
    if os.path.lexists(tmp):
        try:
            tmp.unlink()
        except OSError as e:
            raise WriteError(path, describe_os_error(e)) from None
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(e, OSError):
            raise WriteError(path, describe_os_error(e)) from None
        raise


def refuse_symlinks(path: str | Path, root: str | Path) -> Path:
    """``path`` (a file or folder the program names itself, inside ``root``) when nothing from
    ``root`` down to it is a symbolic link and it resolves inside ``root``; otherwise WriteError in
    one line. ``root`` itself is the user's (it may be a link); the run folders, sweep folders and
    files below it are the program's, and a link planted there is never followed."""
    path, root = Path(path), Path(root)
    try:
        rel = path.relative_to(root)
    except ValueError:
        raise WriteError(path, f"it is not inside {root}; refused") from None
    here = root
    for part in rel.parts:
        if part in ("..", "."):
            raise WriteError(path, f"its name leads outside {root}; refused")
        here = here / part
        if here.is_symlink():
            raise WriteError(path, f"{here} is a symbolic link (to {os.readlink(here)}); refused: the program "
                                   "never writes through a link in its own folders; remove the link")
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    if os.path.commonpath([real_root, real]) != real_root:
        raise WriteError(path, f"it resolves outside {root} (to {real}); refused")
    return path


def write_text(path: str | Path, text: str) -> None:
    """Write a UTF-8 text file atomically."""
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)


def guard_formula(value: object) -> object:
    """A text cell a spreadsheet would run as a formula, with an apostrophe in front."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def needs_guard(value: object) -> bool:
    """Whether :func:`guard_formula` would change ``value``."""
    return isinstance(value, str) and value.startswith(FORMULA_STARTS)


class Written(int):
    """What an export returns: the number of rows (an ``int``), with ``guarded``: how many text
    cells the formula guard prefixed with an apostrophe (0 when the guard was off)."""

    guarded: int

    def __new__(cls, count: int, guarded: int = 0) -> "Written":
        self = super().__new__(cls, count)
        self.guarded = int(guarded)
        return self


def unguard_formula(value: str) -> str:
    """Undo :func:`guard_formula` (for reading back a report written with the guard)."""
    if value[:1] == "'" and value[1:2] in FORMULA_STARTS:
        return value[1:]
    return value


def write_csv(path: str | Path, header: Sequence[str], rows: Iterable[Sequence], *, delimiter: str = ",",
              bom: bool = False, guard_formulas: bool = False) -> int:
    """Write a UTF-8 CSV/TSV atomically.

    Lines end in CRLF as RFC 4180 says: with that terminator Python's csv writer quotes every cell
    holding a CR or an LF, so any text (a lone CR included) reads back unchanged.
    ``guard_formulas`` prefixes an apostrophe to text cells a spreadsheet would run as a formula
    (the exports the user asks for turn it on; this low-level default is off so that files the
    engine reads back itself round-trip unchanged). Returns how many cells were guarded.
    """
    guarded = 0
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8-sig" if bom else "utf-8", newline="") as f:
            writer = csv.writer(f, delimiter=delimiter, lineterminator="\r\n")
            writer.writerow(header)
            for row in rows:
                if guard_formulas:
                    row = list(row)
                    guarded += sum(needs_guard(v) for v in row)
                    row = [guard_formula(v) for v in row]
                writer.writerow(row)
    return guarded
