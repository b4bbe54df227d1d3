"""benchmarks/experiments/word_phase_starts.py's screens: what a choice among starts keeps, on average, of
runs drawn from a pool of single starts (issue 49)."""

from __future__ import annotations

import json

import pytest

from benchmarks.experiments.word_phase_starts import agreement, expected_kept, expected_medoid, screens, vote


def test_the_expected_start_kept_is_the_mean_over_every_subset_of_the_lowest_scored():
    values = [0.9, 0.1, 0.2, 0.3]
    # a screen that ranks the starts as the gold does keeps the best of each subset
    right = [-9.0, -1.0, -2.0, -3.0]
    assert expected_kept(values, right, 1) == pytest.approx(sum(values) / 4)
    assert expected_kept(values, right, 4) == pytest.approx(0.9)
    # pairs: the best start is in 3 of the 6, the others' best of the rest: (0.9 * 3 + 0.3 * 2 + 0.2) / 6
    assert expected_kept(values, right, 2) == pytest.approx((0.9 * 3 + 0.3 * 2 + 0.2) / 6)
    # a screen that ranks them backwards keeps the worst of each subset
    assert expected_kept(values, [-s for s in right], 4) == pytest.approx(0.1)
    # two rounds: the first screen keeps two of the four (starts 1 and 2), the second the best of those
    first = [5.0, 0.0, 1.0, 6.0]
    assert expected_kept(values, right, 4, first, keep=2) == pytest.approx(0.2)
    assert expected_kept(values, right, 4, first, keep=3) == pytest.approx(0.9)


def test_the_agreement_screen_keeps_the_start_the_others_read_alike():
    a, b = {"x": "k a", "y": "t i", "z": "m u"}, {"x": "k a", "y": "t i", "z": "p e"}
    c, d = {"x": "s o", "y": "t i", "z": "n e"}, {"x": "r o", "y": "l a", "z": "n e"}
    values = [0.9, 0.5, 0.2, 0.1]
    # in {a, b, c}: a shares 2 + 1 signs with the others, b 2 + 1, c 1 + 1: a is kept (the first of the tie)
    assert expected_medoid(values[:3], [a, b, c], 3) == pytest.approx(0.9)
    # every 3 of the 4: {a,b,c} a; {a,b,d} a (2+0 vs 2+0 vs 0+0: tie, the first); {a,c,d} c (1+1);
    # {b,c,d} c (b 1+0, c 1+1, d 0+1)
    assert expected_medoid(values, [a, b, c, d], 3) == pytest.approx((0.9 + 0.9 + 0.2 + 0.2) / 4)


def test_screens_reads_a_result_file_and_leaves_out_what_a_pool_lacks(tmp_path):
    rows = [{"id": "dev-s-x", "sets": [], "seed": s, "p_at_10": p, "screen_objective": w,
             "words_objectives": {"250": w, "500": w, "1000": w}, "text_objective": t}
            for s, p, w, t in [(0, 0.8, 2.0, -9.0), (1, 0.2, 1.0, -5.0), (2, 0.4, 3.0, -6.0)]]
    rows.append({"id": "dev-s-y", "sets": ["lr=0.2"], "seed": 0, "p_at_10": 0.5, "screen_objective": 1.0,
                 "text_objective": -1.0})                 # an older row: no words@250 nor words@1000
    rows.append({"id": "dev-s-y", "sets": ["lr=0.2"], "seed": 1, "error": "exit 1"})
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    x, y = screens(path)
    assert (x["id"], x["starts"], x["best"]) == ("dev-s-x", 3, 0.8)
    assert x["kept"]["text@end"]["1"] == pytest.approx((0.8 + 0.2 + 0.4) / 3)
    assert x["kept"]["text@end"]["2"] == pytest.approx((0.8 + 0.8 + 0.4) / 3)
    assert x["kept"]["words@500"]["2"] == pytest.approx((0.2 + 0.8 + 0.2) / 3)
    assert "4" not in x["kept"]["text@end"]                 # no run of 4 from a pool of 3
    assert "words@500, half to text@end" not in x["kept"]   # two rounds need runs of more than 2
    assert (y["sets"], y["starts"]) == (["lr=0.2"], 1)     # the row that failed is left out
    assert set(y["kept"]) == {"words@500", "text@end"}


def test_the_starts_vote_counts_onsets_and_vowels_apart_and_says_how_many_agree():
    readings = [{"A": ["k", "a"], "B": ["∅", "i"]},
                {"A": ["k", "e"], "B": ["t", "i"]},
                {"A": ["p", "e"], "B": ["∅", "u"]}]
    # A: onset k (2 of 3), vowel e (2 of 3): a value no start read whole
    assert vote(readings) == {"A": ("k", "e"), "B": ("∅", "i")}
    assert agreement(readings) == pytest.approx({"A": 2 / 3, "B": 2 / 3})
    # weights: the third start outweighs the other two
    assert vote(readings, [1.0, 1.0, 3.0]) == {"A": ("p", "e"), "B": ("∅", "u")}
    # a sign one start does not read counts as a disagreement there
    assert agreement([{"A": ["k", "a"]}, {"A": ["k", "a"], "B": ["t", "o"]}]) == {"A": 1.0, "B": 0.5}


def test_spearman_ranks_with_ties_and_says_nan_for_a_constant_side():
    from benchmarks.experiments.word_phase_starts import spearman

    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 1, 2, 2], [1, 2, 3, 4]) == pytest.approx(0.8944, abs=1e-4)   # ties share a rank
    assert spearman([5, 5, 5], [1, 2, 3]) != spearman([5, 5, 5], [1, 2, 3])          # NaN


