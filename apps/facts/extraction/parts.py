"""Split source text into parts: one sentence, list item or question-and-answer each.

Parts are what the ingestion pipeline hashes ("only what is new is processed") and hands to an
extractor one at a time, with the heading breadcrumb they sit under.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from datetime import date
from functools import cache
from typing import TYPE_CHECKING, Any

from apps.language.bullets import bullet_body
from apps.language.wordlists import categories
from apps.language.wordlists import words as word_table
from apps.language.words import form_key, note_spans, without_notes

from .tables import RowCell, caption_of, is_chrome, read_inline, read_rows

if TYPE_CHECKING:
    from apps.language.analysis import Analysis

MAX_PART_CHARS = 600


@dataclass(frozen=True)
class Part:
    heading: str
    text: str
    hash: str
    # Which paragraph, list item or table row of the text the part was cut from (parts of one block
    # share it): the injection guard judges a block's sentences together.
    block: int = 0
    # A priced cell of a list or table (tables.py): the extractor makes its fact from this, not from
    # re-reading ``text`` (which is the cell written out as one line).
    row: RowCell | None = None


def normalise(text: str) -> str:
    """Collapse whitespace and strip (case is kept: "$8" vs "$8" matters, "May" vs "may" might)."""
    return re.sub(r"\s+", " ", text).strip()


def part_hash(text: str) -> str:
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_BOLD_LINE = re.compile(r"^\s*(?:\*\*|__)([^*_]{1,80})(?:\*\*|__)\s*:?\s*$")
_LABEL_LINE = re.compile(r"^\s*([^.!?:]{1,60}):\s*$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")

# Words before a "." that do not end a sentence, whatever follows.
_ABBREV_NEVER = {
    "dr",
    "mr",
    "mrs",
    "ms",
    "prof",
    "e.g",
    "i.e",
    "vs",
    "approx",
    "tel",
    "ph",
    "jr",
    "sr",
    "dept",
    "appt",
    "ste",
    "apt",
    "fl",
    "bldg",
    "incl",
    "excl",
    "opp",
    "nr",
    "cf",
    "a.k.a",
    "mt",
    "ft",
    "no",
    "nos",
    "u.s",
    "u.k",
    "est",
}
# Words before a "." that end a sentence when a capitalised word other than a day or month follows.
_ABBREV_CAPITAL = {
    "a.m",
    "p.m",
    "am",
    "pm",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "mon",
    "tue",
    "tues",
    "wed",
    "thu",
    "thur",
    "thurs",
    "fri",
    "sat",
    "sun",
}
_CALENDAR_WORD = re.compile(
    r"(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*|jan[a-z]*|feb[a-z]*|march|april|may|june|july|aug[a-z]*|"
    r"sept?[a-z]*|oct[a-z]*|nov[a-z]*|dec[a-z]*|weekdays?|weekends?|daily|noon|midnight|to|through|till|until"
)
# Words before a "." that end a sentence only when a typical sentence opener follows.
_ABBREV_AMBIGUOUS = {
    "st",
    "ave",
    "rd",
    "blvd",
    "ln",
    "sq",
    "inc",
    "ltd",
    "co",
    "corp",
    "etc",
    "hr",
    "hrs",
    "min",
    "mins",
    "pkwy",
    "hwy",
}
_OPENERS = {
    "we",
    "our",
    "us",
    "you",
    "your",
    "it",
    "its",
    "they",
    "their",
    "the",
    "this",
    "that",
    "these",
    "those",
    "there",
    "call",
    "please",
    "email",
    "visit",
    "book",
    "open",
    "closed",
    "free",
    "all",
    "prices",
    "if",
    "for",
    "contact",
    "find",
    "come",
    "just",
    "ask",
    "i",
    "my",
    "each",
    "every",
    "some",
    "most",
    "yes",
    "note",
    "also",
    "plus",
    "hours",
    "delivery",
    "parking",
    "order",
    "orders",
    "walk-ins",
    "gift",
    "new",
    "a",
    "an",
    "no",
    "not",
    "payment",
    "appointments",
    "sorry",
    "unfortunately",
    "thanks",
    "thank",
}


def _ends_in_year(label: str) -> bool:
    last = label.split()[-1]
    return len(label.split()) > 1 and len(last) == 4 and last.isdigit() and 1900 <= int(last) <= 2199


def _ends_in_a_date(label: str) -> bool:
    """ "Fri Nov 28", "Wed Dec 24": the label's last words are a date (read by the language layer)."""
    from apps.language.analysis import analyse  # lazy, as in dated_back below

    mentions = analyse(label, base_date=date(2000, 1, 1)).dates
    return bool(mentions) and mentions[-1].start is not None and mentions[-1].end_char == len(label.rstrip())


