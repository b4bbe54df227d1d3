"""Runs as a batch dimension (engine/training/lockstep.py RunBatch): runs that differ in seed, pins,
known vocabulary and per-run settings, trained as one batch, are each their single run; a run that
diverges leaves the batch and fails as its single run fails, the others go on; the torch trie DP
takes per-start tables (the batch's path on a GPU), tested here on the CPU; batches split by memory."""

from dataclasses import replace

import pytest
import torch

from engine.config import Config
from engine.corpus import PinnedValue, Vocabulary
from engine.datasets.synthetic import make_cipher
from engine.model.trie_alignment import trie_span_log_probs
from engine.runs.session import RunInputs, RunSession, RunSink
from engine.training.lockstep import RunBatch, batch_key, plan_batches, run_bytes, train_sessions
from engine.training.trainer import Trainer, TrainingDiverged

SMALL = dict(feature_dim=8, steps=6, anneal_steps=4, eval_interval=3, chars_per_batch=60)


@pytest.fixture(scope="module")
def cipher():
    return make_cipher(n_stems=30, n_inscriptions=40, seed=2)


def variants(cipher):
    """Four runs of one corpus: another seed, a pin (which adds nothing to the table), a smaller known
    vocabulary, and settings that differ only in what each run reads for itself."""
    cfg = Config(**SMALL)
    fewer = Vocabulary("fewer", cipher.vocabulary.stems[: 20])
    pin = (PinnedValue(cipher.key["t"], "t"),)
    return [
        RunInputs(cipher.corpus, cipher.vocabulary, cfg.replace(seed=0), gold=tuple(cipher.gold)),
        RunInputs(cipher.corpus, cipher.vocabulary, cfg.replace(seed=1), gold=tuple(cipher.gold), pins=pin),
        RunInputs(cipher.corpus, fewer, cfg.replace(seed=2), gold=tuple(cipher.gold)),
        RunInputs(cipher.corpus, cipher.vocabulary,
                  cfg.replace(seed=3, lr=0.1, coverage_weight=5.0, dropout=0.2, steps=4, eval_interval=2),
                  gold=tuple(cipher.gold)),
    ]


def single(inputs, steps=None):
    t = Trainer(inputs.corpus, inputs.vocabulary, inputs.config, gold=inputs.gold, pins=list(inputs.pins or ()),
                live_interval=None)
    events = list(t.run(steps))
    return t, events


def losses_of(events):
    return [ev.losses["total"] for ev in events if hasattr(ev, "losses")]


def kinds(events):
    return [(type(ev).__name__, ev.step) for ev in events]


def assert_same_run(batch_trainer, batch_events, alone, alone_events, tol=1e-7):
    assert kinds(batch_events) == kinds(alone_events)
    assert losses_of(batch_events) == pytest.approx(losses_of(alone_events), rel=1e-6, abs=tol)
    for (name, p), q in zip(alone.model.named_parameters(), batch_trainer.model.parameters()):
        assert torch.allclose(p, q, atol=10 * tol, rtol=1e-5), name
    a, b = alone.mapping(), batch_trainer.mapping()
    assert a.probs.argmax(0).tolist() == b.probs.argmax(0).tolist()      # the same reading of every letter
    assert alone.evaluate().metrics["p_at_1"] == batch_trainer.evaluate().metrics["p_at_1"]


def events_by_member(batch, steps=None):
    out = [[] for _ in range(len(batch))]
    for pairs in batch.run(steps):
        for k, ev in pairs:
            out[k].append(ev)
    return out


@pytest.mark.parametrize("numba", [True, False])
def test_a_batch_of_different_runs_is_each_run_alone(cipher, numba, monkeypatch):
    """With numba the batch's DP is the fused kernel; without it (as on a GPU) the torch trie DP with
    per-start tables, against single runs that take the trie DP too."""
    from engine.model import kernels

    if not numba:
        monkeypatch.setattr(kernels, "HAVE_NUMBA", False)
    runs = variants(cipher)
    assert len({batch_key(r) for r in runs}) == 1, "one batch key: seeds, pins, vocabularies, per-run settings"
    batch = RunBatch.build(runs)
    assert batch.impl == ("fused" if numba else "trie")
    got = events_by_member(batch)
    assert len(set(map(id, (t.prep for t in batch.trainers)))) == 4
    for k, inputs in enumerate(runs):
        alone, alone_events = single(inputs)
        # the torch trie DP runs in the model's float32 and sums a batch's gradient in another order
        # than T separate calls (the same cells, values equal to 1e-9 in float64:
        # test_trie_dp_takes_a_table_per_start; a step's gradients equal to 3e-8 relative in float32), and
        # six steps of training grow that float32 rounding to about 3e-5 in the losses
        assert_same_run(batch.trainers[k], got[k], alone, alone_events, tol=1e-7 if numba else 1e-4)
    # the runs did differ, and the short one left the batch first and the others went on
    assert losses_of(got[0]) != losses_of(got[1]) != losses_of(got[2])
    assert got[3][-1].step == 4 and got[0][-1].step == 6


