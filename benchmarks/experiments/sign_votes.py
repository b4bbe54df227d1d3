"""Issue 49: can a finished syllabary run place its rare signs from its own matches?

A dev syllabary run that matches well (P@10 0.7 or more) reads most of its common signs right and most of its
rare ones wrong (benchmarks/experiments/sign_bands.py). This script asks, for each sign of a finished
``benchmarks.cipher_suite`` run, what the run's other signs say it is worth, two ways:

- ``--method votes``: the sign is made a wildcard (in the edit DP's table each of its two slots takes, for every
  known unit, the best that any sign gives that unit), the chunks that write it are decoded again (the trainer's
  own Viterbi, best stem of each span), and each matched span that holds the sign is aligned to its stem
  (engine/model/explain.py, the sign again a wildcard): the stem's consonant (or null onset) in the sign's onset
  slot is a vote for its onset, the stem's vowel in its vowel slot a vote for its vowel (at each floor of FLOORS
  on the span's other steps).
- ``--method screen``: the sign tried at every syllable of the stems in turn (candidate_column: in the DP's table
  it writes that syllable and nothing else), and the chunks that write it scored by the lattice (the training
  objective's quality term); the best syllable is the proposal. ``--compete``: a syllable other signs hold is
  shared with them, and the score pays what they lose (candidate_quality); ``--sequential``: the signs from the
  commonest down, each one's choice held when the next is tried (ScreenState).

    python -m benchmarks.experiments.sign_votes --runs build/cipher-runs/syllabary-types --seeds 0 \\
        --ids dev-s-latin-1 --method screen --compete --sequential --ranks 21 0 \\
        --out benchmarks/results/ciphers/dev-sign-screen.jsonl

Each row: one run; per band of frequency ranks (sign_bands.BANDS), the signs the run reads right, those the
proposal reads right, and how many of the run's wrong signs it would mend and of its right ones it would break.
Nothing here changes a run; the key only counts.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from typing import Sequence

from benchmarks.experiments.sign_bands import BANDS, add_run_arguments, finished_runs, parse_run_args
from benchmarks.experiments.syllable_objective import finish_row


def wildcard_table(log_p, sign: int):
    """The DP table ``log_p`` (K, 2C + 1) with sign ``sign``'s (1-based) two slots each at the best any sign's
    same slot gives its row."""
    out = log_p.clone()
    out[:, 2 * sign - 1] = log_p[:, 1::2].max(dim=1).values
    out[:, 2 * sign] = log_p[:, 2::2].max(dim=1).values
    return out


def votes_for(trainer, sign: str, chunks: list[int]) -> list[tuple[str, str, float, int]]:
    """The votes for ``sign`` from decoding ``chunks`` with it a wildcard (module docstring), each ("onset" or
    "vowel", the stem's unit aligned to that slot, the worst log-probability of the span's other steps, the span's
    length in signs)."""
    import numpy as np
    import torch

    from engine.model.decoding import decode_batch, eval_batches
    from engine.model.explain import _syllable_alignment
    from engine.model.phonology import ipa_units
    from engine.model.scoring import make_batch, span_scores
    from engine.model.syllables import is_vowel
    from engine.results import SyllableTable
    from engine.training.final_objective import eval_chars

    model, prep, cfg = trainer.model, trainer.prep, trainer.config
    s = prep.lost_letters.index(sign)
    gamma = cfg.insertion_cost(trainer.step)
    with torch.no_grad():
        log_p = wildcard_table(model.log_probs(dropout=False), s)
        units, lens = prep.stem_units, prep.stem_len
        matches = []
        for idx in eval_batches(prep, chunks, eval_chars(cfg)):
            batch = make_batch(prep, idx)
            matches += decode_batch(prep, batch, span_scores(log_p, prep, batch, gamma, units, lens), top_k=1)
    table = model.syllable_table()
    r = table.signs.index(sign)
    onset_p, vowel_p = np.array(table.onset_probs), np.array(table.vowel_probs)
    onset_p[r, :], vowel_p[r, :] = 1.0, 1.0
    wild = SyllableTable(table.signs, table.onsets, onset_p, table.vowels, vowel_p)
    out = []
    for m in matches:
        signs = list(m.span)
        if sign not in signs:
            continue
        steps, _ = _syllable_alignment(wild, list(ipa_units(m.best.ipa)), signs, gamma, cfg.band)
        others = [st.log_prob for st in steps if not any(signs[p] == sign for p in st.signs_at)]
        worst = min(others, default=0.0)
        for step in steps:
            for p in step.signs_at:
                if signs[p] != sign or len(step.signs_at) != 1:
                    continue
                out.append(("vowel" if is_vowel(step.known) else "onset", step.known, worst, len(signs)))
    return out


#: the floors tried: a vote counts when every other step of its span's alignment has at least this log-probability
FLOORS = (None, -4.0, -3.0, -2.0, -1.0)


def tally(raw: list, floor: float | None) -> tuple[Counter, Counter]:
    """(onset votes, vowel votes) of ``raw`` (votes_for) whose span's worst other step is at least ``floor``."""
    onsets, vowels = Counter(), Counter()
    for kind, unit, worst, _ in raw:
        if floor is None or worst >= floor:
            (vowels if kind == "vowel" else onsets)[unit] += 1
    return onsets, vowels


