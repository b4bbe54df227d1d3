"""The field's formats from the command line (issue 29 item 4) and every export guarded (issue 28
items 5 and 8): ``decipher project export P --cldf DIR`` / ``--edictor FILE`` are the app's
exports, validated by pycldf and read by lingpy; sounds as segments, transliterated forms, language
codes, the run exported said and written; the formula guard on by default with a switch; a failed
export leaves no ``.part``."""

from __future__ import annotations

import csv
import errno
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from engine.io import display
from engine.config import Config
from engine.project.fieldexport import choose_run, export_cldf, export_edictor, language_codes, set_language_codes
from engine.io import atomic
from engine.io.atomic import FORMULA_STARTS
from engine.project import Project, import_known, import_lost, import_prior
from engine.cli.project import main
from engine.results import Alternative, Match
from engine.project.signvalues import export_sign_values

from tests.engine.test_project_helpers import filled_project, sha

QUOTED = 'he said "yes"'


def ugaritic_project(tmp_path: Path, table: str | None = "ugaritic-script") -> tuple[Path, dict]:
    """Ugaritic letters in the data's ASCII code shown as the cuneiform script, Hebrew stems in the
    same code; run 1 holds three accepted matches, run 2 (a resume) the same matches, none decided."""
    lost = tmp_path / "lost.csv"
    lost.write_text("id,text\nU1,$lm\nU2,mlk\nU3,x@<\n", encoding="utf-8")
    known = tmp_path / "known.csv"
    known.write_text(f'form,ipa,gloss\n$lwm,ʃlwm,"{QUOTED.replace(chr(34), 2 * chr(34))}"\nmlk,mlk,king\n'
                     "=x,χ,=1+1\n", encoding="utf-8")
    path = tmp_path / "uga.decipher"
    project = Project.create(path)
    cid = import_lost(project, lost, name="Ugaritic")
    lid = import_known(project, known, name="Hebrew")
    if table is not None:
        project.set_setting(display.setting_key(cid), display.preset(table).to_json())
    matches = [Match("U1", 0, 3, "$lm", (Alternative(1, "$lwm", "ʃlwm", -0.5, QUOTED, -1.5),), confidence=0.5),
               Match("U2", 0, 3, "mlk", (Alternative(1, "mlk", "mlk", -0.25, "king", -0.75),), confidence=0.75),
               Match("U3", 0, 3, "x@<", (Alternative(1, "=x", "χ", -1.0, "=1+1", -3.0),), confidence=0.25)]
    first = project.start_run(Config(), cid, lid, device="cpu", seed=1)
    project.record_matches(first, matches)
    for m in matches:
        project.decide(first, m.inscription_id, m.start, m.end, m.alternatives[0].form, "accepted")
    project.finish_run(first, "completed")
    second = project.start_run(Config(), cid, lid, device="cpu", seed=1)
    project.record_matches(second, matches)
    project.finish_run(second, "completed")
    project.close()
    return path, {"corpus": cid, "language": lid, "first": first, "second": second}


def _parts(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(".part") or p.name.startswith(".cldf-")]


def _live_cells(text: str) -> list[str]:
    """Cells a spreadsheet would run as formulas, in CSV or TSV text."""
    delimiter = "\t" if "\t" in text.splitlines()[0] else ","
    return [c for row in csv.reader(text.splitlines(), delimiter=delimiter) for c in row
            if c.startswith(FORMULA_STARTS) and not _number(c)]


def _number(cell: str) -> bool:
    try:
        float(cell)
        return True
    except ValueError:
        return False


