"""closeness.png of a comparison: each candidate's mean curve, its spread over seeds, its own null
vocabularies' mean curve (dotted, in its colour: a score is read against it), and the band of all nulls.

matplotlib is not a dependency, so this draws with pyqtgraph's image exporter on an offscreen Qt
platform. It is the one engine module that loads Qt, and only inside :func:`render_comparison`
(engine code that merely imports it stays Qt-free); without Qt it returns None and says why.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import numpy as np

#: Colour-blind-safe palette (Okabe-Ito without its yellow and black (too close to the grey null band), then Tol's muted).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#AA4499", "#882255",
           "#117733", "#332288", "#999933", "#44AA99")
#: The paper's candidate languages keep one colour each in every figure (Semitic blues, Germanic
#: greens, Romance oranges); other names take the first free colour of the palette.
FIXED = {"hebrew": "#0072B2", "arabic": "#56B4E9", "proto-germanic": "#009E73", "old-norse": "#117733",
         "old-english": "#44AA99", "latin": "#D55E00", "spanish": "#E69F00", "basque": "#CC79A7",
         "hungarian": "#882255", "turkish": "#332288", "gothic": "#999933"}


def colour_of(name: str, taken: set[str] | None = None) -> str:
    """The fixed colour of one of the paper's languages, else the first palette colour not taken."""
    fixed = FIXED.get(name.lower())
    if fixed is not None and (taken is None or fixed not in taken):
        return fixed
    for c in PALETTE:
        if taken is None or c not in taken:
            return c
    return PALETTE[int(hashlib.sha1(name.encode("utf-8")).hexdigest(), 16) % len(PALETTE)]


def _on_one_grid(comparison) -> tuple[np.ndarray | None, list[tuple[object, np.ndarray]]]:
    """The confidence grid of the comparison's first run, and every run's (item, coverage on it)."""
    grid, out = None, []
    for r in comparison.records:
        pts = np.array(sorted(r.result.curve))
        grid = pts[:, 0] if grid is None else grid
        out.append((r.item, np.interp(grid, pts[:, 0], pts[:, 1])))
    return grid, out


def curve_bands(comparison) -> tuple[dict, tuple[np.ndarray, np.ndarray, np.ndarray] | None]:
    """{candidate: (confidence, mean, low, high)} over its seeds, and the null band (confidence,
    low, high): the 5th to 95th percentile of every null run's coverage at each confidence."""
    grid, runs = _on_one_grid(comparison)
    per: dict[str, list[np.ndarray]] = {}
    nulls: list[np.ndarray] = []
    for item, ys in runs:
        (nulls if item.null is not None else per.setdefault(item.known, [])).append(ys)
    out = {}
    for s in comparison.summaries:
        if s.known in per:
            a = np.vstack(per[s.known])
            out[s.known] = (grid, a.mean(0), a.min(0), a.max(0))
    band = None
    if nulls:
        a = np.vstack(nulls)
        band = (grid, np.percentile(a, 5, axis=0), np.percentile(a, 95, axis=0))
    return out, band


