"""Candidate known vocabularies for closeness comparisons, built from the shared corpora.

From a plain text (the Genesis files, the Basque New Testament's verses): the words are counted, stemmed (Snowball where it has the
language, else the documented rules of :func:`latin_stem`), counted again by stem, transcribed to
IPA, and the most frequent stems of the allowed length are kept. From a word list without
frequencies (Trask's Basque lexicon, the Hebrew column of the Ugaritic .cog, the Gothic dataset's
Proto-Germanic / Old Norse / Old English stems) a seeded sample is kept instead. Hebrew Genesis (the
OSHB's Westminster Leningrad Codex) gives each word's stem and lemma: its stems are counted by lemma.
Every source, its
stemmer and its transcription are listed in :data:`LANGUAGES` and in docs/closeness.md.

Usage: ``decipher dataset candidates --language spanish --stems 600 --out known-spanish.csv``
(``--help``); the result is a KNOWN CSV (``form,ipa,gloss,source``) for ``decipher run --known``.
"""

from __future__ import annotations

import argparse
import random
import sys
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from engine.corpus import Stem
from engine.errors import DecipherError, InputError
from engine.io.tables import read_text, write_known
from engine.model.phonology import ipa_units

DEFAULT_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
DEFAULT_STEMS = 600  # the paper's vocabulary size for the closeness experiment
MIN_UNITS, MAX_UNITS = 4, 10


@dataclass(frozen=True)
class Language:
    name: str
    kind: str
    """"verses" (chapter<TAB>verse<TAB>text), "frequencies" (word<TAB>count), "trask" (Trask's
    lexicon TSV), "cog" (the known column of a .cog file), "gothic" (the Gothic dataset builder),
    "oshb" (OSIS XML with OSHB lemmas and morphology) or "ces" (the verses of a CES XML Bible)"""
    path: str
    """the source file under the data folder (for "gothic": the known-language code)"""
    stemmer: str | None
    """a Snowball algorithm, "latin" (our rules) or None (the words are stems already)"""
    system: str
    """the transcription system (engine/io/transcription.py)"""
    respell: str | None = None
    """"leizarraga": the archaic Basque spelling is respelled in modern letters before stemming"""


LANGUAGES: dict[str, Language] = {
    "spanish": Language("spanish", "verses", "genesis/genesis.spanish_rv1909.tsv", "spanish", "spa-Latn"),
    "latin": Language("latin", "verses", "genesis/genesis.latin_vulgata_clementina.tsv", "latin", "latin"),
    "arabic": Language("arabic", "verses", "genesis/genesis.arabic_svd.tsv", "arabic", "ara-Arab"),
    "hungarian": Language("hungarian", "verses", "genesis/genesis.hungarian_karoli.tsv", "hungarian", "hun-Latn"),
    "turkish": Language("turkish", "frequencies", "genesis/genesis.turkish_kitab.word_freq.tsv", "turkish",
                        "tur-Latn"),
    "basque": Language("basque", "trask", "basque/trask_native_lexicon.tsv", None, "basque"),
    "hebrew": Language("hebrew", "cog", "ugaritic_hebrew/uga-heb.no_spe.cog", None, "semitic"),
    # Hebrew Genesis: stems cut by the OSHB morphology, counted by lemma; read consonantally (as the
    # cognate file's Hebrew is) or with the Tiberian vowels
    "hebrew-genesis": Language("hebrew-genesis", "oshb", "genesis/genesis.hebrew_oshb_wlc.xml", None,
                               "hebrew-consonantal"),
    "hebrew-genesis-tiberian": Language("hebrew-genesis-tiberian", "oshb", "genesis/genesis.hebrew_oshb_wlc.xml",
                                        None, "hebrew"),
    "basque-nt": Language("basque-nt", "ces", "basque/Basque-NT.xml", "basque", "basque", respell="leizarraga"),
    # New Testament running text (bible_nt/PROVENANCE.md): no Snowball stemmer for these, so the
    # frequent word forms are the "stems"; the sources of the held-out invented languages (issue 49)
    "swahili": Language("swahili", "ces", "bible_nt/Swahili-NT.xml", None, "swa-Latn"),
    "zulu": Language("zulu", "ces", "bible_nt/Zulu-NT.xml", None, "zul-Latn"),
    "quichua": Language("quichua", "ces", "bible_nt/Quichua-NT.xml", None, "quy-Latn"),
    "latvian": Language("latvian", "ces", "bible_nt/Latvian-NT.xml", None, "lav-Latn"),
    "ukrainian": Language("ukrainian", "ces", "bible_nt/Ukranian-NT.xml", None, "ukr-Cyrl"),
    "proto-germanic": Language("proto-germanic", "gothic", "pgm", None, ""),
    "old-norse": Language("old-norse", "gothic", "non", None, ""),
    "old-english": Language("old-english", "gothic", "ang", None, ""),
}