def split_label(text: str) -> tuple[str, str, int]:
    """("Holiday flyer", "Sourdough loaves $10.", offset) for "Holiday flyer: Sourdough loaves $10."."""
    m = re.match(r"^\s*([^:.!?$£€]{1,60}?):\s+(\S.*)$", text)
    # A number before the colon is a time ("9:30") unless it is a heading's year ("Rate card 2026:") or
    # a date's day ("Fri Nov 28: 8am-2pm").
    if (
        not m
        or re.search(r"https?$", m.group(1))
        or (m.group(1)[-1].isdigit() and not _ends_in_year(m.group(1)) and not _ends_in_a_date(m.group(1)))
    ):
        return "", text, 0
    return m.group(1).strip(), m.group(2), m.start(2)


#: A sentence that opens with its price ("$175 with a festive set, 15 min.").
_OPENS_WITH_PRICE = re.compile(r"\s*[$£€]\s?\d")


def continued(sentence: str, label: str) -> str:
    """A sentence that opens with its price has no subject of its own: it goes on about what the
    sentence before it was labelled with ("Christmas minis: November 20-22. $175, 15 min." -> the
    minis are $175)."""
    if label and _OPENS_WITH_PRICE.match(sentence) and not split_label(sentence)[0]:
        return f"{label}: {sentence.lstrip()}"
    if (
        label
        and not _names_only_days(label)
        and not split_label(sentence)[0]
        and _opens_with_a_weekday(sentence)
    ):
        # So does a verbless line of days and times ("Drop-off & collection: Mon-Sat 9am-12pm.
        # Sunday 4pm-6pm only."): the Sunday hours are the label's, not the business's. A label of
        # days ("Tues - Fri: 7:30 - 16:00") names no thing: the next line's days are their own.
        return f"{label}: {sentence.lstrip()}"
    return sentence


def _shout_as_label(sentences: list[str]) -> list[str]:
    """A name shouted in capitals before the fragment it heads ("ARAN SALE! 20% off all Aran weight
    yarn until 28 February.") labels that fragment ("Aran sale: 20% off ..."): alone it states
    nothing, and the fragment alone does not say what it is."""
    if len(sentences) < 2:
        return sentences
    first = sentences[0].strip()
    name = first.rstrip("!").strip()
    letters = [c for c in name if c.isalpha()]
    if not first.endswith("!") or len(letters) < 3 or name.upper() != name or len(name.split()) > 5:
        return sentences
    if any(ch.isdigit() for ch in name) or split_label(sentences[1])[0]:
        return sentences
    from apps.language.analysis import analyse  # lazy, as in dated_back

    # Only a fragment takes it ("20% off all Aran weight yarn ..."): a sentence with a subject of its
    # own ("... the warehouse is also open Saturdays") already says what it is about.
    if any(
        t.dep in ("nsubj", "nsubjpass", "expl") for t in analyse(sentences[1], base_date=date.today()).tokens
    ):
        return sentences
    label = name[:1] + name[1:].lower()
    return [f"{label}: {sentences[1].lstrip()}", *sentences[2:]]


def _opens_with_a_weekday(sentence: str) -> bool:
    """A sentence with no verb of its own that starts with a weekday ("Sunday 4pm-6pm only.")."""
    if not sentence.strip()[:1].isalpha() or not any(ch.isdigit() for ch in sentence):
        return False  # cheap checks first: most sentences are not days and times
    from apps.language.analysis import analyse  # lazy, as in dated_back below

    analysis = analyse(sentence.strip(), base_date=date.today())
    first = analysis.dates[0] if analysis.dates else None
    return (
        first is not None and first.start_char == 0 and bool(first.weekdays) and not analysis.has_finite_verb
    )


#: "that day", "that weekend": a date the sentence before named.
_THAT_DAY = re.compile(r"(?i)\b(?:on\s+)?that\s+(?:day|date|weekend)\b")


def without_dateline(text: str, on: date) -> str:
    """A paragraph without the date it was posted on, where it opens with one before a dash or a
    colon and goes on to date what it says ("18 Aug 2026 - BANK HOLIDAY: We are closed on Monday 31
    August."): the news item's own date is when it was written, not when the closure holds, and
    read as a window it dated the item's every sentence. Hand-written: a dateline is a layout
    convention, which no date library reads."""
    if not text[:1].isdigit() and not text[:1].isupper():
        return text
    from apps.language.analysis import analyse  # lazy, as in dated_back

    dates = [m for m in analyse(text, base_date=on).dates if m.start is not None and not m.recurring]
    if len(dates) < 2 or dates[0].start_char != 0:
        return text
    # A dateline names a calendar day ("18 Aug 2026"); a bare weekday opening a timetable ("Mon:
    # closed" over "Tues & Wed: 9am to 6pm") is that line's label, not a date of posting.
    if not any(ch.isdigit() for ch in text[: dates[0].end_char]):
        return text
    # The item it heads dates what it says in the same sentence; a date line of a list ("Saturday 26
    # December: CLOSED." over "Tue 29 December: open as normal.") is that line's own date.
    stop = re.compile(r"[.!?](?:\s|$)|\n").search(text, dates[0].end_char)
    if stop is not None and dates[1].start_char >= stop.end():
        return text
    rest = text[dates[0].end_char :]
    stripped = rest.lstrip()
    if not stripped[:1] or stripped[:1] not in "-\u2013\u2014:|":
        return text
    return stripped[1:].lstrip()


