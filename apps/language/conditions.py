"""The numbers a statement holds for, and whether a question's numbers meet them.

A row of a price table or a sentence often says for which group size, distance or count its detail
holds: "5-8 players, Weekend: $31", "£8 for 10-15 miles", "packages for up to 24 people", "groups of
10+". A question gives the number it is about: "for 6 of us", "12 miles away", "20 people". Quantity
parsers read a value and a unit, not "up to" or a range's two ends, so this is a small grammar written
by hand over the shared parse: a number (or two joined by a dash or "to"), the noun counted after it,
and a bounding phrase before it from ``data/bounds.txt``. Numbers inside a date, an amount of money, a
phone number, a clock time or a proper name ("Route 66") are not conditions, and a number after the
noun it belongs to ("Room 2", "ages 7-12") is that noun's, not a head count.

Units are compared by pint's names (``units.unit_name``): "12 miles" is held against "within 10 miles", not
"3-4 players"; two counted nouns meet when WordNet files both as beings or both as things ("6 people" /
"5-8 players", not "6 people" / "three rooms"). A number with no noun ("6 of us") is a head count: it
meets a count of people or animals, not "ages 7-12" or "10 nights".
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from apps.language.lexicon import counts_beings
from apps.language.units import convert, same_dimension, unit_name
from apps.language.wordlists import categories

if TYPE_CHECKING:
    from apps.language.analysis import Analysis, Token

__all__ = ["Bound", "bounds", "fit"]


@dataclass(frozen=True)
class Bound:
    """What a statement (or a question) says of a number: ``low``..``high`` inclusive, either open
    (None); equal ends for one number. ``unit`` is pint's name of a unit of measure, else the lemma of
    the noun counted, else None."""

    low: float | None
    high: float | None
    unit: str | None
    measured: bool  # the unit is a unit of measure (pint's), not a counted noun

    def holds(self, value: float) -> bool:
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)


@cache
def _cues() -> dict[str, tuple[tuple[str, ...], ...]]:
    table = categories("bounds.txt", separator="|")
    return {name: tuple(tuple(p.split()) for p in phrases) for name, phrases in table.items()}


_CLOCK_WORDS = frozenset({"am", "pm", "a.m.", "p.m.", "a.m", "p.m", "o'clock", "h"})
_CLOCK_PREFIXES = ("am", "pm", "a.m", "p.m")  # glued: "8am", "9am-5pm"
_RANGE_WORDS = frozenset({"-", "\u2013", "\u2014", "to"})


def _value(token: Token) -> float | None:
    """A number written in digits ("6", "12s", "2.5"); words ("three") are left alone: they are as
    often part of a name or a phrase ("all three rooms", "one of a kind")."""
    digits = ""
    for ch in token.text:
        if ch.isdigit() or (ch == "." and digits and "." not in digits):
            digits += ch
        else:
            break
    if not digits or not token.text[0].isdigit():
        return None
    try:
        return float(digits.rstrip("."))
    except ValueError:
        return None


def _taken(analysis: Analysis) -> list[tuple[int, int]]:
    spans = [(m.start_char, m.end_char) for m in analysis.dates]
    spans += [(a.start_char, a.end_char) for a in analysis.amounts]
    return spans + [(p.start_char, p.end_char) for p in analysis.phones]


def _free_number(analysis: Analysis, i: int, taken: list[tuple[int, int]]) -> float | None:
    """The value of token ``i`` when it is a number of its own: not in a date, an amount or a phone number,
    not a clock time ("8am", "9:30"), not a percentage and not a number in a name."""
    tokens = analysis.tokens
    t = tokens[i]
    value = _value(t)
    if value is None or any(a <= t.start_char < b for a, b in taken):
        return None
    if i > 0 and t.head == i - 1 and tokens[i - 1].pos == "PROPN":
        return None  # part of a name ("Studio B 2", "Route 66"), not a count
    after = tokens[i + 1].text.lower() if i + 1 < len(tokens) else ""
    if (
        after in _CLOCK_WORDS
        or after.startswith(":")
        or ":" in t.text
        or _suffix(t).startswith(_CLOCK_PREFIXES)
    ):
        return None
    if after == "%" or _suffix(t) == "%":
        return None  # a share ("15% off"), which counts nothing
    return value


def _suffix(token: Token) -> str:
    """The letters glued to a number ("25L" -> "l", "12s" -> "s", "8am" -> "am")."""
    return token.text.lstrip("0123456789.").lower()


def _phrase_before(analysis: Analysis, i: int, name: str) -> bool:
    words = [t.text.lower() for t in analysis.tokens[:i]]
    return any(len(p) <= len(words) and tuple(words[len(words) - len(p) :]) == p for p in _cues()[name])


def _unit_at(analysis: Analysis, i: int, j: int) -> tuple[str | None, bool]:
    """The unit or counted noun of a number at tokens ``i`` to ``j - 1``: the word right after it (or
    glued to it: "25L"), or the noun before it that it belongs to."""
    tokens = analysis.tokens
    if i > 0 and tokens[i].head == i - 1 and tokens[i - 1].pos == "NOUN":
        # A number after the noun it belongs to is that noun's ("ages 7-12", "size 10", "Room 2").
        return tokens[i - 1].lemma.lower(), False
    suffix = _suffix(tokens[j - 1])
    glued = unit_name(suffix) if suffix.isalpha() and suffix != "s" else None  # "12s": a plural
    if glued:
        return glued, True
    if j >= len(tokens) or tokens[j].pos not in ("NOUN", "PROPN"):
        return None, False
    name = unit_name(tokens[j].text)
    if name:
        return name, True
    return tokens[j].lemma.lower(), False


def _one_unit(analysis: Analysis, i: int) -> tuple[str, int] | None:
    """ "for an hour", "for a full day": an article after a preposition, before a unit of measure
    (with at most one adjective between), is one of that unit; returns (unit, the index after it).
    "£15 a night" is no such phrase: there the article follows an amount and means "per"."""
    tokens = analysis.tokens
    if tokens[i].text.lower() not in ("a", "an") or i == 0 or tokens[i - 1].pos != "ADP":
        return None
    j = i + 1
    if j < len(tokens) and tokens[j].pos == "ADJ":
        j += 1
    if j >= len(tokens) or tokens[j].pos != "NOUN":
        return None
    name = unit_name(tokens[j].text)
    return (name, j + 1) if name else None


def bounds(analysis: Analysis) -> list[Bound]:
    """Every number ``analysis`` states a condition with, in order."""
    tokens = analysis.tokens
    taken = _taken(analysis)
    out: list[Bound] = []
    i = 0
    while i < len(tokens):
        one = _one_unit(analysis, i)
        if one is not None:
            out.append(Bound(1.0, 1.0, one[0], True))
            i = one[1]
            continue
        low = _free_number(analysis, i, taken)
        if low is None:
            i += 1
            continue
        high: float | None = low
        j = i + 1
        if j + 1 < len(tokens) and tokens[j].text.lower() in _RANGE_WORDS:
            second = _free_number(analysis, j + 1, taken)
            if second is not None and second >= low:
                high, j = second, j + 2
        if _suffix(tokens[j - 1]) == "+":  # "10+" as one token
            high = None
        elif j < len(tokens) and tokens[j].text == "+":
            high, j = None, j + 1
        unit, measured = _unit_at(analysis, i, j)
        start: float | None = low
        if high == low and _phrase_before(analysis, i, "at_most"):
            start = None
        elif high == low and _phrase_before(analysis, i, "at_least"):
            high = None
        out.append(Bound(start, high, unit, measured))
        i = j
    return out


def _comparable(asked: Bound, stated: Bound) -> bool:
    if asked.measured or stated.measured:
        if not (asked.measured and stated.measured):
            return False
        return same_dimension(asked.unit or "", stated.unit or "")
    if asked.unit == stated.unit:
        return True
    if asked.unit is None or stated.unit is None:
        # A bare number ("6 of us", "for 12") is a head count: it meets a count of people or animals
        # ("5-8 players"), not a number of something else ("ages 7-12", "10 nights", "Room 2").
        named = stated.unit or asked.unit or ""
        return counts_beings(named) is not False
    a, b = counts_beings(asked.unit), counts_beings(stated.unit)
    return a is None or b is None or a == b


def fit(asked: list[Bound], stated: list[Bound]) -> int:
    """+1 when a number the question gives meets a condition the statement sets on a number of its
    kind and none fails one; -1 when one fails; 0 when nothing is comparable."""
    verdicts = set()
    for q in asked:
        if q.low is None:
            continue
        for s in stated:
            if _comparable(q, s):
                value = q.low
                if q.measured and s.measured and q.unit != s.unit:
                    value = convert(value, q.unit or "", s.unit or "")
                verdicts.add(s.holds(value))
    if False in verdicts:
        return -1
    return 1 if True in verdicts else 0
