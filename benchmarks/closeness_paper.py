"""The paper's three closeness comparisons (Luo et al. 2021, Figure 4 b–d) with `decipher closeness`:
Ugaritic (small) vs Hebrew, Arabic, Latin, Spanish, Hungarian, Turkish, Basque; Gothic (WR 0) vs
Proto-Germanic, Old Norse, Old English and the six others; Iberian (Hesperia) vs Basque, Latin, Spanish,
Hungarian, Turkish, Arabic. Every finished run goes into benchmarks/results/closeness.csv.

    python -m benchmarks.closeness_paper prepare                 # lost texts and candidate vocabularies
    python -m benchmarks.closeness_paper commands                # the three commands, as run
    nice python -m benchmarks.closeness_paper run ugaritic --workers 2    # resumable: run it again to go on
    python -m benchmarks.closeness_paper run gothic --seeds 0 1 2 --null 3 --workers 8 --ray local

Files go under build/closeness/ (git-ignored; built from ../shared/data, never committed) and the
comparisons' folders under runs/closeness-<lost>/ (docs/benchmarks.md, "Closeness").
"""

from __future__ import annotations

import argparse
import csv
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "closeness"
RUNS = ROOT / "runs"
RESULTS = ROOT / "benchmarks" / "results" / "closeness.csv"
DATA = ROOT.parent / "shared" / "data"
SMALL_COG = "ugaritic_hebrew/uga-heb.small.no_spe.cog"

#: lost text -> (its LOST.csv, the candidates in the paper's order, the preset, the shortest stem in IPA units)
COMPARISONS = {
    "ugaritic": ("uga/lost.csv", ("hebrew", "arabic", "latin", "spanish", "hungarian", "turkish", "basque"),
                 "ugaritic", 3),
    "gothic": ("gothic-wr0/lost.csv", ("proto-germanic", "old-norse", "old-english", "latin", "spanish", "arabic",
                                       "hungarian", "turkish", "basque"), "paper", 4),
    "iberian": ("iberian/lost.csv", ("basque", "latin", "spanish", "hungarian", "turkish", "arabic"), "iberian", 3),
}
#: The authors' partial oracle for Iberian (a b k l m n r s t at their Latin values), which the paper's
#: Iberian closeness runs had switched on (docs/datasets.md, "Iberian"); given to every Iberian run.
IBERIAN_PRIOR = ROOT / "resources" / "priors" / "iberian-partial.csv"
#: Stems asked of every candidate builder (the paper: ~600); the comparison then matches all to the smallest.
STEMS = 600


def _call(main, argv: list[str]) -> None:
    print("$ " + " ".join(shlex.quote(a) for a in argv), file=sys.stderr)
    code = main(argv)
    if code:
        raise SystemExit(code)


def prepare(build: Path = BUILD, data: Path = DATA) -> None:
    """Build the three lost texts and every candidate vocabulary (at 3 and at 4 IPA units at least)."""
    from engine.cli.main import main as decipher
    from engine.datasets.candidates import main as candidates
    from engine.datasets.gothic import main as gothic
    from engine.io.hesperia import read_hesperia
    from engine.io.tables import write_lost

    build.mkdir(parents=True, exist_ok=True)
    _call(decipher, ["import-cog", str(data / SMALL_COG), "--out", str(build / "uga")])
    _call(gothic, ["--known", "pgm", "--wr", "0", "--seed", "0", "--data", str(data), "--out",
                   str(build / "gothic-wr0"), "--quiet"])
    try:  # the authors' cleaned Hesperia text (`decipher dataset iberian`), where this checkout has it
        from engine.datasets.iberian import main as iberian
    except ImportError:
        iberian = None
    if iberian is not None:
        _call(iberian, ["--data", str(data), "--out", str(build / "iberian")])
    else:  # our own cleaning of the Hesperia export (docs/iberian-cleaning.md)
        imp = read_hesperia(data / "iberian" / "hesperia_epigrafy.csv")
        # records whose text is all lacunae clean to nothing: a LOST.csv has no empty inscription
        kept = [i for i in imp.inscriptions if i.text.strip()]
        (build / "iberian").mkdir(exist_ok=True)
        write_lost(build / "iberian" / "lost.csv", kept)
        print(f"iberian: {len(kept)} of {len(imp.inscriptions)} Hesperia IBERICO records have text "
              f"-> {build / 'iberian' / 'lost.csv'}", file=sys.stderr)
    for lost, (_, names, _, min_units) in COMPARISONS.items():
        for name in names:
            out = candidate_path(lost, name, build)
            if out.exists():
                continue
            argv = ["--language", name, "--stems", str(STEMS), "--min-units", str(min_units), "--data", str(data),
                    "--out", str(out)]
            if name == "hebrew":  # the Hebrew of the small set (a seeded sample: the list has no frequencies)
                argv += ["--source", str(data / SMALL_COG)]
            _call(candidates, argv)


