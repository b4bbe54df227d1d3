"""Issue 49, item 2: what in the syllable objective makes a wrong, crowded reading of an invented
syllabary score better than the right one?

Reads two checkpoints of the same cipher (build/ciphers/ID, benchmarks/cipher_suite.py): the unpinned
run's reading and the oracle's released reading (``cipher_suite --oracle`` keeps it as released.pt),
and prints for each what the sign table holds (how many signs share their top syllable, the
consonants' and the null onset's deletion), the objective's parts over the corpus, the decoded
matches' span lengths, and the mean per-slot log-probabilities along the gold spans' best
alignments.

    python -m benchmarks.experiments.syllable_objective --cipher dev-s-latin-1 \
        --run build/cipher-runs/syl-unseg/dev-s-latin-1-s0/checkpoint.pt \
        --run build/cipher-runs/syl-unseg-oracle/dev-s-latin-1/released.pt
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "ciphers"


def finish_row(row: dict, script: str, argv, out) -> None:
    """Print an experiment's row with the command that made it, and append it (with the commit) to
    ``out`` when given."""
    row["command"] = f"python -m benchmarks.experiments.{script} " + " ".join(sys.argv[1:] if argv is None else argv)
    print(json.dumps(row), flush=True)
    if out:
        from benchmarks.commit import short_commit

        with open(out, "a", encoding="utf-8") as f:
            f.write(json.dumps({**row, "commit": short_commit()}) + "\n")


def key_of(folder: Path) -> dict[str, tuple[str, str]]:
    with open(folder / "key.csv", encoding="utf-8", newline="") as f:
        return {r["sign"]: (r["known_onsets"].split("|")[0] or "∅", r["known_vowels"].split("|")[0])
                for r in csv.DictReader(f) if r["known_vowels"]}


def describe(trainer, folder: Path) -> dict:
    import torch

    from engine.model.syllables import NULL_ONSET
    from engine.training.final_objective import corpus_objective

    model, prep = trainer.model, trainer.prep
    table = model.syllable_table()
    top = table.top_values()
    key = key_of(folder)
    counts = collections.Counter()
    for ch in prep.chunks:
        counts.update(ch.letters)
    total = sum(counts.values())
    share_by_value = collections.Counter()
    for sign, (on, vo) in top.items():
        share_by_value[(on, vo)] += counts[sign] / total
    right = sum(1 for s, v in top.items() if s in key and key[s] == v)
    onsets_right = sum(1 for s, v in top.items() if s in key and key[s][0] == v[0])
    vowels_right = sum(1 for s, v in top.items() if s in key and key[s][1] == v[1])
    with torch.no_grad():
        lp = model.log_probs(dropout=False)
    kidx = {u: i for i, u in enumerate(prep.known_units)}
    dele = {u: math.exp(float(lp[kidx[u], 0])) for u in model.onset_units[: -model.n_glides]}
    obj = corpus_objective(trainer)
    ev = trainer.evaluate()
    lens = collections.Counter(m.end - m.start for m in ev.matches)
    return {
        "signs": len(top), "right": right, "onsets_right": onsets_right, "vowels_right": vowels_right,
        "distinct_values": len(set(top.values())),
        "top_values_by_text_share": [(f"{o}{v}", round(s, 3)) for (o, v), s in share_by_value.most_common(6)],
        "p_del_null_onset": round(dele[NULL_ONSET], 3),
        "p_del_consonants_mean": round(sum(v for u, v in dele.items() if u != NULL_ONSET) / (len(dele) - 1), 3),
        "objective": {k: round(v, 4) for k, v in obj.items()},
        "p_at_10": round(ev.metrics.get("p_at_10", 0.0), 4), "coverage": round(ev.coverage, 4),
        "matches": len(ev.matches), "span_lengths": dict(sorted(lens.items())),
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cipher", required=True)
    p.add_argument("--run", action="append", type=Path, required=True, help="a checkpoint (repeatable)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="settings to evaluate the checkpoints under (the objective's variants)")
    p.add_argument("--align", type=int, default=0, help="show this many decoded matches' best alignments")
    args = p.parse_args(argv)
    from benchmarks.cipher_suite import load_folder
    from engine.config import parse_assignments
    from engine.io.tables import read_gold
    from engine.training.trainer import Trainer

    folder = BUILD / args.cipher
    corpus, vocab = load_folder(folder)
    gold = read_gold(folder / "gold.csv")
    overrides = parse_assignments(args.set) if args.set else {}
    for run in args.run:
        t = Trainer.from_checkpoint(run, corpus, vocab, gold=gold, config_overrides=overrides or None)
        print(json.dumps({"run": str(run), **describe(t, folder)}, ensure_ascii=False), flush=True)
        if args.align:
            show_alignments(t, args.align)
    return 0


def show_alignments(trainer, n: int = 12) -> None:
    """The best alignments of ``n`` decoded matches (the top stem of each), slot by slot
    (engine.model.explain.best_path over the run's own DP table: its pair rows included)."""
    import torch

    from engine.model.explain import best_path
    from engine.model.syllables import SLOTS

    model, prep = trainer.model, trainer.prep
    with torch.no_grad():
        lp = model.log_probs(dropout=False).tolist()
    rows_of = {e.ipa: v for v, e in enumerate(prep.entries)}
    names = list(prep.known_units) + [f"{v}/{c}" for c, v in prep.vowel_pairs]
    lidx = {c: i for i, c in enumerate(prep.lost_letters)}
    gamma = prep.config.insertion_cost(trainer.step)
    by_kind = collections.defaultdict(float)
    for m in trainer.evaluate().matches[:n]:
        v = m.best.ipa
        stem = prep.stem_units[rows_of[v], : int(prep.stem_len[rows_of[v]])].tolist()
        slots = [c for ch in m.span for c in (SLOTS * lidx[ch] - 1, SLOTS * lidx[ch])]
        path, total = best_path([lp[y] for y in stem], slots, gamma, prep.config.band)
        words, j = [], 0
        for y, (k, step) in zip(stem, path):
            what = "/".join("on" if c % 2 else "vo" for c in slots[j: j + k])
            op = ("del", "sub", "ins")[k]
            words.append(f"{op}:{names[y]}{'>' + what if what else ''}={step:.1f}")
            by_kind[op + ("-" + what if what else "")] += step
            j += k
        print(f"  {m.span} ~ {v} ({total:.1f}): " + " ".join(words))
    print("  sum by operation:", {k: round(x, 1) for k, x in sorted(by_kind.items())})


if __name__ == "__main__":
    sys.exit(main())
