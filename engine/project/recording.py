"""The one recorder of a training run in a project file, wherever the run was started (CLI, GUI,
sweep worker): its settings, code version and device, its pins with their history, step metrics,
evaluations with their matches, the learned character mapping, checkpoints, and its end.

As a sink of a run session (engine/runs/session.py)::

    recorder = RunRecorder(project_or_path, corpus_id=c, language_id=l, resumed_from=None)
    RunSession(inputs, sinks=[recorder, ...], checkpoint=recorder.checkpoint_file).run()

``started`` records the run (status "running"), ``finished``/``failed`` end it. Given a path
instead of an open Project, it opens its own connection in ``started`` (on the training thread)
and closes it in ``close``. Each write commits before it returns, so a process killed at any
point leaves the run "running" with everything recorded so far; the next open marks it
"interrupted". The older event-feeding form still works: ``RunRecorder(project, run_id)(event)``.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from engine.corpus import PinnedValue
from engine.errors import ProjectError
from engine.results import EvalEvent, FinishedEvent, MappingSnapshot, StepEvent, SyllableTable
from engine.runs.session import RunOutcome, RunSink, RunStart, failure_text
from engine.project.store import Project
from engine.project.pins import pin_history, record_pins, run_pins_text

#: Where GUI runs before schema v3 kept their last character mapping (still read as a fallback).
LEGACY_MAPPING_KEY = "gui.mapping.run.{}"


# ---------------------------------------------------------------------------------------------
# checkpoint paths


def checkpoint_folder(project_path: Path, run_id: int) -> Path:
    """``<project>.runs/run-<id>/``: where a project run keeps its checkpoint by default."""
    project_path = Path(project_path)
    return project_path.with_name(project_path.name + ".runs") / f"run-{run_id}"


def stored_path(project_path: Path, path: Path) -> str:
    """``path`` as the run records it: relative to the project's folder when inside it."""
    try:
        return str(Path(path).resolve().relative_to(Path(project_path).resolve().parent))
    except ValueError:
        return str(Path(path).resolve())


def resolve_checkpoint(project_path: Path, stored: str) -> Path:
    """The file a run's recorded checkpoint path names."""
    p = Path(stored)
    return p if p.is_absolute() else Path(project_path).resolve().parent / p


def run_of_checkpoint(project: Project, checkpoint: Path) -> int | None:
    """The newest run whose recorded checkpoint is this file (the run a resume continues)."""
    wanted = Path(checkpoint).resolve()
    for run in reversed(project.runs()):
        if run.checkpoint and resolve_checkpoint(project.path, run.checkpoint).resolve() == wanted:
            return run.id
    return None


# ---------------------------------------------------------------------------------------------
# the learned mapping


def record_mapping(project: Project, run_id: int, step: int, mapping: MappingSnapshot) -> None:
    """Keep the run's latest learned character mapping (P(lost | known)) for explanations."""
    probs = [[round(float(x), 6) for x in row] for row in np.asarray(mapping.probs)]
    syllables = None
    if mapping.syllables is not None:     # a syllable run: P(onset | sign), P(vowel | sign) too
        table = mapping.syllables.to_json()
        for key in ("onset_probs", "vowel_probs"):
            table[key] = [[round(float(x), 6) for x in row] for row in table[key]]
        syllables = json.dumps(table, ensure_ascii=False)
    try:
        with project.transaction():
            project.conn.execute(
                "INSERT INTO run_mapping (run_id, step, lost, known, probs, syllables) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (run_id) DO UPDATE SET step = excluded.step, lost = excluded.lost, "
                "known = excluded.known, probs = excluded.probs, syllables = excluded.syllables",
                (run_id, int(step), json.dumps(list(mapping.lost), ensure_ascii=False),
                 json.dumps(list(mapping.known), ensure_ascii=False), json.dumps(probs), syllables))
    except sqlite3.Error as e:
        raise ProjectError(f"{project.path}: cannot record the mapping of run {run_id} ({e})") from None


