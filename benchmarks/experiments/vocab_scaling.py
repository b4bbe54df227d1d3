"""Quality, step time and memory as the known vocabulary grows (issue 15), with and without
``candidate_stems``.

Synthetic (seconds to minutes): a cipher of engine/datasets/synthetic.py (whole words, as Ugaritic) whose
vocabulary is the true stems plus M times as many random distractor stems of the same sound system:

    python -m benchmarks.experiments.vocab_scaling synthetic --multipliers 0 10 --candidate-stems 0 16 --seeds 0 1 2

Real: the small set's words and gold against its own stems plus stems drawn (seeded) from the full
set's vocabulary, up to each size (CSV files from ``decipher import-cog``; see docs/benchmarks.md):

    python -m benchmarks.experiments.vocab_scaling real --lost data/uga-small/lost.csv --gold data/uga-small/gold.csv \\
        --known data/uga-small/known.csv --extra-known data/uga-full/known.csv \\
        --sizes 4071 8000 16000 39216 --candidate-stems 0 4096 --steps 3000 --seeds 0

Each configuration runs in its own process (so its peak memory is its own) and prints one JSON
line: P@1, P@10, the gold-free final objective (engine/training/final_objective.py), the median
training-step time (all steps, and the steps after annealing, when candidate_stems has narrowed
to K), the steps trained and the training's wall time (with ``--restarts R``, every start's steps),
the final evaluation's time and peak RSS.

Eval (real): the time of one evaluation (every word against every stem) of a model trained
``--steps`` steps (default 0), with its P@K, e.g. the full set's 7,235 words against its 39,216 stems:

    python -m benchmarks.experiments.vocab_scaling eval --lost data/uga-full/lost.csv --known data/uga-full/known.csv \\
        --gold data/uga-full/gold.csv --steps 20

Ranking (synthetic; does the objective after S steps already rank starts as their final P@1?):
each seed trains once, its gold-free objective over the corpus is taken at each step of ``--at``,
and the summary says, for every S and every group of R starts, how good the start with the lowest
objective at S ends up (what ``restarts = R`` would keep):

    python -m benchmarks.experiments.vocab_scaling ranking --multipliers 10 --seeds 0 1 2 3 4 5 6 7 --at 10 25 50 100
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


# the inputs' paths: in a configuration, not in its result line
PATH_KEYS = ("lost", "known", "gold", "extra_known")


def distractor_stems(true_forms, n: int, *, seed: int, stem_len: tuple[int, int] = (4, 6)):
    """``n`` random stems of the synthetic sound system, none of them one of ``true_forms``."""
    from engine.corpus import Stem
    from engine.datasets.synthetic import _word

    rng = random.Random(seed)
    seen = set(true_forms)
    out = []
    while len(out) < n:
        w = _word(rng, *stem_len)
        if w not in seen:
            seen.add(w)
            out.append(Stem(w, w))
    return out


def synthetic_problem(multiplier: int, *, distractor_seed: int = 100, stem_len: tuple[int, int] | None = None,
                      distractor_len: tuple[int, int] = (4, 6), noise_words: int = 0):
    """(corpus, vocabulary, gold) of the synthetic cipher with ``multiplier`` x distractor stems.

    ``stem_len`` (the true stems', default the cipher's 4..6 sounds) and ``distractor_len`` make a
    dense dictionary as real ones are: short true stems among many short distractors (a three-sound
    CVC stem is one of 16 x 5 x 16 = 1,280), where a short word resembles some stem under almost any
    mapping. ``noise_words``: that many more lost words, enciphered random words of the true stems'
    lengths with no cognate (in the real Ugaritic set 70 % of the words have none), as inscriptions of
    their own after the cipher's."""
    from engine.corpus import Corpus, Inscription, Vocabulary
    from engine.datasets.synthetic import _word, make_cipher

    c = make_cipher(**SYNTHETIC, **({"stem_len": tuple(stem_len)} if stem_len else {}))
    true = c.vocabulary.stems
    extra = distractor_stems([s.form for s in true], multiplier * len(true), seed=distractor_seed,
                             stem_len=tuple(distractor_len))
    corpus = c.corpus
    if noise_words:
        rng = random.Random(distractor_seed + 1)
        lo, hi = stem_len or (4, 6)
        texts = ["".join(c.key[u] for u in _word(rng, lo, hi)) for _ in range(noise_words)]
        corpus = Corpus(corpus.name, corpus.inscriptions + tuple(
            Inscription(f"N{i + 1}", t, raw=t) for i, t in enumerate(texts)))
    return corpus, Vocabulary("synthetic+distractors", tuple(true) + tuple(extra)), c.gold


