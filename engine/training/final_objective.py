"""The training objective of a finished run over its whole corpus, without dropout: a gold-free
number to compare seeds by (the step losses are single batches under dropout, too noisy for that).

It is the loss engine/model/objective.py minimises, at the run's last step: -quality + coverage hinge +
Omega_loss + pins, each weighted as in training, with quality, coverage and Omega_loss divided by
the corpus's letter count instead of a batch's.
"""

from __future__ import annotations

import math


def corpus_objective(trainer, *, chars_per_batch: int | None = None, step: int | None = None,
                     stems: int | None = None, chunks: list[int] | None = None, prep=None) -> dict[str, float]:
    """``{"objective", "quality", "coverage_ratio", "sound_loss", "pins"}`` of ``trainer``'s model,
    with the insertion cost and coverage target of ``step`` (default: the trainer's step).
    ``stems = K``: each span's P(span | matched) is the mean over its K best stems (the competition of
    setting candidate_stems at K) instead of over every stem, the paper's. ``chunks``: only these chunks
    of the corpus (a sample, to screen many candidate mappings cheaply; engine/training/polish.py). ``prep``:
    another prepared corpus of the same letters (the pseudo-words of setting words_first) instead of the
    trainer's."""
    import torch

    from engine.model.decoding import eval_batches
    from engine.model.objective import dp_log_probs
    from engine.model.scoring import make_batch

    prep = trainer.prep if prep is None else prep
    cfg, model = trainer.config, trainer.model
    step = trainer.step if step is None else step
    device = trainer.device
    gamma = cfg.insertion_cost(step)
    quality = covered = 0.0
    n_chars = 0
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            # the table of the step's phase: in a syllable run's onset phase its vowels are not yet
            # what training compares (restarts screened inside the phase are ranked on their onsets)
            log_p = dp_log_probs(model, cfg, step, dropout=False)
            units, lens = prep.stem_units.to(device), prep.stem_len.to(device)
            order = list(range(len(prep.chunks))) if chunks is None else list(chunks)
            for idx in eval_batches(prep, order, chars_per_batch or eval_chars(cfg)):
                batch = make_batch(prep, idx).to(device)
                n_chars += int(batch.chunk_len.sum())
                if batch.span_len.numel() == 0:
                    continue
                q, c = lattice_sums(prep, batch, span_emissions(log_p, prep, batch, gamma, units, lens, stems))
                quality += q
                covered += c
            sound, pins = mapping_terms(trainer, log_p)
    finally:
        model.train(was_training)
    return combine(cfg, step, quality, covered, sound, pins, n_chars)


def eval_chars(cfg) -> int:
    """Padded letters per batch of a pass over the corpus without gradient (larger than training's)."""
    return max(cfg.chars_per_batch * 4, 400)


def span_emissions(log_p, prep, batch, gamma: float, units, lens, stems: int | None = None):
    """(S, nslot) log P(span | matched) of a batch's spans under the table ``log_p``: the mean over
    every stem (the paper's), or with ``stems = K`` over each span's K best."""
    import torch

    from engine.model.alignment import NEG
    from engine.model.candidate_stems import top_candidates
    from engine.model.scoring import span_given_match, span_scores

    scores = span_scores(log_p, prep, batch, gamma, units, lens)
    if stems and stems < prep.n_stems:
        return span_given_match(torch.where(top_candidates(scores, stems), scores, scores.new_tensor(NEG)), stems)
    return span_given_match(scores, prep.n_stems)


def lattice_sums(prep, batch, log_e) -> tuple[float, float]:
    """(quality, covered letters) of a batch's lattice over the span emissions ``log_e``."""
    from engine.model.lattice import forward_sums
    from engine.model.objective import lattice_log_o, log_match_prior
    from engine.model.scoring import place_emissions

    emit = place_emissions(log_e + log_match_prior(prep), batch)
    log_r = math.log(prep.config.reward_scale) + log_e / batch.span_len.to(log_e.dtype)
    sums = forward_sums(emit, place_emissions(log_r, batch), batch.chunk_len, batch.lattice_lengths,
                        lattice_log_o(prep))
    return float(sums.quality.sum()), float(sums.coverage.sum())


def mapping_terms(trainer, log_p) -> tuple[float, float]:
    """(Omega_loss, the pins' penalty) of the table ``log_p``: the terms that need no text."""
    from engine.model.objective import pin_pairs, pin_penalty, pin_probs

    probs = log_p.exp()
    return (float(trainer.model.sound_loss(probs)),
            float(pin_penalty(pin_probs(trainer.model, probs, False).cpu(), pin_pairs(trainer.prep, trainer.pins))))


def combine(cfg, step: int, quality: float, covered: float, sound: float, pins: float, n_chars: int) -> dict[str, float]:
    """The objective and its parts from the corpus's sums (quality, covered letters, Omega_loss, the
    pins' penalty) over ``n_chars`` letters, weighted as in training at ``step``."""
    n = max(n_chars, 1)
    q, cov, snd = quality / n, covered / n, sound / n
    objective = (-cfg.quality_weight * q + cfg.coverage_weight * max(cfg.coverage_target(step) - cov, 0.0)
                 + cfg.sound_loss_weight * snd + cfg.pin_weight * pins)
    return {"objective": objective, "quality": q, "coverage_ratio": cov, "sound_loss": snd, "pins": pins}
