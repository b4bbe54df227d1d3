"""The issue-15 diagnostics: the Ugaritic standard values the mapping is read against, and the
synthetic problem's dense dictionary and cognate-less words."""

import collections

import pytest

from benchmarks.experiments.uga_mapping import mapping_state, standard_values
from benchmarks.experiments.vocab_scaling import synthetic_problem
from engine.config import Config
from engine.corpus import PinnedValue
from engine.training.trainer import Trainer


def test_standard_values_follow_the_transliteration_and_hebrews_mergers():
    values = {v.lost: v.known_ipa for v in standard_values(["a", "b", "$", "*", "x", "v", "@", "Z", "y", "?"])}
    assert values == {"a": "ʔ", "b": "b", "$": "ʃ", "*": "z", "x": "ħ", "v": "ʃ", "@": "ʕ", "Z": "sˤ", "y": "j"}


def test_the_mapping_state_counts_letters_and_their_tokens():
    from engine.datasets.synthetic import make_cipher

    c = make_cipher(n_stems=12, n_inscriptions=10, seed=1)
    pins = [PinnedValue(letter, unit) for unit, letter in c.key.items()]
    trainer = Trainer(c.corpus, c.vocabulary, Config(feature_dim=4, steps=60, anneal_steps=40, pin_weight=50,
                                                      eval_interval=0), pins=pins, live_interval=None)
    freq = collections.Counter(ch for ins in c.corpus.inscriptions for ch in ins.text if ch != " ")
    values = [p for p in pins if p.lost in trainer.prep.lost_letters]
    before = mapping_state(trainer, values, freq)
    list(trainer.run())
    after = mapping_state(trainer, values, freq)
    assert after["letters"] == before["letters"] == len(values)
    assert after["letters_right"] == len(values) and after["tokens_right"] == 1.0
    assert before["letters_right"] < len(values) and before["tokens_right"] < 1.0


def test_the_synthetic_problem_can_be_dense_and_hold_words_without_a_cognate():
    corpus, vocab, gold = synthetic_problem(10, stem_len=(3, 6), distractor_len=(3, 4), noise_words=20)
    plain_corpus, plain_vocab, plain_gold = synthetic_problem(10)
    assert len(corpus.inscriptions) == len(plain_corpus.inscriptions) + 20
    noise = [i for i in corpus.inscriptions if i.id.startswith("N")]
    assert len(noise) == 20 and all(3 <= len(i.text) <= 6 and " " not in i.text for i in noise)
    assert not {g.inscription_id for g in gold} & {i.id for i in noise}
    distractors = vocab.stems[-300:]
    assert all(3 <= len(s.ipa) <= 4 for s in distractors)
    assert any(len(s.ipa) == 3 for s in distractors)
    assert len(vocab.stems) == len(plain_vocab.stems)


def test_identical_forms_counts_the_words_written_as_their_cognate(tmp_path):
    from benchmarks.experiments.uga_mapping import identical_forms

    (tmp_path / "lost.csv").write_text("id,text\nu:1,aby\nu:2,bny\nu:3,mlkt\nu:4,ab\n", encoding="utf-8")
    (tmp_path / "gold.csv").write_text("inscription_id,start,word_end,known\nu:1,0,3,aby\nu:2,0,3,bnh\n"
                                       "u:3,0,4,mlkt|mlkh\nu:4,0,2,ab\n", encoding="utf-8")
    (tmp_path / "matches.csv").write_text(
        "inscription_id,start,end,span,rank,stem_form\nu:1,0,3,aby,1,abh\nu:1,0,3,aby,2,aby\n"
        "u:2,0,3,bny,1,bnh\nu:3,0,4,mlkt,1,mlkh\nu:4,0,2,ab,1,ab\n", encoding="utf-8")
    out = identical_forms(tmp_path, tmp_path / "matches.csv")
    assert (out["gold_words"], out["matched"], out["identical"], out["identical_top1"]) == (4, 4, 3, 2)
    assert (out["others"], out["others_top1"]) == (1, 1)
    assert out["identical_missed_by"] == ["y>h 1"]


def test_a_bad_input_is_one_line_and_status_2(tmp_path, capsys):
    from benchmarks.experiments.uga_mapping import main

    assert main(["--data", str(tmp_path), "--matches", str(tmp_path / "matches.csv")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "lost.csv" in err and "Traceback" not in err
    (tmp_path / "lost.csv").write_text("id,text\nu:1,ab\n", encoding="utf-8")
    assert main(["--data", str(tmp_path), "--at", "1", "--set", "lr=nope"]) == 2
    assert "lr" in capsys.readouterr().err


def test_the_standard_values_are_written_as_a_prior_the_run_reads(tmp_path):
    from benchmarks.experiments.uga_mapping import main
    from engine.io.tables import read_prior

    (tmp_path / "lost.csv").write_text("id,text\nu:1,aby\nu:2,vx H\n", encoding="utf-8")
    assert main(["--data", str(tmp_path), "--write-prior", str(tmp_path / "prior.csv")]) == 0
    pins = {p.lost: p.known_ipa for p in read_prior(tmp_path / "prior.csv")}
    assert pins == {"a": "ʔ", "b": "b", "y": "j", "v": "ʃ", "x": "ħ", "H": "ħ"}


def test_a_runs_checkpoint_is_written_and_read_back_with_its_objective(tmp_path, capsys):
    import json

    from benchmarks.experiments.uga_mapping import main

    (tmp_path / "lost.csv").write_text("id,text\nu:1,aby\nu:2,bny\nu:3,mlkt\n", encoding="utf-8")
    (tmp_path / "known.csv").write_text("form,ipa\naby,ʔbj\nbnh,bnh\nmlkt,mlkt\nabh,ʔbh\n", encoding="utf-8")
    (tmp_path / "gold.csv").write_text("inscription_id,start,word_end,known\nu:1,0,3,aby\n", encoding="utf-8")
    ckpt = tmp_path / "run.pt"
    assert main(["--data", str(tmp_path), "--at", "2", "--checkpoint-out", str(ckpt)]) == 0
    trained = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert main(["--data", str(tmp_path), "--checkpoint", str(ckpt), "--objective", "--objective-stems", "1", "4"]) == 0
    read = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert read["step"] == 2 and read["mapping_best"] == trained["mapping_best"]
    assert read["final_objective_without_pins_k4"] == pytest.approx(read["final_objective_without_pins"])
    assert read["final_objective_without_pins_k1"] < read["final_objective_without_pins_k4"]


def test_an_unwritable_output_and_a_bad_stem_count_are_one_line(tmp_path, capsys):
    from benchmarks.experiments.uga_mapping import main

    (tmp_path / "lost.csv").write_text("id,text\nu:1,aby\n", encoding="utf-8")
    assert main(["--data", str(tmp_path), "--write-prior", str(tmp_path / "no" / "prior.csv")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "prior.csv" in err and "Traceback" not in err
    with pytest.raises(SystemExit) as stop:
        main(["--data", str(tmp_path), "--objective-stems", "0"])
    assert stop.value.code == 2 and "from 1 on" in capsys.readouterr().err
