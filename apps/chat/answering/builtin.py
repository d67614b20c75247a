"""The built-in answerer: replies from the retrieved facts in plain sentences, with no model.

It is the default when no language model is configured and what CI runs, so it has to be right rather
than eloquent. Everything it says is one of:

- a fact's statement, copied (numbers, names and terms exactly as stored), with the fact's own dates
  ("Until 24 December 2026, ...", "Usually, and again from 25 December 2026, ...");
- a "Yes —" / "No —" / "No," in front of a statement, only where the statement settles the question with
  near certainty (seed 000, 3.3: inference is forbidden when storing and allowed when answering only
  with near certainty): a day outside a stated set of opening days, a time outside stated hours, an
  offering or payment the fact names or explicitly rules out;
- the fixed unknown wording from base.py, alone or after the related facts ("We accept Visa and cash.
  Sunny Bakery hasn't said whether Amex is accepted, so I've passed your question on to them.").

Lists are not taken as exhaustive: "We accept Visa and cash" does not mean "no Amex", and "we sell Trek
and Specialized" does not mean "no Cannondale". Only a list marked exclusive ("cash only") or an explicit
exception ("all major cards except American Express") gives a "No". Such a question gets the decision
"unknown": the visitor's actual question is unanswered, so the service records it for the owner, and
the reply still carries the related facts.

How facts are picked: word overlap between the question and each fact (stemmed, compound-aware,
weighted by how rare the word is among the facts handed over), plus the kind of fact the question asks
for (price, hours, distance, notice, payment, contact...). The answerer never sees the fact table, only
the topic documents retrieval kept for the question's date, so retired and expired facts cannot appear.
"""

from __future__ import annotations

import calendar
import itertools
import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any

from apps.chat.answering.base import (
    Answer,
    AnswerStream,
    RetrievalHints,
    chunk_text,
    partial_unknown_reply,
    unknown_reply,
)
from apps.facts.models import SourceKind
from apps.facts.subjects import SimilarityProvider, compare_many, similarity_provider
from apps.facts.subjects import analyse as subject_phrase
from apps.language.ages import age_ranges, minimum_age, stated_age, stated_age_words
from apps.language.analysis import Analysis, Sentence, Token, analyse
from apps.language.conditions import Bound, bounds, fit
from apps.language.contractions import with_apostrophes
from apps.language.dates import date_words, weekday_number
from apps.language.holiday_names import mentions_holiday
from apps.language.lexicon import (
    THING_FILES,
    co_hyponyms,
    counts_beings,
    kind_of,
    lexical_file,
    names_time_off,
    one_of_a_kind,
    same_sense,
    sense_mates,
    separate_kinds,
    verb_mates,
    verb_senses,
    word_classes,
)
from apps.language.scales import price_of, size_of, superlative
from apps.language.shorthand import written_out
from apps.language.spelling import Speller
from apps.language.units import (
    canonical_measures,
    canonical_units,
    convert,
    measures_time,
    same_dimension,
    unit_name,
)
from apps.language.words import american, without_notes, word_key
from apps.retrieval.kinds import TIME_LIMITED_KIND, kind_of_fact

if TYPE_CHECKING:
    from apps.facts.selectors import RenderedFact, RenderedTopic

# --- words ----------------------------------------------------------------------------------------------


def _words(text: str) -> frozenset[str]:
    """A vocabulary written as words separated by whitespace (long lists read best that way)."""
    return frozenset(text.split())


_STOP = _words(
    """
    a an the and or but if of to in on at by for from with about into onto as than then so too also very
    just really please any some all each every this that these those there here it its it's is are am was
    were be been being do does did doing done have has had having can could will would shall should may
    might must i me my mine we us our ours you your yours u ur he she they them their his her what which
    who whom whose when where why how hi hello hey thanks thank ok okay yes no not get got go going come
    need needs want wants like know tell let lets give still ever else something anything one ones way
    much many more most lot lots kind sort thing things able possible s t d ll re ve m im youre
    """
)
_AUX = {
    "do", "does", "did", "are", "is", "am", "can", "could", "will", "would", "have", "has", "may", "should",
    "was", "were", "shall", "might", "must", "dont", "doesnt", "arent", "isnt", "cant", "wont",
}  # fmt: skip
_WH_WORDS = {"what", "whats", "how", "when", "where", "which", "who", "why"}
_LEAD_FILLER = {
    "and", "so", "also", "hi", "hello", "hey", "ok", "okay", "please", "but", "then", "um", "well", "oh",
    "great", "thanks", "cool", "quick", "question",
}  # fmt: skip
_SUBJECTS = {"you", "u", "ya", "yall", "i", "we", "they", "it", "there", "she", "he"}
_ADVERBS = {"still", "also", "ever", "actually", "currently", "even", "really", "usually", "normally", "guys"}
_DETERMINERS = _words("a an the any some my your our their this that these those")
_PREPOSITIONS = _words("to in on at for with from by into near around after before")
_TRAILING = _words("here there too also please anymore now today tomorrow tonight yet")


def stem(word: str) -> str:
    """The key a word meets its other forms on (the language layer's: lemma, derivation, spelling)."""
    return word_key(word)


_PHRASES = [
    (re.compile(r"(?i)\bamerican express\b"), "amex"),
    (re.compile(r"(?i)\bmaster\s?card\b"), "mastercard"),
    (re.compile(r"(?i)\bapple\s?pay\b"), "applepay"),
    (re.compile(r"(?i)\bgoogle\s?pay\b"), "googlepay"),
    (re.compile(r"(?i)\bwork(?:ing)? on\b"), "repair"),
    (re.compile(r"(?i)\bcheck(?:ing)?[\s-]+in\b"), "checkin"),
    (re.compile(r"(?i)\bcheck(?:ing)?[\s-]+out\b"), "checkout"),
    (re.compile(r"(?i)\bwi[\s-]?fi\b"), "wifi"),
    (re.compile(r"(?i)\be[\s-]?bikes?\b"), "ebike"),
    (re.compile(r"(?i)\btune[\s-]?ups?\b"), "tuneup"),
    (re.compile(r"(?i)\bwalk[\s-]?ins?\b"), "walkin"),
    (re.compile(r"(?i)\bx[\s-]?rays?\b"), "xray"),
]


