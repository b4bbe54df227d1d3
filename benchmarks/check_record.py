"""Check that every number of the record is reproduced by the committed result files.

    python -m benchmarks.check_record                 # exit 0, or one line per wrong number and exit 1
    python -m benchmarks.check_record --values        # print what each manifest entry computes
    python -m benchmarks.check_record --results-page X.md --readme Y.md --manifest Z.toml

The record is docs/benchmarks.md (the results page, all of it), README.md's "Results" section and any
other page under docs/ that carries a marker (checked the same way). Every verdict ends with the check's
scope: the pages read, and the pages under docs/ not read with their counts of decimals and percentages.
A number there that is measured carries a marker right after it, ``0.828<!--r:uga-small-p1-best-->``,
naming an entry of ``benchmarks/record.toml``; the entry says which result file, which rows or
which key, and how it is aggregated and rounded. The checker recomputes each entry and compares it
with the text as written. It also fails on

* a decimal number (``0.828``), a number with a unit of measure (``262 MB``, ``84 ms``,
  ``25.8×``) or a percentage (``58 %``; not after "WR", alone in a table cell or naming an interval's
  level) in the record that carries no marker, nor ``<!--label-->`` (a label, a setting or arithmetic on
  the text's own figures); numbers inside backticks, code blocks, links and HTML comments are not read:
  they are commands, paths and markers;
* a file under benchmarks/results/ without its row in benchmarks/results/PROVENANCE.tsv (its commit
  and command; benchmarks/commit.py), or a row naming no file;
* a marker naming no entry, and an entry no marker uses;
* the Gothic tables between ``<!-- gothic-tables:begin -->`` and ``<!-- gothic-tables:end -->``
  differing from ``python -m benchmarks.gothic --render``'s output for ``benchmarks/results/gothic.csv``.

Integers that are labels (seed 3, WR 25 %, 3,000 steps, issue 31) are not checked; a measured
integer carries a marker like any other number. A manifest entry may instead hold a constant with
its ``source`` (the paper's figures): the checker then only sees that the text still says it.

A manifest entry (TOML, one ``[[n]]`` table each):

    id      = "uga-small-p1-best"
    file    = "benchmarks/results/ugaritic-small-base.jsonl"    # .jsonl, .json or .csv
    where   = { data = "small", variant = "base" }               # rows whose fields equal these (a list: any)
    field   = "p_at_1_span"                                      # a row's field, or
    path    = "runs_60.medians.launch_to_shown_s"                # a .json file's key path (* = every element)
    agg     = "max"       # value (exactly one), first, last, max, min, mean, median, count, argmax:<field>,
                          # argmin:<field> (the other field of the row where ``field`` is largest / smallest)
    scale   = 1.0         # multiplies the value (e.g. 0.001 for MB → GB)
    digits  = 3           # decimals as written; fmt = "e" writes 1e-11 style
    gothic  = "best"      # instead of file: best, mean, n, strict of a Gothic cell (known, wr, variant,
                          # ablation), or above_paper / strict_above_paper / cells over Tables 2 and 3's base cells,
                          # or cells_at / cells_with_runs (with runs = N): Table 2's cells at wrs = [...]
    value   = 0.778       # instead of file: a constant, with source = "..."

Exit status: 0 when every number is reproduced; 1 when one is not (one line each, naming the
file, the line, the number and what the result file gives); 2 when the manifest or a result file
cannot be read (one line).
"""
from __future__ import annotations

import argparse
import csv
import gzip
import json
import re
import statistics
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from benchmarks import gothic

ROOT = Path(__file__).resolve().parents[1]
RESULTS_PAGE = ROOT / "docs" / "benchmarks.md"
README = ROOT / "README.md"
MANIFEST = ROOT / "benchmarks" / "record.toml"

NUMBER = r"-?\d[\d,]*(?:\.\d+)?(?:e-?\d+)?"
MARKED = re.compile(rf"({NUMBER})<!--r:([\w.:-]+)-->")
MARKER = re.compile(r"<!--r:([\w.:-]+)-->")
#: a number that reads as a measure but is a label, a setting, or arithmetic on the text's own figures
LABEL = re.compile(rf"{NUMBER}(?=\s?%?<!--label-->)")
#: a percentage; one after "WR" (a whitespace ratio), alone in a table cell (the WR column) or naming an
#: interval's level is a label
PERCENT = re.compile(r"(?<![\w.,/-])(\d[\d,]*(?:\.\d+)?)(?=\s?%)")
PERCENT_LABEL = re.compile(r"(?:WR\)?\s+(?:[\d.]+\s?%?\s?(?:–|-|to|and|,)\s?)*$|\|\s*$)")
#: a number with a unit of measure right after it, or a decimal; labels are integers without one
UNIT = r"(?:\s?(?:ms|MB|GB|MiB|GiB|s|steps/s|×|x)(?![\w/]))"
MEASURE = re.compile(rf"(?<![\w.,/-])(\d[\d,]*\.\d+(?:e-?\d+)?|\d[\d,]*(?={UNIT}))(?![\w.]*\d)")
SECTION_END = re.compile(r"^## ", re.M)


