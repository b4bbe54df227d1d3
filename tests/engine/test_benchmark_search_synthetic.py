"""benchmarks/search_synthetic.py: the search trials on synthetic ciphers (issue 30). A real short run per
family, the table's count of seeds below the default's, resuming, and one-line refusals."""

import json

import pytest

from benchmarks import search_synthetic as ss

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize("family, cipher", [("plain", 1), ("relative", 2)])
def test_a_short_run_of_each_family_records_what_the_table_reads(family, cipher):
    row = ss.run_one(family, cipher, 0, "vowel_class", 3)
    assert (row["family"], row["cipher"], row["seed"], row["trial"], row["steps"]) == (family, cipher, 0, "vowel_class", 3)
    assert row["settings"] == {"vowel_weight": 0.0, "class_init": 0.05}
    assert 0 <= row["p_at_1"] <= row["p_at_10"] <= 1
    assert 0 <= row["letters_right"] <= row["letters"] <= 21
    assert row["classes_used"] and 2 <= len(row["sukhotin_vowels"])
    assert 0 <= row["sukhotin_true"] <= min(5, len(row["sukhotin_vowels"]))
    assert 0 < row["vowel_weight_used"] <= 1
    json.dumps(row)          # one JSON line


def test_the_relative_cipher_reads_against_the_relatives_stems():
    corpus, vocab, gold, key = ss.build("relative", 2)
    forms = {s.form for s in vocab.stems}
    assert gold and all(set(g.known) <= forms for g in gold)
    plain = ss.build("plain", 2)
    assert {s.form for s in plain[1].stems} != forms


def _row(cipher, seed, trial, p1, family="relative", objective=-1.0):
    return {"family": family, "cipher": cipher, "seed": seed, "trial": trial, "steps": 3000, "p_at_1": p1,
            "letters_right": 10, "sukhotin_vowels": ["a", "b"], "sukhotin_true": 1, "vowel_weight_used": 0.5,
            "objective": objective}


def test_the_table_counts_the_seeds_a_trial_reads_worse_than_the_default():
    rows = [_row(2, 0, "none", 0.9, objective=-5.0), _row(2, 1, "none", 0.2, objective=-2.0),
            _row(2, 0, "class_init", 0.1, objective=-3.0), _row(2, 1, "class_init", 0.6, objective=-1.0),
            _row(2, 0, "vowel_weight", 0.95)]
    lines = ss.table(rows).splitlines()
    by_trial = {line.split(" | ")[2]: line for line in lines if line.startswith("| relative | 2 |")
                and " | " in line and line.count("|") == 8}
    assert by_trial["class_init"].endswith("| 1 of 2 |")          # seed 0 lower, seed 1 higher
    assert by_trial["vowel_weight"].endswith("| 0 of 1 |") and "0.950 / —" in by_trial["vowel_weight"]
    assert by_trial["none"].endswith("| — |")
    assert "| relative | 2 | a b (2) | 1 of 5 | 0.5 |" in lines
    # of each seed's two runs the lower objective is kept: seed 0 the paper settings' (0.9, the better),
    # seed 1 the paper settings' too (-2.0 < -1.0), though the class start's read more (0.6)
    assert "| relative | 2 | 0.900 / 0.200 | 0.550 | 1 of 2 |" in lines
    counts = ss.summary(rows)
    assert counts["trials"]["class_init"] == {"seeds": 2, "worse": 1, "better": 1, "identical": 0,
                                              "mean_default": 0.55, "mean_trial": 0.35}
    assert counts["trials"]["vowel_weight"] == {"seeds": 1, "worse": 0, "better": 1, "identical": 0,
                                                "mean_default": 0.9, "mean_trial": 0.95}
    assert counts["by_family"]["relative"]["class_init"] == counts["trials"]["class_init"]
    assert counts["by_family"]["plain"]["class_init"]["seeds"] == 0
    assert counts["lower_objective_kept"] == {"seeds": 2, "as_good_as_the_better": 1}


def test_plan_skips_what_the_file_holds(tmp_path):
    out = tmp_path / "s.jsonl"
    out.write_text(json.dumps(_row(2, 0, "none", 0.5)) + "\n", encoding="utf-8")
    done = {ss._key(r) for r in ss.read(out)}
    jobs = ss.plan(["relative"], [2], [0, 1], ["none"], 3000, done)
    assert jobs == [("relative", 2, 1, "none", 3000)]


def test_bad_arguments_are_one_line_and_write_nothing(tmp_path, capsys):
    out = tmp_path / "s.jsonl"
    assert ss.main(["--out", str(out), "--trials", "lr"]) == 2
    assert ss.main(["--out", str(out), "--steps", "0"]) == 2
    assert ss.main(["--out", str(out), "--table"]) == 2
    assert ss.main(["--out", str(out), "--seeds", "-1", "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 4 and "unknown trial 'lr'" in err and "no rows yet" in err
    assert "error: setting seed:" in err
    assert not out.exists()
