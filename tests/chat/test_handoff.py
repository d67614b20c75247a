# ruff: noqa: F811  (the shops fixture is imported, then named by each test)
"""A person steps in (apps/chat/handoff.py): the widget's protocol with a real ASGI stack (Channels
communicator, real database, the in-memory channel layer), the owner's actions through the portal's
real POSTs, and the inbox socket's authorisation attacked."""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async as sync_to_async
from channels.testing import WebsocketCommunicator
from django.core import mail
from django.test import Client
from django.utils import timezone
from django_tenants.utils import tenant_context

from apps.chat.answering.person import asks_for_person
from apps.chat.handoff import handoff_expire, handoff_request
from apps.chat.models import Conversation, Message, WidgetSettings
from apps.facts.models import Source, SourceVersion
from apps.gaps.models import GapAsk, GapTicket
from tests.chat.test_consumer_and_api import ORIGINS, _fresh_limits, shops  # noqa: F401 - fixtures
from tests.helpers import run_async
from xorventa.asgi import application

PORTAL_ORIGIN = "http://sunny.localhost:8000"


# --- recognising a request for a person ------------------------------------------------------------

REQUESTS = [
    "talk to a human",
    "can I speak to someone",
    "I want a real person",
    "connect me to an agent please",
    "is there a person I can chat with?",
    "get me the owner",
    "speak to staff",
    "let me talk to a manager",
    "transfer me to a live agent",
    "I need to speak to a human being",
]
NOT_REQUESTS = [
    "Do you have staff parking?",
    "How many people can the room hold?",
    "Is the owner friendly?",
    "Do your staff speak French?",
    "Can I meet the owner at the shop?",
    "Do you have agents in other cities?",
    "Who is the owner of the bakery?",
    "Can I speak Spanish with the instructor?",
    "How do I contact you by phone?",
    "What are your opening hours?",
    "hi",
]


@pytest.mark.parametrize("text", REQUESTS)
def test_a_typed_request_for_a_person_is_recognised(text):
    assert asks_for_person(text)


@pytest.mark.parametrize("text", NOT_REQUESTS)
def test_a_question_about_the_businesss_people_is_not_a_request(text):
    assert not asks_for_person(text)


# --- helpers ----------------------------------------------------------------------------------------


async def _widget(key: str, visitor: str) -> tuple[WebsocketCommunicator, dict]:
    communicator = WebsocketCommunicator(
        application,
        f"/ws/chat/{key}/?visitor={visitor}",
        headers=[(b"origin", ORIGINS["sunny"].encode()), (b"host", b"localhost")],
    )
    assert (await communicator.connect(timeout=30))[0]
    hello = await communicator.receive_json_from(timeout=30)
    assert hello["type"] == "hello"
    return communicator, hello


async def _until(communicator: WebsocketCommunicator, kind: str, timeout: float = 60) -> list[dict]:
    frames = []
    while True:
        frame = await communicator.receive_json_from(timeout=timeout)
        frames.append(frame)
        if frame["type"] == kind:
            return frames


def _owner_client(make_user, business, email="owner@sunny.example", first_name="Sam") -> Client:
    user = make_user(email, role="owner", business=business)
    user.first_name = first_name
    user.save(update_fields=["first_name"])
    client = Client(HTTP_HOST="sunny.localhost")
    client.force_login(user)
    return client


def _act(client: Client, conversation_id: int, **data: str):
    response = client.post(f"/inbox/{conversation_id}/act/", data)
    assert response.status_code == 302, response.content[:300]
    return response


