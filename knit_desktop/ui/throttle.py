"""Call a function at most once per interval, with the latest arguments (qutebrowser's `Throttle`).

The first call runs at once; calls within the interval after it are folded into one that runs when the interval
ends, with the arguments of the last of them. `flush()` runs a pending call now (before quitting), `cancel()`
drops it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QTimer


class Throttle(QObject):
    def __init__(self, func: Callable[..., Any], delay_ms: int, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._func = func
        self._delay_ms = delay_ms
        self._pending: tuple[tuple[Any, ...], dict[str, Any]] | None = None
        self._last_call_ms: float | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._call_pending)

    @property
    def pending(self) -> bool:
        return self._pending is not None

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        now_ms = time.monotonic() * 1000
        if self._pending is None:
            if (self._last_call_ms is None or now_ms - self._last_call_ms >= self._delay_ms
                    or QCoreApplication.instance() is None):  # no event loop to run a later call: call now
                self._last_call_ms = now_ms
                self._func(*args, **kwargs)
                return
            self._timer.start(max(0, int(self._delay_ms - (now_ms - self._last_call_ms))))
        self._pending = (args, kwargs)

    def _call_pending(self) -> None:
        if self._pending is None:
            return
        args, kwargs = self._pending
        self._pending = None
        self._last_call_ms = time.monotonic() * 1000
        self._func(*args, **kwargs)

    def flush(self) -> None:
        """Run the pending call now, if there is one."""
        self._timer.stop()
        self._call_pending()

    def cancel(self) -> None:
        self._timer.stop()
        self._pending = None
