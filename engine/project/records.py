"""The frozen records the project store hands out (corpora, languages, pins, runs, matches)."""

from __future__ import annotations

import json
import math
from functools import lru_cache
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from engine.config import Config
from engine.corpus import PIN_WEIGHT_MAX, PinnedValue
from engine.errors import DecipherError, StoredValueError
from engine.results import Match


@dataclass(frozen=True)
class CorpusInfo:
    id: int
    name: str
    source: str
    format: str
    imported_at: str
    inscriptions: int
    gold: int


@dataclass(frozen=True)
class LanguageInfo:
    id: int
    name: str
    source: str
    format: str
    imported_at: str
    stems: int


@dataclass(frozen=True)
class PinRecord:
    pin: PinnedValue
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class RunRecord:
    id: int
    status: str
    config: Mapping[str, Any]
    seed: int | None
    code_version: str
    device: str
    corpus_id: int | None
    language_id: int | None
    pins: tuple[PinnedValue, ...]
    started_at: str
    ended_at: str | None
    host: str
    pid: int | None
    heartbeat_at: str | None
    last_step: int | None
    checkpoint: str | None
    error: str | None
    resumed_from: int | None

    def settings(self) -> Config:
        """The run's Config (raises InputError if the stored settings no longer load)."""
        return Config.from_dict(dict(self.config))

    def summary(self) -> str:
        """Config.summary() of the run's settings, or a note when they no longer load."""
        try:
            key = json.dumps(self.config, sort_keys=True, ensure_ascii=False)
        except (TypeError, ValueError):  # not JSON (made in code, not read from a store): no cache
            return _summary_of(dict(self.config))
        return _summary_of_json(key)


@dataclass(frozen=True)
class MatchRecord:
    """A stored match with its row id (``match_id`` in reports)."""

    id: int
    run_id: int
    match: Match


DecisionKey = tuple[str, int, int, str]
"""(inscription_id, start, end, form): with the run id, what a decision is stored under."""


RUN_COLUMNS = ("id", "status", "config", "seed", "code_version", "device", "corpus_id",
                "language_id", "pins", "started_at", "ended_at", "host", "pid", "heartbeat_at",
                "last_step", "checkpoint", "error", "resumed_from")


def run_record(row: Sequence, path: str | Path = "the project") -> RunRecord:
    d = dict(zip(RUN_COLUMNS, row))
    d["config"] = load_json(path, "run", d["id"], "config", d["config"] or "{}", dict)
    d["pins"] = pins_from_json(path, "run", d["id"], "pins", d["pins"] or "[]")
    return RunRecord(**d)


# ---------------------------------------------------------------------------------------------
# stored JSON, checked as it is read: a bad cell is one StoredValueError naming table, row, column

_KINDS = {dict: "a JSON object", list: "a JSON list"}


def load_json(path: str | Path, table: str, row: object, column: str, text: object,
              kind: type | None = None) -> Any:
    """``json.loads(text)``, of type ``kind`` when given; else StoredValueError naming the cell."""
    if not isinstance(text, str):
        raise StoredValueError(path, table, row, column, f"not JSON text, found {type(text).__name__}")
    try:
        value = json.loads(text)
    except RecursionError:
        raise StoredValueError(path, table, row, column, "JSON nested too deeply") from None
    except ValueError as e:
        raise StoredValueError(path, table, row, column, f"not valid JSON ({e})") from None
    if kind is not None and not isinstance(value, kind):
        raise StoredValueError(path, table, row, column,
                               f"not {_KINDS.get(kind, kind.__name__)}, found {type(value).__name__}")
    return value


def _pin_problem(item: object) -> str | None:
    if not isinstance(item, list) or len(item) != 5:
        return "each pin must be a list of 5 values [lost, known_ipa, weight, locked, note]"
    lost, known, weight, locked, note = item
    if not (isinstance(lost, str) and lost and isinstance(known, str) and known):
        return "a pin needs a lost letter and a known IPA unit (non-empty texts)"
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight) \
            or not 0 < weight <= PIN_WEIGHT_MAX:
        return f"pin weight {weight!r} is not above 0 and at most {PIN_WEIGHT_MAX:g}"
    if locked not in (True, False, 0, 1) or isinstance(locked, float):
        return f"pin 'locked' {locked!r} is not true or false"
    if not isinstance(note, str):
        return "a pin's note must be a text"
    return None


def pins_from_json(path: str | Path, table: str, row: object, column: str, text: object) -> tuple[PinnedValue, ...]:
    """The pins a run stored (a JSON list of [lost, known_ipa, weight, locked, note])."""
    items = load_json(path, table, row, column, text, list)
    out = []
    for i, item in enumerate(items):
        problem = _pin_problem(item)
        if problem is not None:
            raise StoredValueError(path, table, row, column, f"pin {i + 1}: {problem}")
        lo, k, w, lk, n = item
        out.append(PinnedValue(lo, k, float(w), bool(lk), n))
    return tuple(out)


def meta_from_json(path: str | Path, row: object, text: object) -> dict[str, str]:
    """An inscription's ``meta``: a JSON object of texts."""
    meta = load_json(path, "inscription", row, "meta", text, dict)
    for k, v in meta.items():
        if not isinstance(v, str):
            raise StoredValueError(path, "inscription", row, "meta",
                                   f"the value of {k!r} is not a text, found {type(v).__name__}")
    return meta


def known_from_json(path: str | Path, row: object, text: object) -> tuple[str, ...]:
    """A gold annotation's known forms: a non-empty JSON list of non-empty texts."""
    known = load_json(path, "gold", row, "known", text, list)
    if not known or not all(isinstance(k, str) and k for k in known):
        raise StoredValueError(path, "gold", row, "known", "not a non-empty list of known forms (texts)")
    return tuple(known)


def _summary_of(config: dict) -> str:
    try:
        return Config.from_dict(config).summary()
    except DecipherError as e:
        return f"unreadable settings ({e})"


@lru_cache(maxsize=1024)
def _summary_of_json(config_json: str) -> str:
    """A stored run's settings never change, but the runs table re-reads every run after each
    evaluation; validating each one again cost most of a refresh (docs/benchmarks.md)."""
    return _summary_of(json.loads(config_json))