# ---------------------------------------------------------------------------------------------
# stemming

#: Latin (no Snowball stemmer): the noun rules of Schinke et al. (1996), "A stemming algorithm for
#: Latin text databases": -que is cut unless the word is one of QUE_WORDS, then the longest of
#: LATIN_SUFFIXES is cut when at least two letters remain.
QUE_WORDS = frozenset("""atque quoque neque itaque absque apsque abusque adaeque adusque denique deque susque
oblique peraeque plenisque quandoque quisque quaeque cuiusque cuique quemque quamque quaque quique quorumque
quarumque quibusque quosque quasque quotusquisque quousque ubique undique usque uterque utique utroque utribique
torque coque concoque contorque detorque decoque excoque extorque obtorque optorque retorque recoque attorque
incoque intorque praetorque""".split())
LATIN_SUFFIXES = ("ibus", "ius", "ae", "am", "as", "em", "es", "ia", "is", "nt", "os", "ud", "um", "us",
                  "a", "e", "i", "o", "u")


def latin_stem(word: str) -> str:
    """``terram`` → ``terr``, ``tenebrae`` → ``tenebr``, ``dixitque`` → ``dixit``, ``atque`` → ``atque``."""
    w = word.lower()
    if w.endswith("que"):
        if w in QUE_WORDS:
            return w
        w = w[:-3]
    for suffix in sorted(LATIN_SUFFIXES, key=len, reverse=True):
        if w.endswith(suffix) and len(w) - len(suffix) >= 2:
            return w[: -len(suffix)]
    return w


def stemmer(name: str | None) -> Callable[[str], str]:
    """The stemming function for a :class:`Language`'s ``stemmer``."""
    if name is None:
        return lambda w: w
    if name == "latin":
        return latin_stem
    try:
        import snowballstemmer
    except ImportError:
        raise DecipherError("the snowballstemmer package is not installed (pip install snowballstemmer)") from None
    try:
        algo = snowballstemmer.stemmer(name)
    except KeyError:
        raise DecipherError(f"Snowball has no stemmer {name!r}") from None
    return algo.stemWord


# ---------------------------------------------------------------------------------------------
# reading the sources


def lower(word: str, language: str) -> str:
    """Lower case, with the Turkish dotted and dotless i kept apart."""
    if language == "turkish":
        word = word.replace("I", "ı").replace("İ", "i")
    return word.lower()


#: Leizarraga's (1571) spelling, as the Basque New Testament of the shared corpus prints it, in the
#: letters of modern Basque (Trask, "The History of Basque", 1997, ch. 2.8; Hualde & Ortiz de Urbina
#: 2003, ch. 1.2): qu before e/i and q are k; c before e/i and ç are the lamino-alveolar z; ch (in
#: Greek names: christ) and any other c are k; v before a vowel is b, any other v is the vowel u
#: (vkan = ukan, iesvs = iesus); y is i; accents and the diaeresis on a e i o are dropped.
_LEIZARRAGA = (("qu(?=[ei])", "k"), ("q", "k"), ("ch", "k"), ("c(?=[ei])", "z"), ("c", "k"), ("ç", "z"),
               ("v(?=[aeiou])", "b"), ("v", "u"), ("y", "i"))


def leizarraga(word: str) -> str:
    """A lower-case word of Leizarraga's spelling in modern letters: ``ceruäc`` → ``zeruak``,
    ``gurequin`` → ``gurekin``, ``içan`` → ``izan``, ``vkan`` → ``ukan``."""
    import re

    out: list[str] = []
    for c in unicodedata.normalize("NFD", word):
        base = out[-1] if out else ""
        if c in "\u0300\u0301" and base in "aeiou" or c == "\u0308" and base in "aeio":
            continue  # ü (Souletin [y]) keeps its diaeresis
        out.append(c)
    w = unicodedata.normalize("NFC", "".join(out))
    for pattern, to in _LEIZARRAGA:
        w = re.sub(pattern, to, w)
    return w


def respelled(word: str, respell: str | None) -> str:
    """``word`` (lower case) in the spelling the stemmer and the table read."""
    if respell is None:
        return word
    if respell == "leizarraga":
        return leizarraga(word)
    raise AssertionError(respell)


