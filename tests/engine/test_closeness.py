"""Closeness comparisons without training: the score of a curve, null and matched vocabularies,
the plan, the statistics and the files, with a fake run function."""

from __future__ import annotations

import csv
import math
import random
from collections import Counter

import numpy as np
import pytest

from engine.closeness.curve import closeness_curve, closeness_score, coverage_at
from engine.closeness.comparison import (CLOSER, NO_EVIDENCE, TOO_FEW, UNTESTED, PlanItem, ScoredRun, CandidateRun, as_result,
                               compare, decoding_agreement, empirical_p, keep_best_restarts, mapping_agreement,
                               plan_comparison, pooled_sd, restart_seed, summarise, z_score)
from engine.config import Config
from engine.corpus import Corpus, Inscription, Stem, Vocabulary
from engine.errors import DecipherError
from engine.closeness.vocab_sizes import match_vocabularies
from engine.closeness.nulls import null_vocabularies, null_vocabulary, unit_counts
from engine.model.syllables import is_vowel
from engine.model.phonology import ipa_units
from engine.results import Alternative, Match


# ---- the score ---------------------------------------------------------------------------------

def test_score_of_a_hand_made_curve():
    # coverage 0.8 up to confidence 0.5, then falling linearly to 0 at confidence 1:
    # area = 0.5 * 0.8 + 0.5 * 0.8 / 2 = 0.6
    curve = [(1 - p / 40, min(0.8, 0.8 * (1 - p / 40) / 0.5 if p < 20 else 0.8)) for p in range(41)]
    curve = [(c, 0.8 if c <= 0.5 else 0.8 * (1 - c) / 0.5) for c, _ in curve]
    assert closeness_score(curve) == pytest.approx(0.6)
    assert coverage_at(curve, 0.75) == pytest.approx(0.4)
    assert coverage_at(curve) == pytest.approx(0.8)
    # a step curve from three points, extended flat to both ends
    assert closeness_score([(0.25, 0.5), (0.75, 0.5)]) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="outside"):
        closeness_score([(0.5, 1.5)])


def test_score_is_the_confidence_weighted_coverage_and_orders_curves_as_they_lie():
    def match(start, end, conf):
        return Match("a", start, end, "x" * (end - start), (Alternative(1, "f", "f", 0.0),), conf)

    matches = [match(0, 4, 0.9), match(4, 10, 0.3), match(10, 12, 0.6)]
    exact = (4 * 0.9 + 6 * 0.3 + 2 * 0.6) / 20
    fine = closeness_score(closeness_curve(matches, 20, points=2001))
    assert fine == pytest.approx(exact, abs=1e-3)
    assert closeness_score(closeness_curve(matches, 20)) == pytest.approx(exact, abs=0.02)
    # a curve that lies above another everywhere scores higher
    better = [match(0, 4, 0.95), match(4, 10, 0.4), match(10, 12, 0.6)]
    assert closeness_score(closeness_curve(better, 20)) > closeness_score(closeness_curve(matches, 20))


# ---- null vocabularies -------------------------------------------------------------------------

def _vocab(name="cand", n=40, seed=1):
    rng = random.Random(seed)
    cons, vows = ["p", "t", "k", "m", "n", "s", "t͡ʃ", "ʔ", "kʰ"], ["a", "i", "u", "e"]
    stems, seen = [], set()
    while len(stems) < n:
        units = [rng.choice(cons) if i % 2 == 0 else rng.choice(vows) for i in range(rng.randint(3, 8))]
        ipa = "".join(units)
        if ipa not in seen:
            seen.add(ipa)
            stems.append(Stem(f"w{len(stems)}", ipa, "gloss"))
    return Vocabulary(name, tuple(stems))


