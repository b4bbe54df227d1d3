"""Runs packed on one GPU: N training processes of the gothic-pg workload at once on one CUDA device.

    python -m benchmarks.gpu_pack --runs 1 5 16 --steps 300          # on a GPU machine
    python -m benchmarks.gpu_pack --device cpu --runs 1 2 --steps 20  # the same logic on the CPU

For each N, N child processes each build the gothic-pg trainer (seed = its index), warm up
(numba compilation, CUDA graph capture), wait until every child is ready, then time ``--steps``
ordinary training steps (the steps Trainer.run takes, without events). While every child is still
alive the parent reads each process's GPU memory from nvidia-smi (the CUDA context included).

A row per N (JSON lines, ``--out``): steps/s of each run (median), the aggregate run-steps/s
(N x steps / the slowest child's wall time), the speed-up over one run alone, the peak memory
torch allocated per run and the memory nvidia-smi shows per process.
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

from benchmarks.commit import short_commit

ROOT = Path(__file__).resolve().parent.parent


def child(args) -> int:
    import torch

    torch.set_num_threads(1)
    from benchmarks.speed import gothic_pg, single_steps
    from engine.config import Config
    from engine.training.trainer import Trainer

    data = gothic_pg()
    if data is None:
        print(json.dumps({"skipped": "no gothic-pg data"}))
        return 0
    trainer = Trainer(*data, Config(device=args.device, seed=args.index), live_interval=None)
    single_steps(trainer, 5)                                      # warm-up: compilation, graph capture
    dev = trainer.device
    sync = (lambda: torch.cuda.synchronize(dev)) if dev.type == "cuda" else (lambda: None)
    sync()
    folder = Path(args.folder)
    (folder / f"ready-{args.index}").write_text("1")
    while not (folder / "go").exists():
        time.sleep(0.01)
    t0 = time.perf_counter()
    single_steps(trainer, args.steps)
    sync()
    wall = time.perf_counter() - t0
    row = {"index": args.index, "pid": os.getpid(), "steps": args.steps, "wall_s": wall,
           "steps_per_s": args.steps / wall}
    if dev.type == "cuda":
        row["torch_peak_allocated_mb"] = torch.cuda.max_memory_allocated(dev) / 2**20
        row["torch_peak_reserved_mb"] = torch.cuda.max_memory_reserved(dev) / 2**20
    (folder / f"result-{args.index}.json").write_text(json.dumps(row))
    while not (folder / "done").exists():                        # stay alive for nvidia-smi
        time.sleep(0.05)
    return 0


def smi_memory() -> dict[int, float]:
    try:
        out = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    mem = {}
    for line in out.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 2 and parts[0].isdigit():
            try:
                mem[int(parts[0])] = float(parts[1])
            except ValueError:
                pass
    return mem


def pack(n: int, args, folder: Path) -> dict:
    folder.mkdir(parents=True)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    procs = [subprocess.Popen([sys.executable, "-m", "benchmarks.gpu_pack", "--child", "--index", str(i),
                               "--device", args.device, "--steps", str(args.steps), "--folder", str(folder)],
                              cwd=ROOT, env=env) for i in range(n)]
    t_start = time.perf_counter()
    while sum((folder / f"ready-{i}").exists() for i in range(n)) < n:
        if any(p.poll() not in (None, 0) for p in procs):
            raise SystemExit("a child failed before it was ready")
        time.sleep(0.05)
    ready_s = time.perf_counter() - t_start
    (folder / "go").write_text("1")
    while sum((folder / f"result-{i}.json").exists() for i in range(n)) < n:
        if any(p.poll() not in (None, 0) for p in procs):
            raise SystemExit("a child failed while timing")
        time.sleep(0.05)
    smi = smi_memory() if args.device == "cuda" else {}
    (folder / "done").write_text("1")
    for p in procs:
        p.wait(timeout=60)
    rows = [json.loads((folder / f"result-{i}.json").read_text()) for i in range(n)]
    slowest = max(r["wall_s"] for r in rows)
    out = {"runs": n, "steps": args.steps, "device": args.device,
           "run_steps_per_s_median": statistics.median(r["steps_per_s"] for r in rows),
           "aggregate_steps_per_s": n * args.steps / slowest, "slowest_wall_s": slowest,
           "start_to_ready_s": ready_s}
    if args.device == "cuda":
        out["torch_peak_allocated_mb_per_run"] = statistics.median(r["torch_peak_allocated_mb"] for r in rows)
        out["torch_peak_reserved_mb_per_run"] = statistics.median(r["torch_peak_reserved_mb"] for r in rows)
        per = [smi[r["pid"]] for r in rows if r["pid"] in smi]
        out["smi_mb_per_process"] = statistics.median(per) if per else None
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, nargs="+", default=[1, 5, 16], help="how many runs at once")
    p.add_argument("--steps", type=int, default=300, help="timed training steps per run")
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    p.add_argument("--out", type=Path, help="JSON lines (default benchmarks/results/gpu-pack.jsonl)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--index", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--folder", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        return child(args)
    import torch

    if args.device == "cuda" and not torch.cuda.is_available():
        print("error: --device cuda but torch sees no GPU here", file=sys.stderr)
        return 2
    name = torch.cuda.get_device_name(0) if args.device == "cuda" else platform.processor() or "cpu"
    commit = os.environ.get("DECIPHER_COMMIT") or short_commit()
    out = args.out or ROOT / "benchmarks" / "results" / "gpu-pack.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="gpu-pack-") as tmp, open(out, "a", encoding="utf-8") as f:
        for n in args.runs:
            row = pack(n, args, Path(tmp) / f"n{n}")
            row.update(gpu=name, torch=torch.__version__, commit=commit, cpus=os.cpu_count())
            rows.append(row)
            f.write(json.dumps(row) + "\n")
            f.flush()
            print(json.dumps(row), file=sys.stderr)
    one = next((r["aggregate_steps_per_s"] for r in rows if r["runs"] == 1), None)
    print(f"{'runs':>5} {'steps/s per run':>16} {'aggregate':>10} {'x one':>6} {'MB/run (torch)':>15} {'MB/proc (smi)':>14}")
    for r in rows:
        gain = f"{r['aggregate_steps_per_s'] / one:.2f}" if one else "-"
        print(f"{r['runs']:>5} {r['run_steps_per_s_median']:>16.1f} {r['aggregate_steps_per_s']:>10.1f} {gain:>6} "
              f"{r.get('torch_peak_allocated_mb_per_run') or 0:>15.0f} {r.get('smi_mb_per_process') or 0:>14.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
