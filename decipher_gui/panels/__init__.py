"""The dockable panels of the main window, one module each."""

from PySide6.QtWidgets import QLabel, QSizePolicy


def wrapping_label(text: str = "") -> QLabel:
    """A caption or legend that wraps its text and lets its dock shrink below the text's width."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    return label
