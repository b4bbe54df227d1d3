"""decipher_gui/pinstate.py: which pins a reading at a step was computed with (Qt-free)."""

from __future__ import annotations

from engine.corpus import PinnedValue
from engine.project import PinChange

from decipher_gui.pinstate import pin_key, pin_state, pins_at

SH = PinnedValue("š", "ʃ")
L = PinnedValue("l", "l", 2.0, False)
HISTORY = [PinChange(0, ()), PinChange(36, (SH,)), PinChange(50, (SH, L))]


def test_a_pin_recorded_at_a_step_is_in_the_readings_after_it():
    assert pins_at(HISTORY, 36)[2] == (), "the mapping of the paused step was trained without it"
    assert pins_at(HISTORY, 37)[2] == (SH,)
    _, since, used = pins_at(HISTORY, 80)
    assert used == (SH, L) and since == {pin_key(SH): 36, pin_key(L): 50}
    assert pins_at(HISTORY, None)[2] == (SH, L), "no step: the run's newest pins"


def test_the_state_names_what_the_reading_lacks_and_what_it_still_has():
    live = pin_state(3, HISTORY, 36, [SH], live=True, pending="")
    assert live.missing == (SH,) and live.status(SH) == "in the run from step 36; not yet in the readings shown"
    assert "1 pin not yet in the run" in live.summary()
    queued = pin_state(3, HISTORY[:1], 10, [SH], live=True, pending="used from this step on when you Resume")
    assert queued.status(SH) == "not yet in the run (used from this step on when you Resume)"
    stored = pin_state(3, HISTORY, 60, [SH, PinnedValue("l", "l", 1.0, False)])
    # a weight changed after the run is another pin: the run's reading lacks it and still has the old one
    assert [p.weight for p in stored.missing] == [1.0] and stored.extra == (L,)
    assert stored.status(SH) == "in run 3 from step 36" and stored.status(stored.missing[0]) == "not in run 3"
    assert pin_state(3, HISTORY, 60, [SH, L]).summary() == "Run 3 at step 60: 2 pins in force from step 36, 50."
