"""A discrete polish of a trained mapping (issue 30): swap moves on the letter -> sound assignment,
kept only where they lower the run's own gold-free objective over the whole corpus.

Gradient descent on the mapping can end in a basin where two letters hold each other's values (or a
cycle of them): every small step from there raises the objective, while exchanging the two values
outright lowers it. A swap of letters a and b exchanges their rows of the aligner (the parameters
that place each lost letter among the known units' embeddings; engine/model/mapping.py), so a takes
b's whole distribution over sounds and b takes a's. With signs that write syllables
(engine/model/syllable_mapping.py) a move exchanges two signs' onsets, or their vowels.

Search: best improvement. Every move is scored on a fixed sample of the corpus's chunks (a quarter of
its letters, drawn with the run's seed); the moves that lower the sample's objective are tried in
that order on the whole corpus, and the first that lowers the whole corpus's objective by more than
``tolerance`` is kept. Rounds repeat until no move is kept or ``max_moves`` are. The objective is the
one the restarts rank starts by (engine/training/final_objective.py), at the run's final insertion
cost and coverage target. Nothing else changes: a polished model is the trained one with rows
exchanged.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import torch

#: a move must lower the corpus objective by more than this to be kept (the objective is per letter:
#: differences below it are floating-point order, not a better reading)
TOLERANCE = 1e-4


@dataclass(frozen=True)
class Move:
    """Exchange rows ``a`` and ``b`` of the parameters ``params`` (one name, or several moved
    together); ``what`` says it in the corpus's letters, e.g. ``swap a <-> e``."""

    params: tuple[str, ...]
    rows: tuple[tuple[int, int], ...]
    what: str
    letters: tuple[int, int]    # the lost letters (indices) whose reading the move changes

    def apply(self, model) -> None:
        with torch.no_grad():
            for name, (a, b) in zip(self.params, self.rows):
                p = getattr(model, name)
                row = p[a].clone()
                p[a] = p[b]
                p[b] = row


def moves(model) -> list[Move]:
    """Every swap of two lost letters (or two signs' onsets, two signs' vowels), the deletion
    pseudo-letter left out."""
    letters = model.lost_letters
    out: list[Move] = []
    pairs = [(a, b) for a in range(1, len(letters)) for b in range(a + 1, len(letters))]
    if hasattr(model, "onset_aligner"):
        # setting sign_offsets: a sign's offsets move with its rows (the onset offsets seen a row per sign, no <DEL>)
        n = 2 if hasattr(model, "onset_offset") else 1
        for a, b in pairs:
            la, lb = letters[a], letters[b]
            on = (("onset_aligner", (a, b)), ("onset_offset_by_sign", (a - 1, b - 1)))[:n]
            vo = (("vowel_aligner", (a - 1, b - 1)), ("vowel_offset", (a - 1, b - 1)))[:n]
            for what, parts in (("onsets", on), ("vowels", vo)):
                names, rows = zip(*parts)
                out.append(Move(names, rows, f"swap the {what} of {la} and {lb}", (a, b)))
    else:
        out = [Move(("aligner",), ((a, b),), f"swap {letters[a]} <-> {letters[b]}", (a, b)) for a, b in pairs]
    return out


def sample_chunks(prep, share: float, seed: int) -> list[int]:
    """About ``share`` of the corpus's letters: whole chunks drawn in a seeded random order, listed in
    corpus order (so batches pack as in the full evaluation)."""
    order = list(range(len(prep.chunks)))
    random.Random(seed).shuffle(order)
    total = sum(len(c) for c in prep.chunks)
    want, got, chosen = share * total, 0, []
    for ci in order:
        if got >= want:
            break
        chosen.append(ci)
        got += len(prep.chunks[ci])
    return sorted(chosen)


