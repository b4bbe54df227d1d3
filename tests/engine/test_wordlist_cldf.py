"""Known-language word lists (plain text, CSV, TSV) and CLDF Wordlists read as stems."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engine.corpus import Stem
from engine.errors import InputError, PhonologyError
from engine.io.cldf import read_cldf_wordlist, segments_to_ipa
from engine.io.wordlist import SkippedLine, WordlistResult, read_wordlist
from engine.model.phonology import ipa_units
from engine.io.transcription import TranscriptionError

DATA = Path(__file__).resolve().parents[1] / "data" / "wordlists"
CLDF = DATA / "cldf"


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# --- word lists -------------------------------------------------------------------------------------


def test_plain_text_wordlist():
    stems = read_wordlist(DATA / "latin_words.txt", "latin")
    assert isinstance(stems, list) and isinstance(stems, WordlistResult)
    assert [s.form for s in stems] == ["quercus", "aqua", "Cicero", "caelum", "lingua", "uinum"]  # aqua once
    assert stems[0] == Stem("quercus", "kʷerkus", "", "latin_words.txt")
    assert stems.skipped == []
    for s in stems:
        assert ipa_units(s.ipa)


def test_csv_wordlist_with_glosses_deduplicated():
    stems = read_wordlist(DATA / "latin_words.csv", "latin")
    assert [(s.form, s.ipa, s.gloss) for s in stems] == [
        ("quercus", "kʷerkus", "oak"), ("aqua", "akʷa", "water; water (again)"),
        ("lingua", "liŋɡʷa", "tongue"), ("magnus", "maŋnus", "great")]


def test_tsv_wordlist_basque_and_source():
    stems = read_wordlist(DATA / "basque_words.tsv", "basque", source="Trask")
    assert {s.form: s.ipa for s in stems} == {"etxe": "et͡ʃe", "zaldi": "s̻aldi", "[h]aitz": "ait͡s̻",
                                              "aLaba": "alaba", "-an-": "an"}
    assert {s.source for s in stems} == {"Trask"}


def test_plain_text_semitic():
    assert [s.ipa for s in read_wordlist(DATA / "hebrew_words.txt", "semitic")] == ["mlħmh", "ʔbn", "ʕbr", "ʃmɬ"]


def test_plain_text_with_gloss_column_and_header_sniffing(tmp_path):
    p = write(tmp_path, "w.txt", "aqua\twater\nrex\tking\n")
    assert [(s.form, s.gloss) for s in read_wordlist(p, "latin")] == [("aqua", "water"), ("rex", "king")]
    p = write(tmp_path, "h.txt", "form,gloss\naqua,water\n")
    assert [(s.form, s.gloss) for s in read_wordlist(p, "latin")] == [("aqua", "water")]


def test_column_mapping_and_delimiter(tmp_path):
    p = write(tmp_path, "lex.txt", "Lemma;English\naqua;water\n")
    stems = read_wordlist(p, "latin", columns={"form": "Lemma", "gloss": "English"}, delimiter=";")
    assert stems == [Stem("aqua", "akʷa", "water", "lex.txt")]


def test_missing_column_names_line_1(tmp_path):
    p = write(tmp_path, "w.csv", "word,gloss\naqua,water\n")
    with pytest.raises(InputError, match="missing column 'form'") as ei:
        read_wordlist(p, "latin")
    assert ei.value.line == 1 and ei.value.path == str(p)


def test_non_utf8_names_line(tmp_path):
    p = tmp_path / "w.txt"
    p.write_bytes("aqua\nrex\ncaf\xe9\n".encode("latin-1"))
    with pytest.raises(InputError, match="UTF-8") as ei:
        read_wordlist(p, "latin")
    assert ei.value.line == 3


def test_unknown_character_names_file_line_and_char(tmp_path):
    p = write(tmp_path, "w.csv", "form,gloss\naqua,water\naqu4,bad\nrex,king\nw&,bad\n")
    with pytest.raises(TranscriptionError) as ei:
        read_wordlist(p, "latin")
    e = ei.value
    assert e.line == 3 and e.path == str(p) and e.unknown == ("4",)
    msg = str(e)
    assert msg.startswith(f"{p}, line 3: ") and "U+0034" in msg and "'aqu4'" in msg and "'latin'" in msg
    assert "1 more line fail: 5" in msg


def test_skip_mode_returns_what_worked(tmp_path):
    p = write(tmp_path, "w.csv", "form,gloss\naqua,water\naqu4,bad\n,orphan gloss\nrex,king\n")
    result = read_wordlist(p, "latin", on_unknown="skip")
    assert [s.form for s in result] == ["aqua", "rex"]
    assert result.stems == list(result)
    assert [(s.line, s.form) for s in result.skipped] == [(3, "aqu4"), (4, "")]
    assert isinstance(result.skipped[0], SkippedLine)
    line, form, problem = result.skipped[0]
    assert "U+0034" in problem


def test_empty_form_is_an_error_by_default(tmp_path):
    p = write(tmp_path, "w.csv", "form,gloss\naqua,water\n,orphan\n")
    with pytest.raises(InputError, match="empty form") as ei:
        read_wordlist(p, "latin")
    assert ei.value.line == 3


def test_empty_and_all_bad_files(tmp_path):
    with pytest.raises(InputError, match="empty"):
        read_wordlist(write(tmp_path, "e.txt", "\n\n"), "latin")
    with pytest.raises(InputError, match="no word could be transcribed"):
        read_wordlist(write(tmp_path, "b.txt", "1\n2\n"), "latin", on_unknown="skip")
    with pytest.raises(ValueError):
        read_wordlist(DATA / "latin_words.txt", "latin", on_unknown="ignore")
    with pytest.raises(InputError, match="not found"):
        read_wordlist(tmp_path / "nope.txt", "latin")


def test_wordlist_with_epitran_and_user_table(tmp_path):
    p = write(tmp_path, "es.txt", "corazón\nllave\n")
    assert [s.ipa for s in read_wordlist(p, "spa-Latn")] == ["koɾason", "ʝabe"]
    table = write(tmp_path, "t.tsv", "grapheme\tipa\na\ta\nb\tβ\n")
    assert [s.ipa for s in read_wordlist(write(tmp_path, "x.txt", "ab\nba\n"), str(table))] == ["aβ", "βa"]


def test_broken_table_reported_before_reading(tmp_path):
    table = write(tmp_path, "t.tsv", "grapheme\tipa\na\ta\nb\t!\n")
    with pytest.raises(InputError, match="line 3"):
        read_wordlist(DATA / "latin_words.txt", str(table))


# --- CLDF -------------------------------------------------------------------------------------------


def test_cldf_by_metadata_all_languages():
    stems = read_cldf_wordlist(CLDF / "Wordlist-metadata.json")
    assert len(stems) == 18
    by_form = {s.form: s for s in stems}
    assert by_form["etxe"] == Stem("etxe", "et͡ʃe", "house", "cldf")  # "tʃ" segment tied
    assert by_form["hortz"].ipa == "ort͡s̻"
    assert by_form["esku"].ipa == "es̺ku"  # + removed
    assert by_form["la mano"].ipa == "lamano"  # _ removed
    assert by_form["caballo"].ipa == "kabaʝo"  # slash notation
    assert by_form["diente"].ipa == "diente"  # no Segments: the Form
    for s in stems:
        assert ipa_units(s.ipa)
    assert ipa_units(by_form["etxe"].ipa) == ("e", "t͡ʃ", "e")


@pytest.mark.parametrize("language", ["basque", "Basque", "eus", "basq1248"])
def test_cldf_language_filter(language):
    stems = read_cldf_wordlist(CLDF, language=language)
    assert len(stems) == 9
    assert {s.gloss for s in stems} == {"house", "horse", "stone", "father", "mother", "water", "dog", "tooth",
                                        "hand"}


def test_cldf_forms_csv_beside_metadata_and_bare():
    assert [s.form for s in read_cldf_wordlist(CLDF / "forms.csv", language="spanish")][:2] == ["casa", "caballo"]
    bare = read_cldf_wordlist(DATA / "cldf_bare" / "forms.csv", language="spanish")
    assert bare[0] == Stem("casa", "kasa", "house", "forms.csv")
    assert len(read_cldf_wordlist(DATA / "cldf_bare")) == 18


def test_cldf_unknown_language_lists_ids():
    with pytest.raises(InputError, match="'basque', 'spanish'"):
        read_cldf_wordlist(CLDF, language="gothic")


def copy_cldf(tmp_path: Path) -> Path:
    dest = tmp_path / "cldf"
    shutil.copytree(CLDF, dest)
    return dest


def test_cldf_bad_segment_names_line(tmp_path):
    d = copy_cldf(tmp_path)
    forms = d / "forms.csv"
    lines = forms.read_text(encoding="utf-8").splitlines()
    lines[4] = "basque-father,basque,father,aita,aita,a i 7 a,"
    forms.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(PhonologyError, match="'7'") as ei:
        read_cldf_wordlist(d / "Wordlist-metadata.json")
    assert ei.value.line == 5 and ei.value.path == str(forms)


def test_cldf_form_without_segments_must_be_ipa(tmp_path):
    d = copy_cldf(tmp_path)
    forms = d / "forms.csv"
    forms.write_text(forms.read_text(encoding="utf-8") + "spanish-x,spanish,dog,chucho!,chucho!,,\n",
                     encoding="utf-8")
    with pytest.raises(InputError, match="no Segments") as ei:
        read_cldf_wordlist(d)
    assert ei.value.line == 20
    # with a transcription system the Form is transcribed instead
    forms.write_text(forms.read_text(encoding="utf-8").replace("chucho!", "chucho"), encoding="utf-8")
    stems = read_cldf_wordlist(d, language="spanish", system="spa-Latn")
    assert {s.form: s.ipa for s in stems}["chucho"] == "t͡ʃut͡ʃo"


def test_cldf_missing_form_column_and_bad_json(tmp_path):
    d = copy_cldf(tmp_path)
    forms = d / "forms.csv"
    text = forms.read_text(encoding="utf-8")
    forms.write_text(text.replace(",Form,", ",Word,", 1), encoding="utf-8")
    with pytest.raises(InputError, match="missing column 'Form'") as ei:
        read_cldf_wordlist(d)
    assert ei.value.line == 1
    meta = d / "Wordlist-metadata.json"
    meta.write_text('{\n  "tables": [\n    {"url": "forms.csv",,}\n  ]\n}\n', encoding="utf-8")
    with pytest.raises(InputError, match="not valid JSON") as ei:
        read_cldf_wordlist(meta)
    assert ei.value.line == 3
    meta.write_text(json.dumps({"tables": [{"url": "other.csv"}]}), encoding="utf-8")
    with pytest.raises(InputError, match="no FormTable"):
        read_cldf_wordlist(meta)


def test_cldf_non_utf8(tmp_path):
    d = tmp_path / "bare"
    d.mkdir()
    (d / "forms.csv").write_bytes("ID,Language_ID,Parameter_ID,Form,Segments\n1,x,p,caf\xe9,k a f e\n"
                                  .encode("latin-1"))
    with pytest.raises(InputError, match="UTF-8") as ei:
        read_cldf_wordlist(d)
    assert ei.value.line == 2


def test_cldf_metadata_column_names_and_dialect(tmp_path):
    d = tmp_path / "custom"
    d.mkdir()
    t = "http://cldf.clld.org/v1.0/terms.rdf#"
    meta = {"tables": [{"url": "lexemes.tsv", "dc:conformsTo": t + "FormTable", "dialect": {"delimiter": "\t"},
                        "tableSchema": {"columns": [
                            {"name": "Lect", "propertyUrl": t + "languageReference"},
                            {"name": "Word", "propertyUrl": t + "form"},
                            {"name": "Tokens", "propertyUrl": t + "segments", "separator": " "},
                            {"name": "Meaning", "propertyUrl": t + "parameterReference"}]}}]}
    (d / "cldf-metadata.json").write_text(json.dumps(meta), encoding="utf-8")
    (d / "lexemes.tsv").write_text("Lect\tWord\tTokens\tMeaning\nL1\tpatʃa\tp a tʃ a\tthing\n", encoding="utf-8")
    assert read_cldf_wordlist(d) == [Stem("patʃa", "pat͡ʃa", "thing", "custom")]


def test_segments_to_ipa():
    assert segments_to_ipa("t s + a _ k/kʰ a") == "t s a kʰ a".replace(" ", "")
    assert segments_to_ipa("ts a") == "t͡sa"
    assert segments_to_ipa("ai t͡s") == "ait͡s"  # vowel pairs and tied segments left alone
