"""Schedules beyond the paper (issue 15): the long-spans-first curriculum (settings curriculum_min_span,
curriculum_fraction) and the learning rate after annealing (lr_end_fraction). The curriculum:
during the first curriculum_fraction x anneal_steps steps only spans of at least curriculum_min_span
letters are trained, then every span from min_span on."""

import pytest
import torch

from engine.config import Config, SettingError
from engine.corpus import Corpus, Inscription
from engine.errors import InputError
from engine.training.lockstep import SeedGroup
from engine.model.prepared import prepare
from engine.model.scoring import make_batch
from engine.datasets.synthetic import make_cipher
from engine.training.trainer import Trainer

WORDS = dict(feature_dim=8, segmented=True, min_span=3, max_span=10, eval_interval=0, dropout=0.0,
             steps=12, anneal_steps=12, chars_per_batch=60)


@pytest.fixture(scope="module")
def words():
    """Whole words of 3 to 7 letters between dividers."""
    return make_cipher(n_stems=30, n_inscriptions=40, seed=2, dividers=True, filler=(0, 0), stem_len=(3, 7))


@pytest.fixture(scope="module")
def text():
    """Unsegmented text (no dividers)."""
    return make_cipher(n_stems=30, n_inscriptions=40, seed=2)


def test_the_settings_are_range_checked_against_the_span_lengths():
    assert Config(min_span=3, curriculum_min_span=0).span_floor(0) == 3
    with pytest.raises(SettingError, match="curriculum_min_span.*within min_span..max_span"):
        Config(min_span=4, curriculum_min_span=3)
    with pytest.raises(SettingError, match="curriculum_min_span"):
        Config(max_span=10, curriculum_min_span=11)
    with pytest.raises(SettingError, match="curriculum_fraction"):
        Config(curriculum_fraction=1.5)


def test_the_floor_is_the_curriculum_length_until_its_fraction_of_annealing():
    cfg = Config(min_span=3, anneal_steps=100, curriculum_min_span=5, curriculum_fraction=0.5)
    assert [cfg.span_floor(s) for s in (0, 1, 49, 50, 51, 2000)] == [5, 5, 5, 3, 3, 3]
    assert Config(min_span=3, anneal_steps=100, curriculum_min_span=5, curriculum_fraction=0).span_floor(0) == 3
    assert Config(min_span=3, anneal_steps=100, curriculum_min_span=5, curriculum_fraction=1).span_floor(99) == 5


def _batches_by_step(trainer, steps):
    """The chunks of every batch the trainer trains on, in order."""
    seen = []
    draw = trainer.sampler.next_batch
    trainer.sampler.next_batch = lambda: seen.append(draw()) or seen[-1]
    list(trainer.run(steps))
    return seen


def test_whole_words_shorter_than_the_floor_are_not_trained_during_the_curriculum(words):
    cfg = Config(**WORDS, curriculum_min_span=5, curriculum_fraction=0.5)
    trainer = Trainer(words.corpus, words.vocabulary, cfg, live_interval=None)
    lengths = [[len(trainer.prep.chunks[i]) for i in b] for b in _batches_by_step(trainer, 12)]
    assert all(min(b) >= 5 for b in lengths[:6]), lengths[:6]
    assert any(min(b) < 5 for b in lengths[6:]), lengths[6:]
    # without the setting short words are trained from the first step
    plain = Trainer(words.corpus, words.vocabulary, Config(**WORDS), live_interval=None)
    assert any(min(len(plain.prep.chunks[i]) for i in b) < 5 for b in _batches_by_step(plain, 6))


def test_in_running_text_spans_shorter_than_the_floor_do_not_exist(text):
    cfg = Config(feature_dim=8, min_span=3, max_span=8)
    prep = prepare(text.corpus, text.vocabulary, cfg)
    idx = list(range(6))
    every = make_batch(prep, idx)
    long = make_batch(prep, idx, min_span=5)
    assert long.lattice_lengths == every.lattice_lengths == list(range(3, 9))
    # the same starts, except the last two of each chunk, which could only begin a span of 3 or 4
    assert long.n_starts == every.n_starts - 2 * len(idx)
    keep = torch.tensor([int(o) <= len(prep.chunks[idx[int(c)]]) - 5
                         for c, o in zip(every.start_chunk, every.start_offset)])
    assert torch.equal(long.windows, every.windows[keep])
    assert torch.equal(long.valid, every.valid[keep] & (every.span_len[keep] >= 5))
    assert long.valid.any() and not long.valid[long.span_len < 5].any()


