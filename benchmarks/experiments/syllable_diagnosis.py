"""Where the syllable model's search from scratch breaks: Linear B words against known stems that are
their own conventional reading (a clean syllabic cipher), then the same stems with Greek-like
spelling differences added one kind at a time, then together (issue 25).

Kinds (each drawn with a fixed seed, so the files are the same on every machine):
- ``clean``: the stem is the sign-by-sign reading (a-ka-ta -> akata; q = kʷ);
- ``codas``: a consonant (s n r l m) after 30 % of the vowels (codas the spelling leaves out);
- ``distractors``: 700 extra random stems of the same syllables;
- ``clusters``: 30 % of the inner vowels between consonants removed (an echo vowel: ko-no-so);
- ``many``: p -> p/pʰ/b, k -> k/kʰ/g, t -> t/tʰ, r -> r/l at random (one row, several sounds);
- ``combined``: clusters + codas + many;
- ``combined-vowels``: the same and e -> e/ɛː/eː, o -> o/ɔː/oː, u -> y, a -> a/aː, i -> i/iː.

Each is trained from scratch with ``--preset linear-b`` and the result (P@1, P@10, the signs at
their standard value) goes to benchmarks/results/syllables/diagnosis.jsonl.

    python -m benchmarks.experiments.syllable_diagnosis [--steps 600] [--kinds clean codas ...] [--jobs 2]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import subprocess
import sys
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmarks.commit import short_commit

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "benchmarks" / "results" / "syllables"
CACHE = ROOT / "benchmarks" / ".cache" / "syllable-diagnosis"
SHARED = Path(os.environ.get("DECIPHER_SHARED_DATA", ROOT.parent / "shared" / "data"))
COG = SHARED / "linear_b" / "linear_b-greek.cog"
CONSONANTS = dict(d="d", j="j", k="k", m="m", n="n", p="p", q="kʷ", r="r", s="s", t="t", w="w", z="z")
VOWELS = set("aeiou")
KINDS = ("clean", "codas", "distractors", "clusters", "many", "combined", "combined-vowels")


def reading(word: str) -> str | None:
    """The conventional reading of a word of Linear B signs (None when a sign has no plain CV value)."""
    out = []
    for ch in word:
        v = unicodedata.name(ch).split()[-1].lower()
        if len(v) == 1 and v in VOWELS:
            out.append(v)
        elif len(v) == 2 and v[0] in CONSONANTS and v[1] in VOWELS:
            out.append(CONSONANTS[v[0]] + v[1])
        else:
            return None
    return "".join(out)


def _codas(ipa: str, rng: random.Random) -> str:
    return "".join(ch + (rng.choice("snrlm") if ch in VOWELS and rng.random() < 0.3 else "") for ch in ipa)


def _clusters(ipa: str, rng: random.Random) -> str:
    return "".join(ch for i, ch in enumerate(ipa)
                   if not (ch in VOWELS and 0 < i < len(ipa) - 1 and ipa[i - 1] not in VOWELS
                           and ipa[i + 1] not in VOWELS and rng.random() < 0.3))


_MANY = {"p": ["p", "pʰ", "b"], "k": ["k", "kʰ", "ɡ"], "t": ["t", "tʰ"], "r": ["r", "l"]}
_LONG = {"e": ["e", "ɛː", "eː"], "o": ["o", "ɔː", "oː"], "u": ["y"], "a": ["a", "aː"], "i": ["i", "iː"]}


def _swap(ipa: str, table: dict, rng: random.Random) -> str:
    return "".join(rng.choice(table[c]) if c in table else c for c in ipa)


def build(kind: str, folder: Path) -> Path:
    """LOST/KNOWN/GOLD CSVs for ``kind`` (module docstring) in ``folder``."""
    rng = random.Random(f"syllable-diagnosis-{kind}")
    lost, stems = [], []
    with open(COG, encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t"))[1:]
    for i, row in enumerate(rows):
        word = unicodedata.normalize("NFC", row[0])
        ipa = reading(word)
        if ipa is None:
            continue
        lost.append((f"w{i}", word, ipa))
    folder.mkdir(parents=True, exist_ok=True)
    known: dict[str, str] = {}
    for _, _, ipa in lost:
        form = ipa
        if kind in ("clusters", "combined", "combined-vowels"):
            ipa = _clusters(ipa, rng)
        if kind in ("codas", "combined", "combined-vowels"):
            ipa = _codas(ipa, rng)
        if kind in ("many", "combined", "combined-vowels"):
            ipa = _swap(ipa, _MANY, rng)
        if kind == "combined-vowels":
            ipa = _swap(ipa, _LONG, rng)
        known[form] = ipa
    if kind == "distractors":
        syllables = ["ka", "to", "ri", "pa", "se", "nu", "mo", "di", "a", "e", "wa", "jo", "ti", "ko"]
        while len(known) < len(lost) + 700:
            x = "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
            known.setdefault(f"x-{x}", x)
    with open(folder / "lost.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "text"])
        w.writerows((i, word) for i, word, _ in lost)
    with open(folder / "known.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["form", "ipa"])
        w.writerows(sorted(known.items()))
    with open(folder / "gold.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["inscription_id", "start", "word_end", "known"])
        w.writerows((i, 0, len(word), form) for i, word, form in lost)
    return folder


def run(kind: str, steps: int, seed: int) -> dict:
    data = build(kind, CACHE / kind)
    out = CACHE / f"{kind}-run-s{seed}"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "engine.cli", "run", "--lost", str(data / "lost.csv"), "--known",
           str(data / "known.csv"), "--gold", str(data / "gold.csv"), "--preset", "linear-b", "--steps", str(steps),
           "--set", "eval_interval=0", "--seed", str(seed), "--out", str(out)]
    subprocess.run(["nice", "-n", "10", *cmd], check=True, env=env, cwd=ROOT, capture_output=True)
    m = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    keep = ("p_at_1", "p_at_10", "p_at_1_strict", "signs_standard", "signs_with_standard", "wall_time_s")
    return {"kind": kind, "seed": seed, "steps": steps, **{k: m.get(k) for k in keep}}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=600)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args(argv)
    if not COG.exists():
        print(f"error: {COG}: not found (set DECIPHER_SHARED_DATA)", file=sys.stderr)
        return 2
    commit = short_commit()
    OUT.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(args.jobs) as pool:
        for row in pool.map(lambda k: run(k, args.steps, args.seed), args.kinds):
            row["commit"] = commit
            print(json.dumps(row, ensure_ascii=False), flush=True)
            with open(OUT / "diagnosis.jsonl", "a", encoding="utf-8") as f:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
