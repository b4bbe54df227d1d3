"""Warnings instead of silent failure (issue 25 item 5): too many signs for an alphabet, gold rows
the span limits rule out, a run shorter than its annealing schedule; one line each, on the command
line before training."""

from __future__ import annotations

import pytest

from engine import config as config_module
from engine.cli.main import main
from engine.config import Config
from engine.corpus import Corpus, GoldAnnotation, Inscription, Stem, Vocabulary
from engine.io.tables import write_gold, write_known, write_lost
from engine.model.phonology import ipa_units
from engine.model.script import reachable
from engine.runs.warnings import (ALPHABET_SIGNS, alphabet_warning, gold_reach_causes, gold_reach_warning,
                                  run_warnings, schedule_warning)

# 60 distinct signs of the Linear A block (no other test data uses them)
SIGNS = [chr(0x10640 + i) for i in range(60)]


def corpus_of(*texts: str) -> Corpus:
    return Corpus("c", tuple(Inscription(f"i{k}", t) for k, t in enumerate(texts)))


# ---- too many signs ----------------------------------------------------------------------------


def test_more_signs_than_an_alphabet_names_signs_syllables():
    many = corpus_of("".join(SIGNS[:ALPHABET_SIGNS + 1]))
    line = alphabet_warning(many, Config())
    assert line is not None and line.startswith("warning: ")
    assert f"{ALPHABET_SIGNS + 1} distinct signs" in line and "--set signs=syllables" in line
    assert alphabet_warning(many, Config(signs="syllables")) is None, "already syllables: nothing to say"
    # dividers are not signs; ALPHABET_SIGNS signs are still an alphabet
    assert alphabet_warning(corpus_of(" ".join(SIGNS[:ALPHABET_SIGNS])), Config()) is None


def test_the_preset_is_named_only_when_it_exists(monkeypatch):
    many = corpus_of("".join(SIGNS))
    presets = dict(config_module.PRESET_INFO)
    presets.pop("syllabary", None)
    monkeypatch.setattr("engine.runs.warnings.PRESET_INFO", presets)
    assert "syllabary (" not in alphabet_warning(many, Config())
    monkeypatch.setattr("engine.runs.warnings.PRESET_INFO", {**presets, "syllabary": object()})
    # the generic preset, not the one fitted on the Linear B gold (issue 49)
    line = alphabet_warning(many, Config())
    assert "--preset syllabary" in line and "linear-b" not in line


# ---- gold rows the spans cannot reach -----------------------------------------------------------


def _gold_case():
    """Words of 3, 5, 5 and 12 letters; stems: one of each word's length, one too long for band 2."""
    texts = ["abc", "abcde", "abcde", "abcdefghijkl", "abcde"]
    corpus = corpus_of(*texts)
    stems = (Stem("s3", "pat"), Stem("s5", "patak"), Stem("s12", "patakasitumo"),
             Stem("long", "patakasitu"))
    vocab = Vocabulary("k", stems)
    gold = (GoldAnnotation("i0", 0, 3, ("s3",)),        # shorter than min_span 4
            GoldAnnotation("i1", 0, 5, ("s5",)),        # fits
            GoldAnnotation("i2", 0, 5, ("long",)),      # 10 sounds for 5 letters: beyond band 2
            GoldAnnotation("i3", 0, 12, ("s12",)),      # longer than max_span 10
            GoldAnnotation("i4", 0, 5, ("absent",)))    # not in the vocabulary: the gold check's business
    return corpus, vocab, gold


def test_unreachable_gold_rows_are_counted_per_cause_in_one_line():
    corpus, vocab, gold = _gold_case()
    config = Config(min_span=4, max_span=10, segmented=True)
    counted, causes = gold_reach_causes(corpus, vocab, gold, config)
    assert counted == 4
    assert {k: len(v) for k, v in causes.items()} == {"short word": 1, "long word": 1, "long stem": 1}
    line = gold_reach_warning(corpus, vocab, gold, config)
    assert "\n" not in line and line.startswith("warning: 3 of 4 gold rows cannot be matched")
    assert "1 has lost words longer than max_span = 10 letters (raise max_span, to 12 for them all)" in line
    assert "1 has lost words shorter than min_span = 4 letters (lower min_span, to 3 for them all)" in line
    assert "1 has known stems too long for their lost words within band = 2 (raise band, to 5 for them all)" in line
    # the settings it names do reach those rows
    fixed = config.replace(min_span=3, max_span=12, band=5)
    assert gold_reach_warning(corpus, vocab, gold, fixed) is None