def words_of(text: str) -> Iterable[str]:
    """The words of a text: maximal runs of letters and combining marks (NFC)."""
    word: list[str] = []
    for ch in unicodedata.normalize("NFC", text):
        cat = unicodedata.category(ch)
        if cat[0] in ("L", "M"):
            word.append(ch)
        elif word:
            yield "".join(word)
            word = []
    if word:
        yield "".join(word)


def read_verses(path: Path) -> Counter:
    """Word frequencies of a ``chapter<TAB>verse<TAB>text`` file."""
    counts: Counter = Counter()
    for no, line in enumerate(read_text(path, invisible="drop").splitlines(), start=1):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) != 3 or not cells[0].strip().isdigit() or not cells[1].strip().isdigit():
            raise InputError("expected chapter<TAB>verse<TAB>text", path=path, line=no)
        counts.update(words_of(cells[2]))
    if not counts:
        raise InputError("no words in the file", path=path)
    return counts


def read_frequencies(path: Path) -> Counter:
    """A ``word<TAB>count`` list."""
    counts: Counter = Counter()
    for no, line in enumerate(read_text(path, invisible="drop").splitlines(), start=1):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) != 2 or not cells[1].strip().isdigit():
            raise InputError("expected word<TAB>count", path=path, line=no)
        counts[unicodedata.normalize("NFC", cells[0].strip())] += int(cells[1])
    if not counts:
        raise InputError("no words in the file", path=path)
    return counts


def read_trask(path: Path) -> list[tuple[str, str, int]]:
    """(form, gloss, line) of Trask's lexicon; affixes (a leading ``-``) are left out."""
    lines = read_text(path, invisible="drop").splitlines()
    header = [h.strip() for h in lines[0].split("\t")] if lines else []
    if header[:2] != ["form", "gloss"]:
        raise InputError(f"expected a header starting form<TAB>gloss, got {lines[0] if lines else ''!r}",
                         path=path, line=1)
    out = []
    for no, line in enumerate(lines[1:], start=2):
        cells = line.split("\t")
        form = unicodedata.normalize("NFC", cells[0].strip())
        if form and not form.startswith("-"):
            out.append((form, cells[1].strip() if len(cells) > 1 else "", no))
    return out


# ---------------------------------------------------------------------------------------------
# XML sources (read with expat: no DTD, no entity, no external resource is ever processed)


def _parse_xml(path: Path, start: Callable[[str, dict, int], None], end: Callable[[str], None],
               data: Callable[[str], None]) -> None:
    """Stream ``path`` through expat; a DOCTYPE or entity declaration, or malformed XML, is one
    InputError naming the line."""
    import xml.parsers.expat

    parser = xml.parsers.expat.ParserCreate()

    def refuse(what: str) -> Callable[..., None]:
        def handler(*_args) -> None:
            raise InputError(f"the XML file has {what}, which is refused (untrusted input); remove it",
                             path=path, line=parser.CurrentLineNumber)
        return handler

    parser.StartDoctypeDeclHandler = refuse("a DOCTYPE declaration")
    parser.EntityDeclHandler = refuse("an entity declaration")
    parser.ExternalEntityRefHandler = refuse("an external entity reference")
    parser.StartElementHandler = lambda name, attrs: start(name, attrs, parser.CurrentLineNumber)
    parser.EndElementHandler = end
    parser.CharacterDataHandler = data
    try:
        with open(path, "rb") as f:
            parser.ParseFile(f)
    except xml.parsers.expat.ExpatError as e:
        raise InputError(f"not well-formed XML: {xml.parsers.expat.ErrorString(e.code)}", path=path,
                         line=e.lineno) from None
    except OSError as e:
        raise InputError(f"cannot read the file: {e.strerror or e}", path=path) from None


#: points that do not change a Hebrew word's letters or vowels: the cantillation accents, meteg,
#: the upper and lower dots and the combining grapheme joiner (a stem form is kept without them)
_HEBREW_ACCENTS = {chr(c) for c in range(0x0591, 0x05B0)} | {"\u05BD", "\u05C4", "\u05C5", "\u034F"}


def hebrew_form(text: str) -> str:
    """A pointed Hebrew stem without its accents (NFC): ``רֵאשִׁ֖ית`` → ``רֵאשִׁית``."""
    return unicodedata.normalize("NFC", "".join(c for c in unicodedata.normalize("NFC", text)
                                                if c not in _HEBREW_ACCENTS))


