"""Live plots (pyqtgraph) of losses, coverage, quality and the closeness curve, each with a table
twin that can be copied or exported as CSV (what a screen reader and a spreadsheet can use)."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QPushButton, QStackedWidget,
                               QTableView, QTabWidget, QVBoxLayout, QWidget)

from . import wrapping_label
from ..driver import StepRecord
from ..palette import SERIES

STYLES = [Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine, Qt.PenStyle.DashDotLine]

#: The same quantity keeps its colour and line in every run, live or stored (colour plus dash).
FIXED = {name: i for i, name in enumerate((
    "total", "quality", "coverage", "sound_loss", "pins",
    "batch coverage", "coverage target", "corpus coverage (eval)",
    "P@1", "P@10", "span precision", "span recall"))}
LOSS_PARTS = ("total", "quality", "coverage", "sound_loss", "pins")


class SeriesTableModel(QAbstractTableModel):
    """Rows = x values (union over the series), columns = x then one per series."""

    def __init__(self, x_name: str, parent=None):
        super().__init__(parent)
        self.x_name = x_name
        self.names: list[str] = []
        self.rows: list[list] = []

    def rebuild(self, series: dict[str, tuple[list[float], list[float]]]) -> None:
        self.beginResetModel()
        self.names = list(series)
        table: dict[float, list] = {}
        for j, (xs, ys) in enumerate(series.values()):
            for x, y in zip(xs, ys):
                table.setdefault(x, [None] * len(self.names))[j] = y
        self.rows = [[x] + vals for x, vals in sorted(table.items(), key=lambda t: t[0])]
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else 1 + len(self.names)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.x_name if section == 0 else self.names[section - 1]
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and index.isValid():
            v = self.rows[index.row()][index.column()]
            if v is None:
                return ""
            return f"{v:g}" if index.column() == 0 else f"{v:.4g}"
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def csv_text(self, delimiter: str = ",") -> str:
        buf = io.StringIO()
        w = csv.writer(buf, delimiter=delimiter, lineterminator="\n")
        w.writerow([self.x_name] + self.names)
        for row in self.rows:
            w.writerow(["" if v is None else repr(float(v)) for v in row])
        return buf.getvalue()


class PlotWithTable(QWidget):
    """One plot, its table twin (toggle), Copy and Export CSV."""

    exportRequested = Signal(object)  # self

    def __init__(self, title: str, x_name: str, y_name: str, parent=None, *, y_range=None):
        super().__init__(parent)
        self.title = title
        self.series: dict[str, tuple[list[float], list[float]]] = {}
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.standing: set[str] = set()
        self._stale: set[str] = set()
        self._dirty_table = True
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        bar = QHBoxLayout()
        self.caption = wrapping_label(f"<b>{title}</b>")
        bar.addWidget(self.caption, 1)
        self.table_button = QPushButton("Table")
        self.table_button.setCheckable(True)
        self.table_button.setToolTip("Show the values as a table (the plot's twin)")
        self.table_button.toggled.connect(self._toggle_table)
        self.copy_button = QPushButton("Copy")
        self.copy_button.setToolTip("Copy the values as CSV text")
        self.copy_button.clicked.connect(self.copy)
        self.export_button = QPushButton("Export CSV…")
        self.export_button.clicked.connect(lambda: self.exportRequested.emit(self))
        for b in (self.table_button, self.copy_button, self.export_button):
            bar.addWidget(b)
        lay.addLayout(bar)
        self.stack = QStackedWidget()
        self.plot = pg.PlotWidget()
        self.plot.setLabel("bottom", x_name)
        self.plot.setLabel("left", y_name)
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setAccessibleName(f"{title} plot")
        self.plot.setToolTip("Click a legend entry to hide or show its curve; drag to pan, wheel to zoom, "
                             "the small A in a corner rescales. The Table button shows the values.")
        self.legend = self.plot.addLegend(offset=(-10, 10))
        if y_range is not None:
            self.plot.setYRange(*y_range, padding=0.02)
        self.plot.setMinimumHeight(120)
        self.model = SeriesTableModel(x_name, self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAccessibleName(f"{title} values")
        self.stack.addWidget(self.plot)
        self.stack.addWidget(self.table)
        lay.addWidget(self.stack, 1)

    def clear(self, keep: Sequence[str] = ()) -> None:
        """Forget every series but ``keep``; the standing curves stay, emptied (making a curve with
        its legend entry takes ~6 ms, too long to do on the first step of every run)."""
        for name in list(self.series):
            if name in keep:
                continue
            self.series.pop(name)
            curve = self.curves.get(name)
            if curve is None:
                continue
            if name in self.standing:
                curve.setData([], [])
                self._stale.discard(name)
            else:
                del self.curves[name]
                self.plot.removeItem(curve)
                self.legend.removeItem(curve)
        self._dirty_table = True
        self._refresh_table()

    def add_standing(self, names: Sequence[str], **kw) -> None:
        """Curves made now, once, and kept empty until data come."""
        for name in names:
            self.standing.add(name)
            self._curve(name, **kw)

    def _curve(self, name: str, *, symbol: str | None = None, style: int | None = None) -> pg.PlotDataItem:
        curve = self.curves.get(name)
        if curve is None:
            i = FIXED.get(name, len(self.curves)) % 5 if name in FIXED else len(self.curves)
            colour = SERIES[i % len(SERIES)]
            dash = STYLES[(i if style is None else style) % len(STYLES)]
            pen = pg.mkPen(colour, width=2, style=dash)
            curve = self.plot.plot([], [], name=name, pen=pen,
                                   symbol=symbol, symbolBrush=colour, symbolPen=colour, symbolSize=6)
            curve.setClipToView(True)
            curve.setDownsampling(auto=True, method="peak")
            self.curves[name] = curve
        return curve

    def set_series(self, name: str, xs: Sequence[float], ys: Sequence[float], *, symbol: str | None = None,
                   style: int | None = None) -> None:
        xs, ys = list(xs), list(ys)
        self.series[name] = (xs, ys)
        curve = self._curve(name, symbol=symbol, style=style)
        if self.isVisible():
            self._draw(name, curve)
        else:  # a hidden tab: draw when it is shown (saves the GUI thread most of the work)
            self._stale.add(name)
        self._dirty_table = True
        self._refresh_table()

    def _draw(self, name: str, curve) -> None:
        xs, ys = self.series.get(name, ([], []))
        clean = [(x, y) for x, y in zip(xs, ys) if y is not None and math.isfinite(y)]
        curve.setData([x for x, _ in clean], [y for _, y in clean])
        self._stale.discard(name)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        for name in list(self._stale):
            if name in self.curves:
                self._draw(name, self.curves[name])
        self._stale.clear()

    def append(self, name: str, xs: Sequence[float], ys: Sequence[float], **kw) -> None:
        old_x, old_y = self.series.get(name, ([], []))
        self.set_series(name, old_x + list(xs), old_y + list(ys), **kw)

    def _toggle_table(self, on: bool) -> None:
        self.stack.setCurrentIndex(1 if on else 0)
        self._refresh_table()

    def _refresh_table(self) -> None:
        if self._dirty_table and self.stack.currentIndex() == 1:
            self.model.rebuild(self.series)
            self._dirty_table = False

    def csv_text(self) -> str:
        if self._dirty_table:
            self.model.rebuild(self.series)
            self._dirty_table = False
        return self.model.csv_text()

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.csv_text())

    def export(self, path: str | Path) -> None:
        from engine.io.atomic import atomic_path

        text = self.csv_text()
        with atomic_path(Path(path)) as tmp:  # the engine's one atomic writer: nothing half-written
            tmp.write_text(text, encoding="utf-8", newline="")


class PlotsPanel(QWidget):
    """Losses, coverage, quality against steps; closeness against confidence."""

    exportRequested = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.tabs = QTabWidget()
        self.losses = PlotWithTable("Losses", "step", "loss")
        self.coverage = PlotWithTable("Coverage", "step", "share of letters", y_range=(0, 1))
        self.quality = PlotWithTable("Quality", "step", "share", y_range=(0, 1))
        self.closeness = PlotWithTable("Closeness", "confidence threshold", "coverage", y_range=(0, 1))
        self.closeness.caption.setText("<b>Closeness</b>: coverage against confidence")
        self.closeness.caption.setToolTip("The share of the corpus's letters inside matched spans at least this "
                                          "confident: the shown run (▶) and the newest run on each other known "
                                          "language. A closer language keeps more coverage at high confidence.")
        self.losses.add_standing(LOSS_PARTS)
        self.coverage.add_standing(["batch coverage"])
        self.coverage.add_standing(["coverage target"], style=1)
        self.coverage.add_standing(["corpus coverage (eval)"], symbol="o", style=2)
        self.quality.add_standing(["P@1", "P@10", "span precision", "span recall"], symbol="o")
        for name, w in (("Losses", self.losses), ("Coverage", self.coverage), ("Quality (P@K)", self.quality),
                        ("Closeness", self.closeness)):
            w.exportRequested.connect(self.exportRequested)
            self.tabs.addTab(w, name)
        lay.addWidget(self.tabs)
        self._steps: list[StepRecord] = []

    def reset_run(self, label: str = "current run") -> None:
        self._steps = []
        for w in (self.losses, self.coverage, self.quality):
            w.clear()
        self.closeness.clear(keep=[n for n in self.closeness.series if not n.startswith("▶")])

    def add_steps(self, records: Sequence[StepRecord]) -> None:
        if not records:
            return
        self._steps.extend(records)
        xs = [r.step for r in records]
        parts = [p for p in LOSS_PARTS if p in records[0].losses]
        parts += [p for p in records[0].losses if p not in LOSS_PARTS and p != "log_likelihood"]
        for part in parts:
            self.losses.append(part, xs, [r.losses.get(part, float("nan")) for r in records])
        self.coverage.append("batch coverage", xs, [r.coverage for r in records])
        self.coverage.append("coverage target", xs, [r.coverage_target for r in records], style=1)

    def add_evaluation(self, step: int, metrics: dict[str, float], closeness: Sequence[tuple[float, float]],
                       label: str) -> None:
        self.coverage.append("corpus coverage (eval)", [step], [metrics.get("coverage", float("nan"))],
                             symbol="o", style=2)
        for key, name in (("p_at_1", "P@1"), ("p_at_10", "P@10"), ("span_precision", "span precision"),
                          ("span_recall", "span recall")):
            if key in metrics:
                self.quality.append(name, [step], [metrics[key]], symbol="o")
        self.set_current_closeness(closeness, label)

    def set_current_closeness(self, closeness: Sequence[tuple[float, float]], label: str) -> None:
        for name in [n for n in self.closeness.series if n.startswith("▶")]:
            if name != f"▶ {label}":
                self.closeness.clear(keep=[n for n in self.closeness.series if n != name])
        self.closeness.set_series(f"▶ {label}", [c for c, _ in closeness], [v for _, v in closeness], style=0)

    def set_other_closeness(self, curves: dict[str, Sequence[tuple[float, float]]]) -> None:
        """Earlier runs on other known languages (label → curve), replacing the previous ones."""
        self.closeness.clear(keep=[n for n in self.closeness.series if n.startswith("▶")])
        for i, (label, curve) in enumerate(curves.items()):
            self.closeness.set_series(label, [c for c, _ in curve], [v for _, v in curve], style=1 + i)

    def load_history(self, metrics: Sequence[tuple[int, str, float]]) -> None:
        """Fill the step plots from a stored run's metrics rows (step, name, value)."""
        self.reset_run()
        by_name: dict[str, tuple[list[int], list[float]]] = {}
        for step, name, value in metrics:
            xs, ys = by_name.setdefault(name, ([], []))
            xs.append(step)
            ys.append(value)
        # engine.project.recording names them loss/<part>
        names = [f"loss/{p}" for p in LOSS_PARTS if f"loss/{p}" in by_name]
        names += sorted(n for n in by_name if n.startswith("loss/") and n not in names and n != "loss/log_likelihood")
        for name in names:
            self.losses.set_series(name[5:], *by_name[name])
        if "batch_coverage" in by_name:
            self.coverage.set_series("batch coverage", *by_name["batch_coverage"])
        if "coverage_target" in by_name:
            self.coverage.set_series("coverage target", *by_name["coverage_target"], style=1)
        if "coverage" in by_name:
            self.coverage.set_series("corpus coverage (eval)", *by_name["coverage"], symbol="o", style=2)
        for key, name in (("p_at_1", "P@1"), ("p_at_10", "P@10"), ("span_precision", "span precision"),
                          ("span_recall", "span recall")):
            if key in by_name:
                self.quality.set_series(name, *by_name[key], symbol="o")
