"""A synthetic syllabary cipher (issue 25 item 6): an invented known language, an invented syllabary
with invented spelling rules, all drawn from one seed, for testing the syllable model (setting
``signs = syllables``) on segmented words and on running text without word dividers.

From ``seed`` (one ``random.Random``, nothing else):

* **the known language**: ~15 consonants drawn from a pool by class (stops, fricatives, nasals,
  liquids, glides), the vowels a e i o u, some of them long (``aː``), syllable shapes V, CV, CVC and
  CCV (a stop or fricative then a liquid or glide) with drawn probabilities, and stems of 2-4
  syllables written in IPA (the form is the IPA). An onsetless syllable never follows a coda.
* **the syllabary**: one sign per (consonant row, vowel) cell and one per bare vowel; signs are code
  points of the Linear A block (U+10600-U+10736; no test data uses it), the cells given shuffled code
  points, so the code points say nothing about the grid.
* **the spelling rules** (:class:`SpellingRules`), each drawn: rows that write two consonants
  (merged series such as p/b or l/r, 0-3 of them), a consonant never written (its syllable is
  written with the bare vowel; elsewhere it is left out), a word-final coda dropped, written with the
  syllable's own vowel (echo) or with one fixed vowel, a word-internal coda dropped, echoed or
  written with the next syllable's vowel, the first consonant of a cluster written with the
  syllable's vowel, with the fixed vowel, or one of the two consonants left out, and vowel length
  not written or written with an extra bare-vowel sign.

Two outputs (``decipher dataset synthetic-syllabary --seed N --out DIR``, docs/datasets.md):

* ``cognates/``: every stem spelt as one lost word (a share of them spelt a second way, with the
  other coda and cluster rules: a scribe's variant), the vocabulary and the gold pairs, as the
  LOST/KNOWN/GOLD CSVs ``decipher import-cog`` writes; words spelt alike are one lost word whose gold
  row lists every stem spelt so;
* ``running/``: inscriptions of several spelt words without dividers, a share of them filler words
  of the same language that are not in the vocabulary, and gold spans for the others;
* each folder's ``settings.toml``: ``signs = syllables`` and the span limits and band under which
  every gold row is reachable (engine.model.script.reachable); ``signs.csv``: each sign's true
  value (the consonants its row writes, or ∅ for a bare vowel, and its vowel); ``rules.json``: the
  language and the rules drawn.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Mapping, Sequence

from engine.corpus import Corpus, GoldAnnotation, Inscription, Stem, Vocabulary
from engine.errors import DecipherError

# ---- the pools the language is drawn from ------------------------------------------------------

STOPS = ("p", "b", "t", "d", "k", "g", "q")
FRICATIVES = ("f", "v", "s", "z", "ʃ", "x", "h")
NASALS = ("m", "n", "ŋ")
LIQUIDS = ("l", "r")
GLIDES = ("w", "j")
POOL = STOPS + FRICATIVES + NASALS + LIQUIDS + GLIDES
VOWELS = ("a", "e", "i", "o", "u")
LONG = "ː"
SHAPES = ("V", "CV", "CVC", "CCV")

#: pairs of consonants one row of signs may write (voice, place or manner not told apart)
MERGEABLE = (("p", "b"), ("t", "d"), ("k", "g"), ("f", "v"), ("s", "z"), ("l", "r"), ("m", "n"), ("k", "q"),
             ("s", "ʃ"), ("x", "h"), ("w", "v"))
#: consonants a script may leave unwritten
SILENT = ("h", "x", "j", "w")

FINAL_CODA = ("drop", "echo", "fixed")
INNER_CODA = ("drop", "echo", "next")
CLUSTER = ("next", "fixed", "drop_first", "drop_second")
LENGTH = ("unwritten", "doubled")
#: a scribe's variant spelling uses the other rule
_ALT_CODA = {"drop": "echo", "echo": "drop", "fixed": "drop", "next": "drop"}
_ALT_CLUSTER = {"next": "drop_first", "fixed": "drop_first", "drop_first": "next", "drop_second": "next"}

#: the code points the signs are drawn from: the Linear A block's assigned run U+10600-U+10736
SCRIPT = "Linear A (U+10600-U+10736)"
CODE_POINTS = tuple(range(0x10600, 0x10737))

NULL_ONSET = "∅"  # engine.model.syllables.NULL_ONSET: a sign that writes a bare vowel


# ---- values -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Syllable:
    onset: tuple[str, ...]
    vowel: str
    long: bool = False
    coda: str | None = None

    @property
    def ipa(self) -> str:
        return "".join(self.onset) + self.vowel + (LONG if self.long else "") + (self.coda or "")


@dataclass(frozen=True)
class SoundSystem:
    """The sounds and syllable shapes the synthetic known language's words are drawn from."""

    consonants: tuple[str, ...]
    vowels: tuple[str, ...]
    shapes: tuple[tuple[str, float], ...]
    """(shape, probability) for V, CV, CVC, CCV."""
    long_share: float
    """The share of vowels that are long."""


