"""The webhook pages: an owner adds an endpoint (internal addresses refused in the form), sees its
secret and delivery log, resends a delivery; staff and other businesses get 404."""

from __future__ import annotations

from apps.chat.services import conversation_open
from apps.tenants.tasks import run_for_business
from apps.webhooks.models import Delivery, Endpoint
from apps.webhooks.services import SEND_TASK
from tests.webhooks.receiver import receiver


def test_owner_adds_an_endpoint_sees_deliveries_and_resends(
    world, in_sunny, settings, django_capture_on_commit_callbacks
):
    client = world.client(world.owner)
    settings.XORVENTA_OUTBOUND_ALLOW_LOOPBACK = False
    refused = client.post("/t/sunny/webhooks/", {"url": "http://10.0.0.7/hook", "is_active": "on"})
    assert refused.status_code == 400 and b"a private address" in refused.content
    settings.XORVENTA_OUTBOUND_ALLOW_LOOPBACK = True
    with receiver(statuses=[500]) as hook:
        response = client.post(
            "/t/sunny/webhooks/", {"url": hook.url, "events": ["conversation.started"], "is_active": "on"}
        )
        assert response.status_code == 302
        with in_sunny():
            endpoint = Endpoint.objects.get()
            conversation_open(visitor_id="visitor-portal-1")
            delivery = Delivery.objects.get()
        run_for_business(world.sunny.schema_name, SEND_TASK, delivery.pk)
        page = client.get(f"/t/sunny/webhooks/{endpoint.pk}/").content.decode()
        assert endpoint.secret in page and "conversation.started" in page and "HTTP 500" in page
        assert "Failed; will retry" in page
        with django_capture_on_commit_callbacks() as queued:
            assert client.post(f"/t/sunny/webhooks/deliveries/{delivery.pk}/resend/").status_code == 302
        assert len(queued) == 1
        run_for_business(world.sunny.schema_name, SEND_TASK, delivery.pk, manual=True)
        page = client.get(f"/t/sunny/webhooks/{endpoint.pk}/").content.decode()
        assert "(resent)" in page and "Delivered" in page
        assert len(hook.requests) == 2

    old_secret = endpoint.secret
    assert client.post(f"/t/sunny/webhooks/{endpoint.pk}/secret/").status_code == 302
    with in_sunny():
        assert Endpoint.objects.get().secret != old_secret

    for user in (world.staff, world.other_owner, world.far_agency):
        other = world.client(user)
        assert other.get("/t/sunny/webhooks/").status_code == 404
        assert other.get(f"/t/sunny/webhooks/{endpoint.pk}/").status_code == 404
        assert other.post(f"/t/sunny/webhooks/{endpoint.pk}/delete/").status_code == 404
    # The neighbour's owner, on their own business, cannot reach this endpoint's id either.
    assert world.client(world.other_owner).get(f"/t/brew/webhooks/{endpoint.pk}/").status_code == 404

    assert client.post(f"/t/sunny/webhooks/{endpoint.pk}/delete/").status_code == 302
    with in_sunny():
        assert not Endpoint.objects.exists() and not Delivery.objects.exists()
