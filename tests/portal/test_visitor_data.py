"""Visitor data rights end to end: consent stored with every contact left, one visitor's data exported
(portal and API) and erased (portal and API), and the retention period applied by the scheduled task.

After an erasure no row anywhere in the business's schema holds the visitor's words, contact details,
name or id: every text, varchar and JSON column of every table is searched. The question they asked
stays in the owner's list, without who asked."""

from __future__ import annotations

import json
from datetime import timedelta

from django.db import connection
from django.test import Client
from django.utils import timezone

from apps.chat.models import Channel, Conversation, Message, Role
from apps.chat.services import answer_once, conversation_open
from apps.facts.services import owner_fact_add
from apps.feedback.services import feedback_record
from apps.gaps.models import GapAsk, GapTicket
from apps.gaps.services import gap_contact_leave
from apps.tenants.tasks import run_for_business
from apps.visitors.models import VisitorContact
from apps.visitors.services import retention_set, visitor_identify
from apps.webhooks.models import Delivery
from apps.webhooks.services import endpoint_create

ALICE = "visitor-alice-0001"
BOB = "visitor-bob-00002"
ALICE_WORDS = ["How much is a sourdough loaf today please", "Is there wheelchair access at the back door"]
ALICE_SECRETS = [
    "alice.private@example.com",
    "Alice Quartermaine",
    "the price felt wrong to me, zebra",
    ALICE,
]
BOB_WORDS = ["Do you sell rye bread on weekends"]


def _seed_visitors() -> dict[str, int]:
    owner_fact_add(topic="Sourdough", aspect="price", statement="Sourdough is $8.50.")
    endpoint_create(url="http://127.0.0.1:9/hooks")  # its deliveries would carry the lead
    alice = conversation_open(visitor_id=ALICE, channel=Channel.WIDGET, origin="https://sunny.example")
    _, answered = answer_once(conversation_id=alice.pk, text=ALICE_WORDS[0])
    turn, _ = answer_once(conversation_id=alice.pk, text=ALICE_WORDS[1])
    assert turn.decision == "unknown"  # a question for the owner, with Alice's ask
    gap_contact_leave(conversation_id=alice.pk, contact=ALICE_SECRETS[0])
    visitor_identify(visitor_id=ALICE, name=ALICE_SECRETS[1], email=ALICE_SECRETS[0], consent_text="")
    feedback_record(message_id=answered.pk, visitor_id=ALICE, rating="down", comment=ALICE_SECRETS[2])
    bob = conversation_open(visitor_id=BOB, channel=Channel.WIDGET)
    answer_once(conversation_id=bob.pk, text=BOB_WORDS[0])
    return {"alice": alice.pk, "bob": bob.pk}


