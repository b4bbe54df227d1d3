"""Issue 51, item 4: the command line does what the app does. `decipher project decide P --run N
--match ID|--span INS:S-E [--stem FORM|--rank K] accept|reject|open` is the app's Accept/Reject
(one engine function, engine/project/decisions.py); the field exports carry the alignment the app
shows on hover (EDICTOR ALIGNMENT, read by LingPy's Alignments; CLDF CognateTable Alignment and
Segment_Slice, validated); the CLI's match and sign-value exports take a display table."""

from __future__ import annotations

import csv
import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.cli.project import main
from engine.config import Config
from engine.io import display
from engine.model.phonology import DELETE
from engine.project import Project, import_known, import_lost
from engine.project.decisions import decide_span, find_decision_key
from engine.project.recording import record_mapping
from engine.results import Alternative, MappingSnapshot, Match

LOST = (DELETE, "$", "l", "m", "k", "x", "@", "<")
KNOWN = (DELETE, "ʃ", "l", "w", "m", "k", "χ")
#: what each known unit most often became; w is mostly deleted
BEST = {"ʃ": "$", "l": "l", "m": "m", "k": "k", "χ": "x", "w": DELETE}


def _mapping() -> MappingSnapshot:
    probs = np.full((len(KNOWN), len(LOST)), 0.01)
    for k, l in BEST.items():
        probs[KNOWN.index(k), LOST.index(l)] = 0.9
    return MappingSnapshot(LOST, KNOWN, probs)


def project_with_matches(tmp_path: Path, *, mapping: bool = True) -> tuple[Path, int, list[int]]:
    """Ugaritic (data code, shown as the script) and Hebrew; one run of three matches, each with two
    stems, undecided, and the run's mapping recorded; returns (path, run id, match ids)."""
    lost = tmp_path / "lost.csv"
    lost.write_text("id,text\nU1,$lm\nU2,mlk\nU3,x@<\n", encoding="utf-8")
    known = tmp_path / "known.csv"
    known.write_text("form,ipa,gloss\n$lwm,ʃlwm,peace\nmlk,mlk,king\nx,χ,x\nkl,kl,all\n", encoding="utf-8")
    path = tmp_path / "uga.decipher"
    project = Project.create(path)
    cid = import_lost(project, lost, name="Ugaritic")
    lid = import_known(project, known, name="Hebrew")
    project.set_setting(display.setting_key(cid), display.preset("ugaritic-script").to_json())
    kl = Alternative(2, "kl", "kl", -2.0, "all", -4.0)
    matches = [Match("U1", 0, 3, "$lm", (Alternative(1, "$lwm", "ʃlwm", -0.5, "peace", -1.5), kl), confidence=0.5),
               Match("U2", 0, 3, "mlk", (Alternative(1, "mlk", "mlk", -0.25, "king", -0.75), kl), confidence=0.75),
               Match("U3", 0, 3, "x@<", (Alternative(1, "x", "χ", -1.0, "x", -3.0), kl), confidence=0.25)]
    run = project.start_run(Config(), cid, lid, device="cpu", seed=1)
    project.record_matches(run, matches)
    if mapping:
        record_mapping(project, run, 10, _mapping())
    project.finish_run(run, "completed")
    ids = [r.id for r in project.match_records(run)]
    project.close()
    return path, run, ids


# ---- decide ------------------------------------------------------------------------------------


