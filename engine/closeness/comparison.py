"""Which known language is closest: one lost text against several candidate vocabularies, each
with its null vocabularies, over several seeds (the core of ``decipher closeness``).

    plan = plan_comparison(lost, {"hebrew": "heb.csv", "arabic": vocab}, seeds=(0, 1, 2), n_null=3)
    records = run_plan(plan, train_run)          # or any run_fn: PlanItem -> CandidateRun
    comparison = summarise(plan, records)        # best first, with z-scores and verdicts
    write_comparison(out_dir, comparison)        # runs.csv, summary.csv, curves.csv, closeness.png

``compare(...)`` does all four. A sweep runs ``plan.items`` in parallel with its own run_fn and
hands the records to :func:`summarise`. With ``restarts=R`` every (candidate or null, seed) is trained
R times with different sub-seeds and the restart with the lowest final training objective is kept as
that seed's run (:func:`keep_best_restarts`; gold is never read). The statistics are defined in
docs/closeness.md.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import statistics
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from engine.closeness.curve import DEFAULT_CONFIDENCE, closeness_score, coverage_at
from engine.config import Config
from engine.corpus import Corpus, Vocabulary
from engine.errors import DecipherError
from engine.closeness.vocab_sizes import Matching, match_vocabularies
from engine.closeness.nulls import DEFAULT_NULL_MODE, null_vocabulary
from engine.closeness.early_stop import CHECKPOINTS, SETTLED, StopRule, check_gap

#: The rule before issue 26 (kept for :func:`verdict` and the old tables): z = margin / null sd >= this.
Z_THRESHOLD = 2.0
#: The verdict's rule (docs/closeness.md "The verdict", fixed before the real comparisons were rerun): a
#: candidate is "closer than chance" when the Holm-corrected one-sided p of its margin over its null is at
#: most ALPHA; the margin's interval is the two-sided (1 - 2 ALPHA) t interval (its lower end the
#: one-sided bound).
ALPHA = 0.05
#: Fewer seeds or nulls than these and the answer in words says the verdict is weak.
MIN_SEEDS, MIN_NULLS = 3, 3
CLOSER = "closer than chance"
#: Under the objective score, a margin below the least one (min_margin) with a small p: the list fits the text
#: better than its nulls, by less than any right reading of the development ciphers did.
SLIGHT = "better than chance, by too little"
NO_EVIDENCE = "no evidence"
UNTESTED = "no null runs"
TOO_FEW = "too few null runs (2 or more needed)"

#: What a run's score is (``--score``; docs/closeness.md "The objective score"): ``area``, the area under
#: the paper's coverage-against-confidence curve; ``objective``, minus the run's final training objective
#: over the whole text (engine/training/final_objective.py), how well the list's words, through the
#: learned mapping, explain the text (the quantity the reference check reads, engine/training/reference.py).
SCORES = ("area", "objective")
DEFAULT_SCORE = "area"

RUNS_COLUMNS = ("known", "seed", "null", "score", "coverage", "steps", "wall_s")
#: Beyond the issue's columns: which restart was kept, of how many, and its final objective.
RUNS_EXTRA = ("restart", "restarts", "objective", "stopped")
#: restarts.csv: every training of a comparison, kept or not.
RESTARTS_COLUMNS = ("known", "seed", "null", "restart", "train_seed", "objective", "score", "coverage", "steps",
                    "wall_s", "kept")
#: Restarts per seed are range-checked: 1 (no restart) to this many.
MAX_RESTARTS = 50
SUMMARY_COLUMNS = ("known", "score_mean", "score_sd", "null_mean", "null_sd", "z", "verdict")
#: Beyond the issue's columns: the empirical p-value and the second signals (docs/closeness.md).
SUMMARY_EXTRA = ("margin", "margin_se", "margin_lo", "margin_hi", "df", "t", "p_t", "p_holm", "p", "n_seeds", "n_null_runs", "null_sd_own", "null_sd_pooled", "mapping", "mapping_null_mean", "mapping_null_sd", "mapping_z",
                 "decoding", "decoding_null_mean", "decoding_null_sd", "decoding_z")


@dataclass(frozen=True)
class PlanItem:
    """One training run of a comparison: a candidate (or one of its nulls) with one seed."""

    known: str
    seed: int
    null: int | None
    """None for the candidate's own vocabulary, else the null's index"""
    lost: Corpus
    vocabulary: Vocabulary
    config: Config
    """its ``seed`` is the training seed: the comparison's seed for restart 0, a sub-seed otherwise"""
    restart: int = 0
    """which of the seed's restarts (0 .. restarts-1)"""
    early_stop: float = 0.0
    """the early stop's gap for a null run (engine/closeness/early_stop.py); 0: trained to its full steps
    (always 0 for a candidate's own run)"""
    stop: Any = field(default=None, compare=False)
    """the run's StopRule, made when the run starts (its candidate's seeds must have finished)"""

    @property
    def key(self) -> tuple[str, int, int]:
        """The (candidate, null, seed) this run counts for: the restarts of one seed share it."""
        return (self.known, -1 if self.null is None else self.null, self.seed)


@dataclass(frozen=True)
class CandidateRun:
    """What a run hands back: its final closeness curve, coverage, steps and wall time; optionally
    its character mapping (known × lost probabilities, rows = known units) and its decoded spans
    ``(inscription, start, end, best stem ipa)`` for the consistency signals."""

    curve: tuple[tuple[float, float], ...]
    coverage: float
    steps: int
    wall_s: float
    mapping: np.ndarray | None = None
    known_units: tuple[str, ...] = ()
    spans: tuple[tuple[str, int, int, str], ...] = ()
    margins: tuple[float, ...] = ()
    """per decoded span: its best stem's score minus the second best's (how clearly one stem wins)"""
    objective: float | None = None
    """the run's final training objective over the whole corpus (engine/training/final_objective.py; lower is
    better): what picks a seed's restart"""
    stopped_at: int | None = None
    """the step a settled null run was stopped at by the early stop (its score is that step's); None: it
    trained its full steps"""
    checkpoints: tuple[tuple[int, float], ...] = ()
    """(step, closeness score) at the early stop's checkpoints the run reached"""