def mapping_of(project: Project, run_id: int) -> MappingSnapshot | None:
    """The character mapping a run left behind (any run since schema v3; GUI runs before it),
    with what a syllable run learned of each sign (schema v5; None for letter runs and older
    files)."""
    try:
        row = project.conn.execute("SELECT lost, known, probs, syllables FROM run_mapping WHERE run_id = ?",
                                   (run_id,)).fetchone()
    except sqlite3.Error:
        row = None
    if row is not None:
        try:
            return MappingSnapshot(tuple(json.loads(row[0])), tuple(json.loads(row[1])),
                                   np.asarray(json.loads(row[2]), dtype=float), _syllables(row[3]))
        except (ValueError, TypeError, KeyError):
            return None
    data = project.setting(LEGACY_MAPPING_KEY.format(run_id))
    if not data:
        return None
    try:
        return MappingSnapshot(tuple(data["lost"]), tuple(data["known"]), np.asarray(data["probs"], dtype=float))
    except (KeyError, TypeError, ValueError):
        return None


def _syllables(text: str | None) -> SyllableTable | None:
    """The stored syllable table (None: a letter run); a table whose shapes disagree is refused
    (ValueError) like any unreadable mapping."""
    if text is None:
        return None
    data = json.loads(text)
    table = SyllableTable.from_json(data)
    n = len(table.signs)
    if n == 0:      # [] reads as shape (0,)
        table = SyllableTable((), table.onsets, np.zeros((0, len(table.onsets))), table.vowels,
                              np.zeros((0, len(table.vowels))))
    if (table.onset_probs.shape != (n, len(table.onsets)) or table.vowel_probs.shape != (n, len(table.vowels))
            or not all(isinstance(x, str) for x in table.signs + table.onsets + table.vowels)):
        raise ValueError("a syllable table whose shapes disagree")
    return table


# ---------------------------------------------------------------------------------------------
# the recorder


