"""Seed groups in the app (issue 11, item 1): the Run panel's seeds field, a group trained through
worker processes and recorded in the project, the Matches table's agreement column, agreed and
contested spans drawn differently (left to right and right to left), and the Runs panel's
warning when the chosen seed disagrees with most others."""

from __future__ import annotations

import os

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QImage

from decipher_gui.analysis import marks_by_inscription
from decipher_gui.panels.matches import AGREEMENT_TIP, MATCH_COLUMNS, SortRole
from decipher_gui.seedgroup import group_markers, group_warning
from engine.io.display import IDENTITY
from engine.results import Alternative, Match

from .conftest import RUN_TIMEOUT_MS, small_config


def _visible(widget) -> bool:
    return not widget.isHidden()


# ---- 1: the seeds field ------------------------------------------------------------------------------


def test_seeds_field_validates_and_one_seed_is_a_single_run(window, monkeypatch):
    runs = window.runs
    for text, ok, note in [("0 1 x", False, "not a whole number"), ("1 1", False, "given twice"),
                           ("4294967296", False, "from 0 to 4294967295"), ("0-99", False, "at most 64"),
                           ("0-2", True, "3 runs, one per seed"), ("", True, ""), ("7", True, "one run with seed 7")]:
        runs.seeds.setText(text)
        assert runs.start_button.isEnabled() is ok, text
        assert note in runs.seeds_note.text(), (text, runs.seeds_note.text())
    # Start with a bad field: one clear message, nothing started
    runs.seeds.setText("0 x")
    assert window.start_run() is False
    assert window.last_error[0] == "Invalid seeds" and "'x'" in window.last_error[1]
    assert not window.controller.active and not window.seed_groups.active
    # one seed: today's single run, with that seed
    started = []
    monkeypatch.setattr(window.live, "start_run", lambda config=None: started.append(config) or True)
    runs.seeds.setText("7")
    assert window.start_run() is True
    assert started[0].seed == 7 and not window.seed_groups.active
    runs.seeds.setText("")
    assert window.start_run() is True
    assert started[1] == window.runs.form.config()   # the form's own settings and seed, read once by the coordinator


# ---- 2: the agreement column -------------------------------------------------------------------------


def _match(ins, start, end, stem, span="abc", confidence=0.5):
    return Match(ins, start, end, span, (Alternative(1, stem, stem, -1.0), Alternative(2, "zz", "zz", -3.0)),
                 confidence=confidence)


def test_agreement_column_shows_k_of_n_sorts_and_explains(window):
    m = window.matches
    a, b, c = _match("i1", 0, 3, "casa"), _match("i1", 4, 7, "sol"), _match("i2", 0, 3, "mar")
    m.set_matches([a, b, c], {}, {}, "hand-made")
    col = MATCH_COLUMNS.index("agreement")
    model = m.model
    assert [model.index(r, col).data() for r in range(3)] == ["", "", ""], "no group: empty"
    # a hand-made consensus of 5 seeds; the second stem of a span does not count for the top one
    m.set_agreement({("i1", 0, 3, "casa"): (5, 5), ("i1", 4, 7, "sol"): (2, 5), ("i1", 4, 7, "zz"): (3, 5),
                     ("i2", 0, 3, "mar"): (3, 5)})
    assert [model.index(r, col).data() for r in range(3)] == ["5/5", "2/5", "3/5"]
    # the span as the corpus's display table shows it (the sample opens in transliteration: a → ʾa)
    assert "2 of 5 seeds decode ʾabc as sol" in model.index(1, col).data(Qt.ItemDataRole.ToolTipRole)
    assert "contested" in model.index(1, col).data(Qt.ItemDataRole.ToolTipRole)
    assert "most seeds agree" in model.index(2, col).data(Qt.ItemDataRole.ToolTipRole)
    assert model.headerData(col, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole) == AGREEMENT_TIP
    assert model.index(0, col).data(Qt.ItemDataRole.TextAlignmentRole) is not None
    # sortable by agreement, both ways
    m.table.sortByColumn(col, Qt.SortOrder.DescendingOrder)
    assert [m.proxy.index(r, col).data() for r in range(3)] == ["5/5", "3/5", "2/5"]
    m.table.sortByColumn(col, Qt.SortOrder.AscendingOrder)
    assert [m.proxy.index(r, col).data() for r in range(3)] == ["2/5", "3/5", "5/5"]
    assert m.proxy.index(0, col).data(SortRole) < m.proxy.index(1, col).data(SortRole)
    # another run without a group: the column empties again
    m.set_agreement({})
    assert [model.index(r, col).data() for r in range(3)] == ["", "", ""]


