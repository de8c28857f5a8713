"""The companion window, driven as a user would: the demo workspace, its conversation, keys and clicks."""

from __future__ import annotations

import gc
import os
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QColor, QImage, QTextDocument
from PySide6.QtWidgets import QApplication

from knit_desktop.core.dsh.conversation import load_messages
from knit_desktop.core.rank.context_pack import ContextPack
from knit_desktop.core.view import RankedRows, ViewResult, ViewRow
from knit_desktop.core.workspace import RankInput, Workspace
from knit_desktop.demo import prepare_demo_workspace
from knit_desktop.resources import demo_conversation
from knit_desktop.ui.app import KnitApp
from knit_desktop.ui.document_model import DocumentListModel, KeyRole, build_rows
from knit_desktop.ui.settings import Settings
from knit_desktop.ui.tray import TrayPeek

from .dsh_fixtures import DshLog

REPO = Path(__file__).resolve().parent.parent
# The README's screenshots; `make screenshots` (KNIT_UPDATE_SCREENSHOTS=1) writes them here, or into
# KNIT_SCREENSHOTS_DIR (to look at them at another scale factor without touching the README's).
SCREENSHOTS = Path(os.environ.get("KNIT_SCREENSHOTS_DIR") or REPO / "docs" / "screenshots")


def wall_ms() -> int:
    return int(time.time() * 1000)


@pytest.fixture
def demo_ws(tmp_path) -> Path:
    return prepare_demo_workspace(wall_ms(), dest=tmp_path / "demo")


@pytest.fixture
def open_app(qtbot, tmp_path, demo_ws, settings):
    """Open the window on the demo workspace and conversation; every app opened is closed at the end."""
    opened: list[KnitApp] = []

    def open_one(**options) -> KnitApp:
        knit = KnitApp(workspace=str(demo_ws), dsh_home=str(tmp_path / "no-dsh"),
                       messages=options.pop("messages", load_messages(str(demo_conversation()))),
                       settings=options.pop("settings", settings), persistent=False)
        opened.append(knit)
        knit.window.resize(480, 820)
        knit.window.show()
        qtbot.waitUntil(lambda: knit.window.model.shown > 0, timeout=15_000)
        return knit

    yield open_one
    for knit in opened:
        knit.close()


def doc_rels(model: DocumentListModel) -> list[str]:
    return [model.rows[i].rel for i in model.document_rows()]


def demo_view(demo_ws: Path, request: RankInput, sort: str = "relevance") -> tuple[ViewResult, ContextPack]:
    """What the window is given for the demo workspace, and the context pack ranked on its own to compare."""
    workspace = Workspace.open(str(demo_ws))
    try:
        now = wall_ms()
        return (workspace.view(request, now_ms=now, sort=sort, with_context=True),
                workspace.context(request, now_ms=now))
    finally:
        workspace.close()


def press(qtbot, widget, key) -> None:
    qtbot.keyClick(widget, key)


# --- the model, without a window ---------------------------------------------------------------------


def test_model_groups_the_context_tiers_numbers_them_and_lists_the_others_after(demo_ws):
    result, context = demo_view(demo_ws, RankInput.from_messages(load_messages(str(demo_conversation()))))
    rows, total = build_rows(result.docs)
    in_tiers = [item.record.doc.rel for item in context.items()]
    others = [r.rel for r in result.docs.rows if r.rel not in in_tiers]

    assert total == len(result.docs.rows) == result.docs.total
    assert [r.rel for r in rows if not r.is_header] == in_tiers + others
    assert [r.tier for r in rows if r.is_header] == ["primary", "supporting", "related", "other"]
    assert [r.item.number for r in rows if r.rel in in_tiers] == list(range(1, len(in_tiers) + 1))
    assert all(r.item.number == 0 and r.tier == "" for r in rows if r.rel in others)
    headers = [i for i, r in enumerate(rows) if r.is_header]
    assert rows[headers[0] + 1].rel == context.primary[0].record.doc.rel == "docs/attachment-cache.md"
    assert rows[headers[1]].count == len(context.supporting)
    assert rows[headers[0] + 1].item.reason.code == "direct"  # the "why it is here" line has its facts


def test_model_in_time_order_is_one_flat_list_newest_first(demo_ws):
    result, _ = demo_view(demo_ws, RankInput.from_query("attachment cache"), sort="time")
    rows, _ = build_rows(result.docs)
    assert not any(r.is_header for r in rows)
    mtimes = [r.item.mtime_ms for r in rows]
    assert mtimes == sorted(mtimes, reverse=True)


