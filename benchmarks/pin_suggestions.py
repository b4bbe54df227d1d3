"""Does pinning the suggested sign help more than pinning another one? (issue 27 item 4)

On synthetic ciphers (engine/datasets/synthetic.py), each trained ``--steps`` steps, the run's state is
continued ``--extra`` more steps with ONE more pin (the sign pinned to its true value from the
cipher's key) for each strategy, and with no pin as the reference:

* ``suggested``: the top sign of engine/training/pin_suggestions.py's ``rank="uncertainty"`` (uncertainty x
  share of the text; the app now ranks by share, i.e. ``frequent``, which did at least as well);
* ``uncertain``: the sign with the largest uncertainty alone (an ablation: no text share);
* ``counterfactual``: the sign whose pin to its best sound changes most decoded spans
  (``pin_suggestions.counterfactuals``: a re-decode per sign, no training);
* ``disagree``: share x seed disagreement: the cipher is also trained ``--seeds`` - 1 more times (training
  seeds c + 1000, c + 2000, ...) as far; disagreement = the share of the seeds whose own best sound is
  not the best sound of their averaged mapping (``suggest_pins``' ``agreeing``);
* ``misfit``: share x misfit rate: how often the base run's decoded matches, aligned to their best
  stem, read the sign as another sound than its best one or as half of an insertion
  (``pin_suggestions.misfits``);
* ``frequent``: the most frequent unpinned sign;
* ``random``: ``--draws`` signs drawn (seeded by the cipher) from the unpinned signs;
* ``probe``: the ``--probe`` most frequent signs, each pinned: the table's "best of" column is the
  best one pin among them could do (an oracle, for scale; with ``--probe 30`` every sign).

The two new rankings' scores were fixed before any of their numbers were seen; ties go to the more
frequent sign. The header row of each cipher keeps every sign's signals (``features``; with
``best_is_true`` for analysis only), so other combinations can be judged against the probes.

Every continuation starts from the same state (model, optimiser, random streams), so two
strategies that pick the same sign get the same result (it is trained once). Gain = P@10 after the
pin minus P@10 of the no-pin continuation. Rows go to a JSONL file as they finish; a second run
skips what is there (resumable). ``--table`` prints the Markdown table of a results file.

    nice -n 10 python -m benchmarks.pin_suggestions --out benchmarks/results/pin-suggestions-v2.jsonl
    python -m benchmarks.pin_suggestions --out benchmarks/results/pin-suggestions-v2.jsonl --table

How much of a gain is noise (``--noise R --source FILE``): each cipher of FILE is trained to the same
state again, and its no-pin continuation and the pins of its probed signs are continued ``R`` - 1 more
times with other continuation seeds (the batches' order and the dropout masks drawn anew from the same
state; seed 0 is FILE's own continuation). ``--noise-table`` then gives a single gain's spread, and the
gain of the most frequent sign and of the oracle's sign (the best probed one on seed 0) on seed 0 and on
the seeds that did not choose it: the "best of 5" oracle of one continuation takes a maximum of noisy
values, so only the other seeds show how much of its lead is real.

    nice -n 10 python -m benchmarks.pin_suggestions --noise 3 --source benchmarks/results/pin-suggestions-v2.jsonl \
        --out benchmarks/results/pin-suggestions-v2-noise.jsonl
    python -m benchmarks.pin_suggestions --noise-table --source benchmarks/results/pin-suggestions-v2.jsonl \
        --out benchmarks/results/pin-suggestions-v2-noise.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

CIPHERS = (1, 2, 3, 4, 5, 6, 7, 8)
STRATEGIES = ("suggested", "uncertain", "counterfactual", "disagree", "misfit", "frequent", "random", "probe")
LABELS = {"suggested": "uncertainty × share", "uncertain": "uncertainty alone", "counterfactual": "counterfactual",
          "disagree": "seed disagreement × share", "misfit": "misfit × share",
          "frequent": "most frequent (the app's)", "random": "random"}
SEED_STRIDE = 1000   # the other seeds of cipher c train with seeds c + 1000, c + 2000, ...
# the new rankings: each a score of a candidate's features; ties go to the more frequent sign
NEW = {
    "disagree": lambda f: f["share"] * (f["seeds"] - f["agreeing"]) / max(1, f["seeds"]),
    "misfit": lambda f: f["share"] * (f["misfit"] / f["aligned"] if f["aligned"] else 0.0),
}
CONFIG = dict(feature_dim=8, eval_interval=0, min_span=3, max_span=6)


def _done(path: Path) -> set[tuple]:
    if not path.exists():
        return set()
    with open(path, encoding="utf-8") as f:
        return {(r["cipher"], r["sign"]) for r in (json.loads(line) for line in f if line.strip())}


def _rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _features(base, base_ev, others, candidates, truth, shares) -> dict[str, dict]:
    """Per candidate sign, every gold-free signal a ranking may use (and, for analysis only, whether
    its best sound is the true one)."""
    from engine.training.pin_suggestions import misfits, suggest_pins

    cfg = base.config
    single = {s.sign: s for s in suggest_pins(base_ev.mapping, shares, pins=base.pins, top=None)}
    seeds = {s.sign: s for s in suggest_pins([base_ev.mapping, *others], shares, pins=base.pins, top=None)}
    mis = misfits(base_ev.mapping, base_ev.matches, gamma=cfg.insertion_cost_end, band=cfg.band)
    out = {}
    for c in candidates:
        one, many, m = single.get(c), seeds.get(c), mis.get(c)
        if one is None:
            continue
        out[c] = {"share": round(shares[c], 5), "uncertainty": round(one.uncertainty, 4), "best": one.best,
                  "best_is_true": one.best == truth[c],
                  "seeds": many.mappings, "agreeing": many.agreeing, "seeds_best": many.best,
                  "seeds_uncertainty": round(many.uncertainty, 4),
                  "aligned": m.aligned if m else 0, "misfit": m.misfit if m else 0}
    return out


def _pick(features: dict[str, dict], key) -> str:
    """The candidate with the largest ``key(features)``; ties: the more frequent, then the sign."""
    return max(features, key=lambda c: (key(features[c]), features[c]["share"], c))


def _base_state(seed: int, args):
    """A cipher and the run trained ``args.steps`` steps on it, the state every continuation starts
    from: (cipher, settings, total steps, trainer, its last evaluation)."""
    from engine.config import Config
    from engine.datasets.synthetic import make_cipher
    from engine.results import EvalEvent
    from engine.training.trainer import Trainer

    cipher = make_cipher(n_stems=args.stems, n_inscriptions=args.inscriptions, seed=seed)
    total = args.steps + args.extra
    cfg = Config(**CONFIG, steps=total, anneal_steps=int(0.6 * total), seed=seed)
    base = Trainer(cipher.corpus, cipher.vocabulary, cfg, gold=cipher.gold, live_interval=None)
    return cipher, cfg, total, base, [e for e in base.run(args.steps) if isinstance(e, EvalEvent)][-1]


def run_cipher(seed: int, args, out: Path) -> None:
    from engine.corpus import PinnedValue
    from engine.training.pin_suggestions import corpus_shares, counterfactuals, suggest_for_trainer
    from engine.results import EvalEvent
    from engine.training.trainer import Trainer

    done = _done(out)
    planned = _planned(seed, out)
    if planned is not None and all((seed, s) in done for s in planned):
        return
    t0 = time.perf_counter()
    cipher, cfg, total, base, base_ev = _base_state(seed, args)
    state = base.state()
    truth = {letter: unit for unit, letter in cipher.key.items()}
    known = set(base.prep.known_units)
    shares = corpus_shares(cipher.corpus)
    # only signs whose true sound the vocabulary has (a pin naming a new sound would change the model's shape)
    candidates = sorted(s for s in shares if truth.get(s) in known)
    ranked = [s for s in suggest_for_trainer(base, top=None, rank="uncertainty") if s.sign in candidates]
    # the same cipher trained with other seeds, as far (the disagreement signal)
    others = []
    for k in range(1, args.seeds):
        t = Trainer(cipher.corpus, cipher.vocabulary, cfg.replace(seed=seed + SEED_STRIDE * k),
                    gold=cipher.gold, live_interval=None)
        others.append([e for e in t.run(args.steps) if isinstance(e, EvalEvent)][-1].mapping)
    feats = _features(base, base_ev, others, candidates, truth, shares)
    by_share = sorted(feats, key=lambda c: (-feats[c]["share"], c))
    picks = {
        "suggested": [ranked[0].sign],
        "uncertain": [max(ranked, key=lambda s: (s.uncertainty, s.text_share)).sign],
        "counterfactual": [counterfactuals(base, candidates)[0].sign],
        **{k: [_pick(feats, f)] for k, f in NEW.items()},
        "frequent": [max(candidates, key=lambda s: (shares[s], s))],
        "random": random.Random(1000 + seed).sample(candidates, min(args.draws, len(candidates))),
        "probe": by_share[:args.probe],
    }
    head = {"cipher": seed, "stems": args.stems, "inscriptions": args.inscriptions, "steps": args.steps,
            "extra": args.extra, "p_at_10_base": base_ev.metrics["p_at_10"]}
    if planned is None:
        _write(out, {**head, "sign": "", "truth": "", "p_at_10": None, "picks": picks, "features": feats,
                     "ranked": [[s.sign, round(s.score, 4), round(s.uncertainty, 3), round(s.text_share, 4),
                                 s.reason] for s in ranked]})
    for sign in ["", *dict.fromkeys(s for v in picks.values() for s in v)]:
        if (seed, sign or "<none>") in done:
            continue
        pins = [PinnedValue(sign, truth[sign])] if sign else []
        t = Trainer(cipher.corpus, cipher.vocabulary, cfg, gold=cipher.gold, pins=pins, state=state,
                    live_interval=None)
        ev = [e for e in t.run(total) if isinstance(e, EvalEvent)][-1]
        _write(out, {**head, "sign": sign or "<none>", "truth": truth.get(sign, ""),
                     "p_at_10": ev.metrics["p_at_10"], "p_at_1": ev.metrics["p_at_1"]})
        print(f"cipher {seed} pin {sign or '-'}: P@10 {ev.metrics['p_at_10']:.3f} "
              f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)


#: continuation seed k of cipher c draws its streams from c * NOISE_STRIDE + k
NOISE_STRIDE = 100


def run_noise(seed: int, args, source: Path, out: Path) -> int:
    """Continuations ``1 .. args.noise - 1`` of one cipher of ``source`` (its no-pin continuation and its
    probed signs' pins), from the state it was trained to; rows to ``out``. Returns how many were made."""
    import numpy as np
    import torch

    from engine.corpus import PinnedValue
    from engine.results import EvalEvent
    from engine.training.trainer import Trainer

    heads = [r for r in _rows(source) if r["cipher"] == seed and r["sign"] == ""]
    if not heads:
        raise ValueError(f"{source}: no cipher {seed}")
    head = heads[-1]
    if (head["stems"], head["inscriptions"], head["steps"], head["extra"]) != \
            (args.stems, args.inscriptions, args.steps, args.extra):
        raise ValueError(f"{source}: cipher {seed} was made with other --stems/--inscriptions/--steps/--extra")
    signs = ["<none>", *dict.fromkeys([*head["picks"]["probe"], *head["picks"]["frequent"]])]
    done = {(r["cipher"], r["sign"], r["cont_seed"]) for r in _rows(out)} if out.exists() else set()
    todo = [(k, sign) for k in range(1, args.noise) for sign in signs if (seed, sign, k) not in done]
    if not todo:
        return 0
    cipher, cfg, total, base, base_ev = _base_state(seed, args)
    if abs(base_ev.metrics["p_at_10"] - head["p_at_10_base"]) > 1e-9:
        raise ValueError(f"{source}: cipher {seed}'s base state is not reproduced (P@10 "
                         f"{base_ev.metrics['p_at_10']:.4f}, the file {head['p_at_10_base']:.4f})")
    state = base.state()
    truth = {letter: unit for unit, letter in cipher.key.items()}
    for k, sign in todo:
        pins = [PinnedValue(sign, truth[sign])] if sign != "<none>" else []
        t = Trainer(cipher.corpus, cipher.vocabulary, cfg, gold=cipher.gold, pins=pins, state=state,
                    live_interval=None)
        stream = seed * NOISE_STRIDE + k            # after the state's streams were restored: new draws
        torch.manual_seed(stream)
        np.random.seed(stream)
        t.rng.seed(stream)
        ev = [e for e in t.run(total) if isinstance(e, EvalEvent)][-1]
        _write(out, {"cipher": seed, "sign": sign, "cont_seed": k, "truth": truth.get(sign, ""),
                     "p_at_10": ev.metrics["p_at_10"], "p_at_1": ev.metrics["p_at_1"]})
        print(f"cipher {seed} continuation {k} pin {sign}: P@10 {ev.metrics['p_at_10']:.3f}", file=sys.stderr,
              flush=True)
    return len(todo)


def noise_summary(source_rows: list[dict], noise_rows: list[dict]) -> dict:
    """Per cipher with every continuation seed: the most frequent sign's gain (seed 0, and the mean over
    the other seeds), the best probed sign by one continuation (seed 0, the oracle as published) with its
    gain on seed 0 and on the other seeds (which did not choose it: no selection in that figure), the best
    by the mean of all seeds, and the spread of a single gain (each sign's gains over the seeds: their sd,
    pooled)."""
    heads = {r["cipher"]: r for r in source_rows if r["sign"] == ""}
    p10: dict[tuple, dict[int, float]] = {}
    for r in source_rows:
        if r["sign"]:
            p10.setdefault((r["cipher"], r["sign"]), {})[0] = r["p_at_10"]
    for r in noise_rows:
        p10.setdefault((r["cipher"], r["sign"]), {})[r["cont_seed"]] = r["p_at_10"]
    seeds = sorted({r["cont_seed"] for r in noise_rows} | {0})
    ciphers, variances = [], []
    for c, h in sorted(heads.items()) if len(seeds) > 1 else ():     # no continuation beyond seed 0 yet
        signs = list(dict.fromkeys([*h["picks"]["probe"], *h["picks"]["frequent"]]))
        if not all(set(seeds) <= set(p10.get((c, s), {})) for s in ["<none>", *signs]):
            continue
        gain = {s: [p10[(c, s)][k] - p10[(c, "<none>")][k] for k in seeds] for s in signs}
        frequent = h["picks"]["frequent"][0]
        variances += [statistics.variance(g) for g in gain.values()]
        by_one = max(signs, key=lambda s: gain[s][0])
        by_mean = max(signs, key=lambda s: statistics.fmean(gain[s]))
        ciphers.append({"cipher": c, "frequent": frequent, "frequent_gain_seed0": gain[frequent][0],
                        "frequent_gain_others": statistics.fmean(gain[frequent][1:]),
                        "best_by_seed0": by_one, "best_by_seed0_gain": gain[by_one][0],
                        "best_by_seed0_gain_others": statistics.fmean(gain[by_one][1:]),
                        "best_by_mean": by_mean, "best_by_mean_gain_mean": statistics.fmean(gain[by_mean]),
                        "gains": {s: [round(x, 4) for x in g] for s, g in gain.items()}})
    return {"continuation_seeds": len(seeds), "ciphers": ciphers,
            "gain_sd_pooled": statistics.fmean(variances) ** 0.5 if variances else float("nan")}


def noise_table(summary: dict) -> str:
    if not summary["ciphers"]:
        return "no cipher has continuations beyond seed 0 in this file yet (run --noise R first)"
    n = summary["continuation_seeds"]
    lines = [f"| cipher | most frequent (sign) | its gain, seed 0 | its gain, seeds 1–{n - 1} | best of the probed by "
             f"seed 0 (sign) | that sign's gain, seed 0 | that sign's gain, seeds 1–{n - 1} | best by the mean of {n} "
             "(sign, its mean) |",
             "|---" * 8 + "|"]
    rows = summary["ciphers"]
    for r in rows:
        lines.append(f"| {r['cipher']} | {r['frequent']} | {r['frequent_gain_seed0']:+.3f} | {r['frequent_gain_others']:+.3f} | "
                     f"{r['best_by_seed0']} | {r['best_by_seed0_gain']:+.3f} | {r['best_by_seed0_gain_others']:+.3f} | "
                     f"{r['best_by_mean']} ({r['best_by_mean_gain_mean']:+.3f}) |")
    m = {k: statistics.fmean(r[k] for r in rows) for k in ("frequent_gain_seed0", "frequent_gain_others",
                                                           "best_by_seed0_gain", "best_by_seed0_gain_others",
                                                           "best_by_mean_gain_mean")}
    lines.append(f"| **mean of {len(rows)}** | | **{m['frequent_gain_seed0']:+.3f}** | **{m['frequent_gain_others']:+.3f}** | | "
                 f"**{m['best_by_seed0_gain']:+.3f}** | **{m['best_by_seed0_gain_others']:+.3f}** | "
                 f"**{m['best_by_mean_gain_mean']:+.3f}** |")
    lines += ["", f"A single gain's spread over continuation seeds (sd, pooled over the probed signs): "
                  f"{summary['gain_sd_pooled']:.3f}"]
    return "\n".join(lines)


def _planned(seed: int, out: Path) -> list[str] | None:
    """The continuations a cipher's stored header plans (None: no header with every strategy yet)."""
    heads = [r for r in _rows(out) if r["cipher"] == seed and r["sign"] == ""] if out.exists() else []
    if not heads or set(heads[-1]["picks"]) != set(STRATEGIES):
        return None
    return ["<none>", *dict.fromkeys(s for v in heads[-1]["picks"].values() for s in v)]


def _write(out: Path, row: dict) -> None:
    with open(out, "a", encoding="utf-8") as f:
        f.write(json.dumps(row, ensure_ascii=False) + "\n")


def cipher_gains(rows: list[dict]) -> tuple[list[str], list[dict]]:
    """The strategies every cipher has, and per finished cipher: its number, P@10 at base and of the
    no-pin continuation, each single ranking's (gain, sign), the random draws' mean gain and (with
    probes) the best probed sign's (gain, sign)."""
    heads = {r["cipher"]: r for r in rows if r["sign"] == ""}
    p10 = {(r["cipher"], r["sign"]): r["p_at_10"] for r in rows if r["sign"]}
    present = [k for k in STRATEGIES if heads and all(k in h["picks"] for h in heads.values())]
    out = []
    for c in sorted(heads):
        h = heads[c]
        ref = p10.get((c, "<none>"))
        if ref is None or not all((c, s) in p10 for k in present for s in h["picks"][k]):
            continue
        got = {"cipher": c, "base": h["p_at_10_base"], "no_pin": ref,
               "random": (statistics.mean(p10[(c, s)] - ref for s in h["picks"]["random"]),
                          " ".join(h["picks"]["random"]))}
        for k in present:
            if k not in ("random", "probe"):
                got[k] = (p10[(c, h["picks"][k][0])] - ref, h["picks"][k][0])
        if "probe" in present:
            best = max(h["picks"]["probe"], key=lambda s: p10[(c, s)])
            got["probe"] = (p10[(c, best)] - ref, best)
        out.append(got)
    return present, out


def table(out: Path) -> str:
    """The Markdown table of a results file: per cipher the P@10 gain of each ranking's sign, the
    mean of the random draws and (with probes) the best of the probed signs; means; win counts."""
    rows = _rows(out)
    heads = {r["cipher"]: r for r in rows if r["sign"] == ""}
    present, per_cipher = cipher_gains(rows)
    single = [k for k in present if k not in ("random", "probe")]
    cols = [f"{LABELS[k]} (sign)" for k in single] + ["random (mean of draws)"] + \
        ([f"best of the {max(len(h['picks']['probe']) for h in heads.values())} most frequent (oracle)"]
         if "probe" in present else [])
    lines = ["| cipher | P@10 at base | P@10 no pin | " + " | ".join(cols) + " |", "|---" * (3 + len(cols)) + "|"]
    gains: dict[str, list[float]] = {k: [got[k][0] for got in per_cipher] for k in present}
    for got in per_cipher:
        cells = [f"{got[k][0]:+.3f} ({got[k][1]})" for k in single]
        cells.append(f"{got['random'][0]:+.3f} ({got['random'][1]})")
        if "probe" in present:
            cells.append(f"{got['probe'][0]:+.3f} ({got['probe'][1]})")
        lines.append(f"| {got['cipher']} | {got['base']:.3f} | {got['no_pin']:.3f} | " + " | ".join(cells) + " |")
    n = len(gains["frequent"]) if "frequent" in gains else 0
    if n:
        lines.append(f"| **mean of {n}** | | | " + " | ".join(f"**{statistics.mean(gains[k]):+.3f}**" for k in present) + " |")
        lines.append("")
        for a in single:
            if a == "frequent":
                continue
            wins = {k: (sum(1 for x, y in zip(gains[a], gains[k]) if x > y),
                        sum(1 for x, y in zip(gains[a], gains[k]) if x == y)) for k in ("frequent", "random")}
            lines.append(f"{LABELS[a]} beats the most frequent on {wins['frequent'][0]} of {n} ciphers (ties {wins['frequent'][1]}), "
                         f"random on {wins['random'][0]} of {n} (ties {wins['random'][1]})  ")
    return "\n".join(lines)


def paired(rows: list[dict]) -> dict:
    """Each ranking against the most frequent sign, cipher by cipher (docs/pin-suggestions.md, "v3"):
    the mean and standard error (sd / sqrt(n)) of the paired differences of gains, and the verdict
    fixed before the results: "beats" above twice the standard error, "loses" below minus twice,
    else "not told apart". Also the mean gains, and how many ciphers had nothing to gain (no-pin P@10 = 1)."""
    present, per_cipher = cipher_gains(rows)
    n = len(per_cipher)
    if n < 2 or "frequent" not in present:
        raise ValueError(f"a paired comparison needs at least 2 finished ciphers with the most frequent sign; got {n}")
    out = {"ciphers": [got["cipher"] for got in per_cipher], "n": n,
           "saturated": sum(1 for got in per_cipher if got["no_pin"] >= 1.0),
           "mean_gain": {k: statistics.mean(got[k][0] for got in per_cipher) for k in present}, "against_frequent": {}}
    for k in present:
        if k == "frequent":
            continue
        diffs = [got[k][0] - got["frequent"][0] for got in per_cipher]
        out["against_frequent"][k] = {**_verdict(diffs), "better": sum(d > 0 for d in diffs),
                                      "equal": sum(d == 0 for d in diffs), "worse": sum(d < 0 for d in diffs)}
    return out


def _verdict(diffs: list[float]) -> dict:
    """The v3 rule on paired differences: their mean, its standard error (sd / sqrt(n)), and "beats"
    above twice the error, "loses" below minus twice, else "not told apart"."""
    mean, se = statistics.mean(diffs), statistics.stdev(diffs) / len(diffs) ** 0.5
    return {"mean_difference": mean, "standard_error": se,
            "verdict": "beats" if mean > 2 * se else "loses" if mean < -2 * se else "not told apart"}


def oracle_lead(summary: dict) -> dict:
    """The oracle's sign (the best probed one on continuation seed 0) against the most frequent sign, on
    the seeds that did not choose it, cipher by cipher, with the paired rule of ``paired``."""
    rows = summary["ciphers"]
    if len(rows) < 2:
        raise ValueError(f"the oracle's lead needs at least 2 ciphers with every continuation seed; got {len(rows)}")
    diffs = [r["best_by_seed0_gain_others"] - r["frequent_gain_others"] for r in rows]
    return {"n": len(rows), "continuation_seeds": summary["continuation_seeds"],
            "gain_sd_pooled": summary["gain_sd_pooled"],
            "frequent_gain_others": statistics.mean(r["frequent_gain_others"] for r in rows),
            "oracle_gain_others": statistics.mean(r["best_by_seed0_gain_others"] for r in rows),
            **_verdict(diffs), "same_sign": sum(r["best_by_seed0"] == r["frequent"] for r in rows)}


def oracle_text(o: dict) -> str:
    return (f"The oracle's sign (best of the probed on seed 0) on seeds 1–{o['continuation_seeds'] - 1}, {o['n']} ciphers "
            f"(the most frequent sign itself on {o['same_sign']}): gain {o['oracle_gain_others']:+.3f} against the most "
            f"frequent sign's {o['frequent_gain_others']:+.3f}, difference {o['mean_difference']:+.3f} (standard error "
            f"{o['standard_error']:.3f}): {o['verdict']}. One gain's sd over continuation seeds: {o['gain_sd_pooled']:.3f}.")


def paired_table(got: dict) -> str:
    lines = [f"{got['n']} ciphers ({got['saturated']} with nothing to gain: no-pin P@10 = 1)", "",
             "| ranking | mean P@10 gain | minus the most frequent sign's | standard error | better / equal / worse | verdict |",
             "|---|---|---|---|---|---|",
             f"| {LABELS['frequent']} | {got['mean_gain']['frequent']:+.3f} | | | | |"]
    for k, a in got["against_frequent"].items():
        label = LABELS.get(k, "best of the probed signs (oracle)")
        lines.append(f"| {label} | {got['mean_gain'][k]:+.3f} | {a['mean_difference']:+.3f} | {a['standard_error']:.3f} | "
                     f"{a['better']} / {a['equal']} / {a['worse']} | {a['verdict']} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--ciphers", type=int, nargs="+", default=list(CIPHERS))
    ap.add_argument("--stems", type=int, default=200)
    ap.add_argument("--inscriptions", type=int, default=60)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--extra", type=int, default=50)
    ap.add_argument("--draws", type=int, default=3)
    ap.add_argument("--seeds", type=int, default=3, help="seeds per cipher for the disagreement signal")
    ap.add_argument("--probe", type=int, default=5, help="also pin each of the N most frequent candidates")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--table", action="store_true", help="print the Markdown table of --out and exit")
    ap.add_argument("--noise", type=int, metavar="R", help="continue --source's ciphers with R - 1 more "
                                                          "continuation seeds each (rows to --out)")
    ap.add_argument("--source", type=Path, help="the results file whose continuations --noise repeats")
    ap.add_argument("--noise-table", action="store_true", help="print the table of --noise's rows (--out) against "
                                                               "--source and exit")
    ap.add_argument("--paired", type=Path, nargs="+", metavar="FILE",
                    help="each ranking against the most frequent sign over FILEs' ciphers (the v3 rule); "
                         "the summary goes to --out (JSON) and the table to stdout")
    ap.add_argument("--noise-rows", type=Path, nargs="+", metavar="FILE",
                    help="with --paired: the --noise files of those ciphers; the oracle's sign is then judged "
                         "on the continuation seeds that did not choose it, by the same rule")
    args = ap.parse_args(argv)
    if args.paired:
        missing = [str(f) for f in [*args.paired, *(args.noise_rows or ())] if not f.is_file()]
        if missing:
            print(f"error: no results file {missing[0]}", file=sys.stderr)
            return 2
        source = [r for f in args.paired for r in _rows(f)]
        try:
            got = paired(source)
            got["files"] = [str(f) for f in args.paired]
            text = paired_table(got)
            if args.noise_rows:
                noise = [r for f in args.noise_rows for r in _rows(f)]
                got["oracle_on_other_seeds"] = oracle_lead(noise_summary(source, noise))
                got["noise_files"] = [str(f) for f in args.noise_rows]
                text += "\n\n" + oracle_text(got["oracle_on_other_seeds"])
        except ValueError as e:  # nothing written
            print(f"error: {e}", file=sys.stderr)
            return 2
        args.out.write_text(json.dumps(got, indent=2) + "\n", encoding="utf-8")
        print(text)
        return 0
    if args.table:
        if not args.out.is_file():
            print(f"error: no results file {args.out}", file=sys.stderr)
            return 2
        print(table(args.out))
        return 0
    if args.noise is not None or args.noise_table:
        if args.source is None or not args.source.is_file():
            print("error: --noise and --noise-table need --source, an existing results file", file=sys.stderr)
            return 2
        if args.noise is not None and args.noise < 2:
            print("error: --noise must be at least 2 (seed 0 is the source's own continuation)", file=sys.stderr)
            return 2
    if args.noise_table:
        got = noise_summary(_rows(args.source), _rows(args.out) if args.out.exists() else [])
        print(noise_table(got))
        return 0
    import torch

    torch.set_num_threads(args.threads)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.noise is not None:
        try:
            for seed in args.ciphers:
                run_noise(seed, args, args.source, args.out)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        print(noise_table(noise_summary(_rows(args.source), _rows(args.out))))
        return 0
    for seed in args.ciphers:
        run_cipher(seed, args, args.out)
    print(table(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
