"""How long a run will take, said before it starts, from this machine's own measured step times
(issue 51, item 8).

Every run that trains a few steps records, at its end, the seconds a step took on this machine
(the trainer's time between steps, evaluations included; pauses, checkpoints and start-up left
out) with what a step's work depends on: the signs kind (letters or syllables), the device, the
letters a batch holds (``chars_per_batch``, or the whole corpus when smaller), the known stems and
the longest span. The records are a small JSON-lines file in the user's cache folder
(``step-times.jsonl``, the newest KEEP; DECIPHER_STEP_TIMES names another file, or "" for none).

An estimate takes the records of the same signs kind, device and longest span whose work per step
(batch letters × stems) is within a factor of two of the new run's, scales each one's seconds per
step linearly by the ratio of that work, and takes the median; times the planned steps (every
start's steps with restarts: engine/training/restarts.py). With no such record it says the time is
unknown until the first steps: no number is made up. It is as good as the load of the machine was
alike: a busy box stretches every step.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Sequence

#: records kept (the newest)
KEEP = 200
#: a record counts for a run whose work per step is within this factor of its own
WITHIN = 2.0
#: intervals between steps a run must have timed before its step time is recorded
MIN_TIMED_STEPS = 3
UNKNOWN = "unknown until the first steps (no run of this size on this machine yet)"


def step_times_path() -> Path | None:
    """The file of this machine's step times (None: recording is off, DECIPHER_STEP_TIMES="")."""
    named = os.environ.get("DECIPHER_STEP_TIMES")
    if named is not None:
        return Path(named) if named.strip() else None
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "decipher" / "step-times.jsonl"


@dataclass(frozen=True)
class RunShape:
    """What a training step's time depends on."""

    signs: str          # "letters" or "syllables"
    device: str         # "cpu" or "cuda"
    batch_chars: int    # letters in a batch: chars_per_batch, or the corpus when smaller
    stems: int          # the known vocabulary's stems
    max_span: int

    @property
    def work(self) -> float:
        return float(max(1, self.batch_chars) * max(1, self.stems))

    def alike(self, other: "RunShape") -> bool:
        return ((self.signs, self.device, self.max_span) == (other.signs, other.device, other.max_span)
                and 1 / WITHIN <= other.work / self.work <= WITHIN)


def run_shape(config, corpus_chars: int, stems: int, device: str | None = None) -> RunShape:
    """The shape of a run of ``config`` over a corpus of ``corpus_chars`` letters and ``stems`` known
    stems (``device``: where it trains; default: the setting, "auto" read as CUDA when torch sees one:
    a caller that must not import torch, the app's window, passes the device itself)."""
    device = device or config.device
    if device == "auto":
        try:
            import torch

            device = "cuda" if torch.cuda.is_available() else "cpu"
        except ImportError:  # pragma: no cover - torch is a dependency
            device = "cpu"
    return RunShape(str(config.signs), "cuda" if str(device).startswith("cuda") else "cpu",
                    min(int(config.chars_per_batch), int(corpus_chars)), int(stems), int(config.max_span))


def planned_steps(config) -> int:
    """Every step the run trains: R × S for R starts of S steps, then the kept one's steps after S."""
    from engine.training.restarts import selection_steps

    if config.restarts <= 1:
        return int(config.steps)
    s = selection_steps(config)
    return int(config.restarts) * s + max(0, int(config.steps) - s)


def read_records(path: Path | None = None) -> list[tuple[RunShape, float]]:
    """(shape, seconds per step) of every readable record; a damaged line is skipped (a cache)."""
    path = step_times_path() if path is None else path
    if path is None or not path.is_file():
        return []
    out = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    for line in lines:
        try:
            d = json.loads(line)
            shape = RunShape(str(d["signs"]), str(d["device"]), int(d["batch_chars"]), int(d["stems"]),
                             int(d["max_span"]))
            seconds = float(d["seconds_per_step"])
        except (ValueError, KeyError, TypeError):
            continue
        if seconds > 0 and seconds == seconds:
            out.append((shape, seconds))
    return out


