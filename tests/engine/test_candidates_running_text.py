"""Candidates from running texts for the fair protocol (issue 26): Hebrew Genesis (OSHB) read with
the `hebrew` / `hebrew-consonantal` tables, and the Basque New Testament in Leizarraga's spelling."""

from __future__ import annotations

import hashlib
import unicodedata

import pytest

from engine.cli.main import main as cli_main
from engine.datasets.candidates import build, leizarraga, oshb_stem, read_ces, read_oshb
from engine.errors import InputError
from engine.io.tables import read_known, write_known
from engine.io.transcription import TranscriptionError, available_systems, transcribe
from tests.conftest import DATA, shared_path

# Genesis 1:1 with Khan's Tiberian values (dagesh forte not doubled, quiescent alef silent, matres read as
# the vowel) and read consonantally as the cognate file's transliteration is (brʔʃjt = semitic "bray$yt")
GEN_1_1 = [
    ("בְּרֵאשִׁית", "bəreʃiθ", "brʔʃjt"),
    ("אֱלֹהִים", "ʔɛlohim", "ʔlhjm"),
    ("הַשָּׁמַיִם", "haʃɔmajim", "hʃmjm"),
    ("וְאֵת", "wəʔeθ", "wʔt"),
    ("הָאָרֶץ", "hɔʔɔrɛsˤ", "hʔrsˤ"),
]


@pytest.mark.parametrize("word,tiberian,consonantal", GEN_1_1)
def test_hebrew_tables_read_genesis_1_1(word, tiberian, consonantal):
    assert transcribe(word, "hebrew") == tiberian
    assert transcribe(word, "hebrew-consonantal") == consonantal
    # decomposed input reads the same, and the output is NFC
    nfd = unicodedata.normalize("NFD", word)
    assert transcribe(nfd, "hebrew") == tiberian == unicodedata.normalize("NFC", tiberian)


def test_tiberian_rules():
    assert transcribe("בָּרָ֣א", "hebrew") == "bɔrɔ"  # accent ignored, final quiescent alef silent
    assert transcribe("רוּחַ", "hebrew") == "ruaħ"  # shureq, furtive patah read before the ח
    assert transcribe("יִשְׁמְרוּ", "hebrew") == "jiʃməru"  # the second of two shewas is vocal
    assert transcribe("דְּבָרָיו", "hebrew") == "dəvɔrɔw"  # ב without dagesh is v; -ָיו is -ɔw
    assert transcribe("בּוֹ", "hebrew") == "bo"  # holam male
    assert transcribe("מִצְוֹת", "hebrew") == "misˤwoθ"  # ו with holam after a vowelled consonant
    assert transcribe("שָׂרָה", "hebrew") == "sɔrɔ"  # sin; final ה without mappiq silent
    assert transcribe("לְמִינָהּ", "hebrew") == "ləminɔh"  # mappiq
    assert transcribe("בְּרִיאוֹת", "hebrew") == "bəriʔoθ"  # alef before a holam male is a consonant
    assert transcribe("כִּי", "hebrew") == "ki" and transcribe("לֶךְ", "hebrew") == "lɛx"


def test_consonantal_table_matches_the_cognate_files_transliteration():
    # the semitic table reads the .cog's ASCII; the Hebrew script must give the same IPA
    for script, ascii_ in [("אֱלֹהִים", "alhym"), ("שָׂרָה", "&rh"), ("שֶׁמֶשׁ", "$m$"), ("צֶדֶק", "Sdq"),
                           ("חֶרֶב", "Hrb"), ("טוֹב", "Twb"), ("עַיִן", "<yn")]:
        assert transcribe(script, "hebrew-consonantal") == transcribe(ascii_, "semitic"), script
    # the points do not matter: pointed and unpointed give the same reading
    assert transcribe("אלהים", "hebrew-consonantal") == transcribe("אֱלֹהִ֑ים", "hebrew-consonantal")


def test_hebrew_tables_are_systems_and_refuse_a_bad_character():
    assert {"hebrew", "hebrew-consonantal"} <= set(available_systems())
    for system in ("hebrew", "hebrew-consonantal"):
        with pytest.raises(TranscriptionError) as e:
            transcribe("בְּרֵאשִׁיתx", system, path="gen.xml", line=7)
        msg = str(e.value)
        assert "\n" not in msg and msg.startswith("gen.xml, line 7: ")
        assert "U+0078" in msg and system in msg
        with pytest.raises(TranscriptionError, match=r"U\+05F0"):  # װ, a Yiddish ligature, is not read
            transcribe("װ", system)