# --- the live handoff -------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_owner_takes_over_replies_and_hands_back_and_the_visitor_sees_it_live(shops, make_user):
    business = shops["sunny"]
    owner = _owner_client(make_user, business)

    async def scenario() -> dict:
        widget, hello = await _widget(business.public_key, "visitor-hand-01")
        conversation_id = hello["conversation"]["id"]
        await widget.send_json_to({"type": "person"})
        requested = await widget.receive_json_from(timeout=30)
        await sync_to_async(_act)(owner, conversation_id, action="take")
        joined = await widget.receive_json_from(timeout=10)
        await sync_to_async(_act)(owner, conversation_id, action="reply", text="Hi, Sam here: yes, we do!")
        reply = await widget.receive_json_from(timeout=10)
        await widget.send_json_to({"type": "message", "text": "How much is a sourdough loaf?"})
        held = await widget.receive_json_from(timeout=30)
        silent = await widget.receive_nothing(timeout=1)
        await sync_to_async(_act)(owner, conversation_id, action="release")
        left = await widget.receive_json_from(timeout=10)
        await widget.send_json_to({"type": "message", "text": "How much is a sourdough loaf?"})
        answered = await _until(widget, "end")
        await widget.disconnect()
        return {
            "id": conversation_id,
            "requested": requested,
            "joined": joined,
            "reply": reply,
            "held": held,
            "silent": silent,
            "left": left,
            "answered": answered,
        }

    seen = run_async(scenario())
    assert seen["requested"]["type"] == "handoff" and seen["requested"]["state"] == "requested"
    assert seen["joined"]["type"] == "person" and seen["joined"]["message"]["text"] == "Sam joined"
    assert seen["joined"]["handoff"] == "live" and seen["joined"]["by"] == "Sam"
    assert seen["reply"]["message"] == {
        **seen["reply"]["message"],
        "role": "owner",
        "text": "Hi, Sam here: yes, we do!",
    }
    assert seen["held"]["type"] == "held" and seen["silent"]  # the assistant said nothing
    assert seen["left"]["message"]["role"] == "note" and "left" in seen["left"]["message"]["text"]
    assert "$8.50" in "".join(f["text"] for f in seen["answered"] if f["type"] == "delta")
    # The owner was told by email, with a link to the conversation.
    assert len(mail.outbox) == 1 and "/inbox/" in mail.outbox[0].body
    assert mail.outbox[0].to == ["owner@sunny.example"]
    with tenant_context(business):
        roles = list(Message.objects.filter(conversation_id=seen["id"]).values_list("role", flat=True))
        assert roles == ["note", "owner", "visitor", "note", "visitor", "assistant"]
        # A person's reply is a message, never a fact (the shop's two owner facts are all there is).
        assert Source.objects.filter(kind="owner_answer").count() == 2
        assert not SourceVersion.objects.filter(content__contains="Sam here").exists()


@pytest.mark.django_db(transaction=True)
def test_typing_a_request_for_a_person_is_a_handoff_turn(shops, make_user):
    business = shops["sunny"]
    make_user("owner@sunny.example", role="owner", business=business)

    async def scenario() -> list[dict]:
        widget, _hello = await _widget(business.public_key, "visitor-hand-02")
        await widget.send_json_to({"type": "message", "text": "Can I talk to a human please?"})
        frames = await _until(widget, "end")
        await widget.disconnect()
        return frames

    frames = run_async(scenario())
    assert frames[-1]["decision"] == "handoff"
    assert "join" in "".join(f["text"] for f in frames if f["type"] == "delta")
    with tenant_context(business):
        assert Conversation.objects.get().handoff == "requested"
        assert not GapTicket.objects.exists()  # a request is not a question for the owner (yet)
    assert len(mail.outbox) == 1


@pytest.mark.django_db(transaction=True)
def test_nobody_takes_it_in_time_a_question_is_left_with_the_visitors_contact(shops):
    with tenant_context(shops["sunny"]):
        conversation = Conversation.objects.create(visitor_id="visitor-hand-03", contact="ann@example.com")
        Message.objects.create(
            conversation=conversation, role="visitor", text="Can you make a vegan birthday cake?"
        )
        handoff_request(conversation_id=conversation.pk)
        assert handoff_expire(conversation_id=conversation.pk) is False  # not yet: the wait is running
        Conversation.objects.filter(pk=conversation.pk).update(
            handoff_requested_at=timezone.now() - timedelta(minutes=6)
        )
        assert handoff_expire(conversation_id=conversation.pk) is True
        assert handoff_expire(conversation_id=conversation.pk) is False  # idempotent
        ask = GapAsk.objects.get()
        assert "vegan birthday cake" in ask.ticket.question and ask.contact == "ann@example.com"
        conversation.refresh_from_db()
        assert conversation.handoff == ""
        assert Message.objects.filter(conversation=conversation, role="note").count() == 1


@pytest.mark.django_db(transaction=True)
def test_outside_the_hours_the_visitor_is_told_when_and_a_question_is_left(shops):
    with tenant_context(shops["sunny"]):
        tomorrow = (timezone.localtime() + timedelta(days=1)).weekday()
        day = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")[tomorrow]
        WidgetSettings.objects.update(handoff_hours={day: ["09:00", "17:00"]})
        conversation = Conversation.objects.create(visitor_id="visitor-hand-04")
        Message.objects.create(conversation=conversation, role="visitor", text="Do you cater weddings?")
        requested = handoff_request(conversation_id=conversation.pk)
        assert requested.state == "" and requested.question_left
        assert "tomorrow at 09:00" in requested.reply
        assert "cater weddings" in GapTicket.objects.get().question
    assert mail.outbox == []  # nobody is asked to join outside the hours


