"""The controlled closeness experiment: a synthetic lost text made from a source vocabulary,
compared against the source itself, a heavy-sound-change relative of it and an unrelated
vocabulary, each with its null vocabularies, over several seeds (docs/closeness.md).

    python -m benchmarks.closeness_synthetic                       # the documented setting
    python -m benchmarks.closeness_synthetic --seeds 0 1 2 --null 3 --steps 200 --out DIR
    python -m benchmarks.closeness_synthetic --dump runs.jsonl     # also keep every run's result (a dump
                                                                   # that exists is resumed: its runs are reused)
    python -m benchmarks.closeness_synthetic --analyse runs.jsonl  # every signal from a dump, no training
    python -m benchmarks.closeness_synthetic --restarts 4 --dump r4.jsonl   # 4 trainings per seed, best objective kept
    python -m benchmarks.closeness_synthetic --analyse r4.jsonl --restarts 2  # the same dump with 2 restarts
    python -m benchmarks.closeness_synthetic --analyse r4.jsonl --out DIR    # its files (restarts.csv, …)
    python -m benchmarks.closeness_synthetic --separation DIR/restarts.csv   # relative vs unrelated per R

Prints one line per candidate and signal (score, mapping and decoding consistency) and writes
the comparison's files (runs.csv, summary.csv, closeness.png, …) to --out when given. --analyse
also prints the per-run signals that were tried and rejected (docs/closeness.md): the stem margin
and the share of a stem's letters matched to one lost string.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from collections import Counter, defaultdict
from typing import Sequence

import numpy as np

from engine.closeness.comparison import (Comparison, PlanItem, ScoredRun, CandidateRun, compare, plan_comparison, record,
                               summarise, train_run)
from engine.config import Config
from engine.datasets.synthetic import make_cipher
from engine.datasets.synthetic_relatives import HEAVY, sound_change, unrelated_vocabulary

#: A test-sized training (a few seconds a run on one CPU core).
CONFIG = dict(feature_dim=8, steps=200, anneal_steps=120, eval_interval=0, min_span=3, max_span=6)


def setting(n_stems: int = 30, n_inscriptions: int = 40, cipher_seed: int = 2) -> tuple:
    """(lost corpus, {candidate: vocabulary}): source, its heavy relative, an unrelated vocabulary."""
    cipher = make_cipher(n_stems=n_stems, n_inscriptions=n_inscriptions, seed=cipher_seed)
    source = cipher.vocabulary
    candidates = {
        "source": source,
        "relative": sound_change(source, seed=cipher_seed, strength=HEAVY, language="relative"),
        "unrelated": unrelated_vocabulary(len(source.stems), seed=cipher_seed, avoid=source.stems),
    }
    return cipher, candidates


#: The phonotactic control (issue 26): a language of strict word shapes. A word is an initial
#: consonant, a vowel, then medial consonant + vowel pairs, and at length 5 a final consonant, each
#: position with its own few sounds, so which sounds start words, end them and follow which is very
#: unlike a shuffle of the same sounds.
SHAPES = {"initial": ("p", "t", "k"), "vowel": ("a", "i", "u"), "medial": ("m", "n", "l", "r"), "final": ("s", "n")}


def _shaped_word(rng, n: int) -> str:
    units = [rng.choice(SHAPES["initial"]), rng.choice(SHAPES["vowel"])]
    while len(units) < n - (n % 2):
        units += [rng.choice(SHAPES["medial"]), rng.choice(SHAPES["vowel"])]
    if n % 2:
        units.append(rng.choice(SHAPES["final"]))
    return "".join(units)


def phonotactic_setting(n_stems: int = 30, n_inscriptions: int = 40, cipher_seed: int = 2) -> tuple:
    """(lost corpus, {"source": …, "unrelated": …}): a lost text written (as engine/datasets/synthetic.py does:
    1-3 words an inscription, 0-3 filler letters between them, a letter substitution) in stems of
    :data:`SHAPES`, and an unrelated vocabulary of the same shapes that shares no word with it."""
    import random

    from engine.corpus import Corpus, Inscription, Stem, Vocabulary

    rng = random.Random(f"phonotactic:{cipher_seed}")
    source: dict[str, None] = {}
    while len(source) < n_stems:
        source.setdefault(_shaped_word(rng, rng.randint(4, 6)), None)
    other: dict[str, None] = {}
    while len(other) < n_stems:
        w = _shaped_word(rng, rng.randint(4, 6))
        if w not in source:
            other.setdefault(w, None)
    units = sorted({u for v in SHAPES.values() for u in v})
    letters = [chr(ord("a") + i) for i in range(len(units))]
    rng.shuffle(letters)
    key = dict(zip(units, letters))
    forms = list(source)
    inscriptions = []
    for i in range(n_inscriptions):
        text = ""
        for _ in range(rng.randint(1, 3)):
            text += "".join(key[rng.choice(units)] for _ in range(rng.randint(0, 3)))
            text += "".join(key[c] for c in rng.choice(forms))
        text += "".join(key[rng.choice(units)] for _ in range(rng.randint(0, 3)))
        inscriptions.append(Inscription(f"P{i + 1}", text, raw=text))
    vocab = {name: Vocabulary(name, tuple(Stem(f, f, "", name) for f in words))
             for name, words in (("source", source), ("unrelated", other))}
    return Corpus("phonotactic", tuple(inscriptions)), vocab


def null_mode_control(*, seeds: Sequence[int] = (0, 1, 2), n_null: int = 3, steps: int = 200,
                      modes: Sequence[str] = ("skeleton", "phonotactic"), out=None, quiet: bool = True,
                      n_stems: int = 30, n_inscriptions: int = 40, cipher_seed: int = 2) -> dict[str, Comparison]:
    """The phonotactic control: the same lost text, source and unrelated vocabulary compared with each
    null mode; the candidates' own runs are trained once and shared by the modes."""
    corpus, candidates = phonotactic_setting(n_stems, n_inscriptions, cipher_seed)
    cfg = Config(**{**CONFIG, "steps": steps, "anneal_steps": int(steps * 0.6)})
    own: dict[tuple, CandidateRun] = {}
    t0 = time.perf_counter()

    def run_fn(item: PlanItem) -> CandidateRun:
        key = (item.known, item.seed, item.restart)
        if item.null is None and key in own:
            return own[key]
        result = train_run(item)
        if item.null is None:
            own[key] = result
        if not quiet:
            print(f"  {item.known} seed {item.seed} null {item.null}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        return result

    out_dirs = {m: None if out is None else os.path.join(out, m) for m in modes}
    return {m: compare(corpus, candidates, seeds=seeds, n_null=n_null, config=cfg, out=out_dirs[m], run_fn=run_fn,
                       plot=out is not None, null_mode=m) for m in modes}


def run(*, seeds: Sequence[int] = (0, 1, 2), n_null: int = 3, steps: int = 200, names: Sequence[str] | None = None,
        out=None, n_stems: int = 30, n_inscriptions: int = 40, cipher_seed: int = 2, quiet: bool = True,
        dump: str | None = None, null_mode: str = "skeleton", restarts: int = 1) -> Comparison:
    cipher, candidates = setting(n_stems, n_inscriptions, cipher_seed)
    if names:
        candidates = {k: v for k, v in candidates.items() if k in names}
    cfg = Config(**{**CONFIG, "steps": steps, "anneal_steps": int(steps * 0.6)})
    t0 = time.perf_counter()
    context = {"setting": [n_stems, n_inscriptions, cipher_seed], "null_mode": null_mode}
    # a dump that exists is resumed: its runs of this setting are read back, not trained again
    done = {}
    if dump and os.path.exists(dump):
        for row in _rows(dump):
            if {k: row.get(k, v) for k, v in DUMP_DEFAULTS.items()} == context:
                done[_dump_key(row)] = _result(row)
    dump_file = open(dump, "a", encoding="utf-8") if dump else None

    def run_fn(item: PlanItem) -> CandidateRun:
        key = (item.known, item.null, item.seed, item.restart, item.config.steps)
        return done[key] if key in done else train_run(item)

    def progress(rec):
        if (rec.item.known, rec.item.null, rec.item.seed, rec.item.restart, rec.item.config.steps) in done:
            return
        if dump_file is not None:
            dump_file.write(json.dumps({**_dumped(rec), **context}, ensure_ascii=False) + "\n")
            dump_file.flush()
        if not quiet:
            print(f"  {rec.item.known} seed {rec.item.seed} null {rec.item.null} restart {rec.item.restart}: "
                  f"score {rec.score:.3f} objective {rec.result.objective or math.nan:.3f} "
                  f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)

    try:
        return compare(cipher.corpus, candidates, seeds=seeds, n_null=n_null, config=cfg, out=out, on_run=progress,
                       plot=out is not None, null_mode=null_mode, restarts=restarts, run_fn=run_fn)
    finally:
        if dump_file is not None:
            dump_file.close()


def decipher(name: str, *, seeds: Sequence[int], steps: int = 200, n_stems: int = 30, n_inscriptions: int = 40,
             cipher_seed: int = 2) -> list[str]:
    """P@1, P@10 and the score of one candidate per seed: how well the words are found. The gold
    rows name source stems; each becomes its relative's stem (the relative's gloss names its source)."""
    from engine.corpus import GoldAnnotation
    from engine.results import EvalEvent
    from engine.training.trainer import Trainer
    from engine.closeness.curve import closeness_score

    cipher, candidates = setting(n_stems, n_inscriptions, cipher_seed)
    vocab = candidates[name]
    to_form = {s.form: s.form for s in vocab.stems} if name == "source" else {s.gloss: s.form for s in vocab.stems}
    gold = [GoldAnnotation(g.inscription_id, g.start, g.word_end, tuple(to_form[k] for k in g.known if k in to_form))
            for g in cipher.gold]
    gold = [g for g in gold if g.known]
    lines = []
    for seed in seeds:
        cfg = Config(**{**CONFIG, "steps": steps, "anneal_steps": int(steps * 0.6), "seed": seed})
        trainer = Trainer(cipher.corpus, vocab, cfg, gold=gold, live_interval=None)
        ev = [e for e in trainer.run() if isinstance(e, EvalEvent)][-1]
        lines.append(f"{name} seed {seed}: P@1 {ev.metrics['p_at_1']:.2f}  P@10 {ev.metrics['p_at_10']:.2f}  "
                     f"score {closeness_score(ev.closeness):.3f}  ({len(gold)} gold rows, {len(vocab.stems)} stems)")
    return lines


#: What a dump row made before these keys were written was made with.
DUMP_DEFAULTS = {"setting": [30, 40, 2], "null_mode": "skeleton"}


def _rows(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _dump_key(row: dict) -> tuple:
    return (row["known"], row["null"], row["seed"], row.get("restart", 0), row["steps"])


def _result(r: dict) -> CandidateRun:
    return CandidateRun(tuple(tuple(p) for p in r["curve"]), r["coverage"], r["steps"], r["wall_s"],
                     None if r["mapping"] is None else np.array(r["mapping"]), tuple(r["known_units"]),
                     tuple(tuple(x) for x in r["spans"]), tuple(r["margins"]), r.get("objective"))


def _dumped(rec: ScoredRun) -> dict:
    r = rec.result
    return {"known": rec.item.known, "seed": rec.item.seed, "null": rec.item.null, "restart": rec.item.restart,
            "objective": r.objective, "score": rec.score,
            "coverage": r.coverage, "steps": r.steps, "wall_s": r.wall_s, "curve": r.curve,
            "mapping": None if r.mapping is None else np.asarray(r.mapping).tolist(),
            "known_units": r.known_units, "spans": r.spans, "margins": r.margins}


def load_dump(path: str, *, seeds: Sequence[int] | None = None, restarts: int | None = None, n_stems: int = 30,
              n_inscriptions: int = 40, cipher_seed: int = 2, steps: int | None = None) -> tuple:
    """(plan, every training's record) of a ``--dump`` file, keeping only the runs of this setting
    (``n_stems``, ``n_inscriptions``, ``cipher_seed``), ``seeds`` and the first ``restarts`` restarts of
    each seed when given (a dump of R restarts holds every smaller R), and ``steps`` when given. A dump
    is appended to, so it may hold runs of several steps or null modes: those are refused unless
    ``steps`` picks one (runs of two lengths would be counted as restarts of one seed)."""
    want = {"setting": [n_stems, n_inscriptions, cipher_seed]}
    rows = [r for r in _rows(path) if r.get("setting", DUMP_DEFAULTS["setting"]) == want["setting"]
            and (seeds is None or r["seed"] in seeds) and (restarts is None or r.get("restart", 0) < restarts)
            and (steps is None or r["steps"] == steps)]
    if not rows:
        raise SystemExit(f"{path}: no runs of this setting (stems, inscriptions, cipher seed "
                         f"{', '.join(map(str, want['setting']))}), those seeds, restarts and steps")
    lengths = sorted({r["steps"] for r in rows})
    modes = sorted({r.get("null_mode", DUMP_DEFAULTS["null_mode"]) for r in rows})
    if len(lengths) > 1:
        raise SystemExit(f"{path}: runs of {', '.join(map(str, lengths))} steps; pick one with --steps")
    if len(modes) > 1:
        raise SystemExit(f"{path}: runs of the null modes {', '.join(modes)}; analyse a dump of one")
    cipher, candidates = setting(n_stems, n_inscriptions, cipher_seed)
    names = list(dict.fromkeys(r["known"] for r in rows))
    n_null = len({r["null"] for r in rows if r["null"] is not None})
    cfg = Config(**{**CONFIG, "steps": lengths[0]})
    plan = plan_comparison(cipher.corpus, {k: candidates[k] for k in names}, seeds=sorted({r["seed"] for r in rows}),
                           n_null=n_null, config=cfg, restarts=1 + max(r.get("restart", 0) for r in rows),
                           null_mode=modes[0])
    items = {(i.key, i.restart): i for i in plan.items}
    records = []
    for r in rows:
        item: PlanItem = items[((r["known"], -1 if r["null"] is None else r["null"], r["seed"]), r.get("restart", 0))]
        records.append(record(item, _result(r)))
    return cipher, plan, records


def analyse(path: str, *, seeds: Sequence[int] | None = None, restarts: int | None = None, n_stems: int = 30,
            n_inscriptions: int = 40, cipher_seed: int = 2, out: str | None = None, steps: int | None = None) -> str:
    """Every signal of a dump made by ``--dump`` (the same setting's arguments), without training;
    with ``out``, also the comparison's files (runs.csv, restarts.csv, summary.csv, …) there."""
    cipher, plan, trainings = load_dump(path, seeds=seeds, restarts=restarts, n_stems=n_stems,
                                        n_inscriptions=n_inscriptions, cipher_seed=cipher_seed, steps=steps)
    names = plan.candidates
    comparison = summarise(plan, trainings)
    if out is not None:
        from engine.closeness.comparison import write_comparison

        write_comparison(out, comparison, plot=False)
    records = comparison.records  # the kept restart of each seed
    text = {i.id: i.units for i in cipher.corpus.inscriptions}

    def margin(res: CandidateRun) -> float:
        w = [e - s for _, s, e, _ in res.spans]
        return sum(a * m for a, m in zip(w, res.margins)) / sum(w) if sum(w) else math.nan

    def one_string(res: CandidateRun) -> float:
        strings: dict[str, Counter] = defaultdict(Counter)
        for ins, s, e, ipa in res.spans:
            strings[ipa]["".join(text[ins][s:e])] += e - s
        total = sum(sum(c.values()) for c in strings.values())
        return sum(max(c.values()) for c in strings.values()) / total if total else math.nan

    lines = [report(comparison), "", separation(comparison), "",
             "per-run signals tried (mean ± sd over the group's runs):",
             "candidate  null  score          margin         one-string"]
    groups: dict[tuple, list[CandidateRun]] = defaultdict(list)
    for rec in records:
        groups[(rec.item.known, rec.item.null)].append(rec)
    for (known, null), recs in groups.items():
        def ms(vals):
            return f"{statistics.fmean(vals):.3f}±{statistics.stdev(vals) if len(vals) > 1 else 0:.3f}"
        lines.append(f"{known:10s} {'-' if null is None else null!s:4s}  {ms([r.score for r in recs])}  "
                     f"{ms([margin(r.result) for r in recs])}  {ms([one_string(r.result) for r in recs])}")
    lines += ["", "best of seeds (each candidate's best run; each null's best run over the same seeds):"]
    for name in names:
        real = [r.score for r in records if r.item.known == name and r.item.null is None]
        by_null: dict[int, list[float]] = defaultdict(list)
        for r in records:
            if r.item.known == name and r.item.null is not None:
                by_null[r.item.null].append(r.score)
        null_best = [max(v) for v in by_null.values()]
        leave_one_out = [max(real[:i] + real[i + 1:]) for i in range(len(real))] if len(real) > 1 else real
        m = statistics.fmean(null_best) if null_best else math.nan
        sd = statistics.stdev(null_best) if len(null_best) > 1 else math.nan
        lines.append(f"{name:10s} best {max(real):.3f} (leaving one seed out {min(leave_one_out):.3f}–"
                     f"{max(leave_one_out):.3f})  nulls' best {m:.3f}±{sd:.3f}  "
                     f"[{' '.join(f'{x:.3f}' for x in null_best)}]")
    return "\n".join(lines)


def separation(c: Comparison, a: str = "relative", b: str = "unrelated") -> str:
    """Whether candidate ``a`` beats ``b`` beyond the spread over seeds (the issue's requirement:
    mean - sd of a above mean + sd of b), with the kept runs' scores per seed."""
    by = {s.known: s for s in c.summaries}
    if a not in by or b not in by:
        return ""
    sa, sb = by[a], by[b]
    margin = (sa.score_mean - sa.score_sd) - (sb.score_mean + sb.score_sd)

    def kept(name):
        recs = sorted((r for r in c.records if r.item.known == name and r.item.null is None), key=lambda r: r.item.seed)
        return " ".join(f"{r.score:.3f}" for r in recs)

    return (f"{a} {sa.score_mean:.3f}±{sa.score_sd:.3f} [{kept(a)}] vs {b} {sb.score_mean:.3f}±{sb.score_sd:.3f} "
            f"[{kept(b)}] (restarts {c.plan.restarts}): margin beyond the spreads {margin:+.3f} "
            f"({'separated' if margin > 0 else 'NOT separated'})")


def separation_table(path: str, *, a: str = "relative", b: str = "unrelated", per_set: int = 3,
                     restarts: Sequence[int] | None = None) -> str:
    """From a comparison's restarts.csv (every training; ``--analyse DUMP --out DIR`` writes one): for
    each number of restarts R (the first R of every seed), whether ``a`` beats ``b`` beyond the spread
    over seeds (mean - sd above mean + sd) on every set of ``per_set`` seeds, on the disjoint sets
    (seeds in order), and each candidate's z and verdict against its nulls treated alike: by the rule
    before issue 26 (z >= 2) and by today's (t of the margin, Holm over the two candidates)."""
    import csv
    import itertools

    from engine.closeness.comparison import holm, holm_verdict, margin_se, pooled_sd, t_sf, verdict, z_score, z_sd

    runs: dict[tuple, list[tuple[float, int, float]]] = defaultdict(list)
    try:
        with open(path, encoding="utf-8", newline="") as f:
            for r in csv.DictReader(f):
                obj = float(r["objective"]) if r["objective"] else math.inf
                runs[(r["known"], r["null"], int(r["seed"]))].append((obj, int(r["restart"]), float(r["score"])))
    except OSError as e:
        raise SystemExit(f"{path}: cannot read it ({e.strerror or e})") from None
    except (KeyError, ValueError) as e:
        raise SystemExit(f"{path}: not a comparison's restarts.csv ({type(e).__name__}: {e})") from None
    seeds = sorted({k[2] for k in runs if k[0] == a and k[1] == ""} & {k[2] for k in runs if k[0] == b and k[1] == ""})
    if not seeds:
        raise SystemExit(f"{path}: no seed has runs of both {a} and {b}")

    def complete(v) -> int:  # restarts 0 .. R-1 all there (a failed training leaves a hole)
        have = {x[1] for x in v}
        return next(r for r in itertools.count() if r not in have)

    top = min(complete(v) for k, v in runs.items() if k[1] == "" and k[0] in (a, b) and k[2] in seeds)
    per_set = min(per_set, len(seeds))

    def kept(known, null, seed, R):  # the lowest objective of the first R restarts
        got = [x for x in runs.get((known, null, seed), ()) if x[1] < R]
        return min(got)[2] if len(got) == R else None

    def ms(v):
        return statistics.fmean(v), statistics.stdev(v) if len(v) > 1 else 0.0

    def margin(S, R):
        (ma, sa), (mb, sb) = ms([kept(a, "", s, R) for s in S]), ms([kept(b, "", s, R) for s in S])
        return (ma - sa) - (mb + sb), ma, sa, mb, sb

    lines = [f"{a} vs {b}: beyond the spread over {per_set} seeds (mean - sd of {a} > mean + sd of {b}); "
             f"seeds {' '.join(map(str, seeds))}; the restart with the lowest objective kept"]
    disjoint = [tuple(seeds[i:i + per_set]) for i in range(0, len(seeds) - per_set + 1, per_set)]
    for R in restarts or range(1, top + 1):
        if R > top:
            continue
        every = [margin(S, R)[0] for S in itertools.combinations(seeds, per_set)]
        lines.append(f"R={R:2d}: separated on {sum(m > 0 for m in every)}/{len(every)} sets of {per_set} seeds, "
                     f"median margin {statistics.median(every):+.3f}")
        for S in disjoint:
            m, ma, sa, mb, sb = margin(S, R)
            verdicts, tests = [], {}
            null_sets = {name: [n for n in sorted({k[1] for k in runs if k[0] == name and k[1] != ""})] for name in (a, b)}
            null_runs = {name: [kept(name, n, s, R) for n in null_sets[name] for s in S] for name in (a, b)}
            pooled = pooled_sd([v for v in null_runs.values() if v and None not in v])
            for name, mean, sd in ((a, ma, sa), (b, mb, sb)):
                nulls = null_runs[name]
                if nulls and None not in nulls and len(nulls) > 1:
                    nm, nsd = ms(nulls)
                    z = z_score(mean, nm, nsd)
                    verdicts.append(f"{name} z {z:.1f} {verdict(z, len(nulls))}")
                    # the rule of issue 26 (engine/closeness/comparison.py summarise): t of the margin, Holm below
                    se = margin_se(max(sd, z_sd(nsd, pooled)), len(S), len(null_sets[name]))
                    df = len(S) + len(null_sets[name]) - 2
                    tests[name] = (mean - nm) / se if se > 0 else z_score(mean, nm, 0.0), df
            if tests:
                adjusted = holm([t_sf(t, df) for t, df in tests.values()])
                verdicts += [f"{name} t {t:.2f} p_holm {p:.3g} {holm_verdict(p, 2)}"
                             for (name, (t, _df)), p in zip(tests.items(), adjusted)]
            lines.append(f"      seeds {' '.join(map(str, S))}: {a} {ma:.3f}±{sa:.3f}  {b} {mb:.3f}±{sb:.3f}  "
                         f"margin {m:+.3f}" + (f"  ({'; '.join(verdicts)})" if verdicts else ""))
    return "\n".join(lines)


def answer_table(c: Comparison) -> str:
    """One line per candidate: score, null, margin with its interval, Holm p and verdict."""
    lines = ["candidate  score          null           margin [90% interval]        t      p_holm  verdict"]
    for s in c.summaries:
        lo, hi = s.margin_interval
        lines.append(f"{s.known:10s} {s.score_mean:.3f}±{s.score_sd:.3f}  {s.null_mean:.3f}±{s.null_sd:.3f}  "
                     f"{s.margin:+.3f} [{lo:+.3f}, {hi:+.3f}]  {s.t:6.2f}  {s.p_holm:.4f}  {s.verdict}")
    return "\n".join(lines)


def report(c: Comparison) -> str:
    lines = [c.plan.matching.describe(), "candidate  signal    real    null mean  null sd      z  verdict"]
    for s in c.summaries:
        lines.append(f"{s.known:10s} score    {s.score_mean:.3f}±{s.score_sd:.3f}  {s.null_mean:.3f}  "
                     f"{s.null_sd:.3f}  {s.z:6.1f}  {s.verdict}")
        for label, sig in (("mapping", s.mapping), ("decoding", s.decoding)):
            if sig is not None:
                lines.append(f"{'':10s} {label:8s} {sig.value:.3f}        {sig.null_mean:.3f}  {sig.null_sd:.3f}  "
                             f"{sig.z:6.1f}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", help="default 0 1 2 (with --analyse: every seed of the dump)")
    p.add_argument("--null", type=int, default=3)
    p.add_argument("--restarts", type=int, help="trainings per seed, the lowest final objective kept (default 1; "
                                                 "with --analyse: the first R restarts of the dump, default all)")
    p.add_argument("--steps", type=int, help="default 200 (with --analyse: the dump's, which must be one)")
    p.add_argument("--candidates", nargs="+", choices=["source", "relative", "unrelated"])
    p.add_argument("--stems", type=int, default=30, help="stems of the source vocabulary")
    p.add_argument("--inscriptions", type=int, default=40)
    p.add_argument("--cipher-seed", type=int, default=2)
    p.add_argument("--null-mode", default="skeleton", choices=["phonotactic", "skeleton", "across", "within"],
                   help="default skeleton: the null of the documented runs above")
    p.add_argument("--out")
    p.add_argument("--dump", help="write every run's result (curve, mapping, spans) to this JSON-lines file; when it "
                                  "exists, the runs it holds (same setting) are read back instead of trained")
    p.add_argument("--analyse", metavar="DUMP", help="print every signal of a --dump file and train nothing")
    p.add_argument("--decipher", choices=["source", "relative"], help="only P@K of this candidate per seed")
    p.add_argument("--separation", metavar="RESTARTS_CSV",
                   help="train nothing: from a comparison's restarts.csv, whether the relative beats the unrelated "
                        "vocabulary beyond the seeds' spread for each number of restarts and set of seeds")
    p.add_argument("--control", choices=["phonotactic"],
                   help="the null-mode control: a lost text of strict word shapes, its source and an unrelated "
                        "vocabulary of the same shapes, compared with skeleton and phonotactic nulls (--stems, "
                        "--inscriptions, --steps, --seeds, --null apply; --out DIR gets DIR/skeleton, DIR/phonotactic)")
    a = p.parse_args(argv)
    if a.control:
        runs = null_mode_control(seeds=a.seeds or [0, 1, 2], n_null=a.null, steps=a.steps or 200, out=a.out,
                                 quiet=False, n_stems=a.stems, n_inscriptions=a.inscriptions, cipher_seed=a.cipher_seed)
        for mode, c in runs.items():
            print(f"null mode {mode}:")
            print(answer_table(c))
        return 0
    if a.decipher:
        print("\n".join(decipher(a.decipher, seeds=a.seeds or [0, 1, 2], steps=a.steps or 200, n_stems=a.stems,
                                 n_inscriptions=a.inscriptions, cipher_seed=a.cipher_seed)))
        return 0
    if a.separation:
        print(separation_table(a.separation, restarts=[a.restarts] if a.restarts else None))
        return 0
    if a.analyse:
        print(analyse(a.analyse, seeds=a.seeds, restarts=a.restarts, n_stems=a.stems, n_inscriptions=a.inscriptions,
                      cipher_seed=a.cipher_seed, out=a.out, steps=a.steps))
        return 0
    c = run(seeds=a.seeds or [0, 1, 2], n_null=a.null, restarts=a.restarts or 1, steps=a.steps or 200,
            names=a.candidates, out=a.out, n_stems=a.stems,
            n_inscriptions=a.inscriptions, cipher_seed=a.cipher_seed, quiet=False, dump=a.dump, null_mode=a.null_mode)
    print(report(c))
    print(separation(c))
    return 0


if __name__ == "__main__":
    sys.exit(main())