def test_oshb_stem_cuts_prefixes_and_suffixes():
    assert oshb_stem("בְּ/רֵאשִׁ֖ית", "HR/Ncfsa", "b/7225") == ("רֵאשִׁית", "7225")
    assert oshb_stem("בָּרָ֣א", "HVqp3ms", "1254 a") == ("בָּרָא", "1254")
    assert oshb_stem("לְ/מִינ֔/וֹ", "HR/Ncmsc/Sp3ms", "l/4327") == ("מִינ", "4327")
    assert oshb_stem("ב֖/וֹ", "HR/Sp3ms", "b") == ("ב", "b")  # a preposition carrying a suffix
    assert oshb_stem("בָּ/הֵ֖ן", "HR/Sp3fp", "b/2004") == ("בָּ", "b")  # the suffix given its own lemma
    for text, morph, lemma, why in [("בְּ/רֵאשִׁית", "HNcfsa", "7225", "2 parts"),
                                    ("רֵאשִׁית", "Ncfsa", "7225", "does not start with H or A"),
                                    ("בְּ/רֵאשִׁית", "HR/Ncfsa", "b/c/7225", "3 parts")]:
        with pytest.raises(ValueError, match=why):
            oshb_stem(text, morph, lemma)


OSIS = """<?xml version="1.0" encoding="UTF-8"?>
<osis xmlns="http://www.bibletechnologies.net/2003/OSIS/namespace"><osisText><div type="book">
<chapter osisID="Gen.1"><verse osisID="Gen.1.1">
<w lemma="b/7225" morph="HR/Ncfsa">בְּ/רֵאשִׁ֖ית</w>
<w lemma="1254 a" morph="HVqp3ms">בָּרָ֣א</w>
<w lemma="430" morph="HNcmpa">אֱלֹהִ֑ים</w><seg type="x-maqqef">־</seg>
<w lemma="d/430" morph="HTd/Ncmpa">הָ/אֱלֹהִים</w>
<w lemma="l/430" morph="HR/Ncmpc/Sp3ms">לֵ/אלֹהֵ֖י/ו</w>
<w lemma="776" morph="HNcbsa">אָֽרֶץ</w><seg type="x-sof-pasuq">׃</seg>
<note type="variant"><rdg type="x-qere"><w lemma="776" morph="HNcbsa">אֶרֶץ</w></rdg></note>
<w lemma="d/776" morph="HTd/Ncbsa">הָ/אָרֶץ</w>
</verse></chapter></div></osisText></osis>
"""


def test_read_oshb_counts_stems_by_lemma(tmp_path):
    src = tmp_path / "gen.xml"
    src.write_text(OSIS, encoding="utf-8")
    stems = read_oshb(src)
    assert stems.words == 7  # the <note>'s reading and the <seg>s are not words
    assert dict(stems.forms["430"]) == {"אֱלֹהִים": 2, "אלֹהֵי": 1}
    assert dict(stems.forms["776"]) == {"אָרֶץ": 2}
    built = build("hebrew-genesis", stems=10, min_units=3, source=src)
    # lemma 430 (3×) first, as its most frequent form; then 776 (2×); then the 1× lemmas by key
    assert [(s.form, s.ipa, s.gloss) for s in built.stems] == [
        ("אֱלֹהִים", "ʔlhjm", "lemma 430 (3×)"), ("אָרֶץ", "ʔrsˤ", "lemma 776 (2×)"),
        ("בָּרָא", "brʔ", "lemma 1254 (1×)"), ("רֵאשִׁית", "rʔʃjt", "lemma 7225 (1×)")]
    tiberian = build("hebrew-genesis-tiberian", stems=10, min_units=3, source=src)
    assert [s.ipa for s in tiberian.stems] == ["ʔɛlohim", "ʔɔrɛsˤ", "bɔrɔ", "reʃiθ"]
    out = tmp_path / "known.csv"
    assert cli_main(["dataset", "candidates", "--language", "hebrew-genesis", "--stems", "2", "--min-units", "3",
                     "--source", str(src), "--out", str(out)]) == 0
    assert [s.form for s in read_known(out)] == ["אֱלֹהִים", "אָרֶץ"]


