"""The invented ciphers of issue 49, run as a user runs them: ``decipher run`` with no pins on each
cipher of benchmarks/cipher_manifest.toml (engine/datasets/invented.py builds them).

Each row (one run): the cipher, its script, source, relation and word-divider rate; the settings
label and what it adds to the command; P@1, P@10 and their strict figures, coverage; the share of
letters or signs whose top reading is among their known values (key.csv: for a sign both its top
onset and its top vowel); whether the run is *read* by the manifest's rule (alphabet: P@10 >= 0.80;
syllabary: P@10 >= 0.70 and >= 60 % of signs right; a control never); the run's gold-free
diagnosis (flagged or not, and its findings); the wall time, the commit and the command.

Rows go to a JSONL file as they finish; a second invocation skips the (cipher, label, seed) rows
already there (resumable). ``--table`` prints a summary per script and the diagnosis's confusion.

    nice -n 10 python -m benchmarks.cipher_suite --split dev --label default \\
        --out benchmarks/results/ciphers/dev-default.jsonl --workers 2
    python -m benchmarks.cipher_suite --table benchmarks/results/ciphers/dev-default.jsonl

The ciphers and the runs' folders are kept under build/ (not committed; rebuilt from the manifest).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "benchmarks" / "cipher_manifest.toml"
BUILD = ROOT / "build" / "ciphers"
RUNS = ROOT / "build" / "cipher-runs"
READ_P10 = {"alphabet": 0.80, "syllabary": 0.70}
SIGNS_RIGHT = 0.60
PINNED_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def manifest(path: Path = MANIFEST) -> tuple[dict[str, dict], dict[str, dict]]:
    """(cipher id -> entry, control id -> entry)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    ciphers = {c["id"]: c for c in data.get("cipher", [])}
    controls = {c["id"]: c for c in data.get("control", [])}
    for c in controls.values():
        if c["of"] not in ciphers:
            raise SystemExit(f"{path}: control {c['id']} reads {c['of']!r}, which is not a cipher of the manifest")
    return ciphers, controls


def build_cipher(entry: dict) -> Path:
    """The cipher's folder under build/ciphers (built once; the build is deterministic)."""
    from engine.datasets.invented import make_invented_cipher, write_cipher

    folder = BUILD / entry["id"]
    if (folder / "info.json").is_file():
        return folder
    cipher = make_invented_cipher(entry["source"], seed=entry["seed"], script=entry["script"],
                                  relation=entry["relation"], wr=entry["wr"])
    tmp = folder.with_name(folder.name + ".part")
    if tmp.exists():
        import shutil
        shutil.rmtree(tmp)
    write_cipher(cipher, tmp)
    tmp.rename(folder)
    return folder


def build_control(entry: dict, ciphers: dict[str, dict]) -> Path:
    """The control's folder: the lost text of ``of`` and the unrelated language's 600-stem list."""
    from engine.datasets.candidates import build
    from engine.io.atomic import write_text
    from engine.io.tables import write_known

    folder = BUILD / entry["id"]
    if (folder / "known.csv").is_file():
        return folder
    of = build_cipher(ciphers[entry["of"]])
    tmp = folder.with_name(folder.name + ".part")
    tmp.mkdir(parents=True, exist_ok=True)
    for name in ("lost.csv", "settings.toml", "key.csv"):
        write_text(tmp / name, (of / name).read_text(encoding="utf-8"))
    write_known(tmp / "known.csv", build(entry["known"], stems=600).stems)
    tmp.rename(folder)
    return folder


def load_folder(data: Path):
    """(corpus, vocabulary) of a cipher's or control's folder."""
    from engine.corpus import Corpus, Vocabulary
    from engine.io.tables import read_known, read_lost

    return (Corpus("lost", tuple(read_lost(data / "lost.csv"))),
            Vocabulary("known", tuple(read_known(data / "known.csv"))))


