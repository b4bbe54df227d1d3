"""The project store: file identity, refusals, migrations, interrupted runs, transactions."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from engine.config import Config
from engine.corpus import GoldAnnotation, Inscription, PinnedValue, Stem
from engine.errors import ProjectError
from engine.project import APPLICATION_ID, SCHEMA_VERSION, Project, pid_alive, schema
from engine.project.store import _build_file
from engine.results import Alternative, Match

from .test_project_helpers import dead_pid, filled_project, sample_matches, sha, sidecars

ROOT = Path(__file__).resolve().parents[2]


def test_create_sets_identity_and_leaves_one_file(tmp_path):
    path = tmp_path / "p.decipher"
    Project.create(path).close()
    assert path.exists() and not sidecars(path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    conn.close()
    assert {"corpus", "inscription", "language", "stem", "gold", "pin", "run", "run_metric",
            "run_match", "run_alternative", "decision", "setting"} <= tables
    with pytest.raises(ProjectError, match="already exists"):
        Project.create(path)


def test_foreign_keys_wal_and_open_close_leaves_bytes(tmp_path):
    path = tmp_path / "p.decipher"
    project, ids = filled_project(path)
    assert project.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert project.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    project.close()
    assert not sidecars(path)
    before = sha(path)
    with Project.open(path) as again:
        assert again.interrupted == []
        assert len(again.inscriptions(ids["corpus"])) == 4
    assert sha(path) == before and not sidecars(path)


def _not_sqlite(tmp_path):
    p = tmp_path / "notes.decipher"
    p.write_text("id,text\nA,ba\n", encoding="utf-8")
    return p, "not an SQLite database"


def _empty(tmp_path):
    p = tmp_path / "empty.decipher"
    p.write_bytes(b"")
    return p, "empty"


def _random(tmp_path):
    p = tmp_path / "random.decipher"
    p.write_bytes(os.urandom(8192))
    return p, "not an SQLite database"


def _foreign(tmp_path):
    p = tmp_path / "other.decipher"
    conn = sqlite3.connect(p)
    conn.execute("CREATE TABLE notes (x)")
    conn.commit()
    conn.close()
    return p, "not a project file"


def _other_app(tmp_path):
    p = tmp_path / "gpkg.decipher"
    conn = sqlite3.connect(p)
    conn.execute("PRAGMA application_id=1196444487")  # GeoPackage's "GPKG"
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    return p, "another application"


def _newer(tmp_path):
    p = tmp_path / "newer.decipher"
    Project.create(p).close()
    conn = sqlite3.connect(p)
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    return p, "newer version"


def _big_project(tmp_path, name):
    p = tmp_path / name
    project = Project.create(p)
    project.add_corpus("big", [Inscription(f"I{i}", "ba ka ra tu su " * 20) for i in range(300)])
    project.close()
    return p


def _truncated(tmp_path):
    p = _big_project(tmp_path, "truncated.decipher")
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])
    return p, "damaged"


def _garbage(tmp_path):
    p = _big_project(tmp_path, "garbage.decipher")
    data = bytearray(p.read_bytes())
    page = 4096
    data[page * 3: page * 5] = os.urandom(page * 2)
    p.write_bytes(bytes(data))
    return p, "damaged"


@pytest.mark.parametrize("make", [_not_sqlite, _empty, _random, _foreign, _other_app, _newer,
                                  _truncated, _garbage])
def test_refused_files_are_left_byte_for_byte(tmp_path, make):
    from engine.project import rawfile

    path, words = make(tmp_path)
    before = sha(path)
    listing = sorted(os.listdir(tmp_path))
    held = rawfile.holders()
    with pytest.raises(ProjectError, match=words) as err:
        Project.open(path)
    assert str(path) in str(err.value)
    assert sha(path) == before
    assert sorted(os.listdir(tmp_path)) == listing  # no -wal/-shm/.bak left behind
    assert rawfile.holders() == held  # nor a descriptor of the file held in this process


@pytest.mark.parametrize("error", [KeyboardInterrupt, RuntimeError])
def test_an_open_interrupted_during_the_upgrade_holds_nothing(tmp_path, monkeypatch, error):
    """Whatever ends an open early (here Ctrl-C or a bug in the middle of the upgrade) closes its
    connection and lets go of the file's descriptor (engine/project/rawfile.py): a later open in
    the same process upgrades the file, and the descriptor goes with its close."""
    import engine.project.schema as schema
    from engine.project import rawfile

    path = tmp_path / "old.decipher"
    _v1_file(path)
    held = rawfile.holders()
    migrate = schema.migrate

    def interrupted(*args, **kwargs):
        raise error("in the middle of the upgrade")

    monkeypatch.setattr(schema, "migrate", interrupted)
    with pytest.raises(error):
        Project.open(path)
    assert rawfile.holders() == held
    monkeypatch.setattr(schema, "migrate", migrate)
    with Project.open(path) as project:
        assert project.migrated_from == 1
    assert rawfile.holders() == held


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(ProjectError, match="no such file"):
        Project.open(tmp_path / "nope.decipher")
    with pytest.raises(ProjectError, match="not a file"):
        Project.open(tmp_path)


def _v1_file(path: Path) -> None:
    _build_file(path, 1)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute("INSERT INTO corpus (name, imported_at) VALUES ('old', '2020-01-01T00:00:00+00:00')")
    conn.execute("INSERT INTO inscription (corpus_id, position, inscription_id, text) VALUES (1, 0, 'A', 'ba ka')")
    conn.execute("INSERT INTO run (status, started_at, config) VALUES ('completed', "
                 "'2020-01-01T00:00:00+00:00', '{\"steps\": 5}')")
    conn.commit()
    conn.close()


def test_migration_writes_backup_first(tmp_path):
    path = tmp_path / "old.decipher"
    _v1_file(path)
    assert schema.read_header(path).version == 1
    original = sha(path)
    with Project.open(path) as project:
        assert project.migrated_from == 1
        assert project.backup == tmp_path / "old.decipher.v1.bak"
        assert project.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert project.inscriptions(project.corpus_id("old")) == [Inscription("A", "ba ka")]
        run = project.runs()[0]
        assert run.resumed_from is None and run.config == {"steps": 5}
        project.set_setting("x", [1, 2])
        assert project.setting("x") == [1, 2]
    assert sha(tmp_path / "old.decipher.v1.bak") == original
    # a second, different old file at the same name gets its own backup name
    path.unlink()
    _v1_file(path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE corpus SET name = 'other'")
    conn.commit()
    conn.close()
    Project.open(path).close()
    assert (tmp_path / "old.decipher.v1-2.bak").exists()


def test_v0_file_is_upgraded_from_scratch(tmp_path):
    path = tmp_path / "v0.decipher"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
    conn.commit()
    conn.close()
    original = sha(path)
    with Project.open(path) as project:
        assert project.migrated_from == 0
        assert project.corpora() == []
    assert sha(tmp_path / "v0.decipher.v0.bak") == original


def test_failed_migration_leaves_file_unchanged(tmp_path, monkeypatch):
    path = tmp_path / "old.decipher"
    _v1_file(path)
    original = sha(path)

    def broken(conn):
        conn.execute("CREATE TABLE half_done (x)")
        raise sqlite3.OperationalError("simulated failure")

    monkeypatch.setattr(schema, "MIGRATIONS", [schema.MIGRATIONS[0], broken])
    with pytest.raises(ProjectError, match="could not upgrade.*simulated failure"):
        Project.open(path)
    assert sha(path) == original
    assert (tmp_path / "old.decipher.v1.bak").exists()


def test_interrupted_run_with_dead_pid(tmp_path):
    path = tmp_path / "p.decipher"
    project, ids = filled_project(path)
    run_id = project.start_run(Config(), ids["corpus"], ids["language"], device="cpu", pid=dead_pid())
    project.record_metrics(run_id, 3, {"loss": 2.5})
    project.set_checkpoint(run_id, "ckpt/step3.pt")
    project.record_matches(run_id, sample_matches()[:1])
    project.close()
    with Project.open(path) as again:
        assert again.interrupted == [run_id]
        run = again.run(run_id)
        assert run.status == "interrupted"
        assert run.checkpoint == "ckpt/step3.pt"
        assert run.last_step == 3 and run.ended_at is not None
        assert "crash or kill" in run.error
        assert again.metrics(run_id) == [(3, "loss", 2.5)]
        assert len(again.matches(run_id)) == 1
        assert again.run(ids["run"]).status == "completed"  # earlier data intact
        assert len(again.matches(ids["run"])) == 3


def test_live_run_is_not_marked_but_stale_remote_one_is(tmp_path):
    path = tmp_path / "p.decipher"
    project, ids = filled_project(path)
    live = project.start_run(Config(), ids["corpus"], ids["language"])  # this process: alive
    remote = project.start_run(Config(), ids["corpus"], ids["language"])
    with project.transaction():
        project.conn.execute("UPDATE run SET host = 'elsewhere', heartbeat_at = "
                             "'2000-01-01T00:00:00.000+00:00' WHERE id = ?", (remote,))
    project.close()
    with Project.open(path) as again:
        assert again.interrupted == [remote]
        assert again.run(live).status == "running"
        assert "no heartbeat since 2000" in again.run(remote).error
        # a live run wrongly marked goes back to running at its next heartbeat
        with again.transaction():
            again.conn.execute("UPDATE run SET status = 'interrupted' WHERE id = ?", (live,))
        again.heartbeat(live, step=4)
        assert again.run(live).status == "running" and again.run(live).last_step == 4
        again.finish_run(live, "stopped")
        with pytest.raises(ProjectError, match="already ended"):
            again.finish_run(live, "completed")


def test_staleness_is_measured_by_the_injected_clock(tmp_path):
    """A run on another host is taken for dead only once its heartbeat is older than
    stale_other_host by the project's clock (no wall clock: the stamps are the clock's own)."""
    path = tmp_path / "p.decipher"
    start = datetime.fromisoformat("2024-05-01T12:00:00+00:00")
    project = Project.create(path, clock=lambda: start)
    run = project.start_run(Config(), None, None)
    with project.transaction():
        project.conn.execute("UPDATE run SET host = 'elsewhere' WHERE id = ?", (run,))
    assert project.run(run).heartbeat_at == "2024-05-01T12:00:00.000+00:00"
    project.close()
    with Project.open(path, stale_other_host=600, clock=lambda: start + timedelta(seconds=599)) as p:
        assert p.interrupted == [] and p.run(run).status == "running"
    with Project.open(path, stale_other_host=600, clock=lambda: start + timedelta(seconds=601)) as p:
        assert p.interrupted == [run] and p.run(run).status == "interrupted"


@pytest.mark.skipif(sys.platform == "win32", reason="zombies are POSIX")
def test_zombie_counts_as_dead():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert pid_alive(proc.pid)
        proc.send_signal(signal.SIGKILL)
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)  # dead, and left unreaped
        assert not pid_alive(proc.pid)  # killed but not yet reaped: a zombie
    finally:
        proc.kill()
        proc.wait()
    assert not pid_alive(proc.pid)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_sigkilled_writer_leaves_committed_data_and_an_interrupted_run(tmp_path):
    path = tmp_path / "p.decipher"
    project, ids = filled_project(path)
    project.close()
    script = textwrap.dedent(f"""
        import os, signal
        from engine.config import Config
        from engine.project import Project
        from engine.results import Alternative, Match
        p = Project.open({str(path)!r})
        run = p.start_run(Config(steps=50), {ids['corpus']}, {ids['language']}, device="cpu")
        for step in range(1, 4):
            p.record_metrics(run, step, {{"loss": 1.0 / step}})
        p.set_checkpoint(run, "ckpt/live.pt")
        p.record_matches(run, [Match("B.1.1", 0, 2, "ba", (Alternative(1, "bakar", "bakar", -1.0),))])
        print(run, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)  # a hang guard only
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    run_id = int(proc.stdout.split()[0])
    assert sidecars(path)  # the killed writer left its WAL behind
    with Project.open(path) as again:
        assert again.interrupted == [run_id]
        run = again.run(run_id)
        assert run.status == "interrupted" and run.checkpoint == "ckpt/live.pt" and run.last_step == 3
        assert [m[0] for m in again.metrics(run_id)] == [1, 2, 3]
        assert again.matches(run_id)[0].span == "ba"
    assert not sidecars(path)


