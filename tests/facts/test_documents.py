"""Document parsing tests; every fixture is built in memory at test time."""

from __future__ import annotations

import codecs
import io
import random
import zipfile

import pytest
from docx import Document
from pypdf import PdfReader, PdfWriter

from apps.facts.sources.documents import (
    NOT_TEXT,
    SCANNED_PDF,
    DocumentError,
    DocumentLimits,
    DocumentRefused,
    parse_document,
    sniff_kind,
)
from apps.facts.sources.parse_child import parse_in_child

# --------------------------------------------------------------------------------------------------
# Fixture builders


def _pdf_string(text: str) -> bytes:
    raw = text.encode("cp1252")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def make_pdf(
    pages: list[list[str]],
    title: str | None = None,
    image_only: bool = False,
    cells: list[list[tuple[int, int, str]]] | None = None,
) -> bytes:
    """A minimal valid PDF written by hand: Helvetica text lines, or a single image per page, or
    (``cells``) text placed at (x, y) per page, as table tools write a table's cells."""
    objects: list[bytes] = [b"", b""]  # 1: catalog, 2: page tree (filled in below)

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    image = add(
        b"<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8"
        b" /Length 4 >>\nstream\n\x00\xff\xff\x00\nendstream"
    )
    kids: list[int] = []
    for number, lines in enumerate(pages):
        if cells is not None:
            content = b"\n".join(
                b"BT /F1 11 Tf %d %d Td " % (x, y) + _pdf_string(text) + b" Tj ET"
                for x, y, text in cells[number]
            )
        elif image_only:
            content = b"q 400 0 0 500 100 200 cm /Im1 Do Q"
        else:
            shown = b" ".join(_pdf_string(line) + b" Tj T*" for line in lines)
            content = b"BT /F1 11 Tf 72 760 Td 14 TL " + shown + b" ET"
        stream = add(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content))
        resources = b"/XObject << /Im1 %d 0 R >>" % image if image_only else b"/Font << /F1 %d 0 R >>" % font
        kids.append(
            add(
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R"
                b" /Resources << %s >> >>" % (stream, resources)
            )
        )
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids),
        len(kids),
    )
    info = add(b"<< /Title " + _pdf_string(title) + b" >>") if title else None

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets: list[int] = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R" % (len(objects) + 1)
    if info:
        out += b" /Info %d 0 R" % info
    out += b" >>\nstartxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


PRICE_LIST_PAGES = [
    [
        "Crumb & Co - Price list",
        "Crumb & Co bakes every loaf by hand in small batches, using flour from a mill that is",
        "only twenty miles from the shop. Our sourdough starter is older than the bakery itself.",
        "Opening hours",
        "Tuesday to Saturday: 7am to 3pm.",
        "\u2022 Sourdough loaf \u00a34.50",
        "\u2022 Cr\u00e8me br\u00fbl\u00e9e tart \u00a33.20",
        "Page 1 of 3",
    ],
    ["Crumb & Co - Price list", "Catering", "Platters for 10 to 200 people.", "Page 2 of 3"],
    ["Crumb & Co - Price list", "Allergens", "All products may contain nuts.", "Page 3 of 3"],
]


