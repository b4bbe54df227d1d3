"""The GUI thread's short scheduling slice (decipher_gui/latency.py): the kernel takes it where it
can (Linux 6.12+), threads and processes started afterwards keep the default, the setting is
range-checked, and the app asks for it at start-up."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from decipher_gui import latency


def _custom_slices() -> bool:
    """Whether this system takes a thread's own slice: Linux 6.12+ on an architecture we know."""
    import platform
    import re

    m = re.match(r"(\d+)\.(\d+)", platform.release())
    return (sys.platform.startswith("linux") and platform.machine() in latency._SCHED_SETATTR
            and m is not None and (int(m[1]), int(m[2])) >= (6, 12))


def _in_a_thread(fn):
    """Run ``fn`` on a fresh thread (the slice is per thread: the test runner's stays as it is)."""
    out: list = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join(60)
    return out[0]


def test_short_slice_for_the_calling_thread_only():
    def probe():
        default = latency.current_slice_ns()
        took = latency.request_short_slice(200)
        mine = latency.current_slice_ns()
        started = _in_a_thread(latency.current_slice_ns)
        child = subprocess.run([sys.executable, "-c", "print(open('/proc/self/sched').read())"],
                               capture_output=True, text=True, timeout=60).stdout
        child_slice = next((int(line.split(":")[1]) for line in child.splitlines() if line.startswith("se.slice")),
                           None)
        return default, took, mine, started, child_slice

    default, took, mine, started, child_slice = _in_a_thread(probe)
    if not _custom_slices():
        pytest.skip(f"this kernel keeps its own slices (took={took}, slice {mine} ns; custom slices need Linux 6.12+)")
    # on a kernel that takes them, a refusal is a bug here (a wrong struct or syscall number), not a skip
    assert took and mine == 200_000, (took, mine)
    assert default != 200_000
    assert started == default, "a thread started by the GUI thread keeps the kernel's default"
    assert child_slice == default, "so does a process (the run's, a sweep's workers)"


@pytest.mark.parametrize("raw, expected", [("", latency.GUI_SLICE_US), ("abc", latency.GUI_SLICE_US),
                                           ("0", 0), ("-5", 0), ("50", 100), ("300", 300),
                                           ("10000000", 100_000)])
def test_slice_setting_is_range_checked(monkeypatch, raw, expected):
    monkeypatch.setenv("DECIPHER_GUI_SLICE_US", raw)
    assert latency.slice_from_env() == expected


def test_zero_leaves_the_kernels_default():
    assert _in_a_thread(lambda: latency.request_short_slice(0)) is False


def test_the_app_asks_for_it_at_start_up(qapp, monkeypatch):
    from decipher_gui.app import make_application

    asked = []
    monkeypatch.setattr(latency, "request_short_slice", lambda *a: asked.append(threading.get_ident()) or True)
    make_application()
    assert asked == [threading.get_ident()], "once, from the thread that makes the application (the GUI thread)"
