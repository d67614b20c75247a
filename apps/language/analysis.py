"""One analysis of a text, shared by everything that reads it (extractor, answerer, gate, the
kind-of-fact leg, repair): parse it once with spaCy, and read sentences, tokens, noun chunks, the
question's form, dates, amounts and phone numbers from that one parse.

    analysis = analyse("Are you open next Monday?", base_date=now, tz="Europe/London")
    analysis.form.kind           # "yes_no"
    analysis.dates[0].start      # the Monday, in the business's time zone

Everything returned is a frozen dataclass; ``Analysis.doc`` is the spaCy Doc for callers that need
the tree (it is cached and shared: read it, never change it).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, Literal
from zoneinfo import ZoneInfo

from apps.language.amounts import Amount, find_amounts
from apps.language.dates import DateMention, find_dates, tells_when_it_happened
from apps.language.phones import Phone, find_phones, phone_region
from apps.language.pipeline import parse
from apps.language.wordlists import words

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span

__all__ = [
    "Amount",
    "Analysis",
    "DateMention",
    "Entity",
    "NounChunk",
    "Phone",
    "QuestionForm",
    "Sentence",
    "Token",
    "analyse",
    "local_date",
]

FormKind = Literal["yes_no", "open", "fragment", "statement"]
#: Analyses kept per process (a question's is a few kB).
RECENT_ANALYSES = 1024

# Penn Treebank tags of wh-words (what, which, who, whose, where, when, why, how).
_WH_TAGS = frozenset({"WDT", "WP", "WP$", "WRB"})
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})
# Leading words that do not change a question's form ("and on Saturdays?", "so do you deliver?").
_LEAD_POS = frozenset({"CCONJ", "INTJ", "PUNCT", "SPACE"})


@dataclass(frozen=True)
class Token:
    i: int
    text: str
    lemma: str  # lowercased
    pos: str  # universal part of speech (NOUN, VERB, AUX, ...)
    tag: str  # Penn Treebank tag
    dep: str  # dependency label
    head: int  # index of the head token
    start_char: int
    is_stop: bool
    is_punct: bool
    like_num: bool


@dataclass(frozen=True)
class Sentence:
    text: str
    start_char: int
    end_char: int


@dataclass(frozen=True)
class NounChunk:
    """A noun phrase. ``head`` is its head noun's lemma ("vouchers" -> "voucher"), ``lemma`` the
    phrase without determiners and possessives, its nouns lemmatised ("our gift vouchers" ->
    "gift voucher")."""

    text: str
    start_char: int
    end_char: int
    head: str
    lemma: str
    dep: str  # the head's dependency label (nsubj, dobj, pobj, attr, ...)
    is_pronoun: bool


@dataclass(frozen=True)
class Entity:
    text: str
    label: str  # spaCy's label: ORG, PERSON, GPE, DATE, MONEY, ...
    start_char: int
    end_char: int


@dataclass(frozen=True)
class QuestionForm:
    """What kind of sentence the (first) question is. ``wh`` is the wh-word, with its degree word
    for "how much" / "how many" / "how late"; ``root`` is the lemma of the sentence's root."""

    is_question: bool
    kind: FormKind
    wh: str | None
    negated: bool
    root: str
    verbs: tuple[str, ...]
    subjects: tuple[NounChunk, ...]
    objects: tuple[NounChunk, ...]

    @property
    def polarity(self) -> Literal["positive", "negative"]:
        return "negative" if self.negated else "positive"


