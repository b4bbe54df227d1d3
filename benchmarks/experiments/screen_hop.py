"""Issue 49: the sign screen as a move on a finished syllabary run.

benchmarks/experiments/sign_votes.py (``--method screen``) gives each sign, the others held as the run reads them,
the syllable of the stems under which the chunks that write it are likeliest. Here the signs of frequency ranks
``--ranks`` are screened from the commonest down, each choice held for the next, a syllable that other signs hold
shared with them (``--no-compete``: not shared), and the proposal is written into the run (``--adopt``):

- ``pins``: every screened sign pinned to its proposal for ``--pin-steps`` steps, then the pins released;
- ``edit``: each changed sign's rows copied from the sign that reads that onset (vowel) most surely (edit), then
  moved by gradient until the grid reads the proposal, every other sign's reading held (fit_rows);
- ``offset``: edit, then a per-sign offset on the changed signs' onset scores fitted the same way (fit_offsets; not
  a parameter of the engine's model, held while the rest trains);

then training goes on ``--free-steps`` more. The run's objective over the corpus (at the finished run's schedule,
engine/training/final_objective.py) says whether the move would be kept, as a hop of
benchmarks/experiments/basin_hops.py is. Each row gives the run before, the proposal, after the edit (how many
changed signs read their proposal: ``taken``) and after the training: P@10, signs right by the key, the objective:

    python -m benchmarks.experiments.screen_hop --runs build/cipher-runs/syllabary-types --seeds 0 \\
        --ids dev-s-latin-1 --ranks 21 0 --adopt edit --out benchmarks/results/ciphers/dev-screen-hop.jsonl

``--control``: ``--pin-steps`` + ``--free-steps`` steps of training alone, from the same run (does the training
alone move it?).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Sequence

from benchmarks.experiments.sign_bands import add_run_arguments, finished_runs, parse_run_args
from benchmarks.experiments.syllable_objective import finish_row


def state_row(trainer, key, step: int) -> dict:
    """P@10 (lenient, strict), signs right by the key, the objective at ``step``'s schedule."""
    from benchmarks.cipher_suite import syllables_right
    from engine.training.final_objective import corpus_objective

    ev = trainer.evaluate()
    both, onsets, vowels, total = syllables_right(trainer.mapping().syllables.top_values(), key)
    return {"p_at_10": ev.metrics.get("p_at_10"), "p_at_10_strict": ev.metrics.get("p_at_10_strict"),
            "signs_right": both, "signs": total, "values_share": round(both / total, 4),
            "objective": round(corpus_objective(trainer, step=step)["objective"], 6)}


def screen(trainer, counts: Counter, ranks: tuple[int, int], compete: bool = True) -> dict[str, tuple[str, str]]:
    """Each sign of frequency ranks ``ranks`` (1-based, inclusive; 0: to the last) -> the screen's best syllable
    (``compete``: a syllable that other signs hold is shared, sign_votes.candidate_quality), the signs screened from
    the commonest down, each one's choice held for the next (sign_votes.ScreenState)."""
    from benchmarks.experiments.sign_votes import ScreenState, candidate_quality, chunks_by_sign

    by_sign = chunks_by_sign(trainer.prep)
    ranked = sorted((s for s in trainer.prep.lost_letters[1:] if counts[s] > 0), key=lambda s: (-counts[s], s))
    lo, hi = ranks
    out = {}
    state = ScreenState(trainer, counts)
    for rank, sg in enumerate(ranked, start=1):
        if rank >= lo and (not hi or rank <= hi):
            _, onset, vowel = candidate_quality(trainer, sg, by_sign[sg], compete=compete, counts=counts,
                                                state=state)[0]
            state.accept(trainer.prep.lost_letters.index(sg), trainer.model.vowel_pairs.index((onset, vowel)))
            out[sg] = (onset, vowel)
    return out


