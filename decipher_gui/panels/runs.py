"""The run panel: what to run on (corpus, known language), the settings form (advanced settings
folded away), Start / Pause / Stop with progress and device, and the project's earlier runs."""

from __future__ import annotations

from typing import Any, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFormLayout,
                               QGroupBox, QHBoxLayout, QHeaderView, QLabel, QProgressBar, QPushButton,
                               QScrollArea, QStyle, QTableWidget, QTableWidgetItem, QToolButton,
                               QVBoxLayout, QWidget)

from engine.config import Config
from engine.errors import DecipherError
from engine.project.store import CorpusInfo, LanguageInfo, RunRecord

from ..config_form import BASIC, FieldInfo, config_fields
from ..config_form import editor_value as _get, make_editor as _editor, set_editor_value as _set
from ..worker import IDLE, PAUSED, RUNNING, STARTING, STOPPING


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

    def __init__(self, parent=None, advanced_open: bool = False):
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        pick = QFormLayout()
        self.corpus = QComboBox()
        self.corpus.setAccessibleName("Corpus to decipher")
        self.language = QComboBox()
        self.language.setAccessibleName("Known language to compare with")
        pick.addRow("Corpus", self.corpus)
        pick.addRow("Known language", self.language)
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
        self.history = QTableWidget(0, 8)
        self.history.setHorizontalHeaderLabels(["run", "status", "language", "device", "steps", "P@1",
                                                "P@10", "coverage"])
        self.history.verticalHeader().hide()
        self.history.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.history.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.history.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.history.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.history.horizontalHeader().setStretchLastSection(True)
        self.history.itemSelectionChanged.connect(self._chosen)
        self.history.setAccessibleName("Runs of the project")
        outer.addWidget(self.history, 2)
        self._run_ids: list[int] = []
        self._filling = False
        self.set_state(IDLE)

    def _pause_or_resume(self) -> None:
        if self._state == PAUSED:
            self.resumeRequested.emit()
        else:
            self.pauseRequested.emit()

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

    def set_state(self, state: str, detail: str = "") -> None:
        self._state = state
        idle = state == IDLE
        self.start_button.setEnabled(idle)
        self.pause_button.setEnabled(state in (RUNNING, PAUSED, STARTING))
        self.pause_button.setText("Resume" if state == PAUSED else "Pause")
        self.pause_button.setIcon(self._icons["SP_MediaPlay" if state == PAUSED else "SP_MediaPause"])
        self.stop_button.setEnabled(state in (RUNNING, PAUSED, STARTING))
        self.form.setEnabled(idle)
        self.corpus.setEnabled(idle)
        self.language.setEnabled(idle)
        words = {IDLE: "Idle", STARTING: "Starting (loading torch and preparing the data)…",
                 RUNNING: "Running", PAUSED: "Paused", STOPPING: "Stopping…"}
        self.state_label.setText(words.get(state, state) + (f": {detail}" if detail else ""))
        if state == STARTING:
            self.progress.setRange(0, 0)  # busy indicator until the first step

    def set_progress(self, step: int, total: int, label: str = "") -> None:
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(min(step, max(1, total)))
        self.progress.setFormat((label + ": " if label else "") + "step %v of %m")

    def set_device(self, device: str) -> None:
        kind = "GPU (CUDA)" if device.startswith("cuda") else "CPU"
        self.device_label.setText(f"Device: {kind}" + ("" if device == "cpu" else f" — {device}"))

    def set_runs(self, runs: Sequence[RunRecord], languages: dict[int, str], metrics: dict[int, dict],
                 select: int | None = None) -> None:
        self._filling = True
        try:
            self.history.setRowCount(len(runs))
            self._run_ids = [r.id for r in runs]
            for row, r in enumerate(runs):
                m = metrics.get(r.id, {})
                values = [str(r.id), r.status, languages.get(r.language_id or -1, ""), r.device or "",
                          "" if r.last_step is None else str(r.last_step),
                          _pct(m.get("p_at_1")), _pct(m.get("p_at_10")), _pct(m.get("coverage"))]
                for c, v in enumerate(values):
                    item = QTableWidgetItem(v)
                    if c in (0, 4, 5, 6, 7):
                        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                    try:
                        item.setToolTip(f"settings: {r.summary()}" + (f"\nerror: {r.error}" if r.error else "")
                                        + f"\nstarted {r.started_at}" + (f", ended {r.ended_at}" if r.ended_at else ""))
                    except DecipherError:
                        pass
                    self.history.setItem(row, c, item)
            if select is not None and select in self._run_ids:
                self.history.selectRow(self._run_ids.index(select))
        finally:
            self._filling = False

    def _chosen(self) -> None:
        if self._filling:
            return
        rows = {i.row() for i in self.history.selectedIndexes()}
        if rows:
            self.runChosen.emit(self._run_ids[min(rows)])


def _pct(v: float | None) -> str:
    return "" if v is None or v != v else f"{100 * v:.1f}%"
