"""Issue 51, item 3, done when: a Linear B project made on the command line (`decipher project new
P --preset linear-b`, then the .cog imported with the system greek) trains with the syllable model
in the app: the Run panel takes the project's stored run settings, and Start trains with them."""

from __future__ import annotations

import csv

from engine.cli.project import main as project_main
from engine.io.linear_b import TO_SIGN
from engine.config import PRESET_INFO
from engine.project.recording import mapping_of

from tests.gui.test_linear_b_walkthrough import linear_b_like_cog


def test_a_linear_b_project_made_on_the_cli_trains_with_the_syllable_model_in_the_app(app, qtbot, tmp_path):
    from decipher_gui.app import dispose
    from decipher_gui.mainwindow import MainWindow

    path = tmp_path / "lb.decipher"
    assert project_main(["new", str(path), "--preset", "linear-b"]) == 0
    cog = linear_b_like_cog(tmp_path / "sample.cog", n_words=24)
    assert project_main(["import", str(path), "--cog", str(cog), "--system", "greek"]) == 0

    w = MainWindow(restore_state=False)
    try:
        assert w.open_project(path)
        w.show()
        form = w.runs.form
        assert form.config() == PRESET_INFO["linear-b"].config()      # the form took the project's settings
        # a short run: only its length and device changed, as a user would in the form
        form.set_config(form.config().replace(steps=6, anneal_steps=6, eval_interval=0, restarts=1, device="cpu"))
        ended: list[str] = []
        w.runEnded.connect(ended.append)
        assert w.start_run(), w.last_error
        qtbot.waitUntil(lambda: bool(ended), timeout=300_000)
        assert ended[-1] == "completed"
        run = max(w.project.runs(), key=lambda r: r.id)
        assert run.settings().signs == "syllables" and run.settings().segmented
        assert run.settings().band == PRESET_INFO["linear-b"].settings["band"]
        mapping = mapping_of(w.project, run.id)
        assert mapping is not None and mapping.syllables is not None   # a syllable run's sign table
    finally:
        if w.controller.active:
            w.controller.stop()
            w.controller.wait(120_000)
        w.save_state_on_close = False
        w.close()
        dispose(w)
    # the CLI's sign-value export of that run, through a display table: Linear B as its
    # transliteration (ka), not the raw glyph (as the app's grid export shows it)
    out = tmp_path / "signs.csv"
    assert project_main(["export", str(path), "--sign-values", str(out), "--run", str(run.id),
                         "--lost-display", "linear-b-transliteration"]) == 0
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert rows and rows[0]["slot"] in ("onset", "vowel")
    shown = {r["sign"]: r["shown"] for r in rows}
    assert shown and all(v.isascii() and v != sign and TO_SIGN[v] == sign for sign, v in shown.items())
