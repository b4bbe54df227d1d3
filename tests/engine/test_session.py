"""The run session under the CLI and the project runner: checkpoints (when, and what a stop or a
signal leaves), safe checkpoint loading, write failures, non-finite training, resume targets,
pin history, the project's run listing as JSON, and a CLI run's mapping for explanations."""

from __future__ import annotations

import errno
import json
import os
import pickle
import signal
import sys
from pathlib import Path

import pytest
import torch

from engine.cli.main import main
from engine.config import Config
from engine.corpus import PinnedValue
from engine.io.tables import write_gold, write_known, write_lost
from engine.project import Project, import_gold, import_known, import_lost
from engine.project import mapping_of, pin_history, resolve_checkpoint
from engine.results import EvalEvent, FinishedEvent, StepEvent, UpdatePins
from engine.runs.session import RunInputs, RunSession, RunSink
from engine.datasets.synthetic import make_cipher
from engine.training.trainer import Trainer, load_checkpoint

FAST = ["--set", "feature_dim=8", "--set", "anneal_steps=20", "--device", "cpu", "--quiet"]


@pytest.fixture(scope="module")
def cipher():
    return make_cipher(n_stems=25, n_inscriptions=30, seed=4)


@pytest.fixture(scope="module")
def files(tmp_path_factory, cipher):
    d = tmp_path_factory.mktemp("cipher")
    write_lost(d / "lost.csv", cipher.corpus.inscriptions)
    write_known(d / "known.csv", cipher.vocabulary.stems)
    write_gold(d / "gold.csv", cipher.gold)
    return d


@pytest.fixture
def project(tmp_path, files):
    path = tmp_path / "p.decipher"
    with Project.create(path) as p:
        import_lost(p, files / "lost.csv", name="lost")
        import_known(p, files / "known.csv", name="known")
        import_gold(p, files / "gold.csv")
    return path


def file_args(files):
    return ["--lost", str(files / "lost.csv"), "--known", str(files / "known.csv"), "--gold", str(files / "gold.csv")]


# ---- a fake trainer: the session's policies without torch ---------------------------------------


class FakeTrainer:
    device = "cpu"

    def __init__(self, steps=10, eval_every=0, gate=None):
        self.config = Config(steps=steps)
        self.total = steps
        self.eval_every = eval_every
        self.gate = gate
        self.step = 0
        self.stopping = False
        self.saved: list[int] = []
        self.received: list[tuple[int, tuple]] = []
        self.pins = ()

    def request_stop(self):
        self.stopping = True

    def save_checkpoint(self, path):
        self.saved.append(self.step)
        Path(path).write_text(str(self.step))

    def run(self):
        reason = "completed"
        while self.step < self.total:
            if self.stopping:
                reason = "stopped"
                break
            if self.gate:
                self.gate(self.step)
            self.step += 1
            sent = yield StepEvent(self.step, self.total, {"total": 1.0}, 0.5, 1.0, 0.5, 0.1)
            if isinstance(sent, UpdatePins):
                self.received.append((self.step, sent.pins))
            if self.eval_every and self.step % self.eval_every == 0 and self.step < self.total:
                yield EvalEvent(self.step, (), 0.1, (), {})
        yield EvalEvent(self.step, (), 0.2, (), {})
        yield FinishedEvent(self.step, reason, 1.0)


class Clock:
    """Each step of the fake moves this clock on by ``tick`` seconds (set by the gate)."""

    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


class Log(RunSink):
    def __init__(self):
        self.events = []

    def checkpoint(self, path, step):
        self.events.append(("checkpoint", step))

    def finished(self, outcome):
        self.events.append(("finished", outcome.status, outcome.reason))

    def pins_changed(self, step, pins):
        self.events.append(("pins", step, pins))


def test_checkpoints_first_step_every_evaluation_every_n_minutes_and_at_the_end(tmp_path):
    clock = Clock()

    def gate(step):
        clock.t += 100.0  # each step takes 100 s of the session's clock

    trainer = FakeTrainer(steps=20, eval_every=12, gate=gate)
    log = Log()
    session = RunSession(None, sinks=[log], checkpoint=tmp_path / "c.pt", checkpoint_every_s=600,
                         clock=clock, build=lambda inputs, **kw: trainer)
    outcome = session.run()
    assert outcome.status == "completed" and outcome.checkpoint == tmp_path / "c.pt"
    # step 1 (before the first evaluation), every 6 steps of 100 s, the evaluation at 12, the end
    assert trainer.saved == [1, 7, 12, 18, 20]
    assert [e[1] for e in log.events if e[0] == "checkpoint"] == trainer.saved


