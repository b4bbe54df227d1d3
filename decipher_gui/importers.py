"""The import formats the File ▸ Import menu offers, and one function that runs any of them
through engine.project's importers (no Qt). Each importer writes all or nothing.

The import dialog's options (delimiter, encoding, column mapping) are the engine readers' own
parameters, and its preview is the engine's (engine.io.preview.preview_file): what the dialog
shows is what the reader reads, with the reader's words for each problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from engine.io import tables
from engine import project as projects
from engine.project import Project


@dataclass(frozen=True)
class ImportKind:
    key: str
    label: str
    file_filter: str
    asks_name: bool = False        # the new corpus / language gets a name
    asks_system: bool = False      # a transcription system (word lists)
    asks_language: bool = False    # which language of a multi-language file
    asks_corpus: bool = False      # the corpus gold belongs to
    asks_replace: bool = False     # PRIOR: replace the pins instead of merging
    is_dir: bool = False
    columns: tuple[str, ...] = ()  # a table: the columns it needs (mappable to the file's headers)
    optional: tuple[str, ...] = ()


TABLES = "CSV or TSV (*.csv *.tsv *.tab *.txt);;All files (*)"

KINDS: tuple[ImportKind, ...] = (
    ImportKind("lost", "Lost-language corpus (LOST.csv/.tsv)…", TABLES, asks_name=True,
               columns=tables.LOST_COLUMNS),
    ImportKind("text", "Corpus from plain text (one inscription per line)…", "Text (*.txt);;All files (*)",
               asks_name=True),
    ImportKind("hesperia", "Hesperia export (Iberian)…", "CSV (*.csv *.tsv *.txt);;All files (*)", asks_name=True),
    ImportKind("known", "Known language (KNOWN.csv/.tsv)…", TABLES, asks_name=True,
               columns=tables.KNOWN_COLUMNS, optional=("gloss",)),
    ImportKind("wordlist", "Word list with transcription to IPA…", "Word lists (*.txt *.tsv *.csv);;All files (*)",
               asks_name=True, asks_system=True, asks_language=True),
    ImportKind("cldf", "CLDF Wordlist (metadata JSON)…", "CLDF metadata (*.json);;CSV (*.csv);;All files (*)",
               asks_name=True, asks_language=True),
    ImportKind("cog", "NeuroDecipher .cog file (corpus + language + gold)…", "cog (*.cog);;All files (*)",
               asks_name=True, asks_system=True),   # the known column's system (greek for Linear B)
    ImportKind("gold", "Gold annotations (GOLD.csv/.tsv)…", TABLES, asks_corpus=True,
               columns=tables.GOLD_COLUMNS),
    ImportKind("prior", "Pinned values (PRIOR.csv/.tsv)…", TABLES, asks_replace=True,
               columns=tables.PRIOR_COLUMNS, optional=("weight", "locked", "note")),
)

BY_KEY = {k.key: k for k in KINDS}

#: Imports whose engine reader takes an ``encoding`` and decodes the file itself (the dialog
#: offers Encoding and a preview of the first lines for them).
READS_ENCODING = frozenset({"text", "hesperia", "wordlist"})


def transcription_systems() -> list[str]:
    try:
        from engine.io.transcription import available_systems
        return list(available_systems())
    except Exception:  # the transcription module is optional for the GUI
        return []


# ---- the dialog's choices for the readers' options --------------------------------------------

#: (label, codec) offered by the dialog; "auto" lets the reader detect (BOM, else UTF-8).
ENCODING_CHOICES = (("Detect", "auto"), ("UTF-8", "utf-8-sig"), ("Latin-1 (ISO-8859-1)", "latin-1"),
             ("Windows-1252", "cp1252"), ("UTF-16", "utf-16"))
DELIMITER_CHOICES = (("Detect", None), ("Comma ,", ","), ("Semicolon ;", ";"), ("Tab", "\t"), ("Pipe |", "|"))


def run_import(project: Project, kind: str, path: str | Path, *, name: str | None = None,
               system: str | None = None, language: str | None = None, corpus: int | str | None = None,
               replace: bool = False, delimiter: str | None = None, encoding: str | None = None,
               columns: dict[str, str] | None = None, dotted: str | None = None) -> str:
    """Import ``path`` as ``kind``; returns a one-line summary for the status bar. ``encoding``
    ("auto" detects), ``delimiter`` and ``columns`` (our column → the file's) apply to tables;
    ``dotted`` (what a dot below is: "letter" or "uncertain"; None asks, by DottedLettersUnchosen)
    to lost texts."""
    path = Path(path)
    encoding = None if encoding in (None, "auto") else encoding  # the engine readers detect (BOM, else UTF-8)
    if kind in READS_ENCODING or not (BY_KEY[kind].columns if kind in BY_KEY else ()):
        return _run_import(project, kind, path, name=name, system=system, language=language, corpus=corpus,
                           replace=replace, encoding=encoding, dotted=dotted)
    return _run_import(project, kind, path, name=name, system=system, language=language, corpus=corpus,
                       replace=replace, delimiter=delimiter, columns=columns or None, encoding=encoding,
                       dotted=dotted)


def _run_import(project: Project, kind: str, path: Path, *, name: str | None = None,
                system: str | None = None, language: str | None = None, corpus: int | str | None = None,
                replace: bool = False, delimiter: str | None = None, columns: dict[str, str] | None = None,
                encoding: str | None = None, dotted: str | None = None) -> str:
    table_options = {} if delimiter is None and columns is None else {"delimiter": delimiter, "columns": columns}
    if encoding is not None:
        table_options["encoding"] = encoding
    name = (name or "").strip() or None
    language = (language or "").strip() or None
    corpus_importers = {"lost": projects.import_lost, "text": projects.import_text,
                        "hesperia": projects.import_hesperia}
    if kind in corpus_importers:
        extra = table_options if kind == "lost" else ({"encoding": encoding} if encoding else {})
        if kind != "hesperia":      # Hesperia's own cleaner reads its dots (engine/io/hesperia.py)
            extra = {**extra, "dotted": dotted}
        cid = corpus_importers[kind](project, path, name=name, **extra)
        return f"Imported corpus {project.corpus(cid).name!r} ({len(project.inscriptions(cid))} inscriptions)"
    if kind in ("known", "wordlist", "cldf"):
        if kind == "known":
            lid = projects.import_known(project, path, name=name, **table_options)
        elif kind == "cldf":
            lid = projects.import_cldf(project, path, name=name, language=language)
        elif not system:
            raise ValueError("a word list needs a transcription system")
        else:
            lid = projects.import_wordlist(project, path, system, name=name, language=language,
                                            encoding=encoding)
        return f"Imported known language {project.vocabulary(lid).language!r} ({len(project.stems(lid))} stems)"
    if kind == "cog":
        # the known column is transcribed with ``system`` (the engine's default, semitic, when none)
        cid, lid = projects.import_cog(project, path, name=name, **({"system": system} if system else {}))
        return (f"Imported corpus {project.corpus(cid).name!r} and known language "
                f"{project.vocabulary(lid).language!r}")
    if kind == "gold":
        n = projects.import_gold(project, path, corpus=corpus, **table_options)
        return f"Imported {n} gold annotations"
    if kind == "prior":
        n = projects.import_prior(project, path, replace=replace, **table_options)
        return f"Imported {n} pinned values" + (" (replacing the old ones)" if replace else "")
    raise ValueError(f"unknown import kind {kind!r}")


def importer_for(kind: str, path: str | Path, **options) -> Callable[[Project], str]:
    """A one-argument callable for commands.ImportCommand."""
    return lambda project: run_import(project, kind, path, **options)
