"""Starts the window: application, settings, language, the live ranking, the tray; `--screenshot` for docs."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import cast

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QSystemTrayIcon

from ..core import config as options
from ..core.dsh.conversation import Message
from ..core.heap import forget_source_lines
from ..core.memory.library import MemoryIndex
from ..core.memory.store import MemoryStore, default_memory_dir
from ..resources import resources_dir
from ..services.heap_keeper import HeapKeeper
from ..services.history import HistoryService
from ..services.live_ranking import LiveRanking
from ..services.thumbnails import ThumbnailService
from .history_view import HistoryPanel
from .i18n import LanguageSwitcher
from .main_window import MainWindow, now_ms
from .memory_notes import MemoryNotes
from .memory_panel import MemoryPanel
from .settings import Settings
from .settings_dialog import SettingsDialog
from .tray import TrayPeek

SCREENSHOT_TIMEOUT_MS = 20_000


def app_icon() -> QIcon:
    return QIcon(str(resources_dir() / "icons" / "knit.svg"))


class _CloseToTray(QObject):
    """Closing the window while the tray icon is there hides it to the tray: said once, in a tray message, so
    the window does not seem to have quit (nor Knit to keep running unseen)."""

    def __init__(self, knit: KnitApp) -> None:
        super().__init__()
        self.knit = knit

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        knit = self.knit
        if (event.type() == QEvent.Type.Close and knit.tray is not None and not knit.settings.told_about_tray
                and not QApplication.quitOnLastWindowClosed()):
            knit.settings.told_about_tray = True
            knit.tray.icon.showMessage(
                QCoreApplication.translate("Tray", "Knit is still running"),
                QCoreApplication.translate("Tray", "Closing the window keeps Knit in the tray. Choose Quit in its "
                                                   "menu to stop it."),
                QSystemTrayIcon.MessageIcon.Information, 6000)
        return False


class KnitApp:
    """Everything the running window needs, wired together; `close()` stops the threads."""

    def __init__(self, *, workspace: str | None, dsh_home: str | None, messages: list[Message] | None,
                 settings: Settings | None = None, persistent: bool = True, conversation_name: str = "") -> None:
        self.settings = settings or Settings()
        self.language = LanguageSwitcher()
        self.language.apply(self.settings.language)
        follow = messages is None
        pinned = workspace or self.settings.workspace or None
        self.ranking = LiveRanking(dsh_home or self.settings.dsh_home or None, pinned, persistent=persistent,
                                   follow=follow)
        self.thumbnails = ThumbnailService()
        self.window = MainWindow(self.ranking, self.settings, fixed_conversation=conversation_name,
                                 images=self.thumbnails)
        self.window.setWindowIcon(app_icon())
        self.window.settingsRequested.connect(self.show_settings)
        self.window.memoryRequested.connect(self.show_memory)
        self.window.historyRequested.connect(self.show_history)
        self.window.quitRequested.connect(self.quit)
        self.settings.changed.connect(self._on_setting)
        self.tray: TrayPeek | None = None
        self._update_tray()
        self._close_watch = _CloseToTray(self)
        self.window.installEventFilter(self._close_watch)
        self.memory = MemoryStore(self.settings.memory_dir or None, dsh_home or self.settings.dsh_home or None)
        self.notes = MemoryNotes(self.memory, self.settings)
        self.notes.warned.connect(self.window.show_memory_warning)
        self.notes.start()
        self.ranking.rememberRequested.connect(self._remember_from_conversation)
        self._checked_seq: dict[str, int] = {}  # per session: the newest user message checked for a recall
        forget_source_lines()  # before the index opens, so it reuses that memory (see core/heap.py)
        self.ranking.start()
        if messages is not None:
            self.ranking.set_messages(messages)
        self._dialog: SettingsDialog | None = None
        self._memory_panel: MemoryPanel | None = None
        self.history = HistoryService(dsh_home or self.settings.dsh_home or None)
        self._history_panel: HistoryPanel | None = None
        self.history.recalled.connect(self.window.recall_strip.show_recalled)
        self.window.recall_strip.openRequested.connect(self._open_recalled)
        self.ranking.follower.messagesChanged.connect(self._check_for_recall)
        self.ranking.sessionChanged.connect(self._on_followed_session)
        self.history.start()
        self.heap = HeapKeeper()  # full collections when quiet, not in the middle of showing a ranking
        self.ranking.rankingChanged.connect(self.heap.note_activity)
        self.ranking.indexProgress.connect(self.heap.note_activity)
        self.heap.start()

    def _update_tray(self) -> None:
        wanted = self.settings.tray and TrayPeek.available()
        if wanted and self.tray is None:
            self.tray = TrayPeek(app_icon(), now_ms)
            self.ranking.rankingChanged.connect(self.tray.set_result)
            self.tray.documentChosen.connect(self._peek_chosen)
            self.tray.toggleWindow.connect(self._toggle_window)
            self.tray.quitRequested.connect(self.quit)
            self.tray.show()
        elif not wanted and self.tray is not None:
            self.tray.hide()
            self.tray.deleteLater()
            self.tray = None

    def _remember_from_conversation(self, text: str) -> None:
        """The user said 「记一下」/"remember this" in the followed session: offer a note prefilled with it."""
        with contextlib.suppress(ValueError):
            self.memory.propose(text, source="conversation")
            self.notes.refresh()

    def raise_window(self) -> None:
        self.window.showNormal()
        self.window.raise_()
        self.window.activateWindow()

    def _peek_chosen(self, key: str) -> None:
        self.raise_window()
        self.window.show_document(key)

    def _toggle_window(self) -> None:
        if self.window.isVisible() and not self.window.isMinimized():
            self.window.hide()
        else:
            self.raise_window()

    def _on_setting(self, key: str) -> None:
        if key == options.LANGUAGE.key:
            self.language.apply(self.settings.language)
        elif key == options.TRAY.key:
            self._update_tray()
        elif key == options.WORKSPACE.key:
            self.ranking.pin_workspace(self.settings.workspace or None)
        elif key == options.MEMORY_DIR.key:
            self.memory.memory_dir = self.settings.memory_dir or default_memory_dir(self.settings.dsh_home or None)
            self.memory.index = MemoryIndex(self.memory.memory_dir)

    def show_settings(self) -> None:
        if self._dialog is None:
            self._dialog = SettingsDialog(self.settings, self.window)
        self._dialog.show()
        self._dialog.raise_()

    def show_memory(self) -> None:
        if self._memory_panel is None:
            self._memory_panel = MemoryPanel(self.memory)
        self._memory_panel.reload()
        self._memory_panel.show()
        self._memory_panel.raise_()

    def history_panel(self) -> HistoryPanel:
        if self._history_panel is None:
            self._history_panel = HistoryPanel(self.history)
            session = (self.ranking.session or {}).get("session") or {}
            self._history_panel.set_session(session.get("id", ""))
        return self._history_panel

    def show_history(self) -> None:
        panel = self.history_panel()
        panel.show()
        panel.raise_()

    def _open_recalled(self, found: object) -> None:
        if not isinstance(found, dict):
            return
        event = found["event"]
        self.show_history()
        self.history_panel().open_event(found["session"]["id"], event["start_seq"],
                                        (event["start_seq"], event["end_seq"]), found.get("terms", []))

    def _on_followed_session(self, snapshot: object) -> None:
        session = (snapshot or {}).get("session") or {} if isinstance(snapshot, dict) else {}
        if isinstance(snapshot, dict) and session.get("id"):
            # What was said before the window saw this session is history, not a new message to check.
            self._checked_seq.setdefault(session["id"], snapshot.get("last_seq", -1))
        if self._history_panel is not None:
            self._history_panel.set_session(session.get("id", ""))

    def _check_for_recall(self, snapshot: object) -> None:
        """The followed session's newest human message, once: does it refer back to something said earlier?"""
        if not isinstance(snapshot, dict):
            return
        session_id = (snapshot.get("session") or {}).get("id")
        users = [m for m in snapshot.get("messages", []) if m.role == "user" and not m.synthetic]
        if not session_id or not users:
            return
        newest = users[-1]
        if newest.seq <= self._checked_seq.get(session_id, -1):
            return
        self._checked_seq[session_id] = newest.seq
        self.history.check_message(newest.text, session_id, newest.seq)

    def quit(self) -> None:
        self.window.close()
        QApplication.quit()

    def close(self) -> None:
        self.window.close()
        self.settings.flush()  # the geometry the window just saved, and any change still in the debounce
        if self.tray is not None:
            self.tray.hide()
        self.ranking.stop()
        self.thumbnails.stop()
        self.notes.stop()
        if self._memory_panel is not None:
            self._memory_panel.close()
        if self._history_panel is not None:
            self._history_panel.close()
        self.history.stop()
        self.heap.stop()
        self.language.clear()


