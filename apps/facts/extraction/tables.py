"""Price lists and tables in plain text, read as structure: one row cell per (row, priced column).

Sources reach the knowledge layer as markdown-ish text (apps.facts.sources renders HTML and .docx
tables as pipe rows). A price list is not prose: "Garlic bread ...... $6" has no verb, and a table
row "Deluxe wash | $30 | $45" means nothing without its header ("Car | SUV"). Re-parsing such lines
as sentences loses the item or the column, so the part splitter asks this module first and emits one
part per priced cell, carrying a ``RowCell`` (item, variant, value) that the extractor turns into a
fact directly.

Written by hand: no library reads tables out of plain text (pandas/tabula need a file format or a
PDF's geometry; price-parser reads one amount out of a string, and is used here for that). What is
detected: pipe and Markdown tables, tab- or space-aligned columns with an optional header row, dot
(or other leader) lines, "Item: $X", "Item - $X" and em-dash list lines, indented variant rows under
a caption ("Day pass" / "  Adult .... $24"), "from $149" and per-unit amounts. Also here: lines that
are page chrome (navigation bars, copyright and company-number footers, cookie banners), which are
not facts.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from functools import cache
from pathlib import Path

from price_parser import Price
from pydantic import BaseModel

from apps.language.bullets import bullet_body, strip_bullet
from apps.language.dates import weekday_number
from apps.language.lexicon import THING_FILES, lexical_file, one_of_a_kind
from apps.language.pipeline import parse
from apps.language.words import without_notes

__all__ = ["RowCell", "caption_of", "is_chrome", "read_inline", "read_rows"]


class RowCell(BaseModel, frozen=True):
    """One priced cell of a list or table.

    ``item`` is what the row sells ("Full groom"); ``variant`` what the cell's column (or, for rows
    under a caption, the row) says it is for ("small (under 10 kg)", "SUV, weekend"), "" when the
    cell is the item's one price; ``value`` the amount as written ("from $149", "$2 per lb");
    ``detail`` the row's other text cells ("45 min") and a note after the amount."""

    item: str
    variant: str = ""
    value: str
    detail: str = ""

    def text(self) -> str:
        """The cell as one line a person (or a language model) reads without the table."""
        head = self.item + (f", {self.variant}" if self.variant else "")
        return f"{head}: {self.value}" + (f" ({self.detail})" if self.detail else "")


# --------------------------------------------------------------------------------------------------
# Cue words (data, not branches)


