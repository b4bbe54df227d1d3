"""The word-final table (setting word_final_mapping, issue 15; beyond the paper): with whole words, the
last letter of a word is read through its own table P_end(lost | known), which starts equal to the
mapping and is trained apart from it; without the setting one table serves every position (the paper)."""

import pytest
import torch

from engine.config import Config, SettingError
from engine.data import Corpus, Inscription, Stem, Vocabulary
from engine.multiseed import SeedGroup
from engine.objective import pin_penalty
from engine.prepared import prepare
from engine.scoring import make_batch, span_scores
from engine.synthetic import make_cipher
from engine.training import Trainer

WORDS = dict(feature_dim=8, segmented=True, min_span=3, max_span=10, eval_interval=0, dropout=0.0,
             steps=8, anneal_steps=8, chars_per_batch=60)


@pytest.fixture(scope="module")
def words():
    return make_cipher(n_stems=30, n_inscriptions=40, seed=2, dividers=True, filler=(0, 0), stem_len=(3, 7))


def test_the_setting_needs_whole_words():
    assert not Config().word_final_mapping
    with pytest.raises(SettingError, match="word_final_mapping: needs whole-word spans"):
        Config(word_final_mapping=True)
    assert Config(segmented=True, word_final_mapping=True).word_final_mapping


def test_without_the_setting_the_model_has_one_table(words):
    t = Trainer(words.corpus, words.vocabulary, Config(**WORDS), live_interval=None)
    assert t.model.final_aligner is None and t.model.final_log_probs() is None
    assert torch.equal(t.model.tables(), t.model.log_probs())


def test_the_end_table_starts_as_the_mapping_and_scores_start_as_without_it(words):
    on = Trainer(words.corpus, words.vocabulary, Config(**WORDS, word_final_mapping=True), live_interval=None)
    off = Trainer(words.corpus, words.vocabulary, Config(**WORDS), live_interval=None)
    C = on.model.n_lost
    tables = on.model.tables()
    assert tables.shape == (len(on.prep.known_units), 2 * C)
    assert torch.equal(tables[:, :C], tables[:, C:]) and torch.equal(on.model.final_log_probs(), tables[:, :C])
    assert torch.equal(on.model.aligner, off.model.aligner)      # same seed, same draws
    batch = make_batch(on.prep, list(range(10)))
    units, lens = on.prep.stem_units, on.prep.stem_len
    a = span_scores(tables, on.prep, batch, 1.0, units, lens)
    b = span_scores(off.model.tables(), off.prep, batch, 1.0, units, lens)
    assert torch.allclose(a, b, atol=1e-5)


def _words_prep():
    corpus = Corpus("w", (Inscription("I1", "abx aby axb"),))
    vocab = Vocabulary("k", (Stem("abt", "abt"), Stem("atb", "atb"), Stem("abk", "abk")))
    return prepare(corpus, vocab, Config(feature_dim=8, segmented=True, min_span=3, max_span=10,
                                         word_final_mapping=True))


def test_only_the_last_letter_of_a_word_reads_the_end_table():
    prep = _words_prep()
    C, K = len(prep.lost_letters), len(prep.known_units)
    torch.manual_seed(0)
    inside = torch.log_softmax(torch.randn(K, C), dim=1)
    x, y = prep.lost_letters.index("x"), prep.lost_letters.index("y")
    end = inside.clone()
    end[:, x] = inside[:, y]                       # at the end of a word, x reads as y does inside
    batch = make_batch(prep, list(range(len(prep.chunks))))
    words = ["".join(prep.chunks[batch.chunk_indices[int(c)]].letters[int(o):int(o) + int(n)])
             for c, o, n in zip(batch.start_chunk, batch.start_offset, batch.span_len[:, 0])]
    units, lens = prep.stem_units, prep.stem_len
    same = span_scores(torch.cat([inside, inside], 1), prep, batch, 2.0, units, lens)[:, :, 0]
    split = span_scores(torch.cat([inside, end], 1), prep, batch, 2.0, units, lens)[:, :, 0]
    abx, aby, axb = (words.index(w) for w in ("abx", "aby", "axb"))
    assert torch.allclose(split[:, abx], same[:, aby])       # final x now scores as final y did
    assert not torch.allclose(same[:, abx], same[:, aby])
    assert torch.equal(split[:, axb], same[:, axb])          # x inside a word: the mapping, unchanged
    assert torch.equal(split[:, aby], same[:, aby])


def test_a_pin_holds_in_both_tables():
    probs = torch.full((3, 8), 0.5)
    probs[1, 2], probs[1, 6] = 0.25, 0.125                   # C = 4: column 6 is letter 2 at the end
    pins = (torch.tensor([1]), torch.tensor([2]), torch.tensor([1.0]))
    assert float(pin_penalty(probs[:, :4], pins, 4)) == pytest.approx(-torch.log(torch.tensor(0.25 + 1e-8)))
    assert float(pin_penalty(probs, pins, 4)) == pytest.approx(
        float(-torch.log(torch.tensor(0.25 + 1e-8)) - torch.log(torch.tensor(0.125 + 1e-8))))
    none = (torch.tensor([], dtype=torch.long),) * 2 + (torch.tensor([]),)
    assert float(pin_penalty(probs, none, 4)) == 0.0


def test_training_moves_the_end_table_apart_and_a_checkpoint_resumes_to_the_same_run(tmp_path, words):
    cfg = Config(**WORDS, word_final_mapping=True)
    a = Trainer(words.corpus, words.vocabulary, cfg, live_interval=None)
    for _ in zip(range(3), a.run()):
        pass
    assert float(a.model.final_aligner.detach().abs().max()) > 0
    path = a.save_checkpoint(tmp_path / "ckpt.pt")
    list(a.run())
    b = Trainer.from_checkpoint(path, words.corpus, words.vocabulary, live_interval=None)
    assert b.step == 3 and b.config.word_final_mapping
    list(b.run())
    assert torch.equal(a.model.final_aligner, b.model.final_aligner)
    assert torch.equal(a.model.aligner, b.model.aligner)


def test_seeds_in_lockstep_train_the_end_table_as_single_runs(words):
    cfg = Config(**{**WORDS, "steps": 4, "anneal_steps": 4}, word_final_mapping=True)
    group = SeedGroup(words.corpus, words.vocabulary, cfg, [0, 1])
    for _ in group.run(4):
        pass
    for k, seed in enumerate([0, 1]):
        single = Trainer(words.corpus, words.vocabulary, cfg.replace(seed=seed), live_interval=None)
        list(single.run(4))
        for p, q in zip(group.trainers[k].model.parameters(), single.model.parameters()):
            assert torch.allclose(p, q, atol=1e-5, rtol=1e-5)
