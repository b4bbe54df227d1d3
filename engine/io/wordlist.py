"""A known-language word list in ordinary spelling, transcribed to IPA stems.

Accepted files (UTF-8 unless an encoding is given; see docs/transcription.md, "Word lists"):

- plain text, one word per line; blank lines and lines starting with ``#`` are skipped; a line
  ``word<TAB>gloss`` gives a gloss too;
- CSV or TSV with a header holding a ``form`` column and optionally ``gloss`` (other names through
  ``columns={"form": "Lemma", "gloss": "English"}``); other columns are ignored.

Every word is transcribed with :func:`engine.io.transcription.transcribe`; identical forms are kept
once (their distinct glosses joined with "; "). Every problem names the file and the line.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Iterable, Mapping, NamedTuple

from engine.corpus import Stem
from engine.errors import InputError
from engine.io.transcription import RuleTable, TranscriptionError, transcriber
from engine.io.tables import _Table, read_text

TABLE_SUFFIXES = (".csv", ".tsv", ".tab")
ON_UNKNOWN = ("error", "skip")


class SkippedLine(NamedTuple):
    """A line left out under ``on_unknown="skip"``: its number, the form, and why."""

    line: int
    form: str
    problem: str


class WordlistResult(list):
    """The stems read (it *is* the list of Stem), plus ``skipped``: the lines left out, if any."""

    def __init__(self, stems: Iterable[Stem] = (), skipped: Iterable[SkippedLine] = ()):
        super().__init__(stems)
        self.skipped: list[SkippedLine] = list(skipped)

    @property
    def stems(self) -> list[Stem]:
        return list(self)

    def __repr__(self) -> str:
        return f"WordlistResult({len(self)} stems, {len(self.skipped)} skipped)"


def _is_table(path: Path, text: str, columns, delimiter) -> bool:
    if columns or delimiter or path.suffix.lower() in TABLE_SUFFIXES:
        return True
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        for sep in ("\t", ","):
            if sep in line and "form" in (c.strip().lower() for c in line.split(sep)):
                return True
        return False
    return False


def _plain_rows(path: Path, text: str) -> Iterable[tuple[int, str, str]]:
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        cells = [c.strip() for c in raw.split("\t")]
        if len(cells) > 2:
            raise InputError(f"{len(cells)} tab-separated fields; a plain word list has 'word' or "
                             "'word<TAB>gloss' per line (for more columns give the file a header "
                             "with a 'form' column)", path=path, line=lineno)
        yield lineno, cells[0], cells[1] if len(cells) > 1 else ""


def read_wordlist(path: str | Path, system: str | Path | RuleTable, *, columns: Mapping[str, str] | None = None,
                  delimiter: str | None = None, on_unknown: str = "error",
                  source: str | None = None, encoding: str | None = None) -> WordlistResult:
    """Read a word list and transcribe each form to IPA with ``system``.

    ``on_unknown="error"`` (the default) raises the first word that cannot be transcribed (naming
    the file, the line, every unknown character, and how many more lines fail);
    ``on_unknown="skip"`` returns the stems that worked, with ``result.skipped`` holding a
    ``SkippedLine(line, form, problem)`` for each line left out. ``encoding`` None detects it
    (UTF-8, or UTF-16 by its BOM); e.g. "latin-1" reads a Latin-1 file.
    """
    if on_unknown not in ON_UNKNOWN:
        raise ValueError(f"on_unknown must be 'error' or 'skip', not {on_unknown!r}")
    path = Path(path)
    text = read_text(path, encoding=encoding)
    if not text.strip():
        raise InputError("the file is empty", path=path)
    fn = transcriber(system)
    src = source if source is not None else path.name

    rows: Iterable[tuple[int, str, str]]
    if _is_table(path, text, columns, delimiter):
        def table_rows() -> Iterable[tuple[int, str, str]]:
            for lineno, row in _Table(path, text, ("form",), columns=columns, delimiter=delimiter,
                                      optional=("gloss",)).rows():
                yield lineno, (row.get("form") or ""), (row.get("gloss") or "")
        rows = table_rows()
    else:
        rows = _plain_rows(path, text)

    order: list[str] = []
    found: dict[str, tuple[str, list[str]]] = {}
    skipped: list[SkippedLine] = []
    failures: list[TranscriptionError | InputError] = []
    for lineno, raw_form, raw_gloss in rows:
        form = unicodedata.normalize("NFC", raw_form.strip())
        gloss = " ".join(raw_gloss.split())
        if not form:
            err = InputError("empty form" + (f" (gloss {gloss!r})" if gloss else ""), path=path, line=lineno)
            failures.append(err)
            skipped.append(SkippedLine(lineno, "", "empty form"))
            continue
        if form in found:
            if gloss and gloss not in found[form][1]:
                found[form][1].append(gloss)
            continue
        try:
            ipa = fn(form, path=path, line=lineno)
        except TranscriptionError as e:
            failures.append(e)
            skipped.append(SkippedLine(lineno, form, e.detail))
            continue
        order.append(form)
        found[form] = (ipa, [gloss] if gloss else [])

    if failures and on_unknown == "error":
        first = failures[0]
        more = failures[1:]
        if more:
            lines = ", ".join(str(f.line) for f in more[:10]) + (", …" if len(more) > 10 else "")
            tail = f" ({len(more)} more line{'s' if len(more) > 1 else ''} fail: {lines})"
            if isinstance(first, TranscriptionError):
                raise TranscriptionError(first.word, first.system, first.unknown, problem=first.detail + tail,
                                         path=path, line=first.line)
            raise InputError(first.problem + tail, path=path, line=first.line)
        raise first
    if not order:
        what = "no word could be transcribed" if skipped else "no words in the file"
        raise InputError(what + (f" ({len(skipped)} lines skipped)" if skipped else ""), path=path)
    stems = [Stem(f, found[f][0], "; ".join(found[f][1]), src) for f in order]
    return WordlistResult(stems, skipped)


__all__ = ["SkippedLine", "WordlistResult", "read_wordlist"]
