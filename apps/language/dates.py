"""Dates, date ranges and weekdays mentioned in a text, resolved against a base date.

dateparser does the resolving ("next Monday", "December 29", "3rd March 2027", "tomorrow", "12/24"),
relative to a base date that callers pass in: the date a source was learned, or the day a question
was asked in the business's time zone. What dateparser does not do, and is written here by hand:

- **Finding** the date phrases. ``dateparser.search.search_dates`` is slow (its first call took 291 ms
  here, later ones 1.5-5 ms on a short sentence, which alone would blow the 5 ms budget of a
  question) and weak on ranges ("closed March 3-7" came back as "We", "March" and "3-7"). The finder
  walks spaCy's tokens instead: month and weekday names (from Python's ``calendar``), the words in
  ``data/dates.txt``, and the numbers next to a month, so dateparser only sees short, clean phrases.
- **Ranges**: a phrase is split at its connector ("-", "to", "through", "until") and each end is
  resolved on its own; an end that is only a day number takes its month from the other end
  ("March 3-7"), an end without a year takes the other end's explicit year, and an end that would
  fall before the start moves on a year ("Dec 24 to Jan 2").
- **Periods** dateparser resolves to a single day or not at all: "this weekend", "next week",
  "this month", and a month alone ("in July") become the whole period.
- **Weekdays** said in the plural or with "every" ("on Saturdays", "Mon-Fri") are recurring, not a
  date.
"""

from __future__ import annotations

import calendar
import datetime as dt
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING, Literal

import dateparser

from apps.language.holiday_names import holiday_spans
from apps.language.lexicon import word_classes
from apps.language.wordlists import categories

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

__all__ = [
    "DateMention",
    "date_words",
    "find_dates",
    "phrase_start",
    "resolve_phrase",
    "role_before",
    "tells_when_it_happened",
    "weekday_number",
]

Kind = Literal["day", "range", "month", "weekdays"]
#: The longest run of date-ish tokens read as a date phrase (a list of weekdays counts as one run).
MAX_PHRASE_TOKENS = 16

_MONTH, _DAY, _REL, _PERIOD, _MOD, _EVERY, _NUM, _YEAR, _RANGE, _LIST, _GLUE = range(11)
_ANCHORS = {_MONTH, _DAY, _REL, _PERIOD}


@dataclass(frozen=True)
class DateMention:
    """One date phrase. ``start``/``end`` are inclusive days (equal for one day; ``None`` for an
    open end or for recurring weekdays); ``weekdays`` are Monday=0 .. Sunday=6."""

    text: str
    start_char: int
    end_char: int
    kind: Kind
    start: dt.date | None = None
    end: dt.date | None = None
    weekdays: tuple[int, ...] = ()
    recurring: bool = False
    explicit_year: bool = False
    holiday: bool = False  # a holiday by name ("Thanksgiving"), not a calendar phrase
    bare_weekday: bool = False  # one weekday name, no date or modifier ("open Saturday 9-5")

    def covers(self, day: dt.date) -> bool:
        """True when ``day`` falls inside this mention (recurring weekdays match by weekday)."""
        if self.recurring:
            return day.weekday() in self.weekdays
        if self.start is None and self.end is None:
            return False
        return (self.start is None or self.start <= day) and (self.end is None or day <= self.end)


@cache
def _tables() -> dict[str, dict[str, tuple[int, ...]] | frozenset[str]]:
    table = categories("dates.txt")
    months: dict[str, tuple[int, ...]] = {}
    for number in range(1, 13):
        months[calendar.month_name[number].lower()] = (number,)
        months[calendar.month_abbr[number].lower()] = (number,)
    weekdays: dict[str, tuple[int, ...]] = {}
    for number in range(7):
        weekdays[calendar.day_name[number].lower()] = (number,)
        weekdays[calendar.day_abbr[number].lower()] = (number,)

    def pairs(category: str) -> dict[str, tuple[int, ...]]:
        out: dict[str, tuple[int, ...]] = {}
        for item in table.get(category, ()):
            word, _, numbers = item.partition("=")
            out[word] = tuple(int(n) for n in numbers.split(","))
        return out

    months.update(pairs("month_abbreviation"))
    weekdays.update(pairs("weekday_abbreviation"))
    return {
        "months": months,
        "full_months": frozenset(calendar.month_name[n].lower() for n in range(1, 13)),
        "weekdays": weekdays,
        "full_weekdays": frozenset(calendar.day_name[n].lower() for n in range(7)),
        "groups": pairs("weekday_group"),
        **{name: frozenset(table.get(name, ())) for name in _WORD_CATEGORIES},
    }


