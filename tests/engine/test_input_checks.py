"""What the readers let in (issue 9 items 3, 4, 8, 9; issue 14 item 4): text is NFC in every
field, control characters and bad pin weights are refused naming file and line, long cells
round-trip, non-UTF-8 files are named by word with an encoding to try, every unknown IPA symbol is
listed, semicolon/Latin-1 files read with the options, and a preview marks each row's problem."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from engine.cli.main import main as decipher_main
from engine.config import Config
from engine.corpus import GoldAnnotation, Inscription, PinnedValue, Stem
from engine.errors import InputError, PhonologyError
from engine.training.evaluation import gold_targets
from engine.corpus import Corpus
from engine.io import tables
from engine.io.cog import read_cog
from engine.io.wordlist import read_wordlist
from engine.model.prepared import prepare
from engine.project import (Project, export_lost, import_gold, import_known, import_lost,
                            import_prior, import_text)
from engine.cli.project import main as project_main

from .test_project_helpers import sha

NFD = "NFD"
CSV_FIELD_LIMIT = 16 * 1024 * 1024  # engine.io.text.CSV_FIELD_LIMIT (imported in the tests that need it)


def nfd(s: str) -> str:
    return unicodedata.normalize(NFD, s)


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_bytes(text.encode(encoding))
    return path


def is_nfc(s: str) -> bool:
    return unicodedata.is_normalized("NFC", s)


# ---- item 3: NFC everywhere ------------------------------------------------------------------


def test_nfd_gold_still_finds_its_stems(tmp_path):
    """A GOLD file saved in NFD (macOS, some editors) names the same stems as the NFC KNOWN file:
    before, its forms missed every stem and P@k fell to 0 for those rows."""
    known = write(tmp_path / "known.csv", "form,ipa\nbéras,beras\nñokas,ɲokas\n")
    lost = write(tmp_path / "lost.csv", "id,text\nA,abcde fghij\n")
    gold = write(tmp_path / "gold.csv", nfd("inscription_id,start,word_end,known\nA,0,5,béras\nA,6,11,ñokas\n"))
    stems = tables.read_known(known)
    ins = tables.read_lost(lost)
    rows = tables.read_gold(gold, inscriptions=ins)
    assert all(is_nfc(k) for g in rows for k in g.known)
    prep = prepare(Corpus("c", tuple(ins)), stems, Config())
    assert all(targets for targets in gold_targets(prep, rows)), "every gold row must reach its stem"
    from engine.io.goldcheck import check_gold
    assert check_gold(rows, [s.form for s in stems]) == []


def test_every_field_of_every_reader_is_nfc(tmp_path):
    known = tables.read_known(write(tmp_path / "k.csv", nfd("form,ipa,gloss,source\nbéñ,beɲ,glòss,sourcé\n")))
    assert all(is_nfc(v) for s in known for v in (s.form, s.ipa, s.gloss, s.source))
    lost = tables.read_lost(write(tmp_path / "l.csv", nfd("id,text,site\nÁ.1,ár bi,Ensérune\n")))
    assert all(is_nfc(v) for i in lost for v in (i.id, i.text, i.raw, *i.meta, *i.meta.values()))
    pins = tables.read_prior(write(tmp_path / "p.csv", nfd("lost,known_ipa,note\ná,ẽ,nòte\n")))
    assert all(is_nfc(v) for p in pins for v in (p.lost, p.known_ipa, p.note))
    text = tables.read_plain_text(write(tmp_path / "t.txt", nfd("ár bi\n")))
    assert is_nfc(text[0].raw) and is_nfc(text[0].text)
    words = read_wordlist(write(tmp_path / "w.txt", nfd("casé\tglòss\n")), "latin")
    assert is_nfc(words[0].form) and is_nfc(words[0].gloss)
    cog = read_cog(write(tmp_path / "c.cog", nfd("lost\tknown\nbà\tbat\n")), system="semitic",
                   on_unknown="skip")
    assert all(is_nfc(i.id) and is_nfc(i.text) for i in cog.inscriptions)


def test_data_values_are_nfc_whatever_builds_them():
    """The project store and the GUI build values through these constructors: NFC at the root."""
    assert Stem(nfd("béras"), nfd("bẽras"), nfd("glòss"), nfd("é")) == Stem("béras", "bẽras", "glòss", "é")
    assert GoldAnnotation(nfd("Á"), 0, 1, (nfd("é"), "b")).known == ("é", "b")
    assert PinnedValue(nfd("á"), nfd("ẽ"), note=nfd("ò")) == PinnedValue("á", "ẽ", note="ò")
    ins = Inscription(nfd("Á"), nfd("ár"), raw=nfd("ár"), meta={nfd("sé"): nfd("è")})
    assert (ins.id, ins.text, ins.raw, dict(ins.meta)) == ("Á", "ár", "ár", {"sé": "è"})


def test_project_store_reads_nfd_rows_back_as_nfc(tmp_path):
    """Old project files may hold NFD text: what the store reads back is NFC."""
    with Project.create(tmp_path / "p.decipher") as p:
        lid = p.add_language("x", [Stem("be", "be")])
        p.conn.execute("UPDATE stem SET form = ? WHERE language_id = ?", (nfd("bé"), lid))
        assert p.stems(lid)[0].form == "bé"


def test_gold_naming_forms_no_stem_has_warns(tmp_path, capsys):
    f = tmp_path / "p.decipher"
    Project.create(f).close()
    write(tmp_path / "lost.csv", "id,text\nA,abcd efgh\n")
    write(tmp_path / "known.csv", "form,ipa\nabcd,abkd\n")
    gold = write(tmp_path / "gold.csv", "inscription_id,start,word_end,known\nA,0,4,abcd\nA,5,9,efgh|zz\n")
    with Project.open(f) as p:
        import_lost(p, tmp_path / "lost.csv", name="c")
        import_known(p, tmp_path / "known.csv", name="k")
        n = import_gold(p, gold, corpus="c")
        assert n == 2 and [m.form for m in n.missing] == ["efgh", "zz"]
        assert [m.line for m in n.missing] == [3, 3]
        assert len(n.warnings) == 1 and "'efgh' (line 3)" in n.warnings[0] and "'k'" in n.warnings[0]
    assert project_main(["import", str(f), "--gold", str(gold), "--corpus", "c"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("warning: ") and "1 of 2 gold rows" in err[0]


def test_decipher_run_warns_about_gold_forms_no_stem_has(tmp_path, capsys):
    write(tmp_path / "lost.csv", "id,text\nA,abcd efgh\n")
    write(tmp_path / "known.csv", "form,ipa\nabcd,abkd\n")
    write(tmp_path / "gold.csv", "inscription_id,start,word_end,known\nA,5,9,efgh\n")
    code = decipher_main(["run", "--lost", str(tmp_path / "lost.csv"), "--known", str(tmp_path / "known.csv"),
                          "--gold", str(tmp_path / "gold.csv"), "--steps", "1", "--device", "cpu",
                          "--out", str(tmp_path / "out"), "--quiet", "--set", "feature_dim=8",
                          "--set", "eval_interval=0", "--set", "anneal_steps=1"])
    err = capsys.readouterr().err
    assert code == 0
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "'efgh' (line 2)" in warnings[0]


# ---- item 8: control characters ---------------------------------------------------------------


@pytest.mark.parametrize("kind,text,line,needle", [
    ("lost", "id,text\nA,ba\nB,b\x00a\n", 3, "U+0000 (NUL) at column 4"),
    ("known", "form,ipa\nba\x07,ba\n", 2, "U+0007 (BEL)"),
    ("prior", "lost,known_ipa\nb\x1b,b\n", 2, "U+001B (ESC)"),
    ("text", "ba ka\nb\x7fa\n", 2, "U+007F (DEL)"),
    ("lost", "id,text\nA,b\u0085a\n", 2, "U+0085 (a C1 control)"),
    ("lost", "id,text\nA,ba\x0cka\n", 2, "U+000C (FF)"),
])
def test_control_characters_are_refused_and_nothing_is_written(tmp_path, kind, text, line, needle):
    f = tmp_path / "p.decipher"
    Project.create(f).close()
    before = sha(f)
    src = write(tmp_path / "in.csv", text)
    importer = {"lost": import_lost, "known": import_known, "prior": import_prior, "text": import_text}[kind]
    with Project.open(f) as p, pytest.raises(InputError) as e:
        importer(p, src)
    assert e.value.line == line and needle in e.value.problem and e.value.path == str(src)
    assert sha(f) == before


def test_latin1_c1_control_suggests_cp1252(tmp_path):
    src = write(tmp_path / "l.csv", "id,text\nA,\u201cba\u201d\n", "cp1252")
    with pytest.raises(InputError, match="cp1252"):
        tables.read_lost(src, encoding="latin-1")
    assert tables.read_lost(src, encoding="cp1252")[0].text == "\u201cba\u201d"


def test_tabs_and_line_breaks_in_cells_are_still_read(tmp_path):
    src = write(tmp_path / "l.csv", 'id,text\r\nA,"ba\tka\r\nra"\r\n')
    assert tables.read_lost(src)[0].text == "ba ka ra"


# ---- item 4 (PRIOR part): weights --------------------------------------------------------------


@pytest.mark.parametrize("weight", ["inf", "-inf", "nan", "-1", "0", "1e400", "1001", "x"])
def test_bad_pin_weights_are_refused_naming_the_range(tmp_path, weight):
    src = write(tmp_path / "p.csv", f"lost,known_ipa,weight\nb,b,1\nk,k,{weight}\n")
    with pytest.raises(InputError) as e:
        tables.read_prior(src)
    assert e.value.line == 3 and "0 < weight <= 1000" in e.value.problem


def test_pin_weight_range_on_the_command_line(tmp_path, capsys):
    f = tmp_path / "p.decipher"
    Project.create(f).close()
    src = write(tmp_path / "p.csv", "lost,known_ipa,weight\nb,b,inf\n")
    assert project_main(["import", str(f), "--prior", str(src)]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "p.csv, line 2: weight 'inf' is out of range" in err[0]
    assert tables.read_prior(write(tmp_path / "ok.csv", "lost,known_ipa,weight\nb,b,1000\n"))[0].weight == 1000


# ---- item 9: long cells round-trip -------------------------------------------------------------


def test_long_inscription_round_trips_through_export(tmp_path):
    """An inscription longer than Python's default 131,072-character CSV cell, imported as text,
    exports to LOST.csv and imports again."""
    long_line = " ".join(["ba ka ra"] * 40_000)  # 359,999 characters
    assert len(long_line) > 131_072
    with Project.create(tmp_path / "p.decipher") as p:
        cid = import_text(p, write(tmp_path / "long.txt", long_line + "\n"), name="long")
        out = tmp_path / "lost.csv"
        export_lost(p, out, cid)
        again = import_lost(p, out, name="again")
        assert p.inscriptions(again) == p.inscriptions(cid)
        assert len(p.inscriptions(again)[0].text) == len(long_line)


def test_a_cell_over_the_limit_names_the_real_limit(tmp_path):
    from engine.io.text import CSV_FIELD_LIMIT as limit
    assert limit == CSV_FIELD_LIMIT
    src = tmp_path / "huge.csv"
    src.write_text('id,text\nA,"' + "a" * (CSV_FIELD_LIMIT + 1) + '"\n', encoding="utf-8")
    with pytest.raises(InputError) as e:
        tables.read_lost(src)
    assert f"{CSV_FIELD_LIMIT:,}" in e.value.problem and "131" not in e.value.problem
    assert e.value.line == 2


# ---- issue 14 item 4: encodings, delimiters, every unknown symbol ------------------------------


def test_non_utf8_error_names_the_word_and_suggests_latin1(tmp_path):
    src = write(tmp_path / "l.csv", "id,text\nA,ba ka\nB,José ára\n", "latin-1")
    with pytest.raises(InputError) as e:
        tables.read_lost(src)
    msg = e.value.problem
    assert e.value.line == 3 and "'Jos\\xe9'" in msg and "'José'" in msg and "--encoding latin-1" in msg
    assert "offset" not in msg
    assert tables.read_lost(src, encoding="latin-1")[1].text == "José ára"


def test_semicolon_latin1_spreadsheet_export_imports_with_the_options(tmp_path, capsys):
    f = tmp_path / "p.decipher"
    Project.create(f).close()
    src = write(tmp_path / "lost.csv", "id;text;site\nA.1;año, ñu;Sagunt\nA.2;bè;Ullastret\n", "latin-1")
    before = sha(f)
    assert project_main(["import", str(f), "--lost", str(src)]) != 0  # not UTF-8: refused
    assert sha(f) == before and "--encoding latin-1" in capsys.readouterr().err
    assert project_main(["import", str(f), "--lost", str(src), "--delimiter", ";",
                         "--encoding", "latin-1", "--name", "es"]) == 0
    with Project.open(f) as p:
        ins = p.inscriptions(p.corpus_id("es"))
        assert [(i.id, i.text, dict(i.meta)) for i in ins] == [
            ("A.1", "año, ñu", {"site": "Sagunt"}), ("A.2", "bè", {"site": "Ullastret"})]


def test_semicolon_header_is_detected_without_the_option(tmp_path):
    src = write(tmp_path / "l.csv", "id;text\nA;ba, ka\n")
    assert tables.read_lost(src)[0].text == "ba, ka"


def test_utf16_and_bom_files_are_detected(tmp_path):
    for enc in ("utf-16", "utf-8-sig"):
        src = write(tmp_path / f"l-{enc}.csv", "id,text\nA,ár bi\n", enc)
        assert tables.read_lost(src)[0].text == "ár bi"


def test_unknown_encoding_is_an_input_error(tmp_path):
    src = write(tmp_path / "l.csv", "id,text\nA,b\n")
    with pytest.raises(InputError, match="unknown encoding 'klingon'") as e:
        tables.read_lost(src, encoding="klingon")
    assert e.value.path == str(src)


def test_every_unknown_ipa_symbol_is_listed_with_its_line(tmp_path):
    src = write(tmp_path / "k.csv", "form,ipa\nzz,z1z\nok,ok\nqq,a!b2\nrr,r3\n")
    with pytest.raises(PhonologyError) as e:
        tables.read_known(src)
    msg = e.value.problem
    assert e.value.line == 2 and msg.startswith("unknown IPA symbol '1'")
    assert "3 more unknown symbols" in msg
    assert "'!' (U+0021) in 'a!b2' (line 4)" in msg and "'2' (U+0032) in 'a!b2' (line 4)" in msg
    assert "'3' (U+0033) in 'r3' (line 5)" in msg


def test_unknown_ipa_symbols_list_is_capped(tmp_path):
    rows = "".join(f"w{i},a{d}\n" for i, d in enumerate("1234567890" * 3))
    with pytest.raises(PhonologyError) as e:
        tables.read_known(write(tmp_path / "k.csv", "form,ipa\n" + rows))
    assert "29 more unknown symbols" in e.value.problem and "and 10 more" in e.value.problem


# ---- preview -----------------------------------------------------------------------------------


def test_preview_marks_each_problem_row(tmp_path):
    from engine.io.preview import preview_file
    src = write(tmp_path / "k.csv", "form;ipa\nbakar;bakar\nzz;z1z\n;ba\nok;ok\nmore;mor\n")
    pv = preview_file(src, "known", limit=4)
    assert pv.delimiter == ";" and pv.encoding == "utf-8" and pv.header == ("form", "ipa")
    assert [r.line for r in pv.rows] == [2, 3, 4, 5] and pv.more
    assert pv.rows[0].problem is None and pv.rows[3].problem is None
    assert "'1' (U+0031)" in pv.rows[1].problem and pv.rows[2].problem == "empty 'form'"
    assert pv.problems == [(3, pv.rows[1].problem), (4, "empty 'form'")]


def test_preview_of_a_latin1_file_suggests_the_encoding_and_never_raises(tmp_path):
    from engine.io.preview import preview_file
    src = write(tmp_path / "l.csv", "id,text\nA,ba\nB,José\n", "latin-1")
    pv = preview_file(src, "lost")
    assert pv.suggested_encoding == "latin-1" and pv.problem_line == 3 and "not valid UTF-8" in pv.problem
    assert pv.rows[1].problem == pv.problem and pv.rows[0].problem is None
    ok = preview_file(src, "lost", encoding="latin-1")
    assert ok.ok and ok.rows[1].cells == ("B", "José")
    missing = preview_file(write(tmp_path / "m.csv", "id,txt\nA,b\n"), "lost")
    assert "missing column 'text'" in missing.problem and missing.rows[0].cells == ("A", "b")
    assert preview_file(tmp_path, "lost").problem == "is a directory, not a file"


def test_preview_of_plain_text_and_word_lists(tmp_path):
    from engine.io.preview import preview_file
    pv = preview_file(write(tmp_path / "t.txt", "ba ka\n\nb\x00a\n"), "text")
    assert pv.problem_line == 3 and "NUL" in pv.problem and [r.line for r in pv.rows] == [1, 3]
    wl = preview_file(write(tmp_path / "w.txt", "casa\tcasa\nca$a\n"), "wordlist", system="latin")
    assert wl.rows[0].problem is None and "'$'" in wl.rows[1].problem


# ---- issue 52, 8: inputs are regular files (or '-'), of a bounded size -------------------------------


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="POSIX devices")
def test_a_device_a_fifo_and_a_huge_file_are_refused_at_once(tmp_path, capsys, monkeypatch):
    """``--lost /dev/zero`` grew memory ~250 MB/s until killed; ``--lost FIFO`` hung."""
    import io
    import os
    import sys

    from engine.io import text

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.csv"
    with open(huge, "wb") as f:
        f.truncate(text.MAX_INPUT_BYTES + 1)   # sparse: nothing is written
    known = write(tmp_path / "known.csv", "form,ipa\nab,ab\n")
    lost = write(tmp_path / "lost.csv", "id,text\nA,ab\n")
    assert project_main(["new", str(tmp_path / "p.decipher")]) == 0
    capsys.readouterr()
    for bad, said in (("/dev/zero", "is a device, not a regular file"), (str(fifo), "is a FIFO"),
                      (str(huge), "more than the 512 MiB an input file may be")):
        assert decipher_main(["run", "--lost", bad, "--known", str(known), "--out", str(tmp_path / "o"),
                              "--steps", "1"]) == 2
        [line] = capsys.readouterr().err.strip().splitlines()
        assert line.startswith(f"error: {bad}: ") and said in line
        assert project_main(["import", str(tmp_path / "p.decipher"), "--known", bad]) == 2
        assert said in capsys.readouterr().err
        with pytest.raises(InputError, match="regular file|input file may be"):
            Config.from_toml(bad)
        with pytest.raises(InputError, match="regular file|input file may be"):
            text.read_input(bad)
    # '-' reads standard input
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(lost.read_bytes())))
    assert text.read_input("-") == lost.read_bytes()


def test_a_utf8_file_read_as_latin1_is_said_to_be_utf8_not_windows_1252(tmp_path):
    """Issue 51, item 7: the hint named Windows-1252 for any C1 control in a Latin-1 reading; a
    UTF-8 file (ḥ is E1 B8 A5) is UTF-8."""
    import pytest

    from engine.errors import InputError
    from engine.io.text import decode_bytes

    # ā is C4 81: a C1 control read as Latin-1; ṭ is E1 B9 AD: a soft hyphen read as Latin-1
    for text, what in (("ʾabū āmūr", "control character U+0081"), ("šlmḥṭṣdq", "U+00AD (SOFT HYPHEN)")):
        data = f"id,text\nKTU 1.1,{text}\n".encode("utf-8")
        with pytest.raises(InputError) as e:
            decode_bytes(data, "latin-1", path=tmp_path / "u.csv")
        assert what in e.value.problem
        assert "the file is UTF-8" in e.value.problem and "(--encoding utf-8)" in e.value.problem
        assert "Windows-1252" not in e.value.problem and e.value.line == 2
    cp = "id,text\nA1,\u201cabc\u201d\n".encode("cp1252")
    with pytest.raises(InputError) as e:
        decode_bytes(cp, "latin-1")
    assert "may be Windows-1252" in e.value.problem and "(--encoding cp1252)" in e.value.problem
