"""The early stop of settled null runs (issue 31 item 3; docs/closeness.md "Early stop"), measured on the
synthetic comparisons of benchmarks/closeness_synthetic.py: every comparison is run twice, with every run
trained to its end (its null runs' scores recorded at the early stop's checkpoints, never stopped) and with
the early stop on, and the verdicts, the runs stopped, the steps saved and both wall times are written side
by side. From the full runs' checkpoint scores it also measures how much a null's score still rises after
each checkpoint, and what the rule would have stopped, and whether a verdict would have changed, at other gaps
(a stopped run's score is its checkpoint score, which the early arm checks against its own runs).

    OMP_NUM_THREADS=1 python -m benchmarks.closeness_early_stop --gap 0.1 --out benchmarks/results

writes closeness-early-stop.csv (one row per comparison and candidate), closeness-early-stop-rises.csv (one
row per null run and checkpoint), closeness-early-stop-gaps.csv (the rule at other gaps, from the full runs)
and closeness-early-stop.jsonl (one line per comparison, with the command and the commit).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from benchmarks.closeness_synthetic import CONFIG, phonotactic_setting, setting
from benchmarks.commit import short_commit
from engine.closeness.comparison import Comparison, compare, early_stop_unsure, summarise
from engine.closeness.early_stop import checkpoint_steps
from engine.config import Config

#: The comparisons measured: (name, builder, cipher seed).
SETTINGS = {
    "synthetic-2": (setting, 2),
    "synthetic-3": (setting, 3),
    "synthetic-4": (setting, 4),
    "phonotactic-2": (phonotactic_setting, 2),
    "phonotactic-3": (phonotactic_setting, 3),
}
GAPS = (0.02, 0.05, 0.1, 0.15, 0.2)


def simulate(full: Comparison, gap: float) -> tuple[Comparison, int, int]:
    """What the rule at ``gap`` makes of the full comparison: each null run stops at its first checkpoint
    whose score is at least ``gap`` below every seed of its candidate (its score is then that checkpoint's,
    as a stopped run's is); (comparison, runs stopped, null steps saved)."""
    own: dict[str, list[float]] = {}
    for r in full.records:
        if r.item.null is None:
            own.setdefault(r.item.known, []).append(r.score)
    n_seeds = len(full.plan.seeds)
    out, stopped, saved = [], 0, 0
    for r in full.records:
        scores = own.get(r.item.known, [])
        if r.item.null is not None and len(scores) >= n_seeds:
            at = next(((s, v) for s, v in r.result.checkpoints if min(scores) - v >= gap), None)
            if at is not None:
                stopped += 1
                saved += r.item.config.steps - at[0]
                r = replace(r, score=at[1], result=replace(r.result, stopped_at=at[0], steps=at[0]))
        out.append(r)
    plan = replace(full.plan, early_stop=gap)
    return summarise(plan, out), stopped, saved


def measure(name: str, *, gap: float, steps: int, seeds: Sequence[int], n_null: int, out: Path | None,
            log=print) -> dict:
    build, cipher_seed = SETTINGS[name]
    built = build(cipher_seed=cipher_seed)
    corpus, candidates = (built[0].corpus, built[1]) if name.startswith("synthetic") else built
    cfg = Config(**{**CONFIG, "steps": steps, "anneal_steps": int(steps * 0.6)})
    arms = {}
    for arm, kwargs in (("full", dict(early_stop=0.0, observe=True)), ("early", dict(early_stop=gap))):
        t0 = time.perf_counter()
        c = compare(corpus, candidates, seeds=seeds, n_null=n_null, config=cfg, plot=False,
                    out=None if out is None else out / name / arm, **kwargs)
        arms[arm] = (c, time.perf_counter() - t0)
        log(f"{name} {arm}: {arms[arm][1]:.1f} s")
    full, wall_full = arms["full"]
    early, wall_early = arms["early"]
    sim, sim_stopped, sim_saved = simulate(full, gap)
    # the early arm's stopped runs must score what the full runs scored at that checkpoint
    at = {r.item.key: dict(r.result.checkpoints) for r in full.records}
    mismatch = [r.item.key for r in early.records if r.result.stopped_at is not None
                and abs(at[r.item.key].get(r.result.stopped_at, math.nan) - r.score) > 1e-9]
    rows = []
    by_early = {s.known: s for s in early.summaries}
    for s in full.summaries:
        e = by_early[s.known]
        nulls = [r for r in early.records if r.item.known == s.known and r.item.null is not None]
        stopped = [r for r in nulls if r.result.stopped_at is not None]
        rows.append({
            "comparison": name, "known": s.known, "gap": gap, "steps": steps, "seeds": len(seeds), "nulls": n_null,
            "verdict_full": s.verdict, "verdict_early": e.verdict, "same": s.verdict == e.verdict,
            "score_mean": round(s.score_mean, 6), "null_mean_full": round(s.null_mean, 6),
            "null_mean_early": round(e.null_mean, 6), "margin_full": round(s.margin, 6),
            "margin_early": round(e.margin, 6), "p_holm_full": round(s.p_holm, 6), "p_holm_early": round(e.p_holm, 6),
            "null_runs": len(nulls), "stopped": len(stopped),
            "stopped_at": " ".join(str(x) for x in sorted({r.result.stopped_at for r in stopped})),
            "null_steps_planned": sum(r.item.config.steps for r in nulls),
            "null_steps_saved": sum(r.item.config.steps - r.result.stopped_at for r in stopped),
            "wall_full_s": round(wall_full, 1), "wall_early_s": round(wall_early, 1),
            "train_full_s": round(sum(r.result.wall_s for r in full.records), 1),
            "train_early_s": round(sum(r.result.wall_s for r in early.records), 1),
            "unsure_early": s.known in early_stop_unsure(early),
        })
    rises = []
    own = {}
    for r in full.records:
        if r.item.null is None:
            own.setdefault(r.item.known, []).append(r.score)
    for r in full.records:
        if r.item.null is None:
            continue
        for step, v in r.result.checkpoints:
            rises.append({"comparison": name, "known": r.item.known, "null": r.item.null, "seed": r.item.seed,
                          "checkpoint": step, "steps": r.item.config.steps, "score_at": round(v, 6),
                          "score_end": round(r.score, 6), "rise": round(r.score - v, 6),
                          "below_candidate": round(min(own[r.item.known]) - v, 6)})
    gaps = []
    for g in sorted(set(GAPS) | {gap}):
        c, n, saved = simulate(full, g)
        verdicts = {s.known: s.verdict for s in c.summaries}
        planned = sum(r.item.config.steps for r in full.records if r.item.null is not None)
        gaps.append({"comparison": name, "gap": g, "stopped": n,
                     "null_runs": sum(1 for r in full.records if r.item.null is not None),
                     "null_steps_saved": saved, "null_steps_planned": planned,
                     "verdicts_same": all(verdicts[s.known] == s.verdict for s in full.summaries),
                     "changed": " ".join(f"{s.known}: {s.verdict} -> {verdicts[s.known]}" for s in full.summaries
                                         if verdicts[s.known] != s.verdict)})
    by_step: dict[int, list[float]] = {}
    for r in rises:
        by_step.setdefault(r["checkpoint"], []).append(r["rise"])
    rise_summary = {str(k): {"n": len(v), "max": max(v), "mean": round(sum(v) / len(v), 6), "min": min(v)}
                    for k, v in sorted(by_step.items())}
    return {"comparison": name, "gap": gap, "rises_after_checkpoint": rise_summary, "steps": steps, "seeds": list(seeds), "nulls": n_null,
            "checkpoints": list(checkpoint_steps(steps)), "wall_full_s": round(wall_full, 1),
            "wall_early_s": round(wall_early, 1), "early_matches_simulation":
                [s.verdict for s in sim.summaries] == [s.verdict for s in early.summaries] and sim_stopped ==
                sum(1 for r in early.records if r.result.stopped_at is not None) and not mismatch,
            "rows": rows, "rises": rises, "gaps": gaps}


def _write_csv(path: Path, rows: list[dict]) -> None:
    import csv

    if not rows:
        return
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--comparisons", nargs="+", default=["synthetic-2", "phonotactic-2", "synthetic-3"],
                    choices=sorted(SETTINGS))
    ap.add_argument("--gap", type=float, default=0.15)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--null", type=int, default=3)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    ap.add_argument("--runs", type=Path, help="also keep every comparison's files (runs.csv, answer.txt, …) here")
    ap.add_argument("--prefix", default="closeness-early-stop")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    command = "python -m benchmarks.closeness_early_stop " + " ".join(argv if argv is not None else sys.argv[1:])
    results = []
    for name in args.comparisons:
        res = measure(name, gap=args.gap, steps=args.steps, seeds=args.seeds, n_null=args.null, out=args.runs,
                      log=lambda line: print(line, file=sys.stderr))
        res.update(command=command, commit=short_commit(), cpu=os.cpu_count())
        results.append(res)
        # written after every comparison, so an interrupted measurement keeps what finished
        _write_csv(args.out / f"{args.prefix}.csv", [r for x in results for r in x["rows"]])
        _write_csv(args.out / f"{args.prefix}-rises.csv", [r for x in results for r in x["rises"]])
        _write_csv(args.out / f"{args.prefix}-gaps.csv", [r for x in results for r in x["gaps"]])
        with open(args.out / f"{args.prefix}.jsonl", "w", encoding="utf-8") as f:
            for x in results:
                f.write(json.dumps({k: v for k, v in x.items() if k not in ("rises",)}, ensure_ascii=False) + "\n")
        for r in res["rows"]:
            print(f"{name} {r['known']}: {r['verdict_full']} / {r['verdict_early']}, stopped {r['stopped']} of "
                  f"{r['null_runs']}, steps saved {r['null_steps_saved']} of {r['null_steps_planned']}, "
                  f"wall {r['wall_full_s']} / {r['wall_early_s']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
