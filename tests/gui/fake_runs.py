"""Fake trainers for runs in the app's child process: module-level, so the child can unpickle them
(``monkeypatch.setattr(worker, "child_build", partial(fake_trainer, steps=5))``)."""

from __future__ import annotations

import time
from functools import partial

from .test_driver import FakeTrainer


def _gate(step_sleep: float, pause_at: int | None, step: int) -> None:
    if step_sleep:
        time.sleep(step_sleep)  # a step that takes a while, so the test can act mid-run
    if pause_at is not None and step == pause_at:
        from decipher_gui.runprocess import current_session

        current_session().pause()  # asked inside the child, just before step ``pause_at + 1``


def fake_trainer(inputs, *, live_interval=None, steps: int = 10, eval_every: int = 5, fail_at: int | None = None,
                 step_sleep: float = 0.0, pause_at: int | None = None) -> FakeTrainer:
    """The run session's ``build``: a FakeTrainer (tests/gui/test_driver.py) made in the child."""
    return FakeTrainer(steps=steps, eval_every=eval_every, fail_at=fail_at,
                       gate=partial(_gate, step_sleep, pause_at))
