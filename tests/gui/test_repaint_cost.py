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


# ---- a live run's redraws, one part per turn of the event loop (issue 31 item 4) -------------------

def _recording_bridge(window, monkeypatch):
    """The window's live bridge with its redraws replaced by recorders; the shown run is "live"."""
    from decipher_gui import live

    calls: list[str] = []
    w, s = window, window.state
    monkeypatch.setattr(live.queries, "live_label", lambda project, run: "run 1")
    monkeypatch.setattr(w.plots, "add_steps", lambda records: calls.append("steps"))
    monkeypatch.setattr(w.plots, "add_evaluation", lambda *a: calls.append("eval points"))
    monkeypatch.setattr(w, "load_shown_matches", lambda matches=None, marks=True: calls.append(f"matches marks={marks}"))
    monkeypatch.setattr(w, "update_marks", lambda: calls.append("marks"))
    monkeypatch.setattr(w, "show_mapping", lambda: calls.append("mapping"))
    monkeypatch.setattr(w, "refresh_runs", lambda select=None: calls.append("runs table"))
    monkeypatch.setattr(w.runs, "update_run_row", lambda *a: calls.append("run row") or True)
    s.live_run = s.shown_run = 1
    return w.live, calls


def test_an_evaluation_is_drawn_a_part_per_tick_plots_then_matches_then_marks(window, monkeypatch):
    """Drawn in one turn, an evaluation's plot points, matches, span marks and their paints were a run's
    longest turn of the event loop; the bridge's tick now draws one part at a time."""
    from engine.results import EvalEvent

    bridge, calls = _recording_bridge(window, monkeypatch)
    bridge._on_eval(EvalEvent(10, (), 0.5, ((0.0, 0.5),), {"p_at_1": 0.25}))
    assert calls == [] and bridge._tick.isActive(), "nothing drawn in the signal's own turn"
    assert window.state.eval_matches == () and bridge.last_eval_step == 10, "the session has it at once"
    bridge._tick.stop()
    bridge._phase = 2  # the next tick is the plots'
    per_tick = []
    for _ in range(6):
        calls.clear()
        bridge._on_tick()
        per_tick.append(list(calls))
    assert per_tick == [["eval points"], [], ["matches marks=False", "run row"], [], ["marks"], []], \
        "a part per tick; the span marks a tick after the matches table"
    assert not bridge._tick.isActive(), "nothing left to draw: the tick stops"


def test_a_runs_end_is_drawn_a_part_per_turn_and_run_ended_comes_last(window, qtbot, monkeypatch):
    from PySide6.QtCore import QTimer

    from engine.results import EvalEvent

    bridge, calls = _recording_bridge(window, monkeypatch)
    for name in ("add_evaluation", "load_shown_matches", "update_marks", "show_mapping", "refresh_runs"):
        target = window.plots if name == "add_evaluation" else window
        recorder = getattr(target, name)

        def marked(*a, _recorder=recorder, **k):
            _recorder(*a, **k)
            QTimer.singleShot(0, lambda: calls.append("|"))  # runs once this turn of the event loop is over
        monkeypatch.setattr(target, name, marked)
    window.runEnded.connect(lambda status: calls.append(f"ended {status}"))
    bridge._on_eval(EvalEvent(6, (), 0.5, ((0.0, 0.5),), {}))
    with qtbot.waitSignal(window.runEnded, timeout=5000):
        bridge._on_ended("completed")
        assert calls == [], "only the state and the last steps' points in the signal's own turn"
    assert bridge._tick.isActive() is False
    assert calls == ["eval points", "|", "runs table", "|", "matches marks=False", "|", "marks", "|", "mapping", "|",
                     "ended completed"]


def test_a_new_run_takes_the_previous_runs_end_redraws_first(window, monkeypatch):
    bridge, calls = _recording_bridge(window, monkeypatch)
    window.runEnded.connect(lambda status: calls.append(f"ended {status}"))
    bridge._on_ended("stopped")
    bridge._finish_end()  # what start_run does first
    assert calls == ["runs table", "matches marks=False", "marks", "mapping", "ended stopped"]
    assert not bridge._end_timer.isActive() and bridge._end_parts == []


