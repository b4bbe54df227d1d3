"""The commit and command of the result files written before benchmarks recorded them (issue 53 item 2).

    python -m benchmarks.provenance            # add a row to benchmarks/results/PROVENANCE.tsv for each
                                               # result file that has none
    python -m benchmarks.provenance --list     # print the rows it would add, write nothing
    python -m benchmarks.provenance --redo     # recompute the rows it made (after the docs name more commands)

A benchmark run records the files it writes itself (benchmarks/commit.py); this fills in the older ones
from what is known of them, and says how in the row's ``how``:

* the commit: the commit(s) the file's own rows name (a ``commit`` field or a ``commits`` list), else
  the commit that last changed the file in git history (``git log --follow``): the commit that recorded
  it, so the code measured is that commit or an earlier one; else "unknown";
* the command: the file's own ``command`` (or a ``note`` that is a command, or a first line
  ``Command: …``), else what the results page (docs/benchmarks.md), or else a page of docs/ or the
  notebook, gives in the same table row, code line or paragraph as the file's name: the one command that
  names the file, or the commands given there (at most 4, joined by " ; ", each of which may have written
  rows of it); "unknown" when none is given (or more than 4).

It never changes a result file, and a row already in the index is kept.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

from benchmarks.commit import COLUMNS, PROVENANCE, RESULTS, ROOT, put_rows, read_index, result_files

DOCS = [ROOT / "docs" / "benchmarks.md"] + sorted((ROOT / "docs").glob("*.md")) + sorted(
    (ROOT / "docs" / "notebook").glob("*.md"))
COMMAND = re.compile(r"^(?:[A-Z_]+=\S+\s+)*(?:nice(?: -n \d+)?\s+)?(?:\.venv/bin/)?"
                     r"(?:python3?\s+(?:-m\s+benchmarks\.|benchmarks/)|decipher\s)")


def _text(path: Path) -> str:
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8", errors="replace")


def _rows(path: Path) -> list[dict]:
    name = path.name.removesuffix(".gz")
    try:
        text = _text(path)
        if name.endswith(".jsonl"):
            return [r for r in (json.loads(x) for x in text.splitlines() if x.strip()) if isinstance(r, dict)]
        if name.endswith(".json"):
            data = json.loads(text)
            return [data] if isinstance(data, dict) else [r for r in data if isinstance(r, dict)]
        if name.endswith(".csv"):
            return list(csv.DictReader(text.splitlines()))
    except (ValueError, OSError):
        return []
    return []


def in_file_commits(path: Path) -> list[str]:
    found: list[str] = []
    for r in _rows(path):
        for c in ([r.get("commit")] if r.get("commit") else []) + list(r.get("commits") or []):
            if isinstance(c, str) and re.fullmatch(r"[0-9a-f]{7,40}(\+\w+)?", c.strip()) and c not in found:
                found.append(c.strip())
    return found


def in_file_command(path: Path) -> str | None:
    for r in _rows(path)[:1]:
        found = []
        for key in sorted(k for k in r if k in ("command", "note") or k.startswith("command_")):
            v = r[key]
            v = "python " + v.strip() if isinstance(v, str) and v.startswith("benchmarks/") else v
            if isinstance(v, str) and COMMAND.match(v.strip()) and v.strip() not in found:
                found.append(v.strip())
        if found:
            return " ; ".join(found)
    if path.suffix in (".txt", ".md", ".log"):
        first = _text(path).splitlines()[:1]
        m = re.match(r"(?:#\s*)?(?:Command|command|\$)\s*:?\s*(.+)", first[0]) if first else None
        if m and COMMAND.match(m.group(1).strip().strip("`")):
            return m.group(1).strip().strip("`")
    return None


def git_commit(path: Path) -> str | None:
    try:
        r = subprocess.run(["git", "log", "--follow", "-1", "--format=%h", "--", str(path.relative_to(ROOT))],
                           cwd=ROOT, capture_output=True, text=True)
    except OSError:
        return None
    return r.stdout.strip() or None


def _units(text: str) -> list[tuple[int, str]]:
    """The docs' places a file and its command are given together: a table row, a command line of a code
    block (with its continuation lines), or a paragraph; (first line, text)."""
    lines = text.splitlines()
    units, para, start, i = [], [], 0, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("|"):
            units.append((i + 1, line))
        elif line.startswith("    ") or line.startswith("```"):
            j, block = i, [line]
            while block[-1].rstrip().endswith("\\") and j + 1 < len(lines):
                j += 1
                block.append(lines[j])
            units.append((i + 1, " ".join(b.strip().rstrip("\\") for b in block)))
            i = j
        if line.strip() and not line.startswith(("|", "    ")):
            if not para:
                start = i + 1
            para.append(line)
        else:
            if para:
                units.append((start, " ".join(para)))
            para = []
        i += 1
    if para:
        units.append((start, " ".join(para)))
    return units


def _commands(unit: str) -> list[str]:
    found = [c.strip() for c in re.findall(r"`([^`]+)`", unit) if COMMAND.match(c.strip())]
    bare = re.sub(r"#.*$", "", unit.strip())
    if not found and COMMAND.match(bare):
        found = [bare.strip()]
    return list(dict.fromkeys(re.sub(r"\s+", " ", c) for c in found))


def docs_command(path: Path, docs: list[Path] = DOCS) -> tuple[str, str] | None:
    """(command, how) from the first doc that gives a command beside the file's name: the one command that
    names the file itself, else the commands given beside it (at most 4, each of which may have written
    rows of it: a file several runs append to, or a run and its summary), else None."""
    rel = path.relative_to(RESULTS).as_posix()
    names = {rel, path.name} if path.parent == RESULTS else {rel}
    pattern = re.compile("|".join(rf"(?<![\w.-]){re.escape(n)}(?![\w-])" for n in sorted(names, key=len)))
    seen = set()
    for doc in docs:
        if doc in seen or not doc.is_file():
            continue
        seen.add(doc)
        cmds: list[str] = []
        where = None
        for line, unit in _units(doc.read_text(encoding="utf-8")):
            if pattern.search(unit):
                got = _commands(unit)
                if got and where is None:
                    where = f"{doc.relative_to(ROOT).as_posix()}:{line}"
                cmds += [c for c in got if c not in cmds]
        writers = [c for c in cmds if _names(_head(c), pattern)]
        cmds = writers or cmds                 # the commands of a benchmark whose source names the file
        naming = [c for c in cmds if pattern.search(c)]
        if len(naming) == 1:
            return naming[0], f"command: {where}, the command that names the file"
        if 1 <= len(cmds) <= 4:
            return " ; ".join(cmds), (f"command: {where}, the command(s) given beside the file's name (one or more of "
                                      "them wrote it)" if len(cmds) > 1 else f"command: {where}")
        heads = {_head(c) for c in cmds}
        if cmds and len(heads) == 1:
            return f"{heads.pop()} … ({len(cmds)} runs)", f"command: {where}, the {len(cmds)} commands given beside it"
        if cmds:
            return None
    return None


def _names(head: str, pattern: re.Pattern) -> bool:
    m = re.match(r"python3? (?:-m (benchmarks\.[\w.]+)|(benchmarks/\S+))", head)
    if not m:
        return False
    source = ROOT / (m.group(2) or m.group(1).replace(".", "/") + ".py")
    return source.is_file() and bool(pattern.search(source.read_text(encoding="utf-8")))


def _head(command: str) -> str:
    m = re.search(r"python3? (?:-m benchmarks\.[\w.]+|benchmarks/\S+)|decipher \w+", command)
    return m.group(0) if m else command


def backfill_row(path: Path) -> dict:
    commits = in_file_commits(path)
    if commits:
        commit, how_commit = " ".join(commits), "commit: the file's own rows"
    else:
        commit = git_commit(path)
        how_commit = ("commit: git, the commit that last changed the file (measured at it or before)" if commit
                      else "commit: unknown (not in git history)")
        commit = commit or "unknown"
    command = in_file_command(path)
    how_command = "command: the file's own"
    if command is None:
        found = docs_command(path)
        if found:
            command, how_command = found
        else:
            command, how_command = "unknown", "command: unknown (no command beside its name in docs/, or too many)"
    rel = path.relative_to(ROOT).as_posix()
    return {"file": rel, "commit": commit, "command": command, "how": f"{how_commit}; {how_command}"}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.provenance", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--list", action="store_true", help="print the rows it would add; write nothing")
    p.add_argument("--redo", action="store_true", help="recompute the rows this script made (not those a run "
                                                       "recorded)")
    args = p.parse_args(argv)
    have = {f: r for f, r in read_index().items() if not (args.redo and not r["how"].startswith("run:"))}
    rows = [backfill_row(f) for f in result_files() if f.relative_to(ROOT).as_posix() not in have]
    if args.list:
        w = csv.writer(sys.stdout, delimiter="\t", lineterminator="\n")
        w.writerow(COLUMNS)
        w.writerows([r[c] for c in COLUMNS] for r in rows)
        return 0
    put_rows(rows)
    unknown = sum(r["command"] == "unknown" for r in rows), sum(r["commit"] == "unknown" for r in rows)
    print(f"{len(rows)} rows added to {PROVENANCE.relative_to(ROOT)} ({unknown[0]} without a known command, "
          f"{unknown[1]} without a commit)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
