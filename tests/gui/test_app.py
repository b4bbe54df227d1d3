"""Start-up: the command line, the first launch on the sample project, fonts, settings, and
the screenshot mode."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from decipher_gui import settings
from decipher_gui.fonts import IPA_SAMPLE, missing_glyphs, register_fonts, text_font

ROOT = Path(__file__).resolve().parents[2]


def _env(tmp_path) -> dict:
    env = dict(os.environ)
    env.update(QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_DATA_HOME=str(tmp_path / "data"), DECIPHER_GUI_DATA_DIR=str(tmp_path / "appdata"))
    return env


def test_first_launch_opens_the_sample_without_torch(tmp_path):
    out = subprocess.run([sys.executable, "-m", "decipher_gui", "--exit-when-shown"], cwd=ROOT,
                         env=_env(tmp_path), capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stdout.splitlines() if x.startswith("SHOWN"))
    assert "torch_loaded=False" in line
    assert (tmp_path / "appdata" / "sample.decipher").exists()
    ini = list((tmp_path / "config").rglob("*.ini"))
    assert ini and "sample.decipher" in ini[0].read_text(encoding="utf-8")


def test_screenshot_mode_writes_a_png(tmp_path, sample_path):
    png = tmp_path / "shot.png"
    out = subprocess.run([sys.executable, "-m", "decipher_gui", "--screenshot", str(png), "--steps", "0",
                          "--size", "1200x800", str(sample_path)],
                         cwd=ROOT, env=_env(tmp_path), capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bundled_font_draws_ipa_and_iberian_letters(app):
    assert "Noto Sans" in register_fonts()
    font = text_font(14)
    assert font.families()[0] == "Noto Sans"
    assert missing_glyphs(font, IPA_SAMPLE + "ʔħʕθðʃɣχɬˤśŕḿ") == []


def test_recent_projects_and_window_state_persist(window, sample_path, tmp_path):
    assert settings.recent_projects() == [str(sample_path.resolve())]
    assert settings.settings_file().startswith(str(tmp_path))
    other = tmp_path / "other.decipher"
    assert window.save_as(other)
    assert settings.recent_projects()[:2] == [str(other.resolve()), str(sample_path.resolve())]
    window.save_state_on_close = True
    window.close()
    assert not settings.get("geometry").isEmpty()
    assert settings.get("last_project") == str(other.resolve())


def test_opening_a_damaged_file_is_refused_with_a_message(window, tmp_path):
    bad = tmp_path / "not-a-project.decipher"
    bad.write_text("hello", encoding="utf-8")
    project_before = window.project
    assert not window.open_project(bad)
    assert window.project is project_before and not project_before.closed
    assert "not-a-project.decipher" in window.last_error[1]


def test_signal_emits_do_not_use_up_the_singletons(app):
    """PySide6 6.12.0 on Python < 3.12 releases True once per Signal(object) emit; the guard in
    decipher_gui.compat keeps the count far from zero (the process would abort otherwise)."""
    from PySide6.QtCore import QObject, Signal

    class Source(QObject):
        changed = Signal(object)

    source, got = Source(), []
    source.changed.connect(got.append)
    for _ in range(5000):
        source.changed.emit(None)
    assert len(got) == 5000
    assert sys.getrefcount(True) > 1_000_000 and sys.getrefcount(None) > 1_000_000


def test_screenshot_mode_says_where_the_run_trained_and_fails_with_the_run(window, tmp_path, monkeypatch, capsys):
    """The packaged app's check reads this line to see the run trained in a spawned child; a run
    that failed makes the command fail (it used to exit 0 with a picture of the failure)."""
    from functools import partial

    from decipher_gui import worker
    from decipher_gui.screenshot import take_screenshots

    from .fake_runs import fake_trainer

    monkeypatch.setattr(worker, "child_build", partial(fake_trainer, steps=5, eval_every=0))
    assert take_screenshots(window, tmp_path / "ok.png", steps=5, timeout_s=170) == 0
    said = [x for x in capsys.readouterr().err.splitlines() if x.startswith("decipher-gui: run ")]
    assert len(said) == 1 and said[0].startswith("decipher-gui: run completed (5 steps), trained in process ")
    child = int(said[0].split("trained in process ")[1].split()[0])
    assert child != os.getpid() and said[0].endswith(f"(the app is process {os.getpid()})")

    monkeypatch.setattr(worker, "child_build", partial(fake_trainer, steps=5, eval_every=0, fail_at=2))
    assert take_screenshots(window, tmp_path / "failed.png", steps=5, timeout_s=170) == 1
    err = capsys.readouterr().err
    assert "decipher-gui: run failed (5 steps)" in err and "the run failed" in err
    assert (tmp_path / "failed.png").is_file(), "the picture is still written, to see what happened"
