"""The real-data quality floor that every test run checks (tests/quality/test_quality_floor.py):
a short Ugaritic small-set run, and what a broken edit DP does to it.

    python -m benchmarks.quality_floor --out benchmarks/results/quality-floor.jsonl

writes one JSON line per variant: ``untrained`` (the model before its first step), ``trained``
(today's code), ``trained-scored-with-broken-dp`` (that model scored with the edit DP's scores
attached to the wrong stems, an indexing bug: ``engine.model.scoring._dp``'s output reversed along the
stem axis) and ``broken-dp`` (trained and scored with that DP). The test asserts the floor on
``trained`` and that ``trained-scored-with-broken-dp`` falls below it; training with the broken DP
is measured here only (it would double the test's time). One torch thread, seed 0: the numbers are the same on every run of one
machine. Needs ``../shared/data/ugaritic_hebrew/``.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Iterator, Sequence

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
COG = ("ugaritic_hebrew", "uga-heb.small.no_spe.cog")

#: The short run: the paper's Ugaritic settings, 150 steps with the insertion cost annealed over 100.
STEPS, ANNEAL_STEPS, SEED = 150, 100, 0
#: What today's code must reach: about two thirds of what it reaches (P@1 and P@10 of the
#: ``trained`` line of benchmarks/results/quality-floor.jsonl), far above the untrained model and
#: the broken DP (the other lines; docs/testing.md quotes them).
FLOOR = {"p_at_1": 0.13, "p_at_10": 0.22}


@contextlib.contextmanager
def broken_dp() -> Iterator[None]:
    """Every edit-DP result reversed along its stem axis while inside: each stem is scored with
    another stem's log P(span | stem), as an off-by-one in the stem index would."""
    from engine.model import scoring

    real = scoring._dp

    def wrong_stems(*args, **kwargs):
        return real(*args, **kwargs).flip(0)

    scoring._dp = wrong_stems
    try:
        yield
    finally:
        scoring._dp = real


def make_trainer(cog_path: Path, steps: int = STEPS, anneal_steps: int = ANNEAL_STEPS, seed: int = SEED):
    from engine.config import UGARITIC, Config
    from engine.corpus import Corpus, Vocabulary
    from engine.io.cog import read_cog
    from engine.training.trainer import Trainer

    cog = read_cog(cog_path)
    config = Config(**UGARITIC, steps=steps, anneal_steps=anneal_steps, eval_interval=0, seed=seed)
    return Trainer(Corpus("uga", tuple(cog.inscriptions)), Vocabulary("heb", tuple(cog.stems)), config,
                   gold=cog.gold, live_interval=None)


def train(trainer) -> dict:
    for _ in trainer.run():
        pass
    return dict(trainer.last_evaluation.metrics)


def below_floor(metrics: dict) -> list[str]:
    """The floor's keys the metrics do not reach, e.g. ['p_at_1 0.041 < 0.13']."""
    return [f"{k} {metrics[k]:.3f} < {v}" for k, v in FLOOR.items() if metrics[k] < v]


def measure(cog_path: Path) -> list[dict]:
    import torch

    torch.set_num_threads(1)
    rows = []
    trained = None
    for variant in ("untrained", "trained", "trained-scored-with-broken-dp", "broken-dp"):
        t0 = time.process_time()
        if variant == "trained-scored-with-broken-dp":   # what the test checks: the trained model, broken scoring
            with broken_dp():
                metrics = dict(trained.evaluate().metrics)
        else:
            trainer = make_trainer(cog_path)
            if variant == "untrained":
                metrics = dict(trainer.evaluate().metrics)
            elif variant == "trained":
                metrics = train(trainer)
                trained = trainer
            else:
                with broken_dp():
                    metrics = train(trainer)
        rows.append({"variant": variant, "steps": 0 if variant == "untrained" else STEPS,
                     "anneal_steps": ANNEAL_STEPS, "seed": SEED, "torch_threads": 1,
                     **{k: round(float(v), 4) for k, v in metrics.items() if k.startswith("p_at_")},
                     "below_floor": below_floor(metrics), "cpu_s": round(time.process_time() - t0, 1)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", type=Path, default=SHARED.joinpath(*COG), help="the small .cog file")
    p.add_argument("--out", type=Path, help="append the JSON lines here")
    a = p.parse_args(argv)
    if not a.data.exists():
        print(f"quality_floor: {a.data}: file not found (needs ../shared/data)", file=sys.stderr)
        return 2
    rows = measure(a.data)
    if a.out:
        with open(a.out, "a", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
