"""K seeds of one setting trained in lockstep: one edit DP and one word-boundary DP per step for all.

Each seed keeps everything a single run has: its own :class:`~engine.training.trainer.Trainer` (model,
optimiser, batch sampler and its random streams, checkpoint format, evaluation), its own batches
and its own dropout masks. Only the work is shared: the K seeds' batches are merged and scored in
one pass of the fused edit DP (each start reads its own seed's cost table) and one pass of the
compiled lattice, and the loss is the sum of the K seeds' losses (the seeds share no parameter, so
each gets exactly its own gradient; clipping and the SGD step are per seed). So the K runs are the
K independent single runs, to float rounding (tests/engine/test_multiseed.py).

    group = SeedGroup(corpus, vocabulary, config, seeds=[0, 1, 2, 3, 4], gold=gold)
    group.train()                      # or: for events in group.run(): ...
    group.trainers[k]                  # seed k's Trainer: evaluate(), mapping(), save_checkpoint()

:func:`train_seeds` runs a group with one engine.runs.session.RunSession per seed (RunSession.begin,
handle, end instead of RunSession.run): each seed's sinks and checkpoints are what its single run's
session would give them, and one outcome per seed comes back.
"""

from __future__ import annotations

import contextlib
import math
import time
from pathlib import Path
from typing import Callable, Generator, Sequence

import numpy as np
import torch

from engine.config import Config
from engine.model.lattice import forward_sums
from engine.model.objective import dp_log_probs, lattice_log_o, log_match_prior, pin_penalty, pin_probs
from engine.results import FinishedEvent, StepEvent
from engine.model.scoring import SpanBatch, make_batch, place_emissions, span_given_match, span_scores
from engine.training.trainer import Trainer, TrainingDiverged, set_learning_rate


def merge_batches(batches: Sequence[SpanBatch]) -> tuple[SpanBatch, torch.Tensor, list[tuple[int, int]]]:
    """One SpanBatch holding every seed's batch (chunk rows and starts one after the other), the
    seed of each start, and each seed's range of chunk rows."""
    rows, starts, tables = [], 0, []
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


