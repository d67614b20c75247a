"""Hostile input through the real entry points (issue 16, finding 7).

Websockets go through ``xorventa.asgi.application`` with the Host and path a visitor's browser would
send; HTTP goes through the Django test client and the real tenant routing (host and /t/<slug>/).
Every refusal must be the protocol's own (`bad_request` frame, HTTP 400) with a message naming what
was wrong, the connection must stay usable, and nothing may be stored for the refused input.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.test import Client
from django_tenants.utils import tenant_context

from apps.chat.models import Message, WidgetSettings
from apps.facts.services import owner_fact_add
from apps.gaps.models import GapAsk
from tests.helpers import run_async
from xorventa.asgi import application

ORIGIN = "https://sunny-bakery.example"
DEEP = "[" * 1000 + "]" * 1000  # 1,000 levels: Python's json raises RecursionError on it


@pytest.fixture
def sunny(make_business):
    business = make_business("sunny", "Sunny Bakery")
    with tenant_context(business):
        WidgetSettings.objects.create(allowed_origins=[ORIGIN])
        owner_fact_add(topic="Sourdough", statement="A sourdough loaf is $8.50.")
    return business


async def _open(path: str, host: str = "localhost") -> tuple[WebsocketCommunicator, dict[str, Any]]:
    """Connect as a browser on the business's site would; the first frame (hello or close) is returned."""
    communicator = WebsocketCommunicator(
        application, path, headers=[(b"origin", ORIGIN.encode()), (b"host", host.encode())]
    )
    connected, code = await communicator.connect(timeout=30)
    if not connected:
        return communicator, {"type": "closed", "code": code}
    first = await communicator.receive_output(timeout=30)
    if first["type"] == "websocket.close":
        return communicator, {"type": "closed", "code": first.get("code")}
    return communicator, json.loads(first["text"])


async def _until_done(communicator: WebsocketCommunicator) -> list[dict[str, Any]]:
    frames = []
    while True:
        frame = await communicator.receive_json_from(timeout=60)
        frames.append(frame)
        if frame["type"] in ("end", "error", "contact_saved"):
            return frames


# ----------------------------------------------------------------------------------------------
# Websocket path routing


@pytest.mark.django_db(transaction=True)
def test_websocket_path_routing_reaches_the_chat_as_the_docs_promise(sunny, make_business):
    other = make_business("smiles", "Bright Smiles")

    async def scenario():
        results = {}
        for name, path, host in (
            ("path", f"/t/sunny/ws/chat/{sunny.public_key}/?visitor=visitor-path-01", "localhost"),
            ("path-upper", f"/t/Sunny/ws/chat/{sunny.public_key}/?visitor=visitor-path-02", "localhost"),
            ("host", f"/ws/chat/{sunny.public_key}/?visitor=visitor-host-01", "sunny.localhost"),
            # A path or host naming one business with another business's key: not this business's chat.
            ("crossed-path", f"/t/smiles/ws/chat/{sunny.public_key}/", "localhost"),
            ("crossed-host", f"/ws/chat/{sunny.public_key}/", "smiles.localhost"),
            ("unknown-slug", f"/t/nope/ws/chat/{sunny.public_key}/", "localhost"),
            ("no-such-route", "/t/sunny/ws/nothing-here/", "localhost"),
            ("no-such-route-public", "/ws/nothing-here/", "localhost"),
        ):
            communicator, first = await _open(path, host)
            if first["type"] == "hello":
                await communicator.send_json_to({"type": "message", "text": "How much is a sourdough loaf?"})
                first["answer"] = await _until_done(communicator)
                await communicator.disconnect()
            results[name] = first
        return results

    assert other.slug == "smiles"
    results = run_async(scenario())
    for name in ("path", "path-upper", "host"):
        assert results[name]["type"] == "hello", (name, results[name])
        assert results[name]["business"]["name"] == "Sunny Bakery"
        assert results[name]["answer"][-1]["type"] == "end", (name, results[name]["answer"])
    for name in ("crossed-path", "crossed-host", "unknown-slug", "no-such-route", "no-such-route-public"):
        assert results[name] == {"type": "closed", "code": 4404}, (name, results[name])


