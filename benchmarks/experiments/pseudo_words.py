"""Issue 49: how many of a text's pseudo-words (setting words_first, engine/model/pseudo_words.py) are its words?

For each dev syllabary of the manifest, the unigram model's cut of the running text (as the run makes it) is
compared with the gold's words: the same cipher built with every word divider (engine/datasets/invented.py draws
the same text whatever the divider ratio). Per cipher: the cut's boundary precision and recall (the written
dividers alone beside them), the share of all pieces that are whole words, and of the pieces the run keeps (the
setting's thresholds) the share that are words of the text and the share that are a gold row's word (a cognate),
and the share of the gold rows whose word is a kept piece somewhere in the text. No training; seconds a cipher.

    python -m benchmarks.experiments.pseudo_words --out benchmarks/results/ciphers/dev-pseudo-words.jsonl
"""

from __future__ import annotations

import argparse
import csv

from benchmarks.experiments.syllable_objective import finish_row


def _spans(pieces) -> list[tuple[int, int]]:
    """Each piece's (start, end) in its line, the pieces laid end to end."""
    out, at = [], 0
    for p in pieces:
        out.append((at, at + len(p)))
        at += len(p)
    return out


def _ends(pieces) -> set[int]:
    """The boundaries inside a line cut into ``pieces``."""
    return {end for _, end in _spans(pieces)[:-1]}


def measure(entry: dict) -> dict:
    from benchmarks.cipher_suite import build_cipher
    from engine.config import PRESETS
    from engine.corpus import DIVIDER, split_units
    from engine.datasets.invented import make_invented_cipher
    from engine.model.pseudo_words import pseudo_word_corpus, segment_lines

    folder = build_cipher(entry)
    cipher = make_invented_cipher(entry["source"], seed=entry["seed"], script=entry["script"],
                                  relation=entry["relation"], wr=entry["wr"])
    whole = make_invented_cipher(entry["source"], seed=entry["seed"], script=entry["script"],
                                 relation=entry["relation"], wr=100)
    text = cipher.corpus.inscriptions
    gold_words = [tuple(tuple(split_units(w)) for w in ins.text.split(DIVIDER)) for ins in whole.corpus.inscriptions]
    if [sum(map(len, g)) for g in gold_words] != [sum(u != DIVIDER for u in ins.units) for ins in text]:
        raise SystemExit(f"pseudo_words: {entry['id']}: the WR 100 % build is not the same text")
    preset = PRESETS["syllabary"]
    cut = segment_lines(text, preset["max_span"])
    tp = fp = fn = w_tp = w_fn = right = n = 0
    for pieces, gold, ins in zip(cut, gold_words, text):
        g, p = _ends(gold), _ends(pieces)
        tp, fp, fn = tp + len(g & p), fp + len(p - g), fn + len(g - p)
        written = _ends([units for _, units in ins.segments()])
        w_tp, w_fn = w_tp + len(g & written), w_fn + len(g - written)
        spans = set(_spans(gold))
        right += sum(s in spans for s in _spans(pieces))
        n += len(pieces)
    words = {w for g in gold_words for w in g}
    units = {ins.id: tuple(u for u in ins.units if u != DIVIDER) for ins in text}
    offsets = {ins.id: [i - ins.units[:i].count(DIVIDER) for i in range(len(ins.units) + 1)] for ins in text}
    with open(folder / "gold.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    cognates = [units[r["inscription_id"]][offsets[r["inscription_id"]][int(r["start"])]:
                                           offsets[r["inscription_id"]][int(r["word_end"])]] for r in rows]
    kept = pseudo_word_corpus(cipher.corpus, min_span=preset["min_span"], max_span=preset["max_span"])
    pieces = [tuple(split_units(p)) for ins in kept.inscriptions for p in ins.text.split(DIVIDER)]
    kinds, cognate_kinds = set(pieces), set(cognates)
    return {"id": entry["id"], "source": entry["source"], "relation": entry["relation"], "wr": entry["wr"],
            "boundary_precision": tp / max(1, tp + fp), "boundary_recall": tp / max(1, tp + fn),
            "written_boundary_recall": w_tp / max(1, w_tp + w_fn), "pieces": n, "pieces_whole_words": right / n,
            "kept": len(pieces), "kept_types": len(kinds), "kept_words": sum(p in words for p in pieces) / len(pieces),
            "kept_cognates": sum(p in cognate_kinds for p in pieces) / len(pieces),
            "gold_rows_kept": sum(c in kinds for c in cognates) / len(cognates)}


def main(argv=None) -> int:
    from benchmarks.cipher_suite import manifest

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("dev",), default="dev", help="only dev: the test split is run once, at the end")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    ciphers, _ = manifest()
    for entry in ciphers.values():
        if entry["split"] == args.split and entry["script"] == "syllabary":
            finish_row(measure(entry), "pseudo_words", argv, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
