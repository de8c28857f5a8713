"""The History view: search every past DSH conversation (compacted turns included), see the results grouped by
session with their events and snippets (hits highlighted, the layer that found each event named), open the
conversation around an event and read further, copy a quote. And the recall strip: a small line in the main
window when the user's new message refers back to something said earlier.

Everything is answered by the history service on its own thread; this only draws."""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..services.history import HistoryService
from .colours import history_colours
from .metrics import XS, S

SCOPES = ("session", "workspace", "all")
DETAIL_WINDOW = 3
ROLE_DATA = Qt.ItemDataRole.UserRole


def highlighted(text: str, terms: list[str], background: str = "#ffe58a") -> str:
    """`text` as HTML with every occurrence of `terms` (case-insensitive) marked on `background`."""
    if not terms:
        return html.escape(text)
    pattern = re.compile("|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True) if t), re.IGNORECASE)
    out, last = [], 0
    for match in pattern.finditer(text):
        out.append(html.escape(text[last : match.start()]))
        out.append(f"<b style='background:{background}'>{html.escape(match.group(0))}</b>")
        last = match.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


class HistoryPanel(QWidget):
    """A window of its own (like the memory panel): the search, the results tree, the transcript."""

    def __init__(self, service: HistoryService, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("HistoryPanel")
        self.service = service
        self.session_id = ""  # the followed session: the `session` and `workspace` scopes are relative to it
        self._token = 0
        self._detail_token = 0
        self._transcript: dict | None = None  # {"session": {...}, "messages": [...], "focus": (start, end)}
        self._terms: list[str] = []

        self.query = QLineEdit(objectName="HistoryQuery")
        self.query.setClearButtonEnabled(True)
        self.query.returnPressed.connect(self.run_search)
        self.scope = QComboBox(objectName="HistoryScope")
        for _ in SCOPES:
            self.scope.addItem("")
        self.scope.setCurrentIndex(2)
        self.search_button = QPushButton(objectName="HistorySearch")
        self.search_button.clicked.connect(self.run_search)
        self.status = QLabel(objectName="HistoryStatus", wordWrap=True)
        self.results = QTreeWidget(objectName="HistoryResults")
        self.results.setHeaderHidden(True)
        self.results.setColumnCount(1)
        self.results.itemDoubleClicked.connect(lambda _item, _col: self.open_selected())
        self.results.currentItemChanged.connect(lambda *_: self._update_buttons())
        self.open_button = QPushButton(objectName="HistoryOpen")
        self.open_button.clicked.connect(self.open_selected)
        self.copy_button = QPushButton(objectName="HistoryCopyQuote")
        self.copy_button.clicked.connect(self.copy_quote)
        self.transcript = QTextBrowser(objectName="HistoryTranscript")
        self.transcript.setOpenLinks(False)
        self.earlier_button = QPushButton(objectName="HistoryEarlier")
        self.earlier_button.clicked.connect(lambda: self.extend(-1))
        self.later_button = QPushButton(objectName="HistoryLater")
        self.later_button.clicked.connect(lambda: self.extend(1))
        self.transcript_title = QLabel(objectName="HistoryTranscriptTitle", wordWrap=True)

        top = QHBoxLayout()
        top.addWidget(self.query, 1)
        top.addWidget(self.scope)
        top.addWidget(self.search_button)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.results, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.copy_button)
        buttons.addStretch(1)
        left_layout.addLayout(buttons)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.transcript_title)
        right_layout.addWidget(self.earlier_button)
        right_layout.addWidget(self.transcript, 1)
        right_layout.addWidget(self.later_button)
        split = QSplitter(Qt.Orientation.Horizontal, objectName="HistorySplit")
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([420, 480])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.status)
        layout.addWidget(split, 1)
        self.resize(960, 600)

        service.answered.connect(self._on_answer)
        service.opened.connect(self._on_opened)
        service.indexed.connect(self._on_indexed)
        self._indexed: dict | None = service.last_indexed
        self.retranslate()
        self._update_buttons()

    # --- searching -------------------------------------------------------------------------------------

    def set_session(self, session_id: str) -> None:
        self.session_id = session_id or ""

    def run_search(self) -> None:
        text = self.query.text().strip()
        if not text:
            self.status.setText(self.tr("Type what you remember: a few words, a fragment, even with a typo."))
            return
        self.status.setText(self.tr("Searching…"))
        self._token = self.service.search(text, SCOPES[self.scope.currentIndex()], self.session_id)

    def _on_answer(self, token: int, answer: object) -> None:
        if token != self._token:
            return  # an older search, overtaken
        self.results.clear()
        if not isinstance(answer, dict):
            self.status.setText(self.tr("The history index is not ready yet."))
            return
        if "error" in answer:
            self.status.setText(self.tr("Cannot search this scope: %1").replace("%1", answer["error"]))
            return
        payload, terms = answer["payload"], answer["terms"]
        colours = history_colours(self.results.palette())
        events = 0
        for session, session_terms in zip(payload["sessions"], terms, strict=False):
            top = QTreeWidgetItem(self.results)
            title = session["title"] or self.tr("(untitled)")
            folder = session["cwd"] or self.tr("(no folder)")
            top.setText(0, f"{title} — {folder}")
            top.setToolTip(0, session["id"])
            top.setData(0, ROLE_DATA, {"kind": "session", "session": session})
            for event, event_terms in zip(session["events"], session_terms, strict=False):
                events += 1
                item = QTreeWidgetItem(top)
                layer = self.tr("exact words") if event["matched_by"] == "literal" else self.tr("fuzzy match")
                item.setText(0, self.tr("Turns %1–%2 · %3").replace("%1", str(event["start_seq"]))
                             .replace("%2", str(event["end_seq"])).replace("%3", layer))
                item.setData(0, ROLE_DATA, {"kind": "event", "session": session, "event": event, "terms": event_terms})
                for snippet in event["snippets"]:
                    child = QTreeWidgetItem(item)
                    child.setData(0, ROLE_DATA, {"kind": "snippet", "session": session, "event": event,
                                                 "snippet": snippet, "terms": event_terms})
                    role = self.tr("You") if snippet["role"] == "user" else self.tr("Assistant")
                    text = " ".join(snippet["text"].split())  # the turn's own spacing, flattened for one row
                    label = QLabel(f"<i>{role}</i>: {highlighted(text, event_terms, colours.match_background)}")
                    label.setWordWrap(True)
                    label.setTextFormat(Qt.TextFormat.RichText)
                    label.setObjectName("HistorySnippet")
                    self.results.setItemWidget(child, 0, label)
            top.setExpanded(True)
            for i in range(top.childCount()):
                top.child(i).setExpanded(True)
        if events:
            self.status.setText(self.tr("%1 moment(s) in %2 conversation(s).").replace("%1", str(events))
                                .replace("%2", str(len(payload["sessions"]))))
            first_event = self.results.topLevelItem(0).child(0)
            if first_event is not None:
                self.results.setCurrentItem(first_event)
        else:
            self.status.setText(self.tr("Nothing found. Try other words, or a wider scope."))
        self._update_buttons()

    def _selected(self) -> dict | None:
        item = self.results.currentItem()
        data = item.data(0, ROLE_DATA) if item is not None else None
        return data if isinstance(data, dict) else None

    def _update_buttons(self) -> None:
        data = self._selected()
        self.open_button.setEnabled(bool(data and data["kind"] in ("event", "snippet")))
        self.copy_button.setEnabled(bool(data and data["kind"] in ("event", "snippet")))
        self.earlier_button.setEnabled(self._transcript is not None)
        self.later_button.setEnabled(self._transcript is not None)

    # --- the transcript ---------------------------------------------------------------------------------

    def open_selected(self) -> None:
        data = self._selected()
        if not data or data["kind"] not in ("event", "snippet"):
            return
        event = data["event"]
        seq = data["snippet"]["seq"] if data["kind"] == "snippet" else event["start_seq"]
        self.open_event(data["session"]["id"], seq, (event["start_seq"], event["end_seq"]), data.get("terms", []))

    def open_event(self, session_id: str, seq: int, focus: tuple[int, int], terms: list[str]) -> None:
        """Show the turns around `seq` (±3), the event's turns marked."""
        self._terms = terms
        self._transcript = {"focus": focus, "session_id": session_id, "messages": []}
        self._detail_token = self.service.detail(session_id, seq, DETAIL_WINDOW)
        self._extend_side = 0
        self.transcript.setPlainText(self.tr("Opening…"))

    def extend(self, side: int) -> None:
        """Read further: three more turns before (-1) or after (+1) what is shown."""
        if not self._transcript or not self._transcript["messages"]:
            return
        messages = self._transcript["messages"]
        seq = messages[0]["seq"] if side < 0 else messages[-1]["seq"]
        self._extend_side = side
        self._detail_token = self.service.detail(self._transcript["session_id"], seq, DETAIL_WINDOW)

    def _on_opened(self, token: int, payload: object) -> None:
        if token != self._detail_token or self._transcript is None:
            return
        if not isinstance(payload, dict):
            self.transcript.setPlainText(self.tr("That conversation is no longer on disk."))
            return
        have = {m["seq"]: m for m in self._transcript["messages"]}
        for message in payload["messages"]:
            have[message["seq"]] = message
        self._transcript["messages"] = [have[k] for k in sorted(have)]
        self._transcript["session"] = payload["session"]
        self._render_transcript()
        self._update_buttons()

    def _render_transcript(self) -> None:
        assert self._transcript is not None
        session = self._transcript["session"]
        start, end = self._transcript["focus"]
        title = session["title"] or self.tr("(untitled)")
        self.transcript_title.setText(f"{title} — {session['id']}")
        compacted = self.tr("(compacted)")
        colours = history_colours(self.transcript.palette())
        parts = []
        for message in self._transcript["messages"]:
            role = self.tr("You") if message["role"] == "user" else self.tr("Assistant")
            mark = f" <span style='color:{colours.compacted}'>{compacted}</span>" if message.get("compacted") else ""
            inside = start <= message["seq"] <= end
            style = f"background:{colours.focus_background};padding:4px" if inside else "padding:4px"
            body = highlighted(message["text"], self._terms if inside else [],
                               colours.match_background).replace("\n", "<br>")
            parts.append(f"<div style='{style}'><a name='seq{message['seq']}'></a><b>{role}</b> "
                         f"<span style='color:{colours.soft}'>#{message['seq']}</span>{mark}<br>{body}</div>")
        self.transcript.setHtml("".join(parts))
        if self._extend_side == 0:
            self.transcript.scrollToAnchor(f"seq{start}")

    def copy_quote(self) -> None:
        """The selected snippet's whole turn (or the event's first turn) as a quote, with where it was said."""
        data = self._selected()
        if not data or data["kind"] not in ("event", "snippet"):
            return
        snippet = data["snippet"] if data["kind"] == "snippet" else data["event"]["snippets"][0]
        session = data["session"]
        text = snippet["text"].strip("…")
        quote = "> " + text.replace("\n", "\n> ") + f"\n— {session['title'] or session['id']}, #{snippet['seq']}"
        QGuiApplication.clipboard().setText(quote)
        self.status.setText(self.tr("Quote copied."))

    def _on_indexed(self, info: object) -> None:
        if isinstance(info, dict):
            self._indexed = info
            self._show_index_line()

    def _show_index_line(self) -> None:
        info = self._indexed
        if not info or self.results.topLevelItemCount():
            return
        line = self.tr("%1 messages from %2 conversations indexed, compacted ones included.") \
            .replace("%1", f"{info['messages']:,}").replace("%2", f"{info['sessions']:,}")
        if info.get("corrupt_frames"):
            line += " " + self.tr("%1 damaged part(s) of the logs were skipped.").replace("%1", str(info["corrupt_frames"]))
        self.status.setText(line)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Knit — conversation history"))
        self.query.setPlaceholderText(self.tr("What was said? A few words, a fragment, even with a typo"))
        self.query.setAccessibleName(self.tr("Search past conversations"))
        for i, text in enumerate((self.tr("This conversation"), self.tr("This workspace"), self.tr("All conversations"))):
            self.scope.setItemText(i, text)
        self.search_button.setText(self.tr("Search"))
        self.open_button.setText(self.tr("Open conversation"))
        self.copy_button.setText(self.tr("Copy quote"))
        self.earlier_button.setText(self.tr("Show earlier turns"))
        self.later_button.setText(self.tr("Show later turns"))
        if self._transcript is None:
            self.transcript.setPlaceholderText(self.tr("Open a result to read the conversation around it."))
        self._show_index_line()


