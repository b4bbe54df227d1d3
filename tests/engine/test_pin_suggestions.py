"""engine/training/pin_suggestions.py: the unpinned signs ranked by uncertainty x share of the text, with a
reason in plain words; several seeds' mappings averaged; pinned signs, dividers and signs no
mapping knows left out; a trained Trainer's own suggestions."""

import json

import numpy as np
import pytest

from engine.config import Config
from engine.corpus import PinnedValue
from engine.io.display import DisplayTable
from engine.model.phonology import DELETE
from engine.training.pin_suggestions import corpus_shares, suggest_for_trainer, suggest_pins, text_shares
from engine.results import MappingSnapshot
from engine.datasets.synthetic import make_cipher
from engine.training.trainer import Trainer

KNOWN = (DELETE, "t", "d", "a")


def snapshot(columns: dict[str, tuple[float, float, float]]) -> MappingSnapshot:
    """A mapping whose sign columns are P(sign | DEL) = 0 and the given values for /t/, /d/, /a/."""
    lost = (DELETE, *columns)
    probs = np.zeros((len(KNOWN), len(lost)))
    probs[0, 0] = 1.0
    for j, values in enumerate(columns.values(), 1):
        probs[1:, j] = values
    return MappingSnapshot(lost, KNOWN, probs)


# a: sure (/a/), frequent; b: split /t/ vs /d/, frequent; c: split, rare; p: split, frequent, but pinned
MAPPING = snapshot({"a": (0.02, 0.02, 0.96), "b": (0.45, 0.45, 0.10), "c": (0.40, 0.38, 0.22),
                    "p": (0.5, 0.5, 0.0)})
SHARES = {"a": 0.4, "b": 0.3, "c": 0.05, "p": 0.25}


def test_text_shares_count_signs_and_leave_dividers_out():
    assert text_shares([("a", "b", " ", "a"), ("a",)]) == {"a": 0.75, "b": 0.25}
    assert text_shares([(" ",)]) == {}


def test_the_split_frequent_sign_comes_first_the_sure_one_last_and_the_pinned_one_never():
    got = suggest_pins(MAPPING, SHARES, pins=[PinnedValue("p", "t")], top=None, rank="uncertainty")
    assert [s.sign for s in got] == ["b", "c", "a"]
    b, c, a = got
    assert b.best in ("d", "t") and b.second in ("d", "t") and b.best != b.second
    assert b.uncertainty == pytest.approx(1.0) and b.score == pytest.approx(0.3)
    assert c.uncertainty == pytest.approx(1 - (0.40 - 0.38)) and c.best == "t" and c.second == "d"
    assert a.uncertainty == pytest.approx(1 - (0.96 - 0.02)) and a.best == "a"
    assert b.reason == "b: its value is split between /d/ 0.45 and /t/ 0.45, and it is 30 % of the text"
    assert a.reason == "a: its value /a/ is fairly sure at 0.96 (next /d/ 0.02), and it is 40 % of the text"
    assert c.reason.endswith("and it is 5.0 % of the text")


def test_top_cuts_the_list_and_a_rare_split_sign_loses_to_a_frequent_split_one():
    by_score = dict(rank="uncertainty")
    assert [s.sign for s in suggest_pins(MAPPING, SHARES, top=2, **by_score)] == ["b", "p"]   # p unpinned; c rare
    assert [s.sign for s in suggest_pins(MAPPING, SHARES, pins=[PinnedValue("b", "d")], top=1, **by_score)] == ["p"]


def test_the_default_ranking_is_by_share_of_the_text_ties_broken_by_uncertainty():
    got = suggest_pins(MAPPING, SHARES, top=None)
    assert [s.sign for s in got] == ["a", "b", "p", "c"]     # a is sure, but the most frequent
    tie = suggest_pins(MAPPING, {"a": 0.3, "b": 0.3, "c": 0.3}, top=None)
    assert [s.sign for s in tie] == ["b", "c", "a"]           # equal shares: the more uncertain first
    with pytest.raises(ValueError, match="rank must be"):
        suggest_pins(MAPPING, SHARES, rank="entropy")


def test_signs_no_mapping_knows_dividers_and_absent_signs_are_left_out():
    got = suggest_pins(MAPPING, {"a": 0.5, "z": 0.3, " ": 0.2}, top=None)
    assert [s.sign for s in got] == ["a"]
    with pytest.raises(ValueError, match="at least one mapping"):
        suggest_pins([], SHARES)