def run(*, workspace: str | None, dsh_home: str | None, messages: list[Message] | None,
        screenshot: str | None = None, persistent: bool = True, conversation_name: str = "") -> int:
    """`conversation_name` names a fixed conversation in the header: "demo", or the file it came from."""
    app = cast("QApplication | None", QApplication.instance()) or QApplication(sys.argv[:1])
    app.setApplicationName("Knit Desktop")
    app.setOrganizationName("Knit")
    app.setWindowIcon(app_icon())
    app.setQuitOnLastWindowClosed(screenshot is not None or not TrayPeek.available())
    knit = KnitApp(workspace=workspace, dsh_home=dsh_home, messages=messages, persistent=persistent,
                   conversation_name=conversation_name)
    status = {"code": 0}
    launched = os.environ.get("KNIT_DESKTOP_LAUNCHED_AT")  # epoch seconds, set by whoever times the start-up
    if launched:
        def report_start() -> None:
            with contextlib.suppress(ValueError):
                print(f"first ranked list shown {(time.time() - float(launched)) * 1000:.0f} ms after launch",
                      file=sys.stderr, flush=True)

        knit.window.firstListShown.connect(report_start)
    if screenshot:
        def shoot() -> None:
            os.makedirs(os.path.dirname(os.path.abspath(screenshot)), exist_ok=True)
            if not knit.window.grab().save(screenshot):
                status["code"] = 2
            app.quit()

        def first_list() -> None:
            knit.window.list.select_first()  # show a preview too, as a user would see it
            QTimer.singleShot(600, shoot)

        knit.window.firstListShown.connect(first_list)
        QTimer.singleShot(SCREENSHOT_TIMEOUT_MS, shoot)
    knit.window.show()
    try:
        app.exec()
    finally:
        knit.close()
    return status["code"]