def test_a_checkpoint_in_the_curriculum_resumes_to_the_same_run(tmp_path, words):
    cfg = Config(**WORDS, curriculum_min_span=5, curriculum_fraction=0.5)
    a = Trainer(words.corpus, words.vocabulary, cfg, live_interval=None)
    for _ in zip(range(3), a.run()):
        pass
    path = a.save_checkpoint(tmp_path / "ckpt.pt")
    list(a.run())
    b = Trainer.from_checkpoint(path, words.corpus, words.vocabulary, live_interval=None)
    assert b.step == 3
    list(b.run())
    assert torch.equal(a.model.aligner, b.model.aligner)


def test_seeds_in_lockstep_follow_the_curriculum_as_single_runs(words):
    cfg = Config(**{**WORDS, "steps": 6, "anneal_steps": 6}, curriculum_min_span=5, curriculum_fraction=0.5)
    group = SeedGroup(words.corpus, words.vocabulary, cfg, [0, 1])
    for _ in group.run(6):
        pass
    for k, seed in enumerate([0, 1]):
        single = Trainer(words.corpus, words.vocabulary, cfg.replace(seed=seed), live_interval=None)
        list(single.run(6))
        for p, q in zip(group.trainers[k].model.parameters(), single.model.parameters()):
            assert torch.allclose(p, q, atol=1e-5, rtol=1e-5)


def test_a_corpus_without_a_long_enough_word_is_refused_in_one_line(words):
    corpus = Corpus("short", (Inscription("I1", "abc abd"),))
    cfg = Config(**WORDS, curriculum_min_span=6)
    with pytest.raises(InputError, match="curriculum_min_span: no inscription has a run of at least 6 letters"):
        Trainer(corpus, words.vocabulary, cfg, live_interval=None)


# ---- the learning rate after annealing (setting lr_end_fraction) ----

def test_the_learning_rate_is_constant_until_annealing_ends_then_decays_linearly():
    cfg = Config(lr=0.2, steps=300, anneal_steps=200, lr_end_fraction=0.1)
    assert [cfg.learning_rate(s) for s in (0, 199, 200)] == pytest.approx([0.2, 0.2, 0.2])
    assert cfg.learning_rate(250) == pytest.approx(0.2 * (1 - 0.5 * 0.9))
    assert cfg.learning_rate(300) == pytest.approx(0.02) and cfg.learning_rate(10_000) == pytest.approx(0.02)
    assert all(Config(steps=300, anneal_steps=200).learning_rate(s) == 0.2 for s in (0, 250, 299))
    with pytest.raises(SettingError, match="lr_end_fraction"):
        Config(lr_end_fraction=1.5)


def test_a_run_takes_the_decayed_rate_and_its_default_is_the_papers_constant(words):
    base = dict(WORDS, steps=8, anneal_steps=4)
    runs = {}
    for f in (1.0, 0.0):
        t = Trainer(words.corpus, words.vocabulary, Config(**base, lr_end_fraction=f), live_interval=None)
        list(t.run())
        runs[f] = t
    assert runs[1.0].optimizer.param_groups[0]["lr"] == pytest.approx(0.2)
    assert runs[0.0].optimizer.param_groups[0]["lr"] == pytest.approx(0.2 * (1 - 3 / 4))   # the step at 7
    assert not torch.allclose(runs[1.0].model.aligner, runs[0.0].model.aligner)
    # and the first four steps (annealing) are the same run
    early = {}
    for f in (1.0, 0.0):
        t = Trainer(words.corpus, words.vocabulary, Config(**base, lr_end_fraction=f), live_interval=None)
        list(t.run(4))
        early[f] = t.model.aligner.detach().clone()
    assert torch.equal(early[1.0], early[0.0])


def test_seeds_in_lockstep_take_the_same_decayed_rate(words):
    cfg = Config(**{**WORDS, "steps": 6, "anneal_steps": 3}, lr_end_fraction=0.2)
    group = SeedGroup(words.corpus, words.vocabulary, cfg, [0, 1])
    for _ in group.run(6):
        pass
    single = Trainer(words.corpus, words.vocabulary, cfg.replace(seed=1), live_interval=None)
    list(single.run(6))
    for p, q in zip(group.trainers[1].model.parameters(), single.model.parameters()):
        assert torch.allclose(p, q, atol=1e-5, rtol=1e-5)
