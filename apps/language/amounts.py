"""Money amounts in a text: value and currency from price-parser, found on spaCy's tokens.

price-parser reads one price out of a string ("$1,200", "8.50 EUR", "€1.234,50") but finds only the
first one and knows nothing of what surrounds it. Written here by hand, on spaCy's tokens: finding
each amount (a number next to a currency sign, code or word), the unit it is per ("$45 per hour",
"$149 a night", "$3/kg", "$12 each"), whether it is a lowest or highest price ("from $149",
"up to $500"), and "N for $X" offers. The cue words are in ``data/amounts.txt``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING, Literal

from price_parser import Price
from price_parser.parser import CURRENCY_CODES

from apps.language.wordlists import categories

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["Amount", "find_amounts"]

Qualifier = Literal["from", "up_to"]
_RANGE_WORDS = ("-", "\N{EN DASH}", "to")


@dataclass(frozen=True)
class Amount:
    """One amount of money. ``unit`` is what it is per ("hour", "night", "each"), ``quantity`` the
    count it buys in an offer ("5 for $100" -> 5)."""

    text: str
    start_char: int
    end_char: int
    value: Decimal
    currency: str | None
    unit: str | None = None
    qualifier: Qualifier | None = None
    quantity: Decimal | None = None


@cache
def _cues() -> dict[str, tuple[tuple[str, ...], ...]]:
    table = categories("amounts.txt", separator="|")
    return {name: tuple(tuple(p.split()) for p in phrases) for name, phrases in table.items()}


@cache
def _currency_words() -> dict[str, str]:
    pairs = (phrase[0].split("=") for phrase in _cues()["currency_word"])
    return {word: code.upper() for word, code in pairs}


@cache
def _currency_codes() -> frozenset[str]:
    return frozenset(CURRENCY_CODES)


def _is_number(token: Token) -> bool:
    return bool(token.like_num) and any(c.isdigit() for c in token.text)


def _is_currency(token: Token) -> bool:
    return bool(token.is_currency) or token.text in _currency_codes()


def _phrase_before(doc: Doc, index: int, phrases: tuple[tuple[str, ...], ...]) -> bool:
    for phrase in phrases:
        start = index - len(phrase)
        if start >= 0 and tuple(t.lower_ for t in doc[start:index]) == phrase:
            return True
    return False


def _unit_after(doc: Doc, index: int) -> str | None:
    """The unit named right after an amount ending before token ``index``."""
    if index >= len(doc):
        return None
    word = doc[index].lower_
    if any(word == phrase[0] for phrase in _cues()["each"]):
        return "each"
    if any(word == phrase[0] for phrase in _cues()["per_unit"]):
        following = index + 1
        if following < len(doc) and doc[following].pos_ == "DET":
            following += 1  # "per a lesson" is rare, "per the hour" rarer; harmless
        if (
            following < len(doc)
            and doc[following].pos_ in ("NOUN", "PROPN")
            and not _is_number(doc[following])
        ):
            return doc[following].lemma_.lower()
    return None


def _currency_of(doc: Doc, start: int, end: int) -> tuple[int, int, str | None] | None:
    """The token range of an amount around the number at ``start`` (exclusive ``end``), with a
    currency from a word price-parser does not know ("30 dollars"), or None when it has no currency."""
    if start > 0 and _is_currency(doc[start - 1]):
        return start - 1, end, None
    if end < len(doc) and _is_currency(doc[end]):
        return start, end + 1, None
    if end < len(doc) and doc[end].lemma_.lower() in _currency_words():
        return start, end + 1, _currency_words()[doc[end].lemma_.lower()]
    return None


#: The currency of an amount written in cents ("25¢", "55 cents"): its value is in the main unit.
CENT = "¢"


def _glued_cents(token: Token) -> Decimal | None:
    digits = token.text[:-1]
    if token.text.endswith(CENT) and digits.replace(".", "", 1).isdigit():
        return Decimal(digits) / 100
    return None


def find_amounts(doc: Doc) -> tuple[Amount, ...]:
    """Every amount of money in ``doc``; a bare number is not an amount, except the second end of
    a price range ("$30-45" gives $30 and $45)."""
    found: list[Amount] = []
    previous_end = -1
    for index, token in enumerate(doc):
        if index >= previous_end and (cents := _glued_cents(token)) is not None:
            # "25¢": spaCy keeps the number and the cent sign as one token.
            found.append(
                Amount(
                    token.text,
                    token.idx,
                    token.idx + len(token.text),
                    cents,
                    CENT,
                    _unit_after(doc, index + 1),
                )
            )
            previous_end = index + 1
            continue
        if not _is_number(token) or index < previous_end:
            continue
        located = _currency_of(doc, index, index + 1)
        inherited: str | None = None
        if located is None:
            # "$30-45", "$30 to 45": the second number takes the first one's currency.
            if found and index >= 2 and doc[index - 1].lower_ in _RANGE_WORDS and previous_end == index - 1:
                located, inherited = (index, index + 1, None), found[-1].currency
            elif (
                index + 2 < len(doc) and doc[index + 1].lower_ in _RANGE_WORDS and _is_number(doc[index + 2])
            ):
                # "45-60 EUR": the first number takes the second one's currency.
                later = _currency_of(doc, index + 2, index + 3)
                if later is None:
                    continue
                located = (index, index + 1, None)
                inherited = later[2] or Price.fromstring(doc[later[0] : later[1]].text).currency
            else:
                continue
        first, last, word_currency = located
        span = doc[first:last]
        price = Price.fromstring(span.text)
        if price.amount is None:
            continue
        currency = word_currency or inherited or price.currency
        value = price.amount / 100 if currency == CENT else price.amount  # "55 cents" is 0.55
        cues = _cues()
        qualifier: Qualifier | None = None
        if _phrase_before(doc, first, cues["from"]):
            qualifier = "from"
        elif _phrase_before(doc, first, cues["up_to"]):
            qualifier = "up_to"
        quantity: Decimal | None = None
        if first >= 2 and doc[first - 1].lower_ == "for" and _is_number(doc[first - 2]):
            quantity = Price.fromstring(doc[first - 2].text).amount  # "5 for $100"
        found.append(
            Amount(
                text=span.text,
                start_char=span.start_char,
                end_char=span.end_char,
                value=value,
                currency=currency,
                unit=_unit_after(doc, last),
                qualifier=qualifier,
                quantity=quantity,
            )
        )
        previous_end = last
    return tuple(found)
