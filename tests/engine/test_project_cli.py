"""``decipher project …`` verbs, called through engine.cli.project.main(argv)."""

from __future__ import annotations

import argparse

import pytest

from engine.project import Project
from engine.project.schema import SCHEMA_VERSION
from engine.cli.project import add_project_parser, main

from .test_project_helpers import DATA, filled_project, sha


def test_new_import_export_runs_info(tmp_path, capsys):
    f = str(tmp_path / "p.decipher")
    assert main(["new", f]) == 0
    assert main(["import", f, "--lost", str(DATA / "lost.csv"), "--name", "iberian"]) == 0
    assert "corpus 'iberian' (4 inscriptions)" in capsys.readouterr().out
    assert main(["import", f, "--lost", str(DATA / "lost_mapped.tsv"), "--columns", "id=REF,text=TEXTO",
                 "--delimiter", "TAB"]) == 0
    assert main(["import", f, "--known", str(DATA / "known.csv"), "--language", "basque"]) == 0
    assert main(["import", f, "--gold", str(DATA / "gold.csv"), "--corpus", "iberian"]) == 0
    assert main(["import", f, "--prior", str(DATA / "prior.csv")]) == 0
    assert main(["import", f, "--text", str(DATA / "plain.txt")]) == 0
    out = capsys.readouterr().out
    assert "3 gold annotations" in out and "3 pinned values" in out
    assert main(["export", f, "--prior", str(tmp_path / "prior.csv")]) == 0
    assert main(["export", f, "--lost", str(tmp_path / "lost.csv"), "--corpus", "iberian", "--bom"]) == 0
    assert main(["export", f, "--known", str(tmp_path / "known.tsv")]) == 0
    assert main(["export", f, "--gold", str(tmp_path / "gold.csv"), "--corpus", "iberian"]) == 0
    assert (tmp_path / "known.tsv").read_text(encoding="utf-8").startswith("form\tipa\tgloss\tsource\n")
    assert main(["info", f]) == 0
    info = capsys.readouterr().out
    assert f"schema v{SCHEMA_VERSION}" in info and "iberian (4 inscriptions, 3 gold" in info
    assert "basque (4 stems" in info and "pinned values: 3" in info
    assert main(["runs", f]) == 0
    assert "no runs yet" in capsys.readouterr().out


def test_runs_table_and_match_export(tmp_path, capsys):
    path = tmp_path / "p.decipher"
    project, ids = filled_project(path)
    project.close()
    assert main(["runs", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["id", "status", "language", "steps", "P@1", "P@10", "started", "ended", "diagnosis",
                                "checkpoint"]
    assert lines[1].split()[:6] == [str(ids["run"]), "completed", "basque", "10", "0.500", "0.750"]
    assert "no diagnosis" in lines[1]   # a run recorded without one (as by an older program)
    out = tmp_path / "m.tsv"
    assert main(["export", str(path), "--matches", str(out), "--run", str(ids["run"]),
                 "--guard-formulas"]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith("run_id\tmatch_id\t") and "\t'-ke\t" in text
    assert main(["import", str(path), "--matches", str(out), "--unguard"]) == 0
    assert "5 matches" not in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["import", "{f}", "--lost", str(DATA / "bad_duplicate_ids.csv")], "line 4: duplicate id 'A'"),
    (["import", "{f}", "--known", str(DATA / "bad_ipa_known.csv")], "unknown IPA symbol '1'"),
    (["import", "{f}", "--lost", str(DATA / "bad_latin1.csv")], "not valid UTF-8"),
    (["import", "{f}", "--lost", str(DATA / "lost.csv"), "--name", "iberian"], "already exists"),
    (["import", "{f}", "--gold", str(DATA / "gold.csv"), "--corpus", "nope"], "no corpus named 'nope'"),
    (["import", "{f}", "--lost", str(DATA / "missing.csv")], "missing.csv: file not found"),
    (["export", "{f}", "--matches", "/nonexistent-dir/x.csv"], "x.csv: cannot write the file (its folder does not exist)"),
    (["export", "{f}", "--matches", "{tmp}/x.csv", "--run", "99"], "no run 99"),
    (["new", "{f}"], "already exists"),
])
def test_errors_are_one_line_and_leave_the_file(tmp_path, capsys, argv, message):
    path = tmp_path / "p.decipher"
    filled_project(path)[0].close()
    before = sha(path)
    code = main([a.format(f=path, tmp=tmp_path) for a in argv])
    captured = capsys.readouterr()
    assert code == 2  # a user error, as the README says (it was 1)
    assert len(captured.err.strip().splitlines()) == 1 and message in captured.err
    assert sha(path) == before


def test_not_a_project_and_usage_errors(tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("hello", encoding="utf-8")
    assert main(["info", str(notes)]) == 2
    assert "not a project file" in capsys.readouterr().err
    assert main(["import", str(notes)]) == 2  # no kind given: argparse usage error
    assert main([]) == 2
    assert main(["import", str(notes), "--lost", "x", "--columns", "id"]) == 2
    assert "OURS=THEIRS" in capsys.readouterr().err


def test_hooks_into_a_main_parser(tmp_path, capsys):
    parser = argparse.ArgumentParser(prog="decipher")
    add_project_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["project", "new", str(tmp_path / "x.decipher")])
    assert args.func(args) == 0
    with Project.open(tmp_path / "x.decipher") as project:
        assert project.corpora() == []
    args = parser.parse_args(["project"])
    assert args.func(args) == 2


