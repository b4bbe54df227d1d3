"""The pin grid marks the 3 unpinned signs to pin next (engine/training/pin_suggestions.py) for the finished
run shown, from its stored mapping: ★1..★3 on the row headers, the reason as the header's tooltip, a
legend line; pinned signs drop out; a live run's mapping marks nothing. Rendered to PNG."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from engine.config import Config
from engine.corpus import DIVIDER, PinnedValue
from engine.model.phonology import DELETE
from engine.training.pin_suggestions import text_shares
from engine.project.recording import record_mapping
from engine.results import MappingSnapshot

V = Qt.Orientation.Vertical
TIP = Qt.ItemDataRole.ToolTipRole


def split_mapping(lost, known, split: dict[str, tuple[str, str]]) -> MappingSnapshot:
    """Every sign sure of one sound (its own index), except those of ``split``: half and half."""
    lost = (DELETE, *lost)
    known = (DELETE, *known)
    probs = np.full((len(known), len(lost)), 0.001)
    for j, sign in enumerate(lost[1:], 1):
        if sign in split:
            a, b = split[sign]
            probs[known.index(a), j] = probs[known.index(b), j] = 0.5
        else:
            probs[1 + (j - 1) % (len(known) - 1), j] = 0.9
    return MappingSnapshot(lost, known, probs)


def headers(grid) -> dict[str, str]:
    m = grid.model()
    return {sign: m.headerData(i, V) for i, sign in enumerate(m.rows)}


def test_the_panel_marks_the_three_most_frequent_unpinned_signs_with_reasons(qtbot, tmp_path):
    from decipher_gui.panels.pins import PinsPanel

    panel = PinsPanel()
    qtbot.addWidget(panel)
    lost, known = list("abcdefg"), ["t", "d", "a", "i", "k"]
    panel.set_inventory(lost, known, [])
    # b, c, d, e split, a f g sure; by share b 5, c 4, d 2, a 2, e f g 1 (of 16)
    panel.set_text_shares(text_shares(["bbbbcccddeaafg" + DIVIDER + "bc"]))
    mapping = split_mapping(lost, known, {s: ("t", "d") for s in "bcde"})
    panel.set_mapping(mapping, 40, "(run 1)")
    got = headers(panel.grid)
    assert [got[s] for s in "bcd"] == ["★1 b", "★2 c", "★3 d"]
    assert all(got[s] == s for s in "aefg")       # a is as frequent as d, but sure
    tip = panel.grid.model().headerData(lost.index("b"), V, TIP)
    assert "Suggested pin 1: b: its value is split between /d/ 0.50 and /t/ 0.50, and it is 31 % of the text" in tip
    assert "★1–★3" in panel.suggest_legend.text()
    # the reason where the suggestion is seen, not only in the row's tooltip (issue 51, item 7)
    assert "★1 b: its value is split between /d/ 0.50 and /t/ 0.50, and it is 31 % of the text" \
        in panel.suggest_legend.text()
    panel.resize(520, 420)
    panel.show()
    qtbot.waitExposed(panel)
    assert panel.grab().save(str(tmp_path / "pin-suggestions-panel.png"))

    # pinning b: it drops out; d and a are equally frequent, and d (split) comes before a (sure)
    panel.set_pins([PinnedValue("b", "t")])
    got = headers(panel.grid)
    assert [got[s] for s in "cda"] == ["★1 c", "★2 d", "★3 a"] and got["b"] == "b" and got["e"] == "e"

    # a running run's mapping: no marks, the legend says they come after the run
    panel.set_mapping(mapping, 50, "(run 2, live)", live=True)
    assert all(not h.startswith("★") for h in headers(panel.grid).values())
    assert "once a run has finished" in panel.suggest_legend.text()
    panel.set_mapping(None, None)
    assert "once a run has finished" in panel.suggest_legend.text()


def test_the_window_marks_the_suggestions_of_the_stored_run_it_shows(window, qtbot, tmp_path):
    project = window.project
    corpus_id, language_id = window.state.corpus_id, window.state.language_id
    model = window.pins.grid.model()
    lost, known = list(model.rows), [c for c in model.cols]
    assert len(lost) >= 4 and len(known) >= 2
    shares = text_shares(ins.units for ins in project.inscriptions(corpus_id))
    frequent = sorted(lost, key=lambda s: (-shares.get(s, 0), s))
    chosen = frequent[:3]
    run_id = project.start_run(Config(steps=4), corpus_id, language_id)
    record_mapping(project, run_id, 4, split_mapping(lost, known, {s: (known[0], known[1]) for s in chosen}))
    project.finish_run(run_id, "completed")
    window.show_run(run_id)
    got = headers(window.pins.grid)
    shown = window.display.show
    assert [got[s] for s in chosen] == [f"★{i} {shown(s)}" for i, s in enumerate(chosen, 1)]
    assert sum(h.startswith("★") for h in got.values()) == 3
    window.pins_dock.raise_()
    window.pins.grid.scrollTo(model.index(model.rows.index(chosen[0]), 0))
    qtbot.wait(50)
    assert window.pins.grab().save(str(tmp_path / "pin-suggestions-window.png"))
