"""Training speed on fixed, documented workloads (also ``decipher bench``).

    python -m benchmarks.speed                      # every workload, a table on stdout
    python -m benchmarks.speed --json               # one JSON object per workload
    python -m benchmarks.speed --workload gothic-pg --steps 50 --device cuda

Workloads (docs/benchmarks.md describes them and records measured numbers):
- ``gothic-pg``: the Gothic–Proto-Germanic setting: batches of 400 letters of unsegmented Gothic
  (PROIEL text, whitespace ratio 0), |V| = 664 PG stems, spans 4–10.
- ``ugaritic-full``: Ugaritic whole words against the full Hebrew vocabulary (39,216 stems),
  paper settings for Ugaritic; also times one training pass and one evaluation pass over all words.
- ``seeds5``: 5 seeds of the gothic-pg setting trained together (engine/training/lockstep.py) against one
  seed's ordinary training, alternating in the same process: ``ratio`` = wall time of the 5 seeds
  / wall time of one seed for the same number of steps (robust to the box's load).
- ``scaling``: the Gothic text with synthetic stem vocabularies doubling |V| (150 … 2,400) and
  batches doubling (100 … 800 letters), to show how cost grows with the work.

Each workload runs in its own process so that its peak memory is its own. Steps/s is the median
over the timed steps of 1 / step time; the baseline (benchmarks/baseline.py, the straightforward
formulation of the authors' code) is measured in the same process on the same batches.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("DECIPHER_SHARED_DATA", ROOT.parent / "shared" / "data"))
CACHE = ROOT / "benchmarks" / ".cache"
WORKLOADS = ("gothic-pg", "ugaritic-full", "seeds5", "scaling")


# ---------------------------------------------------------------------------------------------
# data

def gothic_pg():
    from engine.corpus import Corpus, Vocabulary
    from engine.io.tables import read_known, read_lost

    out = CACHE / "gothic-pgm-wr0"
    if not (out / "lost.csv").exists():
        if not (SHARED / "gothic_proiel").exists():
            return None
        from engine.datasets.gothic import main as build
        build(["--known", "pgm", "--wr", "0", "--seed", "0", "--out", str(out), "--quiet"])
    ins = read_lost(out / "lost.csv")
    stems = read_known(out / "known.csv")
    return Corpus("gothic", tuple(ins)), Vocabulary("pgm", tuple(stems))


def ugaritic():
    from engine.corpus import Corpus, Vocabulary
    from engine.io.cog import read_cog

    path = SHARED / "ugaritic_hebrew" / "uga-heb.no_spe.cog"
    if not path.exists():
        return None
    r = read_cog(path)
    return Corpus("ugaritic", tuple(r.inscriptions)), Vocabulary("hebrew", tuple(r.stems)), r.gold


def synthetic_stems(units: list[str], n: int, seed: int = 0):
    """n distinct random stems of 4-10 units drawn from the given IPA units."""
    from engine.corpus import Stem

    rng = random.Random(seed)
    seen: set[str] = set()
    out = []
    while len(out) < n:
        ipa = "".join(rng.choice(units) for _ in range(rng.randint(4, 10)))
        if ipa not in seen:
            seen.add(ipa)
            out.append(Stem(ipa, ipa))
    return out


# ---------------------------------------------------------------------------------------------
# timing

class PhaseTimer:
    def __init__(self, sync):
        self.sync = sync
        self.totals: dict[str, float] = defaultdict(float)

    @contextmanager
    def __call__(self, name: str):
        self.sync()
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.sync()
            self.totals[name] += time.perf_counter() - t0


def timed_steps(trainer, batches, objective, steps: int):
    """Run ``steps`` training steps on the given batches; step times and phase totals."""
    import torch

    from engine.model.objective import pin_pairs

    dev = trainer.device
    sync = (lambda: torch.cuda.synchronize(dev)) if dev.type == "cuda" else (lambda: None)
    timer = PhaseTimer(sync)
    pins = pin_pairs(trainer.prep, trainer.pins)
    model, opt, cfg = trainer.model, trainer.optimizer, trainer.config
    units, lens = trainer._units, trainer._lens
    times = []
    for k in range(steps):
        batch = batches[k % len(batches)].to(dev)
        sync()
        t0 = time.perf_counter()
        r = objective(model, trainer.prep, batch, 1000, pins, units, lens, timer=timer)
        # The backward pass reaches the lattice's inputs once the lattice's own backward is done:
        # a hook on them splits the backward time into word DP and edit DP (+ char distribution).
        marks: list[float] = []

        def mark(grad):
            sync()
            marks.append(time.perf_counter())
            return grad

        for t in r.lattice_inputs:
            t.register_hook(mark)
        opt.zero_grad(set_to_none=True)
        sync()
        b0 = time.perf_counter()
        r.loss.backward()
        sync()
        b1 = time.perf_counter()
        split = max(marks) if marks else b0
        timer.totals["backward_word_dp"] += split - b0
        timer.totals["backward_edit_dp"] += b1 - split
        with timer("optimiser"):
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip_norm)
            opt.step()
        sync()
        times.append(time.perf_counter() - t0)
    return times, dict(timer.totals)


def make_batches(trainer, n: int):
    from engine.model.scoring import make_batch
    return [make_batch(trainer.prep, trainer.sampler.next_batch()) for _ in range(n)]


def peak_mb(device) -> float:
    import resource

    import torch
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**20
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(trainer, steps: int, baseline_steps: int, n_batches: int = 16) -> dict:
    from benchmarks.baseline import baseline_objective
    from engine.model.objective import batch_objective

    batches = make_batches(trainer, n_batches)
    timed_steps(trainer, batches, batch_objective, 2)                       # warm-up (JIT, caches)
    times, phases = timed_steps(trainer, batches, batch_objective, steps)
    result = {
        "steps_per_s": 1.0 / statistics.median(times),
        "step_ms_median": 1000 * statistics.median(times),
        "phase_share": {k: v / sum(times) for k, v in sorted(phases.items())},
        "letters_per_batch": statistics.mean(int(b.chunk_len.sum()) for b in batches),
        "starts_per_batch": statistics.mean(b.n_starts for b in batches),
    }
    result["peak_mb"] = peak_mb(trainer.device)      # before the baseline, whose stacked table is large
    if baseline_steps > 0:
        btimes, _ = timed_steps(trainer, batches, baseline_objective, baseline_steps)
        result["baseline_steps_per_s"] = 1.0 / statistics.median(btimes)
        result["speedup"] = result["steps_per_s"] / result["baseline_steps_per_s"]
    else:
        result["baseline_steps_per_s"] = None
    return result


def single_steps(trainer, steps: int) -> None:
    """``steps`` ordinary training steps, exactly as Trainer.run takes them (without events)."""
    import torch

    from engine.model.objective import batch_objective
    from engine.model.scoring import make_batch

    cfg = trainer.config
    for _ in range(steps):
        batch = make_batch(trainer.prep, trainer.sampler.next_batch())
        r = batch_objective(trainer.model, trainer.prep, batch.to(trainer.device), trainer.step,
                            trainer._pin_index, trainer._units, trainer._lens)
        trainer.optimizer.zero_grad(set_to_none=True)
        r.loss.backward()
        torch.nn.utils.clip_grad_norm_(trainer.model.parameters(), cfg.clip_norm)
        trainer.optimizer.step()
        trainer.step += 1


def seeds_workload(corpus, vocab, n_seeds: int, steps: int, rounds: int, device: str) -> dict:
    """One seed against ``n_seeds`` seeds in lockstep, alternating rounds of ``steps`` steps each."""
    from engine.config import Config
    from engine.training.lockstep import SeedGroup
    from engine.training.trainer import Trainer

    cfg = Config(device=device, seed=0)
    single = Trainer(corpus, vocab, cfg, live_interval=None)
    group = SeedGroup(corpus, vocab, cfg, list(range(n_seeds)))
    single_steps(single, 2)                  # warm-up (numba compilation, caches)
    group.train_step()
    single_t, group_t = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        single_steps(single, steps)
        single_t.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        for _ in range(steps):
            group.train_step()
        group_t.append(time.perf_counter() - t0)
    single_wall, wall = statistics.median(single_t), statistics.median(group_t)
    return {"seeds": n_seeds, "steps": steps, "rounds": rounds, "wall_s": wall, "single_wall_s": single_wall,
            "ratio": wall / single_wall, "ratio_per_round": [g / s for g, s in zip(group_t, single_t)],
            "steps_per_s": steps / single_wall, "seed_steps_per_s": n_seeds * steps / wall,
            "n_stems": single.prep.n_stems}


def dp_cells(trainer, batches) -> float:
    """Mean number of (trie node x start x band cell) evaluations per batch (for the FLOP estimate)."""
    cfg = trainer.config
    from engine.model.scoring import _trie
    trie = _trie(trainer.prep, "all", trainer.prep.stem_units, trainer.prep.stem_len)
    nodes = sum(len(u) for u in trie.units[1: cfg.max_span + cfg.band + 1])
    return statistics.mean(nodes * b.n_starts * (2 * cfg.band + 1) for b in batches)


# ---------------------------------------------------------------------------------------------
# workloads

def run_workload(name: str, steps: int, baseline_steps: int, device: str) -> dict:
    import torch

    from engine.config import UGARITIC, Config
    from engine.training.trainer import Trainer

    torch.manual_seed(0)
    base = {"workload": name, "torch": torch.__version__, "threads": torch.get_num_threads()}
    if name == "gothic-pg":
        data = gothic_pg()
        if data is None:
            return {**base, "skipped": "needs ../shared/data/gothic_proiel"}
        corpus, vocab = data
        trainer = Trainer(corpus, vocab, Config(device=device, seed=0))
        res = measure(trainer, steps, baseline_steps)
        batches = make_batches(trainer, 8)
        cells = dp_cells(trainer, batches)
        # ~12 flops per cell forward (3 adds, min, 2 exp ~ 2 x 4, 2 mul-add, div) and ~25 backward
        res["dp_cell_evals_per_step"] = cells
        res["est_gflop_per_step"] = cells * 37 / 1e9
        res["est_gflop_per_s"] = res["est_gflop_per_step"] * res["steps_per_s"]
        res.update(n_stems=trainer.prep.n_stems, n_chunks=len(trainer.prep.chunks))
    elif name == "ugaritic-full":
        data = ugaritic()
        if data is None:
            return {**base, "skipped": "needs ../shared/data/ugaritic_hebrew"}
        corpus, vocab, gold = data
        trainer = Trainer(corpus, vocab, Config(**UGARITIC, device=device, seed=0), gold=gold)
        res = measure(trainer, steps, baseline_steps, n_batches=8)
        # one training pass over every word, then one evaluation pass (decoding + P@K)
        from engine.model.decoding import eval_batches
        from engine.model.objective import batch_objective
        from engine.model.scoring import make_batch
        pool = trainer.prep.trainable_chunks()
        epoch = [make_batch(trainer.prep, idx) for idx in eval_batches(trainer.prep, pool, trainer.config.chars_per_batch)]
        t0 = time.perf_counter()
        timed_steps(trainer, epoch, batch_objective, len(epoch))
        res["train_pass_all_words_s"] = time.perf_counter() - t0
        res["train_pass_batches"] = len(epoch)
        t0 = time.perf_counter()
        ev = trainer.evaluate()
        res["eval_pass_all_words_s"] = time.perf_counter() - t0
        res["eval_p_at_1_untrained"] = ev.metrics.get("p_at_1")
        res.update(n_stems=trainer.prep.n_stems, n_words=len(trainer.prep.chunks))
    elif name == "seeds5":
        data = gothic_pg()
        if data is None:
            return {**base, "skipped": "needs ../shared/data/gothic_proiel"}
        res = seeds_workload(*data, n_seeds=5, steps=steps, rounds=5, device=device)
        res["peak_mb"] = peak_mb(torch.device("cpu"))
        res["device"] = "cpu"
        return {**base, **res}
    elif name.startswith("scaling"):
        data = gothic_pg()
        if data is None:
            from engine.datasets.synthetic import make_cipher
            c = make_cipher(n_inscriptions=400, words_per_inscription=(3, 8))
            corpus = c.corpus
        else:
            corpus = data[0]
        _, v, b = name.split(":")
        from engine.corpus import Vocabulary
        units = ["p", "t", "k", "b", "d", "ɡ", "m", "n", "s", "z", "r", "l", "f", "θ", "x", "h", "w", "j",
                 "a", "e", "i", "o", "u", "ɛ", "ɔ"]
        vocab = Vocabulary("synthetic", tuple(synthetic_stems(units, int(v))))
        trainer = Trainer(corpus, vocab, Config(device=device, seed=0, chars_per_batch=int(b)))
        res = measure(trainer, steps, 0, n_batches=8)
        res.update(n_stems=int(v), chars_per_batch=int(b))
    else:
        raise SystemExit(f"unknown workload {name!r}")
    res["peak_mb_incl_baseline"] = peak_mb(trainer.device)
    res["device"] = str(trainer.device) if trainer.device.type == "cpu" else torch.cuda.get_device_name(trainer.device)
    return {**base, **res}


SCALING = [f"scaling:{v}:{b}" for v, b in ((150, 100), (300, 200), (600, 400), (1200, 800), (2400, 800),
                                          (600, 100), (600, 800))]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="decipher bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(p)
    return run(p.parse_args(argv))


def add_arguments(p) -> None:
    p.add_argument("--workload", action="append", choices=[*WORKLOADS, *SCALING], help="default: all")
    p.add_argument("--steps", type=int, help="timed steps per workload (default: 40, Ugaritic 10, scaling 10)")
    p.add_argument("--baseline-steps", type=int, help="timed baseline steps (default 3; 0 skips)")
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"],
                   help="where to time (default auto: cuda when torch sees a GPU, else cpu)")
    p.add_argument("--json", action="store_true", help="one JSON object per workload")
    p.add_argument("--threads", type=int, help="torch intra-op threads (default: torch's own choice)")
    p.add_argument("--inline", action="store_true", help=argparse.SUPPRESS)


def run(args) -> int:
    names = args.workload or [w for w in WORKLOADS if w != "scaling"] + SCALING
    if args.inline:      # one workload in this process
        name = names[0]
        if args.threads:
            import torch
            torch.set_num_threads(args.threads)
        default_steps = {"gothic-pg": 40, "seeds5": 8}.get(name, 10)
        res = run_workload(name, args.steps or default_steps,
                           args.baseline_steps if args.baseline_steps is not None else 3, args.device)
        print(json.dumps(res))
        return 0
    for name in names:
        cmd = [sys.executable, "-m", "benchmarks.speed", "--inline", "--workload", name, "--device", args.device]
        if args.steps:
            cmd += ["--steps", str(args.steps)]
        if args.baseline_steps is not None:
            cmd += ["--baseline-steps", str(args.baseline_steps)]
        if args.threads:
            cmd += ["--threads", str(args.threads)]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                  [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])})
        if proc.returncode != 0:
            print(f"{name}: failed\n{proc.stderr}", file=sys.stderr)
            continue
        res = json.loads(proc.stdout.strip().splitlines()[-1])
        if args.json:
            print(json.dumps(res), flush=True)
        else:
            print(format_row(res), flush=True)
    return 0


def format_row(res: dict) -> str:
    if "skipped" in res:
        return f"{res['workload']}: skipped ({res['skipped']})"
    if "ratio" in res:
        return (f"{res['workload']}: {res['seeds']} seeds {res['wall_s']:.2f} s, one seed {res['single_wall_s']:.2f} s "
                f"per {res['steps']} steps: ratio {res['ratio']:.2f} (one seed {res['steps_per_s']:.1f} steps/s) | "
                f"peak {res['peak_mb']:.0f} MB")
    parts = [f"{res['workload']}: {res['steps_per_s']:.2f} steps/s", f"peak {res['peak_mb']:.0f} MB", res["device"]]
    if res.get("baseline_steps_per_s"):
        parts.append(f"baseline {res['baseline_steps_per_s']:.3f} steps/s ({res['speedup']:.1f}x)")
    if "train_pass_all_words_s" in res:
        parts.append(f"all words: train pass {res['train_pass_all_words_s']:.1f} s, eval pass "
                     f"{res['eval_pass_all_words_s']:.1f} s")
    shares = ", ".join(f"{k} {100 * v:.0f}%" for k, v in res["phase_share"].items())
    return " | ".join(parts) + f"\n    phases: {shares}"


if __name__ == "__main__":
    sys.exit(main())
