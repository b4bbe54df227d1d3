"""engine/datasets/invented.py: a lost language derived from a real vocabulary, in an invented script,
and the manifest of the issue-49 ciphers (benchmarks/cipher_manifest.toml)."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

from engine.corpus import Stem
from engine.datasets.invented import (CHANGE_BY_NAME, LETTERS, derive, five_vowels, make_invented_cipher,
                                      cut_syllables, syllable_sounds, write_cipher)
from engine.errors import DecipherError
from engine.model.phonology import ipa_units

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"

# a small real-looking source: Spanish-like stems in IPA, most frequent first
_WORDS = ("tjera dios padɾe eɾmano xakob kasa tjempo muxeɾ ombɾe sjerbo kamino dezjeɾto monte fweɡo aɡwa "
          "pwebla bendita siete kaβeθa rejna ixo ixa mano kampo kaβalo beɾdad palabɾa nombɾe maðɾe sanɡɾe "
          "kordeɾo piedɾa seɲor batalla oɾiente aɾena nube luθ noʧe maɲana tarde ɡrano fruto arβol rio maɾ "
          "kamello oβeja buei toɾo kabɾa plata oɾo ropa kapa ɡente pweblo siudad kastiʎo muɾo pweɾta").split()
SOURCE = tuple(Stem(w, w, "", "toy") for w in _WORDS)


def toy(script="alphabet", relation="near", wr=0, seed=1, n=40):
    return make_invented_cipher("toy", seed=seed, script=script, relation=relation, wr=wr, n_stems=40,
                                n_fillers=len(SOURCE) - 40, n_inscriptions=n, source_stems=SOURCE)


def test_sound_changes_keep_each_sound_s_origin():
    word = list(zip(ipa_units("kabeθa"), range(6)))
    lenited = derive(word, [CHANGE_BY_NAME["lenition"], CHANGE_BY_NAME["apocope"]])
    assert [u for u, _ in lenited] == ["k", "a", "β", "e", "θ"]
    assert [o for _, o in lenited] == [0, 1, 2, 3, 4]
    palatal = derive(list(zip(ipa_units("kikaɡe"), range(6))), [CHANGE_BY_NAME["palatalisation"]])
    assert [u for u, _ in palatal] == ["t͡ʃ", "i", "k", "a", "d͡ʒ", "e"]
    lost = derive(list(zip(ipa_units("hoha"), range(4))), [CHANGE_BY_NAME["h-loss"]])
    assert lost == list(zip(ipa_units("hoha"), range(4)))  # fewer than 3 sounds would remain: kept
    assert [o for _, o in derive(list(zip(ipa_units("ahora"), range(5))), [CHANGE_BY_NAME["h-loss"]])] == [0, 2, 3, 4]


def test_syllabify_fits_words_to_a_five_vowel_syllabary():
    assert five_vowels("ɛ") == ("e", False) and five_vowels("aː") == ("a", True) and five_vowels("y") == ("i", False)
    assert [five_vowels(v)[0] for v in "ɪʊəɐʌɯæɒ"] == ["i", "u", "e", "a", "o", "u", "a", "a"]
    word = list(zip(ipa_units("strɛnkta"), range(8)))
    syl, origins = cut_syllables(word)
    # s is cut from the onset (only a stop or fricative then a liquid); n the coda; k is lost
    assert [(s.onset, s.vowel, s.coda) for s in syl] == [(("t", "r"), "e", "n"), (("t",), "a", None)]
    assert origins[0] == ((1, 2), 3, 4) and origins[1] == ((6,), 7, None)
    assert [u for u, _ in syllable_sounds(syl, origins)] == ["t", "r", "e", "n", "t", "a"]


@pytest.mark.parametrize("script", ["alphabet", "syllabary"])
def test_gold_spans_are_the_spelt_stems_and_dividers_follow_wr(script):
    c = toy(script, wr=50, n=200)
    again = toy(script, wr=50, n=200)
    assert (c.corpus, c.gold) == (again.corpus, again.gold)   # seeded
    forms = {s.form for s in c.vocabulary.stems}
    texts = {i.id: i.text for i in c.corpus.inscriptions}
    for g in c.gold:
        assert set(g.known) <= forms
        word = texts[g.inscription_id][g.start:g.word_end]
        assert word and " " not in word
        # the stem spelt bare, then its suffix (a syllabary may spell the stem's last sign otherwise
        # before a suffix: a coda written with the suffix's vowel)
        bare = c.spellings[g.known[0]]
        assert word.startswith(bare if script == "alphabet" else bare[:-1]), (g, word, bare)
        assert all(c.spellings[f] == bare for f in g.known)   # stems spelt alike are all right answers
    gaps = sum(len(i.text.split(" ")) - 1 for i in c.corpus.inscriptions)
    words = sum(1 for _ in c.gold)
    assert 0.2 < gaps / max(1, words) < 0.8   # about half the boundaries written (fillers aside)
    assert toy(script, wr=0, n=50).corpus.inscriptions[0].text.count(" ") == 0


def test_alphabet_letters_are_a_scrambled_alphabet_with_their_known_values():
    c = toy("alphabet", relation="near")
    letters = set("".join(i.text for i in c.corpus.inscriptions))
    assert letters <= set(LETTERS)
    assert letters <= set(c.values)   # (a rare sound may not occur in a small sample)
    # near relative: most letters' known value is the sound they write, unless a change moved it
    same = sum(1 for lost, known in c.values.values() if set(lost) & set(known))
    assert same >= 0.6 * len(c.values)
    assert all(unicodedata.is_normalized("NFC", i.text) for i in c.corpus.inscriptions)


def test_syllabary_signs_are_linear_a_code_points_with_onset_and_vowel_values():
    c = toy("syllabary", relation="far")
    signs = set("".join(i.text.replace(" ", "") for i in c.corpus.inscriptions))
    assert all(0x10600 <= ord(s) <= 0x10736 for s in signs)
    assert signs <= set(c.sign_values)
    for sign in signs:        # every sign of the text writes a vowel, which a known vowel descends to
        assert c.sign_values[sign][1], sign
    assert c.known_changes and not set(c.known_changes) & set(c.lost_changes)
    assert c.info["signs"] == len(c.sign_values)


def test_bad_settings_are_refused_in_one_line(tmp_path):
    with pytest.raises(DecipherError, match="script must be one of"):
        toy("runes")
    with pytest.raises(DecipherError, match="word-divider rate"):
        toy(wr=120)
    r = subprocess.run([sys.executable, "-m", "engine", "dataset", "invented", "--source", "spanish", "--wr", "-5",
                        "--out", str(tmp_path / "x"), "--data", str(tmp_path)], capture_output=True, text=True,
                       cwd=ROOT)
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "word-divider rate" in r.stderr
    assert not (tmp_path / "x").exists()


def test_written_files_hold_the_key_and_what_was_drawn(tmp_path):
    c = toy("syllabary")
    write_cipher(c, tmp_path / "c")
    assert (tmp_path / "c" / "settings.toml").read_text(encoding="utf-8").strip().endswith('signs = "syllables"')
    info = json.loads((tmp_path / "c" / "info.json").read_text(encoding="utf-8"))
    assert info["signs"] == len(c.sign_values) and info["lost_changes"]
    key = (tmp_path / "c" / "key.csv").read_text(encoding="utf-8").splitlines()
    assert key[0] == "sign,code_point,lost_sounds,known_sounds,known_onsets,known_vowels"
    assert len(key) == 1 + len(c.values)


def test_manifest_holds_a_held_out_split_fixed_apart_from_dev():
    data = tomllib.loads((ROOT / "benchmarks" / "cipher_manifest.toml").read_text(encoding="utf-8"))
    ciphers = data["cipher"]
    assert len({c["id"] for c in ciphers}) == len(ciphers)
    for script in ("alphabet", "syllabary"):
        test = [c for c in ciphers if c["split"] == "test" and c["script"] == script]
        assert len(test) >= 12
        assert {c["relation"] for c in test} == {"near", "far"} and {c["wr"] for c in test} >= {0, 25, 50}
    dev_sources = {c["source"] for c in ciphers if c["split"] == "dev"}
    test_sources = {c["source"] for c in ciphers if c["split"] == "test"}
    assert not dev_sources & test_sources
    ids = {c["id"]: c for c in ciphers}
    for ctl in data["control"]:
        of = ids[ctl["of"]]
        assert ctl["split"] == of["split"] and ctl["known"] != of["source"]
        assert ctl["known"] in (test_sources if of["split"] == "test" else dev_sources)


@pytest.mark.corpus
@pytest.mark.skipif(not (DATA / "genesis").is_dir(), reason="needs ../shared/data/genesis (the Genesis word lists)")
def test_a_real_source_gives_a_syllabary_of_50_to_200_signs():
    c = make_invented_cipher("latin", seed=1, script="syllabary", relation="near", wr=25, n_inscriptions=300)
    assert 50 <= c.info["signs"] <= 200
    assert len(c.vocabulary.stems) >= 590
    lengths = Counter(g.word_end - g.start for g in c.gold)
    assert sum(lengths.values()) > 500 and min(lengths) >= 1
