"""Issue 25: the table of standard values of the Linear B signs (resources/linear_b/) and the count
of signs a run's top-1 onset and vowel got right (engine/datasets/linear_b.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.datasets.linear_b import STANDARD_VALUES, count_standard, parse_standard_values, standard_values
from engine.errors import InputError
from engine.io import linear_b as lb
from engine.io.transcription import load_rule_table
from engine.model.phonology import ipa_units
from engine.model.syllables import NULL_ONSET
from tests.conftest import SHARED_DATA

COG = Path(os.environ.get("DECIPHER_SHARED_DATA") or SHARED_DATA) / "linear_b" / "linear_b-greek.cog"
S = lb.TO_SIGN


def test_one_row_per_valued_sign_of_the_block():
    values = standard_values()
    assert set(values) == {s.sign for s in lb.VALUED} and len(values) == 74
    assert not set(values) & {s.sign for s in lb.UNVALUED}
    assert (STANDARD_VALUES.parent / "README.md").read_text(encoding="utf-8").count("Ventris") >= 1


@pytest.mark.parametrize("translit,onset,vowel,greek_onsets", [
    ("a", NULL_ONSET, "a", {NULL_ONSET, "h"}), ("ka", "k", "a", {"k", "kʰ", "ɡ"}), ("pa", "p", "a", {"p", "pʰ", "b"}),
    ("ta", "t", "a", {"t", "tʰ"}), ("da", "d", "a", {"d"}), ("ra", "r", "a", {"r", "l"}),
    ("qo", "kʷ", "o", {"p", "pʰ", "b", "t", "tʰ", "k", "kʰ", "ɡ"}), ("ze", "d͡z", "e", {"z", "d"}),
    ("a2", "h", "a", {"h", NULL_ONSET}), ("pu2", "pʰ", "u", {"pʰ", "p", "b"}), ("ra3", "r", "a", {"r", "l"}),
    ("a3", NULL_ONSET, "a", {NULL_ONSET, "h"}), ("dwo", "d", "o", {"d"}), ("pte", "p", "e", {"p", "pʰ", "b"}),
])
def test_the_conventions(translit, onset, vowel, greek_onsets):
    v = standard_values()[S[translit]]
    assert (v.transliteration, v.onset, v.vowel, set(v.greek_onsets)) == (translit, onset, vowel, greek_onsets)


def test_the_greek_sets_are_sounds_the_greek_table_writes():
    table = load_rule_table("greek")
    greek_units = {u for rule in table.rules if rule.ipa for u in ipa_units(rule.ipa)} | {NULL_ONSET}
    for v in standard_values().values():
        assert v.greek_onsets <= greek_units, v.transliteration
        assert v.greek_vowels <= greek_units, v.transliteration
    assert standard_values()[S["ku"]].greek_vowels == {"y", "u"}     # Attic υ, and the u of αυ ευ


@pytest.mark.skipif(not COG.is_file(), reason="../shared/data/linear_b (the NeuroCipher file) is absent")
def test_every_sign_of_the_cognate_file_has_a_standard_value():
    signs = {ch for line in COG.read_text(encoding="utf-8").splitlines()[1:] for ch in line.split("\t")[0]}
    assert len(signs) == 70 and signs <= set(standard_values())


def test_count_standard():
    best = {S["ka"]: ("kʰ", "a"), S["qo"]: ("b", "o"), S["ru"]: ("l", "y"), S["te"]: ("t", "ɛ"),
            S["a"]: ("h", "e"),          # the vowel is wrong
            S["pa"]: ("t", "a"),         # the onset is wrong
            S["*18"]: ("k", "a")}        # no standard value: not counted
    c = count_standard(best)
    assert (c.right, c.total) == (4, 6)
    assert c.wrong == ((S["a"], "a", "h", "e"), (S["pa"], "pa", "t", "a"))
    assert c.no_standard == (S["*18"],)
    assert c.summary() == "4 of 6 signs got their standard value (top-1 onset and vowel)"


HEADER = "sign,bennett,transliteration,onset,vowel,greek_onsets,greek_vowels\n"


@pytest.mark.parametrize("row,problem", [
    ("𐀀,B008,a,∅,a,∅ h", "line 2: 6 fields, the header has 7"),
    ("a,B008,a,∅,a,∅ h,a", "line 2: 'a' is not a Linear B sign with a value"),
    ("𐀀,B009,a,∅,a,∅ h,a", "line 2: '𐀀' is B008 a by its Unicode name, not B009 a"),
    ("𐀏,B077,ka,kh,a,k,a", "line 2: onset 'kh' must be one IPA unit"),
    ("𐀏,B077,ka,k,a,,a", "line 2: greek_onsets of 'ka' is empty"),
])
def test_a_bad_table_is_one_line_naming_the_line(tmp_path, row, problem):
    with pytest.raises(InputError) as e:
        parse_standard_values(HEADER + row + "\n", path="sv.csv")
    message = str(e.value)
    assert message.startswith("sv.csv, line 2: ") and problem.split(": ", 1)[1] in message and "\n" not in message


def test_the_table_is_cached_and_re_read_when_it_changes(tmp_path):
    path = tmp_path / "sv.csv"
    path.write_text(HEADER + "𐀏,B077,ka,k,a,k,a\n", encoding="utf-8")
    first = standard_values(path)
    assert first[S["ka"]].greek_onsets == {"k"}
    path.write_text(HEADER + "𐀏,B077,ka,k,a,k kʰ ɡ,a\n𐀀,B008,a,∅,a,∅,a\n", encoding="utf-8")
    second = standard_values(path)
    assert second[S["ka"]].greek_onsets == {"k", "kʰ", "ɡ"} and len(second) == 2
    with pytest.raises(InputError, match="file not found"):
        standard_values(tmp_path / "nope.csv")
