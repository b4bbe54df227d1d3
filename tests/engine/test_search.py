"""The search aids of issue 30: Sukhotin's letter classes, the class_init start, the swap polish and its
fast screen, and the gold-free diagnosis (engine/model/letter_classes.py, engine/training/polish.py,
engine/training/diagnosis.py)."""

import math

import pytest
import torch

from engine.config import Config, SettingError
from engine.datasets.synthetic import VOWELS, make_cipher
from engine.model.letter_classes import class_evidence, sukhotin
from engine.model.prepared import prepare
from engine.model.syllable_mapping import make_mapping
from engine.model.syllables import is_vowel
from engine.training import polish as P
from engine.training.diagnosis import Diagnosis, class_finding, diagnose, objective_finding
from engine.training.final_objective import corpus_objective
from engine.training.trainer import Trainer

SMALL = dict(feature_dim=4, segmented=True, min_span=3, steps=0, anneal_steps=10, eval_interval=0)

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def cipher():
    return make_cipher(n_stems=20, n_inscriptions=30, seed=6, dividers=True, filler=(0, 0))


def _right(trainer, cipher, weight: float = 3.0) -> None:
    """Set the aligner to the cipher's key: each letter leans on the one unit it writes."""
    m, kidx = trainer.model, trainer.prep.known_index()
    with torch.no_grad():
        m.aligner.zero_()
        for unit, letter in cipher.key.items():
            if letter in trainer.prep.lost_index() and unit in kidx:
                m.aligner[trainer.prep.lost_index()[letter], kidx[unit]] = weight


def test_sukhotin_finds_the_vowels_of_consonant_vowel_words():
    words = ["pataki", "mosune", "kilapo", "sumeta", "nokipa", "tepuma", "lisoka"]
    assert set(sukhotin(words)) == set("aeiou")
    assert sukhotin(["aaaa", "bbbb"]) == []          # no two distinct letters ever meet


def test_sukhotin_on_a_cipher_names_the_letters_of_its_vowels(cipher):
    prep = prepare(cipher.corpus, cipher.vocabulary, Config(**SMALL), [])
    assert set(class_evidence(prep)) == {cipher.key[v] for v in VOWELS}


def test_class_evidence_is_none_for_a_syllabary_or_a_known_side_without_vowels(cipher):
    prep = prepare(cipher.corpus, cipher.vocabulary, Config(**SMALL), [])
    prep.config = prep.config.replace(signs="syllables")
    assert class_evidence(prep) is None
    from engine.corpus import Stem, Vocabulary
    consonantal = Vocabulary("abjad", tuple(Stem(f, "".join(c for c in f if c not in VOWELS) or "p")
                                            for f in (s.form for s in cipher.vocabulary.stems)))
    assert class_evidence(prepare(cipher.corpus, consonantal, Config(**SMALL), [])) is None


def test_class_init_zero_is_the_papers_start_and_a_weight_leans_each_letter_to_its_class(cipher):
    def start(weight):
        torch.manual_seed(0)
        prep = prepare(cipher.corpus, cipher.vocabulary, Config(**SMALL, class_init=weight), [])
        return prep, make_mapping(prep)

    prep, paper = start(0.0)
    torch.manual_seed(0)
    from engine.model.mapping import CharMapping
    assert torch.equal(paper.aligner, CharMapping(prep.lost_letters, prep.known_units, prep.config).aligner)

    def same_class_mass(prep, model):
        vowels = set(class_evidence(prep))
        pk = model.log_probs(dropout=False).detach().T.softmax(1)   # P(known | lost), uniform known
        vowel_unit = torch.tensor([is_vowel(u) for u in prep.known_units])
        mass = [float(pk[i, vowel_unit].sum()) if l in vowels else float(pk[i, ~vowel_unit].sum())
                for i, l in enumerate(prep.lost_letters) if i > 0]
        return sum(mass) / len(mass)

    assert same_class_mass(*start(0.1)) > same_class_mass(prep, paper) + 0.2
    with pytest.raises(SettingError, match="class_init"):
        Config(class_init=-1)


