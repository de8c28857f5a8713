"""The document list as a Qt model: tier headers and document rows built from one ranked list.

The rows arrive typed and in order from the indexer thread (`core/view.py`: the pack's tiers first, then the
rest); the model only puts a header before each tier and before "Other documents", or lists them flat in time
order, and filters them live over title, summary and path. Testable without a window.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload

from PySide6.QtCore import QAbstractListModel, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt

from ..core.view import TIERS, RankedRows, ViewRow, matches_filter
from .wording import is_new, relative_time_text, tier_hint, tier_title, why_text

KeyRole = Qt.ItemDataRole.UserRole + 1  # the listing key (core.view.listing_key): a workspace document's rel
RowRole = Qt.ItemDataRole.UserRole + 2  # the Row itself, for the delegate


@dataclass(frozen=True)
class Row:
    """A header (`tier` set, `item` None) or a listed document."""

    tier: str = ""
    item: ViewRow | None = None
    count: int = 0  # headers: how many documents follow
    more: bool = False  # headers: at least `count` (a large workspace's list was cut, and a filter chose its rows)

    @property
    def count_text(self) -> str:
        """A header's count as shown ('' for none): "2000+" when there are more than were listed."""
        return f"{self.count}+" if self.more else str(self.count) if self.count else ""

    @property
    def is_header(self) -> bool:
        return self.item is None

    @property
    def rel(self) -> str:
        return self.item.rel if self.item is not None else ""

    @property
    def key(self) -> str:
        """Its identity in the list (`core.view.listing_key`)."""
        return self.item.key if self.item is not None else ""


class ListedRows(Sequence[Row]):
    """The list's rows over a ranking's documents, without a `Row` object kept per document: a header before each
    tier (and before "Other documents" below some tier), the documents in the order given, each `Row` made when it
    is read. A ranking lists every document of the workspace (20,000 rows and more), and the list is rebuilt on
    the GUI thread for each new one: building and keeping a `Row` for each cost 10-20 ms there at 20,000 documents
    and gave the garbage collector that many more objects to walk."""

    def __init__(self, items: Sequence[ViewRow], tiered: bool, headers: bool = True, total: int | None = None,
                 more: bool = False) -> None:
        """`total`: how many documents the ranking holds when its rows were cut at a limit (the "Other
        documents" count is of those, not of the rows listed); `more`: the rows were cut and chosen by a filter,
        so how many match is not known (the count reads "N+")."""
        lead = 0  # the tiers' documents come first (core.view.merge_tiers); the rest are "Other documents"
        if tiered:
            while lead < len(items) and items[lead].tier:
                lead += 1
        groups = [[r for r in items[:lead] if r.tier == tier] for tier in TIERS]
        self._items: Sequence[ViewRow] = [r for group in groups for r in group] + list(items[lead:]) if lead else items
        self._lead = lead
        self._headers: dict[int, Row] = {}  # row position → header
        position = 0
        for tier, group in zip((*TIERS, ""), [*groups, items[lead:]]):
            if group and tiered and headers and (tier or position):  # "Other documents" gets a header only below some tier
                count = len(group) if tier or total is None else max(len(group), total - lead)
                self._headers[position] = Row(tier or "other", count=count, more=more and not tier)
                position += 1
            position += len(group)
        self._header_positions = sorted(self._headers)

    @property
    def documents(self) -> Sequence[ViewRow]:
        return self._items

    def __len__(self) -> int:
        return len(self._items) + len(self._headers)

    @overload
    def __getitem__(self, i: int) -> Row: ...

    @overload
    def __getitem__(self, i: slice) -> list[Row]: ...

    def __getitem__(self, i: int | slice) -> Row | list[Row]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        header = self._headers.get(i)
        if header is not None:
            return header
        n = i - bisect_left(self._header_positions, i)
        item = self._items[n]
        return Row(item.tier if n < self._lead else "", item)

    def row_of(self, key: str) -> int:
        """The position of the document listed under `key`, or -1."""
        n = next((n for n, item in enumerate(self._items) if item.key == key), -1)
        return -1 if n < 0 else self._position(n)

    def _position(self, n: int) -> int:
        """The row position of the n-th document."""
        position = n
        for header in self._header_positions:
            if header <= position:
                position += 1
        return position

    def document_rows(self) -> list[int]:
        return [i for i in range(len(self)) if i not in self._headers]


