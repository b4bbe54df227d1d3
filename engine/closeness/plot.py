"""closeness.png of a comparison: each candidate's mean curve, its spread over seeds, its own null
vocabularies' mean curve (dotted, in its colour: a score is read against it), and the band of all nulls.

The engine never loads Qt: :func:`figure_spec` says what the figure shows as plain data, and
:func:`render_comparison` has it drawn by ``python -m decipher_gui.figure`` (pyqtgraph's image exporter
on an offscreen Qt platform; matplotlib is not a dependency) in a process of its own. Where that cannot
run, it returns None and says why.
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


def figure_spec(comparison, *, width: int = 1000) -> dict:
    """What closeness.png shows, as plain data (JSON-able, no Qt): the title and labels, the y range,
    the band of all nulls, and per candidate its colour, mean curve, seed band, own nulls' mean curve
    and legend line. ``decipher_gui.figure`` draws it; the app's Closeness tab draws the same curves."""
    curves, band = curve_bands(comparison)
    own_nulls = null_means(comparison)
    ymax = max([float(c[3].max()) for c in curves.values()] + ([float(band[2].max())] if band else []) + [0.05])
    taken: set[str] = set()
    by_name = {s.known: s for s in comparison.summaries}
    series = []
    # the curves are coverage; under the objective score the number beside them is not their area
    scored = "\u2212objective " if comparison.plan.score == "objective" else ""
    for name, (x, mean, lo, hi) in curves.items():
        colour = colour_of(name, taken)
        taken.add(colour)
        s = by_name[name]
        margin = "" if s.margin != s.margin else f", margin {s.margin:+.3f}"  # what the verdict tests (not z)
        own = own_nulls.get(name)
        series.append({"name": name, "colour": colour, "x": x.tolist(), "mean": mean.tolist(), "lo": lo.tolist(),
                       "hi": hi.tolist(), "own_null": None if own is None else [own[0].tolist(), own[1].tolist()],
                       "label": f"{name}: {scored}{s.score_mean:.3f}{margin}<br>({s.verdict})"})
    return {"width": int(width), "height": int(width * 0.6),
            "title": (f"Closeness to {comparison.plan.lost.name}: coverage vs confidence "
                      f"({comparison.plan.matching.size_text})"),
            "xlabel": "confidence (per-letter probability of the best stem)", "ylabel": "coverage of the lost text",
            "ymax": min(1.0, ymax * 1.05),
            "band": None if band is None else {"x": band[0].tolist(), "lo": band[1].tolist(), "hi": band[2].tolist()},
            "own_nulls": bool(own_nulls), "series": series}


#: The drawing program: the app's package draws the figure with Qt in a process of its own, so that
#: the engine never loads Qt (it runs headless, on clusters, in workers).
DRAWER = ("-m", "decipher_gui.figure")


def render_comparison(comparison, path: str | os.PathLike, *, width: int = 1000, timeout: float = 300) -> Path | None:
    """Write the figure to ``path`` by running ``python -m decipher_gui.figure SPEC PATH`` (Qt, offscreen)
    on :func:`figure_spec`; None, with one note on stderr, when it cannot be drawn here (no Qt, no app
    package, a path that cannot be written): the comparison's CSVs are written all the same."""
    import json
    import subprocess
    import tempfile

    path = Path(path)
    with tempfile.TemporaryDirectory(prefix="closeness-figure-") as tmp:
        spec = Path(tmp) / "figure.json"
        spec.write_text(json.dumps(figure_spec(comparison, width=width)), encoding="utf-8")
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
        try:
            done = subprocess.run([sys.executable, *DRAWER, str(spec), str(path)], env=env, capture_output=True,
                                  text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as e:
            print(f"note: closeness.png not drawn ({type(e).__name__}: {e})", file=sys.stderr)
            return None
    if done.returncode != 0 or not path.is_file():
        why = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        print(f"note: closeness.png not drawn ({why})", file=sys.stderr)
        return None
    return path


__all__ = ["DRAWER", "PALETTE", "colour_of", "curve_bands", "figure_spec", "null_means", "render_comparison"]
