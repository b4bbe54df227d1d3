"""Known vocabularies for a synthetic cipher (engine/datasets/synthetic.py) that are its source's relatives
or strangers: the same stems after regular and irregular sound change, or unrelated stems drawn
from the same sound system. They are the controlled cases of docs/closeness.md."""

from __future__ import annotations

import random
from typing import Sequence

from engine.corpus import Stem, Vocabulary
from engine.model.phonology import ipa_units
from engine.datasets.synthetic import CONSONANTS, VOWELS, _word

#: Regular sound changes of the "heavy" relative, applied in this order to each stem:
#: lenition of voiced stops between vowels, a conditional split of k (palatalised before front
#: vowels), p > f and t > θ everywhere, initial s > h, two vowel mergers (e > i, o > u), final
#: nasals merged in n, w > v, and apocope (a final vowel is lost when 4 or more units remain).
HEAVY = "heavy"
LIGHT = "light"
STRENGTHS = (LIGHT, HEAVY)

_LENITE = {"b": "β", "d": "ð", "g": "ɣ"}


def _change_heavy(units: list[str]) -> list[str]:
    out = list(units)
    n = len(out)
    for i, u in enumerate(units):
        prev = units[i - 1] if i > 0 else None
        nxt = units[i + 1] if i + 1 < n else None
        if u in _LENITE and prev in VOWELS and nxt in VOWELS:
            out[i] = _LENITE[u]
        elif u == "k":
            out[i] = "t͡ʃ" if nxt in ("e", "i") else "x"
        elif u == "p":
            out[i] = "f"
        elif u == "t":
            out[i] = "θ"
        elif u == "s" and i == 0:
            out[i] = "h"
        elif u == "e":
            out[i] = "i"
        elif u == "o":
            out[i] = "u"
        elif u == "m" and i == n - 1:
            out[i] = "n"
        elif u == "w":
            out[i] = "v"
    if len(out) >= 5 and out[-1] in VOWELS + ["i", "u"]:
        out = out[:-1]
    return out


def _change_light(units: list[str]) -> list[str]:
    return ["f" if u == "p" else "i" if u == "e" else u for u in units]


def sound_change(vocab: Vocabulary, *, seed: int = 0, strength: str = HEAVY, noise: float | None = None,
                 language: str | None = None) -> Vocabulary:
    """``vocab`` after sound change: the regular rules of ``strength``, then each unit replaced by a
    random unit of the inventory with probability ``noise`` (default 0.1 heavy, 0 light).
    Stems that end up the same as an earlier one are dropped (a merger of words)."""
    if strength not in STRENGTHS:
        raise ValueError(f"unknown strength {strength!r}; use one of {', '.join(STRENGTHS)}")
    noise = (0.1 if strength == HEAVY else 0.0) if noise is None else noise
    rng = random.Random(f"sound-change:{seed}")
    inventory = sorted({u for s in vocab.stems for u in ipa_units(s.ipa)} | set(CONSONANTS) | set(VOWELS))
    change = _change_heavy if strength == HEAVY else _change_light
    seen: set[tuple[str, ...]] = set()
    stems = []
    for s in vocab.stems:
        units = change(list(ipa_units(s.ipa)))
        units = [rng.choice(inventory) if rng.random() < noise else u for u in units]
        if tuple(units) in seen:
            continue
        seen.add(tuple(units))
        ipa = "".join(units)
        stems.append(Stem(ipa, ipa, s.form, f"{strength} relative of {vocab.language}"))
    return Vocabulary(language or f"{vocab.language} ({strength} relative)", tuple(stems))


def unrelated_vocabulary(n_stems: int, *, seed: int, stem_len: tuple[int, int] = (4, 6),
                         avoid: Sequence[Stem] = (), language: str = "unrelated") -> Vocabulary:
    """``n_stems`` random stems of the synthetic sound system (none of ``avoid``'s)."""
    rng = random.Random(f"unrelated:{seed}")
    taken = {s.ipa for s in avoid}
    forms: dict[str, None] = {}
    while len(forms) < n_stems:
        w = _word(rng, *stem_len)
        if w not in taken:
            forms.setdefault(w, None)
    return Vocabulary(language, tuple(Stem(f, f, "", language) for f in forms))


__all__ = ["HEAVY", "LIGHT", "STRENGTHS", "sound_change", "unrelated_vocabulary"]
