"""Run ▸ Compare known languages…: the dialog (corpus, candidate languages, seeds, restarts, nulls,
vocabulary size, steps) and the comparison running in the background through the sweep's worker processes."""

from __future__ import annotations

import threading
from html import escape
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QFrame, QHBoxLayout,
                               QLabel, QLineEdit, QListWidget, QListWidgetItem, QPushButton, QScrollArea, QSpinBox,
                               QVBoxLayout, QWidget)

from engine.config import Config
from engine.corpus import Corpus, Vocabulary
from engine.errors import DecipherError

from . import settings
from .background import BackgroundJob


@dataclass(frozen=True)
class ComparisonRequest:
    """What the dialog hands the job (read from the project on the GUI thread; crosses to the job's thread)."""

    corpus: Corpus
    candidates: Mapping[str, Vocabulary | Path]
    """a project language's vocabulary, or a KNOWN.csv file (read, and reported when bad, by the job)"""
    seeds: tuple[int, ...]
    n_null: int
    stems: int | None
    """None: the smallest candidate's size"""
    config: Config
    out: Path
    workers: int
    restarts: int = 1
    """trainings per seed (candidates and nulls alike); the lowest final objective is kept"""
    cap_stems: bool = False
    """``stems`` is the most each candidate keeps on its own (a shorter one keeps all), not one size for all"""
    score: str = "area"
    """what a run scores (engine.closeness.comparison.SCORES): the curve's area, or minus its final objective"""


def parse_seeds(text: str) -> tuple[int, ...]:
    """``"0 1 2"`` (or commas) -> (0, 1, 2); one line saying what is wrong otherwise."""
    parts = text.replace(",", " ").split()
    try:
        seeds = tuple(int(p) for p in parts)
    except ValueError:
        raise DecipherError(f"seeds must be whole numbers separated by spaces, got {text!r}") from None
    if not seeds:
        raise DecipherError("give at least one seed")
    if any(s < 0 for s in seeds) or len(set(seeds)) != len(seeds):
        raise DecipherError(f"seeds must be distinct numbers 0 or more, got {text!r}")
    return seeds


def default_folder(project_path: Path, corpus_name: str) -> Path:
    """Comparisons of a corpus live beside the project: PROJECT-closeness/CORPUS (rerunning one resumes it)."""
    from engine.closeness.runs import folder_name

    return project_path.with_name(project_path.stem + "-closeness") / folder_name(corpus_name)


