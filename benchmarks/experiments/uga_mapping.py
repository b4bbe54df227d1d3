"""How the character mapping develops while a Ugaritic–Hebrew run trains (issue 15, item 1: why
training on the full set goes wrong where the small set's does not).

    python -m benchmarks.experiments.uga_mapping --data data/uga-small --at 100 200 500 1000 3000 --seed 0
    python -m benchmarks.experiments.uga_mapping --data data/uga-full --at 100 200 500 1000 --seed 0 --set candidate_stems=64
    python -m benchmarks.experiments.uga_mapping --data data/uga-full --checkpoint RUN/seed-0/checkpoint.pt   # a run's mapping
    python -m benchmarks.experiments.uga_mapping --data data/uga-full --matches RUN/seed-0/matches.csv        # its identical forms
    python -m benchmarks.experiments.uga_mapping --data data/uga-full --write-prior PRIOR.csv                 # the standard values

The cognate file writes Ugaritic and Hebrew in one transliteration (``akl`` ~ ``akl``), so the
reading that shares a letter's transliteration (or, for the five consonants Hebrew merged, the
merged letter: MERGERS), transcribed as the Hebrew side is (engine/io/transcription.py, table
"semitic"), is the standard value of every Ugaritic letter. At each step of ``--at`` the script reads the model's mapping (gold-free: the
standard values are not given to training) and prints one JSON line: how many letters the mapping
reads as their standard value (``letters_right`` of ``letters``), the same weighted by the letters'
frequency in the corpus (``tokens_right``), each letter's best unit, and with ``--eval`` P@1 and
P@10 over the gold (a full evaluation: ~30 s on the full set).
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

from benchmarks.gothic_ranks import final_objective, prior_agreement


#: Ugaritic consonants that Hebrew merged into another (Proto-Semitic *ð, *ɣ, *θˤ, *θ, *χ): the
#: cognate's letter is the merged one (Ugaritic *dbH* ~ Hebrew *zbH*); every other letter is its own.
MERGERS = {"*": "z", "@": "<", "Z": "S", "v": "$", "x": "H"}


def standard_values(letters) -> list:
    """PinnedValue(letter, IPA) for every lost letter the Semitic table transcribes: the IPA of the
    Hebrew letter its cognates show (itself, or the merged letter of MERGERS)."""
    from engine.corpus import PinnedValue
    from engine.io.transcription import TranscriptionError, transcribe

    out = []
    for letter in letters:
        try:
            ipa = transcribe(MERGERS.get(letter, letter), "semitic")
        except TranscriptionError:
            continue
        if ipa:
            out.append(PinnedValue(letter, ipa))
    return out


def mapping_state(trainer, values, frequency: collections.Counter) -> dict:
    agree = prior_agreement(trainer.mapping(), values)
    right = set(agree["prior_agree_letters"].split())
    counted = [v.lost for v in values if v.lost in trainer.prep.lost_letters]
    total = sum(frequency[c] for c in counted)
    return {"letters_right": agree["prior_agree"], "letters": agree["prior_letters"],
            "tokens_right": round(sum(frequency[c] for c in right) / total, 4) if total else None,
            "mapping_best": agree["mapping_best"]}


def identical_forms(data: Path, matches: Path) -> dict:
    """How a run's top-ranked stems (its matches.csv) fare on the gold words whose Ugaritic form is
    written exactly as one of their gold Hebrew forms (``aby`` ~ ``aby``), which the standard values
    read as an exact match, against the other gold words; and, for the identical words it misses with
    a stem of the same length, which letter pairs (Ugaritic, the stem's letter) differ, commonest first.

    matches.csv holds the words the decode matched, so a gold word the decode left unmatched counts as
    missed (the decode-based figure, not P@1); ``matched`` says how many gold words have a match."""
    import csv

    from engine.io.tables import read_gold, read_lost

    inscriptions = read_lost(data / "lost.csv")
    words = {ins.id: ins.text for ins in inscriptions}
    gold: dict[str, set[str]] = collections.defaultdict(set)
    for g in read_gold(data / "gold.csv", inscriptions=inscriptions):
        gold[g.inscription_id].update(g.known)
    top: dict[str, str] = {}
    with open(matches, encoding="utf-8", newline="") as f:
        for r in csv.DictReader(f):
            if r["rank"] == "1":
                top[r["inscription_id"]] = r["stem_form"]
    identical = {i for i, forms in gold.items() if words.get(i) in forms}
    differ: collections.Counter = collections.Counter()
    for i in identical:
        t = top.get(i)
        if t is not None and t not in gold[i] and len(t) == len(words[i]):
            differ.update((a, b) for a, b in zip(words[i], t) if a != b)
    hit = lambda ids: sum(1 for i in ids if top.get(i) in gold[i])  # noqa: E731
    others = set(gold) - identical
    return {"matches": str(matches), "gold_words": len(gold), "matched": sum(1 for i in gold if i in top),
            "identical": len(identical),
            "identical_top1": hit(identical), "others": len(others), "others_top1": hit(others),
            "identical_missed_by": [f"{a}>{b} {n}" for (a, b), n in differ.most_common(8)]}


def write_standard_prior(data: Path, out: Path) -> int:
    """The standard values of every letter of ``data``'s lost.csv as a PRIOR.csv: pinning them all gives
    the model the right mapping, what its ranking can reach with it (the ceiling of docs/benchmarks.md)."""
    from engine.io.atomic import write_csv
    from engine.io.tables import read_lost

    letters = sorted({c for ins in read_lost(data / "lost.csv") for c in ins.text if c != " "})
    values = standard_values(letters)
    write_csv(out, ("lost", "known_ipa"), ((v.lost, v.known_ipa) for v in values))
    print(f"{len(values)} of {len(letters)} letters -> {out}")
    return 0


def _positive(text: str) -> int:
    value = int(text) if text.strip().lstrip("+").isdigit() else 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"a whole number of stems from 1 on, got {text!r}")
    return value


def main(argv=None) -> int:
    """A bad input (a missing or malformed file, a bad --set, a foreign checkpoint, an output that
    cannot be written) is one line on stderr and exit status 2."""
    from engine.errors import DecipherError

    try:
        return _main(argv)
    except (DecipherError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


def _main(argv=None) -> int:
    import torch

    from engine.config import PRESETS, Config, parse_assignments
    from engine.io.tables import read_gold, read_known, read_lost
    from engine.corpus import Corpus, Vocabulary
    from engine.results import StepEvent
    from engine.training.trainer import Trainer

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, required=True, help="a folder with lost.csv, known.csv, gold.csv")
    p.add_argument("--at", type=int, nargs="+", default=[3000], help="steps at which the mapping is read")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="settings over the preset's")
    p.add_argument("--eval", action="store_true", help="also P@1 and P@10 at each step of --at")
    p.add_argument("--out", type=Path, help="append the JSON lines to this file too")
    p.add_argument("--matches-out", type=Path, help="with --eval: write the last evaluation's matches.csv here")
    p.add_argument("--matches", type=Path, help="only summarise this run's matches.csv on the gold words written "
                   "as their Hebrew cognate (identical_forms), and stop")
    p.add_argument("--checkpoint", type=Path, help="read the mapping of this run's checkpoint (its step) instead "
                   "of training; --at, --seed and --set are ignored")
    p.add_argument("--checkpoint-out", type=Path, help="write the model at the last step of --at to this "
                   "checkpoint (read it back with --checkpoint)")
    p.add_argument("--objective", action="store_true", help="also the gold-free final objective at each step of "
                   "--at (benchmarks/gothic_ranks.final_objective; one more pass over the corpus)")
    p.add_argument("--objective-stems", type=_positive, nargs="+", default=[], metavar="K", help="also the objective "
                   "without the pins' term with each span's P(span | matched) the mean over its K best stems "
                   "(candidate_stems' competition at K) instead of every stem")
    p.add_argument("--write-prior", type=Path, metavar="PRIOR_CSV", help="only write the standard values of the "
                   "corpus's letters as a PRIOR.csv (lost,known_ipa: `decipher run --prior`), and stop")
    args = p.parse_args(argv)
    if args.write_prior:
        return write_standard_prior(args.data, args.write_prior)
    if args.matches:
        print(json.dumps(identical_forms(args.data, args.matches), ensure_ascii=False))
        return 0
    extra = parse_assignments(args.set, what="--set")
    torch.set_num_threads(1)
    inscriptions = read_lost(args.data / "lost.csv")
    corpus = Corpus("lost", tuple(inscriptions))
    vocab = Vocabulary("known", tuple(read_known(args.data / "known.csv")))
    gold = list(read_gold(args.data / "gold.csv", inscriptions=inscriptions))
    steps = max(args.at)
    if args.checkpoint:
        trainer = Trainer.from_checkpoint(args.checkpoint, corpus, vocab, gold=gold, live_interval=None,
                                          config_overrides={"device": "cpu"})
        extra = {k: v for k, v in trainer.config.to_dict().items() if v != getattr(Config(), k)}
        args.seed, args.at, steps = trainer.config.seed, [trainer.step], 0
    else:
        config = Config.from_dict({**PRESETS["ugaritic"], "eval_interval": 0, "device": "cpu", "seed": args.seed,
                                   **extra, "steps": max(steps, int(extra.get("steps", 3000)))})
        trainer = Trainer(corpus, vocab, config, gold=gold, live_interval=None)
    frequency = collections.Counter(c for ins in inscriptions for c in ins.text if c != " ")
    values = standard_values(trainer.prep.lost_letters)
    at = sorted(set(args.at))
    t0 = time.perf_counter()

    def report(step: int) -> None:
        line = {"data": str(args.data), "seed": args.seed, "settings": extra, "step": step,
                **({"checkpoint": str(args.checkpoint)} if args.checkpoint else {}),
                **mapping_state(trainer, values, frequency), "train_s": round(time.perf_counter() - t0, 1)}
        if args.objective:
            line.update(final_objective(trainer))
        for k in args.objective_stems:
            line[f"final_objective_without_pins_k{k}"] = final_objective(trainer, stems=k)["final_objective_without_pins"]
        if args.eval:
            ev = trainer.evaluate()
            m = ev.metrics
            line.update(p_at_1=round(m["p_at_1"], 4), p_at_10=round(m["p_at_10"], 4))
            if args.matches_out and step == at[-1]:
                from engine.io.reports import write_matches_csv

                write_matches_csv(args.matches_out, ev.matches)
                line.update(identical_forms(args.data, args.matches_out))
        if args.checkpoint_out and step == at[-1] and not args.checkpoint:
            trainer.save_checkpoint(args.checkpoint_out)
        text = json.dumps(line, ensure_ascii=False)
        print(text, flush=True)
        if args.out:
            with open(args.out, "a", encoding="utf-8") as f:
                f.write(text + "\n")

    if args.checkpoint:
        report(trainer.step)
        return 0
    if 0 in at:
        report(0)
    for event in trainer.run(steps):
        if isinstance(event, StepEvent) and event.step in at:
            report(event.step)
            if event.step >= steps:
                break
    return 0


if __name__ == "__main__":
    sys.exit(main())
