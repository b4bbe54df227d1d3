"""Issue 51, item 1: a letter written with a dot below is never read silently. It may be a letter
of its own (ṣ ṭ ḥ of a Semitic transliteration) or Leiden's mark of an uncertain reading: a lost
text that holds one is refused (one line, exit 2, naming the file, the first line and every such
letter) until the user says which, by ``--dotted letter|uncertain`` on every command that reads a
lost text, or ``dotted=`` in Python."""

from __future__ import annotations

import pytest

from engine.cli.main import build_parser, main as cli_main
from engine.cli.project import main as project_main
from engine.errors import InputError
from engine.io import tables
from engine.io.text import DottedLettersUnchosen, dotted_letters, read_leiden
from engine.project import Project
from engine.runs.inputs import read_run_files

LOST = "id,text\nA,bnšm\nB,šlmḥṭṣdq\nC,ḥṭb\n"
KNOWN = "form,ipa\nabc,abc\n"


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_dotted_letters_are_named_in_order():
    assert dotted_letters("šlmḥṭṣdq ạ") == ["ḥ", "ṭ", "ṣ", "ạ"]
    assert dotted_letters("bnšm") == []


def test_a_lost_file_with_dotted_letters_is_refused_naming_them_all_and_the_first_line(tmp_path):
    src = _write(tmp_path / "lost.csv", LOST)
    with pytest.raises(DottedLettersUnchosen) as e:
        tables.read_lost(src)
    assert e.value.letters == ("ḥ", "ṭ", "ṣ") and e.value.line == 3
    text = str(e.value)
    assert text.startswith(f"{src}, line 3: ḥ ṭ ṣ are written with a dot below (on 2 lines")
    assert "--dotted letter" in text and "--dotted uncertain reads them as h t s" in text
    assert "\n" not in text
    with pytest.raises(DottedLettersUnchosen):
        read_leiden("ṣdq")


@pytest.mark.parametrize("dotted,text", [("letter", "šlmḥṭṣdq"), ("uncertain", "šlmhtsdq")])
def test_either_choice_reads_the_file(tmp_path, dotted, text):
    src = _write(tmp_path / "lost.csv", LOST)
    assert tables.read_lost(src, dotted=dotted)[1].text == text
    plain = _write(tmp_path / "lost.txt", "bnšm\nšlmḥṭṣdq\n")
    assert tables.read_plain_text(plain, dotted=dotted)[1].text == text
    with pytest.raises(DottedLettersUnchosen):
        tables.read_plain_text(plain)


def test_a_file_without_dotted_letters_needs_no_choice(tmp_path):
    src = _write(tmp_path / "lost.csv", "id,text\nA,bnšm\n")
    assert tables.read_lost(src)[0].text == "bnšm"


def test_an_earlier_error_or_dotted_letter_comes_first(tmp_path):
    src = _write(tmp_path / "lost.csv", "id,text\nA,ṣdq\nB,ab{c\n")
    with pytest.raises(DottedLettersUnchosen) as e:
        tables.read_lost(src)
    assert e.value.line == 2


def test_linear_b_notation_reads_a_dot_as_uncertain_without_asking(tmp_path):
    src = _write(tmp_path / "lost.csv", "id,text\nA,a-ẹ-ri\n")
    ins = tables.read_lost(src, notation="linear-b")
    assert ins[0].text == "\U00010000\U00010001\U0001002a"


def test_decipher_run_refuses_and_names_the_letters(tmp_path, capsys):
    lost, known = _write(tmp_path / "lost.csv", LOST), _write(tmp_path / "known.csv", KNOWN)
    code = cli_main(["run", "--lost", str(lost), "--known", str(known), "--out", str(tmp_path / "r"), "--steps", "1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].startswith(f"error: {lost}, line 3: ḥ ṭ ṣ are written with a dot below")
    assert not (tmp_path / "r").exists()


def test_every_command_reading_a_lost_file_takes_the_choice(tmp_path):
    parser = build_parser()
    for argv in (["run", "--lost", "l.csv", "--dotted", "letter"],
                 ["sweep", "--lost", "l.csv", "--out", "o", "--dotted", "uncertain"],
                 ["closeness", "--lost", "l.csv", "--known", "k.csv", "--out", "o", "--dotted", "letter"],
                 ["project", "import", "p.decipher", "--lost", "l.csv", "--dotted", "letter"]):
        assert parser.parse_args(argv).dotted in ("letter", "uncertain"), argv
    lost = _write(tmp_path / "lost.csv", LOST)
    assert read_run_files(lost, dotted="letter").corpus.inscriptions[1].text == "šlmḥṭṣdq"


def test_project_import_refuses_writes_nothing_then_takes_either_choice(tmp_path, capsys):
    src = _write(tmp_path / "lost.csv", LOST)
    project = tmp_path / "p.decipher"
    assert project_main(["new", str(project)]) == 0
    before = project.read_bytes()
    capsys.readouterr()
    assert project_main(["import", str(project), "--lost", str(src)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "line 3: ḥ ṭ ṣ are written with a dot below" in err[0] and "--dotted letter" in err[0]
    assert project.read_bytes() == before
    assert project_main(["import", str(project), "--lost", str(src), "--name", "a", "--dotted", "letter"]) == 0
    assert project_main(["import", str(project), "--lost", str(src), "--name", "b", "--dotted", "uncertain"]) == 0
    out = capsys.readouterr().out
    assert "5 dotted letters read as uncertain (the dot removed)" in out
    with Project.open(project) as p:
        a, b = p.corpora()
        assert p.inscriptions(a.id)[1].text == "šlmḥṭṣdq" and p.inscriptions(b.id)[1].text == "šlmhtsdq"


def test_dotted_goes_with_lost_texts_only(tmp_path, capsys):
    project = tmp_path / "p.decipher"
    assert project_main(["new", str(project)]) == 0
    known = _write(tmp_path / "known.csv", KNOWN)
    assert project_main(["import", str(project), "--known", str(known), "--dotted", "letter"]) == 2
    assert "--dotted says how a --lost or --text file" in capsys.readouterr().err


def test_the_error_is_an_input_error():
    assert issubclass(DottedLettersUnchosen, InputError)
