"""The matched passage in the preview is marked by a bar in the margin and a faint background beside its lines:
no block is repainted, a heading keeps its own look, and a plain-text passage is marked line for line."""

from __future__ import annotations

from PySide6.QtGui import QFont, QTextCursor

from knit_desktop.ui.colours import passage_background, passage_bar
from knit_desktop.ui.metrics import PASSAGE_BAR_GAP, PASSAGE_BAR_WIDTH

FILLER = "Some words about the weather, the river's level and the state of the path along the bank. " * 4
NOTES_MD = f"""# Field notes

An opening paragraph about nothing in particular. {FILLER}

## Otters

Otters fish for trout at dawn in the cold shallows.
They carry the trout to the bank before eating. {FILLER}

## Herons

Herons stand still for hours. {FILLER}
"""

FILLERS = "\n\n".join([FILLER] * 4)
NOTES_TXT = f"Field notes\n\n{FILLERS}\n\nOtters fish for trout at dawn.\nThey carry trout to the bank.\n\n{FILLERS}\n\nHerons wait.\n"


def _open(qtbot, tmp_path, settings, name: str, text: str):
    from knit_desktop.core.dsh.conversation import Message
    from knit_desktop.ui.app import KnitApp

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / name).write_text(text, encoding="utf-8")
    (ws / "other.md").write_text("# Other\n\nAbout herons only.\n", encoding="utf-8")
    knit = KnitApp(workspace=str(ws), dsh_home=str(tmp_path / "no-dsh"), settings=settings, persistent=False,
                   messages=[Message("user", "How do otters fish for trout at dawn?")])
    knit.window.resize(480, 820)
    knit.window.show()
    qtbot.waitUntil(lambda: knit.window.model.shown > 0, timeout=15_000)
    knit.window.show_document(name)
    browser = knit.window.preview.browser
    qtbot.waitUntil(lambda: bool(browser.marked_blocks()), timeout=10_000)
    return knit, browser


def test_a_markdown_passage_gets_a_margin_bar_and_its_heading_keeps_its_look(qtbot, tmp_path, settings):
    knit, browser = _open(qtbot, tmp_path, settings, "notes.md", NOTES_MD)
    try:
        document = browser.document()
        heading = next(b for b in _blocks(document) if b.text() == "Otters")
        heading_format = heading.blockFormat()
        assert heading_format.headingLevel() == 2
        assert not browser.extraSelections()  # no block or heading is painted over
        marked = [block.text() for block in browser.marked_blocks()]
        assert any("Otters fish for trout" in text for text in marked), marked
        assert "Otters" not in marked and "Field notes" not in marked  # the headings are not marked
        assert not any("Herons stand" in text for text in marked)
        assert heading.blockFormat() == heading_format  # the document itself is untouched
        assert heading.charFormat().background().style() == heading_format.background().style()

        qtbot.waitUntil(lambda: bool(browser.passage_spans()), timeout=5_000)
        browser.viewport().repaint()
        image = browser.viewport().grab().toImage()
        palette = browser.palette()
        span = browser.passage_spans()[0]
        middle = span.center().y()
        bar_x = span.left() + PASSAGE_BAR_GAP + PASSAGE_BAR_WIDTH // 2
        assert image.pixelColor(bar_x, middle).name() == passage_bar(palette).name()
        # the faint background fills the margin right of the bar, beside the passage's lines …
        assert image.pixelColor(bar_x + PASSAGE_BAR_WIDTH + 2, middle).name() == passage_background(palette).name()
        # … and not beside the heading above it
        cursor = QTextCursor(heading)
        heading_y = browser.cursorRect(cursor).center().y()
        assert heading_y < span.top()
        assert image.pixelColor(bar_x, heading_y).name() != passage_bar(palette).name()
    finally:
        knit.close()


def test_a_text_passage_is_marked_on_its_lines_in_the_plain_font(qtbot, tmp_path, settings):
    knit, browser = _open(qtbot, tmp_path, settings, "notes.txt", NOTES_TXT)
    try:
        marked = [block.text() for block in browser.marked_blocks()]
        assert "Field notes" not in marked and "Herons wait." not in marked
        assert any(text.startswith("Otters fish") for text in marked)
        for block in _blocks(browser.document()):
            cursor = QTextCursor(block)
            assert cursor.charFormat().fontWeight() <= QFont.Weight.Normal
            assert block.blockFormat().headingLevel() == 0
    finally:
        knit.close()


def _blocks(document):
    block = document.begin()
    while block.isValid():
        yield block
        block = block.next()
