"""Issue 49, item 3 (a run that knows it failed): does a reference null run tell a relative from an
unrelated list where the diagnosis's fixed shares do not?

The diagnosis's ``close`` check compares the share of closely matched text with a fixed share; it
flagged 9 of 10 dev alphabet controls but 1 of 5 test ones, because how much of a text any list covers
depends on the two languages' sound patterns. A reference run measures that for the pair at hand: the
same lost text, the same settings and seed, against a phonotactic null of the known list (the list's
sounds, stem lengths and sound transitions, no word of it: engine/closeness/nulls.py, as ``decipher
closeness`` makes them). This script trains that reference for every dev cipher and control of one
script kind (``decipher run``, seed 0, the cipher's default settings) and puts each beside the run
against the real list (the suite's rows), so a check "real minus null below a margin" can be set on
dev data:

    nice -n 10 python -m benchmarks.experiments.reference_null --split dev --script alphabet --workers 2 \\
        --out benchmarks/results/ciphers/dev-reference-null.jsonl
    python -m benchmarks.experiments.reference_null --table benchmarks/results/ciphers/dev-reference-null.jsonl \\
        --own benchmarks/results/ciphers/dev-default.jsonl benchmarks/results/ciphers/dev-controls.jsonl \\
        benchmarks/results/ciphers/dev-controls-more.jsonl

The syllabaries' runs used the preset ``syllabary``; their nulls take it too (``--preset``), and the table
pairs them with the suite's rows of that label:

    nice -n 10 python -m benchmarks.experiments.reference_null --split dev --script syllabary --preset syllabary \
        --workers 2 --out benchmarks/results/ciphers/dev-syllabary-reference-null.jsonl
    python -m benchmarks.experiments.reference_null --table benchmarks/results/ciphers/dev-syllabary-reference-null.jsonl \
        --own benchmarks/results/ciphers/dev-syllabary-grid.jsonl --own-label syllabary-grid

The null's seed is ``--null-seed`` (default 0); a second seed gives the null's spread. The test split is
refused unless CIPHER_SUITE_TEST_RUN=yes (the rule must be fixed in the manifest first). ``--judge OUT``
adds to the suite's rows the finding a default run's own reference would have given (its null is
the seed-0 null made here) and judges them by the manifest's rules:

    python -m benchmarks.experiments.reference_null --table benchmarks/results/ciphers/test-reference-null.jsonl \
        --own benchmarks/results/ciphers/test-alphabet.jsonl --judge benchmarks/results/ciphers/test-alphabet-reference.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Sequence

from benchmarks.cipher_suite import BUILD, build_cipher, build_control, load_folder, manifest, run_one
from engine.closeness.nulls import NULL_MODES

LABEL = "reference-null"


def null_folder(entry: dict, kind: str, ciphers: dict, null_seed: int, mode: str = "phonotactic") -> Path:
    """A copy of the cipher's or control's folder whose known list is the ``mode`` null of its own."""
    from engine.closeness.nulls import null_vocabulary
    from engine.io.atomic import write_text
    from engine.io.tables import write_known

    src = build_cipher(entry) if kind == "cipher" else build_control(entry, ciphers)
    folder = BUILD / f"{entry['id']}-{tag(mode)}{null_seed}"
    if (folder / "known.csv").is_file():
        return folder
    _, vocab = load_folder(src)
    null = null_vocabulary(vocab, null_seed, mode=mode)
    tmp = folder.with_name(folder.name + ".part")
    tmp.mkdir(parents=True, exist_ok=True)
    for name in ("lost.csv", "settings.toml"):
        write_text(tmp / name, (src / name).read_text(encoding="utf-8"))
    write_known(tmp / "known.csv", null.stems)
    tmp.rename(folder)
    return folder


def tag(mode: str) -> str:
    """``null`` for the phonotactic null (the names the first rows have), else the mode's name."""
    return "null" if mode == "phonotactic" else mode


