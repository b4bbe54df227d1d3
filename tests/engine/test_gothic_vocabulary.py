"""The Gothic known vocabulary: the sibling rule (a compound does not stand in for a headword's
plain cognate), the vocabulary and token funnels, and the gold-reach measurement
(benchmarks/gothic_gold.py). Hand-made tables small enough to count by hand."""

from __future__ import annotations

import json

import pytest

from benchmarks import gothic_gold
from engine.datasets.gothic import build, derived_words, main
from engine.datasets.stemmers import english_stem, norse_stem
from tests.conftest import DATA, shared_path

# Gothic tokens: ist, wisan (wisan < *wesaną), himins (< *heminaz), halja (< *haljō), gards (< *gardaz).
CONLL = """\
1\tist\twisan\tV
2\thimins\thimins\tN
3\tgards\tgards\tN

1\thalja\thalja\tN
2\twisan\twisan\tV
"""

# ON lists the compounds vesheill "hale" (ves-heill) under *wesaną, himinríki "heaven-kingdom" under
# *heminaz and helvíti "hell-punishment" under *haljō, beside their simplexes (the first two as in
# the Wiktionary scrape); OE lists hellewīte beside hell. *hailaz has a Gothic word that is not in
# the text.
ETYMOLOGY = """\
COGID,PGMC,WORD,LANGUAGE
1,wesaną,wisan,got
1,wesaną,vesa,non
1,wesaną,vesheill,non
1,wesaną,wesan,ang
2,heminaz,himins,got
2,heminaz,himinn,non
2,heminaz,himinríki,non
2,heminaz,heofon,ang
3,haljō,halja,got
3,haljō,hel,non
3,haljō,helvíti,non
3,haljō,hell,ang
3,haljō,hellewīte,ang
4,gardaz,gards,got
4,gardaz,garðr,non
4,gardaz,geard,ang
5,hailaz,hails,got
5,hailaz,heill,non
"""


@pytest.fixture()
def tables(tmp_path):
    conll = tmp_path / "got.conll"
    etym = tmp_path / "etym.csv"
    conll.write_text(CONLL, encoding="utf-8")
    etym.write_text(ETYMOLOGY, encoding="utf-8")
    return conll, etym


def _gold(ds):
    return {(g.token, g.known) for g in ds.gold}


def test_derived_words_finds_compounds_and_prefixed_forms_of_a_sibling():
    assert derived_words({"vesa", "vesheill"}, norse_stem) == {"vesheill": "vesa"}
    assert derived_words({"hel", "helvíti"}, norse_stem) == {"helvíti": "hel"}
    assert derived_words({"fetan", "ġefetan"}, english_stem) == {"ġefetan": "fetan"}
    assert derived_words({"byre", "ambyre"}, english_stem) == {"ambyre": "byre"}
    # variants and unrelated words are not derived; a lone word never is
    assert derived_words({"hafa", "hefja"}, norse_stem) == {}
    assert derived_words({"vesheill"}, norse_stem) == {}
    assert derived_words({"himinn", "himinríki"}, norse_stem) == {"himinríki": "himinn"}


def test_compound_does_not_stand_in_for_the_cognate(tables):
    conll, etym = tables
    before = build("non", 0, 0, proiel=conll, etymology=etym, sibling_rule=False)
    after = build("non", 0, 0, proiel=conll, etymology=etym)
    # before: every form of wisan has the compound vesheill as its only gold stem
    assert _gold(before) == {("ist", ("vesheil",)), ("wisan", ("vesheil",)), ("himins", ("himin", "himinrík")),
                             ("halja", ("helvít",)), ("gards", ("garð",))}
    # after: himins links to the simplex himinn only; wisan and halja, whose simplexes (ves, hel) are
    # under 4 units, get no gold at all rather than the compound
    assert _gold(after) == {("himins", ("himin",)), ("gards", ("garð",))}
    assert {s.form for s in after.stems} == {"himin", "garð"}
    rule = after.stats["sibling_rule"]
    assert rule["applied"] and rule["gold_links_dropped"] == 3 and rule["gold_links_relinked"] == 1
    assert rule["derived_words"] == ["*haljō: helvíti ⊃ hel", "*heminaz: himinríki ⊃ himinn",
                                     "*wesaną: vesheill ⊃ vesa"]
    assert before.stats["sibling_rule"] == {"applied": False, "gold_links_dropped": 0, "gold_links_relinked": 0,
                                            "derived_words": []}


def test_old_english_compound_is_dropped_too(tables):
    conll, etym = tables
    before = build("ang", 0, 0, proiel=conll, etymology=etym, sibling_rule=False)
    after = build("ang", 0, 0, proiel=conll, etymology=etym)
    # OE hell keeps 4 units (the long l), so halja is linked to the simplex alone
    assert ("halja", ("hell", "hellewīt")) in _gold(before)
    assert ("halja", ("hell",)) in _gold(after)
    assert after.stats["sibling_rule"]["gold_links_relinked"] == 1
    assert after.stats["sibling_rule"]["derived_words"] == ["*haljō: hellewīte ⊃ hell"]


