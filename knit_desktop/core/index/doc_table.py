"""The documents of an index as columns, each turned into a `Document` only when something reads it.

An index opened from its snapshot used to build one `Document` per file at the open (100 ms and 50 MB of
Python objects at 100,000 files), though a query reads the ten or thirty it returns. The snapshot now keeps the
document metadata as columns: each text field as one UTF-8 buffer with where each value starts, the numbers as
arrays, the kind as a small code. Opening costs a few large reads; a `Document` is built for a row when it is
read (and a few thousand recently read are kept); pools and the ranking's tie-breaks come from the arrays.

Documents added after the open (a changed file, a build) are held as the objects they are. A column row that is
removed or changed afterwards is replaced by its object (or None), so the columns themselves never change.
"""

from __future__ import annotations

import bisect
import marshal
import threading
from collections.abc import Callable, Iterator

import numpy as np
import zstandard

from .documents import Document

# rel, kind, title, summary, mtime_ms, size, truncated, content_hash, page_starts, note: one document's fields in
# the order StoredDocument.of takes them (and the snapshot kept them in, as tuples, up to its format 8).
RowValues = tuple[str, str, str, str, int, int, bool, str, list[int], str]
BuildDocument = Callable[[RowValues], Document]

TEXT_FIELDS = ("rel", "title", "summary", "content_hash", "note")
MADE_LIMIT = 4096  # documents built from the columns that are kept (a ranking reads the same rows again)
_NO_PAGES: list[int] = []  # every document without pages shares it: page starts are never changed in place
_ZSTD = zstandard.ZstdCompressor(level=1)


_local = threading.local()


def decompressed(data: bytes) -> bytes:
    """zstd `data` inflated by this thread's own decompressor. Making one per call cost more than inflating a
    piece of a text column (25-45 us against 3-35 us; a query's first rows inflate tens of pieces); one instance
    must not be used by two threads at once, and the window reads documents from more than one."""
    unz = getattr(_local, "unz", None)
    if unz is None:
        unz = _local.unz = zstandard.ZstdDecompressor()
    out: bytes = unz.decompress(data)
    return out


def compressed(data: bytes) -> bytes:
    """zstd (fast level) of `data`, in a bytes object of its own size: python-zstandard returns one allocated for
    the worst case (the input's size and more), so a kept compressed block held as much memory as the raw one."""
    return bytes(memoryview(_ZSTD.compress(data)))


# Rows per separately compressed piece of a text column. A query's first rows each inflate a piece of every
# column; pieces of 512 rows took 48 us a row (20 us at 128), for about 1 MB more on disk at 100,000 files.
TEXT_CHUNK = 128
LEGACY_TEXT_CHUNK = 512  # what the pieces of a snapshot that does not say (saved before) hold
# Inflated pieces a column of a serving process keeps, in bytes (`bound_open_pieces`); past that they are let go
# and inflated again when read. Kept without a bound, the MCP server's column pieces grew with every query (10 MB
# after 40 warm calls at 100,000 files, up to the whole columns in time), while a query reads the pieces of a few
# dozen rows. The window keeps every piece it inflated: it lists 2,000 rows a ranking and its filter reads the
# title and summary of every ranked document, scattered over all the pieces, so under a bound it inflated the
# same pieces again and again (at 20,000 documents a filtered ranking took 390-650 ms instead of 160-230 ms).
OPEN_PIECES_BYTES = 512 * 1024
_open_pieces_limit: list[int | None] = [None]  # this process's bound; None: every piece read stays inflated


def bound_open_pieces(limit: int | None = OPEN_PIECES_BYTES) -> None:
    """Bound the inflated pieces each text column keeps in this process (None: no bound, the default). For a
    long-lived process that reads a few rows per request: the MCP server."""
    _open_pieces_limit[0] = limit


