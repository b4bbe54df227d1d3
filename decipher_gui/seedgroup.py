"""A seed group from the Run panel: trained by engine.runs.seeds.run_seeds_in_project in worker processes
(a decipher_gui.background job only waits on them), and what the views show of a group: each match's
agreement, agreed and contested spans, and a warning when the chosen seed disagrees with most others.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from PySide6.QtCore import QObject, QTimer

from engine.config import Config
from engine.errors import DecipherError
from engine.runs.seeds import SeedsOutcome, StopRequest, group_of_run

from decipher_gui.background import BackgroundJob
from decipher_gui.errors import describe

if TYPE_CHECKING:
    from .coordinator import StartRequest
    from .view import WindowView


def train_group(project_path: Path, config: Config, seeds: Sequence[int], out: Path, corpus_id: int,
                language_id: int, workers: int, stop: StopRequest):
    """The seed group's background work: train the group to its end and return its SeedsOutcome.
    The training is in worker processes (engine.runs.workers.LocalPool: at most one per core,
    pinned threads, lower priority); the work only waits on them and reports ``("progress", done,
    total)`` and ``("log", line)``."""
    def work(report) -> SeedsOutcome:
        from engine.runs.seeds import run_seeds_in_project
        from engine.runs.workers import LocalPool

        pool = LocalPool(workers)
        try:
            return run_seeds_in_project(
                Path(project_path), config, list(seeds), Path(out), corpus=corpus_id, language=language_id,
                pool=pool, stop=stop, progress=lambda done, total: report(("progress", done, total)),
                log=lambda line: report(("log", line)))
        finally:
            pool.close(kill=stop.is_set())
    return work


def group_workers(n_seeds: int) -> int:
    """Worker processes for a group: one per seed, at most one per core."""
    from engine.runs.workers import default_workers

    return max(1, min(n_seeds, default_workers()))


def group_markers(groups: Sequence[dict]) -> dict[int, tuple[str, str]]:
    """Run id -> (marker, tooltip) for the Runs table: which runs form a group, which one is chosen."""
    out: dict[int, tuple[str, str]] = {}
    for number, g in enumerate(groups, start=1):
        seeds = g.get("seeds") or sorted(int(s) for s in g["runs"])
        state = "" if g.get("complete", True) else " (stopped before every seed finished)"
        for seed, run_id in g["runs"].items():
            if run_id is None:
                continue
            chosen = run_id == g.get("chosen_run")
            text = f"G{number} · seed {seed}" + (" ★ chosen" if chosen else "")
            tip = (f"Seed group {number}: {len(seeds)} seeds ({' '.join(map(str, seeds))}) of one setting{state}; "
                   f"folder {g.get('out', '')}.\n★ marks the seed chosen without gold: the one whose readings "
                   "the other seeds corroborate most (docs/seeds.md)."
                   + (f"\nChosen because: {g['chosen_because']}" if chosen and g.get("chosen_because") else ""))
            out[run_id] = (text, tip)
    return out


def group_warning(number: int, group: dict) -> str | None:
    """The Runs panel's warning for a group, or None when its chosen seed is corroborated."""
    if not group.get("chosen_disagrees_with_most"):
        return None
    others = len(group["runs"]) - 1
    agree = group.get("seeds_agreeing_with_chosen", 0)
    return (f"⚠ Seed group {number}: the chosen seed {group.get('chosen_seed')} disagrees with most "
            f"other seeds (only {agree} of {others} decode at least half of its readings the same "
            "way). The training may have landed in different solutions: trust only the readings "
            "with high agreement, or run more seeds.")


