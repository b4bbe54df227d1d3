"""Importers into a project. Each reads and checks the whole input first, then writes it in ONE
transaction: on any error nothing is written and the project file stays byte-for-byte as it was.

Problems with the input are InputError (naming file, line and problem); conflicts with what the
project holds (a name already used, an unknown corpus) are ProjectError. Every text is NFC and
control characters are refused (engine/io/text.py). ``encoding=None`` detects the encoding
(UTF-8, or UTF-16 by its BOM); ``"latin-1"``, ``"cp1252"`` or any Python codec name reads others.

The readers of ``.cog``, Hesperia, word lists and CLDF live in other modules and are imported
only when used, so this module loads without them.
"""

from __future__ import annotations

import dataclasses
import math
import unicodedata
from pathlib import Path
from typing import Any, Mapping, Sequence

from engine.config import Config, parse_value, settings_info
from engine.corpus import GoldAnnotation, Inscription, Stem
from engine.errors import InputError
from engine.io import tables
from engine.io.goldcheck import MissingGoldForm, gold_warning, missing_gold_forms
from engine.results import Alternative, Match
from engine.project.exporting import MATCH_COLUMNS, OPEN, resolve_corpus
from engine.project.schema import DECISIONS
from engine.project.store import Project

Columns = Mapping[str, str] | None


def _name(name: str | None, path: Path) -> str:
    """The name a user gave (--name), or the file's stem; control and invisible characters are
    refused (a name is printed to terminals and shown in the app)."""
    from engine.io.text import invisible_problem

    out = (name or "").strip() or path.stem
    for ch in out:
        if unicodedata.category(ch) == "Cc":
            raise InputError(f"the name '{out.encode('unicode_escape').decode('ascii')}' holds the control "
                             f"character U+{ord(ch):04X}; choose a name without it")
    found = invisible_problem(out)
    if found is not None:
        raise InputError(f"the name '{out.encode('unicode_escape').decode('ascii')}' holds {found[1]}")
    return unicodedata.normalize("NFC", out)


def _split_raw(inscriptions: list[Inscription]) -> list[Inscription]:
    """LOST.csv's optional ``raw`` column holds the text as first imported (diplomatic layer);
    the readers hand it over as metadata."""
    out = []
    for ins in inscriptions:
        if "raw" in ins.meta:
            meta = {k: v for k, v in ins.meta.items() if k != "raw"}
            ins = Inscription(ins.id, ins.text, raw=ins.meta["raw"], meta=meta)
        out.append(ins)
    return out


# ---------------------------------------------------------------------------------------------
# the CSV/TSV formats of docs/formats.md


def import_lost(project: Project, path: str | Path, *, name: str | None = None,
                columns: Columns = None, delimiter: str | None = None,
                encoding: str | None = None, dotted: str | None = None, notation: str = "signs",
                unguard: bool = True) -> int:
    """LOST.csv/.tsv → a new corpus (named ``name``, default the file's stem); returns its id.
    The texts' Leiden markup is read (:func:`markup_totals` counts it; ``raw`` keeps it); ``dotted``:
    what a dot below is, "letter" or "uncertain" (None: a file with one is refused, naming the letters).
    ``notation="linear-b"``: the text column is the Linear B transliteration (tables.read_lost)."""
    path = Path(path)
    inscriptions = _split_raw(tables.read_lost(path, columns=columns, delimiter=delimiter,
                                               encoding=encoding, dotted=dotted, notation=notation,
                                               unguard=unguard))
    return project.add_corpus(_name(name, path), inscriptions, source=str(path), format="lost")


def import_text(project: Project, path: str | Path, *, name: str | None = None,
                encoding: str | None = None, dotted: str | None = None) -> int:
    """Plain text, one inscription per line (ids ``<file stem>:<line>``) → a new corpus, its
    Leiden markup read as in :func:`import_lost`."""
    path = Path(path)
    inscriptions = tables.read_plain_text(path, encoding=encoding, dotted=dotted)
    if not inscriptions:
        raise InputError("no inscriptions in the file (only blank lines?)", path=path)
    return project.add_corpus(_name(name, path), inscriptions, source=str(path), format="text")


