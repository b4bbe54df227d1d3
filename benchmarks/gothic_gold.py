"""How much of a Gothic dataset's gold the model can reach at all, measured on the built files.

    python -m benchmarks.gothic_gold --build /tmp/gothic-gold                  # build PG/ON/OE (WR 0), measure
    python -m benchmarks.gothic_gold --build /tmp/gothic-gold0 --keep-derived  # the builder before the sibling rule
    python -m benchmarks.gothic_gold DIR [DIR ...]                             # measure built datasets

A gold row is *reachable* when some span that starts at its ``start``, ends by its ``word_end``
and is ``min_span``–``max_span`` letters long is within the edit DP's band of one of its gold
stems (|span letters − stem IPA units| ≤ ``band``): otherwise no training can score it, and it
caps P@K. Unreachable rows are split into words too short from the stem start (fewer than
``min_span`` letters) and length gaps (long enough, but every gold stem is too long or short).
The defaults are the engine's (engine/config.py). Also printed: the stems, the gold rows, and the
share of gold rows whose stem set is one of the 20 commonest (how concentrated the gold is).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from engine.config import Config
from engine.io.tables import read_gold, read_known, read_lost
from engine.model.phonology import ipa_units

TOP = 20


@dataclass(frozen=True)
class GoldReach:
    name: str
    stems: int
    gold_rows: int
    top_share: float  # share of gold rows whose stem set is one of the TOP commonest
    unreachable_short: int  # word from the stem start shorter than min_span
    unreachable_length: int  # long enough, but no gold stem within the band of a span length
    top_stem_sets: tuple[tuple[str, int], ...]

    @property
    def unreachable(self) -> int:
        return self.unreachable_short + self.unreachable_length

    @property
    def unreachable_share(self) -> float:
        return self.unreachable / self.gold_rows if self.gold_rows else 0.0


def reachable(letters: int, units: Sequence[int], *, min_span: int, max_span: int, band: int) -> bool:
    """Whether a span of ``min_span``..min(``max_span``, ``letters``) letters is within ``band`` of
    one of the stem lengths ``units``."""
    return any(abs(n - u) <= band for n in range(min_span, min(max_span, letters) + 1) for u in units)


def measure(folder: str | Path, *, min_span: int | None = None, max_span: int | None = None,
            band: int | None = None, name: str | None = None) -> GoldReach:
    """Measure one dataset folder (lost.csv, known.csv, gold.csv)."""
    folder = Path(folder)
    cfg = Config()
    min_span = cfg.min_span if min_span is None else min_span
    max_span = cfg.max_span if max_span is None else max_span
    band = cfg.band if band is None else band
    inscriptions = read_lost(folder / "lost.csv")
    stems = read_known(folder / "known.csv")
    gold = read_gold(folder / "gold.csv", inscriptions=inscriptions)
    units = {s.form: len(ipa_units(s.ipa)) for s in stems}
    sets = Counter("|".join(g.known) for g in gold)
    top = sets.most_common(TOP)
    short = gap = 0
    for g in gold:
        letters = g.word_end - g.start
        if letters < min_span:
            short += 1
        elif not reachable(letters, [units[k] for k in g.known if k in units], min_span=min_span,
                           max_span=max_span, band=band):
            gap += 1
    return GoldReach(name or folder.name, len(stems), len(gold),
                     sum(n for _, n in top) / len(gold) if gold else 0.0, short, gap, tuple(top[:5]))


def table(rows: Sequence[GoldReach]) -> str:
    lines = ["| dataset | stems | gold rows | rows on the 20 commonest stem sets | unreachable (short word / length gap) "
             "| commonest stem sets |", "|---|---|---|---|---|---|"]
    for r in rows:
        common = ", ".join(f"`{k}` {n}" for k, n in r.top_stem_sets[:3])
        lines.append(f"| {r.name} | {r.stems} | {r.gold_rows:,} | {r.top_share:.1%} | {r.unreachable:,} = "
                     f"{r.unreachable_share:.1%} ({r.unreachable_short:,} / {r.unreachable_length:,}) | {common} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.gothic_gold", description=__doc__.split("\n\n")[0])
    p.add_argument("folders", nargs="*", type=Path, help="built dataset folders (lost.csv, known.csv, gold.csv)")
    p.add_argument("--build", type=Path, metavar="OUT",
                   help="first build Gothic-PG/ON/OE at WR 0, seed 0 into OUT/<known>-wr0 and measure those")
    p.add_argument("--keep-derived", action="store_true", help="with --build: the builder's --keep-derived")
    p.add_argument("--data", type=Path, help="with --build: the shared corpora folder (the builder's --data)")
    args = p.parse_args(argv)
    folders = list(args.folders)
    if args.build:
        from engine.datasets.gothic import main as build_main
        cmd = ["--known", "pgm,non,ang", "--wr", "0", "--seed", "0", "--out", str(args.build), "--quiet"]
        cmd += ["--keep-derived"] if args.keep_derived else []
        cmd += ["--data", str(args.data)] if args.data else []
        if build_main(cmd) != 0:
            return 2
        folders += [args.build / f"{k}-wr0" for k in ("pgm", "non", "ang")]
    if not folders:
        p.error("give dataset folders or --build OUT")
    print(table([measure(f) for f in folders]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
