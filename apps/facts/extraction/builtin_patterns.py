"""Word tables, regular expressions and phrase helpers of the built-in extractor (builtin.py).

Kept general on purpose: the tables name kinds of things small businesses publish (payment methods,
premises, units), never phrases tuned to one business. The phrase helpers are plain English grammar:
noun phrases and topics, agreement ("is"/"are", "needs"/"need"), pronouns resolved to the business
name, yes/no answers, lists, clauses.
"""

from __future__ import annotations

import calendar
import re
from typing import TYPE_CHECKING

from apps.language.lexicon import word_classes
from apps.language.pipeline import parse
from apps.language.units import unit_name

from .base import topic_key
from .parts import normalise

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

# ----------------------------------------------------------------------------------------------
# Days, months, numbers

DAY_NAMES = tuple(calendar.day_name[number].lower() for number in range(7))

# A single day: full names in any case (optionally plural), abbreviations only capitalised.
DAY_WORD = (
    r"(?:(?i:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
    r"|(?:Mon|Tues?|Weds?|Thu(?:rs?)?|Fri|Sat|Sun)(?:\.|s\b|\b))"
)

MONTHS: dict[str, int] = {}
for _i, _name in enumerate(
    (
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ),
    start=1,
):
    MONTHS[_name] = _i
    MONTHS[_name[:3]] = _i
MONTHS["sept"] = 9
# Capitalised month names (lowercase "may"/"march" are usually verbs).
MONTH_WORD = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)

NUMBER_WORDS: dict[str, int] = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty-eight": 48,
    "twenty-four": 24,
}
NUMBER = r"(?:\d+(?:\.\d+)?|(?i:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|twenty-four|forty-eight))"

# ----------------------------------------------------------------------------------------------
# Money, durations, distances, percentages

DIGITS = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,2})?"
CURRENCY_AMOUNT = rf"[$£€]\s?{DIGITS}(?:\s?[kK]\b)?"
AMOUNT = (
    rf"(?:{CURRENCY_AMOUNT}(?:\s*(?:-|to)\s*[$£€]?\s?{DIGITS})?"
    rf"|{DIGITS}\s?(?:USD|GBP|EUR|dollars|pounds|euros?)\b)"
)
PRICE_UNIT_WORDS = (
    r"hour|hr|day|night|week|month|year|session|class|lesson|person|head|guest|adult|child|kid|visit|"
    r"room|mile|km|item|pound|kg|lb|bottle|dog|pet|vehicle|car|bike|group|couple|table|treatment|game"
)
PRICE_RE = re.compile(
    r"(?P<qual>\b(?:(?i:from|starting at|starts at|start at|starting from|as low as|up to|only|just)\s+))?"
    rf"(?P<amt>{AMOUNT})"
    r"(?P<unit>\s*(?:/\s*(?:hr|hour|day|night|week|month|year|person|pp|session|class)\b"
    rf"|\bp/?h\b|\s(?:per|a|an)\s+(?:{PRICE_UNIT_WORDS})s?\b|\sper\s+[a-z]+\b|\s+pp\b))?"
)
# Amounts that are conditions, not prices ("orders over $50", "a minimum spend of £1,500").
CONDITION_BEFORE = re.compile(
    r"(?i)(?:\bover|\babove|\bunder|\bbelow|\bexceeding|\bminimum(?: spend| order)?(?: of)?|\bmin\.?|"
    r"\bspend(?:ing)?|\borders? of|\bmore than|\bless than|\bup to|\bworth)\s*$"
)
FREE_RE = re.compile(r"(?<![-\w])(?i:free)(?![-\w])(?!\s+(?:of|to|from)\b)")
NOT_FREE_BEFORE = re.compile(
    r"(?i)\b(?:feel|toll|hands|duty|tax|gluten|sugar|dairy|nut|fat|alcohol|smoke)[- ]?$"
)

DURATION_UNITS = r"(?:minutes?|mins?|hours?|hrs?|(?:business |working )?days?|weeks?|months?|years?)"
DURATION_RE = re.compile(rf"(?P<num>{NUMBER})(?:\s*-\s*|\s+)(?P<unit>{DURATION_UNITS})\b", re.IGNORECASE)
NOTICE_RE = re.compile(
    rf"(?P<dur>{NUMBER}(?:\s*-\s*|\s+){DURATION_UNITS})(?:'s|')?\s*"
    r"(?P<tail>(?:advance |prior |of )?notice|in advance|ahead(?: of time)?|before(?:hand)?|lead time|prior)\b",
    re.IGNORECASE,
)
DISTANCE_RE = re.compile(
    r"(?P<dist>\d+(?:\.\d+)?\s*(?:-\s*)?(?:miles?|mi\b|kilomet(?:er|re)s?|km\b|kms\b))", re.IGNORECASE
)
PERCENT_RE = re.compile(r"(?P<pct>\d+(?:\.\d+)?\s?%)(?P<off>\s*off\b)?", re.IGNORECASE)

# ----------------------------------------------------------------------------------------------
# Contact details

EMAIL_RE = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
URL_RE = re.compile(r"\b(?:https?://|www\.)[\w.-]+\.[a-z]{2,}(?:/[\w./%-]*)?", re.IGNORECASE)
PHONE_RE = re.compile(r"(?<![\w$£€.,/])(\+?\(?\d[\d\s().-]{5,}\d)(?![\w%]|\.\d)")
STREET_WORDS = (
    r"Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Boulevard|Blvd|Drive|Dr|Way|Place|Pl|Court|Ct|Square|Sq|"
    r"Parkway|Pkwy|Highway|Hwy|Terrace|Close|Crescent|Row|Broadway|Plaza|Circle|Cir|Trail|Walk|Mews|Parade|Hill"
)
ADDRESS_RE = re.compile(
    rf"\b\d{{1,5}}[A-Za-z]?,?\s+(?:[A-Z][\w'.-]*\s+){{0,4}}(?:{STREET_WORDS})\b\.?"
    r"(?:,\s*(?:[A-Z0-9#][\w'#.-]*)(?:\s+(?:[A-Z0-9][\w'.-]*|(?i:floor|suite|unit|level|fl\.?))){0,3})*"
)

