"""The paper's three closeness comparisons (Luo et al. 2021, Figure 4 b–d) with `decipher closeness`, under
two protocols (issue 26), and one Gothic follow-up: how the candidate vocabularies are built, not a flag of
the command.

- ``paper``: the paper's "Known vocabulary" paragraph as written. The true relative's vocabulary is its
  stems matched with the lost text: for Ugaritic the Hebrew cognates of the lost words in the cognate
  file the lost text comes from (stems of at least 3 IPA units), for Gothic the Proto-Germanic, Old Norse and Old English stems of
  the Gothic dataset, for Iberian Basque from Trask's dictionary. Every other candidate is the most
  frequent stems of its Genesis. This favours the relative by construction: its list is made of the lost
  text's cognates.
- ``fair``: every candidate, the relative included, is the most frequent stems of a running text: Hebrew
  from Genesis (the Westminster Leningrad Codex with the OSHB lemmas), Basque from the New Testament, the
  others from Genesis. Gothic cannot be compared this way (Proto-Germanic, Old Norse and Old English have
  no running text here).
- ``paper-600``: Gothic only, the paper protocol at the paper's size for Gothic's lists (600 stems): the
  Proto-Germanic list and Spanish's (the Genesis list that led the paper protocol's comparison). Under
  ``paper`` Trask's Basque cuts every Gothic list to its size (307 stems, `closeness-list-sizes.csv`), on which the Proto-Germanic runs do not find the
  mapping; this measures whether they do at 600.
- ``authors``: Gothic only, the paper protocol's nine candidates as the authors' code ran its Gothic
  closeness runs (xib ``cfg.py``, ``FinalContrast*``; reference-implementation.md §6): the text with every
  word divider written (their ``corpus.got-germ.trunc.seg.1.tsv``: ``seg.p25`` and ``seg.p5`` are the 25
  and 50 % files, so ``seg.1`` is 100 %), the partial oracle given to every run (k l m n p s t,
  ``resources/priors/gothic-partial.csv``, as our Iberian runs have the authors' Iberian one), the
  insertion cost annealed from 10 (their ``init_ins_del_cost = 10``), and every list at the paper's 600
  stems where it has them (the paper: "set to be 600 since the PG vocabulary has 613 words"); Old Norse
  (411 usable), Old English (590) and Trask's Basque (307) keep all theirs: each is read against its own
  nulls.

Under ``paper``, ``fair`` and ``paper-600`` every candidate has one size: the smallest number of usable
stems among them (usable: of the comparison's span lengths, distinct by IPA), and at most 600, the paper's
size for its Genesis lists; under ``authors`` each list is cut to 600 on its own. A list ranked by
frequency keeps its most frequent stems; a word list without frequencies (the relative's matched stems,
Trask's lexicon) a seeded sample, its order kept. Every finished run goes into benchmarks/results/closeness.csv with its protocol and
null mode.

    python -m benchmarks.closeness_paper prepare --protocol paper      # lost texts and candidate vocabularies
    python -m benchmarks.closeness_paper commands --protocol paper     # the three commands, as run
    nice python -m benchmarks.closeness_paper run ugaritic --protocol paper --workers 2   # resumable
    python -m benchmarks.closeness_paper summary ugaritic --protocol paper
    python -m benchmarks.closeness_paper cost gothic --protocol paper --commit b075e21   # its wall time
    python -m benchmarks.closeness_paper table gothic --protocol paper   # its table for docs/benchmarks.md
    python -m benchmarks.closeness_paper mappings --protocol paper   # what the Gothic runs learned (checkpoints)
    nice python -m benchmarks.closeness_paper run gothic --protocol paper-600 --workers 2   # the 600-stem follow-up
    nice python -m benchmarks.closeness_paper run gothic --protocol authors --workers 2   # as the authors' code ran it
    python -m benchmarks.closeness_paper overlap      # the Ugaritic text's cognates in the fair Hebrew list

`run` builds what it needs first. Files go under build/closeness/ (git-ignored; built from
../shared/data, never committed) and the comparisons' folders under runs/closeness-<lost>-<protocol>/.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shlex
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "closeness"
RUNS = ROOT / "runs"
RESULTS = ROOT / "benchmarks" / "results" / "closeness.csv"
SIZES = ROOT / "benchmarks" / "results" / "closeness-list-sizes.csv"
"""each comparison's candidate lists: usable stems and the stems kept (`prepare --record`)"""
DATA = ROOT.parent / "shared" / "data"
SMALL_COG = "ugaritic_hebrew/uga-heb.small.no_spe.cog"
PROTOCOLS = ("paper", "fair", "paper-600", "authors")
#: benchmarks/results/closeness.csv: the engine's results columns and the protocol. Rows of the runs made
#: before the protocols (issue 12: Hebrew a seeded sample of the whole cognate file, Genesis lists sampled
#: down from their 600 most frequent stems, skeleton nulls) have protocol ``before``.
RESULT_COLUMNS = ("lost", "known", "seed", "null", "score", "coverage_at_default", "steps", "wall_s", "null_mode",
                  "protocol")

