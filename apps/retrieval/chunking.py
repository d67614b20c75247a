"""Structure-aware chunking.

A document is first split along its own structure (markdown headings, blank-line paragraphs, list
items, table rows kept together); whole blocks are then packed into pieces of at most ``size``
characters. Only a block longer than ``size`` is cut, at line, then sentence, then word
boundaries (never inside a word), and a cut inside one block carries about ``overlap`` characters
of the previous piece into the next so that a sentence near the cut is seen in context.

A heading is never left at the end of a piece: it moves to the piece that holds its content. A
piece that starts in the middle of a section is prefixed with the section's heading path
("Prices > Cakes") when it fits, so that it still says what it is about.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Piece", "chunk_document", "embedding_text"]


@dataclass(frozen=True)
class Piece:
    title: str
    text: str
    position: int


_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LIST_ITEM = re.compile(r"^(?:[-*+\u2022]|\d{1,3}[.)])\s+")
# A sentence ends with . ! ? (optionally followed by closing quotes/brackets) and whitespace.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+")


@dataclass(frozen=True)
class _Block:
    kind: str  # "heading", "item", "para"
    text: str
    path: tuple[str, ...]  # heading path the block sits under (a heading includes itself)


@dataclass(frozen=True)
class _Unit:
    text: str
    block: int  # index of the block this unit came from
    sep: str  # separator before this unit when it follows the previous unit in the same piece
    heading: bool


def _blocks(text: str) -> list[_Block]:
    blocks: list[_Block] = []
    stack: list[tuple[int, str]] = []
    current: list[str] = []
    kind = "para"

    def path() -> tuple[str, ...]:
        return tuple(name for _, name in stack)

    def close() -> None:
        nonlocal current
        if current:
            blocks.append(_Block(kind, "\n".join(current), path()))
            current = []

    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped:
            close()
            continue
        heading = _HEADING.match(stripped)
        if heading and heading.group(2):
            close()
            level = len(heading.group(1))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, heading.group(2)))
            blocks.append(_Block("heading", stripped, path()))
            continue
        is_table = stripped.startswith("|")
        if _LIST_ITEM.match(stripped) and not is_table:
            close()
            kind = "item"
            current = [stripped]
            continue
        if not current:
            kind = "para"
        # a continuation line of a paragraph or list item (or the next row of a table)
        current.append(stripped if kind == "item" else line)
    close()
    return blocks


def _split_words(text: str, limit: int) -> list[str]:
    """Pack words into parts of at most ``limit`` characters; a single longer word stays whole."""
    parts: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}" if current else word
        if len(candidate) <= limit or not current:
            current = candidate
        else:
            parts.append(current)
            current = word
    if current:
        parts.append(current)
    return parts


def _split_block(text: str, limit: int) -> list[tuple[str, str]]:
    """Cut a long block into (separator, text) units of at most ``limit`` characters where possible:
    lines first, then sentences, then words."""
    units: list[tuple[str, str]] = []
    for line in text.split("\n"):
        line_sep = "\n"
        if len(line) <= limit:
            units.append((line_sep, line))
            continue
        for sentence in _SENTENCE_END.split(line.strip()):
            if not sentence:
                continue
            if len(sentence) <= limit:
                units.append((line_sep, sentence))
            else:
                for part in _split_words(sentence, limit):
                    units.append((line_sep, part))
                    line_sep = " "
                continue
            line_sep = " "
    return units


def _units(blocks: list[_Block], size: int) -> list[_Unit]:
    units: list[_Unit] = []
    pending: list[str] = []  # heading lines directly before the current block
    for index, block in enumerate(blocks):
        previous = blocks[index - 1] if index else None
        if previous is None:
            sep = ""
        elif previous.kind == "heading" or (previous.kind == "item" and block.kind == "item"):
            sep = "\n"
        else:
            sep = "\n\n"
        if block.kind == "heading" and len(block.text) <= size:
            units.append(_Unit(block.text, index, sep, True))
            pending.append(block.text)
            continue
        # Room for the headings this block follows, or for its heading path on a later piece.
        reserve = max(len("\n".join(pending)), len(" > ".join(block.path))) + 1 if block.path else 0
        reserve = min(reserve, size // 3)
        pending = []
        if len(block.text) + reserve <= size or (not block.path and len(block.text) <= size):
            units.append(_Unit(block.text, index, sep, False))
            continue
        for n, (inner_sep, text) in enumerate(_split_block(block.text, size - reserve)):
            units.append(_Unit(text, index, sep if n == 0 else inner_sep, False))
    return units


def _joined(units: list[_Unit]) -> str:
    return "".join((u.sep if i else "") + u.text for i, u in enumerate(units))


def _tail(text: str, limit: int) -> str:
    """The last whole words of ``text`` that fit in ``limit`` characters ('' if none fit)."""
    if limit <= 0:
        return ""
    if len(text) <= limit:
        return text
    words: list[str] = []
    length = -1
    for word in reversed(text.split()):
        if length + 1 + len(word) > limit:
            break
        words.insert(0, word)
        length += 1 + len(word)
    return " ".join(words)


def _overlap(previous: list[_Unit], block: int, overlap: int) -> str:
    """Text carried into the next piece when a block is cut: the trailing units (sentences, lines)
    of that block that fit in ``overlap`` characters, else the last one if it is at most 1.5 times
    ``overlap``, else that unit's last words."""
    same = [u for u in previous if u.block == block and not u.heading]
    if not same or overlap <= 0:
        return ""
    taken: list[_Unit] = []
    for unit in reversed(same):
        if len(_joined([unit, *taken])) > overlap:
            break
        taken.insert(0, unit)
    if taken:
        return _joined(taken)
    last = same[-1].text
    # A whole sentence reads better than a fragment, when it is not much longer than asked for.
    return last if len(last) <= overlap * 3 // 2 else _tail(last, overlap)


