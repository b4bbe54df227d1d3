"""One formula guard for every CSV the product writes (issue 52, 7; issue 51, 5): a run's
matches.csv and steps.csv, a seed group's consensus.csv and a sweep's results.csv are guarded as
``project export`` is, and every text, code columns such as ``lost_span_code`` included, reads back
exactly as it was (the engine's readers and ``project import --matches`` take the guard off)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest


from engine.io.atomic import FORMULA_STARTS, guard_formula, needs_guard, unguard_formula, write_csv
from engine.results import Alternative, Match

from .test_project_helpers import filled_project

CRAFTED = ["=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx", "'=1", "''@rpl", "'",
           "'abc", "-0.25", "+1e-3", "@rpl", "plain", ""]


def live_cells(path: Path) -> list[str]:
    """Cells a spreadsheet would run as a formula (a number written as text is a number)."""
    with open(path, encoding="utf-8", newline="") as f:
        return [c for row in csv.reader(f) for c in row if needs_guard(c) and not c.startswith("'")]


def test_the_guard_round_trips_every_text():
    for value in CRAFTED:
        guarded = guard_formula(value)
        assert unguard_formula(guarded) == value, value
        assert not (isinstance(guarded, str) and guarded.startswith(FORMULA_STARTS)) or value in ("-0.25", "+1e-3")
    assert guard_formula("@rpl") == "'@rpl" and guard_formula("'@rpl") == "''@rpl" and guard_formula("'abc") == "'abc"


def test_run_outputs_are_guarded_and_read_back_unchanged(tmp_path):
    """matches.csv of a run (written as the output folder writes it) has no live formula cell, and
    the consensus reader gets the crafted forms back exactly."""
    from engine.io.reports import MATCH_COLUMNS, match_rows
    from engine.runs.consensus import CONSENSUS_COLUMNS, consensus, consensus_table, read_readings, readings_of

    matches = [Match(f"I{i}", 0, 2, value or "x", (Alternative(1, value, value, -0.5, value, -1.0),), confidence=0.5)
               for i, value in enumerate(CRAFTED)]
    path = tmp_path / "matches.csv"
    write_csv(path, MATCH_COLUMNS, match_rows(matches), guard_formulas=True)
    assert live_cells(path) == []
    assert read_readings(path) == readings_of(matches)
    write_csv(tmp_path / "consensus.csv", CONSENSUS_COLUMNS, consensus_table(consensus({0: readings_of(matches)})),
              guard_formulas=True)
    assert live_cells(tmp_path / "consensus.csv") == []


def test_a_sweeps_results_csv_is_guarded_and_resumes_with_the_same_names(tmp_path):
    from engine.runs.sweep import ResultRow, ResultsTable, read_results

    rows = [ResultRow(known, 0, "lr=0.1", f"{i}/seed-0", "completed", -0.5, error=known)
            for i, known in enumerate(CRAFTED)]
    ResultsTable(tmp_path / "results.csv", rows).save()
    assert live_cells(tmp_path / "results.csv") == []
    back = read_results(tmp_path / "results.csv")
    assert [(r.known, r.error, r.p_at_1) for r in back.values()] == [(k, k, -0.5) for k in CRAFTED]


@pytest.mark.slow
def test_decipher_run_writes_no_live_formula_from_a_crafted_known_file(tmp_path):
    """The issue's probe: 100 live cells in matches.csv from a crafted known file."""
    from engine.cli.main import main

    (tmp_path / "lost.csv").write_text("id,text\nA,abab\nB,baba\nC,abba\n", encoding="utf-8")
    (tmp_path / "known.csv").write_text("form,ipa,gloss\n=cmd|' /C calc'!A0,ab,@SUM(1)\n-ba,ba,+x\n@ab,ab,=1\n",
                                        encoding="utf-8")
    assert main(["run", "--lost", str(tmp_path / "lost.csv"), "--known", str(tmp_path / "known.csv"), "--steps", "2",
                 "--out", str(tmp_path / "o"), "--quiet", "--set", "min_span=2", "--set", "max_span=4"]) == 0
    text = (tmp_path / "o" / "matches.csv").read_text(encoding="utf-8")
    assert "'=cmd" in text or "'-ba" in text or "'@ab" in text
    assert live_cells(tmp_path / "o" / "matches.csv") == [] and live_cells(tmp_path / "o" / "steps.csv") == []


