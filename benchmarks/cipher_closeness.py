"""Issue 49, "closeness on the test ciphers": which known list is closest, asked of an invented cipher's
lost text as a user asks it (``decipher closeness``, default budget: 3 seeds x 3 phonotactic nulls),
with two candidates: the cipher's own relative (its known.csv) and the unrelated list of the
manifest's control of that cipher (the control's known.csv).

One row per cipher: each candidate's score, null mean, margin over its null, Holm p, verdict and
rank, and the two consistency signals (mapping and decoding agreement, as z over the nulls'); and
whether the manifest's closeness rule holds for it: the relative is "closer than chance" and ranked
first, and the unrelated list is not "closer than chance". The cipher's one-run P@10 (its
``cipher_suite`` row, when given) tells whether the runs decipher the relative.

A comparison's runs are kept under build/cipher-closeness/ID, so a second invocation continues
where the first stopped (``decipher closeness`` resumes a folder with an earlier comparison), and one with
the other ``--score`` only summarises the same runs again. A cipher whose row (by that score) is in --out
already is passed over, so the whole command can be run again after an interruption.

    nice -n 10 python -m benchmarks.cipher_closeness --split dev --ids dev-a-latin-1 --workers 2 \\
        --suite benchmarks/results/ciphers/dev-default.jsonl --out benchmarks/results/ciphers/dev-closeness.jsonl
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Sequence

from benchmarks.cipher_suite import PINNED_ENV, ROOT, build_cipher, build_control, manifest
from engine.closeness.nulls import NULL_MODES

OUT_ROOT = ROOT / "build" / "cipher-closeness"


def controls_of(cid: str, controls: dict[str, dict]) -> list[dict]:
    """The manifest's controls of cipher ``cid`` (the one among them is its unrelated list)."""
    return [c for c in controls.values() if c["of"] == cid]


def summary_rows(out: Path) -> dict[str, dict]:
    with open(out / "summary.csv", encoding="utf-8", newline="") as f:
        return {r["known"]: r for r in csv.DictReader(f)}


def judged(summary: dict[str, dict]) -> dict:
    """The row's closeness figures and the manifest's rule for one cipher."""
    from engine.closeness.comparison import CLOSER

    order = list(summary)                      # summary.csv lists the candidates best first

    def num(r, k):
        return float(r[k]) if r.get(k) not in (None, "") else None

    row = {}
    for name, tag in (("relative", "rel"), ("unrelated", "unrel")):
        r = summary.get(name, {})
        row.update({f"{tag}_score": num(r, "score_mean"), f"{tag}_null_mean": num(r, "null_mean"),
                    f"{tag}_margin": num(r, "margin"), f"{tag}_p_holm": num(r, "p_holm"),
                    f"{tag}_verdict": r.get("verdict"), f"{tag}_rank": order.index(name) + 1 if name in order else None,
                    f"{tag}_mapping_z": num(r, "mapping_z"), f"{tag}_decoding_z": num(r, "decoding_z")})
    row["relative_found"] = row["rel_verdict"] == CLOSER and row["rel_rank"] == 1
    row["unrelated_rejected"] = row["unrel_verdict"] != CLOSER
    row["rule_holds"] = row["relative_found"] and row["unrelated_rejected"]
    return row


def done_ids(out: Path, score: str, null_mode: str = "phonotactic") -> set[str]:
    """The ciphers whose comparison, by ``score`` against ``null_mode`` nulls, already has a finished row in ``out``."""
    if not out.is_file():
        return set()
    rows = [json.loads(ln) for ln in out.read_text(encoding="utf-8").splitlines() if ln.strip()]
    return {r["id"] for r in rows if r.get("score", "area") == score and "rule_holds" in r
            and r.get("null_mode", "phonotactic") == null_mode}


def suite_p10(path: Path | None, cid: str) -> float | None:
    if path is None or not path.is_file():
        return None
    for ln in path.read_text(encoding="utf-8").splitlines():
        r = json.loads(ln) if ln.strip() else {}
        if r.get("id") == cid and "p_at_10" in r:
            return r["p_at_10"]
    return None


