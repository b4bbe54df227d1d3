"""Live plots (pyqtgraph) of losses, coverage, quality and the closeness curve, each with a table
twin that can be copied or exported as CSV (what a screen reader and a spreadsheet can use); the
Closeness tab also shows a comparison of known languages (curves, null band, scores and verdicts)."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Iterator, Sequence

import pyqtgraph as pg
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (QAbstractItemView, QButtonGroup, QFrame, QHBoxLayout, QHeaderView, QProgressBar,
                               QGraphicsItem, QPushButton, QScrollArea, QSplitter, QStackedWidget, QTableView, QTabWidget,
                               QVBoxLayout, QWidget)

from . import wrapping_label
from ..driver import StepRecord
from ..palette import SERIES

STYLES = [Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine, Qt.PenStyle.DashDotLine]

#: The same quantity keeps its colour and line in every run, live or stored (colour plus dash).
FIXED_SLOTS = {name: i for i, name in enumerate((
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
        from engine.io.atomic import guard_formula

        # names (a language called "-ke…") are formula-guarded as in every export; numbers never
        w.writerow([guard_formula(n) for n in [self.x_name] + self.names])
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
        self._hold_y = False  # a live run's y axis: see hold_y
        self._y_bounds: dict[str, tuple[float, float] | None] = {}  # each series' finite (min, max), kept as it grows
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
        # the axes (with their grid lines) are redrawn from a cached pixmap while their range
        # stands still, not replayed line by line on every curve update (~40 % of a repaint)
        for side in ("left", "bottom"):
            self.plot.getAxis(side).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        if y_range is not None:
            self.plot.setYRange(*y_range, padding=0.02)
        # a pan or zoom by the user ends hold_y: the view is theirs until the next run
        self.plot.getPlotItem().getViewBox().sigRangeChangedManually.connect(lambda *_: self.release_y(refit=False))
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
            self._y_bounds.pop(name, None)
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

    def _curve(self, name: str, *, symbol: str | None = None, style: int | None = None,
               colour_index: int | None = None) -> pg.PlotDataItem:
        curve = self.curves.get(name)
        if curve is not None and colour_index is not None and getattr(curve, "_colour_index", None) != colour_index:
            self.plot.removeItem(curve)
            self.legend.removeItem(curve)
            del self.curves[name]
            curve = None
        if curve is None:
            i = FIXED_SLOTS.get(name, len(self.curves)) % 5 if name in FIXED_SLOTS else len(self.curves)
            if colour_index is not None:
                i = colour_index
            colour = SERIES[i % len(SERIES)]
            dash = STYLES[(i if style is None else style) % len(STYLES)]
            pen = pg.mkPen(colour, width=2, style=dash)
            curve = self.plot.plot([], [], name=name, pen=pen,
                                   symbol=symbol, symbolBrush=colour, symbolPen=colour, symbolSize=6)
            curve.setClipToView(True)
            curve.setDownsampling(auto=True, method="peak")
            curve._colour_index = colour_index
            self.curves[name] = curve
        return curve

    def set_series(self, name: str, xs: Sequence[float], ys: Sequence[float], *, symbol: str | None = None,
                   style: int | None = None, colour_index: int | None = None) -> None:
        xs, ys = list(xs), list(ys)
        self.series[name] = (xs, ys)
        self._y_bounds.pop(name, None)  # replaced: measured again when needed
        curve = self._curve(name, symbol=symbol, style=style, colour_index=colour_index)
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
        self.fit_held_y()

    def hold_y(self) -> None:
        """A live run's y axis: fitted to the curves, but moved only when they leave it or fill less
        than half of it, to round bounds (fit_held_y). Refitted on every update, the axis's ticks
        and labels were redrawn each time: most of a plot's repaint while a run trains."""
        self._hold_y = True
        self.plot.getPlotItem().getViewBox().disableAutoRange(axis=pg.ViewBox.YAxis)
        self.fit_held_y()

    def release_y(self, refit: bool = True) -> None:
        """Back to pyqtgraph's own y range: fitted to the data at every change (``refit``), or
        left where the user panned or zoomed it."""
        self._hold_y = False
        if refit:
            self.plot.enableAutoRange(axis="y")

    def fit_held_y(self) -> None:
        if not self._hold_y or not self.isVisible():
            return
        if self.plot.getPlotItem().getViewBox().autoRangeEnabled()[1]:  # the user's "A": fit every change
            self._hold_y = False
            return
        for name, (_, values) in self.series.items():
            if name not in self._y_bounds:
                self._y_bounds[name] = _finite_bounds(values)
        bounds = [b for b in self._y_bounds.values() if b is not None]
        if not bounds:
            return
        lo, hi = min(b[0] for b in bounds), max(b[1] for b in bounds)
        now_lo, now_hi = self.plot.getPlotItem().getViewBox().viewRange()[1]
        if now_lo <= lo and hi <= now_hi and (hi - lo) * 2 >= now_hi - now_lo:
            return
        span = (hi - lo) or abs(hi) or 1.0
        step = 10 ** math.floor(math.log10(span / 2))
        self.plot.setYRange(math.floor((lo - 0.05 * span) / step) * step,
                            math.ceil((hi + 0.05 * span) / step) * step, padding=0)

    def append(self, name: str, xs: Sequence[float], ys: Sequence[float], **kw) -> None:
        old_x, old_y = self.series.get(name, ([], []))
        known = self._y_bounds.get(name, False)
        self.set_series(name, old_x + list(xs), old_y + list(ys), **kw)
        if known is not False:  # the new values only (a long run's curves are not read again each update)
            self._y_bounds[name] = _finite_bounds(list(ys), known)

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
        self.comparison = ComparisonView()
        self.closeness_tab = ClosenessTab(self.closeness, self.comparison)
        for name, w in (("Losses", self.losses), ("Coverage", self.coverage), ("Quality (P@K)", self.quality),
                        ("Closeness", self.closeness)):
            w.exportRequested.connect(self.exportRequested)
            self.tabs.addTab(self.closeness_tab if w is self.closeness else w, name)
        lay.addWidget(self.tabs)
        self._steps: list[StepRecord] = []
        self._restart = 0   # the start (setting restarts) whose steps the step plots show

    def reset_run(self, label: str = "current run") -> None:
        self._steps = []
        self._restart = 0
        for w in (self.losses, self.coverage, self.quality):
            w.clear()
            w.plot.enableAutoRange(axis="x")
        self.losses.release_y()
        self.closeness.clear(keep=[n for n in self.closeness.series if not n.startswith("▶")])

    def set_step_range(self, steps: int) -> None:
        """A live run's step axis, fixed at its planned steps: the axis then stays as it is while
        the curves grow, instead of being rescaled and redrawn on every update; the loss axis moves
        only in steps (hold_y). reset_run and a stored run's history go back to fitting the data."""
        for w in (self.losses, self.coverage, self.quality):
            w.plot.setXRange(0, max(1, steps), padding=0.02)
        self.losses.hold_y()  # the others have a fixed y range (shares)

    def add_steps(self, records: Sequence[StepRecord]) -> None:
        if not records:
            return
        self._steps.extend(records)
        restart = records[-1].restart
        if restart != self._restart or any(r.restart != restart for r in records):
            # another start (setting restarts; each counts its steps from 1): show its curve alone,
            # the kept one's whole curve once the choice is made
            self._restart = restart
            for w in (self.losses, self.coverage):
                w.clear(keep=["corpus coverage (eval)"])
            records = [r for r in self._steps if r.restart == restart]
        xs = [r.step for r in records]
        parts = [p for p in LOSS_PARTS if p in records[0].losses]
        parts += [p for p in records[0].losses if p not in LOSS_PARTS and p != "log_likelihood"]
        for part in parts:
            self.losses.append(part, xs, [r.losses.get(part, float("nan")) for r in records])
        self.coverage.append("batch coverage", xs, [r.coverage for r in records])
        self.coverage.append("coverage target", xs, [r.coverage_target for r in records], style=1)
        self.losses.fit_held_y()

    def add_evaluation(self, step: int, metrics: dict[str, float], closeness: Sequence[tuple[float, float]],
                       label: str) -> None:
        self.coverage.append("corpus coverage (eval)", [step], [metrics.get("coverage", float("nan"))],
                             symbol="o", style=2)
        for key, name in (("p_at_1", "P@1"), ("p_at_10", "P@10"), ("span_precision", "span precision"),
                          ("span_recall", "span recall")):
            if key in metrics:
                self.quality.append(name, [step], [metrics[key]], symbol="o")
        self.set_current_closeness(closeness, label)

    def language_colour(self, label: str) -> int:
        """One stable colour per known language (the part of a run label after "·"), in the
        order languages first appear; the shown run and other runs differ by dash, not colour."""
        language = label.split("·", 1)[-1].strip()
        colours = self.__dict__.setdefault("_language_colours", {})
        return colours.setdefault(language, len(colours))

    def set_current_closeness(self, closeness: Sequence[tuple[float, float]], label: str) -> None:
        for name in [n for n in self.closeness.series if n.startswith("▶")]:
            if name != f"▶ {label}":
                self.closeness.clear(keep=[n for n in self.closeness.series if n != name])
        self.closeness.set_series(f"▶ {label}", [c for c, _ in closeness], [v for _, v in closeness], style=0,
                                  colour_index=self.language_colour(label))

    def set_other_closeness(self, curves: dict[str, Sequence[tuple[float, float]]]) -> None:
        """Earlier runs on other known languages (label → curve), replacing the previous ones: in
        their language's colour, dashed (the shown run's curve is solid)."""
        self.closeness.clear(keep=[n for n in self.closeness.series if n.startswith("▶")])
        for label, curve in curves.items():
            self.closeness.set_series(label, [c for c, _ in curve], [v for _, v in curve], style=1,
                                      colour_index=self.language_colour(label))

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


