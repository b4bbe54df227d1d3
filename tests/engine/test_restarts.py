"""restarts (engine/restarts.py, Trainer): R short starts scored by the gold-free objective, the lowest
continued. The kept start's run is exactly the single run of its seed; the choice reads no gold;
checkpoints mid-choice resume to the same choice and run; settings that would choose differently on
resume are refused; decipher run --seeds does each seed's own choice; a 10x-distractor cipher."""

import json

import pytest
import torch

from engine.config import Config, SettingError
from engine.errors import InputError
from engine.final_objective import corpus_objective
from engine.restarts import Selection, selection_steps, start_seeds
from engine.results import StepEvent
from engine.synthetic import make_cipher
from engine.training import Trainer

SMALL = dict(feature_dim=4, segmented=True, min_span=3, steps=14, anneal_steps=10, eval_interval=0)


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny tensors: a second torch thread only waits, and on a loaded box it waits a long time
    (a 14-step run took 25 s with two threads and 0.9 s with one)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def cipher():
    return make_cipher(n_stems=20, n_inscriptions=12, seed=6, dividers=True)


def _train(cipher, gold=(), **settings):
    trainer = Trainer(cipher.corpus, cipher.vocabulary, Config(**{**SMALL, **settings}), gold=gold,
                      live_interval=None)
    events = [e for e in trainer.run() if isinstance(e, StepEvent)]
    return trainer, events


def test_start_seeds_begin_with_the_runs_own_and_are_distinct_32_bit_and_stable():
    seeds = start_seeds(7, 5)
    assert seeds[0] == 7 and len(set(seeds)) == 5
    assert all(0 <= s < 2**32 for s in seeds)
    assert start_seeds(7, 5) == seeds and start_seeds(8, 5)[1:] != seeds[1:]
    assert start_seeds(7, 1) == (7,)


def test_selection_steps_are_a_fraction_of_the_run():
    assert selection_steps(Config(steps=3000, restart_fraction=0.25)) == 750
    assert selection_steps(Config(steps=150, restart_fraction=0.6667)) == 100
    assert selection_steps(Config(steps=3000)) == 3000                   # the default: whole runs
    assert selection_steps(Config(steps=10, restart_fraction=0.01)) == 1   # at least 1
    assert selection_steps(Config(steps=0)) == 0
    assert Selection.new(Config(steps=0, restarts=4)) is None
    assert Selection.new(Config()) is None                                                     # the paper


@pytest.mark.parametrize("key, value", [("restarts", 0), ("restarts", 65), ("restarts", 2.5),
                                        ("restart_fraction", 0.0), ("restart_fraction", 1.5),
                                        ("restart_fraction", float("nan"))])
def test_settings_are_range_checked(key, value):
    with pytest.raises(SettingError, match=f"setting {key}: must be"):
        Config(**{key: value})


def test_one_start_is_the_paper(cipher):
    trainer, events = _train(cipher, seed=3)
    assert trainer.selection is None and len(events) == SMALL["steps"]
    assert "restarts" not in trainer.state()
    assert not any(k.startswith("restart") for k in trainer.evaluate().metrics)


def test_the_kept_start_is_the_lowest_and_its_run_is_the_single_run_of_its_seed(cipher):
    trainer, events = _train(cipher, seed=3, restarts=3, restart_fraction=0.5)
    sel = trainer.selection
    S = sel.steps
    assert S == 7 and sel.done and len(sel.objectives) == 3
    assert sel.kept == min(range(3), key=lambda r: sel.objectives[r])
    # every start's S steps, then the kept one's remaining steps
    assert [e.step for e in events] == [*range(1, S + 1)] * 3 + [*range(S + 1, SMALL["steps"] + 1)]
    m = trainer.evaluate().metrics
    assert m["restarts"] == 3 and m["restart_steps"] == S and m["restart_kept"] == sel.kept
    assert m["restart_kept_seed"] == sel.seeds[sel.kept]
    assert [m[f"restart_objective_{r}"] for r in range(3)] == sel.objectives
    for r in range(3):      # each objective is that start's, after S steps, as a single run scores it
        single = Trainer(cipher.corpus, cipher.vocabulary, Config(**{**SMALL, "seed": sel.seeds[r]}),
                         live_interval=None)
        list(single.run(steps=S))
        assert corpus_objective(single)["objective"] == pytest.approx(sel.objectives[r], abs=1e-12)
        if r == sel.kept:
            list(single.run())
            for name, p in single.model.state_dict().items():
                assert torch.equal(p, trainer.model.state_dict()[name]), name