def real_problem(lost: Path, known: Path, gold: Path, extra_known: Path, size: int, *, seed: int = 0):
    """The small set's words against its stems plus stems of ``extra_known`` (seeded draw) up to ``size``."""
    from engine.corpus import Corpus, Vocabulary
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
    from engine.training.evaluation import evaluate
    from engine.results import StepEvent
    from engine.runs.outputs import peak_memory_mb
    from engine.training.trainer import Trainer

    if spec["mode"] == "ranking":
        return rank_one(spec)
    if spec["mode"] == "eval":
        return eval_one(spec)
    torch.set_num_threads(spec.get("threads", 1))
    if spec["mode"] == "synthetic":
        corpus, vocab, gold = synthetic_problem(spec["multiplier"], **{
            k: spec[k] for k in ("stem_len", "distractor_len", "noise_words") if k in spec})
        settings = dict(SYNTHETIC_SETTINGS)
    else:
        corpus, vocab, gold = real_problem(Path(spec["lost"]), Path(spec["known"]), Path(spec["gold"]),
                                           Path(spec["extra_known"]), spec["size"], seed=spec["draw_seed"])
        settings = dict(UGARITIC, eval_interval=0)
    steps = spec["steps"]
    config = Config(**settings, steps=steps, anneal_steps=int(spec.get("anneal_fraction", 2 / 3) * steps),
                    seed=spec["seed"], candidate_stems=spec["candidate_stems"], device="cpu",
                    **({"candidate_start": spec["candidate_start"]} if "candidate_start" in spec else {}),
                    **({"candidate_refresh": spec["candidate_refresh"]} if "candidate_refresh" in spec else {}),
                    **({"restarts": spec["restarts"]} if spec.get("restarts", 1) > 1 else {}),
                    **({"restart_fraction": spec["restart_fraction"]} if "restart_fraction" in spec else {}),
                    **{k: spec[k] for k in ("curriculum_min_span", "curriculum_fraction") if k in spec})
    trainer = Trainer(corpus, vocab, config, gold=gold, live_interval=None)
    times, last = [], 0.0
    t_train = time.perf_counter()
    for event in trainer.run(steps):
        if isinstance(event, StepEvent):
            times.append(event.elapsed - last)
            last = event.elapsed
            sel = trainer.selection
            if event.step >= steps and (sel is None or sel.done):
                break
    train_s = time.perf_counter() - t_train
    # competition_size reaches K at anneal_steps (engine/model/candidate_stems.py): the last steps of the kept start
    narrowed_from = len(times) - (steps - config.anneal_steps)
    from engine.training.final_objective import corpus_objective

    objective = corpus_objective(trainer)
    t0 = time.perf_counter()
    ev = evaluate(trainer.model, trainer.prep, gold, step=trainer.step, device="cpu")
    eval_s = time.perf_counter() - t0
    timed = times[2:] or times
    late = times[narrowed_from:]
    return {**{k: v for k, v in spec.items() if k not in PATH_KEYS},
            "n_stems": trainer.prep.n_stems, "n_gold": len(gold),
            "p_at_1": round(ev.metrics["p_at_1"], 4), "p_at_10": round(ev.metrics["p_at_10"], 4),
            "coverage": round(ev.metrics["coverage"], 4), "objective": round(objective["objective"], 4),
            "quality": round(objective["quality"], 4),
            "steps_trained": len(times), "train_s": round(train_s, 2),
            **({k: v for k, v in trainer.selection.metrics().items()} if trainer.selection is not None else {}),
            "step_s_median": round(statistics.median(timed), 4) if timed else None,
            "step_s_median_after_annealing": round(statistics.median(late), 4) if late and narrowed_from > 0 else None,
            **({"full_pass_spans": cands.full_spans, "cached_spans": cands.cached_spans}
               if (cands := getattr(trainer, "candidates", None)) is not None else {}),
            "eval_s": round(eval_s, 2), "peak_rss_mb": round(peak_memory_mb(), 1)}


