"""The run coordinator, Qt-free: what the Run panel's Start means and whether it may start, the
project's run settings, and the seed groups the project keeps (the run part of the window's model,
``WindowModel.runs``).

The Run panel's controls become a run in one place, :meth:`RunCoordinator.request`: the seeds
field (none or one seed: one run; several: a seed group) and the settings form, read once, give a
:class:`StartRequest`, or a :class:`Refusal` that says why nothing starts. The window's Qt side
(decipher_gui/live.py for one run, decipher_gui/seedgroup.py for a group) only carries the request
out. Plain Python: tests use it without a display.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from engine.config import Config
from engine.errors import DecipherError

from decipher_gui import queries
from decipher_gui.commands import Command, SetSetting
from decipher_gui.state import SessionState


@dataclass(frozen=True)
class StartRequest:
    """What Start starts: one run of ``config``, or (two seeds or more) a seed group of it."""

    config: Config
    seeds: tuple[int, ...] = ()

    @property
    def group(self) -> bool:
        return len(self.seeds) > 1


class Refusal(Exception):
    """Why Start starts nothing: a title and a message for the window's error box."""

    def __init__(self, title: str, message: str):
        super().__init__(f"{title}: {message}")
        self.title, self.message = title, message


@dataclass(frozen=True)
class RunForm:
    """The Run panel's controls as the coordinator reads them: the seeds field's text and the
    settings form (called once, after the checks that need no settings)."""

    seeds: str
    config: Callable[[], Config]


class RunCoordinator:
    """The run part of the window's model: starting, run settings, seed groups."""

    def __init__(self, state: SessionState):
        self.state = state

    @property
    def project(self):
        return self.state.project

    # ---- starting ----------------------------------------------------------------------------

    def request(self, form: RunForm, config: Config | None = None, *, run_active: bool = False,
                group_active: bool = False) -> StartRequest | None:
        """The one reading of the Run panel: its seeds and (unless ``config`` is given) its settings
        become a :class:`StartRequest`; :class:`Refusal` says why nothing may start; None: nothing to
        say (no project, or a run already training)."""
        from engine.runs.seeds import parse_seed_list

        state = self.state
        try:
            seeds = tuple(parse_seed_list(form.seeds))
        except DecipherError as exc:
            raise Refusal("Invalid seeds", str(exc)) from None
        if group_active:
            raise Refusal("A seed group is running", "Stop the seed group before starting another run.")
        group = len(seeds) > 1
        if self.project is None or (run_active and not group):
            return None
        if run_active:
            raise Refusal("A run is active", "Stop the run before starting a seed group.")
        if state.corpus_id is None or state.language_id is None:
            raise Refusal("Nothing to run on", "Import a corpus and a known language first (File ▸ Import).")
        if group and getattr(self.project, "read_only", False):
            raise Refusal("The project is read-only", "A seed group records its runs in the project; "
                          "open a writable copy.")
        if config is None:
            try:
                config = form.config()
            except DecipherError as exc:
                raise Refusal("Invalid run settings", str(exc)) from None
        if len(seeds) == 1:
            config = config.replace(seed=seeds[0])
        return StartRequest(config, seeds)

    # ---- the project's run settings ------------------------------------------------------------

    def run_defaults(self, warn: Callable[[str], None] | None = None) -> Config:
        """The run settings the project keeps (the defaults without a project); ``warn`` hears of a
        stored value a newer check refuses (it falls back to its default)."""
        return queries.run_defaults(self.project, warn=warn)

    def set_run_defaults(self, values: dict) -> Command | None:
        """The command that makes ``values`` the project's run settings (None without a project)."""
        from engine.datasets.sample import RUN_CONFIG_KEY

        if self.project is None:
            return None
        return SetSetting(RUN_CONFIG_KEY, values, self.project.setting(RUN_CONFIG_KEY), "Change default run settings")

    # ---- seed groups ------------------------------------------------------------------------------

    def seed_groups(self) -> list[dict]:
        """The project's stored seed groups ([] without a project)."""
        from engine.runs.seeds import seed_groups

        return [] if self.project is None else seed_groups(self.project)

    def group_progress(self, after_run: int, seeds: Sequence[int], steps: int, corpus_id: int | None,
                       language_id: int | None) -> queries.GroupProgress | None:
        """A running seed group's progress (None without a project)."""
        if self.project is None:
            return None
        return queries.group_progress(self.project, after_run, list(seeds), steps, corpus_id, language_id)

    def last_run_id(self) -> int:
        """The newest run's id (0 without runs): a seed group's runs are the ones after it."""
        runs = [] if self.project is None else self.project.runs()
        return max((r.id for r in runs), default=0)

    def seed_group_folder(self, config: Config) -> Path:
        """The folder of a seed group of ``config`` on the chosen corpus and language with the
        project's pins (the same setting again goes to the same folder); DecipherError or OSError
        when it cannot be named or made."""
        from engine.runs.seeds import group_folder

        p, s = self.project, self.state
        return group_folder(p.path, p.corpus(s.corpus_id).name, p.vocabulary(s.language_id).language,  # type: ignore
                            config, p.pins())  # type: ignore[union-attr]

    def group_agreement(self, group: dict) -> dict:
        """The agreement of a stored group's seeds on each match ({} without a project)."""
        from engine.runs.seeds import group_agreement

        return {} if self.project is None else group_agreement(self.project, group)

    def project_path(self) -> Path | None:
        """The open project's file (a seed group's workers open it themselves)."""
        return None if self.project is None else Path(self.project.path)


__all__ = ["Refusal", "RunCoordinator", "RunForm", "StartRequest"]