def make_docx() -> bytes:
    document = Document()
    document.add_heading("Crumb & Co Staff Handbook", level=0)  # "Title" style
    document.add_paragraph("Welcome to the team. Please read this before your first shift.")
    document.add_heading("Opening hours", level=1)
    document.add_paragraph("Tuesday to Saturday, 7am to 3pm.")
    document.add_heading("Before opening", level=2)
    document.add_paragraph("Switch on the ovens", style="List Bullet")
    document.add_paragraph("Check the proofing baskets", style="List Bullet")
    document.add_paragraph("Rye needs longer", style="List Bullet 2")
    document.add_paragraph("Unlock the door", style="List Number")
    document.add_heading("Prices", level=1)
    table = document.add_table(rows=3, cols=3)
    for row, values in zip(
        table.rows, [("Item", "Size", "Price"), ("Sourdough", "800 g", "£4.50")], strict=False
    ):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    merged = table.rows[2].cells[0].merge(table.rows[2].cells[1])
    merged.text = "Seasonal special"
    table.rows[2].cells[2].text = "ask in store"
    document.add_paragraph("")  # empty paragraphs are dropped
    document.add_paragraph("Questions? Ask Ana.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def make_zip(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def message(data: bytes, filename: str = "", **kwargs: object) -> str:
    with pytest.raises(DocumentError) as caught:
        parse_document(data, filename, **kwargs)
    return str(caught.value)


# --------------------------------------------------------------------------------------------------
# PDF


def test_pdf_with_text_layer() -> None:
    parsed = parse_document(make_pdf(PRICE_LIST_PAGES, title="Price list 2024"), "price-list.pdf")
    assert parsed.kind == "pdf"
    assert parsed.title == "Price list 2024"  # from the PDF metadata
    assert parsed.text == (
        "# Price list 2024\n\n"
        "Crumb & Co bakes every loaf by hand in small batches, using flour from a mill that is only twenty"
        " miles from the shop. Our sourdough starter is older than the bakery itself.\n\n"
        "Opening hours\nTuesday to Saturday: 7am to 3pm.\n\n"
        "- Sourdough loaf £4.50\n- Crème brûlée tart £3.20\n\n"
        "Catering\nPlatters for 10 to 200 people.\n\n"
        "Allergens\nAll products may contain nuts."
    )  # running header and "Page N of 3" footers are gone


def test_pdf_title_falls_back_to_the_file_name() -> None:
    parsed = parse_document(make_pdf([["Closed on 25 December."]]), "Christmas_opening-times.pdf")
    assert parsed.title == "Christmas opening times"
    assert parsed.text == "# Christmas opening times\n\nClosed on 25 December."


def test_pdf_without_text_layer_is_reported_as_scanned() -> None:
    assert message(make_pdf([[], []], image_only=True), "scan.pdf") == SCANNED_PDF
    assert SCANNED_PDF.startswith("No text found in this PDF: it looks scanned (images only).")


def test_pdf_sniffed_from_content_not_name() -> None:
    data = make_pdf([["Gift cards never expire."]])
    assert sniff_kind(data, "notes.txt") == "pdf"
    parsed = parse_document(data, "notes.txt")
    assert (parsed.kind, parsed.text) == ("pdf", "# notes\n\nGift cards never expire.")


def test_password_protected_and_damaged_pdfs() -> None:
    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(make_pdf([["Secret recipe."]]))))
    writer.encrypt(user_password="flour", algorithm="RC4-128")
    encrypted = io.BytesIO()
    writer.write(encrypted)
    assert "password-protected" in message(encrypted.getvalue(), "secret.pdf")
    assert "could not be read" in message(b"%PDF-1.7\n" + b"\x8b garbage " * 50, "broken.pdf")


# --------------------------------------------------------------------------------------------------
# DOCX


def test_docx_headings_lists_and_tables() -> None:
    parsed = parse_document(make_docx(), "handbook.docx")
    assert parsed.kind == "docx"
    assert parsed.title == "Crumb & Co Staff Handbook"
    assert parsed.text == (
        "# Crumb & Co Staff Handbook\n\n"
        "Welcome to the team. Please read this before your first shift.\n\n"
        "## Opening hours\n\n"
        "Tuesday to Saturday, 7am to 3pm.\n\n"
        "### Before opening\n\n"
        "- Switch on the ovens\n- Check the proofing baskets\n  - Rye needs longer\n- Unlock the door\n\n"
        "## Prices\n\n"
        "Item | Size | Price\nSourdough | 800 g | £4.50\nSeasonal special | ask in store\n\n"
        "Questions? Ask Ana."
    )


def test_docx_renamed_and_core_title() -> None:
    document = Document()
    document.core_properties.title = "Allergen guide"
    document.add_heading("Nuts", level=1)
    document.add_paragraph("Every product may contain traces of nuts.")
    buffer = io.BytesIO()
    document.save(buffer)
    parsed = parse_document(buffer.getvalue(), "allergens.pdf")  # wrong extension: content wins
    assert (parsed.kind, parsed.title) == ("docx", "Allergen guide")
    assert parsed.text == "# Nuts\n\nEvery product may contain traces of nuts."  # has its own top heading


def test_damaged_docx() -> None:
    data = make_zip({"word/document.xml": "<not really xml"})
    assert "Word document could not be read" in message(data, "broken.docx")


# --------------------------------------------------------------------------------------------------
# HTML, Markdown, text

HTML_DOC = """<!DOCTYPE html><html><head><title>Wedding cakes</title></head><body>
<nav><a href="/">Home</a> <a href="/cakes">Cakes</a></nav>
<main><h1>Wedding cakes</h1><p>Tiered cakes from &pound;180. Tastings on Saturdays.</p>
<h2>Flavours</h2><ul><li>Lemon &amp; elderflower</li><li>Chocolate</li></ul></main>
<footer>&copy; Crumb &amp; Co</footer></body></html>"""