def chunks_by_sign(prep) -> dict[str, list[int]]:
    """Each sign -> the indices of the chunks that write it."""
    out = defaultdict(list)
    for i, ch in enumerate(prep.chunks):
        for sg in set(ch.letters):
            out[sg].append(i)
    return out


def run_votes(trainer, key: dict[str, dict], counts: Counter, method: str = "votes", ranks: tuple[int, int] = (1, 0),
              compete: bool = False, sequential: bool = False) -> dict:
    """Per sign (ranks ``ranks``, 1-based, inclusive; 0: to the last): the run's reading and what ``method`` proposes
    (``votes``: the votes' winners at each floor of FLOORS; ``screen``: candidate_quality's best syllable), right or
    not by the key; summed per band of frequency ranks."""
    from benchmarks.cipher_suite import syllables_right

    reading = trainer.mapping().syllables.top_values()
    by_sign = chunks_by_sign(trainer.prep)
    ranked = sorted((s for s, row in key.items() if row["known_vowels"] and counts[s] > 0),
                    key=lambda s: (-counts[s], s))
    lo, hi = ranks
    signs = []
    state = ScreenState(trainer, counts) if method == "screen" else None
    for rank, sg in enumerate(ranked, start=1):
        if rank < lo or (hi and rank > hi):
            continue
        now = tuple(reading.get(sg))
        row = {"rank": rank, "sign": sg, "count": counts[sg], "now": list(now),
               "now_right": syllables_right({sg: now}, key)[0] == 1}
        if method == "votes":
            raw = votes_for(trainer, sg, by_sign[sg])
            for floor in FLOORS:
                onsets, vowels = tally(raw, floor)
                voted = (onsets.most_common(1)[0][0] if onsets else now[0],
                         vowels.most_common(1)[0][0] if vowels else now[1])
                row[f"voted@{floor}"] = {"value": list(voted), "votes": sum(onsets.values()),
                                         "right": syllables_right({sg: voted}, key)[0] == 1}
        else:
            cands = candidate_quality(trainer, sg, by_sign[sg], compete=compete, counts=counts, state=state)
            if sequential:
                state.accept(trainer.prep.lost_letters.index(sg), trainer.model.vowel_pairs.index(
                    (cands[0][1], cands[0][2])))
            q_now = next((q for q, o, v in cands if (o, v) == now), None)
            row["screen"] = {"value": [cands[0][1], cands[0][2]], "quality": round(cands[0][0], 3),
                             "quality_now": None if q_now is None else round(q_now, 3),
                             "second": [cands[1][1], cands[1][2]], "quality_second": round(cands[1][0], 3),
                             "right": syllables_right({sg: (cands[0][1], cands[0][2])}, key)[0] == 1}
        signs.append(row)
    out = {"method": method, "ranks": list(ranks), "compete": compete, "sequential": sequential,
           "now_right": sum(x["now_right"] for x in signs), "proposed": {}, "signs": signs}
    for f in ([f"voted@{floor}" for floor in FLOORS] if method == "votes" else ["screen"]):
        bands = []
        for b_lo, b_hi in BANDS:
            part = [x for x in signs if x["rank"] >= b_lo and (b_hi is None or x["rank"] <= b_hi)]
            if part:
                bands.append({"ranks": [part[0]["rank"], part[-1]["rank"]], "signs": len(part),
                              "now_right": sum(x["now_right"] for x in part),
                              "proposed_right": sum(x[f]["right"] for x in part),
                              "mended": sum(x[f]["right"] and not x["now_right"] for x in part),
                              "broken": sum(x["now_right"] and not x[f]["right"] for x in part)})
        out["proposed"][f] = {"right": sum(x[f]["right"] for x in signs), "bands": bands}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_run_arguments(p)
    p.add_argument("--method", choices=("votes", "screen"), default="votes")
    p.add_argument("--ranks", nargs=2, type=int, default=[1, 0], metavar=("FROM", "TO"),
                   help="only the signs of these frequency ranks (1-based, inclusive; TO 0: to the last)")
    p.add_argument("--compete", action="store_true", help="with --method screen: candidate_quality's compete")
    p.add_argument("--sequential", action="store_true",
                   help="with --method screen: each sign's choice held when the next is screened (ScreenState)")
    args = parse_run_args(p, argv)
    if args is None:
        return 2
    for c, s, trainer, key, counts in finished_runs(args):
        finish_row({"id": c, "seed": s, "runs": str(args.runs),
                    **run_votes(trainer, key, counts, args.method, tuple(args.ranks), args.compete, args.sequential)},
                   "sign_votes", argv, args.out)
    return 0



