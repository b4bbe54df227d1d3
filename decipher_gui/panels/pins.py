"""The pinned-values editor: a grid of lost letters × known IPA units shaded by the learned
P(lost | known), where a cell is pinned or unpinned by double-click, Space or Enter; the list of
pins with weight, lock and note; and an IPA picker by phonological features."""

from __future__ import annotations

from dataclasses import replace
from html import escape
from typing import Sequence

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QDialog, QDialogButtonBox,
                               QDoubleSpinBox, QFormLayout, QGridLayout, QHBoxLayout, QHeaderView,
                               QLabel, QLineEdit, QListWidget, QListWidgetItem, QMenu, QPushButton, 
                               QSplitter, QStyle, QStyledItemDelegate, QTableView, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from engine.corpus import PinnedValue
from engine.io.display import IDENTITY, DisplayTable
from engine.errors import DecipherError, InputError
from engine.io.tables import pin_value
from engine.model.phonology import FEATURE_GROUPS, NONE, ipa_units, known_segments, unit_features
from engine.training.pin_suggestions import PinSuggestion, suggest_pins
from engine.results import MappingSnapshot

from decipher_gui.pinstate import PinState
from ..analysis import pin_axes
from . import wrapping_label
from ..fonts import text_font
from ..palette import shade, text_on

PinnedRole = Qt.ItemDataRole.UserRole + 10
ProbRole = Qt.ItemDataRole.UserRole + 11
NotInRunRole = Qt.ItemDataRole.UserRole + 12
"""Why the reading shown lacks this cell's pin (or still has a removed one); "" when it agrees."""

#: The mark of a pin the reading shown was computed without.
NOT_IN_RUN = QColor("#D55E00")


