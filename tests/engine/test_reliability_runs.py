"""Issue 28, the runs part: results bound to their inputs (a resume reuses a run folder only when its
settings, steps and data are the same), one process per --out, workers that end with their
parent, no symlink followed in the program's own folders, and checkpoints whose malformed fields,
impossible steps, other corpus or deflate bomb are refused in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("torch")

from engine.cli.main import main  # noqa: E402
from engine.errors import DecipherError, InputError  # noqa: E402
from engine.inputs_digest import RECORD_FILE  # noqa: E402
from engine.runs.sweep import LOCK_FILE, FolderLock, InlinePool, PlannedRun, drive, read_results  # noqa: E402

TINY = ["--device", "cpu", "--set", "eval_interval=0", "--set", "feature_dim=8", "--set", "chars_per_batch=60",
        "--quiet"]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def cipher(tmp_path):
    from engine.io.tables import write_known, write_lost
    from engine.datasets.synthetic import make_cipher

    c = make_cipher(n_stems=10, n_inscriptions=8, seed=3)
    paths = {"lost": tmp_path / "L.csv", "known": tmp_path / "known.csv", "other": tmp_path / "other.csv"}
    write_lost(paths["lost"], c.corpus.inscriptions)
    write_known(paths["known"], c.vocabulary.stems)
    write_known(paths["other"], make_cipher(n_stems=10, n_inscriptions=8, seed=4).vocabulary.stems)
    return paths


def metrics(folder: Path) -> dict:
    return json.loads((folder / "metrics.json").read_text(encoding="utf-8"))


def err_lines(capsys) -> list[str]:
    """stderr's lines, the run's warnings left out (they are said before training, not the report)."""
    return [line for line in capsys.readouterr().err.splitlines() if line.strip() and not line.startswith("warning: ")]


# ---- 1. results bound to their inputs -----------------------------------------------------------


def test_the_issues_two_sweeps_say_lr_and_steps_changed_and_retrain(cipher, tmp_path, capsys):
    out = tmp_path / "X"
    common = ["sweep", "--lost", str(cipher["lost"]), "--known", str(cipher["known"]), "--seeds", "0", "1",
              "--workers", "1", "--out", str(out), *TINY[:-1]]
    assert main([*common, "--set", "lr=0.1", "--steps", "2"]) == 0
    capsys.readouterr()
    assert main([*common, "--set", "lr=0.3", "--steps", "5"]) == 0
    err = capsys.readouterr().err
    for seed in (0, 1):
        assert f"known/default/seed-{seed}: lr: 0.1 -> 0.3; steps: 2 -> 5; run again" in err
        m = metrics(out / "known" / "default" / f"seed-{seed}")
        assert m["steps"] == 5 and m["config"]["steps"] == 5 and m["config"]["lr"] == 0.3
    assert "(2 now, 0 before)" in err
    # the same sweep once more reuses both folders
    assert main([*common, "--set", "lr=0.3", "--steps", "5"]) == 0
    assert "2 of 2 runs already finished" in capsys.readouterr().err


def test_run_seeds_reruns_on_an_edited_lost_file_another_known_and_force(cipher, tmp_path, capsys):
    out = tmp_path / "Y"

    def run(*extra, known="known"):
        return main(["run", "--lost", str(cipher["lost"]), "--known", str(cipher[known]), "--seeds", "0", "1",
                     "--steps", "2", "--out", str(out), *TINY, *extra])

    assert run() == 0
    capsys.readouterr()
    stamps = {s: (out / f"seed-{s}" / "metrics.json").stat().st_mtime_ns for s in (0, 1)}
    assert run() == 0
    assert "2 of 2 runs already finished" in capsys.readouterr().err
    assert stamps == {s: (out / f"seed-{s}" / "metrics.json").stat().st_mtime_ns for s in (0, 1)}

    # one inscription edited in place: both seeds are redone, and say why
    lines = cipher["lost"].read_text(encoding="utf-8").splitlines(keepends=True)
    ident, text = lines[1].rstrip("\r\n").split(",", 1)
    lines[1] = f"{ident},{text[::-1]}x\n" if text[::-1] != text else f"{ident},{text}{text}\n"
    cipher["lost"].write_text("".join(lines), encoding="utf-8")
    assert run() == 0
    err = capsys.readouterr().err
    assert "seed-0: lost file changed; run again" in err and "seed-1: lost file changed; run again" in err
    for s in (0, 1):
        assert json.loads((out / f"seed-{s}" / RECORD_FILE).read_text())["inputs"]["lost file"]

    assert run(known="other") == 0
    assert "seed-0: known file changed; run again" in capsys.readouterr().err

    # a folder without a record (an older version's) is treated as changed, and said so
    (out / "seed-1" / RECORD_FILE).unlink()
    assert run(known="other") == 0
    err = capsys.readouterr().err
    assert "seed-1: no record of its inputs" in err and "seed-0" not in err.split("already finished")[0]

    assert run("--force-rerun", known="other") == 0
    assert "--force-rerun: 2 finished runs" in capsys.readouterr().err


def test_force_rerun_without_seeds_is_one_line(cipher, tmp_path, capsys):
    assert main(["run", "--lost", str(cipher["lost"]), "--known", str(cipher["known"]), "--force-rerun",
                 "--out", str(tmp_path / "o")]) == 2
    assert err_lines(capsys) == ["error: --force-rerun goes with --seeds (a single run into --out always trains anew)"]


def _items_for(out: Path, steps: dict):
    """Run items with real inputs (for the record), trained by a fake that writes metrics.json."""
    from engine.config import Config
    from engine.corpus import Corpus, Inscription, Stem, Vocabulary
    from engine.runs.session import RunInputs
    from engine.runs.workers import RunItem

    corpus = Corpus("c", (Inscription("1", "abc"),))
    vocabulary = Vocabulary("k", (Stem("abc", "abc"),))

    def make(known):
        return lambda p: RunItem(out / p.run_dir, known, p.seed, "",
                                 inputs=RunInputs(corpus, vocabulary, Config(steps=steps["n"], seed=p.seed)))
    return make


def _fake(task):
    from engine.runs.workers import RunResult

    for item in task:
        item.run_dir.mkdir(parents=True, exist_ok=True)
        (item.run_dir / "metrics.json").write_text(json.dumps({"steps": item.inputs.config.steps}))
    return [RunResult(i.run_dir, "completed", metrics={"coverage": 0.5}) for i in task]


def test_a_redone_run_that_dies_leaves_no_record_and_is_redone_again(tmp_path):
    planned = [PlannedRun("k", 0, {}, "seed-0")]
    steps = {"n": 3}
    drive(tmp_path, planned, _items_for(tmp_path, steps), InlinePool(_fake))
    assert (tmp_path / "seed-0" / RECORD_FILE).exists()
    steps["n"] = 4

    def dies(task):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        drive(tmp_path, planned, _items_for(tmp_path, steps), InlinePool(dies))
    assert not (tmp_path / "seed-0" / RECORD_FILE).exists()
    assert read_results(tmp_path / "results.csv")["seed-0"].status != "completed"
    logged: list[str] = []
    outcome = drive(tmp_path, planned, _items_for(tmp_path, steps), InlinePool(_fake), log=logged.append)
    assert outcome.ran == 1 and metrics(tmp_path / "seed-0")["steps"] == 4


# ---- one process per folder ------------------------------------------------------------------------


def test_a_live_lock_refuses_in_one_line_and_a_stale_one_is_taken_over(cipher, tmp_path, capsys):
    out = tmp_path / "Z"
    out.mkdir()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        (out / LOCK_FILE).write_text(f"{sleeper.pid}\n{os.uname().nodename}\n")
        args = ["run", "--lost", str(cipher["lost"]), "--known", str(cipher["known"]), "--seeds", "0",
                "--steps", "1", "--out", str(out), *TINY]
        assert main(args) == 2
        [line] = err_lines(capsys)
        assert line.startswith("error: ") and f"pid {sleeper.pid}" in line and "Traceback" not in line
        assert not (out / "seed-0").exists()
    finally:
        sleeper.kill()
        sleeper.wait()
    # the owner is gone now: its lock is stale, taken over with a line, and removed at the end
    assert main(args) == 0
    assert f"stale lock of process {sleeper.pid}" in capsys.readouterr().err
    assert (out / "seed-0" / "metrics.json").exists() and not (out / LOCK_FILE).exists()


def test_folder_lock_is_reentrant_and_released(tmp_path):
    with FolderLock(tmp_path):
        with FolderLock(tmp_path):
            assert (tmp_path / LOCK_FILE).read_text().split("\n")[0] == str(os.getpid())
        assert (tmp_path / LOCK_FILE).exists()
    assert not (tmp_path / LOCK_FILE).exists()


# ---- workers end with their parent --------------------------------------------------------------------

PARENT = """
import os, sys, time
from engine.runs.workers import LocalPool
pool = LocalPool(2, nice=0)
ex = pool._make()
futures = [ex.submit(time.sleep, 600) for _ in range(2)]
while len(getattr(ex, "_processes", {}) or {}) < 2:
    time.sleep(0.05)
