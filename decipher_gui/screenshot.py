"""``--screenshot``: train a few steps on the open project, then render the window to PNG."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer

from engine.config import Config
from engine.errors import DecipherError


def process_until(predicate, timeout_ms: int = 60_000) -> bool:
    """Run the event loop until ``predicate()`` holds (for the screenshot mode and scripts)."""
    loop = QEventLoop()
    timer = QTimer()
    timer.setInterval(20)
    deadline = QTimer()
    deadline.setSingleShot(True)
    timer.timeout.connect(lambda: predicate() and loop.quit())
    deadline.timeout.connect(loop.quit)
    timer.start()
    deadline.start(timeout_ms)
    if not predicate():
        loop.exec()
    timer.stop()
    return bool(predicate())


def settle(rounds: int = 8) -> None:
    """Let posted events and layouts run before a picture is taken."""
    for _ in range(rounds):
        QCoreApplication.sendPostedEvents()
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 30)


def _run_config(window, steps: int) -> Config:
    base = window.model.runs.run_defaults()
    return base.replace(steps=steps, eval_interval=max(5, steps // 3),
                        anneal_steps=min(base.anneal_steps, max(1, steps)))


#: The pictures ``--panels`` saves beside OUT.png (OUT-pins.png, …): files the user did not name.
PANEL_NAMES = ("pins", "losses", "closeness")


def panel_paths(out: Path) -> list[Path]:
    return [out.with_name(f"{out.stem}-{name}.png") for name in PANEL_NAMES]


def save_png(widget, path: Path, *, replace: bool) -> None:
    """``widget`` rendered to ``path`` through the engine's one writer (made new, never through a
    link; ``replace``: a file there may be replaced); WriteError in one line when it cannot."""
    from engine.io.atomic import WriteError, atomic_path

    with atomic_path(path, replace=replace) as part:
        if not widget.grab().save(str(part), "PNG"):
            raise WriteError(path, "the picture could not be encoded as PNG")


def check_outputs(out: Path, *, panels: bool, force: bool) -> None:
    """Before anything is trained: OUT.png (named) must not be a link; the panel pictures beside it
    (not named) must not be there, unless ``force`` (a link never)."""
    from engine.io.atomic import FORCE_HINT, check_new

    check_new([out], force=True)
    if panels:
        check_new(panel_paths(out), force=force, hint=FORCE_HINT)


def take_screenshots(window, out: Path, *, steps: int = 30, panels: bool = False, size: str = "1600x1000",
                     timeout_s: float = 900.0, force: bool = False) -> int:
    out = Path(out)
    try:
        check_outputs(out, panels=panels, force=force)
    except DecipherError as e:
        print(f"decipher-gui: error: {e}", file=sys.stderr)
        return 2
    try:
        w, h = (int(x) for x in size.lower().split("x"))
    except ValueError:
        w, h = 1600, 1000
    window.resize(w, h)
    window.show()
    settle(5)
    if window.model.project is None:
        print("decipher-gui: no project could be opened", file=sys.stderr)
        return 1
    ended: list[str] = []
    window.runEnded.connect(ended.append)
    trained_in: list[int | None] = []  # the run's process (a packaged app's check reads this line)
    window.controller.started.connect(
        lambda _device: trained_in.append(window.controller.driver.pid if window.controller.driver else None))
    if steps > 0:
        window.runs.form.set_config(_run_config(window, steps))
        if not window.start_run():
            print(f"decipher-gui: the run did not start: {window.last_error}", file=sys.stderr)
            return 1
        if not process_until(lambda: bool(ended), int(timeout_s * 1000)):
            window.stop_run()
            process_until(lambda: bool(ended), 120_000)
    settle(5)
    show_best_span(window)
    settle(5)
    ok = True
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        save_png(window, out, replace=True)
        if panels:
            pins_png, losses_png, closeness_png = panel_paths(out)
            window.pins_dock.raise_()
            settle(5)
            save_png(window.pins, pins_png, replace=force)
            window.matches_dock.raise_()
            plots = window.plots
            for i, path in ((0, losses_png), (3, closeness_png)):
                plots.tabs.setCurrentIndex(i)
                settle(5)
                save_png(plots, path, replace=force)
            plots.tabs.setCurrentIndex(0)
    except (DecipherError, OSError) as e:
        print(f"decipher-gui: error: {e}", file=sys.stderr)
        return 2
    if ended:
        pid = trained_in[0] if trained_in else "?"
        print(f"decipher-gui: run {ended[-1]} ({steps} steps), trained in process {pid} "
              f"(the app is process {os.getpid()})", file=sys.stderr)
    if ended and ended[-1] == "failed":
        print(f"decipher-gui: the run failed: {window.last_error}", file=sys.stderr)
        ok = False
    print(f"decipher-gui: wrote {out}", file=sys.stderr)
    return 0 if ok else 1


def decide_two(window) -> None:
    """Accept the most confident match and reject the next one in the corpus, so that both marks show
    (the documentation's pictures)."""
    rows = window.inscriptions.view.model().row_of
    in_order = sorted(window.shown_matches, key=lambda m: (rows.get(m.inscription_id, 0), m.start))
    if len(in_order) >= 2:
        best = max(range(len(in_order) - 1), key=lambda i: in_order[i].confidence)
        window.decide(in_order[best], in_order[best].best.form, "accepted")
        window.decide(in_order[best + 1], in_order[best + 1].best.form, "rejected")


def show_best_span(window) -> None:
    """Select the most confident match so the picture shows a span explained."""
    matches = sorted(window.shown_matches, key=lambda m: -m.confidence)
    if matches:
        m = matches[0]
        window.matches.select_match(m.inscription_id, m.start, m.end)
        window.selection.jump_to_match(m)
