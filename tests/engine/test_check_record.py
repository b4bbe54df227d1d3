"""benchmarks.check_record: the record (docs/benchmarks.md and README's Results) is reproduced by the
committed result files, and an edited, unsourced or orphaned number is caught, naming it."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from benchmarks import check_record

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "benchmarks.md"
README = ROOT / "README.md"
MANIFEST = ROOT / "benchmarks" / "record.toml"


@pytest.fixture
def docs(tmp_path):
    page, readme = tmp_path / "benchmarks.md", tmp_path / "README.md"
    shutil.copy(PAGE, page)
    shutil.copy(README, readme)
    return page, readme


def run(page: Path, readme: Path, manifest: Path = MANIFEST) -> int:
    return check_record.main(["--results-page", str(page), "--readme", str(readme), "--manifest", str(manifest),
                              "--root", str(ROOT)])


def test_the_committed_record_is_reproduced_by_the_result_files(capsys):
    assert check_record.main([]) == 0, capsys.readouterr().err


def test_every_marked_number_in_the_record_is_checked():
    """The record is not empty: both documents carry markers, and the manifest's entries are all used."""
    entries = check_record.load_manifest(MANIFEST)
    page = set(re.findall(r"<!--r:([\w.:-]+)-->", PAGE.read_text(encoding="utf-8")))
    readme = set(re.findall(r"<!--r:([\w.:-]+)-->", check_record.results_section(
        README.read_text(encoding="utf-8"))[0]))
    others = set()
    for doc in check_record.marked_docs():
        others |= set(re.findall(r"<!--r:([\w.:-]+)-->", doc.read_text(encoding="utf-8")))
    assert len(page) >= 40 and len(readme) >= 20
    assert page | readme | others == set(entries)


def _with_results_line(readme: Path, text: str, line: str) -> None:
    """README as ``text`` with ``line`` as the first paragraph of its Results section."""
    readme.write_text(text.replace("## Results\n", f"## Results\n\n{line}\n", 1), encoding="utf-8")


def _edit_first(path: Path, ident: str) -> tuple[str, str]:
    text = path.read_text(encoding="utf-8")
    m = re.search(rf"({check_record.NUMBER})<!--r:{re.escape(ident)}-->", text)
    assert m, ident
    old = m.group(1)
    new = f"{float(old) + 0.001:.3f}" if "." in old else str(int(old) + 1)
    path.write_text(text[:m.start(1)] + new + text[m.end(1):], encoding="utf-8")
    return old, new


@pytest.mark.parametrize("where, ident", [("readme", "got-pg-wr100-base-best"), ("page", "uga-small-p1-mean"),
                                          ("page", "got-strict-above-paper"), ("readme", "paper-uga-p1")])
def test_an_edited_number_fails_naming_it(docs, capsys, where, ident):
    page, readme = docs
    target = readme if where == "readme" else page
    old, new = _edit_first(target, ident)
    assert run(page, readme) == 1
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if ident in x)
    assert line.startswith(f"{target}:") and f"{new} should be {old}" in line


def test_a_number_without_a_source_fails(docs, capsys):
    page, readme = docs
    text = readme.read_text(encoding="utf-8")
    text = text.replace("## Results\n", "## Results\n\nOn a quiet box it runs at 29.1 steps/s and uses 564 MB.\n", 1)
    readme.write_text(text, encoding="utf-8")
    assert run(page, readme) == 1
    err = capsys.readouterr().err
    assert "29.1 has no record marker" in err and "564 has no record marker" in err


def test_numbers_in_code_links_and_labels_are_not_read(docs, capsys):
    page, readme = docs
    text = page.read_text(encoding="utf-8")
    extra = ("\n\nSeed 3 of 5 at WR 25 % after 3,000 steps (issue 31); `--lr 0.2`;\n"
             "[a link](notebook/x-0.5.md).\n\n    python -m benchmarks.speed --threads 1.5\n")
    page.write_text(text + extra, encoding="utf-8")
    assert run(page, readme) == 0, capsys.readouterr().err


def test_an_edited_gothic_table_cell_fails(docs, capsys):
    page, readme = docs
    text = page.read_text(encoding="utf-8")
    assert "strict 0.500)" in text
    page.write_text(text.replace("strict 0.500)", "strict 0.600)", 1), encoding="utf-8")
    assert run(page, readme) == 1
    assert "Gothic table line differs" in capsys.readouterr().err


def test_a_marker_the_manifest_lacks_and_an_entry_quoted_nowhere_fail(docs, capsys):
    page, readme = docs
    text = readme.read_text(encoding="utf-8").replace("<!--r:uga-small-stem-best-->", "<!--r:no-such-entry-->", 1)
    readme.write_text(text, encoding="utf-8")
    assert run(page, readme) == 1
    err = capsys.readouterr().err
    assert "names record entry 'no-such-entry', which the manifest lacks" in err
    # the page still quotes uga-small-stem-best, so only the unknown id is reported
    assert "quoted nowhere" not in err


def test_a_changed_result_file_value_fails(tmp_path, docs, capsys):
    """The manifest's rounding is what the text must say: a constant moved by one in the third
    decimal is caught."""
    page, readme = docs
    manifest = tmp_path / "record.toml"
    manifest.write_text(MANIFEST.read_text(encoding="utf-8").replace("value = 0.778", "value = 0.779", 1),
                        encoding="utf-8")
    assert run(page, readme, manifest) == 1
    assert "0.778 should be 0.779" in capsys.readouterr().err


def test_an_unreadable_manifest_is_one_line_and_status_2(tmp_path, docs, capsys):
    page, readme = docs
    manifest = tmp_path / "record.toml"
    manifest.write_text("[[n]]\nid = \n", encoding="utf-8")
    assert run(page, readme, manifest) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(manifest) in err and "not valid TOML" in err