def import_known(project: Project, path: str | Path, *, name: str | None = None,
                 columns: Columns = None, delimiter: str | None = None,
                 encoding: str | None = None, system: str | None = None, unguard: bool = True) -> int:
    """KNOWN.csv/.tsv → a new known language (every IPA string checked, every unknown symbol
    listed, an IPA string with no sound refused); returns its id. ``system``: the ipa column is
    in that transcription system, transcribed to IPA (tables.read_known)."""
    path = Path(path)
    stems = tables.read_known(path, columns=columns, delimiter=delimiter, encoding=encoding, system=system,
                              unguard=unguard)
    return project.add_language(_name(name, path), stems, source=str(path),
                                format=f"known:{system}" if system else "known")


class GoldImport(int):
    """What :func:`import_gold` returns: the number of gold rows imported (it *is* that int),
    with ``warnings`` (one-line messages for the import summary; empty when all is well) and
    ``missing`` (each :class:`~engine.io.goldcheck.MissingGoldForm`: a known form a gold row
    names that no stem of the project's known languages has, with its line)."""

    warnings: tuple[str, ...]
    missing: tuple[MissingGoldForm, ...]

    def __new__(cls, count: int, warnings: Sequence[str] = (),
                missing: Sequence[MissingGoldForm] = ()) -> "GoldImport":
        self = super().__new__(cls, count)
        self.warnings = tuple(warnings)
        self.missing = tuple(missing)
        return self


def gold_warnings(project: Project, gold: Sequence[GoldAnnotation], *, path: str | Path | None = None,
                  lines: Sequence[int] | None = None) -> tuple[list[str], list[MissingGoldForm]]:
    """(warnings, missing forms) for gold rows naming known forms that no stem of any of the
    project's known languages has; nothing when the project has no known language yet."""
    languages = project.languages()
    if not languages:
        return [], []
    forms = {s.form for x in languages for s in project.stems(x.id)}
    missing = missing_gold_forms(gold, forms, lines=lines)
    names = ", ".join(repr(x.name) for x in languages)
    vocabulary = f"the known language {names}" if len(languages) == 1 else f"any known language ({names})"
    warning = gold_warning(missing, rows=len(gold), path=path, vocabulary=vocabulary)
    return ([warning] if warning else []), missing


def import_gold(project: Project, path: str | Path, *, corpus: int | str | None = None,
                columns: Columns = None, delimiter: str | None = None,
                encoding: str | None = None, unguard: bool = True) -> GoldImport:
    """GOLD.csv/.tsv → the gold annotations of a corpus (replacing any it had); returns how many
    (a :class:`GoldImport`, whose ``warnings`` name gold forms no known stem has).

    Every row is checked against the corpus's inscriptions (ids and lengths).
    """
    path = Path(path)
    corpus_id = resolve_corpus(project, corpus)
    gold = tables.read_gold(path, columns=columns, delimiter=delimiter, encoding=encoding,
                            inscriptions=project.inscriptions(corpus_id), unguard=unguard)
    warnings, missing = gold_warnings(project, gold, path=path, lines=gold.lines)
    project.set_gold(corpus_id, gold)
    return GoldImport(len(gold), warnings, missing)


def import_prior(project: Project, path: str | Path, *, columns: Columns = None,
                 delimiter: str | None = None, replace: bool = False,
                 encoding: str | None = None, unguard: bool = True) -> int:
    """PRIOR.csv/.tsv → pinned values: added to (or updating) the project's pins, or, with
    ``replace=True``, becoming exactly the project's pins. Returns how many were read."""
    path = Path(path)
    pins = tables.read_prior(path, columns=columns, delimiter=delimiter, encoding=encoding, unguard=unguard)
    if replace:
        project.replace_pins(pins)
    else:
        project.set_pins(pins)
    return len(pins)


# ---------------------------------------------------------------------------------------------
# formats whose readers other modules provide


def import_cog(project: Project, path: str | Path, *, name: str | None = None,
               language: str | None = None, system: str = "semitic",
               on_unknown: str = "error", encoding: str | None = None) -> tuple[int, int]:
    """A ``.cog`` cognate file → a corpus, a known language (transcribed with ``system``) and the
    corpus's gold, in one transaction. The corpus is named ``name`` (default: the file's stem),
    the language ``language`` (default: the known column's header). Returns (corpus id, language id)."""
    from engine.io.cog import read_cog  # provided by engine/io/cog.py

    path = Path(path)
    result = read_cog(path, system=system, on_unknown=on_unknown, encoding=encoding)
    if isinstance(result, tuple):
        inscriptions, stems, gold = result[:3]
        headers: Sequence[str] = ()
    else:
        inscriptions, stems, gold = result.inscriptions, result.stems, result.gold
        headers = tuple(getattr(result, "languages", ()) or ())
    corpus_name = _name(name, path)
    known_name = (language or "").strip() or (headers[1] if len(headers) > 1 else "")
    if not known_name or known_name == corpus_name:
        known_name = f"{corpus_name} (known)"
    with project.transaction():
        corpus_id = project.add_corpus(corpus_name, inscriptions, source=str(path), format="cog")
        language_id = project.add_language(known_name, stems, source=str(path), format="cog")
        if gold:
            project.set_gold(corpus_id, gold)
    return corpus_id, language_id