# ----------------------------------------------------------------------------------------------
# Word tables

PAYMENT_RE = re.compile(
    r"(?i)\b(?:cash|cards?|credit|debit|visa|master ?card|amex|american express|discover|maestro|"
    r"apple pay|google pay|samsung pay|paypal|venmo|zelle|klarna|afterpay|cheques?|checks?|"
    r"bank transfers?|contactless|e-?transfers?|bitcoin|crypto|vouchers?|card payments?)\b"
)
INSURANCE_RE = re.compile(
    r"(?i)\b(?:insurances?|insurers?|ppo|hmo|medicaid|medicare|aetna|cigna|metlife|delta dental|"
    r"blue cross|blue shield|bcbs|united ?healthcare|humana|guardian|bupa|axa|vitality|"
    r"health plans?|dental plans?|nhs)\b"
)

# Verbs that state what a business offers ("we sell X", "we don't work on X").
OFFER_VERBS = frozenset(
    {
        "offer", "make", "sell", "provide", "have", "stock", "carry", "do", "serve", "bake", "cook", "brew",
        "service", "fix", "repair", "install", "teach", "host", "rent", "hire", "supply", "use", "see", "treat",
        "accept", "take", "feature", "run", "organise", "organize", "cater", "deliver", "ship", "build", "clean",
        "groom", "board", "fit", "design", "print", "paint", "sew", "alter", "tailor", "restore", "buy", "allow",
        "permit", "welcome", "specialise in", "specialize in", "work on", "work with", "cater for", "deal in",
        "deal with", "look after", "care for",
    }
)  # fmt: skip
# Words after an offering verb that are not products ("we have over 15 years of experience").
NOT_OFFERED = {
    "experience",
    "years",
    "passion",
    "pride",
    "fun",
    "customers",
    "clients",
    "love",
    "everything",
    "anything",
    "something",
    "it",
    "them",
    "this",
    "that",
    "more",
    "lots",
    "plenty",
    "questions",
    "you",
    "our best",
    "a team",
    "team",
    "staff",
    "goal",
    "mission",
    "way",
    "time",
}

DETERMINERS = {
    "a",
    "an",
    "the",
    "our",
    "your",
    "all",
    "any",
    "some",
    "most",
    "every",
    "each",
    "these",
    "those",
    "this",
    "that",
    "its",
    "their",
    "my",
    "his",
    "her",
    "own",
    "both",
    "various",
    "many",
    "several",
    "other",
}
PUFFERY = {
    "famous",
    "delicious",
    "tasty",
    "amazing",
    "popular",
    "signature",
    "world-famous",
    "award-winning",
    "legendary",
    "finest",
    "lovely",
    "beautiful",
    "wonderful",
    "standard",
    "usual",
    "normal",
    "great",
    "fantastic",
    "gorgeous",
    "yummy",
}
# Trailing nouns that name a portion of a product, not the product ("sourdough loaf" -> "Sourdough").
UNIT_NOUNS = {
    "loaf",
    "loaves",
    "slice",
    "slices",
    "piece",
    "pieces",
    "portion",
    "portions",
    "serving",
    "servings",
}
# Words that name the business itself or its premises, never a topic of their own.
PREMISES = {
    "office",
    "shop",
    "store",
    "studio",
    "salon",
    "clinic",
    "bakery",
    "restaurant",
    "cafe",
    "café",
    "practice",
    "surgery",
    "premises",
    "business",
    "showroom",
    "gym",
    "spa",
    "hotel",
    "property",
    "guest house",
    "guesthouse",
    "location",
    "centre",
    "center",
    "garage",
    "workshop",
    "team",
    "staff",
    "company",
    "building",
    "venue",
    "place",
    "site",
    "branch",
    "establishment",
}
PRONOUNS = {"we", "i", "us", "it", "they", "them", "this", "that", "these", "those", "he", "she", "you"}

# Keywords that name a common topic; the topic's canonical name.
TOPIC_ALIASES: dict[str, str] = {
    "delivery": "Delivery",
    "deliveries": "Delivery",
    "deliver": "Delivery",
    "parking": "Parking",
    "park": "Parking",
    "payment": "Payment",
    "payments": "Payment",
    "pay": "Payment",
    "insurance": "Insurance",
    "cancellation": "Cancellations",
    "cancellations": "Cancellations",
    "cancel": "Cancellations",
    "emergency": "Emergency service",
    "emergencies": "Emergency service",
    "accessible": "Accessibility",
    "accessibility": "Accessibility",
    "wheelchair": "Accessibility",
    "pet": "Pets",
    "pets": "Pets",
    "wifi": "Wi-Fi",
    "wi-fi": "Wi-Fi",
    "warranty": "Warranty",
    "guarantee": "Warranty",
    "hours": "Opening hours",
    "shipping": "Shipping",
    "address": "Location",
    "location": "Location",
    "directions": "Location",
    "phone": "Contact",
    "email": "Contact",
    "smoking": "Smoking",
    "smoke": "Smoking",
    "kids": "Children",
    "children": "Children",
    "child": "Children",
}
# Animals: the "Pets" topic when the question is whether they are allowed.
ANIMALS = {"dog", "dogs", "cat", "cats", "puppy", "puppies", "pet", "pets", "animals", "service animals"}
# Modifiers that do not change an alias topic ("free parking", "holiday hours", "late cancellations").
ALIAS_MODIFIERS = {
    "free", "late", "home", "local", "same-day", "next-day", "pickup", "pick-up", "collection", "holiday",
    "opening", "business", "office", "street", "on-site", "onsite", "off-street", "customer", "guest", "online",
    "and", "&", "our", "your", "the", "a", "an", "all", "any", "extended", "regular", "normal", "special",
    "wheelchair", "car", "bicycle", "bike", "visitor", "public", "contact", "email", "phone",
}  # fmt: skip
# Suffix words that do not change an alias topic ("delivery service" -> "Delivery").
ALIAS_SUFFIXES = {
    "service",
    "services",
    "policy",
    "options",
    "option",
    "area",
    "fee",
    "fees",
    "charge",
    "lot",
    "space",
}
# Topics whose price is a fee with its own aspect name.
FEE_ASPECTS: dict[str, str] = {
    "Delivery": "delivery fee",
    "Parking": "parking fee",
    "Cancellations": "cancellation fee",
    "Shipping": "shipping fee",
}
# Verbs of yes/no questions whose topic is the verb's activity ("Do you deliver?" -> "Delivery").
VERB_TOPICS: dict[str, str] = {
    "deliver": "Delivery",
    "ship": "Shipping",
    "cater": "Catering",
    "park": "Parking",
    "pay": "Payment",
    "cancel": "Cancellations",
    "smoke": "Smoking",
    "book": "Booking",
    "check in": "Check-in",
    "check out": "Check-out",
    "install": "Installation",
}

