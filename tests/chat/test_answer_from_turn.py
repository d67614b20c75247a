"""What a real turn hands the built-in answerer reaches its reply (issue 17, item 5): the earlier
questions of the conversation (a follow-up such as "and on saturdays?") and a misspelling the facts'
own words correct ("sourdogh"), through answer_once on a real database with real retrieval."""

from __future__ import annotations

from datetime import date

import pytest
from django_tenants.utils import tenant_context

from apps.chat.answering.builtin import BuiltinAnswerer
from apps.chat.services import answer_once, conversation_open
from apps.facts.services import owner_fact_add

TODAY = date(2026, 12, 1)


@pytest.fixture
def bakery(make_business):
    business = make_business("crumbs", "Crumbs Bakery")
    with tenant_context(business):
        owner_fact_add(
            topic="Opening hours", aspect="weekdays", statement="Open Monday to Friday, 7 AM to 3 PM."
        )
        owner_fact_add(
            topic="Opening hours", aspect="saturday", statement="On Saturdays we open 8 AM to 1 PM."
        )
        owner_fact_add(topic="Sourdough", statement="Sourdough is $8.50.")
        owner_fact_add(topic="Rye loaf", statement="Rye loaf: $7.")
        owner_fact_add(topic="Pumpkin loaf", statement="Pumpkin loaf is $6.")
    return business


def conversation(business, *texts: str) -> list[str]:
    replies = []
    with tenant_context(business):
        opened = conversation_open(visitor_id=f"visitor-{abs(hash(texts))}")
        for text in texts:
            _turn, message = answer_once(
                conversation_id=opened.pk, text=text, on=TODAY, answerer=BuiltinAnswerer()
            )
            replies.append(message.text)
    return replies


@pytest.mark.django_db
def test_a_follow_up_is_answered_from_the_question_before_it(bakery) -> None:
    # Before: the turn passed the stored role "visitor", which the answerers skip, so the follow-up
    # had no earlier question and was answered as unknown.
    _hours, saturday = conversation(bakery, "What are your hours?", "and on saturdays?")
    assert "1 PM" in saturday, saturday
    assert "passed your question on" not in saturday


@pytest.mark.django_db
def test_a_misspelt_item_is_answered_with_its_own_price_only(bakery) -> None:
    (reply,) = conversation(bakery, "how much is the sourdogh")
    assert "$8.50" in reply, reply
    assert "$7" not in reply and "$6" not in reply, reply


@pytest.mark.django_db
def test_a_yes_from_an_owner_reply_carries_the_rest_of_that_reply(make_business) -> None:
    """An owner's reply answers one question, but the extractor files its parts under several topics
    (the service, its price); the "yes" read from it brings the reply's price along."""
    from apps.facts.services import owner_answer_record

    shop = make_business("stitch", "Stitch & Frame Upholstery")
    with tenant_context(shop):
        owner_fact_add(topic="Opening hours", statement="Open Tuesday to Saturday, 9 AM to 5 PM.")
        owner_answer_record(
            question="Do you recover boat cushions?",
            answer="yes, marine vinyl cushions $60 per cushion, about a week",
        )
    (reply,) = conversation(shop, "Do you recover boat cushions?")
    assert reply.startswith("Yes"), reply
    assert "$60" in reply, reply


@pytest.mark.django_db
def test_the_business_name_in_a_statement_is_no_evidence_of_its_subject(make_business) -> None:
    """Statements are written in the business's name; its words matched a question about something
    else ("Do you do hot yoga?" was answered "No" from a fact about prams), while a word of the name
    is still what the business does ("Do you do yoga for kids?" is answered by its kids' classes)."""
    from apps.facts.services import owner_answer_record

    studio = make_business("lotus", "Lotus Lane Yoga")
    with tenant_context(studio):
        owner_answer_record(
            question="Can I bring my pram?", answer="we've only got the one small room so no prams, sorry!"
        )
        owner_answer_record(question="Any kids classes?", answer="yes, kids classes Saturdays 10am, $12")
    hot, kids = conversation(studio, "Do you do aerial hammock yoga?", "Do you do yoga for children?")
    assert not hot.startswith("No"), hot
    assert "pram" not in hot, hot
    assert kids.startswith("Yes"), kids


@pytest.mark.django_db
def test_an_age_in_the_question_is_held_against_a_minimum_age(make_business) -> None:
    range_ = make_business("bullseye", "Bullseye Archery Range")
    with tenant_context(range_):
        owner_fact_add(topic="Age policy", statement="Shooters must be 12 or over; under 16 with a parent.")
        owner_fact_add(topic="Lessons", statement="Beginner lessons are $35 an hour.")
    young, older = conversation(
        range_, "my son is turning 10, can he have a go?", "I'm 30, can I book a lesson?"
    )
    assert young.startswith("No") and "12" in young, young
    assert older.startswith("Yes") or "$35" in older, older
