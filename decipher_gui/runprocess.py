"""A GUI run in a child process (no Qt here): the child trains the engine's RunSession, records it
in the project and streams the driver's events back over a pipe; the app keeps only a handle.

Why a process: the engine's Python loops hold the GIL, so a run on a thread of the app's process
froze the window for up to a second whenever other programs kept the cores busy (docs/
benchmarks.md, "GUI responsiveness"). In a child nothing is shared but two pipes and the project
file (SQLite: the child writes through its own connection, as a sweep worker does).

    handle = RunProcess(RunRequest(project_path, ProjectRunSpec(config, corpus_id, language_id, pins)))
    handle.start()                           # spawns the child (any thread)
    handle.pause(); handle.send_pins(pins)   # commands, applied by the child at step boundaries
    for kind, payload in handle.events():    # blocks (the GIL released) until the child ends
        ...                                  # the kinds of decipher_gui/driver.py

The child assembles its run with the engine's ``assemble_run`` (engine/project/runner.py), the
code ``decipher run --project`` uses: the project read, the recorder and the checkpoint path are
the same for a run from either front end; the child adds only its bridge to the app.

If the child dies without saying how the run ended (killed, out of memory), :meth:`events` marks
the run failed in the project and ends with an ``("error", RunFailure)`` that says so.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from engine.corpus import PinnedValue
from engine.project import ProjectRunSpec, assemble_run
from engine.runs.session import RunFailure, RunSession, build_trainer, describe_failure
from engine.runs.workers import PINNED_ENV, nice_from_env

from decipher_gui.driver import RunDriver


def _run_nice() -> int:
    """DECIPHER_GUI_RUN_NICE (0..19), else 0."""
    return nice_from_env("DECIPHER_GUI_RUN_NICE", 0)


#: How much lower the run's process is scheduled than the app (DECIPHER_GUI_RUN_NICE). 0 by
#: default, i.e. ahead of sweep workers (niceness 10), so the run a user watches moves first.
#: Measured with two busy processes (docs/benchmarks.md, "GUI responsiveness"): niceness 5 did not
#: shorten the window's gaps (longest 230 vs 188 ms, medians of 3) and made the run 2x slower; the
#: window uses ~3 % of a core and waits on the scheduler's latency, not on the run's share.
RUN_NICE = _run_nice()


@dataclass(frozen=True)
class RunRequest:
    """What the child needs to run and record one run; picklable."""

    project: Path
    spec: ProjectRunSpec
    """Which run (settings, corpus, known language, pins, resume): the child reads the rest from
    the project, as ``decipher run --project`` does."""
    min_interval: float = 0.25
    """Seconds between step batches sent to the app."""
    live_interval: float | None = 0.25
    """Seconds between live decodings of the current batch (the inscription view's highlights)."""
    build: Callable[..., Any] | None = None
    """Makes the trainer (a module-level function, so it pickles); None: engine's build_trainer."""
    nice: int = RUN_NICE


@dataclass(frozen=True)
class ControlMessage:
    """From the app to the child: ``pause``, ``resume``, ``stop``, ``abort`` or ``pins``."""

    name: str
    pins: tuple[PinnedValue, ...] = ()


# ---------------------------------------------------------------------------------------------
# the child


_session: RunSession | None = None


def current_session() -> RunSession | None:
    """The session this child process runs (None in the app's process); for tests' fake trainers."""
    return _session


def _obey(session: RunSession, commands) -> None:
    """The child's command thread: apply each command; a closed pipe means the app is gone."""
    while True:
        try:
            command: ControlMessage = commands.recv()
        except (EOFError, OSError):
            session.abort("stopped: the app closed")  # a checkpoint is written, the run marked stopped
            return
        if command.name == "pins":
            session.send_pins(command.pins)
        elif command.name in ("pause", "resume", "stop", "abort"):
            getattr(session, command.name)()


def _own_session() -> None:
    """Leave the app's session. Linux (with autogroup scheduling) shares the CPU between sessions
    first, then between the processes of one session: in the app's session the run would take
    the window's turns on a busy machine; in its own it takes its own. Measured with two busy
    processes in the app's session (docs/benchmarks.md, "GUI responsiveness"): at load average
    15-20 the run reached its first step in 19-25 s instead of 38-60 s; at 9-12 no difference, and
    the window's gaps no longer either way. The app's end still reaches the run: the command pipe
    closes (see :func:`_obey`), and Ctrl-C was the app's to handle anyway."""
    if hasattr(os, "setsid"):
        try:
            os.setsid()
        except OSError:  # already a session leader
            pass


def child_main(request: RunRequest, events, commands) -> None:
    """The child process: one run session, recorded in the project, its events sent to ``events``."""
    global _session
    from engine.project import Project

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in a terminal is the app's to handle
    _own_session()
    if request.nice and hasattr(os, "nice"):
        try:
            os.nice(request.nice)  # before any other thread exists: they all inherit it
        except OSError:
            pass

    def emit(kind: str, payload: Any) -> None:
        events.send((kind, payload))

    try:
        # the child's own connection to the project file (as a sweep worker's); closed when the run ends
        with Project.open(request.project) as project:
            # critical=False: a write the project refuses becomes a message, and the run goes on
            run = assemble_run(project, request.spec, critical=False, live_interval=request.live_interval,
                               build=request.build or build_trainer)
            session = _session = run.session
            # SIGTERM (e.g. the app's interpreter ending its daemon children): stop with a checkpoint
            signal.signal(signal.SIGTERM,
                          lambda signum, frame: session.abort("stopped: the app ended the run (SIGTERM)"))
            threading.Thread(target=_obey, args=(session, commands), name="decipher-run-commands",
                             daemon=True).start()
            RunDriver(session, min_interval=request.min_interval, run_id=lambda: run.recorder.run_id).run(emit)
    except BaseException as exc:  # noqa: BLE001 — anything before the session started: tell the app
        try:
            emit("error", describe_failure(exc))
        except (OSError, ValueError):
            pass
    finally:
        events.close()
    # Everything is recorded and committed (the project's connection is closed) and the app was
    # told: leave now. The interpreter's own teardown with torch and numba loaded took ~5 s here,
    # all of it time in which the app still showed the run as active.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


# ---------------------------------------------------------------------------------------------
# the app's handle


def _ended_how(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"was killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"was killed by signal {-exitcode}"
    return f"ended with exit status {exitcode}"


class RunProcess:
    """The app's handle of a run in a child process. The command methods are safe from any
    thread; :meth:`start` and :meth:`events` belong to one thread (the app's reader thread)."""

    def __init__(self, request: RunRequest):
        self.request = request
        ctx = multiprocessing.get_context("spawn")  # a fresh interpreter: no Qt, no inherited locks
        self._events, self._child_events = ctx.Pipe(duplex=False)
        self._child_commands, self._commands = ctx.Pipe(duplex=False)
        self.process = ctx.Process(target=child_main, args=(request, self._child_events, self._child_commands),
                                   name="decipher-run", daemon=True)
        self._lock = threading.Lock()
        self.run_id: int | None = None
        self.step = 0
        """The last step the child reported."""
        self.pins: tuple[PinnedValue, ...] | None = None
        """The pins the child last handed to its trainer (None: still the ones it started with)."""
        self.pins_step: int | None = None
        """The step after which :attr:`pins` are in force (None: no change yet)."""
        self.ended = False
        """Whether the child said how the run ended (finished or error)."""

    @property
    def pid(self) -> int | None:
        return self.process.pid

    # ---- commands (any thread) ---------------------------------------------------------------

    def _send(self, command: ControlMessage) -> None:
        with self._lock:
            try:
                self._commands.send(command)  # buffered by the pipe until the child reads it
            except (OSError, ValueError):  # the child is gone (or the handle closed): nothing to tell
                pass

    def pause(self) -> None:
        self._send(ControlMessage("pause"))

    def resume(self) -> None:
        self._send(ControlMessage("resume"))

    def stop(self) -> None:
        """Finish after the current step: one last evaluation, a checkpoint, status "stopped"."""
        self._send(ControlMessage("stop"))

    def abort(self) -> None:
        """End after the current step without the final evaluation (the window is closing)."""
        self._send(ControlMessage("abort"))

    def send_pins(self, pins: Sequence[PinnedValue]) -> None:
        self._send(ControlMessage("pins", tuple(pins)))

    # ---- the reader thread ---------------------------------------------------------------------

    def start(self) -> None:
        """Spawn the child with torch/numba/BLAS pinned to one thread each (set before it imports
        them: the engine is overhead-bound, and the window keeps a core)."""
        saved = {k: os.environ.get(k) for k in PINNED_ENV}
        os.environ.update(PINNED_ENV)
        try:
            self.process.start()
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
            # the child holds its own copies; closing ours lets a dead child read as end of file
            self._child_events.close()
            self._child_commands.close()

    def events(self) -> Iterator[tuple[str, Any]]:
        """The child's events until it ends; then, if it died without saying how the run ended,
        one ``("error", RunFailure)`` after the run is marked failed in the project."""
        while True:
            try:
                kind, payload = self._events.recv()  # blocks in the kernel, the GIL released
            except (EOFError, OSError):
                break
            self._note(kind, payload)
            yield kind, payload
        self.process.join()
        self._close()
        if not self.ended:
            failure = self._crash()
            self.ended = True
            yield "error", failure

    def _note(self, kind: str, payload: Any) -> None:
        if kind == "started":
            self.run_id = payload[1]
        elif kind == "steps":
            self.step = payload.last.step
        elif kind in ("eval", "finished"):
            self.step = payload.step
        elif kind == "paused":
            self.step = int(payload)
        elif kind == "pins_applied":
            self.pins = tuple(payload.pins)
            self.pins_step = int(payload.step)
        if kind in ("finished", "error"):
            self.ended = True

    def _close(self) -> None:
        with self._lock:
            self._commands.close()
        self._events.close()

    def _crash(self) -> RunFailure:
        how = _ended_how(self.process.exitcode)
        where = f" at step {self.step}" if self.step else ""
        message = (f"The training process (pid {self.pid}) {how}{where}, before the run could end (the system "
                   "ends a process this way when memory runs out, or another program did).")
        if self.run_id is not None:
            recorded = self._mark_failed(f"the training process {how}{where}")
            message += (f" Run {self.run_id} is marked failed; what it recorded and its last checkpoint are kept."
                        if recorded else f" Run {self.run_id} could not be marked failed ({recorded.reason}).")
        return RunFailure("crash", "The run's process ended unexpectedly", message, "", self.step or None)

    def _mark_failed(self, text: str) -> "_Marked":
        from engine.errors import ProjectError
        from engine.project import Project

        try:
            with Project.open(self.request.project) as project:
                if project.run(self.run_id).status in ("running", "interrupted"):
                    project.finish_run(self.run_id, "failed", error=text)
        except (ProjectError, OSError) as e:
            return _Marked(False, str(e))
        return _Marked(True)


@dataclass(frozen=True)
class _Marked:
    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


__all__ = ["RunRequest", "RunProcess", "ControlMessage", "child_main", "current_session", "RUN_NICE"]
