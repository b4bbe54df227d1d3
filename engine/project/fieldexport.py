"""Accepted matches for the field: a CLDF Wordlist (written and validated with pycldf) and an
EDICTOR/LingPy wordlist TSV. One engine function each, under both the app and
``decipher project export P --cldf DIR | --edictor FILE``.

Each accepted (span, stem) pair of one run is one cognate set of two forms:

* the lost-language span: ``Form`` is its transliteration (through the corpus's display table; a
  table that shows a script is read back to its transliteration), ``Value`` the data's letters,
  ``Segments`` its sounds (IPA, from the transcription table that goes with the display table,
  else the transliteration letters that are IPA already; a letter with no known sound is kept as
  written and named in the export's warnings);
* the known-language stem: ``Form`` in the scholarly transliteration when the project holds a
  display table for the known language (``display.language.<id>``), else as stored; ``Value``
  the stored form, ``Segments`` its IPA segments.

Languages carry a Glottocode and an ISO 639-3 code when the project stores them for the corpus or
the known language (settings ``codes.corpus.<id>`` / ``codes.language.<id>``, no schema change).

Which run: the one asked for; otherwise the newest run with accepted decisions (decisions belong
to a run, so after a resume the accepted ones may live on an earlier run than the newest). The
run exported is written into the output and said in the result (:class:`FieldExport`).

Every file goes through the atomic writer, and text cells a spreadsheet would run as a formula
are prefixed with an apostrophe unless ``guard_formulas=False``.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from engine.corpus import DIVIDER
from engine.io.display import (HEBREW_TRANSLITERATION, KNOWN_SETTING_KEY, PRESETS,
                               UGARITIC_TRANSLITERATION, DisplayTable, table_for)
from engine.errors import DecipherError, InputError, ProjectError
from engine.io.atomic import WriteError, atomic_path, describe_os_error, guard_formula, needs_guard
from engine.model.phonology import ipa_units, unit_features
from engine.model.syllables import NULL_ONSET

# ---- language codes --------------------------------------------------------------------------

GLOTTOCODE = re.compile(r"^[a-z0-9]{4}[0-9]{4}$")
ISO639_3 = re.compile(r"^[a-z]{3}$")
CODES_KEY = {"corpus": "codes.corpus.{}", "language": "codes.language.{}"}


def check_codes(glottocode: str | None = None, iso639_3: str | None = None) -> dict[str, str]:
    """The codes given (None: not given, "": clear it), checked: a Glottocode is four letters or
    digits and four digits (``ugar1238``), an ISO 639-3 code three small letters (``uga``)."""
    out: dict[str, str] = {}
    if glottocode is not None:
        code = glottocode.strip()
        if code and not GLOTTOCODE.match(code):
            raise InputError(f"{glottocode!r} is not a Glottocode (four letters or digits and four digits, "
                             "e.g. ugar1238)")
        out["glottocode"] = code
    if iso639_3 is not None:
        code = iso639_3.strip()
        if code and not ISO639_3.match(code):
            raise InputError(f"{iso639_3!r} is not an ISO 639-3 code (three small letters, e.g. uga)")
        out["iso639_3"] = code
    return out


def language_codes(project, kind: str, item_id: int | None) -> dict[str, str]:
    """{"glottocode": …, "iso639_3": …} stored for a corpus (``kind="corpus"``) or a known
    language (``"language"``); a malformed stored value is a ProjectError naming the setting."""
    if item_id is None:
        return {}
    key = CODES_KEY[kind].format(item_id)
    value = project.setting(key)
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ProjectError(f"{project.path.name}: setting {key!r} is not an object of codes")
    try:
        return {k: v for k, v in check_codes(value.get("glottocode"), value.get("iso639_3")).items() if v}
    except InputError as e:
        raise ProjectError(f"{project.path.name}: setting {key!r}: {e}") from None


def set_language_codes(project, kind: str, item_id: int, *, glottocode: str | None = None,
                       iso639_3: str | None = None) -> dict[str, str]:
    """Store (merge) the codes of a corpus or known language; "" clears one. Returns them all."""
    given = check_codes(glottocode, iso639_3)
    codes = dict(language_codes(project, kind, item_id))
    for k, v in given.items():
        if v:
            codes[k] = v
        else:
            codes.pop(k, None)
    project.set_setting(CODES_KEY[kind].format(item_id), codes or None)
    return codes


# ---- transliteration and sounds --------------------------------------------------------------

#: Tables for the known side (stored per known language as ``display.language.<id>``): the
#: presets of engine/io/display.py, which holds the one Hebrew transliteration table.
KNOWN_TABLES: dict[str, DisplayTable] = {name: table for name, (_, table) in PRESETS.items()}
KNOWN_DISPLAY_KEY = KNOWN_SETTING_KEY

#: A display table that shows a script → the transliteration of the same letters.
_TRANSLITERATION_OF = {
    "ugaritic-transliteration": UGARITIC_TRANSLITERATION,
    "ugaritic-script": UGARITIC_TRANSLITERATION,
    "hebrew-script": HEBREW_TRANSLITERATION,
    "hebrew-transliteration": HEBREW_TRANSLITERATION,
}
#: A display table → the transcription system that reads the data's letters as sounds.
_SOUND_SYSTEM_OF = {
    "ugaritic-transliteration": "semitic", "ugaritic-script": "semitic",
    "hebrew-script": "semitic", "hebrew-transliteration": "semitic", "gothic-script": "gothic",
}
#: A word divider inside a span, as a segment (LingPy's word-boundary class).
BOUNDARY = "_"


def set_corpus_table(project, corpus_id: int, name: str) -> None:
    """Store one of the display presets (engine/io/display.py) for a corpus ("none" removes it), as
    View ▸ Display table does in the app."""
    from engine.io.display import preset, setting_key

    table = preset(name)
    project.set_setting(setting_key(corpus_id), None if name == "none" else table.to_json())


def _score(value: float) -> float | None:
    """A score as written: None (an empty cell) when the run recorded none (NaN)."""
    return None if value != value else value


def stored_known_table(project, language_id: int | None) -> DisplayTable | None:
    """The display table stored for a known language, or None; an unreadable one is a ProjectError
    (an export never guesses; a view's engine.io.display.known_table_for shows the identity then)."""
    if language_id is None:
        return None
    data = project.setting(KNOWN_DISPLAY_KEY.format(language_id))
    if not data:
        return None
    try:
        return DisplayTable.from_json(data)
    except InputError as e:
        raise ProjectError(f"{project.path.name}: setting {KNOWN_DISPLAY_KEY.format(language_id)!r}: {e}") from None


def known_table(name: str) -> DisplayTable:
    """One of :data:`KNOWN_TABLES` by name; an unknown name is an InputError naming them."""
    if name not in KNOWN_TABLES:
        raise InputError(f"unknown display table {name!r} for a known language; one of: {', '.join(KNOWN_TABLES)}")
    return KNOWN_TABLES[name]


def set_known_table(project, language_id: int, name: str) -> None:
    """Store one of :data:`KNOWN_TABLES` for a known language ("none" removes it)."""
    table = known_table(name)
    project.set_setting(KNOWN_DISPLAY_KEY.format(language_id), None if name == "none" else table.to_json())


def _transliterate(table: DisplayTable, units) -> str:
    letters = _TRANSLITERATION_OF.get(table.name)
    if letters is not None:
        return "".join(letters.get(u, u) for u in units)
    return table.show_text(list(units))


def _is_sound(unit: str) -> bool:
    try:
        unit_features(unit)
        return True
    except DecipherError:
        return False


def _letter_sounds(letter: str) -> list[str] | None:
    """The IPA units of a letter that is written in IPA already, else None."""
    try:
        units = list(ipa_units(letter))
    except DecipherError:
        return None
    return units if units and all(_is_sound(u) for u in units) else None


def lost_segments(table: DisplayTable, units, unknown: set[str]) -> list[str]:
    """The sounds of a lost span (see the module's docstring); letters with no known sound are
    kept as transliterated and added to ``unknown``."""
    from engine.io.transcription import transcribe

    system = _SOUND_SYSTEM_OF.get(table.name)
    out: list[str] = []
    word: list[str] = []

    def flush():
        if not word:
            return
        if system is not None:
            try:
                out.extend(ipa_units(transcribe("".join(word), system)))
                word.clear()
                return
            except DecipherError:
                pass
        for u in word:
            shown = _transliterate(table, [u])
            sounds = _letter_sounds(shown)
            if sounds is None:
                unknown.add(shown)
                out.append(shown)
            else:
                out.extend(sounds)
        word.clear()

    for u in units:
        if u == DIVIDER:
            flush()
            out.append(BOUNDARY)
        else:
            word.append(u)
    flush()
    return out


def stored_ipa_units(ipa: str) -> list[str]:
    """IPA segments of a stem (the importers checked the IPA; a stored value that does not parse
    is a ProjectError, never split silently)."""
    try:
        return list(ipa_units(ipa))
    except DecipherError as e:
        raise ProjectError(f"the stored IPA {ipa!r} does not parse: {e}") from None


# ---- which run, which pairs ------------------------------------------------------------------


@dataclass(frozen=True)
class AcceptedPair:
    cogid: int
    inscription_id: str
    start: int
    end: int
    span: str                   # engine letters
    shown: str                  # through the display table, as the app shows it
    transliteration: str        # the lost form's transliteration
    segments: tuple[str, ...]   # the lost form's sounds
    stem: str                   # as stored
    stem_shown: str             # through the known language's display table, if any
    stem_segments: tuple[str, ...]
    stem_ipa: str
    gloss: str
    score: float
    #: (lost row, known row): the two forms' segments with "-" gaps, one column per aligned place,
    #: from the best alignment of the span to the stem under the run's mapping (the app's hover);
    #: None when it cannot be said (see :func:`pair_alignment`)
    alignment: tuple[tuple[str, ...], tuple[str, ...]] | None = None


class FieldExport(int):
    """What an export returns: the number of accepted pairs (an ``int``), with ``run_id``, ``why``
    (how the run was chosen), ``guarded`` (cells the formula guard changed) and ``warnings``."""

    run_id: int
    why: str
    guarded: int
    warnings: tuple[str, ...]

    def __new__(cls, count: int, run_id: int, why: str, guarded: int = 0, warnings=()) -> "FieldExport":
        self = super().__new__(cls, count)
        self.run_id, self.why, self.guarded, self.warnings = run_id, why, int(guarded), tuple(warnings)
        return self


def choose_run(project, run_id: int | None = None):
    """(run, why): the run asked for, else the newest run with accepted decisions, else the newest
    run with matches (whose export is then empty, which ``why`` says)."""
    if run_id is not None:
        try:
            return project.run(run_id), "asked for"
        except DecipherError:
            raise ProjectError(f"no run {run_id} in {project.path.name}") from None
    row = project.conn.execute("SELECT max(run_id) FROM decision WHERE status = 'accepted'").fetchone()
    newest = project.conn.execute("SELECT max(run_id) FROM run_match").fetchone()
    newest_id = None if newest is None else newest[0]
    if row is not None and row[0] is not None:
        chosen = int(row[0])
        why = "the newest run with accepted decisions"
        if newest_id is not None and newest_id > chosen:
            why += f"; run {newest_id} is newer but has none accepted"
        return project.run(chosen), why
    if newest_id is None:
        raise ProjectError(f"{project.path.name} has no run with matches yet")
    return project.run(int(newest_id)), "the newest run with matches; no run has accepted decisions"


GAP = "-"


def pair_alignment(mapping, units, stem_ipa: str, table: DisplayTable, *, gamma: float, band: int,
                   segments: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The aligned rows (lost, known) of a span's letters ``units`` and a stem: the best alignment
    under the run's character mapping (engine.model.explain.best_alignment, what the app's hover
    shows), each step one column per sound, the shorter side padded with the gap ``-``: a known unit
    that became no letter is a gap in the lost row, a unit that became two letters (an insertion),
    or a letter of two sounds, a gap in the known row; a syllable run's sign stands over the onset and
    the vowel it writes, a gap after it in the lost row. Removing the gaps gives back each form's
    Segments. None when there is no mapping, no alignment within the run's band, or when the span's
    sounds read letter by letter differ from its Segments (a transcription that reads letters in
    context): then no alignment is written rather than a wrong one."""
    from engine.corpus import split_units
    from engine.model.explain import best_alignment

    if mapping is None or DIVIDER in units:
        return None
    steps, _ = best_alignment(mapping, "".join(units), stem_ipa, gamma=gamma, band=band)
    if not steps:
        return None
    # (lost letters, known units) of each column group: a letters run's steps one by one; a syllable run's
    # units grouped by the sign whose slots they took (its onset and vowel under one sign), a unit the spelling
    # leaves out alone, the null onset (no sound of the stem) left out
    groups: list[tuple[str, list[str]]] = []
    last_sign = None
    for step in steps:
        if mapping.syllables is None:
            groups.append((step.lost, [step.known]))
            continue
        known = [] if step.known == NULL_ONSET else [step.known]
        if len(step.signs_at) == 1 and step.signs_at[0] == last_sign:
            groups[-1][1].extend(known)
        else:
            groups.append((step.lost, known))
        last_sign = step.signs_at[-1] if step.signs_at else last_sign
    lost_row: list[str] = []
    known_row: list[str] = []
    for lost, known in groups:
        sounds = [seg for letter in split_units(lost) for seg in lost_segments(table, [letter], set())]
        width = max(1, len(sounds), len(known))
        lost_row += sounds + [GAP] * (width - len(sounds))
        known_row += known + [GAP] * (width - len(known))
    if [x for x in lost_row if x != GAP] != list(segments):
        return None
    return tuple(lost_row), tuple(known_row)


def accepted_pairs(project, run_id: int | None = None):
    """(run, corpus name, language name, pairs, warnings, why): every stem accepted for a span of
    the run (the run asked for, else :func:`choose_run`'s), each with its alignment when it can be
    said (:func:`pair_alignment`; a warning counts those without)."""
    from engine.project.signvalues import recorded_mapping
    from engine.model.explain import run_alignment_settings

    run, why = choose_run(project, run_id)
    mapping = recorded_mapping(project, run.id)
    gamma, band = run_alignment_settings(run)
    decisions = project.decisions(run.id)
    table = table_for(project, run.corpus_id)
    known_table = stored_known_table(project, run.language_id)
    corpus = project.corpus(run.corpus_id).name if run.corpus_id is not None else "lost language"
    language = project.vocabulary(run.language_id).language if run.language_id is not None else "known language"
    units_of = {} if run.corpus_id is None else {i.id: i.units for i in project.inscriptions(run.corpus_id)}
    pairs: list[AcceptedPair] = []
    unknown: set[str] = set()
    for m in project.matches(run.id):
        for a in m.alternatives:
            if decisions.get((m.inscription_id, m.start, m.end, a.form)) == "accepted":
                found = units_of.get(m.inscription_id)
                units = tuple(found[m.start:m.end]) if found is not None else tuple(m.span)
                stem_shown = known_table.show_form(a.form) if known_table is not None else a.form
                segments = tuple(lost_segments(table, units, unknown))
                pairs.append(AcceptedPair(
                    len(pairs) + 1, m.inscription_id, m.start, m.end, m.span, table.show_text(list(units)),
                    _transliterate(table, units), segments,
                    a.form, stem_shown, tuple(stored_ipa_units(a.ipa)), a.ipa, a.gloss, float(a.score),
                    pair_alignment(mapping, units, a.ipa, table, gamma=gamma, band=band, segments=segments)))
    warnings = []
    unaligned = sum(p.alignment is None for p in pairs)
    if unaligned:
        reason = ("the run kept no character mapping (an imported report)" if mapping is None else
                  "no alignment within the run's band under its mapping, or sounds that the display table "
                  "reads only in context")
        warnings.append(f"{unaligned} of {len(pairs)} accepted pairs have no alignment: {reason}; their "
                        "alignment cells are empty")
    missing = f"; no sound is known for {' '.join(sorted(unknown))}, kept as written" if unknown else ""
    if pairs and table.name not in _SOUND_SYSTEM_OF:
        warnings.append(f"the lost forms' segments are their letters read as IPA: the corpus's display table "
                        f"{table.name!r} gives no sound values (ugaritic-*, hebrew-script and gothic-script "
                        f"do: View > Display table, or --lost-display){missing}")
    elif unknown:
        warnings.append(f"the lost forms' segments are the sounds of display table {table.name!r}{missing}")
    return run, corpus, language, pairs, warnings, why


def _slug(text: str) -> str:
    """A CLDF identifier from a name: ASCII letters, digits, _ and -, never starting with - (a
    spreadsheet would run it as a formula)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", unicodedata.normalize("NFKD", text)).strip("_-") or "x"


class _Guard:
    """The formula guard over text cells, counting what it changed."""

    def __init__(self, on: bool):
        self.on, self.count = on, 0

    def __call__(self, value):
        if self.on and needs_guard(value):
            self.count += 1
            return guard_formula(value)
        return value

    def segments(self, segs):
        segs = list(segs)
        if segs:
            segs[0] = self(segs[0])  # the cell starts with the first segment
        return segs

    def alignment(self, row):
        """An aligned row as :meth:`segments`, except that a leading gap ``-`` stays as it is: it is
        the alignment's gap symbol (LingPy's and CLDF's), and the sounds after it are checked IPA."""
        row = list(row or ())
        if row and row[0] == GAP:
            return row
        return self.segments(row)


# ---- CLDF ------------------------------------------------------------------------------------


def export_cldf(project, folder: str | Path, *, run_id: int | None = None, guard_formulas: bool = True,
                replace: bool = False, hint: str | None = None) -> FieldExport:
    """Write a CLDF Wordlist (Wordlist-metadata.json, languages/parameters/forms/cognates CSV) into
    ``folder`` and validate it; returns a :class:`FieldExport`. Built and validated in a temporary
    folder first; each file then goes into ``folder`` through the atomic writer, so a failure
    leaves no half-written file. The files are the program's, in the user's folder: one already
    there is refused (``hint`` says what to do) unless ``replace``; a symbolic link always is."""
    from pycldf import Wordlist

    from engine.io.atomic import NOT_NAMED, check_new

    folder = Path(folder)
    run, corpus, language, pairs, warnings, why = accepted_pairs(project, run_id)
    guard = _Guard(guard_formulas)
    lost_id, known_id = _slug(corpus), _slug(language)
    if lost_id == known_id:
        known_id += "_known"
    if folder.exists() and not folder.is_dir():
        raise WriteError(folder, "it is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise WriteError(folder, describe_os_error(e)) from None
    try:
        tmp_dir = tempfile.mkdtemp(prefix=".cldf-", dir=folder)
    except OSError as e:
        raise WriteError(folder, describe_os_error(e)) from None
    try:
        ds = Wordlist.in_dir(tmp_dir)
        ds.add_component("LanguageTable")
        ds.add_component("ParameterTable")
        ds.add_component("CognateTable")   # its Alignment and Segment_Slice columns are filled below
        ds.add_columns("FormTable", "http://cldf.clld.org/v1.0/terms.rdf#value", "Shown", "Inscription_ID",
                       {"name": "Span_Start", "datatype": "integer"}, {"name": "Span_End", "datatype": "integer"},
                       {"name": "Score", "datatype": "float"}, {"name": "Run_ID", "datatype": "integer"})
        ds.properties["dc:title"] = f"Accepted matches of run {run.id}: {corpus} — {language}"
        ds.properties["dc:description"] = (
            f"Spans of a lost-language corpus matched to known-language stems by decipherment run {run.id} "
            f"({why}; Luo et al. 2021 model) and accepted by a person; one cognate set per accepted pair. "
            "Lost forms: Form is the transliteration, Value the data's letters, Shown the display "
            "table's text, Segments the sounds. Known forms: Form in transliteration, Value as stored, "
            "Segments the IPA. Cognates: Alignment is the best alignment of the span to the stem under "
            "the run's character mapping (- a gap), over the whole of each form's Segments (Segment_Slice).")
        lost_codes = language_codes(project, "corpus", run.corpus_id)
        known_codes = language_codes(project, "language", run.language_id)
        languages = [
            {"ID": lost_id, "Name": guard(corpus), "Glottocode": lost_codes.get("glottocode"),
             "ISO639P3code": lost_codes.get("iso639_3")},
            {"ID": known_id, "Name": guard(language), "Glottocode": known_codes.get("glottocode"),
             "ISO639P3code": known_codes.get("iso639_3")}]
        parameters, forms, cognates = [], [], []
        for p in pairs:
            pid = f"match-{p.cogid}"
            parameters.append({"ID": pid, "Name": guard(p.gloss or p.stem_shown),
                               "Description": guard(f"{p.inscription_id} letters {p.start}-{p.end}")})
            common = {"Parameter_ID": pid, "Inscription_ID": guard(p.inscription_id), "Span_Start": p.start,
                      "Span_End": p.end, "Score": _score(p.score), "Run_ID": run.id}
            forms.append({"ID": f"{pid}-lost", "Language_ID": lost_id, "Form": guard(p.transliteration),
                          "Value": guard(p.span), "Shown": guard(p.shown),
                          "Segments": guard.segments(p.segments), **common})
            forms.append({"ID": f"{pid}-known", "Language_ID": known_id, "Form": guard(p.stem_shown),
                          "Value": guard(p.stem), "Shown": guard(p.stem_shown),
                          "Segments": guard.segments(p.stem_segments),
                          "Comment": guard(p.gloss) or None, **common})
            for side, row, segs in (("lost", 0, p.segments), ("known", 1, p.stem_segments)):
                aligned = p.alignment is not None and bool(segs)
                cognates.append({"ID": f"{pid}-{side}", "Form_ID": f"{pid}-{side}", "Cognateset_ID": pid,
                                 "Alignment": guard.alignment(p.alignment[row]) if aligned else None,
                                 "Segment_Slice": [f"1:{len(segs)}"] if aligned else None})
        ds.write(LanguageTable=languages, ParameterTable=parameters, FormTable=forms, CognateTable=cognates)
        if not ds.validate():
            raise ProjectError("the CLDF Wordlist did not validate")
        files = sorted(Path(tmp_dir).iterdir())
        check_new([folder / f.name for f in files], force=replace, hint=hint or NOT_NAMED)
        for f in files:
            with atomic_path(folder / f.name, replace=replace) as part:
                shutil.copyfile(f, part)
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)
    return FieldExport(len(pairs), run.id, why, guard.count, warnings)


# ---- EDICTOR ---------------------------------------------------------------------------------

EDICTOR_COLUMNS = ("ID", "DOCULECT", "CONCEPT", "FORM", "VALUE", "TOKENS", "ALIGNMENT", "COGID", "INSCRIPTION",
                   "SPAN", "SCORE", "GLOTTOCODE", "ISO639_3", "RUN")


def _edictor_cell(value, guard: _Guard, changed: list) -> str:
    """A cell as EDICTOR writes it: unquoted; a tab or line break (which the format cannot hold)
    becomes a space and is reported. Numbers are written as they are, never guarded."""
    if isinstance(value, (int, float)):
        return f"{value:.4f}" if isinstance(value, float) else str(value)
    text = "" if value is None else str(value)
    clean = re.sub(r"[\t\r\n]", " ", text)
    if clean != text:
        changed.append(text)
    return guard(clean)


def export_edictor(project, path: str | Path, *, run_id: int | None = None,
                   guard_formulas: bool = True) -> FieldExport:
    """Write the accepted pairs as an EDICTOR/LingPy wordlist TSV (unquoted, as EDICTOR writes it;
    TOKENS space-separated sounds; ALIGNMENT the pair's aligned TOKENS with ``-`` gaps, empty when
    it cannot be said; one COGID per pair; RUN the run exported); returns a
    :class:`FieldExport`. Written through the atomic writer (a failure leaves no ``.part``)."""
    path = Path(path)
    run, corpus, language, pairs, warnings, why = accepted_pairs(project, run_id)
    guard = _Guard(guard_formulas)
    changed: list[str] = []
    lost_codes = language_codes(project, "corpus", run.corpus_id)
    known_codes = language_codes(project, "language", run.language_id)
    lines = ["\t".join(EDICTOR_COLUMNS)]
    row_id = 0
    for p in pairs:
        concept = p.gloss or p.stem_shown
        span = f"{p.start}-{p.end}"
        for row, (doculect, form, value, tokens, codes) in enumerate((
                (corpus, p.transliteration, p.span, p.segments, lost_codes),
                (language, p.stem_shown, p.stem, p.stem_segments, known_codes))):
            row_id += 1
            aligned = " ".join(guard.alignment(p.alignment[row])) if p.alignment is not None else ""
            cells = [row_id, doculect, concept, form, value, " ".join(guard.segments(tokens)), aligned, p.cogid,
                     p.inscription_id, span, _score(p.score), codes.get("glottocode", ""),
                     codes.get("iso639_3", ""), run.id]
            lines.append("\t".join(c if i in (5, 6) else _edictor_cell(c, guard, changed)
                                   for i, c in enumerate(cells)))
    if changed:
        warnings = list(warnings) + [f"{len(changed)} cells held a tab or a line break, which EDICTOR's TSV "
                                     "cannot hold; written with a space instead"]
    with atomic_path(path) as part:
        with open(part, "w", encoding="utf-8", newline="") as f:
            f.write("\n".join(lines) + "\n")
    return FieldExport(len(pairs), run.id, why, guard.count, warnings)
