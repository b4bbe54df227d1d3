"""Regenerate the seed-group pictures in this folder (offscreen; a few minutes on a 2-core CPU):

    .venv/bin/python docs/screenshots/make_seeds_screenshots.py [--steps 60] [--seeds 0 1 2]

A copy of the bundled sample project trains one seed group from the Run panel (the seeds field,
worker processes) and, once it is done, saves: seeds-window.png (the whole window: the group's
runs marked in the Runs table, the agreement column in Matches, agreed and contested spans, and
the warning if the chosen seed disagrees with most others), seeds-inscriptions.png and
seeds-inscriptions-rtl.png (the inscription view laid out right to left, as for an RTL corpus).
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
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--out", type=Path, default=HERE)
    args = p.parse_args()

    from decipher_gui import settings
    from decipher_gui.app import dispose, make_application
    from decipher_gui.mainwindow import MainWindow, process_until
    from engine.config import Config
    from engine.io.display import IDENTITY
    from engine.datasets.sample import RUN_CONFIG_KEY, create_sample_project

    tmp = Path(tempfile.mkdtemp(prefix="seeds-shots-"))
    settings.SETTINGS_PATH = tmp / "settings.ini"
    settings.DATA_DIR = tmp / "appdata"
    app = make_application()
    path = tmp / "sample.decipher"
    create_sample_project(path).close()
    w = MainWindow(restore_state=False)
    w.resize(1600, 1000)
    w.open_project(path)
    w.show()
    base = Config.from_dict(dict(w.project.setting(RUN_CONFIG_KEY)))
    w.runs.form.set_config(base.replace(steps=args.steps, anneal_steps=args.steps, eval_interval=0,
                                        device="cpu"))
    w.runs.seeds.setText(" ".join(map(str, args.seeds)))
    if not w.start_run():
        print("could not start:", w.last_error, file=sys.stderr)
        return 1
    process_until(lambda: not w.seed_groups.active, timeout_ms=1_800_000)
    process_until(lambda: False, timeout_ms=300)
    [group] = w.project.setting("seed_groups")
    print({k: group.get(k) for k in ("runs", "chosen_seed", "chosen_disagrees_with_most",
                                     "seeds_agreeing_with_chosen", "chosen_because")})
    # a contested span selected, so the details show it
    model = w.inscriptions.view.model()
    contested = next(((mk, kn) for ms in model.marks.values() for mk in ms
                      if (kn := model.agreement_of(mk)) is not None and 2 * kn[0] <= kn[1]), None)
    if contested is not None:
        m = contested[0].match
        w.selection.jump_to_match(m)
    # the agreement column in view (the Matches dock is narrow at this window size)
    from decipher_gui.panels.matches import MATCH_COLUMNS

    table = w.matches.table
    table.scrollTo(w.matches.proxy.index(max(0, table.currentIndex().row()), MATCH_COLUMNS.index("decision")))
    process_until(lambda: False, timeout_ms=300)
    w.grab().save(str(args.out / "seeds-window.png"))
    w.inscriptions.grab().save(str(args.out / "seeds-inscriptions.png"))
    w.inscriptions.set_display(IDENTITY, True)
    process_until(lambda: False, timeout_ms=300)
    w.inscriptions.grab().save(str(args.out / "seeds-inscriptions-rtl.png"))
    w.close()
    dispose(w)
    app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