def test_a_list_of_thousands_keeps_no_row_object_per_document_and_finds_each_row(qtbot):
    """A ranking lists every document and the list is rebuilt on the GUI thread for each new one: its rows are
    made as they are read, each at the position a header-per-tier list puts it."""
    tiers = ["pinned"] * 2 + ["primary"] * 3 + ["related"] * 2
    docs = tuple(ViewRow(f"docs/{n}.md", "md", f"Title {n}", f"summary {n}", n, tier=tier, number=n + 1)
                 for n, tier in enumerate(tiers))
    docs += tuple(ViewRow(f"notes/{n}.md", "md", f"Note {n}", "", n) for n in range(20_000))
    docs += (ViewRow("shelf/a.md", "md", "Shelf", "", 0, source="Shelf", root="/books"),)
    ranked = RankedRows("relevance", "t", (), len(docs), docs, tiered=True)
    model = DocumentListModel()
    gc.collect()
    gc.disable()
    try:
        before = len(gc.get_objects())
        model.set_ranked(ranked, 0)
        assert len(gc.get_objects()) - before < 100
    finally:
        gc.enable()
    rows = model.rows
    assert len(rows) == len(docs) + 4 == model.rowCount()
    assert [(i, rows[i].tier, rows[i].count) for i in (0, 3, 7, 10)] == [
        (0, "pinned", 2), (3, "primary", 3), (7, "related", 2), (10, "other", 20_001)]
    assert [rows[i].rel for i in (1, 2, 4, 6, 8, 9, 11)] == [
        "docs/0.md", "docs/1.md", "docs/2.md", "docs/4.md", "docs/5.md", "docs/6.md", "notes/0.md"]
    assert rows[11].tier == "" and rows[4].tier == "primary" and rows[-1].rel == "shelf/a.md"
    assert model.row_of("notes/19999.md") == len(rows) - 2
    assert model.row_of("/books/shelf/a.md") == len(rows) - 1 and model.row_of("shelf/a.md") == -1
    assert model.row_of("docs/5.md") == 8
    assert model.document_rows()[:8] == [1, 2, 4, 5, 6, 8, 9, 11] and len(model.document_rows()) == len(docs)
    assert model.index(8).data(KeyRole) == "docs/5.md"
    model.set_filter("note 12345")  # a header only for the tiers the filter leaves rows in
    assert [(r.tier, r.rel) for r in model.rows] == [("", "notes/12345.md")]
    model.set_filter("title 4")
    assert [(r.tier, r.rel) for r in model.rows] == [("primary", ""), ("primary", "docs/4.md")]
    model.set_filter("shelf")
    assert [(r.tier, r.rel) for r in model.rows] == [("", "shelf/a.md")]
    model.set_filter("")
    model.cap = 3  # the All view shows the first few, without headers
    model.set_ranked(ranked, 0)
    assert [(r.tier, r.rel) for r in model.rows] == [("pinned", "docs/0.md"), ("pinned", "docs/1.md"),
                                                      ("primary", "docs/2.md")]
    assert model.matching == len(docs)


def test_filter_is_live_over_title_summary_and_path_and_the_count_says_so(demo_ws):
    result, _ = demo_view(demo_ws, RankInput.from_messages(load_messages(str(demo_conversation()))))
    model = DocumentListModel()
    model.set_ranked(result.docs, wall_ms())
    everything = model.shown
    assert model.count_text() == f"{everything} docs"

    model.set_filter("docs/zh/")  # a path
    assert doc_rels(model) and all(rel.startswith("docs/zh/") for rel in doc_rels(model))
    assert model.count_text() == f"{model.shown} / {everything} docs"
    model.set_filter("ATTACHMENT CACHE")  # a title, case-insensitive
    assert "docs/attachment-cache.md" in doc_rels(model)
    assert all(model.rows[i + 1].is_header is False for i, r in enumerate(model.rows) if r.is_header)  # no empty tier
    model.set_filter("release checklist says")  # words from a summary only
    assert doc_rels(model) == ["docs/onboarding.md"]
    model.set_filter("no document says this")
    assert model.rowCount() == 0 and model.count_text() == f"0 / {everything} docs"
    model.set_filter("")
    assert model.shown == everything


# --- the window -------------------------------------------------------------------------------------


