"""benchmarks/commit.py and benchmarks/provenance.py: every result file's commit and command (issue 53 item 2).
A benchmark run records the files it wrote; the older files get theirs from their own rows, git history and
the docs, or say "unknown"."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import types
from pathlib import Path

from benchmarks import commit, provenance

ROOT = Path(__file__).resolve().parents[2]


def test_the_command_is_the_benchmark_as_started_and_nothing_for_another_main():
    bench = types.SimpleNamespace(__spec__=types.SimpleNamespace(name="benchmarks.gothic"), __file__="x")
    assert commit.command_line(bench, ["--wr", "1", "a b"]) == "python -m benchmarks.gothic --wr 1 'a b'"
    by_path = types.SimpleNamespace(__spec__=None, __file__=str(ROOT / "benchmarks" / "gui_responsiveness.py"))
    assert commit.command_line(by_path, ["--load", "2"]) == "python benchmarks/gui_responsiveness.py --load 2"
    pytest_main = types.SimpleNamespace(__spec__=types.SimpleNamespace(name="pytest"), __file__="p")
    assert commit.command_line(pytest_main, []) is None
    elsewhere = types.SimpleNamespace(__spec__=None, __file__="/tmp/x.py")
    assert commit.command_line(elsewhere, []) is None


def test_record_sets_the_rows_of_its_files_and_keeps_the_others(tmp_path):
    index = tmp_path / "PROVENANCE.tsv"
    a, b = ROOT / "benchmarks" / "results" / "gothic.csv", ROOT / "benchmarks" / "results" / "closeness.csv"
    commit.record([a, b], commit="abc1234", command="python -m benchmarks.x", index=index)
    commit.record([b], commit="def5678+changes", command="python -m benchmarks.y --z", index=index)
    rows = commit.read_index(index)
    assert rows["benchmarks/results/gothic.csv"]["commit"] == "abc1234"
    assert rows["benchmarks/results/closeness.csv"] == {
        "file": "benchmarks/results/closeness.csv", "commit": "def5678+changes",
        "command": "python -m benchmarks.y --z", "how": commit.RUN}


def test_the_tree_commit_says_changes_for_a_new_untracked_script_too(tmp_path, monkeypatch):
    """A benchmark script run before its commit: the code is not HEAD's, though git diff shows nothing."""
    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    (tmp_path / "benchmarks" / "a.py").write_text("x = 1\n", encoding="utf-8")
    git("add", "benchmarks/a.py")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a")
    monkeypatch.setattr(commit, "ROOT", tmp_path)
    assert "+" not in commit.tree_commit()
    (tmp_path / "benchmarks" / "results" / "r.jsonl").write_text("{}\n", encoding="utf-8")
    assert "+" not in commit.tree_commit()                         # a result file is not code
    (tmp_path / "benchmarks" / "b.py").write_text("y = 2\n", encoding="utf-8")
    assert commit.tree_commit().endswith("+changes")


def test_changed_since_is_the_files_new_or_rewritten_after_the_snapshot(tmp_path):
    (tmp_path / "old.csv").write_text("a\n", encoding="utf-8")
    (tmp_path / "same.csv").write_text("a\n", encoding="utf-8")
    (tmp_path / ".hidden").write_text("a\n", encoding="utf-8")
    before = commit.snapshot(tmp_path)
    assert set(before) == {tmp_path / "old.csv", tmp_path / "same.csv"}
    os.utime(tmp_path / "old.csv", ns=(before[tmp_path / "old.csv"] + 10**9,) * 2)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "new.jsonl").write_text("{}\n", encoding="utf-8")
    assert sorted(commit.changed_since(before, tmp_path)) == [tmp_path / "old.csv", tmp_path / "sub" / "new.jsonl"]


def _benchmarks_copy(tmp_path: Path) -> tuple[Path, dict]:
    """A repository of the package ``benchmarks`` alone (its __init__ and commit.py) and an empty results folder,
    and the environment that runs a benchmark there."""
    root = tmp_path / "repo"
    (root / "benchmarks" / "results").mkdir(parents=True)
    for name in ("__init__.py", "commit.py"):
        (root / "benchmarks" / name).write_text((ROOT / "benchmarks" / name).read_text(encoding="utf-8"),
                                                encoding="utf-8")
    return root, dict(os.environ, PYTHONPATH=f"{root}{os.pathsep}{ROOT}")


