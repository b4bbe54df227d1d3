"""Seed consensus: which decoded spans several seeds agree on, and the seed chosen without gold
(the one whose readings the other seeds corroborate most; docs/seeds.md says why).

A *reading* is one decoded span with its top stem. Two seeds agree on a reading when they decode
the same span (inscription, start, end) with the same top stem (the same form).
"""

from __future__ import annotations

import csv
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from engine.results import Match

CONSENSUS_COLUMNS = ("inscription", "start", "end", "span", "stem", "ipa", "agreement", "k/n", "seeds")


@dataclass(frozen=True)
class Reading:
    """A decoded span and its top stem."""

    inscription: str
    start: int
    end: int
    span: str
    stem: str
    ipa: str = ""

    @property
    def key(self) -> tuple[str, int, int, str]:
        return (self.inscription, self.start, self.end, self.stem)


@dataclass(frozen=True)
class ConsensusRow:
    """One reading and the seeds that decode it (``agreement`` = how many of ``n``)."""

    reading: Reading
    seeds: tuple[int, ...]
    n: int

    @property
    def agreement(self) -> int:
        return len(self.seeds)

    @property
    def k_of_n(self) -> str:
        return f"{self.agreement}/{self.n}"


def readings_of(matches: Iterable[Match]) -> tuple[Reading, ...]:
    """The top-stem readings of a run's decoded matches."""
    return tuple(Reading(m.inscription_id, m.start, m.end, m.span, m.best.form, m.best.ipa) for m in matches)