@dataclass(frozen=True)
class ScoredRun:
    item: PlanItem
    result: CandidateRun
    score: float
    restarts: int = 1
    """how many finished restarts of its seed this run was chosen from (1: no choice)"""

    @property
    def row(self) -> tuple:
        """runs.csv: RUNS_COLUMNS, then RUNS_EXTRA"""
        r = self.result
        return (self.item.known, self.item.seed, "" if self.item.null is None else self.item.null,
                round(self.score, 6), round(r.coverage, 6), r.steps, round(r.wall_s, 3),
                self.item.restart, self.restarts, _num(r.objective), stopped_text(r))

    @property
    def restart_row(self) -> tuple:
        """restarts.csv (without ``kept``)"""
        r = self.result
        return (self.item.known, self.item.seed, "" if self.item.null is None else self.item.null, self.item.restart,
                self.item.config.seed, _num(r.objective), round(self.score, 6), round(r.coverage, 6), r.steps,
                round(r.wall_s, 3))


def stopped_text(result: CandidateRun) -> str:
    """runs.csv's ``stopped``: "stopped at step N: settled", or empty for a run of its full steps."""
    return "" if result.stopped_at is None else f"stopped at step {result.stopped_at}: {SETTLED}"


def _num(x: float | None) -> float | str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else round(x, 6)


@dataclass
class Plan:
    lost: Corpus
    candidates: list[str]
    items: list[PlanItem]
    matching: Matching
    seeds: tuple[int, ...]
    n_null: int
    null_mode: str
    failures: dict[str, str] = field(default_factory=dict)
    """candidate -> why it could not be used (it stops nothing else)"""
    restarts: int = 1
    """trainings per (candidate or null, seed); the one with the lowest final objective is kept"""
    early_stop: float = 0.0
    """the early stop's gap (engine/closeness/early_stop.py); 0: off"""
    score: str = DEFAULT_SCORE
    """what a run's score is (:data:`SCORES`)"""


@dataclass(frozen=True)
class Signal:
    """A candidate's value of one signal and its distance from the candidate's nulls."""

    value: float
    null_mean: float
    null_sd: float
    z: float


@dataclass(frozen=True)
class CandidateSummary:
    known: str
    score_mean: float
    score_sd: float
    null_mean: float
    null_sd: float
    z: float
    p: float
    verdict: str
    n_seeds: int
    n_null_runs: int
    mapping: Signal | None = None
    decoding: Signal | None = None
    null_sd_own: float = math.nan
    """the sd of this candidate's own null runs (``null_sd`` is the larger of it and the pooled sd)"""
    null_sd_pooled: float = math.nan
    """the null sd pooled over every candidate of the comparison (nan: no candidate has 2 null runs)"""
    margin: float = math.nan
    """score_mean - null_mean"""
    margin_se: float = math.nan
    """s * sqrt(1/n_seeds + 1/n_null), s the larger of null_sd and score_sd (:func:`margin_se`)"""
    df: int = 0
    """degrees of freedom of t: n_seeds + n_null - 2"""
    t: float = math.nan
    p_t: float = math.nan
    """one-sided p of t (Student's t with ``df``)"""
    p_holm: float = math.nan
    """p_t after Holm's correction for the candidates of the comparison: what the verdict reads"""
    n_null: int = 0
    """distinct null vocabularies with a finished run"""

    @property
    def margin_interval(self) -> tuple[float, float]:
        """The two-sided (1 - 2 ALPHA) t interval of the margin (90 %): its lower end is the one-sided
        (1 - ALPHA) bound, so a candidate "closer than chance" always has it above 0 (Holm can only
        raise a p); (nan, nan) without one."""
        if self.df < 1 or math.isnan(self.margin_se):
            return math.nan, math.nan
        h = t_quantile(1 - ALPHA, self.df) * self.margin_se
        return self.margin - h, self.margin + h

    @property
    def row(self) -> tuple:
        def r(x):
            return "" if x is None or (isinstance(x, float) and math.isnan(x)) else round(x, 6)

        extra = []
        for s in (self.mapping, self.decoding):
            extra += [r(None), r(None), r(None), r(None)] if s is None else [r(s.value), r(s.null_mean),
                                                                               r(s.null_sd), r(s.z)]
        lo, hi = self.margin_interval
        return (self.known, r(self.score_mean), r(self.score_sd), r(self.null_mean), r(self.null_sd), r(self.z),
                self.verdict, r(self.margin), r(self.margin_se), r(lo), r(hi), self.df or "", r(self.t), r(self.p_t),
                r(self.p_holm), r(self.p), self.n_seeds, self.n_null_runs, r(self.null_sd_own), r(self.null_sd_pooled),
                *extra)


@dataclass
class Comparison:
    plan: Plan
    records: list[ScoredRun]
    """one per (candidate or null, seed): the kept restart"""
    summaries: list[CandidateSummary]
    """best first"""
    run_failures: list[tuple[PlanItem, str]] = field(default_factory=list)
    trainings: list[ScoredRun] = field(default_factory=list)
    """every finished training, every restart (``records`` is chosen from these)"""


# ---------------------------------------------------------------------------------------------
# planning


def load_candidates(candidates: Mapping[str, Vocabulary | str | os.PathLike]
                    ) -> tuple[dict[str, Vocabulary], dict[str, str]]:
    """Read the candidates given as KNOWN.csv paths; a file that fails is reported, not raised."""
    from engine.io.tables import read_known

    ok: dict[str, Vocabulary] = {}
    failed: dict[str, str] = {}
    for name, value in candidates.items():
        if isinstance(value, Vocabulary):
            ok[name] = value
            continue
        try:
            ok[name] = Vocabulary(name, tuple(read_known(value, source=name)))
        except (DecipherError, OSError, UnicodeError, ValueError) as e:
            failed[name] = str(e) if isinstance(e, DecipherError) else f"{value}: {e}"
    return ok, failed


