"""The run-settings form's fields and editors, built from engine.config's field metadata (section,
help, allowed range, source): no source code is read, so the form works in a frozen bundle."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QSpinBox, QWidget

from engine.config import SettingError, SettingInfo, parse_value, settings_info

#: Shown unfolded; every other field is in the collapsible "Advanced" section.
BASIC = ("steps", "eval_interval", "seed", "device", "segmented", "min_span", "max_span",
         "feature_dim", "chars_per_batch", "lr")

#: QSpinBox holds a C int; a wider int range (the seed) is typed in a checked line edit.
_SPIN_MAX = 2**31 - 1


@dataclass(frozen=True)
class FieldInfo:
    """One Config field as the form shows it."""

    name: str
    type: str            # "int", "float", "bool", "str"
    default: object
    section: str
    doc: str             # the help text
    choices: tuple[str, ...] = ()
    allowed: str = ""    # the allowed values in words ("a finite number > 0 and <= 10")
    source: str = ""     # where the default comes from: paper, authors' code, ours
    minimum: float | None = None
    maximum: float | None = None

    @property
    def label(self) -> str:
        return self.name.replace("_", " ")

    @property
    def tooltip(self) -> str:
        return f"{self.doc}\nAllowed: {self.allowed}.\nDefault: {_text(self.default)} ({self.source})."

    @classmethod
    def of(cls, info: SettingInfo) -> "FieldInfo":
        return cls(info.name, info.kind, info.default, info.section, info.help, info.choices,
                   info.allowed, info.source, info.minimum, info.maximum)


@functools.lru_cache(maxsize=1)
def config_fields() -> tuple[FieldInfo, ...]:
    """Every Config field, in the class's order (grouped by section)."""
    return tuple(FieldInfo.of(info) for info in settings_info())


def _text(value: Any) -> str:
    return repr(value) if isinstance(value, float) else str(value)


class ValueEdit(QLineEdit):
    """A line edit for a number, checked as it is typed by the config's own parser: a refused
    value turns the frame red and puts the one-line reason in the tooltip and in ``problem``."""

    def __init__(self, info: FieldInfo, parent=None):
        super().__init__(parent)
        self.info = info
        self.problem: str | None = None
        self.textChanged.connect(self._check)

    def value(self) -> Any:
        """The parsed value; SettingError (one line naming the setting and its range) if refused."""
        return parse_value(self.info.name, self.text())

    def _check(self) -> None:
        try:
            self.value()
            self.problem = None
        except SettingError as e:
            self.problem = str(e)
        self.setStyleSheet("" if self.problem is None else "QLineEdit { border: 2px solid #c0392b; }")
        self.setToolTip(self.info.tooltip if self.problem is None else f"{self.problem}\n\n{self.info.tooltip}")


def make_editor(info: FieldInfo) -> QWidget:
    """The widget for one setting, limited to its allowed range, its tooltip saying that range."""
    if info.choices:
        w: QWidget = QComboBox()
        w.addItems(list(info.choices))
        if info.name == "device":
            w.setEditable(True)    # cuda:N
    elif info.type == "bool":
        w = QCheckBox()
    elif info.type == "int" and info.maximum is not None and info.maximum <= _SPIN_MAX:
        w = QSpinBox()
        w.setRange(int(info.minimum if info.minimum is not None else -_SPIN_MAX - 1), int(info.maximum))
    elif info.type in ("int", "float"):
        w = ValueEdit(info)
    else:
        w = QLineEdit()
    w.setToolTip(info.tooltip)
    w.setAccessibleName(info.label)
    w.setAccessibleDescription(f"{info.doc} Allowed: {info.allowed}.")
    return w


def set_editor_value(w: QWidget, value: Any) -> None:
    if isinstance(w, QComboBox):
        i = w.findText(str(value))
        if i >= 0:
            w.setCurrentIndex(i)
        else:
            w.setEditText(str(value))
    elif isinstance(w, QCheckBox):
        w.setChecked(bool(value))
    elif isinstance(w, QSpinBox):
        w.setValue(int(value))
    else:
        w.setText(_text(value))  # type: ignore[attr-defined]


def editor_value(w: QWidget, info: FieldInfo) -> Any:
    """The editor's value, parsed and range-checked by engine.config (SettingError if refused)."""
    if isinstance(w, QComboBox):
        return parse_value(info.name, w.currentText())
    if isinstance(w, QCheckBox):
        return w.isChecked()
    if isinstance(w, QSpinBox):
        return int(w.value())
    return parse_value(info.name, w.text())  # type: ignore[attr-defined]