def test_html_document() -> None:
    parsed = parse_document(HTML_DOC.encode(), "cakes.txt")
    assert (parsed.kind, parsed.title) == ("html", "Wedding cakes")
    assert parsed.text == (
        "# Wedding cakes\n\nTiered cakes from £180. Tastings on Saturdays.\n\n"
        "## Flavours\n\n- Lemon & elderflower\n- Chocolate"
    )
    fragment = b"<div><p>Free delivery over <b>\xc2\xa330</b>.</p><p>Order by 2pm.</p><br></div>"
    assert sniff_kind(fragment) == "html"
    assert (
        parse_document(fragment, "delivery.htm").text
        == "# delivery\n\nFree delivery over £30.\n\nOrder by 2pm."
    )


MARKDOWN_DOC = """---
title: Frequently asked questions
tags: [faq]
---
FAQ
===

Do you bake gluten-free bread?
------------------------------

Yes, on **Fridays**. See [our menu](https://crumb.example/menu).

* Rice loaf
+ Buckwheat rolls

## Do you deliver? ##

```
# not a heading inside code
```
<!-- internal note: update prices -->
"""


def test_markdown_document() -> None:
    parsed = parse_document(MARKDOWN_DOC.encode(), "faq.txt")  # content decides: it is markdown
    assert (parsed.kind, parsed.title) == ("markdown", "FAQ")
    assert parsed.text == (
        "# FAQ\n\n## Do you bake gluten-free bread?\n\n"
        "Yes, on **Fridays**. See [our menu](https://crumb.example/menu).\n\n"
        "- Rice loaf\n- Buckwheat rolls\n\n## Do you deliver?\n\n```\n# not a heading inside code\n```"
    )


def test_file_name_decides_markdown_vs_text_only() -> None:
    plain = b"Parking is free after 6pm.\nBikes can be left in the yard."
    assert sniff_kind(plain, "parking.md") == "markdown"
    assert sniff_kind(plain, "parking.txt") == "text"
    assert sniff_kind(plain) == "text"


def test_plain_text_in_cp1252() -> None:
    data = (
        "Caf\u00e9 cr\u00e8me \u2013 \u20ac3\r\n\r\n"
        "\u2022 Pain au chocolat\r\n\u2022 Tarte aux pommes\r\n\r\n\r\n"
        "Closed \u201cfor good\u201d on Mondays.\r\n"
    ).encode("cp1252")
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    parsed = parse_document(data, "specials_board.txt")
    assert (parsed.kind, parsed.title) == ("text", "specials board")
    assert parsed.text == (
        "# specials board\n\nCafé crème \u2013 €3\n\n- Pain au chocolat\n- Tarte aux pommes\n\n"
        "Closed “for good” on Mondays."
    )


def test_text_title_from_first_line_and_unicode_boms() -> None:
    parsed = parse_document("Holiday hours\nOpen 24 Dec until noon.".encode("utf-16"))
    assert (parsed.kind, parsed.title) == ("text", "Holiday hours")
    assert parsed.text == "# Holiday hours\nOpen 24 Dec until noon."
    with_bom = codecs.BOM_UTF8 + "Über uns: Bäckerei seit 1998.".encode()
    assert parse_document(with_bom, "about.txt").text == "# about\n\nÜber uns: Bäckerei seit 1998."


# --------------------------------------------------------------------------------------------------
# Rejections


def test_binary_junk_is_not_readable_text() -> None:
    junk = random.Random(7).randbytes(4096)
    assert message(junk, "data.txt") == NOT_TEXT
    controls = bytes(range(1, 32)) * 40 + b"some words"
    assert message(controls, "notes.txt") == NOT_TEXT


@pytest.mark.parametrize(
    ("data", "detected"),
    [
        (b"\x89PNG\r\n\x1a\n" + bytes(64), "a PNG image"),
        (b"\xff\xd8\xff\xe0" + bytes(64), "a JPEG image"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(64), "an old Microsoft Office file"),
        (make_zip({"xl/workbook.xml": "<workbook/>"}), "an Excel spreadsheet (.xlsx)"),
        (make_zip({"photos/cake.jpg": "jpeg"}), "a ZIP archive"),
        (
            b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0"/></svg>',
            "an SVG image",
        ),
    ],
)
def test_unsupported_types_name_the_detected_type(data: bytes, detected: str) -> None:
    text = message(data, "menu.docx")
    assert text.startswith(f"This file looks like {detected}")
    assert "Supported types: PDF, Word (.docx), HTML, Markdown and plain text." in text


