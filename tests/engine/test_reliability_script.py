"""The reliability table's script (benchmarks/reliability.py) keeps working: its table and exit
status, and a few of its real rows (a bad setting; a checkpoint written to a full disk, which
printed a RuntimeError traceback from torch's zip writer before checkpoints were serialised in
memory)."""

from __future__ import annotations

import sys

import pytest

from benchmarks import reliability as rel

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="signals and rlimits are POSIX")


def test_table_escapes_cells_and_marks_each_row():
    rows = [rel.Row("g", "a | b", "how", "exp", "line\nbreak", True), rel.Row("g", "bad", "how", "exp", "x", False)]
    text = rel.table(rows)
    lines = text.splitlines()
    assert lines[0].startswith("| group | fault |") and len(lines) == 4
    assert "a \\| b" in lines[2] and "line break" in lines[2] and lines[2].endswith("| PASS |")
    assert lines[3].endswith("| FAIL |")


def test_exit_status_and_document_follow_the_rows(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(rel.RUNNERS, "good", lambda d: [rel.Row("good", "f", "i", "e", f"in {d}", True)])
    monkeypatch.setitem(rel.RUNNERS, "bad", lambda d: [rel.Row("bad", "f", "i", "e", "o", False)])
    monkeypatch.setitem(rel.RUNNERS, "crash", lambda d: 1 / 0)
    doc = tmp_path / "reliability.md"
    assert rel.main(["--only", "good", "--write", str(doc)]) == 0
    out = capsys.readouterr().out
    assert "| PASS |" in out and "$TMP/good" in out  # temporary paths are shown as $TMP
    text = doc.read_text(encoding="utf-8")
    assert "`python -m benchmarks.reliability --only good --write" in text and "1 rows, 1 PASS, 0 FAIL" in text
    assert rel.main(["--only", "good,bad"]) == 1
    assert rel.main(["--only", "crash"]) == 1  # a crashing group is a failed row, not a lost table
    assert "ZeroDivisionError" in capsys.readouterr().out


@posix_only
def test_a_bad_setting_row(tmp_path):
    [row] = rel.bad_settings(tmp_path, settings=("lr=inf",), prior=False)
    assert row.ok, row
    assert row.observed.startswith("exit 2; ") and "lr" in row.observed


@posix_only
def test_checkpoint_on_a_full_disk_is_one_line_and_leaves_nothing(tmp_path):
    row = rel.checkpoint_disk_full(tmp_path, rel.write_cipher(tmp_path / "cipher"))
    assert row.ok, row
    assert "checkpoint.pt: cannot write the file" in row.observed and "folder holds []" in row.observed
