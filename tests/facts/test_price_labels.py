"""Price lines under a heading label: the item is what the price is for, read with apps.language
(a heading's year, a label naming the thing and when, an item named like a condition)."""

from __future__ import annotations

import datetime as dt

import pytest

from apps.facts.extraction.base import ExtractionContext
from apps.facts.extraction.builtin import BuiltinExtractor


def prices(text: str) -> list[tuple[str, str | None]]:
    context = ExtractionContext(
        business_name="Juniper Yoga", source_kind="document", learned_on=dt.date(2026, 3, 2)
    )
    return [(c.topic, c.value) for c in BuiltinExtractor().extract(text, context) if c.aspect == "price"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A heading with a year is a label, not part of the item's name.
        ("Price list 2026: Drop-in class $24.", [("Drop-in class", "$24")]),
        ("Fees 2027: ten-class pass $199.", [("Ten-class pass", "$199")]),
        # A label naming the thing and when: the thing is the label without its date phrase.
        (
            "Sunset flow on Tuesday and Thursday evenings: $28 per person.",
            [("Sunset flow", "$28 per person")],
        ),
        # "minimum" naming the item, not a condition on a price.
        ("Pricing update: session minimum $120.", [("Session minimum", "$120")]),
        # A long label is about its head noun phrase, not its last words.
        (
            "Beginners' course (max 10 people), 6 weeks, 2 x 75 min per week: $180.",
            [("Beginners' course", "$180")],
        ),
        (
            "Private studio hire for up to twelve guests on weekday evenings: $90.",
            [("Private studio hire", "$90")],
        ),
    ],
)
def test_the_item_a_price_is_for(text: str, expected: list[tuple[str, str]]) -> None:
    assert prices(text) == expected


def test_an_extra_charge_written_with_a_plus_is_the_items_price() -> None:
    """ "Rush: +$35": the sign is the amount's; the line was stored without a price, its whole text as
    its aspect, so no later price for the rush service could meet it."""
    assert prices("Rush (3 working days): +$35 per order.") == [("Rush", "$35 per order")]
    context = ExtractionContext(
        business_name="Juniper Yoga", source_kind="document", learned_on=dt.date(2026, 3, 2)
    )
    (found,) = BuiltinExtractor().extract("Rush (3 working days): +$35 per order.", context)
    assert "+$35" in found.statement  # and says it is an extra charge


def test_a_condition_before_a_price_is_still_a_condition() -> None:
    # "over $50" says when delivery is free; it is not the price of anything named "over".
    found = prices("Free mat delivery on orders over $50.")
    assert ("Orders over", "$50") not in found and all(value != "$50" for _t, value in found)


def test_a_time_before_a_colon_is_not_a_label() -> None:
    assert prices("Class at 9:30: bring a mat.") == []


def owner_answer(question: str, answer: str) -> list[tuple[str, str | None]]:
    context = ExtractionContext(
        business_name="Harbour Kayaks",
        source_kind="owner_answer",
        learned_on=dt.date(2026, 3, 2),
        question=question,
    )
    return [(c.topic, c.value) for c in BuiltinExtractor().extract(answer, context)]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        # The owner names the thing short; the question named it in full.
        ("How much is a sunset paddle tour?", "sunset is $65 now", [("Sunset paddle tour", "$65")]),
        (
            "how much is the double kayak hire?",
            "double is $50 an hour",
            [("Double kayak hire", "$50 an hour")],
        ),
        # Words that only name the aspect ("price") add no subject.
        ("what's the single kayak price?", "single kayak is $35 now", [("Single kayak", "$35")]),
        # An answer naming something else keeps its own name.
        ("How much is a sunset paddle tour?", "the dawn tour is $55", [("Dawn tour", "$55")]),
    ],
)
def test_an_owner_answer_named_short_is_about_what_was_asked(
    question: str, answer: str, expected: list[tuple[str, str]]
) -> None:
    assert owner_answer(question, answer) == expected


def test_an_adverb_in_the_owners_question_names_nothing() -> None:
    """ "Do you still charge for towels?": the answer is about the towels' price, not a thing called
    "Charge" ("still" was read as the verb, and "charge" as the object)."""
    found = owner_answer("Do you still charge for towels?", "nah we dont charge for towels anymore")
    assert [topic for topic, _value in found] == ["Towels"]
    also = owner_answer("Do you also do kayak repairs?", "yes we do")
    assert [topic for topic, _value in also] == ["Kayak repairs"]


def test_a_no_with_the_new_value_stores_the_new_value_only() -> None:
    """ "Is the tour still $75?" "no its $60 now": the $60 is the answer; a denial would only repeat
    the old price ("is not still $75"). A bare "no" keeps its denial."""
    assert owner_answer("Is the sunset tour still $75?", "no its $60 now") == [("Sunset tour", "$60")]
    assert [value for _topic, value in owner_answer("Is the sunset tour still $75?", "no")] == ["no"]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        # The question's verb after the name ("changed", "go up") is no part of it, and "the price of"
        # asks about what it is the price of.
        ("Has the price of the solo walks changed?", "yes they're €25 now", "Solo walks"),
        ("Has the price of a haircut changed?", "yes its £18 now", "Haircut"),
        ("Did the price of the large pizza go up?", "yep, $19 now", "Large pizza"),
        # A verb the tagger reads inside a name is a misread compound, not the question's verb.
        ("What's your emergency call out fee?", "It's $195 after hours now", "Emergency call out fee"),
    ],
)
def test_the_questions_own_verb_names_no_subject(question: str, answer: str, expected: str) -> None:
    assert [topic for topic, _value in owner_answer(question, answer)][:1] == [expected]


def test_an_amount_in_the_subject_is_its_price_whatever_the_verb() -> None:
    assert prices("A £50 deposit secures your date, balance payable on the day.") == [("Deposit", "£50")]
