"""The cost side of candidate_stems (issue 15): cached candidate lists refreshed every
candidate_refresh-th visit of a span (engine/model/candidate_stems.py CandidateCache), the tries of a
batch's candidate stems built with numpy (engine/model/trie_alignment.py), checkpoints of the lists."""

import math
import random

import pytest
import torch

from engine.model.candidate_stems import CandidateCache, lists_mask, top_candidates, top_lists
from engine.config import Config, SettingError
from engine.errors import InputError
from engine.model.mapping import CharMapping
from engine.model.objective import batch_objective, log_match_prior, pin_pairs
from engine.model.prepared import prepare
from engine.results import StepEvent
from engine.model.scoring import make_batch, place_emissions, span_scores
from engine.datasets.synthetic import make_cipher
from engine.training.sgd import SGD
from engine.training.trainer import Trainer
from engine.model.trie_alignment import StemTrie


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def cipher():
    return make_cipher(n_stems=20, n_inscriptions=12, seed=6, dividers=True)


def _insertion_trie(units, lens):
    """The trie as inserting the stems one by one numbers it (the former StemTrie.build)."""
    M = max(lens) if lens else 0
    nodes = [{(): 0}] + [{} for _ in range(M)]
    unit_rows, parent_rows, leaf = [[0]] + [[] for _ in range(M)], [[0]] + [[] for _ in range(M)], []
    for row, m in zip(units, lens):
        prefix = ()
        for i in range(1, m + 1):
            pid = nodes[i - 1][prefix]
            prefix = prefix + (row[i - 1],)
            if prefix not in nodes[i]:
                nodes[i][prefix] = len(unit_rows[i])
                unit_rows[i].append(row[i - 1])
                parent_rows[i].append(pid)
        leaf.append(nodes[m][prefix])
    by_len = {}
    for v, (m, node) in enumerate(zip(lens, leaf)):
        by_len.setdefault(m, ([], []))
        by_len[m][0].append(v)
        by_len[m][1].append(node)
    return unit_rows, parent_rows, by_len


@pytest.mark.parametrize("seed", [0, 1])
def test_numpy_trie_numbers_nodes_as_insertion_does(seed):
    rng = random.Random(seed)
    stems = []
    for _ in range(300):       # few units, so that prefixes are shared; some duplicates and a length 0
        m = rng.choice([0, 1, 2, 3, 3, 4, 5, 7])
        stems.append([rng.randrange(1, 4) for _ in range(m)])
    stems += [list(stems[5]), list(stems[17])]
    M = max(len(s) for s in stems)
    units = torch.tensor([s + [9] * (M - len(s)) for s in stems])             # padded with a valid id
    lens = torch.tensor([len(s) for s in stems])
    trie = StemTrie.build(units, lens)
    ref_units, ref_parent, ref_by_len = _insertion_trie(units.tolist(), lens.tolist())
    assert [u.tolist() for u in trie.units] == ref_units
    assert [p.tolist() for p in trie.parent] == ref_parent
    assert list(trie.by_len) == list(ref_by_len)
    assert {m: (a.tolist(), b.tolist()) for m, (a, b) in trie.by_len.items()} == ref_by_len
    assert trie.n_stems == len(stems)
    empty = StemTrie.build(units[:0], lens[:0])
    assert empty.n_stems == 0 and empty.by_len == {} and [u.tolist() for u in empty.units] == [[0]]


def test_top_lists_is_the_top_candidates_choice():
    torch.manual_seed(0)
    scores = torch.randn(30, 7, 3)
    scores[torch.rand(30, 7, 3) < 0.3] = -1e9                                # impossible pairs
    for k in (1, 4, 30, 40):
        lists = top_lists(scores, k)
        assert lists.shape == (7, 3, min(k, 30))
        assert torch.equal(lists_mask(lists, 30), top_candidates(scores, k))


def _prep(cipher, **settings):
    cfg = Config(feature_dim=4, segmented=True, min_span=3, steps=100, anneal_steps=100, dropout=0.0,
                 candidate_stems=3, candidate_start=0.0, **settings)
    return prepare(cipher.corpus, cipher.vocabulary, cfg)