class SeedGroup:
    """K trainers of one setting, differing only in their seed, stepped together on the CPU."""

    def __init__(self, corpus, vocabulary, config: Config, seeds: Sequence[int], *, gold=(), pins=(),
                 states: Sequence[dict | None] | None = None):
        if not seeds:
            raise ValueError("a seed group needs at least one seed")
        if len(set(seeds)) != len(seeds):
            raise ValueError(f"the seeds must differ, got {list(seeds)}")
        if config.candidate_stems > 0:
            from engine.errors import InputError
            raise InputError("setting candidate_stems: seeds trained together (--seeds) do not support it yet; "
                             "run each seed on its own")
        if config.restarts > 1:
            from engine.errors import InputError
            raise InputError("setting restarts: seeds trained in lockstep do not support it; run each seed on its "
                             "own (decipher run --seeds does)")
        if config.polish_moves > 0:
            from engine.errors import InputError
            raise InputError("setting polish_moves: seeds trained in lockstep do not support it; run each seed on "
                             "its own (decipher run --seeds does)")
        self.seeds = [int(s) for s in seeds]
        self.trainers: list[Trainer] = []
        self._torch_rng: list[torch.Tensor] = []
        self._numpy_rng: list[tuple] = []
        states = list(states) if states is not None else [None] * len(seeds)
        for seed, state in zip(self.seeds, states):
            # Trainer() seeds torch and numpy and draws the model's initial values: keep each seed's
            # streams as a single run would have them, and switch to them whenever that seed draws.
            t = Trainer(corpus, vocabulary, config.replace(seed=seed), gold=gold, pins=pins, state=state,
                        live_interval=None)
            self._torch_rng.append(torch.get_rng_state())
            self._numpy_rng.append(np.random.get_state())
            if self.trainers:       # one prepared problem for all (it caches the stem trie)
                t.prep = t.sampler.prep = self.trainers[0].prep
            self.trainers.append(t)
        first = self.trainers[0]
        if first.device.type != "cpu":
            raise ValueError("a seed group trains on the CPU (on a GPU, run the seeds as separate runs)")
        self.prep = first.prep
        self.config = first.config
        self._stop = False

    @property
    def step(self) -> int:
        return self.trainers[0].step

    def request_stop(self) -> None:
        self._stop = True

    @contextlib.contextmanager
    def random_streams(self, k: int):
        """Run a block with seed k's torch and numpy random streams (and keep what it drew)."""
        outer_t, outer_n = torch.get_rng_state(), np.random.get_state()
        torch.set_rng_state(self._torch_rng[k])
        np.random.set_state(self._numpy_rng[k])
        try:
            yield
        finally:
            self._torch_rng[k] = torch.get_rng_state()
            self._numpy_rng[k] = np.random.get_state()
            torch.set_rng_state(outer_t)
            np.random.set_state(outer_n)

    # ---- one step for every seed ----
    def losses(self, batches: Sequence[SpanBatch], step: int):
        """Every seed's loss on its batch (as Trainer's batch_objective computes it), the parts and
        coverage ratios, sharing one edit DP and one lattice pass."""
        cfg, prep = self.config, self.prep
        K = len(self.trainers)
        gamma = cfg.insertion_cost(step)
        first, regularisers = [], []
        for k, t in enumerate(self.trainers):
            with self.random_streams(k):
                first.append(dp_log_probs(t.model, cfg, step))
                # the second dropout sample (Omega_loss, pins), drawn in the single run's order; a
                # syllable model's Omega_loss and pin table draw fresh dropout samples of their own, so
                # they too are computed inside the seed's streams
                probs = t.model.log_probs(dropout=True).exp()
                regularisers.append((t.model.sound_loss(probs),
                                     pin_penalty(pin_probs(t.model, probs, True), t._pin_index)))
        merged, col_table, rows = merge_batches(batches)
        units, lens = first_trainer_stems(self.trainers[0])
        scores = span_scores(torch.stack(first), prep, merged, gamma, units, lens, impl="fused",
                             col_table=col_table)
        log_e = span_given_match(scores, prep.n_stems)
        emit = place_emissions(log_e + log_match_prior(prep), merged)
        log_r = math.log(cfg.reward_scale) + log_e / merged.span_len.to(log_e.dtype)
        reward = place_emissions(log_r, merged)
        sums = forward_sums(emit, reward, merged.chunk_len, merged.lattice_lengths, lattice_log_o(prep))
        out = []
        for k, t in enumerate(self.trainers):
            a, b = rows[k]
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

    def train_step(self, batches: Sequence[SpanBatch] | None = None) -> list[tuple[dict, float]]:
        """One SGD step for every seed (each on its own next batch unless ``batches`` are given)."""
        cfg = self.config
        step = self.step
        if batches is None:
            floor = cfg.span_floor(step)    # the long-spans-first curriculum, as Trainer.run
            for t in self.trainers:
                t.sampler.min_length = floor
            batches = [make_batch(self.prep, t.sampler.next_batch(), min_span=floor) for t in self.trainers]
        results = self.losses(batches, step)
        for t in self.trainers:
            t.optimizer.zero_grad(set_to_none=True)
        torch.stack([r[0] for r in results]).sum().backward()
        for (loss, _, _), t in zip(results, self.trainers):
            if cfg.clip_norm > 0:
                torch.nn.utils.clip_grad_norm_(t.model.parameters(), cfg.clip_norm)
            if not torch.isfinite(loss):
                raise TrainingDiverged(f"seed {t.config.seed}: the loss became {float(loss)} at step {step + 1}")
        for t in self.trainers:
            set_learning_rate(t.optimizer, cfg.learning_rate(step))
            t.optimizer.step()
            if not t._parameters_finite():
                raise TrainingDiverged(f"seed {t.config.seed}: the model's parameters became non-finite at "
                                       f"step {step + 1}")
            t.step += 1
        return [(parts, cov) for _, parts, cov in results]

    def run(self, steps: int | None = None) -> Generator[list, None, None]:
        """Train to ``steps`` (default: the settings' steps). Yields, after each step, the list of
        the K seeds' events (StepEvent, then EvalEvent at evaluation steps and at the end, then
        FinishedEvent), the same events each seed's Trainer.run would give."""
        cfg = self.config
        total = cfg.steps if steps is None else steps
        t_start = time.perf_counter() - self.trainers[0].elapsed
        reason = "completed"
        while self.step < total:
            if self._stop:
                reason = "stopped"
                break
            results = self.train_step()
            elapsed = time.perf_counter() - t_start
            events = []
            for t, (parts, cov) in zip(self.trainers, results):
                t.elapsed = elapsed
                events.append(StepEvent(t.step, total, parts, cov, cfg.insertion_cost(t.step),
                                        cfg.coverage_target(t.step), elapsed))
            yield events
            if cfg.eval_interval > 0 and self.step % cfg.eval_interval == 0 and self.step < total:
                yield [t._eval_event() for t in self.trainers]
        if self.step > 0 or reason == "completed":
            yield [t._eval_event() for t in self.trainers]
        elapsed = time.perf_counter() - t_start
        for t in self.trainers:
            t.elapsed = elapsed
        yield [FinishedEvent(t.step, reason, elapsed) for t in self.trainers]

    def train(self, steps: int | None = None) -> None:
        for _ in self.run(steps):
            pass

    def state(self, k: int) -> dict:
        """Seed k's checkpoint state, exactly what its single run's Trainer.state() would hold."""
        with self.random_streams(k):
            return self.trainers[k].state()

    def save_checkpoint(self, k: int, path: str | Path) -> Path:
        with self.random_streams(k):
            return self.trainers[k].save_checkpoint(path)