def test_the_count_is_what_reachable_says_row_by_row():
    """Under syllables and without segmentation, the rows counted are exactly those for which no span
    from the word's start to at most its end reaches a stem (engine.model.script.reachable)."""
    corpus, vocab, gold = _gold_case()
    units = {s.form: ipa_units(s.ipa) for s in vocab.stems}
    for config in (Config(signs="syllables", min_span=2, max_span=4, band=1),
                   Config(signs="syllables", min_span=4, max_span=6, band=2),
                   Config(min_span=4, max_span=6, band=0)):
        expected = sum(1 for g in gold if g.known[0] in units and not any(
            reachable(n, units[g.known[0]], config) for n in range(1, g.word_end - g.start + 1)))
        _, causes = gold_reach_causes(corpus, vocab, gold, config)
        assert sum(len(v) for v in causes.values()) == expected
        # the band it names for the stems that miss reaches more rows
        for cause in ("long stem", "short stem"):
            needed = [b for b in causes.get(cause, ()) if b is not None]
            if needed:
                assert sum(len(v) for v in causes.values()) > \
                    sum(len(v) for v in gold_reach_causes(corpus, vocab, gold, config.replace(band=max(needed)))[1].values())
        line = gold_reach_warning(corpus, vocab, gold, config)
        assert (line is None) == (expected == 0)
        if line:
            assert line.startswith(f"warning: {expected} of 4 gold rows") and f"signs = {config.signs}" in line


def test_the_band_named_is_the_smallest_that_reaches_the_row():
    from engine.runs.warnings import _band_needed

    stem = ipa_units("patakasitumo")              # 12 units, no onsetless vowel: 12 DP positions
    for config, lengths in ((Config(signs="syllables", min_span=2, max_span=4, band=1), [2, 3, 4]),
                            (Config(signs="syllables", min_span=3, max_span=10, band=0, segmented=True), [3]),
                            (Config(min_span=3, max_span=12, band=0, segmented=True), [9])):
        b = _band_needed(lengths, [stem], config)
        assert b is not None and b > config.band
        assert any(reachable(n, stem, config.replace(band=b)) for n in lengths)
        assert not any(reachable(n, stem, config.replace(band=b - 1)) for n in lengths)
    # letters: a stem longer than max_span is reached by no band
    assert _band_needed([9], [stem], Config(min_span=3, max_span=10, segmented=True)) is None


# ---- a run shorter than its schedule ------------------------------------------------------------


def test_steps_shorter_than_the_schedule_names_where_it_stops():
    line = schedule_warning(Config(steps=500, anneal_steps=2000))
    assert line.startswith("warning: steps = 500 is shorter than anneal_steps = 2000")
    assert "25% of the way" in line
    assert "insertion penalty ends at 0.875 instead of 3.5" in line
    assert "coverage target ends at 0.875 instead of 0.5" in line
    assert "--set anneal_steps=500" in line
    assert "stops less than 1% of the way" in schedule_warning(Config(steps=2, anneal_steps=2000))
    assert schedule_warning(Config(steps=2000, anneal_steps=2000)) is None
    assert schedule_warning(Config(steps=10, anneal_steps=0)) is None
    flat = schedule_warning(Config(steps=5, anneal_steps=10, insertion_cost_end=0.0, coverage_end=1.0))
    assert "25%" not in flat and "50% of the way;" in flat, "no schedule that moves: nothing to name"


def test_run_warnings_collects_each_check_once():
    corpus, vocab, gold = _gold_case()
    many = Corpus("c", corpus.inscriptions + (Inscription("x", "".join(SIGNS)),))
    lines = run_warnings(many, vocab, gold, Config(steps=10, anneal_steps=20, min_span=4, segmented=True))
    assert len(lines) == 3 and all(line.startswith("warning: ") for line in lines)
    assert run_warnings(corpus_of("abcde"), vocab, (), Config()) == []


