"""Issue 49, item 3: what tells a right syllabary reading from a wrong one without the gold, under the
preset ``syllabary`` (``vowel_slot = joint``), whose wrong readings the checks set on the ``chance``
runs call fine (they cover their target and share few values).

For each finished run of a cipher-suite rows file (``RUNS/LABEL/ID-sSEED/checkpoint.pt``) and each
released oracle reading of an oracle rows file (``RUNS/LABEL-oracle/ID[-PART]/released.pt``), read
from its checkpoint and evaluated once more: the diagnosis's own values (the crowded share, the
coverage against its target), the share of the text its matches cover at 0.3 / 0.5 / 0.7 per sign
(the closeness curve), the closeness score, the objective's parts over the corpus (quality: the matched
spans' mean reward; coverage ratio), what the matches read (distinct stems a match, the 10 most matched
stems' share of the matched text, the mean span), how sharp the signs' values are (each sign's top onset
probability times its top vowel probability, weighted by the sign's share of the text), and the
spread of the screened starts' objectives (metrics.json). One row a run, with its P@10 and whether
it is read (the manifest's rule), to ``--out``.

    python -m benchmarks.experiments.syllable_verdict --rows ROWS.jsonl [--oracle ORACLE.jsonl] --out OUT.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks.experiments.syllable_objective import finish_row


def features(checkpoint: Path, data: Path) -> dict:
    """The gold-free candidates of one run (its checkpoint on the cipher folder ``data``)."""
    import collections

    import numpy as np

    from benchmarks.cipher_suite import load_folder
    from engine.closeness.curve import closeness_score, coverage_at
    from engine.model.letter_classes import letter_shares
    from engine.training.diagnosis import diagnose
    from engine.training.final_objective import corpus_objective
    from engine.training.trainer import Trainer

    corpus, vocabulary = load_folder(data)
    trainer = Trainer.from_checkpoint(checkpoint, corpus, vocabulary)
    ev = trainer.evaluate()
    diagnosis = diagnose(trainer)
    table = trainer.mapping().syllables
    shares = letter_shares(trainer.prep)
    weights = np.array([shares.get(s, 0.0) for s in table.signs])
    sharp = table.onset_probs.max(axis=1) * table.vowel_probs.max(axis=1)
    out = {k: round(float(v), 4) for k, v in diagnosis.values.items()}
    parts = corpus_objective(trainer)
    out.update(objective=round(parts["objective"], 4), quality=round(parts["quality"], 4),
               coverage_ratio=round(parts["coverage_ratio"], 4))
    out.update({f"close_{int(c * 10)}": round(coverage_at(ev.closeness, c), 4) for c in (0.3, 0.5, 0.7)})
    out.update(closeness_score=round(closeness_score(ev.closeness), 4), coverage=round(ev.coverage, 4),
               sharpness=round(float((weights * sharp).sum() / max(weights.sum(), 1e-12)), 4),
               flagged=diagnosis.flagged, codes=[f.code for f in diagnosis.findings if f.flag])
    # what the matches read: how many distinct stems, how much of the matched text the 10 most matched
    # stems take, how long the matched spans are
    stems = collections.Counter()
    for m in ev.matches:
        stems[m.best.form] += m.end - m.start
    matched = sum(stems.values())
    if ev.matches:
        out.update(stems_per_match=round(len(stems) / len(ev.matches), 4),
                   top10_stems_share=round(sum(n for _, n in stems.most_common(10)) / matched, 4),
                   mean_span=round(matched / len(ev.matches), 3))
    metrics = checkpoint.parent / "metrics.json"
    if metrics.is_file():
        m = json.loads(metrics.read_text(encoding="utf-8"))
        starts = [m[k] for k in sorted(m) if k.startswith("restart_objective_")]
        if len(starts) > 1:
            # the untrained model's objective at the screen's schedule: how far the best start came down
            fresh = Trainer(corpus, vocabulary, trainer.config, live_interval=None, prepared=trainer.prep)
            before = corpus_objective(fresh, step=int(m.get("restart_steps") or 0))["objective"]
            out.update(start_objectives=[round(x, 3) for x in starts], untrained_objective=round(before, 3),
                       start_spread=round((max(starts) - min(starts)) / max(abs(min(starts)), 1e-9), 4),
                       start_drop=round(before - min(starts), 3))
        out["final_objective"] = m.get("final_objective")
    return out


def main(argv=None) -> int:
    from benchmarks.cipher_suite import BUILD, RUNS

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=Path, action="append", default=[], help="a cipher_suite rows file")
    ap.add_argument("--oracle", type=Path, action="append", default=[], help="a cipher_suite --oracle rows file")
    ap.add_argument("--run", action="append", default=[], metavar="CHECKPOINT=FOLDER",
                    help="any other run: its checkpoint and its data folder (lost.csv, known.csv), e.g. a Linear B "
                         "run of benchmarks/syllable_linear_b.py (its rows: no P@10)")
    ap.add_argument("--out", help="append the rows (JSON lines) to this file")
    args = ap.parse_args(argv)
    items = []
    for path in args.rows:
        for r in map(json.loads, filter(str.strip, path.read_text(encoding="utf-8").splitlines())):
            if "p_at_10" in r:
                items.append(({"id": r["id"], "kind": r.get("kind"), "label": r["label"], "seed": r["seed"],
                               "reading": "unpinned", "p_at_10": r["p_at_10"], "read": r.get("read")},
                              RUNS / r["label"] / f"{r['id']}-s{r['seed']}" / "checkpoint.pt"))
    for path in args.oracle:
        for r in map(json.loads, filter(str.strip, path.read_text(encoding="utf-8").splitlines())):
            part = r.get("oracle_part", "all")
            folder = RUNS / f"{r['label']}-oracle" / (r["id"] + ("" if part == "all" else "-" + part.replace(":", "")))
            items.append(({"id": r["id"], "kind": "cipher", "label": r["label"], "seed": 0,
                           "reading": f"oracle {part} released", "p_at_10": r["p_at_10"],
                           "read": r["p_at_10"] >= 0.70}, folder / "released.pt"))
    for pair in args.run:
        checkpoint, _, folder = pair.partition("=")
        items.append(({"id": checkpoint, "kind": "run", "data": folder, "reading": "unpinned"}, Path(checkpoint)))
    for row, checkpoint in items:
        if not checkpoint.is_file():
            print(f"{checkpoint}: no checkpoint, skipped", file=sys.stderr)
            continue
        row.update(features(checkpoint, Path(row["data"]) if "data" in row else BUILD / row["id"]))
        finish_row(row, "syllable_verdict", argv, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
