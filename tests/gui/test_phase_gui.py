"""The Run panel says what a step trained on when it is not the whole model on the text: the pseudo-words of a
text with few dividers (setting words_first) and a syllabary's onsets alone (setting onsets_first)."""

from __future__ import annotations

import os
from pathlib import Path

from decipher_gui.driver import StepBatch, StepRecord
from decipher_gui.worker import IDLE


def _batch(step: int, phase: str) -> StepBatch:
    record = StepRecord(step, {"total": 1.25}, 0.5, 0.5, 1.0, 2.0, 0, phase)
    return StepBatch((record,), 3000, ())


def test_the_run_panel_says_which_phase_a_step_trained(window, tmp_path):
    window.state.live_run = 7
    window.live._on_steps(_batch(300, "pseudo-words, onsets only"))
    line = window.runs.state_label.text()
    assert "step 300 of 3000 (pseudo-words, onsets only), loss 1.250" in line
    assert window.runs.progress.value() == 300
    assert "setting words_first" in window.runs.state_label.toolTip()
    window.resize(1400, 900)
    shot = Path(os.environ.get("DECIPHER_SCREENSHOTS", tmp_path)) / "run-panel-word-phase.png"
    window.grab().save(str(shot))
    assert shot.stat().st_size > 0
    window.live._on_steps(_batch(2000, ""))            # the whole model on the text: nothing added
    assert "step 2000 of 3000, loss 1.250" in window.runs.state_label.text()
    assert window.runs.state_label.toolTip() == ""
    window.live._on_steps(_batch(10, "pseudo-words"))   # a run stopped in its word phase ...
    assert window.runs.state_label.toolTip()
    window.runs.set_state(IDLE, "last run stopped")      # ... leaves no explanation behind
    assert window.runs.state_label.toolTip() == ""
