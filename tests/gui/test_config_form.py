"""The run-settings form is built from engine.config's metadata (no source code read), shows each
setting's allowed range, and refuses a bad value with the config's one-line message."""

import inspect
import linecache
import math

import pytest

from decipher_gui import config_form
from engine.config import Config, SettingError, settings_info


@pytest.fixture
def no_source(monkeypatch):
    """As in a frozen bundle: no .py source to read."""
    def refuse(*args, **kwargs):
        raise OSError("could not get source code (frozen)")

    for name in ("getsource", "getsourcelines", "findsource"):
        monkeypatch.setattr(inspect, name, refuse)
    monkeypatch.setattr(linecache, "getlines", lambda *a, **k: [])
    config_form.config_fields.cache_clear()
    yield
    config_form.config_fields.cache_clear()


def test_form_builds_without_source_files(qtbot, no_source):
    from decipher_gui.panels.runs import SettingsForm

    form = SettingsForm(advanced_open=True)
    qtbot.addWidget(form)
    assert set(form.editors) == {i.name for i in settings_info()}
    assert form.config() == Config()
    fields = {f.name: f for f in config_form.config_fields()}
    assert fields["lr"].section == "optimisation" and "SGD" in fields["lr"].doc
    assert fields["edit_mode"].choices == ("softmin", "max", "sum")


def test_tooltips_state_the_allowed_range(qtbot):
    from decipher_gui.panels.runs import SettingsForm

    form = SettingsForm()
    qtbot.addWidget(form)
    lr = form.editors["lr"][0]
    assert "Allowed: a finite number > 0 and <= 10." in lr.toolTip()
    assert "Default: 0.2 (paper)" in lr.toolTip()
    assert "Allowed: a whole number from 0 to 4,294,967,295." in form.editors["seed"][0].toolTip()
    for info in settings_info():
        assert "Allowed:" in form.editors[info.name][0].toolTip(), info.name
    # spin boxes cannot leave the range
    top_k = form.editors["top_k"][0]
    assert (top_k.minimum(), top_k.maximum()) == (1, 1000)
    assert form.editors["feature_dim"][0].minimum() == 1


@pytest.mark.parametrize("key, text", [("lr", "inf"), ("lr", "-1"), ("temperature", "1e-30"),
                                       ("clip_norm", "nan"), ("seed", "99999999999"), ("lr", "abc")])
def test_a_bad_value_is_refused_with_the_range(qtbot, key, text):
    from decipher_gui.panels.runs import SettingsForm

    form = SettingsForm()
    qtbot.addWidget(form)
    edit = form.editors[key][0]
    edit.setText(text)
    assert edit.problem and f"setting {key}: must be" in edit.problem
    assert edit.problem in edit.toolTip() and "border" in edit.styleSheet()
    with pytest.raises(SettingError, match=f"setting {key}: must be"):
        form.config()
    edit.setText(config_form._text(getattr(Config(), key)))
    assert edit.problem is None and edit.styleSheet() == ""
    assert form.config() == Config()


def test_small_and_exact_floats_survive_the_form(qtbot):
    """The old spin boxes had 4 decimals: lr=1e-5 became 0.0."""
    from decipher_gui.panels.runs import SettingsForm

    form = SettingsForm()
    qtbot.addWidget(form)
    cfg = Config(lr=1e-05, temperature=0.123456789, seed=2**32 - 1, device="cuda:1")
    form.set_config(cfg)
    assert form.config() == cfg


def test_window_refuses_to_start_with_a_bad_value(window):
    window.runs.form.editors["lr"][0].setText("inf")
    assert not window.start_run()
    title, message = window.last_error
    assert title == "Invalid run settings"
    assert message == "setting lr: must be a finite number > 0 and <= 10, got inf"
    assert window.project.runs() == []
    assert math.isfinite(Config().lr)


@pytest.mark.parametrize("text, expected", [("-3", 15), ("1000000000", 15), ("abc", 15),
                                            ("99999999999999999999", 15), ("12", 12)])
def test_numeric_preferences_are_range_checked(isolated_settings, text, expected):
    from decipher_gui import settings

    ini = settings.SETTINGS_PATH
    ini.parent.mkdir(parents=True, exist_ok=True)
    ini.write_text(f"[General]\ntext_point_size={text}\nmax_recent={text}\n", encoding="utf-8")
    assert settings.get("text_point_size") == expected
    assert settings.get("max_recent") == (expected if expected != 15 else 6)
    with pytest.raises(ValueError, match="text_point_size"):
        settings.put("text_point_size", 0)
