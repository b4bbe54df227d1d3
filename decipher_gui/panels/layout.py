"""Where the panels sit in the main window: the inscription view in the middle, Corpora and Known
languages on the left, Run / Pinned values / Sign values as tabs on the right (full height), and
Matches beside Plots under the inscriptions; the status bar's three labels."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QWidget

from decipher_gui import settings
from decipher_gui.panels.data import CorporaPanel, LanguagesPanel
from decipher_gui.panels.inscriptions import InscriptionPanel
from decipher_gui.panels.matches import MatchesPanel
from decipher_gui.panels.pins import PinsPanel
from decipher_gui.panels.plots import PlotsPanel
from decipher_gui.panels.runs import RunsPanel
from decipher_gui.panels.signs import SignValuesPanel


def _dock(window: QMainWindow, title: str, widget: QWidget, name: str, area) -> QDockWidget:
    dock = QDockWidget(title, window)
    dock.setObjectName(name)
    dock.setWidget(widget)
    dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                     | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                     | QDockWidget.DockWidgetFeature.DockWidgetClosable)
    window.addDockWidget(area, dock)
    return dock


def build_panels(w) -> None:
    """Make the window's panels and docks (``w.corpora``, ``w.corpora_dock``, … ``w.plots_dock``)."""
    w.inscriptions = InscriptionPanel()
    w.setCentralWidget(w.inscriptions)
    L, R, B = (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea,
               Qt.DockWidgetArea.BottomDockWidgetArea)
    w.corpora = CorporaPanel()
    w.languages = LanguagesPanel()
    w.runs = RunsPanel(advanced_open=settings.get("advanced_run_settings"))
    w.matches = MatchesPanel()
    w.plots = PlotsPanel()
    w.pins = PinsPanel()
    w.signs = SignValuesPanel()
    # the right column, full height: Run, Pinned values and Sign values as tabs, so the pin
    # grid gets the window's height (29 Ugaritic rows at 1600×1000); the bottom row, under the
    # inscriptions: Matches (wide enough for the gloss) beside the plots
    w.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.BottomDockWidgetArea)
    w.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
    w.corpora_dock = _dock(w, "Corpora and inscriptions", w.corpora, "corpora", L)
    w.languages_dock = _dock(w, "Known languages and stems", w.languages, "languages", L)
    w.runs_dock = _dock(w, "Run", w.runs, "runs", R)
    w.pins_dock = _dock(w, "Pinned values", w.pins, "pins", R)
    w.signs_dock = _dock(w, "Sign values", w.signs, "signs", R)
    w.matches_dock = _dock(w, "Matches", w.matches, "matches", B)
    w.plots_dock = _dock(w, "Plots", w.plots, "plots", B)
    w.tabifyDockWidget(w.runs_dock, w.pins_dock)
    w.tabifyDockWidget(w.pins_dock, w.signs_dock)
    w.runs_dock.raise_()
    w.splitDockWidget(w.matches_dock, w.plots_dock, Qt.Orientation.Horizontal)
    w.resizeDocks([w.corpora_dock, w.runs_dock], [290, 500], Qt.Orientation.Horizontal)
    w.resizeDocks([w.matches_dock], [330], Qt.Orientation.Vertical)
    w.resizeDocks([w.matches_dock, w.plots_dock], [760, 340], Qt.Orientation.Horizontal)


def fit_docks(w) -> None:
    """The docks' sizes as shares of the window's, clamped (called once the window has its size,
    when no saved layout was restored): at 1920×1080 the right column gets ~690 px, so the pin
    grid shows every IPA column of the sample (23 at 26 px); at 1366×768 the centre keeps ~600 px.
    A fixed 500 px left 12 of 23 columns at 1600×1000 and grew nothing at 1920×1080."""
    width, height = w.width(), w.height()
    right = max(480, min(700, round(width * 0.36)))
    left = max(240, min(330, round(width * 0.18)))
    bottom = max(250, min(380, round(height * 0.33)))
    w.resizeDocks([w.corpora_dock, w.runs_dock], [left, right], Qt.Orientation.Horizontal)
    w.resizeDocks([w.matches_dock], [bottom], Qt.Orientation.Vertical)
    under = width - right   # the bottom row spans the left column and the centre
    w.resizeDocks([w.matches_dock, w.plots_dock], [round(under * 0.66), round(under * 0.34)],
                  Qt.Orientation.Horizontal)


def build_status(w) -> None:
    """The status bar's permanent labels: the project, the device, the run's state."""
    sb = w.statusBar()
    w.status_file = QLabel("No project")
    w.status_device = QLabel("Device: —")
    w.status_run = QLabel("Idle")
    for label in (w.status_file, w.status_device, w.status_run):
        label.setContentsMargins(8, 0, 8, 0)
        sb.addPermanentWidget(label)


__all__ = ["build_panels", "build_status", "fit_docks"]


def add_display_hint(window) -> None:
    """Once, on the first launch: where display tables live, in the status bar (dismissable; never
    shown again). Sets ``window.display_hint`` and ``window.display_hint_close``."""
    if settings.get("display_hint_seen") or getattr(window, "display_hint", None) is not None:
        return
    from PySide6.QtWidgets import QHBoxLayout, QToolButton

    hint = QWidget()
    lay = QHBoxLayout(hint)
    lay.setContentsMargins(6, 0, 0, 0)
    lay.addWidget(QLabel("Letters and stems are shown through display tables: View ▸ Display table… "
                         "(corpus) and View ▸ Display table (known language)…"))
    close = QToolButton()
    close.setText("×")
    close.setToolTip("Dismiss this hint")
    close.setAccessibleName("Dismiss the display-table hint")
    lay.addWidget(close)
    close.clicked.connect(hint.hide)
    window.display_hint, window.display_hint_close = hint, close
    window.statusBar().addPermanentWidget(hint)
    settings.put("display_hint_seen", True)
