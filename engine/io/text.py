"""A user's file as checked text: decoded (UTF-8 or UTF-16 by their BOM, or a given encoding),
control characters refused, NFC-normalised; and the CSV limits every reader shares.

Errors name the line and show the word that is wrong, never a byte offset.
"""

from __future__ import annotations

import codecs
import csv
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from engine.corpus import DIVIDER, normalise_text
from engine.errors import InputError

#: The longest CSV/TSV cell the readers take, in characters (16 MiB; Python's default is 131,072).
#: Plain-text imports refuse longer lines, so whatever is imported can be exported and read back.
CSV_FIELD_LIMIT = 16 * 1024 * 1024
if csv.field_size_limit() < CSV_FIELD_LIMIT:
    csv.field_size_limit(CSV_FIELD_LIMIT)

#: The encodings a user is offered (``None``/"auto" = detect: UTF-8, with or without a BOM, or
#: UTF-16/UTF-32 by their BOM). Any other name Python knows is accepted too.
ENCODINGS = ("auto", "utf-8", "utf-16", "latin-1", "cp1252")

#: Delimiters a user is offered, with the words the CLI takes for them.
DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}

#: Control characters are refused except these (line structure and cell separators).
ALLOWED_CONTROLS = "\t\n\r"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_C0_NAMES = ("NUL SOH STX ETX EOT ENQ ACK BEL BS TAB LF VT FF CR SO SI DLE DC1 DC2 DC3 DC4 NAK SYN "
             "ETB CAN EM SUB ESC FS GS RS US").split()
_WORD_BREAKS = b" \t,;|\"\r\n"
_CONTEXT = 30  # characters of a word shown in an error, at most


@dataclass(frozen=True)
class DecodedText:
    """A file's text (NFC, checked) and the encoding it was read with."""

    text: str
    encoding: str


def encoding_name(encoding: str | None) -> str | None:
    """The codec name for ``encoding`` (``None`` for "auto"/empty); an unknown one is an InputError."""
    if encoding is None or encoding.strip().lower() in ("", "auto"):
        return None
    try:
        return codecs.lookup(encoding.strip()).name
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r} (use one of {', '.join(ENCODINGS)})") from None


def detect_encoding(data: bytes) -> str:
    """The encoding a BOM announces (UTF-32, UTF-16, UTF-8 with BOM), else UTF-8."""
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    return "utf-8"


def suggest_encoding(data: bytes) -> str:
    """For bytes that are not UTF-8: Windows-1252 when it reads them and they use its 0x80-0x9F
    letters (curly quotes, dashes…), else Latin-1 (which reads any byte)."""
    if re.search(b"[\x80-\x9f]", data):
        try:
            data.decode("cp1252")
            return "cp1252"
        except UnicodeDecodeError:
            pass
    return "latin-1"


def _word_at(line: bytes, pos: int) -> tuple[bytes, int]:
    """The run of bytes around ``pos`` between spaces, delimiters and quotes (cut to a window)."""
    a = pos
    while a > 0 and line[a - 1] not in _WORD_BREAKS and pos - a < _CONTEXT:
        a -= 1
    b = pos
    while b < len(line) and line[b] not in _WORD_BREAKS and b - pos < _CONTEXT:
        b += 1
    return line[a:max(b, pos + 1)], a


def _undecodable(data: bytes, err: UnicodeDecodeError, encoding: str, path, what: str) -> InputError:
    prefix = data[: err.start].decode(encoding, errors="replace")
    line_no = prefix.count("\n") + 1
    if not encoding.startswith("utf-8"):
        return InputError(f"cannot be read as {encoding} ({err.reason}); choose the file's encoding "
                          "(--encoding)", path=path, line=line_no)
    start = data.rfind(b"\n", 0, err.start) + 1
    end = data.find(b"\n", err.start)
    line = data[start: len(data) if end < 0 else end].rstrip(b"\r")
    word, word_start = _word_at(line, err.start - start)
    column = len(line[:word_start].decode("utf-8", errors="replace")) + 1
    shown = word.decode("utf-8", errors="backslashreplace")
    guess = suggest_encoding(data)
    as_guess = word.decode(guess, errors="replace")
    label = "Windows-1252" if guess == "cp1252" else "Latin-1"
    return InputError(f"not valid UTF-8 in '{shown}' (column {column}; as {label} it reads "
                      f"{as_guess!r}); save the {what} as UTF-8, or read it as {label} "
                      f"(--encoding {guess})", path=path, line=line_no)


