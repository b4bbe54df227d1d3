"""The early stop of settled null runs (issue 31 item 3, docs/closeness.md "Early stop"): the rule stops a
clearly settled null and not an unsettled one, a candidate's own run never gets a rule, the stop is
recorded and kept on resume, a changed gap changes the null runs' folders, and bad settings are one line."""

from __future__ import annotations

import csv
import json
import math
import random
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine.closeness.comparison import (CLOSER, NO_EVIDENCE, PlanItem, caveats, compare, early_stop_unsure,
                                         plan_comparison)
from engine.closeness.early_stop import StopRule, StopSink, check_gap, checkpoint_steps, settled
from engine.config import Config
from engine.corpus import Corpus, Inscription, Stem, Vocabulary
from engine.errors import DecipherError

# ---- the rule ----------------------------------------------------------------------------------


def test_the_rule_stops_a_clearly_settled_null_and_not_an_unsettled_one():
    seeds = [0.50, 0.62, 0.55]
    assert settled(0.20, seeds, 3, gap=0.1)          # 0.30 below the lowest seed
    assert settled(0.39, seeds, 3, gap=0.1)          # just more than the gap below it
    assert not settled(0.41, seeds, 3, gap=0.1)      # just less than the gap below the lowest seed
    assert not settled(0.20, [0.50, 0.62], 3, gap=0.1)  # a seed of the candidate has not finished
    assert not settled(0.20, seeds, 3, gap=0.0)      # off
    assert not settled(math.nan, seeds, 3, gap=0.1)
    assert not settled(0.20, [0.5, math.nan, 0.6], 3, gap=0.1)


def test_checkpoints_are_a_third_and_two_thirds_of_the_steps():
    assert checkpoint_steps(200) == (67, 133)
    assert checkpoint_steps(3000) == (1000, 2000)
    assert checkpoint_steps(3) == (1, 2)
    assert checkpoint_steps(2) == (1,) and checkpoint_steps(1) == ()


@pytest.mark.parametrize("bad", [-0.01, 1.5, math.nan, True, "0.1"])
def test_the_gap_is_range_checked(bad):
    with pytest.raises(DecipherError, match="early stop's gap must be a number from 0"):
        check_gap(bad)


class FakeTrainer:
    """Scores a fixed closeness score at each step (a flat curve: its area is the score)."""

    def __init__(self, scores: dict[int, float]):
        self.scores, self.step, self.stop_requested = scores, 0, False
        self.selection = None

    def evaluate(self):
        v = self.scores[self.step]
        return SimpleNamespace(closeness=((0.0, v), (1.0, v)))

    def request_stop(self):
        self.stop_requested = True


def _drive(sink: StopSink, trainer: FakeTrainer, steps: int) -> None:
    sink.started(SimpleNamespace(trainer=trainer))
    for step in range(1, steps + 1):
        trainer.step = step
        sink.step(SimpleNamespace(step=step, total_steps=steps))
        if trainer.stop_requested:
            return


def test_the_sink_stops_at_the_first_checkpoint_at_or_below_the_threshold():
    rule = StopRule.for_null(30, 0.1, [0.5, 0.6], 2)
    assert rule.threshold == pytest.approx(0.4) and rule.checkpoints == (10, 20)
    trainer = FakeTrainer({s: 0.45 if s < 20 else 0.38 for s in range(1, 31)})
    sink = rule.sink()
    _drive(sink, trainer, 30)
    assert trainer.stop_requested and sink.stopped_at == 20 and trainer.step == 20
    assert sink.completes_run
    assert sink.metrics()["early_stop"] == {"stopped_at": 20, "reason": "settled", "threshold": pytest.approx(0.4),
                                            "checkpoints": [[10, 0.45], [20, 0.38]]}


def test_an_unsettled_null_trains_to_its_end_and_an_observer_never_stops():
    trainer = FakeTrainer({s: 0.45 for s in range(1, 31)})
    sink = StopRule.for_null(30, 0.1, [0.5, 0.6], 2).sink()
    _drive(sink, trainer, 30)
    assert not trainer.stop_requested and sink.stopped_at is None and not sink.completes_run
    assert sink.scores == [(10, 0.45), (20, 0.45)]
    # a candidate seed missing: no rule at all, or an observer that only records
    assert StopRule.for_null(30, 0.1, [0.5], 2) is None
    observer = StopRule.for_null(30, 0.1, [0.5], 2, observe=True)
    trainer = FakeTrainer({s: 0.0 for s in range(1, 31)})
    sink = observer.sink()
    _drive(sink, trainer, 30)
    assert observer.threshold is None and not trainer.stop_requested and len(sink.scores) == 2