def eval_one(spec: dict) -> dict:
    """The time of one evaluation (every word against every stem, P@K, decoding) of a model trained
    ``spec["steps"]`` steps (0: untrained) on the given data, and the P@K it gives (for comparing
    implementations: the same model must give the same numbers)."""
    import torch

    from engine.config import UGARITIC, Config
    from engine.corpus import Corpus, Vocabulary
    from engine.training.evaluation import evaluate
    from engine.io.tables import read_gold, read_known, read_lost
    from engine.runs.outputs import peak_memory_mb
    from engine.training.trainer import Trainer

    torch.set_num_threads(spec.get("threads", 1))
    inscriptions = read_lost(Path(spec["lost"]))
    gold = list(read_gold(Path(spec["gold"]), inscriptions=inscriptions))
    corpus = Corpus("lost", tuple(inscriptions))
    vocab = Vocabulary("known", tuple(read_known(Path(spec["known"]))))
    config = Config(**UGARITIC, eval_interval=0, steps=max(spec["steps"], 1), seed=spec["seed"], device="cpu")
    trainer = Trainer(corpus, vocab, config, gold=gold, live_interval=None)
    if spec["steps"]:
        for event in trainer.run(spec["steps"]):
            if getattr(event, "step", 0) >= spec["steps"]:
                break
    t0 = time.perf_counter()
    ev = evaluate(trainer.model, trainer.prep, gold, step=trainer.step, device="cpu")
    eval_s = time.perf_counter() - t0
    return {**{k: v for k, v in spec.items() if k not in ("lost", "known", "gold")}, "lost": spec["lost"],
            "n_stems": trainer.prep.n_stems, "n_words": len(trainer.prep.chunks), "n_gold": len(gold),
            "p_at_1": round(ev.metrics["p_at_1"], 4), "p_at_10": round(ev.metrics["p_at_10"], 4),
            "n_matches": int(ev.metrics["n_matches"]), "eval_s": round(eval_s, 2),
            "peak_rss_mb": round(peak_memory_mb(), 1)}


def rank_one(spec: dict) -> dict:
    """One seed of the paper's setting on the synthetic cipher: its gold-free objective at each step
    of ``spec["at"]`` and its P@1, P@10 at the end."""
    import torch

    from engine.config import Config
    from engine.training.final_objective import corpus_objective
    from engine.results import StepEvent
    from engine.training.trainer import Trainer

    torch.set_num_threads(spec.get("threads", 1))
    corpus, vocab, gold = synthetic_problem(spec["multiplier"])
    steps = spec["steps"]
    config = Config(**SYNTHETIC_SETTINGS, steps=steps, anneal_steps=int(spec.get("anneal_fraction", 2 / 3) * steps),
                    seed=spec["seed"], device="cpu")
    trainer = Trainer(corpus, vocab, config, gold=gold, live_interval=None)
    at = sorted(set(spec["at"]))
    from engine.training.evaluation import evaluate

    scores: dict[str, dict[str, float]] = {"objective_at": {}, "objective_end_schedule_at": {}, "quality_at": {},
                                           "p_at_1_at": {}}
    for event in trainer.run(steps):
        if isinstance(event, StepEvent) and event.step in at:
            now = corpus_objective(trainer)
            s = str(event.step)
            scores["objective_at"][s] = round(now["objective"], 4)
            scores["quality_at"][s] = round(-now["quality"], 4)          # lower is better, as the objective
            # the same model scored under the end of annealing's insertion cost and coverage target
            scores["objective_end_schedule_at"][s] = round(corpus_objective(trainer, step=steps)["objective"], 4)
            # gold, for the record only: how well P@1 at S itself foretells the final P@1
            ev = evaluate(trainer.model, trainer.prep, gold, step=trainer.step)
            scores["p_at_1_at"][s] = -round(ev.metrics["p_at_1"], 4)     # negated: lower is better
    m = trainer.last_evaluation.metrics
    return {**spec, **scores, "p_at_1": round(m["p_at_1"], 4), "p_at_10": round(m["p_at_10"], 4)}


def spearman(a, b) -> float:
    """Spearman's rank correlation (ties get their mean rank)."""
    import numpy as np

    def ranks(x):
        x = np.asarray(x, dtype=float)
        order = np.argsort(x, kind="stable")
        r = np.empty(len(x))
        r[order] = np.arange(len(x), dtype=float)
        for v in np.unique(x):          # ties: the mean of their ranks
            r[x == v] = r[x == v].mean()
        return r

    ra, rb = ranks(a), ranks(b)
    if ra.std() == 0 or rb.std() == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


