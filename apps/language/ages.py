"""Ages: the age a question states ("I'm 17", "my 12 year old", "she's 15") and the minimum age a
fact states ("18+", "must be 16 or over", "ages 14 and up", "minimum age 12").

Hand-written: no library reads ages. The grammar is small and English-only, and a number is an age
only in these frames, never on its own ("17 of us" is a group, "at 17:00" a time)."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MinimumAge", "minimum_age", "stated_age"]

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
    re.compile(rf"(?i)\b(?:minimum age(?: of| is)?|at least)\s+{_AGE}\b(?:\s*years?)?"),
)
#: Words after the age that make the rule conditional ("14+ unless with a paying adult").
_CONDITION = re.compile(
    r"(?i)\b(?:unless|except|with (?:a |an )?(?:parent|guardian|adult|consent)|accompanied)\b"
)


@dataclass(frozen=True)
class MinimumAge:
    years: int
    conditional: bool  # the statement allows exceptions ("unless with a paying adult")


def stated_age(text: str) -> int | None:
    """The age a question gives for the person it asks about, if it gives one."""
    for frame in _STATED:
        m = frame.search(text)
        if m:
            return int(m.group(1))
    return None


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