@pytest.mark.django_db(transaction=True)
def test_a_reply_marked_as_the_answer_becomes_an_owner_answer_with_the_question(shops, make_user):
    business = shops["sunny"]
    owner = _owner_client(make_user, business)
    with tenant_context(business):
        conversation = Conversation.objects.create(visitor_id="visitor-hand-05")
        Message.objects.create(conversation=conversation, role="visitor", text="Do you deliver to Bath?")
    _act(owner, conversation.pk, action="reply", text="Yes, we deliver to Bath on Saturdays.")
    _act(owner, conversation.pk, action="reply", text="Anything else?")
    with tenant_context(business):
        before = set(Source.objects.filter(kind="owner_answer").values_list("pk", flat=True))
        reply = Message.objects.get(text__startswith="Yes, we deliver")
    _act(owner, conversation.pk, action="mark", message=str(reply.pk))
    _act(owner, conversation.pk, action="mark", message=str(reply.pk))  # twice: still one answer
    with tenant_context(business):
        added = Source.objects.filter(kind="owner_answer").exclude(pk__in=before)
        assert [s.title for s in added] == ["Do you deliver to Bath?"]  # only the marked reply
        assert SourceVersion.objects.get(source__in=added).content == "Yes, we deliver to Bath on Saturdays."
        reply.refresh_from_db()
        assert reply.marked_answer_at is not None


@pytest.mark.django_db(transaction=True)
def test_a_visitor_cannot_speak_as_a_person(shops):
    """The widget socket has no frame that writes a person's message: a visitor sending the server's
    own frame types gets bad_request and nothing is stored or pushed."""
    business = shops["sunny"]

    async def scenario() -> list[dict]:
        widget, _hello = await _widget(business.public_key, "visitor-hand-06")
        frames = []
        for forged in (
            {"type": "person", "message": {"role": "owner", "text": "Free cakes!"}, "handoff": "live"},
            {"type": "chat.person", "message": {"role": "owner", "text": "Free cakes!"}},
            {"type": "reply", "text": "Free cakes!"},
            {"type": "take"},
        ):
            await widget.send_json_to(forged)
            frames.append(await widget.receive_json_from(timeout=30))
        await widget.disconnect()
        return frames

    frames = run_async(scenario())
    # "person" is the visitor's own request for a person (its extra fields are ignored); the rest are
    # not part of the widget's protocol.
    assert frames[0]["type"] == "handoff"
    assert [f["code"] for f in frames[1:]] == ["bad_request"] * 3
    with tenant_context(business):
        assert not Message.objects.filter(role="owner").exists()
        assert not Message.objects.filter(text__contains="Free cakes").exists()


# --- the inbox socket -------------------------------------------------------------------------------


async def _inbox(
    headers: list[tuple[bytes, bytes]], path: str = "/ws/inbox/"
) -> tuple[WebsocketCommunicator, dict]:
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _code = await communicator.connect(timeout=30)
    assert connected
    first = await communicator.receive_output(timeout=30)
    return communicator, first


def _cookie(client: Client) -> bytes:
    return f"sessionid={client.cookies['sessionid'].value}".encode()


