"""The main window at 1366×768, 1600×1000 and 1920×1080 (issue 51, item 6), offscreen:

    .venv/bin/python docs/screenshots/make_size_screenshots.py [--steps 120]

A copy of the bundled sample project gets seven pins, trains one short run, then gets an eighth
pin (so the pin list shows a pin the run has not used); one match is accepted and another
rejected. For each size a fresh window (its docks sized for that window, as at a first launch)
saves window-WxH.png (the Run tab, the most confident span explained) and window-WxH-pins.png
(the Pinned values tab); and compare-dialog-1366x768.png, the Compare dialog as tall as a
1366×768 screen leaves it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SIZES = ((1366, 768), (1600, 1000), (1920, 1080))
PINS = (("l", "l", True, "lamed"), ("m", "m", True, "mem"), ("b", "b", False, "probably"), ("k", "k", True, ""),
        ("n", "n", True, ""), ("p", "p", True, ""), ("d", "d", True, ""))


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=120)
    p.add_argument("--out", type=Path, default=HERE)
    args = p.parse_args()

    from decipher_gui import settings
    from decipher_gui.app import dispose, make_application
    from decipher_gui.comparison import ComparisonDialog
    from decipher_gui.mainwindow import MainWindow, process_until
    from decipher_gui.screenshot import decide_two, settle, show_best_span
    from engine.config import Config
    from engine.corpus import PinnedValue
    from engine.datasets.sample import RUN_CONFIG_KEY, create_sample_project

    tmp = Path(tempfile.mkdtemp(prefix="sizes-"))
    settings.SETTINGS_PATH = tmp / "settings.ini"
    os.environ.setdefault("DECIPHER_STEP_TIMES", str(tmp / "steps.jsonl"))
    path = tmp / "sample.decipher"
    project = create_sample_project(path)
    project.set_pins([PinnedValue(lost, ipa, 1.0 if locked else 0.5, locked, note)
                      for lost, ipa, locked, note in PINS])
    project.close()
    app = make_application()

    def window(size):
        w = MainWindow(restore_state=False)
        w.resize(*size)
        w.open_project(path)
        w.show()
        settle()
        return w

    w = window(SIZES[1])
    base = Config.from_dict(dict(w.project.setting(RUN_CONFIG_KEY)))
    ended: list[str] = []
    w.runEnded.connect(ended.append)
    assert w.start_run(base.replace(steps=args.steps, anneal_steps=min(base.anneal_steps, args.steps),
                                    eval_interval=max(10, args.steps // 3)))
    process_until(lambda: bool(ended), 3_600_000)
    print(f"run {ended}", file=sys.stderr)
    w.set_pin(PinnedValue("t", "t", 1.0, True, "added after the run"))
    decide_two(w)
    w.save_state_on_close = False
    w.close()
    dispose(w)

    args.out.mkdir(parents=True, exist_ok=True)
    for size in SIZES:
        w = window(size)
        show_best_span(w)
        settle()
        name = f"window-{size[0]}x{size[1]}"
        w.grab().save(str(args.out / f"{name}.png"))
        w.pins_dock.raise_()
        settle()
        w.grab().save(str(args.out / f"{name}-pins.png"))
        if size == SIZES[0]:
            d = ComparisonDialog(w.model.comparison_source(), base, w)
            d.resize(d.width(), 768 - 160)   # a 768-px screen less the panel and the title bars
            d.show()
            settle()
            d.grab().save(str(args.out / "compare-dialog-1366x768.png"))
            d.close()
        w.save_state_on_close = False
        w.close()
        dispose(w)
    app.processEvents()
    print(f"wrote pictures to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