def test_window_lists_the_tiers_and_the_keys_move_skip_headers_and_toggle_the_preview(qtbot, open_app):
    knit = open_app()
    window, view = knit.window, knit.window.list
    model = window.model
    assert window.topic_label.text() == "Sorted by relevance"
    assert "cache" in window.topic_label.toolTip()
    assert model.rows[0].is_header and model.rows[0].tier == "primary"
    assert window.count_label.text() == f"{model.total} docs"

    view.setFocus()
    press(qtbot, view, Qt.Key.Key_Down)  # nothing selected yet: the first document
    assert view.current_key() == "docs/attachment-cache.md"
    assert window.preview.isVisible()  # moving previews
    press(qtbot, view, Qt.Key.Key_Down)  # skips the "Supporting" header
    assert view.currentIndex().row() == model.document_rows()[1]
    press(qtbot, view, Qt.Key.Key_End)
    assert view.current_key() == doc_rels(model)[-1]
    press(qtbot, view, Qt.Key.Key_Down)  # no wrap at the end
    assert view.current_key() == doc_rels(model)[-1]
    press(qtbot, view, Qt.Key.Key_Home)
    press(qtbot, view, Qt.Key.Key_Up)  # nor at the top
    assert view.current_key() == "docs/attachment-cache.md"

    press(qtbot, view, Qt.Key.Key_Return)  # Enter toggles the preview
    assert not window.preview.isVisible()
    press(qtbot, view, Qt.Key.Key_Return)
    assert window.preview.isVisible() and window.preview.rel == "docs/attachment-cache.md"

    window.preview.set_fullscreen(True)  # Esc leaves fullscreen first, then closes the preview
    assert not window.list.isVisible()
    press(qtbot, window, Qt.Key.Key_Escape)
    assert window.list.isVisible() and window.preview.isVisible()
    press(qtbot, window, Qt.Key.Key_Escape)
    assert not window.preview.isVisible()

    index = model.index(model.document_rows()[0])
    assert "Attachment cache" in index.data(Qt.ItemDataRole.AccessibleTextRole)
    assert "Primary" in index.data(Qt.ItemDataRole.AccessibleTextRole)


def test_the_filter_box_filters_live_and_esc_clears_it(qtbot, open_app):
    knit = open_app()
    window = knit.window
    everything = window.model.shown
    qtbot.keyClicks(window.filter_box, "zh/")
    assert 0 < window.model.shown < everything
    assert window.count_label.text() == f"{window.model.shown} / {everything} docs"
    press(qtbot, window.filter_box, Qt.Key.Key_Down)  # ↓ in the filter goes to the list
    assert window.list.current_key().startswith("docs/zh/")
    window.filter_box.setFocus()
    window.filter_box.selectAll()
    qtbot.keyClicks(window.filter_box, "nothing like this")
    assert window.model.rowCount() == 0 and "nothing like this" in window.list.empty_text
    press(qtbot, window.filter_box, Qt.Key.Key_Escape)
    assert window.filter_box.text() == "" and window.model.shown == everything


def test_down_from_the_filter_lands_on_the_first_match_even_when_it_is_current(qtbot, open_app):
    knit = open_app()
    window = knit.window
    window.list.select_first()
    first = window.list.current_key()
    window.filter_box.setFocus()
    qtbot.keyClicks(window.filter_box, first.rsplit("/", 1)[-1][:6])  # a filter the current document passes
    rows = window.list.selectable_rows()
    assert len(rows) >= 1 and window.list.current_key() == first
    press(qtbot, window.filter_box, Qt.Key.Key_Down)
    assert window.list.current_key() == window.model.index(rows[0]).data(KeyRole)


def test_a_rerank_keeps_the_selection_on_the_same_document(qtbot, open_app):
    knit = open_app()
    window = knit.window
    target = "docs/zh/搜索与索引.md"
    assert window.list.select_key(target)
    before = window.model.row_of(target)
    rankings = []
    knit.ranking.rankingChanged.connect(rankings.append)
    qtbot.keyClicks(window.topic_box, "search index tokenizer")  # the typed topic re-ranks after a pause
    qtbot.waitUntil(lambda: bool(rankings) and window.model.row_of(target) != before, timeout=10_000)
    assert window.list.current_key() == target
    assert window.preview.rel == target


