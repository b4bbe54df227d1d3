"""Read-only project files and folders, failed upgrades, exports through links, CLI exit status
(issue 9, items 6 and 10).

The tests run as root on the team's machines, and root ignores file permissions. So the checks
that need real permissions run in a forked child that first drops to an unprivileged user
(``nobody``) with ``os.setuid``: the kernel then refuses writes exactly as it would for a
philologist's read-only file. Run by an ordinary user, they run in-process.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sqlite3
import stat
import sys
import tempfile
import traceback
from pathlib import Path

import pytest

from engine.config import Config
from engine.corpus import Inscription
from engine.errors import DecipherError, ProjectError
from engine.project import Project, export_prior, schema
from engine.project.access import Access, choose
from engine.cli.project import main

from .test_project_helpers import filled_project, sha, sidecars

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")


def _as_unprivileged(check, folder: Path) -> dict:
    """``check(folder)`` as a user the kernel holds to file permissions: in-process for a normal
    user; for root, in a forked child that switched to ``nobody`` (results come back as JSON)."""
    if os.getuid() != 0:
        return check(folder)
    import encodings.utf_8_sig  # noqa: F401  (the child cannot read the interpreter's folder)
    import pwd
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("needs the user 'nobody' to test permissions as root")
    os.chown(folder, nobody.pw_uid, nobody.pw_gid)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop root, run the check, report, and leave without cleanup
        code = 0
        try:
            os.close(read)
            os.setgid(nobody.pw_gid)
            os.setuid(nobody.pw_uid)
            result = check(folder)
        except BaseException:
            result, code = {"crash": traceback.format_exc()}, 1
        with os.fdopen(write, "w") as f:
            f.write(json.dumps(result))
        os._exit(code)
    os.close(write)
    with os.fdopen(read) as f:
        data = f.read()
    os.waitpid(pid, 0)
    result = json.loads(data)
    assert "crash" not in result, result.get("crash")
    return result


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _listing(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


def _read_only_file_checks(folder: Path) -> dict:
    path = folder / "p.decipher"
    project = Project.create(path)
    project.add_corpus("c", [Inscription("A", "ba ka")])
    project.close()
    os.chmod(path, 0o444)
    r: dict = {"before": _listing(folder)}
    with Project.open(path) as viewer:
        r["read_only"] = viewer.read_only
        r["corpora"] = [c.name for c in viewer.corpora()]
        try:
            viewer.add_corpus("d", [Inscription("B", "ta")])
            r["write"] = "accepted"
        except ProjectError as e:
            r["write"] = str(e)
    r["after_view"] = _listing(folder)
    r["info"] = _cli("info", str(path))
    text = folder / "more.txt"
    text.write_text("ba ka\n", encoding="utf-8")
    r["import"] = _cli("import", str(path), "--text", str(text))
    os.chmod(path, 0o644)  # permission restored: writing must work again
    with Project.open(path) as writer:
        r["writable_again"] = not writer.read_only
        writer.add_corpus("d", [Inscription("B", "ta")])
        r["corpora_after"] = [c.name for c in writer.corpora()]
    return r


@posix_only
def test_read_only_file_is_viewed_without_leaving_a_shm_and_refuses_writes():
    with tempfile.TemporaryDirectory() as d:  # under /tmp: reachable by the unprivileged user
        folder = Path(d)
        os.chmod(folder, 0o755)
        r = _as_unprivileged(_read_only_file_checks, folder)
    assert r["read_only"] is True and r["corpora"] == ["c"]
    assert "read-only" in r["write"] and "p.decipher is read-only" in r["write"]
    assert r["after_view"] == r["before"] == ["p.decipher"]  # no -shm/-wal left by the viewer
    code, out, err = r["info"]
    assert code == 0 and "corpora: 1" in out and err == ""
    code, out, err = r["import"]
    assert code == 2 and len(err.strip().splitlines()) == 1 and "read-only" in err
    assert r["writable_again"] is True and r["corpora_after"] == ["c", "d"]


def _read_only_folder_checks(folder: Path) -> dict:
    inner = folder / "ro"
    inner.mkdir()
    path = inner / "p.decipher"
    project, _ = filled_project(path)
    project.close()
    os.chmod(inner, 0o555)
    r: dict = {"info": _cli("info", str(path)), "runs": _cli("runs", str(path)),
               "new": _cli("new", str(inner / "new.decipher")),
               "export": _cli("export", str(path), "--prior", str(inner / "prior.csv"))}
    with Project.open(path) as viewer:
        r["read_only"] = viewer.read_only
        r["runs_seen"] = len(viewer.runs())
        try:
            viewer.start_run(Config(), None, None)
            r["write"] = "accepted"
        except ProjectError as e:
            r["write"] = str(e)
    r["listing"] = _listing(inner)
    os.chmod(inner, 0o755)
    return r


@posix_only
def test_read_only_folder_views_and_refuses_in_one_line():
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        os.chmod(folder, 0o755)
        r = _as_unprivileged(_read_only_folder_checks, folder)
    code, out, err = r["info"]
    assert code == 0 and "runs: 1 completed" in out and err == ""
    code, out, err = r["runs"]
    assert code == 0 and "completed" in out
    for verb in ("new", "export"):
        code, out, err = r[verb]
        assert code == 2, (verb, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, (verb, err)
    assert "read-only" in r["new"][2]
    assert r["read_only"] is True and r["runs_seen"] == 1 and "read-only" in r["write"]
    assert r["listing"] == ["p.decipher"]


def test_access_choice_follows_permissions(tmp_path):
    """The choice itself, with os.access replaced: every branch, including the WAL cases."""
    path = tmp_path / "p.decipher"
    Project.create(path).close()
    wal, shm = path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")

    def only(*writable):
        return lambda p, mode: Path(p) in writable

    assert choose(path, access=only(path, tmp_path)) == Access("rw")
    assert choose(path, access=only(tmp_path)).mode == "immutable"
    assert choose(path, access=only(path)).mode == "immutable"
    assert "folder" in choose(path, access=only(path)).reason
    assert choose(path, read_only=True).mode == "immutable"
    wal.write_bytes(b"x" * 32)  # a -wal holding data (left by a killed writer): read through it
    assert choose(path, access=only(tmp_path)).mode == "ro"
    assert choose(path, access=only(path)).mode == "immutable"  # no -shm, none can be made
    shm.write_bytes(b"")
    assert choose(path, access=only(path)).mode == "ro"
    assert "-shm" in choose(path, access=only(path, tmp_path, wal)).reason
    assert choose(path, access=only(path, tmp_path, wal, shm)) == Access("rw")


def test_opening_read_only_by_request_changes_nothing(tmp_path):
    path = tmp_path / "p.decipher"
    filled_project(path)[0].close()
    before = sha(path)
    with Project.open(path, read_only=True) as viewer:
        assert viewer.read_only and len(viewer.runs()) == 1
        with pytest.raises(ProjectError, match="read-only.*nothing was changed"):
            viewer.set_setting("x", 1)
        assert not sidecars(path)
    assert sha(path) == before


def test_failed_upgrades_write_one_backup(tmp_path, monkeypatch):
    path = tmp_path / "old.decipher"
    schema_v1 = schema.MIGRATIONS[0]
    from engine.project.store import _build_file
    _build_file(path, 1)
    original = sha(path)

    def broken(conn):
        raise sqlite3.OperationalError("simulated failure")

    monkeypatch.setattr(schema, "MIGRATIONS", [schema_v1, broken])
    for _ in range(3):
        with pytest.raises(ProjectError, match="could not upgrade.*old.decipher.v1.bak"):
            Project.open(path)
    assert sha(path) == original
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.decipher", "old.decipher.v1.bak"]
    assert sha(tmp_path / "old.decipher.v1.bak") == original


@posix_only
def test_export_through_a_symlink_is_refused_and_the_linked_file_kept(tmp_path):
    from engine.io.atomic import WriteError

    project, _ = filled_project(tmp_path / "p.decipher")
    real = tmp_path / "shared" / "PRIOR.csv"
    real.parent.mkdir()
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "prior-link.csv"
    link.symlink_to(real)
    with pytest.raises(WriteError, match="symbolic link"):
        export_prior(project, link)
    project.close()
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert real.read_text(encoding="utf-8") == "old\n"
    assert not list(tmp_path.rglob("*.part"))


def test_export_error_names_the_target_and_leaves_no_part_file(tmp_path):
    project, _ = filled_project(tmp_path / "p.decipher")
    target = tmp_path / "a-folder.csv"
    target.mkdir()  # a folder where the file should go: the rename fails
    with pytest.raises(DecipherError, match=r"a-folder\.csv: cannot write the file"):
        export_prior(project, target)
    project.close()
    assert not list(tmp_path.rglob("*.part"))


def test_cli_user_errors_exit_2_in_one_line(tmp_path):
    path = tmp_path / "p.decipher"
    assert _cli("new", str(path))[0] == 0
    for argv in (("new", str(path)), ("info", str(tmp_path / "missing.decipher")),
                 ("runs", str(tmp_path)), ("export", str(path), "--prior", str(tmp_path))):
        code, out, err = _cli(*argv)
        assert code == 2, (argv, err)
        assert len(err.strip().splitlines()) == 1, (argv, err)


def _stale_wal_checks(folder: Path) -> dict:
    import shutil
    live = folder / "live.decipher"
    project = Project.create(live)
    project.conn.execute("PRAGMA wal_autocheckpoint=0")
    project.add_corpus("only-in-the-wal", [Inscription("A", "ba")])
    path = folder / "p.decipher"  # the state a killed writer leaves: the change only in the -wal
    shutil.copy(live, path)
    shutil.copy(live.with_name(live.name + "-wal"), path.with_name(path.name + "-wal"))
    project.close()
    os.chmod(path, 0o444)
    os.chmod(path.with_name(path.name + "-wal"), 0o444)
    r: dict = {}
    with Project.open(path) as viewer:
        r["mode"] = viewer.access.mode
        r["corpora"] = [c.name for c in viewer.corpora()]
    shm = path.with_name(path.name + "-shm")
    r["shm_left"] = shm.exists()
    os.chmod(path, 0o644)
    os.chmod(path.with_name(path.name + "-wal"), 0o644)
    with Project.open(path) as writer:
        r["writable_again"] = not writer.read_only
        writer.add_corpus("later", [Inscription("B", "ta")])
        r["corpora_after"] = [c.name for c in writer.corpora()]
    r["listing"] = _listing(folder)
    return r


@posix_only
def test_read_only_file_with_a_stale_wal_is_shown_whole_and_writable_once_restored():
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        os.chmod(folder, 0o755)
        r = _as_unprivileged(_stale_wal_checks, folder)
    assert r["mode"] == "ro" and r["corpora"] == ["only-in-the-wal"]
    assert r["writable_again"] is True and r["corpora_after"] == ["only-in-the-wal", "later"]
    assert r["listing"] == ["live.decipher", "p.decipher"]  # SQLite tidied its own files


def test_create_never_replaces_a_file_made_meanwhile(tmp_path, monkeypatch):
    """Two processes making the same new project at once: the second is refused, and the first
    one's file (with whatever it already wrote) stays. A plain rename used to replace it."""
    from engine.project import store

    path = tmp_path / "p.decipher"
    real_build = store._build_file
    raced = []

    def build_while_another_creates(tmp, version):
        real_build(tmp, version)
        if not raced:  # "another process" creates the file and writes into it meanwhile
            raced.append(True)
            with Project.create(path) as other:
                other.add_corpus("theirs", [Inscription("A", "ba")])

    monkeypatch.setattr(store, "_build_file", build_while_another_creates)
    with pytest.raises(ProjectError, match="already exists"):
        Project.create(path)
    with Project.open(path) as project:
        assert [c.name for c in project.corpora()] == ["theirs"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.decipher"]  # no temporary file left


@posix_only
@pytest.mark.parametrize("side", ["-shm", "-wal"])
def test_a_linked_sidecar_is_refused_and_its_target_keeps_its_mode(tmp_path, side, capsys, monkeypatch):
    """Issue 52, 1: a planted ``P.decipher-shm`` link to a ``chmod 400`` file made ``project info``
    (and import, run --project) chmod that file to 644 through the link."""
    from engine.cli.main import main

    real_access = os.access
    # as root os.access says yes to every file: answer from the permission bits, as for a user
    monkeypatch.setattr(os, "access", lambda p, m, **k: real_access(p, m, **k) and (
        not m & os.W_OK or bool(os.stat(p).st_mode & stat.S_IWUSR)))

    project, _ = filled_project(tmp_path / "p.decipher")
    project.close()
    for leftover in (tmp_path / "p.decipher-wal", tmp_path / "p.decipher-shm"):
        leftover.unlink(missing_ok=True)
    key = tmp_path / "key.pem"
    key.write_text("secret\n")
    key.chmod(0o400)
    link = tmp_path / f"p.decipher{side}"
    link.symlink_to(key)
    for argv in (["project", "info", str(tmp_path / "p.decipher")],
                 ["project", "import", str(tmp_path / "p.decipher"), "--prior", str(tmp_path / "none.csv")],
                 ["run", "--project", str(tmp_path / "p.decipher"), "--steps", "1"]):
        assert main(argv) == 2
        err = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
        assert len(err) == 1 and f"p.decipher{side} is a symbolic link" in err[0], err
    assert os.stat(key).st_mode & 0o777 == 0o400 and key.read_text() == "secret\n" and link.is_symlink()
    with pytest.raises(ProjectError, match="symbolic link"):
        Project.create(tmp_path / "p.decipher", overwrite=True)
    assert os.stat(key).st_mode & 0o777 == 0o400
