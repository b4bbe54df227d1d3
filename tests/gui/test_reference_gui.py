"""The Run panel while a run's reference run trains (setting reference_null; engine/training/reference.py):
the run's own steps are done, so the bar says what it waits for instead of sitting at its last step."""

from __future__ import annotations


def test_the_run_panel_says_the_reference_run_is_training_and_forgets_it_at_the_end(window, qtbot):
    from decipher_gui.panels.runs import REFERENCE_PHASE
    from decipher_gui.worker import IDLE

    runs = window.runs
    runs.set_progress(3000, 3000)
    window.live._on_message("reference run: the same settings against invented words with the known list's "
                            "sounds (600 stems, 3000 steps; setting reference_null)")
    assert runs.progress.format() == REFERENCE_PHASE and runs.progress.value() == runs.progress.maximum() == 1
    assert runs.state_label.text() == "Running: the run's steps are done; its reference run is training"
    assert "reference_null = off" in runs.progress.toolTip()
    assert window.statusBar().currentMessage().startswith("reference run:")
    runs.set_state(IDLE, "last run completed")
    assert runs.progress.format() == "step %v of %m" and runs.progress.toolTip() == ""
    assert runs.state_label.text() == "Idle: last run completed"
    # any other message leaves the bar alone
    runs.set_progress(10, 20)
    window.live._on_message("note: something else")
    assert runs.progress.format() == "step %v of %m" and runs.progress.value() == 10