def test_the_splitter_ratio_is_clamped_and_remembered(qtbot, open_app, settings):
    knit = open_app()
    window = knit.window
    window.list.select_first()
    qtbot.waitUntil(window.preview.isVisible)
    assert window.preview_ratio() == pytest.approx(0.46, abs=0.02)  # the default
    total = sum(window.splitter.sizes())
    window.splitter.moveSplitter(int(total * 0.05), 1)  # drag the preview up to nearly the whole height
    assert window.preview_ratio() == pytest.approx(0.8, abs=0.02)
    assert settings.preview_ratio == pytest.approx(0.8, abs=0.02)
    window.splitter.moveSplitter(int(total * 0.97), 1)  # and down to nearly nothing
    assert 0.2 <= window.preview_ratio() <= 0.24  # (the preview's own minimum height may stop it a little earlier)
    assert 0.2 <= settings.preview_ratio <= 0.24
    window.splitter.moveSplitter(int(total * 0.65), 1)
    remembered = settings.preview_ratio
    assert remembered == pytest.approx(0.35, abs=0.03)

    knit.close()  # quit: the last position, still in the write debounce, reaches the file
    again = open_app(settings=Settings(settings.path))  # a new window over the same settings file
    again.window.list.select_first()
    qtbot.waitUntil(again.window.preview.isVisible)
    assert again.window.preview_ratio() == pytest.approx(remembered, abs=0.02)


def test_markdown_preview_shows_relative_images_and_follows_links_to_workspace_documents(qtbot, open_app):
    knit = open_app()
    window, preview = knit.window, knit.window.preview
    window.show_document("docs/architecture.md")
    qtbot.waitUntil(lambda: preview.stack.currentWidget() is preview.browser, timeout=10_000)
    document = preview.browser.document()
    assert "Architecture" in document.toPlainText()
    data = preview.browser.loadResource(QTextDocument.ResourceType.ImageResource, QUrl("../assets/attachment-flow.svg"))
    image = QImage.fromData(data)
    assert not image.isNull() and image.width() > 50  # the SVG, resolved against the document's folder and decoded
    assert "attachment-flow.svg" in document.toHtml()

    preview._on_link(QUrl("attachment-cache.md"))  # a link in the text to another workspace document
    qtbot.waitUntil(lambda: preview.rel == "docs/attachment-cache.md" and "Eviction" in document.toPlainText(),
                    timeout=10_000)
    assert window.list.current_key() == "docs/attachment-cache.md"  # listed documents are selected too


def test_the_matched_passage_is_highlighted(qtbot, open_app):
    knit = open_app()
    preview = knit.window.preview
    knit.window.list.select_first()  # the primary document, matched on its eviction passage
    qtbot.waitUntil(lambda: bool(preview.browser.marked_blocks()), timeout=10_000)
    marked = [block.text() for block in preview.browser.marked_blocks()]
    assert any("cache" in text.lower() for text in marked)


def test_a_text_preview_after_a_highlighted_heading_is_plain(qtbot, open_app):
    """A .txt clicked after a Markdown preview whose heading held the cursor must not take on the heading's look."""
    from PySide6.QtGui import QFont, QTextCursor

    knit = open_app()
    window, preview = knit.window, knit.window.preview
    browser = preview.browser

    def click(rel: str) -> None:
        index = window.model.index(window.model.row_of(rel))
        window.list.scrollTo(index)
        rect = window.list.visualRect(index)
        qtbot.mouseClick(window.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())

    click("docs/attachment-cache.md")
    qtbot.waitUntil(lambda: bool(browser.marked_blocks()), timeout=10_000)
    browser.setTextCursor(QTextCursor(browser.document().findBlockByNumber(0)))  # on the H1, as a highlight leaves it
    assert browser.textCursor().blockFormat().headingLevel() == 1
    click("notes/release-checklist.txt")
    qtbot.waitUntil(lambda: browser.document().firstBlock().text().startswith("Release checklist"), timeout=10_000)
    for number in (0, 1):
        cursor = QTextCursor(browser.document().findBlockByNumber(number))
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
        assert cursor.blockFormat().headingLevel() == 0
        assert cursor.charFormat().fontWeight() <= QFont.Weight.Normal


