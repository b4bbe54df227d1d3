"""Runs in worker processes: one run item in, one picklable result out, through the run session;
the pools that carry them (local processes by default, a Ray cluster when given).

The unit a pool carries is a *task*: a tuple of run items (a seed group's seeds, a sweep's or a
comparison's runs that may share a batch). :func:`run_seed_group` trains the items that may share a
batch (engine/training/lockstep.py batch_key) as one batch of runs, each still landing in its own
folder / project record as its single run would; any other item runs alone, as it always did.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from engine.errors import DecipherError
from engine.runs.session import RunSink

def nice_from_env(name: str, default: int) -> int:
    """A niceness (0..19) from the environment variable ``name``, else ``default``; one line naming
    the variable when it is not a whole number in range."""
    text = os.environ.get(name, str(default))
    try:
        value = int(text)
    except ValueError:
        raise DecipherError(f"{name} must be a whole number 0..19, got {text!r}") from None
    if not 0 <= value <= 19:
        raise DecipherError(f"{name} must be a whole number 0..19, got {value}")
    return value


def _worker_nice() -> int:
    """DECIPHER_WORKER_NICE (0..19), else 10. The test suite sets 0: niced workers starve behind any
    other busy process, and a test must not take minutes longer because the machine is loaded."""
    return nice_from_env("DECIPHER_WORKER_NICE", 10)


#: Worker processes run at this much lower CPU priority than the app or shell that started them.
WORKER_NICE = _worker_nice()
#: Environment of a worker: one thread each for torch's OpenMP, MKL and numba, so that N workers
#: on N cores do not oversubscribe them (set before torch or numba is imported).
PINNED_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1",
              "OPENBLAS_NUM_THREADS": "1"}
#: Test hook: "<run_dir>|<marker file>" kills the worker (SIGKILL) the first time it starts that
#: run (the marker records that it did), to test that a killed worker's run is redone.
KILL_ENV = "DECIPHER_TEST_KILL_RUN"
RAY_INSTALL = "pip install 'decipher-workbench[cluster]'   (or: pip install 'ray>=2.9')"


@dataclass(frozen=True)
class RunItem:
    """One run of a sweep or a multi-seed run; picklable (it crosses to a worker process or a Ray task)."""

    run_dir: Path
    """Where the run's outputs go (metrics.json, matches.csv, steps.csv, checkpoint.pt)."""
    known: str
    seed: int
    settings: str = ""
    """The grid's settings of this run in words, ``KEY=VALUE`` separated by spaces."""
    inputs: Any = None
    """engine.runs.session.RunInputs (file-based runs)."""
    project: Path | None = None
    """A project file: the run reads its data there and is recorded there as an ordinary run."""
    config: Any = None
    """engine.config.Config of a project run (file-based runs carry it in ``inputs``)."""
    corpus: str | None = None
    language: str | None = None
    sinks: tuple = ()
    """Extra session sinks of this run (picklable), e.g. a comparison's early stop of a settled null
    (engine/closeness/early_stop.py): a sink whose ``completes_run`` is true ended the run on purpose,
    so the run counts as completed, and its ``metrics()`` are added to metrics.json."""


@dataclass(frozen=True)
class RunResult:
    """What a worker hands back for one run item; picklable, no trainer inside."""

    run_dir: Path
    status: str
    """``completed``, ``stopped`` or ``failed``."""
    error: str = ""
    metrics: dict[str, float] = field(default_factory=dict)
    """The last evaluation's metrics (coverage; p_at_K with gold) plus ``objective``."""
    objective: float | None = None
    wall_s: float = 0.0
    steps: int = 0
    device: str = ""
    closeness: tuple[tuple[float, float], ...] = ()
    run_id: int | None = None
    """The run's id in the project (project runs)."""
    pid: int = 0


# ---------------------------------------------------------------------------------------------
# inside the worker


