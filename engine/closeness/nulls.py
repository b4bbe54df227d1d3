"""Null vocabularies: a candidate vocabulary's sounds rearranged so that no cognate survives.

A null keeps what makes closeness scores comparable (the number of stems, each stem's length in
IPA units, the sound inventory; the phonotactic null also which sounds start and end words and which
follow which) and destroys what a relative language has and chance does not: the words themselves. Scores against nulls tell how well *any* vocabulary of this size and
sound inventory covers the lost text (docs/closeness.md).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Sequence

from engine.corpus import Stem, Vocabulary
from engine.errors import DecipherError
from engine.model.phonology import ipa_units
from engine.model.syllables import is_vowel

#: "phonotactic" (the default of ``decipher closeness``): stems sampled from a bigram model of the
#: candidate's own stems (start and end symbols included), each at the length of the stem it replaces,
#: none equal to a real stem or to another null stem: keeps the sound inventory (no unit or transition
#: the candidate lacks), the length of every stem, which sounds start and end words and which follow
#: which (in expectation), and removes the words (docs/closeness.md "The null model");
#: "skeleton": the consonants of all stems pooled and shuffled into the consonant slots,
#: the vowels into the vowel slots, so each stem keeps its length and its consonant-vowel pattern
#: (the language's syllable shapes) and the vocabulary its unit counts, while the words are gone;
#: "across": all units pooled, shuffled and dealt back at the same stem lengths (keeps size, lengths
#: and unit counts but also breaks the syllable shapes: a weaker null, which a vocabulary of the
#: right syllable shapes beats without being related, docs/closeness.md);
#: "within": each stem's own units in a shuffled order;
#: "distant": as "phonotactic", but a draw within one sound (one unit replaced, added or left out) of a
#: real stem is redrawn too: a language of short words and few sound patterns (a strict CV language)
#: makes many such near-words, which fit a relative's text through its sound changes about as a real
#: word does (where no distant word of a length turns up, a near one is kept, never a real one).
NULL_MODES = ("phonotactic", "skeleton", "across", "within", "distant")
#: What ``decipher closeness``, the app and :func:`engine.closeness.comparison.plan_comparison` use unless told.
DEFAULT_NULL_MODE = "phonotactic"
#: Start and end symbols of the bigram model (never IPA units).
START, END = "\x02", "\x03"
#: Draws tried for one phonotactic null stem before the candidate is said to have too few new stems.
_MAX_DRAWS = 2_000

#: Swaps tried to turn a null's accidental duplicate stems into distinct ones.
_MAX_REPAIRS = 10_000


def _units(vocab: Vocabulary) -> list[tuple[str, ...]]:
    return [ipa_units(s.ipa, source=f"stem {s.form!r} of {vocab.language}") for s in vocab.stems]


def bigram_counts(stems: Sequence[Sequence[str]]) -> Counter:
    """(a, b) -> how often unit b follows unit a in ``stems``, START before each stem's first unit and
    END after its last (so the counts hold the start, end and transition statistics together)."""
    c: Counter = Counter()
    for units in stems:
        seq = (START, *units, END)
        c.update(zip(seq, seq[1:]))
    return c


class _Near:
    """Whether a sequence of units is within one edit (a unit replaced, added or left out) of a real stem."""

    def __init__(self, real: set[tuple[str, ...]]) -> None:
        self.real = real
        self.holes = {r[:i] + (None,) + r[i + 1:] for r in real for i in range(len(r))}   # one replaced
        self.shorter = {r[:i] + r[i + 1:] for r in real for i in range(len(r))}            # one left out

    def __call__(self, seq: tuple[str, ...]) -> bool:
        if seq in self.real or seq in self.shorter:
            return True
        return any(seq[:i] + (None,) + seq[i + 1:] in self.holes or seq[:i] + seq[i + 1:] in self.real
                   for i in range(len(seq)))


def _phonotactic(vocab: Vocabulary, units: list[tuple[str, ...]], rng: random.Random,
                 distant: bool = False) -> list[list[str]]:
    """One stem per real stem, drawn from the bigram model of ``units`` conditioned on its length
    (exactly: a backward pass gives, for each unit and each number of units still to come, the
    probability of reaching END then; each draw weighs a next unit by its transition probability
    times that). A draw equal to a real stem is always redrawn, one equal to an earlier null stem too,
    up to _MAX_DRAWS draws; after them a stem may repeat an earlier null stem (the candidate's patterns
    allow too few new words of that length), and with no new word at all it is an error. ``distant``:
    a draw within one sound of a real stem is redrawn as well, and kept only where no distant new word
    turned up in the draws."""
    counts = bigram_counts(units)
    nexts: dict[str, list[tuple[str, float]]] = {}
    totals: Counter = Counter()
    for (a, _b), n in counts.items():
        totals[a] += n
    for (a, b), n in sorted(counts.items()):
        nexts.setdefault(a, []).append((b, n / totals[a]))
    longest = max((len(u) for u in units), default=0)
    # reach[k][a]: probability that, from unit a, exactly k more units then END follow
    reach: list[dict[str, float]] = [{a: sum(p for b, p in nx if b == END) for a, nx in nexts.items()}]
    for k in range(1, longest + 1):
        reach.append({a: sum(p * reach[k - 1].get(b, 0.0) for b, p in nx if b != END) for a, nx in nexts.items()})
    real = set(units)
    near = _Near(real) if distant else None
    taken: set[tuple[str, ...]] = set()
    out = []
    for stem in units:
        n = len(stem)
        repeat = None  # a new word already in this null: used only when no other new word turns up
        close = None   # distant: a new word within one sound of a real stem, kept only when no distant one turns up
        for _ in range(_MAX_DRAWS):
            seq, prev = [], START
            for i in range(n):
                left = n - i - 1
                options = [(b, p * reach[left].get(b, 0.0)) for b, p in nexts[prev] if b != END]
                prev = rng.choices([b for b, _ in options], weights=[w for _, w in options])[0]
                seq.append(prev)
            key = tuple(seq)
            if key in real:
                continue
            if near is not None and key not in taken and near(key):
                close = close or seq
                continue
            if key not in taken:
                taken.add(key)
                out.append(seq)
                break
            repeat = seq
        else:
            if close is not None:
                taken.add(tuple(close))
                out.append(close)
                continue
            if repeat is None:
                raise DecipherError(
                    f"{vocab.language}: no phonotactic null stem of {n} units in {_MAX_DRAWS} draws that is not one "
                    f"of its stems: its sound patterns allow no new word of that length; use --null-mode skeleton")
            out.append(list(repeat))
    return out


def null_vocabulary(vocab: Vocabulary, seed: int, index: int = 0, *, mode: str = "skeleton") -> Vocabulary:
    """The ``index``-th null of ``vocab`` for ``seed`` (the same arguments give the same null).

    Its stems are in the order of ``vocab``'s, with the same length each; form = IPA, no gloss.
    Duplicate stems the shuffle happens to create are repaired by swapping units between stems
    (which keeps every count), so the null has as many distinct stems as the candidate.
    """
    if mode not in NULL_MODES:
        raise ValueError(f"unknown null mode {mode!r}; use one of {', '.join(NULL_MODES)}")
    rng = random.Random(f"null:{mode}:{seed}:{index}")
    units = _units(vocab)
    if mode in ("phonotactic", "distant"):
        out = _phonotactic(vocab, units, rng, distant=mode == "distant")
        label = f"{vocab.language} null {index}"
        return Vocabulary(label, tuple(Stem("".join(u), "".join(u), "", label) for u in out))
    if mode == "skeleton":
        pools = {kind: [u for stem in units for u in stem if is_vowel(u) == kind] for kind in (False, True)}
        for pool in pools.values():
            rng.shuffle(pool)
        out = [[pools[is_vowel(u)].pop() for u in stem] for stem in units]
    elif mode == "across":
        pool = [u for stem in units for u in stem]
        rng.shuffle(pool)
        out, i = [], 0
        for stem in units:
            out.append(pool[i:i + len(stem)])
            i += len(stem)
    else:
        out = []
        for stem in units:
            s = list(stem)
            rng.shuffle(s)
            out.append(s)
    _repair_duplicates(out, rng, allowed=len(units) - len(set(units)), mode=mode)
    label = f"{vocab.language} null {index}"
    stems = tuple(Stem("".join(u), "".join(u), "", label) for u in out)
    return Vocabulary(label, stems)


def _repair_duplicates(stems: list[list[str]], rng: random.Random, *, allowed: int, mode: str) -> None:
    """Swap units until at most ``allowed`` stems repeat an earlier one (the candidate's own count);
    a swap never changes what the mode keeps (skeleton: only a vowel with a vowel, a consonant with a
    consonant)."""
    for _ in range(_MAX_REPAIRS):
        seen: dict[tuple[str, ...], int] = {}
        dup = []
        for i, s in enumerate(stems):
            key = tuple(s)
            if key in seen:
                dup.append(i)
            else:
                seen[key] = i
        if len(dup) <= allowed:
            return
        i = rng.choice(dup)
        a = rng.randrange(len(stems[i]))
        if mode != "within":
            j = rng.randrange(len(stems))
            b = rng.randrange(len(stems[j]))
            if mode == "skeleton" and is_vowel(stems[i][a]) != is_vowel(stems[j][b]):
                continue
            stems[i][a], stems[j][b] = stems[j][b], stems[i][a]
        else:  # within a stem: only its own order can change
            b = rng.randrange(len(stems[i]))
            stems[i][a], stems[i][b] = stems[i][b], stems[i][a]


def null_vocabularies(vocab: Vocabulary, n: int, seed: int = 0, *, mode: str = "skeleton") -> list[Vocabulary]:
    """``n`` distinct nulls of ``vocab`` (indices 0 … n-1) for ``seed``."""
    if n < 0:
        raise ValueError(f"the number of nulls must not be negative (got {n})")
    return [null_vocabulary(vocab, seed, i, mode=mode) for i in range(n)]


def unit_counts(stems: Sequence[Stem]) -> Counter:
    """How often each IPA unit occurs in ``stems`` (what a null keeps)."""
    return Counter(u for s in stems for u in ipa_units(s.ipa))


__all__ = ["DEFAULT_NULL_MODE", "END", "NULL_MODES", "START", "bigram_counts", "null_vocabularies", "null_vocabulary", "unit_counts"]
