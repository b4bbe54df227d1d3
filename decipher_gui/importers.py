"""The import formats the File ▸ Import menu offers, and one function that runs any of them
through engine.project.importing (no Qt). Each importer writes all or nothing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from engine.project import importing
from engine.project.store import Project


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


TABLES = "CSV or TSV (*.csv *.tsv *.tab *.txt);;All files (*)"

KINDS: tuple[ImportKind, ...] = (
    ImportKind("lost", "Lost-language corpus (LOST.csv/.tsv)…", TABLES, asks_name=True),
    ImportKind("text", "Corpus from plain text (one inscription per line)…", "Text (*.txt);;All files (*)",
               asks_name=True),
    ImportKind("hesperia", "Hesperia export (Iberian)…", "CSV (*.csv *.tsv *.txt);;All files (*)", asks_name=True),
    ImportKind("known", "Known language (KNOWN.csv/.tsv)…", TABLES, asks_name=True),
    ImportKind("wordlist", "Word list with transcription to IPA…", "Word lists (*.txt *.tsv *.csv);;All files (*)",
               asks_name=True, asks_system=True, asks_language=True),
    ImportKind("cldf", "CLDF Wordlist (metadata JSON)…", "CLDF metadata (*.json);;CSV (*.csv);;All files (*)",
               asks_name=True, asks_language=True),
    ImportKind("cog", "NeuroDecipher .cog file (corpus + language + gold)…", "cog (*.cog);;All files (*)",
               asks_name=True),
    ImportKind("gold", "Gold annotations (GOLD.csv/.tsv)…", TABLES, asks_corpus=True),
    ImportKind("prior", "Pinned values (PRIOR.csv/.tsv)…", TABLES, asks_replace=True),
)

BY_KEY = {k.key: k for k in KINDS}


def transcription_systems() -> list[str]:
    try:
        from engine.transcription import available_systems
        return list(available_systems())
    except Exception:  # the transcription module is optional for the GUI
        return []


def run_import(project: Project, kind: str, path: str | Path, *, name: str | None = None,
               system: str | None = None, language: str | None = None, corpus: int | str | None = None,
               replace: bool = False) -> str:
    """Import ``path`` as ``kind``; returns a one-line summary for the status bar."""
    path = Path(path)
    name = (name or "").strip() or None
    language = (language or "").strip() or None
    corpus_importers = {"lost": importing.import_lost, "text": importing.import_text,
                        "hesperia": importing.import_hesperia}
    if kind in corpus_importers:
        cid = corpus_importers[kind](project, path, name=name)
        return f"Imported corpus {project.corpus(cid).name!r} ({len(project.inscriptions(cid))} inscriptions)"
    if kind in ("known", "wordlist", "cldf"):
        if kind == "known":
            lid = importing.import_known(project, path, name=name)
        elif kind == "cldf":
            lid = importing.import_cldf(project, path, name=name, language=language)
        elif not system:
            raise ValueError("a word list needs a transcription system")
        else:
            lid = importing.import_wordlist(project, path, system, name=name, language=language)
        return f"Imported known language {project.vocabulary(lid).language!r} ({len(project.stems(lid))} stems)"
    if kind == "cog":
        cid, lid = importing.import_cog(project, path, name=name)
        return (f"Imported corpus {project.corpus(cid).name!r} and known language "
                f"{project.vocabulary(lid).language!r}")
    if kind == "gold":
        n = importing.import_gold(project, path, corpus=corpus)
        return f"Imported {n} gold annotations"
    if kind == "prior":
        n = importing.import_prior(project, path, replace=replace)
        return f"Imported {n} pinned values" + (" (replacing the old ones)" if replace else "")
    raise ValueError(f"unknown import kind {kind!r}")


def importer_for(kind: str, path: str | Path, **options) -> Callable[[Project], str]:
    """A one-argument callable for commands.ImportCommand."""
    return lambda project: run_import(project, kind, path, **options)
