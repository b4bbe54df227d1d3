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
    model.set_run_defaults({"steps": 12}).do(project)
    assert model.run_defaults().steps == 12


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
    assert model.toggle_pin("l", "l") is None and model.set_run_defaults({}) is None


def test_the_window_reaches_the_project_only_through_its_model():
    """No ``<something>.project.<call>`` in mainwindow.py: what the window shows comes from the model."""
    import ast

    tree = ast.parse((ROOT / "decipher_gui" / "mainwindow.py").read_text(encoding="utf-8"))
    reaches = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute)
               and ((isinstance(node.value, ast.Attribute) and node.value.attr == "project")
                    or (isinstance(node.value, ast.Name) and node.value.id == "project"))]
    assert reaches == []


def test_seed_groups_are_read_and_named_through_the_model(stored):
    model, run, _, _ = stored
    assert model.seed_groups() == []
    group = {"out": "/x/g1", "seeds": [0, 1], "runs": {"0": run, "1": None}, "chosen_run": run}
    model.project.set_setting("seed_groups", [group])
    assert [g["out"] for g in model.seed_groups()] == ["/x/g1"]
    folder = model.seed_group_folder(Config(steps=30))
    assert folder == model.seed_group_folder(Config(steps=30)), "the same setting goes to the same folder"
    assert folder != model.seed_group_folder(Config(steps=31))
    assert str(folder).startswith(str(model.project.path.parent))