@pytest.mark.parametrize("mode", ["skeleton", "across", "within"])
def test_nulls_keep_size_lengths_and_unit_counts(mode):
    vocab = _vocab()
    nulls = null_vocabularies(vocab, 4, seed=7, mode=mode)
    for null in nulls:
        assert len(null.stems) == len(vocab.stems)
        assert [len(ipa_units(s.ipa)) for s in null.stems] == [len(ipa_units(s.ipa)) for s in vocab.stems]
        assert unit_counts(null.stems) == unit_counts(vocab.stems)
        assert len({s.ipa for s in null.stems}) == len(vocab.stems)  # no accidental duplicates
        if mode == "skeleton":
            assert [[is_vowel(u) for u in ipa_units(a.ipa)] for a in null.stems] == \
                [[is_vowel(u) for u in ipa_units(b.ipa)] for b in vocab.stems]
        if mode == "within":
            assert [Counter(ipa_units(a.ipa)) for a in null.stems] == [Counter(ipa_units(b.ipa)) for b in vocab.stems]
        # the words themselves are gone (a few may survive by chance)
        same = sum(a.ipa == b.ipa for a, b in zip(null.stems, vocab.stems))
        assert same <= len(vocab.stems) // 4
    assert len({tuple(s.ipa for s in n.stems) for n in nulls}) == 4  # distinct nulls


def test_nulls_are_deterministic_by_seed():
    vocab = _vocab()
    assert null_vocabulary(vocab, 3, 1) == null_vocabulary(vocab, 3, 1)
    assert null_vocabulary(vocab, 3, 1) != null_vocabulary(vocab, 4, 1)
    assert null_vocabulary(vocab, 3, 1) != null_vocabulary(vocab, 3, 2)
    with pytest.raises(ValueError, match="unknown null mode"):
        null_vocabulary(vocab, 0, mode="sideways")


# ---- matched vocabularies ----------------------------------------------------------------------

def test_matching_samples_every_candidate_to_the_smallest_within_the_length_limits():
    big, small = _vocab("big", 60, 1), _vocab("small", 25, 2)
    m = match_vocabularies({"big": big, "small": small}, min_units=4, max_units=7, seed=0)
    usable_small = sum(1 for s in small.stems if 4 <= len(ipa_units(s.ipa)) <= 7)
    assert m.size == usable_small
    for name, v in m.vocabularies.items():
        assert len(v.stems) == m.size
        assert all(4 <= len(ipa_units(s.ipa)) <= 7 for s in v.stems)
    assert set(m.vocabularies["big"].stems) <= set(big.stems)
    assert f"sampled to {m.size} stems (the smallest candidate's size) of 4–7 IPA units" in m.describe()
    again = match_vocabularies({"big": big, "small": small}, min_units=4, max_units=7, seed=0)
    assert again.vocabularies == m.vocabularies
    other = match_vocabularies({"big": big, "small": small}, min_units=4, max_units=7, seed=1)
    assert other.vocabularies["big"] != m.vocabularies["big"]


def test_matching_to_a_given_size_and_its_errors():
    big, small = _vocab("big", 60, 1), _vocab("small", 25, 2)
    m = match_vocabularies({"big": big, "small": small}, stems=10, min_units=3, max_units=8)
    assert m.size == 10 and all(len(v.stems) == 10 for v in m.vocabularies.values())
    assert "the size asked for" in m.describe()
    with pytest.raises(DecipherError, match=r"fewer .* small \(25\)"):
        match_vocabularies({"big": big, "small": small}, stems=30, min_units=3, max_units=8)
    with pytest.raises(DecipherError, match="'big' has no stem of 9–12 IPA units"):
        match_vocabularies({"big": big, "small": small}, min_units=9, max_units=12)