def test_a_missing_or_broken_result_file_is_one_line_and_exit_2(tmp_path, capsys):
    from benchmarks.experiments.word_phase_starts import main

    with pytest.raises(SystemExit) as e:
        main(["--screens", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "s.json")])
    assert e.value.code == 2 and "none.jsonl: no such result file" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "dev-s-x"}\n{not json\n', encoding="utf-8")
    with pytest.raises(SystemExit) as e:
        main(["--votes", str(bad)])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "bad.jsonl:2: not a JSON row" in err and len(err.strip().splitlines()) == 1
    with pytest.raises(SystemExit) as e:
        main(["--vote-run", "dev-s-nothing", "--rows", str(bad), "--out", str(tmp_path / "v.jsonl")])
    assert e.value.code == 2 and "no cipher of that id" in capsys.readouterr().err
    assert not (tmp_path / "s.json").exists() and not (tmp_path / "v.jsonl").exists()


def test_the_starts_check_on_runs_drawn_from_a_pool_keeps_the_lowest_objective_and_reads_its_agreement(tmp_path):
    from benchmarks.experiments.word_phase_starts import starts_check

    def start(cid, seed, objective, p10, signs, values):
        return {"id": cid, "sets": [], "seed": seed, "text_objective": objective, "p_at_10": p10,
                "values_share": signs, "reading": {s: [o, "a"] for s, o in zip("WXYZ", values)}}

    # text x: starts 0 and 1 read it alike; 2, 3 and 4 do not, each sharing one sign with them (a quarter)
    x = [start("dev-s-x", 0, -5.0, 0.9, 0.7, "ktpn"), start("dev-s-x", 1, -4.0, 0.9, 0.7, "ktpn"),
         start("dev-s-x", 2, -3.0, 0.1, 0.1, "kbbb"), start("dev-s-x", 3, -2.0, 0.1, 0.1, "dtdd"),
         start("dev-s-x", 4, -1.0, 0.1, 0.1, "ffpf")]
    # text y: four starts, none read, each pair sharing a quarter of the signs (the first sign)
    y = [start("dev-s-y", s, -float(s), 0.2, 0.1, "k" + v) for s, v in enumerate(["bbb", "ddd", "fff", "ggg"])]
    y.append({"id": "dev-s-y", "sets": [], "seed": 9, "error": "exit 1"})
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in x + y), encoding="utf-8")
    out = starts_check([path], thresholds=(0.5,))
    tx, ty = out["texts"]
    # x: five runs of 4; without start 0 or 1 the other read start is kept and no start agrees past a quarter
    assert (tx["subsets"], tx["kept_read"], tx["agreement_min"], tx["agreement_max"]) == (5, 5, 0.25, 1.0)
    assert (ty["subsets"], ty["kept_read"], ty["agreement_max"]) == (1, 0, 0.25)
    assert out["kept_read"]["n"] == 5 and out["kept_not_read"]["max"] == 0.25
    assert out["thresholds"] == [{"threshold": 0.5, "read_passed": 3 / 5, "not_read_flagged": 1.0, "fine": 3,
                                  "fine_read": 1.0}]


def test_the_starts_check_leaves_out_a_pool_too_small_for_a_run(tmp_path):
    from benchmarks.experiments.word_phase_starts import starts_check

    rows = [{"id": "dev-s-z", "sets": [], "seed": s, "text_objective": -float(s), "p_at_10": 0.1, "values_share": 0.1,
             "reading": {"W": ["k", "a"]}} for s in range(3)]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = starts_check([path])
    assert out["texts"] == [] and out["kept_read"] == {"n": 0} and out["kept_not_read"] == {"n": 0}


def test_paired_starts_compare_seed_for_seed_and_a_file_with_no_pair_is_one_line(tmp_path, capsys):
    from benchmarks.experiments.word_phase_starts import main, paired

    def write(name, rows):
        path = tmp_path / name
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return path

    base = write("base.jsonl", [{"id": "dev-s-x", "seed": s, "sets": [], "p_at_10": p, "values_share": v}
                                for s, p, v in [(0, 0.2, 0.1), (1, 0.5, 0.3), (2, 0.9, 0.6)]]
                 + [{"id": "dev-s-x", "seed": 0, "sets": ["lr=0.2"], "p_at_10": 0.0, "values_share": 0.0}])
    new = write("new.jsonl", [{"id": "dev-s-x", "seed": s, "sets": ["words_types=true"], "p_at_10": p,
                               "values_share": v} for s, p, v in [(0, 0.6, 0.4), (1, 0.4, 0.3), (5, 1.0, 1.0)]])
    out = paired(new, [base])
    x = out["texts"]["dev-s-x"]
    assert (x["pairs"], x["seeds"], x["higher"]) == (2, [0, 1], 1)      # seed 5 has no pair; the lr=0.2 row is no base
    assert x["p_at_10"] == pytest.approx(0.5) and x["base_p_at_10"] == pytest.approx(0.35)
    assert out["all"]["values_share"] == pytest.approx(0.35)
    with_lr = paired(new, [base], ["lr=0.2"])["texts"]["dev-s-x"]          # the base run with another setting
    assert (with_lr["pairs"], with_lr["base_p_at_10"]) == (1, 0.0)
    lonely = write("lonely.jsonl", [{"id": "dev-s-y", "seed": 0, "sets": [], "p_at_10": 0.1, "values_share": 0.1}])
    with pytest.raises(SystemExit) as e:
        main(["--paired", str(lonely), str(base), "--out", str(tmp_path / "o.json")])
    assert e.value.code == 2 and "no start whose text and seed" in capsys.readouterr().err
