"""Issue 51, item 2: the hint that refuses a transliteration in a known IPA column ("… or read the
forms with --system semitic-translit") works where it is given: `decipher project import --known`,
`decipher run --known` (and --seeds) and `decipher sweep --known` take `--system`, which reads the
ipa column as that transliteration; a pin, which no option transcribes, gets no such hint."""

from __future__ import annotations

import pytest

from engine.cli.main import build_parser, main as cli_main
from engine.cli.project import main as project_main
from engine.config import Config
from engine.errors import InputError
from engine.io import tables
from engine.project import Project
from engine.runs.inputs import inputs_from_files

KNOWN = "form,ipa,gloss\nḥṭb,ḥṭb,wood\nšlm,šlm,peace\n"


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_the_refusal_gives_the_hint_and_the_hint_works_in_project_import(tmp_path, capsys):
    known = _write(tmp_path / "known.csv", KNOWN)
    project = tmp_path / "p.decipher"
    assert project_main(["new", str(project)]) == 0
    assert project_main(["import", str(project), "--known", str(known)]) == 2
    assert "read the forms with --system semitic-translit" in capsys.readouterr().err
    assert project_main(["import", str(project), "--known", str(known), "--system", "semitic-translit"]) == 0
    with Project.open(project) as p:
        (lang,) = p.languages()
        assert [(s.form, s.ipa, s.gloss) for s in p.stems(lang.id)] == [("ḥṭb", "ħtˤb", "wood"), ("šlm", "ʃlm", "peace")]
        assert lang.format == "known:semitic-translit"


def test_a_cell_the_system_cannot_read_is_one_line_naming_file_and_line(tmp_path):
    known = _write(tmp_path / "known.csv", "form,ipa\nab,ab\nq,q§\n")
    with pytest.raises(InputError) as e:
        tables.read_known(known, system="semitic-translit")
    assert e.value.line == 3 and "§" in str(e.value) and "\n" not in str(e.value)


def test_decipher_run_takes_system_for_its_known_file(tmp_path):
    known = _write(tmp_path / "known.csv", KNOWN)
    lost = _write(tmp_path / "lost.csv", "id,text\nA,abc\n")
    args = build_parser().parse_args(["run", "--lost", str(lost), "--known", str(known), "--system",
                                      "semitic-translit", "--out", str(tmp_path / "r")])
    assert args.system == "semitic-translit"
    inputs = inputs_from_files(lost, known, Config(steps=1), known_system=args.system)
    assert [s.ipa for s in inputs.vocabulary.stems] == ["ħtˤb", "ʃlm"]
    with pytest.raises(InputError, match="--system semitic-translit"):
        inputs_from_files(lost, known, Config(steps=1))
    assert build_parser().parse_args(["sweep", "--lost", "l.csv", "--known", "k.csv", "--out", "o",
                                      "--system", "semitic-translit"]).system == "semitic-translit"


def test_system_is_refused_where_it_reads_nothing(tmp_path, capsys):
    project = tmp_path / "p.decipher"
    assert project_main(["new", str(project)]) == 0
    lost = _write(tmp_path / "lost.csv", "id,text\nA,abc\n")
    assert project_main(["import", str(project), "--lost", str(lost), "--system", "semitic-translit"]) == 2
    assert "--system says how a --known" in capsys.readouterr().err
    assert cli_main(["run", "--project", str(project), "--system", "semitic-translit"]) == 2
    assert "--system reads a --known file" in capsys.readouterr().err


def test_a_pin_in_transliteration_gets_no_hint_of_an_option_it_has_not(tmp_path):
    prior = _write(tmp_path / "prior.csv", "lost,known_ipa\na,ḥ\n")
    with pytest.raises(InputError) as e:
        tables.read_prior(prior)
    assert "the IPA most likely is ħ" in str(e.value) and "--system" not in str(e.value)
