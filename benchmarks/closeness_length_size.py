"""Does the closeness score favour vocabularies of short stems? (issue 26, item 5)

A null vocabulary keeps its candidate's stem lengths and list size and nothing else (docs/closeness.md,
"The null model"), so its score is what those alone earn. Across the candidates of one comparison (one
lost text, one list size, the same runs) this reads each candidate's null mean against the mean length
of its stems, from the rows of benchmarks/results/closeness.csv and the candidates' lists:

    python -m benchmarks.closeness_length_size observed [--results benchmarks/results/closeness.csv]

writes benchmarks/results/closeness-length-size-observed.csv (one row per comparison and candidate) and
prints, per comparison, the Pearson and Spearman correlations of the null mean with the mean stem length.

The controlled measurement trains on the Ugaritic lost text (the paper protocol's) with invented
vocabularies only: phonotactic nulls of Latin's most frequent Genesis stems, (a) of 100, 300 and 600
stems of every length, (b) of 300 stems of 3–4 IPA units against 300 of 5–7, each with seeds 0 and 1 and
the Ugaritic preset (3,000 steps). Resumable (a finished run is read, not retrained):

    nice python -m benchmarks.closeness_length_size controlled      # -> closeness-length-size-controlled.csv
The lists: for protocols ``paper`` and ``fair`` the files benchmarks.closeness_paper builds; for the
runs made before the protocols, the lists rebuilt as they were then (each language's 600 stems, the
Hebrew a seeded sample of the small cognate file's, then matched to the smallest as the comparison did).
Needs ../shared/data. No training.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from benchmarks.closeness_paper import BUILD, COMPARISONS, DATA, RESULTS, SMALL_COG, candidate_path, one_line_errors

OUT = Path(__file__).resolve().parent / "results" / "closeness-length-size-observed.csv"
CONTROLLED = Path(__file__).resolve().parent / "results" / "closeness-length-size-controlled.csv"
RUNS = Path(__file__).resolve().parent.parent / "runs" / "closeness-length-size"
#: (name, stems, shortest, longest IPA units) of the controlled vocabularies
ARMS = (("all-100", 100, 3, 10), ("all-300", 300, 3, 10), ("all-600", 600, 3, 10), ("short-300", 300, 3, 4),
        ("long-300", 300, 5, 7))
COLUMNS = ("protocol", "lost", "null_mode", "known", "stems", "mean_units", "n_seeds", "score_mean", "n_null_runs",
           "null_mean", "margin")


def lists_before(lost: str, names: list[str], data: Path = DATA) -> dict[str, list]:
    """The vocabularies the comparisons made before the protocols trained on: every candidate's list of
    600 stems (`prepare` of then), matched to the smallest as `decipher closeness` does (seed 0)."""
    from engine.closeness.vocab_sizes import match_vocabularies
    from engine.corpus import Vocabulary
    from engine.datasets.candidates import build

    min_units = COMPARISONS[lost][2]
    vocabs = {}
    for n in names:
        b = build(n, stems=600, min_units=min_units, data=data,
                  source=data / SMALL_COG if n == "hebrew" else None)
        vocabs[n] = Vocabulary(n, tuple(b.stems))
    matching = match_vocabularies(vocabs, min_units=min_units, max_units=10, seed=0)
    return {n: list(v.stems) for n, v in matching.vocabularies.items()}


def lists_built(lost: str, protocol: str, names: list[str], build: Path = BUILD) -> dict[str, list]:
    from engine.io.tables import read_known

    return {n: read_known(candidate_path(lost, n, protocol, build)) for n in names}


def spearman(xs: list[float], ys: list[float]) -> float:
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2
            i = j + 1
        return r
    return statistics.correlation(ranks(xs), ranks(ys))


def observed(results: Path = RESULTS, data: Path = DATA, build: Path = BUILD) -> list[dict]:
    from engine.model.phonology import ipa_units

    with open(results, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r.get("protocol", ""), r["lost"], r.get("null_mode", ""), r["steps"])].append(r)
    out = []
    for (protocol, lost, mode, steps), rs in sorted(groups.items()):
        names = list(dict.fromkeys(r["known"] for r in rs))
        real = {n: [float(r["score"]) for r in rs if r["known"] == n and r["null"] == ""] for n in names}
        null = {n: [float(r["score"]) for r in rs if r["known"] == n and r["null"] != ""] for n in names}
        if sum(bool(v) for v in null.values()) < 3:
            continue  # a correlation needs three candidates with nulls
        lists = lists_before(lost, names, data) if protocol == "before" else lists_built(lost, protocol, names, build)
        for n in names:
            if not null[n] or not real[n]:
                continue
            units = [len(ipa_units(s.ipa)) for s in lists[n]]
            out.append({"protocol": protocol, "lost": lost, "null_mode": mode, "known": n, "stems": len(units),
                        "mean_units": round(statistics.fmean(units), 3), "n_seeds": len(real[n]),
                        "score_mean": round(statistics.fmean(real[n]), 6), "n_null_runs": len(null[n]),
                        "null_mean": round(statistics.fmean(null[n]), 6),
                        "margin": round(statistics.fmean(real[n]) - statistics.fmean(null[n]), 6)})
    return out


def controlled(seeds=(0, 1), steps: int | None = None, data: Path = DATA, build: Path = BUILD, runs: Path = RUNS,
               out: Path = CONTROLLED) -> list[dict]:
    """Train the controlled arms (module text) and write one row per run to ``out``."""
    import os

    from engine.closeness.curve import closeness_score
    from engine.closeness.nulls import null_vocabulary
    from engine.closeness.runs import read_run
    from engine.corpus import Vocabulary
    from engine.datasets.candidates import build as build_candidate
    from engine.io.atomic import write_csv
    from engine.io.tables import write_known
    from engine.model.phonology import ipa_units

    from benchmarks.closeness_paper import prepare_lost

    prepare_lost(build, data)
    latin = build_candidate("latin", stems=10 ** 6, min_units=3, data=data).stems
    rows = []
    for name, size, lo, hi in ARMS:
        kept = [s for s in latin if lo <= len(ipa_units(s.ipa)) <= hi][:size]
        null = null_vocabulary(Vocabulary("latin", tuple(kept)), 0, 0, mode="phonotactic")
        folder = runs / name
        folder.mkdir(parents=True, exist_ok=True)
        known = folder / "known.csv"
        write_known(known, null.stems)
        units = [len(ipa_units(s.ipa)) for s in null.stems]
        for seed in seeds:
            run_dir = folder / f"seed-{seed}"
            if not (run_dir / "metrics.json").exists():
                argv = [sys.executable, "-m", "engine", "run", "--lost", str(build / "uga" / "lost.csv"),
                        "--known", str(known), "--preset", "ugaritic", "--set", "eval_interval=0",
                        "--seed", str(seed), "--out", str(run_dir)] + (["--steps", str(steps)] if steps else [])
                env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
                print("$ " + " ".join(argv[1:]), file=sys.stderr)
                subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL)
            r = read_run(run_dir)
            rows.append({"arm": name, "stems": len(units), "mean_units": round(statistics.fmean(units), 3),
                         "seed": seed, "score": round(closeness_score(r.curve), 6), "steps": r.steps,
                         "wall_s": round(r.wall_s, 1)})
            write_csv(out, list(rows[0]), ([d[c] for c in rows[0]] for d in rows))
    return rows


def _main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.closeness_length_size", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    ob = sub.add_parser("observed", help="null means against mean stem length, from closeness.csv (no training)")
    ob.add_argument("--results", type=Path, default=RESULTS)
    ob.add_argument("--data", type=Path, default=DATA)
    ob.add_argument("--out", type=Path, default=OUT)
    co = sub.add_parser("controlled", help="train invented vocabularies of set sizes and stem lengths (resumable)")
    co.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    co.add_argument("--steps", type=int, help="steps per run (default: the preset's)")
    co.add_argument("--data", type=Path, default=DATA)
    co.add_argument("--out", type=Path, default=CONTROLLED)
    args = p.parse_args(argv)
    if args.what == "controlled":
        for d in controlled(tuple(args.seeds), args.steps, args.data, out=args.out):
            print(",".join(map(str, d.values())))
        return 0
    if not args.results.is_file():
        print(f"error: {args.results}: no such file", file=sys.stderr)
        return 2
    table = observed(args.results, args.data)
    from engine.io.atomic import write_csv

    write_csv(args.out, COLUMNS, ([d[c] for c in COLUMNS] for d in table))
    by: dict[tuple, list[dict]] = defaultdict(list)
    for d in table:
        by[(d["protocol"], d["lost"], d["null_mode"])].append(d)
    for (protocol, lost, mode), ds in by.items():
        xs, ys = [d["mean_units"] for d in ds], [d["null_mean"] for d in ds]
        shortest, longest = min(ds, key=lambda d: d["mean_units"]), max(ds, key=lambda d: d["mean_units"])
        print(f"{protocol} {lost} ({mode} nulls, {len(ds)} candidates of {ds[0]['stems']} stems): null mean against "
              f"mean stem length: Pearson {statistics.correlation(xs, ys):+.2f}, Spearman {spearman(xs, ys):+.2f}; "
              f"shortest {shortest['known']} ({shortest['mean_units']:.2f} units) null {shortest['null_mean']:.3f}, "
              f"longest {longest['known']} ({longest['mean_units']:.2f}) null {longest['null_mean']:.3f}")
    print(f"-> {args.out}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command; a missing data file or a failed controlled run is one line (exit 2)."""
    try:
        return one_line_errors(_main, argv)
    except subprocess.CalledProcessError as e:  # a controlled run failed: its own error is above
        print(f"error: a controlled run failed (exit {e.returncode}): {' '.join(map(str, e.cmd[1:]))}",
              file=sys.stderr)
        return 2

if __name__ == "__main__":
    sys.exit(main())