@pytest.mark.django_db(transaction=True)
def test_the_inbox_socket_admits_only_this_businesss_people_from_the_portal(shops, make_user):
    sunny, smiles = shops["sunny"], shops["smiles"]
    owner = _owner_client(make_user, sunny)
    stranger = make_user("owner@smiles.example", role="owner", business=smiles)
    other = Client(HTTP_HOST="smiles.localhost")
    other.force_login(stranger)

    def headers(cookie: bytes | None, host: bytes = b"sunny.localhost", origin: str = PORTAL_ORIGIN):
        found = [(b"host", host), (b"origin", origin.encode())]
        return found + ([(b"cookie", cookie)] if cookie else [])

    async def scenario() -> dict:
        results = {}
        for name, hdrs in {
            "anonymous": headers(None),
            "other business's owner": headers(_cookie(other)),
            "foreign origin": headers(_cookie(owner), origin="https://evil.example"),
            "no business": headers(_cookie(owner), host=b"localhost", origin="http://localhost:8000"),
        }.items():
            communicator, first = await _inbox(hdrs)
            results[name] = first.get("code") if first["type"] == "websocket.close" else first
            await communicator.disconnect()
        # The owner is admitted, hears a visitor's message live, and cannot act over the socket.
        inbox, hello = await _inbox(headers(_cookie(owner)))
        results["owner hello"] = hello
        widget, _hello = await _widget(sunny.public_key, "visitor-hand-07")
        await widget.send_json_to({"type": "message", "text": "hi there"})
        await _until(widget, "end")
        results["update"] = await inbox.receive_json_from(timeout=10)
        await inbox.send_json_to({"type": "reply", "conversation": 1, "text": "as the owner"})
        results["act"] = await _until(inbox, "error", timeout=10)
        # Another business's traffic never reaches this inbox.
        other_widget = WebsocketCommunicator(
            application,
            f"/ws/chat/{smiles.public_key}/?visitor=visitor-hand-08",
            headers=[(b"origin", ORIGINS["smiles"].encode()), (b"host", b"localhost")],
        )
        assert (await other_widget.connect(timeout=30))[0]
        await other_widget.receive_json_from(timeout=30)
        await other_widget.send_json_to({"type": "message", "text": "hello"})
        await _until(other_widget, "end")
        results["crossed"] = not await inbox.receive_nothing(timeout=1)
        for communicator in (inbox, widget, other_widget):
            await communicator.disconnect()
        return results

    results = run_async(scenario())
    assert results["anonymous"] == 4401
    assert results["other business's owner"] == 4403
    assert results["foreign origin"] == 4403
    assert results["no business"] == 4404
    assert '"hello"' in results["owner hello"]["text"]
    assert results["update"]["type"] == "update" and results["update"]["message"]["text"] == "hi there"
    assert results["act"][-1]["code"] == "bad_request"
    assert results["crossed"] is False
    with tenant_context(sunny):
        assert not Message.objects.filter(role="owner").exists()


@pytest.mark.django_db(transaction=True)
def test_the_inbox_pages_and_actions_are_this_businesss_only(shops, make_user):
    sunny, smiles = shops["sunny"], shops["smiles"]
    owner = _owner_client(make_user, sunny)
    with tenant_context(smiles):
        theirs = Conversation.objects.create(visitor_id="visitor-hand-09")
    with tenant_context(sunny):
        ours = Conversation.objects.create(visitor_id="visitor-hand-10")
        Message.objects.create(conversation=ours, role="visitor", text="Is the cafe open?")
    page = owner.get("/inbox/")
    assert page.status_code == 200 and b"Is the cafe open?" in page.content
    assert owner.get(f"/inbox/{ours.pk}/").status_code == 200
    # Sunny's owner on Smiles's host: the portal's gate says no such business.
    assert owner.get("/inbox/", HTTP_HOST="smiles.localhost").status_code == 404
    refused = owner.post(
        f"/inbox/{theirs.pk}/act/", {"action": "reply", "text": "x"}, HTTP_HOST="smiles.localhost"
    )
    assert refused.status_code == 404
    assert (
        Client(HTTP_HOST="sunny.localhost").post(f"/inbox/{ours.pk}/act/", {"action": "take"}).status_code
        == 302
    )
    with tenant_context(sunny):
        ours.refresh_from_db()
        assert ours.handoff == ""  # the anonymous POST was sent to sign in, nothing taken
    with tenant_context(smiles):
        assert not Message.objects.filter(conversation_id=theirs.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_a_visitors_message_to_a_person_reaches_the_open_inbox_live(shops, make_user):
    business = shops["sunny"]
    owner = _owner_client(make_user, business)

    async def scenario() -> tuple[dict, dict]:
        widget, hello = await _widget(business.public_key, "visitor-hand-11")
        conversation_id = hello["conversation"]["id"]
        await sync_to_async(_act)(owner, conversation_id, action="take")
        await widget.receive_json_from(timeout=10)  # "Sam joined"
        inbox, _first = await _inbox(
            [(b"host", b"sunny.localhost"), (b"origin", PORTAL_ORIGIN.encode()), (b"cookie", _cookie(owner))]
        )
        await widget.send_json_to({"type": "message", "text": "Chocolate please."})
        held = await widget.receive_json_from(timeout=30)
        update = await inbox.receive_json_from(timeout=10)
        for communicator in (inbox, widget):
            await communicator.disconnect()
        return held, update

    held, update = run_async(scenario())
    assert held["type"] == "held"
    assert update["message"]["role"] == "visitor" and update["message"]["text"] == "Chocolate please."