# Sentences that only greet, thank or sell (kept out of the knowledge when they state nothing).
FILLER_START = re.compile(
    r"(?i)^\W*(?:welcome|thanks?\b|thank you|hello|hi\b|hey\b|enjoy|see you|come (?:on )?in|stop by|"
    r"visit us|follow us|like us|check (?:us )?out|don't miss|do not miss|book now|order now|shop now|"
    r"learn more|read more|click|get in touch|we can't wait|we look forward|happy\b|cheers|"
    r"experience the|discover|treat yourself|why not)"
)
SENTIMENT = {
    "love",
    "loves",
    "passion",
    "passionate",
    "best",
    "finest",
    "quality",
    "priority",
    "care",
    "happy",
    "delighted",
    "proud",
    "deserve",
    "deserves",
    "amazing",
    "awesome",
    "fun",
    "flow",
    "dream",
    "dreams",
    "smile",
    "enjoy",
    "perfect",
    "friendly",
    "welcoming",
}

MODALS = {
    "can",
    "cannot",
    "can't",
    "will",
    "won't",
    "may",
    "might",
    "must",
    "should",
    "would",
    "could",
    "shall",
}


def conjugate_3sg(verb: str) -> str:
    """Third person singular of an English verb as "we" or "I" used it ("offer" -> "offers", "carry"
    -> "carries", "have" -> "has"), by lemminflect's tables; a form already inflected for the past or
    the third person stays ("we stopped" -> "stopped", not "stoppeds"). An unknown word takes an "s"."""
    # Lazy: lemminflect imports spaCy's token extensions; the language layer has loaded spaCy already.
    from lemminflect import getAllInflections, getAllLemmas, getInflection

    low = verb.lower()
    if low in MODALS:
        return verb
    lemma = (getAllLemmas(low).get("VERB") or (low,))[0]
    forms = getAllInflections(lemma, upos="VERB")
    inflected = {f for tag in ("VBD", "VBN", "VBG", "VBZ") for f in forms.get(tag, ())}
    if low != lemma and low in inflected and low not in forms.get("VBP", ()):
        return verb
    third = getInflection(lemma, tag="VBZ")
    if not third:
        return verb if low.endswith("s") else verb + "s"
    return verb[:1] + third[0][1:] if verb[:1].isupper() else third[0]


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


# ----------------------------------------------------------------------------------------------
# Phrases: noun phrases, pronouns, agreement, answers


# Typographic quotes and dashes read as their plain forms ("We\u2019re", "7am\u20133pm"), so the
# patterns need to know only one spelling.
TYPOGRAPHY = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-", "\u00a0": " "}
)


PREP_CUT = re.compile(
    r"\s+(?:up to|up until|within|for|from|at|in|on|with|over|under|to|by|during|until|till|if|when|including|except|"
    r"excluding|per|each|via|through|throughout|across|behind|near|upon|after|before|as|so|because|"
    r"plus|but|or else|otherwise|which|that|who|where|every|starting|now|today|only)(?![\w-]).*$",
    re.IGNORECASE,
)  # a hyphen makes the word part of a compound ("after-hours call-out", "in-store"), not a preposition


LEAD = re.compile(
    r"(?i)^\s*(?:(?:yes|yeah|yep|sure|of course|absolutely|no|nope|sorry|unfortunately)\s*[,.!:;-]+|"
    r"(?:also|plus|and|but|so|please note|note|good news|great news|ok|okay|well|however|otherwise)\b)[\s,:;-]*"
)


_DAY_ONLY = re.compile(rf"^(?:(?:every|on|the|all)\s+)?(?:{DAY_WORD}|(?i:week\s?days?|week\s?ends?))$")


def words_of(text: str) -> list[str]:
    return re.findall(r"[\w'&+.-]*\w|\$?\d[\d,.]*", text)


# Words that may close a noun phrase in a question without being part of it ("TVs there", "parking
# available"): the topic is the thing, not where or whether it is.
_TRAILING = {
    "now", "also", "only", "today", "each", "there", "here", "available", "offered", "provided", "anywhere", "along", "online",
}  # fmt: skip


_MEASURE_WORD = re.compile(DURATION_UNITS, re.IGNORECASE)