def _objective(model, prep, batch, cache, step=100):
    return batch_objective(model, prep, batch, step, pin_pairs(prep, []), prep.stem_units, prep.stem_len,
                           candidates=cache)


def test_refresh_one_is_the_full_pass_every_visit(cipher):
    """candidate_refresh = 1: the same loss and gradients as the pass over every stem (no cache)."""
    prep = _prep(cipher, candidate_refresh=1)
    batch = make_batch(prep, prep.trainable_chunks()[:6])
    grads = []
    for cache in (None, CandidateCache.for_config(prep.config)):
        torch.manual_seed(0)
        model = CharMapping(prep.lost_letters, prep.known_units, prep.config).double()
        for _ in range(3):
            r = _objective(model, prep, batch, cache)
        r.loss.backward()
        grads.append((float(r.loss.detach()), model.aligner.grad.clone(), r.scores))
    assert grads[0][0] == grads[1][0]
    assert torch.equal(grads[0][1], grads[1][1]) and torch.equal(grads[0][2], grads[1][2])
    assert cache.entries == {} and cache.full_spans == 3 * batch.n_starts and cache.cached_spans == 0


def test_cached_lists_refresh_every_nth_visit_and_equal_the_full_pass_then(cipher):
    """refresh = 3: visits 1, 4, 7 of a span run the pass over every stem and keep exactly its k best
    (the choice without a cache); visits in between run no such pass and use the list, and the
    lattice then sees the mean over the list's stems scored under the current mapping."""
    prep = _prep(cipher, candidate_refresh=3)
    batch = make_batch(prep, prep.trainable_chunks()[:6])
    S = batch.n_starts
    cache = CandidateCache.for_config(prep.config)
    torch.manual_seed(0)
    model = CharMapping(prep.lost_letters, prep.known_units, prep.config).double()
    opt = SGD(model.parameters(), lr=0.5)
    gamma = prep.config.insertion_cost(100)
    starts = [(batch.chunk_indices[b], o) for b, o in zip(batch.start_chunk.tolist(), batch.start_offset.tolist())]
    changed = 0
    for visit in range(1, 8):
        with torch.no_grad():
            full = span_scores(model.log_probs(dropout=False), prep, batch, gamma, prep.stem_units, prep.stem_len)
        before = {key: cache.entries[key][1].clone() for key in starts if key in cache.entries}
        r = _objective(model, prep, batch, cache)
        refreshed = visit in (1, 4, 7)
        assert cache.full_spans == S * (1 + (visit > 3) + (visit > 6))
        assert cache.cached_spans == S * visit - cache.full_spans
        now = top_lists(full, 3)
        if refreshed:       # the full pass's own choice, under this visit's mapping
            assert all(torch.equal(cache.entries[key][1], now[s]) for s, key in enumerate(starts))
            changed += sum(not torch.equal(before[key], now[s]) for s, key in enumerate(starts) if key in before)
        else:               # the list of the last refresh, its stems scored now
            assert all(torch.equal(cache.entries[key][1], before[key]) for key in starts)
            lists = torch.stack([before[key] for key in starts])               # (S, 1, 3)
            mask = lists_mask(lists, prep.n_stems)
            expected = torch.logsumexp(torch.where(mask, full, full.new_tensor(-1e9)), dim=0) - math.log(3)
            assert torch.allclose(r.lattice_inputs[0], place_emissions(expected + log_match_prior(prep), batch))
        opt.zero_grad()
        r.loss.backward()
        opt.step()
    assert changed > 0          # the mapping moved enough for a refresh to change some list