def test_code_columns_round_trip_through_export_and_import(tmp_path, capsys):
    """Issue 51, 5: ``@rpl`` (a data code) was written ``'@rpl`` in ``lost_span_code`` and came
    back so; the CLI's re-import now takes the guard off by default."""
    from engine.cli.project import main

    project, ids = filled_project(tmp_path / "p.decipher")
    code_matches = [Match("B.1.1", 0, 4, "@rpl", (Alternative(1, "'@x", "ab", -0.5, "=g", -1.0),), confidence=0.5)]
    project.record_matches(ids["run"], code_matches)
    project.close()
    report = tmp_path / "m.csv"
    assert main(["export", str(tmp_path / "p.decipher"), "--matches", str(report), "--run", str(ids["run"])]) == 0
    rows = list(csv.DictReader(report.open(encoding="utf-8", newline="")))
    row = next(r for r in rows if r["lost_span_code"].endswith("@rpl"))
    assert row["lost_span_code"] == "'@rpl" and row["stem_code"] == "''@x" and live_cells(report) == []
    assert main(["import", str(tmp_path / "p.decipher"), "--matches", str(report)]) == 0
    out = capsys.readouterr().out
    run = int(out.split("into run ")[1].split()[0])
    from engine.project import Project

    with Project.open(tmp_path / "p.decipher", read_only=True) as p:
        back = [m for m in p.matches(run) if m.inscription_id == "B.1.1" and m.end == 4]
    assert back[0].span == "@rpl" and back[0].alternatives[0].form == "'@x" and back[0].alternatives[0].gloss == "=g"


def _project_tables(path: Path):
    from engine.project import Project

    with Project.open(path, read_only=True) as p:
        cid, lid = p.corpora()[0].id, p.languages()[0].id
        return ([(i.id, i.text, i.raw) for i in p.inscriptions(cid)],
                [(s.form, s.ipa, s.gloss) for s in p.stems(lid)],
                [(g.inscription_id, g.start, g.word_end, g.known) for g in p.gold(cid)],
                [(q.lost, q.known_ipa, q.weight, q.locked, q.note) for q in p.pins()])


def test_guarded_exports_of_every_table_import_back_unchanged(tmp_path, capsys):
    """Issue 52: LOST/KNOWN/GOLD/PRIOR exported with the guard (the default) read back as they were
    (``project import`` takes the guard off by default, as for --matches); --no-unguard keeps it."""
    from engine.cli.project import main

    src = tmp_path / "src"
    src.mkdir()
    write_csv(src / "lost.csv", ("id", "text"), [("=SUM", "-ke ti ba"), ("@rpl", "ba ka")])
    write_csv(src / "known.csv", ("form", "ipa", "gloss"), [("=SUM", "bakar", "@rpl"), ("-ke", "ke", "=1")])
    write_csv(src / "gold.csv", ("inscription_id", "start", "word_end", "known"), [("=SUM", 0, 2, "-ke")])
    write_csv(src / "prior.csv", ("lost", "known_ipa", "weight", "locked", "note"),
              [("b", "b", 1, 1, "=SUM"), ("k", "k", 0.5, 0, "@rpl")])
    kinds = ("lost", "known", "gold", "prior")
    a, b, c = (tmp_path / f"{n}.decipher" for n in "abc")
    for project, folder, extra in ((a, src, []), (b, tmp_path / "out", []), (c, tmp_path / "out", ["--no-unguard"])):
        assert main(["new", str(project)]) == 0
        if project == b:
            (tmp_path / "out").mkdir()
            for kind in kinds:
                assert main(["export", str(a), f"--{kind}", str(tmp_path / "out" / f"{kind}.csv")]) == 0
                assert live_cells(tmp_path / "out" / f"{kind}.csv") == []
            assert "'=SUM" in (tmp_path / "out" / "known.csv").read_text(encoding="utf-8")
        for kind in kinds:
            assert main(["import", str(project), f"--{kind}", str(folder / f"{kind}.csv"), *extra]) == 0, kind
    capsys.readouterr()
    original = _project_tables(a)
    assert original[1][0] == ("=SUM", "bakar", "@rpl") and original[3][0][4] == "=SUM"
    assert _project_tables(b) == original
    kept = _project_tables(c)
    assert kept[1][0] == ("'=SUM", "bakar", "'@rpl") and kept[0][0][:2] == ("'=SUM", "'-ke ti ba")


def test_import_cog_outputs_are_guarded_and_read_back_unchanged(tmp_path):
    """Issue 52: import-cog's lost/known/gold CSVs go through the one guard, and ``decipher run``'s
    readers and ``project import`` get a form beginning with '=' or '@' back unchanged."""
    from engine.cli.main import main
    from engine.io.tables import read_gold, read_known, read_lost

    cog = tmp_path / "x.cog"
    cog.write_text("uga\theb\n=lk\tmlk\n@bt\tbyt\nksp\t_\n", encoding="utf-8")
    assert main(["import-cog", str(cog), "--out", str(tmp_path / "o")]) == 0
    for name in ("lost.csv", "known.csv", "gold.csv"):
        assert live_cells(tmp_path / "o" / name) == [], name
    assert "'=lk" in (tmp_path / "o" / "lost.csv").read_text(encoding="utf-8")
    lost = read_lost(tmp_path / "o" / "lost.csv")
    assert {i.text for i in lost} >= {"=lk", "@bt"}
    gold = read_gold(tmp_path / "o" / "gold.csv", inscriptions=lost)
    assert {g.inscription_id for g in gold} == {i.id for i in lost if i.text in ("=lk", "@bt")}
    assert {s.form for s in read_known(tmp_path / "o" / "known.csv")} >= {"mlk", "byt"}
