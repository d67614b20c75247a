"""Chat listens to gaps: when the owner answers a question, the visitors who asked it see the answer
in their conversation: at once if their widget is connected (through the channel layer, to whichever
web process holds their websocket), else the next time they open it."""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django_tenants.utils import schema_context

logger = logging.getLogger(__name__)


def conversation_group(schema_name: str, conversation_id: int) -> str:
    """The channel-layer group of one conversation's open websockets (schema names are [a-z0-9_])."""
    return f"chat.{schema_name}.{conversation_id}"


def post_owner_answer(sender: Any, *, schema_name: str, ticket_id: int, answer: str, **kwargs: Any) -> None:
    from apps.chat.models import Conversation, Decision, Message, Role
    from apps.gaps.models import GapAsk

    with schema_context(schema_name):
        asks = GapAsk.objects.filter(ticket_id=ticket_id, conversation_id__isnull=False)
        for conversation in Conversation.objects.filter(pk__in=asks.values("conversation_id")):
            question = asks.filter(conversation_id=conversation.pk).first()
            message = Message.objects.create(
                conversation=conversation,
                role=Role.OWNER,
                decision=Decision.ANSWER,
                answerer="owner",
                text=f'Update on your question "{question.question if question else ""}": {answer}',
            )
            group = conversation_group(schema_name, conversation.pk)
            frame = {"type": "chat.owner_answer", "message_id": message.pk, "text": message.text}
            # Only once the answer is stored: a visitor never sees what a rollback takes back.
            transaction.on_commit(partial(_push, group, frame))


def _push(group: str, frame: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, frame)
    except Exception:  # the answer is stored: the visitor sees it on the next open, so log and go on
        logger.warning("could not push an owner's answer to %s", group, exc_info=True)
