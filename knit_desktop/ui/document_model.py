"""The document list as a Qt model: tier headers and document rows built from one ranking payload.

The payload is what the indexer thread sends (`{"rank": …, "context": …}`); the model groups it into
Primary / Supporting / Related (numbered 01, 02… across the tiers) and "Other documents", or a flat list in time
order, and filters it live over title, summary and path. Testable without a window.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QAbstractListModel, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt

from .wording import is_new, relative_time_text, tier_hint, tier_title, why_text

TIERS = ("pinned", "primary", "supporting", "related")  # "pinned": the user's pins, above primary

RelRole = Qt.ItemDataRole.UserRole + 1
RowRole = Qt.ItemDataRole.UserRole + 2  # the Row itself, for the delegate


@dataclass
class Row:
    """A header (`tier` set, `doc` None) or a document (with its tier when it is in the context pack)."""

    tier: str = ""
    doc: dict | None = None
    number: int = 0  # 1-based across the tiers; 0 outside them
    reason: dict | None = None
    matches: list[dict] = field(default_factory=list)
    count: int = 0  # headers: how many documents follow

    @property
    def is_header(self) -> bool:
        return self.doc is None

    @property
    def rel(self) -> str:
        return self.doc["rel"] if self.doc else ""


def _matches_filter(doc: dict, needle: str) -> bool:
    return any(needle in (doc.get(key) or "").lower() for key in ("title", "summary", "rel"))


def build_rows(payload: dict | None, needle: str = "") -> tuple[list[Row], int]:
    """Rows for a payload and a filter; also returns how many documents there are before filtering."""
    if not payload:
        return [], 0
    rank = payload.get("rank") or {}
    results = rank.get("results", [])
    context = payload.get("context")
    needle = needle.strip().lower()
    keep = (lambda doc: _matches_filter(doc, needle)) if needle else (lambda doc: True)
    rows: list[Row] = []
    placed: set[str] = set()
    if context and context.get("mode") == "relevance" and rank.get("mode") == "relevance":
        number = 0
        by_rel = {r["rel"]: r for r in results}
        for tier in TIERS:
            items = []
            for item in context.get(tier, []):
                number += 1
                placed.add(item["rel"])
                doc = {**by_rel.get(item["rel"], {}), **{k: item[k] for k in ("rel", "title", "summary", "mtime_ms", "kind")}}
                if keep(doc):
                    items.append(Row(tier, doc, number, item.get("reason"), item.get("matches", [])))
            if items:
                rows.append(Row(tier, count=len(items)))
                rows.extend(items)
        others = [Row(doc=r) for r in results if r["rel"] not in placed and keep(r)]
        if others and rows:
            rows.append(Row("other", count=len(others)))
        rows.extend(others)
    else:
        rows = [Row(doc=r) for r in results if keep(r)]
    return rows, len(results)


class DocumentListModel(QAbstractListModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.payload: dict | None = None
        self.needle = ""
        self.now_ms = 0
        self.rows: list[Row] = []
        self.total = 0
        self.cap: int | None = None  # the All view shows only the first few documents

    # --- inputs --------------------------------------------------------------------------------------

    def set_payload(self, payload: dict | None, now_ms: int) -> None:
        self.payload, self.now_ms = payload, now_ms
        self._rebuild()

    def set_filter(self, text: str) -> None:
        if text != self.needle:
            self.needle = text
            self._rebuild()

    def _rebuild(self) -> None:
        self.beginResetModel()
        self.rows, self.total = build_rows(self.payload, self.needle)
        if self.cap is not None:
            self.matching = sum(1 for r in self.rows if not r.is_header)
            self.rows = [r for r in self.rows if not r.is_header][: self.cap]
        self.endResetModel()

    # --- queries -------------------------------------------------------------------------------------

    @property
    def shown(self) -> int:
        return sum(1 for r in self.rows if not r.is_header)

    def row_of(self, rel: str) -> int:
        return next((i for i, r in enumerate(self.rows) if r.rel == rel), -1)

    def document_rows(self) -> list[int]:
        return [i for i, r in enumerate(self.rows) if not r.is_header]

    def count_text(self) -> str:
        total = self.total  # a plain name in `self.tr(text, "", n)`: the plural form every lupdate recognises
        if self.needle.strip():
            return self.tr("%1 / %n docs", "", total).replace("%1", str(self.shown))
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
        if role == RelRole:
            return row.rel
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            if row.is_header:
                hint = tier_hint(row.tier)
                return f"{tier_title(row.tier)} · {hint}" if hint else tier_title(row.tier)
            return self.accessible_name(row)
        if role == Qt.ItemDataRole.ToolTipRole and not row.is_header:
            return row.rel + "\n" + QCoreApplication.translate("DocumentList", "Click to preview here · double-click to open in a larger window")
        return None

    def accessible_name(self, row: Row) -> str:
        doc = row.doc or {}
        parts = [doc.get("title", "")]
        if row.tier in TIERS:
            parts.append(tier_title(row.tier))
        parts.append(relative_time_text(doc.get("mtime_ms", 0), self.now_ms))
        if row.reason:
            parts.append(why_text(row.reason))
        if is_new(doc.get("mtime_ms", 0), self.now_ms):
            parts.append(QCoreApplication.translate("DocumentList", "new"))
        return ", ".join(p for p in parts if p)
