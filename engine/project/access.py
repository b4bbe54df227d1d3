"""How a project file can be opened: read-write, or only for viewing when the file or its folder
is read-only, choosing the read-only way SQLite documents so that nothing is left behind.

SQLite owns the ``-wal`` and ``-shm`` files beside a database: this module never deletes them.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

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


def connect(path: Path, how: Access, *, timeout: float = 30.0) -> sqlite3.Connection:
    """An autocommit connection to ``path`` opened as ``how`` says (sqlite3.Error if it fails)."""
    if how.mode == "rw":
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False,
                               timeout=timeout)
    else:
        uri = path.absolute().as_uri() + ("?mode=ro" if how.mode == "ro" else "?immutable=1")
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False,
                               timeout=timeout)
    conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
    return conn


def restore_shm_mode(path: Path, *, access: AccessCheck | None = None) -> bool:
    """Give a read-only ``-shm`` the main file's permissions again, when the file is writable.

    A viewer of a read-only file that had to read its ``-wal`` left a ``-shm`` with the file's
    permissions of then (SQLite copies them); once the file is writable again that ``-shm`` would
    refuse every writer. Its content stays as it is (SQLite owns it). Returns whether it changed.
    """
    check = access or (lambda p, m: os.access(p, m))
    shm = sidecars(path)[1]
    try:
        if not shm.exists() or check(shm, os.W_OK) or not check(path, os.W_OK):
            return False
        if shm.stat().st_uid != os.stat(path).st_uid:
            return False
        os.chmod(shm, os.stat(path).st_mode & 0o666)
        return True
    except OSError:
        return False