def test_a_cap_cuts_each_candidate_on_its_own_and_a_shorter_one_keeps_all():
    """The paper's Gothic lists: 600 stems where a list has them, all of a shorter one (Old Norse's)."""
    big, small = _vocab("big", 60, 1), _vocab("small", 25, 2)
    usable = {n: sum(1 for s in v.stems if 3 <= len(ipa_units(s.ipa)) <= 8) for n, v in (("big", big), ("small", small))}
    cap = usable["small"] + 5
    assert usable["big"] > cap
    m = match_vocabularies({"big": big, "small": small}, min_units=3, max_units=8, cap=cap)
    assert len(m.vocabularies["big"].stems) == cap and len(m.vocabularies["small"].stems) == usable["small"]
    assert m.capped and m.size == cap and m.size_text == f"at most {cap} stems each"
    assert "at most" in m.describe() and "each on its own" in m.describe()
    # the same sample as one size for all where the sizes agree: a candidate's sample is its own
    one = match_vocabularies({"big": big, "other": big}, stems=cap, min_units=3, max_units=8)
    assert one.vocabularies["big"] == m.vocabularies["big"] and one.size_text == f"{cap} stems each"
    with pytest.raises(DecipherError, match="cannot both be given"):
        match_vocabularies({"big": big, "small": small}, stems=10, cap=10)
    with pytest.raises(DecipherError, match="--cap-stems must be a positive number"):
        match_vocabularies({"big": big, "small": small}, cap=0)


# ---- statistics --------------------------------------------------------------------------------

def test_z_p_and_verdicts_on_hand_made_numbers():
    assert z_score(0.5, 0.3, 0.1) == pytest.approx(2.0)
    assert z_score(0.3, 0.3, 0.0) == 0.0 and z_score(0.4, 0.3, 0.0) == math.inf
    assert math.isnan(z_score(0.4, math.nan, math.nan))
    assert empirical_p(0.5, [0.1, 0.2, 0.6]) == pytest.approx(2 / 4)
    assert empirical_p(0.9, [0.1, 0.2, 0.6]) == pytest.approx(1 / 4)


def test_agreement_signals():
    a = CandidateRun(((0, 1), (1, 0)), 0.5, 1, 0.1, np.array([[1, 0], [0.5, 0.5]]), ("<DEL>", "a"),
                  (("x", 0, 4, "pata"), ("x", 4, 8, "kimu")))
    b = CandidateRun(((0, 1), (1, 0)), 0.5, 1, 0.1, np.array([[1, 0], [0.9, 0.1]]), ("<DEL>", "a"),
                  (("x", 0, 4, "pata"), ("x", 4, 10, "kimu")))
    assert mapping_agreement(a, b, {"a": 1.0}) == pytest.approx(0.6)
    assert mapping_agreement(a, a, {"a": 1.0}) == pytest.approx(1.0)
    assert decoding_agreement(a, b) == pytest.approx(4 / 9)


# ---- a whole comparison with a fake run --------------------------------------------------------

LOST = Corpus("lost", (Inscription("1", "abcabc", raw="abcabc"),))
#: the area each fake candidate reaches: real runs and null runs
LEVELS = {"near": 0.40, "mid": 0.30, "far": 0.22}
NULL_LEVEL = 0.22


def fake_run(item: PlanItem) -> tuple:
    level = NULL_LEVEL if item.null is not None else LEVELS[item.known]
    # a little seeded noise, so the spreads are not zero
    level += random.Random(f"{item.known}:{item.null}:{item.seed}").uniform(-0.01, 0.01)
    curve = [(1 - p / 40, 2 * level * (p / 40)) for p in range(41)]  # area = level
    return curve, 2 * level, item.config.steps, 0.5


def _candidates():
    return {"far": _vocab("far", 30, 3), "near": _vocab("near", 30, 4), "mid": _vocab("mid", 30, 5)}


