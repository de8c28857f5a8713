"""Memory files: the live index (libraries, chapters, entries, line ranges), the format guard, confirmed appends
that never damage a file, and the proposal queue under concurrent writers."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from knit_desktop.core.memory.library import MemoryIndex, estimate_tokens, parse_library
from knit_desktop.core.memory.proposals import ProposalQueue, clean_proposal
from knit_desktop.core.memory.write import (
    MemoryConflict,
    MemoryWriteError,
    append_entry,
    detect_format,
    fingerprint,
)

TAGGED = """# 项目记录
<!-- 标签: 项目, 工作 -->

## game-a / 卡牌游戏
<!-- 标签: 卡牌, 游戏, 进行中 -->
- 回合制战斗已经能跑
- 卡牌平衡表在 docs/balance.xlsx
  第二行是续行

## 导入性能
1. 先看磁盘
2. 再看索引
5. 最后看网络

## 环境表
| 名称 | 值 |
|------|----|
| python | 3.11 |
| node | 20 |

## 空章节

"""

UNTAGGED_NO_H2 = """# health

Sleep at 23:00, no screens after 22:30.

- run 5 km on Tuesdays
- no coffee after 15:00

Doctor said vitamin D is low; retest in March.
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_tagged_library_has_chapters_entries_tags_and_line_ranges(tmp_path):
    lib = parse_library(str(tmp_path / "04-projects.md"), TAGGED)
    assert lib.name == "项目记录" and lib.tags == ["项目", "工作"] and lib.tagged
    assert [c.title for c in lib.chapters] == ["game-a / 卡牌游戏", "导入性能", "环境表", "空章节"]
    game, perf, table, empty = lib.chapters
    assert (game.start, game.end) == (4, 8) and game.tags == ["卡牌", "游戏", "进行中"]
    assert [(e.start, e.end, e.style) for e in game.entries] == [(6, 6, "list"), (7, 8, "list")]
    assert game.entries[1].text.endswith("第二行是续行")
    assert [e.number for e in perf.entries] == [1, 2, 5]
    assert [e.text for e in table.entries] == ["| python | 3.11 |", "| node | 20 |"]  # the header is not an entry
    assert empty.entries == [] and (empty.start, empty.end) == (21, 21)
    assert lib.tokens == estimate_tokens(TAGGED) > 0 and game.tokens > 0


def test_a_file_without_chapters_is_split_into_entries(tmp_path):
    lib = parse_library(str(tmp_path / "health.md"), UNTAGGED_NO_H2)
    assert not lib.tagged and lib.name == "health"
    assert [c.implicit for c in lib.chapters] == [True] * 4
    assert [(c.start, c.end) for c in lib.chapters] == [(3, 3), (5, 5), (6, 6), (8, 8)]
    assert lib.chapters[1].title == "run 5 km on Tuesdays"


def test_pure_prose_and_english_tags_parse(tmp_path):
    prose = parse_library(str(tmp_path / "diary.md"), "I moved the blog to a new host last spring.\nIt was slow.\n\n"
                                                      "The backup script lives in ~/bin/backup.sh.\n")
    assert [(c.start, c.end) for c in prose.chapters] == [(1, 2), (4, 4)]
    english = parse_library(str(tmp_path / "prefs.md"), "# Preferences\n\n## Editor\n<!-- tags: editor, vim -->\n"
                                                        "- use vim keys\n")
    assert english.chapters[0].tags == ["editor", "vim"] and english.name == "Preferences"


def test_the_index_follows_the_directory_and_reparses_only_changed_files(tmp_path):
    memory = tmp_path / "memory"
    a = write(memory / "a.md", "# A\n\n## one\n- x\n")
    write(memory / "b.md", "# B\n")
    write(memory / "notes.txt", "not a memory file")
    (memory / "bin.md").write_bytes(b"\x00\x01binary")
    index = MemoryIndex(str(memory))
    first = {lib.stem: lib for lib in index.libraries()}
    assert set(first) == {"a", "b"} and "bin.md" in index.problems
    again = {lib.stem: lib for lib in index.libraries()}
    assert again["a"] is first["a"]  # unchanged: not parsed again
    write(a, "# A renamed\n\n## one\n- x\n## two\n")
    os.utime(a, ns=(1, 1))
    renamed = {lib.stem: lib for lib in index.libraries()}
    assert renamed["a"].name == "A renamed" and len(renamed["a"].chapters) == 2
    (memory / "b.md").unlink()
    assert [lib.stem for lib in index.libraries()] == ["a"]


