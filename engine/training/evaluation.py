"""Evaluation: P@K against gold stems, span precision/recall, coverage and the closeness curve.

P@K (docs/benchmarks.md states it the same way): for each gold row, take every candidate
(span, stem) whose span starts at ``start`` and ends at or before ``word_end``; score it by
log P(span | stem) divided by the span's length (``score_normalisation = "span"``, the paper's
phi) or the stem's (``"stem"``, as in the authors' offline dumps); keep each stem's best span; rank stems by score; a hit
is a gold form (or a form with the same IPA units) among the top K. P@K = hits / gold rows.
Gold rows the model cannot score at all (e.g. a word shorter than the shortest span) count as misses.

Strict P@K (``p_at_1_strict``, ``p_at_10_strict``): a gold row is a hit only when the Viterbi decode
itself chose a span that starts at ``start`` and ends by ``word_end``, and a gold stem is among
that span's top K alternatives (docs/deviations-from-paper.md says why both are reported).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import torch

from engine.model.alignment import NEG
from engine.corpus import GoldAnnotation
from engine.model.decoding import decode_batch, normaliser, score_chunks, start_lookup
from engine.model.prepared import Prepared
from engine.closeness.curve import closeness_curve
from engine.results import Match

DEFAULT_KS = (1, 3, 5, 10)
STRICT_KS = (1, 10)


@dataclass
class Evaluation:
    matches: list[Match]
    coverage: float
    closeness: list[tuple[float, float]]
    metrics: dict[str, float] = field(default_factory=dict)
    gold_ranks: list[int | None] = field(default_factory=list)
    """For each gold row, the rank (1-based) of the first correct stem, or None."""


def locate_gold(prep: Prepared, gold: Sequence[GoldAnnotation]) -> dict[int, list[tuple[int, int, int]]]:
    """chunk index -> [(gold row, offset in chunk, longest allowed span)]."""
    by_ins: dict[str, list[int]] = {}
    for ci, ch in enumerate(prep.chunks):
        by_ins.setdefault(ch.inscription_id, []).append(ci)
    out: dict[int, list[tuple[int, int, int]]] = {}
    for g_i, g in enumerate(gold):
        for ci in by_ins.get(g.inscription_id, []):
            ch = prep.chunks[ci]
            if ch.offset <= g.start < ch.offset + len(ch):
                off = g.start - ch.offset
                longest = min(g.word_end, ch.offset + len(ch)) - g.start
                out.setdefault(ci, []).append((g_i, off, longest))
                break
    return out


def gold_targets(prep: Prepared, gold: Sequence[GoldAnnotation]) -> list[set[int]]:
    """For each gold row, the stem-table entries it accepts."""
    by_form = prep.entries_by_form()
    return [{v for form in g.known for v in by_form.get(form, [])} for g in gold]


def evaluate(model, prep: Prepared, gold: Sequence[GoldAnnotation] = (), *, step: int, device="cpu",
             top_k: int | None = None, ks: Sequence[int] = DEFAULT_KS, chars_per_batch: int | None = None,
             chunk_indices: list[int] | None = None) -> Evaluation:
    cfg = prep.config
    top_k = top_k or cfg.top_k
    chars = chars_per_batch or max(cfg.chars_per_batch * 4, 400)
    indices = list(range(len(prep.chunks))) if chunk_indices is None else chunk_indices
    where = locate_gold(prep, gold)
    targets = gold_targets(prep, gold)
    ranks: list[int | None] = [None] * len(gold)
    matches: list[Match] = []
    was_training = model.training
    model.eval()
    try:
        for batch, scores in score_chunks(model, prep, indices, step, device, chars):
            matches.extend(decode_batch(prep, batch, scores, top_k))
            if where:
                _rank_gold(prep, batch, scores, where, targets, ranks)
    finally:
        model.train(was_training)
    total = sum(len(prep.chunks[i]) for i in indices)
    covered = sum(m.end - m.start for m in matches)
    metrics: dict[str, float] = {"coverage": covered / total if total else 0.0, "n_matches": float(len(matches))}
    if gold:
        for k in ks:
            metrics[f"p_at_{k}"] = sum(1 for r in ranks if r is not None and r <= k) / len(gold)
        metrics.update(span_precision_recall(matches, gold, targets, prep))
        metrics.update(strict_precision_at_k(matches, gold, targets, prep, [k for k in STRICT_KS if k <= top_k]))
        metrics["n_gold"] = float(len(gold))
    return Evaluation(matches, metrics["coverage"], closeness_curve(matches, total), metrics, ranks)


def _rank_gold(prep: Prepared, batch, scores: torch.Tensor, where, targets, ranks) -> None:
    lookup = start_lookup(batch)
    norm = normaliser(prep, batch, prep.stem_len)
    span_len = batch.span_len
    for b, ci in enumerate(batch.chunk_indices):
        for g_i, off, longest in where.get(ci, []):
            s = lookup.get((b, off))
            if s is None or not targets[g_i]:
                continue
            ok = batch.valid[s] & (span_len[s] <= longest)                 # (nslot,)
            if not bool(ok.any()):
                continue
            col = scores[:, s, :]                                            # (V, nslot)
            val = torch.where(ok.unsqueeze(0) & (col > NEG / 2), col / norm[:, s, :], torch.tensor(float("-inf")))
            best = val.max(dim=1).values                                     # (V,)
            # rank of the best gold stem = 1 + number of stems scoring strictly higher
            gold_best = max(float(best[v]) for v in targets[g_i])
            if gold_best == float("-inf"):
                continue
            ranks[g_i] = 1 + int((best > gold_best).sum())


def span_precision_recall(matches: Sequence[Match], gold: Sequence[GoldAnnotation], targets, prep: Prepared
                          ) -> dict[str, float]:
    """Prefix rule: a decoded span is correct when it starts at a gold start, ends inside the gold
    word and its best stem is a gold stem. Precision counts decoded spans in inscriptions with gold."""
    by_units = prep.entries_by_units()
    from engine.model.phonology import ipa_units
    gold_at: dict[tuple[str, int], list[int]] = {}
    for g_i, g in enumerate(gold):
        gold_at.setdefault((g.inscription_id, g.start), []).append(g_i)
    with_gold = {g.inscription_id for g in gold}
    predicted = correct = 0
    hit_rows: set[int] = set()
    for m in matches:
        if m.inscription_id not in with_gold:
            continue
        predicted += 1
        v = by_units.get(ipa_units(m.best.ipa))
        for g_i in gold_at.get((m.inscription_id, m.start), []):
            if m.end <= gold[g_i].word_end and v in targets[g_i]:
                correct += 1
                hit_rows.add(g_i)
                break
    return {
        "span_precision": correct / predicted if predicted else 0.0,
        "span_recall": len(hit_rows) / len(gold) if gold else 0.0,
    }


def strict_precision_at_k(matches: Sequence[Match], gold: Sequence[GoldAnnotation], targets, prep: Prepared,
                          ks: Sequence[int] = STRICT_KS) -> dict[str, float]:
    """Decode-based P@K: a gold row counts when a decoded span starts at its ``start``, ends at or
    before its ``word_end`` and has a gold stem among its first K ranked alternatives."""
    if not gold or not ks:
        return {}
    from engine.model.phonology import ipa_units
    by_units = prep.entries_by_units()
    gold_at: dict[tuple[str, int], list[int]] = {}
    for g_i, g in enumerate(gold):
        gold_at.setdefault((g.inscription_id, g.start), []).append(g_i)
    best_rank: dict[int, int] = {}
    for m in matches:
        rows = gold_at.get((m.inscription_id, m.start))
        if not rows:
            continue
        ranked = [by_units.get(ipa_units(a.ipa)) for a in m.alternatives]
        for g_i in rows:
            if m.end > gold[g_i].word_end:
                continue
            rank = next((r for r, v in enumerate(ranked, start=1) if v in targets[g_i]), None)
            if rank is not None and rank < best_rank.get(g_i, rank + 1):
                best_rank[g_i] = rank
    return {f"p_at_{k}_strict": sum(1 for r in best_rank.values() if r <= k) / len(gold) for k in ks}


def syllable_metrics(table) -> dict[str, float]:
    """For a syllable run whose signs have standard values (Linear B: resources/linear_b/):
    ``signs_standard``, how many signs' top-1 onset and vowel are their standard value, out of
    ``signs_with_standard``. Empty for any other script (the reading is unknown, not wrong)."""
    from engine.datasets.linear_b import count_standard

    count = count_standard(table.top_values())
    if not count.total:
        return {}
    return {"signs_standard": float(count.right), "signs_with_standard": float(count.total)}
