"""The query path: from a visitor's message (and the conversation behind it) to the knowledge the
answerer receives. Each step is measured, logged and switchable (RetrievalOptions):

1. two passes: the message alone, and the message blended with recent turns; a message whose own best
   match reaches the "new question" threshold keeps reserved places for its own results;
2. repair: below the repair threshold, misspellings are corrected against the business's vocabulary;
   and on any turn a noun the business never writes is searched again under a name of the same sense
   that it does (decision 0033);
3. kind of fact (seed 003): "prices", "opening hours"... searched on its own, with a reserved place;
4. keyword: Postgres full text, when the message carries exact identifiers (or when enabled);
5. diversity: a pool of four times the final count, at most three pieces from one topic;
6. confidence: the best kept piece's score (the message's own similarity, or the blended pass's,
   discounted, for a follow-up), with the decisions it triggers;
7. optional cross-encoder re-ranking (drafts), failing open;
8. a log of all of it.

The answerer then receives each kept piece's facts rendered for the question's date, so expired facts
never reach it even when nobody re-indexed.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from functools import cache
from typing import Any

import numpy as np
from django.db import connection
from django.db.models import Q
from pgvector.django import CosineDistance

from apps.facts.lexical import content_words, coverage, stem
from apps.facts.selectors import (
    AUDIENCE_STAFF,
    AUDIENCE_VISITOR,
    RenderedTopic,
    fact_ids_dated_on,
    knowledge_render,
)
from apps.language.analysis import analyse
from apps.language.scales import superlative
from apps.language.spelling import Speller
from apps.retrieval import embedding
from apps.retrieval.fact_similarity import fact_similarity
from apps.retrieval.index import index_state, index_usable
from apps.retrieval.kinds import TIME_LIMITED_KIND, kind_of_fact, without_kind_words
from apps.retrieval.models import Audience, IndexState, Piece
from apps.retrieval.repair import misspelt, repair_speller
from apps.retrieval.rerank import rerank
from apps.retrieval.thresholds import ThresholdProfile, builtin_profile, decisions_for
from apps.tenants.db import current_schema

_IDENTIFIER = re.compile(
    r"\b(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\b"  # SKU-123, A4, x200
    r"|\+?\d[\d ().-]{6,}\d"  # phone numbers
    r"|\b\d{4,}\b"  # long numbers: order or model numbers
)
_ORDINAL = re.compile(r"^\d+(st|nd|rd|th|am|pm|h|s|k|km|mi|min|mins|hrs?)$", re.IGNORECASE)


@dataclass
class RetrievalOptions:
    k: int = 4
    pool_factor: int = 4
    max_per_topic: int = 3
    two_pass: bool = True
    history_turns: int = 2
    # Each earlier turn enters the blended text by its first 160 characters: the start of a reply names
    # the subject, the rest only dilutes the vector and costs embedding time (dstc9/dstc10: same hits
    # at 100, 160 or no cap; the blended pass 3-6 ms faster at p95).
    history_chars: int = 160
    # How the message is blended with the conversation: "vector" adds each earlier turn's vector
    # (weighted) to the message's, so a turn's text is embedded once, when it happens (chat warms the
    # assistant's reply after sending it); "text" embeds the joined texts on every turn.
    blend: str = "vector"
    history_weight: float = 0.5
    reserved_own: int = 2
    own_first: bool = True  # a new question's own best match is read first, whatever the blended pass scored
    # The blended pass competes at its similarity minus a discount that grows with the message's own
    # best match: max(discount, slope x own best). A follow-up that names nothing ("is it free?",
    # own best ~0.3) is carried by the conversation; a message with its own content is not overridden
    # by the previous exchange. Measured on DSTC9 (docs/retrieval.md): a flat 0.05 lost 22 hit@1
    # answers to the blended pass, a flat 0.25 lost 6.
    contextual_discount: float = 0.25
    contextual_slope: float = 0.75
    repair: bool = True
    # A noun the business never writes, searched again under a name WordNet gives its sense that the
    # business does write ("zucchini" at a shop that writes "courgettes"); kept only when it matches
    # better, like spelling repair.
    synonyms: bool = True
    kind_leg: bool = True
    kind_slots: int = 1
    # A question that names its day ("on 20 May", "next Monday") keeps a place for the best piece
    # holding a fact in force that day only for a while (a closure week, seasonal hours): "a room for
    # the night of 20 May?" must see "Closed 17-23 May" though it asks about rooms.
    dated_slots: int = 1
    # What ended in the last ``ended_days`` days is still told as over: "is the summer school still
    # on?" a month after it ran is answered by when it ended, not passed to the owner. An ended piece
    # is added (beside the k pieces) only when it is the message's best match; ended facts of kept
    # pieces are rendered marked as over. 0: ended facts are never seen.
    ended_days: int = 90
    # A superlative question ("the cheapest wash") is answered by comparing the rows of what it ranks:
    # up to k pieces that write its noun are added beside the k kept.
    superlative_rows: bool = True
    keyword: str = "auto"  # auto: only for exact identifiers | on | off
    diversity: bool = True
    rerank: bool = False
    clean_fillers: bool = True  # embed the message without hesitations and leading pleasantries
    # A message that names no subject ("how much would that run me?") with a conversation behind it is
    # about the conversation's subject: its blended pass competes undiscounted (names_no_subject).
    subjectless_follow_ups: bool = True

    def label(self) -> str:
        return ",".join(f"{k}={v}" for k, v in asdict(self).items())


@dataclass
class Hit:
    piece_id: int
    topic_id: int
    title: str
    text: str
    fact_ids: list[int]
    scores: dict[str, float] = field(default_factory=dict)

    @property
    def best(self) -> float:
        return max(self.scores.values()) if self.scores else 0.0

    def rank_score(self, contextual_discount: float) -> float:
        """The score that orders candidates: the message's own similarity (or its repaired forms'),
        the blended pass's discounted, and keyword coverage. The kind-of-fact leg is not on this scale
        (a one-word query matches headings strongly) and acts only through its reserved place."""
        own = [self.scores.get(leg, -1.0) for leg in ("message", "repaired", "own words", "keyword")]
        return max(*own, self.scores.get("contextual", -1.0) - contextual_discount)


@dataclass
class RetrievalResult:
    message: str
    on: date
    hits: list[Hit]
    context: list[RenderedTopic]
    confidence: float
    top_similarity: float
    decisions: dict[str, bool]
    profile: ThresholdProfile
    log: dict[str, Any]

    @property
    def fact_ids(self) -> list[int]:
        return [f.id for topic in self.context for f in topic.facts]

    def context_text(self) -> str:
        return "\n\n".join(t.text for t in self.context)


# ---------------------------------------------------------------------------------------------


def _audience_q(audience: str) -> Q:
    if audience == AUDIENCE_STAFF:
        return Q(audience=Audience.STAFF) | Q(audience=Audience.VISITOR, topic_has_internal=False)
    return Q(audience=Audience.VISITOR)


def _vector_search(
    vector: Any, *, generation: int, audience: str, on: date, limit: int
) -> list[tuple[Piece, float]]:
    rows = (
        Piece.objects.filter(_audience_q(audience), generation=generation)
        .filter(Q(expires_on__isnull=True) | Q(expires_on__gte=on))
        .annotate(distance=CosineDistance("embedding", vector))
        .order_by("distance")
        .only("id", "topic_id", "title", "text", "fact_ids")[:limit]
    )
    return [(p, 1.0 - float(p.distance)) for p in rows]


def _keyword_search(
    message: str, *, generation: int, audience: str, on: date, limit: int
) -> list[tuple[Piece, float]]:
    """Full text, scored by lexical coverage (seed 002): 0.25 + 0.6 x share of the message's stems
    found in the piece, so that it can be compared with cosine similarities on one absolute scale."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT array_agg(DISTINCT lexeme) FROM unnest(to_tsvector('english', %s)) AS t(lexeme, positions, weights)",
            [message],
        )
        stems = [s for s in (cursor.fetchone() or [None])[0] or [] if s]
    if not stems:
        return []
    query = " | ".join(f"'{s}'" for s in stems)
    rows = list(
        Piece.objects.filter(_audience_q(audience), generation=generation)
        .filter(Q(expires_on__isnull=True) | Q(expires_on__gte=on))
        .extra(where=["search @@ to_tsquery('english', %s)"], params=[query])
        .only("id", "topic_id", "title", "text", "fact_ids", "search")[: limit * 4]
    )
    scored = []
    for piece in rows:
        found = sum(1 for s in stems if s in _stems_of(piece))
        scored.append((piece, min(0.95, 0.25 + 0.6 * found / len(stems))))
    scored.sort(key=lambda item: item[1], reverse=True)
    return scored[:limit]


