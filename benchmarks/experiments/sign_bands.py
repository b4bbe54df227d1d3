"""Issue 49: which signs a finished dev syllabary run reads right, by how often the text writes them.

The manifest's rule counts every sign of the key alike, a sign written once as much as one written a thousand
times. With the word phase on each distinct pseudo-word once (setting words_types) several dev texts match at P@10
0.7 or more with fewer than 60 % of their signs at their standard value. This script reads finished runs of
``benchmarks.cipher_suite`` (their checkpoints) and counts, for the signs ranked by their count in the text, how many
of each band of ranks the run reads at their key value (onset and vowel, each, both: ``syllables_right``):

    python -m benchmarks.experiments.sign_bands --runs build/cipher-runs/syllabary-types --seeds 0 1 \\
        --ids dev-s-latin-1 dev-s-spanish-1 --out benchmarks/results/ciphers/dev-sign-bands.jsonl

``--runs`` is the label's folder (``build/cipher-runs/LABEL``, each run in ``ID-sSEED``). The key (key.csv) only
counts; nothing here changes a run.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Sequence

from benchmarks.experiments.syllable_objective import finish_row

#: the bands of frequency ranks (1-based, inclusive), the last open
BANDS = ((1, 20), (21, 40), (41, 60), (61, None))


def bands(reading: dict[str, tuple[str, str]], key: dict[str, dict], counts: Counter) -> list[dict]:
    """For each band of BANDS: the key's signs (those with a known vowel) ranked by ``counts`` (ties: the sign's
    code point), and how many of them ``reading`` has right (both, onset, vowel), with the band's lowest count."""
    from benchmarks.cipher_suite import syllables_right

    ranked = sorted((s for s, row in key.items() if row["known_vowels"] and counts[s] > 0),
                    key=lambda s: (-counts[s], s))
    out = []
    for lo, hi in BANDS:
        signs = ranked[lo - 1:hi]
        if not signs:
            continue
        both, onsets, vowels, total = syllables_right({s: reading[s] for s in signs if s in reading}, key)
        out.append({"ranks": [lo, lo + len(signs) - 1], "signs": len(signs), "read": total, "both": both,
                    "onsets": onsets, "vowels": vowels, "min_count": min(counts[s] for s in signs)})
    return out


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """--runs, --ids, --seeds: finished cipher_suite runs of dev syllabaries (this script's, sign_votes.py's and
    screen_hop.py's)."""
    p.add_argument("--runs", type=Path, required=True, help="a label's folder of cipher_suite runs")
    p.add_argument("--ids", nargs="+", required=True, help="dev syllabaries of the manifest")
    p.add_argument("--seeds", nargs="+", type=int, default=[0])


def run_error(args) -> str | None:
    """The one line that says why ``args`` (add_run_arguments) name no finished run, or None."""
    from benchmarks.cipher_suite import manifest

    ciphers = manifest()[0]
    for c in args.ids:
        if c not in ciphers or ciphers[c]["split"] != "dev" or ciphers[c]["script"] != "syllabary":
            return f"{c} is not a dev syllabary of benchmarks/cipher_manifest.toml"
    missing = [str(args.runs / f"{c}-s{s}" / "checkpoint.pt") for c in args.ids for s in args.seeds
               if not (args.runs / f"{c}-s{s}" / "checkpoint.pt").is_file()]
    if missing:
        return f"{missing[0]}: no such checkpoint (a finished cipher_suite run)"
    return None


def parse_run_args(p: argparse.ArgumentParser, argv):
    """``p``'s arguments with --out added, or None after one line on stderr when they name no finished run."""
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    error = run_error(args)
    if error:
        print(f"error: {error}", file=sys.stderr)
        return None
    return args


def finished_runs(args, gold: bool = False):
    """(cipher id, seed, its trainer from the checkpoint, the key, the signs' counts in the text) of each run that
    ``args`` name (checked by run_error first); ``gold``: the trainer evaluates against the cipher's gold."""
    from benchmarks.cipher_suite import build_cipher, load_folder, manifest, read_key
    from engine.io.tables import read_gold
    from engine.training.trainer import Trainer

    ciphers = manifest()[0]
    for c in args.ids:
        folder = build_cipher(ciphers[c])
        corpus, vocab = load_folder(folder)
        answers = read_gold(folder / "gold.csv") if gold else ()
        counts = Counter(u for ins in corpus.inscriptions for u in ins.units)
        key = read_key(folder)
        for s in args.seeds:
            yield c, s, Trainer.from_checkpoint(args.runs / f"{c}-s{s}" / "checkpoint.pt", corpus, vocab,
                                                gold=answers), key, counts


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_run_arguments(p)
    args = parse_run_args(p, argv)
    if args is None:
        return 2
    for c, s, trainer, key, counts in finished_runs(args):
        finish_row({"id": c, "seed": s, "runs": str(args.runs),
                    "bands": bands(trainer.mapping().syllables.top_values(), key, counts)},
                   "sign_bands", argv, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
