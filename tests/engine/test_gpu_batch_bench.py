"""benchmarks/gpu_batch.py and benchmarks/gpu_session.sh (issue 50's GPU measurements): their logic and
the CPU dry run, which must pass with no GPU and no ../shared. The rows of a dry run test the script; they
measure nothing."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import time
from argparse import Namespace
from pathlib import Path

import pytest

from tests.conftest import ROOT, SHARED_DATA

pytest.importorskip("torch")

from benchmarks import gpu_batch as gb  # noqa: E402
from benchmarks.closeness_paper import candidates  # noqa: E402
from benchmarks.commit import snapshot  # noqa: E402

SESSION = ROOT / "benchmarks" / "gpu_session.sh"
AUTHORS = [c.name for c in candidates("gothic", "authors")]


@pytest.mark.parametrize("name, kind", [("NVIDIA H200", "h200"), ("NVIDIA H100 80GB HBM3", "h100"),
                                        ("NVIDIA A100-SXM4-80GB", "a100"), ("Tesla V100-PCIE-16GB", "v100")])
def test_the_rows_folder_is_named_from_the_gpu_and_only_with_letters_digits_and_dashes(name, kind):
    assert gb.device_kind("cuda", name) == kind
    assert gb.device_kind("cpu", "AMD EPYC 7B13") == "cpu-dryrun"
    assert gb.device_kind("cuda", "Some GPU (rev 2)/x") == "some-gpu-rev-2-x"


def test_timed_steps_stop_at_the_step_count_at_the_budget_and_at_the_runs_end():
    syncs = []
    got = gb.timed_events(iter(range(100)), steps=7, warmup=2, deadline=math.inf, sync=lambda: syncs.append(1))
    assert (got["steps"], got["stopped_by"]) == (7, "steps") and syncs
    # a deadline already passed: the timed steps stop at the first check (a chunk of 3)
    got = gb.timed_events(iter(range(100)), steps=50, warmup=1, deadline=-math.inf, sync=lambda: None, chunk=3)
    assert (got["steps"], got["stopped_by"]) == (3, "budget")
    got = gb.timed_events(iter(range(6)), steps=50, warmup=2, deadline=math.inf, sync=lambda: None)
    assert (got["steps"], got["stopped_by"]) == (4, "run ended")
    got = gb.timed_events(iter(range(1)), steps=50, warmup=2, deadline=math.inf, sync=lambda: None)
    assert (got["steps"], got["stopped_by"]) == (0, "run ended")


def test_a_target_is_judged_only_on_a_gpu_and_only_for_the_comparison_the_record_ran():
    assert gb.judged("single", {"status": "ok", "steps_per_s": 160.0}, dry_run=False) is True
    assert gb.judged("single", {"status": "ok", "steps_per_s": 96.0}, dry_run=False) is False
    assert gb.judged("single", {"status": "ok", "steps_per_s": 160.0}, dry_run=True) is None
    assert gb.judged("batch", {"status": "refused", "error": "ValueError: CPU"}, dry_run=False) is False
    assert gb.judged("seeds", {"status": "ok", "ratio": 1.25}, dry_run=False) is True
    assert gb.judged("seeds", {"status": "timed_out", "ratio_at_least": 2.0}, dry_run=False) is False
    ok = {"status": "ok", "wall_s": 500.0, "comparable": True, "verdicts_same": True}
    assert gb.judged("closeness", ok, dry_run=False) is True
    assert gb.judged("closeness", {**ok, "verdicts_same": False}, dry_run=False) is False
    assert gb.judged("closeness", {**ok, "wall_s": 700.0}, dry_run=False) is False
    assert gb.judged("closeness", {**ok, "comparable": False}, dry_run=False) is None


def test_verdicts_are_compared_candidate_by_candidate_with_the_record():
    record = gb.read_summary(gb.RECORD_SUMMARY)
    assert record["proto-germanic"]["verdict"] == "closer than chance"
    same = gb.compare_verdicts({k: record[k] for k in ("proto-germanic", "spanish")}, record)
    assert same["verdicts_same"] and same["ranking_same"] and same["max_margin_diff"] == 0.0
    assert same["margins"]["proto-germanic"] == pytest.approx(float(record["proto-germanic"]["margin"]))
    flipped = {"spanish": {**record["spanish"], "verdict": "closer than chance"},
               "proto-germanic": {**record["proto-germanic"], "verdict": "no evidence"}}
    got = gb.compare_verdicts(flipped, record)
    assert not got["verdicts_same"] and not got["ranking_same"]
    assert got["verdicts_differ"] == {"spanish": ["closer than chance", "no evidence"],
                                      "proto-germanic": ["no evidence", "closer than chance"]}


def test_the_comparison_is_closeness_papers_command_on_the_device_with_only_the_candidates_asked(tmp_path):
    args = Namespace(closeness_seeds=[0], closeness_null=1, closeness_steps=2, device="cuda",
                     closeness_candidates=["proto-germanic", "spanish"])
    argv = gb.closeness_argv(tmp_path / "build", tmp_path / "out", args)
    known = argv[argv.index("--known") + 1:argv.index("--preset")]
    assert [kv.split("=")[0] for kv in known] == ["proto-germanic", "spanish"]
    assert "--append-results" not in argv and argv[argv.index("--out") + 1] == str(tmp_path / "out")
    assert argv[-2:] == ["--device", "cuda"] and "--cap-stems" in argv and "--prior" in argv
    args.closeness_candidates = None
    argv = gb.closeness_argv(tmp_path / "build", tmp_path / "out", args)
    assert len(argv[argv.index("--known") + 1:argv.index("--preset")]) == len(AUTHORS) == 9


def test_bad_options_and_absent_data_are_one_line_errors(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        gb.main(["measure", "--closeness-candidates", "proto-germanic", "klingon"])
    assert e.value.code == 2 and "--closeness-candidates" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        gb.main(["measure", "--runs", "0"])
    assert e.value.code == 2 and "--runs must be at least 1" in capsys.readouterr().err
    assert gb.main(["prepare", "--data", str(tmp_path / "none"), "--carry", str(tmp_path / "carry")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "gothic_proiel" in err[0]
    assert not (tmp_path / "carry").exists()


def test_cuda_asked_without_a_gpu_is_refused_in_one_line(capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    assert gb.main(["measure", "--device", "cuda", "--out", os.devnull]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no GPU" in err[0]


def _sample_carry(folder: Path) -> Path:
    """A carry folder whose comparison is the bundled Gothic sample against its own list under every
    candidate's name (the dry run needs no ../shared)."""
    sample = ROOT / "resources" / "sample-gothic"
    (folder / "closeness" / "gothic-wr100").mkdir(parents=True)
    shutil.copy(sample / "lost.csv", folder / "closeness" / "gothic-wr100" / "lost.csv")
    lists = folder / "closeness" / "authors" / "gothic"
    lists.mkdir(parents=True)
    for name in AUTHORS:
        shutil.copy(sample / "known.csv", lists / f"{name}.csv")
    return folder


