"""Parsing of uploaded documents into the shared plain-text format.

`parse_document` sniffs the type from the content (never trusting the file name, which only decides
markdown vs plain text) and returns markdown-ish text: "# Title" / "## Section" headings, paragraphs
separated by blank lines, "- item" list items and "cell | cell" table rows. Every problem a business
owner can fix is raised as `DocumentError` with a message meant to be shown to them.

No Django imports: the Django job calls this module.
"""

from __future__ import annotations

import codecs
import io
import logging
import re
import unicodedata
import zipfile
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, Literal

from docx import Document as open_docx
from docx.table import Table
from docx.text.paragraph import Paragraph
from pypdf import Configuration, PageObject, PasswordType, PdfReader, apply_configuration, get_configuration
from pypdf.errors import LimitReachedError

from apps.language.bullets import bullet_body

from .html_text import extract_main_text, with_title_heading

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

__all__ = [
    "SUPPORTED_TYPES",
    "DocumentError",
    "DocumentKind",
    "DocumentLimits",
    "DocumentRefused",
    "ParsedDocument",
    "parse_document",
    "sniff_kind",
]

logger = logging.getLogger(__name__)

DocumentKind = Literal["pdf", "docx", "html", "markdown", "text"]
SUPPORTED_TYPES = "PDF, Word (.docx), HTML, Markdown and plain text"
DEFAULT_MAX_BYTES = 10_000_000
SCANNED_PDF = (
    "No text found in this PDF: it looks scanned (images only). Upload a text PDF or the original document."
)
NOT_TEXT = "This file does not contain readable text."
MARKDOWN_EXTENSIONS = {".md", ".markdown", ".mdown", ".mkd", ".mdx"}


class DocumentError(ValueError):
    """A problem with the uploaded file; str(error) is a message fit for the business owner."""


class DocumentRefused(DocumentError):
    """The file is over a limit on what reading it may cost; the message starts with "Refused:"."""


@dataclass(frozen=True)
class DocumentLimits:
    """What reading one document may cost, checked before the parser runs where the format allows.

    A .docx is a zip: a 1 MB one can expand to gigabytes (issue 16). Python's zipfile never reads more
    than an entry's declared size (ZipExtFile stops at ``file_size``), so the sizes in the central
    directory bound what python-docx can decompress; their sum is checked, which also catches entries
    that overlap on the same compressed bytes. Embedded files (word/embeddings/...) are kept by
    python-docx as bytes, never opened, so a nested archive cannot expand further: its size counts
    towards the total like any part. What no static check sees is bounded by the child process that
    runs the parser (parse_child.py: memory and time limits).
    """

    max_bytes: int = DEFAULT_MAX_BYTES
    max_unzipped_bytes: int = 50_000_000
    max_zip_entries: int = 1_000
    # Office XML compresses 5-30 times; a part over 1 MB that expands more than this is a bomb.
    max_zip_ratio: int = 200
    max_pdf_pages: int = 500
    max_pdf_objects: int = 250_000
    max_chars: int = 1_000_000


DEFAULT_LIMITS = DocumentLimits()
RATIO_CHECK_FROM = 1_000_000


