"""benchmarks/experiments/basin_hops.py: signs placed anew as a start places them, and a walk that keeps a chunk
only when the objective falls."""

from __future__ import annotations

import random

import pytest
import torch

from benchmarks.experiments import basin_hops
from engine.config import Config
from engine.training.final_objective import corpus_objective

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _trainer():
    from engine.datasets.synthetic_syllabary import make_syllabary_cipher
    from engine.training.trainer import Trainer

    c = make_syllabary_cipher(seed=3, n_stems=40, n_inscriptions=60)
    # vowel_slot joint, the preset's: its objective is the same at every call (under chance, Omega_loss reads a
    # fresh dropout sample of the vowels, as the paper's term does)
    cfg = Config(**{**c.settings(segmented=False), "steps": 40, "anneal_steps": 10, "eval_interval": 0,
                    "words_first": 4, "words_min_count": 1, "words_min_count_pair": 1, "vowel_slot": "joint"})
    return Trainer(c.running, c.vocabulary, cfg, gold=c.running_gold, live_interval=None)


def test_redraw_places_only_the_chosen_signs_anew_within_the_start_interval():
    t = _trainer()
    m = t.model
    with torch.no_grad():
        m.onset_aligner.fill_(5.0)
        m.vowel_aligner.fill_(5.0)
    basin_hops.redraw(m, [0, 2], random.Random(1), 0.05)
    on, vo = m.onset_aligner.detach(), m.vowel_aligner.detach()
    for sign in range(vo.shape[0]):
        moved = sign in (0, 2)
        assert bool((on[sign + 1].abs() <= 0.05).all()) == moved and bool((vo[sign].abs() <= 0.05).all()) == moved
    assert bool((on[0] == 5.0).all())        # the deletion pseudo-sign's row stays


def test_a_walk_keeps_a_chunk_only_when_the_objective_falls_and_ends_at_the_best():
    t = _trainer()
    for _ in t.run(steps=4):
        pass
    before = corpus_objective(t, step=basin_hops.SCHEDULE_STEP)["objective"]
    state, best, kept = basin_hops.walk(t, 3, 4, 0.5, seed=0)
    assert len(kept) == 3 and best <= before and (best < before) == any(kept)
    assert corpus_objective(t, step=basin_hops.SCHEDULE_STEP)["objective"] == pytest.approx(best, rel=1e-9)
    assert t.step == state["step"] == 4 + 4 * sum(kept)     # each kept chunk goes on from the one before


def test_bad_hop_options_are_refused_in_one_line(capsys):
    with pytest.raises(SystemExit) as e:
        basin_hops.main(["--ids", "dev-s-latin-1", "--share", "0", "--out", "x.jsonl"])
    assert e.value.code == 2 and "--share in (0, 1]" in capsys.readouterr().err


def test_the_one_to_one_reading_gives_no_syllable_to_more_signs_than_its_capacity():
    import numpy as np

    from engine.results import SyllableTable

    # three signs that all read k-a best; the second would rather be t-a than k-i, the third k-i than t-a
    table = SyllableTable(("A", "B", "C"), ("k", "t", "∅"),
                          np.array([[0.9, 0.05, 0.05], [0.6, 0.35, 0.05], [0.7, 0.1, 0.2]]), ("a", "i"),
                          np.array([[0.9, 0.1], [0.8, 0.2], [0.6, 0.4]]))
    assert table.top_values() == {"A": ("k", "a"), "B": ("k", "a"), "C": ("k", "a")}
    assert basin_hops.one_to_one(table) == {"A": ("k", "a"), "B": ("t", "a"), "C": ("k", "i")}
    # two signs a syllable: A and B (the likelier) keep k-a, C goes to its next best
    assert basin_hops.one_to_one(table, capacity=2) == {"A": ("k", "a"), "B": ("k", "a"), "C": ("k", "i")}
    pins = basin_hops.pins_of({"A": ("k", "a"), "B": ("∅", "i")})
    assert [(p.lost, p.known_ipa) for p in pins] == [("A", "ka"), ("B", "i")]


def test_a_projecting_walk_pins_each_chunk_then_releases_it_and_keeps_what_lowers_the_objective():
    t = _trainer()
    for _ in t.run(steps=4):
        pass
    before = corpus_objective(t, step=basin_hops.SCHEDULE_STEP)["objective"]
    key = {s: {"known_onsets": o, "known_vowels": v} for s, (o, v) in basin_hops.one_to_one(t.mapping().syllables).items()}
    state, best, kept, shares = basin_hops.project_walk(t, 2, 4, 2, 1, key)
    assert len(kept) == len(shares) == 2 and shares[0] == 1.0       # the first projection is the key made here
    assert best <= before and (best < before) == any(kept) and t.pins == []
    assert t.step == state["step"] == 4 + 4 * sum(kept)


def test_bad_projection_options_are_refused_in_one_line(capsys):
    with pytest.raises(SystemExit) as e:
        basin_hops.main(["--ids", "dev-s-latin-1", "--arms", "project", "--pin-steps", "300", "--out", "x.jsonl"])
    assert e.value.code == 2 and "--pin-steps between 1" in capsys.readouterr().err
