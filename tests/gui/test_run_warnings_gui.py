"""The run's warnings (engine/runs/warnings.py) reach the Run panel from the run's own process and
stay there for the run, not only a flash in the status bar; the next run, or another project, starts
without them."""

from __future__ import annotations

from functools import partial

from decipher_gui import worker

from .conftest import RUN_TIMEOUT_MS, small_config
from .fake_runs import fake_trainer

#: span limits wide enough that every gold row of the sample can be reached: the schedule is the only warning
WIDE = dict(min_span=1, max_span=20, band=20)


def _run(window, qtbot, **settings) -> None:
    with qtbot.waitSignal(window.runEnded, timeout=RUN_TIMEOUT_MS) as ended:
        assert window.start_run(small_config(window, **WIDE, **settings))
    assert ended.args == ["completed"]


def test_a_run_shorter_than_its_schedule_is_warned_in_the_run_panel(window, qtbot, monkeypatch, sample_path):
    monkeypatch.setattr(worker, "child_build", partial(fake_trainer, steps=3, eval_every=0))  # built in the child
    panel = window.runs
    assert panel.run_warnings() == [] and not panel.warnings_note.isVisibleTo(window)

    _run(window, qtbot, steps=3, anneal_steps=6)
    shown = panel.run_warnings()
    assert len(shown) == 1, shown
    assert shown[0].startswith("warning: steps = 3 is shorter than anneal_steps = 6: the annealing stops 50% of the way")
    assert panel.warnings_note.isVisibleTo(window)

    # a run whose settings fit: the warning of the run before is gone
    _run(window, qtbot, steps=6, anneal_steps=6)
    assert panel.run_warnings() == [] and not panel.warnings_note.isVisibleTo(window)

    # opening a project leaves nothing of the runs before on screen, warnings included
    _run(window, qtbot, steps=3, anneal_steps=6)
    assert len(panel.run_warnings()) == 1
    assert window.open_project(sample_path)
    assert panel.run_warnings() == [] and not panel.warnings_note.isVisibleTo(window)
