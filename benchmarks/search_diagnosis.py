"""Does the gold-free diagnosis (issue 30 item 3, engine/training/diagnosis.py) flag the runs that
fail and spare the ones that succeed? Scored on every recorded run that stores what it needs.

    python -m benchmarks.search_diagnosis --out benchmarks/results/search/diagnosis.jsonl

Runs and what each check reads (nothing here retrains; the gold only decides what counts as a
failure, after the diagnosis has spoken):

* Gothic (letters; the class check): each run's best unit per letter (``mapping_best``) from
  benchmarks/results/gothic-mapping-diagnosis.jsonl, gothic-warmstart.jsonl, gothic-search.jsonl and
  search/gothic-search.jsonl (further seeds of some cells),
  with the letter classes Sukhotin's algorithm gives on the run's dataset (benchmarks/.cache/gothic,
  built by ``python -m benchmarks.gothic``); the seeds of one cell of gothic-search.jsonl are also
  compared by their final objective and by their readings (the ``seeds`` check). A run *fails* when
  fewer than half of the 25 letters are read as their standard value (the full prior).
* Ugaritic (an abjad: no class check; the objective check among the seeds of one setting, and on the
  full set the readings check too, from full-k1-mappings.jsonl): the full set with candidate_stems = 1
  (benchmarks/results/ugaritic-candidate-stems/full-k1-*), fails below P@1 0.70; the small set
  (ugaritic-small-seeds/results.csv), fails below 0.80 (issue 30's bars).
* Linear B (syllables; the objective check among the seeds of one file, variant and length):
  benchmarks/results/syllables/linear-b.jsonl, fails below P@1 0.673 (issue 25's target).

One JSON line per run (source, run, flagged, the findings, failed) and one summary line per source
and overall: flagged failures (hits), unflagged failures (misses), flagged successes (false alarms).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
GOTHIC_CACHE = ROOT / "benchmarks" / ".cache" / "gothic"
#: The Gothic grid's search records, and those of the cells' further seeds (3-5; their own results file,
#: search/gothic-more-seeds.csv, so that the grid's tables stay the first three seeds'): one cell's
#: seeds from both are compared with each other.
SEARCH_FILES = ("gothic-search.jsonl", "search/gothic-search.jsonl")
#: A Linear B run fails below issue 25's target for the preset, P@1 0.673 (as the Ugaritic bars are
#: issue 30's targets). It was 0.5 while the file held only the scratch and vowel-pins runs (P@1 at
#: most 0.032 or at least 0.804, on either side of both bars); the onsets-first and preset runs added
#: since include seeds at 0.58-0.63, a worse basin than their setting's best, which 0.5 called successes.
LINEAR_B_BAR = 0.673


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()] \
        if path.exists() else []


_VOWELS: dict[Path, tuple[list[str] | None, dict[str, float]]] = {}


def vowels_of(folder: Path) -> tuple[list[str] | None, dict[str, float]]:
    """class_evidence of a built Gothic dataset and each letter's share of its text (cached)."""
    if folder not in _VOWELS:
        from engine.config import Config
        from engine.corpus import Corpus, Vocabulary
        from engine.io.tables import read_known, read_lost
        from engine.model.letter_classes import class_evidence, letter_shares
        from engine.model.prepared import prepare

        corpus = Corpus(folder.name, tuple(read_lost(folder / "lost.csv")))
        vocabulary = Vocabulary(folder.name, tuple(read_known(folder / "known.csv")))
        prep = prepare(corpus, vocabulary, Config(), [])
        _VOWELS[folder] = class_evidence(prep), letter_shares(prep)
    return _VOWELS[folder]


def gothic_rows() -> list[dict]:
    from benchmarks.gothic import KNOWN, dataset_dir
    from engine.training.diagnosis import class_finding_of

    records = []
    for name in ("gothic-mapping-diagnosis.jsonl", "gothic-warmstart.jsonl", *SEARCH_FILES):
        for r in _jsonl(RESULTS / name):
            if "mapping_best" not in r or r.get("known") not in KNOWN:
                continue
            right = r.get("prior_agree", r.get("letters_right"))
            label = " ".join(str(r[k]) for k in ("run", "known", "wr", "variant", "ablation", "warm_start", "seed")
                             if k in r)
            records.append((name, label, r, right))
    # the seeds of one cell and trial compared by their final objective, as `decipher run --seeds` does
    groups: dict[tuple, dict[str, float]] = {}
    group_readings: dict[tuple, dict[str, dict[str, str]]] = {}
    for name, label, r, right in records:
        if "final_objective" in r and name in SEARCH_FILES:
            cell = (r["known"], r["wr"], r["variant"], r["ablation"])
            groups.setdefault(cell, {})[f"seed {r['seed']}"] = float(r["final_objective"])
            group_readings.setdefault(cell, {})[f"seed {r['seed']}"] = _best(r["mapping_best"])
    out = []
    for name, label, r, right in records:
        folder = dataset_dir(r["known"], r["wr"], GOTHIC_CACHE)
        if not (folder / "lost.csv").exists():
            print(f"skipped {label}: {folder} not built (python -m benchmarks.gothic builds it)", file=sys.stderr)
            continue
        best = _best(r["mapping_best"])
        vowels, shares = vowels_of(folder)
        finding, values = class_finding_of(best, vowels or (), shares)
        findings = [finding] if finding else []
        seeds = groups.get((r.get("known"), r.get("wr"), r.get("variant"), r.get("ablation")), {}) \
            if name in SEARCH_FILES else {}
        others = {k: v for k, v in seeds.items() if k != f"seed {r.get('seed')}"}
        if others:
            from engine.training.diagnosis import agreement_finding, objective_finding

            f2, _ = objective_finding(float(r["final_objective"]), others)
            if f2:
                findings.append(f2)
            readings = group_readings[(r["known"], r["wr"], r["variant"], r["ablation"])]
            f3, _ = agreement_finding(best, shares, {k: v for k, v in readings.items() if k != f"seed {r['seed']}"})
            if f3:
                findings.append(f3)
        out.append({"source": "gothic", "file": name, "run": label, "letters_right": right,
                    "p_at_10": r.get("p_at_10"), "class_mismatch": int(values.get("diagnosis_class_mismatch", 0)),
                    "class_share": round(values.get("diagnosis_class_share", 0.0), 3),
                    "flagged": any(f.flag for f in findings), "findings": [f.text for f in findings],
                    "failed": right < 13})
    return out


