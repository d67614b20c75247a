"""The question's own date (issue 17, item 4): a turn about "next Monday" or "December 27" is
answered from the knowledge for that day, not today's, through the real turn (retrieval, rendering,
the built-in answerer) on a real database."""

from __future__ import annotations

from datetime import date

import pytest
from django_tenants.utils import tenant_context

from apps.chat.answering.builtin import BuiltinAnswerer
from apps.chat.services import answer_once, conversation_open, dated_from_earlier
from apps.facts.services import owner_fact_add

TODAY = date(2026, 12, 1)  # a Tuesday
NEXT_MONDAY = date(2026, 12, 7)
SATURDAY = date(2026, 12, 5)


@pytest.fixture
def garage(make_business):
    business = make_business("northgate", "Northgate Motors")
    with tenant_context(business):
        owner_fact_add(
            topic="Opening hours", aspect="hours", statement="We are open Monday to Saturday, 8 AM to 5 PM."
        )
        owner_fact_add(
            topic="Opening hours",
            aspect="hours",
            statement="The workshop is closed on 7 December for staff training.",
            valid_from=NEXT_MONDAY,
            valid_to=NEXT_MONDAY,
        )
        owner_fact_add(
            topic="Opening hours",
            aspect="hours",
            statement="On Saturday 5 December we open 8 AM to 12 PM for the winter tyre event.",
            valid_from=SATURDAY,
            valid_to=SATURDAY,
        )
        owner_fact_add(topic="MOT", statement="An MOT test costs $54.85.")
    return business


def ask(business, text: str, *, on: date = TODAY) -> str:
    with tenant_context(business):
        conversation = conversation_open(visitor_id=f"visitor-{abs(hash(text))}")
        _turn, message = answer_once(
            conversation_id=conversation.pk, text=text, on=on, answerer=BuiltinAnswerer()
        )
        return message.text


@pytest.mark.django_db
def test_a_closure_announced_for_next_monday_answers_a_question_about_next_monday(garage) -> None:
    reply = ask(garage, "Are you open next Monday?")
    assert reply.startswith("No"), reply
    assert "staff training" in reply
    # Asked about an ordinary Monday, the weekly hours answer.
    assert ask(garage, "Are you open on Monday 14 December?").startswith("Yes")


@pytest.mark.django_db
def test_a_date_outside_the_stated_days_is_a_no(garage) -> None:
    # 27 December 2026 is a Sunday; today is a Tuesday, which the weekly hours cover.
    reply = ask(garage, "are you open on December 27?")
    assert reply.startswith("No"), reply


@pytest.mark.django_db
def test_special_hours_on_the_day_asked_about(garage) -> None:
    reply = ask(garage, "What time do you close this Saturday?")
    assert "12 PM" in reply and "tyre event" in reply, reply
    # Today's answer is untouched by the special day.
    assert "5 PM" in ask(garage, "What time do you close today?")


@pytest.mark.django_db
def test_tomorrow_is_the_day_after_the_turns_date(garage) -> None:
    # Asked on Sunday 6 December, tomorrow is the closed Monday.
    assert ask(garage, "can I bring my car in tomorrow, are you open?", on=date(2026, 12, 6)).startswith("No")


@pytest.mark.django_db
def test_a_drafts_retrieval_is_reused_for_a_question_about_another_day(garage) -> None:
    from django.utils import timezone

    from apps.chat.services import question_day, turn_begin, turn_speculate

    text = "Are you open next Monday?"
    with tenant_context(garage):
        conversation = conversation_open(visitor_id="drafting-visitor")
        drafted = turn_speculate(conversation_id=conversation.pk, text=text)
        assert drafted.on == question_day(text, today=timezone.localdate()) != timezone.localdate()
        turn = turn_begin(conversation_id=conversation.pk, text=text, precomputed=drafted)
        assert turn.speculative_hit


