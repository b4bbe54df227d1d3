"""Orthography -> IPA: our rule tables, the rule-table format, and the epitran path."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from engine.errors import InputError
from engine.model.phonology import ipa_units
from engine.io.transcription import (
    BUILTIN_TABLES,
    RuleTableError,
    TranscriptionError,
    available_systems,
    get_epitran,
    load_rule_table,
    parse_rule_table,
    transcribe,
    transcriber,
)
from tests.conftest import shared_path

EXPECTED = {
    "semitic": [
        ("mlHmh", "mlħmh"), ("abn", "ʔbn"), ("<br", "ʕbr"), ("$m&", "ʃmɬ"), ("Sdq", "sˤdq"),
        ("Tb", "tˤb"), ("ybn", "jbn"), ("tikl", "tʔkl"), ("ulp", "ʔlp"),
        ("xTb@*Zv", "χtˤbɣðθˤθ"),
    ],
    "latin": [
        ("quercus", "kʷerkus"), ("Cicero", "kikero"), ("caelum", "kae̯lum"), ("cælum", "kae̯lum"),
        ("lingua", "liŋɡʷa"), ("uinum", "winum"), ("vinum", "winum"), ("eius", "ejus"), ("iam", "jam"),
        ("urbs", "urps"), ("magnus", "maŋnus"), ("auis", "awis"), ("aurum", "au̯rum"),
        ("philosophia", "pʰilosopʰia"), ("rēx", "reːks"), ("Ægyptus", "ae̯ɡyptus"), ("poëta", "poeta"),
    ],
    "basque": [
        ("etxe", "et͡ʃe"), ("zaldi", "s̻aldi"), ("hitz", "it͡s̻"), ("hots", "ot͡s̺"), ("arrano", "arano"),
        ("ura", "uɾa"), ("ttipi", "cipi"), ("ñabar", "ɲabaɾ"), ("ollo", "oʎo"), ("jaun", "jaun"),
        ("Euskara", "eus̺kaɾa"),
        # Trask's Pre-Basque conventions
        ("[h]aitz", "ait͡s̻"), ("a[h]o", "ao"), ("aLaba", "alaba"), ("aRats", "arat͡s̺"), ("-an-", "an"),
        ("-au(t)s-", "aut͡s̺"), ("aniz-ba", "anis̻ba"),
    ],
    "proto-germanic": [
        ("dagaz", "dɑɣɑz"), ("þurnuz", "θurnuz"), ("Þunraz", "θunrɑz"), ("hwat", "xʷɑt"),
        ("gebaną", "ɡeβɑnɑ̃"), ("singwaną", "siŋɡʷɑnɑ̃"), ("wulfaz", "wulɸɑz"), ("*wulfaz", "wulɸɑz"),
        ("hē₂r", "xeːr"), ("brōþēr", "brɔːθɛːr"), ("tungǭ", "tuŋɡɔ̃ː"), ("aldį̄", "ɑldĩː"),
        ("-iz", "iz"), ("laibaz", "lɑi̯βɑz"), ("ƀ", "β"),
    ],
    "gothic": [
        ("dags", "daɣs"), ("þiudans", "θiu̯ðans"), ("𐌲𐌿𐌸", "ɡuθ"), ("𐌸𐌹𐌿𐌳𐌰𐌽𐍃", "θiu̯ðans"),
        ("saggws", "saŋɡʷs"), ("drigkan", "driŋkan"), ("nahts", "naxts"), ("hlaifs", "hlɛɸs"),
        ("qiþan", "kʷiθan"), ("ƕas", "hʷas"), ("hwas", "hʷas"), ("bidjan", "biðjan"), ("*hroþs", "hroːθs"),
        ("ga-", "ɡa"), ("jan~ni", "janni"), ("baúrgs", "bɔrɡs"), ("háuhs", "hau̯xs"), ("meins", "miːns"),
    ],
}


@pytest.mark.parametrize("system,word,ipa", [(s, w, i) for s, pairs in EXPECTED.items() for w, i in pairs])
def test_tables_on_hand_picked_words(system, word, ipa):
    out = transcribe(word, system)
    assert out == ipa
    assert ipa_units(out)


def test_mlHmh_units_have_no_alef():
    assert ipa_units(transcribe("mlHmh", "semitic")) == ("m", "l", "ħ", "m", "h")


def test_every_table_output_is_ipa():
    for system in BUILTIN_TABLES:
        table = load_rule_table(system)
        for rule in table.rules:
            if rule.ipa:
                assert ipa_units(rule.ipa), (system, rule.grapheme)


def test_available_systems_lists_tables_and_epitran():
    systems = available_systems()
    assert systems[: len(BUILTIN_TABLES)] == list(BUILTIN_TABLES)
    for code in ("spa-Latn", "tur-Latn", "hun-Latn", "ara-Arab", "deu-Latn"):
        assert code in systems
    assert "eng-Latn" not in systems  # needs an external program


# --- unknown characters -------------------------------------------------------------------------


def test_unknown_characters_are_all_named():
    with pytest.raises(TranscriptionError) as ei:
        transcribe("abeo-", "semitic")
    e = ei.value
    assert e.unknown == ("e", "o", "-")
    msg = str(e)
    for part in ("'e' (U+0065", "'o' (U+006F", "'-' (U+002D", "'abeo-'", "'semitic'"):
        assert part in msg
    assert isinstance(e, InputError)


def test_unknown_character_names_file_and_line():
    with pytest.raises(TranscriptionError) as ei:
        transcribe("izeCi", "basque", path="trask.tsv", line=42)
    msg = str(ei.value)
    assert msg.startswith("trask.tsv, line 42: ")
    assert "'C' (U+0043 LATIN CAPITAL LETTER C)" in msg  # reported as written, not lowered
    assert ei.value.line == 42 and ei.value.path == "trask.tsv"


def test_semitic_is_case_sensitive():
    assert transcribe("h", "semitic") == "h"
    assert transcribe("H", "semitic") == "ħ"
    with pytest.raises(TranscriptionError, match=r"U\+0041"):
        transcribe("A", "semitic")


def test_combining_mark_left_over_is_reported():
    # x + combining dot below: no rule reads the dot, so it is reported, not dropped
    with pytest.raises(TranscriptionError, match=r"U\+0323"):
        transcribe("ax\u0323", "latin")


def test_empty_word_and_all_silent_word():
    with pytest.raises(TranscriptionError, match="empty"):
        transcribe("  ", "latin")
    with pytest.raises(TranscriptionError, match="silent"):
        transcribe("h", "basque")


def test_unknown_system():
    with pytest.raises(InputError, match="unknown transcription system"):
        transcribe("a", "klingon")


# --- the rule-table format ------------------------------------------------------------------------

TABLE = """# a test table
@lowercase
@class V = a e i o u
@class C = p t k s
@map ᚠ f
grapheme\tipa\tpreceded_by\tfollowed_by\tnote
a\ta\t\t\t
e\te\t\t\t
i\tj\t#|{V}\t{V}\tconsonantal i
i\ti\t\t\t
o\to\t\t\t
u\tu\t\t\t
p\tβ\t{V}\t{V}\tbetween vowels
p\tp\t\t\t
t\tt\t\t\t
k\tx\t\t!{V}\tnot before a vowel
k\tk\t\t\t
s\ts\t\t\t
sk\tʃ\t\t#\tfinal sk
f\tf\t\t\t
h\t∅\t\t\tsilent
n\tŋ\t\tre:[k]\traw regex
n\tn\t\t\t
"""


def write(tmp_path: Path, text: str, name: str = "mine.tsv") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_user_table_by_path(tmp_path):
    p = write(tmp_path, TABLE)
    assert transcribe("apa", str(p)) == "aβa"
    assert transcribe("pa", p) == "pa"  # a Path works too
    assert transcribe("iai", str(p)) == "jai"
    assert transcribe("aka", str(p)) == "aka"
    assert transcribe("ak", str(p)) == "ax"
    assert transcribe("kt", str(p)) == "xt"
    assert transcribe("ask", str(p)) == "aʃ"  # longest match, context holds
    assert transcribe("aska", str(p)) == "aska"  # sk not final: falls back to s + k
    assert transcribe("ᚠaha", str(p)) == "faa"  # @map, silent h
    assert transcribe("APA", str(p)) == "aβa"  # @lowercase
    assert transcribe("nka", str(p)) == "ŋka"
    assert transcribe("pa pa", str(p)) == "pa pa"  # each word has its own edges


def test_context_escapes_class_in_class_and_hash_grapheme():
    table = parse_rule_table(
        "@class V = a e\n@class S = {V} j\n"
        "grapheme\tipa\tpreceded_by\tfollowed_by\n"
        "b\tβ\t{S}\t\nb\tb\t\t\n\\#\tʔ\t\t\nj\tj\t\t\na\ta\t\t\ne\te\t\t\n"
        "x\tks\t\\#\t\nx\tx\t\t\nk\tk\tre:(?<=a){V}\t\nk\tɡ\t\t\n", name="t")
    assert [table.transcribe(w) for w in ("ab", "jb", "bb", "a#x", "x", "aek", "ak")] == [
        "aβ", "jβ", "bb", "aʔks", "x", "aek", "aɡ"]


def test_table_edits_are_picked_up(tmp_path):
    p = write(tmp_path, TABLE)
    assert transcribe("f", str(p)) == "f"
    t1 = load_rule_table(p)
    assert load_rule_table(p) is t1  # cached
    write(tmp_path, TABLE.replace("f\tf\t", "f\tɸ\t") + "# edited\n")
    assert transcribe("f", str(p)) == "ɸ"


def test_transcriber_resolves_once(tmp_path):
    fn = transcriber("latin")
    assert fn("aqua") == "akʷa"
    with pytest.raises(TranscriptionError) as ei:
        fn("aqua1", path="x.txt", line=3)
    assert "x.txt, line 3" in str(ei.value)


@pytest.mark.parametrize("bad_line,match", [
    ("b\tb̪̪!\t\t\t", "unknown IPA symbol '!'"),
    ("b\t\t\t\t", "write ∅"),
    ("b\tb\t{W}\t\t", r"unknown class \{W\}"),
    ("b\tb\t\t!\t", "negates nothing"),
    ("b\tb\t\tre:[\t", "not a valid pattern"),
    ("a\tɑ\t\t\t", "second rule for 'a'"),
    ("b b", "tabs"),
    ("b\tb\t\t\t\textra", "6 tab-separated cells"),
    ("@klass V = a", "unknown directive"),
    ("@class V a e", "@class Name = member"),
])
def test_broken_table_names_file_and_line(tmp_path, bad_line, match):
    lines = TABLE.splitlines()
    lines.insert(8, bad_line)  # becomes line 9
    p = write(tmp_path, "\n".join(lines) + "\n", "broken.tsv")
    with pytest.raises(RuleTableError, match=match) as ei:
        transcribe("a", str(p))
    assert ei.value.line == 9
    assert str(ei.value).startswith(f"{p}, line 9: ")


def test_bad_header_is_explained(tmp_path):
    p = write(tmp_path, "grapheme ipa\na a\n")
    with pytest.raises(RuleTableError, match="separated by tabs") as ei:
        load_rule_table(p)
    assert ei.value.line == 1
    p = write(tmp_path, "grapheme\tipa\tbefore\na\ta\t\n")
    with pytest.raises(RuleTableError, match="unknown column 'before'"):
        load_rule_table(p)


def test_table_file_problems(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_rule_table(tmp_path / "nope.tsv")
    p = tmp_path / "latin1.tsv"
    p.write_bytes("grapheme\tipa\n\xe9\te\n".encode("latin-1"))
    with pytest.raises(InputError, match="UTF-8") as ei:
        load_rule_table(p)
    assert ei.value.line == 2
    with pytest.raises(RuleTableError, match="no rules"):
        parse_rule_table("grapheme\tipa\n")


def test_builtin_tables_carry_notes_and_lines():
    table = load_rule_table("semitic")
    rule = next(r for r in table.rules if r.grapheme == "&")
    assert rule.ipa == "ɬ" and "lateral" in rule.note and rule.line > 1
    assert set(table.graphemes()) >= set("abgdhwzHTyklmnsSpqrt$&<")


# --- epitran ----------------------------------------------------------------------------------------


def test_epitran_spanish_and_cache():
    first = get_epitran("spa-Latn")
    assert get_epitran("spa-Latn") is first  # built once, then shared
    assert transcribe("corazón", "spa-Latn") == "koɾason"
    assert get_epitran("spa-Latn") is first
    assert ipa_units(transcribe("llave", "spa-Latn"))


def test_epitran_passthrough_is_reported():
    with pytest.raises(TranscriptionError) as ei:
        transcribe("casa1", "spa-Latn", path="w.txt", line=7)
    assert ei.value.unknown == ("1",)
    assert "U+0031" in str(ei.value) and "w.txt, line 7" in str(ei.value) and "spa-Latn" in str(ei.value)


def test_epitran_arabic_harakat_are_handled():
    plain = transcribe("مدرسة", "ara-Arab")
    vocalised = transcribe("مَدْرَسَة", "ara-Arab")
    assert plain == vocalised == "mdrsh"
    assert transcribe("ماء", "ara-Arab") == "maːʔ"
    for w in ("أكل", "إسلام", "سؤال", "ٱلله", "مُوسَى"):
        assert ipa_units(transcribe(w, "ara-Arab"))


def test_epitran_missing_map():
    with pytest.raises(InputError, match="lat-Latn"):
        transcribe("aqua", "lat-Latn")


# --- coverage on the real data (skipped without ../shared/data) --------------------------------------


def _fails(words, system):
    out = []
    for w in dict.fromkeys(words):
        try:
            transcribe(w, system)
        except TranscriptionError as e:
            out.append((w, e.unknown))
    return out


@pytest.mark.corpus
def test_hebrew_column_transcribes():
    path = shared_path("ugaritic_hebrew", "uga-heb.no_spe.cog")
    rows = [line.rstrip("\n").split("\t") for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    heb = [w for r in rows for w in r[1].split("|") if w != "_"]
    uga = [w for r in rows for w in r[0].split("|") if w != "_"]
    assert len(set(heb)) > 30_000
    assert _fails(heb, "semitic") == []
    assert _fails(uga, "semitic") == []


@pytest.mark.corpus
def test_trask_basque_forms():
    path = shared_path("basque", "trask_native_lexicon.tsv")
    with open(path, encoding="utf-8", newline="") as f:
        forms = [r["form"] for r in csv.DictReader(f, delimiter="\t")]
    assert sorted(_fails(forms, "basque")) == [("[h]odeCi", ("C",)), ("izeCi", ("C",))]


@pytest.mark.corpus
def test_proto_germanic_and_gothic_forms():
    path = shared_path("germanic_etymology", "entirePGMC_daughters.csv")
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert _fails([r["PGMC"] for r in rows], "proto-germanic") == []
    assert _fails([r["WORD"] for r in rows if r["LANGUAGE"] == "got"], "gothic") == [("tr=*tvi-", ("=", "v"))]