class RunRecorder(RunSink):
    """One run's record in the project, from ``started`` to ``finished``/``failed``.

    ``critical=False`` (the GUI) turns a refused write into a message and lets the run go on;
    the command line keeps the default, so a run that cannot be recorded fails.
    """

    name = "the run's record in the project"

    def __init__(self, project: Project | str | Path, run_id: int | None = None, *,
                 corpus_id: int | None = None, language_id: int | None = None,
                 resumed_from: int | None = None, step_every: float = 2.0,
                 clock: Callable[[], float] = time.monotonic, critical: bool = True):
        self._path = None if isinstance(project, Project) else Path(project)
        self.project: Project | None = project if isinstance(project, Project) else None
        self.run_id = run_id
        self.corpus_id = corpus_id
        self.language_id = language_id
        self.resumed_from = resumed_from
        self.step_every = step_every
        self.clock = clock
        self.critical = critical
        self._last_write = -float("inf")
        self._unwritten: StepEvent | None = None
        self.last_step = 0
        self.ended = False
        self._pins: tuple[PinnedValue, ...] | None = None
        #: the start (setting restarts) the model is of: steps and evaluations are recorded under it
        self.restart = 0

    @property
    def project_path(self) -> Path:
        return self.project.path if self.project is not None else self._path

    def _open(self) -> bool:
        return self.run_id is not None and self.project is not None and not self.ended

    # ---- the session's events ----------------------------------------------------------------

    def started(self, start: RunStart) -> None:
        if self.project is None:
            self.project = Project.open(self._path)
        if self.run_id is None:
            with self.project.transaction():
                self.run_id = self.project.start_run(
                    start.config, self.corpus_id, self.language_id, device=start.device,
                    seed=start.config.seed, pins=list(start.pins), resumed_from=self.resumed_from)
                record_pins(self.project, self.run_id, start.step, start.pins)
                if getattr(start.trainer, "forced_resume", None):   # --force-resume, kept with the run
                    self.project.record_metrics(self.run_id, start.step, {"forced_resume": 1.0})
                if start.step:
                    self.project.heartbeat(self.run_id, start.step)
        self._pins = tuple(start.pins)
        self.last_step = start.step
        self.restart = int(getattr(start, "restart", 0))

    def checkpoint_file(self, start: RunStart | None = None) -> Path | None:
        """The default checkpoint of this run: ``<project>.runs/run-<id>/checkpoint.pt`` (None when
        the project refused to record the run: then nothing would name the file)."""
        if self.run_id is None:
            return None
        from engine.io.atomic import refuse_symlinks

        # <project>.runs/run-<id>/ is the program's: a planted link there is refused, not followed
        return refuse_symlinks(checkpoint_folder(self.project_path, self.run_id) / "checkpoint.pt",
                               Path(self.project_path).parent)

    def step(self, event: StepEvent, *, force: bool = False) -> None:
        """Losses, coverage and schedules of a step (names ``loss/<name>``, ``batch_coverage``,
        ``insertion_cost``, ``coverage_target``) under the step's start (setting restarts); throttled,
        and always written on the last step (of each start) and before another start's first."""
        if not self._open():
            return
        if event.restart != self.restart and self._unwritten is not None:
            self.step(self._unwritten, force=True)      # the last start's last step stays on its curve
        self.restart = event.restart
        now = self.clock()
        last = event.step >= event.total_steps
        self.last_step = event.step
        if not (force or last or now - self._last_write >= self.step_every):
            self._unwritten = event
            return
        self._write_step(event)
        self._last_write = now

    def _write_step(self, event: StepEvent) -> None:
        values = {f"loss/{k}": float(v) for k, v in event.losses.items()}
        values.update(batch_coverage=event.coverage, insertion_cost=event.insertion_cost,
                      coverage_target=event.coverage_target)
        self.project.record_metrics(self.run_id, event.step, values, restart=event.restart)
        self._unwritten = None

    def evaluation(self, event: EvalEvent) -> None:
        """The evaluation's metrics (plus ``coverage``), its decoded matches and the mapping, in one
        transaction; the losses of the step it follows too, when the throttle held them back, so the
        stored loss curve has a point at every evaluation step (not only one per ``step_every``
        seconds: a 189-step run kept 6)."""
        if not self._open():
            return
        values = {k: float(v) for k, v in event.metrics.items()}
        values["coverage"] = event.coverage
        with self.project.transaction():
            if self._unwritten is not None:
                self._write_step(self._unwritten)
            self.restart = int(getattr(event, "restart", self.restart))
            self.project.record_metrics(self.run_id, event.step, values, restart=self.restart)
            self.project.record_matches(self.run_id, event.matches)
            if event.mapping is not None:
                record_mapping(self.project, self.run_id, event.step, event.mapping)
        self.last_step = max(self.last_step, event.step)

    def pins_changed(self, step: int, pins: tuple[PinnedValue, ...]) -> None:
        """A change of the pins in force (the same pins sent again are not one)."""
        if self._open() and tuple(pins) != self._pins:
            record_pins(self.project, self.run_id, step, pins)
            self._pins = tuple(pins)

    def checkpoint(self, path: str | Path, step: int | None = None) -> None:
        if self._open():
            stored = stored_path(self.project.path, Path(path)) if isinstance(path, Path) else str(path)
            self.project.set_checkpoint(self.run_id, stored)

    def heartbeat(self, step: int | None = None) -> None:
        if self._open():
            self.project.heartbeat(self.run_id, self.last_step or None)

    def finished(self, outcome: RunOutcome) -> None:
        if not self._open():
            return
        if self._unwritten is not None:
            self.step(self._unwritten, force=True)
        checkpoint = None if outcome.checkpoint is None else stored_path(self.project.path, outcome.checkpoint)
        self.project.heartbeat(self.run_id, outcome.step)
        refused = None
        if outcome.diagnosis is not None:   # before the end, so a run shown as ended has its diagnosis
            try:
                self.project.record_diagnosis(self.run_id, None if outcome.final_objective is None
                                              else outcome.final_objective.get("objective"), outcome.diagnosis,
                                              outcome.inputs_digest)
            except ProjectError as e:       # the run still ends; the refusal is told (a message)
                refused = e
        self.project.finish_run(self.run_id, outcome.status, error=outcome.note, checkpoint=checkpoint)
        self.ended = True
        if refused is not None:
            raise refused

    def failed(self, error: BaseException, step: int | None = None) -> None:
        self.fail(error)

    def close(self) -> None:
        """Close the connection this recorder opened (a Project handed in stays open)."""
        if self._path is not None and self.project is not None and not self.project.closed:
            self.project.close()

    # ---- the event-feeding form (a caller driving a trainer itself) ---------------------------

    def __call__(self, event) -> None:
        if isinstance(event, StepEvent):
            self.step(event)
        elif isinstance(event, EvalEvent):
            self.evaluation(event)
        elif isinstance(event, FinishedEvent):
            self.finish(event)

    def finish(self, event: FinishedEvent) -> None:
        from engine.runs.session import final_status

        if self._open():
            self.project.finish_run(self.run_id, final_status(event.reason), checkpoint=event.checkpoint)
            self.ended = True

    def fail(self, error: BaseException) -> None:
        """End the run after an exception: "stopped" for Ctrl-C, else "failed" with the reason."""
        if not self._open():
            return
        if self._unwritten is not None:
            try:
                self.step(self._unwritten, force=True)
            except ProjectError:
                pass
        status = "stopped" if isinstance(error, KeyboardInterrupt) else "failed"
        self.project.finish_run(self.run_id, status, error=failure_text(error))
        self.ended = True


