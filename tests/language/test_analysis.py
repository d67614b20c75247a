"""The shared analysis: sentences, tokens, noun chunks and the question's form."""

from __future__ import annotations

import datetime as dt

import pytest

from apps.language.analysis import analyse

BASE = dt.date(2026, 12, 1)


def form(text: str):
    return analyse(text, base_date=BASE).form


@pytest.mark.parametrize(
    ("text", "kind", "wh"),
    [
        ("Are you open next Monday?", "yes_no", None),
        ("do u do mobile tyre fitting", "yes_no", None),
        ("Is there parking near the clinic?", "yes_no", None),
        ("how much is the sourdogh", "open", "how much"),
        ("How many kids fit in the party room?", "open", "how many"),
        ("When does the MOT bay close on Fridays?", "open", "when"),
        ("and on saturdays?", "fragment", None),
        ("We groom cats as well as dogs.", "statement", None),
    ],
)
def test_question_form(text: str, kind: str, wh: str | None) -> None:
    found = form(text)
    assert (found.kind, found.wh) == (kind, wh)
    assert found.is_question == (kind != "statement")


def test_negation_and_root_verb() -> None:
    negative = form("Don't you accept Amex any more?")
    assert negative.negated and negative.polarity == "negative" and negative.root == "accept"
    assert form("We no longer stock inner tubes.").negated
    assert form("Nobody answers the phone on Sundays").negated
    positive = form("Can I bring my puppy to the grooming session?")
    assert not positive.negated and positive.root == "bring"


def test_subjects_and_objects_with_lemmatised_heads() -> None:
    found = form("Do your driving instructors offer motorway lessons?")
    assert [c.lemma for c in found.subjects] == ["driving instructor"]
    assert [(c.lemma, c.head) for c in found.objects] == [("motorway lesson", "lesson")]
    assert found.subjects[0].head == "instructor"


def test_noun_chunks_mark_pronouns() -> None:
    analysis = analyse("It is on the high street. Our gift vouchers never expire.", base_date=BASE)
    assert [s.text for s in analysis.sentences] == [
        "It is on the high street.",
        "Our gift vouchers never expire.",
    ]
    pronouns = {c.text: c.is_pronoun for c in analysis.noun_chunks}
    assert pronouns["It"] is True and pronouns["Our gift vouchers"] is False
    assert {"gift voucher", "high street"} <= {c.lemma for c in analysis.noun_chunks}


def test_tokens_and_content_lemmas_of_noisy_text() -> None:
    analysis = analyse("the pizzas r cold!!! ordered 2 margheritas", base_date=BASE)
    assert "pizza" in analysis.content_lemmas and "margherita" in analysis.content_lemmas
    assert "the" not in analysis.content_lemmas and "2" not in analysis.content_lemmas
    assert analysis.tokens[1].lemma == "pizza" and analysis.tokens[1].pos == "NOUN"


def test_entities_only_when_asked_and_one_parse_shared() -> None:
    text = "Harbour Dental joined Delta Dental's network in Boston last year."
    assert analyse(text, base_date=BASE).entities == ()
    labelled = analyse(text, base_date=BASE, entities=True)
    assert "GPE" in {e.label for e in labelled.entities}
    assert analyse(text, base_date=BASE, entities=True) is labelled  # cached: every reader shares one
    assert analyse(text, base_date=BASE + dt.timedelta(days=1), entities=True).doc is labelled.doc


def test_a_table_row_and_a_price_list_line() -> None:
    row = analyse("| Full groom (large dog) | $85 | 2 hours |", base_date=BASE)
    assert [a.value for a in row.amounts] == [85]
    line = analyse("Margherita ........ $12\nPepperoni ........ $14", base_date=BASE)
    assert [str(a.value) for a in line.amounts] == ["12", "14"]


def test_a_statement_has_a_finite_verb_a_fragment_or_a_command_has_none() -> None:
    def read(text: str):
        return analyse(text, base_date=dt.date(2026, 12, 1))

    assert read("Gift vouchers never expire.").has_finite_verb
    # the small model tags "get" VB here; with a subject of its own it is a present tense
    assert read("Members with a dedicated desk or office get 24/7 keycard access.").has_finite_verb
    assert not read("Free parking behind the shop.").has_finite_verb
    assert read("Relax and unwind with us.").imperative
    assert not read("Lessons run weekly.").imperative


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("hiya are you open today?", "are you open today?"),  # a greeting the parser took for a name
        ("hi, do you sell gift cards", "do you sell gift cards"),
        ("ok what about the tuesday after that?", "what about the tuesday after that?"),
        ("oh and on sundays?", "and on sundays?"),
        ("are you open today?", "are you open today?"),
        ("Sourdough, is it vegan?", "Sourdough, is it vegan?"),  # a topic first is what is asked about
        ("No delivery on Sundays?", "No delivery on Sundays?"),
        ("hiya, do you do hampers?", "do you do hampers?"),  # no dictionary lists "hiya"
        ("Sunday are you open?", "Sunday are you open?"),  # a day first is the day asked about
    ],
)
def test_where_the_question_starts_after_a_greeting(text: str, question: str) -> None:
    assert text[analyse(text, base_date=dt.date(2026, 11, 23)).greeting_end :] == question
