"""One pattern for work off the GUI thread: a worker object on its own QThread, driven through queued signals.

Modelled on napari's `thread_worker` and Picard's `run_task`, reduced to what the indexer, the conversation
follower and the thumbnails need:
- `Worker` lives on the thread. Its slots are `guarded`: an exception in one becomes `errored(token, message)`
  instead of vanishing into Qt's event loop, so whoever waits for an answer hears that none is coming.
- `WorkerThread` is the GUI-side handle. It owns the thread, the mailbox (objects cross threads there, signals
  carry only keys; see mailbox.py), the cancellation flag and the request tokens, which are unique in the process
  so an answer can never be mistaken for another worker's. `retire` ends a worker without waiting for it and
  disconnects every signal it had towards the rest of the application.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import sys
import threading
import traceback
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from PySide6.QtCore import QCoreApplication, QObject, QThread, Signal, Slot

from .mailbox import Mailbox

_tokens = itertools.count(1)
_token_lock = threading.Lock()

F = TypeVar("F", bound=Callable[..., Any])


def next_token() -> int:
    """A request token no other request of this process has had."""
    with _token_lock:
        return next(_tokens)


def error_text(exc: BaseException) -> str:
    """One line naming what went wrong (the exception's own words, or its class)."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _token_of(args: tuple) -> int:
    """The request token of a slot call: its first argument when that is an int, or that argument's `token`."""
    if not args:
        return 0
    first = args[0]
    if isinstance(first, int) and not isinstance(first, bool):
        return first
    token = getattr(first, "token", 0)
    return token if isinstance(token, int) else 0


def guarded(slot: F) -> F:
    """Turn an exception in a worker slot into `errored(token, message)` (the token of the request it served)."""

    @functools.wraps(slot)
    def run(self: Worker, *args: Any) -> Any:
        try:
            return slot(self, *args)
        except Exception as exc:  # noqa: BLE001 - reported to the GUI, never raised into Qt's event loop
            traceback.print_exc(file=sys.stderr)
            self.errored.emit(_token_of(args), error_text(exc))
            return None

    return run  # type: ignore[return-value]


class Worker(QObject):
    """Base of the objects that live on a worker thread."""

    errored = Signal(int, str)  # token of the failed request (0: not a request), what went wrong

    def __init__(self) -> None:
        super().__init__()
        self.mailbox = Mailbox()
        self.cancel = threading.Event()

    def on_shutdown(self) -> None:
        """Subclasses release what they hold (on the worker's thread, before it ends)."""

    @Slot()
    def shutdown(self) -> None:
        try:
            self.on_shutdown()
        except Exception as exc:  # noqa: BLE001 - the thread must end whatever happened
            traceback.print_exc(file=sys.stderr)
            self.errored.emit(0, error_text(exc))
        finally:
            hand_back_to_gui_thread(self)
            QThread.currentThread().quit()


def hand_back_to_gui_thread(worker: QObject) -> None:
    """Move a worker whose timers are stopped to the application's thread as its own thread ends, so that it is
    destroyed there (`finished → deleteLater`). Destroyed as its own thread ended, it removed the connections
    from its handle's request signals while holding Qt's signal-slot lock and then asked for the GIL (PySide
    looks for a Python `disconnectNotify`), while the GUI thread, holding the GIL, waited for that same lock in a
    `connect`: both waited for good."""
    app = QCoreApplication.instance()
    if app is not None and worker.thread() is not app.thread():
        worker.moveToThread(app.thread())


class _Relay(QObject):
    """Receives one worker signal on the GUI thread and emits its handle's signal with the mailbox object."""

    def __init__(self, take: Callable[[Any], Any], target: Any, parent: QObject) -> None:
        super().__init__(parent)
        self._take = take
        self._target = target

    def forward(self, *args: Any) -> None:
        value = self._take(args[-1])
        with contextlib.suppress(RuntimeError):  # the handle is being destroyed: nobody is listening any more
            self._target.emit(*args[:-1], value)


class WorkerThread(QObject):
    """The GUI-side handle of one worker: every method returns at once (except `stop` and `wait`)."""

    errored = Signal(int, str)
    _shutdown = Signal()

    def __init__(self, worker: Worker, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread = QThread()
        self._thread.setObjectName(name)
        self._worker = worker
        self._mailbox = worker.mailbox
        self._cancel = worker.cancel
        worker.moveToThread(self._thread)
        worker.errored.connect(self.errored)
        self._shutdown.connect(worker.shutdown)
        self._thread.finished.connect(worker.deleteLater)

    # --- wiring --------------------------------------------------------------------------------------

    def relay(self, source: Any, target: Any) -> None:
        """Forward a worker signal whose last argument is a mailbox key as `target(*others, object)`.

        The forwarding object is a child of this handle, so the connection ends when the handle is deleted: a
        worker still talking after its handle was retired reaches nobody (a bare lambda outlived the handle and
        emitted on a deleted signal)."""
        source.connect(_Relay(self._mailbox.take, target, self).forward)

    @staticmethod
    def new_token() -> int:
        return next_token()

    # --- life ----------------------------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def cancel(self) -> None:
        self._cancel.set()

    def is_running(self) -> bool:
        return self._thread.isRunning()

    def wait(self, timeout_ms: int = 10_000) -> bool:
        """Block until the thread has ended (application exit only)."""
        return self._thread.wait(timeout_ms)

    def stop(self, timeout_ms: int = 10_000) -> bool:
        """Cancel, let the worker release what it holds, and end the thread (waits: application exit only)."""
        if not self._thread.isRunning():
            return True
        self._cancel.set()
        self._shutdown.emit()
        return self._thread.wait(timeout_ms)

    def retire(self) -> None:
        """Cancel and end the thread without waiting; nothing the worker still says reaches anyone but this
        handle's own bookkeeping, and the handle deletes itself when the thread has ended."""
        self.disconnect_all()
        if not self._thread.isRunning():
            self.deleteLater()
            return
        self._cancel.set()
        self._thread.finished.connect(self.deleteLater)
        self._shutdown.emit()

    def disconnect_all(self) -> None:
        """Disconnect every public signal of this handle (its subclass's and `errored`) from its receivers."""
        names = {name for cls in type(self).__mro__ if issubclass(cls, WorkerThread)
                 for name, value in vars(cls).items()
                 if isinstance(value, Signal) and not name.startswith("_")}  # "_…": requests to its own worker
        for name in sorted(names):
            with warnings.catch_warnings(), contextlib.suppress(RuntimeError, TypeError):
                warnings.simplefilter("ignore", RuntimeWarning)  # "nothing was connected" is no problem here
                getattr(self, name).disconnect()
