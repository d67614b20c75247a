"""Output handling for answers (OWASP LLM05): what reaches a customer's page is plain text plus, at most,
links to the business's own hosts.

An answer is shown inside other people's websites, so whatever a model (or a planted instruction in a
crawled page) produces must not become markup there. The contract of ``sanitize``'s output:

- no HTML: tags and comments are removed (script and style blocks with their content); a ``<`` that
  could still start a tag gets a space after it; entities are decoded first so ``&lt;script&gt;`` cannot
  slip through as text that a later decode turns into a tag;
- no images at all: markdown images (``![x](url)``, the classic exfiltration channel), reference images
  and any stray ``![``;
- links only to allowed hosts (exactly, or a subdomain): markdown links to another host keep their text
  and lose the URL; bare URLs, ``www.`` addresses and autolinks to another host are removed; URLs with
  credentials (``https://ours@theirs``) or odd authorities are treated as foreign;
- no ``javascript:``, ``vbscript:`` or ``data:`` URLs anywhere, even as text;
- no invisible characters (zero-width, bidi controls, other control and format characters), which can
  hide text from the reader or split a keyword so a filter misses it.

The widget renders the result with textContent and builds anchors itself from ``[text](url)`` and bare
http(s) URLs; the output is also harmless if a renderer uses innerHTML. Removal steps can join the text
around what they removed into something new (``java<b></b>script:``), so the passes repeat until the
text no longer changes.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Iterator

_MAX_PASSES = 12

_BLOCK_RE = re.compile(r"(?is)<\s*(script|style|iframe|object|embed|template)\b.*?(?:<\s*/\s*\1\s*>|$)")
_COMMENT_RE = re.compile(r"(?s)<!--.*?(?:-->|$)|<!\[CDATA\[.*?(?:\]\]>|$)")
_TAG_RE = re.compile(r"</?[A-Za-z!?][^<>]*>")
_OPEN_TAG_RE = re.compile(r"<(?=[A-Za-z/!?])")

_IMAGE_RE = re.compile(r"!\[[^\]\n]*\]\s*(?:\([^)\n]*\)?|\[[^\]\n]*\]?)")
# [text](url "title"): text without brackets, url without spaces (one level of parentheses allowed,
# as in Wikipedia-style URLs), optional title.
_LINK_RE = re.compile(
    r"\[([^\[\]\n]*)\]\(\s*<?([^()\s<>]*(?:\([^()\s<>]*\)[^()\s<>]*)*)>?(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
_AUTOLINK_RE = re.compile(r"<([A-Za-z][A-Za-z0-9+.\-]*:[^<>\s]*|[^<>\s@]+@[^<>\s@]+)>")
_SCRIPT_SCHEME_RE = re.compile(r"(?i)(?:java|vb|live)script\s*:\S*")
_DATA_URL_RE = re.compile(r"(?i)\bdata:\s*(?:[\w.+-]+/[\w.+-]+)?(?:;[\w=.+-]+)*,\S*")
# Browsers read "https:\\host" and "https:host" as "https://host": an http(s) scheme followed by any
# slashes or backslashes starts a URL too.
_URL_RE = re.compile(
    r"(?i)(?:\b[a-z][a-z0-9+.\-]*:)?//[^\s<>\"']*"
    r"|\bhttps?:[/\\]*[^\s<>\"'/\\][^\s<>\"']*"
    r"|(?<![\w@.\-])www\.[^\s<>\"']+"
    r"|\bmailto:[^\s<>\"']+"
)
_TRAILING_PUNCT = ".,;:!?'\"*_~`"


def sanitize(text: str, *, allowed_hosts: set[str] | frozenset[str] | Iterable[str]) -> str:
    """The answer as safe plain text (see the module docstring for the exact contract)."""
    hosts = _normalise_hosts(allowed_hosts)
    current = text or ""
    for _ in range(_MAX_PASSES):
        cleaned = _pass(current, hosts)
        if cleaned == current:
            return cleaned
        current = cleaned
    # Still changing after many passes: adversarial input built to keep regenerating. Fall back to
    # removing every character that any construct needs rather than returning something unchecked.
    return _harsh(current)


def sanitize_stream(chunks: Iterable[str], *, allowed_hosts: Iterable[str]) -> Iterator[str]:
    """Sanitise a streamed answer without letting a construct slip through a chunk boundary.

    Pieces are cut only after whitespace, and only where no tag, link, image or script block is still
    open; what is sent is always the tail of ``sanitize(prefix)``, so the visitor's page holds, at every
    moment, the sanitised form of a prefix of the answer. At the end the rest of ``sanitize(answer)`` is
    sent; in the rare case where the complete text sanitises differently from what was already sent
    (something later in the text changed the meaning of an earlier, already shown part), nothing more is
    sent: what was shown stays safe, just shorter. ''.join(result) is the text to store.
    """
    hosts = _normalise_hosts(allowed_hosts)
    raw = ""
    sent = ""
    for chunk in chunks:
        if not chunk:
            continue
        raw += chunk
        cut = _safe_cut(raw)
        if cut <= 0:
            continue
        clean = sanitize(raw[:cut], allowed_hosts=hosts)
        if clean.startswith(sent) and len(clean) > len(sent):
            yield clean[len(sent) :]
            sent = clean
    final = sanitize(raw, allowed_hosts=hosts)
    if final.startswith(sent) and len(final) > len(sent):
        yield final[len(sent) :]


def host_allowed(url: str, allowed_hosts: Iterable[str]) -> bool:
    """Whether ``url`` is an http(s) or mailto link to one of the allowed hosts (or a subdomain)."""
    host = _url_host(url)
    if host is None:
        return False
    return any(host == a or host.endswith("." + a) for a in _normalise_hosts(allowed_hosts))


# --- the passes ----------------------------------------------------------------------------------------


def _pass(text: str, hosts: frozenset[str]) -> str:
    text = html.unescape(text)
    text = _strip_invisible(text)
    text = _BLOCK_RE.sub("", text)
    text = _COMMENT_RE.sub("", text)
    text = _IMAGE_RE.sub("", text)
    text = text.replace("![", "[")
    text = _LINK_RE.sub(lambda m: _link(m, hosts), text)
    text = _AUTOLINK_RE.sub(lambda m: _autolink(m, hosts), text)
    text = _TAG_RE.sub("", text)
    text = _OPEN_TAG_RE.sub("< ", text)
    text = _SCRIPT_SCHEME_RE.sub("", text)
    text = _DATA_URL_RE.sub("", text)
    return _URL_RE.sub(lambda m: _bare_url(m, hosts), text)


def _strip_invisible(text: str) -> str:
    out = []
    for ch in text:
        if ch in "\n":
            out.append(ch)
        elif ch in "\t\r\u2028\u2029\x0b\x0c\x85":
            out.append("\n" if ch in "\u2028\u2029" else " ")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co"):
            continue  # zero-width spaces and joiners, bidi overrides, BOM, NUL and other controls
        else:
            out.append(ch)
    return "".join(out)


def _link(match: re.Match[str], hosts: frozenset[str]) -> str:
    label, url = match.group(1), match.group(2)
    if _link_allowed(url, hosts):
        return f"[{label}]({url})" if label.strip() else url
    return label


def _autolink(match: re.Match[str], hosts: frozenset[str]) -> str:
    target = match.group(1)
    if "@" in target and ":" not in target:
        return target if _link_allowed("mailto:" + target, hosts) else ""
    return target if _link_allowed(target, hosts) else ""


def _bare_url(match: re.Match[str], hosts: frozenset[str]) -> str:
    url = match.group(0)
    # Sentence punctuation after a URL is not part of it ("see https://x.example/menu.").
    tail = ""
    while url and (url[-1] in _TRAILING_PUNCT or (url[-1] == ")" and url.count("(") < url.count(")"))):
        tail = url[-1] + tail
        url = url[:-1]
    return (url if _link_allowed(url, hosts) else "") + tail


def _link_allowed(url: str, hosts: frozenset[str]) -> bool:
    lowered = url.strip().lower()
    if lowered.startswith("tel:"):
        return re.fullmatch(r"tel:[0-9+\-(). ]{3,30}", lowered) is not None
    host = _url_host(url)
    return host is not None and any(host == a or host.endswith("." + a) for a in hosts)


def _url_host(url: str) -> str | None:
    """The host a browser would contact for ``url`` (http, https or mailto), or None when the URL is
    relative, of another scheme, or has an authority we refuse to reason about (credentials,
    backslashes, non-ASCII): treating those as foreign is the safe direction."""
    url = url.strip()
    lowered = url.lower()
    if lowered.startswith("mailto:"):
        address = lowered[7:].split("?", 1)[0]
        if address.count("@") != 1:
            return None
        return _valid_host(address.split("@", 1)[1])
    if lowered.startswith("www."):
        lowered = "http://" + lowered
    elif lowered.startswith("//"):
        lowered = "https:" + lowered
    match = re.match(r"^(https?):(.*)$", lowered, re.S)
    if match is None:
        return None
    rest = match.group(2)
    # Browsers accept "http:host", "http:/host" and backslashes for special schemes: read the authority
    # the way they do, and refuse what is ambiguous.
    rest = rest.lstrip("/\\")
    authority = re.split(r"[/?#\\]", rest, maxsplit=1)[0]
    if "@" in authority or "%" in authority:
        return None
    return _valid_host(re.sub(r":\d*$", "", authority))


def _valid_host(host: str) -> str | None:
    host = host.strip().rstrip(".")
    if not host or re.fullmatch(r"[a-z0-9\-]+(?:\.[a-z0-9\-]+)*", host) is None:
        return None
    return host


def _normalise_hosts(hosts: Iterable[str]) -> frozenset[str]:
    """ "Sunny.Example", "https://www.sunny.example/", "sunny.example:8000" all mean sunny.example (and
    its subdomains, www included)."""
    out = set()
    for h in hosts:
        h = h.strip().lower()
        host = _url_host(h) if "//" in h else _valid_host(re.sub(r":\d*$", "", h))
        if host:
            out.add(host[4:] if host.startswith("www.") else host)
    return frozenset(out)


def _harsh(text: str) -> str:
    text = _strip_invisible(text)
    text = re.sub(r"[<>]", "", text)
    text = text.replace("![", "[")
    text = _SCRIPT_SCHEME_RE.sub("", text)
    text = re.sub(r"(?i)(?:java|vb|live)script", "", text)
    text = _DATA_URL_RE.sub("", text)
    return re.sub(r"(?i)\S*(?://|www\.|mailto:)\S*", "", text)


def _safe_cut(raw: str) -> int:
    """The end of the longest prefix of ``raw`` that can be sanitised on its own: it ends after
    whitespace and leaves no tag, bracket, link target or script block open."""
    lowered = raw.lower()
    limit = len(raw)
    for block in re.finditer(r"<\s*(script|style|iframe|object|embed|template)\b", lowered):
        if re.search(rf"<\s*/\s*{block.group(1)}\s*>", lowered[block.end() :]) is None:
            limit = block.start()
            break
    for opener, closer in (("<", ">"), ("[", "]")):
        idx = raw.rfind(opener, 0, limit)
        if idx >= 0 and raw.find(closer, idx) < 0 and (opener != "<" or _OPEN_TAG_RE.match(raw, idx)):
            limit = min(limit, idx)
    link = raw.rfind("](", 0, limit)
    if link >= 0 and raw.find(")", link) < 0:
        limit = min(limit, link)
    entity = raw.rfind("&", 0, limit)
    if entity >= 0 and not re.search(r"\s", raw[entity:limit]):
        limit = entity
    while limit > 0 and not raw[limit - 1].isspace():
        limit -= 1
    return limit
