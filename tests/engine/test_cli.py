"""The `decipher` command line, end to end, including a run killed with SIGKILL."""

import csv
import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.cli.main import main
from engine.io.tables import write_gold, write_known, write_lost
from engine.datasets.synthetic import make_cipher

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
FAST = ["--set", "feature_dim=8", "--set", "eval_interval=0", "--set", "anneal_steps=20"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cipher")
    c = make_cipher(n_stems=25, n_inscriptions=30, seed=4)
    write_lost(d / "lost.csv", c.corpus.inscriptions)
    write_known(d / "known.csv", c.vocabulary.stems)
    write_gold(d / "gold.csv", c.gold)
    (d / "prior.csv").write_text(f"lost,known_ipa\n{c.key['t']},t\n", encoding="utf-8")
    return d


def test_run_writes_metrics_matches_and_checkpoint(files, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["run", "--lost", str(files / "lost.csv"), "--known", str(files / "known.csv"),
                 "--gold", str(files / "gold.csv"), "--prior", str(files / "prior.csv"),
                 "--steps", "30", "--seed", "3", "--device", "cpu", "--out", str(out), "--quiet", *FAST])
    assert code == 0
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    for key in ("p_at_1", "p_at_10", "steps", "wall_time_s", "steps_per_s", "device", "peak_memory_mb"):
        assert key in metrics
    assert metrics["steps"] == 30 and metrics["device"] == "cpu" and metrics["seed"] == 3
    assert 0.0 <= metrics["p_at_1"] <= metrics["p_at_10"] <= 1.0
    assert metrics["config"]["feature_dim"] == 8
    with open(out / "matches.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and set(rows[0]) >= {"inscription_id", "start", "end", "span", "rank", "stem_form", "stem_ipa", "score"}
    lost = {r["id"]: r["text"] for r in csv.DictReader(open(files / "lost.csv", encoding="utf-8"))}
    for r in rows[:20]:
        assert lost[r["inscription_id"]][int(r["start"]):int(r["end"])] == r["span"]
    assert (out / "checkpoint.pt").stat().st_size > 0
    # resuming continues from the checkpoint
    code = main(["run", "--lost", str(files / "lost.csv"), "--known", str(files / "known.csv"),
                 "--resume", str(out / "checkpoint.pt"), "--steps", "35", "--out", str(tmp_path / "more"), "--quiet"])
    assert code == 0
    assert json.loads((tmp_path / "more" / "metrics.json").read_text())["steps"] == 35


@pytest.mark.parametrize("fixture, needle", [
    ("bad_missing_column.csv", "missing column"),
    ("bad_latin1.csv", "UTF-8"),
    ("bad_empty.csv", "empty"),
])
def test_bad_lost_file_is_a_clear_error(files, tmp_path, capsys, fixture, needle):
    bad = DATA / "project" / fixture
    code = main(["run", "--lost", str(bad), "--known", str(files / "known.csv"), "--out", str(tmp_path), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert str(bad) in err and needle in err


def test_unknown_ipa_names_file_line_and_symbol(files, tmp_path, capsys):
    known = tmp_path / "known.csv"
    known.write_text("form,ipa\nabcd,abcd\nxy-z,xy-z\n", encoding="utf-8")
    code = main(["run", "--lost", str(files / "lost.csv"), "--known", str(known), "--out", str(tmp_path), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{known}, line 3" in err and "'-'" in err


def test_empty_corpus_is_an_error(files, tmp_path, capsys):
    lost = tmp_path / "lost.csv"
    lost.write_text("id,text\n", encoding="utf-8")
    code = main(["run", "--lost", str(lost), "--known", str(files / "known.csv"), "--out", str(tmp_path), "--quiet"])
    assert code == 2 and "no inscriptions" in capsys.readouterr().err


def test_unknown_setting_is_an_error(files, tmp_path, capsys):
    code = main(["run", "--lost", str(files / "lost.csv"), "--known", str(files / "known.csv"),
                 "--set", "temprature=0.3", "--out", str(tmp_path), "--quiet"])
    assert code == 2 and "temprature" in capsys.readouterr().err


def test_cli_exit_code_in_a_real_process(files, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "engine.cli", "run", "--lost", str(DATA / "project" / "bad_truncated.csv"),
                           "--known", str(files / "known.csv"), "--out", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 2
    assert "bad_truncated.csv" in proc.stderr and "line" in proc.stderr


def test_import_cog_writes_the_three_csvs(tmp_path, capsys):
    assert main(["import-cog", str(DATA / "project" / "sample.cog"), "--out", str(tmp_path)]) == 0
    lost = list(csv.DictReader(open(tmp_path / "lost.csv", encoding="utf-8")))
    known = list(csv.DictReader(open(tmp_path / "known.csv", encoding="utf-8")))
    gold = list(csv.DictReader(open(tmp_path / "gold.csv", encoding="utf-8")))
    assert lost and known and gold
    assert all(g["start"] == "0" for g in gold)
    texts = {r["id"]: r["text"] for r in lost}
    assert all(int(g["word_end"]) == len(texts[g["inscription_id"]]) for g in gold)
    ipa = {k["form"]: k["ipa"] for k in known}
    assert ipa["byt"] == "bjt"          # the consonantal transliteration turned into IPA (y -> j)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_sigkilled_project_run_is_marked_interrupted_and_data_survive(files, tmp_path):
    project = tmp_path / "p.decipher"
    for argv in (["project", "new", str(project)],
                 ["project", "import", str(project), "--lost", str(files / "lost.csv")],
                 ["project", "import", str(project), "--known", str(files / "known.csv")],
                 ["project", "import", str(project), "--gold", str(files / "gold.csv")]):
        assert main(argv) == 0, argv
    proc = subprocess.Popen([sys.executable, "-m", "engine.cli", "run", "--project", str(project), "--steps", "100000",
                             "--quiet", "--set", "feature_dim=8", "--set", "eval_interval=5"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 900  # a hang guard only: the loop ends on the event
        steps = 0
        while time.monotonic() < deadline and proc.poll() is None:
            with sqlite3.connect(f"file:{project}?mode=ro", uri=True) as db:
                row = db.execute("SELECT max(step) FROM run_metric").fetchone()
                steps = row[0] or 0
            if steps >= 10:
                break
            time.sleep(0.5)
        assert proc.poll() is None, proc.stderr.read().decode()
        assert steps >= 10
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    from engine.project.store import Project
    with Project.open(project) as p:
        runs = p.runs()
        assert [r.status for r in runs] == ["interrupted"]
        assert p.metrics(runs[0].id)
        assert len(p.inscriptions(p.corpora()[0].id)) == 30
        assert p.gold(p.corpora()[0].id)
        assert runs[0].checkpoint