@pytest.fixture
def bistro(make_business):
    """A closure filed under a topic of its own, among enough other topics that a question about a
    table would never retrieve it by similarity."""
    business = make_business("olive-bistro", "Olive Bistro")
    with tenant_context(business):
        owner_fact_add(
            topic="Opening hours", aspect="hours", statement="We are open Tuesday to Sunday, 5 PM to 10 PM."
        )
        owner_fact_add(topic="Tables", statement="Tables can be booked online or by phone, up to 8 guests.")
        owner_fact_add(topic="Set menu", statement="The three-course set menu is $42 per person.")
        owner_fact_add(topic="Wine list", statement="Wines by the glass start at $9.")
        owner_fact_add(topic="Private dining", statement="The private room seats 16 guests.")
        owner_fact_add(topic="Parking", statement="Free parking behind the building after 6 PM.")
        owner_fact_add(topic="Allergies", statement="Every dish can be made gluten free on request.")
        owner_fact_add(
            topic="Notices",
            statement="We are closed for refurbishment from 17 to 23 May 2027.",
            valid_from=date(2027, 5, 17),
            valid_to=date(2027, 5, 23),
        )
    return business


@pytest.mark.django_db
def test_a_closure_reaches_a_question_about_something_else_on_a_day_inside_it(bistro) -> None:
    on = date(2027, 5, 12)
    reply = ask(bistro, "have you got a table for 4 on the evening of 20 may?", on=on)
    assert reply.startswith("No") and "refurbishment" in reply, reply
    # The day after the closure, the same question is about tables, not the closure.
    after = ask(bistro, "have you got a table for 4 on the evening of 25 may?", on=on)
    assert "refurbishment" not in after and "book" in after, after


@pytest.fixture
def deli(make_business):
    business = make_business("harbourdeli", "Harbour Deli")
    with tenant_context(business):
        owner_fact_add(
            topic="Opening hours", aspect="hours", statement="Open Tuesday to Saturday, 9am to 6pm."
        )
        owner_fact_add(topic="Opening hours", aspect="hours monday", statement="Mon: closed.")
        for statement, day in [
            ("Saturday 26 December: CLOSED.", date(2026, 12, 26)),
            ("Tue 29 December: open as normal.", date(2026, 12, 29)),
        ]:
            owner_fact_add(
                topic="Opening hours", aspect="hours", statement=statement, valid_from=day, valid_to=day
            )
    return business


def ask_after(business, earlier: str, text: str, *, on: date) -> tuple[str, str]:
    with tenant_context(business):
        conversation = conversation_open(visitor_id=f"visitor-{abs(hash((earlier, text)))}")
        answer_once(conversation_id=conversation.pk, text=earlier, on=on, answerer=BuiltinAnswerer())
        turn, message = answer_once(
            conversation_id=conversation.pk, text=text, on=on, answerer=BuiltinAnswerer()
        )
        return turn.question, message.text


@pytest.mark.django_db
def test_a_day_counted_from_the_previous_questions_date(deli) -> None:
    on = date(2026, 12, 10)
    asked, reply = ask_after(deli, "are you open on boxing day?", "ok and the tuesday after that?", on=on)
    # "that" is Saturday 26 December; the Tuesday after it is the 29th: open as normal, with the
    # normal hours.
    assert asked == "ok and the tuesday after 26 December 2026?", asked
    assert reply.startswith("Yes") and "9am to 6pm" in reply, reply
    # Without a dated question before it, "that" points at nothing to count from: the text is kept.
    asked, _reply = ask_after(deli, "do you sell olives?", "and the tuesday after that?", on=on)
    assert asked == "and the tuesday after that?"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("and the Monday after that?", "and the Monday after 26 December 2026?"),
        ("what about the day before then", "what about the day before 26 December 2026"),
        ("and the friday before that one?", "and the friday before 26 December 2026?"),
        # A date of its own is counted from itself; "after" that is no preposition points at nothing.
        ("and the monday after 4 january?", "and the monday after 4 january?"),
        ("open the day after?", "open the day after?"),
    ],
)
def test_what_a_day_is_counted_from(text: str, expected: str) -> None:
    history = [("user", "are you open on boxing day?"), ("assistant", "We're closed on Boxing Day.")]
    assert dated_from_earlier(text, history, today=date(2026, 12, 10)) == expected
