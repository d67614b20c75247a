"""Visitor data rights: consent kept with every contact, one visitor's data exported or erased, and
the business's retention period applied.

Erasure is real deletion (``DELETE``), not a flag: the visitor's messages, conversations, feedback,
contact details and their asks in the gap loop. A question for the owner keeps its text and its count
(the owner still needs the question) but no longer says who asked, from which conversation, or how to
reach them. Facts are not touched: they hold the business's knowledge, and their history is
append-only (docs/security.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from apps.chat.models import Conversation, Message
from apps.chat.widget import widget_settings
from apps.gaps.models import GapAsk, GapTicket
from apps.tenants.db import current_schema
from apps.visitors.models import ContactSource, DataSettings, VisitorContact
from apps.visitors.signals import lead_captured, visitor_erased

RETENTION_BATCH = 500
MAX_RETENTION_DAYS = 3650


class VisitorInputError(ValueError):
    pass


def _lead(contact: VisitorContact, questions: int = 0) -> dict[str, Any]:
    return {
        "id": contact.pk,
        "conversation_id": contact.conversation_id,
        "visitor_id": contact.visitor_id,
        "name": contact.name,
        "contact": contact.contact,
        "source": contact.source,
        "consent_text": contact.consent_text,
        "consented_at": contact.consented_at.isoformat(),
        "questions": questions,
    }


@transaction.atomic
def contact_consent_record(
    *, conversation_id: int, contact: str, questions: int = 0
) -> VisitorContact | None:
    """Contact details left in the widget (already validated by the gap loop), with the text the visitor
    saw beside the field (the widget's lead-capture text) and the time, on the conversation too."""
    conversation = Conversation.objects.select_for_update().filter(pk=conversation_id).first()
    if conversation is None:
        return None
    now = timezone.now()
    row = VisitorContact.objects.create(
        visitor_id=conversation.visitor_id,
        conversation_id=conversation.pk,
        contact=contact,
        source=ContactSource.LEAD_FORM,
        consent_text=widget_settings().lead_capture_text,
        consented_at=now,
    )
    conversation.contact, conversation.contact_consent_at = contact[:200], now
    conversation.save(update_fields=["contact", "contact_consent_at"])
    lead_captured.send(
        sender="visitors", schema_name=current_schema(), contact_id=row.pk, lead=_lead(row, questions)
    )
    return row


@transaction.atomic
def visitor_identify(
    *, visitor_id: str, name: str, email: str, consent_text: str, origin: str = ""
) -> VisitorContact:
    """The website says who the visitor is (Xorventa.identify). Repeated calls with the same details
    (every page load of a signed-in visitor) are one contact, announced once."""
    name, email = " ".join((name or "").split())[:200], (email or "").strip()
    if not email:
        raise VisitorInputError("identify() needs an email address.")
    try:
        validate_email(email)
    except ValidationError:
        raise VisitorInputError("That is not an email address.") from None
    if len(email) > 200:
        raise VisitorInputError("An email address can be at most 200 characters.")
    text = " ".join((consent_text or "").split())[:1000] or (
        f"Passed by the website{' ' + origin if origin else ''} through Xorventa.identify()."
    )
    existing = VisitorContact.objects.filter(
        visitor_id=visitor_id, source=ContactSource.IDENTIFY, contact__iexact=email
    ).first()
    if existing is not None and existing.name == name:
        return existing
    conversation = Conversation.objects.filter(visitor_id=visitor_id).order_by("-last_at").first()
    row = existing or VisitorContact(visitor_id=visitor_id, source=ContactSource.IDENTIFY, contact=email)
    row.name, row.consent_text, row.consented_at = name, text, timezone.now()
    row.conversation_id = conversation.pk if conversation else None
    row.save()
    lead_captured.send(sender="visitors", schema_name=current_schema(), contact_id=row.pk, lead=_lead(row))
    return row


@dataclass(frozen=True)
class Erased:
    conversations: int
    messages: int
    contacts: int
    asks: int


def _erase(*, conversation_ids: list[int], visitor_ids: list[str]) -> Erased:
    asks = GapAsk.objects.filter(Q(conversation_id__in=conversation_ids) | Q(visitor_id__in=visitor_ids))
    # The ticket keeps its question; its last retrieval log may quote the person's wording: cleared.
    GapTicket.objects.filter(pk__in=asks.values("ticket_id")).update(retrieval_log={})
    asks_deleted, _ = asks.delete()
    contacts_deleted, _ = VisitorContact.objects.filter(
        Q(conversation_id__in=conversation_ids) | Q(visitor_id__in=visitor_ids)
    ).delete()
    messages = Message.objects.filter(conversation_id__in=conversation_ids).count()
    Conversation.objects.filter(pk__in=conversation_ids).delete()  # messages and their feedback cascade
    visitor_erased.send(
        sender="visitors",
        schema_name=current_schema(),
        conversation_ids=conversation_ids,
        visitor_ids=visitor_ids,
    )
    return Erased(
        conversations=len(conversation_ids), messages=messages, contacts=contacts_deleted, asks=asks_deleted
    )


@transaction.atomic
def visitor_erase(*, visitor_id: str) -> Erased:
    """Delete everything held about one visitor (see the module's docstring for what stays)."""
    if not visitor_id:
        raise VisitorInputError("Which visitor?")
    ids = list(Conversation.objects.filter(visitor_id=visitor_id).values_list("pk", flat=True))
    return _erase(conversation_ids=ids, visitor_ids=[visitor_id])


def data_settings() -> DataSettings:
    row, _ = DataSettings.objects.get_or_create(pk=1)
    return row


@transaction.atomic
def retention_set(*, days: int | None) -> DataSettings:
    if days is not None and not 1 <= days <= MAX_RETENTION_DAYS:
        raise VisitorInputError(
            f"Keep conversations between 1 and {MAX_RETENTION_DAYS} days, or leave it empty."
        )
    row = data_settings()
    row.retention_days = days
    row.save()
    return row


def retention_apply(*, now: Any = None) -> int:
    """Delete conversations whose last message is older than the retention period, and the contacts
    given in them, in batches (one transaction each). Idempotent; returns how many were deleted."""
    days = data_settings().retention_days
    if not days:
        return 0
    cutoff = (now or timezone.now()) - timedelta(days=days)
    deleted = 0
    while True:
        with transaction.atomic():
            ids = list(
                Conversation.objects.filter(last_at__lt=cutoff)
                .order_by("pk")
                .values_list("pk", flat=True)[:RETENTION_BATCH]
            )
            if not ids:
                break
            _erase(conversation_ids=ids, visitor_ids=[])
            deleted += len(ids)
    with transaction.atomic():  # contacts passed by the website with no conversation kept
        old = VisitorContact.objects.filter(consented_at__lt=cutoff)
        visitor_ids = sorted(set(old.values_list("visitor_id", flat=True)))
        if visitor_ids:
            old.delete()
            visitor_erased.send(
                sender="visitors", schema_name=current_schema(), conversation_ids=[], visitor_ids=visitor_ids
            )
    return deleted