def test_stop_writes_a_checkpoint_and_stays_stopped(tmp_path):
    holder = {}
    trainer = FakeTrainer(steps=1000, gate=lambda step: step == 4 and holder["s"].stop())
    log = Log()
    holder["s"] = session = RunSession(None, sinks=[log], checkpoint=tmp_path / "c.pt",
                                       build=lambda inputs, **kw: trainer)
    outcome = session.run()
    assert outcome.status == "stopped" and outcome.step == 5  # the step under way when asked ends
    assert trainer.saved[-1] == 5 and (tmp_path / "c.pt").read_text() == "5"
    assert log.events[-1] == ("finished", "stopped", "stopped")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_ends_the_run_after_the_step_with_a_checkpoint(tmp_path, signum):
    trainer = FakeTrainer(steps=1000, gate=lambda step: step == 5 and os.kill(os.getpid(), signum))
    session = RunSession(None, checkpoint=tmp_path / "c.pt", build=lambda inputs, **kw: trainer)
    before = signal.getsignal(signum)
    outcome = session.run(handle_signals=True)
    assert outcome.status == "stopped" and outcome.reason == "interrupted"
    assert outcome.step == 6 and trainer.saved[-1] == 6
    assert signal.Signals(signum).name in outcome.note
    assert signal.getsignal(signum) is before, "the handlers are given back"


def test_pins_sent_to_a_paused_session_reach_the_trainer_and_the_sinks():
    holder = {}
    trainer = FakeTrainer(steps=6, gate=lambda step: step == 3 and holder["s"].send_pins([PinnedValue("a", "b")]))
    log = Log()
    holder["s"] = session = RunSession(None, sinks=[log], build=lambda inputs, **kw: trainer)
    session.run()
    assert trainer.received == [(4, (PinnedValue("a", "b"),))]
    assert ("pins", 4, (PinnedValue("a", "b"),)) in log.events


# ---- checkpoints: nothing runs from a file ------------------------------------------------------


class _Payload:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_crafted_checkpoint_is_refused_and_runs_nothing(tmp_path, files, capsys):
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.pt"
    torch.save({"config": {}, "model": {}, "step": 0, "payload": _Payload(marker)}, evil)
    with open(tmp_path / "evil.pkl", "wb") as f:
        pickle.dump(_Payload(marker), f)
    for path in (evil, tmp_path / "evil.pkl"):
        code = main(["run", *file_args(files), "--resume", str(path), "--out", str(tmp_path / "out"), *FAST])
        err = capsys.readouterr().err
        assert code == 2
        assert err.count("\n") == 1 and str(path) in err and "refused" in err
        assert not marker.exists(), "the checkpoint's code must not run"


def test_a_checkpoint_missing_keys_is_one_line(tmp_path, files, capsys):
    partial = tmp_path / "partial.pt"
    torch.save({"config": {}, "step": 3}, partial)
    code = main(["run", *file_args(files), "--resume", str(partial), "--out", str(tmp_path / "out"), *FAST])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert str(partial) in err and "'model'" in err and "KeyError" not in err
    torch.save([1, 2, 3], partial)
    assert main(["run", *file_args(files), "--resume", str(partial), "--out", str(tmp_path / "out"), *FAST]) == 2
    assert "not a checkpoint" in capsys.readouterr().err


