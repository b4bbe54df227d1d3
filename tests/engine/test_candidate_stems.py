"""candidate_stems (engine/model/candidate_stems.py): the narrowing schedule, the top-K choice, the default
model unchanged, evaluation over the whole vocabulary, and a 10x-distractor synthetic cipher."""

import math

import pytest
import torch

from benchmarks.experiments.vocab_scaling import SYNTHETIC_SETTINGS, distractor_stems, synthetic_problem
from engine.model.alignment import NEG
from engine.model.candidate_stems import competition_size, narrowing_step, top_candidates
from engine.config import Config
from engine.model.mapping import CharMapping
from engine.model.objective import batch_objective, pin_pairs
from engine.model.prepared import prepare
from engine.model.scoring import make_batch, span_given_match, span_scores
from engine.datasets.synthetic import make_cipher
from engine.training.trainer import Trainer


@pytest.fixture(scope="module")
def cipher():
    return make_cipher(n_stems=20, n_inscriptions=12, seed=6, dividers=True)


def _prep(cipher, **settings):
    cfg = Config(feature_dim=4, segmented=True, min_span=3, steps=100, anneal_steps=100, **settings)
    return prepare(cipher.corpus, cipher.vocabulary, cfg)


def test_competition_size_schedule(cipher):
    V = len(cipher.vocabulary.stems)
    assert competition_size(_prep(cipher), 0) == V                           # off by default
    assert competition_size(_prep(cipher, candidate_stems=V), 100) == V       # K >= |V|: the paper
    prep = _prep(cipher, candidate_stems=4, candidate_start=0.5)
    assert narrowing_step(prep) == 50
    sizes = [competition_size(prep, s) for s in range(0, 120)]
    assert sizes[:50] == [V] * 50                                             # every stem first
    assert sizes[100:] == [4] * 20                                            # K from the end of annealing
    assert all(a >= b for a, b in zip(sizes, sizes[1:]))                      # narrows, never widens
    assert V > sizes[75] > 4                                                  # geometrically in between
    assert competition_size(prep) == 4                                        # the decoder's K


def test_top_candidates_keeps_the_best_and_never_an_impossible_pair():
    scores = torch.tensor([[[-1.0], [-9.0]],
                           [[-3.0], [NEG]],
                           [[-2.0], [-8.0]],
                           [[-7.0], [NEG]]])                                  # (V=4, S=2, 1)
    mask = top_candidates(scores, 2)
    assert mask[:, 0, 0].tolist() == [True, False, True, False]
    assert mask[:, 1, 0].tolist() == [True, False, True, False]
    only_one_possible = top_candidates(torch.tensor([[[-5.0]], [[NEG]], [[NEG]]]), 2)
    assert only_one_possible[:, 0, 0].tolist() == [True, False, False]


def test_default_and_k_at_least_v_give_the_papers_loss(cipher):
    V = len(cipher.vocabulary.stems)
    losses = []
    for settings in ({}, {"candidate_stems": V}, {"candidate_stems": V + 5, "candidate_start": 0.0}):
        prep = _prep(cipher, dropout=0.0, **settings)
        torch.manual_seed(0)
        model = CharMapping(prep.lost_letters, prep.known_units, prep.config).double()
        batch = make_batch(prep, prep.trainable_chunks()[:6])
        losses.append(float(batch_objective(model, prep, batch, 80, pin_pairs(prep, []),
                                            prep.stem_units, prep.stem_len).loss.detach()))
    assert losses[0] == losses[1] == losses[2]


def test_narrowed_objective_is_the_mean_over_each_spans_k_best(cipher):
    prep = _prep(cipher, dropout=0.0, candidate_stems=3, candidate_start=0.0)
    torch.manual_seed(0)
    model = CharMapping(prep.lost_letters, prep.known_units, prep.config).double()
    batch = make_batch(prep, prep.trainable_chunks()[:6])
    step = 100
    result = batch_objective(model, prep, batch, step, pin_pairs(prep, []), prep.stem_units, prep.stem_len)
    result.loss.backward()
    assert all(torch.isfinite(p.grad).all() for p in model.parameters())
    # the scores handed back (live decoding) are every stem's
    assert result.scores.shape[0] == prep.n_stems
    # the lattice saw log mean over each span's 3 best stems
    with torch.no_grad():
        full = span_scores(model.log_probs(dropout=False), prep, batch, prep.config.insertion_cost(step),
                           prep.stem_units, prep.stem_len)
    expected = torch.logsumexp(torch.topk(full, 3, dim=0).values, dim=0) - math.log(3)
    paper = span_given_match(full, prep.n_stems)
    emit = result.lattice_inputs[0]
    from engine.model.objective import log_match_prior
    from engine.model.scoring import place_emissions
    assert torch.allclose(emit, place_emissions(expected + log_match_prior(prep), batch))
    assert not torch.allclose(emit, place_emissions(paper + log_match_prior(prep), batch))