@cache
def _words() -> dict[str, frozenset[str]]:
    path = Path(__file__).with_name("data") / "tables.txt"
    table: dict[str, frozenset[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, rest = line.partition(":")
        table[name.strip()] = frozenset(w.strip().lower() for w in rest.split("|") if w.strip())
    return table


def _is_price_word(text: str) -> bool:
    """A header or caption that only says "prices" ("Price", "Our rates", "WASH MENU"), its
    bracketed note aside ("Price (ex VAT)")."""
    words = re.findall(r"[a-z]+", (without_notes(text) or text).lower())
    return not words or all(w in _words()["price_word"] | _words()["filler"] for w in words)


def _strip_price_words(text: str) -> str:
    """ "LANE PRICING" -> "LANE"; "Pricing (per person)" -> "" (the parenthesis stays in the detail)."""
    bare = re.sub(r"\([^)]*\)", " ", text)
    noise = _words()["price_word"] | _words()["filler"]
    kept = [w for w in bare.split() if w.lower().strip(":,") not in noise]
    return " ".join(kept).strip(" :,-&+/")  # "PRICES & SESSIONS" -> "SESSIONS"


def _has_price_word(text: str) -> bool:
    return any(w in _words()["price_word"] for w in re.findall(r"[a-z]+", text.lower()))


def _names_dimension(header: str) -> bool:
    """A first-column header naming a dimension of one thing, not the things ("Size", "Qty")."""
    words = re.findall(r"[a-z]+", header.lower())
    return bool(words) and all(w in _words()["dimension"] for w in words)


# --------------------------------------------------------------------------------------------------
# Amounts

_CURRENCY = "$£€¥₹¢"
_QUALIFIER = re.compile(r"(?i)^(?:from|starting at|starts at|starting from|as low as|ab|dès|desde)\s+")
_AMOUNT_START = re.compile(
    rf"(?i)^(?:(?:from|starting at|starts at|starting from|as low as|ab|up to)\s+)?"
    rf"(?:[{_CURRENCY}]\s?\d|\d[\d.,]*\s?(?:[{_CURRENCY}]|eur\b|usd\b|gbp\b|aud\b|nzd\b|cad\b)|free\b)"
)
# What an amount is per: "/hr", "/ 5 min", "per lb", "each", "a night", "pp".
_UNIT = re.compile(
    r"(?i)^\s*(?:/\s*(?:\d+\s*)?[a-z]+\.?|per\s+(?:\d+\s+)?[a-z]+\.?|each\b|pp\b|p/?h\b|"
    r"an?\s+(?:hour|night|day|week|month|year|person|head|kid|child|lesson|session|class|visit|item|"
    r"page|kg|lb|unit)\b)"
)
_AMOUNT = re.compile(rf"[{_CURRENCY}]\s?\d[\d.,]*|\d[\d.,]*\s?(?:[{_CURRENCY}]|eur\b|usd\b|gbp\b)", re.I)
_RANGE_END = re.compile(rf"\s?(?:-|\u2013|\u2014|to)\s?(?:{_AMOUNT.pattern}|\d[\d.,]*(?![\d.,]))", re.I)


def _range_end_ok(low: Decimal, end: str, rest: str) -> bool:
    """Whether "- 60" after "$35" ends a range of prices: an amount with its currency, or a bare
    number above the first that no unit of its own follows ("£40 - 30 min" is a price and a length)."""
    if any(c in end for c in _CURRENCY) or re.search(r"(?i)eur|usd|gbp", end):
        return True
    high = Price.fromstring(end).amount
    if high is None or high <= low:
        return False
    return not re.match(r"\s*[a-z]", rest, re.I) or _UNIT.match(rest) is not None


def _has_amount(text: str) -> bool:
    return bool(_AMOUNT.search(text)) or bool(re.search(r"(?i)^\s*free\s*$", text))


@dataclass(frozen=True)
class _Value:
    value: str
    note: str


def read_value(cell: str) -> _Value | None:
    """A cell that is an amount ("$55", "from $149", "$2 per lb", "Free"), with any note after it.

    price-parser decides that the text is an amount of money; the qualifier and the unit around it
    are read here. A cell with a second amount ("$95/hour, then $80") is not one value: None."""
    text = " ".join(cell.split()).strip(" .;,")
    if not text or not _AMOUNT_START.match(text):
        return None
    if re.match(r"(?i)^free\b", text):
        return _Value("free", text[4:].strip(" ,.;-()"))
    qual = _QUALIFIER.match(text)
    rest = text[qual.end() :] if qual else text
    upto = re.match(r"(?i)^up to\s+", rest)
    if upto:
        rest = rest[upto.end() :]
    found = _AMOUNT.match(rest)
    if found is None:
        return None
    price = Price.fromstring(found.group(0))
    if price.amount is None or (price.currency is None and "¢" not in found.group(0)):
        return None
    amount, after = found.group(0), rest[found.end() :]
    # "$1,150 - $1,900", "£45 to £70": a range of prices is one value, its lower end first.
    upper = _RANGE_END.match(after)
    if upper and _range_end_ok(price.amount, upper.group(0), after[upper.end() :]):
        amount, after = amount + upper.group(0), after[upper.end() :]
    unit = _UNIT.match(after)
    written = amount + (unit.group(0) if unit else "")
    note = after[unit.end() :] if unit else after
    tail = re.match(r"^\s*[a-z]+(?:\s+[a-z]+)?(?=\s*$|\s*[,;(])", note)
    if unit and unit.group(0).strip().lower().startswith("per") and tail:  # "£4.50 per standard key"
        written, note = written + tail.group(0), note[tail.end() :]
    offer = re.match(rf"(?i)^\s*or\s+\d+\s+for\s+(?:{_AMOUNT.pattern})", note)
    if offer:  # "£6.99 or 3 for £18": one offer, written whole
        written += offer.group(0)
        note = note[offer.end() :]
    if _AMOUNT.search(note):
        return None
    value = " ".join(written.split())
    if qual:
        value = f"from {value}"
    elif upto:
        value = f"up to {value}"
    return _Value(value, note.strip(" ,.;-()"))


# --------------------------------------------------------------------------------------------------
# One line

_LEADER = re.compile(r"\s*(?:\.{3,}|…+|_{3,}|·{3,}|-{4,}|\.(?:\s\.){2,})\s*")
_SEPARATOR = re.compile(r"\s*(?::|\s[-\u2013—]|\t)\s+|\s{2,}")
_MARKUP = re.compile(r"(\*\*|__)(.+?)\1")


def _clean(text: str) -> str:
    return " ".join(_MARKUP.sub(r"\2", text).replace("`", "").split()).strip(" :-\u2013\u2014|*")


def _cells(line: str) -> list[str]:
    """Cells of a table line: pipes, tabs, or runs of two or more spaces between words."""
    stripped = line.strip()
    if "|" in stripped:
        cells = stripped.strip("|").split("|")
    elif "\t" in stripped:
        cells = stripped.split("\t")
    else:
        cells = re.split(r"\s{2,}", stripped)
    return [_clean(c) for c in cells]


def _item_line(line: str) -> tuple[str, _Value] | None:
    """ "Garlic bread ...... $6", "Oil change: $49", "Nail trim - $12", "Day pass — $30",
    "Cut & blow dry      $65": an item and its one amount. Prose ("Good news: our tune-up is $65")
    is not: the amount must follow the separator at once."""
    body = strip_bullet(line)
    leader = _LEADER.search(body)
    pieces: list[tuple[str, str]] = []
    if leader:
        pieces.append((body[: leader.start()], body[leader.end() :]))
    for sep in _SEPARATOR.finditer(body):
        pieces.append((body[: sep.start()], body[sep.end() :]))
    for raw_item, raw_value in pieces:
        item = _clean(raw_item)
        if re.search(r"(?i)\s(?:from|ab)$", item):  # "Colour from      $90"
            item, raw_value = re.sub(r"(?i)\s(?:from|ab)$", "", item), "from " + raw_value
        value = read_value(raw_value)
        if value is None:
            continue
        # "Mini session — 20 min, 5 edited images — $150", "Recall Workshop: one Saturday morning, 3
        # hours — €55": the name, then what it includes.
        described = re.split(r"\s[-\u2013—]\s|:\s", item, maxsplit=1)
        if (
            len(described) == 2
            and described[1]
            and _is_item(_clean(described[0]))
            and not _has_amount(described[1])  # another priced thing, or a sentence: not a description
            and ". " not in described[1]
            and not _a_range_of_days(described)  # "Monday - Thursday ..... £75": one label
        ):
            note = ", ".join(filter(None, [described[1], value.note]))
            return _clean(described[0]), _Value(value.value, note)
        if _is_item(item):
            return item, value
    return None


def _a_range_of_days(sides: list[str]) -> bool:
    """Whether the two sides of a dash are weekdays ("Monday - Thursday", "Fri - Sun"): a range,
    not a name and what it includes."""
    return all(weekday_number(_clean(side)) is not None for side in sides)


def _is_item(text: str) -> bool:
    """A short name, not a sentence or a clause ("We charge", "Good news")."""
    words = text.split()
    if not words or len(words) > 10 or len(text) > 80 or _has_amount(text):
        return False
    if text[-1:] in ".!?":
        return False
    # A time outside brackets makes the line an hours line ("Cosmic bowling Fri 9pm-midnight: $22"),
    # which the sentence rules read with its days and times.
    bare = re.sub(r"\([^)]*\)", "", text)
    if re.search(
        r"(?i)\d\s?(?:am|pm)\b|\d:\d\d|\bmidnight\b|\bnoon\b|\bon (?:mon|tue|wed|thu|fri|sat|sun)", bare
    ):
        return False
    return not any(w.lower() in _words()["not_item"] for w in words)


# --------------------------------------------------------------------------------------------------
# Page chrome

_COPYRIGHT = re.compile(r"©|\(c\)\s*\d{4}|\ball rights reserved\b", re.I)
_COMPANY_NUMBER = re.compile(
    r"(?i)\b(?:ABN|ACN|NZBN|EIN|VAT(?: reg(?:istration)?)?(?: no\.?| number)?|GST(?: no\.?)?|"
    r"(?:company|reg(?:istration)?|registered)\.?\s*(?:no|number)\.?)\s*:?\s*[A-Z]{0,3}\s?\d[\d ]{4,}"
)
# A cookie banner or link, not a bakery's cookies: "We use cookies", "Accept cookies?", "Cookie policy".
_COOKIE = re.compile(
    r"(?i)\bcookies?\b.{0,60}\b(?:accept|consent|policy|settings|preferences|experience|browsing|notice)\b"
    r"|\b(?:accept|use|uses|using|essential|allow|manage)\b.{0,20}\bcookies\b|^\W*cookies?\W*$"
)
_SKIP = re.compile(r"(?i)^\W*(?:skip to (?:main )?content|back to top|☰?\s*menu)\W*$")
_CHROME_SEPARATOR = re.compile(r"\s*(?:\||·|•|/|\s{3,})\s*|\]\s*\[")


def _marks_as_bars(text: str) -> str:
    """A lone symbol between spaces ("Home ▸ Courses", "Home » Book") separates labels as "|" does:
    any arrow, triangle or guillemet by its Unicode category, rather than a list of marks. "+" and
    "=" join words ("Cut + Colour") and are left alone."""
    return re.sub(
        r"(?<=\s)\S(?=\s)",
        lambda m: (
            "|" if m[0] not in "+=" and unicodedata.category(m[0]) in {"Sm", "So", "Pi", "Pf"} else m[0]
        ),
        text,
    )


def is_chrome(line: str) -> bool:
    """Navigation bars, footers (copyright, a company number), cookie banners and "skip to content":
    page furniture, not a fact. Judged on one line, by what it is made of: many short labels with no
    amount, time or sentence between them, or a footer's telltale marks."""
    text = line.strip()
    if not text:
        return False
    if _COPYRIGHT.search(text) or _COMPANY_NUMBER.search(text) or _SKIP.match(text):
        return True
    if _COOKIE.search(text) and len(text) <= 160:
        return True
    if re.match(r"^[^:]{1,40}:\s", text):  # "Rooms: The Vault · Pharaoh's Curse": a labelled list
        return False
    labels = [c.strip(" []→←>") for c in _CHROME_SEPARATOR.split(_marks_as_bars(text)) if c.strip(" []→←>")]
    if len(labels) < 3:
        return bool(
            re.fullmatch(r"(?i)(?:follow us|find us|like us)? ?(?:on )?\w* ?@[\w.]+(?: on \w+)?", text)
        )
    # Menu labels are capitalised names ("Home", "Book Now", "Gift Cards"), not clauses.
    short = all(
        len(label.split()) <= 4 and label[:1].isupper() and not re.search(r"\d|[.!?]$", label)
        for label in labels
    )
    return short and not _has_amount(text)


# --------------------------------------------------------------------------------------------------
# Blocks of lines


@dataclass
class Found:
    """Rows read from ``lines[start:end]`` (``end`` is exclusive)."""

    end: int
    cells: list[RowCell]
    used_caption: bool = False
    texts: list[str] = field(default_factory=list)  # lines of it that are not priced cells


def read_rows(lines: list[str], start: int, caption: str = "") -> Found | None:
    """The list or table starting at ``lines[start]``, if one does. ``caption`` is the line before it
    when that line is a short title with no amount ("Full groom (bath, haircut, nails)")."""
    table = _read_table(lines, start, caption)
    if table is not None:
        return table
    found = _read_list(lines, start, caption)
    if found is not None:
        return found
    inline = read_inline(lines[start])
    return Found(start + 1, inline) if inline else None


_CONDITION = re.compile(
    r"(?i)\b(?:over|above|under|below|minimum|min\.|spend|orders?|more than|less than)\s*$"
)


def read_inline(line: str) -> list[RowCell]:
    """One line or sentence listing several prices: "Monthly membership: $89 adult, $75 student",
    "Washers: Top load $3.50 · Giant $8.75", "Meeting rooms $28/hour for members, $45/hour for
    non-members", "Interior detail from $129 · Full detail from $219". A label ("Full groom prices:")
    or a first piece's words name the item and the other pieces' words its variants; a label that only
    says "prices" ("Pricing:", "Rate card 2025:") names nothing, and each piece is an item."""
    body = strip_bullet(line).rstrip(".")
    label = ""
    labelled = re.match(r"^([^:$£€]{2,60}):\s+(.*)$", body)
    if labelled and _is_item(_clean(labelled.group(1))):
        label, body = _clean(labelled.group(1)), labelled.group(2)
    pieces = re.split(r"\s+[·•|]\s+", body)
    if len(pieces) < 2 or label:
        pieces = re.split(r"\s+[·•|]\s+|,\s+|;\s+", body)
    if len(pieces) < 2:
        return []
    read = [_piece(piece) for piece in pieces]
    if any(r is None for r in read):
        return []
    found = [r for r in read if r is not None]
    item = _priced_label_item(label)
    if not label and not found[0][0]:
        return []
    if not label and all(not words for words, _ in found[1:]):  # "Meeting rooms $28/hour for members,
        item = found[0][0]  # $45/hour for non-members": the first piece names the item
        found = [("", found[0][1]), *found[1:]]
    out: list[RowCell] = []
    for words, value in found:
        variant, detail = (value.note, "") if not words and value.note else (words, value.note)
        if item:
            out.append(RowCell(item=item, variant=variant, value=value.value, detail=detail))
        elif words:
            out.append(RowCell(item=words, value=value.value, detail=value.note))
        else:
            return []
    return out


def _priced_label_item(label: str) -> str:
    """The item a list's label names: "Full groom prices" -> "Full groom"; a label that only says
    prices, or prices of a time ("2026 rates", "Prices from March"), names none."""
    if not _has_price_word(label):
        return label
    rest = _strip_price_words(label)
    if re.search(r"\d", rest) or re.match(r"(?i)(?:from|as of|until|since|valid|effective|for)\b", rest):
        return ""
    return rest


def _piece(piece: str) -> tuple[str, _Value] | None:
    """One piece of an inline list: its words before the amount and the amount ("half day $40")."""
    amounts = list(_AMOUNT.finditer(piece))
    if (
        len(amounts) != 1
        or re.search(r"(?i)\bfree\b", piece)
        or _CONDITION.search(piece[: amounts[0].start()])
    ):
        return None
    start = amounts[0].start()
    qual = re.search(r"(?i)\b(?:from|ab|starting at)\s+$", piece[:start])
    cut = qual.start() if qual else start
    value = read_value(piece[cut:])
    if value is None:
        return None
    # "Extra shot +$1.00": the sign is the amount's (an extra charge), not the item's.
    words = _clean(re.sub(r"(?i)\s+for$", "", piece[:cut].strip().rstrip("+")))
    if words and not _is_item(words):
        return None
    note = re.sub(r"(?i)^for\s+", "", value.note)  # "$25/hour for members"
    if note and len(note.split()) > 4:
        return None
    return words, _Value(value.value, note)


def _is_table_line(line: str) -> bool:
    stripped = line.strip()
    if stripped.count("|") >= 1:
        return len([c for c in _cells(stripped) if c]) >= 2
    return ("\t" in stripped or re.search(r"\S\s{2,}\S", stripped) is not None) and len(_cells(stripped)) >= 2


_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


def _read_table(lines: list[str], start: int, caption: str) -> Found | None:
    """A header row (optional) and rows of cells with at least one amount after the first cell."""
    i = start
    header: list[str] = []
    first = lines[i] if i < len(lines) else ""
    if not _is_table_line(first):
        return None
    cells = _cells(first)
    if not any(read_value(c) for c in cells[1:]):
        header = cells  # a row of names with no amount: the header, when rows follow
        i += 1
        if i < len(lines) and _TABLE_SEP.match(lines[i]):
            i += 1
    rows: list[list[str]] = []
    unpriced: list[str] = []  # rows of the table with no amount ("Custom cake | ask in store")
    while i < len(lines) and lines[i].strip() and _is_table_line(lines[i]):
        row = _cells(lines[i])
        trailing = re.search(r"(?i)\s(?:from|ab)$", row[0])
        if trailing and len(row) > 1:  # "Colour from      $90"
            row = [row[0][: trailing.start()], "from " + row[1], *row[2:]]
        if header and abs(len(row) - len(header)) > 1:
            break
        if not any(read_value(c) for c in row[1:]):
            if not header:
                break
            unpriced.append(": ".join(c for c in row if c))
        else:
            rows.append(row)
        i += 1
    if not rows:
        return None
    width = max(len(r) for r in rows)
    if header and len(header) < width:
        header = [""] * (width - len(header)) + header  # "WASH MENU  Car  SUV" over wider rows
    cells_out = _table_cells(header, rows, caption)
    return Found(i, cells_out, used_caption=bool(caption) and _uses(cells_out, caption), texts=unpriced)


def _table_cells(header: list[str], rows: list[list[str]], caption: str) -> list[RowCell]:
    labels = [row[0] for row in rows]
    numeric = all(re.match(r"^\d", label) for label in labels)
    dimension = bool(header) and _names_dimension(header[0])
    by_caption = numeric or dimension
    subject = (
        "" if not by_caption else caption if not _has_price_word(caption) else _strip_price_words(caption)
    )
    telling = _telling_columns(rows)
    out: list[RowCell] = []
    for row in rows:
        label = row[0] if by_caption or not header else _named_by_header(row[0], header[0])
        priced = [(j, v) for j, c in enumerate(row) if j > 0 and (v := read_value(c)) is not None]
        told = [c for j, c in enumerate(row) if j in telling.get(row[0], ())]
        text_cells = [
            _count_label(c, header[j] if j < len(header) else "")
            for j, c in enumerate(row)
            if j > 0 and c and read_value(c) is None and j not in telling.get(row[0], ())
        ]
        for j, value in priced:
            column = header[j] if j < len(header) else ""
            column = "" if _is_price_word(column) else column
            variants: list[str] = []
            if by_caption:
                item = subject or caption or column or label
                if item != label:
                    variants.append(_count_label(label, header[0] if header else ""))
                if column and item != column:
                    variants.append(column)
            else:
                item = label
                variants.extend(told)
                if column:
                    variants.append(column)
            detail = ", ".join([*text_cells, value.note] if value.note else text_cells)
            out.append(RowCell(item=item, variant=", ".join(variants), value=value.value, detail=detail))
    return out


def _telling_columns(rows: list[list[str]]) -> dict[str, tuple[int, ...]]:
    """For a label that heads two or more rows ("Pebble Merino | DK | 50g" and "Pebble Merino | Aran
    | 100g"), the text columns whose cells differ between those rows: they say which of the item each
    row prices, as a variant does, or the rows would read as one price said twice."""
    groups: dict[str, list[list[str]]] = {}
    for row in rows:
        groups.setdefault(row[0], []).append(row)
    telling: dict[str, tuple[int, ...]] = {}
    for label, group in groups.items():
        if len(group) < 2:
            continue
        width = max(len(r) for r in group)
        cells = [[r[j] if j < len(r) else "" for r in group] for j in range(1, width)]
        telling[label] = tuple(
            j + 1
            for j, column in enumerate(cells)
            if len(set(column)) > 1 and not any(read_value(c) for c in column)
        )
    return telling


def _named_by_header(label: str, header: str) -> str:
    """A row label under a first-column header that names a thing ("Bucket", "Pizza"): the row's
    item is that thing of the label's kind ("Small bucket", "Margherita pizza"), as a menu's reader
    names it. A label that writes the header's noun, or names a kind of it in WordNet ("Car" under
    "Vehicle"), stays as written, and so does every label under a header that names no thing
    ("Item", "Service", "Size")."""
    if _identifier(label) and (named := _header_noun(header)) is not None:
        # A letter or a code names nothing by itself: English writes it after its noun ("Zone A",
        # "Unit B2"), so the row is the header's thing with that name.
        return f"{named} {label.strip()}"
    noun = _thing_noun(header)
    if noun is None or not any(c.isalpha() for c in label):
        return label
    words = [t for t in parse(f"{label.lower()} {noun}") if not (t.is_punct or t.is_space)][:-1]
    if any(t.lemma_.lower() == noun for t in words):
        return label  # "Large bucket" under "Bucket"
    nouns = [t.lemma_.lower() for t in words if t.pos_ in ("NOUN", "PROPN")]
    if nouns and one_of_a_kind(nouns[-1], noun):
        return label  # already a kind of it: "Car" under "Vehicle", "Labrador" under "Dog"
    return f"{label} {noun}"  # "Small bucket", "Margherita pizza", "Berry Blast smoothie"


def _identifier(label: str) -> bool:
    """A label that is a name by letter or code, not a word: "A", "C", "B2", "3A"."""
    label = label.strip()
    return label.isalnum() and (
        len(label) == 1 or (len(label) <= 3 and not label.isalpha() and not label.isdigit())
    )


def _header_noun(header: str) -> str | None:
    """A first-column header that is one noun, as written ("Zone", "Unit"), else None."""
    tokens = [t for t in parse(f"the {header.strip()}") if not (t.is_punct or t.is_space)][1:]
    if len(tokens) != 1 or tokens[0].pos_ not in ("NOUN", "PROPN") or _is_price_word(header):
        return None
    return header.strip()


def _thing_noun(header: str) -> str | None:
    """The lemma of a header that is one noun of a thing or a being in WordNet ("Buckets" ->
    "bucket", "Dog" -> "dog"), else None."""
    tokens = [t for t in parse(f"the {header.strip().lower()}") if not (t.is_punct or t.is_space)][1:]
    if len(tokens) != 1 or tokens[0].pos_ != "NOUN" or _is_price_word(header):
        return None
    lemma = tokens[0].lemma_.lower()
    return lemma if lexical_file(lemma) in THING_FILES else None


def _bare_number(text: str) -> bool:
    """A number or a range of numbers alone ("3", "5-8", "10+")."""
    return re.fullmatch(r"\d[\d\s\-\u2013+]*", text) is not None


def _count_label(label: str, header: str) -> str:
    """A bare number names a count of the header's plural noun: "2" under "Players" is "2 players"."""
    if _bare_number(label) and re.fullmatch(r"[A-Za-z]+s", header.strip()):
        return f"{label} {header.strip().lower()}"
    return label


def _read_list(lines: list[str], start: int, caption: str) -> Found | None:
    """Consecutive item lines; lines indented under a caption are variants of the caption's item
    ("Relaxation massage" / "  30 min ..... $60")."""
    i = start
    out: list[RowCell] = []
    asides: list[str] = []
    indented_run = False
    while i < len(lines) and lines[i].strip():
        line = lines[i]
        found = _item_line(line)
        if found is None:
            variants = _leader_variants(line)
            if not variants:
                break
            out.extend(variants)  # "Massage ........ 30 min $50 | 60 min $90": a price per variant
            i += 1
            continue
        item, value = found
        indented = line[:1] in (" ", "\t") and bullet_body(line) is None
        if i == start:
            indented_run = indented
        if indented != indented_run:
            break
        note = value.note
        if _aside(note):
            # "One-time enrollment fee: $49 - NEW YEAR SPECIAL: fee waived for anyone who joins by
            # April 30": a sentence of its own after a dash, whose dates are not the price's.
            asides.append(note.lstrip("-\u2013\u2014 "))
            note = ""
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        wrapped = not indented and nxt[:1] in (" ", "\t") and nxt.strip() and bullet_body(nxt) is None
        if wrapped and _item_line(nxt) is None:  # the item's continuation ("  (sliced on request)")
            note = ", ".join(filter(None, [note, _clean(nxt).strip("()")]))
            i += 1
        if indented_run and caption:
            out.append(RowCell(item=caption, variant=item, value=value.value, detail=note))
        else:
            out.append(RowCell(item=item, variant=_days_note(caption), value=value.value, detail=note))
        i += 1
    if not out:
        return None
    return Found(i, _told_apart(out), used_caption=bool(caption) and _uses(out, caption), texts=asides)


def _aside(note: str) -> bool:
    """Whether a note after a row's amount is a sentence of its own set off by a dash: its main verb
    has a subject of its own ("- NEW YEAR SPECIAL: enrollment fee waived for anyone who joins by April
    30"). A condition on the price ("- waived if you go ahead with the repair") has none."""
    if not note.lstrip().startswith(("-", "\u2013", "\u2014")) or len(note.split()) < 4:
        return False
    from apps.language.analysis import analyse  # lazy: most rows have no such note

    tokens = analyse(note.lstrip("-\u2013\u2014 "), base_date=date.min).tokens
    roots = {t.i for t in tokens if t.dep == "ROOT" and t.pos in ("VERB", "AUX")}
    return any(t.dep in ("nsubj", "nsubjpass") and t.head in roots for t in tokens)


def _days_note(caption: str) -> str:
    """The weekdays a caption's note in brackets names ("Weekend parties (Sat & Sun)" -> "Sat &
    Sun"): every row under it is priced for those days, as a table's column of them says. "" when
    the caption has no such note."""
    found = re.search(r"\(([^)]*)\)\s*:?\s*$", caption)
    if not found:
        return ""
    words = re.findall(r"[A-Za-z]+", found.group(1))
    joins = {"and", "to", "through"}
    days = [w for w in words if w.lower() not in joins]
    return found.group(1).strip() if days and all(weekday_number(w) is not None for w in days) else ""


def _leader_variants(line: str) -> list[RowCell]:
    """A leader line whose value gives one price per variant ("Massage therapy ........ 30 min $50 |
    60 min $90"): read as the inline list "Massage therapy: 30 min $50 · 60 min $90"."""
    body = strip_bullet(line)
    leader = _LEADER.search(body)
    item = _clean(body[: leader.start()]) if leader else ""
    if leader is None or not _is_item(item):
        return []
    return read_inline(f"{item}: {body[leader.end() :]}")


def _told_apart(cells: list[RowCell]) -> list[RowCell]:
    """Rows that name one item twice, told apart by their brackets ("Home lockout (daytime): £75",
    "Home lockout (evenings & weekends): £110"): the bracket is each row's variant, not a note."""

    def bare(name: str) -> str:
        return " ".join(re.sub(r"\([^)]*\)", " ", name).split()).lower()

    names: dict[str, set[str]] = {}
    for cell in cells:
        names.setdefault(bare(cell.item), set()).add(cell.item)
    out: list[RowCell] = []
    for cell in cells:
        bracket = re.search(r"\(([^)]*)\)", cell.item)
        if len(names[bare(cell.item)]) > 1 and bracket and not cell.variant:
            item = " ".join(re.sub(r"\([^)]*\)", " ", cell.item).split())
            cell = cell.model_copy(update={"item": item, "variant": bracket.group(1)})
        out.append(cell)
    return out


def _uses(cells: list[RowCell], caption: str) -> bool:
    return any(cell.item in (caption, _strip_price_words(caption)) for cell in cells)


def caption_of(line: str) -> str:
    """The line as a caption of the list or table under it, or "" when it is not one (a sentence,
    a line with an amount, page chrome)."""
    text = _clean(strip_bullet(line))
    if not text or len(text) > 80 or text[-1:] in ".!?" or _has_amount(text) or is_chrome(text):
        return ""
    if _is_table_line(line):
        return ""
    # "LANE PRICING" -> "Lane pricing", and so a caption in capitals with a note in brackets.
    capitals = without_notes(text).isupper()
    return text[:1] + text[1:].lower() if capitals else text