#: lost text -> (its LOST.csv under build/closeness, the preset, the shortest stem in IPA units)
COMPARISONS = {
    "ugaritic": ("uga/lost.csv", "ugaritic", 3),
    "gothic": ("gothic-wr0/lost.csv", "paper", 4),
    "iberian": ("iberian/lost.csv", "iberian", 3),
}
#: The largest size of a comparison's lists: the paper's Genesis lists for Gothic ("set to be 600 since the
#: PG vocabulary has 613 words"). Only the fair protocol reaches it (Hebrew from Genesis has 1,518 usable stems).
MAX_STEMS = 600
GENESIS = ("latin", "spanish", "arabic", "hungarian", "turkish")


@dataclass(frozen=True)
class Candidate:
    name: str
    """its name in the comparison"""
    language: str
    """the `decipher dataset candidates` language it is built from"""
    source: str | None = None
    """a source file under the data folder instead of the language's own"""
    matched: bool = False
    """only the stems the source (a .cog) matches with a lost word: the paper's relative"""


def candidates(lost: str, protocol: str) -> list[Candidate]:
    """The candidates of a comparison under a protocol, in the paper's order."""
    if protocol not in PROTOCOLS:
        raise SystemExit(f"error: unknown protocol {protocol!r}; use one of {', '.join(PROTOCOLS)}")
    genesis = {n: Candidate(n, n) for n in GENESIS}
    # paper-600: the paper protocol's Gothic comparison at the paper's list size. Under ``paper`` every
    # Gothic list is cut to Trask's Basque's size (307 stems), on which the Proto-Germanic runs do not find
    # the mapping (benchmarks/results/closeness-gothic-paper-mappings.csv); without Basque the smallest list
    # is Old Norse's 413, so only Proto-Germanic and one Genesis list are kept (Spanish: the one that led the
    # paper protocol's comparison by margin), both at 600 stems.
    if protocol == "paper-600":
        if lost != "gothic":
            raise SystemExit(f"error: the paper-600 protocol is Gothic's only (Proto-Germanic and Spanish at "
                             f"600 stems), not {lost}'s; use --protocol paper")
        return [Candidate("proto-germanic", "proto-germanic"), genesis["spanish"]]
    if protocol == "authors" and lost != "gothic":
        raise SystemExit(f"error: the authors protocol is Gothic's only (the authors' Gothic closeness "
                         f"configuration), not {lost}'s; use --protocol paper")
    if protocol in ("paper", "authors"):
        basque = Candidate("basque", "basque")
        first = {"ugaritic": [Candidate("hebrew", "hebrew", SMALL_COG, matched=True)],
                 "gothic": [Candidate(n, n) for n in ("proto-germanic", "old-norse", "old-english")],
                 "iberian": [basque]}[lost]
    else:
        if lost == "gothic":
            raise SystemExit("error: Gothic has no fair protocol: Proto-Germanic, Old Norse and Old English have no "
                             "running text here (their vocabularies are an etymological dictionary's stems matched "
                             "with Gothic); use --protocol paper")
        basque = Candidate("basque", "basque-nt")
        first = {"ugaritic": [Candidate("hebrew", "hebrew-genesis")], "iberian": [basque]}[lost]
    order = {"ugaritic": ("arabic", "latin", "spanish", "hungarian", "turkish", "basque"),
             "gothic": ("latin", "spanish", "arabic", "hungarian", "turkish", "basque"),
             "iberian": ("latin", "spanish", "hungarian", "turkish", "arabic")}[lost]
    return first + [basque if n == "basque" else genesis[n] for n in order]


#: the authors protocol's Gothic text: every word divider written (WR 100 %), built as gothic-wr0 is
AUTHORS_LOST = "gothic-wr100/lost.csv"
#: the partial oracle (k l m n p s t) the authors' Gothic closeness runs had on (``use_oracle=True``)
GOTHIC_PRIOR = ROOT / "resources" / "priors" / "gothic-partial.csv"
#: their ``init_ins_del_cost = 10``: the insertion cost annealed from 10 (to the preset's 3.5)
AUTHORS_SETTINGS = ("insertion_cost_start=10",)


def lost_path(lost: str, protocol: str) -> str:
    """The comparison's LOST.csv under build/closeness."""
    return AUTHORS_LOST if protocol == "authors" else COMPARISONS[lost][0]


def run_options(lost: str, protocol: str) -> list[str]:
    """The `decipher closeness` options a comparison adds to the preset: a prior given to every run and
    settings."""
    if lost == "iberian" and IBERIAN_PRIOR.exists():
        return ["--prior", str(IBERIAN_PRIOR)]
    if protocol == "authors":   # the lists keep their own sizes (`decipher closeness` would cut all to the smallest)
        return ["--prior", str(GOTHIC_PRIOR), *(a for kv in AUTHORS_SETTINGS for a in ("--set", kv)),
                "--cap-stems", str(MAX_STEMS)]
    return []


def not_in_protocol(lost_names, protocol: str, *, quiet: bool = False) -> bool:
    """Whether some of the comparisons is not one the protocol has (``candidates`` refuses it); says why in
    one line on stderr unless ``quiet``."""
    for lost in lost_names:
        try:
            candidates(lost, protocol)
        except SystemExit as e:  # says why, in one line
            if not quiet:
                print(e.code, file=sys.stderr)
            return True
    return False


def protocol_comparisons(protocol: str) -> list[str]:
    """The comparisons a protocol has, in COMPARISONS' order."""
    return [lost for lost in COMPARISONS if not not_in_protocol([lost], protocol, quiet=True)]


