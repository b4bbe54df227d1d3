"""Issue 25 item 4: the conventional Linear B transliteration (a-e-ri-qo-ta) read into the Unicode
signs and written back (engine/io/linear_b.py), and the display preset that shows a corpus of
signs in it."""

from __future__ import annotations

import unicodedata

import pytest

from engine.corpus import split_units
from engine.errors import InputError
from engine.io import linear_b as lb
from engine.io.display import PRESETS, DisplayTable, preset


def test_the_table_is_the_unicode_names():
    assert len(lb.VALUED) == 74 and len(lb.UNVALUED) == 14
    for s in lb.SIGNS:
        name = unicodedata.name(s.sign)
        assert name.startswith("LINEAR B SYLLABLE " if s.value else "LINEAR B SYMBOL ")
        assert s.bennett in name and name.endswith(s.value.upper() if s.value else s.bennett)
    assert lb.TO_SIGN["a"] == "\U00010000" and lb.BY_SIGN["\U00010000"].bennett == "B008"
    assert lb.TO_SIGN["ra3"] == "\U00010049" and lb.TO_SIGN["pu2"] == "\U00010046" and lb.TO_SIGN["a2"] == "\U00010040"
    assert [s.bennett for s in lb.UNVALUED][:3] == ["B018", "B019", "B022"]
    assert lb.TO_TRANSLITERATION["\U00010050"] == "*18"


@pytest.mark.parametrize("sign", [s.sign for s in lb.SIGNS])
def test_every_sign_round_trips(sign):
    text = lb.to_transliteration(sign)
    assert lb.to_signs(text) == sign
    assert lb.to_signs(text.upper()) == sign             # case-insensitive


@pytest.mark.parametrize("translit,signs", [
    ("a-e-ri-qo-ta", "\U00010000\U00010001\U0001002A\U00010026\U00010032"),
    ("ko-no-so", "\U00010012\U0001001C\U00010030"),
    ("pa-i-to", "\U0001001E\U00010002\U00010035"),
    ("a2-te-ro", "\U00010040\U00010033\U0001002B"),
    ("pu2-ke-qi-ri", "\U00010046\U00010010\U00010025\U0001002A"),
    ("ra3-pte-re", "\U00010049\U00010047\U00010029"),
    ("*56-ra-ku-ja", "\U00010056\U00010028\U00010013\U0001000A"),
])
def test_real_words_round_trip(translit, signs):
    assert lb.to_signs(translit) == signs
    assert lb.to_transliteration(signs) == translit


def test_words_are_separated_by_spaces_or_the_divider():
    signs = lb.to_signs("ko-no-so, pa-i-to|a-mi-ni-so  \U00010100 ku-do-ni-ja")
    assert signs.count(" ") == 3 and lb.to_transliteration(signs) == "ko-no-so pa-i-to a-mi-ni-so ku-do-ni-ja"
    assert lb.to_signs("*018") == lb.TO_SIGN["*18"]


def test_leiden_marks_stay_on_the_signs():
    assert lb.to_signs("a-[e]-ri") == "\U00010000[\U00010001]\U0001002A"
    assert lb.to_signs("a-[...] ko") == "\U00010000[...] \U00010012"
    assert lb.to_signs("ạ-e") == "\U00010000\u0323\U00010001"


@pytest.mark.parametrize("text,problem", [
    ("xa-ro", "unknown Linear B syllable 'xa' in 'xa-ro'"),
    ("a2-ra9", "unknown Linear B syllable 'ra9'"),
    ("ako", "unknown Linear B syllable 'ako'"),         # a missing hyphen is not guessed
    ("a--e", "a hyphen in 'a--e' does not stand between two signs"),
    ("-a", "does not stand between two signs"), ("ko-", "does not stand between two signs"),
    ("ko-no-so;", "';' (U+003B)"),
    ("*99", "unknown Linear B syllable '*99'"),
])
def test_bad_transliteration_is_one_line_naming_it(text, problem):
    with pytest.raises(InputError) as e:
        lb.to_signs(text, path="lost.csv", line=7)
    message = str(e.value)
    assert problem in message and message.startswith("lost.csv, line 7:") and "\n" not in message


def test_writing_back_refuses_what_is_not_a_sign():
    with pytest.raises(InputError, match=r"'a' \(U\+0061\) in 'a' is not a sign"):
        lb.to_transliteration("a")


def test_display_preset_shows_the_transliteration_with_hyphens():
    label, table = PRESETS["linear-b-transliteration"]
    assert label == "Linear B (transliteration)"
    units = split_units(lb.to_signs("a-e-ri-qo-ta po-me"))
    assert table.show_text(units) == "a-e-ri-qo-ta po-me"     # a corpus row
    assert table.show_text("".join(units[:3])) == "a-e-ri"    # a span
    assert table.show_form(lb.to_signs("ko-no-so")) == "ko-no-so"
    assert table.show_at(units, 0) == "a" and table.show(lb.TO_SIGN["*18"]) == "*18"   # one sign, no hyphen
    assert DisplayTable.from_json(table.to_json()) == table and not table.is_identity
    assert preset("linear-b-transliteration").joiner == "-"