def _rows_holding(needle: str) -> list[tuple[str, str]]:
    """(table, column) of every row in the current schema whose text or JSON holds ``needle``."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = %s "
            "AND data_type IN ('text', 'character varying', 'jsonb', 'json')",
            [connection.schema_name],
        )
        columns = cursor.fetchall()
        hits = []
        for table, column in columns:
            cursor.execute(
                f'SELECT count(*) FROM "{table}" WHERE "{column}"::text ILIKE %s',  # noqa: S608 - catalog names
                [f"%{needle}%"],
            )
            if cursor.fetchone()[0]:
                hits.append((table, column))
    return hits


def test_consent_is_stored_with_every_contact(bakery, in_sunny):
    with in_sunny():
        ids = _seed_visitors()
        lead = VisitorContact.objects.get(visitor_id=ALICE, source="lead_form")
        assert lead.consent_text.startswith("Leave your email or phone number") and lead.consented_at
        conversation = Conversation.objects.get(pk=ids["alice"])
        assert (
            conversation.contact == ALICE_SECRETS[0] and conversation.contact_consent_at == lead.consented_at
        )
        identified = VisitorContact.objects.get(visitor_id=ALICE, source="identify")
        assert identified.name == ALICE_SECRETS[1] and "identify()" in identified.consent_text
        assert Delivery.objects.filter(event_type="lead.captured").count() == 2


def test_export_then_erase_leaves_nothing_of_the_visitor(bakery, in_sunny, make_business):
    with in_sunny():
        ids = _seed_visitors()
        for needle in ALICE_WORDS + ALICE_SECRETS + BOB_WORDS:
            assert _rows_holding(needle), needle  # the search finds them while they are there

    # Export through the v1 API with the owner's key (host routing), as JSON.
    from apps.accounts.api_keys import api_key_create

    _k, write_key = api_key_create(
        name="privacy", access="write", business=bakery.sunny, created_by=bakery.owner
    )
    _k, read_key = api_key_create(name="read", access="read", business=bakery.sunny, created_by=bakery.owner)
    api = Client(HTTP_AUTHORIZATION=f"Api-Key {write_key}", HTTP_HOST="sunny.localhost")
    response = api.get(f"/api/v1/visitors/{ALICE}")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    exported = response.json()
    texts = [m["text"] for c in exported["conversations"] for m in c["messages"]]
    assert ALICE_WORDS[0] in texts and ALICE_WORDS[1] in texts and BOB_WORDS[0] not in texts
    assert {c["contact"] for c in exported["contacts"]} == {ALICE_SECRETS[0]}
    assert all(c["consent_text"] and c["consented_at"] for c in exported["contacts"])
    rated = [m for c in exported["conversations"] for m in c["messages"] if "feedback" in m]
    assert rated[0]["feedback"] == {"rating": "down", "comment": ALICE_SECRETS[2]}
    assert [a["question"] for a in exported["questions_for_owner"]] == [ALICE_WORDS[1], ALICE_WORDS[0]]
    # The portal's download (owner's session, path routing) is the same data.
    client = bakery.client(bakery.owner)
    download = client.get(f"/t/sunny/privacy/{ALICE}/export/")
    assert download.status_code == 200 and "attachment" in download["Content-Disposition"]
    assert json.loads(download.content)["visitor_id"] == ALICE

    # A read-only key cannot erase; a key of another business does not reach this one; staff cannot
    # use the portal's page; no key at all is a 401.
    reader = Client(HTTP_AUTHORIZATION=f"Api-Key {read_key}")
    assert reader.delete(f"/t/sunny/api/v1/visitors/{ALICE}").status_code == 403
    assert Client().get(f"/t/sunny/api/v1/visitors/{ALICE}").status_code == 401
    brew = make_business("brew", "Brew Cafe")
    _k, brew_key = api_key_create(name="brew", access="write", business=brew, created_by=bakery.owner)
    assert (
        Client(HTTP_AUTHORIZATION=f"Api-Key {brew_key}")
        .delete(f"/t/sunny/api/v1/visitors/{ALICE}")
        .status_code
        == 404
    )
    assert (
        Client(HTTP_AUTHORIZATION=f"Api-Key {brew_key}").get(f"/t/brew/api/v1/visitors/{ALICE}").status_code
        == 404
    )
    assert bakery.client(bakery.staff).post(f"/t/sunny/privacy/{ALICE}/erase/").status_code == 404

    response = Client(HTTP_AUTHORIZATION=f"Api-Key {write_key}").delete(f"/t/sunny/api/v1/visitors/{ALICE}")
    assert response.status_code == 200
    assert response.json() == {"conversations": 1, "messages": 4, "contacts": 2, "asks": 2}

    with in_sunny():
        for needle in ALICE_SECRETS:
            assert _rows_holding(needle) == [], needle
        # Her questions stay for the owner (the unanswered one, and the answer she rated down), without
        # the person: only as a ticket's question, and in the question.created event that announced it.
        kept = {("gaps_gapticket", "question"), ("webhooks_delivery", "payload")}
        for words in ALICE_WORDS:
            assert set(_rows_holding(words)) == kept, words
            ticket = GapTicket.objects.get(question=words)
            assert ticket.asks.count() == 0 and ticket.retrieval_log == {}
        assert set(Delivery.objects.values_list("event_type", flat=True)) == {
            "question.created",
            "conversation.started",
        }
        assert not Conversation.objects.filter(pk=ids["alice"]).exists()
        assert not GapAsk.objects.filter(visitor_id=ALICE).exists()
        assert not Delivery.objects.filter(conversation_id=ids["alice"]).exists()
        # Bob is untouched.
        assert _rows_holding(BOB_WORDS[0]) and Message.objects.filter(conversation_id=ids["bob"]).count() == 2
    assert api.get(f"/api/v1/visitors/{ALICE}").status_code == 404
    assert api.delete(f"/api/v1/visitors/{ALICE}").status_code == 404


def test_portal_finds_and_erases_a_visitor_by_contact(bakery, in_sunny):
    with in_sunny():
        _seed_visitors()
    client = bakery.client(bakery.owner)
    page = client.get("/t/sunny/privacy/", {"q": ALICE_SECRETS[0]})
    assert page.status_code == 200 and ALICE.encode() in page.content
    response = client.post(f"/t/sunny/privacy/{ALICE}/erase/", follow=True)
    assert b"Deleted 1 conversation(s) with 4 message(s)" in response.content
    with in_sunny():
        assert _rows_holding(ALICE_SECRETS[0]) == []
    assert bakery.client(bakery.staff).get("/t/sunny/privacy/").status_code == 404


def test_retention_deletes_old_conversations_in_the_scheduled_task(
    bakery, in_sunny, django_capture_on_commit_callbacks
):
    from apps.visitors.tasks import SCHEDULE_NAME, retention_all, retention_schedule_ensure

    with in_sunny():
        ids = _seed_visitors()
        Conversation.objects.filter(pk=ids["alice"]).update(last_at=timezone.now() - timedelta(days=40))
        VisitorContact.objects.update(consented_at=timezone.now() - timedelta(days=40))
        client = bakery.client(bakery.owner)
    response = client.post("/t/sunny/privacy/", {"retention_days": "30"})
    assert response.status_code == 302
    assert client.post("/t/sunny/privacy/", {"retention_days": "0"}).status_code == 400

    from django_q.models import Schedule

    retention_schedule_ensure()
    retention_schedule_ensure()  # idempotent
    assert Schedule.objects.filter(name=SCHEDULE_NAME, func="apps.visitors.tasks.retention_all").count() == 1
    with django_capture_on_commit_callbacks() as queued:
        assert retention_all() >= 1
    assert queued  # each business's run is enqueued for the worker, in its schema
    assert run_for_business(bakery.sunny.schema_name, "apps.visitors.services.retention_apply") == 1
    with in_sunny():
        assert not Conversation.objects.filter(pk=ids["alice"]).exists()
        assert Conversation.objects.filter(pk=ids["bob"]).exists()
        assert _rows_holding(ALICE_SECRETS[0]) == [] and _rows_holding(ALICE) == []
        retention_set(days=None)
    assert run_for_business(bakery.sunny.schema_name, "apps.visitors.services.retention_apply") == 0


def test_a_visitor_known_only_from_identify_is_erased_with_their_lead_event(bakery, in_sunny):
    with in_sunny():
        endpoint_create(url="http://127.0.0.1:9/hooks")
        visitor_identify(
            visitor_id="visitor-no-chat-1", name="Nina Nochat", email="nina@example.com", consent_text=""
        )
        assert Delivery.objects.get().payload["data"]["lead"]["conversation_id"] is None
    response = bakery.client(bakery.owner).post("/t/sunny/privacy/visitor-no-chat-1/erase/")
    assert response.status_code == 302
    with in_sunny():
        for needle in ("nina@example.com", "Nina Nochat", "visitor-no-chat-1"):
            assert _rows_holding(needle) == [], needle


def test_owner_answer_follow_up_goes_with_the_conversation(bakery, in_sunny):
    """The owner's later answer posted into the visitor's conversation is part of it, and erased too."""
    from apps.gaps.services import gap_answer

    with in_sunny():
        ids = _seed_visitors()
        gap_answer(ticket=GapTicket.objects.get(question=ALICE_WORDS[1]), answer="Yes, ramp at the back.")
        assert Message.objects.filter(conversation_id=ids["alice"], role=Role.OWNER).exists()
    assert bakery.client(bakery.owner).post(f"/t/sunny/privacy/{ALICE}/erase/").status_code == 302
    with in_sunny():
        assert not Message.objects.filter(conversation_id=ids["alice"]).exists()
        assert _rows_holding(ALICE_SECRETS[0]) == []