class PinGridModel(QAbstractTableModel):
    """Rows: lost letters. Columns: known IPA units. Cell: P(lost | known) and the pin on it."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: list[str] = []
        self.cols: list[str] = []
        self.probs: np.ndarray | None = None  # (rows, cols), NaN where the mapping has no value
        self.pins: dict[tuple[str, str], PinnedValue] = {}
        self.step: int | None = None
        self.display: DisplayTable = IDENTITY   # row headers show the corpus's letters as people write them
        self.pin_state: PinState | None = None  # the pins of the reading shown (None: no run shown)
        self.suggested: dict[str, tuple[int, PinSuggestion]] = {}   # sign -> (rank 1.., suggestion)

    def set_suggestions(self, suggestions: Sequence[PinSuggestion]) -> None:
        """Mark these signs' row headers ★1, ★2, … with their reasons as tooltips."""
        self.suggested = {s.sign: (i, s) for i, s in enumerate(suggestions, 1)}
        if self.rows:
            self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, len(self.rows) - 1)

    def set_display(self, table: DisplayTable) -> None:
        self.display = table
        if self.rows:
            self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, len(self.rows) - 1)

    def set_axes(self, lost: Sequence[str], known: Sequence[str], pins: Sequence[PinnedValue]) -> None:
        rows, cols = pin_axes(lost, known, pins)
        self.beginResetModel()
        self.rows, self.cols = rows, cols
        self.pins = {(p.lost, p.known_ipa): p for p in pins}
        self.probs = None
        self.endResetModel()

    def set_pins(self, pins: Sequence[PinnedValue]) -> None:
        rows, cols = pin_axes(self.rows, self.cols, pins)
        if rows != self.rows or cols != self.cols:
            mapping = getattr(self, "_mapping", None)
            self.set_axes(rows, cols, pins)
            if mapping is not None:
                self.set_mapping(mapping, self.step)
            return
        self.pins = {(p.lost, p.known_ipa): p for p in pins}
        if self.rows and self.cols:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, len(self.cols) - 1))

    def set_pin_state(self, state: PinState | None, *, repaint: bool = True) -> None:
        self.pin_state = state
        if repaint and self.rows and self.cols:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, len(self.cols) - 1))

    def not_in_reading(self, lost: str, known: str) -> str:
        """Why the reading shown lacks the pin on this cell ("" when it has it or none is there):
        a project pin the shown run has not used yet, or a pin the project no longer has."""
        state = self.pin_state
        if state is None:
            return ""
        pin = self.pins.get((lost, known))
        if pin is not None and pin in state.missing:
            return state.status(pin)
        if pin is None and any((p.lost, p.known_ipa) == (lost, known) for p in state.extra):
            return f"unpinned, but the reading of run {state.run_id} shown was computed with this pin"
        return ""

    def set_mapping(self, mapping: MappingSnapshot | None, step: int | None = None) -> None:
        """Shade the grid with a mapping snapshot; letters/units it lacks stay blank."""
        self._mapping = mapping
        self.step = step
        if mapping is None:
            self.probs = None
        else:
            li = {c: i for i, c in enumerate(mapping.lost)}
            ki = {u: i for i, u in enumerate(mapping.known)}
            probs = np.full((len(self.rows), len(self.cols)), np.nan)
            r_idx = [li.get(r) for r in self.rows]
            c_idx = [ki.get(c) for c in self.cols]
            for r, lr in enumerate(r_idx):
                if lr is None:
                    continue
                for c, kc in enumerate(c_idx):
                    if kc is not None:
                        probs[r, c] = mapping.probs[kc, lr]
            self.probs = probs
        if self.rows and self.cols:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, len(self.cols) - 1))

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.cols)

    def prob(self, row: int, col: int) -> float | None:
        if self.probs is None:
            return None
        v = self.probs[row, col]
        return None if np.isnan(v) else float(v)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        lost, known = self.rows[index.row()], self.cols[index.column()]
        p = self.prob(index.row(), index.column())
        pin = self.pins.get((lost, known))
        if role == Qt.ItemDataRole.DisplayRole:
            return "" if p is None or p < 0.05 else f"{round(p * 100)}"
        if role == ProbRole:
            return p
        if role == PinnedRole:
            return pin
        if role == NotInRunRole:
            return self.not_in_reading(lost, known)
        if role in (Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.AccessibleTextRole):
            text = f"{self.display.show(lost)} ← /{known}/: P = " + ("not learned yet" if p is None else f"{p:.3f}")
            if pin is not None:
                text += f"; pinned ({'locked' if pin.locked else 'soft'}, weight {pin.weight:g})"
                if pin.note:
                    text += f": {pin.note}"
            why = self.not_in_reading(lost, known)
            if why:
                text += f"; {why}: the shading is without it"
            return text + ". Double-click, Space or Enter to " + ("unpin" if pin else "pin") + "."
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole:
            if orientation == Qt.Orientation.Horizontal:
                return f"/{self.cols[section]}/" if section < len(self.cols) else None
            if section >= len(self.rows):
                return None
            shown = self.display.show(self.rows[section])
            mark = self.suggested.get(self.rows[section])
            return f"★{mark[0]} {shown}" if mark else shown
        if role == Qt.ItemDataRole.ToolTipRole and orientation == Qt.Orientation.Vertical and section < len(self.rows):
            lost = self.rows[section]
            shown = self.display.show(lost)
            text = f"{shown} (written {lost} in the data files)" if shown != lost else lost
            mark = self.suggested.get(lost)
            if mark:
                text += f"\nSuggested pin {mark[0]}: {mark[1].reason}"
            return text
        if role == Qt.ItemDataRole.ToolTipRole and orientation == Qt.Orientation.Horizontal:
            try:
                return f"/{self.cols[section]}/: {unit_features(self.cols[section]).describe()}"
            except (DecipherError, IndexError):
                return None
        if role == Qt.ItemDataRole.FontRole:
            return text_font(11)
        return None


def draw_padlock(painter: QPainter, rect: QRectF, colour: QColor) -> None:
    """A small padlock in the top-right corner of ``rect`` (the lock cue besides the border)."""
    s = min(rect.width(), rect.height()) * 0.42
    x = rect.right() - s - 2
    y = rect.top() + 2
    body = QRectF(x, y + s * 0.45, s, s * 0.55)
    path = QPainterPath()
    path.addRoundedRect(body, 1.5, 1.5)
    painter.save()
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(colour)
    painter.drawPath(path)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setPen(QPen(colour, max(1.2, s * 0.14)))
    painter.drawArc(QRectF(x + s * 0.2, y, s * 0.6, s * 0.9), 0, 180 * 16)
    painter.restore()


