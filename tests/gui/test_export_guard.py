"""The app's plot exports are formula-guarded like every other export (issue 28 item 5): a series
named like a formula gets an apostrophe; the numbers, negative ones included, are never changed."""

from __future__ import annotations

from decipher_gui.panels.plots import SeriesTableModel


def test_plot_csv_guards_names_not_numbers(qapp):
    model = SeriesTableModel("step")
    model.rebuild({"-basque": ([1, 2], [-0.5, 1.0]), "=SUM(A1)": ([1], [2.0])})
    lines = model.csv_text().splitlines()
    assert lines[0] == "step,'-basque,'=SUM(A1)"
    assert lines[1] == "1.0,-0.5,2.0" and lines[2] == "2.0,1.0,"


def test_the_apps_exports_never_write_through_a_link(window, tmp_path):
    """Issue 52, 2: every export of the app goes through the engine's one writer: a planted link is
    refused with a message and its target kept; a CLDF folder's earlier files are not replaced."""
    from tests.engine.test_project_helpers import filled_project

    project, ids = filled_project(tmp_path / "p.decipher")
    project.close()
    assert window.open_project(tmp_path / "p.decipher")
    victim = tmp_path / "victim.csv"
    victim.write_text("precious\n", encoding="utf-8")
    for name, write in (("m.csv", window.acts.write_matches), ("p.csv", window.acts.write_prior),
                        ("e.tsv", window.acts.write_edictor)):
        link = tmp_path / name
        link.symlink_to(victim)
        window.last_error = None
        assert write(link) is None
        assert window.last_error is not None and "symbolic link" in window.last_error[1], window.last_error
        assert victim.read_text(encoding="utf-8") == "precious\n"
    folder = tmp_path / "cldf"
    folder.mkdir()
    (folder / "forms.csv").symlink_to(victim)
    assert window.acts.write_cldf(folder) is None and "symbolic link" in window.last_error[1]
    (folder / "forms.csv").unlink()
    (folder / "forms.csv").write_text("mine\n")
    assert window.acts.write_cldf(folder) is None and "already there" in window.last_error[1]
    assert "--force" not in window.last_error[1]     # the app's words, not a CLI flag
    assert (folder / "forms.csv").read_text() == "mine\n" and victim.read_text(encoding="utf-8") == "precious\n"


def test_an_apps_export_of_an_unfinished_run_says_so_with_its_step(window, tmp_path):
    """Issue 52, 11: the app's exports of a run in progress say what the CLI says (the engine's words:
    engine.project.exporting.unfinished_note); a finished run's export says nothing of it."""
    from engine.config import Config
    from tests.engine.test_project_helpers import filled_project, sample_matches

    project, ids = filled_project(tmp_path / "p.decipher")
    live = project.start_run(Config(steps=90), ids["corpus"], ids["language"])   # this process: alive
    project.record_matches(live, sample_matches())
    project.heartbeat(live, 40)
    project.close()
    assert window.open_project(tmp_path / "p.decipher")
    said = f"Run {live} is still running, at step 40 of 90: this export holds its results as of that step"
    for name, write in (("m.csv", window.acts.write_matches), ("s.csv", window.acts.write_sign_values),
                        ("e.tsv", window.acts.write_edictor)):
        window.model.show_run(live, False)
        assert write(tmp_path / name) is not None, window.last_error
        assert window.statusBar().currentMessage().startswith(said), name   # first: never cut off
    window.model.show_run(ids["run"], False)
    assert window.acts.write_matches(tmp_path / "done.csv") is not None
    message = window.statusBar().currentMessage()
    assert message.startswith("Wrote ") and "still running" not in message and "did not finish" not in message