def run(args) -> int:
    if args.split == "test" and os.environ.get("CIPHER_SUITE_TEST_RUN") != "yes":
        print("error: the test split is run once, with a rule fixed in the manifest: set CIPHER_SUITE_TEST_RUN=yes",
              file=sys.stderr)
        return 2
    ciphers, controls = manifest()
    todo = [("cipher", c) for c in ciphers.values() if c["split"] == args.split and c["script"] == args.script]
    todo += [("control", c) for c in controls.values()
             if c["split"] == args.split and ciphers[c["of"]]["script"] == args.script]
    if args.ids:
        todo = [(k, e) for k, e in todo if e["id"] in args.ids]
    done = set()
    if args.out.is_file():
        for ln in args.out.read_text(encoding="utf-8").splitlines():
            if ln.strip():
                r = json.loads(ln)
                done.add((r["of_id"], r["null_seed"], r["seed"], r.get("null_mode", "phonotactic"), r.get("preset")))
    todo = [(k, e) for k, e in todo if (e["id"], args.null_seed, args.seed, args.null_mode, args.preset) not in done]
    folders = {e["id"]: null_folder(e, k, ciphers, args.null_seed, args.null_mode) for k, e in todo}
    args.out.parent.mkdir(parents=True, exist_ok=True)

    def work(item):
        kind, e = item
        ref = {"id": f"{e['id']}-{tag(args.null_mode)}{args.null_seed}", "split": e["split"], "of": e["id"],
               "known": f"{args.null_mode} null {args.null_seed} of {e['id']}'s list"}
        # the null run trains no reference of its own (setting reference_null, newer than the first rows)
        extra = ["--set", "reference_null=off"] + (["--preset", args.preset] if args.preset else [])
        row = run_one(ref, "control", folders[e["id"]], LABEL, extra, args.seed, None, args.script)
        row.update(of_id=e["id"], of_kind=kind, null_seed=args.null_seed, null_mode=args.null_mode)
        if args.preset:
            row["preset"] = args.preset
        with open(args.out, "a", encoding="utf-8") as f:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{e['id']} null {args.null_seed}: coverage {row.get('coverage', float('nan')):.3f}, "
              f"{row['wall_s']:.0f} s", flush=True)

    with ThreadPoolExecutor(max_workers=max(1, args.workers)) as pool:
        list(pool.map(work, todo))
    return 0


def load_rows(paths: Sequence[Path]) -> list[dict]:
    rows = []
    for p in paths:
        rows += [json.loads(ln) for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]
    return rows


def pairs(null_rows: list[dict], own_rows: list[dict], mode: str = "phonotactic", label: str = "default") -> list[dict]:
    """One line per (cipher or control, seed): the real list's run (rows of ``label``) beside its reference
    nulls of ``mode``."""
    own = {(r["id"], r["seed"]): r for r in own_rows if r.get("label") == label and "coverage" in r}
    by: dict[tuple, list[dict]] = {}
    for r in null_rows:
        if "coverage" in r and r.get("null_mode", "phonotactic") == mode:
            by.setdefault((r["of_id"], r["seed"]), []).append(r)
    out = []
    for key, nulls in sorted(by.items()):
        o = own.get(key)
        if o is None:
            continue
        cov = [n["coverage"] for n in nulls]
        obj = [n["final_objective"] for n in nulls]
        out.append({"id": key[0], "seed": key[1], "kind": nulls[0]["of_kind"], "read": bool(o.get("read")),
                    "p_at_10": o.get("p_at_10"), "coverage": o["coverage"], "null_coverage": statistics.mean(cov),
                    "margin": o["coverage"] - statistics.mean(cov), "nulls": len(nulls),
                    "objective": o["final_objective"], "null_objective": statistics.mean(obj),
                    "objective_margin": statistics.mean(obj) - o["final_objective"],
                    "flagged_now": bool(o.get("flagged"))})
    return out