class PinCellDelegate(QStyledItemDelegate):
    def paint(self, painter: QPainter, option, index) -> None:
        painter.save()
        rect = QRectF(option.rect)
        p = index.data(ProbRole)
        pin: PinnedValue | None = index.data(PinnedRole)
        fill = shade(p) if p is not None else option.palette.base().color()
        painter.fillRect(rect, fill)
        text = index.data(Qt.ItemDataRole.DisplayRole)
        if text:
            painter.setPen(text_on(fill))
            f = painter.font()
            f.setPointSizeF(max(7.0, f.pointSizeF() * 0.85))
            painter.setFont(f)
            painter.drawText(rect.adjusted(2, 0, -2, 0), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom, text)
        if pin is not None:
            ink = QColor("#000000") if fill.lightnessF() > 0.45 else QColor("#FFFFFF")
            style = Qt.PenStyle.SolidLine if pin.locked else Qt.PenStyle.DashLine
            painter.setBrush(Qt.BrushStyle.NoBrush)
            # a black outer frame and a white inner one: visible on light and dark shading alike
            painter.setPen(QPen(QColor("#000000"), 3, style))
            painter.drawRect(rect.adjusted(1.5, 1.5, -1.5, -1.5))
            painter.setPen(QPen(QColor("#FFFFFF"), 1, style))
            painter.drawRect(rect.adjusted(3.5, 3.5, -3.5, -3.5))
            if pin.locked:
                draw_padlock(painter, rect.adjusted(0, 2, -3, 0), ink)
            else:
                painter.setPen(ink)
                painter.drawText(rect.adjusted(0, 1, -3, 0), Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop, "~")
        if index.data(NotInRunRole):
            # an orange corner and a dotted frame: this reading was computed without the pin (or
            # still with a removed one)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(NOT_IN_RUN)
            corner = QPainterPath()
            size = min(rect.width(), rect.height()) * 0.55
            corner.moveTo(rect.left(), rect.bottom())
            corner.lineTo(rect.left() + size, rect.bottom())
            corner.lineTo(rect.left(), rect.bottom() - size)
            corner.closeSubpath()
            painter.drawPath(corner)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(QPen(NOT_IN_RUN, 2, Qt.PenStyle.DotLine))
            painter.drawRect(rect.adjusted(1, 1, -1, -1))
        if option.state & QStyle.StateFlag.State_HasFocus:
            painter.setPen(QPen(option.palette.highlight().color(), 2, Qt.PenStyle.DotLine))
            painter.drawRect(rect.adjusted(3, 3, -3, -3))
        painter.restore()

    def sizeHint(self, option, index) -> QSize:
        return QSize(36, 20)