@dataclass
class OshbStems:
    """The stems of an OSHB book: per lemma, how often each stem form occurs."""

    words: int = 0
    forms: dict[str, Counter] = field(default_factory=dict)


def oshb_stem(text: str, morph: str, lemma: str) -> tuple[str, str]:
    """(stem form, lemma key) of one OSHB ``<w>``, or ValueError saying why the word cannot be read.

    ``/`` splits the text and the morph code into the same parts (the morph code starts with the
    language letter: ``H`` Hebrew, ``A`` Aramaic); parts whose code starts with ``S`` are suffixes;
    the stem is the last part that is not a suffix, the parts before it are prefixes. The lemma has
    one part per non-suffix part (or, in a few words, one per part); the stem's lemma key is its Strong's number (``1254 a`` → ``1254``),
    or the lemma as written where it has none (``b``: a preposition carrying a suffix).
    ``בְּ/רֵאשִׁ֖ית``, ``HR/Ncfsa``, ``b/7225`` → (``רֵאשִׁית``, ``7225``).
    """
    if len(morph) < 2 or morph[0] not in "HA":
        raise ValueError(f"morph code {morph!r} does not start with H or A")
    parts, codes, lemmas = text.split("/"), morph[1:].split("/"), lemma.split("/")
    if len(parts) != len(codes):
        raise ValueError(f"the word {text!r} has {len(parts)} parts but its morph code {morph!r} {len(codes)}")
    stem_at = [i for i, c in enumerate(codes) if not c.startswith("S")]
    if not stem_at:
        raise ValueError(f"the morph code {morph!r} has only suffixes")
    if len(lemmas) == len(stem_at):
        key = lemmas[-1].strip()
    elif len(lemmas) == len(codes):  # a few words give the suffix its own lemma too (בָּ/הֵן: b/2004)
        key = lemmas[stem_at[-1]].strip()
    else:
        raise ValueError(f"the lemma {lemma!r} has {len(lemmas)} parts but the morph code {morph!r} "
                         f"{len(stem_at)} non-suffix parts of {len(codes)}")
    form = hebrew_form(parts[stem_at[-1]])
    number = key.split()[0] if key else ""
    if not form or not key:
        raise ValueError(f"the word {text!r} has an empty stem or lemma")
    return form, (number if number.isdigit() else key)


def read_oshb(path: Path) -> OshbStems:
    """The stems of every ``<w>`` of an OSIS file with OSHB lemmas; ``<note>`` (with its readings)
    and ``<seg>`` (punctuation) are skipped."""
    out = OshbStems()
    skip = 0  # element depth inside a <note> or <seg> (0: outside)
    word: dict | None = None

    def start(name: str, attrs: dict, line: int) -> None:
        nonlocal skip, word
        if skip or name in ("note", "seg"):
            skip += 1
            return
        if name == "w":
            if word is not None:
                raise InputError("a <w> inside a <w>", path=path, line=line)
            for a in ("lemma", "morph"):
                if not attrs.get(a):
                    raise InputError(f"a <w> without a {a} attribute", path=path, line=line)
            word = {"lemma": attrs["lemma"], "morph": attrs["morph"], "line": line, "text": []}

    def end(name: str) -> None:
        nonlocal skip, word
        if skip:
            skip -= 1
            return
        if name == "w" and word is not None:
            text = "".join(word["text"]).strip()
            try:
                form, key = oshb_stem(text, word["morph"], word["lemma"])
            except ValueError as e:
                raise InputError(str(e), path=path, line=word["line"]) from None
            out.words += 1
            out.forms.setdefault(key, Counter())[form] += 1
            word = None

    def data(text: str) -> None:
        if word is not None and not skip:
            word["text"].append(text)

    _parse_xml(path, start, end, data)
    if not out.words:
        raise InputError("no <w lemma=… morph=…> word in the file", path=path)
    return out


def read_ces(path: Path) -> Counter:
    """Word frequencies of the ``<seg>`` verses of a CES XML Bible (Christodouloupoulos & Steedman)."""
    counts: Counter = Counter()
    depth = 0
    text: list[str] = []

    def start(name: str, attrs: dict, line: int) -> None:
        nonlocal depth
        if name == "seg":
            depth += 1

    def end(name: str) -> None:
        nonlocal depth
        if name == "seg":
            depth -= 1
            if depth == 0:
                counts.update(words_of("".join(text)))
                text.clear()

    def data(s: str) -> None:
        if depth:
            text.append(s)

    _parse_xml(path, start, end, data)
    if not counts:
        raise InputError("no words in the <seg> elements of the file", path=path)
    return counts


