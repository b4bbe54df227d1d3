"""Issue 51, item 8: a run says how long it will take before it starts, from this machine's own
measured step times (engine/runs/estimate.py), and says "unknown until the first steps" where it
has none. No test here reads a clock: the step timer runs on a fake one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.config import Config
from engine.runs.estimate import (KEEP, UNKNOWN, RunShape, StepTimer, duration, estimate, planned_steps,
                                  read_records, record_step_time, run_shape)

SHAPE = RunShape("letters", "cpu", 400, 500, 10)


def test_no_record_alike_is_unknown_not_a_made_up_number():
    assert estimate(SHAPE, 2000, []).text() == f"Time on the CPU: {UNKNOWN}."
    # records of another signs kind, device, longest span or far another size do not count
    others = [(RunShape("syllables", "cpu", 400, 500, 10), 0.5), (RunShape("letters", "cuda", 400, 500, 10), 0.5),
              (RunShape("letters", "cpu", 400, 500, 8), 0.5), (RunShape("letters", "cpu", 400, 2000, 10), 0.5)]
    got = estimate(SHAPE, 2000, others)
    assert got.seconds is None and got.runs == 0 and "unknown until the first steps" in got.text()


def test_records_alike_are_scaled_by_the_work_per_step_and_their_median_taken():
    records = [(RunShape("letters", "cpu", 400, 500, 10), 0.10),        # the same work: 0.10
               (RunShape("letters", "cpu", 200, 500, 10), 0.06),        # half the work: 0.12
               (RunShape("letters", "cpu", 400, 800, 10), 0.32)]        # 1.6x the work: 0.20
    got = estimate(SHAPE, 3000, records)
    assert got.runs == 3 and got.seconds_per_step == pytest.approx(0.12)
    assert got.seconds == pytest.approx(360.0)
    text = got.text()
    assert text == ("Time on the CPU: about 6 min for 3,000 steps, plus the start (0.12 s a step: the median of 3 "
                    "earlier runs of similar size here).")
    assert "scaled to this run's batch letters × stems" in got.how()


def test_the_planned_steps_count_every_start():
    assert planned_steps(Config(steps=2000)) == 2000
    # 4 starts of 500 steps, then the kept one goes on to 8000
    assert planned_steps(Config(steps=8000, restarts=4, restart_steps=500)) == 4 * 500 + 7500
    assert planned_steps(Config(steps=1000, restarts=3, restart_fraction=1.0)) == 3000
    # starts screened where a 1,500-step word phase ends (restart_after_words), unless the text is a word list
    screened = dict(steps=3000, restarts=4, restart_steps=500, words_first=1500, restart_after_words=True)
    assert planned_steps(Config(**screened)) == 4 * 1500 + 1500
    assert planned_steps(Config(**screened, segmented=True)) == 4 * 500 + 2500


def test_the_shape_takes_the_batch_or_the_whole_corpus_when_smaller():
    config = Config(chars_per_batch=400, max_span=9, device="cpu")
    assert run_shape(config, 10_000, 1418) == RunShape("letters", "cpu", 400, 1418, 9)
    assert run_shape(config, 150, 20).batch_chars == 150
    assert run_shape(config.replace(signs="syllables"), 150, 20, "cuda:0").device == "cuda"


def test_duration_words():
    assert [duration(s) for s in (0.2, 40, 89, 95, 44 * 60, 85 * 60 + 10, 2 * 3600 + 5 * 60)] == \
        ["1 s", "40 s", "89 s", "2 min", "44 min", "85 min", "2 h 05 min"]


def test_records_round_trip_keep_the_newest_and_skip_damaged_lines(tmp_path):
    path = tmp_path / "deep" / "steps.jsonl"
    assert read_records(path) == []
    for i in range(KEEP + 5):
        assert record_step_time(SHAPE, 0.1 + i, 10, path)
    got = read_records(path)
    assert len(got) == KEEP and got[-1] == (SHAPE, pytest.approx(0.1 + KEEP + 4)) and got[0][1] == pytest.approx(5.1)
    with open(path, "a", encoding="utf-8") as f:
        f.write("{not json\n" + json.dumps({"signs": "letters"}) + "\n")
    assert len(read_records(path)) == KEEP
    assert not record_step_time(SHAPE, 0.0, 10, path)          # nothing measured: nothing written
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert not record_step_time(SHAPE, 0.1, 10, blocker / "steps.jsonl")   # unwritable: False, no error


def test_the_step_timer_counts_the_trainers_time_between_steps_not_the_handling():
    t = [0.0]
    timer = StepTimer(clock=lambda: t[0])
    for step in range(1, 6):
        t[0] += 0.5                 # the trainer's step
        timer.event_arrived(True)
        t[0] += 10.0                # a checkpoint or a pause while the step is handled
        timer.event_handled()
    assert timer.intervals == 4 and timer.seconds_per_step == pytest.approx(0.5)
    short = StepTimer(clock=lambda: 0.0)
    for _ in range(3):
        short.event_arrived(True)
        short.event_handled()
    assert short.seconds_per_step is None    # two intervals are too few to record


def test_a_session_records_its_step_time_and_tells_the_next_run(tmp_path, monkeypatch):
    from engine.datasets.synthetic import make_cipher
    from engine.runs.session import RunInputs, RunSession, RunSink
    from tests.engine.test_session import FakeTrainer

    path = tmp_path / "steps.jsonl"
    monkeypatch.setenv("DECIPHER_STEP_TIMES", str(path))
    cipher = make_cipher(n_stems=10, n_inscriptions=12, seed=2)
    config = Config(steps=8, device="cpu")
    inputs = RunInputs(cipher.corpus, cipher.vocabulary, config)

    class Told(RunSink):
        def __init__(self):
            self.said = []

        def estimated(self, text):
            self.said.append(text)

    def session(told):
        return RunSession(inputs, sinks=[told], build=lambda inputs, **kw: FakeTrainer(steps=8))

    first = Told()
    session(first).run()
    assert len(first.said) == 1 and UNKNOWN in first.said[0]
    (shape, seconds), = read_records(path)
    chars = sum(len(i.units) for i in cipher.corpus.inscriptions)
    assert shape == RunShape("letters", "cpu", min(400, chars), len(cipher.vocabulary.stems), config.max_span)
    assert seconds > 0
    second = Told()
    session(second).run()
    assert second.said[0].startswith("Time on the CPU: about ") and "for 8 steps" in second.said[0]
    assert "the median of 1 earlier run of similar size here" in second.said[0]


def test_decipher_run_says_the_estimate_on_stderr_before_training(tmp_path, monkeypatch, capsys):
    from engine.cli.main import main
    from engine.datasets.synthetic import make_cipher
    from engine.io.tables import write_known, write_lost

    monkeypatch.setenv("DECIPHER_STEP_TIMES", str(tmp_path / "steps.jsonl"))
    c = make_cipher(n_stems=10, n_inscriptions=12, seed=2)
    write_lost(tmp_path / "lost.csv", c.corpus.inscriptions)
    write_known(tmp_path / "known.csv", c.vocabulary.stems)
    argv = ["run", "--lost", str(tmp_path / "lost.csv"), "--known", str(tmp_path / "known.csv"), "--steps", "5",
            "--set", "feature_dim=8", "--set", "anneal_steps=5", "--device", "cpu"]
    assert main(argv + ["--out", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err
    assert f"Time on the CPU: {UNKNOWN}." in err.splitlines()
    assert main(argv + ["--out", str(tmp_path / "b")]) == 0
    err = capsys.readouterr().err.splitlines()
    said = [line for line in err if line.startswith("Time on the CPU: about ")]
    assert len(said) == 1 and "for 5 steps" in said[0]
    assert err.index(said[0]) < len(err) - 1     # before the run's last line (its summary)
    assert Path(tmp_path / "steps.jsonl").read_text(encoding="utf-8").count("\n") == 2
    # --quiet: no bar and no estimate (a quiet run's stderr is its warnings and, failing, its one line)
    assert main(argv + ["--out", str(tmp_path / "c"), "--quiet"]) == 0
    assert not [line for line in capsys.readouterr().err.splitlines() if line.startswith("Time on")]
