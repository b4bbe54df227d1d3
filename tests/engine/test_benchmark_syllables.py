"""Smoke tests of the syllable benchmarks (benchmarks/syllable_cost.py, benchmarks/linear_b.py).

The cost script runs for real on the synthetic syllabary (built by the CLI, no shared data); the
Linear B runner's resumption, table and summary are checked with a stand-in for the child process
that writes what ``decipher run --seeds S`` writes (the real runs take minutes)."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from benchmarks import linear_b, syllable_cost


# ------------------------------------------------------------------------------------------ cost

@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> Path:
    return syllable_cost.ensure_data("synthetic", tmp_path_factory.mktemp("syl"))


def test_side_by_side_alternates_the_arms_and_summarises_every_step(synthetic):
    rows = syllable_cost.side_by_side("synthetic", synthetic, reps=3, block=2, warmup=1)
    blocks = [r for r in rows if r["kind"] == "block"]
    assert [(r["rep"], r["signs"]) for r in blocks] == [
        (0, "letters"), (0, "syllables"), (1, "syllables"), (1, "letters"), (2, "letters"), (2, "syllables")]
    assert all(len(r["step_ms"]) == 2 and min(r["step_ms"]) > 0 for r in blocks)
    (summary,) = [r for r in rows if r["kind"] == "summary"]
    letters = sorted(x for r in blocks if r["signs"] == "letters" for x in r["step_ms"])
    syllables = sorted(x for r in blocks if r["signs"] == "syllables" for x in r["step_ms"])
    med = lambda xs: (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2   # noqa: E731 (six steps each)
    assert summary["letters_step_ms"] == pytest.approx(med(letters), abs=0.02)
    assert summary["ratio"] == pytest.approx(med(syllables) / med(letters), abs=0.01)
    assert len(summary["ratio_per_rep"]) == 3
    assert summary["within_target"] == (summary["ratio"] <= 2.0)


def test_the_two_arms_differ_only_in_signs(synthetic):
    a = syllable_cost.make_trainer(synthetic, "letters").config.to_dict()
    b = syllable_cost.make_trainer(synthetic, "syllables").config.to_dict()
    assert {k for k in a if a[k] != b[k]} == {"signs"}
    from engine.config import PRESETS
    assert all(b[k] == v for k, v in PRESETS["linear-b"].items())


def test_cost_script_writes_json_lines_with_commit_and_machine(synthetic, tmp_path):
    out = tmp_path / "cost.jsonl"
    cache = synthetic.parent.parent
    assert syllable_cost.main(["--data", "synthetic", "--reps", "1", "--block", "1", "--warmup", "0",
                               "--no-full", "--cache", str(cache), "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["kind"] for r in rows] == ["block", "block", "summary"]
    assert all(len(r["commit"]) >= 40 and r["machine"]["nproc"] >= 1 for r in rows)


def test_cost_script_refuses_a_missing_file_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(syllable_cost, "LINEAR_B_COG", tmp_path / "nope.cog")
    out = tmp_path / "cost.jsonl"
    assert syllable_cost.main(["--data", "linear-b", "--cache", str(tmp_path), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nope.cog: file not found" in err[0]
    assert not out.exists()


# ------------------------------------------------------------------------------------------ linear_b

class FakeRun:
    """Stands in for the child ``decipher run --seeds S``: writes its seed's metrics.json and matches.csv."""

    def __init__(self, objective_of=lambda s: 10.0 - s, p1_of=lambda s: 0.1 * s, config_change=None):
        self.calls: list[int] = []
        self.objective_of, self.p1_of, self.config_change = objective_of, p1_of, config_change

    def __call__(self, cmd, out: Path) -> dict:
        seed = int(cmd[cmd.index("--seeds") + 1])
        steps = int(cmd[cmd.index("--steps") + 1])
        assert cmd[cmd.index("--preset") + 1] == "linear-b" and "--force-rerun" in cmd
        self.calls.append(seed)
        run = out / f"seed-{seed}"
        run.mkdir(parents=True, exist_ok=True)
        config = linear_b.expected_config(steps, seed) | (self.config_change or {})
        p1 = self.p1_of(seed)
        (run / "metrics.json").write_text(json.dumps({
            "p_at_1": p1, "p_at_10": p1 + 0.2, "p_at_1_strict": p1 / 2, "p_at_10_strict": p1 / 2 + 0.1,
            "signs_standard": seed, "signs_with_standard": 70, "coverage": 0.5, "objective": self.objective_of(seed),
            "steps": steps, "wall_time_s": 1.0, "peak_memory_mb": 100.0, "config": config}), encoding="utf-8")
        (run / "matches.csv").write_text("inscription_id,start,end,span,rank,stem_form,stem_ipa\n", encoding="utf-8")
        (out / "bench.log").write_text("", encoding="utf-8")
        return {"rc": 0, "wall_s": 2.0, "peak_rss_mb": 123.0}


