"""Gothic lost-language datasets with a Proto-Germanic, Old Norse or Old English known vocabulary.

Rebuilds the Gothic setting of Luo et al. (TACL 2021, §5 and appendix "Data preparation"):

1. Gothic text: the PROIEL treebank of Wulfila's Bible (sentences, tokens and in-context lemmas);
   a sentence is an inscription, cut into chunks of at most 100 letters at word boundaries.
2. Whitespace ratio WR: each gold word boundary is written as a space independently with
   probability WR/100 (one seeded uniform draw per boundary, so with one seed the dividers of a
   lower WR are a subset of those of a higher one); WR 0 is unsegmented, WR 100 fully segmented.
3. Known vocabulary: Wiktionary descendant trees (PG headword → Gothic/Old Norse/Old English
   descendants). A Gothic token is linked to the PG headwords whose Gothic descendant is its
   lemma (or the lemma without its verbal prefixes, or, for pronoun forms listed as descendants,
   the token itself). Known stems = the stemmed PG headwords (or their ON/OE descendants),
   transcribed to IPA, 4–10 IPA units long, that are linked to at least one Gothic token. An ON/OE
   word that is a compound or derivative of a sibling word under the same headword (ON *vesheill*
   beside *vesa*) gives no stem: the sibling rule, :func:`derived_words`.
4. Gold: one row per linked token: the stem starts at the word start, or after the prefix when
   the link went through the lemma without its prefix (``ga-saiƕan`` → ``saiƕan``).

Usage: ``python -m engine.datasets.gothic --known pgm --wr 0 --seed 0 --out DIR`` (``--help``).
Every step and the measured counts are in docs/datasets.md.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import random
import re
import sys
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from engine.corpus import GoldAnnotation, Inscription, Stem
from engine.errors import DecipherError, InputError
from engine.io.atomic import FORCE_HINT, check_new
from engine.io.tables import write_csv
from engine.model.phonology import ipa_units
from engine.io.transcription import TranscriptionError, transcriber
from engine.datasets.germanic_ipa import old_english_table, old_norse_table
from engine.datasets.stemmers import english_stem, gothic_stem, norse_stem, pg_stem

DEFAULT_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
PROIEL_FILE = Path("gothic_proiel") / "gothic-nt.conll"
ETYMOLOGY_FILE = Path("germanic_etymology") / "entirePGMC_daughters.csv"

MAX_LETTERS = 100
MIN_CHUNK_LETTERS = 4
MIN_UNITS = 4
MAX_UNITS = 10
WHITESPACE_RATIOS = (0, 25, 50, 75, 100)

#: The letters a Gothic inscription is written with (the usual Latin transliteration; x is the
#: chi of Xristus, ƕ the hw letter).
GOTHIC_LETTERS = frozenset("abdefghijklmnopqrstuwxzþƕ")


@dataclass(frozen=True)
class KnownLanguage:
    code: str
    name: str
    wiktionary: str  # language code in the descendant table
    stemmer: Callable[[str], str]
    system: Callable[[], object]  # the transcription system (a name or a RuleTable factory)


KNOWN_LANGUAGES: dict[str, KnownLanguage] = {
    "pgm": KnownLanguage("pgm", "Proto-Germanic", "", pg_stem, lambda: "proto-germanic"),
    "non": KnownLanguage("non", "Old Norse", "non", norse_stem, old_norse_table),
    "ang": KnownLanguage("ang", "Old English", "ang", english_stem, old_english_table),
}

#: The paper's counts (appendix "Known vocabulary"): unique stems, matched Gothic tokens.
PAPER_TARGETS = {"pgm": (613, 7883), "non": (529, 10754), "ang": (627, 11067)}


# --------------------------------------------------------------------------------------------
# normalisation


def _strip_marks(text: str) -> str:
    """Remove combining marks (á → a, ū → u, ï → i, ą → a)."""
    nfd = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFC", "".join(c for c in nfd if not unicodedata.combining(c)))


def clean_form(raw: str) -> str | None:
    """A PROIEL word form as the letters of a lost inscription, or None for a numeral.

    Lower case, diaeresis and accents dropped (ïnsandida → insandida), the editorial marks
    ``- _ .`` (tmesis, joins) removed. Numerals written with letters between raised dots (·ib·)
    are not words of the text and give None. A letter outside :data:`GOTHIC_LETTERS` is an error.
    """
    s = unicodedata.normalize("NFC", raw).strip()
    if s.startswith("·") or s.endswith("·"):
        return None
    s = _strip_marks(s.lower())
    s = re.sub(r"[-_.·]", "", s)
    bad = sorted({c for c in s if c not in GOTHIC_LETTERS})
    if bad:
        raise InputError(f"unexpected character(s) {' '.join(map(repr, bad))} in Gothic form {raw!r}")
    return s or None


#: The Gothic alphabet (Unicode block U+10330) in the usual Latin transliteration.
GOTHIC_SCRIPT = str.maketrans({
    "𐌰": "a", "𐌱": "b", "𐌲": "g", "𐌳": "d", "𐌴": "e", "𐌵": "q", "𐌶": "z", "𐌷": "h", "𐌸": "þ",
    "𐌹": "i", "𐌺": "k", "𐌻": "l", "𐌼": "m", "𐌽": "n", "𐌾": "j", "𐌿": "u", "𐍀": "p", "𐍂": "r",
    "𐍃": "s", "𐍄": "t", "𐍅": "w", "𐍆": "f", "𐍇": "x", "𐍈": "ƕ", "𐍉": "o",
})


def match_key(text: str) -> str:
    """Spelling used to compare Gothic words across sources: Gothic script transliterated, lower
    case, no marks, ƕ written hw (``𐌲𐌰𐍃𐌰𐌹𐍈𐌰𐌽`` and ``gasaiƕan`` and ``gasaihwan`` agree)."""
    return _strip_marks(text.translate(GOTHIC_SCRIPT).lower()).replace("ƕ", "hw")


def lemma_parts(raw: str) -> tuple[str, ...]:
    """A PROIEL lemma as its hyphen-separated parts, cleaned: ``ga-saiƕan`` → ('ga', 'saiƕan').

    Homonym numbers (``manna#2``), the uncertainty star (``magan*``), brackets and dots go; marks
    are removed (``wáila`` → wail a, ``jūs`` → jus). Letters keep their spelling (ƕ stays).
    """
    s = unicodedata.normalize("NFC", raw).lower()
    s = re.sub(r"#\d+", "", s)
    s = re.sub(r"[*?()\[\].·_]", "", s)
    s = _strip_marks(s)
    return tuple(p for p in s.split("-") if p)


def descendant_key(word: str) -> str | None:
    """A Wiktionary Gothic descendant as a match key, or None for affixes and odd entries."""
    w = unicodedata.normalize("NFC", word).strip().replace("*", "")
    if not w or w.startswith("-") or w.endswith("-") or any(c.isspace() or c in "=0123456789" for c in w):
        return None
    return match_key(w.replace("-", ""))


# --------------------------------------------------------------------------------------------
# the Gothic corpus


@dataclass(frozen=True)
class Token:
    form: str  # cleaned letters
    raw_form: str
    lemma: str  # as in PROIEL
    parts: tuple[str, ...]  # cleaned lemma parts (prefixes..., base)


@dataclass(frozen=True)
class Sentence:
    index: int  # 1-based sentence number in the CoNLL file
    tokens: tuple[Token, ...]


@dataclass
class CorpusStats:
    sentences: int = 0
    tokens_read: int = 0
    numerals_dropped: int = 0


def read_proiel(path: str | Path, stats: CorpusStats | None = None) -> list[Sentence]:
    """Sentences of the PROIEL CoNLL-X export (blank line between sentences)."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found (the PROIEL Gothic CoNLL)", path=path)
    stats = stats if stats is not None else CorpusStats()
    sentences: list[Sentence] = []
    current: list[Token] = []
    number = 0

    def close() -> None:
        nonlocal current, number
        number += 1
        if current:
            sentences.append(Sentence(number, tuple(current)))
        current = []

    saw_token = False
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            line = line.rstrip("\n").rstrip("\r")
            if not line.strip():
                if saw_token:
                    close()
                    saw_token = False
                continue
            cols = line.split("\t")
            if len(cols) < 3:
                raise InputError(f"expected CoNLL columns id, form, lemma …, got {len(cols)}", path=path, line=lineno)
            saw_token = True
            stats.tokens_read += 1
            try:
                form = clean_form(cols[1])
            except InputError as e:
                raise InputError(e.problem, path=path, line=lineno) from None
            if form is None:
                stats.numerals_dropped += 1
                continue
            current.append(Token(form, cols[1], cols[2], lemma_parts(cols[2])))
    if saw_token:
        close()
    stats.sentences = len(sentences)
    if not sentences:
        raise InputError("no sentences in the file", path=path)
    return sentences


