"""The script kind as one object (engine/model/script.py): chosen from the setting signs, kept by the
prepared problem, answering what the run asks of the kind (DP lengths, stems, pins, the mapping)."""
from __future__ import annotations

import typing

import pytest
import torch

from engine.config import Config, Signs
from engine.corpus import Corpus, Inscription, PinnedValue, Stem, Vocabulary
from engine.errors import InputError
from engine.model.mapping import CharMapping
from engine.model.phonology import ipa_units
from engine.model.prepared import prepare
from engine.model.script import LETTERS, SCRIPTS, SYLLABLES, script_of
from engine.model.syllable_mapping import SyllableMapping, make_mapping
from engine.model.syllables import NULL_ONSET

WORDS = ["pata", "kilo", "amu", "sena"]


def problem():
    corpus = Corpus("c", tuple(Inscription(f"w{i}", w) for i, w in enumerate(WORDS)))
    return corpus, Vocabulary("known", tuple(Stem(w, w) for w in WORDS))


def test_every_value_of_the_setting_has_its_script():
    assert set(SCRIPTS) == set(typing.get_args(Signs))
    assert script_of(Config()) is LETTERS and script_of(Config(signs="syllables")) is SYLLABLES
    assert (LETTERS.unit, SYLLABLES.unit) == ("letters", "signs")


def test_the_prepared_problem_asks_the_script_of_its_settings():
    corpus, vocab = problem()
    letters = prepare(corpus, vocab, Config(min_span=1, max_span=4, band=2))
    syllables = prepare(corpus, vocab, Config(signs="syllables", min_span=1, max_span=4, band=2))
    assert letters.script is LETTERS and syllables.script is SYLLABLES
    assert NULL_ONSET in syllables.known_units and NULL_ONSET not in letters.known_units
    assert type(make_mapping(letters)) is CharMapping and type(make_mapping(syllables)) is SyllableMapping
    # the stem table holds the DP's units: "amu" gets a null onset before its onsetless a
    v = syllables.entries_by_units()[tuple(ipa_units("amu"))]
    assert int(syllables.stem_len[v]) == 4 and int(letters.stem_len[letters.entries_by_units()[tuple("amu")]]) == 3
    # a settings object put on the problem later is the one asked
    letters.config = letters.config.replace(signs="syllables")
    assert letters.script is SYLLABLES


def test_spans_and_stems_in_dp_positions():
    cfg = Config(signs="syllables", min_span=1, max_span=3, band=1)
    assert SYLLABLES.dp_length(3) == 6 and LETTERS.dp_length(3) == 3
    assert SYLLABLES.stem_length_range(cfg) == (1, 7) and LETTERS.stem_length_range(cfg) == (1, 3)
    windows = torch.tensor([[1, 3, 0]])
    w, lengths = SYLLABLES.dp_windows(windows, [2])
    assert w.tolist() == [[1, 2, 5, 6, 0, 0]] and lengths == [4]
    w, lengths = LETTERS.dp_windows(windows, [2])
    assert w is windows and lengths == [2]
    # the band each kind names for a stem of m DP units against a span of n characters reaches it
    for script in (LETTERS, SYLLABLES):
        units = tuple(ipa_units("kilo"))
        m = len(script.stem_dp_units(units))
        for n in (1, 2, 3):
            b = script.band_for(m, n, cfg)
            if b is not None:
                assert script.reachable(n, units, cfg.replace(band=b))
                assert b == 0 or not script.reachable(n, units, cfg.replace(band=b - 1))


def test_a_pin_as_each_kind_reads_it():
    ka, a, onset = PinnedValue("x", "ka"), PinnedValue("y", "a"), PinnedValue("z", "k-")
    assert SYLLABLES.pin_sounds(ka) == ("k", "a") and SYLLABLES.pin_sounds(a) == (NULL_ONSET, "a")
    assert SYLLABLES.pin_columns(ka, 3) == [("k", 5), ("a", 6)] and SYLLABLES.pin_columns(onset, 3) == [("k", 5)]
    assert LETTERS.pin_sounds(a) == ("a",) and LETTERS.pin_columns(a, 3) == [("a", 3)]
    with pytest.raises(InputError, match="writes a syllable"):
        LETTERS.pin_sounds(ka)


def test_only_syllables_have_an_onset_phase_and_joint_vowels():
    cfg = Config(signs="syllables", onsets_first=0.5, anneal_steps=200, vowel_slot="joint")
    assert SYLLABLES.onset_phase(cfg, 99) and not SYLLABLES.onset_phase(cfg, 100)
    assert not LETTERS.onset_phase(cfg, 0)
    assert SYLLABLES.joint_vowels(cfg) and not SYLLABLES.joint_vowels(cfg.replace(vowel_slot="chance"))
    assert not LETTERS.joint_vowels(cfg)
