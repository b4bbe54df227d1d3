"""``decipher run --project``: a short real training run recorded in a project file."""

from __future__ import annotations

import pytest

from .test_project_helpers import DATA, sidecars

pytest.importorskip("torch")


def test_run_in_project_records_and_resumes(tmp_path, capsys):
    from engine.cli.main import main
    from engine.project import Project, import_gold, import_known, import_lost
    from engine.project.runner import resolve_checkpoint

    path = tmp_path / "p.decipher"
    with Project.create(path) as project:
        import_lost(project, DATA / "lost.csv", name="iberian")
        import_known(project, DATA / "known.csv", name="basque")
        import_gold(project, DATA / "gold.csv")
    settings = ["--set", "min_span=2", "--set", "eval_interval=1", "--set", "chars_per_batch=40"]
    assert main(["run", "--project", str(path), "--steps", "2", "--quiet", "--device", "cpu", *settings]) == 0
    with Project.open(path) as project:
        [run] = project.runs()
        assert run.status == "completed" and run.last_step == 2 and run.device == "cpu"
        assert run.checkpoint == "p.decipher.runs/run-1/checkpoint.pt"
        assert resolve_checkpoint(path, run.checkpoint).exists()
        assert {"p_at_1", "coverage", "loss/total"} <= set(project.latest_metrics(run.id))
        matches = project.matches(run.id)
        assert matches and all(m.alternatives for m in matches)
    checkpoint = resolve_checkpoint(path, "p.decipher.runs/run-1/checkpoint.pt")
    assert main(["run", "--project", str(path), "--steps", "3", "--quiet", "--device", "cpu",
                 "--resume", str(checkpoint), *settings]) == 0
    with Project.open(path) as project:
        second = project.runs()[-1]
        assert second.resumed_from == 1 and second.status == "completed" and second.last_step == 3
    assert not sidecars(path)
    assert "run 2 in" in capsys.readouterr().err
    assert main(["project", "runs", str(path)]) == 0  # the verbs through the main entry point
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[:4] for line in lines[1:]] == [["1", "completed", "basque", "2"],
                                                       ["2", "completed", "basque", "3"]]