def read_key(data: Path) -> dict[str, dict]:
    """The cipher's key.csv: sign or letter -> its row (known values)."""
    import csv

    with open(data / "key.csv", encoding="utf-8", newline="") as f:
        return {r["sign"]: r for r in csv.DictReader(f)}


def syllables_right(top: dict[str, tuple[str, str]], key: dict[str, dict]) -> tuple[int, int, int, int]:
    """(signs whose onset and vowel in ``top`` (sign -> its read onset and vowel) are both among their known
    values, signs with the onset right, signs with the vowel right, signs with a known value)."""
    both = onsets = vowels = total = 0
    for sign, (onset, vowel) in top.items():
        row = key.get(sign)
        if row is None or not row["known_vowels"]:
            continue
        o, v = onset in row["known_onsets"].split("|"), vowel in row["known_vowels"].split("|")
        total += 1
        both += o and v
        onsets += o
        vowels += v
    return both, onsets, vowels, total


def readings_right(run_dir: Path, data: Path, script: str) -> tuple[int, int]:
    """(letters or signs whose top reading is among their known values, letters or signs with a
    known value), read from the run's checkpoint."""
    from engine.training.trainer import Trainer

    trainer = Trainer.from_checkpoint(run_dir / "checkpoint.pt", *load_folder(data))
    snap = trainer.mapping()
    key = read_key(data)
    if script == "syllabary":
        right, _, _, total = syllables_right(snap.syllables.top_values(), key)
        return right, total
    right = total = 0
    for letter in snap.lost:
        row = key.get(letter)
        if row is None or not row["known_sounds"]:
            continue
        best = snap.best_known_for(letter, 1)
        total += 1
        right += bool(best) and best[0][0] in row["known_sounds"].split("|")
    return right, total


def run_one(entry: dict, kind: str, folder: Path, label: str, extra: Sequence[str], seed: int, steps: int | None,
            script: str) -> dict:
    out = RUNS / label / f"{entry['id']}-s{seed}"
    if out.exists():
        import shutil
        shutil.rmtree(out)
    cmd = [sys.executable, "-m", "engine", "run", "--lost", str(folder / "lost.csv"), "--known",
           str(folder / "known.csv"), "--config", str(folder / "settings.toml"), "--seed", str(seed),
           "--out", str(out), "--quiet", *extra]
    if kind == "cipher":
        cmd[cmd.index("--config"):cmd.index("--config")] = ["--gold", str(folder / "gold.csv")]
    if steps is not None:
        cmd += ["--steps", str(steps)]
    t0 = time.time()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **PINNED_ENV, "PYTHONPATH": str(ROOT)})
    wall = time.time() - t0
    from benchmarks.commit import short_commit

    shown = " ".join(shlex.quote(str(Path(c).relative_to(ROOT)) if str(c).startswith(str(ROOT)) else c)
                     for c in ["python", *cmd[1:]])
    row = {"id": entry["id"], "kind": kind, "split": entry["split"], "script": script, "label": label,
           "extra": list(extra), "seed": seed, "wall_s": round(wall, 1), "rc": proc.returncode,
           "commit": short_commit(), "command": shown}
    if kind == "cipher":
        row.update(source=entry["source"], relation=entry["relation"], wr=entry["wr"])
    else:
        row.update(of=entry["of"], known=entry["known"])
    if proc.returncode != 0:
        row["error"] = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"
        return row
    m = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    for k in ("p_at_1", "p_at_10", "p_at_1_strict", "p_at_10_strict", "coverage", "final_objective", "steps"):
        row[k] = m.get(k, 0.0)  # a control has no gold: its P@K are 0 (no right reading exists)
    diag = m.get("diagnosis") or {}
    values = diag.get("values") or {}
    if "diagnosis_reference_margin" in values:   # the run's reference run (setting reference_null)
        row["reference_margin"] = values["diagnosis_reference_margin"]
        row["reference_objective"] = values["diagnosis_reference_objective"]
    row["flagged"] = bool(diag.get("flagged"))
    row["findings"] = [f"{f.get('code', '')}: {f.get('text', '')}" for f in diag.get("findings", [])]
    row["probably_wrong"] = probably_wrong(diag)
    row["warnings"] = [ln for ln in proc.stderr.splitlines() if ln.startswith(("warning", "diagnosis", "note"))]
    if kind == "control":  # no right reading exists: the key is the other language's
        row["values_share"], row["read"] = None, False
        return row
    right, total = readings_right(out, folder, script)
    share = right / total if total else 0.0
    row.update(values_right=right, values_total=total, values_share=round(share, 4))
    row["read"] = row["p_at_10"] >= READ_P10[script] and (script != "syllabary" or share >= SIGNS_RIGHT)
    return row


