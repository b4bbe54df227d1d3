"""A grid of runs in parallel, resumable: ``decipher sweep`` and the multi-seed run's driver.

The grid is known vocabularies x settings combinations x seeds. ``DIR/results.csv`` has one row per
run (:data:`RESULT_COLUMNS`) and is rewritten atomically after every change, so an interrupted
sweep continues where it was: a ``completed`` row whose folder still has its metrics.json and a
record of its inputs (``inputs.json``: settings, steps, code version, digests of the data; see
engine/inputs_digest.py) equal to this run's is not redone; a folder whose record differs is
redone, with a line saying what changed (``lr: 0.1 -> 0.3``, ``lost file changed``); any other row
(pending, running when the sweep died, killed, failed) is run again.
A run whose worker process died is marked ``killed`` and redone, up to :data:`MAX_ATTEMPTS` times.
One process at a time writes into a folder (:class:`FolderLock`, ``.decipher.lock``).
"""

from __future__ import annotations

import csv
import itertools
import os
import socket
import time
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from engine.errors import DecipherError

try:
    import fcntl
except ImportError:  # Windows: FolderLock relies on the owner's pid alone
    fcntl = None  # type: ignore[assignment]
from engine.inputs_digest import RECORD_FILE, changes, make_record, read_record
from engine.runs.workers import RunItem, RunResult, describe_task_error, run_task

RESULT_COLUMNS = ("known", "seed", "settings", "status", "p_at_1", "p_at_10", "coverage", "objective",
                  "wall_s", "device", "run_dir", "attempts", "error")
#: How often a run whose worker died is started again before it is marked failed.
MAX_ATTEMPTS = 3
DONE = "completed"


# ---------------------------------------------------------------------------------------------
# the grid