def dated_back(sentence: str, before: str) -> str:
    """A sentence that points back at the date of the one before it ("No wash & fold service that
    day.") with that date written out, so that the sentence is dated on its own."""
    if not _THAT_DAY.search(sentence) or not any(ch.isdigit() for ch in before):
        return sentence
    # Lazy: the language layer parses on first use; few sentences point back at a date. Only the
    # date's words are taken, so the day it is resolved against does not matter.
    from apps.language.analysis import analyse

    named = [
        m
        for m in analyse(before, base_date=date.today()).dates
        if m.start is not None and not (m.recurring or m.holiday or m.bare_weekday)
    ]
    return _THAT_DAY.sub(f"on {named[0].text}", sentence, count=1) if named else sentence


def windows_back(sentences: list[str]) -> list[str]:
    """A sentence that only says when the one before it holds ("Stay 3 nights and pay for 2! Valid
    for stays from 4 January to 31 March 2027.") goes into that sentence, in brackets, so that the
    offer is dated and ends with its window instead of staying live. A sentence that says when an
    offer ends ("Offer ends August 31, 2027.") goes into each of the paragraph's terms of the offer
    before and after it."""
    out: list[str] = []
    for sentence in sentences:
        if out and _only_a_window(sentence):
            out[-1] = _with_window(out[-1], sentence)
        else:
            out.append(sentence)
    return _offer_end_spread(out)


def _with_window(sentence: str, window: str) -> str:
    said = window.strip().rstrip(".!")
    return f"{sentence.rstrip().rstrip('.!')} ({said[:1].lower()}{said[1:]})."


def _offer_end_spread(sentences: list[str]) -> list[str]:
    """The paragraph with one offer's end ("Offer ends August 31, 2027.", "This deal runs until 30
    June.") written into each sentence that gives something and names no date of its own ("pay just
    $1 for your first month!"), which would otherwise be stored as a permanent price. Only an
    offer's end, and only one per paragraph: "Closed Dec 25." bounds nothing else, and of two ends
    which term is whose is unclear. The end stays a sentence of its own when it reached none."""
    if len(sentences) < 2 or not any(ch.isdigit() for ch in " ".join(sentences)):
        return sentences
    from apps.language.analysis import analyse  # lazy, as in dated_back

    read = [analyse(s.strip(), base_date=date.today()) for s in sentences]
    ends = [i for i, a in enumerate(read) if _an_offers_end(a)]
    if len(ends) != 1:
        return sentences
    end = ends[0]
    terms = {i for i, a in enumerate(read) if i != end and _gives_something(a) and not _dated(a)}
    if not terms:
        return sentences
    return [_with_window(s, sentences[end]) if i in terms else s for i, s in enumerate(sentences) if i != end]


def _dated(analysis: Analysis) -> bool:
    return any(not m.recurring and (m.start or m.end) for m in analysis.dates)


def _an_offers_end(analysis: Analysis) -> bool:
    """An end date, no amount, and an offer as the subject ("Offer ends August 31, 2027.") or, where
    the tagger reads a verbless line's noun as a verb, as the root ("Deal valid until 30 November")."""
    if analysis.amounts or not any(m.end for m in analysis.dates if not m.recurring):
        return False
    heads = [t for t in analysis.tokens if t.dep in ("nsubj", "nsubjpass", "ROOT") and not t.is_punct]
    offers = _offer_nouns()
    return any(form_key(t.lemma) in offers for t in heads) and not any(
        t.dep in ("nsubj", "nsubjpass") and t.pos in ("NOUN", "PROPN") and form_key(t.lemma) not in offers
        for t in heads
    )


def _gives_something(analysis: Analysis) -> bool:
    """An offer's term: an amount, a percentage or a free thing ("pay just $1 for your first month",
    "20% off", "a free scalp massage"); "Gift cards never expire." beside a sale is none."""
    tokens = analysis.tokens
    percent = any(
        t.like_num and i + 1 < len(tokens) and tokens[i + 1].text == "%" for i, t in enumerate(tokens)
    )
    return bool(analysis.amounts) or percent or any(t.lemma == "free" for t in tokens)


@cache
def _offer_nouns() -> frozenset[str]:
    """The nouns that name an offer: the last word of each phrase of the offers kind in the language
    layer's kinds table ("special offer" -> "offer", "deal", "promotion", "sale")."""
    return frozenset(
        form_key(p.split()[-1]) for p in categories("kinds.txt", separator="|").get("offers", ())
    )