def probably_wrong(diag: dict) -> bool:
    """Whether a stored diagnosis says the reading is probably wrong (engine/training/diagnosis.py)."""
    from engine.training.diagnosis import WRONG_CODES

    return any(f.get("flag", True) and f.get("code") in WRONG_CODES for f in diag.get("findings", []))


def rediagnose(rows_file: Path, out: Path) -> int:
    """Each finished run of ``rows_file`` diagnosed again with this checkout's diagnosis (its model read
    from the run's checkpoint and evaluated once more): one row per run to ``out``. A syllable run's signs
    are read again too, with this checkout's sign grid (``values_share_now`` and its onsets and vowels apart,
    beside the run's own ``values_share``)."""
    from engine.training.diagnosis import diagnose
    from engine.training.trainer import Trainer
    from benchmarks.commit import short_commit

    rows = [json.loads(ln) for ln in rows_file.read_text(encoding="utf-8").splitlines() if ln.strip()]
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "a", encoding="utf-8") as f:
        for r in rows:
            if "p_at_10" not in r:
                continue
            data = BUILD / r["id"]
            run = RUNS / r["label"] / f"{r['id']}-s{r['seed']}"
            trainer = Trainer.from_checkpoint(run / "checkpoint.pt", *load_folder(data))
            trainer.evaluate()
            d = diagnose(trainer)
            row = {k: r[k] for k in ("id", "kind", "split", "script", "label", "seed", "p_at_10", "values_share",
                                     "read") if k in r}
            row.update(flagged=d.flagged, probably_wrong=d.probably_wrong,
                       codes=[x.code for x in d.findings if x.flag],
                       values={k: round(v, 4) for k, v in d.values.items()}, headline=d.headline(),
                       commit=short_commit(), of_file=str(rows_file))
            if r.get("script") == "syllabary" and r.get("kind") != "control":
                both, onsets, vowels, total = syllables_right(trainer.mapping().syllables.top_values(), read_key(data))
                row.update(values_share_now=round(both / total, 4), onsets_share_now=round(onsets / total, 4),
                           vowels_share_now=round(vowels / total, 4), values_total=total,
                           read_now=r["p_at_10"] >= READ_P10["syllabary"] and both / total >= SIGNS_RIGHT)
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            print(f"{r['id']} ({r['label']}): {'probably wrong' if d.probably_wrong else 'flagged' if d.flagged else 'fine'}"
                  f" {row['codes']}", flush=True)
    return 0


ORACLE_PARTS = ("all", "vowels", "onsets", "vowel-classes")


def check_part(part: str) -> str:
    """``all``, ``vowels`` (a sign's vowel only: ``-a``), ``onsets`` (its onset only: ``k-``; a bare
    vowel sign keeps its whole value), ``vowel-classes`` (each sign's vowel pinned to the vowel most of
    its group has, the groups found from the text alone: benchmarks/experiments/syllable_vowel_classes.py)
    or ``top:N`` (the N most frequent signs or letters, whole)."""
    if part in ORACLE_PARTS or (part.startswith("top:") and part[4:].isdigit() and int(part[4:]) > 0):
        return part
    raise ValueError(f"--oracle-part {part!r}: one of {', '.join(ORACLE_PARTS)} or top:N (N > 0)")