def plan_comparison(lost: Corpus, candidates: Mapping[str, Vocabulary | str | os.PathLike], *,
                    seeds: Sequence[int] = (0, 1, 2), n_null: int = 3, stems: int | None = None,
                    steps: int | None = None, config: Config | None = None, null_mode: str = DEFAULT_NULL_MODE,
                    sample_seed: int = 0, restarts: int = 1, early_stop: float = 0.0,
                    cap_stems: int | None = None, score: str = DEFAULT_SCORE) -> Plan:
    """Load and match the candidates, build their nulls and list every run (real runs first), each
    seed ``restarts`` times (candidates and nulls alike; :func:`restart_seed` gives the sub-seeds).

    Raises DecipherError when fewer than two candidates are given or usable, or the numbers are off.
    """
    if len(candidates) < 2:
        raise DecipherError(f"a comparison needs at least two candidate languages (got {len(candidates)})")
    if not seeds or len(set(seeds)) != len(seeds):
        raise DecipherError(f"seeds must be one or more distinct numbers (got {list(seeds)})")
    if n_null < 0:
        raise DecipherError(f"the number of null vocabularies must not be negative (got {n_null})")
    if steps is not None and steps < 0:
        raise DecipherError(f"steps must not be negative (got {steps})")
    check_restarts(restarts)
    early_stop = check_gap(early_stop)
    check_score(score, early_stop)
    if early_stop > 0 and restarts > 1:
        raise DecipherError("the early stop cannot be used with restarts: a null stopped early would be ranked "
                            "against restarts trained to the end by its objective (use restarts 1 or early stop 0)")
    config = config or Config()
    vocabs, failed = load_candidates(candidates)
    if len(vocabs) < 2:
        why = "; ".join(f"{k}: {v}" for k, v in failed.items())
        raise DecipherError(f"a comparison needs at least two usable candidates; {len(vocabs)} of "
                            f"{len(candidates)} could be read ({why})")
    matching = match_vocabularies(vocabs, stems=stems, min_units=config.min_span, max_units=config.max_span,
                                  seed=sample_seed, cap=cap_stems)
    base = config if steps is None else config.replace(steps=steps)
    # a comparison trains its own nulls: no run of it trains a reference null as well (it would double
    # the cost and say nothing the verdict does not)
    base = base.replace(reference_null="off")
    items: list[PlanItem] = []
    for name, vocab in matching.vocabularies.items():
        for seed in seeds:
            for r in range(restarts):
                items.append(PlanItem(name, seed, None, lost, vocab, base.replace(seed=restart_seed(seed, r)), r))
    for name, vocab in matching.vocabularies.items():
        for i in range(n_null):
            null = null_vocabulary(vocab, sample_seed, i, mode=null_mode)
            for seed in seeds:
                for r in range(restarts):
                    items.append(PlanItem(name, seed, i, lost, null, base.replace(seed=restart_seed(seed, r)), r,
                                          early_stop))
    return Plan(lost, list(matching.vocabularies), items, matching, tuple(seeds), n_null, null_mode, failed,
                restarts, early_stop, score)


def check_score(score: str, early_stop: float = 0.0) -> str:
    """One of SCORES; the objective score cannot be used with the early stop (which reads the area at the
    checkpoints: a run's objective over the whole text is computed at its end only)."""
    if score not in SCORES:
        raise DecipherError(f"the closeness score must be one of {', '.join(SCORES)}, got {score!r}")
    if score == "objective" and early_stop > 0:
        raise DecipherError("the early stop cannot be used with the objective score: it stops a null run by its "
                            "area score at a checkpoint, and a run's objective is known only at its end "
                            "(use the early stop 0, or the area score)")
    return score


def min_margin(score: str) -> float:
    """The least margin a "closer than chance" candidate needs besides its p: none for the area score (the
    rule of issue 26); for the objective score, the reference check's margin (engine/training/reference.py,
    REFERENCE_MARGIN, set on the development ciphers): every right reading of the development alphabets but
    one fitted its text better than a phonotactic null of its list by more than it, every control by less."""
    if score == "objective":
        from engine.training.reference import REFERENCE_MARGIN

        return REFERENCE_MARGIN
    return 0.0


def score_of(result: CandidateRun, score: str = DEFAULT_SCORE) -> float:
    """A run's score (higher is closer): the area under its curve, or minus its final objective (nan when
    the run has none: such a run is not scored, see :func:`scored`)."""
    if score == "objective":
        o = result.objective
        return math.nan if o is None or not math.isfinite(o) else -float(o)
    return closeness_score(result.curve)


def scored(item: PlanItem, result: CandidateRun, score: str = DEFAULT_SCORE) -> ScoredRun:
    """The run with its score; DecipherError when the score asked for cannot be read from it."""
    value = score_of(result, score)
    if math.isnan(value):
        raise DecipherError(f"the {item.known} run (seed {item.seed}"
                            + ("" if item.null is None else f", null {item.null}")
                            + ") has no final training objective to score it by")
    return ScoredRun(item, result, value)


def pins_without_stems(plan: Plan, pins: Sequence) -> list[str]:
    """One note per candidate whose list has no stem with a pinned sound: its runs, and its nulls', which
    keep its sounds, add the unit for the pin, as a single run does (``decipher run`` prints the same
    note), so the comparison stays fair, but the user should know the pin reads nothing in that language.
    The pin's sounds are read as a run reads them (``Script.pin_sounds``, engine/model/script.py: a
    sound, or a syllable's onset and vowel); a pin a run would refuse is left to the runs to refuse."""
    from engine.closeness.nulls import unit_counts
    from engine.errors import InputError
    from engine.model.script import script_of
    from engine.model.syllables import NULL_ONSET

    if not pins or not plan.items:
        return []
    script = script_of(plan.items[0].config)
    sounds = []
    for p in pins:
        try:
            sounds.append((p, [u for u in script.pin_sounds(p) if u != NULL_ONSET]))
        except InputError:
            continue
    out = []
    for name, vocab in plan.matching.vocabularies.items():
        units = unit_counts(vocab.stems)
        missing = [p for p, ss in sounds if any(u not in units for u in ss)]
        if missing:
            pairs = ", ".join(f"{p.lost} -> /{p.known_ipa}/" for p in missing)
            out.append(f"note: candidate {name}: no stem uses the pinned sound{'s' if len(missing) > 1 else ''} "
                       f"of {pairs}; its runs and its nulls' add the unit for the pin")
    return out


def check_restarts(restarts: int) -> int:
    """Restarts per seed: a whole number from 1 (no restart) to MAX_RESTARTS."""
    if isinstance(restarts, bool) or not isinstance(restarts, int) or not 1 <= restarts <= MAX_RESTARTS:
        raise DecipherError(f"restarts per seed must be a whole number from 1 to {MAX_RESTARTS}, got {restarts}")
    return restarts