def _only_a_window(sentence: str) -> bool:
    words = sentence.strip().split()
    if not words or words[0].lower() not in word_table("validity.txt"):
        return False  # cheap checks first: few sentences open with "valid" or "available"
    return _a_window_alone(sentence, whole_range=False)


def _a_window_alone(sentence: str, *, whole_range: bool) -> bool:
    """Whether a sentence says nothing but when ("Valid 4 January to 31 March 2027", "Monday February
    9 - Saturday February 14, 2026", "Runs June 15 through August 30"): a date, at most three other
    content words, no subject. ``whole_range``: the date has a start and an end."""
    return bool(_window_dates(sentence, whole_range=whole_range))


def _window_dates(sentence: str, *, whole_range: bool) -> list[Any]:
    """The dates of a sentence that says nothing but when (see _a_window_alone), else []."""
    if not any(ch.isdigit() for ch in sentence):
        return []
    from apps.language.analysis import analyse  # lazy, as in dated_back

    sentence = sentence.strip()
    analysis = analyse(sentence, base_date=date.today())
    dates = [m for m in analysis.dates if not m.recurring and (m.start or m.end)]
    if whole_range:
        dates = [m for m in dates if m.start and m.end and m.start != m.end]
    spans = [(m.start_char, m.end_char) for m in dates]
    # A note in brackets beside the dates is an aside ("... to Sunday 31 May (inc. bank holiday
    # Monday)"): its words are not what the sentence says.
    aside = [(a, b) for a, b in note_spans(sentence) if not any(a <= s < b for s, _ in spans)]
    outside = [t for t in analysis.tokens if not any(a <= t.start_char < b for a, b in spans + aside)]
    content = [t for t in outside if not (t.is_stop or t.is_punct or t.like_num)]
    alone = bool(spans) and len(content) <= 3 and not any(t.dep in ("nsubj", "nsubjpass") for t in outside)
    return dates if alone else []


def _section_dates(sentence: str) -> str:
    """The dates a section's first sentence gives alone, as written ("Mon 18 - Fri 22 January" of
    "Mon 18 - Fri 22 January, 9.30am-2.30pm daily"), or "": a range, not one day."""
    dates = _window_dates(sentence, whole_range=True)
    return ", ".join(m.text for m in dates)


def _label_window(sentences: list[str]) -> str:
    """The dates of a paragraph's first line when it is a label with dates and no verb, and more
    follows it: "" otherwise."""
    if len(sentences) < 2:
        return ""
    from apps.language.analysis import analyse  # lazy, as in dated_back

    if analyse(sentences[0], base_date=date.today()).has_finite_verb:
        return ""
    return _heading_window(sentences[0])


def _heading_window(name: str) -> str:
    """The dates a heading gives for its whole section, as a window ("Christmas hours (21-27
    December)" -> "21-27 December", "Price list (effective 1 April 2026)" -> "from 1 April 2026"), or
    "". A range only: one day in a heading is as often the day a post was written ("News - 3 March")
    as the day its text holds."""
    found = _window_dates(name, whole_range=False)
    if len(found) != 1 or found[0].kind != "range":
        return ""
    mention = found[0]
    if mention.start and mention.end:
        return mention.text if mention.start != mention.end else ""
    return f"from {mention.text}" if mention.start else f"until {mention.text}"


def _lead_in_window(sentence: str) -> str:
    """The dates a sentence that opens a list gives for it, as a window: "Effective 1 April 2027 the
    following prices change:" -> "from 1 April 2027", "Between 1 and 14 June we run these offers:"
    -> "1 and 14 June". One start or one range only, as for a heading."""
    if not any(ch.isdigit() for ch in sentence):
        return ""
    from apps.language.analysis import analyse  # lazy, as in dated_back

    dates = [m for m in analyse(sentence, base_date=date.today()).dates if not m.recurring]
    if len(dates) != 1 or dates[0].kind != "range" or dates[0].start is None:
        return ""
    mention = dates[0]
    return mention.text if mention.end and mention.end != mention.start else f"from {mention.text}"


def _cell_in_window(cell: RowCell, window: str) -> RowCell:
    """A priced cell of a dated section, with the section's dates in its note (see _in_window)."""
    own = f"{cell.value} {cell.detail}".strip()  # the item and variant are names ("Valentine's")
    if not window or _in_window(own, window) == own:
        return cell
    said = window.strip().rstrip(".!")
    return cell.model_copy(update={"detail": f"{cell.detail}; {said}" if cell.detail else said})