_WORD_CATEGORIES = (
    "relative_day",
    "period",
    "modifier",
    "recurring",
    "range_connector",
    "open_start",
    "open_end",
    "list_connector",
    "glue",
    "ambiguous_month",
    "not_a_window",
    "month_window",
    "not_a_date",
    "completed",
    "period_part",
)


_WORD_CLASSES = (("relative_day", _REL), ("period", _PERIOD), ("modifier", _MOD), ("recurring", _EVERY))
_JOINER_CLASSES = (("range_connector", _RANGE), ("list_connector", _LIST), ("glue", _GLUE))


def _words(name: str) -> frozenset[str]:
    value = _tables()[name]
    return value if isinstance(value, frozenset) else frozenset(value)


def _numbers(name: str) -> dict[str, tuple[int, ...]]:
    value = _tables()[name]
    assert isinstance(value, dict)
    return value


def _is_ordinal(text: str) -> bool:
    return len(text) > 2 and text[:-2].isdigit() and text[-2:].lower() in ("st", "nd", "rd", "th")


def _is_numeric_date(text: str) -> bool:
    """ "12/24", "24/12/2026": two or three numbers joined by slashes, the first two up to 31
    (not an idiom such as "24/7", data/dates.txt)."""
    if text in _words("not_a_date"):
        return False
    parts = text.split("/")
    if len(parts) not in (2, 3) or not all(p.isdigit() for p in parts):
        return False
    return all(1 <= int(p) <= 31 for p in parts[:2]) and (len(parts) == 2 or len(parts[2]) in (2, 4))


def _plain(token: Token) -> str:
    return token.lower_.rstrip(".")


def _ambiguous_month_is_month(token: Token) -> bool:
    """ "May" and "march" are months when capitalised and not a verb ("May I ...?"), or, typed in
    lower case, beside a day number and not helping or heading a verb ("a room for 20 may?", not
    "for 2 may i ask" or "we march 3 miles"). The same test reads a month's abbreviation typed in
    lower case ("closed 24 dec to 2 jan"). Weekday abbreviations typed in lower case stay words
    ("a 12 sat nav", "the sun")."""
    if token.is_title:
        return token.pos_ not in ("VERB", "AUX")
    beside = [token.nbor(step) for step in (-1, 1) if 0 <= token.i + step < len(token.doc)]
    day_number = any(
        ((t.like_num and t.text[:1].isdigit()) or _is_ordinal(t.text))
        and not (t.dep_ == "nummod" and t.head != token and t.head.pos_ == "NOUN")  # "3 miles"
        for t in beside
    )
    helps_a_verb = token.dep_ in ("aux", "auxpass") and token.head.pos_ in ("VERB", "AUX")
    # A verb goes on to its subject or verb ("may i", "may be"); the parser may still make a
    # trailing "may?" a modal heading nothing.
    goes_on = token.i + 1 < len(token.doc) and token.nbor(1).pos_ in ("PRON", "VERB", "AUX", "PART")
    return day_number and not helps_a_verb and not goes_on


def _classify(token: Token) -> int | None:
    low = _plain(token)
    if not low:
        return None
    abbreviated = token.is_title or token.text.endswith(".")
    if low in _numbers("months") and (
        low in _tables()["full_months"] or abbreviated or _ambiguous_month_is_month(token)
    ):
        # "may" and "march" are months only when capitalised and not a verb ("May I ...?").
        if low in _words("ambiguous_month") and not _ambiguous_month_is_month(token):
            return None
        return _MONTH
    if low in _numbers("weekdays") and (
        low in _tables()["full_weekdays"] or abbreviated or not word_classes(low)
    ):
        return _DAY  # "tues", "thurs" typed in lower case are no other word ("sat", "sun", "wed" are)
    if low.endswith("s") and low[:-1] in _tables()["full_weekdays"]:
        return _DAY  # plural: recurring
    if low in _numbers("groups"):
        return _DAY
    for category, cls in _WORD_CLASSES:
        if low in _words(category):
            return cls
    if is_year(token.text):
        return _YEAR
    if _is_numeric_date(token.text):
        return _REL  # "12/24": dateparser reads it whole, like a relative day
    if (token.like_num and any(c.isdigit() for c in token.text)) or _is_ordinal(token.text):
        return _NUM
    for category, cls in _JOINER_CLASSES:
        if low in _words(category):
            return cls
    return None