# ---------------------------------------------------------------------------------------------
# a run as plain data (``decipher project runs --json``, sweeps)


def last_evaluation_metrics(project: Project, run_id: int,
                            names: Sequence[str] = ("p_at_1", "p_at_10", "coverage")) -> dict[str, float]:
    """The named metrics at the run's last evaluation (the last step that recorded ``coverage``
    or any of them); empty if the run never evaluated."""
    rows = [(s, n, v) for s, n, v in project.metrics(run_id) if n in names]
    if not rows:
        return {}
    last = max(s for s, _, _ in rows)
    return {n: v for s, n, v in rows if s == last}


def compared_diagnoses(project: Project) -> dict[int, dict]:
    """Every run's stored diagnosis (JSON), each with its objective and its readings compared with the
    other runs of the same inputs and settings but the seed (engine/training/diagnosis.py ``compared``):
    the same inputs digest (corpus, known stems and pins as the run ended; where none was stored, the
    same corpus, language and start pins) and the same settings except ``seed``, each with a final
    objective. A run without a stored diagnosis (older files, failed runs) is absent."""
    from engine.training.diagnosis import compared, diagnosis_from

    stored = project.diagnoses()
    digests = project.diagnosis_inputs()
    groups: dict[str, list[int]] = {}
    for run in project.runs():
        if run.id not in stored:
            continue
        settings = {k: v for k, v in run.config.items() if k != "seed"}
        inputs = digests.get(run.id) or [run.corpus_id, run.language_id, run_pins_text(run.pins)]
        key = json.dumps([inputs, settings], sort_keys=True, ensure_ascii=False, default=str)
        groups.setdefault(key, []).append(run.id)
    out: dict[int, dict] = {}
    for ids in groups.values():
        read = {o: diagnosis_from(stored[o][1]) for o in ids}
        for run_id in ids:
            objective, _ = stored[run_id]
            diagnosis = read[run_id]
            if diagnosis is None:
                continue
            others = {f"run {o}": stored[o][0] for o in ids if o != run_id and stored[o][0] is not None}
            readings = {f"run {o}": read[o].readings for o in ids
                        if o != run_id and read[o] is not None and read[o].readings}
            out[run_id] = (compared(diagnosis, objective, others, readings).to_json() if others or readings
                           else diagnosis.to_json())
    return out


def run_summary(project: Project, run_id: int, *, diagnoses: dict[int, dict] | None = None) -> dict:
    """One run as a JSON-able dict: id, status, steps (its target), last_step, checkpoint (as
    recorded, or None), pins (each change: step and the pins in force after it), metrics (the
    last evaluation's p_at_1, p_at_10, coverage), where/when it ran, its final objective and its
    gold-free ``diagnosis`` (compared with the project's runs of the same inputs and settings;
    None: no diagnosis, e.g. a run of an older program). ``diagnoses``: :func:`compared_diagnoses`
    when the caller lists many runs."""
    run = project.run(run_id)
    if diagnoses is None:
        diagnoses = compared_diagnoses(project)
    stored = project.diagnosis(run_id)
    metrics = {k: (None if v != v else v) for k, v in last_evaluation_metrics(project, run_id).items()}
    return {
        "id": run.id, "status": run.status, "steps": run.config.get("steps"), "last_step": run.last_step,
        "checkpoint": run.checkpoint, "pins": [c.to_json() for c in pin_history(project, run_id)],
        "metrics": metrics, "corpus_id": run.corpus_id, "language_id": run.language_id,
        "seed": run.seed, "device": run.device, "code_version": run.code_version,
        "resumed_from": run.resumed_from, "started_at": run.started_at, "ended_at": run.ended_at,
        "error": run.error, "final_objective": None if stored is None else stored[0],
        "diagnosis": diagnoses.get(run_id),
    }
