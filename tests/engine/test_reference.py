"""A reference run (issue 49 item 3, setting reference_null): the same run against a phonotactic null
of the known list, trained after the run's last step, and the diagnosis's ``chance`` finding when the
real list fits the text hardly better than the null does."""

from __future__ import annotations

import pytest

from engine.config import Config, SettingError
from engine.datasets.synthetic import make_cipher
from engine.runs.estimate import planned_steps
from engine.runs.session import RunInputs, RunSession, RunSink
from engine.training.diagnosis import Diagnosis, Finding, diagnosis_from, reference_finding, referenced
from engine.training.reference import REFERENCE_MARGIN, Reference, wanted

FAST = dict(feature_dim=8, eval_interval=0, anneal_steps=10, steps=12, device="cpu", chars_per_batch=200)


@pytest.fixture(scope="module")
def cipher():
    return make_cipher(n_stems=25, n_inscriptions=30, seed=4)


class Lines(RunSink):
    def __init__(self):
        self.lines = []

    def message(self, text: str) -> None:
        self.lines.append(text)


def test_the_setting_is_checked_and_wants_a_reference_for_letters_runs_by_default():
    assert Config().reference_null == "auto" and wanted(Config())
    assert not wanted(Config(signs="syllables"))               # the margin was set on letters runs
    assert wanted(Config(signs="syllables", reference_null="on"))
    assert not wanted(Config(reference_null="off"))
    with pytest.raises(SettingError, match="reference_null"):
        Config.from_dict({"reference_null": "sometimes"})
    # it changes what is checked after a run, not the run: no part of a run's identity
    assert Config(reference_null="off").identity() == Config().identity()
    # the time said before a run counts the reference run's steps, and says so
    from engine.runs.estimate import RunShape, estimate

    shape = RunShape("letters", "cpu", 400, 600, 10)
    records = [(shape, 0.1)]
    with_ref = estimate(shape, planned_steps(Config(steps=100)), records, reference=wanted(Config()))
    without = estimate(shape, planned_steps(Config(steps=100)), records)
    assert with_ref.seconds == pytest.approx(2 * without.seconds) == pytest.approx(20.0)
    assert "for 100 steps and a reference run of as many (setting reference_null)" in with_ref.text()
    assert "reference" not in without.text()


def test_a_list_no_better_than_its_null_is_called_probably_wrong_and_a_clear_margin_is_not():
    close = Reference(objective=-2.30, coverage=0.70, steps=3000)
    finding, values = reference_finding(-2.40, close)
    assert finding is not None and finding.code == "chance" and finding.flag
    assert values["diagnosis_reference_margin"] == pytest.approx(0.10)
    assert "-2.40 against -2.30" in finding.text and "another candidate list" in finding.text
    d = Diagnosis([finding], values)
    assert d.probably_wrong and d.headline().startswith("this reading is probably wrong: the known list fits")
    far = Reference(objective=-2.30, coverage=0.70, steps=3000)
    assert reference_finding(-2.30 - REFERENCE_MARGIN - 0.01, far)[0] is None
    # a second reference replaces the first one's finding and values
    again = referenced(d, -5.0, far)
    assert not again.flagged and again.values["diagnosis_reference_margin"] == pytest.approx(2.70)
    assert any("than invented words with its sounds (a reference run: objective +2.70 better)" in c for c in again.checks())
    # a non-finite objective says nothing
    assert reference_finding(float("nan"), far) == (None, {})


def test_a_run_trains_its_reference_after_its_last_step_and_stores_the_finding(cipher):
    sink = Lines()
    outcome = RunSession(RunInputs(cipher.corpus, cipher.vocabulary, Config(**FAST)), sinks=[sink]).run()
    d = diagnosis_from(outcome.diagnosis)
    assert d is not None and "diagnosis_reference_margin" in d.values
    assert d.values["diagnosis_reference_margin"] == pytest.approx(
        d.values["diagnosis_reference_objective"] - outcome.final_objective["objective"])
    assert any(line.startswith("reference run:") for line in sink.lines)
    # the run's own time leaves the reference's out; the summary line says both
    from engine.runs.outputs import outcome_summary

    ref_s = d.values["diagnosis_reference_wall_s"]
    assert ref_s > 0 and f"(and its reference run in {ref_s:.1f} s)" in outcome_summary(outcome, "results in x")
    # with the setting off, or for the runs of a comparison (which train nulls of their own), none
    off = RunSession(RunInputs(cipher.corpus, cipher.vocabulary, Config(**FAST, reference_null="off"))).run()
    assert "diagnosis_reference_margin" not in diagnosis_from(off.diagnosis).values
    from engine.closeness.comparison import plan_comparison

    plan = plan_comparison(cipher.corpus, {"a": cipher.vocabulary, "b": cipher.vocabulary}, seeds=(0,), n_null=1,
                           config=Config(**FAST))
    assert {item.config.reference_null for item in plan.items} == {"off"}


def test_the_reference_is_trained_with_the_runs_settings_seed_and_pins_against_a_null_of_its_list(cipher):
    from engine.closeness.nulls import null_vocabulary
    from engine.training import reference as ref_module

    seen = {}
    real = ref_module.train_reference

    def spy(trainer, vocabulary, **kw):
        seen.update(config=trainer.config, vocabulary=vocabulary)
        got = real(trainer, vocabulary, **kw)
        seen["reference"] = got
        return got

    outcome = RunSession(RunInputs(cipher.corpus, cipher.vocabulary, Config(**FAST, seed=3)), reference=spy).run()
    assert seen["vocabulary"] is cipher.vocabulary and seen["config"].seed == 3
    assert seen["reference"].steps == FAST["steps"]
    null = null_vocabulary(cipher.vocabulary, 3, 0, mode="phonotactic")
    assert {s.ipa for s in null.stems}.isdisjoint({s.ipa for s in cipher.vocabulary.stems})
    assert diagnosis_from(outcome.diagnosis).values["diagnosis_reference_objective"] == pytest.approx(
        seen["reference"].objective)


def test_a_stop_during_the_reference_leaves_the_diagnosis_without_it(cipher):
    sink = Lines()
    session = RunSession(RunInputs(cipher.corpus, cipher.vocabulary, Config(**FAST)), sinks=[sink])

    class StopInReference(RunSink):
        def message(self, text: str) -> None:
            if text.startswith("reference run:"):
                session.stop()

    session.sinks.append(StopInReference())
    outcome = session.run()
    assert outcome.status == "completed"                 # the run itself had finished
    assert "diagnosis_reference_margin" not in diagnosis_from(outcome.diagnosis).values
    assert any("reference run was stopped" in line for line in sink.lines)


def test_a_reference_that_cannot_be_trained_is_a_note_not_a_failed_run(cipher):
    def broken(trainer, vocabulary, **kw):
        raise ValueError("too few stems for a null")

    sink = Lines()
    outcome = RunSession(RunInputs(cipher.corpus, cipher.vocabulary, Config(**FAST)), sinks=[sink],
                         reference=broken).run()
    assert outcome.status == "completed" and outcome.diagnosis is not None
    assert any("no reference run (ValueError: too few stems for a null)" in line for line in sink.lines)


def test_a_flagged_reference_finding_survives_the_comparison_with_other_seeds():
    from engine.training.diagnosis import compared

    d = referenced(Diagnosis([Finding("class", "x")]), -2.0, Reference(-1.9, 0.7, 10))
    again = compared(d, -2.0, {"s1": -2.1, "s2": -2.05})
    assert [f.code for f in again.findings].count("chance") == 1 and again.probably_wrong
