"""A project file is data, not code (issue 28, item 2): foreign SQL objects are refused before
anything runs, every statement is bounded, every stored value is checked as it is read, and the
app and the commands say so in one line (item 6)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine.cli.main import main as cli_main
from engine.errors import ForeignSchemaError, ProjectError, StoredValueError
from engine.project import Project, access, schema
from engine.project.store import clean_copy

from tests.engine.test_project_helpers import filled_project, sha


@pytest.fixture()
def made(tmp_path) -> Path:
    path = tmp_path / "p.decipher"
    project, _ = filled_project(path)
    project.close()
    return path


def plant(path: Path, *statements: str, ignore_checks: bool = False) -> None:
    """Change the file behind the program's back, as a sender of a crafted file would."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        if ignore_checks:
            conn.execute("PRAGMA ignore_check_constraints=ON")
        conn.execute("PRAGMA foreign_keys=OFF")
        for s in statements:
            conn.execute(s)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def count(path: Path, table: str) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def one_line_error(capsys, argv: list[str]) -> str:
    code = cli_main(argv)
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if x.strip()]
    assert code == 2, err
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# ---- foreign objects ------------------------------------------------------------------------

FOREIGN = {
    "trigger": ("CREATE TRIGGER wipe AFTER INSERT ON run BEGIN DELETE FROM stem; END", "trigger 'wipe' on table 'run'"),
    "view named corpus": ("DROP TABLE corpus", "view 'corpus'"),
    "extra table": ("CREATE TABLE payload (x)", "table 'payload'"),
    "extra index": ("CREATE INDEX stem_ipa ON stem(ipa)", "index 'stem_ipa' on table 'stem'"),
}


def _plant_foreign(path: Path, case: str) -> None:
    sql, _ = FOREIGN[case]
    if case == "view named corpus":  # a runaway view standing in for a table of ours
        plant(path, sql, "CREATE VIEW corpus AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL "
                         "SELECT x + 1 FROM c) SELECT x AS id, 'n' AS name, '' AS source, '' AS format, "
                         "'' AS imported_at FROM c")
    else:
        plant(path, sql)


@pytest.mark.parametrize("case", sorted(FOREIGN))
def test_foreign_objects_are_refused_on_open_naming_them(made, case):
    _plant_foreign(made, case)
    stems, before = count(made, "stem"), sha(made)
    with pytest.raises(ForeignSchemaError) as info:
        Project.open(made)
    assert FOREIGN[case][1] in str(info.value)
    assert str(made) in str(info.value)
    assert count(made, "stem") == stems and sha(made) == before  # nothing ran, nothing changed
    with pytest.raises(ForeignSchemaError):
        Project.open(made, read_only=True)
    with pytest.raises(ForeignSchemaError):
        schema.inspect_file(made)


def test_a_table_of_ours_defined_differently_is_refused(made):
    plant(made, "DROP TABLE setting", "CREATE TABLE setting (key TEXT PRIMARY KEY, value TEXT NOT NULL, x)")
    with pytest.raises(ForeignSchemaError, match=r"table 'setting' \(defined differently from ours\)"):
        Project.open(made)


def test_a_missing_table_is_named(made):
    plant(made, "DROP TABLE decision")
    with pytest.raises(ForeignSchemaError, match="lacks table 'decision'"):
        Project.open(made)


def test_sqlite_statistics_tables_are_not_foreign(made):
    plant(made, "ANALYZE")
    Project.open(made).close()


@pytest.mark.parametrize("case", sorted(FOREIGN))
def test_cli_project_info_and_run_refuse_foreign_objects_in_one_line(made, case, capsys, tmp_path):
    _plant_foreign(made, case)
    line = one_line_error(capsys, ["project", "info", str(made)])
    assert FOREIGN[case][1] in line and str(made) in line
    line = one_line_error(capsys, ["run", "--project", str(made), "--steps", "1", "--quiet", "--device", "cpu"])
    assert FOREIGN[case][1] in line
    assert count(made, "run") == 1  # no run was recorded


def test_trusted_schema_is_off(made):
    with Project.open(made) as project:
        assert project.conn.execute("PRAGMA trusted_schema").fetchone()[0] == 0


# ---- a bound on every statement -------------------------------------------------------------


def test_a_runaway_statement_is_interrupted_by_the_step_bound(made):
    with Project.open(made) as project:
        project.conn.bound.max_steps = 200_000
        with pytest.raises(sqlite3.OperationalError, match="interrupted"):
            project.conn.execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                                 "SELECT count(*) FROM c").fetchone()
        assert access.overran(project.conn)
        # the count starts again with the next statement: ordinary calls still work
        assert project.corpora()[0].name == "iberian"
        assert not access.overran(project.conn)