def import_hesperia(project: Project, path: str | Path, *, name: str | None = None,
                    **options: Any) -> int:
    """A Hesperia (Iberian) export → a new corpus (``raw`` = TEXTO as in the file, ``text`` the
    cleaned transliteration, the other columns as metadata). ``options`` go to
    ``engine.io.hesperia.read_hesperia`` (``language``, ``lacunae``, ``numerals``, ``encoding``)."""
    from engine.io.hesperia import read_hesperia  # provided by engine/io/hesperia.py

    path = Path(path)
    result = read_hesperia(path, **options)
    # a record with no letter left once cleaned (only lost signs, or a Latin text) holds nothing to
    # decipher, and a project stores no empty text: it is left out (the reader's report counts it)
    inscriptions = [i for i in getattr(result, "inscriptions", result) if i.text.strip()]
    return project.add_corpus(_name(name, path), inscriptions, source=str(path), format="hesperia")


def markup_totals(inscriptions: Sequence[Inscription], format: str) -> dict[str, int]:
    """The editorial markup of a corpus's texts, counted from each inscription's ``raw`` (the text
    as imported): the keys of ``engine.io.text.LEIDEN_COUNTS``. A Hesperia corpus is counted by
    its own cleaner (``lacunae`` = its gaps of lost signs, ``restored_letters``)."""
    from engine.io.text import DOT_BELOW, LEIDEN_COUNTS, leiden_totals, read_leiden

    if format == "hesperia":
        from engine.io.hesperia import clean_texto

        totals = dict.fromkeys(LEIDEN_COUNTS, 0)
        for ins in inscriptions:
            counts = clean_texto(ins.raw if ins.raw is not None else ins.text).counts
            totals["lacunae"] += counts.get("lacunae", 0)
            totals["restored_letters"] += counts.get("restored letters (kept)", 0)
            totals["uncertain"] += counts.get("dotted letters (under-dot removed)", 0)
        return totals
    # a corpus imported with dotted="letter" keeps the dots in its letters: they are no markup
    dotted = "letter" if any(DOT_BELOW in unicodedata.normalize("NFD", ins.text)
                             for ins in inscriptions) else "uncertain"
    return leiden_totals(read_leiden(ins.raw if ins.raw is not None else ins.text, strict=False,
                                     dotted=dotted) for ins in inscriptions)


def _stem_list(result: Any) -> list[Stem]:
    """The stems in what a reader returns: a list of stems or an object with ``stems``."""
    return list(getattr(result, "stems", result))


def import_wordlist(project: Project, path: str | Path, system: str, *, name: str | None = None,
                    language: str | None = None, columns: Columns = None,
                    delimiter: str | None = None, on_unknown: str = "error",
                    encoding: str | None = None) -> int:
    """A word list (plain text, CSV or TSV) transcribed to IPA with transcription system
    ``system`` → a new known language, named ``name``, else ``language``, else the file's stem.
    ``on_unknown="skip"`` leaves out the words that cannot be transcribed instead of failing."""
    from engine.io.wordlist import read_wordlist  # provided by engine/io/wordlist.py

    path = Path(path)
    stems = _stem_list(read_wordlist(path, system, columns=columns, delimiter=delimiter,
                                     on_unknown=on_unknown, encoding=encoding))
    return project.add_language(_name(name or language, path), stems, source=str(path),
                                format=f"wordlist:{system}")


def import_cldf(project: Project, path: str | Path, *, name: str | None = None,
                language: str | None = None, system: str | None = None) -> int:
    """A CLDF Wordlist (its metadata JSON, its forms.csv or its folder) → a new known language.

    ``language`` keeps one language's forms (its ID, name, Glottocode or ISO code); ``system``
    transcribes forms that have neither Segments nor IPA. The language is named ``name``, else
    ``language``, else the file's stem.
    """
    from engine.io.cldf import read_cldf_wordlist  # provided by engine/io/cldf.py

    path = Path(path)
    stems = _stem_list(read_cldf_wordlist(path, language=language, system=system))
    return project.add_language(_name(name or language, path), stems, source=str(path), format="cldf")


