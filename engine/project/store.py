"""The project store: one SQLite file (``.decipher``) holding corpora, vocabularies, gold, pins,
runs, their metrics and decoded matches, and the user's decisions on those matches.

Qt-free. Every mutating call is one transaction (``BEGIN IMMEDIATE`` … ``COMMIT``), committed
before it returns, so a process killed at any moment leaves the file as it was after its last
completed call. Several calls can be grouped with ``with project.transaction(): ...``.

The file stays in WAL mode; :meth:`Project.close` checkpoints it, after which the ``-wal`` and
``-shm`` files beside it are gone and the one ``.decipher`` file holds everything. Opening only
writes when it must (an upgrade, or marking an interrupted run), so merely opening and closing a
file, or a failed import, leaves it byte-for-byte unchanged.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, TypeVar

import sqlite_utils

from .. import __version__
from ..config import Config
from ..data import Corpus, GoldAnnotation, Inscription, PinnedValue, Stem, Vocabulary, split_units
from ..errors import DecipherError, ProjectError
from ..results import Alternative, Match
from . import schema
from . import access
from .access import Access
from .schema import APPLICATION_ID, DECISIONS, SCHEMA_VERSION

#: A run still "running" whose process lives on this host is taken for dead only when its
#: heartbeat is older than this (guards against a reused pid); seconds.
STALE_SAME_HOST = 3600.0
#: A run "running" on another host (a shared folder) is taken for dead after this many seconds
#: without a heartbeat.
STALE_OTHER_HOST = 600.0

FINAL_STATUSES = ("completed", "stopped", "failed", "interrupted")

T = TypeVar("T")


# ---------------------------------------------------------------------------------------------
# small helpers


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def now_iso() -> str:
    """UTC time as ISO 8601 with milliseconds, e.g. ``2024-05-01T12:00:00.000+00:00``."""
    return _utc_now().isoformat(timespec="milliseconds")


def _parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


def _real(value: float | None) -> float | None:
    """SQLite stores NaN as NULL: keep that explicit."""
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def _unreal(value: float | None) -> float:
    return math.nan if value is None else float(value)


def pid_alive(pid: int | None) -> bool:
    """Whether a process with this id runs on this host (zombies count as dead)."""
    if pid is None or pid <= 0:
        return False
    if sys.platform == "win32":  # os.kill(pid, 0) would send CTRL_C_EVENT there
        import ctypes
        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        try:
            code = ctypes.c_ulong()
            if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
                return False
            return code.value == 259  # STILL_ACTIVE
        finally:
            kernel32.CloseHandle(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    try:  # a killed child not yet reaped by its parent is a zombie: dead for our purposes
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
        return state not in (b"Z", b"X")
    except (OSError, IndexError):
        return True


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """``engine.__version__``, plus ``git describe`` of the source tree when there is one."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        return __version__
    try:
        out = subprocess.run(["git", "-C", str(root), "describe", "--always", "--dirty", "--tags"],
                             capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return __version__
    described = out.stdout.strip()
    return f"{__version__} ({described})" if out.returncode == 0 and described else __version__


def _locked(method: Callable[..., T]) -> Callable[..., T]:
    """Serialise calls across threads, refuse calls on a closed project, and turn SQLite errors
    into ProjectError."""

    @functools.wraps(method)
    def wrapper(self: "Project", *args, **kwargs):
        with self._lock:
            if self._conn is None:
                raise ProjectError(f"{self.path}: the project is closed")
            try:
                return method(self, *args, **kwargs)
            except DecipherError:
                raise
            except sqlite3.IntegrityError as e:
                raise ProjectError(f"{self.path}: {method.__name__}: refused by the file's "
                                   f"constraints ({e})") from None
            except sqlite3.Error as e:
                raise ProjectError(f"{self.path}: {method.__name__}: {e}") from None

    return wrapper


# ---------------------------------------------------------------------------------------------
# records handed out


@dataclass(frozen=True)
class CorpusInfo:
    id: int
    name: str
    source: str
    format: str
    imported_at: str
    inscriptions: int
    gold: int


@dataclass(frozen=True)
class LanguageInfo:
    id: int
    name: str
    source: str
    format: str
    imported_at: str
    stems: int


@dataclass(frozen=True)
class PinRecord:
    pin: PinnedValue
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class RunRecord:
    id: int
    status: str
    config: Mapping[str, Any]
    seed: int | None
    code_version: str
    device: str
    corpus_id: int | None
    language_id: int | None
    pins: tuple[PinnedValue, ...]
    started_at: str
    ended_at: str | None
    host: str
    pid: int | None
    heartbeat_at: str | None
    last_step: int | None
    checkpoint: str | None
    error: str | None
    resumed_from: int | None

    def settings(self) -> Config:
        """The run's Config (raises InputError if the stored settings no longer load)."""
        return Config.from_dict(dict(self.config))

    def summary(self) -> str:
        """Config.summary() of the run's settings, or a note when they no longer load."""
        try:
            return self.settings().summary()
        except DecipherError as e:
            return f"unreadable settings ({e})"


@dataclass(frozen=True)
class MatchRecord:
    """A stored match with its row id (``match_id`` in reports)."""

    id: int
    run_id: int
    match: Match


DecisionKey = tuple[str, int, int, str]
"""(inscription_id, start, end, form): with the run id, what a decision is stored under."""


# ---------------------------------------------------------------------------------------------


class Project:
    """An open project file. Use :meth:`create` or :meth:`open`, then :meth:`close` (or ``with``)."""

    APPLICATION_ID = APPLICATION_ID
    SCHEMA_VERSION = SCHEMA_VERSION

    def __init__(self, path: Path, conn: sqlite3.Connection, *, migrated_from: int | None = None,
                 backup: Path | None = None, access: access.Access | None = None,
                 clock: Callable[[], datetime] | None = None):
        self.path = path
        self.access = access or Access("rw")
        self.clock = clock or _utc_now
        """Now, as a UTC datetime: the clock of the file's time stamps and of the staleness checks
        (tests inject one)."""
        self._conn: sqlite3.Connection | None = conn
        self._lock = threading.RLock()
        self._depth = 0
        self.db = sqlite_utils.Database(conn, execute_plugins=False)
        self.migrated_from = migrated_from
        """The schema version the file had before this open upgraded it (None: no upgrade)."""
        self.backup = backup
        """The backup written before that upgrade."""
        self.interrupted: list[int] = []
        """Runs this open found dead and marked "interrupted"."""

    # ---- opening and closing -------------------------------------------------------------

    @classmethod
    def create(cls, path: str | Path, *, overwrite: bool = False,
               clock: Callable[[], datetime] | None = None) -> "Project":
        """Make a new, empty project file and open it. The file appears complete or not at all.

        Without ``overwrite`` the finished file is linked into place, which fails when another
        process made the same file meanwhile (a plain rename would replace that file, and any
        run already written into it, without a word).
        """
        path = Path(path)
        if path.exists() and not overwrite:
            raise ProjectError(f"{path}: the file already exists")
        if path.exists() and not path.is_file():
            raise ProjectError(f"{path}: not a file")
        if any(p.exists() for p in schema._sidecars(path)):
            raise ProjectError(f"{path}: the file is open in another program (its -wal/-shm "
                               "files exist); close it first")
        if not path.parent.is_dir():
            raise ProjectError(f"{path}: the folder {path.parent} does not exist")
        if not os.access(path.parent, os.W_OK | os.X_OK):
            raise ProjectError(f"{path}: cannot write in the folder {path.parent} (it is read-only)")
        tmp = path.with_name(f".{path.name}.{os.getpid()}.creating")
        try:
            _build_file(tmp, SCHEMA_VERSION)
            if overwrite:
                os.replace(tmp, path)
            else:
                _link_new(tmp, path)
        except FileExistsError:
            raise ProjectError(f"{path}: the file already exists") from None
        except (OSError, sqlite3.Error) as e:
            raise ProjectError(f"{path}: cannot write the file "
                               f"({getattr(e, 'strerror', None) or e})") from None
        finally:
            for p in (tmp, *schema._sidecars(tmp)):  # our private temporary file only
                with contextlib.suppress(OSError):
                    p.unlink()
        return cls.open(path, clock=clock)

    @classmethod
    def open(cls, path: str | Path, *, read_only: bool = False,
             stale_same_host: float = STALE_SAME_HOST, stale_other_host: float = STALE_OTHER_HOST,
             clock: Callable[[], datetime] | None = None,
             access_check: access.AccessCheck | None = None) -> "Project":
        """Open an existing project file.

        Refuses (ProjectError, file untouched) anything that is not SQLite, is damaged, is another
        application's database, or has a newer schema than this code. An older schema is first
        copied to ``<file>.v<N>.bak`` and then upgraded in one transaction. Runs left "running"
        by a dead process are marked "interrupted" (see :meth:`check_interrupted`).

        Safe with any number of processes opening, writing and closing the same file at once:
        every check reads through SQLite (never around it), every change waits its turn
        (``BEGIN IMMEDIATE`` with a busy timeout), and no ``-wal``/``-shm`` file is ever removed.

        ``read_only`` (or a file or folder that cannot be written, see :mod:`.access`) opens the
        file for viewing: every change is then refused with one line saying why (see
        :attr:`read_only` and ``access.reason``). ``clock`` (a UTC ``datetime``) replaces the wall
        clock in time stamps and staleness checks; ``access_check`` replaces :func:`os.access`.
        """
        path = Path(path)
        info = schema.read_header(path)
        if not read_only:
            access.restore_shm_mode(path, access=access_check)
        how = access.choose(path, read_only=read_only, access=access_check)
        try:
            conn = access.connect(path, how)
        except sqlite3.Error as e:
            raise ProjectError(f"{path}: cannot open ({e})") from None
        backup: list[Path] = []
        migrated_from = None
        try:
            version = schema.check_connection(conn, path)
            if version < SCHEMA_VERSION:
                if how.read_only:
                    raise ProjectError(f"{path}: written by an older version (schema v{version}) "
                                       f"and {how.reason}: it can only be opened once it may be "
                                       "upgraded (make it writable)")
                try:
                    before, _ = schema.migrate(
                        conn, before_change=lambda v: backup.append(_write_backup(conn, path, v)))
                except ProjectError as e:
                    if not backup:  # the backup itself failed: its message says so
                        raise
                    raise ProjectError(f"{path}: could not upgrade the file from schema "
                                       f"v{version} to v{SCHEMA_VERSION} ({e}); the file is "
                                       f"unchanged (backup: {backup[0]})") from None
                except sqlite3.Error as e:
                    raise ProjectError(f"{path}: could not upgrade the file from schema "
                                       f"v{version} to v{SCHEMA_VERSION} ({e}); the file is "
                                       f"unchanged (backup: {backup[0] if backup else 'none'})") from None
                migrated_from = before if before < SCHEMA_VERSION else None
            # the pragmas that are not stored in the file
            conn.execute("PRAGMA foreign_keys=ON")
            if not how.read_only:
                mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
                if mode.lower() != "wal":
                    conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
            # a second check after the upgrade: this must be ours and current now
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                raise ProjectError(f"{path}: schema v{version} after opening, expected "
                                   f"v{SCHEMA_VERSION}")
        except ProjectError:
            conn.close()
            raise
        except sqlite3.Error as e:
            conn.close()
            raise ProjectError(f"{path}: cannot open ({e})") from None
        project = cls(path, conn, migrated_from=migrated_from,
                      backup=backup[0] if backup and migrated_from is not None else None,
                      access=how, clock=clock)
        if how.read_only:
            return project
        try:
            project.interrupted = project.check_interrupted(stale_same_host=stale_same_host,
                                                            stale_other_host=stale_other_host)
        except BaseException:
            project.close()
            raise
        return project

    def close(self) -> None:
        """Close; the last connection to close checkpoints the WAL into the file (SQLite then
        removes its -wal and -shm). Safe to call twice."""
        with self._lock:
            conn, self._conn = self._conn, None
            if conn is None:
                return
            try:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                if not self.read_only:
                    # without waiting: while other processes use the file this does part of the
                    # work or none, and the last connection to close finishes it
                    conn.execute("PRAGMA busy_timeout=0")
                    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error:
                pass
            finally:
                conn.close()

    @property
    def closed(self) -> bool:
        return self._conn is None

    def _stamp(self) -> str:
        """Now by the project's clock, as :func:`now_iso` writes it."""
        return self.clock().astimezone(timezone.utc).isoformat(timespec="milliseconds")

    @property
    def read_only(self) -> bool:
        """Whether the project is open for viewing only (every change is refused)."""
        return self.access.read_only

    def __enter__(self) -> "Project":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Project {str(self.path)!r}{' (closed)' if self.closed else ''}>"

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise ProjectError(f"{self.path}: the project is closed")
        return self._conn

    @contextlib.contextmanager
    def transaction(self) -> Iterator["Project"]:
        """One transaction around several calls: all of them are committed, or none.

        Nested uses (every mutating method uses one) join the outermost transaction inside a
        savepoint, so a call that fails inside a larger transaction leaves nothing half-done.
        """
        with self._lock:
            conn = self.conn
            if conn.in_transaction:
                self._depth += 1
                name = f"nested_{self._depth}"
                conn.execute(f"SAVEPOINT {name}")
                try:
                    yield self
                except BaseException:
                    if conn.in_transaction:
                        conn.execute(f"ROLLBACK TO SAVEPOINT {name}")
                        conn.execute(f"RELEASE SAVEPOINT {name}")
                    raise
                else:
                    conn.execute(f"RELEASE SAVEPOINT {name}")
                finally:
                    self._depth -= 1
                return
            if self.read_only:
                raise ProjectError(f"{self.path}: the project is open read-only "
                                   f"({self.access.reason}); nothing was changed")
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as e:
                raise ProjectError(f"{self.path}: cannot start a change ({e})") from None
            try:
                yield self
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as e:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise ProjectError(f"{self.path}: could not save the change ({e})") from None

    @_locked
    def backup_to(self, path: str | Path) -> Path:
        """Write a consistent copy of the whole project to ``path`` (sqlite3 backup API).

        The copy is written beside the target and renamed into place, so ``path`` is either the
        old file or the complete copy. Returns the path.
        """
        path = Path(path)
        if path.exists() and path.resolve() == self.path.resolve():
            raise ProjectError(f"{path}: that is this project's own file")
        if any(p.exists() for p in schema._sidecars(path)):
            raise ProjectError(f"{path}: the file is open in another program")
        tmp = path.with_name(f".{path.name}.{os.getpid()}.saving")
        try:
            dest = sqlite3.connect(str(tmp), isolation_level=None)
            try:
                self.conn.backup(dest)
                dest.execute("PRAGMA journal_mode=WAL")
                dest.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                dest.close()
            os.replace(tmp, path)
        except OSError as e:
            raise ProjectError(f"{path}: cannot write the copy ({e.strerror or e})") from None
        finally:
            for p in (tmp, *schema._sidecars(tmp)):
                with contextlib.suppress(OSError):
                    p.unlink()
        return path

    def save_as(self, path: str | Path) -> None:
        """"Save As": copy the project to ``path`` and continue working in that file."""
        with self._lock:
            path = self.backup_to(path)
            self.close()
            other = Project.open(path, clock=self.clock)
            self.__dict__.update({k: v for k, v in other.__dict__.items() if k != "_lock"})

    # ---- settings ---------------------------------------------------------------------------

    @_locked
    def setting(self, key: str, default: Any = None) -> Any:
        row = self.conn.execute("SELECT value FROM setting WHERE key = ?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    @_locked
    def set_setting(self, key: str, value: Any) -> None:
        """Store any JSON-able value under ``key``; ``None`` removes it."""
        with self.transaction():
            if value is None:
                self.conn.execute("DELETE FROM setting WHERE key = ?", (key,))
            else:
                self.conn.execute("INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT (key) "
                                  "DO UPDATE SET value = excluded.value",
                                  (key, json.dumps(value, ensure_ascii=False)))

    # ---- corpora ----------------------------------------------------------------------------

    @_locked
    def add_corpus(self, name: str, inscriptions: Iterable[Inscription], *, source: str = "",
                   format: str = "") -> int:
        """Store a new corpus (its inscriptions in order); returns its id."""
        name = (name or "").strip()
        if not name:
            raise ProjectError("a corpus needs a name")
        items = list(inscriptions)
        if not items:
            raise ProjectError(f"corpus {name!r} has no inscriptions")
        seen: set[str] = set()
        for ins in items:
            if not ins.id:
                raise ProjectError(f"corpus {name!r}: an inscription has an empty id")
            if ins.id in seen:
                raise ProjectError(f"corpus {name!r}: duplicate inscription id {ins.id!r}")
            if not ins.text:
                raise ProjectError(f"corpus {name!r}: inscription {ins.id!r} has no text")
            seen.add(ins.id)
        with self.transaction():
            if self._id_of("corpus", name) is not None:
                raise ProjectError(f"a corpus named {name!r} already exists in {self.path.name}; "
                                   "choose another name")
            corpus_id = self.db["corpus"].insert(
                {"name": name, "source": str(source), "format": format, "imported_at": self._stamp()}).last_pk
            self.db["inscription"].insert_all(
                ({"corpus_id": corpus_id, "position": i, "inscription_id": ins.id, "raw": ins.raw,
                  "text": ins.text, "meta": json.dumps(dict(ins.meta), ensure_ascii=False)}
                 for i, ins in enumerate(items)), batch_size=1000)
        return int(corpus_id)

    @_locked
    def corpora(self) -> list[CorpusInfo]:
        rows = self.conn.execute(
            "SELECT c.id, c.name, c.source, c.format, c.imported_at, "
            "(SELECT count(*) FROM inscription i WHERE i.corpus_id = c.id), "
            "(SELECT count(*) FROM gold g WHERE g.corpus_id = c.id) FROM corpus c ORDER BY c.id")
        return [CorpusInfo(*r) for r in rows]

    @_locked
    def corpus_id(self, name: str) -> int:
        """The id of the corpus with this name (ProjectError if there is none)."""
        found = self._id_of("corpus", name)
        if found is None:
            names = ", ".join(repr(c.name) for c in self.corpora()) or "none"
            raise ProjectError(f"no corpus named {name!r} in {self.path.name} (corpora: {names})")
        return found

    @_locked
    def inscriptions(self, corpus_id: int) -> list[Inscription]:
        self._need("corpus", corpus_id)
        rows = self.conn.execute("SELECT inscription_id, text, raw, meta FROM inscription "
                                 "WHERE corpus_id = ? ORDER BY position", (corpus_id,))
        return [Inscription(i, t, raw=r, meta=json.loads(m)) for i, t, r, m in rows]

    @_locked
    def corpus(self, corpus_id: int) -> Corpus:
        name = self._need("corpus", corpus_id)
        return Corpus(name, tuple(self.inscriptions(corpus_id)))

    @_locked
    def remove_corpus(self, corpus_id: int) -> None:
        """Delete a corpus with its inscriptions and gold (runs on it keep their matches)."""
        self._need("corpus", corpus_id)
        with self.transaction():
            self.conn.execute("DELETE FROM corpus WHERE id = ?", (corpus_id,))

    # ---- known languages ---------------------------------------------------------------------

    @_locked
    def add_language(self, name: str, stems: Iterable[Stem], *, source: str = "",
                     format: str = "") -> int:
        """Store a known language and its stems (in order); returns its id."""
        name = (name or "").strip()
        if not name:
            raise ProjectError("a known language needs a name")
        items = list(stems)
        if not items:
            raise ProjectError(f"known language {name!r} has no stems")
        for s in items:
            if not s.form or not s.ipa:
                raise ProjectError(f"known language {name!r}: a stem has an empty form or IPA "
                                   f"({s.form!r}, {s.ipa!r})")
        with self.transaction():
            if self._id_of("language", name) is not None:
                raise ProjectError(f"a known language named {name!r} already exists in "
                                   f"{self.path.name}; choose another name")
            language_id = self.db["language"].insert(
                {"name": name, "source": str(source), "format": format, "imported_at": self._stamp()}).last_pk
            self.db["stem"].insert_all(
                ({"language_id": language_id, "position": i, "form": s.form, "ipa": s.ipa,
                  "gloss": s.gloss or "", "source": s.source or ""} for i, s in enumerate(items)),
                batch_size=1000)
        return int(language_id)

    @_locked
    def languages(self) -> list[LanguageInfo]:
        rows = self.conn.execute(
            "SELECT l.id, l.name, l.source, l.format, l.imported_at, "
            "(SELECT count(*) FROM stem s WHERE s.language_id = l.id) FROM language l ORDER BY l.id")
        return [LanguageInfo(*r) for r in rows]

    @_locked
    def language_id(self, name: str) -> int:
        found = self._id_of("language", name)
        if found is None:
            names = ", ".join(repr(x.name) for x in self.languages()) or "none"
            raise ProjectError(f"no known language named {name!r} in {self.path.name} "
                               f"(languages: {names})")
        return found

    @_locked
    def stems(self, language_id: int) -> list[Stem]:
        self._need("language", language_id)
        rows = self.conn.execute("SELECT form, ipa, gloss, source FROM stem WHERE language_id = ? "
                                 "ORDER BY position", (language_id,))
        return [Stem(*r) for r in rows]

    @_locked
    def vocabulary(self, language_id: int) -> Vocabulary:
        name = self._need("language", language_id)
        return Vocabulary(name, tuple(self.stems(language_id)))

    @_locked
    def remove_language(self, language_id: int) -> None:
        self._need("language", language_id)
        with self.transaction():
            self.conn.execute("DELETE FROM language WHERE id = ?", (language_id,))

    # ---- gold ----------------------------------------------------------------------------

    @_locked
    def set_gold(self, corpus_id: int, gold: Iterable[GoldAnnotation]) -> None:
        """Replace the corpus's gold annotations (checked against its inscriptions)."""
        corpus = self._need("corpus", corpus_id)
        items = list(gold)
        lengths = {i: len(split_units(t)) for i, t in self.conn.execute(
            "SELECT inscription_id, text FROM inscription WHERE corpus_id = ?", (corpus_id,))}
        for g in items:
            if g.inscription_id not in lengths:
                raise ProjectError(f"gold for corpus {corpus!r}: unknown inscription id "
                                   f"{g.inscription_id!r}")
            if not 0 <= g.start < g.word_end <= lengths[g.inscription_id]:
                raise ProjectError(f"gold for corpus {corpus!r}: span {g.start}..{g.word_end} "
                                   f"does not fit inscription {g.inscription_id!r} "
                                   f"({lengths[g.inscription_id]} units)")
            if not g.known or any(not k for k in g.known):
                raise ProjectError(f"gold for corpus {corpus!r}: no known form at "
                                   f"{g.inscription_id!r} {g.start}..{g.word_end}")
        with self.transaction():
            self.conn.execute("DELETE FROM gold WHERE corpus_id = ?", (corpus_id,))
            self.db["gold"].insert_all(
                ({"corpus_id": corpus_id, "position": i, "inscription_id": g.inscription_id,
                  "start": g.start, "word_end": g.word_end,
                  "known": json.dumps(list(g.known), ensure_ascii=False)}
                 for i, g in enumerate(items)), batch_size=1000)

    @_locked
    def gold(self, corpus_id: int) -> list[GoldAnnotation]:
        self._need("corpus", corpus_id)
        rows = self.conn.execute("SELECT inscription_id, start, word_end, known FROM gold "
                                 "WHERE corpus_id = ? ORDER BY position", (corpus_id,))
        return [GoldAnnotation(i, s, e, tuple(json.loads(k))) for i, s, e, k in rows]

    # ---- pinned values -------------------------------------------------------------------

    @_locked
    def pins(self) -> list[PinnedValue]:
        return [r.pin for r in self.pin_records()]

    @_locked
    def pin_records(self) -> list[PinRecord]:
        rows = self.conn.execute("SELECT lost, known_ipa, weight, locked, note, created_at, "
                                 "updated_at FROM pin ORDER BY rowid")
        return [PinRecord(PinnedValue(lo, k, w, bool(lk), n), c, u) for lo, k, w, lk, n, c, u in rows]

    @_locked
    def set_pin(self, pin: PinnedValue) -> None:
        """Add a pin, or update the one with the same (lost, known_ipa) (keeps its created time)."""
        self._check_pin(pin)
        with self.transaction():
            self._upsert_pin(pin, self._stamp())

    @_locked
    def set_pins(self, pins: Iterable[PinnedValue]) -> int:
        """Add or update several pins in one transaction; returns how many."""
        items = list(pins)
        for p in items:
            self._check_pin(p)
        stamp = self._stamp()
        with self.transaction():
            for p in items:
                self._upsert_pin(p, stamp)
        return len(items)

    @_locked
    def remove_pin(self, lost: str, known_ipa: str) -> bool:
        """Delete a pin; returns whether there was one."""
        with self.transaction():
            cur = self.conn.execute("DELETE FROM pin WHERE lost = ? AND known_ipa = ?", (lost, known_ipa))
        return cur.rowcount > 0

    @_locked
    def replace_pins(self, pins: Iterable[PinnedValue]) -> None:
        """Make the project's pins exactly these (created times of pins kept are kept)."""
        items = list(pins)
        keys = set()
        for p in items:
            self._check_pin(p)
            if (p.lost, p.known_ipa) in keys:
                raise ProjectError(f"pin {p.lost} -> {p.known_ipa} given twice")
            keys.add((p.lost, p.known_ipa))
        stamp = self._stamp()
        with self.transaction():
            created = {(lo, k): c for lo, k, c in self.conn.execute(
                "SELECT lost, known_ipa, created_at FROM pin")}
            self.conn.execute("DELETE FROM pin")
            for p in items:
                self.conn.execute(
                    "INSERT INTO pin (lost, known_ipa, weight, locked, note, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (p.lost, p.known_ipa, float(p.weight), int(bool(p.locked)), p.note or "",
                     created.get((p.lost, p.known_ipa), stamp), stamp))

    def _check_pin(self, p: PinnedValue) -> None:
        if not p.lost or not p.known_ipa:
            raise ProjectError(f"a pin needs a lost letter and a known IPA unit, got "
                               f"{p.lost!r} -> {p.known_ipa!r}")
        if not (isinstance(p.weight, (int, float)) and p.weight > 0):
            raise ProjectError(f"pin {p.lost} -> {p.known_ipa}: weight must be positive, not {p.weight!r}")

    def _upsert_pin(self, p: PinnedValue, stamp: str) -> None:
        self.conn.execute(
            "INSERT INTO pin (lost, known_ipa, weight, locked, note, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (lost, known_ipa) DO UPDATE SET "
            "weight = excluded.weight, locked = excluded.locked, note = excluded.note, "
            "updated_at = excluded.updated_at",
            (p.lost, p.known_ipa, float(p.weight), int(bool(p.locked)), p.note or "", stamp, stamp))

    # ---- runs ------------------------------------------------------------------------------

    @_locked
    def start_run(self, config: Config | Mapping[str, Any], corpus_id: int | None,
                  language_id: int | None, *, device: str = "", seed: int | None = None,
                  pins: Sequence[PinnedValue] | None = None, resumed_from: int | None = None,
                  status: str = "running", pid: int | None = None) -> int:
        """Record a run that starts now (status "running", this process's pid and host).

        ``pins`` defaults to the project's current pins (a snapshot is kept with the run);
        ``seed`` defaults to the config's. Returns the run id.
        """
        cfg = config.to_dict() if isinstance(config, Config) else dict(config)
        if status not in ("running", "imported"):
            raise ProjectError(f"a run starts as running or imported, not {status!r}")
        if corpus_id is not None:
            self._need("corpus", corpus_id)
        if language_id is not None:
            self._need("language", language_id)
        if resumed_from is not None:
            self._need("run", resumed_from)
        pin_list = list(self.pins() if pins is None else pins)
        stamp = self._stamp()
        live = status == "running"
        with self.transaction():
            run_id = self.db["run"].insert({
                "status": status,
                "config": json.dumps(cfg, ensure_ascii=False),
                "seed": seed if seed is not None else cfg.get("seed"),
                "code_version": code_version(),
                "device": device or "",
                "corpus_id": corpus_id,
                "language_id": language_id,
                "pins": json.dumps([[p.lost, p.known_ipa, p.weight, p.locked, p.note] for p in pin_list],
                                   ensure_ascii=False),
                "started_at": stamp,
                "ended_at": None if live else stamp,
                "host": socket.gethostname() if live else "",
                "pid": (os.getpid() if pid is None else pid) if live else None,
                "heartbeat_at": stamp if live else None,
                "resumed_from": resumed_from,
            }).last_pk
        return int(run_id)

    @_locked
    def heartbeat(self, run_id: int, step: int | None = None) -> None:
        """Say the run is alive (call at least every few minutes; each step is fine).

        A live run that another process wrongly marked "interrupted" goes back to "running".
        """
        with self.transaction():
            self._beat(run_id, step)

    def _beat(self, run_id: int, step: int | None) -> None:
        row = self.conn.execute("SELECT status, pid, host FROM run WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise ProjectError(f"no run {run_id} in {self.path.name}")
        status, pid, host = row
        if status == "interrupted" and pid == os.getpid() and host == socket.gethostname():
            status = "running"
            self.conn.execute("UPDATE run SET status = 'running', ended_at = NULL, error = NULL "
                              "WHERE id = ?", (run_id,))
        if status != "running":
            return
        self.conn.execute("UPDATE run SET heartbeat_at = ?, last_step = "
                          "CASE WHEN ? IS NULL THEN last_step ELSE max(coalesce(last_step, ?), ?) END "
                          "WHERE id = ?", (self._stamp(), step, step, step, run_id))

    @_locked
    def set_checkpoint(self, run_id: int, path: str | Path | None) -> None:
        """Record the run's latest checkpoint file (kept if the run is later interrupted)."""
        self._need("run", run_id)
        with self.transaction():
            self.conn.execute("UPDATE run SET checkpoint = ? WHERE id = ?",
                              (None if path is None else str(path), run_id))
            self._beat(run_id, None)

    @_locked
    def record_metrics(self, run_id: int, step: int, metrics: Mapping[str, float]) -> None:
        """Store metric values at a step (a value recorded twice for a step is replaced)."""
        self._need("run", run_id)
        with self.transaction():
            self.conn.executemany(
                "INSERT INTO run_metric (run_id, name, step, value) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (run_id, name, step) DO UPDATE SET value = excluded.value",
                [(run_id, str(k), int(step), _real(v)) for k, v in metrics.items()])
            self._beat(run_id, step)

    @_locked
    def metrics(self, run_id: int, name: str | None = None) -> list[tuple[int, str, float]]:
        """(step, name, value) rows in step order (NaN comes back for a NaN stored)."""
        sql = "SELECT step, name, value FROM run_metric WHERE run_id = ?"
        args: tuple = (run_id,)
        if name is not None:
            sql += " AND name = ?"
            args += (name,)
        return [(s, n, _unreal(v)) for s, n, v in self.conn.execute(sql + " ORDER BY step, name", args)]

    @_locked
    def latest_metrics(self, run_id: int) -> dict[str, float]:
        """Each metric's value at the last step it was recorded."""
        rows = self.conn.execute(
            "SELECT name, value FROM run_metric m WHERE run_id = ? AND step = "
            "(SELECT max(step) FROM run_metric WHERE run_id = m.run_id AND name = m.name) "
            "ORDER BY name", (run_id,))
        return {n: _unreal(v) for n, v in rows}

    @_locked
    def record_matches(self, run_id: int, matches: Iterable[Match]) -> None:
        """Make these the run's decoded matches (replacing the previous set).

        A match keeps its id while its span (inscription, start, end) stays, and decisions are
        stored apart under their (inscription, start, end, form) key, so they survive.
        """
        self._need("run", run_id)
        items = list(matches)
        keys: dict[tuple[str, int, int], int] = {}
        for i, m in enumerate(items):
            key = (m.inscription_id, int(m.start), int(m.end))
            if key in keys:
                raise ProjectError(f"run {run_id}: two matches for span {m.start}..{m.end} of "
                                   f"inscription {m.inscription_id!r}")
            if not 0 <= m.start <= m.end:
                raise ProjectError(f"run {run_id}: bad span {m.start}..{m.end} in {m.inscription_id!r}")
            keys[key] = i
            ranks = [a.rank for a in m.alternatives]
            if len(set(ranks)) != len(ranks) or any(r < 1 for r in ranks):
                raise ProjectError(f"run {run_id}: the alternatives for {m.inscription_id!r} "
                                   f"{m.start}..{m.end} need distinct ranks from 1")
        with self.transaction():
            old = {(i, s, e): mid for mid, i, s, e in self.conn.execute(
                "SELECT id, inscription_id, span_start, span_end FROM run_match WHERE run_id = ?",
                (run_id,))}
            gone = [mid for key, mid in old.items() if key not in keys]
            self.conn.executemany("DELETE FROM run_match WHERE id = ?", [(m,) for m in gone])
            alternatives = []
            for position, m in enumerate(items):
                key = (m.inscription_id, int(m.start), int(m.end))
                mid = old.get(key)
                if mid is None:
                    mid = self.conn.execute(
                        "INSERT INTO run_match (run_id, position, inscription_id, span_start, span_end, "
                        "span, confidence) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (run_id, position, *key, m.span, _real(m.confidence))).lastrowid
                else:
                    self.conn.execute("UPDATE run_match SET position = ?, span = ?, confidence = ? "
                                      "WHERE id = ?", (position, m.span, _real(m.confidence), mid))
                    self.conn.execute("DELETE FROM run_alternative WHERE match_id = ?", (mid,))
                alternatives.extend(
                    {"match_id": mid, "rank": int(a.rank), "form": a.form, "ipa": a.ipa,
                     "gloss": a.gloss or "", "score": _real(a.score), "log_prob": _real(a.log_prob)}
                    for a in m.alternatives)
            if alternatives:
                self.db["run_alternative"].insert_all(alternatives, batch_size=1000)
            self._beat(run_id, None)

    @_locked
    def finish_run(self, run_id: int, status: str, error: str | None = None,
                   checkpoint: str | Path | None = None) -> None:
        """End a run: completed, stopped, failed or interrupted (with the error text, if any)."""
        if status not in FINAL_STATUSES:
            raise ProjectError(f"a run finishes as {', '.join(FINAL_STATUSES)}, not {status!r}")
        with self.transaction():
            row = self.conn.execute("SELECT status FROM run WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise ProjectError(f"no run {run_id} in {self.path.name}")
            if row[0] not in ("running", "interrupted"):
                raise ProjectError(f"run {run_id} already ended ({row[0]})")
            self.conn.execute(
                "UPDATE run SET status = ?, ended_at = ?, error = ?, "
                "checkpoint = coalesce(?, checkpoint) WHERE id = ?",
                (status, self._stamp(), error, None if checkpoint is None else str(checkpoint), run_id))

    @_locked
    def runs(self, status: str | None = None) -> list[RunRecord]:
        sql = f"SELECT {', '.join(_RUN_COLUMNS)} FROM run"
        args: tuple = ()
        if status is not None:
            sql += " WHERE status = ?"
            args = (status,)
        return [_run_record(r) for r in self.conn.execute(sql + " ORDER BY id", args)]

    @_locked
    def run(self, run_id: int) -> RunRecord:
        row = self.conn.execute(f"SELECT {', '.join(_RUN_COLUMNS)} FROM run WHERE id = ?",
                                (run_id,)).fetchone()
        if row is None:
            raise ProjectError(f"no run {run_id} in {self.path.name}")
        return _run_record(row)

    @_locked
    def remove_run(self, run_id: int) -> None:
        """Delete a run with its metrics, matches and decisions."""
        self._need("run", run_id)
        with self.transaction():
            self.conn.execute("UPDATE run SET resumed_from = NULL WHERE resumed_from = ?", (run_id,))
            self.conn.execute("DELETE FROM run WHERE id = ?", (run_id,))

    @_locked
    def check_interrupted(self, *, stale_same_host: float = STALE_SAME_HOST,
                          stale_other_host: float = STALE_OTHER_HOST) -> list[int]:
        """Mark "interrupted" every run left "running" by a process that is gone.

        On this host: its pid is not alive, or its heartbeat is older than ``stale_same_host``
        seconds (a reused pid). On another host: its heartbeat is older than
        ``stale_other_host``. The checkpoint path stays, so the run can be resumed.
        Returns the ids marked.
        """
        if self.read_only:
            return []
        query = "SELECT id, host, pid, heartbeat_at, started_at FROM run WHERE status = 'running'"
        # a look without the write lock first (most opens find nothing to do) ...
        if not self._dead_runs(self.conn.execute(query).fetchall(), stale_same_host, stale_other_host):
            return []
        # ... then again under it: another process may have marked or finished them meanwhile
        with self.transaction():
            dead = self._dead_runs(self.conn.execute(query).fetchall(), stale_same_host,
                                   stale_other_host)
            for run_id, last, pid_gone in dead:
                why = ("its process ended without finishing the run (crash or kill)" if pid_gone
                       else "no heartbeat since " + str(last))
                self.conn.execute(
                    "UPDATE run SET status = 'interrupted', ended_at = coalesce(?, ended_at), "
                    "error = coalesce(error, ?) WHERE id = ? AND status = 'running'",
                    (last, f"interrupted: {why}", run_id))
        return [d[0] for d in dead]

    def _dead_runs(self, rows, stale_same_host: float, stale_other_host: float) -> list[tuple]:
        """(id, last sign of life, whether its pid is gone) of the running rows taken for dead."""
        here = socket.gethostname()
        now = self.clock()
        dead = []
        for run_id, host, pid, beat, started in rows:
            last = _parse_time(beat) or _parse_time(started)
            age = (now - last).total_seconds() if last else math.inf
            if host == here:
                gone = not pid_alive(pid) or age > stale_same_host
            else:
                gone = age > stale_other_host
            if gone:
                dead.append((run_id, beat or started, host == here and not pid_alive(pid)))
        return dead

    # ---- matches and decisions ---------------------------------------------------------------

    @_locked
    def match_records(self, run_id: int) -> list[MatchRecord]:
        """The run's matches in the order recorded, each with its id."""
        self._need("run", run_id)
        rows = self.conn.execute(
            "SELECT m.id, m.inscription_id, m.span_start, m.span_end, m.span, m.confidence, "
            "a.rank, a.form, a.ipa, a.score, a.gloss, a.log_prob FROM run_match m "
            "LEFT JOIN run_alternative a ON a.match_id = m.id WHERE m.run_id = ? "
            "ORDER BY m.position, a.rank", (run_id,))
        out: list[MatchRecord] = []
        current = None
        alts: list[Alternative] = []
        for mid, ins, s, e, span, conf, rank, form, ipa, score, gloss, lp in rows:
            if current is None or current[0] != mid:
                if current is not None:
                    out.append(MatchRecord(current[0], run_id, Match(*current[1:5], tuple(alts), current[5])))
                current = (mid, ins, s, e, span, _unreal(conf))
                alts = []
            if rank is not None:
                alts.append(Alternative(rank, form, ipa, _unreal(score), gloss, _unreal(lp)))
        if current is not None:
            out.append(MatchRecord(current[0], run_id, Match(*current[1:5], tuple(alts), current[5])))
        return out

    def matches(self, run_id: int) -> list[Match]:
        return [r.match for r in self.match_records(run_id)]

    @_locked
    def decide(self, run_id: int, inscription_id: str, start: int, end: int, form: str,
               status: str | None, note: str = "") -> None:
        """Accept or reject stem ``form`` for a span; ``None`` takes the decision back.

        The span and form must be among the run's matches.
        """
        if status is not None and status not in DECISIONS:
            raise ProjectError(f"a decision is accepted, rejected or None, not {status!r}")
        with self.transaction():
            self._decide(run_id, (inscription_id, int(start), int(end), form), status, note)

    def _decide(self, run_id: int, key: DecisionKey, status: str | None, note: str = "",
                check: bool = True) -> None:
        if status is None:
            self.conn.execute("DELETE FROM decision WHERE run_id = ? AND inscription_id = ? AND "
                              "span_start = ? AND span_end = ? AND form = ?", (run_id, *key))
            return
        if check:
            found = self.conn.execute(
                "SELECT 1 FROM run_match m JOIN run_alternative a ON a.match_id = m.id "
                "WHERE m.run_id = ? AND m.inscription_id = ? AND m.span_start = ? AND m.span_end = ? "
                "AND a.form = ? LIMIT 1", (run_id, *key)).fetchone()
            if found is None:
                raise ProjectError(f"run {run_id} has no match of {key[3]!r} at {key[1]}..{key[2]} "
                                   f"of inscription {key[0]!r}")
        self.conn.execute(
            "INSERT INTO decision (run_id, inscription_id, span_start, span_end, form, status, note, "
            "decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, inscription_id, "
            "span_start, span_end, form) DO UPDATE SET status = excluded.status, "
            "note = excluded.note, decided_at = excluded.decided_at",
            (run_id, *key, status, note or "", self._stamp()))

    @_locked
    def decisions(self, run_id: int) -> dict[DecisionKey, str]:
        """{(inscription_id, start, end, form): "accepted" | "rejected"} for the run."""
        rows = self.conn.execute("SELECT inscription_id, span_start, span_end, form, status FROM "
                                 "decision WHERE run_id = ?", (run_id,))
        return {(i, s, e, f): st for i, s, e, f, st in rows}

    # ---- helpers ---------------------------------------------------------------------------

    def _id_of(self, table: str, name: str) -> int | None:
        row = self.conn.execute(f"SELECT id FROM {table} WHERE name = ?", (name,)).fetchone()
        return None if row is None else int(row[0])

    def _need(self, table: str, row_id: int) -> str:
        """The name of the corpus/language (or "" for a run) with this id, else ProjectError."""
        column = "name" if table in ("corpus", "language") else "''"
        row = self.conn.execute(f"SELECT {column} FROM {table} WHERE id = ?", (row_id,)).fetchone()
        if row is None:
            what = {"corpus": "corpus", "language": "known language", "run": "run"}[table]
            raise ProjectError(f"no {what} with id {row_id} in {self.path.name}")
        return row[0]

    @_locked
    def summary(self) -> dict[str, Any]:
        """Counts for ``decipher project info``."""
        statuses = dict(self.conn.execute("SELECT status, count(*) FROM run GROUP BY status").fetchall())
        return {
            "path": str(self.path),
            "schema_version": self.conn.execute("PRAGMA user_version").fetchone()[0],
            "application_id": f"0x{APPLICATION_ID:08X}",
            "created_with": self.setting("created_with"),
            "corpora": self.corpora(),
            "languages": self.languages(),
            "pins": self.conn.execute("SELECT count(*) FROM pin").fetchone()[0],
            "runs": statuses,
        }


_RUN_COLUMNS = ("id", "status", "config", "seed", "code_version", "device", "corpus_id",
                "language_id", "pins", "started_at", "ended_at", "host", "pid", "heartbeat_at",
                "last_step", "checkpoint", "error", "resumed_from")


def _run_record(row: Sequence) -> RunRecord:
    d = dict(zip(_RUN_COLUMNS, row))
    d["config"] = json.loads(d["config"] or "{}")
    d["pins"] = tuple(PinnedValue(lo, k, w, bool(lk), n) for lo, k, w, lk, n in json.loads(d["pins"] or "[]"))
    return RunRecord(**d)


def _build_file(path: Path, version: int) -> None:
    """A new file at ``path`` with our application id and the schema of ``version``."""
    for p in (path, *schema._sidecars(path)):
        with contextlib.suppress(FileNotFoundError):
            p.unlink()
    conn = sqlite3.connect(str(path), isolation_level=None)
    try:
        conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
        schema.migrate(conn, version)
        if version >= 2:
            conn.execute("INSERT INTO setting (key, value) VALUES ('created_with', ?)",
                         (json.dumps(code_version()),))
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def _link_new(tmp: Path, path: Path) -> None:
    """Put ``tmp`` at ``path`` only if nothing is there (FileExistsError otherwise)."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links: check, then rename (a small window)
        if path.exists():
            raise FileExistsError(path) from None
        os.replace(tmp, path)


def _same_bytes(a: Path, b: Path) -> bool:
    try:
        if a.stat().st_size != b.stat().st_size:
            return False
        with open(a, "rb") as fa, open(b, "rb") as fb:
            while True:
                x, y = fa.read(1 << 20), fb.read(1 << 20)
                if x != y:
                    return False
                if not x:
                    return True
    except OSError:
        return False


def _write_backup(conn: sqlite3.Connection, path: Path, version: int) -> Path:
    """Copy the file to ``<file>.v<N>.bak`` before an upgrade; called by :func:`schema.migrate`
    under its write lock, so no other process changes the file while it is copied.

    Exact bytes when no WAL holds data (else a consistent copy through SQLite's backup API). A
    backup with the same bytes already there (left by an earlier attempt that failed) is
    reused, so failed attempts do not pile up copies.
    """
    wal = schema._sidecars(path)[0]
    tmp = path.with_name(f".{path.name}.v{version}.{os.getpid()}.bak.part")
    try:
        if wal.exists() and wal.stat().st_size > 0:
            dst = sqlite3.connect(str(tmp))
            try:
                conn.backup(dst)
            finally:
                dst.close()
        else:
            shutil.copy2(path, tmp)
        target = schema.backup_path(path, version)
        for earlier in schema.backup_paths(path, version):
            if _same_bytes(earlier, tmp):
                target = earlier
                break
        else:
            os.replace(tmp, target)
    except (OSError, sqlite3.Error) as e:
        raise ProjectError(f"{path}: cannot write a backup before upgrading the file "
                           f"({getattr(e, 'strerror', None) or e}); nothing was changed") from None
    finally:
        for p in (tmp, *schema._sidecars(tmp)):
            with contextlib.suppress(OSError):
                p.unlink()
    return target