def summarise_ranking(rows: list[dict], restarts: int = 4) -> list[dict]:
    """For every score and every S: Spearman's rho between the score at S and the final P@1 (expect
    < 0: lower score, higher P@1), and over every group of ``restarts`` seeds the final P@1 of the
    seed with the lowest score at S (what restarts would keep), against the group's mean and best.
    Scores: the objective (schedule of step S), the objective under the end of annealing's schedule,
    -quality, and -P@1 at S (gold: a bound on what any score at S could tell)."""
    out = []
    for score in ("objective_at", "objective_end_schedule_at", "quality_at", "p_at_1_at"):
        out += _summarise_score(rows, restarts, score)
    return out


def _summarise_score(rows: list[dict], restarts: int, score: str) -> list[dict]:
    from itertools import combinations

    out = []
    steps = sorted({int(s) for r in rows for s in r.get(score, {})})
    for s in steps:
        have = [r for r in rows if str(s) in r.get(score, {})]
        obj = [r[score][str(s)] for r in have]
        p1 = [r["p_at_1"] for r in have]
        rho = spearman(obj, p1) if len(have) > 2 else float("nan")
        kept, mean, best = [], [], []
        for group in combinations(range(len(have)), min(restarts, len(have))):
            chosen = min(group, key=lambda i: obj[i])
            kept.append(p1[chosen])
            mean.append(sum(p1[i] for i in group) / len(group))
            best.append(max(p1[i] for i in group))
        n = len(kept)
        out.append({"score": score, "S": s, "spearman_score_vs_p_at_1": round(float(rho), 3), "groups": n,
                    "kept_p_at_1_mean": round(sum(kept) / n, 3),
                    "group_mean_p_at_1": round(sum(mean) / n, 3), "oracle_p_at_1_mean": round(sum(best) / n, 3),
                    "kept_is_best": round(sum(k == b for k, b in zip(kept, best)) / n, 3)})
    return out


def spec_key(spec: dict) -> dict:
    """What identifies a configuration in a result line (a line drops the input paths)."""
    return {k: v for k, v in spec.items() if k not in PATH_KEYS and k != "threads"}


def same_spec(spec: dict, line: dict) -> bool:
    """Whether the result ``line`` was measured for ``spec`` (every key of the spec, paths and threads
    aside, has the same value in the line)."""
    return all(k in line and line[k] == v for k, v in spec_key(spec).items())


