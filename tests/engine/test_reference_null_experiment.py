"""benchmarks/experiments/reference_null.py: a syllabary's null trains with the suite runs' preset, and the table
pairs each null with the suite's rows of the label asked for."""

from __future__ import annotations

import json

from benchmarks.experiments import reference_null as rn


def test_the_null_run_takes_the_preset_and_a_done_null_is_not_run_again(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(rn, "manifest", lambda: ({"s": {"id": "s", "split": "dev", "script": "syllabary"}}, {}))
    monkeypatch.setattr(rn, "null_folder", lambda *a, **k: tmp_path)

    def fake_run_one(entry, kind, folder, label, extra, seed, steps, script):
        calls.append(list(extra))
        return {"id": entry["id"], "seed": seed, "coverage": 0.5, "final_objective": -7.0, "wall_s": 1.0}

    monkeypatch.setattr(rn, "run_one", fake_run_one)
    out = tmp_path / "rows.jsonl"
    argv = ["--script", "syllabary", "--preset", "syllabary", "--out", str(out)]
    assert rn.main(argv) == 0
    assert calls == [["--set", "reference_null=off", "--preset", "syllabary"]]
    row = json.loads(out.read_text(encoding="utf-8"))
    assert row["preset"] == "syllabary" and row["of_id"] == "s"
    assert rn.main(argv) == 0 and len(calls) == 1                  # done: not run again
    assert rn.main(argv[:2] + argv[4:]) == 0 and len(calls) == 2   # without the preset it is another null


def test_the_table_pairs_nulls_with_the_rows_of_the_label_asked_for():
    nulls = [{"of_id": "s", "seed": 0, "of_kind": "cipher", "coverage": 0.4, "final_objective": -6.0}]
    own = [{"id": "s", "seed": 0, "label": "syllabary-grid", "coverage": 0.9, "final_objective": -9.0, "read": True,
            "p_at_10": 0.95},
           {"id": "s", "seed": 0, "label": "default", "coverage": 0.1, "final_objective": -5.0, "p_at_10": 0.0}]
    [mine] = rn.pairs(nulls, own, label="syllabary-grid")
    assert mine["objective_margin"] == 3.0 and mine["read"]
    [theirs] = rn.pairs(nulls, own)
    assert theirs["objective_margin"] == -1.0