# ---------------------------------------------------------------------------------------------
# match reports (the export of exporting.export_matches, maybe edited in a spreadsheet)


def parse_settings(text: str) -> dict[str, Any]:
    """The settings dict behind a ``Config.summary()`` text (``paper defaults`` → ``{}``)."""
    text = text.strip()
    if not text or text == "paper defaults":
        return {}
    names = {info.name for info in settings_info()}
    out: dict[str, Any] = {}
    for part in text.split(", "):
        key, sep, value = part.partition("=")
        if not sep or key not in names:
            raise ValueError(f"cannot read setting {part!r}")
        out[key] = parse_value(key, value)  # the config's one parser and range check
    Config.from_dict(out)
    return out


from engine.io.atomic import unguard_formula as _unguard  # noqa: E402  (one formula guard, both ways)


def _float(row: dict, name: str, path: Path, line: int, default: float) -> float:
    text = (row.get(name) or "").strip()
    if not text:
        return default
    try:
        return float(text)
    except ValueError:
        raise InputError(f"{name!r} must be a number, not {text!r}", path=path, line=line) from None


def _int(row: dict, name: str, path: Path, line: int) -> int:
    text = (row.get(name) or "").strip()
    try:
        return int(text)
    except ValueError:
        raise InputError(f"{name!r} must be a whole number, not {text!r}", path=path, line=line) from None


@dataclasses.dataclass
class _Draft:
    line: int
    inscription_id: str
    start: int
    end: int
    span: str
    confidence: float
    alternatives: list[Alternative]


def read_match_report(path: str | Path, *, columns: Columns = None, delimiter: str | None = None,
                      unguard: bool = False, encoding: str | None = None) -> tuple[list[Match], dict, dict]:
    """Read a match report: (matches, decisions {(ins, start, end, form): status or None},
    info {"settings", "known_language", "run_ids", "has_decisions"})."""
    path = Path(path)
    required = ("inscription_id", "span_start", "span_end", "lost_span")
    optional = tuple(c for c in MATCH_COLUMNS if c not in required)
    drafts: dict[object, _Draft] = {}
    decisions: dict[tuple[str, int, int, str], str | None] = {}
    settings: set[str] = set()
    languages: set[str] = set()
    run_ids: set[str] = set()
    has_decisions = False
    for line, row in tables.iter_rows(path, required, columns=columns, delimiter=delimiter,
                                      optional=optional, encoding=encoding):
        if unguard:
            row = {k: (_unguard(v) if isinstance(v, str) else v) for k, v in row.items()}
        has_decisions = has_decisions or "decision" in row
        ins = (row.get("inscription_id") or "").strip()
        if not ins:
            raise InputError("empty 'inscription_id'", path=path, line=line)
        start = _int(row, "span_start", path, line)
        end = _int(row, "span_end", path, line)
        if not 0 <= start <= end:
            raise InputError(f"need 0 <= span_start <= span_end, got {start}, {end}", path=path, line=line)
        # a report of this app shows spans and stems as scholars write them: the data's own
        # letters are in the *_code columns (older reports have only lost_span and stem)
        span = row.get("lost_span_code") or row.get("lost_span") or ""
        confidence = _float(row, "confidence", path, line, 0.0)
        match_key: object = (row.get("match_id") or "").strip() or (ins, start, end)
        draft = drafts.get(match_key)
        if draft is None:
            draft = drafts[match_key] = _Draft(line, ins, start, end, span, confidence, [])
        elif (draft.inscription_id, draft.start, draft.end, draft.span) != (ins, start, end, span) or not (
                draft.confidence == confidence or (math.isnan(draft.confidence) and math.isnan(confidence))):
            raise InputError(f"this row of match {match_key} disagrees with line {draft.line} about "
                             "the span or its confidence", path=path, line=line)
        settings.add((row.get("settings") or "").strip())
        if (row.get("known_language") or "").strip():
            languages.add(row["known_language"].strip())
        if (row.get("run_id") or "").strip():
            run_ids.add(row["run_id"].strip())
        form = (row.get("stem_code") or row.get("stem") or "").strip()
        if not form:
            if (row.get("rank") or "").strip():
                raise InputError("a ranked row needs a 'stem'", path=path, line=line)
            continue
        rank = _int(row, "rank", path, line)
        if rank < 1:
            raise InputError(f"rank must be 1 or more, not {rank}", path=path, line=line)
        if any(a.rank == rank for a in draft.alternatives):
            raise InputError(f"rank {rank} given twice for the match at {ins!r} {start}..{end}",
                             path=path, line=line)
        ipa = (row.get("stem_ipa") or "").strip()
        if not ipa:
            raise InputError("empty 'stem_ipa'", path=path, line=line)
        draft.alternatives.append(Alternative(
            rank, form, ipa, _float(row, "score", path, line, math.nan), row.get("gloss") or "",
            _float(row, "log_prob", path, line, 0.0)))
        decision = (row.get("decision") or "").strip().lower()
        if decision in ("", OPEN):
            value = None
        elif decision in DECISIONS:
            value = decision
        else:
            raise InputError(f"decision must be accepted, rejected, open or empty, not {decision!r}",
                             path=path, line=line)
        decisions[(ins, start, end, form)] = value
    if not drafts:
        raise InputError("no matches in the file (only a header?)", path=path)
    if len(settings) > 1:
        raise InputError("the rows name different settings; a report holds one run", path=path)
    if len(languages) > 1:
        raise InputError(f"the rows name different known languages ({', '.join(sorted(languages))})",
                         path=path)
    seen_spans: dict[tuple[str, int, int], int] = {}
    matches = []
    for d in drafts.values():
        key = (d.inscription_id, d.start, d.end)
        if key in seen_spans:
            raise InputError(f"two matches for span {d.start}..{d.end} of {d.inscription_id!r} "
                             f"(first on line {seen_spans[key]})", path=path, line=d.line)
        seen_spans[key] = d.line
        alts = tuple(sorted(d.alternatives, key=lambda a: a.rank))
        matches.append(Match(d.inscription_id, d.start, d.end, d.span, alts, d.confidence))
    info = {"settings": next(iter(settings), ""), "known_language": next(iter(languages), None),
            "run_ids": sorted(run_ids), "has_decisions": has_decisions}
    return matches, decisions, info


