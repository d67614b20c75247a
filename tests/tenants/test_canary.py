"""Cross-tenant canaries over HTTP and over websockets with concurrent sessions: 0 leaks."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import Client
from django.urls import path
from django_tenants.utils import tenant_context

from apps.facts.models import Fact
from apps.facts.services import owner_fact_add
from apps.tenants.asgi import TenantResolverMiddleware
from apps.tenants.context import call_in_schema

CANARY = {"sunny": "CANARY-SUNNY-7f3a", "smiles": "CANARY-SMILES-91bd"}


def _canaries() -> list[str]:
    return sorted(Fact.objects.values_list("statement", flat=True))


class KnowledgeEchoConsumer(AsyncJsonWebsocketConsumer):
    """Answers each message with its business's facts, the way every product consumer must: the schema
    is entered inside each sync call (apps.tenants.context.call_in_schema), never once on connect."""

    async def connect(self) -> None:
        if not self.scope.get("schema_name"):
            await self.close(code=4404)
            return
        await self.accept()

    async def receive_json(self, content, **kwargs):
        facts = await call_in_schema(self.scope["schema_name"], _canaries)
        await self.send_json({"n": content["n"], "facts": facts})


application = TenantResolverMiddleware(
    URLRouter(
        [
            path("ws/echo/", KnowledgeEchoConsumer.as_asgi()),
            path("t/<slug:slug>/ws/echo/", KnowledgeEchoConsumer.as_asgi()),
        ]
    )
)


@pytest.fixture
def canaries(make_business):
    businesses = {}
    for slug, name in (("sunny", "Sunny Bakery"), ("smiles", "Bright Smiles")):
        business = make_business(slug, name)
        with tenant_context(business):
            owner_fact_add(topic="Canary", statement=CANARY[slug])
        businesses[slug] = business
    return businesses


@pytest.mark.django_db(transaction=True)
def test_http_pages_show_only_their_business(canaries, make_user):
    sunny_owner = make_user("owner@sunny.example", role="owner", business=canaries["sunny"])
    client = Client()
    client.force_login(sunny_owner)
    leaks = 0
    requests = 0
    for url, host in [
        ("/t/sunny/", "localhost"),
        ("/", "sunny.localhost"),
        ("/t/smiles/", "localhost"),
        ("/", "smiles.localhost"),
        ("/t/sunny/admin/", "localhost"),
    ]:
        body = client.get(url, HTTP_HOST=host).content.decode()
        requests += 1
        own = "sunny" if "sunny" in url + host else "smiles"
        other = "smiles" if own == "sunny" else "sunny"
        leaks += CANARY[other] in body
    assert (requests, leaks) == (5, 0)


@pytest.mark.django_db(transaction=True)
def test_websocket_sessions_never_read_another_business(canaries):
    async def session(i: int) -> list[str]:
        slug = "sunny" if i % 2 == 0 else "smiles"
        if i % 4 < 2:  # half routed by host, half by path
            communicator = WebsocketCommunicator(
                application, "/ws/echo/", headers=[(b"host", f"{slug}.localhost".encode())]
            )
        else:
            communicator = WebsocketCommunicator(
                application, f"/t/{slug}/ws/echo/", headers=[(b"host", b"localhost")]
            )
        connected, _ = await communicator.connect()
        assert connected
        wrong = []
        for n in range(10):
            await communicator.send_json_to({"n": n})
            reply = await communicator.receive_json_from(timeout=20)
            if reply["facts"] != [CANARY[slug]]:
                wrong.append(f"{slug} got {reply['facts']}")
        await communicator.disconnect()
        return wrong

    async def run() -> list[list[str]]:
        try:
            return await asyncio.gather(*(session(i) for i in range(24)))
        finally:
            await sync_to_async(connections.close_all)()

    results = asyncio.run(run())
    leaks = [w for r in results for w in r]
    assert len(results) == 24 and leaks == []


@pytest.mark.django_db(transaction=True)
def test_unknown_tenant_websocket_is_closed_with_4404(canaries):
    async def run():
        try:
            communicator = WebsocketCommunicator(
                application, "/t/nope/ws/echo/", headers=[(b"host", b"localhost")]
            )
            await communicator.connect()
            return await communicator.receive_output()  # accepted, then closed: browsers see the code
        finally:
            await sync_to_async(connections.close_all)()

    assert asyncio.run(run()) == {"type": "websocket.close", "code": 4404}
