"""The comparison dialog and its background job (issue 12, item 5): a tiny comparison of a synthetic
corpus against its source vocabulary, an unrelated one and a bad file, run in a worker process
while the GUI thread keeps turning; the Closeness tab then shows one curve per language, the null
band, a legend beside the plot and the table of scores and verdicts."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("torch")

from PySide6.QtCore import QTimer  # noqa: E402


# The tiny comparisons here train on the job's own thread (InlinePool). torch imports torch._dynamo
# (and sympy) lazily at the first optimiser; that import on a second thread while the Qt event loop
# runs crashed the test process with a segfault once in ~20 runs. Import it here, on the main thread.
import torch._dynamo  # noqa: E402,F401

from tests.gui.conftest import TINY, comparison_project, dispose_window  # noqa: E402



@pytest.fixture
def project_path(tmp_path) -> Path:
    return comparison_project(tmp_path)


@pytest.fixture
def win(app, qtbot, project_path):
    import gc

    from decipher_gui.mainwindow import MainWindow

    gc.collect()   # earlier tests' windows are collected now, before a job's thread trains (dispose_window)
    w = MainWindow(restore_state=False)
    qtbot.addWidget(w)
    w.resize(1400, 900)
    assert w.open_project(project_path)
    w.show()
    yield w
    from decipher_gui.comparison import controller

    c = controller(w)
    if c.job is not None:
        c.job.stop()
        c.job.wait(30)
    dispose_window(w)


def test_the_dialog_lists_the_projects_languages_and_needs_two(win, tmp_path):
    from decipher_gui.comparison import ComparisonDialog, default_folder

    d = ComparisonDialog(win.model.comparison_source(), TINY, win)
    assert [name for _, _, name in d.checked()] == ["source", "unrelated"]
    assert d.steps.value() == 10
    assert Path(d.folder.text()) == default_folder(win.project.path, "cipher")
    d.set_checked({"source"})
    assert not d.buttons.button(d.buttons.StandardButton.Ok).isEnabled()
    assert "at least two" in d.problem.text()
    assert d.add_file(tmp_path / "source.csv") == "source (2)"  # a file never hides a project language
    assert d.buttons.button(d.buttons.StandardButton.Ok).isEnabled()
    d.seeds.setText("0 0")
    assert not d.buttons.button(d.buttons.StandardButton.Ok).isEnabled() and "distinct" in d.problem.text()
    d.seeds.setText("0 x")
    assert "whole numbers" in d.problem.text()


def test_restarts_per_seed_reach_the_comparison(win, qtbot, tmp_path):
    from decipher_gui.comparison import ComparisonDialog, controller
    from engine.closeness.comparison import MAX_RESTARTS
    from engine.runs.sweep import InlinePool
    from engine.runs.workers import run_task

    d = ComparisonDialog(win.model.comparison_source(), TINY, win)
    assert d.restarts.value() == 1  # default: no restart, as before
    assert (d.restarts.minimum(), d.restarts.maximum()) == (1, MAX_RESTARTS)
    d.restarts.setValue(2)
    d.seeds.setText("0")
    d.nulls.setValue(0)
    d.folder.setText(str(tmp_path / "cmp"))
    request = d.request()
    assert request.restarts == 2
    c = controller(win)
    c.start(request, pool_factory=lambda n: InlinePool(run_task))  # the tiny runs on the job's thread
    qtbot.waitUntil(lambda: c.comparison is not None or win.last_error is not None, timeout=120_000)
    assert c.comparison is not None, win.last_error
    assert c.comparison.plan.restarts == 2
    assert len(c.comparison.trainings) == 4 and len(c.comparison.records) == 2  # 2 languages x 1 seed x 2 restarts
    assert {r.restarts for r in c.comparison.records} == {2}


def test_the_objective_score_reaches_the_comparison_and_its_answer(win, qtbot, tmp_path):
    from decipher_gui.comparison import ComparisonDialog, controller
    from engine.runs.sweep import InlinePool
    from engine.runs.workers import run_task

    d = ComparisonDialog(win.model.comparison_source(), TINY, win)
    assert d.score.currentData() == "area" and d.request().score == "area"   # default: the paper's curve
    d.score.setCurrentIndex(d.score.findData("objective"))
    d.seeds.setText("0 1")
    d.nulls.setValue(2)
    d.folder.setText(str(tmp_path / "cmp"))
    request = d.request()
    assert request.score == "objective"
    c = controller(win)
    c.start(request, pool_factory=lambda n: InlinePool(run_task))
    qtbot.waitUntil(lambda: c.comparison is not None or win.last_error is not None, timeout=120_000)
    assert c.comparison is not None, win.last_error
    assert c.comparison.plan.score == "objective"
    assert all(r.score == -r.result.objective for r in c.comparison.records)
    answer = (tmp_path / "cmp" / "answer.txt").read_text(encoding="utf-8")
    assert "(score: minus the final training objective)" in answer
    # what the Closeness tab shows says which score: the table's column, the caption, the legend's numbers
    panel = win.plots.comparison
    qtbot.waitUntil(lambda: panel.model.rowCount() == 2, timeout=30_000)
    assert panel.model.horizontalHeaderItem(1).text() == "\u2212objective"
    assert "final training objective" in panel.caption.text() and "area under" not in panel.caption.text()


def test_at_most_a_size_each_reaches_the_comparison_and_needs_a_number(win, qtbot, tmp_path):
    from decipher_gui.comparison import ComparisonDialog, controller
    from engine.runs.sweep import InlinePool
    from engine.runs.workers import run_task

    d = ComparisonDialog(win.model.comparison_source(), TINY, win)
    assert d.size_mode.currentData() is False and d.request().cap_stems is False   # default: one size for all
    d.size_mode.setCurrentIndex(1)
    assert not d.buttons.button(d.buttons.StandardButton.Ok).isEnabled()
    assert d.problem.text() == "Give the most stems a language keeps (at most this many each)."
    d.stems.setValue(7)
    assert d.buttons.button(d.buttons.StandardButton.Ok).isEnabled() and not d.problem.text()
    d.seeds.setText("0")
    d.nulls.setValue(0)
    d.folder.setText(str(tmp_path / "cmp"))
    request = d.request()
    assert (request.stems, request.cap_stems) == (7, True)
    c = controller(win)
    c.start(request, pool_factory=lambda n: InlinePool(run_task))
    qtbot.waitUntil(lambda: c.comparison is not None or win.last_error is not None, timeout=120_000)
    assert c.comparison is not None, win.last_error
    matching = c.comparison.plan.matching
    assert matching.capped and matching.size == 7
    assert all(m.kept == min(7, m.usable) for m in matching.sizes)


def test_a_tiny_comparison_runs_in_a_worker_and_the_tab_shows_it(win, qtbot, tmp_path):
    from decipher_gui.comparison import ComparisonDialog, controller
    from engine.runs.workers import LocalPool

    bad = tmp_path / "bad.csv"
    bad.write_text("form,ipa\nbaka,ba\x00ka\n", encoding="utf-8")
    d = ComparisonDialog(win.model.comparison_source(), TINY, win)
    d.add_file(bad)
    d.seeds.setText("0 1")
    d.nulls.setValue(1)
    d.folder.setText(str(tmp_path / "cmp"))
    request = d.request()
    assert set(request.candidates) == {"source", "unrelated", "bad"} and request.seeds == (0, 1)

    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(job.running()))
    c = controller(win)
    view = win.plots.comparison
    assert view.splitter.isHidden()  # no comparison yet: no empty plot and table
    job = c.start(request, pool_factory=lambda n: LocalPool(1))  # a real worker process
    at_finish = []
    job.finished.connect(lambda _comparison: at_finish.append(job.running()))
    timer.start(50)
    assert job.running()
    assert win.plots.closeness_tab.stack.currentWidget() is view and view.run_bar.isVisible()
    assert view.splitter.isHidden()  # still nothing to plot while the runs train
    assert view.caption.text().startswith("<b>Comparing</b> 3 known languages on cipher:")
    qtbot.waitUntil(lambda: c.comparison is not None or win.last_error is not None, timeout=600_000)
    timer.stop()
    assert c.comparison is not None, win.last_error
    assert at_finish == [False]  # told once its thread has ended: a new comparison may start at once
    # the GUI thread kept turning while the runs trained: its timer fired while the job ran
    assert sum(ticks) >= 3

    assert not view.splitter.isHidden() and view.graphics.updatesEnabled()
    assert set(view.curves) == {"source", "unrelated"}  # one curve per language
    assert view.null_band is not None
    # each language's own nulls: the curve its score is read against, dotted in its colour
    assert set(view.null_curves) == {"source", "unrelated"}
    assert all(view.null_curves[n].opts["pen"].color().name().upper() == view.colour(n).upper()
               for n in view.null_curves)
    colours = {name: view.curves[name].opts["pen"].color().name().upper() for name in view.curves}
    assert colours == {n: view.colour(n).upper() for n in colours} and len(set(colours.values())) == 2
    # the legend is in its own column: it covers no part of the plot
    plot_rect = view.plot.sceneBoundingRect()
    legend_rect = view.legend.sceneBoundingRect()
    assert not plot_rect.intersects(legend_rect)
    assert len(view.legend.items) == 4  # the null band, the own nulls' key and the two languages
    rows = [[view.model.item(r, col).text() for col in range(view.model.columnCount())]
            for r in range(view.model.rowCount())]
    assert [r[0] for r in rows[:2]] == [s.known for s in c.comparison.summaries]
    assert rows[2][0] == "bad" and rows[2][3] == "not compared"
    assert all(r[3] in ("closer than chance", "no evidence") for r in rows[:2])
    assert rows[0][2].startswith(f"{c.comparison.summaries[0].margin:+.3f} [")   # the margin it is ranked by
    # the answer in words above the plot: ranked, verdict, margin with its interval, meaning, caveats
    caption = view.caption.text()
    best = c.comparison.summaries[0]
    assert f"1. {best.known}: {best.verdict} — score {best.score_mean:.3f}, margin" in caption
    assert "What it means:" in caption and "does not prove a relation" in caption
    assert "annealing schedule ended (2000 steps)" in caption  # TINY runs 10 steps
    assert "only 2 seeds × 1 null per candidate" in caption
    assert not view.run_bar.isVisible()
    for name in ("runs.csv", "summary.csv", "closeness.png"):
        assert (tmp_path / "cmp" / name).is_file()

    # the same comparison again: resumed, nothing retrained
    job = c.start(request, pool_factory=lambda n: LocalPool(1))
    first = c.comparison
    qtbot.waitUntil(lambda: c.comparison is not first, timeout=60_000)
    assert [r.score for r in c.comparison.records] == [r.score for r in first.records]
    assert max(r.result.wall_s for r in c.comparison.records) == max(r.result.wall_s for r in first.records)

    win.plots_dock.raise_()
    win.plots.resize(1100, 520)
    shot = tmp_path / "closeness-comparison.png"
    assert win.plots.grab().save(str(shot))
    target = os.environ.get("DECIPHER_SCREENSHOT_DIR")
    if target:  # docs/screenshots/closeness-comparison.png is made this way
        shutil.copy(shot, Path(target) / shot.name)

    # another project: nothing of this comparison stays on screen
    other = tmp_path / "other.decipher"
    shutil.copy(win.project.path, other)
    assert win.open_project(other)
    assert view.curves == {} and view.null_curves == {} and view.null_band is None and view.model.rowCount() == 0
    assert view.splitter.isHidden()
    assert c.comparison is None and win.plots.closeness_tab.stack.currentIndex() == 0


def test_stop_ends_the_worker_processes_at_once_and_keeps_the_state(win, qtbot, tmp_path):
    from decipher_gui.comparison import ComparisonDialog, controller
    from engine.runs.workers import LocalPool

    d = ComparisonDialog(win.model.comparison_source(), TINY.replace(steps=100_000), win)  # runs that would not end by themselves
    d.seeds.setText("0 1")
    d.nulls.setValue(1)
    d.folder.setText(str(tmp_path / "cmp"))
    c = controller(win)
    stopped = []
    job = c.start(d.request(), pool_factory=lambda n: LocalPool(1))
    job.stopped.connect(lambda: stopped.append(job.running()))  # told once its thread has ended

    def workers():
        executor = getattr(getattr(job.pool, "pool", None), "_executor", None)
        return list(getattr(executor, "_processes", {}).values()) if executor is not None else []

    qtbot.waitUntil(lambda: bool(workers()), timeout=120_000)
    processes = workers()
    win.plots.comparison.stop_button.click()  # returns at once: it signals and ends the processes
    qtbot.waitUntil(lambda: bool(stopped), timeout=60_000)
    assert stopped == [False] and c.comparison is None and not job.running()
    for p in processes:
        p.join(10)
        assert not p.is_alive()
    assert "Stopped" in win.plots.comparison.progress_label.text()
    assert (tmp_path / "cmp" / "results.csv").exists()  # what a rerun continues from


def _small_comparison(win, qtbot, tmp_path):
    """A comparison of the two project languages, one seed and one null each, trained on the job's thread."""
    from decipher_gui.comparison import ComparisonDialog, controller
    from engine.runs.sweep import InlinePool
    from engine.runs.workers import run_task

    d = ComparisonDialog(win.model.comparison_source(), TINY, win)
    d.seeds.setText("0")
    d.nulls.setValue(1)
    d.folder.setText(str(tmp_path / "cmp"))
    c = controller(win)
    job = c.start(d.request(), pool_factory=lambda n: InlinePool(run_task))
    qtbot.waitUntil(lambda: c.comparison is not None or win.last_error is not None, timeout=120_000)
    assert c.comparison is not None, win.last_error
    return c, job, d.request()


