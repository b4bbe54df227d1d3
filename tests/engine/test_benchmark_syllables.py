"""Smoke tests of the syllable benchmarks (benchmarks/syllable_cost.py, benchmarks/syllable_linear_b.py).

The cost script runs for real on the synthetic syllabary (built by the CLI, no shared data); the
Linear B runner's resumption, table and summary are checked with a stand-in for the child process
that writes what ``decipher run --seeds S`` writes (the real runs take minutes)."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from benchmarks import syllable_cost, syllable_linear_b


# ------------------------------------------------------------------------------------------ cost

@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> Path:
    return syllable_cost.ensure_data("synthetic", tmp_path_factory.mktemp("syl"))


def test_side_by_side_alternates_the_arms_and_summarises_every_step(synthetic):
    rows = syllable_cost.side_by_side("synthetic", synthetic, reps=3, block=2, warmup=1)
    blocks = [r for r in rows if r["kind"] == "block"]
    assert [(r["rep"], r["signs"]) for r in blocks] == [
        (0, "letters"), (0, "syllables"), (1, "syllables"), (1, "letters"), (2, "letters"), (2, "syllables")]
    assert all(len(r["step_ms"]) == 2 and min(r["step_ms"]) > 0 for r in blocks)
    (summary,) = [r for r in rows if r["kind"] == "summary"]
    letters = sorted(x for r in blocks if r["signs"] == "letters" for x in r["step_ms"])
    syllables = sorted(x for r in blocks if r["signs"] == "syllables" for x in r["step_ms"])
    med = lambda xs: (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2   # noqa: E731 (six steps each)
    assert summary["letters_step_ms"] == pytest.approx(med(letters), abs=0.02)
    assert summary["ratio"] == pytest.approx(med(syllables) / med(letters), abs=0.01)
    assert len(summary["ratio_per_rep"]) == 3
    assert summary["within_target"] == (summary["ratio"] <= 2.0)


def test_the_two_arms_differ_only_in_signs(synthetic):
    a = syllable_cost.make_trainer(synthetic, "letters").config.to_dict()
    b = syllable_cost.make_trainer(synthetic, "syllables").config.to_dict()
    assert {k for k in a if a[k] != b[k]} == {"signs"}
    from engine.config import PRESETS
    # the preset's settings but its length and its screened starts (the benchmark steps one start itself)
    assert all(b[k] == v for k, v in PRESETS["linear-b"].items() if k not in ("steps", "restarts", "restart_steps"))
    assert b["restarts"] == 1


def test_cost_script_writes_json_lines_with_commit_and_machine(synthetic, tmp_path):
    out = tmp_path / "cost.jsonl"
    cache = synthetic.parent.parent
    assert syllable_cost.main(["--data", "synthetic", "--reps", "1", "--block", "1", "--warmup", "0",
                               "--no-full", "--cache", str(cache), "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["kind"] for r in rows] == ["block", "block", "summary"]
    assert all(len(r["commit"]) >= 40 and r["machine"]["nproc"] >= 1 for r in rows)


def test_cost_script_refuses_a_missing_file_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(syllable_cost, "LINEAR_B_COG", tmp_path / "nope.cog")
    out = tmp_path / "cost.jsonl"
    assert syllable_cost.main(["--data", "linear-b", "--cache", str(tmp_path), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nope.cog: file not found" in err[0]
    assert not out.exists()


# ------------------------------------------------------------------------------- syllable_linear_b


def test_linear_b_summary_gives_every_seed_the_best_the_mean_and_the_gold_free_choice():
    rows = [{"file": "cognates", "variant": "scratch", "seed": s, "steps": 3000, "p_at_1": p, "p_at_1_strict": p / 2,
             "signs_standard": s, "objective": o} for s, p, o in ((0, 0.2, 5.0), (1, 0.6, 4.0), (2, 0.4, 6.0))]
    [entry] = syllable_linear_b.summary(rows)
    assert entry["p_at_1"] == [0.2, 0.6, 0.4] and entry["best_p_at_1"] == 0.6
    assert abs(entry["mean_p_at_1"] - 0.4) < 1e-12
    assert entry["chosen_seed"] == 1 and entry["chosen_p_at_1"] == 0.6   # the lowest objective, not the gold


def test_linear_b_runner_pins_only_what_the_variant_names():
    assert syllable_linear_b.PINS["scratch"] == ()
    assert [v for _, v in syllable_linear_b.PINS["vowel-pins"]] == ["a", "e", "i", "o"]


def test_linear_b_runner_sets_what_each_variant_names():
    assert syllable_linear_b.SETTINGS["onsets-first"] == ("onsets_first=0.5", "restarts=1", "lr=0.2")
    assert syllable_linear_b.SETTINGS["scratch"] == ("onsets_first=0", "restarts=1", "lr=0.2")   # as first measured
    assert syllable_linear_b.SETTINGS["preset"] == () and syllable_linear_b.PINS["preset"] == ()
    # the preset as it was before its learning rate was raised, reproducible as a variant of its own
    assert syllable_linear_b.SETTINGS["preset-lr0.2"] == ("lr=0.2", "restarts=64", "restart_fraction=0.0625",
                                                          "restart_steps=0")
    assert syllable_linear_b.parse_folder("preset-lr0.2-8000-s1") == ("cognates", "preset-lr0.2", 8000, 1)
    # every variant but the preset keeps the learning rate it was measured at
    assert all("lr=0.2" in v for k, v in syllable_linear_b.SETTINGS.items() if k not in ("preset", "syllabary"))
    # the generic preset of issue 49 as shipped, plus what the list is (one word a line), and nothing else
    assert syllable_linear_b.SETTINGS["syllabary"] == ("segmented=true",)
    assert syllable_linear_b.PRESET == {"syllabary": "syllabary"}
    assert syllable_linear_b.PINS["onsets-first"] == ()


def test_linear_b_folders_name_the_variant_the_length_and_the_seed():
    b = syllable_linear_b
    assert b.run_folder("onsets-first", 3, 3000).name == "onsets-first-s3"
    assert b.run_folder("onsets-first", 3, 8000, "names").name == "names-onsets-first-8000-s3"
    assert b.parse_folder("names-onsets-first-8000-s3") == ("names", "onsets-first", 8000, 3)
    assert b.parse_folder("vowel-pins-s0") == ("cognates", "vowel-pins", None, 0)
    assert b.parse_folder("data") is None and b.parse_folder("other-variant-s1") is None


def test_a_longer_run_continues_the_longest_shorter_run_of_its_seed(tmp_path, monkeypatch):
    import json

    b = syllable_linear_b
    monkeypatch.setattr(b, "CACHE", tmp_path)
    for name, steps in (("onsets-first-s0", 3000), ("onsets-first-5000-s0", 5000), ("onsets-first-9000-s0", 9000),
                        ("onsets-first-s1", 3000), ("scratch-4000-s0", 4000), ("names-onsets-first-6000-s0", 6000)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "metrics.json").write_text(json.dumps({"steps": steps}))
        (tmp_path / name / "checkpoint.pt").write_bytes(b"")
    (tmp_path / "onsets-first-7000-s0").mkdir()       # unfinished: no metrics.json
    assert b.shorter_run("onsets-first", 0, 8000, "cognates").name == "onsets-first-5000-s0"
    assert b.shorter_run("onsets-first", 1, 8000, "cognates").name == "onsets-first-s1"
    assert b.shorter_run("onsets-first", 2, 8000, "cognates") is None
    assert b.shorter_run("onsets-first", 0, 3000, "cognates") is None
    assert b.shorter_run("onsets-first", 0, 8000, "names").name == "names-onsets-first-6000-s0"


def test_collect_writes_every_run_and_a_summary_with_the_commits(tmp_path, monkeypatch, capsys):
    import json

    b = syllable_linear_b
    monkeypatch.setattr(b, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(b, "OUT", tmp_path / "out" / "linear-b.jsonl")
    for name, steps, p1, commit in (("onsets-first-s0", 3000, 0.5, "aaa"), ("onsets-first-8000-s0", 8000, 0.6, "bbb"),
                                    ("onsets-first-s1", 3000, 0.4, "aaa")):
        d = tmp_path / "cache" / name
        d.mkdir(parents=True)
        d.joinpath("metrics.json").write_text(json.dumps(
            {"steps": steps, "p_at_1": p1, "p_at_1_strict": p1 / 2, "signs_standard": 40}))
        d.joinpath("objective.json").write_text(json.dumps({"objective": -p1}))
        d.joinpath("commit.txt").write_text(commit + "\n")
    (tmp_path / "cache" / "onsets-first-8000-s0" / "continued.txt").write_text("onsets-first-s0 (3000 steps)\n")
    assert b.main(["--collect"]) == 0
    runs = [json.loads(x) for x in (tmp_path / "out" / "linear-b.jsonl").read_text().splitlines()]
    assert {(r["steps"], r["seed"], r["commit"]) for r in runs} == {(3000, 0, "aaa"), (8000, 0, "bbb"), (3000, 1, "aaa")}
    assert [r["continued_from"] for r in runs if r["steps"] == 8000] == ["onsets-first-s0 (3000 steps)"]
    summary = [json.loads(x) for x in (tmp_path / "out" / "linear-b-summary.jsonl").read_text().splitlines()]
    by_steps = {s["steps"]: s for s in summary}
    assert by_steps[3000]["seeds"] == [0, 1] and by_steps[3000]["chosen_seed"] == 0 and by_steps[3000]["commits"] == ["aaa"]
    assert by_steps[8000]["p_at_1"] == [0.6] and by_steps[8000]["commits"] == ["bbb"]


def test_onsets_first_refuses_a_setting_out_of_range_in_one_line(tmp_path, capsys):
    from benchmarks import syllable_onsets_first

    out = tmp_path / "rows.jsonl"
    assert syllable_onsets_first.main(["--out", str(out), "--lr", "0"]) == 2
    assert capsys.readouterr().err.startswith("error: setting lr:") and not out.exists()


def test_onsets_first_table_gives_each_cipher_and_the_mean_per_setting():
    from benchmarks import syllable_onsets_first

    rows = [{"cipher": c, "onsets_first": v, "p_at_1": p, "signs_right": r, "signs": 60}
            for c, v, p, r in ((0, 0.0, 0.1, 6), (0, 0.5, 0.3, 12), (1, 0.0, 0.2, 0), (1, 0.5, 0.5, 30))]
    lines = syllable_onsets_first.table(rows).splitlines()
    assert lines[2] == "| 0 | 0.100, 6/60 | 0.300, 12/60 |"
    assert lines[-1] == "| mean | 0.150, 0.05 | 0.400, 0.35 |"
    # a row with another learning rate is a column of its own (rows without one trained at 0.2)
    rows.append({"cipher": 0, "onsets_first": 0.5, "lr": 0.5, "p_at_1": 0.9, "signs_right": 50, "signs": 60})
    lines = syllable_onsets_first.table(rows).splitlines()
    assert lines[0].endswith("onsets_first 0.5, lr 0.2, 300 steps: P@1, signs right | "
                             "onsets_first 0.5, lr 0.5, 300 steps: P@1, signs right |")
    assert lines[2] == "| 0 | 0.100, 6/60 | 0.300, 12/60 | 0.900, 50/60 |" and lines[3].endswith("| 0.500, 30/60 |  |")
    # and another length too (rows without steps trained the default 300)
    rows.append({"cipher": 0, "onsets_first": 0.5, "lr": 0.5, "steps": 2000, "p_at_1": 0.7, "signs_right": 40,
                 "signs": 60})
    lines = syllable_onsets_first.table(rows).splitlines()
    assert lines[0].endswith("onsets_first 0.5, lr 0.5, 2,000 steps: P@1, signs right |")
    assert lines[2] == "| 0 | 0.100, 6/60 | 0.300, 12/60 | 0.900, 50/60 | 0.700, 40/60 |"


def test_the_screened_variant_screens_the_same_1000_steps_whatever_the_run_length():
    b = syllable_linear_b
    for steps in (3000, 8000):
        settings = dict(s.split("=") for s in b.variant_settings("screened", steps))
        assert settings["onsets_first"] == "0.5" and settings["restarts"] == "8"
        assert round(float(settings["restart_fraction"]) * steps) == 1000
        assert settings["restart_steps"] == "0"      # not the preset's screen length
    assert b.variant_settings("onsets-first", 8000) == ("onsets_first=0.5", "restarts=1", "lr=0.2")
    with pytest.raises(ValueError, match="more than 1000 steps"):
        b.variant_settings("screened", 1000)
    assert b.parse_folder("screened-8000-s0") == ("cognates", "screened", 8000, 0)


def test_collect_keeps_each_starts_objective_and_the_kept_start(tmp_path, monkeypatch):
    import json

    b = syllable_linear_b
    monkeypatch.setattr(b, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(b, "OUT", tmp_path / "out" / "linear-b.jsonl")
    d = tmp_path / "cache" / "screened-8000-s0"
    d.mkdir(parents=True)
    d.joinpath("metrics.json").write_text(json.dumps(
        {"steps": 8000, "p_at_1": 0.9, "p_at_1_strict": 0.5, "signs_standard": 60, "restarts": 3.0,
         "restart_kept": 2.0, "restart_objective_0": -0.5, "restart_objective_2": -2.5, "restart_objective_1": -0.6}))
    d.joinpath("objective.json").write_text(json.dumps({"objective": -2.6}))
    d.joinpath("commit.txt").write_text("ccc\n")
    assert b.main(["--collect"]) == 0
    [row] = [json.loads(x) for x in (tmp_path / "out" / "linear-b.jsonl").read_text().splitlines()]
    assert row["restart_objectives"] == [-0.5, -0.6, -2.5] and row["restart_kept"] == 2


def test_the_commit_helper_says_unknown_where_git_is_missing(monkeypatch):
    from benchmarks import commit

    def no_git(*args, **kwargs):
        raise FileNotFoundError("git")

    monkeypatch.setattr(commit.subprocess, "run", no_git)
    assert commit.short_commit() == "unknown"


def test_screens_are_read_from_each_screened_runs_checkpoint(tmp_path, monkeypatch):
    from engine.config import Config
    from engine.datasets.synthetic import make_cipher
    from engine.training.trainer import Trainer

    b = syllable_linear_b
    monkeypatch.setattr(b, "CACHE", tmp_path)
    c = make_cipher(n_stems=12, n_inscriptions=8, seed=1, dividers=True)
    t = Trainer(c.corpus, c.vocabulary, Config(feature_dim=4, segmented=True, min_span=3, steps=6, anneal_steps=4,
                                               eval_interval=0, restarts=3, restart_fraction=0.5), live_interval=None)
    list(t.run())
    (tmp_path / "screened-3000-s2").mkdir()
    t.save_checkpoint(tmp_path / "screened-3000-s2" / "checkpoint.pt")
    (tmp_path / "onsets-first-s2").mkdir()          # not screened: not read
    [row] = b.screen_rows()
    assert (row["variant"], row["steps"], row["seed"], row["screen_steps"]) == ("screened", 3000, 2, 3)
    assert row["objectives"] == t.selection.objectives and row["kept"] == t.selection.kept
    assert row["start_seeds"] == list(t.selection.seeds)


def test_a_screened_run_too_short_for_its_screen_is_one_line_before_any_run(tmp_path, monkeypatch, capsys):
    b = syllable_linear_b
    monkeypatch.setattr(b, "CACHE", tmp_path)
    cog = tmp_path / "c.cog"
    cog.write_text("")
    monkeypatch.setitem(b.FILES, "cognates", (cog, ""))
    monkeypatch.setattr(b, "run", lambda *a, **k: pytest.fail("no run may start"))
    assert b.main(["--variants", "screened", "--steps", "1000", "--seeds", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--steps 1000" in err[0] and "more than 1000 steps" in err[0]


def test_collect_leaves_out_a_run_stopped_before_its_last_step(tmp_path, monkeypatch):
    import json

    b = syllable_linear_b
    monkeypatch.setattr(b, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(b, "OUT", tmp_path / "out" / "linear-b.jsonl")
    for name, steps, p1 in (("onsets-first-s0", 3000, 0.5), ("screened-8000-s0", 3630, None)):
        d = tmp_path / "cache" / name
        d.mkdir(parents=True)
        d.joinpath("metrics.json").write_text(json.dumps({"steps": steps, "p_at_1": p1, "p_at_1_strict": p1,
                                                          "signs_standard": 40}))
        d.joinpath("objective.json").write_text(json.dumps({"objective": -1.0}))
        d.joinpath("commit.txt").write_text("aaa\n")
    assert b.main(["--collect"]) == 0
    runs = [json.loads(x) for x in (tmp_path / "out" / "linear-b.jsonl").read_text().splitlines()]
    assert [(r["variant"], r["steps"]) for r in runs] == [("onsets-first", 3000)]


def test_collect_keeps_the_rows_whose_run_folders_this_checkout_lacks(tmp_path, monkeypatch):
    """A new clone has no run folders: collecting must not drop the results already in the file, and a
    folder that is there replaces its row."""
    import json

    b = syllable_linear_b
    monkeypatch.setattr(b, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(b, "OUT", tmp_path / "out" / "linear-b.jsonl")
    (tmp_path / "out").mkdir()
    old = [{"file": "cognates", "variant": "onsets-first", "seed": s, "steps": 8000, "p_at_1": 0.6 + s / 100,
            "p_at_1_strict": 0.3, "signs_standard": 50, "objective": -1.0, "commit": "old"} for s in (0, 1)]
    b.OUT.write_text("".join(json.dumps(r) + "\n" for r in old))
    d = tmp_path / "cache" / "onsets-first-8000-s1"
    d.mkdir(parents=True)
    d.joinpath("metrics.json").write_text(json.dumps({"steps": 8000, "p_at_1": 0.9, "p_at_1_strict": 0.5,
                                                      "signs_standard": 60}))
    d.joinpath("objective.json").write_text(json.dumps({"objective": -2.0}))
    d.joinpath("commit.txt").write_text("new\n")
    assert b.main(["--collect"]) == 0
    runs = {r["seed"]: r for r in map(json.loads, b.OUT.read_text().splitlines())}
    assert (runs[0]["p_at_1"], runs[0]["commit"]) == (0.6, "old")
    assert (runs[1]["p_at_1"], runs[1]["commit"]) == (0.9, "new")


def _fake_survey(seed, data, window=50, settings=None, at=(500, 1000)):
    """A surveyed seed's row without training (module level: the survey's worker processes pickle it)."""
    settings = settings or {}
    from engine.config import PRESETS

    return {"seed": seed, "settings": settings, "lr": float(settings.get("lr", PRESETS["linear-b"]["lr"])),
            **{f"obj{s}": 5.0 + seed / 10 - s / 1000 for s in at}, **{f"loss{s}": 5.0 for s in at},
            **{f"onsets{s}": 20 for s in at}}


def test_start_survey_resumes_skips_surveyed_seeds_and_tables_by_the_early_objective(tmp_path, monkeypatch, capsys):
    import json

    from benchmarks import syllable_starts as st

    out = tmp_path / "starts.jsonl"
    from engine.config import PRESETS

    lr = PRESETS["linear-b"]["lr"]
    out.write_text(json.dumps({"seed": 4, "settings": {}, "lr": lr, "obj500": 4.3, "obj1000": 2.5, "loss500": 4.1,
                               "loss1000": 2.0, "onsets500": 28, "onsets1000": 50}) + "\n")
    monkeypatch.setattr("benchmarks.syllable_linear_b.data", lambda: tmp_path)
    monkeypatch.setattr(st, "survey_seed", _fake_survey)
    assert st.main(["--seeds", "4", "5", "--workers", "1", "--out", str(out)]) == 0
    assert [r["seed"] for r in st.read_rows(out)] == [4, 5]          # seed 4 was not rerun
    lines = st.table(st.read_rows(out)).splitlines()
    assert lines[4].startswith("| 4 | 4.300") and lines[5].startswith("| 5 | 5.000")   # read at 500 and 1,000
    # another learning rate is another survey: seed 4 is trained again, read where --at says
    assert st.main(["--seeds", "4", "--workers", "1", "--out", str(out), "--set", "lr=0.3", "--at", "250"]) == 0
    new = [r for r in st.read_rows(out) if r.get("settings")]
    assert [(r["seed"], r["lr"], sorted(k for k in r if k.startswith("obj"))) for r in new] == [(4, 0.3, ["obj250"])]
    text = st.table(st.read_rows(out))
    assert f'{{"lr": {lr}, "settings": {{}}}}: 2 starts' in text and '"lr": 0.3}}: 1 starts' in text
    # a row from before --set (no settings, no learning rate) trained at the paper's 0.2: a survey of its own
    assert st._key({"seed": 1}) == st._key({"settings": {}, "lr": 0.2}) != st._key({"settings": {}, "lr": lr})
    assert "| 4 | 5.150 |" in text                                    # the new survey's own table
    assert st.main(["--workers", "0", "--out", str(out)]) == 2
    assert "--workers must be at least 1" in capsys.readouterr().err
    assert st.main(["--set", "lr=-1", "--out", str(out)]) == 2
    assert capsys.readouterr().err.startswith("error: --set: setting lr:")
    assert st.main(["--at", "9000", "--out", str(out)]) == 2          # past the preset's 8,000 steps
    assert capsys.readouterr().err.startswith("error: --at 9000:")


# ------------------------------------------------------------------------------------------ reassign

def test_a_wrong_signs_donor_is_the_other_sign_most_surely_read_as_its_value():
    import numpy as np

    from benchmarks.syllable_reassign import donor

    probs = np.array([[0.9, 0.1], [0.6, 0.4], [0.2, 0.8]])
    assert donor(probs, ("o", "e"), frozenset({"o"}), 2) == (0, "o", 0.9)
    assert donor(probs, ("o", "e"), frozenset({"o"}), 0) == (1, "o", 0.6)   # never the sign itself
    assert donor(probs, ("o", "e"), frozenset({"o", "e"}), 0)[:2] == (2, "e")
    assert donor(probs, ("o", "e"), frozenset({"u"}), 0) is None


def test_reassigning_reads_the_objective_before_and_after_each_wrong_signs_own_value(tmp_path, monkeypatch):
    """A short real Linear B run: every wrong sign gets one row, its delta the objective's change, and the
    run's objective is unchanged afterwards (each move is undone)."""
    from benchmarks import syllable_reassign
    from engine.cli.main import main as decipher

    cog = syllable_linear_b.COG
    if not cog.exists():
        pytest.skip(f"needs the Linear B cognates ({cog}; ../shared/data)")
    data = tmp_path / "data"
    assert decipher(["import-cog", str(cog), "--system", "greek", "--out", str(data)]) == 0
    run = tmp_path / "onsets-first-20-s0"
    assert decipher(["run", "--lost", str(data / "lost.csv"), "--known", str(data / "known.csv"), "--gold",
                     str(data / "gold.csv"), "--preset", "linear-b", "--steps", "20", "--seed", "0", "--out",
                     str(run), "--quiet"]) == 0
    monkeypatch.setattr(syllable_reassign, "CACHE", tmp_path)
    rows = syllable_reassign.reassign_seed(0, 20, log=lambda _: None)
    *one, every = rows
    assert every["move"] == "every wrong sign" and every["signs_with_standard"] == 70
    assert len(one) == 70 - every["signs_standard"] > 0          # 20 steps leave most signs wrong
    assert {r["objective_before"] for r in rows} == {every["objective_before"]}
    for r in rows:
        assert r["delta"] == pytest.approx(r["objective_after"] - r["objective_before"], abs=2e-6)
    assert all(r["parts"] in ("onset", "vowel", "onset+vowel") for r in one)
    assert all(r["lowers"] == (r["objective_after"] < r["objective_before"]) for r in one)
    again = syllable_reassign.reassign_seed(0, 20, log=lambda _: None)
    assert again == rows                                           # the moves were undone: the same again
    md = syllable_reassign.table(rows)
    assert md.splitlines()[2].startswith(f"| 0 | {every['signs_standard']} | {every['objective_before']:.3f} |")


def test_reassigning_without_the_run_is_one_line(tmp_path, monkeypatch, capsys):
    from benchmarks import syllable_reassign

    monkeypatch.setattr(syllable_reassign, "CACHE", tmp_path)
    assert syllable_reassign.main(["--seeds", "7", "--out", str(tmp_path / "r.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no onsets-first-8000 run of seed 7" in err
    assert not (tmp_path / "r.jsonl").exists()