class RecordError(Exception):
    """The manifest or a result file cannot be read: one line, exit status 2."""


@dataclass(frozen=True)
class Problem:
    path: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text}"


# ------------------------------------------------------------------------------------------
# the manifest and what each entry computes


def load_manifest(path: Path) -> dict[str, dict]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise RecordError(f"{path}: cannot read the manifest: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise RecordError(f"{path}: not valid TOML: {e}") from None
    entries: dict[str, dict] = {}
    for i, e in enumerate(data.get("n", []), 1):
        ident = e.get("id")
        if not isinstance(ident, str) or not ident:
            raise RecordError(f"{path}: entry {i} has no id")
        if ident in entries:
            raise RecordError(f"{path}: id {ident!r} is defined twice")
        if sum(k in e for k in ("file", "gothic", "value")) != 1:
            raise RecordError(f"{path}: entry {ident!r} needs exactly one of file, gothic, value")
        if "value" in e and "source" not in e:
            raise RecordError(f"{path}: entry {ident!r} is a constant without a source")
        entries[ident] = e
    return entries


def _read_rows(path: Path) -> list[dict] | dict:
    try:
        if path.suffix == ".gz":
            raw = gzip.decompress(path.read_bytes()).decode("utf-8")
        else:
            raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise RecordError(f"{path}: cannot read: {e}") from None
    name = path.name.removesuffix(".gz")
    try:
        if name.endswith(".jsonl"):
            return [json.loads(x) for x in raw.splitlines() if x.strip()]
        if name.endswith(".json"):
            return json.loads(raw)
    except json.JSONDecodeError as e:
        raise RecordError(f"{path}:{e.lineno}: not valid JSON: {e.msg}") from None
    if name.endswith(".csv"):
        return list(csv.DictReader(raw.splitlines()))
    raise RecordError(f"{path}: unknown result file type (jsonl, json or csv)")


def _at(obj, keys: list[str], where: str) -> list:
    if not keys:
        return [obj]
    k, rest = keys[0], keys[1:]
    if k == "*":
        items = obj.values() if isinstance(obj, dict) else obj
        return [v for item in items for v in _at(item, rest, where)]
    if isinstance(obj, list):
        try:
            return _at(obj[int(k)], rest, where)
        except (ValueError, IndexError):
            raise RecordError(f"{where}: no element {k!r}") from None
    if not isinstance(obj, dict) or k not in obj:
        raise RecordError(f"{where}: no key {k!r}")
    return _at(obj[k], rest, where)


def _same(a, b) -> bool:
    if isinstance(a, list):           # where = { null = ["0", "1", "2"] }: any of them
        return any(_same(x, b) for x in a)
    if isinstance(a, (int, float)) and not isinstance(a, bool):
        try:
            return float(b) == float(a)
        except (TypeError, ValueError):
            return False
    return str(a) == str(b)


def _number(v, where: str) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        raise RecordError(f"{where}: {v!r} is not a number") from None


def _aggregate(values: list[float], rows: list, agg: str, where: str) -> float:
    if agg == "count":
        return float(len(values))
    if not values:
        raise RecordError(f"{where}: no rows match")
    if agg == "value":
        if len(values) != 1:
            raise RecordError(f"{where}: {len(values)} rows match, 'value' needs exactly one")
        return values[0]
    if agg.startswith(("argmax:", "argmin:")):
        pick = max if agg.startswith("argmax:") else min
        best = pick(range(len(values)), key=lambda i: values[i])
        return _number(rows[best].get(agg.split(":", 1)[1]), where)
    funcs = {"first": lambda v: v[0], "last": lambda v: v[-1], "max": max, "min": min,
             "mean": statistics.fmean, "median": statistics.median}
    if agg not in funcs:
        raise RecordError(f"{where}: unknown agg {agg!r}")
    return funcs[agg](values)


def _gothic(entry: dict, root: Path, where: str) -> float:
    rows = gothic.read_rows(root / "benchmarks" / "results" / "gothic.csv")
    s = gothic.summarise(rows)
    what = entry["gothic"]
    if what in ("above_paper", "strict_above_paper", "cells"):
        cells = [(k, wr, v, gothic.PAPER_TABLE2[k][wr][i]) for k in gothic.KNOWN for wr in gothic.WRS[:4]
                 for i, v in enumerate(gothic.VARIANTS)]
        cells += [(k, "1", "base", gothic.PAPER_TABLE3[k]) for k in gothic.KNOWN]
        got = [(s.get((k, wr, v, "none")), paper) for k, wr, v, paper in cells]
        if what == "cells":
            return float(sum(x is not None for x, _ in got))
        attr = "best" if what == "above_paper" else "best_strict"
        return float(sum(x is not None and round(getattr(x, attr), 3) > paper for x, paper in got))
    if what in ("cells_at", "cells_with_runs"):       # Table 2's cells at the ratios ``wrs``
        wrs = [str(w) for w in entry.get("wrs", gothic.WRS[:4])]
        got = [s.get((k, wr, v, "none")) for k in gothic.KNOWN for wr in wrs for v in gothic.VARIANTS]
        if what == "cells_at":
            return float(sum(x is not None for x in got))
        return float(sum(x is not None and x.n == int(entry["runs"]) for x in got))
    key = (entry["known"], str(entry["wr"]), entry["variant"], entry.get("ablation", "none"))
    if key not in s:
        raise RecordError(f"{where}: no Gothic cell {key}")
    attr = {"best": "best", "mean": "mean", "n": "n", "strict": "best_strict"}.get(what)
    if attr is None:
        raise RecordError(f"{where}: unknown gothic selector {what!r}")
    return float(getattr(s[key], attr))


def compute(entry: dict, root: Path, entries: dict | None = None) -> float:
    """The entry's value; ``ratio_to`` divides it by another entry's value."""
    v = _compute(entry, root)
    if "ratio_to" in entry:
        other = (entries or {}).get(entry["ratio_to"])
        if other is None:
            raise RecordError(f"record entry {entry['id']!r}: ratio_to names no entry {entry['ratio_to']!r}")
        v /= _compute(other, root)
    return v


def _compute(entry: dict, root: Path) -> float:
    where = f"record entry {entry['id']!r}"
    if "value" in entry:
        return _number(entry["value"], where)
    if "gothic" in entry:
        v = _gothic(entry, root, where)
    else:
        where = f"{entry['file']} (record entry {entry['id']!r})"
        if any(c in entry["file"] for c in "*?["):
            paths = sorted(root.glob(entry["file"]))
            if not paths:
                raise RecordError(f"{where}: no file matches")
            data = []
            for path in paths:
                one = _read_rows(path)
                data += one if isinstance(one, list) else [one]
        else:
            data = _read_rows(root / entry["file"])
        if "path" in entry:
            found = _at(data, entry["path"].split("."), where)
            rows = found
            values = [_number(x, where) for x in found]
        else:
            rows = data if isinstance(data, list) else [data]
            wanted = entry.get("where", {})
            rows = [r for r in rows if all(k in r and _same(v, r[k]) for k, v in wanted.items())]
            if "field" not in entry:
                raise RecordError(f"{where}: needs a field or a path")
            rows = [r for r in rows if entry["field"] in r]
            values = [_number(r[entry["field"]], where) for r in rows]
        v = _aggregate(values, rows, entry.get("agg", "value"), where)
    return v * float(entry.get("scale", 1.0))


def formatted(entry: dict, value: float) -> str:
    if entry.get("fmt") == "e":
        return f"{value:.{int(entry.get('digits', 0))}e}".replace("e-0", "e-").replace("e+0", "e")
    return f"{value:.{int(entry.get('digits', 0))}f}"


# ------------------------------------------------------------------------------------------
# the documents


def _blank(m: re.Match) -> str:
    return re.sub(r"[^\n]", " ", m.group(0))


def readable(text: str) -> str:
    """The text with code, links' targets and HTML comments blanked out (line numbers kept)."""
    text = re.sub(r"```.*?```", _blank, text, flags=re.S)
    text = re.sub(r"(?m)^(?: {4}|\t).*$", _blank, text)
    text = re.sub(r"`[^`\n]*`", _blank, text)
    text = re.sub(r"\]\([^)\n]*\)", _blank, text)
    return re.sub(r"<!--.*?-->", _blank, text, flags=re.S)


def without_code(text: str) -> str:
    """The text with code blocks and spans blanked out (line numbers and positions kept)."""
    text = re.sub(r"```.*?```", _blank, text, flags=re.S)
    return re.sub(r"`[^`\n]*`", _blank, text)


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def check_text(name: str, text: str, offset: int, entries: dict, root: Path, used: set,
               cache: dict) -> list[Problem]:
    """Every marked number reproduced; every measured number marked. ``offset`` is the line of
    ``text``'s first line in its file."""
    problems = []
    for m in MARKED.finditer(text):
        literal, ident = m.group(1), m.group(2)
        line = _line(text, m.start()) + offset - 1
        used.add(ident)
        if ident not in entries:
            problems.append(Problem(name, line, f"{literal} names record entry {ident!r}, which the manifest lacks"))
            continue
        if ident not in cache:
            cache[ident] = compute(entries[ident], root, entries)
        want = formatted(entries[ident], cache[ident])
        if literal.replace(",", "") != want:
            e = entries[ident]
            src = e.get("file") or ("benchmarks/results/gothic.csv" if "gothic" in e else e.get("source"))
            problems.append(Problem(name, line, f"{literal} should be {want} (record entry {ident!r}, from {src})"))
    plain = readable(LABEL.sub(lambda m: " " * len(m.group(0)), MARKED.sub(lambda m: " " * len(m.group(0)), text)))
    for m in MEASURE.finditer(plain):
        line = _line(plain, m.start()) + offset - 1
        problems.append(Problem(name, line, f"{m.group(1)} has no record marker (<!--r:ID--> after it, "
                                            "an entry in benchmarks/record.toml)"))
    for m in PERCENT.finditer(plain):
        before, after = plain[max(0, m.start() - 40):m.start()], plain[m.end():m.end() + 30]
        if PERCENT_LABEL.search(before) or re.match(r"\s?%\s*(?:\|\s*$|interval|\(Wilson\))", after, re.M):
            continue
        problems.append(Problem(name, _line(plain, m.start()) + offset - 1,
                                f"{m.group(1)} % has no record marker (<!--r:ID-->), nor <!--label--> if it "
                                "is a label, a setting or arithmetic on the text's figures"))
    ends = {m.end() for m in MARKED.finditer(text)}
    for m in MARKER.finditer(without_code(text)):     # a marker inside code is an example of one
        if m.end() not in ends:
            problems.append(Problem(name, _line(text, m.start()) + offset - 1,
                                    f"marker {m.group(1)!r} does not follow a number"))
    return problems


def check_gothic_block(name: str, text: str, root: Path) -> tuple[list[Problem], str]:
    """The rendered Gothic tables must be what the renderer makes of gothic.csv; returns the text
    with the block blanked (its numbers are checked here, as a whole)."""
    if gothic.BEGIN not in text:
        return [], text
    start = text.index(gothic.BEGIN)
    end = text.find(gothic.END, start)
    if end < 0:
        return [Problem(name, _line(text, start), "gothic-tables:begin without gothic-tables:end")], text
    end += len(gothic.END)
    want = gothic.render(gothic.read_rows(root / "benchmarks" / "results" / "gothic.csv")).split("\n")
    have = text[start:end].split("\n")
    problems = []
    for i, (h, w) in enumerate(zip(have, want)):
        if h != w:
            problems.append(Problem(name, _line(text, start) + i,
                                    f"Gothic table line differs from `python -m benchmarks.gothic --render`: {w}"))
            break
    else:
        if len(have) != len(want):
            problems.append(Problem(name, _line(text, start), "Gothic tables differ in length from the renderer's"))
    blanked = text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]
    return problems, blanked