@dataclass(frozen=True)
class SpellingRules:
    rows: tuple[tuple[str, ...], ...]
    """The consonants each row of signs writes (two for a merged series), in row order."""
    silent: str | None
    """A consonant never written: as an onset its syllable is written with the bare vowel."""
    final_coda: str
    inner_coda: str
    cluster: str
    fixed_vowel: str
    length: str

    def merged(self) -> tuple[tuple[str, ...], ...]:
        return tuple(r for r in self.rows if len(r) > 1)


@dataclass(frozen=True)
class TrueSign:
    """A sign of the synthetic script and the value it was made to write (the truth a run's learned
    values, engine.project.SignValue, are checked against)."""

    sign: str
    onsets: tuple[str, ...]
    """The consonants the sign's row writes; (NULL_ONSET,) for a bare vowel (with the silent
    consonant, if the script has one, since it is written with the bare vowels)."""
    vowel: str

    @property
    def onset(self) -> str:
        return self.onsets[0]


@dataclass(frozen=True)
class SyllabaryCipher:
    seed: int
    language: SoundSystem
    rules: SpellingRules
    signs: tuple[TrueSign, ...]
    vocabulary: Vocabulary
    cognates: Corpus
    """One lost word per spelling (segmented: each inscription is a word)."""
    cognate_gold: tuple[GoldAnnotation, ...]
    running: Corpus
    """Inscriptions of several words without dividers."""
    running_gold: tuple[GoldAnnotation, ...]
    fillers: tuple[str, ...]
    """The IPA of the filler words of the running text (not in the vocabulary)."""
    spellings: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """stem form -> its spellings (the first is the rule's, a second the variant's)."""
    words: Mapping[str, tuple[Syllable, ...]] = field(default_factory=dict)
    """stem form -> its syllables."""

    def sign_values(self) -> dict[str, TrueSign]:
        return {s.sign: s for s in self.signs}

    def settings(self, *, segmented: bool) -> dict:
        """``signs = syllables`` and the span limits and band under which every gold row of the
        cognates (``segmented``) or of the running text is reachable."""
        gold = self.cognate_gold if segmented else self.running_gold
        return reach_settings(gold, self.vocabulary, segmented=segmented)


def count_right(cipher: SyllabaryCipher, predicted: Mapping[str, tuple[str, str]]) -> int:
    """How many signs ``predicted`` (sign -> (top onset, top vowel); NULL_ONSET for none) gives their
    true value: the onset one of those the sign's row writes, and the vowel."""
    truth = cipher.sign_values()
    return sum(1 for sign, (onset, vowel) in predicted.items()
               if sign in truth and onset in truth[sign].onsets and vowel == truth[sign].vowel)


# ---- drawing the language and the rules -------------------------------------------------------


