"""Which sign to pin next: the unpinned lost signs ranked by how much pinning each is likely to
change the readings, each with a one-line reason in plain words.

Two rankings (``rank``), and a third measure for benchmarks:

* ``"share"`` (the default, what the app shows): the most frequent unpinned signs first (ties:
  the more uncertain). The benchmark (docs/pin-suggestions.md) found that pinning the most frequent
  unpinned sign raised P@10 at least as much as the other rankings tried, and more at 200 steps.
* ``"uncertainty"``: uncertainty times share of the text (the score below). It picked the most
  frequent sign anyway after 100 steps (every sign is uncertain then) and did worse than it after
  200 steps.
* ``counterfactuals``: pin each sign to its best sound and re-decode the corpus; how many decoded
  spans change. It needs the model (not the stored mapping) and did worse than frequency too.
* ``misfits``: how often the decoded matches read a sign otherwise than its best value (the data
  disagreeing with the mapping). Neither it nor the disagreement of seeds (``agreeing`` below), each
  times the share, beat frequency either (docs/pin-suggestions.md, benchmarks/results/pin-suggestions-v2*).

The score of a sign is its uncertainty times its share of the text:

* uncertainty = 1 - (p1 - p2), where p1 >= p2 are the two largest values of the sign's
  P(/sound/ | sign) (the mapping's column normalised over the sign's sounds, as ``signvalues``'
  ``share``). With several mappings (seeds or restarts of the same run) the shares are averaged
  first, so a sign whose best sound differs between seeds is split, hence uncertain.
* text share = the sign's occurrences / all signs of the corpus (dividers left out).

benchmarks/pin_suggestions.py measures the P@10 gain of pinning the top sign of each ranking
against a random and the most frequent unpinned sign (docs/pin-suggestions.md).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np

from engine.corpus import DIVIDER, PinnedValue, split_units
from engine.io.display import IDENTITY, DisplayTable
from engine.model.phonology import DELETE
from engine.results import MappingSnapshot


@dataclass(frozen=True)
class PinSuggestion:
    sign: str               # the engine's letter
    score: float            # uncertainty x text share; higher: pin this first
    uncertainty: float      # 1 - (best share - second share), in [0, 1]
    text_share: float       # the sign's fraction of the text
    best: str               # the sign's best sound (IPA), over the averaged mappings
    best_share: float
    second: str             # its second sound ("" when it has one sound only)
    second_share: float
    agreeing: int           # mappings whose own best sound is ``best``
    mappings: int           # mappings averaged
    reason: str             # one line for people


def text_shares(texts: Iterable[Sequence[str]]) -> dict[str, float]:
    """Each sign's fraction of all signs in ``texts`` (sequences of units; dividers left out)."""
    counts = Counter(u for units in texts for u in units if u != DIVIDER)
    total = sum(counts.values())
    return {s: n / total for s, n in counts.items()} if total else {}


def corpus_shares(corpus) -> dict[str, float]:
    """``text_shares`` of a ``Corpus``'s inscriptions."""
    return text_shares(ins.units for ins in corpus.inscriptions)


def _shares(mapping: MappingSnapshot, sign: str) -> dict[str, float]:
    """P(/sound/ | sign): the sign's column over its sounds (DELETE and non-finite left out), normalised."""
    if sign not in mapping.lost:
        return {}
    col = np.asarray(mapping.probs)[:, mapping.lost.index(sign)]
    vals = {mapping.known[i]: float(col[i]) for i in range(len(mapping.known))
            if mapping.known[i] != DELETE and math.isfinite(float(col[i])) and float(col[i]) >= 0}
    total = sum(vals.values())
    return {k: v / total for k, v in vals.items()} if total > 0 else {}


def _best(shares: Mapping[str, float]) -> str:
    return min(shares, key=lambda k: (-shares[k], k)) if shares else ""


def _percent(x: float) -> str:
    return f"{100 * x:.1f} %" if x < 0.1 else f"{100 * x:.0f} %"


