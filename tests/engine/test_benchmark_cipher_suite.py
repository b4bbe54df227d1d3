"""benchmarks/cipher_suite.py: the oracle's pins come from the key, the summary counts by the manifest's
rule, and the test split is not run by accident."""

from __future__ import annotations

import csv
import json

import pytest

from benchmarks import cipher_suite
from engine.datasets.invented import write_cipher

from .test_invented_ciphers import toy


def test_the_oracle_pins_every_sign_of_the_text_to_its_known_value(tmp_path):
    c = toy("syllabary", relation="near", n=60)
    write_cipher(c, tmp_path / "c")
    n = cipher_suite.oracle_pins(tmp_path / "c", tmp_path / "prior.csv")
    with open(tmp_path / "prior.csv", encoding="utf-8", newline="") as f:
        pins = list(csv.DictReader(f))
    assert n == len(pins) > 0
    text = set("".join(i.text for i in c.corpus.inscriptions))
    for p in pins:
        assert p["lost"] in text
        onsets, vowels = c.sign_values[p["lost"]]
        assert p["known_ipa"].endswith(vowels[0])
        assert p["known_ipa"] == vowels[0] if onsets[0] == "∅" else p["known_ipa"] == onsets[0] + vowels[0]


@pytest.mark.parametrize("part", ["vowels", "onsets", "top:5"])
def test_a_partial_oracle_pins_part_of_each_value_or_the_most_frequent_signs(tmp_path, part):
    import collections

    c = toy("syllabary", relation="near", n=60)
    write_cipher(c, tmp_path / "c")
    cipher_suite.oracle_pins(tmp_path / "c", tmp_path / "all.csv")
    n = cipher_suite.oracle_pins(tmp_path / "c", tmp_path / "part.csv", part)
    read = lambda name: {r["lost"]: r["known_ipa"] for r in csv.DictReader(open(tmp_path / name, encoding="utf-8"))}
    whole, pins = read("all.csv"), read("part.csv")
    assert n == len(pins) > 0
    if part == "top:5":
        freq = collections.Counter(ch for i in c.corpus.inscriptions for ch in i.text if not ch.isspace())
        assert set(pins) == {s for s, _ in freq.most_common(5)} & set(whole)
        assert all(pins[s] == whole[s] for s in pins)
        return
    assert set(pins) == set(whole)
    for sign, value in pins.items():
        onsets, vowels = c.sign_values[sign]
        if part == "vowels":
            assert value == "-" + vowels[0]
        else:
            assert value == (vowels[0] if onsets[0] == "∅" else onsets[0] + "-")


def test_an_unknown_oracle_part_is_refused_in_one_line(capsys):
    with pytest.raises(SystemExit) as e:
        cipher_suite.main(["--oracle", "dev-s-latin-1", "--oracle-part", "half", "--out", "unused.jsonl"])
    assert e.value.code == 2 and "--oracle-part 'half'" in capsys.readouterr().err


def test_the_summary_counts_reads_and_the_diagnosis_by_the_rule(tmp_path):
    base = {"kind": "cipher", "split": "dev", "label": "x", "seed": 0, "p_at_10_strict": 0.5, "coverage": 0.8,
            "wall_s": 10.0}
    rows = [dict(base, id="a1", script="alphabet", p_at_10=0.9, values_share=0.8, read=True, flagged=False),
            dict(base, id="a2", script="alphabet", p_at_10=0.3, values_share=0.1, read=False, flagged=True),
            dict(base, id="c1", kind="control", script="alphabet", p_at_10=0.0, values_share=None, read=False,
                 flagged=False)]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = cipher_suite.table([path])
    assert "ciphers  2: read 1/2, P@10 mean 0.600" in out
    assert "controls 1 flagged 0" in out and "fine 2 of which read 1, not read 2 of which flagged 1" in out
    assert cipher_suite.done_keys(path) == {("a1", "x", 0), ("a2", "x", 0), ("c1", "x", 0)}
    assert cipher_suite.probably_wrong({"findings": [{"code": "close", "flag": True}]})
    assert not cipher_suite.probably_wrong({"findings": [{"code": "class", "flag": True}]})


def test_the_summary_reads_rediagnosed_rows_by_their_signs_read_again(tmp_path):
    """--rediagnose rows have no wall time nor strict P@10; their signs are the ones read again."""
    base = {"kind": "cipher", "split": "dev", "label": "g", "seed": 0, "script": "syllabary", "read": False,
            "flagged": True, "values_share": 0.5}
    rows = [dict(base, id="s1", p_at_10=0.95, values_share_now=0.64, read_now=True),
            dict(base, id="s2", p_at_10=0.80, values_share_now=0.47),      # older row: no read_now
            dict(base, id="s3", p_at_10=0.10, values_share_now=0.62)]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = cipher_suite.table([path])
    assert "ciphers  3: read 1/3, P@10 mean 0.617 (strict -), values right 0.577" in out
    assert "median wall" not in out
    s1 = next(ln for ln in out.splitlines() if "s1" in ln)
    assert "values 0.64 READ" in s1 and "strict - cov -" in s1


