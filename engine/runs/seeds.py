"""One setting over several seeds, and their consensus: ``decipher run --seeds …`` and the function
the app's Run panel calls (:func:`run_seeds`, :func:`run_seeds_in_project`).

``OUT/seed-K/`` holds each seed's usual outputs, ``OUT/consensus.csv`` every reading of any seed
with how many seeds share it, ``OUT/metrics.json`` the gold-free chosen seed (docs/seeds.md), the
oracle seed for comparison, and the spread over seeds; ``OUT/results.csv`` makes it resumable.
"""

from __future__ import annotations

import json
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Sequence

from engine.runs.consensus import CONSENSUS_COLUMNS, consensus, consensus_table, read_readings, summary
from engine.errors import DecipherError
from engine.runs.sweep import DONE, InlinePool, PlannedRun, drive
from engine.runs.workers import LocalPool, RunItem, RunsStopped


@dataclass(frozen=True)
class SeedsOutcome:
    out: Path
    metrics: dict
    """What OUT/metrics.json holds."""
    failed: dict[int, str]
    """Seeds that did not finish, with why."""
    stopped: bool = False
    """Stopped on request before every seed finished (the finished ones are kept; running the
    same group into the same folder again does only the rest)."""
    diagnoses: dict = field(default_factory=dict)
    """Each finished seed's diagnosis (JSON) once compared with the other seeds (seed -> diagnosis)."""

    def flagged_lines(self) -> list[str]:
        """One line per seed whose diagnosis flags it: ``seed K: <headline>``."""
        from engine.training.diagnosis import diagnosis_from

        out = []
        for seed, data in sorted(self.diagnoses.items()):
            d = diagnosis_from(data)
            if d is not None and d.flagged:
                out.append(f"seed {seed}: {d.headline()}")
        return out


#: The most seeds one group may have (the app's seeds field and run_seeds).
MAX_SEEDS = 64
#: Seeds are 32-bit (engine.config: numpy's legacy seeding takes 0..2**32-1).
MAX_SEED = 2**32 - 1


