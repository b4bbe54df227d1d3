"""The multi-seed trainer: K seeds in lockstep are the K single runs (same batches, dropout masks,
losses, gradients and parameters), and the fused edit DP with several cost tables is K DPs."""

import pytest
import torch

from engine.config import Config
from engine.corpus import PinnedValue
from engine.training.lockstep import SeedGroup, train_seeds
from engine.model.scoring import make_batch
from engine.runs.session import RunInputs, RunSink
from engine.datasets.synthetic import make_cipher
from engine.training.trainer import Trainer, load_checkpoint
from engine.model.trie_alignment import StemTrie, fused_span_log_probs, trie_span_log_probs

SMALL = dict(feature_dim=8, steps=6, anneal_steps=4, eval_interval=0, chars_per_batch=60)


@pytest.fixture(scope="module")
def cipher():
    return make_cipher(n_stems=30, n_inscriptions=40, seed=2)


def single_run(cipher, seed, steps, pins=()):
    """The reference: one Trainer, stepped as Trainer.run does; its losses and parameters."""
    t = Trainer(cipher.corpus, cipher.vocabulary, Config(**SMALL, seed=seed), pins=pins, live_interval=None)
    losses = []
    for ev in t.run(steps):
        if hasattr(ev, "losses"):
            losses.append(ev.losses["total"])
    return t, losses


def group_run(cipher, seeds, steps, pins=()):
    g = SeedGroup(cipher.corpus, cipher.vocabulary, Config(**SMALL), seeds, pins=pins)
    losses = [[] for _ in seeds]
    for events in g.run(steps):
        for k, ev in enumerate(events):
            if hasattr(ev, "losses"):
                losses[k].append(ev.losses["total"])
    return g, losses


def assert_same_model(a, b, tol=1e-5):
    for (name, p), q in zip(a.named_parameters(), b.parameters()):
        assert torch.allclose(p, q, atol=tol, rtol=tol), name


def test_one_seed_group_is_the_single_run(cipher):
    single, single_losses = single_run(cipher, 3, 6)
    group, group_losses = group_run(cipher, [3], 6)
    assert group_losses[0] == pytest.approx(single_losses, rel=1e-6, abs=1e-7)
    assert_same_model(group.trainers[0].model, single.model)


def test_seeds_in_lockstep_are_the_independent_runs(cipher):
    pins = [PinnedValue(cipher.key["t"], "t")]
    group, group_losses = group_run(cipher, [0, 1, 2], 6, pins=pins)
    for k, seed in enumerate([0, 1, 2]):
        single, single_losses = single_run(cipher, seed, 6, pins=pins)
        assert group_losses[k] == pytest.approx(single_losses, rel=1e-6, abs=1e-7)
        assert_same_model(group.trainers[k].model, single.model)
        # and the seeds did differ (different initial values, batches and dropout)
    assert not torch.allclose(group.trainers[0].model.aligner, group.trainers[1].model.aligner)
    assert group_losses[0] != group_losses[1]


def test_seed_checkpoint_resumes_as_the_single_run(cipher, tmp_path):
    """A seed's checkpoint from the group continues exactly like the single run's own checkpoint."""
    group, _ = group_run(cipher, [0, 4], 3)
    group.save_checkpoint(1, tmp_path / "g.pt")
    single, _ = single_run(cipher, 4, 3)
    single.save_checkpoint(tmp_path / "s.pt")
    a, b = load_checkpoint(tmp_path / "g.pt"), load_checkpoint(tmp_path / "s.pt")
    assert torch.equal(a["torch_rng"], b["torch_rng"])
    assert a["rng"][1].tolist() == b["rng"][1].tolist()
    # one after the other: a resumed Trainer draws dropout from torch's global stream
    ra = Trainer.from_checkpoint(tmp_path / "g.pt", cipher.corpus, cipher.vocabulary, live_interval=None)
    list(ra.run(5))
    rb = Trainer.from_checkpoint(tmp_path / "s.pt", cipher.corpus, cipher.vocabulary, live_interval=None)
    list(rb.run(5))
    assert_same_model(ra.model, rb.model)


def random_trie(g, V=20, K=6):
    """A trie of up to V distinct random stems of 2..6 units < K."""
    lens = torch.randint(2, 7, (V,), generator=g)
    units = torch.randint(1, K, (V, 7), generator=g)
    uniq = {tuple(units[v, : lens[v]].tolist()): v for v in range(V)}
    keep = torch.tensor(sorted(uniq.values()))
    return StemTrie.build(units[keep], lens[keep])