def test_a_store_call_past_the_bound_is_one_project_error(made):
    with Project.open(made) as project:
        project.conn.bound.max_steps = 10_000
        with pytest.raises(ProjectError, match=r"read: refused: one statement on the file ran past 10,000 steps"):
            _slow_read(project)


def _slow_read(project):
    # a locked call whose statement takes more than 10,000 steps
    from engine.project.locking import locked

    @locked
    def read(self):
        return self.conn.execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
                                 "LIMIT 100000) SELECT count(*) FROM c").fetchone()
    return read(project)


def test_opening_past_the_bound_is_refused(made, monkeypatch):
    plant(made, "INSERT INTO setting (key, value) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL "
                "SELECT x + 1 FROM c LIMIT 20000) SELECT 'k' || x, '1' FROM c")
    Project.open(made).close()  # within the default bound
    monkeypatch.setattr(access, "MAX_STATEMENT_STEPS", 10_000)
    with pytest.raises(ProjectError, match="steps of SQLite"):
        Project.open(made)


# ---- every stored value checked when read ----------------------------------------------------

BAD_CELLS = {
    "inscription.meta": ("UPDATE inscription SET meta = '{oops' WHERE rowid = 2", "table inscription, row 2, column meta"),
    "inscription.meta values": ("UPDATE inscription SET meta = '{\"a\": [1]}' WHERE rowid = 2",
                                "table inscription, row 2, column meta"),
    "inscription.text control": ("UPDATE inscription SET text = 'ab' || char(1) WHERE rowid = 3",
                                 "table inscription, row 3, column text: control character U+0001"),
    "inscription.text blob": ("UPDATE inscription SET text = x'00ff' WHERE rowid = 3", "table inscription, row 3, column text"),
    "run.config": ("UPDATE run SET config = '[1, 2]'", "table run, row 1, column config"),
    "run.config bad json": ("UPDATE run SET config = 'steps=5'", "table run, row 1, column config"),
    "run.pins json": ("UPDATE run SET pins = 'x'", "table run, row 1, column pins"),
    "run.pins shape": ("UPDATE run SET pins = '[[\"a\"]]'", "table run, row 1, column pins: not a JSON list of pins"),
    "run.pins weight": ("UPDATE run SET pins = '[[\"a\", \"b\", 1e308, 1, \"\"]]'", "table run, row 1, column pins: not a JSON list of pins"),
    "run_pins.pins": ("INSERT INTO run_pins VALUES (1, 0, '[[1, 2, 3, 4, 5]]', '2026-01-01')", "table run_pins, row run 1 step 0, column pins"),
    "gold.known": ("UPDATE gold SET known = '\"bakar\"' WHERE rowid = 1", "table gold, row 1, column known"),
    "gold.known empty form": ("UPDATE gold SET known = '[\"\"]' WHERE rowid = 1", "table gold, row 1, column known"),
    "gold span": ("UPDATE gold SET word_end = 999 WHERE rowid = 1",
                  "table gold, row 1, column word_end: span 0..999 does not fit inscription"),
    "gold inscription": ("UPDATE gold SET inscription_id = 'nowhere' WHERE rowid = 1",
                         "table gold, row 1, column inscription_id: no inscription 'nowhere'"),
    "setting": ("UPDATE setting SET value = '{' WHERE key = 'created_with'", "table setting, row 'created_with', column value"),
    "metric": ("UPDATE run_metric SET value = 'abc' WHERE name = 'loss'", "table run_metric, row run 1 'loss' step 10, column value"),
    "pin weight": ("UPDATE pin SET weight = 1e9", "column weight"),
    "run status": ("UPDATE run SET status = 'bogus'", "table run, row 1, column status"),
    "stem form": ("UPDATE stem SET form = 'a' || char(27) || 'b' WHERE rowid = 1",
                  "table stem, row 1, column form: control character U+001B"),
}


def _plant_bad(path: Path, case: str) -> None:
    plant(path, BAD_CELLS[case][0], ignore_checks=True)


def _read_all(path: Path) -> None:
    with Project.open(path) as project:
        project.check_readable()


@pytest.mark.parametrize("case", sorted(BAD_CELLS))
def test_a_malformed_cell_is_one_error_naming_table_row_and_column(made, case):
    _plant_bad(made, case)
    with pytest.raises(StoredValueError) as info:
        _read_all(made)
    assert BAD_CELLS[case][1] in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("case", sorted(BAD_CELLS))