def test_a_benchmark_run_records_what_it_wrote_and_an_import_records_nothing(tmp_path):
    """In a copy of the repository's benchmarks/ and engine/: `python -m benchmarks.NAME` writes its row;
    a process that only imports the package (a test, a worker) writes none."""
    root, env = _benchmarks_copy(tmp_path)
    (root / "benchmarks" / "tiny.py").write_text(
        "import sys\nfrom pathlib import Path\n"
        "Path(__file__).parent.joinpath('results', 'tiny.json').write_text('{}', encoding='utf-8')\n",
        encoding="utf-8")
    subprocess.run([sys.executable, "-c", "import benchmarks.commit"], cwd=root, env=env, check=True)
    assert not (root / "benchmarks" / "results" / "PROVENANCE.tsv").exists()
    subprocess.run([sys.executable, "-m", "benchmarks.tiny", "--flag", "1"], cwd=root, env=env, check=True)
    rows = list(commit.read_index(root / "benchmarks" / "results" / "PROVENANCE.tsv").values())
    assert [(r["file"], r["command"], r["how"]) for r in rows] == [
        ("benchmarks/results/tiny.json", "python -m benchmarks.tiny --flag 1", commit.RUN)]
    assert rows[0]["commit"]        # "unknown" here: the copy is no git checkout


def test_two_runs_at_once_each_record_only_what_they_wrote(tmp_path):
    """A benchmark running while another starts and ends in the same tree sees the other's file change; it used
    to record that file as its own at exit (a Linear B grid reading credited to a cipher suite's command)."""
    root, env = _benchmarks_copy(tmp_path)
    results = root / "benchmarks" / "results"
    (root / "benchmarks" / "slow.py").write_text(
        "import time\nfrom pathlib import Path\nroot = Path(__file__).parents[1]\n"
        "(root / 'benchmarks' / 'results' / 'slow.json').write_text('{}', encoding='utf-8')\n"
        "for _ in range(600):\n    if (root / 'go').exists():\n        break\n    time.sleep(0.1)\n",
        encoding="utf-8")
    (root / "benchmarks" / "other.py").write_text(
        "from pathlib import Path\n"
        "Path(__file__).parent.joinpath('results', 'other.json').write_text('{}', encoding='utf-8')\n",
        encoding="utf-8")
    slow = subprocess.Popen([sys.executable, "-m", "benchmarks.slow"], cwd=root, env=env)
    try:
        for _ in range(600):
            if (results / "slow.json").exists():
                break
            slow.poll()
            assert slow.returncode is None, "the slow benchmark ended before the other ran"
            time.sleep(0.1)
        subprocess.run([sys.executable, "-m", "benchmarks.other"], cwd=root, env=env, check=True)
        assert commit.read_index(results / "PROVENANCE.tsv")["benchmarks/results/other.json"]["command"] == \
            "python -m benchmarks.other"
    finally:
        (root / "go").write_text("", encoding="utf-8")
        assert slow.wait(timeout=120) == 0
    rows = commit.read_index(results / "PROVENANCE.tsv")
    assert {f: r["command"] for f, r in rows.items()} == {
        "benchmarks/results/slow.json": "python -m benchmarks.slow",
        "benchmarks/results/other.json": "python -m benchmarks.other"}


def test_a_file_two_runs_wrote_at_once_names_both_and_one_they_did_not_write_is_left(tmp_path):
    results = tmp_path / "benchmarks" / "results"
    results.mkdir(parents=True)
    mine, both, theirs = (results / n for n in ("mine.csv", "both.jsonl", "theirs.csv"))
    other = {"commit": "abc1234", "command": "python -m benchmarks.a", "how": commit.RUN}
    before = {"benchmarks/results/both.jsonl": {"file": "benchmarks/results/both.jsonl", **other, "commit": "0000000"}}
    now = {"benchmarks/results/both.jsonl": {"file": "benchmarks/results/both.jsonl", **other},
           "benchmarks/results/theirs.csv": {"file": "benchmarks/results/theirs.csv", **other}}
    rows = commit.attribute([mine, both, theirs], {both}, before, now, commit="def5678",
                            command="python -m benchmarks.b", root=tmp_path)
    assert rows == [
        {"file": "benchmarks/results/mine.csv", "commit": "def5678", "command": "python -m benchmarks.b",
         "how": commit.RUN},
        {"file": "benchmarks/results/both.jsonl", "commit": "abc1234 def5678",
         "command": "python -m benchmarks.a ; python -m benchmarks.b", "how": commit.RUN + " (two runs at once, both wrote it)"}]
    # a row another run set before this one started is no claim on the file: the file is this run's
    assert commit.attribute([both], set(), now, now, commit="def5678", command="python -m benchmarks.b",
                            root=tmp_path)[0]["command"] == "python -m benchmarks.b"