#: log P(sign | onset, vowel) of a syllable a candidate sign does not write (IMPOSSIBLE_LOG_P is -30)
OTHER_LOG_P = -10.0


def candidate_column(log_p, model, sign: int, pair: int, others: float = 0.0):
    """The DP table ``log_p`` with sign ``sign``'s (1-based) onset slot as if it wrote the stems' syllable
    ``model.vowel_pairs[pair]`` and nothing else: that pair's row log(1 - P(onset left out)) (a null onset: 0),
    its onset's coda row log 0.5 + log 0.2 (the coda written with one of about five signs), every other pair and
    consonant row OTHER_LOG_P."""
    import math

    from engine.model.syllable_mapping import CODA_DELETE_LOG_P, ONSET_DELETE_LOG_P

    K = len(model.known_units)
    col = log_p[:, 2 * sign - 1].clone()
    col[K:] = OTHER_LOG_P
    col[model.consonant_rows] = OTHER_LOG_P
    onset = int(model.pair_onsets[pair])
    share = -math.log1p(others)     # the syllable's mass shared with the signs that hold it now (``others``)
    if onset == 0:
        col[K + pair] = share
    else:
        col[K + pair] = math.log1p(-math.exp(ONSET_DELETE_LOG_P)) + share
        col[int(model.onset_rows[onset])] = CODA_DELETE_LOG_P + math.log(0.2)
    out = log_p.clone()
    out[:, 2 * sign - 1] = col
    return out