@dataclass(frozen=True)
class Analysis:
    text: str
    base_date: dt.date  # the day dates were resolved against, in the time zone given
    sentences: tuple[Sentence, ...]
    tokens: tuple[Token, ...]
    noun_chunks: tuple[NounChunk, ...]
    form: QuestionForm
    dates: tuple[DateMention, ...]
    amounts: tuple[Amount, ...]
    phones: tuple[Phone, ...]
    entities: tuple[Entity, ...] = ()  # only when analysed with entities=True
    doc: Any = field(default=None, compare=False, repr=False)

    @property
    def content_lemmas(self) -> tuple[str, ...]:
        """Lemmas of the words that carry content (no stop words, punctuation or numbers)."""
        return tuple(
            t.lemma for t in self.tokens if not (t.is_stop or t.is_punct or t.like_num) and t.lemma.strip()
        )

    @property
    def has_finite_verb(self) -> bool:
        """Whether the text states something: a verb inflected for tense or a modal ("Vouchers never
        expire", "Lessons ran late", "We can deliver"), by the tagger rather than a list of verbs."""
        # A base form with a subject of its own is a present tense the tagger took for VB ("Members
        # get 24/7 access"): English spells the two alike.
        subjects = {t.head for t in self.tokens if t.dep in ("nsubj", "nsubjpass")}
        return any(t.tag in _FINITE_TAGS or (t.tag == "VB" and t.i in subjects) for t in self.tokens)

    @property
    def past_tense(self) -> bool:
        """Whether the first finite verb is in the past: "when was the fair?" asks when it happened;
        "is the café still shut?" asks about now, whatever the tagger makes of "shut"."""
        finite = next((t for t in self.tokens if t.tag in ("VBD", "VBP", "VBZ", "MD")), None)
        return finite is not None and finite.tag == "VBD"

    @property
    def greeting_end(self) -> int:
        """Where a question starts after the greeting or name that opens it ("hi, are you open?",
        "hiya are you open today?"): 0 when it opens with the question. Read on the parse: the
        opening words are interjections, or one word no dictionary lists before an inverted
        auxiliary; and what is left opens with an auxiliary (a yes/no question's inverted verb), a
        wh-word or "and"."""
        tokens = self.tokens
        index = 0
        while index < len(tokens) and (tokens[index].pos == "INTJ" or tokens[index].is_punct):
            index += 1
        if index == 0 and len(tokens) > 2 and not tokens[0].like_num:
            # A lone first word before the question's inverted verb: a greeting the tagger does not
            # know ("hiya", read as a name or a modifier), when no dictionary lists it and it is no
            # date ("Sunday are you open?" keeps its day).
            after = 2 if tokens[1].is_punct else 1
            dated = any(m.start_char == 0 for m in self.dates)
            if (
                after < len(tokens)
                and tokens[after].pos == "AUX"
                and not dated
                and not _dictionary_word(tokens[0].text)
            ):
                index = 1
        while index < len(tokens) and tokens[index].is_punct:
            index += 1
        if index == 0 or index >= len(tokens):
            return 0
        opening = tokens[index]
        if opening.pos == "AUX" or opening.tag in _WH_TAGS or opening.pos == "CCONJ":
            return opening.start_char  # "hiya are you ...", "ok what about ...", "hi, and on sundays?"
        return 0

    @property
    def imperative(self) -> bool:
        """Whether the first sentence is a command ("Relax and unwind with us", "Come and see us"):
        its root a bare verb with no subject of its own."""
        first = self.sentences[0] if self.sentences else None
        roots = [
            t for t in self.tokens if t.dep == "ROOT" and (first is None or t.start_char < first.end_char)
        ]
        if not roots or roots[0].tag != "VB":
            return False
        root = roots[0]
        return not any(t.head == root.i and t.dep in ("nsubj", "nsubjpass", "expl") for t in self.tokens)

    @property
    def announced(self) -> str | None:
        """What a verbless sentence announces in a clause of its own: "A reminder that gate access
        hours are 6am to 11pm" states "gate access hours are 6am to 11pm", "Just a heads up that prices
        go up in May" states "prices go up in May". Read on the parse: the first sentence's root is a
        noun, and a clause hanging on it opens with "that" and has its own subject. None otherwise."""
        first = self.sentences[0] if self.sentences else None
        end = first.end_char if first else len(self.text)
        root = next((t for t in self.tokens if t.dep == "ROOT" and t.start_char < end), None)
        if root is None or root.pos not in ("NOUN", "PROPN"):
            return None
        for clause in self.tokens:
            if clause.head != root.i or clause.dep not in ("acl", "relcl", "ccomp") or clause.i == root.i:
                continue
            children = [t for t in self.tokens if t.head == clause.i and t.i != clause.i]
            mark = next((t for t in children if t.dep == "mark" and t.text.lower() == "that"), None)
            if mark is not None and any(t.dep in ("nsubj", "nsubjpass", "expl") for t in children):
                return self.text[mark.start_char + len(mark.text) : end].strip() or None
        return None

    @property
    def dated(self) -> DateMention | None:
        """The first mention of a calendar day or period (not a recurring weekday): the date a
        question is about."""
        return next((m for m in self.dates if not m.recurring), None)

    def day_about(self, *, horizon_days: int = 366) -> dt.date | None:
        """The first day of the date or period a question is about ("next Monday", "this weekend",
        "in July"), when it is the base date or later, within ``horizon_days``; else None."""
        mention = self.dated
        if mention is None or mention.start is None:
            return None
        if not self.base_date <= mention.start <= self.base_date + dt.timedelta(days=horizon_days):
            return None
        return mention.start

    def weekdays_about(self) -> set[int]:
        """The weekdays of the date or period a question is about, when it spans a week or less."""
        mention = self.dated
        if mention is None or mention.start is None or mention.end is None:
            return set()
        length = (mention.end - mention.start).days
        if not 0 <= length < 7:
            return set()
        return {(mention.start + dt.timedelta(days=k)).weekday() for k in range(length + 1)}

    def happened(self, mention: DateMention) -> bool:
        """Whether a date the text names is when something happened ("prices went up in April",
        "open mondays now, started in january"), not a window the statement holds in."""
        words = self.doc.char_span(mention.start_char, mention.end_char, alignment_mode="expand")
        return words is not None and tells_when_it_happened(words)

    @property
    def day(self) -> dt.date | None:
        """The one day a question is about ("next Monday", "on December 29"), if it names one."""
        mention = self.dated
        if mention is None or mention.start is None or mention.start != mention.end:
            return None
        return mention.start