class ComparisonDialog(QDialog):
    """Choose a corpus, two or more candidate languages (the project's known languages, plus KNOWN.csv
    files), seeds, restarts per seed, the number of null vocabularies, the vocabulary size and the steps per run."""

    def __init__(self, source, config: Config, parent=None):
        """``source``: what the dialog reads of the project (queries.ComparisonSource, from the window's
        model; a Project itself answers the same calls)."""
        super().__init__(parent)
        from engine.runs.workers import default_workers

        self.setWindowTitle("Compare known languages")
        self.source = source
        self.config = config
        self.files: dict[str, Path] = {}
        outer = QVBoxLayout(self)
        # everything above the buttons scrolls when the screen is short (1366×768): squeezed below
        # its words' height, the form drew its rows over each other (the file button over the list)
        body = QWidget()
        lay = QVBoxLayout(body)
        lay.setContentsMargins(0, 0, 0, 0)
        self.body_scroll = QScrollArea()
        self.body_scroll.setWidgetResizable(True)
        self.body_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.body_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.body_scroll.setWidget(body)
        outer.addWidget(self.body_scroll, 1)
        intro = QLabel("Trains the corpus against each candidate language and against null vocabularies: invented "
                       "words with the language's own sounds, word lengths and sound patterns, none of its real "
                       "words. Over several seeds, with every vocabulary cut to one size (or each to at most a "
                       "size, read against nulls of its own size). A language is <i>closer than chance</i> "
                       "when its margin over its nulls passes a one-sided t test at 5 % after Holm's "
                       "correction for the number of languages (scored by the training objective, also by a "
                       "margin of at least the reference check's); at least 3 seeds × 3 nulls (docs/closeness.md).")
        intro.setWordWrap(True)
        lay.addWidget(intro)
        form = QFormLayout()
        self.corpus = QComboBox()
        for c in source.corpora():
            self.corpus.addItem(f"{c.name} ({c.inscriptions} inscriptions)", c.id)
        self.corpus.currentIndexChanged.connect(self._corpus_changed)
        form.addRow("Corpus:", self.corpus)
        self.candidates = QListWidget()
        self.candidates.setAccessibleName("Candidate languages")
        self.candidates.setMinimumHeight(self.candidates.fontMetrics().height() * 6)  # never squeezed shut
        for lang in source.languages():
            item = QListWidgetItem(f"{lang.name} ({lang.stems} stems)")
            item.setData(Qt.ItemDataRole.UserRole, ("language", lang.id, lang.name))
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.candidates.addItem(item)
        self.candidates.itemChanged.connect(lambda _item: self._check())
        # the button beside the list, not under it: squeezed on a 768-px screen, the form gave the
        # row less than list + button and the button was drawn over the list
        cand = QWidget()
        cl = QHBoxLayout(cand)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.addWidget(self.candidates, 1)
        self.add_file_button = add = QPushButton("Add KNOWN.csv file…")
        add.clicked.connect(self._add_file_dialog)
        cl.addWidget(add, 0, Qt.AlignmentFlag.AlignTop)
        cand.setMinimumHeight(self.candidates.minimumHeight())
        form.addRow("Candidate languages:", cand)
        self.seeds = QLineEdit("0 1 2")
        self.seeds.setToolTip("One run per seed and language; the spread over seeds is drawn as a band")
        self.seeds.textChanged.connect(lambda _t: self._check())
        form.addRow("Seeds:", self.seeds)
        from engine.closeness.comparison import MAX_RESTARTS

        self.restarts = QSpinBox()
        self.restarts.setRange(1, MAX_RESTARTS)
        self.restarts.setValue(1)
        self.restarts.setToolTip("Trainings per seed, each with its own sub-seed, for languages and nulls alike; "
                                 "the one with the lowest final training objective is kept as the seed's run "
                                 "(helps a distant relative whose words are found on some starts only)")
        form.addRow("Restarts per seed:", self.restarts)
        self.nulls = QSpinBox()
        self.nulls.setRange(0, 100)
        self.nulls.setValue(3)
        self.nulls.setToolTip("Null vocabularies per language (each trained with every seed); 0: no verdict")
        self.nulls.valueChanged.connect(lambda _v: self._check())
        form.addRow("Null vocabularies:", self.nulls)
        self.score = QComboBox()
        self.score.addItem("coverage curve (the paper's)", "area")
        self.score.addItem("training objective", "objective")
        self.score.setToolTip("What each run scores. Coverage curve: the area under coverage against confidence, as "
                              "the paper plots it. Training objective: how well the language's words explain the "
                              "text through the mapping learned (minus the final training objective); \u201ccloser "
                              "than chance\u201d then also needs a margin of at least the reference check's "
                              "(docs/closeness.md, \u201cThe objective score\u201d)")
        form.addRow("Score:", self.score)
        self.stems = QSpinBox()
        self.stems.setRange(0, 100_000)
        self.stems.setSpecialValueText("the smallest language's size")
        self.stems.setToolTip("Every language is sampled to this many stems (the decoder's log |V| makes "
                              "vocabularies of different sizes incomparable)")
        self.stems.valueChanged.connect(lambda _v: self._check())
        self.size_mode = QComboBox()
        self.size_mode.addItem("one size for all", False)
        self.size_mode.addItem("at most this many each", True)
        self.size_mode.setToolTip("At most this many each: a longer list is sampled down, a shorter one keeps all "
                                  "its stems, and each language is read against nulls of its own size (its "
                                  "margin), as the paper's Gothic lists (600 stems beside Old Norse's 529)")
        self.size_mode.currentIndexChanged.connect(lambda _i: self._check())
        size = QWidget()
        sl = QHBoxLayout(size)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.addWidget(self.stems, 1)
        sl.addWidget(self.size_mode)
        form.addRow("Vocabulary size:", size)
        self.steps = QSpinBox()
        self.steps.setRange(1, 10_000_000)
        self.steps.setValue(config.steps)
        self.steps.valueChanged.connect(lambda _v: self._check())
        form.addRow("Steps per run:", self.steps)
        self.workers = QSpinBox()
        self.workers.setRange(1, 256)
        self.workers.setValue(max(1, default_workers() - 1))
        self.workers.setToolTip("Worker processes at once (each trains one run; they run at a lower priority)")
        form.addRow("Worker processes:", self.workers)
        self.folder = QLineEdit()
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse_folder)
        row = QWidget()
        rl = QHBoxLayout(row)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.folder, 1)
        rl.addWidget(browse)
        form.addRow("Folder:", row)
        lay.addLayout(form)
        self.problem = QLabel()
        self.problem.setStyleSheet("color: #D55E00")
        self.problem.setWordWrap(True)
        lay.addWidget(self.problem)
        self.caveat = QLabel()
        self.caveat.setWordWrap(True)
        self.caveat.setAccessibleName("What weakens this comparison")
        lay.addWidget(self.caveat)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Run comparison")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        outer.addWidget(self.buttons)
        self._corpus_changed()
        self._check()
        self.setMinimumWidth(min(640, max(520, body.sizeHint().width() + 30)))
        # as tall as the words at this width, within the screen (the rest scrolls)
        inner = self.minimumWidth() - 2 * outer.contentsMargins().left()
        want = body.heightForWidth(inner) + self.buttons.sizeHint().height() + 3 * outer.spacing() + 30
        screen = self.screen().availableGeometry().height() if self.screen() is not None else 800
        self.resize(self.minimumWidth(), min(want, screen - 60))

    def _corpus_changed(self, *_):
        cid = self.corpus.currentData()
        name = next((c.name for c in self.source.corpora() if c.id == cid), "corpus")
        self.folder.setText(str(default_folder(Path(self.source.path), name)))

    def _browse_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder of the comparison", self.folder.text())
        if folder:
            self.folder.setText(folder)

    def _add_file_dialog(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Candidate vocabularies (KNOWN.csv: form,ipa)",
                                                settings.get("last_dir") or "", "CSV or TSV (*.csv *.tsv);;All (*)")
        for p in paths:
            self.add_file(Path(p))

    def add_file(self, path: Path, name: str | None = None) -> str:
        """A KNOWN.csv file as a candidate (checked), named after the file unless ``name`` is given."""
        taken = set(self._names())
        base = name or path.stem
        name, i = base, 2
        while name in taken:
            name, i = f"{base} ({i})", i + 1
        item = QListWidgetItem(f"{name} (file {path.name})")
        item.setData(Qt.ItemDataRole.UserRole, ("file", path, name))
        item.setToolTip(str(path))
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked)
        self.candidates.addItem(item)
        self._check()
        return name

    def _names(self) -> list[str]:
        return [self.candidates.item(i).data(Qt.ItemDataRole.UserRole)[2] for i in range(self.candidates.count())]

    def checked(self) -> list[tuple[str, Any, str]]:
        out = []
        for i in range(self.candidates.count()):
            item = self.candidates.item(i)
            if item.checkState() == Qt.CheckState.Checked:
                out.append(item.data(Qt.ItemDataRole.UserRole))
        return out

    def set_checked(self, names) -> None:
        for i in range(self.candidates.count()):
            item = self.candidates.item(i)
            on = item.data(Qt.ItemDataRole.UserRole)[2] in names
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    def _check(self) -> str:
        """The first problem of the form (empty when it can run); Run is enabled only without one."""
        problem = ""
        if self.corpus.count() == 0:
            problem = "The project has no corpus: import one first (File ▸ Import)."
        elif len(self.checked()) < 2:
            problem = "Choose at least two candidate languages."
        else:
            try:
                parse_seeds(self.seeds.text())
            except DecipherError as e:
                problem = str(e)[0].upper() + str(e)[1:] + "."
            if not problem and self.size_mode.currentData() and not self.stems.value():
                problem = "Give the most stems a language keeps (at most this many each)."
        self.problem.setText(problem)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not problem)
        lines = self.caveats()
        self.caveat.setText("<br>".join(f"Caveat: {escape(c)}." for c in lines))
        self.caveat.setVisible(bool(lines))
        return problem

    def caveats(self) -> list[str]:
        """What will weaken this comparison's verdicts, said before it runs (the same conditions as
        engine.closeness.comparison.caveats, which the answer repeats after it): runs shorter than the
        model's annealing schedule, fewer than MIN_SEEDS seeds or MIN_NULLS nulls, no nulls at all."""
        from engine.closeness.comparison import MIN_NULLS, MIN_SEEDS

        out = []
        steps, anneal = self.steps.value(), self.config.anneal_steps
        if steps < anneal:
            out.append(f"{steps} steps per run stop before the model’s annealing schedule ends ({anneal} "
                       "steps): scores of unfinished runs can rank candidates differently")
        try:
            seeds = len(parse_seeds(self.seeds.text()))
        except DecipherError:
            seeds = None
        nulls = self.nulls.value()
        if nulls == 0:
            out.append("no null vocabularies: the scores are ranked, but nothing says whether any language is "
                       "closer than chance")
        elif seeds is not None and (seeds < MIN_SEEDS or nulls < MIN_NULLS):
            out.append(f"only {seeds} seed{'s' if seeds != 1 else ''} × {nulls} null{'s' if nulls != 1 else ''} "
                       f"per candidate (fewer than {MIN_SEEDS} × {MIN_NULLS}): the intervals are wide and a "
                       "relative can come out “no evidence”")
        return out

    def request(self) -> ComparisonRequest:
        """The comparison the form describes (DecipherError when it cannot run)."""
        problem = self._check()
        if problem:
            raise DecipherError(problem)
        corpus = self.source.corpus(self.corpus.currentData())
        candidates: dict[str, Vocabulary | Path] = {}
        for kind, ref, name in self.checked():
            candidates[name] = (Vocabulary(name, self.source.vocabulary(ref).stems) if kind == "language"
                                else Path(ref))
        folder = self.folder.text().strip()
        if not folder:
            raise DecipherError("Give a folder for the comparison's files.")
        return ComparisonRequest(corpus, candidates, parse_seeds(self.seeds.text()), self.nulls.value(),
                                 self.stems.value() or None, self.config.replace(steps=self.steps.value()),
                                 Path(folder), self.workers.value(), self.restarts.value(),
                                 bool(self.size_mode.currentData()), self.score.currentData())


