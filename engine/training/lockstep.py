"""Runs as a batch dimension: R runs of one corpus stepped together, one edit DP pass per known
vocabulary and one word-boundary DP for all of them per step.

Each run keeps everything a single run has: its own :class:`~engine.training.trainer.Trainer` (model,
optimiser, batch sampler and its random streams, pins, checkpoint format, evaluation), its own
batches, its own dropout masks, its own schedules (learning rate, coverage target, curriculum) and
its own end. Only the work is shared: the runs' batches are merged, their starts scored in one pass
of the edit DP per known vocabulary (each start reads its own run's cost table, ``col_table``), and
the merged chunks go through one pass of the compiled lattice; the loss is the sum of the runs'
losses (the runs share no parameter, so each gets exactly its own gradient; clipping, the SGD step
and the divergence checks are per run). So the R runs are the R independent single runs, to float
rounding (tests/engine/test_multiseed.py, tests/engine/test_run_batch.py).

Which runs may share a batch is :func:`batch_key`'s to say: the same corpus and the same settings,
except those in :data:`PER_RUN_SETTINGS` (the seed, the step count, the optimiser's and the loss's
weights, dropout, evaluation); the known vocabulary and the pins may differ. Runs that restart,
narrow to candidate stems, polish, or resume a checkpoint have no key (they run alone).

Where the batch dimension lives, per step:

* the cost tables: one (K, C) table per run, stacked to (T, K, C) for the runs that share a known
  vocabulary (same stems, same known units: the pins may add units), with ``col_table`` naming each
  start's table. On the CPU the fused DP (numba) takes that directly; on CUDA the torch trie DP
  (``trie_span_log_probs(..., col_table=...)``, CUDA graphs included) does. Runs with different
  vocabularies are scored in one DP call per vocabulary (on the CPU that costs what separate runs
  cost; on CUDA it is one set of kernels per vocabulary: no padding of the stem axis, which would
  make every run pay for the largest vocabulary's trie);
* the lattice: every run's chunks are rows of one forward_sums call;
* everything else (dropout samples, regularisers, losses, optimiser steps) is per run.

A finished, stopped or diverged run leaves the batch and the others go on: a run whose loss or
parameters become non-finite ends failed with the TrainingDiverged its single run would raise.

    batch = RunBatch.build([RunInputs(corpus, vocab_a, cfg.replace(seed=0)), RunInputs(corpus, vocab_b, cfg)])
    for pairs in batch.run(): ...      # lists of (member, event): StepEvent, EvalEvent, FinishedEvent,
                                       # or the TrainingDiverged that ended that member

:class:`SeedGroup` is the K-seeds-of-one-setting special case (its historical interface);
:func:`train_sessions` drives one engine.runs.session.RunSession per member (begin, handle, end
instead of RunSession.run), so each run's sinks and checkpoints are what its single run's session
gives them; :func:`train_seeds` and :func:`train_seeds_in_folders` are its seed-group forms.
:func:`plan_batches` cuts many runs into batches by key and by the memory the device has free.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Generator, Sequence

import numpy as np
import torch

from engine.config import Config
from engine.model.lattice import forward_sums
from engine.model.objective import dp_log_probs, lattice_log_o, log_match_prior, pin_penalty, pin_probs
from engine.results import FinishedEvent, StepEvent
from engine.model.scoring import (SpanBatch, make_batch, place_emissions, resolve_impl, span_given_match,
                                  span_scores)
from engine.training.trainer import Trainer, TrainingDiverged, set_learning_rate

log = logging.getLogger(__name__)

#: Settings in which the runs of one batch may differ: each run reads them only in its own part of
#: a step (its schedules, its loss's weights, its dropout, its optimiser, its evaluation). Every
#: other setting shapes the prepared problem or the shared DP passes and must be equal.
PER_RUN_SETTINGS = frozenset({
    "seed", "steps", "lr", "lr_end_fraction", "clip_norm", "quality_weight", "coverage_weight",
    "coverage_start", "coverage_end", "sound_loss_weight", "pin_weight", "likelihood_weight", "dropout",
    "eval_interval", "top_k", "score_normalisation", "memory_limit_gb",
})


def unbatchable(config: Config) -> str | None:
    """Why a run of ``config`` cannot train in a batch (it runs alone), or None."""
    if config.restarts > 1:
        return "setting restarts > 1"
    if config.candidate_stems > 0:
        return "setting candidate_stems"
    if config.polish_moves > 0:
        return "setting polish_moves"
    if config.words_first > 0 and not config.segmented:
        return "setting words_first"
    return None


def batch_key(inputs) -> tuple | None:
    """Which runs may share a batch: runs with equal keys may. ``inputs``: an
    engine.runs.session.RunInputs. The key is the corpus (by digest) and every setting outside
    :data:`PER_RUN_SETTINGS`; the known vocabulary, the pins and the gold may differ. None for a
    run that must run alone: a resume, or a setting the batch cannot do (:func:`unbatchable`)."""
    from engine.inputs_digest import corpus_digest

    if inputs.resume is not None or unbatchable(inputs.config) is not None:
        return None
    return corpus_digest(inputs.corpus), tuple(sorted(shared_settings(inputs.config).items()))


# ---------------------------------------------------------------------------------------------
# memory


#: Of the memory a device has free, the part batches may plan to take (the rest is headroom for
#: the process's own growth, evaluation and other programs).
BATCH_MEMORY_SHARE = 0.5


def run_bytes(corpus, config: Config, vocabulary) -> int:
    """Memory one more run of a batch takes (bytes), estimated before anything is built: its share
    of the corpus's working memory (engine.model.prepared.BYTES_PER_LETTER a letter, the model behind
    check_memory; the base of a process is paid once per batch) plus one step's edit-DP working set:
    the span scores (stems x starts x length slots, with their gradient and copies) and the DP's
    cells kept for the backward pass (trie nodes x band cells x starts, three candidates each), in
    float64, with chars_per_batch starts."""
    from engine.model.prepared import BYTES_PER_LETTER

    letters = sum(len(ins.text) for ins in corpus.inscriptions)
    stems = vocabulary.stems if hasattr(vocabulary, "stems") else tuple(vocabulary)
    n_stems = max(1, len(stems))
    nodes = sum(len(s.ipa) for s in stems) or 1          # at most one trie node a unit
    slots = 1 if config.segmented else config.max_span - config.min_span + 1
    cells = 2 * config.band + 1
    starts = config.chars_per_batch
    step = 8 * starts * (4 * n_stems * slots + 4 * cells * nodes)
    return BYTES_PER_LETTER * letters + step


def free_bytes(device: str | torch.device = "cpu") -> tuple[int | None, str]:
    """(bytes free, where the figure comes from) on ``device``: torch.cuda.mem_get_info on a GPU,
    the system's available memory (MemAvailable) on the CPU; None where nothing says."""
    device = torch.device(device)
    if device.type == "cuda":
        free, _ = torch.cuda.mem_get_info(device)
        return int(free), f"free on {torch.cuda.get_device_name(device)}"
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024, "available memory"
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"), "free memory"
    except (ValueError, OSError, AttributeError):
        return None, ""