class PinGrid(QTableView):
    toggleRequested = Signal(str, str)   # lost, known IPA

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setModel(PinGridModel(self))
        self.setItemDelegate(PinCellDelegate(self))
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.horizontalHeader().setDefaultSectionSize(36)
        self.horizontalHeader().setMinimumSectionSize(28)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setDefaultSectionSize(20)
        self.verticalHeader().setMinimumSectionSize(18)
        self.setFont(text_font(11))
        model = self.model()
        for sig in (model.modelReset, model.layoutChanged, model.columnsInserted, model.columnsRemoved):
            sig.connect(self.fit_columns)
        self.setAccessibleName("Pinned-values grid")
        self.setAccessibleDescription("Rows are lost letters, columns known IPA units; shading is "
                                      "the learned probability. A framed cell with a padlock is pinned.")
        self.doubleClicked.connect(self._toggle_index)

    def model(self) -> PinGridModel:  # type: ignore[override]
        return super().model()  # type: ignore[return-value]

    #: Column widths (px) the grid may take: as many IPA columns as fit, no narrower than a "100".
    COLUMN_MIN, COLUMN_MAX = 26, 36

    def fit_columns(self, *_args) -> None:
        """The IPA columns share the viewport's width, between COLUMN_MIN and COLUMN_MAX px each: all
        23 of the sample at 1920×1080 (at 36 px only 12 showed at 1600×1000); where they still do
        not fit, the grid scrolls sideways with its letter column (the row header) in place."""
        n = self.model().columnCount()
        if not n:
            return
        size = max(self.COLUMN_MIN, min(self.COLUMN_MAX, self.viewport().width() // n))
        if self.horizontalHeader().defaultSectionSize() != size:
            self.horizontalHeader().setDefaultSectionSize(size)

    def resizeEvent(self, event) -> None:   # the viewport's size (the scroll bars' room taken)
        super().resizeEvent(event)
        self.fit_columns()

    def _toggle_index(self, index) -> None:
        if index.isValid():
            m = self.model()
            self.toggleRequested.emit(m.rows[index.row()], m.cols[index.column()])

    def keyPressEvent(self, e) -> None:
        if e.key() in (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentIndex().isValid():
            self._toggle_index(self.currentIndex())
            return
        super().keyPressEvent(e)

    def cell(self, lost: str, known: str):
        m = self.model()
        if lost in m.rows and known in m.cols:
            return m.index(m.rows.index(lost), m.cols.index(known))
        return QModelIndex()


class IpaPicker(QDialog):
    """Choose an IPA unit by its phonological features (or type it) and a lost letter to pin."""

    def __init__(self, letters: Sequence[str], parent=None, lost: str | None = None, *, syllables: bool = False):
        super().__init__(parent)
        self.syllables = syllables      # signs = syllables: a value may be ka, a, k- or -a
        self.setWindowTitle("Pin a sound value: pick an IPA unit by its features" if not syllables else
                            "Pin a sign's value: a syllable (ka), a vowel (a), an onset (k-) or a vowel alone (-a)")
        self.segments = known_segments()
        lay = QVBoxLayout(self)
        form = QFormLayout()
        self.letter = QComboBox()
        self.letter.addItems(list(letters))
        self.letter.setEditable(True)
        self.letter.setFont(text_font(13))
        if lost is not None:
            self.letter.setCurrentText(lost)
        form.addRow("Lost letter:", self.letter)
        self.filters: dict[str, QComboBox] = {}
        grid = QGridLayout()
        for i, (group, values) in enumerate(FEATURE_GROUPS):
            combo = QComboBox()
            combo.addItem("any", None)
            for v in values:
                if v != NONE:
                    combo.addItem(v.replace("-", " "), v)
            combo.currentIndexChanged.connect(self._refilter)
            self.filters[group] = combo
            grid.addWidget(QLabel(group.replace("_", " ").replace("c ", "consonant ").replace("v ", "vowel ")
                                  .replace("ptype", "type")), i // 4 * 2, i % 4)
            grid.addWidget(combo, i // 4 * 2 + 1, i % 4)
        lay.addLayout(form)
        lay.addLayout(grid)
        self.listing = QListWidget()
        self.listing.setViewMode(QListWidget.ViewMode.IconMode)
        self.listing.setGridSize(QSize(46, 40))
        self.listing.setFont(text_font(16))
        self.listing.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.listing.setMinimumHeight(150)
        self.listing.currentItemChanged.connect(self._picked)
        self.listing.itemDoubleClicked.connect(lambda _: self.accept())
        lay.addWidget(self.listing, 1)
        row = QHBoxLayout()
        row.addWidget(QLabel("IPA unit:"))
        self.ipa = QLineEdit()
        self.ipa.setFont(text_font(14))
        self.ipa.setPlaceholderText("pick above or type, e.g. ka, a, k- (onset only), -a (vowel only)" if syllables
                                    else "pick above or type, e.g. tʃ, sˤ, kʷ")
        self.ipa.textChanged.connect(self._check)
        row.addWidget(self.ipa, 1)
        lay.addLayout(row)
        self.describe = QLabel()
        lay.addWidget(self.describe)
        opts = QHBoxLayout()
        self.weight = QDoubleSpinBox()
        self.weight.setRange(0.01, 1000)
        self.weight.setValue(1.0)
        self.locked = QCheckBox("locked (kept as it is across runs)")
        self.locked.setChecked(True)
        opts.addWidget(QLabel("weight"))
        opts.addWidget(self.weight)
        opts.addWidget(self.locked)
        opts.addStretch(1)
        lay.addLayout(opts)
        self.note = QLineEdit()
        self.note.setPlaceholderText("note (why this value? a source, a bilingual…)")
        lay.addWidget(self.note)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Pin")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        self._refilter()
        self._check(self.ipa.text())
        self.resize(640, 560)

    def _refilter(self) -> None:
        wanted = {g: c.currentData() for g, c in self.filters.items() if c.currentData() is not None}
        self.listing.clear()
        for sym, feats in self.segments:
            if all(getattr(feats, g) == v for g, v in wanted.items()):
                item = QListWidgetItem(sym)
                item.setToolTip(f"/{sym}/: {feats.describe()}")
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.listing.addItem(item)

    def _picked(self, item) -> None:
        if item is not None:
            self.ipa.setText(item.text())

    def _check(self, text: str) -> bool:
        self._value = None
        try:
            value = pin_value(text) if text.strip() else None
            if value is not None and "-" not in value and len(ipa_units(value)) == 1:
                self._value = value
                self.describe.setText(f"/{value}/: {unit_features(value).describe()}")
            elif value is not None and self.syllables:
                self._value = value
                self.describe.setText(f"/{value}/: " + describe_syllable(value))
            elif value is not None:
                self.describe.setText(f"{value!r} is a syllable: a sign may be pinned to one only with the run "
                                      "setting signs = syllables; here one IPA unit, please")
            else:
                self.describe.setText("")
        except DecipherError as e:
            self.describe.setText(e.problem if isinstance(e, InputError) else str(e))
        ok = self._value is not None
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok and bool(self.letter.currentText().strip()))
        return ok

    def value(self) -> PinnedValue | None:
        if not self._check(self.ipa.text()):
            return None
        return PinnedValue(self.letter.currentText().strip(), self._value, float(self.weight.value()),
                           self.locked.isChecked(), self.note.text().strip())


def syllable_pin_for(known: str) -> str | None:
    """The syllable pin a grid column names: ``k`` → ``k-``, ``a`` → ``-a``; a column that is
    already a syllable value stays; None for the "no onset" unit (∅: the vowel is needed too)."""
    from engine.model.syllables import NULL_ONSET, is_vowel, looks_syllabic

    if known == NULL_ONSET:
        return None
    if looks_syllabic(known):
        return known
    return f"-{known}" if is_vowel(known) else f"{known}-"


def describe_syllable(value: str) -> str:
    """``ka`` → "onset k, vowel a" (the value as the PRIOR reader stored it)."""
    from engine.model.syllables import NULL_ONSET, parse_syllable_value

    v = parse_syllable_value(value)
    said = []
    if v.onset is not None:
        said.append("no onset" if v.onset == NULL_ONSET else f"onset {v.onset}")
    if v.vowel is not None:
        said.append(f"vowel {v.vowel}")
    return ", ".join(said) + ("" if v.onset is not None and v.vowel is not None else " (the other is learned)")


class PinsPanel(QWidget):
    """Grid + pin list + actions. The owner connects the request signals to undoable commands."""

    toggleRequested = Signal(str, str)
    pinRequested = Signal(object)          # PinnedValue (add or change)
    unpinRequested = Signal(object)        # PinnedValue
    clearRequested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        self.caption = wrapping_label("P(lost letter | known IPA unit)")
        lay.addWidget(self.caption)
        self.run_pins = wrapping_label("")
        self.run_pins.setAccessibleName("Pins of the run shown")
        self.run_pins.hide()
        lay.addWidget(self.run_pins)
        bar = QHBoxLayout()
        self.pick_button = QPushButton("Pin by features…")
        self.pick_button.setToolTip("Choose an IPA unit by its phonological features, for values not in the grid")
        self.pick_button.clicked.connect(lambda: self.open_picker())
        self.unpin_button = QPushButton("Unpin")
        self.unpin_button.clicked.connect(self._unpin_selected)
        self.clear_button = QPushButton("Clear all")
        self.clear_button.clicked.connect(self.clearRequested)
        for b in (self.pick_button, self.unpin_button, self.clear_button):
            bar.addWidget(b)
        bar.addStretch(1)
        lay.addLayout(bar)
        split = QSplitter(Qt.Orientation.Vertical)  # the grid over the pin list: the grid gets the height
        self.grid = PinGrid()
        self.grid.toggleRequested.connect(self._toggle)
        self.grid.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.grid.customContextMenuRequested.connect(self._grid_menu)
        split.addWidget(self.grid)
        self.table = QTableWidget(0, 6)
        self.table.setHorizontalHeaderLabels(["letter", "IPA", "weight", "locked", "in the run", "note"])
        self.table.horizontalHeaderItem(4).setToolTip("Whether the reading shown (the shown run at its step) "
                                                      "was computed with this pin, and from which step")
        self.table.verticalHeader().hide()
        self.table.setFont(text_font(11))
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAccessibleName("Pinned values")
        self.table.itemChanged.connect(self._edited)
        self.table.setMinimumHeight(self.list_height(self.LIST_ROWS))
        split.addWidget(self.table)
        split.setStretchFactor(0, 8)
        split.setStretchFactor(1, 1)
        lay.addWidget(split, 1)
        self.legend = wrapping_label(self.legend_text(False))
        lay.addWidget(self.legend)
        self.suggest_legend = wrapping_label("")
        self.suggest_legend.setAccessibleName("Which sign to pin next")
        lay.addWidget(self.suggest_legend)
        for label in (self.legend, self.suggest_legend):   # as tall as their lines at the panel's width, no more
            policy = label.sizePolicy()
            policy.setHeightForWidth(True)
            label.setSizePolicy(policy)
        self._pins: list[PinnedValue] = []
        self._shares: dict[str, float] = {}
        self._suggest_from: MappingSnapshot | None = None
        self._filling = False
        self._live = False
        self._marks: PinState | None = None  # the pin state last drawn, without its step
        self._attention = False  # whether the run's pin line is in the not-in-run colour
        self.syllables = lambda: False    # whether pins are syllables (ka, k-, -a): set by the window's actions

    @staticmethod
    def legend_text(syllables: bool) -> str:
        """The grid's legend: what its shading is (a letter's P(letter | IPA); a syllable sign's
        P(onset | sign) and P(vowel | sign)) and how pins are drawn."""
        shading = ("Shading and numbers: each sign's learned P(onset | sign) in the onset columns (∅: no onset) "
                   "and P(vowel | sign) in the vowel columns, in %."
                   if syllables else "Shading and numbers: learned P(letter | IPA) in %.")
        return (shading + " Padlock frame: locked pin; dashed frame and ~: soft pin; orange corner: the run shown "
                "has not used the pin yet (a run gets it at its next step, or on Resume). Double-click, Space or "
                "Enter pins/unpins.")

    #: Pins the list shows without scrolling, at any window size (at 1600×1000 it showed one: a pin
    #: "not yet in the run" scrolled out of sight).
    LIST_ROWS = 5

    def list_height(self, rows: int) -> int:
        """The pin list's height for ``rows`` rows, its header, frame and sideways scroll bar."""
        t = self.table
        return (t.horizontalHeader().sizeHint().height() + rows * t.verticalHeader().defaultSectionSize()
                + 2 * t.frameWidth() + t.horizontalScrollBar().sizeHint().height())

    # ---- contents ----------------------------------------------------------------------------

    def set_display(self, table: DisplayTable) -> None:
        self.grid.model().set_display(table)
        self._fill_table(self._pins)
        self._suggest()

    def set_inventory(self, lost: Sequence[str], known: Sequence[str], pins: Sequence[PinnedValue]) -> None:
        self.grid.model().set_axes(lost, known, pins)
        self._fill_table(pins)

    def set_pins(self, pins: Sequence[PinnedValue]) -> None:
        self.grid.model().set_pins(pins)
        self._fill_table(pins)
        self._suggest()

    def set_live(self, active: bool) -> None:
        """Whether a run is active (pins changed now go to it)."""
        self._live = active

    def set_pin_state(self, state: PinState | None) -> None:
        """Mark the pins the reading shown was computed without (see decipher_gui/pinstate.py).

        A live run calls this at every redraw with a new step; the grid's marks and the list's
        column do not depend on the step, so they are redrawn only when the rest changed (both
        took most of a live redraw's time)."""
        marks = None if state is None else replace(state, step=None)
        same = marks == self._marks
        self._marks = marks
        self.grid.model().set_pin_state(state, repaint=not same)
        if state is None:
            self.run_pins.hide()
        else:
            self.run_pins.setText(state.summary())
            attention = bool(state.missing or state.extra)
            if attention != self._attention:  # a style sheet set again re-polishes the label
                self._attention = attention
                self.run_pins.setStyleSheet(f"color: {NOT_IN_RUN.name()};" if attention else "")
            self.run_pins.show()
        if not same:
            self._fill_table(self._pins)

    def set_text_shares(self, shares: dict[str, float]) -> None:
        """Each sign's fraction of the chosen corpus's text (engine.training.pin_suggestions.text_shares)."""
        self._shares = dict(shares)
        self._suggest()

    def _suggest(self) -> None:
        """Mark the 3 unpinned signs to pin next for the finished run shown (engine/training/pin_suggestions.py,
        ranked by share of the text as its benchmark supports: a few dozen numbers from the stored
        mapping, so on the GUI thread)."""
        model = self.grid.model()
        mapping = self._suggest_from
        got = [] if mapping is None or not self._shares else \
            suggest_pins(mapping, self._shares, pins=self._pins, top=3, display=model.display)
        model.set_suggestions(got)
        if got:   # each suggestion's reason where it is seen, not only in its row's tooltip
            self.suggest_legend.setText(f"★1–★{len(got)}: the signs to pin next, the most frequent not yet pinned "
                                        "(ties: the least sure):<br>"
                                        + "<br>".join(f"★{i} {escape(s.reason)}" for i, s in enumerate(got, 1)))
        elif mapping is None and self._shares:
            self.suggest_legend.setText("★ marks the signs to pin next once a run has finished.")
        else:
            self.suggest_legend.setText("")

    def set_mapping(self, mapping: MappingSnapshot | None, step: int | None, source: str = "", *,
                    live: bool = False) -> None:
        """``live``: the mapping of a run still running; pin suggestions wait for a finished run."""
        model = self.grid.model()
        if mapping is not None and (not model.rows or set(mapping.known[1:]) - set(model.cols)):
            model.set_axes(mapping.lost, mapping.known, self._pins)
        model.set_mapping(mapping, step)
        if mapping is None:
            self.caption.setText("P(lost letter | known IPA unit): no mapping yet — start a run to see it learned")
        elif mapping.syllables is not None:   # columns: onsets (∅: none) and vowels; each sign's two sum to 2
            self.caption.setText(f"P(sound | sign) of a syllable run, onsets and vowels {source}"
                                 + (f" at step {step}" if step else "") + "; a consonant cell pins the onset (k-), "
                                 "a vowel cell the vowel (-a)")
        else:
            self.caption.setText(f"P(lost letter | known IPA unit) {source}" + (f" at step {step}" if step else ""))
        legend = self.legend_text(mapping is not None and mapping.syllables is not None)
        if mapping is not None and self.legend.text() != legend:   # a live run's updates leave it alone
            self.legend.setText(legend)
        self._suggest_from = None if live else mapping
        self._suggest()

    def _fill_table(self, pins: Sequence[PinnedValue]) -> None:
        self._pins = list(pins)
        self._filling = True
        try:
            self.table.setRowCount(len(pins))
            state = self.grid.model().pin_state
            for r, p in enumerate(pins):
                shown = self.grid.model().display.show(p.lost)
                in_run = "" if state is None else state.status(p)
                for c, v in enumerate((shown, f"/{p.known_ipa}/", f"{p.weight:g}", "", in_run, p.note)):
                    item = QTableWidgetItem(v)
                    if c in (0, 1, 4):
                        item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                    if c == 4 and state is not None and p in state.missing:
                        item.setForeground(NOT_IN_RUN)
                    if c == 3:
                        item.setFlags((item.flags() | Qt.ItemFlag.ItemIsUserCheckable) & ~Qt.ItemFlag.ItemIsEditable)
                        item.setCheckState(Qt.CheckState.Checked if p.locked else Qt.CheckState.Unchecked)
                        item.setText("locked" if p.locked else "soft")
                    self.table.setItem(r, c, item)
            self.table.resizeColumnsToContents()
            missing = [] if state is None else [r for r, p in enumerate(pins) if p in state.missing]
            if missing:   # the pin the reading lacks is the one to see (once the rows are laid out)
                QTimer.singleShot(0, self.table, lambda row=missing[0]: self._show_row(row))
        finally:
            self._filling = False

    def _show_row(self, row: int) -> None:
        if row < self.table.rowCount():   # the list may have been filled anew meanwhile
            self.table.scrollTo(self.table.model().index(row, 0))

    def _edited(self, item: QTableWidgetItem) -> None:
        if self._filling or not 0 <= item.row() < len(self._pins):
            return
        old = self._pins[item.row()]
        weight, locked, note = old.weight, old.locked, old.note
        if item.column() == 2:
            try:
                weight = float(item.text())
                if weight <= 0:
                    raise ValueError
            except ValueError:
                self._fill_table(self._pins)
                return
        elif item.column() == 3:
            locked = item.checkState() == Qt.CheckState.Checked
        elif item.column() == 5:
            note = item.text()
        new = PinnedValue(old.lost, old.known_ipa, weight, locked, note)
        if new != old:
            self.pinRequested.emit(new)

    # ---- actions -----------------------------------------------------------------------------

    def _toggle(self, lost: str, known: str) -> None:
        """Pin/unpin a cell; with syllable signs a consonant column pins the onset (k-), a vowel
        column the vowel (-a), and the "no onset" column asks for the value in the dialog."""
        value = syllable_pin_for(known) if self.syllables() else known
        if value is None:
            self.open_picker(lost)
        else:
            self.toggleRequested.emit(lost, value)

    def open_picker(self, lost: str | None = None) -> None:
        if lost is None and self.grid.currentIndex().isValid():
            lost = self.grid.model().rows[self.grid.currentIndex().row()]
        dialog = IpaPicker(self.grid.model().rows, self, lost, syllables=bool(self.syllables()))
        if dialog.exec() == QDialog.DialogCode.Accepted:
            value = dialog.value()
            if value is not None:
                self.pinRequested.emit(value)

    def _unpin_selected(self) -> None:
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        if rows:
            for r in rows:
                if 0 <= r < len(self._pins):
                    self.unpinRequested.emit(self._pins[r])
            return
        index = self.grid.currentIndex()
        if index.isValid():
            pin = index.data(PinnedRole)
            if pin is not None:
                self.unpinRequested.emit(pin)

    def _grid_menu(self, pos) -> None:
        index = self.grid.indexAt(pos)
        if not index.isValid():
            return
        m = self.grid.model()
        lost, known = m.rows[index.row()], m.cols[index.column()]
        pin = index.data(PinnedRole)
        menu = QMenu(self)
        act = QAction(("Unpin " if pin else "Pin ") + f"{lost} → /{known}/", menu)
        act.triggered.connect(lambda: self._toggle(lost, known))
        menu.addAction(act)
        if pin is not None:
            soft = QAction("Make soft (a suggestion)" if pin.locked else "Lock", menu)
            soft.triggered.connect(lambda: self.pinRequested.emit(
                PinnedValue(pin.lost, pin.known_ipa, pin.weight, not pin.locked, pin.note)))
            menu.addAction(soft)
        other = QAction(f"Pin {lost} to another IPA unit…", menu)
        other.triggered.connect(lambda: self.open_picker(lost))
        menu.addAction(other)
        menu.exec(self.grid.viewport().mapToGlobal(pos))
