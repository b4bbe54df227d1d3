"""closeness.png drawn with Qt from the engine's plain description of it (engine.closeness.plot.figure_spec).

The engine never loads Qt: ``decipher closeness`` runs ``python -m decipher_gui.figure SPEC.json OUT.png``
in a process of its own; the app's comparison job draws in a short-lived process of its own too, and
File ▸ Save figure draws on the GUI thread. All three call :func:`draw`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Mapping


def draw(spec: Mapping[str, Any], path: str | os.PathLike) -> Path:
    """Write the figure ``spec`` describes to ``path`` (PNG, ``spec["width"]`` x ``spec["height"]``, its whole
    legend in a column of its own); OSError when the file cannot be written. Needs a QApplication."""
    import numpy as np
    import pyqtgraph as pg
    import pyqtgraph.exporters  # noqa: F401 (registers ImageExporter)
    from pyqtgraph.Qt import QtCore

    def arr(values) -> np.ndarray:
        return np.asarray(values, dtype=float)

    win = pg.GraphicsLayoutWidget()
    win.setBackground("w")
    win.resize(int(spec["width"]), int(spec["height"]))
    plot = win.addPlot(row=0, col=0)
    for side in ("left", "bottom"):
        plot.getAxis(side).enableAutoSIPrefix(False)
        plot.getAxis(side).setTextPen("k")
    plot.setTitle(spec["title"], color="k")
    plot.setLabel("bottom", spec["xlabel"])
    plot.setLabel("left", spec["ylabel"])
    plot.showGrid(x=True, y=True, alpha=0.2)
    plot.setXRange(0, 1, padding=0.01)
    plot.setYRange(0, float(spec["ymax"]), padding=0.01)
    # the legend has its own column beside the plot, so it never covers a curve
    side = win.addLayout(row=0, col=1)
    legend = pg.LegendItem(labelTextColor="k", labelTextSize="10pt")
    side.addItem(legend, row=0, col=0)
    side.addLabel("", row=1, col=0)  # takes the height left, so the legend stays compact at the top
    side.layout.setRowStretchFactor(1, 10)
    win.ci.layout.setColumnStretchFactor(0, 3)
    win.ci.layout.setColumnStretchFactor(1, 1)
    band = spec.get("band")
    if band is not None:
        dash = pg.mkPen(90, 90, 90, 200, width=1.5, style=QtCore.Qt.PenStyle.DashLine)
        x = arr(band["x"])
        lo_item, hi_item = plot.plot(x, arr(band["lo"]), pen=dash), plot.plot(x, arr(band["hi"]), pen=dash)
        plot.addItem(pg.FillBetweenItem(lo_item, hi_item, brush=pg.mkBrush(120, 120, 120, 60)))
        # a legend sample must be a PlotDataItem (a FillBetweenItem crashes its painter)
        legend.addItem(pg.PlotDataItem(pen=dash), "all null vocabularies (5–95 %)")
    if spec.get("own_nulls"):
        legend.addItem(pg.PlotDataItem(pen=pg.mkPen("k", width=1.5, style=QtCore.Qt.PenStyle.DotLine)),
                       "each language's own nulls (mean)")
    for s in spec["series"]:
        colour, x = s["colour"], arr(s["x"])
        qc = pg.mkColor(colour)
        qc.setAlpha(55)
        lo_item = plot.plot(x, arr(s["lo"]), pen=pg.mkPen(colour, width=0.5))
        hi_item = plot.plot(x, arr(s["hi"]), pen=pg.mkPen(colour, width=0.5))
        plot.addItem(pg.FillBetweenItem(lo_item, hi_item, brush=pg.mkBrush(qc)))
        line = plot.plot(x, arr(s["mean"]), pen=pg.mkPen(colour, width=2.5))
        if s.get("own_null") is not None:
            nx, ny = s["own_null"]
            plot.plot(arr(nx), arr(ny), pen=pg.mkPen(colour, width=1.5, style=QtCore.Qt.PenStyle.DotLine))
        legend.addItem(line, s["label"])
    # lays the scene out at the window's size; never drawn on a screen (the app calls this too)
    win.setAttribute(QtCore.Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    win.show()
    QtCore.QCoreApplication.processEvents()
    path = Path(path)
    from engine.io.atomic import WriteError, atomic_path

    try:  # the engine's one writer: made new beside the figure, never through a link, nothing half-written
        exporter = pg.exporters.ImageExporter(win.scene())
        exporter.parameters()["width"] = int(spec["width"])
        image = exporter.export(toBytes=True)
        with atomic_path(path) as part:
            if not image.save(str(part), "PNG"):
                raise WriteError(path, "the picture could not be encoded as PNG")
    finally:
        win.close()
        win.deleteLater()  # in the app: deleted by its event loop, not by Python's collector mid-paint
    return path


def main(argv: list[str] | None = None) -> int:
    """``python -m decipher_gui.figure SPEC.json OUT.png``: 0 when written; else one line on stderr, exit 2."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m decipher_gui.figure SPEC.json OUT.png", file=sys.stderr)
        return 2
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        spec = json.loads(Path(args[0]).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        print(f"{args[0]}: cannot read the figure's description ({e})", file=sys.stderr)
        return 2
    import pyqtgraph as pg

    from .fonts import register_fonts

    app = pg.mkQApp("closeness.png")  # noqa: F841 (keeps Qt alive while drawing)
    register_fonts()
    from engine.errors import DecipherError

    try:
        draw(spec, args[1])
    except DecipherError as e:  # the writer's one line (a link or a file in the way, a full disk)
        print(str(e), file=sys.stderr)
        return 2
    except OSError as e:
        print(f"{args[1]}: cannot write the figure ({e.strerror or e})", file=sys.stderr)
        return 2
    except (KeyError, TypeError, ValueError) as e:
        print(f"{args[0]}: not a figure description ({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
