"""closeness.png drawn from the engine's description of it, as ``decipher closeness`` has it drawn: by
``python -m decipher_gui.figure`` (and, in the bundle, by the CLI executable given the same arguments)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SPEC = {
    "width": 600, "height": 360, "title": "Closeness to lost: coverage vs confidence (20 stems each)",
    "xlabel": "confidence", "ylabel": "coverage", "ymax": 0.8,
    "band": {"x": [0.0, 0.5, 1.0], "lo": [0.2, 0.1, 0.0], "hi": [0.4, 0.2, 0.0]},
    "own_nulls": True,
    "series": [{"name": "near", "colour": "#009E73", "x": [0.0, 0.5, 1.0], "mean": [0.7, 0.5, 0.0],
                "lo": [0.6, 0.4, 0.0], "hi": [0.75, 0.55, 0.0], "own_null": [[0.0, 0.5, 1.0], [0.3, 0.15, 0.0]],
                "label": "near: 0.400, margin +0.250<br>(closer than chance)"}],
}


def _draw(args, tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


@pytest.mark.parametrize("how", ["module", "bundle entry"])
def test_the_figure_is_drawn_from_its_description_at_its_size(tmp_path, how):
    from PySide6.QtGui import QImage

    spec = tmp_path / "figure.json"
    spec.write_text(json.dumps(SPEC), encoding="utf-8")
    out = tmp_path / "closeness.png"
    from engine.closeness.plot import DRAWER   # the arguments the engine runs the drawer with

    runner = list(DRAWER) if how == "module" else [str(ROOT / "packaging" / "entry_cli.py"), *DRAWER]
    done = _draw([*runner, str(spec), str(out)], tmp_path)
    assert done.returncode == 0, done.stderr
    image = QImage(str(out))
    assert (image.width(), image.height()) == (600, 360)
    # the candidate's colour is in the picture (its mean curve and band), not only the background
    colours = {image.pixelColor(x, y).name() for x in range(0, 600, 3) for y in range(0, 360, 3)}
    assert "#009e73" in colours and "#ffffff" in colours
    assert not (tmp_path / "closeness.part.png").exists()


def test_a_bad_description_or_an_unwritable_path_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    done = _draw(["-m", "decipher_gui.figure", str(bad), str(tmp_path / "x.png")], tmp_path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "bad.json: cannot read the figure's description" in done.stderr
    spec = tmp_path / "figure.json"
    spec.write_text(json.dumps({k: v for k, v in SPEC.items() if k != "series"}), encoding="utf-8")
    done = _draw(["-m", "decipher_gui.figure", str(spec), str(tmp_path / "x.png")], tmp_path)
    assert done.returncode == 2 and "not a figure description" in done.stderr, done.stderr
    (tmp_path / "dir.png").mkdir()
    spec.write_text(json.dumps(SPEC), encoding="utf-8")
    done = _draw(["-m", "decipher_gui.figure", str(spec), str(tmp_path / "dir.png")], tmp_path)
    assert done.returncode == 2 and "dir.png: cannot write the file" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not list(tmp_path.glob("*.part*"))
    # a link where the figure goes is refused, its target kept
    victim = tmp_path / "victim.png"
    victim.write_bytes(b"precious")
    (tmp_path / "link.png").symlink_to(victim)
    done = _draw(["-m", "decipher_gui.figure", str(spec), str(tmp_path / "link.png")], tmp_path)
    assert done.returncode == 2 and "symbolic link" in done.stderr and victim.read_bytes() == b"precious"
