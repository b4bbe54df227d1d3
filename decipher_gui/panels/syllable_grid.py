"""The learned grid of a syllabary (setting ``signs = syllables``): onset rows × vowel columns,
each sign (as the corpus's display table shows it) in the cell of its best onset and best vowel,
shaded by the cell's confidence P(onset | sign)·P(vowel | sign), pinned signs framed, a tooltip
with each sign's best alternatives. Shown (in the Sign values tab) only for a syllable run's
mapping; exportable as CSV and PNG. The grid is computed by engine/project/signvalues.py
(``syllable_grid``): a few numpy argmaxes per update, cheap enough for the GUI thread."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from PySide6.QtCore import QRect, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter, QPen
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QPushButton, QStyledItemDelegate, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from engine.corpus import PinnedValue
from engine.io.display import IDENTITY, DisplayTable
from engine.project import GRID_PIN_MARK, SyllableGrid, syllable_grid
from engine.model.syllables import NULL_ONSET
from engine.results import MappingSnapshot

from . import wrapping_label
from ..fonts import text_font

PINNED_ROLE = Qt.ItemDataRole.UserRole + 1
PIN_FRAME = QColor(200, 40, 40)
LOW, HIGH = QColor(255, 255, 255), QColor(70, 130, 200)


def confidence_shade(confidence: float) -> QColor:
    """White (0) to blue (1), linear in a cell's confidence (the pin grid's ramp for probabilities is
    another: decipher_gui.palette.shade)."""
    t = max(0.0, min(1.0, float(confidence)))
    return QColor(*(round(a + (b - a) * t) for a, b in ((LOW.red(), HIGH.red()), (LOW.green(), HIGH.green()),
                                                        (LOW.blue(), HIGH.blue()))))


def onset_label(onset: str) -> str:
    return "∅ (none)" if onset == NULL_ONSET else onset


#: Signs per line in a cell: a crowded cell (early in a run most signs share "no onset") wraps
#: instead of widening its column past the panel (and the exported picture to thousands of pixels).
SIGNS_PER_LINE = 5


def cell_text(signs) -> str:
    shown = [f"{GRID_PIN_MARK if g.pinned else ''}{g.shown}" for g in signs]
    return "\n".join(" ".join(shown[i:i + SIGNS_PER_LINE]) for i in range(0, len(shown), SIGNS_PER_LINE))


class _PinFrame(QStyledItemDelegate):
    """Draws a red frame round a cell that holds a pinned sign."""

    def paint(self, painter, option, index) -> None:
        super().paint(painter, option, index)
        if index.data(PINNED_ROLE):
            painter.save()
            painter.setPen(QPen(PIN_FRAME, 2))
            painter.drawRect(option.rect.adjusted(1, 1, -2, -2))
            painter.restore()


class SyllableGridPanel(QWidget):
    """The grid; ``exportRequested`` carries "csv" or "png"."""

    exportRequested = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.display: DisplayTable = IDENTITY
        self.grid: SyllableGrid | None = None
        self._last: tuple = (None, (), "", None)
        self._stale = False
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.caption = wrapping_label("Learned grid: no syllable mapping")
        bar.addWidget(self.caption, 1)
        self.csv_button = QPushButton("Grid CSV…")
        self.csv_button.setToolTip("Write the grid as a table: onset rows, vowel columns, the signs in each cell")
        self.csv_button.clicked.connect(lambda: self.exportRequested.emit("csv"))
        self.png_button = QPushButton("Grid PNG…")
        self.png_button.setToolTip("Save the grid as a picture")
        self.png_button.clicked.connect(lambda: self.exportRequested.emit("png"))
        bar.addWidget(self.csv_button)
        bar.addWidget(self.png_button)
        lay.addLayout(bar)
        self.table = QTableWidget(0, 0)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setItemDelegate(_PinFrame(self.table))
        self.table.setFont(text_font(16))
        self.table.setAccessibleName("Learned syllable grid")
        self.table.setAccessibleDescription("Rows are onsets (∅: none), columns vowels; each sign sits in the cell "
                                            "of its most probable onset and vowel; shading is the cell's confidence; "
                                            "a red frame and • mark pinned signs.")
        lay.addWidget(self.table, 1)
        self.legend = wrapping_label(self.LEGEND)
        lay.addWidget(self.legend)

    LEGEND = ("Each sign in the cell of its best onset and vowel, by P(sound | sign). "
              "Shading: P(onset | sign)·P(vowel | sign) of the cell's most confident sign. "
              f"{GRID_PIN_MARK} and a red frame: pinned. Hover a cell for the alternatives.")

    @staticmethod
    def grid_notes(g: SyllableGrid) -> str:
        """What the grid's odd rows and empty columns are, for the legend ("" when it has none): a
        vowel as an onset row (a glide: Greek -ai-o- written -a-jo-, the model reads the i of the
        diphthong in the sign's onset slot), and the vowels and onsets no sign reads best."""
        from engine.model.syllables import is_vowel

        notes = []
        glides = [o for o in g.onsets if o != NULL_ONSET and is_vowel(o)]
        if glides:
            notes.append(f"Onset row{'s' if len(glides) > 1 else ''} {', '.join(glides)}: signs whose onset slot "
                         "the model reads as a vowel: a glide, such as the second part of a diphthong (Linear B "
                         "writes Greek -ai-o- as -a-jo-), more often a spelling of the diphthong than the sign's "
                         "own value.")
        empty_vowels = [v for v in g.vowels if not any(g.at(o, v) for o in g.onsets)]
        empty_onsets = [o for o in g.onsets if not any(g.at(o, v) for v in g.vowels)]
        if empty_vowels or empty_onsets:
            parts = ([f"columns {', '.join(empty_vowels)}"] if empty_vowels else []) + \
                    ([f"rows {', '.join(onset_label(o) for o in empty_onsets)}"] if empty_onsets else [])
            notes.append(f"Empty {' and '.join(parts)}: sounds of the known language that no sign reads as its "
                         "best (the text may lack them, or the training has not settled on them yet).")
        return " ".join(notes)

    # ---- contents ----------------------------------------------------------------------------

    def set_display(self, table: DisplayTable) -> None:
        self.display = table
        self.set_mapping(*self._last)

    def set_mapping(self, mapping: MappingSnapshot | None, pins: Sequence[PinnedValue], source: str = "",
                    step: int | None = None) -> None:
        """A new mapping (and the pins in force): filled now when visible, else when shown, so a
        live run's updates cost nothing while the grid is hidden."""
        self._last = (mapping, tuple(pins), source, step)
        self._stale = True
        if self.isVisible():
            self._fill()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._stale:
            self._fill()

    def refresh(self) -> SyllableGrid | None:
        """Fill now, visible or not (for an export or a test); the grid drawn."""
        self._fill()
        return self.grid

    def _fill(self) -> None:
        self._stale = False
        mapping, pins, source, step = self._last
        table = None if mapping is None else mapping.syllables
        self.grid = None if table is None else syllable_grid(table, pins, display=self.display)
        self.table.setUpdatesEnabled(False)
        try:
            self.legend.setText(self.LEGEND if self.grid is None else
                                " ".join(t for t in (self.LEGEND, self.grid_notes(self.grid)) if t))
            if self.grid is None:
                self.caption.setText("Learned grid: no syllable mapping")
                self.table.setRowCount(0)
                self.table.setColumnCount(0)
                return
            self.caption.setText(f"Learned grid {source}".rstrip() + (f" at step {step}" if step else ""))
            g = self.grid
            self.table.setRowCount(len(g.onsets))
            self.table.setColumnCount(len(g.vowels))
            self.table.setHorizontalHeaderLabels(list(g.vowels))
            self.table.setVerticalHeaderLabels([onset_label(o) for o in g.onsets])
            for r, onset in enumerate(g.onsets):
                for c, vowel in enumerate(g.vowels):
                    signs = g.at(onset, vowel)
                    item = QTableWidgetItem(cell_text(signs))
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                    if signs:
                        item.setBackground(confidence_shade(signs[0].confidence))
                        item.setForeground(QColor("white") if signs[0].confidence > 0.6 else QColor("black"))
                        item.setToolTip("\n".join(s.describe() for s in signs))
                    item.setData(PINNED_ROLE, any(s.pinned for s in signs))
                    self.table.setItem(r, c, item)
            self.table.resizeColumnsToContents()
            self.table.resizeRowsToContents()
        finally:
            self.table.setUpdatesEnabled(True)

    # ---- export ------------------------------------------------------------------------------

    def render_image(self, *, font: QFont | None = None) -> QImage:
        """The whole grid drawn on an image (every row and column, whatever the panel's size)."""
        g = self.grid
        font = font or text_font(18)
        head = QFont(font)
        head.setPointSizeF(max(8.0, font.pointSizeF() * 0.7))
        fm, hm = QFontMetrics(font), QFontMetrics(head)
        onsets = list(g.onsets) if g else []
        vowels = list(g.vowels) if g else []
        texts = {(o, v): cell_text(g.at(o, v)) for o in onsets for v in vowels} if g else {}

        def size(t: str):   # a cell's text, one line per SIGNS_PER_LINE signs
            lines = t.split("\n")
            return max(fm.horizontalAdvance(x) for x in lines), fm.height() * len(lines)
        # each column as wide as its widest cell, each row as tall as its tallest
        cws = [max([size(texts[(o, v)])[0] for o in onsets] + [hm.horizontalAdvance(v), fm.horizontalAdvance("MM")])
               + 16 for v in vowels]
        rhs = [fm.height() + 14] + [max([size(texts[(o, v)])[1] for v in vowels] + [fm.height()]) + 14
                                    for o in onsets]
        xs = [sum(cws[:c]) for c in range(len(vowels))]
        ys = [sum(rhs[:r]) for r in range(len(onsets) + 1)]
        corner = "onset \\ vowel"
        lw = max([hm.horizontalAdvance(onset_label(o)) for o in onsets] + [hm.horizontalAdvance(corner)]) + 16
        width, height = lw + sum(cws) + 1, sum(rhs) + 1
        image = QImage(max(width, 1), max(height, 1), QImage.Format.Format_ARGB32)
        image.fill(QColor("white"))
        p = QPainter(image)
        try:
            p.setFont(head)
            p.setPen(QColor("black"))
            p.drawText(QRect(0, 0, lw, rhs[0]), Qt.AlignmentFlag.AlignCenter, corner)
            for c, v in enumerate(vowels):
                p.drawText(QRect(lw + xs[c], 0, cws[c], rhs[0]), Qt.AlignmentFlag.AlignCenter, v)
            for r, o in enumerate(onsets, 1):
                p.setFont(head)
                p.setPen(QColor("black"))
                p.drawText(QRect(0, ys[r], lw, rhs[r]), Qt.AlignmentFlag.AlignCenter, onset_label(o))
                p.setFont(font)
                for c, v in enumerate(vowels):
                    rect = QRect(lw + xs[c], ys[r], cws[c], rhs[r])
                    signs = g.at(o, v)
                    if signs:
                        p.fillRect(rect, confidence_shade(signs[0].confidence))
                    p.setPen(QColor(200, 200, 200))
                    p.drawRect(rect)
                    if any(s.pinned for s in signs):
                        p.setPen(QPen(PIN_FRAME, 3))
                        p.drawRect(rect.adjusted(2, 2, -2, -2))
                    p.setPen(QColor("white") if signs and signs[0].confidence > 0.6 else QColor("black"))
                    p.drawText(rect, Qt.AlignmentFlag.AlignCenter, texts[(o, v)])
        finally:
            p.end()
        return image

    def save_png(self, path: str | Path) -> None:
        """Write the grid as PNG (OSError naming the file when it cannot be written)."""
        from engine.io.atomic import atomic_path

        self.refresh()
        image = self.render_image()
        with atomic_path(Path(path)) as part:
            if not image.save(str(part), "PNG"):
                raise OSError(f"{path}: cannot write the PNG")
