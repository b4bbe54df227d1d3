"""Many runs as one batch on a GPU (issue 50): the four measurements of its "Done when", each in a time
budget, so that one call on a lent H100/H200 makes them all in under 8 minutes.

    python -m benchmarks.gpu_batch prepare                       # HERE, before a GPU session (needs ../shared)
    python -m benchmarks.gpu_batch measure                       # THERE: every part on cuda, default sizes
    python -m benchmarks.gpu_batch measure --part closeness --closeness-steps 3000 --budget-s 520
                                                                 # the full comparison: a call of its own
    python -m benchmarks.gpu_batch measure --device cpu --quick  # the CPU dry run of the same logic

The GPU machine has neither ../shared nor a registry; ``prepare`` builds what it lacks into
build/gpu-carry/ (git-ignored, about 3 MB): the gothic-pg workload's lost and known files, the Gothic
``authors`` comparison's lost text and nine candidate lists (built by benchmarks/closeness_paper.py's own
functions, their sizes checked against benchmarks/results/closeness-list-sizes.csv), the pure-Python
package ipapy that the engine imports and that machine lacks (copied from this environment), and COMMIT
(the tree's commit). benchmarks/gpu_session.sh is the one command line to give the device tool; its
header says how.

The parts (``--part``, default all, in this order; each runs in a process of its own, so that its
peak memory is its own, under a hard timeout):

- ``single``: one gothic-pg run alone, stepped by Trainer.run (the product's step; no evaluation):
  steps/s. Target on an H100/H200: >= 150.
- ``batch``: ``--runs`` gothic-pg runs (seeds 0 .. R-1) trained together through
  engine.training.lockstep.SeedGroup, whatever that API does when this runs (a refusal is recorded as
  such): aggregate run-steps/s = R x group steps / wall. Target: >= 2,000 with R = 64.
- ``seeds``: ``decipher run --seeds 0 1 2 3 4`` against ``decipher run --seed 0`` on gothic-pg, the same
  steps, each a whole command as a user runs it (after a short warm-up command that fills numba's
  on-disk cache): the ratio of their wall times. Target: <= 1.3.
- ``closeness``: the Gothic ``authors`` comparison (benchmarks/closeness_paper.py's command: 9
  candidates x 3 seeds x (1 + 3 nulls) = 108 runs) with ``decipher closeness --device …``, which decides
  itself how to run its runs: wall time, and the verdicts against the CPU record
  (benchmarks/results/closeness-gothic-authors-summary.csv). Target: <= 10 minutes at 3,000 steps with
  the same verdicts. At 3,000 steps it does not fit beside the other parts in one call of 8 minutes
  (the separate runs of today's code would take about 30 minutes: 324,000 run-steps at the ~190
  aggregate steps/s of 16 packed processes), so the all-parts call runs it at ``--closeness-steps``
  (default 100: its wall time only, the verdicts not compared) and the 3,000-step comparison is a call
  of its own (``gpu_session.sh closeness``).

Every part stops its timed steps at its time budget (``--budget-s`` for the whole, split among the
parts) and says so in its row (``stopped_by``). Rows (JSON lines) go to
``--results``/gpu-<kind>/batch.jsonl (kind: h200, h100, … from the device's name; ``cpu-dryrun`` on the
CPU), or to ``--out``: the device's name, torch, the commit (DECIPHER_COMMIT, else git), the command,
steps, wall, steps/s, R, peak memory, the target and whether it is met. On the CPU every row says
``dry_run`` and no target is judged: those numbers test the script, they measure nothing.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import platform
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
CARRY = ROOT / "build" / "gpu-carry"
SAMPLE = ROOT / "resources" / "sample-gothic"
PARTS = ("single", "batch", "seeds", "closeness")
#: the record the comparison's verdicts are checked against, and the steps its runs had
RECORD_SUMMARY = RESULTS / "closeness-gothic-authors-summary.csv"
RECORD_STEPS = 3000
#: issue 50's targets on an H100/H200: (field, "<=" or ">=", value)
TARGETS = {"single": ("steps_per_s", ">=", 150.0), "batch": ("run_steps_per_s", ">=", 2000.0),
           "seeds": ("ratio", "<=", 1.3), "closeness": ("wall_s", "<=", 600.0)}
#: each part's share of --budget-s, and the least it is started with (a part that would get less is
#: skipped, with a row saying so); the closeness gets what the others left
SHARE = {"single": 0.08, "batch": 0.37, "seeds": 0.25, "closeness": 1.0}
LEAST_S = {"single": 20.0, "batch": 40.0, "seeds": 30.0, "closeness": 30.0}
#: seconds a part's process may run past its budget (start-up, the last chunk of steps, the row)
GRACE_S = 25.0
SEEDS = (0, 1, 2, 3, 4)
#: the sizes of the dry run (--quick)
QUICK = {"runs": 3, "steps": 4, "seed_steps": 3, "closeness_steps": 2, "closeness_seeds": [0],
         "closeness_null": 1, "closeness_candidates": ["proto-germanic", "spanish"]}


# ---------------------------------------------------------------------------------------------
# the data (prepare: here; the parts read it there)

def workload_files(workload: str, carry: Path) -> tuple[Path, Path] | None:
    """(lost, known) of a workload, or None when it is not at hand. gothic-pg: the carried copy, else
    benchmarks.speed's own (built from ../shared on first use); sample: the bundled Gothic sample."""
    if workload == "sample":
        return SAMPLE / "lost.csv", SAMPLE / "known.csv"
    for folder in (carry / "gothic-pg", ROOT / "benchmarks" / ".cache" / "gothic-pgm-wr0"):
        if (folder / "lost.csv").is_file() and (folder / "known.csv").is_file():
            return folder / "lost.csv", folder / "known.csv"
    from benchmarks.speed import gothic_pg

    if gothic_pg() is None:          # builds benchmarks/.cache/gothic-pgm-wr0 where ../shared is at hand
        return None
    return workload_files(workload, carry)