def pin_threads(*, nice: int = WORKER_NICE, target: int | None = None) -> None:
    """Make this process a polite worker: one thread for torch/numba/BLAS, lower CPU priority
    (``nice`` more than now, or, with ``target``, at least that niceness: a LocalPool's parent may
    have lowered it already, as the worker started). Call first thing in a fresh worker process
    (before torch or numba is imported)."""
    os.environ.update(PINNED_ENV)
    if nice and hasattr(os, "nice"):
        try:
            if target is None:
                os.nice(nice)
            elif os.getpriority(os.PRIO_PROCESS, 0) < target:
                os.setpriority(os.PRIO_PROCESS, 0, target)
        except OSError:  # not allowed here (e.g. some containers): priority is a nicety
            pass
    try:
        import torch

        torch.set_num_threads(1)
    except Exception:  # torch missing cannot happen in a working install; the run will say so
        pass


def worker_init(nice: int = WORKER_NICE, parent: int | None = None, target: int | None = None) -> None:
    """Initializer of a local worker process: pinned threads, lower priority (``target``: the niceness
    to reach, see pin_threads), Ctrl-C left to the parent (it marks the runs in flight and ends the
    workers), and an end with the parent (``parent``: its pid, as the parent saw it; a worker that
    starts after its parent died ends)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    end_with_parent(parent)
    pin_threads(nice=nice, target=target)


#: How often a worker looks whether the process that started it is still there (seconds).
PARENT_POLL_S = 0.5


def end_with_parent(parent: int | None = None, poll_s: float = PARENT_POLL_S) -> None:
    """End this worker when its parent dies, even by SIGKILL (which no handler sees): a daemon
    thread polls ``os.getppid()``, which changes when the parent is gone and the worker is
    reparented; the worker then kills itself (its run is not finished, and the parent that would
    record it is gone; the next sweep into the folder redoes it)."""
    import threading
    import time

    if parent is None:
        parent = os.getppid()
    if os.getppid() != parent:  # the parent died while this worker was starting
        os.kill(os.getpid(), signal.SIGKILL)

    def watch() -> None:
        while True:
            time.sleep(poll_s)
            if os.getppid() != parent:
                os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="decipher-parent-watch", daemon=True).start()


def _maybe_die_for_test(item: RunItem) -> None:
    spec = os.environ.get(KILL_ENV)
    if not spec or "|" not in spec:
        return
    target, marker = spec.split("|", 1)
    if Path(target) == Path(item.run_dir) and not Path(marker).exists():
        Path(marker).write_text(str(os.getpid()), encoding="utf-8")
        os.kill(os.getpid(), signal.SIGKILL)


class ObjectiveSink(RunSink):
    """The run's final objective over the whole corpus (engine/training/final_objective.py), as the
    session computed it once at the run's end (``RunOutcome.final_objective``): no second pass."""

    critical = False
    name = "the final objective"

    def __init__(self) -> None:
        self.values: dict[str, float] = {}

    def finishing(self, outcome) -> None:
        if outcome.final_objective is not None:
            self.values = {k: float(v) for k, v in outcome.final_objective.items()}


def _add_to_metrics(run_dir: Path, values: dict[str, Any]) -> None:
    """Add ``values`` to the run's metrics.json (written by the output folder sink)."""
    from engine.io.atomic import write_text

    from engine.io.atomic import refuse_symlinks

    path = refuse_symlinks(Path(run_dir) / "metrics.json", Path(run_dir))
    if not path.exists():
        return
    data = json.loads(path.read_text(encoding="utf-8"))
    data.update(values)
    write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def run_item(item: RunItem, *, sinks: Sequence[Any] = (), log: Callable[[str], None] | None = None) -> RunResult:
    """Train one run item through the run session and describe how it ended. Never raises for a
    failed run (a failure is a result); ``sinks`` are extra session sinks (e.g. a progress bar)."""
    _maybe_die_for_test(item)
    run_dir = Path(item.run_dir)
    objective = ObjectiveSink()
    try:
        if item.project is not None:
            from engine.project.runner import run_in_project

            run_id, outcome = run_in_project(item.project, config=item.config, corpus=item.corpus,
                                             language=item.language, out=run_dir,
                                             sinks=[objective, *item.sinks, *sinks], log=log or (lambda line: None))
        else:
            from engine.runs.outputs import run_in_folder

            outcome, run_id = run_in_folder(item.inputs, run_dir, sinks=[objective, *item.sinks, *sinks]), None
    except BaseException as exc:  # noqa: BLE001 — a failed run is a row of the results, not a crash
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return _failed(item, exc)
    return _result(item, outcome, objective, run_id)