# ---- 3: agreed and contested spans ---------------------------------------------------------------------


def _span_pixels(view, image: QImage, mark) -> list[int]:
    """The colours of the fill area of ``mark``'s span (between the letters' top and the underline)."""
    model = view.model()
    row = model.row_of[mark.match.inscription_id]
    index = model.index(row)
    ins = model.inscriptions[row]
    origin = view.visualRect(index).topLeft()
    layout = view.itemDelegate().layout(ins, view.visualRect(index).width())
    rects = view.itemDelegate()._span_rects(layout, mark.match.start, mark.match.end)
    out = []
    for r in rects:
        for dx in range(1, int(r.width()) - 1, 2):
            for dy in range(1, int(r.height()) - 1, 2):
                p = QPointF(origin) + r.topLeft() + QPointF(dx, dy)
                out.append(image.pixel(QPoint(int(p.x()), int(p.y()))))
    return out


def test_agreed_and_contested_spans_are_drawn_differently_ltr_and_rtl(window, qtbot, tmp_path):
    from engine.corpus import Inscription

    panel = window.inscriptions
    view = panel.view
    inscriptions = [Inscription("t1", "lmlk bnšm ytn"), Inscription("t2", "ʿbd ilm šlm"),
                    Inscription("t3", "tḥm mlk ugrt")]
    view.model().set_inscriptions(inscriptions)
    matches = []
    for ins in inscriptions:
        n = len(ins.units)
        matches.append(_match(ins.id, 0, min(3, n), "agreed", span=ins.text[:3]))
        if n >= 6:
            matches.append(_match(ins.id, n - 3, n, "contested", span=ins.text[-3:]))
    view.model().set_marks(marks_by_inscription(matches, {}))
    agreed = [m for m in matches if m.best.form == "agreed"]
    contested = [m for m in matches if m.best.form == "contested"]
    agreement = {(m.inscription_id, m.start, m.end, "agreed"): (4, 5) for m in agreed}
    agreement.update({(m.inscription_id, m.start, m.end, "contested"): (2, 5) for m in contested})
    view.scrollToTop()
    panel.set_agreement({})
    qtbot.wait(20)
    plain = view.viewport().grab().toImage()
    assert not _visible(panel.seeds_legend)
    panel.set_agreement(agreement)
    qtbot.wait(20)
    assert _visible(panel.seeds_legend) and "hatched" in panel.seeds_legend.text()
    marks = {(mk.match.start, mk.match.best.form): mk for ms in view.model().marks.values() for mk in ms}
    assert {view.span_fill(mk) for (_, form), mk in marks.items() if form == "agreed"} == {"solid"}
    assert {view.span_fill(mk) for (_, form), mk in marks.items() if form == "contested"} == {"hatched"}
    # the accessible text says it too
    row0 = view.model().index(0)
    assert "seeds 4/5, agreed" in row0.data(Qt.ItemDataRole.AccessibleTextRole)
    # and the selected span's details
    c = contested[0]
    view.select_span(c.inscription_id, c.start, c.end)
    panel.details.set_mark(view.current_mark())
    assert "seeds: <b>2/5</b>" in panel.details.title.text() and "contested" in panel.details.title.text()
    view.clear_span()
    for rtl, name in ((False, "seeds-agreement-ltr.png"), (True, "seeds-agreement-rtl.png")):
        panel.set_display(IDENTITY, rtl)
        panel.set_agreement({})
        qtbot.wait(20)
        plain = view.viewport().grab().toImage()
        panel.set_agreement(agreement)
        qtbot.wait(20)
        marked = view.viewport().grab().toImage()
        panel.grab().save(str(tmp_path / name))
        for mk in (mk for ms in view.model().marks.values() for mk in ms):
            before, after = _span_pixels(view, plain, mk), _span_pixels(view, marked, mk)
            assert before, "the span is on screen"
            if mk.match.best.form == "agreed":
                assert before == after, f"an agreed span keeps its solid fill ({'rtl' if rtl else 'ltr'})"
            else:
                changed = sum(x != y for x, y in zip(before, after))
                assert changed > len(before) // 4, f"a contested span is hatched ({'rtl' if rtl else 'ltr'})"
                assert len(set(after)) > 1, "hatching: more than one colour inside the span"
    panel.set_display(IDENTITY, False)