def restart_seed(seed: int, restart: int) -> int:
    """The training seed of a seed's restart: the seed itself for restart 0 (a comparison without
    restarts trains exactly what it did before, and its runs are reused when restarts are added), a
    32-bit number hashed from (seed, restart) otherwise, so no restart repeats another seed's run."""
    if restart == 0:
        return seed
    digest = hashlib.sha256(f"closeness restart {seed} {restart}".encode("ascii")).digest()
    return int.from_bytes(digest[:4], "big")


# ---------------------------------------------------------------------------------------------
# running


def as_result(value: CandidateRun | tuple) -> CandidateRun:
    """A run_fn may return a CandidateRun or the plain tuple (curve, coverage, steps, wall_s)."""
    if isinstance(value, CandidateRun):
        return value
    curve, coverage, steps, wall_s = value
    return CandidateRun(tuple((float(c), float(v)) for c, v in curve), float(coverage), int(steps), float(wall_s))


def record(item: PlanItem, value: CandidateRun | tuple, score: str = DEFAULT_SCORE) -> ScoredRun:
    return scored(item, as_result(value), score)


def with_stop_rule(item: PlanItem, candidate_scores: Mapping[int, float], n_seeds: int, *,
                   observe: bool = False) -> PlanItem:
    """The item with its early stop rule (a null run of a plan with the early stop on, or any null run
    when ``observe``: its checkpoint scores are recorded): the threshold is its candidate's lowest
    finished seed score minus the gap, when every seed has finished; the item itself otherwise."""
    if item.null is None or (item.early_stop <= 0 and not observe):
        return item
    rule = StopRule.for_null(item.config.steps, item.early_stop, list(candidate_scores.values()), n_seeds,
                             observe=observe)
    return item if rule is None else replace(item, stop=rule)


def run_plan(plan: Plan, run_fn: Callable[[PlanItem], CandidateRun | tuple], *,
             on_run: Callable[[ScoredRun], None] | None = None,
             failures: list[tuple[PlanItem, str]] | None = None, observe: bool = False) -> list[ScoredRun]:
    """Run every item in order. A run that raises DecipherError or FloatingPointError is listed in
    ``failures`` (when given) and the others go on; other errors propagate. With the plan's early
    stop on, a null run gets its stop rule from its candidate's finished seeds (``observe``: every
    null run records its checkpoint scores, stopped or not)."""
    out = []
    own: dict[str, dict[int, float]] = {}
    for item in plan.items:
        item = with_stop_rule(item, own.get(item.known, {}), len(plan.seeds), observe=observe)
        try:
            rec = record(item, run_fn(item), plan.score)
        except (DecipherError, FloatingPointError) as e:
            if failures is None:
                raise
            failures.append((item, str(e)))
            continue
        out.append(rec)
        if item.null is None and item.restart == 0:
            own.setdefault(item.known, {})[item.seed] = rec.score
        if on_run is not None:
            on_run(rec)
    return out


def train_run(item: PlanItem) -> CandidateRun:
    """The real run_fn: train the engine on the item through the run session (headless, no
    checkpoint) and read its final evaluation."""
    from engine.runs.session import RunInputs, RunSession, RunSink
    from engine.training.final_objective import corpus_objective

    class LastEvaluation(RunSink):
        name = "the comparison's reader"
        event = None

        def evaluation(self, event) -> None:
            self.event = event

    last = LastEvaluation()
    stop = item.stop.sink() if item.stop is not None else None
    session = RunSession(RunInputs(item.lost, item.vocabulary, item.config),
                         sinks=[last] + ([stop] if stop is not None else []))
    outcome = session.run()
    trainer = session.trainer
    event = last.event
    assert event is not None  # a run always evaluates once at its end
    mapping = event.mapping
    spans = tuple((m.inscription_id, m.start, m.end, m.best.ipa) for m in event.matches)
    margins = tuple(float(m.alternatives[0].score - m.alternatives[1].score) if len(m.alternatives) > 1 else 0.0
                    for m in event.matches)
    # the session computed it at the run's end (with the run's diagnosis): no second pass over the corpus
    objective = (outcome.final_objective or corpus_objective(trainer))["objective"]
    return CandidateRun(tuple(event.closeness), float(event.coverage), outcome.step, float(trainer.elapsed),
                     np.asarray(mapping.probs), tuple(mapping.known), spans, margins, float(objective),
                     None if stop is None else stop.stopped_at, () if stop is None else tuple(stop.scores))


def keep_best_restarts(records: Iterable[ScoredRun]) -> list[ScoredRun]:
    """One record per (candidate, null, seed): of its finished restarts, the one with the lowest final
    training objective (a restart without one counts as worst; ties go to the lower restart). The
    same rule for candidates and nulls; only the training objective is read, never gold. The kept
    record says how many restarts it was chosen from; the order of first appearance is kept."""
    groups: dict[tuple, list[ScoredRun]] = {}
    for r in records:
        groups.setdefault(r.item.key, []).append(r)

    def rank(r: ScoredRun) -> tuple[float, int]:
        o = r.result.objective
        return (math.inf if o is None or math.isnan(o) else o, r.item.restart)

    out = []
    for group in groups.values():
        best = min(group, key=rank)
        out.append(best if best.restarts == len(group) else
                   ScoredRun(best.item, best.result, best.score, len(group)))
    return out


# ---------------------------------------------------------------------------------------------
# statistics


def _mean_sd(values: Sequence[float]) -> tuple[float, float]:
    if not values:
        return math.nan, math.nan
    return statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0


def z_score(value: float, null_mean: float, null_sd: float) -> float:
    """(value - null mean) / null sd; ±inf when the null has no spread, nan without a null."""
    if math.isnan(null_mean):
        return math.nan
    diff = value - null_mean
    if null_sd > 0:
        return diff / null_sd
    return math.inf if diff > 0 else -math.inf if diff < 0 else 0.0


def empirical_p(value: float, null_values: Sequence[float]) -> float:
    """(1 + null runs scoring at least ``value``) / (1 + null runs): never 0, nan without a null."""
    if not null_values:
        return math.nan
    return (1 + sum(1 for v in null_values if v >= value)) / (1 + len(null_values))


def pooled_sd(groups: Iterable[Sequence[float]]) -> float:
    """The within-group sd pooled over groups (sum of squared deviations from each group's mean over
    the sum of n - 1); groups of one value add nothing; nan when no group has two values."""
    num, df = 0.0, 0
    for values in groups:
        if len(values) > 1:
            m = statistics.fmean(values)
            num += sum((v - m) ** 2 for v in values)
            df += len(values) - 1
    return math.sqrt(num / df) if df else math.nan