def null_means(comparison) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{candidate: (confidence, mean coverage)} over its own null runs: the curve its score is read
    against (its nulls keep its stem lengths, list size and sound patterns; docs/closeness.md)."""
    grid, runs = _on_one_grid(comparison)
    per: dict[str, list[np.ndarray]] = {}
    for item, ys in runs:
        if item.null is not None:
            per.setdefault(item.known, []).append(ys)
    return {name: (grid, np.vstack(ys).mean(0)) for name, ys in per.items()}


def render_comparison(comparison, path: str | os.PathLike, *, width: int = 1000) -> Path | None:
    """Write the figure to ``path``; None (and a note on stderr) when Qt cannot be loaded here."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        import pyqtgraph as pg
        import pyqtgraph.exporters  # noqa: F401 (registers ImageExporter)
        from pyqtgraph.Qt import QtCore, QtWidgets
    except Exception as e:  # no Qt binding or no platform plugin: the CSVs are still written
        print(f"note: closeness.png not drawn ({type(e).__name__}: {e})", file=sys.stderr)
        return None
    curves, band = curve_bands(comparison)
    own_nulls = null_means(comparison)
    app = QtWidgets.QApplication.instance() or pg.mkQApp()  # noqa: F841 (keeps Qt alive while drawing)
    height = int(width * 0.6)
    win = pg.GraphicsLayoutWidget()
    win.setBackground("w")
    win.resize(width, height)
    plot = win.addPlot(row=0, col=0)
    for side in ("left", "bottom"):
        plot.getAxis(side).enableAutoSIPrefix(False)
        plot.getAxis(side).setTextPen("k")
    plot.setTitle(f"Closeness to {comparison.plan.lost.name}: coverage vs confidence "
                  f"({comparison.plan.matching.size_text})", color="k")
    plot.setLabel("bottom", "confidence (per-letter probability of the best stem)")
    plot.setLabel("left", "coverage of the lost text")
    plot.showGrid(x=True, y=True, alpha=0.2)
    plot.setXRange(0, 1, padding=0.01)
    ymax = max([float(c[3].max()) for c in curves.values()] + ([float(band[2].max())] if band else []) + [0.05])
    plot.setYRange(0, min(1.0, ymax * 1.05), padding=0.01)
    # the legend has its own column beside the plot, so it never covers a curve
    side = win.addLayout(row=0, col=1)
    legend = pg.LegendItem(labelTextColor="k", labelTextSize="10pt")
    side.addItem(legend, row=0, col=0)
    side.addLabel("", row=1, col=0)  # takes the height left, so the legend stays compact at the top
    side.layout.setRowStretchFactor(1, 10)
    win.ci.layout.setColumnStretchFactor(0, 3)
    win.ci.layout.setColumnStretchFactor(1, 1)
    if band is not None:
        x, lo, hi = band
        dash = pg.mkPen(90, 90, 90, 200, width=1.5, style=QtCore.Qt.PenStyle.DashLine)
        lo_item, hi_item = plot.plot(x, lo, pen=dash), plot.plot(x, hi, pen=dash)
        plot.addItem(pg.FillBetweenItem(lo_item, hi_item, brush=pg.mkBrush(120, 120, 120, 60)))
        # a legend sample must be a PlotDataItem (a FillBetweenItem crashes its painter)
        legend.addItem(pg.PlotDataItem(pen=dash), "all null vocabularies (5–95 %)")
    if own_nulls:
        legend.addItem(pg.PlotDataItem(pen=pg.mkPen("k", width=1.5, style=QtCore.Qt.PenStyle.DotLine)),
                       "each language's own nulls (mean)")
    taken: set[str] = set()
    by_name = {s.known: s for s in comparison.summaries}
    for name, (x, mean, lo, hi) in curves.items():
        colour = colour_of(name, taken)
        taken.add(colour)
        qc = pg.mkColor(colour)
        qc.setAlpha(55)
        lo_item = plot.plot(x, lo, pen=pg.mkPen(colour, width=0.5))
        hi_item = plot.plot(x, hi, pen=pg.mkPen(colour, width=0.5))
        plot.addItem(pg.FillBetweenItem(lo_item, hi_item, brush=pg.mkBrush(qc)))
        line = plot.plot(x, mean, pen=pg.mkPen(colour, width=2.5))
        if name in own_nulls:
            plot.plot(*own_nulls[name], pen=pg.mkPen(colour, width=1.5, style=QtCore.Qt.PenStyle.DotLine))
        s = by_name[name]
        margin = "" if s.margin != s.margin else f", margin {s.margin:+.3f}"  # what the verdict tests (not z)
        legend.addItem(line, f"{name}: {s.score_mean:.3f}{margin}<br>({s.verdict})")
    # lays the scene out at the window's size; never drawn on a screen (the app calls this too)
    win.setAttribute(QtCore.Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    win.show()
    QtCore.QCoreApplication.processEvents()
    path = Path(path)
    tmp = path.with_name(path.stem + ".part.png")
    exporter = pg.exporters.ImageExporter(win.scene())
    exporter.parameters()["width"] = width
    exporter.export(str(tmp))
    tmp.replace(path)
    win.close()
    win.deleteLater()  # in the app: deleted by its event loop, not by Python's collector mid-paint
    return path


__all__ = ["PALETTE", "colour_of", "curve_bands", "null_means", "render_comparison"]
