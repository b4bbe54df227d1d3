"""A synthetic cipher for tests and demos: known stems, a letter substitution, concatenated
lost words with filler letters between them, and the gold annotations that follow."""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.corpus import Corpus, GoldAnnotation, Inscription, Stem, Vocabulary

CONSONANTS = list("ptkbdgmnslrfvwjh")
VOWELS = list("aeiou")


@dataclass(frozen=True)
class SyntheticCipher:
    corpus: Corpus
    vocabulary: Vocabulary
    gold: tuple[GoldAnnotation, ...]
    key: dict[str, str]
    """known IPA unit -> lost letter"""


def _word(rng: random.Random, lo: int, hi: int) -> str:
    n = rng.randint(lo, hi)
    return "".join(rng.choice(CONSONANTS) if i % 2 == 0 else rng.choice(VOWELS) for i in range(n))


def make_cipher(*, n_stems: int = 40, n_inscriptions: int = 60, words_per_inscription: tuple[int, int] = (1, 3),
                filler: tuple[int, int] = (0, 3), stem_len: tuple[int, int] = (4, 6), seed: int = 0,
                dividers: bool = False) -> SyntheticCipher:
    rng = random.Random(seed)
    stems: dict[str, str] = {}
    while len(stems) < n_stems:
        w = _word(rng, *stem_len)
        stems.setdefault(w, w)
    units = CONSONANTS + VOWELS
    letters = list("ABCDEFGHIJKLMNOPQRSTUVWXYZ")[: len(units)]
    rng.shuffle(letters)
    key = dict(zip(units, (c.lower() for c in letters)))
    forms = list(stems)
    inscriptions, gold = [], []
    for i in range(n_inscriptions):
        text, spans = "", []
        for _ in range(rng.randint(*words_per_inscription)):
            text += "".join(key[rng.choice(units)] for _ in range(rng.randint(*filler)))
            form = rng.choice(forms)
            start = len(text)
            text += "".join(key[c] for c in form)
            spans.append((start, len(text), form))
            if dividers:
                text += " "
        text += "".join(key[rng.choice(units)] for _ in range(rng.randint(*filler)))
        text = text.strip()
        ins_id = f"S{i + 1}"
        inscriptions.append(Inscription(ins_id, text, raw=text))
        gold.extend(GoldAnnotation(ins_id, s, e, (f,)) for s, e, f in spans)
    vocab = Vocabulary("synthetic", tuple(Stem(f, f) for f in forms))
    return SyntheticCipher(Corpus("synthetic", tuple(inscriptions)), vocab, tuple(gold), key)
