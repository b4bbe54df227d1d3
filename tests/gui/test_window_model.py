"""The window's model (decipher_gui/model.py) without a window or a display: it owns showing a
run, the current mapping, the marks and the pins in force, and builds the edits' commands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.config import Config
from engine.corpus import PinnedValue
from engine.errors import DecipherError
from engine.project import record_mapping, record_pins
from engine.results import Alternative, MappingSnapshot, Match

from decipher_gui.commands import DecideSpan
from decipher_gui.model import LiveRun, WindowModel, open_project_file

ROOT = Path(__file__).resolve().parents[2]


def test_the_model_loads_no_qt():
    code = ("import sys, decipher_gui.model, decipher_gui.state; "
            "print(sorted(m for m in sys.modules if m.startswith('PySide6')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.fixture
def stored(sample_path):
    """The sample project with one completed run: two matches, a mapping at step 20 and the pin
    l → /l/ from step 0; the project's pins then gain m → /m/, which that run never had."""
    project = open_project_file(sample_path)
    corpus, language = project.corpora()[0].id, project.languages()[0].id
    first, second = project.inscriptions(corpus)[:2]
    matches = [Match(first.id, 0, 2, "ab", (Alternative(1, "ab", "ab", -0.5, "", -1.0),), 0.5),
               Match(second.id, 0, 2, "cd", (Alternative(1, "cd", "cd", -0.7, "", -1.4),
                                            Alternative(2, "ce", "ce", -0.9, "", -1.8)), 0.4)]
    l_pin, m_pin = PinnedValue("l", "l", 1.0, False), PinnedValue("m", "m", 1.0, False)
    project.replace_pins([l_pin])
    run = project.start_run(Config(steps=30), corpus, language, device="cpu", seed=1)
    project.record_matches(run, matches)
    mapping = MappingSnapshot(("<DEL>", "l", "m"), ("<DEL>", "l", "m"), np.eye(3) * 0.5 + 0.1)
    record_mapping(project, run, 20, mapping)
    record_pins(project, run, 0, [l_pin])
    project.finish_run(run, "completed")
    project.replace_pins([l_pin, m_pin])
    model = WindowModel()
    model.reset(project)
    model.choices()
    yield model, run, matches, mapping
    project.close()


def test_showing_a_stored_run_reads_its_matches_mapping_and_marks(stored):
    model, run, matches, mapping = stored
    shown = model.show_run(run, active=False)
    assert not shown.live and shown.run.id == run and model.state.shown_run == run
    assert shown.progress is not None and shown.label
    caption = model.load_matches()
    assert caption.startswith(f"Run {run} (completed) — 2 matched spans")
    assert model.state.shown_matches == matches
    got, step, source = model.current_mapping(active=False)
    assert np.allclose(got.probs, mapping.probs, atol=1e-6) and step == 20 and source == f"(run {run})"
    marks = model.marks(active=False)
    assert set(marks) == {matches[0].inscription_id, matches[1].inscription_id}
    model.state.corpus_id = -1  # another corpus chosen: the run's spans are not of it
    assert model.marks(active=False) == {}


def test_a_live_mapping_is_shown_only_for_the_live_run_and_says_live_while_it_trains(stored):
    model, run, _, _ = stored
    model.show_run(run, active=False)
    live = MappingSnapshot(("<DEL>", "l"), ("<DEL>", "l"), np.ones((2, 2)) / 2)
    model.state.live_run, model.state.live_mapping, model.state.live_step = run, live, 7
    assert model.current_mapping(active=True) == (live, 7, f"(run {run}, live)")
    assert model.current_mapping(active=False)[2] == f"(run {run})"
    model.state.live_run = run + 100  # the live run is another one: the stored mapping is shown
    assert model.current_mapping(active=True)[1] == 20


def test_a_run_the_project_lacks_is_refused_and_nothing_is_shown(stored):
    model, run, _, _ = stored
    with pytest.raises(DecipherError):
        model.show_run(run + 50, active=False)
    assert model.state.shown_run is None
    assert model.load_matches() is None and model.current_mapping(False) == (None, None, "")
    assert model.pin_state(LiveRun()) is None


def test_pins_the_shown_reading_lacks_are_named(stored):
    model, run, _, _ = stored
    model.show_run(run, active=False)
    model.load_matches()
    state = model.pin_state(LiveRun())
    assert [(p.lost, p.known_ipa) for p in state.missing] == [("m", "m")]
    note = model.matches_pin_note(state, LiveRun())
    assert note.startswith("These matches (step 20) were computed without m → /m/")
    assert note.endswith("start a run to use them.")


def test_deciding_builds_an_undoable_command_and_the_same_decision_twice_is_nothing(stored):
    model, run, matches, _ = stored
    project = model.project
    assert model.decide(matches[0], "ab", "accepted") is None  # no run shown: nothing to decide on
    model.show_run(run, active=False)
    model.load_matches()
    command = model.decide(matches[0], "ab", "accepted")
    assert isinstance(command, DecideSpan)
    command.do(project)
    assert model.reload_decisions()
    assert model.state.decisions == {(matches[0].inscription_id, 0, 2, "ab"): "accepted"}
    assert model.decide(matches[0], "ab", "accepted") is None
    command.undo(project)
    model.reload_decisions()
    assert model.state.decisions == {}


def test_pin_and_settings_edits_are_commands_on_the_open_project(stored):
    model, _, _, _ = stored
    project = model.project
    model.clear_pins().do(project)
    assert project.pins() == [] and model.clear_pins() is None
    model.toggle_pin("l", "l").do(project)
    assert [(p.lost, p.known_ipa) for p in model.pins()] == [("l", "l")]
    model.runs.set_run_defaults({"steps": 12}).do(project)
    assert model.runs.run_defaults().steps == 12


