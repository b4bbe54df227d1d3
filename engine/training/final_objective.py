"""The training objective of a finished run over its whole corpus, without dropout: a gold-free
number to compare seeds by (the step losses are single batches under dropout, too noisy for that).

It is the loss engine/model/objective.py minimises, at the run's last step: -quality + coverage hinge +
Omega_loss + pins, each weighted as in training, with quality, coverage and Omega_loss divided by
the corpus's letter count instead of a batch's.
"""

from __future__ import annotations

import math


def corpus_objective(trainer, *, chars_per_batch: int | None = None, step: int | None = None,
                     stems: int | None = None, chunks: list[int] | None = None) -> dict[str, float]:
    """``{"objective", "quality", "coverage_ratio", "sound_loss", "pins"}`` of ``trainer``'s model,
    with the insertion cost and coverage target of ``step`` (default: the trainer's step).
    ``stems = K``: each span's P(span | matched) is the mean over its K best stems (the competition of
    setting candidate_stems at K) instead of over every stem, the paper's. ``chunks``: only these chunks
    of the corpus (a sample, to screen many candidate mappings cheaply; engine/training/polish.py)."""
    import torch

    from engine.model.alignment import NEG
    from engine.model.candidate_stems import top_candidates
    from engine.model.decoding import eval_batches
    from engine.model.lattice import forward_sums
    from engine.model.objective import lattice_log_o, log_match_prior, pin_pairs, pin_penalty, pin_probs
    from engine.model.scoring import make_batch, place_emissions, span_given_match, span_scores

    prep, cfg, model = trainer.prep, trainer.config, trainer.model
    step = trainer.step if step is None else step
    device = trainer.device
    chars = chars_per_batch or max(cfg.chars_per_batch * 4, 400)
    gamma = cfg.insertion_cost(step)
    quality = covered = 0.0
    n_chars = 0
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            log_p = model.log_probs(dropout=False)
            units, lens = prep.stem_units.to(device), prep.stem_len.to(device)
            for idx in eval_batches(prep, list(range(len(prep.chunks))) if chunks is None else list(chunks), chars):
                batch = make_batch(prep, idx).to(device)
                if batch.span_len.numel() == 0:
                    n_chars += int(batch.chunk_len.sum())
                    continue
                scores = span_scores(log_p, prep, batch, gamma, units, lens)
                if stems and stems < prep.n_stems:
                    log_e = span_given_match(torch.where(top_candidates(scores, stems), scores,
                                                         scores.new_tensor(NEG)), stems)
                else:
                    log_e = span_given_match(scores, prep.n_stems)
                emit = place_emissions(log_e + log_match_prior(prep), batch)
                log_r = math.log(cfg.reward_scale) + log_e / batch.span_len.to(log_e.dtype)
                sums = forward_sums(emit, place_emissions(log_r, batch), batch.chunk_len,
                                    batch.lattice_lengths, lattice_log_o(prep))
                quality += float(sums.quality.sum())
                covered += float(sums.coverage.sum())
                n_chars += int(batch.chunk_len.sum())
            probs = log_p.exp()
            sound = float(model.sound_loss(probs))
            pins = float(pin_penalty(pin_probs(model, probs, False).cpu(), pin_pairs(prep, trainer.pins)))
    finally:
        model.train(was_training)
    return combine(cfg, step, quality, covered, sound, pins, n_chars)


def combine(cfg, step: int, quality: float, covered: float, sound: float, pins: float, n_chars: int) -> dict[str, float]:
    """The objective and its parts from the corpus's sums (quality, covered letters, Omega_loss, the
    pins' penalty) over ``n_chars`` letters, weighted as in training at ``step``."""
    n = max(n_chars, 1)
    q, cov, snd = quality / n, covered / n, sound / n
    objective = (-cfg.quality_weight * q + cfg.coverage_weight * max(cfg.coverage_target(step) - cov, 0.0)
                 + cfg.sound_loss_weight * snd + cfg.pin_weight * pins)
    return {"objective": objective, "quality": q, "coverage_ratio": cov, "sound_loss": snd, "pins": pins}