def z_sd(own_sd: float, pooled: float) -> float:
    """The null sd a z divides by: the larger of the candidate's own and the pooled one (either
    alone where the other is nan)."""
    if math.isnan(own_sd) or math.isnan(pooled):
        return own_sd
    return max(own_sd, pooled)


def margin_se(s: float, n_seeds: int, n_null: int) -> float:
    """The standard error of a margin (mean score over seeds - mean of the null runs):
    s * sqrt(1/n_seeds + 1/n_null), counting the uncertainty of both means; nan without a null."""
    if n_seeds < 1 or n_null < 1 or math.isnan(s):
        return math.nan
    return s * math.sqrt(1 / n_seeds + 1 / n_null)


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + num * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h


def _betai(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1 - front * _betacf(b, a, 1 - x) / b


def t_sf(t: float, df: int) -> float:
    """P(T >= t) for Student's t with ``df`` degrees of freedom (one-sided p; nan for nan)."""
    if math.isnan(t) or df < 1:
        return math.nan
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    tail = 0.5 * _betai(df / 2, 0.5, df / (df + t * t))
    return tail if t >= 0 else 1 - tail


def t_quantile(q: float, df: int) -> float:
    """The t with P(T <= t) = q (0 < q < 1), by bisection on :func:`t_sf`."""
    if not 0 < q < 1 or df < 1:
        raise ValueError(f"t_quantile needs 0 < q < 1 and df >= 1 (got q={q}, df={df})")
    lo, hi = -1e6, 1e6
    for _ in range(200):
        mid = (lo + hi) / 2
        if 1 - t_sf(mid, df) < q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given: the k-th smallest of m p-values becomes
    max over j <= k of min(1, (m - j + 1) * p_(j)). A nan (a candidate without a test) stays nan and
    does not count in m."""
    tested = sorted((p, i) for i, p in enumerate(pvalues) if not math.isnan(p))
    m = len(tested)
    out = [math.nan] * len(pvalues)
    running = 0.0
    for k, (p, i) in enumerate(tested):
        running = max(running, min(1.0, (m - k) * p))
        out[i] = running
    return out


def holm_verdict(p_holm: float, null_runs: int, margin: float = math.nan, least: float = 0.0) -> str:
    """The verdict's rule: "closer than chance" when the Holm-corrected one-sided p is at most ALPHA (and,
    with ``least`` > 0, the margin at least ``least``; below it "better than chance, by too little");
    "no null runs" without a null, "too few null runs" with one run or no spread to divide by."""
    if null_runs == 0:
        return UNTESTED
    if null_runs == 1 or math.isnan(p_holm):
        return TOO_FEW
    if p_holm > ALPHA:
        return NO_EVIDENCE
    return SLIGHT if least > 0 and not margin >= least else CLOSER


def verdict(z: float, null_runs: int | None = None) -> str:
    """The rule before issue 26 (z >= Z_THRESHOLD; kept for the old tables of benchmarks/closeness_paper.py):
    the plain verdict of a z-score; ``null_runs`` (when given) says why there is none: a single
    null run has no spread to measure a distance in."""
    if null_runs is not None and null_runs == 1:
        return TOO_FEW
    if math.isnan(z):
        return UNTESTED
    return CLOSER if z >= Z_THRESHOLD else NO_EVIDENCE


def mapping_agreement(a: CandidateRun, b: CandidateRun, weights: Mapping[str, float]) -> float:
    """How alike two runs' character mappings are: for each known unit, the overlap
    sum_l min(P_a(l | k), P_b(l | k)) of its distributions over lost letters, averaged with the
    unit's frequency in the vocabulary as weight (1 = the same mapping, 0 = disjoint)."""
    if a.mapping is None or b.mapping is None or a.known_units != b.known_units:
        return math.nan
    total = num = 0.0
    for k, unit in enumerate(a.known_units):
        w = weights.get(unit, 0.0)
        if w <= 0:
            continue
        num += w * float(np.minimum(a.mapping[k], b.mapping[k]).sum())
        total += w
    return num / total if total else math.nan


def decoding_agreement(a: CandidateRun, b: CandidateRun) -> float:
    """How alike two runs' readings are: letters in spans both runs decode identically (same place,
    same best stem) over the mean number of letters each decodes."""
    la = sum(e - s for _, s, e, _ in a.spans)
    lb = sum(e - s for _, s, e, _ in b.spans)
    if la + lb == 0:
        return math.nan
    same = set(a.spans) & set(b.spans)
    return sum(e - s for _, s, e, _ in same) / ((la + lb) / 2)


def _pairwise(results: Sequence[CandidateRun], fn) -> float:
    vals = [fn(a, b) for a, b in itertools.combinations(results, 2)]
    vals = [v for v in vals if not math.isnan(v)]
    return statistics.fmean(vals) if vals else math.nan


def _signal(real: Sequence[CandidateRun], nulls: Mapping[int, Sequence[CandidateRun]], fn) -> Signal | None:
    value = _pairwise(real, fn)
    if math.isnan(value):
        return None
    null_values = [v for v in (_pairwise(rs, fn) for rs in nulls.values()) if not math.isnan(v)]
    m, sd = _mean_sd(null_values)
    return Signal(value, m, sd, z_score(value, m, sd))


