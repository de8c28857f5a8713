"""Real files of the library formats, built the way their producers lay them out: EPUB, XPS, CBZ and DOCX as zip
packages with their XML parts, FB2 as its XML, MOBI as a Palm database with PalmDOC records, HTML by hand."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

import pymupdf


def make_html(path: Path, title: str, sections: list[tuple[str, str]], extra_head: str = "") -> Path:
    """A page with a <title>, one <h2> and <p> per section, a script and a style that must not be indexed."""
    body = "".join(f"<h2>{escape(h)}</h2>\n<p>{escape(t)}</p>\n" for h, t in sections)
    path.write_text(
        f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)}</title>{extra_head}"
        "<style>.secretstyle { color: red }</style><script>var secretscript = 1;</script></head>"
        f"<body><h1>{escape(title)}</h1>\n{body}</body></html>",
        encoding="utf-8",
    )
    return path


_W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def make_docx(path: Path, blocks: list[tuple[str, object]], title: str = "") -> Path:
    """blocks: ("h1".."h6", text), ("p", text) or ("table", [[cell, …], …])."""
    parts = []
    for kind, content in blocks:
        if kind == "table":
            rows = "".join(
                "<w:tr>" + "".join(f"<w:tc><w:p><w:r><w:t>{escape(c)}</w:t></w:r></w:p></w:tc>" for c in row) + "</w:tr>"
                for row in content  # type: ignore[union-attr]
            )
            parts.append(f"<w:tbl>{rows}</w:tbl>")
        else:
            style = f"<w:pPr><w:pStyle w:val='Heading{kind[1]}'/></w:pPr>" if kind.startswith("h") else ""
            parts.append(f"<w:p>{style}<w:r><w:t xml:space='preserve'>{escape(str(content))}</w:t></w:r></w:p>")
    document = (f"<?xml version='1.0' encoding='UTF-8' standalone='yes'?><w:document xmlns:w='{_W_NS}'><w:body>"
                + "".join(parts) + "</w:body></w:document>")
    styles = (f"<?xml version='1.0' encoding='UTF-8'?><w:styles xmlns:w='{_W_NS}'>"
              + "".join(f"<w:style w:type='paragraph' w:styleId='Heading{n}'><w:name w:val='heading {n}'/></w:style>"
                        for n in range(1, 7)) + "</w:styles>")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<?xml version='1.0'?><Types xmlns='http://schemas.openxmlformats.org/"
                   "package/2006/content-types'><Default Extension='xml' ContentType='application/xml'/></Types>")
        z.writestr("word/document.xml", document)
        z.writestr("word/styles.xml", styles)
        if title:
            z.writestr("docProps/core.xml", "<?xml version='1.0'?><cp:coreProperties xmlns:cp='http://schemas."
                       "openxmlformats.org/package/2006/metadata/core-properties' xmlns:dc='http://purl.org/dc/"
                       f"elements/1.1/'><dc:title>{escape(title)}</dc:title></cp:coreProperties>")
    return path


def make_epub(path: Path, title: str, chapters: list[tuple[str, str]]) -> Path:
    """One XHTML file per chapter (heading, paragraph), in the spine in order."""
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml", "<?xml version='1.0'?><container version='1.0' xmlns='urn:oasis:names:"
                   "tc:opendocument:xmlns:container'><rootfiles><rootfile full-path='OEBPS/content.opf' media-type="
                   "'application/oebps-package+xml'/></rootfiles></container>")
        manifest = "".join(f"<item id='c{i}' href='c{i}.xhtml' media-type='application/xhtml+xml'/>"
                           for i in range(len(chapters)))
        spine = "".join(f"<itemref idref='c{i}'/>" for i in range(len(chapters)))
        z.writestr("OEBPS/content.opf", "<?xml version='1.0'?><package xmlns='http://www.idpf.org/2007/opf' version="
                   "'3.0' unique-identifier='id'><metadata xmlns:dc='http://purl.org/dc/elements/1.1/'>"
                   f"<dc:identifier id='id'>test-book</dc:identifier><dc:title>{escape(title)}</dc:title>"
                   f"<dc:language>en</dc:language></metadata><manifest>{manifest}</manifest><spine>{spine}</spine>"
                   "</package>")
        for i, (heading, text) in enumerate(chapters):
            z.writestr(f"OEBPS/c{i}.xhtml", "<?xml version='1.0' encoding='utf-8'?><html xmlns='http://www.w3.org/1999/"
                       f"xhtml'><head><title>{escape(heading)}</title></head><body><h1>{escape(heading)}</h1>"
                       f"<p>{escape(text)}</p></body></html>")
    return path


def make_fb2(path: Path, title: str, sections: list[tuple[str, str]]) -> Path:
    body = "".join(f"<section><title><p>{escape(h)}</p></title><p>{escape(t)}</p></section>" for h, t in sections)
    path.write_text("<?xml version='1.0' encoding='utf-8'?><FictionBook xmlns='http://www.gribuser.ru/xml/fictionbook/"
                    f"2.0'><description><title-info><book-title>{escape(title)}</book-title></title-info>"
                    f"</description><body>{body}</body></FictionBook>", encoding="utf-8")
    return path


def _png(width: int, height: int) -> bytes:
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, width, height), False)
    pix.clear_with(200)
    return pix.tobytes("png")


def make_cbz(path: Path, pages: int = 2) -> Path:
    """A comic book archive: images only, no text."""
    with zipfile.ZipFile(path, "w") as z:
        for i in range(pages):
            z.writestr(f"page{i + 1:02}.png", _png(60, 90))
    return path


def make_xps(path: Path, pages: list[str]) -> Path:
    """One FixedPage per text, drawn with Glyphs in a TrueType font embedded in the package (MuPDF's own CJK
    fallback font, so the test needs nothing from the system)."""
    font = pymupdf.Font("cjk").buffer
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<?xml version='1.0' encoding='utf-8'?><Types xmlns='http://schemas."
                   "openxmlformats.org/package/2006/content-types'><Default Extension='fdseq' ContentType='application/"
                   "vnd.ms-package.xps-fixeddocumentsequence+xml'/><Default Extension='fdoc' ContentType='application/"
                   "vnd.ms-package.xps-fixeddocument+xml'/><Default Extension='fpage' ContentType='application/vnd.ms-"
                   "package.xps-fixedpage+xml'/><Default Extension='ttf' ContentType='application/vnd.ms-opentype'/>"
                   "<Default Extension='rels' ContentType='application/vnd.openxmlformats-package.relationships+xml'/>"
                   "</Types>")
        z.writestr("_rels/.rels", "<?xml version='1.0' encoding='utf-8'?><Relationships xmlns='http://schemas."
                   "openxmlformats.org/package/2006/relationships'><Relationship Type='http://schemas.microsoft.com/"
                   "xps/2005/06/fixedrepresentation' Target='/FixedDocSeq.fdseq' Id='R0'/></Relationships>")
        z.writestr("FixedDocSeq.fdseq", "<FixedDocumentSequence xmlns='http://schemas.microsoft.com/xps/2005/06'>"
                   "<DocumentReference Source='/Documents/1/FixedDoc.fdoc'/></FixedDocumentSequence>")
        refs = "".join(f"<PageContent Source='/Documents/1/Pages/{i + 1}.fpage'/>" for i in range(len(pages)))
        z.writestr("Documents/1/FixedDoc.fdoc", "<FixedDocument xmlns='http://schemas.microsoft.com/xps/2005/06'>"
                   f"{refs}</FixedDocument>")
        z.writestr("Resources/font.ttf", font)
        for i, text in enumerate(pages):
            glyphs = "".join(
                f"<Glyphs Fill='#FF000000' FontUri='/Resources/font.ttf' FontRenderingEmSize='12' OriginX='48' "
                f"OriginY='{60 + 18 * n}' UnicodeString='{escape(line, {chr(39): '&apos;'})}'/>"
                for n, line in enumerate(text.splitlines())
            )
            z.writestr(f"Documents/1/Pages/{i + 1}.fpage", "<FixedPage xmlns='http://schemas.microsoft.com/xps/2005/"
                       f"06' Width='816' Height='1056' xml:lang='en-US'>{glyphs}</FixedPage>")
    return path


def make_mobi(path: Path, title: str, html: str) -> Path:
    """A Palm database of type BOOK/MOBI: record 0 the PalmDOC and MOBI headers, then uncompressed UTF-8 text
    records of at most 4,096 bytes (the layout Mobipocket writes with compression 1)."""
    text = html.encode("utf-8")
    records = [text[i : i + 4096] for i in range(0, len(text), 4096)] or [b""]
    name = title.encode("utf-8")
    mobi_header_len = 232
    mobi = bytearray(b"MOBI" + struct.pack(">III", mobi_header_len, 2, 65001))
    mobi += struct.pack(">II", 1, 6)  # unique id, file version
    mobi += b"\xff" * 40  # index records: none
    mobi += struct.pack(">I", len(records) + 1)  # first non-book record
    mobi += struct.pack(">II", 16 + mobi_header_len, len(name))  # full name offset and length
    mobi += b"\0" * (mobi_header_len - len(mobi))
    palmdoc = struct.pack(">HHIHHHH", 1, 0, len(text), len(records), 4096, 0, 0)
    record0 = palmdoc + bytes(mobi) + name + b"\0\0"
    all_records = [record0, *records]
    header_len = 78 + 8 * len(all_records) + 2
    offsets = []
    pos = header_len
    for rec in all_records:
        offsets.append(pos)
        pos += len(rec)
    head = name[:31].ljust(32, b"\0") + struct.pack(">HHIIIIII", 0, 0, 0, 0, 0, 0, 0, 0) + b"BOOKMOBI"
    head += struct.pack(">IIH", 0, 0, len(all_records))
    for i, off in enumerate(offsets):
        head += struct.pack(">II", off, 2 * i)
    path.write_bytes(head + b"\0\0" + b"".join(all_records))
    return path
