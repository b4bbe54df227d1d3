"""The bundle check's watch of the frozen app's processes (packaging/check_bundle.py): it sees the
run's spawned child and multiprocessing's resource tracker, and fails on a second copy of the app,
a run that did not complete, a run that was not in a child, or a process left running."""

from __future__ import annotations

import os
import signal
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging"))

import check_bundle  # noqa: E402
from check_bundle import CheckFailed, check_run_process, run_watched  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the watch reads /proc")

APP = "/opt/decipher-workbench/decipher-gui --screenshot out.png --steps 5"
CHILD = "/opt/decipher-workbench/decipher-gui --multiprocessing-fork tracker_fd=18 pipe_handle=20"
TRACKER = "/opt/decipher-workbench/decipher-gui -B -S -I -c from multiprocessing.resource_tracker import main;main(17)"


def said(status: str = "completed", pid: int | str = 101) -> str:
    return f"decipher-gui: run {status} (5 steps), trained in process {pid} (the app is process 100)\n"


def test_a_run_in_a_spawned_child_passes():
    check_run_process(said(), {101: CHILD, 102: TRACKER})


@pytest.mark.parametrize("output, started, complaint", [
    (said(), {101: CHILD, 102: TRACKER, 103: APP}, "other copies of itself"),
    (said("failed"), {101: CHILD}, "did not complete"),
    ("decipher-gui: wrote out.png\n", {101: CHILD}, "did not complete"),
    (said(pid=100), {101: CHILD}, "not a spawned child"),
    (said(), {}, "not a spawned child"),
    (said(pid="?"), {101: CHILD}, "did not say which process"),       # a ValueError traceback before
    ("decipher-gui: run completed (5 steps)\n", {101: CHILD}, "did not say which process"),
])
def test_what_the_check_refuses(output, started, complaint):
    with pytest.raises(CheckFailed, match=complaint):
        check_run_process(output, started)


# The run's child lives until the watch has seen it (the test then writes the file RELEASE; at most
# 120 s, a hang guard): a child that slept 0.8 s was missed whenever the busy box held the watch,
# which looks every 0.2 s, for a second or so, and the check then failed.
SPAWNING_APP = textwrap.dedent("""
    import multiprocessing, os, sys, time

    def work(release):
        end = time.monotonic() + 120
        while not os.path.exists(release) and time.monotonic() < end:
            time.sleep(0.02)

    if __name__ == "__main__":
        ctx = multiprocessing.get_context("spawn")
        child = ctx.Process(target=work, args=(sys.argv[1],))
        child.start()
        child.join()
        print(f"decipher-gui: run completed (5 steps), trained in process {child.pid} "
              f"(the app is process {os.getpid()})")
        if sys.argv[2:3] == ["leave-one"]:
            orphan = ctx.Process(target=time.sleep, args=(30,), daemon=False)
            orphan.start()
            with open(sys.argv[3], "w") as f:
                f.write(str(orphan.pid))
            os._exit(0)
""")


@pytest.fixture
def spawning_app(tmp_path, monkeypatch):
    """The app's script and its RELEASE file, written once the watch has found the run's child."""
    script, release = tmp_path / "app.py", tmp_path / "release"
    script.write_text(SPAWNING_APP, encoding="utf-8")
    descendants = check_bundle._descendants

    def seen_then_released(root, table):
        found = descendants(root, table)
        if any("--multiprocessing-fork" in line for line in found.values()):
            release.touch()
        return found

    monkeypatch.setattr(check_bundle, "_descendants", seen_then_released)
    return [sys.executable, script, release]


def test_the_watch_sees_a_real_spawned_child_and_its_resource_tracker(spawning_app, tmp_path):
    proc, started = run_watched(spawning_app, None, tmp_path, timeout=300, linger_s=10)
    assert any("--multiprocessing-fork" in line for line in started.values()), started
    check_run_process(proc.stdout, started)


def test_a_process_left_running_fails_the_check(spawning_app, tmp_path):
    pid_file = tmp_path / "orphan.pid"
    try:
        with pytest.raises(CheckFailed, match="still running"):
            run_watched([*spawning_app, "leave-one", pid_file], None, tmp_path, timeout=300, linger_s=1)
    finally:
        if pid_file.exists():
            try:
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
            except ProcessLookupError:
                pass
