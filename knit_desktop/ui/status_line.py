"""The status line under the list: indexing progress, the watch mode, failures and worker errors, the memory
queue's warnings, missing video support, passing notices (an app that cannot be opened, …) and (when turned on) the
usage line, worded in the user's language."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QTimer
from PySide6.QtWidgets import QLabel, QWidget

from ..core.dsh.usage import Usage
from ..services import multimedia
from ..services.indexer import FAILED_CANCELLED
from ..services.watcher import MODE_POLLING
from .media_preview import video_unavailable_text
from .settings import Settings
from .wording import usage_text

NOTICE_MS = 10_000


class StatusLine(QLabel):
    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("StatusLine")
        self.setWordWrap(True)
        self.settings = settings
        # What the services reported, as codes and their details; worded when shown.
        self.status: dict = {"progress": (0, 0), "watch": "", "failed": ("", ""), "memory": "", "error": "",
                             "notice": ""}
        self.usage: Usage | None = None
        self._notice_timer = QTimer(self, singleShot=True, interval=NOTICE_MS)  # a notice is read, then it goes
        self._notice_timer.timeout.connect(lambda: self.update_status(notice=""))

    def update_status(self, **values) -> None:
        self.status.update(values)
        self.refresh()

    def show_notice(self, text: str) -> None:
        """A passing message (already worded), gone after a while."""
        self.update_status(notice=text)
        self._notice_timer.start()

    def set_usage(self, usage: Usage | None) -> None:
        self.usage = usage
        self.refresh()

    def clear_workspace_problems(self) -> None:
        """A new workspace: the previous one's failures and errors no longer apply."""
        self.status.update(failed=("", ""), error="")

    def refresh(self) -> None:
        text = " · ".join(p for p in self.parts() if p)
        self.setText(text)
        self.setVisible(bool(text))

    def parts(self) -> list[str]:
        done, total = self.status["progress"]
        parts = [self.tr("Indexing %1 / %2").replace("%1", str(done)).replace("%2", str(total)) if done < total else ""]
        if self.status["watch"] == MODE_POLLING:
            parts.append(self.tr("Watching by polling (the system refused more folder watches)"))
        code, detail = self.status["failed"]
        if code == FAILED_CANCELLED:
            parts.append(self.tr("Indexing was cancelled"))
        elif code:
            parts.append(self.tr("Could not open the workspace: %1").replace("%1", detail))
        if self.status["error"]:
            parts.append(self.tr("Something went wrong in the background: %1").replace("%1", self.status["error"]))
        known = multimedia.known()  # (once a video needed it: asking would load Qt Multimedia for nothing)
        if known is not None and not known[0]:
            parts.append(video_unavailable_text())
        if self.status["memory"]:
            parts.append(self.status["memory"])
        if self.status["notice"]:
            parts.append(self.status["notice"])
        if self.usage is not None and self.settings.show_usage:
            parts.append(usage_text(self.usage))
        return parts

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.refresh()
        super().changeEvent(event)