def closeness_build(carry: Path) -> Path | None:
    """The folder holding the authors comparison's lost text and lists (closeness_paper's layout):
    the carried copy, else closeness_paper's own build folder; None when neither has them."""
    from benchmarks import closeness_paper as cp

    for build in (carry / "closeness", cp.BUILD):
        names = [c.name for c in cp.candidates("gothic", "authors")]
        if (build / cp.lost_path("gothic", "authors")).is_file() and all(
                cp.candidate_path("gothic", n, "authors", build).is_file() for n in names):
            return build
    return None


def prepare(carry: Path, data: Path) -> int:
    """Build build/gpu-carry/ from ../shared (see the module's text); one line and exit 2 when the data is
    absent or a list is not the size the record's comparison had."""
    from benchmarks import closeness_paper as cp
    from benchmarks.commit import tree_commit
    from engine.datasets.gothic import main as gothic

    if not (data / "gothic_proiel").is_dir():
        print(f"error: {data / 'gothic_proiel'}: no such folder (prepare needs ../shared/data)", file=sys.stderr)
        return 2
    tmp = carry.with_name(carry.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    gothic(["--known", "pgm", "--wr", "0", "--seed", "0", "--data", str(data), "--out", str(tmp / "gothic-pg"),
            "--quiet"])                                       # as benchmarks.speed.gothic_pg builds it
    build = tmp / "closeness"
    gothic(["--known", "pgm", "--wr", "100", "--seed", "0", "--data", str(data), "--out",
            str(build / Path(cp.AUTHORS_LOST).parent), "--quiet"])   # as closeness_paper.prepare_lost does
    folder = cp.prepare("gothic", "authors", build=build, data=data)
    with open(folder / "sizes.csv", encoding="utf-8", newline="") as f:
        built = {r["known"]: r["kept"] for r in csv.DictReader(f)}
    with open(cp.SIZES, encoding="utf-8", newline="") as f:
        recorded = {r["known"]: r["kept"] for r in csv.DictReader(f)
                    if (r["protocol"], r["lost"]) == ("authors", "gothic")}
    if built != recorded:
        print(f"error: {folder / 'sizes.csv'}: the lists' sizes {built} are not the record's "
              f"({cp.SIZES.relative_to(ROOT)}: {recorded})", file=sys.stderr)
        return 2
    import ipapy

    site = tmp / "site"
    site.mkdir()
    source = Path(ipapy.__file__).parent
    shutil.copytree(source, site / "ipapy", ignore=shutil.ignore_patterns("__pycache__"))
    for info in source.parent.glob("ipapy-*.dist-info"):      # its licence and version travel with it
        shutil.copytree(info, site / info.name)
    commit = tree_commit()
    (tmp / "COMMIT").write_text(commit + "\n", encoding="utf-8")
    size = sum(p.stat().st_size for p in tmp.rglob("*") if p.is_file())
    (tmp / "MANIFEST.txt").write_text(
        f"built by: python -m benchmarks.gpu_batch prepare (commit {commit}, {datetime.now(timezone.utc):%Y-%m-%d})\n"
        "gothic-pg/: the gothic-pg workload (engine.datasets.gothic --known pgm --wr 0 --seed 0)\n"
        "closeness/: the authors comparison's lost text (--wr 100) and lists (benchmarks.closeness_paper.prepare)\n"
        f"site/: ipapy {getattr(ipapy, '__version__', '')}, copied from this environment (the GPU machine lacks it)\n"
        f"{size / 2**20:.1f} MiB\n", encoding="utf-8")
    shutil.rmtree(carry, ignore_errors=True)
    tmp.rename(carry)
    shown_carry = carry.relative_to(ROOT).as_posix() if carry.is_relative_to(ROOT) else str(carry)
    print(f"{shown_carry}: {size / 2**20:.1f} MiB, commit {commit} (the device call carries {shown_carry})")
    return 0


# ---------------------------------------------------------------------------------------------
# the device and the rows

def device_name(device: str) -> str:
    if device == "cuda":
        import torch

        return torch.cuda.get_device_name(0)
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "cpu"


def device_kind(device: str, name: str) -> str:
    """A folder-safe short name: h200, h100, a100 … from a GPU's name; cpu-dryrun on the CPU."""
    if device != "cuda":
        return "cpu-dryrun"
    m = re.search(r"\b([A-Z]{1,2}\d{2,4}[A-Z]?)\b", name)
    kind = m.group(1) if m else name
    return re.sub(r"[^a-z0-9._-]+", "-", kind.lower()).strip("-") or "gpu"


def judged(part: str, row: dict, dry_run: bool) -> bool | None:
    """Whether the row meets its part's target; None on a dry run or where the row has no figure."""
    field, op, value = TARGETS[part]
    got = row.get(field)
    if dry_run:
        return None
    if row.get("status") == "refused":                  # the batch API would not run on this device
        return False
    if part == "seeds" and row.get("status") == "timed_out" and row.get("ratio_at_least", 0) > value:
        return False
    if row.get("status") != "ok" or not isinstance(got, (int, float)):
        return None
    if part == "closeness":
        if not row.get("comparable"):
            return None
        return got <= value and bool(row.get("verdicts_same"))
    return got >= value if op == ">=" else got <= value


def peak_cpu_mb(who=resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


class GpuMemory:
    """The GPU's used memory sampled by nvidia-smi every second while a command runs (the largest
    reading, MB), for parts whose work is in other processes; nothing where nvidia-smi is absent."""

    def __init__(self, on: bool):
        self.on = on and shutil.which("nvidia-smi") is not None
        self.peak: float | None = None
        self._stop = threading.Event()

    def _sample(self):
        while not self._stop.is_set():
            try:
                out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                                     capture_output=True, text=True, timeout=10).stdout
                used = max(float(x) for x in out.split())
                self.peak = used if self.peak is None else max(self.peak, used)
            except (OSError, subprocess.SubprocessError, ValueError):
                pass
            self._stop.wait(1.0)

    def __enter__(self):
        if self.on:
            self._thread = threading.Thread(target=self._sample, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        if self.on:
            self._stop.set()
            self._thread.join(timeout=15)


def run_command(argv: list[str], timeout: float, log: Path) -> tuple[int | None, float]:
    """Run a command (its own process group, output to ``log``) for at most ``timeout`` seconds:
    (exit status, or None when it was stopped at the timeout; its wall time)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
           "PYTHONUNBUFFERED": "1"}
    t0 = time.perf_counter()
    with open(log, "ab") as out:
        out.write(("$ " + shlex.join(argv) + "\n").encode())
        out.flush()
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code = proc.wait(timeout=max(1.0, timeout))
        except subprocess.TimeoutExpired:
            code = None
            stop_group(proc)
        except BaseException:       # this process is ended (a signal, Ctrl-C): the command with it
            stop_group(proc)
            raise
    return code, time.perf_counter() - t0


def exit_on_terminate() -> None:
    """SIGTERM ends this process as SystemExit does, so that the commands it started in sessions of their
    own are stopped on the way out (run_command, run_part) rather than left running."""
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


def stop_group(proc: subprocess.Popen) -> None:
    """End a process started with start_new_session and everything in its group (TERM, then KILL 20 s
    later: time for it to stop the commands it started in groups of their own)."""
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def tail(path: Path, lines: int = 6) -> str:
    try:
        return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


# ---------------------------------------------------------------------------------------------
# the parts (each in a process of its own: ``measure --inline PART``; a dict back on stdout)

def _sync(device):
    import torch

    return (lambda: torch.cuda.synchronize(device)) if device.type == "cuda" else (lambda: None)


def _cuda_peak(device, row: dict) -> None:
    import torch

    if device.type == "cuda":
        row["peak_mb"] = round(torch.cuda.max_memory_allocated(device) / 2**20, 1)
        row["peak_reserved_mb"] = round(torch.cuda.max_memory_reserved(device) / 2**20, 1)
    else:
        row["peak_rss_mb"] = round(peak_cpu_mb(), 1)


def timed_events(events, steps: int, warmup: int, deadline: float, sync, chunk: int = 10) -> dict:
    """Consume a training generator's step events: ``warmup`` steps untimed, then up to ``steps``
    timed ones, stopping early once ``deadline`` (perf_counter) has passed (checked, synchronised,
    after every ``chunk`` steps). Returns steps, wall_s, warmup_s, stopped_by."""
    events = iter(events)
    t_warm = time.perf_counter()
    for _ in range(warmup):
        if next(events, None) is None:
            return {"steps": 0, "wall_s": 0.0, "warmup_s": time.perf_counter() - t_warm, "stopped_by": "run ended"}
    sync()
    t0 = time.perf_counter()
    done, stopped_by = 0, "run ended"
    for _ in events:                      # a step's event (or the list of the runs' events)
        done += 1
        if done >= steps:
            stopped_by = "steps"
            break
        if done % chunk == 0:
            sync()
            if time.perf_counter() >= deadline:
                stopped_by = "budget"
                break
    sync()
    return {"steps": done, "wall_s": time.perf_counter() - t0, "warmup_s": t0 - t_warm, "stopped_by": stopped_by}


def _load(files):
    from engine.corpus import Corpus, Vocabulary
    from engine.io.tables import read_known, read_lost

    lost, known = files
    return Corpus("gothic", tuple(read_lost(lost))), Vocabulary("pgm", tuple(read_known(known)))


def _step_events(gen):
    from engine.results import StepEvent

    return (ev for ev in gen if isinstance(ev, StepEvent))


def part_single(args, files, deadline: float) -> dict:
    import torch

    from engine.config import Config
    from engine.training.trainer import Trainer

    corpus, vocab = _load(files)
    t0 = time.perf_counter()
    trainer = Trainer(corpus, vocab, Config(device=args.device, seed=0, eval_interval=0), live_interval=None)
    row = {"runs": 1, "setup_s": time.perf_counter() - t0, "api": "Trainer.run"}
    total = args.warmup + args.steps + 1       # more than are timed: the run's own end is never reached
    gen = trainer.run(total)
    try:
        row.update(timed_events(_step_events(gen), args.steps, args.warmup, deadline, _sync(trainer.device)))
    finally:
        gen.close()
    row["steps_per_s"] = row["steps"] / row["wall_s"] if row["wall_s"] > 0 else None
    row["run_steps_per_s"] = row["steps_per_s"]
    row["threads"] = torch.get_num_threads()
    _cuda_peak(trainer.device, row)
    return row


def part_batch(args, files, deadline: float) -> dict:
    import torch

    from engine.config import Config
    from engine.training import lockstep

    corpus, vocab = _load(files)
    R = args.runs
    row = {"runs": R, "api": "engine.training.lockstep.SeedGroup",
           "engine_batch_api": sorted(n for n in ("RunBatch", "SeedGroup", "plan_batches", "train_sessions")
                                      if hasattr(lockstep, n))}
    config = Config(device=args.device, eval_interval=0)
    t0 = time.perf_counter()
    try:
        if R > 2:       # a group of two first: a refusal then costs two runs' set-up, not R's
            lockstep.SeedGroup(corpus, vocab, config, [0, 1])
            row["probe_s"] = time.perf_counter() - t0
            t0 = time.perf_counter()
        group = lockstep.SeedGroup(corpus, vocab, config, list(range(R)))
    except Exception as e:     # the code before issue 50 refuses a GPU ("a seed group trains on the CPU")
        row.update(status="refused", setup_s=time.perf_counter() - t0, error=f"{type(e).__name__}: {e}")
        return row
    row["setup_s"] = time.perf_counter() - t0
    device = group.trainers[0].device
    gen = group.run(args.warmup + args.steps + 1)
    try:
        row.update(timed_events(gen, args.steps, args.warmup, deadline, _sync(device), chunk=2))
    finally:
        gen.close()
    row["steps_per_s"] = row["steps"] / row["wall_s"] if row["wall_s"] > 0 else None     # per run
    row["run_steps"] = R * row["steps"]
    row["run_steps_per_s"] = R * row["steps_per_s"] if row["steps_per_s"] else None
    row["threads"] = torch.get_num_threads()
    _cuda_peak(device, row)
    return row


def part_seeds(args, files, deadline: float) -> dict:
    lost, known = files
    work = Path(tempfile.mkdtemp(prefix="gpu-batch-seeds-"))
    log = work / "commands.log"
    base = [sys.executable, "-m", "engine.cli", "run", "--lost", str(lost), "--known", str(known),
            "--device", args.device, "--quiet"]
    one = base + ["--steps", str(args.seed_steps), "--seed", "0", "--out", str(work / "one")]
    five = base + ["--steps", str(args.seed_steps), "--seeds", *map(str, SEEDS), "--out", str(work / "five")]
    row = {"seeds": len(SEEDS), "runs": len(SEEDS), "steps": args.seed_steps,
           "commands": [shown(c, work) for c in (one, five)]}
    try:
        with GpuMemory(args.device == "cuda") as gpu:
            if not args.quick:      # numba's on-disk cache filled first, so that neither command pays for it
                code, row["warmup_s"] = run_command(base + ["--steps", "2", "--seed", "0", "--out", str(work / "warm")],
                                                    deadline - time.perf_counter(), log)
                if code != 0:
                    return {**row, "status": "failed", "error": "the warm-up command " + _ended(code),
                            "log": tail(log)}
            code, row["one_wall_s"] = run_command(one, deadline - time.perf_counter(), log)
            if code != 0:
                return {**row, "status": "failed" if code else "timed_out",
                        "error": "the one-seed command " + _ended(code), "log": tail(log)}
            code, row["wall_s"] = run_command(five, deadline - time.perf_counter(), log)
        if code is None:
            # stopped at the budget: the ratio is at least this
            row.update(status="timed_out", ratio_at_least=row["wall_s"] / row["one_wall_s"],
                       seeds_finished=len(list((work / "five").glob("seed-*/metrics.json"))))
            return row
        if code != 0:
            return {**row, "status": "failed", "error": "the five-seed command " + _ended(code), "log": tail(log)}
        row["ratio"] = row["wall_s"] / row["one_wall_s"]
        row["steps_per_s"] = args.seed_steps / row["one_wall_s"]               # whole command, one seed
        row["run_steps_per_s"] = len(SEEDS) * args.seed_steps / row["wall_s"]
        row["peak_gpu_used_mb"] = gpu.peak
        if args.device != "cuda":
            row["peak_rss_mb"] = round(peak_cpu_mb(resource.RUSAGE_CHILDREN), 1)
        return row
    finally:
        shutil.rmtree(work, ignore_errors=True)


def shown(argv: list[str], work: Path) -> str:
    """A ``python -m engine.cli …`` command as ``decipher …``, with the repository and the scratch folder
    written short."""
    return "decipher " + shlex.join(argv[3:]).replace(str(work), "TMP").replace(str(ROOT) + "/", "")


def _ended(code: int | None) -> str:
    return "was stopped at the time budget" if code is None else f"exited with status {code}"


def closeness_argv(build: Path, out: Path, args) -> list[str]:
    """benchmarks.closeness_paper's command of the authors comparison (its candidates, settings, prior and
    list cap), reading the lists from ``build``, into ``out``, on ``args.device``; only the candidates
    of ``--closeness-candidates`` when given; nothing appended to a results file."""
    from benchmarks import closeness_paper as cp

    argv = cp.command("gothic", "authors", seeds=args.closeness_seeds, n_null=args.closeness_null,
                      steps=args.closeness_steps, build=build, runs=out.parent)
    i = argv.index("--append-results")
    del argv[i:i + 2]
    if args.closeness_candidates:
        a = b = argv.index("--known") + 1
        while b < len(argv) and not argv[b].startswith("--"):
            b += 1
        argv[a:b] = [kv for kv in argv[a:b] if kv.split("=", 1)[0] in args.closeness_candidates]
    k = argv.index("--out")
    argv[k + 1] = str(out)
    return argv + ["--device", args.device]


def read_summary(path: Path) -> dict[str, dict]:
    with open(path, encoding="utf-8", newline="") as f:
        return {r["known"]: r for r in csv.DictReader(f)}


def compare_verdicts(got: dict[str, dict], record: dict[str, dict]) -> dict:
    """The comparison's verdicts against the record's, candidate by candidate (the candidates of ``got``)."""
    differs = {k: [r["verdict"], record.get(k, {}).get("verdict")] for k, r in got.items()
               if r["verdict"] != record.get(k, {}).get("verdict")}
    margins = [abs(float(r["margin"]) - float(record[k]["margin"])) for k, r in got.items()
               if k in record and r.get("margin") not in (None, "") and record[k].get("margin") not in (None, "")]
    ranking, record_ranking = list(got), [k for k in record if k in got]
    return {"verdicts": {k: r["verdict"] for k, r in got.items()},
            "margins": {k: float(r["margin"]) if r.get("margin") not in (None, "") else None for k, r in got.items()},
            "verdicts_same": not differs,
            "verdicts_differ": differs, "ranking": ranking, "record_ranking": record_ranking,
            "ranking_same": ranking == record_ranking, "max_margin_diff": max(margins) if margins else None}


def part_closeness(args, files, deadline: float) -> dict:
    from benchmarks import closeness_paper as cp

    build = closeness_build(args.carry)
    if build is None:
        return {"status": "skipped", "note": f"no authors comparison data in {args.carry / 'closeness'} or "
                                             f"{cp.BUILD} (run `python -m benchmarks.gpu_batch prepare` first)"}
    names = args.closeness_candidates or [c.name for c in cp.candidates("gothic", "authors")]
    planned = len(names) * len(args.closeness_seeds) * (1 + args.closeness_null)
    work = Path(tempfile.mkdtemp(prefix="gpu-batch-closeness-"))
    out = work / "closeness-gothic-authors"
    argv = [sys.executable, "-m", "engine.cli", *closeness_argv(build, out, args)]
    full = (args.closeness_steps == RECORD_STEPS and not args.closeness_candidates
            and list(args.closeness_seeds) == [0, 1, 2] and args.closeness_null == 3)
    row = {"workload": f"the Gothic authors comparison ({build.relative_to(ROOT) if build.is_relative_to(ROOT) else build})",
           "runs": planned, "steps": args.closeness_steps, "candidates": names,
           "command_run": shown(argv, work),
           "comparable": full,
           "comparable_note": None if full else f"not the record's comparison ({RECORD_STEPS} steps, 9 candidates, "
                                                "3 seeds, 3 nulls): its verdicts are not the target's"}
    try:
        with GpuMemory(args.device == "cuda") as gpu:
            code, row["wall_s"] = run_command(argv, deadline - time.perf_counter(), work / "closeness.log")
        row["runs_finished"] = len(list(out.glob("*/*/seed-*/metrics.json")))
        row["peak_gpu_used_mb"] = gpu.peak
        if args.device != "cuda":
            row["peak_rss_mb"] = round(peak_cpu_mb(resource.RUSAGE_CHILDREN), 1)
        if code is None:
            row["status"] = "timed_out"
            if row["runs_finished"]:
                row["wall_s_projected"] = row["wall_s"] * planned / row["runs_finished"]
            return row
        if code != 0 or not (out / "summary.csv").is_file():
            return {**row, "status": "failed", "error": f"decipher closeness {_ended(code)}",
                    "log": tail(work / "closeness.log")}
        row["run_steps_per_s"] = planned * args.closeness_steps / row["wall_s"]
        row.update(compare_verdicts(read_summary(out / "summary.csv"), read_summary(RECORD_SUMMARY)))
        return row
    finally:
        shutil.rmtree(work, ignore_errors=True)


PART_FUNCTIONS = {"single": part_single, "batch": part_batch, "seeds": part_seeds, "closeness": part_closeness}


def inline(args) -> int:
    """One part in this process; its row (a JSON object) is the last line on stdout."""
    exit_on_terminate()
    deadline = time.perf_counter() + args.part_budget_s
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    files = None if args.inline == "closeness" else workload_files(args.workload, args.carry)
    if files is None and args.inline != "closeness":
        row = {"status": "skipped", "note": f"no {args.workload} data (needs ../shared/data/gothic_proiel or "
                                            f"{args.carry / 'gothic-pg'})"}
    else:
        row = PART_FUNCTIONS[args.inline](args, files, deadline)
    row.setdefault("status", "ok")
    print(json.dumps(row, default=float))
    return 0


# ---------------------------------------------------------------------------------------------
# the whole

def part_argv(part: str, args, budget: float) -> list[str]:
    argv = [sys.executable, "-m", "benchmarks.gpu_batch", "measure", "--inline", part, "--part-budget-s",
            f"{budget:.1f}", "--device", args.device, "--workload", args.workload, "--carry", str(args.carry),
            "--runs", str(args.runs), "--steps", str(args.steps), "--warmup", str(args.warmup),
            "--seed-steps", str(args.seed_steps), "--closeness-steps", str(args.closeness_steps),
            "--closeness-seeds", *map(str, args.closeness_seeds), "--closeness-null", str(args.closeness_null)]
    if args.quick:
        argv.append("--quick")
    if args.closeness_candidates:
        argv += ["--closeness-candidates", *args.closeness_candidates]
    if args.threads:
        argv += ["--threads", str(args.threads)]
    return argv


def measure(args, argv_given: list[str]) -> int:
    import torch

    if args.device == "cuda" and not torch.cuda.is_available():
        print("error: --device cuda but torch sees no GPU here (the CPU dry run: --device cpu --quick)",
              file=sys.stderr)
        return 2
    name = device_name(args.device)
    kind = device_kind(args.device, name)
    out = args.out or (args.results / f"gpu-{kind}" / "batch.jsonl")
    from benchmarks.commit import tree_commit

    import numba

    common = {"device": name, "device_kind": kind, "dry_run": args.device != "cuda", "torch": torch.__version__,
              "numba": numba.__version__, "commit": os.environ.get("DECIPHER_COMMIT") or tree_commit(),
              "command": shlex.join(["python", "-m", "benchmarks.gpu_batch", *argv_given]),
              "workload": args.workload, "cpus": os.cpu_count()}
    if args.device != "cuda":
        common["note"] = "a dry run of the script on the CPU at small sizes: it tests the script, it measures nothing"
    out.parent.mkdir(parents=True, exist_ok=True)
    exit_on_terminate()
    t_start = time.perf_counter()
    end = t_start + args.budget_s
    parts = [p for p in PARTS if p in args.part]
    rows = []
    for i, part in enumerate(parts):
        left = end - time.perf_counter()
        later = sum(LEAST_S[p] for p in parts[i + 1:])
        budget = left - later if part == "closeness" or i == len(parts) - 1 else min(SHARE[part] * args.budget_s,
                                                                                     left - later)
        date = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        if budget < LEAST_S[part] * (0.1 if args.quick else 1.0):
            row = {"status": "skipped", "note": f"{budget:.0f} s of the budget left for it"}
        else:
            row = run_part(part, args, budget)
        row = {"part": part, **common, "date": date, "budget_s": round(budget, 1), **row}
        if part in ("single", "batch"):
            row.setdefault("steps_asked", args.steps)
        field, op, value = TARGETS[part]
        row["target"] = f"{field} {op} {value:g}" + (" with the record's verdicts, at 3000 steps" if part == "closeness"
                                                     else f" with {64} runs" if part == "batch" else "")
        row["meets_target"] = judged(part, row, common["dry_run"])
        rows.append(row)
        with open(out, "a", encoding="utf-8") as f:
            f.write(json.dumps(row, ensure_ascii=False, default=float) + "\n")
        print(summary_line(row), flush=True)
    print(f"{len(rows)} rows -> {out} ({time.perf_counter() - t_start:.0f} s)", flush=True)
    return 0 if all(r["status"] in ("ok", "skipped", "refused", "timed_out") for r in rows) else 1


def run_part(part: str, args, budget: float) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.Popen(part_argv(part, args, budget), cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    t0 = time.perf_counter()
    try:
        stdout, stderr = proc.communicate(timeout=budget + GRACE_S)
    except subprocess.TimeoutExpired:
        stop_group(proc)
        stdout, stderr = proc.communicate()
        return {"status": "timed_out", "wall_s": time.perf_counter() - t0,
                "note": f"the part's process was stopped {GRACE_S:.0f} s after its budget", "log": stderr[-1500:]}
    except BaseException:           # this process is ended: the part's process with it
        stop_group(proc)
        raise
    lines = [x for x in stdout.splitlines() if x.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"status": "failed", "error": f"the part's process exited with status {proc.returncode}",
                "log": stderr[-1500:]}
    return json.loads(lines[-1])


def summary_line(row: dict) -> str:
    part, status = row["part"], row["status"]
    if status != "ok":
        why = row.get("error") or row.get("note") or ""
        return f"{part}: {status} {why}".rstrip()
    figures = {"single": lambda r: f"{r['steps_per_s']:.1f} steps/s ({r['steps']} steps, {r['wall_s']:.1f} s)",
               "batch": lambda r: f"{r['runs']} runs: {r['run_steps_per_s']:.0f} run-steps/s aggregate "
                                  f"({r['steps']} steps, {r['wall_s']:.1f} s; set-up {r['setup_s']:.0f} s)",
               "seeds": lambda r: f"5 seeds {r['wall_s']:.1f} s, one seed {r['one_wall_s']:.1f} s: ratio {r['ratio']:.2f}",
               "closeness": lambda r: f"{r['runs']} runs of {r['steps']} steps in {r['wall_s']:.0f} s; verdicts "
                                      f"{'as' if r.get('verdicts_same') else 'NOT as'} the record's"
                                      + ("" if r.get("comparable") else " (not comparable: a smaller comparison)")}
    judged_text = {True: "meets", False: "misses", None: "not judged"}[row.get("meets_target")]
    try:
        figure = figures[part](row)
    except (KeyError, TypeError, ValueError):        # a figure the row lacks (no timed step)
        figure = f"{row.get('steps')} steps in {row.get('wall_s')} s"
    return f"{part}: {figure} | target {row['target']}: {judged_text}"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(prog="python -m benchmarks.gpu_batch", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    pr = sub.add_parser("prepare", help="build what the GPU machine lacks into --carry (from ../shared)")
    pr.add_argument("--carry", type=Path, default=CARRY)
    pr.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    kd = sub.add_parser("kind", help="print the folder name of this machine's rows (gpu-h200, gpu-cpu-dryrun, …)")
    kd.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    m = sub.add_parser("measure", help="the measurements (see the module's text)")
    m.add_argument("--part", action="append", choices=PARTS, help="default: all, in the order single batch seeds "
                                                                  "closeness")
    m.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    m.add_argument("--quick", action="store_true", help="the dry run's sizes: " + ", ".join(
        f"{k.replace('_', '-')} {' '.join(map(str, v)) if isinstance(v, list) else v}" for k, v in QUICK.items()))
    m.add_argument("--runs", type=int, help="runs batched in the batch part (default 64)")
    m.add_argument("--steps", type=int, help="timed steps of the single and batch parts, at most (default 500)")
    m.add_argument("--warmup", type=int, default=None, help="untimed steps first (default 5; quick 1)")
    m.add_argument("--seed-steps", type=int, help="steps of each `decipher run` of the seeds part (default 300)")
    m.add_argument("--closeness-steps", type=int, help="steps of every run of the comparison (default 100; the "
                                                       f"record's: {RECORD_STEPS})")
    m.add_argument("--closeness-seeds", type=int, nargs="+")
    m.add_argument("--closeness-null", type=int)
    m.add_argument("--closeness-candidates", nargs="+", metavar="NAME",
                   help="only these of the comparison's candidates (default: all nine)")
    m.add_argument("--budget-s", type=float, help="seconds for all the parts together (default 360 on cuda, 900 on "
                                                  "the CPU); each stops its timed steps at its share")
    m.add_argument("--workload", choices=["gothic-pg", "sample"], default="gothic-pg",
                   help="the runs' data for single, batch and seeds (sample: the bundled Gothic sample, for tests)")
    m.add_argument("--threads", type=int, help="torch threads of the in-process parts (default: torch's)")
    m.add_argument("--carry", type=Path, default=CARRY, help="what `prepare` built (default build/gpu-carry)")
    m.add_argument("--results", type=Path, default=RESULTS, help="rows go to RESULTS/gpu-<kind>/batch.jsonl")
    m.add_argument("--out", type=Path, help="rows go to this file instead")
    m.add_argument("--inline", choices=PARTS, help=argparse.SUPPRESS)
    m.add_argument("--part-budget-s", type=float, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.what == "prepare":
        return prepare(args.carry.resolve(), args.data)
    if args.what == "kind":
        if args.device == "cuda":
            import torch

            if not torch.cuda.is_available():
                print("error: --device cuda but torch sees no GPU here", file=sys.stderr)
                return 2
        print("gpu-" + device_kind(args.device, device_name(args.device)))
        return 0
    quick = QUICK if args.quick else {}
    defaults = {"runs": 64, "steps": 500, "seed_steps": 300, "closeness_steps": 100, "closeness_seeds": [0, 1, 2],
                "closeness_null": 3, "closeness_candidates": None}
    for key, value in defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, quick.get(key, value))
    if args.budget_s is None:
        args.budget_s = 360.0 if args.device == "cuda" else 900.0
    if args.warmup is None:
        args.warmup = 1 if args.quick else 5
    args.part = args.part or list(PARTS)
    for key in ("runs", "steps", "warmup", "seed_steps", "closeness_steps"):
        if getattr(args, key) < (0 if key == "warmup" else 1):
            p.error(f"--{key.replace('_', '-')} must be at least {0 if key == 'warmup' else 1}")
    if args.closeness_null < 0 or args.budget_s <= 0:
        p.error("--closeness-null must be at least 0 and --budget-s above 0")
    if args.closeness_candidates:
        from benchmarks import closeness_paper as cp

        known = [c.name for c in cp.candidates("gothic", "authors")]
        unknown = [n for n in args.closeness_candidates if n not in known]
        if unknown or len(args.closeness_candidates) < 2:
            p.error(f"--closeness-candidates: two or more of {', '.join(known)}")
    args.carry = args.carry.resolve()
    if args.inline:
        return inline(args)
    return measure(args, argv)


if __name__ == "__main__":
    sys.exit(main())
