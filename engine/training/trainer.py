"""Training as a generator of events that the caller drives step by step.

    trainer = Trainer(corpus, vocabulary, config, gold=gold, pins=pins)
    for event in trainer.run():          # StepEvent ..., EvalEvent, ..., FinishedEvent (NoticeEvent: a line for the log)
        ...
    gen.send(UpdatePins(pins))           # new pinned values, used from the next step on

The caller may stop pulling at any step (and resume later), call ``request_stop()`` from another
thread (the run evaluates once more and finishes), or close the generator.
"""

from __future__ import annotations

import io
import random
import threading
import time
from pathlib import Path
from typing import Generator, Iterable, Sequence

import numpy as np
import torch

from engine import __version__
from engine.config import Config
from engine.corpus import Corpus, GoldAnnotation, PinnedValue, Stem, Vocabulary
from engine.model.decoding import decode_batch
from engine.errors import InputError
from engine.inputs_digest import corpus_digest, vocabulary_digest
from engine.training.evaluation import Evaluation, evaluate, syllable_metrics
from engine.model.syllable_mapping import make_mapping
from engine.model.objective import batch_objective, pin_pairs
from engine.model.prepared import Prepared, check_memory, ngram_weights, prepare
from engine.results import MappingSnapshot
from engine.training.restarts import Selection
from engine.training.sgd import SGD
from engine.model.candidate_stems import CandidateCache
from engine.results import EvalEvent, Event, FinishedEvent, NoticeEvent, StepEvent, UpdatePins
from engine.model.scoring import make_batch


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise InputError("--device cuda was asked for, but torch sees no CUDA device")
    return torch.device(name)


class BatchSampler:
    """Packs chunks into batches of at most chars_per_batch padded letters."""

    def __init__(self, prep: Prepared, rng: random.Random):
        self.prep = prep
        self.rng = rng
        self.pool = prep.trainable_chunks()
        if not self.pool:
            cfg = prep.config
            raise InputError(f"no inscription has a run of at least {cfg.min_span} letters between dividers"
                             + (f" (and at most {cfg.max_span}, whole words)" if cfg.segmented else ""))
        self.mode = prep.config.resolved_sampling
        if self.mode == "ngram":
            self.weights = ngram_weights(prep.chunks, self.pool, prep.config.min_span, prep.config.max_span)
        self.order: list[int] = []
        #: chunks shorter than this are passed over (setting curriculum_min_span; the trainer sets it
        #: each step): a sequential pass drops them from the pass, n-gram sampling draws again
        self.min_length = 0
        cfg = prep.config
        if cfg.curriculum_min_span and not any(len(prep.chunks[i]) >= cfg.curriculum_min_span for i in self.pool):
            raise InputError(f"setting curriculum_min_span: no inscription has a run of at least "
                             f"{cfg.curriculum_min_span} letters between dividers to train first")

    def _next_chunk(self) -> int:
        while True:
            if self.mode == "ngram":
                ci = self.rng.choices(self.pool, weights=self.weights)[0]
            else:
                if not self.order:
                    self.order = list(self.pool)
                    self.rng.shuffle(self.order)
                ci = self.order.pop()
            if len(self.prep.chunks[ci]) >= self.min_length:
                return ci

    def next_batch(self) -> list[int]:
        limit = self.prep.config.chars_per_batch
        batch: list[int] = []
        longest = 0
        while True:
            ci = self._next_chunk()
            L = len(self.prep.chunks[ci])
            if batch and max(longest, L) * (len(batch) + 1) > limit:
                # keep the chunk for the next batch in sequential mode
                if self.mode == "sequential":
                    self.order.append(ci)
                return batch
            batch.append(ci)
            longest = max(longest, L)
            if longest * len(batch) >= limit:
                return batch


def set_learning_rate(optimizer: SGD, lr: float) -> None:
    """The step's learning rate (Config.learning_rate; setting lr_end_fraction)."""
    for group in optimizer.param_groups:
        group["lr"] = lr