def test_checkpoints_hold_only_tensors_and_plain_values(tmp_path, cipher):
    trainer = Trainer(cipher.corpus, cipher.vocabulary, Config(feature_dim=8, steps=3, eval_interval=0),
                      pins=[PinnedValue(cipher.key["t"], "t")], live_interval=None)
    for _ in trainer.run():
        pass
    trainer.save_checkpoint(tmp_path / "c.pt")
    state = load_checkpoint(tmp_path / "c.pt")  # weights_only=True: it would raise otherwise
    assert state["step"] == 3 and state["format"] == "decipher-checkpoint/2"
    again = Trainer.from_checkpoint(tmp_path / "c.pt", cipher.corpus, cipher.vocabulary, live_interval=None)
    assert again.step == 3 and again.pins == trainer.pins
    assert again.rng.getstate() == trainer.rng.getstate()
    # a checkpoint of the previous format (the Python RNG state as a tuple) still resumes
    old = dict(state, format="decipher-checkpoint/1", rng=trainer.rng.getstate())
    del old["numpy_rng"]
    torch.save(old, tmp_path / "v1.pt")
    v1 = Trainer.from_checkpoint(tmp_path / "v1.pt", cipher.corpus, cipher.vocabulary, live_interval=None)
    assert v1.step == 3 and v1.rng.getstate() == trainer.rng.getstate()


# ---- write failures -------------------------------------------------------------------------------


def test_disk_full_on_the_checkpoint_fails_the_run_in_one_line(tmp_path, project, monkeypatch, capsys):
    import engine.training.trainer

    real = engine.training.trainer.torch.save
    calls = {"n": 0}

    def full(obj, f, *a, **k):
        calls["n"] += 1
        if calls["n"] >= 2:  # the first checkpoint (step 1) is written; the next one meets a full disk
            f.write(b"partial")  # checkpoints are serialised into memory, then written
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(obj, f, *a, **k)

    monkeypatch.setattr(engine.training.trainer.torch, "save", full)
    code = main(["run", "--project", str(project), "--steps", "6", "--set", "eval_interval=3", *FAST])
    err = capsys.readouterr().err
    assert code == 2
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert errors == [errors[0]] and "checkpoint.pt: cannot write the file (the disk is full)" in errors[0]
    assert ".part" not in err and "Traceback" not in err
    folder = project.with_name("p.decipher.runs") / "run-1"
    assert sorted(p.name for p in folder.iterdir()) == ["checkpoint.pt"], "no partial file is left"
    assert load_checkpoint(folder / "checkpoint.pt")["step"] == 1, "the last good checkpoint stays"
    with Project.open(project) as p:
        [run] = p.runs()
        assert run.status == "failed" and "the disk is full" in run.error
        assert resolve_checkpoint(project, run.checkpoint) == folder / "checkpoint.pt"


@pytest.mark.parametrize("name", ["metrics.json", "matches.csv", "steps.csv"])
def test_an_unwritable_output_fails_the_run_naming_the_file(tmp_path, project, monkeypatch, capsys, name):
    import engine.io.atomic as atomic

    real = atomic.os.replace

    def refuse(src, dst):
        if Path(dst).name == name:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(atomic.os, "replace", refuse)
    out = tmp_path / "out"
    code = main(["run", "--project", str(project), "--steps", "3", "--set", "eval_interval=0", "--out", str(out),
                 *FAST])
    err = capsys.readouterr().err
    assert code == 2 and f"{out / name}: cannot write the file (the disk is full)" in err
    assert not [p for p in out.iterdir() if p.name.endswith(".part")]
    with Project.open(project) as p:
        [run] = p.runs()
        assert run.status == "failed" and name in run.error


def test_an_unwritable_out_folder_is_refused_before_the_run(tmp_path, files, capsys):
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        code = main(["run", *file_args(files), "--steps", "2", "--out", str(locked / "out"), *FAST])
    finally:
        locked.chmod(0o700)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "permission denied" in err


def test_out_naming_an_existing_file_is_refused_and_no_run_is_left(tmp_path, project, capsys):
    existing = tmp_path / "results.txt"
    existing.write_text("keep me")
    code = main(["run", "--project", str(project), "--steps", "2", "--out", str(existing), *FAST])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and str(existing) in err
    assert existing.read_text() == "keep me"
    with Project.open(project) as p:
        assert p.runs() == []


# ---- non-finite training ------------------------------------------------------------------------


