"""Main-text extraction from HTML pages.

`extract_main_text` turns a web page into the shared plain-text format used by the knowledge layer:
markdown headings ("# Title", "## Section"), paragraphs separated by blank lines, list items as
"- item" and table rows as "cell | cell". Site chrome (navigation, header/footer, cookie banners,
hidden elements, scripts, forms, blocks made only of links...) is dropped; links are collected from the whole page so the
crawler can follow navigation menus.

No Django imports: this module is used by the crawler and the document parser alike.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from urllib.parse import urldefrag, urljoin, urlsplit

from bs4 import BeautifulSoup
from bs4.element import NavigableString, PageElement, PreformattedString, Tag

__all__ = ["ExtractedPage", "decode_html", "extract_main_text"]


@dataclass
class ExtractedPage:
    title: str
    text: str
    links: list[str] = field(default_factory=list)
    # Text of the page's site footer (dropped from `text`). Small-business sites often keep their
    # address, phone number and opening hours there, so callers may want to ingest it once per site.
    footer_text: str = ""


# --------------------------------------------------------------------------------------------------
# Decoding

_META_CHARSET_RE = re.compile(
    rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""", re.IGNORECASE
)
_UTF8_SEQ_RE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
_HIGH_BYTE_RE = re.compile(rb"[\x80-\xff]")
# WHATWG: these labels really mean windows-1252 on the web.
_LEGACY_ALIASES = {"latin_1": "cp1252", "iso8859-1": "cp1252", "ascii": "cp1252"}


def _codec_name(label: str | None) -> str | None:
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().strip("\"'")).name
    except (LookupError, ValueError):
        return None
    if name.startswith("utf-16") or name.startswith("utf-32"):
        return "utf-8"  # a meta/header utf-16 label on a BOM-less byte stream is always wrong
    return _LEGACY_ALIASES.get(name, name)


