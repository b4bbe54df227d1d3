"""Sinks of a run session for the command line: the output folder (metrics.json, matches.csv,
steps.csv beside the session's checkpoint.pt), the progress bar, and the notes on what the
prepared data leave out."""

from __future__ import annotations

import json
import math
import platform
import resource
import sys
from pathlib import Path
from typing import TextIO

from engine import __version__
from engine.errors import DecipherError
from engine.io.atomic import WriteError, describe_os_error, refuse_symlinks, write_csv, write_text
from engine.results import EvalEvent, StepEvent
from engine.runs.session import RunOutcome, RunSink, RunStart


def peak_memory_mb() -> float:
    """Peak resident memory of this process (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if platform.system() == "Darwin" else peak / 1024


def prepare_output_folder(out: Path) -> Path:
    """Make ``out`` (a folder) or refuse it in one line, before any run is started or recorded."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise DecipherError(f"{out}: --out must be a folder, and this is a file")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise DecipherError(f"{out}: --out must be a folder, and a file is in its way") from None
    except OSError as e:
        raise WriteError(out, f"cannot make the folder: {describe_os_error(e)}") from None
    return out


#: above this many stems a run without candidate_stems is told of it (docs/benchmarks.md, "Large vocabularies")
LARGE_VOCABULARY = 10_000


def preparation_notes(trainer) -> list[str]:
    """What the prepared data leave out (stems outside the span lengths, pins without effect), and the
    setting a large dictionary wants."""
    prep = trainer.prep
    notes = []
    if prep.n_stems > LARGE_VOCABULARY and not prep.config.candidate_stems:
        notes.append(f"note: {prep.n_stems:,} stems: in a dictionary this large the paper's mean over every stem "
                     "rewards letters read two ways; consider --set candidate_stems=1 (each word or span competes "
                     "with its best stem alone after annealing; docs/benchmarks.md, \"A competition of one\")")
    if prep.excluded_stems:
        notes.append(f"note: {len(prep.excluded_stems)} stems are outside the span lengths "
                     f"{prep.config.min_span}..{prep.config.max_span} and are not used")
    for pin, why in prep.unused_pins:
        notes.append(f"note: pin {pin.lost} -> /{pin.known_ipa}/: {why}")
    return notes


def write_outputs(out: Path, trainer, outcome: RunOutcome, history: list[dict]) -> None:
    """metrics.json, matches.csv and steps.csv of a finished run (formats: docs/formats.md)."""
    from engine.io.reports import MATCH_COLUMNS, match_rows

    ev = trainer.last_evaluation
    metrics = {
        **({k: v for k, v in ev.metrics.items()} if ev is not None else {}),
        "steps": outcome.step,
        "wall_time_s": round(outcome.wall_time_s, 3),
        "steps_per_s": round(outcome.steps_per_s, 3),
        "peak_memory_mb": round(peak_memory_mb(), 1),
        "device": str(trainer.device),
        "seed": trainer.config.seed,
        "n_inscriptions": len(trainer.corpus.inscriptions),
        "n_stems": trainer.prep.n_stems,
        "n_lost_letters": len(trainer.prep.lost_letters) - 1,
        "n_known_units": len(trainer.prep.known_units) - 1,
        "closeness": ev.closeness if ev is not None else [],
        "config": trainer.config.to_dict(),
        "engine_version": __version__,
    }
    if outcome.status != "completed":
        metrics["status"] = outcome.status
    if getattr(trainer, "forced_resume", None):   # what --force-resume went past, kept with the results
        metrics["forced_resume"] = list(trainer.forced_resume)
    # the final objective over the corpus and the gold-free diagnosis (engine/training/diagnosis.py),
    # computed once by the session at the run's end; absent only where they could not be computed
    if outcome.final_objective is not None:
        metrics["final_objective"] = float(outcome.final_objective["objective"])
    if outcome.diagnosis is not None:
        metrics["diagnosis"] = dict(outcome.diagnosis)
    # the files are the program's, in the user's folder: a link planted under their names is refused
    write_text(refuse_symlinks(out / "metrics.json", out), json.dumps(metrics, indent=2, ensure_ascii=False) + "\n")
    if ev is not None:
        write_csv(refuse_symlinks(out / "matches.csv", out), MATCH_COLUMNS, match_rows(ev.matches),
                  guard_formulas=True)
    if history:
        keys = list(history[0])
        write_csv(refuse_symlinks(out / "steps.csv", out), keys, ([h.get(k) for k in keys] for h in history),
                  guard_formulas=True)


class OutputFolder(RunSink):
    """``decipher run --out DIR``: the final metrics, matches and step history of the run."""

    name = "the output folder"

    def __init__(self, out: Path):
        self.out = Path(out)
        self.history: list[dict] = []
        self.trainer = None

    def started(self, start: RunStart) -> None:
        self.trainer = start.trainer

    def step(self, event: StepEvent) -> None:
        # with restarts every start counts its steps from 1: the restart column says whose they are
        restart = {"restart": event.restart} if getattr(self.trainer, "selection", None) is not None else {}
        self.history.append({**restart, "step": event.step, **event.losses, "batch_coverage": event.coverage})

    def finishing(self, outcome: RunOutcome) -> None:
        write_outputs(self.out, self.trainer, outcome, self.history)


