"""Dates, days and times for the built-in extractor.

- ``find_validity``: temporary phrasing ("until Dec 24", "from December 1 to February 28", "this week
  only", "starting March 3", "today") resolved against the day the text was learned, choosing the next
  occurrence on or after it. Seasons and recurring days ("during the summer", "every Tuesday") are not
  dates: a fact said to hold then is not temporary.
- ``parse_hours``: opening-hours phrasing ("Mon-Fri 7am-3pm", "closed on Sundays", "until 6pm Monday
  to Friday", "at 7am, 12pm and 6pm", "24/7") as (days, value) pairs. Days never stated stay unknown.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

from .builtin_patterns import DAY_INDEX, DAY_NAMES, DAY_WORD, MONTH_WORD, MONTHS

# ----------------------------------------------------------------------------------------------
# Temporary phrasing


@dataclass(frozen=True)
class Validity:
    valid_from: date | None = None
    valid_to: date | None = None
    spans: tuple[tuple[int, int], ...] = ()

    @property
    def temporary(self) -> bool:
        return self.valid_from is not None or self.valid_to is not None


_ORD = r"(?:st|nd|rd|th)?"
_DATE = re.compile(
    rf"(?:{DAY_WORD},?\s+)?(?:(?P<m1>{MONTH_WORD})\s+(?P<d1>\d{{1,2}}){_ORD}\b"
    rf"|(?:the\s+)?(?P<d2>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<m2>{MONTH_WORD})(?![a-z]))"
    r"(?:,?\s+(?P<y>20\d\d))?(?!\s*(?::\d|[ap]\.?m\b|%))"
)
_SAME_MONTH_END = re.compile(
    rf"^\s*(?:-|to|through|thru|until|till)\s*(\d{{1,2}}){_ORD}\b(?!\s*(?::\d|[ap]\.?m|%))"
)
_RANGE_JOIN = re.compile(r"^\s*(?:-|to|until|till|through|thru|and)\s*$", re.IGNORECASE)
_PREFIX = re.compile(
    r"(?i)\b(?P<word>from|between|starting(?: on| from)?|starts(?: on)?|start(?:ing)? on|as of|beginning|begins|"
    r"effective(?: from)?|commencing|until|till|til|through|thru|up to(?: and including)?|ending|ends|"
    r"on|by|before|since|after|in|of)\s+$"
)
_TO_WORDS = {"until", "till", "til", "through", "thru", "up to", "up to and including", "ending", "ends"}
_FROM_WORDS = {"from", "starting", "starting on", "starting from", "starts", "starts on", "start on"}
_FROM_WORDS |= {"starting on", "as of", "beginning", "begins", "effective", "effective from", "commencing"}
_MONTH_ONLY = re.compile(
    rf"(?i:\b(?:during|throughout|all of|for the month of|in))\s+(?P<m>{MONTH_WORD})(?!\s*\d)(?:\s+(?P<y>20\d\d))?"
)
_RELATIVE = re.compile(
    r"(?i)\b(?:(?P<week>(?:for\s+)?this week)|(?P<weekend>this weekend)|(?P<nextweek>next week)|"
    r"(?P<today>today|tonight)|(?P<tomorrow>tomorrow)|(?P<month>this month|until the end of the month))"
    r"(?:\s+only)?\b"
)


def _month(name: str) -> int:
    return MONTHS[name.lower().rstrip(".")[:3]]


def _ymd(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _next_on_or_after(month: int, day: int, year: int | None, after: date) -> date | None:
    if year:
        return _ymd(year, month, day)
    found = _ymd(after.year, month, day)
    if found is None or found < after:
        found = _ymd(after.year + 1, month, day)
    return found


def _latest_on_or_before(month: int, day: int, year: int | None, before: date) -> date | None:
    if year:
        return _ymd(year, month, day)
    found = _ymd(before.year, month, day)
    if found is None or found > before:
        found = _ymd(before.year - 1, month, day)
    return found


@dataclass
class _Found:
    start: int
    end: int
    month: int
    day: int
    year: int | None


def _dates(text: str) -> list[_Found]:
    found: list[_Found] = []
    for m in _DATE.finditer(text):
        month = _month(m.group("m1") or m.group("m2"))
        day = int(m.group("d1") or m.group("d2"))
        year = int(m.group("y")) if m.group("y") else None
        if not 1 <= day <= 31:
            continue
        found.append(_Found(m.start(), m.end(), month, day, year))
        tail = _SAME_MONTH_END.match(text, m.end())
        if tail and m.group("m1") and int(tail.group(1)) > day:
            found.append(_Found(tail.start(1), tail.end(), month, int(tail.group(1)), year))
    return found


def find_validity(text: str, learned_on: date) -> Validity:
    """The validity window a sentence states, and the spans of text that stated it (to mask)."""
    dates = _dates(text)
    spans: list[tuple[int, int]] = []
    valid_from: date | None = None
    valid_to: date | None = None
    i = 0
    while i < len(dates):
        cur = dates[i]
        prefix = _PREFIX.search(text, 0, cur.start)
        word = prefix.group("word").lower() if prefix else ""
        start = prefix.start() if prefix else cur.start
        nxt = dates[i + 1] if i + 1 < len(dates) else None
        if nxt is not None and _RANGE_JOIN.match(text[cur.end : nxt.start]):
            end_date = _next_on_or_after(nxt.month, nxt.day, nxt.year, learned_on)
            start_date = _latest_on_or_before(cur.month, cur.day, cur.year, end_date) if end_date else None
            if start_date and end_date:
                valid_from, valid_to = start_date, end_date
            spans.append((start, nxt.end))
            i += 2
            continue
        resolved = _next_on_or_after(cur.month, cur.day, cur.year, learned_on)
        if word in _TO_WORDS:
            valid_to = resolved
        elif word in _FROM_WORDS:
            valid_from = resolved
        elif word in {"on", ""}:
            valid_from = valid_to = resolved
        spans.append((start, cur.end))
        i += 1
    if valid_from is None and valid_to is None:
        valid_from, valid_to, more = _month_only(text, learned_on)
        spans.extend(more)
    if valid_from is None and valid_to is None:
        valid_from, valid_to, more = _relative(text, learned_on)
        spans.extend(more)
    if valid_from and valid_to and valid_to < valid_from:
        valid_from, valid_to = None, None
    return Validity(valid_from, valid_to, tuple(spans))


def _month_only(text: str, learned_on: date) -> tuple[date | None, date | None, list[tuple[int, int]]]:
    m = _MONTH_ONLY.search(text)
    if not m:
        return None, None, []
    month = _month(m.group("m"))
    year = int(m.group("y")) if m.group("y") else None
    last = calendar.monthrange(year or learned_on.year, month)[1]
    end = _next_on_or_after(month, last, year, learned_on)
    if end is None:
        return None, None, []
    start = date(end.year, month, 1)
    return max(start, learned_on) if year is None else start, end, [(m.start(), m.end())]


def _relative(text: str, learned_on: date) -> tuple[date | None, date | None, list[tuple[int, int]]]:
    m = _RELATIVE.search(text)
    if not m:
        return None, None, []
    span = [(m.start(), m.end())]
    sunday = learned_on + timedelta(days=6 - learned_on.weekday())
    if m.group("week"):
        return learned_on, sunday, span
    if m.group("weekend"):
        saturday = sunday - timedelta(days=1)
        return max(saturday, learned_on), sunday, span
    if m.group("nextweek"):
        return sunday + timedelta(days=1), sunday + timedelta(days=7), span
    if m.group("today"):
        return learned_on, learned_on, span
    if m.group("tomorrow"):
        tomorrow = learned_on + timedelta(days=1)
        return tomorrow, tomorrow, span
    last = calendar.monthrange(learned_on.year, learned_on.month)[1]
    return learned_on, date(learned_on.year, learned_on.month, last), span


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
    r"(?i:week\s?days?|week\s?ends?|every\s?day|daily|(?:7|seven) days a week|all week|"
    rf"(?:bank |public |national )?holidays)|{_HOLIDAYS}"
)
_DAY_RANGE = rf"{DAY_WORD}\s*(?:-|(?i:to|through|thru|till|until))\s*{DAY_WORD}"
_DAY_ITEM = rf"(?:{_DAY_RANGE}|{DAY_WORD}|{_DAY_GROUP})"
_DAY_LIST = rf"{_DAY_ITEM}(?:\s*(?:,\s*(?i:and|or|&)?|&|/|(?i:and|or))\s*{_DAY_ITEM})*"
_MER = r"(?:\s?(?i:a\.?\s?m\b\.?|p\.?\s?m\b\.?))"
_TIME = rf"(?:(?<![\w$£€.,:/])(?:[01]?\d|2[0-4])(?::[0-5]\d)?(?!\d){_MER}?|(?i:noon|midday|midnight))"
_TIME_STRONG = rf"(?:(?<![\w$£€.,:/])(?:[01]?\d|2[0-4])(?::[0-5]\d)?(?!\d){_MER}|(?<![\w$£€.,:/])(?:[01]?\d|2[0-3]):[0-5]\d(?!\d)|(?i:noon|midday|midnight))"
_TO = r"\s*(?:-|(?i:to|till|until|and))\s*"
_HOURS_TOKEN = re.compile(
    rf"(?P<days>{_DAY_LIST})"
    rf"|(?P<range>(?:(?i:from|between)\s+)?{_TIME}{_TO}{_TIME})"
    rf"|(?P<until>(?i:until|till|til|'til|to|by|closes? at|close at|closing at)\s+{_TIME_STRONG})"
    rf"|(?P<from>(?i:from|opens? at|opening at|starting at|after)\s+{_TIME_STRONG})"
    rf"|(?P<list>(?:(?i:at)\s+)?{_TIME_STRONG}(?:\s*(?:,\s*(?i:and)?|&|(?i:and))\s*{_TIME_STRONG})*)"
    r"|(?P<always>24/7|24 hours a day|(?i:around|round) the clock|(?i:open) 24 hours)"
    r"|(?P<closed>\b(?i:closed)\b)"
    r"|(?P<appt>\b(?i:by appointment)(?: only)?\b)"
    r"|(?P<sep>[;,]|\s(?i:and|but|plus)\s|\.\s)"
)
_TIME_PARTS = re.compile(
    r"(?i)(?:(?P<h>\d{1,2})(?::(?P<mi>\d{2}))?\s?(?P<mer>[ap])?\.?\s?(?:m\b\.?)?|(?P<word>noon|midday|midnight))"
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
    pieces = re.split(r"(?i)\s*(?:-|\bto\b|\btill\b|\buntil\b|\band\b)\s*", raw, maxsplit=1)
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
    m = re.search(r"(\d{1,2})(?::(\d{2}))?", raw)
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


def _day_index(word: str) -> int | None:
    w = word.lower().rstrip(".")
    if w in DAY_INDEX:
        return DAY_INDEX[w]
    if w.endswith("s") and w[:-1] in DAY_INDEX:
        return DAY_INDEX[w[:-1]]
    return None


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
    if re.search(r"every\s?day|daily|(?:7|seven) days a week|all week", low):
        return "every day"
    if re.search(r"week\s?days?", low):
        days |= {0, 1, 2, 3, 4}
    if re.search(r"week\s?ends?", low):
        days |= {5, 6}
    for m in re.finditer(rf"({DAY_WORD})(?:\s*(?:-|(?i:to|through|thru|till|until))\s*({DAY_WORD}))?", text):
        first = _day_index(m.group(1))
        if first is None:
            continue
        if m.group(2):
            last = _day_index(m.group(2))
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


def _tokens(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    for m in _HOURS_TOKEN.finditer(text):
        kind = m.lastgroup or ""
        raw = m.group(0)
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
    for tok in toks:
        if tok.kind == "S":
            if segments[-1]:
                segments.append([])
        else:
            segments[-1].append(tok)
    pairs: list[tuple[_Tok | None, _Tok | None]] = []
    loose: list[_Tok] = []
    for seg in segments:
        days = [t for t in seg if t.kind == "D"]
        times = [t for t in seg if t.kind == "T" and not (t.weak and not days)]
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
        specs.append(
            HoursSpec(
                day_key=day_tok.value if day_tok else None,
                value=time_tok.value if time_tok else None,
                day_text=day_tok.text if day_tok else "",
                time_text=time_tok.text if time_tok else "",
            )
        )
    return specs
