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
import json
import os
import shutil
import sqlite3
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

import sqlite_utils

from engine.errors import ProjectError
from engine.project import schema
from engine.project import access, rawfile
from engine.project.access import Access
from engine.project.corpora import CorporaMixin
from engine.project.liveness import STALE_OTHER_HOST, STALE_SAME_HOST, code_version, utc_now
from engine.project.locking import locked
from engine.project.pins import PinsMixin, pin_history
from engine.project.records import load_json
from engine.project.runs import RunsMixin
from engine.project.schema import APPLICATION_ID, SCHEMA_VERSION


class Project(CorporaMixin, PinsMixin, RunsMixin):
    """An open project file. Use :meth:`create` or :meth:`open`, then :meth:`close` (or ``with``)."""

    APPLICATION_ID = APPLICATION_ID
    SCHEMA_VERSION = SCHEMA_VERSION

    def __init__(self, path: Path, conn: sqlite3.Connection, *, migrated_from: int | None = None,
                 backup: Path | None = None, access: access.Access | None = None,
                 clock: Callable[[], datetime] | None = None):
        self.path = path
        self.access = access or Access("rw")
        self.clock = clock or utc_now
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
        self._raw: rawfile.RawFile | None = None
        """This process's descriptor of the file, held until after ``conn`` closes (see rawfile)."""

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
        access.refuse_linked_sidecars(path)
        if overwrite and path.exists():
            _refuse_live_runs(path)
        if any(os.path.lexists(p) for p in schema._sidecars(path)):
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
        access.refuse_linked_sidecars(path)
        if not read_only:
            access.restore_shm_mode(path, access=access_check)
        how = access.choose(path, read_only=read_only, access=access_check)
        try:  # held until after the connection closes, see rawfile
            raw = rawfile.hold(path)
        except OSError as e:
            raise ProjectError(f"{path}: cannot read the file ({e.strerror or e})") from None
        try:
            conn = access.connect(path, how)
        except sqlite3.Error as e:
            rawfile.release(raw)
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
                        conn, before_change=lambda v: backup.append(
                            _write_backup(conn, raw, path, v)))
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
                _switch_to_wal(conn)
                conn.execute("PRAGMA synchronous=NORMAL")
            # a second check after the upgrade: this must be ours and current now
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                raise ProjectError(f"{path}: schema v{version} after opening, expected "
                                   f"v{SCHEMA_VERSION}")
            # every stored value has the type and shape this program writes (one line if not)
            schema.validate_cells(conn, path)
        except ProjectError:
            conn.close()
            rawfile.release(raw)
            raise
        except sqlite3.Error as e:
            overran = access.overran(conn)
            message = access.overrun_message(conn) if overran else f"cannot open ({e})"
            conn.close()
            rawfile.release(raw)
            raise ProjectError(f"{path}: {message}") from None
        except BaseException:  # anything else (Ctrl-C in a long upgrade): no connection or descriptor left
            conn.close()
            rawfile.release(raw)
            raise
        project = cls(path, conn, migrated_from=migrated_from,
                      backup=backup[0] if backup and migrated_from is not None else None,
                      access=how, clock=clock)
        project._raw = raw
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
                raw, self._raw = self._raw, None
                if raw is not None:  # only now: closing it earlier would drop SQLite's locks
                    rawfile.release(raw)

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
            # a change is this program's own statements on a file checked when it was opened:
            # its cost follows the data it changes, so the step bound (meant for runaway reads)
            # does not apply to it
            with access.unbounded(conn):
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

    @locked
    def backup_to(self, path: str | Path) -> Path:
        """Write a consistent copy of the whole project to ``path`` (sqlite3 backup API).

        The copy is written beside the target and renamed into place, so ``path`` is either the
        old file or the complete copy. Returns the path.
        """
        path = Path(path)
        if path.exists() and path.resolve() == self.path.resolve():
            raise ProjectError(f"{path}: that is this project's own file")
        access.refuse_linked_sidecars(path)
        if any(os.path.lexists(p) for p in schema._sidecars(path)):
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

    @locked
    def setting(self, key: str, default: Any = None) -> Any:
        row = self.conn.execute("SELECT value FROM setting WHERE key = ?", (key,)).fetchone()
        return default if row is None else load_json(self.path, "setting", repr(key), "value", row[0])

    @locked
    def set_setting(self, key: str, value: Any) -> None:
        """Store any JSON-able value under ``key``; ``None`` removes it."""
        with self.transaction():
            if value is None:
                self.conn.execute("DELETE FROM setting WHERE key = ?", (key,))
            else:
                self.conn.execute("INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT (key) "
                                  "DO UPDATE SET value = excluded.value",
                                  (key, json.dumps(value, ensure_ascii=False)))

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

    @locked
    def check_readable(self) -> None:
        """Read every stored value the way the app and the commands read them (corpora, gold,
        known languages, pins, runs with their pin history and metrics, settings), so that a malformed cell
        is one :class:`~engine.errors.StoredValueError` now rather than a failure later (metrics
        included, which opening does not scan). The
        types of every cell were checked when the file was opened; this adds the checks done in
        Python (JSON shapes, control characters)."""
        for c in self.corpora():
            self.corpus(c.id)
            self.gold(c.id)
        for x in self.languages():
            self.stems(x.id)
        self.pin_records()
        for run in self.runs():
            pin_history(self, run.id)
        schema.validate_cells(self.conn, self.path, schema.METRIC_CHECKS)  # one scan, not Python per row
        for (key,) in self.conn.execute("SELECT key FROM setting ORDER BY key").fetchall():
            self.setting(key)

    @locked
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