def chunk_document(title: str, text: str, size: int = 900, overlap: int = 150) -> list[Piece]:
    """Split ``text`` into pieces of at most ``size`` characters along its structure.

    Pieces are never empty and keep the document's order. A piece is longer than ``size`` only when
    it holds a single word longer than ``size`` (a long URL, say): words are never cut.
    """
    if size <= 0:
        raise ValueError("size must be positive")
    overlap = max(0, min(overlap, size // 2))
    blocks = _blocks(text)
    units = _units(blocks, size)
    texts: list[str] = []
    current: list[_Unit] = []
    lead = ""  # overlap and/or heading path placed before the current piece's first unit
    lead_sep = ""

    def render() -> str:
        joined = _joined(current)
        return f"{lead}{lead_sep}{joined}" if lead else joined

    for unit in units:
        if not current:
            current = [unit]
            continue
        if len(render()) + len(unit.sep) + len(unit.text) <= size:
            current.append(unit)
            continue
        # Close the piece; a heading at its end moves on with the content it introduces.
        carried: list[_Unit] = []
        while current and current[-1].heading:
            carried.insert(0, current.pop())
        if carried and len(_joined([*carried, unit])) > size:
            current.extend(carried)  # headings too long to travel with their content stay behind
            carried = []
        cut_inside_block = not carried and bool(current) and current[-1].block == unit.block
        if current:
            texts.append(render())
        previous = current
        current = [*carried, unit]
        needed = len(_joined(current))
        lead, lead_sep = "", ""
        if cut_inside_block:
            shared = _overlap(previous, unit.block, overlap)
            room = size - needed - len(unit.sep)
            shared = shared if len(shared) <= room else _tail(shared, room)
            if shared:
                lead, lead_sep = shared, unit.sep
        if not current[0].heading:
            crumb = " > ".join(blocks[current[0].block].path)
            used = needed + (len(lead) + len(lead_sep) if lead else 0)
            if crumb and len(crumb) + 1 + used <= size:
                lead, lead_sep = (f"{crumb}\n{lead}", lead_sep) if lead else (crumb, "\n")
    if current:
        texts.append(render())
    cleaned = [t.strip() for t in texts if t.strip()]
    return [Piece(title=title.strip(), text=t, position=i) for i, t in enumerate(cleaned)]


def embedding_text(piece: Piece) -> str:
    """The text embedded for a piece: its topic's name as title line, then the piece."""
    if not piece.title:
        return piece.text
    return f"{piece.title}\n{piece.text}"