def _stems_of(piece: Piece) -> set[str]:
    return {token.split(":")[0].strip("'") for token in str(piece.search or "").split()}


# Hesitations anywhere ("uh", "umm", "hmm") and pleasantries that open a turn ("ok great, thanks, and
# ..."): they carry nothing a knowledge base could match, and in a short message they pull its vector
# towards every other chatty message.
_HESITATION = re.compile(r"\b(?:u+h+|u+m+|h+m+|e+r+m+|a+h+|m{2,}|h{2,})\b[,.]?\s*", re.IGNORECASE)
_OPENER = re.compile(
    r"^(?:(?:ok(?:ay)?|alright|all right|great|perfect|thanks|thank you|got it|sure|yes|"
    r"yeah|yep|oh|and|so|well|also|by the way|sounds (?:good|great)|that sounds (?:good|great)|"
    r"that'?s (?:good|great|perfect))\b[\s,.!;:-]*)+",
    re.IGNORECASE,
)


def without_fillers(message: str) -> str:
    """The message without hesitations and opening pleasantries (unchanged if nothing would be left)."""
    cleaned = _OPENER.sub("", _HESITATION.sub("", message).strip()).strip()
    return cleaned if len(cleaned) >= 3 else message


# Words that refer back to something said before, light verbs and vague words: a message made only of
# these, stop words and the kind of fact asked for names no subject of its own ("how much would that
# run me?", "is it free?", "what's the price for him?", "when does it start?").
_NAMES_NOTHING_WORDS = (
    "he him his she her hers they them both either neither one ones that those it "
    "anything something everything thing things stuff "
    "be go going come coming run add cost pay charge take make work happen start end finish last "
    "then together extra again also still back total overall altogether usually normally "
    "free available included allowed possible fine long time times soon early late"
)


