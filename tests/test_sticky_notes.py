"""Sticky notes for memory proposals: shown from the queue, dragged, kept on screen, confirming and dismissing."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import QPoint, QRect, QSize, Qt

from knit_desktop.core.memory.store import MemoryStore
from knit_desktop.ui.memory_notes import MemoryNotes
from knit_desktop.ui.sticky_note import clamp_to

from .test_window import SCREENSHOTS, distinct_colours

PREFS = "# 偏好\n\n## AI 工具和渠道\n<!-- 标签: 模型, 工具 -->\n- 默认用 deepseek-chat\n\n## 编辑器\n1. vim 键位\n"


@pytest.fixture
def notes(qtbot, tmp_path, settings):
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "preferences.md").write_text(PREFS, encoding="utf-8")
    store = MemoryStore(str(memory), data_dir=tmp_path / "data")
    controller = MemoryNotes(store, settings)
    yield controller
    controller.stop()


def test_a_queued_proposal_appears_on_a_note_with_its_target_chosen(qtbot, notes):
    notes.store.propose("以后别用 agentrouter 当默认模型了", "preferences.md", "AI 工具和渠道", "preference")
    notes.store.propose("编辑器字体 14 号", "preferences.md", "编辑器", "preference")
    notes.start()
    note = notes.note
    qtbot.waitUntil(note.isVisible, timeout=3000)
    assert note.text.toPlainText() == "以后别用 agentrouter 当默认模型了"
    assert note.target.currentData() == ("preferences.md", "AI 工具和渠道")
    assert note.count.text() == "1 / 2" and note.kind.text() == "Preference"
    assert [note.target.itemText(i) for i in range(note.target.count())] == ["偏好 › AI 工具和渠道", "偏好 › 编辑器"]


def test_remember_writes_the_edited_entry_in_the_chapter_format_and_shows_the_next(qtbot, notes, tmp_path):
    notes.store.propose("以后别用 agentrouter 当默认模型了", "preferences.md", "AI 工具和渠道", "preference")
    notes.store.propose("编辑器字体 14 号", "preferences.md", "编辑器")
    notes.start()
    note = notes.note
    qtbot.waitUntil(note.isVisible, timeout=3000)
    note.text.setPlainText("默认模型不用 agentrouter")  # the user edits before confirming
    qtbot.mouseClick(note.remember_button, Qt.MouseButton.LeftButton)
    text = (tmp_path / "memory" / "preferences.md").read_text(encoding="utf-8")
    assert "- 默认用 deepseek-chat\n- 默认模型不用 agentrouter\n" in text
    assert not note.isVisible()
    note = notes.note
    assert note.text.toPlainText() == "编辑器字体 14 号" and note.count.text() == ""  # the next one, now alone
    qtbot.mouseClick(note.remember_button, Qt.MouseButton.LeftButton)  # same file: no false conflict
    assert (tmp_path / "memory" / "preferences.md").read_text(encoding="utf-8").endswith("1. vim 键位\n2. 编辑器字体 14 号\n")
    assert not notes.note.isVisible() and notes.store.queue.pending() == []


def test_pending_proposals_stack_one_window_each_with_their_count(qtbot, notes, settings):
    settings.note_position = (400, 300)
    for text in ("one", "two", "three"):
        notes.store.propose(text, "preferences.md", "编辑器")
    notes.start()
    qtbot.waitUntil(lambda: len(notes.notes) == 3 and all(n.isVisible() for n in notes.notes.values()), timeout=3000)
    front, second, third = notes.notes.values()
    assert [n.text.toPlainText() for n in (front, second, third)] == ["one", "two", "three"]
    assert [n.count.text() for n in (front, second, third)] == ["1 / 3", "2 / 3", "3 / 3"]
    assert front.pos() == QPoint(400, 300) and second.pos() == QPoint(390, 290) and third.pos() == QPoint(380, 280)
    qtbot.mouseClick(second.dismiss_button, Qt.MouseButton.LeftButton)  # any note of the stack can be answered
    assert [n.text.toPlainText() for n in notes.notes.values()] == ["one", "three"]
    assert notes.note.count.text() == "1 / 2"


def test_dismiss_writes_nothing(qtbot, notes, tmp_path):
    notes.store.propose("something not worth keeping", "preferences.md", "编辑器")
    notes.start()
    qtbot.waitUntil(notes.note.isVisible, timeout=3000)
    qtbot.mouseClick(notes.note.dismiss_button, Qt.MouseButton.LeftButton)
    assert (tmp_path / "memory" / "preferences.md").read_text(encoding="utf-8") == PREFS
    assert notes.store.queue.pending() == [] and not notes.note.isVisible()


def test_a_file_edited_while_the_note_was_up_is_a_conflict_then_confirming_again_writes(qtbot, notes, tmp_path):
    notes.store.propose("vim 键位也用在浏览器", "preferences.md", "编辑器")
    notes.start()
    qtbot.waitUntil(notes.note.isVisible, timeout=3000)
    path = tmp_path / "memory" / "preferences.md"
    path.write_text(PREFS + "2. 手动加的一条\n", encoding="utf-8")
    qtbot.mouseClick(notes.note.remember_button, Qt.MouseButton.LeftButton)
    assert "changed since this note was shown" in notes.note.message.text()
    assert path.read_text(encoding="utf-8") == PREFS + "2. 手动加的一条\n"
    qtbot.mouseClick(notes.note.remember_button, Qt.MouseButton.LeftButton)  # seen: now it writes
    assert path.read_text(encoding="utf-8").endswith("2. 手动加的一条\n3. vim 键位也用在浏览器\n")


def test_the_note_is_dragged_by_hand_where_there_is_no_system_move_and_remembers_its_place(qtbot, notes, settings):
    notes.store.propose("drag me", "preferences.md", "编辑器")
    notes.start()
    note = notes.note
    qtbot.waitUntil(note.isVisible, timeout=3000)
    note.move(100, 100)
    start = note.pos()
    qtbot.mousePress(note, Qt.MouseButton.LeftButton, pos=QPoint(20, 12))
    qtbot.mouseMove(note, QPoint(80, 52))
    qtbot.mouseRelease(note, Qt.MouseButton.LeftButton, pos=QPoint(80, 52))
    assert note.moved_by_hand  # offscreen has no system move: the fallback did it
    assert note.pos() == start + QPoint(60, 40)
    assert settings.note_position == (note.x(), note.y())


def test_positions_are_kept_inside_the_screen(qtbot, notes, settings):
    assert clamp_to(QRect(0, 0, 800, 600), QPoint(780, 590), QSize(300, 190)) == QPoint(500, 410)
    assert clamp_to(QRect(0, 0, 800, 600), QPoint(-50, -20), QSize(300, 190)) == QPoint(0, 0)
    settings.note_position = (50_000, 50_000)  # left on a larger screen that is gone now
    notes.store.propose("where am I", "preferences.md", "编辑器")
    notes.start()
    qtbot.waitUntil(notes.note.isVisible, timeout=3000)
    area = notes.note.screen().availableGeometry()
    assert area.contains(notes.note.frameGeometry())


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_screenshot_of_a_note(qtbot, tmp_path, notes, settings, language):
    from knit_desktop.ui.i18n import LanguageSwitcher

    switcher = LanguageSwitcher()
    switcher.apply(language)
    try:
        settings.note_colour = "amber"
        notes.store.propose("以后别用 agentrouter 当默认模型了", "preferences.md", "AI 工具和渠道", "preference")
        notes.start()
        qtbot.waitUntil(notes.note.isVisible, timeout=3000)
        qtbot.wait(50)
        image = notes.note.grab().toImage()
        assert distinct_colours(image, step=3) > 5
        suffix = "zh" if language == "zh_CN" else "en"
        assert image.save(str(tmp_path / f"note-{suffix}.png"))
        if os.environ.get("KNIT_UPDATE_SCREENSHOTS") == "1":
            image.save(str(SCREENSHOTS / f"note-{suffix}.png"))
        expected = "记住" if language == "zh_CN" else "Remember"
        assert notes.note.remember_button.text() == expected
    finally:
        switcher.clear()


def test_saying_remember_this_in_the_followed_session_offers_a_note(qtbot, tmp_path, settings, make_workspace):
    from knit_desktop.ui.app import KnitApp

    from .dsh_fixtures import DshLog

    ws = make_workspace({"a.md": "# A\n"}, name="proj")
    home = tmp_path / "dsh"
    (home / "memory").mkdir(parents=True)
    (home / "memory" / "work.md").write_text("# 工作\n\n## 周报\n- 周五交\n", encoding="utf-8")
    log = DshLog(home, "s1", str(ws))
    log.append_rows([log.user("我们看看周报")])
    knit = KnitApp(workspace=None, dsh_home=str(home), messages=None, settings=settings, persistent=False)
    try:
        qtbot.waitUntil(lambda: knit.ranking.session is not None, timeout=10_000)
        assert knit.memory.queue.pending() == []  # what was said before Knit looked is not re-offered
        log.append_rows([log.user("记一下：周报改成周四下午发")])
        qtbot.waitUntil(lambda: knit.notes.note.isVisible(), timeout=10_000)
        pending = knit.memory.queue.pending()
        assert [(p.text, p.source) for p in pending] == [("记一下：周报改成周四下午发", "conversation")]
        assert knit.notes.note.target.currentData() == ("work.md", "周报")
    finally:
        knit.close()


def test_templates_never_overwrite_and_say_what_they_did(tmp_path):
    from knit_desktop.core.memory.library import parse_library
    from knit_desktop.core.memory.templates import create_templates

    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "02-项目.md").write_text("# 我自己的项目\n", encoding="utf-8")
    result = create_templates(str(memory), "three")
    assert result.created == ["01-偏好.md", "03-环境.md"] and result.left_alone == ["02-项目.md"]
    assert (memory / "02-项目.md").read_text(encoding="utf-8") == "# 我自己的项目\n"
    more = create_templates(str(memory), "eight")
    assert len(more.created) == 5 and sorted(more.left_alone) == ["01-偏好.md", "02-项目.md", "03-环境.md"]
    english = create_templates(str(tmp_path / "en"), "english")
    lib = parse_library(str(tmp_path / "en" / "projects.md"), (tmp_path / "en" / "projects.md").read_text("utf-8"))
    assert english.created == ["preferences.md", "projects.md", "environment.md"]
    assert lib.tags == ["projects"] and [c.title for c in lib.chapters] == ["In progress", "Done"]


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_structure_panel_lists_the_largest_first_searches_and_offers_templates(qtbot, tmp_path, language):
    from knit_desktop.ui.i18n import LanguageSwitcher
    from knit_desktop.ui.memory_panel import MemoryPanel

    switcher = LanguageSwitcher()
    switcher.apply(language)
    try:
        memory = tmp_path / "memory"
        store = MemoryStore(str(memory), data_dir=tmp_path / "data")
        panel = MemoryPanel(store)
        qtbot.addWidget(panel)
        panel.show()
        assert panel.empty.isVisible() and not panel.tree.isVisible()
        suffix = "zh" if language == "zh_CN" else "en"
        panel.grab().toImage().save(str(tmp_path / f"memory-empty-{suffix}.png"))
        qtbot.mouseClick(panel.template_buttons["three"], Qt.MouseButton.LeftButton)
        assert "01-偏好.md" in panel.result.text()
        (memory / "big.md").write_text("# Big\n<!-- tags: notes -->\n\n## Pile\n" + "- a long line of notes\n" * 40,
                                       encoding="utf-8")
        panel.reload()
        assert panel.tree.isVisible() and panel.tree.topLevelItem(0).text(1) == "big.md"  # the largest first
        assert panel.tree.topLevelItemCount() == 4
        pile = panel.tree.topLevelItem(0).child(0)
        assert pile.text(0) == "Pile" and pile.text(1) == "4–44"
        panel.search.setText("环境" if language == "zh_CN" else "pile")
        visible = [panel.tree.topLevelItem(i).text(0) for i in range(4) if not panel.tree.topLevelItem(i).isHidden()]
        assert visible == (["环境"] if language == "zh_CN" else ["Big"])
        panel.search.clear()
        image = panel.grab().toImage()
        assert distinct_colours(image, step=3) > 5
        image.save(str(tmp_path / f"memory-{suffix}.png"))
        if os.environ.get("KNIT_UPDATE_SCREENSHOTS") == "1":
            image.save(str(SCREENSHOTS / f"memory-{suffix}.png"))
    finally:
        switcher.clear()