def draw_language(rng: random.Random) -> SoundSystem:
    picks = (rng.sample(STOPS, rng.randint(5, 6)) + rng.sample(FRICATIVES, rng.randint(3, 4)) +
             rng.sample(NASALS, rng.randint(2, 3)) + rng.sample(LIQUIDS, rng.randint(1, 2)) +
             rng.sample(GLIDES, rng.randint(1, 2)))
    consonants = tuple(c for c in POOL if c in picks)
    weights = [rng.uniform(0.08, 0.2), rng.uniform(0.4, 0.6), rng.uniform(0.12, 0.3), rng.uniform(0.05, 0.15)]
    total = sum(weights)
    shapes = tuple((s, round(w / total, 3)) for s, w in zip(SHAPES, weights))
    return SoundSystem(consonants, VOWELS, shapes, round(rng.uniform(0.08, 0.25), 3))


def draw_rules(rng: random.Random, language: SoundSystem) -> SpellingRules:
    have = set(language.consonants)
    silent_choices = [c for c in SILENT if c in have]
    silent = rng.choice(silent_choices) if silent_choices and rng.random() < 0.5 else None
    candidates = [p for p in MERGEABLE if p[0] in have and p[1] in have and silent not in p]
    rng.shuffle(candidates)
    merges: list[tuple[str, str]] = []
    for pair in candidates[:rng.randint(0, 3)]:
        if not any(c in m for m in merges for c in pair):
            merges.append(pair)
    rows: list[tuple[str, ...]] = []
    for c in language.consonants:
        if c == silent or any(c in r for r in rows):
            continue
        pair = next((m for m in merges if c in m), None)
        rows.append(tuple(x for x in language.consonants if pair and x in pair) if pair else (c,))
    return SpellingRules(tuple(rows), silent, rng.choice(FINAL_CODA), rng.choice(INNER_CODA), rng.choice(CLUSTER),
                         rng.choice(VOWELS), rng.choice(LENGTH))


def _draw_shape(rng: random.Random, language: SoundSystem, after_coda: bool) -> str:
    shapes = [(s, p) for s, p in language.shapes if not (after_coda and s == "V")]
    r = rng.random() * sum(p for _, p in shapes)
    for s, p in shapes:
        r -= p
        if r < 0:
            return s
    return shapes[-1][0]


def draw_word(rng: random.Random, language: SoundSystem, syllables: tuple[int, int] = (2, 4)) -> tuple[Syllable, ...]:
    cons = language.consonants
    firsts = [c for c in cons if c in STOPS or (c in FRICATIVES and c != "h")]
    seconds = [c for c in cons if c in LIQUIDS or c in GLIDES]
    out: list[Syllable] = []
    for _ in range(rng.randint(*syllables)):
        shape = _draw_shape(rng, language, after_coda=bool(out and out[-1].coda))
        vowel = rng.choice(language.vowels)
        long = rng.random() < language.long_share
        if shape == "V":
            out.append(Syllable((), vowel, long))
        elif shape == "CV":
            out.append(Syllable((rng.choice(cons),), vowel, long))
        elif shape == "CVC":
            out.append(Syllable((rng.choice(cons),), vowel, long, rng.choice(cons)))
        else:
            out.append(Syllable((rng.choice(firsts), rng.choice(seconds)), vowel, long))
    return tuple(out)


def ipa_of(word: Sequence[Syllable]) -> str:
    return "".join(s.ipa for s in word)


# ---- spelling ---------------------------------------------------------------------------------


def spell_cells(word: Sequence[Syllable], rules: SpellingRules) -> tuple[tuple[str | None, str], ...]:
    """The signs of ``word`` as (consonant or None for a bare vowel, vowel) cells."""
    out: list[tuple[str | None, str]] = []
    silent = rules.silent
    for i, syl in enumerate(word):
        v = syl.vowel
        onset = [c for c in syl.onset if c != silent]
        if len(onset) == 2:
            c1, c2 = onset
            out.extend({"next": [(c1, v), (c2, v)], "fixed": [(c1, rules.fixed_vowel), (c2, v)],
                        "drop_first": [(c2, v)], "drop_second": [(c1, v)]}[rules.cluster])
        else:
            out.append((onset[0] if onset else None, v))
        if syl.long and rules.length == "doubled":
            out.append((None, v))
        coda = syl.coda if syl.coda != silent else None
        if coda is not None:
            rule = rules.final_coda if i == len(word) - 1 else rules.inner_coda
            if rule == "echo":
                out.append((coda, v))
            elif rule == "fixed":
                out.append((coda, rules.fixed_vowel))
            elif rule == "next":
                out.append((coda, word[i + 1].vowel))
    return tuple(out)