def test_seeds_that_disagree_make_a_sign_uncertain_and_the_reason_says_so():
    # each seed is sure of x, but one reads /t/ and the other /d/; y is read /a/ by both
    one = snapshot({"x": (0.9, 0.05, 0.05), "y": (0.05, 0.05, 0.9)})
    two = snapshot({"x": (0.05, 0.9, 0.05), "y": (0.05, 0.05, 0.9)})
    shares = {"x": 0.3, "y": 0.7}
    alone = suggest_pins(one, shares, top=None, rank="uncertainty")
    assert [s.sign for s in alone] == ["y", "x"]          # one seed: both sure, y is more frequent
    both = suggest_pins([one, two], shares, top=None, rank="uncertainty")
    assert [s.sign for s in both] == ["x", "y"]           # together: x is split
    x = both[0]
    assert x.mappings == 2 and x.agreeing == 1 and x.uncertainty == pytest.approx(1.0)
    assert "1 of 2 seeds read it /d/" in x.reason or "1 of 2 seeds read it /t/" in x.reason
    assert "2 of 2 seeds read it /a/" in both[1].reason


def test_the_reason_shows_the_sign_as_the_display_table_writes_it():
    table = DisplayTable("test", {"b": "𐎁"})
    got = suggest_pins(MAPPING, SHARES, top=1, display=table, rank="uncertainty")
    assert got[0].sign == "b" and got[0].reason.startswith("𐎁: ")


@pytest.mark.usefixtures("one_torch_thread")
def test_a_trained_runs_suggestions_are_its_unpinned_signs_with_reasons():
    cipher = make_cipher(n_stems=12, n_inscriptions=8, seed=3)
    pinned = cipher.corpus.inscriptions[0].units[0]
    truth = {v: k for k, v in cipher.key.items()}
    pins = [PinnedValue(pinned, truth[pinned])]
    trainer = Trainer(cipher.corpus, cipher.vocabulary, Config(feature_dim=4, steps=3, anneal_steps=2,
                                                               eval_interval=0, min_span=3),
                      pins=pins, live_interval=None)
    for _ in trainer.run():
        pass
    got = suggest_for_trainer(trainer, top=3)
    shares = corpus_shares(cipher.corpus)
    assert len(got) == 3 and pinned not in {s.sign for s in got}
    assert all(s.sign in shares and s.text_share == pytest.approx(shares[s.sign]) for s in got)
    assert [s.text_share for s in got] == sorted((s.text_share for s in got), reverse=True)
    # the 3 most frequent unpinned signs (by share; which of equally frequent ones is the tie-break's)
    assert [s.text_share for s in got] == sorted((v for k, v in shares.items() if k != pinned), reverse=True)[:3]
    assert all(s.reason.startswith(f"{s.sign}: ") and "of the text" in s.reason for s in got)
    # the same trainer's mapping given again as a second "seed" changes nothing but the count
    again = suggest_for_trainer(trainer, top=3, others=[trainer.mapping()])
    assert [s.sign for s in again] == [s.sign for s in got] and all(s.mappings == 2 for s in again)


@pytest.mark.usefixtures("one_torch_thread")
def test_the_counterfactual_pins_each_sign_to_its_best_sound_re_decodes_and_leaves_the_model_alone():
    import torch

    from engine.training.pin_suggestions import _Pinned, counterfactuals

    cipher = make_cipher(n_stems=12, n_inscriptions=8, seed=4)
    trainer = Trainer(cipher.corpus, cipher.vocabulary, Config(feature_dim=4, steps=3, anneal_steps=2,
                                                               eval_interval=0, min_span=3), live_interval=None)
    for _ in trainer.run():
        pass
    before = trainer.mapping().probs.copy()
    signs = sorted(corpus_shares(cipher.corpus))
    got = counterfactuals(trainer, signs[:5])
    assert sorted(c.sign for c in got) == signs[:5]
    assert [c.changed for c in got] == sorted((c.changed for c in got), reverse=True)
    assert all(0 <= c.changed <= c.spans and c.spans > 0 for c in got)
    top = got[0]
    assert top.sound == max((u for u in trainer.prep.known_units if u != DELETE),
                            key=lambda u: before[trainer.prep.known_units.index(u),
                                                 trainer.prep.lost_letters.index(top.sign)])
    assert top.reason == (f"{top.sign}: pinned to /{top.sound}/, {top.changed} of the {top.spans} decoded spans "
                          f"({100 * top.changed_share:.{1 if top.changed_share < 0.1 else 0}f} %) change")
    np.testing.assert_array_equal(trainer.mapping().probs, before)     # the run's model is untouched
    # the pinned model puts the sound's row all on the sign
    k, l = trainer.prep.known_units.index(top.sound), trainer.prep.lost_letters.index(top.sign)
    row = _Pinned(trainer.model, k, l).log_probs().exp()[k]
    assert float(row[l]) == pytest.approx(1.0, abs=1e-4) and float(row.sum()) == pytest.approx(1.0, abs=1e-4)
    assert torch.equal(_Pinned(trainer.model, k, l).log_probs()[k + 1 if k == 0 else 0],
                       trainer.model.log_probs()[k + 1 if k == 0 else 0].detach())