def _in_window(text: str, window: str) -> str:
    """A part of a section whose heading is followed by its dates ("VALENTINE'S WEEK 2026" / "Monday
    February 9 - Saturday February 14, 2026"), with those dates in brackets unless it names its own."""
    if not window:
        return text
    from apps.language.analysis import analyse  # lazy, as in dated_back

    read = analyse(text, base_date=date.today())
    own = [
        m
        for m in read.dates
        if not (m.recurring or m.bare_weekday) and (m.start or m.end) and not _names_a_kind(m, read)
    ]
    return text if own else f"{text.rstrip().rstrip('.!')} ({window.strip().rstrip('.!')})."


def _names_a_kind(mention: Any, analysis: Analysis) -> bool:
    """A holiday's name that says which thing, not when ("Valentine's pricing", "the Christmas menu"):
    its last word modifies a noun."""
    last = [t for t in analysis.tokens if mention.start_char <= t.start_char < mention.end_char][-1:]
    return mention.holiday and bool(last) and last[0].dep in ("poss", "compound", "amod")


def split_parts(text: str) -> list[Part]:
    """Split markdown-ish text into parts under their heading breadcrumb. Empty text gives []."""
    if not text or not text.strip():
        return []
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    stack: list[tuple[int, str]] = []
    label = ""
    parts: list[Part] = []
    para: list[str] = []
    block = 0
    # The caption that opened the text since the last heading ("Private Events - hens, birthdays"
    # over a paragraph, then a table of group sizes): a table whose rows are no items is about it.
    opening_caption = ""
    # The dates a section's first sentence gives alone, right under its heading: every part of the
    # section holds only then ("VALENTINE'S WEEK 2026" / "Monday February 9 - Saturday February 14").
    window, fresh_section = "", False

    def heading(level: int, name: str) -> None:
        nonlocal label, window, fresh_section
        _push(stack, level, name)
        label, window, fresh_section = "", _heading_window(name), True

    def breadcrumb() -> str:
        names = [name for _, name in stack]
        if label:
            names.append(label)
        return " > ".join(names)

    def flush() -> None:
        nonlocal block, window, fresh_section
        if para:
            label_before, before = "", ""
            sentences = windows_back(split_sentences(without_dateline(_join_lines(para), date.today())))
            sentences = _shout_as_label(sentences)
            if fresh_section and sentences:
                window = _section_dates(sentences[0]) or window
            # A paragraph that opens with a name and its dates alone ("TAX SEASON HOURS - Monday,
            # February 2 through Wednesday, April 15" over "Saturdays 9am - 2pm"): its lines hold
            # then, as a section's under a dated heading do; the next paragraph is not in it.
            here = "" if fresh_section else _label_window(sentences)
            fresh_section = False
            for index, sentence in enumerate(sentences):
                dates = here if here and index > 0 else window
                unit = dated_back(continued(sentence, label_before), before)
                label_before, before = split_label(sentence)[0], sentence
                cells = read_inline(unit)  # "Meeting rooms $28/hour for members, $45 for others."
                for cell in cells:
                    cell = _cell_in_window(cell, dates)
                    _emit(parts, breadcrumb(), cell.text(), block, row=cell)
                if not cells:
                    _emit(parts, breadcrumb(), _in_window(unit, dates), block)
            # "Effective 1 April 2027 the following prices change:": a sentence that opens a list
            # with the day it starts (or the days it holds) dates the rest of the section.
            if sentences and sentences[-1].rstrip().endswith(":"):
                window = _lead_in_window(sentences[-1]) or window
            block += 1
            para.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        m = _HEADING.match(line)
        if m:
            flush()
            level = len(m.group(1))
            heading(level, _clean_inline(m.group(2)))
            opening_caption = ""
            i += 1
            continue
        if line.strip() and not para and _SETEXT.match(nxt) and bullet_body(line) is None:
            flush()
            heading(1 if nxt.strip().startswith("=") else 2, _clean_inline(line))
            i += 2
            continue
        if not line.strip():
            flush()
            label = ""
            i += 1
            continue
        if _TABLE_SEP.match(line) and "-" in line:
            i += 1
            continue
        # Price lists and tables are structure: one part per priced cell, its item and column kept
        # (tables.py); page chrome (navigation, footers, cookie banners) states nothing.
        found = read_rows(lines, i, caption_of(para[-1]) if para else opening_caption)
        if found is not None:
            if found.used_caption and para:
                para.pop()
            flush()
            fresh_section = False
            for cell in found.cells:  # each its own block, as a table row was
                cell = _cell_in_window(cell, window)
                _emit(parts, breadcrumb(), cell.text(), block, row=cell)
                block += 1
            for unpriced in found.texts:
                _emit(parts, breadcrumb(), _in_window(unpriced, window), block)
                block += 1
            i = found.end
            continue
        if is_chrome(line) and not (_TABLE_SEP.match(nxt) and "-" in nxt):
            flush()
            i += 1
            continue
        if _capitals_heading(line, lines[i + 1 :]):
            # A line in capitals over the text it names ("DELIVERY INFO", "MONDAY"): a heading, as a
            # page without markup writes one, and a caption for a list or table right under it.
            flush()
            name = _capitals_name(line)
            # A timetable's day ("MONDAY") is a section of the heading over it ("CLASS SCHEDULE").
            heading(_CAPITALS_LEVEL + 1 if _names_only_days(name) else _CAPITALS_LEVEL, name)
            window = _heading_window(" ".join(w.capitalize() for w in line.split()))  # "1 April"
            opening_caption = caption_of(line)
            i += 1
            continue
        stripped = line.strip()
        if stripped.startswith("|") and _TABLE_SEP.match(nxt) and "-" in nxt:
            flush()  # a table's header row names columns, it states nothing
            i += 2
            continue
        if stripped.startswith("|") and stripped.endswith("|") and stripped.count("|") >= 3:
            flush()
            cells = [_clean_inline(c) for c in stripped.strip("|").split("|")]
            row = ": ".join(c for c in cells if c)
            if row:
                fresh_section = False
                _emit(parts, breadcrumb(), _in_window(row, window), block)
                block += 1
            i += 1
            continue
        bold = _BOLD_LINE.match(line)
        lab = _LABEL_LINE.match(line)
        if (bold or lab) and bullet_body(line) is None:
            flush()
            label = _clean_inline((bold or lab).group(1)).rstrip(":")  # type: ignore[union-attr]
            window = _lead_in_window(label) or window  # "From 1 March 2027 these prices apply:"
            opening_caption = caption_of(line)  # a list right under it is its list
            i += 1
            continue
        body = bullet_body(line)
        if body is not None:
            flush()
            item = [body]
            # continuation lines of the item (indented, not a new bullet)
            while i + 1 < len(lines) and lines[i + 1].startswith((" ", "\t")) and lines[i + 1].strip():
                if bullet_body(lines[i + 1]) is not None:
                    break
                item.append(lines[i + 1])
                i += 1
            fresh_section = False
            for unit in _cut_long(normalise(_clean_inline(" ".join(item)))):
                if window:  # each sentence of the item holds in the section's dates
                    unit = " ".join(_in_window(one, window) for one in split_sentences(unit))
                _emit(parts, breadcrumb(), unit, block)
            block += 1
            i += 1
            continue
        if not para and not parts and not opening_caption:
            opening_caption = caption_of(line)
        para.append(line)
        i += 1
    flush()
    return _told_apart_by_section(parts)