def results_section(text: str) -> tuple[str, int]:
    """README's "## Results" section and the line it starts on."""
    m = re.search(r"^## Results\s*$", text, re.M)
    if not m:
        return "", 1
    rest = SECTION_END.search(text, m.end())
    return text[m.start(): rest.start() if rest else len(text)], _line(text, m.start())


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def marked_docs(root: Path = ROOT, results_page: Path = RESULTS_PAGE) -> list[Path]:
    """Every other page under docs/ that carries a record marker: it is checked as the results page is."""
    docs = root / "docs"
    return [p for p in sorted(docs.rglob("*.md")) if p.resolve() != results_page.resolve()
            and MARKER.search(without_code(p.read_text(encoding="utf-8")))] if docs.is_dir() else []


def unchecked_docs(root: Path = ROOT, checked: Sequence[Path] = ()) -> list[tuple[Path, int, int]]:
    """The pages under docs/ the check does not read, with how many decimals and percentages each holds
    (numbers in code, links and comments aside): the scope statement's second half."""
    done = {p.resolve() for p in checked}
    out = []
    for p in sorted((root / "docs").rglob("*.md")) if (root / "docs").is_dir() else []:
        if p.resolve() in done:
            continue
        plain = readable(p.read_text(encoding="utf-8"))
        decimals = len(re.findall(r"(?<![\w.,/-])\d[\d,]*\.\d+", plain))
        percents = len(PERCENT.findall(plain))
        if decimals or percents:
            out.append((p, decimals, percents))
    return out


