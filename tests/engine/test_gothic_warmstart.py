"""benchmarks/experiments/gothic_warmstart.py: what a warm start copies from the PG model, and what it leaves."""

import pytest
import torch

from benchmarks.experiments.gothic_warmstart import main, transfer
from engine.config import Config
from engine.model.mapping import CharMapping
from engine.model.phonology import DELETE


def _model(lost, known, seed, **settings):
    torch.manual_seed(seed)
    return CharMapping([DELETE, *lost], [DELETE, *known], Config(feature_dim=4, **settings))


def test_features_copies_the_feature_embeddings_only():
    donor, target = _model("abt", "abt", 0), _model("abt", "aðr", 1)
    aligner = target.aligner.detach().clone()
    out = transfer(donor, target, "features")
    assert torch.equal(target.feature_emb, donor.feature_emb)
    assert torch.equal(target.aligner, aligner)
    assert out["aligner_cells"] == 0


def test_all_copies_the_aligner_cells_of_shared_letters_and_units_and_keeps_the_rest():
    donor = _model("abtz", "abtθ", 0)
    target = _model("abtq", "aðrt", 1)
    before = target.aligner.detach().clone()
    out = transfer(donor, target, "all")
    # shared letters: <DEL>, a, b, t; shared units: <DEL>, a, t
    assert (out["letters_shared"], out["units_shared"], out["aligner_cells"]) == (4, 3, 12)
    d_l = {x: i for i, x in enumerate(donor.lost_letters)}
    d_k = {u: i for i, u in enumerate(donor.known_units)}
    for i, x in enumerate(target.lost_letters):
        for j, u in enumerate(target.known_units):
            if x in d_l and u in d_k:
                assert target.aligner[i, j] == donor.aligner[d_l[x], d_k[u]]
            else:
                assert target.aligner[i, j] == before[i, j]          # q, ð, r keep their random start
    # the start is PG's mapping on the shared units: the same best letter for /t/
    t_t, t_d = target.known_units.index("t"), donor.known_units.index("t")
    assert torch.allclose(target.known_embeddings(False)[t_t], donor.known_embeddings(False)[t_d])


def test_transfer_refuses_what_it_cannot_copy():
    with pytest.raises(ValueError, match="part is one of"):
        transfer(_model("a", "a", 0), _model("a", "a", 1), "aligner")
    with pytest.raises(ValueError, match="feature_dim"):
        transfer(_model("a", "a", 0), CharMapping([DELETE, "a"], [DELETE, "a"], Config(feature_dim=5)), "all")
    with pytest.raises(ValueError, match="use_ipa_features"):
        transfer(_model("a", "a", 0), _model("a", "a", 1, use_ipa_features=False), "features")


def test_missing_data_is_one_error_line(tmp_path, capsys):
    assert main(["--data", str(tmp_path), "--target", "on"]) == 2
    assert "no lost.csv, known.csv, gold.csv" in capsys.readouterr().err


def test_a_run_built_as_the_grid_builds_it_trains_from_the_copied_mapping():
    """gothic.make_trainer + transfer + gothic.train on the bundled sample (3 steps): the target
    starts from the donor's parameters and the run ends evaluated, as the script's rows need."""
    from pathlib import Path

    from benchmarks import gothic
    from benchmarks.gothic_ranks import final_objective

    sample = Path(__file__).resolve().parents[2] / "resources" / "sample"
    args = (str(sample / "lost.csv"), str(sample / "known.csv"), str(sample / "gold.csv"), None)
    settings = dict(steps=3, eval_interval=0, feature_dim=4, min_span=3)
    donor = gothic.train(gothic.make_trainer(*args, {**settings, "seed": 1}))
    target = gothic.make_trainer(*args, {**settings, "seed": 2})
    transfer(donor.model, target.model, "all")
    assert torch.equal(target.model.aligner, donor.model.aligner)       # same data: every cell is shared
    assert torch.equal(target.model.log_probs(), donor.model.log_probs())
    gothic.train(target)
    assert target.step == 3 and "p_at_10" in target.last_evaluation.metrics
    assert not torch.equal(target.model.aligner, donor.model.aligner)   # and it trained on from there
    obj = final_objective(target)
    assert obj["final_pins"] == 0 and obj["final_objective_without_pins"] == obj["final_objective"]