def summarise(plan: Plan, records: Iterable[ScoredRun],
              run_failures: Sequence[tuple[PlanItem, str]] = ()) -> Comparison:
    """Per candidate: mean and sd of its score over seeds, its nulls' mean and sd over every null
    run, z, empirical p and verdict, and the two consistency signals; best (highest score) first."""
    from engine.closeness.nulls import unit_counts

    trainings = list(records)
    records = keep_best_restarts(trainings)
    # Every null of a comparison is trained on the same lost text with the same settings, so their
    # spread is pooled over candidates; a candidate's z divides by the larger of its own null sd and
    # the pooled one: with a few null runs an sd can come out near zero by chance (2 Iberian null
    # runs of Basque: 0.0003, z 134), docs/closeness.md "The verdict".
    pooled = pooled_sd([[r.score for r in records if r.item.known == name and r.item.null is not None]
                        for name in plan.candidates])
    summaries = []
    for name in plan.candidates:
        mine = [r for r in records if r.item.known == name]
        real = [r for r in mine if r.item.null is None]
        if not real:
            continue
        null = [r for r in mine if r.item.null is not None]
        s_mean, s_sd = _mean_sd([r.score for r in real])
        n_mean, own_sd = _mean_sd([r.score for r in null])
        if len(null) == 1:  # one null run has no spread: no distance can be measured in it
            own_sd = math.nan
        n_sd = z_sd(own_sd, pooled)
        z = z_score(s_mean, n_mean, n_sd) if not math.isnan(n_sd) else math.nan
        counts = unit_counts(plan.matching.vocabularies[name].stems)
        weights = {u: float(c) for u, c in counts.items()}
        by_null: dict[int, list[CandidateRun]] = {}
        for r in null:
            by_null.setdefault(r.item.null, []).append(r.result)
        real_results = [r.result for r in real]
        # the margin over the null with both means' uncertainty: a pooled two-sample t test of the seeds
        # against the null vocabularies, s the larger of the null sd and the seeds' sd (docs/closeness.md)
        n_null = len(by_null)
        spread = max(n_sd, s_sd) if len(real) > 1 and not math.isnan(n_sd) else n_sd
        margin = s_mean - n_mean
        se = margin_se(spread, len(real), n_null) if len(null) > 1 else math.nan
        df = len(real) + n_null - 2
        t = math.nan if math.isnan(se) or df < 1 else (margin / se if se > 0 else z_score(s_mean, n_mean, 0.0))
        summaries.append(CandidateSummary(
            name, s_mean, s_sd, n_mean, n_sd, z, empirical_p(s_mean, [r.score for r in null]), "",
            len(real), len(null),
            _signal(real_results, by_null, lambda a, b: mapping_agreement(a, b, weights)),
            _signal(real_results, by_null, decoding_agreement), own_sd, pooled,
            margin, se, max(df, 0) if not math.isnan(t) else 0, t, t_sf(t, df) if df >= 1 else math.nan,
            n_null=n_null))
    adjusted = holm([s.p_t for s in summaries])
    least = min_margin(plan.score)
    summaries = [replace(s, p_holm=a, verdict=holm_verdict(a, s.n_null_runs, s.margin, least))
                 for s, a in zip(summaries, adjusted)]
    summaries.sort(key=rank_key)
    return Comparison(plan, records, summaries, list(run_failures), trainings)


def rank_key(s: CandidateSummary) -> tuple:
    """The order of the answer: by the margin over the candidate's own null where it has null runs,
    then those without (``--null 0``, or its nulls failed) by score. Not by the score alone: a list's
    form (its stem lengths, size and sound patterns) earns a score without any relation, and that
    differs between candidates more than their margins do (Gothic: null means 0.146 to 0.244, margins
    at most +0.041; docs/closeness.md, "Ranking"); the margin takes it out.
    """
    if not math.isnan(s.margin):
        return (0, -s.margin, -s.score_mean, s.known)
    return (1, -s.score_mean, -(s.z if not math.isnan(s.z) else -math.inf), s.known)


def _num_text(x: float, digits: int = 3) -> str:
    return "n/a" if math.isnan(x) else f"{x:+.{digits}f}".replace("-", "\u2212")


#: What a verdict can and cannot mean, by what the null keeps (the answer's one sentence).
#: What the distant null (engine/closeness/nulls.py) adds to "invented words with its sounds, word lengths and
#: sound patterns".
_DISTANT = ", none within one sound of its own words,"
_MEANING_PHONOTACTIC = ("\u201ccloser than chance\u201d means that the language\u2019s words cover the text better "
                        "than invented words with its sounds, word lengths and sound patterns{distant} do; it does "
                        "not prove a relation (a loan layer or chance resemblances can do it), it does not say how "
                        "close a relative is, and \u201cno evidence\u201d does not show that the languages are "
                        "unrelated.")
MEANING = {"phonotactic": _MEANING_PHONOTACTIC.format(distant=""),
           "distant": _MEANING_PHONOTACTIC.format(distant=_DISTANT)}
#: The same under the objective score (its least margin filled in).
MEANING_OBJECTIVE = ("\u201ccloser than chance\u201d means that the language\u2019s words, through the mapping each run "
                     "learns, explain the text better (a lower final training objective) than invented words with "
                     "its sounds, word lengths and sound patterns{distant} do, by at least {least:g} (a margin that every right "
                     "reading of our development alphabets but one exceeded); \u201cbetter than chance, by too little\u201d: "
                     "better than its nulls, by less than that (a loan layer, a distant relative or chance "
                     "resemblances can do it); neither proves a relation nor says how close a relative is, and "
                     "\u201cno evidence\u201d does not show that the languages are unrelated.")
MEANING_WEAK = ("\u201ccloser than chance\u201d means that the language\u2019s words cover the text better than its "
                "{mode} null, which does not keep which sounds start and end words and which follow which: a "
                "language with sound patterns like the text\u2019s can be \u201ccloser than chance\u201d without "
                "being related; \u201cno evidence\u201d does not show that the languages are unrelated.")


def caveats(comparison: Comparison) -> list[str]:
    """What weakens this comparison's verdicts: runs stopped before their annealing ended, fewer than
    MIN_SEEDS seeds or MIN_NULLS nulls per candidate, lists of different sizes (``--cap-stems``)."""
    out = []
    short = sorted({(r.result.steps, r.item.config.anneal_steps) for r in comparison.records
                    if r.result.steps < r.item.config.anneal_steps and r.result.stopped_at is None})
    if short:
        steps, anneal = short[0]
        out.append(f"the runs stopped at {steps} steps, before the model\u2019s annealing schedule ended "
                   f"({anneal} steps): scores of unfinished runs can rank candidates differently")
    plan = comparison.plan
    seeds = min((s.n_seeds for s in comparison.summaries), default=len(plan.seeds))
    nulls = min((s.n_null for s in comparison.summaries if s.n_null_runs), default=plan.n_null)
    if plan.n_null and (seeds < MIN_SEEDS or nulls < MIN_NULLS):
        out.append(f"only {seeds} seed{'s' if seeds != 1 else ''} \u00d7 {nulls} null{'s' if nulls != 1 else ''} "
                   f"per candidate (fewer than {MIN_SEEDS} \u00d7 {MIN_NULLS}): the intervals are wide and a "
                   "relative can come out \u201cno evidence\u201d")
    if not plan.n_null:
        out.append("no null vocabularies (--null 0): the scores are ranked, but nothing says whether any "
                   "language is closer than chance")
    kept = {m.name: m.kept for m in plan.matching.sizes}
    if len(set(kept.values())) > 1:
        sizes = ", ".join(f"{name} {n}" for name, n in kept.items())
        out.append(f"the candidates\u2019 lists differ in size ({sizes} stems): a longer list covers the text "
                   "differently at each confidence, so read each candidate\u2019s margin over its own nulls (the "
                   "ranking), not its score against another\u2019s")
    unsure = early_stop_unsure(comparison)
    if unsure:
        out.append(f"the verdict of {', '.join(unsure)} changes when the null runs stopped early are given "
                   f"{plan.early_stop:g} more (the gap: what the rule assumes no null still gains): rerun with "
                   "the early stop off (--early-stop 0) for a verdict that does not rest on it")
    return out


