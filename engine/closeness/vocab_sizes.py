"""Matched vocabularies: every candidate of a comparison cut to the same stems-per-language.

The decoder subtracts log |V|, so a bigger vocabulary covers less of the text; candidates are only
comparable at one size. Each is filtered to the span lengths the runs use, de-duplicated by IPA
units, and sampled (seeded) to a common size: the smallest candidate's, or the one a user gives.
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

    def describe(self) -> str:
        """One line saying what was done, for the command's output and the comparison's files."""
        how = "the size asked for" if self.user_size else "the smallest candidate's size"
        each = ", ".join(f"{m.name} {m.given}→{m.usable}→{m.kept}" for m in self.sizes)
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
                       max_units: int = 10, seed: int = 0) -> Matching:
    """Sample every candidate to the same number of stems (``stems`` or the smallest usable size).

    The sample of each candidate depends only on the seed and the candidate's name and stems (not on
    the other candidates), and keeps the candidate's order. Raises DecipherError when a candidate has
    no usable stem or fewer than ``stems``.
    """
    if min_units < 1 or max_units < min_units:
        raise DecipherError(f"stem length limits {min_units}..{max_units} are not a range of positive lengths")
    if stems is not None and stems < 1:
        raise DecipherError(f"--stems must be a positive number of stems (got {stems})")
    usable = {name: usable_stems(v, min_units, max_units) for name, v in candidates.items()}
    for name, u in usable.items():
        if not u:
            raise DecipherError(f"candidate {name!r} has no stem of {min_units}–{max_units} IPA units")
    size = min(len(u) for u in usable.values()) if stems is None else stems
    short = [f"{name} ({len(u)})" for name, u in usable.items() if len(u) < size]
    if short:
        raise DecipherError(f"{size} stems asked for, but these candidates have fewer of {min_units}–{max_units} "
                            f"IPA units: {', '.join(short)}")
    out, sizes = {}, []
    for name, u in usable.items():
        rng = random.Random(f"match:{seed}:{name}")
        keep = sorted(rng.sample(range(len(u)), size))
        out[name] = Vocabulary(candidates[name].language, tuple(u[i] for i in keep))
        sizes.append(MatchedSize(name, len(candidates[name].stems), len(u), size))
    return Matching(out, size, min_units, max_units, seed, tuple(sizes), stems is not None)


__all__ = ["MatchedSize", "Matching", "match_vocabularies", "usable_stems"]