def _size(n: int) -> str:
    """A byte count for the owner: "2.1 GB", "50 MB", "900 KB"."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{n:,} bytes"


@dataclass
class ParsedDocument:
    kind: DocumentKind
    title: str
    text: str


# --------------------------------------------------------------------------------------------------
# Type sniffing

_MAGIC: list[tuple[bytes, int, str]] = [
    (b"\x89PNG\r\n\x1a\n", 0, "a PNG image"),
    (b"\xff\xd8\xff", 0, "a JPEG image"),
    (b"GIF87a", 0, "a GIF image"),
    (b"GIF89a", 0, "a GIF image"),
    (b"II*\x00", 0, "a TIFF image"),
    (b"MM\x00*", 0, "a TIFF image"),
    (b"\x00\x00\x01\x00", 0, "an icon file"),
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        0,
        "an old Microsoft Office file (.doc/.xls/.ppt) or an encrypted one",
    ),
    (b"{\\rtf", 0, "an RTF document"),
    (b"\x1f\x8b", 0, "a gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", 0, "a 7-Zip archive"),
    (b"Rar!\x1a\x07", 0, "a RAR archive"),
    (b"BZh", 0, "a bzip2 archive"),
    (b"\xfd7zXZ\x00", 0, "an xz archive"),
    (b"ID3", 0, "an MP3 audio file"),
    (b"OggS", 0, "an Ogg media file"),
    (b"fLaC", 0, "a FLAC audio file"),
    (b"\x1aE\xdf\xa3", 0, "a WebM/Matroska video"),
    (b"\x7fELF", 0, "a program (ELF executable)"),
    (b"MZ", 0, "a Windows program"),
    (b"wOFF", 0, "a web font"),
    (b"wOF2", 0, "a web font"),
    (b"SQLite format 3\x00", 0, "an SQLite database"),
]
_ZIP_KINDS = [
    ("xl/workbook.xml", "an Excel spreadsheet (.xlsx)"),
    ("ppt/presentation.xml", "a PowerPoint presentation (.pptx)"),
    ("META-INF/container.xml", "an e-book (.epub)"),
    ("content.xml", "an OpenDocument file (.odt/.ods/.odp)"),
]
_HTML_START_RE = re.compile(
    r"^\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.I | re.S
)
_HTML_TAG_RE = re.compile(
    r"</?(?:html|head|body|div|p|span|a|ul|ol|li|table|tr|td|th|h[1-6]|br|meta|title|section|article|strong|em"
    r"|img|header|footer|nav|main)\b[^>]*>",
    re.I,
)
_SVG_RE = re.compile(
    r"\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*(?:<!DOCTYPE svg[^>]*>\s*)?<svg\b", re.I | re.S
)


def _binary_type(data: bytes) -> str | None:
    """A human label for known non-text formats we do not support, else None."""
    for magic, offset, label in _MAGIC:
        if data[offset : offset + len(magic)] == magic:
            return label
    if data[:4] == b"RIFF" and data[8:12] in (b"WEBP", b"WAVE", b"AVI "):
        return {b"WEBP": "a WebP image", b"WAVE": "a WAV audio file", b"AVI ": "an AVI video"}[data[8:12]]
    if data[4:8] == b"ftyp":
        brand = data[8:12]
        return "a HEIC/AVIF image" if brand in (b"heic", b"heix", b"mif1", b"avif") else "an MP4/MOV video"
    return None


def _check_docx_zip(data: bytes) -> None:
    """Return quietly for a DOCX, else raise DocumentError naming the kind of zip."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise DocumentError(
            f"This file looks like a damaged ZIP archive. Supported types: {SUPPORTED_TYPES}."
        ) from exc
    if "word/document.xml" in names:
        return
    label = next((label for marker, label in _ZIP_KINDS if marker in names), "a ZIP archive")
    raise _unsupported(label)