@pytest.mark.usefixtures("one_torch_thread")
def test_the_benchmark_writes_rows_as_they_finish_resumes_without_retraining_and_tabulates(tmp_path, capsys):
    import json

    from benchmarks.pin_suggestions import STRATEGIES, main

    out = tmp_path / "ps.jsonl"
    args = ["--out", str(out), "--ciphers", "1", "--stems", "20", "--inscriptions", "10", "--steps", "4",
            "--extra", "2", "--draws", "2"]
    assert main(args) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    [head] = [r for r in rows if r["sign"] == ""]
    assert set(head["picks"]) == set(STRATEGIES) and len(head["picks"]["random"]) == 2
    trained = {r["sign"] for r in rows if r["sign"]}
    assert trained == {"<none>", *(s for v in head["picks"].values() for s in v)}   # each sign trained once
    assert len(trained) == len(rows) - 1
    assert all(0.0 <= r["p_at_10"] <= 1.0 for r in rows if r["sign"])
    # every candidate's signals are kept; 3 seeds by default; the probes are the most frequent signs
    feats = head["features"]
    assert feats and all(f["seeds"] == 3 and 0 <= f["agreeing"] <= 3 and 0 <= f["misfit"] <= f["aligned"]
                         for f in feats.values())
    assert head["picks"]["probe"] == sorted(feats, key=lambda c: (-feats[c]["share"], c))[:5]
    [top] = head["picks"]["frequent"]
    assert top in head["picks"]["probe"] and feats[top]["share"] == max(f["share"] for f in feats.values())
    capsys.readouterr()
    assert main(args) == 0                                                              # resumed: nothing new
    assert out.read_text(encoding="utf-8").count("\n") == len(rows)
    table = capsys.readouterr().out
    assert "| **mean of 1** |" in table and "uncertainty × share beats the most frequent on" in table
    assert "misfit × share beats the most frequent on" in table and "best of the 5 most frequent (oracle)" in table


@pytest.mark.usefixtures("one_torch_thread")
def test_the_noise_mode_repeats_a_ciphers_continuations_with_new_streams_and_resumes(tmp_path, capsys):
    import json

    from benchmarks.pin_suggestions import main

    source, noise = tmp_path / "ps.jsonl", tmp_path / "noise.jsonl"
    size = ["--ciphers", "1", "--stems", "20", "--inscriptions", "10", "--steps", "4", "--extra", "2"]
    assert main(["--out", str(source), *size, "--draws", "1", "--seeds", "1", "--probe", "2"]) == 0
    [head] = [json.loads(ln) for ln in source.read_text(encoding="utf-8").splitlines() if '"sign": ""' in ln]
    argv = ["--out", str(noise), "--source", str(source), *size]
    assert main([*argv, "--noise", "3"]) == 0
    rows = [json.loads(ln) for ln in noise.read_text(encoding="utf-8").splitlines()]
    signs = {"<none>", *head["picks"]["probe"], *head["picks"]["frequent"]}
    assert {(r["sign"], r["cont_seed"]) for r in rows} == {(s, k) for s in signs for k in (1, 2)}
    assert len(rows) == 2 * len(signs) and all(0.0 <= r["p_at_10"] <= 1.0 for r in rows)
    capsys.readouterr()
    assert main([*argv, "--noise", "3"]) == 0                          # resumed: nothing new
    assert noise.read_text(encoding="utf-8").count("\n") == len(rows)
    table = capsys.readouterr().out
    assert "| **mean of 1** |" in table and "A single gain's spread" in table
    # a source made at other sizes is refused in one line, before any training
    assert main(["--out", str(tmp_path / "x.jsonl"), "--source", str(source), "--ciphers", "1", "--steps", "5",
                 "--noise", "2"]) == 2
    assert "was made with other" in capsys.readouterr().err