def edit(trainer, proposal: dict[str, tuple[str, str]]) -> None:
    """Give each sign of ``proposal`` its syllable in the model's parameters: its onset row (and vowel row) copied
    from the other sign that reads that onset (vowel) most surely now, or, where none reads it, a one-hot row at the
    median of the signs' largest weights. With vowel_slot = joint a sign that shares a donor's onset row shares
    P(sign | onset), but P(sign | onset, vowel), what the DP reads, is the sign's alone."""
    import torch

    model = trainer.model
    table = model.syllable_table()
    row = {sg: model.lost_letters.index(sg) for sg in table.signs}
    on_w, vo_w = model.onset_aligner.detach().clone(), model.vowel_aligner.detach().clone()
    on_scale, vo_scale = float(on_w[1:].max(dim=1).values.median()), float(vo_w.max(dim=1).values.median())

    def donor(probs, units, unit, sign):
        j = units.index(unit)
        best = [(float(probs[i, j]), i) for i in range(len(table.signs))
                if table.signs[i] != sign and int(probs[i].argmax()) == j]
        return table.signs[max(best)[1]] if best else None

    with torch.no_grad():
        for sg, (onset, vowel) in proposal.items():
            r = row[sg]
            d = donor(table.onset_probs, table.onsets, onset, sg)
            if d is not None:
                model.onset_aligner[r] = on_w[row[d]]
            else:
                model.onset_aligner[r] = 0.0
                model.onset_aligner[r, model.onset_units.index(onset)] = on_scale
            d = donor(table.vowel_probs, table.vowels, vowel, sg)
            if d is not None:
                model.vowel_aligner[r - 1] = vo_w[row[d] - 1]
            else:
                model.vowel_aligner[r - 1] = 0.0
                model.vowel_aligner[r - 1, model.vowel_units.index(vowel)] = vo_scale


def _fit(trainer, proposal: dict[str, tuple[str, str]], params: list, masks: list, steps: int, lr: float,
         penalty=None) -> None:
    """Adam on ``params`` (each gradient times its mask) until the grid (SyllableMapping.pair_posterior) reads each
    sign of ``proposal`` at its syllable and every other sign as it reads it now; ``penalty()`` added to the loss."""
    import torch

    model = trainer.model
    pairs = {p: j for j, p in enumerate(model.vowel_pairs)}
    signs = model.lost_letters[1:]
    reading = model.syllable_table().top_values()
    target = torch.tensor([pairs.get(tuple(proposal.get(sg, reading[sg])), -1) for sg in signs])
    ok = target >= 0
    opt = torch.optim.Adam(params, lr=lr)
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        post = model.pair_posterior()                                    # (P, C)
        loss = -torch.log(post[target[ok], torch.arange(len(signs))[ok]] + 1e-9).sum()
        if penalty is not None:
            loss = loss + penalty()
        loss.backward()
        for p, mask in zip(params, masks):
            p.grad *= mask
        opt.step()
    model.zero_grad(set_to_none=True)


def fit_rows(trainer, proposal: dict[str, tuple[str, str]], steps: int = 200, lr: float = 0.1) -> None:
    """After edit(): the rows of the signs of ``proposal`` (only those) moved by gradient until the grid reads each
    sign's syllable there, every other sign's reading held (_fit): some syllables (an aspirate the stems rarely have)
    no copied or one-hot row reads, the grid's prior and the shared P(sign | onset) pulling them to a commoner
    neighbour."""
    import torch

    model = trainer.model
    rows = torch.tensor([model.lost_letters.index(sg) for sg in proposal])
    on_mask = torch.zeros_like(model.onset_aligner)
    on_mask[rows] = 1.0
    vo_mask = torch.zeros_like(model.vowel_aligner)
    vo_mask[rows - 1] = 1.0
    _fit(trainer, proposal, [model.onset_aligner, model.vowel_aligner], [on_mask, vo_mask], steps, lr)