class StopRequest:
    """Ask a running seed group to stop, from any thread: the seeds in flight are ended (their
    worker processes terminated; their project runs then read "interrupted"), finished seeds are kept."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []

    def set(self) -> None:
        with self._lock:
            self._event.set()
            callbacks = list(self._callbacks)
        for callback in callbacks:
            callback()

    def is_set(self) -> bool:
        return self._event.is_set()

    def on_set(self, callback: Callable[[], None]) -> None:
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return
        callback()


class _WatchedPool:
    """A pool that reports each finished task and can be stopped: every task's future is a proxy
    that completes with the real result, or with :class:`RunsStopped` once a stop is requested."""

    def __init__(self, inner, stop: StopRequest | None, on_done: Callable[[list], None] | None):
        self.inner = inner
        self.kind = getattr(inner, "kind", "")
        self.workers = getattr(inner, "workers", 1)
        self._on_done = on_done
        self._lock = threading.Lock()
        self._pending: set[Future] = set()
        self._stop = stop
        if stop is not None:
            stop.on_set(self._cancel_all)

    def _stopped(self) -> bool:
        return self._stop is not None and self._stop.is_set()

    def submit(self, task) -> Future:
        proxy: Future = Future()
        if self._stopped():
            proxy.set_exception(RunsStopped())
            return proxy
        with self._lock:
            self._pending.add(proxy)
        inner = self.inner.submit(task)

        def forward(f: Future) -> None:
            with self._lock:
                if proxy not in self._pending:   # already ended by a stop
                    return
                self._pending.discard(proxy)
            if f.exception() is not None:
                proxy.set_exception(f.exception())
                return
            results = f.result()
            if self._on_done is not None:
                try:
                    self._on_done(results)
                except Exception:  # a progress display must never lose a result
                    pass
            proxy.set_result(results)

        inner.add_done_callback(forward)
        return proxy

    def _cancel_all(self) -> None:
        with self._lock:
            pending, self._pending = list(self._pending), set()
        for proxy in pending:
            if not proxy.done():
                proxy.set_exception(RunsStopped())

    def reset(self) -> None:
        self.inner.reset()

    def close(self, *, kill: bool = False) -> None:
        # the local pool's worker processes: wait for them to be gone, so that the project sees
        # their runs' processes dead (and marks those runs interrupted) when it is next opened
        executor = getattr(self.inner, "_executor", None)
        processes = list(getattr(executor, "_processes", {}).values()) if executor is not None else []
        self.inner.close(kill=kill)
        if kill:
            for process in processes:
                try:
                    process.join(timeout=10)
                except Exception:
                    pass


def check_seeds(seeds: Sequence[int]) -> list[int]:
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise DecipherError("--seeds needs at least one seed")
    if len(set(seeds)) != len(seeds):
        raise DecipherError(f"--seeds: a seed is given twice ({' '.join(map(str, seeds))})")
    if any(s < 0 or s > MAX_SEED for s in seeds):
        raise DecipherError(f"--seeds: seeds are whole numbers from 0 to {MAX_SEED}")
    if len(seeds) > MAX_SEEDS:
        raise DecipherError(f"--seeds: at most {MAX_SEEDS} seeds in one group, got {len(seeds)}")
    return seeds


def parse_seed_list(text: str) -> list[int]:
    """The seeds a user typed: whole numbers separated by spaces or commas, ``A-B`` for a range
    (``0-4`` = 0 1 2 3 4); empty text is no seed. One line naming the problem otherwise."""
    seeds: list[int] = []
    for token in text.replace(",", " ").split():
        try:
            if "-" in token.strip("-") and not token.startswith("-"):
                a, b = (int(x) for x in token.split("-", 1))
                if b < a:
                    raise DecipherError(f"seeds: the range {token} runs backwards; write {b}-{a}")
                if b - a >= MAX_SEEDS:
                    raise DecipherError(f"seeds: at most {MAX_SEEDS} seeds in one group, {token} has {b - a + 1}")
                seeds.extend(range(a, b + 1))
            else:
                seeds.append(int(token))
        except ValueError:
            raise DecipherError(f"seeds: {token!r} is not a whole number (e.g. 0 1 2 3 4, or 0-4)") from None
    if not seeds:
        return []
    try:
        return check_seeds(seeds)
    except DecipherError as e:
        raise DecipherError(str(e).replace("--seeds", "seeds", 1)) from None


def _pool(workers: int, pool):
    if pool is not None:
        return pool
    return InlinePool() if workers == 1 else LocalPool(workers)


def run_seeds(inputs, seeds: Sequence[int], out: str | Path, *, workers: int = 1, pool=None,
              log: Callable[[str], None] = lambda line: None, force_rerun: bool = False) -> SeedsOutcome:
    """Train ``inputs`` (an engine.runs.session.RunInputs) once per seed into ``out/seed-K`` and write the
    consensus. ``workers`` 1 trains in this process one seed after the other; more: that many
    worker processes. Seeds already finished in ``out`` with the same inputs (settings, steps,
    data) are not redone; ``force_rerun`` redoes them all. One process at a time per ``out``."""
    from engine.runs.sweep import FolderLock
    from engine.config import Config
    from engine.runs.outputs import prepare_output_folder

    seeds = check_seeds(seeds)
    out = prepare_output_folder(Path(out))
    base = inputs.config.to_dict()

    def make_items(known: str):
        def item(p: PlannedRun) -> RunItem:
            config = Config.from_dict({**base, "seed": p.seed})
            return RunItem(out / p.run_dir, known, p.seed, "", inputs=replace(inputs, config=config))
        return item

    planned = [PlannedRun(inputs.vocabulary.language, s, {}, f"seed-{s}") for s in seeds]
    with FolderLock(out, log=log):
        _drive_seeds(out, planned, make_items, workers, pool, log, force_rerun=force_rerun)
        total = _letters(inputs.corpus)
        return write_consensus(out, seeds, total)


def _letters(corpus) -> int:
    """The corpus's letters (spaces, the word dividers, do not count)."""
    return sum(len(i.text.replace(" ", "")) for i in corpus.inscriptions)


def _drive_seeds(out: Path, planned, make_items, workers: int, pool, log, stop: StopRequest | None = None,
                 on_done: Callable[[list], None] | None = None, force_rerun: bool = False) -> None:
    """Run the planned seeds through ``pool`` (or a pool of ``workers`` made and closed here).
    A ``stop`` request raises :class:`RunsStopped` once the pool's workers are ended."""
    the_pool = _pool(workers, pool)
    watched = _WatchedPool(the_pool, stop, on_done) if (stop is not None or on_done is not None) else the_pool
    try:
        # the seeds in tasks that keep every worker busy; a worker trains its task's seeds as one
        # batch (engine/runs/workers.py run_seed_group), each seed still its own run and folder
        drive(out, planned, make_items, watched, log=log, force_rerun=force_rerun, seeds_per_task="auto")
    except RunsStopped:
        _mark_interrupted(out / "results.csv")
        raise
    finally:
        if pool is None:
            the_pool.close()


