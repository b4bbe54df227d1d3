"""``decipher closeness --score objective`` (issue 49, "closeness on the test ciphers"): a run scored by minus
its final training objective, and "closer than chance" then also needing the reference check's margin;
with a fake run function, so no training."""

from __future__ import annotations

import csv
import json
import random

import pytest

from engine.closeness.comparison import (CLOSER, NO_EVIDENCE, SLIGHT, CandidateRun, PlanItem, answer_lines,
                                         check_score, compare, holm_verdict, min_margin, plan_comparison, score_of)
from engine.config import Config
from engine.errors import DecipherError
from engine.training.reference import REFERENCE_MARGIN
from tests.engine.test_closeness import LOST, _candidates

#: each candidate's objective (lower is better) and its nulls'; the area runs the other way round, so a
#: test that passes reads the objective, not the curve
OBJECTIVES = {"near": -4.0, "mid": -2.5, "far": -2.0}
NULL_OBJECTIVE = -2.0
AREAS = {"near": 0.20, "mid": 0.30, "far": 0.40}


def objective_run(item: PlanItem) -> CandidateRun:
    noise = random.Random(f"{item.known}:{item.null}:{item.seed}").uniform(-0.05, 0.05)
    objective = (NULL_OBJECTIVE if item.null is not None else OBJECTIVES[item.known]) + noise
    area = 0.22 if item.null is not None else AREAS[item.known]
    curve = tuple((1 - p / 40, 2 * area * (p / 40)) for p in range(41))
    return CandidateRun(curve, 2 * area, item.config.steps, 0.5, objective=objective)


CONFIG = Config(min_span=3, max_span=8)


def test_the_objective_decides_the_ranking_and_a_small_margin_is_not_closer(tmp_path):
    out = tmp_path / "cmp"
    result = compare(LOST, _candidates(), seeds=(0, 1, 2), n_null=3, config=CONFIG, run_fn=objective_run, out=out,
                     score="objective")
    by = {s.known: s for s in result.summaries}
    assert [s.known for s in result.summaries] == ["near", "mid", "far"]      # by margin of the objective
    assert by["near"].margin == pytest.approx(2.0, abs=0.1) and by["near"].verdict == CLOSER
    # mid fits better than its nulls beyond doubt (p tiny), but by 0.5, below the reference margin
    assert by["mid"].p_holm < 0.01 and by["mid"].margin < REFERENCE_MARGIN and by["mid"].verdict == SLIGHT
    assert by["far"].verdict == NO_EVIDENCE
    # the same runs by the area score: the other order, and mid's small margin is "closer than chance"
    area = compare(LOST, _candidates(), seeds=(0, 1, 2), n_null=3, config=CONFIG, run_fn=objective_run)
    assert [s.known for s in area.summaries] == ["far", "mid", "near"]
    assert {s.known: s.verdict for s in area.summaries}["mid"] == CLOSER
    text = (out / "answer.txt").read_text(encoding="utf-8")
    assert "(score: minus the final training objective)" in text
    assert f"by at least {REFERENCE_MARGIN:g}" in text and SLIGHT in text
    info = json.loads((out / "comparison.json").read_text(encoding="utf-8"))
    assert info["score_kind"] == "objective" and f"margin at least {REFERENCE_MARGIN:g}" in info["verdict_rule"]
    with open(out / "runs.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert all(float(r["score"]) == pytest.approx(-float(r["objective"]), abs=1e-5) for r in rows)
    assert "minus the final training objective" not in "\n".join(answer_lines(area))
    from engine.closeness.plot import figure_spec

    labels = [x["label"] for x in figure_spec(result)["series"]]
    assert all("\u2212objective " in lb for lb in labels)       # the number beside a curve is not its area
    assert not any("objective" in x["label"] for x in figure_spec(area)["series"])


def test_a_run_without_an_objective_is_a_failed_run_not_a_score():
    def run(item):
        r = objective_run(item)
        return r if (item.known, item.null, item.seed) != ("mid", None, 1) else CandidateRun(r.curve, r.coverage,
                                                                                             r.steps, r.wall_s)
    failures = []
    from engine.closeness.comparison import run_plan, summarise

    plan = plan_comparison(LOST, _candidates(), seeds=(0, 1, 2), n_null=2, config=CONFIG, score="objective")
    records = run_plan(plan, run, failures=failures)
    assert len(failures) == 1 and "no final training objective" in failures[0][1]
    assert {s.known: s.n_seeds for s in summarise(plan, records, failures).summaries}["mid"] == 2


def test_the_score_is_checked_and_the_objective_takes_no_early_stop():
    assert check_score("area") == "area" and check_score("objective") == "objective"
    with pytest.raises(DecipherError, match="must be one of area, objective, got 'coverage'"):
        plan_comparison(LOST, _candidates(), config=CONFIG, score="coverage")
    with pytest.raises(DecipherError, match="early stop cannot be used with the objective score"):
        plan_comparison(LOST, _candidates(), config=CONFIG, score="objective", early_stop=0.05)
    assert min_margin("area") == 0.0 and min_margin("objective") == REFERENCE_MARGIN
    r = objective_run(plan_comparison(LOST, _candidates(), config=CONFIG).items[0])
    assert score_of(r, "objective") == -r.objective and 0 < score_of(r, "area") < 1


@pytest.mark.parametrize("p, margin, least, verdict", [
    (0.01, 2.0, 1.0, CLOSER), (0.01, 0.5, 1.0, SLIGHT), (0.01, float("nan"), 1.0, SLIGHT),
    (0.2, 2.0, 1.0, NO_EVIDENCE), (0.01, 0.5, 0.0, CLOSER), (0.01, 1.0, 1.0, CLOSER)])
def test_the_verdict_with_a_least_margin(p, margin, least, verdict):
    assert holm_verdict(p, 9, margin, least) == verdict


def test_an_objective_comparison_is_not_appended_to_the_area_results(tmp_path):
    from engine.closeness.runs import append_results

    result = compare(LOST, _candidates(), seeds=(0, 1), n_null=2, config=CONFIG, run_fn=objective_run,
                     score="objective")
    with pytest.raises(DecipherError, match="holds area scores; this comparison's score is objective"):
        append_results(tmp_path / "closeness.csv", "lost", result)
    assert not (tmp_path / "closeness.csv").exists()
