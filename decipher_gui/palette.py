"""Colours and line styles: the Okabe–Ito palette (safe for the common colour-vision
deficiencies), and for every state a second cue that does not depend on colour."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

OKABE_ITO = {
    "black": "#000000", "orange": "#E69F00", "sky_blue": "#56B4E9", "bluish_green": "#009E73",
    "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "reddish_purple": "#CC79A7",
}

#: Curves in plots, in order.
SERIES = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"]


class SpanStyle:
    """How a matched span is drawn: fill colour, underline pattern and a text badge."""

    def __init__(self, name: str, colour: str, alpha: int, line: Qt.PenStyle, width: float,
                 double: bool, badge: str, description: str):
        self.name = name
        self.fill = QColor(colour)
        self.fill.setAlpha(alpha)
        self.line = QColor(colour).darker(175)
        self.pen_style = line
        self.width = width
        self.double = double
        self.badge = badge
        self.description = description


SPAN_STYLES = {
    "open": SpanStyle("open", OKABE_ITO["sky_blue"], 90, Qt.PenStyle.SolidLine, 2.0, False, "",
                      "open: single underline"),
    "accepted": SpanStyle("accepted", OKABE_ITO["bluish_green"], 110, Qt.PenStyle.SolidLine, 2.0, True, "✓",
                          "accepted: double underline ✓"),
    "rejected": SpanStyle("rejected", OKABE_ITO["vermillion"], 60, Qt.PenStyle.DashLine, 1.6, False, "✗",
                          "rejected: dashed ✗"),
    "live": SpanStyle("live", OKABE_ITO["orange"], 45, Qt.PenStyle.DotLine, 1.6, False, "",
                      "live (newest batch): dotted"),
}

GOLD_COLOUR = QColor("#555555")
DIVIDER_COLOUR = QColor("#777777")
SELECTION_COLOUR = QColor(OKABE_ITO["blue"])


def shade(p: float) -> QColor:
    """A light-to-dark blue ramp for probabilities (monotone in lightness, readable in grey)."""
    p = min(max(float(p), 0.0), 1.0) ** 0.5
    light = QColor("#F7FBFF")
    dark = QColor("#08306B")
    return QColor(round(light.red() + (dark.red() - light.red()) * p),
                  round(light.green() + (dark.green() - light.green()) * p),
                  round(light.blue() + (dark.blue() - light.blue()) * p))


def text_on(colour: QColor) -> QColor:
    return QColor("#000000") if colour.lightnessF() > 0.55 else QColor("#FFFFFF")