def _result(item: RunItem, outcome, objective: ObjectiveSink, run_id: int | None) -> RunResult:
    """The RunResult of a run that ended (completed or stopped), with metrics.json completed."""
    run_dir = Path(item.run_dir)
    metrics = {k: float(v) for k, v in outcome.metrics.items()}
    value = objective.values.get("objective")
    extra = {"objective": value, "objective_parts": objective.values} if objective.values else {}
    if run_id is not None:
        extra["run_id"] = run_id
    for sink in item.sinks:
        extra.update(getattr(sink, "metrics", dict)())
    if extra:
        _add_to_metrics(run_dir, extra)
    ev = outcome.evaluation
    closeness = tuple((float(a), float(b)) for a, b in (ev.closeness if ev is not None else ()))
    status = outcome.status
    if status == "stopped" and outcome.reason == "stopped" and any(getattr(s, "completes_run", False)
                                                                   for s in item.sinks):
        status = "completed"  # ended on purpose by its own sink (a settled null), not by a user or a signal
    return RunResult(run_dir, status, "", metrics, value, round(outcome.wall_time_s, 3), outcome.step,
                     outcome.device, closeness, run_id, os.getpid())


def _failed(item: RunItem, exc: BaseException) -> RunResult:
    from engine.runs.session import describe_failure

    return RunResult(Path(item.run_dir), "failed", describe_failure(exc).text.splitlines()[0], pid=os.getpid())


def group_key(item: RunItem):
    """Items with equal keys may be trained as one batch (before their data are read: the precise
    test, engine/training/lockstep.py batch_key, is made on their inputs in the worker); None: the
    item runs alone (a resume, a setting a batch cannot do)."""
    from engine.training.lockstep import batch_key, shared_settings, unbatchable

    if item.project is not None:
        if item.config is None or unbatchable(item.config) is not None:
            return None
        return ("project", str(item.project), item.corpus, tuple(sorted(shared_settings(item.config).items())))
    if item.inputs is None:
        return None
    return batch_key(item.inputs)


def run_seed_group(items: Sequence[RunItem], *, budget: int | None = None) -> list[RunResult]:
    """Train the runs of one task: the items that may share a batch (:func:`group_key`) as batches of
    runs (engine/training/lockstep.py; split by the memory the device has free, or ``budget`` bytes),
    any other item alone through :func:`run_item`. Each run writes its folder, metrics.json and
    project record as its single run does. Results in the items' order; never raises for a failed run."""
    results: list[RunResult | None] = [None] * len(items)
    groups: dict = {}
    for i, item in enumerate(items):
        key = group_key(item)
        groups.setdefault(("alone", i) if key is None else key, []).append(i)
    for members in groups.values():
        if len(members) == 1:
            results[members[0]] = run_item(items[members[0]])
            continue
        for i, result in zip(members, run_batch([items[i] for i in members], budget=budget)):
            results[i] = result
    return [r for r in results if r is not None]


