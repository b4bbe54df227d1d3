"""Settings: one metadata table, one parser, one range check, used by --set, --config, stored
configs and report imports; every refused value is one line naming the key and its range."""

import dataclasses
import json
import math
import os
import sqlite3
import typing

import pytest

from engine import config as config_module
from engine.cli.main import main
from engine.config import (CODE, OURS, PAPER, PRESET_INFO, PRESETS, SECTIONS, Config, SettingError,
                           check_value, parse_assignments, parse_value, settings_info)
from engine.errors import InputError
from engine.io.tables import write_known, write_lost
from engine.datasets.synthetic import make_cipher


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cipher")
    c = make_cipher(n_stems=20, n_inscriptions=20, seed=4)
    write_lost(d / "lost.csv", c.corpus.inscriptions)
    write_known(d / "known.csv", c.vocabulary.stems)
    return d


def _run(files, tmp_path, *extra):
    out = tmp_path / "out"
    return main(["run", "--lost", str(files / "lost.csv"), "--known", str(files / "known.csv"),
                 "--out", str(out), "--quiet", *extra]), out


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err
    return lines[0]


# ---- issue 9 item 4: every value listed there is refused before anything runs -----------------

REFUSED = [
    ("lr=inf", "lr", "> 0"),
    ("lr=-1", "lr", "> 0"),
    ("lr=1e9", "lr", "<= 10"),
    ("temperature=nan", "temperature", ">= 0.01"),
    ("temperature=1e-30", "temperature", ">= 0.01"),
    ("reward_scale=inf", "reward_scale", "> 0"),
    ("band=-1", "band", "from 0 to"),
    ("max_chunk=0", "max_chunk", "from 1 to"),
    ("init_interval=inf", "init_interval", "> 0"),
    ("seed=99999999999999999999999", "seed", "from 0 to 4,294,967,295"),
    ("seed=-1", "seed", "from 0 to"),
    ("feature_dim=0", "feature_dim", "from 1 to"),
    ("top_k=0", "top_k", "from 1 to"),
    ("clip_norm=nan", "clip_norm", ">= 0"),
    ("steps=100000000", "steps", "from 0 to 10,000,000"),
    ("dropout=1", "dropout", "< 1"),
    ("unmatched_prior=0", "unmatched_prior", "> 0"),
    ("coverage_end=1.5", "coverage_end", "<= 1"),
    ("sound_loss_weight=-inf", "sound_loss_weight", ">= 0"),
    ("edit_mode=best", "edit_mode", "one of softmin, max, sum"),
    ("segmented=maybe", "segmented", "true or false"),
    ("steps=12.5", "steps", "whole number"),
    ("device=gpu", "device", "cuda:N"),
    ("max_chunk=5", "max_chunk", "at least max_span (10)"),
    ("chars_per_batch=8", "chars_per_batch", "at least max_span (10)"),
    ("min_span=11", "min_span", "at most max_span (10)"),
]


@pytest.mark.parametrize("pair, key, allowed", REFUSED)
def test_bad_setting_is_one_line_and_exit_2(files, tmp_path, capsys, pair, key, allowed):
    code, out = _run(files, tmp_path, "--set", pair)
    line = _one_line_error(capsys)
    assert code == 2
    assert f"setting {key}: must be" in line and allowed in line, line
    assert not out.exists()            # refused before anything is written


def test_bad_value_is_shown_as_typed(files, tmp_path, capsys):
    _run(files, tmp_path, "--set", "lr=inf")
    assert _one_line_error(capsys) == "error: setting lr: must be a finite number > 0 and <= 10, got inf"


def test_bad_flag_values_are_checked_too(files, tmp_path, capsys):
    code, _ = _run(files, tmp_path, "--seed", str(2**64))
    assert code == 2 and "setting seed" in _one_line_error(capsys)
    code, _ = _run(files, tmp_path, "--steps", "-3")
    assert code == 2 and "setting steps" in _one_line_error(capsys)


def test_unknown_setting_and_missing_equals(files, tmp_path, capsys):
    code, _ = _run(files, tmp_path, "--set", "temprature=0.3")
    line = _one_line_error(capsys)
    assert code == 2 and "temprature" in line and "did you mean temperature" in line
    code, _ = _run(files, tmp_path, "--set", "lr")
    assert code == 2 and "KEY=VALUE" in _one_line_error(capsys)


