"""What the window's helpers may use of the window: the view interface that
:class:`~decipher_gui.mainwindow.MainWindow` provides, so that no helper imports the window's
module back (tests/test_import_order.py: no circle). The helpers are the actions
(decipher_gui/actions.py), the live run and the seed groups (live.py, seedgroup.py), the run form
(runform.py), the data views (dataviews.py) and the comparison (comparison.py).

The window's way to the project is its model (``model``, Qt-free); the panels are drawn from it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from decipher_gui.document import ProjectDocument
    from decipher_gui.model import WindowModel
    from decipher_gui.state import SessionState
    from decipher_gui.worker import RunController

APP_TITLE = "Decipher Workbench"


class WindowView(Protocol):
    """The main window as its helpers see it (GUI thread only)."""

    model: "WindowModel"
    state: "SessionState"
    doc: "ProjectDocument | None"
    controller: "RunController"
    # the panels (decipher_gui/panels/) and the helpers built beside them
    runs: Any
    plots: Any
    pins: Any
    signs: Any
    matches: Any
    corpora: Any
    languages: Any
    inscriptions: Any
    selection: Any
    acts: Any
    live: Any
    seed_groups: Any
    run_form: Any
    data: Any
    status_run: Any
    status_device: Any
    runEnded: Any
    projectOpened: Any

    def statusBar(self) -> Any: ...

    def report_error(self, title: str, message: str, details: str = "") -> None: ...

    def open_project(self, path, *, create_sample: bool = False) -> bool: ...

    def refresh_runs(self, select: int | None = None) -> None: ...

    def show_run(self, run_id: int) -> None: ...

    def load_shown_matches(self, matches=None, *, marks: bool = True) -> None: ...

    def update_marks(self) -> None: ...

    def show_mapping(self) -> None: ...

    def show_pin_state(self) -> None: ...

    def update_other_closeness(self) -> None: ...

    def current_mapping(self) -> tuple: ...

    def execute(self, command) -> bool: ...


__all__ = ["APP_TITLE", "WindowView"]