def clean_copy(path: str | Path, target: str | Path | None = None) -> Path:
    """A new project file beside ``path`` (``<name>.cleaned.decipher``, numbered if taken) holding
    only the rows of this program's own tables, copied out of ``path``: no trigger, view or other
    object of the original comes along, and none of them runs (the original is only read, and
    only its tables: a view standing in for one of ours is skipped). Rows left pointing at
    nothing (the rows of a table a view replaced) are dropped. The original is not changed.
    Returns the new file's path; ProjectError when the file is not a project file at all."""
    path = Path(path)
    info = schema.read_header(path)
    if target is None:
        stem = path.name[:-len(path.suffix)] if path.suffix else path.name
        target = path.with_name(f"{stem}.cleaned{path.suffix}")
        k = 2
        while target.exists():
            target = path.with_name(f"{stem}.cleaned-{k}{path.suffix}")
            k += 1
    target = Path(target)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.cleaning")
    src = None
    try:
        _build_file(tmp, info.version)
        access.refuse_linked_sidecars(path)
        src = access.connect(path, access.choose(path, read_only=True))
        dest = access.connect(tmp, Access("rw"))
        try:
            tables = {n for (n,) in src.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            dest.execute("PRAGMA foreign_keys=OFF")
            dest.execute("BEGIN")
            if info.version >= 2:
                dest.execute("DELETE FROM setting")  # the copy keeps the original's settings
            for kind, name in schema.known_objects(info.version):
                if kind != "table" or name not in tables:
                    continue
                ours = [r[1] for r in dest.execute(f'PRAGMA table_info("{name}")')]
                theirs = {r[1] for r in src.execute(f'PRAGMA table_info("{name}")')}
                columns = ", ".join(f'"{c}"' for c in ours if c in theirs)
                if not columns:
                    continue
                cursor = src.execute(f'SELECT {columns} FROM "{name}"')
                marks = ", ".join("?" for c in ours if c in theirs)
                while rows := cursor.fetchmany(1000):
                    dest.executemany(f'INSERT OR REPLACE INTO "{name}" ({columns}) VALUES ({marks})', rows)
            for _ in range(len(schema.known_objects(info.version))):  # rows left pointing at nothing
                broken = dest.execute("PRAGMA foreign_key_check").fetchall()
                if not broken:
                    break
                for table, rowid, _parent, _fk in broken:
                    dest.execute(f'DELETE FROM "{table}" WHERE rowid = ?', (rowid,))
            dest.execute("COMMIT")
            dest.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            dest.close()
        _link_new(tmp, target)
    except FileExistsError:
        raise ProjectError(f"{target}: the file already exists") from None
    except sqlite3.Error as e:
        why = access.overrun_message(src) if src is not None and access.overran(src) else str(e)
        raise ProjectError(f"{path}: cannot make a cleaned copy ({why})") from None
    except OSError as e:
        raise ProjectError(f"{target}: cannot write the cleaned copy ({e.strerror or e})") from None
    finally:
        if src is not None:
            src.close()
        for p in (tmp, *schema._sidecars(tmp)):
            with contextlib.suppress(OSError):
                p.unlink()
    return target


def _switch_to_wal(conn: sqlite3.Connection, *, tries: int = 50, pause: float = 0.02) -> bool:
    """Put a file that is still in rollback-journal mode (older files may be) into WAL mode.

    The switch needs the file to itself: while another process reads or writes it SQLite answers
    SQLITE_BUSY (at once when waiting could deadlock, else after the whole busy timeout), so it
    is tried without waiting, ``tries`` times over about 3 s (pauses of 1-5 x ``pause``), and
    otherwise left to the next open. Rollback mode is slower for many processes but just as safe
    (every change still waits its turn), so a file that stays in it a little longer opens
    normally. Returns whether the file is in WAL mode now.
    """
    if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal":
        return True
    timeout = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    conn.execute("PRAGMA busy_timeout=0")  # else a reader that stays makes each try wait it out
    try:
        for attempt in range(tries):
            try:
                return conn.execute("PRAGMA journal_mode=WAL").fetchone()[0].lower() == "wal"
            except sqlite3.OperationalError as e:
                if getattr(e, "sqlite_errorcode", sqlite3.SQLITE_BUSY) & 0xFF != sqlite3.SQLITE_BUSY:
                    raise
                time.sleep(pause * (1 + attempt % 5))
        return False
    finally:
        conn.execute(f"PRAGMA busy_timeout={int(timeout)}")


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


def _refuse_live_runs(path: Path) -> None:
    """Replacing a project file while one of its runs trains would lose that run (it would go on
    recording into a file that no longer holds it): refused in one line, by the liveness record
    (engine/project/liveness.py: a "running" run whose process lives, or whose heartbeat is fresh)."""
    try:
        with Project.open(path, read_only=True) as old:
            rows = old.conn.execute("SELECT id, host, pid, heartbeat_at, started_at FROM run "
                                    "WHERE status = 'running'").fetchall()
            dead = {d[0] for d in old._dead_runs(rows, STALE_SAME_HOST, STALE_OTHER_HOST)}
    except ProjectError:
        return  # not a project this program can read: nothing of ours trains in it
    live = [r[0] for r in rows if r[0] not in dead]
    if live:
        which = ", ".join(f"run {i} (pid {pid})" for i, _, pid, _, _ in rows if i in live)
        raise ProjectError(f"{path}: {which} {'is' if len(live) == 1 else 'are'} training in this project; it was not replaced (stop the run, "
                           "or wait for it to end, then make the new project)")


def _write_backup(conn: sqlite3.Connection, raw: rawfile.RawFile, path: Path,
                  version: int) -> Path:
    """Copy the file to ``<file>.v<N>.bak`` before an upgrade; called by :func:`schema.migrate`
    under its write lock, so no other process changes the file while it is copied. The bytes
    are read through ``raw``, the descriptor the project holds: opening and closing one of our
    own would release that very lock (see rawfile).

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
            raw.copy_to(tmp)
            shutil.copystat(path, tmp)
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