def test_decisions_survive_rerecording_and_match_ids_stay(tmp_path):
    project, ids = filled_project(tmp_path / "p.decipher")
    run = ids["run"]
    first = {(r.match.inscription_id, r.match.start, r.match.end): r.id for r in project.match_records(run)}
    new = sample_matches()
    new[0] = Match("B.1.1", 0, 8, "ba-ka-ra", (Alternative(1, "tusu", "tusu", -0.5),
                                              Alternative(2, "bakar", "bakar", -0.75)), 0.5)
    project.record_matches(run, [new[2], new[0]])  # B.1.2 dropped, order changed
    records = project.match_records(run)
    assert [r.match.inscription_id for r in records] == ["B.1.3", "B.1.1"]
    assert {(r.match.inscription_id, r.match.start, r.match.end): r.id for r in records} == {
        k: v for k, v in first.items() if k[0] != "B.1.2"}
    assert project.decisions(run) == {("B.1.1", 0, 8, "bakar"): "accepted",
                                      ("B.1.3", 0, 2, "tusu"): "rejected"}
    project.record_matches(run, [])
    assert project.matches(run) == [] and len(project.decisions(run)) == 2
    project.record_matches(run, sample_matches())
    assert project.decisions(run)[("B.1.1", 0, 8, "bakar")] == "accepted"
    project.decide(run, "B.1.1", 0, 8, "bakar", None)
    assert ("B.1.1", 0, 8, "bakar") not in project.decisions(run)
    with pytest.raises(ProjectError, match="no match of 'nope'"):
        project.decide(run, "B.1.1", 0, 8, "nope", "accepted")
    with pytest.raises(ProjectError, match="accepted, rejected or None"):
        project.decide(run, "B.1.1", 0, 8, "bakar", "maybe")
    with pytest.raises(ProjectError, match="two matches"):
        project.record_matches(run, sample_matches() + sample_matches()[:1])
    project.close()


