"""Orthography -> IPA for the known language: our own rule tables, or epitran.

A *system* names how a word is read:

- one of our rule tables in ``resources/transcription/<name>.tsv`` ("semitic", "semitic-translit",
  "latin", "basque", "proto-germanic", "gothic", "greek", "hebrew", "hebrew-consonantal"), see docs/transcription.md for what each grapheme
  becomes and why;
- a path to a user's own rule-table file in the same format;
- an epitran code such as "spa-Latn", "tur-Latn", "hun-Latn", "ara-Arab", "deu-Latn".

Every IPA string this module returns passes :func:`engine.model.phonology.ipa_units`. A character the
system cannot read is never dropped: :class:`TranscriptionError` names each one (with its U+ code),
the word and the system, and (when given) the file and line it came from.

Rule-table format (UTF-8, tab-separated; the full description is in docs/transcription.md)::

    # a comment
    @lowercase                      capitals the table does not list are read as small letters
    @class V = a e i o u            a class of letters, used in contexts as {V}
    @map 𐌰 a                       rewrite one script into another before the rules run
    grapheme  ipa  preceded_by  followed_by  note
    b         β    {V}                       after a vowel
    b         b                              elsewhere

At each position the longest grapheme whose contexts hold wins; among rules of one grapheme those
with a context are tried first, in file order. ``∅`` in the ipa column means "silent".
Contexts: ``#`` is the word edge, ``{Name}`` a class, ``a|e`` alternatives, ``!`` in front negates,
other characters stand for themselves; ``re:`` in front takes the rest as a Python regex.
"""

from __future__ import annotations

import importlib.util
import os
import re
import threading
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from engine.errors import InputError, PhonologyError
from engine.model.phonology import ipa_units
from engine.resources import resource

TABLE_DIR = resource("transcription")
BUILTIN_TABLES: tuple[str, ...] = ("semitic", "latin", "basque", "proto-germanic", "gothic",
                                   "semitic-translit", "greek", "hebrew", "hebrew-consonantal")
SILENT = "∅"
COLUMNS = ("grapheme", "ipa", "preceded_by", "followed_by", "note")
REQUIRED_COLUMNS = ("grapheme", "ipa")

_EPITRAN_CODE = re.compile(r"^[a-z]{3}-[A-Z][a-z]{3}(?:-[A-Za-z0-9]+)*$")
_CLASS_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CLASS_REF = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


# --------------------------------------------------------------------------------------------
# errors


def describe_char(ch: str) -> str:
    """``'C' (U+0043 LATIN CAPITAL LETTER C)``: a character as a user can look it up."""
    code = " ".join(f"U+{ord(c):04X}" for c in ch)
    name = unicodedata.name(ch, "") if len(ch) == 1 else ""
    return f"{ch!r} ({code}{' ' + name if name else ''})"


class TranscriptionError(InputError):
    """A word the system cannot transcribe: names every unknown character, the word and the system."""

    def __init__(self, word: str, system: str, unknown: Iterable[str] = (), *, problem: str | None = None,
                 path: str | Path | None = None, line: int | None = None):
        self.word = word
        self.system = system
        self.unknown = tuple(dict.fromkeys(unknown))
        if problem is None:
            what = "unknown character" if len(self.unknown) == 1 else "unknown characters"
            problem = f"{what} " + ", ".join(describe_char(c) for c in self.unknown)
        self.detail = problem
        super().__init__(f"cannot transcribe {word!r} with {system!r}: {problem}", path=path, line=line)


class RuleTableError(InputError):
    """A rule-table file is malformed: names the file, the line and the problem."""


# --------------------------------------------------------------------------------------------
# rule tables

Predicate = Callable[[str, int, int], bool]


@dataclass(frozen=True)
class Rule:
    """One row of a rule table."""

    grapheme: str
    ipa: str  # "" for a silent grapheme
    preceded_by: str = ""
    followed_by: str = ""
    note: str = ""
    line: int = 0
    left: Predicate | None = field(default=None, repr=False, compare=False)
    right: Predicate | None = field(default=None, repr=False, compare=False)

    def applies(self, word: str, start: int, end: int) -> bool:
        if self.left is not None and not self.left(word, start, end):
            return False
        if self.right is not None and not self.right(word, start, end):
            return False
        return True


