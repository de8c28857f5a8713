"""What Knit extracts from a file: kind, title, one-line summary and the searchable body."""

from __future__ import annotations

import codecs
import hashlib
import re
from dataclasses import dataclass, field

from ..text.tokens import collapse_whitespace, truncate
from .boundary import read_inside

# Markdown, text and PDF, then the formats of `formats/` (HTML and DOCX cut at headings, the rest into pages).
DOC_KINDS = ("md", "txt", "pdf", "html", "docx", "epub", "xps", "fb2", "mobi", "cbz")
# Kinds read from a zip or laid out by PyMuPDF: read up to PDF_READ_CAP, like a PDF.
LARGE_READ_KINDS = frozenset({"pdf", "docx", "epub", "xps", "fb2", "mobi", "cbz"})
ZIP_KINDS = frozenset({"docx", "epub", "xps", "cbz"})  # their directory is at the end: a cut file is unreadable
MEDIA_KINDS = ("image", "video")
# Kinds whose body is the file's own text: a persistent index reads it back from the file when needed instead of
# storing it. They are most of a workspace, and their copies were 60% of the index on disk; decoding one costs what
# reading the stored copy does. Every other kind keeps its extracted text in its row (a PDF or a DOCX is slow to
# extract).
BODY_FROM_FILE_KINDS = frozenset({"md", "txt"})

EXTENSION_KINDS = {
    "md": "md",
    "markdown": "md",
    "txt": "txt",
    "pdf": "pdf",
    "html": "html",
    "htm": "html",
    "xhtml": "html",
    "docx": "docx",
    "epub": "epub",
    "xps": "xps",
    "oxps": "xps",
    "fb2": "fb2",
    "mobi": "mobi",
    "cbz": "cbz",
    "png": "image",
    "jpg": "image",
    "jpeg": "image",
    "gif": "image",
    "webp": "image",
    "avif": "image",
    "bmp": "image",
    "ico": "image",
    "svg": "image",
    "mp4": "video",
    "m4v": "video",
    "webm": "video",
    "mov": "video",
    "ogv": "video",
}

SUMMARY_CHARS = 60
HEAD_CHARS = 16 * 1024  # title and summary come from the head, as in the reference
BODY_CAP_BYTES = 2 * 1024 * 1024  # the searchable body is the whole file up to this size
BINARY_SNIFF_BYTES = 8192
TRUNCATED_NOTE = "indexed the first 2 MB (file is larger)"
# A PDF is read up to this many bytes (a larger one is opened from its first PDF_READ_CAP bytes, which PyMuPDF
# repairs into the pages they hold) and indexed up to MAX_PDF_PAGES pages or the body cap, whichever comes first.
PDF_READ_CAP = 64 * 1024 * 1024
HTML_READ_CAP = 8 * 1024 * 1024  # markup is several times its text: this much is read for a 2 MB body
MAX_PDF_PAGES = 2000
# Share of control characters above which decoded bytes are not text (tab, newlines, form feed and ESC excepted).
MAX_CONTROL_SHARE = 0.05


@dataclass(slots=True)
class Document:
    """One file of the workspace as the ranker sees it. `rel` uses forward slashes.

    Slotted: an index holds one per file for as long as it is open, and a per-instance dict was 290 of its ~400
    bytes (29 MB at 100,000 files)."""

    rel: str
    kind: str
    title: str
    summary: str
    mtime_ms: int
    size: int
    body: str = ""  # original case; empty for media
    truncated: bool = False
    content_hash: str = ""  # of the bytes that were indexed; empty for media (never read)
    # PDFs: character offset where each page starts in `body` (page n starts at page_starts[n-1]).
    page_starts: list[int] = field(default_factory=list)
    note: str = ""  # what the "indexed" status adds: a cut at a budget, the encoding the text was decoded from

    def __reduce__(self) -> tuple:
        # Pickled as its fields in order (a build sends one per file from its worker processes): the state
        # functions dataclasses give a slotted class walk its fields in Python on both sides. A subclass holding
        # its body elsewhere (StoredDocument) is pickled as a plain Document with its body.
        return (Document, (self.rel, self.kind, self.title, self.summary, self.mtime_ms, self.size, self.body,
                           self.truncated, self.content_hash, self.page_starts, self.note))

    @property
    def status_note(self) -> str:
        if self.note:
            return self.note
        return TRUNCATED_NOTE if self.truncated else ""

    @property
    def name(self) -> str:
        return self.rel.rsplit("/", 1)[-1]

    @property
    def is_media(self) -> bool:
        return self.kind in MEDIA_KINDS

    def field_texts(self) -> tuple[str, str, str]:
        """The lowercased title, summary and body the ranking searches. Media are searched by file name."""
        if self.is_media:
            return (self.name.lower(), "", "")
        return (self.title.lower(), self.summary.lower(), self.body.lower())