def test_a_list_from_a_wider_competition_keeps_its_k_best_now(cipher):
    """During the narrowing a cached list may hold more stems than the current k: the span then
    averages over the k of them that score best under the current mapping."""
    prep = _prep(cipher, candidate_refresh=5)
    batch = make_batch(prep, prep.trainable_chunks()[:6])
    cache = CandidateCache.for_config(prep.config)
    torch.manual_seed(0)
    model = CharMapping(prep.lost_letters, prep.known_units, prep.config).double()
    from engine.model.objective import _candidate_scores
    log_p = model.log_probs(dropout=False)
    gamma = prep.config.insertion_cost(100)
    _candidate_scores(log_p, prep, batch, gamma, prep.stem_units, prep.stem_len, "auto", 8, cache)
    assert all(lst.shape[-1] == 8 for _, lst in cache.entries.values())
    _, log_e = _candidate_scores(log_p, prep, batch, gamma, prep.stem_units, prep.stem_len, "auto", 3, cache)
    assert cache.full_spans == batch.n_starts                                 # no second pass
    with torch.no_grad():
        full = span_scores(log_p, prep, batch, gamma, prep.stem_units, prep.stem_len)
    # same mapping: the 3 best of each span's 8 best are its 3 best overall
    expected = torch.logsumexp(torch.topk(full, 3, dim=0).values, dim=0) - math.log(3)
    assert torch.allclose(log_e, expected)


SMALL = dict(feature_dim=4, segmented=True, min_span=3, steps=16, anneal_steps=8, eval_interval=0,
             candidate_stems=3, candidate_start=0.25, candidate_refresh=3)


def test_a_checkpoint_keeps_the_lists_and_resumes_to_the_same_run(tmp_path, cipher):
    a = Trainer(cipher.corpus, cipher.vocabulary, Config(**SMALL), live_interval=None)
    for event in a.run():
        if isinstance(event, StepEvent) and event.step == 9:
            break
    assert a.candidates.entries and a.candidates.cached_spans > 0           # lists in use
    path = a.save_checkpoint(tmp_path / "ckpt.pt")
    saved = {k: (uses, lst.clone()) for k, (uses, lst) in a.candidates.entries.items()}
    list(a.run())
    b = Trainer.from_checkpoint(path, cipher.corpus, cipher.vocabulary, live_interval=None)
    assert b.candidates.entries.keys() == saved.keys()
    assert all(b.candidates.entries[k][0] == u and torch.equal(b.candidates.entries[k][1], lst)
               for k, (u, lst) in saved.items())
    list(b.run())
    assert torch.equal(a.model.aligner, b.model.aligner)
    assert torch.equal(a.model.feature_emb, b.model.feature_emb)
    assert b.candidates.full_spans == a.candidates.full_spans                 # counted through the resume
    # without the lists (an older checkpoint) the run resumes, each span refreshing on its next visit
    state = torch.load(path, weights_only=True)
    del state["candidate_lists"]
    torch.save(state, tmp_path / "old.pt")
    c = Trainer.from_checkpoint(tmp_path / "old.pt", cipher.corpus, cipher.vocabulary, live_interval=None)
    assert c.candidates.entries == {}
    list(c.run())
    # lists naming stems this vocabulary does not have are refused in one line
    state = torch.load(path, weights_only=True)
    state["candidate_lists"]["lists"][0, 0, 0] = 10_000
    torch.save(state, tmp_path / "bad.pt")
    with pytest.raises(InputError, match="candidate lists .* do not fit"):
        Trainer.from_checkpoint(tmp_path / "bad.pt", cipher.corpus, cipher.vocabulary, live_interval=None)


def test_refresh_saves_full_passes_in_a_run(cipher):
    runs = {}
    for refresh in (1, 4):
        t = Trainer(cipher.corpus, cipher.vocabulary, Config(**{**SMALL, "candidate_refresh": refresh}),
                    live_interval=None)
        list(t.run())
        runs[refresh] = t.candidates
    assert runs[1].cached_spans == 0 and runs[1].entries == {}
    visits = runs[1].full_spans
    assert runs[4].full_spans + runs[4].cached_spans == visits
    assert runs[4].full_spans < visits / 2


def test_the_setting_is_range_checked():
    assert Config().candidate_refresh == 4
    for bad in (0, -1):
        with pytest.raises(SettingError, match="setting candidate_refresh"):
            Config(candidate_refresh=bad)