def _call(main, argv: list[str]) -> None:
    print("$ " + " ".join(shlex.quote(a) for a in argv), file=sys.stderr)
    code = main(argv)
    if code:
        raise SystemExit(code)


def prepare_lost(build: Path = BUILD, data: Path = DATA, protocol: str = "paper") -> None:
    """Build the three lost texts (shared by the protocols), those not built yet, and the authors
    protocol's Gothic text with every divider when ``protocol`` is it."""
    from engine.cli.main import main as decipher
    from engine.datasets.gothic import main as gothic
    from engine.io.hesperia import read_hesperia
    from engine.io.tables import write_lost

    build.mkdir(parents=True, exist_ok=True)
    if not (build / "uga" / "lost.csv").exists():
        _call(decipher, ["import-cog", str(data / SMALL_COG), "--out", str(build / "uga")])
    if not (build / "gothic-wr0" / "lost.csv").exists():
        _call(gothic, ["--known", "pgm", "--wr", "0", "--seed", "0", "--data", str(data), "--out",
                       str(build / "gothic-wr0"), "--quiet"])
    if protocol == "authors" and not (build / AUTHORS_LOST).exists():
        _call(gothic, ["--known", "pgm", "--wr", "100", "--seed", "0", "--data", str(data), "--out",
                       str(build / Path(AUTHORS_LOST).parent), "--quiet"])
    if (build / "iberian" / "lost.csv").exists():
        return
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


def matched_forms(cog: Path) -> set[str]:
    """The known forms a .cog file gives as the cognate of some lost word (its gold)."""
    from engine.io.cog import read_cog

    return {form for g in read_cog(cog, on_unknown="skip").gold for form in g.known}


def candidate_path(lost: str, name: str, protocol: str = "paper", build: Path = BUILD) -> Path:
    return build / protocol / lost / f"{name}.csv"


def matched_size(built: dict[str, list], most: int = MAX_STEMS) -> int:
    """The one size of a comparison's candidates: the smallest number of usable stems among them, at
    most ``most``."""
    return min(most, *(len(stems) for stems in built.values()))


def cut_to(stems: list, size: int, ranked_by_frequency: bool, key: str) -> list:
    """``size`` of ``stems``: the first (most frequent) of a ranked list, else a seeded sample in list order."""
    from engine.datasets.candidates import seeded_sample

    return list(stems[:size]) if ranked_by_frequency else seeded_sample(stems, size, key)


