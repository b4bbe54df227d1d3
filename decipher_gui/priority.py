"""Keep the window responsive on a busy machine: the threads that train (the run's worker and
torch's compute pool) get a lower scheduling priority than the GUI thread, so when the cores are
shared with other programs the scheduler runs the GUI thread first (Linux: per-thread nice)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

#: How much lower (nice steps) the training threads run; 19 is the lowest priority.
NICE_STEP = 10
TASKS = Path("/proc/self/task")


def lower_other_threads(step: int = NICE_STEP) -> dict[int, int]:
    """Lower every thread of this process but the calling (GUI) thread by ``step`` nice levels,
    once per thread; returns {thread id: nice before}. A no-op where threads cannot be listed
    (not Linux) or when ``DECIPHER_GUI_NO_RENICE`` is set."""
    if os.environ.get("DECIPHER_GUI_NO_RENICE") or not hasattr(os, "setpriority") or not TASKS.is_dir():
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