@cache
def _names_nothing() -> frozenset[str]:
    return frozenset(stem(w) for w in _NAMES_NOTHING_WORDS.split())  # keyed on first use, not at import


def names_no_subject(message: str) -> bool:
    """True when the message asks something without naming what about: it can only be about the
    conversation's subject. Such a message's own best match is some price or hours piece of another
    subject, so the blended pass competes with it undiscounted."""
    return not (content_words(without_kind_words(message)) - _names_nothing())


def has_identifier(message: str) -> bool:
    return any(not _ORDINAL.match(m.group().strip()) for m in _IDENTIFIER.finditer(message))


# Vocabulary per business, index generation and revision of its pieces, rebuilt when they change.
# The key comes from the index state the turn has already read: no query on a turn that finds it. The
# state's build time is part of it: a business removed and made again under the same schema name starts
# its generation and revision counts again, and must never meet the old business's vocabulary.
IndexKey = tuple[str, datetime, int, int]  # schema, build time, generation, revision
_vocabularies: dict[IndexKey, Speller] = {}


def index_key(built_at: datetime, generation: int, revision: int) -> IndexKey:
    """Which business's index, in which state: what a cache derived from its pieces is kept under."""
    return (current_schema(), built_at, generation, revision)


def _vocabulary(key: IndexKey) -> Speller:
    _schema, _built_at, generation, _revision = key
    vocab = _vocabularies.get(key)
    if vocab is None:
        texts = Piece.objects.filter(generation=generation).values_list("title", "text")
        vocab = repair_speller(f"{t}\n{x}" for t, x in texts)
        for old in [k for k in _vocabularies if k[0] == key[0]]:
            _vocabularies.pop(old, None)
        _vocabularies[key] = vocab
    return vocab


# The kind-of-fact queries are a small fixed set of phrases: each is embedded once per process and model.
_kind_vectors: dict[tuple[str, str], Any] = {}


def _kind_vector(kind: str) -> Any:
    key = (embedding.model_id(), kind)
    vector = _kind_vectors.get(key)
    if vector is None:
        vector = _kind_vectors[key] = embedding.embed_query(kind)
    return vector


def blend(message: str, history: Sequence[str], turns: int, chars: int = 0) -> str:
    recent = [h.strip() for h in history if h and h.strip()][-turns:]
    if chars:
        recent = [_trimmed(h, chars) for h in recent]
    return " ".join([*recent, message.strip()])