@dataclass(frozen=True)
class Chunk:
    """A chunk of a sentence: at most MAX_LETTERS letters, cut at word boundaries."""

    id: str
    sentence: int
    tokens: tuple[Token, ...]

    part: int = 0  # 1-based piece number, 0 when the sentence is kept whole
    parts: int = 1

    @property
    def letters(self) -> int:
        return sum(len(t.form) for t in self.tokens)

    @property
    def reference(self) -> str:
        where = f"PROIEL Gothic sentence {self.sentence}"
        return where if not self.part else f"{where}, part {self.part} of {self.parts}"


def _greedy(lengths: Sequence[int], cap: int) -> list[int]:
    """Sizes (in tokens) of the pieces of a greedy cut where each piece holds ≤ ``cap`` letters."""
    sizes: list[int] = []
    letters = 0
    for n in lengths:
        if sizes and letters + n <= cap:
            sizes[-1] += 1
            letters += n
        else:
            sizes.append(1)
            letters = n
    return sizes


def split_balanced(lengths: Sequence[int], max_letters: int) -> list[int]:
    """Cut a run of words (their letter counts) at word boundaries into the fewest pieces of
    ≤ ``max_letters`` letters, as even as possible: the smallest cap that still needs no more
    pieces than the greedy cut at ``max_letters``. Returns the piece sizes in words."""
    if not lengths:
        return []
    fewest = len(_greedy(lengths, max_letters))
    if fewest == 1:
        return [len(lengths)]
    lo = max(max(lengths), -(-sum(lengths) // fewest))
    hi = max(max_letters, lo)
    while lo < hi:
        mid = (lo + hi) // 2
        if len(_greedy(lengths, mid)) <= fewest:
            hi = mid
        else:
            lo = mid + 1
    return _greedy(lengths, lo)


def chunk_sentences(sentences: Iterable[Sentence], max_letters: int = MAX_LETTERS,
                    min_letters: int = MIN_CHUNK_LETTERS) -> tuple[list[Chunk], int]:
    """Cut each sentence at word boundaries into the fewest pieces of ≤ ``max_letters`` letters,
    balanced in length (spaces are not counted, so the chunks are the same for every WR). Ids:
    ``s0042`` for a sentence kept whole, ``s0042.1``, ``s0042.2`` … for its pieces. Pieces under
    ``min_letters`` letters are dropped, as the authors' loader does; returns the chunks and how
    many were dropped. A word longer than ``max_letters`` makes a piece of its own."""
    out: list[Chunk] = []
    dropped = 0
    for s in sentences:
        sizes = split_balanced([len(t.form) for t in s.tokens], max_letters)
        pos = 0
        for k, size in enumerate(sizes, start=1):
            piece = s.tokens[pos:pos + size]
            pos += size
            cid = f"s{s.index:04d}" if len(sizes) == 1 else f"s{s.index:04d}.{k}"
            chunk = Chunk(cid, s.index, tuple(piece), k if len(sizes) > 1 else 0, len(sizes))
            if chunk.letters < min_letters:
                dropped += 1
                continue
            out.append(chunk)
    return out, dropped


# --------------------------------------------------------------------------------------------
# the etymological table and the links between Gothic tokens and PG headwords


@dataclass
class Etymology:
    """PG headwords with their Gothic descendants (as match keys) and their ON/OE descendants."""

    gothic: dict[str, set[str]]  # Gothic match key -> PG headwords
    gothic_words: dict[str, set[str]]  # PG headword -> Gothic descendants as written
    daughters: dict[str, dict[str, set[str]]]  # PG headword -> language -> words
    rows: int = 0
    headwords: int = 0
    skipped_affixes: int = 0


def read_etymology(path: str | Path) -> Etymology:
    """``entirePGMC_daughters.csv`` (COGID, PGMC, WORD, LANGUAGE): keep PG headwords with a Gothic
    descendant; affix entries (``-iz``, ``ga-``) are skipped."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found (the Wiktionary PG descendant table)", path=path)
    gothic: dict[str, set[str]] = defaultdict(set)
    gothic_words: dict[str, set[str]] = defaultdict(set)
    daughters: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    rows = skipped = 0
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        need = {"PGMC", "WORD", "LANGUAGE"}
        if not reader.fieldnames or not need <= set(reader.fieldnames):
            raise InputError(f"expected columns {sorted(need)}, got {reader.fieldnames}", path=path, line=1)
        for row in reader:
            rows += 1
            pg = unicodedata.normalize("NFC", (row["PGMC"] or "").strip())
            word = unicodedata.normalize("NFC", (row["WORD"] or "").strip())
            lang = (row["LANGUAGE"] or "").strip()
            if not pg or not word:
                continue
            if pg.startswith("-") or (pg.endswith("-") and word.endswith("-")):
                if lang == "got":
                    skipped += 1
                continue
            daughters[pg][lang].add(word)
            if lang == "got":
                key = descendant_key(word)
                if key is None:
                    skipped += 1
                    continue
                gothic[key].add(pg)
                gothic_words[pg].add(word)
    return Etymology(dict(gothic), dict(gothic_words), {k: dict(v) for k, v in daughters.items()}, rows,
                     len(gothic_words), skipped)


@dataclass(frozen=True)
class LinkGroup:
    """PG headwords of a token that agree on where the token's stem starts."""

    stem_start: int
    how: str  # "word" (stem at the word start), "after-prefix", "form" (token listed as a descendant)
    headwords: frozenset[str]


@dataclass(frozen=True)
class Link:
    """A Gothic token's PG headwords, grouped by stem start, in order of preference."""

    groups: tuple[LinkGroup, ...]

    @property
    def headwords(self) -> frozenset[str]:
        return frozenset(h for g in self.groups for h in g.headwords)


_PREFIX_VARIANTS = {"us": ("uz", "ur"), "is": ("iz",), "twis": ("twiz",), "and": ("anda",), "at": ("ad",)}

# Gothic letter -> PG letters it can continue (for telling whether a PG headword has the prefix)
_PREFIX_LETTERS = {"s": "sz", "r": "rsz", "f": "fb", "a": "aeiu", "i": "ie", "u": "uo", "þ": "þd", "d": "dt"}


def pg_has_prefix(headword: str, prefix: str) -> bool:
    """Whether a PG headword begins with (the PG form of) a Gothic prefix: ``gahabjaną``/``ga`` yes,
    ``uzreisaną``/``ur`` yes, ``gerdaną``/``uf`` no. Compares the first two letters, allowing the
    regular correspondences (Gothic s/r ~ PG z, f ~ b, ai/au ~ e/i/u, þ ~ d)."""
    pg = _strip_marks(headword.lower().lstrip("*"))
    if not pg or not prefix or pg[0] != prefix[0]:
        return False
    if len(prefix) == 1:
        return True
    return len(pg) > 1 and pg[1] in _PREFIX_LETTERS.get(prefix[1], prefix[1])


def locate_base(form: str, prefixes: Sequence[str], base: str) -> int | None:
    """Offset in ``form`` where ``base`` starts, after the written ``prefixes``; None when the form
    does not begin with them (suppletion, unusual assimilation).

    Accepts the assimilated prefixes us → uz/ur, is → iz, and → anda, and the clitic -u-/-uh-
    that Gothic inserts after a first prefix (ga-u-laubjats)."""
    pos = 0
    for p in prefixes:
        options = sorted((p,) + _PREFIX_VARIANTS.get(p, ()), key=len, reverse=True)
        for o in options:
            if form.startswith(o, pos):
                pos += len(o)
                break
        else:
            return None
    if prefixes and base and not form.startswith(base[:1], pos):
        for clitic in ("uh", "u"):
            if form.startswith(clitic, pos) and form.startswith(base[:1], pos + len(clitic)):
                pos += len(clitic)
                break
    if pos >= len(form):
        return None
    return pos


def link_token(token: Token, etym: Etymology) -> tuple[Link | None, bool]:
    """The token's link (None if none), and whether a lemma matched but the prefix the stem
    starts after could not be found in the written form.

    The lemma is looked up whole (``ga-laubjan`` as ``galaubjan``), then without its first
    prefix, and so on. For the PG headwords found, the stem starts at the word start when the
    headword has the (first remaining) prefix too (``galaubjan`` < *galaubijaną), else after the
    prefixes (``ufgairdan`` < *gerdaną; ``gasaiƕan`` via ``saiƕan`` < *sehwaną). A token none of
    whose lemma parts is listed is looked up by its own form (pronoun forms such as ``izwis``)."""
    parts = token.parts
    unlocated = False
    for i in range(len(parts)):
        heads = etym.gothic.get(match_key("".join(parts[i:])))
        if not heads:
            continue
        inner = parts[i:-1]
        with_prefix = {h for h in heads if inner and pg_has_prefix(h, inner[0])}
        plain = set(heads) - with_prefix
        groups: list[LinkGroup] = []
        if with_prefix:  # the headword includes the prefixes from part i on
            start = 0 if i == 0 else locate_base(token.form, parts[:i], parts[i])
            if start is None:
                unlocated = True
            else:
                groups.append(LinkGroup(start, "word" if start == 0 else "after-prefix", frozenset(with_prefix)))
        if plain:  # the headword is the simplex: the stem starts after every prefix
            start = 0 if len(parts) == 1 else locate_base(token.form, parts[:-1], parts[-1])
            if start is None:
                unlocated = True
            else:
                groups.append(LinkGroup(start, "word" if start == 0 else "after-prefix", frozenset(plain)))
        if groups:
            return Link(tuple(groups)), False
    heads = etym.gothic.get(match_key(token.form))
    if heads and not unlocated:
        return Link((LinkGroup(0, "form", frozenset(heads)),)), False
    return None, unlocated


# --------------------------------------------------------------------------------------------
# known vocabulary


@dataclass
class KnownStem:
    form: str
    ipa: str
    units: int
    headwords: set[str] = field(default_factory=set)  # PG headwords
    words: set[str] = field(default_factory=set)  # the known-language words stemmed to it
    tokens: int = 0


@dataclass
class GothicVocabulary:
    language: KnownLanguage
    stems: dict[str, KnownStem]  # form -> stem (kept ones)
    token_stems: dict[int, tuple[LinkGroup, tuple[str, ...]]]  # token id() -> chosen group, kept stem forms
    failures: list[tuple[str, str]]  # (form, reason) that could not be transcribed
    candidates: int = 0
    out_of_range: int = 0
    #: the sibling rule: (PG headword, derived word, the sibling it is derived from), for the headwords
    #: linked to a token
    derived: list[tuple[str, str, str]] = field(default_factory=list)
    tokens_dropped_derived_only: int = 0  # gold links whose only stems in range were derived words
    tokens_relinked: int = 0  # gold links whose stems changed under the rule (to the simplex or another group)
    #: linked tokens -> with a word of the language in the table -> with a stem in range before the
    #: sibling rule -> after it (= gold rows)
    token_funnel: dict[str, int] = field(default_factory=dict)

    def gloss(self, s: KnownStem) -> str:
        pg = ", ".join("*" + h for h in sorted(s.headwords))
        if self.language.code == "pgm":
            return f"PG {pg}"
        words = ", ".join(sorted(s.words))
        return f"{self.language.name} {words} < PG {pg}"


def _known_words(lang: KnownLanguage, head: str, etym: Etymology) -> set[str]:
    if lang.code == "pgm":
        return {head}
    out = set()
    for w in etym.daughters.get(head, {}).get(lang.wiktionary, ()):
        w = w.strip()
        if w.startswith("-") or w.endswith("-") or any(c in "=0123456789 " for c in w):
            continue
        out.add(w)
    return out


#: Shortest sibling stem (in letters) that the sibling rule looks for inside a longer word's stem.
MIN_SIBLING_LETTERS = 2


def _plain(word: str) -> str:
    return unicodedata.normalize("NFC", word.replace("*", "")).lower()


def derived_words(words: Iterable[str], stemmer: Callable[[str], str]) -> dict[str, str]:
    """The sibling rule: which of the words one language lists under one PG headword are compounds
    or derivatives of another of them (word -> the sibling it contains).

    A word is derived from a sibling when the sibling's stem (at least :data:`MIN_SIBLING_LETTERS`
    letters) occurs inside the word's longer stem: ON *vesheill* "hale" ⊃ *vesa* "to be"
    (ves-heil), OE *hellewīte* ⊃ *hell*, *ambyre* ⊃ *byre*, *ġewacen* ⊃ *wacan*, *binnan* ⊃ *innan*.
    A word of the shortest stem is never derived, so at least one word of the list is kept."""
    stems = {w: _plain(stemmer(w)) for w in words}
    out: dict[str, str] = {}
    for w, sw in sorted(stems.items()):
        for s, ss in sorted(stems.items(), key=lambda x: (len(x[1]), x[0])):
            if s != w and len(ss) >= MIN_SIBLING_LETTERS and len(ss) < len(sw) and ss in sw:
                out[w] = s
                break
    return out


def build_vocabulary(lang: KnownLanguage, tokens: Sequence[tuple[Token, Link]], etym: Etymology, *,
                     min_units: int = MIN_UNITS, max_units: int = MAX_UNITS,
                     sibling_rule: bool = True) -> GothicVocabulary:
    """Stems of ``lang`` for the linked tokens: stem, transcribe, keep ``min_units``–``max_units``
    IPA units. A stem is in the vocabulary iff it is linked to at least one token.

    With ``sibling_rule`` a word that is a compound or derivative of a sibling word under the same
    headword (:func:`derived_words`) gives no stem: the gold links to the simplex, and where the
    simplex is out of range the link is dropped (counted in ``tokens_dropped_derived_only``),
    rather than letting the compound stand in for the cognate."""
    system = lang.system()
    to_ipa = transcriber(system) if isinstance(system, str) else system.transcribe  # type: ignore[union-attr]
    info: dict[str, KnownStem | None] = {}
    failures: list[tuple[str, str]] = []
    out_of_range = 0
    per_head: dict[str, set[str]] = {}
    per_head_derived: dict[str, set[str]] = {}  # stems only the derived words give (for the counts)
    derived_of: dict[str, dict[str, str]] = {}

    def stems_of(head: str) -> set[str]:
        if head not in per_head:
            words = _known_words(lang, head, etym)
            derived_of[head] = derived_words(words, lang.stemmer) if sibling_rule else {}
            per_head[head] = _stems(head, [w for w in words if w not in derived_of[head]])
            per_head_derived[head] = _stems(head, sorted(derived_of[head]), register=False) - per_head[head]
        return per_head[head]

    def _stems(head: str, words: Iterable[str], register: bool = True) -> set[str]:
        nonlocal out_of_range
        kept: set[str] = set()
        for word in sorted(words):
            form = lang.stemmer(word)
            if not form:
                continue
            if form not in info:
                try:
                    ipa = to_ipa(form)
                    n = len(ipa_units(ipa))
                except (TranscriptionError, InputError) as e:
                    failures.append((form, getattr(e, "detail", None) or str(e)))
                    info[form] = None
                    continue
                if not (min_units <= n <= max_units):
                    out_of_range += 1
                    info[form] = None
                    continue
                info[form] = KnownStem(form, ipa, n)
            st = info[form]
            if st is not None:
                if register:
                    st.headwords.add(head)
                    st.words.add(unicodedata.normalize("NFC", word.replace("*", "")))
                kept.add(form)
        return kept

    for head in sorted(etym.gothic_words):  # every candidate, so the counts say what the filter left
        stems_of(head)
    token_stems: dict[int, tuple[LinkGroup, tuple[str, ...]]] = {}
    used: dict[str, KnownStem] = {}
    dropped = relinked = with_words = in_range_before = 0
    for tok, link in tokens:
        with_words += any(_known_words(lang, h, etym) for h in link.headwords)
        chosen: tuple[str, ...] = ()
        for group in link.groups:  # the first group with a stem in the vocabulary decides
            forms: set[str] = set()
            for h in group.headwords:
                forms |= stems_of(h)
            if forms:
                chosen = tuple(sorted(forms))
                token_stems[id(tok)] = (group, chosen)
                for f in forms:
                    st = info[f]
                    assert st is not None
                    st.tokens += 1
                    used[f] = st
                break
        # what the token would have had with the derived words kept, to count what the rule changed
        for group in link.groups:
            before = {f for h in group.headwords for f in per_head[h] | per_head_derived[h]}
            if before:
                in_range_before += 1
                if not chosen:
                    dropped += 1
                elif tuple(sorted(before)) != chosen:
                    relinked += 1
                break
    linked_heads = {h for _, link in tokens for h in link.headwords}
    derived = sorted((h, w, s) for h in linked_heads for w, s in derived_of.get(h, {}).items())
    funnel = {"tokens_linked": len(tokens), "with_words_in_table": with_words,
              "with_a_stem_in_range_before_the_sibling_rule": in_range_before, "gold_rows": len(token_stems)}
    return GothicVocabulary(lang, dict(sorted(used.items())), token_stems, failures,
                            sum(1 for v in info.values() if v is not None), out_of_range, derived, dropped,
                            relinked, funnel)


def vocabulary_funnel(lang: KnownLanguage, links: Sequence[tuple[Token, Link]], etym: Etymology,
                      vocab: GothicVocabulary, *, min_units: int = MIN_UNITS, max_units: int = MAX_UNITS,
                      lemma_keys: set[str] | None = None, sibling_rule: bool = True) -> dict[str, int]:
    """Where candidate stems are lost, stage by stage: the PG headwords with a Gothic descendant ->
    those linked to at least one Gothic token (with ``lemma_keys``, the match keys of every lemma
    and lemma-without-prefixes of the corpus, the unlinked ones are split into "Gothic word not in
    the corpus" and "word in the corpus, but its tokens linked to another headword") -> those with a
    word of ``lang`` in the table -> the words -> the words left by the sibling rule -> distinct
    stems -> transcribed -> under / in / over the unit range -> used."""
    system = lang.system()
    to_ipa = transcriber(system) if isinstance(system, str) else system.transcribe  # type: ignore[union-attr]
    heads = {h for _, link in links for h in link.headwords}
    with_words = [h for h in heads if _known_words(lang, h, etym)]
    all_words = {(h, w) for h in with_words for w in _known_words(lang, h, etym)}
    derived = {(h, w) for h in with_words
               for w in (derived_words(_known_words(lang, h, etym), lang.stemmer) if sibling_rule else {})}
    words = {w for _, w in all_words}
    kept_words = {w for h, w in all_words - derived}
    stems = {lang.stemmer(w) for w in kept_words} - {""}
    units: dict[str, int] = {}
    for form in stems:
        try:
            units[form] = len(ipa_units(to_ipa(form)))
        except (TranscriptionError, InputError):
            pass
    out: dict[str, int] = {"pg_headwords_with_gothic": len(etym.gothic_words), "pg_headwords_linked": len(heads)}
    if lemma_keys is not None:
        unlinked = set(etym.gothic_words) - heads
        in_corpus = {h for h in unlinked
                     if any(descendant_key(w) in lemma_keys for w in etym.gothic_words[h])}
        out["unlinked_word_not_in_corpus"] = len(unlinked - in_corpus)
        out["unlinked_tokens_linked_elsewhere"] = len(in_corpus)
    return out | {
        "with_words_in_table": len(with_words),
        "known_words": len(words),
        "derived_from_a_sibling": len({w for _, w in derived} - kept_words),
        "words_kept": len(kept_words),
        "distinct_stems": len(stems),
        "transcribed": len(units),
        f"under_{min_units}_units": sum(1 for n in units.values() if n < min_units),
        f"over_{max_units}_units": sum(1 for n in units.values() if n > max_units),
        "in_range": sum(1 for n in units.values() if min_units <= n <= max_units),
        "used_by_a_token": len(vocab.stems),
    }


#: Examples kept per stage of :func:`vocabulary_losses`.
LOSS_EXAMPLES = 6


def vocabulary_losses(lang: KnownLanguage, links: Sequence[tuple[Token, Link]], etym: Etymology,
                      vocab: GothicVocabulary, *, min_units: int = MIN_UNITS, max_units: int = MAX_UNITS,
                      sibling_rule: bool = True, examples: int = LOSS_EXAMPLES) -> list[dict]:
    """The loss table: for each stage from the table's words to the vocabulary, how many candidate
    words or stems it loses, how many Gothic tokens stand behind them (tokens linked to their PG
    headwords), and the examples with most tokens. Stages: linking (the Gothic word of the headword
    is not linked to a token), table coverage (a linked headword lists no word of ``lang``), the
    sibling rule, stemming (words merged into one stem), transcription failures, stems under
    ``min_units`` units (split into words already short and words made short by stemming), over
    ``max_units``, and stems in range whose tokens all took another headword group."""
    system = lang.system()
    to_ipa = transcriber(system) if isinstance(system, str) else system.transcribe  # type: ignore[union-attr]
    head_tokens: Counter = Counter()
    for _, link in links:
        for h in link.headwords:
            head_tokens[h] += 1
    linked = set(head_tokens)

    def words_of(h: str) -> set[str]:
        return _known_words(lang, h, etym)

    def stage(name: str, lost: int, unit: str, items: list[tuple[int, str]]) -> dict:
        items.sort(key=lambda x: (-x[0], x[1]))
        return {"stage": name, "lost": lost, "unit": unit, "tokens": sum(n for n, _ in items),
                "examples": [f"{text} ({n} tokens)" if n else text for n, text in items[:examples]]}

    out: list[dict] = []
    unlinked = [(h, w) for h in sorted(set(etym.gothic_words) - linked) for w in sorted(words_of(h))]
    out.append(stage("linking: the headword's Gothic word is not linked to a token", len(unlinked), "words",
                     [(0, f"{w} < *{h} (Gothic {', '.join(sorted(etym.gothic_words[h]))})") for h, w in unlinked]))
    bare = [h for h in sorted(linked) if not words_of(h)]
    if lang.code != "pgm":
        out.append(stage(f"table coverage: a linked headword lists no {lang.name} word", len(bare), "headwords",
                         [(head_tokens[h], f"*{h} (Gothic {', '.join(sorted(etym.gothic_words.get(h, ())))})")
                          for h in bare]))
    pairs = {(h, w) for h in linked for w in words_of(h)}
    derived = {(h, w): sib for h in linked
               for w, sib in (derived_words(words_of(h), lang.stemmer) if sibling_rule else {}).items()}
    kept = {w for h, w in pairs if (h, w) not in derived}
    out.append(stage("sibling rule: a compound or derivative of a sibling word", len({w for _, w in derived} - kept),
                     "words", [(head_tokens[h], f"{w} ⊃ {sib} (*{h})") for (h, w), sib in derived.items()]))
    by_stem: dict[str, set[str]] = defaultdict(set)
    stem_tokens: Counter = Counter()
    for h, w in pairs:
        if (h, w) in derived:
            continue
        f = lang.stemmer(w)
        if f:
            by_stem[f].add(w)
            stem_tokens[f] = max(stem_tokens[f], head_tokens[h])
    merged = [(stem_tokens[f], f"{' + '.join(sorted(ws))} → {f}") for f, ws in by_stem.items() if len(ws) > 1]
    out.append(stage("stemming: several words give one stem", len(kept) - len(by_stem), "words", merged))
    failed, short_whole, short_stemmed, long = [], [], [], []
    in_range = []
    for f in sorted(by_stem):
        try:
            ipa = to_ipa(f)
            n = len(ipa_units(ipa))
        except (TranscriptionError, InputError) as e:
            failed.append((stem_tokens[f], f"{f}: {getattr(e, 'detail', None) or e}"))
            continue
        item = (stem_tokens[f], f"{', '.join(sorted(by_stem[f]))} → {f} /{ipa}/")
        if n < min_units:
            whole = []
            for w in by_stem[f]:
                try:
                    whole.append(len(ipa_units(to_ipa(_plain(w).strip("-")))))
                except (TranscriptionError, InputError):
                    pass
            (short_stemmed if any(m >= min_units for m in whole) else short_whole).append(item)
        elif n > max_units:
            long.append(item)
        else:
            in_range.append(f)
    out.append(stage("transcription: the stem cannot be read", len(failed), "stems", failed))
    out.append(stage(f"length: under {min_units} IPA units, the word itself too", len(short_whole), "stems",
                     short_whole))
    out.append(stage(f"length: under {min_units} IPA units after stemming (the word has {min_units}+)",
                     len(short_stemmed), "stems", short_stemmed))
    out.append(stage(f"length: over {max_units} IPA units", len(long), "stems", long))
    unused = [f for f in in_range if f not in vocab.stems]
    out.append(stage("in range, but every token took another headword group", len(unused), "stems",
                     [(stem_tokens[f], f) for f in unused]))
    out.append({"stage": "stems in the vocabulary", "lost": 0, "unit": "stems", "kept": len(vocab.stems),
                "tokens": len(vocab.token_stems), "examples": []})
    return out


def losses_markdown(losses: Sequence[dict], title: str) -> str:
    """A loss table (:func:`vocabulary_losses`) as Markdown."""
    lines = [f"**{title}**", "", "| stage | lost | tokens behind them | examples |", "|---|---|---|---|"]
    for r in losses:
        if "kept" in r:
            lines.append(f"| **{r['stage']}** | **{r['kept']}** kept | {r['tokens']:,} gold rows | |")
            continue
        ex = "; ".join(r["examples"]).replace("|", "\\|")
        lines.append(f"| {r['stage']} | {r['lost']:,} {r['unit']} | {r['tokens']:,} | {ex} |")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# the dataset


@dataclass
class GoldRow:
    inscription_id: str
    start: int
    word_end: int
    known: tuple[str, ...]
    stem_end: int
    token: str
    lemma: str
    how: str

    def annotation(self) -> GoldAnnotation:
        return GoldAnnotation(self.inscription_id, self.start, self.word_end, self.known)


@dataclass
class Dataset:
    known: str
    wr: int
    seed: int
    inscriptions: list[Inscription]
    stems: list[Stem]
    gold: list[GoldRow]
    stats: dict


def render_chunks(chunks: Sequence[Chunk], wr: float, seed: int):
    """Yield (chunk, text, [(token, start offset)]) with each boundary written as a space with
    probability wr/100. One uniform draw per boundary, in corpus order, from ``Random(seed)``."""
    if not 0 <= wr <= 100:
        raise InputError(f"the whitespace ratio must be between 0 and 100, got {wr}")
    rng = random.Random(seed)
    p = wr / 100.0
    for ch in chunks:
        pieces: list[str] = []
        offsets: list[tuple[Token, int]] = []
        pos = 0
        for i, t in enumerate(ch.tokens):
            if i > 0:
                keep = rng.random() < p
                if keep:
                    pieces.append(" ")
                    pos += 1
            offsets.append((t, pos))
            pieces.append(t.form)
            pos += len(t.form)
        yield ch, "".join(pieces), offsets


def _lemma_keys(sentences: Iterable[Sentence]) -> set[str]:
    """Match keys of every lemma of the corpus, whole and without each of its leading prefixes."""
    return {match_key("".join(t.parts[i:])) for s in sentences for t in s.tokens for i in range(len(t.parts))}


def build(known: str, wr: int, seed: int, *, proiel: str | Path, etymology: str | Path,
          max_letters: int = MAX_LETTERS, min_units: int = MIN_UNITS, max_units: int = MAX_UNITS,
          sibling_rule: bool = True, _cache: dict | None = None) -> Dataset:
    """The full dataset for one known language and one whitespace ratio. ``sibling_rule=False``
    keeps compounds and derivatives of sibling words as stems (the builder before the rule)."""
    if known not in KNOWN_LANGUAGES:
        raise InputError(f"unknown known language {known!r}: use one of {', '.join(KNOWN_LANGUAGES)}")
    cache = _cache if _cache is not None else {}
    key = ("corpus", str(proiel), str(etymology), max_letters)
    if key not in cache:
        cstats = CorpusStats()
        sentences = read_proiel(proiel, cstats)
        chunks, dropped = chunk_sentences(sentences, max_letters)
        etym = read_etymology(etymology)
        links: list[tuple[Token, Link]] = []
        unlocated = 0
        for ch in chunks:
            for t in ch.tokens:
                link, unloc = link_token(t, etym)
                unlocated += unloc
                if link is not None:
                    links.append((t, link))
        cache[key] = (cstats, sentences, chunks, dropped, etym, links, unlocated)
    cstats, sentences, chunks, dropped, etym, links, unlocated = cache[key]
    vkey = ("vocab", key, known, min_units, max_units, sibling_rule)
    if vkey not in cache:
        cache[vkey] = build_vocabulary(KNOWN_LANGUAGES[known], links, etym, min_units=min_units,
                                       max_units=max_units, sibling_rule=sibling_rule)
    vocab: GothicVocabulary = cache[vkey]

    inscriptions: list[Inscription] = []
    gold: list[GoldRow] = []
    how = Counter()
    spaces = boundaries = 0
    for ch, text, offsets in render_chunks(chunks, wr, seed):
        inscriptions.append(Inscription(ch.id, text, meta={"reference": ch.reference}))
        spaces += text.count(" ")
        boundaries += len(ch.tokens) - 1
        for t, start in offsets:
            hit = vocab.token_stems.get(id(t))
            if not hit:
                continue
            group, forms = hit
            s = start + group.stem_start
            stem = gothic_stem(t.form[group.stem_start:])
            gold.append(GoldRow(ch.id, s, start + len(t.form), forms, s + len(stem), t.form, t.lemma, group.how))
            how[group.how] += 1
    stems = [Stem(s.form, s.ipa, vocab.gloss(s), "Wiktionary") for s in vocab.stems.values()]
    n_tokens = sum(len(c.tokens) for c in chunks)
    target = PAPER_TARGETS[known]
    stats = {
        "known": known,
        "known_language": KNOWN_LANGUAGES[known].name,
        "whitespace_ratio": wr,
        "seed": seed,
        "sentences": len(sentences),
        "tokens_read": cstats.tokens_read,
        "numerals_dropped": cstats.numerals_dropped,
        "chunks": len(inscriptions),
        "chunks_dropped_short": dropped,
        "tokens": n_tokens,
        "letters": sum(c.letters for c in chunks),
        "word_boundaries": boundaries,
        "spaces_written": spaces,
        "etymology_rows": etym.rows,
        "pg_headwords_with_gothic": etym.headwords,
        "gothic_affix_entries_skipped": etym.skipped_affixes,
        "tokens_linked": len(links),
        "tokens_prefix_not_found": unlocated,
        "candidate_stems_in_range": vocab.candidates,
        "stems_out_of_range": vocab.out_of_range,
        "vocabulary_funnel": vocabulary_funnel(KNOWN_LANGUAGES[known], links, etym, vocab, min_units=min_units,
                                               max_units=max_units, lemma_keys=_lemma_keys(sentences),
                                               sibling_rule=sibling_rule),
        "token_funnel": vocab.token_funnel,
        "vocabulary_losses": vocabulary_losses(KNOWN_LANGUAGES[known], links, etym, vocab, min_units=min_units,
                                               max_units=max_units, sibling_rule=sibling_rule),
        "sibling_rule": {
            "applied": sibling_rule,
            "gold_links_dropped": vocab.tokens_dropped_derived_only,
            "gold_links_relinked": vocab.tokens_relinked,
            "derived_words": [f"*{h}: {w} ⊃ {sib}" for h, w, sib in vocab.derived],
        },
        "transcription_failures": len(vocab.failures),
        "transcription_failure_list": [f"{f}: {why}" for f, why in sorted(set(vocab.failures))],
        "stems": len(stems),
        "stems_unique_ipa": len({tuple(ipa_units(s.ipa)) for s in stems}),
        "matched_tokens": len(gold),
        "matched_tokens_by_link": dict(sorted(how.items())),
        "matched_lemmas": len({r.lemma for r in gold}),
        "paper_stems": target[0],
        "paper_matched_tokens": target[1],
    }
    return Dataset(known, wr, seed, inscriptions, stems, gold, stats)


# --------------------------------------------------------------------------------------------
# sample for the app / tests


def sample(ds: Dataset, n: int, seed: int, stems_total: int = 180) -> Dataset:
    """About ``n`` inscriptions with gold (seeded choice), every stem their gold accepts, and
    distractor stems from the rest of the vocabulary up to ``stems_total``."""
    rng = random.Random(seed)
    with_gold = sorted({g.inscription_id for g in ds.gold})
    letters = {x.id: len(x.text.replace(" ", "")) for x in ds.inscriptions}  # the same draw for every WR
    short = [i for i in with_gold if letters[i] <= 80]  # keeps the bundled sample small
    pool = short if len(short) >= max(n, 1) * 4 else with_gold
    chosen = set(rng.sample(pool, min(n, len(pool))))
    inscriptions = [i for i in ds.inscriptions if i.id in chosen]
    gold = [g for g in ds.gold if g.inscription_id in chosen]
    needed = {f for g in gold for f in g.known}
    rest = sorted(s.form for s in ds.stems if s.form not in needed)
    extra = set(rng.sample(rest, max(0, min(len(rest), stems_total - len(needed)))))
    stems = [s for s in ds.stems if s.form in needed or s.form in extra]
    full = {k: v for k, v in ds.stats.items() if k != "transcription_failure_list"}
    stats = {"known": ds.known, "known_language": ds.stats["known_language"], "whitespace_ratio": ds.wr,
             "seed": ds.seed, "chunks": len(inscriptions), "spaces_written": sum(i.text.count(" ") for i in inscriptions),
             "stems": len(stems), "sample_stems_in_gold": len(needed), "matched_tokens": len(gold),
             "drawn_from": ("chunks with gold of at most 80 letters" if pool is short else "chunks with gold"),
             "full_dataset": full}
    return Dataset(ds.known, ds.wr, ds.seed, inscriptions, stems, gold, stats)


# --------------------------------------------------------------------------------------------
# writing


GOLD_EXTRA = ("stem_end", "token", "lemma")

ATTRIBUTION = """\
# Attribution

Derived data; research and other non-commercial use only.

- **Gothic text, word segmentation and lemmas**: the PROIEL Treebank (github.com/proiel/proiel-treebank,
  `gothic-nt.conll`), Gothic Bible after W. Streitberg, *Die gotische Bibel* (1919), annotated by the
  PROIEL project (D. Haug and M. Jøhndal, "Creating a Parallel Treebank of the Old Indo-European Bible
  Translations", LaTeCH 2008). Licence: Creative Commons Attribution-NonCommercial-ShareAlike 3.0.
  The same edition is distributed online by Project Wulfila (www.wulfila.be, University of Antwerp),
  whose text the paper used, for academic and other non-commercial use with acknowledgement.
- **Known vocabulary**: Proto-Germanic reconstructions and their Gothic, Old Norse and Old English
  descendants from Wiktionary's descendant trees (Reconstruction:Proto-Germanic pages), as scraped in
  github.com/esantus/Gothic-Bible-Mapper (`entirePGMC_daughters.csv`). Wiktionary text is licensed
  CC BY-SA 3.0/4.0 (https://en.wiktionary.org, "Wiktionary contributors"); the known.csv here is an
  adaptation under the same licence.
- Stems, IPA, chunks, word dividers and gold rows were made by `engine/datasets/gothic.py`
  (docs/datasets.md); the method follows Luo, Hartmann, Santus, Barzilay & Cao, "Deciphering
  Undersegmented Ancient Scripts Using Phonetic Prior", TACL 9 (2021).
"""


#: What :func:`write_dataset` writes into its folder.
DATASET_FILES = ("lost.csv", "known.csv", "gold.csv", "stats.json", "ATTRIBUTION.md", "README.md")


def write_dataset(ds: Dataset, out: str | Path, *, command: str, sources: dict[str, str],
                  sample_of: int | None = None, replace: bool = True) -> None:
    """The dataset's files (DATASET_FILES) under ``out``; ``replace=False``: an existing one is refused
    (engine.io.atomic.atomic_path)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "lost.csv", ("id", "text", "reference"),
              ((i.id, i.text, i.meta.get("reference", "")) for i in ds.inscriptions), replace=replace)
    write_csv(out / "known.csv", ("form", "ipa", "gloss", "source"),
              ((st.form, st.ipa, st.gloss, st.source) for st in ds.stems), replace=replace)
    write_csv(out / "gold.csv", ("inscription_id", "start", "word_end", "known") + GOLD_EXTRA,
              ((g.inscription_id, g.start, g.word_end, "|".join(g.known), g.stem_end, g.token, g.lemma)
               for g in ds.gold), replace=replace)
    from engine.io.atomic import write_text   # the one writer: never through a link, nothing half-written

    write_text(out / "stats.json", json.dumps(ds.stats, ensure_ascii=False, indent=1) + "\n", replace=replace)
    write_text(out / "ATTRIBUTION.md", ATTRIBUTION, replace=replace)
    write_text(out / "README.md", readme(ds, command, sources, sample_of), replace=replace)


def readme(ds: Dataset, command: str, sources: dict[str, str], sample_of: int | None) -> str:
    st = ds.stats
    lang = KNOWN_LANGUAGES[ds.known].name
    title = f"Gothic – {lang}, whitespace ratio {ds.wr} %, seed {ds.seed}"
    lines = [f"# {title}" + (" (sample)" if sample_of else ""), ""]
    lines += [f"Made with `{command}` (engine/datasets/gothic.py; method in docs/datasets.md).", ""]
    lines += ["| file | what |", "|---|---|",
              "| lost.csv | `id,text,reference`: a PROIEL sentence or a piece of it (≤ 100 letters); a space is a "
              "word divider |",
              "| known.csv | `form,ipa,gloss,source`: the known stems; gloss names the PG headword(s) (and ON/OE words) |",
              "| gold.csv | `inscription_id,start,word_end,known` (+ `stem_end,token,lemma`, ignored by the engine) |",
              "| stats.json | the counts below |", ""]
    lines += ["## Counts", ""]
    if sample_of:
        lines.append(f"A sample of {st['chunks']} of {sample_of} chunks (seeded draw among the {st['drawn_from']}), "
                     f"with every stem their gold rows "
                     f"accept ({st['sample_stems_in_gold']}) and distractors, {st['stems']} stems in all.")
        lines.append("")
    rows = [("chunks (inscriptions)", st["chunks"]), ("word boundaries written as spaces", st["spaces_written"]),
            ("known stems", st["stems"]), ("gold rows (matched Gothic tokens)", st["matched_tokens"])]
    if not sample_of:
        rows[2:2] = [("tokens", st["tokens"]), ("letters", st["letters"]), ("word boundaries", st["word_boundaries"])]
        rows += [("paper: stems / matched tokens", f"{st['paper_stems']} / {st['paper_matched_tokens']}"),
                 ("transcription failures (reported, not in known.csv)", st["transcription_failures"])]
    lines += ["| | |", "|---|---|"] + [f"| {a} | {b} |" for a, b in rows] + [""]
    if st.get("transcription_failure_list"):
        lines += ["Stems that could not be transcribed:", ""]
        lines += [f"- {x}" for x in st["transcription_failure_list"]] + [""]
    lines += ["## Sources", ""] + [f"- {k}: {v}" for k, v in sources.items()] + [""]
    lines += [ATTRIBUTION.replace("# Attribution", "## Attribution")]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# command line


def _int_list(text: str, allowed: Sequence[int] | None = None) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected whole numbers separated by commas, got {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError("expected at least one value")
    for v in values:
        if not 0 <= v <= 100:
            raise argparse.ArgumentTypeError(f"a whitespace ratio is a percentage 0–100, got {v}")
    return values


def _known_list(text: str) -> list[str]:
    values = [x.strip() for x in text.split(",") if x.strip()]
    bad = [v for v in values if v not in KNOWN_LANGUAGES]
    if bad or not values:
        raise argparse.ArgumentTypeError(f"known languages are {', '.join(KNOWN_LANGUAGES)}; got {text!r}")
    return values


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m engine.datasets.gothic",
        description="Build Gothic lost-language datasets (LOST/KNOWN/GOLD CSV) with a Proto-Germanic, "
                    "Old Norse or Old English known vocabulary (docs/datasets.md).")
    p.add_argument("--known", type=_known_list, default=["pgm"],
                   help="known language(s): pgm (Proto-Germanic), non (Old Norse), ang (Old English); "
                        "comma-separated for several (default pgm)")
    p.add_argument("--wr", type=_int_list, default=[0],
                   help="whitespace ratio(s) in %%: 0, 25, 50, 75, 100 (comma-separated for several; default 0)")
    p.add_argument("--seed", type=int, default=0, help="seed of the word-divider draws and the sample (default 0)")
    p.add_argument("--out", type=Path, required=True,
                   help="output folder; with several languages or ratios, one subfolder <known>-wr<WR> each")
    p.add_argument("--sample", type=int, metavar="N",
                   help="write a small sample instead: about N chunks with gold, their stems and distractors")
    p.add_argument("--sample-stems", type=int, default=180, metavar="M",
                   help="stems in the sample, distractors included (default 180)")
    p.add_argument("--data", type=Path, default=DEFAULT_DATA,
                   help=f"folder of the shared corpora (default {DEFAULT_DATA})")
    p.add_argument("--proiel", type=Path, help=f"the PROIEL Gothic CoNLL (default DATA/{PROIEL_FILE})")
    p.add_argument("--etymology", type=Path, help=f"the Wiktionary PG descendant table (default DATA/{ETYMOLOGY_FILE})")
    p.add_argument("--max-letters", type=int, default=MAX_LETTERS, help="letters per chunk at most (default 100)")
    p.add_argument("--min-units", type=int, default=MIN_UNITS, help="shortest known stem in IPA units (default 4)")
    p.add_argument("--max-units", type=int, default=MAX_UNITS, help="longest known stem in IPA units (default 10)")
    p.add_argument("--keep-derived", action="store_true",
                   help="keep ON/OE words that are compounds or derivatives of a sibling word under the same PG "
                        "headword as stems (the builder before the sibling rule; for comparisons)")
    p.add_argument("--losses", action="store_true",
                   help="also print, for each known language, the loss table (where candidate stems are lost, "
                        "stage by stage, with examples; stats.json `vocabulary_losses`) as Markdown")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")
    p.add_argument("--force", action="store_true", help="replace the files of an earlier build in --out")
    return p


def _describe(path: Path) -> str:
    """A source file as ``shared/data/…`` (when it is there) with the start of its SHA-256."""
    path = Path(path)
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        digest = "?"
    try:
        shown = "shared/data/" + path.resolve().relative_to(DEFAULT_DATA.resolve()).as_posix()
    except ValueError:
        shown = path.as_posix()
    return f"{shown} (sha256 {digest}…)"


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    proiel = args.proiel or args.data / PROIEL_FILE
    etymology = args.etymology or args.data / ETYMOLOGY_FILE
    combos = [(k, w) for k in args.known for w in args.wr]
    cache: dict = {}
    shown = ["python -m engine.datasets.gothic"] + [a if " " not in a else repr(a) for a in
                                                     (argv if argv is not None else sys.argv[1:])]
    command = " ".join(str(x) for x in shown)
    outs = [args.out if len(combos) == 1 else args.out / f"{known}-wr{wr}" for known, wr in combos]
    try:
        # every folder's files checked before any is built or written: an earlier build is refused whole
        check_new([o / f for o in outs for f in DATASET_FILES], force=args.force, hint=FORCE_HINT)
        for (known, wr), out in zip(combos, outs):
            ds = build(known, wr, args.seed, proiel=proiel, etymology=etymology, max_letters=args.max_letters,
                       min_units=args.min_units, max_units=args.max_units, sibling_rule=not args.keep_derived,
                       _cache=cache)
            sources = {"PROIEL treebank, Gothic": _describe(proiel),
                       "Wiktionary PG descendants": _describe(etymology)}
            if args.sample:
                full = len(ds.inscriptions)
                ds = sample(ds, args.sample, args.seed, args.sample_stems)
                write_dataset(ds, out, command=command, sources=sources, sample_of=full, replace=args.force)
            else:
                write_dataset(ds, out, command=command, sources=sources, replace=args.force)
            if not args.quiet:
                st = ds.stats
                extra = "" if args.sample else (f" (paper: {st['paper_stems']} stems, {st['paper_matched_tokens']} "
                                                f"tokens; {st['transcription_failures']} stems not transcribable)")
                print(f"{known} WR {wr}: {st['chunks']} chunks, {st['stems']} stems, {st['matched_tokens']} gold "
                      f"rows{extra} -> {out}")
            if args.losses and not args.sample and wr == args.wr[0]:
                print(losses_markdown(ds.stats["vocabulary_losses"], f"{KNOWN_LANGUAGES[known].name} ({known})"))
    except DecipherError as e:   # bad input, or an output refused (InputError is one)
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
