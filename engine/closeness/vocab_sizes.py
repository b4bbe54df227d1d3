"""Matched vocabularies: every candidate of a comparison cut to the same stems-per-language.

The decoder subtracts log |V|, so a bigger vocabulary covers less of the text; candidates are only
comparable at one size. Each is filtered to the span lengths the runs use, de-duplicated by IPA
units, and sampled (seeded) to a common size: the smallest candidate's, or the one a user gives. Or,
as the paper did for Gothic (its Genesis lists at 600 stems beside Old Norse's 529), each is cut to at
most a size on its own (``cap``): a shorter candidate keeps all its usable stems, and the comparison then
reads each candidate only against its own nulls, which have its size (the margin), not its score against
another's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Mapping

from engine.corpus import Stem, Vocabulary
from engine.errors import DecipherError
from engine.model.phonology import ipa_units


@dataclass(frozen=True)
class MatchedSize:
    """What matching did to one candidate."""

    name: str
    given: int
    usable: int
    """distinct stems (by IPA units) within the length limits"""
    kept: int


@dataclass(frozen=True)
class Matching:
    vocabularies: dict[str, Vocabulary]
    size: int
    min_units: int
    max_units: int
    seed: int
    sizes: tuple[MatchedSize, ...]
    user_size: bool
    capped: bool = False
    """each candidate cut to at most ``size`` on its own (not all to one size)"""

    @property
    def size_text(self) -> str:
        """"600 stems each", or "at most 600 stems each" when each candidate was cut on its own."""
        return f"{'at most ' if self.capped else ''}{self.size} stems each"

    def describe(self) -> str:
        """One line saying what was done, for the command's output and the comparison's files."""
        each = ", ".join(f"{m.name} {m.given}→{m.usable}→{m.kept}" for m in self.sizes)
        if self.capped:
            return (f"every candidate sampled to at most {self.size} stems of {self.min_units}–{self.max_units} IPA "
                    f"units, each on its own (a shorter one keeps all; each is read against nulls of its own size), "
                    f"distinct by IPA, seed {self.seed} (given→usable→kept: {each})")
        how = "the size asked for" if self.user_size else "the smallest candidate's size"
        return (f"every candidate sampled to {self.size} stems ({how}) of {self.min_units}–{self.max_units} IPA "
                f"units, distinct by IPA, seed {self.seed} (given→usable→kept: {each})")


def usable_stems(vocab: Vocabulary, min_units: int, max_units: int) -> list[Stem]:
    """Stems of ``vocab`` within the length limits, the first of each distinct IPA unit string."""
    seen: set[tuple[str, ...]] = set()
    out = []
    for s in vocab.stems:
        units = ipa_units(s.ipa, source=f"stem {s.form!r} of {vocab.language}")
        if min_units <= len(units) <= max_units and units not in seen:
            seen.add(units)
            out.append(s)
    return out


def match_vocabularies(candidates: Mapping[str, Vocabulary], *, stems: int | None = None, min_units: int = 4,
                       max_units: int = 10, seed: int = 0, cap: int | None = None) -> Matching:
    """Sample every candidate to the same number of stems (``stems`` or the smallest usable size), or
    with ``cap`` each to at most ``cap`` on its own.

    The sample of each candidate depends only on the seed and the candidate's name and stems (not on
    the other candidates), and keeps the candidate's order. Raises DecipherError when a candidate has
    no usable stem or fewer than ``stems``, or when both ``stems`` and ``cap`` are given.
    """
    if min_units < 1 or max_units < min_units:
        raise DecipherError(f"stem length limits {min_units}..{max_units} are not a range of positive lengths")
    if stems is not None and stems < 1:
        raise DecipherError(f"--stems must be a positive number of stems (got {stems})")
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
        raise DecipherError(f"--cap-stems must be a positive number of stems (got {cap})")
    if cap is not None and stems is not None:
        raise DecipherError("--stems (one size for all) and --cap-stems (at most a size each) cannot both be given")
    usable = {name: usable_stems(v, min_units, max_units) for name, v in candidates.items()}
    for name, u in usable.items():
        if not u:
            raise DecipherError(f"candidate {name!r} has no stem of {min_units}–{max_units} IPA units")
    size = cap if cap is not None else min(len(u) for u in usable.values()) if stems is None else stems
    short = [] if cap is not None else [f"{name} ({len(u)})" for name, u in usable.items() if len(u) < size]
    if short:
        raise DecipherError(f"{size} stems asked for, but these candidates have fewer of {min_units}–{max_units} "
                            f"IPA units: {', '.join(short)}")
    out, sizes = {}, []
    for name, u in usable.items():
        rng = random.Random(f"match:{seed}:{name}")
        kept = min(size, len(u))
        keep = sorted(rng.sample(range(len(u)), kept))
        out[name] = Vocabulary(candidates[name].language, tuple(u[i] for i in keep))
        sizes.append(MatchedSize(name, len(candidates[name].stems), len(u), kept))
    return Matching(out, size, min_units, max_units, seed, tuple(sizes), stems is not None or cap is not None,
                    capped=cap is not None)


__all__ = ["MatchedSize", "Matching", "match_vocabularies", "usable_stems"]
