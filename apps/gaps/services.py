"""The gap loop (seed 000, 3.5 and Figure 1): a question the knowledge cannot answer becomes a question
for the owner, and the owner's answer becomes a top-precedence, dated fact.

Gaps sit above retrieval and below chat: chat calls ``gap_record``; when the owner answers, gaps
announces ``gap_answered`` and chat (listening) tells the visitors in their conversations.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone
from django_tenants.utils import schema_context
from pgvector.django import CosineDistance

from apps.accounts.models import Membership, Role
from apps.facts.extraction.guard import UNREADABLE, looks_like_instructions
from apps.facts.lexical import content_words
from apps.facts.selectors import disagreements_open
from apps.facts.services import KnowledgeInputError, owner_answer_record
from apps.gaps.models import GapAsk, GapStatus, GapTicket
from apps.retrieval import embedding
from apps.tenants.db import current_schema
from apps.tenants.models import Business
from apps.tenants.selectors import current_business_name

logger = logging.getLogger(__name__)

# Two questions are one ticket when they are near-identical in meaning (cosine >= SAME_MEANING), or
# close (>= CLOSE) and about the same things (their content words overlap). Measured on MiniLM pairs
# (docs/gaps.md): "customer parking?" / "is there customer parking near the bakery?" 0.73 (same);
# "open on Christmas day?" / "open on New Year's day?" 0.85 (different: the overlap test splits them).
SAME_MEANING = 0.92
CLOSE = 0.70


def same_question(a: str, b: str, similarity: float) -> bool:
    if similarity >= SAME_MEANING:
        return True
    if similarity < CLOSE:
        return False
    wa, wb = content_words(a), content_words(b)
    if not wa or not wb:
        return False
    small, large = sorted((wa, wb), key=len)
    return small <= large or len(wa & wb) / len(wa | wb) >= 0.5


# kwargs: schema_name, ticket_id, answer, fact_ids
gap_answered = Signal()

# A visitor left contact details to be told an answer (sent inside the transaction that attached them).
# kwargs: schema_name, conversation_id, contact, questions (how many open asks it was attached to)
contact_left = Signal()


@dataclass(frozen=True)
class GapRecorded:
    ticket: GapTicket | None  # None: an attack, or similar to a dismissed question: not recorded
    ask: GapAsk | None
    merged: bool


def _nearest(vector: Any, status: str) -> tuple[GapTicket | None, float]:
    ticket = (
        GapTicket.objects.filter(status=status)
        .annotate(distance=CosineDistance("embedding", vector))
        .order_by("distance")
        .first()
    )
    if ticket is None:
        return None, 0.0
    return ticket, 1.0 - float(ticket.distance)


def is_attack(question: str) -> bool:
    """A visitor's message that reads as instructions to an AI ("ignore your instructions...", "you
    are now DAN") by the same guard that keeps such text out of the knowledge. A question the guard
    merely cannot read (not English) is still a question."""
    why = looks_like_instructions(question)
    return why is not None and why != UNREADABLE


@transaction.atomic
def gap_record(
    *,
    question: str,
    top_similarity: float,
    retrieval_log: dict[str, Any] | None = None,
    conversation_id: int | None = None,
    message_id: int | None = None,
    visitor_id: str = "",
    query_vector: Any | None = None,
    at: datetime | None = None,
) -> GapRecorded:
    """Record that a visitor asked something the knowledge does not cover; merge with similar asks."""
    question = " ".join(question.split())[:2000]
    if not question:
        raise KnowledgeInputError("An empty question is not a gap.")
    if is_attack(question):  # text addressed to the AI, not a question about the business
        return GapRecorded(ticket=None, ask=None, merged=False)
    at = at or timezone.now()
    vector = query_vector if query_vector is not None else embedding.embed_query(question)
    dismissed, dismissed_sim = _nearest(vector, GapStatus.DISMISSED)
    if dismissed is not None and same_question(question, dismissed.question, dismissed_sim):
        return GapRecorded(ticket=None, ask=None, merged=False)
    ticket, similarity = _nearest(vector, GapStatus.OPEN)
    merged = ticket is not None and same_question(question, ticket.question, similarity)
    if not merged:
        ticket = GapTicket.objects.create(
            question=question,
            embedding=list(vector),
            first_asked_at=at,
            last_asked_at=at,
            top_similarity=top_similarity,
        )
    assert ticket is not None
    ticket = GapTicket.objects.select_for_update().get(pk=ticket.pk)
    ticket.asked_count += 1
    ticket.last_asked_at = max(at, ticket.last_asked_at)
    ticket.top_similarity = max(ticket.top_similarity, top_similarity) if merged else top_similarity
    ticket.retrieval_log = retrieval_log or {}
    ticket.save(update_fields=["asked_count", "last_asked_at", "top_similarity", "retrieval_log"])
    ask = GapAsk.objects.create(
        ticket=ticket,
        question=question,
        conversation_id=conversation_id,
        message_id=message_id,
        visitor_id=visitor_id,
        top_similarity=top_similarity,
        asked_at=at,
    )
    return GapRecorded(ticket=ticket, ask=ask, merged=merged)


@transaction.atomic
def gap_contact_leave(*, conversation_id: int, contact: str) -> int:
    """A visitor leaves an email or phone number to be told the answer: attach it to their open asks."""
    contact = contact.strip()
    longest = GapAsk._meta.get_field("contact").max_length or 200
    if len(contact) > longest:  # refused whole: a truncated address would reach nobody
        raise KnowledgeInputError(f"A contact can be at most {longest} characters.")
    if "@" not in contact and sum(ch.isdigit() for ch in contact) < 6:
        raise KnowledgeInputError("Leave an email address or a phone number.")
    count = GapAsk.objects.filter(
        conversation_id=conversation_id, ticket__status=GapStatus.OPEN, notified_at__isnull=True
    ).update(contact=contact)
    contact_left.send(
        sender="gaps",
        schema_name=current_schema(),
        conversation_id=conversation_id,
        contact=contact,
        questions=count,
    )
    return count


@transaction.atomic
def gap_answer(*, ticket: GapTicket, answer: str, actor: str = "") -> GapTicket:
    """The owner answers: an owner answer through the knowledge layer, the ticket closes with its facts,
    visitors who left contact details are told (once), and conversations hear about it (signal)."""
    ticket = GapTicket.objects.select_for_update().get(pk=ticket.pk)
    if ticket.status == GapStatus.ANSWERED:
        raise KnowledgeInputError("This question was already answered.")
    if not answer.strip():
        raise KnowledgeInputError("Write an answer.")
    result = owner_answer_record(question=ticket.question, answer=answer, ref=f"gap-{ticket.pk}", actor=actor)
    fact_ids = sorted({f.pk for f in result.added} | {f.pk for f in result.confirmed})
    ticket.status = GapStatus.ANSWERED
    ticket.answer = answer.strip()
    ticket.answered_at = timezone.now()
    ticket.answered_by = actor
    ticket.fact_ids = fact_ids
    ticket.save()
    schema_name = current_schema()
    transaction.on_commit(lambda: _notify_visitors(schema_name, ticket.pk))
    gap_answered.send(
        sender="gaps", schema_name=schema_name, ticket_id=ticket.pk, answer=ticket.answer, fact_ids=fact_ids
    )
    return ticket


def _notify_visitors(schema_name: str, ticket_id: int) -> int:
    """Email each visitor who left an address, once (notified_at is the guard)."""
    sent = 0
    with schema_context(schema_name):
        ticket = GapTicket.objects.get(pk=ticket_id)
        business = current_business_name()
        for ask in GapAsk.objects.filter(ticket=ticket, notified_at__isnull=True).exclude(contact=""):
            claimed = GapAsk.objects.filter(pk=ask.pk, notified_at__isnull=True).update(
                notified_at=timezone.now()
            )
            if not claimed:
                continue
            if "@" in ask.contact:
                send_mail(
                    subject=f"{business} answered your question",
                    message=f"You asked: {ask.question}\n\n{business} says: {ticket.answer}\n",
                    from_email=None,
                    recipient_list=[ask.contact],
                    fail_silently=True,
                )
            else:
                logger.info(
                    "visitor left a phone number for gap %s: notify by the business's own channel", ticket_id
                )
            sent += 1
    return sent


@transaction.atomic
def gap_dismiss(*, ticket: GapTicket, reason: str = "no business value", actor: str = "") -> GapTicket:
    """Spam, abuse, off-topic: dismissed, and similar questions stop creating tickets."""
    ticket = GapTicket.objects.select_for_update().get(pk=ticket.pk)
    ticket.status = GapStatus.DISMISSED
    ticket.dismissed_reason = (reason or "no business value")[:200]
    ticket.answered_by = actor
    ticket.save(update_fields=["status", "dismissed_reason", "answered_by"])
    return ticket


def gap_digest_send(*, since: datetime | None = None) -> int:
    """The daily digest to the business's owners: new gaps and open disagreements. Returns emails sent."""
    business = Business.objects.filter(schema_name=current_schema()).first()
    if business is None:
        return 0
    new = list(GapTicket.objects.filter(status=GapStatus.OPEN, digested_at__isnull=True)[:20])
    disagreements = list(disagreements_open()[:20])
    if not new and not disagreements:
        return 0
    lines = [f"New questions your visitors asked that {business.name}'s knowledge does not answer:"]
    lines += [
        f"- {t.question} (asked {t.asked_count} time{'s' if t.asked_count != 1 else ''})" for t in new
    ] or ["- none"]
    lines += ["", "Sources that disagree with your own answers:"]
    lines += [f"- {d.statement} (you said: {d.fact.statement})" for d in disagreements] or ["- none"]
    lines += ["", f"Answer them in your portal: {settings.SITE_URL}/t/{business.slug}/gaps/"]
    recipients = list(
        Membership.objects.filter(business=business, role=Role.OWNER, user__digest_emails=True).values_list(
            "user__email", flat=True
        )
    )
    if recipients:
        send_mail(
            subject=f"{business.name}: questions waiting for you",
            message="\n".join(lines),
            from_email=None,
            recipient_list=recipients,
            fail_silently=True,
        )
    GapTicket.objects.filter(pk__in=[t.pk for t in new]).update(digested_at=timezone.now())
    return len(recipients)