def test_matches_round_trip_through_the_store(tmp_path):
    project, ids = filled_project(tmp_path / "p.decipher")
    assert project.matches(ids["run"]) == sample_matches()
    run = project.run(ids["run"])
    assert run.status == "completed" and run.seed == 7 and run.device == "cpu"
    assert run.settings() == Config(min_span=3, coverage_end=0.1)
    assert run.summary() == "min_span=3, coverage_end=0.1"
    assert run.checkpoint == "ckpt/run1.pt" and run.pid == os.getpid()
    assert len(run.pins) == 3 and run.code_version.startswith("0.")
    assert project.latest_metrics(ids["run"]) == {"P@1": 0.5, "P@10": 0.75, "loss": 1.25}
    project.close()


def test_transaction_is_all_or_nothing(tmp_path):
    path = tmp_path / "p.decipher"
    project = Project.create(path)
    with pytest.raises(RuntimeError):
        with project.transaction():
            project.add_corpus("a", [Inscription("x", "ba")])
            project.add_language("l", [Stem("ba", "ba")])
            raise RuntimeError("stop")
    assert project.corpora() == [] and project.languages() == []
    # a call failing inside a larger transaction undoes only itself
    with project.transaction():
        project.add_corpus("a", [Inscription("x", "ba")])
        with pytest.raises(ProjectError):
            project.set_gold(project.corpus_id("a"), [GoldAnnotation("x", 0, 1, ("ba",)),
                                                      GoldAnnotation("x", 0, 5, ("ba",))])
        project.add_language("l", [Stem("ba", "ba")])
    assert [c.name for c in project.corpora()] == ["a"] and project.gold(project.corpus_id("a")) == []
    assert [x.name for x in project.languages()] == ["l"]
    project.close()