def test_the_choice_reads_no_gold(cipher):
    with_gold, _ = _train(cipher, gold=cipher.gold, seed=1, restarts=3)
    without, _ = _train(cipher, seed=1, restarts=3)
    assert with_gold.selection.objectives == without.selection.objectives
    assert with_gold.selection.kept == without.selection.kept
    assert torch.equal(with_gold.model.aligner, without.model.aligner)


@pytest.mark.parametrize("stop_at", [3, 9, 16, 25])     # in start 0, start 1, start 2, after the choice
def test_a_checkpoint_resumes_to_the_same_choice_and_run(tmp_path, cipher, stop_at):
    settings = {**SMALL, "seed": 2, "restarts": 3, "restart_fraction": 0.5}
    whole, _ = _train(cipher, seed=2, restarts=3, restart_fraction=0.5)
    a = Trainer(cipher.corpus, cipher.vocabulary, Config(**settings), live_interval=None)
    for n, event in enumerate((e for e in a.run() if isinstance(e, StepEvent)), start=1):
        if n == stop_at:
            break
    path = a.save_checkpoint(tmp_path / "ckpt.pt")
    b = Trainer.from_checkpoint(path, cipher.corpus, cipher.vocabulary, live_interval=None)
    assert b.selection.objectives == a.selection.objectives
    list(b.run())
    assert b.selection.kept == whole.selection.kept
    assert b.selection.objectives == whole.selection.objectives
    assert torch.equal(b.model.aligner, whole.model.aligner)
    assert torch.equal(b.model.feature_emb, whole.model.feature_emb)


def test_a_resume_that_would_choose_differently_is_refused(tmp_path, cipher):
    a = Trainer(cipher.corpus, cipher.vocabulary, Config(**SMALL, restarts=3), live_interval=None)
    for _ in zip(range(20), a.run()):       # start 1 of 3, each of the whole 14 steps
        pass
    path = a.save_checkpoint(tmp_path / "mid.pt")
    for overrides in ({"restarts": 2}, {"restarts": 1}, {"restart_fraction": 0.9}):
        with pytest.raises(InputError, match="setting restarts: the checkpoint chose among 3 starts of 14 steps"):
            Trainer.from_checkpoint(path, cipher.corpus, cipher.vocabulary, config_overrides=overrides)
    # more steps are fine: the choice is the record's, not recomputed from the new steps
    b = Trainer.from_checkpoint(path, cipher.corpus, cipher.vocabulary, config_overrides={"steps": 40},
                                live_interval=None)
    assert b.selection.steps == a.selection.steps
    single = Trainer(cipher.corpus, cipher.vocabulary, Config(**SMALL), live_interval=None)
    for _ in zip(range(4), single.run()):
        pass
    single_path = single.save_checkpoint(tmp_path / "single.pt")
    with pytest.raises(InputError, match="trained from a single start"):
        Trainer.from_checkpoint(single_path, cipher.corpus, cipher.vocabulary, config_overrides={"restarts": 4})


@pytest.mark.parametrize("key, value", [
    ("best", 7),
    ("best", 1),    # a start not scored yet (only start 0 is): the resume indexed past the scores
    ("best", -1),   # no best although start 0 is scored
    ("kept", 0),    # chosen before starts 1 and 2 were scored: the resume went on with start 1 as if kept
])
def test_a_malformed_record_is_refused_in_one_line(tmp_path, cipher, key, value):
    a = Trainer(cipher.corpus, cipher.vocabulary, Config(**SMALL, restarts=3), live_interval=None)
    for _ in zip(range(20), a.run()):       # start 1 of 3: start 0 scored
        pass
    state = a.state()
    assert state["restarts"]["objectives"] and state["restarts"]["best"] == 0 and state["restarts"]["kept"] == -1
    state["restarts"][key] = value
    torch.save(state, tmp_path / "bad.pt")
    with pytest.raises(InputError, match="record of the restarts is inconsistent"):
        Trainer.from_checkpoint(tmp_path / "bad.pt", cipher.corpus, cipher.vocabulary)


