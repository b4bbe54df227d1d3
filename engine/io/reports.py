"""The file-based match report of ``decipher run``: one row per decoded span and alternative.

:func:`write_matches_csv` writes it as a report for people: through the atomic writer, with the
formula guard on unless ``guard_formulas=False`` (a run's own ``matches.csv``, which the engine
reads back, is written by ``engine/runs/outputs.py`` unguarded)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from engine.results import Match
from engine.io.atomic import write_csv

MATCH_COLUMNS = ("inscription_id", "start", "end", "span", "rank", "stem_form", "stem_ipa", "gloss",
                 "score", "log_prob", "confidence")


def match_rows(matches: Iterable[Match]):
    for m in matches:
        for a in m.alternatives:
            yield (m.inscription_id, m.start, m.end, m.span, a.rank, a.form, a.ipa, a.gloss,
                   f"{a.score:.6f}", f"{a.log_prob:.6f}", f"{m.confidence:.6f}")


def write_matches_csv(path: str | Path, matches: Iterable[Match], *, guard_formulas: bool = True, **kw) -> int:
    """Write the report; returns how many cells the formula guard changed. The numbers (score,
    log_prob, confidence; six decimals) go to the writer as numbers, so the guard never touches a
    negative score."""
    rows = (row[:8] + tuple(float(v) for v in row[8:]) for row in match_rows(matches))
    return write_csv(path, MATCH_COLUMNS, rows, guard_formulas=guard_formulas, **kw)
