"""Measuring how responsive the window stays: a QTimer ticking every few milliseconds on the GUI
thread records when it actually fires; the longest gap between ticks is how long the event loop
was blocked (a click would have waited that long). With ``threads=True`` each tick also reads
every thread's scheduler counters (Linux /proc schedstat), so a gap can be split into the GUI
thread's own CPU work, its wait for a core, and time it slept (e.g. on the GIL) while which
thread of the process ran."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, Qt, QTimer


@dataclass(frozen=True)
class GapSplit:
    """Where one gap's time went, in seconds (from the kernel's per-thread counters)."""

    gui_cpu: float
    """The GUI thread ran (handlers, painting, Python or C++)."""
    gui_wait: float
    """The GUI thread was runnable but waited for a core (the scheduler's latency)."""
    others_cpu: dict[str, float]
    """CPU time of the process's other threads during the gap, by thread name."""

    def slept(self, gap: float) -> float:
        """Neither running nor runnable: waiting for the timer, the GIL or a lock."""
        return max(0.0, gap - self.gui_cpu - self.gui_wait)


@dataclass
class GapReport:
    ticks: int
    duration: float
    gaps: list[tuple[float, float]] = field(default_factory=list)  # (start, length) in seconds
    splits: list[GapSplit] | None = None  # one per gap, with threads=True

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


class _ThreadCounters:
    """Open schedstat files of this process's threads; ``read()`` gives (cpu_ns, wait_ns) each.
    The GUI thread (the caller of the constructor) comes first; ``refresh()`` adds threads started
    since (their counters start at their first read, so a new thread's earlier CPU is not counted
    in a gap)."""

    def __init__(self):
        self.last: list[tuple[int, int]] = []
        self.names: list[str] = ["GUI"]
        self.fds: list[int] = [os.open("/proc/thread-self/schedstat", os.O_RDONLY)]
        self.tids: set[str] = {os.path.basename(os.readlink("/proc/thread-self"))}
        self.refresh()

    def refresh(self) -> None:
        for tid in sorted(set(os.listdir("/proc/self/task")) - self.tids):
            self.tids.add(tid)
            try:
                with open(f"/proc/self/task/{tid}/comm", encoding="utf-8") as f:
                    name = f.read().strip()
                self.fds.append(os.open(f"/proc/self/task/{tid}/schedstat", os.O_RDONLY))
                self.names.append(f"{name} ({tid})")
            except OSError:  # the thread ended meanwhile
                continue

    def read(self) -> tuple[tuple[int, int], ...]:
        out = []
        for i, fd in enumerate(self.fds):
            try:
                cpu, wait, _ = os.pread(fd, 64, 0).split()
                out.append((int(cpu), int(wait)))
            except (OSError, ValueError):  # an ended thread: its last counters stand
                out.append(self.last[i] if i < len(self.last) else (0, 0))
        self.last = out
        return tuple(out)

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds = []


class EventLoopProbe(QObject):
    """Start it, let the app work, stop it: ``report()`` gives every gap between ticks."""

    def __init__(self, interval_ms: int = 5, parent=None, *, threads: bool = False):
        super().__init__(parent)
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)
        self.times: list[float] = []
        self.counters: list[tuple[tuple[int, int], ...]] = []
        self.threads = threads and os.path.exists("/proc/thread-self/schedstat")
        self._stat: _ThreadCounters | None = None
        self.t0 = 0.0

    def start(self) -> None:
        """Call on the GUI thread; with ``threads``, the threads that exist now are followed."""
        self.times, self.counters = [], []
        if self.threads:
            self._stat = _ThreadCounters()
        self.t0 = time.perf_counter()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        if self._stat is not None:
            self._stat.close()

    def _tick(self) -> None:
        self.times.append(time.perf_counter())
        if self._stat is not None:
            if len(self.times) % 50 == 0:  # threads started since (the run's reader thread)
                self._stat.refresh()
            self.counters.append(self._stat.read())

    def report(self) -> GapReport:
        ts = self.times
        gaps = [(a - self.t0, b - a) for a, b in zip(ts, ts[1:])]
        splits = None
        if self._stat is not None and len(self.counters) == len(ts):
            names = self._stat.names
            splits = []
            for a, b in zip(self.counters, self.counters[1:]):
                others = {names[i]: (b[i][0] - a[i][0]) / 1e9 for i in range(1, len(a))
                          if b[i][0] - a[i][0] > 0}
                splits.append(GapSplit((b[0][0] - a[0][0]) / 1e9, (b[0][1] - a[0][1]) / 1e9, others))
        return GapReport(len(ts), (ts[-1] - self.t0) if ts else 0.0, gaps, splits)