def build_rows(ranked: RankedRows | None, needle: str = "") -> tuple[ListedRows, int]:
    """Rows for a ranked list and a filter; also returns how many documents there are before filtering (all of
    the ranking's, when its rows were cut at a limit or chosen by a filter)."""
    if ranked is None:
        return ListedRows((), False), 0
    needle = needle.strip().lower()
    items = [r for r in ranked.rows if matches_filter(r, needle)] if needle else ranked.rows
    filtered = bool(needle or ranked.needle)
    cut = not ranked.complete
    listed = ListedRows(items, ranked.tiered, total=ranked.total if cut and not filtered else None,
                        more=cut and filtered)
    return listed, len(ranked.rows) if ranked.complete and not ranked.needle else ranked.total


class DocumentListModel(QAbstractListModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.ranked: RankedRows | None = None
        self.needle = ""
        self.now_ms = 0
        self.rows = ListedRows((), False)
        self.total = 0
        self.matching = 0  # the documents the filter keeps, before `cap` (of those listed, when the list was cut)
        self.cap: int | None = None  # the All view shows only the first few documents

    # --- inputs --------------------------------------------------------------------------------------

    def set_ranked(self, ranked: RankedRows | None, now_ms: int) -> None:
        self.ranked, self.now_ms = ranked, now_ms
        self._rebuild()

    def set_filter(self, text: str) -> None:
        if text != self.needle:
            self.needle = text
            self._rebuild()

    def _rebuild(self) -> None:
        self.beginResetModel()
        self.rows, self.total = build_rows(self.ranked, self.needle)
        self.matching = len(self.rows.documents)
        if self.cap is not None:
            tiered = self.ranked is not None and self.ranked.tiered  # rows keep their tier, without headers
            self.rows = ListedRows(self.rows.documents[: self.cap], tiered, headers=False)
        self.endResetModel()

    # --- queries -------------------------------------------------------------------------------------

    @property
    def shown(self) -> int:
        return len(self.rows.documents)

    @property
    def complete(self) -> bool:
        """False when the ranking's rows were cut at a limit: there are documents past the last row."""
        return self.ranked is None or self.ranked.complete

    @property
    def filtered(self) -> bool:
        return bool(self.needle.strip() or (self.ranked is not None and self.ranked.needle))

    def matching_text(self) -> str:
        """How many documents the filter keeps, as shown: every document of a cut list when there is no filter,
        "2000+" when a filter's matches were cut."""
        if self.complete:
            return str(self.matching)
        return f"{self.matching}+" if self.filtered else str(self.total)

    def row_of(self, key: str) -> int:
        return self.rows.row_of(key)

    def document_rows(self) -> list[int]:
        return self.rows.document_rows()

    def count_text(self) -> str:
        total = self.total  # a plain name in `self.tr(text, "", n)`: the plural form every lupdate recognises
        if self.needle.strip() or self.shown < total:  # filtered, or a large workspace's list cut at its first rows
            # A filter's matches cut at the limit: "2000+" of them, not "2000 match".
            shown = f"{self.shown}+" if self.needle.strip() and not self.complete else str(self.shown)
            return self.tr("%1 / %n docs", "", total).replace("%1", shown)
        return self.tr("%n docs", "", total)

    # --- QAbstractListModel --------------------------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid() or self.rows[index.row()].is_header:
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        if role == RowRole:
            return row
        if role == KeyRole:
            return row.key
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            if row.is_header:
                hint = tier_hint(row.tier)
                return f"{tier_title(row.tier)} · {hint}" if hint else tier_title(row.tier)
            return self.accessible_name(row)
        if role == Qt.ItemDataRole.ToolTipRole and not row.is_header:
            where = f"{row.item.source}: {row.rel}" if row.item is not None and row.item.source else row.rel
            return where + "\n" + QCoreApplication.translate("DocumentList", "Click to preview here · double-click to open in a larger window")
        return None

    def accessible_name(self, row: Row) -> str:
        item = row.item
        if item is None:
            return ""
        parts = [item.title]
        if item.source:
            parts.append(QCoreApplication.translate("DocumentList", "from %1").replace("%1", item.source))
        if row.tier in TIERS:
            parts.append(tier_title(row.tier))
        parts.append(relative_time_text(item.mtime_ms, self.now_ms))
        if item.reason is not None:
            parts.append(why_text(item.reason))
        if is_new(item.mtime_ms, self.now_ms):
            parts.append(QCoreApplication.translate("DocumentList", "new"))
        return ", ".join(p for p in parts if p)
