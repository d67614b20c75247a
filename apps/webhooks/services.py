"""Webhook writes: endpoints (checked by the outbound guard), events fanned out to deliveries, and
recording each delivery attempt with its retry schedule.

Delivery is at least once: a receiver may see an event twice (a resend, a retry racing a slow answer)
and should deduplicate by the event's ``id``.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import httpx
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone
from django_q.models import Schedule

from apps.outbound.guard import OutboundRefused, check_url
from apps.tenants.db import current_schema
from apps.tenants.models import Business
from apps.tenants.tasks import enqueue_for_business
from apps.webhooks.models import Attempt, Delivery, DeliveryStatus, Endpoint, EventType
from apps.webhooks.signing import secret_new

logger = logging.getLogger(__name__)

SEND_TASK = "apps.webhooks.tasks.delivery_send"
MAX_ENDPOINTS = 20
# How long the delivery log keeps a finished delivery: long enough to debug a receiver, short enough
# that lead payloads (contact details) do not pile up for ever.
LOG_DAYS = 30
BACKOFF_CAP_SECONDS = 6 * 3600


class WebhookInputError(ValueError):
    """Input an owner can fix, with the reason in their words."""


def _url_check(url: str) -> str:
    url = (url or "").strip()
    if not url:
        raise WebhookInputError("Give the address that should receive the events.")
    if len(url) > Endpoint._meta.get_field("url").max_length:  # type: ignore[operator]
        raise WebhookInputError("That address is too long.")
    try:
        check_url(url)  # resolved now, and again at every delivery (a name can change its address)
    except OutboundRefused as exc:
        raise WebhookInputError(f"Webhooks cannot be sent there: {exc.reason}.") from None
    except httpx.HTTPError as exc:
        raise WebhookInputError(f"That address cannot be reached: {exc}.") from None
    return url


def _events_check(events: list[str] | None) -> list[str]:
    known = set(EventType.values)
    chosen = sorted(set(events or []))
    unknown = [e for e in chosen if e not in known]
    if unknown:
        raise WebhookInputError(f"Unknown event types: {', '.join(unknown)}.")
    return chosen


@transaction.atomic
def endpoint_create(*, url: str, description: str = "", events: list[str] | None = None) -> Endpoint:
    if Endpoint.objects.count() >= MAX_ENDPOINTS:
        raise WebhookInputError(f"A business can have at most {MAX_ENDPOINTS} webhook endpoints.")
    return Endpoint.objects.create(
        url=_url_check(url),
        description=(description or "").strip()[:200],
        events=_events_check(events),
        secret=secret_new(),
    )


@transaction.atomic
def endpoint_update(
    *,
    endpoint: Endpoint,
    url: str,
    description: str = "",
    events: list[str] | None = None,
    is_active: bool = True,
) -> Endpoint:
    endpoint = Endpoint.objects.select_for_update().get(pk=endpoint.pk)
    endpoint.url = _url_check(url)
    endpoint.description = (description or "").strip()[:200]
    endpoint.events = _events_check(events)
    endpoint.is_active = is_active
    endpoint.save()
    return endpoint


@transaction.atomic
def endpoint_secret_roll(*, endpoint: Endpoint) -> Endpoint:
    endpoint = Endpoint.objects.select_for_update().get(pk=endpoint.pk)
    endpoint.secret = secret_new()
    endpoint.save(update_fields=["secret", "updated_at"])
    return endpoint


@transaction.atomic
def endpoint_delete(*, endpoint: Endpoint) -> None:
    Endpoint.objects.filter(pk=endpoint.pk).delete()  # its deliveries and attempts go with it


def _business_slug() -> str:
    tenant = getattr(connection, "tenant", None)
    slug = getattr(tenant, "slug", None)
    if slug and getattr(tenant, "schema_name", None) == current_schema():
        return str(slug)

    return str(
        Business.objects.filter(schema_name=current_schema()).values_list("slug", flat=True).first() or ""
    )


def event_emit(
    *, event_type: str, key: str, data: dict[str, Any], conversation_id: int | None = None
) -> list[Delivery]:
    """One event for every active endpoint that wants it: a delivery each, sent by the worker once the
    surrounding transaction commits. ``key`` names what happened; the same key twice is one event."""
    endpoints = [e for e in Endpoint.objects.filter(is_active=True) if e.wants(event_type)]
    if not endpoints:
        return []
    event_id = uuid.uuid4()
    payload = {
        "id": str(event_id),
        "type": event_type,
        "created": int(timezone.now().timestamp()),
        "business": _business_slug(),
        "data": data,
    }
    schema = current_schema()
    made = []
    for endpoint in endpoints:
        delivery, created = Delivery.objects.get_or_create(
            endpoint=endpoint,
            key=key[:200],
            defaults={
                "event_id": event_id,
                "event_type": event_type,
                "payload": payload,
                "conversation_id": conversation_id,
            },
        )
        if created:
            enqueue_for_business(schema, SEND_TASK, delivery.pk, task_name=f"webhook:{schema}:{delivery.pk}")
            made.append(delivery)
    return made


def event_emit_safely(**kwargs: Any) -> None:
    """For signal receivers inside someone else's unit of work (a visitor's turn, a crawl): a webhook
    problem is logged and rolled back to a savepoint, never allowed to fail the work that caused it."""
    try:
        with transaction.atomic():
            event_emit(**kwargs)
    except Exception:
        logger.exception("webhook event %s not recorded in %s", kwargs.get("event_type"), current_schema())


def backoff(attempt: int) -> timedelta:
    """Wait after the ``attempt``-th failure: base, 2x base, 4x base... capped at six hours."""
    base = float(settings.XORVENTA_WEBHOOK_RETRY_SECONDS)
    return timedelta(seconds=min(BACKOFF_CAP_SECONDS, base * 2 ** (attempt - 1)))


def _retry_schedule(delivery: Delivery, at: Any) -> None:
    schema = current_schema()
    Schedule.objects.create(
        name=f"webhook:{schema}:{delivery.pk}:{delivery.attempts}"[:100],
        func="apps.tenants.tasks.run_for_business",
        args=repr((schema, SEND_TASK, delivery.pk)),
        schedule_type=Schedule.ONCE,
        repeats=-1,  # django-q2 deletes a ONCE schedule after it runs
        next_run=at,
    )


@dataclass(frozen=True)
class AttemptResult:
    status_code: int | None
    error: str = ""
    response_excerpt: str = ""
    duration_ms: float = 0.0
    refused: bool = False  # the guard refused the address: trying again would not help

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


@transaction.atomic
def delivery_attempt_record(
    *, delivery_id: int, result: AttemptResult, manual: bool = False
) -> Delivery | None:
    """Log one attempt and decide what follows: delivered, a retry after the backoff, or failed."""
    delivery = Delivery.objects.select_for_update().filter(pk=delivery_id).first()
    if delivery is None:  # deleted while the request was out (endpoint removed, visitor erased)
        return None
    now = timezone.now()
    delivery.attempts += 1
    Attempt.objects.create(
        delivery=delivery,
        number=delivery.attempts,
        manual=manual,
        at=now,
        status_code=result.status_code,
        error=result.error[:500],
        response_excerpt=result.response_excerpt[:500],
        duration_ms=result.duration_ms,
    )
    delivery.last_status_code = result.status_code
    delivery.last_error = result.error[:500]
    if result.ok:
        delivery.status, delivery.delivered_at, delivery.next_attempt_at = DeliveryStatus.SUCCEEDED, now, None
    elif manual:
        # A failed resend leaves a pending automatic retry in place.
        retry_due = delivery.next_attempt_at is not None and delivery.next_attempt_at > now
        delivery.status = DeliveryStatus.RETRYING if retry_due else DeliveryStatus.FAILED
    elif result.refused or delivery.attempts >= settings.XORVENTA_WEBHOOK_MAX_ATTEMPTS:
        delivery.status, delivery.next_attempt_at = DeliveryStatus.FAILED, None
    else:
        delivery.status = DeliveryStatus.RETRYING
        delivery.next_attempt_at = now + backoff(delivery.attempts)
        _retry_schedule(delivery, delivery.next_attempt_at)
    delivery.save()
    return delivery


@transaction.atomic
def delivery_resend(*, delivery: Delivery) -> None:
    """The owner's "resend": one more try now, by the worker."""
    delivery = Delivery.objects.select_for_update().get(pk=delivery.pk)
    if delivery.status == DeliveryStatus.FAILED:
        delivery.status = DeliveryStatus.PENDING
        delivery.save(update_fields=["status"])
    schema = current_schema()
    enqueue_for_business(
        schema, SEND_TASK, delivery.pk, manual=True, task_name=f"webhook-resend:{schema}:{delivery.pk}"
    )


def deliveries_forget(*, conversation_ids: list[int], visitor_ids: list[str] | None = None) -> int:
    """Delete the deliveries about these conversations or visitors (their data was erased): a lead
    passed by the website may belong to no conversation, so its visitor id finds it."""
    query = Q(conversation_id__in=conversation_ids) | Q(payload__data__lead__visitor_id__in=visitor_ids or [])
    deleted, _ = Delivery.objects.filter(query).delete()
    return deleted


def deliveries_prune(*, now: Any = None) -> int:
    """Delete finished deliveries (delivered or given up) older than ``LOG_DAYS``; pending ones stay."""
    cutoff = (now or timezone.now()) - timedelta(days=LOG_DAYS)
    finished = (DeliveryStatus.SUCCEEDED, DeliveryStatus.FAILED)
    deleted, _ = Delivery.objects.filter(created_at__lt=cutoff, status__in=finished).delete()
    return deleted