def test_the_write_hook_notes_result_files_opened_to_write_or_renamed_there(tmp_path):
    results = tmp_path / "results"
    written: set[Path] = set()
    commit._note_write("open", (str(results / "a.csv"), "w", os.O_WRONLY | os.O_CREAT), results, written)
    commit._note_write("open", (str(results / "b.csv"), "r", os.O_RDONLY), results, written)
    commit._note_write("open", (str(tmp_path / "elsewhere.csv"), "a", os.O_WRONLY | os.O_APPEND), results, written)
    commit._note_write("open", (3, "w", os.O_WRONLY), results, written)
    commit._note_write("os.rename", (str(tmp_path / "t.tmp"), str(results / "c.jsonl"), -1, -1), results, written)
    commit._note_write("exec", (None,), results, written)
    assert written == {results / "a.csv", results / "c.jsonl"}


def test_backfill_takes_the_files_own_commit_and_command_then_the_docs(tmp_path, monkeypatch):
    results = tmp_path / "benchmarks" / "results"
    results.mkdir(parents=True)
    monkeypatch.setattr(provenance, "RESULTS", results)
    monkeypatch.setattr(provenance, "ROOT", tmp_path)
    own = results / "own.jsonl"
    own.write_text(json.dumps({"commit": "1234abc", "command": "python -m benchmarks.speed --json"}) + "\n"
                   + json.dumps({"commit": "5678def"}) + "\n", encoding="utf-8")
    row = provenance.backfill_row(own)
    assert row["commit"] == "1234abc 5678def" and row["command"] == "python -m benchmarks.speed --json"
    assert "the file's own rows" in row["how"] and "command: the file's own" in row["how"]
    doc = tmp_path / "page.md"
    doc.write_text("A paragraph: `python -m benchmarks.a --x` and `python -m benchmarks.b --out "
                   "benchmarks/results/cited.csv` wrote `cited.csv`.\n\n"
                   "| what | `python -m benchmarks.c` | `two.csv` |\n"
                   "| more | `python -m benchmarks.d --k 2` | `two.csv` |\n\n"
                   "Nothing runnable beside `lonely.csv`.\n", encoding="utf-8")
    for name in ("cited.csv", "two.csv", "lonely.csv"):
        (results / name).write_text("a\n", encoding="utf-8")
    assert provenance.docs_command(results / "cited.csv", [doc]) == (
        "python -m benchmarks.b --out benchmarks/results/cited.csv", "command: page.md:1, the command that names the file")
    cmd, how = provenance.docs_command(results / "two.csv", [doc])
    assert cmd == "python -m benchmarks.c ; python -m benchmarks.d --k 2" and "one or more of them wrote it" in how
    assert provenance.docs_command(results / "lonely.csv", [doc]) is None


def test_the_index_row_of_an_older_file_says_unknown_when_nothing_shows_its_command(monkeypatch, tmp_path):
    results = tmp_path / "benchmarks" / "results"
    results.mkdir(parents=True)
    (results / "orphan.txt").write_text("numbers\n", encoding="utf-8")
    monkeypatch.setattr(provenance, "RESULTS", results)
    monkeypatch.setattr(provenance, "ROOT", tmp_path)
    monkeypatch.setattr(provenance, "DOCS", [])
    row = provenance.backfill_row(results / "orphan.txt")
    assert row["file"] == "benchmarks/results/orphan.txt"
    assert row["command"] == "unknown" and row["commit"] == "unknown"
    assert "unknown" in row["how"]