def _runs(doc: Doc) -> list[tuple[int, int, list[int]]]:
    """Maximal stretches of date-ish tokens that contain a month, weekday or relative-day word,
    as (start, end exclusive, classes). Numbers count only next to a month (or another date number):
    "open 9-5" is not a date, "March 3-7" is."""
    classes = [_classify(t) for t in doc]
    n = len(doc)
    # A number is part of a date only within three tokens of a month, directly or through a list of
    # other such numbers ("December 24, 25 and 31", "24, 25 and 31 December"), and not when it counts
    # a noun ("May 3 and 10 staff").
    near = [
        cls == _NUM and any(classes[j] == _MONTH for j in range(max(0, index - 3), min(n, index + 4)))
        for index, cls in enumerate(classes)
    ]
    changed = True
    while changed:
        changed = False
        for index, cls in enumerate(classes):
            if cls == _NUM and not near[index] and _listed_beside_kept(classes, near, index):
                near[index] = changed = True
    for index, cls in enumerate(classes):
        head = doc[index].head
        counts_a_noun = doc[index].dep_ == "nummod" and head.pos_ == "NOUN" and _classify(head) is None
        # "14 - 18 June" (an en dash): a number joined by a range connector to a date number is that range's start,
        # wherever the parser attached it.
        if counts_a_noun and index + 2 < n and classes[index + 1] == _RANGE and near[index + 2]:
            counts_a_noun = False
        # A number right before a month name is its day, whatever the parser made its head ("from 17
        # to 23 May 2027 inclusive" attached "23" to "inclusive"); after one it may count ("march 3
        # miles").
        if counts_a_noun and index + 1 < n and classes[index + 1] == _MONTH:
            counts_a_noun = False
        # "18 June 2026, 10am": a number the clock's "am" or "pm" follows is a time, near a month or not.
        clock = index + 1 < n and doc[index + 1].text.lower().rstrip(".") in ("am", "pm", "a.m", "p.m")
        if cls == _NUM and (not near[index] or counts_a_noun or clock):
            classes[index] = None
    runs: list[tuple[int, int, list[int]]] = []
    index = 0
    while index < n:
        if classes[index] is None or classes[index] in (_RANGE, _LIST, _GLUE):
            index += 1
            continue
        end = index
        while end + 1 < n and classes[end + 1] is not None:
            end += 1
        while end > index and classes[end] in (_RANGE, _LIST, _GLUE, _MOD, _EVERY):
            end -= 1
        segment = [c for c in classes[index : end + 1] if c is not None]
        # A period ("week", "month") is a date only after a modifier ("next week").
        periods_only = all(c == _PERIOD for c in segment if c in _ANCHORS)
        # A date phrase is short ("from Saturday 24 December 2026 to Monday 2 January 2027" is 10
        # tokens): a longer run is not one, and dateparser is not handed hundreds of tokens of it.
        short = len(segment) <= MAX_PHRASE_TOKENS
        if short and any(c in _ANCHORS for c in segment) and (not periods_only or _MOD in segment):
            runs.append((index, end + 1, segment))
        index = end + 1
    return runs


def _listed_beside_kept(classes: list[int | None], kept: list[bool], index: int) -> bool:
    """A kept date number sits next to ``index`` with only a list or range word between them, or it
    follows a weekday and the next item is another weekday's kept number ("Friday 16 and Saturday 17
    January", "Mon 18 - Fri 22 January")."""
    for step in (-1, 1):
        j = index + step
        while 0 <= j < len(classes) and classes[j] in (_LIST, _RANGE):
            j += step
        if j != index + step and 0 <= j < len(classes) and kept[j]:
            return True
    n = len(classes)
    return (
        index > 0
        and classes[index - 1] == _DAY
        and index + 3 < n
        and classes[index + 1] in (_LIST, _RANGE)
        and classes[index + 2] == _DAY
        and kept[index + 3]
    )


def _base_datetime(base: dt.date) -> dt.datetime:
    return dt.datetime.combine(base, dt.time(12, 0))


