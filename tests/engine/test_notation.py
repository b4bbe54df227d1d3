"""Issue 29 items 2 and 3: the known side's IPA is guarded against transliteration letters and
marks the feature table does not know; the lost side's Leiden markup is kept as markup."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from engine.errors import PhonologyError
from engine.io import tables
from engine.phonology import TRANSLITERATION, NotIPAError, ipa_units, suggest_ipa, unit_features
from engine.project.cli import main as project_main
from engine.transcription import BUILTIN_TABLES, load_rule_table, transcribe

ROOT = Path(__file__).resolve().parents[2]


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


# ---- item 2: notation guarded ------------------------------------------------------------------


def test_transliterated_known_list_is_refused_with_the_likely_ipa(tmp_path):
    src = write(tmp_path / "k.csv", "form,ipa\nhet,ḥṭ\n")
    with pytest.raises(PhonologyError) as e:
        tables.read_known(src)
    msg = str(e.value)
    assert msg.startswith(f"{src}, line 2: ")
    assert "'ḥ' -> ħ" in msg and "'ṭ' -> tˤ" in msg and "ħ tˤ" in msg
    assert "\n" not in msg


def test_the_same_file_through_the_cli_is_one_line_and_status_2(tmp_path, capsys):
    src = write(tmp_path / "k.csv", "form,ipa\nhet,ḥṭ\n")
    project = tmp_path / "p.decipher"
    assert project_main(["new", str(project)]) == 0
    capsys.readouterr()
    assert project_main(["import", str(project), "--known", str(src)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "line 2" in err and "ħ tˤ" in err
    assert project_main(["info", str(project)]) == 0
    assert "het" not in capsys.readouterr().out           # nothing half-written


@pytest.mark.parametrize("letter", ["ḥ", "ṭ", "ṯ", "š", "ś", "ʾ", "ʿ", "ḏ", "ẓ", "ġ", "ḫ", "ṣ", "Ḥ"])
def test_each_transliteration_letter_names_its_ipa(letter):
    with pytest.raises(NotIPAError) as e:
        ipa_units(f"a{letter}a", source="form 'x'")
    assert f"{letter!r} -> {TRANSLITERATION[letter]}" in e.value.problem
    # NFD input (h + dot below) is caught the same way
    with pytest.raises(NotIPAError):
        ipa_units(unicodedata.normalize("NFD", f"a{letter}a"))


def test_tone_marks_that_ipapy_knows_are_not_taken_for_transliteration():
    # š and ś are s + a tone mark to ipapy; true IPA tones on vowels stay valid
    assert ipa_units("á") == ("á",) and ipa_units("ǎ") == ("ǎ",)
    with pytest.raises(NotIPAError, match="'š' -> ʃ"):
        ipa_units("šlm")


def test_every_file_symbol_is_listed_and_the_later_ones_get_a_hint(tmp_path):
    src = write(tmp_path / "k.csv", "form,ipa\nhet,ḥṭ\nok,ab\nshlm,šlm\n")
    with pytest.raises(PhonologyError) as e:
        tables.read_known(src)
    msg = e.value.problem
    assert "1 more unknown symbol: 'š' (U+0161, most likely IPA ʃ) in 'šlm' (line 4)" in msg


def test_a_combining_mark_the_feature_table_lacks_is_refused_not_dropped():
    # x + dot below: not a transliteration letter of the table, and ipapy has no dot below
    with pytest.raises(NotIPAError) as e:
        ipa_units("x\u0323a", source="form 'q'")
    assert "U+0323" in e.value.problem and "would drop it" in e.value.problem
    # a diacritic the table knows is kept in its unit (not dropped)
    assert ipa_units("tʰa") == ("tʰ", "a")
    assert ipa_units("ã") == ("ã",)


def test_suggest_ipa_spells_units():
    assert suggest_ipa("ḥṭ") == "ħ tˤ"
    assert suggest_ipa("šlm") == "ʃ l m"


def test_semitic_translit_table_reads_the_scholarly_letters():
    assert "semitic-translit" in BUILTIN_TABLES
    assert transcribe("ḥṭ", "semitic-translit") == "ħtˤ"
    assert ipa_units(transcribe("ḥṭ", "semitic-translit")) == ("ħ", "tˤ")
    assert transcribe("ṯlṯ", "semitic-translit") == "θlθ"
    assert transcribe("Šlm", "semitic-translit") == "ʃlm"
    assert transcribe("ʼbn", "semitic-translit") == "ʔbn"           # the apostrophe typed for alef
    assert transcribe("malkā", "semitic-translit") == "malkaː"


def test_semitic_translit_agrees_with_the_hints():
    table = load_rule_table("semitic-translit")
    rules = {r.grapheme: r.ipa for r in table.rules}
    for letter, ipa in TRANSLITERATION.items():
        if letter == letter.lower():
            assert rules.get(letter) == ipa, letter
            # the hint is IPA the feature table knows, with its features
            for unit in ipa_units(ipa):
                assert unit_features(unit).ptype == "consonant"


def test_bundled_sample_and_test_data_known_lists_still_import():
    lists = [ROOT / "resources" / "sample" / "known.csv", ROOT / "resources" / "sample-gothic" / "known.csv"]
    lists += sorted((ROOT / "tests" / "data").rglob("known*.csv"))
    read = 0
    for path in lists:
        if path.name.startswith("bad"):
            continue
        assert tables.read_known(path), path
        read += 1
    assert read >= 2