def decode_html(data: bytes, declared: str | None = None) -> str:
    """Decode HTML bytes robustly.

    Order: BOM, then valid UTF-8 (a non-ASCII byte stream that decodes as UTF-8 almost surely is UTF-8,
    whatever a server claims), then the declared charset (HTTP header, then <meta charset>), then
    mostly-UTF-8 with replacement characters, else windows-1252 (the web's legacy default).
    """
    for bom, codec in (
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            return data.decode(codec, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    meta = _META_CHARSET_RE.search(data[:8192])
    for label in (declared, meta.group(1).decode("ascii", "ignore") if meta else None):
        declared_codec = _codec_name(label)
        if declared_codec and declared_codec != "utf-8":
            return data.decode(declared_codec, errors="replace")
    valid_sequences = len(_UTF8_SEQ_RE.findall(data))
    high_bytes = len(_HIGH_BYTE_RE.findall(data))
    stray = high_bytes - sum(len(m) for m in _UTF8_SEQ_RE.findall(data))
    if valid_sequences and valid_sequences >= stray:
        return data.decode("utf-8", errors="replace")
    return data.decode("cp1252", errors="replace")


# --------------------------------------------------------------------------------------------------
# Cleaning

_DROP_TAGS = [
    "script",
    "style",
    "noscript",
    "template",
    "svg",
    "math",
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "canvas",
    "video",
    "audio",
    "map",
    "form",
    "select",
    "textarea",
    "input",
    "nav",
    "aside",
]
_DROP_ROLES = {"navigation", "banner", "complementary", "search", "menu", "menubar", "toolbar"}
_NOISE_RE = re.compile(
    r"cookie|consent|gdpr|ccpa|onetrust|cookiebot|cookieyes|usercentrics|cc-(?:window|banner)"
    r"|privacy-(?:banner|notice|popup)|breadcrumb|skip-(?:link|to)",
    re.IGNORECASE,
)
_PANEL_RE = re.compile(r"accordion|collaps|faq|tab-?pane|tab-?panel|toggle-content", re.IGNORECASE)
_HIDDEN_STYLE_RE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_PROTECTED = {"html", "body", "main", "article"}
_MAX_NOISE_TEXT = 2000  # a "cookie" element with more text than this is not a banner
_MAX_DEPTH = 120  # deeper elements are flattened to plain text


def _attr(tag: Tag, name: str) -> str:
    value = tag.get(name)
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return " ".join(value)


def _is_hidden(tag: Tag, panel_ids: set[str]) -> bool:
    hidden = tag.has_attr("hidden") and _attr(tag, "hidden").lower() != "until-found"
    hidden = hidden or _attr(tag, "aria-hidden").lower() == "true"
    hidden = hidden or bool(_HIDDEN_STYLE_RE.search(_attr(tag, "style")))
    hidden = hidden or (tag.name == "dialog" and not tag.has_attr("open"))
    if not hidden:
        return False
    # Collapsed accordion / tab panels are real content (FAQ answers!): keep them.
    if _attr(tag, "id") in panel_ids or _attr(tag, "role").lower() == "tabpanel":
        return False
    return not _PANEL_RE.search(_attr(tag, "class") + " " + _attr(tag, "id"))


def _is_noise(tag: Tag) -> bool:
    if tag.name in _PROTECTED:
        return False
    if _attr(tag, "role").lower() in _DROP_ROLES:
        return True
    haystack = " ".join(_attr(tag, a) for a in ("id", "class", "aria-label", "aria-describedby"))
    if not _NOISE_RE.search(haystack):
        return False
    if tag.find(["main", "article"]) is not None:
        return False
    return len(tag.get_text()) <= _MAX_NOISE_TEXT


# Rows of links ("Home | Menu | Book"), not lists: a list of links in the content ("See the full
# menu", "Gift cards") may say what the business offers; menus in lists sit in <nav> or a header.
_LINK_BLOCKS = {"div", "p", "section", "span", "td"}
_MIN_LINKS = 3
_LINK_SHARE = 0.8  # of the block's letters, in its links' text
_MAX_LINK_WORDS = 4  # on average per link: menu labels, not sentences with a link in them


def _is_link_block(tag: Tag) -> bool:
    """A block made of links (a menu bar, social icons, a footer's link row) that no <nav> or role
    marks: mostly link text, in short labels. It names pages, it states nothing."""
    if tag.name not in _LINK_BLOCKS or tag.find(["table", "ul", "ol", "h1", "h2", "h3", "main", "article"]):
        return False
    links = tag.find_all("a", limit=200)
    if len(links) < _MIN_LINKS:
        return False
    if any(_attr(link, "href").lower().startswith(("tel:", "mailto:")) for link in links):
        return False  # "Email us or call ...": contact details are content
    link_texts = [_collapse(link.get_text(" ")) for link in links]
    letters = sum(ch.isalnum() for ch in tag.get_text())
    in_links = sum(ch.isalnum() for text in link_texts for ch in text)
    words = sum(len(text.split()) for text in link_texts) / len(links)
    return letters > 0 and in_links >= _LINK_SHARE * letters and words <= _MAX_LINK_WORDS


def _is_content_root(tag: Tag) -> bool:
    return tag.name in ("main", "article") or _attr(tag, "role").lower() == "main"


@dataclass
class _Scan:
    """What one pass over the raw document finds (bs4's find() is slow on big pages: walk once)."""

    title: str = ""
    og_title: str = ""
    base_href: str | None = None
    hrefs: list[str] = field(default_factory=list)
    panel_ids: set[str] = field(default_factory=set)


def _scan(soup: BeautifulSoup) -> _Scan:
    scan = _Scan()
    for node in soup.descendants:
        if not isinstance(node, Tag):
            continue
        name = node.name
        if name in ("a", "area") and node.has_attr("href"):
            scan.hrefs.append(_attr(node, "href"))
        elif name == "title" and not scan.title:
            scan.title = _collapse(node.get_text())
        elif name == "meta" and _attr(node, "property") == "og:title" and not scan.og_title:
            scan.og_title = _collapse(_attr(node, "content"))
        elif name == "base" and scan.base_href is None and node.has_attr("href"):
            scan.base_href = _attr(node, "href").strip()
        if node.has_attr("aria-controls"):
            scan.panel_ids.update(_attr(node, "aria-controls").split())
    return scan


@dataclass
class _Cleaned:
    footers: list[Tag]  # site footers taken out of the document, in document order
    mains: list[Tag]  # surviving <main> / role=main elements
    articles: list[Tag]


def _clean(soup: BeautifulSoup, panel_ids: set[str]) -> _Cleaned:
    """Remove chrome from the soup in place.

    One iterative top-down pass (removed subtrees are never visited). Headers and footers inside
    <main>/<article> are content (an article's byline) and stay. Absurdly deep nesting is flattened to
    text so that rendering never hits Python's recursion limit.
    """
    drop = set(_DROP_TAGS)
    cleaned = _Cleaned([], [], [])
    stack: list[tuple[Tag, bool, int]] = [(soup, False, 0)]
    while stack:
        node, in_content, depth = stack.pop()
        children = [child for child in node.children if isinstance(child, Tag)]
        for tag in reversed(children):
            role = _attr(tag, "role").lower()
            if tag.name in drop or _is_hidden(tag, panel_ids) or _is_noise(tag) or _is_link_block(tag):
                tag.decompose()
            elif not in_content and (tag.name == "footer" or role == "contentinfo"):
                cleaned.footers.append(tag.extract())
            elif not in_content and tag.name == "header":
                tag.decompose()
            elif depth >= _MAX_DEPTH:
                tag.replace_with(NavigableString(" " + tag.get_text(" ") + " "))
            else:
                if tag.name == "main" or role == "main":
                    cleaned.mains.append(tag)
                elif tag.name == "article":
                    cleaned.articles.append(tag)
                stack.append((tag, in_content or _is_content_root(tag), depth + 1))
    for found in (cleaned.footers, cleaned.mains, cleaned.articles):
        found.reverse()  # siblings were visited last-first
    return cleaned


def _choose_container(soup: BeautifulSoup, cleaned: _Cleaned) -> Tag:
    """<main> (or role=main), else a lone <article>, else <body>."""
    body = soup.body or soup
    candidates = cleaned.mains[:1] + (cleaned.articles if len(cleaned.articles) == 1 else [])
    if not candidates:
        return body
    body_len = len(_collapse(body.get_text(" ")))
    for candidate in candidates:
        length = len(_collapse(candidate.get_text(" ")))
        # Some sites wrap only a hero in <main>: fall back to the body when <main> is nearly empty.
        if length >= 200 or length * 4 >= body_len:
            return candidate
    return body


# --------------------------------------------------------------------------------------------------
# Rendering

_WS_RE = re.compile(r"\s+")
_INVISIBLE_RE = re.compile("[\u00ad\u200b\u2060\ufeff]")
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_BLOCK_TAGS = {
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "caption",
    "center",
    "dd",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "header",
    "hgroup",
    "hr",
    "li",
    "main",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "ul",
    *_HEADINGS,
}
_LAYOUT_MARKERS = ["p", "ul", "ol", "table", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote"]


def _collapse(text: str) -> str:
    return _WS_RE.sub(" ", _INVISIBLE_RE.sub("", text)).strip()


def _is_text(node: PageElement) -> bool:
    return isinstance(node, NavigableString) and not isinstance(node, PreformattedString)


def _inline_text(node: Tag, nested_lists: list[Tag] | None = None) -> str:
    """Text of an element on one line; block boundaries and <br> become spaces.

    With `nested_lists`, <ul>/<ol> descendants are skipped and collected there instead (list items).
    """
    parts: list[str] = []

    def walk(element: Tag) -> None:
        for child in element.children:
            if _is_text(child):
                parts.append(str(child))
            elif isinstance(child, Tag):
                if nested_lists is not None and child.name in ("ul", "ol"):
                    nested_lists.append(child)
                elif child.name in _BLOCK_TAGS or child.name == "br":
                    parts.append(" ")
                    walk(child)
                    parts.append(" ")
                else:
                    walk(child)

    walk(node)
    return _collapse("".join(parts))


def _has_descendant(tag: Tag, names: Collection[str]) -> bool:
    return any(isinstance(node, Tag) and node.name in names for node in tag.descendants)


class _Renderer:
    def __init__(self) -> None:
        self.blocks: list[str] = []
        self._buffer: list[str] = []

    def add_block(self, block: str) -> None:
        block = block.strip("\n")
        if block and (not self.blocks or self.blocks[-1] != block):
            self.blocks.append(block)

    def flush(self) -> None:
        raw = "".join(self._buffer)
        self._buffer.clear()
        lines = [_collapse(line) for line in raw.split("\n")]
        self.add_block("\n".join(line for line in lines if line))

    def walk(self, node: Tag) -> None:
        for child in node.children:
            if _is_text(child):
                self._buffer.append(_WS_RE.sub(" ", str(child)))
            elif isinstance(child, Tag):
                self._element(child)

    def _element(self, tag: Tag) -> None:
        name = tag.name
        if name == "br":
            self._buffer.append("\n")
        elif name in _HEADINGS:
            self.flush()
            # Broken markup like <h1>A</h2><h2>B</h1> makes lxml nest headings: move them after this one.
            if _has_descendant(tag, _HEADINGS):
                for inner in reversed(tag.find_all(list(_HEADINGS))):
                    tag.insert_after(inner.extract())
            text = _inline_text(tag)
            if text:
                self.add_block("#" * _HEADINGS[name] + " " + text)
        elif name in ("ul", "ol"):
            self.flush()
            lines: list[str] = []
            self._list(tag, 0, lines)
            self.add_block("\n".join(lines))
        elif name == "dl":
            self.flush()
            self._definitions(tag)
        elif name == "table":
            self.flush()
            self._table(tag)
        elif name == "pre":
            self.flush()
            text = "\n".join(line.rstrip() for line in _INVISIBLE_RE.sub("", tag.get_text()).splitlines())
            self.add_block(text.strip("\n"))
        elif name in _BLOCK_TAGS:
            self.flush()
            self.walk(tag)
            self.flush()
        else:
            self.walk(tag)

    def _list(self, tag: Tag, depth: int, lines: list[str]) -> None:
        indent = "  " * depth
        for child in tag.children:
            if isinstance(child, Tag) and child.name == "li":
                nested: list[Tag] = []
                text = _inline_text(child, nested)
                if text:
                    lines.append(f"{indent}- {text}")
                for sub in nested:
                    self._list(sub, depth + 1, lines)
            elif isinstance(child, Tag) and child.name in ("ul", "ol"):
                self._list(child, depth + 1, lines)
            elif isinstance(child, Tag) or _is_text(child):
                text = _inline_text(child) if isinstance(child, Tag) else _collapse(str(child))
                if text:
                    lines.append(f"{indent}- {text}")

    def _definitions(self, tag: Tag) -> None:
        lines: list[str] = []
        term = ""
        for child in tag.find_all(["dt", "dd"]):
            text = _inline_text(child)
            if not text:
                continue
            if child.name == "dt":
                if term:
                    lines.append(term)
                term = text
            else:
                lines.append(f"{term}: {text}" if term else text)
                term = ""
        if term:
            lines.append(term)
        self.add_block("\n".join(lines))

    def _table(self, table: Tag) -> None:
        if _attr(table, "role").lower() in ("presentation", "none") or table.find(_LAYOUT_MARKERS):
            # Layout table (old-school page structure): render its cells as ordinary blocks.
            for cell in table.find_all(["td", "th"]):
                if cell.find_parent("table") is table:
                    self.walk(cell)
                    self.flush()
            return
        caption = table.find("caption")
        if isinstance(caption, Tag):
            self.add_block(_inline_text(caption))
        rows: list[str] = []
        for row in table.find_all("tr"):
            if row.find_parent("table") is not table:
                continue
            cells = [_inline_text(cell) for cell in row.find_all(["td", "th"], recursive=False)]
            if any(cells):
                rows.append(" | ".join(cells))
        self.add_block("\n".join(rows))


# --------------------------------------------------------------------------------------------------
# Links and title

_SKIP_SCHEMES = ("mailto:", "tel:", "javascript:", "data:", "sms:", "callto:", "skype:", "whatsapp:")


def _links(scan: _Scan, url: str) -> list[str]:
    base = urljoin(url, scan.base_href) if scan.base_href else url
    links: list[str] = []
    seen: set[str] = set()
    for raw in scan.hrefs:
        href = raw.strip()
        if not href or href.startswith("#") or href.lower().startswith(_SKIP_SCHEMES):
            continue
        try:
            absolute = urldefrag(urljoin(base, href))[0]
            scheme = urlsplit(absolute).scheme.lower()
        except ValueError:
            continue
        if scheme in ("http", "https") and absolute not in seen:
            seen.add(absolute)
            links.append(absolute)
    return links


def _title(scan: _Scan, container: Tag) -> str:
    if scan.title or scan.og_title:
        return scan.title or scan.og_title
    h1 = container.find("h1")
    return _inline_text(h1) if isinstance(h1, Tag) else ""


def _render(node: Tag) -> str:
    renderer = _Renderer()
    renderer.walk(node)
    renderer.flush()
    return "\n\n".join(renderer.blocks)


def with_title_heading(title: str, text: str) -> str:
    """Prefix "# Title" when the text has no top-level heading, so every chunk gets a root breadcrumb."""
    if not title or any(line.startswith("# ") for line in text.splitlines()):
        return text
    return f"# {title}\n\n{text}" if text else f"# {title}"


def _parse(markup: str) -> BeautifulSoup:
    try:
        return BeautifulSoup(markup, "lxml")
    except Exception:  # pragma: no cover - lxml chokes only on pathological input
        return BeautifulSoup(markup, "html.parser")


def extract_main_text(html: str | bytes, url: str = "", encoding: str | None = None) -> ExtractedPage:
    """Extract the main text, title and outgoing links of an HTML page.

    `encoding` is the charset announced by the server (HTTP Content-Type), used only as a hint for bytes.
    Links are absolute (resolved against `url` / <base href>), without fragments, http(s) only, and are
    collected from the whole page, navigation included.
    """
    markup = decode_html(html, encoding) if isinstance(html, bytes) else html
    markup = markup.lstrip("\ufeff").replace("\x00", "")
    soup = _parse(markup)
    scan = _scan(soup)
    cleaned = _clean(soup, scan.panel_ids)
    container = _choose_container(soup, cleaned)
    title = _title(scan, container)
    text = with_title_heading(title, _render(container))
    footer_text = "\n\n".join(filter(None, (_render(footer) for footer in cleaned.footers)))
    return ExtractedPage(title=title, text=text, links=_links(scan, url), footer_text=footer_text)