def _reason(s: PinSuggestion, display: DisplayTable) -> str:
    if s.second and s.second_share >= 0.5 * s.best_share:
        value = f"its value is split between /{s.best}/ {s.best_share:.2f} and /{s.second}/ {s.second_share:.2f}"
    elif s.second and s.best_share < 0.5:
        value = f"its best value /{s.best}/ has only {s.best_share:.2f} (next /{s.second}/ {s.second_share:.2f})"
    elif s.second:
        value = f"its value /{s.best}/ is fairly sure at {s.best_share:.2f} (next /{s.second}/ {s.second_share:.2f})"
    else:
        value = f"its value /{s.best}/ {s.best_share:.2f}"
    if s.mappings > 1:
        value += f"; {s.agreeing} of {s.mappings} seeds read it /{s.best}/"
    return f"{display.show(s.sign)}: {value}, and it is {_percent(s.text_share)} of the text"


def suggest_pins(mapping: MappingSnapshot | Sequence[MappingSnapshot], shares: Mapping[str, float], *,
                 pins: Sequence[PinnedValue] = (), top: int | None = 3,
                 display: DisplayTable | None = None, rank: str = "share") -> list[PinSuggestion]:
    """The unpinned signs of ``shares`` (a sign's fraction of the text, see ``text_shares``) that
    the mapping knows, best first, at most ``top`` (None: all). ``rank="share"``: the most frequent
    first (ties: the higher score); ``rank="uncertainty"``: the highest score (uncertainty x share)
    first (ties: the more frequent); then by sign. ``mapping``: one run's, or several
    seeds'/restarts' of the same corpus and language (their shares are averaged). A sign with any
    pin is left out; so is one no mapping knows."""
    if rank not in ("share", "uncertainty"):
        raise ValueError(f"rank must be 'share' or 'uncertainty', not {rank!r}")
    mappings = [mapping] if isinstance(mapping, MappingSnapshot) else list(mapping)
    if not mappings:
        raise ValueError("suggest_pins needs at least one mapping")
    display = display or IDENTITY
    pinned = {p.lost for p in pins}
    out: list[PinSuggestion] = []
    for sign, share in shares.items():
        if sign in pinned or sign in (DIVIDER, DELETE) or share <= 0:
            continue
        each = [d for d in (_shares(m, sign) for m in mappings) if d]
        if not each:
            continue
        sounds = sorted({k for d in each for k in d})
        avg = {k: sum(d.get(k, 0.0) for d in each) / len(each) for k in sounds}
        ranked = sorted(avg, key=lambda k: (-avg[k], k))
        p1 = avg[ranked[0]]
        second = ranked[1] if len(ranked) > 1 else ""
        p2 = avg[second] if second else 0.0
        uncertainty = min(1.0, max(0.0, 1.0 - (p1 - p2)))
        agreeing = sum(1 for d in each if _best(d) == ranked[0])
        s = PinSuggestion(sign, uncertainty * share, uncertainty, share, ranked[0], p1, second, p2,
                          agreeing, len(each), "")
        out.append(PinSuggestion(**{**s.__dict__, "reason": _reason(s, display)}))
    if rank == "share":
        out.sort(key=lambda s: (-s.text_share, -s.score, s.sign))
    else:
        out.sort(key=lambda s: (-s.score, -s.text_share, s.sign))
    return out if top is None else out[:top]


def suggest_for_trainer(trainer, *, top: int | None = 3, others: Sequence[MappingSnapshot] = (),
                        display: DisplayTable | None = None, rank: str = "share") -> list[PinSuggestion]:
    """``suggest_pins`` for a trained ``Trainer`` (its mapping, corpus and pins), with the
    mappings of other seeds or restarts of the same data in ``others``."""
    return suggest_pins([trainer.mapping(), *others], corpus_shares(trainer.corpus), pins=trainer.pins,
                        top=top, display=display, rank=rank)


# ---- the counterfactual: pin a sign to its best sound and re-decode ----------------------------

@dataclass(frozen=True)
class Counterfactual:
    sign: str
    sound: str              # the sound it was pinned to (its best one)
    changed: int            # decoded spans whose place or best stem differ from the run's own decode
    spans: int              # spans the run's own decode has
    reason: str

    @property
    def changed_share(self) -> float:
        return self.changed / self.spans if self.spans else 0.0


