"""The Gothic dataset builder (engine/datasets): stemmers, whitespace ratio, gold offsets, sample.

Fast tests run on the excerpts in tests/data/gothic/mini and on the bundled sample in
tests/data/gothic; tests on the full corpora skip when ../shared/data is absent.
"""

from __future__ import annotations

import csv
import json

import pytest

from engine.corpus import DIVIDER
from engine.datasets import gothic
from engine.datasets.gothic import (build, chunk_sentences, clean_form, lemma_parts, locate_base, main,
                                    read_proiel, render_chunks, split_balanced)
from engine.datasets.stemmers import english_stem, gothic_stem, norse_stem, pg_stem
from engine.errors import InputError
from engine.io.tables import read_gold, read_known, read_lost
from tests.conftest import DATA, shared_path

GOTHIC = DATA / "gothic"
MINI = GOTHIC / "mini"
MINI_CONLL = MINI / "gothic_proiel" / "gothic-nt.conll"
MINI_ETYM = MINI / "germanic_etymology" / "entirePGMC_daughters.csv"


# --------------------------------------------------------------------------------------------
# stemmers


@pytest.mark.parametrize("word, stem", [
    ("dagaz", "dag"), ("wulfaz", "wulf"), ("habjaną", "hab"), ("þankijaną", "þank"), ("gumô", "gum"),
    ("sunuz", "sun"), ("mann-", "mann"), ("frijaz", "fri"), ("brōþēr", "brōþ"), ("salbōną", "salb"),
    ("hailagaz", "hailag"), ("*kunnaną", "kunn"), ("managį̄", "manag"), ("gebō", "geb"), ("hertǭ", "hert"),
    ("aftrą", "aftr"), ("fram", "fram"),
])
def test_pg_stemmer(word, stem):
    assert pg_stem(word) == stem


@pytest.mark.parametrize("word, stem", [
    ("dags", "dag"), ("saiƕaina", "saiƕ"), ("gumins", "gum"), ("nam", "nam"), ("himinam", "himin"),
    ("galaubjats", "galaubj"), ("waurd", "waurd"), ("sandjandin", "sandj"), ("spillodedeina", "spill"),
    ("haitada", "hait"), ("ist", "ist"), ("was", "was"), ("barn", "barn"),
])
def test_gothic_stemmer(word, stem):
    assert gothic_stem(word) == stem


@pytest.mark.parametrize("fn, word, stem", [
    (norse_stem, "dagr", "dag"), (norse_stem, "hjalpa", "hjalp"), (norse_stem, "tǫnn", "tǫn"),
    (norse_stem, "setja", "set"), (norse_stem, "sonr", "son"),
    (english_stem, "slǣpan", "slǣp"), (english_stem, "ferian", "fer"), (english_stem, "feoh", "feoh"),
    (english_stem, "sunu", "sun"),
])
def test_norse_and_english_stemmers(fn, word, stem):
    assert fn(word) == stem


def test_stemmer_strips_suffixes_not_character_sets():
    # str.rstrip("az") would also eat the root's final a/z; the stemmer must not
    assert pg_stem("aza") == "aza"
    assert pg_stem("ganaz") == "gan"


# --------------------------------------------------------------------------------------------
# normalisation and prefixes


def test_clean_form_and_lemma_parts():
    assert clean_form("Iesus") == "iesus"
    assert clean_form("ïnsandida") == "insandida"
    assert clean_form("ga-laubjats") == "galaubjats"
    assert clean_form("·ib·") is None
    with pytest.raises(InputError):
        clean_form("ab3")
    assert lemma_parts("ga-saiƕan") == ("ga", "saiƕan")
    assert lemma_parts("manna#2") == ("manna",)
    assert lemma_parts("magan*") == ("magan",)
    assert lemma_parts("wáila") == ("waila",)
    assert lemma_parts("jūs") == ("jus",)
    assert gothic.match_key("𐌲𐌰𐍃𐌰𐌹𐍈𐌰𐌽") == gothic.match_key("gasaiƕan") == gothic.match_key("gasaihwan")
    assert gothic.descendant_key("*hroþs") == "hroþs"
    assert gothic.descendant_key("ga-") is None and gothic.descendant_key("-iggs") is None


