"""The inbox: the business's conversations as they happen, and a person stepping in (apps/chat/handoff).

Pages render the state from the database; /ws/inbox/ (apps/portal/inbox.py) pushes each change so the
open page updates itself without polling (static/xorventa/inbox.js). Every action is a POST with the
session and CSRF token, through the same access gate as the rest of the portal.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.db.models import Case, OuterRef, Subquery, When
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from apps.accounts.access import BUSINESS_ROLES_MANAGE
from apps.chat import handoff
from apps.chat.models import Channel, Conversation, Message, Role
from apps.chat.widget import widget_settings
from apps.facts.services import KnowledgeInputError
from apps.portal.pages import actor_of, portal_page, render_portal_page

INBOX_ROWS = 50


def _person_name(request: HttpRequest) -> str:
    """The name the visitor sees: the person's first name, else their email's local part."""
    user = request.user
    first = str(getattr(user, "first_name", "") or "").strip()
    return first or str(getattr(user, "email", "")).split("@")[0] or "Someone from the team"


def _rows() -> list[Conversation]:
    """Waiting visitors first, then the latest; each with its last message that is not a note."""
    last = (
        Message.objects.filter(conversation=OuterRef("pk"))
        .exclude(role=Role.NOTE)
        .order_by("-created_at", "-id")
    )
    return list(
        Conversation.objects.exclude(channel=Channel.DRAFT)
        .annotate(
            waiting=Case(When(handoff=handoff.REQUESTED, then=1), default=0),
            last_text=Subquery(last.values("text")[:1]),
        )
        .order_by("-waiting", "-last_at")[:INBOX_ROWS]
    )


@portal_page()
def inbox(request: HttpRequest) -> HttpResponse:
    rows = _rows()
    widget = widget_settings()
    hours = widget.handoff_hours or {}
    context = {
        "rows": rows,
        "waiting": sum(1 for c in rows if c.handoff == handoff.REQUESTED),
        "widget": widget,
        "days": [
            (d, n, hours.get(d, ["", ""])) for d, n in zip(handoff.DAYS, handoff.DAY_NAMES, strict=True)
        ],
    }
    return render_portal_page(request, "portal/inbox.html", context)


@portal_page()
def inbox_conversation(request: HttpRequest, pk: int) -> HttpResponse:
    conversation = get_object_or_404(Conversation.objects.exclude(channel=Channel.DRAFT), pk=pk)
    transcript = list(conversation.messages.order_by("created_at", "id"))
    return render_portal_page(
        request,
        "portal/inbox_conversation.html",
        {"conversation": conversation, "transcript": transcript, "max_reply": handoff.MAX_REPLY_CHARS},
    )


@require_POST
@portal_page()
def inbox_act(request: HttpRequest, pk: int) -> HttpResponse:
    """Take over, reply, hand back, or mark a reply as the answer."""
    conversation = get_object_or_404(Conversation.objects.exclude(channel=Channel.DRAFT), pk=pk)
    action, name = request.POST.get("action", ""), _person_name(request)
    try:
        if action == "take":
            handoff.handoff_take(conversation_id=conversation.pk, name=name)
        elif action == "reply":
            handoff.handoff_reply(
                conversation_id=conversation.pk, name=name, text=request.POST.get("text", "")
            )
        elif action == "release":
            handoff.handoff_release(conversation_id=conversation.pk, name=name)
        elif action == "mark":
            message_id = int(request.POST.get("message", "0") or 0)
            get_object_or_404(Message, pk=message_id, conversation=conversation)
            handoff.handoff_answer_mark(message_id=message_id, actor=actor_of(request))
            messages.success(request, "Saved as your answer: the assistant knows it now.")
        else:
            messages.error(request, "Unknown action.")
    except (KnowledgeInputError, ValueError) as exc:
        messages.error(request, str(exc))
    return redirect(reverse("portal:inbox_conversation", args=[conversation.pk]) + "#reply")


@require_POST
@portal_page(roles=BUSINESS_ROLES_MANAGE)
def inbox_settings(request: HttpRequest) -> HttpResponse:
    """How long a request waits for a person, and the hours people answer."""
    widget = widget_settings()
    raw: dict[str, Any] = {
        day: [request.POST.get(f"{day}_from", ""), request.POST.get(f"{day}_to", "")]
        for day in handoff.DAYS
        if request.POST.get(f"{day}_from") or request.POST.get(f"{day}_to")
    }
    try:
        minutes = int(request.POST.get("wait_minutes", widget.handoff_wait_minutes))
        if not 1 <= minutes <= 240:
            raise KnowledgeInputError("The wait is 1 to 240 minutes.")
        widget.handoff_hours = handoff.handoff_hours_clean(raw)
    except (KnowledgeInputError, ValueError) as exc:
        messages.error(
            request, str(exc) if isinstance(exc, KnowledgeInputError) else "The wait is a number of minutes."
        )
        return redirect("portal:inbox")
    widget.handoff_wait_minutes = minutes
    widget.save(update_fields=["handoff_hours", "handoff_wait_minutes", "updated_at"])
    messages.success(request, "Saved: handoff hours and wait.")
    return redirect("portal:inbox")
