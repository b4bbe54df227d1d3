"""A comparison's runs through the sweep machinery (engine/runs/sweep.py and the pools of engine/runs/workers.py):
in parallel, resumable, stoppable; shared by ``decipher closeness`` and the app's comparison dialog.

Each run of a plan (engine/closeness/comparison.py) is a sweep run in ``OUT/KNOWN/own-FP/seed-K`` or
``OUT/KNOWN/null-I-FP/seed-K`` (restart r > 0 of a seed: ``seed-K-restart-r``); FP fingerprints the
run's vocabulary, lost text and settings, so a rerun into the same folder redoes nothing it already
finished, and a changed plan (other stems, steps, candidates) gets fresh folders instead of reusing
runs that no longer fit it.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from engine.closeness.curve import DEFAULT_CONFIDENCE, closeness_score, coverage_at
from engine.closeness.comparison import (Comparison, Plan, PlanItem, ScoredRun, CandidateRun, scored, summarise,
                                        with_stop_rule, write_comparison)
from engine.errors import DecipherError
from engine.runs.session import RunSink
from engine.runs.workers import RunsStopped

#: A results file of finished comparison runs (``--append-results``), one row per run. ``null_mode`` is
#: the null model of the comparison (issue 26); a file written before it had that column still reads,
#: its rows' null_mode left empty (not recorded).
RESULTS_COLUMNS = ("lost", "known", "seed", "null", "score", "coverage_at_default", "steps", "wall_s", "null_mode")
_RESULTS_COLUMNS_BEFORE = RESULTS_COLUMNS[:-1]


def fingerprint(item: PlanItem, pins: tuple = ()) -> str:
    """10 hex digits of what a run's result depends on, the seed aside (it is in the folder name)."""
    h = hashlib.sha256()
    for pin in pins:
        h.update(b"\x1fP" + repr(pin).encode("utf-8"))
    config = item.config.identity()
    h.update(json.dumps(config, sort_keys=True, default=str).encode("utf-8"))
    for s in item.vocabulary.stems:
        h.update(b"\x1fS" + s.ipa.encode("utf-8"))
    for i in item.lost.inscriptions:
        h.update(b"\x1fI" + i.id.encode("utf-8") + b"\x1e" + i.text.encode("utf-8"))
    if item.null is not None and item.early_stop > 0:
        # a null run that may stop early is another run than one trained to its end: its own folder
        # (off adds nothing, so the folders of comparisons made before the early stop still fit)
        from engine.closeness.early_stop import CHECKPOINTS

        h.update(b"\x1fE" + repr((float(item.early_stop), tuple(CHECKPOINTS))).encode("ascii"))
    return h.hexdigest()[:10]


def folder_name(name: str) -> str:
    """A candidate's name as a folder name (letters, digits and ``._-+`` kept)."""
    return "".join(c if c.isalnum() or c in "._-+" else "-" for c in name) or "-"


def run_folder(item: PlanItem, pins: tuple = ()) -> str:
    """Restart 0 keeps the folder a comparison without restarts uses, so adding restarts reuses it."""
    kind = "own" if item.null is None else f"null-{item.null}"
    restart = f"-restart-{item.restart}" if item.restart else ""
    return f"{folder_name(item.known)}/{kind}-{fingerprint(item, pins)}/seed-{item.seed}{restart}"


class StoppablePool:
    """A pool that refuses new runs once :meth:`stop` is called and ends the runs in flight."""

    def __init__(self, pool):
        self.pool = pool
        self.kind = getattr(pool, "kind", "")
        self.workers = getattr(pool, "workers", None)
        self.stopped = threading.Event()

    def submit(self, task):
        if self.stopped.is_set():
            raise RunsStopped("stopped")
        return self.pool.submit(task)

    def reset(self) -> None:
        self.pool.reset()

    def close(self, *, kill: bool = False) -> None:
        self.pool.close(kill=kill)

    def stop(self) -> None:
        """From any thread: no new run starts; the workers in flight are ended (their runs are redone
        by a later rerun)."""
        self.stopped.set()
        self.pool.close(kill=True)


@dataclass(frozen=True)
class Progress:
    """Where a comparison stands, handed to ``on_progress`` after each finished run."""

    done: int
    total: int
    skipped: int
    """runs an earlier invocation had finished"""
    line: str


