"""The matches of the shown run: a sortable, filterable table (one row per matched span, its best
stem first, and when the run is one of a seed group, how many seeds agree on it), the ranked
alternatives of the selected match, and accept / reject (buttons, A, R)."""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QGridLayout, QHBoxLayout, QHeaderView, QLabel,
                               QLineEdit, QPushButton, QSplitter, QTableView, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from engine.io.display import IDENTITY, DisplayTable
from engine.results import Match

from . import wrapping_label
from ..fonts import text_font

#: The gloss right after the stem, so it is on screen at the default width (issue 14, item 7).
MATCH_COLUMNS = ("inscription", "span", "stem", "IPA", "gloss", "agreement", "decision", "score", "confidence",
           "letters")
AGREEMENT_TIP = ("Seed agreement k/n: how many of the n seeds of this run's seed group decode this same "
                 "span (same letters) with the same top stem. High: the seeds corroborate the reading; "
                 "low: contested (the training found different solutions). Empty: the run is not part "
                 "of a seed group (Run panel ▸ Seeds).")
SortRole = Qt.ItemDataRole.UserRole + 20
MatchRole = Qt.ItemDataRole.UserRole + 21
DECISION_TEXT = {"accepted": "✓ accepted", "rejected": "✗ rejected", None: "open"}


def span_decision(match: Match, decisions: dict) -> tuple[str | None, str | None]:
    """(decision, form) for the span: an accepted stem wins, else a rejected best stem."""
    rejected = None
    for a in match.alternatives:
        d = decisions.get((match.inscription_id, match.start, match.end, a.form))
        if d == "accepted":
            return d, a.form
        if d == "rejected" and rejected is None:
            rejected = a.form
    return ("rejected", rejected) if rejected is not None else (None, None)


