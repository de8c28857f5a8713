"""The conversation as the ranker sees it: messages, the recency window and the task line."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..text.stopwords import TASK_ACK
from ..text.tokens import WINDOW_CHARS, collapse_whitespace

MAX_MESSAGES = 6
MESSAGE_CHARS = 2000
MAX_CHARS = WINDOW_CHARS  # (kept with the tokeniser, so cutting a query does not load this module)
TASK_CHARS = 80

# A user who says they are changing the subject ("Different question: …", "换个话题，…") means the messages before it
# are no longer what the conversation is about: the window ends there. Only near the start of the message, where
# people say it; "a different question from last week's" further in is not a switch.
TOPIC_SWITCH = re.compile(
    r"\b(?:different|another|new|unrelated|separate|other) (?:question|topic|subject|thing)\b|"
    r"\b(?:change|switch)(?:ing)? (?:of |the )?(?:topic|subject)s?\b|\bon another note\b|"
    r"换个(?:问题|话题|事)|另一个问题|另外一个问题|别的问题|新问题|题外话|说点别的|换一个话题",
    re.IGNORECASE,
)
SWITCH_REACH = 60  # characters from the start of a message where a switch is recognised


@dataclass(frozen=True)
class Message:
    role: str  # "user" | "assistant"
    text: str
    synthetic: bool = False  # injected context (AGENTS.md, skills, notices): never ranked on
    seq: int = -1


@dataclass(frozen=True)
class ConversationWindow:
    texts: list[str]  # newest first, each cut to MESSAGE_CHARS, original case
    task: str  # the newest substantive human message, quoted as written ('' when none)


class MessagesFormatError(ValueError):
    """A messages file that is not a JSON array of {role, text} objects."""


def conversation_window(messages: list[Message]) -> ConversationWindow:
    """Scan from the newest message back, as the reference does (knit-engine.md §1.1, §1.3)."""
    texts: list[str] = []
    task = ""
    total = 0
    for message in reversed(messages):
        if message.synthetic or message.role not in ("user", "assistant"):
            continue
        if not message.text.strip():
            continue
        cut = message.text[:MESSAGE_CHARS]  # all that is read of a message (a 50 MB one costs no more)
        if not task and message.role == "user" and is_substantive(cut):
            task = task_line(cut)
        texts.append(cut)
        total += len(cut)
        if len(texts) >= MAX_MESSAGES or total >= MAX_CHARS:
            break
        if message.role == "user" and changes_topic(cut):
            break  # what came before is the previous topic
    return ConversationWindow(texts=texts, task=task)


def changes_topic(text: str) -> bool:
    """Whether a user message opens with a change of subject ("OK. Different question: …", "换个话题，…")."""
    return TOPIC_SWITCH.search(text[:SWITCH_REACH]) is not None


def counts_in_window(message: Message) -> bool:
    """Whether `conversation_window` would read this message at all."""
    return not message.synthetic and message.role in ("user", "assistant") and bool(message.text.strip())


class ConversationTail:
    """The newest messages of a growing conversation, only as many as the ranker's window can read.

    A followed session hands over its new messages only; this keeps the last MAX_MESSAGES that count (the window
    never reads further back), so an append costs the new messages and no copy of the history. `conversation_window(tail.messages)` equals the window of the whole conversation."""

    def __init__(self, messages: list[Message] | None = None) -> None:
        self._messages: list[Message] = []
        self.extend(messages or [])

    def extend(self, messages: list[Message]) -> bool:
        """Add newer messages (oldest first); True when the window's input changed."""
        kept = [m for m in messages if counts_in_window(m)]
        if not kept:
            return False
        self._messages.extend(kept[-MAX_MESSAGES:])
        del self._messages[:-MAX_MESSAGES]
        return True

    def clear(self) -> None:
        self._messages.clear()

    @property
    def messages(self) -> list[Message]:
        return list(self._messages)


def _word_parts(text: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    for ch in text:
        if ch.isalpha() or ch.isnumeric():
            current.append(ch)
        elif current:
            parts.append("".join(current))
            current = []
    if current:
        parts.append("".join(current))
    return parts


def is_substantive(text: str) -> bool:
    tidy = collapse_whitespace(text)
    if len(tidy) < 2 or not any(ch.isalpha() for ch in tidy):
        return False
    parts = [p.lower() for p in _word_parts(tidy)]
    return not parts or not all(p in TASK_ACK for p in parts)


def task_line(text: str) -> str:
    tidy = collapse_whitespace(text)
    return tidy if len(tidy) <= TASK_CHARS else tidy[: TASK_CHARS - 1] + "…"


def parse_messages(data: object) -> list[Message]:
    """Validate the `--messages` JSON: an array, oldest first, of {"role", "text"[, "synthetic"]}."""
    if not isinstance(data, list):
        raise MessagesFormatError("expected a JSON array of {\"role\", \"text\"} objects")
    messages: list[Message] = []
    for i, item in enumerate(data):
        if not isinstance(item, dict):
            raise MessagesFormatError(f"item {i} is not an object")
        role, text = item.get("role"), item.get("text")
        if role not in ("user", "assistant"):
            raise MessagesFormatError(f"item {i}: \"role\" must be \"user\" or \"assistant\"")
        if not isinstance(text, str):
            raise MessagesFormatError(f"item {i}: \"text\" must be a string")
        synthetic = item.get("synthetic", False)
        if not isinstance(synthetic, bool):
            raise MessagesFormatError(f"item {i}: \"synthetic\" must be true or false")
        messages.append(Message(role=role, text=text, synthetic=synthetic, seq=i))
    return messages


MAX_MESSAGES_BYTES = 64 * 1024 * 1024  # a messages file larger than this is refused, not read


def load_messages(path: str | Path) -> list[Message]:
    """Read a messages file; raises OSError, MessagesFormatError (bad JSON is reported as a format error)."""
    with open(path, "rb") as handle:
        raw = handle.read(MAX_MESSAGES_BYTES + 1)
    return messages_from_json(raw.decode("utf-8", errors="replace"))


def messages_from_json(raw: str) -> list[Message]:
    if len(raw) > MAX_MESSAGES_BYTES:
        raise MessagesFormatError(f"larger than {MAX_MESSAGES_BYTES // (1024 * 1024)} MB")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise MessagesFormatError(f"not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise MessagesFormatError("not valid JSON (nested too deeply)") from None
    except ValueError as exc:  # e.g. a number with more digits than Python converts
        raise MessagesFormatError(f"not valid JSON ({exc})") from None
    return parse_messages(data)