def _mark_interrupted(results_csv: Path) -> None:
    """After a stop: the seeds that were running are "stopped" in results.csv (redone on resume)."""
    from engine.runs.sweep import ResultsTable, read_results

    if not results_csv.exists():
        return
    table = ResultsTable(results_csv, read_results(results_csv).values())
    for row in table.rows.values():
        if row.status in ("running", "interrupted"):
            row.status, row.error = "stopped", "the group was stopped; redone when it is run again"
    table.save()


def run_seeds_in_project(project: str | Path, config, seeds: Sequence[int], out: str | Path, *,
                         corpus: str | int | None = None, language: str | int | None = None, workers: int = 1,
                         pool=None, log: Callable[[str], None] = lambda line: None,
                         stop: StopRequest | None = None,
                         progress: Callable[[int, int], None] | None = None,
                         force_rerun: bool = False) -> SeedsOutcome:
    """Each seed an ordinary run recorded in ``project``; the consensus is written to ``out`` and
    stored in the project's settings under ``seed_groups`` (see :func:`seed_groups`).

    ``stop``: a :class:`StopRequest`; once set, the seeds in flight are ended and the outcome says
    ``stopped`` (the finished seeds' consensus is still written and stored; the same call into the
    same ``out`` later does only the rest). ``progress(finished, total)`` is called, on a pool's
    thread, after each seed ends (and once at the start)."""
    from engine.config import Config
    from engine.project.exporting import resolve_corpus, resolve_language
    from engine.project.store import Project
    from engine.runs.outputs import prepare_output_folder
    from engine.runs.sweep import read_results

    seeds = check_seeds(seeds)
    out = prepare_output_folder(Path(out))
    with Project.open(project) as p:
        corpus_id = resolve_corpus(p, corpus)        # an int is an id, a str a name
        language_id = resolve_language(p, language)
        corpus_data = p.corpus(corpus_id)
        total = _letters(corpus_data)
        known = p.vocabulary(language_id).language
    base = config.to_dict()

    def make_items(_known: str):
        def item(pr: PlannedRun) -> RunItem:
            return RunItem(out / pr.run_dir, known, pr.seed, "", project=Path(project),
                           config=Config.from_dict({**base, "seed": pr.seed}),
                           corpus=corpus_data.name, language=known)
        return item

    planned = [PlannedRun(known, s, {}, f"seed-{s}") for s in seeds]
    counter = {"done": 0}
    lock = threading.Lock()
    if progress is not None:
        rows = read_results(out / "results.csv") if (out / "results.csv").exists() else {}
        counter["done"] = sum(1 for pr in planned if rows.get(pr.run_dir) is not None
                              and rows[pr.run_dir].status == DONE and (out / pr.run_dir / "metrics.json").exists())
        progress(counter["done"], len(seeds))

    def on_done(results: list) -> None:
        with lock:
            counter["done"] += len(results)
            done = counter["done"]
        if progress is not None:
            progress(done, len(seeds))

    from engine.runs.sweep import FolderLock

    with FolderLock(out, log=log):
        stopped = False
        try:
            _drive_seeds(out, planned, make_items, workers, pool, log, stop, on_done if progress else None,
                         force_rerun=force_rerun)
        except RunsStopped:
            stopped = True
            log(f"stopped: the finished seeds are kept in {out}")
            with Project.open(project):  # opening marks the ended seeds' runs "interrupted"
                pass
        try:
            outcome = write_consensus(out, seeds, total)
        except DecipherError:
            if stopped:  # nothing finished before the stop: no consensus, no group
                return SeedsOutcome(out, {}, {s: "stopped" for s in seeds}, stopped=True)
            raise
        outcome = replace(outcome, stopped=stopped)
        record_group(project, out, seeds, outcome, corpus_id=corpus_id, language_id=language_id)
        _store_diagnoses(project, out, outcome)
        return outcome