def test_closeness_png_is_drawn_in_a_process_of_its_own_not_on_the_gui_thread(win, qtbot, tmp_path, monkeypatch):
    """Drawing the figure held the window's event loop 0.1-0.2 s (benchmarks/gui_responsiveness.py
    --comparison); the job now draws it in a short-lived process, the same image, before it says done."""
    import decipher_gui.figure as figure
    from engine.runs.sweep import InlinePool
    from engine.runs.workers import run_task
    from PySide6.QtGui import QImage

    drawn_here = []
    monkeypatch.setattr(figure, "draw", lambda *a, **k: drawn_here.append(a))
    c, job, request = _small_comparison(win, qtbot, tmp_path)
    assert drawn_here == []  # not in the app's process
    png = tmp_path / "cmp" / "closeness.png"
    image = QImage(str(png))
    assert (image.width(), image.height()) == (1000, 600)
    assert job.png_problem == "" and "not written" not in win.plots.comparison.progress_label.text()
    assert not (tmp_path / "cmp" / "closeness.part.png").exists()
    # the bands' edges are bare curves holding the bands (a PlotDataItem each was 15 % of drawing the
    # answer on the GUI thread); the only PlotDataItems are the mean curves and the own nulls' curves
    import numpy as np
    import pyqtgraph as pg
    from engine.closeness.plot import curve_bands

    view = win.plots.comparison
    curves, band = curve_bands(c.comparison)
    fills = [i for i in view.plot.items if isinstance(i, pg.FillBetweenItem)]
    edges = [tuple(np.round(e.getData()[1], 9)) for f in fills for e in f.curves]
    assert all(isinstance(e, pg.PlotCurveItem) for f in fills for e in f.curves) and len(fills) == len(curves) + 1
    expected = [band[1], band[2]] + [a for (_, _, lo, hi) in curves.values() for a in (lo, hi)]
    assert sorted(edges) == sorted(tuple(np.round(a, 9)) for a in expected)
    data_items = [i for i in view.plot.items if isinstance(i, pg.PlotDataItem)]
    assert set(data_items) == set(view.curves.values()) | set(view.null_curves.values())

    # a figure that cannot be written is said on the comparison's line, as before
    png.unlink()
    png.mkdir()
    first = c.comparison
    c.start(request, pool_factory=lambda n: InlinePool(run_task))  # resumed: nothing retrained
    qtbot.waitUntil(lambda: c.comparison is not first or win.last_error is not None, timeout=120_000)
    line = win.plots.comparison.progress_label.text()
    assert "closeness.png not written:" in line and "cannot write the file (it is a folder)" in line, line

    # Stop (or quitting the app) while it draws ends the drawing process
    job = c.job
    job.stop()
    assert job._draw(first, tmp_path / "stopped.png") == "stopped"
    assert not (tmp_path / "stopped.png").exists() and job._drawer is None


