"""When a process, and the run it records, counts as alive: the clock, ``pid_alive``, the code
version stamped on runs, and the staleness test that marks dead runs "interrupted"."""

from __future__ import annotations

import functools
import math
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Sequence

from engine import __version__

#: A run still "running" whose process lives on this host is taken for dead only when its
#: heartbeat is older than this (guards against a reused pid); seconds.
STALE_SAME_HOST = 3600.0
#: A run "running" on another host (a shared folder) is taken for dead after this many seconds
#: without a heartbeat.
STALE_OTHER_HOST = 600.0



def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def now_iso() -> str:
    """UTC time as ISO 8601 with milliseconds, e.g. ``2024-05-01T12:00:00.000+00:00``."""
    return utc_now().isoformat(timespec="milliseconds")


def _parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)



def pid_alive(pid: int | None) -> bool:
    """Whether a process with this id runs on this host (zombies count as dead)."""
    if pid is None or pid <= 0:
        return False
    if sys.platform == "win32":  # os.kill(pid, 0) would send CTRL_C_EVENT there
        import ctypes
        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        try:
            code = ctypes.c_ulong()
            if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
                return False
            return code.value == 259  # STILL_ACTIVE
        finally:
            kernel32.CloseHandle(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    try:  # a killed child not yet reaped by its parent is a zombie: dead for our purposes
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
        return state not in (b"Z", b"X")
    except (OSError, IndexError):
        return True


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """``engine.__version__``, plus ``git describe`` of the source tree when there is one."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        return __version__
    try:
        out = subprocess.run(["git", "-C", str(root), "describe", "--always", "--dirty", "--tags"],
                             capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return __version__
    described = out.stdout.strip()
    return f"{__version__} ({described})" if out.returncode == 0 and described else __version__


def dead_runs(rows: Iterable[Sequence], *, here: str, now: datetime, stale_same_host: float,
              stale_other_host: float) -> list[tuple]:
    """(id, last sign of life, whether its pid is gone) of the running rows taken for dead.

    ``rows`` are (id, host, pid, heartbeat_at, started_at); ``here`` is this host's name and
    ``now`` the project's clock (injected in tests).
    """
    dead = []
    for run_id, host, pid, beat, started in rows:
        last = _parse_time(beat) or _parse_time(started)
        age = (now - last).total_seconds() if last else math.inf
        if host == here:
            gone = not pid_alive(pid) or age > stale_same_host
        else:
            gone = age > stale_other_host
        if gone:
            dead.append((run_id, beat or started, host == here and not pid_alive(pid)))
    return dead
