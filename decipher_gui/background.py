"""The app's one pattern for background work: a QObject worker moved to its own QThread.

:class:`BackgroundJob` runs ``work(report)`` on a fresh QThread. What the work hands to
``report(item)`` arrives on the GUI thread as ``progressed(item)``; its return value as
``succeeded(result)``, an exception as ``failed(title, message)`` (decipher_gui.errors.describe);
``ended`` comes last, after the thread has stopped. The work touches no widget: every signal
reaches the GUI thread queued, in the order it was sent. The run (decipher_gui.worker), the
seed group (decipher_gui.seedgroup) and the comparison (decipher_gui.comparison) use it.
"""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot

from decipher_gui.errors import describe

Work = Callable[[Callable[[Any], None]], Any]


class _Worker(QObject):
    """Lives on the job's thread; ``run`` calls the work once."""

    progressed = Signal(object)
    succeeded = Signal(object)
    failed = Signal(str, str)
    done = Signal()

    def __init__(self, work: Work):
        super().__init__()
        self.work = work

    @Slot()
    def run(self) -> None:
        try:
            result = self.work(self.progressed.emit)
        except BaseException as exc:  # noqa: BLE001 — any failure is shown, never raised into Qt
            self.failed.emit(*describe(exc))
        else:
            self.succeeded.emit(result)
        finally:
            self.done.emit()


class BackgroundJob(QObject):
    """One piece of work on its own thread, told to the GUI thread through signals."""

    progressed = Signal(object)
    succeeded = Signal(object)
    failed = Signal(str, str)
    ended = Signal()

    def __init__(self, work: Work, name: str, parent: QObject | None = None):
        super().__init__(parent)
        self._thread: QThread | None = QThread(self)
        self._thread.setObjectName(name)
        self._worker: _Worker | None = _Worker(work)
        self._worker.moveToThread(self._thread)
        self._thread.started.connect(self._worker.run)
        self._worker.progressed.connect(self.progressed)
        self._worker.succeeded.connect(self.succeeded)
        self._worker.failed.connect(self.failed)
        # direct: quit() is thread-safe, and the GUI thread may be blocked in wait() (closing)
        self._worker.done.connect(self._thread.quit, Qt.ConnectionType.DirectConnection)
        self._thread.finished.connect(self._on_finished)

    def start(self) -> None:
        self._thread.start()  # type: ignore[union-attr]

    @property
    def running(self) -> bool:
        return self._thread is not None

    def wait(self, msecs: int = 30_000) -> bool:
        """Block until the work has returned and its thread stopped (for closing the window)."""
        return True if self._thread is None else self._thread.wait(msecs)

    @Slot()
    def _on_finished(self) -> None:
        thread, worker = self._thread, self._worker
        self._thread = self._worker = None
        if worker is not None:
            worker.deleteLater()
        if thread is not None:
            thread.deleteLater()
        self.ended.emit()


__all__ = ["BackgroundJob"]