# ---- on the command line ------------------------------------------------------------------------


@pytest.fixture
def syllabic_files(tmp_path):
    """A lost script of 45 signs, words of 2 to 12 signs, a stem for each: as many sounds as the word
    has signs (known_letters.csv) or twice as many, a CV syllable per sign (known_syllables.csv)."""
    lengths, words, at = [2, 5, 6, 8, 12, 12], [], 0
    for n in lengths:
        words.append("".join(SIGNS[at:at + n]))
        at += n
    lost = [Inscription(f"w{k}", w) for k, w in enumerate(words)]
    gold = [GoldAnnotation(f"w{k}", 0, len(w), (f"s{k}",)) for k, w in enumerate(words)]
    write_lost(tmp_path / "lost.csv", lost)
    write_known(tmp_path / "known_letters.csv", [Stem(f"s{k}", ("pa" * n)[:n]) for k, n in enumerate(lengths)])
    write_known(tmp_path / "known_syllables.csv", [Stem(f"s{k}", "pa" * n) for k, n in enumerate(lengths)])
    write_gold(tmp_path / "gold.csv", gold)
    return tmp_path


def test_decipher_run_prints_the_warnings_before_training(syllabic_files, tmp_path, capsys):
    d = syllabic_files
    code = main(["run", "--lost", str(d / "lost.csv"), "--known", str(d / "known_letters.csv"),
                 "--gold", str(d / "gold.csv"), "--steps", "2", "--segmented", "--device", "cpu",
                 "--out", str(tmp_path / "out"), "--quiet", "--set", "feature_dim=8", "--set", "eval_interval=0",
                 "--set", "min_span=4"])
    assert code == 0
    err = capsys.readouterr().err.splitlines()
    warnings = [line for line in err if line.startswith("warning: ")]
    assert len(warnings) == 3, err
    assert "45 distinct signs" in warnings[0] and "--set signs=syllables" in warnings[0]
    assert warnings[1].startswith("warning: 3 of 6 gold rows cannot be matched")
    assert "2 have lost words longer than max_span = 10 letters (raise max_span, to 12 for them all)" in warnings[1]
    assert "1 has lost words shorter than min_span = 4 letters (lower min_span, to 2 for them all)" in warnings[1]
    assert warnings[2].startswith("warning: steps = 2 is shorter than anneal_steps = 2000")
    # said before training: the summary of the run comes after them
    summary = next(i for i, line in enumerate(err) if line.startswith("2 steps in "))
    assert max(err.index(w) for w in warnings) < summary


def test_decipher_run_with_fitting_settings_warns_of_nothing(syllabic_files, tmp_path, capsys):
    d = syllabic_files
    code = main(["run", "--lost", str(d / "lost.csv"), "--known", str(d / "known_syllables.csv"),
                 "--gold", str(d / "gold.csv"), "--steps", "2", "--segmented", "--device", "cpu", "--out", str(tmp_path / "out"), "--quiet",
                 "--set", "feature_dim=8", "--set", "eval_interval=0", "--set", "anneal_steps=2",
                 "--set", "signs=syllables", "--set", "min_span=2", "--set", "max_span=12"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "warning: " not in err


def test_decipher_run_with_seeds_warns_once_before_any_seed_trains(syllabic_files, tmp_path, capsys, monkeypatch):
    from engine.errors import DecipherError

    def no_training(*args, **kwargs):
        raise DecipherError("no training in this test")

    monkeypatch.setattr("engine.runs.seeds.run_seeds", no_training)
    d = syllabic_files
    code = main(["run", "--lost", str(d / "lost.csv"), "--known", str(d / "known_letters.csv"),
                 "--gold", str(d / "gold.csv"), "--seeds", "0", "1", "--steps", "2", "--segmented",
                 "--out", str(tmp_path / "seeds"), "--set", "min_span=4"])
    err = capsys.readouterr().err.splitlines()
    assert code == 2 and err[-1] == "error: no training in this test"
    warnings = [line for line in err if line.startswith("warning: ")]
    assert len(warnings) == 3 and err[:3] == warnings, err