def run_batch(items: Sequence[RunItem], *, budget: int | None = None) -> list[RunResult]:
    """Train ``items`` (of one :func:`group_key`) as batches of runs, each under the session its single
    run would have (run_in_folder's or run_in_project's sinks and checkpoint), one batch after another
    (engine/training/lockstep.py plan_batches). A batch of one runs as a single run."""
    from engine.training.lockstep import plan_batches, train_sessions

    for item in items:
        _maybe_die_for_test(item)
    results: list[RunResult | None] = [None] * len(items)
    objectives = [ObjectiveSink() for _ in items]
    project = None
    try:
        if items[0].project is not None:
            from engine.project.runner import ProjectRunSpec, assemble_run
            from engine.project.store import Project
            from engine.runs.outputs import prepare_output_folder

            project = Project.open(items[0].project)
            runs: list = [None] * len(items)
            for i, item in enumerate(items):
                try:
                    out = prepare_output_folder(Path(item.run_dir))
                    spec = ProjectRunSpec(item.config, corpus=None if item.corpus is None else str(item.corpus),
                                          language=None if item.language is None else str(item.language))
                    runs[i] = assemble_run(project, spec, out_dir=out, sinks=[objectives[i], *item.sinks])
                except Exception as exc:  # noqa: BLE001 - a failed run is a result
                    results[i] = _failed(item, exc)
            sessions = [None if r is None else r.session for r in runs]
            run_ids = [lambda r=r: None if r is None else r.recorder.run_id for r in runs]
        else:
            from engine.runs.outputs import folder_session

            sessions = []
            for i, item in enumerate(items):
                try:
                    sessions.append(folder_session(item.inputs, Path(item.run_dir),
                                                   sinks=[objectives[i], *item.sinks]))
                except Exception as exc:  # noqa: BLE001 - a failed run is a result
                    results[i] = _failed(item, exc)
                    sessions.append(None)
            run_ids = [lambda: None for _ in items]
        ready = [i for i, s in enumerate(sessions) if s is not None]
        for batch in plan_batches([sessions[i].inputs for i in ready], budget=budget):
            members = [ready[j] for j in batch]
            if len(members) == 1:
                i = members[0]
                try:
                    outcomes = [sessions[i].run()]
                except Exception as exc:  # noqa: BLE001
                    outcomes = [exc]
            else:
                outcomes = train_sessions([sessions[i] for i in members])
            for i, outcome in zip(members, outcomes):
                results[i] = (_failed(items[i], outcome) if isinstance(outcome, BaseException)
                              else _result(items[i], outcome, objectives[i], run_ids[i]()))
    finally:
        if project is not None:
            project.close()
    return [r for r in results if r is not None]


def run_task(items: tuple[RunItem, ...]) -> list[RunResult]:
    """What a pool carries (a module-level function, so processes and Ray can pickle it)."""
    return run_seed_group(items)


# ---------------------------------------------------------------------------------------------
# pools


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)


def check_workers(n: int) -> int:
    if not isinstance(n, int) or n < 1:
        raise DecipherError(f"--workers must be at least 1, got {n}")
    if n > 256:
        raise DecipherError(f"--workers {n} is more than 256; give a number of processes this machine can hold")
    return n


class LocalPool:
    """Worker processes on this machine (spawned: no inherited torch state), pinned and niced."""

    kind = "local"

    def __init__(self, workers: int, *, nice: int = WORKER_NICE):
        self.workers = check_workers(workers)
        self.nice = nice
        self._executor = None
        self._target: int | None = None
        """the workers' niceness: this process's when the pool was made, plus ``nice``"""
        self._lowered: set[int] = set()
        """the workers' pids whose priority this process has lowered"""

    def _make(self):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # spawned children inherit the environment: pin before they import torch/numba
        env = {k: os.environ.get(k) for k in PINNED_ENV}
        os.environ.update(PINNED_ENV)
        self._target = None
        if self.nice and hasattr(os, "getpriority"):
            self._target = min(19, os.getpriority(os.PRIO_PROCESS, 0) + self.nice)
        try:
            return ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=worker_init, initargs=(self.nice, os.getpid(), self._target))
        finally:
            for k, v in env.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def submit(self, task: tuple[RunItem, ...]) -> Future:
        if self._executor is None:
            self._executor = self._make()
        future = self._executor.submit(run_task, task)
        self._lower_new_workers()
        return future

    def _lower_new_workers(self) -> None:
        """Lower each new worker's priority from here, as soon as it is started: a spawned worker
        imports Python, the app's modules and torch (about a second of a core) before its
        initializer can lower its own, and at the parent's priority that start competed with the
        app's window for the cores (benchmarks/gui_responsiveness.py --comparison)."""
        if self._target is None:
            return
        for process in list(getattr(self._executor, "_processes", {}).values()):
            pid = process.pid
            if pid is None or pid in self._lowered:
                continue
            self._lowered.add(pid)
            try:
                if os.getpriority(os.PRIO_PROCESS, pid) < self._target:
                    os.setpriority(os.PRIO_PROCESS, pid, self._target)
            except OSError:  # gone already, or not allowed here: the worker lowers its own
                pass

    def reset(self) -> None:
        """After a worker died the executor is broken: end it; the next submit makes a new one."""
        self.close(kill=True)

    def close(self, *, kill: bool = False) -> None:
        executor, self._executor = self._executor, None
        if executor is None:
            return
        if kill:
            # the executor has no public way to end running workers; terminate them by their ids
            for process in list(getattr(executor, "_processes", {}).values()):
                try:
                    process.terminate()
                except Exception:
                    pass
        executor.shutdown(wait=not kill, cancel_futures=True)