def variant_rules(rules: SpellingRules) -> SpellingRules:
    """The other coda and cluster rules: how a second scribe spells the same word."""
    return replace(rules, final_coda=_ALT_CODA[rules.final_coda], inner_coda=_ALT_CODA[rules.inner_coda],
                   cluster=_ALT_CLUSTER[rules.cluster])


def make_signs(rng: random.Random, rules: SpellingRules) -> tuple[tuple[TrueSign, ...], dict]:
    """Every sign with its value, on shuffled code points; and (row index or None, vowel) -> sign."""
    cells: list[tuple[int | None, str]] = [(None, v) for v in VOWELS]
    cells += [(r, v) for r in range(len(rules.rows)) for v in VOWELS]
    points = rng.sample(CODE_POINTS, len(cells))
    signs, table = [], {}
    for (row, vowel), cp in zip(cells, points):
        ch = chr(cp)
        if row is None:
            onsets = (NULL_ONSET,) + ((rules.silent,) if rules.silent else ())
        else:
            onsets = rules.rows[row]
        signs.append(TrueSign(ch, onsets, vowel))
        table[(row, vowel)] = ch
    return tuple(signs), table


def _writer(rules: SpellingRules, table: dict):
    row_of = {c: i for i, row in enumerate(rules.rows) for c in row}

    def write(word: Sequence[Syllable], r: SpellingRules = rules) -> str:
        return "".join(table[(None if c is None else row_of[c], v)] for c, v in spell_cells(word, r))
    return write


# ---- the cipher -------------------------------------------------------------------------------


def spelling_gap(ipa: str, spelt: str) -> int:
    """How far a spelling's DP length (2 slots per sign) is from its word's (the IPA units with a null
    onset before each onsetless vowel): the band a run needs to align them."""
    from engine.model.phonology import ipa_units
    from engine.model.syllables import SLOTS, syllabify

    return abs(len(syllabify(ipa_units(ipa))) - SLOTS * len(spelt))


#: Words whose spelling is further than this from their sounds (spelling_gap) are drawn again, so that
#: a run's band stays small (the DP's cost grows with it); a variant spelling further than this is not used.
MAX_GAP = 4