def table(null_paths: Sequence[Path], own_paths: Sequence[Path], mode: str = "phonotactic", label: str = "default") -> str:
    lines = ["| id | kind | P@10 | coverage | null coverage | margin | objective margin | nulls | flagged now |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    rows = pairs(load_rows(null_paths), load_rows(own_paths), mode, label)
    for r in sorted(rows, key=lambda r: (r["kind"], -r["margin"])):
        lines.append(f"| {r['id']} | {r['kind']} | {r['p_at_10']:.3f} | {r['coverage']:.3f} | "
                     f"{r['null_coverage']:.3f} | {r['margin']:+.3f} | {r['objective_margin']:+.3f} | {r['nulls']} | "
                     f"{'yes' if r['flagged_now'] else 'no'} |")
    for kind in ("cipher", "control"):
        m = [r["margin"] for r in rows if r["kind"] == kind]
        if m:
            lines.append(f"\n{kind}: margin min {min(m):+.3f}, median {statistics.median(m):+.3f}, max {max(m):+.3f}")
    return "\n".join(lines)


def judge(null_paths: Sequence[Path], own_paths: Sequence[Path], out: Path, *, null_seed: int = 0,
          mode: str = "phonotactic") -> dict:
    """The suite's runs of ``own_paths`` with the reference finding a default run would have added
    (engine/training/diagnosis.py ``reference_finding``: the reference of a seed-0 run is the null of
    seed 0), judged by the manifest's rules: a row per run and a summary row, written to ``out``."""
    from benchmarks.commit import short_commit
    from engine.training.diagnosis import reference_finding
    from engine.training.reference import REFERENCE_MARGIN, Reference

    nulls = {(r["of_id"], r["seed"]): r for r in load_rows(null_paths)
             if r.get("null_seed") == null_seed and "final_objective" in r
             and r.get("null_mode", "phonotactic") == mode}
    rows = []
    for o in load_rows(own_paths):
        n = nulls.get((o["id"], o["seed"]))
        if n is None or "final_objective" not in o:
            continue
        finding, values = reference_finding(o["final_objective"], Reference(n["final_objective"], n["coverage"], 0))
        rows.append({"id": o["id"], "kind": o["kind"], "seed": o["seed"], "read": bool(o.get("read")),
                     "p_at_10": o.get("p_at_10"), "margin": round(values["diagnosis_reference_margin"], 4),
                     "chance": finding is not None, "flagged_before": bool(o.get("flagged")),
                     "probably_wrong_before": bool(o.get("probably_wrong")),
                     "flagged": bool(o.get("flagged")) or finding is not None,
                     "probably_wrong": bool(o.get("probably_wrong")) or finding is not None})
    controls = [r for r in rows if r["kind"] == "control"]
    fine = [r for r in rows if not r["flagged"]]
    unread = [r for r in rows if not r["read"]]
    summary = {"summary": True, "margin": REFERENCE_MARGIN, "null_seed": null_seed, "runs": len(rows),
               "controls": len(controls), "controls_flagged": sum(r["flagged"] for r in controls),
               "controls_chance": sum(r["chance"] for r in controls),
               "ciphers_read": sum(r["read"] for r in rows if r["kind"] == "cipher"),
               "ciphers_chance": sum(r["chance"] for r in rows if r["kind"] == "cipher"),
               "fine": len(fine), "fine_read": sum(r["read"] for r in fine),
               "fine_read_share": round(sum(r["read"] for r in fine) / len(fine), 4) if fine else None,
               "unread": len(unread), "unread_flagged": sum(r["flagged"] for r in unread),
               "unread_flagged_share": round(sum(r["flagged"] for r in unread) / len(unread), 4) if unread else None,
               "commit": short_commit(), "own": [str(p) for p in own_paths], "nulls": [str(p) for p in null_paths]}
    summary["controls_pass"] = summary["controls_flagged"] == summary["controls"] > 0
    summary["diagnosis_pass"] = (summary["fine_read_share"] or 0) >= 0.95 and (summary["unread_flagged_share"] or 0) >= 0.80
    with open(out, "w", encoding="utf-8") as f:
        for r in rows + [summary]:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--split", choices=("dev", "test"), default="dev")
    p.add_argument("--script", choices=("alphabet", "syllabary"), default="alphabet")
    p.add_argument("--ids", nargs="+", help="only these cipher or control ids")
    p.add_argument("--null-seed", type=int, default=0, help="the null vocabulary's seed (default 0)")
    p.add_argument("--seed", type=int, default=0, help="the training seed (default 0, as the suite's runs)")
    p.add_argument("--null-mode", choices=NULL_MODES, default="phonotactic",
                   help="the null (engine/closeness/nulls.py): phonotactic (the first rows', the reference run's) "
                        "or distant (no word within one sound of a real stem)")
    p.add_argument("--preset", help="decipher run --preset for the null's run (the suite's runs' own: syllabary "
                                    "for the syllabaries)")
    p.add_argument("--own-label", default="default",
                   help="with --table: the label of the suite's rows in --own (default: default)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--out", type=Path, help="the JSONL file rows are appended to")
    p.add_argument("--table", nargs="+", type=Path, metavar="JSONL", help="print the reference rows of these files")
    p.add_argument("--own", nargs="+", type=Path, default=[], metavar="JSONL",
                   help="with --table or --judge: the suite's rows of the runs against the real lists")
    p.add_argument("--judge", type=Path, metavar="JSONL",
                   help="with --table: write the runs of --own with the reference finding added, judged by the "
                        "manifest's rules, to this file (the reference of null seed --null-seed)")
    args = p.parse_args(argv)
    if args.judge:
        if not args.table or not args.own:
            p.error("--judge needs --table (the reference rows) and --own (the suite's rows)")
        print(json.dumps(judge(args.table, args.own, args.judge, null_seed=args.null_seed, mode=args.null_mode)))
        return 0
    if args.table:
        print(table(args.table, args.own, args.null_mode, args.own_label))
        return 0
    if not args.out:
        p.error("--out is needed (or --table FILE...)")
    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
