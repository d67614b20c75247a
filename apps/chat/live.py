"""Live updates over the channel layer: a conversation's changes reach the owner's inbox, and a person's
words reach the visitor's widget, in whichever web process holds each websocket.

Groups (schema names are [a-z0-9_], so the names are valid channel-layer group names):
  inbox.<schema>           every portal inbox socket of that business (apps/portal/inbox.py);
  chat.<schema>.<id>       the widget sockets of one conversation (apps/chat/consumers.py); a
                           person's reply and an owner's answer to a question (receivers.py) go there.
A frame is sent only once its transaction commits: nobody sees what a rollback takes back. Sending is
best effort: everything is stored, and a page that was not connected reads it on its next load.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from apps.chat.models import Channel, Conversation, Message, Role
from apps.tenants.db import current_schema

logger = logging.getLogger(__name__)


def conversation_group(schema_name: str, conversation_id: int) -> str:
    return f"chat.{schema_name}.{conversation_id}"


def inbox_group(schema_name: str) -> str:
    return f"inbox.{schema_name}"


def conversation_summary(conversation: Conversation) -> dict[str, Any]:
    """One inbox row (the same for the page and the live update)."""
    return {
        "id": conversation.pk,
        "handoff": conversation.handoff,
        "handoff_by": conversation.handoff_by,
        "last_at": conversation.last_at.isoformat() if conversation.last_at else "",
        "channel": conversation.channel,
    }


def message_frame(message: Message) -> dict[str, Any]:
    return {
        "id": message.pk,
        "role": message.role,
        "text": message.text,
        "answerer": message.answerer,
        "marked": message.marked_answer_at is not None,
    }


def conversation_changed(conversation: Conversation, message: Message | None = None) -> None:
    """Tell the business's inboxes (after commit). Owner drafts are not visitors' conversations."""
    if conversation.channel == Channel.DRAFT:
        return
    frame = {
        "type": "inbox.update",
        "conversation": conversation_summary(conversation),
        "message": message_frame(message) if message is not None else None,
    }
    _send_on_commit(inbox_group(current_schema()), frame)


def message_added(conversation: Conversation, message: Message) -> None:
    """A new message: to the inboxes, and a person's words (a reply, "<name> joined") to the widget."""
    conversation_changed(conversation, message)
    if message.role in {Role.OWNER, Role.NOTE}:
        frame = {
            "type": "chat.person",
            "message": message_frame(message),
            "handoff": conversation.handoff,
            "by": conversation.handoff_by,
        }
        _send_on_commit(conversation_group(current_schema(), conversation.pk), frame)


def _send_on_commit(group: str, frame: dict[str, Any]) -> None:
    transaction.on_commit(lambda: _send(group, frame))


def _send(group: str, frame: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, frame)
    except Exception:  # stored already: the page shows it on its next load
        logger.warning("could not push a live update to %s", group, exc_info=True)