def test_empty_and_oversized_files() -> None:
    assert message(b"") == "The file is empty."
    assert message(b" \r\n\t\n", "blank.txt") == "The file is empty."
    assert message(b"a" * 10_000_001, "huge.txt") == "The file is larger than 10 MB."
    assert message(b"a" * 2_001, "big.txt", max_bytes=2_000) == "The file is larger than 2,000 bytes."
    assert parse_document(b"a" * 2_000, "ok.txt", max_bytes=2_000).kind == "text"


# --------------------------------------------------------------------------------------------------
# Limits (issue 16): checked before parsing; the HTTP and worker path is in tests/portal/test_upload_limits.py


def refusal(data: bytes, filename: str, **limits: int) -> str:
    with pytest.raises(DocumentRefused) as caught:
        parse_document(data, filename, limits=DocumentLimits(**limits))
    return str(caught.value)


def test_a_docx_is_refused_by_its_declared_sizes_before_it_is_opened() -> None:
    docx = make_docx()
    assert parse_document(docx, "handbook.docx", limits=DocumentLimits(max_zip_entries=20)).kind == "docx"
    assert refusal(docx, "handbook.docx", max_zip_entries=5) == (
        "Refused: the document holds 17 files, over the limit of 5."
    )
    assert refusal(docx, "handbook.docx", max_unzipped_bytes=10_000).startswith(
        "Refused: the document expands to "
    )
    with_blank_part = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(docx)) as source,
        zipfile.ZipFile(with_blank_part, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for info in source.infolist():
            target.writestr(info, source.read(info.filename))
        target.writestr("word/media/blank.bin", b"\x00" * 2_000_000)  # 2 MB deflate to 2 KB
    assert refusal(with_blank_part.getvalue(), "handbook.docx") == (
        "Refused: the part 'word/media/blank.bin' expands 1,024 times (from 2 KB to 2 MB), over the "
        "limit of 200 times."
    )


def test_a_pdf_is_refused_by_its_pages_and_objects_and_its_text_is_capped() -> None:
    pdf = make_pdf(PRICE_LIST_PAGES)
    assert refusal(pdf, "prices.pdf", max_pdf_pages=2) == "Refused: the PDF has 3 pages, over the limit of 2."
    assert refusal(pdf, "prices.pdf", max_pdf_objects=5) == (
        "Refused: the PDF has 11 objects, over the limit of 5."
    )
    assert refusal(pdf, "prices.pdf", max_chars=100) == (
        "Refused: the document's text is over 100 characters, the limit. Split it into several documents."
    )
    assert parse_document(b"Bread. " * 15, "a.txt", limits=DocumentLimits(max_chars=140)).kind == "text"
    assert refusal(b"Bread. " * 30, "a.txt", max_chars=140).startswith("Refused: the document's text")


def test_the_parser_child_reads_a_document_and_is_stopped_by_its_time_limit() -> None:
    limits = DocumentLimits()
    parsed = parse_in_child(make_docx(), "handbook.docx", limits=limits, memory_mb=512, timeout=60)
    assert parsed == parse_document(make_docx(), "handbook.docx")
    with pytest.raises(DocumentRefused) as caught:
        parse_in_child(make_docx(), "handbook.docx", limits=limits, memory_mb=512, timeout=0.01)
    assert str(caught.value) == "Refused: reading the document took longer than 0.01 seconds, the limit."
    with pytest.raises(DocumentError) as caught:  # an ordinary problem comes back as it is
        parse_in_child(
            b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "menu.png", limits=limits, memory_mb=512, timeout=60
        )
    assert not isinstance(caught.value, DocumentRefused) and "a PNG image" in str(caught.value)


def test_markdown_is_read_as_commonmark_reads_it() -> None:
    # A setext heading may span lines; a "#" inside an indented code block is no heading; an inline
    # comment is dropped and the rest of its line kept.
    doc = (
        b"Our winter\nopening hours\n=============\n\n    # a code sample\n\n* Tea <!-- check price --> $3\n"
    )
    parsed = parse_document(doc, "winter.md")
    assert parsed.title == "Our winter opening hours"
    assert parsed.text == "# Our winter opening hours\n\n    # a code sample\n\n- Tea  $3"
