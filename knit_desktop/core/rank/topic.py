"""The readable topic label: fragments merged back into the words the user typed (knit-engine.md §2.4)."""

from __future__ import annotations

from collections.abc import Callable

from ..text.tokens import collation_key
from .keywords import Keyword

MAX_LABEL_CHARS = 6
TOPIC_TERMS = 3


def readable_topics(present: list[Keyword], is_present: Callable[[str], bool]) -> list[str]:
    groups: dict[str, list[tuple[int, int, float]]] = {}
    for keyword in present:
        for span in keyword.spans:
            groups.setdefault(span.text, []).append((span.start, span.end, keyword.weight))

    merged: list[tuple[float, str]] = []
    for text, spans in groups.items():
        spans.sort(key=lambda s: (s[0], s[1]))
        used = [False] * len(spans)
        for i, (start, end, weight) in enumerate(spans):
            if used[i]:
                continue
            best_end, best_weight = -1, 0.0
            w = weight
            for j in range(i, len(spans)):
                if j > i:
                    if spans[j][0] >= end:
                        break
                    end = max(end, spans[j][1])
                    w = max(w, spans[j][2])
                size = end - start
                if size < 2:
                    continue
                if size > MAX_LABEL_CHARS:
                    break
                if not is_present(text[start:end]):
                    continue
                if end > best_end:
                    best_end, best_weight = end, w
            if best_end >= 0:
                merged.append((best_weight, text[start:best_end]))
                for j in range(i, len(spans)):
                    if spans[j][0] < best_end:
                        used[j] = True
    merged.sort(key=lambda m: (-m[0], collation_key(m[1])))
    labels: list[str] = []
    for _, label in merged:
        if label not in labels:
            labels.append(label)
        if len(labels) >= TOPIC_TERMS:
            break
    return labels


def topic_label(terms: list[str], limit: int = TOPIC_TERMS) -> str:
    return "、".join(t for t in terms[:limit] if len(t) >= 2)


def topic_for(present: list[Keyword], is_present: Callable[[str], bool]) -> str:
    known: dict[str, bool] = {}

    def once(label: str) -> bool:  # the same label recurs for every span of a term
        key = label.lower()
        if key not in known:
            known[key] = is_present(label)
        return known[key]

    labels = readable_topics(present, once)
    return topic_label(labels or [k.term for k in present[:TOPIC_TERMS]])
