"""Dates, days and times for the built-in extractor.

- ``find_validity``: temporary phrasing ("until Dec 24", "from December 1 to February 28", "this week
  only", "starting March 3", "closed December 25 and 26") read by the language layer's date finder
  against the day the text was learned. Seasons and recurring days ("during the summer", "every
  Tuesday") are not dates: a fact said to hold then is not temporary.
- ``parse_hours``: opening-hours phrasing ("Mon-Fri 7am-3pm", "closed on Sundays", "until 6pm Monday
  to Friday", "at 7am, 12pm and 6pm", "24/7") as (days, value) pairs. Days never stated stay unknown.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, replace
from datetime import date, timedelta
from functools import cache
from itertools import pairwise
from typing import TYPE_CHECKING

from apps.language.ages import age_range_spans
from apps.language.analysis import Analysis, analyse
from apps.language.dates import (
    DateMention,
    date_words,
    phrase_start,
    role_before,
    tells_when_it_happened,
    weekday_number,
)
from apps.language.lexicon import counts_beings, is_season, word_classes
from apps.language.units import unit_name

from .builtin_patterns import DAY_NAMES, DAY_WORD
from .parts import split_label

if TYPE_CHECKING:
    from spacy.tokens import Span

# ----------------------------------------------------------------------------------------------
# Temporary phrasing


@dataclass(frozen=True)
class Validity:
    valid_from: date | None = None
    valid_to: date | None = None
    spans: tuple[tuple[int, int], ...] = ()
    # The dates of a season that recurs every year ("Summer (1 April - 30 September)"): masked with
    # the rest, bounding nothing, said in the statement so the answerer can read them per year.
    seasons: tuple[tuple[int, int], ...] = ()
    # Months without a year that a recurring arrangement is said to hold in ("Apr-Oct: daily 9-5",
    # "October opening: Fri-Sun"): not masked (they are words of the sentence, no number to misread),
    # but said in an hours statement, where the answerer reads them per year as it reads seasons.
    months: tuple[tuple[int, int], ...] = ()

    @property
    def temporary(self) -> bool:
        return self.valid_from is not None or self.valid_to is not None


def find_validity(text: str, learned_on: date) -> Validity:
    """The validity window a sentence states, and the spans of text that stated it (to mask).

    The dates are the language layer's (apps.language.dates: ranges, lists, open ends, years written
    once at the end), resolved from the day the text was learned. What is decided here is which of
    them bound the fact, which no library knows: a window is a day, a range or a list of them ("closed
    December 25 and 26" holds from the 25th to the 26th), "from"/"until" open one end, a month alone
    bounds it only after "in"/"during" or with its year (seasonal hours "Apr-Oct" recur), and a
    deadline ("order by Dec 20"), a recurring or bare weekday, a holiday named as such (read per year
    by the answerer), or a date something happened on ("prices went up in April") bounds nothing.
    Dates are masked either way, so no reader takes their numbers for times or prices."""
    analysis = analyse(text, base_date=learned_on)
    doc = analysis.doc
    windows: list[tuple[date | None, date | None]] = []
    spans: list[tuple[int, int]] = []
    seasons: list[tuple[int, int]] = []
    months: list[tuple[int, int]] = []
    for mention in analysis.dates:
        if mention.recurring or mention.holiday or mention.bare_weekday:
            continue
        words = doc.char_span(mention.start_char, mention.end_char, alignment_mode="expand")
        if words is None:
            continue
        role = role_before(doc, words.start)
        if (
            _whole_months(mention, words)
            and not mention.explicit_year
            and role not in date_words("month_window")
        ):
            if role not in date_words("open_start") | date_words("open_end"):
                months.append((mention.start_char, mention.end_char))  # not "from October": a start
            continue  # a season ("Apr-Oct", "from November through February"): it recurs, left as text
        if _seasons_dates(analysis, mention):
            # "Summer (1 April - 30 September): Mon-Fri 7am-10pm": every year's summer, read per year
            # by the answerer; masked, so that no reader takes "30" for a time.
            spans.append((mention.start_char, mention.end_char))
            seasons.append((mention.start_char, mention.end_char))
            continue
        lead = phrase_start(doc, words.start)  # "the start of" November
        said = role in _role_words() and lead > role.count("_")
        first = doc[lead - role.count("_") - 1].idx if said else min(doc[lead].idx, mention.start_char)
        spans.append((first, mention.end_char))
        if role in date_words("not_a_window") or tells_when_it_happened(words):
            if _ends_an_offer(analysis, words.start, role) and mention.start is not None:
                last = mention.end or mention.start
                windows.append((None, last - timedelta(days=1) if role == "before" else last))
            continue
        windows.append((mention.start, mention.end))
    valid_from, valid_to = _one_window(windows, weekly=_weekly_series(analysis))
    if valid_from and valid_to and valid_to < valid_from:
        valid_from, valid_to = None, None
    return Validity(valid_from, valid_to, tuple(spans), tuple(seasons), tuple(months))


def _seasons_dates(analysis: Analysis, mention: DateMention) -> bool:
    """Whether a range without a year gives the dates of a season the sentence names ("Summer (1
    April - 30 September)"), which recur every year; not "this summer", "next winter", said of one
    year, nor a season that names something else ("Spring fling", "summer term")."""
    if mention.explicit_year or mention.start is None or mention.end is None:
        return False
    tokens = analysis.tokens
    # The season itself, not a name it qualifies ("SPRING FLING, 1-30 September", "summer term").
    seasons = [
        t
        for t in tokens
        if t.pos in ("NOUN", "PROPN") and t.dep not in ("compound", "amod") and is_season(t.lemma)
    ]
    return bool(seasons) and not any(
        t.head == season.i and t.dep == "det" and t.lemma in ("this", "next", "last")
        for season in seasons
        for t in tokens
    )


def _ends_an_offer(analysis: Analysis, date_start: int, role: str) -> bool:
    """Whether a deadline ends the price its sentence states: a date after "by" or "before" that says
    by when to act ("buy by May 11", "Enrol by September 7 for the early-bird price of $380", "Book
    before 30 Nov and get 15% off"), in a sentence with an amount, is the end of what is offered.
    Read on the parse: the preposition hangs on a verb and is no passive's agent ("booked by"). A
    deadline with no price ("order by Dec 20") bounds nothing."""
    if role not in ("by", "before") or date_start == 0 or not (analysis.amounts or _percent(analysis)):
        return False
    by = analysis.doc[date_start - 1]
    if by.dep_ == "agent":
        return False
    # The tagger reads an imperative that opens a fragment as a noun ("Enrol by ...", "order by
    # ..."): a root the dictionary lists as a verb is one.
    head = by.head
    return head.pos_ == "VERB" or (head.dep_ == "ROOT" and "VERB" in word_classes(head.text))


def _percent(analysis: Analysis) -> bool:
    return any(
        t.like_num and t.i + 1 < len(analysis.doc) and analysis.doc[t.i + 1].text == "%" for t in analysis.doc
    )


#: Days between two dated windows of one sentence (under a week) up to which the fact holds across
#: both ("November 20-22 and 27-29"); further apart ("December 25 and January 1"), the days between
#: are not its.
LIST_GAP_DAYS = 6


def _weekly_series(analysis: Analysis) -> bool:
    """Whether the sentence lists the days of a weekly series, a weekday in the plural before them
    ("Tuesdays 9, 16, 23 & 30 March"): the thing runs from the first to the last of them."""
    first = analysis.dates[0] if analysis.dates else None
    if first is None or len(first.weekdays) != 1 or first.start is None:
        return False
    word = first.text.split()[0].lower()
    return word.endswith("s") and weekday_number(word[:-1]) is not None


def _one_window(
    windows: list[tuple[date | None, date | None]], *, weekly: bool = False
) -> tuple[date | None, date | None]:
    """A fact has one window: the span of its dates when they lie close together (a week apart in a
    weekly series), else the first of them (a fact record holds one validity window; the extractor
    cuts separately stated items apart before this, ``dated_items``)."""
    if not windows:
        return None, None
    starts = [w[0] for w in windows if w[0] is not None]
    ends = [w[1] for w in windows if w[1] is not None]
    closed = sorted((a, b) for a, b in windows if a is not None and b is not None)
    gap = 7 if weekly else LIST_GAP_DAYS
    if any((later[0] - earlier[1]).days > gap for earlier, later in pairwise(closed)):
        return closed[0]
    return (min(starts) if starts else None), (max(ends) if ends else None)


def dated_items(text: str, learned_on: date) -> list[str]:
    """A sentence that lists several dated items, each saying its own thing ("Easter opening: Good
    Friday 3 April 9am-5:30pm, Easter Sunday 5 April closed, Easter Monday 6 April 10am-4pm"), as one
    sentence per item, the label kept on each; any other sentence as itself. Items are cut at the
    commas and semicolons outside the dates and outside brackets."""
    label, body, offset = split_label(text)
    # The sentence's own parse (the one find_validity reads too), its dates moved onto the body.
    mentions = [
        replace(m, start_char=m.start_char - offset, end_char=m.end_char - offset)
        for m in analyse(text, base_date=learned_on).dates
        if m.start_char >= offset
    ]
    dated = [m for m in mentions if not (m.recurring or m.bare_weekday) and m.start is not None]
    if len(dated) < 2:
        return [text]
    inside = [(m.start_char, m.end_char) for m in mentions]
    pieces: list[tuple[int, int]] = []
    start, depth = 0, 0
    for index, char in enumerate(body):
        depth += (char in "([") - (char in ")]")  # a comma in brackets is the aside's, not the list's
        if char in ",;" and depth <= 0 and not any(a <= index < b for a, b in inside):
            pieces.append((start, index))
            start = index + 1
    pieces.append((start, len(body)))
    items = []
    for a, b in pieces:
        mine = [m for m in dated if a <= m.start_char < b]
        rest = mask(body[a:b], [(m.start_char - a, m.end_char - a) for m in mine]).strip(" .")
        if len(mine) != 1 or not rest:
            return [text]  # one date per item, and something said beside it
        items.append(body[a:b].strip().rstrip("."))
    return [f"{label}: {item}" if label else item for item in items] if len(items) > 1 else [text]


@cache
def _role_words() -> frozenset[str]:
    """Words before a date that belong to its phrase and are masked with it."""
    names = ("open_start", "open_end", "not_a_window", "month_window")
    return frozenset().union(*(date_words(n) for n in names)) | {"on", "between"}


def _whole_months(mention: DateMention, words: Span) -> bool:
    """A month or a run of months, no day named ("July", "Apr-Oct", "June to August 2026", "from
    April")."""
    if mention.start is None and mention.end is None:
        return False
    if phrase_start(words.doc, words.start) != words.start:
        return False  # "the end of June" is a day of it
    if mention.start is not None and mention.start.day != 1:
        return False
    if (
        mention.end is not None
        and mention.end.day != calendar.monthrange(mention.end.year, mention.end.month)[1]
    ):
        return False
    return not any(t.like_num and len(t.text) <= 2 for t in words) and not mention.weekdays


def mask(text: str, spans: tuple[tuple[int, int], ...] | list[tuple[int, int]]) -> str:
    """``text`` with the spans blanked out (same length, so positions still line up)."""
    chars = list(text)
    for start, end in spans:
        for k in range(start, min(end, len(chars))):
            chars[k] = " "
    return "".join(chars)


# ----------------------------------------------------------------------------------------------
# Days and times (opening hours)

_HOLIDAYS = (
    r"Christmas(?: Eve| Day)?|Boxing Day|New Year's(?: Eve| Day)?|Easter(?: Sunday| Monday)?|"
    r"Good Friday|Thanksgiving(?: Day)?|Labou?r Day|Memorial Day|Independence Day|Fourth of July|Halloween"
)
_NAMED_HOLIDAY = re.compile(_HOLIDAYS)
_DAY_GROUP = (
    r"(?i:week\s?days?|week\s?ends?|every\s?day|daily|all week|"
    # "open 7 days" is every day; "within 7 days", "7 days' notice" and "7 days before" are spans
    r"(?<!within )(?<!for )(?<!in )(?<!than )(?:7|seven) days(?: a week)?"
    r"(?!['\u2019]?\s*(?:notice|in advance|ahead|before|prior|after|later|from|of|to|left))|"
    rf"(?:bank |public |national )?holidays)|{_HOLIDAYS}"
)
_DAY_RANGE = rf"{DAY_WORD}\s*(?:-|(?i:to|through|thru|till|until))\s*{DAY_WORD}"
_DAY_ITEM = rf"(?:{_DAY_RANGE}|{DAY_WORD}|{_DAY_GROUP})"
_DAY_LIST = rf"{_DAY_ITEM}(?:\s*(?:,\s*(?i:and|or|&)?|&|/|(?i:and|or))\s*{_DAY_ITEM})*"
_MER = r"(?:\s?(?i:a\.?\s?m\b\.?|p\.?\s?m\b\.?))"
# "noon", and "12 noon" / "12.00 midday", first: the number alone would be read as a bare hour.
_WORD_TIME = r"(?i:(?:12(?:[:.]00)?\s*)?(?:noon|midday|midnight))"
# "7.30am" as British and Australian pages write it: a dot between hour and minutes only before am/pm,
# where no price can be meant ("12.50" alone is an amount).
_DOT_TIME = rf"(?<![\w$£€.,:/])(?:[01]?\d|2[0-4])\.[0-5]\d{_MER}"
_TIME = rf"(?:{_WORD_TIME}|{_DOT_TIME}|(?<![\w$£€.,:/])(?:[01]?\d|2[0-4])(?::[0-5]\d)?(?!\d){_MER}?)"
_TIME_STRONG = rf"(?:{_WORD_TIME}|{_DOT_TIME}|(?<![\w$£€.,:/])(?:[01]?\d|2[0-4])(?::[0-5]\d)?(?!\d){_MER}|(?<![\w$£€.,:/])(?:[01]?\d|2[0-3]):[0-5]\d(?!\d))"
_TO = r"\s*(?:-|(?i:to|till|til|'til|until|and))\s*"
# "10.00 - 17.30": a span of the 24-hour clock written with dots, whose end is past noon (a bare
# "8.50 - 12.00" may be amounts); the minutes a clock's quarter hours.
_DOT_24H = r"(?:[01]?\d|2[0-3])\.(?:00|15|30|45)"
_DOT_SPAN = rf"(?<![\w$£€.,:/]){_DOT_24H}\s*(?:-|\u2013|(?i:to|till|until))\s*(?:1[3-9]|2[0-4])\.(?:00|15|30|45)(?![\d.])"
# A range's end may write its minutes after a dot without am/pm ("5-10.30"): after a start time and
# a "to", no amount is meant.
_RANGE_END = r"(?:(?<![\w$£€.,:/])(?:[01]?\d|2[0-4])\.[0-5]\d(?![\d.])(?!\s?(?i:[ap]\.?\s?m\b)))"
_HOURS_TOKEN = re.compile(
    rf"(?P<days>{_DAY_LIST})"
    rf"|(?P<range>(?:(?i:from|between)\s+)?(?:{_DOT_SPAN}|{_TIME}{_TO}(?:{_RANGE_END}|{_TIME})))"
    rf"|(?P<until>(?i:until|till|til|'til|to|by|closes? at|close at|closing at)\s+{_TIME_STRONG})"
    rf"|(?P<from>(?i:from|opens? at|opening at|starting at|after)\s+{_TIME_STRONG})"
    rf"|(?P<list>(?:(?i:at)\s+)?{_TIME_STRONG}(?:\s*(?:,\s*(?i:and)?|&|(?i:and))\s*{_TIME_STRONG})*)"
    r"|(?P<always>24/7|24 hours a day|(?i:around|round) the clock|(?i:open) 24 hours)"
    r"|(?P<closed>\b(?i:closed)\b)"
    r"|(?P<appt>\b(?i:by appointment)(?: only)?\b)"
    r"|(?P<sep>[;,]|\s(?i:and|but|plus)\s|\.\s)"
)
_TIME_PARTS = re.compile(
    r"(?i)(?:(?P<word>noon|midday|midnight)|(?<!\d)(?P<h>\d{1,2})(?!\d)(?:[:.](?P<mi>\d{2}))?\s?(?P<mer>[ap])?\.?\s?(?:m\b\.?)?"
    r"(?!\s*(?:[:.]00\s*)?(?:noon|midday|midnight)))"
)


@dataclass(frozen=True)
class HoursSpec:
    """One opening-hours detail: ``day_key`` ("monday-friday", "sunday", "every day", "holidays" or
    None when no day was stated), ``value`` ("7 AM-3 PM", "until 6 PM", "closed", "24/7"; None for
    "open on these days" with no times), and the text that stated each part."""

    day_key: str | None
    value: str | None
    day_text: str
    time_text: str


_TIMETABLE_ROW = re.compile(rf"^\s*(?P<time>{_TIME_STRONG})\s+(?P<what>[A-Z].*)$")


def timetable_row(text: str) -> tuple[str, str] | None:
    """A timetable's line: one clock time, then what happens at it ("6:30 AM  Sunrise Flow (60 min)
    - Dana" -> ("6:30 AM", "Sunrise Flow (60 min) - Dana")); None for any other line. A range of
    times ("9am-5pm Mon-Fri") is hours, not a row."""
    m = _TIMETABLE_ROW.match(text)
    if m is None or re.match(rf"{_TO}{_TIME}", text[m.end("time") :]):
        return None
    if re.match(rf"{_DAY_LIST}\b", m.group("what")):
        return None  # "9am Mon-Fri", "6:00 AM Monday at the park": when, not what
    return _fmt_time(m.group("time"))[0], m.group("what").strip()


def _fmt_time(raw: str) -> tuple[str, bool]:
    """("6pm" -> "6 PM", True); ("12", False) for a bare hour."""
    m = _TIME_PARTS.search(raw)
    if not m:
        return raw.strip(), False
    if m.group("word"):
        return ("12 AM" if m.group("word").lower() == "midnight" else "12 PM"), True
    hour = str(int(m.group("h")))
    minutes = m.group("mi")
    text = hour + (f":{minutes}" if minutes and minutes != "00" else "")
    if m.group("mer"):
        return f"{text} {m.group('mer').upper()}M", True
    return text, bool(minutes)


def _fmt_range(raw: str) -> tuple[str, bool]:
    raw = re.sub(r"(?i)^(?:from|between)\s+", "", raw.strip())
    pieces = re.split(r"(?i)\s*(?:-|\u2013|\bto\b|\btill\b|'?\btil\b|\buntil\b|\band\b)\s*", raw, maxsplit=1)
    if len(pieces) != 2:
        return raw, False
    if not re.search(r"(?i)[ap]\.?\s?m|noon|midnight", raw) and max(_hour(pieces[0]), _hour(pieces[1])) >= 13:
        return f"{_from_24h(pieces[0])}-{_from_24h(pieces[1])}", True  # "8:00-17:00" -> "8 AM-5 PM"
    (a, a_strong), (b, b_strong) = _fmt_time(pieces[0]), _fmt_time(pieces[1])
    return f"{a}-{b}", a_strong or b_strong


def _hour(raw: str) -> int:
    m = re.search(r"\d{1,2}", raw)
    return int(m.group(0)) if m else 0


def _from_24h(raw: str) -> str:
    m = re.search(r"(\d{1,2})(?:[:.](\d{2}))?", raw)
    if not m:
        return raw.strip()
    hour, minutes = int(m.group(1)), m.group(2)
    mer = "PM" if 12 <= hour < 24 else "AM"
    hour = hour - 12 if hour > 12 else (12 if hour in (0, 24) else hour)
    return f"{hour}{':' + minutes if minutes and minutes != '00' else ''} {mer}"


def day_key(days: set[int]) -> str:
    """Canonical days: "every day", a cyclic run "monday-friday" / "sunday-monday", else a list."""
    if len(days) == 7:
        return "every day"
    ordered = sorted(days)
    if len(ordered) >= 2:
        starts = [d for d in ordered if (d - 1) % 7 not in days]
        if len(starts) == 1:
            first = starts[0]
            last = first
            while (last + 1) % 7 in days:
                last = (last + 1) % 7
            return f"{DAY_NAMES[first]}-{DAY_NAMES[last]}"
    return ", ".join(DAY_NAMES[d] for d in ordered)


def days_of_key(key: str) -> set[int] | None:
    """The days a ``day_key`` names (its inverse): "monday-friday" -> {0..4}, "sunday-monday" ->
    {6, 0}, "monday, wednesday" -> {0, 2}, "every day" -> all seven; None for any other key."""
    if key == "every day":
        return set(range(7))
    names = {name: i for i, name in enumerate(DAY_NAMES)}
    if "-" in key:
        first, _, last = key.partition("-")
        if first not in names or last not in names:
            return None
        return {(names[first] + k) % 7 for k in range((names[last] - names[first]) % 7 + 1)}
    days = [d.strip() for d in key.split(",")]
    return {names[d] for d in days} if all(d in names for d in days) else None


def parse_days(text: str) -> str | None:
    """The canonical day key of a day phrase ("Mon-Fri" -> "monday-friday"); None if it names none."""
    low = text.lower()
    named = _NAMED_HOLIDAY.findall(text)
    if named or re.search(r"holiday", low):
        label = ", ".join(n.lower() for n in named) if named else "holidays"
        rest = parse_days(
            _NAMED_HOLIDAY.sub(" ", re.sub(r"(?i)(?:bank |public |national )?holidays?", " ", text))
        )
        return f"{rest}, {label}" if rest else label
    days: set[int] = set()
    if re.search(r"every\s?day|daily|(?:7|seven) days(?: a week)?|all week", low):
        return "every day"
    if re.search(r"week\s?days?", low):
        days |= {0, 1, 2, 3, 4}
    if re.search(r"week\s?ends?", low):
        days |= {5, 6}
    for m in re.finditer(rf"({DAY_WORD})(?:\s*(?:-|(?i:to|through|thru|till|until))\s*({DAY_WORD}))?", text):
        first = weekday_number(m.group(1))
        if first is None:
            continue
        if m.group(2):
            last = weekday_number(m.group(2))
            if last is None:
                continue
            d = first
            days.add(d)
            while d != last:
                d = (d + 1) % 7
                days.add(d)
        else:
            days.add(first)
    return day_key(days) if days else None


@dataclass
class _Tok:
    kind: str  # "D" days, "T" time, "S" separator
    text: str
    start: int
    value: str = ""
    weak: bool = False  # a bare-number range ("9-5"): hours only next to a day


_WORD_AFTER = re.compile(r"\s*([A-Za-z]+)")
_WORD_BEFORE = re.compile(r"([A-Za-z]+)\s*$")


def _counts_something(text: str, span: tuple[int, int], *, strong: bool) -> bool:
    """Whether a number range ("4-10", "8-14") counts years or a measure, not the clock: an age range
    ("aged 8-14", "(4-10 yrs)", "kids 10-14": after a noun for people or animals), or a bare-number
    range with its unit after it ("2-3 hours")."""
    if any(s < span[1] and span[0] < e for s, e in age_range_spans(text)):
        return True
    before = _WORD_BEFORE.search(text, 0, span[0])
    if before is not None and counts_beings(before.group(1).lower()):
        return True  # "kids 10-14 can do it", "players 8-12": who, by age
    if strong:
        return False
    after = _WORD_AFTER.match(text, span[1])
    return after is not None and unit_name(after.group(1)) is not None


def _tokens(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    for m in _HOURS_TOKEN.finditer(text):
        kind = m.lastgroup or ""
        raw = m.group(0)
        if kind == "range" and _counts_something(text, m.span(), strong=_fmt_range(raw)[1]):
            continue
        if kind == "days":
            key = parse_days(raw)
            if key:
                toks.append(_Tok("D", raw.strip(), m.start(), key))
        elif kind == "range":
            value, strong = _fmt_range(raw)
            toks.append(_Tok("T", raw.strip(), m.start(), value, weak=not strong))
        elif kind == "until":
            word = "by" if raw.lower().startswith("by") else "until"
            toks.append(_Tok("T", raw.strip(), m.start(), f"{word} " + _fmt_time(raw.split(None, 1)[-1])[0]))
        elif kind == "from":
            toks.append(_Tok("T", raw.strip(), m.start(), "from " + _fmt_time(raw.split(None, 1)[-1])[0]))
        elif kind == "list":
            body = re.sub(r"(?i)^at\s+", "", raw.strip())
            times = re.split(r"(?i)\s*(?:,\s*(?:and\s+)?|&|\band\b)\s*", body)
            toks.append(_Tok("T", raw.strip(), m.start(), ", ".join(_fmt_time(t)[0] for t in times if t)))
        elif kind == "always":
            toks.append(
                _Tok("T", raw.strip(), m.start(), "24 hours" if "24 hours" in raw.lower() else "24/7")
            )
        elif kind == "closed":
            toks.append(_Tok("T", raw, m.start(), "closed"))
        elif kind == "appt":
            toks.append(_Tok("T", raw.strip(), m.start(), "by appointment"))
        else:
            toks.append(_Tok("S", raw, m.start()))
    return toks


def _pair_start(pair: tuple[_Tok | None, _Tok | None]) -> int:
    tok = pair[0] or pair[1]
    return tok.start if tok else 0


def parse_hours(text: str, *, open_word: bool | None = None) -> list[HoursSpec]:
    """Opening-hours details of one sentence (dates already masked out).

    Days and times are paired within comma-separated segments, then across neighbouring segments
    ("Monday to Friday, 7 AM to 3 PM"). Days with no time become "open on these days" only when the
    sentence says "open"; a time with no day anywhere in the sentence has no day key.
    """
    toks = _tokens(text)
    if not any(t.kind == "T" for t in toks) and not any(t.kind == "D" for t in toks):
        return []
    says_open = bool(re.search(r"(?i)\bopen\b", text)) if open_word is None else open_word
    segments: list[list[_Tok]] = [[]]
    joined_by_and: set[int] = set()  # segments that follow an "and", not a comma or a full stop
    for tok in toks:
        if tok.kind == "S":
            if segments[-1]:
                segments.append([])
            if tok.text.strip().lower() in ("and", "plus"):
                joined_by_and.add(len(segments) - 1)
        else:
            segments[-1].append(tok)
    pairs: list[tuple[_Tok | None, _Tok | None]] = []
    loose: list[_Tok] = []
    paired_days: list[_Tok] = []  # the day of the segment before, when it paired one with a time
    for index, seg in enumerate(segments):
        days = [t for t in seg if t.kind == "D"]
        times = [t for t in seg if t.kind == "T" and not (t.weak and not days)]
        if times and not days and len(paired_days) == 1 and index in joined_by_and:
            # "Mon-Sat 9am-12pm and 4pm-6pm": a second time for the same days, not a loose time.
            pairs.extend((paired_days[0], t) for t in times)
            continue
        paired_days = days if days and times else []
        if days and times:
            if len(days) == len(times):
                pairs.extend(zip(days, times, strict=True))
            elif len(days) == 1:
                pairs.extend((days[0], t) for t in times)
            else:
                pairs.extend((d, times[min(k, len(times) - 1)]) for k, d in enumerate(days))
        else:
            loose.extend(days or times)
    # neighbouring loose segments: a day list then a time, or a time then a day list
    k = 0
    while k < len(loose):
        cur = loose[k]
        nxt = loose[k + 1] if k + 1 < len(loose) else None
        if nxt is not None and {cur.kind, nxt.kind} == {"D", "T"}:
            d, t = (cur, nxt) if cur.kind == "D" else (nxt, cur)
            pairs.append((d, t))
            k += 2
            continue
        if cur.kind == "D":
            pairs.append((cur, None))
        elif not any(tok.kind == "D" for tok in toks):
            pairs.append((None, cur))
        k += 1
    specs: list[HoursSpec] = []
    for day_tok, time_tok in sorted(pairs, key=_pair_start):
        if time_tok is None and (not says_open or re.search(r"(?i)\bclosed\b", text)):
            continue
        always = time_tok is not None and time_tok.value == "24/7"  # "24/7" names its days: all seven
        spec = HoursSpec(
            day_key=day_tok.value if day_tok else ("every day" if always else None),
            value=time_tok.value if time_tok else None,
            day_text=day_tok.text if day_tok else "",
            time_text=time_tok.text if time_tok else "",
        )
        last = specs[-1] if specs else None
        if (
            last is not None
            and day_tok is not None
            and last.day_text == spec.day_text
            and last.value
            and spec.value
        ):
            # Two spans of one day set are one detail ("9 AM-12 PM and 4 PM-6 PM"), or the second
            # would replace the first.
            spec = replace(
                last,
                value=f"{last.value} and {spec.value}",
                time_text=f"{last.time_text} and {spec.time_text}",
            )
            specs[-1] = spec
            continue
        specs.append(spec)
    return specs