@dataclass
class RuleTable:
    """A parsed rule table; call :meth:`transcribe` on words."""

    name: str
    path: Path | None
    rules: tuple[Rule, ...]
    classes: dict[str, tuple[str, ...]]
    maps: dict[str, str]
    lowercase: bool

    def __post_init__(self) -> None:
        by: dict[str, list[Rule]] = {}
        for r in self.rules:
            by.setdefault(r.grapheme, []).append(r)
        # rules with a context first (file order), the unconditional one last
        self._by_grapheme = {g: tuple(sorted(rs, key=lambda r: (r.left is None and r.right is None, r.line)))
                             for g, rs in by.items()}
        self._lengths = sorted({len(g) for g in by}, reverse=True)
        self._alphabet = frozenset(ch for g in by for ch in g)
        if self.maps:
            keys = sorted(self.maps, key=len, reverse=True)
            self._map_re: re.Pattern[str] | None = re.compile("|".join(re.escape(k) for k in keys))
        else:
            self._map_re = None
        self._memo: dict[str, tuple[str, tuple[str, ...]]] = {}

    def graphemes(self) -> list[str]:
        return list(self._by_grapheme)

    def prepare(self, word: str) -> str:
        """The word as the rules see it: NFC, @map applied, unlisted capitals lowered (@lowercase)."""
        s = unicodedata.normalize("NFC", word)
        if self._map_re is not None:
            s = unicodedata.normalize("NFC", self._map_re.sub(lambda m: self.maps[m.group(0)], s))
        if self.lowercase:
            s = unicodedata.normalize("NFC", "".join(self._fold(c) for c in s))
        return s

    def _fold(self, c: str) -> str:
        """A capital the table does not list, read as its small letter when the table knows that."""
        if c in self._alphabet:
            return c
        low = unicodedata.normalize("NFC", c.lower())
        if low != c and all(x in self._alphabet for x in low):
            return low
        return c

    def _match(self, token: str, i: int) -> Rule | None:
        for n in self._lengths:
            if i + n > len(token):
                continue
            rules = self._by_grapheme.get(token[i:i + n])
            if rules:
                for r in rules:
                    if r.applies(token, i, i + n):
                        return r
        return None

    def _run(self, word: str) -> tuple[str, tuple[str, ...]]:
        hit = self._memo.get(word)
        if hit is not None:
            return hit
        out_tokens: list[str] = []
        unknown: list[str] = []
        for token in self.prepare(word).split():
            out: list[str] = []
            i = 0
            while i < len(token):
                r = self._match(token, i)
                if r is None:
                    unknown.append(token[i])
                    i += 1
                else:
                    out.append(r.ipa)
                    i += len(r.grapheme)
            if "".join(out):
                out_tokens.append("".join(out))
        result = (unicodedata.normalize("NFC", " ".join(out_tokens)), tuple(dict.fromkeys(unknown)))
        if len(self._memo) < 500_000:
            self._memo[word] = result
        return result

    def transcribe(self, word: str, *, path: str | Path | None = None, line: int | None = None) -> str:
        """The IPA of ``word``; TranscriptionError names any character no rule reads."""
        system = self.name
        if not word or not word.strip():
            raise TranscriptionError(word, system, problem="the word is empty", path=path, line=line)
        ipa, unknown = self._run(word)
        if unknown:
            raise TranscriptionError(word, system, unknown, path=path, line=line)
        if not ipa:
            raise TranscriptionError(word, system, problem="every letter is silent in this table (no IPA left)",
                                     path=path, line=line)
        _check_output(ipa, word, system, path=path, line=line)
        return ipa


def _split_alternatives(text: str) -> list[str]:
    parts, cur, esc = [], [], False
    for ch in text:
        if esc:
            cur.append("\\" + ch)
            esc = False
        elif ch == "\\":
            esc = True
        elif ch == "|":
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if esc:
        cur.append("\\\\")
    parts.append("".join(cur))
    return parts


def _class_regex(members: Sequence[str]) -> str:
    return "(?:" + "|".join(re.escape(m) for m in sorted(members, key=len, reverse=True)) + ")"