class Trainer:
    def __init__(self, corpus: Corpus, vocabulary: Vocabulary | Sequence[Stem], config: Config | None = None, *,
                 gold: Sequence[GoldAnnotation] = (), pins: Iterable[PinnedValue] = (),
                 state: dict | None = None, live_interval: float | None = 0.25, prepared: Prepared | None = None):
        """``live_interval``: seconds between live decodings of the current batch (StepEvent
        .batch_matches); 0 decodes every step, None never (headless runs). ``prepared``: the prepared
        problem of these very inputs, made once for many runs (a batch of runs, engine/training/
        lockstep.py), instead of preparing it again."""
        self.config = config or Config()
        self.corpus = corpus
        self.vocabulary_digest = vocabulary_digest(vocabulary, glosses=False)
        #: what a resume with ``force`` went past (the checkpoint's format, another vocabulary); [] when none
        self.forced_resume: list[str] = []
        self.gold = list(gold)
        self.pins = list(pins)
        self.device = resolve_device(self.config.device)
        torch.manual_seed(self.config.seed)
        np.random.seed(self.config.seed % (2**32))
        self.rng = random.Random(self.config.seed)
        check_memory(corpus, self.config)  # a corpus too large for this machine: one line, nothing built
        self.prep = prepared if prepared is not None else prepare(corpus, vocabulary, self.config, self.pins)
        self.model = make_mapping(self.prep).to(self.device)
        self.optimizer = SGD(self.model.parameters(), lr=self.config.lr)
        self.step = 0
        self.elapsed = 0.0
        self.sampler = BatchSampler(self.prep, self.rng)
        #: setting words_first: the text's pseudo-words, prepared as a word list (segmented), and their sampler;
        #: None without the phase. A note when the setting is on but the text gives no pseudo-word.
        self.words_prep, self.words_sampler, self.words_note = self._prepare_words(corpus, vocabulary)
        #: each span's cached candidate stems (settings candidate_stems, candidate_refresh), or None
        self.candidates: CandidateCache | None = CandidateCache.for_config(self.config)
        #: the choice among starts (setting restarts; engine/training/restarts.py), None with one start
        self.selection: Selection | None = Selection.new(self.config, words=self.words_prep is not None)
        if state is not None:
            self._load_state(state)
        self._pin_index = pin_pairs(self.prep, self.pins)
        self._stop = threading.Event()
        self._units = self.prep.stem_units.to(self.device)
        self._lens = self.prep.stem_len.to(self.device)
        self.last_evaluation: Evaluation | None = None
        #: what the swap polish did after the last step (setting polish_moves), None before it ran
        self.polish_result = None
        if state is not None and state.get("polish") is not None:
            from engine.training.polish import PolishResult

            self.polish_result = PolishResult.from_state(state["polish"])
        self.live_interval = live_interval
        self._last_live = -float("inf")

    def _prepare_words(self, corpus: Corpus, vocabulary) -> tuple[Prepared | None, BatchSampler | None, str | None]:
        cfg = self.config
        if cfg.words_first <= 0 or cfg.segmented:
            return None, None, None
        from engine.model.pseudo_words import pseudo_word_corpus

        words = pseudo_word_corpus(corpus, min_span=cfg.min_span, max_span=cfg.max_span,
                                   min_count=cfg.words_min_count, min_count_pair=cfg.words_min_count_pair,
                                   types=cfg.words_types)
        segmented = cfg.words_spans == "whole"
        prep = None if words is None else prepare(words, vocabulary, cfg.replace(segmented=segmented, words_first=0),
                                                   self.pins, letters=self.prep.lost_letters[1:])
        if prep is None or not prep.trainable_chunks():
            return None, None, ("setting words_first: no piece of the text recurs often enough to be taken for a "
                                "word; the run trains on free spans from its first step")
        return prep, BatchSampler(prep, self.rng), None

    def in_words_phase(self, step: int | None = None) -> bool:
        """Whether ``step`` (default: the current one) trains on the pseudo-words (setting words_first)."""
        return self.words_prep is not None and (self.step if step is None else step) < self.config.words_first

    def phase(self, step: int | None = None) -> str:
        """What step ``step`` (0-based: the step trained when self.step == step; default the current one) trains
        on, in words, as StepEvent.phase says it: "pseudo-words", "onsets only", both, or "" (the whole model on
        the text)."""
        step = self.step if step is None else step
        parts = ["pseudo-words"] if self.in_words_phase(step) else []
        if self.prep.script.onset_phase(self.config, step):
            parts.append("onsets only")
        return ", ".join(parts)

    def _active(self) -> tuple[Prepared, BatchSampler]:
        """The prepared problem and sampler that the current step trains on."""
        if self.in_words_phase():
            return self.words_prep, self.words_sampler
        return self.prep, self.sampler

    # ---- control ----
    def request_stop(self) -> None:
        """Ask the run to finish after the current step (safe to call from any thread)."""
        self._stop.set()

    def set_pins(self, pins: Iterable[PinnedValue]) -> None:
        """Replace the pinned values; pins naming new IPA units are kept but only letters and units
        already in the model's inventories take effect in a running model."""
        self.pins = list(pins)
        self._pin_index = pin_pairs(self.prep, self.pins)

    # ---- the loop ----
    def run(self, steps: int | None = None) -> Generator[Event, UpdatePins | None, None]:
        total = self.config.steps if steps is None else steps
        cfg = self.config
        self.model.train()
        t_start = time.perf_counter() - self.elapsed
        reason = "completed"
        if self.words_note is not None and self.step == 0:
            sent = yield NoticeEvent(0, self.words_note)
            self._receive(sent)
        while True:
            sel = self.selection
            if sel is not None and not sel.done and self.step >= sel.steps:
                self._end_start(sel)    # scores this start; the next one, or the kept one, goes on
                continue
            if self.step >= total:
                break
            if self._stop.is_set():
                reason = "stopped"
                break
            prep, sampler = self._active()
            words = prep is not self.prep
            sampler.min_length = floor = cfg.span_floor(self.step)
            batch = make_batch(prep, sampler.next_batch(), min_span=floor)
            result = batch_objective(self.model, prep, batch.to(self.device), self.step, self._pin_index,
                                     self._units, self._lens, candidates=None if words else self.candidates)
            self.optimizer.zero_grad(set_to_none=True)
            result.loss.backward()
            if cfg.clip_norm > 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.clip_norm)
            diverged = None
            if not torch.isfinite(result.loss):
                diverged = f"the loss became {float(result.loss.detach())} at step {self.step + 1}"
            else:
                set_learning_rate(self.optimizer, cfg.learning_rate(self.step))
                self.optimizer.step()
                if not self._parameters_finite():
                    diverged = f"the model's parameters became non-finite at step {self.step + 1}"
            if diverged is not None:
                if sel is None or sel.done:     # one start (the paper's run), or the kept one: the run fails
                    raise TrainingDiverged(diverged)
                sent = yield self._start_diverged(sel, diverged)    # set aside; the next start goes on
                self._receive(sent)
                continue
            self.step += 1
            self.elapsed = time.perf_counter() - t_start
            live: tuple = ()
            # the pseudo-words' batches are no places in the text: nothing live to show while they train
            if self.live_interval is not None and not words and self.elapsed - self._last_live >= self.live_interval:
                live = tuple(decode_batch(self.prep, batch, result.scores, top_k=3))
                self._last_live = self.elapsed
            event = StepEvent(self.step, total, result.parts, result.coverage_ratio,
                              cfg.insertion_cost(self.step), cfg.coverage_target(self.step), self.elapsed, live,
                              *((self.restart, self.progress_of(total)) if sel is not None else ()),
                              phase=self.phase(self.step - 1))
            sent = yield event
            self._receive(sent)
            if cfg.eval_interval > 0 and self.step % cfg.eval_interval == 0 and self.step < total and \
                    (sel is None or sel.done):      # no evaluation of a start that may be dropped
                sent = yield self._eval_event()
                self._receive(sent)
        if reason == "completed" and cfg.polish_moves > 0 and self.polish_result is None and self.step > 0:
            from engine.training.polish import polish

            self.polish_result = polish(self, max_moves=cfg.polish_moves, stop=self._stop.is_set)
        if self.step > 0 or reason == "completed":
            sent = yield self._eval_event()
            self._receive(sent)
        self.elapsed = time.perf_counter() - t_start
        yield FinishedEvent(self.step, reason, self.elapsed)

    @property
    def position(self) -> tuple[int, int]:
        """(start, step): where training stands. With restarts the step alone repeats (every start
        counts from 0, and the kept one goes on from S), so a checkpoint is due when this changes."""
        sel = self.selection
        return (sel.current if sel is not None else 0, self.step)

    @property
    def restart(self) -> int:
        """The start the model is of: 0..R-1 while the starts train, the kept one after the choice
        (0 with one start)."""
        sel = self.selection
        return 0 if sel is None else (sel.kept if sel.done else sel.current)

    def progress_of(self, total: int | None = None) -> tuple[int, int]:
        """(steps trained, steps planned) over every start of a run of ``total`` steps (default: the
        settings'): R x S steps for the starts, then the kept one's steps after S. With one start
        (step, total)."""
        total = self.config.steps if total is None else total
        sel = self.selection
        if sel is None:
            return self.step, total
        R, S = len(sel.seeds), sel.steps
        done = R * S + (self.step - S) if sel.done else min(sel.current, R) * S + self.step
        return done, R * S + max(0, total - S)

    # ---- restarts (engine/training/restarts.py) ----
    def _end_start(self, sel: Selection) -> None:
        """The current start has trained S steps: score it without gold, then begin the next start,
        or, once every start is scored, continue the lowest one from its state after S steps."""
        from engine.training.final_objective import corpus_objective

        if sel.current < len(sel.seeds):    # screened on what the start trained on (the pseudo-words, in their phase)
            # each start's reading where the word phase ends, for the diagnosis's starts check (only there: at an
            # earlier screen a syllable start's vowels are still chance, and nothing reads it)
            reading = self.mapping().top_readings() if sel.set_words else None
            sel.record(corpus_objective(self, prep=self._active()[0])["objective"], self._training_state, reading)
        if sel.current < len(sel.seeds):
            self._begin_start(sel.seeds[sel.current], sel.class_init)
        else:
            self._set_training_state(sel.choose())

    def _start_diverged(self, sel: Selection, why: str) -> NoticeEvent:
        """The current start diverged before it was scored: record it (never kept), then begin the
        next start, or, after the last, keep the best of those scored; TrainingDiverged when every
        start diverged."""
        r, R, at = sel.current, len(sel.seeds), self.step + 1
        sel.record_diverged(at, why)
        text = f"restarts: start {r} of 0..{R - 1} (seed {sel.seeds[r]}) diverged ({why}); it is set aside"
        if sel.current < R:
            self._begin_start(sel.seeds[sel.current], sel.class_init)
            return NoticeEvent(at, f"{text}, going on with start {sel.current}")
        if sel.all_diverged:
            raise TrainingDiverged(f"every one of the {R} starts (setting restarts) diverged: {sel.divergence_text()}")
        self._set_training_state(sel.choose())
        return NoticeEvent(at, f"{text}; start {sel.kept} (the lowest objective of those that did not diverge) is kept")

    def _begin_start(self, seed: int, class_init: float = 0.0) -> None:
        """A fresh model, optimiser and random streams for ``seed``: what Trainer() of that seed
        would start from (the prepared data are shared); with ``class_init`` > 0 (a later start of
        setting restart_class_init) the aligner leans to the letters' classes as class_init would."""
        torch.manual_seed(seed)
        np.random.seed(seed % (2**32))
        self.rng = random.Random(seed)
        self.model = make_mapping(self.prep, class_init if class_init > 0 else None).to(self.device)
        self.optimizer = SGD(self.model.parameters(), lr=self.config.lr)
        self.sampler = BatchSampler(self.prep, self.rng)
        if self.words_prep is not None:
            self.words_sampler = BatchSampler(self.words_prep, self.rng)
        self.candidates = CandidateCache.for_config(self.config)
        self.step = 0

    def _parameters_finite(self) -> bool:
        with torch.no_grad():
            return bool(torch.stack([torch.isfinite(p).all() for p in self.model.parameters()]).all())

    def _receive(self, sent) -> None:
        if isinstance(sent, UpdatePins):
            self.set_pins(sent.pins)

    def evaluate(self) -> Evaluation:
        ev = evaluate(self.model, self.prep, self.gold, step=self.step, device=self.device)
        table = self.prep.script.syllable_table(self.model)
        if table is not None:
            ev.metrics.update(syllable_metrics(table))
        if self.selection is not None:
            ev.metrics.update(self.selection.metrics())
        if self.polish_result is not None:
            ev.metrics.update(self.polish_result.metrics())
        if self.prep.script.alphabet and self.config.vowel_weight != 1.0:
            ev.metrics["vowel_weight_used"] = float(self.model.vowel_weight)
        self.last_evaluation = ev
        return ev

    def _eval_event(self) -> EvalEvent:
        ev = self.evaluate()
        return EvalEvent(self.step, tuple(ev.matches), ev.coverage, tuple(ev.closeness), dict(ev.metrics),
                         self.mapping(), self.restart)

    def mapping(self) -> MappingSnapshot:
        return self.prep.script.snapshot(self.model, self.prep)

    # ---- checkpoints ----
    def state(self) -> dict:
        """Everything a resumed run needs, as tensors and plain values only (so that loading can
        refuse anything else: ``torch.load(weights_only=True)``)."""
        out = {
            "format": CHECKPOINT_FORMAT,
            "engine_version": __version__,
            "config": self.config.to_dict(),
            "lost_letters": list(self.prep.lost_letters),
            "known_units": list(self.prep.known_units),
            **self._training_state(),
            "elapsed": float(self.elapsed),
            "pins": [dict(p.__dict__) for p in self.pins],
            "corpus_digest": corpus_digest(self.corpus),
            "vocabulary_digest": self.vocabulary_digest,
        }
        if self.selection is not None:
            out["restarts"] = self.selection.to_state()
        if self.polish_result is not None:
            out["polish"] = self.polish_result.to_state()
        return out

    def _training_state(self) -> dict:
        """What one start's training continues from: model, optimiser, step, the random streams and
        the sampler's place in its shuffled pass (copies, as tensors and plain values)."""
        import copy

        np_state = np.random.get_state()
        version, internal, gauss = self.rng.getstate()
        return {
            "model": {k: v.detach().cpu().clone() for k, v in self.model.state_dict().items()},
            "optimizer": copy.deepcopy(self.optimizer.state_dict()),
            "step": int(self.step),
            "rng": [int(version), torch.tensor(internal, dtype=torch.int64), gauss],
            "numpy_rng": [str(np_state[0]), torch.from_numpy(np_state[1].astype(np.int64)),
                          int(np_state[2]), int(np_state[3]), float(np_state[4])],
            "torch_rng": torch.get_rng_state(),
            "sampler_order": torch.tensor(self.sampler.order, dtype=torch.int64),
            **({"words_sampler_order": torch.tensor(self.words_sampler.order, dtype=torch.int64)}
               if self.words_sampler is not None else {}),
            **({"candidate_lists": self.candidates.to_state()} if self.candidates is not None else {}),
        }

    def _set_training_state(self, state: dict) -> None:
        """Continue from ``state`` (a _training_state or a checkpoint); InputError if it does not fit."""
        try:
            self.model.load_state_dict(state["model"])
            self.optimizer.load_state_dict(state["optimizer"])
        except (RuntimeError, ValueError, KeyError, TypeError) as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise InputError(f"the checkpoint's model does not fit these settings ({first})") from None
        self.step = _checked_step(state.get("step"), self.config.steps)
        if "rng" in state:
            try:
                version, internal, gauss = state["rng"]
                internal = tuple(int(x) for x in (internal.tolist() if torch.is_tensor(internal) else internal))
                if gauss is not None and not isinstance(gauss, (int, float)):
                    raise TypeError("gauss")
                self.rng.setstate((int(version), internal, gauss))
            except (TypeError, ValueError, OverflowError):
                raise InputError("the checkpoint's random state ('rng') is malformed; it cannot be resumed") from None
        if "numpy_rng" in state:
            try:
                name, keys, pos, has_gauss, cached = state["numpy_rng"]
                np.random.set_state((str(name), np.asarray(keys.tolist() if torch.is_tensor(keys) else keys,
                                                           dtype=np.uint32), int(pos), int(has_gauss), float(cached)))
            except (TypeError, ValueError, OverflowError):
                raise InputError("the checkpoint's random state ('numpy_rng') is malformed; it cannot be resumed") \
                    from None
        if "torch_rng" in state:
            try:
                torch.set_rng_state(state["torch_rng"])
            except (TypeError, ValueError, RuntimeError):
                raise InputError("the checkpoint's random state ('torch_rng') is malformed; it cannot be resumed") \
                    from None
        if "sampler_order" in state:      # checkpoints before it start a fresh shuffled pass
            self.sampler.order = _batch_order(state["sampler_order"], "sampler_order", len(self.prep.chunks))
        if "words_sampler_order" in state and self.words_sampler is not None:
            self.words_sampler.order = _batch_order(state["words_sampler_order"], "words_sampler_order",
                                                    len(self.words_prep.chunks))
        if self.candidates is not None:
            # a checkpoint without lists (older, or trained without the setting) refreshes each span
            # on its next visit; with them, the run goes on exactly as an uninterrupted one
            self.candidates = CandidateCache.for_config(self.config)
            if "candidate_lists" in state:
                self.candidates.load_state(state["candidate_lists"], self.prep.n_stems, len(self.prep.chunks))

    def save_checkpoint(self, path: str | Path) -> Path:
        """Write the checkpoint atomically (a failed write leaves the previous one; the error
        names ``path`` and the cause: see engine.io.atomic.WriteError)."""
        from engine.io.atomic import atomic_path

        path = Path(path)
        # Serialised in memory first: torch's C++ zip writer turns a failed write (disk full,
        # file size limit) into a RuntimeError ("unexpected pos"); a plain file write raises the
        # OSError the atomic writer names the target and cause by.
        with atomic_path(path) as tmp:
            buffer = io.BytesIO()
            torch.save(self.state(), buffer)
            with open(tmp, "wb") as f:
                f.write(buffer.getbuffer())
        return path

    def _load_state(self, state: dict) -> None:
        if list(state.get("lost_letters", ())) != list(self.prep.lost_letters) or \
                list(state.get("known_units", ())) != list(self.prep.known_units):
            raise InputError("the checkpoint was trained on other letters or IPA units than this corpus and "
                             "vocabulary give; resume it with the same data")
        # same letters, other inscriptions: a checkpoint since issue 28 names its corpus by digest
        stored = state.get("corpus_digest")
        if stored is not None and stored != corpus_digest(self.corpus):
            raise InputError("the checkpoint was trained on another corpus (the same letters, other inscriptions); "
                             "resume it with the corpus it was trained on, or start a new run")
        self._load_selection(state)
        self._set_training_state(state)
        elapsed = state.get("elapsed", 0.0)
        if isinstance(elapsed, bool) or not isinstance(elapsed, (int, float)) or not 0 <= elapsed < float("inf"):
            raise InputError(f"the checkpoint's 'elapsed' must be a number of seconds, 0 or more; it holds "
                             f"{_short(elapsed)}")
        self.elapsed = float(elapsed)

    def _load_selection(self, state: dict) -> None:
        """A resumed run finishes the choice among starts its checkpoint recorded, never a new one:
        settings that would make another choice are refused."""
        record = state.get("restarts")
        cfg = self.config
        if record is None:
            if cfg.restarts > 1 and int(state.get("step", 0)) > 0:
                raise InputError(f"setting restarts: the checkpoint was trained from a single start, and the "
                                 f"choice among {cfg.restarts} starts is made from a run's first step; resume it "
                                 f"with restarts=1, or start a new run")
            if cfg.restarts > 1:
                return              # a checkpoint of step 0: the fresh run's selection stands
            self.selection = None
            return
        sel = Selection.from_state(record)
        if not sel.same_choice(cfg, words=self.words_prep is not None):
            raise InputError(f"setting restarts: the checkpoint chose among {len(sel.seeds)} starts of "
                             f"{sel.steps} steps ({sel.settings_text()}); "
                             f"a resumed run keeps that choice: resume it with those settings")
        self.selection = sel

    @classmethod
    def from_checkpoint(cls, path: str | Path, corpus: Corpus, vocabulary, *, gold=(), pins=None,
                        config_overrides: dict | None = None, force: bool = False, **kwargs) -> "Trainer":
        """Resume from a checkpoint: its settings (and pins, unless ``pins`` is given), with
        ``config_overrides`` on top (e.g. a new target number of steps). A checkpoint of a format
        this program does not write, or trained on another known vocabulary, is refused in one
        line unless ``force`` (``--force-resume``; what was gone past is the trainer's
        ``forced_resume``)."""
        state = load_checkpoint(path)
        forced = resume_mismatches(state, vocabulary)
        if forced and not force:
            raise InputError(f"refused: {forced[0]}; resume with the data it was trained on, start a new run, or "
                             "give --force-resume to resume it anyway (recorded with the run)", path=path)
        try:
            config = Config.from_dict({**state["config"], **(config_overrides or {})})
        except InputError as e:
            raise InputError(f"the checkpoint's settings do not load: {e}", path=path) from None
        if pins is None:
            try:
                pins = [PinnedValue(**p) for p in state.get("pins", [])]
            except (TypeError, ValueError, InputError):
                raise InputError("the checkpoint's pinned values are malformed", path=path) from None
        try:
            trainer = cls(corpus, vocabulary, config, gold=gold, pins=pins, state=state, **kwargs)
        except InputError as e:
            if e.path is None:
                raise InputError(e.problem, path=path) from None
            raise
        trainer.forced_resume = forced
        return trainer