def test_the_noise_summary_averages_each_signs_gain_over_the_continuation_seeds():
    from benchmarks.pin_suggestions import noise_summary

    source = [{"cipher": 1, "sign": "", "picks": {"probe": ["a", "b"], "frequent": ["a"]}},
              {"cipher": 1, "sign": "<none>", "p_at_10": 0.2}, {"cipher": 1, "sign": "a", "p_at_10": 0.5},
              {"cipher": 1, "sign": "b", "p_at_10": 0.7}]
    noise = [{"cipher": 1, "sign": "<none>", "cont_seed": 1, "p_at_10": 0.3},
             {"cipher": 1, "sign": "a", "cont_seed": 1, "p_at_10": 0.8},
             {"cipher": 1, "sign": "b", "cont_seed": 1, "p_at_10": 0.4}]
    got = noise_summary(source, noise)
    [c] = got["ciphers"]
    # gains: a (+0.3, +0.5), b (+0.5, +0.1): b leads on seed 0 alone, a on the mean
    assert c["best_by_seed0"] == "b" and c["best_by_mean"] == "a"
    # on the seed that did not choose it, b gains +0.1: less than the most frequent sign's +0.5
    assert c["frequent_gain_others"] == pytest.approx(0.5) and c["best_by_seed0_gain_others"] == pytest.approx(0.1)
    assert c["best_by_mean_gain_mean"] == pytest.approx(0.4)
    assert got["gain_sd_pooled"] == pytest.approx(((0.02 + 0.08) / 2) ** 0.5)
    assert noise_summary(source, noise[:2])["ciphers"] == []      # a sign without every seed: left out
    assert noise_summary(source, [])["ciphers"] == []              # no continuation beyond seed 0 yet


def _cipher_rows(c: int, no_pin: float, gains: dict[str, float]) -> list[dict]:
    """One finished cipher of a results file: its head row (every strategy's pick: the sign named
    after the strategy) and each pick's P@10 = no_pin + its gain."""
    from benchmarks.pin_suggestions import STRATEGIES

    picks = {k: [k] for k in STRATEGIES}
    rows = [{"cipher": c, "sign": "", "p_at_10_base": 0.1, "picks": picks},
            {"cipher": c, "sign": "<none>", "p_at_10": no_pin}]
    return rows + [{"cipher": c, "sign": k, "p_at_10": no_pin + gains.get(k, 0.0)} for k in STRATEGIES]


def test_the_paired_rule_tells_a_ranking_apart_from_the_most_frequent_sign_only_beyond_twice_its_error(tmp_path, capsys):
    from benchmarks.pin_suggestions import main, paired

    rows = []
    for c, (frequent, misfit, random_) in enumerate([(0.3, 0.5, 0.1), (0.2, 0.35, 0.0), (0.4, 0.5, 0.2),
                                                     (0.1, 0.3, 0.1)], start=1):
        rows += _cipher_rows(c, 0.2, {"frequent": frequent, "misfit": misfit, "random": random_,
                                      "counterfactual": frequent + (0.2 if c % 2 else -0.2)})
    rows += _cipher_rows(5, 1.0, {})  # nothing to gain: every difference 0
    got = paired(rows)
    assert got["n"] == 5 and got["saturated"] == 1
    a = got["against_frequent"]
    # misfit: +0.2, +0.15, +0.1, +0.2, 0 -> mean 0.13, sd 0.084, se 0.037: beats
    assert a["misfit"]["mean_difference"] == pytest.approx(0.13) and a["misfit"]["verdict"] == "beats"
    assert (a["misfit"]["better"], a["misfit"]["equal"], a["misfit"]["worse"]) == (4, 1, 0)
    # counterfactual: +0.2, -0.2, +0.2, -0.2, 0 -> mean 0, within its error
    assert a["counterfactual"]["verdict"] == "not told apart"
    assert a["random"]["verdict"] == "loses"
    with pytest.raises(ValueError, match="at least 2"):
        paired(_cipher_rows(1, 0.2, {}))
    # the command: the summary to --out, the table to stdout; a missing file is one line, exit 2
    f = tmp_path / "r.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["--paired", str(f), "--out", str(tmp_path / "s.json")]) == 0
    assert "| misfit × share | " in capsys.readouterr().out
    assert json.loads((tmp_path / "s.json").read_text())["against_frequent"]["misfit"]["verdict"] == "beats"
    assert main(["--paired", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "s2.json")]) == 2
    assert "no results file" in capsys.readouterr().err and not (tmp_path / "s2.json").exists()
    # noise rows that cover no cipher's every continuation seed: one line, nothing written
    n = tmp_path / "n.jsonl"
    n.write_text(json.dumps({"cipher": 1, "sign": "<none>", "cont_seed": 1, "p_at_10": 0.3}) + "\n", encoding="utf-8")
    assert main(["--paired", str(f), "--noise-rows", str(n), "--out", str(tmp_path / "s3.json")]) == 2
    assert "at least 2 ciphers" in capsys.readouterr().err and not (tmp_path / "s3.json").exists()