def test_cli_cldf_export_validates_with_sounds_transliteration_codes_and_the_run(tmp_path, capsys):
    pycldf = pytest.importorskip("pycldf")
    path, ids = ugaritic_project(tmp_path)
    out = tmp_path / "out"
    assert main(["export", str(path), "--cldf", str(out), "--lost-glottocode", "ugar1238",
                 "--lost-iso639-3", "uga", "--known-glottocode", "hebr1245", "--known-iso639-3", "hbo",
                 "--known-display", "hebrew-transliteration"]) == 0
    said = capsys.readouterr()
    # without --run: the accepted decisions live on run 1, and the message says so
    assert f"3 accepted pairs of run {ids['first']}" in said.out
    assert f"run {ids['second']} is newer but has none accepted" in said.out
    meta = out / "Wordlist-metadata.json"
    cldf = Path(sys.executable).with_name("cldf")
    if cldf.exists():  # the done-when command itself
        assert subprocess.run([str(cldf), "validate", str(meta)], capture_output=True).returncode == 0
    ds = pycldf.Dataset.from_metadata(meta)
    assert ds.validate()
    forms = {f["ID"]: f for f in ds["FormTable"]}
    lost1, known1 = forms["match-1-lost"], forms["match-1-known"]
    assert (lost1["Form"], lost1["Value"], lost1["Segments"]) == ("šlm", "$lm", ["ʃ", "l", "m"])
    assert lost1["Shown"] == "".join(display.UGARITIC_SCRIPT[c] for c in "$lm")
    assert (known1["Form"], known1["Value"], known1["Segments"]) == ("šlwm", "$lwm", ["ʃ", "l", "w", "m"])
    assert known1["Comment"] == QUOTED
    assert forms["match-3-lost"]["Form"] == "ḫġʿ" and forms["match-3-lost"]["Segments"] == ["χ", "ɣ", "ʕ"]
    assert forms["match-3-known"]["Value"] == "'=x"  # guarded by default
    assert {f["Run_ID"] for f in forms.values()} == {ids["first"]}
    assert f"run {ids['first']}" in ds.properties["dc:title"]
    languages = {x["Name"]: x for x in ds["LanguageTable"]}
    assert (languages["Ugaritic"]["Glottocode"], languages["Ugaritic"]["ISO639P3code"]) == ("ugar1238", "uga")
    assert (languages["Hebrew"]["Glottocode"], languages["Hebrew"]["ISO639P3code"]) == ("hebr1245", "hbo")
    assert not _live_cells("\n".join((out / n).read_text(encoding="utf-8") for n in ("forms.csv",)))
    with Project.open(path) as project:  # the codes are kept in the project
        assert language_codes(project, "corpus", ids["corpus"]) == {"glottocode": "ugar1238", "iso639_3": "uga"}
    assert not _parts(tmp_path)


def test_edictor_is_unquoted_and_lingpy_reads_tokens_tokens2class_accepts(tmp_path, capsys):
    lingpy = pytest.importorskip("lingpy")
    logging.getLogger("lingpy").setLevel(logging.ERROR)
    path, ids = ugaritic_project(tmp_path)
    tsv = tmp_path / "uga.tsv"
    assert main(["export", str(path), "--edictor", str(tsv), "--known-display", "hebrew-transliteration"]) == 0
    text = tsv.read_text(encoding="utf-8")
    assert f"\t{QUOTED}\t" in text and '""' not in text  # as EDICTOR writes it: no CSV quoting
    assert not _live_cells(text) and "\t'=x\t" in text
    wordlist = lingpy.Wordlist(str(tsv))
    assert wordlist.height == 3 and sorted(wordlist.cols) == ["Hebrew", "Ugaritic"]
    for idx in wordlist:
        tokens = wordlist[idx, "tokens"]
        classes = lingpy.tokens2class(tokens, "sca")
        assert "0" not in classes, (tokens, classes)  # every token a sound lingpy knows
        assert int(wordlist[idx, "run"]) == ids["first"]
    assert {tuple(wordlist[i, "tokens"]) for i in wordlist} >= {("ʃ", "l", "m"), ("χ", "ɣ", "ʕ"), ("ʃ", "l", "w", "m")}