def test_another_project_forgets_everything_of_the_previous_one(stored):
    model, run, _, _ = stored
    model.show_run(run, active=False)
    model.load_matches()
    model.load_corpus()
    model.load_language()
    assert model.inscriptions and model.stems and model.refs()
    model.reset(None)
    s = model.state
    assert (s.project, s.shown_run, s.shown_matches, s.corpus_id) == (None, None, [], None)
    assert model.inscriptions == () and model.stems == [] and model.refs() == {}
    assert model.choices() == ([], []) and model.pins() == [] and model.other_closeness() is None
    assert model.toggle_pin("l", "l") is None and model.runs.set_run_defaults({}) is None


#: the window and the helpers that see it (decipher_gui/view.py WindowView)
WINDOW_SIDE = ("mainwindow.py", "actions.py", "live.py", "seedgroup.py", "dataviews.py", "runform.py", "screenshot.py",
               "comparison.py")


@pytest.mark.parametrize("name", WINDOW_SIDE)
def test_the_window_reaches_the_project_only_through_its_model(name):
    """No ``<something>.project.<call>`` and no ``window.project`` / ``w.project`` in the window
    and its helpers: what they show and do comes from the model (``model.project`` is only asked
    whether a project is open)."""
    import ast

    tree = ast.parse((ROOT / "decipher_gui" / name).read_text(encoding="utf-8"))
    reaches = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute)
               and ((isinstance(node.value, ast.Attribute) and node.value.attr == "project")
                    or (isinstance(node.value, ast.Name) and node.value.id == "project"))]
    window_project = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                      and node.attr == "project" and (
                          (isinstance(node.value, ast.Name) and node.value.id in ("w", "window"))
                          or (isinstance(node.value, ast.Attribute) and node.value.attr == "w"))]
    assert (reaches, window_project) == ([], [])


def test_seed_groups_are_read_and_named_through_the_model(stored):
    model, run, _, _ = stored
    assert model.runs.seed_groups() == []
    group = {"out": "/x/g1", "seeds": [0, 1], "runs": {"0": run, "1": None}, "chosen_run": run}
    model.project.set_setting("seed_groups", [group])
    assert [g["out"] for g in model.runs.seed_groups()] == ["/x/g1"]
    folder = model.runs.seed_group_folder(Config(steps=30))
    assert folder == model.runs.seed_group_folder(Config(steps=30)), "the same setting goes to the same folder"
    assert folder != model.runs.seed_group_folder(Config(steps=31))
    assert str(folder).startswith(str(model.project.path.parent))


# ---- the run coordinator: the Run panel read once ---------------------------------------------------

def _form(seeds: str, config: Config | None = None, calls: list | None = None):
    from decipher_gui.coordinator import RunForm

    def read() -> Config:
        if calls is not None:
            calls.append(1)
        if config is None:
            raise DecipherError("steps must be at least 1, not 0")
        return config
    return RunForm(seeds, read)


def test_start_reads_the_form_once_and_one_seed_is_a_single_run_of_it(stored):
    from decipher_gui.coordinator import StartRequest

    model = stored[0]
    calls: list = []
    request = model.runs.request(_form("7", Config(steps=30, seed=1), calls))
    assert request == StartRequest(Config(steps=30, seed=7), (7,)) and not request.group
    assert calls == [1], "the settings form is read once"
    group = model.runs.request(_form("0-2", Config(steps=30)))
    assert group.group and group.seeds == (0, 1, 2) and group.config == Config(steps=30)
    calls.clear()
    given = model.runs.request(_form("", Config(steps=5), calls), Config(steps=9))
    assert given == StartRequest(Config(steps=9)) and calls == [], "settings given: the form is not read"


@pytest.mark.parametrize("seeds, active, title", [
    ("0 x", {}, "Invalid seeds"),
    ("", {"group_active": True}, "A seed group is running"),
    ("0 1", {"run_active": True}, "A run is active"),
    ("", {}, "Invalid run settings"),
])
def test_start_refuses_with_one_message_and_reads_no_settings_it_need_not(stored, seeds, active, title):
    from decipher_gui.coordinator import Refusal

    model = stored[0]
    calls: list = []
    with pytest.raises(Refusal) as caught:
        model.runs.request(_form(seeds, None, calls), **active)
    assert caught.value.title == title
    assert calls == ([1] if title == "Invalid run settings" else []), "the form is read only when all else may start"


def test_start_without_a_corpus_or_with_a_run_training_starts_nothing(stored):
    from decipher_gui.coordinator import Refusal

    model = stored[0]
    assert model.runs.request(_form("", Config()), run_active=True) is None   # the run already trains
    model.state.corpus_id = None
    with pytest.raises(Refusal) as caught:
        model.runs.request(_form("", Config()))
    assert caught.value.title == "Nothing to run on"
    model.reset(None)
    assert model.runs.request(_form("", Config())) is None


def test_a_seed_group_is_refused_on_a_read_only_project_and_a_single_run_is_not(stored, monkeypatch):
    from decipher_gui.coordinator import Refusal

    model = stored[0]
    monkeypatch.setattr(type(model.project), "read_only", property(lambda self: True))
    with pytest.raises(Refusal) as caught:
        model.runs.request(_form("0 1", Config()))
    assert caught.value.title == "The project is read-only"
    assert model.runs.request(_form("3", Config())).config.seed == 3