#: A comparison run's decoded spans, each with its best stem (the rank-1 rows of matches.csv, four
#: columns): what the decoding-agreement signal reads. On Gothic a run's matches.csv holds ten ranks of
#: 42,568 spans (33 MB) and reading it was most of a comparison's work after its last run.
SPANS = "spans.csv"
SPAN_COLUMNS = ("inscription_id", "start", "end", "stem_ipa")


class BestSpans(RunSink):
    """A session sink of every comparison run: writes the run's spans.csv (:data:`SPANS`) beside its
    matches.csv when the run finishes. Picklable (it crosses to a worker with its RunItem)."""

    name = "the comparison's decoded spans"

    def __init__(self, run_dir: Path):
        self.run_dir = Path(run_dir)

    def finishing(self, outcome) -> None:
        from engine.io.atomic import refuse_symlinks, write_csv

        ev = outcome.evaluation
        if ev is None:
            return
        write_csv(refuse_symlinks(self.run_dir / SPANS, self.run_dir), SPAN_COLUMNS,
                  ((m.inscription_id, m.start, m.end, m.best.ipa) for m in ev.matches if m.alternatives),
                  guard_formulas=True)


def _read_spans(run_dir: Path) -> tuple[tuple[str, int, int, str], ...]:
    """The run's decoded spans and their best stems, sorted: from spans.csv, or from matches.csv (a run
    finished before spans.csv was written) keeping each span's lowest rank."""
    from engine.io.atomic import unguard_row

    path = run_dir / SPANS
    if path.exists():
        with open(path, encoding="utf-8", newline="") as f:
            reader = csv.reader(f)
            if tuple(next(reader, ())) != SPAN_COLUMNS:
                raise DecipherError(f"{path}: not a comparison run's spans file (columns {', '.join(SPAN_COLUMNS)})")
            try:
                return tuple(sorted({(r[0], int(r[1]), int(r[2]), r[3]) for r in map(unguard_row, reader)}))
            except (IndexError, ValueError):
                raise DecipherError(f"{path}, line {reader.line_num}: not a span row "
                                    f"({', '.join(SPAN_COLUMNS)})") from None
    spans: dict[tuple[str, int, int], tuple[int, str]] = {}
    path = run_dir / "matches.csv"
    if path.exists():
        with open(path, encoding="utf-8", newline="") as f:
            for r in map(unguard_row, csv.DictReader(f)):
                key = (r["inscription_id"], int(r["start"]), int(r["end"]))
                rank = int(r["rank"])
                if key not in spans or rank < spans[key][0]:
                    spans[key] = (rank, r["stem_ipa"])
    return tuple((k[0], k[1], k[2], ipa) for k, (_, ipa) in sorted(spans.items()))


def read_run(run_dir: Path) -> CandidateRun:
    """A finished run's result from its folder: metrics.json (curve, coverage, steps, wall time, the
    final objective the worker added) and spans.csv (the best stem of each decoded span, for the
    decoding-agreement signal; matches.csv where an older run has no spans.csv)."""
    m = json.loads((run_dir / "metrics.json").read_text(encoding="utf-8"))
    curve = tuple((float(c), float(v)) for c, v in m.get("closeness") or ())
    if not curve:
        raise DecipherError(f"{run_dir / 'metrics.json'}: the run has no closeness curve")
    objective = m.get("objective")
    early = m.get("early_stop") or {}
    stopped = early.get("stopped_at")
    return CandidateRun(curve, float(m.get("coverage", math.nan)), int(m.get("steps", 0)),
                     float(m.get("wall_time_s", 0.0)),
                     spans=_read_spans(run_dir),
                     objective=None if objective is None else float(objective),
                     stopped_at=None if stopped is None else int(stopped),
                     checkpoints=tuple((int(a), float(b)) for a, b in early.get("checkpoints") or ()))


class _Tracked:
    """The caller's pool with a callback on every task that comes back."""

    def __init__(self, pool, on_done):
        self.pool, self.on_done = pool, on_done
        self.kind = getattr(pool, "kind", "")
        self.workers = getattr(pool, "workers", None)

    def submit(self, task):
        fut = self.pool.submit(task)
        fut.add_done_callback(lambda f: self.on_done(f, task))
        return fut

    def reset(self) -> None:
        self.pool.reset()

    def close(self, *, kill: bool = False) -> None:
        self.pool.close(kill=kill)