def _told_apart_by_section(parts: list[Part]) -> list[Part]:
    """Rows that give one item and column twice under two headings ("WEEKEND HIRE" and "WEEK HIRE"
    over the same tubs and seasons): each row's section is part of what it prices, or the second
    table would read as a correction of the first."""
    headings: dict[tuple[str, str], set[str]] = {}
    for part in parts:
        if part.row is not None:
            key = (part.row.item.lower(), part.row.variant.lower())
            headings.setdefault(key, set()).add(part.heading)
    out: list[Part] = []
    for part in parts:
        cell = part.row
        section = without_notes(part.heading.rsplit(" > ", 1)[-1]).strip() if cell else ""
        if cell is None or len(headings[(cell.item.lower(), cell.variant.lower())]) < 2 or not section:
            out.append(part)
            continue
        variant = f"{section}, {cell.variant}" if cell.variant else section
        cell = cell.model_copy(update={"variant": variant})
        out.append(replace(part, text=normalise(cell.text()), hash=part_hash(cell.text()), row=cell))
    return out


# A heading in capitals sits under the markup's own top headings ("# Price list" over "ROSES").
_CAPITALS_LEVEL = 3
_EMOJI_MARK = re.compile(r"[\u2600-\u27bf\U0001F300-\U0001FAFF]")


def _names_only_days(name: str) -> bool:
    """Whether a heading names weekdays and nothing else ("Monday", "Sat & Sun")."""
    from apps.language.dates import weekday_number  # lazy: the date reader loads dateparser

    words = re.findall(r"[A-Za-z]+", name)
    return bool(words) and all(weekday_number(w) is not None or w.lower() in ("and", "to") for w in words)


def _capitals_name(line: str) -> str:
    """A heading in capitals as a name ("❤️ VALENTINE'S WEEK 2026 ❤️" -> "Valentine's week 2026")."""
    text = _EMOJI_MARK.sub("", _clean_inline(line)).replace("\ufe0f", "").strip(" -\u2013\u2014:*")
    return text[:1] + text[1:].lower()


