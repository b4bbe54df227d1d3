"""Plain byte reads of a project file that never drop this process's SQLite locks.

On POSIX, the locks SQLite takes on a file (``fcntl`` advisory locks) belong to the process and
the file, not to a descriptor: closing *any* descriptor of that file in the process releases every
lock the process holds on it (SQLite's "How To Corrupt An SQLite Database File", section 2.2).
So a plain ``open(path).read()`` or ``shutil.copy2(path, …)`` made while one of our connections
holds a write lock silently hands the file to other processes mid-transaction: another process
then takes our rollback journal for a hot one and rolls it back under us (seen as
``SQLITE_IOERR_DELETE_NOENT`` on COMMIT when eight processes upgraded one old file at once).

Every plain read of a project file therefore goes through one descriptor per file and process,
opened on first use and closed only when the last user lets go of it: :class:`Project
<engine.project.store.Project>` holds it from before its connection opens until after it closes,
so no descriptor of the file is ever closed while our connection may hold a lock. (On Windows
locks belong to handles and this is merely harmless.)
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import Iterator

_lock = threading.Lock()
_held: dict[tuple[int, int], "RawFile"] = {}


def _pread(fd: int, size: int, offset: int) -> bytes:
    if hasattr(os, "pread"):
        return os.pread(fd, size, offset)
    with _lock:  # Windows has no pread: seek and read the shared descriptor one caller at a time
        os.lseek(fd, offset, os.SEEK_SET)
        return os.read(fd, size)


class RawFile:
    """One read-only descriptor of a file, shared by everything in this process that reads it."""

    def __init__(self, fd: int, key: tuple[int, int]):
        self.fd = fd
        self.key = key
        self.users = 0

    def read(self, size: int, offset: int = 0) -> bytes:
        """Up to ``size`` bytes at ``offset`` (fewer only at the end of the file)."""
        out = bytearray()
        while len(out) < size:
            chunk = _pread(self.fd, size - len(out), offset + len(out))
            if not chunk:
                break
            out += chunk
        return bytes(out)

    def size(self) -> int:
        return os.fstat(self.fd).st_size

    def copy_to(self, dest: Path, *, block: int = 1 << 20) -> None:
        """Write the file's current bytes to ``dest`` (created or replaced) and fsync it."""
        with open(dest, "wb") as out:
            offset = 0
            while True:
                chunk = _pread(self.fd, block, offset)
                if not chunk:
                    break
                out.write(chunk)
                offset += len(chunk)
            out.flush()
            os.fsync(out.fileno())


def hold(path: Path) -> RawFile:
    """This process's descriptor of ``path`` (opened now, or the one already held), counted as
    one more user; give it back with :func:`release`. OSError when the file cannot be read."""
    with _lock:
        try:
            st = os.stat(path)
        except OSError:
            st = None
        if st is not None:
            raw = _held.get((st.st_dev, st.st_ino))
            if raw is not None:
                raw.users += 1
                return raw
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        fst = os.fstat(fd)
        key = (fst.st_dev, fst.st_ino)
        raw = _held.get(key)
        if raw is not None:  # the path was replaced by a file we already hold between stat and open
            os.close(fd)
        else:
            raw = _held[key] = RawFile(fd, key)
        raw.users += 1
        return raw


def release(raw: RawFile) -> None:
    """One user fewer; the last one closes the descriptor (call it after closing the connection)."""
    with _lock:
        raw.users -= 1
        if raw.users > 0:
            return
        if _held.get(raw.key) is raw:
            del _held[raw.key]
        with contextlib.suppress(OSError):
            os.close(raw.fd)


@contextlib.contextmanager
def held(path: Path) -> Iterator[RawFile]:
    """:func:`hold` for the length of a ``with`` block."""
    raw = hold(path)
    try:
        yield raw
    finally:
        release(raw)


def holders() -> int:
    """How many files this process holds a descriptor of (for tests)."""
    with _lock:
        return len(_held)