def oracle_pins(folder: Path, out: Path, part: str = "all") -> int:
    """A PRIOR.csv pinning every letter or sign of the text to its known value (key.csv: the first
    known onset and vowel of a sign, the first known sound of a letter) where the known list has it;
    ``part`` (check_part) pins only part of each value or only the most frequent signs."""
    import collections
    import csv

    from engine.io.atomic import write_csv
    from engine.io.tables import read_known, read_lost
    from engine.model.phonology import ipa_units

    freq = collections.Counter(c for i in read_lost(folder / "lost.csv") for c in i.text if not c.isspace())
    text = set(freq)
    if part.startswith("top:"):
        text = {c for c, _ in freq.most_common(int(part[4:]))}
    units = {u for s in read_known(folder / "known.csv") for u in ipa_units(s.ipa)}
    rows = []
    if part == "vowel-classes":
        from benchmarks.experiments.syllable_vowel_classes import majority_vowels, texts_of, vowel_classes
        from benchmarks.experiments.syllable_objective import key_of

        key = key_of(folder)
        groups = vowel_classes(texts_of(folder), len({v for _, v in key.values()}))
        named = majority_vowels(groups, key, freq)
        rows = [(sign, "-" + named[g], "1") for sign, g in sorted(groups.items()) if named.get(g) in units]
        write_csv(out, ("lost", "known_ipa", "weight"), rows)
        return len(rows)
    with open(folder / "key.csv", encoding="utf-8", newline="") as f:
        for r in csv.DictReader(f):
            if r["sign"] not in text:
                continue
            if r["known_vowels"]:       # a sign: onset and vowel
                onset, vowel = r["known_onsets"].split("|")[0], r["known_vowels"].split("|")[0]
                bare = onset in ("∅", "")
                if vowel in units and (bare or onset in units):
                    value = vowel if bare else onset + vowel
                    if part == "vowels":
                        value = "-" + vowel
                    elif part == "onsets" and not bare:
                        value = onset + "-"
                    rows.append((r["sign"], value, "1"))
            elif r["known_sounds"] and r["known_sounds"].split("|")[0] in units:
                rows.append((r["sign"], r["known_sounds"].split("|")[0], "1"))
    write_csv(out, ("lost", "known_ipa", "weight"), rows)
    return len(rows)


def pinned_then_released(folder: Path, prior: Path, work: Path, extra: Sequence[str], pinned_steps: int,
                         steps: int, seed: int = 0):
    """The cipher in ``folder`` trained ``pinned_steps`` (seed ``seed``, settings ``extra``) with the pins of
    ``prior`` (a PRIOR.csv), then the pins released (weight 0) and trained on to ``steps``: (the trainer, its
    evaluation, its objective over the corpus). The pinned run's folder is ``work``/pinned (made anew), the
    released checkpoint ``work``/released.pt."""
    import shutil

    from engine.io.tables import read_gold
    from engine.training.final_objective import corpus_objective
    from engine.training.trainer import Trainer

    pinned = work / "pinned"
    if pinned.exists():
        shutil.rmtree(pinned)
    cmd = [sys.executable, "-m", "engine", "run", "--lost", str(folder / "lost.csv"), "--known",
           str(folder / "known.csv"), "--gold", str(folder / "gold.csv"), "--config", str(folder / "settings.toml"),
           "--prior", str(prior), "--steps", str(pinned_steps), "--seed", str(seed), "--out", str(pinned),
           "--quiet", *extra]
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, env={**os.environ, **PINNED_ENV})
    corpus, vocab = load_folder(folder)
    t = Trainer.from_checkpoint(pinned / "checkpoint.pt", corpus, vocab, gold=read_gold(folder / "gold.csv"),
                                config_overrides={"steps": steps, "pin_weight": 0.0})
    for _ in t.run():
        pass
    ev = t.evaluate()
    t.save_checkpoint(work / "released.pt")
    return t, ev, corpus_objective(t, step=steps)