# ---- 4: the warning and the group markers ------------------------------------------------------------


def _store_groups(window, groups):
    window.project.set_setting("seed_groups", groups)


def test_warning_appears_exactly_when_the_chosen_seed_disagrees_with_most(window):
    bridge, runs = window.seed_groups, window.runs
    base = {"out": "/x/g1", "seeds": [0, 1, 2, 3, 4], "runs": {"0": 901, "1": 902, "2": 903, "3": 904, "4": 905},
            "chosen_seed": 2, "chosen_run": 903, "complete": True, "seeds_agreeing_with_chosen": 1}
    for flag in (True, False, True):
        _store_groups(window, [{**base, "chosen_disagrees_with_most": flag}])
        bridge.show_group_of(902)
        assert _visible(runs.group_warning) is flag
        if flag:
            assert "chosen seed 2 disagrees with most other seeds" in runs.group_warning.text()
            assert "only 1 of 4" in runs.group_warning.text()
        bridge.show_group_of(777)                     # a run in no group: no warning
        assert not _visible(runs.group_warning)
    # no flag at all (a group stored before the flag existed): no warning
    _store_groups(window, [{k: v for k, v in base.items()}])
    bridge.show_group_of(903)
    assert not _visible(runs.group_warning)
    assert group_warning(1, {**base, "chosen_disagrees_with_most": False}) is None


def test_group_markers_name_the_group_and_the_chosen_run():
    groups = [{"out": "a", "seeds": [0, 1], "runs": {"0": 1, "1": 2}, "chosen_run": 2, "chosen_because": "most corroborated"},
              {"out": "b", "seeds": [0, 1, 2], "runs": {"0": 5, "2": 7}, "chosen_run": 5, "complete": False}]
    marks = group_markers(groups)
    assert marks[1][0] == "G1 · seed 0" and marks[2][0] == "G1 · seed 1 ★ chosen"
    assert "most corroborated" in marks[2][1] and "chosen without gold" in marks[1][1]
    assert marks[5][0] == "G2 · seed 0 ★ chosen" and marks[7][0] == "G2 · seed 2"
    assert "stopped before every seed finished" in marks[7][1]
    assert set(marks) == {1, 2, 5, 7}


# ---- 5: a group from the Run panel, end to end -------------------------------------------------------