def plot_style() -> dict:
    """What the app's own drawing of closeness.png would take from the app (read on the GUI thread):
    pyqtgraph's antialiasing and colours (decipher_gui.app.configure_plots) and the application font."""
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    return {"antialias": bool(pg.getConfigOption("antialias")),
            "background": pg.mkColor(pg.getConfigOption("background")).getRgb(),
            "foreground": pg.mkColor(pg.getConfigOption("foreground")).getRgb(),
            "font": app.font().toString() if app is not None else ""}


def draw_png(conn, comparison, path: str, style: Mapping[str, Any]) -> None:
    """In a process of its own: closeness.png of ``comparison`` (decipher_gui.figure.draw of
    engine.closeness.plot.figure_spec) with the app's fonts and plot style; sends "" when written, else
    one line saying why not."""
    import os

    os.environ["QT_QPA_PLATFORM"] = "offscreen"  # drawn off screen, whatever the app's platform
    try:
        import pyqtgraph as pg
        from PySide6.QtGui import QFont
        from PySide6.QtWidgets import QApplication

        from engine.closeness.plot import figure_spec

        from .figure import draw
        from .fonts import register_fonts

        app = QApplication.instance() or QApplication(["closeness.png"])
        register_fonts()
        if style.get("font"):
            font = QFont()
            if font.fromString(style["font"]):
                app.setFont(font)
        pg.setConfigOptions(antialias=style.get("antialias", True), background=style.get("background", "w"),
                            foreground=style.get("foreground", "k"))
        try:
            draw(figure_spec(comparison), path)
        except OSError as e:
            conn.send(f"{path}: cannot write the figure ({e.strerror or e})")
            return
        conn.send("")
    except Exception as e:  # noqa: BLE001 — said on the comparison's line, never lost with the process
        conn.send(f"{type(e).__name__}: {e}")
    finally:
        conn.close()


