"""Accepted matches for the field: a CLDF Wordlist (written and validated with pycldf) and an
EDICTOR/LingPy wordlist TSV. Each accepted (span, stem) pair is one cognate set of two forms: the
lost-language span (shown through the corpus's display table, its data letters kept beside) and
the known-language stem with its IPA segments.
"""

from __future__ import annotations

import csv
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .display import table_for
from .errors import DecipherError, ProjectError
from .phonology import ipa_units


@dataclass(frozen=True)
class AcceptedPair:
    cogid: int
    inscription_id: str
    start: int
    end: int
    span: str            # engine letters
    shown: str           # through the display table
    units: tuple[str, ...]
    stem: str
    stem_ipa: str
    gloss: str
    score: float


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_") or "x"


def _run(project, run_id: int | None):
    if run_id is None:
        from .project.exporting import default_run

        return default_run(project)
    try:
        return project.run(run_id)
    except DecipherError:
        raise ProjectError(f"no run {run_id} in {project.path}") from None


def accepted_pairs(project, run_id: int | None = None):
    """(run, language names, pairs): every stem accepted for a span of the run."""
    run = _run(project, run_id)
    decisions = project.decisions(run.id)
    table = table_for(project, run.corpus_id)
    corpus = project.corpus(run.corpus_id).name if run.corpus_id is not None else "lost language"
    language = project.vocabulary(run.language_id).language if run.language_id is not None else "known language"
    units_of = {} if run.corpus_id is None else {i.id: i.units for i in project.inscriptions(run.corpus_id)}
    pairs: list[AcceptedPair] = []
    for m in project.matches(run.id):
        for a in m.alternatives:
            if decisions.get((m.inscription_id, m.start, m.end, a.form)) == "accepted":
                found = units_of.get(m.inscription_id)
                units = tuple(found[m.start:m.end]) if found is not None else tuple(m.span)
                pairs.append(AcceptedPair(len(pairs) + 1, m.inscription_id, m.start, m.end, m.span,
                                          table.show_text(m.span), units, a.form, a.ipa, a.gloss, float(a.score)))
    return run, corpus, language, pairs


def _segments(ipa: str) -> list[str]:
    try:
        return list(ipa_units(ipa))
    except DecipherError:
        return [c for c in ipa if not c.isspace()]


def export_cldf(project, folder: str | Path, *, run_id: int | None = None) -> int:
    """Write a CLDF Wordlist (Wordlist-metadata.json, languages/parameters/forms/cognates CSV) into
    ``folder`` and validate it; returns the number of accepted pairs. Written to a temporary folder
    first, so a failure leaves nothing half-written."""
    from pycldf import Wordlist

    folder = Path(folder)
    run, corpus, language, pairs = accepted_pairs(project, run_id)
    table = table_for(project, run.corpus_id)
    lost_id, known_id = _slug(corpus), _slug(language)
    if lost_id == known_id:
        known_id += "_known"
    with tempfile.TemporaryDirectory(dir=folder.parent if folder.parent.exists() else None) as tmp:
        ds = Wordlist.in_dir(tmp)
        ds.add_component("LanguageTable")
        ds.add_component("ParameterTable")
        ds.add_component("CognateTable")
        ds.add_columns("FormTable", "Transliteration", "Inscription_ID",
                       {"name": "Span_Start", "datatype": "integer"}, {"name": "Span_End", "datatype": "integer"},
                       {"name": "Score", "datatype": "float"})
        ds.properties["dc:title"] = f"Accepted matches of run {run.id}: {corpus} — {language}"
        ds.properties["dc:description"] = (
            "Spans of a lost-language corpus matched to known-language stems by a decipherment run "
            "(Luo et al. 2021 model) and accepted by a person; one cognate set per accepted pair.")
        languages = [{"ID": lost_id, "Name": corpus}, {"ID": known_id, "Name": language}]
        parameters, forms, cognates = [], [], []
        for p in pairs:
            pid = f"match-{p.cogid}"
            parameters.append({"ID": pid, "Name": p.gloss or p.stem,
                               "Description": f"{p.inscription_id} letters {p.start}-{p.end}"})
            lost_form = {"ID": f"{pid}-lost", "Language_ID": lost_id, "Parameter_ID": pid,
                         "Form": p.shown, "Segments": [table.show(u) for u in p.units],
                         "Transliteration": p.span, "Inscription_ID": p.inscription_id,
                         "Span_Start": p.start, "Span_End": p.end, "Score": p.score}
            known_form = {"ID": f"{pid}-known", "Language_ID": known_id, "Parameter_ID": pid,
                          "Form": p.stem, "Segments": _segments(p.stem_ipa), "Comment": p.gloss or None,
                          "Transliteration": p.stem, "Score": p.score}
            forms += [lost_form, known_form]
            cognates += [{"ID": f"{pid}-lost", "Form_ID": f"{pid}-lost", "Cognateset_ID": pid},
                         {"ID": f"{pid}-known", "Form_ID": f"{pid}-known", "Cognateset_ID": pid}]
        ds.write(LanguageTable=languages, ParameterTable=parameters, FormTable=forms, CognateTable=cognates)
        if not ds.validate():
            raise ProjectError("the CLDF Wordlist did not validate")
        folder.mkdir(parents=True, exist_ok=True)
        for f in Path(tmp).iterdir():
            shutil.copy(f, folder / f.name)
    return len(pairs)


EDICTOR_COLUMNS = ("ID", "DOCULECT", "CONCEPT", "FORM", "VALUE", "TOKENS", "COGID", "INSCRIPTION", "SPAN", "SCORE")


def export_edictor(project, path: str | Path, *, run_id: int | None = None) -> int:
    """Write the accepted pairs as an EDICTOR/LingPy wordlist TSV (ID, DOCULECT, CONCEPT, FORM,
    TOKENS space-separated, COGID …); returns the number of pairs. Written atomically."""
    path = Path(path)
    run, corpus, language, pairs = accepted_pairs(project, run_id)
    table = table_for(project, run.corpus_id)
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        w.writerow(EDICTOR_COLUMNS)
        row_id = 0
        for p in pairs:
            concept = p.gloss or p.stem
            span = f"{p.start}-{p.end}"
            row_id += 1
            w.writerow([row_id, corpus, concept, p.shown, p.span, " ".join(table.show(u) for u in p.units),
                        p.cogid, p.inscription_id, span, f"{p.score:.4f}"])
            row_id += 1
            w.writerow([row_id, language, concept, p.stem, p.stem_ipa, " ".join(_segments(p.stem_ipa)),
                        p.cogid, p.inscription_id, span, f"{p.score:.4f}"])
    tmp.replace(path)
    return len(pairs)
