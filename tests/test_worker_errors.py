"""A failing worker call is an answer too: the status line says so and nothing waits for ever."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import Signal, Slot

from knit_desktop.core.workspace import Workspace
from knit_desktop.services.live_ranking import LiveRanking
from knit_desktop.services.worker import Worker, WorkerThread, guarded

from .test_window import demo_ws, open_app  # noqa: F401 - the fixtures


def test_a_failing_preview_reaches_the_status_line_and_the_pane_stops_loading(qtbot, open_app, monkeypatch):  # noqa: F811
    knit = open_app()
    window, preview = knit.window, knit.window.preview

    def broken(self, rel):
        raise OSError("the disk went away")

    monkeypatch.setattr(Workspace, "preview", broken)
    window.show_document("docs/architecture.md")
    assert preview.message.text() == "Loading…"
    qtbot.waitUntil(lambda: "the disk went away" in preview.message.text(), timeout=10_000)
    assert preview.stack.currentWidget() is preview.message
    assert "Loading" not in preview.message.text()
    assert window.status_label.isVisible()
    assert "Something went wrong in the background" in window.status_label.text()
    assert "the disk went away" in window.status_label.text()


class _Flaky(Worker):
    @Slot(int)
    @guarded
    def work(self, token: int) -> None:
        raise ValueError("no luck")


class _FlakyThread(WorkerThread):
    _work = Signal(int)

    def __init__(self) -> None:
        worker = _Flaky()
        super().__init__(worker, "test-flaky")
        self._work.connect(worker.work)


def test_an_exception_in_a_guarded_slot_becomes_errored_with_its_token(qtbot):
    handle = _FlakyThread()
    handle.start()
    try:
        with qtbot.waitSignal(handle.errored, timeout=5000) as errored:
            handle._work.emit(42)
        assert errored.args == [42, "ValueError: no luck"]
    finally:
        assert handle.stop()


def test_switching_workspaces_disconnects_the_old_indexer_entirely(qtbot, make_workspace):
    one = make_workspace({"a.md": "# Alpha\n\ncache"}, name="one")
    two = make_workspace({"b.md": "# Beta\n\nsync"}, name="two")
    live = LiveRanking(workspace=str(one), persistent=False, follow=False)
    opened = []
    live.indexOpened.connect(opened.append)
    live.start()
    try:
        qtbot.waitUntil(lambda: bool(opened), timeout=10_000)
        old = live._indexer
        signals = ["opened(PyObject)", "documentsChanged(PyObject)", "ranked(int,PyObject)",
                   "previewReady(int,PyObject)", "pageRendered(int,PyObject)", "failed(QString,QString)",
                   "progress(int,int,QString)", "errored(int,QString)"]
        assert old.receivers("2opened(PyObject)") > 0
        live.pin_workspace(str(two))
        assert {name: old.receivers("2" + name) for name in signals} == dict.fromkeys(signals, 0)
        qtbot.waitUntil(lambda: len(opened) == 2, timeout=10_000)
    finally:
        live.stop()


class _Talker(Worker):
    said = Signal(int)  # mailbox key

    @Slot(int)
    @guarded
    def talk(self, times: int) -> None:
        for n in range(times):
            self.said.emit(self.mailbox.post(n))


class _TalkerThread(WorkerThread):
    said = Signal(object)
    _talk = Signal(int)

    def __init__(self) -> None:
        worker = _Talker()
        super().__init__(worker, "test-talker")
        self._talk.connect(worker.talk)
        self.relay(worker.said, self.said)


def test_a_worker_still_talking_after_its_handle_is_deleted_reaches_nobody(qtbot):
    """What a retired indexer says while the application tears its handle down is dropped, not raised in Qt's loop
    (it raised "The SignalInstance object was already deleted")."""
    handle = _TalkerThread()
    heard: list[object] = []
    handle.said.connect(heard.append)
    handle.start()
    thread = handle._thread
    with qtbot.waitSignal(handle.said, timeout=5000):
        handle._talk.emit(1)
    handle._talk.emit(20_000)  # answers on their way to the GUI thread while the handle is destroyed
    shiboken6.delete(handle)  # as a window's children are when it closes
    for _ in range(5):
        qtbot.wait(20)
    thread.quit()
    assert thread.wait(10_000)
    qtbot.wait(20)
    assert heard[0] == 0
