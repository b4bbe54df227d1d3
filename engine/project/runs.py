"""Runs in a project file: their lifecycle (start, heartbeat, finish, interrupted), metrics,
decoded matches and the user's decisions on them; mixed into :class:`~engine.project.store.Project`."""

from __future__ import annotations

import json
import math
import os
import socket
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from engine.config import Config
from engine.corpus import PinnedValue
from engine.errors import ProjectError
from engine.errors import StoredValueError
from engine.results import Alternative, Match
from engine.project.liveness import STALE_OTHER_HOST, STALE_SAME_HOST, code_version, dead_runs
from engine.project.locking import locked
from engine.project.records import RUN_COLUMNS, DecisionKey, MatchRecord, RunRecord, run_record
from engine.project.schema import DECISIONS

FINAL_STATUSES = ("completed", "stopped", "failed", "interrupted")


def _real(value: float | None) -> float | None:
    """SQLite stores NaN as NULL: keep that explicit."""
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def _unreal(value: float | None) -> float:
    return math.nan if value is None else float(value)


class RunsMixin:
    """The run, metric, match and decision calls of a Project (which provides ``conn``, ``db``,
    ``transaction``, ``clock``, ``_stamp``, ``_need`` and ``pins``)."""

    # ---- runs ------------------------------------------------------------------------------

    @locked
    def start_run(self, config: Config | Mapping[str, Any], corpus_id: int | None,
                  language_id: int | None, *, device: str = "", seed: int | None = None,
                  pins: Sequence[PinnedValue] | None = None, resumed_from: int | None = None,
                  status: str = "running", pid: int | None = None) -> int:
        """Record a run that starts now (status "running", this process's pid and host).

        ``pins`` defaults to the project's current pins (a snapshot is kept with the run);
        ``seed`` defaults to the config's. Returns the run id.
        """
        cfg = config.to_dict() if isinstance(config, Config) else dict(config)
        if status not in ("running", "imported"):
            raise ProjectError(f"a run starts as running or imported, not {status!r}")
        if corpus_id is not None:
            self._need("corpus", corpus_id)
        if language_id is not None:
            self._need("language", language_id)
        if resumed_from is not None:
            self._need("run", resumed_from)
        pin_list = list(self.pins() if pins is None else pins)
        stamp = self._stamp()
        live = status == "running"
        with self.transaction():
            run_id = self.db["run"].insert({
                "status": status,
                "config": json.dumps(cfg, ensure_ascii=False),
                "seed": seed if seed is not None else cfg.get("seed"),
                "code_version": code_version(),
                "device": device or "",
                "corpus_id": corpus_id,
                "language_id": language_id,
                "pins": json.dumps([[p.lost, p.known_ipa, p.weight, p.locked, p.note] for p in pin_list],
                                   ensure_ascii=False),
                "started_at": stamp,
                "ended_at": None if live else stamp,
                "host": socket.gethostname() if live else "",
                "pid": (os.getpid() if pid is None else pid) if live else None,
                "heartbeat_at": stamp if live else None,
                "resumed_from": resumed_from,
            }).last_pk
        return int(run_id)

    @locked
    def heartbeat(self, run_id: int, step: int | None = None) -> None:
        """Say the run is alive (call at least every few minutes; each step is fine).

        A live run that another process wrongly marked "interrupted" goes back to "running".
        """
        with self.transaction():
            self._beat(run_id, step)

    def _beat(self, run_id: int, step: int | None) -> None:
        row = self.conn.execute("SELECT status, pid, host FROM run WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise ProjectError(f"no run {run_id} in {self.path.name}")
        status, pid, host = row
        if status == "interrupted" and pid == os.getpid() and host == socket.gethostname():
            status = "running"
            self.conn.execute("UPDATE run SET status = 'running', ended_at = NULL, error = NULL "
                              "WHERE id = ?", (run_id,))
        if status != "running":
            return
        self.conn.execute("UPDATE run SET heartbeat_at = ?, last_step = "
                          "CASE WHEN ? IS NULL THEN last_step ELSE max(coalesce(last_step, ?), ?) END "
                          "WHERE id = ?", (self._stamp(), step, step, step, run_id))

    @locked
    def set_checkpoint(self, run_id: int, path: str | Path | None) -> None:
        """Record the run's latest checkpoint file (kept if the run is later interrupted)."""
        self._need("run", run_id)
        with self.transaction():
            self.conn.execute("UPDATE run SET checkpoint = ? WHERE id = ?",
                              (None if path is None else str(path), run_id))
            self._beat(run_id, None)

    @locked
    def record_metrics(self, run_id: int, step: int, metrics: Mapping[str, float], *,
                       restart: int | None = None) -> None:
        """Store metric values at a step (a value recorded twice for a step is replaced).

        ``restart``: the start (setting restarts) whose step this is; each start counts its steps
        from 1, so its rows are kept apart, and the start last recorded becomes the run's curve
        (:meth:`metrics`): the one being trained, the kept one once chosen. None: the run's curve."""
        self._need("run", run_id)
        with self.transaction():
            if restart is None:
                restart = self._curve_restart(run_id)
            else:
                self.conn.execute("UPDATE run SET curve_restart = ? WHERE id = ? AND curve_restart != ?",
                                  (int(restart), run_id, int(restart)))
            self.conn.executemany(
                "INSERT INTO run_metric (run_id, name, restart, step, value) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (run_id, name, restart, step) DO UPDATE SET value = excluded.value",
                [(run_id, str(k), int(restart), int(step), _real(v)) for k, v in metrics.items()])
            self._beat(run_id, step)

    def _curve_restart(self, run_id: int) -> int:
        row = self.conn.execute("SELECT curve_restart FROM run WHERE id = ?", (run_id,)).fetchone()
        return int(row[0]) if row is not None and row[0] is not None else 0

    @locked
    def metrics(self, run_id: int, name: str | None = None, *, restart: int | None = None) -> list[tuple[int, str, float]]:
        """(step, name, value) rows in step order (NaN comes back for a NaN stored): the run's
        curve, i.e. the rows of its kept start (setting restarts; the start being trained while the
        choice is not made), or of ``restart``. A run of one start has only start 0."""
        sql = "SELECT step, name, value FROM run_metric WHERE run_id = ? AND restart = ?"
        args: tuple = (run_id, self._curve_restart(run_id) if restart is None else int(restart))
        if name is not None:
            sql += " AND name = ?"
            args += (name,)
        return [self._metric_row(args[0], s, n, v) for s, n, v in self.conn.execute(sql + " ORDER BY step, name", args)]

    def _metric_row(self, run_id: int, step: object, name: object, value: object) -> tuple[int, str, float]:
        """A stored metric row, checked as it is read (the scan on opening leaves this table to
        its readers: it is the largest by far); NULL is NaN."""
        where = f"run {run_id} {name!r} step {step}"
        if isinstance(step, bool) or not isinstance(step, int):
            raise StoredValueError(self.path, "run_metric", where, "step", f"not a whole number, found {step!r}")
        if not isinstance(name, str):
            raise StoredValueError(self.path, "run_metric", where, "name", f"not a text, found {type(name).__name__}")
        if value is None:
            return step, name, math.nan
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            shown = repr(value) if not isinstance(value, bytes) else f"a blob of {len(value)} bytes"
            raise StoredValueError(self.path, "run_metric", where, "value", f"not a number, found {shown[:40]}")
        return step, name, float(value)

    @locked
    def metrics_by_restart(self, run_id: int) -> dict[int, list[tuple[int, str, float]]]:
        """Every start's (step, name, value) rows, by start (setting restarts), in step order."""
        out: dict[int, list[tuple[int, str, float]]] = {}
        for r, s, n, v in self.conn.execute("SELECT restart, step, name, value FROM run_metric WHERE run_id = ? "
                                            "ORDER BY restart, step, name", (run_id,)):
            if isinstance(r, bool) or not isinstance(r, int):
                raise StoredValueError(self.path, "run_metric", f"run {run_id} {n!r} step {s}", "restart",
                                       f"not a whole number, found {r!r}")
            out.setdefault(r, []).append(self._metric_row(run_id, s, n, v))
        return out

    @locked
    def curve_restart(self, run_id: int) -> int:
        """The start whose rows are the run's curve (0 for a run of one start)."""
        self._need("run", run_id)
        return self._curve_restart(run_id)

    @locked
    def latest_metrics(self, run_id: int) -> dict[str, float]:
        """Each metric's value at the last step it was recorded (on the run's curve)."""
        rows = self.conn.execute(
            "SELECT name, value, step FROM run_metric m WHERE run_id = ? AND restart = ? AND step = "
            "(SELECT max(step) FROM run_metric WHERE run_id = m.run_id AND name = m.name AND restart = m.restart) "
            "ORDER BY name", (run_id, self._curve_restart(run_id)))
        return {n: self._metric_row(run_id, s, n, v)[2] for n, v, s in rows}

    @locked
    def record_matches(self, run_id: int, matches: Iterable[Match]) -> None:
        """Make these the run's decoded matches (replacing the previous set).

        A match keeps its id while its span (inscription, start, end) stays, and decisions are
        stored apart under their (inscription, start, end, form) key, so they survive.
        """
        self._need("run", run_id)
        items = list(matches)
        keys: dict[tuple[str, int, int], int] = {}
        for i, m in enumerate(items):
            key = (m.inscription_id, int(m.start), int(m.end))
            if key in keys:
                raise ProjectError(f"run {run_id}: two matches for span {m.start}..{m.end} of "
                                   f"inscription {m.inscription_id!r}")
            if not 0 <= m.start <= m.end:
                raise ProjectError(f"run {run_id}: bad span {m.start}..{m.end} in {m.inscription_id!r}")
            keys[key] = i
            ranks = [a.rank for a in m.alternatives]
            if len(set(ranks)) != len(ranks) or any(r < 1 for r in ranks):
                raise ProjectError(f"run {run_id}: the alternatives for {m.inscription_id!r} "
                                   f"{m.start}..{m.end} need distinct ranks from 1")
        with self.transaction():
            old = {(i, s, e): mid for mid, i, s, e in self.conn.execute(
                "SELECT id, inscription_id, span_start, span_end FROM run_match WHERE run_id = ?",
                (run_id,))}
            gone = [mid for key, mid in old.items() if key not in keys]
            self.conn.executemany("DELETE FROM run_match WHERE id = ?", [(m,) for m in gone])
            alternatives = []
            for position, m in enumerate(items):
                key = (m.inscription_id, int(m.start), int(m.end))
                mid = old.get(key)
                if mid is None:
                    mid = self.conn.execute(
                        "INSERT INTO run_match (run_id, position, inscription_id, span_start, span_end, "
                        "span, confidence) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (run_id, position, *key, m.span, _real(m.confidence))).lastrowid
                else:
                    self.conn.execute("UPDATE run_match SET position = ?, span = ?, confidence = ? "
                                      "WHERE id = ?", (position, m.span, _real(m.confidence), mid))
                    self.conn.execute("DELETE FROM run_alternative WHERE match_id = ?", (mid,))
                alternatives.extend(
                    {"match_id": mid, "rank": int(a.rank), "form": a.form, "ipa": a.ipa,
                     "gloss": a.gloss or "", "score": _real(a.score), "log_prob": _real(a.log_prob)}
                    for a in m.alternatives)
            if alternatives:
                self.db["run_alternative"].insert_all(alternatives, batch_size=1000)
            self._beat(run_id, None)

    @locked
    def finish_run(self, run_id: int, status: str, error: str | None = None,
                   checkpoint: str | Path | None = None) -> None:
        """End a run: completed, stopped, failed or interrupted (with the error text, if any)."""
        if status not in FINAL_STATUSES:
            raise ProjectError(f"a run finishes as {', '.join(FINAL_STATUSES)}, not {status!r}")
        with self.transaction():
            row = self.conn.execute("SELECT status FROM run WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise ProjectError(f"no run {run_id} in {self.path.name}")
            if row[0] not in ("running", "interrupted"):
                raise ProjectError(f"run {run_id} already ended ({row[0]})")
            self.conn.execute(
                "UPDATE run SET status = ?, ended_at = ?, error = ?, "
                "checkpoint = coalesce(?, checkpoint) WHERE id = ?",
                (status, self._stamp(), error, None if checkpoint is None else str(checkpoint), run_id))

    @locked
    def record_diagnosis(self, run_id: int, final_objective: float | None, diagnosis: Mapping[str, Any],
                         inputs_digest: str | None = None) -> None:
        """Store (or replace) a run's final objective and its gold-free diagnosis
        (engine/training/diagnosis.py ``Diagnosis.to_json()``); ``inputs_digest``: what the objective
        was computed from (engine/runs/session.py ``inputs_digest``; None keeps the stored one)."""
        self._need("run", run_id)
        text = json.dumps(dict(diagnosis), ensure_ascii=False, allow_nan=False)
        with self.transaction():
            self.conn.execute(
                "INSERT INTO run_diagnosis (run_id, final_objective, diagnosis, inputs_digest) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (run_id) DO UPDATE SET final_objective = excluded.final_objective, "
                "diagnosis = excluded.diagnosis, inputs_digest = coalesce(excluded.inputs_digest, inputs_digest)",
                (run_id, _real(final_objective), text, inputs_digest))

    @locked
    def diagnosis_inputs(self) -> dict[int, str]:
        """Run id -> the inputs digest stored with its diagnosis (runs without one are absent)."""
        rows = self.conn.execute("SELECT run_id, inputs_digest FROM run_diagnosis WHERE inputs_digest IS NOT NULL")
        return {int(r): str(d) for r, d in rows}

    @locked
    def diagnosis(self, run_id: int) -> tuple[float | None, dict] | None:
        """(final objective, diagnosis JSON) stored for a run, or None: a run without one (recorded
        before schema v6, or one that failed)."""
        row = self.conn.execute("SELECT run_id, final_objective, diagnosis FROM run_diagnosis WHERE run_id = ?",
                                (run_id,)).fetchone()
        return None if row is None else self._diagnosis_row(row)[1]

    @locked
    def diagnoses(self) -> dict[int, tuple[float | None, dict]]:
        """Every stored diagnosis: run id -> (final objective, diagnosis JSON)."""
        return dict(self._diagnosis_row(r) for r in
                    self.conn.execute("SELECT run_id, final_objective, diagnosis FROM run_diagnosis ORDER BY run_id"))

    def _diagnosis_row(self, row) -> tuple[int, tuple[float | None, dict]]:
        """A stored row read back, or StoredValueError naming the cell that is not what we write."""
        from engine.project.records import load_json

        run_id, objective, text = row
        if objective is not None and (isinstance(objective, bool) or not isinstance(objective, (int, float))):
            raise StoredValueError(self.path, "run_diagnosis", f"run {run_id}", "final_objective",
                                   f"not a number, found {objective!r:.40}")
        data = load_json(self.path, "run_diagnosis", f"run {run_id}", "diagnosis", text, dict)
        return int(run_id), (_real(objective), data)

    @locked
    def runs(self, status: str | None = None) -> list[RunRecord]:
        sql = f"SELECT {', '.join(RUN_COLUMNS)} FROM run"
        args: tuple = ()
        if status is not None:
            sql += " WHERE status = ?"
            args = (status,)
        return [run_record(r, self.path) for r in self.conn.execute(sql + " ORDER BY id", args)]

    @locked
    def run(self, run_id: int) -> RunRecord:
        row = self.conn.execute(f"SELECT {', '.join(RUN_COLUMNS)} FROM run WHERE id = ?",
                                (run_id,)).fetchone()
        if row is None:
            raise ProjectError(f"no run {run_id} in {self.path.name}")
        return run_record(row, self.path)

    @locked
    def remove_run(self, run_id: int) -> None:
        """Delete a run with its metrics, matches and decisions."""
        self._need("run", run_id)
        with self.transaction():
            self.conn.execute("UPDATE run SET resumed_from = NULL WHERE resumed_from = ?", (run_id,))
            self.conn.execute("DELETE FROM run WHERE id = ?", (run_id,))

    @locked
    def check_interrupted(self, *, stale_same_host: float = STALE_SAME_HOST,
                          stale_other_host: float = STALE_OTHER_HOST) -> list[int]:
        """Mark "interrupted" every run left "running" by a process that is gone.

        On this host: its pid is not alive, or its heartbeat is older than ``stale_same_host``
        seconds (a reused pid). On another host: its heartbeat is older than
        ``stale_other_host``. The checkpoint path stays, so the run can be resumed.
        Returns the ids marked.
        """
        if self.read_only:
            return []
        query = "SELECT id, host, pid, heartbeat_at, started_at FROM run WHERE status = 'running'"
        # a look without the write lock first (most opens find nothing to do) ...
        if not self._dead_runs(self.conn.execute(query).fetchall(), stale_same_host, stale_other_host):
            return []
        # ... then again under it: another process may have marked or finished them meanwhile
        with self.transaction():
            dead = self._dead_runs(self.conn.execute(query).fetchall(), stale_same_host,
                                   stale_other_host)
            for run_id, last, pid_gone in dead:
                why = ("its process ended without finishing the run (crash or kill)" if pid_gone
                       else "no heartbeat since " + str(last))
                self.conn.execute(
                    "UPDATE run SET status = 'interrupted', ended_at = coalesce(?, ended_at), "
                    "error = coalesce(error, ?) WHERE id = ? AND status = 'running'",
                    (last, f"interrupted: {why}", run_id))
        return [d[0] for d in dead]

    def _dead_runs(self, rows, stale_same_host: float, stale_other_host: float) -> list[tuple]:
        """(id, last sign of life, whether its pid is gone) of the running rows taken for dead."""
        return dead_runs(rows, here=socket.gethostname(), now=self.clock(),
                         stale_same_host=stale_same_host, stale_other_host=stale_other_host)

    # ---- matches and decisions ---------------------------------------------------------------

    @locked
    def match_records(self, run_id: int) -> list[MatchRecord]:
        """The run's matches in the order recorded, each with its id."""
        self._need("run", run_id)
        rows = self.conn.execute(
            "SELECT m.id, m.inscription_id, m.span_start, m.span_end, m.span, m.confidence, "
            "a.rank, a.form, a.ipa, a.score, a.gloss, a.log_prob FROM run_match m "
            "LEFT JOIN run_alternative a ON a.match_id = m.id WHERE m.run_id = ? "
            "ORDER BY m.position, a.rank", (run_id,))
        out: list[MatchRecord] = []
        current = None
        alts: list[Alternative] = []
        for mid, ins, s, e, span, conf, rank, form, ipa, score, gloss, lp in rows:
            if current is None or current[0] != mid:
                if current is not None:
                    out.append(MatchRecord(current[0], run_id, Match(*current[1:5], tuple(alts), current[5])))
                current = (mid, ins, s, e, span, _unreal(conf))
                alts = []
            if rank is not None:
                alts.append(Alternative(rank, form, ipa, _unreal(score), gloss, _unreal(lp)))
        if current is not None:
            out.append(MatchRecord(current[0], run_id, Match(*current[1:5], tuple(alts), current[5])))
        return out

    def matches(self, run_id: int) -> list[Match]:
        return [r.match for r in self.match_records(run_id)]

    @locked
    def decide(self, run_id: int, inscription_id: str, start: int, end: int, form: str,
               status: str | None, note: str = "") -> None:
        """Accept or reject stem ``form`` for a span; ``None`` takes the decision back.

        The span and form must be among the run's matches.
        """
        if status is not None and status not in DECISIONS:
            raise ProjectError(f"a decision is accepted, rejected or None, not {status!r}")
        with self.transaction():
            self._decide(run_id, (inscription_id, int(start), int(end), form), status, note)

    def _decide(self, run_id: int, key: DecisionKey, status: str | None, note: str = "",
                check: bool = True) -> None:
        if status is None:
            self.conn.execute("DELETE FROM decision WHERE run_id = ? AND inscription_id = ? AND "
                              "span_start = ? AND span_end = ? AND form = ?", (run_id, *key))
            return
        if check:
            found = self.conn.execute(
                "SELECT 1 FROM run_match m JOIN run_alternative a ON a.match_id = m.id "
                "WHERE m.run_id = ? AND m.inscription_id = ? AND m.span_start = ? AND m.span_end = ? "
                "AND a.form = ? LIMIT 1", (run_id, *key)).fetchone()
            if found is None:
                raise ProjectError(f"run {run_id} has no match of {key[3]!r} at {key[1]}..{key[2]} "
                                   f"of inscription {key[0]!r}")
        self.conn.execute(
            "INSERT INTO decision (run_id, inscription_id, span_start, span_end, form, status, note, "
            "decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, inscription_id, "
            "span_start, span_end, form) DO UPDATE SET status = excluded.status, "
            "note = excluded.note, decided_at = excluded.decided_at",
            (run_id, *key, status, note or "", self._stamp()))

    @locked
    def decisions(self, run_id: int) -> dict[DecisionKey, str]:
        """{(inscription_id, start, end, form): "accepted" | "rejected"} for the run."""
        rows = self.conn.execute("SELECT inscription_id, span_start, span_end, form, status FROM "
                                 "decision WHERE run_id = ?", (run_id,))
        return {(i, s, e, f): st for i, s, e, f, st in rows}
