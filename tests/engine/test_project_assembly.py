"""``engine/project/runner.py`` ``assemble_run``: the one place a run in a project is put together,
for ``decipher run --project`` and the app's run process alike (no training here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import Config
from engine.corpus import PinnedValue
from engine.errors import ProjectError
from engine.project import Project, import_gold, import_known, import_lost, import_prior
from engine.project.recording import stored_path
from engine.project.runner import ProjectRunSpec, assemble_run
from engine.runs.outputs import OutputFolder
from engine.runs.session import RunSink

from .test_project_helpers import DATA


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "p.decipher"
    with Project.create(path) as p:
        import_lost(p, DATA / "lost.csv", name="iberian")
        import_known(p, DATA / "known.csv", name="basque")
        import_gold(p, DATA / "gold.csv")
        import_prior(p, DATA / "prior.csv")
    with Project.open(path) as p:
        yield p


def _ids(project: Project) -> tuple[int, int]:
    return project.corpora()[0].id, project.languages()[0].id


def test_the_inputs_come_from_the_project(project):
    run = assemble_run(project, ProjectRunSpec(Config(steps=7)))
    inputs = run.session.inputs
    assert inputs.corpus == project.corpus(_ids(project)[0]) and run.corpus_name == "iberian"
    assert inputs.vocabulary == project.vocabulary(_ids(project)[1]) and run.language_name == "basque"
    assert inputs.gold == tuple(project.gold(_ids(project)[0])) and len(inputs.gold) == 3
    assert inputs.pins == tuple(project.pins()) and {"b", "k"} <= {p.lost for p in inputs.pins}
    assert inputs.config.steps == 7 and inputs.resume is None and dict(inputs.overrides) == {}
    assert run.session.sinks == [run.recorder] and run.recorder.critical
    assert run.recorder.project is project  # the caller's connection: nothing opened behind its back


def test_the_app_names_ids_and_its_own_pins(project):
    corpus, language = _ids(project)
    pins = (PinnedValue("t", "t"),)
    run = assemble_run(project, ProjectRunSpec(Config(), corpus, language, pins=pins), critical=False)
    assert run.session.inputs.pins == pins, "the pins the app started with, not the project's"
    assert (run.recorder.corpus_id, run.recorder.language_id) == (corpus, language)
    assert not run.recorder.critical
    with pytest.raises(ProjectError):
        assemble_run(project, ProjectRunSpec(Config(), corpus + 100, language))


def test_names_choose_the_corpus_and_language(project):
    run = assemble_run(project, ProjectRunSpec(Config(), "iberian", "basque"))
    assert (run.recorder.corpus_id, run.recorder.language_id) == _ids(project)
    with pytest.raises(ProjectError, match="nope"):
        assemble_run(project, ProjectRunSpec(Config(), "nope"))


def test_a_resume_names_the_run_it_continues(project, tmp_path):
    corpus, language = _ids(project)
    checkpoint = tmp_path / "old.pt"
    first = project.start_run(Config(), corpus, language)
    project.set_checkpoint(first, stored_path(project.path, checkpoint))
    spec = ProjectRunSpec(Config(steps=9), resume=checkpoint, overrides={"steps": 9})
    run = assemble_run(project, spec)
    assert run.recorder.resumed_from == first
    assert run.session.inputs.resume == checkpoint and dict(run.session.inputs.overrides) == {"steps": 9}
    second = project.start_run(Config(), corpus, language)  # e.g. an --out folder two runs shared
    project.set_checkpoint(second, stored_path(project.path, checkpoint))
    assert assemble_run(project, spec).recorder.resumed_from == second, "the newest run with that file"
    chosen = ProjectRunSpec(Config(), resume=checkpoint, resumed_from=first)  # the app says which
    assert assemble_run(project, chosen).recorder.resumed_from == first


def test_the_checkpoint_and_the_sinks_in_order(project, tmp_path):
    class Extra(RunSink):
        pass

    extra, lines = Extra(), []
    run = assemble_run(project, ProjectRunSpec(Config()), out_dir=tmp_path / "out", sinks=[extra], log=lines.append)
    kinds = [type(s).__name__ for s in run.session.sinks]
    assert kinds == ["RunRecorder", "_Announce", "OutputFolder", "Extra"]
    assert isinstance(run.session.sinks[2], OutputFolder) and run.session.sinks[-1] is extra
    assert run.session._checkpoint_spec == Path(tmp_path / "out" / "checkpoint.pt")
    plain = assemble_run(project, ProjectRunSpec(Config()))
    assert plain.session._checkpoint_spec == plain.recorder.checkpoint_file  # <project>.runs/run-<id>/