def test_a_missing_result_file_is_one_line_and_status_2(tmp_path, docs, capsys):
    page, readme = docs
    manifest = tmp_path / "record.toml"
    manifest.write_text(MANIFEST.read_text(encoding="utf-8").replace(
        "gpu-h100/cuda-check-h100.json", "gpu-h100/no-such-file.json"), encoding="utf-8")
    assert run(page, readme, manifest) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no-such-file.json" in err


def test_the_floor_quoted_in_the_record_is_the_one_the_test_asserts():
    from benchmarks import quality_floor

    entries = check_record.load_manifest(MANIFEST)
    assert {"p_at_1": entries["floor-p1"]["value"], "p_at_10": entries["floor-p10"]["value"]} == quality_floor.FLOOR


def test_a_marker_that_follows_no_number_fails(docs, capsys):
    page, readme = docs
    _with_results_line(readme, readme.read_text(encoding="utf-8"), "about<!--r:uga-small-p1-best--> right")
    assert run(page, readme) == 1
    assert "marker 'uga-small-p1-best' does not follow a number" in capsys.readouterr().err


def test_values_prints_each_entry_as_the_record_writes_it(capsys):
    assert check_record.main(["--values"]) == 0
    values = dict(line.split("\t") for line in capsys.readouterr().out.splitlines())
    assert set(values) == set(check_record.load_manifest(MANIFEST))
    assert values["uga-small-p1-best"] == "0.828" and values["got-strict-above-paper"] == "0"


def test_a_where_list_takes_the_rows_of_any_of_its_values():
    assert check_record._same(["0", "1"], "1") and not check_record._same(["0", "1"], "")
    assert check_record._same([2, "x"], "2.0") and check_record._same("", "")


# ---- issue 53: percentages, labels, the pages that opt in, the result files' provenance, the scope ----------

def test_a_percentage_without_a_marker_fails_and_a_labelled_one_passes(docs, capsys):
    page, readme = docs
    text = readme.read_text(encoding="utf-8")
    _with_results_line(readme, text, "It finds the onsets 27 % of the time.")
    assert run(page, readme) == 1
    assert "27 % has no record marker" in capsys.readouterr().err
    _with_results_line(readme, text, "At WR 25 % and WR 0–75 %, a 90 % interval; flagged at 10 %<!--label--> of "
                                     "the text.")
    assert run(page, readme) == 0, capsys.readouterr().err


def test_a_page_under_docs_with_a_marker_is_checked_like_the_results_page(tmp_path, capsys):
    root = tmp_path / "root"
    shutil.copytree(ROOT / "benchmarks" / "results", root / "benchmarks" / "results")
    (root / "docs").mkdir()
    page, readme = root / "docs" / "benchmarks.md", root / "README.md"
    shutil.copy(PAGE, page)
    shutil.copy(README, readme)
    other = root / "docs" / "other.md"
    other.write_text("Best 0.828<!--r:uga-small-p1-best--> and 0.5 unmarked; `<!--r:x-->` in code is an example.\n",
                     encoding="utf-8")
    (root / "docs" / "plain.md").write_text("A setting of 0.2 and 0.5.\n", encoding="utf-8")
    assert check_record.marked_docs(root, page) == [other]
    scope: dict = {}
    problems = check_record.check(page, readme, MANIFEST, root, scope)
    assert [str(x) for x in problems if "other.md" in str(x)] == [
        f"{check_record._shown(other)}:1: 0.5 has no record marker (<!--r:ID--> after it, an entry in "
        "benchmarks/record.toml)"]
    lines = check_record.scope_lines(scope)
    assert "README.md (its Results section)" in lines[0] and "other.md" in lines[0]
    assert "plain.md (2 decimals, 0 percentages)" in lines[1]


def test_a_result_file_without_its_commit_and_command_fails(tmp_path, docs, capsys):
    page, readme = docs
    root = tmp_path / "root"
    shutil.copytree(ROOT / "benchmarks" / "results", root / "benchmarks" / "results")
    (root / "benchmarks" / "results" / "new-result.jsonl").write_text('{"p_at_1": 0.5}\n', encoding="utf-8")
    index = root / "benchmarks" / "results" / "PROVENANCE.tsv"
    lines = index.read_text(encoding="utf-8").splitlines(keepends=True)
    gone = next(x for x in lines[1:] if x.startswith("benchmarks/results/gothic.csv\t"))
    index.write_text("".join(x for x in lines if x != gone), encoding="utf-8")
    (root / "benchmarks" / "results" / "closeness.csv").unlink()
    problems = [str(x) for x in check_record.check_provenance(root)]
    assert any("benchmarks/results/new-result.jsonl: no row" in x for x in problems)
    assert any("benchmarks/results/gothic.csv: no row" in x for x in problems)
    assert any("benchmarks/results/closeness.csv: a row for a file that does not exist" in x for x in problems)
    assert len(problems) == 3


def test_the_committed_result_files_all_have_a_commit_and_a_command_row():
    from benchmarks.commit import read_index, result_files

    rows = read_index()
    assert {f.relative_to(ROOT).as_posix() for f in result_files()} == set(rows)
    assert all(r["commit"] and r["command"] and r["how"] for r in rows.values())
    # the run that made the Gothic list sizes recorded itself; older files say how their row is known
    assert rows["benchmarks/results/closeness-list-sizes.csv"]["how"].startswith("run:")
    assert rows["benchmarks/results/gothic.csv"]["command"].startswith("python -m benchmarks.gothic")
