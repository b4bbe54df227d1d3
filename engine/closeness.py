"""The closeness curve (paper §5, "Identifying close known languages"): how much of the lost text
is matched at each level of confidence. Torch-free, so the app can draw stored runs cheaply."""

from __future__ import annotations

import bisect
from typing import Iterable

from .results import Match


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
