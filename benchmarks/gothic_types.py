"""Gothic at WR 100 % as type-level data, the authors' ``segmented=True`` loader (issue 30 item 2).

The paper's Table 3 (WR 100 %) ran on the authors' segmented data: each distinct Gothic word once, as a
sentence of its own, the known stems of its occurrences merged, words under 4 letters dropped (their loader
keeps a chunk of 4 to 100 letters; reference-implementation.md §8.1). Our WR 100 % is the running text with
every divider written, so a frequent word (Old Norse *kveð* matches 1,138 tokens) weighs in the objective
and in P@10 as often as it occurs. This builds the type-level text from the cached WR 100 % dataset of
``benchmarks.gothic`` and trains the base model on it with the grid's settings, to see whether the data's
form is what separates our Old Norse and Old English base runs from the paper's.

    python -m benchmarks.gothic_types --known on,oe,pg --seeds 0 1 2     # resumable
    python -m benchmarks.gothic_types --table

Each type is an inscription ``tNNNNN`` with the word as its text; a gold row is the word's stem span (the
prefix-stripped span of the running text's gold, at the same offsets inside the word), once per (word,
known stem). Rows go to benchmarks/results/search/gothic-types.jsonl with P@10 (per distinct word and
stem), the letters read at their standard value and the final objective.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "search" / "gothic-types.jsonl"
#: the authors' loader keeps a chunk of 4 to 100 letters
MIN_LETTERS, MAX_LETTERS = 4, 100


def type_level(src: Path, dst: Path) -> dict:
    """Write the type-level LOST/KNOWN/GOLD of the running-text dataset ``src`` into ``dst``; returns counts."""
    from engine.io.atomic import write_csv

    with open(src / "lost.csv", encoding="utf-8", newline="") as f:
        chunks = {r["id"]: r["text"] for r in csv.DictReader(f)}
    types: dict[str, str] = {}
    for text in chunks.values():
        for word in text.split(" "):
            if MIN_LETTERS <= len(word) <= MAX_LETTERS and word not in types:
                types[word] = f"t{len(types) + 1:05d}"
    gold: dict[tuple[str, str], list] = {}
    with open(src / "gold.csv", encoding="utf-8", newline="") as f:
        for line, r in enumerate(csv.DictReader(f), start=2):
            text = chunks[r["inscription_id"]]
            start, end, stem_end = int(r["start"]), int(r["word_end"]), int(r["stem_end"])
            ws = text.rfind(" ", 0, start) + 1
            we = text.find(" ", start)
            we = len(text) if we < 0 else we
            word = text[ws:we]
            if word != r["token"] or end != we:
                raise SystemExit(f"error: {src / 'gold.csv'}, line {line}: the span {start}-{end} is not inside the "
                                 f"word {r['token']!r} of {r['inscription_id']}")
            if word in types:
                gold.setdefault((word, r["known"]), [types[word], start - ws, end - ws, r["known"], stem_end - ws,
                                                     word, r["lemma"]])
    dst.mkdir(parents=True, exist_ok=True)
    write_csv(dst / "lost.csv", ["id", "text", "reference"], ([tid, w, "type"] for w, tid in types.items()))
    write_csv(dst / "gold.csv", ["inscription_id", "start", "word_end", "known", "stem_end", "token", "lemma"],
              gold.values())
    (dst / "known.csv").write_bytes((src / "known.csv").read_bytes())
    return {"types": len(types), "gold_rows": len(gold), "chunks": len(chunks)}


def done_keys(out: Path) -> set[tuple]:
    if not out.exists():
        return set()
    return {(r["known"], r["seed"], r["schedule"], r["ablation"]) for r in map(json.loads, out.read_text().splitlines())}


def run(knowns: list[str], seeds: list[int], schedules: list[str], ablation: str, out: Path) -> None:
    import torch

    from benchmarks.gothic import CACHE, Cell, cell_settings, ensure_dataset, run_cell

    torch.set_num_threads(1)
    done = done_keys(out)
    for schedule in schedules:
        for seed in seeds:
            for known in knowns:
                if (known, seed, schedule, ablation) in done:
                    continue
                src = ensure_dataset(known, "1")
                data = CACHE / f"{src.name}-types"
                if not (data / "gold.csv").exists():
                    print(f"{data.name}: {type_level(src, data)}", file=sys.stderr)
                cell = Cell(known, "1", "base", schedule, seed, ablation)
                v = run_cell(str(data / "lost.csv"), str(data / "known.csv"), str(data / "gold.csv"), None,
                             cell_settings(cell))
                s = v["search"]
                row = {"known": known, "seed": seed, "schedule": schedule, "ablation": ablation,
                       "p_at_10": v["p_at_10"], "p_at_10_strict": v["p_at_10_strict"], "steps": v["steps"],
                       "wall_s": v["wall_s"], "letters_right": s["letters_right"], "letters": s["letters"],
                       "final_objective": s.get("final_objective"), "flagged": s["flagged"]}
                out.parent.mkdir(parents=True, exist_ok=True)
                with open(out, "a", encoding="utf-8") as f:
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")
                print(json.dumps(row), file=sys.stderr, flush=True)


def table(out: Path) -> list[str]:
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    lines = ["| known | schedule | ablation | P@10 per seed | mean | letters right per seed | final objective per seed |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    groups: dict[tuple, list] = {}
    for r in rows:
        groups.setdefault((r["known"], r["schedule"], r["ablation"]), []).append(r)
    for (known, schedule, ablation), rs in groups.items():
        rs.sort(key=lambda r: r["seed"])
        p10 = " / ".join(f"{r['p_at_10']:.3f}" for r in rs)
        letters = " / ".join(str(r["letters_right"]) for r in rs)
        objective = " / ".join(f"{r['final_objective']:.3f}" for r in rs)
        mean = statistics.fmean(r["p_at_10"] for r in rs)
        lines.append(f"| {known} | {schedule} | {ablation} | {p10} | {mean:.3f} | {letters} | {objective} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.gothic_types", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--known", default="on,oe,pg", help="on, oe, pg (comma-separated)")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--schedule", default="0-3.5", help="0-3.5, 10-3.5 (comma-separated)")
    p.add_argument("--ablation", default="none", help="a benchmarks.gothic ablation or trial (default none)")
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--table", action="store_true", help="print the table of --out")
    args = p.parse_args(argv)
    from benchmarks.gothic import KNOWN, SCHEDULES, SETTINGS_OF

    knowns = args.known.split(",")
    schedules = args.schedule.split(",")
    bad = ([f"--known {k}" for k in knowns if k not in KNOWN] + [f"--schedule {s}" for s in schedules if s not in SCHEDULES]
           + ([f"--ablation {args.ablation}"] if args.ablation not in SETTINGS_OF else [])
           + [f"--seeds {s}" for s in args.seeds if s < 0])
    if bad:
        print(f"error: unknown {bad[0]}", file=sys.stderr)
        return 2
    if args.table:
        if not args.out.is_file():
            print(f"error: {args.out}: no such file", file=sys.stderr)
            return 2
        print("\n".join(table(args.out)))
        return 0
    run(knowns, args.seeds, schedules, args.ablation, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
