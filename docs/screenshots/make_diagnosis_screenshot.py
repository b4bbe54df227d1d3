"""Regenerate diagnosis-window.png (offscreen; under a minute on a 2-core CPU):

    .venv/bin/python docs/screenshots/make_diagnosis_screenshot.py [--steps 5]

A synthetic cipher (engine/datasets/synthetic.py, seed 4: a letter script that writes vowels) is
imported into a new project and trained briefly from the command line's project runner; the app
then opens the project, shows the run, and saves the window: the Runs panel says in plain words
what the run's gold-free diagnosis found (docs/diagnosis.md). Prints the stored diagnosis.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--out", type=Path, default=HERE)
    args = p.parse_args()

    from decipher_gui import settings
    from decipher_gui.app import dispose, make_application
    from decipher_gui.mainwindow import MainWindow, process_until
    from engine.config import Config
    from engine.datasets.synthetic import make_cipher
    from engine.io.tables import write_known, write_lost
    from engine.project.importing import import_known, import_lost
    from engine.project.runner import run_in_project
    from engine.project.store import Project

    tmp = Path(tempfile.mkdtemp(prefix="diagnosis-shot-"))
    settings.SETTINGS_PATH = tmp / "settings.ini"
    settings.DATA_DIR = tmp / "appdata"
    cipher = make_cipher(n_stems=25, n_inscriptions=30, seed=4)
    write_lost(tmp / "lost.csv", cipher.corpus.inscriptions)
    write_known(tmp / "known.csv", cipher.vocabulary.stems)
    path = tmp / "cipher.decipher"
    with Project.create(path) as project:
        import_lost(project, tmp / "lost.csv", name="cipher")
        import_known(project, tmp / "known.csv", name="plain")
    config = Config(steps=args.steps, anneal_steps=max(1, args.steps * 2 // 3), eval_interval=0, feature_dim=8,
                    device="cpu")
    run_id, outcome = run_in_project(path, config=config, corpus="cipher", language="plain")
    print(json.dumps(outcome.diagnosis, ensure_ascii=False, indent=1))
    app = make_application()
    w = MainWindow(restore_state=False)
    w.resize(1400, 900)
    w.open_project(path)
    w.show()
    w.show_run(run_id)
    process_until(lambda: False, timeout_ms=500)
    print("window width", w.width(), "note:", w.runs.diagnosis_note.text())
    w.grab().save(str(args.out / "diagnosis-window.png"))
    w.runs.grab().save(str(tmp / "runs-panel.png"))
    print("runs panel:", tmp / "runs-panel.png")
    w.close()
    dispose(w)
    app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
