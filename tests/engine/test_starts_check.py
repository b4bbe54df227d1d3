"""The diagnosis's ``starts`` check (issue 49): a syllable run whose starts were screened where the word phase
ends keeps each start's reading there, and a kept reading that no other start found is called probably wrong."""

from __future__ import annotations

import pytest

from engine.config import Config
from engine.training.diagnosis import STARTS_AGREE_FLAG, Diagnosis, diagnose, starts_agreement, starts_finding
from engine.training.restarts import Selection

pytestmark = pytest.mark.usefixtures("one_torch_thread")

SIGNS = [chr(0x10600 + i) for i in range(10)]


def reading(values: str) -> dict[str, str]:
    """A reading of the ten signs: one letter a sign, "k" read as the sign's value "k a"."""
    return {sign: f"{v} a" for sign, v in zip(SIGNS, values)}


def selection(readings, kept=0, after_words=True, words=1500) -> Selection:
    sel = Selection(tuple(range(len(readings))), words, 1.0)
    sel.after_words, sel.set_words = after_words, (words if after_words else 0)
    for r in readings:
        if r:
            sel.record(-1.0 if r is readings[kept] else 0.0, dict, r)
        else:
            sel.record_diverged(3, "the loss became nan at step 3")
    sel.choose()
    assert sel.kept == kept
    return sel


def test_the_agreement_is_the_share_of_the_kept_starts_signs_another_start_reads_alike():
    a, b, c = reading("kptsnmlrwj"), reading("kptsnxxxxx"), reading("xxxxxxxxxj")
    assert starts_agreement([a, b, c, {}], 0) == pytest.approx([0.5, 0.1])    # a diverged start is left out
    assert starts_agreement([{}, a], 0) == []


def test_a_reading_no_other_start_found_is_probably_wrong_and_one_found_again_is_not():
    kept = reading("kptsnmlrwj")
    alone = selection([kept, reading("xxxxxmxxxx"), reading("kxxxxxxxxx"), reading("xxxxxxxxxx")])
    finding, values = starts_finding(alone)
    assert values == {"diagnosis_starts_agreement": pytest.approx(0.1), "diagnosis_starts_compared": 3.0}
    assert finding is not None and finding.code == "starts" and finding.flag
    assert "at most 10% of its signs as any of the 3 others" in finding.text
    d = Diagnosis([finding])
    assert d.probably_wrong and d.headline().startswith("this reading is probably wrong: no other start")
    # one other start that reads most signs alike is enough
    found = selection([kept, reading("xxxxxxxxxx"), reading("kptsnmlxxx"), reading("xxxxxxxxxx")])
    finding, values = starts_finding(found)
    assert finding is None and values["diagnosis_starts_agreement"] == pytest.approx(0.7)
    assert 0.7 >= STARTS_AGREE_FLAG
    assert "whether another of its starts found the same reading (3 other starts; at most 70%" in \
        " ".join(Diagnosis(values=dict(values)).checks())


def test_the_check_needs_two_other_starts_scored_where_the_word_phase_ends():
    kept, other = reading("kptsnmlrwj"), reading("xxxxxxxxxx")
    assert starts_finding(selection([kept, other])) == (None, {})                 # one other start: too few
    assert starts_finding(selection([kept, other, {}])) == (None, {})             # the third diverged
    # starts screened at restart_steps (inside the onset phase, the vowels still chance): no verdict
    assert starts_finding(selection([kept, other, other], after_words=False)) == (None, {})
    assert starts_finding(None) == (None, {})
    # a record from before the readings were kept
    old = selection([kept, other, other]).to_state()
    del old["readings"]
    assert starts_finding(Selection.from_state(old)) == (None, {})


def test_a_syllable_run_keeps_each_starts_reading_where_the_word_phase_ends_and_its_checkpoint_too(tmp_path):
    from engine.datasets.synthetic_syllabary import make_syllabary_cipher
    from engine.training.trainer import Trainer

    c = make_syllabary_cipher(seed=3, n_stems=40, n_inscriptions=60)
    cfg = Config(**{**c.settings(segmented=False), "steps": 10, "anneal_steps": 10, "eval_interval": 0,
                    "words_first": 4, "words_min_count": 1, "words_min_count_pair": 1, "restarts": 3,
                    "restart_steps": 2, "restart_after_words": True})
    t = Trainer(c.running, c.vocabulary, cfg, gold=c.running_gold, live_interval=None)
    assert t.words_prep is not None and t.selection.steps == 4
    for _ in t.run():
        pass
    sel = t.selection
    assert sel.done and len(sel.readings) == 3
    signs = set(t.prep.lost_letters[1:])
    for r in sel.readings:
        assert set(r) == signs and all(len(v.split(" ")) == 2 for v in r.values())
    # the kept start's reading is its model's at S: the reading the run shows, had it stopped there
    single = Trainer(c.running, c.vocabulary, cfg.replace(restarts=1, steps=4, seed=sel.seeds[sel.kept]),
                     live_interval=None)
    for _ in single.run():
        pass
    assert sel.readings[sel.kept] == single.mapping().top_readings()
    d = diagnose(t)
    assert d.values["diagnosis_starts_compared"] == 2.0
    assert d.values["diagnosis_starts_agreement"] == pytest.approx(max(starts_agreement(sel.readings, sel.kept)))
    assert ("starts" in [f.code for f in d.findings]) == (d.values["diagnosis_starts_agreement"] < STARTS_AGREE_FLAG)
    back = Trainer.from_checkpoint(t.save_checkpoint(tmp_path / "run.pt"), c.running, c.vocabulary)
    assert back.selection.readings == sel.readings