class RecallStrip(QFrame):
    """“From earlier conversations”: shown when the user's new message refers back to something the history
    confirms was said before. One click opens it; nothing is sent to the agent."""

    openRequested = Signal(object)  # the recalled {"session", "event", "terms"}

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RecallStrip")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.found: dict | None = None
        self.label = QLabel(objectName="RecallStripText")
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setWordWrap(True)
        self.open_button = QPushButton(objectName="RecallStripOpen")
        self.open_button.clicked.connect(lambda: self.openRequested.emit(self.found))
        self.dismiss_button = QToolButton(objectName="RecallStripDismiss", text="×")
        self.dismiss_button.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(S, XS, XS, XS)
        layout.setSpacing(S)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.open_button)
        layout.addWidget(self.dismiss_button)
        self.hide()
        self.retranslate()

    def show_recalled(self, found: object) -> None:
        if not isinstance(found, dict):
            return  # nothing earlier: the strip stays as it was (a miss never hides a shown recall)
        self.found = found
        self._render()
        self.show()

    def _render(self) -> None:
        if not self.found:
            return
        snippet = self.found["event"]["snippets"][0]
        heading = html.escape(self.tr("From earlier conversations"))
        colours = history_colours(self.palette())
        words = highlighted(" ".join(snippet["text"].split()), self.found.get("terms", []), colours.match_background)
        title = html.escape(self.found["session"]["title"] or self.found["session"]["id"])
        self.label.setText(f"<b>{heading}</b>: {words} <span style='color:{colours.soft}'>— {title}</span>")

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.open_button.setText(self.tr("Open"))
        self.dismiss_button.setToolTip(self.tr("Hide"))
        self._render()