def oracle(entry: dict, label: str, extra: Sequence[str], pinned_steps: int, steps: int, out: Path,
           part: str = "all", reuse: bool = False) -> dict:
    """Is a failure the search's or the objective's? The cipher trained ``pinned_steps`` with every sign
    pinned to its known value, then the pins released (weight 0) and trained on to ``steps``; the
    released reading's P@K (and a syllabary's signs right, and whether the manifest's rule calls it read)
    and its objective over the corpus, beside the objective of the same settings' unpinned run (``label``'s
    folder) at the same step's schedule. ``reuse``: read the released checkpoint an earlier call left
    (same label, part and cipher) instead of training it again."""
    from engine.io.tables import read_gold
    from engine.training.final_objective import corpus_objective
    from engine.training.trainer import Trainer
    from benchmarks.commit import short_commit

    folder = build_cipher(entry)
    work = RUNS / f"{label}-oracle" / (entry["id"] + ("" if part == "all" else "-" + part.replace(":", "")))
    work.mkdir(parents=True, exist_ok=True)
    prior = work / "oracle-prior.csv"
    if prior.exists():
        prior.unlink()
    n_pins = oracle_pins(folder, prior, part)
    if reuse:
        if not (work / "released.pt").is_file():
            print(f"error: {work / 'released.pt'}: no released checkpoint to reuse", file=sys.stderr)
            raise SystemExit(2)
        t = Trainer.from_checkpoint(work / "released.pt", *load_folder(folder), gold=read_gold(folder / "gold.csv"))
        ev, released = t.evaluate(), corpus_objective(t, step=steps)
    else:
        t, ev, released = pinned_then_released(folder, prior, work, extra, pinned_steps, steps)
    row = {"id": entry["id"], "label": label, "extra": list(extra), "pins": n_pins, "oracle_part": part,
           "pinned_steps": pinned_steps,
           "steps": steps, "p_at_1": ev.metrics.get("p_at_1"), "p_at_10": ev.metrics.get("p_at_10"),
           "coverage": ev.coverage, "objective_released": released["objective"],
           "quality_released": released["quality"], "coverage_ratio_released": released["coverage_ratio"],
           "commit": short_commit(),
           "command": " ".join(["python -m benchmarks.cipher_suite --oracle", entry["id"], "--label", label,
                                *map(shlex.quote, extra), "--pinned-steps", str(pinned_steps), "--steps", str(steps),
                                *(["--oracle-part", part] if part != "all" else []),
                                *(["--reuse-released"] if reuse else []),
                                "--out", shlex.quote(str(out))])}
    if entry["script"] == "syllabary":      # the released reading's signs, as the manifest's rule counts them
        both, onsets, vowels, total = syllables_right(t.mapping().syllables.top_values(), read_key(folder))
        row.update(values_share=both / total, onsets_share=onsets / total, vowels_share=vowels / total,
                   read=(row["p_at_10"] or 0.0) >= READ_P10["syllabary"] and both / total >= SIGNS_RIGHT)
    free = RUNS / label / f"{entry['id']}-s0" / "checkpoint.pt"
    if free.is_file():
        tf = Trainer.from_checkpoint(free, *load_folder(folder))
        o = corpus_objective(tf, step=steps)
        row.update(objective_unpinned=o["objective"], quality_unpinned=o["quality"],
                   coverage_ratio_unpinned=o["coverage_ratio"])
    with open(out, "a", encoding="utf-8") as f:
        f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(json.dumps(row, ensure_ascii=False), flush=True)
    return row


def done_keys(path: Path) -> set[tuple]:
    if not path.is_file():
        return set()
    keys = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            keys.add((r["id"], r["label"], r["seed"]))
    return keys


def _mean(rows: Sequence[dict], key: str) -> str:
    vals = [r[key] for r in rows if r.get(key) is not None]
    return f"{statistics.mean(vals):.3f}" if vals else "-"


def _cell(r: dict, key: str, fmt: str) -> str:
    return "-" if r.get(key) is None else format(r[key], fmt)


