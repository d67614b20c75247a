"""The chat websocket and HTTP API against a real server stack (Channels communicator, real DB)."""

from __future__ import annotations

import asyncio
import json

import pytest
from channels.testing import WebsocketCommunicator
from django.core.cache import caches
from django.test import Client
from django_tenants.utils import tenant_context

from apps.chat.models import Message, WidgetSettings
from apps.facts.services import owner_fact_add
from tests.helpers import fresh_rate_window, run_async
from xorventa.asgi import application

ORIGINS = {"sunny": "https://sunny-bakery.example", "smiles": "https://brightsmiles.example"}
FACTS = {
    "sunny": [
        ("Sourdough", "A sourdough loaf is $8.50."),
        ("Opening hours", "Open Monday to Friday, 7 AM to 3 PM."),
    ],
    "smiles": [
        ("Whitening", "Teeth whitening costs $299."),
        ("Opening hours", "Open Monday to Thursday, 8 AM to 5 PM."),
    ],
}


@pytest.fixture(autouse=True)
def _fresh_limits():
    caches["global"].clear()
    yield
    caches["global"].clear()


@pytest.fixture
def shops(make_business):
    made = {}
    for slug, name in (("sunny", "Sunny Bakery"), ("smiles", "Bright Smiles")):
        business = make_business(slug, name)
        with tenant_context(business):
            WidgetSettings.objects.create(allowed_origins=[ORIGINS[slug]])
            for topic, statement in FACTS[slug]:
                owner_fact_add(topic=topic, statement=statement)
        made[slug] = business
    return made


async def _session(
    key: str, origin: str, visitor: str, questions: list[str], ip: str = "203.0.113.7"
) -> list[dict]:
    async def from_address(scope, receive, send):  # each visitor has their own address
        return await application(dict(scope, client=(ip, 50000)), receive, send)

    communicator = WebsocketCommunicator(
        from_address,
        f"/ws/chat/{key}/?visitor={visitor}",
        headers=[(b"origin", origin.encode()), (b"host", b"localhost")],
    )
    connected, code = await communicator.connect(timeout=30)
    if not connected:
        return [{"type": "closed", "code": code}]
    first = await communicator.receive_output(timeout=30)
    if first["type"] == "websocket.close":  # refused after accept, with our close code
        return [{"type": "closed", "code": first.get("code")}]
    frames = [json.loads(first["text"])]
    for question in questions:
        await communicator.send_json_to({"type": "message", "text": question})
        while True:
            frame = await communicator.receive_json_from(timeout=60)
            frames.append(frame)
            if frame["type"] in ("end", "error"):
                break
    await communicator.disconnect()
    return frames


def _answer(frames: list[dict]) -> list[str]:
    answers, current = [], []
    for frame in frames:
        if frame["type"] == "delta":
            current.append(frame["text"])
        elif frame["type"] == "end":
            answers.append("".join(current))
            current = []
    return answers


@pytest.mark.django_db(transaction=True)
def test_a_streamed_answer_with_sources_over_the_websocket(shops):
    key = shops["sunny"].public_key
    frames = run_async(_session(key, ORIGINS["sunny"], "visitor-000001", ["How much is a sourdough loaf?"]))
    assert frames[0]["type"] == "hello" and frames[0]["business"]["name"] == "Sunny Bakery"
    assert sum(1 for f in frames if f["type"] == "delta") >= 2  # streamed, not one block
    end = next(f for f in frames if f["type"] == "end")
    assert "$8.50" in _answer(frames)[0]
    assert end["decision"] == "answer" and end["sources"] and end["sources"][0].startswith("per the owner")
    with tenant_context(shops["sunny"]):
        stored = Message.objects.filter(role="assistant").get()
        assert stored.retrieval_log["kept"] and stored.timings["first_token_ms"] > 0
    # The reply was embedded after it was sent, ready for the next turn's blended pass.
    from apps.retrieval.embedding import get_embedder
    from apps.retrieval.search import turn_text

    assert get_embedder().keeps(turn_text(stored.text))


