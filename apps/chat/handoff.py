"""A person steps in: the visitor asks for one, someone from the business takes the conversation over,
replies (the replies reach the visitor's widget at once), and hands it back to the assistant.

States of a conversation (``Conversation.handoff``):
  ""           the assistant answers (the default, and again after a hand-back or a time-out);
  "requested"  the visitor asked for a person; the owners got an email and the inbox shows it. Nobody
               took it within ``WidgetSettings.handoff_wait_minutes``: ``handoff_expire`` leaves a
               question for the owner (apps.gaps) with the visitor's contact, and the assistant
               answers again;
  "live"       a person answers; the assistant stays silent (apps.chat.services.turn_begin).
Outside the business's handoff hours nobody is asked to join: the visitor is told when a person is
next available and a question is left for the owner at once.

A person's replies are stored as messages (role owner, answerer "person") and never become facts,
unless the owner marks one as the answer (``handoff_answer_mark``): then it is an owner answer with the
visitor's question, through apps.facts.services.owner_answer_record, like any other.

Synchronous ORM code for the current business's schema; async callers use call_in_schema. Every change
is pushed to the widget and the inbox over the channel layer once it is committed (apps/chat/live.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone
from django_q.models import Schedule

from apps.accounts.models import Membership
from apps.accounts.models import Role as MemberRole
from apps.chat import live
from apps.chat.answering.person import asks_for_person
from apps.chat.models import Conversation, Message, Role, WidgetSettings
from apps.chat.widget import business_identity, widget_settings
from apps.facts.services import KnowledgeInputError, owner_answer_record
from apps.gaps.models import GapAsk
from apps.gaps.services import gap_record
from apps.tenants.db import current_schema
from apps.tenants.models import Business

REQUESTED = "requested"
LIVE = "live"
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
PERSON_REPLY = "person"  # Message.answerer of a person's live reply
MAX_REPLY_CHARS = 4000


@dataclass(frozen=True)
class HandoffRequested:
    reply: str  # what the visitor is told
    state: str  # the conversation's handoff state after the request
    question_left: bool  # a question for the owner was left (outside the hours)


# --- hours ------------------------------------------------------------------------------------------


def handoff_hours_clean(raw: dict[str, object]) -> dict[str, list[str]]:
    """The hours as stored: {"mon": ["09:00", "17:00"], ...}; a day missing or empty is closed; a bad
    time or an end before its start is refused with the day named."""
    cleaned: dict[str, list[str]] = {}
    for day in DAYS:
        value = raw.get(day)
        if not value:
            continue
        if not isinstance(value, list | tuple) or len(value) != 2:
            raise KnowledgeInputError(f"{day}: give an opening and a closing time.")
        try:
            start, end = (datetime.strptime(str(v), "%H:%M").time() for v in value)
        except ValueError as exc:
            raise KnowledgeInputError(f"{day}: times are HH:MM, like 09:00.") from exc
        if end <= start:
            raise KnowledgeInputError(f"{day}: the closing time must be after the opening time.")
        cleaned[day] = [start.strftime("%H:%M"), end.strftime("%H:%M")]
    return cleaned


def handoff_open_at(widget: WidgetSettings, at: datetime) -> bool:
    """Whether people answer at ``at`` (the server's time zone). No hours set: at any time."""
    hours = widget.handoff_hours or {}
    if not hours:
        return True
    local = timezone.localtime(at)
    span = hours.get(DAYS[local.weekday()]) or []
    return len(span) == 2 and span[0] <= local.strftime("%H:%M") < span[1]


def handoff_next_open(widget: WidgetSettings, at: datetime) -> str:
    """When a person is next available, in words ("Monday at 09:00"), or "" with no hours set."""
    hours = widget.handoff_hours or {}
    local = timezone.localtime(at)
    for ahead in range(8):
        day = local + timedelta(days=ahead)
        span = hours.get(DAYS[day.weekday()])
        if not span or (ahead == 0 and local.strftime("%H:%M") >= span[0]):
            continue
        name = "today" if ahead == 0 else "tomorrow" if ahead == 1 else DAY_NAMES[day.weekday()]
        return f"{name} at {span[0]}"
    return ""


# --- the visitor's side -----------------------------------------------------------------------------


@transaction.atomic
def handoff_request(*, conversation_id: int) -> HandoffRequested:
    """The visitor asks for a person (the widget's button, or a message the turn service read as such)."""

    conversation = Conversation.objects.select_for_update().get(pk=conversation_id)
    if conversation.handoff == LIVE:
        return HandoffRequested(f"{conversation.handoff_by} is here with you.", LIVE, False)
    if conversation.handoff == REQUESTED:
        return HandoffRequested("I've asked already: someone will join you here shortly.", REQUESTED, False)
    widget = widget_settings()
    now = timezone.now()
    name = business_identity()["name"]
    if not handoff_open_at(widget, now):
        _question_leave(conversation)
        when = handoff_next_open(widget, now)
        reply = (
            f"Nobody from {name} is available right now"
            + (f"; a person can chat from {when}." if when else ".")
            + " I've passed your message on: leave your email or phone number and they'll get back to you."
        )
        return HandoffRequested(reply, "", True)
    conversation.handoff, conversation.handoff_requested_at = REQUESTED, now
    conversation.save(update_fields=["handoff", "handoff_requested_at"])
    _owners_notify(conversation)
    _expiry_schedule(conversation, minutes=widget.handoff_wait_minutes)
    live.conversation_changed(conversation)
    minutes = widget.handoff_wait_minutes
    reply = (
        f"I've asked someone from {name} to join. If nobody is free within {minutes} minute"
        f"{'s' if minutes != 1 else ''}, I'll pass your question on to them instead."
    )
    return HandoffRequested(reply, REQUESTED, False)


@transaction.atomic
def handoff_expire(*, conversation_id: int) -> bool:
    """Nobody took the request in time: a question for the owner, and the assistant answers again.
    Idempotent (a task; run again, or after someone took it, it does nothing)."""

    conversation = Conversation.objects.select_for_update().filter(pk=conversation_id).first()
    if conversation is None or conversation.handoff != REQUESTED or conversation.handoff_requested_at is None:
        return False
    due = conversation.handoff_requested_at + timedelta(minutes=widget_settings().handoff_wait_minutes)
    if timezone.now() < due:
        return False
    conversation.handoff, conversation.handoff_requested_at = "", None
    conversation.save(update_fields=["handoff", "handoff_requested_at"])
    _question_leave(conversation)
    _note(
        conversation,
        "Nobody could join just now, so your question was passed on. Leave your email or phone number "
        "and they'll get back to you; I can keep answering meanwhile.",
    )
    return True


def _question_leave(conversation: Conversation) -> None:
    """A question for the owner: the visitor's last real question (not the request itself), with the
    contact they left, if any."""
    asked = list(conversation.messages.filter(role=Role.VISITOR).order_by("-created_at", "-id")[:10])
    question = next((m for m in asked if not asks_for_person(m.text)), None)
    text = question.text if question else "A visitor asked to talk to a person."
    recorded = gap_record(
        question=f"{text} (asked for a person)" if question else text,
        top_similarity=0.0,
        retrieval_log={"handoff": "nobody took the conversation"},
        conversation_id=conversation.pk,
        message_id=question.pk if question else None,
        visitor_id=conversation.visitor_id,
    )
    if recorded.ask is not None and conversation.contact:
        GapAsk.objects.filter(pk=recorded.ask.pk).update(contact=conversation.contact)


def _owners_notify(conversation: Conversation) -> None:
    """An email to the business's owners (sent once the request is committed)."""
    business = Business.objects.get(schema_name=current_schema())
    recipients = list(
        Membership.objects.filter(business=business, role=MemberRole.OWNER).values_list(
            "user__email", flat=True
        )
    )
    if not recipients:
        return
    last = conversation.messages.filter(role=Role.VISITOR).order_by("-created_at", "-id").first()
    url = f"{settings.SITE_URL}/t/{business.slug}/inbox/{conversation.pk}/"
    body = (
        f"A visitor on {business.name}'s website would like to talk to a person.\n\n"
        f"Their last message: {last.text if last else '(none)'}\n\nJoin the conversation: {url}\n"
    )

    def _send() -> None:
        send_mail(
            subject=f"{business.name}: a visitor is waiting for a person",
            message=body,
            from_email=None,
            recipient_list=recipients,
            fail_silently=True,
        )

    transaction.on_commit(_send)


def _expiry_schedule(conversation: Conversation, *, minutes: int) -> None:
    """A one-off task at the end of the wait, in the business's schema (handoff_expire checks again)."""
    schema = current_schema()
    Schedule.objects.create(
        name=f"handoff:{schema}:{conversation.pk}:{int(timezone.now().timestamp())}"[:100],
        func="apps.tenants.tasks.run_for_business",
        args=repr((schema, "apps.chat.handoff.handoff_expire")),
        kwargs=repr({"conversation_id": conversation.pk}),
        schedule_type=Schedule.ONCE,
        repeats=1,
        next_run=timezone.now() + timedelta(minutes=minutes, seconds=5),
    )


# --- the person's side ------------------------------------------------------------------------------


def _locked(conversation_id: int) -> Conversation:
    conversation = Conversation.objects.select_for_update().filter(pk=conversation_id).first()
    if conversation is None:
        raise KnowledgeInputError("No such conversation.")
    return conversation


def _note(conversation: Conversation, text: str) -> Message:
    message = Message.objects.create(conversation=conversation, role=Role.NOTE, text=text)
    live.message_added(conversation, message)
    return message


@transaction.atomic
def handoff_take(*, conversation_id: int, name: str) -> Conversation:
    """A person takes the conversation over: the assistant stops answering; the visitor sees
    "<name> joined"."""
    conversation = _locked(conversation_id)
    name = " ".join(name.split())[:120] or "Someone from the team"
    if conversation.handoff == LIVE and conversation.handoff_by == name:
        return conversation
    conversation.handoff, conversation.handoff_by, conversation.handoff_requested_at = LIVE, name, None
    conversation.save(update_fields=["handoff", "handoff_by", "handoff_requested_at"])
    _note(conversation, f"{name} joined")
    live.conversation_changed(conversation)
    return conversation


@transaction.atomic
def handoff_reply(*, conversation_id: int, name: str, text: str) -> Message:
    """A person's reply, stored as a message (never a fact) and pushed to the visitor's widget. Typing
    into a conversation the assistant still answers takes it over first."""
    text = (text or "").strip()
    if not text:
        raise KnowledgeInputError("Write a reply.")
    if len(text) > MAX_REPLY_CHARS:
        raise KnowledgeInputError(f"A reply can be at most {MAX_REPLY_CHARS:,} characters.")
    conversation = _locked(conversation_id)
    if conversation.handoff != LIVE:
        conversation = handoff_take(conversation_id=conversation_id, name=name)
    message = Message.objects.create(
        conversation=conversation, role=Role.OWNER, answerer=PERSON_REPLY, text=text
    )
    conversation.last_at = timezone.now()
    conversation.save(update_fields=["last_at"])
    live.message_added(conversation, message)
    return message


@transaction.atomic
def handoff_release(*, conversation_id: int, name: str) -> Conversation:
    """The person hands the conversation back: the assistant answers the next message again."""
    conversation = _locked(conversation_id)
    if conversation.handoff != LIVE:
        return conversation
    left = conversation.handoff_by or " ".join(name.split())[:120]
    conversation.handoff, conversation.handoff_by = "", ""
    conversation.save(update_fields=["handoff", "handoff_by"])
    _note(conversation, f"{left} left; the assistant is answering again")
    live.conversation_changed(conversation)
    return conversation


@transaction.atomic
def handoff_answer_mark(*, message_id: int, actor: str = "") -> Message:
    """The owner marks a person's reply as the answer to the visitor's question before it: it becomes
    an owner answer (the highest precedence) with that question. Only then does a reply become a fact."""
    message = Message.objects.select_for_update().filter(pk=message_id).first()
    if message is None or message.role != Role.OWNER or message.answerer != PERSON_REPLY:
        raise KnowledgeInputError("Only a person's reply can be marked as an answer.")
    if message.marked_answer_at is not None:
        return message
    question = (
        Message.objects.filter(
            conversation_id=message.conversation_id, role=Role.VISITOR, created_at__lte=message.created_at
        )
        .exclude(pk=message.pk)
        .order_by("-created_at", "-id")
        .first()
    )
    owner_answer_record(question=question.text if question else "", answer=message.text, actor=actor)
    message.marked_answer_at = timezone.now()
    message.save(update_fields=["marked_answer_at"])
    return message