def test_evaluation_ranks_every_stem(cipher):
    trainer = Trainer(cipher.corpus, cipher.vocabulary,
                      Config(feature_dim=4, segmented=True, min_span=3, steps=3, anneal_steps=2,
                             candidate_stems=2, candidate_start=0.0, eval_interval=0),
                      gold=cipher.gold, live_interval=0)
    events = list(trainer.run())
    ev = trainer.last_evaluation
    assert any(len(m.alternatives) > 2 for m in ev.matches)                   # top_k 10 > K = 2
    assert any(r is not None and r > 2 for r in ev.gold_ranks)                # ranks among all stems
    assert any(getattr(e, "batch_matches", ()) for e in events)               # live decoding works


def test_distractors_come_from_the_same_sound_system_and_avoid_the_true_stems():
    true = ["pata", "kiso"]
    extra = distractor_stems(true, 50, seed=1)
    assert len({s.form for s in extra}) == 50 and not {s.form for s in extra} & set(true)
    assert all(s.form[0] in "ptkbdgmnslrfvwjh" and 4 <= len(s.form) <= 6 for s in extra)


def test_ten_times_the_distractors_the_setting_finds_what_the_paper_misses():
    """The issue's synthetic check: 30 true stems + 300 random stems of the same sound system.
    Seed 3: the paper's model ends in a wrong optimum; candidate_stems 16 finds the cognates.
    Seed 3 was chosen because it shows the gain: over seeds 0-4 the setting helps 3 of 5 and does
    not rescue seeds 0 and 4 (docs/benchmarks.md, "Large vocabularies"), which is why it is off by
    default. This test pins the mechanism on one seed, not the setting's general benefit."""
    corpus, vocab, gold = synthetic_problem(10)
    assert len(vocab.stems) == 330
    results = {}
    threads = torch.get_num_threads()
    torch.set_num_threads(1)        # as the benchmark: tiny tensors, a second thread only waits
    try:
        for k in (0, 16):
            cfg = Config(**SYNTHETIC_SETTINGS, steps=150, anneal_steps=100, seed=3, candidate_stems=k)
            trainer = Trainer(corpus, vocab, cfg, gold=gold, live_interval=None)
            list(trainer.run())
            results[k] = trainer.last_evaluation.metrics
    finally:
        torch.set_num_threads(threads)
    assert results[0]["p_at_1"] < 0.5
    assert results[16]["p_at_1"] >= 0.7
    assert results[16]["p_at_10"] >= results[0]["p_at_10"]


def test_the_sweep_resumes_skipping_configurations_already_in_out(tmp_path, monkeypatch, capsys):
    """A sweep stopped at the end of a session resumes: configurations whose line is in --out are
    not trained again, the others are, and their lines are appended."""
    import json
    import subprocess
    import types

    from benchmarks.experiments import vocab_scaling

    trained = []

    def fake_run(cmd, capture_output, text):
        spec = json.loads(cmd[-1])
        trained.append((spec["multiplier"], spec["candidate_stems"], spec["seed"]))
        return types.SimpleNamespace(returncode=0, stderr="",
                                     stdout=json.dumps({**vocab_scaling.spec_key(spec), "p_at_1": 0.5}) + "\n")

    monkeypatch.setattr(subprocess, "run", fake_run)
    out = tmp_path / "sweep.jsonl"
    # one configuration already measured (with the extra keys a real line carries)
    out.write_text(json.dumps({"mode": "synthetic", "steps": 20, "seed": 0, "candidate_stems": 16, "multiplier": 10,
                               "p_at_1": 0.9, "n_stems": 330}) + "\n\n", encoding="utf-8")
    args = ["synthetic", "--multipliers", "10", "--candidate-stems", "0", "16", "--seeds", "0", "1",
            "--steps", "20", "--out", str(out)]
    assert vocab_scaling.main(args) == 0
    assert trained == [(10, 0, 0), (10, 0, 1), (10, 16, 1)]
    lines = [json.loads(t) for t in out.read_text(encoding="utf-8").splitlines() if t.strip()]
    assert len(lines) == 4 and lines[0]["p_at_1"] == 0.9
    assert "already in" in capsys.readouterr().err
    trained.clear()
    assert vocab_scaling.main(args) == 0 and trained == []          # everything is measured: nothing runs
    # another step count is another configuration
    assert vocab_scaling.main(args[:-3] + ["30", "--out", str(out)]) == 0 and len(trained) == 4


def test_the_sweep_refuses_a_broken_results_file_in_one_line(tmp_path):
    from benchmarks.experiments import vocab_scaling

    out = tmp_path / "sweep.jsonl"
    out.write_text('{"mode": "synthetic"}\n{not json\n', encoding="utf-8")
    with pytest.raises(SystemExit, match=r"sweep.jsonl, line 2: not a JSON line"):
        vocab_scaling.main(["synthetic", "--multipliers", "10", "--out", str(out)])


