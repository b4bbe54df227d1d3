"""Ugaritic–Hebrew decipherment quality (the paper's Table 3 comparison), over several seeds.

    python -m benchmarks.ugaritic --data small --variant base --seeds 0 1 2 3 4 --out benchmarks/results
    python -m benchmarks.ugaritic --data full --variant base --seeds 0
    python -m benchmarks.ugaritic --data full --score-checkpoints benchmarks/results/ugaritic-small-base-seed*.pt

Data: ../shared/data/ugaritic_hebrew (Snyder et al. 2010, via NeuroDecipher). ``small`` is the
subset NeuroCipher was trained and scored on (735 Ugaritic words, 4,103 Hebrew forms, 221 with
cognates), which the paper's Ugaritic config also names (``uga.real.small``); ``full`` is every
word (7,235 Ugaritic, 39,451 Hebrew forms, 2,182 with cognates). Settings: the paper's Ugaritic
ones (engine.config.UGARITIC: whole words, spans 3–10, feature size 35, gamma 10 -> 3.5), 3,000
steps. ``base`` pins nothing; ``full`` pins every Ugaritic letter to the Hebrew sound it regularly
corresponds to (benchmarks/ugaritic_full_prior.csv).

P@K counts every gold row (a Ugaritic word with Hebrew cognates); words outside 3–10 letters,
which no span can cover, count as misses. Both score normalisations are reported.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("DECIPHER_SHARED_DATA", ROOT.parent / "shared" / "data")) / "ugaritic_hebrew"
FILES = {"small": "uga-heb.small.no_spe.cog", "full": "uga-heb.no_spe.cog"}
FULL_PRIOR = Path(__file__).with_name("ugaritic_full_prior.csv")


def _data(data: str):
    from engine.corpus import Corpus, Vocabulary
    from engine.io.cog import read_cog

    cog = read_cog(SHARED / FILES[data])
    return cog, Corpus("ugaritic", tuple(cog.inscriptions)), Vocabulary("hebrew", tuple(cog.stems))


def score(trainer, gold) -> dict:
    """P@1/3/5/10 under both normalisations, and P@1 over the words a span can cover."""
    from engine.training.evaluation import evaluate

    config = trainer.prep.config
    evaluable = [i for i, g in enumerate(gold) if config.min_span <= g.word_end <= config.max_span]
    result = {}
    for norm in ("span", "stem"):
        trainer.prep.config = config.replace(score_normalisation=norm)
        ev = evaluate(trainer.model, trainer.prep, gold, step=trainer.step, device=trainer.device)
        for k in (1, 3, 5, 10):
            result[f"p_at_{k}_{norm}"] = round(ev.metrics[f"p_at_{k}"], 4)
        result[f"p_at_1_{norm}_evaluable"] = round(
            sum(1 for i in evaluable if ev.gold_ranks[i] == 1) / len(evaluable), 4)
    trainer.prep.config = config
    result["n_evaluable"] = len(evaluable)
    return result


def run_seed(data: str, variant: str, seed: int, steps: int, device: str, out: Path, checkpoint: bool = True) -> dict:
    from engine.runs.outputs import peak_memory_mb
    from engine.config import UGARITIC, Config
    from engine.io.tables import read_prior
    from engine.training.trainer import Trainer

    cog, corpus, vocab = _data(data)
    pins = read_prior(FULL_PRIOR) if variant == "full" else []
    config = Config(**UGARITIC, steps=steps, seed=seed, device=device, eval_interval=0)
    trainer = Trainer(corpus, vocab, config, gold=cog.gold, pins=pins, live_interval=None)
    t0 = time.perf_counter()
    for _ in trainer.run():
        pass
    wall = time.perf_counter() - t0
    result = {"data": data, "variant": variant, "seed": seed, "steps": trainer.step, "wall_time_s": round(wall, 1),
              "steps_per_s": round(trainer.step / wall, 2), "device": str(trainer.device),
              "n_gold": len(cog.gold), "n_stems": trainer.prep.n_stems, "n_words": len(cog.inscriptions)}
    result.update(score(trainer, cog.gold))
    result["peak_memory_mb"] = round(peak_memory_mb(), 1)
    out.mkdir(parents=True, exist_ok=True)
    if checkpoint:
        trainer.save_checkpoint(out / f"ugaritic-{data}-{variant}-seed{seed}.pt")
    return result


def score_checkpoint(path: Path, data: str, device: str) -> dict:
    """A model trained by run_seed (on either set) scored on ``data``, without further training."""
    from engine.training.trainer import Trainer

    cog, corpus, vocab = _data(data)
    trainer = Trainer.from_checkpoint(path, corpus, vocab, gold=cog.gold, config_overrides={"device": device},
                                      live_interval=None)
    return {"checkpoint": path.name, "scored_on": data, "steps": trainer.step, "n_gold": len(cog.gold),
            "n_stems": trainer.prep.n_stems, **score(trainer, cog.gold)}


def summarise(results: list[dict]) -> dict:
    p1 = [r["p_at_1_span"] for r in results]
    return {"runs": len(p1), "best_p_at_1": max(p1), "mean_p_at_1": round(statistics.mean(p1), 4),
            "stdev_p_at_1": round(statistics.stdev(p1), 4) if len(p1) > 1 else 0.0,
            "min_p_at_1": min(p1), "median_wall_time_s": statistics.median(r["wall_time_s"] for r in results)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", choices=sorted(FILES), default="small")
    p.add_argument("--variant", choices=["base", "full"], default="base")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--device", default="auto")
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    p.add_argument("--no-checkpoint", action="store_true", help="do not keep the trained models")
    p.add_argument("--score-checkpoints", type=Path, nargs="+", metavar="PT",
                   help="score these saved models on --data instead of training (e.g. small-trained on full)")
    args = p.parse_args(argv)
    if not (SHARED / FILES[args.data]).exists():
        print(f"needs {SHARED / FILES[args.data]}", file=sys.stderr)
        return 2
    if args.score_checkpoints:
        for path in args.score_checkpoints:
            print(json.dumps(score_checkpoint(path, args.data, args.device)), flush=True)
        return 0
    results = []
    log = args.out / f"ugaritic-{args.data}-{args.variant}.jsonl"
    args.out.mkdir(parents=True, exist_ok=True)
    for seed in args.seeds:
        r = run_seed(args.data, args.variant, seed, args.steps, args.device, args.out, not args.no_checkpoint)
        results.append(r)
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps(r) + "\n")
        print(json.dumps(r), flush=True)
    print(json.dumps({"summary": summarise(results)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
