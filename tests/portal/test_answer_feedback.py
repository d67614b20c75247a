"""Answer feedback through its real entry point (POST /api/v1/widgets/<key>/feedback on the public
host): stored per reply, refused for other sites, other visitors' replies and bad input; a thumbs-down
on a knowledge answer opens a question for the owner once; the conversation page and the dashboard
show it."""

from __future__ import annotations

from django.test import Client

from apps.chat.models import Channel, Message, Role
from apps.chat.services import answer_once, conversation_open
from apps.chat.widget import widget_settings
from apps.facts.services import owner_fact_add
from apps.feedback.models import AnswerFeedback
from apps.gaps.models import GapTicket

SITE = "https://sunny.example"


def _answered(visitor: str, question: str = "How much is the sourdough?") -> Message:
    conversation = conversation_open(visitor_id=visitor, channel=Channel.WIDGET)
    _, message = answer_once(conversation_id=conversation.pk, text=question)
    return message


def _rate(key: str, origin: str | None = SITE, **body):
    headers = {"HTTP_ORIGIN": origin} if origin else {}
    return Client().post(f"/api/v1/widgets/{key}/feedback", body, content_type="application/json", **headers)


def test_feedback_is_stored_and_a_thumbs_down_opens_one_question(world, in_sunny):
    key = world.sunny.public_key
    with in_sunny():
        settings_row = widget_settings()
        settings_row.allowed_origins = [SITE]
        settings_row.save()
        owner_fact_add(topic="Sourdough", aspect="price", statement="Sourdough is $8.50.")
        message = _answered("visitor-feedback-1")
        assert message.decision == "answer"
        other = _answered("visitor-feedback-2", "What does a sourdough loaf cost?")

    preflight = Client().options(f"/api/v1/widgets/{key}/feedback", HTTP_ORIGIN=SITE)
    assert preflight.status_code == 204 and preflight["Access-Control-Allow-Origin"] == SITE
    assert (
        Client().options(f"/api/v1/widgets/{key}/feedback", HTTP_ORIGIN="https://evil.example").status_code
        == 403
    )

    response = _rate(key, visitor_id="visitor-feedback-1", message_id=message.pk, rating="up")
    assert response.status_code == 200 and response["Access-Control-Allow-Origin"] == SITE
    with in_sunny():
        assert AnswerFeedback.objects.get(message=message).rating == "up" and not GapTicket.objects.exists()

    for body in (
        {"visitor_id": "visitor-feedback-1", "message_id": message.pk, "rating": "meh"},
        {"visitor_id": "bad id!", "message_id": message.pk, "rating": "up"},
        {
            "visitor_id": "visitor-feedback-1",
            "message_id": message.pk,
            "rating": "down",
            "comment": "x" * 1001,
        },
    ):
        assert _rate(key, **body).status_code == 400, body
    # Another visitor's reply, a visitor message, an unknown id: all "not found", nothing stored.
    for message_id in (other.pk, message.pk - 1, 999_999):
        assert (
            _rate(key, visitor_id="visitor-feedback-1", message_id=message_id, rating="down").status_code
            == 404
        )
    assert (
        _rate(
            key, "https://evil.example", visitor_id="visitor-feedback-1", message_id=message.pk, rating="down"
        ).status_code
        == 403
    )
    assert (
        _rate("pk_unknown", visitor_id="visitor-feedback-1", message_id=message.pk, rating="down").status_code
        == 404
    )
    # Another business's key cannot rate this business's reply (its schema has no such message).
    assert (
        _rate(
            world.other.public_key,
            None,
            visitor_id="visitor-feedback-1",
            message_id=message.pk,
            rating="down",
        ).status_code
        == 404
    )

    assert (
        _rate(
            key, visitor_id="visitor-feedback-1", message_id=message.pk, rating="down", comment="It is $9 now"
        ).status_code
        == 200
    )
    assert (
        _rate(key, visitor_id="visitor-feedback-1", message_id=message.pk, rating="down").status_code == 200
    )
    with in_sunny():
        feedback = AnswerFeedback.objects.get(message=message)
        assert feedback.rating == "down" and feedback.comment == "It is $9 now"
        ticket = GapTicket.objects.get()
        assert (
            ticket.question == "How much is the sourdough?" and ticket.asked_count == 1
        )  # clicked twice, bumped once
        assert ticket.retrieval_log["thumbs_down"]["comment"] == "It is $9 now"
    # The other visitor's thumbs-down on the same question bumps the same open question.
    assert (
        _rate(key, None, visitor_id="visitor-feedback-2", message_id=other.pk, rating="down").status_code
        == 200
    )
    with in_sunny():
        assert GapTicket.objects.count() == 1 and GapTicket.objects.get().asked_count == 2

    client = world.client(world.owner)
    page = client.get(f"/t/sunny/conversations/{message.conversation_id}/").content.decode()
    assert "not helpful" in page and "It is $9 now" in page
    dashboard = client.get("/t/sunny/").content.decode()
    assert "0 👍 2 👎" in dashboard


def test_no_question_for_a_thumbs_down_on_an_unknown_reply(world, in_sunny):
    key = world.sunny.public_key
    with in_sunny():
        conversation = conversation_open(visitor_id="visitor-feedback-3", channel=Channel.WIDGET)
        answer_once(conversation_id=conversation.pk, text="Do you have parking?")
        reply = Message.objects.filter(conversation=conversation, role=Role.ASSISTANT).get()
        assert reply.decision == "unknown" and GapTicket.objects.get().asked_count == 1
    assert (
        _rate(key, None, visitor_id="visitor-feedback-3", message_id=reply.pk, rating="down").status_code
        == 200
    )
    with in_sunny():
        assert GapTicket.objects.get().asked_count == 1  # already a question: not counted twice
