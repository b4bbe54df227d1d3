"""The data views: the corpora and known languages panels, the inscription view, the Run panel's
corpus and language choices and the pin grid's axes, filled from the window's model (GUI thread).
Choosing a corpus or a language here is choosing it everywhere; every view shows the corpus's
letters and the known language's stems through their display tables."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

if TYPE_CHECKING:
    from decipher_gui.view import WindowView


class DataViews(QObject):
    """Fills the data panels from the model and follows the chosen corpus and known language."""

    def __init__(self, window: "WindowView"):
        super().__init__(window)  # type: ignore[arg-type]
        self.w = window
        self.model = window.model
        self.state = window.model.state

    def refresh(self) -> None:
        if self.model.project is None:
            return
        corpora, languages = self.model.choices()
        self.w.corpora.set_corpora(corpora, self.state.corpus_id)
        self.w.languages.set_languages(languages, self.state.language_id)
        self.w.runs.set_choices(corpora, languages)
        self._sync_combos()
        self._load_corpus()
        self._load_language()

    def _sync_combos(self) -> None:
        runs = self.w.runs
        for combo, value in ((runs.corpus, self.state.corpus_id), (runs.language, self.state.language_id)):
            i = combo.findData(value)
            if i >= 0 and combo.currentIndex() != i:
                combo.blockSignals(True)
                combo.setCurrentIndex(i)
                combo.blockSignals(False)

    def choose_corpus(self, corpus_id) -> None:
        if corpus_id is None or corpus_id == self.state.corpus_id or self.model.project is None:
            return
        self.state.corpus_id = corpus_id
        self.w.corpora.set_corpora(self.model.corpora(), corpus_id)
        self._sync_combos()
        self._load_corpus()

    def choose_language(self, language_id) -> None:
        if language_id is None or language_id == self.state.language_id or self.model.project is None:
            return
        self.state.language_id = language_id
        self.w.languages.set_languages(self.model.languages(), language_id)
        self._sync_combos()
        self._load_language()

    def _load_corpus(self) -> None:
        view = self.model.load_corpus()
        self._push_display()
        if view is None:
            self.w.inscriptions.view.model().set_inscriptions([])
            self.w.inscriptions.caption.setText("No corpus: import one with File ▸ Import")
        else:
            self.w.inscriptions.view.model().set_inscriptions(view.inscriptions, view.gold)
            self.w.inscriptions.caption.setText(
                f"<b>{html.escape(view.name)}</b> — {len(view.inscriptions)} inscriptions")
        self.w.corpora.set_inscriptions(list(self.model.inscriptions))
        self._update_inventory()
        self.w.update_marks()
        self.w.runs.set_inscriptions(self.model.inscriptions)

    def _push_display(self) -> None:
        """Every view shows the corpus's letters through its display table."""
        table = self.model.display
        rtl = table.right_to_left([u for ins in self.model.inscriptions[:200] for u in ins.units])
        self.w.inscriptions.set_display(table, rtl)
        self.w.corpora.set_display(table, rtl)
        for panel in (self.w.matches, self.w.pins, self.w.signs):
            panel.set_display(table)
        self._push_known_display()

    def _push_known_display(self) -> None:
        """Every view shows the known language's stems through its display table."""
        known = self.model.known_display
        for panel in (self.w.matches, self.w.inscriptions, self.w.languages):
            panel.set_known_display(known)

    def apply_display(self) -> None:
        self._load_corpus()
        self.w.show_mapping()
        self.w.inscriptions.view.viewport().update()

    def _load_language(self) -> None:
        stems = self.model.load_language()
        self.w.languages.set_stems(stems)
        self.w.runs.set_stems(len(stems or ()))
        self._push_known_display()
        self._update_inventory()
        if self.state.language_id is not None:
            self.w.update_other_closeness()

    def _update_inventory(self) -> None:
        lost, known = self.model.inventory()
        self.w.pins.set_inventory(lost, known, self.model.pins())
        self.w.pins.set_text_shares(self.model.text_shares())
        self.w.show_mapping()


__all__ = ["DataViews"]
