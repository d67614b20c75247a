"""Reads of one visitor's data: finding them, and the export (everything erasure would delete)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.utils import timezone

from apps.chat.models import Conversation
from apps.feedback.models import AnswerFeedback
from apps.gaps.models import GapAsk
from apps.visitors.models import VisitorContact


def visitors_find(query: str, *, limit: int = 50) -> list[dict[str, Any]]:
    """Visitors whose id, or a contact they left, matches ``query`` (an email, a phone, an id)."""
    query = query.strip()
    if not query:
        return []
    ids: dict[str, None] = {}
    for visitor_id in Conversation.objects.filter(Q(visitor_id=query) | Q(contact__iexact=query)).values_list(
        "visitor_id", flat=True
    )[:limit]:
        ids[visitor_id] = None
    for visitor_id in VisitorContact.objects.filter(contact__iexact=query).values_list(
        "visitor_id", flat=True
    )[:limit]:
        ids[visitor_id] = None
    for visitor_id in (
        GapAsk.objects.filter(contact__iexact=query)
        .exclude(visitor_id="")
        .values_list("visitor_id", flat=True)[:limit]
    ):
        ids[visitor_id] = None
    found = []
    for visitor_id in list(ids)[:limit]:
        conversations = Conversation.objects.filter(visitor_id=visitor_id)
        found.append(
            {
                "visitor_id": visitor_id,
                "conversations": conversations.count(),
                "last_at": conversations.order_by("-last_at").values_list("last_at", flat=True).first(),
                "contacts": sorted(
                    set(
                        VisitorContact.objects.filter(visitor_id=visitor_id).values_list("contact", flat=True)
                    )
                ),
            }
        )
    return found


def visitor_held(*, visitor_id: str) -> bool:
    """Whether anything is held about this visitor (what export and erasure would reach)."""
    return (
        Conversation.objects.filter(visitor_id=visitor_id).exists()
        or VisitorContact.objects.filter(visitor_id=visitor_id).exists()
        or GapAsk.objects.filter(visitor_id=visitor_id).exists()
    )


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def visitor_export(*, visitor_id: str) -> dict[str, Any]:
    """One visitor's conversations (every message, with its feedback), contact details with their
    consent, and their questions for the owner: a JSON-ready dict."""
    conversations = list(Conversation.objects.filter(visitor_id=visitor_id).order_by("started_at", "id"))
    conversation_ids = [c.pk for c in conversations]
    feedback = {
        f.message_id: f for f in AnswerFeedback.objects.filter(message__conversation_id__in=conversation_ids)
    }
    out_conversations = []
    for conversation in conversations:
        messages = []
        for m in conversation.messages.order_by("created_at", "id"):
            item: dict[str, Any] = {"id": m.pk, "role": m.role, "text": m.text, "at": _iso(m.created_at)}
            if m.sources:
                item["sources"] = m.sources
            if m.pk in feedback:
                item["feedback"] = {"rating": feedback[m.pk].rating, "comment": feedback[m.pk].comment}
            messages.append(item)
        out_conversations.append(
            {
                "id": conversation.pk,
                "channel": conversation.channel,
                "origin": conversation.origin,
                "started_at": _iso(conversation.started_at),
                "last_at": _iso(conversation.last_at),
                "contact": conversation.contact,
                "contact_consent_at": _iso(conversation.contact_consent_at),
                "messages": messages,
            }
        )
    contacts = [
        {
            "name": c.name,
            "contact": c.contact,
            "source": c.source,
            "consent_text": c.consent_text,
            "consented_at": _iso(c.consented_at),
            "conversation_id": c.conversation_id,
        }
        for c in VisitorContact.objects.filter(
            Q(visitor_id=visitor_id) | Q(conversation_id__in=conversation_ids)
        )
    ]
    asks = [
        {
            "question": a.question,
            "asked_at": _iso(a.asked_at),
            "contact": a.contact,
            "conversation_id": a.conversation_id,
        }
        for a in GapAsk.objects.filter(
            Q(visitor_id=visitor_id) | Q(conversation_id__in=conversation_ids)
        ).order_by("asked_at")
    ]
    return {
        "visitor_id": visitor_id,
        "exported_at": timezone.now().isoformat(),
        "conversations": out_conversations,
        "contacts": contacts,
        "questions_for_owner": asks,
    }