def _check_zip_limits(data: bytes, limits: DocumentLimits) -> None:
    """Refuse a zip whose central directory says it expands too far, before anything is decompressed."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            entries = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise DocumentError("This Word document could not be read; it may be damaged.") from exc
    if len(entries) > limits.max_zip_entries:
        raise DocumentRefused(
            f"Refused: the document holds {len(entries):,} files, over the limit of "
            f"{limits.max_zip_entries:,}."
        )
    total = sum(entry.file_size for entry in entries)
    if total > limits.max_unzipped_bytes:
        raise DocumentRefused(
            f"Refused: the document expands to {_size(total)}, over the "
            f"{_size(limits.max_unzipped_bytes)} limit."
        )
    for entry in entries:
        ratio = entry.file_size / max(entry.compress_size, 1)
        if entry.file_size > RATIO_CHECK_FROM and ratio > limits.max_zip_ratio:
            raise DocumentRefused(
                f"Refused: the part {entry.filename!r} expands {ratio:,.0f} times (from "
                f"{_size(entry.compress_size)} to {_size(entry.file_size)}), over the limit of "
                f"{limits.max_zip_ratio:,} times."
            )


def _unsupported(label: str) -> DocumentError:
    return DocumentError(
        f"This file looks like {label}, which is not supported. Supported types: {SUPPORTED_TYPES}."
    )


def _looks_like_markdown(text: str) -> bool:
    """Markdown by what markdown-it finds in it: a heading, a link or a fenced block; or a list of two
    or more items beside strong emphasis or inline code (a plain list alone is plain text)."""
    tokens = _markdown_tokens(text)
    kinds = {token.type for token in tokens}
    inline = {child.type for token in tokens for child in token.children or ()}
    if kinds & {"heading_open", "fence"} or "link_open" in inline:
        return True
    items = sum(token.type == "list_item_open" for token in tokens)
    return items >= 2 and bool(inline & {"strong_open", "code_inline"})


def _looks_like_html(text: str) -> bool:
    head = text[:4096]
    if _HTML_START_RE.match(head):
        return True
    if not head.lstrip().startswith("<") or any(t.markup.startswith("#") for t in _markdown_tokens(text)):
        return False
    return len(_HTML_TAG_RE.findall(head)) >= 3


def sniff_kind(data: bytes, filename: str = "") -> DocumentKind:
    """Detect the document type from its content; the file name only separates markdown from text.

    Raises DocumentError for empty files, known unsupported formats and binary junk.
    """
    if not data.strip(b" \t\r\n\x0b\x0c\x00").removeprefix(codecs.BOM_UTF8).strip():
        raise DocumentError("The file is empty.")
    if b"%PDF-" in data[:1024]:
        return "pdf"
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        _check_docx_zip(data)
        return "docx"
    label = _binary_type(data)
    if label is not None:
        raise _unsupported(label)
    text = _decode_text(data[:65536], check=False)
    if _SVG_RE.match(text):
        raise _unsupported("an SVG image")
    if text.lstrip().startswith("<?xml") and not _looks_like_html(text):
        raise _unsupported("an XML data file")
    if _looks_like_html(text):
        return "html"
    if PurePath(filename).suffix.lower() in MARKDOWN_EXTENSIONS:
        return "markdown"
    return "markdown" if _looks_like_markdown(_decode_text(data, check=False)) else "text"


# --------------------------------------------------------------------------------------------------
# Text decoding and shared normalisation


def _utf16_without_bom(data: bytes) -> str | None:
    """Notepad-style UTF-16 text without BOM: every other byte is NUL."""
    sample = data[:4096]
    if len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    for zeros, codec in ((odd, "utf-16-le"), (even, "utf-16-be")):
        if zeros.count(0) >= 0.9 * len(zeros):
            try:
                return data.decode(codec)
            except UnicodeDecodeError:
                return None
    return None


def _decode_text(data: bytes, check: bool = True) -> str:
    if data.startswith(codecs.BOM_UTF8):
        text = data[3:].decode("utf-8", errors="replace")
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = data.decode("utf-16", errors="replace")
    elif b"\x00" in data:
        utf16 = _utf16_without_bom(data)
        if utf16 is None:
            if check:
                raise DocumentError(NOT_TEXT)
            return data.decode("latin-1")
        text = utf16
    else:
        text = _decode_legacy(data)
    if check and not _readable(text):
        raise DocumentError(NOT_TEXT)
    return text


def _decode_legacy(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
            return data.decode("utf-8", errors="replace")  # a truncated last character
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _readable(text: str) -> bool:
    if not text.strip():
        return False
    sample = text[:200_000]
    bad = sum(
        1
        for ch in sample
        if ch == "\ufffd" or (unicodedata.category(ch) in ("Cc", "Co", "Cn") and ch not in "\n\r\t\f")
    )
    return bad <= 0.02 * len(sample)


_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_HSPACE_RE = re.compile(r"[^\S\n]+")


def _finish(text: str) -> str:
    """Trailing spaces off, at most one blank line in a row, no leading/trailing blank lines."""
    text = _CONTROL_RE.sub("", text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n\n"))
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


def _collapse(text: str) -> str:
    return _HSPACE_RE.sub(" ", text.replace("\n", " ")).strip()


def _stem_title(filename: str) -> str:
    stem = PurePath(filename.replace("\\", "/")).stem if filename else ""
    return _collapse(re.sub(r"[_]+|(?<=\w)-(?=\w)", " ", stem))


def _result(kind: DocumentKind, title: str, text: str) -> ParsedDocument:
    text = _finish(text)
    if not re.search(r"\w", text):
        raise DocumentError(SCANNED_PDF if kind == "pdf" else NOT_TEXT)
    title = _collapse(title)
    return ParsedDocument(kind=kind, title=title, text=with_title_heading(title, text))


# --------------------------------------------------------------------------------------------------
# Plain text and markdown

_FRONT_MATTER_RE = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)


@cache
def _markdown_parser() -> MarkdownIt:
    from markdown_it import MarkdownIt  # lazy: only uploaded documents need it

    return MarkdownIt("commonmark").enable("table")


def _markdown_tokens(text: str) -> list[Token]:
    return _markdown_parser().parse(text)


def _parse_text(data: bytes, filename: str) -> ParsedDocument:
    text = _finish(_decode_text(data))
    lines = [
        f"- {body}" if (body := bullet_body(line)) is not None else line.strip() for line in text.split("\n")
    ]
    text = "\n".join(_HSPACE_RE.sub(" ", line) for line in lines)
    first = next((line for line in lines if line.strip()), "")
    first = "" if first.startswith("- ") else first
    title = _stem_title(filename) or (first if len(first) <= 120 else "")
    if (
        first and title == first
    ):  # the first line *is* the title: make it the top heading instead of repeating it
        text = text.replace(first, f"# {first}", 1)
    return _result("text", title, text)


def _parse_markdown(data: bytes, filename: str) -> ParsedDocument:
    """A Markdown document in one canonical form for the readers after it: ATX headings ("## ..."),
    "- " bullets, no HTML comments. markdown-it (CommonMark) finds them, so setext underlines,
    closing hashes and fenced or indented code are read as Markdown reads them; every other line is
    kept as written."""
    text = _finish(_decode_text(data))
    title = ""
    front = _FRONT_MATTER_RE.match(text)  # YAML front matter is not CommonMark: read before parsing
    if front:
        named = next((line for line in front.group(1).split("\n") if line.lower().startswith("title:")), "")
        title = named.partition(":")[2].strip().strip("\"'")
        text = text[front.end() :]
    lines: list[str | None] = list(text.split("\n"))
    headings: list[tuple[int, str]] = []
    tokens = _markdown_tokens(text)
    for index, token in enumerate(tokens):
        if token.map is None:
            continue
        first, after = token.map
        if token.type == "heading_open" and token.level == 0:
            level, content = int(token.tag[1]), " ".join(tokens[index + 1].content.split())
            headings.append((level, content))
            lines[first:after] = [f"{'#' * level} {content}"] + [None] * (after - first - 1)
        elif token.type == "list_item_open" and token.markup in ("*", "+"):
            line = lines[first] or ""
            body = line.lstrip()
            if body.startswith(token.markup):
                lines[first] = f"{line[: len(line) - len(body)]}- {body[1:].lstrip()}"
        elif token.type == "html_block" and token.content.lstrip().startswith("<!--"):
            lines[first:after] = [None] * (after - first)
        elif token.type == "inline" and after == first + 1:
            for child in token.children or ():
                if child.type == "html_inline" and child.content.startswith("<!--"):
                    lines[first] = (lines[first] or "").replace(child.content, "")
    text = "\n".join(line for line in lines if line is not None)
    h1 = next((content for level, content in headings if level == 1), "")
    title = h1 or title or _stem_title(filename) or (headings[0][1] if headings else "")
    return _result("markdown", title, text)


# --------------------------------------------------------------------------------------------------
# HTML


def _parse_html(data: bytes, filename: str) -> ParsedDocument:
    page = extract_main_text(data)
    return _result("html", page.title or _stem_title(filename), page.text)


# --------------------------------------------------------------------------------------------------
# DOCX


def _parse_docx(data: bytes, filename: str) -> ParsedDocument:
    try:
        document = open_docx(io.BytesIO(data))
        paragraphs = list(document.iter_inner_content())
        core_title = document.core_properties.title or ""
    except MemoryError:  # the parse_child process's limit: a refusal, not a damaged file
        raise
    except Exception as exc:
        raise DocumentError("This Word document could not be read; it may be damaged.") from exc

    styles: dict[str | None, list[str]] = {}

    def heading_level(paragraph: Paragraph) -> int | None:
        for name in _docx_style_names(paragraph, styles):
            if name.lower() == "title":
                return 0
            match = re.fullmatch(r"heading (\d)", name.lower())
            if match:
                return int(match.group(1))
        return None

    levels = {id(p): heading_level(p) for p in paragraphs if isinstance(p, Paragraph)}
    has_title_style = 0 in levels.values()
    blocks: list[str] = []
    title = core_title.strip()
    list_run: list[str] = []

    def flush_list() -> None:
        if list_run:
            blocks.append("\n".join(list_run))
            list_run.clear()

    for item in paragraphs:
        if isinstance(item, Table):
            flush_list()
            rows = _docx_table_rows(item)
            if rows:
                blocks.append("\n".join(rows))
            continue
        text = "\n".join(_collapse(line) for line in item.text.split("\n") if line.strip())
        if not text:
            continue
        level = levels[id(item)]
        if level is not None:
            flush_list()
            text = _collapse(text)
            depth = 1 if level == 0 else min(6, level + (1 if has_title_style else 0))
            blocks.append("#" * depth + " " + text)
            if not title and (level == 0 or (level == 1 and not has_title_style)):
                title = text
            continue
        list_level = _docx_list_level(item, _docx_style_names(item, styles))
        if list_level is not None:
            list_run.append("  " * list_level + "- " + _collapse(text))
            continue
        flush_list()
        blocks.append(text)
    flush_list()
    return _result("docx", title or _stem_title(filename), "\n\n".join(blocks))


def _docx_style_names(paragraph: Paragraph, cache: dict[str | None, list[str]]) -> list[str]:
    """The names of the paragraph's style and of the styles it is based on, looked up once per style id.

    python-docx finds a paragraph's style by scanning every style of the document each time (the
    default style for a paragraph without one): a 1,400-paragraph document took 20 s before."""
    style_id: str | None = paragraph._p.style
    if style_id not in cache:
        names: list[str] = []
        style = paragraph.style
        while style is not None:
            names.append(style.name or "")
            style = style.base_style
        cache[style_id] = names
    return cache[style_id]


def _docx_list_level(paragraph: Paragraph, style_names: list[str]) -> int | None:
    """Nesting level when the paragraph is a list item (numbering or a List style), else None."""
    p_pr: Any = paragraph._p.pPr  # python-docx's oxml descriptors are not typed
    num_pr: Any = p_pr.numPr if p_pr is not None else None
    if num_pr is not None and num_pr.numId is not None and num_pr.numId.val != 0:
        ilvl = num_pr.ilvl
        return int(ilvl.val) if ilvl is not None else 0
    name = style_names[0] if style_names else ""
    match = re.fullmatch(r"List(?: (?:Bullet|Number|Continue))?(?: (\d))?|List Paragraph", name)
    if match:
        return int(match.group(1)) - 1 if match.group(1) else 0
    return None


def _docx_table_rows(table: Table) -> list[str]:
    rows: list[str] = []
    for row in table.rows:
        cells: list[str] = []
        previous = None
        try:
            row_cells = row.cells
        except Exception:  # malformed table XML: skip the row rather than the document
            logger.debug("skipping an unreadable DOCX table row", exc_info=True)
            continue
        for cell in row_cells:
            if cell._tc is previous:  # horizontally merged cells repeat the same element
                continue
            previous = cell._tc
            cells.append(_collapse(cell.text))
        if any(cells):
            rows.append(" | ".join(cells))
    return rows


# --------------------------------------------------------------------------------------------------
# PDF

_PAGE_NUMBER_RE = re.compile(
    r"^(?:page|p\.|seite|página|pagina)?\s*[-\u2013]?\s*\d{1,4}\s*(?:(?:of|/|von|de)\s*\d{1,4})?\s*[-\u2013]?$",
    re.I,
)
_SENTENCE_END_RE = re.compile(r"[.!?:;)\]\"'»”]$")


def _pdf_has_images(page: PageObject) -> bool:
    try:
        resources = page.get("/Resources")
        resources = resources.get_object() if resources is not None else None
        xobjects = resources.get("/XObject") if resources is not None else None
        xobjects = xobjects.get_object() if xobjects is not None else None
        if not xobjects:
            return False
        return any(xobjects[name].get_object().get("/Subtype") == "/Image" for name in xobjects)
    except Exception:
        return False


def _strip_running_lines(pages: list[list[str]]) -> list[list[str]]:
    """Drop page numbers and headers/footers repeated at the top/bottom of most pages."""

    def key(line: str) -> str:
        return re.sub(r"\d+", "#", line).lower()

    counts: Counter[str] = Counter()
    if len(pages) >= 3:
        for lines in pages:
            edge = [line for line in lines if line][:2] + [line for line in lines if line][-2:]
            counts.update({key(line) for line in edge})
    threshold = max(2, int(0.6 * len(pages) + 0.5))
    cleaned: list[list[str]] = []
    for lines in pages:
        non_empty = [i for i, line in enumerate(lines) if line]
        edges = set(non_empty[:2] + non_empty[-2:])
        kept = [
            line
            for i, line in enumerate(lines)
            if not (i in edges and (_PAGE_NUMBER_RE.match(line) or counts[key(line)] >= threshold))
        ]
        cleaned.append(kept)
    return cleaned


def _starts_section(previous: str, line: str, full: int) -> bool:
    """A short, unpunctuated, capitalised line after a finished sentence: probably a heading."""
    return (
        bool(_SENTENCE_END_RE.search(previous))
        and len(line) < 0.6 * full
        and line[:1].isupper()
        and not _SENTENCE_END_RE.search(line)
    )


def _pdf_blocks(lines: list[str]) -> list[str]:
    """Rebuild paragraphs from hard-wrapped lines: a line close to full width continues on the next."""
    lengths = sorted(len(line) for line in lines if line)
    if not lengths:
        return []
    full = lengths[min(len(lengths) - 1, int(len(lengths) * 0.8))]
    wraps = full >= 40
    blocks: list[str] = []
    current: list[str] = []  # lines of the current block; a line may be a list item

    def flush() -> None:
        if current:
            blocks.append("\n".join(current))
            current.clear()

    previous = ""
    for line in lines:
        if not line:
            flush()
            previous = ""
            continue
        body = bullet_body(line)
        if body is not None:
            if current and not current[-1].startswith("- "):
                flush()
            current.append("- " + body)
        elif (
            previous
            and wraps
            and len(previous) >= 0.75 * full
            and not _starts_section(previous, line, full)
            and " | " not in previous  # a table row is a line of its own
        ):
            joiner = "" if previous.endswith("-") and line[:1].islower() else " "
            current[-1] += joiner + line
        elif previous and _SENTENCE_END_RE.search(previous):
            flush()
            current.append(line)
        else:
            if current and current[-1].startswith("- "):
                flush()
            current.append(line)
        previous = line
    flush()
    return blocks


_COLUMN_GAP_RE = re.compile(r"\S(?: {3,})\S")


def _is_layout_row(line: str) -> bool:
    """Cells apart by wide gaps, each after the first short (a two-column page's prose is not)."""
    if not _COLUMN_GAP_RE.search(line.strip()):
        return False
    cells = re.split(r" {3,}", line.strip())
    return len(cells) >= 2 and all(len(cell.split()) <= 6 for cell in cells[1:])


def _with_columns(page: PageObject, plain: str) -> str:
    """The page's text with table rows as "cell | cell" lines, when the page has a table.

    pypdf's default extraction runs a table's cells together ("Deluxe wash $30 $45"); its layout
    mode keeps their columns apart with spaces. A run of two or more layout lines with wide gaps is
    a table: those lines are kept as cells, the rest of the page as the default extraction reads it."""
    if not plain.strip():
        return plain
    try:
        layout = page.extract_text(extraction_mode="layout") or ""
    except LimitReachedError:
        raise
    except Exception:  # layout mode is a second reading; the default one stands without it
        return plain
    lines = layout.split("\n")
    tabular = [_is_layout_row(line) for line in lines]
    runs = {
        i
        for i, flag in enumerate(tabular)
        if flag and ((i > 0 and tabular[i - 1]) or (i + 1 < len(tabular) and tabular[i + 1]))
    }
    if not runs:
        return plain
    out = []
    for i, line in enumerate(lines):
        if i in runs:
            out.append(" | ".join(cell.strip() for cell in re.split(r" {3,}", line.strip())))
        else:
            out.append(_HSPACE_RE.sub(" ", line).strip())
    return "\n".join(out)


def _pdf_title(metadata_title: str, filename: str, first_line: str) -> str:
    title = re.sub(r"^Microsoft (?:Word|PowerPoint|Excel) - ", "", metadata_title.strip())
    if title.lower() in ("", "untitled", "title", "document") or re.search(r"\.\w{2,4}$", title):
        title = ""
    return title or _stem_title(filename) or (first_line if len(first_line) <= 120 else "")


def _pdf_config(limits: DocumentLimits) -> Configuration:
    """pypdf's own limits (pypdf.Configuration, 75 MB per stream by default), held to ours."""
    most = limits.max_unzipped_bytes
    return get_configuration().with_overwrites(
        maximum_declared_stream_length=most,
        array_based_stream_maximum_output_length=most,
        zlib_maximum_output_length=most,
        lzw_maximum_output_length=most,
        run_length_maximum_output_length=most,
        brotli_maximum_output_length=most,
        jbig2_maximum_output_length=most,
        image_maximum_buffer_size=most,
    )


def _pdf_open(data: bytes, limits: DocumentLimits) -> tuple[list[PageObject], str]:
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED:
            raise DocumentError("This PDF is password-protected. Remove the password and upload it again.")
        # /Size is one more than the highest object number: what the cross-reference table declares.
        objects = int(reader.trailer.get("/Size", 0) or 0)
        if objects > limits.max_pdf_objects:
            raise DocumentRefused(
                f"Refused: the PDF has {objects:,} objects, over the limit of {limits.max_pdf_objects:,}."
            )
        count = len(reader.pages)
        if count > limits.max_pdf_pages:
            raise DocumentRefused(
                f"Refused: the PDF has {count:,} pages, over the limit of {limits.max_pdf_pages:,}."
            )
        pages = list(reader.pages)
        metadata_title = (reader.metadata.title if reader.metadata is not None else None) or ""
    except DocumentError:
        raise
    except LimitReachedError as exc:
        raise DocumentRefused(f"Refused: part of this PDF is over a size limit ({exc}).") from exc
    except MemoryError:  # the parse_child process's limit: a refusal, not a damaged file
        raise
    except Exception as exc:
        raise DocumentError("This PDF could not be read; it may be damaged.") from exc
    return pages, metadata_title


def _parse_pdf(data: bytes, filename: str, limits: DocumentLimits = DEFAULT_LIMITS) -> ParsedDocument:
    pages, metadata_title = _pdf_open(data, limits)
    if not pages:
        raise DocumentError("This PDF could not be read; it may be damaged.")
    raw_pages: list[list[str]] = []
    chars = 0
    for page in pages:
        try:
            extracted = _with_columns(page, page.extract_text() or "")
        except LimitReachedError as exc:
            raise DocumentRefused(f"Refused: part of this PDF is over a size limit ({exc}).") from exc
        except MemoryError:
            raise
        except Exception:  # one broken page must not lose the others
            extracted = ""
        chars += len(extracted)
        if chars > limits.max_chars:  # stop extracting at once: the rest would be refused anyway
            raise _too_long(limits)
        raw_pages.append([_HSPACE_RE.sub(" ", line).strip() for line in _finish(extracted).split("\n")])

    cleaned = _strip_running_lines(raw_pages)
    alnum = sum(ch.isalnum() for lines in cleaned for line in lines for ch in line)
    if alnum == 0 or (alnum < 5 * len(pages) and sum(map(_pdf_has_images, pages)) * 2 > len(pages)):
        raise DocumentError(SCANNED_PDF)
    blocks = [block for lines in cleaned for block in _pdf_blocks(lines)]
    first_line = next((line for lines in cleaned for line in lines if line), "")
    return _result("pdf", _pdf_title(metadata_title, filename, first_line), "\n\n".join(blocks))


# --------------------------------------------------------------------------------------------------


def _too_long(limits: DocumentLimits) -> DocumentRefused:
    return DocumentRefused(
        f"Refused: the document's text is over {limits.max_chars:,} characters, the limit. Split it into "
        "several documents."
    )


def parse_document(
    data: bytes,
    filename: str = "",
    max_bytes: int | None = None,
    limits: DocumentLimits = DEFAULT_LIMITS,
) -> ParsedDocument:
    """Parse an uploaded file (type sniffed from the content) into title + markdown-ish text.

    Raises DocumentRefused when the file is over one of ``limits`` (checked before parsing where the
    format declares its size), DocumentError for any other problem the owner can fix."""
    max_bytes = limits.max_bytes if max_bytes is None else max_bytes
    if len(data) > max_bytes:
        limit = f"{max_bytes / 1_000_000:g} MB" if max_bytes >= 1_000_000 else f"{max_bytes:,} bytes"
        raise DocumentError(f"The file is larger than {limit}.")
    kind = sniff_kind(data, filename)
    if kind == "pdf":
        with apply_configuration(_pdf_config(limits)):
            parsed = _parse_pdf(data, filename, limits)
    elif kind == "docx":
        _check_zip_limits(data, limits)
        parsed = _parse_docx(data, filename)
    elif kind == "html":
        parsed = _parse_html(data, filename)
    elif kind == "markdown":
        parsed = _parse_markdown(data, filename)
    else:
        parsed = _parse_text(data, filename)
    if len(parsed.text) > limits.max_chars:
        raise _too_long(limits)
    return parsed
