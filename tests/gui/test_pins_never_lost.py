"""Issue 27, item 1: a pin is never lost. Real runs in the app's child process on the sample:
a pin made while the run is paused is applied on Resume and recorded at the paused step, and
the run's later evaluation differs from the same run without it; a pin made while the run trains
is applied at its next step and recorded; until the run has used a pin, the pin grid says so."""

from __future__ import annotations

import csv
import json

import pytest
from PySide6.QtCore import Qt

from engine.corpus import PinnedValue
from engine.project.exporting import export_matches
from engine.project import pin_history, run_summary

from decipher_gui.panels.pins import NotInRunRole
from decipher_gui.worker import PAUSED
from tests.gui.conftest import RUN_TIMEOUT_MS, small_config

pytest.importorskip("torch")

LOST, KNOWN = "l", "l"


def _prob(event, lost: str, known: str) -> float:
    m = event.mapping
    return float(m.probs[m.known.index(known), m.lost.index(lost)])


def _pin_in_grid(window, qtbot) -> None:
    """Pin LOST -> /KNOWN/ the way a user does: Space on the grid's cell."""
    grid = window.pins.grid
    index = grid.cell(LOST, KNOWN)
    assert index.isValid()
    grid.setCurrentIndex(index)
    grid.setFocus()
    qtbot.keyClick(grid, Qt.Key.Key_Space)
    assert [(p.lost, p.known_ipa) for p in window.project.pins()] == [(LOST, KNOWN)]


def _cell_note(window) -> str:
    grid = window.pins.grid
    return grid.model().data(grid.cell(LOST, KNOWN), NotInRunRole)


def _run_to_end(window, qtbot, config, evals: list) -> None:
    c = window.controller
    c.evaluated.connect(evals.append)
    try:
        with qtbot.waitSignal(window.runEnded, timeout=RUN_TIMEOUT_MS) as ended:
            assert window.start_run(config)
        assert ended.args == ["completed"]
    finally:
        c.evaluated.disconnect(evals.append)


def test_pause_pin_resume_uses_and_records_the_pin(window, qtbot):
    c = window.controller
    config = small_config(window, steps=60, anneal_steps=60, eval_interval=0, pin_weight=20.0)
    plain: list = []
    _run_to_end(window, qtbot, config, plain)  # the same run without the pin
    plain_run = window.project.runs()[-1].id

    evals: list = []
    c.evaluated.connect(evals.append)
    with qtbot.waitSignal(c.stepsArrived, timeout=RUN_TIMEOUT_MS):
        assert window.start_run(config)
    with qtbot.waitSignal(c.stateChanged, timeout=RUN_TIMEOUT_MS, check_params_cb=lambda s: s == PAUSED):
        window.runs.pause_button.click()
    paused_at = c.driver.step
    assert 0 < paused_at < 60
    run_id = c.run_id

    _pin_in_grid(window, qtbot)
    qtbot.wait(300)
    assert c.driver.step == paused_at, "a paused run does not move"
    # until the run has the pin, the window does not show its reading as if it had it
    assert "not yet in the run" in _cell_note(window)
    assert "not yet in the run" in window.pins.run_pins.text()
    assert pin_history(window.project, run_id)[-1].pins == (), "nothing is recorded before the run takes it"

    with qtbot.waitSignal(c.pinsInForce, timeout=RUN_TIMEOUT_MS) as applied:
        window.runs.pause_button.click()  # Resume
    assert applied.args[0].step == paused_at
    with qtbot.waitSignal(window.runEnded, timeout=RUN_TIMEOUT_MS) as ended:
        pass
    assert ended.args == ["completed"]

    pin = window.project.pins()[0]
    history = pin_history(window.project, run_id)
    assert [(h.step, h.pins) for h in history] == [(0, ()), (paused_at, (pin,))]
    assert [(h.step, h.pins) for h in pin_history(window.project, plain_run)] == [(0, ())]
    summary = run_summary(window.project, run_id)  # what `decipher project runs --json` prints
    assert json.loads(json.dumps(summary))["pins"][1]["step"] == paused_at
    assert summary["pins"][1]["pins"][0]["lost"] == LOST

    # the run's match report says which pins it used and from which step
    report = window.project.path.with_name("report.csv")
    export_matches(window.project, report, run_id=run_id)
    with open(report, encoding="utf-8", newline="") as f:
        assert {r["pins"] for r in csv.DictReader(f)} == {f"from step 0: none; from step {paused_at}: {LOST} → /{KNOWN}/"}

    # the later evaluation differs from the same run without the pin: the pinned value is learned
    assert evals[-1].step == plain[-1].step == 60
    assert _prob(evals[-1], LOST, KNOWN) > _prob(plain[-1], LOST, KNOWN) + 0.05

    # the final reading has the pin: no mark; the Runs table says from which step
    assert _cell_note(window) == ""
    assert "not yet" not in window.pins.run_pins.text()
    row = window.runs._run_ids.index(run_id)
    assert window.runs.history.item(row, window.runs.PINS_COLUMN).text() == f"0 · 1 from {paused_at}"
    assert f"from step {paused_at}: {LOST} → /{KNOWN}/" in window.runs.history.item(row, window.runs.PINS_COLUMN).toolTip()

    # a pin made after the run: its matches and its grid say they are without it
    assert not window.matches.pin_note.isVisibleTo(window.matches)
    window.toggle_pin("k", "k")
    note = window.matches.pin_note.text()
    assert window.matches.pin_note.isVisibleTo(window.matches)
    assert note.startswith("These matches (step 60) were computed without k → /k/")
    assert "not in run" in window.pins.grid.model().data(window.pins.grid.cell("k", "k"), NotInRunRole)


def test_a_pin_made_while_the_run_trains_goes_in_at_the_next_step(window, qtbot):
    c = window.controller
    config = small_config(window, steps=100_000, anneal_steps=60, eval_interval=0)
    with qtbot.waitSignal(c.stepsArrived, timeout=RUN_TIMEOUT_MS):
        assert window.start_run(config)
    run_id = c.run_id
    before = c.last_step
    with qtbot.waitSignal(c.pinsInForce, timeout=RUN_TIMEOUT_MS) as applied:
        window.set_pin(PinnedValue(LOST, KNOWN, 2.0, True, "from a bilingual"))
        assert c.pins_pending
    change = applied.args[0]
    assert change.step >= before and not c.pins_pending
    history = pin_history(window.project, run_id)
    assert [(h.step, [(p.lost, p.known_ipa, p.weight) for p in h.pins]) for h in history] == \
        [(0, []), (change.step, [(LOST, KNOWN, 2.0)])]
    # the grid marks the pin until a reading from after the change is shown
    qtbot.waitUntil(lambda: window.state.live_step > change.step, timeout=RUN_TIMEOUT_MS)
    qtbot.waitUntil(lambda: _cell_note(window) == "", timeout=RUN_TIMEOUT_MS)

    # unpinning during the run is a change too, recorded at its step
    with qtbot.waitSignal(c.pinsInForce, timeout=RUN_TIMEOUT_MS) as removed:
        window.toggle_pin(LOST, KNOWN)
    assert removed.args[0].pins == ()
    with qtbot.waitSignal(window.runEnded, timeout=RUN_TIMEOUT_MS):
        window.runs.stop_button.click()
    steps = [h.step for h in pin_history(window.project, run_id)]
    assert steps == [0, change.step, removed.args[0].step] and removed.args[0].step >= change.step
