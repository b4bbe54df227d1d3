"""Issue 25, "Done when: the app": the Linear B walk-through as a user does it, through the app's
own dialogs (File ▸ New project, the .cog import with the system greek, the Run panel's preset
linear-b, "Pin by features…" 𐀏 = ka, a run, the Sign values tab's learned grid, its CSV and PNG
export) on a small Linear B-like sample built here (no ../shared needed). The flow is the one of
docs/screenshots/make_linear_b_screenshots.py, which makes the pictures of the user guide."""

from __future__ import annotations

import csv
import importlib.util
import random
from pathlib import Path

import pytest
from PySide6.QtGui import QFontMetrics, QImage

from engine.io.linear_b import TO_SIGN
from engine.io.transcription import transcribe

from engine.io.display import DisplayTable

from decipher_gui.dialogs import ImportDialog
from decipher_gui.fonts import text_font
from decipher_gui.importers import BY_KEY
from decipher_gui.panels.syllable_grid import PINNED_ROLE, SIGNS_PER_LINE, SyllableGridPanel, cell_text

from tests.engine.test_syllable_results import A, E, KE, syllable_snapshot

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "screenshots" / "make_linear_b_screenshots.py"
KA = "\U0001000F"   # 𐀏
GREEK = {"k": "κ", "t": "τ", "p": "π", "d": "δ", "m": "μ", "n": "ν", "s": "σ", "r": "ρ", "": ""}
VOWELS = {"a": "α", "e": "ε", "i": "ι", "o": "ο"}


def linear_b_like_cog(path: Path, n_words: int = 48, seed: int = 3) -> Path:
    """A .cog of invented words: each a few CV (or V) syllables written with the Linear B sign of
    that syllable, its Greek-letter counterpart spelt out, a final -ς sometimes (Linear B leaves it
    out, as it leaves out most final consonants)."""
    rng = random.Random(seed)
    rows, seen = ["linear_b\tgreek"], set()
    while len(rows) <= n_words:
        syllables = [(rng.choice(list(GREEK)), rng.choice(list(VOWELS))) for _ in range(rng.randint(2, 4))]
        lost = "".join(TO_SIGN[c + v] for c, v in syllables)
        if lost in seen:
            continue
        seen.add(lost)
        greek = "".join(GREEK[c] + VOWELS[v] for c, v in syllables) + ("ς" if rng.random() < 0.4 else "")
        rows.append(f"{lost}\t{greek}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _script():
    spec = importlib.util.spec_from_file_location("make_linear_b_screenshots", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def empty_window(app, qtbot, tmp_path):
    from decipher_gui.app import dispose
    from decipher_gui.mainwindow import MainWindow

    win = MainWindow(restore_state=False)
    qtbot.addWidget(win)
    win.resize(1600, 1000)
    win.show()
    assert win.acts.create_project(tmp_path / "linear-b.decipher")   # File ▸ New project
    yield win
    if win.controller.active:
        win.controller.stop()
        win.controller.wait(120_000)
        qtbot.wait(50)
    win.save_state_on_close = False
    win.close()
    dispose(win)


def test_the_walk_through_imports_pins_trains_fills_the_grid_and_exports_it(empty_window, tmp_path):
    w = empty_window
    cog = linear_b_like_cog(tmp_path / "sample.cog")
    out = tmp_path / "out"
    got = _script().walk_through(w, cog, 24, out, shots=False)

    # imported through the .cog dialog with the system greek: 48 words, their gold, Greek in IPA
    assert got["import_blocker"] == "" and got["inscriptions"] == 48 and got["gold"] == 48
    language = w.project.languages()[0]
    stems = w.project.stems(language.id)
    assert stems and all(s.ipa == transcribe(s.form, "greek") for s in stems)
    # the preset as the Run panel names it
    assert got["preset_shown"] == "Linear B (syllable signs, spans 1–8, segmented words)"
    # the pin typed in the pin dialog is recorded as a syllable, locked
    assert "onset k, vowel a" in got["pin_said"]
    assert got["pins"] == [(KA, "ka", True)]
    # the run trained with the preset linear-b: signs = syllables
    assert got["run_status"] == "completed"
    run = max(w.project.runs(), key=lambda r: r.id)
    assert run.config["signs"] == "syllables" and run.config["steps"] == 24 and run.config["restarts"] == 1
    # the grid in the Sign values tab: every sign of the sample in a cell, the pinned one marked
    grid = w.signs.grid
    assert grid.isVisible() and got["grid"] is not None
    placed = {s.sign for o in got["grid"].onsets for v in got["grid"].vowels for s in got["grid"].at(o, v)}
    assert placed == {ch for i in w.project.inscriptions(w.project.corpora()[0].id) for ch in i.text}
    marked = [(r, c) for r in range(grid.table.rowCount()) for c in range(grid.table.columnCount())
              if grid.table.item(r, c).data(PINNED_ROLE)]
    assert len(marked) == 1
    item = grid.table.item(*marked[0])
    assert f"•{KA}" in item.text()
    assert KA in [s.sign for s in got["grid"].at(grid.grid.onsets[marked[0][0]], grid.grid.vowels[marked[0][1]])]
    # both export buttons wrote their file (the save dialog offered the run's name)
    assert got["asked"] == [f"syllable-grid-run{run.id}.csv", f"syllable-grid-run{run.id}.png"]
    rows = list(csv.reader(got["exported"]["csv"].open(encoding="utf-8-sig")))
    assert rows[0][0] == "onset" and rows[0][1:] == list(got["grid"].vowels)
    assert sum(f"•{KA} " in cell for row in rows[1:] for cell in row) == 1
    image = QImage(str(got["exported"]["png"]))
    assert not image.isNull() and image.width() > 100 and image.height() > 100


def test_cog_import_dialog_asks_the_transcription_system_semitic_first(app, qtbot):
    dialog = ImportDialog(BY_KEY["cog"], [])
    qtbot.addWidget(dialog)
    assert dialog.system.currentText() == "semitic"     # the engine's default, as before
    assert dialog.system.findText("greek") >= 0
    dialog.system.setCurrentText("greek")
    assert dialog.options()["system"] == "greek"


def test_a_crowded_cell_wraps_and_the_picture_sizes_columns_to_their_cells(app, qtbot):
    class Shown:
        def __init__(self, i):
            self.shown, self.pinned = f"S{i}", i == 0
    text = cell_text([Shown(i) for i in range(SIGNS_PER_LINE + 2)])
    assert text.split("\n") == [" ".join(["•S0"] + [f"S{i}" for i in range(1, SIGNS_PER_LINE)]),
                                f"S{SIGNS_PER_LINE} S{SIGNS_PER_LINE + 1}"]
    # the picture: each column as wide as its widest cell, so the empty vowel column o stays
    # narrow beside two columns of long names (before: every column as wide as the widest cell)
    panel = SyllableGridPanel()
    qtbot.addWidget(panel)
    panel.display = DisplayTable("latin", {KA: "KA" * 15, KE: "KE" * 15, A: "A", E: "E"})
    panel.set_mapping(syllable_snapshot(), [])
    grid = panel.refresh()
    assert grid.vowels == ("a", "e", "o") and not any(grid.at(o, "o") for o in grid.onsets)
    widest = QFontMetrics(text_font(18)).horizontalAdvance("KA" * 15)
    image = panel.render_image()
    assert 2 * widest < image.width() < 3 * widest
