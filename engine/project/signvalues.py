"""Sign values: for each lost sign, its best sounds (IPA) with their learned probabilities and
the pins on it, as a list for people and as CSV (``decipher project export P --sign-values OUT``).

``probability`` is the model's P(sign | /sound/) (what the pin grid shades); ``share`` is that
value normalised over the sign's sounds, i.e. P(/sound/ | sign) if every sound were equally
common: the "how sure is the reading of this sign" number a philologist asks for.

A syllable run (setting ``signs = syllables``) learned P(sound | sign) itself, for the sign's onset
and its vowel: its values are per slot (:data:`SYLLABLE_COLUMNS`), ranked by that probability.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np


from engine.corpus import DIVIDER, PinnedValue
from engine.io.display import DisplayTable, table_for
from engine.errors import ProjectError
from engine.model.phonology import DELETE
from engine.results import MappingSnapshot, SyllableTable

COLUMNS = ("sign", "shown", "rank", "ipa", "probability", "share", "pinned", "weight", "note", "run_id", "unstable")
SYLLABLE_COLUMNS = ("sign", "shown", "slot", "rank", "ipa", "probability", "pinned", "weight", "note", "run_id",
                    "unstable")
"""A syllable run's sign values (setting ``signs = syllables``): ``slot`` is ``onset`` or ``vowel``,
``probability`` is P(sound | sign) of that slot (``∅`` the onset "none"), and ranks count per slot."""


@dataclass(frozen=True)
class SignValue:
    sign: str                   # the engine's letter
    shown: str                  # as the corpus's display table shows it
    rank: int                   # 1 = the best sound of this sign
    ipa: str
    probability: float | None   # P(sign | /ipa/); None without a learned mapping
    share: float | None         # probability normalised over the sign's sounds
    pinned: str                 # "locked", "soft" or ""
    weight: float | None = None
    note: str = ""


#: why the run's diagnosis (engine/training/diagnosis.py) doubts a sign's value, per finding code
UNSTABLE_WHY = {"class": "read against its vowel/consonant class in the text",
                "polish": "moved by the swap search after training",
                "objective": "other runs of the same data disagree",
                "seeds": "most other runs of the same data and settings read it otherwise"}


def unstable_signs(project, run_id: int | None) -> dict[str, str]:
    """Sign -> why the run's gold-free diagnosis doubts its value (the ``unstable`` column), from
    the diagnosis stored with the run (compared with the project's runs of the same inputs and
    settings); {} for a run without a diagnosis (older files) or without doubts."""
    if run_id is None:
        return {}
    from engine.project.recording import compared_diagnoses
    from engine.training.diagnosis import diagnosis_from

    diagnosis = diagnosis_from(compared_diagnoses(project).get(run_id))
    if diagnosis is None:
        return {}
    return {sign: "; ".join(UNSTABLE_WHY.get(code.strip(), code.strip()) for code in codes.split(","))
            for sign, codes in diagnosis.unstable_letters().items()}


def recorded_mapping(project, run_id: int | None) -> MappingSnapshot | None:
    """The last character mapping recorded for a run (None when the run kept none)."""
    if run_id is None:
        return None
    from engine.project.recording import mapping_of

    return mapping_of(project, run_id)


def newest_run_with_mapping(project) -> int | None:
    """The run whose sign values an export without a run writes: the newest that kept a mapping."""
    return next((run.id for run in reversed(project.runs()) if recorded_mapping(project, run.id) is not None), None)


def sign_values(mapping: MappingSnapshot | None, pins: Sequence[PinnedValue], *, signs: Sequence[str] = (),
                top: int = 3, display: DisplayTable | None = None) -> list[SignValue]:
    """Each sign's ``top`` sounds by learned probability, and every pinned sound of it (pins first
    when nothing is learned). Signs: ``signs`` plus those of the mapping and the pins, in order."""
    display = display or DisplayTable()
    order: list[str] = []
    for s in list(signs) + (list(mapping.lost) if mapping is not None else []) + [p.lost for p in pins]:
        if s not in order and s not in (DELETE, DIVIDER):
            order.append(s)
    pins_of: dict[str, list[PinnedValue]] = {}
    for p in pins:
        pins_of.setdefault(p.lost, []).append(p)
    out: list[SignValue] = []
    for sign in order:
        learned: list[tuple[str, float]] = []
        total = 0.0
        if mapping is not None and sign in mapping.lost:
            col = mapping.probs[:, mapping.lost.index(sign)]
            units = [(mapping.known[i], float(col[i])) for i in range(len(mapping.known))
                     if mapping.known[i] != DELETE and math.isfinite(float(col[i]))]
            total = sum(p for _, p in units)
            learned = sorted(units, key=lambda t: -t[1])
        prob = dict(learned)
        chosen = [ipa for ipa, _ in learned[:top]]
        for p in pins_of.get(sign, []):
            if p.known_ipa not in chosen:
                chosen.append(p.known_ipa)
        if not learned:  # nothing learned: the pins, in the order they were set
            chosen = [p.known_ipa for p in pins_of.get(sign, [])]
        by_pin = {p.known_ipa: p for p in pins_of.get(sign, [])}
        for rank, ipa in enumerate(chosen, 1):
            p = prob.get(ipa)
            pin = by_pin.get(ipa)
            out.append(SignValue(sign, display.show(sign), rank, ipa, p,
                                 None if p is None or total <= 0 else p / total,
                                 "" if pin is None else ("locked" if pin.locked else "soft"),
                                 None if pin is None else pin.weight, "" if pin is None else pin.note))
    return out


@dataclass(frozen=True)
class SlotValue:
    sign: str
    shown: str
    slot: str                   # "onset" or "vowel"; "" for a pin that names neither (a letter pin)
    rank: int                   # 1 = the best sound of this slot of this sign
    ipa: str
    probability: float | None   # P(/ipa/ | sign) for the slot; None when not learned
    pinned: str                 # "locked", "soft" or ""
    weight: float | None = None
    note: str = ""


def pin_slots(pin: PinnedValue) -> tuple[tuple[str, str], ...]:
    """The (slot, sound) pairs a pin names: ``ka`` → onset k and vowel a, ``a`` → onset ∅ (none)
    and vowel a, ``k-`` → onset k, ``-a`` → vowel a; () for a value that is not a syllable."""
    from engine.errors import InputError
    from engine.model.syllables import parse_syllable_value

    try:
        value = parse_syllable_value(pin.known_ipa)
    except InputError:
        return ()
    return tuple((slot, unit) for slot, unit in (("onset", value.onset), ("vowel", value.vowel)) if unit is not None)


def syllable_values(table: SyllableTable, pins: Sequence[PinnedValue], *, signs: Sequence[str] = (),
                    top: int = 3, display: DisplayTable | None = None) -> list[SlotValue]:
    """Each sign's ``top`` onsets and ``top`` vowels ranked by P(sound | sign), and every sound a
    pin names for it (after them, marked); a pin that is no syllable gets a row of its own with
    an empty slot. Signs: ``signs``, then the table's and the pins', in order."""
    display = display or DisplayTable()
    order: list[str] = []
    for s in list(signs) + list(table.signs) + [p.lost for p in pins]:
        if s not in order and s not in (DELETE, DIVIDER):
            order.append(s)
    pins_of: dict[str, list[PinnedValue]] = {}
    for p in pins:
        pins_of.setdefault(p.lost, []).append(p)
    out: list[SlotValue] = []
    for sign in order:
        learned = {"onset": [], "vowel": []}
        if sign in table.signs:
            i = table.signs.index(sign)
            for slot, units, probs in (("onset", table.onsets, table.onset_probs[i]),
                                       ("vowel", table.vowels, table.vowel_probs[i])):
                learned[slot] = sorted(((u, float(p)) for u, p in zip(units, probs) if math.isfinite(float(p))),
                                       key=lambda t: -t[1])
        by_pin: dict[tuple[str, str], PinnedValue] = {}
        others: list[PinnedValue] = []
        for p in pins_of.get(sign, []):
            slots = pin_slots(p)
            for key in slots:
                by_pin.setdefault(key, p)
            if not slots:
                others.append(p)
        for slot in ("onset", "vowel"):
            prob = dict(learned[slot])
            chosen = [u for u, _ in learned[slot][:top]]
            chosen += [u for (s, u) in by_pin if s == slot and u not in chosen]
            for rank, unit in enumerate(chosen, 1):
                pin = by_pin.get((slot, unit))
                out.append(SlotValue(sign, display.show(sign), slot, rank, unit, prob.get(unit),
                                     "" if pin is None else ("locked" if pin.locked else "soft"),
                                     None if pin is None else pin.weight, "" if pin is None else pin.note))
        for pin in others:
            out.append(SlotValue(sign, display.show(sign), "", 1, pin.known_ipa, None,
                                 "locked" if pin.locked else "soft", pin.weight, pin.note))
    return out


def export_sign_values(project, path: str | Path, *, run_id: int | None = None,
                       mapping: MappingSnapshot | None = None, top: int = 3, delimiter: str | None = None,
                       bom: bool = False, guard_formulas: bool = True) -> int:
    """Write the sign values of a run (default: the newest with a mapping, else the pins alone);
    returns the number of rows (a ``Written``, with ``guarded``: the cells the formula guard
    changed). A report for people, so the formula guard is on unless ``guard_formulas=False``."""
    from engine.io.atomic import Written, write_csv
    from engine.io.tables import sniff_delimiter

    path = Path(path)
    if run_id is None and mapping is None:
        run_id = newest_run_with_mapping(project)
        mapping = None if run_id is None else recorded_mapping(project, run_id)
    elif mapping is None:
        mapping = recorded_mapping(project, run_id)
    corpus_id = None
    signs: list[str] = []
    if run_id is not None:
        try:
            corpus_id = project.run(run_id).corpus_id
        except Exception as exc:  # noqa: BLE001 - a missing run is the user's error
            raise ProjectError(f"no run {run_id} in {project.path}") from exc
    elif project.corpora():
        corpus_id = project.corpora()[0].id
    if corpus_id is not None:
        signs = sorted({u for ins in project.inscriptions(corpus_id) for u in ins.units if u != DIVIDER})
    unstable = unstable_signs(project, run_id)
    if mapping is not None and mapping.syllables is not None:     # a syllable run: per slot
        slots = syllable_values(mapping.syllables, project.pins(), signs=signs, top=top,
                                display=table_for(project, corpus_id))
        rows = ([v.sign, v.shown, v.slot, v.rank, v.ipa, "" if v.probability is None else float(v.probability),
                 v.pinned, "" if v.weight is None else float(v.weight), v.note, run_id, unstable.get(v.sign, "")]
                for v in slots)
        guarded = write_csv(path, SYLLABLE_COLUMNS, rows, delimiter=sniff_delimiter(path, delimiter), bom=bom,
                            guard_formulas=guard_formulas)
        return Written(len(slots), guarded)
    values = sign_values(mapping, project.pins(), signs=signs, top=top, display=table_for(project, corpus_id))
    rows = ([v.sign, v.shown, v.rank, v.ipa, "" if v.probability is None else float(v.probability),
             "" if v.share is None else float(v.share), v.pinned, "" if v.weight is None else float(v.weight),
             v.note, "" if run_id is None else run_id, unstable.get(v.sign, "")] for v in values)
    guarded = write_csv(path, COLUMNS, rows, delimiter=sniff_delimiter(path, delimiter), bom=bom,
                        guard_formulas=guard_formulas)
    return Written(len(values), guarded)


# ---------------------------------------------------------------------------------------------
# the learned grid of a syllabary: onset rows × vowel columns


@dataclass(frozen=True)
class GridSign:
    """A sign in the cell of its top-1 onset and top-1 vowel."""

    sign: str
    shown: str
    onset: str
    vowel: str
    confidence: float           # P(onset | sign) · P(vowel | sign) of that cell
    pinned: str                 # "locked", "soft" or "" (the strongest of the sign's pins)
    pin_value: str              # the pinned value(s) as written (ka, k-, -a), "; "-joined
    onsets: tuple[tuple[str, float], ...]   # the sign's best onsets with P(onset | sign)
    vowels: tuple[tuple[str, float], ...]   # the sign's best vowels with P(vowel | sign)

    def describe(self) -> str:
        """One line for a tooltip: the sign's best alternatives and its pin."""
        on = ", ".join(f"{u} {p:.0%}" for u, p in self.onsets)
        vo = ", ".join(f"{u} {p:.0%}" for u, p in self.vowels)
        pin = f"; pinned {self.pin_value} ({self.pinned})" if self.pinned else ""
        return f"{self.shown}: onset {on}; vowel {vo}; cell {self.confidence:.0%}{pin}"


