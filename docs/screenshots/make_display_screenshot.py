"""The picture of issue 27 item 3 (offscreen, under a minute on a laptop CPU):

    .venv/bin/python docs/screenshots/make_display_screenshot.py [--steps 30]

A copy of the bundled sample project (which opens with both sides in the scholarly
transliteration) gets its Hebrew shown in the Hebrew script with final forms (the
``hebrew-script`` preset, View ▸ Display table (known language)…), trains one short run and
selects its most confident span; saves both-languages.png: the Ugaritic inscriptions, the
matches' spans and the pin grid in transliteration, the stems (stem list, matches, ranked stems,
span details) in Hebrew script.
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


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--out", type=Path, default=HERE)
    args = p.parse_args()

    from PySide6.QtCore import QCoreApplication, QEventLoop

    from decipher_gui import settings
    from decipher_gui.app import dispose, make_application
    from decipher_gui.mainwindow import MainWindow, process_until
    from decipher_gui.screenshot import show_best_span
    from engine.config import Config
    from engine.datasets.sample import RUN_CONFIG_KEY, create_sample_project
    from engine.io import display as display_tables

    tmp = Path(tempfile.mkdtemp(prefix="screens-"))
    settings.SETTINGS_PATH = tmp / "settings.ini"
    path = tmp / "sample.decipher"
    create_sample_project(path).close()

    app = make_application()
    w = MainWindow(restore_state=False)
    w.resize(1600, 1000)
    w.open_project(path)
    w.show()

    def settle(n=8):
        for _ in range(n):
            QCoreApplication.sendPostedEvents()
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 30)

    settle()
    assert w.set_known_display_table(display_tables.preset("hebrew-script"))
    base = Config.from_dict(dict(w.project.setting(RUN_CONFIG_KEY)))
    ended: list[str] = []
    w.runEnded.connect(ended.append)
    assert w.start_run(base.replace(steps=args.steps, anneal_steps=min(base.anneal_steps, args.steps),
                                    eval_interval=0, device="cpu"))
    process_until(lambda: bool(ended), 600_000)
    print(f"run {ended}", file=sys.stderr)
    settle()
    w.languages_dock.raise_()
    show_best_span(w)
    settle()
    args.out.mkdir(parents=True, exist_ok=True)
    ok = w.grab().save(str(args.out / "both-languages.png"))
    w.close()
    dispose(w)
    del app
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
