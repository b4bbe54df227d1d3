"""Peak memory of a run against the letters of its corpus, for the memory estimate made before training
(issue 28 item 4; engine/model/prepared.py ``memory_estimate``). Each size runs in its own process:
a corpus of L letters (one inscription, or K inscriptions), the Gothic-PG stems
(benchmarks/.cache/gothic-pgm-wr0), building the trainer, one training step and one evaluation.

    python -m benchmarks.experiments.memory_scaling --letters 20000 100000 400000 --inscriptions 1 1000

Writes JSON lines to benchmarks/results/memory-scaling.jsonl (--out): the peak RSS (ru_maxrss) after
the inscriptions exist, after the trainer is built, after a step and after an evaluation. The bytes per
letter the estimate uses are the largest (peak - before) / letters measured here.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def child(letters: int, inscriptions: int) -> dict:
    import torch

    torch.set_num_threads(1)
    from engine.config import Config
    from engine.corpus import Corpus, Inscription, Vocabulary
    from engine.io.tables import read_known
    from engine.model.objective import batch_objective
    from engine.model.scoring import make_batch
    from engine.training.trainer import Trainer

    known = read_known(ROOT / "benchmarks" / ".cache" / "gothic-pgm-wr0" / "known.csv")
    rng = random.Random(0)
    per = letters // inscriptions
    corpus = Corpus("c", tuple(Inscription(f"I{i}", "".join(rng.choice("abcdefghiklmnopqrstuwxyz")
                                                              for _ in range(per))) for i in range(inscriptions)))
    before = _rss()
    t0 = time.perf_counter()
    trainer = Trainer(corpus, Vocabulary("pg", tuple(known)), Config(seed=0, eval_interval=0), live_interval=None)
    built = _rss()
    batch = make_batch(trainer.prep, trainer.sampler.next_batch())
    batch_objective(trainer.model, trainer.prep, batch, 0, trainer._pin_index, trainer._units,
                    trainer._lens).loss.backward()
    stepped = _rss()
    trainer.evaluate()
    evaluated = _rss()
    return {"letters": per * inscriptions, "inscriptions": inscriptions, "stems": len(known),
            "rss_before": before, "rss_built": built, "rss_step": stepped, "rss_eval": evaluated,
            "bytes_per_letter": (evaluated - before) / (per * inscriptions), "wall_s": time.perf_counter() - t0}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--letters", type=int, nargs="+", default=[20000, 100000, 400000])
    p.add_argument("--inscriptions", type=int, nargs="+", default=[1, 1000])
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "memory-scaling.jsonl")
    p.add_argument("--child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0
    env = {**os.environ, "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    with open(args.out, "a", encoding="utf-8") as f:
        for k in args.inscriptions:
            for n in args.letters:
                out = subprocess.run([sys.executable, "-m", "benchmarks.experiments.memory_scaling", "--child", str(n), str(k)],
                                     cwd=ROOT, env=env, capture_output=True, text=True)
                if out.returncode != 0:
                    print(out.stderr[-2000:], file=sys.stderr)
                    return 1
                row = json.loads(out.stdout.strip().splitlines()[-1])
                f.write(json.dumps(row) + "\n")
                f.flush()
                print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
