"""Candidate vocabularies from plain texts and word lists (engine/datasets/candidates.py)."""

from __future__ import annotations

import pytest

from engine.cli.main import main as cli_main
from engine.datasets.candidates import (LANGUAGES, build, latin_stem, lower, read_frequencies, read_verses,
                                        words_of)
from engine.errors import DecipherError, InputError
from engine.io.tables import read_known
from engine.model.phonology import ipa_units
from tests.conftest import DATA, shared_path

FIX = DATA / "candidates"


def test_latin_rules():
    assert latin_stem("terram") == "terr"
    assert latin_stem("tenebrae") == "tenebr"
    assert latin_stem("dixitque") == "dixit"
    assert latin_stem("atque") == "atque"  # a -que word of its own
    assert latin_stem("Deus") == "de"
    assert latin_stem("et") == "et"  # too short to lose a suffix


def test_words_and_turkish_case():
    assert list(words_of("Y dijo Dios: Sea la luz: y fué")) == ["Y", "dijo", "Dios", "Sea", "la", "luz", "y", "fué"]
    assert list(words_of("وَقَالَ اللهُ: «لِيَكُنْ")) == ["وَقَالَ", "اللهُ", "لِيَكُنْ"]
    assert lower("Irmak", "turkish") == "ırmak" and lower("İshak", "turkish") == "ishak"
    assert lower("Isten", "hungarian") == "isten"


def test_spanish_from_verses_keeps_the_most_frequent_stems(tmp_path):
    counts = read_verses(FIX / "genesis.spanish.tsv")
    assert counts["Dios"] == 7 and counts["luz"] == 5 and counts["tinieblas"] == 3
    built = build("spanish", stems=5, source=FIX / "genesis.spanish.tsv")
    assert len(built.stems) == 5
    # among stems of 4–10 IPA units ("la", "luz", "agu" are shorter) "Dios" ×7 leads, then "tinieblas" ×3;
    # the ties at 2× follow in the stems' alphabetical order
    assert [s.form for s in built.stems] == ["dios", "tiniebl", "estab", "sobr", "tierr"]
    assert built.stems[0].ipa == "djos" and built.stems[0].gloss == "dios (7×)"
    assert built.stems[0].source == "spanish"
    assert all(4 <= len(ipa_units(s.ipa)) <= 10 for s in built.stems)
    assert built.out_of_range > 0 and "kept 5 (frequency)" in built.describe()
    out = tmp_path / "known-spanish.csv"
    assert cli_main(["dataset", "candidates", "--language", "spanish", "--stems", "5", "--source",
                     str(FIX / "genesis.spanish.tsv"), "--out", str(out)]) == 0
    again = read_known(out)
    assert [(s.form, s.ipa) for s in again] == [(s.form, s.ipa) for s in built.stems]


@pytest.mark.parametrize("language,fixture", [("latin", "genesis.latin.tsv"), ("arabic", "genesis.arabic.tsv"),
                                              ("hungarian", "genesis.hungarian.tsv"),
                                              ("turkish", "turkish.word_freq.tsv")])
def test_each_text_language_builds(language, fixture):
    built = build(language, stems=3, min_units=3, source=FIX / fixture)
    assert 1 <= len(built.stems) <= 3
    assert all(len(ipa_units(s.ipa)) >= 3 for s in built.stems)
    if language == "turkish":
        # kardeşleri ×147 and kardeşlerine ×20 share the Snowball stem and add up
        assert built.stems[2].form == "kardeş" and built.stems[2].gloss == "kardeşleri (167×)"
    if language == "latin":  # lucem ×2 -> luc, lux ×2
        assert [s.form for s in built.stems[:2]] == ["luc", "lux"]


def test_word_lists_are_sampled_with_a_seed():
    built = build("basque", stems=4, source=FIX / "trask.tsv")
    assert len(built.stems) == 4 and "seeded sample" in built.describe()
    assert all(not s.form.startswith("-") for s in built.stems)
    assert build("basque", stems=4, source=FIX / "trask.tsv").stems == built.stems
    assert build("basque", stems=4, seed=1, source=FIX / "trask.tsv").stems != built.stems
    # [h]agin twice (two meanings): one stem
    everything = build("basque", stems=100, source=FIX / "trask.tsv")
    assert len({s.ipa for s in everything.stems}) == len(everything.stems)
    hebrew = build("hebrew", stems=100, min_units=3, source=FIX / "uga-heb.cog")
    assert {s.form for s in hebrew.stems} >= {"msgr", "mqbylt", "whkrtyw"}


def test_bad_sources_name_the_file_and_line(tmp_path, capsys):
    bad = tmp_path / "verses.tsv"
    bad.write_text("1\t1\tIn principio\n1\tcreavit\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"verses.tsv, line 2: expected chapter<TAB>verse<TAB>text"):
        read_verses(bad)
    freq = tmp_path / "freq.tsv"
    freq.write_text("bir\t3\niki\tmany\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"freq.tsv, line 2: expected word<TAB>count"):
        read_frequencies(freq)
    with pytest.raises(DecipherError, match="unknown candidate language 'klingon'"):
        build("klingon")
    code = cli_main(["dataset", "candidates", "--language", "latin", "--source", str(bad), "--out",
                     str(tmp_path / "x.csv")])
    assert code == 2 and "line 2" in capsys.readouterr().err
    assert not (tmp_path / "x.csv").exists()


@pytest.mark.corpus
@pytest.mark.parametrize("language", ["spanish", "hungarian"])
def test_real_genesis_gives_600_stems(language):
    source = shared_path(LANGUAGES[language].path)
    built = build(language, stems=600, source=source)
    assert len(built.stems) == 600 and not built.failed
    top = {"spanish": "tierr", "hungarian": "mond"}[language]
    assert built.stems[0].form == top