def _finite(row: dict, *fields: str) -> None:
    for f in fields:
        assert isinstance(row.get(f), (int, float)) and math.isfinite(row[f]) and row[f] > 0, (row["part"], f, row)


@pytest.mark.slow
def test_the_cpu_dry_run_writes_a_row_per_part_with_the_device_named_and_nothing_into_the_results(tmp_path):
    carry = _sample_carry(tmp_path / "carry")
    out = tmp_path / "rows.jsonl"
    before = snapshot()
    argv = [sys.executable, "-m", "benchmarks.gpu_batch", "measure", "--device", "cpu", "--quick",
            "--workload", "sample", "--carry", str(carry), "--out", str(out), "--threads", "1"]
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["part"] for r in rows] == list(gb.PARTS)
    cpu = gb.device_name("cpu")
    for r in rows:
        assert r["status"] == "ok", r
        assert r["device"] == cpu and cpu and r["device_kind"] == "cpu-dryrun" and r["dry_run"] is True
        assert r["meets_target"] is None and r["target"] and "measures nothing" in r["note"]
        assert r["torch"] and r["commit"] and r["command"].startswith("python -m benchmarks.gpu_batch measure")
        _finite(r, "wall_s", "runs", "steps", "run_steps_per_s")
    single, batch, seeds, closeness = rows
    _finite(single, "steps_per_s", "peak_rss_mb")
    assert single["runs"] == 1 and single["steps"] == gb.QUICK["steps"]
    _finite(batch, "steps_per_s", "setup_s")
    assert batch["runs"] == gb.QUICK["runs"] and batch["run_steps"] == batch["runs"] * batch["steps"]
    assert batch["run_steps_per_s"] == pytest.approx(batch["runs"] * batch["steps_per_s"])
    _finite(seeds, "ratio", "one_wall_s")
    assert seeds["ratio"] == pytest.approx(seeds["wall_s"] / seeds["one_wall_s"])
    assert seeds["steps"] == gb.QUICK["seed_steps"] and "--seeds 0 1 2 3 4" in seeds["commands"][1]
    assert closeness["runs"] == closeness["runs_finished"] == 2 * 1 * (1 + gb.QUICK["closeness_null"])
    assert closeness["comparable"] is False and set(closeness["verdicts"]) == set(gb.QUICK["closeness_candidates"])
    assert "--device cpu" in closeness["command_run"]
    assert snapshot() == before      # the dry run wrote nothing into benchmarks/results