def test_the_answer_is_drawn_a_candidate_per_turn_and_painted_whole(win, qtbot, tmp_path, monkeypatch):
    """Building a comparison's plot items and painting them held the window in one turn (the longest
    gap of gui_responsiveness.py --comparison); the figure is now built a part per turn, unpainted
    until the table and the answer come with its paint. Another comparison or project meanwhile ends it."""
    c, _, _ = _small_comparison(win, qtbot, tmp_path)
    comparison, view = c.comparison, win.plots.comparison
    seen = []
    step = c._draw_step

    def spy(*a, **k):
        step(*a, **k)
        seen.append((len(view.curves), view.graphics.updatesEnabled(), view.model.rowCount()))

    monkeypatch.setattr(c, "_draw_step", spy)
    c._finished(comparison)
    assert seen == [(0, False, 0)] and view.null_band is not None  # this turn: the null band only
    qtbot.waitUntil(lambda: view.graphics.updatesEnabled() and view.model.rowCount() > 0, timeout=10_000)
    assert seen == [(0, False, 0), (1, False, 0), (2, False, 0)]  # a candidate per turn, the last one ends it
    assert set(view.curves) == {"source", "unrelated"} and c.comparison is comparison

    seen.clear()
    c._finished(comparison)
    view.clear()  # another project opened before the figure was whole: nothing more of it is drawn
    qtbot.waitUntil(lambda: view.graphics.updatesEnabled(), timeout=10_000)
    qtbot.wait(50)
    assert view.curves == {} and view.model.rowCount() == 0 and len(seen) == 2

    def broken(shown):
        view.comparison = shown
        yield
        raise ValueError("a figure that cannot be drawn")

    monkeypatch.setattr(view, "comparison_steps", broken)
    seen.clear()
    with qtbot.captureExceptions() as errors:
        c._finished(comparison)
        qtbot.waitUntil(lambda: bool(errors), timeout=10_000)
    assert "cannot be drawn" in str(errors[0][1]) and view.graphics.updatesEnabled()  # not left frozen


