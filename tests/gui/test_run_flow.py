"""A short run on the sample project, end to end: live updates, highlights, the run's record in
the project, explanations, accept/undo, export; and a long run paused, re-pinned and stopped."""

from __future__ import annotations

import csv
import html

from PySide6.QtCore import QTimer, Qt

from decipher_gui.analysis import SpanMark
from decipher_gui.worker import IDLE, PAUSED

from .conftest import RUN_TIMEOUT_MS, small_config


def test_short_run_lights_up_spans_and_is_recorded(window, qtbot, tmp_path):
    steps_seen = []
    window.controller.stepsArrived.connect(lambda batch: steps_seen.extend(r.step for r in batch.records))
    with qtbot.waitSignal(window.runEnded, timeout=RUN_TIMEOUT_MS) as ended:
        assert window.start_run(small_config(window))
    assert ended.args == ["completed"]
    assert window.controller.state == IDLE
    assert steps_seen == list(range(1, 7)), "every step reaches the plots, coalesced or not"

    project = window.project
    run = project.runs()[-1]
    assert run.status == "completed" and run.device == "cpu" and run.last_step == 6
    names = {name for _, name, _ in project.metrics(run.id)}
    assert {"loss/total", "batch_coverage", "p_at_1", "coverage"} <= names
    matches = project.matches(run.id)
    assert matches, "the sample gives matches after a few steps with these settings"

    # highlights in the inscription view, one per recorded match
    marks = window.inscriptions.view.model().marks
    shown = [m for ms in marks.values() for m in ms if not m.live]
    assert len(shown) == len(matches)
    assert "CPU" in window.status_device.text() and "CPU" in window.runs.device_label.text()

    # plots and their table twins
    losses = window.plots.losses
    assert losses.series["total"][0] == list(range(1, 7))
    text = losses.csv_text().splitlines()
    assert text[0].startswith("step,") and len(text) == 7
    losses.table_button.setChecked(True)
    assert losses.model.rowCount() == 6
    closeness = window.plots.closeness
    assert any(name.startswith("▶") for name in closeness.series)
    out = tmp_path / "closeness.csv"
    closeness.export(out)
    assert out.read_text(encoding="utf-8").startswith("confidence threshold,")

    # a span explained: top stems with scores, the stem's IPA, the character alignment
    best = max(matches, key=lambda m: m.confidence)
    mark = window.inscriptions.view.select_span(best.inscription_id, best.start, best.end)
    assert isinstance(mark, SpanMark)
    tip = window.selection.explain(mark, brief=True)
    # the stem as the sample shows Hebrew (its scholarly transliteration), not the data's code
    shown_stem = window.model.known_display.show_form(best.best.form)
    assert html.escape(shown_stem) in tip and f"/{html.escape(best.best.ipa)}/" in tip
    assert "alignment with" in tip
    details = window.inscriptions.details
    assert details.table.rowCount() == len(best.alternatives)
    assert "Best character alignment" in details.alignment.text()

    # accept with the keyboard in the matches table, undo, redo
    table = window.matches.table
    assert window.matches.select_match(best.inscription_id, best.start, best.end)
    table.setFocus()
    qtbot.keyClick(table, Qt.Key.Key_A)
    key = (best.inscription_id, best.start, best.end, best.best.form)
    assert project.decisions(run.id) == {key: "accepted"}
    assert window.inscriptions.view.current_mark().decision == "accepted"
    window.acts.undo.trigger()
    assert project.decisions(run.id) == {}
    window.acts.redo.trigger()
    assert project.decisions(run.id) == {key: "accepted"}
    qtbot.keyClick(table, Qt.Key.Key_R)
    assert project.decisions(run.id) == {key: "rejected"}

    # the filter by decision finds it
    window.matches.state.setCurrentIndex(window.matches.state.findData("rejected"))
    assert window.matches.proxy.rowCount() == 1
    window.matches.state.setCurrentIndex(0)

    # double-click jumps to the inscription and selects the span
    window.inscriptions.view.clear_span()
    index = table.currentIndex()
    where = table.visualRect(index).center()
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=where)
    qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert window.inscriptions.view.selected_span == (best.inscription_id, best.start, best.end)

    # export the report and read it back
    report = tmp_path / "report.csv"
    n = window.acts.write_matches(report)
    with open(report, encoding="utf-8-sig", newline="") as f:  # the app writes a BOM by default
        rows = list(csv.DictReader(f))
    assert n == len(rows) == sum(len(m.alternatives) for m in matches)
    decided = [r for r in rows if r["decision"] == "rejected"]
    assert [(r["inscription_id"], int(r["span_start"]), r["stem_code"]) for r in decided] == \
        [(best.inscription_id, best.start, best.best.form)]
    # the stem as the sample shows it (Hebrew in transliteration), the data's code beside it
    assert decided[0]["stem"] == window.model.known_display.show_form(best.best.form)


def test_pause_pin_resume_then_stop_midway(window, qtbot):
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(20)
    applied = []
    window.controller.pinsApplied.connect(applied.append)
    with qtbot.waitSignal(window.controller.stepsArrived, timeout=RUN_TIMEOUT_MS):
        assert window.start_run(small_config(window, steps=400, eval_interval=0))
    qtbot.waitUntil(lambda: len(ticks) > 3, timeout=120_000)  # the event loop keeps turning

    with qtbot.waitSignal(window.controller.stateChanged, timeout=RUN_TIMEOUT_MS,
                          check_params_cb=lambda s: s == PAUSED):
        window.runs.pause_button.click()
    assert window.runs.pause_button.text().endswith("Resume")
    step_at_pause = window.controller.driver.step

    # pin by keyboard in the grid; undo and redo it
    grid = window.pins.grid
    index = grid.cell("l", "l")
    assert index.isValid()
    grid.setCurrentIndex(index)
    grid.setFocus()
    qtbot.keyClick(grid, Qt.Key.Key_Space)
    assert [(p.lost, p.known_ipa) for p in window.project.pins()] == [("l", "l")]
    assert grid.model().data(index, Qt.ItemDataRole.UserRole + 10) is not None
    window.acts.undo.trigger()
    assert window.project.pins() == []
    window.acts.redo.trigger()
    assert [(p.lost, p.known_ipa) for p in window.project.pins()] == [("l", "l")]
    qtbot.wait(300)
    assert window.controller.driver.step == step_at_pause, "a paused run does not move"

    # no "send" step: the pin went to the paused run by itself and is applied on Resume
    with qtbot.waitSignal(window.controller.pinsApplied, timeout=RUN_TIMEOUT_MS):
        window.runs.pause_button.click()  # resume
    assert applied == [1]
    assert [(p.lost, p.known_ipa) for p in window.controller.driver.pins] == [("l", "l")]  # handed over in the run's process

    with qtbot.waitSignal(window.runEnded, timeout=RUN_TIMEOUT_MS) as ended:
        window.runs.stop_button.click()
    assert ended.args == ["stopped"]
    run = window.project.runs()[-1]
    assert run.status == "stopped" and run.last_step < 400
    assert window.runs.start_button.isEnabled()
    before = len(ticks)
    qtbot.waitUntil(lambda: len(ticks) > before + 2, timeout=120_000)
    timer.stop()