@pytest.fixture
def grid(tmp_path):
    cache = tmp_path / "cache"
    for f in linear_b.FILES:   # an imported file as import-cog leaves it (only the letters are read)
        d = cache / "import" / f
        d.mkdir(parents=True)
        (d / "gold.csv").write_text("", encoding="utf-8")
        (d / "lost.csv").write_text("id,text\nx:1,𐀀𐀁\n", encoding="utf-8")
    return cache, tmp_path / "res" / "linear-b.csv"


def read_csv(path: Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_linear_b_runs_each_seed_once_and_resumes(grid):
    cache, results = grid
    fake = FakeRun()
    assert linear_b.run_grid(["words"], [0, 1, 2], 30, jobs=2, cache=cache, results=results, launcher=fake,
                             log=lambda _: None) == 0
    assert sorted(fake.calls) == [0, 1, 2]
    rows = read_csv(results)
    assert [(r["file"], r["seed"], r["steps"]) for r in rows] == [("words", str(s), "30") for s in (0, 1, 2)]
    assert rows[2]["p_at_1_strict"] == "0.1" and rows[2]["peak_rss_mb"] == "123.0" and rows[2]["wall_s"] == "2.0"
    again = FakeRun()
    linear_b.run_grid(["words"], [0, 1, 2, 3], 30, cache=cache, results=results, launcher=again, log=lambda _: None)
    assert again.calls == [3]                               # the finished seeds are skipped
    other_steps = FakeRun()
    linear_b.run_grid(["words"], [0], 40, cache=cache, results=results, launcher=other_steps, log=lambda _: None)
    assert other_steps.calls == [0]                         # other steps: another run


def test_linear_b_reruns_a_folder_made_with_other_settings(grid):
    cache, results = grid
    linear_b.run_grid(["words"], [0], 30, cache=cache, results=results, launcher=FakeRun(config_change={"band": 9}),
                      log=lambda _: None)
    fake = FakeRun()
    linear_b.run_grid(["words"], [0], 30, cache=cache, results=results, launcher=fake, log=lambda _: None)
    assert fake.calls == [0]


def test_linear_b_summary_best_mean_and_the_gold_free_choice(grid):
    cache, results = grid
    # seed 1 has the lowest objective; seed 2 the best P@1
    fake = FakeRun(objective_of=lambda s: {0: 5.0, 1: 3.0, 2: 4.0}[s], p1_of=lambda s: {0: 0.2, 1: 0.4, 2: 0.6}[s])
    linear_b.run_grid(["words", "names"], [0, 1, 2], 30, cache=cache, results=results, launcher=fake,
                      log=lambda _: None)
    summary = json.loads(results.with_name("linear-b-summary.json").read_text(encoding="utf-8"))
    assert set(summary) == {"words", "names"}
    w = summary["words"]
    assert w["p_at_1"]["best"] == 0.6 and w["p_at_1"]["best_seed"] == 2
    assert w["p_at_1"]["mean"] == pytest.approx(0.4)
    assert w["p_at_1_strict"]["best"] == 0.3
    low = w["lowest_objective"]
    assert low["seed"] == 1 and low["p_at_1"] == 0.4 and low["p_at_1_strict"] == 0.2
    # no readings: no seed is corroborated, so the CLI falls back to the objective too
    assert w["decipher_run_seeds_choice"]["seed"] == 1


def test_linear_b_failed_run_is_named_and_not_tabled(grid):
    cache, results = grid
    lines = []
    failed = linear_b.run_grid(["words"], [0], 30, cache=cache, results=results,
                               launcher=lambda cmd, out: (out.mkdir(parents=True, exist_ok=True),
                                                          (out / "bench.log").write_text("error: boom\n"),
                                                          {"rc": 2, "wall_s": 0.1, "peak_rss_mb": 1.0})[-1],
                               log=lines.append)
    assert failed == 1
    assert any("FAILED words seed 0: exit 2: error: boom" in line for line in lines)
    assert read_csv(results) == []


def test_linear_b_missing_shared_file_is_one_line(tmp_path, capsys):
    code = linear_b.main(["--files", "names", "--seeds", "0", "--steps", "30", "--cache", str(tmp_path / "c"),
                          "--shared", str(tmp_path), "--results", str(tmp_path / "r.csv")])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "linear_b-greek.names.cog: file not found" in err[0]
    assert not (tmp_path / "r.csv").exists()