def test_decide_by_match_id_and_by_span_as_the_app_does(tmp_path, capsys):
    path, run, ids = project_with_matches(tmp_path)
    assert main(["decide", str(path), "--run", str(run), "--match", str(ids[0]), "accept"]) == 0
    assert f"run {run}: accepted '$lwm' for letters 0-3 of inscription 'U1'" in capsys.readouterr().out
    assert main(["decide", str(path), "accept", "--run", str(run), "--span", "U2:0-3", "--stem", "mlk"]) == 0
    # a span has one accepted stem: accepting another takes the first back (the app's rule)
    assert main(["decide", str(path), "accept", "--run", str(run), "--match", str(ids[0]), "--rank", "2"]) == 0
    assert "the acceptance of '$lwm' taken back" in capsys.readouterr().out
    assert main(["decide", str(path), "reject", "--run", str(run), "--span", "U3:0-3"]) == 0
    with Project.open(path) as p:
        assert p.decisions(run) == {("U1", 0, 3, "kl"): "accepted", ("U2", 0, 3, "mlk"): "accepted",
                                    ("U3", 0, 3, "x"): "rejected"}
    assert main(["decide", str(path), "open", "--run", str(run), "--span", "U3:0-3"]) == 0
    with Project.open(path) as p:
        assert ("U3", 0, 3, "x") not in p.decisions(run)


