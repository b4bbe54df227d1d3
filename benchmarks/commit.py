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
  Two benchmarks running at once in one tree each see the other's files change: a file that another run
  recorded while this one ran is left to it, unless this process opened it to write too (then the row
  names both commands); a file changed by no recorded run (a worker's, say) is this run's.
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
    if index == PROVENANCE and "index" in _watch and os.getpid() == _watch.get("pid"):
        _watch["index"].update({r["file"]: r for r in new})    # this run's own rows are not another run's


def result_files(results: Path = RESULTS) -> list[Path]:
    """Every result file (the index and hidden files aside)."""
    return sorted(p for p in results.rglob("*") if p.is_file() and not p.name.startswith(".")
                  and p.name != PROVENANCE.name)


def snapshot(results: Path = RESULTS) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in result_files(results)} if results.is_dir() else {}


def changed_since(before: dict[Path, int], results: Path = RESULTS) -> list[Path]:
    return [p for p, t in snapshot(results).items() if before.get(p) != t]


_watch: dict = {}
#: the result files this process opened to write or renamed into place (a benchmark's own process only)
_written: set[Path] = set()


def _note_write(event: str, args: tuple, results: Path = RESULTS, written: set[Path] = _written) -> None:
    """An audit hook (sys.addaudithook): note a file under ``results`` opened for writing or renamed there."""
    if event == "open":
        path, _mode, flags = args
        if not isinstance(flags, int) or not flags & (os.O_WRONLY | os.O_RDWR):
            return
    elif event == "os.rename":          # os.rename and os.replace (how engine.io.atomic puts a file in place)
        path = args[1]
    else:
        return
    if isinstance(path, int) or path is None:
        return
    full = Path(os.path.realpath(os.fsdecode(path)))      # as ROOT is: links resolved
    if full.is_relative_to(results):
        written.add(full)


def attribute(changed: list[Path], written: set[Path], before: dict[str, dict], now: dict[str, dict], *,
              commit: str, command: str, root: Path = ROOT) -> list[dict]:
    """The index rows this run sets for the result files ``changed`` since it started: its own, except for a
    file whose row another run set meanwhile (``now`` differs from ``before``, the index at this run's start):
    that file is the other run's, or both runs' when this one opened it to write too (``written``)."""
    rows, wrote = [], {Path(w).resolve() for w in written}
    for f in map(lambda p: Path(p).resolve(), changed):
        rel = f.relative_to(root).as_posix()
        other = now.get(rel) if now.get(rel) != before.get(rel) else None
        if other is None:
            rows.append({"file": rel, "commit": commit, "command": command, "how": RUN})
        elif f in wrote:
            commits = " ".join(dict.fromkeys([*other["commit"].split(), commit]))
            rows.append({"file": rel, "commit": commits, "command": f"{other['command']} ; {command}",
                         "how": RUN + " (two runs at once, both wrote it)"})
    return rows


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
    _watch.update(before=snapshot(), pid=os.getpid(), commit=tree_commit() if starting else None,
                  index=read_index() if starting else {})
    if starting:
        sys.addaudithook(_note_write)
    atexit.register(_record_at_exit)


def _record_at_exit() -> None:
    if os.getpid() != _watch.get("pid"):      # a forked child inherits the handler
        return
    command = command_line()
    if command is None:
        return
    files = changed_since(_watch["before"])
    if files:
        put_rows(attribute(files, _written, _watch.get("index", {}), read_index(),
                           commit=_watch.get("commit") or tree_commit(), command=command))