def prepare(lost: str, protocol: str, build: Path = BUILD, data: Path = DATA) -> Path:
    """Build a comparison's candidate vocabularies under a protocol, all of one size (see the module's
    text); writes each KNOWN CSV and sizes.txt (what each list had and kept) under build/<protocol>/<lost>/."""
    from engine.datasets.candidates import build as build_candidate
    from engine.io.tables import write_known

    cands = candidates(lost, protocol)
    min_units = COMPARISONS[lost][2]
    built = {}
    for c in cands:
        b = build_candidate(c.language, stems=10 ** 6, min_units=min_units, data=data,
                            source=None if c.source is None else data / c.source)
        if c.matched:
            forms = matched_forms(data / c.source)
            b.stems = [st for st in b.stems if st.form in forms]
            b.ranked = "the stems matched with a lost word, in the file's order"
        built[c.name] = b
        print(b.describe(), file=sys.stderr)
    own_size = protocol == "authors"      # each list cut to the paper's size on its own
    size = matched_size({n: b.stems for n, b in built.items()})
    folder = build / protocol / lost
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f"{protocol} protocol, {lost}: every candidate cut to at most {MAX_STEMS} stems of {min_units}-10 IPA "
             "units (the paper's size; a shorter list keeps all its usable stems)" if own_size else
             f"{protocol} protocol, {lost}: every candidate cut to {size} stems of {min_units}-10 IPA units "
             f"(the smallest candidate's usable stems, at most {MAX_STEMS})"]
    rows = []
    for c in cands:
        b = built[c.name]
        kept = cut_to(b.stems, min(MAX_STEMS, len(b.stems)) if own_size else size, b.ranked.startswith("frequency"),
                      f"closeness-paper:{protocol}:{lost}:{c.name}")
        write_known(candidate_path(lost, c.name, protocol, build), kept)
        how = ("all" if len(kept) == len(b.stems) else "its most frequent" if b.ranked.startswith("frequency")
               else "a seeded sample")
        lines.append(f"{c.name} ({c.language}{', ' + c.source if c.source else ''}): {len(b.stems)} usable, "
                     f"kept {len(kept)} ({how}); {b.describe()}")
        rows.append({"protocol": protocol, "lost": lost, "known": c.name, "usable": len(b.stems), "kept": len(kept)})
    (folder / "sizes.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    from engine.io.atomic import write_csv

    write_csv(folder / "sizes.csv", list(rows[0]), ([r[k] for k in rows[0]] for r in rows))
    print("\n".join(lines[:1]), file=sys.stderr)
    return folder


def record_sizes(sizes: Path, dest: Path | None = None) -> None:
    """Merge a prepared comparison's sizes.csv into the committed list sizes (its protocol and lost text's
    rows replaced)."""
    from engine.io.atomic import write_csv

    from benchmarks.commit import short_commit

    dest = dest or SIZES
    with open(sizes, encoding="utf-8", newline="") as f:
        new = list(csv.DictReader(f))
    keys = {(r["protocol"], r["lost"]) for r in new}
    command = " ".join(["python -m benchmarks.closeness_paper", *sys.argv[1:]])
    for r in new:       # each row says which commit and command wrote it
        r.update(commit=short_commit(), command=command)
    old = []
    if dest.is_file():
        with open(dest, encoding="utf-8", newline="") as f:
            old = [r for r in csv.DictReader(f) if (r["protocol"], r["lost"]) not in keys]
    rows = sorted(old + new, key=lambda r: (r["lost"], r["protocol"]))
    write_csv(dest, list(new[0]), ([r.get(k, "unknown") for k in new[0]] for r in rows))
    print(f"{len(new)} list sizes -> {dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest}", file=sys.stderr)


#: The authors' partial oracle for Iberian (a b k l m n r s t at their Latin values), which the paper's
#: Iberian closeness runs had switched on (docs/datasets.md, "Iberian"); given to every Iberian run.
IBERIAN_PRIOR = ROOT / "resources" / "priors" / "iberian-partial.csv"


def staging_path(lost: str, protocol: str, build: Path = BUILD) -> Path:
    """The engine's own results file of one comparison (``--append-results``), merged into closeness.csv."""
    return build / protocol / lost / "results.csv"


def command(lost: str, protocol: str = "paper", *, seeds=(0, 1, 2), n_null: int = 3, workers: int | None = None,
            ray: str | None = None, steps: int | None = None, build: Path = BUILD, runs: Path = RUNS) -> list[str]:
    """The `decipher closeness` arguments of one of the comparisons under a protocol."""
    _, preset, _ = COMPARISONS[lost]
    names = [c.name for c in candidates(lost, protocol)]
    argv = ["closeness", "--lost", str(build / lost_path(lost, protocol)),
            "--known", *[f"{n}={candidate_path(lost, n, protocol, build)}" for n in names],
            "--preset", preset, "--set", "eval_interval=0", "--seeds", *map(str, seeds), "--null", str(n_null)]
    argv += run_options(lost, protocol)
    if steps is not None:
        argv += ["--steps", str(steps)]
    if workers is not None:
        argv += ["--workers", str(workers)]
    if ray is not None:
        argv += ["--ray", ray]
    return argv + ["--append-results", str(staging_path(lost, protocol, build)), "--lost-name", lost,
                   "--out", str(runs / f"closeness-{lost}-{protocol}")]


COST = ROOT / "benchmarks" / "results" / "closeness-cost.jsonl"
#: a stretch this long with no run training splits a comparison into segments (a resume in a later session)
IDLE_GAP_S = 120.0


def run_intervals(folder: Path) -> list[tuple[float, float]]:
    """(start, end) in seconds since the epoch of every finished run of a comparison folder: a run's
    files are written when it ends, so its end is its metrics.json's time and its start that less its
    training time (runs.csv ``wall_s``, the same the folder's runs.csv and closeness.csv give)."""
    table = folder / "runs.csv"
    if not table.is_file():
        raise ValueError(f"{table}: no such file (a finished `decipher closeness` folder?)")
    with open(table, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    planned = None       # the runs of this plan (the folder's results.csv), where another plan left runs too
    if (folder / "results.csv").is_file():
        with open(folder / "results.csv", encoding="utf-8", newline="") as f:
            planned = {r["run_dir"] for r in csv.DictReader(f) if r.get("status") == "completed"}
    out = []
    for metrics in sorted(folder.glob("*/*/seed-*/metrics.json")):
        if planned is not None and metrics.parent.relative_to(folder).as_posix() not in planned:
            continue
        got = json.loads(metrics.read_text(encoding="utf-8"))
        end = metrics.stat().st_mtime
        out.append((end - float(got["wall_time_s"]), end))
    if len(out) < len(rows):
        raise ValueError(f"{folder}: {len(rows)} runs in runs.csv but {len(out)} run folders with metrics.json")
    return sorted(out)


def comparison_cost(intervals: list[tuple[float, float]], idle_gap_s: float = IDLE_GAP_S) -> dict:
    """What a comparison cost, from its runs' (start, end): ``busy_s``, the time at least one run was
    training (the wall time of the comparison, without the stretches between segments: resumes in other
    sessions); ``segments``, how many stretches of training with no idle gap over ``idle_gap_s``;
    ``run_s_sum`` and ``run_s_median``, the runs' own times; ``concurrency_max``, the most runs at once."""
    merged: list[list[float]] = []
    segments = 0
    for a, b in sorted(intervals):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
            continue
        if not merged or a - merged[-1][1] > idle_gap_s:
            segments += 1
        merged.append([a, b])
    events = sorted([(a, 1) for a, _ in intervals] + [(b, -1) for _, b in intervals], key=lambda e: (e[0], e[1]))
    running = peak = 0
    for _, d in events:
        running += d
        peak = max(peak, running)
    lengths = [b - a for a, b in intervals]
    return {"runs": len(intervals), "busy_s": round(sum(b - a for a, b in merged), 1), "segments": segments,
            "first_start": round(min(a for a, _ in intervals), 1), "last_end": round(max(b for _, b in intervals), 1),
            "run_s_sum": round(sum(lengths), 1), "run_s_median": round(statistics.median(lengths), 1),
            "concurrency_max": peak}


def record_cost(lost: str, protocol: str, commit: str, note: str, runs: Path | None = None,
                out: Path | None = None) -> dict:
    """Add (or replace) the cost row of one comparison in benchmarks/results/closeness-cost.jsonl; with the
    folder's summary.csv, ``summary_s`` (from the last run's end to the summary: curves, figure, answer) and
    ``total_s`` (``busy_s`` + ``summary_s``)."""
    runs, out = runs or RUNS, out or COST
    folder = runs / f"closeness-{lost}-{protocol}"
    cost = comparison_cost(run_intervals(folder))
    summary = folder / "summary.csv"     # written once every run is in: the comparison's own work after them
    if summary.is_file():
        cost["summary_s"] = round(summary.stat().st_mtime - cost["last_end"], 1)
        cost["total_s"] = round(cost["busy_s"] + cost["summary_s"], 1)
    row = {"lost": lost, "protocol": protocol, **cost, "commit": commit, "cpu": os.cpu_count(), "note": note}
    kept = []
    if out.exists():
        kept = [r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())
                if (r["lost"], r["protocol"]) != (lost, protocol)]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in [*kept, row]), encoding="utf-8")
    return row