def test_a_joiner_is_checked_and_the_other_tables_have_none():
    with pytest.raises(InputError, match="joiner"):
        DisplayTable.from_json({"letters": {}, "joiner": "x" * 20})
    assert all(not t.joiner for name, (_, t) in PRESETS.items() if name != "linear-b-transliteration")
    assert preset("hebrew-transliteration").show_text("$lm") == "šlm"


# ---- typing a Linear B corpus in transliteration: --lost-notation linear-b ----------------------

LOST_TRANSLIT = "id,text\nKN1,a-e-ri-qo-ta ko-no-so\nKN2,\"pa-i-to, a2-[ra3]\"\n"


def _write(path, text):
    path.write_bytes(text.encode("utf-8"))
    return path


def test_read_lost_in_transliteration_gives_the_signs_and_keeps_the_cell(tmp_path):
    from engine.io.tables import read_lost

    src = _write(tmp_path / "lost.csv", LOST_TRANSLIT)
    first, second = read_lost(src, notation="linear-b")
    assert first.text == lb.to_signs("a-e-ri-qo-ta ko-no-so") and first.raw == "a-e-ri-qo-ta ko-no-so"
    assert second.text == lb.to_signs("pa-i-to a2-ra3")          # the restored sign is read, the bracket is markup
    assert len(split_units(first.text)) == 9                      # 8 signs and a divider: code points, not UTF-16
    # without the option the same file is Latin letters: nothing is converted behind the user's back
    assert read_lost(src)[0].text == "a-e-ri-qo-ta ko-no-so"


def test_read_lost_names_the_line_of_an_unknown_syllable(tmp_path):
    from engine.io.tables import read_lost

    src = _write(tmp_path / "lost.csv", "id,text\nA,a-e\nB,ko-xo-so\n")
    with pytest.raises(InputError) as e:
        read_lost(src, notation="linear-b")
    assert str(e.value).startswith(f"{src}, line 3: unknown Linear B syllable 'xo' in 'ko-xo-so'")
    with pytest.raises(InputError, match="unknown lost notation 'cypriot'"):
        read_lost(src, notation="cypriot")


def test_project_import_with_lost_notation(tmp_path, capsys):
    from engine.cli.project import main as project_main
    from engine.project.store import Project

    src = _write(tmp_path / "lost.csv", LOST_TRANSLIT)
    proj = tmp_path / "p.decipher"
    assert project_main(["new", str(proj)]) == 0
    assert project_main(["import", str(proj), "--lost", str(src), "--lost-notation", "linear-b"]) == 0
    with Project.open(proj) as p:
        (corpus,) = p.corpora()
        texts = [ins.text for ins in p.inscriptions(corpus.id)]
    assert texts[0] == lb.to_signs("a-e-ri-qo-ta ko-no-so")
    bad = _write(tmp_path / "bad.csv", "id,text\nX,xa-ro\n")
    assert project_main(["import", str(proj), "--lost", str(bad), "--lost-notation", "linear-b"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].endswith(f"{bad}, line 2: unknown Linear B syllable 'xa' in 'xa-ro' (the conventional "
                            "transliteration joins signs with hyphens: a, e, da, qo, a2, ra3, *18; 74 values "
                            "and 14 numbered signs are known)")
    with Project.open(proj) as p:
        assert len(p.corpora()) == 1                                  # nothing half-imported
    assert project_main(["import", str(proj), "--known", str(src), "--lost-notation", "linear-b"]) == 2
    assert "--lost-notation reads a --lost file" in capsys.readouterr().err


def test_run_reads_lost_in_transliteration_and_refuses_it_with_a_project(tmp_path, capsys):
    from engine.cli.main import main
    from engine.runs.inputs import read_run_files

    src = _write(tmp_path / "lost.csv", LOST_TRANSLIT)
    files = read_run_files(src, lost_notation="linear-b")
    assert files.corpus.inscriptions[0].text == lb.to_signs("a-e-ri-qo-ta ko-no-so")
    assert main(["run", "--project", str(tmp_path / "p.decipher"), "--lost-notation", "linear-b"]) == 2
    assert "--lost-notation reads a --lost file" in capsys.readouterr().err


def test_run_with_seeds_reads_lost_in_transliteration_too(tmp_path, monkeypatch):
    """`decipher run --seeds` goes through engine/cli/sweep.py: the option must reach it as well."""
    from engine.cli.main import main
    from engine.runs import seeds

    src = _write(tmp_path / "lost.csv", LOST_TRANSLIT)
    known = _write(tmp_path / "known.csv", "form,ipa\nαερικοτας,aerikʷotas\n")
    seen = {}

    class Stop(Exception):
        pass

    def fake_run_seeds(inputs, *args, **kwargs):
        seen["texts"] = [ins.text for ins in inputs.corpus.inscriptions]
        raise Stop

    monkeypatch.setattr(seeds, "run_seeds", fake_run_seeds)
    with pytest.raises(Stop):
        main(["run", "--lost", str(src), "--known", str(known), "--lost-notation", "linear-b", "--seeds", "0", "1",
              "--out", str(tmp_path / "out")])
    assert seen["texts"][0] == lb.to_signs("a-e-ri-qo-ta ko-no-so")
