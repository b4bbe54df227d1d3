"""The ``.cog`` cognate format (NeuroDecipher; Snyder et al. 2010): a TSV whose header names the
languages, one row per word, ``_`` for no counterpart and ``|`` between alternatives.

The lost column becomes one inscription per distinct word (whole words, for ``--segmented``
runs), the known column the vocabulary (transcribed to IPA), and each lost word with known
counterparts a gold row spanning the whole word. A lost word holding Leiden brackets is refused
(a lacuna inside a whole word has no place in this format).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engine.corpus import GoldAnnotation, Inscription, Stem, normalise_text, split_units
from engine.errors import InputError
from engine.io.tables import read_text

MISSING = "_"
#: Leiden brackets (lacunae, additions, deletions): refused in a lost word (docs/formats.md)
LEIDEN_BRACKETS = frozenset("[]{}\u27e8\u27e9\u3008\u3009")


@dataclass
class CogImport:
    inscriptions: list[Inscription]
    stems: list[Stem]
    gold: list[GoldAnnotation]
    languages: tuple[str, str]
    skipped: list[tuple[int, str, str]] = field(default_factory=list)
    """(line, form, problem) for known forms left out with on_unknown="skip"."""


def read_cog(path: str | Path, *, system: str = "semitic", lost_column: int = 0, known_column: int = 1,
             on_unknown: str = "error", encoding: str | None = None) -> CogImport:
    from engine.io.transcription import TranscriptionError, transcribe

    path = Path(path)
    for option, value in (("--lost-column", lost_column), ("--known-column", known_column)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputError(f"{option} must be a column number from 0, got {value!r}", path=path)
    if lost_column == known_column:
        raise InputError(f"--lost-column and --known-column are both {lost_column}", path=path)
    text = read_text(path, encoding=encoding)
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise InputError("the file is empty", path=path)
    header = lines[0].split("\t")
    if max(lost_column, known_column) >= len(header):
        raise InputError(f"the header has {len(header)} columns ({', '.join(header)}); "
                         f"asked for columns {lost_column} and {known_column}", path=path, line=1)
    languages = (header[lost_column].strip(), header[known_column].strip())
    lost_words: dict[str, tuple[int, list[str]]] = {}
    known: dict[str, Stem] = {}
    skipped: list[tuple[int, str, str]] = []
    bad: set[str] = set()
    for no, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) != len(header):
            raise InputError(f"{len(cells)} tab-separated fields, the header has {len(header)}", path=path, line=no)
        lost = cells[lost_column].strip()
        forms = [f.strip() for f in cells[known_column].split("|") if f.strip() and f.strip() != MISSING]
        for form in forms:
            if form in known or form in bad:
                continue
            try:
                known[form] = Stem(form, transcribe(form, system, path=path, line=no), source=languages[1])
            except TranscriptionError as e:
                if on_unknown != "skip":
                    raise
                bad.add(form)
                skipped.append((no, form, e.problem))
        if lost and lost != MISSING:
            word = normalise_text(lost)
            if " " in word:
                raise InputError(f"lost word {lost!r} contains a space", path=path, line=no)
            marks = [ch for ch in word if ch in LEIDEN_BRACKETS]
            if marks:
                raise InputError(f"lost word {lost!r} holds the Leiden mark {marks[0]!r}: a .cog file lists "
                                 "whole words, and a gold span cannot cover a lacuna; import the texts "
                                 "as LOST.csv (which reads Leiden markup) and the gold as GOLD.csv",
                                 path=path, line=no)
            entry = lost_words.setdefault(word, (no, []))
            entry[1].extend(f for f in forms if f not in entry[1])
    if not lost_words:
        raise InputError(f"no words in the lost column {languages[0]!r}", path=path)
    inscriptions, gold = [], []
    for word, (no, forms) in lost_words.items():
        ins_id = f"{languages[0]}:{no}"
        inscriptions.append(Inscription(ins_id, word, raw=word, meta={"line": str(no)}))
        usable = tuple(f for f in forms if f in known)
        if usable:
            gold.append(GoldAnnotation(ins_id, 0, len(split_units(word)), usable))
    return CogImport(inscriptions, list(known.values()), gold, languages, skipped)