# ---------------------------------------------------------------------------------------------
# building


@dataclass
class Built:
    language: str
    stems: list[Stem]
    source: Path
    words: int = 0
    """word tokens read (0 for word lists)"""
    distinct_stems: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    """(stem, why) of stems that could not be transcribed"""
    out_of_range: int = 0
    ranked: str = "frequency"

    def describe(self) -> str:
        tokens = f"{self.words} words, " if self.words else ""
        return (f"{self.language}: {tokens}{self.distinct_stems} distinct stems, {len(self.failed)} not transcribable, "
                f"{self.out_of_range} outside the length limits; kept {len(self.stems)} ({self.ranked}) from "
                f"{self.source}")


def _transcribed(items: Iterable[tuple[str, str]], system: str, min_units: int, max_units: int, built: Built,
                 path: Path) -> Iterable[Stem]:
    """Stems of (stem, gloss) pairs that transcribe and fit the limits, distinct by IPA units."""
    from engine.io.transcription import TranscriptionError, transcriber

    to_ipa = transcriber(system)
    seen: set[tuple[str, ...]] = set()
    for form, gloss in items:
        try:
            ipa = to_ipa(form)
        except TranscriptionError as e:
            built.failed.append((form, e.problem))
            continue
        units = ipa_units(ipa)
        if not (min_units <= len(units) <= max_units):
            built.out_of_range += 1
            continue
        if units in seen:
            continue
        seen.add(units)
        yield Stem(form, ipa, gloss, built.language)


def from_counts(language: Language, counts: Counter, *, stems: int, min_units: int, max_units: int,
                path: Path) -> Built:
    """The ``stems`` most frequent stems of a word-frequency table."""
    stem_of = stemmer(language.stemmer)
    by_stem: Counter = Counter()
    top_word: dict[str, tuple[int, str]] = {}
    for word, n in counts.items():
        w = lower(word, language.name)
        s = stem_of(respelled(w, language.respell))
        if not s:
            continue
        by_stem[s] += n
        if n > top_word.get(s, (0, ""))[0]:
            top_word[s] = (n, w)
    built = Built(language.name, [], path, words=sum(counts.values()), distinct_stems=len(by_stem))
    ranked = sorted(by_stem.items(), key=lambda kv: (-kv[1], kv[0]))
    items = ((s, f"{top_word[s][1]} ({n}×)") for s, n in ranked)
    for stem in _transcribed(items, language.system, min_units, max_units, built, path):
        built.stems.append(stem)
        if len(built.stems) == stems:
            break
    return built


def from_lemmas(language: Language, stems_by_lemma: OshbStems, *, stems: int, min_units: int, max_units: int,
                path: Path) -> Built:
    """The ``stems`` most frequent lemmas of a stemmed text, each as its most frequent stem form."""
    built = Built(language.name, [], path, words=stems_by_lemma.words, distinct_stems=len(stems_by_lemma.forms),
                  ranked="frequency of the lemma")
    ranked = sorted(((sum(f.values()), key) for key, f in stems_by_lemma.forms.items()), key=lambda t: (-t[0], t[1]))

    def items() -> Iterable[tuple[str, str]]:
        for n, key in ranked:
            forms = stems_by_lemma.forms[key]
            form = min(forms, key=lambda f: (-forms[f], f))
            yield form, f"lemma {key} ({n}×)"

    for stem in _transcribed(items(), language.system, min_units, max_units, built, path):
        built.stems.append(stem)
        if len(built.stems) == stems:
            break
    return built


def seeded_sample(items: Sequence, size: int, key: str) -> list:
    """``size`` of ``items`` drawn with a generator seeded by ``key``, in the items' own order (all of
    them when there are no more than ``size``)."""
    if len(items) <= size:
        return list(items)
    return [items[i] for i in sorted(random.Random(key).sample(range(len(items)), size))]


def from_list(language: Language, items: Sequence[tuple[str, str]], *, stems: int, min_units: int,
              max_units: int, seed: int, path: Path) -> Built:
    """A seeded sample of ``stems`` of a word list without frequencies (its order kept)."""
    built = Built(language.name, [], path, distinct_stems=len({f for f, _ in items}),
                  ranked=f"seeded sample, seed {seed}")
    usable = list(_transcribed(items, language.system, min_units, max_units, built, path))
    built.stems = seeded_sample(usable, stems, f"candidates:{language.name}:{seed}")
    return built


