"""The built-in extractor: deterministic rules for what small businesses publish, no model.

One sentence at a time (a website or document part may hold several; parts.split_sentences splits
them), each sentence cut into clauses ("... $250 and we need 4 weeks notice"). Recognised details
become one candidate each: opening hours and days, prices and fees, lead times, durations, delivery
and service radius, service areas, discounts, what is or is not offered or allowed, payment and
insurance accepted, phone, email and address. Temporary phrasing sets valid_from/valid_to.

Rules it keeps:
- Never infer: only what the text states ("Open Monday to Friday" says nothing about weekends).
- Aspect names are the same across wordings of the same subject ("price", "delivery fee",
  "hours monday-friday", "availability"), so the rules engine can compare candidates.
- Statements stand alone: "we"/"our"/"us"/"this property" become the business name, "it" the subject
  of the question; numbers are copied as written.
- Nothing real is lost: an owner's answer or a sentence with no recognised pattern is kept as one
  general fact (pure filler such as "Welcome!" is dropped).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from typing import Any

from apps.facts.lexical import content_words, stem
from apps.language.analysis import Token, analyse
from apps.language.contractions import with_apostrophes
from apps.language.holiday_names import mentions_holiday
from apps.language.lexicon import counts_beings, is_season, lexical_file, word_classes
from apps.language.shorthand import written_out
from apps.language.wordlists import categories
from apps.language.wordlists import words as word_table
from apps.language.words import without_notes

from .base import Candidate, ExtractionContext, check_text, match_topic, topic_key
from .builtin_dates import (
    Validity,
    dated_items,
    find_validity,
    mask,
    parse_days,
    parse_hours,
    timetable_row,
)
from .builtin_patterns import (
    ADDRESS_RE,
    ADVERB_OBJECT,
    ADVERBS,
    ANIMALS,
    AREA,
    CONDITION_BEFORE,
    CONTEXT_LABEL,
    DAY_PHRASE,
    DAY_WORD,
    DETERMINERS,
    DISTANCE_RE,
    DURATION_KINDS,
    DURATION_RE,
    EMAIL_RE,
    FEE_ASPECTS,
    FILLER_START,
    FREE_RE,
    INSURANCE_RE,
    LEAD,
    NOT_FREE_BEFORE,
    NOT_OFFERED,
    NOTICE_RE,
    OFFER_VERBS,
    PARTICLES,
    PASSIVE,
    PAYMENT_RE,
    PERCENT_RE,
    PERIOD,
    PERSON,
    PHONE_RE,
    PRED_WORDS,
    PREDICATE,
    PREMISES,
    PREP_CUT,
    PRICE_RE,
    PRONOUNS,
    SENTIMENT,
    TOPIC_ALIASES,
    TYPOGRAPHY,
    URL_RE,
    VERB_TOPICS,
    agree,
    alias_topic,
    be,
    capitalise,
    clauses_of,
    clean_np,
    conjugate_3sg,
    display_np,
    drop_stopwords,
    duration_value,
    full_clause,
    gerund,
    is_avail,
    join_compound_nouns,
    join_list,
    lemma_of,
    lower_first,
    mentions_in,
    object_phrase,
    period_of,
    plural,
    polarity,
    possessive,
    price_value,
    resolve,
    sentence_end,
    split_list,
    split_verb,
    statement_aspect,
    words_of,
)
from .parts import continued, dated_back, normalise, split_label, split_sentences
from .tables import RowCell, read_inline


def _without_dates(text: str, on: date) -> str:
    """``text`` without its date and weekday phrases and the words joining them to it ("Cosmic
    bowling on Friday and Saturday nights" -> "Cosmic bowling"), read by apps.language."""
    analysis = analyse(text, base_date=on)
    if not analysis.dates:
        return text
    first = min(m.start_char for m in analysis.dates)
    kept = [t for t in analysis.tokens if t.start_char < first]
    while kept and kept[-1].pos in ("ADP", "CCONJ", "PUNCT", "DET"):
        kept.pop()  # "... on", "... every"
    return text[: kept[-1].start_char + len(kept[-1].text)] if kept else ""


def _names_item(before: str, on: date) -> bool:
    """Whether the words before a price are only the name of an item ("Shop minimum $90"), not a
    condition on it ("free over $50", "minimum order of $30"): nouns and their modifiers, read by
    apps.language, with no preposition, verb or punctuation among them."""
    words = analyse(before.strip(), base_date=on).tokens
    return (
        0 < len(words) <= 4
        and words[-1].pos in ("NOUN", "PROPN")
        and all(t.pos in ("NOUN", "PROPN", "ADJ") for t in words)
    )


class BuiltinExtractor:
    """Deterministic extractor (see the module docstring)."""

    name = "builtin"

    def extract(self, text: str, context: ExtractionContext) -> list[Candidate]:
        text = check_text(text)
        if not text:
            return []
        text = with_apostrophes(text.translate(TYPOGRAPHY))  # "we dont" is "we don't"
        if context.source_kind == "owner_answer":
            text = written_out(text)  # "u can bring ur own wine": an owner types as in a chat
        run = _Run(context)
        if context.row is not None:  # a priced cell of a list or table: its structure is the fact
            return run.row_cell(context.row)
        question = with_apostrophes(written_out(normalise((context.question or "").translate(TYPOGRAPHY))))
        question = _asking_part(question, context.learned_on)
        if question:
            found = run.answer(question, normalise(text))
        else:
            found = []
            label, before = "", ""
            for sentence in split_sentences(text):
                found.extend(run.sentence(dated_back(continued(sentence, label), before)))
                label, before = split_label(sentence)[0], sentence
        return _dedupe(found)


def _asks_hours(question: str, on: date) -> bool:
    """Whether a question asks about opening hours: an opening word that is no modifier of a noun
    ("are you open Sunday?", "closing time?"; not "the open water course", "a closed-toe shoe")."""
    words = ("open", "opening", "close", "closing", "closed", "hours")
    # The cheap word test first: most owner questions are not about hours and need no parse.
    if not set(re.findall(r"[a-z]+", question.lower())) & set(words):
        return False
    tokens = analyse(question, base_date=on).tokens
    return any(
        t.text.lower() in words
        and not (t.dep in ("amod", "compound") and tokens[t.head].pos == "NOUN" and t.text.lower() != "hours")
        for t in tokens
    )


def _window_words_back(cand: Candidate, text: str, validity: Validity) -> Candidate:
    """A statement written from the sentence with its dates blanked out (so that "31" of "August 31"
    is read as no price) gets the dates' words back: "... for your first month (offer ends August
    31, 2027)", not "(offer          )"."""
    statement = cand.statement
    for start, end in validity.spans:
        blank = " " * (end - start)
        # After the word or bracket before it ("$7 (from 1 April)"), not inside that word's space.
        at = max(statement.find(" " + blank), statement.find("(" + blank))
        if end - start > 2 and at >= 0:
            statement = f"{statement[: at + 1]}{text[start:end]}{statement[at + 1 + len(blank) :]}"
    return cand if statement == cand.statement else cand.model_copy(update={"statement": statement})


# The words of opening and closing, by lemma ("opens", "closed", "shuts"); "closed" and "opening"
# are their own lemmas where the tagger reads an adjective or a noun.
_OPENING_LEMMAS = frozenset({"open", "opening", "close", "closed", "closing", "shut", "hour"})


def _noun_phrase(tokens: tuple[Token, ...], noun: Token) -> str:
    """A noun with the words before it that say which one ("cancellation charge", "late
    collection"), without articles or possessives."""
    mods = [t for t in tokens if t.head == noun.i and t.i < noun.i and t.dep in ("compound", "amod")]
    start = min([noun.i, *(t.i for t in mods)])
    return " ".join(t.text for t in tokens[start : noun.i + 1] if t.dep in ("compound", "amod") or t is noun)


@cache
def _price_words() -> frozenset[str]:
    """The one-word names of a price in the language layer's kinds table ("fee", "charge", "rate")."""
    return frozenset(p for p in categories("kinds.txt", separator="|").get("prices", ()) if " " not in p)


def _one_time_of_something(masked: str, specs: list[Any], hint: _Q | None) -> bool:
    """Whether the only time a sentence gives is one clock time, with no word of opening or closing:
    when something happens ("Tuesday Yin becomes Twilight Yin at 8:00 PM"), never the business's
    hours, which run from one time to another."""
    if hint is not None and hint.aspect.startswith("hours"):
        return False  # an answer to an hours question: "9am" is its opening time
    if _OPENING_LEMMAS & {t.lemma for t in analyse(masked, base_date=date.today()).tokens}:
        return False
    return all(s.value and re.fullmatch(r"\d{1,2}(?::\d\d)? [AP]M", s.value) for s in specs)


def _asking_part(question: str, on: date) -> str:
    """An owner's question up to its asking sentence: a remark the visitor added after it ("do you
    deliver to Bramley? it's about 12 miles") is context, not what the answer is about, and would
    otherwise name the topic. A remark before it stays ("We have a dog. Can he come?")."""
    if "?" not in question:
        return question
    sentences = analyse(question, base_date=on).sentences
    asking = [s for s in sentences if s.text.rstrip().endswith("?")]
    if len(asking) > 1:
        # Two questions ("Do you do wedding flowers? Is there a charge for the consultation?"): the
        # answer's yes or no is to the first; its other details answer the rest on their own.
        return question[: asking[0].end_char].strip()
    if not asking or asking[-1] is sentences[-1]:
        return question
    return question[: asking[-1].end_char].strip()


def _after_copula(sentence: str) -> str:
    """What follows a short subject and its verb before the first amount ("monthly is $95 ..." ->
    "$95 ..."): the subject is the question's item, said again in other words."""
    first = PRICE_RE.search(sentence)
    if first is None:
        return sentence
    head = re.match(
        r"(?i)^(?:\W*(?:yes|yep|yeah|sure)\b[\s,!.]*)?(?:(?:[\w'-]+\s+){0,3}?(?:is|are|'s)\s+)?",
        sentence[: first.start()],
    )
    return sentence[head.end() :] if head else sentence


def _variant_words(variant: str, on: date) -> str:
    """A cell's variant without its adverbs and leading "for" ("now for adults" -> "adults")."""
    words = [t.text for t in analyse(variant, base_date=on).tokens if t.pos not in ("ADV", "PUNCT")]
    if words and words[0].lower() == "for":
        words = words[1:]
    return " ".join(words)


def _dedupe(cands: list[Candidate]) -> list[Candidate]:
    """One candidate per subject and validity window (a list of dated hours gives one per day). A
    later one whose statement says all the kept one says and more (an owner's whole answer beside a
    detail read from it) lends the kept one its statement: the owner's words are not lost."""
    seen: dict[tuple[str, str, date | None, date | None], int] = {}
    out: list[Candidate] = []
    for cand in cands:
        key = (topic_key(cand.topic), cand.aspect.lower(), cand.valid_from, cand.valid_to)
        if key not in seen:
            seen[key] = len(out)
            out.append(cand)
            continue
        kept = out[seen[key]]
        if content_words(cand.statement) > content_words(kept.statement):
            out[seen[key]] = kept.model_copy(
                update={"statement": cand.statement, "value": kept.value or cand.value}
            )
    return out


# ----------------------------------------------------------------------------------------------
# Text helpers


@dataclass
class _Det:
    """A detail found in a clause, before it becomes a Candidate."""

    topic: str
    aspect: str
    value: str | None
    template: str  # statement when the clause cannot stand as the statement
    own_subject: bool = True  # the clause names this detail's subject itself
    temporal: bool = True  # the sentence's validity applies


# Prices only: yes/no aspects ("availability", "allowed") are told apart by their questions' words when
# the rules compare two owner answers (facts.services._same_question_subject).
_QUALIFIABLE_ASPECTS = {"price"}
# What a business does: "Does it <verb> ..." with one of these is a question about the business ("Does
# it take reservations?"), unlike "Does it cost extra?" or "Does it take long?".
_BUSINESS_VERBS = (
    r"serve|serves|offer|offers|have|has|sell|sells|accept|accepts|take (?!long\b|time\b|a while\b|ages\b)|"
    r"provide|provides|deliver|delivers|allow|allows|cater|caters|host|hosts|rent|rents|open|opens|close|closes"
)


def _plain_word(word: str) -> str:
    """A word as topic names compare: lowercase, no hyphen, no plural s ("Wi-Fi" = "wifi")."""
    plain = word.lower().replace("-", "")
    return plain[:-1] if plain.endswith("s") and len(plain) > 3 else plain


def _names_payment(phrase: str) -> bool:
    """ "forms of payment", "credit cards", "what you pay with": the question is about payment methods."""
    return bool(PAYMENT_RE.search(phrase) or re.search(r"(?i)\bpa(?:y|ying|yments?)\b", phrase))


def _period_phrase(text: str) -> str:
    """The period as the text says it, with its preposition: "on Christmas Day", "in winter"."""
    m = PERIOD.search(text)
    if not m:
        return ""
    before = re.search(r"(?i)\b(?:on|in|during|over|for|at)\s+(?:the\s+)?$", text[: m.start()])
    return text[before.start() if before else m.start() : m.end()]


def _mentions_verb(verb: str, text: str) -> bool:
    """Whether a text uses a verb in any form ("change" in "changes", "park" in "parking")."""
    root = verb[:-1] if verb.endswith("e") and len(verb) > 3 else verb
    return bool(re.search(rf"(?i)\b{re.escape(root)}\w*", text))


def _gerund_object(phrase: str) -> str:
    """What a fee is for: "using WiFi" -> "WiFi", "parking my bike" -> "bike parking"."""
    m = re.match(r"(?i)^(?P<verb>\w+ing)\s+(?:my|our|your|a|an|the)?\s*(?P<obj>.+)$", phrase.strip())
    if not m:
        return phrase
    if m.group("verb").lower() in {"using", "having", "getting", "bringing", "booking", "ordering"}:
        return m.group("obj")
    obj = re.split(r"(?i)\s+(?:at|in|on|for|with|from|during)\s+", m.group("obj"))[0]
    return f"{obj} {m.group('verb').lower()}"


def _without_leading_adverbs(vp: str) -> str:
    """ "still charge for towels" -> "charge for towels": an adverb before the verb of a question ("do
    you still / also / currently ...") says nothing of what is asked about, read on the parse. Not
    "only", which says what else is not ("do you only take cash?")."""
    subject = "they "  # parsed as a clause, so the adverb reads as the verb's
    tokens = analyse(subject + vp, base_date=date(2000, 1, 1)).tokens
    cut = 1
    while (
        cut < len(tokens)
        and tokens[cut].pos == "ADV"
        and tokens[cut].dep == "advmod"
        and tokens[cut].lemma not in word_table("exclusive.txt")
        and tokens[cut].lemma != "just"
    ):
        cut += 1
    return vp[tokens[cut].start_char - len(subject) :] if 1 < cut < len(tokens) else vp


# Where the noun phrase a question asks about stands in its parse, best first ("do you do turkeys"
# asks about its object, "how long does framing take" about its subject); people and animals ("can
# beginners go on a trail ride?") are who asks, so the thing after a preposition outranks them.
_CHUNK_ROLES = {"dobj": 0, "attr": 0, "nsubjpass": 1, "nsubj": 1, "pobj": 2}
_BEINGS_RANK = 3
_ASKER_RANK = 4  # the asker's own things ("my unit", "my pup")
_PRICE_OF_RANK = 5  # "the price" of "the price of a haircut": what it is of is the subject
_ASKER_POSSESSIVES = frozenset({"my", "our"})
_WH_TAGS = frozenset({"WDT", "WP", "WP$", "WRB"})


def _question_aux(token: Token) -> bool:
    """An auxiliary of do-support or a modal ("does framing take", "can beginners go"): the verb it
    carries is the question's own verb. By the tagger (MD) and the lemma, not a list of words."""
    return token.tag == "MD" or (token.pos == "AUX" and token.lemma == "do")


def _trailing_adverb(token: Token) -> bool:
    """An adverb ending a would-be name ("Dogs just", "Club anytime"), unless the dictionary knows
    the word as a noun: the tagger reads unfamiliar nouns in fragments as adverbs ("lockout")."""
    return token.pos == "ADV" and "NOUN" not in word_classes(token.text)


def _words_of_span(phrase: str, text: str, analysis: Any) -> list[Token]:
    """The tokens of ``analysis`` (the parse of ``text``) that spell ``phrase`` where it first
    stands in ``text``, without punctuation; none when it is not there."""
    at = text.lower().find(phrase.lower()) if phrase else -1
    if at < 0:
        return []
    return [t for t in analysis.tokens if at <= t.start_char < at + len(phrase) and not t.is_punct]


def _misread_phrase(phrase: str, question: str, analysis: Any) -> bool:
    """Whether the patterns' subject phrase of a question is not a noun phrase of it, read on the
    parse: it holds a pronoun ("Ye do turkeys") or an auxiliary, or the question's own verb with its
    subject ("Framing take", "Beginners go"), opens with a preposition, ends with an adverb ("Dogs
    just", "Lockers big enough"), or opens with the question's verb ("Taking bookings"). The tagger
    misreads casual noun compounds as verbs ("couples massage", "team building"), so a verb alone is
    no evidence; a verb with its subject and the question's auxiliary is."""
    words = _words_of_span(phrase, question, analysis)
    if not words:
        return False
    inside = {t.i for t in words}

    def asked_verb(verb: Token) -> bool:
        children = [t for t in analysis.tokens if t.head == verb.i and t.i != verb.i]
        has_subject = any(t.dep in ("nsubj", "nsubjpass") and t.i in inside for t in children)
        return has_subject and any(t.dep == "aux" and _question_aux(t) for t in children)

    return (
        any((t.pos == "PRON" and t.tag != "PRP$") or _question_aux(t) for t in words)
        # A verb, or the sentence's root whatever its tag ("how long does framing take": "take" read
        # as a noun).
        or any((t.pos in ("VERB", "AUX") or t.dep == "ROOT") and asked_verb(t) for t in words)
        # The question's own verb ending the name ("Has the price of the solo walks changed?", "Did
        # the large pizza go up?"); inside a name it is a misread compound ("emergency call out fee").
        or _ends_with_its_verb(words)
        or all(t.pos in ("VERB", "AUX") for t in words)
        or words[0].pos in ("ADP", "PART")
        or _trailing_adverb(words[-1])
        or (words[0].tag == "VBG" and words[0].dep == "ROOT")
    )


def _ends_with_its_verb(words: list[Token]) -> bool:
    """Whether a would-be name of several words ends with the question's verb and its particles
    ("solo walks changed", "large pizza go up"): the sentence's root, or a past participle the parse
    hung on the noun before it."""
    particle = words[-1].dep == "prt" or words[-1].tag == "RP"
    body = words[:-1] if len(words) > 2 and particle else words
    last = body[-1]
    return (
        len(body) > 1
        and last.pos in ("VERB", "AUX")
        and (last.dep == "ROOT" or (last.dep == "acl" and last.tag == "VBN"))
    )


def _misread_statement_words(raw: str, clause: str, analysis: Any) -> bool:
    """Whether the words a statement's patterns took for its subject are not a noun phrase, read on
    the parse (see ``_Run.parsed_clause_subject``)."""
    words = _words_of_span(raw, clause, analysis)
    if not words:
        return False
    return (
        any(t.pos == "PRON" and t.tag != "PRP$" for t in words)  # not "our" in "our chefs"
        or words[0].pos in ("SCONJ", "INTJ")
        or words[0].tag in _WH_TAGS
        or _trailing_adverb(words[-1])
    )


@dataclass
class _Q:
    """What an owner's question asks."""

    topic: str
    phrase: str  # the subject as written ("wedding cakes")
    aspect: str
    affirm: str = ""  # statement for "yes"
    deny: str = ""  # statement for "no"
    yes_value: str = "yes"
    no_value: str = "no"
    declarative: str = ""  # the question as a statement a fragment answer completes
    value_kind: str = ""  # "money" | "duration" | "distance"
    days: str | None = None  # an hours question's day key ("sunday"), "" for hours on no stated day
    days_text: str = ""  # the days as the question wrote them ("on Sundays")
    # Whether an answer without yes or no says yes by stating the thing ("We make them to order.");
    # not for "Do you charge for X?", where "X is included" means no.
    yes_from_details: bool = True
    action: str = ""  # the verb a "may I" question asks about ("change" in "Can I change my ticket?")


@dataclass
class _Run:
    context: ExtractionContext
    topics: list[str] = field(default_factory=list)
    last: _Subject | None = None  # the last subject named in the current sentence
    uncovered: bool = False  # the last sentence had a clause no pattern recognised

    def __post_init__(self) -> None:
        self.topics = list(self.context.existing_topics)
        self.biz = normalise(self.context.business_name) or "The business"
        self.biz_words = {w.lower() for w in words_of(self.biz)}

    # -- names ------------------------------------------------------------------------------

    def topic(self, phrase: str, *, alias: bool = True) -> str:
        """The topic a noun phrase names, reusing an existing topic of the same name."""
        cleaned = clean_np(phrase) if alias else normalise(phrase)
        name = (alias and (alias_topic(cleaned) or alias_topic(phrase))) or capitalise(cleaned)
        if not name:
            return ""
        found = match_topic(name, self.topics)
        if found == name and name not in self.topics:
            words = name.split()
            for k in range(1, len(words)):  # "Sourdough bread" -> an existing "Sourdough"
                shorter = match_topic(" ".join(words[:k]), self.topics)
                if shorter in self.topics and words[k].lower() in {"bread", "loaf", "loaves", "cake"}:
                    found = shorter
                    break
        if found not in self.topics:
            self.topics.append(found)
        return found

    def is_self(self, phrase: str) -> bool:
        """Whether a subject phrase is the business itself (we, our shop, the studio, its name)."""
        low = clean_np(phrase).lower() if phrase.strip() else ""
        raw = phrase.strip().lower()
        if not raw or raw in PRONOUNS or re.fullmatch(r"(?:we|i)(?:'re|'ve|'ll|'m)?", raw):
            return True
        if raw.startswith(("we ", "our team", "our staff", "the team")):
            return True
        if not low:
            return False
        if low in PREMISES or (low.split()[-1] in PREMISES and len(low.split()) <= 2):
            return True
        return bool(self.biz_words) and set(words_of(low)) <= self.biz_words | {"the"}

    def names_business(self, phrase: str) -> bool:
        """Whether a phrase, word for word, is the business or its premises ("the Burma Love", "your
        hotel", "Tadu Ethiopian Kitchen" for "Tadu Ethiopian Kitchen - Tenderloin")."""
        words = [w.lower().replace("'", "") for w in words_of(phrase)]
        if words and words[0] in {"the", "your", "this", "our"}:
            words = words[1:]
        if not words:
            return False
        if " ".join(words) in PREMISES:
            return True
        name = {w.replace("'", "") for w in self.biz_words}
        # Every word is the name's or a premises word ("The Kitava restaurant"), and one is the name's.
        return bool(set(words) & name) and set(words) <= name | PREMISES | {"the", "and", "&"}

    def about(self) -> str:
        """The topic of a statement that names none: the heading it sits under, the nearest one that
        is a name ("What's changing for summer" over a list says something; "Summer timetable 2026"
        above it names the section)."""
        crumbs = [c.strip() for c in self.context.heading.split(">")] if self.context.heading else []
        on = self.context.learned_on
        for heading in reversed(crumbs):
            if heading and not analyse(heading, base_date=on).has_finite_verb:
                if not re.search(
                    r"(?i)\b(?:home|welcome|about|faq|faqs|info|information|overview|main)\b", heading
                ):
                    return self.topic(heading)
                break
        return self.topic(f"About {self.biz}", alias=False)

    # -- one sentence ---------------------------------------------------------------------------

    def sentence(self, text: str, hint: _Q | None = None, *, keep_general: bool = True) -> list[Candidate]:
        """Candidates of one sentence; ``hint`` is the question it answers (for "it", elided subjects)."""
        text = join_compound_nouns(normalise(text))
        text = analyse(text, base_date=self.context.learned_on).announced or text  # "A reminder that ..."
        self.last = None
        # "Can we have fireworks? - Sorry, no: ...": the dash an FAQ puts between is not the answer's.
        qa = re.match(r"^(.{3,}?\?)\s+(?:[-\u2013\u2014:]+\s*)?(.+)$", text)
        if qa and hint is None:
            return self.answer(qa.group(1), qa.group(2))
        items = dated_items(text, self.context.learned_on)
        if len(items) > 1:
            return [c for item in items for c in self.sentence(item, hint, keep_general=keep_general)]
        validity = find_validity(text, self.context.learned_on)
        masked = mask(text, validity.spans)
        entry = self.timetable_entry(text, validity) if hint is None else []
        if entry:
            return entry
        found = self.contacts(text)
        hours = self.hours(text, masked, validity, hint)
        found.extend(hours)
        if hours and re.search(r"[$£€]\s?\d", masked):
            label, _, _ = split_label(text)
            for piece in re.split(r"[,;]\s*", masked):
                if re.search(r"[$£€]\s?\d", piece):
                    subject = self.subject(piece, label, hint)
                    found.extend(
                        self.candidates(self.prices(piece, subject, hint), piece, validity, hint, label)
                    )
        uncovered = False
        if not hours and not found:
            label, body, body_start = split_label(text)
            for clause, start in clauses_of(body, body_start):
                dets = self.clause(clause, masked[start : start + len(clause)], label, hint)
                if not dets:
                    uncovered = uncovered or not self.is_filler(clause)
                found.extend(self.candidates(dets, clause, validity, hint, label))
        self.uncovered = uncovered
        if (
            keep_general
            and (not found or (uncovered and found and hint is None))
            # A clause that says something keeps the sentence, whatever a remark beside it is ("dogs
            # go on solo walks only; it's safer and they enjoy it more").
            and ((uncovered and not found) or not self.is_filler(text))
        ):
            found.append(self.general(text, hint, validity))
        return [_window_words_back(c, text, validity) for c in found]

    def timetable_entry(self, text: str, validity: Validity) -> list[Candidate]:
        """A timetable's line ("6:30 AM Sunrise Flow (60 min) - Dana" under "MONDAY"): when that
        thing happens, filed under its name, one fact per day it is on, never the opening hours.
        The name is what comes before a bracketed note or a dash (the teacher, the room)."""
        row = timetable_row(text)
        if row is None:
            return []
        time, what = row
        name = re.split(r"\s*\(|\s+[-\u2013\u2014]\s+", what, maxsplit=1)[0].strip(" .,:")
        topic = self.topic(name, alias=False) if name else ""
        if not topic:
            return []
        crumbs = [without_notes(c) for c in self.context.heading.split(">")]
        heading = crumbs[-1] if crumbs else ""
        days = parse_days(what) or (parse_days(heading) if heading else None)
        said = sentence_end(text)
        if days and not parse_days(what):
            # The day the timetable gives in its heading, and what the timetable is ("Class schedule,
            # Monday: 6:30 AM Sunrise Flow"): the line alone names neither.
            said = sentence_end(f"{', '.join(c for c in crumbs[-2:] if c)}: {text}")
        return [
            Candidate(
                topic=topic,
                aspect=f"time {days}" if days else "time",
                value=time,
                statement=said,
                valid_from=validity.valid_from,
                valid_to=validity.valid_to,
            )
        ]

    def candidates(
        self, dets: list[_Det], clause: str, validity: Validity, hint: _Q | None, label: str = ""
    ) -> list[Candidate]:
        out: list[Candidate] = []
        for det in dets:
            if len(dets) == 1 and det.own_subject:
                text = f"{label}: {clause.strip()}" if label else clause
                statement = resolve(text, self.biz, hint.phrase if hint else None)
            else:
                statement = sentence_end(det.template)
            out.append(
                Candidate(
                    topic=det.topic,
                    aspect=det.aspect,
                    value=det.value,
                    statement=statement,
                    valid_from=validity.valid_from if det.temporal else None,
                    valid_to=validity.valid_to if det.temporal else None,
                )
            )
        return out

    # -- a priced cell of a list or table -------------------------------------------------------

    def row_cell(self, cell: RowCell) -> list[Candidate]:
        """One fact: the row's item as topic, the column (or the row under a caption) as the price's
        variant ("price for suv"), the amount as written."""
        # The item is a whole name by construction ("Take in waist", "Private office for 4"): no
        # noun-phrase trimming, only its bracketed note left to the statement.
        name = normalise(re.sub(r"\([^)]*\)", " ", cell.item)) or cell.item
        topic = self.topic(name, alias=False)
        if not topic:
            return []
        aspect = FEE_ASPECTS.get(topic, "price")
        variant = normalise(re.sub(r"\([^)]*\)", " ", cell.variant)).lower().strip(" ,")
        if variant:
            aspect = f"{aspect} for {variant}"
        validity = find_validity(cell.text(), self.context.learned_on)
        return [
            Candidate(
                topic=topic,
                aspect=aspect,
                value=cell.value,
                statement=sentence_end(cell.text()),
                valid_from=validity.valid_from,
                valid_to=validity.valid_to,
            )
        ]

    # -- contact details ------------------------------------------------------------------------

    def contacts(self, text: str) -> list[Candidate]:
        out: list[Candidate] = []
        contact = self.topic("Contact", alias=False)
        emails = list(EMAIL_RE.finditer(text))
        for m in emails:
            email = m.group(0).rstrip(".")
            out.append(
                self._cand(contact, "email", email, f"{possessive(self.biz)} email address is {email}.")
            )
        blocked = [(m.start(), m.end()) for m in emails]
        for m in URL_RE.finditer(text):
            if any(a <= m.start() < b for a, b in blocked):
                continue
            url = m.group(0).rstrip(".")
            out.append(self._cand(contact, "website", url, f"{possessive(self.biz)} website is {url}."))
            blocked.append((m.start(), m.end()))
        # A run of digits the date reader read as a date ("July 13-24 2026", "2025-26") is not a number.
        dates = [(d.start_char, d.end_char) for d in analyse(text, base_date=self.context.learned_on).dates]
        for m in PHONE_RE.finditer(text):
            phone = m.group(1).strip()
            digits = re.sub(r"\D", "", phone)
            if not 7 <= len(digits) <= 15 or any(a <= m.start() < b for a, b in blocked):
                continue
            if any(m.start(1) < b and a < m.end(1) for a, b in dates):
                continue
            if re.fullmatch(r"(?:19|20)\d\d\s*-\s*(?:19|20)?\d\d", phone):
                continue  # a span of years
            if re.fullmatch(r"\d{1,2}\.\d\d\s*-\s*\d{1,2}\.\d\d", phone):
                continue  # "10.00 - 17.30": a span of the clock (or of prices), two groups, no number
            other = re.search(
                r"\b(?:call|contact|ring|phone|text)\s+(?:the\s+)?(?P<name>(?:[A-Z][\w'&.-]*\s+){1,8}?)(?:at|on)\s*:?\s*$",
                text[: m.start()],
            )
            if other and not self.names_business(other.group("name").strip()):
                continue  # "call the Northside Animal Hospital at ...": someone else's number
            kind = "WhatsApp" if re.search(r"(?i)whatsapp", text) else "phone"
            what = "WhatsApp number" if kind == "WhatsApp" else "phone number"
            aspect = "whatsapp" if kind == "WhatsApp" else "phone"
            out.append(self._cand(contact, aspect, phone, f"{possessive(self.biz)} {what} is {phone}."))
        for m in ADDRESS_RE.finditer(text):
            address = m.group(0).strip().rstrip(".,")
            location = self.topic("Location", alias=False)
            out.append(self._cand(location, "address", address, f"{self.biz} is located at {address}."))
        return out

    def _cand(self, topic: str, aspect: str, value: str | None, statement: str) -> Candidate:
        return Candidate(topic=topic, aspect=aspect, value=value, statement=sentence_end(statement))

    # -- opening hours --------------------------------------------------------------------------

    def hours(self, text: str, masked: str, validity: Validity, hint: _Q | None) -> list[Candidate]:
        if not re.search(
            r"(?i)\b(?:open|opens|opening|closed|closes|close|hours?|times?|run|runs|served|serve|available|"
            r"classes|sessions?|check-?in|check-?out|reception|schedule|appointments?)\b|24/7|\d\s?[ap]\.?m\b|:\s*\d",
            masked,
        ) and not (re.search(DAY_WORD, masked) and re.search(r"\d", masked)):
            return []
        if re.search(r"(?i)\b(?:notice|in advance|ahead|within|minutes?|long)\b", masked) and not re.search(
            r"(?i)\b(?:open|closed|hours)\b", masked
        ):
            return []
        specs = parse_hours(
            masked,
            open_word=bool(re.search(r"(?i)\bopen\b", masked))
            or (hint is not None and hint.days is not None),
        )
        if not specs:
            return []
        if any(s.value is None for s in specs) and re.search(
            r"(?i)\b(?:available|only|served|serve)\b", masked
        ):
            specs = [
                s for s in specs if s.value is not None
            ]  # "available on Saturdays only" is no opening day
            if not specs:
                return []
        if not re.search(r"(?i)\b(?:open|hours)\b", masked):
            specs = [s for s in specs if s.value != "by appointment" or s.day_key]
            if not specs:
                return []
        season = self.season_label(masked) if validity.seasons else ""
        # The months a line's hours hold in name no thing whose hours they are ("Apr-Oct: daily 9-5").
        topic = (
            self.topic("Opening hours", alias=False)
            if season
            else self.hours_topic(mask(masked, validity.months), hint)
        )
        if topic == self.topic("Opening hours", alias=False) and _one_time_of_something(masked, specs, hint):
            return []
        framed = re.match(r"(?i)\W*(?:(?:from|between|in|during|over|on|at|for)\s+(?:the\s+)?)?", masked)
        opening = masked[framed.end() :] if framed else masked
        period = period_of(opening[:40])
        if period and not validity.spans and PERIOD.match(opening):
            # "In winter we close at 5pm on weekdays.": the hours of a period, one fact (see PERIOD).
            statement = resolve(text, self.biz, hint.phrase if hint else None)
            return [Candidate(topic=topic, aspect=f"hours {period}", value=None, statement=statement)]
        out: list[Candidate] = []
        for spec in specs:
            if spec.value is None:
                aspect, value = "days open", spec.day_key
            else:
                day = spec.day_key or (hint.days if hint is not None and hint.days else None)
                aspect = f"hours {day}" if day else "hours"
                value = spec.value
            if season:  # "Summer (1 April - 30 September): Mon-Fri 7am-10pm": each season its own hours
                aspect = f"{aspect} in {season}"
            if len(specs) == 1 and hint is not None and hint.declarative and not full_clause(text):
                statement = sentence_end(f"{hint.declarative} {lower_first(text)}")
            elif len(specs) == 1 and (
                analyse(text, base_date=self.context.learned_on).has_finite_verb
                or re.search(r"(?i)\b(?:available|served|open|closed|offered)\b", text)
            ):
                # A sentence of its own ("Members with a desk get 24/7 keycard access") is kept as
                # written: a template of days and times would drop who or what the hours are for.
                statement = resolve(text, self.biz, hint.phrase if hint else None)
            else:
                statement = self.hours_statement(
                    topic, spec.day_text, spec.time_text, spec.value, text, validity
                )
            out.append(
                Candidate(
                    topic=topic,
                    aspect=aspect,
                    value=value,
                    statement=statement,
                    valid_from=validity.valid_from,
                    valid_to=validity.valid_to,
                )
            )
        if len(out) > 1 and self.loses_words(masked, out):
            # "Bands need to finish by 11.30pm, bar closes at midnight and everyone needs to be off site
            # by 12.30am": the days-and-times templates keep the times and drop who and what, so the
            # sentence is kept too, as written, as a detail of its own.
            out.append(self.general(text, hint, validity))
        return out

    def season_label(self, masked: str) -> str:
        """The season a label of recurring hours names and nothing else ("Summer (1 April - 30
        September): ..." -> "summer"), or ""."""
        label = split_label(masked)[0]
        words = [
            t
            for t in analyse(label, base_date=self.context.learned_on).tokens
            if t.text.strip() and not (t.is_punct or t.is_stop)
        ]
        return words[0].lemma if len(words) == 1 and is_season(words[0].lemma) else ""

    def hours_statement(
        self, topic: str, days: str, times: str, value: str | None, text: str, validity: Validity
    ) -> str:
        when = ""
        said = validity.spans if validity.temporary else validity.seasons + validity.months
        if said:
            when = " (" + "; ".join(text[a:b].strip(" ,.") for a, b in said) + ")"
        single = (
            re.fullmatch(rf"(?:{DAY_WORD}|(?i:(?:bank |public )?holidays))", days.strip()) if days else None
        )
        on = f"on {days}" if single else days
        if value == "closed":
            return sentence_end(f"{self.biz} is closed {on}{when}")
        season = self.season_label(mask(text, validity.spans)) if validity.seasons else ""
        if season:
            return sentence_end(f"In {season}{when}, {self.biz} is open {on}, {times}".replace(" , ", " "))
        if topic == "Opening hours" or self.is_self(topic):
            return sentence_end(f"{self.biz} is open {on}, {times}{when}".replace(" , ", " "))
        return sentence_end(f"{topic} at {self.biz}: {days}, {times}{when}".replace(": , ", ": "))

    def hours_topic(self, masked: str, hint: _Q | None) -> str:
        label, body, _ = split_label(masked)
        label_words = analyse(label, base_date=self.context.learned_on) if label else None
        if label_words is not None and label_words.has_finite_verb:
            label, body = "", masked  # a clause, not a label ("Our staff are away: we are closed ...")
        elif label_words is not None and all(t.is_stop or t.is_punct for t in label_words.tokens):
            label = ""  # what is left of a label of dates ("July and August:") names nothing
        if label and not parse_days(label):
            if not re.search(r"(?i)hours|times|schedule|open|clos", label):  # "CLOSED: 24 Dec - 4 Jan"
                return self.topic(label)
            named = self.named_before_times(label)  # "Pool hours: 7am-9pm"
            if named:
                return self.topic(named)
            # A label of opening hours that names nothing ("Summer opening hours (1 June - 31 August):
            # the boatyard is open ..."): the business's own hours, whatever its place is called after it.
            return self.topic("Opening hours", alias=False)
        body = self.hours_clause(body)
        m = re.match(
            r"^\s*(?P<np>[^,;:]*?)\s+(?:is|are|will be|runs?|served|opens?|closes?|starts?|takes? place|"
            r"happens?|begins?|available|served|offered)\b",
            body,
        )
        if m and m.group("np").strip():
            np = m.group("np")
            cleaned = clean_np(np)
            if (
                cleaned
                and not self.is_self(np)
                and not re.search(r"(?i)\b(?:hours|times)\b", cleaned)
                and not self.a_clause(np)
            ):
                return self.topic(np)
        if hint is not None and hint.topic and hint.aspect.startswith("hours"):
            return hint.topic
        named = self.named_before_times(body)
        if named:
            return self.topic(named)
        m = re.search(r"(?i)\bfor\s+(?:all\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*)?)", body)
        if m and alias_topic(m.group(1)):
            return self.topic(m.group(1))
        return self.topic("Opening hours", alias=False)

    def a_clause(self, words: str) -> bool:
        """Whether words before a verb are a clause of their own, not a name: a subject and its verb
        ("we've changed Saturdays from June - open 9 till 4") or a pronoun ("We're open ...")."""
        analysis = analyse(words, base_date=self.context.learned_on)
        lead = next((t for t in analysis.tokens if not t.is_punct), None)
        return analysis.has_finite_verb or (lead is not None and lead.pos == "PRON")

    def hours_clause(self, body: str) -> str:
        """Of two clauses joined by a colon or semicolon, the one that gives the hours, when the first
        states something of its own ("Dr. Okafor will be at a seminar: the office is closed October
        28-30" is the office's closure, not Dr. Okafor's hours)."""
        for sep in (": ", "; "):
            first, found, rest = body.partition(sep)
            if (
                found
                and parse_hours(rest)
                and not parse_hours(first)
                and analyse(first, base_date=self.context.learned_on).has_finite_verb
            ):
                return rest
        return body

    def named_before_times(self, body: str) -> str:
        """The thing whose hours a verbless line gives, named before its first day or time
        ("Attendant on duty 8am-8pm", "Kitchen 11am-9pm", "Kids story time every Saturday at 10:30");
        "" when that is the business, its opening hours, or nothing ("Open 6am to 11pm")."""
        analysis = analyse(body, base_date=self.context.learned_on)
        first = re.search(rf"\d|{DAY_WORD}", body)
        end = min([first.start() if first else len(body), *(m.start_char for m in analysis.dates)])
        words: list[Token] = []
        nouns: list[Token] = []
        tokens = analysis.tokens
        for index, token in enumerate(tokens):
            joined = words and words[-1].tag == "HYPH"
            if joined or (
                words and token.tag == "HYPH" and body[token.start_char - 1 : token.start_char] != " "
            ):
                # A hyphen inside a word and the part after it belong to the name ("Walk-ins",
                # "Drop-in sessions"): the compound is one noun however its parts are tagged.
                words.append(token)
                if joined:
                    nouns.append(token)
                continue
            if token.start_char >= end or (words and token.pos in ("ADP", "PUNCT", "VERB", "AUX")):
                break  # the name ends at its preposition or verb ("Attendant on duty", "... - Open")
            # The name starts the line; a first word tagged a verb that no dictionary lists as one is
            # the tagger's slip on a fragment ("Attendant on duty").
            # A hyphenated compound is a noun however its first part is tagged ("Drop-in sessions").
            compound = index + 1 < len(tokens) and tokens[index + 1].tag == "HYPH"
            named = token.pos in ("NOUN", "PROPN", "ADJ") or (
                not words and token.pos == "VERB" and ("VERB" not in word_classes(token.text) or compound)
            )
            if not (named or (words and token.pos == "PART")):
                break
            words.append(token)
            if token.pos != "ADJ" and token.pos != "PART":
                nouns.append(token)
        hours_words = {"hour", "opening", "time", "open"}
        if not nouns or all(t.lemma in hours_words for t in nouns):
            return ""  # "Opening times", "Hours"
        # "Gate access hours", "Kitchen opening times": that thing's hours. A singular "time" is part
        # of a name ("Toddler splash time"), and so is a hyphenated one ("Term-time").
        named_hours = False
        while (
            len(nouns) > 1
            and nouns[-1].lemma in hours_words
            and (nouns[-1].tag == "NNS" or nouns[-1].lemma == "opening")
            and words[words.index(nouns[-1]) - 1].tag != "HYPH"
        ):
            words, nouns, named_hours = words[: words.index(nouns[-1])], nouns[:-1], True
        if nouns[-1].lemma not in hours_words and lexical_file(nouns[-1].lemma) == "noun.time":
            return ""  # it says when, not what: "Summer 9am-5pm", "Evening hours"
        if nouns == words[:1] and not named_hours and "VERB" in word_classes(words[0].text):
            return ""  # an imperative, not a name ("Book online 24/7", "Call 9-5")
        name_end = nouns[-1].start_char + len(nouns[-1].text)
        if body[name_end : name_end + 3] == "   " or mentions_holiday(
            body[: end + 12], year=self.context.learned_on.year
        ):
            # Right before a date (masked here) or in a holiday's name, it names a day ("Easter
            # Monday 6 April 10am-4pm"), not a thing.
            return ""
        name = body[words[0].start_char : name_end]
        return "" if self.is_self(name) else name

    # -- one clause -----------------------------------------------------------------------------

    def clause(self, clause: str, masked: str, label: str, hint: _Q | None) -> list[_Det]:
        lead = LEAD.match(clause)
        if lead and len(clause) - lead.end() > 3:
            clause, masked = clause[lead.end() :], masked[lead.end() :]
        clause = clause.strip().rstrip(".!")
        if not clause:
            return []
        subject = self.subject(masked, label, hint)
        dets = self.payment(clause, hint) or self.service_area(clause)
        if dets:
            return dets
        dets = self.prices(masked, subject, hint)
        dets += self.notice(masked, subject, hint)
        dets += self.durations(masked, subject, hint)
        dets += self.distance(masked, subject, hint)
        dets += self.discount(masked, subject, label)
        offered = self.offering(masked, subject, hint)
        have = {d.topic for d in dets}
        dets += [
            d
            for d in offered
            if d.topic not in have and not (d.aspect == "availability" and dets and d.value == "yes")
        ]
        return dets

    def subject(self, clause: str, label: str, hint: _Q | None) -> _Subject:
        """The subject of a clause: the noun phrase before its predicate, else the label or question."""
        m = PREDICATE.search(clause)
        price = PRICE_RE.search(clause)
        cut = min(m.start() if m else len(clause), price.start() if price else len(clause))
        pct = re.search(r"\d+(?:\.\d+)?\s?%", clause)
        if pct:
            cut = min(cut, pct.start())
        raw = clause[:cut].strip(" ,:;-+")  # "Rush: +$35": the sign is the amount's (an extra charge)
        # "On the 12-month contract, early cancellation costs $150": the subject follows the opening
        # phrase (it was read as no subject, and the price went to the question's topic, membership).
        raw = re.sub(
            r"(?i)^(?:on|in|for|with|at|during|after|before|under|from|outside)\b[^,]{1,60},\s*(?=\w)",
            "",
            raw,
        )
        # "There is a 10% discount ...": an existential "there" names nothing; the question does.
        raw = re.sub(
            r"(?i)^there(?:'s|\s+(?:is|are|will be|was|were))?(?:\s+(?:a|an|some|also))?\b\s*", "", raw
        )
        raw = (
            re.sub(r"(?i)^(?:free|now|also|currently|please note,?)\s+", "", raw)
            if raw.lower() != "free"
            else ""
        )
        if raw and clean_np(raw):
            raw = self.parsed_clause_subject(raw, clause)
        if not raw or not clean_np(raw):
            if label and not CONTEXT_LABEL.search(label) and not parse_days(label):
                return _Subject(self.topic(label), display_np(label), True)
            undated = _without_dates(label, self.context.learned_on) if label else ""
            if undated and not CONTEXT_LABEL.search(undated) and clean_np(undated):
                # "Cosmic bowling on Friday and Saturday nights: $23": the label names the thing
                # and when; the thing is the label without its date phrase (the language layer's).
                return _Subject(self.topic(undated), display_np(undated), True)
            if self.last is not None:
                return _Subject(self.last.topic, self.last.phrase, False)
            if hint is not None and hint.topic:
                return _Subject(hint.topic, hint.phrase, False)
            return _Subject("", "", False)
        verbs_only = re.findall(r"[\w'-]+", raw.lower())
        if len(verbs_only) >= 2 and all(w in OFFER_VERBS or w in {"and", "or", "&"} for w in verbs_only):
            raw = ""  # "supply and fit from £650": the subject is elided
            if self.last is not None:
                return _Subject(self.last.topic, self.last.phrase, False)
            if hint is not None and hint.topic:
                return _Subject(hint.topic, hint.phrase, False)
            return _Subject("", "", False)
        if re.fullmatch(r"(?i)(?:it|they|this|that|these|those)(?:'s)?", raw):
            if hint is not None and hint.topic:
                return _Subject(hint.topic, hint.phrase, True)
            if self.last is not None:
                return _Subject(self.last.topic, self.last.phrase, False)
            return _Subject("", "", False)
        if self.is_self(raw):
            if hint is not None and hint.topic:
                return _Subject(hint.topic, hint.phrase, False, is_self=True)
            return _Subject("", "", True, is_self=True)
        if label and not CONTEXT_LABEL.search(label) and not parse_days(label) and self.describes(raw):
            return _Subject(self.topic(label), display_np(label), True)
        found = _Subject(self.topic(raw), display_np(raw), True)
        if found.topic:
            self.last = found
        return found

    def parsed_clause_subject(self, raw: str, clause: str) -> str:
        """The words before a clause's predicate, or its subject read on the parse where those words
        are not a noun phrase: they hold a pronoun ("they're free", "nah we"), open with a
        conjunction or a wh-word ("if you prepay 12 months") or end with an adverb. (A verb in them
        is no evidence: the tagger reads noun compounds as verbs, "day pass", "comforters fit".)
        Then the subject is the clause's subject in those words ("it" for a pronoun, "we" for
        the business: the caller then takes the question's or the last subject)."""
        analysis = analyse(clause, base_date=self.context.learned_on)
        if not _misread_statement_words(raw, clause, analysis):
            return raw
        # The subject nearest the predicate the patterns found ("we're licensed gas fitters too, a
        # gas cooktop install (is $250)": the install).
        starts = {t.start_char for t in _words_of_span(raw, clause, analysis)}
        subjects = [c for c in analysis.noun_chunks if c.dep.startswith("nsubj") and c.start_char in starts]
        if not subjects:
            return raw  # no subject of its own (an imperative: "Arrive 15 minutes early"): as it was
        chunk = subjects[-1]
        if chunk.is_pronoun:
            return "we" if self.is_self(chunk.text) and chunk.head in ("we", "i") else "it"
        return chunk.text

    def describes(self, raw: str) -> bool:
        """Whether the words before a labelled line's price describe the label's thing rather than
        name another: what it gives "for" the price ("Unlimited Club: Deluxe every day for
        $34.99/month") or what to do ("Loyalty card: buy 10 books, get $10 off")."""
        tokens = [t for t in analyse(raw, base_date=self.context.learned_on).tokens if not t.is_punct]
        if not tokens:
            return False
        return tokens[-1].lemma == "for" or (tokens[0].tag == "VB" and tokens[0].dep == "ROOT")

    # -- detail handlers ------------------------------------------------------------------------

    def payment(self, clause: str, hint: _Q | None) -> list[_Det]:
        insurance = INSURANCE_RE.search(clause)
        pay = PAYMENT_RE.search(clause)
        if not insurance and not pay:
            return []
        hinted = hint is not None and hint.topic in {"Payment", "Insurance"}
        verb = re.search(
            r"(?i)\b(?:accept(?:s|ed|ing)?|tak(?:es?|en|ing)|pay(?:ments?)? (?:by|with|via|in)|paying (?:by|with)|"
            r"payment (?:is |can be made )?(?:by|with|via|in))\b",
            clause,
        )
        if verb is None and not hinted and not re.search(r"(?i)\bonly\b|\bwelcome\b", clause):
            return []
        body = clause[verb.end() :] if verb else clause
        body = re.sub(r"(?i)\s+(?:are|is)?\s*(?:accepted|welcome|only)\b.*$", "", body)
        body = re.sub(r"(?i)^(?:only\s+)?", "", body.strip())
        negated = bool(
            re.search(
                r"(?i)\b(?:don't|do not|doesn't|does not|no longer|not|cannot|can't)\b",
                clause[: verb.start()] if verb else "",
            )
            or re.search(r"(?i)\bnot accepted\b", clause)
        )
        parts = re.split(
            r"(?i)\s*,?\s*\b(?:but not|except(?: for)?|excluding|apart from|other than|but no)\b\s*",
            body,
            maxsplit=1,
        )
        pos = split_list(parts[0]) if not negated else []
        neg = split_list(parts[1]) if len(parts) > 1 else []
        if negated:
            neg = split_list(parts[0]) + neg
        topic = self.topic("Insurance" if insurance else "Payment", alias=False)
        what = "insurance" if insurance else "payment"
        dets: list[_Det] = []
        if pos:
            value = ", ".join(i.lower() for i in pos)
            aspect = "insurance accepted" if insurance else "payment methods"
            dets.append(_Det(topic, aspect, value, f"{self.biz} accepts {join_list(pos)}", temporal=True))
        for item in neg:
            dets.append(_Det(topic, f"{what}: {item.lower()}", "no", f"{self.biz} does not accept {item}"))
        return dets

    def service_area(self, clause: str) -> list[_Det]:
        m = AREA.search(clause)
        if not m:
            return []
        items = split_list(m.group("list"))
        items = [
            i for i in items if not parse_days(i) and not PAYMENT_RE.search(i) and not INSURANCE_RE.search(i)
        ]
        if not items or any(i.split()[0].lower() in DETERMINERS - {"the"} for i in items):
            return []
        delivery = bool(re.search(r"(?i)deliver", m.group("verb")))
        topic = self.topic("Delivery" if delivery else "Service area", alias=False)
        aspect = "delivery area" if delivery else "service area"
        verb = "delivers to" if delivery else "serves"
        return [_Det(topic, aspect, ", ".join(items), f"{self.biz} {verb} {join_list(items)}")]

    def prices(self, clause: str, subject: _Subject, hint: _Q | None) -> list[_Det]:
        best: tuple[int, str, str] | None = None  # (position, value, text as written)
        for m in PRICE_RE.finditer(clause):
            if CONDITION_BEFORE.search(clause[: m.start()]) and not _names_item(
                clause[: m.start()], self.context.learned_on
            ):
                continue
            best = (m.start(), price_value(m), m.group(0).strip())
            if m.start() and clause[m.start() - 1] == "+":  # "+$35": an extra charge, and says so
                best = (m.start() - 1, best[1], "+" + best[2])
            break
        for m in FREE_RE.finditer(clause):
            if NOT_FREE_BEFORE.search(clause[: m.start()]):
                continue
            if best is None or m.start() < best[0]:
                best = (m.start(), "free", "free")
            break
        if best is None:
            return []
        priced = self.priced_by_of(clause, best[0]) if best[1] != "free" else ""
        if priced:
            # "our labour rate of £68 per hour", "a cancellation charge of £25": the amount is the
            # named noun's; the sentence as written is the statement.
            topic = self.topic(priced)
            return [_Det(topic, FEE_ASPECTS.get(topic, "price"), best[1], resolve(clause, self.biz))]
        topic, phrase, own = subject.topic, subject.phrase, subject.own
        after_noun = False
        if subject.is_self:  # "we offer bridal packages from $250": the price is the object's
            verbs = [
                w
                for w in re.finditer(r"[A-Za-z][\w'-]*", clause[: best[0]])
                if lemma_of(w.group(0)) in OFFER_VERBS
            ]
            if verbs:
                np = clause[verbs[-1].end() : best[0]]
                np = re.sub(r"(?i)\s+(?:from|for|at|starting|starts|costing|priced|is|are)\s*$", "", np)
                if clean_np(np):
                    topic, phrase, own = self.topic(np), clean_np(np), False
        if best[1] == "free" and (not topic or subject.is_self):
            after = re.match(r"(?i)free\s+(.+)$", clause[best[0] :])
            if after and clean_np(after.group(1)):
                topic, phrase, own = self.topic(after.group(1)), clean_np(after.group(1)), True
        if not topic or not clause[: best[0]].strip():  # "A $20 deposit is required", "$5 draft beers"
            after = re.match(
                r"\s*([a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)(?=\s+(?:is|are|applies|required|charged|payable|will|for|on)\b|\s*[,.;]|\s*$)",
                clause[best[0] + len(best[2]) :],
            )
            if (
                after
                and clean_np(after.group(1))
                and not re.match(r"(?i)(?:per|a|an|each|only|plus|off)\b", after.group(1))
            ):
                topic, phrase, own = self.topic(after.group(1)), display_np(after.group(1)), True
            after_noun = True
        if not topic:
            after = re.search(
                r"(?i)\bfor (?:a |an |the |each |one |every )?([a-z][\w' -]{2,40})$", clause[best[0] :]
            )
            if after and clean_np(after.group(1)):
                topic, phrase, own = self.topic(after.group(1)), clean_np(after.group(1)), False
        if not topic:
            return []
        aspect = FEE_ASPECTS.get(topic, "price")
        if hint is not None and hint.topic == topic and hint.aspect.startswith(f"{aspect}: "):
            aspect = hint.aspect  # the question's qualifier ("parking fee: bike")
        variant = re.search(r"(?i)\bfor\s+(.+)$", phrase)
        generic = r"(?i)(?:all\s+)?(?:customers|guests|clients|everyone|you|visitors|patrons)\b"
        if (
            aspect == "price"
            and variant
            and clean_np(variant.group(1))
            and not re.match(generic, variant.group(1))
        ):
            aspect = f"price for {clean_np(variant.group(1)).lower()}"
        name = capitalise(phrase or topic)
        written = best[2]
        if best[1] != "free":
            # "5 for $100 or 10 for $180", "$3.50 each or $18 for six": the price is the whole offer,
            # not its first number ("Class packs are $100" was stored for the first).
            later = [m for m in PRICE_RE.finditer(clause, best[0] + len(best[2])) if m.start() - best[0] < 60]
            qty = re.search(
                r"(?i)\b(?:\d+|one|two|three|four|five|six|ten|twelve)\s+for\s*$", clause[: best[0]]
            )
            if later or qty:
                end = later[-1].end() if later else best[0] + len(best[2])
                per = re.match(
                    r"(?i)\s*(?:each|per \w+|an? \w+|for (?:an? |one |two |three |\d+ )?[\w-]+)", clause[end:]
                )
                end += per.end() if per else 0
                written = clause[qty.start() if qty else best[0] : end].strip()
        gap = clause[: best[0]]
        verbless = not PREDICATE.search(gap) and not re.match(r"(?i)starts? at", written)
        if (
            own
            and not after_noun
            and subject.phrase
            and verbless
            and best[1] != "free"
            and not re.search(r"\bfor\s*$", gap)
        ):
            tail = clause[best[0] + len(written) :].rstrip(" .")
            verb = be(
                PREP_CUT.sub("", name) or name
            )  # "Sourdough loaves are", "Full groom for small dogs is"
            return [_Det(topic, aspect, best[1], f"{name} {verb} {written}{tail}", own_subject=False)]
        if best[1] == "free":
            short = capitalise(clean_np(name) or name)
            template = f"{short} {be(short)} free"
        elif aspect.endswith("fee"):
            template = f"{topic} costs {written}"
        elif re.match(r"(?i)(?:\d|[$£€])", written) is None:
            template = f"{name} {be(name)} {written}"
            if re.match(r"(?i)starts? at", written):
                template = f"{name} {agree('start', name)} at {written.split(' at ', 1)[-1]}"
        else:
            template = f"{name} {be(name)} {written}"
        return [_Det(topic, aspect, best[1], template, own_subject=own)]

    def priced_by_of(self, clause: str, at: int) -> str:
        """What an amount is of, when the parse says ("a cancellation charge of £25", "our labour
        rate of £68 per hour"): the noun whose "of" takes the amount, with the words that say which
        one. A bare price word ("a fee of £10") is of the clause's subject ("Late collection"); any
        other bare noun ("a minimum of", "a total of") says too little, and the other rules read it."""
        tokens = analyse(clause, base_date=self.context.learned_on).tokens
        amount = next((t for t in tokens if t.start_char >= at and t.like_num), None)
        if amount is None or amount.dep != "pobj":
            return ""
        of = tokens[amount.head]
        noun = tokens[of.head]
        if of.lemma != "of" or of.dep != "prep" or noun.pos != "NOUN" or noun.i == of.i:
            return ""
        named = _noun_phrase(tokens, noun)
        if named != noun.text:
            return named
        if noun.lemma not in _price_words():
            return ""
        subjects = [t for t in tokens if t.dep in ("nsubj", "nsubjpass") and t.pos in ("NOUN", "PROPN")]
        if len(subjects) != 1 or self.is_self(subjects[0].text):
            return ""
        return _noun_phrase(tokens, subjects[0])

    def notice(self, clause: str, subject: _Subject, hint: _Q | None) -> list[_Det]:
        m = NOTICE_RE.search(clause)
        if not m:
            return []
        value = duration_value(m.group("dur"))
        if re.search(r"(?i)\bcancel", clause):
            topic = self.topic("Cancellations", alias=False)
            said = (
                m.group(0)
                if re.search(r"(?i)notice|advance", m.group("tail"))
                else f"{m.group('dur')} notice"
            )
            return [
                _Det(topic, "cancellation notice", value, f"Cancellations need {said}", own_subject=False)
            ]
        topic, phrase, own = subject.topic, subject.phrase, subject.own
        if not topic:
            after = re.search(r"(?i)\bfor (?:all |any |a |an |the |your )?([a-z][\w' -]{2,40})", clause)
            if after and clean_np(after.group(1)):
                topic, phrase, own = self.topic(after.group(1)), clean_np(after.group(1)), False
        if not topic:
            # "Please book at least 48 hours in advance": notice for bookings or orders in general.
            what = re.search(r"(?i)\b(book|booking|reserv\w*|appointment|order)", clause)
            if what:
                general = "Orders" if what.group(1).lower().startswith("order") else "Bookings"
                topic, phrase, own = self.topic(general), general, False
        if not topic:
            return []
        name = capitalise(phrase or topic)
        said = (
            m.group(0)
            if re.search(r"(?i)notice|advance|lead time", m.group("tail"))
            else f"{m.group('dur')} notice"
        )
        return [_Det(topic, "lead time", value, f"{name} {agree('need', name)} {said}", own_subject=own)]

    def durations(self, clause: str, subject: _Subject, hint: _Q | None) -> list[_Det]:
        notice = NOTICE_RE.search(clause)
        for m in DURATION_RE.finditer(clause):
            if notice and notice.start() <= m.start() < notice.end():
                continue
            before = clause[: m.start()]
            if re.search(r"(?i)\b(?:less|more) than\s*$|\bages?\s*$|\bunder\s*$", before):
                continue
            value = duration_value(m.group(0))
            aspect = next((kind for pattern, kind in DURATION_KINDS if re.search(pattern, clause)), "")
            if not aspect:
                continue
            topic, phrase, own = subject.topic, subject.phrase, subject.own
            if aspect == "warranty period":
                topic, phrase = self.topic("Warranty", alias=False), "All work"
                phrase = capitalise(subject.phrase) if subject.phrase else "All work"
            if aspect == "response time" and re.search(r"(?i)emergenc", clause):
                topic, phrase = self.topic("Emergency service", alias=False), "Emergency service"
            if not topic:
                if aspect != "response time":
                    continue
                topic, phrase = self.topic("Response time", alias=False), ""
            name = capitalise(phrase or topic)
            template = {
                "turnaround": f"{name} {be(name)} ready within {value}",
                "response time": f"{self.biz} responds within {value}",
                "warranty period": f"{name} {be(name)} guaranteed for {value}",
                "validity": f"{name} {be(name)} valid for {value}",
            }.get(aspect, f"{name} {agree('take', name)} {value}")
            return [_Det(topic, aspect, value, template, own_subject=own)]
        return []

    def distance(self, clause: str, subject: _Subject, hint: _Q | None) -> list[_Det]:
        m = DISTANCE_RE.search(clause)
        if not m:
            return []
        value = re.sub(r"\s+", " ", m.group("dist")).strip()
        delivery = (
            re.search(r"(?i)deliver", clause)
            or subject.topic == "Delivery"
            or (hint and hint.topic == "Delivery")
        )
        if delivery:
            topic = self.topic("Delivery", alias=False)
            return [
                _Det(
                    topic,
                    "delivery radius",
                    value,
                    f"{self.biz} delivers within {value}",
                    own_subject=subject.own,
                )
            ]
        if subject.own and subject.topic and not subject.is_self:
            name = capitalise(clean_np(subject.phrase) or subject.topic)
            return [_Det(subject.topic, "radius", value, f"{name} {be(name)} available within {value}")]
        if re.search(r"(?i)\b(?:serv|cover|travel|radius|area|come to|operate|call[- ]?outs?)", clause):
            topic = self.topic("Service area", alias=False)
            return [_Det(topic, "service radius", value, f"{self.biz} serves customers within {value}")]
        return []

    def discount(self, clause: str, subject: _Subject, label: str) -> list[_Det]:
        m = PERCENT_RE.search(clause)
        if not m:
            return []
        pct = re.sub(r"\s+", "", m.group("pct"))
        if not (m.group("off") or re.search(r"(?i)discount|savings?|reduction", clause + " " + label)):
            after = re.match(
                r"\s*([a-z][\w -]{2,30}?)\s+(?:is|are|will|applies|charged|added)\b", clause[m.end() :]
            )
            if after:
                topic = self.topic(after.group(1))
                return [_Det(topic, "amount", pct, f"{capitalise(clean_np(after.group(1)))} is {pct}")]
            return []
        obj = re.match(r"\s*(?:of\s+)?(.+)$", clause[m.end() :]) if m.group("off") else None
        phrase = clean_np(obj.group(1)) if obj else ""
        if phrase:
            topic = self.topic(phrase)
        elif subject.topic:
            topic, phrase = subject.topic, subject.phrase
        elif label and clean_np(label):
            topic, phrase = self.topic(label), clean_np(label)
        else:
            topic, phrase = self.topic("Discounts", alias=False), ""
        if obj and clean_np(obj.group(1)):
            return [_Det(topic, "discount", pct, f"{pct} off {obj.group(1).strip()} at {self.biz}")]
        name = capitalise(phrase or topic)
        return [
            _Det(
                topic,
                "discount",
                pct,
                f"{name} at {self.biz}: {clause[m.start() :].strip()}",
                own_subject=False,
            )
        ]

    def offering(self, clause: str, subject: _Subject, hint: _Q | None) -> list[_Det]:
        c = clause.strip().rstrip(".!")
        m = re.match(r"(?i)^no\s+([\w' -]{2,30}?)(?:\s+(allowed|permitted|please|accepted))?\s*$", c)
        if m and (alias_topic(m.group(1)) or m.group(2)):
            phrase = clean_np(m.group(1))
            name = capitalise(phrase)
            topic = self.topic("Pets", alias=False) if phrase.lower() in ANIMALS else self.topic(phrase)
            return [_Det(topic, "allowed", "no", f"{name} {be(name)} not allowed at {self.biz}")]
        m = re.match(r"(?i)^there(?:\s+(?:is|are)|'s)\s+(no\s+|not\s+(?:a|an|any)\s+)?(.+)$", c)
        if m:
            phrase = clean_np(m.group(2))
            if not phrase or phrase.split()[0].lower() in NOT_OFFERED:
                return []
            negated = bool(m.group(1))
            template = f"There {be(phrase)} {'no ' if negated else ''}{m.group(2)} at {self.biz}"
            return [_Det(self.topic(phrase), "availability", "no" if negated else "yes", template)]
        m = PASSIVE.match(c)
        if m:
            obj = self.parsed_clause_subject(m.group("obj"), c)  # "bed linen is always (included)"
            if re.fullmatch(r"(?i)it|they|this|that|these|those", obj.strip()):
                if hint is None or not hint.topic:
                    return []
                topic, phrase = hint.topic, hint.phrase
            else:
                if self.is_self(obj) or not clean_np(obj):
                    return []
                topic, phrase = self.topic(obj), clean_np(obj)
            part = m.group("part").lower()
            neg = m.group("neg")
            if part in {"allowed", "permitted", "welcome"} and phrase.lower().split()[-1] in ANIMALS:
                topic = self.topic("Pets", alias=False)
            if part in {"allowed", "permitted"} or (part == "welcome" and topic in {"Pets", "Children"}):
                aspect = "allowed"
            elif part == "included":
                aspect = "included"
            else:
                aspect = "availability"
            value = "sold out" if part in {"sold out", "out of stock"} else ("no" if neg else "yes")
            name = capitalise(phrase)
            template = f"{name} {be(name)} {neg + ' ' if neg else ''}{part}{m.group('rest').rstrip(' .')}"
            has_verb = (
                re.search(r"(?i)\b(?:is|are|'s|be)\s", c[m.end("obj") : m.start("part") + 1]) is not None
            )
            return [_Det(topic, aspect, value, template, own_subject=has_verb)]
        return self.active_offering(c, hint)

    def active_offering(self, c: str, hint: _Q | None) -> list[_Det]:
        found = None
        for m in re.finditer(r"[A-Za-z][\w'-]*", c):
            lemma = lemma_of(m.group(0))
            nxt = re.match(r"\s+([a-z]+)", c[m.end() :])
            if (
                lemma in {"do", "have"}
                and nxt
                and (nxt.group(1) in {"not", "been", "got"} or lemma_of(nxt.group(1)) in OFFER_VERBS)
            ):
                continue  # "we do not groom", "we have been", "we do offer"
            if nxt and f"{lemma} {nxt.group(1)}" in OFFER_VERBS:
                found = (m.start(), m.end() + nxt.end(), f"{lemma} {nxt.group(1)}", m.group(0))
                break
            if lemma in OFFER_VERBS:
                found = (m.start(), m.end(), lemma, m.group(0))
                break
        if found is None:
            return []
        start, end, verb, _ = found
        lead = c[:start]
        nm = re.search(
            rf"(?i)(?P<neg>no longer|don't|do not|doesn't|does not|can't|cannot|won't|will not|never|not)?\s*"
            rf"(?P<adv>(?:{ADVERBS}\s+)*)$",
            lead,
        )
        assert nm is not None
        subj = lead[: nm.start()]
        if not subj.strip() or not self.is_self(subj):
            return []
        neg = (nm.group("neg") or "").lower()
        adv = re.sub(r"\s+", " ", nm.group("adv") or "").strip()
        if re.fullmatch(r"(?i)no longer", adv):
            neg, adv = "no longer", ""
        verb2 = ""
        m2 = re.match(r"\s+and\s+([a-z]+)\b", c[end:])
        if m2 and lemma_of(m2.group(1)) in OFFER_VERBS:
            verb2 = lemma_of(m2.group(1))
            end += m2.end()
        obj = c[end:].strip()
        if not obj or any(w.lower() in NOT_OFFERED for w in re.findall(r"[\w'-]+", obj)[:4]):
            return []
        only: list[str] = []
        if neg and neg != "no longer":
            # "we don't do rabbits or small animals, dogs and cats only": the group closed by "only"
            # is what it does do, not more of what it does not.
            before, comma, after = obj.rpartition(",")
            closing = after.split()
            if comma and len(closing) > 1 and closing[-1].lower().strip(".!") in word_table("exclusive.txt"):
                obj, only = before, split_list(" ".join(closing[:-1]))
        rest = PREP_CUT.search(" " + obj)
        qualifier = obj[rest.start() :] if rest else ""
        items = split_list(PREP_CUT.sub("", " " + obj).strip())
        items = [i for i in items if clean_np(i) and clean_np(i).split()[0].lower() not in NOT_OFFERED]
        if not items:
            return []
        aspect = "allowed" if verb in {"allow", "permit", "welcome"} else "availability"
        if neg and neg != "no longer":
            days = parse_days(qualifier) if qualifier else None
            if days:
                aspect = f"{aspect} {days}"
        verbs = conjugate_3sg(verb.split()[0]) + (" " + verb.split()[1] if " " in verb else "")
        if verb2:
            verbs += f" and {conjugate_3sg(verb2)}"
        base = verb + (f" and {verb2}" if verb2 else "")
        dets: list[_Det] = []
        for item in items:
            if neg == "no longer":
                template = f"{self.biz} no longer {verbs} {item}"
            elif neg:
                template = f"{self.biz} does not {base} {item}"
            else:
                template = f"{self.biz} {adv + ' ' if adv else ''}{verbs} {item}"
            dets.append(_Det(self.topic(item), aspect, "no" if neg else "yes", template))
        for item in only:
            dets.append(_Det(self.topic(item), aspect, "yes", f"{self.biz} {verbs} {item} only"))
        return dets

    # -- filler and general facts ---------------------------------------------------------------

    def specific(self, text: str) -> bool:
        """Whether a sentence holds something checkable: a number, a name, a known subject."""
        if re.search(r"\d|[$£€@]|www\.", text) or re.search(DAY_WORD, text):
            return True
        words = re.findall(r"[A-Za-z][\w'&-]*", text)
        if any(w.lower() in TOPIC_ALIASES for w in words):
            return True
        for k, w in enumerate(words):
            if k and w[:1].isupper() and w.lower() not in self.biz_words and w not in {"I", "I'm"}:
                return True
        return False

    def is_filler(self, text: str) -> bool:
        t = text.strip()
        words = [w.lower() for w in re.findall(r"[A-Za-z][\w'-]*", t)]
        if not words or FILLER_START.match(t):
            return True
        if self.biz_words and set(words) <= self.biz_words | {"the"}:
            return True  # the business's name alone: a page's heading or logo text
        if self.specific(t):
            return False
        if set(words) & {"you", "your", "you're", "yours", "you'll"} or set(words) & SENTIMENT:
            return True
        read = analyse(t, base_date=self.context.learned_on)
        return not read.has_finite_verb or read.imperative

    def general(self, text: str, hint: _Q | None, validity: Validity) -> Candidate:
        """A sentence with no recognised pattern, kept whole as one fact."""
        statement = resolve(text, self.biz, hint.phrase if hint else None)
        label, body, _ = split_label(text)
        topic = ""
        if label and not CONTEXT_LABEL.search(label) and len(label.split()) <= 4:
            topic = self.topic(label)
        if not topic:
            m = PREDICATE.search(body)
            raw = LEAD.sub("", body[: m.start()]) if m else ""
            raw = self.parsed_clause_subject(raw, body) if raw.strip() else raw
            named = raw.strip() and not self.is_self(raw) and not PERSON.match(raw.strip())
            if named and 0 < len(clean_np(raw).split()) <= 4:
                topic = self.topic(raw)
        topic = topic or self.subject_of(body) or self.about()
        amount = self.subject_amount(body, topic)
        return Candidate(
            topic=topic,
            # "A £50 deposit secures your date": whatever the verb, an amount in the subject is its price.
            aspect="price" if amount else statement_aspect(statement),
            value=amount,
            statement=statement,
            valid_from=validity.valid_from,
            valid_to=validity.valid_to,
        )

    def subject_amount(self, body: str, topic: str) -> str:
        """The amount of money inside a statement's subject that names the topic ("A £50 deposit
        secures your date" under "Deposit"), as written, else ""."""
        analysis = analyse(body, base_date=self.context.learned_on)
        key = topic_key(topic).split()
        for chunk in analysis.noun_chunks:
            if not chunk.dep.startswith("nsubj") or topic_key(chunk.head) not in key:
                continue
            for amount in analysis.amounts:
                if chunk.start_char <= amount.start_char < chunk.end_char:
                    return amount.text
        return ""

    def subject_of(self, body: str) -> str:
        """The topic a statement names as its grammatical subject, by the parse ("Gift vouchers never
        expire!" is about gift vouchers); "" for a pronoun, a person, the business itself or a
        subject too long to be a name."""
        analysis = analyse(body, base_date=self.context.learned_on)
        roots = [t.i for t in analysis.tokens if t.dep == "ROOT"][:1]
        for chunk in analysis.noun_chunks:
            if chunk.dep not in ("nsubj", "nsubjpass") or chunk.is_pronoun:
                continue
            subject_of_root = any(
                t.head in roots and chunk.start_char <= t.start_char < chunk.end_char for t in analysis.tokens
            )
            name = chunk.text
            if not subject_of_root or self.is_self(name) or PERSON.match(name.strip()):
                continue
            if 0 < len(clean_np(name).split()) <= 4:
                return self.topic(name)
        return ""

    # -- owner questions and answers ------------------------------------------------------------

    def variant_prices(self, sentence: str, q: _Q) -> list[Candidate]:
        """An answer to a price question that gives one price per variant ("monthly is $95 now for
        adults, students still $75"): one fact per variant of the asked item, as a list line
        ("Monthly membership: $89 adult, $75 student") gives, so each meets its own row."""
        if not q.topic or not q.aspect.startswith("price"):
            return []
        cells = read_inline(f"{q.phrase or q.topic}: {_after_copula(sentence)}")
        if len(cells) < 2:
            return []
        variants = [_variant_words(c.variant, self.context.learned_on) for c in cells]
        if not all(variants) or len(set(variants)) < len(variants):
            return []
        return [
            cand
            for cell, variant in zip(cells, variants, strict=True)
            for cand in self.row_cell(cell.model_copy(update={"item": q.topic, "variant": variant}))
        ]

    def answer(self, question: str, text: str) -> list[Candidate]:
        """An answer to a question: its details, plus the yes/no the question asked, never nothing."""
        q = self.question(question)
        pol, rest = polarity(text)
        period = period_of(question) if q.aspect.startswith("hours") else None
        if period and (rest or pol) and not find_validity(rest, self.context.learned_on).spans:
            # Hours for a period no calendar can place ("Do your hours change in winter?", "Are you
            # open on Christmas Day?"): one fact about that period, so that its days never replace the
            # regular days' hours.
            q.aspect = f"hours {period}"
            if pol is not None and q.affirm:
                base = q.affirm if pol == "yes" else q.deny
                phrase = _period_phrase(question)
                if phrase.lower() not in base.lower():
                    base = f"{base} {phrase}"
                said = content_words(rest) - {stem(w) for w in ("open", "opened", "close", "closed", "shut")}
                statement = self.fold(base, rest, q) if said else sentence_end(base)
            else:
                statement = resolve(rest, self.biz, q.phrase)
            return [Candidate(topic=q.topic, aspect=q.aspect, value=None, statement=statement)]
        found: list[Candidate] = []
        uncovered = False
        for sentence in split_sentences(rest) if rest else []:
            got = self.variant_prices(sentence, q) or self.sentence(sentence, q, keep_general=False)
            uncovered = uncovered or self.uncovered or (not got and not self.is_filler(sentence))
            found.extend(got)
        if (
            rest
            and q.days is not None
            and not any(c.aspect.startswith(("hours", "days open")) for c in found)
        ):
            validity = find_validity(rest, self.context.learned_on)
            specs = parse_hours(f"{q.days_text} {mask(rest, validity.spans)}", open_word=True)
            if specs and specs[0].value:
                statement = sentence_end(f"{q.declarative} {lower_first(rest)}")
                found.append(self._hours_cand(q, specs[0].day_key, specs[0].value, statement, validity))
                uncovered = False
        avail = [c for c in found if is_avail(c.aspect)]
        other = [c for c in found if not is_avail(c.aspect)]
        if (
            pol is None
            and q.affirm
            and q.yes_from_details
            and avail
            and not other
            and avail[0].value in {"yes", "no"}
        ):
            pol = avail[0].value
        validity = find_validity(rest or text, self.context.learned_on)
        loses_words = bool(rest) and self.loses_words(rest, found)
        if (
            pol == "no"
            and any(ch.isdigit() for ch in q.aspect)
            and any(c.topic == q.topic and c.value for c in other)
        ):
            # "Is the inspection fee still $75?" "no its $60 now": the new value is the answer; a
            # denial would only repeat the old one ("is not still $75").
            return [self.named_as_asked(c, q) for c in found]
        if pol is not None and q.affirm:
            base = q.affirm if pol == "yes" else q.deny
            statement = sentence_end(base)
            if rest and (not other or loses_words):
                # The yes or no carries the owner's whole answer when the details read from it leave
                # some of its words out ("2 slices and a soda for $9" had kept only "And a soda is $9").
                statement = self.fold(base, rest, q)
                found = found if other else []
            value = q.yes_value if pol == "yes" else q.no_value
            cand = Candidate(
                topic=q.topic,
                aspect=q.aspect,
                value=value,
                statement=statement,
                valid_from=validity.valid_from,
                valid_to=validity.valid_to,
            )
            return _dedupe([*found, cand]) if any(c.aspect == q.aspect for c in found) else [cand, *found]
        if found:
            if uncovered or loses_words:
                found.append(self.whole_answer(q, rest, validity))
            return [self.named_as_asked(c, q) for c in found]
        return [self.whole_answer(q, rest or text, validity)]

    def loses_words(self, answer: str, found: list[Candidate]) -> bool:
        """Whether the details read from an owner's answer leave out some of its content words: the
        owner's own words are the top-precedence record, so none may be lost."""
        kept = set().union(*(content_words(f"{c.topic} {c.statement}") for c in found)) if found else set()
        return bool(content_words(answer) - kept - content_words(self.biz))

    def named_as_asked(self, cand: Candidate, q: _Q) -> Candidate:
        """An answer that names its subject short ("cosmic is $24 now" to "how much is cosmic
        bowling?") is about the subject the question named: filed under the question's topic when
        its own topic's words, by lemma, are some of the question's (read by apps.language)."""
        if not q.topic or topic_key(cand.topic) == topic_key(q.topic):
            return cand
        on = self.context.learned_on
        own = {t.lemma for t in analyse(cand.topic, base_date=on).tokens if not t.is_punct}
        asked = {t.lemma for t in analyse(q.topic, base_date=on).tokens if not t.is_punct}
        # Words that only name the aspect ("day pass price" for a price) add no subject.
        extra = asked - own - {t.lemma for t in analyse(cand.aspect, base_date=on).tokens}
        if own and own < asked and extra:
            return cand.model_copy(update={"topic": q.topic})
        return cand

    def _hours_cand(
        self, q: _Q, day: str | None, value: str, statement: str, validity: Validity
    ) -> Candidate:
        return Candidate(
            topic=q.topic,
            aspect=f"hours {day}" if day else "hours",
            value=value,
            statement=statement,
            valid_from=validity.valid_from,
            valid_to=validity.valid_to,
        )

    def fold(self, base: str, rest: str, q: _Q) -> str:
        """The yes/no statement completed by the rest of the answer ("..., in any amount, in store")."""
        resolved = resolve(rest, self.biz, q.phrase)
        if full_clause(rest):
            # The answer stands alone only when it names what was asked: "No, you have to apply for a
            # refund" to "Can I change my ticket?" mentions the ticket but not the change.
            if mentions_in(q.phrase, rest) and (not q.action or _mentions_verb(q.action, rest)):
                return resolved
            tail = re.sub(rf"^{re.escape(self.biz)}\b", "it", resolved)
            return sentence_end(f"{base}; {lower_first(tail)}")
        return sentence_end(f"{base}, {lower_first(resolved)}")

    def whole_answer(self, q: _Q, rest: str, validity: Validity) -> Candidate:
        """An answer with no recognised pattern, made self-contained."""
        value = None
        if q.value_kind == "money":
            m = PRICE_RE.search(rest)
            value = price_value(m) if m else None
        elif q.value_kind == "duration":
            m = DURATION_RE.search(rest)
            value = duration_value(m.group(0)) if m else None
        elif q.value_kind == "distance":
            m = DISTANCE_RE.search(rest)
            value = m.group("dist") if m else None
        if full_clause(rest) or not q.declarative:
            statement = resolve(rest, self.biz, q.phrase)
            if not full_clause(rest) and not mentions_in(q.phrase, rest):
                statement = sentence_end(f"{q.phrase}: {lower_first(rest)}")
        else:
            statement = sentence_end(f"{q.declarative} {lower_first(rest.rstrip('.'))}")
        return Candidate(
            topic=q.topic,
            aspect=q.aspect,
            value=value,
            statement=statement,
            valid_from=validity.valid_from,
            valid_to=validity.valid_to,
        )

    def question(self, question: str) -> _Q:
        """What a question asks: its topic, aspect and the statements "yes" and "no" would make.

        When a price question's topic name drops words of what was asked ("bike parking" filed under
        Parking), those words qualify the aspect ("parking fee: bike"), so that the bike parking fee
        and the car parking fee are two subjects, and neither retires the other.
        """
        q = self._question(question)
        q = self.parsed_subject(question, q)
        if q.aspect in _QUALIFIABLE_ASPECTS or q.aspect.endswith(" fee"):
            named = {_plain_word(w) for w in re.findall(r"[\w'-]+", f"{q.topic} {q.aspect}")}
            extra = [w for w in re.findall(r"[\w'-]+", q.phrase) if _plain_word(w) not in named]
            if extra and len(extra) <= 3 and topic_key(q.topic) != topic_key(q.phrase):
                q.aspect = f"{q.aspect}: {' '.join(extra).lower()}"
        return q

    def parsed_subject(self, question: str, q: _Q) -> _Q:
        """The question's subject read on the parse where the patterns' phrase is not a noun phrase
        ("how long does framing take" had filed the answer under "Framing take", "do ye do turkeys"
        under "Ye do turkeys", "can I cancel the club anytime" under "Club anytime"): the noun
        phrase the question asks about, by its place in the parse (an object first, then a subject,
        then the object of a preposition; the asker's own things ("my unit") last). Kept as it was
        when the parse offers no noun phrase, or the phrase is a name the patterns chose (Opening
        hours, Pets)."""
        on = self.context.learned_on
        analysis = analyse(question, base_date=on)
        if not _misread_phrase(q.phrase, question, analysis):
            return q
        chunk = self.asked_chunk(analysis)
        if not chunk or topic_key(chunk) == topic_key(q.phrase):
            return q
        q.topic, q.phrase = self.topic(chunk), chunk
        return q

    def asked_chunk(self, analysis: Any) -> str:
        """The noun phrase a question asks about, by its role in the parse, or "". Pronouns, wh-words,
        dates and times ("at night": WordNet's time nouns) and the business itself are never it."""
        dated = [(m.start_char, m.end_char) for m in analysis.dates]
        ranked = []
        for chunk in analysis.noun_chunks:
            words = [t for t in analysis.tokens if chunk.start_char <= t.start_char < chunk.end_char]
            # Its words after the determiners and possessives ("my unit" -> "unit").
            lead = next((k for k, t in enumerate(words) if t.pos != "DET" and t.tag != "PRP$"), len(words))
            after = next((t for t in analysis.tokens if t.i == words[-1].i + 1), None)
            if after is not None and after.dep == "prt":  # "money off": the particle is its meaning
                words = [*words, after]
            text = clean_np(" ".join(t.text for t in words[lead:]))
            if (
                not text
                or chunk.is_pronoun
                or any(t.tag in _WH_TAGS for t in words)
                or any(a <= chunk.start_char < b for a, b in dated)
                or lexical_file(chunk.head) == "noun.time"
                or self.is_self(chunk.text)
            ):
                continue
            rank = _CHUNK_ROLES.get(chunk.dep, len(_CHUNK_ROLES))
            if chunk.head in _price_words() and after is not None and after.lemma == "of":
                # "the price of a haircut" asks about the haircut, priced.
                rank = _PRICE_OF_RANK
            elif words[0].lemma in _ASKER_POSSESSIVES and words[0].tag == "PRP$":
                rank = max(rank, _ASKER_RANK)
            elif chunk.dep.startswith("nsubj") and counts_beings(chunk.head):
                rank = max(rank, _BEINGS_RANK)
            ranked.append((rank, chunk.start_char, text))
        return min(ranked)[2] if ranked else ""

    def _question(self, question: str) -> _Q:
        q = re.sub(
            r"(?i)^(?:hi|hello|hey|excuse me|quick question|just wondering|please)[,!.]?\s+", "", question
        )
        q = q.strip().rstrip("?").strip()
        q = re.sub(r"(?i)[,\s]+please$", "", q)
        # Wrappers around the question itself ("can you tell me what ...", "do you guys have ...").
        q = re.sub(
            r"(?i)^(?:(?:can|could|would) you (?:please )?(?:tell|let) me(?: know)?|i(?:'d| would) like to know|"
            r"do you know|i was wondering|i wonder)(?: if| whether)?[,]?\s+(?=\w)",
            "",
            q,
        )
        q = re.sub(r"(?i)\b(?:you guys|you all|y'all|you folks)\b", "you", q)
        q = join_compound_nouns(q)
        biz = self.biz
        # "... at Carolina Bed and Breakfast?" / "... at your hotel?" / "... at Tadu Ethiopian Kitchen?"
        # (registered as "Tadu Ethiopian Kitchen - Tenderloin"): where is always here.
        place = re.search(r"(?i)\s+(?:at|in|for)\s+(?P<place>(?:the|your|this)?\s*[^,;?]+)$", q)
        if place and place.start() > 0 and self.is_self(place.group("place")):
            q = q[: place.start()].strip()
        m = re.match(r"(?i)^is it possible (?:for (?:me|us|guests|customers) )?to (?P<vp>.+)$", q)
        if m:  # "Is it possible to get food to go?" asks what "Can I ...?" asks
            return self.may_question(m.group("vp"))
        m = re.match(r"(?i)^how old (?:do|does|must|should|would) (?:i|we|you|guests|customers|one|children|kids) "
                     r"(?:have to |need to )?be\b", q)  # fmt: skip
        if m:
            topic = self.topic("Minimum age", alias=False)
            return _Q(topic, "Minimum age", "minimum age")
        day_m = re.search(rf"(?:\b(?:on|at|during)\s+)?(?:{DAY_PHRASE})", q)
        if _asks_hours(q, self.context.learned_on) and not re.search(
            r"(?i)\bopen (?:an?|the) \w+|\bclose to\b", q
        ):
            days = parse_days(day_m.group(0)) if day_m else None
            on = day_m.group(0) if day_m else ""
            topic = self.topic("Opening hours", alias=False)
            return _Q(
                topic, "Opening hours", f"hours {days}" if days else "hours", f"{biz} is open {on}".strip(),
                f"{biz} is closed {on}".strip(), "open", "closed", f"{biz} is open {on}".strip(), "",
                days or "", on,
            )  # fmt: skip
        m = re.match(  # "When is check-out?", "What is the check-in time?": the time of something
            r"(?i)^(?:when (?:is|are)\s+(?:the\s+|your\s+)?(?P<np1>.+?)(?:\s+times?)?|(?:what|when)(?:'s| is| are)\s+"
            r"(?:(?:the|your)\s+)?(?P<np2>.+?)\s+times?)(?:\s+(?:served|offered|available|open|opened))?"
            r"(?:\s+(?:every ?day|each (?:day|morning|night|evening)|daily|usually|normally))?$",
            q,
        )
        if m and clean_np(m.group("np1") or m.group("np2")):
            np = m.group("np1") or m.group("np2")
            return _Q(self.topic(np), clean_np(np), "hours", declarative=f"{capitalise(np)} {be(np)}")
        m = re.match(  # "What is the noise level like there?": the noise level
            r"(?i)^(?:what|how)(?:'s| is| are)\s+(?:(?:the|your|their)\s+)?(?P<np>.+?)"
            r"(?:\s+(?:usually|normally|generally|typically))?\s+like(?:\s+(?:there|here))?$",
            q,
        )
        if m and clean_np(m.group("np")):
            np = m.group("np")
            return _Q(self.topic(np), clean_np(np), clean_np(np).lower(),
                      declarative=f"{possessive(biz)} {clean_np(np).lower()} {be(np)}")  # fmt: skip
        m = re.match(  # "What is served for breakfast?": breakfast, what is served
            r"(?i)^what (?:is|are)\s+(?P<pp>served|offered|included|provided|available|sold)\s+(?:for|at|with|in)\s+"
            r"(?P<np>.+)$",
            q,
        )
        if m and clean_np(m.group("np")):
            return _Q(self.topic(m.group("np")), clean_np(m.group("np")), m.group("pp").lower())
        m = re.match(
            r"(?i)^what time (?:is|does|do)\s+(?P<np>.+?)(?:\s+(?P<v>start|open|begin|end|finish|close))?$", q
        )
        if m:
            np = m.group("np")
            verb = f" {agree(m.group('v').lower(), np)}" if m.group("v") else f" {be(np)}"
            return _Q(self.topic(np), clean_np(np), "hours", declarative=capitalise(np) + verb)
        m = re.match(
            r"(?i)^(?:how much|what)\s+(?:is|are|does|do|for|will)\s+(?:it\s+cost\s+(?:for|to)\s+|"
            r"(?:you|they)\s+charge\s+(?:for|to)\s+|"
            r"(?:the\s+)?(?:price|cost|fee|charge)s?\s+(?:of|for)\s+)?(?P<np>.+?)(?:\s+cost)?$",
            q,
        )
        if m and re.match(
            r"(?i)how much|what (?:is|are|does|do) (?:the )?(?:price|cost|fee|charge)|.*\bcost$", q
        ):
            np = m.group("np")
            if not re.match(r"(?i)(?:notice|lead time)\b", np):
                topic = self.topic(np)
                aspect = FEE_ASPECTS.get(topic, "price")
                return _Q(
                    topic, clean_np(np), aspect, declarative=f"{capitalise(np)} {be(np)}", value_kind="money"
                )
        m = re.match(
            r"(?i)^(?:how much (?:notice|lead time)|how far in advance|how long in advance|how early)\b(?P<r>.*)$",
            q,
        )
        if m:
            if re.search(r"(?i)\bcancel", q):
                return _Q(self.topic("Cancellations", alias=False), "Cancellations", "cancellation notice")
            np = re.search(r"(?i)\bfor (?P<np>.+)$", m.group("r"))
            act = re.search(
                r"(?i)\b(?:to|should (?:i|we)|do (?:i|we)|must (?:i|we))\s+(?P<v>[a-z]+)\b(?!.*\bto\s+[a-z]+)",
                m.group("r"),
            )
            if np:
                phrase = clean_np(np.group("np"))
            elif act and act.group("v").lower() not in {"need", "have", "give", "be", "do"}:
                phrase = capitalise(gerund(act.group("v").lower()))  # "How early should I arrive?": Arriving
            else:
                phrase = "Orders"
            return _Q(self.topic(phrase), phrase, "lead time", value_kind="duration")
        m = re.match(r"(?i)^how far (?:do|will|can|would) (?:you|they) (?P<v>\w+)", q)
        if m:
            if m.group("v").lower().startswith("deliver"):
                return _Q(
                    self.topic("Delivery", alias=False), "Delivery", "delivery radius", value_kind="distance"
                )
            return _Q(
                self.topic("Service area", alias=False),
                "Service area",
                "service radius",
                value_kind="distance",
            )
        m = re.match(r"(?i)^how far (?:away )?(?:is|are) (?P<np>.+)$", q)
        if m:
            np = m.group("np")
            return _Q(self.topic(np), clean_np(np), "distance", declarative=f"{capitalise(np)} {be(np)}")
        m = re.match(r"(?i)^how (?:quickly|soon|fast) (?P<aux>can|will|do|would) (?:you|they) (?P<vp>.+)$", q)
        if m:
            vp = m.group("vp")
            topic = (
                self.topic(object_phrase(vp))
                if object_phrase(vp)
                else self.topic("Response time", alias=False)
            )
            aux = "can" if m.group("aux").lower() in {"can", "would"} else "will"
            return _Q(topic, clean_np(object_phrase(vp)) or topic, "response time",
                      declarative=f"{biz} {aux} {vp}", value_kind="duration")  # fmt: skip
        m = re.match(r"(?i)^how long (?:does|do|will|is|are) (?P<np>.+?)(?:\s+(?:take|last))?$", q)
        if m:
            np = m.group("np")
            return _Q(self.topic(np), clean_np(np), "duration", declarative=f"{capitalise(np)} {agree('take', np)}",
                      value_kind="duration")  # fmt: skip
        m = re.match(
            r"(?i)^(?:what|which)\s+(?:forms?|kinds?|types?|sorts?|methods?)\s+of\s+(?P<np>.+?)"
            r"(?:\s+(?:do|does|can|will|is|are|would)\b.*|\s+(?:you|they|we)\s+\w+.*)?$",
            q,
        )
        if m:
            np = m.group("np")
            if _names_payment(np):
                return self.payment_methods()
            return _Q(self.topic(np), clean_np(np), "kinds")
        m = re.match(
            r"(?i)^(?:what|which)\s+(?P<np>[\w' -]+?)\s+(?:is|are)\s+(?P<pp>spoken|offered|served|available|accepted|"
            r"included|provided|sold|allowed)$",
            q,
        )
        if m:  # "What languages are spoken?"
            return _Q(self.topic(m.group("np")), clean_np(m.group("np")), m.group("pp").lower())
        m = re.match(
            r"(?i)^(?:do|does|will|must|should)\s+(?P<who>i|we|you|guests|customers|patients|clients|visitors|one)\s+"
            r"(?:need|have)\s+to\s+(?P<vp>.+)$",
            q,
        )
        if m:  # "Do I need to make an appointment?": whether something is required
            verb, rest = split_verb(m.group("vp"))
            phrase = clean_np(rest) or VERB_TOPICS.get(verb) or capitalise(gerund(verb.split()[0]))
            who = m.group("who").lower()
            who = "Customers" if who in {"i", "we", "you", "one"} else who.capitalize()
            vp = re.sub(r"(?i)\b(?:my|our)\b", "their", m.group("vp"))
            return _Q(self.topic(phrase), clean_np(phrase) or phrase, "required", f"{who} need to {vp}",
                      f"{who} do not need to {vp}", declarative=f"{who} need to {vp}")  # fmt: skip
        m = re.match(r"(?i)^(?P<aux>do|does|can|will|could|would)\s+(?:you|they)\s+(?P<vp>.+)$", q)
        if m:
            return self.do_question(m.group("aux").lower(), m.group("vp"))
        m = re.match(rf"(?i)^(?P<aux>does|can|will|could|would)\s+it\s+(?P<vp>(?:{_BUSINESS_VERBS})\b.+)$", q)
        # "Does it serve alcohol?": in a business's FAQ, "it" doing what a business does is the business.
        if m:
            return self.do_question(m.group("aux").lower(), m.group("vp"))
        m = re.match(r"(?i)^(?P<aux>do|does|can|will|could|would)\s+(?P<rest>.+)$", q)
        if m:  # the business or its premises, by the name customers use ("Does your hotel ...",
            # "Does the Burma Love ...", "Does Tadu Ethiopian Kitchen ..." for "... - Tenderloin")
            words = m.group("rest").split()
            for k in range(len(words) - 1, 0, -1):
                if self.names_business(" ".join(words[:k])) and words[k].lower() not in PRONOUNS:
                    return self.do_question(m.group("aux").lower(), " ".join(words[k:]))
        m = re.match(
            r"(?i)^(?:do|does|will|can)\s+(?:the|your|a|an)\s+(?P<np>[\w-]+(?:\s+[\w-]+)?)\s+(?P<vp>[a-z]+\b.*)$",
            q,
        )
        if m:
            np, (verb, rest) = m.group("np"), split_verb(m.group("vp"))
            name, tail = f"The {np}", f" {rest}" if rest else ""
            return _Q(self.topic(np), np, statement_aspect(m.group("vp")), f"{name} {agree(verb, np)}{tail}",
                      f"{name} {'do' if plural(np) else 'does'} not {verb}{tail}")  # fmt: skip
        m = re.match(
            r"(?i)^(?:(?:can|may|could)\s+(?P<who>i|we|guests|customers|visitors|clients|patients|people|kids|children|"
            r"students|members|diners|one)\s+|(?:am|are)\s+(?P<who2>i|we|guests|customers|visitors|clients|patients|"
            r"people|kids|children|students|members|diners)\s+(?:allowed|able|permitted)\s+to\s+)(?P<vp>.+)$",
            q,
        )
        if m:
            who = (m.group("who") or m.group("who2")).lower()
            return self.may_question(m.group("vp"), "customers" if who in {"i", "we", "one"} else who)
        m = re.match(
            r"(?i)^(?:is|are)\s+there\s+(?:an?\s+|any\s+)?(?:extra\s+|additional\s+)?(?:charges?|fees?|costs?)\s+"
            r"(?:for|to)\s+(?P<np>.+)$",
            q,
        )
        if m and clean_np(_gerund_object(m.group("np"))):  # "Is there a fee for parking my bike?"
            what = _gerund_object(m.group("np"))
            topic = self.topic(what)
            affirm = f"{biz} charges for {clean_np(what).lower()}"
            return _Q(topic, clean_np(what), FEE_ASPECTS.get(topic, "price"), affirm,
                      f"{biz} does not charge for {clean_np(what).lower()}", "charged", "free",
                      declarative=affirm, yes_from_details=False)  # fmt: skip
        m = re.match(r"(?i)^(?:is|are)\s+there\s+(?P<np>.+)$", q)
        if m:
            np = m.group("np")
            return _Q(self.topic(np), clean_np(np), "availability", f"{biz} has {np}", f"{biz} does not have {np}",
                      declarative=f"{biz} has {np}")  # fmt: skip
        m = re.match(r"(?i)^(?P<be>is|are)\s+(?P<rest>.+)$", q)
        if m:
            return self.be_question(m.group("rest"))
        m = re.match(
            r"(?i)^(?:what|which)\s+(?P<np>.+?)\s+(?:do|does|can|will)\s+(?:you|they)\s+(?P<v>\w+)", q
        )
        if m and PAYMENT_RE.search(m.group("np") + " payment"):
            kind = "Insurance" if INSURANCE_RE.search(m.group("np")) else "Payment"
            topic = self.topic(kind, alias=False)
            return _Q(topic, kind, "insurance accepted" if kind == "Insurance" else "payment methods")
        m = re.match(
            r"(?i)^what (?:should|do|must|can|shall) (?:i|we) bring(?:\s+(?:to|for|with)\s+(?P<np>.+))?$", q
        )
        if m:  # "What should I bring to my first appointment?": the appointment, what to bring
            np = clean_np(m.group("np") or "") or "What to bring"
            return _Q(self.topic(np), np, "what to bring")
        m = re.match(r"(?i)^what(?:'s|s| is| are)\s+included\s+(?:in|with)\s+(?P<np>.+)$", q)
        if m and clean_np(m.group("np")):  # "What's included in a full overhaul?"
            return _Q(self.topic(m.group("np")), clean_np(m.group("np")), "included")
        m = re.match(
            r"(?i)^(?:what|which)\s+(?P<np>[\w' -]+?)\s+(?:do|does|can|will)\s+(?:you|they)\s+"
            r"(?P<v>offer|have|serve|sell|accept|take|provide|carry|stock|cover|teach|use|run|work with)$",
            q,
        )
        if m and clean_np(m.group("np")):  # "What group classes do you offer?", "What areas do you serve?"
            np = clean_np(m.group("np"))
            if INSURANCE_RE.search(np):
                return _Q(self.topic("Insurance", alias=False), "Insurance", "insurance accepted")
            if _names_payment(np):
                return self.payment_methods()
            if m.group("v").lower() == "serve" and re.search(
                r"(?i)\b(?:areas?|towns?|cities|neighbou?rhoods?|zip|post)", np
            ):
                return _Q(self.topic("Service area", alias=False), "Service area", "service area")
            return _Q(self.topic(np), np, "kinds")
        m = re.match(
            r"(?i)^how (?:is|are) (?P<np>.+?) (?:handled|done|managed|organi[sz]ed|arranged|calculated|decided|"
            r"scheduled|checked|made|kept|delivered)$",
            q,
        )
        if m and clean_np(m.group("np")):  # "How is pickup security handled?"
            return _Q(self.topic(m.group("np")), clean_np(m.group("np")), "how")
        m = re.match(r"(?i)^(?:what|where)(?:'s| is| are)\s+(?:your|the)\s+(?P<np>.+)$", q)
        if m:
            np = m.group("np")
            if re.search(r"(?i)address|location", np):
                return _Q(self.topic("Location", alias=False), "Location", "address")
            return _Q(self.topic(np), clean_np(np), clean_np(np).lower() or statement_aspect(q),
                      declarative=f"{possessive(biz)} {np} {be(np)}")  # fmt: skip
        if re.match(r"(?i)^where (?:are|is) (?:you|the \w+)(?: located| based)?$", q):
            return _Q(self.topic("Location", alias=False), "Location", "address")
        m = re.match(
            r"(?i)^(?P<wh>where|how|when)\s+(?:can|do|does|will|should|could|may|would)\s+"
            r"(?:i|we|you|guests|customers|patients|clients|visitors|one)\s+(?P<vp>.+)$",
            q,
        )
        if m:  # "Where can I pick up my ticket?": the ticket, and where to pick it up
            verb, rest = split_verb(m.group("vp"))
            first = rest.split(" ", 1)
            if first[0].lower() in PARTICLES and not VERB_TOPICS.get(verb):
                verb, rest = f"{verb} {first[0].lower()}", first[1] if len(first) > 1 else ""
            obj = clean_np(rest)
            if obj and not self.is_self(obj) and not ADVERB_OBJECT.fullmatch(rest.strip()):
                topic, phrase = self.topic(obj), obj
            elif verb in {"get", "find", "reach"}:  # "How do I get there?"
                topic = phrase = self.topic("Directions", alias=False)
            else:
                phrase = VERB_TOPICS.get(verb) or capitalise(gerund(verb.split()[0]))
                topic = self.topic(phrase, alias=False)
            return _Q(topic, phrase, f"{m.group('wh').lower()} to {verb.lower()}")
        phrase = object_phrase(q)
        topic = self.topic(phrase) if phrase else self.about()
        return _Q(topic, clean_np(phrase) or topic, statement_aspect(drop_stopwords(q)))

    def payment_methods(self) -> _Q:
        return _Q(self.topic("Payment", alias=False), "Payment", "payment methods")

    def do_question(self, aux: str, vp: str) -> _Q:
        """ "Do you make wedding cakes?" -> Wedding cakes / availability, "Sunny Bakery makes wedding cakes"."""
        vp = _without_leading_adverbs(vp)
        verb, rest = split_verb(vp)
        modal = aux if aux in {"can", "will", "could", "would"} else ""
        obj = rest.strip()
        base = verb.split()[0]
        said = obj
        if base in {"help", "assist", "deal", "cope"}:  # "Can you help with frozen pipes?": the pipes
            obj = re.sub(r"(?i)^(?:out\s+)?(?:with|for|on|about)\s+", "", obj)
        charged = re.match(r"(?i)^for\s+(?P<np>.+)$", obj) if base == "charge" else None
        if charged and clean_np(charged.group("np")):  # "Do you charge for WiFi?": Wi-Fi's price
            topic, what = self.topic(charged.group("np")), charged.group("np")
            affirm = f"{self.biz} charges for {what}"
            return _Q(topic, clean_np(what), FEE_ASPECTS.get(topic, "price"), affirm,
                      f"{self.biz} does not charge for {what}", "charged", "free", declarative=affirm,
                      yes_from_details=False)  # fmt: skip
        if base in {"accept", "take"} and (PAYMENT_RE.search(obj) or INSURANCE_RE.search(obj)):
            kind = "Insurance" if INSURANCE_RE.search(obj) and not PAYMENT_RE.search(obj) else "Payment"
            topic, phrase = self.topic(kind, alias=False), clean_np(obj) or obj
            aspect = f"{kind.lower()}: {phrase.lower()}"
        elif (
            clean_np(obj)
            and not self.is_self(obj)
            and not ADVERB_OBJECT.fullmatch(obj)
            and not self.prepositional(obj)
        ):
            topic, phrase = self.topic(obj), clean_np(obj)
            aspect = "allowed" if base in {"allow", "permit"} else "availability"
            if aspect == "allowed" and phrase.lower().split()[-1] in ANIMALS:
                topic = self.topic("Pets", alias=False)
        else:
            phrase = VERB_TOPICS.get(verb) or capitalise(gerund(base))
            topic, aspect = self.topic(phrase, alias=False), "availability"
        tail = f" {said}" if said else ""
        if modal:
            negative = "cannot" if modal in {"can", "could"} else "will not"
            affirm, deny = f"{self.biz} {modal} {verb}{tail}", f"{self.biz} {negative} {verb}{tail}"
        else:
            parts = verb.split()  # "picks up and delivers": every coordinated verb agrees
            conj = " ".join(
                conjugate_3sg(w) if i == 0 or parts[i - 1] in {"and", "or"} else w
                for i, w in enumerate(parts)
            )
            affirm, deny = f"{self.biz} {conj}{tail}", f"{self.biz} does not {verb}{tail}"
        return _Q(topic, phrase, aspect, affirm, deny, declarative=affirm)

    def prepositional(self, words: str) -> bool:
        """Whether what follows a question's verb opens with a preposition ("deliver to Bramley",
        "open on Sundays"): a place or a time the verb is done at, not a thing it is done to, so the
        topic is the verb's own (Delivery), not "To Bramley"."""
        tokens = analyse(words, base_date=self.context.learned_on).tokens
        return bool(tokens) and tokens[0].pos == "ADP" and tokens[0].dep != "prt"

    def may_question(self, vp: str, who: str = "customers") -> _Q:
        """ "Can I bring my own mat?" -> Mats / allowed, "At Lotus Flow Yoga, customers can bring their own mat"."""
        verb, rest = split_verb(vp)
        base = verb.split()[0]
        obj = rest.strip()
        theirs = re.sub(r"(?i)\b(?:my|our)\b", "their", vp)
        theirs = re.sub(r"(?i)\b(?:me|us)\b", "them", theirs)
        theirs = re.sub(r"\b(?:I|we)\b", "they", theirs)
        if base == "pay" and PAYMENT_RE.search(obj):
            phrase = clean_np(re.sub(r"(?i)^(?:by|with|in|using|via)\s+", "", obj))
            topic, aspect = self.topic("Payment", alias=False), f"payment: {phrase.lower()}"
        elif clean_np(obj) and not self.is_self(obj) and not ADVERB_OBJECT.fullmatch(obj):
            topic, phrase, aspect = self.topic(obj), clean_np(obj), "allowed"
            if phrase.lower().split()[-1] in ANIMALS:
                topic = self.topic("Pets", alias=False)
        else:
            phrase = VERB_TOPICS.get(verb) or capitalise(gerund(base))
            topic, aspect = self.topic(phrase, alias=False), "allowed"
        where = "" if self.biz.lower() in vp.lower() else f"At {self.biz}, "
        affirm = capitalise(f"{where}{who} can {theirs}")
        deny = capitalise(f"{where}{who} cannot {theirs}")
        return _Q(topic, phrase, aspect, affirm, deny, declarative=affirm, action=base)

    def _priced_thing(self, rest: str) -> str:
        """The thing a price question with a dummy "it" asks about: "it still £45 for a drop in seat"
        -> "drop in seat", read on the parse (the object of "for" after an amount). A person or a
        group after "for" is who pays ("is it free for kids?"), not what is priced: ""."""
        analysis = analyse(rest, base_date=self.context.learned_on)
        if not analysis.amounts and "free" not in {t.lemma for t in analysis.tokens}:
            return ""
        tokens = analysis.tokens
        for chunk in analysis.noun_chunks:
            if chunk.dep != "pobj" or chunk.is_pronoun:
                continue
            head = next(
                (t for t in tokens if t.start_char >= chunk.start_char and t.lemma == chunk.head), None
            )
            prep = tokens[head.head] if head is not None else None
            if (
                prep is None
                or prep.lemma != "for"
                or lexical_file(chunk.head) in ("noun.person", "noun.group")
            ):
                continue
            return clean_np(chunk.text)
        return ""

    def be_question(self, rest: str) -> _Q:
        """ "Is delivery free?", "Is the office wheelchair accessible?", "Are children welcome?"."""
        words = rest.split()
        k = next(
            (i for i in range(1, len(words)) if words[i].lower().strip(",") in PRED_WORDS),
            max(1, len(words) - 1),
        )
        subj, pred = " ".join(words[:k]), " ".join(words[k:]) or "available"
        fit = re.match(
            r"(?i)^(?P<subj>.+?)\s+(?:a\s+)?(?:good|great|suitable|ideal|ok|okay|appropriate|fine|nice|friendly)\s+"
            r"(?:[\w-]+\s+)?(?:for|with)\s+(?P<who>.+)$",
            rest,
        )
        if fit and clean_np(fit.group("who")):  # "Is the studio good for beginners?": who it suits
            who = clean_np(fit.group("who"))
            own = fit.group("subj").lower() in {"you", "it"} or self.is_self(fit.group("subj"))
            name = self.biz if own else capitalise(clean_np(fit.group("subj")))
            tail = rest[len(fit.group("subj")) :].strip()
            return _Q(self.topic(who), who, "suitable", f"{name} {be(name)} {tail}",
                      f"{name} {be(name)} not {tail}", declarative=f"{name} {be(name)} {tail}")  # fmt: skip
        thing = self._priced_thing(rest) if words[0].lower() == "it" else None
        if thing:  # "Is it still £45 for a drop in seat?": the seat's price
            return _Q(self.topic(thing), thing, "price", declarative=f"{capitalise(thing)} {be(thing)}")
        if subj.lower() in {"you", "it", "y'all"} or self.is_self(subj):
            own = subj.lower() in {"you", "it"} or set(words_of(subj.lower())) <= self.biz_words | {"the"}
            name = self.biz if own else f"{possessive(self.biz)} {clean_np(subj)}"
            topic = self.topic(pred)
            return _Q(topic, clean_np(pred), "availability", f"{name} is {pred}", f"{name} is not {pred}",
                      declarative=f"{name} is {pred}")  # fmt: skip
        if PAYMENT_RE.search(subj) and re.match(
            r"(?i)(?:accepted|taken)\b", pred
        ):  # "Is Google Pay accepted?"
            phrase = clean_np(subj) or subj
            affirm = f"{self.biz} accepts {phrase}"
            return _Q(self.topic("Payment", alias=False), phrase, f"payment: {phrase.lower()}", affirm,
                      f"{self.biz} does not accept {phrase}", declarative=affirm)  # fmt: skip
        topic, phrase = self.topic(subj), clean_np(subj)
        name = capitalise(phrase)
        low = pred.lower()
        yes, no = "yes", "no"
        if low.startswith("free"):
            aspect, yes, no = FEE_ASPECTS.get(topic, "price"), "free", "not free"
        elif low.split()[0] in {"allowed", "permitted", "welcome", "ok", "okay"}:
            aspect = "allowed"
        elif low.split()[0] == "included":
            aspect = "included"
        elif low.split()[0] in {"available", "offered", "provided", "served", "sold"}:
            aspect = "availability"
        elif low.split()[0] in {"required", "necessary", "needed", "compulsory", "mandatory"}:
            aspect = "required"
        else:
            aspect = statement_aspect(pred)
        verb = be(name)
        affirm = f"{name} {verb} {pred}"
        return _Q(topic, phrase, aspect, affirm, f"{name} {verb} not {pred}", yes, no, declarative=affirm)


@dataclass
class _Subject:
    topic: str
    phrase: str
    own: bool  # the clause names it itself (else it comes from the question or an earlier clause)
    is_self: bool = False  # the clause's subject is the business
