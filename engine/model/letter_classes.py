"""Which lost letters behave as vowels, from their contexts alone: Sukhotin's algorithm (1962).

Vowels and consonants tend to alternate, so letters that stand next to each other often are likely
of different classes. Count how often each pair of distinct letters is adjacent inside a chunk (in
either order; a letter next to itself is not counted); call every letter a consonant; then, while
some consonant's adjacency to the other consonants (its count with every letter, less twice its count
with the letters already called vowels) is positive, call the largest one a vowel. Gold-free and
instant; known to classify the vowels of alphabetic texts well (Guy 1991, "Vowel identification:
an old (but good) algorithm").

A syllabary's signs carry a vowel each and an abjad writes none, so the result only means something
for an alphabet whose vowels are written; :func:`vowel_letters` is used with ``signs = letters``.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

#: Sukhotin must find at least this many vowel letters for the classes to mean anything (an abjad's
#: text gives it one or none worth the name)
MIN_VOWEL_LETTERS = 2
#: and the known side must have at least this many vowel units (Hebrew stems written without vowels
#: have none)
MIN_VOWEL_UNITS = 2


def adjacency(chunks: Iterable[Sequence[str]]) -> Counter:
    """Counts of unordered adjacent pairs of distinct letters, keyed (a, b) with a < b."""
    pairs: Counter = Counter()
    for letters in chunks:
        for a, b in zip(letters, letters[1:]):
            if a != b:
                pairs[(a, b) if a < b else (b, a)] += 1
    return pairs


def sukhotin(chunks: Iterable[Sequence[str]]) -> list[str]:
    """The letters Sukhotin's algorithm calls vowels, in the order it finds them."""
    pairs = adjacency(chunks)
    letters = sorted({x for pair in pairs for x in pair})
    near: dict[str, Counter] = {x: Counter() for x in letters}
    for (a, b), n in pairs.items():
        near[a][b] += n
        near[b][a] += n
    sums = {x: sum(near[x].values()) for x in letters}
    vowels: list[str] = []
    while True:
        consonants = [x for x in letters if x not in vowels]
        if not consonants:
            break
        best = max(consonants, key=lambda x: (sums[x], x))
        if sums[best] <= 0:
            break
        vowels.append(best)
        for x in consonants:
            if x != best:
                sums[x] -= 2 * near[x][best]
    return vowels


def vowel_letters(prep) -> list[str]:
    """Sukhotin's vowels among a prepared problem's lost letters (its chunks' letters)."""
    return sukhotin(chunk.letters for chunk in prep.chunks)


def letter_shares(prep) -> dict[str, float]:
    """Each lost letter's share of a prepared problem's text (its chunks' letters)."""
    counts = Counter(letter for chunk in prep.chunks for letter in chunk.letters)
    total = max(sum(counts.values()), 1)
    return {k: v / total for k, v in counts.items()}


def class_evidence(prep) -> list[str] | None:
    """The lost letters that pattern as vowels, or None where classes say nothing: a syllabary
    (signs = syllables), fewer than MIN_VOWEL_LETTERS such letters, or a known side with fewer than
    MIN_VOWEL_UNITS vowels."""
    from engine.model.syllables import is_vowel

    if not prep.script.alphabet:
        return None
    if sum(1 for u in prep.known_units if is_vowel(u)) < MIN_VOWEL_UNITS:
        return None
    vowels = vowel_letters(prep)
    return vowels if len(vowels) >= MIN_VOWEL_LETTERS else None
