"""Read-only facts the views need, computed without torch or Qt: letter and IPA inventories,
closeness curves of stored runs, and which match covers which letter of an inscription."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from engine.closeness.curve import closeness_curve
from engine.corpus import DIVIDER, Inscription, Stem
from engine.errors import DecipherError
from engine.model.phonology import DELETE, ipa_units
from engine.project import Project, RunRecord
from engine.results import Match


def letter_count(inscriptions: Iterable[Inscription]) -> int:
    """Letters of a corpus, dividers left out (what coverage is a share of)."""
    return sum(1 for ins in inscriptions for u in ins.units if u != DIVIDER)


def lost_inventory(inscriptions: Iterable[Inscription]) -> list[str]:
    return sorted({u for ins in inscriptions for u in ins.units if u != DIVIDER})


def known_inventory(stems: Iterable[Stem]) -> list[str]:
    """The IPA units of a vocabulary, in the order the engine sorts them (stems it cannot read
    are skipped here; the run reports them)."""
    units: set[str] = set()
    for s in stems:
        try:
            units.update(ipa_units(s.ipa))
        except DecipherError:
            continue
    return sorted(units)


def run_label(project: Project, run: RunRecord) -> str:
    language = "?"
    if run.language_id is not None:
        for info in project.languages():
            if info.id == run.language_id:
                language = info.name
    return f"run {run.id} · {language}"


def stored_closeness(project: Project, run: RunRecord) -> list[tuple[float, float]] | None:
    """The closeness curve of a stored run, from its recorded matches (None without matches or corpus)."""
    if run.corpus_id is None:
        return None
    matches = project.matches(run.id)
    if not matches:
        return None
    try:
        total = letter_count(project.inscriptions(run.corpus_id))
    except DecipherError:
        return None
    return closeness_curve(matches, total)


@dataclass(frozen=True)
class SpanMark:
    """A highlighted span of one inscription."""

    match: Match
    decision: str | None       # "accepted", "rejected" or None (open)
    decided_form: str | None   # the stem the decision is about
    live: bool = False         # from the newest training batch, not from an evaluation


def marks_by_inscription(matches: Sequence[Match], decisions: dict, live: Sequence[Match] = ()
                         ) -> dict[str, list[SpanMark]]:
    """Group matches by inscription, each with the decision taken on it (accepted wins)."""
    out: dict[str, list[SpanMark]] = {}
    for m in matches:
        decision, form = None, None
        for alt in m.alternatives:
            d = decisions.get((m.inscription_id, m.start, m.end, alt.form))
            if d == "accepted":
                decision, form = d, alt.form
                break
            if d == "rejected" and decision is None and alt.rank == 1:
                decision, form = d, alt.form
        out.setdefault(m.inscription_id, []).append(SpanMark(m, decision, form))
    taken = {(m.inscription_id, m.start, m.end) for m in matches}
    for m in live:
        if (m.inscription_id, m.start, m.end) not in taken:
            out.setdefault(m.inscription_id, []).append(SpanMark(m, None, None, live=True))
    for marks in out.values():
        marks.sort(key=lambda s: (s.match.start, s.live))
    return out


def pin_axes(lost: Sequence[str], known: Sequence[str], pins) -> tuple[list[str], list[str]]:
    """Grid axes: the letters and IPA units of the inventory (or mapping), plus those pins name
    that are not there yet; the deletion pseudo-unit is left out of the columns."""
    rows = [x for x in lost if x != DELETE]
    cols = [x for x in known if x != DELETE]
    for p in pins:
        if p.lost not in rows:
            rows.append(p.lost)
        if p.known_ipa not in cols:
            cols.append(p.known_ipa)
    return rows, cols
