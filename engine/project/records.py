"""The frozen records the project store hands out (corpora, languages, pins, runs, matches)."""

from __future__ import annotations

import json
from functools import lru_cache
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from engine.config import Config
from engine.corpus import PinnedValue
from engine.errors import DecipherError
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


_RUN_COLUMNS = ("id", "status", "config", "seed", "code_version", "device", "corpus_id",
                "language_id", "pins", "started_at", "ended_at", "host", "pid", "heartbeat_at",
                "last_step", "checkpoint", "error", "resumed_from")


def _run_record(row: Sequence) -> RunRecord:
    d = dict(zip(_RUN_COLUMNS, row))
    d["config"] = json.loads(d["config"] or "{}")
    d["pins"] = tuple(PinnedValue(lo, k, w, bool(lk), n) for lo, k, w, lk, n in json.loads(d["pins"] or "[]"))
    return RunRecord(**d)


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