class AfterPaint(QObject):
    """Calls ``then`` once: :data:`SETTLE_MS` after ``widget``'s next paint event, or after
    :data:`CAP_MS` when it is not painted meanwhile (hidden, in a window that is not shown). A child of
    ``parent``, so that deleting it (or its parent) cancels the call; the widget may go first."""

    CAP_MS = 500
    SETTLE_MS = 100

    def __init__(self, widget: QWidget, then: Callable[[], None], *, parent: QObject):
        super().__init__(parent)
        self._then: Callable[[], None] | None = then
        self._widget = widget
        widget.installEventFilter(self)
        widget.destroyed.connect(self._forget)
        QTimer.singleShot(self.CAP_MS, self, self._fire)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Paint:
            # after the whole repaint and what follows it (a list view lays its items out again in
            # turns of its own), not inside it; the first paint is the one that counts
            obj.removeEventFilter(self)
            QTimer.singleShot(self.SETTLE_MS, self, self._fire)
        return False

    @Slot()
    def _forget(self) -> None:
        self._widget = None

    def _fire(self) -> None:
        then, self._then = self._then, None
        if then is None:
            return
        if self._widget is not None:
            self._widget.removeEventFilter(self)
            self._widget.destroyed.disconnect(self._forget)
        self.deleteLater()
        then()


