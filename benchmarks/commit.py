"""The commit and the command each result file was written by: one place for every benchmark.

``short_commit()`` is the short hash of HEAD ("unknown" outside a git checkout), for the rows that
carry their own commit. Beside that, every benchmark run records the files it wrote under
``benchmarks/results/`` in ``benchmarks/results/PROVENANCE.tsv`` (one row a file: the file, the commit,
the command, how they are known), so that no result file is without them whatever its format:

* importing the package ``benchmarks`` (``benchmarks/__init__.py``) takes a snapshot of the results'
  modification times; when the process exits, and its main module is a benchmark (``python -m
  benchmarks.NAME …`` or ``python benchmarks/NAME.py …``), every file new or changed since is recorded
  with that command and the commit the run started at (``+changes`` after the hash when engine/,
  decipher_gui/ or benchmarks/ differed from it, results aside). A test that imports a benchmark is not
  a run and records nothing; nor does a worker process (only the process that was started records).
* files written before this existed got their rows from git history and the results page
  (``python -m benchmarks.provenance``, which says "unknown" where neither shows them).

``python -m benchmarks.check_record`` fails on a result file without a row.
"""

from __future__ import annotations

import atexit
import csv
import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
PROVENANCE = RESULTS / "PROVENANCE.tsv"
COLUMNS = ("file", "commit", "command", "how")
RUN = "run: recorded by the benchmark when it wrote the file"


def _git(*args: str) -> subprocess.CompletedProcess | None:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    except OSError:     # no git on this machine
        return None


def short_commit() -> str:
    r = _git("rev-parse", "--short", "HEAD")
    return (r.stdout.strip() if r else "") or "unknown"


def tree_commit() -> str:
    """HEAD's short hash, with ``+changes`` when the code differs from it (the results aside): a tracked
    file changed, or a file git does not track yet (a new benchmark script run before its commit)."""
    commit = short_commit()
    if commit == "unknown":
        return commit
    code = ("engine", "decipher_gui", "benchmarks", ":!benchmarks/results")
    r = _git("diff", "--quiet", "HEAD", "--", *code)
    new = _git("ls-files", "--others", "--exclude-standard", "--", *code)
    changed = (r is not None and r.returncode == 1) or bool(new is not None and new.stdout.strip())
    return commit + ("+changes" if changed else "")


def command_line(main=None, argv: list[str] | None = None) -> str | None:
    """How the running benchmark was started (``python -m benchmarks.NAME ARGS``), or None when the main
    module is not a benchmark."""
    main = main if main is not None else sys.modules.get("__main__")
    argv = list(sys.argv[1:] if argv is None else argv)
    spec = getattr(main, "__spec__", None)
    name = getattr(spec, "name", "") or ""
    if name.startswith("benchmarks."):
        return shlex.join(["python", "-m", name, *argv])
    path = getattr(main, "__file__", None)
    if spec is None and path:
        try:
            rel = Path(path).resolve().relative_to(ROOT)
        except ValueError:
            return None
        if rel.parts[0] == "benchmarks":
            return shlex.join(["python", rel.as_posix(), *argv])
    return None


def read_index(index: Path = PROVENANCE) -> dict[str, dict]:
    if not index.is_file():
        return {}
    with open(index, encoding="utf-8", newline="") as f:
        return {r["file"]: r for r in csv.DictReader(f, delimiter="\t")}


def record(files, *, commit: str, command: str, how: str = RUN, index: Path = PROVENANCE) -> None:
    """Set the rows of ``files`` (paths under the repository) in the index; the others are kept."""
    put_rows([{"file": Path(f).resolve().relative_to(ROOT).as_posix(), "commit": commit, "command": command,
               "how": how} for f in files], index)


def put_rows(new: list[dict], index: Path = PROVENANCE) -> None:
    """Set these rows (``file`` relative to the repository) in the index; the others are kept."""
    import fcntl

    from engine.io.atomic import write_csv

    index.parent.mkdir(parents=True, exist_ok=True)
    lock = os.open(index.parent, os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)           # two benchmarks ending at once
        rows = read_index(index)
        rows.update({r["file"]: r for r in new})
        write_csv(index, list(COLUMNS), ([r[c] for c in COLUMNS] for _, r in sorted(rows.items())),
                  delimiter="\t")
    finally:
        os.close(lock)


def result_files(results: Path = RESULTS) -> list[Path]:
    """Every result file (the index and hidden files aside)."""
    return sorted(p for p in results.rglob("*") if p.is_file() and not p.name.startswith(".")
                  and p.name != PROVENANCE.name)


def snapshot(results: Path = RESULTS) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in result_files(results)} if results.is_dir() else {}


def changed_since(before: dict[Path, int], results: Path = RESULTS) -> list[Path]:
    return [p for p, t in snapshot(results).items() if before.get(p) != t]


_watch: dict = {}


def watch_results() -> None:
    """Arm the record of this process's result files (once; see the module's text)."""
    if _watch:
        return
    import multiprocessing

    if multiprocessing.parent_process() is not None:
        return
    # ``python -m benchmarks.NAME`` imports this package while sys.argv[0] is still "-m"; a script run by
    # path is under benchmarks/: read the commit now, at the run's start (HEAD may move during a long run)
    arg0 = sys.argv[0] if sys.argv else ""
    starting = arg0 == "-m" or (arg0.endswith(".py") and Path(arg0).resolve().parent == ROOT / "benchmarks")
    _watch.update(before=snapshot(), pid=os.getpid(), commit=tree_commit() if starting else None)
    atexit.register(_record_at_exit)


def _record_at_exit() -> None:
    if os.getpid() != _watch.get("pid"):      # a forked child inherits the handler
        return
    command = command_line()
    if command is None:
        return
    files = changed_since(_watch["before"])
    if files:
        record(files, commit=_watch.get("commit") or tree_commit(), command=command)