def test_a_pdf_page_renders_and_the_preview_opens_on_the_passage_page(qtbot, open_app):
    knit = open_app()
    window, preview = knit.window, knit.window.preview
    qtbot.keyClicks(window.topic_box, "renaming attachments compared by content hash")
    rel = "docs/sync-whitepaper.pdf"

    def passage_on_page_two() -> bool:  # (the conversation's ranking also lists it, with a page 1 passage first)
        row = window.model.row_of(rel)
        passages = window.model.rows[row].item.passages if row >= 0 else ()
        return bool(passages) and passages[0].page == 2

    qtbot.waitUntil(passage_on_page_two, timeout=10_000)
    window.list.select_key(rel)
    qtbot.waitUntil(lambda: preview.page_label.pixmap() is not None and not preview.page_label.pixmap().isNull(),
                    timeout=10_000)
    assert preview.stack.currentWidget() is preview.pdf_box
    assert (preview.page, preview.pages) == (2, 2)
    assert preview.page_number.text() == "Page 2 of 2"
    assert not preview.next_page.isEnabled()
    first = preview.page_label.pixmap().toImage()
    assert first.width() > 200 and first.height() > first.width()  # a portrait page, drawn at the pane's width

    preview.prev_page.click()
    qtbot.waitUntil(lambda: preview.page_number.text() == "Page 1 of 2", timeout=5000)
    qtbot.waitUntil(lambda: preview.page_label.pixmap().toImage() != first, timeout=10_000)


def test_the_citation_bar_counts_the_links_and_each_entry_jumps(qtbot, open_app):
    knit = open_app()
    window, preview = knit.window, knit.window.preview
    window.show_document("docs/attachment-cache.md")
    qtbot.waitUntil(lambda: preview.data is not None, timeout=10_000)
    links_in, links_out = preview.data.links_in, preview.data.links_out
    assert "design/设计评审-离线附件.md" in [rel for rel, _line in links_in]
    assert preview.links_button.text() == f"Referenced by {len(links_in)} · links to {len(links_out)}"
    assert not preview.links_list.isVisible()
    preview.links_button.click()  # expands
    assert preview.links_list.isVisible()
    entries = [preview.links_list.item(i).text() for i in range(preview.links_list.count())]
    assert len(entries) == len(links_in) + len(links_out)
    assert entries[0].startswith("← ") and entries[-1].startswith("→ ")
    row = next(i for i, text in enumerate(entries) if text.startswith("→ design/rfc-offline-attachments.md"))
    item = preview.links_list.item(row)
    rect = preview.links_list.visualItemRect(item)
    qtbot.mouseClick(preview.links_list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: preview.rel == "design/rfc-offline-attachments.md" and preview.data is not None
                    and preview.data.rel == preview.rel, timeout=10_000)
    assert window.list.current_key() == "design/rfc-offline-attachments.md"