def test_a_live_loss_axis_moves_only_when_the_curves_leave_it(qtbot):
    def losses(first: int, values) -> list[StepRecord]:
        return [StepRecord(first + i, {"total": v}, 0.4, 0.5, 1.0, 0.0) for i, v in enumerate(values)]

    panel = shown_plots(qtbot)
    panel.set_step_range(100)
    view = panel.losses.plot.getPlotItem().getViewBox()
    panel.add_steps(losses(1, [10, 9, 8, 7, 6]))
    lo, hi = view.viewRange()[1]
    assert lo <= 6 and 10 <= hi and hi - lo <= 2 * (10 - 6), "every point on the axis, fitted"
    panel.add_steps(losses(6, [lo + 0.1, 7.5]))
    assert view.viewRange()[1] == [lo, hi], "inside the axis: the axis stands still"
    panel.add_steps(losses(8, [2.0]))  # leaves the axis at the bottom
    lo2, hi2 = view.viewRange()[1]
    assert lo2 <= 2 and 10 <= hi2 and lo2 < lo
    # a pan or zoom by the user: the view is theirs
    view.sigRangeChangedManually.emit([False, True])
    view.setYRange(5, 6, padding=0)
    panel.add_steps(losses(9, [0.1]))
    assert view.viewRange()[1] == [5, 6]
    # the next run, or a stored run, fits the data again
    panel.reset_run()
    assert view.autoRangeEnabled()[1]


def test_a_pin_state_at_a_new_step_does_not_refill_the_pin_list(qtbot, monkeypatch):
    from dataclasses import replace

    from decipher_gui.panels.pins import PinsPanel
    from decipher_gui.pinstate import PinState, pin_key
    from engine.corpus import PinnedValue

    panel = PinsPanel()
    qtbot.addWidget(panel)
    pin = PinnedValue("a", "b")
    panel.set_inventory(["a"], ["b"], [pin])
    fills: list[int] = []
    original = panel._fill_table
    monkeypatch.setattr(panel, "_fill_table", lambda pins: fills.append(1) or original(pins))
    state = PinState(3, 10, True, {}, (pin,), ())
    panel.set_pin_state(state)
    assert fills == [1] and "not yet in the run" in panel.table.item(0, 4).text()
    assert "at step 10" in panel.run_pins.text()
    panel.set_pin_state(replace(state, step=20))
    assert fills == [1], "the same pins in force: the list stands"
    assert "at step 20" in panel.run_pins.text(), "the line under the grid says the new step"
    assert panel.grid.model().pin_state.step == 20
    panel.set_pin_state(replace(state, step=30, missing=(), since={pin_key(pin): 25}))
    assert fills == [1, 1] and panel.table.item(0, 4).text() == "in run 3 from step 25"


def test_the_held_loss_axis_reads_only_the_new_values_of_a_growing_curve(qtbot, monkeypatch):
    """A long run's curves hold thousands of points: the held axis keeps each curve's bounds as it
    grows instead of reading every point again at each update; a replaced curve is read again."""
    from decipher_gui.panels import plots

    panel = shown_plots(qtbot)
    panel.set_step_range(1000)
    panel.add_steps([StepRecord(s, {"total": 5.0 + (s % 7)}, 0.4, 0.5, 1.0, 0.0) for s in range(1, 401)])
    read: list[int] = []
    original = plots._finite_bounds
    monkeypatch.setattr(plots, "_finite_bounds", lambda values, start=None: read.append(len(values)) or original(values, start))
    panel.add_steps([StepRecord(401, {"total": 0.5}, 0.4, 0.5, 1.0, 0.0)])
    assert read and max(read) <= 1, "only the new step's value is read"
    lo, hi = panel.losses.plot.getPlotItem().getViewBox().viewRange()[1]
    assert lo <= 0.5 and hi >= 11.0
    read.clear()
    panel.losses.set_series("total", [1, 2], [3.0, 4.0])
    panel.losses.fit_held_y()
    assert 2 in read, "a replaced curve is measured again"
