"""Quality, step time and memory as the known vocabulary grows (issue 15), with and without
``candidate_stems``.

Synthetic (seconds to minutes): a cipher of engine/synthetic.py (whole words, as Ugaritic) whose
vocabulary is the true stems plus M times as many random distractor stems of the same sound system:

    python -m benchmarks.vocab_scaling synthetic --multipliers 0 10 --candidate-stems 0 16 --seeds 0 1 2

Real: the small set's words and gold against its own stems plus stems drawn (seeded) from the full
set's vocabulary, up to each size (CSV files from ``decipher import-cog``; see docs/benchmarks.md):

    python -m benchmarks.vocab_scaling real --lost data/uga-small/lost.csv --gold data/uga-small/gold.csv \\
        --known data/uga-small/known.csv --extra-known data/uga-full/known.csv \\
        --sizes 4071 8000 16000 39216 --candidate-stems 0 4096 --steps 3000 --seeds 0

Each configuration runs in its own process (so its peak memory is its own) and prints one JSON
line: P@1, P@10, the gold-free final objective (engine/final_objective.py), the median
training-step time (all steps, and the steps after annealing, when candidate_stems has narrowed
to K), the final evaluation's time and peak RSS.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

#: The synthetic cipher: 30 true stems in 40 inscriptions of whole words (test size).
SYNTHETIC = dict(n_stems=30, n_inscriptions=40, seed=2, dividers=True, filler=(0, 0))
#: Settings for it: whole words as spans (as the Ugaritic preset), a small model.
SYNTHETIC_SETTINGS = dict(feature_dim=8, segmented=True, min_span=3, eval_interval=0)


def distractor_stems(true_forms, n: int, *, seed: int, stem_len: tuple[int, int] = (4, 6)):
    """``n`` random stems of the synthetic sound system, none of them one of ``true_forms``."""
    from engine.data import Stem
    from engine.synthetic import _word

    rng = random.Random(seed)
    seen = set(true_forms)
    out = []
    while len(out) < n:
        w = _word(rng, *stem_len)
        if w not in seen:
            seen.add(w)
            out.append(Stem(w, w))
    return out


def synthetic_problem(multiplier: int, *, distractor_seed: int = 100):
    """(corpus, vocabulary, gold) of the synthetic cipher with ``multiplier`` x distractor stems."""
    from engine.data import Vocabulary
    from engine.synthetic import make_cipher

    c = make_cipher(**SYNTHETIC)
    true = c.vocabulary.stems
    extra = distractor_stems([s.form for s in true], multiplier * len(true), seed=distractor_seed)
    return c.corpus, Vocabulary("synthetic+distractors", tuple(true) + tuple(extra)), c.gold


def real_problem(lost: Path, known: Path, gold: Path, extra_known: Path, size: int, *, seed: int = 0):
    """The small set's words against its stems plus stems of ``extra_known`` (seeded draw) up to ``size``."""
    from engine.data import Corpus, Vocabulary
    from engine.io.tables import read_gold, read_known, read_lost

    inscriptions = read_lost(lost)
    stems = read_known(known)
    have = {(s.form, s.ipa) for s in stems}
    pool = [s for s in read_known(extra_known) if (s.form, s.ipa) not in have]
    random.Random(seed).shuffle(pool)
    extra = pool[: max(0, size - len(stems))]
    return (Corpus("lost", tuple(inscriptions)), Vocabulary("known", tuple(stems) + tuple(extra)),
            list(read_gold(gold, inscriptions=inscriptions)))