@pytest.mark.parametrize("argv,needle", [
    (["--match", "999999", "accept"], "has no match 999999"),
    (["--span", "U1:0-2", "accept"], "no match at letters 0-2 of inscription 'U1'"),
    (["--span", "U1-0-3", "accept"], "a span is INSCRIPTION:START-END"),
    (["--match", "{m}", "--stem", "nope", "accept"], "stem 'nope' is not among the match's stems"),
    (["--match", "{m}", "--rank", "3", "accept"], "rank 3: the match has stems of rank 1 to 2"),
])
def test_a_bad_decision_is_one_line_and_changes_nothing(tmp_path, capsys, argv, needle):
    path, run, ids = project_with_matches(tmp_path)
    before = path.read_bytes()
    argv = [a.replace("{m}", str(ids[0])) for a in argv]
    assert main(["decide", str(path), "--run", str(run), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]
    assert path.read_bytes() == before


def test_the_app_and_the_cli_decide_through_one_function(tmp_path):
    from engine.project import decisions

    path, run, ids = project_with_matches(tmp_path)
    with Project.open(path) as p:
        key = find_decision_key(p, run, match_id=ids[1])
        assert key == ("U2", 0, 3, "mlk")
        assert decide_span(p, run, key, "accepted") == {}
    source = (Path(__file__).resolve().parents[2] / "decipher_gui" / "commands.py").read_text(encoding="utf-8")
    assert "decide_span(project, self.run_id, self.key, self.status)" in source
    assert decisions.VERBS == {"accept": "accepted", "reject": "rejected", "open": None}


# ---- alignments in the field exports -----------------------------------------------------------


def _accept_two(path, run, ids):
    assert main(["decide", str(path), "--run", str(run), "--match", str(ids[0]), "accept"]) == 0
    assert main(["decide", str(path), "--run", str(run), "--match", str(ids[1]), "accept"]) == 0


def test_edictor_export_carries_alignments_that_lingpy_reads(tmp_path, capsys):
    lingpy = pytest.importorskip("lingpy")
    logging.getLogger("lingpy").setLevel(logging.ERROR)
    path, run, ids = project_with_matches(tmp_path)
    _accept_two(path, run, ids)
    tsv = tmp_path / "uga.tsv"
    assert main(["export", str(path), "--edictor", str(tsv)]) == 0
    header = tsv.read_text(encoding="utf-8").splitlines()[0].split("\t")
    assert "ALIGNMENT" in header and header.index("ALIGNMENT") == header.index("TOKENS") + 1
    alignments = lingpy.Alignments(str(tsv), ref="cogid", transcription="form")
    rows = {(alignments[i, "doculect"], alignments[i, "cogid"]): list(alignments[i, "alignment"]) for i in alignments}
    # $lm against ʃlwm: w became no letter, a gap in the lost row (the app's hover alignment)
    assert rows[("Ugaritic", 1)] == ["ʃ", "l", "-", "m"] and rows[("Hebrew", 1)] == ["ʃ", "l", "w", "m"]
    assert rows[("Ugaritic", 2)] == rows[("Hebrew", 2)] == ["m", "l", "k"]
    for i in alignments:   # without its gaps an alignment is the form's tokens
        assert [t for t in alignments[i, "alignment"] if t != "-"] == list(alignments[i, "tokens"])
    assert len(alignments.msa["cogid"]) == 2


def test_cldf_export_validates_with_alignments_and_segment_slices(tmp_path, capsys):
    pycldf = pytest.importorskip("pycldf")
    path, run, ids = project_with_matches(tmp_path)
    _accept_two(path, run, ids)
    out = tmp_path / "cldf"
    assert main(["export", str(path), "--cldf", str(out)]) == 0
    meta = out / "Wordlist-metadata.json"
    cldf = Path(sys.executable).with_name("cldf")
    if cldf.exists():  # the done-when command itself
        done = subprocess.run([str(cldf), "validate", str(meta)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
    ds = pycldf.Dataset.from_metadata(meta)
    assert ds.validate()
    cognates = {c["ID"]: c for c in ds["CognateTable"]}
    assert cognates["match-1-lost"]["Alignment"] == ["ʃ", "l", "-", "m"]
    assert cognates["match-1-known"]["Alignment"] == ["ʃ", "l", "w", "m"]
    assert cognates["match-1-lost"]["Segment_Slice"] == ["1:3"] and cognates["match-1-known"]["Segment_Slice"] == ["1:4"]


def test_a_pair_with_no_alignment_has_an_empty_cell_and_a_warning(tmp_path, capsys):
    path, run, ids = project_with_matches(tmp_path)
    # x@< (3 letters) cannot come from χ (1 unit): no alignment within the band
    assert main(["decide", str(path), "--run", str(run), "--match", str(ids[2]), "accept"]) == 0
    tsv = tmp_path / "uga.tsv"
    assert main(["export", str(path), "--edictor", str(tsv)]) == 0
    assert "1 of 1 accepted pairs have no alignment" in capsys.readouterr().err
    rows = list(csv.DictReader(tsv.open(encoding="utf-8"), delimiter="\t"))
    assert [r["ALIGNMENT"] for r in rows] == ["", ""] and rows[0]["TOKENS"]
    path2, run2, ids2 = project_with_matches(tmp_path / "imported", mapping=False) if (tmp_path / "imported").mkdir() is None else None
    assert main(["decide", str(path2), "--run", str(run2), "--match", str(ids2[0]), "accept"]) == 0
    assert main(["export", str(path2), "--edictor", str(tmp_path / "i.tsv")]) == 0
    assert "the run kept no character mapping" in capsys.readouterr().err


# ---- display tables on the CLI's match and sign-value exports ----------------------------------


def test_match_and_sign_value_exports_take_a_display_table(tmp_path, capsys):
    path, run, ids = project_with_matches(tmp_path)
    report = tmp_path / "m.csv"
    assert main(["export", str(path), "--matches", str(report), "--lost-display", "ugaritic-transliteration",
                 "--known-display", "hebrew-transliteration"]) == 0
    rows = list(csv.DictReader(report.open(encoding="utf-8")))
    assert rows[0]["lost_span"] == "šlm" and rows[0]["lost_span_code"] == "$lm"
    assert rows[0]["stem"] == "šlwm" and rows[0]["stem_code"] == "$lwm"
    signs = tmp_path / "s.csv"
    assert main(["export", str(path), "--sign-values", str(signs), "--lost-display", "ugaritic-script"]) == 0
    shown = {r["sign"]: r["shown"] for r in csv.DictReader(signs.open(encoding="utf-8"))}
    assert shown["$"] == display.UGARITIC_SCRIPT["$"]
    assert main(["export", str(path), "--prior", str(tmp_path / "p.csv"), "--lost-display", "none"]) == 2
    assert "--lost-display" in capsys.readouterr().err