def clean_np(phrase: str) -> str:
    """A noun phrase as a topic-ready phrase: no determiners, praise, portions, trailing qualifiers."""
    text = re.sub(r"\([^)]*\)", " ", phrase)
    text = re.sub(r"[\"*]", "", text).strip(" ,.;:!?-")
    text = re.sub(r"(?i)^(?:the\s+)?(?:price|cost|prices|costs)\s+(?:of|for)\s+", "", text)
    text = re.sub(r"(?i)^(?:any\s+)?(?:options?|choices?)\s+(?:for|of)\s+(?=\w)", "", text)
    if re.match(
        r"(?i)(?:within|for|from|at|in|on|with|by|until|till|up to|over|under|about|around|through|via|after|"
        r"before|usually|only|please|kindly)\s",
        text,
    ):
        return ""
    text = PREP_CUT.sub("", text)
    words = text.split()
    while words and (
        words[0].lower() in DETERMINERS
        or words[0].lower() in PUFFERY
        or words[0].lower()
        in {"free", "now", "also", "only", "just", "currently", "still", "late", "extra", "available"}
        or re.fullmatch(
            r"[$£€]?\d[\d.,]*%?|one|two|three|four|five|six|seven|eight|nine|ten|several|few",
            words[0].lower(),
        )
        or _DAY_ONLY.match(words[0])
        # a joining mark left first by a day word taken off ("weekend & school holiday price")
        or words[0] in {"&", "+", "/"}
    ):
        if words[0].lower() == "late" and len(words) > 1 and not words[1].lower().startswith("cancel"):
            break
        if len(words) > 1 and (_MEASURE_WORD.fullmatch(words[1]) or unit_name(words[1])):
            # A number that measures, not one that counts: "10 hour block", "30 minute massage", and
            # "30 min" alone (a duration named without its noun), which without it is only a unit.
            break
        words = words[1:]
    words = _without_when_tail(words)
    words = [w for w in words if not _DAY_ONLY.match(w)]
    while len(words) > 1 and words[-1].lower() in UNIT_NOUNS | _TRAILING:
        words = words[:-1]
    if len(words) > 5:
        words = _named_item(" ".join(words)).split() or words[-3:]
    return " ".join(words).strip(" ,.;:-")


def _named_item(phrase: str) -> str:
    """What a long phrase names when it lists details after commas: its first part, a short name
    ("Group courses, 10 weeks, 2 x 90 min per week", "End of lease bond clean, 3 bedroom house, ..."),
    not its last words. "" when the phrase is no such list."""
    first = phrase.split(",", 1)[0].split()
    if "," in phrase and 0 < len(first) <= 5 and any(ch.isalpha() for ch in first[-1]):
        return " ".join(first)
    return ""


_WHEN_JOINERS = {"&", "and", "or", "/", "-", "to", "till", "until", "from"}


def _is_when(word: str) -> bool:
    """A weekday or a clock time ("Fri", "9pm-midnight", "10:30")."""
    low = word.lower().strip(",")
    if _DAY_ONLY.match(word) or low in {"noon", "midday", "midnight"}:
        return True
    return any(c.isdigit() for c in low) and bool(re.search(r"(?:[ap]m|:\d\d)(?:$|-)", low))


def _without_when_tail(words: list[str]) -> list[str]:
    """A phrase's tail of weekdays and clock times says when, not what: "Cosmic bowling Fri & Sat
    9pm-midnight" is "Cosmic bowling"."""
    for index in range(1, len(words)):
        tail = words[index:]
        if _is_when(tail[0]) and all(_is_when(w) or w.lower() in _WHEN_JOINERS for w in tail):
            return words[:index]
    return words


def display_np(phrase: str) -> str:
    """A subject as a statement names it: as written, without leading determiners or praise."""
    text = re.sub(r"\s+", " ", phrase).strip(" ,.;:!?-")
    words = text.split()
    while len(words) > 1 and (words[0].lower() in DETERMINERS or words[0].lower() in PUFFERY):
        words = words[1:]
    return " ".join(words) or clean_np(phrase)


def alias_topic(phrase: str) -> str | None:
    """The canonical topic a phrase names ("our delivery area" -> "Delivery"), if any."""
    words = [w.lower() for w in re.findall(r"[\w'&-]+", phrase)]
    words = [w for w in words if w not in DETERMINERS]
    if not words:
        return None
    if words[-1] in ALIAS_SUFFIXES and len(words) >= 2 and words[-2] in TOPIC_ALIASES:
        words = words[:-1]
    head = words[-1]
    if head in TOPIC_ALIASES and all(w in ALIAS_MODIFIERS or w in TOPIC_ALIASES for w in words[:-1]):
        return TOPIC_ALIASES[head]
    return None


def plural(phrase: str) -> bool:
    if re.search(r"(?i)\s(?:and|&)\s", phrase):
        return True
    last = re.sub(r"\([^)]*\)", "", phrase).split()[-1].lower() if phrase.split() else ""
    return last.endswith("s") and not last.endswith(("ss", "us", "is")) and last not in {"series", "news"}


def be(phrase: str) -> str:
    return "are" if plural(phrase) else "is"


def agree(verb: str, phrase: str) -> str:
    """``verb`` agreeing with ``phrase`` as subject ("need" / "needs")."""
    return verb if plural(phrase) else conjugate_3sg(verb)


def sentence_end(text: str) -> str:
    text = text.strip().rstrip(",;:- ")
    if not text:
        return text
    text = capitalise(text)
    return text if text[-1] in ".!?" else text + "."


def polarity(text: str) -> tuple[str | None, str]:
    """("yes" | "no" | None, the rest) of an answer: "No, sorry." -> ("no", ""); "No pets." -> (None, ...)."""
    pol: str | None = None
    rest = text.strip()
    while True:
        m = _POLARITY_WORD.match(rest)
        if not m:
            break
        word = (m.group(1) or m.group(2) or m.group(3) or m.group(4)).lower()
        if word in {"sorry", "unfortunately", "i'm afraid", "i am afraid"}:
            pol = pol or "no"
        elif word in _NO_WORDS:
            pol = "no"
        else:
            pol = pol or "yes"
        rest = rest[m.end() :]
    if pol is None and (denied := _denying_lead(rest)) is not None:
        pol, rest = "no", denied
    low = rest.lower()
    negative = re.match(
        r"(?:we|i|they|it)\s+(?:don't|do not|can't|cannot|won't|will not|aren't|are not|isn't|is not|"
        r"no longer|doesn't|does not)\b",
        low,
    )
    if negative and pol is None:
        pol = "no"
    elif pol is None and re.match(r"(?:we|i)\s+(?:do|can|will|are|have)\b(?!\s+not)", low):
        pol = "yes"
    if re.fullmatch(
        r"(?i)\W*(?:(?:we|i|it|they)\s+(?:do|can|are|is|will|does|have)(?:\s*not|n't)?|not)?\W*(?:sorry|thanks?|thank you)?\W*",
        rest,
    ):
        rest = ""
    return pol, rest.strip()