def recorded_specs(out: Path) -> list[dict]:
    """The result lines already in ``out`` (none when it does not exist yet), so that a sweep
    interrupted at the end of a session resumes with the configurations not measured yet."""
    if not out.exists():
        return []
    lines = []
    for n, text in enumerate(out.read_text(encoding="utf-8").splitlines(), 1):
        if not text.strip():
            continue
        try:
            lines.append(json.loads(text))
        except json.JSONDecodeError as e:
            raise SystemExit(f"error: {out}, line {n}: not a JSON line ({e.msg})")
    return lines


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mode", choices=("synthetic", "real", "ranking", "eval"))
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
    p.add_argument("--candidate-refresh", type=int, nargs="+", default=[None],
                   help="values of candidate_refresh (default: the setting's default)")
    p.add_argument("--anneal-fraction", type=float, default=None,
                   help="anneal_steps as a fraction of --steps (default 2/3)")
    p.add_argument("--restarts", type=int, nargs="+", default=[1], help="values of the setting restarts (1 = off)")
    p.add_argument("--restart-fraction", type=float, default=None,
                   help="restart_fraction (default: the setting's default)")
    p.add_argument("--stem-len", type=int, nargs=2, metavar=("LO", "HI"),
                   help="synthetic: sounds per true stem (default 4 6)")
    p.add_argument("--distractor-len", type=int, nargs=2, metavar=("LO", "HI"),
                   help="synthetic: sounds per distractor stem (default 4 6)")
    p.add_argument("--noise-words", type=int, default=0,
                   help="synthetic: enciphered random lost words with no cognate (default 0)")
    p.add_argument("--curriculum-min-span", type=int, nargs="+", default=[0],
                   help="values of curriculum_min_span (0 = off, the paper)")
    p.add_argument("--curriculum-fraction", type=float, nargs="+", default=[None],
                   help="values of curriculum_fraction (default: the setting's default)")
    p.add_argument("--at", type=int, nargs="+", default=[5, 10, 20, 30, 50, 75, 100],
                   help="ranking: the steps S at which each seed's objective is taken")
    p.add_argument("--group", type=int, default=4, help="ranking: R, the starts one selection compares")
    p.add_argument("--summary-only", type=Path, help="ranking: summarise the JSON lines of this file")
    p.add_argument("--steps", type=int, default=None, help="training steps (synthetic and ranking 200, real 3000)")
    p.add_argument("--seeds", type=int, nargs="+", default=[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", type=Path, help="append the JSON lines to this file too; configurations "
                   "already in it are skipped (the sweep resumes)")
    p.add_argument("--one", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(json.loads(args.one))), flush=True)
        return 0
    if args.mode == "real" and not all((args.lost, args.known, args.gold, args.extra_known)):
        p.error("real needs --lost, --known, --gold and --extra-known")
    if args.mode == "eval" and not all((args.lost, args.known, args.gold)):
        p.error("eval needs --lost, --known and --gold")
    if args.summary_only:
        rows = [json.loads(line) for line in args.summary_only.read_text(encoding="utf-8").splitlines() if line.strip()]
        for line in summarise_ranking([r for r in rows if r.get("mode") == "ranking"], args.group):
            print(json.dumps(line))
        return 0
    steps = (args.steps or 0) if args.mode == "eval" else args.steps or (3000 if args.mode == "real" else 200)
    specs = []
    if args.mode == "eval":
        specs = [{"mode": "eval", "steps": steps, "seed": seed, "threads": args.threads, "lost": str(args.lost),
                  "known": str(args.known), "gold": str(args.gold)} for seed in args.seeds]
    if args.mode == "ranking":
        specs = [{"mode": "ranking", "steps": steps, "seed": seed, "multiplier": m, "at": args.at,
                  "threads": args.threads} for m in args.multipliers for seed in args.seeds]
    for size in (args.multipliers if args.mode == "synthetic" else args.sizes if args.mode == "real" else ()):
        for k, start, refresh, R, cmin, cfrac in (
                (k, st, rf, R, cm, cf) for k in args.candidate_stems for st in args.candidate_start
                for rf in (args.candidate_refresh if k else [None]) for R in args.restarts
                for cm in args.curriculum_min_span for cf in (args.curriculum_fraction if cm else [None])):
            for seed in args.seeds:
                spec = {"mode": args.mode, "steps": steps, "seed": seed, "candidate_stems": k,
                        "threads": args.threads}
                if cmin:
                    spec["curriculum_min_span"] = cmin
                    if cfrac is not None:
                        spec["curriculum_fraction"] = cfrac
                if start is not None:
                    spec["candidate_start"] = start
                if refresh is not None:
                    spec["candidate_refresh"] = refresh
                if args.anneal_fraction is not None:
                    spec["anneal_fraction"] = args.anneal_fraction
                if R > 1:
                    spec["restarts"] = R
                    if args.restart_fraction is not None:
                        spec["restart_fraction"] = args.restart_fraction
                if args.mode == "synthetic":
                    spec["multiplier"] = size
                    for key in ("stem_len", "distractor_len"):
                        if getattr(args, key):
                            spec[key] = list(getattr(args, key))
                    if args.noise_words:
                        spec["noise_words"] = args.noise_words
                else:
                    spec.update(size=size, draw_seed=args.draw_seed, lost=str(args.lost), known=str(args.known),
                                gold=str(args.gold), extra_known=str(args.extra_known))
                specs.append(spec)
    rows = []
    done = recorded_specs(args.out) if args.out else []
    for spec in specs:
        recorded = next((line for line in done if same_spec(spec, line)), None)
        if recorded is not None:     # measured in an earlier session: counts in the summary, not rerun
            print(f"already in {args.out}: {json.dumps(spec_key(spec))}", file=sys.stderr, flush=True)
            rows.append(recorded)
            continue
        res = subprocess.run([sys.executable, "-m", "benchmarks.experiments.vocab_scaling", args.mode, "--one", json.dumps(spec)],
                             capture_output=True, text=True)
        if res.returncode != 0:
            print(res.stderr, file=sys.stderr)
            return res.returncode
        line = res.stdout.strip().splitlines()[-1]
        rows.append(json.loads(line))
        print(line, flush=True)
        if args.out:
            with open(args.out, "a", encoding="utf-8") as f:
                f.write(line + "\n")
    if args.mode == "ranking":
        for line in summarise_ranking(rows, args.group):
            print(json.dumps(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
