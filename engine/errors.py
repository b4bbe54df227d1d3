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