# ---- a comparison of known languages (issue 12) ----------------------------------------------------


class ClosenessTab(QWidget):
    """The Closeness tab: the single runs' curves, or the last comparison of known languages."""

    def __init__(self, runs: QWidget, comparison: "ComparisonView", parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.runs_button = QPushButton("Single runs")
        self.comparison_button = QPushButton("Comparison")
        self.group = QButtonGroup(self)
        for i, b in enumerate((self.runs_button, self.comparison_button)):
            b.setCheckable(True)
            self.group.addButton(b, i)
            bar.addWidget(b)
        self.runs_button.setToolTip("The shown run's curve and the newest run on each other known language")
        self.comparison_button.setToolTip("The last comparison of known languages (Run ▸ Compare known languages…)")
        bar.addStretch(1)
        lay.addLayout(bar)
        self.stack = QStackedWidget()
        self.stack.addWidget(runs)
        self.stack.addWidget(comparison)
        lay.addWidget(self.stack, 1)
        self.runs_button.setChecked(True)
        self.group.idClicked.connect(self.stack.setCurrentIndex)

    def show_comparison(self) -> None:
        self.comparison_button.setChecked(True)
        self.stack.setCurrentIndex(1)


def _finite_bounds(values: Sequence, start: tuple[float, float] | None = None) -> tuple[float, float] | None:
    """The (min, max) of the finite values, merged with ``start``; None when there are none."""
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if start is not None:
        finite += list(start)
    return (min(finite), max(finite)) if finite else None


def spread_text(mean: float, sd: float, n: int, unit: str) -> str:
    """"0.105 ± 0.004" over several values; "0.105 (1 seed)" over one, whose sd (0 or nan) says nothing."""
    if n < 2 or sd != sd:
        return f"{mean:.3f} ({_count(n, unit)})"
    return f"{mean:.3f} ± {sd:.3f}"


def spread_tip(n: int, unit: str) -> str:
    """The tooltip of a spread_text cell of scores: "mean ± sd of the scores of 3 seeds", or for one
    value "the score of 1 seed: one value, no spread"."""
    if n < 2:
        return f"the score of {_count(n, unit)}: one value, no spread"
    return f"mean ± sd of the scores of {_count(n, unit)}"


def _count(n: int, unit: str) -> str:
    return f"{n} {unit}{'' if n == 1 else 's'}"


class ComparisonView(QWidget):
    """Every candidate's mean closeness curve in its own stable colour with the band of its seeds,
    the null vocabularies' band in grey, a legend in its own column (it never covers a curve), and
    the table of scores and verdicts beside the plot (under it when the view is narrow); above them
    the answer in words and the running comparison's progress."""

    TABLE_COLUMNS = ("known", "score", "margin", "verdict", "null")
    NARROW = 760
    """below this width (px) the table goes under the plot: beside it, in the window's default
    layout at 1600 x 1000, the legend's column took the whole plot's width"""
    PLOT_MIN_WIDTH = 220

    def __init__(self, parent=None):
        super().__init__(parent)
        self.colours: dict[str, str] = {}
        """candidate -> colour, fixed for the session once given (engine.closeness.plot.colour_of)"""
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.null_band: pg.FillBetweenItem | None = None
        self.null_curves: dict[str, pg.PlotDataItem] = {}
        """candidate -> the mean curve of its own null runs (dotted, in its colour)"""
        self.comparison = None
        """the comparison shown (closeness.png is drawn from it)"""
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        self.caption = wrapping_label("<b>No comparison yet</b>: Run ▸ Compare known languages… trains the corpus "
                                      "against several known languages and their null vocabularies.")
        # the answer in words scrolls in its own pane above the plot: it may be long (ranks, meaning,
        # caveats) and must neither widen the window nor squeeze the plot out of a small dock
        self.caption.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.caption_scroll = QScrollArea()
        self.caption_scroll.setWidgetResizable(True)
        self.caption_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.caption_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.caption_scroll.setWidget(self.caption)
        self.caption_scroll.setMinimumHeight(40)
        self.caption_scroll.setAccessibleName("Comparison answer and caveats")
        self.vsplit = QSplitter(Qt.Orientation.Vertical)
        self.vsplit.addWidget(self.caption_scroll)
        run_bar = QHBoxLayout()
        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m runs")
        # wraps, and never asks for its text's width: a long line (the plan's matching) widened the window
        self.progress_label = wrapping_label()
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop the comparison; the finished runs are kept, and running it again continues")
        run_bar.addWidget(self.progress, 1)
        run_bar.addWidget(self.stop_button)
        self.run_bar = QWidget()
        self.run_bar.setLayout(run_bar)
        run_bar.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.run_bar)
        lay.addWidget(self.progress_label)
        self.run_bar.hide()
        self.progress_label.hide()
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("w")
        self.plot = self.graphics.addPlot(row=0, col=0)
        self.plot.setLabel("bottom", "confidence")
        self.plot.setLabel("left", "coverage")
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        self.plot.setXRange(0, 1, padding=0.01)
        self.plot.setYRange(0, 1, padding=0.01)
        for side in ("left", "bottom"):
            self.plot.getAxis(side).setTextPen("k")
            self.plot.getAxis(side).enableAutoSIPrefix(False)
        # the legend has a column of its own beside the plot, so it never covers a curve
        side = self.graphics.addLayout(row=0, col=1)
        self.legend = pg.LegendItem(labelTextColor="k", labelTextSize="9pt")
        side.addItem(self.legend, row=0, col=0)
        side.addLabel("", row=1, col=0)
        side.layout.setRowStretchFactor(1, 10)
        self.graphics.ci.layout.setColumnStretchFactor(0, 4)
        self.graphics.ci.layout.setColumnStretchFactor(1, 1)
        # the legend's long names may be cut at the right edge, the plot never squeezed out
        self.graphics.ci.layout.setColumnMinimumWidth(0, self.PLOT_MIN_WIDTH)
        self.graphics.setAccessibleName("Comparison plot")
        self.model = QStandardItemModel(0, len(self.TABLE_COLUMNS), self)
        self.model.setHorizontalHeaderLabels(["language", "score", "margin", "verdict", "null"])
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAccessibleName("Comparison scores and verdicts")
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(True)
        self.splitter.addWidget(self.graphics)
        self.splitter.addWidget(self.table)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.vsplit.addWidget(self.splitter)
        self.vsplit.setStretchFactor(0, 1)
        self.vsplit.setStretchFactor(1, 3)
        self.vsplit.setChildrenCollapsible(False)
        lay.addWidget(self.vsplit, 1)
        # the plot and the table appear with a comparison: empty, they said nothing and their axes
        # were most of the window's repaint when a comparison starts (gui_responsiveness.py --comparison)
        self.splitter.hide()

    def clear(self) -> None:
        """No comparison shown (another project was opened)."""
        self.plot.clear()
        self.legend.clear()
        self.curves = {}
        self.null_curves = {}
        self.null_band = None
        self.comparison = None
        self.model.removeRows(0, self.model.rowCount())
        self.splitter.hide()
        self.caption.setText("<b>No comparison yet</b>: Run ▸ Compare known languages… trains the corpus against "
                             "several known languages and their null vocabularies.")
        self.caption.setToolTip("")
        self.set_idle()

    # ---- progress of a running comparison (the job in decipher_gui/comparison.py drives it) ----

    def set_running(self, total: int, label: str) -> None:
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(0)
        self.progress_label.setText(label)
        self.run_bar.show()
        self.progress_label.show()
        self.stop_button.setEnabled(True)

    def set_progress(self, done: int, total: int, line: str) -> None:
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(done)
        self.progress_label.setText(line)

    def set_idle(self, line: str = "") -> None:
        self.run_bar.hide()
        self.progress_label.setText(line)
        self.progress_label.setVisible(bool(line))

    # ---- the figure and the table ----

    def colour(self, name: str) -> str:
        from engine.closeness.plot import colour_of

        if name not in self.colours:
            self.colours[name] = colour_of(name, set(self.colours.values()))
        return self.colours[name]

    def comparison_steps(self, comparison) -> Iterator[None]:
        """Draw an engine.closeness.comparison.Comparison's figure (its runs' curves) one part per
        step: the null band, then each candidate, then the range and the caption. Driven one step per
        turn of the event loop (decipher_gui/comparison.py), no turn holds the window for more than one
        candidate's plot items, however many candidates there are. The table stays empty until
        :meth:`fill_table`."""
        from engine.closeness.plot import curve_bands, null_means

        curves, band = curve_bands(comparison)
        own_nulls = null_means(comparison)
        plan = comparison.plan
        self.comparison = comparison
        self.splitter.show()
        self.plot.clear()
        self.legend.clear()
        self.curves = {}
        self.null_curves = {}
        self.null_band = None
        self.model.removeRows(0, self.model.rowCount())
        if band is not None:
            x, lo, hi = band
            dash = pg.mkPen(90, 90, 90, 200, width=1.2, style=Qt.PenStyle.DashLine)
            lo_item, hi_item = self._edge(x, lo, dash), self._edge(x, hi, dash)
            self.null_band = pg.FillBetweenItem(lo_item, hi_item, brush=pg.mkBrush(120, 120, 120, 60))
            self.plot.addItem(self.null_band)
            self.legend.addItem(pg.PlotDataItem(pen=dash), "all nulls (5–95 %)")
        if own_nulls:
            self.legend.addItem(pg.PlotDataItem(pen=pg.mkPen("k", width=1.2, style=Qt.PenStyle.DotLine)),
                                "own nulls (mean)")
        by_name = {s.known: s for s in comparison.summaries}
        objective = plan.score == "objective"
        # the curves are coverage; under the objective score the number beside them is not their area
        scored = "\u2212objective " if objective else ""
        self.model.setHorizontalHeaderLabels(["language", "\u2212objective" if objective else "area", "margin",
                                              "verdict", "null"])
        for name, (x, mean, lo, hi) in curves.items():
            yield
            colour = self.colour(name)
            fill = pg.mkColor(colour)
            fill.setAlpha(55)
            lo_item = self._edge(x, lo, pg.mkPen(colour, width=0.5))
            hi_item = self._edge(x, hi, pg.mkPen(colour, width=0.5))
            self.plot.addItem(pg.FillBetweenItem(lo_item, hi_item, brush=pg.mkBrush(fill)))
            self.curves[name] = self.plot.plot(x, mean, pen=pg.mkPen(colour, width=2.5))
            if name in own_nulls:
                self.null_curves[name] = self.plot.plot(
                    *own_nulls[name], pen=pg.mkPen(colour, width=1.2, style=Qt.PenStyle.DotLine))
            self.legend.addItem(self.curves[name], f"{name} ({scored}{by_name[name].score_mean:.3f})")
        ymax = max([float(c[3].max()) for c in curves.values()] + ([float(band[2].max())] if band else []) + [0.05])
        self.plot.setYRange(0, min(1.0, ymax * 1.05), padding=0.01)
        self.caption.setText(f"<b>Comparison</b> of {len(curves)} known languages on {plan.lost.name}: "
                             f"{plan.matching.size_text}, seeds {' '.join(map(str, plan.seeds))}, "
                             f"{plan.n_null} null vocabularies each. Score = "
                             + ("minus the run's final training objective (the curves show coverage); " if objective
                                else "area under the curve; ") +
                             "ranked by the margin over the language's own nulls (dotted).")
        self.caption.setToolTip(plan.matching.describe())

    #: The figure and table keep at least this height (px) when the answer takes the rest.
    FIGURE_MIN_HEIGHT = 150

    def fit_answer(self) -> bool:
        """The answer's pane as tall as the answer (ranks, meaning, caveats), so that it reads without
        scrolling; the figure and table keep FIGURE_MIN_HEIGHT px, and only an answer longer than
        the rest of the view scrolls (it was a three-line box at 1600×1000). False when it does not
        fit whole (the view is too small for it)."""
        total = sum(self.vsplit.sizes())
        if total <= 0 or self.splitter.isHidden():
            return True
        width = self.caption_scroll.viewport().width() or self.caption_scroll.width()
        needed = self.caption.heightForWidth(width) + 2 * self.caption_scroll.frameWidth() + 4
        top = max(self.caption_scroll.minimumHeight(), min(needed, total - self.FIGURE_MIN_HEIGHT))
        self.vsplit.setSizes([top, total - top])
        return top >= needed

    def fill_table(self, comparison) -> None:
        """The table of scores, margins and verdicts of the comparison shown (ranked as the answer)."""
        from engine.closeness.comparison import unranked

        self.model.removeRows(0, self.model.rowCount())

        def cell(text: str, tip: str = "") -> QStandardItem:
            item = QStandardItem(text)
            item.setToolTip(tip or text)
            return item

        for s in comparison.summaries:
            name = cell(s.known)
            name.setData(QColor(self.colour(s.known)), Qt.ItemDataRole.DecorationRole)
            lo, hi = s.margin_interval
            margin = "" if s.margin != s.margin else f"{s.margin:+.3f}" + ("" if lo != lo else
                                                                          f" [{lo:+.3f}, {hi:+.3f}]")
            self.model.appendRow([name, cell(spread_text(s.score_mean, s.score_sd, s.n_seeds, "seed"),
                                             spread_tip(s.n_seeds, "seed")),
                                  cell(margin, "score − the mean of its own null runs [90 % interval]; the "
                                               "candidates are ranked by it"), cell(s.verdict),
                                  cell("" if s.null_mean != s.null_mean else
                                       spread_text(s.null_mean, s.null_sd, s.n_null_runs, "run"),
                                       spread_tip(s.n_null_runs, "null run"))])
        for name, why in unranked(comparison):
            self.model.appendRow([cell(name), cell(""), cell(""), cell(why.split(":", 1)[0], why), cell("")])
        self.table.resizeColumnsToContents()
        self._split_sizes()
        high = max(self.vsplit.height(), 300)
        self.vsplit.setSizes([int(high * 0.3), high - int(high * 0.3)])

    def _split_sizes(self) -> None:
        """The plot about two thirds of the split, the table the rest (beside it or under it)."""
        across = self.splitter.orientation() == Qt.Orientation.Horizontal
        total = max(self.splitter.width() if across else self.splitter.height(), 600 if across else 300)
        self.splitter.setSizes([int(total * 0.68), total - int(total * 0.68)])

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        want = Qt.Orientation.Vertical if event.size().width() < self.NARROW else Qt.Orientation.Horizontal
        if self.splitter.orientation() != want:
            self.splitter.setOrientation(want)
            self._split_sizes()

    def _edge(self, x, y, pen) -> pg.PlotCurveItem:
        """A band's edge: the same line as ``plot.plot(x, y, pen=pen)`` draws, without the
        PlotDataItem around it (and its empty scatter item), which the GUI thread builds at the end
        of a comparison (benchmarks/gui_responsiveness.py --comparison)."""
        item = pg.PlotCurveItem(x, y, pen=pen)
        self.plot.addItem(item)
        return item

    def export_png(self, path: str | Path, width: int = 1000) -> Path:
        """The shown comparison as closeness.png: the engine's figure (engine.closeness.plot), drawn at
        full size (``width`` x 0.6 ``width``) with its whole legend, whatever the size of this dock
        (a grab of the dock's plot was 1000x181 with its legend cut off)."""
        from engine.closeness.plot import figure_spec
        from engine.errors import DecipherError

        from ..figure import draw

        if self.comparison is None:
            raise DecipherError("no comparison is shown")
        try:
            return draw(figure_spec(self.comparison, width=width), path)
        except OSError as e:
            raise DecipherError(f"{path}: cannot write the figure ({e.strerror or e})") from e