def test_fused_dp_with_several_tables_is_several_dps():
    g = torch.Generator().manual_seed(0)
    V, K, C, S, N = 20, 6, 5, 7, 6
    trie = random_trie(g, V, K)
    tables = torch.randn(3, K, C, generator=g, dtype=torch.float64).log_softmax(2).requires_grad_(True)
    wins = [torch.randint(1, C, (S + k, N), generator=g) for k in range(3)]
    col = torch.cat([torch.full((S + k,), k) for k in range(3)])
    both = fused_span_log_probs(tables, trie, torch.cat(wins), [3, 4, 5], 0.7, col_table=col)
    w = torch.randn(both.shape, generator=g, dtype=torch.float64)
    (torch.where(both > -1e8, both, 0.0) * w).sum().backward()
    start = 0
    for k in range(3):
        ref_table = tables.detach()[k].clone().requires_grad_(True)
        ref = trie_span_log_probs(ref_table, trie, wins[k], [3, 4, 5], 0.7)
        part = both[:, start: start + S + k]
        assert torch.allclose(part, ref, atol=1e-9)
        (torch.where(ref > -1e8, ref, 0.0) * w[:, start: start + S + k]).sum().backward()
        assert torch.allclose(tables.grad[k], ref_table.grad, atol=1e-8)
        start += S + k


def test_train_seeds_reports_each_seed_to_its_sinks(cipher, tmp_path):
    calls = {}

    class Sink(RunSink):
        def __init__(self, seed):
            self.seed = seed
            calls[seed] = []

        def started(self, start):
            calls[self.seed].append(("started", start.config.seed))

        def evaluation(self, event):
            calls[self.seed].append(("evaluation", event.step))

        def checkpoint(self, path, step):
            calls[self.seed].append(("checkpoint", step))

        def finished(self, outcome):
            calls[self.seed].append(("finished", outcome.status, outcome.step))

    inputs = RunInputs(cipher.corpus, cipher.vocabulary, Config(**{**SMALL, "steps": 4}), gold=tuple(cipher.gold))
    outcomes = train_seeds(inputs, [5, 6], sinks_for=lambda s: [Sink(s)], checkpoint_for=lambda s: tmp_path / f"seed-{s}.pt")
    assert [o.status for o in outcomes] == ["completed", "completed"]
    assert all(o.evaluation is not None and "p_at_1" in o.metrics for o in outcomes)
    for seed in (5, 6):
        assert calls[seed][0] == ("started", seed)
        assert ("evaluation", 4) in calls[seed] and ("checkpoint", 4) in calls[seed]
        assert calls[seed][-1] == ("finished", "completed", 4)
        assert load_checkpoint(tmp_path / f"seed-{seed}.pt")["config"]["seed"] == seed


def test_a_group_needs_distinct_seeds(cipher):
    with pytest.raises(ValueError):
        SeedGroup(cipher.corpus, cipher.vocabulary, Config(**SMALL), [1, 1])


def test_seeds_benchmark_reports_both_walls(cipher):
    from benchmarks.speed import seeds_workload

    res = seeds_workload(cipher.corpus, cipher.vocabulary, n_seeds=2, steps=1, rounds=1, device="cpu")
    assert res["seeds"] == 2 and res["wall_s"] > 0 and res["single_wall_s"] > 0
    assert res["ratio"] == pytest.approx(res["wall_s"] / res["single_wall_s"])


@pytest.mark.parametrize("segmented", [False, True])
def test_fused_and_torch_trie_objectives_agree(segmented):
    from engine.model.mapping import CharMapping
    from engine.model.objective import batch_objective, pin_pairs
    from engine.model.prepared import prepare

    c = make_cipher(n_stems=20, n_inscriptions=12, seed=6, dividers=segmented)
    cfg = Config(feature_dim=6, dropout=0.0, segmented=segmented, min_span=3)
    prep = prepare(c.corpus, c.vocabulary, cfg)
    model = CharMapping(prep.lost_letters, prep.known_units, cfg).double()
    batch = make_batch(prep, list(range(6)))
    grads = []
    for impl in ("fused", "trie"):
        model.zero_grad()
        r = batch_objective(model, prep, batch, 10, pin_pairs(prep, []), prep.stem_units, prep.stem_len,
                            dp_impl=impl)
        r.loss.backward()
        grads.append((r.loss.detach(), r.scores, model.aligner.grad.clone(), model.feature_emb.grad.clone()))
    for a, b in zip(*grads):
        assert torch.allclose(a, b, atol=1e-8)