def table(paths: Sequence[Path]) -> str:
    """The summary of suite rows; rows of ``--rediagnose`` (no wall time, no strict P@10) show ``-`` where
    they have no figure, and their signs and verdict as read again (``values_share_now``, ``read_now``)."""
    rows = [json.loads(ln) for p in paths for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]
    for r in rows:
        if "values_share_now" in r:
            r.update(values_share=r["values_share_now"], read=r.get(
                "read_now", r["p_at_10"] >= READ_P10["syllabary"] and r["values_share_now"] >= SIGNS_RIGHT))
    out = []
    for label in sorted({r["label"] for r in rows}):
        for script in ("alphabet", "syllabary"):
            cs = [r for r in rows if r["label"] == label and r["script"] == script and r["kind"] == "cipher"
                  and "p_at_10" in r]
            ctl = [r for r in rows if r["label"] == label and r["script"] == script and r["kind"] == "control"
                   and "p_at_10" in r]
            if not cs and not ctl:
                continue
            read = sum(r["read"] for r in cs)
            line = (f"{label:>14} {script:<9} ciphers {len(cs):>2}: read {read}/{len(cs)}"
                    + (f", P@10 mean {_mean(cs, 'p_at_10')} (strict {_mean(cs, 'p_at_10_strict')})"
                       f", values right {_mean(cs, 'values_share')}"
                       + (f", median wall {statistics.median(r['wall_s'] for r in cs):.0f} s"
                          if all("wall_s" in r for r in cs) else "") if cs else ""))
            runs = cs + ctl
            fine = [r for r in runs if not r["flagged"]]
            unread = [r for r in runs if not r["read"]]
            line += (f"; controls {len(ctl)} flagged {sum(r['flagged'] for r in ctl)}"
                     f"; diagnosis: fine {len(fine)} of which read {sum(r['read'] for r in fine)}, "
                     f"not read {len(unread)} of which flagged {sum(r['flagged'] for r in unread)}")
            out.append(line)
            for r in sorted(cs + ctl, key=lambda r: r["id"]):
                out.append(f"    {r['id']:<34} P@10 {r['p_at_10']:.3f} strict {_cell(r, 'p_at_10_strict', '.3f')} "
                           f"cov {_cell(r, 'coverage', '.2f')} values {_cell(r, 'values_share', '.2f')} "
                           f"{'READ' if r['read'] else '    '} {'flagged' if r['flagged'] else 'fine'} "
                           + ("" if r.get("wall_s") is None else f"{r['wall_s']:.0f}s"))
    errors = [r for r in rows if "error" in r]
    for r in errors:
        out.append(f"error: {r['id']} ({r['label']}): {r['error']}")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--split", choices=("dev", "test"), help="which ciphers (and controls) to run")
    p.add_argument("--script", choices=("alphabet", "syllabary"), help="only this script kind")
    p.add_argument("--ids", nargs="+", help="only these cipher or control ids")
    p.add_argument("--no-controls", action="store_true", help="ciphers only")
    p.add_argument("--label", default="default", help="the settings' name in the rows (default: default)")
    p.add_argument("--preset", help="decipher run --preset")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="decipher run --set (repeatable)")
    p.add_argument("--steps", type=int, help="decipher run --steps (default: the settings')")
    p.add_argument("--seed", type=int, default=0, help="the training seed (default 0)")
    p.add_argument("--workers", type=int, default=1, help="runs at once (default 1)")
    p.add_argument("--out", type=Path, help="the JSONL file rows are appended to")
    p.add_argument("--build-only", action="store_true", help="build the ciphers' folders and stop")
    p.add_argument("--table", nargs="+", type=Path, metavar="JSONL", help="print the summary of these files")
    p.add_argument("--rediagnose", type=Path, metavar="JSONL",
                   help="diagnose the finished runs of this file again with this checkout's diagnosis (rows to --out)")
    p.add_argument("--oracle", nargs="+", metavar="ID",
                   help="these ciphers trained with every sign pinned to its value, then released (rows to --out)")
    p.add_argument("--pinned-steps", type=int, default=1000, help="with --oracle: the steps under the pins")
    p.add_argument("--reuse-released", action="store_true",
                   help="with --oracle: read the released checkpoint an earlier --oracle run of the same label and "
                        "part left, instead of training it again")
    p.add_argument("--oracle-part", default="all",
                   help="with --oracle: pin all of each value (all), the vowels only (vowels), the onsets only "
                        "(onsets), each sign's vowel group's majority vowel (vowel-classes), or the N most "
                        "frequent signs (top:N)")
    args = p.parse_args(argv)
    try:
        check_part(args.oracle_part)
    except ValueError as e:
        p.error(str(e))
    if args.oracle:
        if not args.out:
            p.error("--oracle needs --out")
        ciphers, _ = manifest()
        unknown = [cid for cid in args.oracle if cid not in ciphers]
        if unknown:
            p.error(f"--oracle {unknown[0]}: no cipher of that id in {MANIFEST.name}")
        letters = [cid for cid in args.oracle if ciphers[cid]["script"] != "syllabary"]
        if args.oracle_part in ("vowels", "onsets", "vowel-classes") and letters:
            p.error(f"--oracle-part {args.oracle_part}: {letters[0]} is an alphabet; that part is a syllabary sign's")
        extra = (["--preset", args.preset] if args.preset else []) + [x for s in args.set for x in ("--set", s)]
        args.out.parent.mkdir(parents=True, exist_ok=True)
        for cid in args.oracle:
            oracle(ciphers[cid], args.label, extra, args.pinned_steps, args.steps or 3000, args.out,
                   args.oracle_part, args.reuse_released)
        return 0
    if args.rediagnose:
        if not args.out:
            p.error("--rediagnose needs --out")
        return rediagnose(args.rediagnose, args.out)
    if args.table:
        print(table(args.table))
        return 0
    if not args.split or (not args.out and not args.build_only):
        p.error("--split and --out are needed (or --table FILE...)")
    if args.split == "test" and not args.build_only and os.environ.get("CIPHER_SUITE_TEST_RUN") != "yes":
        p.error("the test split is run once, at the end, with the settings chosen on dev: "
                "set CIPHER_SUITE_TEST_RUN=yes to run it")
    ciphers, controls = manifest()
    todo: list[tuple[str, dict]] = [("cipher", c) for c in ciphers.values() if c["split"] == args.split]
    if not args.no_controls:
        todo += [("control", c) for c in controls.values() if c["split"] == args.split]
    script_of = {cid: c["script"] for cid, c in ciphers.items()}
    todo = [(k, e) for k, e in todo
            if (not args.script or script_of[e["id"] if k == "cipher" else e["of"]] == args.script)
            and (not args.ids or e["id"] in args.ids)]
    folders = {}
    for kind, e in todo:
        folders[e["id"]] = build_cipher(e) if kind == "cipher" else build_control(e, ciphers)
    if args.build_only:
        print(f"built {len(folders)} folders under {BUILD}")
        return 0
    extra = (["--preset", args.preset] if args.preset else []) + [x for s in args.set for x in ("--set", s)]
    done = done_keys(args.out)
    todo = [(k, e) for k, e in todo if (e["id"], args.label, args.seed) not in done]
    args.out.parent.mkdir(parents=True, exist_ok=True)

    def work(item):
        kind, e = item
        script = script_of[e["id"] if kind == "cipher" else e["of"]]
        row = run_one(e, kind, folders[e["id"]], args.label, extra, args.seed, args.steps, script)
        with open(args.out, "a", encoding="utf-8") as f:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{row['id']}: " + (f"P@10 {row['p_at_10']:.3f} values {row['values_share']} "
                                  f"{'read' if row['read'] else 'not read'}, "
                                  f"{'flagged' if row['flagged'] else 'fine'}, {row['wall_s']:.0f} s"
                                  if "p_at_10" in row else f"error {row.get('error')}"), flush=True)

    with ThreadPoolExecutor(max_workers=max(1, args.workers)) as pool:
        list(pool.map(work, todo))
    return 0


if __name__ == "__main__":
    sys.exit(main())
