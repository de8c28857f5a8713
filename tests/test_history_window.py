"""The History view and the recall strip in the running app (issue 18): every button clicked, both languages,
screenshots written to the test's temp dir (and to docs/screenshots with KNIT_UPDATE_SCREENSHOTS=1)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication

from knit_desktop.ui.app import KnitApp

from .dsh_fixtures import DshLog
from .test_window import SCREENSHOTS


def conversation(home: Path, project: Path) -> DshLog:
    older = DshLog(home, "s-older", str(project))
    older.append_rows([older.title("Cache design"),
                       older.user("Let's move the attachment cache to a content-addressed store."),
                       older.assistant("Agreed: thumbnails keyed by sha256, evicted least-recently-used at 2 GB."),
                       older.user("数据库迁移放在下周三，先备份生产库。"),
                       older.assistant("好的，迁移前先做一次全量备份，备份放在 /backup/prod。")])
    for i in range(6):
        older.append_rows([older.user(f"Unrelated step {i}: rename the settings keys."),
                           older.assistant(f"Renamed batch {i}.")])
    live = DshLog(home, "s-live", str(project))
    live.append_rows([live.title("Release prep"), live.user("Let's prepare the release notes."),
                      live.assistant("Drafted the release notes.")])
    os.utime(live.path, ns=(2_000_000_000_000_000_000,) * 2)  # the followed session
    return live


@pytest.fixture
def app(qtbot, tmp_path, settings):
    home, project = tmp_path / "dsh", tmp_path / "project"
    project.mkdir()
    (project / "notes.md").write_text("# Notes\n\nrelease notes draft\n", encoding="utf-8")
    live = conversation(home, project)
    knit = KnitApp(workspace=str(project), dsh_home=str(home), messages=None, settings=settings, persistent=False)
    knit.window.resize(520, 820)
    knit.window.show()
    yield knit, live
    knit.close()


def wait_indexed(qtbot, panel) -> None:
    qtbot.waitUntil(lambda: panel._indexed is not None and panel._indexed["messages"] >= 18, timeout=15_000)


def test_search_open_read_further_and_copy_a_quote(qtbot, app):
    knit, _ = app
    knit.window.action_history.trigger()  # the ⋯ menu's "Conversation history…"
    panel = knit._history_panel
    assert panel is not None and panel.isVisible()
    wait_indexed(qtbot, panel)
    assert "indexed" in panel.status.text()
    panel.scope.setCurrentIndex(2)  # all conversations
    qtbot.keyClicks(panel.query, "attachmnet cahce")  # two typos
    qtbot.mouseClick(panel.search_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.results.topLevelItemCount() > 0, timeout=10_000)
    session = panel.results.topLevelItem(0)
    assert session.text(0).startswith("Cache design")
    event = session.child(0)
    assert "fuzzy match" in event.text(0)
    snippet = panel.results.itemWidget(event.child(0), 0)
    assert "<b style" in snippet.text() and "attachment" in snippet.text()
    assert panel.open_button.isEnabled() and not panel.earlier_button.isEnabled()

    qtbot.mouseClick(panel.open_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "content-addressed" in panel.transcript.toPlainText(), timeout=10_000)
    shown = panel.transcript.toPlainText()
    assert "Unrelated step 0" not in shown  # ±3 turns only
    qtbot.mouseClick(panel.later_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Unrelated step 1" in panel.transcript.toPlainText(), timeout=10_000)
    qtbot.mouseClick(panel.earlier_button, Qt.MouseButton.LeftButton)  # already at the start: nothing lost
    qtbot.wait(200)
    assert "content-addressed" in panel.transcript.toPlainText()

    panel.results.setCurrentItem(event.child(0))
    qtbot.mouseClick(panel.copy_button, Qt.MouseButton.LeftButton)
    copied = QGuiApplication.clipboard().text()
    assert copied.startswith("> Let's move the attachment cache") and "— Cache design, #" in copied
    assert panel.status.text() == "Quote copied."


def test_this_conversation_scope_and_an_empty_query(qtbot, app):
    knit, _ = app
    knit.show_history()
    panel = knit._history_panel
    wait_indexed(qtbot, panel)
    qtbot.mouseClick(panel.search_button, Qt.MouseButton.LeftButton)
    assert "Type what you remember" in panel.status.text()
    panel.scope.setCurrentIndex(0)  # the followed conversation only
    qtbot.keyClicks(panel.query, "content-addressed")
    qtbot.keyClick(panel.query, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: panel.status.text().startswith("Nothing found"), timeout=10_000)
    panel.scope.setCurrentIndex(1)  # this workspace: the older session too
    qtbot.mouseClick(panel.search_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.results.topLevelItemCount() == 1, timeout=10_000)
    assert "exact words" in panel.results.topLevelItem(0).child(0).text(0)


def test_the_recall_strip_appears_when_a_new_message_refers_back(qtbot, app):
    knit, live = app
    strip = knit.window.recall_strip
    knit.show_history()
    wait_indexed(qtbot, knit._history_panel)
    knit._history_panel.hide()
    live.append_rows([live.user("Let's add a changelog section.")])  # no cue: nothing
    qtbot.wait(800)
    assert not strip.isVisible()
    live.append_rows([live.user("As we discussed last time, the content-addressed store — is it done?")])
    qtbot.waitUntil(strip.isVisible, timeout=10_000)
    assert "From earlier conversations" in strip.label.text() and "Cache design" in strip.label.text()
    qtbot.mouseClick(strip.open_button, Qt.MouseButton.LeftButton)
    panel = knit._history_panel
    qtbot.waitUntil(lambda: panel.isVisible() and "content-addressed" in panel.transcript.toPlainText(),
                    timeout=10_000)
    qtbot.mouseClick(strip.dismiss_button, Qt.MouseButton.LeftButton)
    assert not strip.isVisible()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_screenshots_of_the_history_view_and_the_recall_strip(qtbot, tmp_path, app, settings, language):
    knit, live = app
    settings.language = language
    knit.show_history()
    panel = knit._history_panel
    wait_indexed(qtbot, panel)
    panel.scope.setCurrentIndex(2)
    panel.query.setText("数剧库迁移 备份")  # QTest types Latin-1 only; an input method would commit this text
    qtbot.mouseClick(panel.search_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.results.topLevelItemCount() > 0, timeout=10_000)
    qtbot.mouseClick(panel.open_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "全量备份" in panel.transcript.toPlainText(), timeout=10_000)
    live.append_rows([live.user("之前说的数据库迁移，备份做了吗？")])
    qtbot.waitUntil(knit.window.recall_strip.isVisible, timeout=10_000)
    qtbot.wait(100)
    suffix = "zh" if language == "zh_CN" else "en"
    shots = {"history": panel.grab().toImage(), "recall-strip": knit.window.grab().toImage()}
    for name, image in shots.items():
        assert not image.isNull() and image.width() > 400
        assert image.save(str(tmp_path / f"{name}-{suffix}.png"))
    if os.environ.get("KNIT_UPDATE_SCREENSHOTS") == "1":  # the README shows the panel
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shots["history"].save(str(SCREENSHOTS / f"history-{suffix}.png"))
    expected = ("搜索", "复制引文") if language == "zh_CN" else ("Search", "Copy quote")
    assert (panel.search_button.text(), panel.copy_button.text()) == expected


def test_the_transcript_reads_in_a_dark_palette(qtbot, tmp_path, app):
    """The found turns, searched words and turn numbers take their colours from the palette (fixed light colours
    put light text on a near-white background in a dark theme)."""
    from knit_desktop.ui.colours import contrast, history_colours

    from .test_contrast import dark_palette

    knit, _live = app
    application = QGuiApplication.instance()
    before = application.palette()
    application.setPalette(dark_palette())
    try:
        knit.show_history()
        panel = knit._history_panel
        wait_indexed(qtbot, panel)
        panel.scope.setCurrentIndex(2)
        qtbot.keyClicks(panel.query, "content-addressed")
        qtbot.mouseClick(panel.search_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: panel.results.topLevelItemCount() > 0, timeout=10_000)
        qtbot.mouseClick(panel.open_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "content-addressed" in panel.transcript.toPlainText(), timeout=10_000)
        colours = history_colours(panel.transcript.palette())
        html = panel.transcript.toHtml().lower()
        for fixed in ("#f2f6ff", "#ffe58a", "#888888"):
            assert fixed not in html
        assert colours.focus_background in html and colours.soft in html
        text = panel.transcript.palette().color(panel.transcript.foregroundRole())
        assert contrast(text, QColor(colours.focus_background)) >= 4.5
        assert panel.grab().toImage().save(str(tmp_path / "history-dark.png"))
    finally:
        application.setPalette(before)


def test_the_service_reads_an_append_when_the_watcher_reports_it(qtbot, tmp_path):
    """No full look for 30 s: an appended message found within seconds came through the file watcher."""
    from knit_desktop.services.history import FULL_LOOK_MS, HistoryService

    home = tmp_path / "dsh"
    log = DshLog(home, "s1", "/w")
    log.append_rows([log.user("first words")])
    service = HistoryService(str(home), str(tmp_path / "history.sqlite3"))
    answers: list = []
    service.answered.connect(lambda _token, answer: answers.append(answer))
    service.start()
    try:
        qtbot.waitUntil(lambda: service.last_indexed is not None, timeout=10_000)
        log.append_rows([log.user("a wallaby appeared")])
        appended = time.monotonic()

        def found() -> bool:
            answers.clear()
            service.search("wallaby", "all")
            qtbot.waitUntil(lambda: bool(answers), timeout=5000)
            return bool(answers[0]["payload"]["sessions"])

        qtbot.waitUntil(found, timeout=FULL_LOOK_MS // 3)
        assert time.monotonic() - appended < FULL_LOOK_MS / 1000 / 3
        service.search("x", "session", "nope")
        qtbot.waitUntil(lambda: answers and "error" in (answers[-1] or {}), timeout=5000)
    finally:
        assert service.stop()