def resume_mismatches(state: dict, vocabulary) -> list[str]:
    """What makes a checkpoint unfit to resume on ``vocabulary``: a format this program does not
    write, another known vocabulary (its forms or IPA; a checkpoint since issue 52 carries their
    digest). Empty when it fits."""
    out = []
    fmt = state.get("format")
    if fmt not in CHECKPOINT_FORMATS:
        out.append(f"the checkpoint's format is {str(fmt)[:60]!r}, not one this program writes "
                   f"({', '.join(CHECKPOINT_FORMATS)})")
    stored = state.get("vocabulary_digest")
    if stored is not None and stored != vocabulary_digest(vocabulary, glosses=False):
        out.append("the checkpoint was trained on another known vocabulary (other forms or IPA than this one)")
    return out


#: The ``format`` a checkpoint carries. Version 1 files (pickled tuples for the RNG state) load too.
CHECKPOINT_FORMAT = "decipher-checkpoint/2"
#: The formats a resume takes (this one, and version 1).
CHECKPOINT_FORMATS = (CHECKPOINT_FORMAT, "decipher-checkpoint/1")
CHECKPOINT_KEYS = ("config", "lost_letters", "known_units", "model", "optimizer", "step")


#: A checkpoint's zip entries may declare at most this many bytes unpacked beyond the file's own size
#: (torch stores its entries unpacked, so a real checkpoint declares about its size).
CHECKPOINT_UNPACKED_SLACK = 16 * 1024 * 1024
#: ... and at most this many times the file's size (a deflate bomb declares a thousandfold).
CHECKPOINT_UNPACKED_RATIO = 4


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _batch_order(order, key: str, n: int) -> list[int]:
    """A checkpoint's place in a sampler's shuffled pass (``key``), checked against a corpus of ``n`` chunks."""
    try:
        if not (torch.is_tensor(order) or isinstance(order, (list, tuple))):
            raise TypeError("not a list")
        order = order.tolist() if torch.is_tensor(order) else list(order)
        if any(isinstance(i, (bool, float)) or not isinstance(i, int) for i in order):
            raise TypeError("not whole numbers")
    except (TypeError, ValueError, RuntimeError):
        raise InputError(f"the checkpoint's batch order ('{key}') is malformed; it cannot be resumed") from None
    if any(i < 0 or i >= n for i in order):
        raise InputError("the checkpoint's batch order names chunks this corpus does not have")
    return order


