"""Issue 29 items 2 and 3: the known side's IPA is guarded against transliteration letters and
marks the feature table does not know; the lost side's Leiden markup is kept as markup."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from engine.errors import PhonologyError
from engine.io import tables
from engine.model.phonology import TRANSLITERATION, NotIPAError, ipa_units, suggest_ipa, unit_features
from engine.cli.project import main as project_main
from engine.io.transcription import BUILTIN_TABLES, load_rule_table, transcribe

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


def test_bundled_sample_projects_still_build(tmp_path):
    from engine.datasets.sample import SAMPLE_DIR, create_project_from_folder, create_sample_project

    with create_sample_project(tmp_path / "s.decipher") as p:
        assert p.languages() and p.corpora()
    gothic = SAMPLE_DIR.parent / "sample-gothic"
    with create_project_from_folder(tmp_path / "g.decipher", gothic, source="test",
                                    default_name="G") as p:
        assert p.languages() and p.pins()
    for prior in sorted((ROOT / "tests" / "data").rglob("prior.csv")):
        assert tables.read_prior(prior)


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


# ---- item 3: Leiden conventions in the importers of lost texts ---------------------------------

from engine.config import Config  # noqa: E402
from engine.corpus import Corpus, normalise_text  # noqa: E402
from engine.errors import InputError  # noqa: E402
from engine.io.cog import read_cog  # noqa: E402
from engine.io.preview import preview_file  # noqa: E402
from engine.io.text import read_leiden  # noqa: E402
from engine.model.prepared import cut_chunks  # noqa: E402
from engine.project import Project, export_lost, import_lost, import_text  # noqa: E402
from engine.project.importing import markup_totals  # noqa: E402


@pytest.mark.parametrize("raw,text,counts", [
    ("ym [b]n [...] lk", "ym bn lk", {"lacunae": 2, "restored": 1, "lost_unknown": 1, "restored_letters": 1}),
    ("abc[---]def", "abc def", {"lacunae": 1, "lost_unknown": 1}),
    ("a[- - -]b", "a b", {"lacunae": 1, "lost_unknown": 1}),
    ("a[…]b", "a b", {"lacunae": 1, "lost_unknown": 1}),
    ("a[.]b", "a b", {"lacunae": 1, "lost_counted": 1, "lost_signs": 1}),
    ("a[..]b", "a b", {"lacunae": 1, "lost_counted": 1, "lost_signs": 2}),
    ("ab[c.5]d", "ab d", {"lacunae": 1, "lost_counted": 1, "lost_signs": 5}),
    ("[ab..]c", "ab c", {"lacunae": 1, "lost_counted": 1, "lost_signs": 2, "restored_letters": 2}),
    ("ym⟨b⟩n", "ymn", {"additions": 1}),
    ("ym〈b〉n", "ymn", {"additions": 1}),
    ("ym{b}n", "ymbn", {"deletions": 1}),
    ("y\u0323mn", "ymn", {"uncertain": 1}),
    ("ym ... lk", "ym lk", {"illegible": 1}),
    ("ab[", "ab", {"lacunae": 1, "lost_unknown": 1}),
    ("c]de", "cde", {"lacunae": 1, "restored": 1, "restored_letters": 1}),
    ("plain text", "plain text", {}),
])
def test_leiden_markup_is_read_as_markup(raw, text, counts):
    r = read_leiden(raw, dotted="uncertain")
    assert r.text == text
    for key in ("lacunae", "restored", "lost_unknown", "lost_counted", "lost_signs", "additions",
                "deletions", "uncertain", "illegible"):
        assert getattr(r, key) == counts.get(key, 0), key
    if "restored_letters" in counts:
        assert r.restored_letters == counts["restored_letters"]
    assert not set(r.text) & set("[]{}⟨⟩.…") and "\u0323" not in unicodedata.normalize("NFD", r.text)


def test_dotted_letters_can_be_letters_of_the_transliteration(tmp_path, capsys):
    r = read_leiden("ṣdq", dotted="letter")
    assert r.text == "ṣdq" and r.uncertain == 0
    assert read_leiden("ṣdq", dotted="uncertain").text == "sdq"
    src = write(tmp_path / "lost.csv", "id,text\nA,ṣdq\n")
    project = tmp_path / "p.decipher"
    assert project_main(["new", str(project)]) == 0
    assert project_main(["import", str(project), "--lost", str(src), "--name", "a", "--dotted", "uncertain"]) == 0
    assert "lacunae: 0; 1 dotted letter read as uncertain (the dot removed)" in capsys.readouterr().out
    assert project_main(["import", str(project), "--lost", str(src), "--name", "b", "--dotted-letters"]) == 0
    assert "lacunae: 0\n" in capsys.readouterr().out
    with Project.open(project) as p:
        a, b = p.corpora()
        assert p.inscriptions(a.id)[0].text == "sdq" and p.inscriptions(b.id)[0].text == "ṣdq"
        assert markup_totals(p.inscriptions(b.id), b.format)["uncertain"] == 0


@pytest.mark.parametrize("raw,needle", [("ab{c", "'{' that is not closed"), ("ab⟨c", "'⟨' that is not closed"),
                                        ("a}b", "'}' with no '{'"), ("a[b[c]", "'[' inside a lacuna")])
def test_unbalanced_markup_is_one_line_naming_file_and_line(tmp_path, raw, needle):
    src = write(tmp_path / "lost.csv", f"id,text\nA,ok\nB,{raw}\n")
    with pytest.raises(InputError) as e:
        tables.read_lost(src)
    assert e.value.line == 3 and e.value.path == str(src) and needle in e.value.problem
    assert "\n" not in str(e.value)


def test_markup_only_text_is_refused(tmp_path):
    with pytest.raises(InputError, match="no letter outside its markup") as e:
        tables.read_lost(write(tmp_path / "lost.csv", "id,text\nA,ab\nB,[...]\n"))
    assert e.value.line == 3
    with pytest.raises(InputError, match="no letter outside its markup") as e:
        tables.read_plain_text(write(tmp_path / "t.txt", "ab\n\n[---]\n"))
    assert e.value.line == 3


def test_done_when_import_reports_two_lacunae_and_info_lists_clean_letters(tmp_path, capsys):
    src = write(tmp_path / "lost.csv", "id,text\nA,ym [b]n [...] lk\n")
    project = tmp_path / "p.decipher"
    assert project_main(["new", str(project)]) == 0
    assert project_main(["import", str(project), "--lost", str(src)]) == 0
    out = capsys.readouterr().out
    assert "lacunae: 2 (1 restored, 1 with lost signs of unknown number)" in out
    assert project_main(["info", str(project)]) == 0
    info = capsys.readouterr().out.splitlines()
    letters = [line.strip() for line in info if line.strip().startswith("letters:")]
    assert letters == ["letters: b k l m n y (6)"]
    assert any(line.strip().startswith("lacunae: 2") for line in info)
    with Project.open(project) as p:
        (ins,) = p.inscriptions(p.corpora()[0].id)
    assert ins.text == "ym bn lk" and ins.raw == "ym [b]n [...] lk"     # the markup is kept in raw


def test_no_span_crosses_a_lacuna_but_restored_letters_join_their_word(tmp_path):
    src = write(tmp_path / "lost.csv", "id,text\nA,abc[...]def\nB,ab[c]d\nC,xy[..]z\n")
    corpus = Corpus("c", tuple(tables.read_lost(src)))
    chunks = [(c.inscription_id, "".join(c.letters)) for c in cut_chunks(corpus, Config())]
    assert chunks == [("A", "abc"), ("A", "def"), ("B", "abcd"), ("C", "xy"), ("C", "z")]


def test_plain_text_reads_the_same_markup(tmp_path, capsys):
    src = write(tmp_path / "t.txt", "ym [b]n [...] lk\nab⟨c⟩d\n")
    (a, b) = tables.read_plain_text(src)
    assert (a.text, a.raw, b.text) == ("ym bn lk", "ym [b]n [...] lk", "abd")
    project = tmp_path / "p.decipher"
    assert project_main(["new", str(project)]) == 0
    assert project_main(["import", str(project), "--text", str(src)]) == 0
    assert "lacunae: 2 (1 restored, 1 with lost signs of unknown number); 1 editorial addition" \
        in capsys.readouterr().out


def test_export_and_reimport_keeps_text_raw_and_lacunae(tmp_path):
    src = write(tmp_path / "lost.csv", "id,text\nA,ym [b]n [...] lk\nB,a[.]b\n")
    with Project.create(tmp_path / "p.decipher") as p:
        cid = import_lost(p, src)
        export_lost(p, tmp_path / "out.csv", cid)
        cid2 = import_lost(p, tmp_path / "out.csv", name="again")
        first, again = p.inscriptions(cid), p.inscriptions(cid2)
        assert [(i.text, i.raw) for i in first] == [(i.text, i.raw) for i in again]
        assert markup_totals(first, "lost") == markup_totals(again, "lost")
        assert markup_totals(first, "lost")["lacunae"] == 3


def test_a_failed_import_writes_nothing(tmp_path):
    project = tmp_path / "p.decipher"
    with Project.create(project) as p:
        import_text(p, write(tmp_path / "ok.txt", "abc\n"))
    before = project.read_bytes()
    with Project.open(project) as p:
        with pytest.raises(InputError):
            import_lost(p, write(tmp_path / "bad.csv", "id,text\nA,ab\nB,c{d\n"))
    assert project.read_bytes() == before


def test_cog_lost_word_with_brackets_is_refused(tmp_path):
    src = write(tmp_path / "x.cog", "uga\theb\nab\tab\nab[d]\tabd\n")
    with pytest.raises(InputError, match="Leiden mark '\\['") as e:
        read_cog(src)
    assert e.value.line == 3


def test_preview_marks_markup_problems_as_the_import_would(tmp_path):
    text = preview_file(write(tmp_path / "t.txt", "ab\n[...]\n"), "text")
    assert [r.problem is None for r in text.rows] == [True, False]
    lost = preview_file(write(tmp_path / "l.csv", "id,text\nA,a{b\n"), "lost")
    assert "'{' that is not closed" in lost.rows[0].problem


def test_bundled_lost_texts_are_unchanged_by_the_reading():
    lists = [ROOT / "resources" / "sample" / "lost.csv", ROOT / "resources" / "sample-gothic" / "lost.csv"]
    lists += sorted(p for p in (ROOT / "tests" / "data").rglob("lost.csv"))
    for path in lists:
        for ins in tables.read_lost(path):
            assert ins.text == normalise_text(ins.raw), (path, ins.id)
    assert len(lists) >= 4