def latin1_hint(text: str) -> str:
    """What a Latin-1 reading with C1 controls (bytes 0x80-0x9F) most likely is: UTF-8 when the
    file's bytes (Latin-1 gives them back one for one) are valid UTF-8 (ḥ is E1 B8 A5 there, and
    B8 A5 are no letters of Windows-1252 or Latin-1 either), Windows-1252 when it reads them, else
    nothing said (it was once "maybe Windows-1252" for a UTF-8 file)."""
    data = text.encode("latin-1")
    try:
        data.decode("utf-8")
        return "; the file is UTF-8 (all of it reads as UTF-8): read it as UTF-8 (--encoding utf-8)"
    except UnicodeDecodeError:
        pass
    if suggest_encoding(data) == "cp1252":
        return "; the file may be Windows-1252 (it reads as that): read it as Windows-1252 (--encoding cp1252)"
    return ""


def check_controls(text: str, *, path=None, allowed: str = ALLOWED_CONTROLS,
                   encoding: str | None = None) -> None:
    """Refuse C0 controls (but ``allowed``), DEL and C1 controls, naming line, column and word."""
    for m in _CONTROL.finditer(text):
        ch = m.group()
        if ch in allowed:
            continue
        i = m.start()
        line_start = text.rfind("\n", 0, i) + 1
        line_end = text.find("\n", i)
        line = text[line_start: len(text) if line_end < 0 else line_end]
        pos = i - line_start
        context = line[max(0, pos - 12): pos + 12]
        code = ord(ch)
        name = _C0_NAMES[code] if code < 32 else ("DEL" if code == 0x7F else "a C1 control")
        hint = latin1_hint(text) if code >= 0x80 and encoding in ("iso8859-1", "latin-1") else ""
        raise InputError(f"control character U+{code:04X} ({name}) at column {pos + 1}, in "
                         f"{context!r}; remove it (text may hold tabs and line breaks, no other "
                         f"control characters){hint}", path=path, line=text.count("\n", 0, i) + 1)


#: Invisible format characters (Unicode category Cf: zero-width spaces and joiners, bidi controls,
#: a byte-order mark) that would otherwise become letters nobody can see.
def invisible_problem(text: str) -> tuple[int, str] | None:
    """The first invisible format character in ``text``: (its index, the problem in words)."""
    for i, ch in enumerate(text):
        if unicodedata.category(ch) == "Cf":
            code = ord(ch)
            name = unicodedata.name(ch, "a format character")
            if code == 0xFEFF:
                why = "a byte-order mark inside the text (two files joined into one?)"
            elif 0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069 or code in (0x200E, 0x200F, 0x061C):
                why = "a bidirectional-text control, which changes how the text looks, not what it says"
            else:
                why = "an invisible character, which would become a letter nobody can see"
            return i, f"U+{code:04X} ({name}): {why}; remove it"
    return None


def check_invisible(text: str, *, path=None) -> None:
    """Refuse invisible format characters (zero-width, bidi controls, a BOM inside the text),
    naming the line and column."""
    found = invisible_problem(text)
    if found is not None:
        i, problem = found
        line_start = text.rfind("\n", 0, i) + 1
        raise InputError(f"column {i - line_start + 1}: {problem}", path=path, line=text.count("\n", 0, i) + 1)