def _default_pool(workers: int):
    from engine.runs.workers import LocalPool

    return LocalPool(workers)


class ComparisonJob(QObject):
    """One comparison in the background: planning, the runs (worker processes of a LocalPool), the
    summary and the files all happen on the thread of a :class:`~decipher_gui.background.BackgroundJob`
    (the app's one pattern for background work); what it reports reaches the GUI thread queued, so the
    slots that touch widgets run there. ``stop()`` ends the runs in flight; the finished ones are kept
    and running the same comparison again continues."""

    planned = Signal(int, str)         # runs in all, one line on the matching
    progressed = Signal(object)        # engine.closeness.runs.Progress
    finished = Signal(object)          # engine.closeness.comparison.Comparison
    failed = Signal(str)               # one line
    stopped = Signal()

    def __init__(self, request: ComparisonRequest, parent=None,
                 pool_factory: Callable[[int], Any] = _default_pool):
        super().__init__(parent)
        self.request = request
        self.pool_factory = pool_factory
        self.pool = None
        self._job: BackgroundJob | None = None
        self._stop = threading.Event()
        self.style = plot_style()  # the GUI thread's: closeness.png is drawn like the app draws
        self.png_problem: str | None = None
        """after the comparison: "" when closeness.png was written, else why not"""
        self._drawer = None
        self._outcome: tuple[str, Any] | None = None

    def start(self, *, after_paint_of: QWidget | None = None) -> None:
        """Start the comparison's thread now or, with ``after_paint_of``, shortly after that widget is
        next painted (:class:`AfterPaint`): planning and the workers' start-up then no longer compete
        with the window's repaint after the click for the GIL and the cores
        (benchmarks/gui_responsiveness.py --comparison). ``running()`` is true from here on."""
        self._job = BackgroundJob(self._work, "closeness comparison", self)
        self._job.progressed.connect(self._report)
        # the outcome is told once the thread has stopped (BackgroundJob.ended), so that whoever hears
        # finished, stopped or failed finds the job no longer running (a new comparison may start)
        self._job.succeeded.connect(self._keep)
        self._job.failed.connect(lambda title, message: self._keep(("failed", f"{title}: {message}")))
        self._job.ended.connect(self._ended)
        if after_paint_of is None:
            self._job.start()
        else:
            AfterPaint(after_paint_of, self._job.start, parent=self)

    def running(self) -> bool:
        return self._job is not None and self._job.running

    def stop(self) -> None:
        """From the GUI thread: no new run starts and the worker processes are ended (never blocks)."""
        self._stop.set()
        pool = self.pool
        if pool is not None:
            pool.stop()
        drawer = self._drawer
        if drawer is not None and drawer.is_alive():
            drawer.kill()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the comparison's thread has stopped (``timeout`` in seconds; closing the window)."""
        if self._job is not None:
            self._job.wait(30_000 if timeout is None else int(timeout * 1000))
        return not self.running()

    def _report(self, item) -> None:  # GUI thread
        if item[0] == "planned":
            self.planned.emit(item[1], item[2])
        else:
            self.progressed.emit(item[1])

    def _keep(self, result) -> None:  # GUI thread: the work's outcome, told by _ended
        self._outcome = result

    def _ended(self) -> None:  # GUI thread, after the job's thread has stopped
        result, self._outcome = self._outcome, None
        if result is None:
            return
        kind, value = result
        if kind == "finished":
            value, self.png_problem = value
            self.finished.emit(value)
        elif kind == "stopped":
            self.stopped.emit()
        else:
            self.failed.emit(value)

    def _work(self, report):  # on the job's own thread: no widget is touched here
        from engine.closeness.comparison import plan_comparison
        from engine.closeness.runs import StoppablePool, run_comparison
        from engine.runs.workers import RunsStopped

        r = self.request
        if self._stop.is_set():  # stopped before its thread started (AfterPaint)
            return ("stopped", None)
        try:
            plan = plan_comparison(r.corpus, dict(r.candidates), seeds=r.seeds, n_null=r.n_null,
                                   stems=None if r.cap_stems else r.stems, cap_stems=r.stems if r.cap_stems else None,
                                   config=r.config, restarts=r.restarts, score=r.score)
            report(("planned", len(plan.items), plan.matching.describe()))
            self.pool = StoppablePool(self.pool_factory(r.workers))
            if self._stop.is_set():
                self.pool.stop()
            try:
                comparison = run_comparison(plan, r.out, self.pool, in_flight=r.workers,
                                            on_progress=lambda p: report(("progress", p)), plot=False)
            finally:
                self.pool.close()
        except RunsStopped:
            return ("stopped", None)
        except (DecipherError, OSError) as e:
            return ("failed", str(e))
        except Exception as e:  # noqa: BLE001 — a bug must reach the user, not die with the thread
            return ("failed", f"{type(e).__name__}: {e}")
        return ("finished", (comparison, self._draw(comparison, Path(r.out) / "closeness.png")))

    def _draw(self, comparison, path: Path) -> str:  # on the job's thread
        """closeness.png drawn in a short-lived process (0.1–0.2 s of drawing that held the window's
        event loop when the GUI thread drew it); "" when written, else one line saying why not."""
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        receive, send = ctx.Pipe(duplex=False)
        drawer = ctx.Process(target=draw_png, args=(send, comparison, str(path), self.style),
                             name="closeness.png", daemon=True)
        try:
            drawer.start()
        except OSError as e:
            return f"no process to draw it ({e.strerror or e})"
        finally:
            send.close()
        self._drawer = drawer
        try:
            if self._stop.is_set():
                drawer.kill()
            while not receive.poll(0.1):  # readable at the line, or at the end of a process that sent none
                pass
            try:
                return receive.recv()
            except EOFError:
                drawer.join(10)
                return "stopped" if self._stop.is_set() else f"the drawing process ended (exit {drawer.exitcode})"
        finally:
            drawer.join(10)
            receive.close()
            self._drawer = None


