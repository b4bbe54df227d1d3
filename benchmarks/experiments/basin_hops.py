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

* ``project`` (``--arms``, 2026-12-06): before each chunk, from the best state so far, its one-to-one reading (each
  sign its likeliest (onset, vowel) with no syllable given to more than ``--capacity`` signs, taken greedily:
  NeuroCipher's constraint) pinned for the chunk's first ``--pin-steps`` steps, then released; kept as hops are.
  The key is (nearly) one-to-one, so it is a fixed point of the projection, while the wrong readings read many
  signs alike.

The objective is the restarts' (engine/training/final_objective.py) at one fixed schedule (step 3,000), so that
chunks at different steps compare. Each row: P@10 and the share of signs at their key value (key.csv: gold, only
read to report) where the word phase ends and after each way, the objectives, and the hops kept.

    python -m benchmarks.experiments.basin_hops --ids dev-s-latin-1 dev-s-spanish-1 --seeds 9 --workers 2 \\
        --out benchmarks/results/ciphers/dev-basin-hops.jsonl

A second invocation skips the (cipher, seed) rows already in ``--out`` (another ``--hops``, ``--hop-steps`` or
``--share`` or ``--arms`` needs another file). Only dev syllabaries.

    python -m benchmarks.experiments.basin_hops --ids dev-s-hungarian-1 --seeds 9 --arms project --workers 2 \\
        --out benchmarks/results/ciphers/dev-basin-project.jsonl
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
#: the walks --arms may name
ARMS = ("straight", "hops", "project")


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


def one_to_one(table, capacity: int = 1) -> dict[str, tuple[str, str]]:
    """Each sign's (onset, vowel) in a one-to-one reading of the syllable table ``table``
    (engine.results.SyllableTable): the pairs taken greedily by log P(onset | sign) + log P(vowel | sign), highest
    first, no pair given to more than ``capacity`` signs (NeuroCipher's one-to-one constraint, made greedy)."""
    import numpy as np

    score = (np.log(table.onset_probs + 1e-12)[:, :, None] + np.log(table.vowel_probs + 1e-12)[:, None, :])
    n_on, n_vo = score.shape[1], score.shape[2]
    order = np.argsort(-score, axis=None, kind="stable")
    out: dict[str, tuple[str, str]] = {}
    used: dict[tuple[int, int], int] = {}
    for flat in order:
        s, rest = divmod(int(flat), n_on * n_vo)
        pair = divmod(rest, n_vo)
        sign = table.signs[s]
        if sign in out or used.get(pair, 0) >= capacity:
            continue
        out[sign] = (table.onsets[pair[0]], table.vowels[pair[1]])
        used[pair] = used.get(pair, 0) + 1
        if len(out) == len(table.signs):
            break
    return out


def pins_of(reading: dict[str, tuple[str, str]]) -> list:
    """A reading as pins (a bare vowel's sign pinned to its vowel alone, as the oracle's PRIOR.csv writes it)."""
    from engine.corpus import PinnedValue
    from engine.model.syllables import NULL_ONSET

    return [PinnedValue(sign, v if o == NULL_ONSET else o + v) for sign, (o, v) in sorted(reading.items())]


def _chunks(trainer, hops: int, chunk) -> tuple[dict, float, list[bool]]:
    """``hops`` times from the best state so far: ``chunk()`` (a move and its training), kept when the objective at
    SCHEDULE_STEP falls. Leaves the trainer at the best state; (that state, its objective, which chunks were kept)."""
    from engine.training.final_objective import corpus_objective

    best, best_obj, kept = trainer._training_state(), corpus_objective(trainer, step=SCHEDULE_STEP)["objective"], []
    for _ in range(hops):
        trainer._set_training_state(best)
        chunk()
        obj = corpus_objective(trainer, step=SCHEDULE_STEP)["objective"]
        kept.append(obj < best_obj)
        if kept[-1]:
            best, best_obj = trainer._training_state(), obj
    trainer._set_training_state(best)
    return best, best_obj, kept


def _train(trainer, steps: int) -> None:
    for _ in trainer.run(steps=trainer.step + steps):
        pass


def project_walk(trainer, hops: int, steps: int, pin_steps: int, capacity: int, key) -> tuple[dict, float, list[bool],
                                                                                             list[float]]:
    """As walk, but each chunk from the best state starts with the state's one-to-one reading (one_to_one) pinned
    for ``pin_steps`` steps, then released for the rest of the chunk. Also returns each projection's share of
    signs at their key value (key.csv: gold, only to report)."""
    from benchmarks.cipher_suite import syllables_right

    shares: list[float] = []

    def chunk() -> None:
        reading = one_to_one(trainer.mapping().syllables, capacity)
        both, _, _, total = syllables_right(reading, key)
        shares.append(both / total)
        trainer.set_pins(pins_of(reading))
        _train(trainer, pin_steps)
        trainer.set_pins([])
        _train(trainer, steps - pin_steps)

    return (*_chunks(trainer, hops, chunk), shares)


def walk(trainer, hops: int, steps: int, share: float, seed: int) -> tuple[dict, float, list[bool]]:
    """From the trainer's state, ``hops`` chunks of ``steps`` steps, each from the best state so far, the signs'
    rows of a random ``share`` of them drawn anew first (none at share 0); a chunk is kept when the objective at
    SCHEDULE_STEP falls. Leaves the trainer at the best state; (that state, its objective, which chunks were kept)."""
    rng = random.Random(seed)
    n = trainer.model.vowel_aligner.shape[0]

    def chunk() -> None:
        if share > 0:
            redraw(trainer.model, rng.sample(range(n), max(1, round(share * n))), rng, trainer.config.init_interval)
        _train(trainer, steps)

    return _chunks(trainer, hops, chunk)


def one(cipher: str, seed: int, sets: list[str], hops: int, steps: int, share: float,
        arms: tuple[str, ...] = ("straight", "hops"), pin_steps: int = 100, capacity: int = 1) -> dict:
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
    for arm in arms:
        trainer._set_training_state(start)
        extra = {}
        if arm == "project":
            _, obj, kept, shares = project_walk(trainer, hops, steps, pin_steps, capacity, key)
            extra = {"projected_values_share": shares, "pin_steps": pin_steps, "capacity": capacity}
        else:
            _, obj, kept = walk(trainer, hops, steps, share if arm == "hops" else 0.0, seed)
        row[arm] = {**_reading(trainer, key), "objective": obj, "kept": kept, "step": trainer.step, **extra}
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
    p.add_argument("--arms", nargs="+", choices=ARMS, default=["straight", "hops"],
                   help="the walks from the word phase's end (default straight hops; project: each chunk from the "
                        "best state's one-to-one reading, pinned for --pin-steps, then released)")
    p.add_argument("--pin-steps", type=int, default=100, help="with the arm project: steps under the pins a chunk")
    p.add_argument("--capacity", type=int, default=1, help="with the arm project: signs a syllable may take")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", type=Path)
    p.add_argument("--one", nargs=2, metavar=("CIPHER", "SEED"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.hops < 1 or args.hop_steps < 1 or not 0 < args.share <= 1:
        p.error("--hops and --hop-steps must be 1 or more, --share in (0, 1]")
    if not 0 < args.pin_steps < args.hop_steps or args.capacity < 1:
        p.error("--pin-steps between 1 and --hop-steps - 1, --capacity 1 or more")
    arms = tuple(dict.fromkeys(args.arms))
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]), args.set, args.hops, args.hop_steps, args.share, arms,
                             args.pin_steps, args.capacity)))
        return 0
    if not args.ids or args.out is None:
        p.error("--ids and --out are required")
    extra = ("--hops", str(args.hops), "--hop-steps", str(args.hop_steps), "--share", f"{args.share:g}")
    if arms != ("straight", "hops"):
        extra += ("--arms", *arms)
    if "project" in arms:
        extra += ("--pin-steps", str(args.pin_steps), "--capacity", str(args.capacity))
    return run(args, "benchmarks.experiments.basin_hops", extra)


if __name__ == "__main__":
    sys.exit(main())