def first_trainer_stems(trainer: Trainer):
    return trainer._units, trainer._lens


class _SeedTrainer:
    """Seed k of a group as its run session sees a trainer: the seed's Trainer, except that its
    checkpoint is written with the seed's own random streams and a stop stops the whole group."""

    def __init__(self, group: SeedGroup, k: int):
        self._group, self._k = group, k

    def __getattr__(self, name):
        return getattr(self._group.trainers[self._k], name)

    def save_checkpoint(self, path: str | Path) -> Path:
        return self._group.save_checkpoint(self._k, path)

    def request_stop(self) -> None:
        self._group.request_stop()


def train_seeds(inputs, seeds: Sequence[int], *, sinks_for: Callable[[int], Sequence] | None = None,
                checkpoint_for: Callable[[int], Path | None] | None = None, steps: int | None = None,
                checkpoint_every_s: float | None = None, clock: Callable[[], float] | None = None,
                sessions: list | None = None, handle_signals: bool = False):
    """Train ``inputs`` (an engine.runs.session.RunInputs, not a resume) once per seed, as one group,
    each seed under its own engine.runs.session.RunSession.

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
    Returns one engine.runs.session.RunOutcome per seed, in order.
    """
    from engine.runs.session import CHECKPOINT_EVERY_S, RunSession

    if inputs.resume is not None:
        raise ValueError("a seed group starts fresh runs; resume a seed as a single run")
    t0 = time.perf_counter()
    options = {"checkpoint_every_s": CHECKPOINT_EVERY_S if checkpoint_every_s is None else checkpoint_every_s}
    if clock is not None:
        options["clock"] = clock
    group_sessions = [RunSession(inputs, sinks=list(sinks_for(s)) if sinks_for else [],
                                 checkpoint=checkpoint_for(s) if checkpoint_for else None, **options)
                      for s in seeds]
    if sessions is not None:
        sessions.extend(group_sessions)
    restore = group_sessions[0].install_signal_handlers() if handle_signals and group_sessions else None
    try:
        group = SeedGroup(inputs.corpus, inputs.vocabulary, inputs.config, seeds, gold=inputs.gold,
                          pins=inputs.pins or ())
        for k, session in enumerate(group_sessions):
            session.begin(_SeedTrainer(group, k), t0=t0)
        reasons: list[str | None] = [None] * len(seeds)
        for events in group.run(steps):
            for k, (session, event) in enumerate(zip(group_sessions, events)):
                if reasons[k] is not None:
                    continue
                reasons[k], _ = session.handle(event, take_pins=False)
            if any(session.pins_pending for session in group_sessions):  # before any sink hears of them
                raise ValueError("the seeds of a group train with the pins they started with; "
                                 "change pins in a single run")
            if all(r is not None for r in reasons):
                break
            aborted = next((s for s in group_sessions if s.aborted_as is not None), None)
            if aborted is not None:
                # one seed's session was aborted (a command, a signal), maybe after the others had
                # taken this step: the whole group ends here, without the final evaluation, as an
                # aborted single run does, every seed as that one (stopped or interrupted)
                ended_as, note = aborted.aborted_as, aborted.note
                for k, session in enumerate(group_sessions):
                    if reasons[k] is None:
                        if session.aborted_as is None:
                            session.abort(note)
                        reasons[k] = ended_as
                break
        return [session.end(reason) for session, reason in zip(group_sessions, reasons)]
    except BaseException as e:
        for session in group_sessions:
            session.fail(e)
        raise
    finally:
        if restore is not None:
            restore()
        for session in group_sessions:
            session.close()


def train_seeds_in_folders(inputs, seeds: Sequence[int], folder_for: Callable[[int], Path], *,
                           sinks_for: Callable[[int], Sequence] | None = None, steps: int | None = None):
    """engine.runs.outputs.run_in_folder for K seeds at once: seed s writes ``decipher run --out``
    outputs (checkpoint.pt, metrics.json, matches.csv, steps.csv) to ``folder_for(s)``."""
    from engine.runs.outputs import OutputFolder, prepare_output_folder

    folders = {s: prepare_output_folder(Path(folder_for(s))) for s in seeds}
    return train_seeds(inputs, seeds, steps=steps,
                       sinks_for=lambda s: [OutputFolder(folders[s]), *(sinks_for(s) if sinks_for else ())],
                       checkpoint_for=lambda s: folders[s] / "checkpoint.pt")
