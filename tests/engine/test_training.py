"""Training end to end: gradients, a solvable synthetic cipher, events, stopping, pins, checkpoints."""

import math

import pytest
import torch

from engine.config import Config
from engine.corpus import PinnedValue
from engine.training.evaluation import evaluate
from engine.model.mapping import CharMapping
from engine.model.objective import batch_objective, pin_pairs
from engine.model.prepared import prepare
from engine.results import EvalEvent, FinishedEvent, StepEvent, UpdatePins
from engine.model.scoring import make_batch
from engine.datasets.synthetic import make_cipher
from engine.training.trainer import Trainer

SMALL = dict(feature_dim=8, steps=200, anneal_steps=120, eval_interval=0, seed=0)


@pytest.fixture(scope="module")
def cipher():
    return make_cipher(n_stems=30, n_inscriptions=40, seed=2)


@pytest.mark.parametrize("mode", ["softmin", "sum"])
def test_gradients_are_finite_and_match_finite_differences(cipher, mode):
    cfg = Config(feature_dim=3, dropout=0.0, edit_mode=mode, min_span=3, max_span=5, chars_per_batch=30)
    pins = [PinnedValue(cipher.key["t"], "t")]
    prep = prepare(cipher.corpus, cipher.vocabulary.stems[:6], cfg, pins)
    model = CharMapping(prep.lost_letters, prep.known_units, cfg).double()
    batch = make_batch(prep, [0, 1])
    pin_idx = pin_pairs(prep, pins)
    params = [model.feature_emb, model.aligner]
    base_fe, base_al = model.feature_emb.detach().clone(), model.aligner.detach().clone()

    def loss_value():
        return batch_objective(model, prep, batch, 50, pin_idx, prep.stem_units, prep.stem_len).loss

    loss_value().backward()
    for p in params:
        assert torch.isfinite(p.grad).all()
        assert p.grad.abs().sum() > 0
    grads = [model.feature_emb.grad.clone(), model.aligner.grad.clone()]
    # finite differences on a few coordinates of each parameter
    eps = 1e-6
    g = torch.Generator().manual_seed(0)
    for which, base in enumerate([base_fe, base_al]):
        for _ in range(4):
            idx = tuple(int(torch.randint(0, s, (1,), generator=g)) for s in base.shape)
            vals = []
            for sign in (+1, -1):
                pert = base.clone()
                pert[idx] += sign * eps
                with torch.no_grad():
                    model.feature_emb.copy_(pert if which == 0 else base_fe)
                    model.aligner.copy_(pert if which == 1 else base_al)
                    vals.append(float(loss_value()))
            numeric = (vals[0] - vals[1]) / (2 * eps)
            assert grads[which][idx].item() == pytest.approx(numeric, rel=1e-4, abs=1e-6)


def test_short_run_solves_a_synthetic_cipher(cipher):
    trainer = Trainer(cipher.corpus, cipher.vocabulary, Config(**SMALL), gold=cipher.gold)
    before = trainer.evaluate().metrics["p_at_1"]
    events = list(trainer.run())
    evals = [e for e in events if isinstance(e, EvalEvent)]
    after = evals[-1].metrics["p_at_1"]
    chance = 1 / len(cipher.vocabulary.stems)
    assert before < 0.3
    assert after > 0.8 > 10 * chance
    # the learned mapping recovers the key for most units that occur in the stems
    m = evals[-1].mapping
    right = sum(1 for unit, letter in cipher.key.items() if unit in m.known
                and m.lost[int(m.probs[m.known.index(unit)].argmax())] == letter)
    used = sum(1 for unit in cipher.key if unit in m.known)
    assert right >= 0.8 * used
    assert isinstance(events[-1], FinishedEvent) and events[-1].reason == "completed"


def test_events_stream_in_order_with_live_matches(cipher):
    trainer = Trainer(cipher.corpus, cipher.vocabulary, Config(**{**SMALL, "steps": 12, "eval_interval": 5}),
                      live_interval=0)
    events = list(trainer.run())
    steps = [e.step for e in events if isinstance(e, StepEvent)]
    assert steps == list(range(1, 13))
    assert [e.step for e in events if isinstance(e, EvalEvent)] == [5, 10, 12]
    for e in events:
        if isinstance(e, StepEvent):
            assert set(e.losses) >= {"total", "quality", "coverage", "sound_loss", "pins"}
            assert all(math.isfinite(v) for v in e.losses.values())
            for m in e.batch_matches:
                assert 1 <= len(m.alternatives) <= 3
                assert m.span == cipher.corpus.by_id()[m.inscription_id].text[m.start:m.end]


def test_request_stop_finishes_early_with_an_evaluation(cipher):
    trainer = Trainer(cipher.corpus, cipher.vocabulary, Config(**SMALL))
    gen = trainer.run()
    for e in gen:
        if isinstance(e, StepEvent) and e.step == 3:
            trainer.request_stop()
    assert trainer.step == 3
    assert isinstance(e, FinishedEvent) and e.reason == "stopped"


def test_pins_sent_into_a_running_trainer_pull_the_mapping(cipher):
    cfg = Config(**{**SMALL, "steps": 40, "pin_weight": 10.0})
    trainer = Trainer(cipher.corpus, cipher.vocabulary, cfg)
    letter = cipher.key["a"]
    wrong = next(c for u, c in cipher.key.items() if u == "o")   # pin a deliberately wrong value
    gen = trainer.run()
    next(gen)
    gen.send(UpdatePins((PinnedValue(wrong, "a", weight=5.0),)))
    for _ in gen:
        pass
    m = trainer.mapping()
    p = m.probs[m.known.index("a")]
    assert p[m.lost.index(wrong)] > p[m.lost.index(letter)]


def test_checkpoint_resume_continues_identically(tmp_path, cipher):
    cfg = Config(**{**SMALL, "steps": 10, "dropout": 0.0})
    a = Trainer(cipher.corpus, cipher.vocabulary, cfg)
    for e in a.run(steps=5):
        pass
    path = a.save_checkpoint(tmp_path / "ckpt.pt")
    for e in a.run(steps=10):
        pass
    b = Trainer.from_checkpoint(path, cipher.corpus, cipher.vocabulary)
    assert b.step == 5
    for e in b.run(steps=10):
        pass
    assert torch.allclose(a.model.aligner, b.model.aligner, atol=1e-6)


def test_evaluation_counts_unscorable_gold_rows_as_misses(cipher):
    cfg = Config(**SMALL)
    trainer = Trainer(cipher.corpus, cipher.vocabulary, cfg, gold=cipher.gold)
    from engine.corpus import GoldAnnotation
    gold = list(cipher.gold) + [GoldAnnotation(cipher.corpus.inscriptions[0].id, 0, 2, (cipher.gold[0].known[0],))]
    ev = evaluate(trainer.model, trainer.prep, gold, step=0)
    assert ev.gold_ranks[-1] is None
    assert ev.metrics["n_gold"] == len(gold)


def test_live_decoding_can_be_switched_off(cipher):
    trainer = Trainer(cipher.corpus, cipher.vocabulary, Config(**{**SMALL, "steps": 5}), live_interval=None)
    assert all(not e.batch_matches for e in trainer.run() if isinstance(e, StepEvent))
