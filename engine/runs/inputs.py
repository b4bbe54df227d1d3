"""A run's inputs read from LOST/KNOWN/GOLD/PRIOR files: the one reader behind every command."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from engine.config import Config
from engine.corpus import Corpus, GoldAnnotation, PinnedValue, Vocabulary
from engine.runs.session import RunInputs


def _warn(line: str) -> None:
    print(f"warning: {line}", file=sys.stderr)


@dataclass(frozen=True)
class RunFiles:
    """What LOST, KNOWN, GOLD and PRIOR files hold, read and checked (each may be absent)."""

    corpus: Corpus | None
    vocabulary: Vocabulary | None
    gold: tuple[GoldAnnotation, ...]
    pins: tuple[PinnedValue, ...]


def read_run_files(lost: Path | None = None, known: Path | None = None, gold: Path | None = None,
                   prior: Path | None = None, *, warn: Callable[[str], None] = _warn,
                   lost_notation: str = "signs", dotted: str | None = None,
                   known_system: str | None = None) -> RunFiles:
    """Read the files a run is built from. Gold is checked against the lost text (and, with a
    known file, against its stems: what cannot be matched is a warning, not an error).
    ``dotted``: what a dot below is in LOST (engine.io.tables.read_lost); ``known_system``: the
    transcription system KNOWN's ipa column is written in (engine.io.tables.read_known)."""
    from engine.io.goldcheck import check_gold
    from engine.io.tables import read_gold, read_known, read_lost, read_prior

    inscriptions = read_lost(lost, notation=lost_notation, dotted=dotted) if lost is not None else None
    stems = read_known(known, system=known_system) if known is not None else None
    golds = read_gold(gold, inscriptions=inscriptions) if gold is not None else []
    if golds and stems is not None:
        for warning in check_gold(golds, (s.form for s in stems), path=gold, vocabulary=str(known)):
            warn(warning)
    return RunFiles(Corpus(Path(lost).stem, tuple(inscriptions)) if inscriptions is not None else None,
                    Vocabulary(Path(known).stem, tuple(stems)) if stems is not None else None,
                    tuple(golds), tuple(read_prior(prior)) if prior is not None else ())


def inputs_from_files(lost: Path, known: Path, config: Config, *, gold: Path | None = None,
                      prior: Path | None = None, resume: Path | None = None,
                      overrides: Mapping[str, Any] | None = None,
                      warn: Callable[[str], None] = _warn, lost_notation: str = "signs",
                      dotted: str | None = None, known_system: str | None = None) -> RunInputs:
    """RunInputs from files. On a resume without pins from a PRIOR file the checkpoint keeps its own.
    ``lost_notation``: how LOST's text column writes the signs (engine.io.tables.read_lost)."""
    files = read_run_files(lost, known, gold, prior, warn=warn, lost_notation=lost_notation, dotted=dotted,
                           known_system=known_system)
    keep_pins = resume is not None and not files.pins
    return RunInputs(files.corpus, files.vocabulary, config, gold=files.gold,
                     pins=None if keep_pins else files.pins, resume=resume, overrides=dict(overrides or {}))
