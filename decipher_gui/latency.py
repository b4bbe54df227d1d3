"""Scheduling for a window that must answer quickly on a busy machine: the GUI thread asks Linux's
scheduler (EEVDF, kernel 6.12 and later) for a short time slice, which lets it run soon after it
wakes instead of waiting for busy programs' slices to end (docs/benchmarks.md, "GUI responsiveness").

No privileges are needed: a shorter slice does not raise the thread's share of the CPU, only how
soon it gets its turn. Measured: it halved a bare event loop's waits for a core at load average
15-20 but did not shorten the app's longest gap at 9-12. Elsewhere (older kernels, other
systems) nothing changes.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys

#: The slice asked for the GUI thread, in microseconds (the kernel accepts 100-100,000; its
#: default is ~0.75-3 ms). DECIPHER_GUI_SLICE_US overrides it; 0 leaves the kernel's default.
GUI_SLICE_US = 200

_SCHED_SETATTR = {"x86_64": 314, "aarch64": 274, "arm64": 274}
_SCHED_OTHER = 0
_SCHED_FLAG_RESET_ON_FORK = 0x01  # threads and processes started from the GUI thread get the default


class _SchedAttr(ctypes.Structure):
    """struct sched_attr, version 0 (48 bytes): no utilisation clamps."""

    _fields_ = [("size", ctypes.c_uint32), ("sched_policy", ctypes.c_uint32), ("sched_flags", ctypes.c_uint64),
                ("sched_nice", ctypes.c_int32), ("sched_priority", ctypes.c_uint32),
                ("sched_runtime", ctypes.c_uint64), ("sched_deadline", ctypes.c_uint64),
                ("sched_period", ctypes.c_uint64)]


def slice_from_env(default: int = GUI_SLICE_US) -> int:
    raw = os.environ.get("DECIPHER_GUI_SLICE_US", "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        return default
    return 0 if value <= 0 else min(100_000, max(100, value))


def request_short_slice(microseconds: int | None = None) -> bool:
    """Ask for a ``microseconds`` slice for the calling thread (normal policy, its niceness kept);
    threads and processes it starts later (the run's reader, the run's process, sweep workers)
    keep the kernel's default. True if the kernel took it; False where it cannot (not Linux, an
    unknown architecture, refused)."""
    us = slice_from_env() if microseconds is None else microseconds
    number = _SCHED_SETATTR.get(platform.machine())
    if us <= 0 or not sys.platform.startswith("linux") or number is None:
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        attr = _SchedAttr(size=ctypes.sizeof(_SchedAttr), sched_policy=_SCHED_OTHER,
                          sched_flags=_SCHED_FLAG_RESET_ON_FORK, sched_nice=os.getpriority(os.PRIO_PROCESS, 0),
                          sched_runtime=us * 1000)
        return libc.syscall(ctypes.c_long(number), 0, ctypes.byref(attr), 0) == 0
    except (OSError, AttributeError):
        return False


def current_slice_ns() -> int | None:
    """The calling thread's slice as the kernel reports it (Linux /proc), None where unknown."""
    try:
        with open("/proc/thread-self/sched", encoding="ascii") as f:
            for line in f:
                if line.startswith("se.slice"):
                    return int(line.split(":")[1])
    except (OSError, ValueError):
        pass
    return None


__all__ = ["request_short_slice", "current_slice_ns", "slice_from_env", "GUI_SLICE_US"]