def early_stop_unsure(comparison: Comparison) -> list[str]:
    """The candidates whose verdict differs when every null run the early stop ended scores ``gap`` more
    than it did at its stop (the most the rule assumes a null still gains): their verdict may rest on
    the early stop. Empty when nothing was stopped."""
    plan = comparison.plan
    stopped = [r for r in comparison.records if r.result.stopped_at is not None]
    if not stopped or plan.early_stop <= 0:
        return []
    raised = [replace(r, score=min(1.0, r.score + plan.early_stop)) if r.result.stopped_at is not None else r
              for r in comparison.records]
    again = {s.known: s.verdict for s in summarise(plan, raised).summaries}
    return [s.known for s in comparison.summaries if again.get(s.known, s.verdict) != s.verdict]


def early_stop_counts(comparison: Comparison) -> dict[str, Any]:
    """How many null runs the early stop ended and the null steps it saved (of the planned steps)."""
    nulls = [r for r in comparison.records if r.item.null is not None]
    stopped = [r for r in nulls if r.result.stopped_at is not None]
    planned = sum(r.item.config.steps for r in nulls)
    saved = sum(r.item.config.steps - r.result.stopped_at for r in stopped)
    return {"gap": comparison.plan.early_stop, "checkpoints": list(CHECKPOINTS), "null_runs": len(nulls),
            "stopped": len(stopped), "null_steps_planned": planned, "null_steps_saved": saved}


def early_stop_line(comparison: Comparison) -> str:
    """The answer's line on the early stop (empty when it is off): the null runs it stopped as
    settled, per candidate, and the steps saved."""
    plan = comparison.plan
    if plan.early_stop <= 0:
        return ""
    c = early_stop_counts(comparison)
    parts = []
    for name in plan.candidates:
        nulls = [r for r in comparison.records if r.item.known == name and r.item.null is not None]
        steps = sorted({r.result.stopped_at for r in nulls if r.result.stopped_at is not None})
        n = sum(1 for r in nulls if r.result.stopped_at is not None)
        at = f" ({', '.join(f'stopped at step {s}: {SETTLED}' for s in steps)})" if steps else ""
        parts.append(f"{name} {n} of {len(nulls)}{at}")
    share = f"{100 * c['null_steps_saved'] / c['null_steps_planned']:.0f} %" if c["null_steps_planned"] else "n/a"
    return (f"Early stop (gap {plan.early_stop:g}): {c['stopped']} of {c['null_runs']} null runs stopped when at least "
            f"the gap below every seed of their candidate, {share} of the null runs’ steps saved: "
            + "; ".join(parts) + ".")


def answer_lines(comparison: Comparison) -> list[str]:
    """The answer in words: the candidates ranked by margin (:func:`rank_key`), each with its verdict and its margin over
    its own null with the (1 - 2 ALPHA) interval and the Holm-corrected p, one sentence on what the
    verdict can and cannot mean, and the caveats. Shown by ``decipher closeness``, written to
    answer.txt and shown in the app."""
    plan = comparison.plan
    tested = sum(1 for s in comparison.summaries if not math.isnan(s.p_t))
    level = round(100 * (1 - 2 * ALPHA))
    ranked = "by margin over" if any(not math.isnan(s.margin) for s in comparison.summaries) else "by score against"
    tests = (f"p one-sided, Holm-corrected over {tested} candidate{'s' if tested != 1 else ''}" if tested else
             "no candidate has the null runs a test needs, so no p")
    what = " (score: minus the final training objective)" if plan.score == "objective" else ""
    lines = [f"Which language is closest to {plan.lost.name}: the candidates ranked {ranked} their own "
             f"{plan.null_mode} null (margin = score \u2212 null mean, {level} % interval; {tests}){what}:"]
    for rank, s in enumerate(comparison.summaries, 1):
        lo, hi = s.margin_interval
        interval = "" if math.isnan(lo) else f" [{_num_text(lo)}, {_num_text(hi)}]"
        p = "" if math.isnan(s.p_holm) else f", p {s.p_holm:.3g}"
        lines.append(f"{rank}. {s.known}: {s.verdict} \u2014 score {s.score_mean:.3f}, margin "
                     f"{_num_text(s.margin)}{interval}{p}")
    for name, why in unranked(comparison):
        lines.append(f"\u2013 {name}: {why}")
    if plan.score == "objective" and plan.null_mode in ("phonotactic", "distant"):
        meaning = MEANING_OBJECTIVE.format(least=min_margin(plan.score), distant=(
            _DISTANT if plan.null_mode == "distant" else ""))
    else:
        meaning = MEANING.get(plan.null_mode) or MEANING_WEAK.format(mode=plan.null_mode)
    lines.append("What it means: " + meaning)
    early = early_stop_line(comparison)
    if early:
        lines.append(early)
    lines += [f"Caveat: {c}." for c in caveats(comparison)]
    return lines


