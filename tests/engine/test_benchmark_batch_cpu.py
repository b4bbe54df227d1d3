"""benchmarks/batch_cpu.py: both sides train the same seeds to the same results, and the row names its
commit and command (a dry run on a synthetic cipher; the figures themselves are the benchmark's)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")


def test_the_dry_run_writes_both_sides_with_equal_objectives(tmp_path):
    from benchmarks.batch_cpu import main

    out = tmp_path / "batch.jsonl"
    assert main(["--synthetic", "--seeds", "0", "1", "2", "--workers", "1", "--steps", "2", "--rounds", "1",
                 "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["side"] for r in rows] == ["separate", "batched"]
    assert all(r["completed"] == 3 and r["commit"] and r["command"] and r["wall_s"] > 0 for r in rows)
    a, b = (r["objectives"] for r in rows)
    assert a.keys() == b.keys() == {"seed-0", "seed-1", "seed-2"}
    for seed in a:                      # the batched seeds are the separate runs
        assert a[seed] == pytest.approx(b[seed], rel=1e-6)