def test_the_session_script_refuses_a_bad_mode_no_out_folder_and_a_missing_carry(tmp_path):
    def session(*args, **env):
        environ = {k: v for k, v in os.environ.items() if k != "OUT"}
        return subprocess.run(["bash", str(SESSION), *args], cwd=tmp_path, capture_output=True, text=True,
                              env={**environ, **env}, timeout=60)

    bad = session("everything", OUT=str(tmp_path))
    assert bad.returncode == 2 and "unknown mode" in bad.stderr
    no_out = session()
    assert no_out.returncode == 2 and "OUT is not set" in no_out.stderr
    no_carry = session(OUT=str(tmp_path))        # run from a folder without build/gpu-carry
    assert no_carry.returncode == 2 and "gpu_batch prepare" in no_carry.stderr
    assert len(no_carry.stderr.strip().splitlines()) == 1 and list(tmp_path.iterdir()) == []


@pytest.mark.corpus
@pytest.mark.slow
def test_prepare_builds_the_carry_from_shared_with_the_records_list_sizes(tmp_path):
    if not (SHARED_DATA / "gothic_proiel").exists():
        pytest.skip(f"needs the full corpus {SHARED_DATA / 'gothic_proiel'} (absent on this checkout)")
    carry = tmp_path / "gpu-carry"
    assert gb.main(["prepare", "--carry", str(carry), "--data", str(SHARED_DATA)]) == 0
    assert (carry / "gothic-pg" / "lost.csv").is_file() and (carry / "gothic-pg" / "known.csv").is_file()
    assert gb.closeness_build(carry) == carry / "closeness"
    assert (carry / "site" / "ipapy" / "__init__.py").is_file()
    assert (carry / "COMMIT").read_text().strip() and (carry / "MANIFEST.txt").is_file()
    size = sum(p.stat().st_size for p in carry.rglob("*") if p.is_file())
    assert size < 16 * 2**20            # far inside the device call's 64 MiB with the repository


def test_a_batch_api_that_refuses_the_device_gives_a_refused_row_after_a_probe_of_two(monkeypatch):
    from engine.training import lockstep

    asked = []

    class Refusing:
        def __init__(self, corpus, vocabulary, config, seeds, **kw):
            asked.append(list(seeds))
            raise ValueError("a seed group trains on the CPU (on a GPU, run the seeds as separate runs)")

    monkeypatch.setattr(lockstep, "SeedGroup", Refusing)
    args = Namespace(runs=64, device="cpu", warmup=1, steps=2)
    row = gb.part_batch(args, gb.workload_files("sample", ROOT / "build" / "none"), math.inf)
    assert row["status"] == "refused" and "trains on the CPU" in row["error"] and row["runs"] == 64
    assert asked == [[0, 1]]          # the 64 runs were never built
    assert gb.judged("batch", row, dry_run=False) is False


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_a_command_past_its_time_is_stopped_with_what_it_started(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    script = (f"import pathlib, subprocess, sys, time; p = subprocess.Popen([sys.executable, '-c', "
              f"'import time; time.sleep(120)']); pathlib.Path(r'{pid_file}').write_text(str(p.pid)); time.sleep(120)")
    code, _ = gb.run_command([sys.executable, "-c", script], 5.0, tmp_path / "log")
    assert code is None and "$ " in (tmp_path / "log").read_text()
    if not pid_file.exists():
        pytest.skip("the command had not started its own child within its time (a loaded machine)")
    pid = int(pid_file.read_text())
    for _ in range(100):                       # the orphan is reaped by init soon after it is ended
        if not _alive(pid):
            break
        time.sleep(0.1)
    assert not _alive(pid)


def test_a_part_ended_by_a_signal_stops_the_command_it_started_in_a_session_of_its_own(tmp_path):
    pid_file = tmp_path / "command.pid"
    command = f"import os, pathlib, time; pathlib.Path(r'{pid_file}').write_text(str(os.getpid())); time.sleep(120)"
    part = ("import sys; from benchmarks.gpu_batch import exit_on_terminate, run_command; exit_on_terminate(); "
            f"run_command([sys.executable, '-c', {command!r}], 120.0, __import__('pathlib').Path(r'{tmp_path / 'log'}'))")
    proc = subprocess.Popen([sys.executable, "-c", part], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        for _ in range(600):
            if pid_file.exists() and pid_file.read_text():
                break
            time.sleep(0.1)
        else:
            pytest.fail("the command did not start")
        pid = int(pid_file.read_text())
        proc.terminate()
        assert proc.wait(timeout=60) == 128 + 15
        for _ in range(100):
            if not _alive(pid):
                break
            time.sleep(0.1)
        assert not _alive(pid)
    finally:
        if proc.poll() is None:
            proc.kill()
        if pid_file.exists() and pid_file.read_text() and _alive(int(pid_file.read_text())):
            os.kill(int(pid_file.read_text()), 9)       # a failed test leaves no sleeper behind
