"""Holidays named in a text ("closed on Thanksgiving", "open Easter Monday?"), as the day they fall on.

The `holidays` library knows each country's holidays, their names and their dates for any year
(Easter moves, Thanksgiving is the fourth Thursday of November, Labor Day differs between the US
and New Zealand). Nothing here lists a holiday: the names come from the library, for the region the
business's phone numbers are read in first (``XORVENTA_PHONE_REGION``) and then for the other
English-speaking countries, with every category the library has (public, and unofficial days such
as Christmas Eve or Easter Sunday that businesses close on).

Written by hand, because the library only looks names up: finding a name among a text's tokens,
matching it whatever its case, apostrophes or British spelling ("labour day" is the region's Labor
Day), and reading a name without its "Day" ("Christmas", "Thanksgiving") when the word left is a
name rather than an ordinary word ("Labor", "Memorial" alone are no holiday).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import TYPE_CHECKING

import holidays

if TYPE_CHECKING:
    from spacy.tokens import Token

__all__ = ["holiday_on", "holiday_spans", "mentions_holiday"]

#: Countries whose holiday names are read after the business's own region, in this order.
ENGLISH_REGIONS = ("US", "GB", "CA", "AU", "IE", "NZ")
#: The longest holiday name in tokens ("Birthday of Martin Luther King, Jr." is longer, and is
#: also known by a shorter name).
MAX_NAME_TOKENS = 5


#: The titles a saint's day is written with ("Saint", "St.", "St").
_TITLES = {"saint", "st"}


def _fold(text: str) -> str:
    """The key a name is matched by: letters and digits only, lowercased, British "-our" read as
    American "-or" ("Labour Day" / "Labor Day") and "Saint" as "St", so case, spaces, apostrophes
    and the title's spelling do not matter."""
    folded = "".join(ch for ch in text.lower() if ch.isalnum()).replace("our", "or")
    return "st" + folded[5:] if folded.startswith("saint") else folded


def _bare_name(word: str) -> bool:
    """Whether a one-word remainder of "<word> Day" names the holiday alone: a word English
    dictionaries do not list (a name: "Christmas", "Easter") or list only as that noun
    ("Thanksgiving"); not an ordinary word with other uses ("Labor", "Memorial", "Boxing")."""
    # Lazy: lemminflect imports spaCy (about 2 s), which this module otherwise leaves to the pipeline.
    import lemminflect

    lemmas = lemminflect.getAllLemmas(word.lower())
    return not lemmas or (set(lemmas) == {"NOUN"} and lemmas["NOUN"] == (word.lower(),))


@cache
def _calendar(region: str, year: int) -> dict[str, dt.date]:
    """Folded holiday name -> its day in ``year`` in ``region`` (observed-day entries skipped).
    Bare forms ("thanksgiving" for "Thanksgiving Day") are in ``_bare_forms``."""
    try:
        cls = holidays.country_holidays(region).__class__
        days = holidays.country_holidays(region, years=year, categories=cls.supported_categories)
    except (NotImplementedError, KeyError):
        # the holidays package raises these for a region it has no calendar for: no names to read
        return {}
    names: dict[str, dt.date] = {}
    for day, label in sorted(days.items()):
        for name in label.split("; "):
            if "(" in name:  # "Christmas Day (observed)": the holiday itself is listed too
                continue
            names.setdefault(_fold(name), day)
            words = name.split()
            if len(words) > 2 and words[0].lower().rstrip(".") in _TITLES:
                # A saint's day goes by its name without the title too ("Stephen's Day" for "Saint
                # Stephen's Day"); not by the bare name, which is also a surname ("Stephens").
                names.setdefault(_fold(" ".join(words[1:])), day)
            if len(words) == 2 and words[1].lower() == "day" and _bare_name(words[0]):
                names.setdefault(_fold(words[0]), day)
    return names


@cache
def _dictionary_word(folded: str) -> bool:
    """A bare form that is also an ordinary dictionary noun ("thanksgiving", "independence"): read as
    the holiday only when written as a name or after a preposition ("on thanksgiving")."""
    # Lazy: lemminflect imports spaCy (about 2 s); see _bare_name.
    import lemminflect

    return bool(lemminflect.getAllLemmas(folded))


def _regions(region: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys((region.upper(), *ENGLISH_REGIONS)))


@lru_cache(maxsize=4096)
def holiday_on(name: str, base: dt.date, region: str = "US") -> dt.date | None:
    """The day of the holiday ``name`` on or after ``base`` (within a year), in the first region
    that has it; the last one before ``base`` when none is ahead; ``None`` if no region has it."""
    key = _fold(name)
    for place in _regions(region):
        days = [
            d for year in (base.year - 1, base.year, base.year + 1) if (d := _calendar(place, year).get(key))
        ]
        if days:
            ahead = [d for d in days if d >= base]
            return min(ahead) if ahead else max(days)
    return None


@cache
def _known_names(region: str, year: int) -> frozenset[str]:
    return frozenset(k for place in _regions(region) for k in _calendar(place, year))


def mentions_holiday(text: str, *, year: int, region: str = "US") -> bool:
    """A cheap test (no parse) of whether ``text`` may name a holiday: callers that parse only
    texts with a date in them use it as their gate."""
    folded = _fold(text)
    return any(name in folded for name in _known_names(region, year))


def holiday_spans(
    tokens: Sequence[Token], *, base: dt.date, region: str = "US"
) -> list[tuple[int, int, dt.date]]:
    """(first token, end token exclusive, day) for each holiday named among a text's spaCy
    ``tokens``, longest name first, never overlapping."""
    names = _known_names(region, base.year)
    found: list[tuple[int, int, dt.date]] = []
    index = 0
    while index < len(tokens):
        for length in range(min(MAX_NAME_TOKENS, len(tokens) - index), 0, -1):
            span = tokens[index : index + length]
            if not (_fold(span[0].text) and _fold(span[-1].text)):
                continue  # a name starts and ends with a word, never with "?" or "'s"
            key = _fold("".join(t.text for t in span))
            if key not in names or (
                length == 1 and not _named(span[0], tokens[index - 1] if index else None)
            ):
                continue
            if (day := holiday_on(key, base, region)) is not None:
                found.append((index, index + length, day))
                index += length
                break
        else:
            index += 1
    return found


def _named(token: Token, before: Token | None) -> bool:
    """Whether a one-word holiday name is meant as the holiday: a word no dictionary lists, a word
    written with a capital, or one after a preposition ("closed on thanksgiving")."""
    return (
        not _dictionary_word(_fold(token.text))
        or token.is_title
        or (before is not None and before.pos_ == "ADP")
    )
