"""The batch of runs used where many runs are made (issue 50 B): a pool task's runs that may share a
batch train as one (engine/runs/workers.py run_seed_group), each landing in its own folder / project
record as its single run; an incompatible run of a task runs alone; the callers put compatible runs
into tasks that keep every worker busy."""

from __future__ import annotations

import csv
import json
from dataclasses import replace
from pathlib import Path

import pytest

from engine.config import Config
from engine.runs.sweep import PlannedRun, _tasks
from engine.runs.workers import RunItem, run_item, run_seed_group
from tests.engine.test_seeds_group import project_path  # noqa: F401 - the fixture: a small project

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "sample"
#: the sample project's settings (resources/sample/sample.toml [config]) with a tiny run
STEPS = [a for kv in ("min_span=3", "insertion_cost_start=10.0", "segmented=true", "steps=3", "anneal_steps=2",
                      "eval_interval=2", "feature_dim=8", "device=cpu") for a in ("--set", kv)]
KEYS = ("p_at_1", "p_at_10", "coverage", "objective")


def _metrics(folder: Path) -> dict:
    return json.loads((folder / "metrics.json").read_text(encoding="utf-8"))


def _rows(folder: Path, name: str) -> list[list[str]]:
    with open(folder / name, encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


def assert_same_outputs(a: Path, b: Path) -> None:
    ma, mb = _metrics(a), _metrics(b)
    for key in KEYS:
        if key in mb:
            assert ma[key] == pytest.approx(mb[key], rel=1e-6, abs=1e-9), key
    for name in ("matches.csv", "steps.csv"):      # the same matches and step losses, to float rounding
        ra, rb = _rows(a, name), _rows(b, name)
        assert len(ra) == len(rb) and ra[0] == rb[0]
        for x, y in zip(ra[1:], rb[1:]):
            for u, v in zip(x, y):
                try:
                    assert float(u) == pytest.approx(float(v), rel=1e-6, abs=1e-6)
                except ValueError:
                    assert u == v
    assert len(_rows(a, "steps.csv")) == _metrics(a)["steps"] + 1 > 1
    assert (a / "checkpoint.pt").exists()


@pytest.fixture()
def sample_inputs():
    from engine.runs.inputs import inputs_from_files

    cfg = Config(feature_dim=8, min_span=3, insertion_cost_start=10.0, segmented=True, steps=3, anneal_steps=2,
                 eval_interval=2, device="cpu")
    return inputs_from_files(SAMPLE / "lost.csv", SAMPLE / "known.csv", cfg, gold=SAMPLE / "gold.csv")


def test_run_seeds_trains_the_seeds_as_one_batch_equal_to_one_run_per_task(tmp_path, monkeypatch):
    """``decipher run --seeds 0 1 2`` (one worker: one task of three seeds, one batch) gives each seed
    the metrics and matches of that seed run as its own task (the path every seed took before)."""
    from engine.cli.main import main as decipher
    from engine.training import lockstep

    batches = []
    real = lockstep.train_sessions
    monkeypatch.setattr(lockstep, "train_sessions", lambda sessions, **kw: batches.append(len(sessions))
                        or real(sessions, **kw))
    out = tmp_path / "seeds"
    assert decipher(["run", "--lost", str(SAMPLE / "lost.csv"), "--known", str(SAMPLE / "known.csv"),
                     "--gold", str(SAMPLE / "gold.csv"), *STEPS,
                     "--seeds", "0", "1", "2", "--out", str(out)]) == 0
    assert batches == [3], "the three seeds trained as one batch"
    from engine.runs.inputs import inputs_from_files

    config = Config.from_dict(_metrics(out / "seed-0")["config"])
    inputs = inputs_from_files(SAMPLE / "lost.csv", SAMPLE / "known.csv", config, gold=SAMPLE / "gold.csv")
    for seed in (0, 1, 2):
        alone = tmp_path / "alone" / f"seed-{seed}"
        result = run_item(RunItem(alone, "known", seed, inputs=replace(inputs, config=config.replace(seed=seed))))
        assert result.status == "completed"
        assert _metrics(out / f"seed-{seed}")["config"] == _metrics(alone)["config"]
        assert_same_outputs(out / f"seed-{seed}", alone)
    rows = list(csv.DictReader(open(out / "results.csv", encoding="utf-8")))
    assert [r["status"] for r in rows] == ["completed"] * 3 and (out / "consensus.csv").exists()


def test_an_incompatible_item_of_a_task_runs_alone(tmp_path, sample_inputs, monkeypatch):
    from engine.runs import workers
    from engine.training import lockstep

    alone_calls, batches = [], []
    real_item, real_batch = workers.run_item, lockstep.train_sessions
    monkeypatch.setattr(workers, "run_item", lambda item, **kw: alone_calls.append(item.seed) or real_item(item, **kw))
    monkeypatch.setattr(lockstep, "train_sessions", lambda sessions, **kw: batches.append(
        [s.inputs.config.seed for s in sessions]) or real_batch(sessions, **kw))
    cfg = sample_inputs.config
    items = [RunItem(tmp_path / f"r{k}", "known", k, inputs=replace(sample_inputs, config=c))
             for k, c in enumerate([cfg.replace(seed=0), cfg.replace(seed=1, restarts=2, restart_steps=1),
                                    cfg.replace(seed=2, lr=0.1)])]
    results = run_seed_group(items)
    assert [r.status for r in results] == ["completed"] * 3
    assert [Path(r.run_dir).name for r in results] == ["r0", "r1", "r2"]
    assert alone_calls == [1] and batches == [[0, 2]]
    assert _metrics(tmp_path / "r1")["restarts"] == 2
    for k in (0, 2):               # the batched ones are their single runs
        real_item(replace(items[k], run_dir=tmp_path / f"single{k}"))
        assert_same_outputs(tmp_path / f"r{k}", tmp_path / f"single{k}")
        assert "objective" in _metrics(tmp_path / f"r{k}")


def test_a_task_split_by_memory_runs_its_batches_one_after_another(tmp_path, sample_inputs, monkeypatch):
    from engine.training import lockstep

    batches = []
    real = lockstep.train_sessions
    monkeypatch.setattr(lockstep, "train_sessions", lambda sessions, **kw: batches.append(len(sessions))
                        or real(sessions, **kw))
    cfg = sample_inputs.config
    items = [RunItem(tmp_path / f"s{k}", "known", k, inputs=replace(sample_inputs, config=cfg.replace(seed=k)))
             for k in range(3)]
    per_run = lockstep.run_bytes(sample_inputs.corpus, cfg, sample_inputs.vocabulary)
    results = run_seed_group(items, budget=2 * per_run)
    assert batches == [2] and [r.status for r in results] == ["completed"] * 3   # a batch of 2, then one alone


def test_project_runs_of_a_task_are_each_recorded_as_its_single_run(tmp_path, project_path):
    from engine.project import Project

    path = project_path
    cfg = Config(steps=3, eval_interval=0, feature_dim=8, chars_per_batch=60, device="cpu")
    items = [RunItem(tmp_path / "g" / f"seed-{s}", "synthetic", s, project=path, config=cfg.replace(seed=s),
                     corpus="cipher", language="synthetic") for s in (0, 1)]
    results = run_seed_group(items)
    assert [r.status for r in results] == ["completed", "completed"]
    single = run_item(replace(items[1], run_dir=tmp_path / "single"))
    with Project.open(path) as p:
        runs = {r.id: r for r in p.runs()}
    assert len(runs) == 3 and {results[0].run_id, results[1].run_id, single.run_id} == set(runs)
    assert all(runs[r.run_id].status == "completed" for r in results)
    assert _metrics(tmp_path / "g" / "seed-1")["run_id"] == results[1].run_id
    assert results[1].metrics == pytest.approx(single.metrics, rel=1e-6)
    assert results[1].objective == pytest.approx(single.objective, rel=1e-6)


def P(known, seed, settings=None):
    return PlannedRun(known, seed, dict(settings or {}), f"{known}/{seed}-{settings}")


def test_tasks_keep_every_worker_busy():
    seeds = [P("k", s) for s in range(5)]
    assert [len(t) for t in _tasks(seeds, "auto", in_flight=2)] == [3, 2]     # both cores busy
    assert [len(t) for t in _tasks(seeds, "auto", in_flight=1)] == [5]        # one batch of five
    assert [len(t) for t in _tasks(seeds, "auto", in_flight=8)] == [1] * 5
    many = [P("k", s) for s in range(40)]
    assert [len(t) for t in _tasks(many, "auto", in_flight=1)] == [16, 16, 8]
    assert [t[0].seed for t in _tasks(seeds, 1)] == [0, 1, 2, 3, 4]            # one a task: as planned
    # a comparison: the own runs and the nulls never share a task; other keys keep their order
    runs = [P("a", 0), P("b", 0), P("a", 0, {"null": 0}), P("b", 0, {"null": 0}), P("a", 1, {"null": 1})]
    tasks = _tasks(runs, "auto", key=lambda p: "null" in p.settings, in_flight=1)
    assert [[(p.known, p.settings.get("null")) for p in t] for t in tasks] == [
        [("a", None), ("b", None)], [("a", 0), ("b", 0), ("a", 1)]]


def test_a_sweep_over_a_per_run_setting_shares_tasks():
    from engine.runs.sweep import sweep_task_key

    a, b, c = P("k", 0, {"lr": 0.1}), P("k", 0, {"lr": 0.2}), P("k", 0, {"max_span": 8})
    assert sweep_task_key(a) == sweep_task_key(b) != sweep_task_key(c)
