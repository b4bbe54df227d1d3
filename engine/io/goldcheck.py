"""Gold rows that name a known form no stem has: such a row can never be matched, so it lowers
P@k without a word unless the user is told (a GOLD file in another spelling, a typo, a stem
left out of the vocabulary)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from engine.corpus import GoldAnnotation, nfc

#: How many missing forms one warning names before "…".
SHOWN = 5


@dataclass(frozen=True)
class MissingGoldForm:
    """A known form a gold row names that no stem has (``line``: the row's line, when known)."""

    inscription_id: str
    start: int
    word_end: int
    form: str
    line: int | None = None


def missing_gold_forms(gold: Sequence[GoldAnnotation], forms: Iterable[str], *,
                       lines: Sequence[int] | None = None) -> list[MissingGoldForm]:
    """Every (gold row, known form) whose form is not among ``forms`` (compared after NFC)."""
    have = {nfc(f) for f in forms}
    out = []
    for i, g in enumerate(gold):
        for form in g.known:
            if nfc(form) not in have:
                line = lines[i] if lines is not None and i < len(lines) else None
                out.append(MissingGoldForm(g.inscription_id, g.start, g.word_end, form, line))
    return out


def gold_warning(missing: Sequence[MissingGoldForm], *, rows: int, path: str | Path | None = None,
                 vocabulary: str = "the vocabulary") -> str | None:
    """One line saying which gold forms no stem of ``vocabulary`` has, or None when all are there.
    ``rows`` is how many gold rows were checked."""
    if not missing:
        return None
    unmatched_rows = len({(m.inscription_id, m.start, m.word_end) for m in missing})
    shown = ", ".join(f"{m.form!r} ({f'line {m.line}' if m.line is not None else m.inscription_id})"
                      for m in missing[:SHOWN])
    more = f" and {len(missing) - SHOWN} more" if len(missing) > SHOWN else ""
    where = f"{path}: " if path is not None else ""
    return (f"{where}{len(missing)} known form{'s' if len(missing) != 1 else ''} named by "
            f"{unmatched_rows} of {rows} gold rows {'are' if len(missing) != 1 else 'is'} not a stem "
            f"of {vocabulary}: {shown}{more}; those rows cannot be matched")


def check_gold(gold: Sequence[GoldAnnotation], forms: Iterable[str], *, path: str | Path | None = None,
               vocabulary: str = "the vocabulary", lines: Sequence[int] | None = None) -> list[str]:
    """The warnings (zero or one line) for gold rows naming forms that are not in ``forms``."""
    if lines is None:
        lines = getattr(gold, "lines", None)
    warning = gold_warning(missing_gold_forms(gold, forms, lines=lines), rows=len(gold), path=path,
                           vocabulary=vocabulary)
    return [warning] if warning else []


__all__ = ["MissingGoldForm", "check_gold", "gold_warning", "missing_gold_forms"]
