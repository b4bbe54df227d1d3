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