def decode_bytes(data: bytes, encoding: str | None = None, *, path=None, what: str = "file",
                 allowed_controls: str = ALLOWED_CONTROLS, invisible: str = "refuse") -> DecodedText:
    """Decode, check and NFC-normalise a file's bytes. ``encoding`` ``None``/"auto" detects
    (BOM, else UTF-8); a UTF-8 BOM is dropped whatever the encoding says. ``invisible``:
    "refuse" invisible format characters (a user's file), or "drop" them (the dataset builders'
    published corpora, e.g. a soft hyphen in a Bible text)."""
    try:
        chosen = encoding_name(encoding)
    except InputError as e:
        raise InputError(e.problem, path=path) from None
    if chosen is None:
        chosen = detect_encoding(data)
    elif chosen == "utf-8":
        chosen = "utf-8-sig"
    try:
        text = data.decode(chosen)
    except UnicodeDecodeError as e:
        raise _undecodable(data, e, chosen, path, what) from None
    check_controls(text, path=path, allowed=allowed_controls, encoding=chosen)
    if invisible == "drop":
        text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    else:
        try:
            check_invisible(text, path=path)
        except InputError as e:   # a UTF-8 ṭ (E1 B9 AD) read as Latin-1 ends in a soft hyphen
            hint = latin1_hint(text) if chosen in ("iso8859-1", "latin-1") else ""
            if not hint:
                raise
            raise InputError(e.problem + hint, path=e.path, line=e.line) from None
    return DecodedText(unicodedata.normalize("NFC", text), chosen)


#: The largest input file read (bytes): a corpus, a vocabulary, a settings file. Larger is refused
#: in one line before it is read (``/dev/zero`` grew memory ~250 MB/s until killed).
MAX_INPUT_BYTES = 512 * 1024 * 1024
#: The name that reads standard input instead of a file.
STDIN = "-"


