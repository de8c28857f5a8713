"""Pinned and hidden documents, per workspace, remembered across restarts.

A pinned document leads every view (a "Pinned" tier above Primary, the tray, `knit_docs`); a hidden one leaves every
view until it is un-hidden. The choice is the user's, not the index's: it lives in Knit's data folder (never in the
workspace, never in the cache a user may clear), one small JSON file per workspace keyed by its real path like the
index. Writes are atomic (temp file + rename), so a crash leaves the previous choice, never half a file; a damaged
file reads as "nothing pinned" and is replaced by the next change.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..paths import data_home


def pins_path(real_root: str) -> Path:
    digest = hashlib.sha256(real_root.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    label = re.sub(r"[^A-Za-z0-9._-]+", "_", os.path.basename(real_root.rstrip("/\\")) or "root")[:40]
    return data_home() / "pins" / f"{label}-{digest}.json"


def _rels(value: object) -> list[str]:
    if not isinstance(value, list):
        return []
    seen: dict[str, None] = {}
    for item in value:
        if isinstance(item, str) and item and not item.startswith("/") and ".." not in item.split("/"):
            seen.setdefault(item, None)
    return list(seen)


@dataclass
class Pins:
    """The pinned (in the order they were pinned) and hidden documents of one workspace."""

    root: str
    pinned: list[str] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, root: str) -> Pins:
        real = os.path.realpath(root) if root else ""
        pins = cls(real)
        if not real:
            return pins
        with contextlib.suppress(OSError, ValueError, UnicodeDecodeError):
            text = pins_path(real).read_text(encoding="utf-8")
            import json  # (when there are pins to read: a `rank` of a workspace without them loads no JSON reader)

            data = json.loads(text)
            if isinstance(data, dict):
                pins.pinned = _rels(data.get("pinned"))
                pins.hidden = [rel for rel in _rels(data.get("hidden")) if rel not in pins.pinned]
        return pins

    def is_pinned(self, rel: str) -> bool:
        return rel in self.pinned

    def is_hidden(self, rel: str) -> bool:
        return rel in self.hidden

    def set_pinned(self, rel: str, on: bool) -> None:
        """Pin (which also un-hides) or unpin a document, and save."""
        if on:
            if rel not in self.pinned:
                self.pinned.append(rel)
            self.hidden = [r for r in self.hidden if r != rel]
        else:
            self.pinned = [r for r in self.pinned if r != rel]
        self.save()

    def set_hidden(self, rel: str, on: bool) -> None:
        """Hide (which also unpins) or un-hide a document, and save."""
        if on:
            if rel not in self.hidden:
                self.hidden.append(rel)
            self.pinned = [r for r in self.pinned if r != rel]
        else:
            self.hidden = [r for r in self.hidden if r != rel]
        self.save()

    def save(self) -> None:
        if not self.root:
            return
        path = pins_path(self.root)
        path.parent.mkdir(parents=True, exist_ok=True)
        import json

        text = json.dumps({"root": self.root, "pinned": self.pinned, "hidden": self.hidden}, ensure_ascii=False,
                          indent=1)
        import tempfile  # only a change of pins writes: `rank` reads them on every call

        fd, tmp = tempfile.mkstemp(prefix=".pins-", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