def _context_regex(text: str, side: str, classes: dict[str, tuple[str, ...]], where: dict) -> str:
    """Translate our context syntax into a regex fragment (``#`` -> edge of the word)."""
    if text.startswith("re:"):
        raw = text[3:]

        def sub(m: re.Match[str]) -> str:
            name = m.group(1)
            return _class_regex(classes[name]) if name in classes else m.group(0)
        return _CLASS_REF.sub(sub, raw)
    alts = []
    for alt in _split_alternatives(text):
        pieces: list[str] = []
        i = 0
        while i < len(alt):
            ch = alt[i]
            if ch.isspace():
                i += 1
            elif ch == "\\" and i + 1 < len(alt):
                pieces.append(re.escape(alt[i + 1]))
                i += 2
            elif ch == "#":
                pieces.append("^" if side == "left" else r"\Z")
                i += 1
            elif ch == "{":
                close = alt.find("}", i)
                name = alt[i + 1:close] if close > i else ""
                if close < 0 or not _CLASS_NAME.match(name):
                    raise RuleTableError(f"bad class reference in context {text!r}: write {{Name}}", **where)
                if name not in classes:
                    known = ", ".join(sorted(classes)) or "none defined"
                    raise RuleTableError(f"unknown class {{{name}}} in context {text!r} (classes: {known}); "
                                         f"define it with a line '@class {name} = …'", **where)
                pieces.append(_class_regex(classes[name]))
                i = close + 1
            else:
                pieces.append(re.escape(ch))
                i += 1
        if not pieces:
            raise RuleTableError(f"empty alternative in context {text!r}", **where)
        alts.append("".join(pieces))
    return "(?:" + "|".join(alts) + ")"


def _compile_context(text: str, side: str, classes: dict[str, tuple[str, ...]], where: dict) -> Predicate | None:
    text = text.strip()
    if not text:
        return None
    negate = text.startswith("!")
    body = text[1:].strip() if negate else text
    if not body:
        raise RuleTableError(f"context {text!r} negates nothing", **where)
    frag = _context_regex(body, side, classes, where)
    try:
        if side == "left":
            rx = re.compile(f"(?:{frag})\\Z")

            def pred(word: str, start: int, end: int) -> bool:
                return (rx.search(word, 0, start) is not None) != negate
        else:
            rx = re.compile(frag)

            def pred(word: str, start: int, end: int) -> bool:
                return (rx.match(word, end) is not None) != negate
    except re.error as e:
        raise RuleTableError(f"context {text!r} is not a valid pattern: {e}", **where) from None
    return pred


def _normalise_ipa(ipa: str) -> str:
    return unicodedata.normalize("NFC", ipa.replace("g", "ɡ").replace(":", "ː"))