def read_input(path: str | Path, *, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of an input the user names: a regular file (or standard input when named ``-``)
    of at most ``limit`` bytes. A FIFO, a device (``/dev/zero``), a socket or a folder is refused
    at once in one line (never opened for a blocking read), as is anything larger than ``limit``."""
    import stat
    import sys

    def too_big(size: str) -> InputError:
        return InputError(f"{size}, more than the {limit / 2**20:,.0f} MiB an input file may be; "
                          "split it, or train on a part of it", path=path)

    if str(path) == STDIN:
        data = sys.stdin.buffer.read(limit + 1)
        if len(data) > limit:
            raise too_big("standard input holds")
        return data
    path = Path(path)
    try:  # O_NONBLOCK: opening a FIFO never waits for a writer; nothing is read before fstat
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", path=path) from None
    except PermissionError:
        raise InputError("permission denied: cannot read the file", path=path) from None
    except OSError as e:
        raise InputError(f"cannot read the file ({e.strerror or e})", path=path) from None
    with os.fdopen(fd, "rb") as f:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputError("is a directory, not a file", path=path)
        if not stat.S_ISREG(mode):
            kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode)
                    or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
            raise InputError(f"is {kind}, not a regular file; refused (give a file, or '-' for standard input)",
                             path=path)
        size = os.fstat(fd).st_size
        if size > limit:
            raise too_big(f"is {size / 2**20:,.0f} MiB")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        data = f.read(limit + 1)
    if len(data) > limit:   # it grew while read
        raise too_big("grew to")
    return data


#: The most characters of one stored text a terminal line shows (the rest is counted).
TERMINAL_LIMIT = 200
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def for_terminal(value: object, limit: int = TERMINAL_LIMIT) -> str:
    """Stored text as a terminal shows it safely: control characters (an escape sequence, a line
    break), bidirectional overrides and line separators written visibly as ``\\x1b``, ``\\n``,
    ``\\u202e``…, so a name can neither drive the terminal nor split a row; text longer than
    ``limit`` characters cut, with how much was left out (a 60 MB source is not printed)."""
    text = "" if value is None else str(value)
    cut = len(text) - limit if len(text) > limit else 0
    if cut:
        text = text[:limit]
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat == "Cc" or cat in ("Zl", "Zp") or "\u202a" <= ch <= "\u202e" or "\u2066" <= ch <= "\u2069":
            code = ord(ch)
            out.append(_ESCAPES.get(ch) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"))
        else:
            out.append(ch)
    return "".join(out) + (f"… ({cut:,} more characters)" if cut else "")


def load_text(path: str | Path, what: str = "file", *, encoding: str | None = None,
              allowed_controls: str = ALLOWED_CONTROLS, invisible: str = "refuse") -> DecodedText:
    """:func:`decode_bytes` of an input (:func:`read_input`: a regular file or ``-``)."""
    data = read_input(path)
    path = Path(path)
    return decode_bytes(data, encoding, path=path, what=what, allowed_controls=allowed_controls,
                        invisible=invisible)


def read_text(path: str | Path, what: str = "file", *, encoding: str | None = None,
              allowed_controls: str = ALLOWED_CONTROLS, invisible: str = "refuse") -> str:
    """The file's text, NFC, decoded as ``encoding`` (default: detected); a problem names the
    line and the word, and asks to save the ``what`` (e.g. "export") as UTF-8."""
    return load_text(path, what, encoding=encoding, allowed_controls=allowed_controls, invisible=invisible).text


def detect_delimiter(header: str, required: Sequence[str], columns: Mapping[str, str] | None = None,
                     *, candidates: Sequence[str] = tuple(DELIMITERS)) -> str | None:
    """The first of ``candidates`` (comma, semicolon, tab, pipe) that splits ``header`` into cells
    naming every required column (after ``columns`` mapping), or None."""
    mapping = dict(columns or {})
    wanted = [mapping.get(n, n) for n in required]
    for delim in candidates:
        try:
            cells = [c.strip() for c in next(csv.reader([header], delimiter=delim))]
        except (csv.Error, StopIteration):
            continue
        if all(w in cells for w in wanted):
            return delim
    return None


def field_limit_problem() -> str:
    return (f"a cell is longer than {CSV_FIELD_LIMIT:,} characters, the longest a CSV cell may be "
            "(see docs/formats.md); if no cell should be that long, a quote is left open")


# ---------------------------------------------------------------------------------------------
# Leiden conventions in the text of a lost inscription (docs/formats.md, "Leiden conventions")

#: How a dotted letter (letter + U+0323 COMBINING DOT BELOW) is read: ``"uncertain"`` (Leiden:
#: the letter is read, the dot says it is uncertain and is removed from the text; ``raw`` keeps
#: it) or ``"letter"`` (the dot is part of the letter, as in ṣ ṭ ḥ of a Semitic transliteration).
#: ``None``: not chosen; a text with a dotted letter is then refused (:class:`DottedLettersUnchosen`),
#: because which of the two a dot is depends on the transliteration, and is never guessed.
DOTTED_MODES = ("uncertain", "letter")
DOT_BELOW = "\u0323"
#: The command-line words of the two readings (``--dotted letter|uncertain``), as the message says them.
DOTTED_CHOICES = {"letter": "letters of their own (ṣ ṭ ḥ of a Semitic transliteration)",
                  "uncertain": "Leiden's mark of an uncertain reading (the dot removed)"}


def dotted_letters(raw: str) -> list[str]:
    """The letters of ``raw`` written with a dot below (NFC, in order, each once)."""
    s = unicodedata.normalize("NFD", raw)
    out: dict[str, None] = {}
    for m in re.finditer(r"(\S)([\u0300-\u036f]*)", s):
        if DOT_BELOW in m.group(2) and not unicodedata.combining(m.group(1)):
            out[unicodedata.normalize("NFC", m.group(0))] = None
    return list(out)


class DottedLettersUnchosen(InputError):
    """A lost text holds letters with a dot below and the reader was not told what the dot is:
    ``letters`` (NFC, each once), first on ``line``; the caller asks the user (the app's import
    asks; the command line takes ``--dotted letter`` or ``--dotted uncertain``)."""

    def __init__(self, letters: Sequence[str], *, path=None, line: int | None = None, lines: int = 1):
        self.letters = tuple(letters)
        shown = " ".join(self.letters)
        one = len(self.letters) == 1
        where = f" (on {lines} lines, this the first)" if lines > 1 else ""
        super().__init__(
            f"{shown} {'is' if one else 'are'} written with a dot below{where}; the dot is either part of the "
            "letter or Leiden's mark of an uncertain reading, and which is not guessed: --dotted letter keeps "
            f"{'it as a letter' if one else 'them as letters'} of {'its' if one else 'their'} own (as ṣ ṭ ḥ of "
            f"a Semitic transliteration), --dotted uncertain reads {'it' if one else 'them'} as "
            f"{' '.join(undotted(ch) for ch in self.letters)}, uncertain",
            path=path, line=line)


def undotted(letter: str) -> str:
    """``letter`` without its dot below (NFC): how Leiden's uncertain reading reads it."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", letter).replace(DOT_BELOW, ""))


class DottedLetterCheck:
    """Reads a file's lost texts while the dot below is not chosen: each text is read with the dot
    kept (``mode`` returns ``"letter"``) and its dotted letters noted; :meth:`raise_any` then
    refuses the file naming every dotted letter and the first line. With a choice made, it is
    that choice and notes nothing."""

    def __init__(self, dotted: str | None, path=None):
        if dotted is not None and dotted not in DOTTED_MODES:
            raise ValueError(f"dotted must be one of {DOTTED_MODES} or None, not {dotted!r}")
        self.dotted, self.path = dotted, path
        self.letters: dict[str, None] = {}
        self.lines: list[int | None] = []

    def mode(self, raw: str, line: int | None) -> str:
        if self.dotted is not None:
            return self.dotted
        found = dotted_letters(raw)
        if found:
            self.letters.update(dict.fromkeys(found))
            self.lines.append(line)
        return "letter"

    def raise_any(self) -> None:
        if self.letters:
            raise DottedLettersUnchosen(list(self.letters), path=self.path, line=self.lines[0],
                                        lines=len(self.lines))
_OPEN_ADD = "\u27e8\u3008"        # ⟨ 〈 (U+2329 is NFC-normalised to U+3008)
_CLOSE_ADD = "\u27e9\u3009"       # ⟩ 〉
_GAP_DASHES = "-‐‑‒–—−"
_COUNTED = re.compile(r"^\s*(?:c\s*\.?\s*)?(\d{1,4})\s*$")
_MARKUP = frozenset("[]{}" + _OPEN_ADD + _CLOSE_ADD)   # the same set as engine.io.cog.LEIDEN_BRACKETS


@dataclass(frozen=True)
class LeidenReading:
    """The text the model sees, read from a lost text written with Leiden conventions, and what
    markup was read. ``text`` is normalised (spaces are dividers); a lacuna with lost signs is a
    divider in it, so no span crosses it (the representation of the Hesperia importer,
    ``lacunae="divide"``). Every ``[ ]`` passage is one *lacuna*: ``restored`` when the editor
    restored all its letters (they are kept as letters), else it has lost signs, of an unknown
    number (``lost_unknown``) or a known one (``lost_counted``, ``lost_signs`` in all)."""

    text: str
    lacunae: int = 0
    restored: int = 0
    lost_unknown: int = 0
    lost_counted: int = 0
    lost_signs: int = 0
    restored_letters: int = 0
    additions: int = 0          # ⟨ ⟩ passages: letters the editor adds; left out of the text
    deletions: int = 0          # { } passages: letters the scribe wrote in excess; kept
    uncertain: int = 0          # dotted letters read as uncertain (the dot removed)
    illegible: int = 0          # runs of dots or … outside brackets: illegible signs (a break)

    @property
    def marked(self) -> bool:
        return any((self.lacunae, self.additions, self.deletions, self.uncertain, self.illegible))


LEIDEN_COUNTS = ("lacunae", "restored", "lost_unknown", "lost_counted", "lost_signs",
                 "restored_letters", "additions", "deletions", "uncertain", "illegible")


def leiden_totals(readings) -> dict[str, int]:
    """The counts of many :class:`LeidenReading` added up (every key of ``LEIDEN_COUNTS``)."""
    totals = dict.fromkeys(LEIDEN_COUNTS, 0)
    for r in readings:
        for k in LEIDEN_COUNTS:
            totals[k] += getattr(r, k)
    return totals


def describe_leiden(totals: Mapping[str, int], *, label: bool = True) -> str:
    """``2 lacunae (1 restored, 1 with lost signs of unknown number)`` and the other markup read,
    for import messages and ``decipher project info`` (``label=False``: ``2 (1 restored, …)``)."""
    n = totals.get("lacunae", 0)
    parts = []
    if totals.get("restored"):
        parts.append(f"{totals['restored']} restored")
    if totals.get("lost_unknown"):
        parts.append(f"{totals['lost_unknown']} with lost signs of unknown number")
    if totals.get("lost_counted"):
        signs = totals.get("lost_signs", 0)
        parts.append(f"{totals['lost_counted']} with a known number of lost signs "
                     f"({signs} sign{'' if signs == 1 else 's'})")
    out = f"{n} lacuna{'' if n == 1 else 'e'}" if label else str(n)
    if parts:
        out += f" ({', '.join(parts)})"
    extra = [(totals.get("illegible", 0), "illegible passage", "illegible passages"),
             (totals.get("uncertain", 0), "dotted letter read as uncertain (the dot removed)",
              "dotted letters read as uncertain (the dot removed)"),
             (totals.get("additions", 0), "editorial addition ⟨ ⟩ left out",
              "editorial additions ⟨ ⟩ left out"),
             (totals.get("deletions", 0), "deletion { } kept", "deletions { } kept")]
    for k, one, many in extra:
        if k:
            out += f"; {k} {one if k == 1 else many}"
    return out


def read_leiden(raw: str, *, dotted: str | None = None, strict: bool = True, path=None,
                line: int | None = None) -> LeidenReading:
    """Read the Leiden markup of one lost text (see :class:`LeidenReading`).

    ``[abc]`` restored letters (kept); ``[...]``, ``[---]``, ``[…]``, ``[- - -]`` lost signs of
    unknown number; ``[.]``, ``[..]``, ``[c.5]`` a known number; ``[ab..]`` both; ``⟨abc⟩`` letters
    the editor adds (left out: the scribe did not write them); ``{abc}`` letters the editor deletes
    (kept: the scribe wrote them); a dotted letter (U+0323) per ``dotted`` (None: a text with one
    is refused, :class:`DottedLettersUnchosen`); dots (or …) outside
    brackets: illegible signs, a break. A ``[`` or ``]`` alone is a broken edge (the passage runs
    to the end or from the start of the text). ``strict``: a ``⟨`` or ``{`` that is not closed,
    or a ``[`` inside ``[ ]``, is an InputError naming ``path`` and ``line``; otherwise ignored.
    """
    if dotted is not None and dotted not in DOTTED_MODES:
        raise ValueError(f"dotted must be one of {DOTTED_MODES} or None, not {dotted!r}")
    s = unicodedata.normalize("NFD", raw)
    if dotted is None and DOT_BELOW in s:
        raise DottedLettersUnchosen(dotted_letters(raw), path=path, line=line)
    if not (_MARKUP.intersection(s) or "." in s or "…" in s or DOT_BELOW in s):
        return LeidenReading(normalise_text(raw))
    c = dict.fromkeys(LEIDEN_COUNTS, 0)
    out: list[str] = []
    i, n = 0, len(s)
    adding = 0                      # depth of ⟨ ⟩
    deleting = False
    region: list[str] | None = None  # the content of an open [ ], None outside

    def problem(msg: str) -> InputError:
        return InputError(f"{msg} in {unicodedata.normalize('NFC', raw)!r}", path=path, line=line)

    def emit(ch: str) -> None:
        if adding:
            return
        if region is not None:
            region.append(ch)
        else:
            out.append(ch)

    while i < n:
        ch = s[i]
        if ch == "[":
            if region is not None:
                if strict:
                    raise problem("a '[' inside a lacuna '[ ]' that is not closed")
            else:
                region = []
        elif ch == "]":
            if region is None:      # a broken edge: the passage from the start is the lacuna
                out = _close_region(out, c)
            else:
                out.extend(_close_region(region, c))
                region = None
        elif ch in _OPEN_ADD:
            adding += 1
        elif ch in _CLOSE_ADD:
            if adding:
                adding -= 1
                c["additions"] += 1
            elif strict:
                raise problem("a '⟩' with no '⟨' before it")
        elif ch == "{":
            if deleting and strict:
                raise problem("a '{' inside '{ }'")
            deleting = True
        elif ch == "}":
            if not deleting and strict:
                raise problem("a '}' with no '{' before it")
            if deleting:
                c["deletions"] += 1
            deleting = False
        elif ch == DOT_BELOW and dotted == "uncertain":
            c["uncertain"] += 1
        elif region is None and ch in ".…":
            j = i
            while j < n and s[j] in ".…":
                j += 1
            out.append(DIVIDER)
            c["illegible"] += 1
            i = j
            continue
        else:
            emit(ch)
        i += 1
    if region is not None:          # a broken edge: the passage runs to the end
        out.extend(_close_region(region, c))
    if strict and adding:
        raise problem("a '⟨' that is not closed")
    if strict and deleting:
        raise problem("a '{' that is not closed")
    return LeidenReading(normalise_text("".join(out)), **c)


def _close_region(content: list[str], c: dict[str, int]) -> list[str]:
    """The text a ``[ ]`` passage leaves (restored letters, a divider for each gap), counted."""
    text = "".join(content)
    c["lacunae"] += 1
    m = _COUNTED.match(text)
    if m:
        c["lost_counted"] += 1
        c["lost_signs"] += int(m.group(1))
        return [DIVIDER]
    out: list[str] = []
    gaps_unknown = gaps_counted = signs = letters = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "." or ch in _GAP_DASHES or ch == "…":
            j, dots, other = i, 0, 0
            while j < n and (text[j] == "." or text[j] in _GAP_DASHES or text[j] == "…"
                             or (text[j] == " " and j + 1 < n
                                 and (text[j + 1] == "." or text[j + 1] in _GAP_DASHES))):
                dots += text[j] == "."
                other += text[j] in _GAP_DASHES or text[j] == "…"
                j += 1
            if other or dots >= 3:
                gaps_unknown += 1
            else:
                gaps_counted += 1
                signs += dots
            out.append(DIVIDER)
            i = j
            continue
        if ch == "?":               # "[abc?]": the restoration is uncertain; "[?]": one lost sign
            if not text.replace("?", "").strip():
                gaps_counted, signs = 1, 1
                out.append(DIVIDER)
            i += 1
            continue
        if not ch.isspace() and not unicodedata.combining(ch):
            letters += 1
        out.append(ch)
        i += 1
    if gaps_unknown:
        c["lost_unknown"] += 1
    elif gaps_counted:
        c["lost_counted"] += 1
        c["lost_signs"] += signs
    elif not letters:               # "[ ]" or "[]": blanks stand for lost signs
        c["lost_unknown"] += 1
        out = [DIVIDER]
    else:
        c["restored"] += 1
    c["restored_letters"] += letters
    return out
