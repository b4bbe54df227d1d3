"""Pinned values in the project file: the project's pins (a mixin of
:class:`~engine.project.store.Project`, which gives ``conn``, ``path``, ``transaction`` and ``_stamp``)
and each run's pin history (the pins in force from each step on, table ``run_pins``)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from engine.corpus import PinnedValue
from engine.errors import ProjectError
from engine.project.liveness import now_iso
from engine.project.locking import locked
from engine.project.records import PinRecord, pins_from_json


class PinsMixin:
    """The project's pins: what every run starts from and the app's pin grid edits."""

    # ---- pinned values -------------------------------------------------------------------

    @locked
    def pins(self) -> list[PinnedValue]:
        return [r.pin for r in self.pin_records()]

    @locked
    def pin_records(self) -> list[PinRecord]:
        rows = self.conn.execute("SELECT lost, known_ipa, weight, locked, note, created_at, "
                                 "updated_at FROM pin ORDER BY rowid")
        return [PinRecord(PinnedValue(lo, k, w, bool(lk), n), c, u) for lo, k, w, lk, n, c, u in rows]

    @locked
    def set_pin(self, pin: PinnedValue) -> None:
        """Add a pin, or update the one with the same (lost, known_ipa) (keeps its created time)."""
        self._check_pin(pin)
        with self.transaction():
            self._upsert_pin(pin, self._stamp())

    @locked
    def set_pins(self, pins: Iterable[PinnedValue]) -> int:
        """Add or update several pins in one transaction; returns how many."""
        items = list(pins)
        for p in items:
            self._check_pin(p)
        stamp = self._stamp()
        with self.transaction():
            for p in items:
                self._upsert_pin(p, stamp)
        return len(items)

    @locked
    def remove_pin(self, lost: str, known_ipa: str) -> bool:
        """Delete a pin; returns whether there was one."""
        with self.transaction():
            cur = self.conn.execute("DELETE FROM pin WHERE lost = ? AND known_ipa = ?", (lost, known_ipa))
        return cur.rowcount > 0

    @locked
    def replace_pins(self, pins: Iterable[PinnedValue]) -> None:
        """Make the project's pins exactly these (created times of pins kept are kept)."""
        items = list(pins)
        keys = set()
        for p in items:
            self._check_pin(p)
            if (p.lost, p.known_ipa) in keys:
                raise ProjectError(f"pin {p.lost} -> {p.known_ipa} given twice")
            keys.add((p.lost, p.known_ipa))
        stamp = self._stamp()
        with self.transaction():
            created = {(lo, k): c for lo, k, c in self.conn.execute(
                "SELECT lost, known_ipa, created_at FROM pin")}
            self.conn.execute("DELETE FROM pin")
            for p in items:
                self.conn.execute(
                    "INSERT INTO pin (lost, known_ipa, weight, locked, note, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (p.lost, p.known_ipa, float(p.weight), int(bool(p.locked)), p.note or "",
                     created.get((p.lost, p.known_ipa), stamp), stamp))

    def _check_pin(self, p: PinnedValue) -> None:
        if not p.lost or not p.known_ipa:
            raise ProjectError(f"a pin needs a lost letter and a known IPA unit, got "
                               f"{p.lost!r} -> {p.known_ipa!r}")
        if not (isinstance(p.weight, (int, float)) and p.weight > 0):
            raise ProjectError(f"pin {p.lost} -> {p.known_ipa}: weight must be positive, not {p.weight!r}")

    def _upsert_pin(self, p: PinnedValue, stamp: str) -> None:
        self.conn.execute(
            "INSERT INTO pin (lost, known_ipa, weight, locked, note, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (lost, known_ipa) DO UPDATE SET "
            "weight = excluded.weight, locked = excluded.locked, note = excluded.note, "
            "updated_at = excluded.updated_at",
            (p.lost, p.known_ipa, float(p.weight), int(bool(p.locked)), p.note or "", stamp, stamp))


# ---------------------------------------------------------------------------------------------
# a run's pin history


@dataclass(frozen=True)
class PinChange:
    """The pins in force for a run's steps after ``step`` (until the next change)."""

    step: int
    pins: tuple[PinnedValue, ...]
    at: str = ""

    def to_json(self) -> dict:
        return {"step": self.step, "pins": [pin_json(p) for p in self.pins]}


def pin_json(p: PinnedValue) -> dict:
    return {"lost": p.lost, "known_ipa": p.known_ipa, "weight": p.weight, "locked": p.locked, "note": p.note}


def run_pins_text(pins: Sequence[PinnedValue]) -> str:
    return json.dumps([[p.lost, p.known_ipa, p.weight, p.locked, p.note] for p in pins], ensure_ascii=False)


def run_pins_of(text: str, path: Path | str = "the project", row: object = "?") -> tuple[PinnedValue, ...]:
    return pins_from_json(path, "run_pins", row, "pins", text or "[]")


def record_pins(project, run_id: int, step: int, pins: Sequence[PinnedValue]) -> None:
    """Record that the run uses ``pins`` for its steps after ``step`` (a pin change is an event)."""
    try:
        with project.transaction():
            project.conn.execute(
                "INSERT INTO run_pins (run_id, step, pins, changed_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (run_id, step) DO UPDATE SET pins = excluded.pins, changed_at = excluded.changed_at",
                (run_id, int(step), run_pins_text(pins), now_iso()))
    except sqlite3.Error as e:
        raise ProjectError(f"{project.path}: cannot record the pins of run {run_id} ({e})") from None


def pin_history(project, run_id: int) -> list[PinChange]:
    """The run's pin changes in step order; a run recorded without history has its start pins."""
    try:
        rows = project.conn.execute("SELECT step, pins, changed_at FROM run_pins WHERE run_id = ? "
                                    "ORDER BY step", (run_id,)).fetchall()
    except sqlite3.Error as e:
        raise ProjectError(f"{project.path}: cannot read the pins of run {run_id} ({e})") from None
    if rows:
        return [PinChange(s, run_pins_of(p, project.path, f"run {run_id} step {s}"), at) for s, p, at in rows]
    run = project.run(run_id)
    return [PinChange(0, tuple(run.pins), run.started_at)]
