"""Issue 27 item 3 (engine side): display tables for known languages, final forms of whole forms,
the presets we ship, the match report with shown and coded columns, the sample's display tables."""

from __future__ import annotations

import csv
import unicodedata

import pytest

from engine.corpus import Inscription, Stem
from engine.errors import InputError
from engine.io import display
from engine.project import fieldexport
from engine.project.exporting import export_matches
from engine.project.importing import import_matches, read_match_report
from engine.project.store import Project


def test_hebrew_script_writes_final_forms_at_the_end_of_a_whole_form():
    t = display.preset("hebrew-script")
    assert t.show_form("alpym") == "אלפים"
    assert t.show_form("mlk") == "מלך" and t.show_form("b<lk") == "בעלך"
    assert t.show_form("mlkym") == "מלכים", "no final form inside the word"
    assert t.show_text("alpym") == "אלפימ", "a span may end inside a word: no final form"


def test_hebrew_transliteration_is_the_one_table_of_the_field_exports():
    assert fieldexport.HEBREW_TRANSLITERATION is display.HEBREW_TRANSLITERATION
    assert fieldexport.KNOWN_TABLES["hebrew-transliteration"] == display.preset("hebrew-transliteration")
    assert display.preset("hebrew-transliteration").show_form("b<lk") == "bʿlk"
    assert display.preset("hebrew-transliteration").show_form("$l$") == "šlš"


def test_greek_and_linear_b_presets():
    greek = display.preset("greek-script")
    assert greek.show_form("logos") == "λογος"[:-1] + "ς"
    assert greek.show_form("philos") == "φιλος"[:-1] + "ς", "digraphs are read first"
    linb = display.preset("linear-b")
    assert linb.show_form("kono") == "\U00010012\U0001001C"          # KO NO
    assert linb.show_form("a") == "\U00010000" and linb.letters["da"] == "\U00010005"
    assert len(linb.letters) >= 55
    for name, (_, table) in display.PRESETS.items():
        assert display.DisplayTable.from_json(table.to_json()) == table, name
        for text in [*table.letters, *table.letters.values(), *table.finals.values()]:
            assert unicodedata.is_normalized("NFC", text), (name, text)


def test_known_table_for_reads_the_setting_and_falls_back_to_the_data(tmp_path):
    with Project.create(tmp_path / "p.decipher") as p:
        lid = p.add_language("heb", [Stem("alpym", "ʔlpjm", "")])
        assert display.known_table_for(p, lid) is display.IDENTITY
        fieldexport.set_known_table(p, lid, "hebrew-script")
        assert display.known_table_for(p, lid).show_form("alpym") == "אלפים"
        p.set_setting(display.known_setting_key(lid), {"letters": {"a": ""}})
        assert display.known_table_for(p, lid) is display.IDENTITY


def test_match_report_shows_both_sides_and_keeps_the_codes(tmp_path):
    with Project.create(tmp_path / "p.decipher") as p:
        cid = p.add_corpus("uga", [Inscription("1", "$pt")])
        lid = p.add_language("heb", [Stem("$pT", "ʃpt", "judge"), Stem("alpym", "ʔlpjm", "")])
        src = tmp_path / "in.csv"
        with open(src, "w", encoding="utf-8", newline="") as f:
            w = csv.writer(f)
            w.writerow(["inscription_id", "span_start", "span_end", "lost_span", "rank", "stem", "stem_ipa", "score"])
            w.writerow(["1", 0, 3, "$pt", 1, "$pT", "ʃpt", -1.0])
            w.writerow(["1", 0, 3, "$pt", 2, "alpym", "ʔlpjm", -2.0])
        import_matches(p, src, corpus=cid, language=lid)
        fieldexport.set_corpus_table(p, cid, "ugaritic-transliteration")
        fieldexport.set_known_table(p, lid, "hebrew-script")
        out = tmp_path / "report.csv"
        export_matches(p, out, bom=True)
    assert out.read_bytes().startswith(b"\xef\xbb\xbf")
    with open(out, encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(r["lost_span"], r["lost_span_code"]) for r in rows] == [("špt", "$pt")] * 2
    assert [(r["stem"], r["stem_code"]) for r in rows] == [("שׁפט", "$pT"), ("אלפים", "alpym")]
    matches, _, _ = read_match_report(out)
    assert matches[0].span == "$pt" and [a.form for a in matches[0].alternatives] == ["$pT", "alpym"]


def test_sample_opens_in_the_scholarly_transliteration(tmp_path):
    from engine.datasets.sample import create_sample_project

    with create_sample_project(tmp_path / "s.decipher") as p:
        cid, lid = p.corpora()[0].id, p.languages()[0].id
        assert display.table_for(p, cid).name == "ugaritic-transliteration"
        known = display.known_table_for(p, lid)
        assert known.name == "hebrew-transliteration" and known.show_form("$l$") == "šlš"


def test_a_bad_display_section_in_a_sample_manifest_names_the_file(tmp_path):
    import shutil

    from engine.datasets.sample import SAMPLE_DIR, create_project_from_folder

    folder = tmp_path / "s"
    shutil.copytree(SAMPLE_DIR, folder)
    toml = folder / "sample.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('language = "hebrew-transliteration"',
                                                             'language = "klingon"'), encoding="utf-8")
    with pytest.raises(InputError, match="sample.toml.*klingon"):
        create_project_from_folder(tmp_path / "x.decipher", folder, source="t", default_name="x")
    assert not (tmp_path / "x.decipher").exists()
