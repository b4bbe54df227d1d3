"""Errors the engine raises for bad input: each names where the problem is and what it is."""

from __future__ import annotations

from pathlib import Path


class DecipherError(Exception):
    """Base class of every error the engine reports to a user."""


class InputError(DecipherError):
    """Bad input data: names the file, the line (1-based, header is line 1) and the problem."""

    def __init__(self, problem: str, *, path: str | Path | None = None, line: int | None = None):
        self.problem = problem
        self.path = str(path) if path is not None else None
        self.line = line
        where = ""
        if self.path is not None:
            where = self.path
            if line is not None:
                where += f", line {line}"
            where += ": "
        elif line is not None:
            where = f"line {line}: "
        super().__init__(where + problem)


class PhonologyError(InputError):
    """An IPA string holds a symbol the phonology does not know."""

    def __init__(self, symbol: str, word: str, *, source: str | None = None,
                 path: str | Path | None = None, line: int | None = None):
        self.symbol = symbol
        self.word = word
        self.source = source
        code = " ".join(f"U+{ord(c):04X}" for c in symbol)
        origin = f" (from {source})" if source else ""
        super().__init__(f"unknown IPA symbol {symbol!r} ({code}) in {word!r}{origin}",
                         path=path, line=line)


class ProjectError(DecipherError):
    """A project file cannot be opened or changed as asked."""


class ForeignSchemaError(ProjectError):
    """A project file holds SQL objects (triggers, views, tables, indexes) that are not this
    program's, or lacks some of its own: it is refused before any of them can run."""

    def __init__(self, path: str | Path, foreign: list[str], missing: list[str]):
        self.path = str(path)
        self.foreign = list(foreign)
        self.missing = list(missing)
        said = []
        if foreign:
            said.append("holds SQL objects that are not this program's: " + ", ".join(foreign))
        if missing:
            said.append("lacks " + ", ".join(missing))
        super().__init__(f"{self.path}: refused: the file {'; it '.join(said)} (it was altered or "
                         "made by another program; nothing in it was run)")


class StoredValueError(ProjectError):
    """A cell of a project file holds a value this program never writes (bad JSON, a text where a
    number belongs, a value the importers refuse): names the table, the row and the column."""

    def __init__(self, path: str | Path, table: str, row: object, column: str, problem: str):
        self.path = str(path)
        self.table = table
        self.row = row
        self.column = column
        self.problem = problem
        super().__init__(f"{self.path}: table {table}, row {row}, column {column}: {problem} "
                         "(the file was altered or damaged)")
