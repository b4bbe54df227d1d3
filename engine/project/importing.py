"""Importers into a project. Each reads and checks the whole input first, then writes it in ONE
transaction: on any error nothing is written and the project file stays byte-for-byte as it was.

Problems with the input are InputError (naming file, line and problem); conflicts with what the
project holds (a name already used, an unknown corpus) are ProjectError.

The readers of ``.cog``, Hesperia, word lists and CLDF live in other modules and are imported
only when used, so this module loads without them.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..config import Config
from ..data import Inscription, Stem
from ..errors import InputError
from ..io import tables
from ..phonology import ipa_units
from ..results import Alternative, Match
from .exporting import MATCH_COLUMNS, OPEN, resolve_corpus
from .schema import DECISIONS
from .store import Project

Columns = Mapping[str, str] | None


def _name(name: str | None, path: Path) -> str:
    return (name or "").strip() or path.stem


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
                columns: Columns = None, delimiter: str | None = None) -> int:
    """LOST.csv/.tsv → a new corpus (named ``name``, default the file's stem); returns its id."""
    path = Path(path)
    inscriptions = _split_raw(tables.read_lost(path, columns=columns, delimiter=delimiter))
    return project.add_corpus(_name(name, path), inscriptions, source=str(path), format="lost")


def import_text(project: Project, path: str | Path, *, name: str | None = None) -> int:
    """Plain text, one inscription per line (ids ``<file stem>:<line>``) → a new corpus."""
    path = Path(path)
    inscriptions = tables.read_plain_text(path)
    if not inscriptions:
        raise InputError("no inscriptions in the file (only blank lines?)", path=path)
    return project.add_corpus(_name(name, path), inscriptions, source=str(path), format="text")


def import_known(project: Project, path: str | Path, *, name: str | None = None,
                 columns: Columns = None, delimiter: str | None = None) -> int:
    """KNOWN.csv/.tsv → a new known language (every IPA string checked); returns its id."""
    path = Path(path)
    stems = tables.read_known(path, columns=columns, delimiter=delimiter)
    soundless = [i for i, s in enumerate(stems) if not ipa_units(s.ipa)]
    if soundless:  # e.g. "ː" or "ˈ." alone: read_known lets it through
        lines = [line for line, _ in tables.iter_rows(path, tables.KNOWN_COLUMNS, columns=columns,
                                                      delimiter=delimiter)]
        s = stems[soundless[0]]
        raise InputError(f"ipa {s.ipa!r} of {s.form!r} holds no sound (only length, stress or "
                         "syllable marks)", path=path, line=lines[soundless[0]])
    return project.add_language(_name(name, path), stems, source=str(path), format="known")


def import_gold(project: Project, path: str | Path, *, corpus: int | str | None = None,
                columns: Columns = None, delimiter: str | None = None) -> int:
    """GOLD.csv/.tsv → the gold annotations of a corpus (replacing any it had); returns how many.

    Every row is checked against the corpus's inscriptions (ids and lengths).
    """
    path = Path(path)
    corpus_id = resolve_corpus(project, corpus)
    gold = tables.read_gold(path, columns=columns, delimiter=delimiter,
                            inscriptions=project.inscriptions(corpus_id))
    empty = [i for i, g in enumerate(gold) if not g.known]
    if empty:  # a cell of separators only ("|"): read_gold lets it through
        lines = [line for line, _ in tables.iter_rows(path, tables.GOLD_COLUMNS, columns=columns,
                                                      delimiter=delimiter)]
        raise InputError("'known' names no form (only '|' separators)", path=path, line=lines[empty[0]])
    project.set_gold(corpus_id, gold)
    return len(gold)


def import_prior(project: Project, path: str | Path, *, columns: Columns = None,
                 delimiter: str | None = None, replace: bool = False) -> int:
    """PRIOR.csv/.tsv → pinned values: added to (or updating) the project's pins, or, with
    ``replace=True``, becoming exactly the project's pins. Returns how many were read."""
    path = Path(path)
    pins = tables.read_prior(path, columns=columns, delimiter=delimiter)
    if replace:
        project.replace_pins(pins)
    else:
        project.set_pins(pins)
    return len(pins)


# ---------------------------------------------------------------------------------------------
# formats whose readers other modules provide


def import_cog(project: Project, path: str | Path, *, name: str | None = None,
               language: str | None = None, system: str = "semitic",
               on_unknown: str = "error") -> tuple[int, int]:
    """A ``.cog`` cognate file → a corpus, a known language (transcribed with ``system``) and the
    corpus's gold, in one transaction. The corpus is named ``name`` (default: the file's stem),
    the language ``language`` (default: the known column's header). Returns (corpus id, language id)."""
    from ..io.cog import read_cog  # provided by engine/io/cog.py

    path = Path(path)
    result = read_cog(path, system=system, on_unknown=on_unknown)
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
    ``engine.io.hesperia.read_hesperia`` (``language``, ``lacunae``, ``numerals``)."""
    from ..io.hesperia import read_hesperia  # provided by engine/io/hesperia.py

    path = Path(path)
    result = read_hesperia(path, **options)
    inscriptions = list(getattr(result, "inscriptions", result))
    return project.add_corpus(_name(name, path), inscriptions, source=str(path), format="hesperia")


def _stem_list(result: Any) -> list[Stem]:
    """The stems in what a reader returns: a list of stems or an object with ``stems``."""
    return list(getattr(result, "stems", result))


def import_wordlist(project: Project, path: str | Path, system: str, *, name: str | None = None,
                    language: str | None = None, columns: Columns = None,
                    delimiter: str | None = None, on_unknown: str = "error") -> int:
    """A word list (plain text, CSV or TSV) transcribed to IPA with transcription system
    ``system`` → a new known language, named ``name``, else ``language``, else the file's stem.
    ``on_unknown="skip"`` leaves out the words that cannot be transcribed instead of failing."""
    from ..io.wordlist import read_wordlist  # provided by engine/io/wordlist.py

    path = Path(path)
    stems = _stem_list(read_wordlist(path, system, columns=columns, delimiter=delimiter,
                                     on_unknown=on_unknown))
    return project.add_language(_name(name or language, path), stems, source=str(path),
                                format=f"wordlist:{system}")


def import_cldf(project: Project, path: str | Path, *, name: str | None = None,
                language: str | None = None, system: str | None = None) -> int:
    """A CLDF Wordlist (its metadata JSON, its forms.csv or its folder) → a new known language.

    ``language`` keeps one language's forms (its ID, name, Glottocode or ISO code); ``system``
    transcribes forms that have neither Segments nor IPA. The language is named ``name``, else
    ``language``, else the file's stem.
    """
    from ..io.cldf import read_cldf_wordlist  # provided by engine/io/cldf.py

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
    types = {f.name: str(f.type) for f in dataclasses.fields(Config)}
    out: dict[str, Any] = {}
    for part in text.split(", "):
        key, sep, value = part.partition("=")
        if not sep or key not in types:
            raise ValueError(f"cannot read setting {part!r}")
        kind = types[key]
        if kind == "bool":
            if value not in ("True", "False"):
                raise ValueError(f"setting {key!r} must be True or False, not {value!r}")
            out[key] = value == "True"
        elif kind == "int":
            out[key] = int(value)
        elif kind == "float":
            out[key] = float(value)
        else:
            out[key] = value
    Config.from_dict(out)
    return out


from ..io.atomic import unguard_formula as _unguard  # noqa: E402  (one formula guard, both ways)


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
                      unguard: bool = False) -> tuple[list[Match], dict, dict]:
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
                                      optional=optional):
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
        span = row.get("lost_span") or ""
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
        form = (row.get("stem") or "").strip()
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
                   columns: Columns = None, delimiter: str | None = None, unguard: bool = False) -> int:
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
                                                 unguard=unguard)
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