def _ray_probe(address: str, timeout: float = 3.0) -> None:
    """Fail fast, in one line, when nothing listens at a Ray address (ray.init would wait long)."""
    if address in ("auto",):
        return
    rest = address.split("://", 1)[-1]
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit():
        raise DecipherError(f"--ray {address}: give HOST:PORT (e.g. 10.0.0.5:6379 or ray://10.0.0.5:10001), "
                            "'auto', or 'local'")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as e:
        raise DecipherError(f"--ray {address}: no Ray cluster answers there ({e.strerror or e}); "
                            "start one with `ray start --head`, or use --ray local") from None


def import_ray():
    try:
        import ray
    except ImportError:
        raise DecipherError(f"--ray needs the Ray package, which is not installed: {RAY_INSTALL}") from None
    return ray


class RayPool:
    """Each task a Ray task: on a cluster at ``address``, or on one started here (``local``).

    The run folders must be on a filesystem every node sees at the same path (results and
    outputs are written by the workers). Ray's own retries are off: a task whose worker died comes
    back as an error, and the sweep marks and redoes the run as it does for a local worker.
    """

    kind = "ray"

    def __init__(self, address: str, *, workers: int | None = None, gpus_per_run: float = 0.0,
                 init_timeout_s: float = 60.0, started: bool | None = None):
        self.ray = import_ray()
        self.address = address
        self.gpus_per_run = gpus_per_run
        env = {"env_vars": dict(PINNED_ENV)}
        self._ours = False
        if not self.ray.is_initialized():
            if address == "local":
                self.ray.init(num_cpus=workers or default_workers(), include_dashboard=False,
                              runtime_env=env, log_to_driver=False, configure_logging=False)
            else:
                _ray_probe(address)
                try:
                    self.ray.init(address=address, runtime_env=env, log_to_driver=False)
                except Exception as e:
                    first = (str(e).strip().splitlines() or [type(e).__name__])[0]
                    raise DecipherError(f"--ray {address}: cannot join the cluster ({first})") from None
            self._ours = True
        self._remote = self.ray.remote(max_retries=0, num_cpus=1, num_gpus=gpus_per_run)(_ray_task)

    def submit(self, task: tuple[RunItem, ...]) -> Future:
        return self._remote.remote(task).future()

    def reset(self) -> None:
        pass

    def close(self, *, kill: bool = False) -> None:
        if self._ours:
            self.ray.shutdown()
            self._ours = False


def _ray_task(task: tuple[RunItem, ...]) -> list[RunResult]:
    pin_threads()
    return run_task(task)


def describe_task_error(exc: BaseException) -> str:
    """A task that came back as an exception (its worker process died): one line."""
    name = type(exc).__name__
    if name == "BrokenProcessPool":
        return "the worker process died (killed, or out of memory)"
    if name in ("WorkerCrashedError", "NodeDiedError", "ActorDiedError"):
        return f"the Ray worker died ({name})"
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"{name}: {first}" if first else name


print_err: Callable[[str], None] = lambda line: print(line, file=sys.stderr)  # noqa: E731


class RunsStopped(BaseException):
    """Many runs (a seed group, a comparison) stopped on request: finished runs are kept, and running
    the same command into the same folder again does only the rest. A BaseException, so that
    :func:`engine.runs.sweep.drive` does not take it for a dead worker (those it redoes): it marks
    the runs in flight interrupted, ends the pool's workers and lets it through."""


def make_pool(workers: int | None, ray: str | None, gpus_per_run: float = 0.0, *, nice: int | None = None):
    """The pool for ``--workers`` / ``--ray`` (every command that runs many runs uses this one):
    ``(pool, runs in flight, workers)``. Local worker processes by default, at most ``workers``
    at once (default: the cores given); with ``ray`` Ray tasks on the cluster at that address, or
    on one started here for ``local``."""
    n = workers or default_workers()
    if ray:
        pool = RayPool(ray, workers=n if ray == "local" else None, gpus_per_run=gpus_per_run)
        return pool, (n if ray == "local" else max(n, 64)), n
    return (LocalPool(n) if nice is None else LocalPool(n, nice=nice)), n, n
