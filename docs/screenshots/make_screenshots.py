"""Regenerate the pictures in this folder (offscreen, a few minutes on a laptop CPU):

    .venv/bin/python docs/screenshots/make_screenshots.py [--steps 120]

A copy of the bundled sample project gets three pins (two locked, one soft) and a control
language (the Hebrew stems with their IPA units shuffled); it trains a short run on the control
and one on Hebrew, accepts one match and rejects another, and saves:
main-window.png, pinned-values.png (and main-window-pins.png, the grid in place), ipa-picker.png, plots-losses.png, plots-closeness.png;
then, with the corpus's display table set to the conventional Ugaritic transliteration and to the
Ugaritic script: inscriptions-transliteration.png, inscriptions-ugaritic-script.png,
sign-values.png; and a right-to-left corpus (Hebrew words of the sample written in the Hebrew
script, trained briefly against the Hebrew stems): rtl-corpus.png.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def control_stems(stems, seed=1):
    """Each stem's IPA units in a random order: same inventory, same lengths, no real words."""
    from engine.corpus import Stem
    from engine.model.phonology import ipa_units

    rng = random.Random(seed)
    out, seen = [], set()
    for s in stems:
        units = list(ipa_units(s.ipa))
        rng.shuffle(units)
        ipa = "".join(units)
        if ipa not in seen:
            seen.add(ipa)
            out.append(Stem(ipa, ipa, "", "shuffled control"))
    return out


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=120)
    p.add_argument("--out", type=Path, default=HERE)
    args = p.parse_args()

    from PySide6.QtCore import QCoreApplication, QEventLoop

    from decipher_gui import settings
    from decipher_gui.app import dispose, make_application
    from decipher_gui.mainwindow import MainWindow, process_until
    from decipher_gui.panels.pins import IpaPicker
    from decipher_gui.screenshot import decide_two, show_best_span
    from engine.config import Config
    from engine.io import display as display_tables
    from engine.corpus import Inscription, PinnedValue
    from engine.datasets.sample import RUN_CONFIG_KEY, create_sample_project

    tmp = Path(tempfile.mkdtemp(prefix="screens-"))
    settings.SETTINGS_PATH = tmp / "settings.ini"
    path = tmp / "sample.decipher"
    project = create_sample_project(path)
    hebrew = project.languages()[0]
    project.add_language("Hebrew, shuffled (control)", control_stems(project.stems(hebrew.id)),
                         source="docs/screenshots/make_screenshots.py")
    project.set_pins([PinnedValue("l", "l", 1.0, True, "lamed"), PinnedValue("m", "m", 1.0, True, "mem"),
                      PinnedValue("b", "b", 0.5, False, "probably")])
    # a right-to-left corpus: Hebrew forms of the sample in the Hebrew script, three to a line
    hebrew_script = display_tables.HEBREW_SCRIPT
    forms = [s.form for s in project.stems(hebrew.id) if all(c in hebrew_script for c in s.form)][:90]
    in_script = display_tables.preset("hebrew-script")  # with final forms at word ends
    lines = [in_script.show_text(list(" ".join(forms[i:i + 3]))) for i in range(0, len(forms), 3)]
    project.add_corpus("Hebrew words (Hebrew script)", [Inscription(f"heb:{i + 1}", t) for i, t in enumerate(lines)],
                       source="docs/screenshots/make_screenshots.py")
    project.close()

    app = make_application()
    w = MainWindow(restore_state=False)
    w.resize(1600, 1000)
    w.open_project(path)
    w.show()

    def settle(n=8):
        for _ in range(n):
            QCoreApplication.sendPostedEvents()
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 30)

    def run(language_name: str, steps: int) -> None:
        language = next(x for x in w.project.languages() if x.name == language_name)
        w.runs.language.setCurrentIndex(w.runs.language.findData(language.id))
        base = Config.from_dict(dict(w.project.setting(RUN_CONFIG_KEY)))
        ended: list[str] = []
        w.runEnded.connect(ended.append)
        assert w.start_run(base.replace(steps=steps, anneal_steps=min(base.anneal_steps, steps),
                                        eval_interval=max(10, steps // 3)))
        process_until(lambda: bool(ended), 3_600_000)
        w.runEnded.disconnect()
        print(f"{language_name}: run {ended}", file=sys.stderr)

    settle()
    run("Hebrew, shuffled (control)", max(20, args.steps // 2))
    run("Hebrew (sample)", args.steps)
    settle()
    decide_two(w)   # the most confident match accepted, the next one in the corpus rejected
    show_best_span(w)
    settle()
    args.out.mkdir(parents=True, exist_ok=True)
    w.grab().save(str(args.out / "main-window.png"))
    w.pins_dock.raise_()  # in place: the right column's full height
    settle()
    w.pins.grid.setCurrentIndex(w.pins.grid.cell("b", "b"))
    w.pins.grid.scrollToTop()
    settle()
    w.pins.grab().save(str(args.out / "pinned-values.png"))
    w.grab().save(str(args.out / "main-window-pins.png"))
    w.runs_dock.raise_()
    picker = IpaPicker(w.pins.grid.model().rows, w, lost="H")
    picker.filters["ptype"].setCurrentIndex(picker.filters["ptype"].findData("consonant"))
    picker.filters["c_place"].setCurrentIndex(picker.filters["c_place"].findData("pharyngeal"))
    picker.ipa.setText("ħ")
    picker.show()
    settle()
    picker.grab().save(str(args.out / "ipa-picker.png"))
    picker.close()
    w.matches_dock.raise_()
    plots = w.plots
    w.plots_dock.setFloating(True)
    w.plots_dock.resize(900, 520)
    for index, name in ((0, "plots-losses.png"), (3, "plots-closeness.png")):
        plots.tabs.setCurrentIndex(index)
        settle()
        plots.grab().save(str(args.out / name))
    # the display tables: transliteration, then the Ugaritic script, then the sign values
    w.plots_dock.setFloating(False)
    w.set_display_table(display_tables.preset("ugaritic-transliteration"))
    show_best_span(w)
    settle()
    w.inscriptions.grab().save(str(args.out / "inscriptions-transliteration.png"))
    w.signs_dock.raise_()
    settle()
    w.signs.grab().save(str(args.out / "sign-values.png"))
    w.runs_dock.raise_()
    w.set_display_table(display_tables.preset("ugaritic-script"))
    show_best_span(w)
    settle()
    w.inscriptions.grab().save(str(args.out / "inscriptions-ugaritic-script.png"))
    # the right-to-left corpus, trained briefly so spans show
    rtl = next(c for c in w.project.corpora() if c.name.startswith("Hebrew words"))
    w.runs.corpus.setCurrentIndex(w.runs.corpus.findData(rtl.id))
    run("Hebrew (sample)", max(20, args.steps // 2))
    show_best_span(w)
    settle()
    w.inscriptions.grab().save(str(args.out / "rtl-corpus.png"))
    w.save_state_on_close = False
    w.close()
    dispose(w)
    app.processEvents()
    print(f"wrote pictures to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