def test_edge_values_inside_the_ranges_are_accepted():
    cfg = Config.from_dict(parse_assignments([
        "lr=10", "temperature=0.01", "band=0", "seed=4294967295", "clip_norm=0", "eval_interval=0",
        "max_chunk=10", "chars_per_batch=10", "steps=10000000", "device=cuda:1", "segmented=yes",
        "steps=1e3"]))
    assert (cfg.lr, cfg.temperature, cfg.band, cfg.seed, cfg.steps) == (10.0, 0.01, 0, 2**32 - 1, 1000)
    assert cfg.segmented is True and cfg.device == "cuda:1"
    for key, text in [("lr", "10.000001"), ("temperature", "0.0099"), ("seed", "4294967296")]:
        with pytest.raises(SettingError):
            parse_value(key, text)


def test_direct_construction_is_checked_and_lists_every_problem():
    with pytest.raises(SettingError) as e:
        Config(lr=math.inf, top_k=0)
    text = str(e.value)
    assert "\n" not in text and "setting lr:" in text and "setting top_k:" in text
    assert e.value.key == "lr"
    # types are checked too: a bool is not a number, a number is not a bool
    for key, value in [("steps", True), ("segmented", 1), ("lr", "0.2"), ("edit_mode", 3)]:
        with pytest.raises(SettingError):
            check_value(key, value)
    assert check_value("lr", 1) == 1.0 and isinstance(check_value("lr", 1), float)


def test_the_seed_range_is_what_torch_and_numpy_accept():
    import numpy as np
    import torch

    top = config_module.MAX_SEED
    torch.manual_seed(top)
    np.random.seed(top)
    with pytest.raises(ValueError):
        np.random.seed(top + 1)


# ---- --config: every file problem is one line naming the file --------------------------------

def test_config_file_problems_are_one_line(files, tmp_path, capsys):
    cases = {}
    (tmp_path / "latin1.toml").write_bytes("# réglages\nlr = 0.1\n".encode("latin-1"))
    cases["latin1.toml"] = "not UTF-8"
    (tmp_path / "folder.toml").mkdir()
    cases["folder.toml"] = "is a folder"
    cases["missing.toml"] = "file not found"
    (tmp_path / "broken.toml").write_text("lr = = 1\n", encoding="utf-8")
    cases["broken.toml"] = "not valid TOML"
    (tmp_path / "inf.toml").write_text("[config]\nlr = inf\n", encoding="utf-8")
    cases["inf.toml"] = "setting lr: must be a finite number > 0"
    (tmp_path / "typo.toml").write_text("lrr = 0.1\n", encoding="utf-8")
    cases["typo.toml"] = "unknown setting(s): lrr"
    (tmp_path / "bool.toml").write_text("steps = true\n", encoding="utf-8")
    cases["bool.toml"] = "setting steps: must be a whole number"
    for name, needle in cases.items():
        code, _ = _run(files, tmp_path, "--config", str(tmp_path / name))
        line = _one_line_error(capsys)
        assert code == 2 and str(tmp_path / name) in line and needle in line, line


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads any file")
def test_unreadable_config_file(files, tmp_path, capsys):
    path = tmp_path / "secret.toml"
    path.write_text("lr = 0.1\n", encoding="utf-8")
    path.chmod(0)
    try:
        code, _ = _run(files, tmp_path, "--config", str(path))
    finally:
        path.chmod(0o600)
    line = _one_line_error(capsys)
    assert code == 2 and str(path) in line and "permission denied" in line


@pytest.mark.parametrize("exc, needle", [(PermissionError(13, "Permission denied"), "permission denied"),
                                          (OSError(5, "Input/output error"), "cannot read the file (Input/output error)")])