def _canon(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2013", "-").replace("\u2014", "-")
    for pattern, repl in _PHRASES:
        text = pattern.sub(repl, text)
    return text


def _unaccented(text: str) -> str:
    """The text without its accents: visitors type "cafe" for "café", and a word's letters are matched
    as ASCII (an accented letter would otherwise cut the word in two)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def tokens(text: str) -> list[str]:
    """Lowercase words in order, multi-word terms joined ("check-in" -> "checkin", "Apple Pay" -> one)."""
    return re.findall(r"[a-z0-9]+(?:'[a-z]+)?", _canon(_unaccented(text)).lower())


_JOINED = 0.99


def stems_of(text: str) -> dict[str, float]:
    """Content stems with weights: a word 1.0; the parts of a hyphenated word 0.5 (so "gluten-free"
    still meets "gluten free"); two adjacent words joined 0.99 when written apart ("wi fi"): as good as a
    word for matching, but never counted as a word of the question's own (see _subject)."""
    out: dict[str, float] = {}
    # "60 min", "one-hour" and "1 hr" meet as "60 minute"; the units as written stay words too ("an
    # hour's lesson" / "1 hour lesson").
    for canon in dict.fromkeys((canonical_units(text), canonical_measures(text))):
        _add_stems(_canon(_unaccented(canon)).lower(), out)
    return out


def _add_stems(canon: str, out: dict[str, float]) -> None:
    for raw in re.findall(r"\d+(?:[.,:]\d+)*|[a-z0-9]+(?:[-'][a-z0-9]+)*", canon):
        parts = [p for p in re.split(r"[-']", raw) if p]
        whole = "".join(parts) if "-" in raw else raw.split("'")[0]
        if whole not in _STOP:
            out[stem(whole)] = max(out.get(stem(whole), 0.0), 1.0)
        if "-" in raw:
            for p in parts:
                if p not in _STOP and len(p) > 1:
                    out.setdefault(stem(p), 0.5)
    for a, b in itertools.pairwise(re.findall(r"[a-z0-9]+", canon)):
        if a in _STOP:
            continue
        if (a + b).isalpha() and lexical_file(a + b) is not None:
            # A compound the dictionary writes as one noun, written apart ("grown up", "check up",
            # "work out"): that noun is the word asked about ("grownup" is "adult"), its parts half.
            out[stem(a + b)] = 1.0
            for part in (a, b):
                if out.get(stem(part), 0.0) >= 1.0:
                    out[stem(part)] = 0.5
        elif b not in _STOP:
            # In American spelling, as each word is keyed ("colour copy" meets "color copy").
            out.setdefault(stem(american(a) + american(b)), _JOINED)


# --- kinds of fact (concepts) ----------------------------------------------------------------------------

_CONCEPT_WORDS: dict[str, str] = {
    "price": "price cost charge fee rate expensive cheap dollar pound euro quote free discount",
    "hours": "hour open close late early time schedule until am pm noon midnight",
    "days": "day daily weekday weekend monday tuesday wednesday thursday friday saturday sunday",
    "distance": "far distance mile km kilometer radius area within walk minute away zone",
    "leadtime": "notice advance ahead lead",
    "turnaround": "ready turnaround long wait",
    "deliver": "deliver ship courier pickup dropoff",
    "location": "where address locate street st avenue ave road rd find directions suite",
    "phone": "phone call number telephone ring text",
    "email": "email mail write",
    "payment": "pay card credit debit cash visa mastercard amex discover applepay googlepay paypal "
    "venmo contactless check accept",
    "insurance": "insure plan ppo hmo medicaid medicare aetna cigna metlife delta",
    "pet": "pet dog cat puppy animal",
    "child": "child baby toddler infant cot crib",
    "park": "park garage",
    "wifi": "wifi internet wireless",
    "smoke": "smoke vape",
    "booking": "appointment book reserve walkin",
    "cancel": "cancel refund reschedule",
    "discount": "discount sale off deal offer promotion special coupon",
    "food": "breakfast lunch dinner meal food",
    "repair": "repair fix service mend tuneup",
    "rent": "rent hire lease",
}


@cache
def concepts() -> dict[str, frozenset[str]]:
    """The concept words by their keys (computed on first use: keying loads the language tables)."""
    return {name: frozenset(stem(w) for w in words.split()) for name, words in _CONCEPT_WORDS.items()}


# Concepts whose words mean the same thing as each other, so one can stand in for another when deciding
# whether a fact is about exactly what was asked ("dog" is covered by "pets", "fix" by "repair").
_NARROW = {"pet", "child", "wifi", "smoke", "park", "cancel", "repair", "rent", "deliver"}
# Kinds where any fact of the kind is about the question ("a cancellation fee" / "is charged"). Payment,
# insurance, food and the like are deliberately absent: a fact of that kind is a list, and a list that
# does not name the thing asked about says nothing about it.
_BROAD = {"price", "hours", "distance", "leadtime", "turnaround", "location", "phone", "email", "booking"}

_PRICE_RE = re.compile(r"[$£€]\s?\d|\d\s?(?:dollars|euros|pounds)\b|\d+\s?%")
_TIME_RE = re.compile(r"(?i)\b\d{1,2}(?::\d{2})?\s*[ap]\.?\s?m\b|\bnoon\b|\bmidnight\b")
_DIST_RE = re.compile(r"(?i)\b\d+(?:\.\d+)?\s*(?:-\s*)?(?:miles?|mi|km|kilometres?|kilometers?|minutes?)\b")
_PHONE_RE = re.compile(r"\(?\+?\d[\d\s().-]{6,}\d")
_EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_LEAD_RE = re.compile(
    r"(?i)\b\d+\s*(?:hours?|days?|weeks?|months?)\b.*\b(?:notice|advance|ahead)\b|\bnotice\b"
)


def concepts_of(text: str, stems: Iterable[str]) -> set[str]:
    stems = set(stems)
    found = {name for name, words in concepts().items() if words.intersection(stems)}
    if (
        "hours" in found
        and not (concepts()["hours"] - {stem("hour")}) & stems
        and re.search(r"\d\s*hours?\b", text)
    ):
        found.discard("hours")  # "48 hours in advance" is a duration, not opening hours
    if _PRICE_RE.search(text):
        found.add("price")
    if _TIME_RE.search(text):
        found.add("hours")
    if _DIST_RE.search(text):
        found.add("distance")
    if _PHONE_RE.search(text):
        found.add("phone")
    if _EMAIL_RE.search(text):
        found.add("email")
    if _LEAD_RE.search(text):
        found.add("leadtime")
    if re.search(r"\d+\s?%|\boff\b", text, re.I):
        found.add("discount")
    return found


# --- days and times ------------------------------------------------------------------------------------

DAY_NAMES = [calendar.day_name[number] for number in range(7)]
_DAY_WORD = (
    r"(?:mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|weds|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|sat(?:urday)?|"
    r"sun(?:day)?)s?"
)
_RANGE_RE = re.compile(rf"(?i)\b({_DAY_WORD})\s*(?:to|through|thru|till|until|-)\s*({_DAY_WORD})\b")
_SINGLE_RE = re.compile(rf"(?i)\b({_DAY_WORD})\b")
_ALL_DAYS_RE = re.compile(r"(?i)\b(daily|every day|everyday|7 days|seven days|all week|24/7)\b")


def _full_day_word(word: str, original: str) -> bool:
    """Abbreviations count when written like a day ("Sat", "Tue-Sat") or, in lower case, when the
    dictionary has no other word of that form ("tues/thurs", not the words sat/sun/wed)."""
    lowered = word.lower().rstrip("s")
    if lowered in {day.lower() for day in DAY_NAMES}:
        return True
    return original[:1].isupper() or not word_classes(word.lower())


def days_in(text: str) -> set[int]:
    """Every day a piece of text names, ranges expanded ("Tue-Sat", "weekdays", "daily")."""
    found: set[int] = set()
    covered: list[tuple[int, int]] = []
    for m in _RANGE_RE.finditer(text):
        a, b = weekday_number(m.group(1)), weekday_number(m.group(2))
        if a is None or b is None or not (_full_day_word(m.group(1), m.group(1)) or "-" in m.group(0)):
            continue
        i = a
        while True:
            found.add(i)
            if i == b:
                break
            i = (i + 1) % 7
        covered.append(m.span())
    for m in _SINGLE_RE.finditer(text):
        if any(s <= m.start() < e for s, e in covered):
            continue
        idx = weekday_number(m.group(1))
        if idx is not None and _full_day_word(m.group(1), m.group(1)):
            found.add(idx)
    low = text.lower()
    if re.search(r"\bweek\s?days?\b", low):
        found.update(range(5))
    if re.search(r"\bweekends?\b", low):
        found.update({5, 6})
    if _ALL_DAYS_RE.search(text):
        found.update(range(7))
    return found


@dataclass(frozen=True)
class DayClause:
    days: frozenset[int]
    polarity: str  # open | closed | other
    opens: int | None  # minutes after midnight
    closes: int | None


_CLAUSE_SPLIT_RE = re.compile(
    rf"(?i)[;.]\s+|[;.]$|,\s*(?=(?:and\s+)?(?:closed|open|{_DAY_WORD}\b|weekends?|weekdays?|daily|every))"
)
# "7:30", "7.30am" (a dot only before am/pm: "7.30" alone may be a price), "7 pm".
_TIME_ONE = r"(\d{1,2})(?:(?::|\.(?=\d{2}\s?[ap]\.?m))(\d{2}))?\s*([ap])?\.?\s?(m)?\.?"
_TIME_RANGE_RE = re.compile(
    rf"(?i)\b{_TIME_ONE}\s*(?:-|to|until|till)\s*{_TIME_ONE}(?![\d])|\b(noon)\s*(?:-|to|until)\s*{_TIME_ONE}"
)
_UNTIL_RE = re.compile(rf"(?i)\b(?:until|till|til|to)\s+{_TIME_ONE}")
_SINGLE_TIME_RE = re.compile(r"(?i)\b(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?\s?m\b|\b(noon|midnight)\b")


def _minutes(hour: str, minute: str | None, mer: str | None) -> int | None:
    h = int(hour)
    m = int(minute) if minute else 0
    if h > 24 or m > 59:
        return None
    if mer:
        mer = mer.lower()
        if h == 12:
            h = 0 if mer == "a" else 12
        elif mer == "p":
            h += 12
    return h * 60 + m


def parse_time(text: str) -> int | None:
    """The first clock time with am/pm (or noon/midnight) in ``text``, in minutes after midnight."""
    m = _SINGLE_TIME_RE.search(text)
    if m is None:
        return None
    if m.group(4):
        return 12 * 60 if m.group(4).lower() == "noon" else 24 * 60
    return _minutes(m.group(1), m.group(2), m.group(3))


def _range(text: str) -> tuple[int | None, int | None]:
    m = _TIME_RANGE_RE.search(text)
    if m is not None and m.group(9):  # "noon to 4pm"
        close = _minutes(m.group(10), m.group(11), m.group(12))
        return 12 * 60, close
    if m is not None and (m.group(3) or m.group(7)):
        second_mer = m.group(7)
        close = _minutes(m.group(5), m.group(6), second_mer)
        first_mer = m.group(3)
        if first_mer is None and second_mer:
            # "12-4 PM", "10-6pm": the first time shares the meridiem unless that puts it after the
            # second ("10-6pm" is 10 AM).
            opens = _minutes(m.group(1), m.group(2), second_mer)
            if opens is not None and close is not None and opens > close:
                opens = _minutes(m.group(1), m.group(2), "a" if second_mer.lower() == "p" else "p")
        else:
            opens = _minutes(m.group(1), m.group(2), first_mer)
        return opens, close
    if m is not None and m.group(2) and m.group(6):
        # "7:30 - 16:00": a 24-hour clock, when it reads as one (the close after the opening).
        opens, close = _minutes(m.group(1), m.group(2), None), _minutes(m.group(5), m.group(6), None)
        if opens is not None and close is not None and opens < close and max(opens, close) > 12 * 60:
            return opens, close
    until = _UNTIL_RE.search(text)
    if until is not None and until.group(3):
        return None, _minutes(until.group(1), until.group(2), until.group(3))
    return None, None


def _takes_time_off(clause: str) -> bool:
    """Whether a clause with no clock time tells of time away from work, by a noun WordNet files so
    ("taking a break", "on holiday", "annual leave"): with a date, a closure."""
    if not any(ch.isdigit() for ch in clause):
        return False  # no date, no closure to place: the common case, without a parse
    tokens = analyse(clause, base_date=date.min).tokens
    return any(t.pos == "NOUN" and names_time_off(t.lemma) for t in tokens)


def day_clauses(statement: str) -> list[DayClause]:
    """The statement's clauses that say something about opening: which days, open or closed, hours."""
    out = []
    for clause in _CLAUSE_SPLIT_RE.split(statement):
        if not clause or not clause.strip():
            continue
        low = clause.lower()
        days = days_in(clause)
        has_time = bool(_TIME_RE.search(clause)) or bool(
            re.search(r"\b\d{1,2}\s*-\s*\d{1,2}\s*[ap]\.?m", low)
        )
        if re.search(r"\b(closed|shut|not open)\b", low):
            polarity = "closed"
        elif re.search(r"\b(open|hours)\b", low) or has_time:
            polarity = "open"
        elif _takes_time_off(clause):
            polarity = "closed"  # "... is taking a break from Monday 22 December", "on holiday until ..."
        else:
            polarity = "other"
        opens, closes = _range(clause) if has_time else (None, None)
        out.append(DayClause(frozenset(days), polarity, opens, closes))
    return out


# --- the facts as the answerer sees them ----------------------------------------------------------------

_NEG_RE = re.compile(
    r"(?i)\b(not|no|never|none|no longer|cannot|unavailable|discontinued|sold out|n't|nor)\b|n't\b"
)
_EXCEPT_RE = re.compile(r"(?i)\b(except(?: for)?|but not|other than|excluding|apart from|aside from)\b")
# A statement that sets a condition or a requirement answers "can I ...?" only together with it, so it
# gets no "Yes" in front ("Custom cakes require 48 hours in advance" for "a custom cake for tomorrow?").
_COND_RE = re.compile(
    r"(?i)\b(if|when|unless|depending|subject to|upon request|otherwise|after that|up to|only if|require|"
    r"requires|required|need|needs|notice|advance|must|minimum|at least|book ahead|over|under)\b"
)
_EXCLUSIVE_RE = re.compile(r"(?i)\b(only|exclusively|just)\b")
# "Can I just walk in?": a softener after a modal is not "only" (which would ask for an exclusive list).
_SOFTENER_RE = re.compile(
    r"(?i)\b(can|could|may|do|should|would) (i|we|you) (?:just|simply|actually|possibly|maybe)\b"
)
_ACCEPT_VERB_RE = re.compile(r"(?i)\b(accept|accepts|accepted|take|takes|taken|welcome|welcomes|welcomed)\b")
_OFFER_VERB_RE = re.compile(
    r"(?i)\b(sell|sells|make|makes|bake|bakes|offer|offers|provide|provides|have|has|carry|carries|stock|"
    r"stocks|serve|serves|available|do|does|see|sees|service|services|repair|repairs|fix|fixes|rent|"
    r"rents|deliver|delivers|delivery)\b"
)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE_RE = re.compile(
    rf"(?i)\b{_MONTH}\s+\d{{1,2}}\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}|\b\d{{1,2}}/\d{{1,2}}\b"
)
_RELATIVE_RE = re.compile(r"(?i)\b(today|tonight|tomorrow|this (?:week|weekend|month)|during the)\b")

# A stored statement that reads like orders to an assistant came from a planted instruction in a page
# or document (indirect prompt injection). It is knowledge text, so the answerer simply never uses it.
_INSTRUCTION_RE = re.compile(
    r"(?i)\b(ignore|disregard|forget|override|bypass)\b[^.]{0,60}\b(instruction|prompt|rule|previous|above|"
    r"prior|guideline)s?\b|\bsystem prompt\b|\byou are (now|no longer)\b|\b(in|to) your (response|answer|"
    r"reply|output)\b|\b(respond|reply|answer) (only )?with\b|\bnew instructions?\b|\bas an ai\b|"
    r"\b(assistant|chatbot|ai|llm|gpt)\s*[:,]|\bdeveloper mode\b|\bjailbreak|!\[|<\s*script|javascript:|"
    r"\bprint (the|your|all)\b|\brepeat (the|your|after)\b|\bexfiltrat"
)


def looks_like_instruction(statement: str) -> bool:
    return _INSTRUCTION_RE.search(statement) is not None


@dataclass
class _Fact:
    rf: RenderedFact
    topic: str
    order: int
    stems: dict[str, float]
    topic_stems: dict[str, float]
    concepts: set[str]
    clauses: list[DayClause]
    words: list[str] = field(default_factory=list)
    similarity: float = 0.0  # retrieval's similarity of the fact's topic to the question (0: unknown)
    topic_id: int = 0

    @property
    def id(self) -> int:
        return self.rf.id

    @property
    def state(self) -> str:
        return self.rf.state

    @property
    def statement(self) -> str:
        return self.rf.statement

    @property
    def hours_fact(self) -> bool:
        return any(c.polarity in ("open", "closed") for c in self.clauses) and (
            "hours" in self.concepts or "days" in self.concepts or "closed" in self.statement.lower()
        )

    @property
    def open_days(self) -> set[int]:
        return {d for c in self.clauses if c.polarity == "open" for d in c.days}

    @property
    def closed_days(self) -> set[int]:
        return {d for c in self.clauses if c.polarity == "closed" for d in c.days}

    @cached_property
    def weekly_days(self) -> set[int]:
        """The weekdays the statement names as days of the week, not as the day a calendar date falls
        on ("closed from 24 Dec to 2 Jan, back on Monday 3 Jan" names no closed Monday)."""
        if not _DATE_RE.search(self.statement):
            return set(range(7))  # no calendar date to read (most facts): every weekday named counts
        return _weekly_days(self)


_STATE_ORDER = {"temporary": 0, "current": 1, "paused": 2, "upcoming": 3}


def _load(
    context: list[RenderedTopic], similarity: dict[int, float] | None = None, business: str = ""
) -> list[_Fact]:
    facts: list[_Fact] = []
    similarity = similarity or {}
    for topic in context:
        topic_stems = stems_of(topic.name)
        for rf in topic.facts:
            if looks_like_instruction(rf.statement):
                continue
            st = stems_of(_without_name(rf.statement, business))
            facts.append(
                _Fact(
                    rf=rf,
                    topic=topic.name,
                    order=len(facts),
                    stems=st,
                    topic_stems=topic_stems,
                    concepts=_offer_marked(rf, st, concepts_of(rf.statement, st)),
                    clauses=day_clauses(rf.statement),
                    words=tokens(rf.statement),
                    similarity=similarity.get(topic.topic_id, 0.0),
                    topic_id=topic.topic_id,
                )
            )
    return facts


def _offer_marked(rf: RenderedFact, stems: dict[str, float], found: set[str]) -> set[str]:
    """An amount or a free thing in force only for a while is an offer, whatever its words ("SPRING
    FLING, 1-30 September: a free scalp massage with any 60-minute massage" answers "any specials
    on?"). A rule without either ("all rooms are charged at the Fri-Sat rate") is not."""
    if rf.state == "temporary" and (_PRICE_RE.search(rf.statement) or stem("free") in stems):
        return found | {"discount"}
    return found


# --- the question ---------------------------------------------------------------------------------------


@dataclass
class _Question:
    text: str
    stems: dict[str, float]
    concepts: set[str]
    focus: str | None = None
    kind: str = "wh"  # wh | days | time | offer | accept
    days: set[int] = field(default_factory=set)
    now: bool = False
    dated: bool = False  # about a date of its own, whose knowledge the context holds
    period: tuple[date, date] | None = None  # the days a question is about ("on December 26"), if dated
    usual: bool = False
    time: int | None = None
    asks_closed: bool = False
    object_stems: list[str] = field(default_factory=list)
    head: str | None = None
    # What a fact must cover before it can rule the question out: the words of the thing itself (not
    # of a place or time after a preposition) and a specific verb ("smoke" in "Can I smoke outside?").
    required: list[str] = field(default_factory=list)
    verb_stem: str | None = None
    verb_group: str | None = None
    object_text: str = ""
    elliptical: bool = False
    property: bool = False  # "Is the sourdough gluten free?": a thing and what is asked about it
    verb: str | None = None  # the stem of the question's own verb ("stock" in "Do you stock X?")
    modifiers: set[str] = field(default_factory=set)  # stems of words modifying a noun
    numbers: set[str] = field(default_factory=set)  # numbers the question gives, not in a date
    # A verb and the particle right after it ("locked out", "pick up"): stems of the two words.
    particles: list[tuple[str, str]] = field(default_factory=list)
    # Nouns a date makes a time ("morning" in "saturday morning"): when, not what, is asked.
    time_words: set[str] = field(default_factory=set)
    measure_words: set[str] = field(default_factory=set)  # "full hour" of "for a full hour"
    doers: set[str] = field(default_factory=set)  # "someone" of "can someone look at it?": the business
    on: date = date.min  # the day the question is asked


_GENERIC_VERBS = {
    "have", "sell", "make", "bake", "carry", "stock", "offer", "provide", "do", "serve", "get", "got", "see",
    "bring", "buy", "order", "use", "find", "want", "need", "let", "allow", "permit", "treat", "welcome",
}  # fmt: skip


@cache
def _generic_stems() -> frozenset[str]:
    return frozenset(stem(v) for v in _GENERIC_VERBS)


_ACCEPT_VERBS = {"take", "accept", "pay", "use"}
# "Can kids stay?", "Can my dog come?": the verb only asks for permission; the thing is the subject.
_PERMISSION_VERBS = {"stay", "come", "join", "visit", "attend", "go", "sleep", "be", "eat", "live", "play"}
_VERB_GROUP = {
    "fix": "repair", "repair": "repair", "service": "repair", "mend": "repair", "tune": "repair",
    "rent": "rent", "hire": "rent", "lease": "rent", "deliver": "deliver", "ship": "deliver",
    "post": "deliver", "cater": "cater", "install": "install", "smoke": "smoke", "park": "park",
    "book": "booking", "reserve": "booking", "cancel": "cancel", "checkin": "checkin", "checkout": "checkout",
    "stay": "stay", "swim": "swim",
}  # fmt: skip
_OFFER_ADJ = {
    "included", "available", "allowed", "permitted", "possible", "offered", "provided", "accepted", "welcome",
    "ok", "okay", "sold",
}  # fmt: skip


def _focus(text: str) -> str | None:
    low = text.lower()
    if _asks_reduction(text):
        return "discount"
    if set(stems_of(text)) & _lead_cues():
        # "How far ahead do I need to book?", "how much notice?", "in advance?": the notice needed,
        # whatever the degree word ("how far" is otherwise a distance).
        return "leadtime"
    if re.search(
        r"\bhow much\b(?!\s+(?!is\b|are\b|does\b|do\b|for\b|would\b|will\b|to\b|it\b|they\b)[a-z])", low
    ):
        return "price"
    if re.search(r"\b(price|cost|fee|charge|rates?|expensive|cheap)\b|\bpay(?:ing)? for\b", low):
        return "price"  # "do I have to pay for delivery?" asks what it costs, not how to pay
    if re.search(r"\bhow far\b|\bdistance\b|\bradius\b", low):
        return "distance"
    if re.search(r"\bhow long\b|\bturnaround\b|\bready\b", low):  # any length of time
        return "turnaround"
    if re.search(
        r"\bwhat time\b|\bhow late\b|\bhow early\b|\bhours\b|\bwhen\b.*\b(open|close|closing)\b", low
    ):
        return "hours"
    if re.search(r"\bwhere\b|\baddress\b|\blocated\b|\blocation\b|\bdirections\b", low):
        return "location"
    if re.search(r"\b(phone|call|number|telephone)\b", low):
        return "phone"
    if re.search(r"\be-?mail\b", low):
        return "email"
    if re.search(r"\b(pay|payment|card|cards|cash)\b", low):
        return "payment"
    if re.search(r"\bwhen\b", low):
        return "hours"
    if kind_of_fact(text) == TIME_LIMITED_KIND:
        return "discount"  # "any specials on?": what is offered for a while, whatever its words
    return None


_NOMINAL_DEPS = frozenset({"nsubj", "nsubjpass", "dobj", "pobj", "attr"})


def _asks_reduction(text: str) -> bool:
    """Whether a question asks for money off: it names a reduction ("any discounts?", "deals for
    pensioners?", "a coupon?"), as a noun, or asks whether something is cheaper ("is it cheaper if I
    book a block?"), a comparative of a price word."""
    reductions = concepts()["discount"] - {stem("off")}  # "off" alone is "day off", "drop off"
    for t in analyse(text, base_date=date.min).tokens:
        # A noun by its tag or by its role ("a pensioners discount?" tags "discount" a verb, but
        # as the thing there is).
        nominal = t.pos in ("NOUN", "PROPN") or t.dep in _NOMINAL_DEPS
        if nominal and stem(t.lemma) in reductions:
            return True
        if t.tag in ("JJR", "RBR") and stem(t.lemma) in concepts()["price"]:
            return True
    return False


def _condition_stems(text: str) -> set[str]:
    """The stems of a question's condition, the clause opened by "if" or "when" ("is there any
    discount if we all bring our dry cleaning to you?" -> bring, dry, cleaning): what the visitor
    would do, which a fact may say in other words."""
    tokens = analyse(text, base_date=date.min).tokens
    opened = {t.head for t in tokens if t.dep == "mark" and t.lemma in ("if", "when")}
    inside: set[int] = set()
    for t in tokens:
        at, seen = t.i, 0
        while at not in opened and tokens[at].head != at and seen < len(tokens):
            at, seen = tokens[at].head, seen + 1
        if at in opened:
            inside.add(t.i)
    return {s for i in inside for s in stems_of(tokens[i].text)}


_MODIFIER_DEPS = frozenset({"compound", "amod", "nmod"})  # spaCy labels of a noun's modifiers


@cache
def _lead_cues() -> frozenset[str]:
    return concepts()["leadtime"] - {stem("lead")}  # "lead" alone is too many other things


def _without_alternative(text: str, on: date) -> str:
    """A question without the alternative it turns down ("can I hire plastic boxes instead of
    cardboard ones?" -> "can I hire plastic boxes?", "... rather than cash?"): the thing not wanted
    is no part of what is asked, and no fact need name it. The phrase runs from "instead of" or
    "rather than" to the clause's end."""
    tokens = analyse(text, base_date=on).tokens
    for first, second in itertools.pairwise(tokens):
        if (first.lemma, second.lemma) in (("instead", "of"), ("rather", "than")):
            end = next((t.start_char for t in tokens if t.i > second.i and t.is_punct), len(text))
            return f"{text[: first.start_char].rstrip()}{text[end:]}"
    return text


def _analyse(text: str, on: date, business: str = "") -> _Question:
    # "hiya are you open today?": the greeting is no word a fact must share (the language layer's
    # parse finds where the question starts).
    text = text[analyse(text, base_date=on).greeting_end :]
    stems = stems_of(text)
    # Every fact may name the business; its name in a question ("who owns the bakery?") is no match.
    for s in stems_of(business):
        stems.pop(s, None)
    q = _Question(text=text, stems=stems, concepts=concepts_of(text, stems), focus=_focus(text), on=on)
    low = _canon(text).lower()
    q.days = days_in(text)
    # Questions are typed in lowercase: plain day words count there even when abbreviated is ambiguous.
    for m in re.finditer(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b", low):
        q.days.add(DAY_NAMES.index(m.group(1).capitalize()))
    if re.search(r"\b(today|tonight|right now|now|this (morning|afternoon|evening))\b", low):
        q.days.add(on.weekday())
        q.now = True
    if re.search(r"\btomorrow\b", low):
        q.days.add((on + timedelta(days=1)).weekday())
    if re.search(r"\bthis (week|month)\b|\bcurrently\b|\bat the moment\b", low):
        q.now = True
    # A date of its own ("next Monday", "on December 27", "this weekend"; a week at most): its weekdays
    # are the days asked about, and the context was rendered for it, so a closure in force settles it.
    dated = analyse(text, base_date=on)
    weekdays = dated.weekdays_about()
    if weekdays and dated.day_about() not in (None, on):
        q.days |= weekdays
        q.dated = True
    start = dated.day_about()
    if start is not None and dated.dated is not None:
        q.period = (start, dated.dated.end or start)
    clock = {t.i - 1 for t in dated.tokens if t.i and t.text.lower() in ("am", "pm", "a.m.", "p.m.")}
    q.numbers = {
        t.text
        for t in dated.tokens
        if t.text.isdigit()
        and t.i not in clock  # "at 7pm" is a time of day, which q.time holds, not a count
        and not any(m.start_char <= t.start_char < m.end_char for m in dated.dates)
    }
    # The words of a date the question names are its date, not what it is about ("on labour day"
    # is Labor Day, whose facts may spell it otherwise).
    in_date = {
        t.i for t in dated.tokens if any(m.start_char <= t.start_char < m.end_char for m in dated.dates)
    }
    for i in in_date:
        q.stems.pop(stem(dated.tokens[i].text), None)
    q.time_words = {
        dated.tokens[t.head].text.lower()
        for t in dated.tokens
        if t.i in in_date
        and t.dep == "compound"
        and dated.tokens[t.head].pos == "NOUN"
        and lexical_file(dated.tokens[t.head].lemma) == "noun.time"  # "morning", not "class"
    } | {
        # "at the moment", "at present": a point in time the question is asked at, not what it asks for.
        t.text.lower()
        for t in dated.tokens
        if t.dep == "pobj" and dated.tokens[t.head].lemma == "at" and lexical_file(t.lemma) == "noun.time"
    }
    for word in q.time_words:
        q.stems.pop(stem(word), None)
    # "for my 8 year old": the age says who, in numbers a fact's rows are held against; its words
    # ("year", "old") name nothing asked about.
    for word in stated_age_words(text):
        q.stems.pop(stem(word.lower()), None)
    # "can someone look at my plant?", "can anybody come out today?": an indefinite pronoun (the
    # tagger's PRON with a noun's tag) as the one who does it asks for the business, as "you" does.
    q.doers = {
        t.text.lower()
        for t in dated.tokens
        if t.pos == "PRON" and t.tag == "NN" and t.dep == "nsubj" and dated.tokens[t.head].pos == "VERB"
    }
    for word in q.doers:
        q.stems.pop(stem(word), None)
    q.particles = [
        (stem(dated.tokens[t.head].text), t.text.lower())
        for t in dated.tokens
        if t.pos == "ADP" and t.head == t.i - 1 and dated.tokens[t.head].pos == "VERB"
    ]
    # Words that say which one of a kind ("sourdough" bread, "Aetna" insurance, "electric" bike).
    q.modifiers = {
        stem(t.text)
        for t in dated.tokens
        if t.dep in _MODIFIER_DEPS and dated.tokens[t.head].pos in ("NOUN", "PROPN")
    }
    if any(b.measured for b in bounds(dated)):
        # "for a full hour", "60 minutes": a measure the question holds the rows against (decision
        # 0028), not what it is about. Its words still count where a fact shares them ("3 miles").
        for t in dated.tokens:
            if t.pos == "NOUN" and unit_name(t.text):
                q.measure_words.add(stem(t.text))
                if t.i and dated.tokens[t.i - 1].pos == "ADJ":
                    q.measure_words.add(stem(dated.tokens[t.i - 1].text))
    q.usual = re.search(r"\b(usual|usually|normal|normally|regular|regularly|typically)\b", low) is not None
    q.time = parse_time(text)
    # Days and relative times are handled as days, not as words a fact must share.
    for w in _words("monday tuesday wednesday thursday friday saturday sunday weekday weekend"):
        for s in (stem(w), stem(w + "s")):
            q.stems.pop(s, None)
    relative = _words("today tomorrow tonight now month week usual usually normally currently")
    for w in relative:
        q.stems.pop(stem(w), None)
    for t in dated.tokens:  # and what only modifies one of them ("right now", "just now")
        if t.dep == "advmod" and dated.tokens[t.head].text.lower() in relative and t.head != t.i:
            q.stems.pop(stem(t.text), None)
    _classify(q, low, on)
    return q


def _classify(q: _Question, low: str, on: date) -> None:
    words = _question_words(low)
    if not words:
        return
    if words[0] not in _AUX:
        return  # a wh-question or a bare phrase ("sourdough?"): answered by ranking facts
    hours_words = {"open", "opened", "close", "closed", "closing", "opening", "shut"}
    rest = words[1:]
    q.asks_closed = bool({"closed", "close", "shut"} & set(rest)) and "open" not in rest
    content = [w for w in rest if w not in _STOP and w not in _SUBJECTS and not _is_day_word(w)]
    if q.days and (hours_words & set(rest) or not content):
        q.kind = "time" if q.time is not None and hours_words & set(rest) else "days"
        return
    if q.time is not None and hours_words & set(rest):
        q.kind = "time"
        return
    if hours_words & set(rest) and (q.now or not [w for w in content if w not in hours_words]):
        q.days.add(on.weekday())  # "Are you open?" / "Are you open now?": about today
        q.now = True
        q.kind = "days"
        return
    _object(q, rest)


def _question_words(low: str) -> list[str]:
    """The words of the yes/no question a message asks, without the lead fillers: the first part
    ending in "?" that opens with an auxiliary ("do you sell gift cards? its my dads birthday": what
    follows the question says why, not what is asked); else the whole message."""
    found = []
    for part in (p for p in low.split("?") if p.strip()):
        words = re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", part.replace("'", ""))
        while words and words[0] in _LEAD_FILLER:
            words = words[1:]
        found.append(words)
    asking = [w for w in found if w and (w[0] in _AUX or w[0] in _WH_WORDS)]
    if len(found) > 1 and len(asking) == 1 and asking[0][0] in _AUX:
        return asking[0]  # one question among remarks; two questions are read together as before
    return [w for words in found for w in words]


def _is_day_word(word: str) -> bool:
    return bool(
        re.fullmatch(
            r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?|weekends?|weekdays?", word
        )
    )


def _object(q: _Question, rest: list[str]) -> None:
    """Yes/no questions about an offering or an acceptance: the verb and the thing asked about."""
    i = 0
    verb: str | None = None
    adjective: str | None = None
    own_action = bool(rest) and rest[0] in {"i", "we"}
    if rest and (rest[0] in _SUBJECTS or rest[0] in q.doers):
        i = 1
        while i < len(rest) and rest[i] in _ADVERBS:
            i += 1
        if rest[0] != "there" and i < len(rest):
            verb = rest[i]
            i += 1
    else:
        # "Is breakfast included?", "Are pets allowed?": the thing comes first, the adjective after.
        for j, w in enumerate(rest):
            if w in _OFFER_ADJ:
                adjective = w
                rest = rest[:j] + rest[j + 1 :]
                break
        if adjective is None and rest and rest[-1] in _PERMISSION_VERBS:
            rest = rest[:-1]
        # Otherwise a property question ("Is delivery free?", "Is the sourdough gluten free?"): every
        # word of it has to be in one fact before anything is said.
    obj = rest[i:]
    if verb == "pay" and obj and obj[0] in {"with", "by", "using", "in", "via"}:
        obj = obj[1:]
    while obj and obj[-1] in _TRAILING | _STOP and obj[-1] not in _PREPOSITIONS:
        obj = obj[:-1]
    vstem = stem(verb) if verb else None
    accept = (
        (verb in _ACCEPT_VERBS and verb != "use")
        or adjective == "accepted"
        or (verb == "use" and any(stem(w) in concepts()["payment"] for w in obj))
    )
    q.kind = "accept" if accept else "offer"
    if vstem is not None and vstem in concepts()["price"] and obj and obj[0] in _PREPOSITIONS:
        # "Do you charge for delivery?": whether there is a price for it, which its price answers
        # (a fee, or that it is free); not whether "charging" is on offer.
        q.kind = "wh"
        return
    if (
        verb
        and vstem
        and verb not in _GENERIC_VERBS
        and vstem not in _generic_stems()
        and verb not in _ACCEPT_VERBS
    ):
        q.verb_group = _VERB_GROUP.get(vstem, vstem)
    chunk: list[str] = []
    for w in obj:
        if w in _PREPOSITIONS:
            break
        chunk.append(w)
    obj = [w for w in _without_premises(obj, q.text) if w not in q.time_words]
    content = [w for w in obj if w not in _STOP and w not in _DETERMINERS and not _is_day_word(w)]
    content = [w for w in content if w not in _TRAILING]
    q.object_stems = list(dict.fromkeys(stem(w.replace("-", "")) for w in content))
    head_words = [w for w in chunk if w not in _STOP and w not in _DETERMINERS]
    if verb is None and adjective is None and head_words:
        # A property question ("Is the sourdough gluten free?"): the thing is the first word, the rest
        # is what is asked about it.
        q.head = stem(head_words[0].replace("-", ""))
        q.property = True
    elif q.verb_group and own_action:
        q.head = vstem  # "Can I smoke outside?": the visitor's own activity is the thing asked about
    elif head_words:
        q.head = stem(head_words[-1].replace("-", ""))
    elif q.verb_group:
        q.head = vstem
    q.verb_stem = vstem if q.verb_group else None
    q.verb = vstem
    q.required = [
        stem(w.replace("-", "")) for w in head_words if not _is_day_word(w) and w not in _TRAILING
    ] + ([vstem] if q.verb_group and vstem else [])
    shown = [w for w in obj if w not in _DETERMINERS]
    while shown and shown[0] in _PREPOSITIONS:
        shown = shown[1:]
    q.object_text = _echo(q.text, shown)
    if q.verb_group and vstem and vstem not in q.stems:
        q.stems[vstem] = 1.0
    if not q.object_stems and q.verb_group is None:
        q.kind = "wh"


def _without_premises(words: list[str], original: str) -> list[str]:
    """The words without a place named by a common noun after a preposition ("on site", "at the
    venue", "on the premises"): asked of a business, it is the business's own place, which its facts
    do not name ("Small shop at reception ... milk" answers "can I buy milk on site?"). A proper name
    ("deliver to Bramley") and a place with a modifier ("in the back garden") stay what is asked."""
    out: list[str] = []
    for i, w in enumerate(words):
        before = [x for x in words[:i] if x not in _DETERMINERS]
        placed = bool(before) and before[-1] in _PREPOSITIONS and words[i - 1] in _PREPOSITIONS | {"the"}
        named = re.search(rf"\b{re.escape(w)}\b", original) is None  # written with a capital
        last = i + 1 == len(words) or words[i + 1] in _PREPOSITIONS | _STOP
        if placed and not named and last and lexical_file(w) == "noun.location":
            out = out[:-1] if out and out[-1] in _PREPOSITIONS else out
            continue
        out.append(w)
    return out


def _echo(original: str, words: list[str]) -> str:
    """The visitor's words for the thing asked about, in their own spelling, only when short and plain:
    echoing arbitrary visitor text would be an injection channel of its own."""
    if not words or len(words) > 4:
        return ""
    # The words are canonical ("applepay"); let each match the visitor's spelling ("Apple Pay").
    pattern = r"\W+".join(r"[\s-]?".join(re.escape(ch) for ch in w) + "s?" for w in words)
    m = re.search(rf"(?i)\b{pattern}\b", original.replace("\u2019", "'"))
    phrase = m.group(0) if m else " ".join(words)
    if re.fullmatch(r"[A-Za-z0-9&' -]{1,40}", phrase) is None:
        return ""
    return phrase


def _refers_back(text: str, on: date) -> bool:
    """Whether a question names its subject by a pronoun that points back ("does it fit", "how much
    is that", "do they take"): the parser's morphology says which (third person, or demonstrative)."""
    doc = analyse(text, base_date=on).doc
    return any(
        t.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj")
        and (
            (t.pos_ == "PRON" and (t.morph.get("Person") == ["3"] or t.morph.get("PronType") == ["Dem"]))
            # "one" heading a phrase of its own ("what would one cost?", "can I book one?"): the
            # numeral stands for a noun said before.
            or (t.lower_ == "one" and not any(c.dep_ in ("compound", "amod") for c in t.children))
        )
        for t in doc
    )


def _merge_followup(q: _Question, history: list[tuple[str, str]], on: date, business: str) -> _Question:
    """A follow-up that does not say what it is about ("And on Sundays?", "and a full service?") takes
    the previous question's kind and subject, keeping its own words first."""
    previous = next((text for role, text in reversed(history) if role == "user"), None)
    if not previous:
        return q
    low = q.text.lower().strip()
    content = [s for s in q.stems if len(s) > 1]
    starts = re.match(r"^(and|what about|how about|what of|same for|also|or)\b", low) is not None
    refers_back = _refers_back(q.text, on)
    if (
        not starts
        and not refers_back
        and (
            len(content) > 2 or q.kind != "wh" or re.match(r"^\W*(what|how|when|where|which|who|why)\b", low)
        )
    ):
        return q
    prev = _analyse(previous, on, business)
    q.elliptical = True
    if refers_back and not starts:
        # "how many people does it fit?" after "Can I book your back room?": "it" is what the previous
        # question was about, so that is this question's subject; its own form (how many) stays.
        for s in prev.object_stems or [s for s, w in prev.stems.items() if w >= 1.0]:
            if not s[:1].isdigit():
                q.stems[s] = max(q.stems.get(s, 0.0), 1.0)
        q.focus = q.focus or prev.focus
        q.concepts = q.concepts or set(prev.concepts)
        return q
    if q.days and prev.kind in ("days", "time"):
        q.kind = prev.kind
        q.time = q.time if q.time is not None else prev.time
        q.asks_closed = prev.asks_closed
        return q
    if q.focus is None:
        q.focus = prev.focus
    for s, w in prev.stems.items():
        q.stems.setdefault(s, 0.3 * w)
    if q.kind == "wh" and prev.kind in ("offer", "accept") and content:
        q.kind = prev.kind
        q.verb_group = prev.verb_group
        q.object_stems = [s for s in content if s not in {"and", "what", "about"}]
        q.head = q.object_stems[-1] if q.object_stems else None
        q.object_text = _echo(
            q.text, [w for w in re.findall(r"[A-Za-z0-9-]+", q.text) if w.lower() not in _STOP]
        )
    if not q.concepts:
        q.concepts = set(prev.concepts)
    return q


# --- the answer -----------------------------------------------------------------------------------------


@dataclass
class _Reply:
    decision: str
    sentences: list[str]
    used: list[int]
    prefix: str = ""
    closing: str = ""
    flags: tuple[str, ...] = ()


class BuiltinAnswerer:
    """Answers from the rendered facts alone; deterministic, so three runs give identical answers."""

    name = "builtin"

    def stream(
        self,
        *,
        question: str,
        history: list[tuple[str, str]],
        context: list[RenderedTopic],
        business_name: str,
        on: date,
        hints: RetrievalHints | None = None,
    ) -> AnswerStream:
        answer = self.answer(
            question=question,
            history=history,
            context=context,
            business_name=business_name,
            on=on,
            hints=hints,
        )
        return AnswerStream(chunk_text(answer.text), lambda _text: answer)

    def answer(
        self,
        *,
        question: str,
        history: list[tuple[str, str]],
        context: list[RenderedTopic],
        business_name: str,
        on: date,
        hints: RetrievalHints | None = None,
    ) -> Answer:
        hints = hints or RetrievalHints()
        facts = _load(context, hints.similarity, business_name)
        # Retrieval found the facts with the repaired question ("sourdogh" -> "sourdough"): read that
        # form too, or the misspelt word matches nothing in the facts it found. Retrieval repairs only
        # when its own match is weak, and "sourdogh" is close enough to Sourdough in meaning, so a
        # misspelling it did not need to repair is corrected here towards the facts' own words.
        question = with_apostrophes(written_out(question))  # "r u open", "dont you open on sundays"
        asked = _SOFTENER_RE.sub(r"\1 \2", hints.repaired or _spelled(question, context))
        reply, lowercase = _reply(asked, history, facts, hints, business_name, on)
        # Two questions in one message ("Do you cut mounts? What would one cost?"): each is asked in
        # turn, the second after the first, as a visitor asking them one by one would. Taken when the
        # message as a whole settled nothing, or when the parts say all it said and more ("do you do
        # gift vouchers? how long are they valid for": the first alone answered only the first).
        parts = _parts_reply(question, history, facts, hints, context, business_name, on)
        if parts is not None and (
            reply is None
            or reply.decision == "unknown"
            or (parts.decision == "answer" and set(reply.used) < set(parts.used))
        ):
            reply = parts
        if reply is None or reply.decision == "unknown":
            # "We're taking our dog to France - what does the rabies vaccine cost?": the situation
            # told before the question names what no fact needs to name; the question alone is asked.
            asking = _asking_clause(question, on)
            if asking != question:
                alone, words = _reply(_spelled(asking, context), history, facts, hints, business_name, on)
                if alone is not None and alone.decision != "unknown":
                    reply, lowercase = alone, words
        if reply is None or (reply.decision == "unknown" and not reply.sentences):
            return Answer(text=unknown_reply(business_name), decision="unknown", used_fact_ids=[])
        text = _compose(reply, lowercase)
        return Answer(text=text, decision=reply.decision, used_fact_ids=reply.used, flags=reply.flags)


def _reply(
    question: str,
    history: list[tuple[str, str]],
    facts: list[_Fact],
    hints: RetrievalHints,
    business: str,
    on: date,
) -> tuple[_Reply | None, set[str]]:
    """The reply to one question, and the words its facts write in lower case."""
    ended = [f for f in facts if f.state == "ended"]
    facts = [f for f in facts if f.state != "ended"]
    if "instead" in question.lower() or "rather" in question.lower():  # most ask without a parse
        question = _without_alternative(question, on)
    q = _merge_followup(_analyse(question, on, business), history, on, business)
    _fuse_particles(q, facts)
    facts = _meeting_conditions(q, facts, on)
    lowercase = _lowercase_words(facts, question, history)
    reply = _superlative_reply(q, facts) or (_decide(q, facts, business, on) if facts else None)
    if (reply is None or reply.decision == "unknown") and (wider := _with_meaning_mates(q, facts)):
        # Only where the facts' own words settled nothing: a wider word read for the question's
        # ("house" as "home") must not outweigh the facts that say the question's own words.
        reply = _decide(wider, facts, business, on) or reply
    if q.kind in ("offer", "accept") and (reply is None or reply.decision == "unknown"):
        # Nothing settles a yes or no, but a fact may still bear on the question: say it.
        reply = _bearing_reply(question, facts, business, on) or reply
    if reply is None or reply.decision == "unknown":
        # The rules found no wording that settles it; a fact plainly about what was asked still may.
        closest = _closest_fact_reply(q, question, facts, hints.fact_similarity, business, on)
        reply = closest or reply
    if ended:
        reply = _ended_reply(q, facts, ended) or reply
    if reply is not None and reply.used:
        reply = _with_referenced_amounts(reply, facts)
    return reply, lowercase


def _superlative_reply(q: _Question, facts: list[_Fact]) -> _Reply | None:
    """The row a superlative asks for ("the cheapest wash", "your biggest unit", "the most expensive
    groom"): of the facts that state a measure on its scale, those that name the noun ranked (when
    two or more do: "the cheapest thing" ranks every priced row) and any other noun the question names
    ("for a car"), the lowest or highest, with the rows that tie with it."""
    # "the least I can pay": a bare "least" or "most" ranks prices when the question is about paying.
    paying = q.focus in ("price", "payment") or "price" in q.concepts
    asked = superlative(analyse(q.text, base_date=q.on), asks_price=paying)
    if asked is None:
        return None
    measure = price_of if asked.scale == "price" else size_of
    measured = [(m, f) for f in facts if (m := measure(analyse(f.statement, base_date=q.on))) is not None]
    if len(measured) < 2:
        return None  # nothing to rank
    if asked.noun is not None:
        naming = [(m, f) for m, f in measured if _writes(f, asked.noun)]
        # The rows the noun heads ("Folding chair", "Padded chair"), not those it only modifies
        # ("Chair covers"), when two or more are.
        headed = [(m, f) for m, f in naming if stem(subject_phrase(f.topic).head or "") == stem(asked.noun)]
        naming = headed if len(headed) >= 2 else naming
        measured = naming if len(naming) >= 2 else measured
    said = {stem(w) for w in (*asked.words, asked.noun or "") if w}
    # Other things the question names ("for a car") narrow the rows; its verbs ("a key you can copy")
    # say what is done with it, not which one.
    verbs = {stem(t.text.lower()) for t in analyse(q.text, base_date=q.on).tokens if t.pos == "VERB"}
    others = _subject(q) - verbs - said
    narrowed = [(m, f) for m, f in measured if any(s in f.stems or s in f.topic_stems for s in others)]
    measured = narrowed or measured
    pick = min if asked.direction == "low" else max
    best = pick(m for m, _ in measured)
    chosen = [f for m, f in measured if m == best][:3]
    return _Reply("answer", [_sentence(f) for f in chosen], [f.id for f in chosen])


def _writes(f: _Fact, noun: str) -> bool:
    """Whether a fact's statement or topic writes the noun, in any of its forms."""
    key = stem(noun)
    return key in f.stems or key in f.topic_stems


def _ended_reply(q: _Question, facts: list[_Fact], ended: list[_Fact]) -> _Reply | None:
    """What the question asks about is over ("is the summer intensive still on?" a month after it
    ran): the ended fact that matches it best, when it matches at least as well as every fact in force,
    is told with the day it ended. A yes-or-no question in the present is answered "no" (it is not
    on), or "yes" when it asks whether it is over ("is the sale over?"). One asked in the past or the
    perfect ("has the café reopened?" after a closure ended) is told only what ended and when: it may
    ask about the change rather than the thing, and a bare yes or no could answer the wrong one."""
    analysis = analyse(q.text, base_date=q.on)
    past = analysis.past_tense
    if q.kind in ("days", "time") or q.period is not None or (q.focus == "hours" and not past):
        # Whether, or when, it is open today or on the day named: what holds then, and an ended
        # closure holds nothing then.
        return None
    scored = _scores(q, facts + ended)
    over = next((item for item in scored if item[2].state == "ended"), None)
    if over is None or over[1] <= 0:
        return None
    # A tie goes to the ended fact: retrieval hands one over only when the question is clearly closer
    # to it than to every fact in force (search.ended_only_if_asked).
    if any(total > over[0] for total, _, f in scored if f.state != "ended"):
        return None
    f = over[2]
    assert f.rf.valid_to is not None  # an ended fact has its end
    words = {t.text.lower() for t in analysis.tokens}
    perfect = any(t.dep == "aux" and t.lemma == "have" for t in analysis.tokens)
    prefix = ""
    if analysis.form.kind == "yes_no" and words & date_words("completed"):
        prefix = "Yes — "
    elif analysis.form.kind == "yes_no" and not (past or perfect):
        prefix = "No — "  # asked in the present whether it is on: it is not
    over_text = f"{prefix}that is over: it ended on {_fmt(f.rf.valid_to)}."
    return _Reply("answer", [over_text[0].upper() + over_text[1:], _sentence(f)], [f.id])


def _with_referenced_amounts(reply: _Reply, facts: list[_Fact]) -> _Reply:
    """A fact said in the reply that gives its price by reference ("gluten-free rolls, same price
    as the white ones") brings the fact that states the amount it refers to, so the visitor reads the
    figure and not only the comparison."""
    said = {f.id: f for f in facts if f.id in reply.used}
    extra = [
        g for f in said.values() if (g := _referenced_amount(f, facts)) is not None and g.id not in reply.used
    ]
    extra = list({g.id: g for g in extra}.values())
    if not extra:
        return reply
    return replace(
        reply,
        sentences=reply.sentences + [_sentence(g) for g in extra],
        used=reply.used + [g.id for g in extra],
    )


def _referenced_amount(f: _Fact, facts: list[_Fact]) -> _Fact | None:
    """The fact stating the amount a statement refers to instead of stating one: the object of "as"
    after "same" ("same price as the plain ones", "costs the same as the beef one"), read on the
    parse. "ones" and "one" point back to the thing the statement is about (the nearest noun before
    "same"); the fact wanted names that thing, with as many of its qualifiers as can be found, and
    states an amount. None when the statement states an amount of its own or names no such thing."""
    if "same" not in f.statement.lower():
        return None  # the common case, without a parse
    analysis = analyse(f.statement, base_date=f.rf.learned_at.date())
    if analysis.amounts:
        return None
    tokens = analysis.tokens
    for same in (t for t in tokens if t.lemma == "same"):
        holders = {same.i, same.head}
        as_ = next((t for t in tokens if t.lemma == "as" and t.head in holders and t.i > same.i), None)
        target = next((t for t in tokens if as_ is not None and t.head == as_.i and t.dep == "pobj"), None)
        if target is None:
            continue
        thing: Token | None = target
        if target.lemma == "one" or target.pos == "PRON":
            thing = next(
                (t for t in reversed(tokens[: same.i]) if t.pos == "NOUN" and t.dep != "compound"), None
            )
        if thing is None:
            continue
        wanted = {thing.lemma} | {t.lemma for t in tokens if t.head == thing.i and t.dep == "compound"}
        best = _naming_most(f, facts, thing.lemma, wanted)
        if best is not None:
            return best
    return None


def _naming_most(f: _Fact, facts: list[_Fact], head: str, wanted: set[str]) -> _Fact | None:
    """Of the other facts that state an amount and name ``head``, the one naming most of ``wanted``
    (the first of a tie, in the context's order)."""
    best, best_score = None, 0
    for g in _ordered(facts):
        if g.id == f.id or g.state == "upcoming":
            continue
        analysis = analyse(f"{g.topic}. {g.statement}", base_date=g.rf.learned_at.date())
        lemmas = {t.lemma for t in analysis.tokens}
        if head not in lemmas or not analysis.amounts:
            continue
        score = len(wanted & lemmas)
        if score > best_score:
            best, best_score = g, score
    return best


_WH_TAGS = frozenset({"WDT", "WP", "WP$", "WRB"})
_DASHES = frozenset("-\u2013\u2014")


def _clause_break(token: Token, text: str) -> bool:
    """Whether a message's situation can end at this token and its question start after it: a
    sentence's end, a comma or a spaced dash, each followed by a space, or an "or" joining a second
    question ("can i just turn up or do i need to book?"). A hyphen inside a word ("e-bikes") is no
    break: it has no space around it."""
    if token.pos == "CCONJ" and token.lemma == "or":
        return True
    end = token.start_char + len(token.text)
    if not token.is_punct or not text[end : end + 1].isspace():
        return False
    if set(token.text) <= _DASHES:
        return text[token.start_char - 1 : token.start_char].isspace()
    return set(token.text) <= set(".!?;,")


def _asking_clause(question: str, on: date) -> str:
    """The question of a message that tells a situation first ("my cat keeps being sick and youre
    shut today, who do i call??" -> "who do i call??"): from the last piece that opens as a question
    does (a wh-word or an auxiliary, by the tagger) to the end; the message itself when no piece
    before the last opens so, or the message has one piece. Written by hand: no library splits a
    chat message this way."""
    text = question.strip()
    tokens = analyse(text, base_date=on).tokens
    for before, first in reversed(list(itertools.pairwise(tokens))):
        if _clause_break(before, text) and (first.tag in _WH_TAGS or first.pos == "AUX"):
            return text[first.start_char :]
    return question


def _parts_reply(
    question: str,
    history: list[tuple[str, str]],
    facts: list[_Fact],
    hints: RetrievalHints,
    context: list[RenderedTopic],
    business: str,
    on: date,
) -> _Reply | None:
    """The replies to each question of a message that asks two or more (sentences ending in "?"),
    joined: answered where any part is, with the unanswered part's closing after what was found."""
    analysis = analyse(question, base_date=on)
    said = analysis.sentences
    asked = [s.text for s in said if s.text.rstrip().endswith("?")]
    last = said[-1] if said else None
    if asked and last is not None and last.text not in asked and _opens_a_question(last, analysis):
        asked.append(last.text)  # "... vouchers? how long are they valid for": typed without its "?"
    if len(asked) < 2:
        return None
    replies: list[_Reply | None] = []
    before = list(history)
    for part in asked:
        replies.append(_reply(_spelled(part, context), before, facts, hints, business, on)[0])
        before.append(("user", part))
    answered = [r for r in replies if r is not None and r.decision != "unknown"]
    if not answered:
        return None
    sentences: list[str] = []
    used: list[int] = []
    for reply in replies:
        for sentence, fact_id in zip(
            reply.sentences if reply else [], reply.used if reply else [], strict=False
        ):
            if fact_id not in used:
                sentences.append(sentence)
                used.append(fact_id)
    first = replies[0]
    prefix = first.prefix if first is not None and first.decision != "unknown" else ""
    if len(answered) < len(replies):
        closing = partial_unknown_reply(business)
        return _Reply("unknown", sentences, used, prefix=prefix, closing=closing, flags=("partial",))
    return _Reply("answer", sentences, used, prefix=prefix)


def _opens_a_question(sentence: Sentence, analysis: Analysis) -> bool:
    """Whether a sentence opens as a question does: a wh-word ("how long ...") or a verb before its
    subject ("are they ...", "can I ...")."""
    first = next((t for t in analysis.tokens if t.start_char >= sentence.start_char and not t.is_punct), None)
    return first is not None and (first.tag in ("WDT", "WP", "WP$", "WRB") or first.pos == "AUX")


def _fuse_particles(q: _Question, facts: list[_Fact]) -> None:
    """A verb and its particle name what the facts call by one noun ("locked out" / "Home lockout",
    "drop off" / "drop-off times"): where the facts use the joined word, it is the question's word, and
    the verb alone ("lock", which "Lock change" shares) counts only as half a word."""
    vocabulary = {s for f in facts for s in (*f.stems, *f.topic_stems)}
    for verb, particle in q.particles:
        joined = stem(verb + particle)
        if joined in vocabulary:
            q.stems[joined] = 1.0
            for part in (verb, stem(particle)):
                if q.stems.get(part, 0.0) >= 1.0:
                    q.stems[part] = 0.5


#: The least embedding similarity at which a fact's noun of the same WordNet sense stands for the
#: question's ("stroller" / "pushchairs" at 0.29): below it the shared sense is one nobody meant.
SYNONYM_FLOOR = 0.25


def _with_meaning_mates(q: _Question, facts: list[_Fact]) -> _Question | None:
    """A noun the question names and no fact uses, read as the facts' noun for a wider kind of it
    ("at my house" / "1:1 home visit", "rat-proof" / "Rodent exclusion", "my sick tomato plant" /
    "plant doctor"). Two signals, as the subject matcher uses (apps.facts.subjects): WordNet files
    the question's noun, in one of its first senses, as one of the fact noun's (or a kind of it), and
    the embedding puts the two at least at its calibrated threshold, which says they are meant in
    those senses. The embedding alone is not enough: single words of one field sit close ("flea" /
    "dog", "space" / "room"). The closest such noun becomes the question's word; the question's own
    keeps half its weight, as a word the facts do not say. None when no noun is read so."""
    provider = similarity_provider()
    if provider is None or not facts:
        return None
    vocabulary = {s for f in facts for s in (*f.stems, *f.topic_stems)}
    # A part of a compound counts ("rat" of "rat-proof", which keeps half a word's weight).
    # Keyed from the word as written, as the question's stems are: spaCy's lemma may be no word
    # ("cookies" -> "cooky").
    asked = {
        stem(t.text.lower())
        for t in analyse(q.text, base_date=q.on).tokens
        if t.pos in ("NOUN", "PROPN") and q.stems.get(stem(t.text.lower()), 0.0) >= 0.5
    }
    unnamed = [s for s in sorted(asked - vocabulary) if _plain_noun(s) and s not in _generic_ask()]
    if not unnamed:
        return None
    # The facts' words as written, by the stem the question will score them under: the stem of a
    # word may be its synonym's ("holiday" is kept as "vacation"), and WordNet reads the word.
    written = {w.lower(): stem(w.lower()) for f in facts for w in f.words if w.isalpha()}
    nouns = sorted(
        w for w, key in written.items() if key in vocabulary and _plain_noun(w) and key not in _generic_ask()
    )
    q = replace(q, stems=dict(q.stems), required=list(q.required), object_stems=list(q.object_stems))
    changed = False
    kinds: set[str] | None = None  # parsed only once a wider word is found: most questions have none
    for word in unnamed:
        wider = [n for n in nouns if one_of_a_kind(word.lower(), n)]
        # A word of the same sense (a synonym: "eggplant" / "aubergines", "stroller" / "pushchairs")
        # is the thing asked whatever the fact says of it ("Local aubergines"), and needs less of the
        # embedding, which puts one country's word far from another's (0.29-0.46).
        synonyms = {n for n in wider if same_sense(word.lower(), n)}
        if wider and kinds is None and set(wider) - synonyms:
            kinds = _named_kinds(facts, q.on)
        wider = [n for n in wider if n in synonyms or written[n] not in (kinds or set())]
        if not wider:
            continue
        meant = [
            (similarity, noun)
            for similarity, noun in zip(provider.similarities(word.lower(), wider), wider, strict=True)
            if similarity >= provider.threshold or (similarity >= SYNONYM_FLOOR and noun in synonyms)
        ]
        if not meant:
            continue
        _similarity, closest = max(meant)
        mate = written[closest]
        q.stems[word] = 0.5
        q.stems[mate] = max(q.stems.get(mate, 0.0), 1.0)
        q.required = [mate if r == word else r for r in q.required]
        q.object_stems = [mate if o == word else o for o in q.object_stems]
        if q.head == word:
            q.head = mate
        changed = True
    changed = _compound_mates(q, facts, vocabulary, nouns, provider) or changed
    changed = _topic_mates(q, facts, vocabulary) or changed
    return q if changed else None


def _topic_mates(q: _Question, facts: list[_Fact], vocabulary: set[str]) -> bool:
    """A noun phrase of the question that no fact writes, read as a fact's topic when the subject
    matcher (apps.facts.subjects: head nouns, WordNet and the calibrated embedding, the test that
    merges two sources' names for one thing) has them as one subject ("gift cards" / "Gift vouchers",
    "check-up" / "Dental exam"): its head becomes the topic's. ``q`` is changed in place; True when
    a phrase was read so."""
    topics = sorted({f.topic for f in facts})
    changed = False
    for chunk in analyse(q.text, base_date=q.on).noun_chunks:
        head = stem(chunk.head)
        if chunk.is_pronoun or not _plain_noun(chunk.head) or head in _generic_ask():
            continue
        # Said when one fact writes the phrase's words: "gift cards" is not said by "all major cards"
        # beside "Gift vouchers".
        words = [stem(w) for w in chunk.lemma.split() if stem(w) in q.stems]
        if any(all(w in f.stems or w in f.topic_stems for w in words or [head]) for f in facts):
            continue
        matches = compare_many(chunk.lemma, topics)
        found = [(m.similarity or 0.0, t) for m, t in zip(matches, topics, strict=True) if m.same]
        if not found:
            continue
        named = subject_phrase(max(found)[1]).head
        mate = stem(named) if named else ""
        if not mate or mate not in vocabulary:
            continue
        if one_of_a_kind(chunk.head, named) or one_of_a_kind(named, chunk.head):
            continue  # "cupcakes" / "Wedding cakes": one kind of cake says nothing of another

        q.stems[head] = min(q.stems.get(head, 0.5), 0.5)
        q.stems[mate] = 1.0
        q.required = [mate if r == head else r for r in q.required]
        q.object_stems = [mate if o == head else o for o in q.object_stems]
        if q.head == head:
            q.head = mate
        changed = True
    return changed


def _compound_mates(
    q: _Question, facts: list[_Fact], vocabulary: set[str], nouns: list[str], provider: SimilarityProvider
) -> bool:
    """A two-word name of the question that the facts never write, read as a fact's name of the same
    WordNet sense, of one word or two ("parking lot" / "car park", "potato chips" / "crisps"): one
    country's compound against another's. ``q`` is changed in place; True when a name was read so."""
    tokens_ = analyse(q.text, base_date=q.on).tokens
    unsaid = []  # the question's compounds WordNet knows as one noun and the facts never write
    for t in tokens_:
        if t.dep != "compound" or t.head != t.i + 1 or tokens_[t.head].pos != "NOUN":
            continue
        first, head = t.text.lower(), tokens_[t.head].text.lower()
        parts = (stem(first), stem(head))
        joined = stem(american(first) + american(head))
        said = joined in vocabulary or all(p in vocabulary for p in parts)
        if not said and lexical_file(f"{first} {head}") is not None:
            unsaid.append((f"{first} {head}", parts))
    if not unsaid:
        return False
    # The facts' names of two words that WordNet knows as one noun ("car park").
    names = set(nouns) | {
        f"{a} {b}"
        for f in facts
        for a, b in itertools.pairwise(f.words)
        if lexical_file(f"{a} {b}") is not None
    }
    changed = False
    for name, parts in unsaid:
        same = sorted(n for n in names if same_sense(name, n))
        meant = [
            (similarity, n)
            for similarity, n in zip(provider.similarities(name, same), same, strict=True)
            if similarity >= SYNONYM_FLOOR
        ]
        if not meant:
            continue
        a, _, b = max(meant)[1].partition(" ")
        mate = stem(american(a) + american(b)) if b else stem(a)
        for part in parts:
            q.stems[part] = min(q.stems.get(part, 0.5), 0.5)
        q.stems[mate] = 1.0
        q.required = [mate if r == parts[1] else r for r in q.required if r != parts[0]]
        q.object_stems = [mate if o == parts[1] else o for o in q.object_stems if o != parts[0]]
        if q.head in parts:
            q.head = mate
        changed = True
    return changed


def _named_kinds(facts: list[_Fact], on: date) -> set[str]:
    """The stems of nouns a fact qualifies ("Wedding cakes start at $250"): the fact is about that
    kind of cake, which says nothing of another kind ("cupcakes"), though both are cakes."""
    kinds = set()
    for f in facts:
        tokens_ = analyse(f.statement, base_date=on).tokens
        qualified = {c.head for c in tokens_ if c.dep in ("compound", "amod") and c.head != c.i}
        kinds |= {stem(t.lemma) for t in tokens_ if t.pos == "NOUN" and t.i in qualified}
    return kinds


def _plain_noun(word: str) -> bool:
    """A word WordNet has as a noun, other than a day of the week."""
    return (
        word.isalpha()
        and len(word) > 2
        and weekday_number(word.lower()) is None
        and lexical_file(word.lower()) is not None
    )


def _meeting_conditions(q: _Question, facts: list[_Fact], on: date) -> list[_Fact]:
    """The facts without the rows the question's own number, day or time rules out, where another
    fact on the same thing holds for them: "for 6 of us on a Saturday" keeps "5-8 players, Weekend:
    $31" and drops the 2-player and weekday rows; "12 miles away" drops "£5 within 10 miles" for the
    owner's "£8 for 10-15 miles". A fact nothing rules in stays, so a question no row fits loses
    nothing."""
    if stated_age(q.text) is not None:
        return facts  # "my 12 year old": an age, which the age rule reads against minimum ages
    asked = bounds(analyse(q.text, base_date=on))
    if not asked and not q.days and q.time is None:
        return facts
    days = _days_charged_as(q, facts, on)
    verdict = {f.id: _condition_fit(q, asked, f, days) for f in facts}
    fitting = [f for f in facts if verdict[f.id] > 0]
    if not fitting:
        return facts
    subject = _subject(q)

    def words(f: _Fact) -> set[str]:
        return subject & (set(f.stems) | set(f.topic_stems))

    return [
        f
        for f in facts
        if verdict[f.id] >= 0 or not any(g.topic_id == f.topic_id or words(g) & words(f) for g in fitting)
    ]


def _days_charged_as(q: _Question, facts: list[_Fact], on: date) -> set[int]:
    """The days whose rows hold for the question's days: its own, unless a rule in force then, with
    no amount and no opening hours of its own, names other days ("Summer season: all rooms are
    charged at the Fri-Sat rate every night" makes a Wednesday in July a Friday or Saturday)."""
    if not q.days:
        return q.days
    for f in facts:
        if f.state != "temporary" and not _in_season(f, _asked_day(q)):
            continue
        if any(c.polarity in ("open", "closed") for c in f.clauses):
            continue
        if "discount" in f.concepts:
            continue  # an offer names the days it is given on ("10% off any Sunday to Friday")
        analysis = analyse(f.statement, base_date=on)
        named = {d for m in analysis.dates if m.kind == "weekdays" for d in m.weekdays}
        if named and len(named) < 7 and not q.days <= named and not analysis.amounts:
            return named
    return q.days


def _condition_fit(q: _Question, asked: list[Bound], f: _Fact, days: set[int]) -> int:
    """+1 when the fact holds for the question's number, day or time and nothing of it fails; -1 when
    one fails; 0 when the fact sets no condition the question can be held against. Days and times
    count only on a fact with a price or a discount ("daytime, 8am-6pm: £75", "10% off any Sunday
    to Friday"): opening hours are read by the days rules instead."""
    if not any(ch.isdigit() for ch in f.statement):
        return 0  # no number, no amount, no clock time: nothing to hold the question against
    analysis = analyse(f.statement, base_date=f.rf.learned_at.date())
    verdicts = {fit(asked, bounds(analysis))} - {0}
    if analysis.amounts or "discount" in f.concepts:  # a price, or an offer ("10% off Sun-Fri")
        stated_days = days_in(_canon(f.statement))  # _canon: an en dash is a range's dash
        if days and stated_days:
            verdicts.add(1 if days <= stated_days else -1 if not days & stated_days else 0)
        opens, closes = _range(_canon(f.statement))  # _canon: an en dash is a range's dash
        if q.time is not None and opens is not None and closes is not None:
            verdicts.add(1 if opens <= q.time <= closes else -1)
        verdicts.discard(0)
    return -1 if -1 in verdicts else (1 if verdicts else 0)


# spaCy dependency labels of a noun phrase that is what a yes/no question asks about (not its subject).
_OBJECT_DEPS = frozenset({"dobj", "pobj", "attr", "conj", "appos", "oprd", "nsubjpass", "dative"})
_CONTENT_POS = frozenset({"NOUN", "PROPN", "ADJ", "ADV", "VERB"})


def _lemma_keys(lemma: str) -> set[str]:
    """A lemma and its hyphen-free spellings ("walk-in" -> "walk-in", "walkin", "walk", "in")."""
    return {lemma, lemma.replace("-", ""), *lemma.split("-")} - {""}


def _asked_lemmas(question: str, on: date, business: str) -> set[str]:
    """What a yes/no question asks about, on the shared analysis: the lemmas of its object phrases
    (head noun and modifiers: "lymphatic drainage massage" is not any massage, "Specialized bikes"
    not any bike), else its adverbs and adjectives ("stay overnight"), else its subject's head ("can
    my puppy come?"). Words of a date the question names and of the business's name are not part."""
    analysis = analyse(question, base_date=on)
    dated = [(m.start_char, m.end_char) for m in analysis.dates]
    own = {t.lemma for t in analyse(business, base_date=on).tokens} if business else set()

    def content(start: int, end: int) -> set[str]:
        return {
            t.lemma
            for t in analysis.tokens
            if start <= t.start_char < end
            and t.pos in _CONTENT_POS - {"VERB"}
            and not (t.is_stop or t.is_punct or t.like_num)
            and t.lemma not in own
            and not any(a <= t.start_char < b for a, b in dated)
        }

    objects = [c for c in analysis.noun_chunks if c.dep in _OBJECT_DEPS and not c.is_pronoun]
    # The business's own place names nothing asked, unless it is all there is ("collect me from
    # home?": then the place is the visitor's, and it is what is asked about).
    objects = [c for c in objects if not _the_premises(c, analysis)] or objects
    asked = set().union(*(content(c.start_char, c.end_char) for c in objects)) if objects else set()
    if asked:
        return asked
    inside = [(c.start_char, c.end_char) for c in analysis.form.subjects]
    free = {
        t.lemma
        for t in analysis.tokens
        if t.pos in ("ADV", "ADJ")
        and not (t.is_stop or t.is_punct)
        and not any(a <= t.start_char < b for a, b in inside + dated)
    }
    named = {c.head for c in analysis.form.subjects if not c.is_pronoun and c.head not in own}
    if free:
        # "Do kids eat free?" asks it of kids: a fact that something else is free does not bear on it.
        # The asker's own ("can my spaniel stay overnight?") is one of a kind a fact names otherwise.
        theirs = {
            c.head
            for c in analysis.form.subjects
            if any(t.tag == "PRP$" for t in analysis.tokens if c.start_char <= t.start_char < c.end_char)
        }
        return free | (named - theirs)
    return named


def _the_premises(chunk: Any, analysis: Any) -> bool:
    """A place named by a lone common noun after a preposition ("on site", "at the venue"): the
    business's own place, which its facts do not name (decision 0031; ``_without_premises`` reads
    the same on words)."""
    words = [
        t
        for t in analysis.tokens
        if chunk.start_char <= t.start_char < chunk.end_char and t.pos not in ("DET", "PRON")
    ]
    return (
        chunk.dep == "pobj"
        and len(words) == 1
        and words[0].pos == "NOUN"
        and lexical_file(chunk.head) == "noun.location"
    )


def _what_it_does(analysis: Any) -> set[str]:
    """The verb a question asks of a thing ("do loyalty points expire?"): the root verb with no object,
    whose subject is a thing, not a pronoun, a person or an animal ("can my puppy come?" asks whether
    the puppy is welcome, which a fact says in other words), and a specific verb, not a general one
    ("does the bus stop here?"). A fact that bears on it says it too; one that only names the thing
    does not."""
    root = next((t for t in analysis.tokens if t.dep == "ROOT"), None)
    if root is None or root.pos != "VERB":
        return set()
    children = [t for t in analysis.tokens if t.head == root.i and t.i != root.i]
    if any(t.dep in ("dobj", "attr", "acomp", "xcomp", "ccomp") for t in children):
        return set()
    subjects = [t for t in children if t.dep in ("nsubj", "nsubjpass")]
    if len(subjects) != 1 or subjects[0].pos not in ("NOUN", "PROPN"):
        return set()
    if counts_beings(subjects[0].lemma) is not False:
        return set()
    senses = verb_senses(root.lemma)
    return {root.lemma} if senses is not None and senses <= _SPECIFIC_VERB_SENSES else set()


# A verb with at most this many WordNet senses names one happening ("expire" 3, "shrink" 5), which a
# fact on it names too; a more general one ("come" 21, "stop" 11) is said in other words as often.
_SPECIFIC_VERB_SENSES = 6


def _bearing_reply(question: str, facts: list[_Fact], business: str, on: date) -> _Reply | None:
    """The facts that bear on a yes/no question nothing settles (issue 17, item 5: the unknown reply
    only when no kept fact bears on the question): every word of what is asked is in the fact's
    statement or topic, by lemma. Said plainly, without a yes or a no."""
    asked = _asked_lemmas(question, on, business)
    analysis = analyse(question, base_date=on)
    lead = next((t for t in analysis.tokens if not t.is_punct), None)
    if analysis.form.root == "be" or (lead is not None and lead.lemma == "be"):
        # "Is the sourdough gluten free?" asks about its subject: the subject's head must be in the
        # fact too, or any free thing would bear on it.
        asked |= {c.head for c in analysis.form.subjects if not c.is_pronoun and c.head not in ("there",)}
    asked |= _what_it_does(analysis)
    if not asked or not facts:
        return None
    # Each word asked, as the fact may write it: its spellings and its WordNet sense mates ("diaper"
    # / "nappy"), read once for all the facts.
    keys = [_lemma_keys(a) | set(sense_mates(a)) for a in asked]
    bearing = []
    for f in facts:
        if f.state == "upcoming":
            continue
        said = set().union(
            *(
                _lemma_keys(t.lemma)
                for text in (f.statement, f.topic)
                for t in analyse(text, base_date=on).tokens
            )
        )
        if all(k & said for k in keys):
            bearing.append(f)
    if not bearing:
        return None
    picked = bearing[:2]
    return _Reply("answer", [_sentence(f) for f in picked], [f.id for f in picked])


# A fact this close to the question (its own similarity, "topic: statement", with the built-in MiniLM)
# that shares one of the question's content words is about what was asked, where the word rules found
# nothing that settles it ("how long till I get the photos?" / "Edited galleries within 2 weeks").
# Measured on the development scenario files (tests/scenarios, not the held-out folder): the facts that
# answered questions the rules had passed to the owner scored 0.50-0.64; of 22 questions the knowledge
# does not answer, one scored above 0.50 with a shared word (0.54), the others below or sharing none.
_CLOSEST_FACT_SIMILARITY = 0.5
# Facts of the best one's topic this near it are its variants (a lane's price by day): said together.
_CLOSEST_FACT_TIE = 0.03
_CLOSEST_FACT_LIMIT = 3
_CONTENT_LEMMA_POS = frozenset({"NOUN", "PROPN", "ADJ", "VERB", "ADV", "NUM"})


def _without_name(text: str, business: str) -> str:
    """The text with the business's own name taken out: facts are worded in its name ("Spoke and
    Chain Bikes does e-bike repairs"), so its words say nothing about the subject."""
    return re.sub(re.escape(business), " ", text, flags=re.IGNORECASE) if business else text


def _content_lemmas(text: str, on: date, business: str) -> set[str]:
    """The lemmas of a text's content words, outside the business's name."""
    return {
        t.lemma.lower()
        for t in analyse(_without_name(text, business), base_date=on).tokens
        if t.pos in _CONTENT_LEMMA_POS and not (t.is_stop or t.is_punct)
    }


def _names(text: str, on: date, business: str) -> set[str]:
    """The lemmas of the proper nouns of a text, outside its date phrases and the business's name."""
    analysis = analyse(_without_name(text, business), base_date=on)
    dated = [(m.start_char, m.end_char) for m in analysis.dates]
    return {
        t.lemma.lower()
        for t in analysis.tokens
        if t.pos == "PROPN" and not t.is_punct and not any(a <= t.start_char < b for a, b in dated)
    }


def _closest_fact_reply(
    q: _Question, question: str, facts: list[_Fact], similarity: dict[int, float], business: str, on: date
) -> _Reply | None:
    """The fact closest to the question in meaning, said plainly (never with a yes or a no: closeness
    is evidence of the subject, not of the answer), when it is close enough, shares a content word
    with the question and, for a question after a kind of detail (a price, a time), states one."""
    ranked = sorted((f for f in facts if f.id in similarity), key=lambda f: (-similarity[f.id], f.order))
    if not ranked or similarity[ranked[0].id] < _CLOSEST_FACT_SIMILARITY:
        return None
    best, top = ranked[0], similarity[ranked[0].id]
    if q.focus in _FOCUS_LABEL and not (q.focus in best.concepts or _states_kind(best, q)):
        return None
    said = _content_lemmas(f"{best.topic}. {best.statement}", on, business)
    if not _content_lemmas(question, on, business) & said:
        return None
    if not _names(question, on, business) <= said:
        return None  # a name the fact does not mention ("Cannondale bikes") is another thing
    if _another_kind(question, f"{best.topic}. {best.statement}", on) is not None:
        return None
    picked = [
        f
        for f in ranked[:_CLOSEST_FACT_LIMIT]
        if f.topic_id == best.topic_id and top - similarity[f.id] <= _CLOSEST_FACT_TIE
    ]
    picked = _with_reply_rest(picked, facts, sorted(_subject(q)))
    return _Reply("answer", [_sentence(f) for f in picked], [f.id for f in picked], flags=("closest",))


def _things(text: str, on: date) -> dict[str, str]:
    """A text's nouns of things and beings (WordNet's files: no times, acts, fees): lemma -> as written."""
    return {
        t.lemma: t.text
        for t in analyse(text, base_date=on).tokens
        if t.pos == "NOUN" and t.lemma.isalpha() and lexical_file(t.lemma) in THING_FILES
    }


def _another_kind(question: str, fact: str, on: date) -> str | None:
    """The thing the question names, as written, when the fact is about another kind of it: a noun
    of a thing in the question the fact does not say is, in WordNet, a sibling of one it does ("motorbike
    lessons" / "Dual-controlled cars"), and the fact has no wider word that takes the question's in
    ("cello" / "rents violins, no other instruments"). Only a check on closeness: applied to every
    reply, it lost answers whose facts name the thing in kin words ("new learners" / "students",
    "house" / "homes")."""
    said = _things(fact, on)
    for noun, written in _things(question, on).items():
        if noun in said:
            continue
        if any(co_hyponyms(noun, other) for other in said) and not any(
            one_of_a_kind(noun, other, any_sense=True) for other in said
        ):
            return written
    return None


def _spelled(question: str, context: list[RenderedTopic]) -> str:
    """The question with misspelt words corrected towards the words of the facts handed over (the
    language layer's speller: a real English word is never changed)."""
    texts = [t.name for t in context] + [f.statement for t in context for f in t.facts]
    if not texts:
        return question
    return Speller.from_texts(texts).correct(question).text


def _decide(q: _Question, facts: list[_Fact], business: str, on: date) -> _Reply | None:
    aged = _age_reply(q, facts)
    if aged is not None:
        return aged
    if q.kind == "days":
        return _days_reply(q, facts, business, on)
    if q.kind == "time":
        return _time_reply(q, facts, business, on)
    if q.kind in ("offer", "accept") and q.focus != "discount":
        # "Are there any specials on?" asks which offers there are, like "what offers are on?".
        return (
            _reach_reply(q, facts)
            or _closed_that_day(q, facts, business)
            or _trade_off_that_day(q, facts, business)
            or _trade_on_days(q, facts, business, on)
            or _closed_on_days(q, facts)
            or _offer_reply(q, facts, business, on)
        )
    return _wh_reply(q, facts, business)


def _lengths(text: str, on: date) -> list[tuple[str, float]]:
    """Each distance a text gives, in metres, with the word before it ("within", "about"): "5 miles",
    "8km", "2.5 mi" (spaCy splits "8km"; pint converts)."""
    doc = analyse(text, base_date=on).doc
    out = []
    for number, unit in itertools.pairwise(doc):
        name = unit_name(unit.text) if number.like_num else None
        if name is None or not same_dimension(name, "meter"):
            continue
        try:
            metres = convert(float(number.text.replace(",", "")), name, "meter")
        except ValueError:
            continue  # "five" reads as a number to spaCy, not to float
        out.append((doc[number.i - 1].lower_ if number.i else "", metres))
    return out


def _reach_reply(q: _Question, facts: list[_Fact]) -> _Reply | None:
    """A place the question says is a distance away, against a fact that says how far the business
    goes ("do you deliver to Brackley? it's about 5 miles" / "We deliver within 3 miles"): no when it
    is further, yes when it is within. Only a fact that does what the question asks (its verb)."""
    asked = [metres for _before, metres in _lengths(q.text, q.on)]
    if len(asked) != 1 or q.verb_stem is None:
        return None
    for f in _ordered(facts):
        if q.verb_stem not in f.stems:
            continue
        reach = [metres for before, metres in _lengths(f.statement, q.on) if before in ("within", "to")]
        if len(reach) != 1:
            continue
        if asked[0] <= reach[0]:
            return _Reply("answer", [_sentence(f)], [f.id], prefix="Yes — ")
        if _PRICE_RE.search(f.statement) is None:
            # A fact with a price may be a band ("free within 5 miles, £5 beyond"): no "no" from it.
            return _Reply("answer", [_sentence(f)], [f.id], prefix="No — ")
    return None


def _age_reply(q: _Question, facts: list[_Fact]) -> _Reply | None:
    """A question that gives someone's age ("I'm 17, can I get tattooed?") against a fact that sets a
    minimum age ("Must be 18+"): no below it (said plainly when the rule has exceptions), yes at or
    above it. Of several such facts, the one sharing most of the question's other words."""
    age = stated_age(q.text)
    if age is None or q.focus == "price":
        return None  # "my son is 9, how much for his cut?" asks a price, read from the rows by age
    rules = [(rule, f) for f in facts if (rule := minimum_age(f.statement)) is not None]
    if not rules:
        return None
    words = {s for s in q.stems if not s[:1].isdigit()}
    rule, f = max(rules, key=lambda item: (len(words & set(item[1].stems)), -item[1].order))
    if age >= rule.years:
        return _Reply("answer", [_sentence(f)], [f.id], prefix="Yes — ")
    return _Reply("answer", [_sentence(f)], [f.id], prefix="" if rule.conditional else "No — ")


def _idf(facts: list[_Fact]) -> dict[str, float]:
    df: dict[str, int] = {}
    for f in facts:
        for s in set(f.stems) | set(f.topic_stems):
            df[s] = df.get(s, 0) + 1
    n = len(facts)
    return {s: math.log(1 + n / c) for s, c in df.items()}


def _scores(q: _Question, facts: list[_Fact]) -> list[tuple[float, float, _Fact]]:
    """(total score, word score, fact) for facts with anything in common with the question."""
    idf = _idf(facts)
    asked = {s: w for s, w in q.stems.items() if s not in _rate_unit(q.text)}  # "per kg" names nothing
    age = stated_age(q.text)
    out = []
    for f in facts:
        # A row for the age the question gives ("my nan is 72" / "Concession (over 60s)") is about
        # whom it asks, in other words.
        fits = age is not None and any(low <= age <= high for low, high in age_ranges(f.statement))
        words = sum(
            w * idf.get(s, 0.0) * min(1.0, f.stems[s] + 0.5) for s, w in asked.items() if s in f.stems
        )
        topic = 0.5 * sum(
            w * idf.get(s, 0.0) for s, w in asked.items() if s in f.topic_stems and s not in f.stems
        )
        shared = q.concepts & f.concepts
        focus = q.focus is not None and q.focus in f.concepts
        if words + topic <= 0 and not focus and not fits:
            continue
        total = words + topic + 0.5 * len(shared) + (1.0 if focus else 0.0) + (1.0 if fits else 0.0)
        out.append((total, words + topic, f))
    out.sort(key=lambda item: (-item[0], item[2].order))
    return out


def _state_key(q: _Question, f: _Fact) -> int:
    order = _STATE_ORDER.get(f.state, 1)
    if q.usual and f.state == "paused":
        return -1
    return order


def _with_overrides(picked: list[_Fact], facts: list[_Fact]) -> list[_Fact]:
    """A paused fact is only half the truth: whenever one is picked, the temporary fact in force on the
    same topic (the one that pauses it) goes with it, so a usual arrangement is never given alone."""
    out = list(picked)
    for f in picked:
        if f.state == "paused":
            out += [g for g in facts if g.topic == f.topic and g.state == "temporary" and g not in out]
    return out


def _with_in_force(picked: list[_Fact], facts: list[_Fact]) -> list[_Fact]:
    """An upcoming fact is not yet true: whenever one is picked, what is in force on its topic today
    goes with it ("Single lesson: £40." before "From 1 January a single lesson will cost £42.")."""
    out = list(picked)
    for f in picked:
        if f.state == "upcoming":
            out += [
                g
                for g in facts
                if g.topic == f.topic and g.state in ("current", "temporary") and g not in out
            ]
    return out


_FOCUS_LABEL = {
    "price": "the price",
    "hours": "the times",
    "distance": "the distance",
    "leadtime": "how much notice is needed",
    "turnaround": "how long it takes",
    "location": "the address",
    "phone": "a phone number",
    "email": "an email address",
}


def _asked_day(q: _Question) -> date:
    """The day a question is about: its own date, else the day it is asked."""
    return q.period[0] if q.period else q.on


def _wh_reply(q: _Question, facts: list[_Fact], business: str, *, limit: int = 3) -> _Reply | None:
    q = _condition_aside(q, facts)
    candidates = facts
    if q.focus == "hours" or "hours" in q.concepts:
        # The hours of the season the question is about ("Winter hours (Nov-Mar)" not in May).
        candidates = [f for f in facts if not _out_of_season(f, _asked_day(q))] or facts
        if q.period:
            # A day of its own ("this Friday"): a change dated on other days ("Thu Dec 25 & Fri Dec 26:
            # CLOSED") is not that day's hours, though it names its weekday.
            candidates = [f for f in candidates if not _dated_off(f, q.period[0])] or candidates
    if q.days and (q.focus == "hours" or "hours" in q.concepts):
        covering = [
            f
            for f in candidates
            if f.hours_fact and (q.days & (f.open_days | f.closed_days) or _in_force_for_a_while(f, q))
        ]
        if covering:
            candidates = covering
    scored = _for_the_age(q, _scores(q, candidates))
    # A measure's words no fact shares ("full" of "for a full hour") name no subject; shared ones do
    # ("3 miles" / "within 2 miles").
    subject = _subject(q) - {m for m in q.measure_words if not any(m in f.stems for f in facts)}
    if q.focus == "discount" and not _named_by_any(subject, facts):
        # "Is there any discount if we all bring our dry cleaning?": the condition's words name no
        # fact, the reduction is what is asked; the facts that give one answer it.
        subject -= _condition_stems(q.text)
    if not _named_by_any(subject, facts):
        subject -= _people_of_the_age(q, facts)
    if not scored or (
        subject and not any(s in f.stems or s in f.topic_stems for f in facts for s in subject)
    ):
        # No fact shares a word, or the question names something ("How much are cupcakes?") that no
        # fact mentions: facts that only share the kind (other prices) would answer a different
        # question. Unless it names a class of what is accepted ("what file formats do you take?"):
        # the facts saying what is accepted name its members ("accepts PDF").
        accepted = _accepted(q, facts)
        if accepted:
            return _Reply("answer", [_sentence(f) for f in accepted], [f.id for f in accepted])
        return None
    best_total = scored[0][0]
    best_words = max(w for _t, w, _f in scored)
    # When some fact shares words with the question, a fact that only shares the kind ("hours") is
    # about something else ("Check-out is by 11am" for "What time is check-in?").
    # A question that names nothing but the kind of detail it wants ("Where is your shop?": "shop" is
    # any business's word) is answered by that kind, whatever else shares its words.
    kind_only = not subject and q.focus is not None
    picked = [
        f
        for total, words, f in scored
        if (kind_only and q.focus in f.concepts)
        or (total >= 0.6 * best_total and (best_words <= 0 or words >= 0.35 * best_words))
    ][:limit]
    # A number the question gives says which one too ("45 min lesson" among 30/45/60-minute ones),
    # unless it is part of a date ("if I enrol on September 10").
    picked = _bearing(subject | q.numbers, q.modifiers | q.numbers, picked, facts)
    if q.focus and any(q.focus in f.concepts for f in picked):
        # The kind of fact asked for wins over facts that merely share a word ("How far do you
        # deliver?" wants the radius, not the fee).
        picked = [f for f in picked if q.focus in f.concepts]
    elif q.focus and (shown := [f for f in picked if _states_kind(f, q)]):
        picked = shown
    elif q.focus in _FOCUS_LABEL:
        # Facts about the thing, none of the kind asked for ("How much is a cleaning?" against "We
        # provide cleanings, ..."): worth giving, but the question itself is unanswered.
        picked = picked[:1]
        return _Reply(
            "unknown",
            [_sentence(f) for f in picked],
            [f.id for f in picked],
            closing=partial_unknown_reply(business, about=_FOCUS_LABEL[q.focus]),
            flags=("partial",),
        )
    picked = _with_in_force(_with_overrides(picked, candidates), candidates)
    changes = {f.id for f in picked if _changed_then(q, f)}
    if (q.now or q.dated) and not q.usual:
        # Asked about today or a day of its own: what holds then is the temporary change, not the
        # usual arrangement it pauses ("Usually, and again from 1 September: ...").
        # Only a change that says it all: "open until 6pm" leaves the opening time to the usual hours.
        day = {_asked_day(q).weekday()}
        changed = {
            f.topic
            for f in picked
            if f.id in changes and not (f.hours_fact and None in _hours_for(f, q.days or day))
        }
        # A day of its own ("on Christmas Eve") with a change dated on it: the usual arrangement,
        # still in force today, is not that day's either.
        usual = ("paused", "current") if q.dated else ("paused",)
        picked = [
            f
            for f in picked
            if not (
                f.state in usual
                and f.topic in changed
                and f.id not in changes
                and _fact_window(f) == (None, None)
            )
        ]
    picked.sort(key=lambda f: (0 if f.id in changes else _state_key(q, f), -_score_of(scored, f), f.order))
    picked = _with_reply_rest(picked[:limit], facts, sorted(subject))
    return _Reply("answer", [_sentence(f) for f in picked], [f.id for f in picked])


def _changed_then(q: _Question, f: _Fact) -> bool:
    """Whether a fact is a change in force on the day asked about: temporary today, or, for a day of
    its own, dated on that day though still to come ("Thu 24 Dec (Christmas Eve): 7.30am - 1pm")."""
    if f.state == "temporary":
        return True
    return q.dated and f.state == "upcoming" and _fact_window(f) != (None, None) and not _misses_period(q, f)


def _people_of_the_age(q: _Question, facts: list[_Fact]) -> set[str]:
    """The words for people in a question that states an age a fact's rows are for ("deals for
    pensioners? my dad is 70" against "over-65s get £5 off"): the age says who they are, in the
    fact's terms; empty when no fact's ages take it in."""
    age = stated_age(q.text)
    if age is None or not any(low <= age <= high for f in facts for low, high in age_ranges(f.statement)):
        return set()
    tokens = analyse(q.text, base_date=q.on).tokens
    return {
        stem(t.lemma) for t in tokens if t.pos in ("NOUN", "PROPN") and lexical_file(t.lemma) == "noun.person"
    }


def _condition_aside(q: _Question, facts: list[_Fact]) -> _Question:
    """A question whose "if" clause sets the scene ("If my hamper order comes to EUR 90 do I have to
    pay for delivery?"): the main clause says what is asked, so when a fact names its words the
    condition's words count as context (0.3, as a follow-up's borrowed words), not as the subject.
    A discount question is left alone (there the condition is what earns it), and so is one whose
    date the condition gives."""
    if q.focus == "discount" or q.period is not None or q.days:
        return q  # "if he stays 22 to 27 December": a condition that dates the question is what is asked
    condition = _condition_stems(q.text) & set(q.stems)
    main = {s for s in _subject(q) if s not in condition}
    if not condition or not main or not _named_by_any(main, facts):
        return q
    stems = {s: (0.3 * w if s in condition else w) for s, w in q.stems.items()}
    return replace(q, stems=stems)


def _named_by_any(stems: set[str], facts: list[_Fact]) -> bool:
    return any(s in f.stems or s in f.topic_stems for f in facts for s in stems)


def _for_the_age(q: _Question, scored: list[tuple[float, float, _Fact]]) -> list[tuple[float, float, _Fact]]:
    """For a question that gives someone's age ("and for my 4 year old?", "2 kids aged 7 and 10"),
    the rows for that age ("Pre-school (3-5 yrs)") when some are, else without the rows for other
    ages: a row's age range says whom its price is for."""
    age = stated_age(q.text)
    if age is None:
        return scored
    ranges = {f.id: age_ranges(f.statement) for _t, _w, f in scored}
    fitting = [x for x in scored if any(low <= age <= high for low, high in ranges[x[2].id])]
    return fitting or [x for x in scored if not ranges[x[2].id]] or scored


_ACCEPTING = frozenset({"accept", "take"})


def _accepted(q: _Question, facts: list[_Fact], limit: int = 3) -> list[_Fact]:
    """For "what/which ... do you take/accept?": the facts whose own verb accepts something."""
    form = analyse(q.text, base_date=q.on).form
    if form.wh not in ("what", "which") or form.root not in _ACCEPTING:
        return []
    said = [
        f
        for f in facts
        if any(t.pos == "VERB" and t.lemma in _ACCEPTING for t in analyse(f.statement, base_date=q.on).tokens)
    ]
    return said[:limit]


@cache
def _generic_ask() -> frozenset[str]:
    return frozenset(
        stem(w)
        for w in _words(
            "time hour price cost much far long late early day open close morning afternoon evening night shop "
            "store office clinic place business usually normally currently still method option way kind type "
            "policy info information detail take accept use have offer provide serve sell carry"
        )
    )


def _states_kind(f: _Fact, q: _Question) -> bool:
    """Whether the shared analysis finds in a fact the kind of detail the question asks for, where
    the word cues do not: an amount for a price question ("Dryers: 25¢ per 6 minutes"), a calendar
    date for a "when" question ("Autumn term starts September 14")."""
    on = f.rf.learned_at.date()
    if q.focus == "price":
        return bool(analyse(f.statement, base_date=on).amounts)
    when = q.focus == "hours" and analyse(q.text, base_date=on).form.wh == "when"
    if when and any(not m.recurring for m in analyse(f.statement, base_date=on).dates):
        return True
    if q.focus == "hours" and _states_clock_range(f.statement):
        return True
    if when or q.focus in ("turnaround", "leadtime"):
        return _states_duration(f, on)
    return False


def _states_clock_range(statement: str) -> bool:
    """Whether a statement gives a span of the clock, with or without am/pm ("Breakfast is 8 till
    9.30", "mornings 9 to 12"): what "what time ...?" asks for, whatever the fact calls it. Opening
    hours need the meridiem (a bare "5-8" may be players), but a "what time" question about the fact's
    own subject has already said the numbers are times."""
    m = _TIME_RANGE_RE.search(statement)
    if m is None or m.group(9):
        return m is not None
    return (
        _minutes(m.group(1), m.group(2), None) is not None
        and _minutes(m.group(5), m.group(6), None) is not None
    )


def _states_duration(f: _Fact, on: date) -> bool:
    """Whether a fact states a length of time ("within 2 weeks", "48 hours"): a date or time the
    named-entity recogniser finds where the date reader finds no calendar day."""
    analysis = analyse(f.statement, base_date=on, entities=True)
    # A unit of time counted by a number the parser hangs on it ("take 2-3 business days", "All rooms
    # 60 minutes"): the recogniser misses some ("2-3 business days" is two CARDINALs to it). Not a
    # measure in apposition to a name ("Wheel Taster (2 hrs, ...)"): that is how long the thing lasts.
    counted = {t.head for t in analysis.tokens if t.like_num and t.dep == "nummod"}
    if any(
        t.i in counted and t.pos == "NOUN" and t.dep != "appos" and measures_time(t.text)
        for t in analysis.tokens
    ):
        return True
    days = [(m.start_char, m.end_char) for m in analysis.dates if m.start is not None]
    return any(
        e.label in ("DATE", "TIME") and not any(a < e.end_char and e.start_char < b for a, b in days)
        for e in analysis.entities
    )


def _subject(q: _Question) -> set[str]:
    """The question's own words that name what it is about (not the kind of answer it wants)."""
    generic = _generic_ask() | (concepts()[q.focus] if q.focus else frozenset()) | _rate_unit(q.text)
    if q.focus == "discount":
        generic |= concepts()["price"]  # "is it cheaper if ...?" asks for a reduction, names no thing
    return {
        s
        for s, w in q.stems.items()
        if w >= 1.0
        and s not in generic
        and not s[:1].isdigit()
        # Another verb for one that asks the kind ("shut" for "close"): it asks the kind too.
        and not any(stem(m) in generic for m in verb_mates(s))
    }


def _rate_unit(question: str) -> set[str]:
    """The stems of "per <unit>" in a question ("price of ribeye per kg?", "how much per hour"): the
    unit the answer is wanted in, which names no subject (pint knows the units)."""
    tokens = analyse(question, base_date=date.min).tokens
    return {
        stem(w)
        for a, b in itertools.pairwise(tokens)
        if a.text.lower() == "per" and unit_name(b.text)
        for w in (a.text, b.text)
    }


def _bearing(subject: set[str], modifiers: set[str], picked: list[_Fact], facts: list[_Fact]) -> list[_Fact]:
    """Only the facts that bear on what was asked: those that name (in the statement or the topic)
    most of what the best one names of the question's subject, rare words counting most and a noun's
    modifier twice (it says which one: "sourdough" in "sourdough bread"). "How much is the sourdough
    bread?" keeps "Sourdough is $8.50." and drops "Rye loaf: $7.", which shares only "bread" through
    its topic "Rye bread"."""
    if not subject or len(picked) < 2:
        return picked
    idf = _idf(facts)
    weight = {
        f.id: sum(
            idf.get(s, 0.0) * (2.0 if s in modifiers else 1.0)
            for s in subject
            if s in f.stems or s in f.topic_stems
        )
        for f in picked
    }
    top = max(weight.values())
    if top <= 0:
        return picked
    return [f for f in picked if weight[f.id] >= _BEARING_SHARE * top]


# A fact naming less than this share of what the best fact names of the subject is about another thing.
_BEARING_SHARE = 0.6


def _score_of(scored: list[tuple[float, float, _Fact]], fact: _Fact) -> float:
    return next((total for total, _w, f in scored if f is fact), 0.0)


# --- days and times -------------------------------------------------------------------------------------


def _ordered(facts: Iterable[_Fact]) -> list[_Fact]:
    return sorted(facts, key=lambda f: (_STATE_ORDER.get(f.state, 1), f.order))


def _in_force_for_a_while(f: _Fact, q: _Question) -> bool:
    """Whether a fact holds only for a while that covers the day the question names ("Thu 7 - Sat 9
    August: open until 1am" for "how late are you open on Saturday 9 August?"): its weekdays are
    calendar dates, not the days of a weekly timetable, and it is that day's hours all the same."""
    if q.period is None or f.state not in ("temporary", "current"):
        return False
    start, end = f.rf.valid_from, f.rf.valid_to
    return (start is not None or end is not None) and (start or date.min) <= q.period[0] <= (end or date.max)


def _fact_window(f: _Fact, year: int | None = None) -> tuple[date | None, date | None]:
    """The days a fact is in force: its own validity, else the date range its statement names
    ("closed from December 24 to December 27"), read by the language layer against the day the fact
    was learned; (None, None) for a fact that holds every day. A fact with no validity of its own
    holds every year, so a date it names without a year ("open on Memorial Day") is read in the
    ``year`` asked about, when one is given."""
    if f.rf.valid_from is not None or f.rf.valid_to is not None:
        return f.rf.valid_from, f.rf.valid_to
    return _statement_window(f, year)


def _statement_window(f: _Fact, year: int | None = None) -> tuple[date | None, date | None]:
    """The date range a fact's statement names, whatever its validity; (None, None) when it names none."""
    learned = f.rf.learned_at.date()
    if not _DATE_RE.search(f.statement) and not mentions_holiday(f.statement, year=learned.year):
        return None, None  # no calendar date to read (parsing every fact would cost a parse each)
    mention = analyse(f.statement, base_date=learned).dated
    if mention is None or mention.start is None:
        return None, None
    if year is not None and not mention.explicit_year:
        again = analyse(f.statement, base_date=date(year, 1, 1)).dated
        mention = again if again is not None and again.start is not None else mention
    return mention.start, mention.end or mention.start


# A date range without a year at least this long in a fact that holds every year is a season
# ("Summer hours (Apr-Oct)"); shorter ones are dates (a holiday week), which the closures read.
_SEASON_DAYS = 28
#: Days after a closure's last day within which an opening is its reopening (a closure that ends on a
#: Friday may reopen on the Monday).
_REOPENING_GAP_DAYS = 3


def _out_of_season(f: _Fact, day: date) -> bool:
    """Whether a fact that holds every year is about a season the day is not in ("Winter hours
    (Nov-Mar): 8am-6pm" for a day in May; by month and day, so the season recurs each year), or
    about holidays the day is none of ("closed on Thanksgiving" for a day in May)."""
    if f.rf.valid_from is not None or f.rf.valid_to is not None:
        return False
    if _off_its_holidays(f, day):
        return True
    seasons = _seasons(f)
    return bool(seasons) and not any(_covers(start, end, day) for start, end in seasons)


def _dated_off(f: _Fact, day: date) -> bool:
    """Whether the fact holds only for a while that does not include the day."""
    starts, ends = f.rf.valid_from, f.rf.valid_to
    return (starts is not None and day < starts) or (ends is not None and day > ends)


def _in_season(f: _Fact, day: date) -> bool:
    """Whether a fact that holds every year is about a season the day is in ("Summer season (1 July -
    31 August): all rooms are charged at the Fri-Sat rate" for a day in July)."""
    if f.rf.valid_from is not None or f.rf.valid_to is not None:
        return False
    return any(_covers(start, end, day) for start, end in _seasons(f))


def _seasons(f: _Fact) -> list[tuple[date, date]]:
    """The seasons a fact's statement names: date ranges without a year, at least _SEASON_DAYS long."""
    analysis = analyse(f.statement, base_date=f.rf.learned_at.date())
    return [
        (m.start, m.end)
        for m in analysis.dates
        if m.kind in ("range", "month")
        and not m.explicit_year
        and not analysis.happened(m)  # "started in january" is no season
        and m.start is not None
        and m.end is not None
        and (m.end - m.start).days >= _SEASON_DAYS - 1
    ]


def _covers(start: date, end: date, day: date) -> bool:
    """Whether the day falls in the season from start to end, by month and day (it recurs)."""
    asked, first, last = (day.month, day.day), (start.month, start.day), (end.month, end.day)
    return first <= asked <= last if first <= last else asked >= first or asked <= last


def _off_its_holidays(f: _Fact, day: date) -> bool:
    """A fact that holds every year names holidays, and the day is none of them (read in the day's
    year) nor a weekday the fact names ("closed on Thanksgiving day, open Friday 8 to 6")."""
    if not mentions_holiday(f.statement, year=day.year):
        return False
    dates = analyse(f.statement, base_date=date(day.year, 1, 1)).dates
    holidays = {m.start for m in dates if m.holiday}
    if not holidays:
        return False
    weekdays = {d for m in dates if not m.holiday for d in m.weekdays}
    return day not in holidays and day.weekday() not in weekdays


def _weekly_days(f: _Fact) -> set[int]:
    """The weekdays a fact names as a weekly pattern ("closed on Sundays"), not those that only say
    which day a calendar date is ("closed Friday July 2 through Monday July 5, back Tuesday the
    6th"): beside a calendar date, only the language layer's recurring weekdays ("Sundays", "every
    Monday") are a weekly pattern."""
    dates = analyse(f.statement, base_date=f.rf.learned_at.date()).dates
    dated = [
        (m.start, m.end)
        for m in dates
        if m.start is not None and not m.recurring and any(ch.isdigit() for ch in m.text)
    ]
    if not dated:
        return days_in(f.statement)
    weekly = {day for m in dates if m.recurring for day in m.weekdays}
    if all(end is not None and (end - start).days >= 6 for start, end in dated):
        # Beside dates that only span a season ("In autumn (1 October - 1 November), open Friday,
        # Saturday & Sunday"), a weekday written alone is no date's day: it recurs within the season.
        weekly |= {
            day for m in dates if m.weekdays and not any(ch.isdigit() for ch in m.text) for day in m.weekdays
        }
    return weekly


def _closure_on(q: _Question, facts: list[_Fact]) -> tuple[_Fact, bool] | None:
    """A closure in force on the days the question is about ("Are you open on December 26?" beside
    "closed from December 24 to December 27", whether the context shows it as temporary or still
    upcoming), and whether it covers all of them. Weekly hours never outweigh a dated closure."""
    return _dated_on(q, facts, "closed")


def _opening_on(q: _Question, facts: list[_Fact]) -> _Fact | None:
    """Dated opening hours that cover every day the question is about ("Are you open on May 25?"
    beside "open on Memorial Day, 10 to 4")."""
    # "Open every day except December 25" names its date as the exception: not an opening that day.
    found = _dated_on(q, [f for f in facts if not _EXCEPT_RE.search(f.statement)], "open")
    return found[0] if found is not None and found[1] else None


def _excepted_on(q: _Question, facts: list[_Fact]) -> _Fact | None:
    """Opening hours that name every day the question is about as their exception ("open every day
    except December 25"): a date after the exception word, read in the year asked about."""
    if q.period is None:
        return None
    first, last = q.period
    for f in _ordered(facts):
        found = _EXCEPT_RE.search(f.statement)
        if found is None or f.state == "paused" or not any(c.polarity == "open" for c in f.clauses):
            continue
        mention = analyse(f.statement[found.end() :], base_date=date(first.year, 1, 1)).dated
        if mention is None or mention.start is None:
            continue
        if mention.start <= first and last <= (mention.end or mention.start):
            return f
    return None


def _dated_on(q: _Question, facts: list[_Fact], polarity: str) -> tuple[_Fact, bool] | None:
    if q.period is None:
        return None
    first, last = q.period
    for f in _ordered(facts):
        if f.state == "paused" or not any(
            c.polarity == polarity and not (c.days and c.days & _weekly_days(f)) for c in f.clauses
        ):
            continue
        start, end = _within_stated(f, _fact_window(f, first.year))
        if start is None and end is None:
            continue
        if (start is None or start <= last) and (end is None or first <= end):
            whole = (start is None or start <= first) and (end is None or last <= end)
            return f, whole
    return None


def _within_stated(f: _Fact, window: tuple[date | None, date | None]) -> tuple[date | None, date | None]:
    """A fact's window narrowed to the range its statement names, when that range lies inside it: the
    fact may be worth saying for longer than what it states holds ("closed from 24 Dec to 2 Jan, back
    on Monday 3 Jan" is kept until the 3rd, the day it tells of, but closed only to the 2nd)."""
    start, end = window
    if start is None or end is None:
        return window
    said_from, said_to = _statement_window(f)
    if said_from is None or said_to is None or said_to <= said_from:
        return window
    return (said_from, said_to) if start <= said_from and said_to <= end else window


def _misses_period(q: _Question, f: _Fact) -> bool:
    """Whether the days a fact's statement says it holds on lie outside the question's own date
    ("back on Monday 3 Jan" in force until the 3rd, asked about the 3rd)."""
    if q.period is None:
        return False
    first, last = q.period
    start, end = _within_stated(f, _fact_window(f, first.year))
    return (start is not None and last < start) or (end is not None and end < first)


def _closed_on_days(q: _Question, facts: list[_Fact]) -> _Reply | None:
    """A question about doing something on a weekday ("can I get keys cut on Sunday?") when a fact
    about the business's hours, or about the thing asked, says it is closed that day, or when the
    weekly hours leave the day out and nothing else names it: a no."""
    if not q.days:
        return None
    for f in _ordered(facts):
        if f.state == "upcoming" or not f.hours_fact:
            continue
        about = stem("hours") in f.topic_stems or any(s in f.topic_stems for s in q.object_stems)
        if about and q.days <= f.closed_days and not q.days & f.open_days:
            return _Reply("answer", [_sentence(f)], [f.id], prefix="No — ")
    # No fact names the day, and the business's weekly hours leave it out ("any classes on sundays?"
    # beside "open Monday to Friday, 3-5"): the near-certain no of seed 000, 3.3, as for "open on
    # Sundays?".
    hours = [
        f
        for f in _ordered(facts)
        if f.hours_fact and f.state != "upcoming" and stem("hours") in f.topic_stems
    ]
    if (
        _open_union(hours)
        and not q.days & _open_union(hours)
        and not any(q.days & days_in(f.statement) for f in facts)
    ):
        picked = [f for f in hours if f.open_days][:2]
        return _Reply("answer", [_sentence(f) for f in picked], [f.id for f in picked], prefix="No — ")
    return None


def _exclusive(statement: str) -> bool:
    """Whether "only" / "just" / "exclusively" limits what the statement lists ("We take cash only",
    "Dogs only!"). One that qualifies an amount says how much, not that nothing else is offered:
    "pay just $1 for your first month", "only 5 euro for kids" (its head in the parse is a number)."""
    if not _EXCLUSIVE_RE.search(statement):
        return False
    doc = analyse(statement, base_date=date.min).doc
    return any(
        _EXCLUSIVE_RE.fullmatch(t.text) and not (t.head.like_num or t.head.tag_ == "CD") and not _softens(t)
        for t in doc
    )


def _softens(word: Any) -> bool:
    """ "just ask at the desk", "just call us": "just" before a request softens it; it limits nothing."""
    verb = word.head
    return (
        word.lower_ == "just"
        and verb.tag_ == "VB"
        and verb.i > word.i
        and not any(c.dep_ in ("nsubj", "aux") for c in verb.children)
    )


def _limits_the_yes(f: _Fact, q: _Question, on: date) -> bool:
    """Whether a fact that names the thing asked still does not make the answer a plain yes: it limits
    the offer ("Dogs only!"), names other days than the question's ("welcome on Fridays" for a
    Tuesday), or starts after the question's day ("coming in January 2028")."""
    if _exclusive(f.statement):
        return True
    named = days_in(f.statement)
    if q.days and named and not q.days & named:
        return True
    dates = analyse(f.statement, base_date=f.rf.learned_at.date()).dates
    return any(m.start is not None and not m.recurring and m.start > on for m in dates)


def _about_the_business(f: _Fact, business: str) -> bool:
    """Whether a statement's subject is the business itself: the owner's "we", which the extractor
    writes as the business's name, or, by the parse, a subject named by a word of the business's name
    ("the spa is closed ..." at Seacliff Day Spa, "the studio" at Clay Studio)."""
    said = f.statement.lower()
    if said.startswith("we ") or (bool(business) and said.startswith(business.lower() + " ")):
        return True
    named = {stem(w) for w in re.findall(r"[a-z]+", business.lower())} - {stem(w) for w in _STOP}
    if not named:
        return False
    doc = analyse(f.statement, base_date=f.rf.learned_at.date()).doc
    return any(
        t.dep_ in ("nsubj", "nsubjpass") and t.pos_ in ("NOUN", "PROPN") and stem(t.text) in named
        for t in doc
    )


def _closed_that_day(q: _Question, facts: list[_Fact], business: str) -> _Reply | None:
    """A question about doing something on a date of its own ("Can I get an appointment on July
    3?") when the business's hours say it is closed that whole day or period: a no, near certain.
    Only a closure of the business's hours counts (a topic about hours), not of one room or
    service ("the pool is closed March 3-7" says nothing about a massage); a closure whose subject is
    the business itself ("<business> is closed for a family holiday ...") is one, whatever its topic."""
    if q.period is None:
        return None  # before reading every fact's subject: most questions name no date
    hours = [f for f in facts if stem("hours") in f.topic_stems or _about_the_business(f, business)]
    closure = _closure_on(q, hours)
    if closure is None or not closure[1]:
        return None
    f = closure[0]
    return _Reply("answer", [_sentence(f)], [f.id], prefix="No — ")


def _trade_off_that_day(q: _Question, facts: list[_Fact], business: str) -> _Reply | None:
    """A question about the business's own trade on a date ("is there dancing on Monday 8 March?" at a
    dance studio: every word asked is a word of its name) when a fact dated over that whole date rules
    something out ("No classes on Monday 8 March (public holiday)"): what the business does is off
    that day, a no. A dated fact that rules nothing out ("exam fortnight 1-13 March") says nothing."""
    trade = set(stems_of(business)) if business else set()
    if q.period is None or not q.required or not set(q.required) <= trade:
        return None
    first, last = q.period
    # Only a notice about the business as a whole (its hours, or a topic named by its name): "no
    # parking on the 8th" filed under Parking says nothing about the classes.
    general = [f for f in facts if set(f.topic_stems) <= trade | {stem("about"), stem("hours")}]
    for f in _ordered(general):
        if f.state == "paused" or not _negated_stems(f):
            continue
        # The day the notice names ("No lessons on Friday 2 April"), not the days it is shown for.
        start, end = _statement_window(f, first.year)
        if start is None and end is None:
            start, end = f.rf.valid_from, f.rf.valid_to
        if (
            (start is not None or end is not None)
            and (start is None or start <= first)
            and (end is None or last <= end)
        ):
            return _Reply("answer", [_sentence(f)], [f.id], prefix="No — ")
    return None


def _trade_on_days(q: _Question, facts: list[_Fact], business: str, on: date) -> _Reply | None:
    """Whether the business does its own trade on a day ("do u walk dogs on sundays?" at a dog
    walker: every word asked is a word of its name) is whether it is open that day: the hours answer
    it, as they answer "are you open on Sundays?". Only a reply the hours settle."""
    trade = set(stems_of(business)) if business else set()
    if not (q.days or q.period) or not q.required or not set(q.required) <= trade:
        return None
    reply = _days_reply(q, facts, business, on)
    return reply if reply is not None and reply.decision == "answer" and reply.prefix else None


def _days_reply(q: _Question, facts: list[_Fact], business: str, on: date) -> _Reply | None:
    # A fact dated off the day asked about ("In summer (28 March - 30 September) open every day",
    # asked of a Tuesday in October) says nothing of that day, whatever its state today.
    told, day = facts, _asked_day(q)
    off_then = [f for f in facts if _misses_period(q, f) or _out_of_season(f, day)]
    off_ids = {f.id for f in off_then}
    facts = [f for f in facts if f.id not in off_ids]
    hours = [f for f in facts if f.hours_fact and f.state != "upcoming"]
    yes, no = ("No — ", "Yes — ") if q.asks_closed else ("Yes — ", "No — ")
    closure = _closure_on(q, facts)
    if closure is not None:
        f, whole = closure
        picked = [f, *_reopening(f, told)]
        return _Reply(
            "answer", [_sentence(f) for f in picked], [f.id for f in picked], prefix=no if whole else ""
        )
    excepted = _excepted_on(q, hours)
    if excepted is not None:
        return _Reply("answer", [_sentence(excepted)], [excepted.id], prefix=no)
    opening = _opening_on(q, hours)
    if opening is not None and not _states_clock_range(opening.statement) and _day_lines_in_force(q, hours):
        # A dated heading line ("TAX SEASON HOURS - February 2 through April 15") whose times are
        # on lines of their own: the line for the day asked about says more, and comes next.
        opening = None
    if opening is not None:
        picked = [opening, *_usual_times(q, opening, hours)]
        return _Reply("answer", [_sentence(f) for f in picked], [f.id for f in picked], prefix=yes)
    if q.now or q.dated:
        # A temporary closure in force ("closed from November 20 to December 5") settles "open now?"
        # (or "open next Monday?", the context rendered for that day) whatever the weekly hours say.
        for f in _ordered(hours):
            if (
                f.state == "temporary"
                and any(c.polarity == "closed" and not c.days for c in f.clauses)
                and not (q.dated and _misses_period(q, f))
            ):
                return _Reply("answer", [_sentence(f)], [f.id], prefix=no)
    days = q.days
    # The most specific first: "open on Thursdays, til 8:30" says more of a Thursday than "open Tues
    # to Sat" (the state still comes first: a temporary change outranks both).
    # A weekday that only says which day a calendar date falls on ("back on Monday 3 Jan") decides
    # nothing about that weekday in general.
    # Hours given as a span of the clock ("Monday - Friday, 9.30am - 5pm") before a day rule of
    # something done at set times ("parties on weekdays only in the holidays, 10am or 1pm slots").
    deciding = sorted(
        (f for f in hours if days & (f.open_days | f.closed_days) & f.weekly_days),
        key=lambda f: (
            _STATE_ORDER.get(f.state, 1),
            bool(days & f.open_days) and not _states_clock_range(f.statement),
            len(f.open_days | f.closed_days),
            f.order,
        ),
    )
    if deciding:
        first = deciding[0]
        closed = bool(days & first.closed_days) and not (days & first.open_days)
        if closed:
            return _Reply("answer", [_sentence(first)], [first.id], prefix=no)
        if days <= _open_union(deciding):
            picked = [first] + [
                f for f in deciding[1:2] if f.state == "paused" and first.state == "temporary"
            ]
            return _Reply("answer", [_sentence(f) for f in picked], [f.id for f in picked], prefix=yes)
        return _wh_reply(q, facts, business)
    seasons = [f for f in _ordered(off_then) if f.hours_fact and f.open_days]
    if seasons and not hours:
        # Every opening the facts state is for another season or dates ("Autumn (1 October - 1
        # November): Fri-Sun", asked of a weekend in November): the near-certain no again, with when
        # they are open.
        picked = seasons[:2]
        return _Reply("answer", [_sentence(f) for f in picked], [f.id for f in picked], prefix=no)
    # Something else mentions the day ("Gluten-free bread is available on Saturdays only"): not a
    # near-certain no; say what is known.
    mentions = [f for f in facts if days & days_in(f.statement)]
    if mentions:
        picked = _ordered(mentions)[:2] + [f for f in _ordered(hours) if f.open_days][:1]
        return _Reply("answer", [_sentence(f) for f in picked], [f.id for f in picked])
    day_sets = [f for f in _ordered(hours) if f.open_days]
    if day_sets:
        # A day outside every stated set of opening days: the near-certain no of seed 000, 3.3.
        picked = day_sets[:2]
        return _Reply("answer", [_sentence(f) for f in picked], [f.id for f in picked], prefix=no)
    if hours:
        picked = _ordered(hours)[:2]
        return _Reply(
            "unknown",
            [_sentence(f) for f in picked],
            [f.id for f in picked],
            closing=partial_unknown_reply(business, whether=f"it's open on {_days_text(days)}"),
            flags=("partial",),
        )
    return None


def _usual_times(q: _Question, opening: _Fact, hours: list[_Fact]) -> list[_Fact]:
    """The weekly hours of the day asked about, when the opening found for it gives no times ("Tue 29
    & Wed 30 Dec: normal hours", "open on Boxing Day"): what the visitor needs next is when."""
    if _states_clock_range(opening.statement):
        return []
    weekly = [
        f
        for f in hours
        if f is not opening
        # "paused": the usual hours a dated fact on the same subject stands in for ("as normal")
        and f.state in ("current", "paused")
        and q.days & f.open_days & f.weekly_days
        and _states_clock_range(f.statement)
    ]
    return sorted(weekly, key=lambda f: (len(f.open_days), f.order))[:1]


def _reopening(closure: _Fact, facts: list[_Fact]) -> list[_Fact]:
    """The opening a closure's visitor wants next: a fact that opens on a date just after the
    closure's end ("CLOSED: 24 December to 4 January" and "We reopen on Tuesday 5 January at 9:30am")."""
    end = _within_stated(closure, _fact_window(closure))[1]
    if end is None:
        return []
    for f in _ordered(facts):
        start = _fact_window(f, end.year)[0]
        if (
            f is not closure
            and f.hours_fact
            and any(c.polarity == "open" for c in f.clauses)
            and start is not None
            and timedelta(days=1) <= start - end <= timedelta(days=_REOPENING_GAP_DAYS)
        ):
            return [f]
    return []


def _day_lines_in_force(q: _Question, hours: list[_Fact]) -> bool:
    """Whether a temporary fact in force on the date asked about gives the asked weekday's hours."""
    return any(
        f.state == "temporary"
        and q.days & (f.open_days | f.closed_days) & f.weekly_days
        and not _misses_period(q, f)
        for f in hours
    )


def _open_union(facts: list[_Fact]) -> set[int]:
    out: set[int] = set()
    for f in facts:
        out |= f.open_days
    return out


def _days_text(days: set[int]) -> str:
    names = [DAY_NAMES[d] + "s" for d in sorted(days)]
    if len(names) == 7:
        return "every day"
    if set(days) == {5, 6}:
        return "weekends"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _time_reply(q: _Question, facts: list[_Fact], business: str, on: date) -> _Reply | None:
    days = q.days or {on.weekday()}
    hours = [
        f for f in facts if f.hours_fact and f.state != "upcoming" and not _out_of_season(f, _asked_day(q))
    ]
    covering = [f for f in _ordered(hours) if days & f.open_days]
    in_force = [f for f in covering if f.state != "paused"] or covering
    if not in_force or q.time is None:
        if any(days & f.closed_days for f in hours) or any(f.open_days for f in hours):
            return _days_reply(q, facts, business, on)
        return _wh_reply(q, facts, business)
    first = in_force[0]
    opens, closes = _hours_for(first, days)
    if opens is None:
        for other in covering:
            if other is not first:
                opens = _hours_for(other, days)[0]
                if opens is not None:
                    break
    t = q.time
    no_prefix, yes_prefix = ("Yes — ", "No — ") if q.asks_closed else ("No — ", "Yes — ")
    sentences = [_sentence(first)]
    if closes is not None and t >= closes:
        return _Reply("answer", sentences, [first.id], prefix=no_prefix)
    if opens is not None and t < opens:
        return _Reply("answer", sentences, [first.id], prefix=no_prefix)
    if closes is not None and (opens is not None or t >= 12 * 60):
        return _Reply("answer", sentences, [first.id], prefix=yes_prefix)
    return _Reply("answer", sentences, [first.id])


def _hours_for(f: _Fact, days: set[int]) -> tuple[int | None, int | None]:
    for c in f.clauses:
        if (
            c.polarity == "open"
            and (days & c.days or not c.days)
            and (c.opens is not None or c.closes is not None)
        ):
            return c.opens, c.closes
    return None, None


# --- offerings and acceptance ---------------------------------------------------------------------------

_CARD_BRANDS = {"visa", "mastercard", "amex", "discover", "maestro"}
_GENERIC_CARDS_RE = re.compile(
    r"(?i)(?<!gift )(?<!loyalty )\b(?:all\s+)?(?:major\s+)?(?:credit\s+|debit\s+)?cards\b"
)


def _covered(s: str, f: _Fact, *, broad: bool) -> bool:
    if s in f.stems:
        return True
    card_word = s in _CARD_BRANDS or s in {"card", "credit"}
    if s in f.topic_stems and not card_word:
        # The topic names what its facts are about: "We accept Delta Dental, Aetna and Cigna" under
        # "Insurance" answers "Is Aetna insurance accepted?", "... over 12 monthly payments" under
        # "Payment plans" answers "Do you have payment plans?".
        return True
    if card_word:
        # Card questions are answered only by statements about accepting payment: "gift cards" or a
        # "card" in some other sense never says anything about Visa.
        if not _ACCEPT_VERB_RE.search(f.statement):
            return False
        if s in {"card", "credit"}:
            return (
                any(b in f.stems for b in _CARD_BRANDS) or _GENERIC_CARDS_RE.search(f.statement) is not None
            )
        return _GENERIC_CARDS_RE.search(f.statement) is not None
    for name, words in concepts().items():
        if s in words and (
            (name in _NARROW and _concept_mates(s, words & set(f.stems)))
            or (broad and name in _BROAD and name in f.concepts)
        ):
            return True
    # A kind of the thing asked about, in WordNet ("plastic crate hire" for "can I hire plastic boxes?").
    return not s[:1].isdigit() and any(kind_of(t, s) for t in f.stems if not t[:1].isdigit())


def _concept_mates(word: str, found: Iterable[str]) -> set[str]:
    """The words of ``found`` (a concept's words in a fact) that can stand for ``word``: the concept
    says they name one thing ("pets" / "dogs", "repair" / "fix"), unless WordNet has the two as
    separate kinds of one thing ("cats" / "dogs", "babies" / "toddlers"): a fact about dogs says
    nothing of cats."""
    return {other for other in found if other == word or not separate_kinds(word, other)}


def _negated_stems(f: _Fact) -> set[str]:
    """Stems that the statement rules out: everything in a negated clause ("Pets are not allowed"), and
    what follows an exception ("... except Rad Power", "... but not Medicaid")."""
    negated, excepted = _negation_scopes(f)
    return negated | excepted


def _negation_scopes(f: _Fact) -> tuple[set[str], set[str]]:
    negated: set[str] = set()
    excepted: set[str] = set()
    for clause in re.split(r"(?i)[,;.]|\bbut\b(?!\s+not)|\bhowever\b", _canon(f.statement)):
        exc = _EXCEPT_RE.search(clause)
        if exc is not None:
            excepted |= set(stems_of(clause[exc.end() :]))
            clause = clause[: exc.start()]
        if _NEG_RE.search(clause):
            negated |= _negated_words(clause)
    return negated, excepted


def _negated_words(clause: str) -> set[str]:
    """The stems a negated clause rules out: all of it ("Pets are not allowed"), except that a "no"
    determining a noun negates only that noun's phrase ("We have oat, almond and soy milk at no extra
    charge" rules out a charge, not the milk). Read on the language layer's parse, and only for a
    clause whose one negation is a bare "no" (other negations scope over the clause)."""
    whole = set(stems_of(clause))
    if not re.search(r"(?i)\bno\b", clause) or re.search(
        r"(?i)\b(not|never|none|nor|no longer)\b|n't", clause
    ):
        return whole
    parsed = analyse(clause, base_date=date.min)
    tokens_ = parsed.tokens
    negators = [t for t in tokens_ if t.lemma == "no"]
    if not negators or not all(t.dep == "det" and tokens_[t.head].pos in ("NOUN", "PROPN") for t in negators):
        return whole
    dated = [(m.start_char, m.end_char) for m in parsed.dates]
    out: set[str] = set()
    for t in negators:
        # The noun, what comes before it and a date after it ("no lessons on Friday 2 April"): another
        # phrase after it says where or which ("no lilies in a bouquet" rules out lilies, not bouquets).
        phrase = [
            u.text
            for u in tokens_
            if _within(tokens_, u.i, t.head)
            and (u.i <= t.head or any(a <= u.start_char < b for a, b in dated))
        ]
        out |= set(stems_of(" ".join(phrase)))
    return out


def _within(tokens_: tuple[Any, ...], i: int, root: int) -> bool:
    """Whether token ``i`` is ``root`` or depends on it (its subtree in the parse)."""
    seen = 0
    while seen <= len(tokens_):
        if i == root:
            return True
        parent = tokens_[i].head
        if parent == i:
            return False
        i = parent
        seen += 1
    return False


def _said_as_trade(q: _Question, business: str, trade: set[str]) -> set[str]:
    """The stems of the business's name the question writes only as the name does ("nails" at a nail
    bar): "parking" meets "Park" of a trampoline park on one key, but it is another word, so the
    question still has to be answered about it."""
    if not trade:
        return trade
    names = {t.lemma for t in analyse(business, base_date=q.on).tokens}
    tokens = analyse(q.text, base_date=q.on).tokens
    return {s for s in trade if all(t.lemma in names for t in tokens if stem(t.text.lower()) == s)}


def _offer_reply(q: _Question, facts: list[_Fact], business: str, on: date) -> _Reply | None:
    numbers = [s for s in q.object_stems if s[:1].isdigit()]
    targets = [s for s in q.object_stems if not s[:1].isdigit()]
    if q.verb_group and q.head and q.head not in targets:
        targets.append(q.head)
    if not targets:
        return _wh_reply(q, facts, business)
    scored = _scores(q, facts)
    ranked = [f for _t, _w, f in scored] + [f for f in facts if all(f is not g for _a, _b, g in scored)]
    ranked = sorted(ranked, key=lambda f: (_STATE_ORDER.get(f.state, 1) > 1, ranked.index(f)))

    # What the business's own name says it does ("BrightPath Tutoring", "Fix-It Repairs") it does for
    # everything it lists: "Do you tutor chemistry?" is answered by "Subjects: math, chemistry".
    trade = set(stems_of(business)) if business else set()

    def verb_ok(f: _Fact) -> bool:
        # "Do you rent bikes?" is not answered by "We sell bikes": a specific verb must be in the fact.
        if q.verb_group is None or _covered(q.verb_group, f, broad=False):
            return True
        return bool({stem(q.verb_group), q.verb_stem} & trade)

    # 1. A fact that rules the thing out: the head of what was asked is negated. A general "no" covers
    #    a specific question ("Smoking is not permitted anywhere" answers "Can I smoke in my room?").
    key = q.head or (targets[-1] if targets else None)
    required = [s for s in q.required if not s[:1].isdigit()] or ([key] if key else [])
    for f in ranked:
        if f.state == "upcoming" and (q.period is None or _misses_period(q, f)):
            # Not in force on the day asked about: "No lessons during half term" next month says
            # nothing of lessons today, only of a day inside it ("lessons on 17 feb?").
            continue
        if _other_days(q, f):
            continue  # "Sunday - no walks" rules nothing out on a Friday
        negated, excepted = _negation_scopes(f)
        named_exception = any(s in excepted for s in q.object_stems)
        rules_out = (
            bool(required)
            and all(_covered(s, f, broad=False) for s in required)
            and any(s in negated or _negated_synonym(s, negated) for s in required)
            and not (key and _narrower(f, key, q.object_stems))
        )
        if named_exception or rules_out:
            return _Reply("answer", [_sentence(f)], [f.id], prefix="No, " if _plain_negative(f) else "No — ")
    # 2. A fact that names it, positively and without conditions: "Yes". A word of the business's own
    #    name is what it does ("Do you do nails for children?" at a nail bar): the rest must be named.
    said_as_trade = _said_as_trade(q, business, trade)
    named = [s for s in targets if s not in said_as_trade] or targets
    for f in ranked:
        if named and all(_covered(s, f, broad=False) for s in named) and verb_ok(f):
            negated = _negated_stems(f)
            if any(s in negated for s in targets if s in f.stems):
                continue
            if any(kind_of(t, s) for s in targets if s not in f.stems for t in negated):
                continue  # the kind of it the fact names is one it rules out ("not in kayaks": a canoe?)
            # "Is sourdough $8?" against "Sourdough is $8.50.": the fact answers, but not with a yes.
            conditional = (
                _COND_RE.search(_clause_with(f, targets)) is not None
                or any(n not in f.stems for n in numbers)
                or _limits_the_yes(f, q, on)
            )
            picked = [f]
            if not conditional:
                extra = _extra_detail(f, facts, targets)
                picked += extra
            return _Reply(
                "answer",
                [_sentence(x) for x in picked],
                [x.id for x in picked],
                prefix="" if conditional else "Yes — ",
            )
    # 3. A fact about it, where the words only meet in kind ("a cancellation fee" / "is charged"): say it
    #    without a yes or no.
    for f in ranked:
        if targets and all(_covered(s, f, broad=True) for s in targets) and verb_ok(f):
            return _Reply("answer", [_sentence(f)], [f.id])
    # 3b. Named in other words ("electric cars" / "hybrids and EVs"): retrieval found the fact's topic
    #     clearly closest to the question and the fact shares part of what was asked. Said plainly,
    #     never with a yes or no: similarity is evidence of the subject, not of the answer.
    clear = None if q.property else _clearly_closest(facts)
    for f in ranked:
        if f.topic_id != clear or not verb_ok(f):
            continue
        missing = [s for s in targets if not _covered(s, f, broad=False)]
        if len(missing) < len(targets) and _paraphrasable(q.text, missing):
            return _Reply("answer", [_sentence(f)], [f.id])
    # 4. Not named: an exclusive list is a no ("We accept cash only"); any other list is not.
    lists = [f for f in ranked if _is_list_for(q, f)]
    for f in lists:
        # Only a list of what the question's own verb does excludes the rest ("We sell Trek bikes only"
        # for "Do you sell Cannondale?"); "takes dogs just for the day" says nothing of washing one.
        if _exclusive(f.statement) and verb_ok(f):
            return _Reply("answer", [_sentence(f)], [f.id], prefix="No — ")
    # Related facts worth giving with the unknown reply: a list of the same kind, what is said about the
    # thing itself, or, when the question is about where or to whom a service goes ("deliver to
    # Vancouver?"), what is said about that service.
    verb_is_head = q.verb_group is not None and q.head is not None and q.head == q.verb_stem
    related = lists or [
        f
        for f in ranked
        if (q.head and q.head in f.stems and _OFFER_VERB_RE.search(f.statement))
        or (verb_is_head and q.verb_group and _covered(q.verb_group, f, broad=False))
    ]
    related = sorted(related[:2], key=lambda f: f.order)
    thing = q.object_text
    if q.kind == "accept":
        closing = partial_unknown_reply(business, whether=f"{thing} is accepted" if thing else None)
    else:
        closing = partial_unknown_reply(business, about=thing or None)
    if not related:
        return _Reply("unknown", [], [], closing=closing)
    return _Reply(
        "unknown",
        [_sentence(f) for f in related],
        [f.id for f in related],
        closing=closing,
        flags=("partial",),
    )


# A topic retrieval scored at least this close to the question, and this far ahead of every other
# kept topic, is about what was asked even when the words differ. Measured with the built-in MiniLM
# model on the answer cases: paraphrases scored 0.44-0.56 with a lead of 0.25 or more; a brand the
# business does not name scored 0.44 level with a sibling topic.
_CLOSEST_SIMILARITY = 0.4
_CLOSEST_LEAD = 0.15


def _other_days(q: _Question, f: _Fact) -> bool:
    """Whether a fact is about weekdays of its own, none of them the day or days the question asks
    about ("Sunday - no walks" for "can you walk my dog this friday?")."""
    asked = q.days or ({_asked_day(q).weekday()} if q.period else set())
    # A bracketed note is about something else ("(house sits continue 7 days a week)").
    named = days_in(without_notes(f.statement))
    return bool(asked) and bool(named) and not asked & named


def _paraphrasable(question: str, missing: list[str]) -> bool:
    """Whether the question's words a fact lacks may be a paraphrase of its own: common nouns and
    adjectives ("electric cars" for "EVs"). A name ("Vancouver", "Cannondale") is a thing the fact
    does not mention, and a place or manner word ("outside") narrows the question; neither is
    excused. Read on the language layer's parse of the question."""
    wanted = set(missing)
    tokens_ = [t for t in analyse(question, base_date=date.min).tokens if stem(t.text) in wanted]
    return bool(tokens_) and all(t.pos in ("NOUN", "ADJ") for t in tokens_)


def _clearly_closest(facts: list[_Fact]) -> int | None:
    by_topic: dict[int, float] = {}
    for f in facts:
        by_topic[f.topic_id] = max(by_topic.get(f.topic_id, 0.0), f.similarity)
    ranked = sorted(by_topic.items(), key=lambda item: -item[1])
    if not ranked or ranked[0][1] < _CLOSEST_SIMILARITY:
        return None
    if len(ranked) > 1 and ranked[0][1] - ranked[1][1] < _CLOSEST_LEAD:
        return None
    return ranked[0][0]


_VERBISH = re.compile(
    r"(?i)^(sell|sells|make|makes|bake|bakes|offer|offers|provide|provides|have|has|carry|carries|stock|stocks|"
    r"serve|serves|do|does|see|sees|service|services|repair|repairs|fix|fixes|rent|rents|deliver|delivers|"
    r"accept|accepts|take|takes|allow|allows|any|more|longer|our|the|a|an|no|not|never)$"
)


def _narrower(f: _Fact, key: str, asked: list[str]) -> bool:
    """Whether the fact rules out a narrower thing than was asked: "no longer sells gift cards" says
    nothing about credit cards, "does not make wedding cakes" nothing about cakes in general."""
    words = f.words
    for i, w in enumerate(words):
        if stem(w) == key and i > 0:
            before = words[i - 1]
            return not (before in _STOP or _VERBISH.match(before) or stem(before) in asked)
    return False


def _negated_synonym(key: str, negated: set[str]) -> bool:
    for name, words in concepts().items():
        if name in _NARROW and key in words and _concept_mates(key, words & negated):
            return True
    if key in _CARD_BRANDS:
        return key in negated
    return False


def _plain_negative(f: _Fact) -> bool:
    """ "No, Sunny Bakery no longer sells gift cards." reads as a plain no; an exception ("except Rad
    Power", "but not Medicaid") reads better after a dash."""
    return _EXCEPT_RE.search(f.statement) is None


def _clause_with(f: _Fact, targets: list[str]) -> str:
    for clause in re.split(r"[,;]", _canon(f.statement)):
        if set(stems_of(clause)) & set(targets):
            return clause
    return f.statement


def _extra_detail(f: _Fact, facts: list[_Fact], targets: list[str]) -> list[_Fact]:
    """After "Yes — Sunny Bakery makes wedding cakes." one more fact on the same thing, a price first.

    An owner's reply is one answer to one question ("Do you do banners?" / "yes, vinyl banners $18 per
    square foot, 2-3 days"), which the extractor files under several topics. When the "yes" comes from
    such a reply, the rest of it that retrieval kept is part of the answer too, whatever its topic."""
    replies = _owner_replies(f)
    same = [
        g
        for g in facts
        if g is not f
        and g.state != "upcoming"
        and (
            (g.topic == f.topic and all(s in g.stems for s in targets if s in f.stems))
            or bool(replies & _owner_replies(g))
        )
        and not _negated_stems(g) & set(targets)
    ]
    same.sort(key=lambda g: ("price" not in g.concepts, g.order))
    return same[:1]


def _with_reply_rest(picked: list[_Fact], facts: list[_Fact], targets: list[str]) -> list[_Fact]:
    """One fact from an owner's reply ("Lockdown does team building.") with the detail the same reply
    gave ("corporate packages for up to 24 people, from $650"), which the extractor filed apart."""
    if len(picked) != 1 or not _owner_replies(picked[0]):
        return picked
    return picked + [g for g in _extra_detail(picked[0], facts, targets) if g not in picked]


def _owner_replies(f: _Fact) -> set[tuple[str, str]]:
    """The owner answers a fact was read from (each answer is its own source)."""
    return {(s.kind, s.ref) for s in f.rf.sources if s.kind == SourceKind.OWNER_ANSWER}


def _is_list_for(q: _Question, f: _Fact) -> bool:
    """A fact listing what is accepted (for payment or insurance questions) or what is offered by the
    same verb ("We sell new and used bikes from Trek and Specialized" for "Do you sell Cannondale?")."""
    if q.kind == "accept":
        if not _ACCEPT_VERB_RE.search(f.statement):
            return False
        wanted = {c for c in ("payment", "insurance") if c in q.concepts}
        if not wanted and q.concepts - {"payment", "insurance"}:
            return False  # "Do you take walk-ins?": a payment list says nothing about it
        wanted = wanted or {"payment", "insurance"}
        if "insurance" in q.concepts and "payment" in wanted and "insurance" in wanted:
            wanted = {"insurance"}
        return bool(wanted & f.concepts)
    if q.head and q.head in f.stems and _OFFER_VERB_RE.search(f.statement):
        return any(s not in f.stems for s in q.object_stems)
    # A list made with the question's own verb ("We stock Michelin, Pirelli and Bridgestone tyres"
    # for "Do you stock Goodyear?"): related, though it does not name the thing.
    listed = "," in f.statement or re.search(r"(?i)\b(and|or)\b", f.statement) is not None
    return bool(q.verb and q.verb in f.stems and listed and any(s not in f.stems for s in q.object_stems))


# --- wording --------------------------------------------------------------------------------------------

_COMMON_STARTERS = {
    "we", "we're", "we've", "we'll", "our", "open", "closed", "the", "a", "an", "all", "most", "free",
    "delivery", "early", "it", "its", "there", "this", "these", "every", "each", "please", "late", "yes",
    "no", "until", "usually", "from", "hours", "orders", "prices", "rooms", "children", "pets", "smoking",
}  # fmt: skip


def _sentence(f: _Fact) -> str:
    text = " ".join(f.statement.split())
    if re.match(r"^(Open|Closed)\b", text):
        # A fragment from a website ("Open Monday to Friday, 7 AM to 3 PM.") in the business's voice.
        text = "We're " + text[0].lower() + text[1:]
    if text and text[-1] not in ".!?":
        text += "."
    prefix = _state_prefix(f, text)
    if prefix:
        text = f"{prefix}, {_lower_first(text, force=True)}"
    return text


def _state_prefix(f: _Fact, text: str) -> str:
    rf = f.rf
    if f.state == "paused":
        m = re.match(r"^(Usually, and again from [^:]+):", rf.line or "")
        return m.group(1) if m else "Usually"
    if _DATE_RE.search(text) or _RELATIVE_RE.search(text):
        return ""  # the statement carries its own dates ("20% off all helmets until January 31")
    if f.state == "temporary" and rf.valid_to is not None:
        return f"Until {_fmt(rf.valid_to)}"
    if f.state == "upcoming" and rf.valid_from is not None:
        until = f" to {_fmt(rf.valid_to)}" if rf.valid_to else ""
        return f"From {_fmt(rf.valid_from)}{until}"
    return ""


def _fmt(day: date) -> str:
    return f"{day.day} {day:%B %Y}"


def _lowercase_words(facts: list[_Fact], question: str, history: list[tuple[str, str]]) -> set[str]:
    """Words seen in lowercase in the facts or the conversation: safe to lowercase at a sentence start
    after "Yes —" (a brand or name is never seen in lowercase, so it keeps its capital)."""
    words: set[str] = set(_COMMON_STARTERS)
    capitalised: set[str] = set()
    texts = [f.statement for f in facts] + [question] + [t for _r, t in history]
    for text in texts:
        for i, w in enumerate(re.findall(r"[A-Za-z][A-Za-z'\u2019]*", text)):
            if w.islower():
                words.add(w)
            elif i > 0 and w[0].isupper():
                capitalised.add(w.lower())
    return words - (capitalised - _COMMON_STARTERS)


def _lower_first(text: str, *, force: bool = False, lowercase: set[str] | None = None) -> str:
    m = re.match(r"([A-Za-z][A-Za-z'\u2019]*)", text)
    if m is None:
        return text
    word = m.group(1)
    known = lowercase if lowercase is not None else _COMMON_STARTERS
    if word.lower() in {d.lower() for d in DAY_NAMES} or (len(word) > 1 and word[1:].lower() != word[1:]):
        return text
    low = word.lower()
    if low in known or low + "s" in known or low + "es" in known or (force and low in _COMMON_STARTERS):
        return text[0].lower() + text[1:]
    return text


def _compose(reply: _Reply, lowercase: set[str]) -> str:
    # Two facts may say one thing in the same words (an owner's answer stored for its subject and for
    # the business): said once.
    sentences = list(dict.fromkeys(s.strip() for s in reply.sentences))
    if reply.prefix and sentences:
        sentences[0] = reply.prefix + _lower_first(sentences[0], lowercase=lowercase)
    parts = sentences + ([reply.closing] if reply.closing else [])
    return " ".join(p.strip() for p in parts if p.strip())
