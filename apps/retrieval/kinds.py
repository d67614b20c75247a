"""The kind-of-fact leg (seed 003): which kind of information a message asks for, in the plain words
a document would use as a heading, with the subject left out.

"How much is the sourdough?" asks for *prices*; the sourdough is the subject. A vector search on the
whole question is pulled towards the subject's own passage, so retrieval also searches for the kind
on its own ("prices"), which finds a price list that names the product only in passing.

The table below is data: kind -> trigger words and phrases, matched on word boundaries in lowercase
(a space in a phrase also matches a hyphen or several spaces). When several kinds match, the first
kind in table order wins. The order follows the seed's rule of excluding the subject: what is asked
("how much", "how much notice") outranks what it is about ("delivery", "parking"), and the broad
time words of opening hours ("when", "late", day names) come last because they also accompany
questions about deliveries, bookings and the like.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["KINDS", "kind_of_fact", "kinds_of_fact", "without_kind_words"]

_DAYS = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
]

KINDS: Mapping[str, tuple[str, ...]] = {
    "notice": (
        "notice",
        "in advance",
        "advance notice",
        "ahead of time",
        "how far ahead",
        "how far in advance",
        "how soon",
        "lead time",
        "last minute",
        "short notice",
        "how long before",
        "how many days before",
        "how many weeks before",
    ),
    "prices": (
        "price",
        "prices",
        "priced",
        "pricing",
        "price list",
        "cost",
        "costs",
        "costing",
        "fee",
        "fees",
        "how much",
        "charge",
        "charges",
        "charged",
        "rate",
        "rates",
        "expensive",
        "cheap",
        "cheaper",
        "cheapest",
        "affordable",
        "tariff",
        "tariffs",
        "quote",
        "quotes",
        "discount",
        "discounts",
        "per hour",
        "per night",
        "per person",
    ),
    "cancellation and refunds": (
        "refund",
        "refunds",
        "refunded",
        "refundable",
        "return",
        "returns",
        "returning",
        "cancel",
        "cancels",
        "cancelled",
        "canceled",
        "cancelling",
        "canceling",
        "cancellation",
        "cancellations",
        "cancelation",
        "money back",
        "exchange",
        "exchanges",
        "reschedule",
        "no show",
    ),
    "payment methods": (
        "pay",
        "pays",
        "paying",
        "payment",
        "payments",
        "card",
        "cards",
        "credit card",
        "debit card",
        "cash",
        "visa",
        "mastercard",
        "master card",
        "amex",
        "american express",
        "apple pay",
        "google pay",
        "paypal",
        "contactless",
        "cheque",
        "cheques",
        "invoice",
        "bank transfer",
        "venmo",
        "klarna",
        "afterpay",
        "bitcoin",
        "crypto",
        "instalments",
        "installments",
    ),
    "insurance": (
        "insurance",
        "insured",
        "insurer",
        "insurers",
        "insurance plan",
        "copay",
        "co pay",
        "deductible",
        "medicare",
        "medicaid",
    ),
    "dietary": (
        "allergen",
        "allergens",
        "allergy",
        "allergies",
        "allergic",
        "gluten",
        "gluten free",
        "coeliac",
        "celiac",
        "vegan",
        "vegans",
        "vegetarian",
        "vegetarians",
        "plant based",
        "halal",
        "kosher",
        "dairy",
        "dairy free",
        "lactose",
        "nut",
        "nuts",
        "nut free",
        "peanut",
        "peanuts",
        "sesame",
        "shellfish",
        "sugar free",
        "diabetic",
        "keto",
        "dietary",
        "diet",
    ),
    "delivery": (
        "deliver",
        "delivers",
        "delivered",
        "delivering",
        "delivery",
        "deliveries",
        "shipping",
        "ship",
        "ships",
        "shipped",
        "postage",
        "courier",
        "dispatch",
        "dispatched",
        "pick up",
        "pickup",
        "collection",
        "click and collect",
        "takeaway",
        "take away",
        "takeout",
        "take out",
        "track my order",
        "tracking",
    ),
    "booking": (
        "book",
        "books",
        "booking",
        "bookings",
        "booked",
        "appointment",
        "appointments",
        "reservation",
        "reservations",
        "reserve",
        "reserved",
        "availability",
        "slot",
        "slots",
        "walk in",
        "walk ins",
        "table for",
    ),
    "contact": (
        "contact",
        "contacts",
        "phone",
        "phone number",
        "telephone",
        "call",
        "call you",
        "ring",
        "email",
        "emails",
        "e mail",
        "email address",
        "reach you",
        "get in touch",
        "whatsapp",
        "text you",
        "message you",
    ),
    "facilities": (
        "pet",
        "pets",
        "dog",
        "dogs",
        "pet friendly",
        "dog friendly",
        "children",
        "child",
        "kids",
        "kid",
        "baby",
        "babies",
        "high chair",
        "high chairs",
        "pram",
        "stroller",
        "wifi",
        "wi fi",
        "internet",
        "wheelchair",
        "accessible",
        "accessibility",
        "disabled",
        "step free",
        "ramp",
        "lift",
        "elevator",
        "toilet",
        "toilets",
        "restroom",
        "restrooms",
        "bathroom",
        "bathrooms",
        "baby changing",
        "outdoor seating",
        "terrace",
        "smoking",
        "air conditioning",
        "charging",
        "facilities",
        "amenities",
    ),
    "location": (
        "where",
        "address",
        "located",
        "location",
        "locations",
        "directions",
        "direction",
        "parking",
        "park",
        "car park",
        "find you",
        "get there",
        "get to you",
        "nearest",
        "near",
        "map",
        "postcode",
        "zip code",
        "public transport",
        "station",
    ),
    "opening hours": (
        "open",
        "opens",
        "opened",
        "opening",
        "opening hours",
        "close",
        "closes",
        "closed",
        "closing",
        "shut",
        "shuts",
        "hours",
        "schedule",
        "timetable",
        "what time",
        "late",
        "latest",
        "early",
        "earliest",
        "when",
        "today",
        "tonight",
        "tomorrow",
        "weekend",
        "weekends",
        "weekday",
        "weekdays",
        *_DAYS,
        *(day + "s" for day in _DAYS),
        "holiday hours",
        "bank holiday",
        "bank holidays",
        "public holiday",
        "public holidays",
        "christmas",
        "new year",
        "new years",
        "easter",
        "24 7",
    ),
}

# Subjects that contain a trigger word but are not that kind of question ("gift card" is a product,
# not a payment method; "park" in "theme park" is not parking). Removed before matching.
_NOT_TRIGGERS = ("gift card", "gift cards", "gift voucher", "gift vouchers", "theme park", "book club")


def _pattern(phrases: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = sorted({p.lower() for p in phrases}, key=len, reverse=True)
    body = "|".join(r"[\s\-/]+".join(re.escape(word) for word in phrase.split()) for phrase in alternatives)
    return re.compile(rf"(?<![\w])(?:{body})(?![\w])")


_PATTERNS: dict[str, re.Pattern[str]] = {kind: _pattern(words) for kind, words in KINDS.items()}
_EXCLUDE = _pattern(_NOT_TRIGGERS)


def _normalise(message: str) -> str:
    text = message.lower().replace("\u2019", "'").replace("'s ", " ")
    return _EXCLUDE.sub(" ", text)


def kinds_of_fact(message: str) -> list[str]:
    """Every kind the message triggers, in priority order."""
    text = _normalise(message)
    return [kind for kind, pattern in _PATTERNS.items() if pattern.search(text)]


def kind_of_fact(message: str) -> str | None:
    """The kind of information asked for ("prices", "opening hours", ...), or None."""
    text = _normalise(message)
    for kind, pattern in _PATTERNS.items():
        if pattern.search(text):
            return kind
    return None


# Kinds that say what is asked about a subject, never the subject itself ("parking" or "delivery" can
# be the whole subject of a question; "how much" or "open" cannot).
ASKED_KINDS = ("notice", "prices", "opening hours")


def without_kind_words(message: str, kinds: tuple[str, ...] = ASKED_KINDS) -> str:
    """The message without the trigger words of these kinds ("how much is it?" -> " is it?")."""
    text = _normalise(message)
    for kind in kinds:
        text = _PATTERNS[kind].sub(" ", text)
    return text