def test_the_screen_is_the_sample_objective_of_the_moved_model_and_leaves_the_model_as_it_was(cipher):
    trainer = Trainer(cipher.corpus, cipher.vocabulary, Config(**SMALL, seed=2), live_interval=None)
    sample = P.sample_chunks(trainer.prep, 0.5, 0)
    assert 0 < len(sample) < len(trainer.prep.chunks) and sample == sorted(sample)
    screen = P.Screen(trainer, sample)
    assert screen.base == pytest.approx(corpus_objective(trainer, chunks=sample)["objective"], abs=1e-9)
    before = trainer.model.aligner.detach().clone()
    for move in P.moves(trainer.model)[:: 17]:
        value = screen.value(move)
        assert torch.equal(trainer.model.aligner, before)
        move.apply(trainer.model)
        assert value == pytest.approx(corpus_objective(trainer, chunks=sample)["objective"], abs=1e-9)
        move.apply(trainer.model)


def test_polish_undoes_a_swap_of_two_letters_of_the_right_mapping(cipher):
    trainer = Trainer(cipher.corpus, cipher.vocabulary, Config(**SMALL, seed=2), live_interval=None)
    _right(trainer, cipher)
    right = corpus_objective(trainer)["objective"]
    lidx = trainer.prep.lost_index()
    a, b = lidx[cipher.key["a"]], lidx[cipher.key["t"]]
    swap = next(m for m in P.moves(trainer.model) if set(m.letters) == {a, b})
    swap.apply(trainer.model)
    scrambled = corpus_objective(trainer)["objective"]
    assert scrambled > right
    result = P.polish(trainer, share=0.5)
    assert result.before == pytest.approx(scrambled) and result.after == pytest.approx(right, abs=1e-6)
    assert [what for what, _ in result.kept] == [swap.what]
    assert corpus_objective(trainer)["objective"] == pytest.approx(right, abs=1e-6)
    # at the right mapping no swap lowers the objective: nothing is kept
    again = P.polish(trainer, share=0.5)
    assert not again.kept and again.scored == len(P.moves(trainer.model))


def test_the_diagnosis_flags_vowels_read_as_consonants_and_not_the_right_reading(cipher):
    trainer = Trainer(cipher.corpus, cipher.vocabulary, Config(**SMALL, seed=2), live_interval=None)
    _right(trainer, cipher)
    assert not diagnose(trainer).flagged
    lidx = trainer.prep.lost_index()
    for v, c in (("a", "t"), ("e", "k")):
        next(m for m in P.moves(trainer.model)
             if set(m.letters) == {lidx[cipher.key[v]], lidx[cipher.key[c]]}).apply(trainer.model)
    d = diagnose(trainer)
    assert d.flagged and d.values["diagnosis_class_mismatch"] == 4
    assert set(d.unstable_letters()) == {cipher.key[x] for x in "atek"}
    assert "try more seeds" in d.headline()
    assert Diagnosis.from_json(d.to_json()).to_json() == d.to_json()


def test_the_objective_finding_flags_a_clearly_worse_basin_only():
    f, values = objective_finding(-0.72, {"seed 0": -1.14, "seed 2": -1.20})
    assert f is not None and "seed 2" in f.text and values["diagnosis_objective_gap"] == pytest.approx(0.48)
    assert objective_finding(-1.14, {"seed 2": -1.20})[0] is None
    assert objective_finding(math.nan, {"seed 2": -1.2}) == (None, {})


def test_class_finding_does_not_apply_without_evidence(cipher):
    trainer = Trainer(cipher.corpus, cipher.vocabulary, Config(**SMALL), live_interval=None)
    assert class_finding(trainer.mapping(), None) == (None, {})


def test_a_run_with_polish_moves_polishes_after_its_last_step_and_its_checkpoint_keeps_the_record(cipher, tmp_path):
    from engine.results import FinishedEvent

    config = Config(**{**SMALL, "steps": 6, "polish_moves": 2}, seed=1)
    trainer = Trainer(cipher.corpus, cipher.vocabulary, config, live_interval=None)
    events = list(trainer.run())
    assert isinstance(events[-1], FinishedEvent)
    r = trainer.polish_result
    assert r is not None and r.after <= r.before and r.scored >= len(P.moves(trainer.model))
    m = trainer.last_evaluation.metrics
    assert m["polish_objective_after"] == r.after and m["polish_moves"] == len(r.kept)
    assert corpus_objective(trainer)["objective"] == pytest.approx(r.after, abs=1e-6)
    path = trainer.save_checkpoint(tmp_path / "c.pt")
    again = Trainer.from_checkpoint(path, cipher.corpus, cipher.vocabulary, live_interval=None)
    assert again.polish_result.to_state() == r.to_state()
    list(again.run())                       # a finished run resumed: no second polish
    assert again.polish_result.to_state() == r.to_state()
    paper = Trainer(cipher.corpus, cipher.vocabulary, Config(**{**SMALL, "steps": 6}, seed=1), live_interval=None)
    list(paper.run())
    assert paper.polish_result is None and "polish_moves" not in paper.last_evaluation.metrics


