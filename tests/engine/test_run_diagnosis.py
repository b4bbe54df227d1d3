"""Every run stores its gold-free diagnosis (issue 30, item 3): computed once at the run's end
(stopped runs too) with its final objective, written to metrics.json and the project (schema v6),
compared across the seeds of a group and the project's runs of the same inputs and settings, and
shown in the CLI summary, `project runs`, and the sign-values export's `unstable` column."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import pytest

from engine.config import Config
from engine.datasets.synthetic import make_cipher
from engine.project import SCHEMA_VERSION, Project
from engine.project.store import _build_file
from engine.runs.session import RunInputs, RunSession, RunSink
from engine.training.diagnosis import Diagnosis, Finding, compared, diagnosis_from, summary_lines

from .test_project_helpers import filled_project

FAST = dict(feature_dim=8, eval_interval=0, anneal_steps=10, steps=12, device="cpu", chars_per_batch=200)


@pytest.fixture(scope="module")
def cipher():
    return make_cipher(n_stems=25, n_inscriptions=30, seed=4)


def _inputs(cipher, **changes) -> RunInputs:
    return RunInputs(cipher.corpus, cipher.vocabulary, Config(**{**FAST, **changes}))


FLAGGED = Diagnosis([Finding("class", "2 letters read against how they pattern in the text (a → w, q → f; "
                             "the vowels by their contexts: a q); try more seeds or restarts, or pin a vowel",
                             ("a", "q")),
                     Finding("polish", "the swap search found a better mapping than training (swap b <-> c; "
                             "objective -1.000 → -1.100); the reading includes it", ("b", "c"), flag=False)],
                    {"diagnosis_class_mismatch": 2.0})


# ---- 1. every run stores it, from one pass over the corpus ---------------------------------------------


def test_a_file_run_stores_its_final_objective_and_diagnosis_from_one_corpus_pass(cipher, tmp_path, monkeypatch):
    from engine.training import final_objective
    from engine.runs.workers import RunItem, run_item

    import inspect

    calls = []
    real = final_objective.corpus_objective

    def counted(trainer, **kw):
        # the passes after training (not the trainer's own: restarts, the swap polish)
        files = {Path(f.filename).name for f in inspect.stack()}
        if not files & {"trainer.py", "polish.py", "reference.py"}:   # the reference run's is its own
            calls.append(kw)
        return real(trainer, **kw)

    monkeypatch.setattr(final_objective, "corpus_objective", counted)
    result = run_item(RunItem(tmp_path / "run", "k", 0, inputs=_inputs(cipher)))
    assert result.status == "completed", result.error
    assert calls == [{}], "the final objective is computed once per run (the diagnosis reuses it)"
    m = json.loads((tmp_path / "run" / "metrics.json").read_text(encoding="utf-8"))
    assert m["final_objective"] == pytest.approx(m["objective"]) == pytest.approx(result.objective)
    d = diagnosis_from(m["diagnosis"])
    assert d is not None and m["diagnosis"]["flagged"] == d.flagged
    assert d.values["diagnosis_vowel_letters"] >= 2   # the class check ran on a cipher that writes vowels
    # each letter's best sound and its share of the text are kept, for comparing with other runs later
    letters = {u for ins in cipher.corpus.inscriptions for u in ins.text if not u.isspace()}
    assert set(d.readings) == set(d.shares) and set(d.readings) <= letters and len(d.readings) >= len(letters) - 1
    assert sum(d.shares.values()) == pytest.approx(1.0, abs=0.05)


class _StopAt(RunSink):
    def __init__(self, step: int):
        self.at, self.session = step, None

    def step(self, event) -> None:
        if event.step == self.at:
            self.session.stop()


def test_a_run_stopped_early_is_diagnosed_too(cipher, tmp_path):
    from engine.runs.outputs import OutputFolder

    stop = _StopAt(3)
    session = RunSession(_inputs(cipher, steps=200), sinks=[OutputFolder(tmp_path), stop])
    stop.session = session
    outcome = session.run()
    assert outcome.status == "stopped" and outcome.step < 200
    assert outcome.diagnosis is not None and outcome.final_objective is not None
    m = json.loads((tmp_path / "metrics.json").read_text(encoding="utf-8"))
    assert m["status"] == "stopped" and m["diagnosis"] == outcome.diagnosis
    assert m["final_objective"] == pytest.approx(outcome.final_objective["objective"])


def test_an_aborted_run_ends_at_once_without_one(cipher, tmp_path):
    class AbortAt(_StopAt):
        def step(self, event) -> None:
            if event.step == self.at:
                self.session.abort("the window closes")

    abort = AbortAt(2)
    session = RunSession(_inputs(cipher, steps=200), sinks=[abort])
    abort.session = session
    outcome = session.run()
    assert outcome.status == "stopped" and outcome.diagnosis is None and outcome.final_objective is None


def test_a_diagnosis_that_fails_leaves_the_run_and_says_so(cipher, tmp_path):
    from engine.runs.outputs import OutputFolder

    said = []

    class Listen(RunSink):
        def message(self, text):
            said.append(text)

    def broken(trainer):
        raise RuntimeError("boom")

    outcome = RunSession(_inputs(cipher, steps=3), sinks=[OutputFolder(tmp_path), Listen()], assess=broken).run()
    assert outcome.status == "completed" and outcome.diagnosis is None
    assert any("no diagnosis of this run (RuntimeError: boom)" in s for s in said)
    assert "diagnosis" not in json.loads((tmp_path / "metrics.json").read_text(encoding="utf-8"))


def test_the_cli_summary_prints_the_headline_and_each_other_finding(cipher, tmp_path, capsys):
    from engine.cli.main import main
    from engine.io.tables import write_known, write_lost
    from engine.runs.outputs import diagnosis_lines

    assert diagnosis_lines(None) == ["diagnosis: no diagnosis"]
    lines = diagnosis_lines(FLAGGED.to_json())
    assert lines[0].startswith("diagnosis: this reading may be a local optimum: 2 letters read against")
    assert lines[1:] == ["diagnosis: " + FLAGGED.findings[1].text]   # the flagged one is in the headline already
    write_lost(tmp_path / "lost.csv", cipher.corpus.inscriptions)
    write_known(tmp_path / "known.csv", cipher.vocabulary.stems)
    assert main(["run", "--lost", str(tmp_path / "lost.csv"), "--known", str(tmp_path / "known.csv"), "--steps", "8",
                 "--device", "cpu", "--out", str(tmp_path / "out"), "--quiet", "--set", "feature_dim=8",
                 "--set", "eval_interval=0", "--set", "anneal_steps=5"]) == 0
    err = capsys.readouterr().err.splitlines()
    m = json.loads((tmp_path / "out" / "metrics.json").read_text(encoding="utf-8"))
    assert [line for line in err if line.startswith("diagnosis: ")] == diagnosis_lines(m["diagnosis"])


# ---- 2. seeds compared ------------------------------------------------------------------------------------


def _seed_folder(out: Path, seed: int, objective: float, diagnosis: dict | None) -> None:
    folder = out / f"seed-{seed}"
    folder.mkdir(parents=True)
    m = {"coverage": 0.5, "objective": objective, "final_objective": objective}
    if diagnosis is not None:
        m["diagnosis"] = diagnosis
    (folder / "metrics.json").write_text(json.dumps(m), encoding="utf-8")


def test_each_seed_is_compared_with_the_others_and_its_metrics_rewritten(tmp_path):
    from engine.runs.seeds import SeedsOutcome, compare_seeds

    ok = Diagnosis().to_json()
    _seed_folder(tmp_path, 0, -1.50, ok)
    _seed_folder(tmp_path, 1, -1.20, ok)        # 0.3 worse than seed 0: a worse basin
    _seed_folder(tmp_path, 2, -1.45, ok)        # within the margin
    _seed_folder(tmp_path, 3, -2.00, None)      # an older folder: compared against, not rewritten
    metrics = {s: json.loads((tmp_path / f"seed-{s}" / "metrics.json").read_text()) for s in range(4)}
    got = compare_seeds(tmp_path, metrics)
    assert set(got) == {0, 1, 2}
    assert [f["code"] for f in got[1]["findings"]] == ["objective"] and got[1]["flagged"]
    assert "seed 3's -2.000" in got[1]["findings"][0]["text"]
    assert got[0]["flagged"] and got[2]["flagged"]       # seed 3's objective is lower than all of theirs
    stored = json.loads((tmp_path / "seed-1" / "metrics.json").read_text())
    assert stored["diagnosis"] == got[1] and stored["final_objective"] == -1.20
    assert "diagnosis" not in json.loads((tmp_path / "seed-3" / "metrics.json").read_text())
    lines = SeedsOutcome(tmp_path, {}, {}, diagnoses=got).flagged_lines()
    assert len(lines) == 3 and lines[1].startswith("seed 1: this reading may be a local optimum: its objective -1.200")
    # compared again (the group run once more): the objective finding is replaced, not added twice
    again = compare_seeds(tmp_path, {s: json.loads((tmp_path / f"seed-{s}" / "metrics.json").read_text())
                                     for s in range(3)})
    assert [f["code"] for f in again[1]["findings"]] == ["objective"] and not again[2]["flagged"]


def test_run_seeds_prints_one_line_per_flagged_seed(cipher, tmp_path, capsys):
    from engine.cli.main import main
    from engine.io.tables import write_known, write_lost

    write_lost(tmp_path / "lost.csv", cipher.corpus.inscriptions)
    write_known(tmp_path / "known.csv", cipher.vocabulary.stems)
    assert main(["run", "--lost", str(tmp_path / "lost.csv"), "--known", str(tmp_path / "known.csv"), "--steps", "6",
                 "--seeds", "0", "1", "--device", "cpu", "--out", str(tmp_path / "out"), "--quiet",
                 "--set", "feature_dim=8", "--set", "eval_interval=0", "--set", "anneal_steps=5"]) == 0
    err = capsys.readouterr().err
    group = json.loads((tmp_path / "out" / "metrics.json").read_text())
    flagged = []
    for s in (0, 1):
        m = json.loads((tmp_path / "out" / f"seed-{s}" / "metrics.json").read_text())
        other = json.loads((tmp_path / "out" / f"seed-{1 - s}" / "metrics.json").read_text())
        gap = m["diagnosis"]["values"]["diagnosis_objective_gap"]
        assert gap == pytest.approx(m["final_objective"] - other["final_objective"])   # compared with the other
        if m["diagnosis"]["flagged"]:
            flagged.append(s)
            assert (f"diagnosis: seed {s}: this reading may be a local optimum" in err
                    or f"diagnosis: seed {s}: this reading is probably wrong" in err)
        else:
            assert f"diagnosis: seed {s}:" not in err
    assert group["flagged_seeds"] == flagged


# ---- 3. the project: schema v6, runs listed and compared, sign values ---------------------------------------


def test_a_v5_project_opens_upgraded_and_its_runs_read_no_diagnosis(tmp_path, capsys):
    from engine.cli.project import main
    from engine.project.recording import run_summary

    path = tmp_path / "v5.decipher"
    _build_file(path, 5)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute("INSERT INTO run (status, started_at, config) VALUES ('completed', '2020-01-01T00:00:00+00:00', '{}')")
    conn.commit()
    conn.close()
    assert SCHEMA_VERSION == 6
    with Project.open(path) as project:
        assert project.migrated_from == 5
        assert project.diagnosis(1) is None
        summary = run_summary(project, 1)
        assert summary["diagnosis"] is None and summary["final_objective"] is None
        project.record_diagnosis(1, -1.25, FLAGGED.to_json())
        assert project.diagnosis(1) == (-1.25, FLAGGED.to_json())
    assert main(["runs", str(path), "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["diagnosis"]["flagged"] and row["final_objective"] == -1.25


def test_a_stored_diagnosis_of_the_wrong_shape_is_refused_naming_the_row(tmp_path, capsys):
    from engine.errors import StoredValueError

    path = tmp_path / "p.decipher"
    project, ids = filled_project(path)
    project.record_diagnosis(ids["run"], -1.0, {"findings": []})
    project.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE run_diagnosis SET diagnosis = '[1, 2]'")
    conn.commit()
    conn.close()
    with pytest.raises(StoredValueError) as ei:
        with Project.open(path) as p:
            p.check_readable()
    assert "run_diagnosis" in str(ei.value) and f"run {ids['run']}" in str(ei.value)
    # read without that check (the command line): one line naming the cell, no traceback
    from engine.cli.project import main

    conn = sqlite3.connect(path)
    conn.execute("UPDATE run_diagnosis SET diagnosis = '{not json'")
    conn.commit()
    conn.close()
    assert main(["runs", str(path), "--json"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "table run_diagnosis, row run" in err[0] and "column diagnosis: not" in err[0]


def test_project_runs_compare_runs_of_the_same_inputs_and_settings_but_the_seed(tmp_path, capsys):
    from engine.cli.project import main
    from engine.project.recording import compared_diagnoses

    path = tmp_path / "p.decipher"
    project, ids = filled_project(path)
    c, lang = ids["corpus"], ids["language"]
    runs = {}
    for name, config, objective in [("a", Config(seed=0, steps=9), -1.5), ("b", Config(seed=1, steps=9), -1.2),
                                    ("other", Config(seed=2, steps=10), -0.5)]:
        run_id = project.start_run(config, c, lang, seed=config.seed)
        project.finish_run(run_id, "completed")
        project.record_diagnosis(run_id, objective, Diagnosis().to_json())
        runs[name] = run_id
    got = compared_diagnoses(project)
    assert ids["run"] not in got                       # recorded without a diagnosis
    # with inputs digests stored, the digest decides, not the corpus's id
    project.record_diagnosis(runs["a"], -1.5, Diagnosis().to_json(), "digest-1")
    project.record_diagnosis(runs["b"], -1.2, Diagnosis().to_json(), "digest-2")
    assert not compared_diagnoses(project)[runs["b"]]["flagged"], "other data: not compared"
    project.record_diagnosis(runs["b"], -1.2, Diagnosis().to_json(), "digest-1")
    assert compared_diagnoses(project) == got
    assert got[runs["b"]]["flagged"] and f"run {runs['a']}'s -1.500" in got[runs["b"]]["findings"][0]["text"]
    assert not got[runs["a"]]["flagged"]
    assert not got[runs["other"]]["flagged"], "other settings (steps) are not the same run with another seed"
    project.close()
    assert main(["runs", str(path)]) == 0
    table = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[1:]}
    assert table[str(runs["b"])].endswith("flagged") and table[str(runs["a"])].endswith("  ok")
    assert "no diagnosis" in table[str(ids["run"])]


def test_the_sign_values_export_names_the_unstable_signs_and_why(tmp_path):
    from engine.project.signvalues import COLUMNS, export_sign_values

    path = tmp_path / "p.decipher"
    project, ids = filled_project(path)
    out = tmp_path / "values.csv"
    export_sign_values(project, out, run_id=ids["run"])
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert list(rows[0]) == list(COLUMNS) and COLUMNS[-1] == "unstable"
    assert {r["unstable"] for r in rows} == {""}, "no diagnosis: no sign is doubted"
    signs = {r["sign"] for r in rows}
    doubted = sorted(signs)[:2]
    d = Diagnosis([Finding("class", "read against", (doubted[0],)),
                   Finding("polish", "moved", tuple(doubted), flag=False)])
    project.record_diagnosis(ids["run"], -1.0, d.to_json())
    export_sign_values(project, out, run_id=ids["run"])
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    why = {r["sign"]: r["unstable"] for r in rows}
    assert why[doubted[0]] == ("read against its vowel/consonant class in the text; "
                               "moved by the swap search after training")
    assert why[doubted[1]] == "moved by the swap search after training"
    assert all(why[s] == "" for s in signs - set(doubted))
    project.close()


def test_compared_replaces_the_objective_finding_and_keeps_the_others():
    first = compared(FLAGGED, -1.0, {"seed 1": -1.5})
    assert [f.code for f in first.findings] == ["class", "objective", "polish"]
    assert first.values["diagnosis_objective_gap"] == pytest.approx(0.5)
    again = compared(first, -1.0, {"seed 1": -1.05})
    assert [f.code for f in again.findings] == ["class", "polish"] and "diagnosis_objective_gap" in again.values
    assert compared(first, None, {}).findings == [f for f in FLAGGED.findings]
    assert summary_lines(None) == ["no diagnosis"] and diagnosis_from({"findings": 3}) is None


def test_project_runs_and_their_seed_groups_store_the_compared_diagnosis(tmp_path):
    from engine.project.recording import run_summary
    from engine.runs.seeds import run_seeds_in_project

    path = tmp_path / "p.decipher"
    project, ids = filled_project(path)
    project.close()
    config = Config(steps=4, anneal_steps=3, eval_interval=0, feature_dim=8, device="cpu", chars_per_batch=200)
    outcome = run_seeds_in_project(path, config, [0, 1], tmp_path / "group", corpus=ids["corpus"],
                                   language=ids["language"])
    assert set(outcome.diagnoses) == {0, 1}
    with Project.open(path) as p:
        digests = p.diagnosis_inputs()
        assert len(digests) == 2 and len(set(digests.values())) == 1, "two seeds of the same inputs"
        for seed in (0, 1):
            m = json.loads((tmp_path / "group" / f"seed-{seed}" / "metrics.json").read_text(encoding="utf-8"))
            stored = p.diagnosis(m["run_id"])
            assert stored is not None and stored[0] == pytest.approx(m["final_objective"])
            assert stored[1] == m["diagnosis"] == outcome.diagnoses[seed]
            assert "diagnosis_objective_gap" in stored[1]["values"]     # compared with the other seed
            assert run_summary(p, m["run_id"])["diagnosis"]["flagged"] == stored[1]["flagged"]


# ---- other runs' readings (the ``seeds`` finding) ----

SHARES = {"a": 0.30, "t": 0.20, "y": 0.05, "w": 0.05, "k": 0.40}
RIGHT = {"a": "a", "t": "t", "y": "j", "w": "w", "k": "k"}


def _reads(**changes):
    return Diagnosis(readings={**RIGHT, **changes}, shares=dict(SHARES))


def test_a_run_that_reads_letters_otherwise_than_most_other_runs_is_flagged_naming_them():
    from engine.training.diagnosis import agreement_finding

    others = {"seed 1": RIGHT, "seed 2": RIGHT, "seed 3": {**RIGHT, "y": "h"}}
    finding, values = agreement_finding({**RIGHT, "y": "h", "t": "d"}, SHARES, others)
    assert finding.code == "seeds" and finding.flag and set(finding.letters) == {"y", "t"}
    assert "t → d where 3 of 3 read t" in finding.text and "y → h where 2 of 3 read j" in finding.text
    assert values["diagnosis_runs_disagree_share"] == pytest.approx(0.25)
    # a rare letter alone (5 % of the text) is named as unstable without flagging the run
    finding, _ = agreement_finding({**RIGHT, "w": "v"}, SHARES, others)
    assert finding.letters == ("w",) and not finding.flag
    # the run the others agree with, and a letter with no majority among them, are not named
    split = {"seed 1": {**RIGHT, "t": "d"}, "seed 2": {**RIGHT, "t": "s"}, "seed 3": RIGHT}
    assert agreement_finding(RIGHT, SHARES, split)[0] is None
    # one other run cannot say which of the two is wrong
    assert agreement_finding({**RIGHT, "t": "d"}, SHARES, {"seed 1": RIGHT}) == (None, {})
    # two others name the letters but do not flag the run: two seeds in one wrong basin outvote the right one
    finding, _ = agreement_finding({**RIGHT, "t": "d"}, SHARES, {"seed 1": RIGHT, "seed 2": RIGHT})
    assert finding.letters == ("t",) and not finding.flag and "2 other runs are too few" in finding.text


def test_compared_makes_the_readings_finding_anew_and_the_readings_survive_json():
    run = _reads(k="g")
    stored = Diagnosis.from_json(json.loads(json.dumps(run.to_json())))
    assert stored.readings == run.readings and stored.shares == pytest.approx(SHARES)
    others = {"run 2": RIGHT, "run 3": RIGHT, "run 4": RIGHT}
    first = compared(stored, -1.0, {"run 2": -1.02, "run 3": -1.01}, others)
    assert [f.code for f in first.findings] == ["seeds"] and first.flagged
    assert first.unstable_letters() == {"k": "seeds"} and first.readings == run.readings
    again = compared(first, -1.0, {}, {"run 2": {**RIGHT, "k": "g"}, "run 3": {**RIGHT, "k": "g"}, "run 4": RIGHT})
    assert again.findings == [] and not again.flagged and again.values["diagnosis_runs_disagree"] == 0.0
    # a diagnosis of an older program has no readings: nothing to compare, nothing invented
    old = Diagnosis.from_json({"flagged": False, "findings": [], "values": {}})
    assert old.readings == {} and compared(old, -1.0, {}, others).findings == []
    assert "readings" not in Diagnosis().to_json()


def test_seeds_and_project_runs_compare_their_readings(tmp_path):
    from engine.project.recording import compared_diagnoses
    from engine.runs.seeds import compare_seeds

    for seed, reading in enumerate([RIGHT, RIGHT, {**RIGHT, "a": "e", "k": "q"}, RIGHT]):
        _seed_folder(tmp_path, seed, -1.5, _reads(**{k: v for k, v in reading.items() if v != RIGHT[k]}).to_json())
    metrics = {s: json.loads((tmp_path / f"seed-{s}" / "metrics.json").read_text()) for s in range(4)}
    got = compare_seeds(tmp_path, metrics)
    assert got[2]["flagged"] and set(got[2]["findings"][0]["letters"]) == {"a", "k"}
    assert not any(got[s]["flagged"] for s in (0, 1, 3))

    path = tmp_path / "p.decipher"
    project, ids = filled_project(path)
    runs = []
    for seed, reading in enumerate([RIGHT, {**RIGHT, "k": "q"}, RIGHT, RIGHT]):
        run_id = project.start_run(Config(seed=seed, steps=9), ids["corpus"], ids["language"], seed=seed)
        project.finish_run(run_id, "completed")
        project.record_diagnosis(run_id, -1.5, Diagnosis(readings=reading, shares=dict(SHARES)).to_json())
        runs.append(run_id)
    got = compared_diagnoses(project)
    assert got[runs[1]]["flagged"] and got[runs[1]]["findings"][0]["letters"] == ["k"]
    assert not any(got[runs[i]]["flagged"] for i in (0, 2, 3))
    project.close()


def test_a_findings_letters_can_be_shown_through_a_display_table_and_the_cli_keeps_the_datas():
    from engine.training.diagnosis import class_finding_of

    finding, _ = class_finding_of({"T": "a", "a": "ʔ", "{": "k"}, ["a", "{"], {"T": 0.5, "a": 0.3, "{": 0.2})
    assert finding.text.startswith("3 letters (100% of the text)") and "(T → a, a → ʔ, { → k;" in finding.text
    shown = {"T": "ṭ", "a": "ʾa", "{": "ḫ"}
    assert finding.shown(lambda x: shown.get(x, x)) == (
        finding.text.replace("T →", "ṭ →").replace("(T", "(ṭ").replace(", a →", ", ʾa →").replace("{ →", "ḫ →")
        .replace("contexts: a {", "contexts: ʾa ḫ"))
    assert finding.shown() == finding.text
    back = Finding.from_json(json.loads(json.dumps(finding.to_json())))
    assert back == finding
    # a stored template that does not give the stored text back is not trusted
    bad = {**finding.to_json(), "args": ["x", "y", "z", "a", "{"]}
    assert Finding.from_json(bad).template == "" and Finding.from_json(bad).shown(str.upper) == finding.text
    assert summary_lines(Diagnosis([finding]), lambda x: shown.get(x, x))[0].count("ṭ") == 1


def test_a_clean_diagnosis_says_which_checks_ran_and_what_that_means_for_the_reading():
    """Issue 51, item 7: "no sign of a poor basin" listed four checks whether they ran or not, and
    did not say what it means for the reading."""
    from engine.training.diagnosis import agreement_finding, objective_finding

    nothing = Diagnosis()
    head = nothing.headline()
    assert head.startswith("no check of a stuck training applied to this run")
    assert "nothing says whether this reading is the best" in head and "checked" not in head.split(":")[0]
    # the class check alone (a single run): only it is named
    alone = Diagnosis(values={"diagnosis_class_mismatch": 0.0, "diagnosis_vowel_letters": 5.0},
                      readings={"a": "p"}, shares={"a": 1.0})
    head = alone.headline()
    assert head.startswith("checked without the gold — whether each letter is read as a vowel or a consonant")
    assert "(5 letters pattern as vowels)" in head
    assert "objective" not in head and "other runs" not in head and "swap" not in head
    assert "does not say the reading is right" in head
    # compared with other runs: how many, for each check
    _, values = objective_finding(-2.0, {"seed 1": -2.01, "seed 2": -1.99})
    _, more = agreement_finding({"a": "p"}, {"a": 1.0}, {"seed 1": {"a": "p"}, "seed 2": {"a": "p"}, "seed 3": {}})
    both = compared(alone, -2.0, {"seed 1": -2.01, "seed 2": -1.99}, {"seed 1": {"a": "p"}, "seed 2": {"a": "p"}})
    assert values["diagnosis_objective_runs"] == 2.0 and more["diagnosis_readings_runs"] == 2.0
    head = both.headline()
    assert "its final objective against 2 other runs of the same data and settings" in head
    assert "its letters' readings against 2 other runs" in head
    assert not both.flagged
    # the swap search, when it ran, is named
    assert "letter swaps" in Diagnosis(values={"diagnosis_swap_search": 1.0}).headline()
