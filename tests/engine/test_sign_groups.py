"""The vowel groups of a syllabary's text (engine/model/sign_groups.py) and the diagnosis check built on
them (engine/training/diagnosis.py ``vowels``, issue 49 item 3)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.model.sign_groups import GROUPS, vowel_evidence, vowel_groups, weighted_nmi
from engine.training.diagnosis import GROUP_STABILITY_MIN, VOWEL_AGREEMENT_P, WRONG_CODES, vowels_finding

ONSETS = "ptkmnslr"
VOWELS = "aeiou"
#: one sign a syllable, as a syllabary writes them (code points of the Linear A block, as the ciphers use)
SIGN = {(c, v): chr(0x10600 + i * len(VOWELS) + j) for i, c in enumerate(ONSETS) for j, v in enumerate(VOWELS)}
KEY = {s: cv for cv, s in SIGN.items()}


def text(seed: int = 0, words: int = 3000, echo: float = 0.6) -> list[tuple[str, ...]]:
    """Words of 2-5 signs in which a sign's vowel copies the one before with probability ``echo`` (as
    echo vowels and vowel harmony make it), onsets at random with unequal odds."""
    rng = random.Random(seed)
    onset_odds = [8, 7, 6, 5, 4, 3, 2, 1]
    out = []
    for _ in range(words):
        v = rng.choice(VOWELS)
        word = []
        for _ in range(rng.randint(2, 5)):
            if word and rng.random() > echo:
                v = rng.choice(VOWELS)
            word.append(SIGN[rng.choices(ONSETS, onset_odds)[0], v])
        out.append(tuple(word))
    return out


def test_weighted_nmi_is_one_for_the_same_groups_and_zero_for_independent_ones():
    assert weighted_nmi([0, 0, 1, 1], ["a", "a", "b", "b"], [1, 2, 3, 4]) == pytest.approx(1.0)
    assert weighted_nmi([0, 1, 0, 1], ["a", "a", "b", "b"], [1, 1, 1, 1]) == pytest.approx(0.0, abs=1e-12)
    assert weighted_nmi([0, 0, 0], ["a", "b", "c"], [1, 1, 1]) == 0.0, "a constant labelling says nothing"
    # weights count: the heavy items agree, the light ones do not
    heavy = weighted_nmi([0, 1, 0, 1], ["a", "b", "b", "a"], [100, 100, 1, 1])
    light = weighted_nmi([0, 1, 0, 1], ["a", "b", "b", "a"], [1, 1, 100, 100])
    assert heavy == pytest.approx(light) and heavy > 0.5


def test_groups_follow_the_vowels_where_signs_echo_them():
    chunks = text()
    groups = vowel_groups(chunks)
    assert len(set(groups.values())) == GROUPS and set(groups) <= set(KEY)
    counts = Counter(s for c in chunks for s in c)
    votes: dict[int, Counter] = {}
    for sign, g in groups.items():
        votes.setdefault(g, Counter())[KEY[sign][1]] += counts[sign]
    right = sum(c.most_common(1)[0][1] for c in votes.values())
    assert right / sum(counts[s] for s in groups) > 0.9
    assert vowel_groups(chunks) == groups, "seeded: the same text gives the same groups"


def test_too_few_frequent_signs_give_no_groups():
    assert vowel_groups([tuple(SIGN[c, "a"] for c in "ptk")] * 50) == {}
    assert vowel_evidence([tuple(SIGN[c, "a"] for c in "ptk")] * 50, {s: "a" for s in KEY}) is None


def test_a_right_readings_vowels_fit_the_groups_and_a_scrambled_ones_do_not():
    chunks = text()
    right = vowel_evidence(chunks, {s: v for s, (_, v) in KEY.items()})
    assert right.stability >= GROUP_STABILITY_MIN and right.p_value < VOWEL_AGREEMENT_P
    assert right.agreement > right.chance + 0.3
    rng = random.Random(1)
    scrambled = {s: rng.choice(VOWELS) for s in KEY}       # a wrong reading: vowels with no relation to the text
    wrong = vowel_evidence(chunks, scrambled)
    assert wrong.stability == pytest.approx(right.stability), "the groups' stability is the text's"
    assert wrong.p_value >= VOWEL_AGREEMENT_P


def test_a_text_without_vowel_patterns_gives_unstable_groups():
    flat = vowel_evidence(text(echo=0.0), {s: v for s, (_, v) in KEY.items()})
    assert flat is not None and flat.stability < GROUP_STABILITY_MIN


class _Table:
    """What vowels_finding reads of a SyllableTable: each sign's top onset and vowel."""

    def __init__(self, values):
        self.values = values

    def top_values(self):
        return dict(self.values)


def test_the_diagnosis_flags_a_reading_whose_vowels_ignore_the_text():
    chunks = text()
    finding, values = vowels_finding(_Table(KEY), chunks)
    assert finding is None and values["diagnosis_vowel_agreement_p"] < VOWEL_AGREEMENT_P
    rng = random.Random(2)
    wrong = {s: (c, rng.choice(VOWELS)) for s, (c, _) in KEY.items()}
    finding, values = vowels_finding(_Table(wrong), chunks)
    assert finding is not None and finding.code == "vowels" and finding.flag and "vowels" in WRONG_CODES
    assert "do not follow the text" in finding.text and f"p = {values['diagnosis_vowel_agreement_p']:.2f}" in finding.text
    # where the text's groups mean nothing, no verdict either way
    finding, values = vowels_finding(_Table(wrong), text(echo=0.0))
    assert finding is None and values["diagnosis_vowel_groups_stability"] < GROUP_STABILITY_MIN
