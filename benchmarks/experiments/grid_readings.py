"""Issue 49: which Linear B signs the sign grid's two readings disagree on.

A joint syllable run's grid reads each sign as the posterior of the known stems' syllables (commit d4506d9,
``SyllableMapping.sound_probs``), chosen on the dev ciphers; on the real Linear B list it put fewer signs at their
standard value than the reading before it (the onset scores normalised over the onsets, ``score_probs``) on three
checkpoints of four. This script reads finished Linear B runs (``benchmarks.syllable_linear_b``'s folders) both ways
and writes, per run, each reading's count of signs at their standard value and the signs only one of them gets right
(with what the other reads them as):

    python -m benchmarks.experiments.grid_readings --runs benchmarks/.cache/linear-b/syllabary-s3 \\
        --out benchmarks/results/syllables/linear-b-grid-readings.jsonl

The standard values are read as ``count_standard`` reads them (engine/datasets/linear_b.py); the gold is used to
count, never to choose.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Sequence

from benchmarks.experiments.syllable_objective import finish_row

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / ".cache" / "linear-b" / "data"


def readings(trainer) -> dict[str, dict[str, tuple[str, str]]]:
    """{"posterior": sign -> (onset, vowel), "scores": …}: the grid's top value of every sign, read both ways."""
    model = trainer.model
    return {"posterior": model.syllable_table().top_values(), "scores": model.syllable_table(scores=True).top_values()}


def compare(read: dict[str, dict[str, tuple[str, str]]], counts: Counter) -> dict:
    """Each reading's signs at their standard value, and the signs only one of them reads right, commonest first:
    (transliteration, count in the text, what the other reading reads)."""
    from engine.datasets.linear_b import standard_values
    from engine.model.syllables import NULL_ONSET

    values = standard_values()
    shown = lambda v: v[1] if v[0] == NULL_ONSET else v[0] + v[1]   # noqa: E731
    right = {k: {s for s, (o, v) in r.items() if s in values and values[s].right(o, v)} for k, r in read.items()}
    with_value = [s for s in read["posterior"] if s in values]

    def only(a: str, b: str) -> list[list]:
        signs = sorted(right[a] - right[b], key=lambda s: (-counts[s], s))
        return [[values[s].transliteration, counts[s], shown(read[b][s])] for s in signs]

    return {"signs_with_standard": len(with_value), "posterior_right": len(right["posterior"]),
            "scores_right": len(right["scores"]), "only_scores_right": only("scores", "posterior"),
            "only_posterior_right": only("posterior", "scores")}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", nargs="+", type=Path, required=True, help="finished Linear B run folders")
    ap.add_argument("--data", type=Path, default=DATA, help="the imported Linear B data (lost.csv, known.csv)")
    ap.add_argument("--out", help="append one row a run (JSON lines) to this file")
    args = ap.parse_args(argv)
    from engine.corpus import Corpus, Vocabulary
    from engine.io.tables import read_known, read_lost
    from engine.training.trainer import Trainer

    corpus = Corpus("lost", tuple(read_lost(args.data / "lost.csv")))
    vocab = Vocabulary("known", tuple(read_known(args.data / "known.csv")))
    counts = Counter(ch for ins in corpus.inscriptions for ch in ins.text if not ch.isspace())
    for run in args.runs:
        trainer = Trainer.from_checkpoint(run / "checkpoint.pt", corpus, vocab)
        finish_row({"run": run.name, "seed": trainer.config.seed, **compare(readings(trainer), counts)},
                   "grid_readings", argv, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