def run_one(spec: dict) -> dict:
    """Train one configuration and measure it (in this process)."""
    import torch

    from engine.config import UGARITIC, Config
    from engine.evaluation import evaluate
    from engine.results import StepEvent
    from engine.run_outputs import peak_memory_mb
    from engine.training import Trainer

    torch.set_num_threads(spec.get("threads", 1))
    if spec["mode"] == "synthetic":
        corpus, vocab, gold = synthetic_problem(spec["multiplier"])
        settings = dict(SYNTHETIC_SETTINGS)
    else:
        corpus, vocab, gold = real_problem(Path(spec["lost"]), Path(spec["known"]), Path(spec["gold"]),
                                           Path(spec["extra_known"]), spec["size"], seed=spec["draw_seed"])
        settings = dict(UGARITIC, eval_interval=0)
    steps = spec["steps"]
    config = Config(**settings, steps=steps, anneal_steps=int(spec.get("anneal_fraction", 2 / 3) * steps),
                    seed=spec["seed"], candidate_stems=spec["candidate_stems"], device="cpu",
                    **({"candidate_start": spec["candidate_start"]} if "candidate_start" in spec else {}))
    trainer = Trainer(corpus, vocab, config, gold=gold, live_interval=None)
    times, last = [], 0.0
    narrowed_from = config.anneal_steps     # competition_size reaches K here (engine/candidate_stems.py)
    for event in trainer.run(steps):
        if isinstance(event, StepEvent):
            times.append(event.elapsed - last)
            last = event.elapsed
            if event.step >= steps:
                break
    from engine.final_objective import corpus_objective

    objective = corpus_objective(trainer)
    t0 = time.perf_counter()
    ev = evaluate(trainer.model, trainer.prep, gold, step=trainer.step, device="cpu")
    eval_s = time.perf_counter() - t0
    timed = times[2:] or times
    late = times[narrowed_from:]
    return {**{k: v for k, v in spec.items() if k not in ("lost", "known", "gold", "extra_known")},
            "n_stems": trainer.prep.n_stems, "n_gold": len(gold),
            "p_at_1": round(ev.metrics["p_at_1"], 4), "p_at_10": round(ev.metrics["p_at_10"], 4),
            "coverage": round(ev.metrics["coverage"], 4), "objective": round(objective["objective"], 4),
            "quality": round(objective["quality"], 4),
            "step_s_median": round(statistics.median(timed), 4) if timed else None,
            "step_s_median_after_annealing": round(statistics.median(late), 4) if late else None,
            "eval_s": round(eval_s, 2), "peak_rss_mb": round(peak_memory_mb(), 1)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mode", choices=("synthetic", "real"))
    p.add_argument("--multipliers", type=int, nargs="+", default=[0, 10],
                   help="synthetic: distractor stems per true stem")
    p.add_argument("--sizes", type=int, nargs="+", default=[4071, 8000, 16000, 39216],
                   help="real: vocabulary sizes (stems, before merging identical IPA)")
    p.add_argument("--lost", type=Path)
    p.add_argument("--known", type=Path)
    p.add_argument("--gold", type=Path)
    p.add_argument("--extra-known", type=Path, help="real: where the added stems are drawn from")
    p.add_argument("--draw-seed", type=int, default=0, help="real: seed of the drawn stems")
    p.add_argument("--candidate-stems", type=int, nargs="+", default=[0], help="values of the setting (0 = off)")
    p.add_argument("--candidate-start", type=float, nargs="+", default=[None],
                   help="values of candidate_start (default: the setting's default)")
    p.add_argument("--steps", type=int, default=None, help="training steps (synthetic 200, real 3000)")
    p.add_argument("--seeds", type=int, nargs="+", default=[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", type=Path, help="append the JSON lines to this file too")
    p.add_argument("--one", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(json.loads(args.one))), flush=True)
        return 0
    if args.mode == "real" and not all((args.lost, args.known, args.gold, args.extra_known)):
        p.error("real needs --lost, --known, --gold and --extra-known")
    steps = args.steps or (200 if args.mode == "synthetic" else 3000)
    specs = []
    for size in (args.multipliers if args.mode == "synthetic" else args.sizes):
        for k, start in ((k, st) for k in args.candidate_stems for st in args.candidate_start):
            for seed in args.seeds:
                spec = {"mode": args.mode, "steps": steps, "seed": seed, "candidate_stems": k,
                        "threads": args.threads}
                if start is not None:
                    spec["candidate_start"] = start
                if args.mode == "synthetic":
                    spec["multiplier"] = size
                else:
                    spec.update(size=size, draw_seed=args.draw_seed, lost=str(args.lost), known=str(args.known),
                                gold=str(args.gold), extra_known=str(args.extra_known))
                specs.append(spec)
    for spec in specs:
        res = subprocess.run([sys.executable, "-m", "benchmarks.vocab_scaling", args.mode, "--one", json.dumps(spec)],
                             capture_output=True, text=True)
        if res.returncode != 0:
            print(res.stderr, file=sys.stderr)
            return res.returncode
        line = res.stdout.strip().splitlines()[-1]
        print(line, flush=True)
        if args.out:
            with open(args.out, "a", encoding="utf-8") as f:
                f.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