def test_the_oracles_lead_is_judged_on_the_seeds_that_did_not_choose_it():
    from benchmarks.pin_suggestions import oracle_lead

    def cipher(c, frequent, best, frequent_others, best_others):
        return {"cipher": c, "frequent": frequent, "best_by_seed0": best,
                "frequent_gain_others": frequent_others, "best_by_seed0_gain_others": best_others}

    summary = {"continuation_seeds": 3, "gain_sd_pooled": 0.05,
               "ciphers": [cipher(1, "a", "b", 0.2, 0.3), cipher(2, "a", "a", 0.4, 0.4), cipher(3, "c", "d", 0.1, 0.25)]}
    got = oracle_lead(summary)
    assert got["mean_difference"] == pytest.approx(0.25 / 3) and got["same_sign"] == 1
    assert got["verdict"] == "not told apart"      # +0.1, 0, +0.15: se 0.044, mean 0.083 < 2 se
    summary["ciphers"][1] = cipher(2, "a", "e", 0.4, 0.52)
    assert oracle_lead(summary)["verdict"] == "beats"
    with pytest.raises(ValueError, match="at least 2"):
        oracle_lead({**summary, "ciphers": summary["ciphers"][:1]})


def match(span: str, stem_ipa: str) -> "Match":
    from engine.results import Alternative, Match

    return Match("I1", 0, len(span), span, (Alternative(1, stem_ipa, stem_ipa, -1.0),))


def test_misfit_counts_the_letters_that_decoded_matches_read_otherwise_than_the_signs_best_value():
    from engine.training.pin_suggestions import misfits

    # x is best /t/, y best /a/; both still give the other sounds some probability
    mapping = snapshot({"x": (0.6, 0.3, 0.1), "y": (0.1, 0.1, 0.8)})
    got = misfits(mapping, [match("xy", "ta"), match("xy", "da"), match("xy", "da"), match("x", "")])
    assert got["x"].best == "t" and got["y"].best == "a"
    assert (got["x"].aligned, got["x"].misfit) == (3, 2)        # read /d/ twice; a span with no alignment to its stem not counted
    assert got["x"].rate == pytest.approx(2 / 3)
    assert (got["y"].aligned, got["y"].misfit) == (3, 0)
    # an insertion (two letters for one sound) is a misfit for both its letters
    ins = misfits(mapping, [match("xy", "t")], gamma=0.0)
    assert ins["x"].misfit == 1 and ins["y"].misfit == 1
    assert misfits(mapping, []) == {}


def test_the_benchmarks_new_rankings_weigh_share_by_misfit_or_disagreement_and_fall_back_to_share():
    from benchmarks.pin_suggestions import NEW, _pick

    def f(share, misfit, aligned, agreeing):
        return {"share": share, "misfit": misfit, "aligned": aligned, "seeds": 3, "agreeing": agreeing}

    feats = {"a": f(0.10, 2, 20, 3), "b": f(0.08, 16, 20, 1), "c": f(0.02, 4, 4, 0)}
    assert _pick(feats, NEW["misfit"]) == "b"        # 0.08 x 0.8 > 0.10 x 0.1 and 0.02 x 1
    assert _pick(feats, NEW["disagree"]) == "b"      # 0.08 x 2/3 > 0.02 x 1; a: all seeds agree
    same = {"a": f(0.10, 0, 20, 3), "b": f(0.08, 0, 20, 3)}
    assert _pick(same, NEW["misfit"]) == "a" and _pick(same, NEW["disagree"]) == "a"   # no signal: the most frequent
