"""The inscription view: every inscription of a corpus with its matched spans highlighted, and a
side panel explaining the selected span (ranked stems, IPA, character alignment).

A span's state shows as colour *and* line: open = single underline, accepted = double underline
and ✓, rejected = dashed underline and ✗, live (newest batch) = dotted underline. When the shown
run is one of a seed group, the fill says whether the seeds agree: solid where most seeds decode the
span with the same top stem, pale and hatched where they do not (contested). Written word
dividers show as a grey middle dot; gold annotations as a thin bracket above the letters.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Sequence

from PySide6.QtCore import (QAbstractListModel, QEvent, QModelIndex, QPointF,
                            QRectF, QSize, Qt, Signal)
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QListView, QPushButton, QSplitter, QStyle, QStyledItemDelegate,
                               QStyleOptionViewItem, QTableWidget, QTableWidgetItem, QToolTip,
                               QVBoxLayout, QWidget)

from engine.corpus import DIVIDER, GoldAnnotation, Inscription
from engine.io.display import IDENTITY, DisplayTable
from engine.model.explain import best_alignment
from engine.model.syllables import NULL_ONSET
from engine.project import inscription_ref
from engine.results import MappingSnapshot, Match

from ..analysis import SpanMark
from . import wrapping_label
from ..fonts import TEXT_FAMILIES, text_font
from ..palette import DIVIDER_COLOUR, GOLD_COLOUR, SELECTION_COLOUR, SPAN_STYLES

LABEL_WIDTH = 150
PAD = 6
DIVIDER_MARK = "·"

InscriptionRole = Qt.ItemDataRole.UserRole + 1

#: Seed agreement as the inscription view draws it (the legend's words).
AGREED, CONTESTED = "agreed", "contested"
SEEDS_LEGEND = ("Seeds — solid fill: most seeds agree on the span and its top stem (k/n > ½) · "
                "pale hatched fill: contested (half the seeds or fewer)")


def seed_state(agreement: tuple[int, int] | None) -> str | None:
    """``agreed`` when more than half of the group's seeds share the reading, else ``contested``;
    None without a seed group."""
    if agreement is None:
        return None
    k, n = agreement
    return AGREED if 2 * k > n else CONTESTED


class InscriptionListModel(QAbstractListModel):
    """The inscriptions of one corpus; the view's delegate reads spans from ``marks``."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.inscriptions: list[Inscription] = []
        self.row_of: dict[str, int] = {}
        self.marks: dict[str, list[SpanMark]] = {}
        self.gold: dict[str, list[GoldAnnotation]] = {}
        self.filter_text = ""
        self.agreement: dict[tuple[str, int, int, str], tuple[int, int]] = {}

    def set_agreement(self, agreement: dict[tuple[str, int, int, str], tuple[int, int]]) -> None:
        """(inscription, start, end, top stem) -> (k, n) of the shown run's seed group; {} for none."""
        self.agreement = dict(agreement)
        if self.inscriptions:
            self.dataChanged.emit(self.index(0), self.index(len(self.inscriptions) - 1))

    def agreement_of(self, mark: SpanMark) -> tuple[int, int] | None:
        m = mark.match
        if mark.live or not self.agreement or not m.alternatives:
            return None
        return self.agreement.get((m.inscription_id, m.start, m.end, m.alternatives[0].form))

    def set_inscriptions(self, inscriptions: Sequence[Inscription], gold: Sequence[GoldAnnotation] = ()) -> None:
        self.beginResetModel()
        self.inscriptions = list(inscriptions)
        self.row_of = {ins.id: i for i, ins in enumerate(self.inscriptions)}
        self.gold = {}
        for g in gold:
            self.gold.setdefault(g.inscription_id, []).append(g)
        self.endResetModel()

    def set_marks(self, marks: dict[str, list[SpanMark]]) -> list[int]:
        """Replace the spans; only the rows whose spans changed are repainted (a live run changes a
        few inscriptions per update, and repainting every visible row cost the most of the view's
        redraws). Returns those rows."""
        old, self.marks = self.marks, marks
        rows = sorted(self.row_of[i] for i in old.keys() | marks.keys()
                      if i in self.row_of and old.get(i, []) != marks.get(i, []))
        for row in rows:  # one row per signal: for a range, the view repaints its whole viewport
            self.dataChanged.emit(self.index(row), self.index(row))
        return rows

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.inscriptions)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        ins = self.inscriptions[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return ins.text
        if role == InscriptionRole:
            return ins
        if role == Qt.ItemDataRole.AccessibleTextRole:
            marks = self.marks.get(ins.id, [])
            known = getattr(self, "known", IDENTITY)
            spans = "; ".join(f"{m.match.span} = {known.show_form(m.match.best.form)}"
                              + (f" ({m.decision})" if m.decision else "") + self._seeds_words(m)
                              for m in marks if not m.live)
            written = f" (as written: {ins.raw})" if as_written(ins) else ""
            return f"{inscription_ref(ins.meta, ins.id)}: {ins.text}{written}" + (f". Matches: {spans}" if spans else "")
        if role == Qt.ItemDataRole.ToolTipRole:
            return None
        return None

    def _seeds_words(self, mark: SpanMark) -> str:
        kn = self.agreement_of(mark)
        return "" if kn is None else f" (seeds {kn[0]}/{kn[1]}, {seed_state(kn)})"


#: The most units of one inscription the view lays out and draws; the rest is counted in a line
#: below it (a 15 MB inscription froze the app for minutes: issue 28 item 4).
MAX_SHOWN_UNITS = 20_000


@dataclass
class _Layout:
    width: int
    boxes: list[QRectF]          # one per shown unit, in item coordinates (origin = item top-left)
    height: float
    hidden: int = 0              # units past MAX_SHOWN_UNITS, not laid out


class InscriptionDelegate(QStyledItemDelegate):
    """Paints one inscription: reference on the left, units flowing and wrapping on the right."""

    def __init__(self, view: "InscriptionView"):
        super().__init__(view)
        self.view = view
        self._cache: dict[tuple, _Layout] = {}
        self._widths: dict[tuple, tuple[float, ...]] = {}
        """the shown units' widths, which do not depend on the view's width: a resize of the view
        lays every inscription out again, and measuring each letter was most of that"""

    def fonts_changed(self) -> None:
        self._cache.clear()
        self._widths.clear()

    def unit_widths(self, ins: Inscription, fm: QFontMetricsF) -> tuple[float, ...]:
        """The width of each shown unit of ``ins`` (a divider with its gaps) in the view's font and display table."""
        key = (ins.id, ins.text, id(self.view.text_font), id(self.view.display))
        widths = self._widths.get(key)
        if widths is None:
            units = ins.units
            gap = fm.horizontalAdvance(" ") * 0.6
            show = self.view.display.show_at
            widths = tuple(fm.horizontalAdvance(DIVIDER_MARK) + 2 * gap if units[i] == DIVIDER
                           else fm.horizontalAdvance(show(units, i)) for i in range(min(len(units), MAX_SHOWN_UNITS)))
            if len(self._widths) > 20000:
                self._widths.clear()
            self._widths[key] = widths
        return widths

    def layout(self, ins: Inscription, width: int) -> _Layout:
        """Boxes of the units in reading order; a right-to-left corpus fills each line from the
        right edge (box i is still unit i, so spans and hit tests need no change)."""
        key = (ins.id, width, id(self.view.text_font), id(self.view.display), self.view.rtl)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        fm = QFontMetricsF(self.view.text_font)
        line_h = fm.height() * 1.5
        x0 = LABEL_WIDTH + PAD
        right = max(width - PAD, x0 + fm.horizontalAdvance("M") * 4)
        x, y = x0, PAD + 3
        units = ins.units
        shown = min(len(units), MAX_SHOWN_UNITS)
        widths = self.unit_widths(ins, fm)
        # the width of the rest of each word from each of its letters, in one pass from the end (a
        # scan to the word's end at every letter was quadratic in unsegmented text)
        rest = [0.0] * shown
        acc, count = 0.0, 0
        for k in range(shown - 1, -1, -1):
            if units[k] == DIVIDER:
                acc, count = 0.0, 0
                continue
            acc += widths[k]
            count += 1
            rest[k] = acc + 0.5 * count
        boxes: list[QRectF] = []
        i = 0
        while i < shown:
            # wrap between written words when the next word does not fit; a word longer than a
            # line (unsegmented text) breaks wherever the line ends
            if units[i] != DIVIDER:
                word = rest[i]
                if x > x0 and x + word > right and word <= right - x0:
                    x = x0
                    y += line_h
            w = widths[i]
            # a divider stays at the end of its line (it may reach into the margin)
            if x + w > right and x > x0 and units[i] != DIVIDER:
                x = x0
                y += line_h
            boxes.append(QRectF(x, y, w, fm.height()))
            x += w + 0.5
            i += 1
        if self.view.rtl:  # mirror the text column: the first unit at the right edge
            boxes = [QRectF(x0 + right - b.right(), b.top(), b.width(), b.height()) for b in boxes]
        hidden = len(units) - shown
        layout = _Layout(width, boxes, y + fm.height() * (2.5 if hidden else 1) + PAD + 8, hidden)
        self._cache[key] = layout
        if len(self._cache) > 20000:
            self._cache.clear()
        return layout

    def sizeHint(self, option, index) -> QSize:
        ins: Inscription = index.data(InscriptionRole)
        width = self.view.viewport().width()
        return QSize(width, math.ceil(self.layout(ins, width).height))

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:
        ins: Inscription = index.data(InscriptionRole)
        rect = option.rect
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = option.palette
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if selected:
            bg = QColor(pal.highlight().color())
            bg.setAlpha(40)
            painter.fillRect(rect, bg)
            painter.fillRect(QRectF(rect.left(), rect.top(), 4, rect.height()), pal.highlight())
        painter.setPen(QPen(pal.mid().color(), 1))
        painter.drawLine(rect.bottomLeft(), rect.bottomRight())
        painter.translate(rect.topLeft())
        layout = self.layout(ins, rect.width())
        # reference label
        painter.setFont(self.view.label_font)
        painter.setPen(pal.text().color() if selected else pal.placeholderText().color())
        label = inscription_ref(ins.meta, ins.id)
        fm_label = QFontMetricsF(self.view.label_font)
        label = fm_label.elidedText(label, Qt.TextElideMode.ElideMiddle, LABEL_WIDTH - PAD)
        painter.drawText(QRectF(PAD, layout.boxes[0].top() if layout.boxes else PAD, LABEL_WIDTH - PAD,
                                fm_label.height() * 1.4), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         label)
        marks = self.view.model().marks.get(ins.id, []) if self.view.model() else []
        # span fills: solid, or pale and hatched where a seed group's seeds disagree
        model = self.view.model()
        for mark in marks:
            style = SPAN_STYLES["live" if mark.live else (mark.decision or "open")]
            contested = seed_state(model.agreement_of(mark)) == CONTESTED
            for r in self._span_rects(layout, mark.match.start, mark.match.end):
                area = r.adjusted(-1, -1, 1, 1)
                if contested:
                    pale = QColor(style.fill)
                    pale.setAlpha(max(20, style.fill.alpha() // 3))
                    painter.fillRect(area, pale)
                    hatch = QColor(style.line)
                    hatch.setAlpha(150)
                    painter.fillRect(area, QBrush(hatch, Qt.BrushStyle.BDiagPattern))
                else:
                    painter.fillRect(area, style.fill)
        # letters and dividers
        painter.setFont(self.view.text_font)
        text_colour = pal.text().color()
        units = ins.units      # split once: a property that splits the whole text on every access
        for i, box in enumerate(layout.boxes):
            if units[i] == DIVIDER:
                painter.setPen(DIVIDER_COLOUR)
                painter.drawText(box, Qt.AlignmentFlag.AlignCenter, DIVIDER_MARK)
            else:
                painter.setPen(text_colour)
                painter.drawText(box, Qt.AlignmentFlag.AlignCenter, self.view.display.show_at(units, i))
        if layout.hidden:
            last = layout.boxes[-1]
            painter.setPen(pal.placeholderText().color())
            painter.setFont(self.view.label_font)
            painter.drawText(QPointF(LABEL_WIDTH + PAD, last.bottom() + QFontMetricsF(self.view.label_font).height()),
                             hidden_text(layout.hidden))
            painter.setFont(self.view.text_font)
        # underlines and badges: the colour-independent cue
        fm = QFontMetricsF(self.view.text_font)
        for mark in marks:
            style = SPAN_STYLES["live" if mark.live else (mark.decision or "open")]
            pen = QPen(style.line, style.width, style.pen_style)
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)
            painter.setPen(pen)
            rects = self._span_rects(layout, mark.match.start, mark.match.end)
            for r in rects:
                y = r.bottom() + 3
                painter.drawLine(QPointF(r.left(), y), QPointF(r.right(), y))
                if style.double:
                    painter.drawLine(QPointF(r.left(), y + 3.5), QPointF(r.right(), y + 3.5))
            if style.badge and rects:
                last = rects[-1]
                painter.setFont(self.view.label_font)
                painter.setPen(style.line)
                bx = last.left() - QFontMetricsF(self.view.label_font).horizontalAdvance(style.badge) - 1 \
                    if self.view.rtl else last.right() + 1
                painter.drawText(QPointF(bx, last.top() + fm.ascent() * 0.55), style.badge)
                painter.setFont(self.view.text_font)
        # gold annotations: a thin bracket above the letters
        for g in self.view.model().gold.get(ins.id, []) if self.view.show_gold else []:
            painter.setPen(QPen(GOLD_COLOUR, 1, Qt.PenStyle.SolidLine))
            for r in self._span_rects(layout, g.start, g.word_end):
                y = r.top() - 3
                painter.drawLine(QPointF(r.left() + 1, y), QPointF(r.right() - 1, y))
                painter.drawLine(QPointF(r.left() + 1, y), QPointF(r.left() + 1, y + 3))
                painter.drawLine(QPointF(r.right() - 1, y), QPointF(r.right() - 1, y + 3))
        # the selected span
        sel = self.view.selected_span
        if sel is not None and sel[0] == ins.id:
            pen = QPen(SELECTION_COLOUR, 2.2)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            for r in self._span_rects(layout, sel[1], sel[2]):
                painter.drawRoundedRect(r.adjusted(-3, -3, 3, 8), 3, 3)
        painter.restore()

    @staticmethod
    def _span_rects(layout: _Layout, start: int, end: int) -> list[QRectF]:
        """One rectangle per line the span [start, end) occupies."""
        out: list[QRectF] = []
        for i in range(start, min(end, len(layout.boxes))):
            b = layout.boxes[i]
            if out and abs(out[-1].top() - b.top()) < 1:
                out[-1] = out[-1].united(b)
            else:
                out.append(QRectF(b))
        return out


class InscriptionView(QListView):
    """The list of inscriptions. Click a span to select it; hover for its top stems."""

    spanSelected = Signal(object)           # SpanMark or None
    inscriptionSelected = Signal(str)       # inscription id

    def __init__(self, parent=None):
        super().__init__(parent)
        self.text_font = text_font(15)
        self.label_font = QFont(self.font())
        self.show_gold = True
        self.selected_span: tuple[str, int, int] | None = None
        self.explainer = None  # callable(SpanMark) -> HTML, set by the owner
        self.display: DisplayTable = IDENTITY   # how the corpus's letters are shown
        self.rtl = False                        # lay lines out right to left
        self.setModel(InscriptionListModel(self))
        self._delegate = InscriptionDelegate(self)
        self.setItemDelegate(self._delegate)
        self.setMouseTracking(True)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setUniformItemSizes(False)
        self.setAccessibleName("Inscriptions")
        self.setAccessibleDescription(
            "Inscriptions of the corpus with matched spans. Up and Down move between inscriptions, "
            "Left and Right between the matched spans of one; hover or select a span for its stems.")
        self.setToolTip("")

    def model(self) -> InscriptionListModel:  # type: ignore[override]
        return super().model()  # type: ignore[return-value]

    def set_display(self, table: DisplayTable, rtl: bool) -> None:
        self.display = table
        self.rtl = rtl
        self.setLayoutDirection(Qt.LayoutDirection.LeftToRight)  # the mirroring is the delegate's
        self._delegate.fonts_changed()
        self.model().layoutChanged.emit()
        self.viewport().update()

    def set_point_size(self, size: float) -> None:
        self.text_font = text_font(size)
        self._delegate.fonts_changed()
        self.model().layoutChanged.emit()

    def resizeEvent(self, e) -> None:
        super().resizeEvent(e)
        self._delegate.fonts_changed()
        self.scheduleDelayedItemsLayout()

    # ---- hit testing --------------------------------------------------------------------------

    def unit_at(self, pos) -> tuple[Inscription, int] | None:
        index = self.indexAt(pos)
        if not index.isValid():
            return None
        ins: Inscription = index.data(InscriptionRole)
        rect = self.visualRect(index)
        layout = self._delegate.layout(ins, rect.width())
        local = QPointF(pos) - QPointF(rect.topLeft())
        for i, box in enumerate(layout.boxes):
            if box.adjusted(-1, -3, 1, 6).contains(local):
                return ins, i
        return None

    def mark_at(self, pos) -> SpanMark | None:
        hit = self.unit_at(pos)
        if hit is None:
            return None
        ins, i = hit
        found = [m for m in self.model().marks.get(ins.id, []) if m.match.start <= i < m.match.end]
        found.sort(key=lambda m: m.live)  # evaluated spans before live ones
        return found[0] if found else None

    def marks_of(self, inscription_id: str) -> list[SpanMark]:
        return self.model().marks.get(inscription_id, [])

    def span_fill(self, mark: SpanMark) -> str:
        """How a span's fill is drawn: ``solid`` (no group, or most seeds agree) or ``hatched``."""
        return "hatched" if seed_state(self.model().agreement_of(mark)) == CONTESTED else "solid"

    # ---- selection ------------------------------------------------------------------------------

    def select_span(self, inscription_id: str, start: int, end: int, *, scroll: bool = True) -> SpanMark | None:
        row = self.model().row_of.get(inscription_id)
        if row is None:
            return None
        index = self.model().index(row)
        self.setCurrentIndex(index)
        if scroll:
            self.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
        self.selected_span = (inscription_id, start, end)
        mark = next((m for m in self.marks_of(inscription_id)
                     if (m.match.start, m.match.end) == (start, end)), None)
        self.viewport().update()
        self.spanSelected.emit(mark)
        return mark

    def clear_span(self) -> None:
        self.selected_span = None
        self.viewport().update()
        self.spanSelected.emit(None)

    def current_mark(self) -> SpanMark | None:
        if self.selected_span is None:
            return None
        ins, s, e = self.selected_span
        return next((m for m in self.marks_of(ins) if (m.match.start, m.match.end) == (s, e)), None)

    def mousePressEvent(self, e) -> None:
        super().mousePressEvent(e)
        mark = self.mark_at(e.position().toPoint())
        if mark is not None:
            self.select_span(mark.match.inscription_id, mark.match.start, mark.match.end, scroll=False)
        else:
            index = self.indexAt(e.position().toPoint())
            if index.isValid():
                self.inscriptionSelected.emit(index.data(InscriptionRole).id)
            self.clear_span()

    def keyPressEvent(self, e) -> None:
        if e.key() in (Qt.Key.Key_Left, Qt.Key.Key_Right) and self.currentIndex().isValid():
            ins: Inscription = self.currentIndex().data(InscriptionRole)
            marks = [m for m in self.marks_of(ins.id) if not m.live] or self.marks_of(ins.id)
            if marks:
                starts = [m.match.start for m in marks]
                cur = self.selected_span[1] if self.selected_span and self.selected_span[0] == ins.id else None
                forward = (e.key() == Qt.Key.Key_Left) if self.rtl else (e.key() == Qt.Key.Key_Right)
                if cur is None:
                    k = 0 if forward else len(marks) - 1
                else:
                    k = starts.index(cur) if cur in starts else 0
                    k = max(0, min(len(marks) - 1, k + (1 if forward else -1)))
                m = marks[k].match
                self.select_span(m.inscription_id, m.start, m.end, scroll=False)
            return
        if e.key() == Qt.Key.Key_Escape:
            self.clear_span()
            return
        super().keyPressEvent(e)

    def currentChanged(self, current, previous) -> None:
        super().currentChanged(current, previous)
        if current.isValid():
            ins = current.data(InscriptionRole)
            if self.selected_span is not None and self.selected_span[0] != ins.id:
                self.clear_span()

    def viewportEvent(self, e) -> bool:
        if e.type() == QEvent.Type.ToolTip:
            mark = self.mark_at(e.pos())
            if mark is not None and self.explainer is not None:
                text = self.explainer(mark, brief=True)
                kn = self.model().agreement_of(mark)
                if kn is not None:
                    text += (f"<div>seeds: <b>{kn[0]}/{kn[1]}</b> decode this span as "
                             f"{html.escape(getattr(self, 'known', IDENTITY).show_form(mark.match.alternatives[0].form))} — "
                             + ("most seeds agree" if seed_state(kn) == AGREED else "contested") + "</div>")
                QToolTip.showText(e.globalPos(), text, self.viewport())
            else:
                hit = self.unit_at(e.pos())
                text = ""
                if hit is not None:
                    ins = hit[0]
                    if ins.units[hit[1]] == DIVIDER:
                        text = ("a word divider, or a lacuna (no match crosses it)" if as_written(ins)
                                else "written word divider")
                    if as_written(ins):  # the edition's markup (Leiden brackets), kept as imported
                        text = (text + "<br>" if text else "") + f"as written: <b>{html.escape(ins.raw)}</b>"
                if text:
                    QToolTip.showText(e.globalPos(), text, self.viewport())
                else:
                    QToolTip.hideText()
            return True
        return super().viewportEvent(e)


def hidden_text(hidden: int) -> str:
    return f"… and {hidden:,} more letters, not shown here (the run reads them all)"


def as_written(ins) -> bool:
    """Whether the inscription was imported with markup (Leiden brackets, lacunae) that its letters
    leave out: then the app shows the text as written beside the letters it reads."""
    return bool(getattr(ins, "raw", None)) and ins.raw != ins.text


# ------------------------------------------------------------------------------------------------
# explanations


def alignment_rows(mapping: MappingSnapshot | None, match: Match, ipa: str, gamma: float, band: int):
    """[(known IPA unit, lost letters, probability)] or None when the mapping cannot say."""
    if mapping is None:
        return None
    steps, logp = best_alignment(mapping, match.span, ipa, gamma=gamma, band=band)
    if not steps:
        return None
    # a syllable run's null onset (a vowel with no consonant before it) is no sound of the stem: not shown,
    # so that ∅ in the letters' row keeps meaning "left out"
    return [(s.known, s.lost, math.exp(s.log_prob)) for s in steps if s.known != NULL_ONSET], logp


def written_as(mapping: MappingSnapshot | None) -> str:
    """What the alignment's lost row holds: a syllable run's signs (each onset and vowel with the sign whose
    slot it takes) or letters."""
    return "signs" if mapping is not None and mapping.syllables is not None else "letters"


def _font_css() -> str:
    return ", ".join(f"'{f}'" for f in TEXT_FAMILIES)


def explain_html(mark: SpanMark, mapping: MappingSnapshot | None, gamma: float, band: int, *, ref: str = "",
                 k: int = 5, brief: bool = False, display: DisplayTable = IDENTITY,
                 known: DisplayTable = IDENTITY) -> str:
    """Rich text for the hover popup: the span, its top-k stems and the best alignment."""
    m = mark.match
    shown = display.show_text(m.span)
    state = "live (newest batch)" if mark.live else (mark.decision or "open")
    esc = html.escape
    head = (f"<div style=\"font-family:{_font_css()}\"><b style='font-size:large'>{esc(shown)}</b>"
            f" &nbsp; {esc(ref or m.inscription_id)} · letters {m.start}–{m.end} · "
            f"confidence {m.confidence:.2f} · {esc(state)}")
    if mark.decided_form:
        head += f" ({esc(known.show_form(mark.decided_form))})"
    rows = "".join(
        f"<tr><td align=right>{a.rank}</td><td><b>{esc(known.show_form(a.form))}</b></td><td>/{esc(a.ipa)}/</td>"
        f"<td>{esc(a.gloss)}</td><td align=right>{a.score:.2f}</td></tr>" for a in m.alternatives[:k])
    table = ("<table cellspacing=0 cellpadding=2><tr><th>#</th><th>stem</th><th>IPA</th><th>gloss</th>"
             f"<th>score</th></tr>{rows}</table>")
    body = head + "<br>" + table
    if m.alternatives:
        found = alignment_rows(mapping, m, m.best.ipa, gamma, band)
        if found is None:
            body += "<i>alignment: needs this run's character mapping</i>"
        else:
            pairs, _ = found
            written = written_as(mapping)
            cells_k = "".join(f"<td align=center>/{esc(kk)}/</td>" for kk, _, _ in pairs)
            cells_l = "".join(f"<td align=center><b>{esc(display.show_text(ll)) or '∅'}</b></td>"
                              for _, ll, _ in pairs)
            cells_p = "".join(f"<td align=center><small>{p:.2f}</small></td>" for _, _, p in pairs)
            body += (f"alignment with <b>{esc(known.show_form(m.best.form))}</b>:<table cellspacing=0 cellpadding=3>"
                     f"<tr><td><small>IPA</small></td>{cells_k}</tr><tr><td><small>{written}</small></td>{cells_l}</tr>"
                     f"<tr><td><small>P</small></td>{cells_p}</tr></table>")
    if brief:
        body += "<small>click the span for details; A accept, R reject</small>"
    return body + "</div>"


class SpanDetails(QWidget):
    """The selected span: ranked stems (pick one to decide on), and the character alignment."""

    decide = Signal(str)  # "accepted", "rejected" or "open"

    def __init__(self, parent=None):
        super().__init__(parent)
        self.mark: SpanMark | None = None
        self.mapping: MappingSnapshot | None = None
        self.gamma = 3.5
        self.band = 2
        self.decisions: dict = {}
        self.display: DisplayTable = IDENTITY
        self.known: DisplayTable = IDENTITY  # the known language's display table
        self.agreement_lookup = None  # SpanMark -> (k, n) of the shown run's seed group, or None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        self.title = QLabel("Select a highlighted span")
        self.title.setWordWrap(True)
        self.title.setFont(text_font(13))
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.title)
        self.table = QTableWidget(0, 6)
        self.table.setHorizontalHeaderLabels(["#", "stem", "IPA", "gloss", "score", "decision"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setFont(text_font(11))
        self.table.setAccessibleName("Ranked stems of the selected span")
        self.table.itemSelectionChanged.connect(self._show_alignment)
        lay.addWidget(self.table, 2)
        buttons = QHBoxLayout()
        self.accept_button = QPushButton("✓ Accept (A)")
        self.reject_button = QPushButton("✗ Reject (R)")
        self.open_button = QPushButton("Reopen")
        for b, status in ((self.accept_button, "accepted"), (self.reject_button, "rejected"),
                          (self.open_button, "open")):
            b.clicked.connect(lambda _=False, s=status: self.decide.emit(s))
            b.setEnabled(False)
            buttons.addWidget(b)
        lay.addLayout(buttons)
        self.alignment = QLabel()
        self.alignment.setWordWrap(True)
        self.alignment.setTextFormat(Qt.TextFormat.RichText)
        self.alignment.setFont(text_font(13))
        self.alignment.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        lay.addWidget(self.alignment, 1)

    def selected_form(self) -> str | None:
        if self.mark is None or not self.mark.match.alternatives:
            return None
        row = self.table.currentRow()
        alts = self.mark.match.alternatives
        return alts[row].form if 0 <= row < len(alts) else alts[0].form

    def set_mark(self, mark: SpanMark | None, decisions: dict | None = None, ref: str = "") -> None:
        keep = self.selected_form() if (mark is not None and self.mark is not None
                                        and mark.match == self.mark.match) else None
        self.mark = mark
        self.ref = ref
        self.decisions = decisions or {}
        for b in (self.accept_button, self.reject_button, self.open_button):
            b.setEnabled(mark is not None and not mark.live and bool(mark.match.alternatives))
        self.table.setRowCount(0)
        if mark is None:
            self.title.setText("Select a highlighted span (click it, or Left/Right in the inscription list)")
            self.alignment.setText("")
            return
        m = mark.match
        state = "live: from the newest training batch, not yet evaluated" if mark.live else ""
        shown = self.display.show_text(m.span)
        self.title.setText(f"<b style='font-size:x-large'>{html.escape(shown)}</b> &nbsp; "
                           + (f"({html.escape(m.span)}) " if shown != m.span else "") +
                           f"{html.escape(ref or m.inscription_id)}, letters {m.start}–{m.end}, "
                           f"confidence {m.confidence:.2f} {html.escape(state)}" + self._seeds_text(mark))
        self.table.setRowCount(len(m.alternatives))
        select = 0
        for r, a in enumerate(m.alternatives):
            decision = self.decisions.get((m.inscription_id, m.start, m.end, a.form), "")
            mark_text = {"accepted": "✓ accepted", "rejected": "✗ rejected"}.get(decision, "")
            for c, value in enumerate((str(a.rank), self.known.show_form(a.form), f"/{a.ipa}/", a.gloss,
                                       f"{a.score:.3f}", mark_text)):
                item = QTableWidgetItem(value)
                if c in (0, 4):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
            if a.form == keep:
                select = r
        if m.alternatives:
            self.table.selectRow(select)
        self._show_alignment()

    def _seeds_text(self, mark: SpanMark) -> str:
        kn = self.agreement_lookup(mark) if self.agreement_lookup is not None else None
        if kn is None:
            return ""
        return (f"<br>seeds: <b>{kn[0]}/{kn[1]}</b> decode this span as "
                f"{html.escape(self.known.show_form(mark.match.alternatives[0].form))}"
                f" — {'most seeds agree' if seed_state(kn) == AGREED else 'contested'}")

    def _show_alignment(self) -> None:
        if self.mark is None or not self.mark.match.alternatives:
            self.alignment.setText("")
            return
        m = self.mark.match
        row = max(0, self.table.currentRow())
        alt = m.alternatives[min(row, len(m.alternatives) - 1)]
        found = alignment_rows(self.mapping, m, alt.ipa, self.gamma, self.band)
        if found is None:
            self.alignment.setText("<i>The character alignment needs the run's character mapping "
                                   "(runs made in this app keep theirs).</i>")
            return
        pairs, logp = found
        esc = html.escape
        cells_k = "".join(f"<td align=center>/{esc(k)}/</td>" for k, _, _ in pairs)
        cells_l = "".join(f"<td align=center><b>{esc(self.display.show_text(l)) or '∅'}</b></td>"
                          for _, l, _ in pairs)
        cells_p = "".join(f"<td align=center><small>{p:.2f}</small></td>" for _, _, p in pairs)
        self.alignment.setText(
            f"Best character alignment with <b>{esc(self.known.show_form(alt.form))}</b> /{esc(alt.ipa)}/ "
            f"(log P = {logp:.2f}; ∅ = deleted):"
            f"<table cellspacing=0 cellpadding=4 border=1><tr><td>IPA</td>{cells_k}</tr>"
            f"<tr><td>{written_as(self.mapping)}</td>{cells_l}</tr><tr><td>P</td>{cells_p}</tr></table>")


class InscriptionPanel(QWidget):
    """Filter box + inscription list + span details, side by side."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        self.caption = QLabel("No corpus")
        top.addWidget(self.caption, 1)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Find inscription (id or text)…")
        self.filter.setClearButtonEnabled(True)
        self.filter.setMaximumWidth(260)
        self.filter.textChanged.connect(self._apply_filter)
        top.addWidget(self.filter)
        self.legend = wrapping_label("Spans — " + " · ".join(s.description for s in SPAN_STYLES.values())
                                     + " · gold annotation: bracket above · written divider: ·")
        self.legend.setStyleSheet("color: palette(placeholder-text);")
        self.seeds_legend = wrapping_label(SEEDS_LEGEND)
        self.seeds_legend.setStyleSheet("color: palette(placeholder-text);")
        self.seeds_legend.setAccessibleName("Seed agreement legend")
        self.seeds_legend.hide()
        lay.addLayout(top)
        lay.addWidget(self.legend)
        lay.addWidget(self.seeds_legend)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.view = InscriptionView()
        self.details = SpanDetails()
        self.details.agreement_lookup = self.view.model().agreement_of
        self.splitter.addWidget(self.view)
        self.splitter.addWidget(self.details)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        lay.addWidget(self.splitter, 1)

    def set_agreement(self, agreement: dict[tuple[str, int, int, str], tuple[int, int]]) -> None:
        """The shown run's seed agreement per reading ({} when it is in no seed group)."""
        self.view.model().set_agreement(agreement)
        self.seeds_legend.setVisible(bool(agreement))
        self.view.viewport().update()
        if self.details.mark is not None:
            self.details.set_mark(self.details.mark, self.details.decisions, getattr(self.details, "ref", ""))

    def set_display(self, table: DisplayTable, rtl: bool) -> None:
        self.view.set_display(table, rtl)
        self.details.display = table
        self.details.set_mark(self.details.mark, self.details.decisions, getattr(self.details, "ref", ""))

    def set_known_display(self, table: DisplayTable) -> None:
        """Stems in the span details, tooltips and accessible text as the known language is written."""
        self.view.known = table
        self.details.known = table
        self.details.set_mark(self.details.mark, self.details.decisions, getattr(self.details, "ref", ""))

    def _apply_filter(self, text: str) -> None:
        text = text.strip().lower()
        model = self.view.model()
        shown = self.view.display
        for row, ins in enumerate(model.inscriptions):
            hide = bool(text) and text not in ins.id.lower() and text not in ins.text.lower() \
                and text not in shown.show_text(ins.units).lower() \
                and text not in inscription_ref(ins.meta, ins.id).lower()
            self.view.setRowHidden(row, hide)


__all__ = ["InscriptionPanel", "InscriptionView", "SpanDetails", "explain_html"]