def test_the_pinned_run_adds_a_known_unit_and_still_is_its_single_run(cipher):
    """A pin naming a sound no stem has makes that run's table one row larger: it is scored in a DP
    call of its own, and shares the lattice pass."""
    cfg = Config(**SMALL)
    runs = [RunInputs(cipher.corpus, cipher.vocabulary, cfg.replace(seed=5), gold=tuple(cipher.gold)),
            RunInputs(cipher.corpus, cipher.vocabulary, cfg.replace(seed=6), gold=tuple(cipher.gold),
                      pins=(PinnedValue(cipher.key["t"], "ʔ"),))]
    batch = RunBatch.build(runs)
    assert len(batch.trainers[1].prep.known_units) == len(batch.trainers[0].prep.known_units) + 1
    got = events_by_member(batch)
    for k, inputs in enumerate(runs):
        alone, alone_events = single(inputs)
        assert_same_run(batch.trainers[k], got[k], alone, alone_events)


def test_batch_key_says_which_runs_may_share_a_batch(cipher):
    base = RunInputs(cipher.corpus, cipher.vocabulary, Config(**SMALL))
    key = batch_key(base)
    assert batch_key(replace(base, config=base.config.replace(lr=0.05, seed=9, steps=3))) == key
    assert batch_key(replace(base, config=base.config.replace(max_span=8))) != key      # another shape
    assert batch_key(replace(base, config=base.config.replace(insertion_cost_start=2.0))) != key  # the DP's gamma
    other = make_cipher(n_stems=30, n_inscriptions=40, seed=3)
    assert batch_key(replace(base, corpus=other.corpus)) != key
    for alone in (dict(restarts=2), dict(candidate_stems=5), dict(polish_moves=2)):
        assert batch_key(replace(base, config=base.config.replace(**alone))) is None
    assert batch_key(replace(base, resume="x.pt")) is None
    with pytest.raises(ValueError, match="must share"):
        RunBatch.build([base, replace(base, config=base.config.replace(max_span=8))])


class _Poison(RunSink):
    """Makes the run's parameters NaN after step ``at``: its next loss is NaN."""

    def __init__(self, at):
        self.at, self.trainer = at, None

    def started(self, start):
        self.trainer = start.trainer

    def step(self, event):
        if event.step == self.at:
            with torch.no_grad():
                self.trainer.model.aligner.fill_(float("nan"))


class _Log(RunSink):
    def __init__(self):
        self.calls = []

    def step(self, event):
        self.calls.append(("step", event.step))

    def finished(self, outcome):
        self.calls.append(("finished", outcome.status, outcome.step))

    def failed(self, error, step):
        self.calls.append(("failed", str(error), step))


def test_a_diverged_run_leaves_the_batch_failed_as_alone_and_the_others_go_on(cipher, tmp_path):
    runs = variants(cipher)[:3]
    with pytest.raises(TrainingDiverged) as alone_error:
        RunSession(runs[1], sinks=[_Poison(2)]).run()
    logs = [_Log() for _ in runs]
    sessions = [RunSession(r, sinks=[logs[k], *([_Poison(2)] if k == 1 else [])],
                           checkpoint=tmp_path / f"run-{k}.pt") for k, r in enumerate(runs)]
    results = train_sessions(sessions)
    assert isinstance(results[1], TrainingDiverged)
    assert str(results[1]) == str(alone_error.value) == "the loss became nan at step 3"
    assert logs[1].calls[-1] == ("failed", "the loss became nan at step 3", 2)
    for k in (0, 2):
        assert results[k].status == "completed" and results[k].step == 6
        assert logs[k].calls[-1] == ("finished", "completed", 6)
        alone, alone_events = single(runs[k])
        got = torch.load(tmp_path / f"run-{k}.pt", weights_only=True)["model"]
        for name, value in alone.model.state_dict().items():
            assert torch.allclose(got[name], value, atol=1e-5, rtol=1e-5), name


def test_a_run_that_cannot_start_fails_alone(cipher):
    runs = variants(cipher)[:2]
    bad = replace(runs[1], vocabulary=Vocabulary("empty", ()))
    logs = [_Log(), _Log()]
    results = train_sessions([RunSession(r, sinks=[log]) for r, log in zip([runs[0], bad], logs)])
    assert results[0].status == "completed"
    assert "empty" in str(results[1]) and logs[1].calls[-1][0] == "failed"


def test_a_stop_through_one_session_ends_that_run_only(cipher):
    runs = [replace(r, config=r.config.replace(steps=8)) for r in variants(cipher)[:2]]
    sessions = []

    class StopAt(RunSink):
        def step(self, event):
            if event.step == 2:
                sessions[0].stop()

    sessions.extend([RunSession(runs[0], sinks=[StopAt()]), RunSession(runs[1])])
    results = train_sessions(sessions)
    assert [(r.status, r.step) for r in results] == [("stopped", 2), ("completed", 8)]


