"""Why a span matches a stem: the best character alignment under the current mapping.

The edit DP of alignment.py for a single (span, stem) pair in max form, with a back-trace.
Each step says which known unit produced which lost letters (none = deleted, two = insertion).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.corpus import split_units
from engine.model.phonology import ipa_units
from engine.results import MappingSnapshot


@dataclass(frozen=True)
class AlignedPair:
    known: str            # an IPA unit of the stem
    lost: str             # the letters it became: "" (deleted), one letter, or two (insertion)
    log_prob: float       # log P of this step (insertion includes -gamma)


def best_alignment(mapping: MappingSnapshot, span: str, stem_ipa: str, gamma: float = 3.5,
                   band: int = 2) -> tuple[list[AlignedPair], float]:
    """The most probable monotone alignment of ``span`` to ``stem_ipa`` and its log-probability.

    Returns ([], -inf) when no alignment exists inside the band or a symbol is not in the mapping.
    """
    units = ipa_units(stem_ipa)
    letters = list(split_units(span))
    lost_index = {c: i for i, c in enumerate(mapping.lost)}
    known_index = {u: i for i, u in enumerate(mapping.known)}
    if any(u not in known_index for u in units) or any(c not in lost_index for c in letters):
        return [], -math.inf
    logp = [[math.log(max(float(p), 1e-30)) for p in row] for row in mapping.probs]
    path, total = best_path([logp[known_index[u]] for u in units], [lost_index[c] for c in letters], gamma, band)
    steps, j = [], 0
    for unit, (k, lp) in zip(units, path):
        steps.append(AlignedPair(unit, "".join(letters[j: j + k]), lp))
        j += k
    return steps, total


def best_path(rows: list[list[float]], cols: list[int], gamma: float, band: int) -> tuple[list[tuple[int, float]], float]:
    """The edit DP's best single path: ``rows[i]`` is the log-probability row of the stem's i-th unit
    (column 0: deleted), ``cols[j]`` the column of the span's j-th position. Returns, for each stem unit
    in order, (how many positions it produced: 0 deleted, 1, or 2 an insertion paying ``gamma``, the
    step's log-probability), and the total; ([], -inf) when no path exists inside the band."""
    m, n = len(rows), len(cols)
    NEG = -math.inf
    best = [[NEG] * (n + 1) for _ in range(m + 1)]
    back: list[list[tuple[int, float] | None]] = [[None] * (n + 1) for _ in range(m + 1)]
    best[0][0] = 0.0
    for i in range(1, m + 1):
        row = rows[i - 1]
        for j in range(max(0, i - band), min(n, i + band) + 1):
            options = [(0, best[i - 1][j] + row[0])]
            if j >= 1:
                options.append((1, best[i - 1][j - 1] + row[cols[j - 1]]))
            if j >= 2:
                options.append((2, best[i - 1][j - 2] + row[cols[j - 2]] + row[cols[j - 1]] - gamma))
            k, v = max(options, key=lambda t: t[1])
            if v > NEG:
                best[i][j] = v
                back[i][j] = (k, v - best[i - 1][j - k])
    if abs(m - n) > band or best[m][n] == NEG:
        return [], NEG
    path: list[tuple[int, float]] = []
    i, j = m, n
    while i > 0:
        k, lp = back[i][j]  # type: ignore[misc]
        path.append((k, lp))
        i, j = i - 1, j - k
    return path[::-1], best[m][n]


def run_alignment_settings(run) -> tuple[float, int]:
    """The insertion cost and band a stored run ended with (a ``RunRecord``): what an explanation of
    its matches must align with (the app's hover, the exports' alignments). A run whose settings
    cannot be read gets the defaults."""
    from engine.config import Config

    try:
        cfg = run.settings()
        return cfg.insertion_cost(run.last_step or cfg.steps), cfg.band
    except Exception:  # noqa: BLE001 - an old or odd record: the defaults, as the app always did
        return Config().insertion_cost_end, Config().band
