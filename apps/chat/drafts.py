"""Owner drafts: a reply to a pasted email or direct message, from the same knowledge, re-ranked when a
cross-encoder is configured (nobody is waiting, so the expensive step is affordable here)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from apps.chat.answering.base import get_answerer, unknown_reply
from apps.chat.answering.sanitize import sanitize
from apps.chat.models import Channel, Conversation, Decision, Message, Role
from apps.chat.services import business_identity
from apps.retrieval.search import RetrievalOptions, retrieve


def draft_reply(*, text: str, actor: str = "") -> dict[str, Any]:
    identity = business_identity()
    on = timezone.localdate()
    result = retrieve(text, on=on, options=RetrievalOptions(rerank=True))
    answerer = get_answerer()
    if result.decisions.get("ask_owner") or not result.context:
        reply, decision = unknown_reply(identity["name"]), Decision.UNKNOWN
    else:
        chunks = answerer.stream(
            question=text, history=[], context=result.context, business_name=identity["name"], on=on
        )
        reply, decision = "".join(chunks), Decision.ANSWER
    reply = sanitize(reply, allowed_hosts=set(identity["allowed_hosts"]))
    sources = [ref.label for topic in result.context for ref in topic.sources][:3]
    conversation = Conversation.objects.create(visitor_id=f"draft:{actor}"[:64], channel=Channel.DRAFT)
    Message.objects.create(conversation=conversation, role=Role.VISITOR, text=text)
    Message.objects.create(
        conversation=conversation,
        role=Role.ASSISTANT,
        text=reply,
        decision=decision,
        answerer=answerer.name,
        top_similarity=result.top_similarity,
        retrieval_log=result.log,
        sources=sources,
    )
    return {
        "draft": reply,
        "sources": sources,
        "decision": decision,
        "is_draft": True,
        "reranked": result.log.get("rerank", "").startswith("re-ranked"),
        "rerank_note": result.log.get("rerank", ""),
    }
