"""Where Old Norse / Old English stems were lost, and the fixes (issue 13, item 5): the ON stemmer
kept a root's geminate only when no ending was stripped the wrong way round (kunna → kun), the OE
stemmer stripped a non-ending -on (sēon → sē, heofon → heof); and the loss table that counts each
stage. Hand-made tables small enough to count by hand; no ../shared needed."""

from __future__ import annotations

import pytest

from engine.datasets.gothic import build, losses_markdown, main
from engine.datasets.stemmers import english_stem, norse_stem
from tests.conftest import shared_path


@pytest.mark.parametrize("word, stem", [
    # a root's geminate before a stripped ending stays (these four were kun, fyl, ren, ful before)
    ("kunna", "kunn"), ("fylla", "fyll"), ("renna", "renn"), ("fullr", "full"),
    # the nominative -r assimilated to -nn/-ll is still shortened when nothing else was stripped
    ("steinn", "stein"), ("tǫnn", "tǫn"), ("ketill", "ketil"), ("mínn", "mín"),
    # -r only after a consonant (the authors' rule): a root's r after a vowel stays (was vínbe)
    ("vínber", "vínber"), ("sær", "sær"), ("dagr", "dag"), ("úlfr", "úlf"),
    # the authors' one exception, and the ordinary strips
    ("aptr", "aptr"), ("setja", "set"), ("hjalpa", "hjalp"), ("vesa", "ves"), ("sonr", "son"),
])
def test_norse_stemmer_follows_the_authors_rules(word, stem):
    assert norse_stem(word) == stem


@pytest.mark.parametrize("word, stem", [
    ("heofon", "heofon"), ("seofon", "seofon"), ("niġon", "niġon"), ("sēon", "sēon"), ("flēon", "flēon"),
    ("slǣpan", "slǣp"), ("ferian", "fer"), ("sunu", "sun"), ("feoh", "feoh"),
])
def test_english_stemmer_does_not_strip_on(word, stem):
    assert english_stem(word) == stem


# Gothic tokens: kunnan (< *kunnaną), saiƕan (< *sehwaną), dags (< *dagaz), fulls (< *fullaz),
# jah (< *jahw, which lists no ON word), hails (in the table, not linked: its lemma is not here).
CONLL = """\
1\tkunnan\tkunnan\tV
2\tsaiƕan\tsaiƕan\tV
3\tdags\tdags\tN
4\tjah\tjah\tC

1\tfulls\tfulls\tA
2\tkunnan\tkunnan\tV
"""

ETYMOLOGY = """\
COGID,PGMC,WORD,LANGUAGE
1,kunnaną,kunnan,got
1,kunnaną,kunna,non
1,kunnaną,cunnan,ang
2,sehwaną,saihwan,got
2,sehwaną,sjá,non
2,sehwaną,sēon,ang
3,dagaz,dags,got
3,dagaz,dagr,non
3,dagaz,dæġ,ang
4,fullaz,fulls,got
4,fullaz,fullr,non
4,fullaz,full,ang
5,jahw,jah,got
5,jahw,ġe,ang
6,hailaz,hails,got
6,hailaz,heill,non
"""


@pytest.fixture()
def tables(tmp_path):
    conll, etym = tmp_path / "got.conll", tmp_path / "etym.csv"
    conll.write_text(CONLL, encoding="utf-8")
    etym.write_text(ETYMOLOGY, encoding="utf-8")
    return conll, etym


def test_old_norse_geminate_stems_reach_the_vocabulary_and_the_gold(tables):
    conll, etym = tables
    on = build("non", 0, 0, proiel=conll, etymology=etym)
    assert {s.form: s.ipa for s in on.stems} == {"kunn": "kunn", "full": "full"}
    assert sorted((g.token, g.known) for g in on.gold) == [
        ("fulls", ("full",)), ("kunnan", ("kunn",)), ("kunnan", ("kunn",))]


def test_old_english_contracted_infinitive_keeps_its_stem(tables):
    conll, etym = tables
    oe = build("ang", 0, 0, proiel=conll, etymology=etym)
    assert "sēon" in {s.form for s in oe.stems}
    assert ("saiƕan", ("sēon",)) in {(g.token, g.known) for g in oe.gold}


def test_loss_table_counts_each_stage_with_examples(tables):
    conll, etym = tables
    rows = build("non", 0, 0, proiel=conll, etymology=etym).stats["vocabulary_losses"]
    by_stage = {r["stage"]: r for r in rows}
    linking, coverage, sibling, stemming, failed, whole, stemmed, long, unused, kept = rows
    assert linking["stage"].startswith("linking") and linking["lost"] == 1
    assert linking["examples"] == ["heill < *hailaz (Gothic hails)"]
    assert coverage["stage"].startswith("table coverage") and (coverage["lost"], coverage["tokens"]) == (1, 1)  # *jahw
    assert sibling["lost"] == stemming["lost"] == failed["lost"] == long["lost"] == unused["lost"] == 0
    assert "the word itself too" in whole["stage"] and whole["examples"] == ["sjá → sjá /sjaː/ (1 tokens)"]
    assert "after stemming" in stemmed["stage"]
    assert stemmed["examples"] == ["dagr → dag /daɣ/ (1 tokens)"]  # dagr has 4 units, dag 3
    assert (kept["kept"], kept["tokens"]) == (2, 3)
    md = losses_markdown(rows, "Old Norse")
    assert "| **stems in the vocabulary** | **2** kept | 3 gold rows | |" in md
    assert len(by_stage) == 10


def test_cli_prints_the_loss_table(tables, tmp_path, capsys):
    conll, etym = tables
    assert main(["--proiel", str(conll), "--etymology", str(etym), "--known", "non", "--out",
                 str(tmp_path / "on"), "--losses"]) == 0
    out = capsys.readouterr().out
    assert "**Old Norse (non)**" in out and "| table coverage: a linked headword lists no Old Norse word | 1 headwords" in out


@pytest.mark.corpus
def test_full_data_old_norse_keeps_root_geminates():
    proiel = shared_path("gothic_proiel", "gothic-nt.conll")
    etym = shared_path("germanic_etymology", "entirePGMC_daughters.csv")
    cache: dict = {}
    on = build("non", 0, 0, proiel=proiel, etymology=etym, _cache=cache)
    forms = {s.form for s in on.stems}
    assert {"kunn", "fyll", "renn", "full", "vínber", "aptr"} <= forms
    assert len(forms) == 413 and len(on.gold) == 8520
    oe = build("ang", 0, 0, proiel=proiel, etymology=etym, _cache=cache)
    assert {"sēon", "heofon", "seofon", "niġon"} <= {s.form for s in oe.stems}
    assert "heof" not in {s.form for s in oe.stems}


def test_onvocab_runner_refuses_the_grids_results_file(capsys):
    from benchmarks import gothic
    from benchmarks.experiments import gothic_onvocab
    assert gothic_onvocab.main(["--data", "nowhere", "--results", str(gothic.RESULTS)]) == 2
    assert "not the grid's gothic.csv" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--cells", "0,5"], "--cells takes indices 0-2"),
    (["--cells", "a"], "--cells takes indices 0-2"),
    ([], "no lost.csv, known.csv, gold.csv"),
])
def test_onvocab_runner_refuses_bad_cells_and_missing_data_in_one_line(tmp_path, capsys, argv, message):
    from benchmarks.experiments import gothic_onvocab
    assert gothic_onvocab.main(["--data", str(tmp_path / "nowhere"), "--results", str(tmp_path / "r.csv"),
                                *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0]
    assert not (tmp_path / "r.csv").exists()
