"""A corpus and a vocabulary turned into the index tables the model works on.

- the lost alphabet (``<DEL>`` first, then every letter of the corpus) and the known inventory
  (``<DEL>``, every IPA unit of the stems, and any unit a pinned value names);
- the stem table: unique IPA unit sequences of allowed length, each with the forms it spells;
- chunks: the runs of letters between written dividers, cut to at most ``max_chunk`` letters.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import torch

from engine.config import Config
from engine.corpus import Corpus, PinnedValue, Stem, Vocabulary
from engine.errors import InputError
from engine.model.phonology import DELETE, ipa_units
from engine.model.script import Script, script_of
from engine.model.syllables import NULL_ONSET, is_vowel


@dataclass(frozen=True)
class StemEntry:
    """One distinct IPA unit sequence of the vocabulary and the stems that spell it."""

    units: tuple[str, ...]
    stems: tuple[Stem, ...]

    @property
    def form(self) -> str:
        return self.stems[0].form

    @property
    def ipa(self) -> str:
        return self.stems[0].ipa

    @property
    def gloss(self) -> str:
        return "; ".join(dict.fromkeys(s.gloss for s in self.stems if s.gloss))


@dataclass(frozen=True)
class LetterRun:
    """A run of letters the lattice segments: ``letters`` start at ``offset`` of the inscription."""

    inscription_id: str
    offset: int
    letters: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.letters)


@dataclass
class Prepared:
    config: Config
    lost_letters: list[str]
    known_units: list[str]
    entries: list[StemEntry]
    stem_units: torch.Tensor          # (V, M) known-unit ids, padded with 0
    stem_len: torch.Tensor            # (V,)
    chunks: list[LetterRun]
    excluded_stems: list[tuple[Stem, str]] = field(default_factory=list)
    unused_pins: list[tuple[PinnedValue, str]] = field(default_factory=list)
    vowel_pairs: list[tuple[str, str]] = field(default_factory=list)
    """With signs = syllables and vowel_slot = joint: the (onset, vowel) pairs of the stems' syllables.
    Pair i is row len(known_units) + i of the DP's table (engine/model/syllable_mapping.py), and a stem's
    onset that a vowel follows is that row: its onset slot scores P(sign | onset, vowel)."""

    @property
    def n_stems(self) -> int:
        return len(self.entries)

    @property
    def script(self) -> Script:
        """What a lost character writes (setting ``signs``): the object every step of the run asks
        how to read the characters (engine/model/script.py)."""
        return script_of(self.config)

    def lost_index(self) -> dict[str, int]:
        return {c: i for i, c in enumerate(self.lost_letters)}

    def known_index(self) -> dict[str, int]:
        return {u: i for i, u in enumerate(self.known_units)}

    def entries_by_form(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for v, e in enumerate(self.entries):
            for s in e.stems:
                out.setdefault(s.form, []).append(v)
        return out

    def entries_by_units(self) -> dict[tuple[str, ...], int]:
        return {e.units: v for v, e in enumerate(self.entries)}

    def chunk_ids(self, chunk: LetterRun) -> list[int]:
        index = self.lost_index()
        return [index[c] for c in chunk.letters]

    def trainable_chunks(self) -> list[int]:
        """Chunks that can hold a matched span (shorter ones carry no signal for training)."""
        cfg = self.config
        if cfg.segmented:
            return [i for i, c in enumerate(self.chunks) if cfg.min_span <= len(c) <= cfg.max_span]
        return [i for i, c in enumerate(self.chunks) if len(c) >= cfg.min_span]


#: Peak memory of a run: a base (torch, numba, the model, a step's and an evaluation's work) and an
#: amount per letter of the corpus. Fitted above every peak benchmarks/experiments/memory_scaling.py measured
#: (benchmarks/results/memory-scaling.jsonl: 20,000 to 400,000 letters in 1 or 1,000 inscriptions,
#: 607-720 MB; the peak grows by ~0.9 KB a letter between 100,000 and 400,000 letters).
BYTES_PER_LETTER = 1024
BASE_BYTES = 700 * 2**20
#: Above this a run is told how much memory it will take (it is allowed: see check_memory).
LARGE_RUN_BYTES = 2 * 2**30


def memory_estimate(corpus: Corpus) -> int:
    """Bytes a run on ``corpus`` is expected to take at its peak (building the trainer, a step, an
    evaluation): linear in the corpus's letters, whatever their cut into inscriptions."""
    letters = sum(len(ins.text) for ins in corpus.inscriptions)
    return BASE_BYTES + BYTES_PER_LETTER * letters