def local_date(base: dt.date | dt.datetime, tz: str | dt.tzinfo | None) -> dt.date:
    """The calendar day of ``base`` in time zone ``tz``: an aware datetime is converted (23:30 UTC
    is already tomorrow in Auckland), a naive one is taken as local time there, a date as it is."""
    if isinstance(base, dt.datetime):
        if base.tzinfo is not None and tz is not None:
            zone = ZoneInfo(tz) if isinstance(tz, str) else tz
            return base.astimezone(zone).date()
        return base.date()
    return base


#: Penn Treebank tags of a finite verb: present (VBZ, VBP), past (VBD), modal (MD).
_FINITE_TAGS = frozenset({"VBZ", "VBP", "VBD", "MD"})


@cache
def _negation_words() -> frozenset[str]:
    return words("negation.txt")


def _chunk(span: Span) -> NounChunk:
    kept = [t for t in span if t.pos_ not in ("DET", "PUNCT") and t.tag_ not in ("PRP$", "POS", "WP$")]
    return NounChunk(
        text=span.text,
        start_char=span.start_char,
        end_char=span.end_char,
        head=span.root.lemma_.lower(),
        # Nouns by lemma, modifiers as written: "driving instructors" -> "driving instructor".
        lemma=" ".join(t.lemma_.lower() if t.pos_ in ("NOUN", "PROPN") else t.lower_ for t in kept),
        dep=span.root.dep_,
        is_pronoun=span.root.pos_ == "PRON",
    )


def _dictionary_word(word: str) -> bool:
    from apps.language.lexicon import word_classes  # lazy: lemminflect loads spaCy's tables

    return bool(word_classes(word))


def _question_sentence(doc: Doc) -> Span | None:
    sentences = list(doc.sents)
    if not sentences:
        return None
    return next((s for s in sentences if "?" in s.text), sentences[0])