SKIP_BINARY = "binary_text"  # binary content in a text file
SKIP_TOO_LARGE = "file_too_large"  # detail: "<KIND> · <n> MB"
SKIP_REFUSED_PART = "refused_part"  # a zip member too large or inflating like a zip bomb; detail: the member
SKIP_TOO_MANY_PARTS = "too_many_parts"  # detail: the limit
SKIP_XML_ENTITIES = "xml_entities"  # detail: the format's label
SKIP_ENCRYPTED = "encrypted"  # detail: the format's label
SKIP_NO_TEXT = "no_text"  # detail: the format's label
SKIP_SCANNED = "scanned"  # no text layer; detail: the format's label
SKIP_IMAGES_ONLY = "images_only"  # a comic book archive


class SkipFile(Exception):
    """The file is deliberately not indexed. `str(exc)` is the reason in English (the command line, the agent, the
    stored status); `problem` (a SKIP_* code and its detail, "code:detail") lets the window word it in the user's
    language (ui/wording.problem_text)."""

    def __init__(self, reason: str, code: str, detail: str = "") -> None:
        super().__init__(reason)
        self.code = code
        self.detail = detail

    @property
    def problem(self) -> str:
        return f"{self.code}:{self.detail}" if self.detail else self.code


def kind_for_name(name: str) -> str | None:
    _, dot, ext = name.rpartition(".")
    if not dot:
        return None
    return EXTENSION_KINDS.get(ext.lower())


# --- Markdown ---------------------------------------------------------------------------------------

_FENCE = re.compile(r"^(```|~~~)")
_HEADING = re.compile(r"^#{1,6}\s")
_LIST_ITEM = re.compile(r"^([-*+]|\d+\.)\s")
_RULE = re.compile(r"^([-*_]\s*){3,}$")
# No bracket in the text and no parenthesis in the target: every scan stops at the next one, so floods of `[` or
# `](` cost linear time.
_IMAGE = re.compile(r"!\[[^\[\]]*\]\([^()]*\)")
_LINK = re.compile(r"\[([^\[\]]*)\]\([^()]*\)")
_CODE = re.compile(r"`([^`]*)`")


def atx_h1(line: str) -> str | None:
    """The text of an ATX level-1 heading line (`# Title`, optionally closed by `#`s), else None. Plain string
    work: the regular expression it replaces backtracked quadratically on long runs of spaces."""
    indent = len(line) - len(line.lstrip(" "))
    rest = line[indent:]
    if indent > 3 or not rest.startswith("#") or rest[1:2] not in (" ", "\t"):
        return None
    content = rest[1:].strip(" \t")
    unclosed = content.rstrip("#")
    if unclosed != content and unclosed and unclosed[-1] in " \t":
        content = unclosed.rstrip(" \t")
    return content


# Runs of emphasis delimiters; `_without_emphasis` decides which ones are markup.
_DELIMITERS = re.compile(r"_+|\*+|~~")


def _without_emphasis(text: str) -> str:
    """`text` without the delimiters that mark emphasis, as CommonMark pairs them (simplified): a run that can open
    (not followed by a space) meets a later run of the same character that can close (not preceded by one); an
    underscore run inside a word can do neither (`get_event_loop`, `MAX_SIZE`), and `~~` pairs as strikethrough.
    Unpaired runs are text: `_private`, `2 * 3`, `a ~~ b`. One pass, a stack of open runs per character."""
    drop: list[tuple[int, int]] = []
    opened: dict[str, list[tuple[int, int]]] = {"_": [], "*": [], "~": []}  # open runs, by character
    for match in _DELIMITERS.finditer(text):
        start, end = match.span()
        char = text[start]
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        can_open, can_close = not after.isspace(), not before.isspace()
        if char == "_":
            can_open = can_open and not before.isalnum()
            can_close = can_close and not after.isalnum()
        if can_close and opened[char]:
            drop.append(opened[char].pop())
            drop.append((start, end))
        elif can_open:
            opened[char].append((start, end))
    if not drop:
        return text
    out, last = [], 0
    for start, end in sorted(drop):
        out.append(text[last:start])
        last = end
    out.append(text[last:])
    return "".join(out)


# What every piece of inline markup above starts with or holds (a link or an image has its `[`).
_INLINE_MARKUP = re.compile(r"[\[`_*~]")


def strip_inline(text: str) -> str:
    """A Markdown line as text: images dropped, links and code spans to their text, emphasis markup removed.
    A code span's text is kept as written (`__init__`, `a*b`)."""
    if not _INLINE_MARKUP.search(text):
        return collapse_whitespace(text)  # (most titles and summaries: one scan instead of five)
    return _strip_markup(text)