def candidate_path(lost: str, name: str, build: Path = BUILD) -> Path:
    return build / f"cand{COMPARISONS[lost][3]}" / f"{name}.csv"


def command(lost: str, *, seeds=(0, 1, 2), n_null: int = 3, workers: int | None = None, ray: str | None = None,
            steps: int | None = None, build: Path = BUILD, runs: Path = RUNS, results: Path = RESULTS) -> list[str]:
    """The `decipher closeness` arguments of one of the three comparisons."""
    path, names, preset, _ = COMPARISONS[lost]
    argv = ["closeness", "--lost", str(build / path),
            "--known", *[f"{n}={candidate_path(lost, n, build)}" for n in names],
            "--preset", preset, "--set", "eval_interval=0", "--seeds", *map(str, seeds), "--null", str(n_null)]
    if lost == "iberian" and IBERIAN_PRIOR.exists():
        argv += ["--prior", str(IBERIAN_PRIOR)]
    if steps is not None:
        argv += ["--steps", str(steps)]
    if workers is not None:
        argv += ["--workers", str(workers)]
    if ray is not None:
        argv += ["--ray", ray]
    return argv + ["--append-results", str(results), "--lost-name", lost, "--out", str(runs / f"closeness-{lost}")]


def summary_rows(rows: list[dict], lost: str, steps: int | None = None) -> list[dict]:
    """The summary of one comparison from the rows of closeness.csv (no run folders needed): per
    candidate its mean score over seeds, its null runs' mean and own sd, the sd pooled over all
    candidates' nulls, z by the engine's rule (the larger of the two sds) and the verdict; best
    first. ``steps``: only rows of that many steps (default: the most common)."""
    import statistics
    from collections import Counter

    from engine.closeness.comparison import empirical_p, pooled_sd, verdict, z_score, z_sd

    mine = [r for r in rows if r["lost"] == lost]
    if steps is None and mine:
        steps = int(Counter(r["steps"] for r in mine).most_common(1)[0][0])
    mine = [r for r in mine if int(r["steps"]) == steps]
    names = list(dict.fromkeys(r["known"] for r in mine))
    real = {n: [float(r["score"]) for r in mine if r["known"] == n and r["null"] == ""] for n in names}
    null = {n: [float(r["score"]) for r in mine if r["known"] == n and r["null"] != ""] for n in names}
    pooled = pooled_sd(null.values())
    out = []
    for n in names:
        if not real[n]:
            continue
        m = statistics.fmean(real[n])
        n_mean = statistics.fmean(null[n]) if null[n] else float("nan")
        own = statistics.stdev(null[n]) if len(null[n]) > 1 else float("nan")
        sd = z_sd(own, pooled)
        z = z_score(m, n_mean, sd) if sd == sd else float("nan")
        out.append({"known": n, "n_seeds": len(real[n]), "score_mean": m,
                    "score_sd": statistics.stdev(real[n]) if len(real[n]) > 1 else 0.0,
                    "n_null_runs": len(null[n]), "null_mean": n_mean, "null_sd_own": own, "null_sd_pooled": pooled,
                    "z": z, "p": empirical_p(m, null[n]), "verdict": verdict(z, len(null[n])), "steps": steps})
    out.sort(key=lambda d: -d["score_mean"])
    return out