@pytest.mark.parametrize("form, prefixes, base, start", [
    ("gasaiƕaina", ("ga",), "saiƕan", 2),
    ("uzuhiddja", ("us",), "gaggan", 2),
    ("urrann", ("us",), "rinnan", 2),
    ("gaulaubjats", ("ga",), "laubjan", 3),
    ("andhof", ("and",), "hafjan", 3),
    ("iddja", ("us",), "gaggan", None),
])
def test_locate_base(form, prefixes, base, start):
    assert locate_base(form, prefixes, base) == start


@pytest.mark.parametrize("head, prefix, has", [
    ("gahabjaną", "ga", True), ("uzreisaną", "ur", True), ("uzgebaną", "us", True), ("gerdaną", "uf", False),
    ("furaikweþaną", "faura", True), ("abanemaną", "af", True), ("sandijaną", "in", False),
])
def test_pg_has_prefix(head, prefix, has):
    assert gothic.pg_has_prefix(head, prefix) is has


def test_link_token_places_the_stem_after_a_prefix_the_pg_word_lacks():
    etym = gothic.Etymology(gothic={"ufgairdan": {"gerdaną"}, "galaubjan": {"galaubijaną"},
                                    "sandjan": {"sandijaną"}, "izwis": {"izwiz"}},
                            gothic_words={}, daughters={})

    def link(form, lemma):
        tok = gothic.Token(form, form, lemma, lemma_parts(lemma))
        found, _ = gothic.link_token(tok, etym)
        return None if found is None else [(g.stem_start, g.how, sorted(g.headwords)) for g in found.groups]

    assert link("ufgaurdanai", "uf-gairdan") == [(2, "after-prefix", ["gerdaną"])]
    assert link("galaubidedun", "ga-laubjan") == [(0, "word", ["galaubijaną"])]
    assert link("insandida", "in-sandjan") == [(2, "after-prefix", ["sandijaną"])]
    assert link("izwis", "jūs") == [(0, "form", ["izwiz"])]
    assert link("qam", "qiman") is None


def test_split_balanced():
    assert split_balanced([5] * 10, 100) == [10]
    sizes = split_balanced([10] * 25, 100)  # 250 letters -> 3 pieces of 80-90
    assert len(sizes) == 3 and sum(sizes) == 25 and max(sizes) * 10 <= 90
    assert split_balanced([120, 5], 100) == [1, 1]  # an over-long word is a piece of its own


# --------------------------------------------------------------------------------------------
# the builder on the mini excerpts


@pytest.fixture(scope="module")
def mini_cache():
    return {}


def mini(known="pgm", wr=0, seed=0, cache=None):
    return build(known, wr, seed, proiel=MINI_CONLL, etymology=MINI_ETYM, _cache=cache)


def _space_word_indices(text: str, tokens: list[str]) -> set[int]:
    """Which boundaries (1 = between word 0 and word 1 …) carry a space in ``text``."""
    kept = set()
    pos = 0
    for i, t in enumerate(tokens):
        if i > 0 and text[pos:pos + 1] == DIVIDER:
            kept.add(i)
            pos += 1
        assert text[pos:pos + len(t)] == t
        pos += len(t)
    assert pos == len(text)
    return kept


def test_mini_corpus_reads_and_chunks():
    stats = gothic.CorpusStats()
    sentences = read_proiel(MINI_CONLL, stats)
    assert stats.numerals_dropped == 1  # ·ib· in sentence 241
    assert len(sentences) == 9
    chunks, dropped = chunk_sentences(sentences)
    assert dropped == 0
    assert all(c.letters <= 100 for c in chunks)
    long_ones = [c.id for c in chunks if c.sentence == 8]  # the 234-letter sentence 49 of the file
    assert long_ones == ["s0008.1", "s0008.2", "s0008.3"]


def test_wr_0_writes_no_spaces_and_wr_100_every_boundary(mini_cache):
    zero = mini(wr=0, cache=mini_cache)
    full = mini(wr=100, cache=mini_cache)
    assert all(DIVIDER not in i.text for i in zero.inscriptions)
    assert zero.stats["spaces_written"] == 0
    assert full.stats["spaces_written"] == full.stats["word_boundaries"] > 0
    chunks, _ = chunk_sentences(read_proiel(MINI_CONLL))
    for ch, ins in zip(chunks, full.inscriptions):
        assert ins.text == DIVIDER.join(t.form for t in ch.tokens)
    assert [i.id for i in zero.inscriptions] == [i.id for i in full.inscriptions]
    assert len(zero.gold) == len(full.gold)