class MatchTableModel(QAbstractTableModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.matches: list[Match] = []
        self.refs: dict[str, str] = {}
        self.decisions: dict = {}
        self.display: DisplayTable = IDENTITY
        self.agreement: dict[tuple[str, int, int, str], tuple[int, int]] = {}

    def set_agreement(self, agreement: dict[tuple[str, int, int, str], tuple[int, int]]) -> None:
        """(inscription, start, end, top stem) -> (k, n) of the shown run's seed group; {} for none."""
        self.beginResetModel()
        self.agreement = dict(agreement)
        self.endResetModel()

    def agreement_of(self, m: Match) -> tuple[int, int] | None:
        if not self.agreement or not m.alternatives:
            return None
        return self.agreement.get((m.inscription_id, m.start, m.end, m.alternatives[0].form))

    def set_display(self, table: DisplayTable) -> None:
        self.beginResetModel()
        self.display = table
        self.endResetModel()

    def set_known_display(self, table: DisplayTable) -> None:
        """The known language's display table: stems shown as scholars write them."""
        self.beginResetModel()
        self.known = table
        self.endResetModel()

    def stem(self, form: str) -> str:
        return getattr(self, "known", IDENTITY).show_form(form)

    def set_matches(self, matches: Sequence[Match], refs: dict[str, str], decisions: dict) -> None:
        self.beginResetModel()
        self.matches = list(matches)
        self.refs = refs
        self.decisions = decisions
        self.endResetModel()

    def set_decisions(self, decisions: dict) -> None:
        self.decisions = decisions
        if self.matches:
            col = MATCH_COLUMNS.index("decision")
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.matches) - 1, col))

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.matches)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(MATCH_COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return MATCH_COLUMNS[section]
        if (orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole
                and MATCH_COLUMNS[section] == "agreement"):
            return AGREEMENT_TIP
        return None

    def decision(self, row: int) -> tuple[str | None, str | None]:
        return span_decision(self.matches[row], self.decisions)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        m = self.matches[index.row()]
        col = MATCH_COLUMNS[index.column()]
        if role == MatchRole:
            return m
        best = m.alternatives[0] if m.alternatives else None
        if role in (Qt.ItemDataRole.DisplayRole, SortRole, Qt.ItemDataRole.ToolTipRole):
            if col == "inscription":
                return self.refs.get(m.inscription_id, m.inscription_id)
            if col == "span":
                shown = self.display.show_text(m.span)
                return f"{shown}  ({m.span})" if role == Qt.ItemDataRole.ToolTipRole and shown != m.span else shown
            if col == "letters":
                return (m.start, m.end) if role == SortRole else f"{m.start}–{m.end}"
            if col == "stem":
                if not best:
                    return ""
                shown = self.stem(best.form)
                return f"{shown}  ({best.form})" if role == Qt.ItemDataRole.ToolTipRole and shown != best.form else shown
            if col == "IPA":
                return f"/{best.ipa}/" if best else ""
            if col == "gloss":
                return best.gloss if best else ""
            if col == "score":
                return (best.score if best else float("-inf")) if role == SortRole else (f"{best.score:.3f}" if best else "")
            if col == "confidence":
                return m.confidence if role == SortRole else f"{m.confidence:.3f}"
            if col == "agreement":
                kn = self.agreement_of(m)
                if role == SortRole:  # by share of seeds, then by count; rows without a group last
                    return -1.0 if kn is None else kn[0] / kn[1] + kn[0] * 1e-6
                if kn is None:
                    return "" if role == Qt.ItemDataRole.DisplayRole else AGREEMENT_TIP
                if role == Qt.ItemDataRole.ToolTipRole:
                    return (f"{kn[0]} of {kn[1]} seeds decode {self.display.show_text(m.span)} as "
                            f"{self.stem(m.alternatives[0].form)}"
                            + (" (most seeds agree)" if 2 * kn[0] > kn[1] else " (contested)"))
                return f"{kn[0]}/{kn[1]}"
            if col == "decision":
                d, form = self.decision(index.row())
                text = DECISION_TEXT[d]
                if d and form and best and form != best.form:
                    text += f" ({self.stem(form)})"
                return text
        if role == Qt.ItemDataRole.TextAlignmentRole and col in ("letters", "score", "confidence", "agreement"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class MatchFilter(QSortFilterProxyModel):
    """Text in a chosen column (or any), and the decision state."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.text = ""
        self.column: str | None = None
        self.decision: str | None = "all"
        self.setSortRole(SortRole)
        self.setSortCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)

    def set_filter(self, text: str, column: str | None, decision: str) -> None:
        self.refilter(lambda: self._set(text, column, decision))

    def _set(self, text: str, column: str | None, decision: str) -> None:
        self.text = text.strip().lower()
        self.column = column
        self.decision = decision

    def refilter(self, change=lambda: None) -> None:
        """Apply a filter change (Qt >= 6.10 wants begin/endFilterChange around it)."""
        if hasattr(self, "beginFilterChange"):
            self.beginFilterChange()
            change()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            change()
            self.invalidateFilter()

    def filterAcceptsRow(self, row: int, parent) -> bool:
        model: MatchTableModel = self.sourceModel()  # type: ignore[assignment]
        if self.decision != "all":
            d, _ = model.decision(row)
            if (d or "open") != self.decision:
                return False
        if not self.text:
            return True
        m = model.matches[row]
        top = m.alternatives[:1]
        stems = lambda alts: ([a.form for a in alts] + [model.stem(a.form) for a in alts]  # noqa: E731
                              + [a.ipa for a in alts] + [a.gloss for a in alts])
        fields = {
            "inscription": [m.inscription_id, model.refs.get(m.inscription_id, "")],
            "span": [m.span, model.display.show_text(m.span)],
            "stem": stems(top),                      # the top stem: what the row shows
            "alternatives": stems(m.alternatives),   # any of the ranked stems
        }
        if self.column is None:
            hay = fields["inscription"] + fields["span"] + fields["stem"]
        else:
            hay = fields[self.column]
        return any(self.text in (x or "").lower() for x in hay)


class MatchesPanel(QWidget):
    decideRequested = Signal(object, str, str)   # Match, form, status ("accepted"/"rejected"/"open")
    jumpRequested = Signal(object)               # Match
    exportRequested = Signal()
    currentChanged = Signal(object)              # Match or None

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        self.caption = wrapping_label("No run shown")
        lay.addWidget(self.caption)
        self.pin_note = wrapping_label("")
        self.pin_note.setStyleSheet("color: #D55E00;")  # the pin grid's "not in this reading" colour
        self.pin_note.setAccessibleName("Pins these matches were computed without")
        self.pin_note.hide()
        lay.addWidget(self.pin_note)
        bar = QHBoxLayout()
        self.search = QLineEdit()
        self.search.setPlaceholderText("Filter…")
        self.search.setClearButtonEnabled(True)
        self.search.setAccessibleName("Filter matches")
        self.where = QComboBox()
        self.where.addItem("any column", None)
        self.where.addItem("inscription", "inscription")
        self.where.addItem("span", "span")
        self.where.addItem("top stem (form, IPA, gloss)", "stem")
        self.where.addItem("any ranked stem", "alternatives")
        self.where.setToolTip("Which text the filter looks in. “any column” and “top stem” look at the "
                              "best stem of each match only; “any ranked stem” also at its ranked alternatives.")
        self.state = QComboBox()
        for label, value in (("all decisions", "all"), ("open", "open"), ("accepted", "accepted"),
                             ("rejected", "rejected")):
            self.state.addItem(label, value)
        self.export_button = QPushButton("Export CSV…")
        self.export_button.setToolTip("Write the match report of this run (all matches, every ranked stem, decisions)")
        self.export_button.clicked.connect(self.exportRequested)
        self.search.setMinimumWidth(80)
        for w in (self.search, self.where, self.state, self.export_button):
            bar.addWidget(w)
        lay.addLayout(bar)
        split = QSplitter(Qt.Orientation.Horizontal)
        self._widths_set = False
        self.model = MatchTableModel(self)
        self.proxy = MatchFilter(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setResizeContentsPrecision(40)  # measure 40 rows, not all
        self.table.setFont(text_font(11))
        self.table.setAccessibleName("Matches")
        self.table.setAccessibleDescription("A accepts, R rejects the selected stem; O reopens; "
                                            "Enter or double-click shows the span in its inscription.")
        self.table.doubleClicked.connect(self._jump)
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        split.addWidget(self.table)
        side = QWidget()
        side_lay = QVBoxLayout(side)
        side_lay.setContentsMargins(0, 0, 0, 0)
        ranked = QLabel("Ranked stems:")
        ranked.setToolTip("The stems the model ranks for the selected match, best first")
        side_lay.addWidget(ranked)
        self.alternatives = QTableWidget(0, 5)
        self.alternatives.setHorizontalHeaderLabels(["#", "stem", "IPA", "score", "decision"])
        self.alternatives.verticalHeader().hide()
        self.alternatives.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.alternatives.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.alternatives.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.alternatives.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.alternatives.setFont(text_font(11))
        self.alternatives.setAccessibleName("Ranked stems")
        side_lay.addWidget(self.alternatives, 1)
        # two rows: the side's width is that of two buttons, which leaves the matches table room for
        # inscription, span, stem and decision at 1366×768
        buttons = QGridLayout()
        self.accept_button = QPushButton("✓ Accept (A)")
        self.reject_button = QPushButton("✗ Reject (R)")
        self.open_button = QPushButton("Reopen (O)")
        self.accept_button.clicked.connect(lambda: self.decide_current("accepted"))
        self.reject_button.clicked.connect(lambda: self.decide_current("rejected"))
        self.open_button.clicked.connect(lambda: self.decide_current("open"))
        buttons.addWidget(self.accept_button, 0, 0)
        buttons.addWidget(self.reject_button, 0, 1)
        buttons.addWidget(self.open_button, 1, 0)
        side_lay.addLayout(buttons)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        lay.addWidget(split, 1)
        for key, status in (("A", "accepted"), ("R", "rejected"), ("O", "open")):
            for w in (self.table, self.alternatives):
                sc = QShortcut(QKeySequence(key), w)
                sc.setContext(Qt.ShortcutContext.WidgetShortcut)
                sc.activated.connect(lambda s=status: self.decide_current(s))
        for w in (self.table,):
            sc = QShortcut(QKeySequence(Qt.Key.Key_Return), w)
            sc.setContext(Qt.ShortcutContext.WidgetShortcut)
            sc.activated.connect(lambda: self._jump(self.table.currentIndex()))
        self.search.textChanged.connect(self._refilter)
        self.where.currentIndexChanged.connect(self._refilter)
        self.state.currentIndexChanged.connect(self._refilter)
        self._enable(False)
        self._place_agreement()

    # ---- contents ----------------------------------------------------------------------------

    def set_display(self, table: DisplayTable) -> None:
        self.model.set_display(table)

    def set_known_display(self, table: DisplayTable) -> None:
        self.model.set_known_display(table)
        self._show_alternatives(self.current_match())

    def set_pin_note(self, text: str) -> None:
        """Say which pins the matches shown were computed without ("" hides the note)."""
        self.pin_note.setText(text)
        self.pin_note.setVisible(bool(text))

    def set_matches(self, matches: Sequence[Match], refs: dict[str, str], decisions: dict, caption: str) -> None:
        current = self.current_match() if matches else None
        self.model.set_matches(matches, refs, decisions)
        self.caption.setText(caption)
        if matches and not self._widths_set:
            self._set_widths()
        if matches:
            self._fit_inscription_column(matches, refs)
        if current is not None:
            self.select_match(current.inscription_id, current.start, current.end)
        else:
            self._show_alternatives(None)

    def _set_widths(self) -> None:
        """Column widths from the font, not from measuring rows (that took ~30 ms per update)."""
        em = self.table.fontMetrics().horizontalAdvance("M")
        for col, ems in zip(range(len(MATCH_COLUMNS)), (7, 5, 6, 7, 9, 5, 6, 5, 6, 5)):
            self.table.setColumnWidth(col, int(ems * em))
        # the decision as wide as its longest word, not cut to "✓ …"
        fm = self.table.fontMetrics()
        self.table.setColumnWidth(MATCH_COLUMNS.index("decision"),
                                  max(fm.horizontalAdvance(t) for t in DECISION_TEXT.values()) + 14)
        self._widths_set = True

    def _fit_inscription_column(self, matches: Sequence[Match], refs: dict[str, str]) -> None:
        """The inscription column as wide as its longest id (at most 16 em): 7 em cut "uga-no_spe:333"
        to "uga-…". Measures the few longest ids only, not every row."""
        ids = sorted({refs.get(m.inscription_id, m.inscription_id) for m in matches}, key=len)[-8:]
        fm = self.table.fontMetrics()
        width = min(16 * fm.horizontalAdvance("M"), max(fm.horizontalAdvance(i) for i in ids) + 16)
        col = MATCH_COLUMNS.index("inscription")
        if width > self.table.columnWidth(col):
            self.table.setColumnWidth(col, width)

    def _place_agreement(self) -> None:
        """The decision right after the stem it is about, then the agreement column, where the
        dock's default width shows them (the decision sat seventh, off-screen even at 1920×1080; the
        agreement sixth); the agreement hidden while the shown run has no seed group (it would be empty)."""
        header = self.table.horizontalHeader()
        for name in ("decision", "agreement"):
            col = MATCH_COLUMNS.index(name)
            after = header.visualIndex(MATCH_COLUMNS.index("stem")) + 1
            if header.visualIndex(col) != after:
                header.moveSection(header.visualIndex(col), after)
        header.setSectionHidden(MATCH_COLUMNS.index("agreement"), not self.model.agreement)

    def set_agreement(self, agreement: dict[tuple[str, int, int, str], tuple[int, int]]) -> None:
        """Each match's seed agreement (see :data:`AGREEMENT_TIP`); {} when the run has no group."""
        if agreement == self.model.agreement:
            return
        current = self.current_match()
        self.model.set_agreement(agreement)
        self._place_agreement()
        if current is not None:
            self.select_match(current.inscription_id, current.start, current.end)

    def set_decisions(self, decisions: dict) -> None:
        self.model.set_decisions(decisions)
        self.proxy.refilter()
        self._show_alternatives(self.current_match())

    def current_match(self) -> Match | None:
        index = self.table.currentIndex()
        if not index.isValid():
            return None
        return self.proxy.data(index, MatchRole)

    def select_match(self, inscription_id: str, start: int, end: int) -> bool:
        for row, m in enumerate(self.model.matches):
            if (m.inscription_id, m.start, m.end) == (inscription_id, start, end):
                proxy_index = self.proxy.mapFromSource(self.model.index(row, 0))
                if proxy_index.isValid():
                    self.table.setCurrentIndex(proxy_index)
                    self.table.scrollTo(proxy_index)
                    return True
        return False

    def _refilter(self) -> None:
        self.proxy.set_filter(self.search.text(), self.where.currentData(), self.state.currentData())

    def _row_changed(self, current, _previous) -> None:
        m = self.proxy.data(current, MatchRole) if current.isValid() else None
        self._show_alternatives(m)
        self.currentChanged.emit(m)

    def _enable(self, on: bool) -> None:
        for b in (self.accept_button, self.reject_button, self.open_button):
            b.setEnabled(on)

    def _show_alternatives(self, m: Match | None) -> None:
        keep = self.alternatives.currentRow()
        self.alternatives.setRowCount(0 if m is None else len(m.alternatives))
        self._enable(m is not None and bool(m.alternatives))
        if m is None:
            return
        for r, a in enumerate(m.alternatives):
            d = self.model.decisions.get((m.inscription_id, m.start, m.end, a.form))
            for c, v in enumerate((str(a.rank), self.model.stem(a.form), f"/{a.ipa}/", f"{a.score:.3f}",
                                   DECISION_TEXT[d] if d else "")):
                self.alternatives.setItem(r, c, QTableWidgetItem(v))
        self.alternatives.selectRow(keep if 0 <= keep < len(m.alternatives) else 0)

    def selected_form(self) -> str | None:
        m = self.current_match()
        if m is None or not m.alternatives:
            return None
        r = self.alternatives.currentRow()
        return m.alternatives[r].form if 0 <= r < len(m.alternatives) else m.alternatives[0].form

    def decide_current(self, status: str) -> None:
        m = self.current_match()
        form = self.selected_form()
        if m is not None and form is not None:
            self.decideRequested.emit(m, form, status)

    def _jump(self, index) -> None:
        if index.isValid():
            self.jumpRequested.emit(self.proxy.data(index, MatchRole))