def _denying_lead(text: str) -> str | None:
    """The rest of an answer that opens with a short denial set off by a dash or a comma, a phrase of
    a negation and adverbs only ("not anymore - from April it's Mondays", "no longer, ..."), else
    None. Read on the parse: a negation with nothing it negates is the answer's "no"; one that
    negates a thing or a place ("Not a problem", "Not on Sundays") is not."""
    lead, mark, rest = text.partition(" - ") if " - " in text[:30] else text.partition(", ")
    if not mark or not rest or len(lead.split()) > 3:
        return None
    tokens = [t for t in parse(lead) if not t.is_punct]
    if not tokens or any(t.pos_ not in ("PART", "ADV", "DET", "INTJ") for t in tokens):
        return None
    return rest if any(t.dep_ == "neg" or t.lower_ in ("no", "never") for t in tokens) else None


_NO_WORDS = {"no", "nope", "nah", "not at the moment", "not currently", "not yet", "afraid not", "not really"}


_POLARITY_WORD = re.compile(
    r"(?i)^\s*(yes|yeah|yep|yup|sure|of course|absolutely|definitely|certainly|indeed|correct)"
    r"(?:\s*[,.!:;-]+\s*|\s*$|\s+)"
    r"|^\s*(no|nope|not at the moment|not currently|not yet|afraid not|not really)(?:\s*[,.!:;-]+\s*|\s*$|"
    r"\s+(?=(?:we|i|it|they|there|you|that|this|but|sorry|thanks|unfortunately)\b))"
    r"|^\s*(sorry|unfortunately|i'm afraid|i am afraid)\b[\s,.!:;-]*"
    # Particles that are never a determiner, unlike "no" ("no dogs allowed"): "nope delivery is free".
    r"|^\s*(nope|nah|yep|yup)\s+"
)


ADVERBS = r"(?:also|only|now|still|no longer|proudly|happily|currently|even|both|gladly|always|usually|often|sometimes|regularly|really|mainly|mostly|just|already|never)"


_WE_VERB = re.compile(rf"\b([Ww]e|I)\s+((?:{ADVERBS}\s+)*)([a-z][\w'-]*)(\s+and\s+([a-z][\w'-]*))?")


_NOT_VERBS = {
    "a",
    "an",
    "the",
    "all",
    "not",
    "to",
    "at",
    "in",
    "on",
    "for",
    "with",
    "by",
    "from",
    "of",
    "very",
    "so",
}


def possessive(name: str) -> str:
    return name + ("'" if name.endswith("s") else "'s")


def resolve(text: str, business: str, subject: str | None = None) -> str:
    """``text`` rewritten to stand alone: we/our/us/I/this property -> the business, it/they -> subject."""
    t = normalise(text).strip()
    t = LEAD.sub("", t, count=1) if LEAD.match(t) and len(LEAD.sub("", t, count=1)) > 3 else t
    biz = business
    if subject:
        t = re.sub(
            r"^(?:[Ii]t|[Tt]hey|[Tt]hat|[Tt]his)(?:'s|\s+is|\s+are|'re)\b",
            f"{subject} {be(subject)}",
            t,
        )
        t = re.sub(r"^(?:[Ii]t|[Tt]hey)\b", subject, t)
    if re.match(r"(?i)(?:(?:now|also|currently|still)\s+)?(?:open|closed|available|located)\b", t):
        first = t.split(" ", 1)[0]
        lowered = first.lower() if first.isupper() else first[:1].lower() + first[1:]  # "CLOSED:" whole
        t = f"{biz} is {lowered}{t[len(first) :]}"
    t = re.sub(r"\b(?:[Ww]e|I)(?:'re|\s+are|'m|\s+am)\b", f"{biz} is", t)
    t = re.sub(r"\b(?:[Ww]e|I)(?:'ve)\b", f"{biz} has", t)
    t = re.sub(r"\b(?:[Ww]e|I)(?:'ll)\b", f"{biz} will", t)
    t = re.sub(r"\b(?:[Ww]e|I)(?:'d)\b", f"{biz} would", t)
    t = re.sub(r"\b(?:[Ww]e|I)\s+(?:don't|do not)\b", f"{biz} does not", t)
    t = re.sub(r"\b(?:[Ww]e|I)\s+were\b", f"{biz} was", t)
    t = re.sub(
        r"\b(?:[Ww]e|I)\s+(can't|cannot|won't|can|will|may|must|should|would|could|was)\b",
        rf"{biz} \1",
        t,
    )

    def verb(m: re.Match[str]) -> str:
        first = m.group(3)
        if first.lower() in _NOT_VERBS or first.lower() in MODALS:
            return m.group(0)
        out = f"{biz} {m.group(2)}{conjugate_3sg(first)}"
        if m.group(4):
            out += f" and {conjugate_3sg(m.group(5))}"
        return out

    t = _WE_VERB.sub(verb, t)
    t = re.sub(r"\b[Ww]e\b", biz, t)
    t = re.sub(r"\b(?:[Oo]ur|[Mm]y)\b", lambda m: "its" if biz in t[: m.start()] else possessive(biz), t)
    t = re.sub(r"\b(?:us|me)\b", biz, t)
    t = re.sub(r"\b(?:this|the) (?:property|business|establishment|venue|premises)\b", biz, t)
    t = re.sub(rf"^{re.escape(biz)} is {re.escape(biz)}\b", biz, t)
    return sentence_end(t)


PREDICATE = re.compile(
    r"(?i)\b(?:is|are|was|were|will|can|could|must|may|should|costs?|starts?|starting|runs?|requires?|needs?|"
    r"takes?|lasts?|includes?|comes?|has|have|had|gets?|remains?|charged|priced|available|offered|sold|"
    r"provided|served|accepted|allowed|permitted|welcome|included|ready|due|guaranteed|closed|opens?|"
    r"no longer|not|don't|doesn't|do|does|isn't|aren't|out of stock|goes|grew|grown|"
    r"eat|eats|possible|offers?|provides?|sells?|makes?|accepts?|takes?)\b|"
    r"(?:(?<=\bit)|(?<=\bthat)|(?<=\bthis)|(?<=\bthere)|(?<=\bwhat)|(?<=\bhere))(?:'s)\b"
)


