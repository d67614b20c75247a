"""What a superlative question ranks ("the cheapest wash", "your biggest unit", "the most expensive
groom") and where a row stands on that scale.

The parse gives the superlative (tag JJS, or "most" / "least" before an adjective) and the noun it
modifies; which scale an adjective ranks and in which direction is a data table
(``data/scales.txt``). No library maps "cheap" to the lowest price: written here by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import Literal

from apps.language.analysis import Analysis
from apps.language.wordlists import categories

__all__ = ["Superlative", "price_of", "size_of", "superlative"]

Scale = Literal["price", "size"]


@dataclass(frozen=True)
class Superlative:
    """The scale a question ranks on, the end it asks for ("low": cheapest, smallest), the lemma of
    the noun ranked ("wash" of "the cheapest wash"; None for "the least I can pay") and the words that
    say the superlative ("cheapest"; "most", "expensive")."""

    scale: Scale
    direction: Literal["low", "high"]
    noun: str | None
    words: tuple[str, ...]


@cache
def _adjectives() -> dict[str, tuple[Scale, Literal["low", "high"]]]:
    out: dict[str, tuple[Scale, Literal["low", "high"]]] = {}
    for key, words in categories("scales.txt").items():
        scale, _, direction = key.partition(" ")
        if scale in ("price", "size") and direction in ("low", "high"):
            for word in words:
                out[word] = (scale, direction)  # type: ignore[assignment]
    return out


@cache
def _size_order() -> dict[str, int]:
    return {word: rank for rank, word in enumerate(categories("scales.txt").get("size order", ()))}


def superlative(analysis: Analysis, *, asks_price: bool = False) -> Superlative | None:
    """The superlative of a question, when it ranks on a scale the table knows. "the least I can pay"
    (no adjective) ranks on price when the question asks for one (``asks_price``)."""
    tokens = analysis.tokens
    for token in tokens:
        degree: str | None = None
        if token.tag == "RBS" and token.lemma in ("most", "least"):
            head = tokens[token.head]
            if head.i == token.i or head.pos != "ADJ":
                continue
            degree, adjective = token.lemma, head
        elif token.tag == "JJS":
            adjective = token
        else:
            continue
        noun_token = tokens[adjective.head]
        noun = (
            noun_token.lemma if noun_token.pos in ("NOUN", "PROPN") and noun_token.i != adjective.i else None
        )
        known = _adjectives().get(adjective.lemma)
        if known is None and adjective.text.lower() in ("least", "most") and asks_price:
            known = ("price", "low" if adjective.text.lower() == "least" else "high")
        if known is None:
            continue
        scale, direction = known
        if degree == "least":
            direction = "low" if direction == "high" else "high"
        said = (degree, adjective.text) if degree else (adjective.text,)
        return Superlative(scale, direction, noun, tuple(w.lower() for w in said if w))
    return None


def price_of(analysis: Analysis) -> Decimal | None:
    """The first amount of money a row states."""
    return analysis.amounts[0].value if analysis.amounts else None


def size_of(analysis: Analysis) -> tuple[int, Decimal] | None:
    """Where a row stands on size: (1, rank) for a size word ("Large"), else (0, the largest number it
    gives that is no amount of money and no date: "10-bed dorm", "bucket of 150")."""
    order = _size_order()
    ranks = [order[t.lemma] for t in analysis.tokens if t.lemma in order]
    if ranks:
        return 1, Decimal(max(ranks))
    money = [(a.start_char, a.end_char) for a in analysis.amounts]
    dates = [(d.start_char, d.end_char) for d in analysis.dates]
    numbers = []
    for t in analysis.tokens:
        digits = t.text.split("-")[0]
        if not digits.isdigit() or any(s <= t.start_char < e for s, e in money + dates):
            continue
        numbers.append(Decimal(digits))
    return (0, max(numbers)) if numbers else None
