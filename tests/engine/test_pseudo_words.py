"""Setting words_first (engine/model/pseudo_words.py, Trainer): the pseudo-words a unigram model finds in a text
without dividers are mostly its words; the run trains on them whole first, then on free spans; a checkpoint
taken in either phase resumes to the uninterrupted run; a text with nothing recurring trains free spans with a
notice."""

import random

import pytest
import torch

from engine.config import Config, SettingError
from engine.corpus import DIVIDER, Corpus, Inscription
from engine.datasets.synthetic import make_cipher
from engine.model.pseudo_words import kept_pieces, pseudo_word_corpus, segment_lines
from engine.results import NoticeEvent, StepEvent
from engine.training.lockstep import unbatchable
from engine.training.trainer import Trainer

pytestmark = pytest.mark.usefixtures("one_torch_thread")

SMALL = dict(feature_dim=4, min_span=3, max_span=6, steps=16, anneal_steps=10, eval_interval=0, words_first=8)


def _text(seed=0, n_lines=400, dividers=0.0):
    """Lines of 2 to 4 words drawn (Zipf-like) from 40 words of 3 to 5 signs; a divider between two words
    with probability ``dividers``. Returns the corpus and the set of words."""
    rng = random.Random(seed)
    signs = [chr(0x10600 + i) for i in range(60)]     # Linear A block: one code point a sign
    words = sorted({"".join(rng.choice(signs) for _ in range(rng.randint(3, 5))) for _ in range(40)})
    weights = [1 / (i + 1) for i in range(len(words))]
    lines = []
    for i in range(n_lines):
        ws = rng.choices(words, weights=weights, k=rng.randint(2, 4))
        text = ws[0]
        for w in ws[1:]:
            text += (DIVIDER if rng.random() < dividers else "") + w
        lines.append(Inscription(f"L{i}", text))
    return Corpus("t", tuple(lines)), set(words)


def test_most_pseudo_words_are_words_and_no_piece_crosses_a_written_divider():
    corpus, words = _text(dividers=0.0)
    pw = pseudo_word_corpus(corpus, min_span=2, max_span=8)
    pieces = [p for ins in pw.inscriptions for p in ins.text.split(DIVIDER)]
    assert len(pieces) > 300
    right = sum(p in words for p in pieces) / len(pieces)
    assert right >= 0.8, right
    assert {ins.id for ins in pw.inscriptions} <= {ins.id for ins in corpus.inscriptions}
    assert all(2 <= len(p) <= 8 for p in pieces)
    divided, _ = _text(seed=1, dividers=0.5)
    for line, cut in zip(divided.inscriptions, segment_lines(divided.inscriptions, 8)):
        ends, at = set(), 0
        for piece in cut:
            at += len(piece)
            ends.add(at)
        run_ends, at = set(), 0
        for run in line.text.split(DIVIDER)[:-1]:
            at += len(run)
            run_ends.add(at)
        assert run_ends <= ends          # every written divider is a boundary of the cut


def test_the_word_phase_on_types_has_each_distinct_pseudo_word_once_in_the_order_first_met():
    corpus, _ = _text(seed=3)
    tokens = pseudo_word_corpus(corpus, min_span=2, max_span=8)
    types = pseudo_word_corpus(corpus, min_span=2, max_span=8, types=True)
    every = [p for ins in tokens.inscriptions for p in ins.text.split(DIVIDER)]
    assert [ins.text for ins in types.inscriptions] == list(dict.fromkeys(every))
    assert len(types.inscriptions) < len(every)            # the text repeats its words
    first = types.inscriptions[0]
    line = next(ins for ins in tokens.inscriptions if ins.id == first.id.split(".")[0])
    assert line.text.split(DIVIDER)[int(first.id.split(".")[1])] == first.text
    assert len({ins.id for ins in types.inscriptions}) == len(types.inscriptions)
    cfg = Config(**SMALL, words_types=True, words_min_count=1, words_min_count_pair=1)
    t = Trainer(corpus, make_cipher(seed=0).vocabulary, cfg, live_interval=None)
    assert t.words_prep is not None and len(t.words_prep.chunks) == len(
        pseudo_word_corpus(corpus, min_span=3, max_span=6, min_count=1, min_count_pair=1, types=True).inscriptions)