def ticking_clock(start: str = "2024-05-01T12:00:00+00:00", step_ms: int = 1):
    """A clock that moves ``step_ms`` milliseconds each time it is read (no wall clock involved)."""
    now = [datetime.fromisoformat(start)]

    def clock() -> datetime:
        now[0] += timedelta(milliseconds=step_ms)
        return now[0]
    return clock


def test_pins_keep_created_time_and_replace(tmp_path):
    project = Project.create(tmp_path / "p.decipher", clock=ticking_clock())
    project.set_pin(PinnedValue("b", "b", 1.0, True, "x"))
    created = project.pin_records()[0].created_at
    assert created.startswith("2024-05-01T12:00:00.")
    project.set_pin(PinnedValue("b", "b", 2.0, False, "y"))
    [record] = project.pin_records()
    assert record.pin == PinnedValue("b", "b", 2.0, False, "y")
    assert record.created_at == created and record.updated_at > created
    project.replace_pins([PinnedValue("k", "k"), PinnedValue("b", "p")])
    assert project.pins() == [PinnedValue("k", "k"), PinnedValue("b", "p")]
    assert project.remove_pin("k", "k") and not project.remove_pin("k", "k")
    with pytest.raises(ProjectError, match="positive"):
        project.set_pin(PinnedValue("k", "k", weight=0.0))
    with pytest.raises(ProjectError, match="twice"):
        project.replace_pins([PinnedValue("k", "k"), PinnedValue("k", "k")])
    project.close()