def _best(mapping_best: str) -> dict[str, str]:
    """A result file's ``mapping_best`` ("a>a b>p …") as letter -> unit."""
    return dict(pair.split(">", 1) for pair in mapping_best.split())


def objective_rows(source: str, runs: Sequence[tuple[str, float, float]], bar: float,
                   readings: dict[str, dict[str, str]] | None = None,
                   shares: dict[str, float] | None = None) -> list[dict]:
    """``runs``: (label, final objective, P@1) of the seeds of one setting; each run's objective
    finding against the others, and with ``readings`` (label -> letter -> unit) and ``shares`` its
    readings finding too."""
    from engine.training.diagnosis import agreement_finding, objective_finding

    out = []
    for label, objective, p1 in runs:
        others = {lab: obj for lab, obj, _ in runs if lab != label}
        finding, values = objective_finding(objective, others)
        findings = [finding] if finding else []
        if readings and label in readings:
            f2, _ = agreement_finding(readings[label], shares or {},
                                      {k: v for k, v in readings.items() if k != label})
            if f2:
                findings.append(f2)
        out.append({"source": source, "run": label, "objective": round(objective, 4), "p_at_1": round(p1, 4),
                    "objective_gap": round(values.get("diagnosis_objective_gap", 0.0), 4),
                    "flagged": any(f.flag for f in findings), "findings": [f.text for f in findings],
                    "failed": p1 < bar})
    return out


def ugaritic_shares() -> dict[str, float] | None:
    """Each Ugaritic letter's share of the full set's text (None without ../shared)."""
    from collections import Counter

    from benchmarks.ugaritic import FILES, SHARED

    if not (SHARED / FILES["full"]).exists():
        return None
    from engine.io.cog import read_cog

    from engine.corpus import DIVIDER

    counts = Counter(u for ins in read_cog(SHARED / FILES["full"]).inscriptions for u in ins.units if u != DIVIDER)
    total = sum(counts.values())
    return {u: n / total for u, n in counts.items()}


def ugaritic_rows() -> list[dict]:
    rows = []
    full = {r["seed"]: r for r in _jsonl(RESULTS / "ugaritic-candidate-stems" / "full-k1-mappings.jsonl")}
    runs, readings = [], {}
    for seed, m in sorted(full.items()):
        path = RESULTS / "ugaritic-candidate-stems" / f"full-k1-s{seed}.json"
        if path.exists() and "final_objective" in m:
            runs.append((f"full k1 seed {seed}", float(m["final_objective"]),
                         float(json.loads(path.read_text(encoding="utf-8"))["p_at_1"])))
            readings[f"full k1 seed {seed}"] = _best(m["mapping_best"])
    shares = ugaritic_shares()
    rows += objective_rows("ugaritic-full", runs, 0.70, readings if shares else None, shares)
    small = RESULTS / "ugaritic-small-seeds" / "results.csv"
    if small.exists():
        with open(small, encoding="utf-8", newline="") as f:
            runs = [(f"small seed {r['seed']}", float(r["objective"]), float(r["p_at_1"])) for r in csv.DictReader(f)
                    if r["status"] == "completed"]
        rows += objective_rows("ugaritic-small", runs, 0.80)
    return rows


def linear_b_rows() -> list[dict]:
    rows = []
    records = _jsonl(RESULTS / "syllables" / "linear-b.jsonl")
    # the seeds of one setting: the same file, variant and length (an 8,000-step run's objective is not
    # comparable with a 3,000-step one's)
    for key in sorted({(r["file"], r["variant"], int(r["steps"])) for r in records}):
        runs = [(f"{key[0]} {key[1]} {key[2]} steps seed {r['seed']}", float(r["objective"]), float(r["p_at_1"]))
                for r in records if (r["file"], r["variant"], int(r["steps"])) == key and "objective" in r]
        rows += objective_rows("linear-b", runs, LINEAR_B_BAR)
    return rows


def summary(rows: Sequence[dict], source: str) -> dict:
    failed = [r for r in rows if r["failed"]]
    fine = [r for r in rows if not r["failed"]]
    return {"summary": source, "runs": len(rows), "failed": len(failed),
            "hits": sum(r["flagged"] for r in failed), "misses": sum(not r["flagged"] for r in failed),
            "false_alarms": sum(r["flagged"] for r in fine), "succeeded": len(fine)}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.search_diagnosis", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=RESULTS / "search" / "diagnosis.jsonl")
    args = p.parse_args(argv)
    rows = gothic_rows() + ugaritic_rows() + linear_b_rows()
    sources = sorted({r["source"] for r in rows})
    lines = rows + [summary([r for r in rows if r["source"] == s], s) for s in sources] + [summary(rows, "all")]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    for x in lines[len(rows):]:
        print(json.dumps(x))
    return 0


if __name__ == "__main__":
    sys.exit(main())
