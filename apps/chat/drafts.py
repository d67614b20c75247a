"""Owner drafts: a reply to a pasted email or direct message, from the same knowledge, re-ranked when a
cross-encoder is configured (nobody is waiting, so the expensive step is affordable here).

A draft is a turn like a visitor's (apps.chat.services.turn_run) in a conversation of its own on the
draft channel: the turn service records no question for the owner from it (the owner is the one
asking), and the portal keeps drafts out of the visitors' figures.
"""

from __future__ import annotations

from typing import Any

from apps.chat.models import Channel, Conversation
from apps.chat.services import answer_once
from apps.retrieval.search import RetrievalOptions


def draft_reply(*, text: str, actor: str = "") -> dict[str, Any]:
    # A conversation per draft: each pasted message stands alone, with no earlier turns to follow.
    conversation = Conversation.objects.create(visitor_id=f"draft:{actor}"[:64], channel=Channel.DRAFT)
    turn, message = answer_once(
        conversation_id=conversation.pk, text=text, options=RetrievalOptions(rerank=True)
    )
    assert message is not None  # a draft's conversation is new: no person is answering it
    rerank_note = str((turn.retrieval.log if turn.retrieval else {}).get("rerank", ""))
    return {
        "draft": message.text,
        "sources": message.sources,
        "decision": message.decision,
        "is_draft": True,
        "reranked": rerank_note.startswith("re-ranked"),
        "rerank_note": rerank_note,
    }
