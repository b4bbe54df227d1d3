"""The controlled closeness experiment with real (test-sized) training: a synthetic lost text
against its source vocabulary, an unrelated vocabulary, a heavy-sound-change relative, and their
nulls (benchmarks/closeness_synthetic.py; numbers in docs/closeness.md)."""

from __future__ import annotations

import os

import pytest

from benchmarks.closeness_synthetic import run, setting
from engine.closeness.comparison import CLOSER, NO_EVIDENCE
from engine.model.phonology import ipa_units

#: The comparisons of 24-96 trainings run only when asked for (a few minutes each on one core).
slow = pytest.mark.skipif(not os.environ.get("DECIPHER_SLOW"), reason="a long comparison: set DECIPHER_SLOW=1")


def test_the_relative_is_a_sound_changed_copy_and_the_stranger_is_not():
    cipher, cands = setting()
    source, relative, unrelated = cands["source"], cands["relative"], cands["unrelated"]
    assert {s.gloss for s in relative.stems} <= {s.form for s in source.stems}  # each traces to a source stem
    changed = sum(s.ipa != s.gloss for s in relative.stems)
    assert changed >= 0.9 * len(relative.stems)  # heavy: almost every word changed
    assert not {s.ipa for s in unrelated.stems} & {s.ipa for s in source.stems}
    assert {len(ipa_units(s.ipa)) for s in unrelated.stems} <= {4, 5, 6}


def test_the_true_source_beats_an_unrelated_vocabulary_and_its_nulls():
    c = run(seeds=(0, 1), n_null=1, steps=100, names=("source", "unrelated"))
    best, other = c.summaries
    assert best.known == "source" and other.known == "unrelated"
    assert best.verdict == CLOSER
    # beyond the spread over seeds, and above every null run
    assert best.score_mean - best.score_sd > other.score_mean + other.score_sd
    source_runs = [r.score for r in c.records if r.item.known == "source" and r.item.null is None]
    null_runs = [r.score for r in c.records if r.item.known == "source" and r.item.null is not None]
    assert min(source_runs) > max(null_runs)


@pytest.mark.slow
@slow
def test_the_skeleton_null_finds_no_evidence_for_an_unrelated_vocabulary():
    # an unrelated vocabulary with the source's syllable shapes covers as much as its skeleton nulls
    c = run(seeds=(0, 1, 2), n_null=3, steps=200, names=("source", "unrelated"))
    verdicts = {s.known: s.verdict for s in c.summaries}
    assert verdicts == {"source": CLOSER, "unrelated": NO_EVIDENCE}


#: Restarts per seed for the distant relative: it is deciphered on about one start in four at test size,
#: so 16 starts miss it on a seed with probability about 0.76**16 = 1 %. Chosen over every set of 3 of
#: 9 seeds (docs/closeness.md, "With restarts"), not on this test's seeds (they separate from R = 4 on).
RESTARTS = 16


@pytest.mark.slow
@slow
def test_a_distant_relative_beats_an_unrelated_vocabulary_beyond_the_seeds_spread():
    # each seed's run is the restart with the lowest final training objective (no gold), both candidates alike
    c = run(seeds=(0, 1, 2), n_null=0, steps=200, names=("relative", "unrelated"), restarts=RESTARTS)
    rel, unrel = (next(s for s in c.summaries if s.known == k) for k in ("relative", "unrelated"))
    assert len(c.trainings) == 2 * 3 * RESTARTS and {r.restarts for r in c.records} == {RESTARTS}
    assert rel.score_mean - rel.score_sd > unrel.score_mean + unrel.score_sd


@pytest.mark.slow
@slow
def test_a_relative_is_closer_than_chance_with_restarts_and_the_unrelated_is_not():
    # the nulls get the same restarts and the same rule; without restarts the relative's verdict depends on
    # the seeds (z 5.5 on seeds 0 1 2, -0.1 on 3 4 5, 1.8 on 6 7 8; docs/closeness.md)
    c = run(seeds=(0, 1, 2), n_null=3, steps=200, names=("relative", "unrelated"), restarts=4)
    assert {r.restarts for r in c.records} == {4} and len(c.records) == 2 * 3 * (1 + 3)
    verdicts = {s.known: s.verdict for s in c.summaries}
    assert verdicts == {"relative": CLOSER, "unrelated": NO_EVIDENCE}


