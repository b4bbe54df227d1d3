"""Optionally lower the training threads' scheduling priority below the GUI thread's (Linux:
per-thread nice), for a machine whose cores are shared with other programs.

Off by default (``DECIPHER_GUI_RENICE=1`` turns it on): measured with two busy processes on a
loaded machine it shortened the window's longest pauses only a little (p99 gap ~270 vs ~330 ms)
while the run took ~3× longer, because the training thread also holds the GIL the GUI thread
needs, so starving it delays the GUI too (docs/benchmarks.md, "GUI responsiveness under load")."""

from __future__ import annotations

import os
import threading
from pathlib import Path

#: How much lower (nice steps) the training threads run; 19 is the lowest priority.
NICE_STEP = 10
TASKS = Path("/proc/self/task")


def lower_other_threads(step: int = NICE_STEP, *, force: bool = False) -> dict[int, int]:
    """Lower every thread of this process but the calling (GUI) thread by ``step`` nice levels,
    once per thread; returns {thread id: nice before}. A no-op unless ``DECIPHER_GUI_RENICE=1``
    (or ``force``), and where threads cannot be listed (not Linux)."""
    if not (force or os.environ.get("DECIPHER_GUI_RENICE") == "1") or not hasattr(os, "setpriority") \
            or not TASKS.is_dir():
        return {}
    me = threading.get_native_id()
    changed: dict[int, int] = {}
    for entry in os.listdir(TASKS):
        tid = int(entry)
        if tid == me or tid in _lowered:
            continue
        try:
            old = os.getpriority(os.PRIO_PROCESS, tid)
            os.setpriority(os.PRIO_PROCESS, tid, min(19, old + step))
        except OSError:  # the thread ended meanwhile, or the system refuses: keep going
            continue
        changed[tid] = old
        _lowered.add(tid)
    return changed


#: Threads already lowered (a thread keeps its nice value for its whole life; new ones start
#: from their creator's, i.e. the GUI thread's).
_lowered: set[int] = set()