def test_the_test_split_is_refused_unless_asked_for(monkeypatch, capsys):
    monkeypatch.delenv("CIPHER_SUITE_TEST_RUN", raising=False)
    with pytest.raises(SystemExit) as e:
        cipher_suite.main(["--split", "test", "--label", "x", "--out", "unused.jsonl"])
    assert e.value.code == 2 and "run once, at the end" in capsys.readouterr().err


def test_cipher_closeness_holds_the_rule_only_when_the_relative_alone_is_closer_than_chance():
    from benchmarks.cipher_closeness import judged

    def row(known, verdict, margin):
        return known, {"known": known, "score_mean": "0.3", "null_mean": "0.2", "margin": str(margin), "p_holm": "0.01",
                       "verdict": verdict, "mapping_z": "", "decoding_z": "2.5"}

    good = dict([row("relative", "closer than chance", 0.1), row("unrelated", "no evidence", 0.01)])
    r = judged(good)
    assert r["rule_holds"] and r["rel_rank"] == 1 and r["unrel_rank"] == 2 and r["rel_mapping_z"] is None
    assert r["rel_decoding_z"] == 2.5
    # the unrelated list ranked first: the relative is not found even though it is closer than chance
    first = dict([row("unrelated", "no evidence", 0.2), row("relative", "closer than chance", 0.1)])
    assert not judged(first)["relative_found"] and not judged(first)["rule_holds"]
    both = dict([row("relative", "closer than chance", 0.1), row("unrelated", "closer than chance", 0.05)])
    r = judged(both)
    assert r["relative_found"] and not r["unrelated_rejected"] and not r["rule_holds"]


def test_cipher_closeness_rows_keep_each_runs_score_and_a_finished_cipher_is_passed_over(tmp_path):
    import json

    from benchmarks.cipher_closeness import done_ids, run_scores

    (tmp_path / "runs.csv").write_text(
        "known,seed,null,score,coverage,steps,wall_s,restart,restarts,objective,stopped\n"
        "relative,1,,3.1,0.8,10,1,0,1,-3.1,\nrelative,0,,2.9,0.8,10,1,0,1,-2.9,\n"
        "relative,0,0,2.0,0.7,10,1,0,1,-2.0,\nrelative,1,0,2.2,0.7,10,1,0,1,-2.2,\n"
        "unrelated,0,,1.5,0.6,10,1,0,1,-1.5,\nunrelated,0,0,1.6,0.6,10,1,0,1,-1.6,\n", encoding="utf-8")
    got = run_scores(tmp_path)
    assert got["rel_seed_scores"] == [2.9, 3.1] and got["rel_null_scores"] == {"0": [2.0, 2.2]}   # by seed
    assert got["unrel_seed_scores"] == [1.5] and got["unrel_null_scores"] == {"0": [1.6]}
    assert run_scores(tmp_path / "none") == {}
    out = tmp_path / "rows.jsonl"
    out.write_text("\n".join(json.dumps(r) for r in (
        {"id": "a", "score": "objective", "rule_holds": False}, {"id": "b", "score": "area", "rule_holds": True},
        {"id": "c", "score": "objective", "error": "exit 1"},
        {"id": "d", "score": "objective", "null_mode": "distant", "rule_holds": True})) + "\n", encoding="utf-8")
    assert done_ids(out, "objective") == {"a"} and done_ids(out, "area") == {"b"}   # an error row is run again
    assert done_ids(out, "objective", "distant") == {"d"}    # rows before the null mode was kept are phonotactic
    assert done_ids(tmp_path / "missing.jsonl", "area") == set()