def compare(lost: Corpus, candidates: Mapping[str, Vocabulary | str | os.PathLike], *,
            seeds: Sequence[int] = (0, 1, 2), n_null: int = 3, stems: int | None = None, steps: int | None = None,
            config: Config | None = None, run_fn: Callable[[PlanItem], CandidateRun | tuple] = train_run,
            out: str | os.PathLike | None = None, null_mode: str = DEFAULT_NULL_MODE, sample_seed: int = 0,
            on_run: Callable[[ScoredRun], None] | None = None, plot: bool = True, restarts: int = 1,
            early_stop: float = 0.0, observe: bool = False, score: str = DEFAULT_SCORE) -> Comparison:
    """Plan, run (one after another), summarise and, with ``out``, write the comparison's files."""
    plan = plan_comparison(lost, candidates, seeds=seeds, n_null=n_null, stems=stems, steps=steps,
                           config=config, null_mode=null_mode, sample_seed=sample_seed, restarts=restarts,
                           early_stop=early_stop, score=score)
    failures: list[tuple[PlanItem, str]] = []
    records = run_plan(plan, run_fn, on_run=on_run, failures=failures, observe=observe)
    comparison = summarise(plan, records, failures)
    if out is not None:
        write_comparison(out, comparison, plot=plot)
    return comparison


# ---------------------------------------------------------------------------------------------
# files


def unranked(comparison: Comparison) -> list[tuple[str, str]]:
    """(candidate, why) for every candidate without a score: its file could not be read, or none of
    its own runs finished. They follow the ranked rows of summary.csv, their verdict saying why."""
    ranked = {s.known for s in comparison.summaries}
    out = [(name, f"not compared: {why}") for name, why in comparison.plan.failures.items()]
    for name in comparison.plan.candidates:
        if name not in ranked:
            errors = [e for i, e in comparison.run_failures if i.known == name and i.null is None]
            out.append((name, "not compared: no run finished" + (f" ({errors[0]})" if errors else "")))
    return out


def unranked_rows(comparison: Comparison) -> list[tuple]:
    width = len(SUMMARY_COLUMNS) + len(SUMMARY_EXTRA)
    return [(name, "", "", "", "", "", why) + ("",) * (width - len(SUMMARY_COLUMNS)) for name, why in unranked(comparison)]


def write_comparison(out: str | os.PathLike, comparison: Comparison, *, plot: bool = True) -> list[Path]:
    """runs.csv, summary.csv, curves.csv, comparison.json and (when it can render) closeness.png."""
    import functools

    from engine.io.atomic import write_text
    from engine.io.tables import write_csv

    write_csv = functools.partial(write_csv, guard_formulas=True)   # the one formula guard, as every report
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "runs.csv", RUNS_COLUMNS + RUNS_EXTRA, (r.row for r in comparison.records))
    kept = {id(r.result) for r in comparison.records}
    write_csv(out / "restarts.csv", RESTARTS_COLUMNS,
              (r.restart_row + (int(id(r.result) in kept),) for r in comparison.trainings or comparison.records))
    write_csv(out / "summary.csv", SUMMARY_COLUMNS + SUMMARY_EXTRA,
              [s.row for s in comparison.summaries] + unranked_rows(comparison))
    write_csv(out / "curves.csv", ("known", "seed", "null", "confidence", "coverage"),
              ((r.item.known, r.item.seed, "" if r.item.null is None else r.item.null, c, v)
               for r in comparison.records for c, v in r.result.curve))
    plan = comparison.plan
    info = {
        "lost": plan.lost.name,
        "candidates": plan.candidates,
        "seeds": list(plan.seeds),
        "n_null": plan.n_null,
        "null_mode": plan.null_mode,
        "restarts": plan.restarts,
        "restart_choice": "per seed, the restart with the lowest final training objective "
                          "(engine/training/final_objective.py); candidates and nulls alike; gold never read",
        "matching": plan.matching.describe(),
        "stems": plan.matching.size,
        "score": ("minus the final training objective over the whole text (docs/closeness.md)"
                  if plan.score == "objective" else "area under coverage vs confidence (docs/closeness.md)"),
        "score_kind": plan.score,
        f"coverage_at_{DEFAULT_CONFIDENCE}": {s.known: statistics.fmean(
            coverage_at(r.result.curve) for r in comparison.records
            if r.item.known == s.known and r.item.null is None) for s in comparison.summaries},
        "z_threshold": Z_THRESHOLD,
        "early_stop": early_stop_counts(comparison),
        "failed_candidates": plan.failures,
        "failed_runs": [{"known": i.known, "seed": i.seed, "null": i.null, "error": e}
                        for i, e in comparison.run_failures],
    }
    least = min_margin(plan.score)
    info["verdict_rule"] = (f"closer than chance when the Holm-corrected one-sided t-test p of the margin is at most "
                            f"{ALPHA}" + (f" and the margin at least {least:g}" if least > 0 else "")
                            + " (docs/closeness.md)")
    info["caveats"] = caveats(comparison)
    from engine.io.atomic import atomic_path

    with atomic_path(out / "answer.txt") as tmp_answer:
        tmp_answer.write_text("\n".join(answer_lines(comparison)) + "\n", encoding="utf-8")
    write_text(out / "comparison.json", json.dumps(info, indent=2, ensure_ascii=False) + "\n")
    written = [out / n for n in ("runs.csv", "restarts.csv", "summary.csv", "curves.csv", "comparison.json",
                                 "answer.txt")]
    if plot:
        from engine.closeness.plot import render_comparison
        png = render_comparison(comparison, out / "closeness.png")
        if png is not None:
            written.append(png)
    return written


__all__ = [
    "ALPHA", "DEFAULT_SCORE", "MIN_NULLS", "MIN_SEEDS", "SCORES", "SLIGHT", "check_score", "min_margin", "score_of",
    "scored", "answer_lines", "caveats", "holm", "holm_verdict", "margin_se", "pins_without_stems", "t_quantile",
    "t_sf", "CLOSER", "CandidateSummary", "Comparison", "MAX_RESTARTS", "NO_EVIDENCE", "Plan", "PlanItem", "RESTARTS_COLUMNS",
    "RUNS_COLUMNS", "RUNS_EXTRA", "ScoredRun", "CandidateRun", "SUMMARY_COLUMNS", "SUMMARY_EXTRA", "Signal", "TOO_FEW",
    "UNTESTED", "Z_THRESHOLD", "as_result", "early_stop_counts", "early_stop_line", "stopped_text", "with_stop_rule", "check_restarts", "compare", "decoding_agreement", "empirical_p",
    "keep_best_restarts", "unranked", "load_candidates", "mapping_agreement", "plan_comparison", "record",
    "restart_seed", "run_plan", "summarise", "train_run", "verdict", "write_comparison", "z_score",
]