def test_reader_verbs(tmp_path, capsys):
    pytest.importorskip("engine.io.wordlist")
    pytest.importorskip("engine.io.cldf")
    pytest.importorskip("engine.io.cog")
    pytest.importorskip("engine.io.hesperia")
    words = DATA.parent / "wordlists"
    f = str(tmp_path / "p.decipher")
    assert main(["new", f]) == 0
    assert main(["import", f, "--wordlist", str(words / "latin_words.txt"), "--system", "latin",
                 "--language", "latin"]) == 0
    assert main(["import", f, "--cldf", str(words / "cldf"), "--language", "spanish"]) == 0
    out = capsys.readouterr().out
    assert "known language 'latin'" in out and "known language 'spanish' (9 stems)" in out
    assert main(["import", f, "--cog", str(DATA / "sample.cog"), "--language", "hebrew"]) == 0
    assert "corpus 'sample' (4 inscriptions) and known language 'hebrew' (4 stems)" in capsys.readouterr().out
    assert main(["import", f, "--hesperia", str(DATA.parent / "hesperia" / "sample.csv"), "--name", "h"]) == 0
    assert "(16 inscriptions)" in capsys.readouterr().out
    assert main(["import", f, "--wordlist", str(words / "latin_words.txt")]) == 2
    assert "needs --system" in capsys.readouterr().err


def test_new_force_refuses_while_a_run_trains_and_replaces_once_it_is_gone(tmp_path, capsys):
    """Issue 52, 3: ``project new --force P`` during a run replaced P (exit 0) and the run then said
    "recorded in P" while P held nothing."""
    import subprocess
    import sys

    from engine.config import Config
    from engine.project import Project

    f = tmp_path / "p.decipher"
    assert main(["new", str(f)]) == 0
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with Project.open(f) as p:
            run_id = p.start_run(Config(), None, None, pid=child.pid)   # a live run of another process
        capsys.readouterr()
        assert main(["new", "--force", str(f)]) == 2
        [line] = capsys.readouterr().err.strip().splitlines()
        assert f"run {run_id} (pid {child.pid}) is training" in line
        with Project.open(f, read_only=True) as p:
            assert [r.id for r in p.runs()] == [run_id]     # the file is the same, its run kept
    finally:
        child.kill()
        child.wait()
    assert main(["new", "--force", str(f)]) == 0            # its process gone: the run is dead
    with Project.open(f, read_only=True) as p:
        assert p.runs() == []


def test_info_and_runs_escape_control_characters_and_cut_long_text(tmp_path, capsys):
    """Issue 52, 6 and 13: terminal escapes in a corpus name were printed raw by ``project info``
    (a title change, a screen clear), a newline in a name split a row of ``project runs``, and a
    60 MB ``corpus.source`` made ``project info`` print 63 MB."""
    import sqlite3

    from .test_project_helpers import filled_project

    project, _ = filled_project(tmp_path / "p.decipher")
    project.close()
    evil = "ib\x1b]0;pwned\x07\x1b[2Jer\nian\u202e"
    conn = sqlite3.connect(tmp_path / "p.decipher")
    conn.execute("UPDATE corpus SET name = ?, source = ?", (evil, "s" * 1_000_000))
    conn.execute("UPDATE language SET name = ?", ("bas\nque\r\x1b[31m",))
    conn.commit()
    conn.close()
    assert main(["info", str(tmp_path / "p.decipher")]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out and len(out) < 5000
    assert "ib\\x1b]0;pwned\\x07\\x1b[2Jer\\nian\\u202e" in out and "(999,800 more characters)" in out
    assert main(["runs", str(tmp_path / "p.decipher")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and "bas\\nque\\r\\x1b[31m" in lines[1] and "\x1b" not in lines[1]


def test_an_export_of_an_unfinished_run_says_so_with_its_step(tmp_path, capsys):
    """Issue 52, 11: an export of a run in progress said nothing (40 rows of a run that ended with 90)."""
    from engine.config import Config
    from engine.project import Project

    from .test_project_helpers import filled_project, sample_matches

    project, ids = filled_project(tmp_path / "p.decipher")
    live = project.start_run(Config(steps=90), ids["corpus"], ids["language"])   # this process: alive
    project.record_matches(live, sample_matches())
    project.heartbeat(live, 40)
    project.close()
    assert main(["export", str(tmp_path / "p.decipher"), "--matches", str(tmp_path / "m.csv")]) == 0
    err = capsys.readouterr().err
    assert f"note: run {live} is still running, at step 40 of 90" in err
    assert main(["export", str(tmp_path / "p.decipher"), "--matches", str(tmp_path / "m2.csv"),
                 "--run", str(ids["run"])]) == 0
    assert "still running" not in capsys.readouterr().err    # a finished run: no note
    with Project.open(tmp_path / "p.decipher") as p:
        p.finish_run(live, "interrupted")
    assert main(["export", str(tmp_path / "p.decipher"), "--matches", str(tmp_path / "m3.csv")]) == 0
    assert f"run {live} did not finish (interrupted), at step 40 of 90" in capsys.readouterr().err