class Screen:
    """The objective over a sample of chunks, fast for one move at a time: the spans' emissions under
    the current mapping are kept, and a move recomputes only the spans that hold one of its two
    letters (the others' scores do not change), then the lattice of the batches they are in. Exact:
    the value equals corpus_objective(trainer, chunks=sample) of the moved model, up to
    floating-point order."""

    def __init__(self, trainer, chunks: list[int]):
        from engine.model.decoding import eval_batches
        from engine.model.objective import dp_log_probs
        from engine.model.scoring import make_batch
        from engine.training.final_objective import eval_chars, lattice_sums

        self.trainer = trainer
        prep, cfg = trainer.prep, trainer.config
        self.gamma = cfg.insertion_cost(trainer.step)
        self.units, self.lens = prep.stem_units.to(trainer.device), prep.stem_len.to(trainer.device)
        self.n_chars = 0
        self.batches = []
        n_letters = len(prep.lost_letters)
        with torch.no_grad():
            log_p = dp_log_probs(trainer.model, cfg, trainer.step, dropout=False)   # as corpus_objective
            for idx in eval_batches(prep, list(chunks), eval_chars(cfg)):
                batch = make_batch(prep, idx).to(trainer.device)
                self.n_chars += int(batch.chunk_len.sum())
                if batch.span_len.numel() == 0:
                    continue
                log_e = self._log_e(log_p, batch)
                present = torch.zeros(batch.n_starts, n_letters, dtype=torch.bool, device=log_e.device)
                present.scatter_(1, batch.windows, True)
                self.batches.append((batch, log_e, present, lattice_sums(prep, batch, log_e)))
        self.base = self._total([b[3] for b in self.batches], log_p)

    def _log_e(self, log_p, batch):
        from engine.training.final_objective import span_emissions

        return span_emissions(log_p, self.trainer.prep, batch, self.gamma, self.units, self.lens)

    def _total(self, sums, log_p) -> float:
        from engine.training.final_objective import combine, mapping_terms

        tr = self.trainer
        sound, pins = mapping_terms(tr, log_p)
        return combine(tr.config, tr.step, sum(q for q, _ in sums), sum(c for _, c in sums), sound, pins,
                       self.n_chars)["objective"]

    def value(self, move: Move) -> float:
        """The sample's objective with ``move`` made (the model is left as it was)."""
        from engine.model.objective import _sub_batch, dp_log_probs
        from engine.training.final_objective import lattice_sums

        model = self.trainer.model
        a, b = move.letters
        move.apply(model)
        try:
            with torch.no_grad():
                log_p = dp_log_probs(model, self.trainer.config, self.trainer.step, dropout=False)
                sums = []
                for batch, log_e, present, base_sums in self.batches:
                    hit = (present[:, a] | present[:, b]).nonzero().squeeze(1)
                    if hit.numel() == 0:
                        sums.append(base_sums)
                        continue
                    moved = log_e.clone()
                    moved[hit] = self._log_e(log_p, _sub_batch(batch, hit))
                    sums.append(lattice_sums(self.trainer.prep, batch, moved))
                return self._total(sums, log_p)
        finally:
            move.apply(model)


@dataclass
class PolishResult:
    """What the polish did: the objective before and after, the moves kept (in words, with the fall
    of the objective each brought), the moves scored and whether it stopped at ``max_moves``."""

    before: float
    after: float
    kept: list[tuple[str, float]] = field(default_factory=list)
    scored: int = 0
    exhausted: bool = False
    moved: list[str] = field(default_factory=list)
    """The lost letters the kept moves changed, in order, each once."""

    def to_state(self) -> dict:
        return {"before": float(self.before), "after": float(self.after), "scored": int(self.scored),
                "exhausted": bool(self.exhausted), "kept": [[str(w), float(d)] for w, d in self.kept],
                "moved": [str(x) for x in self.moved]}

    @classmethod
    def from_state(cls, data) -> "PolishResult":
        from engine.errors import InputError

        try:
            return cls(float(data["before"]), float(data["after"]),
                       [(str(w), float(d)) for w, d in data["kept"]], int(data["scored"]), bool(data["exhausted"]),
                       [str(x) for x in data.get("moved", ())])   # absent in records written before it was kept
        except (KeyError, TypeError, ValueError):
            raise InputError("the checkpoint's record of the swap polish is malformed") from None

    def metrics(self) -> dict[str, float]:
        return {"polish_objective_before": self.before, "polish_objective_after": self.after,
                "polish_moves": float(len(self.kept)), "polish_scored": float(self.scored)}


def polish(trainer, *, share: float = 0.25, max_moves: int = 10, tolerance: float = TOLERANCE,
           confirm: int = 5, stop=None, log=None) -> PolishResult:
    """Polish ``trainer``'s model in place (see the module docstring). ``confirm``: how many of the
    best moves on the sample are tried on the whole corpus per round; ``stop()``: asked between
    moves, True ends the search with what it has kept; ``log(line)``: told each move kept."""
    from engine.training.final_objective import corpus_objective

    model = trainer.model
    sample = sample_chunks(trainer.prep, share, trainer.config.seed)
    whole = corpus_objective(trainer)["objective"]
    result = PolishResult(before=whole, after=whole)
    candidates = moves(model)
    while len(result.kept) < max_moves:
        screen = Screen(trainer, sample)
        base = screen.base
        scored = []
        for move in candidates:
            if stop is not None and stop():
                return result
            value = screen.value(move)
            result.scored += 1
            if math.isfinite(value) and value < base - tolerance:
                scored.append((value, move))
        scored.sort(key=lambda vm: vm[0])
        kept = False
        for _, move in scored[:confirm]:
            move.apply(model)
            value = corpus_objective(trainer)["objective"]
            if math.isfinite(value) and value < result.after - tolerance:
                result.kept.append((move.what, result.after - value))
                result.moved += [x for x in (model.lost_letters[i] for i in move.letters) if x not in result.moved]
                if log is not None:
                    log(f"{move.what}: objective {result.after:.4f} -> {value:.4f}")
                result.after = value
                kept = True
                break
            move.apply(model)
        if not kept:
            return result
    result.exhausted = True
    return result
