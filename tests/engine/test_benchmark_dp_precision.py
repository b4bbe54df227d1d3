"""benchmarks/dp_precision.py --quality: whole runs in both precisions, their table, and bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import dp_precision as dp

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "ugaritic_hebrew"


def _row(dataset, seed, precision, figure, objective, best, wall):
    return {"dataset": dataset, "seed": seed, "precision": precision, "steps": 3000, "wall_s": wall,
            dp.QUALITY[dataset]: figure, "final_objective": objective, "best": best}


def test_the_quality_table_pairs_a_seeds_precisions_and_counts_the_letters_that_differ(tmp_path):
    rows = [_row("gothic-pg", 0, "double", 0.80, -1.5, {"a": "a", "b": "p", "c": "k"}, 300.0),
            _row("gothic-pg", 0, "single", 0.78, -1.4, {"a": "a", "b": "b", "c": "k"}, 240.0),
            _row("gothic-pg", 1, "double", 0.70, -1.2, {"a": "a"}, 300.0)]     # its single not run yet
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    lines = dp.quality_table(dp.read_quality(path))
    assert len(lines) == 3
    assert lines[2] == "| gothic-pg (p_at_10) | 0 | 0.800 | 0.780 | -1.500 | -1.400 | 1 of 3 | 1.25 |"


def test_a_bad_quality_file_is_one_line_naming_its_line(tmp_path, capsys):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(_row("gothic-pg", 0, "double", 0.8, -1.5, {}, 1.0)) + "\n{\"seed\": 1}\n",
                    encoding="utf-8")
    assert dp.main(["--quality-table", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {path}, line 2: not a --quality row"]
    assert dp.main(["--quality", "gothic-pg", "--steps", "0", "--out", str(path)]) == 2


@pytest.mark.skipif(not DATA.is_dir(), reason="needs ../shared/data/ugaritic_hebrew")
def test_a_quality_run_scores_its_precision_and_resumes(tmp_path, monkeypatch):
    row = dp.quality_run("ugaritic-small", 0, "single", 2)
    assert row["precision"] == "single" and row["steps"] == 2
    assert 0.0 <= row["p_at_1_span"] <= 1.0 and row["final_objective"] == row["final_objective"]
    assert "$" in row["best"]
    out = tmp_path / "q.jsonl"
    out.write_text(json.dumps(row) + "\n", encoding="utf-8")
    made = []
    monkeypatch.setattr(dp, "_quality_task", lambda t: made.append(t) or {**row, "precision": t[2]})

    class Inline:           # the pool in this process, so that the patched task is used
        def __init__(self, **kw):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

        def submit(self, fn, task):
            from concurrent.futures import Future
            f = Future()
            f.set_result(fn(task))
            return f

    import concurrent.futures
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Inline)
    assert dp.run_quality(["ugaritic-small"], [0], 2, out, workers=1) == 1
    assert made == [("ugaritic-small", 0, "double", 2)]
    assert [r["precision"] for r in dp.read_quality(out)] == ["single", "double"]


def test_missing_data_for_the_quality_runs_is_one_line_before_any_worker(tmp_path, capsys, monkeypatch):
    from benchmarks import ugaritic

    monkeypatch.setattr(ugaritic, "SHARED", tmp_path / "none")
    out = tmp_path / "q.jsonl"
    assert dp.main(["--quality", "ugaritic-small", "--seeds", "0", "--steps", "2", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: ") and "uga-heb.small.no_spe.cog: not found" in err[-1]
    assert not out.exists()
