"""Webhooks against a real local receiver: signed deliveries, retries with exponential backoff, the
delivery log, resend, internal addresses refused (when the endpoint is saved and when it is sent to),
and the events the lower layers cause."""

from __future__ import annotations

import ast
import hashlib
import hmac
import json
import time
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from apps.chat.models import Channel
from apps.chat.services import conversation_open
from apps.tenants.tasks import run_for_business
from apps.webhooks.models import Attempt, Delivery, DeliveryStatus, EventType
from apps.webhooks.services import SEND_TASK, WebhookInputError, delivery_resend, endpoint_create
from apps.webhooks.signing import SignatureError, signature_verify
from tests.webhooks.receiver import receiver


def send(business, delivery_id: int, **kwargs) -> str:
    """What the worker runs for a delivery (apps.tenants.tasks.run_for_business enters the schema)."""
    return run_for_business(business.schema_name, SEND_TASK, delivery_id, **kwargs)


def expected_signature(secret: str, header: str, body: bytes) -> str:
    t = dict(part.split("=", 1) for part in header.split(","))["t"]
    return hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()


@override_settings(XORVENTA_WEBHOOK_RETRY_SECONDS=30, XORVENTA_WEBHOOK_MAX_ATTEMPTS=5)
def test_signed_delivery_retried_with_backoff_until_the_receiver_recovers(business):
    from django_q.models import Schedule

    with receiver(statuses=[500, 503]) as hook:
        endpoint = endpoint_create(url=hook.url, events=[EventType.CONVERSATION_STARTED])
        conversation = conversation_open(visitor_id="visitor-webhook-1", channel=Channel.WIDGET)
        delivery = Delivery.objects.get()
        assert delivery.event_type == "conversation.started" and delivery.conversation_id == conversation.pk

        waits = []
        for expected_status in (DeliveryStatus.RETRYING, DeliveryStatus.RETRYING, DeliveryStatus.SUCCEEDED):
            before = timezone.now()
            assert send(business, delivery.pk) == expected_status
            delivery.refresh_from_db()
            if delivery.next_attempt_at:
                waits.append((delivery.next_attempt_at - before).total_seconds())
                # The retry is a django-q2 schedule that runs the same task in the same schema.
                schedule = Schedule.objects.get(
                    name=f"webhook:{business.schema_name}:{delivery.pk}:{delivery.attempts}"
                )
                assert (
                    schedule.next_run == delivery.next_attempt_at and schedule.schedule_type == Schedule.ONCE
                )
                assert ast.literal_eval(schedule.args) == (business.schema_name, SEND_TASK, delivery.pk)
        assert [round(w) for w in waits] == [30, 60]  # exponential: base, then twice the base

        assert len(hook.requests) == 3
        event_ids = {r.headers["xorventa-event-id"] for r in hook.requests}
        assert event_ids == {str(delivery.event_id)}  # one event, retried: receivers deduplicate by id
        for request in hook.requests:
            header = request.headers["xorventa-signature"]
            assert header.startswith("t=") and ",v1=" in header
            assert signature_verify(endpoint.secret, header, request.body) > 0
            assert header.endswith(expected_signature(endpoint.secret, header, request.body))
            payload = json.loads(request.body)
            assert payload["type"] == "conversation.started" and payload["business"] == "sunny"
            assert payload["data"]["conversation"]["id"] == conversation.pk
        first = hook.requests[0]
        with pytest.raises(SignatureError):
            signature_verify(endpoint.secret, first.headers["xorventa-signature"], first.body + b" ")
        with pytest.raises(SignatureError):
            signature_verify("whsec_wrong", first.headers["xorventa-signature"], first.body)
        with pytest.raises(SignatureError, match="replay"):
            signature_verify(
                endpoint.secret, first.headers["xorventa-signature"], first.body, now=time.time() + 301
            )

        log = list(Attempt.objects.filter(delivery=delivery).values_list("number", "status_code", "error"))
        assert log == [(1, 500, "HTTP 500"), (2, 503, "HTTP 503"), (3, 200, "")]
        assert (
            delivery.status == DeliveryStatus.SUCCEEDED and delivery.delivered_at and delivery.attempts == 3
        )

        # A late retry (scheduled before a resend delivered it) sends nothing more.
        assert send(business, delivery.pk) == DeliveryStatus.SUCCEEDED
        assert len(hook.requests) == 3


@override_settings(XORVENTA_WEBHOOK_RETRY_SECONDS=30, XORVENTA_WEBHOOK_MAX_ATTEMPTS=2)
def test_gives_up_after_the_last_attempt_and_the_owner_can_resend(
    business, django_capture_on_commit_callbacks
):
    with receiver(statuses=[500, 500]) as hook:
        endpoint_create(url=hook.url)
        conversation_open(visitor_id="visitor-webhook-2")
        delivery = Delivery.objects.get()
        assert send(business, delivery.pk) == DeliveryStatus.RETRYING
        assert send(business, delivery.pk) == DeliveryStatus.FAILED
        delivery.refresh_from_db()
        assert delivery.next_attempt_at is None and delivery.attempts == 2
        with django_capture_on_commit_callbacks() as queued:
            delivery_resend(delivery=delivery)
        assert len(queued) == 1  # the resend goes to the worker
        assert send(business, delivery.pk, manual=True) == DeliveryStatus.SUCCEEDED
        assert [a.manual for a in Attempt.objects.filter(delivery=delivery)] == [False, False, True]
        assert len(hook.requests) == 3