def _trimmed(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[:chars].rsplit(" ", 1)[0]


def turn_text(text: str, chars: int = RetrievalOptions.history_chars) -> str:
    """The form in which an earlier turn enters the blended pass: its start, without fillers. A
    visitor's short message is exactly what its own message pass embedded, so its vector is reused."""
    return without_fillers(_trimmed(text.strip(), chars)) if text.strip() else ""


def blended_vector(
    message_vector: Any, history: Sequence[str], *, turns: int, chars: int, weight: float
) -> Any:
    """The message's vector plus `weight` times each recent turn's, re-normalised."""
    recent = [t for t in (turn_text(h, chars) for h in history if h) if t][-turns:]
    total = np.array(message_vector, dtype=np.float32)
    for text in recent:
        total += weight * embedding.embed_query_kept(text)
    norm = float(np.linalg.norm(total))
    return total / norm if norm else total


def remember_turn(text: str) -> None:
    """Embed a turn now (after a reply is sent), so the next turn's blended pass finds its vector
    ready instead of embedding it while the visitor waits."""
    form = turn_text(text)
    if form:
        embedding.embed_query_kept(form)


def business_profile(state: IndexState | None = None) -> ThresholdProfile:
    state = state or index_state()
    base = builtin_profile(state.model_id)
    if state.thresholds:
        values = {**base.values, **{k: float(v) for k, v in state.thresholds.items() if k in base.values}}
        return ThresholdProfile(model=state.model_id, values=values, origin="calibrated for this business")
    return base


def retrieve(
    message: str,
    *,
    on: date,
    history: Sequence[str] = (),
    audience: str = AUDIENCE_VISITOR,
    options: RetrievalOptions | None = None,
    query_vector: Any | None = None,
    dated: bool = False,
) -> RetrievalResult:
    """Everything the answerer needs for one turn, in the current business's schema: the steps of the
    module's docstring, each a function below. ``dated``: the message names the day ``on`` itself."""
    search = _Search.begin(options or RetrievalOptions(), on=on, audience=audience)
    own = _search_message(search, message, query_vector)
    _repair_spelling(search, own)
    _repair_words(search, own)
    _search_with_conversation(search, own, history)
    kind, kind_ids = _search_kind(search, own.repaired or message)
    # An offer is in force only for a while: a question about offers asks what is on today.
    dated_ids = _search_dated(search, own) if dated or kind == TIME_LIMITED_KIND else []
    # A question about a day of its own asks what holds that day; what ended before it may still be
    # to come from today, so only a question about today sees what is over.
    ended_since = None if dated else search.ended_since
    ended_ids = _search_ended(search, own, ended_since)
    row_ids = _search_rows(search, own)
    use_keyword, keyword_ids = _search_keyword(search, message)
    new_question = own.top >= search.profile["new_question"] or not history
    discount = _contextual_discount(search.opts, own, history)
    ranked, rerank_note = _ranked(search, message, discount)
    kept = _keep(
        search,
        ranked,
        own=own,
        new_question=new_question,
        keyword_ids=keyword_ids,
        kind=kind,
        kind_ids=kind_ids,
        dated_ids=dated_ids,
        ended_ids=ended_ids,
        row_ids=row_ids,
    )
    _order_for_reading(
        kept, own=own, new_question=new_question, discount=discount, search=search, rerank_note=rerank_note
    )
    search.lap("combine")
    context = _render_context([h for h, _ in kept], on=on, audience=audience, ended_since=ended_since)
    context = ended_only_if_asked(own.question, context)
    search.lap("render")
    confidence, signals, decisions = _judge(search, kept, own=own, discount=discount, kind_ids=kind_ids)
    decisions["new_question"] = new_question
    log = _log(
        search,
        message,
        own=own,
        kind=kind,
        use_keyword=use_keyword,
        kept=kept,
        discount=discount,
        confidence=confidence,
        signals=signals,
        decisions=decisions,
        rerank_note=rerank_note,
    )
    return RetrievalResult(
        message=message,
        on=on,
        hits=[h for h, _ in kept],
        context=context,
        confidence=confidence,
        top_similarity=own.top,
        decisions=decisions,
        profile=search.profile,
        log=log,
    )


@dataclass
class _Search:
    """One retrieval's working state: every leg's candidates by piece (each with its score per leg),
    what each leg searched for (the log's variants) and the time each step took."""

    opts: RetrievalOptions
    on: date
    audience: str
    built_at: datetime  # with the schema, which business's index this is (see index_key)
    generation: int
    revision: int
    profile: ThresholdProfile
    clock: float
    hits: dict[int, Hit] = field(default_factory=dict)
    variants: list[dict[str, Any]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)

    @classmethod
    def begin(cls, opts: RetrievalOptions, *, on: date, audience: str) -> _Search:
        clock = time.perf_counter()  # the first step's time includes reading the index state
        state = index_usable()
        return cls(
            opts,
            on,
            audience,
            state.built_at,
            state.generation,
            state.revision,
            business_profile(state),
            clock,
        )

    @property
    def index(self) -> IndexKey:
        return index_key(self.built_at, self.generation, self.revision)

    @property
    def ended_since(self) -> date | None:
        days = self.opts.ended_days
        return self.on - timedelta(days=days) if days > 0 else None

    @property
    def pool(self) -> int:
        return self.opts.k * self.opts.pool_factor

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.timings[name] = round((now - self.clock) * 1000, 2)
        self.clock = now

    def by_vector(self, leg: str, query: str, vector: Any, *, limit: int | None = None) -> list[int]:
        found = _vector_search(
            vector, generation=self.generation, audience=self.audience, on=self.on, limit=limit or self.pool
        )
        return self.add(leg, query, found)

    def add(self, leg: str, query: str, found: list[tuple[Piece, float]]) -> list[int]:
        """Record one leg's candidates; returns their piece ids, best first."""
        self.variants.append(
            {
                "leg": leg,
                "query": query,
                "candidates": [{"piece": p.pk, "topic": p.title, "score": round(s, 4)} for p, s in found[:8]],
            }
        )
        for piece, score in found:
            hit = self.hits.setdefault(
                piece.pk,
                Hit(
                    piece_id=piece.pk,
                    topic_id=piece.topic_id,
                    title=piece.title,
                    text=piece.text,
                    fact_ids=list(piece.fact_ids),
                ),
            )
            hit.scores[leg] = max(score, hit.scores.get(leg, -1.0))
        return [p.pk for p, _ in found]

    def best(self, leg: str, ids: list[int]) -> float:
        return max((self.hits[i].scores[leg] for i in ids), default=0.0)


@dataclass
class _Own:
    """The message's own pass: what was embedded, the pieces it found (best first) and its best
    similarity; after spelling repair, the repaired text and vector (and its pieces, if better)."""

    asked: str
    vector: Any
    ids: list[int]
    top: float
    repaired: str = ""
    repaired_vector: Any = None

    @property
    def question(self) -> str:
        return self.repaired or self.asked


def _search_message(search: _Search, message: str, query_vector: Any | None) -> _Own:
    """1. The message alone (its vector may have been computed ahead, while the visitor typed:
    speculative retrieval)."""
    asked = without_fillers(message) if search.opts.clean_fillers else message
    vector = query_vector if query_vector is not None else embedding.embed_query_kept(asked)
    search.lap("embed_message")
    ids = search.by_vector("message", asked, vector)
    own = _Own(asked=asked, vector=vector, ids=ids, top=search.best("message", ids))
    search.lap("search_message")
    return own


def _repair_spelling(search: _Search, own: _Own) -> None:
    """2. Misspellings repaired against the business's vocabulary; the repaired pass replaces the
    message's own when it matches better. Below the repair threshold any correction is tried; above
    it, only one that changes a word neither the business nor English knows ("family maners
    course" still matched the business's "family dog manners" well, and missed the course)."""
    if not search.opts.repair:
        return
    fixed = _vocabulary(search.index).correct(own.asked)
    weak = own.top < search.profile["repair"]
    if fixed.changed and (weak or misspelt(fixed)):
        own.repaired = fixed.text
        own.repaired_vector = embedding.embed_query(own.repaired)
        ids = search.by_vector("repaired", own.repaired, own.repaired_vector)
        top = search.best("repaired", ids)
        if top > own.top:
            own.ids, own.top = ids, top
    search.lap("repair")


def _repair_words(search: _Search, own: _Own) -> None:
    """2b. The message in the business's own words: a noun it never writes replaced by a name of the
    same sense that it does (the language layer's WordNet). The MiniLM embedding puts "diapers" far
    from "nappies"; the replaced pass scores only pieces that write a word swapped in, and replaces
    the message's own results only when it matches better (decision 0033)."""
    if not search.opts.synonyms:
        return
    swapped = _vocabulary(search.index).in_own_words(own.question)
    if swapped.changed:
        vector = embedding.embed_query(swapped.text)
        written = {stem(word) for _, word in swapped.corrections}
        # Only pieces that write a word swapped in: the swap was made to reach them, and elsewhere it
        # only moves the query ("change my ticket" searched as an "alteration").
        found = [
            (p, score)
            for p, score in _vector_search(
                vector,
                generation=search.generation,
                audience=search.audience,
                on=search.on,
                limit=search.pool,
            )
            if written & content_words(f"{p.title} {p.text}")
        ]
        ids = search.add("own words", swapped.text, found)
        top = search.best("own words", ids)
        if top > own.top:
            own.ids, own.top = ids, top
    # Timed apart: the search, when a word was swapped, and the check alone, on every turn.
    search.lap("own_words" if swapped.changed else "own_words_check")


def _search_with_conversation(search: _Search, own: _Own, history: Sequence[str]) -> None:
    """3. The second pass: the message blended with the conversation behind it."""
    opts = search.opts
    if not (opts.two_pass and history):
        return
    if opts.blend == "text":
        blended = blend(own.question, history, opts.history_turns, opts.history_chars)
        vector = embedding.embed_query(blended)
    else:
        recent = [turn_text(h, opts.history_chars) for h in history[-opts.history_turns :]]
        blended = " + ".join([*recent, own.question])  # what entered the blend, for the log
        vector = blended_vector(
            own.repaired_vector if own.repaired else own.vector,
            history,
            turns=opts.history_turns,
            chars=opts.history_chars,
            weight=opts.history_weight,
        )
    search.by_vector("contextual", blended, vector)
    search.lap("contextual")


def _search_kind(search: _Search, text: str) -> tuple[str | None, list[int]]:
    """4. The kind of fact asked for ("prices", "opening hours"), searched on its own."""
    kind = kind_of_fact(text) if search.opts.kind_leg else None
    if not kind:
        return kind, []
    ids = search.add("kind", kind, _kind_pieces(search, kind))
    search.lap("kind")
    return kind, ids


# The kind leg's search does not depend on the message, only on the kind and the index: its pieces are
# kept per index (see index_key), audience and day (most turns ask for one of a few kinds), and a
# business's entries go when its index changes, as its spelling vocabulary does.
_kind_found: dict[tuple[IndexKey, str, date, str, int], list[tuple[Piece, float]]] = {}
_KIND_FOUND_MAX = 4096


def _kind_pieces(search: _Search, kind: str) -> list[tuple[Piece, float]]:
    key = (search.index, search.audience, search.on, kind, search.opts.k)
    found = _kind_found.get(key)
    if found is None:
        found = _vector_search(
            _kind_vector(kind),
            generation=search.generation,
            audience=search.audience,
            on=search.on,
            limit=search.opts.k,
        )
        for old in [k for k in _kind_found if k[0][0] == key[0][0] and k[0] != key[0]]:
            _kind_found.pop(old, None)
        if len(_kind_found) >= _KIND_FOUND_MAX:
            _kind_found.clear()
        _kind_found[key] = found
    return found


def _search_dated(search: _Search, own: _Own) -> list[int]:
    """4b. For a message that names its day: the pieces holding a fact in force that day only for a
    while, by their similarity to the message (a business has few such facts at once)."""
    if not search.opts.dated_slots:
        return []
    fact_ids = fact_ids_dated_on(search.on, audience=search.audience)
    if not fact_ids:
        return []
    holds_one = Q()
    for fact_id in fact_ids:
        holds_one |= Q(fact_ids__contains=[fact_id])
    rows = (
        Piece.objects.filter(_audience_q(search.audience), generation=search.generation)
        .filter(holds_one)
        .annotate(distance=CosineDistance("embedding", own.repaired_vector if own.repaired else own.vector))
        .order_by("distance")
        .only("id", "topic_id", "title", "text", "fact_ids")[: search.opts.k]
    )
    ids = search.add("dated", search.on.isoformat(), [(p, 1.0 - float(p.distance)) for p in rows])
    search.lap("dated")
    return ids


def _search_ended(search: _Search, own: _Own, since: date | None) -> list[int]:
    """4c. The piece that ended since ``since`` matching the message best, when it matches the message
    better than anything still in force ("can we still come to the winter fair?" after the fair)."""
    if since is None:
        return []
    rows = (
        Piece.objects.filter(_audience_q(search.audience), generation=search.generation)
        .filter(expires_on__gte=since, expires_on__lt=search.on)
        .annotate(distance=CosineDistance("embedding", own.repaired_vector if own.repaired else own.vector))
        .order_by("distance")
        .only("id", "topic_id", "title", "text", "fact_ids")[:1]
    )
    found: list[tuple[Piece, float]] = [(p, 1.0 - float(p.distance)) for p in rows]
    search.lap("ended")
    if not found or found[0][1] <= own.top:
        return []
    return search.add("ended", own.question, found)


def _search_rows(search: _Search, own: _Own) -> list[int]:
    """4d. A superlative ("the cheapest wash", "your biggest dorm") compares every row of what it
    ranks: the pieces that write its noun, nearest to the noun first, whatever else they say (up to k
    of them not kept already are added)."""
    if not search.opts.superlative_rows:
        return []
    asked = superlative(analyse(own.question, base_date=search.on))
    if asked is None or asked.noun is None:
        return []
    noun = stem(asked.noun)
    found = [
        (p, score)
        for p, score in _vector_search(
            embedding.embed_query_kept(asked.noun),
            generation=search.generation,
            audience=search.audience,
            on=search.on,
            limit=search.pool,
        )
        if noun in content_words(f"{p.title} {p.text}")
    ]
    ids = search.add("rows", asked.noun, found)
    search.lap("rows")
    return ids


def _search_keyword(search: _Search, message: str) -> tuple[bool, list[int]]:
    """5. Full-text search for exact identifiers (SKU-123, a phone number), or always when enabled."""
    opts = search.opts
    if not (opts.keyword == "on" or (opts.keyword == "auto" and has_identifier(message))):
        return False, []
    found = _keyword_search(
        message, generation=search.generation, audience=search.audience, on=search.on, limit=opts.k
    )
    ids = search.add("keyword", message, found)
    search.lap("keyword")
    return True, ids


def _contextual_discount(opts: RetrievalOptions, own: _Own, history: Sequence[str]) -> float:
    """What the blended pass's similarity loses against the message's own: nothing for a follow-up
    that names no subject, more the better the message matches on its own."""
    if history and opts.subjectless_follow_ups and names_no_subject(own.asked):
        return 0.0
    return max(opts.contextual_discount, opts.contextual_slope * own.top)


def _ranked(search: _Search, message: str, discount: float) -> tuple[list[Hit], str]:
    """6a. The pool, best first; for drafts, a pool of twice the final count re-ordered by a
    cross-encoder (failing open: the note says what happened)."""
    opts = search.opts
    ranked = sorted(search.hits.values(), key=lambda h: h.rank_score(discount), reverse=True)[: search.pool]
    if not opts.rerank:
        return ranked, ""
    candidates = ranked[: opts.k * 2]
    order, note = rerank(message, [f"{h.title}\n{h.text}" for h in candidates])
    search.lap("rerank")
    return [candidates[i] for i in order] + ranked[opts.k * 2 :], note


def _keep(
    search: _Search,
    ranked: list[Hit],
    *,
    own: _Own,
    new_question: bool,
    keyword_ids: list[int],
    kind: str | None,
    kind_ids: list[int],
    dated_ids: list[int],
    ended_ids: list[int],
    row_ids: list[int],
) -> list[tuple[Hit, str]]:
    """6b. The final k pieces, each with why: reserved places first (a new question's own best
    matches, an exact identifier, the kind of fact, what is in force only for a while on the day
    asked about), then the best of the rest; at most max_per_topic pieces from one topic."""
    opts = search.opts
    kept: list[tuple[Hit, str]] = []
    per_topic: dict[int, int] = {}

    def keep(hit: Hit, reason: str) -> bool:
        if any(h.piece_id == hit.piece_id for h, _ in kept) or len(kept) >= opts.k:
            return False
        if opts.diversity and per_topic.get(hit.topic_id, 0) >= opts.max_per_topic:
            return False
        kept.append((hit, reason))
        per_topic[hit.topic_id] = per_topic.get(hit.topic_id, 0) + 1
        return True

    if new_question:
        for pid in own.ids[: opts.reserved_own]:
            keep(search.hits[pid], "reserved: the message's own best match")
    for pid in keyword_ids[:1]:
        keep(search.hits[pid], "reserved: exact identifier (keyword)")
    slots = opts.kind_slots
    for pid in kind_ids:
        if slots <= 0:
            break
        if keep(search.hits[pid], f"reserved: kind of fact '{kind}'"):
            slots -= 1
    if dated_ids and not any(set(h.fact_ids) & set(search.hits[dated_ids[0]].fact_ids) for h, _ in kept):
        for pid in dated_ids[: search.opts.dated_slots]:
            keep(search.hits[pid], f"reserved: in force on {search.on.isoformat()} only for a while")
    for hit in ranked:
        keep(hit, "ranked by score")
    # Beside the k pieces, not instead of one: what is over must never push out what is in force, and
    # the rows a superlative compares are all needed.
    rows = [pid for pid in row_ids if not any(h.piece_id == pid for h, _ in kept)][: opts.k]
    added = [(pid, "added: ended recently, the message's best match") for pid in ended_ids[:1]]
    added += [(pid, "added: a row the superlative compares") for pid in rows]
    for pid, reason in added:
        if not any(h.piece_id == pid for h, _ in kept):
            kept.append((search.hits[pid], reason))
    return kept


def _order_for_reading(
    kept: list[tuple[Hit, str]],
    *,
    own: _Own,
    new_question: bool,
    discount: float,
    search: _Search,
    rerank_note: str,
) -> None:
    """6c. Reserved places guarantee a place, not the first one: the answerer reads the best first.
    Except that a message that carries its own content (a new question) is answered from its own best
    match first; the blended pass is there for follow-ups, and on DSTC9 it otherwise displaced the
    right piece from the top for 7 questions while fixing 1 (docs/retrieval.md). A cross-encoder's
    order, when it ran, is kept."""
    if search.opts.rerank and rerank_note.startswith("re-ranked"):
        return
    first = own.ids[0] if new_question and own.ids and search.opts.own_first else None
    kept.sort(key=lambda item: (item[0].piece_id == first, item[0].rank_score(discount)), reverse=True)


def _judge(
    search: _Search, kept: list[tuple[Hit, str]], *, own: _Own, discount: float, kind_ids: list[int]
) -> tuple[float, dict[str, float], dict[str, bool]]:
    """7. Confidence, the signals beside it and the decisions they trigger. Confidence is what the
    answerer will actually read: the best kept piece's score. For a follow-up ("is it free?") that is
    the blended pass's; the message alone would call it unanswerable."""
    confidence = max((h.rank_score(discount) for h, _ in kept), default=0.0)
    question = own.question
    signals = {
        "similarity": round(confidence, 4),
        "coverage_best": round(
            coverage(question, f"{kept[0][0].title} {kept[0][0].text}") if kept else 0.0, 4
        ),
        "coverage_all": round(coverage(question, " ".join(f"{h.title} {h.text}" for h, _ in kept)), 4),
        "margin": round(_margin(own.ids, search.hits), 4),
        # The search for the kind of fact asked for ("notice") found the same piece as the message.
        "kind_agrees": 1.0 if kept and kind_ids[:1] == [kept[0][0].piece_id] else 0.0,
    }
    decisions = decisions_for(confidence, search.profile)
    if decisions["ask_owner"] and (signals["coverage_best"] >= 1.0 or signals["kind_agrees"]):
        # Every content word of the question is in the best piece ("Do you accept Visa?" against
        # "accepts cash, Visa and Mastercard"): short questions score low on similarity alone, so
        # the answerer decides from the facts instead (it still says so when they do not answer).
        # Likewise when the kind-of-fact search lands on the same piece as the message. On DSTC9 no
        # question below the threshold had full coverage, answerable or not (docs/retrieval.md).
        decisions["ask_owner"] = False
    return confidence, signals, decisions


def _log(
    search: _Search,
    message: str,
    *,
    own: _Own,
    kind: str | None,
    use_keyword: bool,
    kept: list[tuple[Hit, str]],
    discount: float,
    confidence: float,
    signals: dict[str, float],
    decisions: dict[str, bool],
    rerank_note: str,
) -> dict[str, Any]:
    """8. A log of all of it: every leg's query and candidates, what was kept and why, the scores,
    decisions, thresholds and timings."""
    return {
        "message": message,
        "on": search.on.isoformat(),
        "audience": search.audience,
        "repaired": own.repaired,
        "kind": kind,
        "keyword": use_keyword,
        "variants": search.variants,
        "kept": [
            {
                "piece": h.piece_id,
                "topic": h.title,
                "scores": {k: round(v, 4) for k, v in h.scores.items()},
                "why": why,
            }
            for h, why in kept
        ],
        "top_similarity": round(own.top, 4),
        "contextual_discount": round(discount, 4),
        "confidence": round(confidence, 4),
        "signals": signals,
        "decisions": decisions,
        "thresholds": {"values": search.profile.values, "origin": search.profile.origin},
        "timings_ms": search.timings,
        "options": search.opts.label(),
        "rerank": rerank_note,
    }


def _margin(own: list[int], hits: dict[int, Hit]) -> float:
    scores = [hits[i].scores.get("message", 0.0) for i in own[:2]]
    return scores[0] - scores[1] if len(scores) == 2 else (scores[0] if scores else 0.0)


def _render_context(
    hits: list[Hit], *, on: date, audience: str, ended_since: date | None
) -> list[RenderedTopic]:
    """Group kept pieces by topic and render their facts for the date (facts that ended before
    ``ended_since`` drop out here; those that ended since are marked as over)."""
    fact_ids: list[int] = []
    order: list[int] = []
    for hit in hits:
        if hit.topic_id not in order:
            order.append(hit.topic_id)
        fact_ids.extend(hit.fact_ids)
    if not fact_ids:
        return []
    rendered = knowledge_render(
        on=on, topic_ids=order, audience=audience, fact_ids=fact_ids, ended_since=ended_since
    )
    by_topic = {t.topic_id: t for t in rendered}
    return [by_topic[t] for t in order if t in by_topic]


# How much closer to the question an ended fact must be than every fact in force. On the development
# scenarios the questions about what ended were 0.09-0.35 closer to it; a question for today's price
# of a card was 0.03 closer to a discount on it that had ended than to the price itself.
ENDED_MARGIN = 0.05


def ended_only_if_asked(question: str, context: list[RenderedTopic]) -> list[RenderedTopic]:
    """An ended fact stays in the context only when the question is closer to it than to every fact
    in force, by the model retrieval searched with: "can we still come to the winter fair?" reads when
    the fair was; "how late are you open?" must not read the longer hours that ended last month."""
    ended = {f.id for t in context for f in t.facts if f.state == "ended"}
    if not ended:
        return context
    similarity = fact_similarity(question, context)
    in_force = max((s for fact_id, s in similarity.items() if fact_id not in ended), default=-1.0)
    asked = {fact_id for fact_id in ended if similarity.get(fact_id, -1.0) > in_force + ENDED_MARGIN}
    pruned = (t.keeping({f.id for f in t.facts if f.state != "ended" or f.id in asked}) for t in context)
    return [t for t in pruned if t is not None]