def test_unreadable_config_file_whoever_runs_the_tests(files, tmp_path, capsys, monkeypatch, exc, needle):
    import os

    path = tmp_path / "settings.toml"
    path.write_text("lr = 0.1\n", encoding="utf-8")
    real_open = os.open

    def refuse(name, *args, **kwargs):   # inputs are opened by engine.io.text.read_input
        if os.fspath(name) == str(path):
            raise exc
        return real_open(name, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    code, _ = _run(files, tmp_path, "--config", str(path))
    line = _one_line_error(capsys)
    assert code == 2 and str(path) in line and needle in line


def test_config_file_preset_and_set_combine(tmp_path):
    from engine.config import config_from_options, resume_overrides

    path = tmp_path / "good.toml"
    path.write_text("lr = 1\nsteps = 50\nmin_span = 4\n", encoding="utf-8")
    cfg = config_from_options(preset="iberian", config_file=path, assignments=["steps=60"], steps=None, seed=7)
    # the preset wins over the file (as before), --set and the flags over both
    assert (cfg.lr, cfg.min_span, cfg.coverage_end, cfg.steps, cfg.seed) == (1.0, 3, 0.1, 60, 7)
    # a resume keeps the checkpoint's settings except those given explicitly; a preset counts as all
    assert resume_overrides(assignments=["lr=0.5"], steps=900, seed=None) == {"lr": 0.5, "steps": 900}
    assert resume_overrides(preset="iberian")["coverage_end"] == 0.1
    with pytest.raises(TypeError):
        config_from_options(stepz=3)


# ---- the metadata table ----------------------------------------------------------------------

def test_every_field_has_section_help_source_and_range():
    names = [f.name for f in dataclasses.fields(Config)]
    infos = settings_info()
    assert [i.name for i in infos] == names
    hints = typing.get_type_hints(Config)
    for info in infos:
        assert info.section in SECTIONS, info.name
        assert len(info.help) > 15, f"{info.name} needs a help text"
        assert info.source in (PAPER, CODE, OURS), info.name
        assert info.allowed, info.name
        if hints[info.name] in (int, float):
            assert info.minimum is not None and info.maximum is not None, f"{info.name} needs a range"
            assert info.minimum <= info.default <= info.maximum
        elif info.kind == "str":
            assert info.choices and info.default in info.choices, info.name
            lit = typing.get_args(hints[info.name])
            assert not lit or set(lit) == set(info.choices)
        else:
            assert info.kind == "bool"
    # sections appear in SECTIONS order, each in one block
    order = [i.section for i in infos]
    blocks = [s for k, s in enumerate(order) if k == 0 or order[k - 1] != s]
    assert blocks == list(SECTIONS)


def test_a_field_without_metadata_is_refused_at_import(monkeypatch):
    @dataclasses.dataclass(frozen=True)
    class Extended(Config):
        new_knob: float = 1.0

    monkeypatch.setattr(config_module, "Config", Extended)
    with pytest.raises(TypeError, match="new_knob"):
        config_module._build_info()


def test_every_default_round_trips_through_the_parser():
    default = Config()
    for info in settings_info():
        value = getattr(default, info.name)
        text = repr(value) if isinstance(value, float) else str(value)
        assert parse_value(info.name, text) == value, info.name


def test_summary_text_round_trips_through_the_report_importer():
    from engine.project.importing import parse_settings

    cfg = Config(feature_dim=35, segmented=True, temperature=0.25, edit_mode="max", lr=1e-05, seed=123)
    assert Config.from_dict(parse_settings(cfg.summary())) == cfg
    with pytest.raises(SettingError, match="setting lr"):
        parse_settings("lr=inf")


def test_presets_are_valid_and_described():
    assert set(PRESETS) == set(PRESET_INFO) == {"paper", "ugaritic", "iberian", "linear-b", "syllabary"}
    for name, preset in PRESET_INFO.items():
        assert preset.name == name and preset.title and len(preset.description) > 30
        cfg = preset.config()
        for key, value in PRESETS[name].items():
            assert getattr(cfg, key) == value
    assert PRESET_INFO["ugaritic"].config().segmented is True
    # each names the gold its values were fitted on, and --preset's help says it (issue 53)
    assert all("gold" in p.fitted_on for p in PRESET_INFO.values())
    assert "Linear B–Greek cognates' gold" in PRESET_INFO["linear-b"].fitted_on
    assert "Ugaritic–Hebrew small set's gold" in PRESET_INFO["paper"].fitted_on
    from engine.config import presets_help
    assert all(f"{name} (fitted on {p.fitted_on})" in presets_help() for name, p in PRESET_INFO.items())


# ---- stored configs --------------------------------------------------------------------------

def test_to_dict_from_dict_round_trip_and_json():
    cfg = Config(**PRESETS["ugaritic"], seed=9)
    data = json.loads(json.dumps(cfg.to_dict()))
    assert Config.from_dict(data) == cfg


def test_old_stored_config_with_a_now_refused_value(tmp_path):
    """Loading is strict (the stored dict is never rewritten): a run whose stored settings hold a
    value the ranges now refuse is listed with a note naming the key, resuming it is refused with
    that line, and from_stored gives a front end the usable rest with a note per dropped value."""
    from engine.project.store import Project

    with pytest.raises(SettingError, match="old.json: setting lr: must be"):
        Config.from_dict({"lr": math.inf, "steps": 10}, path="old.json")
    cfg, notes = Config.from_stored({"lr": 1e9, "steps": 10, "seed": -5, "gone": 1})
    assert (cfg.lr, cfg.steps, cfg.seed) == (0.2, 10, 0)
    assert len(notes) == 3 and any("setting lr" in n and "using the default 0.2" in n for n in notes)
    cfg, notes = Config.from_stored({"min_span": 8, "max_span": 5})
    assert cfg == Config() and "min_span" in notes[0]

    path = tmp_path / "p.decipher"
    project = Project.create(path)
    c = make_cipher(n_stems=10, n_inscriptions=5, seed=1)
    corpus = project.add_corpus("c", c.corpus.inscriptions)
    language = project.add_language("k", c.vocabulary.stems)
    run_id = project.start_run(Config(steps=5), corpus, language)
    project.close()
    con = sqlite3.connect(path)
    con.execute("UPDATE run SET config = ? WHERE id = ?", (json.dumps({"lr": 1e9, "steps": 5}), run_id))
    con.commit()
    con.close()
    project = Project.open(path)
    try:
        run = project.run(run_id)
        assert run.config["lr"] == 1e9                     # the record is kept as stored
        assert "setting lr" in run.summary()
        with pytest.raises(InputError, match="setting lr"):
            run.settings()
    finally:
        project.close()


def test_docs_settings_md_is_generated_from_the_metadata():
    from pathlib import Path

    doc = Path(__file__).resolve().parents[2] / "docs" / "settings.md"
    assert doc.read_text(encoding="utf-8") == config_module.settings_markdown(), \
        "regenerate with: python -m engine.config > docs/settings.md"


# ------------------------------------------------------------------ settings added since runs were stored


def test_a_setting_added_since_leaves_the_identity_of_runs_from_before_unchanged():
    from engine.config import ADDED_SETTINGS

    before = {k: v for k, v in Config(seed=3).to_dict().items() if k not in ADDED_SETTINGS and k != "seed"}
    assert Config(seed=3).identity() == before                  # every added setting at its neutral value
    assert Config(onsets_first=0.5).identity()["onsets_first"] == 0.5
    assert "seed" not in Config(seed=7).identity()
    for key, neutral in ADDED_SETTINGS.items():                 # the neutral value is the default
        assert Config().to_dict()[key] == neutral


def test_a_stored_record_without_an_added_setting_matches_a_run_at_its_neutral_value():
    from engine.inputs_digest import changes, make_record

    inputs = {"lost file": "ab", "known file": "cd"}
    now = Config(steps=50).to_dict()
    old = make_record({k: v for k, v in now.items() if k != "onsets_first"}, inputs)   # made before it existed
    assert changes(old, make_record(now, inputs)) == []
    assert changes(old, make_record({**now, "onsets_first": 0.5}, inputs)) == ["onsets_first: (unset) -> 0.5"]
    assert changes(old, make_record({**now, "lr": 0.3}, inputs)) == [f"lr: {now['lr']} -> 0.3"]


def test_a_setting_of_what_is_checked_after_the_run_does_not_make_a_finished_run_run_again():
    """A comparison plans its runs with reference_null = "off"; a run it finished before that setting
    existed (no key) or with another value reads the same, so a resumed comparison keeps it."""
    from engine.inputs_digest import changes, make_record

    inputs = {"lost file": "ab", "known file": "cd"}
    now = Config(steps=50).to_dict()
    before = make_record({k: v for k, v in now.items() if k != "reference_null"}, inputs)
    assert changes(before, make_record({**now, "reference_null": "off"}, inputs)) == []
    assert changes(make_record({**now, "reference_null": "on"}, inputs),
                   make_record({**now, "reference_null": "off"}, inputs)) == []
    # anything else that differs is still said, and only that
    assert changes(before, make_record({**now, "reference_null": "off", "lr": 0.3}, inputs)) == [
        f"lr: {now['lr']} -> 0.3"]
