"""The app's one pattern for background work (decipher_gui/background.py): the work runs on its
own thread, and what it reports, returns or raises reaches the GUI thread in order, ended last."""

from __future__ import annotations

import threading

from engine.errors import InputError

from decipher_gui.background import BackgroundJob


def _collect(job: BackgroundJob) -> list:
    seen: list = []
    job.progressed.connect(lambda item: seen.append(("progress", item, threading.get_ident())))
    job.succeeded.connect(lambda result: seen.append(("succeeded", result, threading.get_ident())))
    job.failed.connect(lambda title, message: seen.append(("failed", (title, message), threading.get_ident())))
    job.ended.connect(lambda: seen.append(("ended", None, threading.get_ident())))
    return seen


def test_reports_and_the_result_reach_the_gui_thread_in_order(qtbot):
    threads = []

    def work(report):
        threads.append(threading.get_ident())
        for i in range(3):
            report(i)
        return "done"

    job = BackgroundJob(work, "test-job")
    seen = _collect(job)
    job.start()
    assert job.running
    qtbot.waitUntil(lambda: bool(seen) and seen[-1][0] == "ended", timeout=10_000)
    gui = threading.get_ident()
    assert threads and threads[0] != gui, "the work ran on its own thread"
    assert [(k, v) for k, v, _ in seen] == [("progress", 0), ("progress", 1), ("progress", 2),
                                            ("succeeded", "done"), ("ended", None)]
    assert all(t == gui for _, _, t in seen), "every signal was handled on the GUI thread"
    assert not job.running and job.wait(0)


def test_a_failure_is_one_described_signal_and_the_job_still_ends(qtbot):
    def work(report):
        report("started")
        raise InputError("no column 'text'", path="LOST.csv", line=1)

    job = BackgroundJob(work, "test-job")
    seen = _collect(job)
    job.start()
    qtbot.waitUntil(lambda: bool(seen) and seen[-1][0] == "ended", timeout=10_000)
    kinds = [k for k, _, _ in seen]
    assert kinds == ["progress", "failed", "ended"]
    title, message = seen[1][1]
    assert "LOST.csv" in message and "no column 'text'" in message
