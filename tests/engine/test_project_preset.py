"""Issue 51, item 3: the preset is kept in the project. `decipher project new P --preset NAME` and
`decipher run --project P --preset NAME` (or --config) store the run settings in the project, where
the app's Run panel takes them; `decipher run --project P` without a preset starts from them too."""

from __future__ import annotations

from engine.cli.main import build_parser, main as cli_main
from engine.cli.options import config_of
from engine.cli.project import main as project_main
from engine.config import PRESET_INFO, Config
from engine.datasets.sample import RUN_CONFIG_KEY, create_sample_project
from engine.project import Project


def test_project_new_keeps_the_preset(tmp_path, capsys):
    path = tmp_path / "lb.decipher"
    assert project_main(["new", str(path), "--preset", "linear-b"]) == 0
    assert "run settings: preset linear-b" in capsys.readouterr().out
    with Project.open(path) as p:
        stored = Config.from_dict(p.setting(RUN_CONFIG_KEY))
    assert stored == PRESET_INFO["linear-b"].config() and stored.signs == "syllables"
    assert project_main(["new", str(tmp_path / "x.decipher"), "--preset", "nope"]) == 2
    assert not (tmp_path / "x.decipher").exists()
    assert project_main(["new", str(tmp_path / "plain.decipher")]) == 0
    with Project.open(tmp_path / "plain.decipher") as p:
        assert p.setting(RUN_CONFIG_KEY) is None


def test_a_run_without_a_preset_starts_from_the_projects_settings(tmp_path):
    path = tmp_path / "lb.decipher"
    assert project_main(["new", str(path), "--preset", "linear-b"]) == 0
    args = build_parser().parse_args(["run", "--project", str(path), "--steps", "5", "--set", "lr=0.3"])
    config = config_of(args)
    assert config == PRESET_INFO["linear-b"].config(steps=5, lr=0.3)
    args = build_parser().parse_args(["run", "--project", str(path), "--preset", "paper"])
    assert config_of(args).signs == "letters"


def test_a_cli_run_with_a_preset_leaves_it_in_the_project(tmp_path, capsys):
    path = tmp_path / "s.decipher"
    create_sample_project(path).close()
    with Project.open(path) as p:
        p.set_setting(RUN_CONFIG_KEY, None)
    code = cli_main(["run", "--project", str(path), "--preset", "ugaritic", "--steps", "2",
                     "--set", "anneal_steps=2", "--set", "eval_interval=0", "--set", "chars_per_batch=200",
                     "--device", "cpu", "--quiet"])
    assert code == 0
    assert "keeps this run's settings (preset ugaritic)" in capsys.readouterr().err
    with Project.open(path) as p:
        stored = Config.from_dict(p.setting(RUN_CONFIG_KEY))
        run = p.runs()[-1]
    assert stored == PRESET_INFO["ugaritic"].config(steps=2, anneal_steps=2, eval_interval=0,
                                                    chars_per_batch=200, device="cpu")
    assert run.settings() == stored


def test_a_stored_value_now_refused_falls_back_and_is_said(tmp_path, capsys):
    path = tmp_path / "p.decipher"
    assert project_main(["new", str(path), "--preset", "linear-b"]) == 0
    with Project.open(path) as p:
        p.set_setting(RUN_CONFIG_KEY, {**p.setting(RUN_CONFIG_KEY), "lr": 1000.0})
    config = config_of(build_parser().parse_args(["run", "--project", str(path)]))
    assert config.signs == "syllables" and config.lr == Config().lr
    assert "run settings: " in capsys.readouterr().err