def test_vowel_weight_counts_known_vowels_rows_that_many_times_in_omega_loss(cipher):
    prep = prepare(cipher.corpus, cipher.vocabulary, Config(**SMALL), [])
    torch.manual_seed(0)
    paper = make_mapping(prep)
    probs = paper.log_probs(dropout=False).detach().exp()
    from engine.model.mapping import CharMapping
    half = CharMapping(prep.lost_letters, prep.known_units, prep.config.replace(vowel_weight=0.5))
    w = torch.tensor([0.5 if is_vowel(u) else 1.0 for u in prep.known_units]).unsqueeze(1)
    expected = (((probs * w).sum(0) - 1.0) ** 2).sum()
    assert float(half.sound_loss(probs)) == pytest.approx(float(expected))
    assert float(half.sound_loss(probs)) != pytest.approx(float(paper.sound_loss(probs)))
    # a known side without vowels (an abjad's stems): the setting changes nothing
    consonants = [u for u in prep.known_units if not is_vowel(u)]
    a = CharMapping(prep.lost_letters, consonants, prep.config)
    b = CharMapping(prep.lost_letters, consonants, prep.config.replace(vowel_weight=0.5))
    p = torch.rand(len(consonants), len(prep.lost_letters))
    assert float(a.sound_loss(p)) == float(b.sound_loss(p))


def test_vowel_weight_zero_balances_the_lost_vowel_letters_against_the_known_vowels(cipher):
    from engine.model.mapping import resolve_vowel_weight

    units = ["<DEL>", "a", "e", "i", "o", "p", "t"]
    assert resolve_vowel_weight(0.0, ["x", "y"], units) == 0.5
    assert resolve_vowel_weight(0.0, ["x", "y", "z", "w", "v"], units) == 1.0        # at most 1
    assert resolve_vowel_weight(0.0, None, units) == 1.0                             # no class evidence
    assert resolve_vowel_weight(0.0, ["x", "y"], ["<DEL>", "p", "t"]) == 1.0           # no known vowels
    assert resolve_vowel_weight(0.7, ["x", "y"], units) == 0.7
    # the cipher's text writes its 5 vowels with 5 letters: nothing changes
    trainer = Trainer(cipher.corpus, cipher.vocabulary, Config(**SMALL, vowel_weight=0.0), live_interval=None)
    assert trainer.model.vowel_weight == 1.0
    assert trainer.evaluate().metrics["vowel_weight_used"] == 1.0


def test_seeds_in_lockstep_refuse_polish_moves_instead_of_skipping_it(cipher):
    from engine.errors import InputError
    from engine.training.lockstep import SeedGroup

    with pytest.raises(InputError, match="setting polish_moves"):
        SeedGroup(cipher.corpus, cipher.vocabulary, Config(**{**SMALL, "steps": 4}, polish_moves=2), [0, 1])


def test_a_polish_record_written_before_the_moved_letters_were_kept_still_reads():
    from engine.errors import InputError

    new = P.PolishResult(-1.0, -1.2, [("swap a <-> e", 0.2)], 10, False, ["a", "e"])
    assert P.PolishResult.from_state(new.to_state()) == new
    old = {k: v for k, v in new.to_state().items() if k != "moved"}
    back = P.PolishResult.from_state(old)
    assert back.kept == new.kept and back.moved == []
    with pytest.raises(InputError, match="malformed"):
        P.PolishResult.from_state({**old, "kept": 3})


def test_the_objective_terms_table_weighs_each_term_as_the_final_objective_does():
    from benchmarks.objective_terms import terms
    from engine.config import Config
    from engine.training.final_objective import combine

    cfg = Config(steps=3000)
    above = terms(0.17, 0.54, 0.0, cfg)          # coverage above the end target: no coverage term
    assert above["coverage_term"] == 0.0 and above["quality_term"] == pytest.approx(-cfg.quality_weight * 0.17)
    assert above["quality_per_covered"] == pytest.approx(0.17 / 0.54)
    below = terms(0.17, 0.40, 0.001, cfg)
    n = 1000
    expected = combine(cfg, cfg.steps, 0.17 * n, 0.40 * n, 0.001 * n, 0.0, n)["objective"]
    assert below["objective"] == pytest.approx(expected) and below["coverage_term"] > 0