def read_readings(path: str | Path) -> tuple[Reading, ...]:
    """The rank-1 rows of a run's matches.csv (docs/formats.md)."""
    from engine.io.atomic import unguard_row

    out = []
    with open(path, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            row = unguard_row(row)   # matches.csv is written with the one formula guard
            if str(row.get("rank", "")).strip() == "1":
                out.append(Reading(row["inscription_id"], int(row["start"]), int(row["end"]), row["span"],
                                   row["stem_form"], row.get("stem_ipa", "")))
    return tuple(out)


def consensus(readings: Mapping[int, Sequence[Reading]]) -> list[ConsensusRow]:
    """Every reading of any seed with the seeds that share it, in inscription order (as first
    seen), then by start, end, and most agreement first."""
    n = len(readings)
    seeds_of: dict[tuple, list[int]] = {}
    first: dict[tuple, Reading] = {}
    order: dict[str, int] = {}
    for seed, rs in readings.items():
        for r in rs:
            order.setdefault(r.inscription, len(order))
            first.setdefault(r.key, r)
            holders = seeds_of.setdefault(r.key, [])
            if seed not in holders:
                holders.append(seed)
    rows = [ConsensusRow(first[k], tuple(sorted(s)), n) for k, s in seeds_of.items()]
    rows.sort(key=lambda c: (order[c.reading.inscription], c.reading.start, c.reading.end, -c.agreement,
                             c.reading.stem))
    return rows


def consensus_table(rows: Sequence[ConsensusRow]) -> list[tuple]:
    """Rows for consensus.csv (:data:`CONSENSUS_COLUMNS`)."""
    return [(c.reading.inscription, c.reading.start, c.reading.end, c.reading.span, c.reading.stem,
             c.reading.ipa, c.agreement, c.k_of_n, " ".join(map(str, c.seeds))) for c in rows]


def support(readings: Mapping[int, Sequence[Reading]], total_letters: int) -> dict[int, float]:
    """Each seed's *corroborated coverage*: the share of the corpus's letters that the seed decodes
    AND the other seeds decode the same way, each reading weighted by its span's length times the
    share of the other seeds that agree. One seed alone: its plain coverage."""
    n = len(readings)
    if total_letters <= 0:
        return {s: 0.0 for s in readings}
    count: dict[tuple, int] = {}
    for rs in readings.values():
        for key in {r.key for r in rs}:
            count[key] = count.get(key, 0) + 1
    out = {}
    for seed, rs in readings.items():
        seen = {r.key: r for r in rs}
        if n == 1:
            out[seed] = sum(r.end - r.start for r in seen.values()) / total_letters
        else:
            out[seed] = sum((r.end - r.start) * (count[k] - 1) / (n - 1) for k, r in seen.items()) / total_letters
    return out


@dataclass(frozen=True)
class SeedChoice:
    seed: int
    reason: str


def choose_seed(supports: Mapping[int, float], objectives: Mapping[int, float | None] | None = None,
                *, tie: float = 1e-3) -> SeedChoice:
    """The gold-free choice: the most corroborated seed; within ``tie`` of it, the lowest final
    objective (the loss the training minimises, over the whole corpus), then the lowest seed."""
    if not supports:
        raise ValueError("no seed finished, so none can be chosen")
    objectives = objectives or {}
    best = max(supports.values())
    close = [s for s in supports if supports[s] >= best - tie]

    def objective(s: int) -> float:
        v = objectives.get(s)
        return v if v is not None and math.isfinite(v) else math.inf

    seed = min(close, key=lambda s: (objective(s), s))
    if len(close) == 1:
        reason = f"most corroborated readings ({supports[seed]:.3f} of the letters)"
    else:
        reason = (f"{len(close)} seeds equally corroborated ({best:.3f}); lowest final objective "
                  f"({objective(seed):.4f})" if math.isfinite(objective(seed)) else "lowest seed")
    return SeedChoice(seed, reason)


def spread(values: Sequence[float]) -> dict[str, float]:
    """Mean, standard deviation (sample), min and max."""
    vals = [float(v) for v in values]
    if not vals:
        return {}
    return {"mean": statistics.fmean(vals), "std": statistics.stdev(vals) if len(vals) > 1 else 0.0,
            "min": min(vals), "max": max(vals)}


def corroboration(readings: Mapping[int, Sequence[Reading]], chosen: int) -> tuple[int, bool]:
    """(how many other seeds corroborate ``chosen``, whether it disagrees with most others).

    Another seed *corroborates* the chosen seed when it decodes at least half of the chosen seed's
    readings the same way (same span, same top stem). The chosen seed *disagrees with most others*
    when fewer than half of the other seeds corroborate it (so with 4 others, 0 or 1 corroborating
    seeds; with 1 other, none). A chosen seed without readings is corroborated by none."""
    mine = {r.key for r in readings.get(chosen, ())}
    others = [s for s in readings if s != chosen]
    agree = [s for s in others if mine and len(mine & {r.key for r in readings[s]}) >= len(mine) / 2]
    return len(agree), len(agree) < len(others) / 2


def summary(results: Mapping[int, Mapping[str, float | None]], readings: Mapping[int, Sequence[Reading]],
            total_letters: int) -> dict:
    """metrics.json of a multi-seed run. ``results[seed]`` holds that seed's final metrics (``coverage``,
    ``objective``, and ``p_at_1``/``p_at_10`` when gold was given). The choice never reads gold;
    the ``oracle_*`` keys (best P@1 over seeds, the paper's protocol) are for comparison only."""
    seeds = sorted(results)
    supports = support({s: readings.get(s, ()) for s in seeds}, total_letters)
    choice = choose_seed(supports, {s: results[s].get("objective") for s in seeds})
    out: dict = {"seeds": seeds, "chosen_seed": choice.seed, "chosen_because": choice.reason,
                 "criterion": "corroborated coverage, then final objective (docs/seeds.md)",
                 "support": {str(s): round(supports[s], 6) for s in seeds},
                 "coverage": {str(s): results[s].get("coverage") for s in seeds},
                 "objective": {str(s): results[s].get("objective") for s in seeds}}
    if len(seeds) > 1:
        agree, disagrees = corroboration({s: readings.get(s, ()) for s in seeds}, choice.seed)
        out["seeds_agreeing_with_chosen"] = agree
        out["chosen_disagrees_with_most"] = disagrees
    has_gold = all(results[s].get("p_at_1") is not None for s in seeds)
    if has_gold:
        chosen = results[choice.seed]
        out["p_at_1"] = chosen.get("p_at_1")
        out["p_at_10"] = chosen.get("p_at_10")
        oracle = max(seeds, key=lambda s: (results[s]["p_at_1"], results[s].get("p_at_10") or 0.0, -s))
        out.update({"oracle_seed": oracle, "oracle_p_at_1": results[oracle]["p_at_1"],
                    "oracle_p_at_10": results[oracle].get("p_at_10")})
    for name in ("p_at_1", "p_at_10", "coverage", "objective"):
        vals = [results[s].get(name) for s in seeds]
        if vals and all(v is not None for v in vals):
            out[f"{name}_over_seeds"] = spread(vals)
    return out
