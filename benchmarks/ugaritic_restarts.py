"""Full Ugaritic with candidate_stems = 1 and restarts = 2, composed from the two starts run separately.

    python -m benchmarks.ugaritic_restarts --second RUNS.jsonl [RUNS.jsonl ...] \
        --out benchmarks/results/ugaritic-candidate-stems/full-k1-restarts2.jsonl

A run with ``restarts = 2`` and ``restart_fraction = 1`` trains start 0 (the run's own seed) and
start 1 (the seed ``engine.training.restarts.start_seeds`` derives from it) for the whole run each,
and keeps the one whose final objective over the corpus is lower; the kept start's run is exactly
the single run of its seed (tests/engine/test_restarts.py,
``test_the_kept_start_is_the_lowest_and_its_run_is_the_single_run_of_its_seed``). So the choice can
be made from two single runs: start 0 of seeds 0-4 is ``full-k1-s[0-4].json`` (their objectives from
``full-k1-seeds-consensus.json``), start 1 is any ``metrics.json`` row of a run of the derived seed
(``--second``: JSON lines, e.g. ``full-k1-start1-h100.jsonl``). The second starts may have been
trained on another device; each row says where.

One row per seed 0-4: both starts' P@1, P@10, objective and device (``start0_*``, ``start1_*``), the
start kept (the lower objective; none while start 1 was not run), the kept P@1 and P@10 and whether that
P@1 reaches issue 30's bar 0.70 (gold only for the report).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "benchmarks" / "results" / "ugaritic-candidate-stems"


def compose(first: dict[int, dict], second: dict[int, dict], seeds) -> list[dict]:
    from engine.training.restarts import start_seeds

    rows = []
    for seed in seeds:
        derived = start_seeds(seed, 2)[1]
        a, b = first[seed], second.get(derived)
        row = {"seed": seed, "start1_seed": derived}
        row.update({f"start0_{k}": a[k] for k in ("p_at_1", "p_at_10", "objective", "device")})
        if b is None:
            row.update(start1_run=False, kept=None, p_at_1=None)
        else:
            row.update({f"start1_{k}": b[k] for k in ("p_at_1", "p_at_10", "objective", "device")})
            kept = 1 if b["objective"] < a["objective"] else 0
            row.update(start1_run=True, kept=kept, p_at_1=(b if kept else a)["p_at_1"],
                       p_at_10=(b if kept else a)["p_at_10"], objective=min(a["objective"], b["objective"]),
                       at_least_070=(b if kept else a)["p_at_1"] >= 0.70)
        rows.append(row)
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--second", type=Path, nargs="+", required=True, help="metrics rows of second starts (JSON lines)")
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    consensus = json.loads((FOLDER / "full-k1-seeds-consensus.json").read_text())
    first = {}
    for seed in consensus["seeds"]:
        m = json.loads((FOLDER / f"full-k1-s{seed}.json").read_text())
        first[seed] = {"p_at_1": m["p_at_1"], "p_at_10": m["p_at_10"], "device": m["device"],
                       "objective": consensus["objective"][str(seed)]}
    second = {}
    for path in args.second:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            m = json.loads(line)
            obj = m.get("final_objective", m.get("objective"))
            if obj is None:
                print(f"error: {path}:{n}: the run has no final objective", file=sys.stderr)
                return 2
            second[int(m["seed"])] = {"p_at_1": m["p_at_1"], "p_at_10": m["p_at_10"], "objective": obj,
                                      "device": m["device"]}
    rows = compose(first, second, consensus["seeds"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for r in rows:
        print(f"seed {r['seed']}: start 0 P@1 {r['start0_p_at_1']:.3f} obj {r['start0_objective']:.3f} "
              f"({r['start0_device']}); start 1 " + (
                  f"P@1 {r['start1_p_at_1']:.3f} obj {r['start1_objective']:.3f} ({r['start1_device']}); "
                  f"kept {r['kept']}: P@1 {r['p_at_1']:.3f}" if r["start1_run"] else "not run"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
