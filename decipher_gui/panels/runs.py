"""The run panel: what to run on (corpus, known language, seeds), the settings form (advanced
settings folded away), Start / Pause / Stop with progress and device, a seed group's progress and
warning, and the project's earlier runs (with the seed groups they form)."""

from __future__ import annotations

import html
from typing import Any, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFormLayout,
                               QGroupBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QProgressBar, QPushButton,
                               QScrollArea, QSizePolicy, QStyle, QTableWidget, QTableWidgetItem, QToolButton,
                               QVBoxLayout, QWidget)

from engine.config import PRESET_INFO, PRESETS, Config
from engine.errors import DecipherError
from engine.project import CorpusInfo, LanguageInfo, RunRecord
from engine.runs.seeds import MAX_SEEDS, parse_seed_list
from decipher_gui.queries import pins_cell

from ..config_form import BASIC, FieldInfo, config_fields
from ..config_form import editor_value as _get, make_editor as _editor, set_editor_value as _set

#: The presets of engine.config.PRESETS, as the Run panel and the New-project dialog offer them.
PRESET_LABELS = {"paper": "Paper defaults (Gothic: spans 4–10, unsegmented)",
                 "ugaritic": "Ugaritic (spans 3–10, segmented words)",
                 "iberian": "Iberian (spans 3–10, coverage target 0.1)",
                 "linear-b": "Linear B (syllable signs, spans 1–8, segmented words)",
                 "syllabary": "Syllabary, any (syllable signs, spans 2–8)"}


def add_preset_items(box: QComboBox) -> None:
    """The presets as items of ``box``, each with its description and the gold it was fitted on as tooltip."""
    for key in PRESETS:
        box.addItem(PRESET_LABELS.get(key, key.title()), key)
        info = PRESET_INFO[key]
        box.setItemData(box.count() - 1, f"{info.description}\n\nFitted on: {info.fitted_on}.", Qt.ItemDataRole.ToolTipRole)
from ..worker import IDLE, PAUSED, RUNNING, STARTING, STOPPING

#: what the progress bar says while a run's reference run trains (engine/training/reference.py)
REFERENCE_PHASE = "reference run: the same settings against invented words with the list's sounds"


class CollapsibleSection(QWidget):
    """A header button that folds its content away."""

    def __init__(self, title: str, content: QWidget, expanded: bool = False, parent=None):
        super().__init__(parent)
        self.button = QToolButton()
        self.button.setText(title)
        self.button.setCheckable(True)
        self.button.setChecked(expanded)
        self.button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.button.setStyleSheet("QToolButton { border: none; font-weight: bold; }")
        self.button.toggled.connect(self._toggle)
        self.content = content
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.button)
        lay.addWidget(content)
        self._toggle(expanded)

    def _toggle(self, on: bool) -> None:
        self.button.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self.content.setVisible(on)


class SettingsForm(QWidget):
    """Every Config field, basic ones on top, the others in a collapsible section by topic."""

    changed = Signal()  # any field edited (or filled)

    def __init__(self, parent=None, advanced_open: bool = False):
        super().__init__(parent)
        self.editors: dict[str, tuple[QWidget, FieldInfo]] = {}
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        basic = QFormLayout()
        basic.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        infos = {f.name: f for f in config_fields()}
        for name in BASIC:
            info = infos[name]
            w = _editor(info)
            self.editors[name] = (w, info)
            label = QLabel(info.label)
            label.setToolTip(w.toolTip())
            basic.addRow(label, w)
        lay.addLayout(basic)
        adv = QWidget()
        adv_lay = QVBoxLayout(adv)
        adv_lay.setContentsMargins(8, 0, 0, 0)
        groups: dict[str, QFormLayout] = {}
        for info in config_fields():
            if info.name in BASIC:
                continue
            form = groups.get(info.section)
            if form is None:
                box = QGroupBox(info.section)
                form = QFormLayout(box)
                groups[info.section] = form
                adv_lay.addWidget(box)
            w = _editor(info)
            self.editors[info.name] = (w, info)
            label = QLabel(info.label)
            label.setToolTip(w.toolTip())
            form.addRow(label, w)
        self.advanced = CollapsibleSection("Advanced settings", adv, advanced_open)
        lay.addWidget(self.advanced)
        for w, _ in self.editors.values():
            for name in ("valueChanged", "toggled", "currentTextChanged", "textChanged"):
                signal = getattr(w, name, None)
                if signal is not None and hasattr(signal, "connect"):
                    signal.connect(lambda *_: self.changed.emit())
                    break
        self.set_config(Config())

    def set_config(self, config: Config) -> None:
        for name, (w, _) in self.editors.items():
            _set(w, getattr(config, name))

    def values(self) -> dict[str, Any]:
        return {name: _get(w, info) for name, (w, info) in self.editors.items()}

    def config(self) -> Config:
        """The Config the form describes (InputError with the problem when it is not valid)."""
        return Config.from_dict(self.values())