def physical_memory() -> int | None:
    """This machine's memory in bytes (None where the system does not say)."""
    import os

    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(corpus: Corpus, config: Config) -> str | None:
    """Refuse, in one line, a corpus whose run would need more memory than allowed (setting
    ``memory_limit_gb``; 0: half of this machine's memory), before anything is built. A run that is
    allowed but large (over LARGE_RUN_BYTES) gets a note: the line its front end shows first."""
    need = memory_estimate(corpus)
    letters = sum(len(ins.text) for ins in corpus.inscriptions)
    limit_gb = config.memory_limit_gb
    if limit_gb <= 0:
        total = physical_memory()
        limit, said = ((None, "") if total is None else
                       (total // 2, f"half of this machine's {total / 2**30:.1f} GB"))
    else:
        limit, said = int(limit_gb * 2**30), f"setting memory_limit_gb = {limit_gb:g}"
    if limit is not None and need > limit:
        longest = max(corpus.inscriptions, key=lambda ins: len(ins.text))
        raise InputError(f"corpus {corpus.name!r} has {letters:,} letters (the longest inscription, "
                         f"{longest.id!r}, {len(longest.text):,}); a run would need about {need / 2**30:.1f} GB "
                         f"of memory, more than the {limit / 2**30:.1f} GB allowed ({said}); train on a part "
                         f"of the corpus, or raise the limit with --set memory_limit_gb=N")
    if need > LARGE_RUN_BYTES:
        return (f"note: {letters:,} letters: this run will take about {need / 2**30:.1f} GB of memory "
                f"(setting memory_limit_gb caps it)")
    return None


def cut_chunks(corpus: Corpus, config: Config) -> list[LetterRun]:
    """Split every inscription at its written dividers, then cut runs longer than max_chunk."""
    chunks = []
    for ins in corpus.inscriptions:
        for start, letters in ins.segments():
            for k in range(0, len(letters), config.max_chunk):
                piece = letters[k: k + config.max_chunk]
                chunks.append(LetterRun(ins.id, start + k, piece))
    return chunks


def prepare(corpus: Corpus, vocabulary: Vocabulary | Sequence[Stem], config: Config,
            pins: Iterable[PinnedValue] = (), *, letters: Sequence[str] | None = None) -> Prepared:
    """The problem as tensors. ``letters``: the lost letters to index (every letter of the corpus among
    them), instead of the corpus's own: a second corpus of the same run (setting words_first) shares its
    model's letters."""
    stems = vocabulary.stems if isinstance(vocabulary, Vocabulary) else tuple(vocabulary)
    if not corpus.inscriptions:
        raise InputError(f"corpus {corpus.name!r} has no inscriptions")
    if not stems:
        raise InputError("the known vocabulary is empty")
    grouped: dict[tuple[str, ...], list[Stem]] = {}
    excluded: list[tuple[Stem, str]] = []
    script = script_of(config)
    lo, hi = script.stem_length_range(config)
    for s in stems:
        units = ipa_units(s.ipa, source=f"stem {s.form!r}")
        n = len(script.stem_dp_units(units))
        if not lo <= n <= hi:
            excluded.append((s, f"{n} {script.stem_length_unit}, outside {lo}..{hi}"))
            continue
        grouped.setdefault(units, []).append(s)
    if not grouped:
        raise InputError(f"no stem of the vocabulary has {lo} to {hi} IPA units{script.stem_length_note}")
    entries = [StemEntry(u, tuple(ss)) for u, ss in sorted(grouped.items())]
    chunks = cut_chunks(corpus, config)
    found = sorted({c for ch in chunks for c in ch.letters})
    if letters is None:
        letters = found
    else:
        letters = list(letters)
        if not set(found) <= set(letters):
            raise ValueError(f"prepare(letters=...): the corpus has letters outside them: {sorted(set(found) - set(letters))[:5]}")
    lost_letters = [DELETE, *letters]

    pins = list(pins)
    units_used = sorted({u for e in entries for u in e.units})
    sounds = [script.pin_sounds(p) for p in pins]          # parsed once: a bad pin is one line here
    pin_units = [u for ss in sounds for u in ss if u not in units_used]
    known_units = [DELETE, *units_used, *sorted(set(pin_units)), *script.added_known_units]
    unused = []
    for p, ss in zip(pins, sounds):
        missing = [u for u in ss if u not in units_used and u != NULL_ONSET]
        if p.lost not in letters:
            unused.append((p, f"the corpus has no letter {p.lost!r}"))
        elif missing:
            unused.append((p, f"no stem uses /{missing[0]}/ (the pin still shapes its features)"))

    kidx = {u: i for i, u in enumerate(known_units)}
    dp_units = [script.stem_dp_units(e.units) for e in entries]
    pairs: dict[tuple[str, str], int] = {}
    ids = [[kidx[u] for u in units] for units in dp_units]
    if script.joint_vowels(config):
        # every vowel follows its onset (a consonant, or the null onset syllabify put there): the onset's
        # row becomes the pair's
        for units, row in zip(dp_units, ids):
            for i in range(1, len(units)):
                if is_vowel(units[i]):
                    row[i - 1] = len(known_units) + pairs.setdefault((units[i - 1], units[i]), len(pairs))
    M = max(len(u) for u in dp_units)
    table = torch.zeros((len(entries), M), dtype=torch.long)
    for v, row in enumerate(ids):
        table[v, : len(row)] = torch.tensor(row)
    lengths = torch.tensor([len(u) for u in dp_units], dtype=torch.long)
    return Prepared(config, lost_letters, known_units, entries, table, lengths, chunks, excluded, unused,
                    list(pairs))


def ngram_weights(chunks: Sequence[LetterRun], indices: Sequence[int], lo: int = 4, hi: int = 10) -> list[float]:
    """Sampling weight of each chunk: the mean over its n-grams (lo <= n <= hi) of 1 / corpus count.

    Down-weights formulaic or repeated text, as the authors' sampler does.
    """
    counts: Counter[tuple[str, ...]] = Counter()
    for i in indices:
        L = chunks[i].letters
        for n in range(lo, hi + 1):
            for s in range(len(L) - n + 1):
                counts[L[s: s + n]] += 1
    weights = []
    for i in indices:
        L = chunks[i].letters
        inv = [1.0 / counts[L[s: s + n]] for n in range(lo, hi + 1) for s in range(len(L) - n + 1)]
        weights.append(sum(inv) / len(inv) if inv else 1.0)
    return weights