#: What a summary or an evaluation line shows, in this order: (metric, its name in words). "coverage"
#: is always the decoded coverage of an evaluation; the training batch's share of covered
#: characters is "batch_coverage" (the progress bar, steps.csv and the project's metrics).
SHOWN_METRICS = (("p_at_1", "P@1"), ("p_at_10", "P@10"), ("coverage", "coverage"))


def metrics_text(metrics: dict[str, float]) -> str:
    """``P@1 0.250, P@10 0.400, coverage 0.042`` (what there is: without gold, coverage only); ''
    when the run was never evaluated."""
    text = ", ".join(f"{label} {'-' if math.isnan(metrics[key]) else format(metrics[key], '.3f')}"
                     for key, label in SHOWN_METRICS if key in metrics)
    if "signs_standard" in metrics and "signs_with_standard" in metrics:
        text += (f"{', ' if text else ''}{metrics['signs_standard']:.0f} of {metrics['signs_with_standard']:.0f} "
                 f"signs at their standard value")
    return text


def diagnosis_lines(diagnosis) -> list[str]:
    """The diagnosis of a run for a terminal, each line prefixed ``diagnosis: `` (``diagnosis``:
    its JSON as stored, or None: "no diagnosis")."""
    from engine.training.diagnosis import diagnosis_from, summary_lines

    return [f"diagnosis: {line}" for line in summary_lines(diagnosis_from(diagnosis))]


def outcome_summary(outcome: RunOutcome, where: str) -> str:
    """The last line of ``decipher run``: steps, time, device, the metrics (or that there were
    none), the status unless completed, and ``where`` the results are."""
    ref = ((outcome.diagnosis or {}).get("values") or {}).get("diagnosis_reference_wall_s")
    also = f" (and its reference run in {ref:.1f} s)" if isinstance(ref, (int, float)) else ""
    parts = [f"{outcome.step} steps in {outcome.wall_time_s:.1f} s on {outcome.device}{also}",
             metrics_text(outcome.metrics) or "not evaluated"]
    if outcome.status != "completed":
        parts.append(outcome.status)
    parts.append(where)
    return "; ".join(parts)


class ProgressBar(RunSink):
    """A tqdm bar on stderr (``quiet``: none), evaluation lines, the preparation notes and messages."""

    name = "the progress bar"
    critical = False

    def __init__(self, *, quiet: bool = False, file: TextIO | None = None):
        self.quiet = quiet
        self.file = file if file is not None else sys.stderr
        self.bar = None

    def started(self, start: RunStart) -> None:
        if hasattr(start.trainer, "prep"):
            for line in preparation_notes(start.trainer):
                print(line, file=self.file)
        from tqdm import tqdm

        done, planned = start.progress or (start.step, start.total_steps)   # over every start (restarts)
        self.bar = tqdm(total=planned, initial=done, disable=self.quiet, file=self.file,
                        unit="step", dynamic_ncols=True)

    def step(self, event: StepEvent) -> None:
        if self.bar is None:
            return
        done, planned = event.progress
        if planned != self.bar.total:
            self.bar.total = planned
        self.bar.update(done - self.bar.n)
        if event.step % 10 == 0 or event.step == event.total_steps:
            # the batch's covered share, not the decoded "coverage" of the evaluation lines
            # and what the step trained on, when not the whole model on the text (StepEvent.phase)
            self.bar.set_postfix(loss=f"{event.losses['total']:.3f}", batch_coverage=f"{event.coverage:.2f}",
                                 **({"phase": event.phase} if event.phase else {}))

    def evaluation(self, event: EvalEvent) -> None:
        if self.bar is not None and not self.quiet:
            # on the bar's stream (stderr), never stdout: stdout carries data only
            self.bar.write(f"step {event.step}: {metrics_text(event.metrics) or 'evaluated'}", file=self.file)

    def message(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text, file=self.file)
        else:
            print(text, file=self.file)

    def estimated(self, text: str) -> None:
        """The time estimate, before the first step, on stderr; --quiet leaves it out with the bar
        (a quiet run's stderr is its warnings and, when it fails, its one line)."""
        if not self.quiet:
            self.message(text)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def folder_session(inputs, out: Path, *, sinks=(), checkpoint_every_s: float | None = None, **session_options):
    """The RunSession of one run writing ``decipher run --out`` outputs to ``out`` (checkpoint.pt,
    metrics.json, matches.csv, steps.csv), ``out`` checked (and made) first: what run_in_folder runs,
    and what a batch of runs (engine/runs/workers.py run_batch) drives for each of its runs."""
    from engine.runs.session import CHECKPOINT_EVERY_S, RunSession

    out = prepare_output_folder(Path(out))
    return RunSession(inputs, sinks=[OutputFolder(out), *sinks], checkpoint=out / "checkpoint.pt",
                      checkpoint_every_s=checkpoint_every_s or CHECKPOINT_EVERY_S, **session_options)


def run_in_folder(inputs, out: Path, *, sinks=(), checkpoint_every_s: float | None = None,
                  handle_signals: bool = False, **session_options) -> RunOutcome:
    """One run writing ``decipher run --out`` outputs to ``out``: the file-side caller of the
    session (the CLI, a sweep's workers). ``out`` is checked (and made) before anything runs."""
    return folder_session(inputs, out, sinks=sinks, checkpoint_every_s=checkpoint_every_s,
                          **session_options).run(handle_signals=handle_signals)
