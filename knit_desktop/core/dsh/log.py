"""Reading one DSH session log incrementally, in bounded memory (reference: dsh-sessions.md §1.2).

A compressed log is a concatenation of independent zstd frames: the first holds the header line, each durable
append batch adds one. The reader remembers the byte offset after the last complete frame and decodes only what
was appended since. A torn last frame (a write in progress) is left for the next read; a corrupt frame is skipped
to the next frame boundary and counted. Uncompressed logs (`compression: none`) are read line by line the same way.

Nothing is read or decoded whole. The file is read through a small buffer; each frame's extent and the most it can
decode to are found from its block headers (zstd's format: a block decodes to at most 128 KB) before anything is
decompressed, so a frame that declares, or could decode to, more than MAX_FRAME_BYTES is reported ("frame too
large") and skipped undecoded: a 33 KB zstd bomb costs a few milliseconds, not gigabytes. Events are handed to the
caller one at a time as each frame is decoded, so a 200 MB log is read in the memory of one frame.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import BinaryIO

import zstandard

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
SKIPPABLE_LOW, SKIPPABLE_HIGH = 0x184D2A50, 0x184D2A5F
BLOCK_MAX = 128 * 1024  # the most one zstd block decodes to
MAX_FRAME_BYTES = 64 * 1024 * 1024  # decoded bytes per frame; larger frames are reported, not decoded
MAX_LINE_BYTES = 64 * 1024 * 1024  # one line of an uncompressed log
MAX_HEADER_BYTES = 1024 * 1024  # the header line a listing reads
READ_BYTES = 1024 * 1024  # the file is read this much at a time

EventSink = Callable[[dict], None]


@dataclass
class ReadResult:
    events: list[dict]  # new rows, in order (header and packed chunk rows included); empty when a sink took them
    skipped_lines: int = 0  # lines that were not JSON objects
    corrupt_frames: int = 0
    large_frames: int = 0  # frames too large to decode


@dataclass
class LogReader:
    path: str
    offset: int = 0  # bytes consumed so far (always at a frame or line boundary)
    size_seen: int = 0
    counts: Counter = field(default_factory=Counter)  # problems so far: corrupt / large / not_json / long_line
    _skipping_line: bool = False  # inside an over-long line of an uncompressed log, dropping until its newline

    @property
    def compressed(self) -> bool:
        return self.path.endswith(".zstd")

    @property
    def problems(self) -> list[str]:
        c = self.counts
        out = []
        if c["corrupt"]:
            out.append(f"{c['corrupt']} corrupt frame(s) skipped")
        if c["large"]:
            out.append(f"{c['large']} frame(s) too large to decode (over {MAX_FRAME_BYTES // (1024 * 1024)} MB) "
                       "skipped")
        if c["long_line"]:
            out.append(f"{c['long_line']} line(s) over {MAX_LINE_BYTES // (1024 * 1024)} MB skipped")
        if c["not_json"]:
            out.append(f"{c['not_json']} line(s) that are not JSON skipped")
        return out

    def read_new(self, sink: EventSink | None = None) -> ReadResult:
        """Decode what was appended since the last call. Each event goes to `sink` as soon as its frame is decoded
        (or, without a sink, into the result's list). Raises OSError if the file cannot be read."""
        events: list[dict] = []
        emit = sink or events.append
        before = Counter(self.counts)
        with open(self.path, "rb", buffering=READ_BYTES) as handle:
            size = os.fstat(handle.fileno()).st_size
            if self.compressed:
                self._read_frames(handle, size, emit)
            else:
                self._read_lines(handle, size, emit)
        self.size_seen = max(size, self.offset)
        new = self.counts - before
        return ReadResult(events, new["not_json"] + new["long_line"], new["corrupt"], new["large"])

    # --- compressed ------------------------------------------------------------------------------------------

    def _read_frames(self, handle: BinaryIO, size: int, emit: EventSink) -> None:
        decompressor = zstandard.ZstdDecompressor()
        pos = self.offset
        while pos < size:
            status, end, too_large = frame_extent(handle, pos, size)
            if status == "torn":
                break  # the writer has not finished this frame yet (or it is garbage we can only tell later)
            if status == "skippable":
                pos = end
            elif status == "corrupt":
                self.counts["corrupt"] += 1
                pos = _next_magic(handle, pos + 1, size)
            elif too_large:
                self.counts["large"] += 1
                pos = end
            else:
                handle.seek(pos)
                data = handle.read(end - pos)
                try:
                    decoder = decompressor.decompressobj()
                    text = decoder.decompress(data)
                    if not decoder.eof:
                        raise zstandard.ZstdError("frame ended early")
                except zstandard.ZstdError:
                    self.counts["corrupt"] += 1
                    pos = _next_magic(handle, pos + 1, size)
                    self.offset = pos
                    continue
                del data
                pos = end
                self._parse(text, emit)
                del text
            self.offset = pos

    # --- uncompressed ----------------------------------------------------------------------------------------

    def _read_lines(self, handle: BinaryIO, size: int, emit: EventSink) -> None:
        handle.seek(self.offset)
        pending = b""  # the start of a line whose newline has not been read yet
        pos = self.offset  # file offset of `pending`'s first byte
        while True:
            chunk = handle.read(READ_BYTES)
            if not chunk:
                break
            if self._skipping_line:
                cut = chunk.find(b"\n")
                if cut < 0:
                    pos += len(chunk)
                    self.offset = pos  # the rest of an over-long line: nothing to keep
                    continue
                self._skipping_line = False
                pos += cut + 1
                self.offset = pos
                chunk = chunk[cut + 1 :]
            data = pending + chunk
            end = data.rfind(b"\n") + 1  # only whole lines; a partial last line waits for its newline
            if end:
                self._parse(data[:end], emit)
                pos += end
                self.offset = pos
            pending = data[end:]
            if len(pending) > MAX_LINE_BYTES:
                self.counts["long_line"] += 1
                self._skipping_line = True
                pos += len(pending)
                self.offset = pos
                pending = b""

    # --- both ------------------------------------------------------------------------------------------------

    def _parse(self, text: bytes, emit: EventSink) -> None:
        start = 0
        n = len(text)
        while start < n:
            cut = text.find(b"\n", start)
            if cut < 0:
                cut = n
            line = text[start:cut]
            start = cut + 1
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except (ValueError, RecursionError):
                self.counts["not_json"] += 1
                continue
            if isinstance(row, dict):
                emit(row)
            else:
                self.counts["not_json"] += 1

    def read_header(self) -> dict | None:
        """Only the first frame's (or line's) first line: what a session listing needs, decoded within a bound."""
        with open(self.path, "rb") as handle:
            head = handle.read(64 * 1024)
        if self.compressed:
            try:
                with zstandard.ZstdDecompressor().stream_reader(head) as reader:
                    text = reader.read(MAX_HEADER_BYTES)
            except zstandard.ZstdError:
                return None
        else:
            text = head
        first = text.split(b"\n", 1)[0]
        try:
            header = json.loads(first)
        except (ValueError, RecursionError):
            return None
        return header if isinstance(header, dict) and header.get("type") == "session" else None


def frame_extent(handle: BinaryIO, pos: int, size: int) -> tuple[str, int, bool]:
    """Where the frame starting at `pos` ends, from its header and block headers alone (nothing is decoded):
    ("frame", end, too_large) | ("skippable", end, False) | ("torn", 0, False) | ("corrupt", 0, False).
    `too_large`: the frame declares, or its blocks could decode to, more than MAX_FRAME_BYTES."""
    handle.seek(pos)
    head = handle.read(18)  # the longest frame header: magic, descriptor, window, dictionary id, content size
    if len(head) < 4:
        return ("torn", 0, False)
    magic = int.from_bytes(head[:4], "little")
    if SKIPPABLE_LOW <= magic <= SKIPPABLE_HIGH:
        if len(head) < 8:
            return ("torn", 0, False)
        end = pos + 8 + int.from_bytes(head[4:8], "little")
        return ("skippable", end, False) if end <= size else ("torn", 0, False)
    if head[:4] != ZSTD_MAGIC:
        return ("corrupt", 0, False)
    if len(head) < 5:
        return ("torn", 0, False)
    descriptor = head[4]
    if descriptor & 0x08:
        return ("corrupt", 0, False)  # the reserved bit
    single_segment = descriptor >> 5 & 1
    content_size_bytes = (1 if single_segment else 0, 2, 4, 8)[descriptor >> 6]
    header_len = 5 + (0 if single_segment else 1) + (0, 1, 2, 4)[descriptor & 3] + content_size_bytes
    if len(head) < header_len:
        return ("torn", 0, False)
    declared = None
    if content_size_bytes:
        declared = int.from_bytes(head[header_len - content_size_bytes : header_len], "little")
        declared += 256 if content_size_bytes == 2 else 0
    bound = 0
    p = pos + header_len
    while True:
        if p + 3 > size:
            return ("torn", 0, False)
        handle.seek(p)
        raw = handle.read(3)
        value = int.from_bytes(raw, "little")
        last, kind, block_size = value & 1, value >> 1 & 3, value >> 3
        if kind == 3 or block_size > BLOCK_MAX:
            return ("corrupt", 0, False)
        bound += block_size if kind in (0, 1) else BLOCK_MAX  # raw and RLE blocks say their size; compressed ≤ 128 KB
        p += 3 + (1 if kind == 1 else block_size)
        if last:
            break
    if descriptor & 0x04:
        p += 4  # content checksum
    if p > size:
        return ("torn", 0, False)
    # Both limits: a frame may declare a small size over blocks that say otherwise (the decoder would refuse it, but
    # only after all of it had been read).
    too_large = bound > MAX_FRAME_BYTES or (declared is not None and declared > MAX_FRAME_BYTES)
    return ("frame", p, too_large)


def _next_magic(handle: BinaryIO, start: int, size: int) -> int:
    """The next offset at or after `start` where a zstd frame could begin (the end of the file if none)."""
    pos = start
    while pos < size:
        handle.seek(pos)
        chunk = handle.read(READ_BYTES + 3)
        found = chunk.find(ZSTD_MAGIC)
        if found >= 0:
            return pos + found
        if len(chunk) <= 3:
            break
        pos += len(chunk) - 3
    return size


def file_mtime_ms(path: str) -> int:
    return os.stat(path).st_mtime_ns // 1_000_000
