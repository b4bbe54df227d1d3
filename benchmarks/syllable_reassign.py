"""Why the Linear B seeds that miss the grid stay where they are (issue 25; issue 30's "reassign" moves):
from each finished run of the preset (``benchmarks/.cache/linear-b/onsets-first-8000-sS``, made by
``python -m benchmarks.syllable_linear_b --variants onsets-first --steps 8000``), every sign whose top-1
onset or vowel is not its standard value (resources/linear_b/standard-values.csv) is given its standard
value alone, all other signs kept, and the run's final objective over the whole corpus (what ``decipher
run --seeds`` ranks seeds by, engine/training/final_objective.py) is read before and after. Then every
wrong sign is given its value at once.

A sign is given a sound by copying, into its row of the aligner (the parameters that place it among the
known sounds, engine/model/syllable_mapping.py), the row of the other sign that holds that sound with
the highest probability: so "given /o/" means "read as the sign most surely read /o/ is read". This is
the reassign move a discrete polish would make (engine/training/polish.py makes swaps only).

No training; about one second per objective on the 2-core box.

    python -m benchmarks.syllable_reassign --seeds 0 1 2 3 4
    python -m benchmarks.syllable_reassign --table

Rows: benchmarks/results/syllables/reassign.jsonl (one per seed and move), the table in
benchmarks/results/syllables/reassign.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "benchmarks" / ".cache" / "linear-b"
OUT = ROOT / "benchmarks" / "results" / "syllables" / "reassign.jsonl"


def donor(probs, sounds: tuple[str, ...], wanted: frozenset[str], sign_index: int) -> tuple[int, str, float] | None:
    """(row, sound, probability) of the other sign most surely read as one of ``wanted``."""
    others = [i for i in range(probs.shape[0]) if i != sign_index]
    found = [(float(probs[i, j]), -j, -i) for j, s in enumerate(sounds) if s in wanted for i in others]
    if not found:
        return None
    p, j, i = max(found)        # the highest probability; ties to the first sound, then the first sign
    return -i, sounds[-j], p


def reassign_seed(seed: int, steps: int = 8000, log=print) -> list[dict]:
    """The rows of one seed's run (see the module's text)."""
    import torch

    from engine.datasets.linear_b import count_standard, standard_values
    from engine.runs.inputs import read_run_files
    from engine.training.final_objective import corpus_objective
    from engine.training.trainer import Trainer

    folder = CACHE / f"onsets-first-{steps}-s{seed}"
    data = CACHE / "data"
    files = read_run_files(lost=data / "lost.csv", known=data / "known.csv", gold=data / "gold.csv",
                           warn=lambda _: None)
    trainer = Trainer.from_checkpoint(folder / "checkpoint.pt", files.corpus, files.vocabulary, gold=files.gold,
                                      live_interval=None)
    model = trainer.model
    table = model.syllable_table()
    values = standard_values()
    best = table.top_values()
    count = count_standard(best, values=values)
    base = float(corpus_objective(trainer)["objective"])
    log(f"seed {seed}: {count.summary()}, objective {base:.4f}")
    # the sign's row in each aligner: the onset aligner has the deletion pseudo-letter first
    row = {s: model.lost_letters.index(s) for s in table.signs}

    def moves_of(sign: str) -> list[tuple[str, int, int]]:
        """(aligner, row to overwrite, donor row) that give ``sign`` its standard value where it lacks it."""
        i = table.signs.index(sign)
        std = values[sign]
        got_on, got_vo = best[sign]
        out = []
        if got_on not in std.greek_onsets:
            d = donor(table.onset_probs, table.onsets, std.greek_onsets, i)
            if d is not None:
                out.append(("onset_aligner", row[sign], row[table.signs[d[0]]]))
        if got_vo not in std.greek_vowels:
            d = donor(table.vowel_probs, table.vowels, std.greek_vowels, i)
            if d is not None:
                out.append(("vowel_aligner", row[sign] - 1, row[table.signs[d[0]]] - 1))
        return out

    def objective_with(changes: list[tuple[str, int, int]]) -> float:
        saved = [(name, r, getattr(model, name)[r].detach().clone()) for name, r, _ in changes]
        # every donor row as trained, before any is overwritten (a donor may itself be a wrong sign)
        sources = [getattr(model, name)[d].detach().clone() for name, _, d in changes]
        try:
            with torch.no_grad():
                for (name, r, _), source in zip(changes, sources):
                    getattr(model, name)[r] = source
            return float(corpus_objective(trainer)["objective"])
        finally:
            with torch.no_grad():
                for name, r, value in saved:
                    getattr(model, name)[r] = value

    rows, every = [], []
    for sign, translit, onset, vowel in count.wrong:
        changes = moves_of(sign)
        if not changes:
            continue
        every += changes
        value = objective_with(changes)
        rows.append({"seed": seed, "steps": steps, "move": "one sign", "sign": sign, "standard": translit,
                     "learned": f"{onset}{vowel}", "parts": "+".join(c[0].split("_")[0] for c in changes),
                     "objective_before": round(base, 6), "objective_after": round(value, 6),
                     "delta": round(value - base, 6), "lowers": value < base})
        log(f"  {sign} ({translit}, read {onset}{vowel}): {value - base:+.4f}")
    value = objective_with(every)
    rows.append({"seed": seed, "steps": steps, "move": "every wrong sign", "sign": "", "standard": "",
                 "learned": "", "parts": f"{len(every)} rows", "objective_before": round(base, 6),
                 "objective_after": round(value, 6), "delta": round(value - base, 6),
                 "signs_standard": count.right, "signs_with_standard": count.total})
    log(f"  every wrong sign at once ({len(count.wrong)} signs): {value - base:+.4f}")
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| seed | signs right (of 70) | objective | wrong signs whose own value lowers it | best single move | "
             "every wrong sign at once |", "| --- | --- | --- | --- | --- | --- |"]
    for seed in sorted({r["seed"] for r in rows}):
        mine = [r for r in rows if r["seed"] == seed]
        one = [r for r in mine if r["move"] == "one sign"]
        allr = next(r for r in mine if r["move"] == "every wrong sign")
        lower = [r for r in one if r["lowers"]]
        top = min(one, key=lambda r: r["delta"]) if one else None
        lines.append(f"| {seed} | {allr['signs_standard']} | {allr['objective_before']:.3f} | {len(lower)} of {len(one)} | "
                     + (f"{top['standard']} ({top['delta']:+.3f})" if top else "—")
                     + f" | {allr['objective_after']:.3f} ({allr['delta']:+.3f}) |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.syllable_reassign", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    p.add_argument("--steps", type=int, default=8000)
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--table", action="store_true", help="only write the table of --out to its .md")
    args = p.parse_args(argv)
    if not args.table:
        missing = [s for s in args.seeds if not (CACHE / f"onsets-first-{args.steps}-s{s}" / "checkpoint.pt").exists()]
        if missing:
            print(f"error: {CACHE}: no onsets-first-{args.steps} run of seed {missing[0]} (make it with `python -m "
                  f"benchmarks.syllable_linear_b --variants onsets-first --steps {args.steps}`)", file=sys.stderr)
            return 2
        kept = []
        if args.out.exists():
            kept = [r for r in map(json.loads, args.out.read_text(encoding="utf-8").splitlines())
                    if (r["seed"], r["steps"]) not in {(s, args.steps) for s in args.seeds}]
        rows = [r for s in args.seeds for r in reassign_seed(s, args.steps, log=lambda t: print(t, file=sys.stderr, flush=True))]
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept + rows), encoding="utf-8")
    if not args.out.exists():
        print(f"error: {args.out}: no such file", file=sys.stderr)
        return 2
    rows = [json.loads(line) for line in args.out.read_text(encoding="utf-8").splitlines()]
    md = args.out.with_suffix(".md")
    md.write_text(table(rows), encoding="utf-8")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