def import_matches(project: Project, path: str | Path, *, run_id: int | None = None,
                   corpus: int | str | None = None, language: int | str | None = None,
                   columns: Columns = None, delimiter: str | None = None, unguard: bool = False,
                   encoding: str | None = None) -> int:
    """A match report → a run's matches and decisions; returns the run id.

    With ``run_id`` the report re-imports into that run: its matches are replaced and, when the
    report has a ``decision`` column, each (span, stem) row sets its decision (``open``/empty
    takes one back); decisions on rows not in the report stay. Without ``run_id`` a new run of
    status "imported" is made, with the settings read back from the ``settings`` column, the known
    language named in ``known_language`` (when the project has it) and the corpus holding the
    inscriptions (or ``corpus``). ``unguard=True`` removes the apostrophes ``guard_formulas`` added.
    """
    path = Path(path)
    matches, decisions, info = read_match_report(path, columns=columns, delimiter=delimiter,
                                                 unguard=unguard, encoding=encoding)
    with project.transaction():
        if run_id is not None:
            project.run(run_id)
        else:
            try:
                config = parse_settings(info["settings"])
            except (ValueError, InputError) as e:
                raise InputError(f"cannot read the 'settings' column: {e}", path=path) from None
            corpus_id = _guess_corpus(project, corpus, matches)
            language_id = None
            if isinstance(language, int) or isinstance(language, str):
                language_id = language if isinstance(language, int) else project.language_id(language)
            elif info["known_language"] is not None:
                found = [x.id for x in project.languages() if x.name == info["known_language"]]
                language_id = found[0] if found else None
            run_id = project.start_run(config, corpus_id, language_id, status="imported", pins=[])
        project.record_matches(run_id, matches)
        if info["has_decisions"]:
            for key, status in decisions.items():
                project._decide(run_id, key, status, check=False)
    return run_id


def _guess_corpus(project: Project, corpus: int | str | None, matches: Sequence[Match]) -> int | None:
    if corpus is not None:
        return resolve_corpus(project, corpus)
    wanted = {m.inscription_id for m in matches}
    for info in reversed(project.corpora()):
        ids = {i.id for i in project.inscriptions(info.id)}
        if wanted <= ids:
            return info.id
    return None
