"""The worker's side: send one delivery (in the business's schema: enqueued with
``apps.tenants.tasks.enqueue_for_business``, or scheduled through ``run_for_business`` for a retry).

The request goes out through the outbound guard (``guarded_client``), which resolves the endpoint's
host again now and refuses internal addresses, whatever the address was when the endpoint was saved.
Redirects are not followed: a receiver that moved must be edited by the owner, not discovered.
"""

from __future__ import annotations

import json
import time
from datetime import time as time_of_day

import httpx
from django.conf import settings

from apps.outbound.guard import OutboundRefused, guarded_client
from apps.tenants.tasks import daily_schedule_ensure, enqueue_for_every_business
from apps.webhooks.models import Delivery, DeliveryStatus
from apps.webhooks.services import AttemptResult, delivery_attempt_record
from apps.webhooks.signing import HEADER, signature_header

EXCERPT_BYTES = 500
USER_AGENT = "Xorventa-Webhooks/1"


def delivery_body(delivery: Delivery) -> bytes:
    return json.dumps(delivery.payload, separators=(",", ":"), ensure_ascii=False).encode()


def _post(url: str, body: bytes, headers: dict[str, str]) -> AttemptResult:
    started = time.perf_counter()
    try:
        client = guarded_client(timeout=settings.XORVENTA_WEBHOOK_TIMEOUT, follow_redirects=False)
        with client, client.stream("POST", url, content=body, headers=headers) as response:
            excerpt = b""
            for chunk in response.iter_bytes():  # at most a few hundred bytes of whatever it says
                excerpt += chunk
                if len(excerpt) >= EXCERPT_BYTES:
                    break
        return AttemptResult(
            status_code=response.status_code,
            error="" if response.is_success else f"HTTP {response.status_code}",
            response_excerpt=excerpt[:EXCERPT_BYTES].decode("utf-8", "replace"),
            duration_ms=(time.perf_counter() - started) * 1000,
        )
    except OutboundRefused as exc:
        return AttemptResult(status_code=None, error=f"refused: {exc.reason}", refused=True)
    except httpx.HTTPError as exc:
        return AttemptResult(
            status_code=None,
            error=f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__,
            duration_ms=(time.perf_counter() - started) * 1000,
        )


def delivery_send(delivery_id: int, manual: bool = False) -> str:
    delivery = Delivery.objects.select_related("endpoint").filter(pk=delivery_id).first()
    if delivery is None:
        return "gone"
    if not manual and delivery.status in (DeliveryStatus.SUCCEEDED, DeliveryStatus.FAILED):
        return delivery.status  # a retry scheduled before a resend delivered it
    body = delivery_body(delivery)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        HEADER: signature_header(delivery.endpoint.secret, body),
        "Xorventa-Event": delivery.event_type,
        "Xorventa-Event-Id": str(delivery.event_id),
        "Xorventa-Delivery": str(delivery.pk),
    }
    result = _post(delivery.endpoint.url, body, headers)
    recorded = delivery_attempt_record(delivery_id=delivery.pk, result=result, manual=manual)
    return recorded.status if recorded else "gone"


PRUNE_SCHEDULE = "webhooks-log-prune"


def deliveries_prune_all() -> int:
    """Nightly: every active business prunes its delivery log, in its own schema."""
    return enqueue_for_every_business("apps.webhooks.services.deliveries_prune", task_prefix="webhook-prune")


def prune_schedule_ensure() -> None:
    """The nightly schedule (django-q2, public schema). Idempotent: `manage.py up` ensures it."""
    daily_schedule_ensure(
        name=PRUNE_SCHEDULE, func="apps.webhooks.tasks.deliveries_prune_all", at=time_of_day(3, 45)
    )