@pytest.mark.parametrize("text,line,why", [
    ('<?xml version="1.0"?>\n<!DOCTYPE osis [\n<!ENTITY x "boom">\n]>\n<osis>&x;</osis>\n', 2, "DOCTYPE"),
    ('<osis>\n<w lemma="430" morph="HNcmpa">אֱלֹהִים</w>\n<w lemma="1">\n', 3, "without a morph"),
    ('<osis>\n<w lemma="430" morph="HNcmpa">אֱלֹהִים</w>\n<w lemma="1" morph="HNc">x</x>\n', 3, "not well-formed"),
    ('<osis>\n\n<w lemma="b/7225" morph="HNcfsa">בְּ/רֵאשִׁית</w></osis>\n', 3, "2 parts"),
])
def test_bad_osis_is_one_line_naming_file_and_line(tmp_path, capsys, text, line, why):
    src = tmp_path / "gen.xml"
    src.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=why) as e:
        read_oshb(src)
    assert e.value.line == line and e.value.path == str(src)
    out = tmp_path / "known.csv"
    assert cli_main(["dataset", "candidates", "--language", "hebrew-genesis", "--source", str(src),
                     "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"gen.xml, line {line}: " in err
    assert not out.exists()


def test_leizarraga_spelling_is_respelled_in_modern_letters():
    assert leizarraga("ceruäc") == "zeruak"
    assert leizarraga("gurequin") == "gurekin"
    assert leizarraga("içan") == "izan" and leizarraga("vkan") == "ukan" and leizarraga("iesvs") == "iesus"
    assert leizarraga("babylonerát") == "babilonerat" and leizarraga("christ") == "krist"
    assert leizarraga("virginabat") == "birginabat"
    assert leizarraga("zü") == "zü"  # Souletin ü keeps its diaeresis (the table reads it [y])


CES = """<?xml version="1.0" ?>
<cesDoc version="4"><cesHeader><h.title>Bible(BAQ)</h.title></cesHeader><text><body>
<div id="b.MAT" type="book"><div id="b.MAT.1" type="chapter">
<seg id="b.MAT.1.1" type="verse">IESVS CHRIST Dauid-en semearen, Abrahamen semearen generationeco liburuä.</seg>
<seg id="b.MAT.1.2" type="verse">Abrahamec engendra ceçan Isaac: eta Isaac-ec engendra ceçan Iacob.</seg>
<seg id="b.MAT.1.3" type="verse">Eta Iacob-ec engendra citzan Iuda eta haren anayeac.</seg>
</div></div></body></text></cesDoc>
"""


def test_basque_nt_from_ces_verses(tmp_path):
    src = tmp_path / "Basque-NT.xml"
    src.write_text(CES, encoding="utf-8")
    counts = read_ces(src)
    assert counts["engendra"] == 3 and counts["eta"] == 2 and "Bible" not in "".join(counts)  # title not read
    assert sum(counts.values()) == 28  # 9 + 10 + 9 words (Isaac-ec: two)
    built = build("basque-nt", stems=20, min_units=3, source=src)
    assert not built.failed  # every archaic spelling here is respelled into letters the table reads
    by_form = {s.form: s for s in built.stems}
    # engendra ×3 and eta ×3 (Eta, eta: lower-cased) lead, in alphabetical order of their stems
    assert [(s.form, s.gloss) for s in built.stems[:2]] == [("engend", "engendra (3×)"), ("eta", "eta (3×)")]
    assert by_form["zez"].gloss == "ceçan (2×)" and by_form["zez"].ipa == "s̻es̻"  # ç and c before e are z
    assert "iakob" in by_form and by_form["iakob"].ipa == "iakob"
    assert by_form["krist"].ipa == "kɾis̺t" and by_form["liburua"].gloss == "liburuä (1×)"
    assert "iesus" in by_form  # IESVS: capitals lowered, v before a consonant is u


def _known_sha256(tmp_path, built) -> str:
    out = tmp_path / "known.csv"
    write_known(out, built.stems)
    return hashlib.sha256(out.read_bytes()).hexdigest()


def test_trask_candidate_bytes_are_unchanged(tmp_path):
    """The Leizarraga respelling is basque-nt's alone: the `basque` candidate (Trask) writes the same
    bytes as before it was added (the KNOWN CSV's hash at commit 1b3c632)."""
    built = build("basque", stems=100, source=DATA / "candidates" / "trask.tsv")
    assert _known_sha256(tmp_path, built) == "9b7bb5eea229fc4b3f8de0b088446d74b887b5652c2b86210b5bcda251296256"


@pytest.mark.corpus
def test_real_running_texts(tmp_path):
    built = build("basque", stems=600, source=shared_path("basque", "trask_native_lexicon.tsv"))
    assert _known_sha256(tmp_path, built) == "81515afb9b0d1160328982a2b332eac1f27e66e99f6686589c9b136b23e974c4"
    genesis = shared_path("genesis", "genesis.hebrew_oshb_wlc.xml")
    heb = build("hebrew-genesis", stems=600, min_units=3, source=genesis)
    assert heb.words == 20612 and len(heb.stems) == 600 and not heb.failed
    assert heb.stems[0].gloss.startswith("lemma 559 ")  # אָמַר "say", 606×
    tib = build("hebrew-genesis-tiberian", stems=600, min_units=3, source=genesis)
    assert len(tib.stems) == 600 and not tib.failed
    nt = build("basque-nt", stems=600, min_units=3, source=shared_path("basque", "Basque-NT.xml"))
    assert len(nt.stems) == 600 and len(nt.failed) <= 3
