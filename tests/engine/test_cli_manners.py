"""The command line's manners (issue 29, item 5): data on stdout, progress and evaluation lines on
stderr, --json for listings, a closed pipe ends quietly with status 0, one meaning per word
("coverage" is the decoded coverage; the batch figure is "batch_coverage"), a summary that reads
well without gold, help for every option, ``decipher-gui --version``, ``python -m engine``."""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine.cli.main import SAMPLE_FILES, build_parser, main
from engine.io.tables import write_known, write_lost
from engine.runs.outputs import metrics_text, outcome_summary
from engine.runs.session import RunOutcome
from engine.datasets.synthetic import make_cipher

ROOT = Path(__file__).resolve().parents[2]
FAST = ["--set", "feature_dim=8", "--set", "eval_interval=5", "--set", "anneal_steps=5"]


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cipher")
    c = make_cipher(n_stems=20, n_inscriptions=20, seed=5)
    write_lost(d / "lost.csv", c.corpus.inscriptions)
    write_known(d / "known.csv", c.vocabulary.stems)
    return d


def test_a_run_without_gold_keeps_stdout_for_data_and_names_its_figures(files, tmp_path, capsys):
    code = main(["run", "--lost", str(files / "lost.csv"), "--known", str(files / "known.csv"), "--steps", "10",
                 "--device", "cpu", "--out", str(tmp_path / "r"), *FAST])
    out, err = capsys.readouterr()
    assert code == 0
    assert out == ""  # no evaluation line, no summary on stdout
    evaluations = [line for line in err.replace("\r", "\n").splitlines() if line.startswith("step ")]
    assert evaluations and all("{" not in line and "coverage " in line for line in evaluations)
    assert "batch_coverage=" in err and "cov=" not in err.replace("batch_coverage=", "")
    summary = err.strip().splitlines()[-1]
    assert summary.startswith("10 steps in ") and "; coverage " in summary and ": ;" not in summary
    assert summary.endswith(f"results in {tmp_path / 'r'}")


def test_the_progress_bar_says_what_a_step_trained_on():
    import io

    from engine.results import StepEvent
    from engine.runs.outputs import ProgressBar

    stream = io.StringIO()
    bar = ProgressBar(file=stream)
    bar.started(SimpleNamespace(trainer=object(), progress=None, step=0, total_steps=20))
    bar.step(StepEvent(10, 20, {"total": 1.0}, 0.5, 1.0, 0.5, 0.1, phase="pseudo-words, onsets only"))
    bar.step(StepEvent(20, 20, {"total": 0.5}, 0.5, 1.0, 0.5, 0.2))
    bar.bar.close()
    lines = stream.getvalue().replace("\r", "\n").splitlines()
    assert any("phase=pseudo-words, onsets only" in line and " 10/20 " in line for line in lines)
    assert any(" 20/20 " in line and "loss=0.500" in line and "phase" not in line for line in lines)


def _outcome(status: str, metrics: dict | None) -> RunOutcome:
    evaluation = None if metrics is None else SimpleNamespace(metrics=metrics)
    return RunOutcome(status=status, reason=status, step=7, first_step=0, wall_time_s=1.25, device="cpu",
                      evaluation=evaluation)


def test_the_summary_says_what_it_has_and_never_leaves_an_empty_slot():
    assert outcome_summary(_outcome("stopped", None), "results in r") == \
        "7 steps in 1.2 s on cpu; not evaluated; stopped; results in r"
    assert outcome_summary(_outcome("completed", {"coverage": 0.5, "n_matches": 3.0}), "results in r") == \
        "7 steps in 1.2 s on cpu; coverage 0.500; results in r"
    assert metrics_text({"p_at_1": 0.25, "p_at_10": float("nan"), "coverage": 0.125}) == \
        "P@1 0.250, P@10 -, coverage 0.125"