def test_after_paint_calls_once_after_the_widgets_paint_or_at_its_cap(app, qtbot, monkeypatch):
    from PySide6.QtCore import QObject
    from PySide6.QtWidgets import QLabel

    from decipher_gui.comparison import AfterPaint

    monkeypatch.setattr(AfterPaint, "CAP_MS", 600_000)  # only a paint can call it here
    monkeypatch.setattr(AfterPaint, "SETTLE_MS", 0)
    owner = QObject()
    label = QLabel("shown")
    qtbot.addWidget(label)
    label.show()
    qtbot.waitExposed(label)
    qtbot.wait(20)
    calls = []
    AfterPaint(label, lambda: calls.append("painted"), parent=owner)
    assert calls == []
    label.repaint()  # a paint event now
    assert calls == []  # not inside the paint
    qtbot.waitUntil(lambda: calls == ["painted"], timeout=5_000)
    label.repaint()
    qtbot.wait(50)
    assert calls == ["painted"]  # once

    monkeypatch.setattr(AfterPaint, "CAP_MS", 10)
    hidden = QLabel("never painted")
    qtbot.addWidget(hidden)
    AfterPaint(hidden, lambda: calls.append("capped"), parent=owner)
    qtbot.waitUntil(lambda: calls == ["painted", "capped"], timeout=5_000)
    gone = QObject()
    AfterPaint(hidden, lambda: calls.append("cancelled"), parent=gone)
    del gone  # the owner deleted: the call with it
    qtbot.wait(100)
    assert calls == ["painted", "capped"]


