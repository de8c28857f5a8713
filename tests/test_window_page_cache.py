"""The window keeps SQLite's page cache of its index small: it reads rows one by one once its index is open, and
SQLite's default 2 MB of pages per connection was 1.7 MB of its resident memory at 100,000 documents."""

from __future__ import annotations

from knit_desktop.core.index.store import SERVING_PAGE_CACHE_KIB
from knit_desktop.core.workspace import Workspace
from knit_desktop.services.indexer import IndexWorker


def cache_size(store) -> int:
    return int(store.db.execute("PRAGMA cache_size").fetchone()[0])


def test_a_bounded_page_cache_stays_bounded_after_a_reconnect(make_workspace) -> None:
    root = make_workspace({"a.md": "# A\n\nalpha\n", "b.md": "# B\n\nbeta\n"})
    ws = Workspace.open_persistent(str(root))
    try:
        assert cache_size(ws.store) == -2000  # SQLite's own: the CLI, the MCP server, the builder
        ws.store.bound_page_cache(300)
        assert cache_size(ws.store) == -300
        ws.store.db.close()
        ws.store.db = ws.store._connect()  # as a recovery reconnects
        assert cache_size(ws.store) == -300
    finally:
        ws.close()


def test_the_windows_index_worker_bounds_the_page_cache_once_open(qtbot, make_workspace) -> None:
    root = make_workspace({"a.md": "# A\n\nalpha\n"})
    worker = IndexWorker(str(root), persistent=True)
    with qtbot.waitSignal(worker.opened, timeout=15_000):
        worker.open()
    try:
        assert worker.workspace is not None
        assert cache_size(worker.workspace.store) == -SERVING_PAGE_CACHE_KIB
    finally:
        worker.workspace.close()