def parse_rule_table(text: str, *, name: str = "rule table", path: str | Path | None = None) -> RuleTable:
    """Parse the text of a rule table; every problem is a RuleTableError naming the line."""
    classes: dict[str, tuple[str, ...]] = {}
    maps: dict[str, str] = {}
    map_lines: dict[str, int] = {}
    lowercase = False
    header: list[str] | None = None
    rules: list[Rule] = []
    seen: dict[tuple[str, str, str], int] = {}
    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        where = {"path": path, "line": lineno}
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        words = stripped.split()
        head = words[0]
        if head in ("@class", "@map", "@lowercase"):
            if head == "@lowercase":
                if len(words) != 1:
                    raise RuleTableError("@lowercase takes nothing after it", **where)
                lowercase = True
            elif head == "@class":
                if len(words) < 4 or words[2] != "=":
                    raise RuleTableError("write a class as '@class Name = member member …'", **where)
                cname = words[1]
                if not _CLASS_NAME.match(cname):
                    raise RuleTableError(f"bad class name {cname!r}: use letters, digits and _", **where)
                members: list[str] = []
                for m in words[3:]:
                    ref = _CLASS_REF.fullmatch(m)
                    if ref:
                        if ref.group(1) not in classes:
                            raise RuleTableError(f"class {m} is used before it is defined", **where)
                        members.extend(classes[ref.group(1)])
                    else:
                        members.append(unicodedata.normalize("NFC", m))
                classes[cname] = tuple(dict.fromkeys(members))
            else:
                args = [w for w in words[1:] if w not in ("=", "→", "->")]
                if len(args) != 2:
                    raise RuleTableError("write a mapping as '@map FROM TO' (TO may be ∅)", **where)
                src = unicodedata.normalize("NFC", args[0])
                dst = "" if args[1] == SILENT else unicodedata.normalize("NFC", args[1])
                if src in maps:
                    raise RuleTableError(f"@map {src!r} is given twice (first on line {map_lines[src]})", **where)
                maps[src] = dst
                map_lines[src] = lineno
            continue
        if head.startswith("@") and len(head) > 1 and head[1:].isalpha() and "\t" not in line:
            raise RuleTableError(f"unknown directive {head!r} (known: @class, @map, @lowercase)", **where)
        cells = [c.strip() for c in line.split("\t")]
        if header is None:
            header = [c.lower() for c in cells]
            missing = [c for c in REQUIRED_COLUMNS if c not in header]
            unknown_cols = [c for c in header if c and c not in COLUMNS]
            if missing or unknown_cols:
                hint = ""
                if len(cells) == 1:
                    hint = " (the columns must be separated by tabs; has an editor turned them into spaces?)"
                problem = []
                if missing:
                    problem.append("missing column " + ", ".join(repr(c) for c in missing))
                if unknown_cols:
                    problem.append("unknown column " + ", ".join(repr(c) for c in unknown_cols))
                raise RuleTableError("bad header: " + "; ".join(problem) +
                                     f"; the columns are {', '.join(COLUMNS)}{hint}", **where)
            continue
        if len(cells) > len(header):
            extra = cells[len(header):]
            if any(extra):
                raise RuleTableError(f"{len(cells)} tab-separated cells but the header has {len(header)}", **where)
        row = {h: (cells[i] if i < len(cells) else "") for i, h in enumerate(header)}
        grapheme = unicodedata.normalize("NFC", row["grapheme"])
        if len(grapheme) > 1 and grapheme.startswith("\\"):
            grapheme = grapheme[1:]  # \# is the letter #, since a line starting with # is a comment
        if not grapheme:
            raise RuleTableError("empty grapheme", **where)
        if any(c.isspace() for c in grapheme):
            hint = " (the columns must be separated by tabs, not spaces)" if len(cells) == 1 else ""
            raise RuleTableError(f"grapheme {grapheme!r} contains a space{hint}", **where)
        ipa_cell = row["ipa"]
        if not ipa_cell:
            if len(cells) == 1:
                raise RuleTableError(f"no ipa for {grapheme!r}: the columns must be separated by tabs", **where)
            raise RuleTableError(f"empty ipa for {grapheme!r}; write {SILENT} for a silent letter", **where)
        if ipa_cell == SILENT:
            ipa = ""
        else:
            ipa = _normalise_ipa(ipa_cell)
            try:
                if not ipa_units(ipa):
                    raise RuleTableError(f"ipa {ipa_cell!r} holds no sound; write {SILENT} for a silent letter",
                                         **where)
            except PhonologyError as e:
                raise RuleTableError(f"ipa of {grapheme!r}: {e.problem}", **where) from None
        left_src, right_src = row.get("preceded_by", ""), row.get("followed_by", "")
        key = (grapheme, left_src, right_src)
        if key in seen:
            ctx = "" if not (left_src or right_src) else " in the same context"
            raise RuleTableError(f"a second rule for {grapheme!r}{ctx} (first on line {seen[key]})", **where)
        seen[key] = lineno
        rules.append(Rule(grapheme, ipa, left_src, right_src, row.get("note", ""), lineno,
                          _compile_context(left_src, "left", classes, where),
                          _compile_context(right_src, "right", classes, where)))
    if header is None:
        raise RuleTableError("no header line (grapheme<TAB>ipa<TAB>preceded_by<TAB>followed_by<TAB>note)",
                             path=path)
    if not rules:
        raise RuleTableError("the table has no rules", path=path)
    return RuleTable(name, Path(path) if path is not None else None, tuple(rules), classes, maps, lowercase)


_TABLE_CACHE: dict[str, tuple[tuple[int, int], RuleTable]] = {}
_TABLE_LOCK = threading.Lock()


def _table_path(path_or_name: str | os.PathLike) -> tuple[Path, str]:
    if isinstance(path_or_name, str) and path_or_name in BUILTIN_TABLES:
        return TABLE_DIR / f"{path_or_name}.tsv", path_or_name
    p = Path(path_or_name)
    return p, str(p)


def load_rule_table(path_or_name: str | os.PathLike) -> RuleTable:
    """One of our tables by name, or a user's table file; cached until the file changes."""
    from engine.io.text import read_text

    path, name = _table_path(path_or_name)
    try:
        st = path.stat()
    except FileNotFoundError:
        if isinstance(path_or_name, str) and path_or_name in BUILTIN_TABLES:
            raise InputError(f"the rule table of {name!r} is missing from the installation", path=path) from None
        raise InputError("rule table file not found", path=path) from None
    key = str(path.resolve())
    stamp = (st.st_mtime_ns, st.st_size)
    with _TABLE_LOCK:
        hit = _TABLE_CACHE.get(key)
        if hit is not None and hit[0] == stamp:
            return hit[1]
    table = parse_rule_table(read_text(path), name=name, path=path)
    with _TABLE_LOCK:
        _TABLE_CACHE[key] = (stamp, table)
    return table


