"""Shows the queue's pending proposals as a stack of sticky notes, one window each, and carries out the answers.

The queue is a file other processes (the MCP server, `knit-desktop propose`) add to; a file watcher and a slow
timer notice. The front note sits where the user left the stack, the others peek out behind it, each with its
place in the count. Remembering writes through MemoryStore with the fingerprints taken when that note appeared,
so a file edited meanwhile is reported as a conflict on the note rather than written.
"""

from __future__ import annotations

import contextlib

from PySide6.QtCore import QFileSystemWatcher, QObject, QPoint, QTimer, Signal

from ..core import config as options
from ..core.memory.store import MemoryStore
from ..core.memory.write import MemoryConflict, MemoryWriteError
from .settings import Settings
from .sticky_note import StickyNote

POLL_MS = 3000
MAX_STACK = 5  # notes shown at once; the count tells how many more wait
STACK_STEP = QPoint(-10, -10)


class MemoryNotes(QObject):
    warned = Signal(str)  # the queue file was damaged and set aside (where it is kept), for the status line

    def __init__(self, store: MemoryStore, settings: Settings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.settings = settings
        self.notes: dict[str, StickyNote] = {}  # proposal id → its note, front first
        self._seen: dict[str, dict[str, str]] = {}  # proposal id → {memory file: fingerprint when shown}
        self._warned = ""
        self._idle = StickyNote(settings)  # what `note` answers when nothing is pending (never shown)
        self._watcher: QFileSystemWatcher | None = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(lambda _p: self.refresh())
        self._watcher.directoryChanged.connect(lambda _p: self.refresh())
        settings.changed.connect(self._on_setting)
        self._timer = QTimer(self, interval=POLL_MS)
        self._timer.timeout.connect(self.refresh)

    @property
    def note(self) -> StickyNote:
        """The front note (the one to answer first)."""
        return next(iter(self.notes.values()), self._idle)

    def start(self) -> None:
        self.store.queue.path.parent.mkdir(parents=True, exist_ok=True)
        if self._watcher is not None:
            self._watcher.addPath(str(self.store.queue.path.parent))
        self._timer.start()
        self.refresh()

    def stop(self) -> None:
        self._timer.stop()
        # The watcher holds an inotify instance (a per-user, limited resource): give it back now rather than
        # when this object is collected, which a frozen heap (core.heap) may put off for the process's life.
        if self._watcher is not None:
            watcher, self._watcher = self._watcher, None
            watcher.setParent(None)  # owned by Python alone: destroyed, and its instance closed, right here
            del watcher
        for note in self.notes.values():
            note.close()
        self.notes.clear()
        self._idle.close()

    def refresh(self) -> None:
        pending = self.store.queue.pending()
        if self.store.queue.warning and self.store.queue.warning != self._warned:
            self._warned = self.store.queue.warning
            self.warned.emit(self._warned)
        shown = pending[:MAX_STACK]
        wanted = [p.id for p in shown]
        for proposal_id in [i for i in self.notes if i not in wanted]:
            self.notes.pop(proposal_id).close()
            self._seen.pop(proposal_id, None)
        targets = None
        for proposal in shown:
            if proposal.id in self.notes:
                continue
            targets = targets if targets is not None else self.store.targets()
            note = StickyNote(self.settings)
            note.remembered.connect(self._remember)
            note.dismissed.connect(self._dismiss)
            note.show_proposal(proposal, [(t.file, t.name, t.chapters) for t in targets], 1, len(pending))
            seen = {}
            for target in targets:
                with contextlib.suppress(OSError):
                    seen[target.file] = self.store.fingerprint(target.file)
            self._seen[proposal.id] = seen
            self.notes[proposal.id] = note
        self.notes = {i: self.notes[i] for i in wanted}  # front first, in queue order
        self._restack(len(pending))

    def _restack(self, total: int) -> None:
        notes = list(self.notes.values())
        for index, note in reversed(list(enumerate(notes))):  # the back ones first, so the front ends on top
            note.is_top = index == 0
            note.count.setText(f"{index + 1} / {total}" if total > 1 else "")
            note.place(STACK_STEP * index)
            if not note.isVisible():
                note.show()
            note.raise_()

    def _on_setting(self, key: str) -> None:
        if key == options.NOTE_POSITION.key and self.notes:
            self._restack(len(self.store.queue.pending()))

    def _remember(self, proposal_id: str, text: str, target: str, chapter: str) -> None:
        proposal = next((p for p in self.store.queue.pending() if p.id == proposal_id), None)
        note = self.notes.get(proposal_id)
        if proposal is None or note is None:
            self.refresh()
            return
        proposal.text, proposal.target, proposal.chapter = text, target, chapter
        seen = self._seen.setdefault(proposal_id, {})
        try:
            expected = seen.get(target) or self.store.fingerprint(target)
            self.store.confirm(proposal, expected)
        except MemoryConflict as exc:
            seen[target] = self.store.fingerprint(target)  # seen now: confirming again writes onto it
            note.show_message(str(exc))
            return
        except (MemoryWriteError, OSError, ValueError) as exc:
            note.show_message(str(exc))
            return
        with contextlib.suppress(OSError):  # notes that saw the version just replaced have seen this one too
            written = self.store.fingerprint(target)
            for other in self._seen.values():
                if other.get(target) == expected:
                    other[target] = written
        self.refresh()

    def _dismiss(self, proposal_id: str) -> None:
        self.store.dismiss(proposal_id)
        self.refresh()
