"""benchmarks/experiments/sign_votes.py (the sign screen) and screen_hop.py: a sign tried at each syllable of the
stems with the other signs held, and the proposal written into a model."""

from __future__ import annotations

from collections import Counter

import pytest
import torch

from benchmarks.experiments import screen_hop, sign_votes
from engine.config import Config

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _trainer():
    from engine.datasets.synthetic_syllabary import make_syllabary_cipher
    from engine.training.trainer import Trainer

    c = make_syllabary_cipher(seed=3, n_stems=40, n_inscriptions=60)
    cfg = Config(**{**c.settings(segmented=False), "steps": 30, "anneal_steps": 10, "eval_interval": 0,
                    "words_first": 4, "words_min_count": 1, "words_min_count_pair": 1, "vowel_slot": "joint"})
    t = Trainer(c.running, c.vocabulary, cfg, gold=c.running_gold, live_interval=None)
    for _ in t.run():
        pass
    return t


@pytest.fixture(scope="module")
def trained():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _trainer()
    finally:
        torch.set_num_threads(threads)


def _counts(t):
    return Counter(u for ch in t.prep.chunks for u in ch.letters)


def test_a_candidate_column_writes_one_syllable_and_leaves_every_other_sign(trained):
    m = trained.model
    K = len(m.known_units)
    with torch.no_grad():
        base = m.log_probs(dropout=False)
    j = 3
    out = sign_votes.candidate_column(base, m, 2, j, others=1.0)
    col = out[:, 3]
    assert float(col[K + j]) > -1.0                              # the syllable: log(0.95 / 2) or log(1 / 2)
    others = [r for r in range(K, out.shape[0]) if r != K + j]
    assert bool((col[others] == sign_votes.OTHER_LOG_P).all())
    keep = [c for c in range(out.shape[1]) if c != 3]
    assert torch.equal(out[:, keep], base[:, keep])


def test_accepting_a_syllable_shares_it_with_its_holders(trained):
    state = sign_votes.ScreenState(trained, _counts(trained))
    j = int(state.mass.sum(dim=1).argmax())                      # a syllable some sign holds
    s = 1
    held = float(state.competition(s)[0][j])
    state.accept(s, j)
    assert float(state.mass[j, s - 1]) == pytest.approx(1.0 / (1.0 + held))
    assert float(state.post[:, s - 1].sum()) == pytest.approx(1.0) and float(state.post[j, s - 1]) == 1.0
    assert float(state.mass[:, s - 1].sum()) == pytest.approx(1.0 / (1.0 + held))


def test_the_screen_scores_every_syllable_best_first_and_sharing_changes_the_scores(trained):
    sign = _counts(trained).most_common(5)[-1][0]
    chunks = [i for i, ch in enumerate(trained.prep.chunks) if sign in ch.letters]
    free = sign_votes.candidate_quality(trained, sign, chunks)
    shared = sign_votes.candidate_quality(trained, sign, chunks, compete=True, counts=_counts(trained))
    assert len(free) == len(shared) == len(trained.model.vowel_pairs)
    assert [q for q, _, _ in free] == sorted((q for q, _, _ in free), reverse=True)
    assert {(o, v) for _, o, v in free} == set(trained.model.vowel_pairs)
    assert dict(((o, v), q) for q, o, v in free) != dict(((o, v), q) for q, o, v in shared)


def test_fit_rows_moves_only_the_proposed_signs_rows():
    t = _trainer()
    m = t.model
    before = {n: p.detach().clone() for n, p in m.named_parameters()}
    sign = m.lost_letters[1]
    reading = m.syllable_table().top_values()
    pair = next(p for p in m.vowel_pairs if p != tuple(reading[sign]))
    screen_hop.edit(t, {sign: pair})
    screen_hop.fit_rows(t, {sign: pair}, steps=50)
    r = m.lost_letters.index(sign)
    for n, p in m.named_parameters():
        if n == "onset_aligner":
            rows = [i for i in range(p.shape[0]) if i != r]
            assert torch.equal(p.detach()[rows], before[n][rows]) and not torch.equal(p.detach()[r], before[n][r])
        elif n == "vowel_aligner":
            rows = [i for i in range(p.shape[0]) if i != r - 1]
            assert torch.equal(p.detach()[rows], before[n][rows])
        else:
            assert torch.equal(p.detach(), before[n]), n


def test_a_missing_run_is_one_line_and_exit_2(tmp_path, capsys):
    for main in (sign_votes.main, screen_hop.main):
        rc = main(["--runs", str(tmp_path), "--ids", "dev-s-latin-1", "--out", str(tmp_path / "o.jsonl")])
        assert rc == 2 and "no such checkpoint" in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists()


def test_offsets_fit_the_reading_asked_for_and_touch_no_parameter():
    t = _trainer()
    m = t.model
    reading = m.syllable_table().top_values()
    sign = m.lost_letters[2]
    # another onset, the vowel the sign reads now (the offsets move onset scores; a vowel row is edit()'s)
    pair = next(p for p in reversed(m.vowel_pairs) if p[0] != reading[sign][0] and p[1] == reading[sign][1])
    screen_hop.edit(t, {sign: pair})
    wanted = {**{sg: tuple(v) for sg, v in reading.items()}, sign: pair}
    idx = [(m.vowel_pairs.index(wanted[sg]), i) for i, sg in enumerate(m.lost_letters[1:]) if wanted[sg] in m.vowel_pairs]

    def misfit() -> float:
        with torch.no_grad():
            post = m.pair_posterior()
            return -sum(float(torch.log(post[j, i])) for j, i in idx)

    before, edited = {n: p.detach().clone() for n, p in m.named_parameters()}, misfit()
    bias = screen_hop.fit_offsets(t, {sign: pair})
    assert misfit() < edited - 1.0
    col = m.lost_letters.index(sign)
    assert float(bias[:, col].abs().max()) > 0
    assert float(bias[:, [c for c in range(bias.shape[1]) if c != col]].abs().max()) == 0
    assert all(torch.equal(p.detach(), before[n]) for n, p in m.named_parameters())