def _checked_step(step, total: int) -> int:
    """The checkpoint's step: a whole number from 0 to the run's steps; InputError otherwise."""
    if isinstance(step, bool) or not isinstance(step, int):
        raise InputError(f"the checkpoint's 'step' must be a whole number; it holds {_short(step)}")
    if step < 0 or step > total:
        raise InputError(f"the checkpoint's step {step} is outside this run's 0..{total} steps; resume it with "
                         f"--steps {step} or more, or start a new run" if step > 0 else
                         f"the checkpoint's step {step} is negative; it cannot be resumed")
    return step


def _check_zip_sizes(path: Path) -> None:
    """Refuse a checkpoint whose zip entries declare far more bytes than the file holds (a deflate
    bomb), before anything is unpacked."""
    import zipfile

    if not zipfile.is_zipfile(path):
        return                                 # torch's older format, or not a checkpoint: torch.load says
    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        raise InputError(f"not a readable checkpoint ({e})", path=path) from None
    size = path.stat().st_size
    unpacked = sum(max(0, i.file_size) for i in infos)
    limit = CHECKPOINT_UNPACKED_RATIO * size + CHECKPOINT_UNPACKED_SLACK
    if unpacked > limit or len(infos) > 100_000:
        raise InputError(f"refused: the checkpoint declares {unpacked / 2**20:,.0f} MiB unpacked from a "
                         f"{size / 2**20:,.1f} MiB file (a compressed bomb, not a checkpoint of this program); "
                         "nothing was unpacked", path=path)


