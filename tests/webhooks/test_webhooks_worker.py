"""Webhooks under a real django-q2 worker (`manage.py qcluster` in a child process on the test
database): the event is enqueued when the visitor's conversation commits, the worker enters the
business's schema, signs and sends it, and a failed delivery comes back through django-q2's scheduler
after its backoff (stack.md: only a real cluster shows that tasks run in the right schema)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from django_tenants.utils import tenant_context

from apps.chat.services import conversation_open
from apps.webhooks.models import Attempt, Delivery, DeliveryStatus
from apps.webhooks.services import endpoint_create
from apps.webhooks.signing import signature_verify
from tests.facts.test_jobs_worker import worker
from tests.webhooks.receiver import receiver

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_worker_signs_sends_and_retries(make_business, tmp_path: Path) -> None:
    sunny = make_business("sunny", "Sunny Bakery")
    log = tmp_path / "worker.log"
    with receiver(statuses=[502]) as hook, worker(log, XORVENTA_WEBHOOK_RETRY_SECONDS="1"):
        with tenant_context(sunny):
            endpoint = endpoint_create(url=hook.url)
            conversation = conversation_open(visitor_id="visitor-worker-1")  # commits: the task is queued
        deadline = time.monotonic() + 150  # django-q2's scheduler looks for due schedules every ~30 s
        while True:
            with tenant_context(sunny):
                delivery = Delivery.objects.get()
            if delivery.status == DeliveryStatus.SUCCEEDED or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert delivery.status == DeliveryStatus.SUCCEEDED, log.read_text()[-4000:]
    with tenant_context(sunny):
        codes = list(Attempt.objects.filter(delivery=delivery).values_list("status_code", flat=True))
    assert codes == [502, 200]
    assert len(hook.requests) == 2
    for request in hook.requests:
        signature_verify(endpoint.secret, request.headers["xorventa-signature"], request.body)
        assert json.loads(request.body)["data"]["conversation"]["id"] == conversation.pk
