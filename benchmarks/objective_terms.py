"""Which term of the objective prefers the wrong mapping (issue 30, item 2)? The gold-free final
objective of the Gothic base runs that fail (WR 100 %, seed 0, the paper's settings) against the
objective of the right mapping on the same data, term by term. Nothing is trained here: both runs'
terms are already in the result files.

    python -m benchmarks.objective_terms --out benchmarks/results/search/objective-terms.jsonl

* the right mapping: the unpinned run started from the full-prior run's mapping, which keeps most of
  it (benchmarks/results/gothic-warmstart.jsonl, ``donor`` = the target language);
* the learned mapping: the base run of the paper's settings (gothic-mapping-diagnosis.jsonl, the row
  that records the final objective's terms).

The objective is ``-quality_weight x quality + coverage_weight x max(target - coverage, 0) +
sound_loss_weight x Omega_loss + pins`` over the corpus (engine/training/final_objective.py), at the
run's last step (coverage target ``coverage_end``). Each row gives every weighted term, and the
quality per covered letter (quality / coverage): the quality term sums the matched spans' rewards over
all the text's letters, so a mapping can raise it by matching more of the text as well as by matching
it better.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine.config import Config

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def _rows(name: str) -> list[dict]:
    path = RESULTS / name
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _one(rows: list[dict], where: dict, name: str) -> dict:
    found = [r for r in rows if all(r.get(k) == v for k, v in where.items())]
    if len(found) != 1:
        raise ValueError(f"{name}: {len(found)} rows where {where}, expected 1")
    return found[0]


def terms(quality: float, coverage: float, sound: float, config: Config) -> dict:
    """The objective's weighted terms at the end of a run of ``config`` (no pins)."""
    step = config.steps
    q = -config.quality_weight * quality
    c = config.coverage_weight * max(config.coverage_target(step) - coverage, 0.0)
    s = config.sound_loss_weight * sound
    return {"quality": quality, "coverage": coverage, "quality_term": q, "coverage_term": c, "sound_term": s,
            "objective": q + c + s, "quality_per_covered": quality / coverage if coverage else float("nan"),
            "coverage_target": config.coverage_target(step)}


def measure() -> list[dict]:
    cfg = Config(steps=3000, insertion_cost_start=0.0, insertion_cost_end=3.5)   # the runs' schedule 0-3.5
    warm, diag = _rows("gothic-warmstart.jsonl"), _rows("gothic-mapping-diagnosis.jsonl")
    out = []
    for known in ("on", "oe"):
        right = _one(warm, {"run": "target", "known": known, "donor": known, "wr": "1", "seed": 0},
                     "gothic-warmstart.jsonl")
        learned = _one([r for r in diag if r.get("final_quality") is not None],
                       {"known": known, "wr": "1", "variant": "base", "seed": 0}, "gothic-mapping-diagnosis.jsonl")
        for mapping, row, recorded in (("right", right, right["final_objective_without_pins"]),
                                       ("learned", learned, learned["final_objective"])):
            t = terms(row["final_quality"], row["final_coverage_ratio"], row.get("final_sound_loss", 0.0), cfg)
            out.append({"known": known, "wr": "1", "seed": 0, "mapping": mapping, "p_at_10": row["p_at_10"],
                        **t, "objective_recorded": recorded,
                        # the recorded terms are rounded to 4 decimals (Omega_loss per letter to 0): the
                        # recorded objective less the quality and coverage terms is Omega's term, give or
                        # take the quality's rounding (quality_weight x 0.00005)
                        "remainder": recorded - t["quality_term"] - t["coverage_term"]})
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.objective_terms", description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=RESULTS / "search" / "objective-terms.jsonl")
    args = p.parse_args(argv)
    try:
        rows = measure()
    except (OSError, ValueError, KeyError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for r in rows:
        print(f"{r['known']} {r['mapping']:8s} objective {r['objective']:+.4f} (recorded {r['objective_recorded']:+.4f}): "
              f"quality term {r['quality_term']:+.4f}, coverage term {r['coverage_term']:+.4f} "
              f"(coverage {r['coverage']:.4f}, target {r['coverage_target']:.2f}), remainder (Omega) {r['remainder']:+.4f}; "
              f"quality per covered letter {r['quality_per_covered']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
