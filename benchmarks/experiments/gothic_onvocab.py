"""The Gothic–ON base cells of issue 13 item 5 on a given data folder (old or rebuilt vocabulary).

    python -m benchmarks.experiments.gothic_onvocab --data build/gothic --results benchmarks/results/gothic-onvocab.csv

Runs, one after another in this process, the grid's cells ON WR 100 % base γ 10 → 3.5 seeds 0
and 1 and ON WR 0 % base γ 0 → 3.5 seed 0 (``--cells`` picks some by index) with
``benchmarks.gothic.run_grid`` on the datasets ``DATA/non-wr100`` and ``DATA/non-wr0``, appending
one row each to ``--results`` (rows already there are skipped). docs/benchmarks.md has the numbers.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from benchmarks import gothic

CELLS = (gothic.Cell("on", "1", "base", "10-3.5", 0), gothic.Cell("on", "1", "base", "10-3.5", 1),
         gothic.Cell("on", "0", "base", "0-3.5", 0))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.experiments.gothic_onvocab", description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, required=True, help="folder with non-wr0/ and non-wr100/ (the builder's output)")
    p.add_argument("--results", type=Path, required=True, help="CSV to append rows to (never the grid's gothic.csv)")
    p.add_argument("--cells", default="0,1,2", help="indices into the three cells (default all)")
    args = p.parse_args(argv)
    if args.results.resolve() == gothic.RESULTS.resolve():
        print("error: write these rows to a file of their own, not the grid's gothic.csv", file=sys.stderr)
        return 2
    try:
        cells = [CELLS[int(i)] for i in args.cells.split(",")]
    except (ValueError, IndexError):
        print(f"error: --cells takes indices 0-{len(CELLS) - 1} separated by commas, got {args.cells!r}",
              file=sys.stderr)
        return 2
    for c in cells:  # before any run: a missing dataset would end a later cell in a traceback
        error = gothic.missing_dataset(c.known, c.wr, args.data)
        if error:
            print(error, file=sys.stderr)
            return 2
    gothic.run_grid(cells, results=args.results, workers=0, cache=args.data, build=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