def make_syllabary_cipher(*, seed: int = 0, n_stems: int = 300, n_inscriptions: int = 150,
                          words_per_inscription: tuple[int, int] = (2, 5), filler_share: float = 0.2,
                          n_fillers: int = 60, variant_share: float = 0.15, max_gap: int = MAX_GAP) -> SyllabaryCipher:
    if n_stems < 1 or n_inscriptions < 0 or n_fillers < 0 or max_gap < 0:
        raise DecipherError("the synthetic syllabary needs at least 1 stem and no negative counts")
    if not 0 <= filler_share < 1 or not 0 <= variant_share <= 1:
        raise DecipherError("filler_share must be in [0, 1) and variant_share in [0, 1]")
    if not 1 <= words_per_inscription[0] <= words_per_inscription[1]:
        raise DecipherError("words_per_inscription must be (lo, hi) with 1 <= lo <= hi")
    rng = random.Random(seed)
    language = draw_language(rng)
    rules = draw_rules(rng, language)
    signs, table = make_signs(rng, rules)
    write = _writer(rules, table)

    words: dict[str, tuple[Syllable, ...]] = {}
    tries = 0
    while len(words) < n_stems + n_fillers:
        tries += 1
        if tries > 100 * (n_stems + n_fillers):
            raise DecipherError(f"could not draw {n_stems + n_fillers} distinct words from this language")
        w = draw_word(rng, language)
        if spelling_gap(ipa_of(w), write(w)) <= max_gap:
            words.setdefault(ipa_of(w), w)
    forms = list(words)
    stems, filler_forms = forms[:n_stems], forms[n_stems:]

    spellings: dict[str, tuple[str, ...]] = {}
    variants = variant_rules(rules)
    for form in stems:
        main = write(words[form])
        alt = write(words[form], variants) if rng.random() < variant_share else main
        if spelling_gap(form, alt) > max_gap:
            alt = main
        spellings[form] = (main,) if alt == main else (main, alt)
    spelt_as: dict[str, list[str]] = {}
    for form in stems:
        for s in spellings[form]:
            spelt_as.setdefault(s, []).append(form)
    # a filler spelt like a vocabulary word would be a cognate in disguise: left out
    fillers = [f for f in filler_forms if write(words[f]) not in spelt_as]

    cognates, cognate_gold = [], []
    for k, (text, of) in enumerate(spelt_as.items(), start=1):
        ins_id = f"w{k}"
        cognates.append(Inscription(ins_id, text, raw=text))
        cognate_gold.append(GoldAnnotation(ins_id, 0, len(text), tuple(of)))

    running, running_gold = [], []
    for k in range(1, n_inscriptions + 1):
        ins_id, text, spans = f"t{k}", "", []
        for _ in range(rng.randint(*words_per_inscription)):
            if fillers and rng.random() < filler_share:
                text += write(words[rng.choice(fillers)])
                continue
            form = rng.choice(stems)
            spelt = rng.choice(spellings[form])
            spans.append((len(text), len(text) + len(spelt), tuple(spelt_as[spelt])))
            text += spelt
        running.append(Inscription(ins_id, text, raw=text))
        running_gold.extend(GoldAnnotation(ins_id, s, e, of) for s, e, of in spans)

    vocabulary = Vocabulary("synthetic-syllabary", tuple(Stem(f, f) for f in stems))
    return SyllabaryCipher(seed, language, rules, signs, vocabulary, Corpus("synthetic-syllabary-words", tuple(cognates)),
                           tuple(cognate_gold), Corpus("synthetic-syllabary-text", tuple(running)),
                           tuple(running_gold), tuple(fillers), spellings, {f: words[f] for f in stems})


def reach_settings(gold: Sequence[GoldAnnotation], vocabulary: Vocabulary, *, segmented: bool) -> dict:
    """``signs = syllables``, min_span/max_span the shortest and longest gold word (in signs) and
    band the widest gap between a gold word's DP length (2 per sign) and its stem's (at least 2,
    the default), so that every gold row is reachable (engine.model.script.reachable)."""
    from engine.model.phonology import ipa_units
    from engine.model.syllables import SLOTS, syllabify

    ipa = {s.form: s.ipa for s in vocabulary.stems}
    lengths = [g.word_end - g.start for g in gold] or [1]
    gaps = [abs(len(syllabify(ipa_units(ipa[f]))) - SLOTS * (g.word_end - g.start)) for g in gold for f in g.known]
    return {"signs": "syllables", "segmented": segmented, "min_span": max(1, min(lengths)),
            "max_span": min(100, max(lengths)), "band": min(100, max([2, *gaps]))}


# ---- files ------------------------------------------------------------------------------------


def _toml(settings: dict, what: str) -> str:
    lines = [f"# {what}: the settings under which every gold row can be reached",
             "# (engine/datasets/synthetic_syllabary.py, reach_settings); use with decipher run --config"]
    for k, v in settings.items():
        lines.append(f"{k} = {json.dumps(v) if not isinstance(v, bool) else str(v).lower()}")
    return "\n".join(lines) + "\n"


#: What :func:`write_dataset` writes under its folder.
DATASET_FILES = tuple(f"{name}/{f}" for name in ("cognates", "running")
                      for f in ("lost.csv", "known.csv", "gold.csv", "settings.toml")) + ("signs.csv", "rules.json")