def _form(doc: Doc, chunks: tuple[NounChunk, ...]) -> QuestionForm:
    sentence = _question_sentence(doc)
    if sentence is None:
        return QuestionForm(False, "statement", None, False, "", (), (), ())
    words_ = [t for t in sentence if not t.is_space]
    lead = next((t for t in words_ if t.pos_ not in _LEAD_POS), None)
    wh_token = next((t for t in words_ if t.tag_ in _WH_TAGS), None)
    wh: str | None = None
    if wh_token is not None:
        wh = wh_token.lower_
        following = doc[wh_token.i + 1] if wh_token.i + 1 < len(doc) else None
        if wh == "how" and following is not None and following.pos_ in ("ADJ", "ADV"):
            wh = f"how {following.lower_}"  # how much, how many, how late, how long
    inverted = lead is not None and lead.pos_ == "AUX" and lead.dep_ in ("aux", "auxpass", "ROOT")
    has_verb = any(t.pos_ in ("VERB", "AUX") for t in words_)
    is_question = (
        sentence.text.rstrip().endswith("?") or inverted or (wh_token is not None and wh_token is lead)
    )
    kind: FormKind
    if wh_token is not None and is_question:
        kind = "open"
    elif inverted or (is_question and has_verb):
        kind = "yes_no"
    elif is_question:
        kind = "fragment"
    else:
        kind = "statement"
    negated = any(t.dep_ == "neg" or t.lower_ in _negation_words() for t in words_)
    inside = [c for c in chunks if sentence.start_char <= c.start_char < sentence.end_char]
    return QuestionForm(
        is_question=is_question,
        kind=kind,
        wh=wh,
        negated=negated,
        root=sentence.root.lemma_.lower(),
        verbs=tuple(t.lemma_.lower() for t in words_ if t.pos_ == "VERB"),
        subjects=tuple(c for c in inside if c.dep in _SUBJECT_DEPS),
        objects=tuple(c for c in inside if c.dep not in _SUBJECT_DEPS),
    )


def analyse(
    text: str,
    *,
    base_date: dt.date | dt.datetime,
    tz: str | dt.tzinfo | None = None,
    entities: bool = False,
    region: str | None = None,
    prefer: str = "future",
) -> Analysis:
    """Analyse ``text`` once. Dates resolve against ``base_date`` taken in time zone ``tz`` (the
    question's moment in the business's zone, or the day a source was learned). ``entities`` runs
    the named-entity recogniser (sources want it; a question does not pay for it). ``region`` reads
    phone numbers without a country code (default: ``XORVENTA_PHONE_REGION``). The same text on
    the same day comes back as the same (frozen) Analysis: every reader of a turn shares one."""
    return _analysed(text, local_date(base_date, tz), bool(entities), region or phone_region(), prefer)


@lru_cache(maxsize=RECENT_ANALYSES)
def _analysed(text: str, day: dt.date, entities: bool, region: str, prefer: str) -> Analysis:
    doc = parse(text, entities=entities)
    chunks = tuple(_chunk(c) for c in doc.noun_chunks)
    return Analysis(
        text=text,
        base_date=day,
        sentences=tuple(Sentence(s.text, s.start_char, s.end_char) for s in doc.sents),
        tokens=tuple(
            Token(
                i=t.i,
                text=t.text,
                lemma=t.lemma_.lower(),
                pos=t.pos_,
                tag=t.tag_,
                dep=t.dep_,
                head=t.head.i,
                start_char=t.idx,
                is_stop=t.is_stop,
                is_punct=t.is_punct,
                like_num=t.like_num,
            )
            for t in doc
        ),
        noun_chunks=chunks,
        form=_form(doc, chunks),
        dates=find_dates(doc, base=day, prefer=prefer, region=region),
        amounts=find_amounts(doc),
        phones=find_phones(text, region=region),
        entities=tuple(Entity(e.text, e.label_, e.start_char, e.end_char) for e in doc.ents)
        if entities
        else (),
        doc=doc,
    )