def test_a_comparison_stopped_before_its_thread_started_plans_nothing(win, qtbot, tmp_path, monkeypatch):
    import engine.closeness.comparison as comparison_module
    from PySide6.QtWidgets import QLabel

    from decipher_gui.comparison import AfterPaint, ComparisonDialog, ComparisonJob

    planned = []
    monkeypatch.setattr(comparison_module, "plan_comparison", lambda *a, **k: planned.append(a))
    monkeypatch.setattr(AfterPaint, "CAP_MS", 50)
    d = ComparisonDialog(win.model.comparison_source(), TINY, win)
    d.folder.setText(str(tmp_path / "cmp"))
    job = ComparisonJob(d.request(), win)
    stopped = []
    job.stopped.connect(lambda: stopped.append(job.running()))
    hidden = QLabel()
    qtbot.addWidget(hidden)
    job.start(after_paint_of=hidden)
    assert job.running()  # from the click on, though its thread starts later
    job.stop()
    qtbot.waitUntil(lambda: bool(stopped), timeout=10_000)
    assert stopped == [False] and planned == [] and not job.running()


def test_a_narrow_comparison_view_puts_the_table_under_the_plot_and_keeps_the_plot(app, qtbot):
    """In the window's default layout at 1600 x 1000 the Plots dock is about 460 px wide: beside the
    table, the legend's column took the plot's whole width."""
    import pyqtgraph as pg
    from PySide6.QtCore import Qt

    from decipher_gui.panels.plots import ComparisonView

    view = ComparisonView()
    qtbot.addWidget(view)
    view.splitter.show()  # as with a comparison shown
    view.legend.addItem(pg.PlotDataItem(pen="r"), "Proto-Germanic (Gothic sample) (0.013)")
    view.resize(460, 600)
    view.show()
    qtbot.waitExposed(view)
    assert view.splitter.orientation() == Qt.Orientation.Vertical
    qtbot.waitUntil(lambda: view.plot.width() >= ComparisonView.PLOT_MIN_WIDTH - 1, timeout=5_000)
    view.resize(1100, 600)
    qtbot.waitUntil(lambda: view.splitter.orientation() == Qt.Orientation.Horizontal, timeout=5_000)
