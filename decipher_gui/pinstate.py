"""Which pins a shown reading was computed with (Qt-free), so the app never shows a reading made
without a pin as if it had it (issue 27, item 1).

A run's pin history (engine/project/pins.py ``pin_history``) says which pins were in force
for the steps after each change. A mapping (or evaluation) taken at step ``m`` was trained with
the change of the largest step ``s < m``: a pin recorded at the step a run paused at is in force
from the next step on, so the mapping of the paused step does not have it yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from engine.corpus import PinnedValue

PinKey = tuple[str, str, float, bool]
"""What makes a pin the same pin for the trainer: letter, IPA unit, weight, locked (not the note)."""


def pin_key(p: PinnedValue) -> PinKey:
    return (p.lost, p.known_ipa, float(p.weight), bool(p.locked))


@dataclass(frozen=True)
class PinState:
    """The project's pins against the pins of the reading shown (one run at one step)."""

    run_id: int
    step: int | None
    """The step of the reading shown (None: the run's newest pins)."""
    live: bool
    since: dict[PinKey, int]
    """Each pin of the reading shown: the step after which it has been in force without a break."""
    missing: tuple[PinnedValue, ...]
    """Project pins the reading shown was computed without (new, or with another weight/lock)."""
    extra: tuple[PinnedValue, ...]
    """Pins the reading shown has that the project no longer has (unpinned or changed since)."""
    latest: dict[PinKey, int] | None = None
    """The run's newest pins (each with its since-step), when newer than the reading shown."""
    pending: str = ""
    """For a live run with pins sent but not applied: when they will be ("at its next step", "on Resume")."""

    @property
    def uses(self) -> tuple[PinKey, ...]:
        return tuple(self.since)

    def status(self, pin: PinnedValue) -> str:
        """A few words for the pin list: "from step 36", "not yet in the run", "not in run 3"."""
        key = pin_key(pin)
        if key in self.since:
            return f"in run {self.run_id} from step {self.since[key]}"
        if self.latest and key in self.latest:
            return f"in the run from step {self.latest[key]}; not yet in the readings shown"
        if self.live:
            return "not yet in the run" + (f" ({self.pending})" if self.pending else "")
        return f"not in run {self.run_id}"

    def summary(self) -> str:
        """One line under the pin grid."""
        where = f"at step {self.step}" if self.step is not None else "now"
        n = len(self.since)
        text = f"Run {self.run_id}{' (live)' if self.live else ''} {where}: {n} pin{'s' if n != 1 else ''} in force"
        if self.since:
            steps = sorted(set(self.since.values()))
            text += " from step " + ", ".join(map(str, steps))
        if self.missing:
            k = len(self.missing)
            if self.live:
                text += (f"; {k} pin{'s' if k != 1 else ''} not yet in the run"
                         + (f" ({self.pending})" if self.pending else "") + ": the readings shown are without "
                         + ("them" if k != 1 else "it"))
            else:
                text += f"; {k} pin{'s' if k != 1 else ''} made after this run (its readings are without " \
                        + ("them)" if k != 1 else "it)")
        if self.extra:
            k = len(self.extra)
            text += f"; {k} pin{'s' if k != 1 else ''} no longer in the project still in this reading"
        return text + "."


def pins_at(history: Sequence, step: int | None) -> tuple[int, dict[PinKey, int], tuple[PinnedValue, ...]]:
    """(index of the change in force, each pin's since-step, the pins) for a reading at ``step``.

    ``history``: the run's changes in step order (objects with ``step`` and ``pins``)."""
    if not history:
        return -1, {}, ()
    chosen = 0
    for i, change in enumerate(history):
        if step is None or change.step < step:
            chosen = i
    since: dict[PinKey, int] = {}
    for change in history[:chosen + 1]:
        keys = {pin_key(p) for p in change.pins}
        since = {k: since.get(k, change.step) for k in keys}
    return chosen, since, tuple(history[chosen].pins)


def pin_state(run_id: int, history: Sequence, step: int | None, project_pins: Sequence[PinnedValue], *,
              live: bool = False, pending: str = "") -> PinState:
    """The project's pins against run ``run_id``'s reading at ``step``."""
    chosen, since, used = pins_at(history, step)
    latest = None
    if 0 <= chosen < len(history) - 1:
        latest = pins_at(history, None)[1]
    wanted = {pin_key(p): p for p in project_pins}
    missing = tuple(p for k, p in wanted.items() if k not in since)
    extra = tuple(p for p in used if pin_key(p) not in wanted)
    return PinState(run_id, step, live, since, missing, extra, latest, pending if missing else "")


__all__ = ["PinKey", "PinState", "pin_key", "pin_state", "pins_at"]