def _strip_markup(text: str) -> str:
    text = _IMAGE.sub("", text)
    text = _LINK.sub(r"\1", text)
    pieces = _CODE.split(text)  # (odd places: the text of a code span)
    for i in range(0, len(pieces), 2):
        pieces[i] = _without_emphasis(pieces[i])
    return collapse_whitespace("".join(pieces))


def _is_summary_candidate(stripped: str) -> bool:
    if not stripped or _HEADING.match(stripped) or _LIST_ITEM.match(stripped):
        return False
    if stripped[0] in ">|<":
        return False
    return not _RULE.match(stripped)


def parse_markdown(text: str, file_name: str) -> tuple[str, str]:
    """Title (first H1 outside fences and front matter, else the file name) and the one-line summary."""
    lines = text[:HEAD_CHARS].splitlines()
    start = 0
    if lines and lines[0].strip() == "---":
        start = len(lines)  # an unclosed front matter swallows everything
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                start = i + 1
                break
    title = ""
    summary = ""
    in_fence = False
    for line in lines[start:]:
        stripped = line.strip()
        if _FENCE.match(stripped):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if not title:
            heading = atx_h1(line)
            if heading is not None:
                title = strip_inline(heading)
                continue
        if not summary and _is_summary_candidate(stripped):
            summary = strip_inline(stripped)
        if title and summary:
            break
    if not title:
        title = re.sub(r"\.(md|markdown)$", "", file_name, flags=re.IGNORECASE)
    return title, truncate(summary, SUMMARY_CHARS)


def parse_text(text: str, file_name: str) -> tuple[str, str]:
    """Plain text: the file name is the title, the first non-empty line the summary."""
    title = re.sub(r"\.txt$", "", file_name, flags=re.IGNORECASE)
    for line in text[:HEAD_CHARS].splitlines():
        tidy = collapse_whitespace(line)
        if tidy:
            return title, truncate(tidy, SUMMARY_CHARS)
    return title, ""


def text_title_and_summary(text: str, rel: str, kind: str) -> tuple[str, str]:
    """The title and summary of a Markdown or text file (`kind` "md" or "txt") with this text: a function of the text
    and the file's name alone, so the index keeps neither for these kinds and makes them again from the file."""
    name = rel.rsplit("/", 1)[-1]
    return parse_markdown(text, name) if kind == "md" else parse_text(text, name)


# --- reading files ----------------------------------------------------------------------------------


def looks_binary(head: bytes) -> bool:
    """NUL bytes, or mostly bytes that are neither text nor UTF-8, mean this is not a text document."""
    if b"\x00" in head:
        return True
    if not head:
        return False
    decoded = head.decode("utf-8", errors="replace")
    bad = decoded.count("\ufffd")
    return bad > 16 and bad / max(1, len(decoded)) > 0.1


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def read_cap(kind: str) -> int:
    """How many bytes of a file of this kind are read for its index entry."""
    if kind in LARGE_READ_KINDS:
        return PDF_READ_CAP
    if kind == "html":
        return HTML_READ_CAP
    return BODY_CAP_BYTES


def read_indexed_bytes(path: str, kind: str, root: str | None = None) -> bytes:
    """The bytes a document's index entry is built from: text files up to the cap plus one byte, PDFs up to
    PDF_READ_CAP plus one byte; never the rest of the file. With `root` (the workspace's real path) the file must
    resolve inside it (see boundary.read_inside)."""
    limit = read_cap(kind) + 1
    if root is not None:
        return read_inside(root, path, limit)
    with open(path, "rb") as handle:
        return handle.read(limit)


_BOMS = (  # UTF-32 first: its little-endian mark starts with UTF-16's
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8", ""),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f\x7f-\x9f]")
_SAMPLE_CHARS = 65536


def _mostly_text(text: str) -> bool:
    sample = text[:_SAMPLE_CHARS]
    return len(_CONTROL.findall(sample)) <= MAX_CONTROL_SHARE * max(1, len(sample))


def _looks_gb(text: str) -> bool:
    """Whether GB18030-decoded text reads as Chinese: its non-ASCII characters are mostly two-byte GB2312 ones
    (both bytes >= 0xA1). Latin-1 text decoded as GB18030 pairs an accented letter with the ASCII letter after it."""
    non_ascii = [ch for ch in text[:_SAMPLE_CHARS] if ch > "\x7f"]
    if not non_ascii:
        return False
    good = 0
    for ch in non_ascii:
        encoded = ch.encode("gb18030")
        good += len(encoded) == 2 and encoded[0] >= 0xA1 and encoded[1] >= 0xA1
    return good >= 0.8 * len(non_ascii)


