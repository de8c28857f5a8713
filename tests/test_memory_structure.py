"""Memory files as people write them, read into the right entries: the shapes that made a question miss its
answer (a file pasted whole inside a code fence, …)."""

from __future__ import annotations

from pathlib import Path

from knit_desktop.core.memory.library import MemoryIndex
from knit_desktop.core.memory.search import search


def folder(tmp_path: Path, files: dict[str, str]) -> list:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return MemoryIndex(str(tmp_path)).libraries()


def first_hit(libraries: list, query: str) -> str:
    hits = search(libraries, query)
    assert hits, query
    return hits[0].location


ACTIVE_CONTEXT = """```markdown
# Active Context: Personal Scheduler Application

This document outlines the active context for the Personal Scheduler application: the current sprint, ongoing
tasks, known issues, priorities and next steps.

## Sprint Goals (Sprint 2: Focused Productivity)

*   **Implement a simple pomodoro timer:** start, pause and reset from the task view.
*   **Add recurring tasks:** daily and weekly repeats stored by the backend.

## Current Priorities

*   Robust error handling in the backend, so a failed request never loses a task.
*   Clear error feedback to the user in the frontend when the API cannot be reached.

```bash
npm run dev
```

## Known Issues

*   Dates are shown in UTC instead of the user's time zone.
```
"""


def test_a_file_pasted_inside_a_markdown_fence_is_read_as_markdown(tmp_path):
    libraries = folder(tmp_path, {"activeContext.md": ACTIVE_CONTEXT,
                                  "notes.md": "# Notes\n\n## Frontend\n- the user sees a spinner while tasks load\n"})
    (library,) = [lib for lib in libraries if lib.stem == "activeContext"]
    assert [c.title for c in library.chapters][1:] == [
        "Sprint Goals (Sprint 2: Focused Productivity)", "Current Priorities", "Known Issues"]
    assert library.h1 == "Active Context: Personal Scheduler Application"
    # the code block inside stays a code block of its chapter, the lines keep their numbers
    priorities = library.chapter("Current Priorities")
    assert [(e.start, e.style) for e in priorities.entries] == [(14, "list"), (15, "list"), (17, "code")]
    assert first_hit(libraries, "frontend error feedback to the user") == "activeContext.md:15-15"


def test_a_file_that_only_starts_with_a_fence_is_not_unwrapped(tmp_path):
    text = "```markdown\n## Not a chapter\n- shown as an example\n```\n\n## Real chapter\n- a real note\n"
    (library,) = folder(tmp_path, {"example.md": text})
    assert [c.title for c in library.chapters if not c.implicit] == ["Real chapter"]


ACTIVE_TASK = """# 活跃任务

## 当前状态

- **是否有活跃任务**: 是
- **任务名称**: 官网改版工作流
- **阶段**: 执行中（首页设计 → 切图）
- **下一步**: 用户确认配色后开始写样式

## 备忘

- 官网改版的素材放在 assets/ 下，首页设计稿在 design/home.fig
"""

BACKLOG = """# Backlog

## Critical (Must Fix Before Release)

### BUG-012: Sync drops the last edit
- **File:** `Services/Sync.swift` (line 310)
- **Issue:** the last edit before closing the window is not uploaded.
- **Status:** KNOWN - workaround in place

### BUG-013: Export loses images
- **File:** `Services/Export.swift`
- **Issue:** images in a table cell are left out of the PDF.
- **Status:** FIXED in 1.4.2
"""


def test_a_status_question_about_a_record_of_fields_gets_the_field_of_its_state(tmp_path):
    libraries = folder(tmp_path, {"active-task.md": ACTIVE_TASK, "BACKLOG.md": BACKLOG})
    # the record is named by one field and says where it stands in another, which shares no word with the question
    assert first_hit(libraries, "官网改版做到哪一步了") == "active-task.md:7-7"
    assert first_hit(libraries, "is BUG-012 fixed?") == "BACKLOG.md:8-8"
    # a question that is not about where it stands still gets the field holding its words
    assert first_hit(libraries, "官网改版的任务名称是什么") == "active-task.md:6-6"