def build(language: str, *, stems: int = DEFAULT_STEMS, min_units: int = MIN_UNITS, max_units: int = MAX_UNITS,
          seed: int = 0, data: str | Path = DEFAULT_DATA, source: str | Path | None = None) -> Built:
    """The candidate vocabulary of ``language`` (a key of :data:`LANGUAGES`)."""
    if language not in LANGUAGES:
        raise DecipherError(f"unknown candidate language {language!r}; use one of {', '.join(LANGUAGES)}")
    if stems < 1 or min_units < 1 or max_units < min_units:
        raise DecipherError(f"--stems must be positive and the unit limits a range ({stems}, {min_units}..{max_units})")
    lang = LANGUAGES[language]
    if lang.kind == "gothic":
        return _from_gothic(lang, stems=stems, min_units=min_units, max_units=max_units, seed=seed, data=Path(data))
    path = Path(source) if source is not None else Path(data) / lang.path
    if not path.exists():
        raise InputError("the source file is missing (give --source or --data)", path=path)
    kw = dict(stems=stems, min_units=min_units, max_units=max_units, path=path)
    if lang.kind == "verses":
        return from_counts(lang, read_verses(path), **kw)
    if lang.kind == "frequencies":
        return from_counts(lang, read_frequencies(path), **kw)
    if lang.kind == "ces":
        return from_counts(lang, read_ces(path), **kw)
    if lang.kind == "oshb":
        return from_lemmas(lang, read_oshb(path), **kw)
    if lang.kind == "trask":
        return from_list(lang, [(f, g) for f, g, _ in read_trask(path)], seed=seed, **kw)
    if lang.kind == "cog":
        from engine.io.cog import read_cog

        cog = read_cog(path, system=lang.system, on_unknown="skip")
        return from_list(lang, [(s.form, s.gloss) for s in cog.stems], seed=seed, **kw)
    raise AssertionError(lang.kind)


def _from_gothic(lang: Language, *, stems: int, min_units: int, max_units: int, seed: int, data: Path) -> Built:
    from engine.datasets.gothic import ETYMOLOGY_FILE, PROIEL_FILE
    from engine.datasets.gothic import build as build_gothic

    ds = build_gothic(lang.path, 0, seed, proiel=data / PROIEL_FILE, etymology=data / ETYMOLOGY_FILE,
                      min_units=min_units, max_units=max_units)
    built = Built(lang.name, [], data / ETYMOLOGY_FILE, distinct_stems=len(ds.stems),
                  ranked=f"seeded sample, seed {seed}, of the Gothic dataset's stems")
    usable = list(ds.stems)
    usable = seeded_sample(usable, stems, f"candidates:{lang.name}:{seed}")
    built.stems = [Stem(s.form, s.ipa, s.gloss, lang.name) for s in usable]
    return built


# ---------------------------------------------------------------------------------------------
# command line


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="decipher dataset candidates",
                                description="Build a candidate known vocabulary (KNOWN CSV) for a closeness "
                                            "comparison from the shared corpora.")
    p.add_argument("--language", required=True, choices=sorted(LANGUAGES))
    p.add_argument("--stems", type=int, default=DEFAULT_STEMS, help=f"stems to keep (default {DEFAULT_STEMS})")
    p.add_argument("--min-units", type=int, default=MIN_UNITS)
    p.add_argument("--max-units", type=int, default=MAX_UNITS)
    p.add_argument("--seed", type=int, default=0, help="sample seed for word lists without frequencies")
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    p.add_argument("--source", type=Path, help="the source file, instead of the one under --data")
    p.add_argument("--out", type=Path, required=True, help="the KNOWN CSV to write")
    p.add_argument("--force", action="store_true", help="replace an existing file at --out")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    from engine.io.atomic import FORCE_HINT, check_new

    args = parser().parse_args(argv)
    try:
        check_new([args.out], force=args.force, hint=FORCE_HINT)   # before anything is read or written
        built = build(args.language, stems=args.stems, min_units=args.min_units, max_units=args.max_units,
                      seed=args.seed, data=args.data, source=args.source)
        if not built.stems:
            raise DecipherError(f"no {args.language} stem of {args.min_units}–{args.max_units} IPA units")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        write_known(args.out, built.stems, replace=args.force)
    except DecipherError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(built.describe() + f" -> {args.out}", file=sys.stderr)
    if len(built.stems) < args.stems:
        print(f"note: only {len(built.stems)} of the {args.stems} stems asked for", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
