"""Seeds trained in lockstep (engine/training/lockstep.py, the seeds as lanes of one fused DP) against
the same seeds trained as separate runs, on real data, seed by seed (issue 31, item 1).

    python -m benchmarks.lockstep_equivalence --seeds 0 1 2 3 4 --steps 3000 \\
        --out benchmarks/results/lockstep-equivalence.jsonl

The gothic-pg setting of ``decipher bench`` (Gothic PROIEL text without word dividers against 664
Proto-Germanic stems, the default settings, CPU). The group and the separate runs train at the same
time in two processes of one torch thread each (the two cores), so their wall times are measured side
by side under the same load. Each side saves every seed's parameters and evaluation; the merge writes
one row per seed: P@1 and P@10 of both, how many lost letters read the same best sound, the largest
difference of a mapping probability and of a parameter, and the two wall times. Needs
``../shared/data/gothic_proiel`` (or the cached dataset under benchmarks/.cache); without it, one line and
exit 2.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.commit import short_commit  # noqa: E402 (after the path line)


NO_DATA = "lockstep_equivalence: needs ../shared/data/gothic_proiel (the gothic-pg data)"


def _data():
    from benchmarks.speed import CACHE, gothic_pg
    from engine.io.tables import read_gold

    data = gothic_pg()
    if data is None:
        return None
    corpus, vocab = data
    return corpus, vocab, tuple(read_gold(CACHE / "gothic-pgm-wr0" / "gold.csv", inscriptions=corpus.inscriptions))


def _save(trainer, folder: Path, seed: int, wall: float) -> dict:
    """Seed ``seed``'s parameters (a torch file of this run's own) and what its evaluation says."""
    import torch

    ev = trainer.evaluate()
    snap = trainer.mapping()
    torch.save({k: v.detach().cpu() for k, v in trainer.model.state_dict().items()}, folder / f"params-{seed}.pt")
    return {"seed": seed, "p_at_1": ev.metrics.get("p_at_1"), "p_at_10": ev.metrics.get("p_at_10"),
            "step": trainer.step, "wall_s": wall, "lost": list(snap.lost), "known": list(snap.known),
            "probs": [list(map(float, row)) for row in snap.probs]}


def part(kind: str, seeds: list[int], steps: int, folder: Path) -> None:
    """Train ``seeds`` as one lockstep group (``kind`` = group) or one after another (single)."""
    import torch

    from engine.config import Config
    from engine.training.lockstep import SeedGroup
    from engine.training.trainer import Trainer

    torch.set_num_threads(1)
    data = _data()
    if data is None:
        raise SystemExit(NO_DATA)
    corpus, vocab, gold = data
    cfg = Config(device="cpu", seed=seeds[0])
    rows = []
    if kind == "group":
        t0 = time.perf_counter()
        group = SeedGroup(corpus, vocab, cfg, seeds, gold=gold)
        setup = time.perf_counter() - t0
        group.train(steps)
        wall = time.perf_counter() - t0
        for k, seed in enumerate(seeds):
            with group.random_streams(k):
                rows.append({**_save(group.trainers[k], folder, seed, wall), "setup_s": setup})
    else:
        for seed in seeds:
            t0 = time.perf_counter()
            trainer = Trainer(corpus, vocab, cfg.replace(seed=seed), gold=gold, live_interval=None)
            setup = time.perf_counter() - t0
            for _ in trainer.run(steps):
                pass
            rows.append({**_save(trainer, folder, seed, time.perf_counter() - t0), "setup_s": setup})
    (folder / f"{kind}.json").write_text(json.dumps(rows), encoding="utf-8")


def compare(group: dict, single: dict, folder: Path) -> dict:
    """One seed's row: both sides' P@K, the letters read alike, the largest differences."""
    import numpy as np
    import torch

    g = torch.load(folder / "group" / f"params-{group['seed']}.pt", weights_only=True)
    s = torch.load(folder / "single" / f"params-{single['seed']}.pt", weights_only=True)
    param_diff = max(float((g[k].double() - s[k].double()).abs().max()) for k in g)
    assert group["lost"] == single["lost"] and group["known"] == single["known"]
    # probs[k, l]: P(lost letter l | known unit k); index 0 of both axes is the deletion pseudo-character
    pg, ps = np.asarray(group["probs"])[:, 1:], np.asarray(single["probs"])[:, 1:]
    same = int((pg.argmax(axis=0) == ps.argmax(axis=0)).sum())
    prob_diff = float(np.abs(pg - ps).max())
    return {"seed": group["seed"], "steps": group["step"],
            "lockstep_p_at_1": group["p_at_1"], "single_p_at_1": single["p_at_1"],
            "lockstep_p_at_10": group["p_at_10"], "single_p_at_10": single["p_at_10"],
            "letters": pg.shape[1], "letters_same_best_sound": same,
            "max_mapping_prob_diff": prob_diff, "max_parameter_diff": param_diff}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.lockstep_equivalence", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "lockstep-equivalence.jsonl")
    p.add_argument("--part", choices=("group", "single"), help=argparse.SUPPRESS)
    p.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if len(set(args.seeds)) != len(args.seeds) or args.steps < 1:
        print("lockstep_equivalence: the seeds must differ and --steps be 1 or more", file=sys.stderr)
        return 2
    if args.part:
        part(args.part, args.seeds, args.steps, args.folder)
        return 0
    if _data() is None:  # also builds the cached dataset here, once, before the two parts read it
        print(NO_DATA, file=sys.stderr)
        return 2
    commit = short_commit()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = {**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
        procs = []
        for kind in ("group", "single"):
            (folder / kind).mkdir()
            procs.append(subprocess.Popen([sys.executable, "-m", "benchmarks.lockstep_equivalence", "--part", kind,
                                           "--folder", str(folder / kind), "--steps", str(args.steps),
                                           "--seeds", *map(str, args.seeds)], cwd=ROOT, env=env))
        if any(proc.wait() != 0 for proc in procs):
            print("lockstep_equivalence: a part failed (its error is above)", file=sys.stderr)
            return 2
        group = json.loads((folder / "group" / "group.json").read_text(encoding="utf-8"))
        single = json.loads((folder / "single" / "single.json").read_text(encoding="utf-8"))
        rows = [compare(g, s, folder) for g, s in zip(group, single)]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    note = {"note": (f"commit {commit}; gothic-pg, default settings, CPU, one torch thread per side; the lockstep "
                     "group and the separate runs trained at the same time in two processes"),
            "commit": commit, "seeds": args.seeds, "steps": args.steps,
            "lockstep_wall_s": group[0]["wall_s"], "separate_wall_s": sum(s["wall_s"] for s in single),
            "separate_wall_s_per_seed": [s["wall_s"] for s in single], "lockstep_setup_s": group[0]["setup_s"],
            "separate_setup_s": sum(s["setup_s"] for s in single), "load_average_after": load}
    note["ratio_lockstep_to_separate"] = note["lockstep_wall_s"] / note["separate_wall_s"]
    note["ratio_training_only"] = ((note["lockstep_wall_s"] - note["lockstep_setup_s"])
                                   / (note["separate_wall_s"] - note["separate_setup_s"]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as f:
        f.write(json.dumps(note) + "\n")
        for row in rows:
            f.write(json.dumps(row) + "\n")
    for row in rows:
        print(json.dumps(row))
    print(json.dumps(note))
    return 0


if __name__ == "__main__":
    sys.exit(main())