def test_trie_dp_takes_a_table_per_start():
    """The torch trie DP (the GPU's) with T tables and col_table is T DPs: values and gradients, in
    every combination mode, eagerly and through StaticDP (the buffers CUDA graphs replay; eager here)."""
    from tests.engine.test_multiseed import random_trie

    g = torch.Generator().manual_seed(0)
    K, C, S, N = 6, 5, 7, 6
    trie = random_trie(g, 20, K)
    for static in (False, True):
        for mode in ("softmin", "sum", "max"):
            tables = torch.randn(3, K, C, generator=g, dtype=torch.float64).log_softmax(2).requires_grad_(True)
            wins = [torch.randint(1, C, (S + k, N), generator=g) for k in range(3)]
            col = torch.cat([torch.full((S + k,), k) for k in range(3)])
            perm = torch.randperm(col.numel(), generator=g)           # the tables' starts interleaved
            both = trie_span_log_probs(tables, trie, torch.cat(wins)[perm], [3, 4, 5], 0.7, col_table=col[perm],
                                       static=static, mode=mode)
            w = torch.randn(both.shape, generator=g, dtype=torch.float64)
            (torch.where(both > -1e8, both, 0.0) * w).sum().backward()
            inv = torch.empty_like(perm)
            inv[perm] = torch.arange(perm.numel())
            start = 0
            for k in range(3):
                ref_table = tables.detach()[k].clone().requires_grad_(True)
                ref = trie_span_log_probs(ref_table, trie, wins[k], [3, 4, 5], 0.7, mode=mode, static=static)
                idx = inv[start: start + S + k]
                assert torch.allclose(both[:, idx], ref, atol=1e-9), (static, mode)
                (torch.where(ref > -1e8, ref, 0.0) * w[:, idx]).sum().backward()
                assert torch.allclose(tables.grad[k], ref_table.grad, atol=1e-8), (static, mode)
                start += S + k
    with pytest.raises(ValueError, match="col_table"):
        trie_span_log_probs(tables.detach(), trie, wins[0], [3], 0.7)


def test_batches_split_by_memory_and_by_key(cipher):
    runs = variants(cipher)
    alone = replace(runs[0], config=runs[0].config.replace(restarts=2))
    other = replace(runs[0], config=runs[0].config.replace(max_span=8))
    items = [runs[0], alone, runs[1], other, runs[2], runs[3]]
    assert plan_batches(items, budget=10 * 2**40) == [[0, 2, 4, 5], [1], [3]]
    per_run = max(run_bytes(r.corpus, r.config, r.vocabulary) for r in runs)
    assert per_run > 0
    assert plan_batches(items, budget=2 * per_run) == [[0, 2], [4, 5], [1], [3]]
    assert plan_batches(items, budget=1) == [[0], [2], [4], [5], [1], [3]]   # too small: one run a batch


def test_the_runs_of_one_problem_prepare_it_once(cipher, monkeypatch):
    """Preparing a run (its n-gram weights, its trie) took seconds; a batch of runs of one problem prepares
    it for the first and hands it to the others, and each still equals its single run."""
    import engine.training.trainer as trainer_module
    from engine.training.lockstep import SeedGroup

    calls = []
    real = trainer_module.prepare
    monkeypatch.setattr(trainer_module, "prepare", lambda *a, **k: calls.append(1) or real(*a, **k))
    group = SeedGroup(cipher.corpus, cipher.vocabulary, Config(**SMALL), seeds=[0, 1, 2], gold=cipher.gold)
    assert len(calls) == 1
    assert all(t.prep is group.trainers[0].prep for t in group.trainers)
    monkeypatch.setattr(trainer_module, "prepare", real)
    group.train()
    alone, _ = single(RunInputs(cipher.corpus, cipher.vocabulary, Config(**SMALL).replace(seed=2),
                                gold=tuple(cipher.gold)))
    assert torch.allclose(group.trainers[2].model.aligner, alone.model.aligner, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("setting", [dict(restarts=2), dict(candidate_stems=5), dict(polish_moves=3)])
def test_a_seed_group_refuses_what_a_batch_cannot_do_in_one_line(cipher, setting):
    """SeedGroup and train_seeds refuse, naming the setting, what RunBatch cannot train (unbatchable)."""
    from engine.errors import InputError
    from engine.training.lockstep import SeedGroup, train_seeds

    cfg = Config(**SMALL, **setting)
    name = next(iter(setting))
    with pytest.raises(InputError, match=f"setting {name}") as e:
        SeedGroup(cipher.corpus, cipher.vocabulary, cfg, seeds=[0, 1])
    assert "\n" not in str(e.value) and "run each seed on its own" in str(e.value)
    with pytest.raises(InputError, match=f"setting {name}"):
        train_seeds(RunInputs(cipher.corpus, cipher.vocabulary, cfg), [0, 1])