def gothic_mappings(protocol: str = "paper", runs: Path | None = None, build: Path = BUILD,
                    germanic_only: bool = True) -> list[dict]:
    """What the Gothic comparison's runs learned, read from their checkpoints (no training): per run its
    score (runs.csv), how many of the 25 Gothic letters its mapping reads as their standard value (the full
    Gothic prior, resources/priors/gothic-full.csv, as benchmarks/gothic.py reports) and its P@10 against
    the Gothic–PG gold of the lost text (only stems in the run's list can be found). The vocabularies are
    rebuilt as the comparison built them (the same candidates, sizes, sampling and nulls), each checked
    against its run's recorded digest. The P@10 is only meaningful for Proto-Germanic's own list (the gold
    is Gothic–PG); ``p_at_10_own_gold`` and ``p_at_1_own_gold`` are the own runs' P@10 and P@1 against
    their own language's Gothic gold (PG, ON, OE: the Gothic dataset built for that language, the same
    lost text), and the letter count reads Gothic letters at their Gothic values, which an ON or OE
    cognate need not share."""
    from benchmarks.gothic_ranks import prior_agreement
    from engine.closeness.comparison import plan_comparison
    from engine.config import config_from_options
    from engine.inputs_digest import vocabulary_digest
    from engine.io.tables import read_gold, read_prior
    from engine.runs.inputs import read_run_files
    from engine.training.trainer import Trainer

    folder = (runs or RUNS) / f"closeness-gothic-{protocol}"
    with open(folder / "runs.csv", encoding="utf-8", newline="") as f:
        scores = {(r["known"], r["null"], r["seed"]): r for r in csv.DictReader(f)}
    path, preset = lost_path("gothic", protocol), COMPARISONS["gothic"][1]
    files = read_run_files(build / path)
    gold = read_gold(build / Path(path).parent / "gold.csv", inscriptions=files.corpus.inscriptions)
    every = [c.name for c in candidates("gothic", protocol)]
    names = null_names = every
    if germanic_only:   # the relatives' and Basque's own runs, and Proto-Germanic's nulls
        names = [n for n in names if n in ("proto-germanic", "old-norse", "old-english")] + ["basque"]
        null_names = ["proto-germanic"]
    config = config_from_options(preset=preset, assignments=["eval_interval=0",
                                                              *(AUTHORS_SETTINGS if protocol == "authors" else ())])
    plan = plan_comparison(files.corpus, {n: candidate_path("gothic", n, protocol, build) for n in every},
                           seeds=(0, 1, 2), n_null=3, config=config, null_mode="phonotactic",
                           cap_stems=MAX_STEMS if protocol == "authors" else None)
    prior = read_prior(ROOT / "resources" / "priors" / "gothic-full.csv")
    own_golds = {"proto-germanic": gold}
    for name, code in (("old-norse", "non"), ("old-english", "ang")):
        if name in names:  # the Gothic dataset for that language: the same lost text, its own gold
            own_golds[name] = relative_gold(code, path, files.corpus.inscriptions,
                                            wr="100" if protocol == "authors" else "0", build=build)
    out = []
    for item in plan.items:
        if item.known not in (names if item.null is None else null_names):
            continue
        kind = "own" if item.null is None else f"null-{item.null}"
        found = sorted(folder.glob(f"{item.known}/{kind}-*/seed-{item.seed}/checkpoint.pt"))
        if len(found) != 1:
            raise ValueError(f"{folder}: {len(found)} checkpoints for {item.known} {kind} seed {item.seed}")
        recorded = json.loads((found[0].parent / "inputs.json").read_text(encoding="utf-8"))["inputs"]["known file"]
        if vocabulary_digest(item.vocabulary) != recorded:     # rebuilt otherwise than the run's own list
            raise ValueError(f"{found[0].parent}: the rebuilt {item.known} {kind} vocabulary is not the run's "
                             "(its digest in inputs.json differs)")
        trainer = Trainer.from_checkpoint(found[0], item.lost, item.vocabulary, gold=gold, live_interval=None)
        agree = prior_agreement(trainer.mapping(), prior)
        ev = trainer.evaluate()
        own = own1 = ""
        if item.null is None and item.known in own_golds:
            trainer.gold = own_golds[item.known]
            metrics = trainer.evaluate().metrics
            own, own1 = round(metrics["p_at_10"], 4), round(metrics["p_at_1"], 4)
        row = scores[(item.known, "" if item.null is None else str(item.null), str(item.seed))]
        out.append({"known": item.known, "null": "" if item.null is None else item.null, "seed": item.seed,
                    "score": float(row["score"]), "letters_right": agree["prior_agree"],
                    "letters": agree["prior_letters"], "p_at_10": round(ev.metrics["p_at_10"], 4),
                    "mapping_best": agree["mapping_best"], "p_at_10_own_gold": own, "p_at_1_own_gold": own1})
        print(f"{item.known} {kind} seed {item.seed}: {agree['prior_agree']} of {agree['prior_letters']} letters, "
              f"P@10 {ev.metrics['p_at_10']:.3f}" + (f", against its own gold {own:.3f}" if own != "" else ""),
              file=sys.stderr, flush=True)
    return out