class _Pinned:
    """A model whose P(lost | known) has the row of ``unit`` put (almost) all on ``sign``: what a
    locked pin pulls toward. Only what evaluation reads (log_probs, train/eval)."""

    def __init__(self, model, row: int, col: int):
        import torch

        with torch.no_grad():
            log_p = model.log_probs(dropout=False).clone()
            log_p[row, :] = math.log(1e-6)
            log_p[row, col] = math.log(1 - 1e-6 * (log_p.shape[1] - 1))
        self._log_p = log_p
        self.training = model.training

    def log_probs(self, dropout: bool = False):
        return self._log_p

    def train(self, mode: bool = True):
        self.training = mode
        return self

    def eval(self):
        return self.train(False)


def _spans(matches) -> set[tuple]:
    return {(m.inscription_id, m.start, m.end, m.best.form) for m in matches if m.alternatives}


def counterfactuals(trainer, signs: Sequence[str] | None = None, *,
                    display: DisplayTable | None = None) -> list[Counterfactual]:
    """For each of ``signs`` (default: the unpinned signs of the corpus), pin it to its best
    sound and decode the whole corpus again; how many decoded spans change. Most changes first.
    One evaluation per sign: seconds each on a small corpus, so not for the GUI thread."""
    from engine.training.evaluation import evaluate

    display = display or IDENTITY
    prep, model = trainer.prep, trainer.model
    mapping = trainer.mapping()
    pinned = {p.lost for p in trainer.pins}
    if signs is None:
        signs = sorted(s for s in corpus_shares(trainer.corpus) if s not in pinned)
    base = _spans(evaluate(model, prep, (), step=trainer.step, device=trainer.device).matches)
    out: list[Counterfactual] = []
    for sign in signs:
        shares = _shares(mapping, sign)
        if not shares or sign not in prep.lost_letters:
            continue
        sound = _best(shares)
        cf = _Pinned(model, list(prep.known_units).index(sound), list(prep.lost_letters).index(sign))
        now = _spans(evaluate(cf, prep, (), step=trainer.step, device=trainer.device).matches)
        changed = len(base - now)
        share = changed / len(base) if base else 0.0
        out.append(Counterfactual(sign, sound, changed, len(base),
                                  f"{display.show(sign)}: pinned to /{sound}/, {changed} of the {len(base)} "
                                  f"decoded spans ({_percent(share)}) change"))
    out.sort(key=lambda c: (-c.changed, c.sign))
    return out


# ---- data misfit: where the decoded matches read a sign otherwise than the mapping ---------------

@dataclass(frozen=True)
class Misfit:
    sign: str
    best: str               # the sign's best sound in the mapping
    aligned: int            # the sign's letters inside decoded matches (aligned to the best stem)
    misfit: int             # of them, read as another sound than ``best`` or as an insertion

    @property
    def rate(self) -> float:
        return self.misfit / self.aligned if self.aligned else 0.0


def misfits(mapping: MappingSnapshot, matches, *, gamma: float = 3.5, band: int = 2) -> dict[str, Misfit]:
    """For each sign seen in ``matches`` (a decode's spans with their best stem), how often the best
    alignment of span to stem (engine/model/explain.py) reads it as a sound other than its own best
    value, or as half of an insertion: the decoded data disagreeing with the mapping. Gold-free."""
    from engine.model.explain import best_alignment

    best: dict[str, str] = {}
    aligned: Counter = Counter()
    wrong: Counter = Counter()
    for m in matches:
        if not m.alternatives:
            continue
        steps, _ = best_alignment(mapping, m.span, m.best.ipa, gamma=gamma, band=band)
        for st in steps:
            letters = split_units(st.lost)
            for c in letters:
                if c not in best:
                    best[c] = _best(_shares(mapping, c))
                aligned[c] += 1
                if len(letters) > 1 or st.known != best[c]:
                    wrong[c] += 1
    return {c: Misfit(c, best[c], aligned[c], wrong[c]) for c in aligned}
