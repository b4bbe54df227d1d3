"""The rough edges of issue 27 item 5, each as the user meets it: a comparison that keeps the
window's size and shows its caveats, closeness.png at full size with its legend, the seed group's
progress in the run panel, the matches' agreement column on screen, a new corpus shown."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("torch")


# The tiny comparisons here train on the job's own thread (InlinePool). torch imports torch._dynamo
# (and sympy) lazily at the first optimiser; that import on a second thread while the Qt event loop
# runs crashed the test process with a segfault once in ~20 runs. Import it here, on the main thread.
import torch._dynamo  # noqa: E402,F401

from tests.gui.conftest import TINY, comparison_project, dispose_window  # noqa: E402



def keep_screenshot(widget, name: str, tmp_path: Path) -> Path:
    """Save a grab of ``widget``; copied to $DECIPHER_SCREENSHOT_DIR when set (docs/screenshots/)."""
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()  # pending layout requests first: the grab shows the laid-out widget
    shot = tmp_path / name
    assert widget.grab().save(str(shot))
    target = os.environ.get("DECIPHER_SCREENSHOT_DIR")
    if target:
        shutil.copy(shot, Path(target) / name)
    return shot


@pytest.fixture
def cipher_path(tmp_path) -> Path:
    return comparison_project(tmp_path)


@pytest.fixture
def big_window(app, qtbot, cipher_path):
    import gc

    from decipher_gui.comparison import controller
    from decipher_gui.mainwindow import MainWindow

    gc.collect()   # earlier tests' windows are collected now, before a job's thread trains (dispose_window)
    w = MainWindow(restore_state=False)
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    assert w.open_project(cipher_path)
    w.show()
    qtbot.waitExposed(w)
    yield w
    c = controller(w)
    if c.job is not None:
        c.job.stop()
        c.job.wait(30)
    dispose_window(w)


def test_a_comparison_keeps_the_window_size_and_shows_its_caveats(big_window, qtbot, tmp_path):
    from PySide6.QtWidgets import QApplication

    from decipher_gui.comparison import ComparisonDialog, controller
    from engine.runs.sweep import InlinePool
    from engine.runs.workers import run_task

    w = big_window
    assert (w.width(), w.height()) == (1600, 1000)
    d = ComparisonDialog(w.model.comparison_source(), TINY, w)
    d.seeds.setText("0")
    d.nulls.setValue(1)
    d.folder.setText(str(tmp_path / "cmp"))
    c = controller(w)
    sizes = []
    c.start(d.request(), pool_factory=lambda n: InlinePool(run_task))
    view = w.plots.comparison
    view.progressed_sizes = sizes
    qtbot.waitUntil(lambda: (sizes.append(w.size().toTuple()), c.comparison is not None
                             or w.last_error is not None)[1], timeout=120_000)
    assert c.comparison is not None, w.last_error
    QApplication.processEvents()
    sizes.append(w.size().toTuple())
    assert set(sizes) == {(1600, 1000)}
    # the caveats of a 10-step, 1-seed comparison are on screen, not only in answer.txt
    caption = view.caption.text()
    assert "Caveat: the runs stopped at 10 steps" in caption
    assert "only 1 seed × 1 null" in caption
    # one seed and one null run have no spread: the table says how many, not "± 0.000" or "± nan"
    cells = [view.model.item(r, c).text() for r in range(view.model.rowCount()) for c in (1, 4)]
    assert all(t.endswith(("(1 seed)", "(1 run)")) for t in cells) and not any("nan" in t for t in cells), cells
    tips = {view.model.item(r, c).toolTip() for r in range(view.model.rowCount()) for c in (1, 4)}
    assert tips == {"the score of 1 seed: one value, no spread", "the score of 1 null run: one value, no spread"}, tips
    keep_screenshot(w, "comparison-1600x1000.png", tmp_path)
    # closeness.png is the full figure with its legend, not a grab of the dock's strip (was 1000x181)
    from PySide6.QtGui import QImage

    png = QImage(str(tmp_path / "cmp" / "closeness.png"))
    assert (png.width(), png.height()) == (1000, 600)
    # the legend column (right of the plot) holds each language's colour: it was cut off before
    legend = {png.pixelColor(x, y).name().upper() for x in range(665, 1000) for y in range(0, 300)}
    assert {view.colour(n).upper() for n in view.curves} <= legend
    shutil.copy(tmp_path / "cmp" / "closeness.png", tmp_path / "closeness-saved.png")
    if os.environ.get("DECIPHER_SCREENSHOT_DIR"):
        shutil.copy(tmp_path / "cmp" / "closeness.png", Path(os.environ["DECIPHER_SCREENSHOT_DIR"]) / "closeness-saved.png")


def test_the_comparison_dialog_says_its_caveats_before_it_runs(big_window, tmp_path):
    from decipher_gui.comparison import ComparisonDialog

    w = big_window
    d = ComparisonDialog(w.model.comparison_source(), TINY, w)
    d.steps.setValue(40)
    d.seeds.setText("0")
    d.nulls.setValue(1)
    text = d.caveat.text()
    assert f"40 steps per run stop before the model’s annealing schedule ends ({TINY.anneal_steps} steps)" in text
    assert "only 1 seed × 1 null per candidate (fewer than 3 × 3)" in text
    assert d.buttons.button(d.buttons.StandardButton.Ok).isEnabled()  # a caveat, not a refusal
    d.show()
    d.resize(d.sizeHint())  # the offscreen screen is 800x600: show() caps a dialog at 2/3 of its height
    keep_screenshot(d, "comparison-dialog-caveats.png", tmp_path)
    d.nulls.setValue(0)
    assert "no null vocabularies" in d.caveat.text()
    d.steps.setValue(TINY.anneal_steps)
    d.seeds.setText("0 1 2")
    d.nulls.setValue(3)
    assert d.caveats() == [] and not d.caveat.isVisibleTo(d)


def test_the_agreement_column_is_on_screen_beside_the_stem_when_the_run_has_a_seed_group(window, qtbot, tmp_path):
    from engine.results import Alternative, Match
    from decipher_gui.panels.matches import MATCH_COLUMNS

    window.resize(1600, 1000)
    qtbot.waitExposed(window)
    m = window.matches
    matches = [Match("i1", 0, 3, "abc", (Alternative(1, "casa", "kasa", -1.0, "house"),), confidence=0.5),
               Match("i2", 0, 3, "abd", (Alternative(1, "mar", "mar", -1.0, "sea"),), confidence=0.4)]
    m.set_matches(matches, {}, {}, "hand-made")
    header = m.table.horizontalHeader()
    col = MATCH_COLUMNS.index("agreement")
    assert header.isSectionHidden(col)  # no seed group: an empty column takes no room
    m.set_agreement({("i1", 0, 3, "casa"): (5, 5), ("i2", 0, 3, "mar"): (2, 5)})
    qtbot.wait(10)
    assert not header.isSectionHidden(col)
    assert header.visualIndex(col) == header.visualIndex(MATCH_COLUMNS.index("stem")) + 1
    right = header.sectionViewportPosition(col) + header.sectionSize(col)
    assert 0 <= header.sectionViewportPosition(col) and right <= m.table.viewport().width()
    # the gloss stays on screen too (issue 14, item 7)
    gloss = MATCH_COLUMNS.index("gloss")
    assert header.sectionViewportPosition(gloss) < m.table.viewport().width()
    assert m.model.index(0, col).data() == "5/5"  # the model's columns are unchanged
    keep_screenshot(m, "matches-agreement.png", tmp_path)
    m.set_agreement({})
    assert header.isSectionHidden(col)


def test_a_newly_imported_corpus_and_language_are_shown(window, tmp_path):
    data = Path(__file__).resolve().parent / "data"
    before = window.state.corpus_id
    assert window.acts.import_file("lost", data / "new_corpus.csv", name="New inscriptions")
    new = max(c.id for c in window.project.corpora())
    assert new != before and window.state.corpus_id == new
    assert window.corpora.current_id() == new
    assert window.runs.corpus.currentData() == new
    assert "New inscriptions" in window.inscriptions.caption.text()
    window.acts.undo.trigger()  # the corpus is gone again: the window shows one that exists
    assert window.state.corpus_id in {c.id for c in window.project.corpora()}
    assert "New inscriptions" not in window.inscriptions.caption.text()

    known = tmp_path / "words.csv"
    known.write_text("form,ipa\nkasa,kasa\nmare,mare\n", encoding="utf-8")
    assert window.acts.import_file("known", known, name="Words")
    new_language = max(x.id for x in window.project.languages())
    assert window.state.language_id == new_language and window.languages.current_id() == new_language
    assert window.runs.language.currentData() == new_language


def test_a_training_seed_group_shows_its_steps_and_live_curves_in_the_run_panel(window, tmp_path):
    """The group's workers record their runs in the project; the run panel follows them (it said
    "Idle" and "no run yet" while the group trained) and the plots draw the seed furthest along."""
    from engine.config import Config
    from engine.project.store import Project

    w, bridge = window, window.seed_groups
    corpus, language = w.state.corpus_id, w.state.language_id
    after = w.model.runs.last_run_id()
    w.runs.set_group_running(True, 3)
    bridge.watch(after, [0, 1, 2], 20, corpus, language)
    assert w.runs.state_label.text() != "Idle" and w.runs.progress.format() != "no run yet"
    assert "starting the workers" in w.runs.state_label.text()

    worker = Project.open(w.project.path)  # what a worker process records, over its own connection
    try:
        config = Config(steps=20)
        r0 = worker.start_run(config, corpus, language, seed=0)
        r1 = worker.start_run(config, corpus, language, seed=1)
        other = worker.start_run(config, corpus, language, seed=7)  # not the group's
        for step in (1, 5, 10):
            worker.record_metrics(r0, step, {"loss/quality": 3.0 - step / 10, "batch_coverage": 0.1 * step / 5})
        worker.record_metrics(r0, 10, {"coverage": 0.4, "p_at_1": 0.25})
        worker.heartbeat(r0, 12)
        worker.record_metrics(r1, 1, {"loss/quality": 3.5})
        worker.record_metrics(other, 19, {"loss/quality": 0.5})
    finally:
        worker.close()
    bridge.poll()
    runs = w.runs
    assert (runs.progress.value(), runs.progress.maximum()) == (12 + 1, 60)
    assert runs.progress.format() == "seed group: step %v of %m (all seeds)"
    line = runs.state_label.text()
    assert "training seeds 0 (step 12), 1 (step 1)" in line and "1 waiting for a worker" in line
    # the plots show seed 0's curves, as recorded so far
    xs, ys = w.plots.losses.series["quality"]
    assert list(xs) == [1, 5, 10] and ys[-1] == pytest.approx(2.0)
    assert list(w.plots.quality.series["P@1"][0]) == [10]
    w.runs.set_state(w.runs._state)  # a state refresh keeps the group's line
    assert runs.state_label.text() == line
    w.resize(1600, 1000)
    keep_screenshot(w, "seed-group-training.png", tmp_path)

    worker = Project.open(w.project.path)
    try:
        worker.finish_run(r0, "completed")
    finally:
        worker.close()
    bridge.poll()
    assert "1 finished" in runs.state_label.text() and runs.progress.value() == 20 + 1
    bridge.unwatch()
    w.runs.set_group_running(False)
    assert runs.state_label.text() == "Idle"


def test_a_spread_cells_tooltip_counts_what_it_spreads_over():
    from decipher_gui.panels.plots import spread_text, spread_tip

    assert spread_text(0.105, 0.004, 3, "seed") == "0.105 ± 0.004"
    assert spread_tip(3, "seed") == "mean ± sd of the scores of 3 seeds"
    assert spread_tip(2, "null run") == "mean ± sd of the scores of 2 null runs"
    assert spread_text(0.105, float("nan"), 1, "run") == "0.105 (1 run)"
    assert spread_tip(1, "seed") == "the score of 1 seed: one value, no spread"
