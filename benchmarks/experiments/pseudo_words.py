"""Issue 49: how many of a text's pseudo-words (setting words_first, engine/model/pseudo_words.py) are its words?

For each dev syllabary of the manifest, the unigram model's cut of the running text (as the run makes it) is
compared with the gold's words: the same cipher built with every word divider (engine/datasets/invented.py draws
the same text whatever the divider ratio). Per cipher: the cut's boundary precision and recall (the written
dividers alone beside them), the share of all pieces that are whole words, and of the pieces the run keeps (the
setting's thresholds) the share that are words of the text and the share that are a gold row's word (a cognate),
and the share of the gold rows whose word is a kept piece somewhere in the text; and where they stand: the share of
kept pieces that are the word at their own place, of gold rows whose own span is a kept piece, and the same for the
rare gold rows (a word the gold rows have at most twice). ``--min-count LONG PAIR`` sets the thresholds. No
training; seconds a cipher.

    python -m benchmarks.experiments.pseudo_words --out benchmarks/results/ciphers/dev-pseudo-words.jsonl
    python -m benchmarks.experiments.pseudo_words --min-count 1 1 --out benchmarks/results/ciphers/dev-pseudo-words.jsonl
"""

from __future__ import annotations

import argparse
import csv
from collections import Counter

from benchmarks.experiments.syllable_objective import finish_row


def piece_spans(pieces) -> list[tuple[int, int]]:
    """Each piece's (start, end) in its line, the pieces laid end to end."""
    out, at = [], 0
    for p in pieces:
        out.append((at, at + len(p)))
        at += len(p)
    return out


def _ends(pieces) -> set[int]:
    """The boundaries inside a line cut into ``pieces``."""
    return {end for _, end in piece_spans(pieces)[:-1]}


def text_and_words(entry: dict, script_name: str = "pseudo_words") -> tuple[tuple, list[tuple[tuple[str, ...], ...]]]:
    """A manifest cipher's inscriptions as built, and each line's words (the same cipher built with every
    divider); exit in one line if the two are not the same text."""
    from engine.corpus import DIVIDER, split_units
    from engine.datasets.invented import make_invented_cipher

    args = dict(seed=entry["seed"], script=entry["script"], relation=entry["relation"])
    text = make_invented_cipher(entry["source"], wr=entry["wr"], **args).corpus.inscriptions
    whole = make_invented_cipher(entry["source"], wr=100, **args).corpus.inscriptions
    gold_words = [tuple(tuple(split_units(w)) for w in ins.text.split(DIVIDER)) for ins in whole]
    if [sum(map(len, g)) for g in gold_words] != [sum(u != DIVIDER for u in ins.units) for ins in text]:
        raise SystemExit(f"{script_name}: {entry['id']}: the WR 100 % build is not the same text")
    return text, gold_words


def unit_offsets(text) -> dict[str, list[int]]:
    """Per inscription id: for each offset in its text as written (dividers counted, as the gold's), the offset
    among its units with the dividers left out."""
    from engine.corpus import DIVIDER

    return {ins.id: [i - ins.units[:i].count(DIVIDER) for i in range(len(ins.units) + 1)] for ins in text}


def measure(entry: dict, min_count: tuple[int, int] | None = None) -> dict:
    from benchmarks.cipher_suite import build_cipher
    from engine.config import PRESETS
    from engine.corpus import DIVIDER
    from engine.model.pseudo_words import MIN_COUNT, MIN_COUNT_PAIR, keep_pieces, segment_lines

    folder = build_cipher(entry)
    text, gold_words = text_and_words(entry)
    preset = PRESETS["syllabary"]
    cut = segment_lines(text, preset["max_span"])
    tp = fp = fn = w_tp = w_fn = right = n = 0
    for pieces, gold, ins in zip(cut, gold_words, text):
        g, p = _ends(gold), _ends(pieces)
        tp, fp, fn = tp + len(g & p), fp + len(p - g), fn + len(g - p)
        written = _ends([units for _, units in ins.segments()])
        w_tp, w_fn = w_tp + len(g & written), w_fn + len(g - written)
        spans = set(piece_spans(gold))
        right += sum(s in spans for s in piece_spans(pieces))
        n += len(pieces)
    words = {w for g in gold_words for w in g}
    units = {ins.id: tuple(u for u in ins.units if u != DIVIDER) for ins in text}
    offsets = unit_offsets(text)
    with open(folder / "gold.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    cognates = [units[r["inscription_id"]][offsets[r["inscription_id"]][int(r["start"])]:
                                           offsets[r["inscription_id"]][int(r["word_end"])]] for r in rows]
    long_n, pair_n = min_count or (None, None)
    # the kept pieces of the same cut, as the run keeps them (pseudo_word_corpus), with where each stands
    places = keep_pieces(cut, min_span=preset["min_span"], max_span=preset["max_span"], min_count=long_n,
                         min_count_pair=pair_n)
    pieces = [p for line in places for _, p in line]
    kinds, cognate_kinds = set(pieces), set(cognates)
    # where they stand: a kept piece that is the word at its own place, a gold row whose own span is kept
    word_spans = {ins.id: set(piece_spans(g)) for ins, g in zip(text, gold_words)}
    kept_spans = {ins.id: {(a, a + len(p)) for a, p in line} for ins, line in zip(text, places)}
    in_place = sum((a, a + len(p)) in word_spans[ins.id] for ins, line in zip(text, places) for a, p in line)
    row_spans = [(r["inscription_id"], offsets[r["inscription_id"]][int(r["start"])],
                  offsets[r["inscription_id"]][int(r["word_end"])]) for r in rows]
    row_kept = [(a, b) in kept_spans[i] for i, a, b in row_spans]
    seen = Counter(cognates)
    rare = [k for c, k in zip(cognates, row_kept) if seen[c] <= 2]
    return {"id": entry["id"], "source": entry["source"], "relation": entry["relation"], "wr": entry["wr"],
            "min_count": list(min_count) if min_count else [MIN_COUNT, MIN_COUNT_PAIR],
            "kept_in_place": in_place / len(pieces), "gold_rows_in_place": sum(row_kept) / len(row_kept),
            "rare_gold_rows": len(rare) / len(row_kept), "rare_gold_rows_in_place": sum(rare) / max(1, len(rare)),
            "boundary_precision": tp / max(1, tp + fp), "boundary_recall": tp / max(1, tp + fn),
            "written_boundary_recall": w_tp / max(1, w_tp + w_fn), "pieces": n, "pieces_whole_words": right / n,
            "kept": len(pieces), "kept_types": len(kinds), "kept_words": sum(p in words for p in pieces) / len(pieces),
            "kept_cognates": sum(p in cognate_kinds for p in pieces) / len(pieces),
            "gold_rows_kept": sum(c in kinds for c in cognates) / len(cognates)}


def main(argv=None) -> int:
    from benchmarks.cipher_suite import manifest

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("dev",), default="dev", help="only dev: the test split is run once, at the end")
    ap.add_argument("--min-count", type=int, nargs=2, metavar=("LONG", "PAIR"),
                    help="the word finder's thresholds (settings words_min_count, words_min_count_pair; default theirs)")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    if args.min_count and min(args.min_count) < 1:
        ap.error("--min-count LONG PAIR: counts of 1 or more")
    ciphers, _ = manifest()
    for entry in ciphers.values():
        if entry["split"] == args.split and entry["script"] == "syllabary":
            finish_row(measure(entry, args.min_count), "pseudo_words", argv, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