@lru_cache(maxsize=4096)
def resolve_phrase(text: str, base: dt.date, prefer: str = "future") -> dt.date | None:
    """dateparser's reading of one short date phrase, as a day (``None`` when it has none)."""
    settings = {
        "RELATIVE_BASE": _base_datetime(base),
        "PREFER_DATES_FROM": prefer,
        "PREFER_DAY_OF_MONTH": "first",
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    found = dateparser.parse(text, languages=["en"], settings=settings)
    if found is None:
        return None
    day = found.date()
    # dateparser reads "1 June" as midnight, before the base's noon, so on 1 June "the future" was
    # next year's: a date that names the base day is the base day.
    names_year = str(day.year) in text.replace(",", " ").split()
    if (
        prefer == "future"
        and not names_year
        and day.year == base.year + 1
        and day.timetuple()[1:3] == base.timetuple()[1:3]
    ):
        return base
    return day


def _month_end(day: dt.date) -> dt.date:
    return day.replace(day=calendar.monthrange(day.year, day.month)[1])


def _add_year(day: dt.date, years: int = 1) -> dt.date:
    # Held to the calendar's years: a reading against date.min (a text read for its words, not its
    # dates) has no year before it.
    year = min(max(day.year + years, dt.MINYEAR), dt.MAXYEAR)
    try:
        return day.replace(year=year)
    except ValueError:  # 29 February
        return day.replace(year=year, day=28)


@dataclass
class _Side:
    tokens: list[Token]
    classes: list[int]

    def has(self, cls: int) -> bool:
        return cls in self.classes

    def first(self, cls: int) -> Token | None:
        for token, c in zip(self.tokens, self.classes, strict=True):
            if c == cls:
                return token
        return None


def _weekday_numbers(token: Token) -> tuple[int, ...]:
    low = _plain(token)
    if low in _numbers("groups"):
        return _numbers("groups")[low]
    if low in _numbers("weekdays"):
        return _numbers("weekdays")[low]
    return _numbers("weekdays").get(low[:-1], ())


def _recurring(side: _Side, modified: bool) -> bool:
    token = side.first(_DAY)
    if token is None:
        return False
    low = _plain(token)
    plural = low not in _numbers("weekdays") and (low.endswith("s") or low in _numbers("groups"))
    return side.has(_EVERY) or (plural and not modified)


def _period(side: _Side, base: dt.date) -> tuple[dt.date, dt.date] | None:
    """The whole period of "this/next week|weekend|month|year" and of "this/next weekend"."""
    period = side.first(_PERIOD) or side.first(_DAY)
    modifier = side.first(_MOD)
    if period is None or modifier is None:
        return None
    word, step = _plain(period), 0 if _plain(modifier) in ("this", "coming") else 1
    if _plain(modifier) == "last":
        step = -1
    if word in ("weekend", "weekends"):
        saturday = base + dt.timedelta(days=(5 - base.weekday()) % 7)
        if base.weekday() == 6:
            saturday = base - dt.timedelta(days=1)
        saturday += dt.timedelta(days=7 * step)
        return saturday, saturday + dt.timedelta(days=1)
    if word == "week":
        monday = base - dt.timedelta(days=base.weekday()) + dt.timedelta(days=7 * step)
        return (base if step == 0 else monday), monday + dt.timedelta(days=6)
    if word == "month":
        first = base.replace(day=1)
        for _ in range(abs(step)):
            first = (
                (first + dt.timedelta(days=32)).replace(day=1)
                if step > 0
                else (first - dt.timedelta(days=1)).replace(day=1)
            )
        return first, _month_end(first)
    if word == "year":
        year = base.year + step
        return dt.date(year, 1, 1), dt.date(year, 12, 31)
    return None


def _resolve_side(side: _Side, base: dt.date, prefer: str) -> tuple[dt.date, dt.date] | None:
    """One end of a range (or a whole single phrase) as a (first, last) pair of days."""
    day_word = side.first(_DAY)
    if side.has(_MOD) and (
        side.has(_PERIOD) or (day_word is not None and _plain(day_word) in _numbers("groups"))
    ):
        period = _period(side, base)
        if period is not None:
            return period
    # "Tuesdays 9, 16 & 23 March": a weekday in the plural before a day number says which weekday the
    # listed days fall on; the day and the month are the date (dateparser reads no plural weekday).
    text = " ".join(
        t.text
        for t, c in zip(side.tokens, side.classes, strict=True)
        if not (
            c == _DAY and side.has(_NUM) and _plain(t) not in _numbers("weekdays") and _plain(t).endswith("s")
        )
    )
    if side.has(_MONTH) and not side.has(_NUM):
        day = resolve_phrase(text, base, prefer)  # a month alone ("July", "March 2027") is all of it
        if day is None:
            return None
        first = day.replace(day=1)
        if not side.has(_YEAR) and prefer == "future" and _month_end(first) < base:
            first = _add_year(first)
        elif not side.has(_YEAR) and prefer == "past" and first > base:
            first = _add_year(first, -1)
        return first, _month_end(first)
    day = resolve_phrase(text, base, prefer)
    return (day, day) if day is not None else None


def _split_items(start: int, classes: list[int], doc: Doc, end: int) -> list[tuple[int, int]]:
    """Cut a run into list items at "and" / "," / "&" (a comma before a year stays inside a date)."""
    items: list[tuple[int, int]] = []
    item_start = start
    ranged = False  # the current item already has its range connector
    for offset, cls in enumerate(classes):
        index = start + offset
        if cls == _RANGE and ranged:
            # A phrase has one range: "Monday to Friday until Dec 24" is weekdays, then an end date.
            items.append((item_start, index))
            item_start, ranged = index + 1, False
            continue
        ranged = ranged or cls == _RANGE
        if cls != _LIST:
            continue
        following = classes[offset + 1] if offset + 1 < len(classes) else None
        if following == _YEAR:
            continue
        # "Friday, 24 December": a comma after one weekday, before its date, names that date's day;
        # so at either end of a range ("Thursday, October 28 through Saturday, October 30").
        if (
            _plain(doc[index]) == ","
            and following in (_NUM, _MONTH)
            and _lone_weekday(doc, index - 1, index)
            and (index - 1 == item_start or (offset >= 2 and classes[offset - 2] == _RANGE))
        ):
            continue
        # "between X and Y" is a range, not a list.
        if _plain(doc[index]) == "and" and item_start > 0 and _plain(doc[item_start - 1]) == "between":
            continue
        items.append((item_start, index))
        item_start, ranged = index + 1, False
    items.append((item_start, end))
    return [(a, b) for a, b in items if a < b]


def _lone_weekday(doc: Doc, start: int, end: int) -> bool:
    """The tokens doc[start:end] are one weekday, singular ("Friday", "Fri."; not "Fridays")."""
    return end - start == 1 and _classify(doc[start]) == _DAY and not _plain(doc[start]).endswith("s")


def _mention(
    doc: Doc,
    start: int,
    end: int,
    base: dt.date,
    prefer: str,
    *,
    month: Token | None = None,
    list_year: Token | None = None,
) -> DateMention | None:
    """The date of doc[start:end], one item of a run; ``month`` is the month another item of the same
    list names, which a bare day number takes ("December 24 and 25": the 25th of December), and
    ``list_year`` the year a later item names, which a date without one takes."""
    tokens = list(doc[start:end])
    classes = [_classify(t) for t in tokens]
    if month is not None and _NUM in classes and not {_MONTH, _REL} & set(classes):
        tokens, classes = [*tokens, month], [*classes, _MONTH]
    if list_year is not None and _MONTH in classes and _YEAR not in classes:
        tokens, classes = [*tokens, list_year], [*classes, _YEAR]
    cut = next(
        (
            i
            for i, (t, c) in enumerate(zip(tokens, classes, strict=True))
            if c == _RANGE
            or (c == _LIST and _plain(t) == "and" and start > 0 and _plain(doc[start - 1]) == "between")
        ),
        None,
    )
    span = doc[start:end]
    template = DateMention(text=span.text, start_char=span.start_char, end_char=span.end_char, kind="day")
    explicit_year = _YEAR in classes
    sides = (
        [_Side(tokens, [c if c is not None else _GLUE for c in classes])]
        if cut is None
        else [
            _Side(tokens[:cut], [c if c is not None else _GLUE for c in classes[:cut]]),
            _Side(tokens[cut + 1 :], [c if c is not None else _GLUE for c in classes[cut + 1 :]]),
        ]
    )
    sides = [s for s in sides if s.tokens]
    if not sides:
        return None
    modified = any(s.has(_MOD) for s in sides)
    # Weekdays without a date: "on Saturdays", "every Monday", "Mon-Fri", "weekends".
    if all(s.has(_DAY) and not s.has(_MONTH) and not s.has(_REL) for s in sides) and (
        (len(sides) == 2 and not modified) or any(_recurring(s, modified) for s in sides)
    ):
        numbers = [_weekday_numbers(s.first(_DAY)) for s in sides]  # type: ignore[arg-type]
        if len(sides) == 2 and len(numbers[0]) == 1 and len(numbers[1]) == 1:
            opening, closing = numbers[0][0], numbers[1][0]
            days = tuple((opening + k) % 7 for k in range((closing - opening) % 7 + 1))
        else:
            days = tuple(sorted({d for group in numbers for d in group}))
        return replace(template, kind="weekdays", weekdays=days, recurring=True)
    if len(sides) == 2:
        left, right = sides
        # An end that is only a day number takes the month of the other end ("March 3-7", "3-7 March").
        if not left.has(_MONTH) and right.has(_MONTH) and left.has(_NUM):
            month = right.first(_MONTH)
            left = _Side([*left.tokens, month], [*left.classes, _MONTH])  # type: ignore[list-item]
        if not right.has(_MONTH) and left.has(_MONTH) and right.has(_NUM):
            month = left.first(_MONTH)
            right = _Side([month, *right.tokens], [_MONTH, *right.classes])  # type: ignore[list-item]
        year = right.first(_YEAR) or left.first(_YEAR)
        if year is not None and not left.has(_YEAR) and left.has(_MONTH):
            left = _Side([*left.tokens, year], [*left.classes, _YEAR])
        if year is not None and not right.has(_YEAR) and right.has(_MONTH):
            right = _Side([*right.tokens, year], [*right.classes, _YEAR])
        first_pair = _resolve_side(left, base, prefer)
        last_pair = _resolve_side(right, base, prefer)
        if first_pair is None or last_pair is None:
            return None
        first, last = first_pair[0], last_pair[1]
        if last < first:
            if year is not None and right.has(_YEAR) and left.first(_YEAR) is year:
                first = first.replace(year=first.year - 1)  # "Dec 24 - Jan 2 2027": the year is the end's
            elif year is None and _add_year(first, -1) <= last:
                first = _add_year(first, -1)  # in progress on the base day ("March 1-31" said on March 15)
            else:
                last = _add_year(last)
        return replace(template, kind="range", start=first, end=last, explicit_year=explicit_year)
    side = sides[0]
    pair = _resolve_side(side, base, prefer)
    if pair is None:
        return None
    first, last = pair
    part = _part_of_period(doc, start)
    if part is not None and side.has(_MONTH) and not side.has(_NUM):
        # "the start of November" is its first day, "the end of June" its last, the middle the 15th.
        first = last = {"end": last, "middle": first.replace(day=15)}.get(part[0], first)
    weekdays = _weekday_numbers(side.first(_DAY)) if side.has(_DAY) else ()  # type: ignore[arg-type]
    before = role_before(doc, start)
    if before in _words("open_start"):
        if not explicit_year and prefer == "future" and first > base and not side.has(_REL):
            # "SUMMER HOURS from 1 October" read on 18 November began seven weeks ago, not in ten
            # months: a start with no year is the nearer of its two days.
            earlier = _add_year(first, -1)
            if base - earlier < first - base:
                first = earlier
        return replace(template, kind="range", start=first, end=None, explicit_year=explicit_year)
    if before in _words("open_end"):
        return replace(template, kind="range", start=None, end=last, explicit_year=explicit_year)
    if side.has(_MONTH) and not side.has(_NUM) and part is None:
        kind: Kind = "month"
    else:
        kind = "day" if first == last else "range"
    bare = side.has(_DAY) and not ({_MONTH, _NUM, _REL, _MOD} & set(side.classes))
    return replace(
        template,
        kind=kind,
        start=first,
        end=last,
        weekdays=weekdays,
        explicit_year=explicit_year,
        bare_weekday=bare,
    )


def _tense_prefer(doc: Doc, start: int, end: int, prefer: str) -> str:
    """Which way an unqualified date goes for this mention: a date "since" which something holds, or
    one a verb in the past hangs on ("we stopped charging for it as of Oct 27", said on Oct 28), lies
    behind the day it was said, whatever way the text's other dates go."""
    if prefer != "future":
        return prefer
    if role_before(doc, start) == "since":
        return "past"
    words = doc[start:end]
    verb = _verb_of(words)
    # A question asks about days to come ("have you got a room on 20 May?").
    if verb is None or _asks(verb.sent) or not tells_when_it_happened(words):
        return prefer
    # Told by someone ("we stopped ...", "I've moved ..."), not a notice's headline with its "are"
    # left out ("Workshop closed March 3-7", "Lessons paused 3-9 August"), which announces.
    subjects = [c for c in (*verb.children, *verb.head.children) if c.dep_ in ("nsubj", "nsubjpass")]
    perfect = any(c.dep_ == "aux" and c.lemma_ == "have" for c in verb.children)
    return "past" if perfect or any(c.pos_ == "PRON" for c in subjects) else prefer


def is_year(word: str) -> bool:
    """Whether a word is a year as a date gives it ("2026")."""
    return word.isdigit() and len(word) == 4 and 1900 <= int(word) <= 2199


def weekday_number(word: str) -> int | None:
    """Monday = 0 .. Sunday = 6 for a weekday's name or abbreviation, singular or plural ("Tues",
    "sundays", "Sat."); None for any other word."""
    table = _numbers("weekdays")
    w = word.lower().rstrip(".")
    for form in (w, w[:-1] if w.endswith("s") else ""):
        if len(table.get(form, ())) == 1:
            return table[form][0]
    return None


def date_words(category: str) -> frozenset[str]:
    """One word category of data/dates.txt ("not_a_window", "month_window", ...)."""
    return _words(category)


def _asks(sentence: Span) -> bool:
    """A question, with or without its "?": a wh-word first, or a verb before its subject ("have you
    got ...", "did they ...")."""
    first = sentence[0]
    inverted = len(sentence) > 1 and first.pos_ in ("AUX", "VERB") and sentence[1].pos_ == "PRON"
    return sentence.text.rstrip().endswith("?") or first.tag_ in ("WDT", "WP", "WP$", "WRB") or inverted


def _verb_of(words: Span) -> Token | None:
    """The verb a date hangs on, directly or through its prepositions ("as of Oct 27": two), or the
    verb whose gerund it is ("stopped charging as of Oct 27": when it stopped); None when none is."""
    token = words.root.head
    while token.pos_ == "ADP" and token.head.i != token.i:
        token = token.head
    if token.tag_ == "VBG" and token.dep_ == "xcomp":
        token = token.head
    return token if token.pos_ in ("VERB", "AUX") and token.i != words.root.i else None


def tells_when_it_happened(words: Span) -> bool:
    """The date hangs on a verb in the past ("prices went up in April", "we have moved on May 3"):
    it is when a change happened, not a window the fact holds in."""
    token = _verb_of(words)
    if token is None:
        return False
    # Its subject is someone or something else ("prices"), not the date ("Dec 25 closed").
    children = [c for c in token.children if not words.start <= c.i < words.end]
    if token.tag_ == "VBD" and any(c.dep_ in ("nsubj", "nsubjpass") for c in children):
        return True
    # A past tense sharing the first clause's subject: "we're open mondays now, started in january".
    # Not a form that is also an adjective, which states how things are ("We are open daily, closed in
    # August"; lemminflect's tables say which forms are).
    shares_a_subject = token.dep_ in ("conj", "advcl", "dep") and any(
        c.dep_ == "nsubj" for c in token.head.children
    )
    if token.tag_ == "VBD" and shares_a_subject and "ADJ" not in word_classes(token.text):
        return True
    return token.tag_ == "VBN" and any(c.dep_ == "aux" and c.lemma_ == "have" for c in children)


def _part_of_period(doc: Doc, start: int) -> tuple[str, int] | None:
    """The part of a month written before it ("the start of", "end of" November): the part's word
    and the index its phrase begins at, or None."""
    if start < 2 or _plain(doc[start - 1]) != "of" or _plain(doc[start - 2]) not in _words("period_part"):
        return None
    begin = start - 2
    if begin > 0 and doc[begin - 1].tag_ == "DT":
        begin -= 1
    return _plain(doc[start - 2]), begin


def phrase_start(doc: Doc, start: int) -> int:
    """Where a date phrase begins once the part of a month before it is counted ("the start of")."""
    part = _part_of_period(doc, start)
    return part[1] if part else start


def role_before(doc: Doc, start: int) -> str:
    """The role phrase just before a date, as written in data/dates.txt: one word ("from", "until")
    or words joined by "_" ("as_of", "starting_on", "up_to_and_including"); "" when none is. Read
    before the part of a month the date may name ("since the start of November": "since")."""
    start = phrase_start(doc, start)
    roles = _words("open_start") | _words("open_end")
    for length in (4, 3, 2, 1):
        if start - length < 0:
            continue
        phrase = "_".join(_plain(t) for t in doc[start - length : start])
        if phrase in roles:
            return phrase
    return _plain(doc[start - 1]) if start > 0 else ""


def find_dates(
    doc: Doc, *, base: dt.date, prefer: str = "future", region: str = "US"
) -> tuple[DateMention, ...]:
    """Every date phrase in ``doc``, resolved against ``base`` (the day, already in the business's
    time zone). ``prefer`` says which way an unqualified date goes ("March 3" said in December):
    "future" for announcements and questions. Holidays by name ("Thanksgiving", "Easter Monday")
    are days too, read for ``region`` first (apps.language.holiday_names)."""
    mentions: list[DateMention] = []
    for start, end, classes in _runs(doc):
        items = _split_items(start, classes, doc, end)
        months = [next((t for t in doc[a:b] if _classify(t) == _MONTH), None) for a, b in items]
        years = [next((t for t in doc[a:b] if _classify(t) == _YEAR), None) for a, b in items]
        for index, (item_start, item_end) in enumerate(items):
            # A bare day number takes the month of the list it is in: the last one named before it
            # ("December 24 and 25"), else the next one ("24, 25 and 31 December").
            month = next((m for m in reversed(months[:index]) if m is not None), None) or next(
                (m for m in months[index + 1 :] if m is not None), None
            )
            # A year written once, at the end of a list, is every item's ("November 20-22 and 27-29, 2027").
            year = None if years[index] else next((y for y in years[index + 1 :] if y is not None), None)
            try:
                mention = _mention(
                    doc,
                    item_start,
                    item_end,
                    base,
                    _tense_prefer(doc, item_start, item_end, prefer),
                    month=month,
                    list_year=year,
                )
            except (ValueError, OverflowError):
                # A day outside the calendar ("last year" read from a base of year 1, "year 9999"
                # plus one): no date at all, never an error in the visitor's turn.
                mention = None
            if mention is not None:
                mentions.append(mention)
            else:
                mentions.extend(_side_by_side(doc, item_start, item_end, base, prefer))
    holidays = _holidays(doc, base, region, mentions)
    if holidays:
        # A holiday's name wins over the weekday inside it ("Easter Monday" is not any Monday).
        inside = [
            m
            for m in mentions
            if any(h.start_char <= m.start_char and m.end_char <= h.end_char for h in holidays)
        ]
        mentions = sorted([m for m in mentions if m not in inside] + holidays, key=lambda m: m.start_char)
    return tuple(_merge_weekday_lists(_relative_days(doc, mentions)))


def _side_by_side(doc: Doc, start: int, end: int, base: dt.date, prefer: str) -> list[DateMention]:
    """Two date phrases a "the" runs together ("from 1 May 2026 the weekend price ..."), which read as
    one phrase name no day: each is read alone, split where "the" opens the second."""
    cuts = [
        i
        for i in range(start + 1, end - 1)
        if _plain(doc[i]) == "the" and _classify(doc[i - 1]) not in (None, _GLUE, _RANGE, _LIST)
    ]
    found: list[DateMention] = []
    for a, b in pairwise([start, *cuts, end]):
        piece_classes = [_classify(t) for t in doc[a:b]]
        if b - a == end - start or not any(c in _ANCHORS for c in piece_classes):
            continue
        try:
            mention = _mention(doc, a, b, base, _tense_prefer(doc, a, b, prefer))
        except (ValueError, OverflowError):
            mention = None
        if mention is not None:
            found.append(mention)
    return found


def _relative_days(doc: Doc, mentions: list[DateMention]) -> list[DateMention]:
    """A weekday counted from another day: "the Friday after Thanksgiving", "the Saturday before 24
    December". The two phrases become one mention of the day they name. Hand-written: dateparser
    reads neither holidays nor such phrases."""
    out: list[DateMention] = []
    index = 0
    while index < len(mentions):
        mention = mentions[index]
        anchor = mentions[index + 1] if index + 1 < len(mentions) else None
        joined = _counted_from(doc, mention, anchor) if anchor is not None else None
        if joined is not None:
            out.append(joined)
            index += 2
            continue
        out.append(mention)
        index += 1
    return out


def _counted_from(doc: Doc, mention: DateMention, anchor: DateMention) -> DateMention | None:
    between = doc.text[mention.end_char : anchor.start_char].strip().lower()
    if between not in ("after", "before") or anchor.start is None or anchor.start != anchor.end:
        return None
    if not (mention.bare_weekday and len(mention.weekdays) == 1):
        return None
    step = dt.timedelta(days=1 if between == "after" else -1)
    day = anchor.start + step
    while day.weekday() != mention.weekdays[0]:
        day += step
    return DateMention(
        doc.text[mention.start_char : anchor.end_char],
        mention.start_char,
        anchor.end_char,
        "day",
        start=day,
        end=day,
        weekdays=(day.weekday(),),
        explicit_year=anchor.explicit_year,
        # Counted from a holiday, the day recurs with it ("the Saturday before Mother's Day").
        holiday=anchor.holiday,
    )


def _holidays(doc: Doc, base: dt.date, region: str, found: list[DateMention]) -> list[DateMention]:
    """Holidays named in ``doc`` that no longer date phrase covers, as single days."""
    out = []
    for first, end, day in holiday_spans(list(doc), base=base, region=region):
        span = doc[first:end]
        last = doc[end - 1]
        if last.dep_ in ("compound", "amod", "nmod") and last.head.i >= end:
            continue  # a holiday naming a kind of thing ("Christmas minis", "Easter opening")
        if any(
            m.start_char < span.end_char
            and span.start_char < m.end_char
            and not (span.start_char <= m.start_char and m.end_char <= span.end_char)
            for m in found
        ):
            continue  # part of a longer date phrase
        out.append(
            DateMention(span.text, span.start_char, span.end_char, "day", start=day, end=day, holiday=True)
        )
    return out


def _merge_weekday_lists(mentions: list[DateMention]) -> list[DateMention]:
    """ "Saturday and Sunday", "Sat, Sun": one recurring mention with both weekdays."""
    out: list[DateMention] = []
    for mention in mentions:
        previous = out[-1] if out else None
        if (
            previous is not None
            and previous.recurring
            and mention.recurring
            and mention.start_char - previous.end_char <= 6
        ):
            out[-1] = DateMention(
                text=f"{previous.text} ... {mention.text}",
                start_char=previous.start_char,
                end_char=mention.end_char,
                kind="weekdays",
                weekdays=tuple(sorted(set(previous.weekdays) | set(mention.weekdays))),
                recurring=True,
            )
            continue
        out.append(mention)
    return out