def test_a_diverging_run_fails_with_its_reason_and_keeps_the_last_good_checkpoint(project, monkeypatch, capsys):
    from engine.training.sgd import SGD

    real_step = SGD.step

    def poisoned(self, *a, **k):
        out = real_step(self, *a, **k)
        poisoned.calls += 1
        if poisoned.calls == 4:  # the 4th update turns a parameter into NaN
            with torch.no_grad():
                self.param_groups[0]["params"][0].view(-1)[0] = float("nan")
        return out

    poisoned.calls = 0
    monkeypatch.setattr(SGD, "step", poisoned)
    code = main(["run", "--project", str(project), "--steps", "10", "--set", "eval_interval=2", *FAST])
    err = capsys.readouterr().err
    assert code == 2 and "diverged" in err and "non-finite at step 4" in err and "Traceback" not in err
    with Project.open(project) as p:
        [run] = p.runs()
        assert run.status == "failed" and "diverged" in run.error and "step 4" in run.error
        checkpoint = resolve_checkpoint(project, run.checkpoint)
    state = load_checkpoint(checkpoint)
    assert state["step"] == 2, "the checkpoint of the last evaluation before the fault stays"
    assert all(torch.isfinite(v).all() for v in state["model"].values())


# ---- resume and the record ----------------------------------------------------------------------


def test_resume_without_steps_keeps_the_runs_own_target(tmp_path, files, cipher):
    trainer = Trainer(cipher.corpus, cipher.vocabulary, Config(feature_dim=8, steps=7, eval_interval=0),
                      live_interval=None)
    run = trainer.run()
    for _ in range(3):
        next(run)
    run.close()
    trainer.save_checkpoint(tmp_path / "c.pt")
    out = tmp_path / "out"
    assert main(["run", *file_args(files), "--resume", str(tmp_path / "c.pt"), "--out", str(out), "--quiet"]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["steps"] == 7 and metrics["config"]["feature_dim"] == 8
    assert main(["run", *file_args(files), "--resume", str(out / "checkpoint.pt"), "--steps", "9",
                 "--set", "lr=0.5", "--out", str(out), "--quiet"]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["steps"] == 9 and metrics["config"]["lr"] == 0.5 and metrics["config"]["feature_dim"] == 8


def test_a_cli_run_records_its_mapping_pins_and_checkpoint_and_lists_as_json(project, capsys):
    with Project.open(project) as p:
        p.set_pin(PinnedValue(p.corpus(p.corpora()[0].id).inscriptions[0].units[0], "t"))
    assert main(["run", "--project", str(project), "--steps", "4", "--set", "eval_interval=2", *FAST]) == 0
    with Project.open(project) as p:
        [run] = p.runs()
        mapping = mapping_of(p, run.id)
        assert mapping is not None and mapping.probs.shape == (len(mapping.known), len(mapping.lost))
        assert [(c.step, c.pins) for c in pin_history(p, run.id)] == [(0, tuple(p.pins()))]
    capsys.readouterr()
    assert main(["project", "runs", str(project), "--json"]) == 0
    [line] = capsys.readouterr().out.splitlines()
    row = json.loads(line)
    assert row["id"] == 1 and row["status"] == "completed" and row["steps"] == 4 and row["last_step"] == 4
    assert row["checkpoint"] == "p.decipher.runs/run-1/checkpoint.pt"
    assert row["pins"][0]["step"] == 0 and row["pins"][0]["pins"][0]["known_ipa"] == "t"
    assert set(row["metrics"]) == {"p_at_1", "p_at_10", "coverage"}
    assert main(["project", "info", str(project)]) == 0
    assert "p.decipher.runs/run-1/checkpoint.pt" in capsys.readouterr().out


def test_a_resumed_project_run_names_the_run_it_continues(project):
    assert main(["run", "--project", str(project), "--steps", "2", "--set", "eval_interval=0", *FAST]) == 0
    ckpt = resolve_checkpoint(project, "p.decipher.runs/run-1/checkpoint.pt")
    assert main(["run", "--project", str(project), "--resume", str(ckpt), "--steps", "4", "--quiet"]) == 0
    with Project.open(project) as p:
        first, second = p.runs()
        assert second.resumed_from == 1 and second.last_step == 4 and second.status == "completed"
        assert pin_history(p, second.id)[0].step == 2, "the resumed run's pins start at its first step"
        assert RunInputs  # the inputs type is importable for callers (sweeps)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_on_a_project_run_checkpoints_it_and_it_resumes(project):
    """A real `decipher run --project` process: SIGINT ends it after the step under way, with a
    checkpoint at that step and status stopped; resuming reaches the run's own target."""
    import sqlite3
    import subprocess
    import time

    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-m", "engine.cli", "run", "--project", str(project), "--steps", "100000",
                             "--set", "feature_dim=8", "--set", "eval_interval=0", "--quiet", "--device", "cpu"],
                            cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(root)})
    try:
        step = 0
        for _ in range(2400):  # polls, not a clock: up to ~20 min on a loaded machine
            if proc.poll() is not None:
                break
            with sqlite3.connect(f"file:{project}?mode=ro", uri=True) as db:
                row = db.execute("SELECT checkpoint, last_step FROM run").fetchone()
            if row and row[0] and (row[1] or 0) >= 3:
                break
            time.sleep(0.5)
        assert proc.poll() is None, proc.stderr.read().decode()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err.decode()
    assert "SIGINT: stopping after this step" in err.decode() and "Traceback" not in err.decode()
    with Project.open(project) as p:
        [run] = p.runs()
        assert run.status == "stopped" and "SIGINT" in run.error
        state = load_checkpoint(resolve_checkpoint(project, run.checkpoint))
        assert state["step"] == run.last_step >= 3
        step = run.last_step
    target = str(step + 2)
    assert main(["run", "--project", str(project), "--resume", str(resolve_checkpoint(project, run.checkpoint)),
                 "--steps", target, "--quiet"]) == 0
    with Project.open(project) as p:
        assert p.runs()[-1].last_step == step + 2 and p.runs()[-1].resumed_from == run.id