def grid_settings(grid: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Every combination of the grid's values, in the order given (an empty grid: one, empty)."""
    keys = list(grid)
    return [dict(zip(keys, values)) for values in itertools.product(*(grid[k] for k in keys))]


def settings_text(settings: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in settings.items())


def settings_folder(settings: Mapping[str, Any]) -> str:
    """A folder name for a settings combination (``default`` for none)."""
    if not settings:
        return "default"
    text = "_".join(f"{k}={v}" for k, v in settings.items())
    return "".join(c if c.isalnum() or c in "=._-+" else "-" for c in text)


def parse_grid_sets(pairs: Sequence[str], parse: Callable[[Sequence[str]], dict]) -> dict[str, list[Any]]:
    """``--set KEY=V1,V2`` -> {KEY: [v1, v2]}, each value typed and checked by ``parse`` (the CLI's
    one ``KEY=VALUE`` parser)."""
    grid: dict[str, list[Any]] = {}
    for pair in pairs:
        if "=" not in pair:
            raise DecipherError(f"--set needs KEY=VALUE[,VALUE…], got {pair!r}")
        key, values = pair.split("=", 1)
        parts = [v.strip() for v in values.split(",")]
        if not all(parts):
            raise DecipherError(f"--set {key.strip()}: an empty value in {values!r}")
        grid[key.strip()] = [parse([f"{key.strip()}={v}"])[key.strip()] for v in parts]
    return grid


def read_grid_file(path: Path, parse: Callable[[Sequence[str]], dict]) -> dict[str, list[Any]]:
    """A TOML grid file: ``[grid]`` with one list (or single value) per setting, e.g.
    ``lr = [0.1, 0.2]``; values are checked as ``--set`` values are."""
    import tomllib

    try:
        from engine.io.text import read_input

        data = tomllib.loads(read_input(path, limit=16 * 2**20).decode("utf-8"))
    except UnicodeDecodeError as e:
        raise DecipherError(f"{path}: not UTF-8 text (byte {e.start}); save the grid file as UTF-8") from None
    except OSError as e:
        raise DecipherError(f"{path}: cannot read the grid file ({e.strerror or e})") from None
    except tomllib.TOMLDecodeError as e:
        raise DecipherError(f"{path}: not a TOML file ({e})") from None
    table = data.get("grid", data)
    if not isinstance(table, dict):
        raise DecipherError(f"{path}: [grid] must be a table of settings")
    grid: dict[str, list[Any]] = {}
    for key, values in table.items():
        values = values if isinstance(values, list) else [values]
        if not values:
            raise DecipherError(f"{path}: grid setting {key!r} has no values")
        try:
            grid[key] = [parse([f"{key}={str(v).lower() if isinstance(v, bool) else v}"])[key] for v in values]
        except DecipherError as e:
            raise DecipherError(f"{path}: {e}") from None
    return grid


@dataclass(frozen=True)
class PlannedRun:
    """One cell of the grid before its known vocabulary is read."""

    known: str
    seed: int
    settings: dict[str, Any]
    run_dir: str
    """Relative to the sweep's folder: KNOWN/SETTINGS/seed-K."""


def plan(knowns: Sequence[str], settings_grid: Sequence[Mapping[str, Any]], seeds: Sequence[int]) -> list[PlannedRun]:
    """Known x settings x seeds, seeds innermost (a seed group is consecutive)."""
    if len(set(knowns)) != len(knowns):
        raise DecipherError("two known vocabularies have the same name; rename one file")
    if len(set(seeds)) != len(seeds):
        raise DecipherError("a seed is given twice")
    return [PlannedRun(k, s, dict(st), f"{k}/{settings_folder(st)}/seed-{s}")
            for k in knowns for st in settings_grid for s in seeds]


# ---------------------------------------------------------------------------------------------
# results.csv


@dataclass
class ResultRow:
    known: str
    seed: int
    settings: str
    run_dir: str
    status: str = "pending"
    p_at_1: float | None = None
    p_at_10: float | None = None
    coverage: float | None = None
    objective: float | None = None
    wall_s: float | None = None
    device: str = ""
    attempts: int = 0
    error: str = ""

    def cells(self) -> list[Any]:
        def num(v):
            return "" if v is None else f"{v:.6g}"
        return [self.known, self.seed, self.settings, self.status, num(self.p_at_1), num(self.p_at_10),
                num(self.coverage), num(self.objective), num(self.wall_s), self.device, self.run_dir,
                self.attempts, self.error]

    def take(self, result: RunResult) -> None:
        self.status = result.status
        self.error = result.error
        m = result.metrics
        self.p_at_1, self.p_at_10 = m.get("p_at_1"), m.get("p_at_10")
        self.coverage, self.objective = m.get("coverage"), result.objective
        self.wall_s, self.device = result.wall_s, result.device


class ResultsTable:
    """``DIR/results.csv``: read on start (resume), rewritten atomically after each change."""

    def __init__(self, path: Path, rows: Iterable[ResultRow]):
        self.path = Path(path)
        self.rows: dict[str, ResultRow] = {r.run_dir: r for r in rows}

    @classmethod
    def open(cls, path: Path, planned: Sequence[PlannedRun]) -> "ResultsTable":
        """The planned runs, with what an earlier sweep into the same folder already finished."""
        old = read_results(path) if Path(path).exists() else {}
        rows = []
        for p in planned:
            row = ResultRow(p.known, p.seed, settings_text(p.settings), p.run_dir)
            prev = old.get(p.run_dir)
            if prev is not None:
                row = prev
            rows.append(row)
        table = cls(path, rows)
        # rows of the old file that this plan does not name are kept (a wider sweep into the folder)
        for key, prev in old.items():
            table.rows.setdefault(key, prev)
        return table

    def save(self) -> None:
        from engine.io.atomic import refuse_symlinks, write_csv

        # results.csv is the program's file in the sweep's folder: a link planted there is refused
        write_csv(refuse_symlinks(self.path, self.path.parent), RESULT_COLUMNS, (r.cells() for r in self.rows.values()),
                  guard_formulas=True)

    def finished(self, run_dir: str, base: Path) -> bool:
        row = self.rows.get(run_dir)
        return row is not None and row.status == DONE and (base / run_dir / "metrics.json").exists()


def read_results(path: Path) -> dict[str, ResultRow]:
    """An earlier results.csv (rows by run folder); a damaged one is an error naming its line."""
    out: dict[str, ResultRow] = {}

    from engine.io.atomic import unguard_row

    def num(v: str) -> float | None:
        return float(v) if v not in ("", None) else None

    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        missing = {"known", "seed", "status", "run_dir"} - set(reader.fieldnames or ())
        if missing:
            raise DecipherError(f"{path}: not a sweep's results.csv (no column {sorted(missing)[0]!r})")
        for line, r in enumerate(reader, start=2):
            r = unguard_row(r)   # written with the one formula guard: read back as it was
            try:
                out[r["run_dir"]] = ResultRow(r["known"], int(r["seed"]), r.get("settings", ""), r["run_dir"],
                                              r["status"], num(r.get("p_at_1", "")), num(r.get("p_at_10", "")),
                                              num(r.get("coverage", "")), num(r.get("objective", "")),
                                              num(r.get("wall_s", "")), r.get("device", ""),
                                              int(r.get("attempts") or 0), r.get("error", ""))
            except (TypeError, ValueError) as e:
                raise DecipherError(f"{path}, line {line}: {e}") from None
    return out


# ---------------------------------------------------------------------------------------------
# driving the pool


class InlinePool:
    """Runs each task in this process when it is submitted (one worker: no process to spawn)."""

    kind = "inline"
    workers = 1

    def __init__(self, run: Callable[[tuple[RunItem, ...]], list[RunResult]] = run_task):
        self.run = run

    def submit(self, task: tuple[RunItem, ...]) -> Future:
        fut: Future = Future()
        try:
            fut.set_result(self.run(task))
        except Exception as e:  # run_task turns failed runs into results; this is a bug or a kill
            fut.set_exception(e)
        return fut

    def reset(self) -> None:
        pass

    def close(self, *, kill: bool = False) -> None:
        pass


@dataclass
class SweepOutcome:
    table: ResultsTable
    ran: int = 0
    skipped: int = 0
    killed: int = 0
    error: str | None = None
    """An input error that stopped the sweep (finished runs are kept)."""
    results: dict[str, RunResult] = field(default_factory=dict)
    """This invocation's results, by run folder."""


def drive(out: Path, planned: Sequence[PlannedRun], make_items: Callable[[str], Callable[[PlannedRun], RunItem]],
          pool, *, seeds_per_task: int | str = 1, in_flight: int | None = None,
          log: Callable[[str], None] = lambda line: None, clock: Callable[[], float] = time.monotonic,
          force_rerun: bool = False, task_key: Callable[[PlannedRun], Any] | None = None) -> SweepOutcome:
    """Run what ``planned`` still needs through ``pool`` and keep ``out/results.csv`` current.

    ``make_items(known)`` reads that known vocabulary (lazily, when its first run is due) and
    returns a function making the run item of a planned run; a DecipherError there stops new
    submissions, lets the runs in flight finish, marks that vocabulary's runs failed and is
    reported in ``SweepOutcome.error``. ``seeds_per_task``: how many runs of one group one task
    carries (1: each run its own task); ``"auto"``: as many as keep every worker busy (a group of N
    runs on W runs in flight: ceil(N / W) a task, at most :data:`MAX_RUNS_PER_TASK`), a worker
    training a task's runs that may share a batch as one batch (engine/runs/workers.py
    run_seed_group). ``task_key(planned run)``: the runs that may share a task (default: the same
    known vocabulary and grid settings, i.e. a seed group); runs of other keys never share one.

    A finished run is reused only when its folder's record of inputs equals this run's (else one
    line says what changed and it is redone); ``force_rerun`` redoes every run. Only one process
    at a time drives runs into ``out`` (DecipherError naming the other's pid otherwise).
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with FolderLock(out, log=log):
        return _drive(out, planned, make_items, pool, seeds_per_task=seeds_per_task, in_flight=in_flight,
                      log=log, force_rerun=force_rerun, task_key=task_key)


def _drive(out: Path, planned: Sequence[PlannedRun], make_items, pool, *, seeds_per_task: int | str,
           in_flight: int | None, log: Callable[[str], None], force_rerun: bool,
           task_key: Callable[[PlannedRun], Any] | None = None) -> SweepOutcome:
    from engine.io.atomic import WriteError, refuse_symlinks

    table = ResultsTable.open(out / "results.csv", planned)
    outcome = SweepOutcome(table)
    makers: dict[str, Callable[[PlannedRun], RunItem]] = {}
    records = RecordMaker()
    todo = []
    changed = 0
    for p in planned:
        if not table.finished(p.run_dir, out):
            todo.append(p)
            continue
        if force_rerun:
            todo.append(p)
            changed += 1
            continue
        try:
            if p.known not in makers:
                makers[p.known] = make_items(p.known)
            why = changes(read_record(out / p.run_dir), records.record(makers[p.known](p)))
        except DecipherError:  # its data no longer read: run it again (the submission says why)
            why = ["its input files cannot be read now"]
        if why:
            log(f"{p.run_dir}: {'; '.join(why)}; run again")
            todo.append(p)
            changed += 1
    outcome.skipped = len(planned) - len(todo)
    if force_rerun and changed:
        log(f"--force-rerun: {changed} finished run{'s' if changed != 1 else ''} in {out} redone")
    if outcome.skipped:
        log(f"{outcome.skipped} of {len(planned)} runs already finished in {out} with the same inputs; not redone")
    for p in todo:
        row = table.rows[p.run_dir]
        if row.status == DONE:  # redone: no longer a finished result until the new one is in
            row.status, row.error = "pending", "redone: its inputs changed" if not force_rerun else "redone"
        if row.status == "running":  # the sweep that started it is gone
            row.status, row.error = "interrupted", "the sweep was interrupted; redone"
    table.save()
    limit = in_flight or getattr(pool, "workers", None) or 4
    tasks = _tasks(todo, seeds_per_task, key=task_key, in_flight=limit)
    queue: list[tuple[PlannedRun, ...]] = list(tasks)
    running: dict[Future, tuple[tuple[PlannedRun, ...], tuple[RunItem, ...]]] = {}
    stop_error: str | None = None

    def submit(group: tuple[PlannedRun, ...]) -> None:
        nonlocal stop_error
        known = group[0].known
        try:
            if known not in makers:
                makers[known] = make_items(known)
            items = tuple(makers[known](p) for p in group)
            for p in group:
                # the run's folder is the program's: a link planted in it is refused, and the old
                # record goes before the run starts (a run that dies midway leaves none)
                run_dir = refuse_symlinks(out / p.run_dir, out)
                (run_dir / RECORD_FILE).unlink(missing_ok=True)
        except WriteError as e:
            for p in group:
                row = table.rows[p.run_dir]
                row.status, row.error = "failed", str(e)
                row.attempts += 1
                log(f"{p.run_dir}: failed: {e}")
            return
        except OSError as e:
            for p in group:
                row = table.rows[p.run_dir]
                row.status, row.error = "failed", f"{out / p.run_dir}: {e.strerror or e}"
                row.attempts += 1
            return
        except DecipherError as e:
            stop_error = str(e)
            for p in [q for t in queue for q in t] + list(group):
                if p.known == known:
                    row = table.rows[p.run_dir]
                    row.status, row.error = "failed", str(e)
            return
        for p in group:
            row = table.rows[p.run_dir]
            row.status, row.error = "running", ""
            row.attempts += 1
        running[pool.submit(items)] = (group, items)

    try:
        while queue or running:
            while queue and len(running) < limit and stop_error is None:
                submit(queue.pop(0))
            table.save()
            if stop_error is not None:
                queue.clear()
            if not running:
                break
            done, _ = wait(list(running), return_when=FIRST_COMPLETED)
            broken = False
            for fut in done:
                group, items = running.pop(fut)
                try:
                    results = fut.result()
                except Exception as exc:  # the worker died under the task
                    broken = True
                    _killed(table, group, describe_task_error(exc), queue, log)
                    outcome.killed += len(group)
                    continue
                for p, result, item in zip(group, results, items):
                    if result.status == DONE:
                        try:
                            _write_record(out, p.run_dir, records.record(item))
                        except DecipherError as e:
                            result = RunResult(result.run_dir, "failed", f"cannot keep the record of its inputs: {e}",
                                               result.metrics, result.objective, result.wall_s, result.steps,
                                               result.device, result.closeness, result.run_id, result.pid)
                    table.rows[p.run_dir].take(result)
                    outcome.results[p.run_dir] = result
                    outcome.ran += 1
                    log(_line(p, result))
            if broken and getattr(pool, "kind", "") == "local":
                # a dead worker breaks a local pool: every task in flight is lost too; redo them
                for fut, (group, _) in list(running.items()):
                    running.pop(fut)
                    _killed(table, group, "its pool lost a worker process; redone", queue, log)
                pool.reset()
            table.save()
    except BaseException:
        for group, _ in running.values():
            for p in group:
                row = table.rows[p.run_dir]
                row.status, row.error = "interrupted", "the sweep was interrupted; redone on resume"
        table.save()
        pool.close(kill=True)
        raise
    outcome.error = stop_error
    return outcome


class RecordMaker:
    """The record of inputs (engine/inputs_digest.py) of run items; the data shared by many items
    (one corpus, one vocabulary, one project's tables) are digested once."""

    def __init__(self) -> None:
        self._cache: dict[Any, tuple[Any, Any]] = {}

    def _once(self, key: Any, keep: Any, make: Callable[[], Any]) -> Any:
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = (keep, make())   # ``keep`` holds the object its id names
        return hit[1]

    def record(self, item: RunItem) -> dict:
        from engine.inputs_digest import corpus_digest, values_digest, vocabulary_digest

        if item.inputs is not None:
            inp = item.inputs
            data = {"lost file": self._once(("c", id(inp.corpus)), inp.corpus, lambda: corpus_digest(inp.corpus)),
                    "known file": self._once(("v", id(inp.vocabulary)), inp.vocabulary,
                                             lambda: vocabulary_digest(inp.vocabulary)),
                    "gold file": self._once(("g", id(inp.gold)), inp.gold, lambda: values_digest(inp.gold)),
                    "prior file": self._once(("p", id(inp.pins)), inp.pins, lambda: values_digest(inp.pins))}
            return make_record(inp.config.to_dict(), data)
        if item.project is None:  # an item without data (a caller's own task function): its words only
            return make_record({"known": item.known, "seed": item.seed, "settings": item.settings}, {})
        key = ("project", str(Path(item.project).resolve()), item.corpus, item.language)
        data = self._once(key, None, lambda: _project_digests(item.project, item.corpus, item.language))
        return make_record(item.config.to_dict(), data)


def _project_digests(project_path: Path, corpus: str | None, language: str | None) -> dict[str, str]:
    """Digests of what a project run reads: its corpus, known language, gold and pins."""
    from engine.inputs_digest import corpus_digest, values_digest, vocabulary_digest
    from engine.project.resolve import resolve_corpus, resolve_language
    from engine.project.store import Project

    with Project.open(project_path, read_only=True) as project:
        corpus_id = resolve_corpus(project, corpus)
        language_id = resolve_language(project, language)
        corpus_data = project.corpus(corpus_id)
        vocabulary = project.vocabulary(language_id)
        return {f"corpus {corpus_data.name!r} in the project": corpus_digest(corpus_data),
                f"known language {vocabulary.language!r} in the project": vocabulary_digest(vocabulary),
                "the project's gold": values_digest(project.gold(corpus_id)),
                "the project's pins": values_digest(project.pins())}


def _write_record(out: Path, run_dir: str, record: dict) -> None:
    import json

    from engine.io.atomic import refuse_symlinks, write_text

    path = refuse_symlinks(out / run_dir / RECORD_FILE, out)
    write_text(path, json.dumps(record, indent=2, ensure_ascii=False, sort_keys=True) + "\n")


# ---------------------------------------------------------------------------------------------
# one process per folder

#: The lock file in a sweep's (or seed group's, or comparison's) folder: the owner's pid and host.
LOCK_FILE = ".decipher.lock"
_held: dict[str, int] = {}
_fds: dict[str, int] = {}   # the descriptor (holding the flock) of each folder locked here


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    try:  # a killed process its parent has not reaped yet is dead too
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[-1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return True


class FolderLock:
    """One process at a time per folder: ``FOLDER/.decipher.lock`` holds the owner's pid and host,
    and the owner holds an exclusive ``flock`` on it for as long as it works there, so the decision
    to take a lock over is made by one process at a time (two can never both hold it: a stale
    lock's take-over is atomic). A lock whose process is gone (same host) is taken over with a line
    saying so; a live owner's is a DecipherError naming its pid. Re-entrant within one process."""

    def __init__(self, folder: Path, *, log: Callable[[str], None] = lambda line: None):
        self.folder = Path(folder)
        self.path = self.folder / LOCK_FILE
        self.key = os.path.realpath(self.folder)
        self.log = log

    def __enter__(self) -> "FolderLock":
        if _held.get(self.key):
            _held[self.key] += 1
            return self
        host = socket.gethostname()
        for _ in range(50):
            fd = self._open()
            if fd is None:
                continue
            try:
                if not self._lock(fd):
                    pid, _ = self._owner(fd)
                    who = f"pid {pid}" if pid > 0 else "a process starting there"
                    raise DecipherError(f"{self.folder}: in use by another process ({who}) writing runs there; "
                                        "wait for it to end, or give another --out")
                if not self._still_at_path(fd):  # its owner removed it as we opened it: take the new one
                    os.close(fd)
                    continue
                pid, owner_host = self._owner(fd)
                if pid > 0 and owner_host and owner_host != host:
                    raise DecipherError(f"{self.folder}: in use by process {pid} on {owner_host} (lock file "
                                        f"{self.path}); wait for it to end, or remove the lock file if that "
                                        "process is gone")
                if pid > 0 and pid != os.getpid() and _pid_alive(pid):
                    raise DecipherError(f"{self.folder}: in use by another process (pid {pid}) writing runs "
                                        "there; wait for it to end, or give another --out")
                if pid != 0:
                    what = f"process {pid}" if pid > 0 else "an unreadable owner"
                    self.log(f"{self.path}: a stale lock of {what}, which is no longer running; taken over")
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n{host}\n".encode("utf-8"), 0)
            except BaseException:
                os.close(fd)
                raise
            _fds[self.key] = fd
            _held[self.key] = 1
            return self
        raise DecipherError(f"{self.path}: cannot take the folder's lock (another process keeps taking it)")

    def _open(self) -> int | None:
        """The lock file's descriptor (made if missing); None after removing a planted link."""
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except OSError as e:
            if self.path.is_symlink():  # a planted link is never followed: it goes, and the lock is made anew
                self.log(f"{self.path}: a symbolic link where the lock file belongs; removed")
                self.path.unlink(missing_ok=True)
                return None
            raise DecipherError(f"{self.path}: cannot make the lock file ({e.strerror or e})") from None

    @staticmethod
    def _lock(fd: int) -> bool:
        if fcntl is None:  # no flock (Windows): the pid check alone
            return True
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _still_at_path(self, fd: int) -> bool:
        try:
            here, held = os.stat(self.path, follow_symlinks=False), os.fstat(fd)
        except OSError:
            return False
        return (here.st_dev, here.st_ino) == (held.st_dev, held.st_ino)

    @staticmethod
    def _owner(fd: int) -> tuple[int, str]:
        """(pid, host) the lock file names: pid 0 when it is empty (new), -1 when unreadable."""
        text = os.pread(fd, 200, 0).decode("utf-8", errors="replace")
        if not text.strip():
            return 0, ""
        lines = text.split("\n")
        try:
            pid = int(lines[0].strip())
        except ValueError:
            pid = -1
        return pid, lines[1].strip() if len(lines) > 1 else ""

    def __exit__(self, *exc) -> None:
        count = _held.get(self.key, 0) - 1
        if count > 0:
            _held[self.key] = count
            return
        _held.pop(self.key, None)
        fd = _fds.pop(self.key, None)
        if fd is None:
            return
        try:  # removed while still locked, so no one takes it between the removal and the release
            if self._still_at_path(fd) and self._owner(fd)[0] == os.getpid():
                self.path.unlink()
        except OSError:
            pass
        finally:
            os.close(fd)


def _killed(table: ResultsTable, group: tuple[PlannedRun, ...], why: str, queue: list, log) -> None:
    redo = []
    for p in group:
        row = table.rows[p.run_dir]
        if row.attempts >= MAX_ATTEMPTS:
            row.status, row.error = "failed", f"{why} ({row.attempts} times)"
            log(f"{p.run_dir}: failed: {row.error}")
        else:
            row.status, row.error = "killed", why
            redo.append(p)
            log(f"{p.run_dir}: {why}; run again")
    if redo:
        queue.insert(0, tuple(redo))


#: The most runs one task carries with ``seeds_per_task="auto"``: a stopped or killed task loses the
#: progress of its runs, and a comparison's progress moves a task at a time.
MAX_RUNS_PER_TASK = 16


def seed_group_key(p: PlannedRun):
    """The runs of one seed group: the same known vocabulary and grid settings."""
    return p.known, settings_text(p.settings)


def sweep_task_key(p: PlannedRun):
    """The runs of a sweep that may share a task (and a batch): the same known vocabulary and grid
    settings, but for the settings each run of a batch reads for itself
    (engine/training/lockstep.py PER_RUN_SETTINGS: e.g. a grid over lr batches its cells)."""
    from engine.training.lockstep import PER_RUN_SETTINGS

    return p.known, settings_text({k: v for k, v in p.settings.items() if k not in PER_RUN_SETTINGS})


def _tasks(todo: Sequence[PlannedRun], seeds_per_task: int | str, *, key: Callable[[PlannedRun], Any] | None = None,
           in_flight: int = 1) -> list[tuple[PlannedRun, ...]]:
    """The runs of each group (``key``, default :func:`seed_group_key`; groups in the order of their
    first run), ``seeds_per_task`` at a time; ``"auto"``: ceil(group / ``in_flight``) at a time, at
    most MAX_RUNS_PER_TASK, so that a group keeps every worker busy."""
    if seeds_per_task != "auto" and int(seeds_per_task) <= 1:
        return [(p,) for p in todo]              # each run its own task, in the planned order
    groups: dict[Any, list[PlannedRun]] = {}
    for p in todo:
        groups.setdefault((key or seed_group_key)(p), []).append(p)
    tasks: list[tuple[PlannedRun, ...]] = []
    for runs in groups.values():
        if seeds_per_task == "auto":
            size = min(MAX_RUNS_PER_TASK, -(-len(runs) // max(1, int(in_flight))))
        else:
            size = max(1, int(seeds_per_task))
        tasks.extend(tuple(runs[i:i + size]) for i in range(0, len(runs), size))
    return tasks


def _line(p: PlannedRun, r: RunResult) -> str:
    shown = ", ".join(f"{k}={r.metrics[k]:.3f}" for k in ("p_at_1", "p_at_10", "coverage") if k in r.metrics)
    tail = f": {r.error}" if r.error else (f": {shown}" if shown else "")
    return f"{p.run_dir}: {r.status} in {r.wall_s:.1f} s{tail}"


def with_seed(config, seed: int, settings: Mapping[str, Any]):
    """``config`` with the run's seed and grid settings (range-checked by Config)."""
    from engine.config import Config

    return Config.from_dict({**config.to_dict(), **dict(settings), "seed": int(seed)})


__all__ = ["RESULT_COLUMNS", "MAX_RUNS_PER_TASK", "sweep_task_key", "seed_group_key", "plan", "grid_settings",
           "parse_grid_sets", "read_grid_file", "drive", "ResultsTable", "read_results", "PlannedRun", "SweepOutcome", "with_seed", "InlinePool", "run_items",
           "FolderLock", "RecordMaker", "LOCK_FILE"]


def run_items(items: Sequence[RunItem], pool, *, in_flight: int | None = None,
              log: Callable[[str], None] = lambda line: None) -> list[RunResult]:
    """Run ``items`` through ``pool`` (e.g. ``LocalPool(4)``, ``RayPool("local")``, ``InlinePool()``)
    and return their results in the same order, without a results.csv (a caller that wants resuming
    uses :func:`drive`). A run whose worker died is started again up to :data:`MAX_ATTEMPTS` times,
    then comes back ``failed``. Each RunResult carries the run's metrics, final objective, closeness
    curve, steps, wall time and device."""
    results: list[RunResult | None] = [None] * len(items)
    attempts = [0] * len(items)
    queue = list(range(len(items)))
    running: dict[Future, int] = {}
    limit = in_flight or getattr(pool, "workers", None) or 4
    try:
        while queue or running:
            while queue and len(running) < limit:
                i = queue.pop(0)
                attempts[i] += 1
                running[pool.submit((items[i],))] = i
            done, _ = wait(list(running), return_when=FIRST_COMPLETED)
            broken = False
            for fut in done:
                i = running.pop(fut)
                try:
                    results[i] = fut.result()[0]
                except Exception as exc:
                    broken = True
                    why = describe_task_error(exc)
                    if attempts[i] >= MAX_ATTEMPTS:
                        results[i] = RunResult(items[i].run_dir, "failed", f"{why} ({attempts[i]} times)")
                    else:
                        log(f"{items[i].run_dir}: {why}; run again")
                        queue.insert(0, i)
            if broken and getattr(pool, "kind", "") == "local":
                for fut, i in list(running.items()):
                    running.pop(fut)
                    queue.insert(0, i)
                pool.reset()
    except BaseException:
        pool.close(kill=True)
        raise
    return [r for r in results if r is not None]
