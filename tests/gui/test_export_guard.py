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