def test_wr_is_seeded_and_nested(mini_cache):
    chunks, _ = chunk_sentences(read_proiel(MINI_CONLL))
    kept = {}
    for wr in (25, 50, 75):
        kept[wr] = {ch.id: _space_word_indices(text, [t.form for t in ch.tokens])
                    for ch, text, _ in render_chunks(chunks, wr, seed=3)}
    for cid in kept[25]:
        assert kept[25][cid] <= kept[50][cid] <= kept[75][cid]
    total = sum(len(c.tokens) - 1 for c in chunks)
    n50 = sum(len(v) for v in kept[50].values())
    assert 0.3 * total < n50 < 0.7 * total
    again = {ch.id: text for ch, text, _ in render_chunks(chunks, 50, seed=3)}
    other = {ch.id: text for ch, text, _ in render_chunks(chunks, 50, seed=4)}
    first = {ch.id: text for ch, text, _ in render_chunks(chunks, 50, seed=3)}
    assert again == first and other != first
    with pytest.raises(InputError):
        list(render_chunks(chunks, 120, seed=0))


@pytest.mark.parametrize("wr", [0, 50, 100])
def test_gold_offsets_match_the_text(mini_cache, wr):
    ds = mini(wr=wr, cache=mini_cache)
    text = {i.id: i.text for i in ds.inscriptions}
    forms = {s.form for s in ds.stems}
    assert ds.gold
    for g in ds.gold:
        t = text[g.inscription_id]
        span = t[g.start:g.word_end]
        assert DIVIDER not in span
        assert g.token.endswith(span)  # the word, or the word after its prefix
        assert g.word_end == len(t) or wr != 100 or t[g.word_end] == DIVIDER
        assert t[g.start:g.stem_end] == gothic_stem(span)  # the gold span starts with the token's stem
        assert set(g.known) <= forms
    # the prefixed verb ga-sibjon (PG *sibjō): its stem starts after ga-
    row = next(g for g in ds.gold if g.token == "gasibjon")
    assert row.how == "after-prefix"
    assert text[row.inscription_id][row.start:row.word_end] == "sibjon"
    assert row.known == ("sibj",)


def test_known_stems_have_4_to_10_units(mini_cache):
    from engine.model.phonology import ipa_units
    for known in ("pgm", "non", "ang"):
        ds = mini(known, cache=mini_cache)
        assert ds.stems and ds.stats["transcription_failures"] == 0
        assert all(4 <= len(ipa_units(s.ipa)) <= 10 for s in ds.stems)
        used = {f for g in ds.gold for f in g.known}
        assert used == {s.form for s in ds.stems}  # every stem matches at least one token


def test_cli_writes_files_the_engine_reads(tmp_path):
    rc = main(["--data", str(MINI), "--known", "pgm", "--wr", "50", "--seed", "1", "--out", str(tmp_path / "d"),
               "--quiet"])
    assert rc == 0
    d = tmp_path / "d"
    for name in ("lost.csv", "known.csv", "gold.csv", "README.md", "ATTRIBUTION.md", "stats.json"):
        assert (d / name).is_file()
    ins = read_lost(d / "lost.csv")
    stems = read_known(d / "known.csv")
    gold = read_gold(d / "gold.csv", inscriptions=ins)
    assert {f for g in gold for f in g.known} <= {s.form for s in stems}
    stats = json.loads((d / "stats.json").read_text(encoding="utf-8"))
    assert stats["whitespace_ratio"] == 50 and stats["matched_tokens"] == len(gold)
    readme = (d / "README.md").read_text(encoding="utf-8")
    assert "CC BY-SA" in readme and "non-commercial" in readme.lower()


