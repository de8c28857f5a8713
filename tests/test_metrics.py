"""One spacing scale (multiples of 4 px) throughout the window and the sticky notes, and one type scale shared by
the list's rows and a sticky note."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QBoxLayout,
    QFormLayout,
    QGridLayout,
    QLayout,
    QMainWindow,
    QStackedLayout,
    QWidget,
)

from knit_desktop.ui.metrics import UNIT, type_scale

from .test_sticky_notes import notes  # noqa: F401 - the fixture
from .test_window import demo_ws, open_app  # noqa: F401 - the fixtures


def off_scale(top: QWidget) -> list[str]:
    """Every margin and spacing of the layouts under `top` that is not a multiple of the unit, named."""
    found = []
    layouts = ([top.layout()] if top.layout() is not None else []) + top.findChildren(QLayout)
    for layout in dict.fromkeys(layouts):
        if isinstance(layout, QStackedLayout) or (isinstance(top, QMainWindow) and layout is top.layout()):
            continue  # Qt's own: they give their child their whole rectangle, their margins are never used
        owner = layout.parentWidget()
        where = f"{type(owner).__name__}#{owner.objectName()}" if owner is not None else "?"
        name = f"{where} {type(layout).__name__}{('#' + layout.objectName()) if layout.objectName() else ''}"
        m = layout.contentsMargins()
        values = {"margins": (m.left(), m.top(), m.right(), m.bottom())}
        if isinstance(layout, (QGridLayout, QFormLayout)):
            values["spacing"] = (layout.horizontalSpacing(), layout.verticalSpacing())
        elif isinstance(layout, QBoxLayout):
            values["spacing"] = (layout.spacing(),)
        for what, numbers in values.items():
            if any(n % UNIT for n in numbers if n >= 0):
                found.append(f"{name} {what} {numbers}")
    return found


def test_every_layout_of_the_window_is_on_the_spacing_scale(qtbot, open_app):  # noqa: F811
    knit = open_app()
    window = knit.window
    window.list.select_first()  # the preview's layouts too
    qtbot.waitUntil(window.preview.isVisible)
    assert off_scale(window) == []
    assert window.preview.browser.document().documentMargin() % UNIT == 0


def test_every_layout_of_a_sticky_note_is_on_the_spacing_scale_and_it_shares_the_list_type_scale(
        qtbot, notes):  # noqa: F811
    notes.store.propose("Prefer short answers", "preferences.md", "", "preference")
    notes.start()
    qtbot.waitUntil(notes.note.isVisible, timeout=3000)
    note = notes.note
    assert off_scale(note) == []
    title, body, small = type_scale(note.font())
    assert note.title.font().pointSizeF() == title.pointSizeF() and note.title.font().weight() == title.weight()
    assert note.text.font().pointSizeF() == body.pointSizeF()
    for label in (note.kind, note.count, note.message):
        assert label.font().pointSizeF() == small.pointSizeF()


def test_the_settings_dialog_and_the_larger_preview_window_are_on_the_spacing_scale(qtbot, open_app, settings):  # noqa: F811
    from knit_desktop.ui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    dialog.show()
    assert off_scale(dialog) == []
    knit = open_app()
    rel = knit.window.model.rows[knit.window.model.document_rows()[0]].rel
    knit.window.previews.open_window(rel)
    window = knit.window.previews.windows[-1]
    assert off_scale(window) == []
    window.close()
