"""Issue 49, item 2: what keeps the invented syllabaries unread when Linear B is read with the same preset?

Each probe builds one variant of a dev syllabary (engine/datasets/invented.py) and runs the preset
``syllabary`` on it once, seed 0, as a user would (``decipher run``), with the gold only to score it:

- ``wr100``: the dev cipher of --source/--seed/--relation built with every word divider (same key);
- ``words``: that build's cognate words (each distinct gold span) one a line, run with
  ``segmented = true``, as the Linear B list is run;
- ``greek``: the same generator on the Greek stems of the Linear B benchmark's known list
  (benchmarks/.cache/linear-b/data/known.csv, made by ``python -m benchmarks.syllable_linear_b``), WR 0;
- ``greek-nochange``: the same with no sound change on either side, WR 0;
- ``greek-words``: no sound change, the cognate words one a line, ``segmented = true``;
- ``greek-wr100``: no sound change, the running text with every divider (the preset as it is);
- ``greek-changes-words``: the sound changes kept, the cognate words one a line, ``segmented = true``.

The Linear B list is in alphabetical order and the generator takes a list's first stems as its commonest, so
the greek probes shuffle it by --seed first (``--greek-order alphabetical`` keeps the order, as every greek
probe did before the option existed: a text in which nearly every word begins with a, e, d, o or i).

    python -m benchmarks.experiments.syllable_probes --probe wr100 --source latin --relation far \\
        --out benchmarks/results/ciphers/dev-probes.jsonl

``--rule NAME=VALUE`` sets one of the generator's spelling rules (the others as the seed draws them), to
try the rules one at a time: ``--probe words --source spanish --rule final_coda=drop``. ``--no-change`` drops
the sound changes from any probe. ``--min-phones N`` keeps only the source's stems of N sounds or more, and
``--cut N`` cuts every stem to its first N sounds (is it the words' length that sets Spanish apart?). ``--whole-first N``
trains N steps with every divided word whole, then resumes the run with free spans to 3,000 steps.
``--pin-vowels`` pins the key's bare-vowel signs to their vowels for the whole run (the gold's, a probe only).
``--merge A=B``, ``--full-forms`` and ``--open-syllables`` change the source's stems (fewer sounds, word forms
not stems, open syllables only). ``--gold-words-first N`` (probe wr100 only; a gold-segmentation oracle, not a
search): N steps on the WR 100 % build with every divided word whole, then the dev cipher itself (its manifest entry:
its own word-divider ratio, free spans) trained from that mapping to 3,000 steps and scored: does the basin, once
found through the words, hold on the running text? ``--pseudo-words-first N`` (probe wr100 only) is the same with the
dev cipher's own pseudo-words in the first phase, as a run finds them (``--pseudo-keep words``: only those that are
words where they stand, a gold filter; ``--pseudo-min-count LONG PAIR``: the word finder's thresholds), so that a
pseudo-word set compares with the gold's words in the same two phases. ``--run-seed N`` is decipher run's seed.
A probe's build folder is named by its options (not by ``--set``): two probes that differ only in ``--set`` share
it, so run those one after the other, never side by side.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.cipher_suite import PINNED_ENV
from benchmarks.experiments.syllable_objective import ROOT, finish_row

PROBES = ("wr100", "words", "greek", "greek-nochange", "greek-words", "greek-wr100", "greek-changes-words")
#: the probes with no sound change on either side
UNCHANGED = ("greek-nochange", "greek-words", "greek-wr100")
GREEK = ROOT / "benchmarks" / ".cache" / "linear-b" / "data" / "known.csv"
OUT = ROOT / "build" / "probes"


#: the spelling rules a probe may set (engine/datasets/synthetic_syllabary.py SpellingRules)
RULES = {"final_coda": "FINAL_CODA", "inner_coda": "INNER_CODA", "cluster": "CLUSTER", "length": "LENGTH"}


def parse_rules(items: list[str]) -> dict[str, str]:
    """``--rule NAME=VALUE`` items, each name one of RULES and each value one the generator draws from."""
    import engine.datasets.synthetic_syllabary as syl

    out = {}
    for item in items:
        name, _, value = item.partition("=")
        if name not in RULES:
            raise ValueError(f"--rule {item}: the rule must be one of {', '.join(RULES)}")
        if value not in getattr(syl, RULES[name]):
            raise ValueError(f"--rule {item}: {name} is one of {', '.join(getattr(syl, RULES[name]))}")
        out[name] = value
    return out


def build(probe: str, source: str, seed: int, relation: str, rules: dict[str, str] | None = None,
          no_change: bool = False, min_phones: int = 0, cut: int = 0, greek_order: str = "shuffled",
          merge: dict[str, str] | None = None, full_forms: bool = False, open_only: bool = False) -> Path:
    import dataclasses

    from engine.datasets import candidates

    if full_forms and not probe.startswith("greek"):   # the source's word forms as they stand, not stemmed
        lang = candidates.LANGUAGES[source]
        candidates.LANGUAGES[source] = dataclasses.replace(lang, stemmer=None)
        try:
            return build(probe, source, seed, relation, rules, no_change, min_phones, cut, greek_order, merge,
                         open_only=open_only)
        finally:
            candidates.LANGUAGES[source] = lang

    import engine.datasets.invented as inv
    import engine.datasets.synthetic_syllabary as syl
    from engine.corpus import Stem

    stems = None
    if probe.startswith("greek"):
        with open(GREEK, encoding="utf-8", newline="") as f:
            stems = [Stem(r["form"], r["ipa"], r.get("gloss") or "", "greek") for r in csv.DictReader(f)]
        source = "greek"
        # the list is in alphabetical order, and the generator takes its first stems as the commonest:
        # in its head nearly every word begins with a, e, d, o or i, a text no natural list makes
        if greek_order == "shuffled":
            random.Random(seed).shuffle(stems)
    if min_phones or cut or merge or open_only:   # the source's stems (frequency order): long, cut, merged, open
        from engine.datasets.candidates import DEFAULT_DATA, build as build_source
        from engine.model.phonology import ipa_units
        from engine.model.syllables import is_vowel

        if stems is None:
            stems = build_source(source, stems=4000, data=DEFAULT_DATA).stems
        kept, seen = [], set()
        for s in stems:
            units = [u for u in ipa_units(s.ipa) if u.strip()]
            if merge:
                units = [merge.get(u, u) for u in units]
            if open_only:   # every consonant that no vowel follows left out: open syllables only, nothing to drop
                units = [u for i, u in enumerate(units) if is_vowel(u) or (i + 1 < len(units) and is_vowel(units[i + 1]))]
            if len(units) < min_phones:   # counted after merging and opening (neither changes it otherwise)
                continue
            ipa = "".join(units[:cut]) if cut else "".join(units) if merge or open_only else s.ipa
            if ipa not in seen:
                seen.add(ipa)
                kept.append(Stem(s.form, ipa, s.gloss, s.source))
        stems = kept
    wr = 0 if probe in ("greek", "greek-nochange") else 100
    derive, draw_rules = inv.derive, syl.draw_rules
    if probe in UNCHANGED or no_change:
        inv.derive = lambda word, changes: word          # no sound change on either side
    if rules:   # the rules drawn as the seed draws them (same draws), then the named ones set
        syl.draw_rules = lambda rng, language: dataclasses.replace(draw_rules(rng, language), **rules)
    try:
        cipher = inv.make_invented_cipher(source, seed=seed, script="syllabary", relation=relation, wr=wr,
                                          source_stems=stems)
    finally:
        inv.derive, syl.draw_rules = derive, draw_rules
    tag = "".join(f"-{k}={v}" for k, v in sorted((rules or {}).items())) + ("-nochange" if no_change else "")
    tag += (f"-min{min_phones}" if min_phones else "") + (f"-cut{cut}" if cut else "")
    tag += "".join(f"-{a}{b}" for a, b in sorted((merge or {}).items()))
    tag += "-open" if open_only else ""
    tag += "-forms" if candidates.LANGUAGES.get(source) and candidates.LANGUAGES[source].stemmer is None \
        and not probe.startswith("greek") else ""
    tag += "-alphabetical" if probe.startswith("greek") and greek_order == "alphabetical" else ""
    folder = OUT / f"{probe}-{source}-{seed}-{relation}{tag}"
    inv.write_cipher(cipher, folder, force=True)
    if probe.endswith("words"):
        word_list(folder)
    return folder


def word_list(folder: Path) -> None:
    """Replace lost.csv and gold.csv by the distinct non-empty gold spans, one a line."""
    # the gold's offsets count the dividers (engine/datasets/invented.py): cut the span from the text as
    # written, then drop any divider (a word holds none; an earlier version cut from the text with its
    # dividers removed, so spans after the first divider were shifted: see docs/notebook)
    with open(folder / "lost.csv", encoding="utf-8", newline="") as f:
        text = {r["id"]: r["text"] for r in csv.DictReader(f)}
    with open(folder / "gold.csv", encoding="utf-8", newline="") as f:
        gold = list(csv.DictReader(f))
    seen, lost, rows = set(), [], []
    for g in gold:
        w = text[g["inscription_id"]][int(g["start"]):int(g["word_end"])].replace(" ", "")
        if not w or (w, g["known"]) in seen:
            continue
        seen.add((w, g["known"]))
        wid = f"W{len(lost) + 1}"
        lost.append((wid, w))
        rows.append((wid, 0, len(w), g["known"]))
    with open(folder / "lost.csv", "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([("id", "text"), *lost])
    with open(folder / "gold.csv", "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([("inscription_id", "start", "word_end", "known"), *rows])


def vowel_pins(folder: Path, out: Path) -> list[str]:
    """A PRIOR.csv pinning each sign whose key onset may be none (``∅``, ``w|∅``) to its first vowel; the
    signs' values as ``sign=vowel``."""
    from engine.io.atomic import write_csv

    rows = []
    with open(folder / "key.csv", encoding="utf-8", newline="") as f:
        for r in csv.DictReader(f):
            if r["known_vowels"] and "∅" in r["known_onsets"].split("|"):
                rows.append((r["sign"], r["known_vowels"].split("|")[0], "1"))
    write_csv(out, ("lost", "known_ipa", "weight"), rows)
    return [f"{sign}={vowel}" for sign, vowel, _ in rows]


