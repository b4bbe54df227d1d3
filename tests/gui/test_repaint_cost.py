"""The cheaper redraws while a run trains (issue 14 item 8): a fixed step axis on the live plots,
only the inscriptions whose spans changed repainted, one cached settings summary per stored run."""

from __future__ import annotations

from decipher_gui.analysis import SpanMark
from decipher_gui.driver import StepRecord
from decipher_gui.panels.inscriptions import InscriptionPanel
from decipher_gui.panels.plots import PlotsPanel
from decipher_gui.panels.runs import RunsPanel
from engine.config import Config
from engine.corpus import Inscription
from engine.project.records import RunRecord
from engine.results import Alternative, Match


def _steps(first: int, n: int) -> list[StepRecord]:
    return [StepRecord(s, {"total": 10.0 / s, "quality": 1.0}, 0.4, 0.5, 1.0, 0.0) for s in range(first, first + n)]


def shown_plots(qtbot) -> PlotsPanel:
    """A plots panel on screen, reset for a new run."""
    panel = PlotsPanel()
    qtbot.addWidget(panel)
    panel.resize(700, 400)
    panel.show()
    qtbot.waitExposed(panel)
    panel.reset_run()
    return panel


def test_live_step_axis_stays_fixed_and_a_stored_run_fits_its_data(qtbot):
    panel = shown_plots(qtbot)
    panel.set_step_range(300)
    panel.add_steps(_steps(1, 20))
    qtbot.wait(20)
    view = panel.losses.plot.getPlotItem().getViewBox()
    lo, hi = view.viewRange()[0]
    assert lo <= 0 and 300 <= hi < 320, "the planned steps, not the 20 steps so far"
    assert list(panel.losses.curves["total"].getData()[0]) == list(range(1, 21)), "the curve still has every step"
    # a stored run (or the next run's reset) fits the x axis to the data again
    panel.load_history([(s, "loss/total", 1.0 / s) for s in range(1, 41)])
    qtbot.wait(20)
    lo, hi = view.viewRange()[0]
    assert -5 < lo <= 1 and 40 <= hi < 60, "fitted to steps 1-40 again"


def test_hidden_tab_is_drawn_correctly_when_shown_again(qtbot):
    panel = shown_plots(qtbot)
    panel.set_step_range(100)
    panel.add_steps(_steps(1, 10))  # the Coverage tab is hidden: its curves wait
    panel.tabs.setCurrentIndex(1)
    qtbot.wait(20)
    xs, ys = panel.coverage.curves["batch coverage"].getData()
    assert list(xs) == list(range(1, 11)) and list(ys) == [0.4] * 10
    lo, hi = panel.coverage.plot.getPlotItem().getViewBox().viewRange()[0]
    assert lo <= 0 and 100 <= hi < 110


def _mark(ins: str, start: int, end: int) -> SpanMark:
    match = Match(ins, start, end, "abc", (Alternative(1, "abc", "abc", -0.4, "gloss"),), confidence=0.7)
    return SpanMark(match, None, None, True)


def test_only_inscriptions_whose_spans_changed_are_repainted(qtbot):
    panel = InscriptionPanel()
    qtbot.addWidget(panel)
    panel.resize(700, 500)
    inscriptions = [Inscription(f"I{i}", "abcdef ghij") for i in range(6)]
    model = panel.view.model()
    model.set_inscriptions(inscriptions)
    panel.show()
    qtbot.waitExposed(panel)
    changed: list[int] = []
    model.dataChanged.connect(lambda a, b: changed.extend(range(a.row(), b.row() + 1)))
    rect = panel.view.visualRect(model.index(2))
    before = panel.view.viewport().grab(rect).toImage()
    assert model.set_marks({"I2": [_mark("I2", 0, 3)]}) == [2]
    assert changed == [2]
    qtbot.wait(50)  # the view repaints the row by itself (no viewport-wide update needed)
    after = panel.view.viewport().grab(rect).toImage()
    assert after != before, "the new span is drawn"
    changed.clear()
    assert model.set_marks({"I2": [_mark("I2", 0, 3)]}) == [] and changed == [], "same spans: nothing repainted"
    assert model.set_marks({"I4": [_mark("I4", 1, 2)]}) == [2, 4], "the old span goes, the new one comes"
    qtbot.wait(50)
    assert panel.view.viewport().grab(rect).toImage() == before, "row 2 is back to no span"


def _run(run_id: int, config: dict) -> RunRecord:
    return RunRecord(run_id, "completed", config, 0, "", "cpu", 1, 1, (), "2026-01-01", None, "", None, None, 5,
                     None, None, None)


def test_settings_summary_is_per_content_and_bad_settings_still_say_so():
    a, b = {"steps": 200, "min_span": 3}, {"steps": 300, "min_span": 3}
    assert _run(1, a).summary() == Config.from_dict(a).summary()
    assert _run(2, b).summary() == Config.from_dict(b).summary() != _run(1, a).summary()
    assert _run(3, dict(a)).summary() == _run(1, a).summary()
    bad = _run(4, {"steps": -5})
    assert bad.summary().startswith("unreadable settings (") and bad.summary() == bad.summary()


def test_runs_table_rows_carry_their_own_settings_tooltip(qtbot):
    panel = RunsPanel()
    qtbot.addWidget(panel)
    runs = [_run(1, {"steps": 200}), _run(2, {"steps": 300})]
    panel.set_runs(runs, {1: "Hebrew"}, {})
    for row, run in enumerate(runs):
        for col in range(panel.history.columnCount()):
            tip = panel.history.item(row, col).toolTip()
            if col != panel.GROUP_COLUMN:
                assert tip.startswith(f"settings: {run.summary()}\nstarted 2026-01-01")


def test_live_run_row_takes_an_evaluation_in_place(qtbot):
    panel = RunsPanel()
    qtbot.addWidget(panel)
    panel.set_runs([_run(1, {"steps": 200}), _run(2, {"steps": 300})], {1: "Hebrew"}, {})
    assert panel.update_run_row(2, 40, {"p_at_1": 0.25, "p_at_10": 0.5, "coverage": 0.125})
    assert [panel.history.item(1, c).text() for c in (0, 5, 6, 7, 8)] == ["2", "40", "25.0%", "50.0%", "12.5%"]
    assert panel.history.item(0, 5).text() == "5", "the other run's row is untouched"
    assert not panel.update_run_row(3, 1, {}), "a run without a row: the caller re-reads the table"


def test_with_restarts_the_live_curve_is_the_current_starts_then_the_kept_ones(qtbot):
    """Every start (setting restarts) counts its steps from 1: the live loss curve shows the start
    being trained alone, and once the choice is made the kept start's whole curve (before, the
    starts' points were strung into one zigzag line over the same steps)."""
    from dataclasses import replace

    panel = shown_plots(qtbot)
    start0 = [replace(r, losses={"total": 100.0 + r.step}) for r in _steps(1, 5)]
    start1 = [replace(r, losses={"total": 200.0 + r.step}, restart=1) for r in _steps(1, 5)]
    panel.add_steps(start0[:3])
    panel.add_steps(start0[3:] + start1[:2])    # one batch across the start boundary
    assert panel.losses.series["total"] == ([1, 2], [201.0, 202.0])
    panel.add_steps(start1[2:])
    kept = [replace(r, losses={"total": 100.0 + r.step}) for r in _steps(6, 3)]   # start 0 kept, goes on
    panel.add_steps(kept)
    assert panel.losses.series["total"] == (list(range(1, 9)), [100.0 + s for s in range(1, 9)])
    assert panel.coverage.series["batch coverage"][0] == list(range(1, 9))
