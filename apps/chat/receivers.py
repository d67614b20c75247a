"""Chat listens to gaps: when the owner answers a question, the visitors who asked it see the answer
in their conversation: at once if their widget is connected (apps/chat/live.py pushes it, after the
commit, to whichever web process holds their websocket), else the next time they open it."""

from __future__ import annotations

from typing import Any

from django_tenants.utils import schema_context

from apps.chat import live
from apps.chat.models import Conversation, Decision, Message, Role
from apps.gaps.models import GapAsk


def post_owner_answer(sender: Any, *, schema_name: str, ticket_id: int, answer: str, **kwargs: Any) -> None:
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
            live.message_added(conversation, message)  # the inbox and the open widget, once committed