def test_internal_addresses_are_refused_when_saved(business, settings):
    settings.XORVENTA_OUTBOUND_ALLOW_LOOPBACK = False
    for url in (
        "http://127.0.0.1:8000/admin/",
        "http://localhost/hook",
        "http://10.0.0.5/hook",
        "http://[::ffff:192.168.1.1]/hook",
        "http://2130706433/hook",  # 127.0.0.1 spelled as a number
        "ftp://example.com/hook",
    ):
        with pytest.raises(WebhookInputError, match="cannot be sent there"):
            endpoint_create(url=url)
    settings.XORVENTA_OUTBOUND_ALLOW_LOOPBACK = True  # metadata stays refused even so
    with pytest.raises(WebhookInputError, match="metadata"):
        endpoint_create(url="http://169.254.169.254/latest/meta-data/")


def test_internal_address_refused_at_delivery_time(business, settings):
    """An endpoint saved while its address was acceptable is checked again at every delivery (a name
    can move to an internal address): refused, logged, not retried, nothing sent."""
    with receiver() as hook:
        endpoint_create(url=hook.url)
        conversation_open(visitor_id="visitor-webhook-3")
        delivery = Delivery.objects.get()
        settings.XORVENTA_OUTBOUND_ALLOW_LOOPBACK = False
        assert send(business, delivery.pk) == DeliveryStatus.FAILED
        attempt = Attempt.objects.get(delivery=delivery)
        assert (
            attempt.status_code is None
            and attempt.error.startswith("refused:")
            and "loopback" in attempt.error
        )
        assert hook.requests == []


def test_redirects_are_not_followed(business):
    import http.server
    import threading

    class Redirect(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.send_response(307)
            self.send_header("Location", "http://169.254.169.254/latest/meta-data/")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        endpoint_create(url=f"http://127.0.0.1:{server.server_address[1]}/")
        conversation_open(visitor_id="visitor-webhook-4")
        delivery = Delivery.objects.get()
        assert send(business, delivery.pk) == DeliveryStatus.RETRYING
        assert Attempt.objects.get(delivery=delivery).status_code == 307
    finally:
        server.shutdown()
        server.server_close()


def test_events_of_the_lower_layers(business):
    """Each event type comes from the layer that owns it, through its signal or its model's save."""
    from apps.facts.services import owner_fact_add
    from apps.gaps.models import GapTicket
    from apps.gaps.services import gap_answer, gap_contact_leave, gap_record

    with receiver() as hook:
        endpoint_create(url=hook.url)
        conversation = conversation_open(visitor_id="visitor-webhook-5")
        gap_record(
            question="Do you have parking?",
            top_similarity=0.1,
            conversation_id=conversation.pk,
            visitor_id="visitor-webhook-5",
        )
        gap_contact_leave(conversation_id=conversation.pk, contact="ann@example.com")
        gap_answer(ticket=GapTicket.objects.get(), answer="Yes, behind the shop.")
        owner_fact_add(topic="Sourdough", statement="A sourdough loaf is $8.50.")
        kinds = list(Delivery.objects.order_by("id").values_list("event_type", flat=True))
        assert kinds[:3] == ["conversation.started", "question.created", "lead.captured"]
        assert "question.answered" in kinds and "fact.changed" in kinds
        lead = Delivery.objects.get(event_type="lead.captured").payload["data"]["lead"]
        assert lead["contact"] == "ann@example.com" and lead["conversation_id"] == conversation.pk
        assert lead["consent_text"] and lead["consented_at"]
        answered = Delivery.objects.get(event_type="question.answered").payload["data"]["question"]
        assert answered["text"] == "Do you have parking?" and answered["answer"] == "Yes, behind the shop."
        for delivery in Delivery.objects.all():
            assert send(business, delivery.pk) == DeliveryStatus.SUCCEEDED
        assert len(hook.requests) == len(kinds)


def test_an_endpoint_gets_only_the_events_it_chose(business):
    with receiver() as hook:
        endpoint_create(url=hook.url, events=[EventType.LEAD_CAPTURED])
        conversation_open(visitor_id="visitor-webhook-6")
        assert not Delivery.objects.exists()
        with pytest.raises(WebhookInputError, match="Unknown event"):
            endpoint_create(url=hook.url, events=["everything.happened"])


def test_backoff_is_capped(settings):
    from apps.webhooks.services import backoff

    settings.XORVENTA_WEBHOOK_RETRY_SECONDS = 30
    assert [backoff(n).total_seconds() for n in (1, 2, 3)] == [30, 60, 120]
    assert backoff(30) == timedelta(hours=6)


def test_the_delivery_log_forgets_finished_deliveries_after_30_days(
    business, django_capture_on_commit_callbacks
):
    from django_q.models import Schedule

    from apps.webhooks.services import LOG_DAYS
    from apps.webhooks.tasks import PRUNE_SCHEDULE, deliveries_prune_all, prune_schedule_ensure

    endpoint_create(url="http://127.0.0.1:9/hooks")
    for n in range(3):
        conversation_open(visitor_id=f"visitor-prune-{n}")
    old, failed_old, pending_old = Delivery.objects.order_by("id")
    Delivery.objects.filter(pk=old.pk).update(status=DeliveryStatus.SUCCEEDED)
    Delivery.objects.filter(pk=failed_old.pk).update(status=DeliveryStatus.FAILED)
    Delivery.objects.update(created_at=timezone.now() - timedelta(days=LOG_DAYS + 1))
    conversation_open(visitor_id="visitor-prune-new")
    prune_schedule_ensure()
    prune_schedule_ensure()
    assert Schedule.objects.filter(name=PRUNE_SCHEDULE).count() == 1
    with django_capture_on_commit_callbacks() as queued:
        assert deliveries_prune_all() >= 1
    assert queued
    assert run_for_business(business.schema_name, "apps.webhooks.services.deliveries_prune") == 2
    assert set(Delivery.objects.values_list("pk", flat=True)) == {
        pending_old.pk,
        Delivery.objects.latest("id").pk,
    }