def test_gold_checks_and_cascades(tmp_path):
    project, ids = filled_project(tmp_path / "p.decipher")
    corpus = ids["corpus"]
    assert project.gold(corpus)[1] == GoldAnnotation("B.1.1", 9, 11, ("tusu", "-ke"))
    with pytest.raises(ProjectError, match="unknown inscription id 'Z'"):
        project.set_gold(corpus, [GoldAnnotation("Z", 0, 1, ("a",))])
    with pytest.raises(ProjectError, match="does not fit"):
        project.set_gold(corpus, [GoldAnnotation("B.1.3", 0, 99, ("a",))])
    assert len(project.gold(corpus)) == 3
    project.remove_corpus(corpus)
    assert project.conn.execute("SELECT count(*) FROM gold").fetchone()[0] == 0
    assert project.conn.execute("SELECT count(*) FROM inscription").fetchone()[0] == 0
    assert project.run(ids["run"]).corpus_id is None
    assert len(project.matches(ids["run"])) == 3
    project.close()


def test_names_and_ids(tmp_path):
    project, ids = filled_project(tmp_path / "p.decipher")
    with pytest.raises(ProjectError, match="already exists"):
        project.add_corpus("iberian", [Inscription("x", "ba")])
    with pytest.raises(ProjectError, match="duplicate inscription id 'x'"):
        project.add_corpus("other", [Inscription("x", "ba"), Inscription("x", "ka")])
    with pytest.raises(ProjectError, match="no corpus named 'nope'.*'iberian'"):
        project.corpus_id("nope")
    with pytest.raises(ProjectError, match="no run with id 99"):
        project.record_metrics(99, 1, {"a": 1.0})
    assert project.vocabulary(ids["language"]).language == "basque"
    project.close()
    with pytest.raises(ProjectError, match="closed"):
        project.corpora()


def test_save_as_and_backup_to(tmp_path):
    path = tmp_path / "p.decipher"
    project, ids = filled_project(path)
    copy = project.backup_to(tmp_path / "copy.decipher")
    project.save_as(tmp_path / "moved.decipher")
    assert project.path == tmp_path / "moved.decipher"
    project.add_corpus("only-in-moved", [Inscription("x", "ba")])
    project.close()
    for p in (path, copy):
        with Project.open(p) as other:
            assert [c.name for c in other.corpora()] == ["iberian"]
            assert other.matches(ids["run"]) == sample_matches()
    with Project.open(tmp_path / "moved.decipher") as moved:
        assert [c.name for c in moved.corpora()] == ["iberian", "only-in-moved"]
    assert not sidecars(copy) and not sidecars(path)


def test_run_recorder_feeds_events(tmp_path):
    from engine.project import RunRecorder
    from engine.results import EvalEvent, FinishedEvent, StepEvent

    project, ids = filled_project(tmp_path / "p.decipher")
    run_id = project.start_run(Config(steps=3), ids["corpus"], ids["language"], device="cpu")
    now = [5.0]  # a clock that reads 5 s: as on a machine booted 5 s ago (monotonic counts from boot)
    recorder = RunRecorder(project, run_id, step_every=3600, clock=lambda: now[0])
    recorder(StepEvent(1, 3, {"quality": 1.5}, 0.25, 0.0, 1.0, 0.1))  # written: the first one
    now[0] += 3599.0
    recorder(StepEvent(2, 3, {"quality": 1.25}, 0.5, 0.1, 0.9, 0.2))  # throttled
    recorder(StepEvent(3, 3, {"quality": 1.0}, 0.5, 0.2, 0.8, 0.3))  # the last step: written
    recorder(EvalEvent(3, tuple(sample_matches()), 0.4, ((0.0, 0.4),), {"P@1": 0.25}))
    recorder.checkpoint("ckpt/final.pt")
    recorder(FinishedEvent(3, "completed", 1.0))
    recorder.fail(RuntimeError("too late"))  # ignored after the finish
    run = project.run(run_id)
    assert run.status == "completed" and run.checkpoint == "ckpt/final.pt" and run.last_step == 3
    assert [s for s, n, _ in project.metrics(run_id, "loss/quality")] == [1, 3]
    assert project.latest_metrics(run_id)["P@1"] == 0.25
    assert project.matches(run_id) == sample_matches()
    other = project.start_run(Config(), ids["corpus"], ids["language"])
    RunRecorder(project, other).fail(ValueError("bad batch"))
    assert project.run(other).status == "failed" and project.run(other).error == "ValueError: bad batch"
    project.close()