def test_double_click_opens_a_larger_preview_window(qtbot, open_app):
    knit = open_app()
    window = knit.window
    row = window.model.document_rows()[0]
    rect = window.list.visualRect(window.model.index(row))
    qtbot.mouseClick(window.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(window.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: len(window._preview_windows) == 1, timeout=5000)
    separate = window._preview_windows[0]
    assert separate.isVisible() and separate.windowTitle() == "docs/attachment-cache.md"
    assert separate.width() > window.width()
    # Its bottom is on screen, frame included (it was a fixed 900 × 1000, cut off on an 800-pixel-high screen).
    area = separate.screen().availableGeometry()
    assert separate.height() <= area.height() - 48 and separate.width() <= area.width()


def test_switching_the_language_retranslates_the_open_window(qtbot, open_app, settings):
    knit = open_app()
    window = knit.window
    window.list.select_first()
    qtbot.waitUntil(lambda: knit.window.preview.data is not None, timeout=10_000)
    total = window.model.total
    assert window.relevance_button.text() == "Relevant"
    settings.language = "zh_CN"  # as the settings dialog does
    qtbot.waitUntil(lambda: window.relevance_button.text() == "相关", timeout=2000)
    assert window.kind_tabs.tabText(0) == "文档"
    assert window.topic_label.text() == "相关性排序"  # the reference panel's wording
    assert window.count_label.text() == f"{total} 篇"
    assert window.preview.links_button.text().startswith("被引用")
    header = window.model.index(0).data(Qt.ItemDataRole.DisplayRole)
    assert header.startswith("主要")
    settings.language = "en"
    qtbot.waitUntil(lambda: window.relevance_button.text() == "Relevant", timeout=2000)
    assert window.model.index(0).data(Qt.ItemDataRole.DisplayRole).startswith("Primary")


def test_without_a_system_tray_everything_else_works(qtbot, open_app, settings):
    assert not TrayPeek.available()  # the offscreen platform has no tray, like some Linux desktops
    knit = open_app()
    assert knit.tray is None
    settings.tray = False
    settings.tray = True  # turning the tray on where there is none changes nothing
    assert knit.tray is None
    assert knit.window.isVisible() and knit.window.model.shown > 0


def test_the_tray_menu_peeks_at_the_top_five_and_opens_the_chosen_one(qtbot, open_app):
    knit = open_app()
    peek = TrayPeek(QApplication.windowIcon(), wall_ms)
    peek.set_result(knit.window.result)
    actions = [a for a in peek.menu.actions() if not a.isSeparator()]
    documents = actions[:-2]
    assert len(documents) == 5
    assert documents[0].text().startswith("Attachment cache")
    assert documents[0].toolTip() == "docs/attachment-cache.md"
    assert [a.text() for a in actions[-2:]] == ["Show / Hide", "Quit"]
    peek.documentChosen.connect(knit._peek_chosen)
    knit.window.hide()
    documents[1].trigger()
    assert knit.window.isVisible()
    assert knit.window.preview.isVisible() and knit.window.preview.rel == documents[1].toolTip()


def test_the_usage_line_shows_in_the_status_when_turned_on(qtbot, tmp_path, demo_ws, settings):
    home = tmp_path / "dsh"
    log = DshLog(home, "s1", str(demo_ws))
    log.append_rows([log.user("how does the attachment cache evict files?")])
    knit = KnitApp(workspace=None, dsh_home=str(home), messages=None, settings=settings, persistent=False)
    try:
        window = knit.window
        window.show()
        qtbot.waitUntil(lambda: window.model.shown > 0 and window.result.has_pack, timeout=15_000)
        primary = window.result.docs.rows[0].rel
        assert window.result.docs.rows[0].tier == "primary"
        log.append_rows([log.read_call("c1", str(demo_ws / primary)), log.result_v4("c1"),
                         log.read_call("c2", "README.md", key="path"), log.result_v4("c2")])
        qtbot.waitUntil(lambda: window.result.usage is not None and window.result.usage.primary_read, timeout=10_000)
        assert not window.status_label.isVisible()  # off by default
        settings.show_usage = True
        assert window.status_label.isVisible()
        assert window.status_label.text().startswith(f"Usage since the last pack: primary read ({primary})")
        assert "1 read outside the pack" in window.status_label.text()
    finally:
        knit.close()


def test_the_demo_conversation_is_named_in_the_session_picker(qtbot, open_app):
    knit = open_app()
    assert knit.window.session_picker.currentText() == "Demo conversation"


# --- screenshots -------------------------------------------------------------------------------------


def distinct_colours(image: QImage, step: int = 7) -> int:
    seen = set()
    for y in range(0, image.height(), step):
        for x in range(0, image.width(), step):
            seen.add(QColor(image.pixel(x, y)).name())
    return len(seen)


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_screenshots_of_the_documents_and_a_pdf_preview(qtbot, tmp_path, monkeypatch, open_app, settings, language):
    """Written to the test's temp dir; KNIT_UPDATE_SCREENSHOTS=1 also refreshes docs/screenshots for the README."""
    monkeypatch.setenv("HOME", str(tmp_path))  # the breadcrumb then reads ~/demo, as a user's would
    settings.language = language
    knit = open_app()
    window, preview = knit.window, knit.window.preview
    window.list.select_first()
    qtbot.waitUntil(lambda: bool(preview.browser.marked_blocks()), timeout=10_000)
    qtbot.wait(100)
    shots = {"documents": window.grab().toImage()}

    qtbot.keyClicks(window.topic_box, "renaming attachments compared by content hash")
    def whitepaper_page() -> int | None:
        # The row may already be listed from the demo conversation, before this topic's passages arrive.
        row = window.model.row_of("docs/sync-whitepaper.pdf")
        passages = window.model.rows[row].item.passages if row >= 0 else ()
        return passages[0].page if passages else None

    qtbot.waitUntil(lambda: whitepaper_page() == 2, timeout=10_000)
    window.list.select_key("docs/sync-whitepaper.pdf")
    qtbot.waitUntil(lambda: preview.page_label.pixmap() is not None and not preview.page_label.pixmap().isNull()
                    and preview.page == 2, timeout=10_000)
    qtbot.wait(100)
    shots["pdf"] = window.grab().toImage()

    suffix = "zh" if language == "zh_CN" else "en"
    for name, image in shots.items():
        assert image.width() >= 480 and image.height() >= 800
        assert distinct_colours(image) > 20  # drawn, not a blank window
        path = tmp_path / f"{name}-{suffix}.png"
        assert image.save(str(path))
        if os.environ.get("KNIT_UPDATE_SCREENSHOTS") == "1":
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            image.save(str(SCREENSHOTS / f"{name}-{suffix}.png"))
    expected = "相关" if language == "zh_CN" else "Relevant"
    assert window.relevance_button.text() == expected


def test_the_settings_dialog_applies_each_change_at_once(qtbot, tmp_path, make_workspace, open_app, settings):
    knit = open_app()
    knit.show_settings()
    dialog = knit._dialog
    qtbot.waitUntil(dialog.isVisible)
    dialog.language.setCurrentIndex(dialog.language.findData("zh_CN"))
    qtbot.waitUntil(lambda: dialog.windowTitle() == "Knit 设置" and knit.window.relevance_button.text() == "相关",
                    timeout=2000)
    zh = dialog.grab().toImage()
    assert zh.save(str(tmp_path / "settings-zh.png"))
    if os.environ.get("KNIT_UPDATE_SCREENSHOTS") == "1":
        zh.save(str(SCREENSHOTS / "settings-zh.png"))
    dialog.language.setCurrentIndex(dialog.language.findData("en"))
    qtbot.waitUntil(lambda: dialog.windowTitle() == "Knit settings", timeout=2000)
    assert dialog.grab().toImage().save(str(tmp_path / "settings-en.png"))

    other = make_workspace({"only.md": "# The only document\n\nnothing else here\n"}, name="other")
    dialog.fixed.setChecked(True)
    dialog.folder.setText(str(other))
    dialog.folder.editingFinished.emit()
    assert settings.workspace == str(other)
    qtbot.waitUntil(lambda: knit.window.model.shown == 1 and knit.window.model.rows[0].rel == "only.md",
                    timeout=10_000)
    dialog.usage.setChecked(True)
    assert settings.show_usage
    dialog.on_top.setChecked(True)
    assert knit.window.windowFlags() & Qt.WindowType.WindowStaysOnTopHint


def test_the_sort_buttons_show_the_order_the_list_is_really_in(qtbot, open_app):
    """Relevance asked for with nothing to rank by lists by time: "Recent" is the pressed button, and says why."""
    knit = open_app(messages=[])
    window = knit.window
    qtbot.waitUntil(lambda: window.result is not None and window.result.mode == "time", timeout=10_000)
    assert window.time_button.isChecked() and not window.relevance_button.isChecked()
    assert "Nothing to rank by yet" in window.relevance_button.toolTip()
    qtbot.mouseClick(window.relevance_button, Qt.MouseButton.LeftButton)  # still nothing to rank by
    assert window.time_button.isChecked() and knit.settings.sort == "relevance"
    qtbot.mouseClick(window.topic_box, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(window.topic_box, "attachment cache")
    qtbot.waitUntil(lambda: window.result is not None and window.result.mode == "relevance", timeout=10_000)
    assert window.relevance_button.isChecked() and "Nothing to rank by" not in window.relevance_button.toolTip()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_why_a_file_cannot_be_shown_is_said_in_the_users_language(qtbot, open_app, demo_ws, settings, language):
    """A skipped file's reason reaches the preview as a code the window words, never the indexer's English."""
    settings.language = language
    (demo_ws / "dump.txt").write_bytes(b"\x00\x01binary\x00" * 64)
    (demo_ws / "blank.html").write_text("<html><head><title></title></head><body><script>x()</script></body></html>",
                                        encoding="utf-8")
    window = open_app().window
    expected = {"en": {"dump.txt": "binary content in a text file", "blank.html": "no text in this HTML"},
                "zh_CN": {"dump.txt": "文本文件中含有二进制内容", "blank.html": "这个 HTML 里没有文字"}}[language]
    for rel, words in expected.items():
        window.show_document(rel)
        qtbot.waitUntil(lambda words=words: words in window.preview.message.text(), timeout=10_000)
        if language == "zh_CN":
            assert "binary" not in window.preview.message.text() and "no text" not in window.preview.message.text()
    shots = os.environ.get("KNIT_SCREENSHOT_DIR")
    if shots:
        window.grab().save(os.path.join(shots, f"skip-reason-{language}.png"))