def _decode(data: bytes, final: bool) -> tuple[str, str]:
    """Text and the name of the encoding it was decoded from ("" for UTF-8); raises SkipFile for binary content.
    `final` is False when `data` was cut at a cap (a character split there is dropped, not replaced)."""
    for bom, codec, name in _BOMS:
        if data.startswith(bom):
            text = codecs.getincrementaldecoder(codec)("replace").decode(data[len(bom) :], final=final)
            if not _mostly_text(text):
                raise SkipFile("binary content in a text file", SKIP_BINARY)
            return text, name
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise SkipFile("binary content in a text file", SKIP_BINARY)
    try:
        return codecs.getincrementaldecoder("utf-8")("strict").decode(data, final=final), ""
    except UnicodeDecodeError:
        pass
    text = codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=final)
    sample = text[:_SAMPLE_CHARS]
    bad = sample.count("\ufffd")
    if sum(1 for ch in sample if ch > "\x7f") - bad > 4 * bad:  # UTF-8 with a few stray bytes
        return text, ""
    try:
        gb = codecs.getincrementaldecoder("gb18030")("strict").decode(data, final=final)
    except UnicodeDecodeError:
        gb = None
    if gb is not None and _looks_gb(gb) and _mostly_text(gb):
        return gb, "GB18030"
    latin = data.decode("latin-1")
    if _mostly_text(latin) and not looks_binary_latin(data):
        return latin, "Latin-1"
    raise SkipFile("binary content in a text file", SKIP_BINARY)


def looks_binary_latin(data: bytes) -> bool:
    """Bytes that only decode as Latin-1 are text when most of them are printable ASCII."""
    sample = data[:BINARY_SNIFF_BYTES]
    high = sum(1 for b in sample if b >= 0x80)
    return high > 0.3 * max(1, len(sample))


def decode_text(data: bytes, cap: int = BODY_CAP_BYTES) -> tuple[str, bool, str, str]:
    """Text (of at most `cap` bytes), whether it was cut at the cap, the content hash and the encoding used when
    it is not UTF-8 (UTF-16/32 with a byte order mark, else GB18030 or Latin-1 for text that is not UTF-8);
    raises SkipFile for binary content."""
    digest = content_hash(data)
    truncated = len(data) > cap
    if truncated:
        data = data[:cap]
    text, encoding = _decode(data, final=not truncated)
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, truncated, digest, encoding


def _cut_in_place(data: bytearray, size: int) -> bytearray:
    del data[size:]
    return data


def extract_document(
    path: str, rel: str, kind: str, mtime_ms: int, size: int, data: bytes | None = None, root: str | None = None
) -> Document:
    """Build the Document for one file (from `data` when the caller already read it; else read within `root`, the
    workspace's real path). Raises SkipFile for a deliberate skip, OutsideWorkspace, OSError/ValueError on failure."""
    name = rel.rsplit("/", 1)[-1]
    if kind in MEDIA_KINDS:
        title = name.rsplit(".", 1)[0] if "." in name else name
        return Document(rel=rel, kind=kind, title=title, summary="", mtime_ms=mtime_ms, size=size)
    if data is None:
        data = read_indexed_bytes(path, kind, root)
    if kind == "pdf":
        from .pdf import extract_pdf  # PyMuPDF is loaded only when a PDF is met

        digest = content_hash(data)
        cut = len(data) > PDF_READ_CAP
        if cut:  # cut in place when we own the buffer: a second 64 MB copy is not needed
            data = data[:PDF_READ_CAP] if isinstance(data, bytes) else _cut_in_place(data, PDF_READ_CAP)
        doc = extract_pdf(data, rel, mtime_ms, size, cut)
        doc.content_hash = digest
        return doc
    if kind not in ("md", "txt"):
        from .formats import extract_formatted

        digest = content_hash(data)
        cap = read_cap(kind)
        cut = len(data) > cap
        if cut and kind in ZIP_KINDS:
            raise SkipFile(f"{kind.upper()} larger than {cap // (1024 * 1024)} MB (not read)", SKIP_TOO_LARGE,
                           f"{kind.upper()} · {cap // (1024 * 1024)} MB")
        if cut:
            data = data[:cap] if isinstance(data, bytes) else _cut_in_place(data, cap)
        doc = extract_formatted(data, rel, kind, mtime_ms, size, cut)
        doc.content_hash = digest
        return doc
    text, truncated, digest, encoding = decode_text(data)
    title, summary = text_title_and_summary(text, rel, kind)
    notes = [TRUNCATED_NOTE] if truncated else []
    if encoding:
        notes.append(f"decoded as {encoding}")
    return Document(
        rel=rel, kind=kind, title=title, summary=summary, mtime_ms=mtime_ms, size=size, body=text,
        truncated=truncated, content_hash=digest, note="; ".join(notes),
    )