def _already_finished(out: Path, planned) -> int:
    from engine.runs.sweep import DONE, read_results

    path = out / "results.csv"
    if not path.exists():
        return 0
    rows = read_results(path)
    return sum(1 for p in planned if p.run_dir in rows and rows[p.run_dir].status == DONE
               and (out / p.run_dir / "metrics.json").exists())


def run_comparison(plan: Plan, out: str | Path, pool, *, in_flight: int | None = None,
                   log: Callable[[str], None] = lambda line: None,
                   on_progress: Callable[[Progress], None] | None = None, plot: bool = True,
                   pins: tuple = ()) -> Comparison:
    """Run what ``plan`` still needs in ``out`` through ``pool`` (a LocalPool, RayPool, InlinePool or a
    :class:`StoppablePool` around one), then summarise every finished run, old and new, and write
    runs.csv, summary.csv, curves.csv, comparison.json and closeness.png to ``out``.

    ``pins`` (engine.corpus.PinnedValue, e.g. from a PRIOR.csv) are given to every run, candidates and
    nulls alike. Raises :class:`RunsStopped` when the pool was stopped (``out/results.csv`` keeps what
    finished).
    """
    from engine.runs.session import RunInputs
    from engine.runs.sweep import DONE, PlannedRun, drive
    from engine.runs.workers import RunItem

    out = Path(out)
    by_dir: dict[str, PlanItem] = {}
    planned = []
    for item in plan.items:
        d = run_folder(item, tuple(pins))
        by_dir[d] = item
        settings = {} if item.null is None else {"null": item.null}
        if item.restart:
            settings["restart"] = item.restart
        planned.append(PlannedRun(item.known, item.seed, settings, d))

    own_dirs = {(it.known, it.seed): d for d, it in by_dir.items() if it.null is None and it.restart == 0}
    own_scores: dict[str, float] = {}

    def candidate_scores(known: str) -> dict[int, float]:
        """The scores of the candidate's own runs finished so far (results.csv is current when a run is
        submitted: the sweep saves it after every run that ends)."""
        from engine.runs.sweep import read_results

        try:
            rows = read_results(out / "results.csv") if (out / "results.csv").exists() else {}
        except DecipherError:
            return {}
        got = {}
        for seed in plan.seeds:
            d = own_dirs.get((known, seed))
            if d is None or d not in rows or rows[d].status != DONE:
                continue
            if d not in own_scores:
                try:
                    m = json.loads((out / d / "metrics.json").read_text(encoding="utf-8"))
                    own_scores[d] = closeness_score(m["closeness"])
                except (OSError, ValueError, KeyError, TypeError):
                    continue
            got[seed] = own_scores[d]
        return got

    def make_items(known: str):
        def make(p: PlannedRun) -> RunItem:
            it = by_dir[p.run_dir]
            label = " ".join(f"{k}={v}" for k, v in p.settings.items())
            sinks = (BestSpans(out / p.run_dir),)
            if it.null is not None and it.early_stop > 0:
                rule = with_stop_rule(it, candidate_scores(it.known), len(plan.seeds)).stop
                sinks += () if rule is None else (rule.sink(),)
            return RunItem(out / p.run_dir, it.known, it.config.seed, label,
                           inputs=RunInputs(it.lost, it.vocabulary, it.config, pins=tuple(pins)), sinks=sinks)
        return make

    total = len(planned)
    done = [_already_finished(out, planned)]
    if on_progress is not None and done[0]:
        on_progress(Progress(done[0], total, done[0], f"{done[0]} of {total} runs already finished; not redone"))

    def finished(fut, task) -> None:  # in the pool's thread: count, then tell the caller
        if fut.cancelled() or fut.exception() is not None:
            return
        for result in fut.result():
            done[0] += 1
            if on_progress is not None:
                on_progress(Progress(done[0], total, 0, f"{Path(result.run_dir).relative_to(out)}: {result.status} "
                                                        f"in {result.wall_s:.1f} s"))

    tracked = _Tracked(pool, finished)
    # every run of a comparison is of one corpus and settings: the candidates' own runs share tasks, and
    # the nulls share others (a null's early stop reads the own runs finished when it is submitted);
    # a worker trains a task's runs as one batch (one DP call per vocabulary, one lattice pass)
    outcome = drive(out, planned, make_items, tracked, in_flight=in_flight, log=log, seeds_per_task="auto",
                    task_key=lambda p: "null" in p.settings)
    if getattr(pool, "stopped", None) is not None and pool.stopped.is_set():
        raise RunsStopped("stopped")
    records: list[ScoredRun] = []
    failures: list[tuple[PlanItem, str]] = []
    for p in planned:
        item = by_dir[p.run_dir]
        row = outcome.table.rows[p.run_dir]
        if row.status == DONE and (out / p.run_dir / "metrics.json").exists():
            try:
                result = read_run(out / p.run_dir)
            except (DecipherError, OSError, ValueError, KeyError) as e:
                failures.append((item, f"{p.run_dir}: {e}"))
                continue
            try:
                records.append(scored(item, result, plan.score))
            except DecipherError as e:
                failures.append((item, f"{p.run_dir}: {e}"))
        else:
            failures.append((item, f"{p.run_dir}: {row.status}{': ' + row.error if row.error else ''}"))
    comparison = summarise(plan, records, failures)
    write_comparison(out, comparison, plot=plot)
    return comparison