# --- the format guard and confirmed writes -----------------------------------------------------------


@pytest.fixture
def memory_file(tmp_path) -> Path:
    return write(tmp_path / "memory" / "04-projects.md", TAGGED)


def backups(tmp_path) -> Path:
    return tmp_path / "backups"


def test_a_list_chapter_gets_another_item_with_its_marker(tmp_path, memory_file):
    first, last = append_entry(str(memory_file), "game-a / 卡牌游戏", "Boss 战改成三阶段",
                               fingerprint(str(memory_file)), backups(tmp_path))
    lines = memory_file.read_text(encoding="utf-8").splitlines()
    assert (first, last) == (9, 9) and lines[8] == "- Boss 战改成三阶段"
    assert lines[9] == "" and lines[10] == "## 导入性能"  # the next chapter is untouched
    assert list(backups(tmp_path).iterdir())[0].read_text(encoding="utf-8") == TAGGED


def test_a_numbered_chapter_continues_from_its_largest_number(tmp_path, memory_file):
    lib = parse_library(str(memory_file), TAGGED)
    assert detect_format(lib.chapter("导入性能")).next_number == 6
    append_entry(str(memory_file), "导入性能", "看 CPU 温度", fingerprint(str(memory_file)), backups(tmp_path))
    assert "5. 最后看网络\n6. 看 CPU 温度\n" in memory_file.read_text(encoding="utf-8")


def test_a_table_is_refused_and_the_file_is_untouched(tmp_path, memory_file):
    with pytest.raises(MemoryWriteError, match="add the row by hand"):
        append_entry(str(memory_file), "环境表", "rust 1.80", fingerprint(str(memory_file)), backups(tmp_path))
    assert memory_file.read_text(encoding="utf-8") == TAGGED
    assert not backups(tmp_path).exists()


def test_an_empty_chapter_gets_a_list_and_multi_line_text_is_indented(tmp_path, memory_file):
    append_entry(str(memory_file), "空章节", "第一条\n它的第二行", fingerprint(str(memory_file)), backups(tmp_path))
    text = memory_file.read_text(encoding="utf-8")
    assert text.endswith("## 空章节\n\n- 第一条\n  它的第二行\n\n")  # the file's own trailing blank line stays


def test_a_file_changed_since_the_note_was_shown_is_a_conflict(tmp_path, memory_file):
    seen = fingerprint(str(memory_file))
    memory_file.write_text(TAGGED + "\n## 新章节\n", encoding="utf-8")  # the user edited it meanwhile
    with pytest.raises(MemoryConflict, match="changed since this note was shown"):
        append_entry(str(memory_file), "导入性能", "x", seen, backups(tmp_path))
    assert memory_file.read_text(encoding="utf-8") == TAGGED + "\n## 新章节\n"


def test_a_chapterless_file_gets_the_entry_at_its_end_in_its_format(tmp_path):
    path = write(tmp_path / "memory" / "health.md", UNTAGGED_NO_H2)
    append_entry(str(path), "", "stretch after running", fingerprint(str(path)), backups(tmp_path))
    assert path.read_text(encoding="utf-8").endswith("retest in March.\n- stretch after running\n")


def test_crlf_files_keep_their_line_endings(tmp_path):
    path = tmp_path / "memory" / "win.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"# W\r\n\r\n## Tips\r\n- one\r\n")
    append_entry(str(path), "Tips", "two", fingerprint(str(path)), backups(tmp_path))
    assert path.read_bytes() == b"# W\r\n\r\n## Tips\r\n- one\r\n- two\r\n"


# --- the proposal queue ------------------------------------------------------------------------------


def _add_many(path: str, worker: int, count: int) -> None:
    queue = ProposalQueue(Path(path))
    for i in range(count):
        queue.add(clean_proposal(f"worker {worker} item {i}", target="04-projects.md"))


def test_two_writers_lose_nothing_and_equal_proposals_fold(tmp_path):
    path = tmp_path / "data" / "proposals.json"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_add_many, args=(str(path), w, 25)) for w in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
        assert w.exitcode == 0
    queue = ProposalQueue(path)
    assert len(queue.pending()) == 75
    again, new = queue.add(clean_proposal("  WORKER 0   item 3 ", target="04-projects.md"))
    assert not new and len(queue.pending()) == 75
    assert queue.remove(again.id) and len(queue.pending()) == 74


