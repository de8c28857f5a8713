"""Finding the memory entries a question is about: six dimensions, two tiers, `file:start-end` answers.

The dimensions and weights are the seed's (almost-for-ever), tuned on real questions:
  ① library tag +4  ② chapter tag +3  ③ parent category +0.5  ④ heading coverage +8 × coverage (× 0.45 for a
  one-word query)  ⑤ body coverage +2 × coverage  ⑥ status intent × 1.15 (open) / × 0.85 (closed).
Hand-tagged libraries use the strict tier (the body only counts once a topic dimension matched, which keeps
incidental words out); untagged ones use the loose tier (the body may match alone, or nothing would) and take
their library "tags" from the file name and H1. Chinese text is compared in character bigrams, other text in
stemmed words with prefix matching and without stop words.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from .library import CJK, Chapter, Entry, Library

W_LIBRARY_TAG = 4.0
W_CHAPTER_TAG = 3.0
W_PARENT = 0.5
W_HEADING = 8.0
SHORT_QUERY_FACTOR = 0.45  # the seed's "55 % off" for one-word queries: one hit is not 100 % evidence
W_BODY = 2.0
OPEN_FACTOR, CLOSED_FACTOR = 1.15, 0.85
DEFAULT_BUDGET = 700
DEFAULT_HITS = 3

PARENTS = {"项目", "游戏", "工具", "学术", "网络", "project", "game", "tool", "research", "network"}
PROGRESS_WORDS = ("做到哪", "到哪了", "进度", "进展", "状态", "status", "progress", "where was i", "where did i",
                  "how far")
OPEN_WORDS = ("进行中", "未完成", "待办", "todo", "in progress", "ongoing", "wip", "open")
CLOSED_WORDS = ("已完成", "已结束", "完结", "已结项", "done", "finished", "closed", "archived")
STOP_WORDS = frozenset(
    "a an the and or of to in on for with at by from is are was were be been it this that these those i me my we "
    "our you your he she they them what which who whom how why when where do does did can could should would "
    "will shall about into over there here any some all not no yes use used using".split()
)
CJK_STOP = frozenset("的了吗呢吧啊是在有和与及或这那哪我你他她它们")
CJK_STOP_BIGRAMS = frozenset({"什么", "怎么", "哪里", "哪个", "如何", "为什", "么样", "一下", "我们", "你们",
                              "他们", "这个", "那个", "是不", "不是", "之前", "以后", "的时", "时候", "在哪"})
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*|\d+")
CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


def stem(word: str) -> str:
    """A light English stemmer: enough to meet "backups" with "backup" and "running" with "run"."""
    w = word.lower()
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("ly", ""), ("es", ""), ("s", "")):
        if suffix == "es" and not w.endswith(("ses", "xes", "zes", "ches", "shes")):
            continue  # "notes" is note + s, "boxes" is box + es
        if w.endswith(suffix) and not w.endswith("ss") and len(w) - len(suffix) >= 3:
            w = w[: len(w) - len(suffix)] + repl
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":  # running → runn → run
        w = w[:-1]
    return w


def units(text: str) -> set[str]:
    """What a text is compared by: CJK bigrams (a lone character stands alone) and stemmed words."""
    out: set[str] = set()
    for run in CJK_RUN.findall(text):
        if len(run) == 1:
            if run not in CJK_STOP:
                out.add(run)
            continue
        for i in range(len(run) - 1):
            pair = run[i : i + 2]
            if pair not in CJK_STOP_BIGRAMS and not (pair[0] in CJK_STOP and pair[1] in CJK_STOP):
                out.add(pair)
    for word in WORD.findall(text):
        lowered = word.lower()
        if lowered in STOP_WORDS or len(lowered) < 2:
            continue
        out.add(stem(lowered))
    return out


def _matches(unit: str, pool: set[str]) -> bool:
    if unit in pool:
        return True
    if CJK.match(unit) or len(unit) < 4:
        return False
    return any(len(other) >= 4 and (other.startswith(unit) or unit.startswith(other)) for other in pool)


def coverage(query: set[str], text_units: set[str]) -> float:
    if not query:
        return 0.0
    return sum(1 for u in query if _matches(u, text_units)) / len(query)


def _tag_units(tags: list[str]) -> set[str]:
    return units(" ".join(tags))


@dataclass
class Hit:
    library: Library
    chapter: Chapter
    entry: Entry | None
    score: float

    @property
    def start(self) -> int:
        return self.entry.start if self.entry else self.chapter.start

    @property
    def end(self) -> int:
        return self.entry.end if self.entry else self.chapter.end

    @property
    def location(self) -> str:
        return f"{self.library.path.rsplit('/', 1)[-1]}:{self.start}-{self.end}"


def _status_factor(query: str, chapter: Chapter, library: Library) -> float:
    q = query.lower()
    if not any(word in q for word in PROGRESS_WORDS):
        return 1.0
    labels = " ".join(chapter.tags + library.tags + [chapter.title]).lower()
    if any(word in labels for word in OPEN_WORDS):
        return OPEN_FACTOR
    if any(word in labels for word in CLOSED_WORDS):
        return CLOSED_FACTOR
    return 1.0


def score_chapter(query: str, q: set[str], library: Library, chapter: Chapter) -> float:
    strict = library.tagged
    library_tags = _tag_units(library.tags) if strict else units(f"{library.stem} {library.h1}")
    topic = 0.0
    if q & library_tags or any(_matches(u, library_tags) for u in q):
        topic += W_LIBRARY_TAG
    chapter_tags = _tag_units(chapter.tags)
    if chapter_tags and any(_matches(u, chapter_tags) for u in q):
        topic += W_CHAPTER_TAG
    mentioned = {p for p in PARENTS if p in query.lower()}
    if mentioned and mentioned & {t.lower() for t in chapter.tags + library.tags}:
        topic += W_PARENT
    heading = coverage(q, units(chapter.title))
    topic += W_HEADING * heading * (SHORT_QUERY_FACTOR if len(q) == 1 else 1.0)
    body = 0.0
    if topic > 0 or not strict:
        body = W_BODY * coverage(q, units(chapter.text))
    return (topic + body) * _status_factor(query, chapter, library)


def search(libraries: list[Library], query: str, max_hits: int = DEFAULT_HITS) -> list[Hit]:
    q = units(query)
    if not q:
        return []
    scored: list[Hit] = []
    for library in libraries:
        for chapter in library.chapters:
            score = score_chapter(query, q, library, chapter)
            if score > 0:
                scored.append(Hit(library, chapter, _best_entry(q, chapter), score))
    scored.sort(key=lambda h: (-h.score, h.library.path, h.chapter.start))
    return scored[:max_hits]


def _best_entry(q: set[str], chapter: Chapter) -> Entry | None:
    if not chapter.entries:
        return None
    best = max(chapter.entries, key=lambda e: coverage(q, units(e.text)))
    return best if coverage(q, units(best.text)) > 0 or len(chapter.entries) == 1 else None


def hits_payload(hits: list[Hit], text: str, folder: str, skipped: dict[str, str] | None = None) -> dict:
    """The JSON answer the command line and the MCP tool share: the rendered text, the memory folder and each
    hit's place (`path` is absolute, for a reader that resolves paths against another folder), and the memory files
    that were not searched and why (only when there are some)."""
    payload: dict = {"text": text, "memory_dir": folder,
                     "hits": [{"location": h.location, "path": os.path.join(folder, os.path.basename(h.library.path)),
                               "library": h.library.name, "chapter": h.chapter.title, "start_line": h.start,
                               "end_line": h.end} for h in hits]}
    if skipped:
        payload["skipped"] = [{"file": name, "reason": reason} for name, reason in sorted(skipped.items())]
    return payload


def render_hits(hits: list[Hit], budget: int = DEFAULT_BUDGET, folder: str = "") -> str:
    """One line per hit, `file:start-end  Library › Chapter — text`, within `budget` characters in all. With
    `folder`, each location is that absolute path (the folder's part does not count against the budget)."""
    lines: list[str] = []
    used = 0
    prefix = folder.rstrip(os.sep) + os.sep if folder else ""
    for hit in hits:
        where = hit.library.name + ("" if hit.chapter.implicit else f" › {hit.chapter.title}")
        text = " ".join((hit.entry.text if hit.entry else hit.chapter.text).split())
        line = f"{hit.location}  {where} — {text}"
        room = budget - used - (1 if lines else 0)
        if room < len(hit.location) + 2:
            break
        if len(line) > room:
            line = line[: max(len(hit.location), room - 1)] + "…"
        used += len(line) + (1 if lines else 0)
        lines.append(prefix + line)
    return "\n".join(lines)
