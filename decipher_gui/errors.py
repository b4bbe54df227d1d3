"""Turning exceptions into messages a user can act on, and the last-resort exception hook that
keeps the app alive (the error is shown and logged; the project file is never left half-written
because every engine write is one transaction)."""

from __future__ import annotations

import logging
import re
import sys
import traceback
from typing import Callable

from engine.errors import DecipherError, InputError, PhonologyError, ProjectError

log = logging.getLogger("decipher_gui")


def describe(exc: BaseException) -> tuple[str, str]:
    """(title, message) for an exception from the engine or the file system."""
    if isinstance(exc, PhonologyError):
        return "Unknown IPA symbol", _where(exc) + app_words(exc.problem)
    if isinstance(exc, InputError):
        return "Problem in the input", _where(exc) + app_words(exc.problem)
    if isinstance(exc, ProjectError):
        return "Project file", str(exc)
    if isinstance(exc, DecipherError):
        return "Cannot do that", str(exc)
    if isinstance(exc, MemoryError):
        return "Out of memory", "The operation needed more memory than is available."
    if isinstance(exc, FileNotFoundError):
        return "File not found", str(exc)
    if isinstance(exc, PermissionError):
        return "Permission denied", str(exc)
    if isinstance(exc, UnicodeDecodeError):
        return "Not UTF-8 text", f"The file is not UTF-8 text ({exc.reason} at byte {exc.start})."
    if isinstance(exc, OSError):
        return "File error", str(exc)
    return "Unexpected error", f"{type(exc).__name__}: {exc}"


_ENCODING_FLAG = re.compile(r"\s*\(--encoding(?: ([\w-]+))?\)")
_ENCODING_LABELS = {"cp1252": "Windows-1252", "latin-1": "Latin-1", "latin1": "Latin-1", "iso8859-1": "Latin-1",
                    "utf-8": "UTF-8", "utf-8-sig": "UTF-8", "utf-16": "UTF-16"}


def app_words(text: str, *, in_dialog: bool = False) -> str:
    """An engine message in the app's words: a command-line flag it suggests (``--encoding
    cp1252``) becomes the dialog's choice ("choose Windows-1252 under Encoding"); ``in_dialog``:
    said inside the import dialog, whose Encoding control is right there ("above")."""
    where = "above" if in_dialog else "when you import"

    def repl(m: re.Match) -> str:
        codec = m.group(1)
        label = _ENCODING_LABELS.get((codec or "").lower(), codec)
        return f" (choose {label} under Encoding {where})" if codec else f" (choose it under Encoding {where})"
    return _ENCODING_FLAG.sub(repl, text)


def _where(exc: InputError) -> str:
    parts = []
    if exc.path:
        parts.append(f"File: {exc.path}")
    if exc.line is not None:
        parts.append(f"Line: {exc.line}")
    return ("\n".join(parts) + "\n\n") if parts else ""


class ExceptionHook:
    """sys.excepthook replacement: log the traceback and hand a message to ``show``."""

    def __init__(self, show: Callable[[str, str, str], None]):
        self.show = show
        self.previous = sys.excepthook
        self.seen: list[BaseException] = []

    def __call__(self, etype, value, tb) -> None:
        if issubclass(etype, KeyboardInterrupt):
            self.previous(etype, value, tb)
            return
        details = "".join(traceback.format_exception(etype, value, tb))
        log.error("uncaught exception\n%s", details)
        self.seen.append(value)
        title, message = describe(value)
        try:
            self.show(title, message, details)
        except Exception:  # showing must never raise from inside the hook
            sys.__stderr__.write(details)

    def install(self) -> "ExceptionHook":
        sys.excepthook = self
        return self

    def uninstall(self) -> None:
        if sys.excepthook is self:
            sys.excepthook = self.previous
