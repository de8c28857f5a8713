"""Words the list, the tray and the preview share: relative times, reasons, tier names. Translated via Qt."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QObject

from ..core.dsh.usage import Usage
from ..core.rank.context_pack import Reason
from ..core.text.timefmt import relative_time
from ..core.view import RankedRows

NEW_WINDOW_MS = 2 * 60_000  # a file changed this recently gets the 🆕 mark


class RelativeTime(QObject):
    """The relative-time words. Plurals go through `self.tr(text, "", n)`: the form every PySide6 lupdate reads as
    a plural (some versions miss `QCoreApplication.translate(..., None, n)`); the class name is the context."""

    def text(self, code: str, args: dict) -> str:
        n = args.get("n", 0)
        if code == "just_now":
            return self.tr("just now")
        if code == "minutes":
            return self.tr("%n min ago", "", n)
        if code == "hours":
            return self.tr("%n h ago", "", n)
        if code == "yesterday":
            return self.tr("yesterday")
        if code == "days":
            return self.tr("%n d ago", "", n)
        return self.tr("%1/%2").replace("%1", str(args["month"])).replace("%2", str(args["day"]))


_relative_time: RelativeTime | None = None


def relative_time_text(mtime_ms: int, now_ms: int) -> str:
    global _relative_time
    if _relative_time is None:
        _relative_time = RelativeTime()
    code, args = relative_time(mtime_ms, now_ms)
    return _relative_time.text(code, args)


def is_new(mtime_ms: int, now_ms: int) -> bool:
    return 0 <= now_ms - mtime_ms < NEW_WINDOW_MS


def tier_title(tier: str) -> str:
    return {
        "pinned": QCoreApplication.translate("Tiers", "Pinned"),
        "primary": QCoreApplication.translate("Tiers", "Primary"),
        "supporting": QCoreApplication.translate("Tiers", "Supporting"),
        "related": QCoreApplication.translate("Tiers", "Related"),
        "other": QCoreApplication.translate("Tiers", "Other documents"),
    }[tier]


def tier_hint(tier: str) -> str:
    return {
        "pinned": QCoreApplication.translate("Tiers", "kept on top by you"),
        "primary": QCoreApplication.translate("Tiers", "read first"),
        "supporting": QCoreApplication.translate("Tiers", "evidence, next step"),
        "related": QCoreApplication.translate("Tiers", "background"),
        "other": "",
    }[tier]


def why_text(reason: Reason) -> str:
    """The "why it is here" line: the reason, with at most two of its terms."""
    terms = " · ".join(reason.terms[:2])
    code = reason.code
    if code == "direct":
        return QCoreApplication.translate("Why", "direct match: %1").replace("%1", terms)
    if code == "titleMatch":
        return QCoreApplication.translate("Why", "title match: %1").replace("%1", terms)
    if code == "filenameMatch":
        return QCoreApplication.translate("Why", "file name match: %1").replace("%1", terms)
    if code == "summaryMatch":
        return QCoreApplication.translate("Why", "summary match: %1").replace("%1", terms)
    if code == "bodyMatch":
        return QCoreApplication.translate("Why", "body match: %1").replace("%1", terms) if terms else QCoreApplication.translate("Why", "body match")
    if code == "linkTarget":
        return QCoreApplication.translate("Why", "referenced by a primary document")
    if code == "linkSource":
        return QCoreApplication.translate("Why", "references a primary document")
    if code == "pinned":
        return QCoreApplication.translate("Why", "pinned by you")
    return QCoreApplication.translate("Why", "related to the current task")


def topic_line(ranked: RankedRows, requested_sort: str) -> tuple[str, str]:
    """The honest line above the list and its tooltip (the matched keywords)."""
    if ranked.mode == "relevance":
        keywords = "、".join(ranked.keywords)
        tip = QCoreApplication.translate("Topic", "Sorted by relevance · matched keywords: %1").replace("%1", keywords) if keywords else ""
        return QCoreApplication.translate("Topic", "Sorted by relevance"), tip
    if requested_sort == "relevance":
        return QCoreApplication.translate("Topic", "Not enough conversation yet — sorted by time"), ""
    return QCoreApplication.translate("Topic", "Sorted by modified time"), ""


def usage_text(usage: Usage | None) -> str:
    """The usage line in the window (the same facts `Usage.line` gives the agent in English)."""
    if usage is None:
        return ""
    parts = []
    if usage.primary:
        parts.append((QCoreApplication.translate("Usage", "primary read (%1)") if usage.primary_read
                      else QCoreApplication.translate("Usage", "primary not read yet (%1)")).replace("%1", usage.primary))
    if usage.supporting_total:
        parts.append(QCoreApplication.translate("Usage", "supporting %1/%2").replace("%1", str(usage.supporting_read))
                     .replace("%2", str(usage.supporting_total)))
    if usage.outside:
        parts.append(QCoreApplication.translate("Usage", "%1 read outside the pack (%2 indexed but not in the pack, %3 not indexed)")
                     .replace("%1", str(usage.outside)).replace("%2", str(usage.outside_indexed))
                     .replace("%3", str(usage.outside_not_indexed)))
    if usage.changes:
        parts.append(QCoreApplication.translate("Usage", "context changed %1×").replace("%1", str(usage.changes)))
    if not parts:
        return ""
    return QCoreApplication.translate("Usage", "Usage since the last pack: %1.").replace("%1", " · ".join(parts))


def problem_text(problem: str) -> str:
    """Why something cannot be shown, from the code the preview reader or the thumbnailer sent ("code" or
    "code:detail", the detail in the system's own words). Anything else is shown as it came."""
    code, _, detail = problem.partition(":")
    words = {
        "gone": QCoreApplication.translate("Problem", "the file is gone"),
        "outside": QCoreApplication.translate("Problem", "it leads outside the workspace"),
        "unreadable_image": QCoreApplication.translate("Problem", "not a readable image"),
        "too_large": QCoreApplication.translate("Problem", "too large to make a thumbnail of (%1 pixels)"),
        "video_timeout": QCoreApplication.translate("Problem", "no picture could be read from this video in time"),
        "unplayable_video": QCoreApplication.translate("Problem", "not a playable video"),
        "video_no_picture": QCoreApplication.translate("Problem", "the video has no picture"),
        "encrypted_pdf": QCoreApplication.translate("Problem", "encrypted PDF (a password is required)"),
        "unreadable": QCoreApplication.translate("Problem", "it cannot be read"),
        "failed": QCoreApplication.translate("Problem", "it failed"),
        # why a file is not indexed (core/index/documents.py SKIP_*)
        "binary_text": QCoreApplication.translate("Problem", "binary content in a text file"),
        "file_too_large": QCoreApplication.translate("Problem", "too large to read (%1)"),
        "refused_part": QCoreApplication.translate("Problem", "refused: a part inflates beyond the limits (%1)"),
        "too_many_parts": QCoreApplication.translate("Problem", "refused: more than %1 parts"),
        "xml_entities": QCoreApplication.translate("Problem", "refused: the %1 declares XML entities, which can expand without bound"),
        "encrypted": QCoreApplication.translate("Problem", "encrypted %1 (a password is required)"),
        "no_text": QCoreApplication.translate("Problem", "no text in this %1"),
        "scanned": QCoreApplication.translate("Problem", "no text layer — a scanned %1?"),
        "images_only": QCoreApplication.translate("Problem", "no text: a comic book archive holds only images"),
    }.get(code)
    if words is None:
        return problem
    if "%1" in words:
        return words.replace("%1", detail)
    return f"{words} ({detail})" if detail else words