def batch_size(per_run: int, device: str | torch.device = "cpu", budget: int | None = None) -> tuple[int, str]:
    """How many runs of ``per_run`` bytes one batch may hold on ``device``, and the line saying why:
    :data:`BATCH_MEMORY_SHARE` of what the device has free (or of ``budget`` bytes, when given),
    at least 1 (a run alone is what an unbatched run would take anyway)."""
    if budget is None:
        free, where = free_bytes(device)
        if free is None:
            return 1 << 30, "batch size: no memory figure on this system; one batch"
        budget = int(free * BATCH_MEMORY_SHARE)
        said = f"{BATCH_MEMORY_SHARE:.0%} of {free / 2**20:,.0f} MB {where}"
    else:
        said = f"a budget of {budget / 2**20:,.1f} MB"
    n = max(1, budget // max(1, per_run))
    return int(n), f"batch size: about {per_run / 2**20:,.1f} MB a run, {said}: at most {n} runs a batch"


def plan_batches(inputs: Sequence, *, budget: int | None = None) -> list[list[int]]:
    """Cut runs (engine.runs.session.RunInputs) into batches: the indices of each batch, in order.
    Runs with equal :func:`batch_key` share batches of at most :func:`batch_size` runs (a group too
    large for the device's memory becomes several batches, run one after another); a run without
    a key is a batch of its own."""
    groups: dict = {}
    order: list = []
    for i, item in enumerate(inputs):
        key = batch_key(item)
        key = ("alone", i) if key is None else key
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(i)
    out: list[list[int]] = []
    for key in order:
        members = groups[key]
        if len(members) > 1:
            first = inputs[members[0]]
            per_run = max(run_bytes(first.corpus, inputs[i].config, inputs[i].vocabulary) for i in members)
            size, line = batch_size(per_run, _device_of(first.config), budget)
            log.info("%s (%d runs)", line, len(members))
        else:
            size = 1
        out.extend(members[i:i + size] for i in range(0, len(members), size))
    return out


def _device_of(config: Config) -> torch.device:
    from engine.training.trainer import resolve_device

    return resolve_device(config.device)


# ---------------------------------------------------------------------------------------------
# the batch


def merge_batches(batches: Sequence[SpanBatch]) -> tuple[SpanBatch, torch.Tensor, list[tuple[int, int]]]:
    """One SpanBatch holding every run's batch (chunk rows and starts one after the other), the
    table (run) of each start, and each run's range of chunk rows."""
    rows, tables = [], []
    offset = 0
    for k, b in enumerate(batches):
        B = b.chunk_len.shape[0]
        rows.append((offset, offset + B))
        tables.append(torch.full((b.n_starts,), k, dtype=torch.long))
        offset += B
    merged = SpanBatch(
        chunk_indices=[c for b in batches for c in b.chunk_indices],
        chunk_len=torch.cat([b.chunk_len for b in batches]),
        start_chunk=torch.cat([b.start_chunk + r[0] for b, r in zip(batches, rows)]),
        start_offset=torch.cat([b.start_offset for b in batches]),
        windows=torch.cat([b.windows for b in batches]),
        span_len=torch.cat([b.span_len for b in batches]),
        valid=torch.cat([b.valid for b in batches]),
        lattice_lengths=batches[0].lattice_lengths,
    )
    return merged, torch.cat(tables), rows


def _dp_key(prep) -> tuple:
    """Runs whose prepared problems have equal keys share one edit DP call: the same stems (trie)
    and the same table shape (known units: a pin may add one)."""
    return (tuple(prep.known_units), prep.stem_units.numpy().tobytes(), tuple(prep.stem_units.shape),
            prep.stem_len.numpy().tobytes(), len(prep.vowel_pairs))


@dataclass
class _Member:
    trainer: Trainer
    torch_rng: tuple          # (CPU generator state, the GPU's or None): _rng_state
    numpy_rng: tuple
    dp_key: tuple
    total: int | None = None
    stop: bool = False
    done: bool = False
    t_start: float = 0.0


class RunBatch:
    """R trainers of one corpus and batch key (:func:`batch_key`) stepped together (see the module's
    docstring). Build with :meth:`build` (fresh runs from RunInputs) or from trainers made with
    :func:`make_member_trainer`."""

    def __init__(self, members: Sequence[tuple[Trainer, tuple, tuple]]):
        if not members:
            raise ValueError("a batch needs at least one run")
        self._m: list[_Member] = []
        preps: dict = {}
        for trainer, t_rng, n_rng in members:
            key = _dp_key(trainer.prep)
            preps.setdefault(key, trainer.prep)
            self._m.append(_Member(trainer, t_rng, n_rng, key))
        #: one prepared problem per DP group scores its DP (it caches the stem trie)
        self._dp_prep = preps
        first = self._m[0].trainer
        self.device = first.device
        shared = shared_settings(first.config)
        for m in self._m[1:]:
            if shared_settings(m.trainer.config) != shared or m.trainer.device != self.device:
                raise ValueError("the runs of a batch must share their corpus and every setting outside "
                                 "PER_RUN_SETTINGS (engine/training/lockstep.py batch_key)")
            if list(m.trainer.prep.lost_letters) != list(first.prep.lost_letters) or \
                    len(m.trainer.prep.chunks) != len(first.prep.chunks):
                raise ValueError("the runs of a batch must share their corpus")
        for m in self._m:
            why = unbatchable(m.trainer.config)
            if why is not None:
                raise ValueError(f"{why}: such a run cannot train in a batch; run it alone")
        self.impl = resolve_impl("auto", self.device)

    @classmethod
    def build(cls, inputs: Sequence) -> "RunBatch":
        """Fresh trainers for ``inputs`` (engine.runs.session.RunInputs, no resume), as one batch."""
        return cls([make_member_trainer(i) for i in inputs])

    # ---- members ----
    @property
    def trainers(self) -> list[Trainer]:
        return [m.trainer for m in self._m]

    def __len__(self) -> int:
        return len(self._m)

    @property
    def active(self) -> list[int]:
        """The members still in the batch."""
        return [k for k, m in enumerate(self._m) if not m.done]

    def request_stop(self, k: int | None = None) -> None:
        """Member ``k`` (default: every member) finishes after the current step, as Trainer.request_stop."""
        for j, m in enumerate(self._m):
            if k is None or j == k:
                m.stop = True

    def drop(self, k: int) -> None:
        """Member ``k`` leaves the batch at once, without a final evaluation (an aborted or failed run)."""
        self._m[k].done = True

    @contextlib.contextmanager
    def random_streams(self, k: int):
        """Run a block with member k's torch and numpy random streams (and keep what it drew)."""
        m = self._m[k]
        device = m.trainer.device
        outer_t, outer_n = _rng_state(device), np.random.get_state()
        _set_rng_state(m.torch_rng, device)
        np.random.set_state(m.numpy_rng)
        try:
            yield
        finally:
            m.torch_rng = _rng_state(device)
            m.numpy_rng = np.random.get_state()
            _set_rng_state(outer_t, device)
            np.random.set_state(outer_n)

    def state(self, k: int) -> dict:
        """Member k's checkpoint state, exactly what its single run's Trainer.state() would hold."""
        with self.random_streams(k):
            return self._m[k].trainer.state()

    def save_checkpoint(self, k: int, path: str | Path) -> Path:
        with self.random_streams(k):
            return self._m[k].trainer.save_checkpoint(path)

    # ---- one step ----
    def next_batches(self, members: Sequence[int]) -> list[SpanBatch]:
        """Each member's next batch, as its Trainer.run would draw it (the long-spans-first floor too)."""
        out = []
        for k in members:
            t = self._m[k].trainer
            floor = t.config.span_floor(t.step)
            t.sampler.min_length = floor
            out.append(make_batch(t.prep, t.sampler.next_batch(), min_span=floor))
        return out

    def member_losses(self, members: Sequence[int], batches: Sequence[SpanBatch]):
        """Each member's loss on its batch (as Trainer's batch_objective computes it), with its parts
        and coverage ratio, sharing one edit DP per DP group and one lattice pass. Returns, in the
        order of ``members``, (loss, parts, coverage ratio)."""
        first_t = self._m[members[0]].trainer
        step = first_t.step
        tables, regularisers = {}, {}
        for k in members:
            t = self._m[k].trainer
            with self.random_streams(k):
                tables[k] = dp_log_probs(t.model, t.config, t.step)
                # the second dropout sample (Omega_loss, pins), drawn in the single run's order; a
                # syllable model's Omega_loss and pin table draw fresh dropout samples of their own, so
                # they too are computed inside the member's streams
                probs = t.model.log_probs(dropout=True).exp()
                regularisers[k] = (t.model.sound_loss(probs),
                                   pin_penalty(pin_probs(t.model, probs, True), t._pin_index))
        # the merged batch holds the members DP group by group, so each group's starts are one slice
        groups: dict = {}
        for k, b in zip(members, batches):
            groups.setdefault((self._m[k].dp_key, self._m[k].trainer.config.insertion_cost(self._m[k].trainer.step)),
                              []).append((k, b))
        order = [kb for g in groups.values() for kb in g]
        merged, col_all, rows = merge_batches([b for _, b in order])
        row_of = {k: rows[i] for i, (k, _) in enumerate(order)}
        merged = merged.to(self.device)
        log_e_parts = []
        for (dp_key, gamma), group in groups.items():
            # one group: its batch is the merged one (no second merge)
            sub, col_table = (merged, col_all) if len(groups) == 1 else merge_batches([b for _, b in group])[:2]
            prep = self._dp_prep[dp_key]
            stack = torch.stack([tables[k] for k, _ in group])
            t0 = self._m[group[0][0]].trainer
            scores = span_scores(stack, prep, sub.to(self.device), gamma, t0._units, t0._lens, impl=self.impl,
                                 col_table=col_table.to(self.device))
            log_e_parts.append(span_given_match(scores, prep.n_stems))
        log_e = log_e_parts[0] if len(log_e_parts) == 1 else torch.cat(log_e_parts)
        prep = first_t.prep
        cfg = first_t.config
        emit = place_emissions(log_e + log_match_prior(prep), merged)
        log_r = math.log(cfg.reward_scale) + log_e / merged.span_len.to(log_e.dtype)
        reward = place_emissions(log_r, merged)
        sums = forward_sums(emit, reward, merged.chunk_len, merged.lattice_lengths, lattice_log_o(prep))
        out = []
        for k in members:
            t = self._m[k].trainer
            cfg = t.config
            a, b = row_of[k]
            n_chars = float(merged.chunk_len[a:b].sum())
            quality = sums.quality[a:b].sum() / n_chars
            cov_ratio = sums.coverage[a:b].sum() / n_chars
            coverage_loss = torch.clamp(cfg.coverage_target(step) - cov_ratio, min=0.0)
            sound, pin_term = regularisers[k]
            sound = sound / n_chars
            likelihood = -sums.log_px[a:b].sum() / n_chars
            loss = (-cfg.quality_weight * quality + cfg.coverage_weight * coverage_loss
                    + cfg.sound_loss_weight * sound + cfg.pin_weight * pin_term)
            if cfg.likelihood_weight:
                loss = loss + cfg.likelihood_weight * likelihood
            parts = {"total": float(loss.detach()), "quality": float(quality.detach()),
                     "coverage": float(coverage_loss.detach()), "sound_loss": float(sound.detach()),
                     "pins": float(pin_term.detach()), "log_likelihood": float(-likelihood.detach())}
            out.append((loss, parts, float(cov_ratio.detach())))
        return out

    def step_members(self, members: Sequence[int], batches: Sequence[SpanBatch] | None = None):
        """One SGD step for each of ``members`` (each on its own next batch unless ``batches`` are
        given). Returns, in order, (parts, coverage ratio) of a member that stepped, or the
        TrainingDiverged of one whose loss or parameters became non-finite (it did not step, as its
        single run would have raised there)."""
        if batches is None:
            batches = self.next_batches(members)
        results = self.member_losses(members, batches)
        for k in members:
            self._m[k].trainer.optimizer.zero_grad(set_to_none=True)
        torch.stack([r[0] for r in results]).sum().backward()
        out: list = []
        for k, (loss, parts, cov) in zip(members, results):
            t = self._m[k].trainer
            cfg = t.config
            if cfg.clip_norm > 0:
                torch.nn.utils.clip_grad_norm_(t.model.parameters(), cfg.clip_norm)
            if not torch.isfinite(loss):
                out.append(TrainingDiverged(f"the loss became {float(loss.detach())} at step {t.step + 1}"))
                continue
            set_learning_rate(t.optimizer, cfg.learning_rate(t.step))
            t.optimizer.step()
            if not t._parameters_finite():
                out.append(TrainingDiverged(f"the model's parameters became non-finite at step {t.step + 1}"))
                continue
            t.step += 1
            out.append((parts, cov))
        return out

    def run(self, steps: int | None = None) -> Generator[list, None, None]:
        """Train every member to ``steps`` (default: each member's settings' steps). Yields lists of
        (member, event), one phase at a time: the step's StepEvents; the EvalEvents of members at an
        evaluation step; for members that end, their last EvalEvent, then their FinishedEvent (or
        their TrainingDiverged: the member failed and left). Each member gets the events its
        Trainer.run would give it."""
        now = time.perf_counter()
        for m in self._m:
            m.total = m.trainer.config.steps if steps is None else steps
            m.t_start = now - m.trainer.elapsed
        while True:
            leaving = []
            for k in self.active:
                m = self._m[k]
                if m.trainer.step >= m.total:
                    leaving.append((k, "completed"))
                elif m.stop:
                    leaving.append((k, "stopped"))
            if leaving:
                yield from self._finish(leaving)
            stepping = self.active
            if not stepping:
                return
            results = self.step_members(stepping)
            steps_done, failed = [], []
            for k, r in zip(stepping, results):
                m = self._m[k]
                t = m.trainer
                if isinstance(r, TrainingDiverged):
                    m.done = True
                    failed.append((k, r))
                    continue
                parts, cov = r
                t.elapsed = time.perf_counter() - m.t_start
                cfg = t.config
                steps_done.append((k, StepEvent(t.step, m.total, parts, cov, cfg.insertion_cost(t.step),
                                                cfg.coverage_target(t.step), t.elapsed, phase=t.phase(t.step - 1))))
            if failed:
                yield failed
            if steps_done:
                yield steps_done
            evals = []
            for k, _ in steps_done:
                m = self._m[k]
                t, cfg = m.trainer, m.trainer.config
                if not m.done and cfg.eval_interval > 0 and t.step % cfg.eval_interval == 0 and t.step < m.total:
                    evals.append((k, t._eval_event()))
            if evals:
                yield evals

    def _finish(self, leaving):
        finals = [(k, self._m[k].trainer._eval_event()) for k, reason in leaving
                  if self._m[k].trainer.step > 0 or reason == "completed"]
        if finals:
            yield finals
        out = []
        for k, reason in leaving:
            m = self._m[k]
            if m.done:            # dropped while its final evaluation was handled
                continue
            m.trainer.elapsed = time.perf_counter() - m.t_start
            m.done = True
            out.append((k, FinishedEvent(m.trainer.step, reason, m.trainer.elapsed)))
        if out:
            yield out

    def train(self, steps: int | None = None) -> None:
        for _ in self.run(steps):
            pass


def shared_settings(config: Config) -> dict:
    """The settings every run of a batch must share: all but :data:`PER_RUN_SETTINGS`."""
    return {k: v for k, v in config.to_dict().items() if k not in PER_RUN_SETTINGS}


def make_member_trainer(inputs, prep=None) -> tuple[Trainer, torch.Tensor, tuple]:
    """A fresh Trainer for ``inputs`` and the torch and numpy random streams it leaves (Trainer()
    seeds both and draws the model's initial values: a batch switches to a member's streams whenever
    that member draws). ``prep``: a prepared problem to share (one whose inputs are this run's)."""
    if inputs.resume is not None:
        raise ValueError("a batch trains fresh runs; resume a run on its own")
    # one prepared problem for all (it caches the stem trie); preparing draws no random number, so
    # the member's streams are its single run's
    t = Trainer(inputs.corpus, inputs.vocabulary, inputs.config, gold=inputs.gold, pins=list(inputs.pins or ()),
                live_interval=None, prepared=prep)
    return t, _rng_state(t.device), np.random.get_state()


def _rng_state(device: torch.device) -> tuple[torch.Tensor, torch.Tensor | None]:
    """torch's random streams a run draws from: the CPU generator's state, and on a GPU that device's
    (dropout on a CUDA tensor draws there: without it the members of a CUDA batch would share one stream)."""
    cuda = torch.cuda.get_rng_state(device) if device.type == "cuda" else None
    return torch.get_rng_state(), cuda


def _set_rng_state(state: tuple[torch.Tensor, torch.Tensor | None], device: torch.device) -> None:
    cpu, cuda = state
    torch.set_rng_state(cpu)
    if cuda is not None:
        torch.cuda.set_rng_state(cuda, device)


def refuse_for_group(config: Config) -> None:
    """InputError, in one line, for a setting seeds trained together cannot do (:func:`unbatchable`)."""
    from engine.errors import InputError

    why = unbatchable(config)
    if why is not None:
        raise InputError(f"{why}: seeds trained together in one batch do not support it; run each seed on "
                         "its own (decipher run --seeds does)")


class SeedGroup(RunBatch):
    """K trainers of one setting, differing only in their seed, stepped together (a RunBatch whose
    members share one prepared problem). Unlike a general batch, a diverged seed raises for the group
    from :meth:`train_step` and :meth:`run`, as it always did."""

    def __init__(self, corpus, vocabulary, config: Config, seeds: Sequence[int], *, gold=(), pins=(),
                 states: Sequence[dict | None] | None = None):
        from engine.runs.session import RunInputs

        if not seeds:
            raise ValueError("a seed group needs at least one seed")
        if len(set(seeds)) != len(seeds):
            raise ValueError(f"the seeds must differ, got {list(seeds)}")
        refuse_for_group(config)
        self.seeds = [int(s) for s in seeds]
        states = list(states) if states is not None else [None] * len(seeds)
        members = []
        for seed, state in zip(self.seeds, states):
            if state is None:
                members.append(make_member_trainer(RunInputs(corpus, vocabulary, config.replace(seed=seed),
                                                             gold=tuple(gold), pins=tuple(pins)),
                                                   members[0][0].prep if members else None))
                continue
            t = Trainer(corpus, vocabulary, config.replace(seed=seed), gold=gold, pins=pins, state=state,
                        live_interval=None, prepared=members[0][0].prep if members else None)
            members.append((t, _rng_state(t.device), np.random.get_state()))
        super().__init__(members)
        self.prep = self.trainers[0].prep
        self.config = self.trainers[0].config

    @property
    def step(self) -> int:
        return self.trainers[0].step

    def train_step(self, batches: Sequence[SpanBatch] | None = None) -> list[tuple[dict, float]]:
        """One SGD step for every seed (each on its own next batch unless ``batches`` are given)."""
        results = self.step_members(list(range(len(self))), batches)
        for k, r in enumerate(results):
            if isinstance(r, TrainingDiverged):
                raise TrainingDiverged(f"seed {self.seeds[k]}: {r}")
        return results

    def losses(self, batches: Sequence[SpanBatch], step: int | None = None):
        """Every seed's (loss, parts, coverage ratio) on its batch at the group's step."""
        return self.member_losses(list(range(len(self))), batches)

    def run(self, steps: int | None = None) -> Generator[list, None, None]:
        """As RunBatch.run, as lists of the K seeds' events (a diverged seed raises TrainingDiverged)."""
        for pairs in super().run(steps):
            for k, ev in pairs:
                if isinstance(ev, TrainingDiverged):
                    raise TrainingDiverged(f"seed {self.seeds[k]}: {ev}")
            yield [ev for _, ev in pairs]


# ---------------------------------------------------------------------------------------------
# one run session per member


class _MemberTrainer:
    """Member k of a batch as its run session sees a trainer: the member's Trainer, except that its
    checkpoint is written with the member's own random streams and a stop stops that member."""

    def __init__(self, batch: RunBatch, k: int):
        self._batch, self._k = batch, k

    def __getattr__(self, name):
        return getattr(self._batch.trainers[self._k], name)

    def save_checkpoint(self, path: str | Path) -> Path:
        return self._batch.save_checkpoint(self._k, path)

    def request_stop(self) -> None:
        self._batch.request_stop(self._k)


def train_sessions(sessions: Sequence, *, steps: int | None = None, together: bool = False,
                   handle_signals: bool = False) -> list:
    """Train the runs of ``sessions`` (engine.runs.session.RunSession, each with fresh RunInputs of one
    batch key) as one RunBatch, each under its own session: its sinks and checkpoints get what its
    single run's session would give them (RunSession.run is begin, handle, end; here the batch feeds
    the events), with the memory check, the warnings and the estimate before the trainers are
    built. Returns, per session, its RunOutcome or the exception that failed it (the session was told).

    Independent runs (``together`` False): a run that fails (its trainer cannot be built, it
    diverges, a critical sink of its own fails), is stopped or aborted through its session, or
    finishes, leaves the batch; the others go on. ``together`` (a seed group): a stop or an abort
    of any session ends every run, and a failure fails every run (raised, after each session was
    told). Pause holds the whole batch either way (one thread trains it). Pins sent to a session
    fail its run (a batch's runs keep the pins they started with). ``handle_signals`` (main thread
    only): the first SIGINT/SIGTERM ends every run after the current step with a checkpoint
    (interrupted), a second raises KeyboardInterrupt.
    """
    sessions = list(sessions)
    results: list = [None] * len(sessions)
    t0 = time.perf_counter()
    restore = sessions[0].install_signal_handlers() if handle_signals and sessions else None
    live: dict[int, object] = {}           # session index -> its member index in the batch

    def fail(i: int, exc: BaseException) -> None:
        sessions[i].fail(exc)
        results[i] = exc
        if i in live:
            batch.drop(live.pop(i))

    try:
        members, index = [], []
        preps: dict = {}
        for i, session in enumerate(sessions):
            try:
                session.prelude()
                inputs = session.inputs
                key = (id(inputs.vocabulary), tuple(inputs.pins or ()), tuple(sorted(
                    (k, v) for k, v in inputs.config.to_dict().items() if k != "seed")))
                member = make_member_trainer(inputs, preps.get(key))
                preps.setdefault(key, member[0].prep)
            except Exception as exc:  # noqa: BLE001 - the run failed to start, as its single run would
                if together:
                    raise
                fail(i, exc)
                continue
            members.append(member)
            index.append(i)
        if not members:
            return results
        batch = RunBatch(members)
        by_member = dict(enumerate(index))
        for k, i in by_member.items():
            sessions[i].begin(_MemberTrainer(batch, k), t0=t0)
            live[i] = k
        gen = batch.run(steps)
        try:
            for pairs in gen:
                for k, event in pairs:
                    i = by_member[k]
                    if i not in live:
                        continue
                    if isinstance(event, TrainingDiverged):
                        if together:
                            raise event
                        live.pop(i)
                        sessions[i].fail(event)
                        results[i] = event
                        continue
                    try:
                        reason, _ = sessions[i].handle(event, take_pins=False)
                        if reason is not None:
                            batch.drop(k)
                            live.pop(i)
                            results[i] = sessions[i].end(reason)
                    except Exception as exc:  # noqa: BLE001 - this run failed; the others go on
                        if together:
                            raise
                        fail(i, exc)
                for i in [i for i in live if sessions[i].pins_pending]:     # before any sink hears of them
                    exc = ValueError("the runs of a batch train with the pins they started with; "
                                     "change pins in a single run")
                    if together:
                        raise exc
                    fail(i, exc)
                if together:
                    if any(s.stopping for s in sessions):
                        batch.request_stop()
                    aborted = next((s for s in sessions if s.aborted_as is not None), None)
                    if aborted is not None:
                        # one session was aborted (a command, a signal), maybe after the others had
                        # taken this step: every run ends here, without the final evaluation, as an
                        # aborted single run does, every one as that one (stopped or interrupted)
                        for i in list(live):
                            if sessions[i].aborted_as is None:
                                sessions[i].abort(aborted.note)
                            live.pop(i)
                            results[i] = sessions[i].end(aborted.aborted_as)
                elif restore is not None and any(s.aborted_as == "interrupted" for s in sessions):
                    for i in list(live):          # a signal ends every run
                        if sessions[i].aborted_as is None:
                            sessions[i].abort(next(s.note for s in sessions if s.aborted_as == "interrupted"))
                        batch.drop(live[i])
                        live.pop(i)
                        results[i] = sessions[i].end(sessions[i].aborted_as)
                if not live:
                    break
        finally:
            gen.close()
        return results
    except BaseException as e:
        for i, session in enumerate(sessions):
            if results[i] is None:
                session.fail(e)
        raise
    finally:
        if restore is not None:
            restore()
        for session in sessions:
            session.close()


def train_seeds(inputs, seeds: Sequence[int], *, sinks_for: Callable[[int], Sequence] | None = None,
                checkpoint_for: Callable[[int], Path | None] | None = None, steps: int | None = None,
                checkpoint_every_s: float | None = None, clock: Callable[[], float] | None = None,
                sessions: list | None = None, handle_signals: bool = False):
    """Train ``inputs`` (an engine.runs.session.RunInputs, not a resume) once per seed, as one group,
    each seed under its own engine.runs.session.RunSession (:func:`train_sessions` with
    ``together``).

    ``sinks_for(seed)``: that seed's RunSinks (e.g. an OutputFolder for DIR/seed-K);
    ``checkpoint_for(seed)``: that seed's checkpoint file, or None. Each seed's session gives its
    sinks and checkpoints what a single run's would: started, step, evaluation, checkpoint (after
    the first step, at every evaluation, every ``checkpoint_every_s`` of ``clock``, at the end),
    paused / resumed, finishing, finished or failed, and close. ``sessions``: a list that receives
    the K sessions before training starts, so another thread can pause, resume, stop or abort
    (a command to any seed's session holds or ends the whole group; pins sent to a seed's session
    fail the group, since its seeds keep the pins they started with).
    ``handle_signals`` (main thread only): the first SIGINT/SIGTERM ends every seed after the
    current step with a checkpoint (status interrupted), a second raises KeyboardInterrupt.
    Returns one engine.runs.session.RunOutcome per seed, in order; a failure (a diverged seed too)
    fails every seed and is raised.
    """
    from dataclasses import replace

    from engine.runs.session import CHECKPOINT_EVERY_S, RunSession

    if inputs.resume is not None:
        raise ValueError("a seed group starts fresh runs; resume a seed as a single run")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"the seeds must differ, got {list(seeds)}")
    refuse_for_group(inputs.config)
    options = {"checkpoint_every_s": CHECKPOINT_EVERY_S if checkpoint_every_s is None else checkpoint_every_s}
    if clock is not None:
        options["clock"] = clock
    group_sessions = [RunSession(replace(inputs, config=inputs.config.replace(seed=s)),
                                 sinks=list(sinks_for(s)) if sinks_for else [],
                                 checkpoint=checkpoint_for(s) if checkpoint_for else None, **options)
                      for s in seeds]
    if sessions is not None:
        sessions.extend(group_sessions)
    return train_sessions(group_sessions, steps=steps, together=True, handle_signals=handle_signals)


def train_seeds_in_folders(inputs, seeds: Sequence[int], folder_for: Callable[[int], Path], *,
                           sinks_for: Callable[[int], Sequence] | None = None, steps: int | None = None):
    """engine.runs.outputs.run_in_folder for K seeds at once: seed s writes ``decipher run --out``
    outputs (checkpoint.pt, metrics.json, matches.csv, steps.csv) to ``folder_for(s)``."""
    from engine.runs.outputs import OutputFolder, prepare_output_folder

    folders = {s: prepare_output_folder(Path(folder_for(s))) for s in seeds}
    return train_seeds(inputs, seeds, steps=steps,
                       sinks_for=lambda s: [OutputFolder(folders[s]), *(sinks_for(s) if sinks_for else ())],
                       checkpoint_for=lambda s: folders[s] / "checkpoint.pt")