def test_a_dump_is_resumed_and_its_analysis_takes_one_length_of_run(tmp_path, monkeypatch):
    """--dump appends and reuses what it holds; runs of another length are trained anew into the
    same file, so --analyse must not count a 2-step and a 3-step run of one seed as its restarts."""
    import benchmarks.closeness_synthetic as bench

    dump = str(tmp_path / "runs.jsonl")
    trained = []
    train = bench.train_run
    monkeypatch.setattr(bench, "train_run", lambda item: trained.append(item.config.steps) or train(item))
    kwargs = dict(seeds=(0,), n_null=0, names=("relative", "unrelated"), dump=dump)
    bench.run(steps=2, **kwargs)
    bench.run(steps=2, **kwargs)     # resumed: nothing trained again
    bench.run(steps=3, **kwargs)     # another length: trained, and appended to the same dump
    assert trained == [2, 2, 3, 3]
    with pytest.raises(SystemExit, match="runs of 2, 3 steps; pick one with --steps"):
        bench.analyse(dump)
    _, plan, records = bench.load_dump(dump, steps=3)
    assert plan.restarts == 1 and len(records) == 2 and {r.result.steps for r in records} == {3}
    assert "relative" in bench.analyse(dump, steps=2)
    with pytest.raises(SystemExit, match="no runs of this setting"):
        bench.load_dump(dump, n_stems=20)


def test_the_separation_table_reads_whole_restarts_only_and_refuses_other_files(tmp_path):
    """--separation on a restarts.csv with a hole (restart 1 of one seed failed, restart 2 there):
    R goes up to the restarts every seed has (R = 2 ended in a TypeError on the missing one)."""
    from benchmarks.closeness_synthetic import separation_table
    from engine.closeness.comparison import RESTARTS_COLUMNS

    lines = [",".join(RESTARTS_COLUMNS)]
    for known, base in (("relative", 0.3), ("unrelated", 0.1)):
        for seed in (0, 1, 2):
            for restart in (0, 1, 2):
                if (known, seed, restart) == ("relative", 2, 1):
                    continue
                lines.append(f"{known},{seed},,{restart},{seed * 10 + restart},{-restart},"
                             f"{base + 0.01 * seed + 0.001 * restart},0.5,10,1.0,0")
    path = tmp_path / "restarts.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    table = separation_table(str(path))
    assert "R= 1: separated on 1/1 sets of 3 seeds" in table and "R= 2" not in table
    with pytest.raises(SystemExit, match="no seed has runs of both relative and other"):
        separation_table(str(path), b="other")
    with pytest.raises(SystemExit, match="cannot read it"):
        separation_table(str(tmp_path / "missing.csv"))
    (tmp_path / "runs.csv").write_text("known,seed,null,score\nrelative,0,,0.3\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="not a comparison's restarts.csv"):
        separation_table(str(tmp_path / "runs.csv"))


# ---- issue 26: the phonotactic control ---------------------------------------------------------

def test_the_phonotactic_setting_shares_shapes_not_words():
    from benchmarks.closeness_synthetic import SHAPES, phonotactic_setting

    corpus, cands = phonotactic_setting()
    source, unrelated = cands["source"], cands["unrelated"]
    assert len(source.stems) == len(unrelated.stems) == 30
    assert not {s.ipa for s in source.stems} & {s.ipa for s in unrelated.stems}
    for vocab in (source, unrelated):
        for s in vocab.stems:
            units = ipa_units(s.ipa)
            assert units[0] in SHAPES["initial"] and 4 <= len(units) <= 6
            assert all(u in SHAPES["medial"] for u in units[2:len(units) - 1:2])
    assert len(corpus.inscriptions) == 40


@slow
def test_an_unrelated_vocabulary_of_the_texts_patterns_beats_skeleton_nulls_not_phonotactic_ones():
    """benchmarks/results/closeness-null-control.txt: 42 trainings, about 3 minutes."""
    from benchmarks.closeness_synthetic import null_mode_control

    runs = null_mode_control(seeds=(0, 1, 2), n_null=3, steps=200)
    verdicts = {mode: {s.known: s.verdict for s in c.summaries} for mode, c in runs.items()}
    assert verdicts == {"skeleton": {"source": CLOSER, "unrelated": CLOSER},
                        "phonotactic": {"source": CLOSER, "unrelated": NO_EVIDENCE}}


def test_the_separation_table_gives_both_rules_on_fixed_numbers(tmp_path):
    """A relative found on one seed of three: z (the old rule) says closer than chance, the t test of
    issue 26, which counts the seeds' spread, does not."""
    from benchmarks.closeness_synthetic import separation_table
    from engine.closeness.comparison import RESTARTS_COLUMNS

    lines = [",".join(RESTARTS_COLUMNS)]
    own = {"relative": (0.30, 0.20, 0.40), "unrelated": (0.20, 0.21, 0.19)}
    for known in own:
        for seed in (0, 1, 2):
            lines.append(f"{known},{seed},,0,{seed},-1,{own[known][seed]},0.5,10,1.0,1")
            for null, score in ((0, (0.19, 0.20, 0.21)), (1, (0.21, 0.20, 0.19))):
                lines.append(f"{known},{seed},{null},0,{seed},-1,{score[seed]},0.5,10,1.0,1")
    path = tmp_path / "restarts.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    table = separation_table(str(path))
    assert "relative z 11.2 closer than chance" in table     # 0.1 over a null sd of 0.0089
    # t = 0.1 / (0.1 * sqrt(1/3 + 1/2)) = 1.10 with 3 degrees of freedom: p 0.177, Holm x 2
    assert "relative t 1.10 p_holm 0.353 no evidence" in table
