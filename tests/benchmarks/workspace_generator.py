"""Deterministic synthetic workspaces for benchmarks: focused notes, opaque names, a README full of the
project name, long archives that name every topic, Chinese and mixed documents, and some media."""

from __future__ import annotations

import os
import random
from pathlib import Path

PROJECT = "Meridian"
TOPICS = [
    "upload retry backoff", "thumbnail cache eviction", "album sharing permissions", "vector clock sync",
    "oauth token refresh", "push notification batching", "database migration backfill", "crash reporting rota",
    "photo search index", "release train signing", "rate limit bucket", "encryption key rotation",
    "perceptual hash duplicates", "screen reader labels", "export zip sidecar", "video transcoding segments",
    "geo tagging accuracy", "memory leak decoder", "battery drain radio", "live photo playback",
]
CN_TOPICS = ["缩略图缓存", "回收站保留", "导入性能", "智能相册", "地理标签", "离线队列", "分享权限", "存储配额"]
EN_FILLER = (
    "team design change plan review issue note week result user data service client server build test "
    "config value error fix update report metric budget owner risk option detail draft follow summary"
).split()
CN_FILLER = "我们 讨论 方案 结果 问题 需要 更新 设计 测试 数据 用户 服务 记录 计划 评审".split()


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(EN_FILLER) if rng.random() < 0.9 else f"w{rng.randint(0, 20000)}" for _ in range(n))


def generate(root: Path, n_docs: int, seed: int = 1) -> Path:
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    now = 1_780_000_000
    files: dict[str, str] = {}
    files["README.md"] = f"# {PROJECT}\n\n" + f"{PROJECT} keeps photos in sync. " * 60
    n_archives = max(2, n_docs // 500)
    for a in range(n_archives):
        lines = [f"# Archive {a}", ""] + [f"- {t}: mentioned once." for t in TOPICS + CN_TOPICS]
        files[f"archive/archive-{a:03}.md"] = "\n".join(lines + [_words(rng, 200) for _ in range(40)])
    i = 0
    while len(files) < n_docs:
        i += 1
        directory = rng.choice(["docs", "notes", "design", "notes/2026", "docs/api", "misc"])
        style = rng.random()
        if style < 0.15:
            topic = rng.choice(CN_TOPICS)
            body = f"# {topic}\n\n{topic}的{rng.choice(CN_FILLER)}。" + "".join(
                rng.choice(CN_FILLER) + rng.choice(["，", "。"]) for _ in range(rng.randint(40, 300))
            )
            name = f"{topic}-{i}.md"
        else:
            topic = rng.choice(TOPICS)
            paragraphs = [
                f"{topic.capitalize()} {_words(rng, rng.randint(10, 40))}." for _ in range(rng.randint(1, 4))
            ] + [_words(rng, rng.randint(20, 120)) for _ in range(rng.randint(2, 12))]
            if rng.random() < 0.3:
                paragraphs.append(f"{PROJECT} " + _words(rng, 10))
            title = topic.title() if rng.random() < 0.8 else f"Notes {i}"
            body = f"# {title}\n\n" + "\n\n".join(paragraphs)
            name = f"{topic.replace(' ', '-')}-{i}.md" if rng.random() < 0.7 else f"{rng.getrandbits(32):08x}.md"
        if rng.random() < 0.1:
            name = name[:-3] + ".txt"
            body = body.lstrip("# ")
        files[f"{directory}/{name}"] = body
    for m in range(max(5, n_docs // 50)):
        files[f"media/{rng.choice(TOPICS).replace(' ', '-')}-{m}.png"] = "\x89PNG"
    for rel, body in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
        mtime = now - rng.randint(0, 90 * 86400)
        os.utime(path, (mtime, mtime))
    return root


def conversations(seed: int = 2, count: int = 30) -> list[list[tuple[str, str]]]:
    """Conversations of 2-6 messages mixing a topic, filler and the project name."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        topic = rng.choice(TOPICS)
        messages = []
        for k in range(rng.randint(2, 6)):
            role = "user" if k % 2 == 0 else "assistant"
            if rng.random() < 0.2:
                text = f"{rng.choice(CN_TOPICS)}的{rng.choice(CN_FILLER)}怎么处理？"
            else:
                text = f"About {PROJECT} {topic}: {_words(rng, rng.randint(5, 60))}"
            messages.append((role, text))
        out.append(messages)
    return out
