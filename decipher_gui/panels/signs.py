"""The best sound per sign: each lost sign (as the display table shows it), its top IPA values
with their share, and whether a pin holds it; exportable as CSV (engine.project.signvalues)."""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QPushButton, QSplitter,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from engine.corpus import PinnedValue
from engine.io.display import IDENTITY, DisplayTable
from engine.results import MappingSnapshot
from engine.project import SignValue, sign_values, syllable_values

from . import wrapping_label
from .syllable_grid import SyllableGridPanel
from ..fonts import text_font

TOP = 3
PIN_MARK = {"locked": "• pinned", "soft": "~ soft pin", "": ""}


class SignValuesPanel(QWidget):
    exportRequested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.display: DisplayTable = IDENTITY
        self.values: list[SignValue] = []
        self._last: tuple = (None, (), "", None)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        bar = QHBoxLayout()
        self.caption = wrapping_label("Best sounds per sign: no mapping yet")
        bar.addWidget(self.caption, 1)
        self.export_button = QPushButton("Export CSV…")
        self.export_button.setToolTip("Write every sign's best sounds with probabilities (File ▸ Export ▸ Sign values)")
        self.export_button.clicked.connect(self.exportRequested)
        bar.addWidget(self.export_button)
        lay.addLayout(bar)
        self.table = QTableWidget(0, 2 + TOP)
        self.table.setHorizontalHeaderLabels(["sign", "data"] + [f"sound {i}" for i in range(1, TOP + 1)])
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setFont(text_font(12))
        self.table.setAccessibleName("Best sounds per sign")
        self.table.setAccessibleDescription("One row per lost sign: its most probable sounds with their share; "
                                            "“pinned” marks a locked pin, “~ soft pin” a soft one.")
        # a syllable run's learned grid over the table (hidden for letter runs)
        self.grid = SyllableGridPanel()
        self.grid.hide()
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.grid)
        split.addWidget(self.table)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        lay.addWidget(split, 1)
        self.legend = wrapping_label("Share = P(sign | sound) normalised over the sign's sounds. "
                                     "• pinned = locked pin · ~ = soft pin (pins are listed even when not learned).")
        lay.addWidget(self.legend)

    def set_display(self, table: DisplayTable) -> None:
        self.display = table
        self.grid.display = table
        self.set_values(*self._last)

    def set_values(self, mapping: MappingSnapshot | None, pins: Sequence[PinnedValue], source: str = "",
                   step: int | None = None) -> None:
        """New values to show; filled now when the panel is visible, else when it is shown (a
        live run sends a mapping with every step batch: a hidden tab must cost nothing)."""
        self._last = (mapping, tuple(pins), source, step)
        self._stale = True
        self.grid.setVisible(mapping is not None and mapping.syllables is not None)
        self.grid.set_mapping(mapping, pins, source, step)
        if self.isVisible():
            self._fill()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if getattr(self, "_stale", False):
            self._fill()

    def _fill(self) -> None:
        self._stale = False
        mapping, pins, source, step = self._last
        syllabic = mapping is not None and mapping.syllables is not None
        if syllabic:   # a syllable run: its best onsets (k-) then vowels (-a), share = P(sound | sign)
            self.values = [SignValue(v.sign, v.shown, v.rank, {"onset": f"{v.ipa}-", "vowel": f"-{v.ipa}"}
                                     .get(v.slot, v.ipa), v.probability, v.probability, v.pinned, v.weight, v.note)
                           for v in syllable_values(mapping.syllables, pins, top=TOP, display=self.display)]
        else:
            self.values = sign_values(mapping, pins, top=TOP, display=self.display)
        given = "P(sound | sign)" if syllabic else "P(sign | sound)"
        if mapping is None:
            self.caption.setText("Best sounds per sign: pins only — start a run to see learned values")
        else:
            self.caption.setText(f"Best sounds per sign {source}" + (f" at step {step}" if step else ""))
        by_sign: dict[str, list[SignValue]] = {}
        for v in self.values:
            by_sign.setdefault(v.sign, []).append(v)
        width = max([2 + TOP] + [2 + len(vs) for vs in by_sign.values()])
        # one layout pass at the end, not one per cell (ResizeToContents re-measured every column
        # on each setItem: seconds per update on the GUI thread while a run trained)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.setUpdatesEnabled(False)
        self.table.setColumnCount(width)
        self.table.setHorizontalHeaderLabels(["sign", "data"] + [f"sound {i}" for i in range(1, width - 1)])
        self.table.setRowCount(len(by_sign))
        big = text_font(15)
        for r, (sign, vs) in enumerate(by_sign.items()):
            shown = QTableWidgetItem(vs[0].shown)
            shown.setFont(big)
            shown.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            self.table.setItem(r, 0, shown)
            self.table.setItem(r, 1, QTableWidgetItem(sign))
            for c in range(2, width):
                self.table.setItem(r, c, QTableWidgetItem(""))
            for c, v in enumerate(vs, 2):
                share = "" if v.share is None else f" {v.share:.0%}"
                item = QTableWidgetItem(f"/{v.ipa}/{share} {PIN_MARK[v.pinned]}".rstrip())
                item.setToolTip(f"{v.shown} ← /{v.ipa}/: {given} = "
                                + ("not learned" if v.probability is None else f"{v.probability:.3f}")
                                + (f"; pinned ({v.pinned}, weight {v.weight:g})" if v.pinned else "")
                                + (f": {v.note}" if v.note else ""))
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self.table.setUpdatesEnabled(True)
