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
import re
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from engine.errors import DecipherError

#: Cell openings a spreadsheet would run as a formula (OWASP "CSV injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: A plain number written as text (``-0.25``, ``+1e-3``): a spreadsheet reads it as that number, no formula.
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


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


def _link_message(path: Path) -> str:
    try:
        to = os.readlink(path)
    except OSError:
        to = "?"
    return (f"it is a symbolic link (to {to}); refused: the program never writes through a link "
            "(its target is left as it is); remove the link, or name the file itself")


#: Why an existing file is not replaced, where no option says otherwise.
NOT_NAMED = "the program never replaces a file you did not name; remove it or choose another folder"
#: The same, for a command with --force.
FORCE_HINT = "the program never replaces a file you did not name; give --force to replace it"


class OutputExists(WriteError):
    """A file the program would write is already there and the user did not name it."""

    def __init__(self, target: str | Path, hint: str = NOT_NAMED):
        self.target = str(target)
        self.cause = f"it is already there; {hint}"
        DecipherError.__init__(self, f"{target}: already there; refused, nothing was written ({hint})")


def check_new(paths: Iterable[str | Path], *, force: bool = False, hint: str = NOT_NAMED) -> None:
    """Before any work: refuse (one line) an output the program names itself that is already
    there (unless ``force``), and any that is a symbolic link (even with ``force``: its target is
    never written). ``paths`` are files the user did not name (``--out DIR``'s files)."""
    for path in paths:
        path = Path(path)
        if path.is_symlink():
            raise WriteError(path, _link_message(path))
        if os.path.lexists(path) and not force:
            raise OutputExists(path, hint)


def _make_temporary(path: Path, tmp: Path) -> None:
    """Create ``tmp`` new and empty (O_EXCL, never through a link); a leftover of a killed writer
    (or a link planted under its name) is removed first, never written through."""
    try:
        if os.path.lexists(tmp):
            tmp.unlink()
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
        os.close(fd)
    except OSError as e:
        raise WriteError(path, describe_os_error(e)) from None


def _place_new(tmp: Path, path: Path) -> None:
    """Move ``tmp`` to ``path`` only if nothing is there (a hard link fails on an existing name,
    where a rename would replace it); file systems without hard links fall back to a checked rename."""
    try:
        os.link(tmp, path, follow_symlinks=False)
    except FileExistsError:
        raise OutputExists(path) from None
    except OSError as e:
        if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        if os.path.lexists(path):
            raise OutputExists(path) from None
        os.replace(tmp, path)
        return
    os.unlink(tmp)


@contextlib.contextmanager
def atomic_path(path: str | Path, *, replace: bool = True) -> Iterator[Path]:
    """Yield a temporary path to write; on success it becomes ``path``, on failure it is removed.

    The one rule for every file the product writes (docs/formats.md): the file is made new
    beside its target (``.NAME.part``, created with O_EXCL) and renamed into place within the
    folder; a symbolic link at ``path`` is refused (never written through, its target untouched);
    ``replace`` (a file the user named) lets an existing regular file be replaced, without it
    (a file the program names itself) an existing one is refused with :class:`OutputExists`.

    OSErrors (from the caller's writing or the rename) are raised as :class:`WriteError` naming
    ``path``, never the temporary."""
    path = Path(path)
    if path.is_symlink():
        raise WriteError(path, _link_message(path))
    if not replace and os.path.lexists(path):
        raise OutputExists(path)
    tmp = path.with_name(f".{path.name}.part")
    _make_temporary(path, tmp)
    try:
        yield tmp
        if path.is_symlink():  # planted while we wrote
            raise WriteError(path, _link_message(path))
        if replace:
            os.replace(tmp, path)
        else:
            _place_new(tmp, path)
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


def write_text(path: str | Path, text: str, *, replace: bool = True) -> None:
    """Write a UTF-8 text file atomically (``replace``: see :func:`atomic_path`)."""
    with atomic_path(path, replace=replace) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)


def guard_formula(value: object) -> object:
    """A text cell a spreadsheet would run as a formula, with an apostrophe in front (as one that
    already starts with apostrophes before such a character: so :func:`unguard_formula` gives
    every text back exactly, code columns such as ``lost_span_code`` included)."""
    if needs_guard(value):
        return "'" + value
    return value


def needs_guard(value: object) -> bool:
    """Whether :func:`guard_formula` would change ``value``."""
    if not isinstance(value, str) or not value:
        return False
    if value.startswith(FORMULA_STARTS):
        return _NUMBER.fullmatch(value) is None
    rest = value.lstrip("'")
    return value[0] == "'" and rest[:1] != "" and rest.startswith(FORMULA_STARTS)


class Written(int):
    """What an export returns: the number of rows (an ``int``), with ``guarded``: how many text
    cells the formula guard prefixed with an apostrophe (0 when the guard was off)."""

    guarded: int

    def __new__(cls, count: int, guarded: int = 0) -> "Written":
        self = super().__new__(cls, count)
        self.guarded = int(guarded)
        return self


def unguard_formula(value: str) -> str:
    """Undo :func:`guard_formula` (for reading back a file written with the guard): one
    apostrophe goes from a cell whose apostrophes are followed by a formula's first character."""
    if value[:1] == "'" and value.lstrip("'")[:1] != "" and value.lstrip("'").startswith(FORMULA_STARTS):
        return value[1:]
    return value


def unguard_row(row):
    """A row read back (a dict or a sequence of cells) with :func:`unguard_formula` on each text cell."""
    if isinstance(row, dict):
        return {k: unguard_formula(v) if isinstance(v, str) else v for k, v in row.items()}
    return [unguard_formula(v) if isinstance(v, str) else v for v in row]


def write_csv(path: str | Path, header: Sequence[str], rows: Iterable[Sequence], *, delimiter: str = ",",
              bom: bool = False, guard_formulas: bool = False, replace: bool = True) -> int:
    """Write a UTF-8 CSV/TSV atomically (``replace``: see :func:`atomic_path`).

    Lines end in CRLF as RFC 4180 says: with that terminator Python's csv writer quotes every cell
    holding a CR or an LF, so any text (a lone CR included) reads back unchanged.
    ``guard_formulas`` prefixes an apostrophe to text cells a spreadsheet would run as a formula
    (every report and export turns it on: a run's matches.csv and steps.csv, a sweep's
    results.csv, consensus.csv, the project's exports; the engine's readers of those files take it
    off again with :func:`unguard_row`; this low-level default is off for data files the engine
    reads as inputs). Returns how many cells were guarded.
    """
    guarded = 0
    with atomic_path(path, replace=replace) as tmp:
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
