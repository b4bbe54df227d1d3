"""The synthetic syllabary cipher (issue 25 item 6): well-formed, the same for a seed in any process,
its spelling rules drawn from the seed, every gold pair reachable under the settings it states, and
its files read by the readers every run uses. No training here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli.main import main
from engine.config import Config
from engine.corpus import DIVIDER, split_units
from engine.datasets.synthetic_syllabary import (CLUSTER, CODE_POINTS, FINAL_CODA, INNER_CODA, LENGTH, MAX_GAP,
                                                 NULL_ONSET, VOWELS, Syllable, count_right, ipa_of,
                                                 make_syllabary_cipher, spell_cells, write_dataset)
from engine.io.goldcheck import check_gold
from engine.io.tables import read_gold, read_known, read_lost
from engine.model.phonology import ipa_units
from engine.model.script import reachable
from engine.runs.inputs import inputs_from_files
from engine.runs.warnings import gold_reach_warning

ROOT = Path(__file__).resolve().parents[2]
SMALL = dict(n_stems=120, n_inscriptions=60)


@pytest.fixture(scope="module")
def cipher():
    return make_syllabary_cipher(seed=0, **SMALL)


@pytest.fixture(scope="module")
def folder(cipher, tmp_path_factory):
    out = tmp_path_factory.mktemp("syllabary")
    write_dataset(cipher, out)
    return out


# ---- well-formed ------------------------------------------------------------------------------


def test_the_syllabary_has_one_sign_per_cell_of_its_grid(cipher):
    rules, values = cipher.rules, cipher.sign_values()
    assert len(values) == len(cipher.signs) == 5 * (len(rules.rows) + 1), "a row per consonant series + bare vowels"
    assert all(ord(s) in CODE_POINTS for s in values), "every sign in the Linear A block"
    cells = {(v.onsets, v.vowel) for v in values.values()}
    assert len(cells) == len(values), "no two signs share a cell"
    assert {v.vowel for v in values.values()} == set(VOWELS)
    consonants = set(cipher.language.consonants)
    for v in values.values():
        assert v.onsets[0] == NULL_ONSET or set(v.onsets) <= consonants
    written = {c for row in rules.rows for c in row}
    assert written | ({rules.silent} if rules.silent else set()) == consonants, "every consonant has a row or is silent"
    assert 12 <= len(consonants) <= 17


def test_every_sign_written_is_a_sign_of_the_table_and_spells_its_cell(cipher):
    values = cipher.sign_values()
    for ins in cipher.cognates.inscriptions + cipher.running.inscriptions:
        assert DIVIDER not in ins.text and set(ins.text) <= set(values)
        assert len(split_units(ins.text)) == len(ins.text), "each sign is one unit (outside the BMP: one code point)"
    # a stem's first spelling is its cells under the rules, each sign's true value its cell
    for form, spelt in cipher.spellings.items():
        word = cipher.words[form]
        assert ipa_of(word) == form and ipa_units(form) and 2 <= len(word) <= 4
        cells = spell_cells(word, cipher.rules)
        assert len(cells) == len(spelt[0])
        for (consonant, vowel), sign in zip(cells, spelt[0]):
            value = values[sign]
            assert value.vowel == vowel
            assert value.onsets[0] == NULL_ONSET if consonant is None else consonant in value.onsets


def test_the_cognate_set_pairs_every_spelling_with_its_stems(cipher):
    forms = cipher.vocabulary.forms()
    assert len(forms) == len(cipher.vocabulary.stems) == SMALL["n_stems"], "stems are distinct"
    gold = {g.inscription_id: g for g in cipher.cognate_gold}
    assert len(gold) == len(cipher.cognates.inscriptions)
    texts = [ins.text for ins in cipher.cognates.inscriptions]
    assert len(set(texts)) == len(texts), "words spelt alike are one lost word"
    seen = set()
    for ins in cipher.cognates.inscriptions:
        g = gold[ins.id]
        assert (g.start, g.word_end) == (0, len(ins.text)) and set(g.known) <= forms
        for form in g.known:
            assert ins.text in cipher.spellings[form]
        seen.update(g.known)
    assert seen == forms, "every stem has a lost word"
    assert any(len(s) == 2 for s in cipher.spellings.values()), "some stems are spelt two ways"


def test_the_running_text_has_gold_spans_and_fillers_between_them(cipher):
    by_id = {ins.id: ins.text for ins in cipher.running.inscriptions}
    covered = 0
    last: dict[str, int] = {}
    for g in cipher.running_gold:
        text = by_id[g.inscription_id]
        assert 0 <= g.start < g.word_end <= len(text) and g.start >= last.get(g.inscription_id, 0)
        last[g.inscription_id] = g.word_end
        for form in g.known:
            assert text[g.start:g.word_end] in cipher.spellings[form]
        covered += g.word_end - g.start
    total = sum(len(t) for t in by_id.values())
    assert 0.6 * total < covered < total, "most of the text is vocabulary words, some is filler"
    assert cipher.fillers and not set(cipher.fillers) & cipher.vocabulary.forms()


def test_count_right_counts_signs_given_their_true_value(cipher):
    truth = {s.sign: (s.onsets[-1], s.vowel) for s in cipher.signs}
    assert count_right(cipher, truth) == len(cipher.signs)
    wrong_vowel = {s: (o, VOWELS[(VOWELS.index(v) + 1) % 5]) for s, (o, v) in truth.items()}
    assert count_right(cipher, wrong_vowel) == 0
    half = dict(list(truth.items())[:10])
    assert count_right(cipher, half) == 10


# ---- determinism and rules drawn from the seed ------------------------------------------------


def test_a_seed_gives_the_same_files_in_any_process(tmp_path):
    """The CLI, twice, in processes with different string hashing: byte-identical files."""
    outs = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"h{hash_seed}"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
        r = subprocess.run([sys.executable, "-m", "engine.cli", "dataset", "synthetic-syllabary", "--seed", "5",
                            "--stems", "80", "--inscriptions", "30", "--out", str(out)],
                           capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
        assert r.returncode == 0, r.stderr
        assert r.stderr.startswith("synthetic syllabary seed 5: ") and r.stdout == ""
        outs.append(out)
    files = sorted(p.relative_to(outs[0]) for p in outs[0].rglob("*") if p.is_file())
    assert len(files) == 10
    for f in files:
        assert (outs[0] / f).read_bytes() == (outs[1] / f).read_bytes(), f
    assert make_syllabary_cipher(seed=5, n_stems=80, n_inscriptions=30) == \
        make_syllabary_cipher(seed=5, n_stems=80, n_inscriptions=30)


def test_seeds_draw_different_spelling_systems():
    ciphers = [make_syllabary_cipher(seed=s, n_stems=40, n_inscriptions=5) for s in range(30)]
    assert ciphers[0].rules != ciphers[1].rules
    assert len({c.rules for c in ciphers}) >= 25
    for name, options in (("final_coda", FINAL_CODA), ("inner_coda", INNER_CODA), ("cluster", CLUSTER),
                          ("length", LENGTH)):
        assert {getattr(c.rules, name) for c in ciphers} == set(options), name
    assert {len(c.rules.merged()) for c in ciphers} >= {0, 1, 2}
    assert {c.rules.silent is None for c in ciphers} == {True, False}
    # one word (tra.koːs.men) spelt by the thirty systems: in many ways
    word = (Syllable(("t", "r"), "a"), Syllable(("k",), "o", True, "s"), Syllable(("m",), "e", False, "n"))
    assert len({spell_cells(word, c.rules) for c in ciphers}) >= 10


# ---- reachable under the stated settings ------------------------------------------------------


@pytest.mark.parametrize("part, segmented", [("cognates", True), ("running", False)])
def test_every_gold_pair_is_reachable_under_the_stated_settings(cipher, folder, part, segmented):
    config = Config.from_toml(folder / part / "settings.toml")
    assert config.signs == "syllables" and config.segmented is segmented
    assert config.band <= MAX_GAP and config.max_span <= 16
    ipa = {s.form: s.ipa for s in cipher.vocabulary.stems}
    gold = cipher.cognate_gold if segmented else cipher.running_gold
    for g in gold:
        for form in g.known:
            assert reachable(g.word_end - g.start, ipa_units(ipa[form]), config), (g, form)
    corpus = cipher.cognates if segmented else cipher.running
    assert gold_reach_warning(corpus, cipher.vocabulary, gold, config) is None
    # and the warning does see them lost under the letter model's defaults
    assert gold_reach_warning(corpus, cipher.vocabulary, gold, Config(segmented=segmented)) is not None


# ---- the files --------------------------------------------------------------------------------


@pytest.mark.parametrize("part", ["cognates", "running"])
def test_the_files_read_back_with_the_run_readers(cipher, folder, part):
    d = folder / part
    inscriptions = read_lost(d / "lost.csv")
    corpus = cipher.cognates if part == "cognates" else cipher.running
    gold = cipher.cognate_gold if part == "cognates" else cipher.running_gold
    assert [(i.id, i.text) for i in inscriptions] == [(i.id, i.text) for i in corpus.inscriptions]
    stems = read_known(d / "known.csv")
    assert [(s.form, s.ipa) for s in stems] == [(s.form, s.ipa) for s in cipher.vocabulary.stems]
    rows = read_gold(d / "gold.csv", inscriptions=inscriptions)
    assert list(rows) == list(gold)
    assert check_gold(rows, (s.form for s in stems)) == []
    inputs = inputs_from_files(d / "lost.csv", d / "known.csv", Config.from_toml(d / "settings.toml"),
                               gold=d / "gold.csv")
    assert len(inputs.gold) == len(gold) and inputs.config.signs == "syllables"


def test_signs_csv_records_each_signs_true_value(cipher, folder):
    import csv

    with open(folder / "signs.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(cipher.signs)
    values = cipher.sign_values()
    for r in rows:
        v = values[r["sign"]]
        assert r["code_point"] == f"U+{ord(r['sign']):04X}" and r["vowel"] == v.vowel
        assert tuple(r["onsets"].split("|")) == v.onsets


def test_bad_options_are_one_line_and_exit_2(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["dataset", "synthetic-syllabary", "--out", str(blocker), "--stems", "10"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(blocker) in err and err.startswith("error: ")
    assert main(["dataset", "synthetic-syllabary", "--out", str(tmp_path / "x"), "--stems", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "at least 1 stem" in err and not (tmp_path / "x").exists()
