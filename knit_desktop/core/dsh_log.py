"""Reading one DSH session log incrementally (reference: dsh-sessions.md §1.2).

A compressed log is a concatenation of independent zstd frames: the first holds the header line, each durable
append batch adds one. The reader remembers the byte offset after the last complete frame and decodes only what
was appended since. A torn last frame (a write in progress) is left for the next read; a corrupt frame is skipped
to the next frame boundary and counted. Uncompressed logs (`compression: none`) are read line by line the same way.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import zstandard

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


@dataclass
class ReadResult:
    events: list[dict]  # new rows, in order (header and packed chunk rows included)
    skipped_lines: int = 0  # lines that were not JSON objects
    corrupt_frames: int = 0


@dataclass
class LogReader:
    path: str
    offset: int = 0  # bytes consumed so far (always at a frame or line boundary)
    size_seen: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def compressed(self) -> bool:
        return self.path.endswith(".zstd")

    def read_new(self) -> ReadResult:
        """Decode what was appended since the last call. Raises OSError if the file cannot be read."""
        with open(self.path, "rb") as handle:
            handle.seek(self.offset)
            data = handle.read()
        self.size_seen = self.offset + len(data)
        if not data:
            return ReadResult([])
        if self.compressed:
            text, consumed, corrupt = _decode_frames(data)
        else:
            end = data.rfind(b"\n") + 1  # only whole lines; a partial last line waits for its newline
            text, consumed, corrupt = data[:end], end, 0
        self.offset += consumed
        events, skipped = _parse_lines(text)
        if corrupt:
            self.problems.append(f"{corrupt} corrupt frame(s) skipped")
        if skipped:
            self.problems.append(f"{skipped} line(s) that are not JSON skipped")
        return ReadResult(events, skipped, corrupt)

    def read_header(self) -> dict | None:
        """Only the first frame (or line): what a session listing needs."""
        with open(self.path, "rb") as handle:
            head = handle.read(64 * 1024)
        if self.compressed:
            try:
                decoder = zstandard.ZstdDecompressor().decompressobj()
                text = decoder.decompress(head)
            except zstandard.ZstdError:
                return None
        else:
            text = head
        first = text.split(b"\n", 1)[0]
        try:
            header = json.loads(first)
        except ValueError:
            return None
        return header if isinstance(header, dict) and header.get("type") == "session" else None


FEED_BYTES = 256 * 1024


def _decode_frames(data: bytes) -> tuple[bytes, int, int]:
    """Decode complete frames from the start of `data`: (text, bytes consumed, corrupt frames skipped).

    Each frame's decoder is fed in bounded pieces, so finding where a frame ends copies at most one piece,
    not the rest of the log (a first read of a 50 MB log would otherwise be quadratic)."""
    view = memoryview(data)
    out: list[bytes] = []
    pos = 0
    corrupt = 0
    n = len(data)
    while pos < n:
        decoder = zstandard.ZstdDecompressor().decompressobj()
        fed = pos
        pieces: list[bytes] = []
        try:
            while not decoder.eof and fed < n:
                piece = view[fed : fed + FEED_BYTES]
                fed += len(piece)
                pieces.append(decoder.decompress(piece))
        except zstandard.ZstdError:
            corrupt += 1
            nxt = data.find(ZSTD_MAGIC, pos + 1)
            if nxt < 0:
                pos = n  # nothing decodable follows; later appends start a fresh frame
                break
            pos = nxt
            continue
        if not decoder.eof:
            break  # torn: the writer has not finished this frame yet
        pos = fed - len(decoder.unused_data)
        out.extend(pieces)
    return b"".join(out), pos, corrupt


def _parse_lines(text: bytes) -> tuple[list[dict], int]:
    events: list[dict] = []
    skipped = 0
    for line in text.split(b"\n"):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            skipped += 1
            continue
        if isinstance(row, dict):
            events.append(row)
        else:
            skipped += 1
    return events, skipped


def file_mtime_ms(path: str) -> int:
    return os.stat(path).st_mtime_ns // 1_000_000