CONTEXT_LABEL = re.compile(
    r"(?i)flyer|special|sale|offer|promo|news|update|notice|note|reminder|announcement|^new!?$|today|"
    r"this week|holiday|christmas|easter|summer|winter|spring|autumn|\bfall\b|deal|important|faq|please"
)


_MARKER = re.compile(
    rf"[$£€]\s?\d|\d\s?%|{DURATION_RE.pattern}|\d\s*(?:miles?|km)\b|(?<![-\w])free(?![-\w])",
    re.IGNORECASE,
)


def clauses_of(body: str, offset: int) -> list[tuple[str, int]]:
    """Cut a sentence into clauses, by the shared parse: at ";", at "but" (not "but not", "but
    also"), at "and" joining two statements (the second a verb with a subject of its own, "we repair
    e-bikes, and e-bike diagnostics cost $40", or both sides priced or measured, "Haircut $30 and beard
    trim $15") and at a comma before a pronoun subject ("open daily, we also deliver")."""
    doc = parse(body)
    cuts: list[tuple[int, int]] = []
    for token in doc:
        before_a_subject = token.text == "," and token.i + 1 < len(doc) and _pronoun_subject(doc[token.i + 1])
        if token.text == ";" or before_a_subject:
            cuts.append(_cut_around(body, token, token))
        elif token.lower_ in ("and", "but") and token.i > 0:
            first = doc[token.i - 1] if doc[token.i - 1].text == "," else token
            a, b = _cut_around(body, first, token)
            left, right = body[cuts[-1][1] if cuts else 0 : a], body[b:]
            if _joins_statements(token, left, right):
                cuts.append((a, b))
    pieces: list[tuple[str, int]] = []
    pos = 0
    for a, b in cuts:
        if body[pos:a].strip():
            pieces.append((body[pos:a], offset + pos))
        pos = b
    if body[pos:].strip():
        pieces.append((body[pos:], offset + pos))
    return pieces


def _cut_around(body: str, first: Token, last: Token) -> tuple[int, int]:
    """The characters from ``first`` to ``last`` and the spaces around them."""
    a, b = first.idx, last.idx + len(last.text)
    while a > 0 and body[a - 1].isspace():
        a -= 1
    while b < len(body) and body[b].isspace():
        b += 1
    return a, b


def _pronoun_subject(token: Token) -> bool:
    return (
        token.pos_ == "PRON" and token.dep_ in ("nsubj", "nsubjpass") and token.lower_ in ("we", "it", "they")
    )


def _joins_statements(conjunction: Token, left: str, right: str) -> bool:
    if conjunction.lower_ == "but":
        following = conjunction.nbor(1).lower_ if conjunction.i + 1 < len(conjunction.doc) else ""
        return following not in ("not", "also")
    right_first = right.split(" and ")[0]
    if _MARKER.search(left) and _MARKER.search(right_first):
        return bool(PREDICATE.search(right_first)) or bool(
            re.search(r"[$£€]\s?\d", left) and re.search(r"[$£€]\s?\d", right_first)
        )
    left_has_verb = any(t.pos_ in ("VERB", "AUX") for t in conjunction.doc[: conjunction.i])
    return left_has_verb and _opens_with_subject_and_verb(conjunction.doc[conjunction.i + 1 :])


def _opens_with_subject_and_verb(words: Span) -> bool:
    """Whether words open with a subject (a pronoun or a short noun phrase) and its verb: "roof racks
    cost $60", "we service all brands", not "accessories" or "close at 5" (the first verb's subject).
    A plural noun the tagger took for a noun before an amount is a verb when English has it as one
    ("nail clipping costs £8": lemminflect's tables)."""
    for index, token in enumerate(words[:6]):
        before_amount = index + 1 < len(words) and (words[index + 1].like_num or words[index + 1].tag_ == "$")
        is_verb = token.pos_ in ("VERB", "AUX") or (
            token.tag_ == "NNS" and before_amount and "VERB" in word_classes(token.text)
        )
        if is_verb:
            return index > 0
        if token.pos_ not in ("PRON", "DET", "NOUN", "PROPN", "ADJ", "NUM") and token.text != "-":
            return False
    return False


PASSIVE = re.compile(
    r"(?i)^(?P<obj>[^,;]+?)\s+(?:(?:is|are|'s|will be|can be|will now be)\s+)?(?:(?:now|also|still|only|currently)\s+)*"
    r"(?P<neg>no longer|not|not currently|currently not|never)?\s*"
    r"(?P<part>offered|available|sold out|sold|provided|stocked|served|accepted|allowed|permitted|welcome|"
    r"included|on offer|on sale|in stock|out of stock|possible|supplied)\b(?P<rest>.*)$"
)


AREA = re.compile(
    r"\b(?P<verb>(?i:serve|serves|serving|cover|covers|covering|service|services|servicing|deliver to|delivers to|"
    r"delivering to|travel to|travels to|operate in|operates in|work in|work across|working across|operate across))"
    r"\s+(?:(?i:customers|clients|homes|businesses|all of|the whole of|all)\s+(?:(?i:in|of|across|throughout)\s+)?)?"
    r"(?P<list>(?:the\s+)?[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*)*"
    r"(?:\s*(?:,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*&\s*)(?:the\s+)?[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*)*)*)"
)


FINITE = re.compile(
    r"(?i)\b(?:is|are|was|were|be|been|has|have|had|do|does|did|can|will|may|must|should|would|could|"
    r"need|needs|offer|offers|make|makes|sell|sells|provide|provides|serve|serves|accept|accepts|take|takes|"
    r"run|runs|open|opens|close|closes|include|includes|require|requires|bake|bakes|use|uses)\b|\b\w{3,}ed\b|'s\b|'re\b"
)


PERSON = re.compile(
    r"^(?:(?:Dr|Mr|Mrs|Ms|Miss|Prof|Chef)\.?\s+)?[A-Z][a-z]+(?:\s+[A-Z][a-z]+){1,2}$|^(?:Dr|Mr|Mrs|Ms|Prof)\b"
)