class SeedGroupBridge(QObject):
    """Starts and stops seed groups for the window and shows a shown run's group (GUI thread only)."""

    def __init__(self, window: "WindowView"):
        super().__init__(window)
        self.w = window
        self.job: BackgroundJob | None = None
        self.out: Path | None = None               # the running group's folder
        self._stop_request: StopRequest | None = None
        self._agreement_cache: dict[tuple[str, str], tuple[str, dict]] = {}
        self._closing = False
        window.runs.groupStopRequested.connect(self.stop)

    @property
    def active(self) -> bool:
        return self.job is not None

    # ---- starting -----------------------------------------------------------------------------

    def start_group(self, request: "StartRequest") -> bool:
        """Start the seed group of ``request`` in worker processes (the run coordinator has read the
        form and checked that it may start: decipher_gui/coordinator.py)."""
        w, s, runs = self.w, self.w.state, self.w.model.runs
        project_path = runs.project_path()
        if project_path is None:
            return False
        seeds, config = request.seeds, request.config
        try:
            out = runs.seed_group_folder(config)
        except (DecipherError, OSError) as exc:
            w.report_error(*describe(exc))
            return False
        self._stop_request = stop = StopRequest()
        job = BackgroundJob(train_group(project_path, config, seeds, out, s.corpus_id, s.language_id,
                                        group_workers(len(seeds)), stop), "decipher-seed-group", self)
        job.progressed.connect(self._on_report)
        job.succeeded.connect(self._on_succeeded)
        job.failed.connect(self._on_failed)
        job.ended.connect(self._on_job_ended)
        self.job, self.out = job, out
        self._project_path = project_path
        w.runs.set_group_running(True, len(seeds), out)
        w.acts.start.setEnabled(False)
        self.watch(runs.last_run_id(), seeds, config.steps, s.corpus_id, s.language_id)
        job.start()
        return True

    # ---- the running group's training in the run panel and the plots ------------------------------

    def watch(self, after_run: int, seeds: Sequence[int], steps: int, corpus_id: int | None,
              language_id: int | None) -> None:
        """Follow the group's runs (those its workers record after ``after_run``) once a second: the
        run panel's bar and line show the steps trained over all seeds (it said "Idle" and "no run
        yet"), the plots the curves of the seed furthest along, as its worker records them."""
        self._watched = (after_run, list(seeds), int(steps), corpus_id, language_id)
        if self.w.model.runs.project_path() is not None:
            self._project_path = self.w.model.runs.project_path()
        self._plotted: tuple[int | None, int] = (None, -1)
        if getattr(self, "_timer", None) is None:
            self._timer = QTimer(self)
            self._timer.setInterval(1000)
            self._timer.timeout.connect(self.poll)
        self._timer.start()
        self.poll()

    def unwatch(self) -> None:
        if getattr(self, "_timer", None) is not None:
            self._timer.stop()
        self._watched = None

    def poll(self) -> None:
        """Read the group's progress from the project and show it (GUI thread; a few small queries)."""
        watched = getattr(self, "_watched", None)
        if watched is None or self._closing or not self._same_project():
            return
        try:
            progress = self.w.model.runs.group_progress(*watched)
        except DecipherError as exc:  # the project file is busy or gone: say so, try again next tick
            self.w.statusBar().showMessage(f"Seed group progress not read: {exc}", 3000)
            return
        if progress is None:
            return
        self.w.runs.set_group_steps(progress.steps, progress.total, progress.line)
        key = (progress.plotted, len(progress.metrics))
        if progress.plotted is not None and key != self._plotted and not self.w.controller.active:
            self._plotted = key
            self.w.plots.load_history(list(progress.metrics))
            self.w.plots.set_step_range(watched[2])

    def stop(self) -> None:
        if self.job is not None:
            self._stop_request.set()  # type: ignore[union-attr]
            self.w.runs.set_group_stopping()

    def shutdown(self, timeout_ms: int = 60_000) -> bool:
        """The window closes: stop the group (finished seeds are kept) and wait for its work."""
        self._closing = True
        self.unwatch()
        if self.job is None:
            return True
        self._stop_request.set()  # type: ignore[union-attr]
        return self.job.wait(timeout_ms)

    # ---- the job's signals ----------------------------------------------------------------------

    def _same_project(self) -> bool:
        path = self.w.model.runs.project_path()
        return path is not None and path == getattr(self, "_project_path", None)

    def _on_report(self, item: tuple) -> None:
        if item[0] == "log":
            self.w.statusBar().showMessage(item[1], 8000)
        else:
            self._on_progress(*item[1:])

    def _on_progress(self, done: int, total: int) -> None:
        if self.job is None or self._closing:
            return
        self.w.runs.set_group_progress(done, total)
        if self._same_project():
            self.w.refresh_runs()

    def _on_succeeded(self, outcome: SeedsOutcome) -> None:
        w = self.w
        if self._closing:
            return
        w.runs.set_group_running(False)
        if not self._same_project():
            return
        w.refresh_runs()
        chosen = outcome.metrics.get("chosen_seed")
        if outcome.stopped:
            done = len(outcome.metrics.get("seeds", []))
            w.statusBar().showMessage(f"Seed group stopped: {done} of {done + len(outcome.failed)} seeds "
                                      f"finished and kept in {outcome.out}; Start the same group to "
                                      "finish the rest", 15000)
        else:
            w.statusBar().showMessage(f"Seed group finished: seed {chosen} chosen without gold "
                                      f"({outcome.metrics.get('chosen_because', '')})", 15000)
        groups = w.model.runs.seed_groups()
        group = next((g for g in groups if g.get("out") == str(outcome.out)), None)
        if group is not None and group.get("chosen_run") is not None:
            w.show_run(group["chosen_run"])

    def _on_failed(self, title: str, message: str) -> None:
        if self._closing:
            return
        self.w.runs.set_group_running(False)
        self.w.report_error(f"Seed group failed: {title[:1].lower() + title[1:]}", message)

    def _on_job_ended(self) -> None:
        self.unwatch()
        job, self.job = self.job, None
        if job is not None:
            job.deleteLater()
        if self._closing:
            return
        self.w.runs.set_group_running(False)
        self.w.acts.start.setEnabled(not self.w.controller.active)

    # ---- showing a group ------------------------------------------------------------------------

    def markers(self) -> dict[int, tuple[str, str]]:
        return group_markers(self.w.model.runs.seed_groups())

    def show_group_of(self, run_id: int | None) -> None:
        """The shown run changed: its group's agreement in Matches and the inscription view, and
        the warning in the Runs panel (all cleared when the run is in no group)."""
        w, runs = self.w, self.w.model.runs
        path = runs.project_path()
        found = None if path is None else group_of_run(runs.seed_groups(), run_id)
        if found is None:
            agreement, warning = {}, None
        else:
            number, group = found
            agreement = self._agreement(path, group)
            warning = group_warning(number, group)
        w.matches.set_agreement(agreement)
        w.inscriptions.set_agreement(agreement)
        w.runs.set_group_warning(warning)

    def _agreement(self, project_path: Path, group: dict) -> dict:
        """The group's agreement, cached while the group's stored entry is unchanged."""
        import json

        key = (str(project_path), group.get("out", ""))
        stamp = json.dumps(group, sort_keys=True, default=str)
        cached = self._agreement_cache.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        agreement = self.w.model.runs.group_agreement(group)
        self._agreement_cache[key] = (stamp, agreement)
        return agreement


__all__ = ["SeedGroupBridge", "train_group", "group_markers", "group_warning", "group_workers"]
