"""The gap loop end to end: an uncovered question opens one ticket, a similar one merges into it, the
owner answers, the same question is then answered with the owner's value, the ticket shows the facts
it created, and the visitor who left an email is notified exactly once."""

from __future__ import annotations

from django.core import mail

from apps.chat.models import Channel, Message
from apps.chat.services import answer_once, conversation_open
from apps.facts.models import Fact
from apps.facts.services import owner_fact_add
from apps.gaps.models import GapAsk, GapStatus, GapTicket
from apps.gaps.services import _notify_visitors, gap_answer, gap_contact_leave, gap_dismiss, gap_record


def ask(text: str, visitor: str = "visitor-1"):
    conversation = conversation_open(visitor_id=visitor, channel=Channel.API)
    return conversation, *answer_once(conversation_id=conversation.pk, text=text)


def seed():
    owner_fact_add(topic="Sourdough", statement="A sourdough loaf is $8.50.")
    owner_fact_add(topic="Opening hours", statement="Open Monday to Friday, 7 AM to 3 PM.")
    owner_fact_add(topic="Delivery", statement="Delivery is available within 10 miles.")


def test_the_loop(business, django_capture_on_commit_callbacks):
    seed()
    conversation, turn, message = ask("Do you have parking for customers?", "visitor-a")
    assert turn.decision == "unknown" and "passed" in message.text.lower()
    assert GapTicket.objects.count() == 1
    gap_contact_leave(conversation_id=conversation.pk, contact="alice@example.com")
    _, turn2, _ = ask("Is there customer parking near the bakery?", "visitor-b")
    ticket = GapTicket.objects.get()
    assert turn2.decision == "unknown" and ticket.asked_count == 2 and ticket.asks.count() == 2

    with django_capture_on_commit_callbacks(execute=True):
        gap_answer(
            ticket=ticket,
            answer="Yes, free customer parking is behind the shop.",
            actor="owner@sunny.example",
        )
    ticket.refresh_from_db()
    assert ticket.status == GapStatus.ANSWERED and ticket.fact_ids
    created = Fact.objects.filter(pk__in=ticket.fact_ids)
    assert created.exists() and all(f.source_kind == "owner_answer" for f in created)
    assert all(f.question == ticket.question for f in created)
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["alice@example.com"]
    assert "parking" in mail.outbox[0].body.lower()
    assert _notify_visitors(business.schema_name, ticket.pk) == 0  # once only
    assert len(mail.outbox) == 1

    # The visitor coming back sees the owner's answer in the conversation.
    assert Message.objects.filter(conversation=conversation, role="owner", text__icontains="parking").exists()
    # The same question is now answered with the owner's value.
    _, turn3, answer = ask("Do you have parking for customers?", "visitor-c")
    assert turn3.decision == "answer" and "parking" in answer.text.lower()
    assert GapTicket.objects.filter(status=GapStatus.OPEN).count() == 0


def test_dismissed_questions_stop_creating_tickets(business):
    seed()
    ask("What is your opinion on the stock market?")
    ticket = GapTicket.objects.get()
    gap_dismiss(ticket=ticket, reason="off-topic")
    ask("What's your opinion on the stock market today?")
    assert GapTicket.objects.count() == 1 and GapTicket.objects.get().status == GapStatus.DISMISSED


def test_different_questions_make_different_tickets(business):
    seed()
    for question in ("Do you have parking?", "Can I bring my dog inside?", "Do you sell birthday candles?"):
        gap_record(question=question, top_similarity=0.1)
    assert GapTicket.objects.count() == 3
    assert GapAsk.objects.count() == 3


def test_thresholds_come_from_the_business_profile_not_literals(business):
    from apps.retrieval.index import index_state
    from apps.retrieval.search import business_profile

    seed()
    state = index_state()
    state.thresholds = {"ask_owner": 0.99, "record_gap": 0.995}
    state.save()
    assert business_profile().origin == "calibrated for this business"
    _, turn, _ = ask("How much is a sourdough loaf?")
    # Even a good match is below this business's (absurd) bar: the question becomes a gap ticket, and
    # a language-model answerer would not be called (the built-in one may still quote the fact).
    assert turn.retrieval.decisions["record_gap"]
    assert turn.retrieval.log["thresholds"]["values"]["ask_owner"] == 0.99
    assert GapTicket.objects.filter(question="How much is a sourdough loaf?").exists()


def test_merging_needs_both_meaning_and_the_same_subject():
    from apps.gaps.services import same_question

    assert same_question(
        "Do you have parking for customers?", "Is there customer parking near the bakery?", 0.734
    )
    assert same_question("Do you sell birthday candles?", "Do you have candles for birthday cakes?", 0.83)
    assert not same_question("Are you open on Christmas day?", "Are you open on New Year's day?", 0.848)
    assert not same_question("Do you deliver on Sundays?", "Do you deliver to Brooklyn?", 0.588)
    assert same_question("What's your opinion on the stock market?", "Opinion on stocks?", 0.95)


def test_daily_digest_reaches_owners_once(business, make_user):
    from apps.gaps.schedules import digest_schedule_ensure
    from apps.gaps.services import gap_digest_send
    from apps.tenants.db import use_public_schema

    make_user("owner@sunny.example", role="owner", business=business)
    quiet = make_user("quiet@sunny.example", role="owner", business=business)
    quiet.digest_emails = False
    quiet.save()
    seed()
    ask("Do you have parking for customers?")
    assert gap_digest_send() == 1
    assert mail.outbox[-1].to == ["owner@sunny.example"] and "parking" in mail.outbox[-1].body.lower()
    assert gap_digest_send() == 0  # nothing new since
    use_public_schema()
    digest_schedule_ensure()
    digest_schedule_ensure()
    from django_q.models import Schedule

    assert Schedule.objects.filter(name="gaps-daily-digest", func="apps.gaps.tasks.digest_all").count() == 1
