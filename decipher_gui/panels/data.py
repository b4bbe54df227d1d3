"""The corpora and known languages of the project: lists, their inscriptions and stems."""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (QAbstractItemView, QHeaderView, QLabel, QLineEdit, QListWidget,
                               QListWidgetItem, QSplitter, QTableView, QVBoxLayout, QWidget)

from engine.corpus import Inscription, Stem
from engine.io.display import IDENTITY, DisplayTable
from engine.project import CorpusInfo, LanguageInfo, inscription_ref

from ..fonts import text_font


def _filtered_table(headers: Sequence[str], name: str) -> tuple[QTableView, QStandardItemModel, QSortFilterProxyModel]:
    model = QStandardItemModel(0, len(headers))
    model.setHorizontalHeaderLabels(list(headers))
    proxy = QSortFilterProxyModel()
    proxy.setSourceModel(model)
    proxy.setFilterKeyColumn(-1)
    proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
    view = QTableView()
    view.setModel(proxy)
    view.setSortingEnabled(True)
    view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(22)
    view.horizontalHeader().setStretchLastSection(True)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.horizontalHeader().setResizeContentsPrecision(40)  # measure 40 rows, not every one
    view.setFont(text_font(11))
    view.setAccessibleName(name)
    return view, model, proxy


class _ListAndTable(QWidget):
    def __init__(self, list_name: str, headers: Sequence[str], table_name: str, placeholder: str, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        split = QSplitter(Qt.Orientation.Vertical)
        self.items = QListWidget()
        self.items.setAccessibleName(list_name)
        split.addWidget(self.items)
        lower = QWidget()
        lower_lay = QVBoxLayout(lower)
        lower_lay.setContentsMargins(0, 0, 0, 0)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText(placeholder)
        self.filter.setClearButtonEnabled(True)
        lower_lay.addWidget(self.filter)
        self.table, self.model, self.proxy = _filtered_table(headers, table_name)
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        lower_lay.addWidget(self.table, 1)
        self.count = QLabel("")
        lower_lay.addWidget(self.count)
        split.addWidget(lower)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 4)
        lay.addWidget(split)

    def current_id(self) -> int | None:
        item = self.items.currentItem()
        return None if item is None else item.data(Qt.ItemDataRole.UserRole)

    def _fill_list(self, entries: Sequence[tuple[int, str, str]], select: int | None) -> None:
        self.items.blockSignals(True)
        self.items.clear()
        for ident, text, tip in entries:
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, ident)
            item.setToolTip(tip)
            self.items.addItem(item)
        self.items.blockSignals(False)
        ids = [e[0] for e in entries]
        if ids:
            self.items.setCurrentRow(ids.index(select) if select in ids else 0)


class CorporaPanel(_ListAndTable):
    corpusChosen = Signal(int)
    inscriptionChosen = Signal(str)

    def __init__(self, parent=None):
        super().__init__("Corpora", ["id", "reference", "text", "raw (as imported)"], "Inscriptions",
                         "Filter inscriptions…", parent)
        self.items.currentItemChanged.connect(
            lambda cur, _: cur is not None and self.corpusChosen.emit(cur.data(Qt.ItemDataRole.UserRole)))
        self.table.selectionModel().currentRowChanged.connect(self._row)

    def set_corpora(self, corpora: Sequence[CorpusInfo], select: int | None = None) -> None:
        self._fill_list([(c.id, f"{c.name} — {c.inscriptions} inscriptions" + (f", {c.gold} gold" if c.gold else ""),
                          f"source: {c.source or '?'}\nformat: {c.format or '?'}\nimported {c.imported_at}")
                         for c in corpora], select)

    def set_display(self, table: DisplayTable, rtl: bool) -> None:
        """Show the text column through the corpus's display table (RTL text aligned right)."""
        self.display = table
        self.rtl = rtl

    def set_inscriptions(self, inscriptions: Sequence[Inscription]) -> None:
        self.model.setRowCount(0)
        table = getattr(self, "display", IDENTITY)
        align = (Qt.AlignmentFlag.AlignRight if getattr(self, "rtl", False) else Qt.AlignmentFlag.AlignLeft) \
            | Qt.AlignmentFlag.AlignVCenter
        for ins in inscriptions:
            text = QStandardItem(table.show_text(ins.units))
            text.setTextAlignment(align)
            row = [QStandardItem(ins.id), QStandardItem(inscription_ref(ins.meta, ins.id)), text,
                   QStandardItem(ins.raw if ins.raw is not None else "")]
            meta = "\n".join(f"{k}: {v}" for k, v in ins.meta.items())
            for it in row:
                it.setToolTip(meta or ins.text)
            self.model.appendRow(row)
        self.table.resizeColumnsToContents()
        self.count.setText(f"{len(inscriptions)} inscriptions")

    def _row(self, current, _previous) -> None:
        if current.isValid():
            source = self.proxy.mapToSource(current)
            self.inscriptionChosen.emit(self.model.item(source.row(), 0).text())


class LanguagesPanel(_ListAndTable):
    languageChosen = Signal(int)

    def __init__(self, parent=None):
        super().__init__("Known languages", ["form", "IPA", "gloss"], "Stems", "Filter stems…", parent)
        self.items.currentItemChanged.connect(
            lambda cur, _: cur is not None and self.languageChosen.emit(cur.data(Qt.ItemDataRole.UserRole)))

    def set_languages(self, languages: Sequence[LanguageInfo], select: int | None = None) -> None:
        self._fill_list([(x.id, f"{x.name} — {x.stems} stems",
                          f"source: {x.source or '?'}\nformat: {x.format or '?'}\nimported {x.imported_at}")
                         for x in languages], select)

    def set_known_display(self, table: DisplayTable) -> None:
        """Stems shown through the known language's display table (the data's form in the tooltip)."""
        self.known = table
        self.set_stems(getattr(self, "stems", []))

    def set_stems(self, stems: Sequence[Stem]) -> None:
        self.model.setRowCount(0)
        self.stems = list(stems)
        table = getattr(self, "known", IDENTITY)
        for s in stems:
            form = QStandardItem(table.show_form(s.form))
            form.setToolTip(f"in the data: {s.form}")
            row = [form, QStandardItem(f"/{s.ipa}/"), QStandardItem(s.gloss)]
            self.model.appendRow(row)
        self.table.resizeColumnsToContents()
        self.count.setText(f"{len(stems)} stems")
