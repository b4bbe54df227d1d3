"""A CLDF Wordlist (cldf.clld.org) as the known vocabulary, read with the csv and json modules.

``path`` may be the metadata JSON (``Wordlist-metadata.json`` / ``cldf-metadata.json``), the
``forms.csv`` itself (a metadata file beside it that describes it is used when present), or the
folder holding them. Without metadata the standard column names are assumed: ``ID``,
``Language_ID``, ``Parameter_ID``, ``Form``, ``Segments``, and ``ID``/``Name`` in
``parameters.csv`` and ``languages.csv``.

The IPA of a stem comes from ``Segments`` (space-separated; the morpheme boundary ``+`` and the
word boundary ``_`` are removed, ``a/b`` slash notation keeps the part after the slash, and a
segment of two consonants such as ``ts`` becomes one tied unit ``t͡s``), or else from ``Form``
when that is valid IPA (or transcribed with ``system=`` when given). The gloss is the name of the
parameter (concept). Every problem names the file and the line.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any, Mapping

from engine.corpus import Stem
from engine.errors import InputError, PhonologyError
from engine.model.phonology import ipa_units, unit_features
from engine.io.transcription import transcribe
from engine.io.tables import IpaChecker, iter_rows, read_text

TERMS = "http://cldf.clld.org/v1.0/terms.rdf#"
BOUNDARIES = frozenset({"+", "_", "#"})
TIE = "\u0361"

# our name -> (CLDF term, default column name)
FORM_COLUMNS = {
    "id": ("id", "ID"),
    "language": ("languageReference", "Language_ID"),
    "parameter": ("parameterReference", "Parameter_ID"),
    "form": ("form", "Form"),
    "segments": ("segments", "Segments"),
    "value": ("value", "Value"),
}
PARAMETER_COLUMNS = {"id": ("id", "ID"), "name": ("name", "Name"),
                     "concepticon_gloss": ("concepticonGloss", "Concepticon_Gloss")}
LANGUAGE_COLUMNS = {"id": ("id", "ID"), "name": ("name", "Name"), "glottocode": ("glottocode", "Glottocode"),
                    "iso": ("iso639P3code", "ISO639P3code")}


class _Table:
    def __init__(self, path: Path, columns: dict[str, str], delimiter: str, separators: dict[str, str]):
        self.path = path
        self.columns = columns
        self.delimiter = delimiter
        self.separators = separators


def _conforms(table: Mapping[str, Any], component: str) -> bool:
    c = table.get("dc:conformsTo") or ""
    return isinstance(c, str) and (c == TERMS + component or c.endswith("#" + component) or c == component)


def _column_header(col: Mapping[str, Any]) -> str | None:
    titles = col.get("titles")
    if isinstance(titles, str):
        return titles
    if isinstance(titles, list) and titles and isinstance(titles[0], str):
        return titles[0]
    if isinstance(titles, dict):
        for v in titles.values():
            if isinstance(v, str):
                return v
            if isinstance(v, list) and v:
                return v[0]
    name = col.get("name")
    return name if isinstance(name, str) else None


def _table_from_metadata(meta_path: Path, md: Mapping[str, Any], table: Mapping[str, Any],
                         wanted: Mapping[str, tuple[str, str]]) -> _Table:
    url = table.get("url")
    if not isinstance(url, str) or not url:
        raise InputError("a table in the metadata has no 'url'", path=meta_path)
    target = _inside(meta_path, url)
    dialect = {**(md.get("dialect") or {}), **(table.get("dialect") or {})}
    delimiter = dialect.get("delimiter", ",") if isinstance(dialect, dict) else ","
    cols = ((table.get("tableSchema") or {}).get("columns") or []) if isinstance(table, dict) else []
    by_term: dict[str, str] = {}
    by_name: dict[str, str] = {}
    separators: dict[str, str] = {}
    for col in cols:
        if not isinstance(col, dict):
            continue
        header = _column_header(col)
        if header is None:
            continue
        prop = col.get("propertyUrl")
        if isinstance(prop, str) and prop.startswith(TERMS):
            by_term[prop[len(TERMS):]] = header
        name = col.get("name")
        if isinstance(name, str):
            by_name[name] = header
        if isinstance(col.get("separator"), str):
            separators[header] = col["separator"]
    columns = {}
    for ours, (term, default) in wanted.items():
        columns[ours] = by_term.get(term) or by_name.get(default) or default
    return _Table(target, columns, delimiter, separators)


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _inside(meta_path: Path, url: str) -> Path:
    """The file a table ``url`` names, which must lie inside the metadata file's folder (after
    following links): a received dataset must not read ``/etc/passwd``, ``../../x`` or a URL."""
    folder = meta_path.parent
    if _SCHEME.match(url) or url.startswith(("/", "\\")) or "\x00" in url:
        raise InputError(f"table url {url!r} is not a path inside the dataset's folder {folder} "
                         "(CLDF table urls must name files beside the metadata); refused", path=meta_path)
    target = folder / url
    try:
        inside = target.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError, ValueError):  # a loop of links, a name the system refuses
        inside = False
    if not inside:
        raise InputError(f"table url {url!r} leads outside the dataset's folder {folder} "
                         "(CLDF table urls must name files inside it); refused", path=meta_path)
    return target


def _default_table(path: Path, wanted: Mapping[str, tuple[str, str]]) -> _Table:
    delimiter = "\t" if path.suffix.lower() in (".tsv", ".tab") else ","
    return _Table(path, {ours: default for ours, (_, default) in wanted.items()}, delimiter, {})


def _load_metadata(meta_path: Path) -> dict[str, Any]:
    text = read_text(meta_path)
    try:
        md = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"not valid JSON: {e.msg} (column {e.colno})", path=meta_path, line=e.lineno) from None
    if not isinstance(md, dict) or not isinstance(md.get("tables"), list):
        raise InputError("not CLDF metadata: no 'tables' list", path=meta_path)
    return md


def _find_metadata_for(forms: Path) -> Path | None:
    for cand in sorted(forms.parent.glob("*metadata.json")):
        try:
            md = json.loads(cand.read_text(encoding="utf-8-sig"))
        except (OSError, ValueError):
            continue
        for t in md.get("tables", []) if isinstance(md, dict) else []:
            if isinstance(t, dict) and isinstance(t.get("url"), str) and \
                    (cand.parent / t["url"]).resolve() == forms.resolve():
                return cand
    return None


def _resolve(path: Path) -> tuple[_Table, _Table | None, _Table | None, Path]:
    """The form, parameter and language tables, and the file to name in errors about the dataset."""
    meta: Path | None = None
    forms: Path | None = None
    if path.is_dir():
        metas = sorted(path.glob("*metadata.json"))
        if metas:
            meta = metas[0]
        elif (path / "forms.csv").is_file():
            forms = path / "forms.csv"
        else:
            raise InputError("no CLDF metadata (*-metadata.json) and no forms.csv in this folder", path=path)
    elif path.suffix.lower() == ".json":
        meta = path
    else:
        if not path.exists():
            raise InputError("file not found", path=path)
        forms = path
        meta = _find_metadata_for(path)
    if meta is not None:
        md = _load_metadata(meta)
        tables = [t for t in md["tables"] if isinstance(t, dict)]
        ft = next((t for t in tables if _conforms(t, "FormTable")), None)
        if ft is None:
            ft = next((t for t in tables if str(t.get("url", "")).endswith("forms.csv")), None)
        if ft is None:
            raise InputError("the metadata describes no FormTable (a CLDF Wordlist has one)", path=meta)
        pt = next((t for t in tables if _conforms(t, "ParameterTable")), None)
        lt = next((t for t in tables if _conforms(t, "LanguageTable")), None)
        return (_table_from_metadata(meta, md, ft, FORM_COLUMNS),
                _table_from_metadata(meta, md, pt, PARAMETER_COLUMNS) if pt else None,
                _table_from_metadata(meta, md, lt, LANGUAGE_COLUMNS) if lt else None, meta)
    assert forms is not None
    par = forms.parent / "parameters.csv"
    lang = forms.parent / "languages.csv"
    return (_default_table(forms, FORM_COLUMNS),
            _default_table(par, PARAMETER_COLUMNS) if par.is_file() else None,
            _default_table(lang, LANGUAGE_COLUMNS) if lang.is_file() else None, forms)


def _rows(table: _Table, required: tuple[str, ...], optional: tuple[str, ...]):
    if not table.path.is_file():
        raise InputError("file not found (named by the CLDF metadata)", path=table.path)
    yield from iter_rows(table.path, required, columns=table.columns, delimiter=table.delimiter,
                         optional=optional)


def _read_parameters(table: _Table | None) -> dict[str, str]:
    if table is None:
        return {}
    out: dict[str, str] = {}
    for _, row in _rows(table, ("id",), ("name", "concepticon_gloss")):
        pid = (row.get("id") or "").strip()
        name = (row.get("name") or "").strip() or (row.get("concepticon_gloss") or "").strip()
        if pid and name:
            out[pid] = name
    return out


def _read_languages(table: _Table | None) -> dict[str, set[str]]:
    """Each language ID with the names, Glottocode and ISO code it may be called by."""
    if table is None:
        return {}
    out: dict[str, set[str]] = {}
    for _, row in _rows(table, ("id",), ("name", "glottocode", "iso")):
        lid = (row.get("id") or "").strip()
        if lid:
            values = ((row.get(k) or "").strip() for k in ("name", "glottocode", "iso"))
            out[lid] = {v.casefold() for v in values if v}
    return out


def segments_to_ipa(segments: str, *, separator: str = " ", path=None, line: int | None = None) -> str:
    """IPA from a CLDF Segments cell: boundaries removed, slash notation resolved, affixes tied."""
    parts = segments.split(separator) if separator.strip() else segments.split()
    out: list[str] = []
    for seg in parts:
        seg = unicodedata.normalize("NFC", seg.strip())
        if not seg or seg in BOUNDARIES:
            continue
        if "/" in seg:
            seg = seg.rsplit("/", 1)[1]
            if not seg or seg in BOUNDARIES:
                continue
        units = ipa_units(seg, source=f"segment {seg!r}", path=path, line=line)
        if (len(units) == 2 and TIE not in seg and "\u035c" not in seg
                and all(unit_features(u).ptype == "consonant" for u in units)):
            seg = units[0] + TIE + units[1]
        out.append(seg)
    return "".join(out)


def read_cldf_wordlist(path: str | Path, *, language: str | None = None, system: str | None = None,
                       source: str | None = None) -> list[Stem]:
    """The forms of a CLDF Wordlist as stems (one per distinct form, glosses joined with "; ").

    ``language`` keeps the forms of one language: its Language_ID, or its name, Glottocode or
    ISO 639-3 code in the LanguageTable. ``system`` transcribes forms that have no Segments and
    are not IPA (see engine.io.transcription). Without ``language`` every form is read.
    """
    path = Path(path)
    forms_t, par_t, lang_t, where = _resolve(path)
    params = _read_parameters(par_t)
    langs = _read_languages(lang_t)
    src = source if source is not None else (where.parent.name if where.suffix == ".json" else where.name)

    wanted_ids: set[str] | None = None
    if language is not None:
        key = language.strip()
        wanted_ids = {key} | {lid for lid, names in langs.items() if key.casefold() in names}

    seg_sep = forms_t.separators.get(forms_t.columns["segments"], " ")
    order: list[str] = []
    found: dict[str, tuple[str, list[str]]] = {}
    seen_langs: dict[str, int] = {}
    unknown = IpaChecker(forms_t.path)
    for lineno, row in _rows(forms_t, ("form",), ("id", "language", "parameter", "segments", "value")):
        lid = (row.get("language") or "").strip()
        seen_langs[lid] = seen_langs.get(lid, 0) + 1
        if wanted_ids is not None and lid not in wanted_ids:
            continue
        form = unicodedata.normalize("NFC", (row.get("form") or "").strip())
        if not form:
            raise InputError("empty Form", path=forms_t.path, line=lineno)
        pid = (row.get("parameter") or "").strip()
        gloss = params.get(pid, pid)
        if form in found:
            if gloss and gloss not in found[form][1]:
                found[form][1].append(gloss)
            continue
        segs = (row.get("segments") or "").strip()
        if segs:
            try:
                ipa = segments_to_ipa(segs, separator=seg_sep, path=forms_t.path, line=lineno)
            except PhonologyError as e:  # listed with every other unknown symbol at the end
                unknown.add(e, segs, lineno)
                continue
            if not ipa:
                raise InputError(f"Segments {segs!r} hold only boundaries", path=forms_t.path, line=lineno)
            ipa_units(ipa, source=f"Segments of {form!r}", path=forms_t.path, line=lineno)
        elif system is not None:
            ipa = transcribe(form, system, path=forms_t.path, line=lineno)
        else:
            try:
                ipa_units(form, source="Form (no Segments)", path=forms_t.path, line=lineno)
            except PhonologyError as e:
                raise InputError(f"no Segments, and the Form {form!r} is not IPA ({e.problem}); give "
                                 "system= to transcribe the forms", path=forms_t.path, line=lineno) from None
            ipa = form
        order.append(form)
        found[form] = (ipa, [gloss] if gloss else [])
    unknown.raise_any()
    if not order:
        if language is not None:
            shown = ", ".join(repr(k) for k in sorted(seen_langs)[:20]) or "none"
            raise InputError(f"no forms of language {language!r}; the Language_IDs are {shown}",
                             path=forms_t.path)
        raise InputError("no forms in the file (only a header?)", path=forms_t.path)
    return [Stem(f, found[f][0], "; ".join(found[f][1]), src) for f in order]


__all__ = ["read_cldf_wordlist", "segments_to_ipa"]
