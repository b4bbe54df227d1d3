"""Issue 49: how often does one start of the preset `syllabary` find the reading in its pseudo-word phase, and
does the gold-free objective tell the starts that did?

The preset trains a text with few dividers on its pseudo-words for the first ``words_first`` steps (setting
words_first) and keeps, of four starts, the one whose objective over the pseudo-words is lowest after
``restart_steps`` = 500 steps, inside the onset phase (onsets_first). This script trains single starts
(``restarts = 1``, seeds ``--seeds``) of a dev syllabary through the word phase only (``steps =
words_first``) and writes, for each, what a choice among such starts could be made on and how good the start
is: its objective over the pseudo-words at the preset's screen (step restart_steps, 500; also at steps 250
and 1000, ``words_objectives``, from 2026-12-06) and at the end of the word phase, its objective over the
text there (what a screen at that step compares, since from then on the run trains on the text), and, from
the gold, its P@10 on the text and the share of signs with their standard onset, vowel, and both (key.csv).
A start is one run's first start: what start r of a run of seed s trains is a single start of seed
``start_seeds(s, R)[r]`` (engine/training/restarts.py). From 2026-12-06 a row also holds, where the phase
ends, the objective's parts over the text, the diagnosis's gold-free figures and the start's reading.

``--screens ROWS``: what each screen keeps, on average, of runs of R starts drawn from the starts of ROWS
(every subset of R); ``--agreement ROWS…``: what the diagnosis's ``starts`` check says of runs of 4 such starts;
``--votes ROWS``: how many signs the starts' vote reads right; ``--vote-run``: one
start trained from that vote (the signs most starts agree on pinned, then released).

    nice -n 5 python -m benchmarks.experiments.word_phase_starts --ids dev-s-latin-1 dev-s-spanish-1 \\
        --seeds 0 1 2 3 --workers 2 --out benchmarks/results/ciphers/dev-word-phase-starts.jsonl

Rows go to ``--out`` as they finish; a second invocation skips the (cipher, seed, settings) rows already
there. Only dev syllabaries (the test split is run once, with the preset chosen here).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmarks.cipher_suite import (PINNED_ENV, READ_P10, ROOT, SIGNS_RIGHT, build_cipher, load_folder, manifest,
                                     read_key, syllables_right)

def prior_reading(trainer) -> dict[str, tuple[str, str]]:
    """Each sign's onset read as Bayes would, argmax over onsets c of P(sign | c) x P(c), with P(c) how often
    c begins a syllable of the known stems (add-one); its vowel as the mapping reads it (P(vowel | sign)). The
    sign grid today reads the onset as argmax over c of the DP's unnormalised score, neither of the two. The
    counts assume vowel_slot joint (the preset's), where a stem's onset before a vowel is an (onset, vowel) row."""
    import torch

    model, prep = trainer.model, trainer.prep
    K = len(prep.known_units)
    count = dict.fromkeys(model.onset_units, 1.0)
    for row in prep.stem_units.tolist():
        prev = 0
        for uid in row:
            if uid == 0:
                break
            if uid >= K:        # an (onset, vowel) pair of vowel_slot joint
                count[prep.vowel_pairs[uid - K][0]] += 1
            elif prep.known_units[uid] in model.vowel_units and prev < K:   # a vowel no onset precedes
                count[model.onset_units[0]] += 1
            prev = uid
    log_prior = torch.log(torch.tensor([count[u] for u in model.onset_units]))
    with torch.no_grad():
        s_on, s_vo = model._scores(False)
        log_lik = torch.log_softmax(s_on, dim=1)[:, 1:]      # (onsets, signs): log P(sign | onset)
        onset = (log_lik + log_prior.unsqueeze(1)).argmax(dim=0)
        vowel = s_vo.argmax(dim=1)
    return {sign: (model.onset_units[int(onset[i])], model.vowel_units[int(vowel[i])])
            for i, sign in enumerate(prep.lost_letters[1:])}


def read_rows(path: Path, missing_ok: bool = False) -> list[dict]:
    """The rows of a result file (JSON lines); one line naming the file and the line (exit 2) where it is
    missing (unless ``missing_ok``: none) or a line is not JSON."""
    if not path.is_file():
        if missing_ok:
            return []
        print(f"error: {path}: no such result file", file=sys.stderr)
        raise SystemExit(2)
    rows = []
    for n, ln in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if ln.strip():
            try:
                rows.append(json.loads(ln))
            except json.JSONDecodeError as e:
                print(f"error: {path}:{n}: not a JSON row ({e.msg})", file=sys.stderr)
                raise SystemExit(2) from None
    return rows


def one(cipher: str, seed: int, sets: list[str]) -> dict:
    """Train one start of ``cipher`` through its word phase and measure it (runs in its own process)."""
    from engine.config import config_from_options
    from engine.results import EvalEvent, StepEvent
    from engine.training.diagnosis import diagnose
    from engine.training.final_objective import corpus_objective
    from engine.training.trainer import Trainer
    from engine.io.tables import read_gold

    entry = manifest()[0][cipher]
    folder = build_cipher(entry)
    corpus, vocab = load_folder(folder)
    base = config_from_options(preset="syllabary", config_file=folder / "settings.toml", assignments=sets,
                               seed=seed)
    cfg = base.replace(restarts=1, steps=base.words_first, eval_interval=0)
    t0 = time.time()
    trainer = Trainer(corpus, vocab, cfg, gold=read_gold(folder / "gold.csv"), live_interval=None)
    if trainer.words_prep is None:
        raise SystemExit(f"{cipher}: no pseudo-words (setting words_first {cfg.words_first})")
    row: dict = {}
    metrics: dict = {}
    # the objective over the pseudo-words at the preset's screen and at other steps a screen could be made
    # (a later one, or several in turn, as successive halving keeps half the starts at each)
    checkpoints = {250, base.restart_steps, 1000} & set(range(1, cfg.steps))
    for ev in trainer.run():
        if isinstance(ev, StepEvent) and ev.step in checkpoints and trainer.in_words_phase():
            words = corpus_objective(trainer, prep=trainer.words_prep)["objective"]
            row.setdefault("words_objectives", {})[str(ev.step)] = words
            if ev.step == base.restart_steps:
                row["screen_objective"] = words
        elif isinstance(ev, EvalEvent):
            metrics = dict(ev.metrics)
    words = corpus_objective(trainer, prep=trainer.words_prep)
    text = corpus_objective(trainer)
    row["words_objective"], row["text_objective"] = words["objective"], text["objective"]
    # the objective's parts over the text, and the gold-free figures the diagnosis computes there: what else a
    # screen at the phase's end could rank the starts on (from 2026-12-06)
    row["text_parts"] = {k: float(v) for k, v in text.items()}
    row["diagnosis"] = {k: float(v) for k, v in diagnose(trainer).values.items()}
    key = read_key(folder)
    top = trainer.mapping().syllables.top_values()
    # each sign's reading, (onset, vowel): what a vote of several starts would count (from 2026-12-06)
    row["reading"] = {sign: list(value) for sign, value in sorted(top.items())}
    both, onsets, vowels, total = syllables_right(top, key)
    pb, po, _, _ = syllables_right(prior_reading(trainer), key)
    row.update(prior_values_share=pb / total, prior_onsets_share=po / total)
    row.update(p_at_10=metrics.get("p_at_10"), p_at_10_strict=metrics.get("p_at_10_strict"),
               values_share=both / total, onsets_share=onsets / total, vowels_share=vowels / total,
               steps=trainer.step, wall_s=round(time.time() - t0, 1))
    return row


def run(args, module: str = "benchmarks.experiments.word_phase_starts", extra: tuple[str, ...] = ()) -> int:
    """Each (cipher of ``args.ids``, seed of ``args.seeds``) not yet in ``args.out`` trained in its own process
    (``python -m MODULE --one CIPHER SEED``, with ``args.set`` and ``extra``, options of MODULE), its row (the
    process's last line of output, as JSON) appended to ``args.out`` with what the cipher is, the commit and the
    command; ``args.workers`` at once. 1 when a process failed (its row says how), else 0."""
    from benchmarks.commit import short_commit

    ciphers = manifest()[0]
    for c in args.ids:
        if c not in ciphers or ciphers[c]["split"] != "dev" or ciphers[c]["script"] != "syllabary":
            print(f"error: {c} is not a dev syllabary of benchmarks/cipher_manifest.toml", file=sys.stderr)
            return 2
    done = {(r["id"], r["seed"], tuple(r["sets"])) for r in read_rows(args.out, missing_ok=True)}
    todo = [(c, s) for s in args.seeds for c in args.ids if (c, s, tuple(args.set)) not in done]
    commit = short_commit()

    def work(job: tuple[str, int]) -> dict:
        c, s = job
        cmd = [sys.executable, "-m", module, "--one", c, str(s), *[a for kv in args.set for a in ("--set", kv)],
               *extra]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                              env={**os.environ, **PINNED_ENV, "PYTHONPATH": str(ROOT)})
        e = ciphers[c]
        row = {"id": c, "seed": s, "sets": list(args.set), "source": e["source"], "relation": e["relation"],
               "wr": e["wr"], "commit": commit,
               "command": f"python -m {module} --ids {c} --seeds {s}" + "".join(f" --set {kv}" for kv in args.set)
                          + "".join(f" {a}" for a in extra) + f" --out {args.out}"}
        if proc.returncode != 0:
            row["error"] = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        else:
            row.update(json.loads(proc.stdout.strip().splitlines()[-1]))
        with open(args.out, "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)
        return row

    args.out.parent.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        rows = list(pool.map(work, todo))
    return 1 if any("error" in r for r in rows) else 0


def table(path: Path) -> str:
    """Markdown: for each cipher its starts' P@10 at the end of the word phase, and the start that each screen
    (lowest objective over the pseudo-words at step 500, the preset's; lowest objective over the text at the
    phase's end) keeps among them, beside the best of them by the gold."""
    rows = read_rows(path)
    rows = [r for r in rows if "error" not in r]
    out = ["| dev cipher | settings over the preset's | starts' P@10 (seed: P@10) | kept at step 500 "
           "| kept at the phase's end | best |", "| --- | --- | --- | --- | --- | --- |"]
    for c, sets in dict.fromkeys((r["id"], tuple(r["sets"])) for r in rows):
        rs = sorted((r for r in rows if r["id"] == c and tuple(r["sets"]) == sets), key=lambda r: r["seed"])
        early = min(rs, key=lambda r: r["screen_objective"])
        late = min(rs, key=lambda r: r["text_objective"])
        best = max(rs, key=lambda r: r["p_at_10"])
        out.append(f"| {c.removeprefix('dev-s-')} | {' '.join(sets) or '–'} | "
                   + ", ".join(f"{r['seed']}: {r['p_at_10']:.3f}" for r in rs)
                   + f" | {early['p_at_10']:.3f} | {late['p_at_10']:.3f} | {best['p_at_10']:.3f} |")
    return "\n".join(out)


#: the screens a choice among starts could be made on: (name, the row's objective, lower is better)
SCREENS = (("words@250", lambda r: r.get("words_objectives", {}).get("250")),
           ("words@500", lambda r: r.get("screen_objective")),
           ("words@1000", lambda r: r.get("words_objectives", {}).get("1000")),
           ("text@end", lambda r: r.get("text_objective")))


def expected_kept(values: list[float], scores: list[float], size: int, first: list[float] | None = None,
                  keep: int = 1) -> float:
    """The mean, over every subset of ``size`` starts of a pool, of the ``values`` of the start with the lowest
    ``scores`` in the subset (ties: the first): what a run of ``size`` starts screened on that score keeps, on
    average, when its starts are drawn from the pool. With ``first``: a screen in two rounds, the ``keep``
    starts of the subset lowest on ``first`` go on, and of those the lowest on ``scores`` is kept."""
    from itertools import combinations

    kept = []
    for c in combinations(range(len(values)), size):
        if first is not None:
            c = sorted(c, key=lambda i: (first[i], i))[:keep]
        kept.append(values[min(c, key=lambda i: (scores[i], i))])
    return sum(kept) / len(kept)


def paired(new: Path, base: list[Path], base_sets: list[str] | None = None) -> dict:
    """The starts of ``new`` beside the starts of ``base`` (one or more result files) of the same text and seed
    (base rows with the settings ``base_sets``, default none): per text and over every pair, the mean P@10 and
    share of signs at their key value where the word phase ends, each way, and how many pairs the new start reads
    more of (P@10)."""
    import statistics

    want = list(base_sets or [])
    ref = {(r["id"], r["seed"]): r for path in base for r in read_rows(path)
           if "error" not in r and list(r["sets"]) == want}
    pairs = [(r, ref[(r["id"], r["seed"])]) for r in read_rows(new) if "error" not in r and (r["id"], r["seed"]) in ref]
    if not pairs:
        print(f"error: {new}: no start whose text and seed a base file has", file=sys.stderr)
        raise SystemExit(2)

    def summary(ps: list[tuple[dict, dict]]) -> dict:
        return {"pairs": len(ps), "seeds": sorted({a["seed"] for a, _ in ps}),
                "p_at_10": statistics.fmean(a["p_at_10"] for a, _ in ps),
                "base_p_at_10": statistics.fmean(b["p_at_10"] for _, b in ps),
                "values_share": statistics.fmean(a["values_share"] for a, _ in ps),
                "base_values_share": statistics.fmean(b["values_share"] for _, b in ps),
                "higher": sum(a["p_at_10"] > b["p_at_10"] for a, b in ps)}

    texts = {c: summary([(a, b) for a, b in pairs if a["id"] == c]) for c in dict.fromkeys(a["id"] for a, _ in pairs)}
    return {"texts": texts, "all": summary(pairs)}


def check_readings(rows: list[dict]) -> list[dict[str, str]]:
    """The starts' readings (rows' ``reading``: sign -> [onset, vowel]) as the diagnosis's starts check compares
    them (MappingSnapshot.top_readings: sign -> "onset vowel")."""
    return [{sign: f"{o} {v}" for sign, (o, v) in r["reading"].items()} for r in rows]


def write_summary(out: Path, options: str, data: dict) -> dict:
    """``data`` with the commit and the command (``python -m …word_phase_starts OPTIONS --out OUT``) written to
    ``out`` as JSON (whole or not at all); returns what was written."""
    from benchmarks.commit import short_commit
    from engine.io.atomic import write_text

    summary = {"commit": short_commit(),
               "command": f"python -m benchmarks.experiments.word_phase_starts {options} --out {out}", **data}
    write_text(out, json.dumps(summary, indent=1) + "\n")
    return summary


def expected_medoid(values: list[float], readings: list[dict[str, str]], size: int) -> float:
    """The mean, over every subset of ``size`` starts of a pool, of the ``values`` of the start whose reading
    the other starts of the subset share most (the sum of starts_agreement; ties: the first)."""
    from itertools import combinations

    from engine.training.diagnosis import starts_agreement

    kept = []
    for c in combinations(range(len(values)), size):
        sub = [readings[i] for i in c]
        kept.append(values[c[max(range(size), key=lambda j: (sum(starts_agreement(sub, j)), -j))]])
    return sum(kept) / len(kept)


#: gold-free figures of a start where its word phase ends, for their rank correlation with its P@10
FIGURES = (("text objective", lambda r: r.get("text_objective")),
           ("words@500", lambda r: r.get("screen_objective")),
           ("text coverage", lambda r: r.get("text_parts", {}).get("coverage_ratio")),
           ("text quality", lambda r: r.get("text_parts", {}).get("quality")),
           ("crowded share", lambda r: r.get("diagnosis", {}).get("diagnosis_crowded_share")),
           ("distinct values", lambda r: r.get("diagnosis", {}).get("diagnosis_distinct_values")),
           ("vowel agreement p", lambda r: r.get("diagnosis", {}).get("diagnosis_vowel_agreement_p")))


def spearman(x: list[float], y: list[float]) -> float:
    """Spearman's rank correlation (average ranks for ties; benchmarks/closeness_length_size.py's); NaN when
    either side is constant."""
    import statistics

    from benchmarks.closeness_length_size import spearman as ranked

    try:
        return ranked(x, y)
    except statistics.StatisticsError:
        return float("nan")


def screens(path: Path, sizes: tuple[int, ...] = (1, 2, 4, 8)) -> list[dict]:
    """For each (cipher, settings) of a result file: the expected P@10 where the word phase ends of the start
    that each screen (SCREENS) keeps, for runs of each size in ``sizes`` drawn from the file's starts (only
    screens that every start of the pool has a figure for: rows before 2026-12-06 have no words@250 and
    words@1000; a size larger than the pool is left out), beside the pool's best."""
    rows = read_rows(path)
    rows = [r for r in rows if "error" not in r]
    out = []
    for c, sets in dict.fromkeys((r["id"], tuple(r["sets"])) for r in rows):
        rs = sorted((r for r in rows if r["id"] == c and tuple(r["sets"]) == sets), key=lambda r: r["seed"])
        values = [float(r["p_at_10"]) for r in rs]
        entry = {"id": c, "sets": list(sets), "starts": len(rs), "seeds": [r["seed"] for r in rs],
                 "p_at_10": values, "best": max(values),
                 "kept": {name: {str(k): expected_kept(values, [float(f(r)) for r in rs], k)
                                 for k in sizes if k <= len(rs)}
                          for name, f in SCREENS if all(f(r) is not None for r in rs)}}
        # two rounds: half the starts (at least 2) kept at the preset's screen go on to the phase's end
        early, late = SCREENS[1][1], SCREENS[-1][1]
        rounds = {str(k): expected_kept(values, [float(late(r)) for r in rs], k, [float(early(r)) for r in rs],
                                        max(2, k // 2))
                  for k in sizes if 2 < k <= len(rs) and all(early(r) is not None and late(r) is not None for r in rs)}
        if rounds:
            entry["kept"]["words@500, half to text@end"] = rounds
        # a screen by agreement: the start whose reading the others of the run share most (a medoid), the
        # starts check's figure (engine/training/diagnosis.py) used to choose instead of to judge; drawn from the
        # starts that kept their readings, beside the objective's screen over the same starts
        have = [r for r in rs if "reading" in r and r.get("text_objective") is not None]
        sizes_r = [k for k in sizes if 2 < k <= len(have)]
        if sizes_r:
            held = [float(r["p_at_10"]) for r in have]
            readings = check_readings(have)
            entry["kept"]["agreement (starts with readings)"] = {
                str(k): expected_medoid(held, readings, k) for k in sizes_r}
            entry["kept"]["text@end (starts with readings)"] = {
                str(k): expected_kept(held, [float(r["text_objective"]) for r in have], k) for k in sizes_r}
        # each figure's rank correlation with P@10 over the starts that have it (3 or more)
        entry["spearman"] = {}
        for name, f in FIGURES:
            have = [r for r in rs if f(r) is not None]
            if len(have) >= 3:
                entry["spearman"][name] = {"starts": len(have), "rho": spearman(
                    [float(f(r)) for r in have], [float(r["p_at_10"]) for r in have])}
        out.append(entry)
    return out


def starts_check(paths: list[Path], size: int = 4, thresholds: tuple[float, ...] = (0.35, 0.4, 0.45, 0.5, 0.55, 0.6,
                                                                                     0.65)) -> dict:
    """The diagnosis's ``starts`` check (engine/training/diagnosis.py) on runs of ``size`` starts drawn from pools
    of single starts (the rows of ``paths`` that hold readings; a pool smaller than ``size`` is left out): for
    every subset of ``size`` starts of a text, the start its screen keeps (the lowest objective over the text where
    the word phase ends, as restart_after_words screens) and the largest share of its signs another start of the
    subset reads alike (starts_agreement), with whether the kept start is read by the manifest's rule where the
    phase ends. Per text and pooled: that share among kept starts read, kept starts at P@10 below the rule's, and
    kept starts not read; per threshold: the share of read kept starts it passes, of not-read ones it flags, and of
    the starts it passes that are read."""
    import itertools
    import statistics

    from engine.training.diagnosis import starts_agreement

    rows = [r for path in paths for r in read_rows(path) if "error" not in r and "reading" in r]
    kept: list[dict] = []
    texts = []
    for c, sets in dict.fromkeys((r["id"], tuple(r["sets"])) for r in rows):
        rs = sorted((r for r in rows if r["id"] == c and tuple(r["sets"]) == sets), key=lambda r: r["seed"])
        if len(rs) < size:          # no run of ``size`` starts can be drawn from this pool
            continue
        readings = check_readings(rs)
        mine = []
        for sub in itertools.combinations(range(len(rs)), size):
            k = min(sub, key=lambda i: rs[i]["text_objective"])
            agree = max(starts_agreement([readings[i] for i in sub], sub.index(k)))
            p10, signs = float(rs[k]["p_at_10"]), float(rs[k]["values_share"])
            mine.append({"id": c, "agreement": agree, "p_at_10": p10,
                         "read": p10 >= READ_P10["syllabary"] and signs >= SIGNS_RIGHT})
        kept += mine
        texts.append({"id": c, "sets": list(sets), "starts": len(rs), "subsets": len(mine),
                      "kept_read": sum(m["read"] for m in mine),
                      "agreement_median": statistics.median(m["agreement"] for m in mine),
                      "agreement_min": min(m["agreement"] for m in mine),
                      "agreement_max": max(m["agreement"] for m in mine)})

    def spread(xs: list[float]) -> dict:
        xs = sorted(xs)
        return {"n": len(xs), **({"min": xs[0], "median": statistics.median(xs), "max": xs[-1],
                                  "q95": xs[min(len(xs) - 1, int(0.95 * len(xs)))]} if xs else {})}

    read = [m["agreement"] for m in kept if m["read"]]
    unread = [m["agreement"] for m in kept if not m["read"]]
    low = [m["agreement"] for m in kept if m["p_at_10"] < READ_P10["syllabary"]]
    per = []
    for t in thresholds:
        fine = [m for m in kept if m["agreement"] >= t]
        per.append({"threshold": t, "read_passed": sum(a >= t for a in read) / len(read) if read else None,
                    "not_read_flagged": sum(a < t for a in unread) / len(unread) if unread else None,
                    "fine": len(fine), "fine_read": sum(m["read"] for m in fine) / len(fine) if fine else None})
    return {"size": size, "texts": texts, "kept_read": spread(read), "kept_p10_below": spread(low),
            "kept_not_read": spread(unread), "thresholds": per}


def vote(readings: list[dict[str, list[str]]], weights: list[float] | None = None) -> dict[str, tuple[str, str]]:
    """Each sign's onset and its vowel as most of the starts read them (each start's vote weighed by
    ``weights``, default 1; ties: the value first met), the onset and the vowel counted apart."""
    import collections

    weights = weights or [1.0] * len(readings)
    onsets: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    vowels: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for reading, w in zip(readings, weights):
        for sign, (onset, vowel) in reading.items():
            onsets[sign][onset] += w
            vowels[sign][vowel] += w
    return {sign: (onsets[sign].most_common(1)[0][0], vowels[sign].most_common(1)[0][0]) for sign in onsets}


def votes(path: Path) -> list[dict]:
    """For each (cipher, settings) of a result file whose rows hold the starts' readings: the share of signs
    at their standard onset and vowel (both, and each) of each start and of the starts' vote (key.csv)."""
    from benchmarks.cipher_suite import build_cipher

    rows = read_rows(path)
    rows = [r for r in rows if "error" not in r and "reading" in r]
    out = []
    for c, sets in dict.fromkeys((r["id"], tuple(r["sets"])) for r in rows):
        rs = sorted((r for r in rows if r["id"] == c and tuple(r["sets"]) == sets), key=lambda r: r["seed"])
        key = read_key(build_cipher(manifest()[0][c]))

        def shares(top):
            both, onsets, vowels, total = syllables_right(top, key)
            return {"values": both / total, "onsets": onsets / total, "vowels": vowels / total}

        starts = [shares({k: tuple(v) for k, v in r["reading"].items()}) for r in rs]
        out.append({"id": c, "sets": list(sets), "seeds": [r["seed"] for r in rs],
                    "p_at_10": [r["p_at_10"] for r in rs], "starts": starts,
                    "starts_mean": {k: sum(x[k] for x in starts) / len(starts) for k in starts[0]},
                    "vote": shares(vote([r["reading"] for r in rs]))})
    return out


def agreement(readings: list[dict[str, list[str]]]) -> dict[str, float]:
    """Each sign's share of the starts that read it as the vote does, the onset and the vowel counted apart
    (the lower of the two)."""
    top = vote(readings)
    n = len(readings)
    return {sign: min(sum(r.get(sign, [None, None])[0] == o for r in readings),
                      sum(r.get(sign, [None, None])[1] == v for r in readings)) / n
            for sign, (o, v) in top.items()}


def vote_run(cipher: str, rows_path: Path, sets: list[str], min_agree: float, pinned_steps: int, steps: int,
             seed: int) -> dict:
    """The starts' vote as a start: the signs that at least ``min_agree`` of the starts (rows of ``rows_path``
    for ``cipher`` with settings ``sets``) read alike pinned to the vote's value for ``pinned_steps`` of one
    start of the preset (seed ``seed``), then released and trained on to ``steps``. The gold (key.csv,
    gold.csv) only measures: how many pins are right, the released run's P@10 and signs right."""
    from benchmarks.cipher_suite import RUNS, pinned_then_released
    from engine.io.atomic import write_csv
    from engine.io.tables import read_known
    from engine.model.phonology import ipa_units
    from engine.model.syllables import NULL_ONSET

    if cipher not in manifest()[0]:
        print(f"error: --vote-run {cipher}: no cipher of that id in the manifest", file=sys.stderr)
        raise SystemExit(2)
    rows = read_rows(rows_path)
    rows = [r for r in rows if r["id"] == cipher and r["sets"] == sets and "reading" in r and "error" not in r]
    if not rows:
        raise SystemExit(f"{rows_path}: no starts of {cipher} with their readings and settings {sets}")
    readings = [r["reading"] for r in rows]
    top, agree = vote(readings), agreement(readings)
    folder = build_cipher(manifest()[0][cipher])
    units = {u for st in read_known(folder / "known.csv") for u in ipa_units(st.ipa)}
    pins = {sign: (o, v) for sign, (o, v) in top.items()
            if agree[sign] >= min_agree and v in units and (o == NULL_ONSET or o in units)}
    work = RUNS / "vote" / f"{cipher}-a{min_agree:g}-s{seed}"
    work.mkdir(parents=True, exist_ok=True)
    prior = work / "vote-prior.csv"
    if prior.exists():
        prior.unlink()
    write_csv(prior, ("lost", "known_ipa", "weight"),
              [(sign, v if o == NULL_ONSET else o + v, "1") for sign, (o, v) in sorted(pins.items())])
    t0 = time.time()
    extra = ["--preset", "syllabary", "--set", "restarts=1", *[a for kv in sets for a in ("--set", kv)]]
    t, ev, released = pinned_then_released(folder, prior, work, extra, pinned_steps, steps, seed)
    key = read_key(folder)
    right = syllables_right(pins, key)
    both, onsets, vowels, total = syllables_right(t.mapping().syllables.top_values(), key)
    return {"id": cipher, "sets": sets, "starts": len(rows), "seeds_voting": [r["seed"] for r in rows],
            "min_agree": min_agree, "seed": seed, "pins": len(pins), "pins_right": right[0],
            "vote_values_share": syllables_right(top, key)[0] / total,
            "pinned_steps": pinned_steps, "steps": steps, "p_at_10": ev.metrics.get("p_at_10"),
            "p_at_10_strict": ev.metrics.get("p_at_10_strict"), "values_share": both / total,
            "onsets_share": onsets / total, "vowels_share": vowels / total,
            "objective": released["objective"], "wall_s": round(time.time() - t0, 1)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ids", nargs="+", default=[], help="dev syllabaries of the manifest")
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3])
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a setting over the preset's")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", type=Path)
    p.add_argument("--table", type=Path, help="print the table of a result file and stop")
    p.add_argument("--screens", type=Path, metavar="ROWS",
                   help="write (to --out, JSON) what each screen keeps, on average, of runs of 1, 2, 4 and 8 starts "
                        "drawn from the starts of ROWS, and stop")
    p.add_argument("--votes", type=Path, metavar="ROWS", help="print how many signs the starts' vote reads right")
    p.add_argument("--agreement", type=Path, nargs="+", metavar="ROWS",
                   help="write (to --out, JSON) what the diagnosis's starts check says of runs of 4 starts drawn from "
                        "the starts of ROWS (those with readings), and stop")
    p.add_argument("--paired", type=Path, nargs="+", metavar="ROWS",
                   help="NEW BASE...: write (to --out, JSON) the starts of NEW beside those of the BASE files of the "
                        "same text and seed (P@10 and signs right where the word phase ends), and stop")
    p.add_argument("--base-set", action="append", default=[], metavar="KEY=VALUE",
                   help="with --paired: the base starts are those run with these settings (default: none)")
    p.add_argument("--vote-run", metavar="CIPHER", help="train CIPHER from the vote of the starts of --rows, "
                   "pinned then released, and append its row to --out")
    p.add_argument("--rows", type=Path, help="with --vote-run: the starts' rows (with their readings)")
    p.add_argument("--min-agree", type=float, default=0.5, help="with --vote-run: pin the signs at least this "
                   "share of the starts read as the vote does")
    p.add_argument("--pinned-steps", type=int, default=1000)
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--one", nargs=2, metavar=("CIPHER", "SEED"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]), args.set)))
        return 0
    if args.table:
        print(table(args.table))
        return 0
    if args.vote_run:
        from benchmarks.commit import short_commit

        if args.out is None or args.rows is None:
            p.error("--vote-run needs --rows and --out")
        row = vote_run(args.vote_run, args.rows, args.set, args.min_agree, args.pinned_steps, args.steps,
                       args.seed)
        row.update(commit=short_commit(), command=(
            f"python -m benchmarks.experiments.word_phase_starts --vote-run {args.vote_run} --rows {args.rows}"
            + "".join(f" --set {kv}" for kv in args.set) + f" --min-agree {args.min_agree:g} --pinned-steps "
            f"{args.pinned_steps} --steps {args.steps} --seed {args.seed} --out {args.out}"))
        with open(args.out, "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)
        return 0
    if args.votes:
        for e in votes(args.votes):
            m, v = e["starts_mean"], e["vote"]
            print(e["id"], " ".join(e["sets"]), f"{len(e['seeds'])} starts: signs right (values, onsets, vowels) "
                  f"mean {m['values']:.3f} {m['onsets']:.3f} {m['vowels']:.3f}, best start "
                  f"{max(x['values'] for x in e['starts']):.3f}; vote {v['values']:.3f} {v['onsets']:.3f} "
                  f"{v['vowels']:.3f}")
        return 0
    if args.paired:
        if args.out is None:
            p.error("--paired needs --out")
        new_rows, *base = args.paired
        if not base:
            p.error("--paired NEW BASE...: the new starts' file and at least one base file")
        summary = write_summary(args.out, "--paired " + " ".join(map(str, args.paired))
                                + "".join(f" --base-set {kv}" for kv in args.base_set),
                                paired(new_rows, base, args.base_set))
        for c, e in {**summary["texts"], "all": summary["all"]}.items():
            print(f"{c}: {e['pairs']} pairs, P@10 {e['base_p_at_10']:.3f} -> {e['p_at_10']:.3f}, signs "
                  f"{e['base_values_share']:.3f} -> {e['values_share']:.3f}, higher in {e['higher']}")
        return 0
    if args.agreement:
        if args.out is None:
            p.error("--agreement needs --out")
        summary = write_summary(args.out, "--agreement " + " ".join(map(str, args.agreement)),
                                {"rows": [str(x) for x in args.agreement], **starts_check(args.agreement)})
        for e in summary["texts"]:
            print(e["id"], f"{e['subsets']} runs of 4, {e['kept_read']} kept read; agreement min "
                  f"{e['agreement_min']:.3f} median {e['agreement_median']:.3f} max {e['agreement_max']:.3f}")
        for d in summary["thresholds"]:
            print(d)
        return 0
    if args.screens:
        if args.out is None:
            p.error("--screens needs --out")
        summary = write_summary(args.out, f"--screens {args.screens}",
                                {"rows": str(args.screens), "ciphers": screens(args.screens)})
        for e in summary["ciphers"]:
            print(e["id"], " ".join(e["sets"]), f"best {e['best']:.3f}",
                  " | ".join(f"{n} " + " ".join(f"{k}:{v:.3f}" for k, v in d.items()) for n, d in e["kept"].items()))
        return 0
    if not args.ids or args.out is None:
        p.error("--ids and --out are required")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
