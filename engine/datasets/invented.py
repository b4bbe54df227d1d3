"""An invented lost language derived from a real vocabulary and written in an invented script: the
ciphers the search is developed and tested on (issue 49 item 1; docs/datasets.md, "Invented ciphers").

From a source language (a key of engine.datasets.candidates.LANGUAGES: the Genesis and New Testament
word lists) and one seed, :func:`make_invented_cipher` draws, with one ``random.Random``:

* **the lost language**: the source's stems after 2-3 regular sound changes drawn from :data:`CHANGES`
  (mergers, lenition, palatalisation, deletions, vowel shifts); for a syllabary also the changes
  that fit it to a syllabic script (vowels folded to a e i o u with length kept, clusters cut to
  (C)(C)V(C): engine.datasets.synthetic_syllabary's syllable shapes);
* **the known list**: the source's stems (``relation = "near"``: the lost language descends from the
  known one) or the source after 3 other changes (``"far"``: the two are siblings);
* **the script**: an alphabet (each sound a letter on a shuffled alphabet, one or two sounds written
  with a digraph, vowel length written by doubling or not at all) or a syllabary (one sign per
  consonant row and vowel, spelling rules drawn as synthetic_syllabary draws them: merged rows, a
  silent consonant, dropped or echoed codas, clusters; signs on shuffled Linear A code points);
* **the corpus**: inscriptions of 2-5 words, each a known stem (drawn by a Zipf law over the list's
  frequency rank) with a suffix of the lost language or bare, or a filler word (a less frequent
  source stem, changed alike, not in the list); each word boundary written as a divider (a space)
  with probability ``wr`` / 100.

Every sound keeps the index of the source sound it descends from, so each letter or sign has a
value in the known language's terms (:attr:`InventedCipher.values`): the known sounds its lost sounds
descend from (those with at least :data:`VALUE_SHARE` of the occurrences), which is what a reading
is judged against.

``decipher dataset invented --source spanish --seed 3 --script syllabary --wr 25 --out DIR`` writes
lost.csv, known.csv, gold.csv, settings.toml (only ``signs``: what a user of the script would know),
key.csv (each letter's or sign's value) and info.json (the changes, the rules, the counts).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

from engine.corpus import Corpus, GoldAnnotation, Inscription, Stem, Vocabulary
from engine.errors import DecipherError
from engine.model.phonology import ipa_units, unit_features
from engine.model.syllables import NULL_ONSET

SCRIPTS = ("alphabet", "syllabary")
RELATIONS = ("near", "far")
#: a letter's or sign's value in known terms: every known sound that makes up at least this share of
#: the occurrences its lost sound descends from
VALUE_SHARE = 0.25

#: (unit, origin): a sound of a derived word and the index of the source sound it descends from
#: (None for a sound with no source, e.g. a suffix's)
Sound = tuple[str, "int | None"]
Word = list[Sound]


# ---- sound changes ------------------------------------------------------------------------------------


def _vowel(u: str) -> bool:
    return unit_features(u).ptype == "vowel"


def _manner(u: str) -> str:
    return unit_features(u).c_manner


def _between_vowels(w: Word, i: int) -> bool:
    return 0 < i < len(w) - 1 and _vowel(w[i - 1][0]) and _vowel(w[i + 1][0])


def _substitute(table: Mapping[str, str], where: Callable[[Word, int], bool] = lambda w, i: True):
    def change(w: Word) -> Word:
        return [(table.get(u, u), o) if u in table and where(w, i) else (u, o) for i, (u, o) in enumerate(w)]
    return change


def _delete(test: Callable[[Word, int], bool], min_left: int = 3):
    """Sounds that pass ``test`` are lost, unless fewer than ``min_left`` would remain."""
    def change(w: Word) -> Word:
        out = [s for i, s in enumerate(w) if not test(w, i)]
        return out if len(out) >= min_left else w
    return change


@dataclass(frozen=True)
class SoundChange:
    name: str
    description: str
    apply: Callable[[Word], Word]


def _front(w: Word, i: int) -> bool:
    return i + 1 < len(w) and w[i + 1][0][:1] in ("i", "e", "ɛ", "j", "ɪ", "y")


def _apocope(w: Word) -> Word:
    return w[:-1] if len(w) >= 5 and _vowel(w[-1][0]) else w


def _syncope(w: Word) -> Word:
    """The first vowel between two single consonants after the first syllable, in words of 6+ sounds."""
    if len(w) < 6:
        return w
    for i in range(2, len(w) - 2):
        if (_vowel(w[i][0]) and not _vowel(w[i - 1][0]) and not _vowel(w[i + 1][0])
                and _vowel(w[i - 2][0]) and _vowel(w[i + 2][0])):
            return w[:i] + w[i + 1:]
    return w


def _degeminate(w: Word) -> Word:
    out: Word = []
    for s in w:
        if out and out[-1][0] == s[0] and not _vowel(s[0]):
            continue
        out.append(s)
    return out


def _shorten(w: Word) -> Word:
    return [(u.replace("ː", ""), o) if "ː" in u and _vowel(u) else (u, o) for u, o in w]


#: Every change a language may undergo (regular: each applies to every word).
CHANGES: tuple[SoundChange, ...] = (
    SoundChange("devoice-stops", "b d ɡ merge with p t k", _substitute({"b": "p", "d": "t", "ɡ": "k", "g": "k"})),
    SoundChange("voice-fricatives", "s f merge with z v", _substitute({"s": "z", "f": "v"})),
    SoundChange("lenition", "b d ɡ become β ð ɣ between vowels",
                _substitute({"b": "β", "d": "ð", "ɡ": "ɣ", "g": "ɣ"}, _between_vowels)),
    SoundChange("voicing", "p t k become b d ɡ between vowels", _substitute({"p": "b", "t": "d", "k": "ɡ"},
                                                                           _between_vowels)),
    SoundChange("palatalisation", "k ɡ become t͡ʃ d͡ʒ before front vowels",
                _substitute({"k": "t͡ʃ", "ɡ": "d͡ʒ", "g": "d͡ʒ"}, _front)),
    SoundChange("spirantisation", "p t k become f θ x", _substitute({"p": "f", "t": "θ", "k": "x"})),
    SoundChange("raising", "e o become i u", _substitute({"e": "i", "o": "u", "eː": "iː", "oː": "uː"})),
    SoundChange("lowering", "ɛ ɔ e o become a a ɛ ɔ", _substitute({"ɛ": "a", "ɔ": "a", "e": "ɛ", "o": "ɔ"})),
    SoundChange("fronting", "u becomes y", _substitute({"u": "y", "uː": "yː"})),
    SoundChange("rhotacism", "s becomes r between vowels", _substitute({"s": "r"}, _between_vowels)),
    SoundChange("liquids", "r ɾ merge with l", _substitute({"r": "l", "ɾ": "l", "rʲ": "l"})),
    SoundChange("nasals", "m merges with n at the end of a word",
                _substitute({"m": "n"}, lambda w, i: i == len(w) - 1)),
    SoundChange("h-loss", "h x ʔ are lost", _delete(lambda w, i: w[i][0] in ("h", "ʔ", "ɦ"))),
    SoundChange("apocope", "a final vowel is lost in words of 5+ sounds", _apocope),
    SoundChange("syncope", "a vowel between single consonants after the first syllable is lost", _syncope),
    SoundChange("degemination", "double consonants become single", _degeminate),
    SoundChange("shortening", "long vowels become short", _shorten),
    SoundChange("initial-s", "s becomes h at the start of a word", _substitute({"s": "h"}, lambda w, i: i == 0)),
)
CHANGE_BY_NAME = {c.name: c for c in CHANGES}


def derive(word: Word, changes: Sequence[SoundChange]) -> Word:
    for c in changes:
        word = c.apply(word)
    return word


# ---- fitting a word to a syllabary ------------------------------------------------------------------

#: a e i o u by height and backness: what a five-vowel script writes each vowel with
_FIVE = {("close", "front"): "i", ("close", "central"): "i", ("close", "back"): "u",
         ("near-close", "front"): "i", ("near-close", "back"): "u", ("near-close", "central"): "i",
         ("close-mid", "front"): "e", ("close-mid", "central"): "e", ("close-mid", "back"): "o",
         ("mid", "front"): "e", ("mid", "central"): "e", ("mid", "back"): "o",
         ("open-mid", "front"): "e", ("open-mid", "central"): "a", ("open-mid", "back"): "o",
         ("near-open", "front"): "a", ("near-open", "central"): "a", ("near-open", "back"): "a",
         ("open", "front"): "a", ("open", "central"): "a", ("open", "back"): "a"}
_ONSET_FIRST = ("plosive", "fricative", "sibilant-fricative", "affricate", "sibilant-affricate")
_ONSET_SECOND = ("approximant", "lateral-approximant", "trill", "flap", "tap", "lateral-flap")


_BACKNESS = {"near-front": "front", "near-back": "back"}


def five_vowels(u: str) -> tuple[str, bool]:
    """The script vowel that writes vowel ``u``, and whether ``u`` is long."""
    f = unit_features(u)
    key = (f.v_height, _BACKNESS.get(f.v_backness, f.v_backness))
    if key not in _FIVE:
        raise DecipherError(f"no five-vowel value for the vowel {u!r} ({f.v_height}, {f.v_backness})")
    return _FIVE[key], "ː" in u


def cut_syllables(word: Word):
    """``word`` as synthetic_syllabary Syllables, with the origin of each part: clusters cut to a
    (C)(C)V(C) shape (an onset of two only a stop or fricative then a liquid or glide; one coda; the
    other consonants lost), vowels folded to a e i o u. Returns (syllables, [(onset origins, vowel
    origin, coda origin)])."""
    from engine.datasets.synthetic_syllabary import Syllable

    nuclei = [i for i, (u, _) in enumerate(word) if _vowel(u)]
    if not nuclei:
        return (), []
    syllables, origins = [], []
    for k, n in enumerate(nuclei):
        lo = nuclei[k - 1] + 1 if k else 0
        run = word[lo:n]
        if len(run) >= 2 and _manner(run[-2][0]) in _ONSET_FIRST and _manner(run[-1][0]) in _ONSET_SECOND:
            onset = run[-2:]
        else:
            onset = run[-1:]
        rest = run[:len(run) - len(onset)]
        if k and rest:            # the consonant after the onset's: the previous syllable's coda
            prev, (po, pv, _) = syllables[-1], origins[-1]
            syllables[-1] = Syllable(prev.onset, prev.vowel, prev.long, rest[0][0])
            origins[-1] = (po, pv, rest[0][1])
        vowel, long = five_vowels(word[n][0])
        syllables.append(Syllable(tuple(u for u, _ in onset), vowel, long))
        origins.append((tuple(o for _, o in onset), word[n][1], None))
    tail = word[nuclei[-1] + 1:]
    if tail:
        last, (lo_, lv, _) = syllables[-1], origins[-1]
        syllables[-1] = Syllable(last.onset, last.vowel, last.long, tail[0][0])
        origins[-1] = (lo_, lv, tail[0][1])
    return tuple(syllables), origins


def syllable_sounds(syllables, origins) -> Word:
    """The sounds a syllabified word keeps (what its lost language says), with their origins."""
    out: Word = []
    for s, (oo, vo, co) in zip(syllables, origins):
        out += list(zip(s.onset, oo)) + [(s.vowel + ("ː" if s.long else ""), vo)]
        if s.coda is not None:
            out.append((s.coda, co))
    return out


# ---- the cipher ------------------------------------------------------------------------------------

#: letters of the alphabetic scripts: the Latin small letters, then Greek ones for larger inventories
LETTERS = tuple("abcdefghijklmnopqrstuvwxyz") + tuple("αβγδεζηθικλμνξπρστυφχψω")


@dataclass(frozen=True)
class InventedCipher:
    source: str
    seed: int
    script: str
    relation: str
    wr: int
    lost_changes: tuple[str, ...]
    known_changes: tuple[str, ...]
    vocabulary: Vocabulary
    corpus: Corpus
    gold: tuple[GoldAnnotation, ...]
    values: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]]
    """letter or sign -> (the lost sounds it writes, the known sounds they descend from). For a sign: the
    consonants its row writes (NULL_ONSET for a bare vowel) then its vowel, and the known onsets then
    the known vowels (:attr:`sign_values` keeps the known side split)."""
    spellings: Mapping[str, str] = field(default_factory=dict)
    """known stem form -> its lost word spelt bare (without a suffix)."""
    sign_values: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)
    """syllabary only: sign -> (known onsets, known vowels) its value accepts (NULL_ONSET for none)."""
    info: Mapping[str, object] = field(default_factory=dict)


def _zipf_pick(rng: random.Random, n: int) -> int:
    """A rank in 0..n-1, P(rank r) proportional to 1 / (r + 5)."""
    x = rng.random() * math.log((n + 5) / 5)
    return min(n - 1, int(5 * math.exp(x) - 5))


def _majority(counter: Counter) -> tuple[str, ...]:
    total = sum(counter.values())
    return tuple(sorted(u for u, n in counter.items() if n >= VALUE_SHARE * total)) if total else ()


def make_invented_cipher(source: str, *, seed: int, script: str, relation: str = "near", wr: int = 0,
                         n_stems: int = 600, n_fillers: int = 400, n_inscriptions: int = 1500,
                         words_per_inscription: tuple[int, int] = (2, 5), filler_share: float = 0.25,
                         suffix_share: float = 0.4, data: str | Path | None = None,
                         source_stems: Sequence[Stem] | None = None) -> InventedCipher:
    """One invented cipher (see the module's docstring). ``source_stems`` (frequency order) replaces
    reading ``source`` from the data folder (tests)."""
    if script not in SCRIPTS:
        raise DecipherError(f"script must be one of {', '.join(SCRIPTS)}, got {script!r}")
    if relation not in RELATIONS:
        raise DecipherError(f"relation must be one of {', '.join(RELATIONS)}, got {relation!r}")
    if not 0 <= wr <= 100:
        raise DecipherError(f"the word-divider rate must be between 0 and 100, got {wr}")
    if n_stems < 1 or n_fillers < 0 or n_inscriptions < 1 or not 0 <= filler_share < 1 or not 0 <= suffix_share <= 1:
        raise DecipherError("the invented cipher needs at least 1 stem and 1 inscription, shares in [0, 1)")
    if source_stems is None:
        from engine.datasets.candidates import DEFAULT_DATA, build

        source_stems = build(source, stems=n_stems + n_fillers, data=data or DEFAULT_DATA).stems
    if len(source_stems) < n_stems + 1:
        raise DecipherError(f"{source}: only {len(source_stems)} stems, {n_stems + 1} or more needed")
    rng = random.Random(f"invented:{source}:{seed}:{script}:{relation}")
    names = [c.name for c in CHANGES]
    lost_names = rng.sample(names, rng.randint(2, 3))
    known_names = rng.sample([n for n in names if n not in lost_names], 3) if relation == "far" else []
    lost_changes = [CHANGE_BY_NAME[n] for n in lost_names]
    known_changes = [CHANGE_BY_NAME[n] for n in known_names]

    src_units = [ipa_units(s.ipa, source=f"stem {s.form!r} of {source}") for s in source_stems]
    src_words: list[Word] = [list(zip(u, range(len(u)))) for u in src_units]
    lost_words = [derive(w, lost_changes) for w in src_words]
    syllabic = script == "syllabary"
    syl = [cut_syllables(w) if syllabic else None for w in lost_words]
    if syllabic:
        lost_words = [syllable_sounds(*s) for s in syl]

    # the known list: the first n_stems source stems (or their sibling forms), distinct by IPA
    known_of: dict[int, Stem] = {}
    seen: set[tuple[str, ...]] = set()
    for i in range(n_stems):
        s = source_stems[i]
        if relation == "far":
            units = tuple(u for u, _ in derive(src_words[i], known_changes))
            s = Stem("".join(units), "".join(units), s.gloss, f"{source} (sibling)")
        else:
            units = tuple(src_units[i])
        if units in seen or not any(_vowel(u) for u, _ in lost_words[i]):
            continue
        seen.add(units)
        known_of[i] = s
    known_words = {i: (derive(src_words[i], known_changes) if relation == "far" else src_words[i]) for i in known_of}

    # sound correspondences: lost sound -> known sounds it descends from
    corr: dict[str, Counter] = defaultdict(Counter)
    for i in known_of:
        by_origin = {o: u for u, o in known_words[i]}
        for u, o in lost_words[i]:
            if o is not None and o in by_origin:
                corr[u][by_origin[o]] += 1

    # the script
    writer, values, sign_values, script_info = (_make_syllabary(rng, syl, lost_words, corr) if syllabic
                                                else _make_alphabet(rng, lost_words, corr))

    # suffixes of the lost language: 5 short strings of its own frequent sounds
    sound_counts = Counter(u for w in lost_words for u, _ in w)
    vowels = [u for u, _ in sound_counts.most_common() if _vowel(u)][:4] or ["a"]
    consonants = [u for u, _ in sound_counts.most_common() if not _vowel(u)][:8] or ["n"]
    suffixes = []
    while len(suffixes) < 5:
        shape = rng.choice(("V", "VC", "CV", "CVC"))
        sfx = tuple(rng.choice(vowels if ch == "V" else consonants) for ch in shape)
        if sfx not in suffixes:
            suffixes.append(sfx)

    fillers = [i for i in range(n_stems, len(source_stems)) if any(_vowel(u) for u, _ in lost_words[i])]
    vocab_idx = sorted(known_of)
    spelt_cache: dict[tuple, str] = {}

    def spell(i: int, sfx: tuple[str, ...]) -> str:
        key = (i, sfx)
        if key not in spelt_cache:
            spelt_cache[key] = writer(lost_words[i] + [(u, None) for u in sfx])
        return spelt_cache[key]

    # lost words spelt alike: every known stem spelt so is a right answer
    forms_of: dict[str, set[str]] = defaultdict(set)
    for i in vocab_idx:
        forms_of[spell(i, ())].add(known_of[i].form)

    inscriptions, gold = [], []
    boundary = random.Random(f"invented-dividers:{source}:{seed}")
    p = wr / 100.0
    for n in range(n_inscriptions):
        text, spans = "", []
        for k in range(rng.randint(*words_per_inscription)):
            if k and boundary.random() < p:
                text += " "
            if fillers and rng.random() < filler_share:
                text += spell(fillers[_zipf_pick(rng, len(fillers))], ())
                continue
            i = vocab_idx[_zipf_pick(rng, len(vocab_idx))]
            sfx = rng.choice(suffixes) if rng.random() < suffix_share else ()
            word = spell(i, sfx)
            start = len(text)
            text += word
            stem_alone = spell(i, ())
            alike = forms_of.get(stem_alone, {known_of[i].form}) | {known_of[i].form}
            spans.append((start, len(text), tuple(sorted(alike))))
        ins_id = f"I{n + 1}"
        inscriptions.append(Inscription(ins_id, text, raw=text))
        gold.extend(GoldAnnotation(ins_id, s, e, f) for s, e, f in spans)

    vocabulary = Vocabulary(f"{source}-{relation}", tuple(known_of[i] for i in vocab_idx))
    info = {"source": source, "seed": seed, "script": script, "relation": relation, "wr": wr,
            "lost_changes": {c.name: c.description for c in lost_changes},
            "known_changes": {c.name: c.description for c in known_changes},
            "suffixes": ["".join(s) for s in suffixes], "stems": len(vocab_idx), "fillers": len(fillers),
            "inscriptions": n_inscriptions, "gold_rows": len(gold), **script_info}
    return InventedCipher(source, seed, script, relation, wr, tuple(lost_names), tuple(known_names), vocabulary,
                          Corpus(f"invented-{source}-{seed}", tuple(inscriptions)), tuple(gold), values,
                          {known_of[i].form: spell(i, ()) for i in vocab_idx}, sign_values, info)


def _make_alphabet(rng: random.Random, lost_words: Sequence[Word], corr: Mapping[str, Counter]):
    counts = Counter(u for w in lost_words for u, _ in w)
    length = rng.choice(("doubled", "unwritten"))
    sounds = sorted(counts, key=lambda u: (-counts[u], u))
    if length == "unwritten":
        base = [u for u in sounds if not ("ː" in u and _vowel(u))]
        # a long vowel whose short one the language lacks keeps a letter of its own
        base += [u for u in sounds if "ː" in u and _vowel(u) and u.replace("ː", "") not in base]
    else:
        base = [u for u in sounds if not ("ː" in u and _vowel(u) and u.replace("ː", "") in counts)]
    consonants = [u for u in base if not _vowel(u)]
    digraphs = rng.sample(consonants[len(consonants) // 2:], min(2, len(consonants[len(consonants) // 2:])))
    singles = [u for u in base if u not in digraphs]
    if len(singles) > len(LETTERS):
        raise DecipherError(f"the alphabet needs {len(singles)} letters, more than the {len(LETTERS)} it has")
    letters = list(LETTERS[:max(26, len(singles))])
    rng.shuffle(letters)
    key = dict(zip(singles, letters))
    marker = key[consonants[0]] if consonants and consonants[0] not in digraphs else letters[0]
    for d in digraphs:
        host = rng.choice([u for u in singles if not _vowel(u)] or singles)
        key[d] = key[host] + marker

    def letters_of(u: str) -> str:
        if u in key:
            return key[u]
        short = u.replace("ː", "")
        return key[short] * (2 if length == "doubled" else 1)

    def write(word: Word) -> str:
        return "".join(letters_of(u) for u, _ in word)

    writes: dict[str, set[str]] = defaultdict(set)
    for u in counts:
        for ch in letters_of(u):
            writes[ch].add(u)
    values = {}
    for ch, us in writes.items():
        c: Counter = Counter()
        for u in us:
            c.update(corr.get(u, Counter()))
        values[ch] = (tuple(sorted(us)), _majority(c))
    info = {"letters": len(writes), "vowel_length": length, "digraphs": {d: key[d] for d in digraphs}}
    return write, values, {}, info


def _make_syllabary(rng: random.Random, syl, lost_words: Sequence[Word], corr: Mapping[str, Counter]):
    from engine.datasets.synthetic_syllabary import (VOWELS, SoundSystem, _writer, draw_rules, make_signs,
                                                     spelling_gap)

    consonants = sorted({c for s, _ in syl for x in s for c in (*x.onset, *((x.coda,) if x.coda else ()))})
    rules = draw_rules(rng, SoundSystem(tuple(consonants), VOWELS, (), 0.0))
    signs, table = make_signs(rng, rules)
    write_syllables = _writer(rules, table)
    by_sounds = {tuple(u for u, _ in w): s for w, (s, _) in zip(lost_words, syl)}

    def write(word: Word) -> str:
        units = tuple(u for u, _ in word)
        syllables = by_sounds.get(units)
        if syllables is None:  # a stem with a suffix: syllabified again as one word
            syllables, _ = cut_syllables(word)
        return write_syllables(syllables)

    def known(units: Sequence[str]) -> tuple[str, ...]:
        c: Counter = Counter()
        for u in units:
            c.update(corr.get(u, Counter()))
            if u in ("a", "e", "i", "o", "u"):  # long vowels are written with the short vowel's signs
                c.update(corr.get(u + "ː", Counter()))
        return _majority(c)

    values, sign_values = {}, {}
    for s in signs:
        onsets = tuple(o for o in s.onsets if o != NULL_ONSET)
        k_onsets = known(onsets) + ((NULL_ONSET,) if NULL_ONSET in s.onsets else ())
        k_vowels = known((s.vowel,))
        values[s.sign] = (s.onsets + (s.vowel,), k_onsets + k_vowels)
        sign_values[s.sign] = (k_onsets, k_vowels)
    gaps = [spelling_gap("".join(u for u, _ in w), write(w)) for w in lost_words[:200]]
    info = {"signs": len(signs), "rows": ["/".join(r) for r in rules.rows], "silent": rules.silent,
            "final_coda": rules.final_coda, "inner_coda": rules.inner_coda, "cluster": rules.cluster,
            "fixed_vowel": rules.fixed_vowel, "length": rules.length,
            "spelling_gap_median": sorted(gaps)[len(gaps) // 2] if gaps else 0}
    return write, values, sign_values, info


# ---- files and the command line --------------------------------------------------------------------


#: What :func:`write_cipher` writes into its folder.
CIPHER_FILES = ("lost.csv", "known.csv", "gold.csv", "settings.toml", "key.csv", "info.json")


def write_cipher(cipher: InventedCipher, out: Path, *, force: bool = False) -> list[Path]:
    """lost.csv, known.csv, gold.csv, settings.toml, key.csv and info.json under ``out``; an earlier
    build's file there is refused in one line before any is written, unless ``force``."""
    from engine.io.atomic import FORCE_HINT, check_new, write_csv, write_text
    from engine.io.tables import write_gold, write_known, write_lost
    from engine.runs.outputs import prepare_output_folder

    check_new([Path(out) / f for f in CIPHER_FILES], force=force, hint=FORCE_HINT)
    out = prepare_output_folder(Path(out))
    kw = {"replace": force}
    write_lost(out / "lost.csv", cipher.corpus.inscriptions, **kw)
    write_known(out / "known.csv", cipher.vocabulary.stems, **kw)
    write_gold(out / "gold.csv", cipher.gold, **kw)
    signs = "syllables" if cipher.script == "syllabary" else "letters"
    write_text(out / "settings.toml", f"# invented cipher {cipher.source} seed {cipher.seed}: what a user of the "
                                      f"script would know\nsigns = \"{signs}\"\n", **kw)
    rows = []
    for ch in sorted(cipher.values):
        lost, known = cipher.values[ch]
        k_on, k_vo = cipher.sign_values.get(ch, ((), ()))
        rows.append((ch, f"U+{ord(ch[0]):04X}", "|".join(lost), "|".join(known), "|".join(k_on), "|".join(k_vo)))
    write_csv(out / "key.csv", ("sign", "code_point", "lost_sounds", "known_sounds", "known_onsets", "known_vowels"),
              rows, **kw)
    write_text(out / "info.json", json.dumps(cipher.info, indent=2, ensure_ascii=False) + "\n", **kw)
    return [out / f for f in CIPHER_FILES]


def parser() -> argparse.ArgumentParser:
    from engine.datasets.candidates import LANGUAGES

    p = argparse.ArgumentParser(prog="decipher dataset invented",
                                description="Derive a lost language from a real vocabulary by seeded sound changes, "
                                            "write it in a seeded alphabet or syllabary without (or with some) word "
                                            "dividers, and write LOST/KNOWN/GOLD CSVs, the settings a user would "
                                            "know, each letter's or sign's value (key.csv) and what was drawn.")
    p.add_argument("--source", required=True, choices=sorted(LANGUAGES), help="the real vocabulary it derives from")
    p.add_argument("--seed", type=int, default=0, help="what to draw everything from (default 0)")
    p.add_argument("--script", choices=SCRIPTS, default="alphabet", help="alphabet (default) or syllabary")
    p.add_argument("--relation", choices=RELATIONS, default="near",
                   help="the known list: the source itself (near, default) or a sibling of the lost language (far)")
    p.add_argument("--wr", type=int, default=0, help="percent of word boundaries written with a divider (default 0)")
    p.add_argument("--stems", type=int, default=600, help="known stems (default 600)")
    p.add_argument("--inscriptions", type=int, default=1500, help="inscriptions (default 1500)")
    p.add_argument("--data", type=Path, default=None, help="the shared data folder (default ../shared/data)")
    p.add_argument("--out", type=Path, required=True, help="the folder to write to")
    p.add_argument("--force", action="store_true", help="replace the files of an earlier build in --out")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        cipher = make_invented_cipher(args.source, seed=args.seed, script=args.script, relation=args.relation,
                                      wr=args.wr, n_stems=args.stems, n_inscriptions=args.inscriptions, data=args.data)
        write_cipher(cipher, args.out, force=args.force)
    except DecipherError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    i = cipher.info
    unit = f"{i['signs']} signs" if cipher.script == "syllabary" else f"{i['letters']} letters"
    print(f"invented {cipher.script} from {cipher.source}, seed {cipher.seed} ({cipher.relation}): {unit}, "
          f"{i['stems']} stems, {i['inscriptions']} inscriptions ({i['gold_rows']} gold rows), WR {cipher.wr} %; "
          f"lost changes {', '.join(cipher.lost_changes)}"
          + (f"; known changes {', '.join(cipher.known_changes)}" if cipher.known_changes else "")
          + f" -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
