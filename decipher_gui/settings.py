"""User preferences in QSettings (an INI file per user), read with types and defaults.

Tests point ``SETTINGS_PATH`` (and ``DATA_DIR``) at a temporary folder so they never touch the
user's recent projects. The organisation and application names are set in app.py before the
first QSettings is made.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings, QStandardPaths

ORGANIZATION = "decipher-workbench"
APPLICATION = "Decipher Workbench"

#: Where the INI file lives; None = Qt's per-user location (AppConfigLocation).
SETTINGS_PATH: Path | None = None
#: Where the sample project and other app data live; None = QStandardPaths AppDataLocation.
DATA_DIR: Path | None = None

_DEFAULTS: dict[str, Any] = {
    "recent": [],
    "max_recent": 6,
    "last_project": "",
    "reopen_last": True,
    "last_dir": "",
    "geometry": QByteArray(),
    "window_state": QByteArray(),
    "text_point_size": 15,
    "advanced_run_settings": False,
    "display_hint_seen": False,  # the first-launch hint on where display tables live
}

#: Allowed ranges of the numeric preferences: a hand-edited or foreign INI value outside its range
#: (or not a number) reads as the default, never as a font of -3 points or 10**9 recent files.
RANGES: dict[str, tuple[int, int]] = {
    "max_recent": (1, 50),
    "text_point_size": (8, 40),
}


def _qsettings() -> QSettings:
    if SETTINGS_PATH is not None:
        return QSettings(str(SETTINGS_PATH), QSettings.Format.IniFormat)
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, "decipher-gui")


def settings_file() -> str:
    return _qsettings().fileName()


def get(key: str) -> Any:
    """The stored value with the type of its default (KeyError for unknown keys)."""
    default = _DEFAULTS[key]
    s = _qsettings()
    if isinstance(default, list):
        value = s.value(key, default)
        if value is None:
            return []
        return [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)]
    if isinstance(default, QByteArray):
        value = s.value(key, default)
        return value if isinstance(value, QByteArray) else default
    try:
        value = s.value(key, default, type=type(default))
    except (TypeError, ValueError, OverflowError):
        return default
    if key in RANGES:
        low, high = RANGES[key]
        if not low <= value <= high:
            return default
    return value


def put(key: str, value: Any) -> None:
    if key not in _DEFAULTS:
        raise KeyError(key)
    if key in RANGES and not RANGES[key][0] <= value <= RANGES[key][1]:
        raise ValueError(f"preference {key}: must be from {RANGES[key][0]} to {RANGES[key][1]}, got {value}")
    s = _qsettings()
    s.setValue(key, value)
    s.sync()


def reset() -> None:
    s = _qsettings()
    s.clear()
    s.sync()


def recent_projects() -> list[str]:
    """Recent project paths, newest first, without files that have gone."""
    return [p for p in get("recent") if p and Path(p).exists()]


def add_recent(path: str | os.PathLike) -> list[str]:
    path = str(Path(path).resolve())
    items = [p for p in get("recent") if p != path]
    items.insert(0, path)
    items = items[: max(1, get("max_recent"))]
    put("recent", items)
    put("last_project", path)
    return items


def clear_recent() -> None:
    put("recent", [])


def data_dir() -> Path:
    if DATA_DIR is not None:
        path = Path(DATA_DIR)
    elif os.environ.get("DECIPHER_GUI_DATA_DIR"):
        path = Path(os.environ["DECIPHER_GUI_DATA_DIR"])
    else:
        path = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation))
    path.mkdir(parents=True, exist_ok=True)
    return path


def sample_project_path() -> Path:
    return data_dir() / "sample.decipher"