def test_only_the_best_stem_stops_rewarding_a_letter_read_two_ways():
    """Why candidate_stems = 1 can hold the full Ugaritic set's mapping (docs/benchmarks.md, "A competition of
    one"): where the dictionary holds paradigms (stems that differ only in a last h or j), a mapping under
    which known h also yields lost j lets a word ending in j match both stems. The paper's mean over
    every stem adds both up, so its matching quality prefers that reading; each span's best stem alone
    does not, so it prefers the sharp one. A fixed table through the model's own DP and objective."""
    from engine.corpus import Corpus, Inscription, Stem, Vocabulary
    from engine.training.final_objective import corpus_objective

    words = ["abj", "kdj", "mnj", "ahl"]              # three words with a paradigm partner, one with h
    stems = [*words, "abh", "kdh", "mnh"]
    corpus = Corpus("w", tuple(Inscription(f"w{i}", w) for i, w in enumerate(words)))
    vocab = Vocabulary("k", tuple(Stem(s, s) for s in stems))
    trainer = Trainer(corpus, vocab, Config(feature_dim=4, segmented=True, min_span=3, insertion_cost_start=10,
                                            insertion_cost_end=10, edit_mode="max", steps=1, anneal_steps=0),
                      live_interval=None)
    prep = trainer.prep
    lost, known = prep.lost_index(), prep.known_index()

    def table(h_reads_j: float) -> torch.Tensor:
        p = torch.full((len(prep.known_units), len(prep.lost_letters)), 1e-6)
        for u in prep.known_units[1:]:
            p[known[u], lost[u]] = 1.0
        p[known["h"], lost["h"]], p[known["h"], lost["j"]] = 1.0 - h_reads_j, h_reads_j
        return (p / p.sum(dim=1, keepdim=True)).log()

    def quality(h_reads_j: float, stems_k=None) -> float:
        trainer.model.log_probs = lambda dropout=False: table(h_reads_j)
        return corpus_objective(trainer, stems=stems_k)["quality"]

    assert quality(0.5) > quality(0.0)                # every stem: the two-way reading matches better
    assert quality(0.0, stems_k=1) > quality(0.5, stems_k=1)    # the best stem alone: the sharp reading


def test_a_run_on_a_large_dictionary_without_the_setting_is_told_of_it(monkeypatch):
    from engine.runs import outputs as run_outputs

    c = make_cipher(n_stems=12, n_inscriptions=4, seed=1, dividers=True)
    settings = dict(feature_dim=4, segmented=True, min_span=3)
    monkeypatch.setattr(run_outputs, "LARGE_VOCABULARY", 11)
    notes = run_outputs.preparation_notes(Trainer(c.corpus, c.vocabulary, Config(**settings), live_interval=None))
    assert any("12 stems" in n and "candidate_stems=1" in n for n in notes), notes
    quiet = [Trainer(c.corpus, c.vocabulary, Config(**settings, candidate_stems=1), live_interval=None)]
    monkeypatch.setattr(run_outputs, "LARGE_VOCABULARY", 12)
    quiet.append(Trainer(c.corpus, c.vocabulary, Config(**settings), live_interval=None))
    assert not any("candidate_stems" in n for t in quiet for n in run_outputs.preparation_notes(t))



def test_a_batchs_own_candidate_trie_is_run_eagerly_not_captured(cipher, monkeypatch):
    """On CUDA a kept trie's DP is captured as CUDA graphs; a batch's one-off candidate trie must
    not be (a capture per batch kept its own GPU memory pool: a full-Ugaritic run with
    candidate_stems = 1 ran out of an H100's 80 GB). Checked through the trie DP, the GPU's path."""
    import engine.model.scoring as scoring

    asked = []
    real = scoring.trie_span_log_probs

    def spy(log_p, trie, windows, lengths, gamma, *, band, mode, static=None):
        asked.append((trie, static))
        return real(log_p, trie, windows, lengths, gamma, band=band, mode=mode, static=False)

    monkeypatch.setattr(scoring, "trie_span_log_probs", spy)
    prep = _prep(cipher, dropout=0.0, candidate_stems=3, candidate_start=0.0)
    torch.manual_seed(0)
    model = CharMapping(prep.lost_letters, prep.known_units, prep.config).double()
    batch = make_batch(prep, prep.trainable_chunks()[:6])
    result = batch_objective(model, prep, batch, 100, pin_pairs(prep, []), prep.stem_units, prep.stem_len,
                             dp_impl="trie")
    result.loss.backward()
    kept = {id(t) for t in prep.__dict__.get("_tries", {}).values()}
    assert any(id(t) in kept for t, _ in asked)                   # the pass over every stem ...
    assert all(static is None for t, static in asked if id(t) in kept)      # ... may be captured
    one_off = [static for t, static in asked if id(t) not in kept]
    assert one_off and all(static is False for static in one_off)           # the candidates' never
