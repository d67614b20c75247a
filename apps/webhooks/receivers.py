"""Webhooks listen to the layers below: model saves (facts, gaps, chat) and their announcements
(facts.signals.topics_changed, gaps.services.gap_answered, visitors.signals). No lower app imports
this one; each receiver turns what happened into one event, keyed so a repeated signal is one event.

Model-save receivers run in the schema of the code that saved (``current_schema``); announcement
receivers enter the schema the signal names.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models.signals import post_save
from django_tenants.utils import schema_context

from apps.chat.models import Channel
from apps.facts.models import JobStatus, Topic
from apps.facts.signals import topics_changed
from apps.gaps.models import GapTicket
from apps.gaps.services import gap_answered
from apps.visitors.signals import lead_captured, visitor_erased
from apps.webhooks.models import EventType
from apps.webhooks.services import deliveries_forget, event_emit_safely


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def _conversation_saved(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    if not created or instance.channel == Channel.DRAFT or kwargs.get("raw"):
        return
    event_emit_safely(
        event_type=EventType.CONVERSATION_STARTED,
        key=f"conversation:{instance.pk}",
        conversation_id=instance.pk,
        data={
            "conversation": {
                "id": instance.pk,
                "channel": instance.channel,
                "origin": instance.origin,
                "visitor_id": instance.visitor_id,
                "started_at": _iso(instance.started_at),
            }
        },
    )


def _gap_ticket_saved(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    if not created or kwargs.get("raw"):
        return
    event_emit_safely(
        event_type=EventType.QUESTION_CREATED,
        key=f"question:{instance.pk}:created",
        data={
            "question": {
                "id": instance.pk,
                "text": instance.question,
                "first_asked_at": _iso(instance.first_asked_at),
            }
        },
    )


def _gap_answered(sender: Any, *, schema_name: str, ticket_id: int, answer: str, **kwargs: Any) -> None:
    with schema_context(schema_name):
        question = GapTicket.objects.filter(pk=ticket_id).values_list("question", flat=True).first() or ""
        event_emit_safely(
            event_type=EventType.QUESTION_ANSWERED,
            key=f"question:{ticket_id}:answered",
            data={
                "question": {
                    "id": ticket_id,
                    "text": question,
                    "answer": answer,
                    "fact_ids": list(kwargs.get("fact_ids") or []),
                }
            },
        )


def _job_saved(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    if instance.status not in (JobStatus.DONE, JobStatus.FAILED) or instance.finished_at is None:
        return
    event_emit_safely(
        event_type=EventType.SOURCE_SYNCED,
        key=f"job:{instance.pk}:{instance.attempt}",  # a re-run job is a new sync
        data={
            "job": {
                "id": instance.pk,
                "kind": instance.kind,
                "target": instance.target,
                "status": instance.status,
                "facts_added": instance.facts_added,
                "facts_retired": instance.facts_retired,
                "disagreements": instance.disagreements,
                "errors": len(instance.errors or []),
                "error": instance.error,
                "finished_at": _iso(instance.finished_at),
            }
        },
    )


def _disagreement_saved(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    if not created or kwargs.get("raw"):
        return
    fact = instance.fact
    event_emit_safely(
        event_type=EventType.DISAGREEMENT_CREATED,
        key=f"disagreement:{instance.pk}",
        data={
            "disagreement": {
                "id": instance.pk,
                "statement": instance.statement,
                "fact": {"id": fact.pk, "statement": fact.statement},
                "source_id": instance.source_id,
                "created_at": _iso(instance.created_at),
            }
        },
    )


def _topics_changed(sender: Any, *, schema_name: str, topic_ids: frozenset[int], **kwargs: Any) -> None:
    with schema_context(schema_name):
        topics = [
            {"id": pk, "name": name}
            for pk, name in Topic.objects.filter(pk__in=topic_ids).values_list("pk", "name")
        ]
        # One event per announcement (a crawl announces once, at its end), not one per fact.
        event_emit_safely(
            event_type=EventType.FACT_CHANGED, key=f"facts:{uuid.uuid4()}", data={"topics": topics}
        )


def _lead_captured(
    sender: Any, *, schema_name: str, contact_id: int, lead: dict[str, Any], **kwargs: Any
) -> None:
    with schema_context(schema_name):
        event_emit_safely(
            event_type=EventType.LEAD_CAPTURED,
            key=f"lead:{contact_id}",
            conversation_id=lead.get("conversation_id"),
            data={"lead": lead},
        )


def _visitor_erased(
    sender: Any, *, schema_name: str, conversation_ids: list[int], visitor_ids: list[str], **kwargs: Any
) -> None:
    with schema_context(schema_name):
        deliveries_forget(conversation_ids=conversation_ids, visitor_ids=visitor_ids)


def connect() -> None:
    post_save.connect(_conversation_saved, sender="chat.Conversation", dispatch_uid="webhooks-conversation")
    post_save.connect(_gap_ticket_saved, sender="gaps.GapTicket", dispatch_uid="webhooks-gap-ticket")
    post_save.connect(_job_saved, sender="facts.IngestionJob", dispatch_uid="webhooks-job")
    post_save.connect(_disagreement_saved, sender="facts.Disagreement", dispatch_uid="webhooks-disagreement")
    gap_answered.connect(_gap_answered, dispatch_uid="webhooks-gap-answered")
    topics_changed.connect(_topics_changed, dispatch_uid="webhooks-topics")
    lead_captured.connect(_lead_captured, dispatch_uid="webhooks-lead")
    visitor_erased.connect(_visitor_erased, dispatch_uid="webhooks-visitor-erased")