def test_sample_lists_what_it_wrote_and_json_gives_one_object_per_file(tmp_path, capsys):
    assert main(["sample", "--out", str(tmp_path / "a")]) == 0
    assert capsys.readouterr().out.split() == [str(tmp_path / "a" / n) for n in SAMPLE_FILES]
    assert main(["sample", "--out", str(tmp_path / "b"), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["name"] for r in rows] == list(SAMPLE_FILES)
    assert all(Path(r["path"]).is_file() for r in rows)
    assert main(["sample", "--out", str(tmp_path / "b")]) == 2  # never overwrites
    assert "already there" in capsys.readouterr().err


class _ClosedPipe(io.StringIO):
    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


def test_a_project_listing_into_a_closed_pipe_ends_quietly(tmp_path, monkeypatch, capsys):
    project = tmp_path / "p.decipher"
    assert main(["project", "new", str(project)]) == 0
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert main(["project", "info", str(project)]) == 0
    assert main(["project", "runs", str(project), "--json"]) == 0
    assert capsys.readouterr().err == ""


def test_a_broken_pipe_that_is_not_stdout_is_still_an_error(tmp_path, monkeypatch):
    import engine.cli.main

    def worker_pipe_breaks(args):
        raise BrokenPipeError(32, "Broken pipe")  # e.g. a worker process's connection

    monkeypatch.setattr(engine.cli.main, "cmd_sample", worker_pipe_breaks)
    with pytest.raises(BrokenPipeError):
        main(["sample", "--out", str(tmp_path / "s")])


def test_a_reader_that_left_before_the_first_byte_gets_exit_0_and_no_message(tmp_path):
    # the read end is closed before the command writes anything: every write meets a closed pipe
    proc = subprocess.Popen([sys.executable, "-m", "engine", "sample", "--out", str(tmp_path / "s"), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), cwd=tmp_path)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0
    assert err == b""
    assert (tmp_path / "s" / "sample.cog").is_file()


def _options_without_help(parser: argparse.ArgumentParser, path: str) -> list[str]:
    missing = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                missing += _options_without_help(sub, f"{path} {name}")
        elif action.help is None:
            missing.append(f"{path} {'/'.join(action.option_strings) or action.dest}")
    return missing


def test_every_option_and_argument_has_help():
    assert _options_without_help(build_parser(), "decipher") == []
    run = build_parser()._subparsers._group_actions[0].choices["run"].format_help()
    assert "random seed" in run and "training steps" in run


def test_decipher_gui_has_a_version(capsys):
    from decipher_gui.app import parse_args
    from engine import __version__

    with pytest.raises(SystemExit) as stop:
        parse_args(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"decipher-gui {__version__}"


def test_python_dash_m_engine_is_the_decipher_command(tmp_path):
    from engine import __version__

    version = subprocess.run([sys.executable, "-m", "engine", "--version"], capture_output=True, text=True,
                             env=_env(), cwd=tmp_path, timeout=120)
    assert (version.returncode, version.stdout.strip()) == (0, f"decipher {__version__}")
    bad = subprocess.run([sys.executable, "-m", "engine", "import-cog", str(tmp_path / "absent.cog"), "--out",
                          str(tmp_path / "d")], capture_output=True, text=True, env=_env(), cwd=tmp_path,
                         timeout=120)
    assert bad.returncode == 2 and bad.stdout == ""
    assert len(bad.stderr.strip().splitlines()) == 1 and "absent.cog" in bad.stderr


def test_project_info_has_a_json_listing_with_letters_lacunae_and_codes(tmp_path, capsys):
    """Issue 29 item 5: --json wherever there is a listing; info's object holds what its lines say."""
    import json

    project = tmp_path / "p.decipher"
    lost = tmp_path / "lost.csv"
    lost.write_text("id,text\nA,ym [b]n [...] lk\n", encoding="utf-8")
    assert main(["project", "new", str(project)]) == 0
    assert main(["project", "import", str(project), "--lost", str(lost), "--glottocode", "ugar1238"]) == 0
    capsys.readouterr()
    assert main(["project", "info", str(project), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    corpus = info["corpora"][0]
    assert corpus["letters"] == ["b", "k", "l", "m", "n", "y"] and corpus["glottocode"] == "ugar1238"
    assert corpus["lacunae"].startswith("2") and info["runs"] == {} and info["known_languages"] == []