class TextColumn:
    """Strings as one UTF-8 buffer (lone surrogates kept: a file name that is not UTF-8 is stored escaped) and
    the offset where each starts. A column read from a snapshot stays compressed in pieces of `rows` rows, and
    a piece is decompressed when one of its values is read: a query shows ten rows (inflating whole columns
    was 22 ms of the first query at 100,000 files), and a server reads a small share of them."""

    __slots__ = ("_blob", "_chunks", "_open", "_open_bytes", "rows", "starts")

    def __init__(self, blob: bytes | None, starts: np.ndarray, chunks: list[bytes] | None = None,
                 rows: int = TEXT_CHUNK) -> None:
        self._blob = blob  # the whole buffer, when it is held uncompressed
        # Otherwise: zstd frames of `rows` rows each; b"" once inflated for good (no bound), the piece in `_open`
        # then being the only copy.
        self._chunks = chunks or []
        self.rows = rows  # per piece (the pieces it is saved in, too)
        # Pieces decompressed lately, kept up to this process's bound if it has one (then all let go at once: no
        # order to keep, and two threads reading rows at once cannot trip over each other's bookkeeping).
        self._open: dict[int, bytes] = {}
        self._open_bytes = 0
        self.starts = starts

    def _piece(self, c: int) -> bytes:
        piece = self._open.get(c)
        if piece is None:
            frame = self._chunks[c]
            if not frame:  # inflated meanwhile by another thread, which kept it
                return self._open[c]
            piece = decompressed(frame)
            limit = _open_pieces_limit[0]
            if limit is not None and self._open_bytes + len(piece) > limit:
                self._open.clear()
                self._open_bytes = 0
            self._open[c] = piece
            self._open_bytes += len(piece)
            if limit is None:
                # Kept inflated for as long as the column lives: its compressed frame is not read again but to
                # save, which compresses the piece anew (the window holds every piece of a 100,000-document index
                # inflated, 13 MB, and held their 6 MB of frames besides). Set after the piece is in `_open`, so a
                # save in another thread finds one or the other.
                self._chunks[c] = b""
        return piece

    def _frame(self, c: int) -> bytes:
        """Piece `c` compressed, as the snapshot keeps it."""
        frame = self._chunks[c]
        return frame if frame else compressed(self._open[c])

    def buffer(self) -> bytes:
        """The whole buffer (not kept decompressed when it is not already)."""
        if self._blob is not None:
            return self._blob
        return b"".join(self._open[c] if not frame else decompressed(frame) for c, frame in enumerate(self._chunks))

    def merged(self, count: int, values: dict[int, bytes]) -> TextColumn:
        """This column extended to `count` values with `values` (row -> encoded value) in place of its own."""
        base = len(self)
        if count == base and not values:
            return self
        lengths = np.zeros(count, dtype=np.int64)
        lengths[:base] = np.diff(self.starts.astype(np.int64))
        for i, value in values.items():
            lengths[i] = len(value)
        starts = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(lengths, out=starts[1:])
        blob, own = memoryview(self.buffer()), self.starts
        pieces: list[bytes | memoryview] = []
        previous = 0
        for i in sorted(i for i in values if i < base):  # runs of this column's values between the new ones
            pieces += [blob[int(own[previous]) : int(own[i])], values[i]]
            previous = i + 1
        pieces.append(blob[int(own[previous]) : int(own[base])])
        pieces += [values[i] for i in range(base, count)]
        return TextColumn(b"".join(pieces), _narrow(starts))

    def packed(self) -> list[bytes]:
        """The column as the snapshot keeps it: its pieces, compressed."""
        if self._blob is None:
            return [self._frame(c) for c in range(len(self._chunks))]
        blob, starts = self._blob, self.starts
        if not len(self):
            return [compressed(b"")]
        bounds = [int(starts[r]) for r in range(0, len(self), self.rows)] + [int(starts[-1])]
        return [compressed(blob[a:b]) for a, b in zip(bounds, bounds[1:])]

    @classmethod
    def of(cls, values: list[str]) -> TextColumn:
        encoded = [v.encode("utf-8", "surrogatepass") for v in values]
        return cls.of_bytes(encoded)

    @classmethod
    def of_bytes(cls, encoded: list[bytes]) -> TextColumn:
        starts = np.zeros(len(encoded) + 1, dtype=np.int64)
        if encoded:
            np.cumsum(np.fromiter((len(e) for e in encoded), dtype=np.int64, count=len(encoded)), out=starts[1:])
        return cls(b"".join(encoded), _narrow(starts))

    @classmethod
    def of_pieces(cls, chunks: list[bytes], starts: np.ndarray, rows: int = LEGACY_TEXT_CHUNK) -> TextColumn:
        """A column as `packed` gave it, in pieces of `rows` rows; ValueError when the pieces and the offsets
        disagree (each frame says its size, so nothing is decompressed to check)."""
        n = len(starts) - 1
        if rows < 1 or n < 0 or len(chunks) != max(1, -(-n // rows)) or (n and (np.diff(starts) < 0).any()):
            raise ValueError("a text column does not match its pieces")
        bounds = [int(starts[r]) for r in range(0, n, rows)] + [int(starts[-1])] if n else [0, 0]
        for chunk, a, b in zip(chunks, bounds, bounds[1:]):
            if zstandard.frame_content_size(chunk) != b - a:
                raise ValueError("a text column piece has the wrong size")
        return cls(None, _narrow(starts), [bytes(chunk) for chunk in chunks], rows)

    def raw(self, i: int) -> bytes:
        if self._blob is not None:
            return self._blob[int(self.starts[i]) : int(self.starts[i + 1])]
        c = i // self.rows
        base = int(self.starts[c * self.rows])
        return self._piece(c)[int(self.starts[i]) - base : int(self.starts[i + 1]) - base]

    def __getitem__(self, i: int) -> str:
        return self.raw(i).decode("utf-8", "surrogatepass")

    def __len__(self) -> int:
        return len(self.starts) - 1

    def all(self) -> list[str]:
        blob, starts = self.buffer(), self.starts.tolist()
        return [blob[a:b].decode("utf-8", "surrogatepass") for a, b in zip(starts, starts[1:])]


def _narrow(starts: np.ndarray) -> np.ndarray:
    return starts.astype(np.uint32) if not len(starts) or starts[-1] < 2**32 else starts.astype(np.int64)


def _is_hex_digest(value: str) -> bool:
    try:
        return bytes.fromhex(value).hex() == value
    except ValueError:
        return False


class DocumentColumns:
    """Every document of a snapshot as columns; removed documents are rows with `alive` False."""

    def __init__(self, texts: dict[str, TextColumn], hashes_hex: bool, kinds: list[str], kind: np.ndarray,
                 mtime: np.ndarray, size: np.ndarray, truncated: np.ndarray, alive: np.ndarray,
                 pages: dict[int, list[int]], rel_order: np.ndarray) -> None:
        self.texts = texts
        self.hashes_hex = hashes_hex  # content hashes held as their bytes (half the size of the hex text)
        self.kinds = kinds
        self.kind = kind  # uint8 index into kinds
        self.mtime = mtime
        self.size = size
        self.truncated = truncated
        self.alive = alive
        self.pages = pages  # only documents with page starts (PDFs)
        self.rel_order = rel_order  # row ids by rel (a removed row's rel is ""), the ranking's last tie-break
        self.count = len(alive)

    def live_in_rel_order(self) -> np.ndarray:
        """The positions in `rel_order` of the rows alive at the save: the rows among which a rel is searched
        (`find_rel`). A removed row is not always first in `rel_order`: a save that added no row kept the order as
        it was, the removed row in its old place with "" for a rel, and a search through the whole order went
        astray (a folder's documents were not found, rows added since were put out of name order)."""
        return np.flatnonzero(self.alive[self.rel_order])

    def find_rel(self, live: np.ndarray, rel: str, lo: int = 0) -> int:
        """The first k (from `lo`) where the rel of row `rel_order[live[k]]` is not below `rel` (`live`: from
        `live_in_rel_order`), by binary search, decoding a rel per step."""
        order, text = self.rel_order, self.texts["rel"]
        return bisect.bisect_left(range(len(live)), rel, lo=lo, key=lambda k: text[order.item(live.item(k))])

    @classmethod
    def of_rows(cls, rows: list[RowValues | None]) -> DocumentColumns:
        empty: RowValues = ("", "", "", "", 0, 0, False, "", _NO_PAGES, "")
        filled = [r if r is not None else empty for r in rows]
        kinds: list[str] = []
        codes: dict[str, int] = {}
        for r in filled:
            if r[1] not in codes:
                codes[r[1]] = len(kinds)
                kinds.append(r[1])
        if len(kinds) > 255:
            raise ValueError("too many document kinds for the kind column")
        hashes = [r[7] for r in filled]
        hashes_hex = all(not h or _is_hex_digest(h) for h in hashes)
        texts = {
            "rel": TextColumn.of([r[0] for r in filled]),
            "title": TextColumn.of([r[2] for r in filled]),
            "summary": TextColumn.of([r[3] for r in filled]),
            "content_hash": TextColumn.of_bytes([bytes.fromhex(h) for h in hashes]) if hashes_hex
            else TextColumn.of(hashes),
            "note": TextColumn.of([r[9] for r in filled]),
        }
        rels = [r[0] for r in filled]
        # The same order the pools computed from a list of rels before (stable: removed rows first, by id).
        order = np.array(sorted(range(len(rels)), key=rels.__getitem__), dtype=np.int64)
        return cls(
            texts, hashes_hex, kinds,
            np.fromiter((codes[r[1]] for r in filled), dtype=np.uint8, count=len(filled)),
            np.fromiter((r[4] for r in filled), dtype=np.int64, count=len(filled)),
            np.fromiter((r[5] for r in filled), dtype=np.int64, count=len(filled)),
            np.fromiter((bool(r[6]) for r in filled), dtype=bool, count=len(filled)),
            np.fromiter((r is not None for r in rows), dtype=bool, count=len(rows)),
            {i: list(r[8]) for i, r in enumerate(filled) if r[8]},
            order,
        )

    @classmethod
    def of_table(cls, table: DocumentTable) -> DocumentColumns:
        """A table's rows as columns, for saving: the rows still in its columns are carried over as they are (no
        document is built, no value decoded); the rows held as objects are written in."""
        base = table.columns
        held = dict(table._objects())
        rows = {i: None if d is None else _values_of(d) for i, d in held.items()}
        if base is None or (base.hashes_hex and not all(v is None or not v[7] or _is_hex_digest(v[7])
                                                       for v in rows.values())):
            return cls.of_rows(table.row_values())
        n, added = len(table), len(table) > base.count

        def encoded(field: int) -> dict[int, bytes]:
            return {i: b"" if v is None else str(v[field]).encode("utf-8", "surrogatepass") for i, v in rows.items()}

        hashes = {i: b"" if v is None else bytes.fromhex(v[7]) if base.hashes_hex else v[7].encode("utf-8", "surrogatepass")
                  for i, v in rows.items()}
        texts = {"rel": base.texts["rel"].merged(n, encoded(0)), "title": base.texts["title"].merged(n, encoded(2)),
                 "summary": base.texts["summary"].merged(n, encoded(3)),
                 "content_hash": base.texts["content_hash"].merged(n, hashes), "note": base.texts["note"].merged(n, encoded(9))}
        kinds = list(base.kinds)
        for v in rows.values():
            if v is not None and v[1] not in kinds:
                kinds.append(v[1])
        if len(kinds) > 255:
            return cls.of_rows(table.row_values())
        code = {kind: c for c, kind in enumerate(kinds)}

        def column(own: np.ndarray, dtype: type, field: int) -> np.ndarray:
            out: np.ndarray = np.zeros(n, dtype=dtype)
            out[: base.count] = own
            for i, v in rows.items():
                out[i] = 0 if v is None else code[v[1]] if field == 1 else v[field]
            return out

        alive = np.zeros(n, dtype=bool)
        alive[: base.count] = base.alive
        pages = dict(base.pages)
        for i, v in rows.items():
            alive[i] = v is not None
            pages.pop(i, None)
            if v is not None and v[8]:
                pages[i] = list(v[8])
        if added:
            rels = texts["rel"].all()
            for dead in np.flatnonzero(~alive).tolist():
                rels[dead] = ""
            order = np.array(sorted(range(n), key=rels.__getitem__), dtype=np.int64)
        else:
            order = base.rel_order  # (a removed or replaced row keeps every live row's place)
        return cls(texts, base.hashes_hex, kinds, column(base.kind, np.uint8, 1), column(base.mtime, np.int64, 4),
                   column(base.size, np.int64, 5), column(base.truncated, np.bool_, 6), alive, pages, order)

    def values(self, i: int) -> RowValues:
        texts = self.texts
        digest = texts["content_hash"].raw(i).hex() if self.hashes_hex else texts["content_hash"][i]
        return (texts["rel"][i], self.kinds[self.kind[i]], texts["title"][i], texts["summary"][i],
                int(self.mtime[i]), int(self.size[i]), bool(self.truncated[i]), digest,
                self.pages.get(i, _NO_PAGES), texts["note"][i])

    # --- the snapshot's form --------------------------------------------------------------------------

    def dump(self) -> dict:
        """Bytes only (each buffer compressed on its own), for marshal."""
        z = compressed
        return {
            "count": self.count,
            "texts": {name: (col.packed(), z(col.starts.astype(np.int64).tobytes())) for name, col in self.texts.items()},
            "text_rows": {name: col.rows for name, col in self.texts.items()},
            "hashes_hex": self.hashes_hex,
            "kinds": self.kinds,
            "kind": z(self.kind.tobytes()),
            "mtime": z(self.mtime.tobytes()),
            "size": z(self.size.tobytes()),
            "truncated": z(self.truncated.tobytes()),
            "alive": z(self.alive.tobytes()),
            "pages": z(marshal.dumps(self.pages)),
            "rel_order": z(self.rel_order.tobytes()),
        }

    @classmethod
    def load(cls, state: dict) -> DocumentColumns:
        """The columns of `dump`; ValueError (or KeyError, TypeError, ZstdError) when they do not fit together."""
        unz = decompressed
        n = int(state["count"])

        def column(data: bytes, dtype: type, count: int = n) -> np.ndarray:
            values: np.ndarray = np.frombuffer(unz(data), dtype=dtype)
            if len(values) != count:
                raise ValueError("a document column has the wrong length")
            return values

        texts = {}
        rows = state.get("text_rows", {})
        if not isinstance(rows, dict):
            raise ValueError("the rows per text piece are not a mapping")
        for name in TEXT_FIELDS:
            chunks, starts = state["texts"][name]
            if not isinstance(chunks, list):
                raise ValueError("a text column is not a list of pieces")
            texts[name] = TextColumn.of_pieces(chunks, column(starts, np.int64, n + 1),
                                               int(rows.get(name, LEGACY_TEXT_CHUNK)))
        kinds = list(state["kinds"])
        kind = column(state["kind"], np.uint8)
        if n and int(kind.max()) >= len(kinds):
            raise ValueError("a document kind is out of range")
        pages = marshal.loads(unz(state["pages"]))
        if not isinstance(pages, dict):
            raise ValueError("page starts are not a mapping")
        return cls(texts, bool(state["hashes_hex"]), kinds, kind, column(state["mtime"], np.int64),
                   column(state["size"], np.int64), column(state["truncated"], np.bool_),
                   column(state["alive"], np.bool_), pages, column(state["rel_order"], np.int64))


def _values_of(d: Document) -> RowValues:
    return (d.rel, d.kind, d.title, d.summary, d.mtime_ms, d.size, d.truncated, d.content_hash, d.page_starts, d.note)


class DocumentTable:
    """`SearchIndex.docs`: document id -> Document (None once removed), list-like. Rows of the columns are built
    on read; rows added later are the objects themselves."""

    def __init__(self, columns: DocumentColumns | None = None, build: BuildDocument | None = None) -> None:
        if columns is not None and build is None:
            raise ValueError("columns need a way to build their documents")
        self.columns = columns
        self._base = columns.count if columns is not None else 0
        self._build = build
        self._added: list[Document | None] = []  # rows after the columns
        self._replaced: dict[int, Document | None] = {}  # column rows removed (None) or replaced since the open
        self._made: dict[int, Document] = {}  # column rows built lately

    def __len__(self) -> int:
        return self._base + len(self._added)

    def __getitem__(self, i: int) -> Document | None:
        if i < 0:
            i += len(self)
        if i >= self._base:
            return self._added[i - self._base]
        if i < 0:
            raise IndexError(i)
        if i in self._replaced:
            return self._replaced[i]
        doc = self._made.get(i)
        if doc is None:
            assert self.columns is not None and self._build is not None
            if not self.columns.alive[i]:
                return None
            doc = self._build(self.columns.values(i))
            if len(self._made) >= MADE_LIMIT:
                self._made.clear()
            self._made[i] = doc
        return doc

    def stat(self, i: int) -> tuple[int, int] | None:
        """(mtime_ms, size) of row `i` without building its document; None when removed."""
        # (A built document is never changed in place: `SearchIndex.touch` replaces the row.)
        if i >= self._base or i in self._replaced:
            doc = self[i]
            return None if doc is None else (doc.mtime_ms, doc.size)
        columns = self.columns
        assert columns is not None
        if not columns.alive.item(i):
            return None
        return columns.mtime.item(i), columns.size.item(i)

    def __setitem__(self, i: int, doc: Document | None) -> None:
        if i >= self._base:
            self._added[i - self._base] = doc
        else:
            self._replaced[i] = doc
            self._made.pop(i, None)

    def append(self, doc: Document | None) -> None:
        self._added.append(doc)

    def __iter__(self) -> Iterator[Document | None]:
        return (self[i] for i in range(len(self)))

    # --- whole-table views, from the arrays where the columns hold the rows -------------------------------

    def _objects(self) -> Iterator[tuple[int, Document | None]]:
        """The rows held as objects: replaced column rows, then the added ones."""
        yield from self._replaced.items()
        yield from enumerate(self._added, start=self._base)

    def live(self) -> np.ndarray:
        out = np.zeros(len(self), dtype=bool)
        if self.columns is not None:
            out[: self._base] = self.columns.alive
        for i, doc in self._objects():
            out[i] = doc is not None
        return out

    def live_count(self) -> int:
        return int(self.live().sum())

    def of_kinds(self, kinds: frozenset[str]) -> np.ndarray:
        """Per row: alive and of one of `kinds`."""
        out = np.zeros(len(self), dtype=bool)
        if self.columns is not None:
            # A table by kind code (np.isin sorted 100,000 codes: 0.3 ms of a process's first query).
            wanted = np.zeros(256, dtype=bool)  # (codes are uint8)
            wanted[[c for c, kind in enumerate(self.columns.kinds) if kind in kinds]] = True
            np.logical_and(wanted.take(self.columns.kind), self.columns.alive, out=out[: self._base])
        for i, doc in self._objects():
            out[i] = doc is not None and doc.kind in kinds
        return out

    def mtimes(self) -> np.ndarray:
        out = np.zeros(len(self), dtype=np.int64)
        if self.columns is not None:
            out[: self._base] = np.where(self.columns.alive, self.columns.mtime, 0)
        for i, doc in self._objects():
            out[i] = doc.mtime_ms if doc is not None else 0
        return out

    def sizes(self) -> np.ndarray:
        out = np.zeros(len(self), dtype=np.int64)
        if self.columns is not None:
            out[: self._base] = np.where(self.columns.alive, self.columns.size, 0)
        for i, doc in self._objects():
            out[i] = doc.size if doc is not None else 0
        return out

    def rel(self, i: int) -> str:
        """Row `i`'s rel without building its document ("" once removed)."""
        if i >= self._base or i in self._replaced:
            doc = self[i]
            return "" if doc is None else doc.rel
        assert self.columns is not None
        return self.columns.texts["rel"][i] if self.columns.alive[i] else ""

    def rels(self) -> list[str]:
        """Every row's rel ("" for a removed one)."""
        out = self.columns.texts["rel"].all() if self.columns is not None else []
        if self.columns is not None:
            for dead in np.flatnonzero(~self.columns.alive).tolist():
                out[dead] = ""
        for i, doc in self._objects():
            if i < self._base:
                out[i] = doc.rel if doc is not None else ""
            else:
                out.append(doc.rel if doc is not None else "")
        return out

    def rel_rank(self) -> np.ndarray:
        """Each row's position among all rows sorted by rel (removed rows: ""), the ranking's last tie-break."""
        n = len(self)
        if self.columns is not None:
            # Removing or replacing a row keeps every live row's place relative to the others.
            order = self.columns.rel_order if not self._added else self._rel_order_with_added(self.columns)
        else:
            rels = self.rels()
            order = np.array(sorted(range(n), key=rels.__getitem__), dtype=np.int64)  # no per-item lambda
        rank = np.empty(n, dtype=np.int64)
        rank[order] = np.arange(n)
        return rank

    def _rel_order_with_added(self, columns: DocumentColumns) -> np.ndarray:
        """The columns' order with the rows added since put in their places, each found by bisection: sorting
        every rel again took 65 ms at 100,000 documents, on the first query after any file was edited."""
        order, live = columns.rel_order, columns.live_in_rel_order()
        added = sorted((doc.rel if doc is not None else "", i) for i, doc in enumerate(self._added, start=self._base))
        places = [columns.find_rel(live, rel) for rel, _ in added]
        places = [live.item(k) if k < len(live) else len(order) for k in places]
        return np.insert(order, places, [i for _, i in added])

    def row_values(self) -> list[RowValues | None]:
        """Every row's fields (None: removed), for saving: column rows are not built as documents."""
        out: list[RowValues | None] = []
        columns = self.columns
        for i in range(len(self)):
            if i < self._base and i not in self._replaced:
                assert columns is not None
                out.append(columns.values(i) if columns.alive[i] else None)
                continue
            d = self[i]
            out.append(None if d is None else _values_of(d))
        return out