PROGRESS_WITH_LEGEND = """# Market Maker — progress

## Sessions

| Date | Work | Tests |
|------|------|-------|
| 2026-03-02 | Order book snapshot parser | ✅ |
| 2026-03-04 | Quote engine skeleton | 🚧 |

## Legend / 图例

| Symbol / 符号 | Meaning / 含义 |
|---------------|---------------|
| ✅ | All tests passed / 所有测试通过 |
| ❌ | Tests failed (see blockers) / 测试失败（见阻塞项） |
| 🚧 | Work in progress / 进行中 |
"""

CLONES = """# RingCode 进度

## 总览

**结论**：v0.2 P0 与分身主路径已落地，可日常使用。分身 S0～S5 主路径已实现，**2026-09-14 用户确认实机测试通过**；2026-09-15 修正 Codex 分身会话切回原版时的 provider 残留，并确认 Claude Code 原版/分身按入口隔离配置。剩余工作见下方 P1 列表与规划文档第 11、12 节。

## P1 未完成

- WSP-007 多工作区标签页
- SKL-008 Git 导入 Skill
- 分身列表的排序与重命名
- 分身图标跟随主题色

## 分身设计要点

- 每个分身一个独立的配置目录，按入口区分。
- 分身会话可以切回原版继续，provider 跟随会话记录。
- 删除分身时保留其会话历史，可从归档恢复。
"""


def test_a_legend_row_is_no_answer_to_a_status_question(tmp_path):
    # A legend says what a symbol means ("✅ = all tests passed"); it states where nothing stands, so it gets no
    # status bonus and is not the latest status of its file.
    libraries = folder(tmp_path, {"marketmaker-progress.md": PROGRESS_WITH_LEGEND, "clones.md": CLONES})
    assert first_hit(libraries, "分身功能实机测试通过了吗") == "clones.md:5-5"
    # …and a question about a symbol's meaning still finds the legend.
    assert first_hit(libraries, "what does the ❌ symbol mean in the tests column").startswith("marketmaker-progress.md:")


LEDGER = """# Runtime ledger

## Update: canonical identity (Phase 2A)

```text
Task: canonical identity
Owner: Codex
Tests:
  - 67 domain contract tests pass
  - full suite: 610 tests, 0 failures, 8 errors, 0 skips
  - all 8 full-suite errors are repository transaction setup
    errors caused by the MySQL authentication setting
Findings:
  - Rabbit redelivery reuses the request id but may execute again; no
    duplicate suppression is claimed.
  - The context factory no longer creates UUIDs.
Next dependency:
  - rewrite the lifecycle bridge plan before further production changes
```

## Update: build output

```text
$ make
cc -o app main.c
ld: warning: no symbols
done in 2.1s
0 errors
OK
```
"""


def test_a_record_kept_in_a_plain_text_fence_is_read_item_by_item(tmp_path):
    """A ledger that keeps each update as a ```text record: its fields and items are entries, each hit a few lines
    that answer, not the whole 16-line block."""
    (library,) = folder(tmp_path, {"ledger.md": LEDGER})
    phase = library.chapter("Update: canonical identity (Phase 2A)")
    # Fields with a value are items, a field over a list (`Tests:`) opens its first item and is the others' heading.
    assert [(e.start, e.end, e.heading) for e in phase.entries] == [
        (6, 6, ""), (7, 7, ""), (8, 9, "Tests"), (10, 10, "Tests"), (11, 12, "Tests"), (13, 15, "Findings"),
        (16, 16, "Findings"), (17, 18, "Next dependency")]
    assert phase.entries[3].text == "- full suite: 610 tests, 0 failures, 8 errors, 0 skips"
    assert first_hit([library], "does Rabbit redelivery suppress duplicate execution?") == "ledger.md:13-15"
    assert first_hit([library], "why did the eight full-suite errors happen?") == "ledger.md:11-12"
    # Output that is not a record (few lines are items or fields) stays one code block, with its fences.
    (output,) = library.chapter("Update: build output").entries
    assert (output.start, output.end, output.style) == (23, 30, "code")
