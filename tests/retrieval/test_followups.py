"""Follow-ups that name nothing are carried by the conversation; questions with their own content are
not overridden by it (the blended pass's discount grows with the message's own best match)."""

from __future__ import annotations

import pytest

from apps.retrieval.search import RetrievalOptions, retrieve
from tests.retrieval.test_search import TODAY, kb, topics  # noqa: F401 - the fixture is used by name

FOLLOW_UPS = [
    (["Do you deliver?", "Yes, delivery is available within 10 miles."], "is it free?", "Delivery"),
    (
        ["Do you make wedding cakes?", "Wedding cakes start at $250 and need 4 weeks notice."],
        "and how much are they?",
        "Wedding cakes",
    ),
    (
        ["Is there parking?", "Free customer parking is behind the shop on Elm Street."],
        "which street was that again?",
        "Parking",
    ),
    (["Do you sell croissants?", "Butter croissants are $3.50 each."], "what do they cost?", "Croissants"),
]

NEW_QUESTIONS = [
    (
        ["Do you deliver?", "Yes, delivery is available within 10 miles."],
        "Is gluten-free bread available?",
        "Gluten-free",
    ),
    (
        ["Is there parking?", "Free customer parking is behind the shop."],
        "How much is a sourdough loaf?",
        "Sourdough",
    ),
    (
        ["Do you sell croissants?", "Butter croissants are $3.50 each."],
        "What are your opening hours?",
        "Opening hours",
    ),
]


@pytest.mark.parametrize(("history", "message", "expected"), FOLLOW_UPS)
def test_a_follow_up_is_answered_from_the_conversations_subject(kb, history, message, expected):  # noqa: F811
    result = retrieve(message, on=TODAY, history=history)
    assert topics(result)[0] == expected, result.log["kept"]


@pytest.mark.parametrize(("history", "message", "expected"), NEW_QUESTIONS)
def test_a_question_with_its_own_content_is_not_overridden(kb, history, message, expected):  # noqa: F811
    result = retrieve(message, on=TODAY, history=history)
    assert topics(result)[0] == expected, result.log["kept"]
    alone = retrieve(message, on=TODAY, options=RetrievalOptions(two_pass=False))
    assert topics(alone)[0] == expected


def test_blended_text_takes_the_start_of_each_earlier_turn():
    from apps.retrieval.search import blend

    reply = "Yes, delivery is available within 10 miles. " + "We also bake wedding cakes. " * 20
    text = blend("is it free?", ["Do you deliver?", reply], turns=2, chars=60)
    assert text == "Do you deliver? Yes, delivery is available within 10 miles. We also bake is it free?"
    assert blend("is it free?", ["a", "b", "c"], turns=2) == "b c is it free?"


def test_earlier_turns_are_embedded_once_and_reused(kb, monkeypatch):  # noqa: F811
    """The blended pass adds the earlier turns' vectors: a turn embedded when it happened (the visitor's
    message by its own pass, a reply warmed by chat after sending it) is not embedded again."""
    from apps.retrieval import embedding
    from apps.retrieval.search import remember_turn

    history = ["Do you deliver?", "Yes, delivery is available within 10 miles."]
    embedding.forget_recent()
    for turn in history:
        remember_turn(turn)
    embedded: list[str] = []
    real = embedding.Embedder.embed_queries

    def counting(self, texts, batch_size=32):
        embedded.extend(texts)
        return real(self, texts, batch_size)

    monkeypatch.setattr(embedding.Embedder, "embed_queries", counting)
    result = retrieve("is it free?", on=TODAY, history=history)
    assert topics(result)[0] == "Delivery"
    assert embedded == ["is it free?"], embedded  # one embedding in the turn: the message itself
    # Cold (another process served the earlier turns): the same answer, each turn embedded here.
    embedding.forget_recent()
    embedded.clear()
    again = retrieve("is it free?", on=TODAY, history=history)
    assert topics(again)[0] == "Delivery" and len(embedded) == 3


def test_the_text_blend_is_still_available(kb):  # noqa: F811
    history = ["Do you deliver?", "Yes, delivery is available within 10 miles."]
    result = retrieve("is it free?", on=TODAY, history=history, options=RetrievalOptions(blend="text"))
    assert topics(result)[0] == "Delivery"
    contextual = [v for v in result.log["variants"] if v["leg"] == "contextual"]
    assert contextual and contextual[0]["query"].startswith("Do you deliver?")


SUBJECTLESS = [
    (["Do you make wedding cakes?", "Yes, we make custom wedding cakes."], "how much would that run me?"),
    (["Do you make wedding cakes?", "We do, in any flavour you like."], "what's that going to cost me?"),
    (["Do you deliver?", "Yes, within 10 miles of the shop."], "how much will that add?"),
]


@pytest.mark.parametrize(("history", "message"), SUBJECTLESS)
def test_a_price_follow_up_that_names_nothing_is_about_the_conversation(kb, history, message):  # noqa: F811
    """Its own best match is some price of another subject: "how much would that run me?" names no
    subject, so the conversation's subject competes undiscounted."""
    expected = "Wedding cakes" if "cake" in history[0] else "Delivery"
    result = retrieve(message, on=TODAY, history=history)
    assert topics(result)[0] == expected, result.log["kept"]


def test_which_messages_name_no_subject():
    from apps.retrieval.search import names_no_subject

    for message in ["is it free?", "how much would that run me?", "what's the price for him?", "when does it start?",
                    "and how much are they?", "how long does it take?"]:  # fmt: skip
        assert names_no_subject(message), message
    for message in ["Do you have parking?", "how much is a haircut?", "do you deliver?", "can I bring my dog?",
                    "is the wifi free?", "what about gluten-free bread?"]:  # fmt: skip
        assert not names_no_subject(message), message