DURATION_KINDS = [
    (r"(?i)\bready\b|turn\s?around|\bcompleted?\b|\bdone\b", "turnaround"),
    (
        r"(?i)\brespon|\bcome out\b|\barrive|\breply|\bget back|\battend|\bon site\b|\bcalls? back",
        "response time",
    ),
    (r"(?i)guarantee|warrant", "warranty period"),
    (r"(?i)\bvalid\b|\bexpire", "validity"),
    (r"(?i)\btakes?\b|\blasts?\b|\blong\b|\bduration\b", "duration"),
]


def lemma_of(word: str) -> str:
    w = word.lower()
    if w in OFFER_VERBS or w in {"has", "does"}:
        return {"has": "have", "does": "do"}.get(w, w)
    for suffix, repl in (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e")):
        if w.endswith(suffix) and w[: -len(suffix)] + repl in OFFER_VERBS:
            return w[: -len(suffix)] + repl
    return w


def split_list(text: str) -> list[str]:
    """Items of "a, b and c" ("new and used bikes" stays one item)."""
    text = text.strip(" .,;:")
    if not text:
        return []
    if "," in text:
        parts = re.split(r"\s*,\s*(?:and\s+|or\s+|&\s*)?|\s+(?:and|or|&)\s+(?=[^,]*$)", text)
    elif re.search(r"\s(?:and|or|&)\s", text):
        left, right = re.split(r"\s+(?:and|or|&)\s+", text, maxsplit=1)
        quantified = re.match(r"(?i)(?:all|most|any|many|both)\s", left)
        if (len(left.split()) == 1 and not plural(left) and not left[:1].isupper()) or quantified:
            parts = [text]
        else:
            parts = [left, *split_list(right)]
    else:
        parts = [text]
    return [p.strip(" .") for p in parts if p.strip(" .")]


def join_list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def price_value(m: re.Match[str]) -> str:
    qual = (m.group("qual") or "").strip().lower()
    amount = re.sub(r"([$£€])\s+", r"\1", m.group("amt").strip())
    unit = re.sub(r"\s+", " ", m.group("unit") or "").strip()
    value = amount
    if qual in {"from", "starting at", "starts at", "start at", "starting from", "as low as"}:
        value = f"from {amount}"
    elif qual == "up to":
        value = f"up to {amount}"
    if unit:
        value += unit if unit.startswith("/") else f" {unit}"
    return value


def duration_value(text: str) -> str:
    return re.sub(r"\s*-\s*|\s+", " ", text).strip()


def statement_aspect(statement: str) -> str:
    text = re.sub(r"[^\w\s%$£€/.:-]", "", statement.lower()).strip(" .")
    return re.sub(r"\s+", " ", text)[:120]


def is_avail(aspect: str) -> bool:
    return aspect.startswith(("availability", "allowed", "included"))


def lower_first(text: str) -> str:
    """Lower-case the first letter of a sentence joined onto another, unless it starts a name."""
    text = text.strip()
    words = re.findall(r"[A-Za-z][\w'-]*", text)
    if not words or not text[:1].isupper() or text.startswith("I ") or re.search(r"[A-Z]", words[0][1:]):
        return text
    if len(words) > 1 and words[1][:1].isupper():
        return text  # "Spoke & Chain Cycles ...", "Dr Lopez ..."
    return text[0].lower() + text[1:]


def full_clause(text: str) -> bool:
    """Whether an answer is a sentence of its own rather than a fragment ("Usually within 2 hours.")."""
    t = text.strip()
    if re.match(
        r"(?i)(?:by|from|at|in|on|for|with|within|about|around|usually|normally|only|just|until|till|up to|"
        r"over|under|any|every|approximately|roughly|through|via|after|before|starting|always|mostly|\d|[$£€])\b",
        t,
    ):
        return False
    if re.match(r"(?i)(?:we|i|they|it|there|our|this|these|that|you)\b", t):
        return True
    return FINITE.search(t) is not None


def mentions_in(phrase: str, text: str) -> bool:
    want = {topic_key(w) for w in re.findall(r"[\w'-]+", phrase.lower()) if len(w) > 2}
    have = {topic_key(w) for w in re.findall(r"[\w'-]+", text.lower())}
    return bool(want & have)


DAY_PHRASE = (
    rf"{DAY_WORD}(?:\s*(?:-|to|through|thru|and|&|,)\s*{DAY_WORD})*|(?i:week\s?days?|week\s?ends?|"
    r"(?:bank |public )?holidays?|every day|daily)"
)


ADVERB_OBJECT = re.compile(
    r"(?i)(?:here|there|online|today|tonight|now|anymore|any more|early|late|it|that|this|them|"
    r"on (?:a |the )?\w+|in \w+|at \w+|after \w+|before \w+)"
)


PRED_WORDS = {
    "free", "allowed", "permitted", "welcome", "included", "available", "open", "closed", "accessible",
    "wheelchair", "required", "necessary", "needed", "compulsory", "mandatory", "refundable", "suitable", "safe",
    "ok", "okay", "gluten-free", "vegan", "vegetarian", "halal", "kosher", "dog-friendly", "pet-friendly",
    "kid-friendly", "child-friendly", "family-friendly", "licensed", "insured", "registered", "certified",
    "accredited", "extra", "still", "currently", "now", "taking", "accepting", "able", "busy", "located", "near",
    "nearby", "close", "far", "provided", "served", "sold", "offered", "covered", "accepted", "taken",
}  # fmt: skip


PARTICLES = {
    "out",
    "up",
    "in",
    "on",
    "for",
    "to",
    "with",
    "at",
    "by",
    "about",
    "over",
    "off",
    "back",
    "down",
    "away",
}


def split_verb(vp: str) -> tuple[str, str]:
    """("check in", "early") for "check in early"; ("make", "wedding cakes") for "make wedding cakes"."""
    words = vp.split()
    if not words:
        return "", ""
    verb = words[0].lower()
    rest = words[1:]
    if rest:
        two = f"{verb} {rest[0].lower()}"
        if two in OFFER_VERBS or two in VERB_TOPICS or _is_particle(words[0], rest[0], " ".join(rest[1:])):
            verb, rest = two, rest[1:]
    # Coordinated verbs share the object: "cancel or change my order", "pick up and deliver bikes",
    # "buy or trade in used bikes" (the object is "my order", not "or change my order").
    k = 1 if rest and rest[0].lower() in _VERB_PARTICLES and len(verb.split()) == 1 else 0
    if len(rest) > k + 1 and rest[k].lower() in {"and", "or"} and rest[k + 1].lower() not in DETERMINERS:
        tail = rest[k + 2 :]
        k2 = 1 if tail and tail[0].lower() in _VERB_PARTICLES else 0
        verb = " ".join([verb, *[w.lower() for w in rest[: k + 2]], *[w.lower() for w in tail[:k2]]])
        rest = tail[k2:]
    return verb, " ".join(rest)


_VERB_PARTICLES = {"up", "in", "out", "off", "over", "back", "down", "away"}


def _is_particle(verb: str, word: str, rest: str) -> bool:
    """Whether ``word`` is the particle of a phrasal verb ("pick up dogs", "drop off bikes"), by the
    parser: a particle belongs to the verb, not to the object's name (the topic was "Up dogs")."""
    # Lazy: the language layer loads spaCy on first use; this module is imported without it.
    from apps.language.pipeline import parse

    doc = parse(f"we {verb} {word} {rest}".strip())
    return len(doc) > 2 and doc[2].dep_ == "prt"


_MONTH = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)"
)
# A named or seasonal period that qualifies opening hours without dates a calendar can place ("from
# November through February", "in winter", "on Valentine's Day", "holiday hours"). Hours given for such
# a period are kept as one fact about that period: split into per-day hours, "closed on Sundays" (in
# winter) would replace the regular Sunday hours.
PERIOD = re.compile(
    rf"(?i)\b(?:(?:from|between)\s+(?:early\s+|late\s+|mid-?)?(?P<m1>{_MONTH})\s+(?:through|to|until|till|and|-)\s+"
    rf"(?:early\s+|late\s+|mid-?)?(?P<m2>{_MONTH})|(?P<season>winter|summer|spring|autumn|fall|off-?season|high season|"
    r"peak season|school holidays?|holiday season|festive season)|(?P<named>christmas(?: eve| day)?|easter|"
    r"thanksgiving|new year'?s(?: eve| day)?|valentine'?s(?: day)?|mother'?s day|father'?s day|boxing day|"
    r"halloween|black friday|ramadan|eid|diwali|hanukkah|labou?r day|memorial day|independence day)|"
    r"(?P<holidays>(?:bank |public |federal |national )?holidays?))\b"
)


