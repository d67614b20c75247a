"""Building the index of one business: topic documents cut into pieces, embedded, stored with pgvector.

What is indexed is the business's knowledge rendered per topic (never raw fact rows): the live facts
of a topic, one line each, packed into pieces of about 900 characters with 150 characters of overlap,
each embedded with the topic's name as its title. A change to a fact re-indexes only its topic; a
model change builds a whole new generation beside the old one and switches to it in one transaction.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from apps.facts.models import Fact, FactStatus, Topic, Visibility
from apps.retrieval import embedding
from apps.retrieval.chunking import chunk_document
from apps.retrieval.models import Audience, IndexState, Piece
from apps.tenants.db import current_schema

logger = logging.getLogger(__name__)

PIECE_SIZE = 900
PIECE_OVERLAP = 150


REINDEX_HINT = (
    "re-embed it: python manage.py reindex --business {slug} (or `reindex` for every stale business)"
)


def question_weight() -> float:
    """How far an owner answer's pieces are moved towards the question they answer.

    Visitors ask questions, and an owner's answer is stored with the question it answered. A piece
    answering one question is embedded as normalise(v(title + question + answer) + w x v(question)):
    FAQ retrieval scores a message against both the stored question and the answer (query-question and
    query-answer similarity, combined), and this folds the two into the one vector HNSW searches.
    Pieces from pages and documents (no question) are embedded as they are. docs/retrieval.md has the
    measurements behind the default; a change needs `reindex --all`, which the index state enforces.
    """
    return float(getattr(settings, "XORVENTA_QUESTION_KEY_WEIGHT", 0.0))


class IndexStaleError(RuntimeError):
    """The stored vectors were made by another model (or revision) than the one loaded now."""


def stale_reason(state: IndexState) -> str:
    """Why the index cannot serve queries with the configured model ("" when it can). Cheap: compares
    identifiers only; the golden vector is compared by ``index_check`` (start-up, ``reindex``)."""
    if state.status == "stale":
        return state.stale_reason or "the index is marked stale"
    configured = embedding.model_id()
    if state.model_id != configured:
        return f"the index was built with {state.model_id}, but {configured} is configured"
    if abs(state.question_weight - question_weight()) > 1e-9:
        return (
            f"its pieces were embedded with question weight {state.question_weight:g}, "
            f"but XORVENTA_QUESTION_KEY_WEIGHT is {question_weight():g}"
        )
    return ""


def index_usable() -> IndexState:
    """The index state, or IndexStaleError saying what to do: vectors from another model's space would
    rank pieces by noise, so a stale index answers nothing rather than something wrong."""
    state = index_state()
    reason = stale_reason(state)
    if reason:
        tenant = getattr(connection, "tenant", None)
        slug = getattr(tenant, "slug", None) or current_schema().replace("_", "-")
        raise IndexStaleError(
            f"The search index of {slug} is stale ({reason}): " + REINDEX_HINT.format(slug=slug)
        )
    return state


@dataclass(frozen=True)
class PieceDraft:
    topic_id: int
    position: int
    audience: str
    topic_has_internal: bool
    title: str
    text: str
    fact_ids: tuple[int, ...]
    expires_on: date | None
    question: str = ""


def _fact_line(fact: Fact) -> str:
    if fact.valid_from and fact.valid_to:
        return f"{fact.statement} (from {fact.valid_from:%d %b %Y} to {fact.valid_to:%d %b %Y})"
    if fact.valid_to:
        return f"{fact.statement} (until {fact.valid_to:%d %b %Y})"
    if fact.valid_from:
        return f"{fact.statement} (from {fact.valid_from:%d %b %Y})"
    return fact.statement


def _pack(lines: list[tuple[Fact, str]]) -> list[list[tuple[Fact, str]]]:
    """Pack whole fact lines into pieces of at most PIECE_SIZE characters; the next piece starts with
    the previous piece's last lines up to PIECE_OVERLAP characters, so a detail near a boundary is
    found with its neighbours."""
    pieces: list[list[tuple[Fact, str]]] = []
    current: list[tuple[Fact, str]] = []
    size = 0
    for item in lines:
        length = len(item[1]) + 1
        if current and size + length > PIECE_SIZE:
            pieces.append(current)
            overlap: list[tuple[Fact, str]] = []
            carried = 0
            for prev in reversed(current):
                if carried + len(prev[1]) + 1 > PIECE_OVERLAP:
                    break
                overlap.insert(0, prev)
                carried += len(prev[1]) + 1
            current, size = overlap, carried
        current.append(item)
        size += length
    if current:
        pieces.append(current)
    return pieces


def topic_drafts(topic: Topic) -> list[PieceDraft]:
    """The pieces of one topic, for visitors and (only when it has internal facts) for staff.

    Every live fact is indexed, ended or not: the query filters by date (``expires_on``) and the
    answerer reads the facts rendered for the question's date, so an ended fact never reaches it, and
    a question about a past or future date still finds the facts that applied then."""
    facts = list(Fact.objects.filter(topic=topic, status=FactStatus.LIVE).order_by("learned_at", "id"))
    has_internal = any(f.visibility == Visibility.INTERNAL for f in facts)
    drafts: list[PieceDraft] = []
    audiences = [(Audience.VISITOR, [f for f in facts if f.visibility == Visibility.PUBLIC])]
    if has_internal:
        audiences.append((Audience.STAFF, facts))
    for audience, chosen in audiences:
        # Structure first (seed 001): an owner's answer to one question is a section of its own, and a
        # piece never mixes two sections, so a piece's vector is not an average of unrelated answers.
        # Facts from pages and documents (no question) form the topic's general section.
        sections: dict[str, list[tuple[Fact, str]]] = {}
        for fact in chosen:
            line = _fact_line(fact)
            section = sections.setdefault(fact.question, [])
            # An owner's answer is indexed with the question it answers: visitors ask questions, and a
            # question matches a question better than it matches the answer's wording. The answerer
            # never sees this line; it reads the facts rendered for the date.
            if fact.question and not section:
                line = f"{fact.question}\n{line}"
            if len(line) > PIECE_SIZE:  # one long statement (a pasted paragraph): cut it at sentences
                section.extend(
                    (fact, p.text) for p in chunk_document(topic.name, line, PIECE_SIZE, PIECE_OVERLAP)
                )
            else:
                section.append((fact, line))
        packed_pieces = [(question, piece) for question, lines in sections.items() for piece in _pack(lines)]
        for position, (question, packed) in enumerate(packed_pieces):
            piece_facts = [f for f, _ in packed]
            ends = [f.valid_to for f in piece_facts]
            drafts.append(
                PieceDraft(
                    topic_id=topic.pk,
                    position=position,
                    audience=audience,
                    topic_has_internal=has_internal,
                    title=topic.name,
                    text="\n".join(line for _, line in packed),
                    fact_ids=tuple(dict.fromkeys(f.pk for f in piece_facts)),
                    expires_on=None
                    if any(e is None for e in ends)
                    else max(e for e in ends if e is not None),
                    question=question,
                )
            )
    return drafts


def embedding_text(title: str, text: str) -> str:
    return f"{title}\n{text}"


def _store(drafts: list[PieceDraft], generation: int) -> int:
    if not drafts:
        return 0
    vectors = embedding.embed_passages([embedding_text(d.title, d.text) for d in drafts])
    weight = question_weight()
    keyed = [(i, d.question) for i, d in enumerate(drafts) if d.question]
    if weight and keyed:
        # The piece's vector moves towards the question it answers (see question_weight).
        keys = embedding.embed_passages([question for _, question in keyed])
        for (i, _), key in zip(keyed, keys, strict=True):
            combined = vectors[i] + weight * key
            vectors[i] = combined / np.linalg.norm(combined)
    pieces = Piece.objects.bulk_create(
        [
            Piece(
                generation=generation,
                topic_id=d.topic_id,
                position=d.position,
                audience=d.audience,
                topic_has_internal=d.topic_has_internal,
                title=d.title,
                text=d.text,
                fact_ids=list(d.fact_ids),
                expires_on=d.expires_on,
                embedding=vectors[i].tolist(),
            )
            for i, d in enumerate(drafts)
        ]
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE retrieval_piece SET search = setweight(to_tsvector('english', title), 'A') || "
            "to_tsvector('english', text) WHERE id = ANY(%s)",
            [[p.pk for p in pieces]],
        )
    return len(pieces)


def index_state() -> IndexState:
    """The index's state row, created on first use in the current model's space."""
    state = IndexState.objects.first()
    if state is None:
        embedder = embedding.get_embedder()
        state = IndexState.objects.create(
            model_id=embedder.model_id(),
            golden=embedder.golden_vector(),
            built_at=timezone.now(),
            question_weight=question_weight(),
        )
    return state


def index_check() -> IndexState:
    """Guard against silent drift: the loaded model must reproduce the stored golden vector."""
    state = index_state()
    embedder = embedding.get_embedder()
    reason = ""
    if state.model_id != embedder.model_id():
        reason = f"the index was built with {state.model_id}, but {embedder.model_id()} is configured"
    elif not embedder.golden_matches(list(state.golden)):
        reason = "the embedding model no longer reproduces the stored golden vector (cosine < 0.999)"
    if reason and state.status != "stale":
        state.status, state.stale_reason = "stale", reason[:500]
        state.save(update_fields=["status", "stale_reason"])
    elif not reason and state.status == "stale":
        state.status, state.stale_reason = "ready", ""
        state.save(update_fields=["status", "stale_reason"])
    return state


@transaction.atomic
def index_topics(topic_ids: Iterable[int]) -> int:
    """Re-index these topics (and only these) in the active generation."""
    ids = sorted(set(topic_ids))
    if not ids:
        return 0
    state = index_state()
    reason = stale_reason(state)
    if reason:  # new vectors would mix two spaces in one generation; the rebuild indexes every topic
        logger.warning("not re-indexing %d topics in %s: %s", len(ids), current_schema(), reason)
        return 0
    Piece.objects.filter(generation=state.generation, topic_id__in=ids).delete()
    drafts = [d for topic in Topic.objects.filter(pk__in=ids) for d in topic_drafts(topic)]
    stored = _store(drafts, state.generation)
    pieces_changed(state)
    return stored


def pieces_changed(state: IndexState) -> None:
    """Record that the active generation's pieces changed (in the caller's transaction)."""
    IndexState.objects.filter(pk=state.pk).update(revision=F("revision") + 1)


def index_rebuild() -> IndexState:
    """Re-embed everything into a new generation, then switch to it at once (the old one serves until
    the switch commits, so visitors never see a half-built index)."""
    state = index_state()
    new_generation = state.generation + 1
    Piece.objects.filter(generation=new_generation).delete()  # leftovers of an interrupted rebuild
    drafts = [d for topic in Topic.objects.all() for d in topic_drafts(topic)]
    for start in range(0, len(drafts), 256):
        with transaction.atomic():
            _store(drafts[start : start + 256], new_generation)
    embedder = embedding.get_embedder()
    with transaction.atomic():
        state = IndexState.objects.select_for_update().get(pk=state.pk)
        old = state.generation
        state.generation = new_generation
        state.model_id = embedder.model_id()
        state.question_weight = question_weight()
        state.golden = embedder.golden_vector()
        state.status, state.stale_reason = "ready", ""
        state.built_at = timezone.now()
        state.save()
        Piece.objects.filter(generation=old).delete()
    return state


@dataclass(frozen=True)
class ReindexOutcome:
    was: str  # "ready" | "stale"
    reason: str
    rebuilt: bool
    pieces: int
    seconds: float


def index_reconcile(*, rebuild: str = "stale") -> ReindexOutcome:
    """Check the current business's index against the loaded model (identifiers and golden vector) and
    rebuild it when ``rebuild`` is "stale" and it is stale, or always when "all"; "none" only checks."""
    started = time.perf_counter()
    state = index_check()
    reason = stale_reason(state)
    was = "stale" if reason else "ready"
    rebuilt = rebuild == "all" or (rebuild == "stale" and bool(reason))
    if rebuilt:
        state = index_rebuild()
    pieces = Piece.objects.filter(generation=state.generation).count()
    return ReindexOutcome(was, reason, rebuilt, pieces, round(time.perf_counter() - started, 2))
