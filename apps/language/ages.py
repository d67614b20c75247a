"""Ages: the age a question states ("I'm 17", "my 12 year old", "she's 15"), the minimum age a
fact states ("18+", "must be 16 or over", "ages 14 and up", "minimum age 12") and the ages a row of a
price list is for ("Pre-school (3-5 yrs)", "Child (5-15 years)", "over 60s", "under 16s").

Hand-written: no library reads ages. The grammar is small and English-only, and a number is an age
only in these frames, never on its own ("17 of us" is a group, "at 17:00" a time)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from apps.language.lexicon import counts_beings

__all__ = ["MinimumAge", "age_range_spans", "age_ranges", "minimum_age", "stated_age"]

_AGE = r"(\d{1,2})"
#: Frames that make a number in a question someone's age.
_STATED = (
    re.compile(rf"(?i)\b{_AGE}[\s-]*(?:years?|yrs?)[\s-]*old\b"),
    re.compile(rf"(?i)\b{_AGE}\s*y/?o\b"),
    re.compile(
        rf"(?i)\b(?:i\s*'?\s*m|i am|he'?s|she'?s|they'?re|he is|she is|they are|aged?|turning)\s+{_AGE}\b(?!\s*(?:[:.]\d|am\b|pm\b|%|of\b|people\b|min|hours?\b|[$£€]))"
    ),
)
#: Frames that make a number in a statement a minimum age.
_MINIMUM = (
    re.compile(rf"(?i)\b(?:ages?|aged|must be|over|minimum age(?: of)?|at least)\s*{_AGE}\s*\+"),
    re.compile(rf"(?i)(?<![\d$£€.]){_AGE}\s*\+\s*(?:only|years?|yrs?|with|unless|$|[.,;)])"),
    re.compile(
        rf"(?i)\b(?:ages?|aged|must be|be)\s+{_AGE}\s*(?:years?\s*(?:old\s*)?)?(?:and|or)\s*(?:over|older|up|above)\b"
    ),
    # "at least" is an age only after "be" or "aged", or with "old": "licence held for at least 2
    # years" is a duration.
    re.compile(rf"(?i)\b(?:minimum age(?: of| is)?|(?:be|aged?)\s+at least)\s+{_AGE}\b(?:\s*years?)?"),
    re.compile(rf"(?i)\bat least\s+{_AGE}\s*(?:years?|yrs?)[\s-]*old\b"),
)
#: Frames of the ages a row is for: a range with its unit, or one end of one ("over 60s", "under 16s").
_DASH = r"(?:-|\u2013|\u2014|to)"  # a hyphen, an en or em dash, or "to"
_RANGE = re.compile(
    rf"(?i)\b(?:ages?\s+|aged\s+)?{_AGE}\s*{_DASH}\s*{_AGE}\s*(?:years?|yrs?|y/?o)\b"
    rf"|\bages?\s+{_AGE}\s*{_DASH}\s*{_AGE}\b"
)
#: Where a text writes ages as a range, also as a qualifier of who ("children aged 4 to 12"): no clock
#: times there, though such a statement is a rule of who may come rather than a row's ages.
_AGED_RANGE = re.compile(rf"(?i)\baged\s+{_AGE}\s*{_DASH}\s*{_AGE}\b")
#: "over 60s", "over-65s", "under 16s", "over 18 years": an open end, told from "over 50 miles" by its unit.
_OPEN_END = re.compile(rf"(?i)\b(over|above|under|below)[\s-]+{_AGE}(?:s\b|\s*(?:years?|yrs?)\b)")
#: Words after the age that make the rule conditional ("14+ unless with a paying adult").
_CONDITION = re.compile(
    r"(?i)\b(?:unless|except|with (?:a |an )?(?:parent|guardian|adult|consent)|accompanied)\b"
)


@dataclass(frozen=True)
class MinimumAge:
    years: int
    conditional: bool  # the statement allows exceptions ("unless with a paying adult")


#: "my nan is 72", "our dog's 12": an age when the one it is said of is a person or an animal.
_SAID_OF = re.compile(
    rf"(?i)\b(?:my|our|his|her|their)\s+([a-z]+)(?:\s+is|'s)\s+(?:turning\s+|nearly\s+|almost\s+)?{_AGE}\b"
    r"(?!\s*(?:[:.,]\d|am\b|pm\b|%|min|hours?\b|miles?\b|km\b|kg\b|[$£€]|items?\b|people\b))"
)


def stated_age(text: str) -> int | None:
    """The age a question gives for the person it asks about, if it gives one."""
    for frame in _STATED:
        m = frame.search(text)
        if m:
            return int(m.group(1))
    m = _SAID_OF.search(text)
    if m and counts_beings(m.group(1).lower()):
        return int(m.group(2))
    return None


def stated_age_words(text: str) -> list[str]:
    """The words, other than its number, of the phrase that states an age ("8 year old" -> "year",
    "old"); empty when the text states none in so many words ("my nan is 72" names a person)."""
    for frame in _STATED:
        m = frame.search(text)
        if m:
            return re.findall(r"[A-Za-z]+", m.group(0))
    return []


def minimum_age(text: str) -> MinimumAge | None:
    """The minimum age a statement sets, if it sets one."""
    for frame in _MINIMUM:
        m = frame.search(text)
        if m:
            # An exception counts in the rule's own clause only ("12 or over; under 16 with a parent"
            # is a second rule for the older ones, not an exception to the first).
            clause = re.split(r"[;.]\s", text[m.end(1) :], maxsplit=1)[0]
            return MinimumAge(int(m.group(1)), _CONDITION.search(clause) is not None)
    return None


def age_range_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` writes an age range ("aged 4-10", "(4-10 yrs)"): its numbers are no clock times."""
    return [m.span() for pattern in (_RANGE, _AGED_RANGE) for m in pattern.finditer(text)]


def age_ranges(text: str) -> list[tuple[int, int]]:
    """The ages a statement is for, as (youngest, oldest) ranges: "Pre-school (3-5 yrs)" -> [(3, 5)],
    "Concession (over 60s, under 16s)" -> [(60, 120), (0, 15)]; empty when it names none."""
    found = []
    for m in _RANGE.finditer(text):
        low, high = (int(g) for g in m.groups() if g is not None)
        if low <= high:
            found.append((low, high))
    for m in _OPEN_END.finditer(text):
        years = int(m.group(2))
        found.append((years, 120) if m.group(1).lower() in ("over", "above") else (0, years - 1))
    return found