def test_pseudo_words_are_deterministic_and_none_when_nothing_recurs():
    corpus, _ = _text(seed=2)
    a = pseudo_word_corpus(corpus, min_span=2, max_span=8)
    b = pseudo_word_corpus(corpus, min_span=2, max_span=8)
    assert a == b
    rng = random.Random(0)
    noise = Corpus("n", tuple(Inscription(f"N{i}", "".join(chr(0x10600 + rng.randrange(300)) for _ in range(6)))
                              for i in range(5)))
    assert pseudo_word_corpus(noise, min_span=2, max_span=8) is None


@pytest.fixture(scope="module")
def cipher():
    return make_cipher(n_stems=20, n_inscriptions=60, seed=6, dividers=False, words_per_inscription=(2, 3))


def test_the_run_trains_the_pseudo_words_whole_then_free_spans(cipher):
    t = Trainer(cipher.corpus, cipher.vocabulary, Config(**SMALL), live_interval=0)
    assert t.words_prep is not None and t.words_prep.config.segmented and not t.prep.config.segmented
    assert t.words_prep.lost_letters == t.prep.lost_letters
    steps = [e for e in t.run() if isinstance(e, StepEvent)]
    live = [(e.step, bool(e.batch_matches)) for e in steps]
    # each step says what it trained on (the GUI shows it beside the step)
    assert [e.phase for e in steps] == ["pseudo-words"] * 8 + [""] * 8
    # nothing live from the pseudo-words (no places in the text), the text's spans after them
    assert not any(has for step, has in live if step <= 8) and any(has for step, has in live if step > 8)
    assert not t.in_words_phase() and t.in_words_phase(7) and not t.in_words_phase(8)
    assert unbatchable(t.config) == "setting words_first"
    plain = Trainer(cipher.corpus, cipher.vocabulary, Config(**{**SMALL, "words_first": 0}), live_interval=None)
    list(plain.run())
    assert plain.words_prep is None and not torch.equal(plain.model.aligner, t.model.aligner)
    listed = make_cipher(n_stems=20, n_inscriptions=20, seed=6, dividers=True)
    seg = Trainer(listed.corpus, listed.vocabulary, Config(**{**SMALL, "segmented": True, "max_span": 10}),
                  live_interval=None)
    assert seg.words_prep is None       # a word list is its own words


def test_words_spans_inside_trains_spans_inside_each_pseudo_word(cipher):
    """A pseudo-word is often a stem with its suffix: "inside" gives each one the ordinary span lattice, so a
    span shorter than the piece can match a stem; no span crosses two pieces."""
    t = Trainer(cipher.corpus, cipher.vocabulary, Config(**SMALL, words_spans="inside"), live_interval=None)
    whole = Trainer(cipher.corpus, cipher.vocabulary, Config(**SMALL), live_interval=None)
    assert not t.words_prep.config.segmented and whole.words_prep.config.segmented
    assert [c.letters for c in t.words_prep.chunks] == [c.letters for c in whole.words_prep.chunks]
    from engine.model.scoring import make_batch

    longest = max(range(len(t.words_prep.chunks)), key=lambda i: len(t.words_prep.chunks[i]))
    batch = make_batch(t.words_prep, [longest])
    n = len(t.words_prep.chunks[longest])
    ends = (batch.start_offset.unsqueeze(1) + batch.span_len)[batch.valid]
    assert batch.valid.sum() > 1 and int(ends.max()) <= n          # several spans, all inside the piece
    assert make_batch(whole.words_prep, [longest]).valid.sum() == 1   # whole: the piece itself
    list(t.run())
    assert not t.in_words_phase() and torch.isfinite(t.model.aligner).all()
    with pytest.raises(SettingError, match="words_spans: must be one of whole, inside"):
        Config(words_spans="half")