def fit_offsets(trainer, proposal: dict[str, tuple[str, str]], steps: int = 300, lr: float = 0.2,
                l2: float = 0.01):
    """After edit(): a per-sign offset added to the proposed signs' onset scores (SyllableMapping._scores: E_K(c) .
    e_on(s) / T + b[c, s]; zero for every other sign), fitted as fit_rows fits rows (_fit; ``l2``: a penalty on the
    offsets' squares). What fit_rows cannot reach through the onsets' embeddings (an aspirate beside its plain stop)
    an offset can. The offsets are not parameters the trainer knows: training after this moves the rest of the
    model, the offsets held. Returns them. (The engine's setting sign_offsets, later, learns such offsets for every sign
    from the first step; this one, fitted after the run on a proposal, is kept as the result file was made with it.)"""
    import types

    import torch

    model = trainer.model
    bias = torch.zeros(len(model.onset_units), len(model.lost_letters), requires_grad=True)
    plain = model._scores

    def _scores(self, dropout):
        s_on, s_vo = plain(dropout)
        return s_on + bias, s_vo

    model._scores = types.MethodType(_scores, model)
    mask = torch.zeros_like(bias)
    mask[:, [model.lost_letters.index(sg) for sg in proposal]] = 1.0
    _fit(trainer, proposal, [bias], [mask], steps, lr, penalty=lambda: l2 * (bias ** 2).sum())
    bias.requires_grad_(False)
    return bias


def train(trainer, steps: int) -> None:
    for _ in trainer.run(steps=trainer.step + steps):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    from benchmarks.cipher_suite import syllables_right
    from benchmarks.experiments.basin_hops import pins_of

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_run_arguments(p)
    p.add_argument("--ranks", nargs=2, type=int, default=[21, 0], metavar=("FROM", "TO"))
    p.add_argument("--pin-steps", type=int, default=300)
    p.add_argument("--free-steps", type=int, default=300)
    p.add_argument("--control", action="store_true", help="no pins: the same steps of training alone")
    p.add_argument("--adopt", choices=("pins", "edit", "offset"), default="pins",
                   help="pins: pinned --pin-steps, then released; edit: the parameters set (edit(), fit_rows()); "
                        "offset: edit() and a per-sign offset on the onset scores (fit_offsets()); then --free-steps")
    p.add_argument("--no-compete", action="store_true", help="the screen without candidate_quality's compete")
    args = parse_run_args(p, argv)
    if args is None:
        return 2
    for c, s, trainer, key, counts in finished_runs(args, gold=True):
        step = trainer.step
        before = state_row(trainer, key, step)
        row = {"id": c, "seed": s, "runs": str(args.runs), "ranks": args.ranks, "adopt": args.adopt,
               "pin_steps": args.pin_steps if args.adopt == "pins" else 0,
               "free_steps": args.free_steps, "control": args.control, "compete": not args.no_compete, "before": before}
        if args.control:
            train(trainer, args.pin_steps + args.free_steps)
        else:
            reading = trainer.mapping().syllables.top_values()
            proposal = screen(trainer, counts, tuple(args.ranks), not args.no_compete)
            changed = {sg: v for sg, v in proposal.items() if tuple(reading[sg]) != v}
            both, _, _, total = syllables_right({**reading, **proposal}, key)
            row["proposal"] = {"screened": len(proposal), "changed": len(changed), "signs_right": both,
                               "values_share": round(both / total, 4)}
            if args.adopt == "pins":
                trainer.set_pins(pins_of(proposal))
                train(trainer, args.pin_steps)
                trainer.set_pins([])
            else:
                edit(trainer, changed)
                if args.adopt == "edit":
                    fit_rows(trainer, changed)
                else:
                    bias = fit_offsets(trainer, changed)
                    row["offset_max"] = round(float(bias.abs().max()), 3)
                row["edited"] = state_row(trainer, key, step)
                now = trainer.mapping().syllables.top_values()
                row["edited"]["taken"] = sum(tuple(now[sg]) == v for sg, v in changed.items())
            train(trainer, args.free_steps)
        row["after"] = after = state_row(trainer, key, step)
        row["kept"] = after["objective"] < before["objective"]
        finish_row(row, "screen_hop", argv, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
