"""List items in plain text: the marker a line starts with, whatever the writer typed or pasted.

Written by hand: CommonMark (markdown-it) knows only "-", "*", "+" and "1." as markers, while owners
paste lists from Word ("" from its Symbol font), websites ("•", "▪", "➤") and flyers ("★", "✔",
an emoji). Any symbol character (Unicode's "other symbol" and private-use classes, a few bullet
punctuation marks) opening a line is a marker; dashes, "*", "+" and ordinals are markers only before
a space ("-5°C", "*Terms apply", "+£5", "2.5 hours" are text). Currency signs are never markers.
"""

from __future__ import annotations

import unicodedata

__all__ = ["bullet_body", "strip_bullet"]

#: Punctuation used as bullets (Unicode calls them punctuation, not symbols).
_BULLET_PUNCTUATION = frozenset("\u2022\u00b7\u2023\u2043\u2219\u25e6")
#: Markers that are also ordinary characters of text: list markers only before a space.
_ASCII_MARKERS = frozenset("-*+\u2013\u2014")
#: What may follow a symbol marker before its text (emoji carry a variation selector).
_JOINERS = "\ufe0f\ufe0e\u200d"


def bullet_body(line: str) -> str | None:
    """The text of a list item after its marker, or None when ``line`` is no list item."""
    text = line.lstrip()
    if len(text) < 2:
        return None
    first = text[0]
    if first in _ASCII_MARKERS:
        return text[2:].strip() if text[1] in " \t" else None
    if first.isdigit():
        digits = len(text) - len(text.lstrip("0123456789"))
        rest = text[digits:]
        if digits <= 3 and rest[:1] in (".", ")") and rest[1:2] in (" ", "\t"):
            return rest[2:].strip()
        return None
    if first in _BULLET_PUNCTUATION or unicodedata.category(first) in ("So", "Co"):
        body = text[1:].lstrip(_JOINERS).strip()
        return body or None
    return None


def strip_bullet(line: str) -> str:
    """``line`` without its list marker, stripped (the line itself, stripped, when it has none)."""
    body = bullet_body(line)
    return line.strip() if body is None else body
