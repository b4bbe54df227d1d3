"""benchmarks/gothic_ranks.py: rank files round-trip, and the comparison splits shared and own rows."""

import gzip

import pytest

from benchmarks.gothic_ranks import compare, main, prior_agreement, read_ranks, write_ranks


def _gold(*rows):
    return [{"inscription_id": i, "start": str(s), "known": k} for i, s, k in rows]


def test_rank_file_round_trips(tmp_path):
    path = tmp_path / "r.csv.gz"
    write_ranks(path, _gold(("s1", 0, "dag"), ("s1", 9, "gum")), [3, None])
    assert read_ranks(path) == {("s1", "0"): ("dag", 3), ("s1", "9"): ("gum", None)}
    assert not list(tmp_path.glob("*.part"))


def test_rank_file_needs_one_rank_per_gold_row(tmp_path):
    with pytest.raises(ValueError):
        write_ranks(tmp_path / "r.csv.gz", _gold(("s1", 0, "dag")), [1, 2])
    assert not (tmp_path / "r.csv.gz").exists()


def test_compare_counts_shared_rows_and_the_stems_won_and_lost():
    a = {("s", "0"): ("verð", 1), ("s", "5"): ("verð", 2), ("s", "9"): ("heyr", 30), ("s", "12"): ("kvin", 1)}
    b = {("s", "0"): ("verð", 40), ("s", "5"): ("verð", None), ("s", "9"): ("heyr", 4),
         ("s", "12"): ("kvinn", 1), ("t", "0"): ("kunn", 11)}
    out = compare(a, b, k=10)
    assert out["shared"] == 3                        # the kvin -> kvinn row changed its gold stem
    assert out["p_at_10_shared_a"] == pytest.approx(2 / 3, abs=1e-4)
    assert out["p_at_10_shared_b"] == pytest.approx(1 / 3, abs=1e-4)
    assert (out["only_a"], out["only_b"]) == (1, 2)
    assert out["p_at_10_only_b"] == pytest.approx(0.5)
    assert out["lost_by_b"] == 2 and out["lost_by_b_stems"] == "verð 2"
    assert out["won_by_b"] == 1 and out["won_by_b_stems"] == "heyr 1"


def test_a_bad_rank_names_the_file_and_line(tmp_path, capsys):
    path = tmp_path / "bad.csv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("inscription_id,start,known,rank\ns1,0,dag,1\ns1,4,gum,x\n")
    with pytest.raises(SystemExit, match=r"bad.csv.gz, line 3: rank 'x'"):
        read_ranks(path)


def test_train_without_the_dataset_is_one_error_line(tmp_path, capsys):
    assert main(["train", "--data", str(tmp_path), "--known", "on", "--wr", "0", "--out",
                 str(tmp_path / "o.csv.gz")]) == 2
    assert "no lost.csv, known.csv, gold.csv" in capsys.readouterr().err
    assert main(["train", "--data", str(tmp_path), "--known", "on", "--wr", "0.3", "--out",
                 str(tmp_path / "o.csv.gz")]) == 2


def test_prior_agreement_reads_each_letters_best_unit_against_the_table():
    import numpy as np

    from engine.corpus import PinnedValue
    from engine.results import MappingSnapshot

    # probs[k, l] = P(lost l | known k); index 0 is the deletion on both axes
    known = ("<DEL>", "a", "ɑ", "t", "r")
    lost = ("<DEL>", "a", "t", "z", "q")
    probs = np.full((len(known), len(lost)), 0.01)
    probs[0, 1] = 0.9            # the deletion "best" for a is skipped: the next unit counts
    probs[2, 1] = 0.5            # a -> ɑ: one of the table's two values for a
    probs[3, 2] = 0.2
    probs[1, 2] = 0.4            # t -> a: wrong
    probs[4, 3] = 0.7            # z -> r: the table says z
    mapping = MappingSnapshot(lost, known, probs)
    pins = [PinnedValue("a", "a"), PinnedValue("a", "ɑ"), PinnedValue("t", "t"), PinnedValue("z", "z"),
            PinnedValue("þ", "θ")]                       # þ: not in this corpus, not counted
    out = prior_agreement(mapping, pins)
    assert (out["prior_letters"], out["prior_agree"], out["prior_agree_letters"]) == (3, 1, "a")
    assert out["mapping_best"] == "a>ɑ t>a z>r"
