"""The Run panel's form on the window (GUI thread): Start hands its controls to the run
coordinator once (decipher_gui/coordinator.py ``RunCoordinator.request``) and carries out what
comes back, one run through the live run (live.py) or a seed group (seedgroup.py); the project's
run settings are loaded into the form, saved from it, and presets fill it."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from engine.config import PRESETS, Config
from engine.errors import DecipherError

from decipher_gui.coordinator import Refusal, RunForm

if TYPE_CHECKING:
    from decipher_gui.view import WindowView

log = logging.getLogger(__name__)


class RunFormBridge(QObject):
    """Start, and the run settings of the Run panel's form."""

    def __init__(self, window: "WindowView"):
        super().__init__(window)  # type: ignore[arg-type]
        self.w = window
        self.runs = window.model.runs

    def start(self, config: Config | None = None) -> bool:
        """Start what the Run panel says: one run (no seed or one seed in the seeds field) or a seed
        group (several); ``config`` instead of the form's settings. False with a message when
        it may not start."""
        w = self.w
        if isinstance(config, bool):  # a button's clicked(bool)
            config = None
        form = RunForm(w.runs.seeds.text(), w.runs.form.config)
        try:
            request = self.runs.request(form, config, run_active=w.controller.active,
                                        group_active=w.seed_groups.active)
        except Refusal as refusal:
            w.report_error(refusal.title, refusal.message)
            return False
        if request is None:
            return False
        return w.seed_groups.start_group(request) if request.group else w.live.start_run(request.config)

    # ---- the project's run settings -------------------------------------------------------------

    def load_defaults(self) -> None:
        self.w.runs.form.set_config(self.runs.run_defaults(warn=self._settings_warning))
        self.w.runs.check_span_limits()

    def _settings_warning(self, text: str) -> None:
        log.warning(text)
        self.w.statusBar().showMessage(f"Warning: {text}", 15000)

    def save_defaults(self) -> None:
        try:
            values = self.w.runs.form.config().to_dict()
        except DecipherError as exc:
            self.w.report_error("Invalid run settings", str(exc))
            return
        self.w.execute(self.runs.set_run_defaults(values))

    def apply_preset(self, name: str, save: bool = False) -> None:
        """Fill the run form with a preset's settings (paper, Ugaritic, Iberian); ``save`` also
        makes them the project's defaults."""
        if name not in PRESETS:
            self.w.report_error("Unknown preset", f"{name!r} is not one of {', '.join(PRESETS)}")
            return
        self.w.runs.fill_preset(name)
        if save:
            self.save_defaults()


__all__ = ["RunFormBridge"]
