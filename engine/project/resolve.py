"""Which corpus, known language or run a command means: from an id, a name, or the only one."""

from __future__ import annotations

from engine.errors import ProjectError
from engine.project.records import RunRecord
from engine.project.store import Project


def _resolve(value: int | str | None, check, by_name, listing, what: str) -> int:
    """An id from an id (checked), a name, or None when the project holds exactly one."""
    if isinstance(value, int):
        check(value)
        return value
    if value is not None:
        return by_name(value)
    items = listing()
    if len(items) == 1:
        return items[0].id
    names = ", ".join(repr(x.name) for x in items) or "none yet"
    raise ProjectError(f"say which {what} (the project has: {names})")


def resolve_corpus(project: Project, corpus: int | str | None) -> int:
    """A corpus id from an id, a name, or None when the project holds exactly one corpus."""
    return _resolve(corpus, project.corpus, project.corpus_id, project.corpora, "corpus")


def resolve_language(project: Project, language: int | str | None) -> int:
    """A known-language id from an id, a name, or None when the project holds exactly one."""
    return _resolve(language, project.vocabulary, project.language_id, project.languages, "known language")


def default_run(project: Project) -> RunRecord:
    """The newest run that has matches (the report's default)."""
    row = project.conn.execute("SELECT max(run_id) FROM run_match").fetchone()
    if row is None or row[0] is None:
        raise ProjectError(f"{project.path.name} has no run with matches yet")
    return project.run(int(row[0]))
