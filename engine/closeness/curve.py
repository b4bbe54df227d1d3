"""The closeness curve (paper §5, "Identifying close known languages"): how much of the lost text
is matched at each level of confidence. Torch-free, so the app can draw stored runs cheaply."""

from __future__ import annotations

import bisect
from typing import Iterable

from engine.results import Match


def closeness_curve(matches: Iterable[Match], total_chars: int, points: int = 41) -> list[tuple[float, float]]:
    """Coverage of the spans at least as confident as c, for thresholds c from 1 down to 0.

    Confidence is the span's best per-letter probability exp(log P(span | stem) / |span|).
    """
    spans = sorted(((m.confidence, m.end - m.start) for m in matches), key=lambda t: t[0])
    confs = [c for c, _ in spans]
    suffix = [0] * (len(spans) + 1)
    for i in range(len(spans) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + spans[i][1]
    curve = []
    for p in range(points):
        c = 1.0 - p / (points - 1)
        i = bisect.bisect_left(confs, c)
        curve.append((c, suffix[i] / total_chars if total_chars else 0.0))
    return curve


#: The confidence at which ``coverage_at`` is read by default (the paper's plots are read near it).
DEFAULT_CONFIDENCE = 0.5


def closeness_score(curve: Iterable[tuple[float, float]]) -> float:
    """The closeness score of a run: the area under its coverage-vs-confidence curve.

    Trapezoids over the curve's points, sorted by confidence, on the confidence axis [0, 1]
    (the curve is extended flat to 0 and to 1 where its points stop short). For the
    41-point curve of :func:`closeness_curve` this is, up to the grid, the confidence-weighted
    coverage sum(|span| * confidence) / letters: every matched letter counts by how sure the
    model is of it. docs/closeness.md says why this and not coverage at one threshold.
    """
    points = sorted((float(c), float(v)) for c, v in curve)
    if not points:
        raise ValueError("a closeness curve needs at least one point")
    for c, v in points:
        if not (0.0 <= c <= 1.0) or not (0.0 <= v <= 1.0):
            raise ValueError(f"closeness curve point ({c}, {v}) is outside [0, 1] x [0, 1]")
    if points[0][0] > 0.0:
        points.insert(0, (0.0, points[0][1]))
    if points[-1][0] < 1.0:
        points.append((1.0, points[-1][1]))
    return sum((c1 - c0) * (v0 + v1) / 2 for (c0, v0), (c1, v1) in zip(points, points[1:]))


def coverage_at(curve: Iterable[tuple[float, float]], confidence: float = DEFAULT_CONFIDENCE) -> float:
    """Coverage of the spans at least ``confidence`` sure, read off the curve (linear between points)."""
    points = sorted((float(c), float(v)) for c, v in curve)
    if not points:
        raise ValueError("a closeness curve needs at least one point")
    if confidence <= points[0][0]:
        return points[0][1]
    for (c0, v0), (c1, v1) in zip(points, points[1:]):
        if c0 <= confidence <= c1:
            return v0 if c1 == c0 else v0 + (v1 - v0) * (confidence - c0) / (c1 - c0)
    return points[-1][1]