# ----------------------------------------------------------------------------------------------
# Malformed frames


@pytest.mark.django_db(transaction=True)
def test_malformed_frames_get_bad_request_and_the_socket_stays_usable(sunny):
    bad_frames: list[dict[str, Any]] = [
        {"text_data": "this is not JSON"},
        {"text_data": '{"type": "message", "text": '},
        {"bytes_data": b"\x00\x01\x02binary"},
        {"text_data": DEEP},
        {"text_data": json.dumps([1, 2, 3])},
        {"text_data": json.dumps("just a string")},
        {"text_data": json.dumps({"type": "message", "text": ["a", "list"]})},
        {"text_data": json.dumps({"type": "message", "text": {"nested": "object"}})},
        {"text_data": json.dumps({"type": "draft", "text": 42})},
        {"text_data": json.dumps({"type": "contact", "value": None})},
        {"text_data": json.dumps({"type": ["message"]})},
        {"text_data": json.dumps({"type": "launch-missiles"})},
        {"text_data": "x" * 300_000},
    ]

    async def scenario():
        communicator, hello = await _open(f"/ws/chat/{sunny.public_key}/?visitor=visitor-bad-001")
        assert hello["type"] == "hello", hello
        replies = []
        for frame in bad_frames:
            await communicator.send_to(**frame)
            replies.append(await communicator.receive_json_from(timeout=30))
        await communicator.send_json_to({"type": "message", "text": "How much is a sourdough loaf?"})
        answer = await _until_done(communicator)
        await communicator.disconnect()
        return replies, answer

    replies, answer = run_async(scenario())
    for frame, reply in zip(bad_frames, replies, strict=True):
        assert reply["type"] == "error" and reply["code"] == "bad_request", (frame, reply)
        assert reply["message"] and "went wrong" not in reply["message"], reply
    assert "nested" in replies[3]["message"], replies[3]
    assert "binary" in replies[2]["message"].lower(), replies[2]
    assert '"text"' in replies[6]["message"], replies[6]
    assert '"value"' in replies[9]["message"], replies[9]
    # After thirteen bad frames the same connection still answers.
    assert answer[-1]["type"] == "end" and "$8.50" in "".join(
        f["text"] for f in answer if f["type"] == "delta"
    )
    with tenant_context(sunny):
        assert list(Message.objects.filter(role="visitor").values_list("text", flat=True)) == [
            "How much is a sourdough loaf?"
        ]


# ----------------------------------------------------------------------------------------------
# Hostile text in fields


HOSTILE = {
    "NUL": "call me\x00 at noon",
    "surrogate": "\\ud800 lone",  # written raw into the frame: JSON escapes decode to a lone surrogate
    "huge": "a" * 100_000 + "@example.com",
}


def _raw_json(data: dict[str, Any]) -> str:
    """JSON with the surrogate marker written as a bare escape: a well-behaved encoder never sends a
    lone surrogate, an attacker writes the escape by hand."""
    return json.dumps(data).replace("\\\\ud800", "\\ud800")


