"""A fortnight of visitors for the demo bakery, through the real answer path.

Each question goes through ``apps.chat.services.answer_once`` (retrieval, confidence, the answerer, gap
tickets), so the dashboard, the questions inbox and the conversation logs show what the product really
did. Only the timestamps are moved back afterwards, spreading the conversations over 14 days for the
dashboard's chart: demo data, never done to real records.

Idempotent: nothing is added once the demo has conversations.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, time, timedelta

from django.db.models import Max, Min
from django.utils import timezone
from django_tenants.utils import tenant_context

from apps.chat.models import Conversation, Message
from apps.chat.services import answer_once, conversation_open
from apps.gaps.models import GapAsk, GapTicket
from apps.tenants.models import Business

# (days ago, hour, questions of one visitor). Some are answerable from the bakery's history, some are
# not (they become questions for the owner; paraphrases merge into one ticket).
VISITS: list[tuple[int, int, list[str]]] = [
    (13, 9, ["What time do you open?", "And on Saturdays?"]),
    (12, 11, ["How much is a sourdough loaf?"]),
    (12, 16, ["Do you have gluten-free bread?"]),
    (11, 10, ["Do you deliver?", "Is delivery free?"]),
    (10, 8, ["Do you make wedding cakes?"]),
    (9, 13, ["Is there parking nearby?"]),
    (8, 9, ["hi", "What are your opening hours?"]),
    (8, 15, ["Any gluten free loaves?"]),
    (7, 12, ["Do you sell gift cards?"]),
    (6, 10, ["How far do you deliver?"]),
    (5, 14, ["Do you have vegan options?"]),
    (4, 9, ["What are your holiday hours?"]),
    (4, 17, ["Can I bring my dog inside?"]),
    (3, 11, ["sourdough price?", "Do you take credit cards?"]),
    (2, 8, ["Are you open on Monday morning?"]),
    (2, 12, ["Is your bread gluten-free?"]),
    (1, 10, ["How much notice do you need for a wedding cake?"]),
    (1, 15, ["Do you have parking for customers?"]),
    (0, 9, ["What time do you close today?"]),
    (0, 11, ["Do you have vegan cakes?", "How much is delivery?"]),
]


def demo_conversations_seed(business: Business, log: Callable[[str], object] = print) -> int:
    """Play the demo visitors' questions; returns how many conversations were added."""
    with tenant_context(business):
        if Conversation.objects.exists():
            return 0
        log("Playing a fortnight of visitors' questions...")
        today = timezone.localdate()
        for number, (days_ago, hour, questions) in enumerate(VISITS):
            conversation = conversation_open(
                visitor_id=f"demo-visitor-{number}", origin="https://sunny-bakery.example"
            )
            for text in questions:
                answer_once(conversation_id=conversation.pk, text=text)
            at = timezone.make_aware(datetime.combine(today - timedelta(days=days_ago), time(hour, 7)))
            if at > timezone.now():  # today's visits are never in the future
                at = timezone.now() - timedelta(minutes=5 * (len(VISITS) - number))
            messages = list(conversation.messages.order_by("created_at", "id"))
            for i, message in enumerate(messages):
                Message.objects.filter(pk=message.pk).update(created_at=at + timedelta(seconds=20 * i))
            GapAsk.objects.filter(conversation_id=conversation.pk).update(asked_at=at)
            Conversation.objects.filter(pk=conversation.pk).update(
                started_at=at, last_at=at + timedelta(seconds=20 * len(messages))
            )
        for ticket in GapTicket.objects.all():
            span = ticket.asks.aggregate(first=Min("asked_at"), last=Max("asked_at"))
            if span["first"]:
                GapTicket.objects.filter(pk=ticket.pk).update(
                    first_asked_at=span["first"], last_asked_at=span["last"]
                )
        return len(VISITS)