def _capitals_heading(line: str, after: list[str]) -> bool:
    """Whether a line written in capitals names the text after it, as a heading does ("PET TRAVEL",
    "CLASS SCHEDULE (all classes in the main studio unless noted)", "MONDAY"): a few words, no number
    but a year, no statement of its own ("NO DOGS ALLOWED", "WE'RE MOVING!" say something; the
    parse tells), and some text after it. Written by hand: no library reads a plain page's layout."""
    text = line.strip()
    named = without_notes(text)  # a note in brackets keeps its own case
    letters = [c for c in named if c.isalpha()]
    # A list's item is no heading; an emoji before the words is decoration ("❤️ VALENTINE'S WEEK ❤️").
    listed = bullet_body(line) is not None and not _EMOJI_MARK.match(text)
    if len(letters) < 3 or named.upper() != named or listed or text.startswith("|"):
        return False
    if len(named.split()) > 10 or not any(rest.strip() for rest in after):
        return False
    from apps.language.analysis import analyse  # lazy, as in dated_back
    from apps.language.dates import is_year

    # Read with each word capitalised: in lower case "valentine's" reads as "valentine is".
    # The words outside a note: the note may say something ("(each, fully fitted - includes
    # balancing)") about what the heading names.
    analysis = analyse(" ".join(w.capitalize() for w in named.split()), base_date=date.today())
    dated = [(m.start_char, m.end_char) for m in analysis.dates]
    # The only numbers a heading holds are dates ("VALENTINE'S WEEK 2026", "PRICES (FROM 1 APRIL
    # 2026)"); another makes the line a detail ("OPEN 7 DAYS", "CALL NOW 0117 496 0321").
    numbers = [
        t
        for t in analysis.tokens
        if any(c.isdigit() for c in t.text)
        and not is_year(t.text)
        and not _YEAR_SPAN.fullmatch(t.text)
        and not any(a <= t.start_char < b for a, b in dated)
    ]
    if numbers or analysis.has_finite_verb or any(t.dep == "neg" or t.lemma == "no" for t in analysis.tokens):
        return False
    # A line with numbered dates names a thing to be a heading ("CHRISTMAS HOURS 24-26 DECEMBER"), or
    # it says what happens then ("CLOSED 24-26 DECEMBER"); read in lower case, where a capital makes
    # no name.
    numbered = any(c.isdigit() for a, b in dated for c in analysis.text[a:b])
    return not numbered or _names_a_thing(_capitals_name(text).lower())


#: A season of two years ("HOLIDAY HOURS 2027/28", "2026-27"). Hand-written: no date reader takes it.
_YEAR_SPAN = re.compile(r"(?:19|20)\d\d[/\-\u2013]\d\d")


def _names_a_thing(text: str) -> bool:
    from apps.language.analysis import analyse  # lazy, as in dated_back

    analysis = analyse(text, base_date=date.today())
    roots = [t for t in analysis.tokens if t.dep == "ROOT"]
    return len(roots) == 1 and roots[0].pos in ("NOUN", "PROPN") and not analysis.has_finite_verb


def _push(stack: list[tuple[int, str]], level: int, name: str) -> None:
    while stack and stack[-1][0] >= level:
        stack.pop()
    if name:
        stack.append((level, name))


def _emit(parts: list[Part], heading: str, text: str, block: int, row: RowCell | None = None) -> None:
    t = normalise(text)
    if t:
        parts.append(Part(heading=heading, text=t, hash=part_hash(t), block=block, row=row))


def _clean_inline(text: str) -> str:
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", text)  # images
    text = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r"\1 (\2)", text)  # links keep their target
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)
    text = re.sub(r"(?<![\w*])\*(?!\s)([^*]+?)\*(?!\w)", r"\1", text)
    text = re.sub(r"`([^`]*)`", r"\1", text)
    return normalise(text)


# A line ending in one of these words is wrapped mid-sentence, whatever the next line starts with.
_CONTINUES = re.compile(
    r"(?i)(?:^|\s)(?:and|or|nor|but|&|of|to|the|a|an|for|with|in|on|at|by|from|our|your|their|is|are|"
    r"was|were|will|be|than|as|per|plus|including|between|via|into|onto|over|under|that|which|who|"
    r"-|\u2013|\u2014)$"
)


#: A line shorter than this is not a wrapped line of prose (wrapping happens near 70-80 characters).
WRAPPED_LINE_CHARS = 60


