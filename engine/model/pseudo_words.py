"""Pseudo-words: the words a text without dividers most likely has, found without gold (setting words_first).

A run of free spans over a syllabic text with few or no word dividers matches short runs of two signs to
anything, and stays far from the reading (issue 49: the invented syllabaries' running text); the same run
trained first on the text's words whole, then on its free spans, reads it. This module finds such words
from the text alone: a unigram language model of its sign strings (SentencePiece's, Kudo 2018: EM over
every segmentation of every line, the written dividers kept as boundaries) cuts each line; the pieces the
model keeps often and that are long enough to be a stem are the pseudo-words. On the dev syllabaries most
such pieces are a whole word of the text (a stem with or without its suffix), while the short or rare
ones are mostly halves of words and suffixes, so those are left out.

The corpus returned has the text's inscriptions (same ids, same order, a line with no kept piece left out),
each a row of its kept pieces with a divider between them; it is trained with ``segmented = true``.
"""

from __future__ import annotations

import io
from collections import Counter
from typing import Sequence

import sentencepiece

from engine.corpus import DIVIDER, Corpus, Inscription
from engine.errors import InputError

#: a piece of 3 signs or more is kept when the text has it at least this often ...
MIN_COUNT = 3
#: ... a piece of 2 signs only this often (a frequent pair is more often a word's half)
MIN_COUNT_PAIR = 9
#: the most distinct signs the segmenter takes (its units are one code point each, from the Private Use
#: Area); far more than any script's signs
MAX_SIGNS = 6400
_PUA = 0xE000


def segment_lines(inscriptions: Sequence[Inscription], max_piece: int) -> list[list[tuple[str, ...]]]:
    """Each inscription's units cut into pieces by a unigram model trained on these inscriptions; a written
    divider is always a boundary. Deterministic (one thread)."""
    runs = [[units for _, units in ins.segments()] for ins in inscriptions]
    signs = sorted({u for line in runs for run in line for u in run})
    if len(signs) > MAX_SIGNS:
        raise InputError(f"setting words_first: the text has {len(signs)} distinct signs; the word finder "
                         f"takes at most {MAX_SIGNS}")
    code = {u: chr(_PUA + i) for i, u in enumerate(signs)}
    back = {c: u for u, c in code.items()}
    text = [" ".join("".join(code[u] for u in run) for run in line) for line in runs]
    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(text), model_writer=model, model_type="unigram", vocab_size=5000,
        hard_vocab_limit=False, character_coverage=1.0, max_sentencepiece_length=max(1, max_piece),
        normalization_rule_name="identity", add_dummy_prefix=True, split_by_unicode_script=False,
        split_by_number=False, split_digits=False, num_threads=1, minloglevel=2)
    sp = sentencepiece.SentencePieceProcessor(model_proto=model.getvalue())
    out = []
    for line in text:
        pieces = (p.replace("\u2581", "") for p in sp.encode(line, out_type=str))
        out.append([tuple(back[c] for c in p) for p in pieces if p])
    return out


def kept_pieces(corpus: Corpus, *, min_span: int, max_span: int, min_count: int | None = None,
                min_count_pair: int | None = None) -> list[list[tuple[int, tuple[str, ...]]]]:
    """Each inscription's kept pieces (module docstring) as (where the piece starts among the line's units,
    dividers not counted; its units), in order. ``min_count`` and ``min_count_pair``: the thresholds (default
    MIN_COUNT and MIN_COUNT_PAIR; settings words_min_count and words_min_count_pair)."""
    return keep_pieces(segment_lines(corpus.inscriptions, max_span), min_span=min_span, max_span=max_span,
                       min_count=min_count, min_count_pair=min_count_pair)


def keep_pieces(pieces: list[list[tuple[str, ...]]], *, min_span: int, max_span: int, min_count: int | None = None,
                min_count_pair: int | None = None) -> list[list[tuple[int, tuple[str, ...]]]]:
    """kept_pieces of a text already cut (segment_lines' lines)."""
    long_n = MIN_COUNT if min_count is None else min_count
    pair_n = MIN_COUNT_PAIR if min_count_pair is None else min_count_pair
    count = Counter(p for line in pieces for p in line)
    lo = max(2, min_span)

    def keep(p: tuple[str, ...]) -> bool:
        n = len(p)
        return lo <= n <= max_span and count[p] >= (pair_n if n == 2 else long_n)

    out = []
    for line in pieces:
        kept, at = [], 0
        for p in line:
            if keep(p):
                kept.append((at, p))
            at += len(p)
        out.append(kept)
    return out


def pseudo_word_corpus(corpus: Corpus, *, min_span: int, max_span: int, min_count: int | None = None,
                       min_count_pair: int | None = None, types: bool = False) -> Corpus | None:
    """The text's pseudo-words (module docstring), as a corpus to train with segmented = true; None when it
    has none (a text too small or too varied for any piece to recur). The thresholds as kept_pieces takes them.
    ``types`` (setting words_types): each distinct pseudo-word once, a line of its own (id: the inscription
    where it first stands, a dot, its place among that line's pieces), in the order the text first has them."""
    out = []
    seen: set[tuple[str, ...]] = set()
    for ins, kept in zip(corpus.inscriptions, kept_pieces(corpus, min_span=min_span, max_span=max_span,
                                                          min_count=min_count, min_count_pair=min_count_pair)):
        if types:
            for k, (_, p) in enumerate(kept):
                if p not in seen:
                    seen.add(p)
                    out.append(Inscription(f"{ins.id}.{k}", "".join(p)))
        elif kept:
            out.append(Inscription(ins.id, DIVIDER.join("".join(p) for _, p in kept)))
    return Corpus(f"{corpus.name} (pseudo-words)", tuple(out)) if out else None
