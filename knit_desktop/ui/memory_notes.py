"""Shows the queue's pending proposals on a sticky note, one at a time with a count, and carries out the answer.

The queue is a file other processes (the MCP server, `knit-desktop propose`) add to; a file watcher and a slow
timer notice. Remembering writes through MemoryStore with the fingerprint taken when the note was shown, so a file
edited meanwhile is reported as a conflict on the note rather than written.
"""

from __future__ import annotations

import contextlib

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer

from ..core.memory.store import MemoryStore
from ..core.memory.write import MemoryConflict, MemoryWriteError
from .settings import Settings
from .sticky_note import StickyNote

POLL_MS = 3000


class MemoryNotes(QObject):
    def __init__(self, store: MemoryStore, settings: Settings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.note = StickyNote(settings)
        self.note.remembered.connect(self._remember)
        self.note.dismissed.connect(self._dismiss)
        self._shown_id = ""
        self._seen: dict[str, str] = {}  # memory file → its fingerprint when the current note was shown
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(lambda _p: self.refresh())
        self._watcher.directoryChanged.connect(lambda _p: self.refresh())
        settings.changed.connect(lambda key: self.note.place() if key == "memory/note_position"
                                 and settings.note_position is None and self.note.isVisible() else None)
        self._timer = QTimer(self, interval=POLL_MS)
        self._timer.timeout.connect(self.refresh)

    def start(self) -> None:
        self.store.queue.path.parent.mkdir(parents=True, exist_ok=True)
        self._watcher.addPath(str(self.store.queue.path.parent))
        self._timer.start()
        self.refresh()

    def stop(self) -> None:
        self._timer.stop()
        self.note.close()

    def refresh(self) -> None:
        pending = self.store.queue.pending()
        if not pending:
            self._shown_id = ""
            self.note.hide()
            return
        current = next((p for p in pending if p.id == self._shown_id), pending[0])
        position = pending.index(current) + 1
        if current.id != self._shown_id:
            self._shown_id = current.id
            found = self.store.targets()
            self._seen = {}
            for target in found:
                with contextlib.suppress(OSError, FileNotFoundError):
                    self._seen[target.file] = self.store.fingerprint(target.file)
            self.note.show_proposal(current, [(t.file, t.name, t.chapters) for t in found], position, len(pending))
            if not self.note.isVisible():
                self.note.place()
                self.note.show()
        else:
            self.note.count.setText(f"{position} / {len(pending)}" if len(pending) > 1 else "")

    def _remember(self, proposal_id: str, text: str, target: str, chapter: str) -> None:
        proposal = next((p for p in self.store.queue.pending() if p.id == proposal_id), None)
        if proposal is None:
            self.refresh()
            return
        proposal.text, proposal.target, proposal.chapter = text, target, chapter
        try:
            expected = self._seen.get(target) or self.store.fingerprint(target)
            self.store.confirm(proposal, expected)
        except MemoryConflict as exc:
            self._seen[target] = self.store.fingerprint(target)  # seen now: confirming again writes onto it
            self.note.show_message(str(exc))
            return
        except (MemoryWriteError, OSError, ValueError) as exc:
            self.note.show_message(str(exc))
            return
        self._shown_id = ""
        self.refresh()

    def _dismiss(self, proposal_id: str) -> None:
        self.store.dismiss(proposal_id)
        self._shown_id = ""
        self.refresh()