def test_rediagnose_reads_a_syllable_runs_signs_again_with_this_checkouts_grid(tmp_path, monkeypatch):
    """A finished run's checkpoint, read again: the diagnosis and the signs at their key value as this checkout
    reads them, beside the run's own row."""
    from engine.config import Config
    from engine.training.trainer import Trainer

    monkeypatch.setattr(cipher_suite, "BUILD", tmp_path / "ciphers")
    monkeypatch.setattr(cipher_suite, "RUNS", tmp_path / "runs")
    c = toy("syllabary", relation="near", n=60)
    folder = tmp_path / "ciphers" / "toy-s"
    write_cipher(c, folder)
    corpus, vocab = cipher_suite.load_folder(folder)
    cfg = Config(signs="syllables", vowel_slot="joint", min_span=2, max_span=6, band=2, steps=4, anneal_steps=4,
                 eval_interval=0, feature_dim=8)
    trainer = Trainer(corpus, vocab, cfg, live_interval=None)
    list(trainer.run())
    run = tmp_path / "runs" / "lbl" / "toy-s-s0"
    run.mkdir(parents=True)
    trainer.save_checkpoint(run / "checkpoint.pt")
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "toy-s", "kind": "cipher", "split": "dev", "script": "syllabary",
                                "label": "lbl", "seed": 0, "p_at_10": 0.5, "values_share": 0.0, "read": False})
                    + "\n" + json.dumps({"id": "toy-s", "label": "lbl", "seed": 1, "error": "x"}) + "\n",
                    encoding="utf-8")
    assert cipher_suite.rediagnose(rows, tmp_path / "out.jsonl") == 0
    out = [json.loads(ln) for ln in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(out) == 1 and out[0]["values_share"] == 0.0          # the run's own figure is kept
    both, onsets, vowels, total = cipher_suite.syllables_right(trainer.mapping().syllables.top_values(),
                                                               cipher_suite.read_key(folder))
    assert total > 0 and out[0]["values_total"] == total
    assert out[0]["values_share_now"] == round(both / total, 4)
    assert out[0]["onsets_share_now"] == round(onsets / total, 4) and out[0]["vowels_share_now"] == round(vowels / total, 4)
    assert isinstance(out[0]["flagged"], bool) and "codes" in out[0]


def test_the_vowel_groups_row_says_what_the_vowels_check_makes_of_the_keys_own_vowels(tmp_path):
    """syllable_vowel_classes's key_* fields: the diagnosis's evidence on a reading with every vowel right, as the
    check's own function computes it on the chunks a preset run reads."""
    from benchmarks.experiments import syllable_vowel_classes as svc
    from benchmarks.experiments.syllable_objective import key_of
    from engine.model.sign_groups import vowel_evidence

    c = toy("syllabary", relation="near", n=400)
    write_cipher(c, tmp_path / "c")
    row = svc.key_evidence(tmp_path / "c", key_of(tmp_path / "c"))
    assert set(row) == {"key_agreement", "key_chance", "key_p", "key_stability"}
    assert row["key_agreement"] is not None and 0 <= row["key_p"] <= 1
    # the same evidence as the check's own function on the same chunks
    from engine.config import PRESETS, Config
    from engine.model.prepared import prepare
    prep = prepare(*cipher_suite.load_folder(tmp_path / "c"), Config(**PRESETS["syllabary"]))
    ev = vowel_evidence([ch.letters for ch in prep.chunks], {s: v for s, (_, v) in key_of(tmp_path / "c").items()})
    assert row["key_p"] == round(ev.p_value, 4) and row["key_agreement"] == round(ev.agreement, 4)


def test_the_oracle_rereads_a_released_checkpoint_with_its_signs_right_and_refuses_a_missing_one(tmp_path, monkeypatch,
                                                                                                 capsys):
    from engine.config import Config
    from engine.training.trainer import Trainer

    c = toy("syllabary", relation="near", n=60)
    write_cipher(c, tmp_path / "c")
    monkeypatch.setattr(cipher_suite, "build_cipher", lambda entry: tmp_path / "c")
    monkeypatch.setattr(cipher_suite, "RUNS", tmp_path / "runs")
    entry = {"id": "dev-s-toy", "script": "syllabary"}
    with pytest.raises(SystemExit) as e:
        cipher_suite.oracle(entry, "x", [], 1, 2, tmp_path / "rows.jsonl", reuse=True)
    assert e.value.code == 2 and "released.pt: no released checkpoint to reuse" in capsys.readouterr().err
    assert not (tmp_path / "rows.jsonl").exists()
    corpus, vocab = cipher_suite.load_folder(tmp_path / "c")
    t = Trainer(corpus, vocab, Config(signs="syllables", min_span=2, max_span=6, steps=2, eval_interval=0),
                live_interval=None)
    for _ in t.run():
        pass
    t.save_checkpoint(tmp_path / "runs" / "x-oracle" / "dev-s-toy" / "released.pt")
    row = cipher_suite.oracle(entry, "x", [], 1, 2, tmp_path / "rows.jsonl", reuse=True)
    both, _, _, total = cipher_suite.syllables_right(t.mapping().syllables.top_values(),
                                                     cipher_suite.read_key(tmp_path / "c"))
    assert row["values_share"] == pytest.approx(both / total) and row["read"] is False   # two steps read nothing
    assert row["command"].endswith("--reuse-released --out " + str(tmp_path / "rows.jsonl"))
    assert json.loads((tmp_path / "rows.jsonl").read_text(encoding="utf-8"))["p_at_10"] == row["p_at_10"]