def run_one(entry: dict, control: dict, ciphers: dict, args) -> dict:
    folder = build_cipher(entry)
    unrelated = build_control(control, ciphers)
    # another null mode trains other nulls: its comparison gets a folder of its own
    out = OUT_ROOT / (entry["id"] + ("" if args.null_mode == "phonotactic" else f"-{args.null_mode}"))
    cmd = [sys.executable, "-m", "engine", "closeness", "--lost", str(folder / "lost.csv"),
           "--known", f"relative={folder / 'known.csv'}", f"unrelated={unrelated / 'known.csv'}",
           "--config", str(folder / "settings.toml"), "--seeds", *map(str, args.seeds), "--null", str(args.null),
           "--workers", str(args.workers), "--out", str(out)]
    if args.preset:
        cmd += ["--preset", args.preset]
    if args.score != "area":
        cmd += ["--score", args.score]
    if args.steps:
        cmd += ["--steps", str(args.steps)]
    if args.null_mode != "phonotactic":
        cmd += ["--null-mode", args.null_mode]
    t0 = time.time()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **PINNED_ENV, "PYTHONPATH": str(ROOT)})
    from benchmarks.commit import short_commit

    shown = " ".join("python" if i == 0 else str(c).replace(f"{ROOT}/", "") for i, c in enumerate(cmd))
    row = {"id": entry["id"], "script": entry["script"], "relation": entry["relation"], "wr": entry["wr"],
           "unrelated": control["known"], "seeds": list(args.seeds), "null": args.null, "steps": args.steps,
           "score": args.score, "null_mode": args.null_mode,
           "preset": args.preset, "wall_s": round(time.time() - t0, 1), "rc": proc.returncode,
           "commit": short_commit(), "command": shown, "p_at_10_one_run": suite_p10(args.suite, entry["id"])}
    if not (out / "summary.csv").is_file():
        row["error"] = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"
        return row
    row.update(judged(summary_rows(out)))
    row.update(run_scores(out))
    return row


def run_scores(out: Path) -> dict:
    """Each candidate's runs, as the comparison scored them (runs.csv: the kept run of each seed, its own
    list's and each null's): ``rel_seed_scores``, ``rel_null_scores`` ({null: [by seed]}) and the same
    for ``unrel``; empty when the file is missing."""
    path = out / "runs.csv"
    if not path.is_file():
        return {}
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    got: dict = {}
    for name, tag in (("relative", "rel"), ("unrelated", "unrel")):
        mine = sorted((r for r in rows if r["known"] == name), key=lambda r: int(r["seed"]))
        got[f"{tag}_seed_scores"] = [float(r["score"]) for r in mine if r["null"] == ""]
        nulls: dict[str, list[float]] = {}
        for r in mine:
            if r["null"] != "":
                nulls.setdefault(r["null"], []).append(float(r["score"]))
        got[f"{tag}_null_scores"] = nulls
    return got


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--split", choices=("dev", "test"), required=True)
    p.add_argument("--ids", nargs="+", required=True, help="cipher ids (each needs one control in the manifest)")
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    p.add_argument("--null", type=int, default=3)
    p.add_argument("--steps", type=int, help="decipher closeness --steps (default: its own)")
    p.add_argument("--preset", help="decipher closeness --preset")
    p.add_argument("--score", choices=("area", "objective"), default="area",
                   help="decipher closeness --score (the runs are the same whatever the score: a second invocation "
                        "with the other score reuses them and only summarises again)")
    p.add_argument("--null-mode", choices=NULL_MODES, default="phonotactic",
                   help="decipher closeness --null-mode (another mode trains other nulls, in a folder of its own)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--suite", type=Path, help="a cipher_suite JSONL whose one-run P@10 goes in the rows")
    p.add_argument("--out", type=Path, required=True, help="the JSONL file rows are appended to")
    args = p.parse_args(argv)
    if args.split == "test" and os.environ.get("CIPHER_SUITE_TEST_RUN") != "yes":
        p.error("the test split is run once, at the end, with the rule fixed first: set CIPHER_SUITE_TEST_RUN=yes")
    ciphers, controls = manifest()
    for cid in args.ids:  # every id checked before anything runs
        if cid not in ciphers or ciphers[cid]["split"] != args.split:
            p.error(f"--ids {cid}: no {args.split} cipher of that id in the manifest")
        if len(controls_of(cid, controls)) != 1:
            p.error(f"--ids {cid}: {len(controls_of(cid, controls))} controls of it in the manifest; one is needed")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = done_ids(args.out, args.score, args.null_mode)
    for cid in args.ids:
        if cid in done:   # a resumed invocation: that comparison's row is there already
            print(f"{cid}: already in {args.out} (score {args.score}, {args.null_mode} nulls); not run again",
                  flush=True)
            continue
        row = run_one(ciphers[cid], controls_of(cid, controls)[0], ciphers, args)
        with open(args.out, "a", encoding="utf-8") as f:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(json.dumps(row, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
