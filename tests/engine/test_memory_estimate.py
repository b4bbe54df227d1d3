"""Issue 28 item 4: a corpus too large for the machine is refused in one line before anything is built;
a large one is told how much memory its run will take."""

import pytest

from engine.config import Config
from engine.corpus import Corpus, Inscription, Stem, Vocabulary
from engine.errors import InputError
from engine.model.prepared import BASE_BYTES, BYTES_PER_LETTER, check_memory, memory_estimate

VOCAB = Vocabulary("v", tuple(Stem(w, w) for w in ("baka", "dala", "gama", "tana")))


def corpus(*texts):
    return Corpus("c", tuple(Inscription(f"I{i}", t) for i, t in enumerate(texts)))


def test_the_estimate_grows_with_the_letters_whatever_their_cut():
    assert memory_estimate(corpus("ab" * 500)) == memory_estimate(corpus(*["ab"] * 500)) \
        == BASE_BYTES + BYTES_PER_LETTER * 1000
    assert memory_estimate(corpus("a" * 2000)) > memory_estimate(corpus("a" * 1000))


def test_a_corpus_above_the_limit_is_refused_in_one_line_naming_the_setting():
    big = corpus("bakadala" * 100, "gama")
    with pytest.raises(InputError) as e:
        check_memory(big, Config(memory_limit_gb=0.5))
    line = str(e.value)
    assert "\n" not in line and "804 letters" in line and "'I0', 800" in line
    assert "memory_limit_gb" in line and "0.5 GB" in line
    check_memory(big, Config(memory_limit_gb=2))            # within a higher limit
    check_memory(big, Config())                             # 0: half of this machine


def test_the_trainer_refuses_before_building_anything(monkeypatch):
    from engine.training import trainer as trainer_module

    built = []
    monkeypatch.setattr(trainer_module, "prepare", lambda *a, **k: built.append(1))
    with pytest.raises(InputError, match="memory_limit_gb"):
        trainer_module.Trainer(corpus("bakadala" * 10), VOCAB, Config(memory_limit_gb=0.1))
    assert built == []


def test_the_cli_says_it_in_one_line_with_status_2(tmp_path, capsys):
    from engine.cli.main import main

    (tmp_path / "lost.csv").write_text("id,text\nA,bakadalagama\n", encoding="utf-8")
    (tmp_path / "known.csv").write_text("form,ipa\nbaka,baka\ndala,dala\n", encoding="utf-8")
    code = main(["run", "--lost", str(tmp_path / "lost.csv"), "--known", str(tmp_path / "known.csv"),
                 "--set", "memory_limit_gb=0.1", "--steps", "1", "--quiet", "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "memory_limit_gb" in err[0]
    assert not (tmp_path / "r" / "metrics.json").exists()


def test_a_large_run_is_told_its_memory_before_the_trainer_is_built(monkeypatch):
    from engine.runs.session import RunInputs, RunSession, RunSink

    monkeypatch.setattr("engine.model.prepared.LARGE_RUN_BYTES", 0)
    assert "GB of memory" in check_memory(corpus("abc"), Config())
    said = []

    class Heard(RunSink):
        def message(self, text):
            said.append(text)

    def build(inputs, live_interval=None):
        said.append("built")
        raise RuntimeError("stop here")

    session = RunSession(RunInputs(corpus("bakadala"), VOCAB, Config(steps=1, anneal_steps=1)), sinks=[Heard()],
                         build=build)
    with pytest.raises(RuntimeError):
        session.run()
    assert "GB of memory" in said[0] and said[1] == "built"