def test_a_whole_word_run_resumes_in_the_same_shuffled_pass(tmp_path, cipher):
    """Segmented runs draw chunks in shuffled passes; the checkpoint keeps the pass's remaining
    order, so a resumed run trains on the same batches (before, it began a new pass)."""
    cfg = Config(**{**SMALL, "dropout": 0.0, "steps": 9})
    a = Trainer(cipher.corpus, cipher.vocabulary, cfg, live_interval=None)
    for _ in zip(range(4), a.run()):
        pass
    assert a.sampler.order         # mid-pass
    path = a.save_checkpoint(tmp_path / "ckpt.pt")
    list(a.run())
    b = Trainer.from_checkpoint(path, cipher.corpus, cipher.vocabulary, live_interval=None)
    list(b.run())
    assert torch.equal(a.model.aligner, b.model.aligner)


def test_decipher_run_seeds_does_each_seeds_own_choice(tmp_path, cipher):
    from engine.seeds import run_seeds
    from engine.session import RunInputs

    config = Config(**SMALL, restarts=2, device="cpu")
    inputs = RunInputs(cipher.corpus, cipher.vocabulary, config, gold=tuple(cipher.gold))
    outcome = run_seeds(inputs, [0, 5], tmp_path / "group")
    assert not outcome.failed
    for seed in (0, 5):
        m = json.loads((tmp_path / "group" / f"seed-{seed}" / "metrics.json").read_text(encoding="utf-8"))
        assert m["restarts"] == 2 and m["restart_kept"] in (0, 1)
        assert m["restart_kept_seed"] == start_seeds(seed, 2)[int(m["restart_kept"])]
        assert {"restart_objective_0", "restart_objective_1"} <= set(m)
        assert m["config"]["restarts"] == 2


def test_seeds_in_lockstep_refuse_restarts(cipher):
    from engine.multiseed import SeedGroup

    with pytest.raises(InputError, match="setting restarts"):
        SeedGroup(cipher.corpus, cipher.vocabulary, Config(**SMALL, restarts=2), [0, 1])


def test_ten_times_the_distractors_restarts_find_what_the_paper_misses():
    """The issue's synthetic check: 30 true stems + 300 random stems of the same sound system.
    Seed 0: the paper's model (and candidate_stems alone, P@1 0.12) ends in a wrong optimum; with
    restarts the start with the lowest final objective is kept, chosen without gold, and it finds the
    cognates. Two starts suffice for seed 0 (its second start is kept); the benchmark uses four and
    lifts every seed 0-4 to P@1 >= 0.75 (docs/benchmarks.md, "Large vocabularies": restarts)."""
    from benchmarks.vocab_scaling import SYNTHETIC_SETTINGS, synthetic_problem

    corpus, vocab, gold = synthetic_problem(10)
    assert len(vocab.stems) == 330
    results = {}
    for name, settings in (("paper", {}), ("restarts", {"restarts": 2, "candidate_stems": 16})):
        cfg = Config(**SYNTHETIC_SETTINGS, steps=150, anneal_steps=100, seed=0, **settings)
        trainer = Trainer(corpus, vocab, cfg, gold=gold, live_interval=None)
        list(trainer.run())
        results[name] = (trainer.last_evaluation.metrics, trainer.selection)
    paper, (found, sel) = results["paper"][0], results["restarts"]
    assert paper["p_at_1"] < 0.5
    assert sel.kept == 1 and sel.objectives[1] < sel.objectives[0]
    assert found["p_at_1"] >= 0.8 and found["p_at_10"] >= 0.95 > paper["p_at_10"]


def test_the_sessions_last_checkpoint_holds_the_kept_start(tmp_path, cipher):
    """Every start counts its steps from 0 and the kept one goes on from where the last one ended,
    so a step already checkpointed comes round again with another model: the session's checkpoint
    must still be written then. (It compared steps only, and a run whose last start was checkpointed
    at its last step ended with that start's model and an unmade choice in checkpoint.pt.)"""
    import itertools

    from engine.session import RunInputs, RunSession

    config = Config(**{**SMALL, "steps": 6, "anneal_steps": 4}, restarts=2, device="cpu")
    ticks = itertools.count()
    session = RunSession(RunInputs(cipher.corpus, cipher.vocabulary, config), checkpoint=tmp_path / "ck.pt",
                         checkpoint_every_s=1, clock=lambda: 10.0 * next(ticks))   # a checkpoint at every step
    outcome = session.run()
    assert outcome.status == "completed"
    sel = session.trainer.selection
    saved = torch.load(tmp_path / "ck.pt", weights_only=True)
    assert saved["restarts"]["kept"] == sel.kept >= 0 and len(saved["restarts"]["objectives"]) == 2
    for name, p in session.trainer.model.state_dict().items():
        assert torch.equal(saved["model"][name], p), name