@dataclass(frozen=True)
class SyllableGrid:
    onsets: tuple[str, ...]     # the rows: the table's onsets (NULL_ONSET ∅ last)
    vowels: tuple[str, ...]     # the columns
    cells: dict                 # (onset, vowel) -> tuple of GridSign, most confident first

    def at(self, onset: str, vowel: str) -> tuple[GridSign, ...]:
        return self.cells.get((onset, vowel), ())

    def signs(self) -> list[GridSign]:
        return [g for cell in self.cells.values() for g in cell]


def syllable_grid(table: SyllableTable, pins: Sequence[PinnedValue] = (), *, display: DisplayTable | None = None,
                  top: int = 3) -> SyllableGrid:
    """Each sign of ``table`` in the cell of its best onset and best vowel (by P(sound | sign)),
    with the cell's confidence P(onset | sign)·P(vowel | sign), its ``top`` alternatives per slot
    and its pins. Rows: the consonants in the table's order, then the vowels a sign takes as its
    onset (a glide, engine/model/syllable_mapping.py) only where some sign sits, then ∅ (no
    onset); ties go to the first."""
    from engine.model.syllables import NULL_ONSET, is_vowel

    display = display or DisplayTable()
    pins_of: dict[str, list[PinnedValue]] = {}
    for p in pins:
        pins_of.setdefault(p.lost, []).append(p)
    cells: dict[tuple[str, str], list[GridSign]] = {}
    for i, sign in enumerate(table.signs):
        if sign in (DELETE, DIVIDER):
            continue
        on, vo = table.best(sign, top)
        o, v = int(np.argmax(table.onset_probs[i])), int(np.argmax(table.vowel_probs[i]))
        conf = float(table.onset_probs[i, o]) * float(table.vowel_probs[i, v])
        mine = pins_of.get(sign, [])
        pinned = "" if not mine else ("locked" if any(p.locked for p in mine) else "soft")
        g = GridSign(sign, display.show(sign), table.onsets[o], table.vowels[v], conf, pinned,
                     "; ".join(p.known_ipa for p in mine), tuple(on), tuple(vo))
        cells.setdefault((g.onset, g.vowel), []).append(g)
    used = {o for o, _ in cells}
    onsets = (tuple(u for u in table.onsets if u != NULL_ONSET and not is_vowel(u))
              + tuple(u for u in table.onsets if u != NULL_ONSET and is_vowel(u) and u in used)
              + tuple(u for u in table.onsets if u == NULL_ONSET))
    return SyllableGrid(onsets, tuple(table.vowels),
                        {k: tuple(sorted(c, key=lambda g: -g.confidence)) for k, c in cells.items()})