def test_compare_orders_best_first_and_gives_verdicts(tmp_path):
    calls = []

    def run(item):
        calls.append(item)
        return fake_run(item)

    out = tmp_path / "cmp"
    result = compare(LOST, _candidates(), seeds=(0, 1, 2), n_null=3, steps=7, config=Config(min_span=3, max_span=8),
                     run_fn=run, out=out)
    # every candidate × seed, plus every candidate × null × seed; real runs first
    assert len(calls) == 3 * 3 + 3 * 3 * 3
    assert all(c.null is None for c in calls[:9]) and all(c.null is not None for c in calls[9:])
    assert {c.config.steps for c in calls} == {7}
    assert {len(c.vocabulary.stems) for c in calls} == {result.plan.matching.size}
    assert [s.known for s in result.summaries] == ["near", "mid", "far"]
    verdicts = {s.known: s.verdict for s in result.summaries}
    assert verdicts == {"near": CLOSER, "mid": CLOSER, "far": NO_EVIDENCE}
    with open(out / "runs.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0])[:7] == ["known", "seed", "null", "score", "coverage", "steps", "wall_s"]
    assert len(rows) == 36 and {r["null"] for r in rows[:9]} == {""} and rows[9]["null"] == "0"
    with open(out / "summary.csv", encoding="utf-8") as f:
        summary = list(csv.DictReader(f))
    assert list(summary[0])[:7] == ["known", "score_mean", "score_sd", "null_mean", "null_sd", "z", "verdict"]
    assert [r["known"] for r in summary] == ["near", "mid", "far"]
    assert float(summary[0]["score_mean"]) == pytest.approx(0.40, abs=0.011)
    assert float(summary[0]["z"]) > 2 > float(summary[2]["z"])
    assert (out / "comparison.json").exists() and (out / "curves.csv").exists()
    png = out / "closeness.png"  # PySide6 and pyqtgraph are dependencies: it is always drawn
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_figure_is_drawn_by_the_apps_package_and_qt_never_loads_in_the_engines_process(tmp_path):
    """engine/ never imports Qt: closeness.png is described as data (figure_spec) and drawn by
    ``python -m decipher_gui.figure`` in a process of its own."""
    import json
    import subprocess
    import sys

    from engine.closeness.plot import figure_spec

    out = tmp_path / "cmp"
    code = ("import sys; from pathlib import Path; from tests.engine.test_closeness import LOST, _candidates, fake_run; "
            "from engine.closeness.comparison import compare; from engine.config import Config; "
            "compare(LOST, _candidates(), seeds=(0, 1), n_null=2, steps=7, config=Config(min_span=3, max_span=8), "
            f"run_fn=fake_run, out=Path({str(out)!r})); "
            "print(sorted({m.split('.')[0] for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph'))}))")
    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"  # neither loaded where the comparison ran
    png = out / "closeness.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list(out.glob("*.part.png"))
    # the description is plain data: every candidate with its colour, curves and legend line
    result = compare(LOST, _candidates(), seeds=(0, 1), n_null=2, steps=7, config=Config(min_span=3, max_span=8),
                     run_fn=fake_run)
    spec = json.loads(json.dumps(figure_spec(result, width=800)))
    assert (spec["width"], spec["height"]) == (800, 480)
    assert [s["name"] for s in spec["series"]] == [s.known for s in result.summaries]
    assert all(len(s["x"]) == len(s["mean"]) == len(s["lo"]) == len(s["hi"]) and s["own_null"] for s in spec["series"])
    assert all("margin" in s["label"] and s["colour"].startswith("#") for s in spec["series"])
    assert spec["band"] is not None and 0.05 <= spec["ymax"] <= 1.0


def test_a_figure_that_cannot_be_drawn_is_one_note_and_the_csvs_are_written(tmp_path, capsys):
    out = tmp_path / "cmp"
    (out / "closeness.png").mkdir(parents=True)  # a folder where the file should go
    compare(LOST, _candidates(), seeds=(0, 1), n_null=2, steps=7, config=Config(min_span=3, max_span=8),
            run_fn=fake_run, out=out)
    err = capsys.readouterr().err
    assert "note: closeness.png not drawn" in err and "cannot write the file (it is a folder)" in err, err
    assert (out / "summary.csv").exists() and (out / "runs.csv").exists()


def test_without_nulls_the_verdict_says_so():
    result = compare(LOST, _candidates(), seeds=(0, 1), n_null=0, config=Config(min_span=3, max_span=8),
                     run_fn=fake_run)
    assert {s.verdict for s in result.summaries} == {UNTESTED}
    assert [s.known for s in result.summaries] == ["near", "mid", "far"]


def test_one_null_run_is_too_few_for_a_verdict():
    """A single null run has no spread: z was ±inf and the verdict "closer than chance" (seen on the
    Iberian comparison at --seeds 0 --null 1)."""
    result = compare(LOST, _candidates(), seeds=(0,), n_null=1, config=Config(min_span=3, max_span=8),
                     run_fn=fake_run)
    assert {s.verdict for s in result.summaries} == {TOO_FEW}
    assert all(math.isnan(s.z) and math.isnan(s.null_sd) for s in result.summaries)


def test_a_candidate_file_that_fails_stops_nothing_else(tmp_path):
    bad = tmp_path / "broken.csv"
    bad.write_text("form,ipa\npata,pa☃ta\n", encoding="utf-8")
    good = tmp_path / "good.csv"
    good.write_text("form,ipa\n" + "".join(f"{s.form},{s.ipa}\n" for s in _vocab("g", 20, 9).stems),
                    encoding="utf-8")
    cands = {"near": _vocab("near", 30, 4), "good": good, "broken": bad}
    result = compare(LOST, cands, seeds=(0,), n_null=1, config=Config(min_span=3, max_span=8),
                     run_fn=lambda item: fake_run(item) if item.known != "good" else fake_run(
                         PlanItem("mid", item.seed, item.null, item.lost, item.vocabulary, item.config)))
    assert set(result.plan.failures) == {"broken"}
    assert "broken.csv, line 2" in result.plan.failures["broken"]
    assert [s.known for s in result.summaries] == ["near", "good"]


def test_fewer_than_two_candidates_is_a_clear_error(tmp_path):
    with pytest.raises(DecipherError, match="at least two candidate languages"):
        plan_comparison(LOST, {"one": _vocab()})
    bad = tmp_path / "bad.csv"
    bad.write_text("nothing here\n", encoding="utf-8")
    with pytest.raises(DecipherError, match="at least two usable candidates; 1 of 2"):
        plan_comparison(LOST, {"one": _vocab(), "bad": bad})


def test_a_failing_run_is_reported_and_the_rest_go_on():
    def run(item):
        if item.known == "mid" and item.null is None and item.seed == 1:
            raise FloatingPointError("the loss became nan at step 3")
        return fake_run(item)

    result = compare(LOST, _candidates(), seeds=(0, 1), n_null=2, config=Config(min_span=3, max_span=8),
                     run_fn=run)
    assert [(i.known, i.seed) for i, _ in result.run_failures] == [("mid", 1)]
    mid = next(s for s in result.summaries if s.known == "mid")
    assert mid.n_seeds == 1 and mid.n_null_runs == 4


# ---- restarts ----------------------------------------------------------------------------------

def test_restarts_plan_the_same_sub_seeds_for_candidates_and_their_nulls():
    one = plan_comparison(LOST, _candidates(), seeds=(0, 1), n_null=2, config=Config(min_span=3, max_span=8))
    three = plan_comparison(LOST, _candidates(), seeds=(0, 1), n_null=2, config=Config(min_span=3, max_span=8),
                            restarts=3)
    assert three.restarts == 3 and len(three.items) == 3 * len(one.items)
    # restart 0 is exactly the run without restarts
    assert [i for i in three.items if i.restart == 0] == one.items
    sub = {}
    for i in three.items:
        sub.setdefault((i.known, i.null), set()).add((i.seed, i.restart, i.config.seed))
    assert len(set(map(frozenset, sub.values()))) == 1  # every candidate and every null: the same trainings
    train_seeds = [s for s in next(iter(sub.values()))]
    assert len({t for _, _, t in train_seeds}) == 6  # no restart repeats another seed's training
    assert restart_seed(5, 0) == 5 and restart_seed(5, 1) == restart_seed(5, 1) != restart_seed(6, 1)
    assert all(0 <= restart_seed(s, r) < 2 ** 32 for s in range(5) for r in range(5))


@pytest.mark.parametrize("bad", [0, -1, 51, 1.5, True])
def test_restarts_are_range_checked(bad):
    with pytest.raises(DecipherError, match="restarts per seed must be a whole number from 1 to 50"):
        plan_comparison(LOST, _candidates(), restarts=bad)


def _rec(known, null, seed, restart, score, objective):
    item = PlanItem(known, seed, null, LOST, _vocab(), Config(seed=restart_seed(seed, restart)), restart)
    curve = tuple((1 - p / 40, 2 * score * (p / 40)) for p in range(41))
    return ScoredRun(item, CandidateRun(curve, 0.5, 10, 1.0, objective=objective), score)


def test_the_restart_with_the_lowest_objective_is_kept_not_the_best_score():
    # the objective alone decides: here the lowest objective has the lowest score (gold is nowhere)
    records = [_rec("a", None, 0, 0, 0.30, -2.0), _rec("a", None, 0, 1, 0.10, -5.0), _rec("a", None, 0, 2, 0.20, -3.0),
               _rec("a", 0, 0, 0, 0.25, -1.0), _rec("a", 0, 0, 1, 0.15, -4.0),  # a null: the same rule
               _rec("a", None, 1, 0, 0.20, None), _rec("a", None, 1, 1, 0.12, math.nan),  # none: the first restart
               _rec("a", None, 2, 0, 0.20, None), _rec("a", None, 2, 1, 0.11, -1.0)]   # a missing one counts as worst
    kept = {r.item.key: r for r in keep_best_restarts(records)}
    assert {k: (r.item.restart, r.restarts) for k, r in kept.items()} == {
        ("a", -1, 0): (1, 3), ("a", 0, 0): (1, 2), ("a", -1, 1): (0, 2), ("a", -1, 2): (1, 2)}
    assert kept[("a", -1, 0)].score == 0.10 and kept[("a", 0, 0)].score == 0.15
    # ties go to the lower restart, whatever order the records come in
    tie = [_rec("a", None, 0, 1, 0.2, -3.0), _rec("a", None, 0, 0, 0.1, -3.0)]
    assert keep_best_restarts(tie)[0].item.restart == 0


def _objective_run(item: PlanItem) -> CandidateRun:
    """A fake run whose objective is lowest on restart 1 for every candidate and null alike, and whose
    score says which restart it was (restart 1: the candidate's level, others: 0.1)."""
    base = as_result(fake_run(item))
    score = base.coverage / 2 if item.restart == 1 else 0.1
    curve = tuple((1 - p / 40, 2 * score * (p / 40)) for p in range(41))
    return CandidateRun(curve, base.coverage, base.steps, base.wall_s, objective=-1.0 - (item.restart == 1))


def test_a_comparison_with_restarts_summarises_the_kept_runs_and_writes_every_training(tmp_path):
    out = tmp_path / "cmp"
    calls = []

    def run(item):
        calls.append(item)
        return _objective_run(item)

    result = compare(LOST, _candidates(), seeds=(0, 1, 2), n_null=3, config=Config(min_span=3, max_span=8),
                     run_fn=run, out=out, restarts=3)
    assert len(calls) == 3 * 3 * (1 + 3) * 3 and len(result.trainings) == len(calls)
    assert len(result.records) == 3 * 3 * (1 + 3) and {r.item.restart for r in result.records} == {1}
    # the same as the comparison without restarts, whose runs are the restarts kept here
    plain = compare(LOST, _candidates(), seeds=(0, 1, 2), n_null=3, config=Config(min_span=3, max_span=8),
                    run_fn=fake_run)
    assert [(s.known, s.verdict) for s in result.summaries] == [(s.known, s.verdict) for s in plain.summaries]
    for a, b in zip(result.summaries, plain.summaries):
        assert a.score_mean == pytest.approx(b.score_mean, abs=1e-3) and a.n_seeds == 3 and a.n_null_runs == 9
    with open(out / "runs.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 36 and {(r["restart"], r["restarts"], r["objective"]) for r in rows} == {("1", "3", "-2.0")}
    with open(out / "restarts.csv", encoding="utf-8") as f:
        trainings = list(csv.DictReader(f))
    assert len(trainings) == 108 and sum(r["kept"] == "1" for r in trainings) == 36
    assert all((r["kept"] == "1") == (r["restart"] == "1") for r in trainings)


def test_appending_a_kept_restart_over_another_run_of_the_seed_says_so(tmp_path):
    """The results file has no restarts column: a seed's kept run from --restarts 2 cannot be told
    from the run of --restarts 1 already there, so it is not added, but no longer silently."""
    from engine.closeness.runs import append_results

    config = Config(min_span=3, max_span=8)
    one = compare(LOST, _candidates(), seeds=(0, 1), n_null=1, config=config, run_fn=_objective_run)
    two = compare(LOST, _candidates(), seeds=(0, 1), n_null=1, config=config, run_fn=_objective_run, restarts=2)
    assert {r.item.restart for r in two.records} == {1}
    path = tmp_path / "closeness.csv"
    assert append_results(path, "lost", one) == len(one.records) == 12
    conflicts: list[str] = []
    assert append_results(path, "lost", two, conflicts=conflicts) == 0
    differ = [r for r, s in zip(two.records, one.records) if f"{r.score:.6f}" != f"{s.score:.6f}"]
    assert differ and len(conflicts) == len(differ)
    assert all(" there, " in c and " now" in c for c in conflicts)
    again: list[str] = []
    assert append_results(path, "lost", one, conflicts=again) == 0 and again == []   # the same runs: nothing to say


def test_pooled_sd_over_groups():
    assert pooled_sd([[1.0, 3.0], [10.0, 10.0, 13.0], [7.0]]) == pytest.approx(math.sqrt((2 + 6) / 3))
    assert math.isnan(pooled_sd([[1.0], [2.0]])) and math.isnan(pooled_sd([]))


def test_a_null_spread_near_zero_by_chance_does_not_make_a_verdict():
    """Two null runs of one candidate that happen to agree to 1e-4 gave z = 134 and "closer than
    chance" (Iberian, Basque): z divides by the larger of the candidate's own null sd and the sd
    pooled over every candidate's nulls."""
    plan = plan_comparison(LOST, {"a": _vocab("a", 30, 3), "b": _vocab("b", 30, 4)}, seeds=(0,), n_null=2,
                           config=Config(min_span=3, max_span=8))
    records = [_rec("a", None, 0, 0, 0.23, -1.0), _rec("a", 0, 0, 0, 0.2000, -1.0), _rec("a", 1, 0, 0, 0.2001, -1.0),
               _rec("b", None, 0, 0, 0.30, -1.0), _rec("b", 0, 0, 0, 0.18, -1.0), _rec("b", 1, 0, 0, 0.22, -1.0)]
    by = {s.known: s for s in summarise(plan, records).summaries}
    pooled = pooled_sd([[0.2000, 0.2001], [0.18, 0.22]])
    assert by["a"].null_sd_own == pytest.approx(math.sqrt(0.5) * 1e-4)
    assert by["a"].null_sd_pooled == by["b"].null_sd_pooled == pytest.approx(pooled)
    assert by["a"].null_sd == pytest.approx(pooled)                  # its own sd alone: z about 424
    assert by["a"].z == pytest.approx((0.23 - 0.20005) / pooled) and by["a"].verdict == NO_EVIDENCE
    assert by["b"].null_sd == pytest.approx(by["b"].null_sd_own)     # its own sd is the larger
    assert by["b"].z == pytest.approx(0.10 / by["b"].null_sd_own) and by["b"].z > 2  # the old rule: closer
    # the rule of issue 26 counts the uncertainty of both means: one seed against two nulls is t 2.9 with
    # 1 degree of freedom, one-sided p 0.11: no evidence
    assert by["b"].df == 1 and by["b"].margin_se == pytest.approx(by["b"].null_sd * math.sqrt(1 + 1 / 2))
    assert by["b"].p_t > 0.05 and by["b"].verdict == NO_EVIDENCE