class ComparisonController(QObject):
    """Connects a job to the window: the Closeness tab's progress and Stop, the figure and table when
    it is done (closeness.png drawn by the job in a process of its own), errors in the window's usual way."""

    def __init__(self, window, parent=None):
        super().__init__(parent or window)
        self.w = window
        self.job: ComparisonJob | None = None
        self.comparison = None
        view = window.plots.comparison
        view.stop_button.clicked.connect(self.stop)
        from PySide6.QtWidgets import QApplication

        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.stop)  # no worker process outlives the app
        window.projectOpened.connect(self._project_opened)

    def _detach(self) -> None:
        """The current job says nothing more to the window (it was replaced, or the project changed)."""
        job, self.job = self.job, None
        if job is None:
            return
        for sig in (job.planned, job.progressed, job.finished, job.failed, job.stopped):
            try:
                sig.disconnect()
            except (RuntimeError, TypeError):  # nothing connected any more
                pass

    @Slot(str)
    def _project_opened(self, _path: str) -> None:
        """Another project: its comparison is not this one's (a running one stops; rerunning it continues)."""
        self.stop()
        self._detach()
        self.comparison = None
        self.w.plots.comparison.clear()
        self.w.plots.closeness_tab.runs_button.click()

    def open_dialog(self) -> None:
        w = self.w
        source = w.model.comparison_source()
        if source is None:
            w.report_error("No project", "Open a project with a corpus and known languages first.")
            return
        if self.job is not None and self.job.running():
            w.report_error("A comparison is running", "Stop it (Closeness tab) before starting another.")
            return
        dialog = ComparisonDialog(source, w.model.runs.run_defaults(), w)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        try:
            request = dialog.request()
        except DecipherError as e:
            w.report_error("Cannot compare", str(e))
            return
        self.start(request)

    def start(self, request: ComparisonRequest, pool_factory: Callable[[int], Any] = _default_pool) -> ComparisonJob:
        view = self.w.plots.comparison
        self._detach()
        job = self.job = ComparisonJob(request, self, pool_factory)
        job.planned.connect(self._planned)
        job.progressed.connect(self._progressed)
        job.finished.connect(self._finished)
        job.failed.connect(self._failed)
        job.stopped.connect(self._stopped)
        view.set_running(0, f"Planning the comparison of {len(request.candidates)} languages…")
        if view.comparison is None:  # not "No comparison yet" while one runs
            view.caption.setText(f"<b>Comparing</b> {len(request.candidates)} known languages on "
                                 f"{escape(request.corpus.name)}: the answer, its figure and its table appear "
                                 "here when the runs are done.")
        self.w.plots.closeness_tab.show_comparison()
        self.w.plots.tabs.setCurrentWidget(self.w.plots.closeness_tab)
        self._make_room()
        job.start(after_paint_of=view.progress)  # the click's repaint first, then the work
        return job

    def _make_room(self) -> None:
        """Give the Plots dock about half of the window (its docks shrink, the window keeps its size):
        the answer, the figure and the table do not fit the dock's usual strip."""
        from PySide6.QtCore import Qt

        w = self.w
        dock = getattr(w, "plots_dock", None)
        if dock is None or dock.isFloating() or not dock.isVisible():
            return
        dock.raise_()
        w.resizeDocks([dock], [int(w.height() * 0.5)], Qt.Orientation.Vertical)
        w.resizeDocks([dock], [int(w.width() * 0.45)], Qt.Orientation.Horizontal)
        # laid out now, so that the click's repaint is the one at the new sizes (not one before and one after)
        w.layout().activate()

    def show_answer(self, html: str) -> None:
        """The answer in words above the figure, whole: where the docked Plots cannot hold it and a
        figure (at 1366×768 the bottom row is ~270 px tall), the dock floats at a size that can,
        over the window (a double-click on its title docks it again)."""
        view = self.w.plots.comparison
        view.caption.setText(html)
        if view.fit_answer():
            return
        dock = getattr(self.w, "plots_dock", None)
        if dock is None or dock.isFloating() or not dock.isVisible():
            return
        w = self.w
        width, height = min(1000, int(w.width() * 0.8)), int(w.height() * 0.85)
        dock.setFloating(True)
        centre = w.geometry().center()
        dock.setGeometry(centre.x() - width // 2, centre.y() - height // 2, width, height)
        for layout in (dock.layout(), view.layout()):
            if layout is not None:
                layout.activate()
        view.fit_answer()

    @Slot()
    def stop(self) -> None:
        if self.job is not None and self.job.running():
            self.job.stop()
            self.w.plots.comparison.stop_button.setEnabled(False)
            self.w.plots.comparison.progress_label.setText("Stopping…")

    @Slot(int, str)
    def _planned(self, total: int, matching: str) -> None:
        self.w.plots.comparison.set_running(total, matching)

    @Slot(object)
    def _progressed(self, p) -> None:
        self.w.plots.comparison.set_progress(p.done, p.total, p.line)
        self.w.statusBar().showMessage(f"Comparison: {p.done} of {p.total} runs", 5000)

    @Slot(object)
    def _finished(self, comparison) -> None:
        """The answer over several turns of the event loop, so that none holds the window long: the
        figure one part per turn (ComparisonView.comparison_steps), unpainted until its last part; then
        the table, the answer in words and the line, and the figure's paint (``self.comparison`` is set then)."""
        view = self.w.plots.comparison
        view.graphics.setUpdatesEnabled(False)
        out = self.job.request.out if self.job is not None else None
        problem = self.job.png_problem if self.job is not None else None
        self._draw_step(view.comparison_steps(comparison), comparison, out, problem, first=True)

    def _draw_step(self, steps, comparison, out, problem, *, first: bool = False) -> None:
        """One part of the figure (``steps``: ComparisonView.comparison_steps), then the next in the
        event loop's next turn; after the last, :meth:`_answer`."""
        view = self.w.plots.comparison
        if not first and view.comparison is not comparison:  # another comparison (or project) meanwhile
            steps.close()
            view.graphics.setUpdatesEnabled(True)
            return
        try:
            next(steps)
        except StopIteration:
            QTimer.singleShot(0, self, lambda: self._answer(comparison, out, problem))
            return
        except BaseException:
            view.graphics.setUpdatesEnabled(True)  # the error is reported; the plot is not left frozen
            raise
        QTimer.singleShot(0, self, lambda: self._draw_step(steps, comparison, out, problem))

    def _answer(self, comparison, out, problem) -> None:
        view = self.w.plots.comparison
        view.graphics.setUpdatesEnabled(True)
        if view.comparison is not comparison:  # another comparison was shown meanwhile
            return
        view.fill_table(comparison)
        self.show_answer(answer_html(comparison))
        self.comparison = comparison
        n = len(comparison.trainings or comparison.records)
        line = f"{n} runs; files in {out}" if out else ""
        if problem:  # drawn by the job (ComparisonJob._draw), not on this thread
            line += f" (closeness.png not written: {problem})"
        from engine.closeness.comparison import unranked

        left_out = unranked(comparison)
        if left_out:
            line += "; not compared: " + "; ".join(f"{name} ({why.split(': ', 1)[-1]})" for name, why in left_out)
        if comparison.run_failures:
            line += f"; {len(comparison.run_failures)} runs failed (comparison.json says why)"
        view.set_idle(line)
        self.w.statusBar().showMessage(f"Comparison finished: {line}", 10000)

    @Slot(str)
    def _failed(self, message: str) -> None:
        self.w.plots.comparison.set_idle(f"The comparison failed: {message}")
        self.w.report_error("The comparison failed", message)

    @Slot()
    def _stopped(self) -> None:
        self.w.plots.comparison.set_idle("Stopped; the finished runs are kept, and running the same comparison "
                                         "again continues from them.")


def answer_html(comparison) -> str:
    """The answer in words (engine.closeness.comparison.answer_lines) as the Closeness tab's caption: the ranked
    candidates with verdict, margin and interval, what the verdict means, and the caveats."""
    from html import escape

    from engine.closeness.comparison import answer_lines

    head, *rest = answer_lines(comparison)
    return f"<b>{escape(head)}</b><br>" + "<br>".join(escape(line) for line in rest)


def controller(window) -> ComparisonController:
    """The window's one comparison controller (made on first use)."""
    c = getattr(window, "_comparison_controller", None)
    if c is None:
        c = window._comparison_controller = ComparisonController(window)
    return c


__all__ = ["ComparisonController", "ComparisonDialog", "ComparisonJob", "ComparisonRequest", "answer_html", "controller",
           "default_folder", "parse_seeds"]