def test_cli_several_settings_and_errors(tmp_path, capsys):
    assert main(["--data", str(MINI), "--known", "pgm,non", "--wr", "0,100", "--out", str(tmp_path), "--quiet"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["non-wr0", "non-wr100", "pgm-wr0", "pgm-wr100"]
    assert main(["--data", str(tmp_path / "nowhere"), "--out", str(tmp_path / "x")]) == 2
    assert "file not found" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--known", "xyz", "--out", str(tmp_path)])


def test_untranscribable_stem_is_reported_not_dropped_silently(tmp_path):
    etym = tmp_path / "etym.csv"
    rows = MINI_ETYM.read_text(encoding="utf-8").splitlines()
    rows.append("99999,garð@az,gards,got")  # '@' is no PG letter; gards is a lemma of the excerpt
    etym.write_text("\n".join(rows) + "\n", encoding="utf-8")
    ds = build("pgm", 0, 0, proiel=MINI_CONLL, etymology=etym)
    assert ds.stats["transcription_failures"] == 1
    assert ds.stats["transcription_failure_list"][0].startswith("garð@:")
    assert "garð@" not in {s.form for s in ds.stems}


# --------------------------------------------------------------------------------------------
# the bundled sample


def test_bundled_sample_is_small_consistent_and_attributed():
    files = [p for p in GOTHIC.rglob("*") if p.is_file()]
    assert sum(p.stat().st_size for p in files) <= 60_000
    ins = read_lost(GOTHIC / "lost.csv")
    stems = read_known(GOTHIC / "known.csv")
    gold = read_gold(GOTHIC / "gold.csv", inscriptions=ins)
    assert 60 <= len(ins) <= 100 and 150 <= len(stems) <= 200 and gold
    forms = {s.form for s in stems}
    text = {i.id: i.text for i in ins}
    with open(GOTHIC / "gold.csv", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            span = text[row["inscription_id"]][int(row["start"]):int(row["word_end"])]
            assert row["token"].endswith(span)
            assert set(row["known"].split("|")) <= forms
    attribution = (GOTHIC / "ATTRIBUTION.md").read_text(encoding="utf-8")
    for needed in ("PROIEL", "Wulfila", "Wiktionary", "CC BY-SA", "non-commercial"):
        assert needed.lower() in attribution.lower()


# --------------------------------------------------------------------------------------------
# the full corpora


@pytest.fixture(scope="module")
def full_pgm():
    proiel = shared_path("gothic_proiel", "gothic-nt.conll")
    etym = shared_path("germanic_etymology", "entirePGMC_daughters.csv")
    return build("pgm", 0, 0, proiel=proiel, etymology=etym)


@pytest.mark.corpus
def test_full_pgm_counts_near_the_paper(full_pgm):
    st = full_pgm.stats
    assert st["sentences"] == 5457 and st["transcription_failures"] == 0
    assert 550 <= st["stems"] <= 750  # paper: 613
    assert 8_000 <= st["matched_tokens"] <= 13_000  # paper: 7,883 (of a 40,518-token corpus; ours has 56k)
    assert all(len(i.text) <= 100 for i in full_pgm.inscriptions)


@pytest.mark.corpus
def test_bundled_sample_is_reproducible(full_pgm, tmp_path):
    shared_path("gothic_proiel", "gothic-nt.conll")
    main(["--known", "pgm", "--wr", "0", "--seed", "0", "--sample", "80", "--out", str(tmp_path), "--quiet"])
    for name in ("lost.csv", "known.csv", "gold.csv"):
        assert (tmp_path / name).read_text(encoding="utf-8") == (GOTHIC / name).read_text(encoding="utf-8"), name


@pytest.mark.parametrize("known", ["pgm", "non", "ang"])
def test_vocabulary_funnel_counts_each_stage_down_to_the_stems_used(known, mini_cache):
    ds = mini(known, cache=mini_cache)
    f = ds.stats["vocabulary_funnel"]
    stages = [f["pg_headwords_linked"], f["with_words_in_table"]]
    assert stages[0] >= stages[1] > 0
    assert f["distinct_stems"] <= f["known_words"] and f["transcribed"] <= f["distinct_stems"]
    assert f["under_4_units"] + f["in_range"] + f["over_10_units"] == f["transcribed"]
    assert f["used_by_a_token"] == len(ds.stems) <= f["in_range"]
    if known == "pgm":  # every PG headword is its own known word
        assert f["with_words_in_table"] == f["known_words"] == f["pg_headwords_linked"]
