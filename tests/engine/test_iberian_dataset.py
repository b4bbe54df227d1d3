"""The Iberian lost text builder (engine/datasets/iberian.py) on a few real rows."""

import csv
import json
from pathlib import Path

import pytest

from engine.datasets import iberian
from engine.errors import InputError
from engine.io.tables import read_lost, read_prior
from engine.model.phonology import ipa_units

DATA = Path(__file__).resolve().parents[1] / "data" / "iberian" / "iberian.csv"
PRIOR = Path(__file__).resolve().parents[2] / "resources" / "priors" / "iberian-partial.csv"


def test_fragments_split_at_lost_signs_and_keep_word_dividers():
    assert iberian.fragments("unis-ltekiar:kinsi") == ["unis", "ltekiar kinsi"]
    assert iberian.fragments("---takokoba---") == ["takokoba"]
    assert iberian.fragments("kaileśketin+ XIII") == ["kaileśketin"]   # numerals end the text
    assert iberian.fragments("++++") == []
    assert iberian.fragments("kátón") == ["kátón"]                       # accents are letters
    assert iberian.fragments("a : b  c") == ["a b c"]                    # one space per divider


def test_list_literal_is_parsed_not_evaluated():
    assert iberian.parse_list_literal("['a', \"b c\"]") == ["a", "b c"]
    assert iberian.parse_list_literal("[]") == []
    for bad in ("__import__('os').system('true')", "['a' + 'b']", "['a',]", "['a\\'b']", "['a'"):
        with pytest.raises(ValueError):
            iberian.parse_list_literal(bad)


def test_cli_builds_a_lost_csv_the_importer_reads(tmp_path):
    assert iberian.main(["--source", str(DATA), "--out", str(tmp_path)]) == 0
    corpus = read_lost(tmp_path / "lost.csv")
    texts = {i.id: i.text for i in corpus}
    assert texts["V.06.027:1.1"] == "unis" and texts["V.06.027:1.2"] == "ltekiar kinsi"
    assert texts["TE.17.02:1"] == "ataleukebate" and texts["TE.17.02:2"] == "kosḿbake"
    assert "TE.17.02:3" not in texts                       # a line of lost signs only
    assert texts["B.42.01:1.1"] == "ku" and texts["B.42.01:1.2"] == "s"
    with open(tmp_path / "lost.csv", encoding="utf-8", newline="") as f:
        rows = {r["id"]: r for r in csv.DictReader(f)}
    assert rows["B.44.22:1"]["raw"] == "kaileśketin+ XIII" and rows["B.44.22:1"]["reference"] == "B.44.22"
    stats = json.loads((tmp_path / "stats.json").read_text(encoding="utf-8"))
    assert stats["inscriptions"] == 7 and stats["chunks"] == len(texts) == 10
    assert stats["empty_lines"] == 1 and stats["breaks"] == 2


def test_a_bad_cell_names_file_line_and_inscription(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("REF. HESPERIA,cleaned\nA.1,['ok']\nA.2,not a list\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.csv, line 3: the 'cleaned' cell of A\.2"):
        iberian.build(bad)
    assert iberian.main(["--source", str(bad), "--out", str(tmp_path / "out")]) == 2
    assert "line 3" in capsys.readouterr().err
    assert not (tmp_path / "out" / "lost.csv").exists()


def test_partial_prior_pins_iberian_letters_to_valid_ipa():
    pins = read_prior(PRIOR)
    assert [p.lost for p in pins] == list("abklmnrst")
    for p in pins:
        assert p.lost in iberian.LETTERS
        assert tuple(ipa_units(p.known_ipa)) == (p.known_ipa,)
