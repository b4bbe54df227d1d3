"""Fixtures for the GUI tests: settings and app data redirected to tmp_path (never the user's),
a copy of the bundled sample project per test, a main window on it, and small run settings."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from decipher_gui.compat import protect_singletons  # noqa: E402
from engine.config import Config  # noqa: E402
from engine.datasets.sample import RUN_CONFIG_KEY, create_sample_project  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"

# PySide6 6.12.0 on Python < 3.12 releases None/True/False once too often (see compat.py);
# without this the test process can abort at exit although every test passed.
protect_singletons()


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path, monkeypatch):
    """QSettings and the per-user data folder live in tmp_path for every GUI test (MNELAB-style)."""
    from decipher_gui import settings

    monkeypatch.setattr(settings, "SETTINGS_PATH", tmp_path / "settings" / "decipher-gui.ini")
    monkeypatch.setattr(settings, "DATA_DIR", tmp_path / "appdata")
    return tmp_path


@pytest.fixture(scope="session")
def sample_master(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("sample") / "sample.decipher"
    create_sample_project(path).close()
    return path


@pytest.fixture
def sample_path(sample_master, tmp_path) -> Path:
    """A fresh copy of the sample project for one test."""
    path = tmp_path / "sample.decipher"
    shutil.copy(sample_master, path)
    return path


@pytest.fixture
def app(qapp):
    from decipher_gui.app import make_application

    return make_application()


@pytest.fixture
def window(app, qtbot, sample_path):
    from decipher_gui.app import dispose
    from decipher_gui.mainwindow import MainWindow

    win = MainWindow(restore_state=False)
    qtbot.addWidget(win)
    win.resize(1400, 900)
    assert win.open_project(sample_path)
    win.show()
    yield win
    if win.controller.active:
        win.controller.stop()
        win.controller.wait(120_000)
        qtbot.wait(50)
    win.close()
    dispose(win)


def small_config(window, **changes) -> Config:
    """The sample's settings made small: few steps, small batches, evaluation at the end."""
    base = Config.from_dict(dict(window.project.setting(RUN_CONFIG_KEY)))
    settings = dict(steps=6, anneal_steps=6, eval_interval=0, chars_per_batch=120, unmatched_prior=0.2,
                    device="cpu")
    settings.update(changes)
    return base.replace(**settings)


RUN_TIMEOUT_MS = 180_000


#: the comparisons' tiny runs (tests/gui/test_comparison.py, test_rough_edges.py)
TINY = Config(feature_dim=8, min_span=3, max_span=6, eval_interval=0, chars_per_batch=80, device="cpu", steps=10)


def comparison_project(tmp_path: Path) -> Path:
    """A project of a 12-inscription synthetic cipher with its source vocabulary and an unrelated one,
    its run settings TINY: what a comparison needs, small enough to train on a test's thread."""
    from engine.datasets.synthetic import make_cipher
    from engine.datasets.synthetic_relatives import unrelated_vocabulary
    from engine.project.store import Project

    c = make_cipher(n_stems=10, n_inscriptions=12, seed=2)
    path = tmp_path / "synthetic.decipher"
    project = Project.create(path)
    with project.transaction():
        project.add_corpus("cipher", c.corpus.inscriptions, source="engine/datasets/synthetic.py")
        project.add_language("source", c.vocabulary.stems, source="engine/datasets/synthetic.py")
        project.add_language("unrelated", unrelated_vocabulary(10, seed=2, avoid=c.vocabulary.stems).stems,
                             source="engine/datasets/synthetic_relatives.py")
        project.set_setting(RUN_CONFIG_KEY, TINY.to_dict())
    project.close()
    return path


def dispose_window(w) -> None:
    """Close and delete the window's widgets now, as the app does at exit (decipher_gui.app.dispose).
    Left to the garbage collector, the window's pyqtgraph items were collected during the next test,
    on the GUI thread while its comparison trained on the job's thread, and the process crashed
    (segmentation fault) in about half the runs of this file on a loaded 2-core box."""
    from decipher_gui.app import dispose

    w.save_state_on_close = False
    w.close()
    dispose(w)