def test_a_named_run_is_exported_and_recorded(tmp_path, capsys):
    path, ids = ugaritic_project(tmp_path)
    tsv = tmp_path / "second.tsv"
    assert main(["export", str(path), "--edictor", str(tsv), "--run", str(ids["second"])]) == 0
    assert f"0 accepted pairs of run {ids['second']} (asked for)" in capsys.readouterr().out
    assert tsv.read_text(encoding="utf-8").splitlines()[0].split("\t")[-1] == "RUN"
    assert main(["export", str(path), "--cldf", str(tmp_path / "x"), "--run", "99"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no run 99" in err[0] and not (tmp_path / "x").exists()


def test_without_accepted_decisions_the_newest_run_is_taken_and_said(tmp_path):
    project, ids = filled_project(tmp_path / "p.decipher")
    project.decide(ids["run"], "B.1.1", 0, 8, "bakar", "rejected")
    run, why = choose_run(project)
    assert run.id == ids["run"] and "no run has accepted decisions" in why
    assert export_edictor(project, tmp_path / "e.tsv") == 0
    project.close()


def test_the_guard_is_on_by_default_with_a_switch(tmp_path, capsys):
    project, ids = filled_project(tmp_path / "p.decipher")
    project.decide(ids["run"], "B.1.2", 0, 3, "-ke", "accepted")
    project.close()
    path = str(tmp_path / "p.decipher")
    for flag, guarded in (([], True), (["--no-guard-formulas"], False)):
        for kind, target in (("--matches", "m.csv"), ("--edictor", "e.tsv"), ("--lost", "lost.csv")):
            out = tmp_path / (("raw-" if flag else "") + target)
            assert main(["export", path, kind, str(out), *flag]) == 0
            text = out.read_text(encoding="utf-8")
            assert bool(_live_cells(text)) is not guarded, (kind, flag)
            assert ("'-ke" in text) is guarded and ("-ke" in text)
        err = capsys.readouterr().err
        assert ("note:" in err and "--no-guard-formulas" in err) is guarded
    # numbers are never guarded: the negative scores stay numbers
    rows = list(csv.DictReader(open(tmp_path / "m.csv", encoding="utf-8", newline="")))
    assert "-0.125" in {r["score"] for r in rows}


def test_sign_values_and_cldf_from_the_library_are_guarded(tmp_path):
    pytest.importorskip("pycldf")
    path, ids = ugaritic_project(tmp_path)
    prior = tmp_path / "prior.csv"
    prior.write_text("lost,known_ipa\n@,ɣ\n", encoding="utf-8")
    with Project.open(path) as project:
        import_prior(project, prior)
        n = export_sign_values(project, tmp_path / "signs.csv")
        assert n.guarded >= 1 and "'@" in (tmp_path / "signs.csv").read_text(encoding="utf-8")
        result = export_cldf(project, tmp_path / "cldf")
        assert result.guarded >= 1 and result.run_id == ids["first"]
        for f in (tmp_path / "cldf").glob("*.csv"):
            assert not _live_cells(f.read_text(encoding="utf-8")), f.name
        raw = export_cldf(project, tmp_path / "raw", guard_formulas=False)
        assert raw.guarded == 0 and "=x" in (tmp_path / "raw" / "forms.csv").read_text(encoding="utf-8")


def test_a_failed_edictor_export_leaves_no_part(tmp_path, capsys, monkeypatch):
    path, _ = ugaritic_project(tmp_path)
    folder = tmp_path / "a-folder.tsv"
    folder.mkdir()
    assert main(["export", str(path), "--edictor", str(folder)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(folder) in err[0] and "nothing was written" in err[0]
    assert not _parts(tmp_path)
    # the disk fills while the file is renamed into place: the old file stays, no .part is left
    target = tmp_path / "old.tsv"
    target.write_text("old\n", encoding="utf-8")

    def full(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(atomic.os, "replace", full)
    assert main(["export", str(path), "--edictor", str(target)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the disk is full" in err[0]
    assert target.read_text(encoding="utf-8") == "old\n" and not _parts(tmp_path)
    monkeypatch.setattr(atomic.os, "link", full)   # the CLDF files are made new: linked into place
    assert main(["export", str(path), "--cldf", str(tmp_path / "c")]) == 2
    assert not _parts(tmp_path) and not list((tmp_path / "c").iterdir())


def test_cldf_into_a_file_is_one_line(tmp_path, capsys):
    path, _ = ugaritic_project(tmp_path)
    blocker = tmp_path / "blocker"
    blocker.write_text("keep\n", encoding="utf-8")
    assert main(["export", str(path), "--cldf", str(blocker)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "blocker" in err[0] and "not a folder" in err[0]
    assert blocker.read_text(encoding="utf-8") == "keep\n"


def test_language_codes_on_import_are_checked_and_stored(tmp_path, capsys):
    path = tmp_path / "p.decipher"
    assert main(["new", str(path)]) == 0
    known = Path(__file__).resolve().parent.parent / "data" / "project" / "known.csv"
    before = sha(path)
    assert main(["import", str(path), "--known", str(known), "--glottocode", "XX"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'XX' is not a Glottocode" in err[0] and sha(path) == before
    assert main(["import", str(path), "--known", str(known), "--iso639-3", "EUS"]) == 2
    assert "not an ISO 639-3 code" in capsys.readouterr().err
    assert main(["import", str(path), "--cog", str(known), "--glottocode", "basq1248"]) == 2
    assert "imports two" in capsys.readouterr().err
    assert main(["export", str(path), "--known", str(tmp_path / "k.csv"), "--known-glottocode", "basq1248"]) == 2
    assert "--known-glottocode go with --cldf or --edictor, not --known" in capsys.readouterr().err
    assert main(["import", str(path), "--known", str(known), "--name", "basque", "--glottocode", "basq1248",
                 "--iso639-3", "eus"]) == 0
    assert "glottocode basq1248, iso639_3 eus" in capsys.readouterr().out
    with Project.open(path) as project:
        lid = project.languages()[0].id
        assert language_codes(project, "language", lid) == {"glottocode": "basq1248", "iso639_3": "eus"}
        assert set_language_codes(project, "language", lid, iso639_3="") == {"glottocode": "basq1248"}
        project.set_setting(f"codes.language.{lid}", {"glottocode": "bad"})
    with Project.open(path) as project, pytest.raises(Exception, match="codes.language"):
        language_codes(project, "language", lid)


def test_reports_writer_is_guarded_by_default(tmp_path):
    from engine.io.reports import write_matches_csv

    m = Match("A", 0, 3, "-ke", (Alternative(1, "=x", "x", -1.0, "@y", -2.0),))
    assert write_matches_csv(tmp_path / "m.csv", [m]) == 3
    assert not _live_cells((tmp_path / "m.csv").read_text(encoding="utf-8"))
    assert write_matches_csv(tmp_path / "raw.csv", [m], guard_formulas=False) == 0
    assert len(_live_cells((tmp_path / "raw.csv").read_text(encoding="utf-8"))) == 3


def _tokens(tsv: Path) -> list[str]:
    return [line.split("\t")[5] for line in tsv.read_text(encoding="utf-8").splitlines()[1:]]


def test_display_options_give_transliteration_and_sounds_and_a_bad_one_changes_nothing(tmp_path, capsys):
    path, ids = ugaritic_project(tmp_path, table=None)
    tsv = tmp_path / "e.tsv"
    assert main(["export", str(path), "--edictor", str(tsv)]) == 0
    err = capsys.readouterr().err
    assert "gives no sound values" in err and "no sound is known for $" in err  # said, never silent
    assert _tokens(tsv)[0] == "$ l m"
    before = sha(path)
    assert main(["export", str(path), "--edictor", str(tsv), "--known-glottocode", "hebr1245",
                 "--lost-display", "no-such-table"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no-such-table" in err[0] and sha(path) == before  # the code was not stored
    assert main(["export", str(path), "--edictor", str(tsv), "--lost-display", "ugaritic-transliteration"]) == 0
    # the table gives every sound (the run kept no mapping, so its pairs have no alignment, which is said)
    assert [w for w in capsys.readouterr().err.splitlines() if w.startswith("warning") and "alignment" not in w] == []
    tokens = _tokens(tsv)
    assert tokens[0] == "ʃ l m" and tokens[4] == "χ ɣ ʕ"
    assert tsv.read_text(encoding="utf-8").splitlines()[1].split("\t")[3] == "šlm"


def test_a_run_without_scores_writes_empty_score_cells(tmp_path, capsys):
    pycldf = pytest.importorskip("pycldf")
    path, ids = ugaritic_project(tmp_path)
    with Project.open(path) as project:
        run = project.start_run(Config(), ids["corpus"], ids["language"], device="cpu", seed=2)
        project.record_matches(run, [Match("U2", 0, 3, "mlk", (Alternative(1, "mlk", "mlk", float("nan"), "king",
                                                                           float("nan")),))])
        project.decide(run, "U2", 0, 3, "mlk", "accepted")
        project.finish_run(run, "completed")
    assert main(["export", str(path), "--edictor", str(tmp_path / "e.tsv"), "--cldf", str(tmp_path / "c")]) == 2
    capsys.readouterr()  # one kind at a time
    assert main(["export", str(path), "--edictor", str(tmp_path / "e.tsv")]) == 0
    assert f"of run {run} (the newest run with accepted decisions)" in capsys.readouterr().out
    header, first = (line.split("\t") for line in (tmp_path / "e.tsv").read_text(encoding="utf-8").splitlines()[:2])
    assert first[header.index("SCORE")] == ""
    assert main(["export", str(path), "--cldf", str(tmp_path / "c")]) == 0
    ds = pycldf.Dataset.from_metadata(tmp_path / "c" / "Wordlist-metadata.json")
    assert ds.validate() and {f["Score"] for f in ds["FormTable"]} == {None}