def _join_lines(lines: list[str]) -> str:
    """Join a paragraph's lines; a short unpunctuated line followed by a capitalised one is a break.
    In a block whose lines are mostly short (a list, a menu: wrapped prose has most lines near its
    wrap width) a long one is an item too ("Cosmic bowling ...: $22 per person, 2 hours, shoes
    included" before "Birthday parties from ...")."""
    lengths = sorted(len(line.strip()) for line in lines if line.strip())
    list_like = bool(lengths) and lengths[len(lengths) // 2] < WRAPPED_LINE_CHARS
    out = ""
    for idx, raw in enumerate(lines):
        line = _clean_inline(raw)
        if not line:
            continue
        if not out:
            out = line
            continue
        prev = lines[idx - 1].strip()
        continues = _CONTINUES.search(prev) is not None  # "... Brooklyn and" / "Queens on weekdays."
        # A line ending in a number, a time, a percentage or a bracket closes an item ("...: $320"
        # before "End of lease clean for a 3 bedroom house: $450", "... Sat & Sun 7am-9pm" before
        # "Winter (...): ..."): wrapped prose breaks between words.
        last_word = prev.split()[-1] if prev.split() else ""
        closes_item = any(c.isdigit() for c in last_word) or prev[-1:] in ")]%"
        if (
            (len(prev) < WRAPPED_LINE_CHARS or list_like or closes_item)
            and prev[-1:] not in ".!?:;,"
            and not continues
            and (line[:1].isupper() or line[:1].isdigit())
        ):
            out += "\n" + line
        else:
            out += " " + line
    return out


def split_sentences(text: str) -> list[str]:
    """Split a paragraph into sentences, keeping a question together with its immediate answer."""
    sentences: list[str] = []
    for block in text.split("\n"):
        sentences.extend(_split_block(block))
    merged: list[str] = []
    i = 0
    while i < len(sentences):
        s = sentences[i]
        if s.endswith("?") and i + 1 < len(sentences) and not sentences[i + 1].endswith("?"):
            merged.append(s + " " + sentences[i + 1])
            i += 2
            continue
        merged.append(s)
        i += 1
    out: list[str] = []
    for s in merged:
        out.extend(_cut_long(s))
    return out


_TERMINATOR = re.compile(r"([.!?]+)([\"'\u201d\u2019)\]]*)(\s+)")


#: A dot leader inside a line ("Fri 31 Dec (New Year's Eve) .... 8:30am - 4pm"): it joins a label to
#: its value, so it reads as a colon and ends no sentence (an ellipsis has three dots).
_LEADER = re.compile(r"(?<=\S)\s*(?:\.{4,}|…{2,}|·{3,}|_{3,})\s*(?=\S)")


def _split_block(block: str) -> list[str]:
    block = _LEADER.sub(": ", normalise(block))
    if not block:
        return []
    result: list[str] = []
    start = 0
    for m in _TERMINATOR.finditer(block):
        end = m.end(2)
        after = block[m.end() :]
        before = block[start : m.start()]
        if not after:
            continue
        if m.group(1).startswith(".") and len(m.group(1)) == 1 and not _period_ends(before, after):
            continue
        if m.group(1)[0] in "!?" or _starts_sentence(after) or len(m.group(1)) > 1:
            if len(m.group(1)) > 1 and not _starts_sentence(after):
                continue
            piece = block[start:end].strip()
            if piece:
                result.append(piece)
            start = m.end()
    tail = block[start:].strip()
    if tail:
        result.append(tail)
    return result


def _starts_sentence(after: str) -> bool:
    ch = after[:1]
    return bool(ch) and (ch.isupper() or ch.isdigit() or ch in "\"'\u201c\u2018([$£€#*-")


def _period_ends(before: str, after: str) -> bool:
    if not _starts_sentence(after):
        return False
    word_m = re.search(r"(\S+)$", before)
    word = word_m.group(1) if word_m else ""
    bare = word.lower().lstrip("(\"'\u201c\u2018")
    next_word = re.match(r"[\"'\u201c\u2018(]*([\w'-]+)", after)
    nw = next_word.group(1).lower() if next_word else ""
    if bare == "no":
        return not after[:1].isdigit()
    if bare in _ABBREV_NEVER:
        return False
    if len(bare) == 1 and bare.isalpha() and word[:1].isupper():
        return False  # an initial: "J. Smith"
    if bare in _ABBREV_CAPITAL:
        return after[:1].isupper() and not _CALENDAR_WORD.fullmatch(nw)
    if re.fullmatch(r"(?:[a-z]\.)+[a-z]", bare):  # "e.g", "u.s.a"
        return bare in _ABBREV_AMBIGUOUS and nw in _OPENERS
    if bare in _ABBREV_AMBIGUOUS:
        return nw in _OPENERS
    return True


def _cut_long(sentence: str, limit: int = MAX_PART_CHARS) -> list[str]:
    if len(sentence) <= limit:
        return [sentence]
    for sep in ("; ", ", ", " "):
        pieces = sentence.split(sep)
        if len(pieces) == 1:
            continue
        out: list[str] = []
        cur = ""
        for piece in pieces:
            cand = f"{cur}{sep}{piece}" if cur else piece
            if len(cand) <= limit or not cur:
                cur = cand
            else:
                out.append(cur.rstrip(";,") if sep != " " else cur)
                cur = piece
        if cur:
            out.append(cur)
        if all(len(p) <= limit for p in out):
            return [p.strip() for p in out if p.strip()]
        # some piece still too long: cut those further
        final: list[str] = []
        for p in out:
            final.extend(_cut_long(p, limit) if len(p) > limit else [p])
        return [p.strip() for p in final if p.strip()]
    return [sentence[i : i + limit] for i in range(0, len(sentence), limit)]