class ScreenState:
    """What the screen holds fixed while it tries a sign's syllables: the DP table, P(sign | syllable) (the pair
    rows' mass) and P(syllable | sign) (the grid's reading); with ``sequential`` each sign's chosen syllable is
    written into all three before the next sign is tried (accept), so that two rare signs do not both take a
    syllable no sign held when the screen began."""

    def __init__(self, trainer, counts: dict):
        import torch

        model = trainer.model
        with torch.no_grad():
            self.table = model.log_probs(dropout=False)
            self.mass = model.sign_given_syllable().exp()                       # (P, C) P(x | j)
            self.post = model.pair_posterior()                                  # (P, C) P(j | x)
        self.counts = torch.tensor([float(counts.get(x, 0)) for x in model.lost_letters[1:]])
        self.model = model

    def competition(self, s: int):
        """(H, N) per syllable j: the mass of j on the other signs, and how often the text writes them reading j."""
        mass = self.mass.clone()
        mass[:, s - 1] = 0.0
        n = self.counts.clone()
        n[s - 1] = 0.0
        return mass.sum(dim=1).clamp(max=1.0), self.post @ n

    def accept(self, s: int, j: int) -> None:
        """Sign ``s`` (1-based) writes syllable ``j`` from now on, sharing it with its holders."""
        import math

        held = float(self.competition(s)[0][j])
        K = len(self.model.known_units)
        self.table = candidate_column(self.table, self.model, s, j, held)
        others = [x for x in range(1, self.mass.shape[1] + 1) if x != s]
        cols = torch_cols(others, self.table.device)
        self.table[K + j, 2 * cols - 1] -= math.log1p(held)
        self.mass[j] /= 1.0 + held
        self.mass[:, s - 1] = 0.0
        self.mass[j, s - 1] = 1.0 / (1.0 + held)
        self.post[:, s - 1] = 0.0
        self.post[j, s - 1] = 1.0


def torch_cols(xs: list[int], device):
    import torch

    return torch.tensor(xs, dtype=torch.long, device=device)


def candidate_quality(trainer, sign: str, chunks: list[int], compete: bool = False,
                      counts: dict | None = None, state: ScreenState | None = None) -> list[tuple[float, str, str]]:
    """(lattice log-likelihood of ``chunks``, onset, vowel) for each syllable of the stems as ``sign``'s only value,
    best first. ``compete``: a syllable other signs hold now (the pair row's mass on them, H) is shared: the sign
    gets 1 / (1 + H) of it, and the score pays what the holders lose, log(1 + H) for each time the text writes them
    reading that syllable (``counts``: the signs' counts in the text; times the run's coverage ratio, the share of
    the text its matches take). ``state``: the table and holders to screen against (ScreenState; default: the
    model's as trained)."""
    import math

    import torch

    from engine.model.decoding import eval_batches
    from engine.model.scoring import make_batch
    from engine.training.final_objective import corpus_objective, eval_chars, lattice_sums, span_emissions

    model, prep, cfg = trainer.model, trainer.prep, trainer.config
    s = prep.lost_letters.index(sign)
    gamma = cfg.insertion_cost(trainer.step)
    state = state or ScreenState(trainer, counts or {})
    out = []
    with torch.no_grad():
        base = state.table
        batches = [make_batch(prep, idx) for idx in eval_batches(prep, chunks, eval_chars(cfg))]
        held = torch.zeros(len(model.vowel_pairs))
        used = torch.zeros(len(model.vowel_pairs))
        if compete:
            held, used = state.competition(s)
            used = used * corpus_objective(trainer, chunks=chunks)["coverage_ratio"]
        for j, (c, v) in enumerate(model.vowel_pairs):
            log_p = candidate_column(base, model, s, j, float(held[j]))
            q = sum(lattice_sums(prep, b, span_emissions(log_p, prep, b, gamma, prep.stem_units, prep.stem_len))[0]
                    for b in batches)
            q -= float(used[j]) * math.log1p(float(held[j])) if compete else 0.0
            out.append((q, c, v))
    return sorted(out, reverse=True)


if __name__ == "__main__":
    sys.exit(main())