def test_inputs_and_outcomes_cross_process_boundaries(tmp_path, cipher):
    """A sweep worker receives RunInputs and sends back a RunOutcome: both pickle."""
    inputs = RunInputs(cipher.corpus, cipher.vocabulary, Config(feature_dim=8, steps=2, eval_interval=0),
                       gold=tuple(cipher.gold), pins=(PinnedValue(cipher.key["t"], "t"),))
    assert pickle.loads(pickle.dumps(inputs)) == inputs
    outcome = RunSession(inputs, checkpoint=tmp_path / "c.pt").run()
    again = pickle.loads(pickle.dumps(outcome))
    assert again.status == "completed" and again.step == 2 and again.metrics == outcome.metrics


def test_the_atomic_writer_names_the_target_leaves_nothing_and_never_writes_through_links(tmp_path, monkeypatch):
    from engine.io import atomic

    target = tmp_path / "report.csv"
    target.write_text("old\n")
    real = atomic.os.replace
    monkeypatch.setattr(atomic.os, "replace", lambda a, b: (_ for _ in ()).throw(OSError(errno.ENOSPC, "full")))
    with pytest.raises(atomic.WriteError) as caught:
        atomic.write_csv(target, ["a"], [["=1+1"]], guard_formulas=True)
    assert str(caught.value) == f"{target}: cannot write the file (the disk is full); nothing was written"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.csv"] and target.read_text() == "old\n"
    monkeypatch.setattr(atomic.os, "replace", real)
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    with pytest.raises(atomic.WriteError, match="symbolic link"):
        atomic.write_csv(link, ["a"], [["=1+1"]], guard_formulas=True)
    assert link.is_symlink() and target.read_text() == "old\n"
    atomic.write_csv(target, ["a"], [["=1+1"]], guard_formulas=True)
    assert target.read_bytes() == b"a\r\n'=1+1\r\n"
    assert atomic.unguard_formula("'=1+1") == "=1+1" and atomic.unguard_formula("'x") == "'x"


def test_nothing_below_the_cli_imports_it_and_the_gui_builds_no_trainer():
    import ast

    root = Path(__file__).resolve().parents[2]

    def imports(path: Path) -> set[str]:
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = "." * node.level + (node.module or "")
                names.add(base)
                names.update(f"{base}.{a.name}" if node.module else base + a.name for a in node.names)
        return names

    for path in (root / "engine").rglob("*.py"):
        if path.relative_to(root / "engine").parts[0] == "cli":
            continue  # the command line's own package: one module per command group
        if path.relative_to(root).as_posix() == "engine/__main__.py":
            continue  # `python -m engine`: the command line itself
        found = {n for n in imports(path) if n == "engine.cli" or n.startswith("engine.cli.") or n.startswith(".")}
        assert not found, f"{path.relative_to(root)} imports the CLI: {found}"
    for path in (root / "decipher_gui").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "engine.training.trainer" not in text and "Trainer(" not in text, f"{path.relative_to(root)} builds a trainer"
