"""The search trials on synthetic ciphers (issue 30: "your synthetic ciphers: no seed worse than today's").

Two families of ciphers, each trained with the default settings (the paper's: 3,000 steps) and once
with each search trial of benchmarks/gothic.py (``TRIALS``: the vowel weight from the letter classes,
the class start, both, and two whole starts, the paper's and the class start's, the lower objective kept):

* ``plain``: ``engine.datasets.synthetic.make_cipher(n_stems=200, n_inscriptions=60, seed=c)``: the
  known stems themselves under a letter substitution, written without dividers, filler letters between
  words;
* ``relative``: ``benchmarks.closeness_synthetic.setting(30, 40, c)``: the same kind of text, read
  against the source's heavy relative (sound change, mergers, each unit replaced with probability
  0.1): the hard case, where the search often fails.

Each row: the family, cipher, training seed and trial; P@1, P@10; the letters whose best sound is the
cipher key's (for ``relative`` the key of the source the relative changed); the final objective over
the corpus and the run's gold-free diagnosis (engine/training/diagnosis.py); the letters Sukhotin's
algorithm calls vowels (engine/model/letter_classes.py), how many of them are the key's vowel letters,
and the vowel weight the run used. Rows go to a JSONL file as they finish; a second run skips what is
there (resumable). ``--table`` prints the Markdown table.

    nice -n 10 python -m benchmarks.search_synthetic --out benchmarks/results/search/synthetic.jsonl
    python -m benchmarks.search_synthetic --out benchmarks/results/search/synthetic.jsonl --table \
        --summary benchmarks/results/search/synthetic-summary.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

FAMILIES = ("plain", "relative")
DEFAULT_CIPHERS = {"plain": (1, 2, 3), "relative": (2, 3, 4)}
SEEDS = (0, 1, 2)
OUT = Path("benchmarks/results/search/synthetic.jsonl")


def trials() -> dict[str, dict]:
    from benchmarks.gothic import TRIALS

    return {"none": {}, **{k: v for k, v in TRIALS.items() if k != "lr"}}


def build(family: str, cipher: int):
    """(lost corpus, known vocabulary, gold, key: known unit -> lost letter) of one cipher."""
    from engine.corpus import GoldAnnotation
    from engine.datasets.synthetic import make_cipher

    if family == "plain":
        c = make_cipher(n_stems=200, n_inscriptions=60, seed=cipher)
        return c.corpus, c.vocabulary, c.gold, c.key
    if family == "relative":
        from benchmarks.closeness_synthetic import setting

        c, candidates = setting(30, 40, cipher)
        vocab = candidates["relative"]
        to_form = {s.gloss: s.form for s in vocab.stems}   # a relative's gloss names its source stem
        gold = [GoldAnnotation(g.inscription_id, g.start, g.word_end,
                               tuple(to_form[k] for k in g.known if k in to_form)) for g in c.gold]
        return c.corpus, vocab, [g for g in gold if g.known], c.key
    raise ValueError(f"unknown family {family!r}")


def run_one(family: str, cipher: int, seed: int, trial: str, steps: int) -> dict:
    from benchmarks.commit import short_commit
    from engine.config import Config
    from engine.datasets.synthetic import VOWELS
    from engine.model.letter_classes import class_evidence, vowel_letters
    from engine.results import EvalEvent
    from engine.training.diagnosis import assess
    from engine.training.trainer import Trainer

    corpus, vocab, gold, key = build(family, cipher)
    settings = trials()[trial]
    t0 = time.perf_counter()
    cfg = Config(seed=seed, eval_interval=0, **settings)
    cfg = cfg.replace(steps=steps, anneal_steps=min(cfg.anneal_steps, steps))
    trainer = Trainer(corpus, vocab, cfg, gold=gold, live_interval=None)
    ev = [e for e in trainer.run() if isinstance(e, EvalEvent)][-1]
    wall = time.perf_counter() - t0
    parts, diagnosis = assess(trainer)
    truth = {letter: unit for unit, letter in key.items()}
    best = trainer.mapping().best_sounds()
    found = vowel_letters(trainer.prep)
    true_vowels = {key[v] for v in VOWELS}
    return {"family": family, "cipher": cipher, "seed": seed, "trial": trial, "settings": settings,
            "steps": steps, "p_at_1": round(ev.metrics["p_at_1"], 4), "p_at_10": round(ev.metrics["p_at_10"], 4),
            "letters_right": sum(1 for k, u in best.items() if truth.get(k) == u), "letters": len(best),
            "objective": round(parts["objective"], 4), "flagged": diagnosis.flagged,
            "sukhotin_vowels": found, "sukhotin_true": sum(1 for x in found if x in true_vowels),
            "classes_used": class_evidence(trainer.prep) is not None,
            "vowel_weight_used": round(float(trainer.model.vowel_weight), 4) if hasattr(trainer.model, "vowel_weight")
            else None, "wall_s": round(wall, 1), "commit": short_commit()}


def _key(r: dict) -> tuple:
    return r["family"], int(r["cipher"]), int(r["seed"]), r["trial"], int(r["steps"])


def read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _work(job: tuple) -> dict:
    from benchmarks.gothic import _pin_worker

    _pin_worker()
    return run_one(*job)


def plan(families, ciphers, seeds, names, steps, done: set) -> list[tuple]:
    jobs = [(f, c, s, t, steps) for f in families for c in (ciphers or DEFAULT_CIPHERS[f]) for s in seeds
            for t in names]
    return [j for j in jobs if j not in done]


def kept_of(pairs: list[tuple[dict, dict]]) -> tuple[list[dict], int]:
    """Of each pair of runs (a seed's paper-settings and class-start runs), the one with the lower
    objective, and how many of those read as much as the better of their pair."""
    kept = [min(p, key=lambda r: r["objective"]) for p in pairs]
    good = sum(1 for k, p in zip(kept, pairs) if k["p_at_1"] >= max(r["p_at_1"] for r in p) - 1e-9)
    return kept, good


def summary(rows: list[dict]) -> dict:
    """Over every (family, cipher, seed) that has both: per trial, how many seeds read worse, better or
    the same (P@1) as the paper settings; of the paper-settings and class-start runs of each seed, how
    often the one with the lower objective reads as much as the better one."""
    by = {_key(r): r for r in rows}

    def counts(pairs: list[tuple[dict, dict]]) -> dict:
        return {"seeds": len(pairs),
                "worse": sum(1 for a, b in pairs if b["p_at_1"] < a["p_at_1"] - 1e-9),
                "better": sum(1 for a, b in pairs if b["p_at_1"] > a["p_at_1"] + 1e-9),
                "identical": sum(1 for a, b in pairs if b["p_at_1"] == a["p_at_1"] and b["objective"] == a["objective"]),
                "mean_default": round(statistics.mean(a["p_at_1"] for a, _ in pairs), 4) if pairs else None,
                "mean_trial": round(statistics.mean(b["p_at_1"] for _, b in pairs), 4) if pairs else None}

    out: dict = {"trials": {}, "by_family": {f: {} for f in FAMILIES}}
    for name in trials():
        if name == "none":
            continue
        pairs = [(by[k[:3] + ("none", k[4])], r) for k, r in by.items()
                 if k[3] == name and k[:3] + ("none", k[4]) in by]
        out["trials"][name] = counts(pairs)
        for family in FAMILIES:
            out["by_family"][family][name] = counts([p for p in pairs if p[0]["family"] == family])
    pairs = [(r, by[k[:3] + ("class_init", k[4])]) for k, r in by.items()
             if k[3] == "none" and k[:3] + ("class_init", k[4]) in by]
    out["lower_objective_kept"] = {"seeds": len(pairs), "as_good_as_the_better": kept_of(pairs)[1]}
    return out


def table(rows: list[dict]) -> str:
    """Per family and cipher: each trial's P@1 per seed, the mean, and how many seeds are worse than
    the same seed with the default settings; of each seed's paper-settings and class-start runs, the
    one with the lower objective; then Sukhotin's vowels."""
    names = list(trials())
    by = {_key(r): r for r in rows}
    out = ["| family | cipher | trial | P@1 per seed | mean | letters right per seed | seeds below the default's P@1 |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    groups = sorted({(r["family"], int(r["cipher"]), int(r["steps"])) for r in rows},
                    key=lambda g: (FAMILIES.index(g[0]), g[1], g[2]))
    for family, cipher, steps in groups:
        seeds = sorted({int(r["seed"]) for r in rows if (r["family"], int(r["cipher"])) == (family, cipher)})
        for name in names:
            got = [by.get((family, cipher, s, name, steps)) for s in seeds]
            if not any(got):
                continue
            base = [by.get((family, cipher, s, "none", steps)) for s in seeds]
            p1 = " / ".join("—" if g is None else f"{g['p_at_1']:.3f}" for g in got)
            letters = " / ".join("—" if g is None else str(g["letters_right"]) for g in got)
            vals = [g["p_at_1"] for g in got if g]
            worse = sum(1 for g, b in zip(got, base) if g and b and g["p_at_1"] < b["p_at_1"] - 1e-9)
            compared = sum(1 for g, b in zip(got, base) if g and b)
            out.append(f"| {family} | {cipher} | {name} | {p1} | {statistics.mean(vals):.3f} | {letters} | "
                       + ("—" if name == "none" else f"{worse} of {compared}") + " |")
    out += ["", "Of each seed's two runs, the paper settings' and the class start's, the one with the lower final "
            "objective (gold-free), against the better one by P@1:", "",
            "| family | cipher | P@1 of the run kept, per seed | mean | the kept run is the better (or as good) |",
            "| --- | --- | --- | --- | --- |"]
    for family, cipher, steps in groups:
        seeds = sorted({int(r["seed"]) for r in rows if (r["family"], int(r["cipher"])) == (family, cipher)})
        pairs = [(by.get((family, cipher, s, "none", steps)), by.get((family, cipher, s, "class_init", steps)))
                 for s in seeds]
        pairs = [p for p in pairs if p[0] and p[1]]
        if not pairs:
            continue
        kept, good = kept_of(pairs)
        per_seed = " / ".join(f"{k['p_at_1']:.3f}" for k in kept)
        out.append(f"| {family} | {cipher} | {per_seed} | "
                   f"{statistics.mean(k['p_at_1'] for k in kept):.3f} | {good} of {len(pairs)} |")
    out += ["", "| family | cipher | letters Sukhotin calls vowels | of them the key's vowel letters | vowel weight used (vowel_weight = 0) |",
            "| --- | --- | --- | --- | --- |"]
    for family, cipher, steps in groups:
        r = next((r for r in rows if (r["family"], int(r["cipher"]), int(r["steps"])) == (family, cipher, steps)
                  and r["trial"] == "vowel_weight"), None) or \
            next(r for r in rows if (r["family"], int(r["cipher"]), int(r["steps"])) == (family, cipher, steps))
        w = r["vowel_weight_used"] if r["trial"] == "vowel_weight" else "—"
        out.append(f"| {family} | {cipher} | {' '.join(r['sukhotin_vowels'])} ({len(r['sukhotin_vowels'])}) | "
                   f"{r['sukhotin_true']} of 5 | {w} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--families", nargs="+", choices=FAMILIES, default=list(FAMILIES))
    ap.add_argument("--ciphers", nargs="+", type=int, help="cipher seeds (default: plain 1 2 3, relative 2 3 4)")
    ap.add_argument("--seeds", nargs="+", type=int, default=list(SEEDS))
    ap.add_argument("--trials", nargs="+", default=None,
                    help="none, vowel_weight, class_init, vowel_class, class_restart (default all)")
    ap.add_argument("--steps", type=int, default=None, help="training steps (default: the default settings')")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--table", action="store_true", help="print the Markdown table of --out, and stop")
    ap.add_argument("--summary", type=Path, help="with --table: also write the counts (summary()) to this JSON file")
    args = ap.parse_args(argv)
    if args.table:
        rows = read(args.out)
        if not rows:
            print(f"{args.out}: no rows yet", file=sys.stderr)
            return 2
        print(table(rows))
        if args.summary:
            args.summary.write_text(json.dumps(summary(rows), indent=1) + "\n", encoding="utf-8")
        return 0
    names = args.trials or list(trials())
    unknown = [t for t in names if t not in trials()]
    if unknown:
        print(f"unknown trial {unknown[0]!r} (known: {', '.join(trials())})", file=sys.stderr)
        return 2
    if args.workers < 0 or (args.steps is not None and args.steps < 1):
        print("--workers must be 0 or more and --steps 1 or more", file=sys.stderr)
        return 2
    from engine.config import Config
    from engine.errors import DecipherError

    steps = args.steps or Config().steps
    try:            # a seed or length out of range: one line before any run, not a worker's traceback
        for seed in args.seeds:
            Config(seed=seed, steps=steps)
    except DecipherError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    jobs = plan(args.families, args.ciphers, args.seeds, names, steps, {_key(r) for r in read(args.out)})
    print(f"{len(jobs)} runs to make", file=sys.stderr, flush=True)

    def keep(row: dict) -> None:
        with open(args.out, "a", encoding="utf-8") as f:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{row['family']} {row['cipher']} seed {row['seed']} {row['trial']}: P@1 {row['p_at_1']:.3f} "
              f"letters {row['letters_right']} ({row['wall_s']:.0f} s)", file=sys.stderr, flush=True)

    if args.workers == 0:
        for job in jobs:
            keep(run_one(*job))
        return 0
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for fut in as_completed([pool.submit(_work, j) for j in jobs]):
            keep(fut.result())
    return 0


if __name__ == "__main__":
    sys.exit(main())
