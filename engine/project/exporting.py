"""Exports from a project: the match report (CSV/TSV), pinned values as PRIOR.csv, and corpora,
vocabularies and gold back to LOST/KNOWN/GOLD CSV. Columns are described in docs/formats.md.

Every export is UTF-8 (``bom=True`` adds a BOM for Excel), written atomically, with ``.`` as
decimal point. ``guard_formulas=True`` prefixes an apostrophe to text cells a spreadsheet would
run as formulas (``=``, ``+``, ``-``, ``@``…). These functions write files the engine can read
back, so their own default is off; the front ends turn it on (``decipher project export`` unless
``--no-guard-formulas``, and every export of the app). Each returns a :class:`Written`: the row
count, with ``guarded`` the number of cells the guard changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from engine.io.atomic import Written, write_csv
from engine.io.tables import sniff_delimiter
# resolve_corpus/resolve_language are also imported from here by engine/runs/seeds.py and engine/cli/sweep.py
from engine.project.resolve import default_run, resolve_corpus, resolve_language
from engine.project.pins import pin_history
from engine.project.store import Project

#: The match report's columns, in order (one row per match and alternative). ``lost_span`` and
#: ``stem`` are shown through the display tables of the corpus and the known language (as scholars
#: write them); ``lost_span_code`` and ``stem_code`` keep the data's own letters, which a re-import reads.
MATCH_COLUMNS = (
    "run_id", "match_id", "inscription_id", "inscription_ref", "span_start", "span_end",
    "lost_span", "lost_span_code", "confidence", "known_language", "rank", "stem", "stem_code", "stem_ipa",
    "gloss", "score", "log_prob", "decision", "settings", "pins",
)

#: How an undecided (match, alternative) shows in the report's ``decision`` column.
OPEN = "open"


def number(value: float) -> float:
    """Numbers go to the writer as floats (written as the shortest text that reads back the same,
    ``repr``), never as text, so formula guarding never touches a negative score."""
    return float(value)



def inscription_ref(meta, inscription_id: str) -> str:
    """The reference shown for an inscription: meta "reference", else "ref", else its id."""
    return (meta or {}).get("reference") or (meta or {}).get("ref") or inscription_id


def pins_text(history) -> str:
    """A run's pin history in one cell: ``from step 0: none; from step 36: š → /ʃ/`` (a soft pin
    says ``soft``, a weight other than 1 ``×w``)."""
    def one(p) -> str:
        extra = [w for w in ("soft" if not p.locked else "", f"×{p.weight:g}" if p.weight != 1 else "") if w]
        return f"{p.lost} → /{p.known_ipa}/" + (f" ({', '.join(extra)})" if extra else "")
    return "; ".join(f"from step {c.step}: " + (", ".join(one(p) for p in c.pins) or "none") for c in history)


def match_report_rows(project: Project, run_id: int) -> Iterator[list]:
    """The report's rows for one run (see :data:`MATCH_COLUMNS`)."""
    from engine.io.display import known_table_for, table_for

    run = project.run(run_id)
    lost_shown, known_shown = table_for(project, run.corpus_id), known_table_for(project, run.language_id)
    settings = run.summary()
    language = ""
    if run.language_id is not None:
        language = project.vocabulary(run.language_id).language
    refs: dict[str, str] = {}
    if run.corpus_id is not None:
        refs = {i.id: inscription_ref(i.meta, i.id) for i in project.inscriptions(run.corpus_id)}
    decisions = project.decisions(run_id)
    # an imported report's run says nothing of its pins: empty, not "none"
    pins = "" if run.status == "imported" else pins_text(pin_history(project, run_id))
    for record in project.match_records(run_id):
        m = record.match
        head = [run_id, record.id, m.inscription_id, refs.get(m.inscription_id, m.inscription_id),
                m.start, m.end, lost_shown.show_text(m.span), m.span, number(m.confidence), language]
        if not m.alternatives:
            yield head + ["", "", "", "", "", "", "", OPEN, settings, pins]
        for a in m.alternatives:
            decision = decisions.get((m.inscription_id, m.start, m.end, a.form), OPEN)
            yield head + [a.rank, known_shown.show_form(a.form), a.form, a.ipa, a.gloss, number(a.score), number(a.log_prob),
                          decision, settings, pins]