def curve_rows(path: Path, at: float = 0.7, above: float = 0.4) -> list[dict]:
    """Per run of a comparison folder's curves.csv: the coverage at confidence ``at`` (engine's
    coverage_at) and the area of the curve over confidence >= ``above``, as the sum of the coverage
    at the curve's points from ``above`` on times the grid step (0.025 on the 41-point curve)."""
    from collections import defaultdict

    from engine.closeness.curve import coverage_at

    curves: dict[tuple, list[tuple[float, float]]] = defaultdict(list)
    with open(path, encoding="utf-8", newline="") as f:
        for line, r in enumerate(csv.DictReader(f), start=2):
            try:
                curves[(r["known"], r["seed"], r["null"])].append((float(r["confidence"]), float(r["coverage"])))
            except (KeyError, TypeError, ValueError):
                raise SystemExit(f"error: {path}, line {line}: not a curves.csv row "
                                 "(known,seed,null,confidence,coverage)") from None
    out = []
    for (known, seed, null), pts in curves.items():
        pts.sort()
        step = min((b[0] - a[0] for a, b in zip(pts, pts[1:]) if b[0] > a[0]), default=0.0)
        out.append({"known": known, "seed": seed, "null": null, f"coverage_at_{at:g}": round(coverage_at(pts, at), 4),
                    f"area_from_{above:g}": round(sum(v for c, v in pts if c >= above - 1e-9) * step, 4)})
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.closeness_paper", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    pr = sub.add_parser("prepare", help="build the lost texts and candidate vocabularies under build/closeness")
    pr.add_argument("--data", type=Path, default=DATA)
    sm = sub.add_parser("summary", help="the summary of a comparison from closeness.csv (no training)")
    sm.add_argument("lost", choices=sorted(COMPARISONS))
    sm.add_argument("--results", type=Path, default=RESULTS)
    sm.add_argument("--steps", type=int)
    cv = sub.add_parser("curves", help="coverage at one confidence and the area over a confidence, per run of "
                                       "a comparison folder (its curves.csv)")
    cv.add_argument("folder", type=Path)
    cv.add_argument("--at", type=float, default=0.7)
    cv.add_argument("--from", dest="above", type=float, default=0.4)
    for name in ("commands", "run"):
        s = sub.add_parser(name)
        if name == "run":
            s.add_argument("lost", choices=sorted(COMPARISONS))
        s.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
        s.add_argument("--null", type=int, default=3)
        s.add_argument("--steps", type=int)
        s.add_argument("--workers", type=int)
        s.add_argument("--ray")
    args = p.parse_args(argv)
    if args.what == "prepare":
        prepare(data=args.data)
        return 0
    if args.what == "curves":
        path = args.folder / "curves.csv"
        if not path.is_file():
            print(f"error: {path}: no such file (a `decipher closeness` output folder?)", file=sys.stderr)
            return 2
        table = curve_rows(path, args.at, args.above)
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(list(table[0]) if table else ["known", "seed", "null"])
        w.writerows([list(d.values()) for d in table])
        return 0
    if args.what == "summary":
        if not args.results.is_file():
            print(f"error: {args.results}: no such file", file=sys.stderr)
            return 2
        with open(args.results, encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        missing = {"lost", "known", "seed", "null", "score", "steps"} - set(rows[0] if rows else ())
        if missing:
            print(f"error: {args.results}: no column {', '.join(sorted(missing))}", file=sys.stderr)
            return 2
        try:
            table = summary_rows(rows, args.lost, args.steps)
        except ValueError as e:  # a score or steps cell that is not a number
            print(f"error: {args.results}: {e}", file=sys.stderr)
            return 2
        if not table:
            print(f"error: {args.results}: no finished {args.lost} run", file=sys.stderr)
            return 2
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(list(table[0]))
        w.writerows([[f"{v:.4f}" if isinstance(v, float) else v for v in d.values()] for d in table])
        return 0
    lost_names = sorted(COMPARISONS) if args.what == "commands" else [args.lost]
    for lost in lost_names:
        cmd = command(lost, seeds=args.seeds, n_null=args.null, workers=args.workers, ray=args.ray, steps=args.steps)
        if args.what == "commands":
            print("decipher " + " ".join(shlex.quote(str(a)) for a in cmd))
            continue
        missing = [a.split("=", 1)[-1] for a in cmd if a.endswith(".csv") and not Path(a.split("=", 1)[-1]).exists()
                   and "results" not in a]
        if missing:
            print(f"error: {missing[0]} is missing: run `python -m benchmarks.closeness_paper prepare` first",
                  file=sys.stderr)
            return 2
        from engine.cli.main import main as decipher

        return decipher(cmd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
