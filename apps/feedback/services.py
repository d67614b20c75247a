"""Recording a visitor's feedback on a reply. A thumbs-down on an answer the assistant gave from the
knowledge opens a question for the owner (or bumps the open one it matches, through the gap loop's
own merging): the owner learns which answers visitors found wrong and answers them properly."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from apps.chat.models import Decision, Message, Role
from apps.feedback.models import AnswerFeedback, Rating
from apps.gaps.services import gap_record

MAX_COMMENT_CHARS = 1000


class FeedbackInputError(ValueError):
    pass


class FeedbackNotFound(FeedbackInputError):
    """No such reply in this visitor's conversations (whatever the reason: no oracle for ids)."""


@dataclass(frozen=True)
class FeedbackRecorded:
    feedback: AnswerFeedback
    gap_ticket_id: int | None


def _question_before(message: Message) -> Message | None:
    return (
        Message.objects.filter(
            conversation_id=message.conversation_id, role=Role.VISITOR, created_at__lte=message.created_at
        )
        .exclude(pk__gt=message.pk)
        .order_by("-created_at", "-id")
        .first()
    )


@transaction.atomic
def feedback_record(*, message_id: int, visitor_id: str, rating: str, comment: str = "") -> FeedbackRecorded:
    """The visitor's rating of one reply in their own conversation (any other id: "no such answer")."""
    if rating not in Rating.values:
        raise FeedbackInputError("Rate an answer up or down.")
    comment = " ".join((comment or "").split())
    if len(comment) > MAX_COMMENT_CHARS:
        raise FeedbackInputError(f"A comment can be at most {MAX_COMMENT_CHARS} characters.")
    message = (
        Message.objects.select_for_update()
        .filter(pk=message_id, role=Role.ASSISTANT, conversation__visitor_id=visitor_id)
        .first()
    )
    if message is None:
        raise FeedbackNotFound("No such answer in your conversation.")
    feedback, _ = AnswerFeedback.objects.get_or_create(message=message, defaults={"rating": rating})
    feedback.rating = rating
    if comment or rating == Rating.UP:
        feedback.comment = comment
    # Only an answer from the knowledge: an "I don't know" already opened its question, and small talk
    # is not knowledge.
    if rating == Rating.DOWN and not feedback.gap_recorded and message.decision == Decision.ANSWER:
        question = _question_before(message)
        if question is not None:
            recorded = gap_record(
                question=question.text,
                top_similarity=float(message.top_similarity or 0.0),
                retrieval_log={
                    **(message.retrieval_log or {}),
                    "thumbs_down": {"message_id": message.pk, "answer": message.text, "comment": comment},
                },
                conversation_id=message.conversation_id,
                message_id=question.pk,
                visitor_id=visitor_id,
            )
            feedback.gap_ticket_id = recorded.ticket.pk if recorded.ticket else None
        feedback.gap_recorded = True
    feedback.save()
    return FeedbackRecorded(feedback=feedback, gap_ticket_id=feedback.gap_ticket_id)