def _store_diagnoses(project: str | Path, out: Path, outcome: SeedsOutcome) -> None:
    """The seeds' diagnoses, compared with each other, into their runs' records in the project."""
    from engine.project.store import Project

    ids = {s: _run_id(out / f"seed-{s}") for s in outcome.diagnoses}
    if not any(v is not None for v in ids.values()):
        return
    with Project.open(project) as p:
        stored = p.diagnoses()
        for seed, data in outcome.diagnoses.items():
            run_id = ids[seed]
            if run_id is not None and run_id in stored:
                p.record_diagnosis(run_id, stored[run_id][0], data)


#: What the project's ``seed_groups`` setting keeps of a group's metrics.json (what the app shows).
GROUP_METRICS = ("chosen_because", "seeds_agreeing_with_chosen", "chosen_disagrees_with_most")


def record_group(project: str | Path, out: Path, seeds: Sequence[int], outcome: SeedsOutcome, *,
                 corpus_id: int | None = None, language_id: int | None = None) -> dict:
    """Store (or replace: the same ``out``) the group in the project's ``seed_groups`` setting."""
    from engine.project.store import Project

    finished = [s for s in outcome.metrics.get("seeds", [])]
    runs = {str(s): _run_id(out / f"seed-{s}") for s in finished}
    chosen = outcome.metrics.get("chosen_seed")
    group = {"out": str(out), "seeds": list(seeds), "runs": runs, "chosen_seed": chosen,
             "chosen_run": runs.get(str(chosen)), "corpus_id": corpus_id, "language_id": language_id,
             "complete": len(finished) == len(seeds), "stopped": outcome.stopped,
             **{k: outcome.metrics[k] for k in GROUP_METRICS if k in outcome.metrics}}
    with Project.open(project) as p:
        groups = [g for g in (p.setting("seed_groups", []) or []) if g.get("out") != str(out)]
        p.set_setting("seed_groups", groups + [group])
    return group


def group_folder(project_path: str | Path, corpus: str, language: str, config, pins=()) -> Path:
    """Where the app puts a group: ``<project>.seeds/<corpus>-<language>-<key>/`` beside the project
    file, ``key`` a digest of the settings (all but the seed) and the pins. So starting the same
    group again (after a Stop, or after closing the app) resumes it in the same folder: finished
    seeds are not redone, as with ``decipher run --seeds`` into the same ``--out``."""
    import hashlib

    project_path = Path(project_path)
    settings = config.identity()
    what = json.dumps({"corpus": corpus, "language": language, "settings": settings,
                       "pins": sorted(repr(p) for p in pins)}, sort_keys=True, ensure_ascii=False, default=str)
    key = hashlib.sha1(what.encode("utf-8")).hexdigest()[:10]
    name = "".join(c if c.isalnum() or c in "._-" else "-" for c in f"{corpus}-{language}")[:60]
    return project_path.parent / f"{project_path.stem}.seeds" / f"{name}-{key}"


# ---- reading groups back (the app) ----------------------------------------------------------------


def seed_groups(project) -> list[dict]:
    """The groups stored in an open project (oldest first), each with ``out``, ``seeds``, ``runs``
    (seed -> run id, finished seeds only), ``chosen_seed``, ``chosen_run``, ``complete``,
    ``stopped`` and the :data:`GROUP_METRICS` keys; a damaged entry is left out."""
    groups = project.setting("seed_groups", []) or []
    return [g for g in groups if isinstance(g, dict) and isinstance(g.get("runs"), dict)]


def group_of_run(groups: Sequence[dict], run_id: int | None) -> tuple[int, dict] | None:
    """(number from 1, group) of the newest group that holds ``run_id``, or None."""
    if run_id is None:
        return None
    for number, g in reversed(list(enumerate(groups, start=1))):
        if run_id in [r for r in g["runs"].values() if r is not None]:
            return number, g
    return None


def group_agreement(project, group: dict) -> dict[tuple[str, int, int, str], tuple[int, int]]:
    """For each reading (inscription, start, end, top stem) of any run of ``group``: (k, n), how
    many of the group's n seeds decode that span with that top stem. Read from the runs' matches
    stored in the open ``project`` (so it holds after the output folder is moved); a run that is
    gone from the project is left out of n."""
    from engine.runs.consensus import consensus, readings_of
    from engine.errors import DecipherError as _Err

    readings = {}
    for seed, run_id in group["runs"].items():
        if run_id is None:
            continue
        try:
            readings[int(seed)] = readings_of(m for m in project.matches(run_id) if m.alternatives)
        except _Err:
            continue
    return {row.reading.key: (row.agreement, row.n) for row in consensus(readings)}


