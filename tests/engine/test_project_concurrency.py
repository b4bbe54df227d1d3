"""Many processes opening, writing and closing one project file at once (issue 9, item 1).

Real processes on a real file: each worker, in a loop, opens the project, starts a run, records
metrics, finishes the run and closes. No run may be lost, no id given twice, and the file must
pass ``PRAGMA integrity_check`` afterwards. Nothing here waits on a fixed time: the workers start
together on a pipe, and the deadline is only a guard against a hang.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from engine.project import Project
from engine.project.store import _build_file

from .test_project_helpers import sidecars

ROOT = Path(__file__).resolve().parents[2]
WRITERS = 8
ROUNDS = 20

WORKER = textwrap.dedent("""
    import json, os, sys
    from engine.project import Project
    path, rounds, me = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    sys.stdin.read(1)  # every worker waits here, then all start at once
    ids, errors = [], []
    for r in range(rounds):
        try:
            project = Project.open(path)
            try:
                run = project.start_run({"seed": me * 1000 + r}, None, None, device="cpu")
                project.record_metrics(run, 1, {"loss": 1.0, "worker": me})
                project.heartbeat(run, 2)
                project.record_metrics(run, 2, {"loss": 0.5, "worker": me})
                project.finish_run(run, "completed")
                ids.append(run)
            finally:
                project.close()
        except Exception as e:  # reported, so the test shows what went wrong
            errors.append(f"round {r}: {type(e).__name__}: {e}")
    print(json.dumps({"ids": ids, "errors": errors}))
""")


def _hammer(path: Path, writers: int, rounds: int) -> list[dict]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(path), str(rounds), str(i)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env, cwd=ROOT) for i in range(writers)]
    results = []
    try:
        for p in procs:  # the start signal, as close together as the pipes allow
            p.stdin.write("g")
            p.stdin.flush()
        for p in procs:
            out, err = p.communicate(timeout=600)  # a hang guard only, never reached normally
            assert p.returncode == 0, err[-3000:]
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return results


def _check_file(path: Path, expected_runs: int, ids: list[int]) -> None:
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        rows = conn.execute("SELECT id, status FROM run").fetchall()
        metrics = conn.execute("SELECT count(*) FROM run_metric").fetchone()[0]
    finally:
        conn.close()
    assert len(rows) == expected_runs
    assert sorted(r[0] for r in rows) == sorted(ids)
    assert {r[1] for r in rows} == {"completed"}
    assert metrics == expected_runs * 4  # two metrics at two steps per run


def test_concurrent_writers_never_lose_a_run(tmp_path):
    path = tmp_path / "shared.decipher"
    Project.create(path).close()
    results = _hammer(path, WRITERS, ROUNDS)
    errors = [e for r in results for e in r["errors"]]
    assert errors == []
    ids = [i for r in results for i in r["ids"]]
    assert len(ids) == WRITERS * ROUNDS
    assert len(set(ids)) == len(ids), "a run id was handed out twice"
    _check_file(path, WRITERS * ROUNDS, ids)
    with Project.open(path) as project:  # and the program itself still reads it
        assert len(project.runs("completed")) == WRITERS * ROUNDS
    assert not sidecars(path)  # the last one to close checkpointed it into one file


def test_concurrent_first_opens_upgrade_once_with_one_backup(tmp_path):
    """An old file opened by many processes at once is upgraded once, backed up once, and
    every process's runs land in it."""
    path = tmp_path / "old.decipher"
    _build_file(path, 1)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=DELETE")  # as files of older versions may be
    conn.close()
    results = _hammer(path, WRITERS, 2)
    assert [e for r in results for e in r["errors"]] == []
    ids = [i for r in results for i in r["ids"]]
    _check_file(path, WRITERS * 2, ids)
    backups = sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".bak"))
    assert backups == ["old.decipher.v1.bak"]


PROBE = textwrap.dedent("""
    import sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        print("got the write lock")
    except sqlite3.OperationalError as e:
        print("refused:", e)
""")


def test_reading_the_file_during_an_upgrade_keeps_its_write_lock(tmp_path, monkeypatch):
    """The backup and any header read made while an upgrade holds the write lock read through the
    project's own descriptor: closing any other descriptor of the file would release this
    process's locks (POSIX), and another process could then write, or roll back our journal,
    in the middle of the upgrade. Checked without timing: a second process probes the lock."""
    import engine.project.store as store
    from engine.project import inspect_file

    path = tmp_path / "old.decipher"
    _build_file(path, 1)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=DELETE")  # locks on the main file itself, as in old files
    conn.close()
    probes = []
    write_backup = store._write_backup

    def backup_then_probe(*args):
        made = write_backup(*args)
        inspect_file(path, check=False)  # a header read in the same process, as the app may do
        probes.append(subprocess.run([sys.executable, "-c", PROBE, str(path)], capture_output=True,
                                     text=True, check=True).stdout.strip())
        return made

    from engine.project import rawfile

    monkeypatch.setattr(store, "_write_backup", backup_then_probe)
    held = rawfile.holders()  # other tests' projects may still be open in this process
    with Project.open(path) as project:
        assert project.migrated_from == 1
        assert rawfile.holders() == held + 1
    assert probes == ["refused: database is locked"]
    assert rawfile.holders() == held  # the descriptor went with the last close


def test_a_file_busy_in_rollback_mode_opens_and_switches_to_wal_later(tmp_path, monkeypatch):
    """Switching an older rollback-journal file to WAL needs it to itself, and SQLite refuses at
    once (no busy wait) while another process reads it: the open must not fail for that (it did,
    1 in 60 times, with 8 processes opening one old file under load). It stays in rollback mode
    until an open finds it free."""
    import functools

    import engine.project.store as store

    path = tmp_path / "p.decipher"
    Project.create(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute("BEGIN")
    conn.execute("SELECT count(*) FROM run").fetchone()  # a reader holds the file
    monkeypatch.setattr(store, "_switch_to_wal",
                        functools.partial(store._switch_to_wal, tries=2, pause=0.0))
    try:
        with Project.open(path) as project:
            assert project.conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    finally:
        conn.execute("COMMIT")
        conn.close()
    with Project.open(path) as project:
        assert project.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        run = project.start_run({"seed": 1}, None, None, device="cpu")
        project.finish_run(run, "completed")
        assert [r.id for r in project.runs("completed")] == [run]
