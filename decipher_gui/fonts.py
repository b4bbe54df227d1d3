"""The bundled fonts (Noto Sans for Latin and IPA; Noto Sans Ugaritic, Gothic, Hebrew, Phoenician,
Linear B and Linear A for corpora and display tables in those scripts; all OFL) and the fallback list for inscription text."""

from __future__ import annotations

import logging

from PySide6.QtGui import QFont, QFontDatabase, QFontMetrics

from engine.resources import resource

FONT_DIR = resource("fonts")
FONT_FILES = ("NotoSans-Regular.ttf", "NotoSans-Bold.ttf", "NotoSansUgaritic-Regular.ttf",
              "NotoSansGothic-Regular.ttf", "NotoSansHebrew-Regular.ttf", "NotoSansPhoenician-Regular.ttf",
              "NotoSansLinearB-Regular.ttf", "NotoSansLinearA-Regular.ttf")

#: Tried in order for every character: the bundled font first, then IPA fonts a scholar may have.
TEXT_FAMILIES = ["Noto Sans", "Noto Sans Ugaritic", "Noto Sans Gothic", "Noto Sans Hebrew", "Noto Sans Phoenician",
                 "Noto Sans Linear B", "Noto Sans Linear A", "Charis SIL", "Gentium Plus", "Doulos SIL", "DejaVu Sans"]

#: Letters of the scripts the display-table presets use (tested in tests/gui).
SCRIPT_SAMPLES = {"Noto Sans Ugaritic": "\U00010380\U0001038C\U0001039D", "Noto Sans Gothic": "\U00010330\U00010348",
                  "Noto Sans Hebrew": "אשת", "Noto Sans Phoenician": "\U00010900",
                  "Noto Sans Linear B": "\U00010000\U0001000F\U00010080", "Noto Sans Linear A": "\U00010600\U00010740"}

#: Characters the inscription and IPA views must show (tested in tests/gui).
IPA_SAMPLE = "ʔħʕθðʃɣχɬˤśŕḿŋɡəɛɔː·"

_loaded: list[str] = []


def register_fonts() -> list[str]:
    """Add the bundled fonts to the application (once); returns the families loaded."""
    if _loaded:
        return list(_loaded)
    for name in FONT_FILES:
        path = FONT_DIR / name
        if not path.exists():  # said, not skipped silently: an install that lost its package data
            logging.getLogger(__name__).warning("bundled font missing: %s (system fonts used instead)", path)
            continue
        font_id = QFontDatabase.addApplicationFont(str(path))
        if font_id >= 0:
            for family in QFontDatabase.applicationFontFamilies(font_id):
                if family not in _loaded:
                    _loaded.append(family)
    return list(_loaded)


def text_font(point_size: float | None = None, bold: bool = False) -> QFont:
    """The font for lost-language text and IPA, with the fallback family list."""
    font = QFont()
    font.setFamilies(TEXT_FAMILIES)
    if point_size:
        font.setPointSizeF(point_size)
    font.setBold(bold)
    return font


def missing_glyphs(font: QFont, text: str = IPA_SAMPLE) -> list[str]:
    """Characters of ``text`` that the font's first family cannot draw."""
    metrics = QFontMetrics(font)
    return [ch for ch in text if not ch.isspace() and not metrics.inFontUcs4(ord(ch))]