def record_step_time(shape: RunShape, seconds_per_step: float, steps: int, path: Path | None = None) -> bool:
    """Add a run's measured step time (False when it could not be written: the estimate is a
    convenience, never a reason for a run to fail)."""
    from engine.io.atomic import atomic_path

    path = step_times_path() if path is None else path
    if path is None or not seconds_per_step > 0:
        return False
    row = {**asdict(shape), "seconds_per_step": round(float(seconds_per_step), 6), "steps": int(steps),
           "cpus": os.cpu_count(), "when": time.strftime("%Y-%m-%dT%H:%M:%S")}
    try:
        old = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    except (OSError, UnicodeDecodeError):
        old = []
    lines = [line for line in old if line.strip()][-(KEEP - 1):] + [json.dumps(row, ensure_ascii=False)]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(path) as part:
            part.write_text("\n".join(lines) + "\n", encoding="utf-8")
    except OSError:
        return False
    return True


@dataclass(frozen=True)
class Estimate:
    seconds: float | None     # None: unknown
    steps: int
    seconds_per_step: float | None
    runs: int                 # records it rests on
    device: str = "cpu"
    reference: bool = False   # a reference run of as many steps follows (setting reference_null): counted

    def text(self) -> str:
        where = "the GPU" if self.device == "cuda" else "the CPU"
        if self.seconds is None:
            return f"Time on {where}: {UNKNOWN}."
        also = " and a reference run of as many (setting reference_null)" if self.reference else ""
        return (f"Time on {where}: about {duration(self.seconds)} for {self.steps:,} steps{also}, plus the start "
                f"({self.seconds_per_step:.2g} s a step: the median of {self.runs} earlier "
                f"run{'s' if self.runs != 1 else ''} of similar size here).")

    def how(self) -> str:
        """How the estimate is made, in words (the Run panel's tooltip)."""
        return ("From this machine's own measured step times (engine/runs/estimate.py): runs of the same signs kind, "
                "device and longest span whose batch letters × stems is within a factor of two, each scaled to this "
                "run's batch letters × stems; the median, times every planned step (each start's with restarts, and "
                "the reference run's when one follows the run). "
                "The start (loading torch, preparing the data) comes on top, and a busier machine takes longer.")


def estimate(shape: RunShape, steps: int, records: Sequence[tuple[RunShape, float]] | None = None, *,
             reference: bool = False) -> Estimate:
    """The run's time from ``records`` (default: this machine's file) of runs alike (see the module);
    ``reference``: a reference run of as many steps follows it (engine/training/reference.py ``wanted``)."""
    records = read_records() if records is None else records
    alike = [seconds * shape.work / other.work for other, seconds in records if shape.alike(other)]
    if not alike or steps <= 0:
        return Estimate(None, steps, None, 0, shape.device, reference)
    per_step = statistics.median(alike)
    return Estimate(per_step * steps * (2 if reference else 1), steps, per_step, len(alike), shape.device, reference)


def latest_device(records: Sequence[tuple[RunShape, float]]) -> str | None:
    """The device of the newest record (for a run set to "auto" where torch is not to be imported)."""
    return records[-1][0].device if records else None


def duration(seconds: float) -> str:
    """"40 s", "12 min", "1 h 25 min" (rounded as an estimate should be)."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    minutes = round(seconds / 60)
    if minutes < 90:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


class StepTimer:
    """The trainer's own time: from the end of one event's handling to the next event's arrival,
    so pauses, checkpoints and the sinks' work are not counted (an evaluation, part of the run,
    is); ``intervals`` counts the steps among the events."""

    def __init__(self, clock=time.perf_counter):
        self.clock = clock
        self.total = 0.0
        self.intervals = 0
        self._since: float | None = None

    def event_arrived(self, is_step: bool) -> None:
        if self._since is not None:
            self.total += self.clock() - self._since
            self.intervals += int(is_step)

    def event_handled(self) -> None:
        self._since = self.clock()

    @property
    def seconds_per_step(self) -> float | None:
        return self.total / self.intervals if self.intervals >= MIN_TIMED_STEPS else None
