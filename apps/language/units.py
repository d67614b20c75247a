"""Units of measure written after a number ("60 min", "2 hrs", "a 60-minute massage", "10 km"),
named canonically by pint's unit registry: "min", "mins" and "minutes" are all "minute", so two sources
that write one duration or distance differently still say the same thing."""

from __future__ import annotations

import logging
import re
import threading
from functools import lru_cache
from typing import Any

__all__ = ["canonical_measures", "canonical_units", "convert", "measures_time", "same_dimension", "unit_name"]

#: A number and the word right after it ("60 min", "60-minute", "2hrs"): the only place a short word
#: is read as a unit ("in", "at" and "am" are units to pint too, and words everywhere else).
_NUMBER_WORD = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(\s*-?\s*)([A-Za-z]{2,})\b")

#: What a small business measures: durations, distances, weights and volumes.
_DIMENSIONS = ({"[time]": 1}, {"[length]": 1}, {"[mass]": 1}, {"[length]": 3})
#: A unit of the human scale, in base units (a millimetre or a milligram to a few decades): pint also
#: knows "am" (attometre) and "pm" (picometre), which after a number are times of day.
_SCALE = (1e-7, 1e9)

_lock = threading.Lock()
_registry: Any = None


def _parse_errors() -> tuple[type[BaseException], ...]:
    """What pint's unit parser raises on a name it cannot read: its own errors, AttributeError on some
    bare words and an AssertionError on symbols ("&")."""
    import pint  # loaded by _units() already; only for its error classes

    return (pint.errors.PintError, AttributeError, ValueError, TypeError, AssertionError)


def _units() -> Any:
    global _registry
    with _lock:
        if _registry is None:
            # Lazy: building pint's registry costs about half a second, paid once per process.
            import pint

            # pint warns that "mins" could also be milli-inches, then takes minutes, as a reader does.
            logging.getLogger("pint.util").setLevel(logging.ERROR)
            _registry = pint.UnitRegistry()
            # pint has no short form of the week; owners write "3 wks" as they write "2 hrs".
            _registry.define("@alias week = wk")
        return _registry


@lru_cache(maxsize=4096)
def unit_name(word: str) -> str | None:
    """The canonical name of a unit of measure ("hrs" -> "hour", "km" -> "kilometer"), or None."""
    from spacy.lang.en.stop_words import STOP_WORDS  # spaCy is loaded by the language layer anyway

    if word.lower() in STOP_WORDS or not word.isalpha():
        return None  # "2 in 1", "3 at once": a word, not pint's inch or atmosphere; "&" is no unit
    registry = _units()
    try:
        unit = registry.parse_units(word.lower())
    except _parse_errors():
        return None  # not a unit
    if dict(unit.dimensionality) not in _DIMENSIONS:
        return None
    base = float(registry.Quantity(1, unit).to_base_units().magnitude)
    if not _SCALE[0] <= base <= _SCALE[1]:
        return None
    return str(unit)


def canonical_units(text: str) -> str:
    """``text`` with every unit after a number written as its canonical name: "a 60-min massage, 2hrs"
    -> "a 60 minute massage, 2 hour"."""
    if not any(ch.isdigit() for ch in text):
        return text

    def named(m: re.Match[str]) -> str:
        name = unit_name(m.group(3))
        return f"{m.group(1)} {name}" if name else m.group(0)

    return _NUMBER_WORD.sub(named, text)


def measures_time(word: str) -> bool:
    """Whether a word is a unit of time ("days", "hrs", "weeks"): what a length of time is counted in."""
    name = unit_name(word)
    return name is not None and same_dimension(name, "second")


#: A word and the unit word after it ("one-hour", "two hours", "half-hour"): a number written out.
_WORD_UNIT = re.compile(r"(?<![\w-])([A-Za-z]+)(\s*-\s*|\s+)(?=([A-Za-z]{2,})\b)")
#: Fractions text2num does not read as numbers; hand-written, as no library reads "half-hour". Only
#: of units shorter than a day: a "half-day" session is a kind of session, not twelve hours.
_FRACTIONS = {"half": 0.5, "quarter": 0.25}
_MINUTE, _DAY, _WEEK = 60, 86_400, 604_800
#: Words of how often, before "a"/"an" and a unit ("twice an hour"): a rate, not a length of time.
_HOW_OFTEN = frozenset({"once", "twice", "thrice", "times", "per"})


def _written_number(word: str, unit: str) -> float | None:
    """The value of a number written in words ("one", "half" of an hour), or None."""
    if word.lower() in _FRACTIONS:
        short = convert(1, unit, "second") < _DAY
        return _FRACTIONS[word.lower()] if short else None
    from text_to_num import text2num  # lazy: only names with a written-out number need it

    try:
        return float(text2num(word.lower(), "en"))
    except ValueError:
        return None  # not a number ("full-day", "private")


def canonical_measures(text: str) -> str:
    """``text`` with every length of time as one number of one unit, so names of one measure meet:
    "One-hour lesson", "60-min lesson" and "1 hr lesson" are all "60 minute lesson"; "Half-hour" is
    "30 minute"; "2 weeks" is "14 day". Months and years (of no fixed length) and other measures keep
    their canonical unit names."""
    from text_to_num import alpha2digit  # "twenty-five minutes" -> "25 minutes"

    def digits(m: re.Match[str]) -> str:
        unit = unit_name(m.group(3))
        if not unit or not measures_time(unit):
            return m.group(0)
        if m.group(1).lower() in ("a", "an"):
            # "an hour" is one hour, unless it is a rate's ("£10 an hour", "3 times an hour"): only
            # where no number or amount comes just before, and only of units shorter than a day
            # ("twice a day", "7 days a week" count how often).
            before = written[: m.start()].rstrip().split()
            rate = bool(before) and (
                any(ch.isdigit() for ch in before[-1]) or before[-1].lower() in _HOW_OFTEN
            )
            value = 1.0 if not rate and convert(1, unit, "second") < _DAY else None
        else:
            value = _written_number(m.group(1), unit)
        return m.group(0) if value is None else f"{value:g} "  # the unit, as written, follows

    written = alpha2digit(text, "en")
    text = canonical_units(_WORD_UNIT.sub(digits, written))

    def scaled(m: re.Match[str]) -> str:
        unit = m.group(3)
        if not measures_time(unit):
            return m.group(0)
        one = convert(1, unit, "second")
        to = "minute" if _MINUTE <= one < _DAY else "day" if one in (_DAY, _WEEK) else None
        value = convert(float(m.group(1)), unit, to) if to else None
        return f"{value:g} {to}" if value is not None and value == int(value) else m.group(0)

    return _NUMBER_WORD.sub(scaled, text)


def same_dimension(a: str, b: str) -> bool:
    """Whether two canonical unit names measure one thing ("mile" / "kilometer": yes; "mile" / "hour": no)."""
    registry = _units()
    try:
        return bool(registry.parse_units(a).dimensionality == registry.parse_units(b).dimensionality)
    except _parse_errors():
        return False  # a name pint cannot parse measures nothing we can compare


def convert(value: float, unit: str, to: str) -> float:
    """``value`` in ``unit`` expressed in ``to`` (both canonical names of one dimension)."""
    registry = _units()
    return float(registry.Quantity(value, unit).to(to).magnitude)
