"""The app at launch on a project file it must refuse (issue 28, items 2 and 6): one message in a
dialog naming what is wrong, never a traceback or exit 1; SQL objects that are not ours come with
the offer to open a cleaned copy."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from decipher_gui.app import open_at_launch

ROOT = Path(__file__).resolve().parents[2]


def plant(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA ignore_check_constraints=ON")
        for s in statements:
            conn.execute(s)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


@pytest.fixture()
def crafted(sample_path, tmp_path) -> Path:
    path = tmp_path / "crafted" / "received.decipher"
    path.parent.mkdir()
    shutil.copy(sample_path, path)
    return path


def _box(window) -> QMessageBox:
    boxes = [w for w in window.findChildren(QMessageBox) if w.objectName() == "cleanedCopyBox" and w.isVisible()]
    assert len(boxes) == 1
    return boxes[0]


def test_foreign_trigger_at_launch_is_a_dialog_offering_a_cleaned_copy(window, crafted, qtbot):
    plant(crafted, "CREATE TRIGGER wipe AFTER INSERT ON run BEGIN DELETE FROM stem; END")
    before = window.doc.path
    assert open_at_launch(window, crafted) is False
    assert window.doc.path == before  # the refused file was not opened
    box = _box(window)
    assert "trigger 'wipe' on table 'run'" in box.informativeText()
    copy_button = next(b for b in box.buttons() if b.text() == "Open a cleaned copy")
    copy_button.click()
    qtbot.waitUntil(lambda: Path(window.doc.path).name == "received.cleaned.decipher", timeout=10_000)
    conn = sqlite3.connect(crafted.with_name("received.cleaned.decipher"))
    try:
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM stem").fetchone()[0] > 0
    finally:
        conn.close()


def test_a_view_named_corpus_at_launch_is_refused_naming_it(window, crafted):
    plant(crafted, "PRAGMA foreign_keys=OFF", "DROP TABLE corpus",
          "CREATE VIEW corpus AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
          "SELECT x AS id, 'n' AS name, '' AS source, '' AS format, '' AS imported_at FROM c")
    assert open_at_launch(window, crafted) is False
    assert "view 'corpus'" in _box(window).informativeText()


@pytest.mark.parametrize("statement, named", [
    ("UPDATE inscription SET meta = '{oops' WHERE rowid = 1", "table inscription, row 1, column meta"),
    ("UPDATE setting SET value = 'not json' WHERE rowid = 1", "table setting, row"),
    ("UPDATE inscription SET text = 'a' || char(7) WHERE rowid = 2", "table inscription, row 2, column text"),
])
def test_a_malformed_cell_at_launch_is_one_message(window, crafted, statement, named):
    plant(crafted, statement)
    assert open_at_launch(window, crafted) is False
    title, message = window.last_error
    assert named in message and "\n" not in message


def app(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """``decipher-gui ARGS`` headless, with its settings in ``tmp_path``."""
    env = dict(__import__("os").environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_DATA_HOME=str(tmp_path / "data"), DECIPHER_GUI_DATA_DIR=str(tmp_path / "appdata"))
    return subprocess.run([sys.executable, "-m", "decipher_gui", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def test_the_app_started_on_a_malformed_project_shows_and_exits_0(tmp_path, sample_path):
    bad = tmp_path / "bad.decipher"
    shutil.copy(sample_path, bad)
    plant(bad, "INSERT INTO run (status, config, started_at) VALUES ('completed', '{broken', 'x')")
    out = app(tmp_path, "--exit-when-shown", bad)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert any(x.startswith("SHOWN") for x in out.stdout.splitlines())


def test_a_good_project_at_launch_opens_and_still_reports_interrupted_runs(window, crafted):
    import socket

    from tests.engine.test_project_helpers import dead_pid

    plant(crafted, "INSERT INTO run (id, status, started_at, host, pid, heartbeat_at) VALUES "
                   f"(900, 'running', '2026-01-01T00:00:00+00:00', '{socket.gethostname()}', {dead_pid()}, "
                   "'2026-01-01T00:00:00+00:00')")
    assert open_at_launch(window, crafted) is True
    assert Path(window.doc.path) == crafted
    assert window.project.interrupted == [900]  # the check before did not take the news away


@pytest.mark.parametrize("stored, kept", [('"abc"', {}), ("5", {}), ('{"lr": "x", "steps": 7}', {"steps": 7}),
                                          ('{"steps": -3, "nonsense": 1, "seed": 4}', {"seed": 4})])
def test_a_crafted_run_config_setting_opens_with_a_warning(window, crafted, stored, kept):
    """Issue 52, 5: ``run_config`` = '"abc"' was a ValueError at launch (5: a TypeError); a bad
    value is left out with a warning, the window opens with the rest."""
    from engine.config import Config

    plant(crafted, f"INSERT OR REPLACE INTO setting (key, value) VALUES ('run_config', '{stored}')")
    assert open_at_launch(window, crafted) is True
    config = window.runs.form.config()
    for key in ("steps", "seed", "lr"):
        assert getattr(config, key) == kept.get(key, getattr(Config(), key))
    assert window.statusBar().currentMessage().startswith("Warning: the project's default run setting")


def test_screenshot_of_a_refused_project_exits_2_without_the_sample(tmp_path, sample_path):
    """Issue 52, 14: with --screenshot a refused project file fell back to the bundled sample, exit 0."""
    bad = tmp_path / "bad.decipher"
    shutil.copy(sample_path, bad)
    plant(bad, "INSERT INTO run (status, config, started_at) VALUES ('completed', '{broken', 'x')")
    out = app(tmp_path, "--screenshot", tmp_path / "shot.png", "--steps", "0", bad)
    assert out.returncode == 2, out.stderr
    errors = [x for x in out.stderr.splitlines() if x.startswith("decipher-gui: error:")]
    assert len(errors) == 1 and "table run" in errors[0] and "column config" in errors[0]
    assert "Traceback" not in out.stderr and not (tmp_path / "shot.png").exists()


def test_screenshot_panels_never_write_through_a_link_nor_over_a_file_not_named(tmp_path, sample_path):
    """Issue 52, 2: ``--screenshot S/shot.png --panels`` overwrote a planted ``S/shot-pins.png``
    link's target."""
    shots = tmp_path / "S"
    shots.mkdir()
    victim = tmp_path / "victim.png"
    victim.write_bytes(b"precious")
    (shots / "shot-pins.png").symlink_to(victim)

    def shoot(*extra):
        return app(tmp_path, "--screenshot", shots / "shot.png", "--steps", "0", "--panels", *extra, sample_path)

    for extra in ((), ("--force",)):           # a link is refused even with --force
        out = shoot(*extra)
        assert out.returncode == 2 and "shot-pins.png" in out.stderr and "symbolic link" in out.stderr, out.stderr
    assert victim.read_bytes() == b"precious" and not (shots / "shot.png").exists()
    (shots / "shot-pins.png").unlink()
    (shots / "shot-losses.png").write_bytes(b"mine")
    out = shoot()
    assert out.returncode == 2 and "shot-losses.png: already there" in out.stderr and "--force" in out.stderr
    assert (shots / "shot-losses.png").read_bytes() == b"mine"
    out = shoot("--force")
    assert out.returncode == 0, out.stderr
    assert (shots / "shot-losses.png").read_bytes()[:4] == b"\x89PNG" and (shots / "shot-pins.png").is_file()