def unfinished_note(project: Project, run_id: int) -> str | None:
    """What an export of run ``run_id`` must say when the run has not finished (the CLI prints it as a
    ``note:``, the app in its status bar), with the step it holds; None for a finished run. A run in
    progress exported 40 rows of the 90 it ended with, and said nothing (issue 52)."""
    run = project.run(run_id)
    if run.status in ("completed", "imported"):
        return None
    steps = dict(run.config or {}).get("steps")
    at = f"step {run.last_step if run.last_step is not None else 0}" + (f" of {steps}" if steps else "")
    state = "is still running" if run.status == "running" else f"did not finish ({run.status})"
    return f"run {run_id} {state}, at {at}: this export holds its results as of that step, not a finished run's"


def export_matches(project: Project, path: str | Path, *, run_id: int | None = None,
                   delimiter: str | None = None, bom: bool = False,
                   guard_formulas: bool = False) -> int:
    """Write the match report of a run (default: the newest run with matches); returns the row count.

    ``delimiter`` defaults to a tab for ``.tsv``/``.tab`` files and a comma otherwise.
    """
    path = Path(path)
    if run_id is None:
        run_id = default_run(project).id
    rows = list(match_report_rows(project, run_id))
    guarded = write_csv(path, MATCH_COLUMNS, rows, delimiter=sniff_delimiter(path, delimiter), bom=bom,
                        guard_formulas=guard_formulas)
    return Written(len(rows), guarded)


def export_prior(project: Project, path: str | Path, *, delimiter: str | None = None,
                 bom: bool = False, guard_formulas: bool = False, display=None) -> int:
    """Write the project's pinned values as PRIOR.csv; returns how many. With ``display`` (a
    corpus's display table, as the app passes) a ``shown`` column follows ``lost``: the letter as
    shown; ``lost`` stays the data's letter, which the PRIOR reader reads (it skips ``shown``)."""
    path = Path(path)
    pins = project.pins()
    header = ("lost",) + (("shown",) if display is not None else ()) + ("known_ipa", "weight", "locked", "note")
    guarded = write_csv(path, header,
              ((p.lost,) + ((display.show(p.lost),) if display is not None else ())
               + (p.known_ipa, number(p.weight), int(p.locked), p.note) for p in pins),
              delimiter=sniff_delimiter(path, delimiter), bom=bom, guard_formulas=guard_formulas)
    return Written(len(pins), guarded)


def export_lost(project: Project, path: str | Path, corpus: int | str | None = None, *,
                delimiter: str | None = None, bom: bool = False, guard_formulas: bool = False) -> int:
    """Write a corpus as LOST.csv: ``id,text``, then ``raw`` when any text was imported in another
    form, then every metadata key. Re-importing it gives the same inscriptions."""
    path = Path(path)
    inscriptions = project.inscriptions(resolve_corpus(project, corpus))
    keys: dict[str, None] = {}
    for ins in inscriptions:
        keys.update(dict.fromkeys(k for k in ins.meta if k not in ("id", "text", "raw")))
    with_raw = any(ins.raw is not None and ins.raw != ins.text for ins in inscriptions)
    header = ["id", "text"] + (["raw"] if with_raw else []) + list(keys)
    rows = ([ins.id, ins.text] + ([ins.raw if ins.raw is not None else ins.text] if with_raw else [])
            + [ins.meta.get(k, "") for k in keys] for ins in inscriptions)
    guarded = write_csv(path, header, rows, delimiter=sniff_delimiter(path, delimiter), bom=bom,
              guard_formulas=guard_formulas)
    return Written(len(inscriptions), guarded)


def export_known(project: Project, path: str | Path, language: int | str | None = None, *,
                 delimiter: str | None = None, bom: bool = False, guard_formulas: bool = False) -> int:
    """Write a known language's stems as KNOWN.csv: ``form,ipa,gloss,source``."""
    path = Path(path)
    stems = project.stems(resolve_language(project, language))
    guarded = write_csv(path, ("form", "ipa", "gloss", "source"), ((s.form, s.ipa, s.gloss, s.source) for s in stems),
              delimiter=sniff_delimiter(path, delimiter), bom=bom, guard_formulas=guard_formulas)
    return Written(len(stems), guarded)


def export_gold(project: Project, path: str | Path, corpus: int | str | None = None, *,
                delimiter: str | None = None, bom: bool = False, guard_formulas: bool = False) -> int:
    """Write a corpus's gold annotations as GOLD.csv: ``inscription_id,start,word_end,known``."""
    path = Path(path)
    gold = project.gold(resolve_corpus(project, corpus))
    guarded = write_csv(path, ("inscription_id", "start", "word_end", "known"),
              ((g.inscription_id, g.start, g.word_end, "|".join(g.known)) for g in gold),
              delimiter=sniff_delimiter(path, delimiter), bom=bom, guard_formulas=guard_formulas)
    return Written(len(gold), guarded)