@pytest.mark.parametrize("stop_at", [5, 12])
def test_a_checkpoint_in_either_phase_resumes_to_the_uninterrupted_run(tmp_path, cipher, stop_at):
    settings = {**SMALL, "seed": 3, "restarts": 2, "restart_steps": 4}
    whole = Trainer(cipher.corpus, cipher.vocabulary, Config(**settings), live_interval=None)
    list(whole.run())
    a = Trainer(cipher.corpus, cipher.vocabulary, Config(**settings), live_interval=None)
    for n, _ in enumerate((e for e in a.run() if isinstance(e, StepEvent)), start=1):
        if n == stop_at:
            break
    path = a.save_checkpoint(tmp_path / "ck.pt")
    b = Trainer.from_checkpoint(path, cipher.corpus, cipher.vocabulary, live_interval=None)
    list(b.run())
    assert b.selection.objectives == whole.selection.objectives
    assert torch.equal(b.model.aligner, whole.model.aligner)
    assert torch.equal(b.model.feature_emb, whole.model.feature_emb)


def test_a_text_with_no_recurring_piece_trains_free_spans_and_says_so():
    rng = random.Random(1)
    letters = "abcdefghijklmnopqrstuvwxyz"
    corpus = Corpus("n", tuple(Inscription(f"N{i}", "".join(rng.choice(letters) for _ in range(9)))
                               for i in range(4)))
    vocab = make_cipher(n_stems=10, n_inscriptions=4, seed=1).vocabulary
    t = Trainer(corpus, vocab, Config(**{**SMALL, "steps": 3}), live_interval=None)
    events = list(t.run())
    assert t.words_prep is None
    notes = [e.text for e in events if isinstance(e, NoticeEvent)]
    assert any("words_first" in n and "free spans from its first step" in n for n in notes)


def test_lower_thresholds_keep_every_piece_the_default_keeps_and_rarer_ones_and_the_run_uses_them(cipher):
    corpus, _ = _text(seed=2)
    default = kept_pieces(corpus, min_span=2, max_span=8)
    every = kept_pieces(corpus, min_span=2, max_span=8, min_count=1, min_count_pair=1)
    assert all(set(d) <= set(e) for d, e in zip(default, every))
    assert sum(map(len, every)) > sum(map(len, default))
    cut = segment_lines(corpus.inscriptions, 8)
    # at 1 and 1 every piece of the cut of two signs or more is kept, where it stands
    assert every == [[(at, p) for at, p in zip(_starts(line), line) if 2 <= len(p) <= 8] for line in cut]
    assert kept_pieces(corpus, min_span=2, max_span=8, min_count=3, min_count_pair=9) == default
    t = Trainer(cipher.corpus, cipher.vocabulary, Config(**SMALL, words_min_count=1, words_min_count_pair=1),
                live_interval=None)
    plain = Trainer(cipher.corpus, cipher.vocabulary, Config(**SMALL), live_interval=None)
    assert len(t.words_prep.chunks) > len(plain.words_prep.chunks)
    with pytest.raises(SettingError, match="words_min_count"):
        Config(words_min_count=0)


def _starts(line):
    at, out = 0, []
    for p in line:
        out.append(at)
        at += len(p)
    return out


def test_restart_after_words_screens_the_starts_where_the_word_phase_ends():
    from engine.training.restarts import selection_steps

    cfg = dict(steps=3000, restarts=4, restart_steps=500, words_first=1500)
    assert selection_steps(Config(**cfg, restart_after_words=True)) == 1500
    assert selection_steps(Config(**cfg)) == 500                                    # the setting off
    assert selection_steps(Config(**cfg, restart_after_words=True, segmented=True)) == 500   # a word list
    assert selection_steps(Config(**cfg, restart_after_words=True), words=False) == 500     # no pseudo-words
    assert selection_steps(Config(**{**cfg, "steps": 1000}, restart_after_words=True)) == 1000   # at most the run
    assert selection_steps(Config(**{**cfg, "words_first": 0}, restart_after_words=True)) == 500