def check_provenance(root: Path = ROOT) -> list[Problem]:
    """Every result file has its row in benchmarks/results/PROVENANCE.tsv, and every row a file."""
    from benchmarks.commit import PROVENANCE, RESULTS, read_index, result_files

    index = root / PROVENANCE.relative_to(ROOT)
    results = root / RESULTS.relative_to(ROOT)
    if not results.is_dir():
        return []
    try:
        rows = read_index(index)
    except (OSError, KeyError, UnicodeDecodeError) as e:
        raise RecordError(f"{index}: cannot read the provenance index: {e}") from None
    have = {f.relative_to(root).as_posix() for f in result_files(results)}
    shown = _shown(index)
    problems = [Problem(shown, 1, f"{f}: no row (its commit and command; `python -m benchmarks.provenance` "
                                  "adds the older files' from git history)") for f in sorted(have - set(rows))]
    problems += [Problem(shown, 1, f"{f}: a row for a file that does not exist") for f in sorted(set(rows) - have)]
    return problems


def check(results_page: Path, readme: Path, manifest: Path, root: Path = ROOT,
          scope: dict | None = None) -> list[Problem]:
    entries = load_manifest(manifest)
    used: set[str] = set()
    cache: dict[str, float] = {}
    problems: list[Problem] = []
    pages = [results_page, readme] + marked_docs(root, results_page)
    for path in pages:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise RecordError(f"{path}: cannot read: {e}") from None
        if path == readme:
            section, offset = results_section(text)
            if not section:
                problems.append(Problem(_shown(path), 1, "no '## Results' section"))
                continue
        else:
            gp, text = check_gothic_block(_shown(path), text, root)
            problems += gp
            section, offset = text, 1
        problems += check_text(_shown(path), section, offset, entries, root, used, cache)
        if scope is not None:
            scope.setdefault("checked", []).append((_shown(path) + (" (its Results section)" if path == readme else ""),
                                                    len(MARKED.findall(section)), len(LABEL.findall(section))))
    for ident in entries:
        if ident not in used:
            problems.append(Problem(_shown(manifest), 1, f"record entry {ident!r} is quoted nowhere in the record"))
    problems += check_provenance(root)
    if scope is not None:
        scope["unchecked"] = [(_shown(p), d, c) for p, d, c in unchecked_docs(root, pages)]
    return problems


