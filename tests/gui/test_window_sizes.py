"""The window at 1366×768, 1600×1000 (the default of the screenshots) and 1920×1080 shows what
matters (issue 51, item 6): the runs table's pins column, the matches table's decision column and
whole inscription ids, five rows of the pin list (a pin not yet in the run among them), the pin
grid's IPA columns (all of them at 1920×1080; elsewhere the grid scrolls with its letters in place),
the comparison's answer without scrolling, and the Compare dialog's file button clear of its list.
Each fact is a geometry check on the laid-out widgets, not a look at a picture."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from PySide6.QtCore import QRect  # noqa: E402

from engine.corpus import PinnedValue  # noqa: E402
from engine.project.records import RunRecord  # noqa: E402
from engine.project import PinChange  # noqa: E402
from engine.results import Alternative, Match  # noqa: E402

SIZES = ((1366, 768), (1600, 1000), (1920, 1080))


@pytest.fixture(params=SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def sized(request, app, qtbot, sample_path):
    from decipher_gui.app import dispose
    from decipher_gui.mainwindow import MainWindow

    w = MainWindow(restore_state=False)
    qtbot.addWidget(w)
    w.resize(*request.param)
    assert w.open_project(sample_path)
    w.show()
    qtbot.waitExposed(w)
    qtbot.wait(20)
    yield w
    w.close()
    dispose(w)


def fully_shown(header, section: int, viewport_width: int) -> bool:
    left = header.sectionViewportPosition(section)
    return not header.isSectionHidden(section) and 0 <= left and left + header.sectionSize(section) <= viewport_width


def settle(qtbot) -> None:
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()
    qtbot.wait(20)


PINS = [PinnedValue(lost, ipa, 1.0, True, "") for lost, ipa in
        (("l", "l"), ("m", "m"), ("b", "b"), ("d", "d"), ("k", "k"), ("n", "n"), ("p", "p"))]


def test_the_runs_table_shows_its_pins_column(sized, qtbot):
    runs = sized.runs
    run = RunRecord(1, "completed", {"steps": 20}, 0, "", "cpu", 1, 1, tuple(PINS[:2]), "2026-01-01", None, "",
                    None, None, 20, None, None, None)
    runs.set_runs([run], {1: "Hebrew (sample)"}, {1: {"p_at_1": 0.05, "p_at_10": 0.3, "coverage": 0.5}},
                  pins={1: [PinChange(0, tuple(PINS[:2])), PinChange(12, tuple(PINS[:3]))]})
    settle(qtbot)
    table = runs.history
    assert table.item(0, runs.PINS_COLUMN).text() == "2 · 3 from 12"
    assert fully_shown(table.horizontalHeader(), runs.PINS_COLUMN, table.viewport().width())


def test_the_matches_table_shows_the_decision_and_whole_inscription_ids(sized, qtbot):
    from decipher_gui.panels.matches import MATCH_COLUMNS

    m = sized.matches
    ids = ["uga-no_spe:333", "uga-no_spe:1024"]
    matches = [Match(i, 0, 3, "ʿlm", (Alternative(1, "ʿlm", "ʕlm", -0.07, "eternity"),), confidence=0.9) for i in ids]
    m.set_matches(matches, {}, {("uga-no_spe:333", 0, 3): ("accepted", "ʿlm")}, "hand-made")
    settle(qtbot)
    header = m.table.horizontalHeader()
    width = m.table.viewport().width()
    assert fully_shown(header, MATCH_COLUMNS.index("decision"), width)
    col = MATCH_COLUMNS.index("inscription")
    fm = m.table.fontMetrics()
    # the cell's text fits its column (less the cell's margins): not elided to "uga-…"
    assert header.sectionSize(col) >= max(fm.horizontalAdvance(i) for i in ids) + 8
    assert fully_shown(header, col, width)


def test_the_pin_list_shows_five_pins_and_the_one_not_yet_in_the_run(sized, qtbot):
    from decipher_gui.pinstate import PinState

    sized.pins_dock.raise_()
    panel = sized.pins
    panel.set_pins(PINS)
    # a live run has the first six; the seventh (the last row), pinned just now, it has not used yet
    panel.set_pin_state(PinState(1, 20, True, {}, (PINS[-1],), ()))
    settle(qtbot)
    table = panel.table
    row_height = table.verticalHeader().defaultSectionSize()
    assert table.viewport().height() >= 5 * row_height
    last = table.visualItemRect(table.item(len(PINS) - 1, 0))
    assert table.viewport().rect().contains(last), "the pin not yet in the run is on screen"
    assert "not yet in the run" in table.item(len(PINS) - 1, 4).text()


def test_the_pin_grid_shows_the_ipa_columns_or_scrolls_with_its_letters_in_place(sized, qtbot):
    sized.pins_dock.raise_()
    settle(qtbot)
    grid = sized.pins.grid
    cols = grid.model().columnCount()
    assert cols >= 20  # the sample's Hebrew has 23 IPA units
    header = grid.horizontalHeader()
    shown = sum(fully_shown(header, c, grid.viewport().width()) for c in range(cols))
    assert header.sectionSize(0) >= grid.COLUMN_MIN
    if sized.width() >= 1900:
        assert shown == cols
    else:
        assert shown >= {1366: 15, 1600: 18}[sized.width()]
        grid.horizontalScrollBar().setValue(grid.horizontalScrollBar().maximum())
        settle(qtbot)
        assert fully_shown(header, cols - 1, grid.viewport().width())
        assert grid.verticalHeader().isVisible() and grid.verticalHeader().width() > 0   # the letters stay


def test_the_comparisons_answer_reads_without_scrolling(sized, qtbot):
    from decipher_gui.comparison import controller

    view = sized.plots.comparison
    sized.plots.closeness_tab.show_comparison()
    sized.plots.tabs.setCurrentWidget(sized.plots.closeness_tab)
    controller(sized)._make_room()
    view.splitter.show()   # as with a comparison shown
    # as long as the answer of a three-language comparison with its caveats (answer_html)
    lines = ["<b>Which language is closest to cipher: the candidates ranked by margin over their own phonotactic "
             "null (margin = score − null mean, 90 % interval)</b>",
             "1. Hebrew (sample): closer than chance — score 0.412, margin +0.211 [+0.180, +0.240], p = 0.004",
             "2. Aramaic: no evidence — score 0.220, margin +0.012 [−0.020, +0.041], p = 0.31",
             "3. Arabic: no evidence — score 0.201, margin −0.004 [−0.030, +0.021], p = 0.62",
             "What it means: “closer than chance” means that the language's words cover the text better than "
             "invented words with its sounds, word lengths and sound patterns do; it does not prove a relation.",
             "Caveats: only 3 seeds × 3 nulls per candidate; runs shorter than the annealing schedule."]
    controller(sized).show_answer("<br>".join(lines))
    settle(qtbot)
    # the floating dock's layout follows its new size on the next turns of the event loop
    qtbot.waitUntil(lambda: view.fit_answer() or True, timeout=1000)
    settle(qtbot)
    assert view.caption_scroll.verticalScrollBar().maximum() == 0
    assert view.splitter.height() >= view.FIGURE_MIN_HEIGHT - 10   # the figure keeps its room


@pytest.mark.parametrize("height", [400, 560])
def test_the_compare_dialogs_file_button_never_covers_the_candidates(app, qtbot, sample_path, height):
    from decipher_gui.comparison import ComparisonDialog
    from engine.config import Config
    from engine.project import Project

    project = Project.open(sample_path)
    try:
        d = ComparisonDialog(project, Config())
        qtbot.addWidget(d)
        d.resize(640, height)   # a short screen
        d.show()
        qtbot.waitExposed(d)
        settle(qtbot)

        def rect(widget) -> QRect:
            return QRect(widget.mapTo(d, widget.rect().topLeft()), widget.size())

        assert not rect(d.add_file_button).intersects(rect(d.candidates))
        assert not rect(d.candidates).intersects(rect(d.seeds))
        assert d.candidates.height() >= d.candidates.minimumHeight()
    finally:
        project.close()