# --------------------------------------------------------------------------------------------
# epitran

_EPITRAN_CACHE: dict[str, object] = {}
_EPITRAN_LOCK = threading.Lock()
# epitran backends that need a download or an external program (see dependencies.md §5)
_EPITRAN_UNSUPPORTED = {"eng-Latn", "cmn-Hans", "cmn-Hant", "jpn-Jpan", "yue-Hant"}

# Arabic script: short vowels, tanwin, shadda, sukun etc. are not in the unvocalised maps epitran
# ships (they would pass through untouched), so they are removed, like the tatweel.
_ARABIC_MARKS = {chr(c) for c in range(0x064B, 0x0660)} | {"\u0670", "\u0640"}
# ara-Arab: hamza seats and letters epitran leaves unmapped; ء is turned into ʔ after epitran.
_ARABIC_PRE = {"أ": "ءا", "إ": "ءا", "ٱ": "ا", "ؤ": "ء", "ئ": "ء", "ى": "ا", "ة": "ه"}
_ARABIC_POST = {"ء": "ʔ"}
_TURKIC_PRE = {"İ": "i", "I": "ı"}


def _epitran_map_dir() -> Path | None:
    spec = importlib.util.find_spec("epitran")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "data" / "map"


def epitran_codes() -> list[str]:
    """The epitran codes that work offline here (without importing epitran)."""
    d = _epitran_map_dir()
    if d is None or not d.is_dir():
        return []
    codes = {p.stem for p in d.glob("*.csv") if _EPITRAN_CODE.match(p.stem) and not p.stem.endswith("-rev")}
    return sorted(codes - _EPITRAN_UNSUPPORTED)


def _missing_data_message(code: str, error: Exception, missing: Path | None = None) -> str:
    """One line for an epitran whose data files are absent (a broken install or app bundle)."""
    what = getattr(error, "filename", None) or missing or error
    return (f"epitran cannot read its data files for {code!r} (missing: {what}); the installation is "
            "incomplete: reinstall epitran (pip install --force-reinstall epitran), or rebuild the "
            "application bundle with its data files (packaging/README.md)")


def get_epitran(code: str):
    """The epitran.Epitran for ``code``, built once (each takes about a second) and then shared."""
    with _EPITRAN_LOCK:
        epi = _EPITRAN_CACHE.get(code)
        if epi is not None:
            return epi
        if code in _EPITRAN_UNSUPPORTED:
            raise InputError(f"epitran {code!r} needs a download or an external program and is not supported "
                             "here; use a rule table instead")
        try:
            # importing epitran also reads jamo's JSON and panphon's CSV tables
            import epitran  # noqa: PLC0415 (slow import, only when needed)
        except ImportError:
            raise InputError(f"{code!r} needs the epitran package, which is not installed") from None
        except OSError as e:
            raise InputError(_missing_data_message(code, e)) from None
        try:
            epi = epitran.Epitran(code)
        except OSError as e:  # a data file of epitran, panphon or jamo is not where it should be
            raise InputError(_missing_data_message(code, e)) from None
        except Exception as e:  # epitran raises DatafileError, KeyError … for codes it does not know
            map_dir = _epitran_map_dir()
            if map_dir is None or not any(map_dir.glob("*.csv")):
                raise InputError(_missing_data_message(code, e, missing=map_dir)) from None
            ours = ", ".join(BUILTIN_TABLES)
            raise InputError(f"epitran has no usable map for {code!r} ({type(e).__name__}: {e}); "
                             f"our own tables are {ours}") from None
        _EPITRAN_CACHE[code] = epi
        return epi


def _epitran_prepare(word: str, code: str) -> str:
    s = unicodedata.normalize("NFC", word)
    if code.startswith("ara-"):
        s = "".join(_ARABIC_PRE.get(c, c) for c in s)
    if code.endswith("-Arab") or "-Arab-" in code:
        s = unicodedata.normalize("NFC", "".join(c for c in unicodedata.normalize("NFD", s)
                                                 if c not in _ARABIC_MARKS))
    if code.startswith(("tur-", "aze-Latn")):
        s = "".join(_TURKIC_PRE.get(c, c) for c in s)
    return s


