"""benchmarks/lockstep_equivalence.py: a seed's row compares the lockstep seed with its separate run."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from benchmarks.lockstep_equivalence import compare  # noqa: E402


def _side(folder, seed, probs, params, p10):
    folder.mkdir(exist_ok=True)
    torch.save(params, folder / f"params-{seed}.pt")
    return {"seed": seed, "step": 30, "p_at_1": 0.5, "p_at_10": p10, "lost": ["<DEL>", "a", "b", "c"],
            "known": ["<DEL>", "x", "y"], "probs": probs, "wall_s": 1.0, "setup_s": 0.1}


def test_a_row_counts_the_letters_read_alike_and_the_largest_differences(tmp_path):
    # probs[k][l]: known unit k (rows), lost letter l (columns); column 0 is the deletion pseudo-letter
    group = _side(tmp_path / "group", 3, [[0.9, 0.1, 0.1, 0.6], [0.05, 0.8, 0.2, 0.3], [0.05, 0.1, 0.7, 0.1]],
                  {"w": torch.tensor([1.0, 2.0])}, 0.8)
    single = _side(tmp_path / "single", 3, [[0.1, 0.1, 0.1, 0.2], [0.05, 0.8, 0.2, 0.7], [0.85, 0.1, 0.7, 0.1]],
                   {"w": torch.tensor([1.0, 2.25])}, 0.75)
    row = compare(group, single, tmp_path)
    # letters a and b read x and y on both sides; c reads <DEL> in the group and x alone: 2 of 3 alike
    assert row["letters"] == 3 and row["letters_same_best_sound"] == 2
    assert row["max_mapping_prob_diff"] == pytest.approx(0.4)  # column 0 (the deletion) is not a letter
    assert row["max_parameter_diff"] == pytest.approx(0.25)
    assert (row["lockstep_p_at_10"], row["single_p_at_10"]) == (0.8, 0.75)