def test_cli_project_verbs_print_one_line_for_a_malformed_cell(made, case, capsys):
    _plant_bad(made, case)
    outcomes = []
    for verb in (["info"], ["runs"], ["runs", "--json"], ["export", "--lost", str(made.with_suffix(".csv"))],
                 ["export", "--gold", str(made.with_suffix(".gold.csv"))],
                 ["export", "--known", str(made.with_suffix(".known.csv"))]):
        code = cli_main(["project", verb[0], str(made), *verb[1:]])
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err
        if code:
            assert code == 2 and len(captured.err.strip().splitlines()) == 1, captured.err
            outcomes.append(captured.err)
    assert any(BAD_CELLS[case][1] in e for e in outcomes), outcomes


def test_a_good_file_reads_through(made):
    _read_all(made)


# ---- the cleaned copy -----------------------------------------------------------------------


def test_a_cleaned_copy_keeps_our_rows_and_drops_foreign_objects(made):
    plant(made, FOREIGN["trigger"][0], "CREATE TABLE payload (x)", "CREATE VIEW v AS SELECT 1")
    before = sha(made)
    copy = clean_copy(made)
    assert copy == made.with_name("p.cleaned.decipher") and sha(made) == before
    with Project.open(copy) as project:
        assert [c.name for c in project.corpora()] == ["iberian"]
        assert len(project.runs()) == 1 and project.pins()
        project.check_readable()
        objects = {n for (n,) in project.conn.execute("SELECT name FROM sqlite_master")}
    assert not {"wipe", "payload", "v"} & objects
    assert clean_copy(made) == made.with_name("p.cleaned-2.decipher")  # never overwrites


def test_a_cleaned_copy_of_a_view_standing_for_corpus_drops_rows_pointing_at_nothing(made):
    _plant_foreign(made, "view named corpus")
    with Project.open(clean_copy(made)) as project:
        assert project.corpora() == [] and project.languages()  # the view is not read
        assert project.conn.execute("SELECT count(*) FROM inscription").fetchone()[0] == 0


# ---- file names that are not UTF-8 (issue 28, item 3) ----------------------------------------


def test_non_utf8_file_names_open_import_and_show(tmp_path, capsys):
    folder = tmp_path
    project = folder / "p\udcff.decipher"
    lost = folder / "l\udcfe.csv"
    lost.write_text("id,text\nA.1,abc\n", encoding="utf-8")
    assert cli_main(["project", "new", str(project)]) == 0, capsys.readouterr().err
    assert cli_main(["project", "import", str(project), "--lost", str(lost), "--name", "x"]) == 0
    assert cli_main(["project", "info", str(project)]) == 0
    capsys.readouterr()
    with Project.open(project) as p:
        assert p.corpora()[0].source.endswith("l\\xfe.csv")  # the name's byte, written out


def test_a_surrogate_name_anywhere_is_one_line_not_a_traceback(monkeypatch, capsys):
    import engine.cli.main as cli

    def fails(args):
        return "p\udcff.csv".encode("utf-8")

    monkeypatch.setattr(cli, "cmd_sample", fails)
    code = cli.main(["sample", "--out", "unused"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "not UTF-8" in err and "p\\xff.csv" in err


def test_metrics_are_checked_as_they_are_read_not_on_every_open(made):
    _plant_bad(made, "metric")
    with Project.open(made) as project:  # the largest table is not scanned on opening
        run_id = project.runs()[0].id
        for read in (project.metrics, project.metrics_by_restart, project.latest_metrics):
            with pytest.raises(StoredValueError, match=r"table run_metric, row run 1 'loss' step 10, column value"):
                read(run_id)


def test_changes_are_not_bounded_reads_are(made):
    with Project.open(made) as project:
        project.conn.bound.max_steps = 10_000
        with project.transaction():  # a change of ours: its cost follows its data
            project.conn.execute("INSERT INTO setting (key, value) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL "
                                 "SELECT x + 1 FROM c LIMIT 20000) SELECT 'k' || x, '1' FROM c")
        with pytest.raises(sqlite3.OperationalError, match="interrupted"):
            project.conn.execute("SELECT count(*) FROM setting WHERE value = '1' AND key LIKE 'k%'").fetchone()


def test_an_older_file_is_checked_against_its_own_version_and_its_cleaned_copy_upgrades(tmp_path):
    from engine.project.store import _build_file

    old = tmp_path / "old.decipher"
    _build_file(old, 2)
    plant(old, "INSERT INTO corpus (name, imported_at) VALUES ('c', 'x')")
    Project.open(old).close()  # v2's schema is ours: opened and upgraded
    _build_file(old, 2)
    plant(old, "INSERT INTO corpus (name, imported_at) VALUES ('c', 'x')",
          "CREATE TRIGGER t AFTER INSERT ON run BEGIN DELETE FROM corpus; END")
    with pytest.raises(ForeignSchemaError, match="trigger 't'"):
        Project.open(old)
    with Project.open(clean_copy(old)) as project:
        assert project.migrated_from == 2 and [c.name for c in project.corpora()] == ["c"]