def period_of(text: str) -> str | None:
    """The period a text's hours are for ("november-february", "winter", "valentine's day",
    "holidays"), or None."""
    m = PERIOD.search(text)
    if not m:
        return None
    if m.group("m1"):
        return f"{m.group('m1').lower()[:3]}-{m.group('m2').lower()[:3]}"
    if m.group("holidays"):
        return "holidays"
    return (m.group("season") or m.group("named")).lower().replace("\u2019", "'")


# Phrasal verbs used as nouns ("the check in time", "what time is check out", "a drop off area"): joined
# with a hyphen, so that the particle is not read as a preposition and the topic is "Check-in", not
# "Check". Only where a verb cannot stand: after a determiner, "is"/"for"/"early"..., or before a head
# noun ("check in time"); "Can I check in early?" keeps its verb.
_COMPOUND_VERBS = r"check|pick|drop|walk|sign|log|take|carry|roll"
_COMPOUND_NOUN = re.compile(
    rf"(?i)\b(?P<pre>(?:the|your|their|its|a|an|any|no|is|are|for|about|early|late|express|online)\s+)"
    rf"(?P<v>{_COMPOUND_VERBS})\s+(?P<p>in|out|up|off|away|over)\b"
    rf"(?!\s+(?:the|my|our|your|a|an|it|them|me|us)\b)"
    rf"|\b(?P<v2>{_COMPOUND_VERBS})\s+(?P<p2>in|out|up|off|away)\s+(?=(?:times?|polic(?:y|ies)|age|dates?|"
    rf"hours|desk|process|fees?|charges?|service|options?|orders?|menu|locations?|points?|areas?|window|"
    rf"deadline|counter|procedure|requirements?|instructions|is|are|starts|begins|ends|opens|closes|runs)\b)"
)


def join_compound_nouns(text: str) -> str:
    """ "What is the check in time?" -> "What is the check-in time?"."""

    def joined(m: re.Match[str]) -> str:
        if m.group("v"):
            return f"{m.group('pre')}{m.group('v')}-{m.group('p')}"
        return f"{m.group('v2')}-{m.group('p2')} "

    return _COMPOUND_NOUN.sub(joined, text)


def gerund(verb: str) -> str:
    if re.fullmatch(r"[^aeiou][aeiou][bdgmnprt]", verb):  # "get" -> "getting", "run" -> "running"
        return verb + verb[-1] + "ing"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
        return verb[:-1] + "ing"
    return verb + "ing"


def object_phrase(text: str) -> str:
    """The thing a verb phrase or question is about ("come out for an emergency" -> "emergency")."""
    words = re.findall(r"[\w'&-]+", text)
    for w in words:
        if w.lower() in TOPIC_ALIASES and w.lower() not in {
            "hours",
            "pay",
            "park",
            "cancel",
            "deliver",
            "smoke",
        }:
            return w
    skip = _STOPWORDS | PARTICLES
    k = 0
    while k < len(words) and (words[k].lower() in skip or k == 0):
        k += 1
    return clean_np(" ".join(words[k:]))


_STOPWORDS = {
    "what", "which", "who", "when", "where", "why", "how", "do", "does", "did", "is", "are", "can", "could",
    "will", "would", "you", "your", "i", "my", "we", "our", "the", "a", "an", "there", "it", "to", "of", "much",
    "many", "long", "far", "quickly", "soon", "should", "may",
}  # fmt: skip


def drop_stopwords(text: str) -> str:
    return " ".join(w for w in re.findall(r"[\w'&-]+", text) if w.lower() not in _STOPWORDS)
