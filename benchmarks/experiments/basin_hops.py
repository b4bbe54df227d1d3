"""Issue 49: can a search that makes large moves and keeps those the objective prefers leave a start's basin?

The right reading of most dev syllabaries, pinned and then released, scores a lower objective than the preset's
unpinned run (docs/benchmarks.md, "The right reading at the current preset"), yet no start gets near it. This
script trains one start of the preset `syllabary` (``restarts = 1``, seed ``--seeds``) through its word phase,
then from that state two ways, each ``--hops`` x ``--hop-steps`` steps on the text:

* ``straight``: trained on in chunks of ``--hop-steps``, the chunk with the lowest objective kept (what a run does
  after its word phase, with the same choice among its checkpoints);
* ``hops``: before each chunk, from the best state so far, the rows of a random ``--share`` of the signs
  (onset_aligner and vowel_aligner, the parameters that place a sign among the known sounds) are drawn anew as at
  a start; the chunk is kept when its objective is lower than the best so far (basin hopping).

The objective is the restarts' (engine/training/final_objective.py) at one fixed schedule (step 3,000), so that
chunks at different steps compare. Each row: P@10 and the share of signs at their key value (key.csv: gold, only
read to report) where the word phase ends and after each way, the objectives, and the hops kept.

    python -m benchmarks.experiments.basin_hops --ids dev-s-latin-1 dev-s-spanish-1 --seeds 9 --workers 2 \\
        --out benchmarks/results/ciphers/dev-basin-hops.jsonl

A second invocation skips the (cipher, seed) rows already in ``--out`` (another ``--hops``, ``--hop-steps`` or
``--share`` needs another file). Only dev syllabaries.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

#: the schedule step the chunks' objectives are read at (a dev run's last)
SCHEDULE_STEP = 3000


def _reading(trainer, key) -> dict:
    from benchmarks.cipher_suite import syllables_right

    ev = trainer.evaluate()
    both, _, _, total = syllables_right(trainer.mapping().syllables.top_values(), key)
    return {"p_at_10": ev.metrics.get("p_at_10"), "values_share": both / total}


def redraw(model, rows: list[int], rng: random.Random, interval: float) -> None:
    """Signs ``rows`` (indices among the signs, the deletion pseudo-sign left out) placed anew: their onset and
    vowel aligner rows drawn uniform in [-interval, interval], as a start draws them."""
    import torch

    gen = torch.Generator().manual_seed(rng.randrange(2 ** 31))
    with torch.no_grad():
        for r in rows:
            for p, i in ((model.onset_aligner, r + 1), (model.vowel_aligner, r)):
                p[i] = torch.empty(p.shape[1]).uniform_(-interval, interval, generator=gen)


def walk(trainer, hops: int, steps: int, share: float, seed: int) -> tuple[dict, float, list[bool]]:
    """From the trainer's state, ``hops`` chunks of ``steps`` steps, each from the best state so far, the signs'
    rows of a random ``share`` of them drawn anew first (none at share 0); a chunk is kept when the objective at
    SCHEDULE_STEP falls. Leaves the trainer at the best state; (that state, its objective, which chunks were kept)."""
    from engine.training.final_objective import corpus_objective

    rng = random.Random(seed)
    best, best_obj, kept = trainer._training_state(), corpus_objective(trainer, step=SCHEDULE_STEP)["objective"], []
    n = trainer.model.vowel_aligner.shape[0]
    for _ in range(hops):
        trainer._set_training_state(best)
        if share > 0:
            redraw(trainer.model, rng.sample(range(n), max(1, round(share * n))), rng, trainer.config.init_interval)
        for _ in trainer.run(steps=trainer.step + steps):
            pass
        obj = corpus_objective(trainer, step=SCHEDULE_STEP)["objective"]
        kept.append(obj < best_obj)
        if kept[-1]:
            best, best_obj = trainer._training_state(), obj
    trainer._set_training_state(best)
    return best, best_obj, kept


def one(cipher: str, seed: int, sets: list[str], hops: int, steps: int, share: float) -> dict:
    from benchmarks.cipher_suite import build_cipher, load_folder, manifest, read_key
    from engine.config import config_from_options
    from engine.io.tables import read_gold
    from engine.training.final_objective import corpus_objective
    from engine.training.trainer import Trainer

    folder = build_cipher(manifest()[0][cipher])
    corpus, vocab = load_folder(folder)
    base = config_from_options(preset="syllabary", config_file=folder / "settings.toml", assignments=sets, seed=seed)
    cfg = base.replace(restarts=1, steps=base.words_first + hops * steps, eval_interval=0)
    t0 = time.time()
    trainer = Trainer(corpus, vocab, cfg, gold=read_gold(folder / "gold.csv"), live_interval=None)
    if trainer.words_prep is None:
        raise SystemExit(f"{cipher}: no pseudo-words (setting words_first {cfg.words_first})")
    key = read_key(folder)
    for _ in trainer.run(steps=base.words_first):
        pass
    start = trainer._training_state()
    row = {"hops": hops, "hop_steps": steps, "share": share, "phase_end": _reading(trainer, key),
           "phase_end_objective": corpus_objective(trainer, step=SCHEDULE_STEP)["objective"]}
    for arm, s in (("straight", 0.0), ("hops", share)):
        trainer._set_training_state(start)
        _, obj, kept = walk(trainer, hops, steps, s, seed)
        row[arm] = {**_reading(trainer, key), "objective": obj, "kept": kept, "step": trainer.step}
    row["wall_s"] = round(time.time() - t0, 1)
    return row


def main(argv: list[str] | None = None) -> int:
    from benchmarks.experiments.word_phase_starts import run

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ids", nargs="+", default=[], help="dev syllabaries of the manifest")
    p.add_argument("--seeds", nargs="+", type=int, default=[0])
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a setting over the preset's")
    p.add_argument("--hops", type=int, default=8, help="chunks after the word phase (default 8)")
    p.add_argument("--hop-steps", type=int, default=300, help="steps a chunk (default 300)")
    p.add_argument("--share", type=float, default=0.3, help="share of the signs drawn anew before a hop (default 0.3)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", type=Path)
    p.add_argument("--one", nargs=2, metavar=("CIPHER", "SEED"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.hops < 1 or args.hop_steps < 1 or not 0 < args.share <= 1:
        p.error("--hops and --hop-steps must be 1 or more, --share in (0, 1]")
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]), args.set, args.hops, args.hop_steps, args.share)))
        return 0
    if not args.ids or args.out is None:
        p.error("--ids and --out are required")
    return run(args, "benchmarks.experiments.basin_hops",
               ("--hops", str(args.hops), "--hop-steps", str(args.hop_steps), "--share", f"{args.share:g}"))


if __name__ == "__main__":
    sys.exit(main())