def test_run_recorder_throttles_by_its_clock_from_the_first_step(tmp_path):
    """The throttle starts at minus infinity: the first step is written whatever the clock reads
    (0.0 included: a machine just booted), then one step per step_every seconds of that clock."""
    from engine.project import RunRecorder
    from engine.results import StepEvent

    project, ids = filled_project(tmp_path / "p.decipher")
    run_id = project.start_run(Config(steps=100), ids["corpus"], ids["language"], device="cpu")
    now = [0.0]
    recorder = RunRecorder(project, run_id, step_every=2.0, clock=lambda: now[0])
    for step, t in ((1, 0.0), (2, 1.9), (3, 2.0), (4, 3.0), (5, 4.5)):
        now[0] = t
        recorder.step(StepEvent(step, 100, {"quality": 1.0}, 0.5, 0.0, 1.0, 0.1))
    assert [s for s, n, _ in project.metrics(run_id, "loss/quality")] == [1, 3, 5]
    project.close()

def test_two_connections_share_the_file(tmp_path):
    path = tmp_path / "p.decipher"
    gui, ids = filled_project(path)
    trainer = Project.open(path)
    run_id = trainer.start_run(Config(), ids["corpus"], ids["language"])
    trainer.record_metrics(run_id, 1, {"loss/total": 3.0})
    assert gui.run(run_id).status == "running" and gui.metrics(run_id) == [(1, "loss/total", 3.0)]
    gui.set_pin(PinnedValue("t", "t"))
    assert len(trainer.pins()) == 4
    gui.close()  # the other connection still has the file: its checkpoint may be partial
    trainer.finish_run(run_id, "completed")
    trainer.close()
    assert not sidecars(path)
    with Project.open(path) as again:
        assert again.run(run_id).status == "completed" and len(again.pins()) == 4


def test_a_v3_files_metrics_become_start_0_and_stay_the_runs_curve(tmp_path):
    """Schema v4 keys a run's metric rows by the start too (setting restarts): the rows of an older
    file are start 0's, still read back as the run's curve."""
    path = tmp_path / "v3.decipher"
    _build_file(path, 3)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute("INSERT INTO run (status, started_at, config) VALUES ('completed', '2020-01-01T00:00:00+00:00', '{}')")
    conn.executemany("INSERT INTO run_metric (run_id, name, step, value) VALUES (1, ?, ?, ?)",
                     [("loss/total", 1, 2.0), ("loss/total", 2, 1.5), ("p_at_1", 2, None)])
    conn.commit()
    conn.close()
    with Project.open(path) as project:
        assert project.migrated_from == 3 and project.backup == tmp_path / "v3.decipher.v3.bak"
        assert project.metrics(1) == [(1, "loss/total", 2.0), (2, "loss/total", 1.5), (2, "p_at_1", pytest.approx(float("nan"), nan_ok=True))]
        assert project.metrics_by_restart(1).keys() == {0} and project.curve_restart(1) == 0
        assert project.latest_metrics(1)["loss/total"] == 1.5
        # a start's rows no longer replace another's at the same step
        project.record_metrics(1, 1, {"loss/total": 9.0}, restart=1)
        assert project.curve_restart(1) == 1 and project.metrics(1, "loss/total") == [(1, "loss/total", 9.0)]
        assert project.metrics(1, "loss/total", restart=0)[0] == (1, "loss/total", 2.0)
        project.record_metrics(1, 2, {"loss/total": 1.0}, restart=0)
        assert [v for _, _, v in project.metrics(1, "loss/total")] == [2.0, 1.0]