def relative_gold(code: str, lost: str, inscriptions, *, wr: str, build: Path = BUILD, data: Path = DATA) -> list:
    """The Gothic–``code`` gold (non, ang) of the comparison's lost text ``lost`` (a path under build):
    the Gothic dataset built for that language at the text's word-divider ratio ``wr`` (percent) and seed 0,
    into a folder of its own beside the text (built when missing); its lost text must be the comparison's,
    byte for byte."""
    from engine.datasets.gothic import main as gothic
    from engine.io.tables import read_gold

    text = build / lost
    folder = text.parent.with_name(f"{text.parent.name}-{code}")
    if not (folder / "gold.csv").exists():
        _call(gothic, ["--known", code, "--wr", wr, "--seed", "0", "--data", str(data), "--out", str(folder), "--quiet"])
    if (folder / "lost.csv").read_bytes() != text.read_bytes():
        raise ValueError(f"{folder / 'lost.csv'}: not the comparison's lost text {text}; its gold does not apply")
    return read_gold(folder / "gold.csv", inscriptions=inscriptions)


OVERLAP = ROOT / "benchmarks" / "results" / "closeness-ugaritic-overlap.json"


def cognate_overlap(build: Path = BUILD) -> dict:
    """How many of the Ugaritic text's Hebrew cognates (the paper protocol's Hebrew list: the cognates of
    the lost words) the fair protocol's Hebrew list (Genesis's most frequent lemmas) holds, compared by
    IPA; and how many of the paper's list's stems each other fair candidate's list shares by chance."""
    def ipas(path: Path) -> set[str]:
        with open(path, encoding="utf-8", newline="") as f:
            return {r["ipa"] for r in csv.DictReader(f)}

    cognates = ipas(candidate_path("ugaritic", "hebrew", "paper", build))
    fair = {c.name: ipas(candidate_path("ugaritic", c.name, "fair", build)) for c in candidates("ugaritic", "fair")}
    return {"cognates": len(cognates), "genesis_hebrew": len(fair["hebrew"]),
            "cognates_in_genesis_hebrew": len(cognates & fair["hebrew"]),
            "share": len(cognates & fair["hebrew"]) / len(cognates) if cognates else float("nan"),
            "shared_by_chance": {n: len(cognates & v) for n, v in fair.items() if n != "hebrew"}}


def merge_results(staged: Path, protocol: str, results: Path = RESULTS) -> int:
    """Add a comparison's rows (the engine's results file) to closeness.csv with their protocol, leaving
    out those already there; returns how many were added."""
    from engine.closeness.runs import RESULTS_COLUMNS
    from engine.io.atomic import write_csv

    if not staged.exists():
        return 0
    with open(staged, encoding="utf-8", newline="") as f:
        new = [dict(r, protocol=protocol) for r in csv.DictReader(f)]
    rows: list[dict] = []
    if results.exists():
        with open(results, encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f)
            if tuple(reader.fieldnames or ()) != RESULT_COLUMNS:
                raise SystemExit(f"error: {results}: not the closeness results file (columns "
                                 f"{', '.join(RESULT_COLUMNS)})")
            rows = list(reader)
    key = ("protocol", "lost", "known", "seed", "null", "steps", "null_mode")
    seen = {tuple(r[k] for k in key) for r in rows}
    added = [r for r in new if tuple(r[k] for k in key) not in seen]
    assert set(RESULTS_COLUMNS) <= set(RESULT_COLUMNS)
    if added:
        write_csv(results, RESULT_COLUMNS, ([r[c] for c in RESULT_COLUMNS] for r in rows + added))
    return len(added)


def summary_rows(rows: list[dict], lost: str, steps: int | None = None, protocol: str | None = None,
                 null_mode: str | None = None) -> list[dict]:
    """The summary of one comparison from the rows of closeness.csv (no run folders needed): per
    candidate its mean score over seeds, its null runs' mean and own sd, the sd pooled over all
    candidates' nulls, z by the engine's rule of before issue 26 (the larger of the two sds) and that
    rule's verdict; best first. ``steps``: only rows of that many steps (default: the most common);
    ``protocol``, ``null_mode``: only rows of those (default: all). The verdict of a comparison run
    under issue 26's rule is its folder's summary.csv and answer.txt."""
    from collections import Counter

    from engine.closeness.comparison import empirical_p, pooled_sd, verdict, z_score, z_sd

    mine = [r for r in rows if r["lost"] == lost and protocol in (None, r.get("protocol"))
            and null_mode in (None, r.get("null_mode"))]
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