def test_seeds_in_folders_write_a_single_runs_outputs(cipher, tmp_path):
    import csv
    import json

    from engine.training.lockstep import train_seeds_in_folders
    from engine.runs.outputs import run_in_folder

    inputs = RunInputs(cipher.corpus, cipher.vocabulary, Config(**{**SMALL, "steps": 3}), gold=tuple(cipher.gold))
    train_seeds_in_folders(inputs, [0, 1], lambda s: tmp_path / f"seed-{s}")
    run_in_folder(RunInputs(cipher.corpus, cipher.vocabulary, Config(**{**SMALL, "steps": 3, "seed": 1}),
                            gold=tuple(cipher.gold)), tmp_path / "single")
    for name in ("metrics.json", "matches.csv", "steps.csv", "checkpoint.pt"):
        assert (tmp_path / "seed-1" / name).exists(), name
    a = json.loads((tmp_path / "seed-1" / "metrics.json").read_text())
    b = json.loads((tmp_path / "single" / "metrics.json").read_text())
    assert a["p_at_1"] == pytest.approx(b["p_at_1"])
    rows = [list(csv.reader((tmp_path / d / "matches.csv").open(encoding="utf-8"))) for d in ("seed-1", "single")]
    assert len(rows[0]) == len(rows[1]) > 1
    for ra, rb in zip(*rows):          # the same matches; scores equal to float rounding
        for x, y in zip(ra, rb):
            try:
                assert float(x) == pytest.approx(float(y), abs=1e-4)
            except ValueError:
                assert x == y


def test_compiled_logsumexp_over_stems_matches_torch():
    from engine.model.scoring import span_given_match

    g = torch.Generator().manual_seed(1)
    x = torch.randn(40, 25, 7, generator=g, dtype=torch.float64) * 5
    x[3, 4, 2] = -1e9                       # an impossible pair
    a, b = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
    ra, rb = span_given_match(a, 40), torch.logsumexp(b, 0) - torch.log(torch.tensor(40.0, dtype=torch.float64))
    assert torch.allclose(ra, rb, atol=1e-12)
    w = torch.randn(ra.shape, generator=g, dtype=torch.float64)
    (ra * w).sum().backward()
    (rb * w).sum().backward()
    assert torch.allclose(a.grad, b.grad, atol=1e-12)


class _Calls(RunSink):
    """What a seed's sinks are told: (method, step) in order; ``at`` runs a command at a step."""

    def __init__(self, log, at=None):
        self.log, self.at = log, at or {}

    def started(self, start):
        self.log.append(("started", start.step))

    def step(self, event):
        self.log.append(("step", event.step))
        if event.step in self.at:
            self.at[event.step]()

    def evaluation(self, event):
        self.log.append(("evaluation", event.step))

    def pins_changed(self, step, pins):
        self.log.append(("pins_changed", step))

    def checkpoint(self, path, step):
        self.log.append(("checkpoint", step))

    def finishing(self, outcome):
        self.log.append(("finishing", outcome.step))

    def finished(self, outcome):
        self.log.append(("finished", outcome.status))

    def failed(self, error, step):
        self.log.append(("failed", step))

    def close(self):
        self.log.append(("close", None))


def test_a_seed_of_a_group_is_told_what_its_single_run_session_tells(cipher, tmp_path):
    """Each seed's sinks and checkpoints in train_seeds are those of its own RunSession: the same
    calls at the same steps (the first step, every evaluation, the end), the same checkpoint."""
    from engine.runs.session import RunSession

    config = Config(**{**SMALL, "steps": 5, "eval_interval": 2})
    single: list = []
    RunSession(RunInputs(cipher.corpus, cipher.vocabulary, config.replace(seed=4), gold=tuple(cipher.gold)),
               sinks=[_Calls(single)], checkpoint=tmp_path / "single.pt").run()
    logs: dict = {3: [], 4: []}
    outcomes = train_seeds(RunInputs(cipher.corpus, cipher.vocabulary, config, gold=tuple(cipher.gold)), [3, 4],
                           sinks_for=lambda s: [_Calls(logs[s])], checkpoint_for=lambda s: tmp_path / f"seed-{s}.pt")
    assert logs[4] == single and logs[3] == single
    assert ("checkpoint", 1) in single and ("checkpoint", 4) in single and single[-1] == ("close", None)
    assert [o.checkpoint for o in outcomes] == [tmp_path / "seed-3.pt", tmp_path / "seed-4.pt"]
    grouped, alone = load_checkpoint(tmp_path / "seed-4.pt"), load_checkpoint(tmp_path / "single.pt")
    assert grouped["step"] == alone["step"] == 5 and grouped["config"] == alone["config"]
    for name, value in alone["model"].items():
        assert torch.allclose(grouped["model"][name], value, atol=1e-6), name