def test_proto_germanic_is_unchanged_by_the_rule(tables):
    conll, etym = tables
    before = build("pgm", 0, 0, proiel=conll, etymology=etym, sibling_rule=False)
    after = build("pgm", 0, 0, proiel=conll, etymology=etym)
    assert _gold(after) == _gold(before) and after.gold
    assert [(s.form, s.ipa) for s in after.stems] == [(s.form, s.ipa) for s in before.stems]
    assert after.stats["sibling_rule"]["derived_words"] == []


def test_funnels_count_each_stage(tables):
    conll, etym = tables
    st = build("non", 0, 0, proiel=conll, etymology=etym).stats
    assert st["vocabulary_funnel"] == {
        "pg_headwords_with_gothic": 5, "pg_headwords_linked": 4,
        "unlinked_word_not_in_corpus": 1, "unlinked_tokens_linked_elsewhere": 0,  # *hailaz: hails is not in the text
        "with_words_in_table": 4, "known_words": 7, "derived_from_a_sibling": 3, "words_kept": 4,
        "distinct_stems": 4, "transcribed": 4, "under_4_units": 2,  # ves, hel
        "over_10_units": 0, "in_range": 2, "used_by_a_token": 2}
    assert st["token_funnel"] == {"tokens_linked": 5, "with_words_in_table": 5,
                                  "with_a_stem_in_range_before_the_sibling_rule": 5, "gold_rows": 2}
    assert st["matched_tokens"] == 2


def test_cli_keep_derived_restores_the_compounds(tables, tmp_path):
    conll, etym = tables
    for flag, out in (([], "after"), (["--keep-derived"], "before")):
        assert main(["--proiel", str(conll), "--etymology", str(etym), "--known", "non", "--out",
                     str(tmp_path / out), "--quiet"] + flag) == 0
    known = {d: (tmp_path / d / "known.csv").read_text(encoding="utf-8") for d in ("before", "after")}
    assert "vesheil" in known["before"] and "vesheil" not in known["after"]
    stats = json.loads((tmp_path / "after" / "stats.json").read_text(encoding="utf-8"))
    assert stats["sibling_rule"]["gold_links_dropped"] == 3


def test_gold_reach_counts_short_words_and_length_gaps(tmp_path):
    (tmp_path / "lost.csv").write_text("id,text\na,istwisanhiminsgardsbandjan\n", encoding="utf-8")
    (tmp_path / "known.csv").write_text("form,ipa\nvesheil,veshei̯l\ngarð,ɡarð\nlong,abcdefghij\n",
                                        encoding="utf-8")
    # ist: 3 letters (short); wisan: 5 letters, vesheil 6 units (reachable); himins: 6 letters, a
    # 10-unit stem (length gap: 4..6 letters are > 2 units away); gards: reachable; bandjan: 7
    # letters, too short for the 10-unit stem but garð (4 units) is also gold (reachable)
    (tmp_path / "gold.csv").write_text(
        "inscription_id,start,word_end,known\na,0,3,vesheil\na,3,8,vesheil\na,8,14,long\na,14,19,garð\n"
        "a,19,26,long|garð\n", encoding="utf-8")
    r = gothic_gold.measure(tmp_path)
    assert (r.stems, r.gold_rows) == (3, 5)
    assert (r.unreachable_short, r.unreachable_length) == (1, 1)
    assert r.unreachable_share == pytest.approx(2 / 5)
    assert r.top_share == 1.0 and r.top_stem_sets[0] == ("vesheil", 2)
    assert gothic_gold.reachable(7, [10], min_span=4, max_span=10, band=2) is False
    assert gothic_gold.reachable(8, [10], min_span=4, max_span=10, band=2) is True
    assert "| 3 | 5 |" in gothic_gold.table([r])


def test_gold_reach_cli_builds_and_measures_three_languages(tmp_path, capsys):
    assert gothic_gold.main(["--build", str(tmp_path / "g"), "--data", str(DATA / "gothic" / "mini")]) == 0
    out = capsys.readouterr().out
    assert [line.split(" | ")[0] for line in out.splitlines()[2:]] == ["| pgm-wr0", "| non-wr0", "| ang-wr0"]


@pytest.mark.corpus
def test_full_data_vesheill_no_longer_stands_in_for_wisan():
    proiel = shared_path("gothic_proiel", "gothic-nt.conll")
    etym = shared_path("germanic_etymology", "entirePGMC_daughters.csv")
    cache: dict = {}
    on = {rule: build("non", 0, 0, proiel=proiel, etymology=etym, sibling_rule=rule, _cache=cache)
          for rule in (False, True)}
    assert "vesheil" in {s.form for s in on[False].stems} and "vesheil" not in {s.form for s in on[True].stems}
    assert not [g for g in on[True].gold if g.lemma.startswith("wisan")]
    assert on[True].stats["sibling_rule"]["gold_links_dropped"] == 1612
    assert len(on[False].gold) - len(on[True].gold) == 1612
    pg = {rule: build("pgm", 0, 0, proiel=proiel, etymology=etym, sibling_rule=rule, _cache=cache)
          for rule in (False, True)}
    assert [(g.inscription_id, g.start, g.known) for g in pg[True].gold] == \
        [(g.inscription_id, g.start, g.known) for g in pg[False].gold]
    assert [s.form for s in pg[True].stems] == [s.form for s in pg[False].stems]