def _transcribe_epitran(word: str, code: str, *, path=None, line=None) -> str:
    if not word or not word.strip():
        raise TranscriptionError(word, code, problem="the word is empty", path=path, line=line)
    epi = get_epitran(code)
    out = epi.transliterate(_epitran_prepare(word, code))
    if code.startswith("ara-"):
        out = "".join(_ARABIC_POST.get(c, c) for c in out)
    out = unicodedata.normalize("NFC", " ".join(out.split()))
    if not out:
        raise TranscriptionError(word, code, problem="epitran returned nothing", path=path, line=line)
    _check_output(out, word, code, path=path, line=line)
    return out


# --------------------------------------------------------------------------------------------
# checks shared by both kinds of system


def _rejected_symbols(ipa: str) -> list[str]:
    bad = []
    for ch in dict.fromkeys(ipa):
        try:
            ipa_units("a" + ch)
        except PhonologyError:
            bad.append(ch)
    return bad


def _check_output(ipa: str, word: str, system: str, *, path=None, line=None) -> None:
    try:
        units = ipa_units(ipa, source=f"{system} transcription of {word!r}", path=path, line=line)
    except PhonologyError as e:
        bad = _rejected_symbols(ipa)
        if bad:
            raise TranscriptionError(word, system, bad, problem=(
                "left " + ", ".join(describe_char(c) for c in bad) + f" in the output {ipa!r}, which is not IPA"
                " (an unknown character in the word, or one the system does not map)"),
                path=path, line=line) from None
        raise TranscriptionError(word, system, problem=f"the output {ipa!r} is not valid IPA: {e.problem}",
                                 path=path, line=line) from None
    if not units:
        raise TranscriptionError(word, system, problem=f"the output {ipa!r} holds no sound", path=path, line=line)


# --------------------------------------------------------------------------------------------
# the public entry points


def _looks_like_path(system: str) -> bool:
    return ("/" in system or os.sep in system or system.lower().endswith((".tsv", ".txt", ".tab"))
            or Path(system).is_file())


def transcriber(system: str | os.PathLike | RuleTable) -> Callable[..., str]:
    """Resolve ``system`` once; the returned ``f(word, *, path=None, line=None) -> str`` transcribes."""
    if isinstance(system, RuleTable):
        return system.transcribe
    if isinstance(system, os.PathLike):
        return load_rule_table(system).transcribe
    if not isinstance(system, str) or not system.strip():
        raise InputError(f"no transcription system given ({system!r})")
    if system in BUILTIN_TABLES:
        load_rule_table(system)  # fail now if the table is broken

        def by_table(word: str, *, path=None, line=None) -> str:
            return load_rule_table(system).transcribe(word, path=path, line=line)
        return by_table
    if _EPITRAN_CODE.match(system):
        get_epitran(system)

        def by_epitran(word: str, *, path=None, line=None) -> str:
            return _transcribe_epitran(word, system, path=path, line=line)
        return by_epitran
    if _looks_like_path(system):
        load_rule_table(system)

        def by_file(word: str, *, path=None, line=None) -> str:
            return load_rule_table(system).transcribe(word, path=path, line=line)
        return by_file
    raise InputError(f"unknown transcription system {system!r}: use one of {', '.join(BUILTIN_TABLES)}, "
                     "an epitran code such as 'spa-Latn', or the path of a rule-table file (.tsv)")


def transcribe(word: str, system: str | os.PathLike | RuleTable, *, path: str | Path | None = None,
               line: int | None = None) -> str:
    """The IPA of ``word`` in ``system``; raises TranscriptionError naming every unknown character.

    ``path``/``line`` say where the word came from, so the error can name them.
    """
    if isinstance(system, str) and system in BUILTIN_TABLES:
        return load_rule_table(system).transcribe(word, path=path, line=line)
    if isinstance(system, str) and _EPITRAN_CODE.match(system):
        return _transcribe_epitran(word, system, path=path, line=line)
    return transcriber(system)(word, path=path, line=line)


def available_systems() -> list[str]:
    """Our rule tables first, then every epitran code that works offline."""
    return list(BUILTIN_TABLES) + epitran_codes()


__all__ = [
    "BUILTIN_TABLES", "Rule", "RuleTable", "RuleTableError", "TABLE_DIR", "TranscriptionError",
    "available_systems", "describe_char", "epitran_codes", "get_epitran", "load_rule_table",
    "parse_rule_table", "transcribe", "transcriber",
]
