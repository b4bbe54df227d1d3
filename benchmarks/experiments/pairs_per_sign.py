"""Issue 49: how many (onset, vowel) pairs a dev syllabary's known stems hold for each sign its text writes.

The preset ``syllabary`` scores a sign as P(sign | onset, vowel) and its Omega_loss asks each sign to receive about
one pair's mass (engine/model/syllable_mapping.py). A known language with more vowels than the script writes (the
generator writes five) has more pairs than the text has signs, and its right reading gives one sign several pairs.
This counts, for each cipher, the known vowels, the pairs (``engine.model.syllables.syllable_counts``, as the model
makes its rows) and the distinct signs of the text; no training, no gold.

    python -m benchmarks.experiments.pairs_per_sign --out benchmarks/results/ciphers/dev-pairs-per-sign.jsonl
"""

from __future__ import annotations

import argparse
import sys

from benchmarks.experiments.syllable_objective import finish_row


def counts(folder) -> dict:
    from benchmarks.cipher_suite import load_folder
    from engine.model.phonology import ipa_units
    from engine.model.syllables import is_vowel, syllable_counts

    corpus, vocab = load_folder(folder)
    units = [ipa_units(s.ipa) for s in vocab.stems]
    pairs = syllable_counts(units)
    signs = {c for ins in corpus.inscriptions for c in ins.text if not c.isspace()}
    vowels = {u for st in units for u in st if is_vowel(u)}
    return {"known_vowels": len(vowels), "pairs": len(pairs), "signs": len(signs),
            "pairs_per_sign": round(len(pairs) / len(signs), 4)}


def main(argv=None) -> int:
    from benchmarks.cipher_suite import build_cipher, manifest

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ids", nargs="*", help="dev syllabaries (default: every one of the manifest)")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    ciphers, _ = manifest()
    ids = args.ids or [i for i, c in ciphers.items() if c["split"] == "dev" and c["script"] == "syllabary"]
    for cid in ids:
        entry = ciphers.get(cid)
        if entry is None or entry["split"] != "dev" or entry["script"] != "syllabary":
            ap.error(f"{cid}: not a dev syllabary of the manifest")
        finish_row({"cipher": cid, **counts(build_cipher(entry))}, "pairs_per_sign", argv, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