GRID_PIN_MARK = "•"


def grid_rows(grid: SyllableGrid) -> list[list[str]]:
    """The grid as a table for CSV: a header (``onset`` then the vowels) and one row per onset;
    a cell lists its signs as shown, most confident first, each with its confidence in percent
    and ``•`` before a pinned sign (``𐀏 81%; •𐀐 52%``)."""
    rows = [["onset"] + list(grid.vowels)]
    for onset in grid.onsets:
        rows.append([onset] + ["; ".join(f"{GRID_PIN_MARK if g.pinned else ''}{g.shown} {g.confidence:.0%}"
                                         for g in grid.at(onset, vowel)) for vowel in grid.vowels])
    return rows


def export_syllable_grid(grid: SyllableGrid, path: str | Path, *, delimiter: str | None = None,
                         bom: bool = False, guard_formulas: bool = True) -> int:
    """Write ``grid`` as CSV/TSV (:func:`grid_rows`); returns the number of onset rows."""
    from engine.io.atomic import Written, write_csv
    from engine.io.tables import sniff_delimiter

    path = Path(path)
    rows = grid_rows(grid)
    guarded = write_csv(path, tuple(rows[0]), rows[1:], delimiter=sniff_delimiter(path, delimiter), bom=bom,
                        guard_formulas=guard_formulas)
    return Written(len(rows) - 1, guarded)