class RunsPanel(QWidget):
    startRequested = Signal()
    pauseRequested = Signal()
    resumeRequested = Signal()
    stopRequested = Signal()
    saveDefaultsRequested = Signal()
    restoreDefaultsRequested = Signal()
    runChosen = Signal(int)            # a stored run to show
    presetChosen = Signal(str)         # a key of engine.config.PRESETS
    groupStopRequested = Signal()      # stop the running seed group

    #: The Runs table's columns; "seed group" marks the runs of a group and its chosen seed.
    HISTORY_COLUMNS = ("run", "status", "seed group", "language", "device", "steps", "P@1", "P@10", "coverage",
                       "pins")
    PINS_COLUMN = 9
    GROUP_COLUMN = 2

    def __init__(self, parent=None, advanced_open: bool = False):
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        pick = QFormLayout()
        self.corpus = QComboBox()
        self.corpus.setAccessibleName("Corpus to decipher")
        self.language = QComboBox()
        self.language.setAccessibleName("Known language to compare with")
        self.preset = QComboBox()
        self.preset.setAccessibleName("Settings preset")
        self.preset.addItem("(choose a preset…)", None)
        add_preset_items(self.preset)
        self.preset.setToolTip("Fill the settings below with the paper's settings for a language pair")
        self.preset.activated.connect(self._preset_picked)
        self.seeds = QLineEdit()
        self.seeds.setAccessibleName("Seeds")
        self.seeds.setPlaceholderText("one run (the seed below); several: e.g. 0 1 2 3 4")
        self.seeds.setToolTip(
            "Empty or one seed: one run. Several seeds (e.g. 0 1 2 3 4, or 0-4; at most "
            f"{MAX_SEEDS}): one run per seed, trained side by side in worker processes, and their "
            "consensus: how many seeds agree on each reading, and a seed chosen without gold "
            "(docs/seeds.md). The group's files go beside the project, in <project>.seeds/.")
        self.seeds_note = QLabel("")
        self.seeds_note.setWordWrap(True)
        self.seeds_note.setAccessibleName("Seeds check")
        self.seeds.textChanged.connect(self._check_seeds)
        pick.addRow("Corpus", self.corpus)
        pick.addRow("Known language", self.language)
        pick.addRow("Preset", self.preset)
        pick.addRow("Seeds", self.seeds)
        pick.addRow("", self.seeds_note)
        outer.addLayout(pick)
        controls = QHBoxLayout()
        style = self.style()
        self._icons = {name: style.standardIcon(getattr(QStyle.StandardPixmap, name))
                       for name in ("SP_MediaPlay", "SP_MediaPause", "SP_MediaStop")}
        self.start_button = QPushButton(self._icons["SP_MediaPlay"], "Start")
        self.start_button.setToolTip("Start a run with these settings (F5)")
        self.pause_button = QPushButton(self._icons["SP_MediaPause"], "Pause")
        self.pause_button.setToolTip("Pause after the current step; pin values, then Resume (F6)")
        self.stop_button = QPushButton(self._icons["SP_MediaStop"], "Stop")
        self.stop_button.setToolTip("Evaluate once more and end the run (Shift+F5)")
        self.start_button.clicked.connect(self.startRequested)
        self.pause_button.clicked.connect(self._pause_or_resume)
        self.stop_button.clicked.connect(self.stopRequested)
        for b in (self.start_button, self.pause_button, self.stop_button):
            controls.addWidget(b)
        outer.addLayout(controls)
        self.progress = QProgressBar()
        self.progress.setFormat("no run yet")
        self.progress.setValue(0)
        outer.addWidget(self.progress)
        self.state_label = QLabel("No run yet")
        self.state_label.setWordWrap(True)
        outer.addWidget(self.state_label)
        self.device_label = QLabel("Device: chosen when a run starts (CUDA if torch sees a GPU, else CPU)")
        self.device_label.setWordWrap(True)
        outer.addWidget(self.device_label)
        self.span_note = QLabel("")
        self.span_note.setWordWrap(True)
        self.span_note.setAccessibleName("Words shorter than the shortest span")
        outer.addWidget(self.span_note)
        # how long a run of these settings takes on this machine, before Start (engine/runs/estimate.py)
        self.time_note = QLabel("")
        self.time_note.setWordWrap(True)
        self.time_note.setAccessibleName("Time estimate")
        outer.addWidget(self.time_note)
        self._stems = 0
        self._device_kind: str | None = None   # of the last run started here ("cpu"/"cuda")
        self._step_times: tuple[float, list] | None = None   # (the file's mtime, its records)
        # what the run's settings make impossible (engine/runs/warnings.py), as the run's process says it
        self.warnings_note = QLabel("")
        self.warnings_note.setWordWrap(True)
        self.warnings_note.setTextFormat(Qt.TextFormat.PlainText)
        self.warnings_note.setAccessibleName("Run warnings")
        self.warnings_note.setVisible(False)
        outer.addWidget(self.warnings_note)
        # a seed group's own progress and Stop (it runs beside, not through, the single run)
        self.group_box = QWidget()
        group_lay = QHBoxLayout(self.group_box)
        group_lay.setContentsMargins(0, 0, 0, 0)
        self.group_progress = QProgressBar()
        self.group_progress.setAccessibleName("Seed group progress")
        self.group_stop = QPushButton(self._icons["SP_MediaStop"], "Stop seeds")
        self.group_stop.setToolTip("End the seeds still training; the finished seeds are kept, and "
                                   "starting the same group again trains only the rest")
        self.group_stop.clicked.connect(self.groupStopRequested)
        group_lay.addWidget(self.group_progress, 1)
        group_lay.addWidget(self.group_stop)
        self.group_box.hide()
        outer.addWidget(self.group_box)
        self.group_warning = QLabel("")
        self.group_warning.setWordWrap(True)
        self.group_warning.setAccessibleName("Seed group warning")
        # a framed box and the ⚠ sign: the warning does not rest on colour alone
        self.group_warning.setStyleSheet("QLabel { border: 2px solid #D55E00; border-radius: 3px; "
                                         "padding: 4px; background: #FFF3E6; color: #000000; }")
        self.group_warning.hide()
        outer.addWidget(self.group_warning)
        # the shown run's gold-free diagnosis (engine/training/diagnosis.py), in plain words; wrapped
        # and allowed any width, so a long finding never widens the window
        self.diagnosis_note = QLabel("")
        self.diagnosis_note.setWordWrap(True)
        self.diagnosis_note.setTextFormat(Qt.TextFormat.PlainText)
        self.diagnosis_note.setAccessibleName("Diagnosis of the shown run")
        self.diagnosis_note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)
        self.diagnosis_note.setMinimumWidth(0)
        self.diagnosis_note.hide()
        outer.addWidget(self.diagnosis_note)
        self.form = SettingsForm(advanced_open=advanced_open)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.form)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        outer.addWidget(scroll, 3)
        defaults = QHBoxLayout()
        self.save_defaults = QPushButton("Save as project defaults")
        self.save_defaults.clicked.connect(self.saveDefaultsRequested)
        self.restore_defaults = QPushButton("Project defaults")
        self.restore_defaults.setToolTip("Fill the form with the project's default run settings")
        self.restore_defaults.clicked.connect(self.restoreDefaultsRequested)
        defaults.addWidget(self.save_defaults)
        defaults.addWidget(self.restore_defaults)
        outer.addLayout(defaults)
        outer.addWidget(QLabel("Runs in this project (select one to show its matches):"))
        self.history = QTableWidget(0, len(self.HISTORY_COLUMNS))
        self.history.setHorizontalHeaderLabels(list(self.HISTORY_COLUMNS))
        self.history.horizontalHeaderItem(self.GROUP_COLUMN).setToolTip(
            "Runs trained as one seed group (Gn · seed k); ★ the seed chosen without gold")
        self.history.verticalHeader().hide()
        self.history.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.history.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.history.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.history.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.history.horizontalHeader().setStretchLastSection(True)
        # the pins column right after the status, where the dock's width shows it (tenth, it was
        # off-screen at every window size); the table's columns (HISTORY_COLUMNS) are unchanged
        self.history.horizontalHeader().moveSection(self.PINS_COLUMN, 2)
        self.history.itemSelectionChanged.connect(self._chosen)
        self.history.setAccessibleName("Runs of the project")
        outer.addWidget(self.history, 2)
        self._run_ids: list[int] = []
        self._filling = False
        self._group_running = False
        self._group_marks: dict[int, tuple[str, str]] = {}
        self.set_state(IDLE)

    def _pause_or_resume(self) -> None:
        if self._state == PAUSED:
            self.resumeRequested.emit()
        else:
            self.pauseRequested.emit()

    def _preset_picked(self, index: int) -> None:
        key = self.preset.itemData(index)
        if key:
            self.presetChosen.emit(key)

    def show_preset(self, key: str) -> None:
        i = self.preset.findData(key)
        if i >= 0:
            self.preset.setCurrentIndex(i)

    def fill_preset(self, name: str) -> None:
        """Fill the settings form with a preset's settings (KeyError for an unknown preset)."""
        base = Config()
        config = base.replace(**PRESETS[name]) if PRESETS[name] else base
        self.form.set_config(config)
        self.show_preset(name)
        self.check_span_limits()

    def set_inscriptions(self, inscriptions: Sequence) -> None:
        """The chosen corpus's inscriptions, which the span note counts words of."""
        self._inscriptions = tuple(inscriptions)
        self.check_span_limits()

    def set_stems(self, stems: int) -> None:
        """The chosen known language's number of stems (the time estimate's vocabulary size)."""
        self._stems = int(stems)
        self.update_estimate()

    def _records(self) -> list:
        """This machine's step times, read again only when their file changed (a few hundred
        lines at most; read on a settings edit, never on a run's tick)."""
        from engine.runs.estimate import read_records, step_times_path

        path = step_times_path()
        try:
            mtime = path.stat().st_mtime if path is not None else None
        except OSError:
            mtime = None
        if mtime is None:
            return []
        if self._step_times is None or self._step_times[0] != mtime:
            self._step_times = (mtime, read_records(path))
        return self._step_times[1]

    def update_estimate(self) -> None:
        """The time a run of the form's settings takes here, or that it is unknown until the first
        steps (no run alike on this machine yet); nothing while the form is mid-edit or no corpus
        and language are chosen."""
        from engine.runs.estimate import estimate, latest_device, planned_steps, run_shape
        from engine.training.reference import wanted

        inscriptions = getattr(self, "_inscriptions", ())
        if not inscriptions or not self._stems:
            self.time_note.setText("")
            return
        try:
            config = self.form.config()
        except DecipherError:
            return
        records = self._records()
        device = config.device if config.device != "auto" else \
            (self._device_kind or latest_device(records) or "cpu")   # never torch's import on this thread
        shape = run_shape(config, sum(len(ins.units) for ins in inscriptions), self._stems, device)
        got = estimate(shape, planned_steps(config), records, reference=wanted(config))
        self.time_note.setText(got.text())
        self.time_note.setToolTip(got.how())

    def check_span_limits(self) -> None:
        """Tell how many written words are shorter than the shortest span (they cannot match)."""
        from decipher_gui.queries import words_shorter_than

        try:
            editor, info = self.form.editors["min_span"]
            min_span = int(_get(editor, info))  # only this field: another may be mid-edit
        except (KeyError, TypeError, ValueError, DecipherError):
            return
        short, total = words_shorter_than(getattr(self, "_inscriptions", ()), min_span)
        try:
            editor, info = self.form.editors["signs"]
            unit = "signs" if _get(editor, info) == "syllables" else "letters"
        except (KeyError, TypeError, ValueError, DecipherError):
            unit = "letters"
        self.set_span_note(short, total, min_span, unit)
        self.update_estimate()

    def set_span_note(self, short: int, total: int, min_span: int, unit: str = "letters") -> None:
        """Say how many written words of the corpus cannot be matched whole (shorter than the
        shortest span, counted in ``unit``: letters, or signs with signs = syllables)."""
        if not total:
            self.span_note.setText("")
            return
        if not short:
            self.span_note.setText(f"Every written word ({total}) is at least as long as the shortest span "
                                   f"({min_span} {unit}).")
            return
        share = short / total
        text = (f"{short} of {total} written words ({share:.0%}) are shorter than the shortest span "
                f"({min_span} {unit}) and cannot be matched whole.")
        if share >= 0.2:
            text = f"<b>⚠ {text}</b> Lower “shortest span” or choose a preset."
        self.span_note.setText(text)

    def add_run_warning(self, text: str) -> None:
        """Show one warning of the run (a line of engine.runs.warnings.run_warnings) under the progress."""
        lines = [t for t in self.warnings_note.text().split("\n") if t]
        if text not in lines:
            lines.append(text)
        self.warnings_note.setText("\n".join(lines))
        self.warnings_note.setVisible(True)

    def clear_run_warnings(self) -> None:
        self.warnings_note.setText("")
        self.warnings_note.setVisible(False)

    def run_warnings(self) -> list[str]:
        """The warnings shown for the current (or last) run."""
        return [t for t in self.warnings_note.text().split("\n") if t]

    def reset_progress(self) -> None:
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setFormat("no run yet")
        self.state_label.setText("Idle")
        self.device_label.setText("Device: chosen when a run starts (CUDA if torch sees a GPU, else CPU)")
        self.clear_run_warnings()
        self.history.setRowCount(0)
        self._run_ids = []

    def set_choices(self, corpora: Sequence[CorpusInfo], languages: Sequence[LanguageInfo]) -> None:
        for combo, items in ((self.corpus, corpora), (self.language, languages)):
            keep = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            for it in items:
                extra = f"{it.inscriptions} inscriptions" if isinstance(it, CorpusInfo) else f"{it.stems} stems"
                combo.addItem(f"{it.name} ({extra})", it.id)
            i = combo.findData(keep)
            combo.setCurrentIndex(i if i >= 0 else 0)
            combo.blockSignals(False)

    # ---- seeds and seed groups ---------------------------------------------------------------

    def seed_list(self) -> list[int]:
        """The seeds typed (empty: one run with the form's seed); DecipherError when not valid."""
        return parse_seed_list(self.seeds.text())

    def _check_seeds(self) -> bool:
        try:
            seeds = self.seed_list()
        except DecipherError as exc:
            self.seeds_note.setText(f"<b>✗ {html.escape(str(exc))}</b>")
            self.seeds.setProperty("invalid", True)
            self.seeds.setStyleSheet("QLineEdit { border: 2px solid #D55E00; }")
            self.start_button.setEnabled(False)
            return False
        self.seeds.setStyleSheet("")
        self.seeds.setProperty("invalid", False)
        if len(seeds) > 1:
            self.seeds_note.setText(f"{len(seeds)} runs, one per seed, and their consensus")
        else:
            self.seeds_note.setText("" if not seeds else f"one run with seed {seeds[0]}")
        self.start_button.setEnabled(self._state == IDLE and not self._group_running)
        return True

    def seeds_valid(self) -> bool:
        return not self.seeds.property("invalid")

    def set_group_running(self, running: bool, n_seeds: int = 0, out=None) -> None:
        """Show (or hide) the running group's progress bar and Stop; a single run waits meanwhile."""
        self._group_running = running
        self.group_box.setVisible(running)
        self.group_stop.setEnabled(running)
        if running:
            self.progress.setRange(0, 0)  # busy until the first worker records a step
            self.progress.setFormat("seed group: starting")
            self.group_progress.setRange(0, max(1, n_seeds))
            self.group_progress.setValue(0)
            self.group_progress.setFormat(f"seed group: 0 of {n_seeds} seeds finished")
            self.group_box.setToolTip(f"Seed group files: {out}" if out else "")
        self.seeds.setEnabled(not running)
        self.set_state(self._state)

    def set_group_progress(self, done: int, total: int) -> None:
        self.group_progress.setRange(0, max(1, total))
        self.group_progress.setValue(min(done, max(1, total)))
        self.group_progress.setFormat(f"seed group: {done} of {total} seeds finished")

    def set_group_steps(self, steps: int, total: int, line: str) -> None:
        """A running seed group's training in the panel's own bar and state line (steps over all its
        seeds; the line says which seeds train and which finished)."""
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(min(steps, max(1, total)))
        self.progress.setFormat("seed group: step %v of %m (all seeds)")
        self.state_label.setText(line)

    def set_group_stopping(self) -> None:
        self.group_stop.setEnabled(False)
        self.group_progress.setFormat(self.group_progress.format() + " — stopping…")

    def set_group_warning(self, text: str | None) -> None:
        """The warning when the shown run's group has a chosen seed that most others contradict."""
        self.group_warning.setText(text or "")
        self.group_warning.setVisible(bool(text))

    #: a flagged diagnosis is framed like the group warning (and starts with ⚠: not colour alone)
    FLAGGED_STYLE = ("QLabel { border: 2px solid #D55E00; border-radius: 3px; padding: 4px; "
                     "background: #FFF3E6; color: #000000; }")

    def set_diagnosis(self, text: str, flagged: bool = False) -> None:
        """The shown run's diagnosis in plain words ("" hides it: no run shown, or one training)."""
        self.diagnosis_note.setText(text)
        self.diagnosis_note.setToolTip(text)
        self.diagnosis_note.setStyleSheet(self.FLAGGED_STYLE if flagged else "")
        self.diagnosis_note.setVisible(bool(text))

    def set_seed_groups(self, marks: dict[int, tuple[str, str]]) -> None:
        """Run id -> (marker, tooltip) for the "seed group" column (applied by set_runs)."""
        self._group_marks = dict(marks)

    def set_state(self, state: str, detail: str = "") -> None:
        self._state = state
        idle = state == IDLE
        self.start_button.setEnabled(idle and not self._group_running and self.seeds_valid())
        self.pause_button.setEnabled(state in (RUNNING, PAUSED, STARTING))
        self.pause_button.setText("Resume" if state == PAUSED else "Pause")
        self.pause_button.setIcon(self._icons["SP_MediaPlay" if state == PAUSED else "SP_MediaPause"])
        self.stop_button.setEnabled(state in (RUNNING, PAUSED, STARTING))
        self.form.setEnabled(idle and not self._group_running)
        self.corpus.setEnabled(idle and not self._group_running)
        self.language.setEnabled(idle and not self._group_running)
        words = {IDLE: "Idle", STARTING: "Starting (loading torch and preparing the data)…",
                 RUNNING: "Running", PAUSED: "Paused", STOPPING: "Stopping…"}
        if not (idle and self._group_running):  # the group's own line (set_group_steps) stays
            self.state_label.setText(words.get(state, state) + (f": {detail}" if detail else ""))
        if idle and self._group_running and self.state_label.text() in ("Idle", "No run yet"):
            self.state_label.setText("Seed group: starting the workers…")
        if state == STARTING:
            self.progress.setRange(0, 0)  # busy indicator until the first step
        if idle:   # a run that just ended has added its step time
            self.update_estimate()
            self.state_label.setToolTip("")     # a phase's explanation (decipher_gui.live) ends with the run
            if self.progress.format() == REFERENCE_PHASE:
                self.progress.setFormat("step %v of %m")
                self.progress.setToolTip("")

    def set_progress(self, step: int, total: int, label: str = "") -> None:
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(min(step, max(1, total)))
        self.progress.setFormat((label + ": " if label else "") + "step %v of %m")

    def show_reference_phase(self) -> None:
        """The run's own steps are done and its reference run trains (setting reference_null): a busy
        bar that says so, until the run's end resets it."""
        # a full bar with words, not the style's busy animation (it repaints all the time: see set_run_state)
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        self.progress.setFormat(REFERENCE_PHASE)
        self.state_label.setText("Running: the run's steps are done; its reference run is training")
        self.progress.setToolTip("The run has finished its steps; it is trained once more against invented words with "
                                 "the known list's sounds, so that the diagnosis can tell whether the list fits the "
                                 "text better than chance. Set reference_null = off to skip it.")

    def set_device(self, device: str) -> None:
        self._device_kind = "cuda" if device.startswith("cuda") else "cpu"
        kind = "GPU (CUDA)" if device.startswith("cuda") else "CPU"
        self.device_label.setText(f"Device: {kind}" + ("" if device == "cpu" else f" — {device}"))

    def set_runs(self, runs: Sequence[RunRecord], languages: dict[int, str], metrics: dict[int, dict],
                 select: int | None = None, pins: dict[int, list] | None = None,
                 diagnoses: dict[int, dict] | None = None) -> None:
        """``pins``: run id -> its pin changes (the "pins" column: how many from which step);
        ``diagnoses``: run id -> its diagnosis (each row's tooltip says it in a line)."""
        from engine.training.diagnosis import diagnosis_from

        diagnoses = diagnoses or {}
        self._filling = True
        try:
            self.history.setRowCount(len(runs))
            self._run_ids = [r.id for r in runs]
            for row, r in enumerate(runs):
                m = metrics.get(r.id, {})
                mark, mark_tip = self._group_marks.get(r.id, ("", ""))
                values = [str(r.id), r.status, mark, languages.get(r.language_id or -1, ""), r.device or "",
                          "" if r.last_step is None else str(r.last_step),
                          _pct(m.get("p_at_1")), _pct(m.get("p_at_10")), _pct(m.get("coverage"))]
                pins_text, pins_tip = pins_cell((pins or {}).get(r.id, []))
                values.append(pins_text)
                try:  # one tooltip per row, made once (a run's settings summary is not free)
                    tip = (f"settings: {r.summary()}" + (f"\nerror: {r.error}" if r.error else "")
                           + f"\nstarted {r.started_at}" + (f", ended {r.ended_at}" if r.ended_at else "")
                           + (f"\n{mark_tip}" if mark_tip else "") + (f"\n{pins_tip}" if pins_tip else ""))
                    if r.status != "running":
                        d = diagnosis_from(diagnoses.get(r.id))
                        tip += "\ndiagnosis: " + ("none" if d is None else d.headline())
                except DecipherError:
                    tip = None
                for c, v in enumerate(values):
                    item = QTableWidgetItem(v)
                    if c in (0, 5, 6, 7, 8):
                        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                    if tip is not None:
                        item.setToolTip(tip)
                    if c == self.PINS_COLUMN and pins_tip:
                        item.setToolTip(pins_tip)
                    if c == self.GROUP_COLUMN and mark_tip:
                        item.setToolTip(mark_tip)
                        if "★" in mark:
                            font = item.font()
                            font.setBold(True)
                            item.setFont(font)
                    self.history.setItem(row, c, item)
            if select is not None and select in self._run_ids:
                self.history.selectRow(self._run_ids.index(select))
        finally:
            self._filling = False

    def update_run_row(self, run_id: int, step: int, metrics: dict) -> bool:
        """A live run's evaluation in its own row (step reached, P@1, P@10, coverage), without
        re-reading every run from the project; False when the run has no row yet."""
        if run_id not in self._run_ids:
            return False
        row = self._run_ids.index(run_id)
        for col, text in ((5, str(step)), (6, _pct(metrics.get("p_at_1"))), (7, _pct(metrics.get("p_at_10"))),
                          (8, _pct(metrics.get("coverage")))):
            item = self.history.item(row, col)
            if item is not None:
                item.setText(text)
        return True

    def _chosen(self) -> None:
        if self._filling:
            return
        rows = {i.row() for i in self.history.selectedIndexes()}
        if rows:
            self.runChosen.emit(self._run_ids[min(rows)])


def _pct(v: float | None) -> str:
    return "" if v is None or v != v else f"{100 * v:.1f}%"