def test_a_damaged_queue_is_set_aside_not_lost(tmp_path):
    path = tmp_path / "proposals.json"
    path.write_text("{not json", encoding="utf-8")
    queue = ProposalQueue(path)
    assert queue.pending() == []
    assert [p.name for p in tmp_path.glob("proposals.json.broken-*")] and "kept as" in queue.warning
    with pytest.raises(ValueError):
        clean_proposal("   ")


def test_the_tag_table_names_libraries(tmp_path, monkeypatch):
    from knit_desktop.core.memory.store import MemoryStore

    home = tmp_path / "knit-home"
    monkeypatch.setenv("KNIT_DESKTOP_HOME", str(home))
    home.mkdir()
    (home / "memory-labels.json").write_text('{"04b-card": "卡牌游戏项目", "bad": 3}', encoding="utf-8")
    write(tmp_path / "memory" / "04b-card.md", "## 规则\n- 回合制\n")
    write(tmp_path / "memory" / "05-other.md", "# Other things\n")
    names = {lib.stem: lib.name for lib in MemoryStore(str(tmp_path / "memory")).libraries()}
    assert names == {"04b-card": "卡牌游戏项目", "05-other": "Other things"}


BOUNDARIES = """---
name: Bug fixes
description: all done 2026-04-20
---

# Notes

> TL;DR: the parser is fixed.

## Bugs
### Bug A: counter never reaches zero
**Problem**: the counter only moves in update_ct.

**Fix**: move it to the end of every step.

### Steps
- one
- two

```python
## not a chapter
x = 1
```

---

A paragraph after the rule.

Its second paragraph.
"""


def test_entries_follow_the_boundaries_people_write(tmp_path):
    lib = parse_library(str(tmp_path / "bugs.md"), BOUNDARIES)
    assert [c.title for c in lib.chapters] == ["Notes", "Bugs"]  # the preamble is a chapter; `## not` is code
    preamble, bugs = lib.chapters
    assert preamble.implicit and [(e.start, e.end, e.style) for e in preamble.entries] == [
        (1, 4, "frontmatter"), (8, 8, "paragraph")]
    spans = [(e.start, e.end) for e in bugs.entries]
    assert spans == [(11, 14), (16, 17), (18, 18), (20, 23), (27, 29)]
    block, first_step = bugs.entries[0], bugs.entries[1]
    assert block.text.startswith("### Bug A") and block.text.endswith("every step.")  # heading with its body
    assert first_step.text == "### Steps\n- one" and bugs.entries[2].heading == "Steps"
    assert bugs.entries[4].text == "A paragraph after the rule.\nIts second paragraph."


LEAD_INS = """# Acceptance

## Runs
**B 层：受控回放测试**

| 用例 | 状态 |
|------|------|
| T07 Skill Runtime e2e | |
| T08 GC-1 | |

Key components:
- `app.py`: the routes
- `agent.py`: the summary agent

**验收**：
```python
assert len(results) == 5
```

A sentence that ends with a colon but says something of its own, so it stays a paragraph of its own:
"""


def test_a_lead_in_line_opens_what_it_introduces(tmp_path):
    # A bold line or a short line ending with a colon introduces the table, list or code under it, as a `###`
    # heading would: it opens the first item (a hit holds the items) and is the context of the ones after it.
    runs = parse_library(str(tmp_path / "acceptance.md"), LEAD_INS).chapters[0]
    spans = [(e.start, e.end, e.style, e.lead) for e in runs.entries]
    assert spans == [(4, 8, "table", True), (9, 9, "table", False), (11, 12, "list", True),
                     (13, 13, "list", False), (15, 18, "code", True), (20, 20, "paragraph", False)]
    first_row, second_row, first_item, second_item = runs.entries[:4]
    assert first_row.text == "**B 层：受控回放测试**\n| T07 Skill Runtime e2e | |" and first_row.opened_by_heading
    assert second_row.lead_in == "B 层：受控回放测试" and second_item.lead_in == "Key components"
    assert first_item.text.startswith("Key components:\n- `app.py`")


def test_a_list_under_a_lead_in_keeps_its_marker(tmp_path):
    # The first item carries the lead-in line that opened it; the marker is read from the item, not from that line.
    path = write(tmp_path / "memory" / "notes.md", "# Notes\n\n## Decisions\n**Agreed:**\n* ship on Fridays\n")
    start, _ = append_entry(str(path), "Decisions", "no deploys on holidays", fingerprint(str(path)), backups(tmp_path))
    assert path.read_text(encoding="utf-8").splitlines()[start - 1] == "* no deploys on holidays"