# ---- the plan ----------------------------------------------------------------------------------

LOST = Corpus("lost", (Inscription("1", "abcabc", raw="abcabc"),))
LEVELS = {"near": 0.40, "far": 0.22}


def _vocab(name, n, seed):
    rng = random.Random(seed)
    stems, seen = [], set()
    while len(stems) < n:
        ipa = "".join(rng.choice("ptkmns") if i % 2 == 0 else rng.choice("aiu") for i in range(rng.randint(3, 8)))
        if ipa not in seen:
            seen.add(ipa)
            stems.append(Stem(f"w{len(stems)}", ipa, ""))
    return Vocabulary(name, tuple(stems))


def _flat(level: float, steps: int) -> tuple:
    return ((0.0, level), (1.0, level)), level, steps, 0.5


def test_a_candidates_own_run_never_gets_a_rule_and_a_null_gets_its_candidates_lowest_seed():
    seen: list[PlanItem] = []

    def run(item):
        seen.append(item)
        noise = random.Random(f"{item.known}:{item.null}:{item.seed}").uniform(-0.01, 0.01)
        return _flat((0.22 if item.null is not None else LEVELS[item.known]) + noise, item.config.steps)

    c = compare(LOST, {"near": _vocab("near", 30, 4), "far": _vocab("far", 30, 3)}, seeds=(0, 1, 2), n_null=2,
                steps=30, config=Config(min_span=3, max_span=8), run_fn=run, early_stop=0.1)
    own = [i for i in seen if i.null is None]
    assert len(own) == 6 and all(i.stop is None and i.early_stop == 0 for i in own)
    nulls = [i for i in seen if i.null is not None]
    assert len(nulls) == 12 and all(i.stop is not None and i.early_stop == 0.1 for i in nulls)
    for i in nulls:  # the lowest of the candidate's three seeds, less the gap
        lowest = min(r.score for r in c.records if r.item.known == i.known and r.item.null is None)
        assert i.stop.threshold == pytest.approx(lowest - 0.1) and i.stop.checkpoints == (10, 20)


def test_early_stop_and_restarts_are_refused_together():
    cands = {"near": _vocab("near", 30, 4), "far": _vocab("far", 30, 3)}
    with pytest.raises(DecipherError, match="early stop cannot be used with restarts"):
        plan_comparison(LOST, cands, restarts=2, early_stop=0.1, config=Config(min_span=3, max_span=8))
    with pytest.raises(DecipherError, match="early stop's gap"):
        plan_comparison(LOST, cands, early_stop=2.0, config=Config(min_span=3, max_span=8))


def test_a_verdict_that_rests_on_stopped_nulls_gets_a_caveat():
    """Stopped nulls scored 0.13 (stopped at their first checkpoint); given the gap 0.1 more they would sit
    at 0.23, within the spread of the candidate's 0.24: the verdict moves, and the answer says so."""
    def run(item):
        noise = random.Random(f"{item.known}:{item.null}:{item.seed}").uniform(-0.02, 0.02)
        level = {"near": 0.24, "far": 0.22}[item.known] if item.null is None else 0.20
        return _flat(level + noise, item.config.steps)

    cands = {"near": _vocab("near", 30, 4), "far": _vocab("far", 30, 3)}
    c = compare(LOST, cands, seeds=(0, 1, 2), n_null=3, steps=30, config=Config(min_span=3, max_span=8),
                run_fn=run, early_stop=0.1)
    assert not early_stop_unsure(c)  # nothing stopped: nothing to doubt
    near_nulls = [r for r in c.records if r.item.known == "near" and r.item.null is not None]
    for r in near_nulls:  # as if each had stopped at step 10 scoring 0.13
        c.records[c.records.index(r)] = replace(r, score=0.13, result=replace(r.result, stopped_at=10, steps=10))
    from engine.closeness.comparison import summarise

    c = replace(c, summaries=summarise(c.plan, c.records).summaries)
    assert {s.known: s.verdict for s in c.summaries}["near"] == CLOSER
    assert "near" in early_stop_unsure(c)  # (and another candidate's may move with it: Holm couples them)
    assert any(x.startswith("the verdict of near") and "changes when the null runs stopped early" in x
               for x in caveats(c))


# ---- real runs: the sequential comparison and the command --------------------------------------


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    pytest.importorskip("torch")
    from engine.datasets.synthetic import make_cipher
    from engine.datasets.synthetic_relatives import unrelated_vocabulary
    from engine.io.tables import write_known, write_lost

    d = tmp_path_factory.mktemp("early")
    c = make_cipher(n_stems=10, n_inscriptions=12, seed=2)
    write_lost(d / "lost.csv", c.corpus.inscriptions)
    write_known(d / "source.csv", c.vocabulary.stems)
    write_known(d / "unrelated.csv", unrelated_vocabulary(10, seed=2, avoid=c.vocabulary.stems).stems)
    return d