def _run_id(run_dir: Path) -> int | None:
    try:
        return json.loads((run_dir / "metrics.json").read_text(encoding="utf-8")).get("run_id")
    except (OSError, ValueError):
        return None


def write_consensus(out: Path, seeds: Sequence[int], total_letters: int, *, rows: dict | None = None,
                    prefix: str = "") -> SeedsOutcome:
    """Read ``out/seed-K`` of every finished seed; write consensus.csv and metrics.json there.
    ``rows``: the results.csv rows by run folder (default: ``out/results.csv``), where the seeds'
    folders are named ``prefix + "seed-K"`` (a sweep's group: ``KNOWN/SETTINGS/``)."""
    from engine.io.atomic import write_csv, write_text
    from engine.runs.sweep import read_results

    if rows is None:
        rows = read_results(out / "results.csv") if (out / "results.csv").exists() else {}
    results, readings, failed = {}, {}, {}
    seed_metrics: dict[int, dict] = {}
    for s in seeds:
        run_dir = out / f"seed-{s}"
        row = rows.get(f"{prefix}seed-{s}")
        if row is None or row.status != DONE or not (run_dir / "metrics.json").exists():
            failed[s] = (row.error or row.status) if row is not None else "not run"
            continue
        m = json.loads((run_dir / "metrics.json").read_text(encoding="utf-8"))
        seed_metrics[s] = m
        results[s] = {k: m.get(k) for k in ("coverage", "objective", "p_at_1", "p_at_10")}
        matches = run_dir / "matches.csv"
        readings[s] = read_readings(matches) if matches.exists() else ()
    if not results:
        raise DecipherError(f"no seed finished in {out}: " + "; ".join(f"seed {s}: {w}" for s, w in failed.items()))
    from engine.io.atomic import refuse_symlinks

    # the group's files are the program's: a link planted under their names is refused
    write_csv(refuse_symlinks(out / "consensus.csv", out), CONSENSUS_COLUMNS, consensus_table(consensus(readings)),
              guard_formulas=True)
    metrics = summary(results, readings, total_letters)
    if failed:
        metrics["failed_seeds"] = {str(s): why for s, why in failed.items()}
    diagnoses = compare_seeds(out, seed_metrics)
    flagged = [s for s, d in diagnoses.items() if d.get("flagged")]
    if diagnoses:
        metrics["flagged_seeds"] = sorted(flagged)
    write_text(refuse_symlinks(out / "metrics.json", out), json.dumps(metrics, indent=2, ensure_ascii=False) + "\n")
    return SeedsOutcome(out, metrics, failed, diagnoses=diagnoses)


def _objective_of(metrics: dict) -> float | None:
    value = metrics.get("final_objective", metrics.get("objective"))
    return float(value) if isinstance(value, (int, float)) else None


def compare_seeds(out: Path, seed_metrics: dict[int, dict]) -> dict[int, dict]:
    """Each finished seed's diagnosis with its objective and its readings compared with the other
    seeds' (engine/training/diagnosis.py ``compared``), written
    back into ``out/seed-K/metrics.json``; seed -> the new diagnosis (JSON). A seed folder without a
    diagnosis (written by an older program) is left as it is, and out of the result."""
    from engine.io.atomic import refuse_symlinks, write_text
    from engine.training.diagnosis import compared, diagnosis_from

    objectives = {s: _objective_of(m) for s, m in seed_metrics.items()}
    read = {s: diagnosis_from(m.get("diagnosis")) for s, m in seed_metrics.items()}
    out_diagnoses: dict[int, dict] = {}
    for s, m in seed_metrics.items():
        diagnosis = read[s]
        if diagnosis is None:
            continue
        others = {f"seed {k}": v for k, v in objectives.items() if k != s and v is not None}
        readings = {f"seed {k}": d.readings for k, d in read.items() if k != s and d is not None and d.readings}
        new = compared(diagnosis, objectives[s], others, readings).to_json()
        out_diagnoses[s] = new
        if new != m.get("diagnosis"):
            run_dir = out / f"seed-{s}"
            m = {**m, "diagnosis": new}
            write_text(refuse_symlinks(run_dir / "metrics.json", run_dir),
                       json.dumps(m, indent=2, ensure_ascii=False) + "\n")
    return out_diagnoses
