"""How a project file can be opened: read-write, or only for viewing when the file or its folder
is read-only, choosing the read-only way SQLite documents so that nothing is left behind.

SQLite owns the ``-wal`` and ``-shm`` files beside a database: this module never deletes them.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

#: ``access(path, mode) -> bool``, as :func:`os.access` (tests inject their own).
AccessCheck = Callable[[Path, int], bool]


@dataclass(frozen=True)
class Access:
    """How to open one file: ``mode`` is "rw", "ro" (``mode=ro``: reads the WAL through a
    ``-shm``) or "immutable" (``immutable=1``: reads the main file only, creates nothing)."""

    mode: str
    reason: str = ""
    """Why the file cannot be written ("" when it can)."""

    @property
    def read_only(self) -> bool:
        return self.mode != "rw"


def sidecars(path: Path) -> tuple[Path, Path]:
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


def choose(path: Path, *, read_only: bool = False, access: AccessCheck | None = None) -> Access:
    """The way to open ``path``, from the permissions of the file, its folder and its sidecars.

    Read-only (asked for, or the file cannot be written, or the folder cannot take the ``-wal``
    and ``-shm`` files SQLite makes beside it): ``immutable=1`` when no ``-wal`` holds data, so
    that not even a ``-shm`` is created (one made for a ``chmod 444`` file would be read-only too
    and block the writers that come after); else ``mode=ro``, which needs the ``-shm`` to exist or
    to be creatable: where it is neither, ``immutable=1`` shows the file as of its last checkpoint.
    """
    check = access or (lambda p, m: os.access(p, m))
    wal, shm = sidecars(path)
    folder = path.parent
    folder_ok = check(folder, os.W_OK | os.X_OK)
    wal_data = wal.exists() and wal.stat().st_size > 0
    reason = ""
    if read_only:
        reason = "opened for viewing only"
    elif not check(path, os.W_OK):
        reason = f"the file {path.name} is read-only"
    elif not folder_ok and not all(p.exists() and check(p, os.W_OK) for p in (wal, shm)):
        reason = f"its folder {folder} is read-only"
    elif shm.exists() and not check(shm, os.W_OK):
        reason = f"its {shm.name} file is read-only"
    if not reason:
        return Access("rw")
    if not wal_data:
        return Access("immutable", reason)
    if shm.exists() or folder_ok:
        return Access("ro", reason)
    return Access("immutable", reason + "; changes still in its -wal file are not shown")


#: The most steps of SQLite's virtual machine one statement may take on a project file (about
#: half a second to two seconds of work, far above what any of this program's statements needs
#: on the largest project tried). A received file is untrusted: should a statement run away on
#: it, it is interrupted and the call refused (see :class:`StatementBound`).
MAX_STATEMENT_STEPS = 50_000_000

#: The longest text or blob a connection reads or makes (SQLITE_LIMIT_LENGTH), in bytes: four
#: times the 16 MiB cell limit of the readers (UTF-8), so a cell a reader took always fits.
MAX_VALUE_BYTES = 4 * 16 * 1024 * 1024 + 1024

_CHECK_EVERY = 10_000  # steps between two calls of the progress handler


class StatementBound:
    """The progress handler of a project connection: counts the steps of the statement running
    (the count starts again with each statement SQLite reports to the trace callback) and
    interrupts it past ``max_steps`` (``sqlite3.OperationalError: interrupted``; ``tripped`` then
    says it was this bound). Counting steps, not seconds, makes the bound the same on any machine
    load and in tests."""

    def __init__(self, max_steps: int):
        self.max_steps = int(max_steps)
        self.count = 0
        self.paused = 0
        self.tripped = False

    def reset(self, _statement: str | None = None) -> None:
        self.count = 0  # (``tripped`` stays until :func:`overran` reads it: a ROLLBACK comes between)

    def __call__(self) -> int:
        self.count += _CHECK_EVERY
        if self.paused or self.count <= self.max_steps:
            return 0
        self.tripped = True
        return 1


class BoundedConnection(sqlite3.Connection):
    """An sqlite3 connection that carries its :class:`StatementBound`."""

    bound: StatementBound


def connect(path: Path, how: Access, *, timeout: float = 30.0,
            max_steps: int | None = None) -> sqlite3.Connection:
    """An autocommit connection to ``path`` opened as ``how`` says (sqlite3.Error if it fails).

    The file is untrusted: ``PRAGMA trusted_schema = OFF`` (no function with side effects runs
    from its schema), every statement is bounded to ``max_steps`` (default
    :data:`MAX_STATEMENT_STEPS`) steps, and no value may exceed :data:`MAX_VALUE_BYTES`.
    The file name goes to SQLite as bytes, so names that are not UTF-8 open as well.
    """
    if how.mode == "rw":
        conn = sqlite3.connect(os.fsencode(path), isolation_level=None, check_same_thread=False,
                               timeout=timeout, factory=BoundedConnection)
    else:
        uri = path.absolute().as_uri() + ("?mode=ro" if how.mode == "ro" else "?immutable=1")
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False,
                               timeout=timeout, factory=BoundedConnection)
    bound = StatementBound(MAX_STATEMENT_STEPS if max_steps is None else max_steps)
    conn.bound = bound
    conn.set_progress_handler(bound, _CHECK_EVERY)
    conn.set_trace_callback(bound.reset)
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
    conn.execute("PRAGMA trusted_schema=OFF")
    conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
    return conn


def overran(conn: sqlite3.Connection | None) -> bool:
    """Whether a statement on ``conn`` was interrupted by its :class:`StatementBound` since the
    last call (the error it raised is being handled); the answer is given once."""
    bound = getattr(conn, "bound", None)
    if bound is None or not bound.tripped:
        return False
    bound.tripped = False
    return True


def overrun_message(conn: sqlite3.Connection) -> str:
    """The reason given when a statement was stopped by the bound."""
    bound = getattr(conn, "bound", None)
    limit = bound.max_steps if bound is not None else MAX_STATEMENT_STEPS
    return (f"refused: one statement on the file ran past {limit:,} steps of SQLite, far more than "
            "a project file needs (the file may be crafted); it was stopped")


@contextlib.contextmanager
def unbounded(conn: sqlite3.Connection) -> Iterator[None]:
    """Lift the step bound for our own long work on a file already checked (an upgrade)."""
    bound = getattr(conn, "bound", None)
    if bound is None:
        yield
        return
    bound.paused += 1
    try:
        yield
    finally:
        bound.paused -= 1


def refuse_linked_sidecars(path: Path) -> None:
    """A ``-wal``/``-shm`` that is a symbolic link is refused in one line (ProjectError): SQLite
    would read, write or create through it, and nothing of this program touches it."""
    from engine.errors import ProjectError

    for side in sidecars(path):
        if side.is_symlink():
            try:
                to = os.readlink(side)
            except OSError:
                to = "?"
            raise ProjectError(f"{path}: refused: {side.name} is a symbolic link (to {to}); SQLite's side "
                               "files must be plain files beside the project (the link and what it points to "
                               "are left as they are); remove the link")


def restore_shm_mode(path: Path, *, access: AccessCheck | None = None) -> bool:
    """Give a read-only ``-shm`` the main file's permissions again, when the file is writable.

    A viewer of a read-only file that had to read its ``-wal`` left a ``-shm`` with the file's
    permissions of then (SQLite copies them); once the file is writable again that ``-shm`` would
    refuse every writer. Its content stays as it is (SQLite owns it). Returns whether it changed.
    """
    check = access or (lambda p, m: os.access(p, m))
    shm = sidecars(path)[1]
    try:
        # SQLite's file, never a link: a chmod would change the permissions of what it points to
        if shm.is_symlink() or not shm.exists() or check(shm, os.W_OK) or not check(path, os.W_OK):
            return False
        if shm.stat().st_uid != os.stat(path).st_uid:
            return False
        os.chmod(shm, os.stat(path).st_mode & 0o666)
        return True
    except OSError:
        return False
