"""The cost of a ``signs = syllables`` training step against a ``signs = letters`` step on the same
text (issue 25, "Cost"), and steps/s and peak memory of a short ``--preset linear-b`` run.

    nice -n 10 python -m benchmarks.syllable_cost                       # both texts + the 200-step run
    python -m benchmarks.syllable_cost --data synthetic --reps 3 --no-full --out /tmp/c.jsonl

Side by side: for each text (``linear-b``: the Linear B–Greek cognates imported with
``decipher import-cog ... --system greek``; ``synthetic``: ``decipher dataset synthetic-syllabary
--seed 3``, its segmented cognates) two trainers are built in one process with the preset
``linear-b``'s settings, one with ``signs = syllables`` and one with ``signs = letters`` (the only
difference; same corpus, vocabulary and seed, so the same batches). After ``--warmup`` steps each
(numba compiles), ``--reps`` repetitions each run ``--block`` steps of one arm then of the other,
the order alternating (A B, B A, ...) so that the shared box's load falls on both. Each step is
timed by the wall clock and by the process's CPU time (one torch thread, so CPU time is the work
and is less moved by other processes). Every repetition is written, then a summary per text: the
median step of each arm over all steps and their ratio (target: at most 2).

The full run: ``decipher run --preset linear-b --steps N`` (default 200) on Linear B in a child
process; its metrics.json's steps/s and wall time, and the child's peak RSS (wait4).

One JSON object a line to ``--out`` (default benchmarks/results/syllables/cost.jsonl, appended),
each with the commit and the machine. Only public entry points: the CLI and engine.training.trainer.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Sequence

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DECIPHER_SHARED_DATA", ROOT.parent / "shared" / "data"))
CACHE = ROOT / "benchmarks" / ".cache" / "syllables"
RESULTS = ROOT / "benchmarks" / "results" / "syllables"
LINEAR_B_COG = SHARED / "linear_b" / "linear_b-greek.cog"
TARGET = 2.0


class BenchError(Exception):
    """One line for the user (exit status 2)."""
DATA = ("linear-b", "synthetic")


# ------------------------------------------------------------------------------------------
# the machine and the commit

def machine() -> dict:
    model = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "cpu_model": model, "python": platform.python_version()}


def commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True).stdout.strip()
        return out.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# ------------------------------------------------------------------------------------------
# data, through the CLI

def cli(args: Sequence[str], env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def ensure_data(name: str, cache: Path = CACHE) -> Path:
    """The folder with lost.csv, known.csv and gold.csv of ``name``, built through the CLI once."""
    if name == "linear-b":
        out = cache / "linb"
        if not (out / "gold.csv").exists():
            if not LINEAR_B_COG.exists():
                raise BenchError(f"{LINEAR_B_COG}: file not found (needs ../shared/data)")
            r = cli(["import-cog", str(LINEAR_B_COG), "--system", "greek", "--out", str(out)])
            if r.returncode:
                raise BenchError(f"importing {LINEAR_B_COG} failed: {r.stderr.strip()}")
        return out
    if name == "synthetic":
        out = cache / "synthetic-syllabary-3"
        if not (out / "cognates" / "gold.csv").exists():
            r = cli(["dataset", "synthetic-syllabary", "--seed", "3", "--out", str(out)])
            if r.returncode:
                raise BenchError(f"building the synthetic syllabary failed: {r.stderr.strip()}")
        return out / "cognates"
    raise ValueError(name)


def make_trainer(data: Path, signs: str, seed: int = 0):
    """A trainer of the preset linear-b with ``signs`` flipped, as ``decipher run`` builds one."""
    from engine.config import PRESETS, Config
    from engine.corpus import Corpus, Vocabulary
    from engine.io.tables import read_gold, read_known, read_lost
    from engine.training.trainer import Trainer

    inscriptions = read_lost(data / "lost.csv")
    stems = read_known(data / "known.csv")
    gold = read_gold(data / "gold.csv", inscriptions=inscriptions)
    # one start: the benchmark times training steps, and a step of a screened start is the same step
    settings = {**PRESETS["linear-b"], "signs": signs, "seed": seed, "eval_interval": 0, "steps": 10_000_000,
                "restarts": 1}
    return Trainer(Corpus(data.name, tuple(inscriptions)), Vocabulary("known", tuple(stems)),
                   Config.from_dict(settings), gold=gold, live_interval=None)


# ------------------------------------------------------------------------------------------
# side by side

class Arm:
    """One trainer stepped one step at a time through its public run loop."""

    def __init__(self, trainer):
        self.trainer = trainer
        self.events = trainer.run()

    def step(self) -> tuple[float, float]:
        """One training step: (wall seconds, CPU seconds)."""
        w0, c0 = time.perf_counter(), time.process_time()
        event = next(self.events)
        w1, c1 = time.perf_counter(), time.process_time()
        if type(event).__name__ != "StepEvent":
            raise RuntimeError(f"expected a training step, got {type(event).__name__}")
        return w1 - w0, c1 - c0


def side_by_side(data_name: str, data: Path, *, reps: int, block: int, warmup: int,
                 make: Callable[[Path, str], object] = make_trainer) -> list[dict]:
    arms = {signs: Arm(make(data, signs)) for signs in ("letters", "syllables")}
    for arm in arms.values():
        for _ in range(warmup):
            arm.step()
    rows = []
    all_times: dict[str, dict[str, list[float]]] = {s: {"wall": [], "cpu": []} for s in arms}
    for rep in range(reps):
        order = ("letters", "syllables") if rep % 2 == 0 else ("syllables", "letters")
        for position, signs in enumerate(order):
            times = [arms[signs].step() for _ in range(block)]
            wall = [1000 * w for w, _ in times]
            cpu = [1000 * c for _, c in times]
            all_times[signs]["wall"] += wall
            all_times[signs]["cpu"] += cpu
            rows.append({"kind": "block", "data": data_name, "rep": rep, "position": position, "signs": signs,
                         "steps": block, "step_ms_median": round(statistics.median(wall), 2),
                         "cpu_ms_median": round(statistics.median(cpu), 2),
                         "step_ms": [round(x, 2) for x in wall], "cpu_ms": [round(x, 2) for x in cpu]})
    per_rep = []
    for rep in range(reps):
        med = {r["signs"]: r for r in rows if r["rep"] == rep}
        per_rep.append(round(med["syllables"]["step_ms_median"] / med["letters"]["step_ms_median"], 3))
    lw, sw = statistics.median(all_times["letters"]["wall"]), statistics.median(all_times["syllables"]["wall"])
    lc, sc = statistics.median(all_times["letters"]["cpu"]), statistics.median(all_times["syllables"]["cpu"])
    rows.append({"kind": "summary", "data": data_name, "reps": reps, "block": block, "warmup": warmup,
                 "letters_step_ms": round(lw, 2), "syllables_step_ms": round(sw, 2), "ratio": round(sw / lw, 3),
                 "letters_cpu_ms": round(lc, 2), "syllables_cpu_ms": round(sc, 2), "ratio_cpu": round(sc / lc, 3),
                 "ratio_per_rep": per_rep, "target": TARGET, "within_target": sw / lw <= TARGET})
    return rows


# ------------------------------------------------------------------------------------------
# the short full run

def full_run(data: Path, steps: int, threads: int) -> dict:
    """``decipher run --preset linear-b --steps STEPS`` in a child process: its metrics and peak RSS."""
    with tempfile.TemporaryDirectory(prefix="sylcost-") as tmp:
        out = Path(tmp) / "run"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": str(threads),
               "NUMBA_NUM_THREADS": str(threads)}
        cmd = [sys.executable, "-m", "engine.cli", "run", "--lost", str(data / "lost.csv"),
               "--known", str(data / "known.csv"), "--gold", str(data / "gold.csv"), "--preset", "linear-b",
               "--steps", str(steps), "--seed", "0", "--quiet", "--out", str(out)]
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        stderr = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
        wall = time.perf_counter() - t0
        if proc.returncode:
            raise BenchError(f"the {steps}-step run failed: {stderr.strip()[-500:]}")
        m = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    return {"kind": "full-run", "data": "linear-b", "preset": "linear-b", "steps": m.get("steps"),
            "torch_threads": threads, "steps_per_s": m.get("steps_per_s"), "train_wall_s": m.get("wall_time_s"),
            "process_wall_s": round(wall, 1), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "peak_memory_mb_metrics": m.get("peak_memory_mb"), "p_at_1": m.get("p_at_1"),
            "signs_standard": m.get("signs_standard")}


# ------------------------------------------------------------------------------------------

def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", nargs="+", choices=DATA, default=list(DATA), help="texts to compare on")
    p.add_argument("--reps", type=int, default=7, help="repetitions (each: a block of each arm)")
    p.add_argument("--block", type=int, default=10, help="steps of one arm in a repetition")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps of each arm first")
    p.add_argument("--full-steps", type=int, default=200, help="steps of the full linear-b run")
    p.add_argument("--full-threads", type=int, default=2, help="torch threads of the full run (the box: 2)")
    p.add_argument("--no-full", action="store_true", help="skip the full linear-b run")
    p.add_argument("--cache", type=Path, default=CACHE, help="where the imported texts are kept")
    p.add_argument("--out", type=Path, default=RESULTS / "cost.jsonl", help="append the JSON lines here")
    a = p.parse_args(argv)
    if min(a.reps, a.block) < 1 or a.warmup < 0 or a.full_steps < 1:
        print("syllable_cost: --reps and --block must be at least 1, --warmup at least 0", file=sys.stderr)
        return 2

    import torch
    torch.set_num_threads(1)
    head = {"commit": commit(), "machine": machine(), "torch_threads": 1,
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    a.out.parent.mkdir(parents=True, exist_ok=True)

    def emit(row: dict) -> None:
        row = {**head, **row}
        print(json.dumps({k: v for k, v in row.items() if k not in ("step_ms", "cpu_ms", "machine")}), flush=True)
        with open(a.out, "a", encoding="utf-8") as f:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")

    try:
        datas = {name: ensure_data(name, a.cache) for name in {*a.data, *(() if a.no_full else ("linear-b",))}}
        for name in a.data:
            for row in side_by_side(name, datas[name], reps=a.reps, block=a.block, warmup=a.warmup):
                emit(row)
        if not a.no_full:
            emit(full_run(datas["linear-b"], a.full_steps, a.full_threads))
    except BenchError as e:
        print(f"syllable_cost: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
