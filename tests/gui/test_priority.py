"""The training threads yield the cores to the GUI thread (decipher_gui/priority.py)."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from decipher_gui import priority


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_other_threads_are_lowered_once_and_the_caller_is_not(monkeypatch):
    monkeypatch.setenv("DECIPHER_GUI_RENICE", "1")
    monkeypatch.setattr(priority, "_lowered", set())
    go, ready = threading.Event(), threading.Event()
    tid: list[int] = []

    def worker():
        tid.append(threading.get_native_id())
        ready.set()
        go.wait(10)

    t = threading.Thread(target=worker)
    t.start()
    ready.wait(10)
    try:
        me = threading.get_native_id()
        mine = os.getpriority(os.PRIO_PROCESS, me)
        before = os.getpriority(os.PRIO_PROCESS, tid[0])
        changed = priority.lower_other_threads(step=3)
        assert changed[tid[0]] == before and me not in changed
        assert os.getpriority(os.PRIO_PROCESS, tid[0]) == min(19, before + 3)
        assert os.getpriority(os.PRIO_PROCESS, me) == mine
        assert tid[0] not in priority.lower_other_threads(step=3), "a thread is lowered once"
    finally:
        go.set()
        t.join()


def test_off_unless_asked(monkeypatch):
    monkeypatch.delenv("DECIPHER_GUI_RENICE", raising=False)
    assert priority.lower_other_threads() == {}