def test_seed_group_from_the_run_panel_trains_in_workers_and_shows_its_consensus(window, qtbot):
    runs = window.runs
    runs.form.set_config(small_config(window, steps=4, anneal_steps=4))
    runs.seeds.setText("0 1")
    before = len(window.project.runs())
    progress = []
    assert window.start_run() is True
    job = window.seed_groups.job
    job.progressed.connect(lambda item: item[0] == "progress" and progress.append(tuple(item[1:])))
    assert window.seed_groups.active and _visible(runs.group_box)
    assert not runs.start_button.isEnabled() and not runs.seeds.isEnabled()
    assert window.start_run() is False and window.last_error[0] == "A seed group is running"
    qtbot.waitUntil(lambda: not window.seed_groups.active, timeout=RUN_TIMEOUT_MS)
    assert window.last_error[0] == "A seed group is running", "no failure was reported"
    assert progress and progress[-1] == (2, 2)
    assert not _visible(runs.group_box) and runs.start_button.isEnabled()
    project = window.project
    new = project.runs()[before:]
    assert [r.status for r in new] == ["completed", "completed"]
    assert {r.settings().seed for r in new} == {0, 1}
    assert all(r.pid and r.pid != os.getpid() for r in new), "trained in worker processes, not the app's"
    [group] = project.setting("seed_groups")
    # the workers may record the two runs in either order
    assert group["runs"] == {str(r.settings().seed): r.id for r in new} and group["complete"] is True
    out = window.project.path.parent / f"{window.project.path.stem}.seeds"
    assert str(out) in group["out"] and (out / group["out"].rsplit("/", 1)[-1] / "consensus.csv").exists()
    # the chosen seed's run is shown, with each match's agreement
    assert window.state.shown_run == group["chosen_run"]
    col = MATCH_COLUMNS.index("agreement")
    shown = [window.matches.model.index(r, col).data() for r in range(window.matches.model.rowCount())]
    assert shown and all(v in ("1/2", "2/2") for v in shown)
    assert _visible(window.inscriptions.seeds_legend)
    # the Runs table marks the group and its chosen run
    assert runs.history.horizontalHeaderItem(runs.GROUP_COLUMN).text() == "seed group"
    cells = {runs.history.item(r, 0).text(): runs.history.item(r, runs.GROUP_COLUMN).text()
             for r in range(runs.history.rowCount())}
    chosen = group["chosen_seed"]
    assert cells[str(group["chosen_run"])] == f"G1 · seed {chosen} ★ chosen"
    other = next(r for s, r in group["runs"].items() if int(s) != chosen)
    assert cells[str(other)] == f"G1 · seed {1 - chosen}"
    # the warning follows the stored flag
    assert _visible(runs.group_warning) is bool(group.get("chosen_disagrees_with_most"))


def test_stop_ends_the_group_s_workers_and_the_same_group_resumes_later(window, qtbot):
    runs = window.runs
    runs.form.set_config(small_config(window, steps=5000, anneal_steps=5000))
    runs.seeds.setText("3 4")
    before = len(window.project.runs())
    assert window.start_run() is True
    out = window.seed_groups.out
    # wait until a seed is training in its worker process (its run is recorded), then Stop
    qtbot.waitUntil(lambda: len(window.project.runs()) > before, timeout=RUN_TIMEOUT_MS)
    qtbot.mouseClick(runs.group_stop, Qt.MouseButton.LeftButton)
    assert "stopping" in runs.group_progress.format()
    qtbot.waitUntil(lambda: not window.seed_groups.active, timeout=RUN_TIMEOUT_MS)
    new = window.project.runs()[before:]
    assert new and all(r.status == "interrupted" for r in new), [r.status for r in new]
    assert all(not _pid_alive(r.pid) for r in new), "the workers are gone"
    assert "Seed group stopped: 0 of 2 seeds finished" in window.statusBar().currentMessage()
    assert not window.project.setting("seed_groups"), "no seed finished: no group to show"
    from engine.runs.sweep import read_results

    rows = read_results(out / "results.csv")
    assert {rows["seed-3"].status, rows["seed-4"].status} == {"stopped"}
    assert runs.start_button.isEnabled() and runs.seeds.isEnabled()
    # the same seeds and settings again go to the same folder (so finished seeds would be kept)
    runs.form.set_config(small_config(window, steps=5000, anneal_steps=5000, seed=9))
    assert window.start_run() is True
    assert window.seed_groups.out == out
    window.seed_groups.stop()
    qtbot.waitUntil(lambda: not window.seed_groups.active, timeout=RUN_TIMEOUT_MS)


def _pid_alive(pid):
    from engine.project.liveness import pid_alive

    return pid_alive(pid)
