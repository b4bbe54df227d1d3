"""Start-up: ``decipher-gui [PROJECT]``, ``python -m decipher_gui``, and the screenshot mode
``decipher-gui --screenshot OUT.png [--steps N] [PROJECT]``.

torch is never imported in the app's process: runs train in a child process
(decipher_gui/runprocess.py), so the window appears quickly and stays responsive.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path
from typing import Sequence

T_IMPORT = time.perf_counter()


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    from engine import __version__

    p = argparse.ArgumentParser(prog="decipher-gui", description="Desktop workbench for the decipherment "
                                "of lost scripts (Luo et al., TACL 2021).")
    p.add_argument("--version", action="version", version=f"decipher-gui {__version__}")
    p.add_argument("project", nargs="?", type=Path, help="a .decipher project file (default: the last one, "
                   "or the bundled sample project)")
    p.add_argument("--screenshot", type=Path, metavar="OUT.png",
                   help="open the project, train a few steps, save a picture of the window, and exit")
    p.add_argument("--steps", type=int, default=30, help="training steps for --screenshot (default 30)")
    p.add_argument("--panels", action="store_true",
                   help="with --screenshot: also save the pinned-values editor and the plots beside OUT")
    p.add_argument("--size", default="1600x1000", help="window size for --screenshot (default 1600x1000)")
    p.add_argument("--force", action="store_true",
                   help="with --screenshot --panels: replace the panel pictures already beside OUT")
    p.add_argument("--sample", action="store_true", help="open the bundled sample project")
    p.add_argument("--exit-when-shown", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args(list(argv) if argv is not None else None)


def make_application(argv: Sequence[str] | None = None):
    """The QApplication with names, settings format, fonts and plot colours set (reused if it exists)."""
    from PySide6.QtCore import QCoreApplication, QLoggingCategory, QSettings
    from PySide6.QtWidgets import QApplication

    from . import settings
    from .compat import protect_singletons
    from .fonts import register_fonts

    protect_singletons()  # PySide6 6.12.0 on Python < 3.12 over-releases None/True/False
    # The training thread holds the GIL between its torch calls; a shorter switch interval makes
    # it hand the GIL back to the window sooner (measured: longest stall 48 -> 44 ms, no slower).
    sys.setswitchinterval(0.002)
    from .latency import request_short_slice

    request_short_slice()  # the GUI thread: its turn soon after it wakes on a busy machine
    QCoreApplication.setOrganizationName(settings.ORGANIZATION)
    QCoreApplication.setApplicationName(settings.APPLICATION)
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QLoggingCategory.setFilterRules("qt.qpa.*=false\nqt.pointer.dispatch=false")
    app = QApplication.instance() or QApplication(list(argv or sys.argv[:1]))
    app.setApplicationDisplayName("Decipher Workbench")
    app.setDesktopFileName("io.github.decipher_workbench.DecipherWorkbench")
    if sys.platform == "win32":
        app.setStyle("Fusion")
    register_fonts()
    configure_plots(app)
    from engine.resources import resource

    icon = resource("icons", "decipher-workbench.svg")
    if icon.exists():
        from PySide6.QtGui import QIcon

        app.setWindowIcon(QIcon(str(icon)))
    else:
        logging.getLogger(__name__).warning("bundled icon missing: %s", icon)
    return app


def configure_plots(app) -> None:
    import pyqtgraph as pg

    pal = app.palette()
    pg.setConfigOptions(antialias=True, background=pal.base().color(), foreground=pal.text().color())


def install_exception_hook(window):
    from .errors import ExceptionHook

    return ExceptionHook(lambda title, message, details: window.report_error(title, message, details)).install()


def dispose(window) -> None:
    """Delete the window's widgets while Python is still fully alive.

    Left to interpreter shutdown, PySide6 6.12 with pyqtgraph items can abort with "Fatal Python
    error: bool_dealloc" while collecting garbage; deleting the widget tree first avoids it.
    """
    from PySide6.QtCore import QCoreApplication, QEvent

    import gc

    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QCoreApplication.processEvents()
    gc.collect()


def initial_project(args) -> tuple[Path, bool]:
    """(path, create_sample): the argument, else the last project, else the sample project."""
    from . import settings

    if args.project is not None:
        return args.project, False
    if not args.sample and not args.screenshot and settings.get("reopen_last"):
        last = settings.get("last_project")
        if last and Path(last).exists():
            return Path(last), False
    return settings.sample_project_path(), True


def open_at_launch(window, path: Path) -> bool:
    """Open the project named at launch, after reading every value it stores once.

    A file that cannot be opened as it is (SQL objects that are not ours, a malformed cell,
    damage) is one message in a dialog, never a traceback or an exit; for objects that are not
    ours the dialog offers to open a cleaned copy (only our tables' rows, in a new file beside it).
    Returns whether the project is open.
    """
    from engine.errors import DecipherError, ForeignSchemaError
    from engine.project import SCHEMA_VERSION, Project, read_header

    from decipher_gui.errors import describe

    try:
        # read-only where it can be, so that the window's own open still finds (and reports)
        # the runs a crash interrupted; a file of an older version must be opened to be upgraded
        current = read_header(Path(path)).version == SCHEMA_VERSION
        with Project.open(path, read_only=current) as project:
            project.check_readable()
    except ForeignSchemaError as exc:
        cleaned_copy_box(window, Path(path), exc)
        return False
    except (DecipherError, OSError) as exc:
        window.report_error(*describe(exc))
        return False
    try:
        return window.open_project(path)
    except (DecipherError, OSError) as exc:  # a value read later than the check above
        window.report_error(*describe(exc))
        return False


def cleaned_copy_box(window, path: Path, exc: Exception):
    """The dialog (window-modal, not blocking) for a project holding SQL objects that are not
    ours: the one-line reason, and a button that opens a cleaned copy instead."""
    from PySide6.QtWidgets import QMessageBox

    window.last_error = ("Project file refused", str(exc))
    box = QMessageBox(window)
    box.setObjectName("cleanedCopyBox")
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("Project file refused")
    box.setText("<b>Project file refused</b>")
    box.setInformativeText(f"{exc}\n\nOpen a cleaned copy instead? It holds only the rows of the "
                           "project's own tables, in a new file beside this one; this file stays as it is.")
    copy_button = box.addButton("Open a cleaned copy", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)

    def clicked(button) -> None:
        if button is not copy_button:
            return
        from engine.errors import DecipherError
        from engine.project import clean_copy

        from decipher_gui.errors import describe

        try:
            copy = clean_copy(path)
        except (DecipherError, OSError) as error:
            window.report_error(*describe(error))
            return
        if open_at_launch(window, copy):
            window.statusBar().showMessage(f"Opened a cleaned copy: {copy} ({path} is unchanged)", 15000)

    box.buttonClicked.connect(clicked)
    box.open()
    return box


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.screenshot is not None and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    app = make_application(sys.argv[:1])
    from .mainwindow import MainWindow

    window = MainWindow(restore_state=args.screenshot is None)
    hook = install_exception_hook(window)
    path, create = initial_project(args)
    opened = window.open_project(path, create_sample=True) if create else open_at_launch(window, path)
    if not opened and not create and args.screenshot is not None:
        # a picture of another project than the one named would pass for it: refused, no fallback
        title, message = window.last_error or ("Project file refused", str(path))
        print(f"decipher-gui: error: {' '.join(str(message).split())}", file=sys.stderr)
        window.save_state_on_close = False
        window.close()
        hook.uninstall()
        dispose(window)
        return 2
    if not opened and not create:
        sample = initial_project(argparse.Namespace(project=None, sample=True, screenshot=None))[0]
        window.open_project(sample, create_sample=True)
    if args.screenshot is not None:
        from .screenshot import take_screenshots

        code = take_screenshots(window, args.screenshot, steps=args.steps, panels=args.panels, size=args.size,
                                force=args.force)
        window.save_state_on_close = False
        window.close()
        hook.uninstall()
        dispose(window)
        return code
    window.show()
    if args.exit_when_shown:
        from PySide6.QtCore import QTimer

        def report() -> None:
            print(f"SHOWN {time.time():.6f} import_to_shown={time.perf_counter() - T_IMPORT:.3f} "
                  f"torch_loaded={'torch' in sys.modules}", flush=True)
            window.close()
            app.quit()

        QTimer.singleShot(0, report)
    code = app.exec()
    hook.uninstall()
    dispose(window)
    return code


if __name__ == "__main__":
    sys.exit(main())