def append_results(path: str | Path, lost: str, comparison: Comparison, *,
                   conflicts: list[str] | None = None, stopped: list[str] | None = None) -> int:
    """Append the comparison's finished runs to a results file (:data:`RESULTS_COLUMNS`), leaving out
    those already there (same lost, known, seed, null, steps and null mode), so appending again after a resumed
    run adds only the new runs. Returns how many rows were added. The file has no column for the
    restarts, so a seed's kept run that differs from the one already there (another ``--restarts``)
    is not added either: ``conflicts`` (when given) gets a line for each. Nor is a null run the early stop
    ended (the file has no column for it, and its score is of an earlier step): ``stopped`` gets a line
    for each."""
    from engine.io.atomic import unguard_row, write_csv

    if comparison.plan.score != "area":   # its score column holds areas (benchmarks/results/closeness.csv)
        raise DecipherError(f"{path}: a closeness results file holds area scores; this comparison's score is "
                            f"{comparison.plan.score}")
    path = Path(path)
    rows: list[list[str]] = []
    if path.exists():
        with open(path, encoding="utf-8", newline="") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is not None and tuple(header) not in (RESULTS_COLUMNS, _RESULTS_COLUMNS_BEFORE):
                raise DecipherError(f"{path}: not a closeness results file (columns {', '.join(RESULTS_COLUMNS)})")
            rows = [r + [""] * (len(RESULTS_COLUMNS) - len(r)) for r in map(unguard_row, reader) if r]
    seen = {(r[0], r[1], r[2], r[3], r[6], r[8]): r[4] for r in rows if len(r) == len(RESULTS_COLUMNS)}
    mode = comparison.plan.null_mode
    added = 0
    for rec in comparison.records:
        r = rec.result
        null = "" if rec.item.null is None else str(rec.item.null)
        if r.stopped_at is not None:
            if stopped is not None:
                stopped.append(f"{rec.item.known} seed {rec.item.seed} null {null}: stopped at step {r.stopped_at}")
            continue
        key = (lost, rec.item.known, str(rec.item.seed), null, str(r.steps), mode)
        if key in seen:
            if conflicts is not None and seen[key] != f"{rec.score:.6f}":
                conflicts.append(f"{rec.item.known} seed {rec.item.seed}" + (f" null {null}" if null else "")
                                 + f": {seen[key]} there, {rec.score:.6f} now")
            continue
        seen[key] = f"{rec.score:.6f}"
        rows.append([lost, rec.item.known, str(rec.item.seed), null, f"{rec.score:.6f}",
                     f"{coverage_at(r.curve, DEFAULT_CONFIDENCE):.6f}", str(r.steps), f"{r.wall_s:.3f}", mode])
        added += 1
    if added:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_csv(path, RESULTS_COLUMNS, rows, guard_formulas=True)
    return added


__all__ = ["Progress", "RESULTS_COLUMNS", "StoppablePool", "append_results", "fingerprint", "read_run",
           "run_comparison", "run_folder"]