#: short names in the record's ids (``cmp-uga-fair-heb-margin``) and the names the docs' tables show
SHORT = {"ugaritic": "uga", "gothic": "goth", "iberian": "ibe", "hebrew": "heb", "latin": "lat", "spanish": "spa",
         "arabic": "ara", "hungarian": "hun", "turkish": "tur", "basque": "bas", "proto-germanic": "pg",
         "old-norse": "on", "old-english": "oe"}
SHOWN = {"proto-germanic": "Proto-Germanic", "old-norse": "Old Norse", "old-english": "Old English"}
#: the summary columns of a table row, in the table's order
TABLE_FIELDS = (("score", "score_mean"), ("null", "null_mean"), ("margin", "margin"), ("lo", "margin_lo"),
                ("hi", "margin_hi"), ("p", "p_holm"))


def summary_path(lost: str, protocol: str) -> Path:
    """The committed copy of a finished comparison's summary.csv."""
    return ROOT / "benchmarks" / "results" / f"closeness-{lost}-{protocol}-summary.csv"


def p_digits(p: float) -> int:
    """Decimals a Holm p is written with: two significant digits at most, 1 as "1"."""
    if p >= 0.995:
        return 0
    return 2 if p >= 0.095 else 3 if p >= 0.0095 else 4


def table_lines(lost: str, protocol: str, summary: Path) -> tuple[list[str], list[str]]:
    """The docs' table of a finished comparison (ranked as its summary.csv, the margin's ranking) with a
    record marker after every number, and the record.toml entries those markers name."""
    with open(summary, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    need = {"known", "verdict"} | {c for _, c in TABLE_FIELDS}
    if not rows or need - set(rows[0]):
        raise ValueError(f"{summary}: not a comparison's summary.csv (columns {', '.join(sorted(need))})")
    rel = summary.relative_to(ROOT).as_posix() if summary.is_relative_to(ROOT) else str(summary)
    lines = ["| rank (by margin) | candidate | score | own null mean | margin [90 % interval] | p (Holm) | verdict |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    record = []
    for rank, r in enumerate(rows, start=1):
        known = r["known"]
        cell = {}
        for short, column in TABLE_FIELDS:
            value = float(r[column])
            digits = p_digits(value) if short == "p" else 3
            mark = f"cmp-{SHORT[lost]}-{protocol}-{SHORT.get(known, known)}-{short}"
            text = f"{value:.{digits}f}" if short in ("p", "score", "null") else f"{value:+.{digits}f}"
            cell[short] = f"{text}<!--r:{mark}-->"
            record += ["[[n]]", f'id = "{mark}"', f'file = "{rel}"', f'where = {{ known = "{known}" }}',
                       f'field = "{column}"', 'agg = "value"', f"digits = {digits}", ""]
        name = SHOWN.get(known, known.capitalize())
        lines.append(f"| {rank} | {name} | {cell['score']} | {cell['null']} | {cell['margin']} [{cell['lo']}, "
                     f"{cell['hi']}] | {cell['p']} | {r['verdict']} |")
    return lines, record


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


def _main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.closeness_paper", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    pr = sub.add_parser("prepare", help="build the lost texts and a protocol's candidate vocabularies under "
                                        "build/closeness")
    pr.add_argument("lost", nargs="*", help=f"the comparisons, of {', '.join(sorted(COMPARISONS))} (default: all "
                                           "the protocol has)")
    pr.add_argument("--protocol", choices=PROTOCOLS, default="paper")
    pr.add_argument("--data", type=Path, default=DATA)
    pr.add_argument("--record", action="store_true", help=f"also write each list's usable and kept stems into "
                                                          f"{SIZES.relative_to(ROOT)} (the docs' list sizes)")
    sm = sub.add_parser("summary", help="the summary of a comparison from closeness.csv (no training)")
    sm.add_argument("lost", choices=sorted(COMPARISONS))
    sm.add_argument("--protocol", choices=PROTOCOLS + ("before",),
                    help="only the runs of this protocol (before: the runs made before the protocols)")
    sm.add_argument("--null-mode", help="only the runs with this null mode")
    sm.add_argument("--results", type=Path, default=RESULTS)
    sm.add_argument("--steps", type=int)
    cv = sub.add_parser("curves", help="coverage at one confidence and the area over a confidence, per run of "
                                       "a comparison folder (its curves.csv)")
    cv.add_argument("folder", type=Path)
    cv.add_argument("--at", type=float, default=0.7)
    cv.add_argument("--from", dest="above", type=float, default=0.4)
    sub.add_parser("overlap", help="how many of the Ugaritic text's Hebrew cognates the fair protocol's Hebrew list "
                                   "holds, to benchmarks/results/closeness-ugaritic-overlap.json")
    co = sub.add_parser("cost", help="a finished comparison's wall time from its run folders, to "
                                     "benchmarks/results/closeness-cost.jsonl")
    co.add_argument("lost", choices=sorted(COMPARISONS))
    co.add_argument("--protocol", choices=PROTOCOLS, default="paper")
    co.add_argument("--commit", required=True, help="the commit the comparison ran at")
    co.add_argument("--note", default="", help="what else ran on the machine meanwhile")
    mp = sub.add_parser("mappings", help="what the Gothic comparison's runs learned (letters at their standard "
                                         "value, P@10), from their checkpoints, to "
                                         "benchmarks/results/closeness-gothic-PROTOCOL-mappings.csv")
    mp.add_argument("--protocol", choices=PROTOCOLS, default="paper")
    mp.add_argument("--all", action="store_true", help="every run (default: the own runs of the Germanic candidates "
                                                       "and Basque, and Proto-Germanic's nulls)")
    tb = sub.add_parser("table", help="the docs' table of a finished comparison from its committed summary "
                                      "(benchmarks/results/closeness-LOST-PROTOCOL-summary.csv), with record markers")
    tb.add_argument("lost", choices=sorted(COMPARISONS))
    tb.add_argument("--protocol", choices=PROTOCOLS, default="paper")
    tb.add_argument("--record", action="store_true", help="print the record.toml entries its markers name instead")
    for name in ("commands", "run"):
        s = sub.add_parser(name)
        if name == "run":
            s.add_argument("lost", choices=sorted(COMPARISONS))
        s.add_argument("--protocol", choices=PROTOCOLS, default="paper")
        s.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
        s.add_argument("--null", type=int, default=3)
        s.add_argument("--steps", type=int)
        s.add_argument("--workers", type=int)
        s.add_argument("--ray")
        s.add_argument("--data", type=Path, default=DATA)
        s.add_argument("--results", type=Path, default=RESULTS)
    args = p.parse_args(argv)
    if args.what == "prepare":
        unknown = [a for a in args.lost if a not in COMPARISONS]
        if unknown:
            p.error(f"unknown comparison {unknown[0]!r}; use {', '.join(sorted(COMPARISONS))}")
        if not_in_protocol(args.lost, args.protocol):
            return 2
        prepare_lost(data=args.data, protocol=args.protocol)
        for lost in args.lost or protocol_comparisons(args.protocol):
            folder = prepare(lost, args.protocol, data=args.data)
            if args.record:
                record_sizes(folder / "sizes.csv")
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
    if args.what == "overlap":
        try:
            got = cognate_overlap()
        except (OSError, KeyError) as e:
            print(f"error: {e} (run `prepare ugaritic --protocol paper` and `--protocol fair` first)", file=sys.stderr)
            return 2
        OVERLAP.write_text(json.dumps(got, indent=1) + "\n", encoding="utf-8")
        print(f"{got['cognates_in_genesis_hebrew']} of the text's {got['cognates']} Hebrew cognates are among Genesis's "
              f"{got['genesis_hebrew']} kept stems ({100 * got['share']:.0f} %) -> {OVERLAP.name}")
        return 0
    if args.what == "cost":
        try:
            row = record_cost(args.lost, args.protocol, args.commit, args.note)
        except (ValueError, KeyError, OSError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        print(f"{args.lost} ({args.protocol}): {row['runs']} runs, {row['busy_s'] / 3600:.2f} h of wall time "
              f"in {row['segments']} segment(s), at most {row['concurrency_max']} at once -> {COST.name}")
        return 0
    if args.what == "mappings":
        try:
            table = gothic_mappings(args.protocol, germanic_only=not args.all)
        except (OSError, ValueError, KeyError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        dest = ROOT / "benchmarks" / "results" / f"closeness-gothic-{args.protocol}-mappings.csv"
        from engine.io.atomic import write_csv

        write_csv(dest, list(table[0]), ([r[k] for k in table[0]] for r in table))
        print(f"{len(table)} runs -> {dest.relative_to(ROOT)}", file=sys.stderr)
        return 0
    if args.what == "table":
        path = summary_path(args.lost, args.protocol)
        try:
            lines, record = table_lines(args.lost, args.protocol, path)
        except (OSError, ValueError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        print("\n".join(record if args.record else lines))
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
            table = summary_rows(rows, args.lost, args.steps, args.protocol, args.null_mode)
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
    lost_names = protocol_comparisons(args.protocol) if args.what == "commands" else [args.lost]
    if args.what == "run" and not_in_protocol([args.lost], args.protocol):
        return 2
    for lost in lost_names:
        cmd = command(lost, args.protocol, seeds=args.seeds, n_null=args.null, workers=args.workers, ray=args.ray,
                      steps=args.steps)
        if args.what == "commands":
            print("decipher " + " ".join(shlex.quote(str(a)) for a in cmd))
            continue
        prepare_lost(data=args.data, protocol=args.protocol)
        names = [c.name for c in candidates(lost, args.protocol)]
        if not all(candidate_path(lost, n, args.protocol).exists() for n in names):
            prepare(lost, args.protocol, data=args.data)
        from engine.cli.main import main as decipher

        code = decipher(cmd)
        added = merge_results(staging_path(lost, args.protocol), args.protocol, args.results)
        print(f"closeness_paper: {added} new rows in {args.results} (protocol {args.protocol})", file=sys.stderr)
        return code
    return 0


def one_line_errors(command, argv: list[str] | None = None) -> int:
    """``command(argv)``; a missing or bad input file is one line (exit 2), not a traceback."""
    from engine.errors import DecipherError

    try:
        return command(argv)
    except DecipherError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    return one_line_errors(_main, argv)

if __name__ == "__main__":
    sys.exit(main())
