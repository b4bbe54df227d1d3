"""The layout of a project file and the forward-only migrations between its versions.

A project file is one SQLite database. Its header carries two numbers that say what it is:
``PRAGMA application_id`` = :data:`APPLICATION_ID` (the bytes ``DCPH``) marks it as ours, and
``PRAGMA user_version`` = the schema version. ``MIGRATIONS[v]`` turns version ``v`` into
``v + 1``; a new file is made by running every migration from version 0.

Rules for whoever adds a version: append a function to :data:`MIGRATIONS` (never edit an old one),
only add tables/columns or rebuild tables inside the function, and describe the change in
docs/formats.md ("Project file").
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from engine.errors import ForeignSchemaError, ProjectError, StoredValueError
from engine.project import access, rawfile

#: ``PRAGMA application_id`` of every project file: the ASCII bytes "DCPH" (0x44435048).
APPLICATION_ID = 0x44435048

SQLITE_MAGIC = b"SQLite format 3\x00"

RUN_STATUSES = ("running", "completed", "stopped", "failed", "interrupted", "imported")
DECISIONS = ("accepted", "rejected")

# ---------------------------------------------------------------------------------------------
# version 0 -> 1: the base layout

_V1 = [
    """CREATE TABLE corpus (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        source TEXT NOT NULL DEFAULT '',
        format TEXT NOT NULL DEFAULT '',
        imported_at TEXT NOT NULL
    )""",
    """CREATE TABLE inscription (
        id INTEGER PRIMARY KEY,
        corpus_id INTEGER NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        inscription_id TEXT NOT NULL,
        raw TEXT,
        text TEXT NOT NULL,
        meta TEXT NOT NULL DEFAULT '{}',
        UNIQUE (corpus_id, inscription_id),
        UNIQUE (corpus_id, position)
    )""",
    """CREATE TABLE language (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        source TEXT NOT NULL DEFAULT '',
        format TEXT NOT NULL DEFAULT '',
        imported_at TEXT NOT NULL
    )""",
    """CREATE TABLE stem (
        id INTEGER PRIMARY KEY,
        language_id INTEGER NOT NULL REFERENCES language(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        form TEXT NOT NULL,
        ipa TEXT NOT NULL,
        gloss TEXT NOT NULL DEFAULT '',
        source TEXT NOT NULL DEFAULT '',
        UNIQUE (language_id, position)
    )""",
    "CREATE INDEX stem_form ON stem(language_id, form)",
    """CREATE TABLE gold (
        id INTEGER PRIMARY KEY,
        corpus_id INTEGER NOT NULL,
        position INTEGER NOT NULL,
        inscription_id TEXT NOT NULL,
        start INTEGER NOT NULL CHECK (start >= 0),
        word_end INTEGER NOT NULL CHECK (word_end > start),
        known TEXT NOT NULL,
        FOREIGN KEY (corpus_id, inscription_id)
            REFERENCES inscription(corpus_id, inscription_id) ON DELETE CASCADE
    )""",
    "CREATE INDEX gold_corpus ON gold(corpus_id, position)",
    """CREATE TABLE pin (
        lost TEXT NOT NULL,
        known_ipa TEXT NOT NULL,
        weight REAL NOT NULL DEFAULT 1.0 CHECK (weight > 0),
        locked INTEGER NOT NULL DEFAULT 1 CHECK (locked IN (0, 1)),
        note TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (lost, known_ipa)
    )""",
    f"""CREATE TABLE run (
        id INTEGER PRIMARY KEY,
        status TEXT NOT NULL CHECK (status IN ({", ".join(repr(s) for s in RUN_STATUSES)})),
        config TEXT NOT NULL DEFAULT '{{}}',
        seed INTEGER,
        code_version TEXT NOT NULL DEFAULT '',
        device TEXT NOT NULL DEFAULT '',
        corpus_id INTEGER REFERENCES corpus(id) ON DELETE SET NULL,
        language_id INTEGER REFERENCES language(id) ON DELETE SET NULL,
        pins TEXT NOT NULL DEFAULT '[]',
        started_at TEXT NOT NULL,
        ended_at TEXT,
        host TEXT NOT NULL DEFAULT '',
        pid INTEGER,
        heartbeat_at TEXT,
        last_step INTEGER,
        checkpoint TEXT,
        error TEXT
    )""",
    "CREATE INDEX run_status ON run(status)",
    """CREATE TABLE run_metric (
        run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        step INTEGER NOT NULL,
        value REAL,
        PRIMARY KEY (run_id, name, step)
    )""",
    """CREATE TABLE run_match (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        inscription_id TEXT NOT NULL,
        span_start INTEGER NOT NULL CHECK (span_start >= 0),
        span_end INTEGER NOT NULL CHECK (span_end >= span_start),
        span TEXT NOT NULL,
        confidence REAL,
        UNIQUE (run_id, inscription_id, span_start, span_end)
    )""",
    "CREATE INDEX run_match_order ON run_match(run_id, position)",
    """CREATE TABLE run_alternative (
        match_id INTEGER NOT NULL REFERENCES run_match(id) ON DELETE CASCADE,
        rank INTEGER NOT NULL CHECK (rank >= 1),
        form TEXT NOT NULL,
        ipa TEXT NOT NULL,
        gloss TEXT NOT NULL DEFAULT '',
        score REAL,
        log_prob REAL,
        PRIMARY KEY (match_id, rank)
    )""",
    f"""CREATE TABLE decision (
        run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
        inscription_id TEXT NOT NULL,
        span_start INTEGER NOT NULL,
        span_end INTEGER NOT NULL,
        form TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ({", ".join(repr(s) for s in DECISIONS)})),
        note TEXT NOT NULL DEFAULT '',
        decided_at TEXT NOT NULL,
        PRIMARY KEY (run_id, inscription_id, span_start, span_end, form)
    )""",
]

# version 1 -> 2: runs remember which run they resume; a key/value table of project settings

_V2 = [
    "ALTER TABLE run ADD COLUMN resumed_from INTEGER REFERENCES run(id) ON DELETE SET NULL",
    """CREATE TABLE setting (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )""",
]


# version 2 -> 3: a run's pins with their history (a pin change is an event of the run) and its
# learned character mapping (before: GUI runs only, in the setting "gui.mapping.run.<id>")

_V3 = [
    """CREATE TABLE run_pins (
        run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
        step INTEGER NOT NULL CHECK (step >= 0),
        pins TEXT NOT NULL DEFAULT '[]',
        changed_at TEXT NOT NULL,
        PRIMARY KEY (run_id, step)
    )""",
    "INSERT INTO run_pins (run_id, step, pins, changed_at) SELECT id, 0, pins, started_at FROM run",
    """CREATE TABLE run_mapping (
        run_id INTEGER PRIMARY KEY REFERENCES run(id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        lost TEXT NOT NULL,
        known TEXT NOT NULL,
        probs TEXT NOT NULL
    )""",
]


def _v3(conn: sqlite3.Connection) -> None:
    _statements(_V3)(conn)
    import json

    rows = conn.execute("SELECT s.key, s.value, r.id, coalesce(r.last_step, 0) FROM setting s "
                        "JOIN run r ON s.key = 'gui.mapping.run.' || r.id").fetchall()
    for _key, value, run_id, step in rows:
        try:
            data = json.loads(value)
            lost, known, probs = (json.dumps(data[k], ensure_ascii=False) for k in ("lost", "known", "probs"))
        except (ValueError, TypeError, KeyError):
            continue  # an unreadable old mapping stays where it was, unused
        conn.execute("INSERT OR IGNORE INTO run_mapping (run_id, step, lost, known, probs) VALUES (?, ?, ?, ?, ?)",
                     (run_id, step, lost, known, probs))


# version 3 -> 4: with restarts (setting restarts) every start counts its steps from 1, so a run's
# metric rows are keyed by the start too (rows before it: start 0), and the run names the start
# whose rows are its curve (the one being trained, the kept one once chosen)

_V4 = [
    # rebuilt by copying, not by ALTER TABLE ... RENAME (which left the WAL checkpoint of a new
    # file "locked" under SQLite 3.40)
    "CREATE TABLE run_metric_v3 AS SELECT run_id, name, step, value FROM run_metric",
    "DROP TABLE run_metric",
    """CREATE TABLE run_metric (
        run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        restart INTEGER NOT NULL DEFAULT 0 CHECK (restart >= 0),
        step INTEGER NOT NULL,
        value REAL,
        PRIMARY KEY (run_id, name, restart, step)
    )""",
    "INSERT INTO run_metric (run_id, name, restart, step, value) SELECT run_id, name, 0, step, value FROM run_metric_v3",
    "DROP TABLE run_metric_v3",
    "ALTER TABLE run ADD COLUMN curve_restart INTEGER NOT NULL DEFAULT 0",
]


# version 4 -> 5: a syllable run (setting signs = syllables) keeps what it learned of each sign,
# P(onset | sign) and P(vowel | sign) (engine/results.py SyllableTable), with its mapping; NULL for
# letter runs and for every mapping recorded before

_V5 = ["ALTER TABLE run_mapping ADD COLUMN syllables TEXT"]


# version 5 -> 6: a run's final objective over its corpus and its gold-free diagnosis (issue 30;
# engine/training/diagnosis.py), stored at its end; runs of older files have no row ("no diagnosis")

_V6 = [
    """CREATE TABLE run_diagnosis (
        run_id INTEGER PRIMARY KEY REFERENCES run(id) ON DELETE CASCADE,
        final_objective REAL,
        diagnosis TEXT NOT NULL,
        inputs_digest TEXT
    )""",
]


def _statements(sql: list[str]) -> Callable[[sqlite3.Connection], None]:
    def apply(conn: sqlite3.Connection) -> None:
        for statement in sql:
            conn.execute(statement)
    return apply


#: ``MIGRATIONS[v]`` upgrades a file of version ``v`` to ``v + 1`` (inside the caller's transaction).
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_statements(_V1), _statements(_V2), _v3,
                                                          _statements(_V4), _statements(_V5), _statements(_V6)]


def schema_version() -> int:
    """The version this code writes (and the newest it can read)."""
    return len(MIGRATIONS)


SCHEMA_VERSION = schema_version()


def migrate(conn: sqlite3.Connection, target: int | None = None, *,
            before_change: Callable[[int], None] | None = None) -> tuple[int, int]:
    """Bring the open file up to ``target`` (default: the newest) in one transaction.

    The version is read inside that transaction (``BEGIN IMMEDIATE``), so of several processes
    opening an old file at once one upgrades it and the others find it current.
    ``before_change(version)`` runs under the same lock just before the first change (to write a
    backup of exactly the state being upgraded); an exception from it aborts the upgrade.

    Foreign-key enforcement is off during the migration (so future migrations may rebuild
    tables) and the whole file is checked with ``PRAGMA foreign_key_check`` before COMMIT.
    Returns (version before, version after). The connection must be in autocommit mode.
    """
    target = len(MIGRATIONS) if target is None else target
    conn.execute("PRAGMA foreign_keys=OFF")
    conn.execute("BEGIN IMMEDIATE")
    lift = access.unbounded(conn)  # our own statements on a file already checked
    lift.__enter__()
    try:
        before = conn.execute("PRAGMA user_version").fetchone()[0]
        if before < target and before_change is not None:
            before_change(before)
        for version in range(before, target):
            MIGRATIONS[version](conn)
        if before < target:
            conn.execute(f"PRAGMA user_version={int(target)}")
            problems = conn.execute("PRAGMA foreign_key_check").fetchall()
            if problems:
                raise ProjectError(f"the upgraded file breaks {len(problems)} foreign key(s), "
                                   f"first in table {problems[0][0]!r}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        lift.__exit__(None, None, None)
        conn.execute("PRAGMA foreign_keys=ON")
    return before, max(before, target)


# ---------------------------------------------------------------------------------------------
# looking at a file without changing it


@dataclass(frozen=True)
class FileInfo:
    """What the header (and a read-only look) of a project file says."""

    path: Path
    size: int
    application_id: int
    version: int
    wal: bool
    """True when the file is in WAL mode (the header's read/write versions are 2)."""


def read_header(path: Path) -> FileInfo:
    """Check a file's first 100 bytes: SQLite, our application id, a version we can read.

    Nothing but plain reads touch the file; every refusal is a ProjectError that says why.
    """
    if not path.exists():
        raise ProjectError(f"{path}: no such file")
    if not path.is_file():
        raise ProjectError(f"{path}: not a file")
    try:
        with rawfile.held(path) as raw:  # never a descriptor of our own: see rawfile
            head = raw.read(100)
            size = raw.size()
    except OSError as e:
        raise ProjectError(f"{path}: cannot read the file ({e.strerror or e})") from None
    if size == 0:
        raise ProjectError(f"{path}: the file is empty, not a project file")
    if len(head) < 100 or not head.startswith(SQLITE_MAGIC):
        raise ProjectError(f"{path}: not a project file (it is not an SQLite database)")
    app_id = int.from_bytes(head[68:72], "big", signed=True)
    version = int.from_bytes(head[60:64], "big", signed=True)
    if app_id != APPLICATION_ID:
        if app_id == 0:
            raise ProjectError(f"{path}: an SQLite database, but not a project file "
                               "(it has no application id; was it made by another program?)")
        raise ProjectError(f"{path}: an SQLite database of another application "
                           f"(application_id 0x{app_id & 0xFFFFFFFF:08X}), not a project file")
    _check_version(path, version)
    return FileInfo(path, size, app_id, version, wal=head[18] == 2 and head[19] == 2)


def _check_version(path: Path, version: int) -> None:
    if version > SCHEMA_VERSION:
        raise ProjectError(f"{path}: written by a newer version of this program (file schema "
                           f"v{version}, this program reads up to v{SCHEMA_VERSION}); update the "
                           "program to open it")
    if version < 0:
        raise ProjectError(f"{path}: damaged header (schema version {version})")


def _sidecars(path: Path) -> tuple[Path, Path]:
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


def check_connection(conn: sqlite3.Connection, path: Path) -> int:
    """Check an open connection's file: our application id, a version we can read, and
    ``PRAGMA quick_check``, in one read transaction (a consistent view even while other processes
    write). Returns the schema version; every refusal is a ProjectError that says why."""
    try:
        conn.execute("BEGIN")
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            result = [r[0] for r in conn.execute("PRAGMA quick_check(5)").fetchall()]
            objects = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")
    except sqlite3.OperationalError as e:
        if access.overran(conn):
            raise ProjectError(f"{path}: {access.overrun_message(conn)}") from None
        if "locked" in str(e) or "busy" in str(e):
            raise ProjectError(f"{path}: the file is busy in another program ({e}); try again") from None
        raise ProjectError(f"{path}: cannot read the file ({e})") from None
    except sqlite3.DatabaseError as e:
        raise ProjectError(f"{path}: the file is damaged ({e}); restore it from a backup "
                           "or an earlier copy") from None
    if app_id == APPLICATION_ID and 0 <= version <= SCHEMA_VERSION:
        check_objects(objects, path, version)
        if result != ["ok"] and any("constraint" in r for r in result):
            validate_cells(conn, path)  # names the row and column, where it can
    if result != ["ok"]:
        first = result[0].splitlines()
        detail = first[1] if len(first) > 1 and first[0].startswith("***") else first[0]
        raise ProjectError(f"{path}: the file is damaged ({detail.strip()}); restore it from a "
                           "backup or an earlier copy")
    if app_id != APPLICATION_ID:
        raise ProjectError(f"{path}: not a project file (application_id 0x{app_id & 0xFFFFFFFF:08X})")
    _check_version(path, version)
    return version


# ---------------------------------------------------------------------------------------------
# a project file is data, not code: its schema must be exactly ours


#: Tables SQLite itself adds to a database (ANALYZE's statistics); they hold no code.
SQLITE_OWN_TABLES = ("sqlite_stat1", "sqlite_stat4", "sqlite_sequence")


def _norm(sql: str | None) -> str | None:
    return None if sql is None else " ".join(sql.split())


@functools.lru_cache(maxsize=None)
def known_objects(version: int) -> dict[tuple[str, str], str | None]:
    """{(type, name): normalised SQL} of every object a file of schema ``version`` holds: made by
    running the migrations up to it on an empty database, so it is the schema by construction."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        for v in range(version):
            MIGRATIONS[v](conn)
        return {(t, n): _norm(sql) for t, n, sql in
                conn.execute("SELECT type, name, sql FROM sqlite_master").fetchall()}
    finally:
        conn.close()


def _describe(kind: str, name: str, table: str) -> str:
    on = f" on table {table!r}" if kind in ("trigger", "index") and table and table != name else ""
    return f"{kind} {name!r}{on}"


def check_objects(objects: list[tuple], path: Path, version: int) -> None:
    """Refuse (:class:`~engine.errors.ForeignSchemaError`, naming each) a file whose
    ``sqlite_master`` rows are not exactly those of ``version``: a trigger, a view, a table or an
    index we never make, one of ours with another definition, or one of ours missing. Checked
    before any statement touches the file's tables, so none of its SQL ever runs."""
    known = known_objects(version)
    foreign, seen = [], set()
    for kind, name, table, sql in objects:
        seen.add((kind, name))
        if kind == "table" and name in SQLITE_OWN_TABLES:
            continue
        if (kind, name) not in known:
            foreign.append(_describe(kind, name, table))
        elif _norm(sql) != known[(kind, name)]:
            foreign.append(_describe(kind, name, table) + " (defined differently from ours)")
    missing = [f"{kind} {name!r}" for kind, name in known if (kind, name) not in seen
               and not name.startswith("sqlite_autoindex_")]
    if foreign or missing:
        raise ForeignSchemaError(path, foreign, missing)


# ---------------------------------------------------------------------------------------------
# every stored value has the type this program writes

_JSON = "CASE WHEN typeof({c}) != 'text' THEN 0 WHEN NOT json_valid({c}) THEN 0 ELSE {then} END"
_TYPED = "typeof({c}) = '{t}'"
# a run's pins: a JSON list of [lost, known_ipa, weight (0 < w <= 1000), locked, note]
_PINS = ("CASE WHEN json_type(pins) != 'array' THEN 0 ELSE NOT EXISTS (SELECT 1 FROM json_each(pins) p "
         "WHERE p.type != 'array' OR json_array_length(p.value) != 5 OR json_type(p.value, '$[0]') != 'text' "
         "OR json_type(p.value, '$[1]') != 'text' OR json_type(p.value, '$[2]') NOT IN ('integer', 'real') "
         "OR json_extract(p.value, '$[2]') <= 0 OR json_extract(p.value, '$[2]') > 1000 "
         "OR json_type(p.value, '$[3]') NOT IN ('true', 'false', 'integer') "
         "OR json_type(p.value, '$[4]') != 'text') END")

#: (table, column, SQL that is true for a good cell, the problem when it is not)
CELL_CHECKS: tuple[tuple[str, str, str, str], ...] = (
    ("corpus", "name", "typeof(name) = 'text' AND length(name) > 0", "not a non-empty text"),
    ("inscription", "corpus_id", _TYPED.format(c="corpus_id", t="integer"), "not a whole number"),
    ("inscription", "position", _TYPED.format(c="position", t="integer"), "not a whole number"),
    ("inscription", "inscription_id", "typeof(inscription_id) = 'text' AND length(inscription_id) > 0",
     "not a non-empty text"),
    ("inscription", "text", "typeof(text) = 'text' AND length(text) > 0", "not a non-empty text"),
    ("inscription", "raw", "typeof(raw) IN ('text', 'null')", "not a text"),
    ("inscription", "meta", _JSON.format(c="meta", then="json_type(meta) = 'object'"),
     "not a JSON object"),
    ("language", "name", "typeof(name) = 'text' AND length(name) > 0", "not a non-empty text"),
    ("stem", "language_id", _TYPED.format(c="language_id", t="integer"), "not a whole number"),
    ("stem", "form", "typeof(form) = 'text' AND length(form) > 0", "not a non-empty text"),
    ("stem", "ipa", "typeof(ipa) = 'text' AND length(ipa) > 0", "not a non-empty text"),
    ("stem", "gloss", "typeof(gloss) = 'text'", "not a text"),
    ("stem", "source", "typeof(source) = 'text'", "not a text"),
    ("gold", "inscription_id", "typeof(inscription_id) = 'text'", "not a text"),
    ("gold", "start", "typeof(start) = 'integer' AND start >= 0", "not a whole number >= 0"),
    ("gold", "word_end", "typeof(word_end) = 'integer' AND word_end > start",
     "not a whole number above the start"),
    ("gold", "known", _JSON.format(c="known", then="CASE WHEN json_type(known) != 'array' THEN 0 ELSE "
     "json_array_length(known) > 0 AND NOT EXISTS (SELECT 1 FROM json_each(known) "
     "WHERE type != 'text' OR length(value) = 0) END"), "not a JSON list of known forms"),
    ("pin", "lost", "typeof(lost) = 'text' AND length(lost) > 0", "not a non-empty text"),
    ("pin", "known_ipa", "typeof(known_ipa) = 'text' AND length(known_ipa) > 0", "not a non-empty text"),
    ("pin", "weight", "typeof(weight) IN ('real', 'integer') AND weight > 0 AND weight <= 1000",
     "not a weight above 0 and at most 1000"),
    ("pin", "locked", "typeof(locked) = 'integer' AND locked IN (0, 1)", "not 0 or 1"),
    ("pin", "note", "typeof(note) = 'text'", "not a text"),
    ("run", "status", f"status IN ({', '.join(repr(s) for s in RUN_STATUSES)})", "not a run status"),
    ("run", "config", _JSON.format(c="config", then="json_type(config) = 'object'"),
     "not a JSON object of settings"),
    ("run", "pins", _JSON.format(c="pins", then=_PINS), "not a JSON list of pins [lost, known_ipa, weight, locked, note]"),
    ("run", "seed", "typeof(seed) IN ('integer', 'null')", "not a whole number"),
    ("run", "corpus_id", "typeof(corpus_id) IN ('integer', 'null')", "not a whole number"),
    ("run", "language_id", "typeof(language_id) IN ('integer', 'null')", "not a whole number"),
    ("run", "pid", "typeof(pid) IN ('integer', 'null')", "not a whole number"),
    ("run", "last_step", "typeof(last_step) IN ('integer', 'null')", "not a whole number"),
    ("run", "resumed_from", "typeof(resumed_from) IN ('integer', 'null')", "not a whole number"),
    ("run", "curve_restart", "typeof(curve_restart) = 'integer' AND curve_restart >= 0",
     "not a whole number >= 0"),
    ("run", "started_at", "typeof(started_at) = 'text'", "not a text"),
    ("run", "code_version", "typeof(code_version) = 'text'", "not a text"),
    ("run", "device", "typeof(device) = 'text'", "not a text"),
    ("run", "host", "typeof(host) = 'text'", "not a text"),
    ("run", "ended_at", "typeof(ended_at) IN ('text', 'null')", "not a text"),
    ("run", "heartbeat_at", "typeof(heartbeat_at) IN ('text', 'null')", "not a text"),
    ("run", "checkpoint", "typeof(checkpoint) IN ('text', 'null')", "not a text"),
    ("run", "error", "typeof(error) IN ('text', 'null')", "not a text"),
    # run_metric, by far the largest table, is not scanned on opening: see METRIC_CHECKS
    ("run_match", "inscription_id", "typeof(inscription_id) = 'text'", "not a text"),
    ("run_match", "span_start", "typeof(span_start) = 'integer' AND span_start >= 0", "not a whole number >= 0"),
    ("run_match", "span_end", "typeof(span_end) = 'integer' AND span_end >= span_start",
     "not a whole number at or after the start"),
    ("run_match", "span", "typeof(span) = 'text'", "not a text"),
    ("run_match", "confidence", "typeof(confidence) IN ('real', 'integer', 'null')", "not a number"),
    ("run_alternative", "rank", "typeof(rank) = 'integer' AND rank >= 1", "not a whole number >= 1"),
    ("run_alternative", "form", "typeof(form) = 'text'", "not a text"),
    ("run_alternative", "ipa", "typeof(ipa) = 'text'", "not a text"),
    ("run_alternative", "gloss", "typeof(gloss) = 'text'", "not a text"),
    ("run_alternative", "score", "typeof(score) IN ('real', 'integer', 'null')", "not a number"),
    ("run_alternative", "log_prob", "typeof(log_prob) IN ('real', 'integer', 'null')", "not a number"),
    ("decision", "status", f"status IN ({', '.join(repr(s) for s in DECISIONS)})", "not accepted or rejected"),
    ("decision", "span_start", "typeof(span_start) = 'integer'", "not a whole number"),
    ("decision", "span_end", "typeof(span_end) = 'integer'", "not a whole number"),
    ("decision", "form", "typeof(form) = 'text'", "not a text"),
    ("decision", "note", "typeof(note) = 'text'", "not a text"),
    ("setting", "key", "typeof(key) = 'text'", "not a text"),
    ("setting", "value", _JSON.format(c="value", then="1"), "not JSON"),
    ("run_pins", "step", "typeof(step) = 'integer' AND step >= 0", "not a whole number >= 0"),
    ("run_pins", "pins", _JSON.format(c="pins", then=_PINS), "not a JSON list of pins [lost, known_ipa, weight, locked, note]"),
    ("run_mapping", "syllables", "syllables IS NULL OR (" + _JSON.format(c="syllables", then="json_type(syllables) = 'object'")
     + ")", "not empty or a JSON object (a syllable table)"),
    ("run_diagnosis", "inputs_digest", "typeof(inputs_digest) IN ('text', 'null')", "not a text"),
    ("run_diagnosis", "final_objective", "typeof(final_objective) IN ('real', 'integer', 'null')", "not a number"),
    ("run_diagnosis", "diagnosis", _JSON.format(c="diagnosis", then="json_type(diagnosis) = 'object' AND "
     "json_type(diagnosis, '$.findings') = 'array'"), "not a JSON object of findings (a diagnosis)"),
)

#: The checks of run_metric: made by :meth:`Project.check_readable` (the app's launch) and, row
#: by row, by every read of metrics (RunsMixin._metric_row), not on every open.
METRIC_CHECKS: tuple[tuple[str, str, str, str], ...] = (
    ("run_metric", "name", "typeof(name) = 'text'", "not a text"),
    ("run_metric", "step", "typeof(step) = 'integer'", "not a whole number"),
    ("run_metric", "restart", "typeof(restart) = 'integer' AND restart >= 0", "not a whole number >= 0"),
    ("run_metric", "value", "typeof(value) IN ('real', 'integer', 'null')", "not a number"),
)

_ROW_NAME = {"pin": "lost || ' -> ' || known_ipa", "setting": "quote(key)",
             "run_metric": "'run ' || run_id || ' ' || quote(name) || ' step ' || step",
             "run_pins": "'run ' || run_id || ' step ' || step",
             "decision": "'run ' || run_id || ' ' || quote(inscription_id) || ' ' || quote(form)",
             "run_alternative": "'match ' || match_id || ' rank ' || quote(rank)",
             "run_mapping": "'run ' || run_id", "run_diagnosis": "'run ' || run_id"}

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_CONTROL_RAW = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")  # as imported: the Hesperia reader keeps VT and FF


def validate_cells(conn: sqlite3.Connection, path: Path,
                   checks: tuple[tuple[str, str, str, str], ...] = CELL_CHECKS) -> None:
    """Refuse (:class:`~engine.errors.StoredValueError` naming table, row and column) the first
    cell of the file that does not hold what this program writes there: JSON that does not
    parse or has the wrong shape, text where a number belongs, a pin weight the importers would
    refuse. One scan of SQL per table (no Python per row); the reads then trust the types."""
    by_table: dict[str, list[tuple[str, str, str]]] = {}
    for table, column, good, problem in checks:
        by_table.setdefault(table, []).append((column, good, problem))
    for table, checks in by_table.items():
        # an older file (checked before its upgrade) lacks the later columns
        present = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
        checks = [c for c in checks if c[0] in present]
        if not checks:
            continue
        goods = [f"coalesce(({good}), 0)" for _, good, _ in checks]
        first_bad = "CASE " + " ".join(f"WHEN NOT {g} THEN {i}" for i, g in enumerate(goods)) + " END"
        columns = ", ".join(c for c, _, _ in checks)
        sql = (f"SELECT {_ROW_NAME.get(table, 'rowid')}, {first_bad}, {columns} FROM {table} "
               f"WHERE NOT ({' AND '.join(goods)}) LIMIT 1")
        try:
            bad = conn.execute(sql).fetchone()
        except sqlite3.OperationalError as e:
            if access.overran(conn):
                raise ProjectError(f"{path}: {access.overrun_message(conn)}") from None
            raise ProjectError(f"{path}: cannot read table {table} ({e})") from None
        if bad is not None:
            i = bad[1]
            column, _, problem = checks[i]
            raise StoredValueError(path, table, bad[0], column, f"{problem}, found {_shown(bad[2 + i])}")


def _shown(value: object, limit: int = 40) -> str:
    if isinstance(value, bytes):
        return f"a blob of {len(value)} bytes"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def check_text(path: Path, table: str, row: object, column: str, value: object, *,
               allow_breaks: bool = False, empty: bool = False) -> str:
    """``value`` when it is text the importers would take (no control characters but tabs and line
    breaks, as the readers allow; vertical tabs and form feeds too with ``allow_breaks``, as the
    Hesperia reader keeps them in raw text), else :class:`~engine.errors.StoredValueError`."""
    if not isinstance(value, str):
        raise StoredValueError(path, table, row, column, f"not a text, found {_shown(value)}")
    if not value and not empty:
        raise StoredValueError(path, table, row, column, "empty")
    m = (_CONTROL_RAW if allow_breaks else _CONTROL).search(value)
    if m is not None:
        raise StoredValueError(path, table, row, column,
                               f"control character U+{ord(m.group()):04X} at column {m.start() + 1}")
    return value


def inspect_file(path: str | Path, *, check: bool = True) -> FileInfo:
    """Read-only checks of a project file: :func:`read_header`, then (``check``) a look through
    SQLite at its id, version and ``PRAGMA quick_check``.

    The look opens the file as :func:`Project.open <engine.project.store.Project.open>` would
    (read-write where it may, with no write made, so that SQLite, on closing, tidies up the files
    it made; read-only where it must) and never removes a ``-wal`` or ``-shm`` file: those belong
    to SQLite and may be in use by another process at that very moment.
    """
    path = Path(path)
    info = read_header(path)
    if not check:
        return info
    access.refuse_linked_sidecars(path)
    try:
        conn = access.connect(path, access.choose(path))
    except sqlite3.Error as e:
        raise ProjectError(f"{path}: cannot open ({e})") from None
    try:
        version = check_connection(conn, path)
    finally:
        conn.close()
    return FileInfo(path, info.size, APPLICATION_ID, version, info.wal)


def backup_paths(path: Path, version: int) -> list[Path]:
    """The backups of ``path`` at ``version`` that exist, in the order :func:`backup_path` names them."""
    found = []
    candidate, k = path.with_name(f"{path.name}.v{version}.bak"), 2
    while candidate.exists():
        found.append(candidate)
        candidate = path.with_name(f"{path.name}.v{version}-{k}.bak")
        k += 1
    return found


def backup_path(path: Path, version: int) -> Path:
    """``<file>.v<N>.bak``; if that name is taken, ``<file>.v<N>-2.bak``, ``-3`` …"""
    candidate = path.with_name(f"{path.name}.v{version}.bak")
    k = 2
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.v{version}-{k}.bak")
        k += 1
    return candidate
