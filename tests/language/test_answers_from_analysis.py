"""The built-in answerer reading questions through the shared analysis (apps.language): a fact that
bears on a yes/no question is said rather than passed to the owner; a closure of the business's hours
on the question's own date is a no; a named holiday is that day; the words of a date are not what a
question is about. Businesses and wordings of their own (not from any scenario or evaluation file)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from apps.chat.answering.builtin import BuiltinAnswerer
from apps.facts.selectors import RenderedFact, RenderedTopic, SourceRef

LEARNED = date(2026, 9, 1)


def context(topics: dict[str, list[str | tuple[str, date, date]]], on: date) -> list[RenderedTopic]:
    """Rendered topics: a fact is a statement, or (statement, valid_from, valid_to) for a dated one."""
    out = []
    ident = 0
    for n, (name, facts) in enumerate(topics.items()):
        rendered = []
        for fact in facts:
            ident += 1
            statement, start, end = (fact, None, None) if isinstance(fact, str) else fact
            state = "current"
            line = statement
            if start is not None and end is not None:
                state = "upcoming" if start > on else "temporary"
                line = f"From {start} to {end} ({state}): {statement}"
            rendered.append(
                RenderedFact(
                    id=ident,
                    statement=statement,
                    state=state,
                    learned_at=datetime.combine(LEARNED, datetime.min.time(), tzinfo=UTC),
                    valid_from=start,
                    valid_to=end,
                    sources=(SourceRef("website", "https://example.test/", "", LEARNED),),
                    line=line,
                )
            )
        out.append(RenderedTopic(topic_id=n + 1, name=name, on=on, text="", facts=tuple(rendered)))
    return out


def ask(question: str, topics: dict, on: date, business: str):
    return BuiltinAnswerer().answer(
        question=question, history=[], context=context(topics, on), business_name=business, on=on
    )


KENNEL = {
    "Boarding": ["Pawhaven Kennels does not board cats, dogs only."],
    "Night stays": ["Overnight stays are $45 per dog, including two walks."],
    "Opening hours": ["Pawhaven Kennels is open Monday to Saturday, 8am-6pm."],
    "Grooming": ["A bath and brush is $30."],
}


@pytest.mark.parametrize(
    ("question", "said"),
    [
        # The object of the question is in a fact, though no yes or no follows from it.
        ("Can I book overnight stays for two dogs?", "$45 per dog"),
    ],
)
def test_a_fact_that_bears_on_the_question_is_said(question: str, said: str) -> None:
    answer = ask(question, KENNEL, date(2026, 9, 10), "Pawhaven Kennels")
    assert answer.decision == "answer", answer.text
    assert said in answer.text
    assert not answer.text.startswith(("Yes", "No"))


def test_a_kind_of_what_the_fact_names_gets_its_yes() -> None:
    # No fact says "spaniel"; a spaniel is a dog (WordNet, and close in the embedding), so the fact
    # that prices overnight stays per dog settles it (session 26; it had been said without a yes).
    answer = ask("Can my spaniel stay overnight?", KENNEL, date(2026, 9, 10), "Pawhaven Kennels")
    assert answer.decision == "answer", answer.text
    assert answer.text.startswith("Yes"), answer.text
    assert "$45 per dog" in answer.text


@pytest.mark.parametrize(
    "question",
    [
        "Do you do hydrotherapy for dogs?",  # nothing about it
        "Do you offer flea baths?",  # "baths" is there, but not flea baths: a modifier says which one
        "Do you sell Royal Canin food?",  # a name no fact mentions
    ],
)
def test_no_fact_bears_and_the_question_goes_to_the_owner(question: str) -> None:
    answer = ask(question, KENNEL, date(2026, 9, 10), "Pawhaven Kennels")
    assert answer.decision == "unknown", answer.text


GARAGE = {
    "Opening hours": [
        "Kessler Auto Repair is open Monday to Friday, 7:30am-5pm.",
        (
            "Kessler Auto Repair is closed for the annual stocktake from October 12 to October 14.",
            date(2026, 10, 12),
            date(2026, 10, 14),
        ),
    ],
    "Tyres": ["Kessler Auto Repair fits tyres while you wait."],
    "Car wash": [
        ("The car wash bay is closed November 2-6 for repairs.", date(2026, 11, 2), date(2026, 11, 6))
    ],
}


def test_a_closure_of_the_hours_on_the_questions_own_date_is_a_no() -> None:
    answer = ask(
        "Can I bring my van in for new tyres on October 13?", GARAGE, date(2026, 10, 1), "Kessler Auto Repair"
    )
    assert answer.text.startswith("No"), answer.text
    assert "stocktake" in answer.text


def test_a_closure_of_one_service_is_not_a_no_for_another() -> None:
    answer = ask("Can you fit tyres on November 4?", GARAGE, date(2026, 10, 1), "Kessler Auto Repair")
    assert not answer.text.startswith("No"), answer.text


def test_a_holiday_by_name_meets_a_closure_written_by_name() -> None:
    deli = {
        "Opening hours": [
            "Marlow's Deli is open every day, 8am-4pm.",
            "Marlow's Deli is closed on Thanksgiving Day.",
        ]
    }
    answer = ask("will you be open thanksgiving day?", deli, date(2026, 11, 2), "Marlow's Deli")
    assert answer.text.startswith("No"), answer.text


def test_the_words_of_a_date_are_not_what_is_asked() -> None:
    # The visitor spells the holiday the British way; the fact the American way.
    laundry = {
        "Opening hours": [
            "Bubbles Laundry is open 7am-10pm.",
            ("Labor Day, Monday September 7, 2026: open 9am-3pm.", date(2026, 9, 7), date(2026, 9, 7)),
        ]
    }
    answer = ask("what time do you close on labour day", laundry, date(2026, 9, 2), "Bubbles Laundry")
    assert answer.decision == "answer", answer.text
    assert "3pm" in answer.text


def test_an_amount_in_cents_answers_a_price_question() -> None:
    arcade = {
        "Air hockey": ["Air hockey: 75¢ per game."],
        "Opening hours": ["Pinball Palace is open daily, noon-11pm."],
    }
    answer = ask("how much is air hockey?", arcade, date(2026, 9, 10), "Pinball Palace")
    assert answer.decision == "answer", answer.text
    assert "75¢" in answer.text


def test_a_calendar_date_answers_a_when_question() -> None:
    school = {"Spring term": ["Spring term begins January 11, 2027."], "Fees": ["Term fees are $310."]}
    answer = ask("When does the spring term begin?", school, date(2026, 9, 10), "Oakfield Art School")
    assert answer.decision == "answer", answer.text
    assert "January 11" in answer.text
