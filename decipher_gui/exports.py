"""The window's exports, Qt-free: each writes one file (or folder) of the open project through the
engine's writer and returns what that writer returns (a count with ``guarded``, ``run_id`` and
``warnings`` where it has them). Every export of the app is formula-guarded. Reached as
``WindowModel.exports``; the window's actions ask for the path and report the result."""

from __future__ import annotations

from typing import Callable

from engine import project as projects
from engine.errors import DecipherError
from engine.io.display import DisplayTable
from engine.results import MappingSnapshot

from decipher_gui.state import SessionState


class ProjectExports:
    """The exports of the open project, of the shown run where an export is of a run."""

    def __init__(self, state: SessionState, display: Callable[[], DisplayTable]):
        self.state = state
        self.display = display   # the chosen corpus's display table, as the views show it

    @property
    def project(self):
        return self.state.project

    #: File ▸ Export ▸ "Byte-order mark in CSV exports": on by default, so a spreadsheet reads the
    #: UTF-8 (IPA, transliteration) as UTF-8
    export_bom = True

    def export_matches(self, path, **options):
        options.setdefault("guard_formulas", True)  # every export of the app is formula-guarded
        options.setdefault("bom", self.export_bom)
        return projects.export_matches(self.project, path, run_id=self.state.shown_run, **options)

    def unfinished_note(self, run_id: int | None = None) -> str | None:
        """What an export of run ``run_id`` (default: the shown run, else the report's default run) must
        say when that run has not finished (engine.project's unfinished_note, the CLI's words)."""
        if self.project is None:
            return None
        if run_id is None:
            run_id = self.state.shown_run
        if run_id is None:
            try:
                run_id = projects.default_run(self.project).id
            except DecipherError:
                return None
        return projects.unfinished_note(self.project, run_id)

    def export_prior(self, path):
        return projects.export_prior(self.project, path, guard_formulas=True, bom=self.export_bom,
                                      display=self.display())

    def export_sign_values(self, path, mapping: MappingSnapshot | None):
        return projects.export_sign_values(self.project, path, run_id=self.state.shown_run, mapping=mapping,
                                  guard_formulas=True, bom=self.export_bom)

    def language_codes(self) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
        """The chosen corpus's and known language's names and stored codes, by kind."""
        p, s = self.project, self.state
        names: dict[str, str] = {}
        codes: dict[str, dict[str, str]] = {}
        if p is None:
            return names, codes
        if s.corpus_id is not None:
            names["corpus"] = p.corpus(s.corpus_id).name
            codes["corpus"] = projects.language_codes(p, "corpus", s.corpus_id)
        if s.language_id is not None:
            names["language"] = p.vocabulary(s.language_id).language
            codes["language"] = projects.language_codes(p, "language", s.language_id)
        return names, codes

    def set_language_codes(self, values: dict[str, dict[str, str]]) -> None:
        """Store the codes typed for the chosen corpus / known language (checked first: a bad code is a
        DecipherError naming it, and nothing is stored)."""
        s = self.state
        for codes in values.values():
            projects.check_codes(**{k: v or None for k, v in codes.items()})
        ids = {"corpus": s.corpus_id, "language": s.language_id}
        for kind, codes in values.items():
            if ids.get(kind) is not None:
                projects.set_language_codes(self.project, kind, ids[kind], **codes)

    def export_cldf(self, folder):
        return projects.export_cldf(self.project, folder, run_id=self.state.shown_run, guard_formulas=True)

    def export_edictor(self, path):
        return projects.export_edictor(self.project, path, run_id=self.state.shown_run, guard_formulas=True)

    def export_syllable_grid(self, grid, path):
        return projects.export_syllable_grid(grid, path, bom=self.export_bom)


__all__ = ["ProjectExports"]