class TrainingDiverged(FloatingPointError):
    """The loss or the model's parameters became NaN or infinite: the run cannot go on."""


def load_checkpoint(path: str | Path) -> dict:
    """Read a checkpoint without running code from it: only tensors and plain values load
    (``weights_only=True``); anything else, or a file missing what a resume needs, is refused
    with one line naming the file."""
    import pickle

    path = Path(path)
    if not path.is_file():
        raise InputError("checkpoint not found" if not path.exists() else "not a checkpoint file (a folder?)",
                         path=path)
    _check_zip_sizes(path)
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:
        if "weights only" not in str(e).lower():
            first = str(e).strip().splitlines()[0] if str(e).strip() else "unreadable"
            raise InputError(f"not a readable checkpoint ({first})", path=path) from None
        raise InputError("refused: the checkpoint holds Python objects other than tensors and plain values "
                         "(it was not written by this program, or was altered); nothing in it was run",
                         path=path) from None
    except Exception as e:  # a truncated or foreign file
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise InputError(f"not a readable checkpoint ({first})", path=path) from None
    if not isinstance(state, dict):
        raise InputError(f"not a checkpoint of this program (it holds a {type(state).__name__})", path=path)
    missing = [k for k in CHECKPOINT_KEYS if k not in state]
    if missing:
        raise InputError(f"the checkpoint lacks {', '.join(repr(k) for k in missing)}; it cannot be resumed",
                         path=path)
    if not isinstance(state["config"], dict) or not isinstance(state["model"], dict):
        raise InputError("the checkpoint's settings or model are malformed", path=path)
    return state