@pytest.mark.django_db(transaction=True)
def test_nul_surrogates_and_huge_fields_are_refused_naming_the_field_and_nothing_is_stored(sunny):
    async def scenario():
        communicator, hello = await _open(f"/ws/chat/{sunny.public_key}/?visitor=visitor-bad-002")
        assert hello["type"] == "hello", hello
        # An unanswerable question opens a gap ask that a contact would attach to.
        await communicator.send_json_to({"type": "message", "text": "Do you cater weddings on boats?"})
        asked = await _until_done(communicator)
        replies = {}
        for kind, field in (("message", "text"), ("contact", "value")):
            for name, hostile in HOSTILE.items():
                await communicator.send_to(text_data=_raw_json({"type": kind, field: hostile}))
                replies[(kind, name)] = await communicator.receive_json_from(timeout=30)
        await communicator.send_json_to({"type": "contact", "value": "visitor@example.com"})
        saved = await communicator.receive_json_from(timeout=30)
        await communicator.disconnect()
        return asked, replies, saved

    asked, replies, saved = run_async(scenario())
    assert asked[-1]["type"] == "end" and asked[-1]["decision"] == "unknown", asked[-1]
    for (kind, name), reply in replies.items():
        if (kind, name) == ("message", "huge"):  # the protocol's own code for an over-long question
            assert reply["code"] == "too_long" and "1000 characters" in reply["message"], reply
            continue
        assert reply["type"] == "error" and reply["code"] == "bad_request", (kind, name, reply)
        names = ['"text"'] if kind == "message" else ['"value"', "contact"]
        assert any(field in reply["message"] for field in names), (kind, name, reply)
    assert "NUL" in replies[("contact", "NUL")]["message"]
    assert saved == {"type": "contact_saved", "questions": 1}
    with tenant_context(sunny):
        # Only the one real question was stored; the refused contacts left nothing behind (not even a
        # truncated copy of the 100,000-character one) until the valid one came.
        assert Message.objects.filter(role="visitor").count() == 1
        assert list(GapAsk.objects.values_list("contact", flat=True)) == ["visitor@example.com"]


# ----------------------------------------------------------------------------------------------
# HTTP


def _post_raw(client: Client, path: str, body: str, host: str = "localhost", **extra: Any):
    return client.post(
        path,
        data=body.encode("utf-8", "surrogatepass"),
        content_type="application/json",
        HTTP_HOST=host,
        **extra,
    )


@pytest.mark.django_db(transaction=True)
def test_http_json_nested_deeply_is_a_400_on_every_drf_endpoint(sunny, make_user):
    owner = make_user("owner@sunny.example", role="owner", business=sunny)
    admin = make_user("admin@acme.example", role="reseller_admin", reseller=sunny.reseller)
    key = sunny.public_key
    anonymous, signed_in, reseller_admin = Client(), Client(), Client()
    signed_in.force_login(owner)
    reseller_admin.force_login(admin)
    deep_object = '{"text": ' + DEEP + ', "visitor_id": "visitor-http-9"}'
    cases = [
        (anonymous, f"/api/v1/widgets/{key}/messages", "localhost", DEEP),
        (anonymous, f"/api/v1/widgets/{key}/messages", "localhost", deep_object),
        (signed_in, "/t/sunny/api/v1/drafts", "localhost", DEEP),
        (signed_in, "/api/v1/drafts", "sunny.localhost", deep_object.replace("visitor_id", "x")),
        (reseller_admin, "/api/v1/businesses", "localhost", DEEP),
    ]
    for client, path, host, body in cases:
        response = _post_raw(client, path, body, host=host)
        assert response.status_code == 400, (path, host, response.status_code, response.content[:300])
        assert "nested" in response.json()["detail"], (path, response.json())
    with tenant_context(sunny):
        assert Message.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_http_nul_surrogates_and_huge_fields_are_a_400_naming_the_field(sunny, make_user):
    admin = make_user("admin@acme.example", role="reseller_admin", reseller=sunny.reseller)
    reseller_admin = Client()
    reseller_admin.force_login(admin)
    key = sunny.public_key
    widget = f"/api/v1/widgets/{key}/messages"
    for name, hostile in HOSTILE.items():
        body = _raw_json({"text": hostile, "visitor_id": "visitor-http-1"})
        response = _post_raw(Client(), widget, body)
        assert response.status_code == 400, (name, response.status_code, response.content[:300])
        assert "text" in response.json(), (name, response.json())
        huge_email = "x" * 100_000 + "@example.com"
        business = _raw_json({"name": hostile, "slug": f"hostile-{name.lower()}", "owner_email": huge_email})
        response = _post_raw(reseller_admin, "/api/v1/businesses", business)
        assert response.status_code == 400, (name, response.status_code, response.content[:300])
        assert set(response.json()) >= {"name", "owner_email"}, (name, response.json())
    from apps.tenants.models import Business

    assert not Business.objects.filter(slug__startswith="hostile").exists()
    with tenant_context(sunny):
        assert Message.objects.count() == 0