@pytest.mark.django_db(transaction=True)
def test_origin_not_allowed_is_closed_and_unknown_key_is_closed(shops):
    closed = run_async(_session(shops["sunny"].public_key, "https://evil.example", "visitor-000002", []))
    assert closed == [{"type": "closed", "code": 4403}]
    unknown = run_async(_session("pk_nope", ORIGINS["sunny"], "visitor-000003", []))
    assert unknown == [{"type": "closed", "code": 4404}]


@pytest.mark.django_db(transaction=True)
def test_fifty_concurrent_sessions_across_two_businesses_never_cross(shops):
    async def all_sessions():
        tasks = []
        for i in range(50):
            slug = "sunny" if i % 2 == 0 else "smiles"
            question = "How much is a sourdough loaf?" if slug == "sunny" else "How much is teeth whitening?"
            tasks.append(
                _session(
                    shops[slug].public_key,
                    ORIGINS[slug],
                    f"visitor-{i:06d}",
                    [question, "When are you open?"],
                    ip=f"198.51.100.{i}",
                )
            )
        return await asyncio.gather(*tasks)

    results = run_async(all_sessions())
    errors = [f for frames in results for f in frames if f["type"] in ("error", "closed")]
    assert errors == []
    wrong = 0
    for i, frames in enumerate(results):
        answers = " ".join(_answer(frames))
        if i % 2 == 0:
            wrong += ("$299" in answers) or ("Thursday" in answers) or ("$8.50" not in answers)
        else:
            wrong += ("$8.50" in answers) or ("Friday" in answers) or ("$299" not in answers)
    assert (len(results), len(errors), wrong) == (50, 0, 0)


@pytest.mark.django_db(transaction=True)
def test_small_talk_is_gated_and_oversized_or_flooding_messages_are_refused(shops, settings):
    key = shops["sunny"].public_key
    frames = run_async(_session(key, ORIGINS["sunny"], "visitor-000004", ["hi!", "x" * 5000]))
    end = next(f for f in frames if f["type"] == "end")
    assert end["decision"] == "gate"
    assert any(f["type"] == "error" and f["code"] == "too_long" for f in frames)
    fresh_rate_window()
    flood = run_async(_session(key, ORIGINS["sunny"], "visitor-000005", ["When are you open?"] * 25))
    assert any(f["type"] == "error" and f["code"] == "rate_limited" for f in flood)
    with tenant_context(shops["sunny"]):  # refused messages were never stored nor answered
        assert Message.objects.filter(role="visitor").count() == 1 + 20


@pytest.mark.django_db(transaction=True)
def test_http_api_json_and_server_sent_events(shops):
    key = shops["smiles"].public_key
    client = Client()
    body = {"text": "How much is teeth whitening?", "visitor_id": "visitor-http-1"}
    plain = client.post(
        f"/api/v1/widgets/{key}/messages", body, content_type="application/json", HTTP_HOST="localhost"
    )
    assert plain.status_code == 200 and "$299" in plain.json()["text"]
    stream = client.post(
        f"/api/v1/widgets/{key}/messages",
        body,
        content_type="application/json",
        HTTP_HOST="localhost",
        HTTP_ACCEPT="text/event-stream",
    )
    assert stream.status_code == 200 and stream["Content-Type"] == "text/event-stream"
    raw = b"".join(stream).decode()  # iterating consumes the async event stream
    events = [block.split("\n") for block in raw.strip().split("\n\n")]
    names = [lines[0].removeprefix("event: ") for lines in events]
    assert names[0] == "start" and names[-1] == "end" and names.count("delta") >= 2
    text = "".join(
        json.loads(lines[1].removeprefix("data: "))["text"] for lines in events if lines[0] == "event: delta"
    )
    assert "$299" in text
    forbidden = client.post(
        f"/api/v1/widgets/{key}/messages",
        body,
        content_type="application/json",
        HTTP_HOST="localhost",
        HTTP_ORIGIN="https://evil.example",
    )
    assert forbidden.status_code == 403
    assert (
        client.post(
            "/api/v1/widgets/pk_nope/messages", body, content_type="application/json", HTTP_HOST="localhost"
        ).status_code
        == 404
    )
    schema = client.get("/api/schema/", HTTP_HOST="localhost")
    assert schema.status_code == 200 and b"/api/v1/widgets/{key}/messages" in schema.content
