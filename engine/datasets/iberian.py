"""The Iberian lost text (Hesperia, as cleaned by Luo et al. 2021) as a LOST CSV, for closeness.

``decipher dataset iberian --out DIR`` reads ``iberian/iberian.csv`` of the shared data (columns
``REF. HESPERIA`` and ``cleaned``, a list of an inscription's text lines written as a Python list
literal, which is parsed here by a strict reader, never evaluated) and writes ``DIR/lost.csv``
(``id,text,raw,reference``) and ``DIR/stats.json``. What a line becomes (docs/datasets.md, "Iberian"):

* ``:`` and spaces are the scribe's word dividers: one space each;
* a lost or unreadable sign (``-``, ``+``, ``?`` …) or anything that is not a letter of the
  transliteration (numerals and metrological signs written in capitals, stray Greek letters) ends a
  *fragment*: the letters on either side were not written next to each other as far as we know, so
  each fragment is its own chunk (id ``REF:line`` or ``REF:line.k`` for the k-th fragment);
* the acute accents of the dual-system transliteration (á é í ó ú) and ŕ ś ḿ ń are letters of their own.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from engine.errors import DecipherError, InputError

DEFAULT_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
SOURCE = "iberian/iberian.csv"
#: The letters of the (Levantine and southern) Iberian transliteration the cleaned texts use.
LETTERS = frozenset("abdefgiklmnorstuvcáéíóúŕśḿń")


def parse_list_literal(text: str) -> list[str]:
    """``['abc', 'de:f']`` -> the strings. Only single- or double-quoted items without escapes,
    separated by commas: anything else raises ValueError (the file is data, not code)."""
    s = text.strip()
    if not (s.startswith("[") and s.endswith("]")):
        raise ValueError("not a [...] list")
    items, i, body = [], 0, s[1:-1]
    while True:
        while i < len(body) and body[i] == " ":
            i += 1
        if i == len(body):
            if items and body.rstrip().endswith(","):
                raise ValueError("a trailing comma")
            return items
        quote = body[i]
        if quote not in "'\"":
            raise ValueError(f"expected a quoted string at character {i + 2}")
        end = body.find(quote, i + 1)
        if end < 0:
            raise ValueError(f"a string that is not closed (from character {i + 2})")
        item = body[i + 1:end]
        if "\\" in item:
            raise ValueError("escapes are not supported")
        items.append(item)
        i = end + 1
        while i < len(body) and body[i] == " ":
            i += 1
        if i < len(body):
            if body[i] != ",":
                raise ValueError(f"expected ',' at character {i + 2}")
            i += 1


def fragments(line: str) -> list[str]:
    """One cleaned text line -> its fragments: letters and single spaces (word dividers)."""
    out, current = [], []
    for ch in unicodedata.normalize("NFC", line):
        if ch in LETTERS:
            current.append(ch)
        elif ch in ": ":
            if current and current[-1] != " ":
                current.append(" ")
        else:  # a lost, unreadable or foreign sign: the fragment ends here
            out.append("".join(current).strip())
            current = []
    out.append("".join(current).strip())
    return [f for f in out if f]


@dataclass
class IberianText:
    rows: list[tuple[str, str, str, str]] = field(default_factory=list)
    """(id, text, raw, reference) per chunk"""
    stats: Counter = field(default_factory=Counter)

    def describe(self) -> str:
        s = self.stats
        return (f"{s['inscriptions']} inscriptions, {s['lines']} lines ({s['empty_lines']} without a letter) "
                f"-> {len(self.rows)} chunks, {s['letters']} letters, {s['word_dividers']} word dividers; "
                f"{s['breaks']} breaks at lost or foreign signs")


def build(source: Path) -> IberianText:
    """Read the cleaned Hesperia CSV at ``source``; errors name the file and line."""
    out = IberianText()
    try:
        handle = open(source, encoding="utf-8", newline="")
    except OSError as e:
        raise DecipherError(f"{source}: cannot read ({e.strerror or e})") from None
    with handle:
        reader = csv.DictReader(handle)
        missing = {"REF. HESPERIA", "cleaned"} - set(reader.fieldnames or ())
        if missing:
            raise InputError(f"{source}: missing column(s) {', '.join(sorted(missing))}")
        seen: set[str] = set()
        for row in reader:
            line_no = reader.line_num
            ref = unicodedata.normalize("NFC", (row["REF. HESPERIA"] or "").strip())
            if not ref:
                raise InputError(f"{source}, line {line_no}: empty REF. HESPERIA")
            if ref in seen:
                raise InputError(f"{source}, line {line_no}: inscription {ref!r} is listed twice")
            seen.add(ref)
            try:
                lines = parse_list_literal(row["cleaned"] or "")
            except ValueError as e:
                raise InputError(f"{source}, line {line_no}: the 'cleaned' cell of {ref} is not a list of "
                                 f"quoted lines: {e}") from None
            out.stats["inscriptions"] += 1
            for n, text_line in enumerate(lines, 1):
                out.stats["lines"] += 1
                parts = fragments(text_line)
                if not parts:
                    out.stats["empty_lines"] += 1
                    continue
                out.stats["breaks"] += len(parts) - 1
                for k, part in enumerate(parts, 1):
                    cid = f"{ref}:{n}" if len(parts) == 1 else f"{ref}:{n}.{k}"
                    out.rows.append((cid, part, text_line, ref))
                    out.stats["letters"] += len(part.replace(" ", ""))
                    out.stats["word_dividers"] += part.count(" ")
    if not out.rows:
        raise InputError(f"{source}: no inscription with a letter")
    return out


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="decipher dataset iberian",
                                description="Build the Iberian lost text (LOST CSV) from the cleaned Hesperia "
                                            "inscriptions of the shared data.")
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    p.add_argument("--source", type=Path, help=f"the cleaned CSV, instead of DATA/{SOURCE}")
    p.add_argument("--out", type=Path, required=True, help="the folder for lost.csv and stats.json")
    p.add_argument("--force", action="store_true", help="replace the files of an earlier build in --out")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    from engine.io.atomic import FORCE_HINT, check_new, write_csv, write_text

    args = parser().parse_args(argv)
    source = args.source or args.data / SOURCE
    try:
        check_new([args.out / "lost.csv", args.out / "stats.json"], force=args.force, hint=FORCE_HINT)
        built = build(source)
        args.out.mkdir(parents=True, exist_ok=True)
        write_csv(args.out / "lost.csv", ("id", "text", "raw", "reference"), built.rows, replace=args.force)
        stats = {"source": str(source), "chunks": len(built.rows), **dict(sorted(built.stats.items()))}
        write_text(args.out / "stats.json", json.dumps(stats, indent=2, ensure_ascii=False) + "\n",
                   replace=args.force)
    except DecipherError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(built.describe() + f" -> {args.out / 'lost.csv'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