def scope_lines(scope: dict) -> list[str]:
    """What the check covered and what it did not: printed with every verdict."""
    lines = ["check_record: checked " + "; ".join(f"{n} ({k} marked numbers, {lab} labels)"
                                                   for n, k, lab in scope.get("checked", [])) + ": every decimal, "
             "number with a unit and percentage in them carries a marker (or <!--label-->); integers without a unit "
             "are read as labels unless marked; every result file has its commit and command in "
             "benchmarks/results/PROVENANCE.tsv"]
    if scope.get("unchecked"):
        lines.append("check_record: not checked (no marker; their figures are the results page's, worked examples, "
                     "settings or the notebook's dated record): " + "; ".join(
                         f"{n} ({d} decimals, {c} percentages)" for n, d, c in scope["unchecked"]))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--results-page", type=Path, default=RESULTS_PAGE)
    p.add_argument("--readme", type=Path, default=README)
    p.add_argument("--manifest", type=Path, default=MANIFEST)
    p.add_argument("--root", type=Path, default=ROOT, help="where benchmarks/results/ is (default: this checkout)")
    p.add_argument("--values", action="store_true", help="print each entry's value as the record would write it")
    a = p.parse_args(argv)
    try:
        if a.values:
            entries = load_manifest(a.manifest)
            for ident, e in entries.items():
                print(f"{ident}\t{formatted(e, compute(e, a.root, entries))}")
            return 0
        scope: dict = {}
        problems = check(a.results_page, a.readme, a.manifest, a.root, scope)
    except RecordError as e:
        print(f"check_record: {e}", file=sys.stderr)
        return 2
    for x in problems:
        print(x, file=sys.stderr)
    if problems:
        print(f"check_record: {len(problems)} problem(s): the record does not match benchmarks/results/", file=sys.stderr)
        print("\n".join(scope_lines(scope)), file=sys.stderr)
        return 1
    print("check_record: every number in the record is reproduced by benchmarks/results/")
    print("\n".join(scope_lines(scope)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
