"""The Run panel's time estimate before Start (issue 51, item 8; engine/runs/estimate.py)."""

from __future__ import annotations


def test_the_run_panel_says_how_long_a_run_takes_before_start(window, qtbot, tmp_path, monkeypatch):
    """Issue 51, item 8: the time before Start, from this machine's step times, or unknown."""
    from engine.runs.estimate import RunShape, record_step_time

    path = tmp_path / "steps.jsonl"
    monkeypatch.setenv("DECIPHER_STEP_TIMES", str(path))
    runs = window.runs
    runs.update_estimate()
    assert runs.time_note.text().startswith("Time on the CPU: unknown until the first steps")
    config = runs.form.config()
    chars = sum(len(i.units) for i in window.model.inscriptions)
    stems = len(window.model.stems)
    assert stems > 0 and chars > 0
    record_step_time(RunShape("letters", "cpu", min(config.chars_per_batch, chars), stems, config.max_span), 0.5, 20,
                     path)
    runs.update_estimate()
    steps = config.steps
    assert runs.time_note.text().startswith("Time on the CPU: about ") and f"for {steps:,} steps" in \
        runs.time_note.text()
    # more steps in the form: a longer time, said at once
    runs.form.set_config(config.replace(steps=steps * 4))
    runs.check_span_limits()
    assert f"for {steps * 4:,} steps" in runs.time_note.text()