def test_a_stop_or_an_abort_of_one_seed_ends_the_group(cipher, tmp_path):
    config = Config(**{**SMALL, "steps": 50})
    inputs = RunInputs(cipher.corpus, cipher.vocabulary, config, gold=tuple(cipher.gold))

    sessions: list = []
    logs: dict = {0: [], 1: []}
    stop_at = {2: lambda: sessions[1].stop()}  # from seed 0's sink: any thread may command a session
    outcomes = train_seeds(inputs, [0, 1], sessions=sessions,
                           sinks_for=lambda s: [_Calls(logs[s], stop_at if s == 0 else None)],
                           checkpoint_for=lambda s: tmp_path / f"stop-{s}.pt")
    assert [(o.status, o.step) for o in outcomes] == [("stopped", 2), ("stopped", 2)]
    for s in (0, 1):
        assert ("evaluation", 2) in logs[s] and ("checkpoint", 2) in logs[s], "a stop evaluates once more"
        assert load_checkpoint(tmp_path / f"stop-{s}.pt")["step"] == 2

    sessions.clear()
    logs = {0: [], 1: []}
    abort_at = {3: lambda: sessions[0].abort("stopped: the window closed")}
    outcomes = train_seeds(inputs, [0, 1], sessions=sessions,
                           sinks_for=lambda s: [_Calls(logs[s], abort_at if s == 0 else None)],
                           checkpoint_for=lambda s: tmp_path / f"abort-{s}.pt")
    assert [(o.status, o.step, o.note) for o in outcomes] == [("stopped", 3, "stopped: the window closed")] * 2
    for s in (0, 1):
        assert not any(kind == "evaluation" for kind, _ in logs[s]), "an abort ends without evaluating"
        assert load_checkpoint(tmp_path / f"abort-{s}.pt")["step"] == 3


def test_a_failing_sink_fails_every_seed_of_the_group(cipher):
    class Broken(RunSink):
        def evaluation(self, event):
            raise OSError("disk full")

    logs: dict = {0: [], 1: []}
    inputs = RunInputs(cipher.corpus, cipher.vocabulary, Config(**{**SMALL, "steps": 2}), gold=tuple(cipher.gold))
    with pytest.raises(OSError, match="disk full"):
        train_seeds(inputs, [0, 1], sinks_for=lambda s: [_Calls(logs[s]), *([Broken()] if s == 1 else [])])
    for s in (0, 1):
        assert logs[s][-2:] == [("failed", 2), ("close", None)]
        assert not any(kind == "finished" for kind, _ in logs[s])


def test_ctrl_c_ends_every_seed_of_the_group_with_a_checkpoint(cipher, tmp_path):
    import os
    import signal

    before = signal.getsignal(signal.SIGINT)
    inputs = RunInputs(cipher.corpus, cipher.vocabulary, Config(**{**SMALL, "steps": 50}), gold=tuple(cipher.gold))
    at = {2: lambda: os.kill(os.getpid(), signal.SIGINT)}  # from the last seed's sink: seed 0 took step 2
    logs: dict = {0: [], 1: []}
    outcomes = train_seeds(inputs, [0, 1], handle_signals=True,
                           sinks_for=lambda s: [_Calls(logs[s], at if s == 1 else None)],
                           checkpoint_for=lambda s: tmp_path / f"seed-{s}.pt")
    for s in (0, 1):
        assert not any(kind == "evaluation" for kind, _ in logs[s]), "interrupted: no final evaluation"
    assert [(o.status, o.reason, o.step) for o in outcomes] == [("stopped", "interrupted", 2)] * 2
    assert all(o.note == "interrupted by SIGINT (Ctrl-C)" for o in outcomes)
    assert all(load_checkpoint(tmp_path / f"seed-{s}.pt")["step"] == 2 for s in (0, 1))
    assert signal.getsignal(signal.SIGINT) is before, "the handlers are given back"


def test_pins_sent_to_a_group_fail_it_before_any_sink_records_them(cipher, tmp_path):
    sessions: list = []
    logs: dict = {0: [], 1: []}
    at = {2: lambda: sessions[0].send_pins([PinnedValue("a", "a")])}
    inputs = RunInputs(cipher.corpus, cipher.vocabulary, Config(**{**SMALL, "steps": 50}), gold=tuple(cipher.gold))
    with pytest.raises(ValueError, match="pins they started with"):
        train_seeds(inputs, [0, 1], sessions=sessions, sinks_for=lambda s: [_Calls(logs[s], at if s == 1 else None)])
    for s in (0, 1):
        assert logs[s][-2:] == [("failed", 2), ("close", None)]
        assert not any(kind == "pins_changed" for kind, _ in logs[s])
