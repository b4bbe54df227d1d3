"""Issue 28 item 8: invisible characters, a second BOM, bad --name and columns, deep TOML: one line each."""

import pytest

from engine.config import Config
from engine.errors import InputError
from engine.io.cog import read_cog
from engine.io.tables import read_known, read_lost


@pytest.mark.parametrize("char, words", [("\u200b", "invisible"), ("\u202e", "bidirectional"),
                                         ("\ufeff", "byte-order mark"), ("\u2066", "bidirectional")])
def test_invisible_characters_are_refused_naming_line_and_column(tmp_path, char, words):
    path = tmp_path / "lost.csv"
    path.write_text(f"id,text\nA,abc\nB,ab{char}c\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_lost(path)
    line = str(e.value)
    assert str(path) in line and "line 3" in line and "column 5" in line and words in line
    assert f"U+{ord(char):04X}" in line


def test_a_second_bom_and_header_mid_file_is_refused(tmp_path):
    path = tmp_path / "known.csv"
    path.write_bytes(b"\xef\xbb\xbfform,ipa\nba,ba\n\xef\xbb\xbfform,ipa\nka,ka\n")
    with pytest.raises(InputError, match="line 3.*byte-order mark inside the text"):
        read_known(path)
    path.write_bytes(b"\xef\xbb\xbfform,ipa\nba,ba\n")        # a BOM at the start is fine
    assert [s.ipa for s in read_known(path)] == ["ba"]


def test_dataset_builders_may_drop_invisible_characters(tmp_path):
    from engine.io.text import read_text

    path = tmp_path / "bible.txt"
    path.write_text("be\u00adginning\n", encoding="utf-8")
    assert read_text(path, invisible="drop") == "beginning\n"
    with pytest.raises(InputError, match="U\\+00AD"):
        read_text(path)


@pytest.mark.parametrize("lost, known, needle", [(0, -5, "--known-column must be a column number"),
                                                 (-1, 1, "--lost-column must be"), (1, 1, "both 1")])
def test_cog_columns_are_checked_before_reading(tmp_path, lost, known, needle):
    path = tmp_path / "x.cog"
    path.write_text("uga\theb\nab\tab\n", encoding="utf-8")
    with pytest.raises(InputError, match=needle):
        read_cog(path, lost_column=lost, known_column=known)


@pytest.mark.parametrize("name, needle", [("evil\x1b[2Jname", r"control character U\+001B"),
                                          ("a\u202eb", "bidirectional")])
def test_a_name_with_control_or_invisible_characters_is_refused(tmp_path, name, needle):
    from engine.project.importing import import_lost
    from engine.project.store import Project

    lost = tmp_path / "lost.csv"
    lost.write_text("id,text\nA,abc\n", encoding="utf-8")
    with Project.create(tmp_path / "p.decipher") as project:
        with pytest.raises(InputError, match=needle) as e:
            import_lost(project, lost, name=name)
        assert "\x1b" not in str(e.value) and "\u202e" not in str(e.value)
        assert project.corpora() == []


def test_deeply_nested_toml_is_one_line(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="too deeply|not valid TOML") as e:
        Config.from_toml(path)
    assert str(path) in str(e.value)