print(" ".join(str(p) for p in ex._processes), flush=True)
time.sleep(600)
"""


def test_sigkill_of_the_parent_ends_its_workers(tmp_path):
    from engine.runs.sweep import _pid_alive

    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True, cwd=ROOT,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)))
    workers = [int(p) for p in parent.stdout.readline().split()]
    assert len(workers) == 2 and all(_pid_alive(p) for p in workers)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    import time
    for _ in range(1200):  # a guard against a hang; ends as soon as both are gone
        if not any(_pid_alive(p) for p in workers):
            break
        time.sleep(0.05)
    alive = [p for p in workers if _pid_alive(p)]
    for p in alive:
        os.kill(p, signal.SIGKILL)
    assert not alive, "workers outlived their parent"


# ---- 2. symlinks in the program's folders ------------------------------------------------------------


def test_planted_checkpoint_link_in_a_project_run_folder_leaves_the_victim_unchanged(cipher, tmp_path, capsys):
    from engine.project import Project, import_known, import_lost

    path = tmp_path / "P.decipher"
    with Project.create(path) as project:
        import_lost(project, cipher["lost"], name="cipher")
        import_known(project, cipher["known"], name="synthetic")
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    folder = tmp_path / "P.decipher.runs" / "run-1"
    folder.mkdir(parents=True)
    (folder / "checkpoint.pt").symlink_to(victim)
    code = main(["run", "--project", str(path), "--steps", "2", *TINY])
    assert code == 2
    lines = err_lines(capsys)
    assert any("symbolic link" in line and "checkpoint.pt" in line for line in lines)
    assert "Traceback" not in "\n".join(lines)
    assert victim.read_bytes() == b"precious" and (folder / "checkpoint.pt").is_symlink()


def test_a_project_runs_folder_linked_outside_is_refused(cipher, tmp_path, capsys):
    from engine.project import Project, import_known, import_lost

    path = tmp_path / "P.decipher"
    with Project.create(path) as project:
        import_lost(project, cipher["lost"], name="cipher")
        import_known(project, cipher["known"], name="synthetic")
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "P.decipher.runs").symlink_to(outside, target_is_directory=True)
    assert main(["run", "--project", str(path), "--steps", "1", *TINY]) == 2
    [line] = [x for x in err_lines(capsys) if x.startswith("error:")]
    assert "P.decipher.runs is a symbolic link" in line
    assert list(outside.iterdir()) == []


def test_a_run_folder_linked_outside_a_sweep_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    out = tmp_path / "sweep"
    out.mkdir()
    (out / "seed-0").symlink_to(outside, target_is_directory=True)
    planned = [PlannedRun("k", 0, {}, "seed-0"), PlannedRun("k", 1, {}, "seed-1")]
    outcome = drive(out, planned, _items_for(out, {"n": 2}), InlinePool(_fake))
    rows = outcome.table.rows
    assert rows["seed-0"].status == "failed" and "symbolic link" in rows["seed-0"].error
    assert rows["seed-1"].status == "completed"
    assert list(outside.iterdir()) == []


def test_planted_metrics_link_in_an_out_folder_is_refused(cipher, tmp_path, capsys):
    out = tmp_path / "o"
    out.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("precious")
    (out / "metrics.json").symlink_to(victim)
    (out / ".metrics.json.part").symlink_to(victim)   # the temporary's name too
    assert main(["run", "--lost", str(cipher["lost"]), "--known", str(cipher["known"]), "--steps", "1",
                 "--out", str(out), *TINY]) == 2
    [line] = [x for x in err_lines(capsys) if x.startswith("error:")]
    assert "symbolic link" in line and "metrics.json" in line
    assert victim.read_text() == "precious"


def test_planted_results_and_consensus_links_are_refused(tmp_path):
    from engine.runs.seeds import write_consensus

    victim = tmp_path / "victim.csv"
    victim.write_text("known,seed,status,run_dir\n")
    out = tmp_path / "sweep"
    out.mkdir()
    (out / "results.csv").symlink_to(victim)
    with pytest.raises(DecipherError, match="symbolic link"):
        drive(out, [PlannedRun("k", 0, {}, "seed-0")], _items_for(out, {"n": 2}), InlinePool(_fake))
    assert victim.read_text() == "known,seed,status,run_dir\n"
    (out / "results.csv").unlink()
    drive(out, [PlannedRun("k", 0, {}, "seed-0")], _items_for(out, {"n": 2}), InlinePool(_fake))
    (out / "consensus.csv").symlink_to(victim)
    with pytest.raises(DecipherError, match="symbolic link"):
        write_consensus(out, [0], 10)
    assert victim.read_text() == "known,seed,status,run_dir\n"


def test_refuse_symlinks_refuses_a_path_resolving_outside(tmp_path):
    from engine.io.atomic import WriteError, refuse_symlinks

    assert refuse_symlinks(tmp_path / "a" / "b.txt", tmp_path) == tmp_path / "a" / "b.txt"
    with pytest.raises(WriteError, match="leads outside"):
        refuse_symlinks(tmp_path / ".." / "x", tmp_path)
    with pytest.raises(WriteError, match="not inside"):
        refuse_symlinks(Path("/etc/passwd"), tmp_path)


# ---- 3. checkpoints ---------------------------------------------------------------------------------------


@pytest.fixture()
def checkpoint(cipher, tmp_path):
    import torch

    from engine.config import Config
    from engine.corpus import Corpus, Vocabulary
    from engine.io.tables import read_known, read_lost
    from engine.training.trainer import Trainer

    corpus = Corpus("L", tuple(read_lost(cipher["lost"])))
    vocabulary = Vocabulary("known", tuple(read_known(cipher["known"])))
    trainer = Trainer(corpus, vocabulary, Config(steps=3, eval_interval=0, feature_dim=8, device="cpu"),
                      live_interval=None)
    for _ in trainer.run(2):
        pass
    path = trainer.save_checkpoint(tmp_path / "good.pt")
    state = torch.load(path, weights_only=True)
    assert state["step"] == 2
    return {"path": path, "state": state, "corpus": corpus, "vocabulary": vocabulary}


@pytest.mark.parametrize("field,value,needle", [
    ("rng", "xyz", "'rng'"), ("rng", [3, [1, 2], None], "'rng'"), ("step", "7", "'step'"),
    ("step", -100, "negative"), ("step", 10**15, "outside this run's 0..3 steps"),
    ("elapsed", "soon", "'elapsed'"), ("elapsed", float("nan"), "'elapsed'"),
    ("sampler_order", "abc", "'sampler_order'"), ("sampler_order", [0.5], "'sampler_order'"),
    ("numpy_rng", [1], "'numpy_rng'"), ("torch_rng", [1, 2], "'torch_rng'"),
])
def test_malformed_checkpoint_fields_are_one_line(checkpoint, tmp_path, field, value, needle, cipher, capsys):
    import torch

    bad = tmp_path / "bad.pt"
    torch.save({**checkpoint["state"], field: value}, bad)
    assert main(["run", "--lost", str(cipher["lost"]), "--known", str(cipher["known"]), "--resume", str(bad),
                 "--out", str(tmp_path / "o"), "--quiet"]) == 2
    [line] = err_lines(capsys)
    assert line.startswith(f"error: {bad}: ") and needle in line


def test_a_resume_on_another_corpus_with_the_same_letters_is_refused(checkpoint):
    from engine.corpus import Corpus, Inscription
    from engine.training.trainer import Trainer

    own = checkpoint["corpus"]
    other = Corpus("L2", own.inscriptions + tuple(Inscription(f"{i.id}-copy", i.text) for i in own.inscriptions))
    with pytest.raises(InputError, match="another corpus"):
        Trainer.from_checkpoint(checkpoint["path"], other, checkpoint["vocabulary"], live_interval=None)
    # its own corpus resumes
    assert Trainer.from_checkpoint(checkpoint["path"], own, checkpoint["vocabulary"], live_interval=None).step == 2


def test_a_deflate_bomb_checkpoint_is_refused_before_unpacking(tmp_path, monkeypatch):
    import torch

    from engine.training.trainer import load_checkpoint

    bomb = tmp_path / "bomb.pt"
    chunk = bytes(1 << 20)
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as z:
        with z.open("archive/data.pkl", "w", force_zip64=True) as f:
            for _ in range(64):
                f.write(chunk)
    assert bomb.stat().st_size < 1 << 20

    def never(*a, **kw):
        raise AssertionError("torch.load must not be reached")

    monkeypatch.setattr(torch, "load", never)
    with pytest.raises(InputError, match="declares 64 MiB unpacked") as e:
        load_checkpoint(bomb)
    assert str(e.value).startswith(f"{bomb}: refused")


def test_a_real_checkpoint_passes_the_size_check(checkpoint):
    from engine.training.trainer import load_checkpoint

    assert load_checkpoint(checkpoint["path"])["step"] == 2
    with pytest.raises(DecipherError):
        load_checkpoint(checkpoint["path"].parent / "missing.pt")




@pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX")
def test_a_dead_owners_lock_is_taken_over_by_one_process_at_a_time(tmp_path):
    """Issue 52, 4: when the lock named a dead pid, two processes could both take it over (each
    removed the other's fresh lock: 73 of 150 rounds). Four processes race over and over for a lock
    that each leaves stale (benchmarks/reliability.py's racer; 100 overlaps on the code before)."""
    from benchmarks.reliability import lock_race

    held, overlaps = lock_race(tmp_path / "race")
    assert overlaps == 0 and held == 240, (held, overlaps)


# ---- issue 52, 9 and 10: the input digest covers glosses; a resume checks format and vocabulary -----------


@pytest.mark.parametrize("fmt", ["decipher-checkpoint/99", "not-a-checkpoint", None])
def test_a_checkpoint_of_another_format_is_refused_unless_forced(checkpoint, tmp_path, cipher, capsys, fmt):
    import torch

    bad = tmp_path / "other-format.pt"
    state = {k: v for k, v in checkpoint["state"].items() if k != "format"}
    torch.save(state if fmt is None else {**state, "format": fmt}, bad)
    argv = ["run", "--lost", str(cipher["lost"]), "--known", str(cipher["known"]), "--resume", str(bad),
            "--out", str(tmp_path / "o"), "--quiet"]
    assert main(argv) == 2
    [line] = err_lines(capsys)
    assert line.startswith(f"error: {bad}: refused: the checkpoint's format is") and "--force-resume" in line
    assert main(argv + ["--force-resume"]) == 0
    assert "--force-resume although the checkpoint's format" in capsys.readouterr().err
    assert "format" in metrics(tmp_path / "o")["forced_resume"][0]


def test_a_resume_on_another_vocabulary_is_refused_unless_forced(checkpoint, tmp_path, cipher, capsys):
    """Every form renamed (the same IPA, so the same units): it resumed silently, exit 0."""
    from engine.io.tables import read_known, write_known
    from engine.corpus import Stem

    renamed = tmp_path / "renamed.csv"
    write_known(renamed, [Stem(s.form + "x", s.ipa, s.gloss) for s in read_known(cipher["known"])])
    argv = ["run", "--lost", str(cipher["lost"]), "--known", str(renamed), "--resume", str(checkpoint["path"]),
            "--out", str(tmp_path / "o"), "--quiet"]
    assert main(argv) == 2
    [line] = err_lines(capsys)
    assert "refused: the checkpoint was trained on another known vocabulary" in line
    assert main(argv + ["--force-resume"]) == 0
    assert "another known vocabulary" in metrics(tmp_path / "o")["forced_resume"][0]
    # a corrected gloss is no other vocabulary: it resumes
    glossed = tmp_path / "glossed.csv"
    write_known(glossed, [Stem(s.form, s.ipa, s.gloss + "!") for s in read_known(cipher["known"])])
    assert main(["run", "--lost", str(cipher["lost"]), "--known", str(glossed), "--resume", str(checkpoint["path"]),
                 "--out", str(tmp_path / "o2"), "--quiet"]) == 0


def test_a_gloss_edit_reruns_a_finished_seed(cipher, tmp_path, capsys):
    """A rerun after a gloss edit said "already finished" and kept the old gloss in its matches."""
    from engine.inputs_digest import vocabulary_digest
    from engine.io.tables import read_known, write_known
    from engine.corpus import Stem

    stems = read_known(cipher["known"])
    edited = [Stem(s.form, s.ipa, "new gloss") for s in stems]
    assert vocabulary_digest(stems) != vocabulary_digest(edited)
    out = tmp_path / "Y"
    args = ["run", "--lost", str(cipher["lost"]), "--known", str(cipher["known"]), "--seeds", "0", "--steps", "1",
            "--out", str(out), *TINY]
    assert main(args) == 0
    write_known(cipher["known"], edited)
    capsys.readouterr()
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "known file changed" in err and "already finished" not in err
