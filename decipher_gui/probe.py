"""Measuring how responsive the window stays: a QTimer ticking every few milliseconds on the GUI
thread records when it actually fires; the longest gap between ticks is how long the event loop
was blocked (a click would have waited that long)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, Qt, QTimer


@dataclass
class GapReport:
    ticks: int
    duration: float
    gaps: list[tuple[float, float]] = field(default_factory=list)  # (start, length) in seconds

    @property
    def longest(self) -> float:
        return max((g for _, g in self.gaps), default=0.0)

    def percentile(self, q: float) -> float:
        values = sorted(g for _, g in self.gaps)
        if not values:
            return 0.0
        k = min(len(values) - 1, max(0, round(q * (len(values) - 1))))
        return values[k]

    def over(self, limit: float) -> int:
        return sum(1 for _, g in self.gaps if g > limit)

    def longest_between(self, start: float, end: float) -> float:
        return max((g for t, g in self.gaps if start <= t < end), default=0.0)


class EventLoopProbe(QObject):
    """Start it, let the app work, stop it: ``report()`` gives every gap between ticks."""

    def __init__(self, interval_ms: int = 5, parent=None):
        super().__init__(parent)
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)
        self.times: list[float] = []
        self.t0 = 0.0

    def start(self) -> None:
        self.times = []
        self.t0 = time.perf_counter()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def _tick(self) -> None:
        self.times.append(time.perf_counter())

    def report(self) -> GapReport:
        ts = self.times
        gaps = [(a - self.t0, b - a) for a, b in zip(ts, ts[1:])]
        return GapReport(len(ts), (ts[-1] - self.t0) if ts else 0.0, gaps)
