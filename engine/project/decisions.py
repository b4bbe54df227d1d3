"""Accepting and rejecting a run's matches: the one code path behind the app's Accept/Reject
(decipher_gui/commands.py, ``DecideSpan``) and ``decipher project decide``.

A decision is about one stem for one span of a run (``DecisionKey``: inscription id, start, end,
stem form as stored). A span has at most one accepted stem: accepting one takes back an earlier
acceptance of another stem for the same span; rejections stay.
"""

from __future__ import annotations

from engine.errors import ProjectError
from engine.project.records import DecisionKey
from engine.project.store import Project

#: the words a user says for a decision, and what is stored (None: open again, no decision)
VERBS = {"accept": "accepted", "reject": "rejected", "open": None}


def span_decisions(project: Project, run_id: int, key: DecisionKey) -> dict[DecisionKey, str]:
    """The run's decisions on the span of ``key`` (every stem), as they are now."""
    ins, start, end, _ = key
    return {k: v for k, v in project.decisions(run_id).items() if k[:3] == (ins, start, end)}


def decide_span(project: Project, run_id: int, key: DecisionKey, status: str | None) -> dict[DecisionKey, str]:
    """Accept (``"accepted"``), reject (``"rejected"``) or open again (None) stem ``key[3]`` for the
    span of ``key``, in one transaction; returns the span's decisions before (what an undo restores).
    Raises ProjectError when the run has no such match."""
    before = span_decisions(project, run_id, key)
    with project.transaction():
        for k, v in before.items():
            if k != key and status == "accepted" and v == "accepted":
                project.decide(run_id, *k, None)
        project.decide(run_id, *key, status)
    return before


def parse_span(text: str) -> tuple[str, int, int]:
    """``INSCRIPTION:START-END`` (the report's inscription_id, span_start and span_end; the id may
    hold ':' itself) -> (id, start, end); a ProjectError says what is wrong."""
    ins, sep, rest = text.rpartition(":")
    start, dash, end = rest.partition("-")
    if not sep or not ins or not dash or not start.strip().isdigit() or not end.strip().isdigit():
        raise ProjectError(f"a span is INSCRIPTION:START-END (the match report's inscription_id, span_start "
                           f"and span_end, e.g. KTU-1.1:4-7), not {text!r}")
    return ins, int(start), int(end)


def find_decision_key(project: Project, run_id: int, *, match_id: int | None = None,
                      span: tuple[str, int, int] | None = None, stem: str | None = None,
                      rank: int | None = None) -> DecisionKey:
    """The decision a user names: a match by its ``match_id`` (the report's column) or its ``span``,
    and one of its stems by ``stem`` (as stored, or as the known language's display table shows
    it) or ``rank`` (default 1, the best). Every miss is a ProjectError naming what the run has."""
    from engine.io.display import known_table_for

    run = project.run(run_id)
    records = project.match_records(run_id)
    if (match_id is None) == (span is None):
        raise ProjectError("name the match by its id (--match, the report's match_id) or its span (--span)")
    if match_id is not None:
        found = [r for r in records if r.id == match_id]
        if not found:
            raise ProjectError(f"run {run_id} has no match {match_id} (its match ids are in the report's "
                               f"match_id column: `decipher project export P --matches OUT --run {run_id}`)")
    else:
        found = [r for r in records if (r.match.inscription_id, r.match.start, r.match.end) == span]
        if not found:
            raise ProjectError(f"run {run_id} has no match at letters {span[1]}-{span[2]} of inscription {span[0]!r}")
    match = found[0].match
    if not match.alternatives:
        raise ProjectError(f"match {found[0].id} of run {run_id} has no stem to decide on")
    if stem is not None and rank is not None:
        raise ProjectError("name the stem by its form (--stem) or its rank (--rank), not both")
    if stem is not None:
        shown = known_table_for(project, run.language_id)
        alt = next((a for a in match.alternatives if a.form == stem), None) or next(
            (a for a in match.alternatives if shown.show_form(a.form) == stem), None)
        if alt is None:
            forms = ", ".join(repr(a.form) for a in match.alternatives)
            raise ProjectError(f"stem {stem!r} is not among the match's stems ({forms})")
    else:
        k = 1 if rank is None else rank
        if not 1 <= k <= len(match.alternatives):
            raise ProjectError(f"rank {k}: the match has stems of rank 1 to {len(match.alternatives)}")
        alt = match.alternatives[k - 1]
    return match.inscription_id, match.start, match.end, alt.form