def test_the_starts_are_scored_on_the_text_where_the_word_phase_ends(cipher):
    from engine.training.final_objective import corpus_objective
    from engine.training.restarts import start_seeds

    settings = {**SMALL, "restarts": 2, "restart_steps": 3, "restart_after_words": True}
    t = Trainer(cipher.corpus, cipher.vocabulary, Config(**settings), live_interval=None)
    assert t.words_prep is not None and t.selection.steps == SMALL["words_first"]
    for _ in t.run():
        pass
    # each start's score is its single run's objective over the text (not the pseudo-words) after 8 steps
    for r, seed in enumerate(start_seeds(0, 2)):
        single = Trainer(cipher.corpus, cipher.vocabulary, Config(**{**SMALL, "seed": seed}), live_interval=None)
        for _ in zip(range(SMALL["words_first"]), single.run()):
            pass
        assert single.step == SMALL["words_first"] and not single.in_words_phase()
        text = corpus_objective(single)["objective"]
        assert t.selection.objectives[r] == pytest.approx(text, rel=1e-9)
        assert text != pytest.approx(corpus_objective(single, prep=single.words_prep)["objective"], rel=1e-6)
    # a text whose words are written apart has no word phase: the screen is restart_steps
    listed = make_cipher(n_stems=20, n_inscriptions=20, seed=6, dividers=True)
    w = Trainer(listed.corpus, listed.vocabulary, Config(**{**settings, "segmented": True}), live_interval=None)
    assert w.words_prep is None and w.selection.steps == 3


def test_a_choice_made_where_the_word_phase_ends_resumes_only_with_that_setting(tmp_path, cipher):
    from engine.errors import InputError

    settings = {**SMALL, "restarts": 2, "restart_steps": 3, "restart_after_words": True}
    whole = Trainer(cipher.corpus, cipher.vocabulary, Config(**settings), live_interval=None)
    for _ in whole.run():
        pass
    a = Trainer(cipher.corpus, cipher.vocabulary, Config(**settings), live_interval=None)
    for _ in zip(range(11), a.run()):      # start 1, inside its word phase
        pass
    path = a.save_checkpoint(tmp_path / "mid.pt")
    with pytest.raises(InputError, match=r"restart_after_words=true"):
        Trainer.from_checkpoint(path, cipher.corpus, cipher.vocabulary, config_overrides={"restart_after_words": False})
    with pytest.raises(InputError, match=r"2 starts of 8 steps"):
        Trainer.from_checkpoint(path, cipher.corpus, cipher.vocabulary, config_overrides={"words_first": 6})
    b = Trainer.from_checkpoint(path, cipher.corpus, cipher.vocabulary, live_interval=None)
    for _ in b.run():
        pass
    assert b.selection.kept == whole.selection.kept and b.selection.objectives == whole.selection.objectives
    for name, p in whole.model.state_dict().items():
        assert torch.equal(p, b.model.state_dict()[name]), name
    # a run shorter than its word phase (the starts screened at its end, step 6) goes on with more steps
    short = Trainer(cipher.corpus, cipher.vocabulary, Config(**{**settings, "steps": 6}), live_interval=None)
    for _ in short.run():
        pass
    assert short.selection.steps == 6 and short.selection.done
    path = short.save_checkpoint(tmp_path / "short.pt")
    longer = Trainer.from_checkpoint(path, cipher.corpus, cipher.vocabulary, config_overrides={"steps": 16},
                                     live_interval=None)
    for _ in longer.run():
        pass
    assert longer.step == 16 and longer.selection.kept == short.selection.kept
