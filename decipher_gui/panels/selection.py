"""One selected span across the inscription view, its details pane and the matches table: picking a
span in one selects it in the others, the details and tooltips explain it with the shown mapping,
and A / R / O decide it. Reads what it shows from the window's model."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication

from engine.results import Match

from decipher_gui.analysis import SpanMark
from decipher_gui.model import WindowModel
from decipher_gui.panels.inscriptions import InscriptionPanel, explain_html
from decipher_gui.panels.matches import MatchesPanel


class SpanSelection(QObject):
    """Keeps ``inscriptions`` and ``matches`` on one span; ``mapping()`` is the shown mapping and
    ``decide(match, form, status)`` records a decision."""

    def __init__(self, inscriptions: InscriptionPanel, matches: MatchesPanel, model: WindowModel,
                 mapping: Callable, decide: Callable, parent: QObject | None = None):
        super().__init__(parent)
        self.inscriptions, self.matches, self.model = inscriptions, matches, model
        self.mapping, self.decide = mapping, decide
        view = inscriptions.view
        view.explainer = self.explain
        view.spanSelected.connect(self._span_selected)
        inscriptions.details.decide.connect(self.decide_selected)
        matches.jumpRequested.connect(self.jump_to_match)
        matches.currentChanged.connect(self._match_selected)
        for key, status in (("A", "accepted"), ("R", "rejected"), ("O", "open")):
            sc = QShortcut(QKeySequence(key), view)
            sc.setContext(Qt.ShortcutContext.WidgetShortcut)
            sc.activated.connect(lambda s=status: self.decide_selected(s))

    def explain(self, mark: SpanMark, brief: bool = False) -> str:
        gamma, band = self.model.gamma_band()
        return explain_html(mark, self.mapping(), gamma, band, brief=brief, display=self.model.display,
                            known=self.model.known_display,
                            ref=self.model.refs().get(mark.match.inscription_id, ""))

    def _span_selected(self, mark: SpanMark | None) -> None:
        self.refresh_details(mark)
        if mark is not None and not mark.live:
            self.matches.blockSignals(True)
            self.matches.select_match(mark.match.inscription_id, mark.match.start, mark.match.end)
            self.matches.blockSignals(False)

    def refresh_details(self, mark: SpanMark | None = None) -> None:
        details = self.inscriptions.details
        if mark is None:
            mark = self.inscriptions.view.current_mark()
        details.mapping = self.mapping()
        details.gamma, details.band = self.model.gamma_band()
        ref = "" if mark is None else self.model.refs().get(mark.match.inscription_id, "")
        details.set_mark(mark, self.model.state.decisions, ref)

    def _match_selected(self, match: Match | None) -> None:
        view = self.inscriptions.view
        if match is not None and view.selected_span != (match.inscription_id, match.start, match.end):
            view.blockSignals(True)
            view.select_span(match.inscription_id, match.start, match.end)
            view.blockSignals(False)
            self.refresh_details()

    def jump_to_match(self, match: Match | None) -> None:
        if match is None:
            return
        mark = self.inscriptions.view.select_span(match.inscription_id, match.start, match.end)
        self.refresh_details(mark)
        self.inscriptions.view.setFocus()

    def scroll_to_inscription(self, inscription_id: str) -> None:
        view = self.inscriptions.view
        row = view.model().row_of.get(inscription_id)
        if row is not None:
            index = view.model().index(row)
            view.setCurrentIndex(index)
            view.scrollTo(index, view.ScrollHint.PositionAtCenter)

    def decide_selected(self, status: str) -> None:
        """A / R / O: on the span selected in the inscription view or the matches table."""
        focus = QApplication.focusWidget()
        in_table = focus is not None and self.matches.isAncestorOf(focus)
        mark = self.inscriptions.view.current_mark()
        if not in_table and mark is not None and not mark.live:
            form = self.inscriptions.details.selected_form()
            if form is not None:
                self.decide(mark.match, form, status)
                return
        self.matches.decide_current(status)


__all__ = ["SpanSelection"]