def write_dataset(cipher: SyllabaryCipher, out: Path, *, force: bool = False) -> list[Path]:
    """The two datasets, the sign values and the rules under ``out``; returns the files written.
    An earlier build's file there is refused in one line before any is written, unless ``force``."""
    from engine.io.atomic import FORCE_HINT, check_new, write_csv, write_text
    from engine.io.tables import write_gold, write_known, write_lost
    from engine.runs.outputs import prepare_output_folder

    check_new([Path(out) / f for f in DATASET_FILES], force=force, hint=FORCE_HINT)
    out = prepare_output_folder(Path(out))
    kw = {"replace": force}
    written: list[Path] = []
    for name, corpus, gold, segmented in (("cognates", cipher.cognates, cipher.cognate_gold, True),
                                          ("running", cipher.running, cipher.running_gold, False)):
        folder = prepare_output_folder(out / name)
        write_lost(folder / "lost.csv", corpus.inscriptions, **kw)
        write_known(folder / "known.csv", cipher.vocabulary.stems, **kw)
        write_gold(folder / "gold.csv", gold, **kw)
        write_text(folder / "settings.toml", _toml(cipher.settings(segmented=segmented),
                                                   f"synthetic syllabary seed {cipher.seed}, {name}"), **kw)
        written += [folder / f for f in ("lost.csv", "known.csv", "gold.csv", "settings.toml")]
    write_csv(out / "signs.csv", ("sign", "code_point", "onsets", "vowel"),
              ((s.sign, f"U+{ord(s.sign):04X}", "|".join(s.onsets), s.vowel) for s in cipher.signs), **kw)
    info = {"seed": cipher.seed, "script": SCRIPT, "signs": len(cipher.signs),
            "language": asdict(cipher.language), "rules": asdict(cipher.rules),
            "stems": len(cipher.vocabulary.stems), "lost_words": len(cipher.cognates.inscriptions),
            "stems_spelt_two_ways": sum(1 for s in cipher.spellings.values() if len(s) > 1),
            "inscriptions": len(cipher.running.inscriptions), "running_gold": len(cipher.running_gold),
            "fillers": len(cipher.fillers)}
    write_text(out / "rules.json", json.dumps(info, indent=2, ensure_ascii=False) + "\n", **kw)
    return written + [out / "signs.csv", out / "rules.json"]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="decipher dataset synthetic-syllabary",
                                description="Invent a known language, a syllabary and its spelling rules from a "
                                            "seed; write a segmented cognate set (cognates/) and running text "
                                            "without dividers (running/) as LOST/KNOWN/GOLD CSVs with the settings "
                                            "that reach their gold, each sign's true value (signs.csv) and the "
                                            "rules drawn (rules.json).")
    p.add_argument("--seed", type=int, default=0, help="what to draw everything from (default 0)")
    p.add_argument("--out", type=Path, required=True, help="the folder to write to")
    p.add_argument("--stems", type=int, default=300, help="known stems (default 300)")
    p.add_argument("--inscriptions", type=int, default=150, help="inscriptions of running text (default 150)")
    p.add_argument("--filler-share", type=float, default=0.2,
                   help="share of running-text words that are not in the vocabulary (default 0.2)")
    p.add_argument("--force", action="store_true", help="replace the files of an earlier build in --out")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        cipher = make_syllabary_cipher(seed=args.seed, n_stems=args.stems, n_inscriptions=args.inscriptions,
                                       filler_share=args.filler_share)
        write_dataset(cipher, args.out, force=args.force)
    except DecipherError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    r = cipher.rules
    print(f"synthetic syllabary seed {args.seed}: {len(cipher.signs)} signs, {len(cipher.vocabulary.stems)} stems, "
          f"{len(cipher.cognates.inscriptions)} lost words, {len(cipher.running.inscriptions)} inscriptions "
          f"({len(cipher.running_gold)} gold spans); codas {r.final_coda}/{r.inner_coda}, clusters {r.cluster}, "
          f"length {r.length}, merged rows {', '.join('/'.join(m) for m in r.merged()) or 'none'}, "
          f"silent {r.silent or 'none'} -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