def dev_cipher(source: str, seed: int, relation: str) -> Path | None:
    """The folder of the manifest's dev syllabary of this source, seed and relation (built once); None: the
    manifest has none."""
    from benchmarks.cipher_suite import build_cipher

    entry = dev_entry(source, seed, relation)
    return None if entry is None else build_cipher(entry)


def dev_entry(source: str, seed: int, relation: str) -> dict | None:
    """The manifest's entry of the dev syllabary of this source, seed and relation; None: it has none."""
    from benchmarks.cipher_suite import manifest

    ciphers, _ = manifest()
    for c in ciphers.values():
        if (c["split"], c["script"], c["source"], c["seed"], c["relation"]) == ("dev", "syllabary", source, seed, relation):
            return c
    return None


def pseudo_words_text(entry: dict, out: Path, keep: str, min_count: tuple[int, int] | None = None) -> dict:
    """Write to ``out`` the dev cipher's pseudo-words as the run finds them (engine/model/pseudo_words.py, the
    preset's spans), one line an inscription, a divider between pieces, with a gold row for each piece that is a
    gold row's span; ``keep = "words"`` keeps only the pieces that are a word of the text where they stand (the
    same cipher built with every divider: an oracle's filter), ``"all"`` every kept piece. ``min_count``: the
    thresholds (MIN_COUNT, MIN_COUNT_PAIR) instead of the module's. Returns counts."""
    import shutil

    from benchmarks.cipher_suite import build_cipher
    from benchmarks.experiments.pseudo_words import piece_spans, text_and_words, unit_offsets
    from engine.config import PRESETS
    from engine.corpus import DIVIDER, Corpus, split_units
    from engine.model.pseudo_words import kept_pieces

    folder = build_cipher(entry)
    text, gold_words = text_and_words(entry, "syllable_probes")
    words = [set(piece_spans(line)) for line in gold_words]   # each line's word spans, dividers not counted
    cognates: dict[tuple[str, int, int], list[str]] = {}
    offsets = unit_offsets(text)
    with open(folder / "gold.csv", encoding="utf-8", newline="") as f:
        for r in csv.DictReader(f):
            o = offsets[r["inscription_id"]]
            cognates.setdefault((r["inscription_id"], o[int(r["start"])], o[int(r["word_end"])]), []).append(r["known"])
    preset = PRESETS["syllabary"]
    long_n, pair_n = min_count or (None, None)
    pieces = kept_pieces(Corpus(entry["id"], tuple(text)), min_span=preset["min_span"], max_span=preset["max_span"],
                         min_count=long_n, min_count_pair=pair_n)
    lost, gold, n_all, n_kept = [("id", "text")], [("inscription_id", "start", "word_end", "known")], 0, 0
    for ins, spans, kept in zip(text, words, pieces):
        n_all += len(kept)
        kept = [(a, p) for a, p in kept if keep == "all" or (a, a + len(p)) in spans]
        n_kept += len(kept)
        at = 0
        for a, p in kept:
            for known in cognates.get((ins.id, a, a + len(p)), []):
                gold.append((ins.id, at, at + len(p), known))
            at += len(p) + 1
        if kept:
            lost.append((ins.id, DIVIDER.join("".join(p) for _, p in kept)))
    # the signs no kept piece holds, on one line of their own (one word of them all, matched like any other),
    # so that the word phase's checkpoint has the text's alphabet and the text's run may resume it
    missing = sorted({u for ins in text for u in ins.units if u != DIVIDER}
                     - {u for _, line in lost[1:] for u in split_units(line) if u != DIVIDER})
    if missing:
        lost.append(("missing-signs", "".join(missing)))
    out.mkdir(parents=True, exist_ok=True)
    for name in ("known.csv", "settings.toml", "info.json"):
        shutil.copy(folder / name, out / name)
    with open(out / "lost.csv", "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows(lost)
    with open(out / "gold.csv", "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows(gold)
    return {"pieces": n_all, "pieces_trained": n_kept, "gold_rows": len(gold) - 1, "signs_in_no_piece": len(missing)}


def other_text_start(checkpoint: Path) -> Path:
    """A copy of ``checkpoint`` that a run on another text of the same signs may resume: the engine refuses a
    checkpoint of another corpus (rightly, for a user), so the copy drops the corpus's digest and the batch
    order; the mapping, the optimiser and the step stay. A probe's device only, never the product's."""
    import torch

    from engine.training.trainer import load_checkpoint

    state = load_checkpoint(checkpoint)
    state.pop("corpus_digest", None)
    state.pop("sampler_order", None)
    out = checkpoint.with_name("other-text-start.pt")
    torch.save(state, out)
    return out


def engine_run(cmd: list[str]) -> bool:
    """Run ``decipher run``; on failure print its last error line (a bad --set, say) and return False."""
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env={**os.environ, **PINNED_ENV})
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        print(f"syllable_probes: decipher run failed: {lines[-1] if lines else f'exit {proc.returncode}'}",
              file=sys.stderr)
    return proc.returncode == 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--probe", choices=PROBES, required=True)
    ap.add_argument("--source", default="spanish", help="the dev source (not for the greek probes)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--relation", choices=("near", "far"), default="near")
    ap.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                    help="set one spelling rule of the generator (final_coda, inner_coda, cluster, length); repeatable")
    ap.add_argument("--no-change", action="store_true",
                    help="no sound change on either side, whatever the probe (the lost words are the known stems, "
                         "respelled)")
    ap.add_argument("--min-phones", type=int, default=0, metavar="N",
                    help="keep only the source's stems of N or more sounds (frequency order kept)")
    ap.add_argument("--cut", type=int, default=0, metavar="N",
                    help="cut every source stem to its first N sounds (duplicates dropped)")
    ap.add_argument("--segmented", action="store_true",
                    help="run with segmented = true whatever the probe (each divider-delimited word a whole word)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="decipher run --set, after the preset (repeatable)")
    ap.add_argument("--whole-first", type=int, metavar="STEPS",
                    help="train STEPS steps with segmented = true (every divided word whole), then resume the run "
                         "with free spans (segmented = false) to its full steps")
    ap.add_argument("--greek-order", choices=("shuffled", "alphabetical"), default="shuffled",
                    help="the greek probes: the Linear B known list shuffled by --seed before the generator takes "
                         "its first stems (the default), or in its own alphabetical order, as every greek probe "
                         "before this option took it")
    ap.add_argument("--merge", action="append", default=[], metavar="A=B",
                    help="write sound A as B in every source stem before the generator (both sides: a language "
                         "with fewer sounds, so a smaller grid of signs); repeatable")
    ap.add_argument("--full-forms", action="store_true",
                    help="the source's frequent word forms as they stand, not Snowball-stemmed (as the test sources, "
                         "the New Testaments, and the Linear B list are)")
    ap.add_argument("--open-syllables", action="store_true",
                    help="leave out of every source stem each consonant that no vowel follows (both sides): only "
                         "open syllables, so the spelling rules drop or echo nothing")
    ap.add_argument("--pin-vowels", action="store_true",
                    help="pin the key's bare-vowel signs (no onset, or an onset merged with none) to their vowel for "
                         "the whole run: does the search read a list once it has those anchors?")
    ap.add_argument("--gold-words-first", type=int, metavar="STEPS",
                    help="probe wr100: STEPS steps on its words whole (the gold's segmentation: an oracle), then the "
                         "dev cipher's own running text from that mapping to 3,000 steps")
    ap.add_argument("--pseudo-words-first", type=int, metavar="STEPS",
                    help="probe wr100 only: STEPS on the dev cipher's pseudo-words whole (as the run finds them), "
                         "then its running text to 3,000 steps; --pseudo-keep words keeps only the pieces that are "
                         "words of the text (an oracle's filter)")
    ap.add_argument("--pseudo-keep", choices=("all", "words"), default="all")
    ap.add_argument("--pseudo-min-count", type=int, nargs=2, metavar=("LONG", "PAIR"),
                    help="with --pseudo-words-first: keep a piece of 3 signs or more seen LONG times, a pair PAIR times "
                         "(engine/model/pseudo_words.py MIN_COUNT, MIN_COUNT_PAIR; default theirs)")
    ap.add_argument("--run-seed", type=int, default=0, help="decipher run --seed (default 0, as every probe before)")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    if args.pseudo_words_first is not None and (args.probe != "wr100" or not 0 < args.pseudo_words_first < 3000
                                                or args.gold_words_first is not None or args.whole_first is not None):
        ap.error("--pseudo-words-first STEPS: with --probe wr100 only, STEPS between 1 and 2999, alone of the "
                 "word-first options")
    if args.pseudo_words_first is None and (args.pseudo_keep != "all" or args.pseudo_min_count):
        ap.error("--pseudo-keep and --pseudo-min-count: with --pseudo-words-first only")
    if args.pseudo_min_count and min(args.pseudo_min_count) < 1:
        ap.error("--pseudo-min-count LONG PAIR: counts of 1 or more")
    if args.gold_words_first is not None and (args.probe != "wr100" or not 0 < args.gold_words_first < 3000):
        ap.error("--gold-words-first STEPS: with --probe wr100 only, STEPS between 1 and 2999")
    if args.gold_words_first is not None and args.whole_first is not None:
        ap.error("--gold-words-first and --whole-first: one or the other")
    if args.whole_first is not None and not 0 < args.whole_first < 3000:
        ap.error(f"--whole-first {args.whole_first}: a number of steps between 1 and 2999 (the preset trains 3000)")
    try:
        rules = parse_rules(args.rule)
    except ValueError as e:
        ap.error(str(e))
    merge = dict(item.split("=", 1) for item in args.merge if "=" in item)
    if len(merge) != len(args.merge) or not all(merge) or not all(merge.values()):
        ap.error("--merge A=B: a sound and the sound it becomes, e.g. --merge u=o")
    if args.probe.startswith("greek") and not GREEK.is_file():
        ap.error(f"{GREEK} is missing: run python -m benchmarks.syllable_linear_b first")
    from engine.errors import DecipherError

    try:
        folder = build(args.probe, args.source, args.seed, args.relation, rules, args.no_change, args.min_phones,
                       args.cut, args.greek_order, merge, args.full_forms, args.open_syllables)
    except DecipherError as e:   # too few stems left (--min-phones, --cut), a source missing: one line, exit 2
        print(f"syllable_probes: {e}", file=sys.stderr)
        return 2
    run = folder / "run"
    cmd = [sys.executable, "-m", "engine", "run", "--lost", str(folder / "lost.csv"), "--known",
           str(folder / "known.csv"), "--gold", str(folder / "gold.csv"), "--config", str(folder / "settings.toml"),
           "--preset", "syllabary", "--seed", str(args.run_seed), "--out", str(run), "--quiet", "--force"]
    pins = vowel_pins(folder, folder / "vowel-pins.csv") if args.pin_vowels else None
    if pins is not None:
        cmd += ["--prior", str(folder / "vowel-pins.csv")]
    segmented = args.probe.endswith("words") or args.segmented
    if segmented:
        cmd += ["--set", "segmented=true"]
    cmd += [x for item in args.set for x in ("--set", item)]
    t0 = time.time()
    whole = None
    words_first = next((n for n in (args.gold_words_first, args.whole_first, args.pseudo_words_first)
                        if n is not None), None)
    pseudo = None
    if words_first is not None:   # the words whole, then free spans: on the same text, or (gold) the cipher's own
        text = folder
        if args.gold_words_first is not None or args.pseudo_words_first is not None:
            text = dev_cipher(args.source, args.seed, args.relation)
            if text is None:   # checked before the first phase trains: one line, exit 2
                option = "--gold-words-first" if args.gold_words_first is not None else "--pseudo-words-first"
                print(f"syllable_probes: {option}: the manifest has no dev syllabary of {args.source} seed "
                      f"{args.seed} ({args.relation})", file=sys.stderr)
                return 2
        first = folder / ("run-whole" if text == folder else "run-words")
        if args.pseudo_words_first is not None:   # the first phase on the cipher's pseudo-words, not the gold's
            entry = dev_entry(args.source, args.seed, args.relation)
            pw = folder / (f"pseudo-{args.pseudo_keep}-s{args.run_seed}"
                           + ("-min{}-{}".format(*args.pseudo_min_count) if args.pseudo_min_count else ""))
            pseudo = pseudo_words_text(entry, pw, args.pseudo_keep, args.pseudo_min_count)
            for name in ("--lost", "--known", "--gold", "--config"):
                i = cmd.index(name) + 1
                cmd[i] = str(pw / Path(cmd[i]).name)
            first, run = pw / "run-words", pw / "run"   # a run folder of its own: two --pseudo-keep may run side by side
        cmd[cmd.index("--out") + 1] = str(first)
        if not engine_run(cmd + ["--set", "segmented=true", "--steps", str(words_first)]):
            return 2
        whole = json.loads((first / "metrics.json").read_text(encoding="utf-8"))
        start = first / "checkpoint.pt" if text == folder else other_text_start(first / "checkpoint.pt")
        cmd = [sys.executable, "-m", "engine", "run", "--lost", str(text / "lost.csv"), "--known",
               str(text / "known.csv"), "--gold", str(text / "gold.csv"), "--resume", str(start),
               "--set", "segmented=false", "--steps", "3000", "--out", str(run), "--quiet", "--force"]
        folder = text
    if not engine_run(cmd):
        return 2
    m = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    info = json.loads((folder / "info.json").read_text(encoding="utf-8"))
    with open(folder / "lost.csv", encoding="utf-8") as f:
        lines = sum(1 for _ in f) - 1
    finish_row({"probe": args.probe, "source": info["source"], "seed": args.seed, "relation": args.relation,
                "wr": info["wr"], "signs": info["signs"], "lines": lines, "rules_set": rules, "min_phones": args.min_phones, "cut": args.cut, "segmented": segmented, "set": args.set, "whole_first": args.whole_first,
                "greek_order": args.greek_order if args.probe.startswith("greek") else None,
                "pinned_vowel_signs": pins, "merged": merge, "full_forms": args.full_forms, "open_syllables": args.open_syllables,
                "whole_p_at_10": None if whole is None else whole["p_at_10"],
                "gold_words_first": args.gold_words_first,
                "run_seed": args.run_seed,
                **({"pseudo_words_first": args.pseudo_words_first, "pseudo_keep": args.pseudo_keep,
                    "pseudo_min_count": args.pseudo_min_count, **pseudo}
                   if pseudo is not None else {}),
                **{k: info[k] for k in ("final_coda", "inner_coda", "cluster", "fixed_vowel", "length")},
                "sound_changes": args.probe not in UNCHANGED and not args.no_change,
                "p_at_1": m["p_at_1"], "p_at_10": m["p_at_10"], "p_at_10_strict": m.get("p_at_10_strict"),
                "coverage": m.get("coverage"), "flagged": bool((m.get("diagnosis") or {}).get("flagged")),
                "wall_s": round(time.time() - t0, 1)}, "syllable_probes", argv, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
