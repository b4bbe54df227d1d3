"""What building the trainer's optimiser costs a fresh process: the engine's own SGD (engine/training/sgd.py)
against torch.optim.SGD, which imports torch._dynamo on its first use.

Each repeat starts two fresh Python processes, one per optimiser, in alternating order; each imports the
engine, then times building a Trainer on a small synthetic cipher (the optimiser among the rest) and one
training step. The row gives every repeat's seconds, their medians and the median of the per-repeat
differences, measured side by side on the same box.

    python -m benchmarks.experiments.optimizer_start --repeats 7 --out benchmarks/results/speed/optimizer-start.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

from benchmarks.experiments.syllable_objective import ROOT, finish_row

CHILD = """
import json, sys, time
from engine.config import Config
from engine.datasets.synthetic import make_cipher
import engine.training.trainer as tr
import torch
if sys.argv[1] == "torch":
    tr.SGD = lambda params, lr: torch.optim.SGD(params, lr=lr)
c = make_cipher(n_stems=12, n_inscriptions=10, seed=2)
cfg = Config(feature_dim=8, steps=1, anneal_steps=1, eval_interval=0, seed=0)
t0 = time.perf_counter()
t = tr.Trainer(c.corpus, c.vocabulary, cfg, live_interval=None)
for _ in t.run():
    pass
print(json.dumps({"seconds": time.perf_counter() - t0, "dynamo": "torch._dynamo" in sys.modules}))
"""


def one(kind: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, kind], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"})
    if proc.returncode != 0:
        raise SystemExit(f"optimizer_start: the {kind} process failed: {proc.stderr.strip().splitlines()[-1:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    if args.repeats < 1:
        ap.error("--repeats: 1 or more")
    ours, theirs = [], []
    for i in range(args.repeats):
        for kind in (("ours", "torch") if i % 2 == 0 else ("torch", "ours")):
            r = one(kind)
            (ours if kind == "ours" else theirs).append(r)
    if any(r["dynamo"] for r in ours) or not all(r["dynamo"] for r in theirs):
        raise SystemExit("optimizer_start: torch._dynamo was imported where it should not be, or not where it should")
    a, b = [r["seconds"] for r in ours], [r["seconds"] for r in theirs]
    finish_row({"repeats": args.repeats, "ours_s": a, "torch_s": b, "ours_median_s": statistics.median(a),
                "torch_median_s": statistics.median(b),
                "difference_median_s": statistics.median(y - x for x, y in zip(a, b))},
               "optimizer_start", argv, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
