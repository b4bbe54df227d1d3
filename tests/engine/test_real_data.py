"""End to end on real data from ../shared/data (skipped where the corpora are absent)."""

from engine.config import UGARITIC, Config
from engine.corpus import Corpus, Vocabulary
from engine.io.cog import read_cog
from engine.training.trainer import Trainer
from tests.conftest import shared_path


def test_ugaritic_small_learns_the_sound_correspondences():
    cog = read_cog(shared_path("ugaritic_hebrew", "uga-heb.small.no_spe.cog"))
    assert (len(cog.inscriptions), len(cog.gold)) == (735, 221)
    config = Config(**UGARITIC, steps=300, anneal_steps=200, eval_interval=0, seed=0)
    trainer = Trainer(Corpus("uga", tuple(cog.inscriptions)), Vocabulary("heb", tuple(cog.stems)), config,
                      gold=cog.gold, live_interval=None)
    before = trainer.evaluate().metrics["p_at_1"]
    for _ in trainer.run():
        pass
    after = trainer.last_evaluation.metrics
    assert before < 0.15
    assert after["p_at_1"] > 0.3 and after["p_at_10"] > 0.45      # 0.45 and 0.58 measured
    mapping = trainer.mapping()
    for lost, known in (("b", "b"), ("l", "l"), ("m", "m"), ("r", "r")):
        best = mapping.best_known_for(lost, k=1)[0][0]
        assert best == known, (lost, mapping.best_known_for(lost))


def test_ugaritic_benchmark_rescores_a_saved_model_to_the_same_numbers(tmp_path):
    from benchmarks import ugaritic

    shared_path("ugaritic_hebrew", ugaritic.FILES["small"])          # skips without the corpus
    trained = ugaritic.run_seed("small", "base", 0, 30, "cpu", tmp_path)
    rescored = ugaritic.score_checkpoint(tmp_path / "ugaritic-small-base-seed0.pt", "small", "cpu")
    assert rescored["steps"] == 30
    keys = [k for k in trained if k.startswith("p_at_")]
    assert len(keys) == 10
    assert {k: rescored[k] for k in keys} == {k: trained[k] for k in keys}
    assert trained["n_evaluable"] == rescored["n_evaluable"] == 205
