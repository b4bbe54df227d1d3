"""Several seeds and sweeps (issue 11): the multi-seed run and its consensus files, results.csv,
resuming, a killed worker's run redone, bad input in one line, and the Ray path on a local instance."""

from __future__ import annotations

import csv
import json
import os
import threading
from pathlib import Path

import pytest

pytest.importorskip("torch")

from engine.cli.main import main  # noqa: E402
from engine.runs.sweep import RESULT_COLUMNS, InlinePool, PlannedRun, _tasks, drive, read_results  # noqa: E402
from engine.runs.workers import KILL_ENV, LocalPool, RunItem, RunResult  # noqa: E402

TINY = ["--steps", "2", "--device", "cpu", "--set", "eval_interval=0", "--set", "feature_dim=8",
        "--set", "chars_per_batch=60"]


@pytest.fixture()
def cipher(tmp_path):
    from engine.io.tables import write_gold, write_known, write_lost
    from engine.datasets.synthetic import make_cipher

    c = make_cipher(n_stems=10, n_inscriptions=8, seed=3)
    paths = {name: tmp_path / f"{name}.csv" for name in ("lost", "known", "gold")}
    write_lost(paths["lost"], c.corpus.inscriptions)
    write_known(paths["known"], c.vocabulary.stems)
    write_gold(paths["gold"], c.gold)
    other = make_cipher(n_stems=10, n_inscriptions=8, seed=4)
    paths["other"] = tmp_path / "other.csv"
    write_known(paths["other"], other.vocabulary.stems)
    return paths


