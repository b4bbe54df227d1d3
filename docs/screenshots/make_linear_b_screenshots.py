"""The Linear B walk-through of issue 25 in the app, as a user does it (offscreen, about two
minutes on two laptop cores):

    .venv/bin/python docs/screenshots/make_linear_b_screenshots.py [--cog FILE] [--steps 400]

File ▸ New project; File ▸ Import ▸ NeuroDecipher .cog file with the transcription system
``greek`` (the Linear B–Greek cognate list, ../shared/data/linear_b/linear_b-greek.cog); the Run
panel's preset "Linear B (syllable signs, …)"; Pins ▸ "Pin by features…" 𐀏 = ka; a short run; the Sign
values tab with the learned grid while it trains and when it ends; the grid's "Grid CSV…" and
"Grid PNG…" buttons. Every dialog is the app's own, filled and accepted as a user would; only the
file-save dialog's answer is given (offscreen there is no native dialog to type a name in).

Saves linear-b-import.png, linear-b-pin.png, linear-b-training.png, linear-b-grid-window.png,
linear-b-grid.png (the exported picture) and linear-b-grid.csv (the exported table).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

KA = "\U0001000F"   # 𐀏, conventionally ka
VOWEL_SIGNS = (("\U00010000", "a"), ("\U00010001", "e"), ("\U00010002", "i"), ("\U00010003", "o"))
#: ../shared/data beside the checkout, or the copy DECIPHER_SHARED_DATA names (as the tests read it)
COG = Path(os.environ.get("DECIPHER_SHARED_DATA") or ROOT.parent / "shared" / "data") / "linear_b" / "linear_b-greek.cog"


def walk_through(w, cog: Path, steps: int, out: Path, *, shots: bool = True, seed: int = 0,
                 vowels: bool = False) -> dict:
    """Drive an open, empty-project window through the walk-through; returns what happened (for
    the test: the pin, the run's settings and status, the grid, the exported files)."""
    from PySide6.QtCore import QCoreApplication, QEventLoop, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from decipher_gui.config_form import set_editor_value
    from decipher_gui.dialogs import ImportDialog
    from decipher_gui.mainwindow import process_until
    from decipher_gui.panels.pins import IpaPicker

    def settle(n: int = 8) -> None:
        for _ in range(n):
            QCoreApplication.sendPostedEvents()
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 30)

    def grab(widget, name: str) -> None:
        if shots:
            settle()
            assert widget.grab().save(str(out / name)), name

    def when_dialog(kind, act) -> None:
        """Act on the modal dialog of type ``kind`` as soon as it is shown (exec blocks)."""
        def poll():
            d = QApplication.activeModalWidget()
            if isinstance(d, kind) and d.isVisible():
                act(d)
            else:
                QTimer.singleShot(20, poll)
        QTimer.singleShot(0, poll)

    out.mkdir(parents=True, exist_ok=True)
    got: dict = {}

    # 1. File ▸ Import ▸ NeuroDecipher .cog file…, system greek
    def fill_import(d: ImportDialog) -> None:
        d.path.setText(str(cog))
        d.name.setText("Linear B")
        d.system.setCurrentText("greek")
        settle()
        grab(d, "linear-b-import.png")
        got["import_blocker"] = d.blocker()
        d.accept()
    when_dialog(ImportDialog, fill_import)
    w.acts.import_dialog("cog")
    settle()
    corpus = next(c for c in w.project.corpora() if c.name == "Linear B")
    got["inscriptions"] = len(w.project.inscriptions(corpus.id))
    got["gold"] = len(w.project.gold(corpus.id)) if hasattr(w.project, "gold") else None

    # 2. the Run panel: preset Linear B (syllabary), a short run
    w.runs_dock.raise_()
    r = w.runs
    r.preset.setCurrentIndex(r.preset.findData("linear-b"))
    r.preset.activated.emit(r.preset.currentIndex())
    got["preset_shown"] = r.preset.currentText()
    editors = r.form.editors
    # one start: the pictures follow one training run's grid as it fills in (the preset's screen of
    # short starts would replay the onset phase once per start first)
    for name, value in (("steps", steps), ("anneal_steps", steps), ("eval_interval", max(10, steps // 4)),
                        ("seed", seed), ("device", "cpu"), ("restarts", 1)):
        set_editor_value(editors[name][0], value)
    settle()

    # 3. Pins: "Pin by features…" on 𐀏, typed ka
    w.pins_dock.raise_()
    w.pins.grid.setCurrentIndex(w.pins.grid.cell(KA, w.pins.grid.model().cols[0]))

    def fill_pin(d: IpaPicker) -> None:
        d.ipa.setText("ka")
        settle()
        got["pin_said"] = d.describe.text()
        grab(d, "linear-b-pin.png")
        d.accept()
    when_dialog(IpaPicker, fill_pin)
    w.pins.pick_button.click()
    settle()
    for sign, vowel in (VOWEL_SIGNS if vowels else ()):
        # the bare-vowel signs, pinned the same way (a philologist's first pins: with them the search
        # finds the grid; docs/benchmarks.md, "Syllabic scripts")
        w.pins.grid.setCurrentIndex(w.pins.grid.cell(sign, w.pins.grid.model().cols[0]))

        def fill(d: IpaPicker, vowel=vowel) -> None:
            d.ipa.setText(vowel)
            settle()
            d.accept()
        when_dialog(IpaPicker, fill)
        w.pins.pick_button.click()
        settle()
    got["pins"] = [(p.lost, p.known_ipa, p.locked) for p in w.project.pins()]

    # 4. train, the Sign values tab raised (its dock dragged wider): the grid fills in at each evaluation
    w.signs_dock.raise_()
    w.resizeDocks([w.signs_dock], [720], Qt.Orientation.Horizontal)
    ended: list[str] = []
    w.runEnded.connect(ended.append)
    if not w.start_run():
        raise RuntimeError(f"the run did not start: {w.last_error}")
    grid = w.signs.grid
    half = max(1, steps // 2)
    process_until(lambda: bool(ended) or (grid.grid is not None and (w.current_mapping()[1] or 0) >= half), 600_000)
    if not ended:
        settle()
        got["grid_during"] = sum(len(grid.grid.at(o, v)) for o in grid.grid.onsets for v in grid.grid.vowels)
        grab(w, "linear-b-training.png")
    process_until(lambda: bool(ended), 1_800_000)
    w.runEnded.disconnect(ended.append)
    got["run_status"] = ended[-1]
    settle()
    run = max(w.project.runs(), key=lambda x: x.id)
    got["run_config"] = dict(run.config) if isinstance(run.config, dict) else run.config
    w.show_run(run.id)
    settle()
    g = grid.refresh()
    got["grid"] = g
    grab(w, "linear-b-grid-window.png")

    # 5. the grid's export buttons (the save dialog answered with a name in ``out``)
    answers = {"png": out / "linear-b-grid.png", "csv": out / "linear-b-grid.csv"}
    asked: list[str] = []

    def save_path(title, default_name, filters):
        kind = "png" if default_name.endswith(".png") else "csv"
        asked.append(default_name)
        return str(answers[kind])
    w.acts.save_path = save_path
    grid.csv_button.click()
    grid.png_button.click()
    settle()
    got["asked"] = asked
    got["exported"] = {k: p for k, p in answers.items() if p.is_file()}
    return got


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--cog", type=Path, default=COG)
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=HERE)
    p.add_argument("--vowel-pins", action="store_true",
                   help="also pin the bare-vowel signs a e i o (the docs' pictures before the preset's learning "
                        "rate was raised were made with them; now only with 𐀏 = ka, --steps 2000)")
    args = p.parse_args()
    if not args.cog.is_file():
        print(f"{args.cog}: no such file (the Linear B–Greek cognate list; --cog FILE)", file=sys.stderr)
        return 2

    from decipher_gui import settings
    from decipher_gui.app import dispose, make_application
    from decipher_gui.mainwindow import MainWindow

    tmp = Path(tempfile.mkdtemp(prefix="screens-"))
    settings.SETTINGS_PATH = tmp / "settings.ini"
    settings.DATA_DIR = tmp / "appdata"
    app = make_application()
    w = MainWindow(restore_state=False)
    w.resize(1600, 1000)
    w.show()
    assert w.acts.create_project(tmp / "linear-b.decipher")   # File ▸ New project
    got = walk_through(w, args.cog, args.steps, args.out, seed=args.seed, vowels=args.vowel_pins)
    g = got["grid"]
    placed = sum(len(g.at(o, v)) for o in g.onsets for v in g.vowels) if g else 0
    from engine.datasets.linear_b import count_standard

    cells = {s.sign: (o, v) for o in g.onsets for v in g.vowels for s in g.at(o, v)} if g else {}
    standard = count_standard(cells)
    print(f"imported {got['inscriptions']} words; pins {got['pins']}; run {got['run_status']} after {args.steps} "
          f"steps; grid {len(g.onsets) if g else 0} onsets x {len(g.vowels) if g else 0} vowels, {placed} signs "
          f"placed (during the run: {got.get('grid_during')}); {standard.right} of {standard.total} signs in the "
          f"cell of their standard value; exported {sorted(got['exported'])}", file=sys.stderr)
    w.save_state_on_close = False
    w.close()
    dispose(w)
    del app
    return 0 if got["run_status"] == "completed" and len(got["exported"]) == 2 else 1


if __name__ == "__main__":
    sys.exit(main())
