"""Merging two questions for the owner into one (the portal's and the API's "these are the same")."""

from __future__ import annotations

import logging

from django.db import transaction

from apps.facts.services import KnowledgeInputError
from apps.gaps.models import GapAsk, GapStatus, GapTicket

logger = logging.getLogger(__name__)


@transaction.atomic
def gap_merge(*, ticket: GapTicket, into: GapTicket, actor: str = "") -> GapTicket:
    """The owner says two open questions are one: ``ticket``'s asks (wordings, conversations, contact
    details) move to ``into``, which counts them, and ``ticket`` is deleted. Answering ``into``
    then tells every visitor who asked either."""
    if ticket.pk == into.pk:
        raise KnowledgeInputError("A question cannot be merged into itself.")
    ticket, into = (
        GapTicket.objects.select_for_update().get(pk=ticket.pk),
        GapTicket.objects.select_for_update().get(pk=into.pk),
    )
    if ticket.status != GapStatus.OPEN or into.status != GapStatus.OPEN:
        raise KnowledgeInputError("Only open questions can be merged.")
    GapAsk.objects.filter(ticket=ticket).update(ticket=into)
    into.asked_count += ticket.asked_count
    into.first_asked_at = min(into.first_asked_at, ticket.first_asked_at)
    into.last_asked_at = max(into.last_asked_at, ticket.last_asked_at)
    into.save(update_fields=["asked_count", "first_asked_at", "last_asked_at"])
    # Deleted, not dismissed: a dismissed ticket silences every similar question from then on.
    logger.info("question %s merged into %s by %s", ticket.pk, into.pk, actor or "the owner")
    ticket.delete()
    return into