def rows_of(path: Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


# ---- several seeds ---------------------------------------------------------------------------


def test_run_seeds_writes_each_seed_consensus_and_choice(cipher, tmp_path, capsys):
    from engine.runs.consensus import read_readings

    out = tmp_path / "seeds"
    args = ["run", "--lost", str(cipher["lost"]), "--known", str(cipher["known"]), "--gold", str(cipher["gold"]),
            "--seeds", "0", "1", "2", "--quiet", "--out", str(out), *TINY]
    assert main(args) == 0
    for s in (0, 1, 2):
        m = json.loads((out / f"seed-{s}" / "metrics.json").read_text())
        assert m["seed"] == s and (out / f"seed-{s}" / "matches.csv").exists()
        assert isinstance(m["objective"], float)
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["seeds"] == [0, 1, 2] and metrics["chosen_seed"] in (0, 1, 2)
    for key in ("p_at_1", "p_at_10", "oracle_seed", "oracle_p_at_1", "oracle_p_at_10", "p_at_1_over_seeds"):
        assert key in metrics
    per_seed = {s: json.loads((out / f"seed-{s}" / "metrics.json").read_text()) for s in (0, 1, 2)}
    assert metrics["p_at_1"] == per_seed[metrics["chosen_seed"]]["p_at_1"]
    assert metrics["oracle_p_at_1"] == max(m["p_at_1"] for m in per_seed.values())
    # consensus.csv: every seed's readings, each with the number of seeds that decode it so
    readings = {s: {r.key for r in read_readings(out / f"seed-{s}" / "matches.csv")} for s in (0, 1, 2)}
    rows = rows_of(out / "consensus.csv")
    assert {(r["inscription"], int(r["start"]), int(r["end"]), r["stem"]) for r in rows} == set().union(*readings.values())
    for r in rows:
        key = (r["inscription"], int(r["start"]), int(r["end"]), r["stem"])
        holders = [s for s in (0, 1, 2) if key in readings[s]]
        assert int(r["agreement"]) == len(holders) and r["k/n"] == f"{len(holders)}/3"
        assert r["seeds"] == " ".join(map(str, holders))
    assert "chosen seed" in capsys.readouterr().err
    # run again: nothing is retrained (the seeds' folders are untouched)
    before = {s: (out / f"seed-{s}" / "metrics.json").stat().st_mtime_ns for s in (0, 1, 2)}
    assert main(args) == 0
    assert before == {s: (out / f"seed-{s}" / "metrics.json").stat().st_mtime_ns for s in (0, 1, 2)}
    assert "3 of 3 runs already finished" in capsys.readouterr().err


def test_run_seeds_in_project_records_ordinary_runs(cipher, tmp_path):
    from engine.project import Project, import_gold, import_known, import_lost

    path = tmp_path / "p.decipher"
    with Project.create(path) as project:
        import_lost(project, cipher["lost"], name="cipher")
        import_known(project, cipher["known"], name="synthetic")
        import_gold(project, cipher["gold"])
    out = tmp_path / "seeds"
    assert main(["run", "--project", str(path), "--seeds", "3", "4", "--quiet", "--out", str(out), *TINY]) == 0
    with Project.open(path) as project:
        runs = project.runs()
        assert [r.status for r in runs] == ["completed", "completed"]
        [group] = project.setting("seed_groups")
    assert group["runs"] == {"3": runs[0].id, "4": runs[1].id}
    metrics = json.loads((out / "metrics.json").read_text())
    assert group["chosen_seed"] == metrics["chosen_seed"] and group["chosen_run"] == group["runs"][str(metrics["chosen_seed"])]
    assert (out / "consensus.csv").exists()


def test_seeds_and_seed_refused_together(cipher, tmp_path, capsys):
    assert main(["run", "--lost", str(cipher["lost"]), "--known", str(cipher["known"]), "--seed", "1",
                 "--seeds", "0", "1", "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.strip() == "error: give --seed or --seeds, not both"


# ---- the sweep's driver ------------------------------------------------------------------------


def _fake_result(item: RunItem, status="completed") -> RunResult:
    item.run_dir.mkdir(parents=True, exist_ok=True)
    (item.run_dir / "metrics.json").write_text("{}")
    return RunResult(item.run_dir, status, metrics={"coverage": 0.5}, objective=1.0, wall_s=0.1, device="cpu")


def _make_items(out):
    def make(known):
        return lambda p: RunItem(out / p.run_dir, known, p.seed, "")
    return make


def test_interrupted_sweep_continues_without_redoing_finished_runs(tmp_path):
    from engine.runs.sweep import plan

    planned = plan(["A", "B"], [{"lr": 0.1}, {"lr": 0.2}], [0, 1])
    calls: list[str] = []

    def interrupted_after_three(task):
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append(task[0].run_dir.name)
        return [_fake_result(i) for i in task]

    with pytest.raises(KeyboardInterrupt):
        drive(tmp_path, planned, _make_items(tmp_path), InlinePool(interrupted_after_three))
    rows = read_results(tmp_path / "results.csv")
    assert [r.status for r in rows.values()].count("completed") == 3
    assert len(rows) == 8  # every planned run has its row from the start
    ran: list[Path] = []

    def counting(task):
        ran.extend(i.run_dir for i in task)
        return [_fake_result(i) for i in task]

    outcome = drive(tmp_path, planned, _make_items(tmp_path), InlinePool(counting))
    assert outcome.skipped == 3 and outcome.ran == 5 and len(ran) == 5
    done = {p.run_dir for p in planned[:3]}
    assert not done & {str(p.relative_to(tmp_path)) for p in ran}
    assert all(r.status == "completed" for r in read_results(tmp_path / "results.csv").values())
    # a finished run whose folder was deleted is redone
    (tmp_path / planned[0].run_dir / "metrics.json").unlink()
    ran.clear()
    drive(tmp_path, planned, _make_items(tmp_path), InlinePool(counting))
    assert ran == [tmp_path / planned[0].run_dir]


def test_seed_groups_are_cut_into_tasks():
    from engine.runs.sweep import plan

    planned = plan(["A"], [{"lr": 0.1}, {"lr": 0.2}], [0, 1, 2])
    assert [len(t) for t in _tasks(planned, 1)] == [1] * 6
    # a batched trainer takes a whole seed group in one task, never mixing settings
    tasks = _tasks(planned, 3)
    assert [[p.seed for p in t] for t in tasks] == [[0, 1, 2], [0, 1, 2]]
    assert [{p.settings["lr"] for p in t} for t in tasks] == [{0.1}, {0.2}]


# ---- the sweep through the command line (worker processes) ------------------------------------


def test_sweep_results_complete_and_resumed_sweep_redoes_nothing(cipher, tmp_path, capsys):
    out = tmp_path / "sweep"
    args = ["sweep", "--lost", str(cipher["lost"]), "--known", str(cipher["known"]), str(cipher["other"]),
            "--gold", str(cipher["gold"]), "--seeds", "0", "--set", "lr=0.2,0.5", "--workers", "2",
            "--out", str(out), *TINY]
    assert main(args) == 0
    rows = rows_of(out / "results.csv")
    assert tuple(rows[0]) == RESULT_COLUMNS
    assert len(rows) == 4
    assert {(r["known"], r["seed"], r["settings"]) for r in rows} == {
        (k, "0", f"lr={lr}") for k in ("known", "other") for lr in ("0.2", "0.5")}
    for r in rows:
        assert r["status"] == "completed" and r["device"] == "cpu" and r["attempts"] == "1"
        for col in ("p_at_1", "p_at_10", "coverage", "objective", "wall_s"):
            float(r[col])
        m = json.loads((out / r["run_dir"] / "metrics.json").read_text())
        assert m["config"]["lr"] == float(r["settings"].split("=")[1]) and m["seed"] == int(r["seed"])
        assert float(r["p_at_1"]) == pytest.approx(m["p_at_1"], abs=1e-5)
    stamps = {r["run_dir"]: (out / r["run_dir"] / "metrics.json").stat().st_mtime_ns for r in rows}
    capsys.readouterr()
    assert main(args) == 0
    assert "4 of 4 runs already finished" in capsys.readouterr().err
    assert stamps == {r["run_dir"]: (out / r["run_dir"] / "metrics.json").stat().st_mtime_ns for r in rows}


def test_killed_worker_run_is_marked_and_redone(cipher, tmp_path, monkeypatch):
    from engine.corpus import Corpus, Vocabulary
    from engine.io.tables import read_known, read_lost
    from engine.runs.session import RunInputs
    from engine.runs.sweep import plan, with_seed
    from engine.config import Config

    out = tmp_path / "sweep"
    planned = plan(["known"], [{}], [0, 1])
    victim = out / planned[1].run_dir
    monkeypatch.setenv(KILL_ENV, f"{victim}|{tmp_path / 'killed-once'}")
    corpus = Corpus("lost", tuple(read_lost(cipher["lost"])))
    vocab = Vocabulary("known", tuple(read_known(cipher["known"])))
    base = Config.from_dict({"steps": 2, "device": "cpu", "eval_interval": 0, "feature_dim": 8})

    def make(known):
        return lambda p: RunItem(out / p.run_dir, known, p.seed, "",
                                 inputs=RunInputs(corpus, vocab, with_seed(base, p.seed, {})))

    lines: list[str] = []
    pool = LocalPool(1)
    try:
        outcome = drive(out, planned, make, pool, log=lines.append)
    finally:
        pool.close()
    assert (tmp_path / "killed-once").exists()  # the worker really died once
    assert outcome.killed == 1
    assert any(line.startswith(f"{planned[1].run_dir}: the worker process died") for line in lines)
    rows = read_results(out / "results.csv")
    assert rows[planned[1].run_dir].status == "completed" and rows[planned[1].run_dir].attempts == 2
    assert rows[planned[0].run_dir].status == "completed" and rows[planned[0].run_dir].attempts == 1


def test_bad_known_file_mid_sweep_stops_in_one_line_and_keeps_finished_runs(cipher, tmp_path, capsys):
    bad = tmp_path / "broken.csv"
    bad.write_text("form,ipa\nkasa,kasa\nperro\n", encoding="utf-8")
    out = tmp_path / "sweep"
    code = main(["sweep", "--lost", str(cipher["lost"]), "--known", str(cipher["known"]), str(bad),
                 "--seeds", "0", "--workers", "1", "--out", str(out), *TINY])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: ") and str(bad) in err[-1] and "line 3" in err[-1]
    rows = {r["known"]: r for r in rows_of(out / "results.csv")}
    assert rows["known"]["status"] == "completed" and (out / rows["known"]["run_dir"] / "metrics.json").exists()
    assert rows["broken"]["status"] == "failed" and str(bad) in rows["broken"]["error"]


@pytest.mark.parametrize("args, message", [
    (["--workers", "0"], "error: --workers must be at least 1, got 0"),
    (["--set", "lr=0.1,"], "error: --set lr: an empty value in '0.1,'"),
    (["--set", "no_such_setting=1,2"], "error: setting no_such_setting: no such setting"),
    (["--set", "lr=0.1,-2"], "error: setting lr: must be a finite number > 0"),
    (["--set", "seed=1,2"], "error: "),
])
def test_sweep_bad_arguments_one_line(cipher, tmp_path, capsys, args, message):
    code = main(["sweep", "--lost", str(cipher["lost"]), "--known", str(cipher["known"]),
                 "--out", str(tmp_path / "o"), *args])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith(message)
    assert not (tmp_path / "o" / "results.csv").exists()


def test_unreachable_ray_address_fails_fast_in_one_line(cipher, tmp_path, capsys):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = main(["sweep", "--lost", str(cipher["lost"]), "--known", str(cipher["known"]),
                 "--ray", f"127.0.0.1:{port}", "--out", str(tmp_path / "o"), *TINY])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    try:
        import ray  # noqa: F401
    except ImportError:
        assert "pip install" in err[0]
    else:
        assert err[0].startswith(f"error: --ray 127.0.0.1:{port}: no Ray cluster answers there")


def test_ray_missing_says_how_to_install(cipher, tmp_path, capsys, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_ray(name, *a, **kw):
        if name == "ray":
            raise ImportError("No module named 'ray'")
        return real_import(name, *a, **kw)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    code = main(["sweep", "--lost", str(cipher["lost"]), "--known", str(cipher["known"]), "--ray", "local",
                 "--out", str(tmp_path / "o"), *TINY])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "pip install 'decipher-workbench[cluster]'" in err[0]


@pytest.mark.slow
def test_ray_local_runs_a_tiny_sweep(cipher, tmp_path, monkeypatch):
    ray = pytest.importorskip("ray", reason="Ray is the optional [cluster] extra; not installed")
    from engine.runs.workers import RayPool

    # the Ray workers import this checkout's engine
    root = str(Path(__file__).resolve().parents[2])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("RAY_DISABLE_USAGE_STATS", "1")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
             _system_config={"worker_register_timeout_seconds": 60})
    try:
        from engine.corpus import Corpus, Vocabulary
        from engine.io.tables import read_known, read_lost
        from engine.runs.session import RunInputs
        from engine.runs.sweep import plan, with_seed
        from engine.config import Config

        out = tmp_path / "sweep"
        corpus = Corpus("lost", tuple(read_lost(cipher["lost"])))
        vocab = Vocabulary("known", tuple(read_known(cipher["known"])))
        base = Config.from_dict({"steps": 2, "device": "cpu", "eval_interval": 0, "feature_dim": 8})
        planned = plan(["known"], [{}], [0, 1])

        def make(known):
            return lambda p: RunItem(out / p.run_dir, known, p.seed, "",
                                     inputs=RunInputs(corpus, vocab, with_seed(base, p.seed, {})))

        pool = RayPool("local")  # joins the instance started above
        box: dict = {}
        thread = threading.Thread(target=lambda: box.update(outcome=drive(out, planned, make, pool)), daemon=True)
        thread.start()
        thread.join(timeout=300)
        assert not thread.is_alive(), "the Ray sweep did not finish in 300 s"
        rows = read_results(out / "results.csv")
        assert [r.status for r in rows.values()] == ["completed", "completed"]
        pids = {r.pid for r in box["outcome"].results.values()}
        assert os.getpid() not in pids  # the runs ran in Ray's worker processes
    finally:
        ray.shutdown()


def test_run_items_keeps_order_and_retries_a_dead_worker(tmp_path):
    from engine.runs.sweep import MAX_ATTEMPTS, run_items

    items = [RunItem(tmp_path / f"r{i}", "k", i) for i in range(4)]
    died: dict[int, int] = {}

    def flaky(task):
        [item] = task
        if item.seed in (1, 3):  # seed 1's worker dies once, seed 3's every time
            died[item.seed] = died.get(item.seed, 0) + 1
            if item.seed == 3 or died[item.seed] == 1:
                raise RuntimeError("worker died")
        return [_fake_result(item)]

    lines: list[str] = []
    results = run_items(items, InlinePool(flaky), log=lines.append)
    assert [r.run_dir for r in results] == [i.run_dir for i in items]
    assert [r.status for r in results] == ["completed", "completed", "completed", "failed"]
    assert died == {1: 2, 3: MAX_ATTEMPTS} and "(3 times)" in results[3].error
    assert sum("run again" in line for line in lines) == 1 + (MAX_ATTEMPTS - 1)


def test_sweep_into_a_project_records_ordinary_runs(cipher, tmp_path):
    from engine.project import Project, import_gold, import_known, import_lost

    path = tmp_path / "p.decipher"
    with Project.create(path) as project:
        import_lost(project, cipher["lost"], name="cipher")
        import_known(project, cipher["known"], name="synthetic")
        import_gold(project, cipher["gold"])
    out = tmp_path / "sweep"
    # two worker processes write to the one project file at the same time
    assert main(["sweep", "--project", str(path), "--seeds", "0", "1", "--workers", "2", "--out", str(out),
                 *TINY]) == 0
    rows = rows_of(out / "results.csv")
    assert [(r["known"], r["status"]) for r in rows] == [("synthetic", "completed")] * 2
    with Project.open(path) as project:
        runs = project.runs()
        assert sorted(r.status for r in runs) == ["completed", "completed"]
        ids = {json.loads((out / r["run_dir"] / "metrics.json").read_text())["run_id"] for r in rows}
        assert ids == {r.id for r in runs}
    assert (out / "synthetic" / "default" / "consensus.csv").exists()  # the seed group's consensus


def test_a_local_pools_workers_start_at_their_lower_priority_and_keep_it():
    """A spawned worker imports Python, the app's modules and torch before its initializer runs; the
    pool lowers its priority from the parent as soon as it starts (it competed with the app's window
    for the cores before), and the initializer does not lower it a second time."""
    import os
    import subprocess
    import sys

    from engine.runs.workers import LocalPool

    base = os.getpriority(os.PRIO_PROCESS, 0)
    pool = LocalPool(1, nice=3)
    try:
        pool.submit(())  # what matters here is the worker's start, not the task
        pids = [p.pid for p in pool._executor._processes.values()]
        assert pids and all(os.getpriority(os.PRIO_PROCESS, pid) == min(19, base + 3) for pid in pids)
    finally:
        pool.close(kill=True)
    code = ("import os; from engine.runs.workers import pin_threads; b = os.getpriority(os.PRIO_PROCESS, 0); "
            "os.setpriority(os.PRIO_PROCESS, 0, b + 2); pin_threads(nice=2, target=b + 2); "
            "print(os.getpriority(os.PRIO_PROCESS, 0) - b)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "2"  # at the target already: not lowered again