TINY = ["--steps", "30", "--device", "cpu", "--set", "eval_interval=0", "--set", "feature_dim=8",
        "--set", "min_span=3", "--set", "max_span=6", "--set", "chars_per_batch=80", "--set", "anneal_steps=18"]
# the source's nulls score about 0.08 at step 10, its seeds 0.17-0.19 at step 30; the unrelated vocabulary's
# nulls are within 0.05 of its seeds (the runs are deterministic by seed)
GAP = "0.05"


def _read(path: Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _run_cli(files, out, pool, monkeypatch, *extra):
    from engine.cli import closeness as closeness_cli
    from engine.cli.main import main

    monkeypatch.setattr(closeness_cli, "make_pool", lambda workers, ray, gpus=0.0: (pool, 1, 1))
    return main(["closeness", "--lost", str(files / "lost.csv"), "--known", f"source={files / 'source.csv'}",
                 f"unrelated={files / 'unrelated.csv'}", "--seeds", "0", "1", "--null", "2", *TINY, *extra,
                 "--out", str(out)])


def _pool():
    from engine.runs.sweep import InlinePool
    from engine.runs.workers import run_task

    ran: list[str] = []

    def run(task):
        ran.extend(str(i.run_dir) for i in task)
        return run_task(task)

    pool = InlinePool(run)
    pool.ran = ran
    return pool


def test_the_command_stops_settled_nulls_records_it_and_resume_keeps_it(files, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    pool = _pool()
    results = tmp_path / "closeness.csv"
    assert _run_cli(files, out, pool, monkeypatch, "--early-stop", GAP, "--append-results", str(results)) == 0
    assert len(pool.ran) == 2 * 2 * 3
    runs = _read(out / "runs.csv")
    own = [r for r in runs if r["null"] == ""]
    assert own and all(r["stopped"] == "" and r["steps"] == "30" for r in own)  # never stopped
    stopped = [r for r in runs if r["stopped"]]
    assert stopped, "the source's nulls are far below it at a third of the steps"
    for r in stopped:
        step = int(r["steps"])
        assert step in checkpoint_steps(30) and r["stopped"] == f"stopped at step {step}: settled"
    assert {r["known"] for r in stopped} == {"source"}
    # every run is a finished run of the sweep; the stop is in the run's metrics.json
    assert {r["status"] for r in _read(out / "results.csv")} == {"completed"}
    metrics = [json.loads(p.read_text(encoding="utf-8")) for p in out.glob("source/null-*/seed-*/metrics.json")]
    assert sorted(m["early_stop"]["stopped_at"] for m in metrics if m["early_stop"]["stopped_at"]) == \
        sorted(int(r["steps"]) for r in stopped)
    answer = (out / "answer.txt").read_text(encoding="utf-8")
    assert f"Early stop (gap {GAP}): {len(stopped)} of 8 null runs stopped" in answer
    assert "stopped at step 10: settled" in answer or "stopped at step 20: settled" in answer
    assert "before the model’s annealing schedule ended" not in answer.split("Early stop")[1]
    # the results file has no column for the stop: stopped runs are named, not appended
    assert len(_read(results)) == 12 - len(stopped)
    err = capsys.readouterr().err
    assert f"closeness: {len(stopped)} null runs the early stop ended are not added" in err
    info = json.loads((out / "comparison.json").read_text(encoding="utf-8"))
    assert info["early_stop"]["stopped"] == len(stopped) and info["early_stop"]["gap"] == float(GAP)

    # resumed: nothing redone, the stopped runs stay stopped
    before = (out / "runs.csv").read_text(encoding="utf-8")
    pool = _pool()
    assert _run_cli(files, out, pool, monkeypatch, "--early-stop", GAP) == 0
    assert pool.ran == [] and (out / "runs.csv").read_text(encoding="utf-8") == before

    # the early stop off: the null runs are other runs (new folders), the candidates' own are reused
    pool = _pool()
    assert _run_cli(files, out, pool, monkeypatch) == 0
    assert len(pool.ran) == 8 and all("/null-" in p for p in pool.ran)
    runs = _read(out / "runs.csv")
    assert all(r["stopped"] == "" and r["steps"] == "30" for r in runs)
    assert "Early stop" not in (out / "answer.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("extra, message", [
    (["--early-stop", "-0.1"], "--early-stop must be a score gap from 0 (off) to 1"),
    (["--early-stop", "1.5"], "--early-stop must be a score gap from 0 (off) to 1"),
    (["--early-stop", "nan"], "--early-stop must be a score gap from 0 (off) to 1"),
    (["--early-stop", "0.1", "--restarts", "2"], "--early-stop cannot be used with --restarts"),
])
def test_bad_early_stop_settings_are_one_line_and_exit_2(files, tmp_path, capsys, extra, message):
    from engine.cli.main import main

    out = tmp_path / "out"
    assert main(["closeness", "--lost", str(files / "lost.csv"), "--known", f"a={files / 'source.csv'}",
                 f"b={files / 'unrelated.csv'}", *extra, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0]
    assert not out.exists()


def test_a_stopped_null_scores_what_the_full_run_scored_at_that_step(files):
    """The checkpoint's evaluation changes nothing in the training: the run that stopped at a checkpoint
    scored what the same run trained to its end scored there, and a null that was not stopped ends on
    the same score as without the early stop."""
    from engine.corpus import Corpus
    from engine.io.tables import read_known, read_lost

    lost = Corpus("lost", tuple(read_lost(files / "lost.csv")))
    cands = {k: Vocabulary(k, tuple(read_known(files / f"{k}.csv"))) for k in ("source", "unrelated")}
    cfg = Config(feature_dim=8, min_span=3, max_span=6, eval_interval=0, chars_per_batch=80, device="cpu",
                 anneal_steps=18)
    full = compare(lost, cands, seeds=(0,), n_null=2, steps=30, config=cfg, plot=False, observe=True)
    early = compare(lost, cands, seeds=(0,), n_null=2, steps=30, config=cfg, plot=False, early_stop=float(GAP))
    plain = compare(lost, cands, seeds=(0,), n_null=2, steps=30, config=cfg, plot=False)
    at = {r.item.key: dict(r.result.checkpoints) for r in full.records}
    assert any(r.result.stopped_at for r in early.records)
    for e, p, f in zip(early.records, plain.records, full.records):
        assert e.item.key == p.item.key == f.item.key
        assert f.score == pytest.approx(p.score, abs=1e-12)  # observing changes nothing
        if e.result.stopped_at is None:
            assert e.score == pytest.approx(p.score, abs=1e-12)
        else:
            assert e.item.null is not None and e.score == pytest.approx(at[e.item.key][e.result.stopped_at], abs=1e-12)
    assert [s.verdict for s in early.summaries] and {s.verdict for s in early.summaries} <= {CLOSER, NO_EVIDENCE}


def test_the_gap_is_in_the_null_runs_fingerprint_and_not_in_the_candidates():
    from engine.closeness.runs import run_folder

    cands = {"near": _vocab("near", 30, 4), "far": _vocab("far", 30, 3)}
    plans = [plan_comparison(LOST, cands, seeds=(0,), n_null=1, steps=30, config=Config(min_span=3, max_span=8),
                             early_stop=g) for g in (0.0, 0.05, 0.1)]
    own = [{run_folder(i) for i in p.items if i.null is None} for p in plans]
    nulls = [{run_folder(i) for i in p.items if i.null is not None} for p in plans]
    assert own[0] == own[1] == own[2]  # a candidate's own run is the same run whatever the gap
    assert not nulls[0] & nulls[1] and not nulls[0] & nulls[2] and not nulls[1] & nulls[2]


def test_runs_stored_before_a_setting_existed_keep_their_folders(monkeypatch):
    """A comparison resumed after an upgrade finds its finished runs: a setting added since, at its
    neutral value (engine.config.ADDED_SETTINGS), is not part of the runs' fingerprints."""
    from engine.closeness.runs import run_folder
    from engine.config import ADDED_SETTINGS

    cands = {"near": _vocab("near", 30, 4), "far": _vocab("far", 30, 3)}
    plan = plan_comparison(LOST, cands, seeds=(0,), n_null=1, steps=30, config=Config(min_span=3, max_span=8))
    now = [run_folder(i) for i in plan.items]
    full = Config.to_dict
    monkeypatch.setattr(Config, "to_dict", lambda self: {k: v for k, v in full(self).items() if k not in ADDED_SETTINGS})
    assert [run_folder(i) for i in plan.items] == now            # what the program before them named them
    monkeypatch.undo()
    other = plan_comparison(LOST, cands, seeds=(0,), n_null=1, steps=30,
                            config=Config(min_span=3, max_span=8, onsets_first=0.5))
    assert not set(now) & {run_folder(i) for i in other.items}   # not at its neutral value: other runs
