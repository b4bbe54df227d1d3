"""benchmarks/search_diagnosis.py: Linear B runs are compared with the seeds of their own file, variant
and length, and fail below issue 25's target."""

import json

from benchmarks import search_diagnosis as sd


def _write(tmp_path, rows):
    path = tmp_path / "syllables" / "linear-b.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_linear_b_seeds_are_compared_within_their_length_and_fail_below_the_issues_target(tmp_path, monkeypatch):
    monkeypatch.setattr(sd, "RESULTS", tmp_path)
    row = {"file": "cognates", "variant": "onsets-first"}
    _write(tmp_path, [
        # 3,000 steps: one seed in the good basin, one far above it
        {**row, "steps": 3000, "seed": 0, "objective": -2.5, "p_at_1": 0.89},
        {**row, "steps": 3000, "seed": 1, "objective": -0.6, "p_at_1": 0.47},
        # 8,000 steps: two seeds alike, both in the worse basin (P@1 between 0.5 and 0.673)
        {**row, "steps": 8000, "seed": 0, "objective": -1.0, "p_at_1": 0.60},
        {**row, "steps": 8000, "seed": 1, "objective": -0.99, "p_at_1": 0.61},
    ])
    rows = {r["run"]: r for r in sd.linear_b_rows()}
    assert set(rows) == {f"cognates onsets-first {n} steps seed {s}" for n in (3000, 8000) for s in (0, 1)}
    assert rows["cognates onsets-first 3000 steps seed 1"]["flagged"]
    assert not rows["cognates onsets-first 3000 steps seed 0"]["flagged"]
    # compared only with each other: the 3,000-step seed's -2.5 does not flag the 8,000-step seeds
    assert not any(rows[f"cognates onsets-first 8000 steps seed {s}"]["flagged"] for s in (0, 1))
    # and both fail (0.5 would have called them successes)
    assert all(rows[f"cognates onsets-first 8000 steps seed {s}"]["failed"] for s in (0, 1))
    assert not rows["cognates onsets-first 3000 steps seed 0"]["failed"]
    summary = sd.summary(list(rows.values()), "linear-b")
    assert (summary["failed"], summary["hits"], summary["misses"], summary["false_alarms"]) == (3, 1, 2, 0)
