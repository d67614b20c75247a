"""The knowledge rules (seed 000, section 3.2), each on its own, with a scripted extractor so that a
failure here is the rules' fault, not extraction's."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from django.db import connection, transaction
from django.db.utils import DatabaseError

from apps.facts.models import (
    Disagreement,
    Evidence,
    Fact,
    FactEvent,
    FactStatus,
    SourcePart,
    SourceVersion,
    VersionOutcome,
)
from apps.facts.selectors import knowledge_text
from apps.facts.services import (
    KnowledgeInputError,
    disagreement_resolve,
    fact_restore,
    owner_answer_record,
    source_ingest,
    source_retire,
)

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


PRICE8 = {"topic": "Sourdough", "aspect": "price", "statement": "Sourdough loaf is $8.", "value": "$8"}
PRICE9 = {"topic": "Sourdough", "aspect": "price", "statement": "Sourdough is now $9 a loaf.", "value": "$9"}
PRICE850 = {"topic": "Sourdough", "aspect": "price", "statement": "Sourdough is $8.50.", "value": "$8.50"}
PRICE10 = {"topic": "Sourdough", "aspect": "price", "statement": "Sourdough loaves are $10.", "value": "$10"}
RADIUS5 = {
    "topic": "Delivery",
    "aspect": "delivery radius",
    "statement": "Delivery within 5 miles.",
    "value": "5 miles",
}
FEE5 = {"topic": "Delivery", "aspect": "delivery fee", "statement": "Delivery costs $5.", "value": "$5"}
RADIUS10 = {
    "topic": "Delivery",
    "aspect": "delivery radius",
    "statement": "Delivery within 10 miles.",
    "value": "10 miles",
}
GIFT = {
    "topic": "Gift cards",
    "aspect": "availability",
    "statement": "Gift cards are available in store.",
    "value": "yes",
}
HOURS = {
    "topic": "Opening hours",
    "aspect": "hours monday-friday",
    "statement": "Open Monday to Friday, 7 AM to 3 PM.",
    "value": "7 AM-3 PM",
}
HOLIDAY = {
    "topic": "Opening hours",
    "aspect": "hours monday-friday",
    "statement": "Open until 6pm Monday to Friday.",
    "value": "until 6pm",
    "valid_to": date(2026, 12, 24),
}

BRING_BIKE = {"topic": "Bikes", "aspect": "allowed", "statement": "Only folding bikes may come on board."}
PARK_BIKE = {"topic": "Bikes", "aspect": "allowed", "statement": "Bikes can be parked at the station."}
NO_BIKES = {"topic": "Bikes", "aspect": "allowed", "statement": "No bikes on board any more."}

FEE5_OWNER = {
    "topic": "Delivery",
    "aspect": "delivery fee",
    "statement": "Delivery is $5, but it's free on orders over $40 now.",
    "value": "$5",
}

SCRIPT = {
    "Only folding bikes may come on board.": [BRING_BIKE],
    "Bikes can be parked at the station.": [PARK_BIKE],
    "No bikes on board any more.": [NO_BIKES],
    "Sourdough loaf is $8.": [PRICE8],
    "Sourdough is now $9 a loaf.": [PRICE9],
    "Sourdough is $8.50.": [PRICE850],
    "Sourdough loaves $10.": [PRICE10],
    "Delivery within 5 miles for $5.": [RADIUS5, FEE5],
    "Our delivery area has grown to 10 miles.": [RADIUS10],
    "Gift cards available in store.": [GIFT],
    "Open Monday to Friday, 7 AM to 3 PM.": [HOURS],
    "Open until 6pm Monday to Friday until Dec 24.": [HOLIDAY],
    "its $5 but its free on orders over $40 now": [FEE5_OWNER],
}


@pytest.fixture
def ex(scripted):
    return scripted(SCRIPT)


def live(topic: str) -> list[str]:
    return list(
        Fact.objects.filter(topic__name=topic, status=FactStatus.LIVE).values_list("statement", flat=True)
    )


def web(ex, content, minutes, ref="https://sunny.example/"):
    return source_ingest(kind="website", ref=ref, content=content, read_at=at(minutes), extractor=ex)


def test_rule1_unchanged_recrawl_is_a_recorded_noop(business, ex):
    page = "Sourdough loaf is $8. Delivery within 5 miles for $5."
    first = web(ex, page, 0)
    assert len(first.added) == 3
    again = web(ex, page, 10)
    assert again.unchanged and again.version.outcome == VersionOutcome.SEEN
    assert SourceVersion.objects.filter(outcome=VersionOutcome.SEEN).count() == 1
    assert Fact.objects.count() == 3 and FactEvent.objects.filter(kind="created").count() == 3


def test_rule1_changed_page_processes_only_new_parts_and_retires_removed_only(business, ex):
    web(ex, "Sourdough loaf is $8. Gift cards available in store.", 0)
    calls = []

    class Spy:
        name = "spy"

        def extract(self, text, context):
            calls.append(text)
            return ex.extract(text, context)

    result = source_ingest(
        kind="website",
        ref="https://sunny.example/",
        content="Sourdough loaf is $8. Delivery within 5 miles for $5.",
        read_at=at(5),
        extractor=Spy(),
    )
    assert calls == ["Delivery within 5 miles for $5."]
    assert live("Gift cards") == []
    retired = Fact.objects.get(topic__name="Gift cards")
    assert retired.retired_reason.startswith("No longer on the website")
    assert [f.statement for f in result.retired] == ["Gift cards are available in store."]
    assert live("Sourdough") == ["Sourdough loaf is $8."]


def test_rule1_removed_part_never_retires_a_fact_another_source_states(business, ex):
    web(ex, "Gift cards available in store.", 0)
    source_ingest(
        kind="document",
        ref="flyer.txt",
        content="Gift cards available in store.",
        read_at=at(1),
        extractor=ex,
    )
    fact = Fact.objects.get(topic__name="Gift cards")
    assert fact.evidence.count() == 2
    web(ex, "Sourdough loaf is $8.", 2)
    fact.refresh_from_db()
    assert fact.status == FactStatus.LIVE
    assert fact.evidence.filter(withdrawn_at__isnull=True).count() == 1


def test_rule2_newer_replaces_older_and_detail_replaces_nothing(business, ex):
    web(ex, "Delivery within 5 miles for $5.", 0)
    result = source_ingest(
        kind="document",
        ref="update.txt",
        content="Our delivery area has grown to 10 miles.",
        read_at=at(1),
        extractor=ex,
    )
    assert sorted(live("Delivery")) == ["Delivery costs $5.", "Delivery within 10 miles."]
    old = Fact.objects.get(statement="Delivery within 5 miles.")
    new = Fact.objects.get(statement="Delivery within 10 miles.")
    assert old.retired_by == new and list(new.replaces.all()) == [old]
    assert "Replaced by newer information" in old.retired_reason
    assert [f.statement for f in result.retired] == ["Delivery within 5 miles."]


def test_rule3_owner_answer_beats_documents_and_records_a_disagreement(business, ex):
    web(ex, "Sourdough loaf is $8.", 0)
    source_ingest(
        kind="document", ref="price.txt", content="Sourdough is now $9 a loaf.", read_at=at(1), extractor=ex
    )
    owner_answer_record(
        question="How much is the sourdough?", answer="Sourdough is $8.50.", read_at=at(2), extractor=ex
    )
    flyer = source_ingest(
        kind="document", ref="flyer.txt", content="Sourdough loaves $10.", read_at=at(3), extractor=ex
    )
    assert live("Sourdough") == ["Sourdough is $8.50."]
    assert len(flyer.disagreements) == 1 and flyer.added == []
    disagreement = Disagreement.objects.get()
    assert (
        disagreement.statement == "Sourdough loaves are $10."
        and disagreement.fact.statement == "Sourdough is $8.50."
    )
    # Not discarded, and re-reading the same flyer does not duplicate it.
    source_ingest(
        kind="document", ref="flyer.txt", content="Sourdough loaves $10.", read_at=at(4), extractor=ex
    )
    assert Disagreement.objects.count() == 1


def test_rule3_newer_owner_answer_replaces_older_owner_answer(business, ex):
    owner_answer_record(question="Price?", answer="Sourdough is $8.50.", read_at=at(0), extractor=ex)
    owner_answer_record(question="Price?", answer="Sourdough is now $9 a loaf.", read_at=at(1), extractor=ex)
    assert live("Sourdough") == ["Sourdough is now $9 a loaf."]


def test_rule3_owner_answer_restating_a_value_in_its_own_words_replaces_the_page(business, ex):
    # The same fee, and more besides: confirming the page's fact would drop what else the owner said.
    web(ex, "Delivery within 5 miles for $5.", 0)
    owner_answer_record(
        question="Is delivery free?",
        answer="its $5 but its free on orders over $40 now",
        read_at=at(1),
        extractor=ex,
    )
    assert FEE5_OWNER["statement"] in live("Delivery") and FEE5["statement"] not in live("Delivery")
    page = Fact.objects.get(statement=FEE5["statement"])
    assert page.status == FactStatus.RETIRED and "owner" in page.retired_reason.lower()
    # A re-crawl of the unchanged page changes nothing; a page saying the same again only confirms.
    assert web(ex, "Delivery within 5 miles for $5.", 2).added == []
    assert FEE5_OWNER["statement"] in live("Delivery")


def test_rule2_yes_no_answers_to_different_questions_are_different_subjects(business, ex):
    # "allowed" alone does not name what is allowed: the question does.
    owner_answer_record(
        question="Can I bring my bike on the train?",
        answer="Only folding bikes may come on board.",
        read_at=at(0),
        extractor=ex,
    )
    owner_answer_record(
        question="Can I park my bike at the station?",
        answer="Bikes can be parked at the station.",
        read_at=at(1),
        extractor=ex,
    )
    assert sorted(live("Bikes")) == [
        "Bikes can be parked at the station.",
        "Only folding bikes may come on board.",
    ]
    # The same question asked again in other words is the same subject: the newer answer wins.
    owner_answer_record(
        question="Are bikes allowed on the train now?",
        answer="No bikes on board any more.",
        read_at=at(2),
        extractor=ex,
    )
    assert sorted(live("Bikes")) == ["Bikes can be parked at the station.", "No bikes on board any more."]


def test_rule3_accepting_a_disagreement_applies_the_source_value(business, ex):
    owner_answer_record(question="Price?", answer="Sourdough is $8.50.", read_at=at(0), extractor=ex)
    source_ingest(
        kind="document", ref="flyer.txt", content="Sourdough loaves $10.", read_at=at(1), extractor=ex
    )
    disagreement_resolve(disagreement=Disagreement.objects.get(), accept=True, actor="owner@sunny.example")
    assert live("Sourdough") == ["Sourdough loaves are $10."]
    assert Disagreement.objects.get().status == "accepted"


def test_rule4_temporary_never_replaces_permanent_which_applies_again(business, ex):
    web(ex, "Open Monday to Friday, 7 AM to 3 PM.", 0)
    owner_answer_record(
        question="Holiday hours?",
        answer="Open until 6pm Monday to Friday until Dec 24.",
        read_at=at(1),
        extractor=ex,
    )
    assert sorted(live("Opening hours")) == [
        "Open Monday to Friday, 7 AM to 3 PM.",
        "Open until 6pm Monday to Friday.",
    ]
    during = knowledge_text(on=date(2026, 12, 1))
    assert "Until 24 December 2026 (temporary): Open until 6pm" in during
    assert "Usually, and again from 25 December 2026: Open Monday to Friday, 7 AM to 3 PM." in during
    after = knowledge_text(on=date(2026, 12, 27))
    assert "6pm" not in after and "- Open Monday to Friday, 7 AM to 3 PM." in after


def test_rule4_temporary_fact_may_start_in_the_future(business, ex):
    winter = {
        "topic": "Opening hours",
        "aspect": "hours monday-friday",
        "statement": "Open 8 AM to 2 PM.",
        "valid_from": date(2026, 12, 1),
        "valid_to": date(2027, 2, 28),
    }
    owner_answer_record(
        question="Winter hours?",
        answer="Winter hours.",
        read_at=at(0),
        extractor=type(ex)({"Winter hours.": [winter]}),
    )
    web(ex, "Open Monday to Friday, 7 AM to 3 PM.", 1)
    before = knowledge_text(on=date(2026, 11, 15))
    assert "From 1 December 2026 to 28 February 2027 (upcoming): Open 8 AM to 2 PM." in before
    assert "- Open Monday to Friday, 7 AM to 3 PM." in before
    during = knowledge_text(on=date(2027, 1, 10))
    assert "(temporary): Open 8 AM to 2 PM." in during and "Usually, and again from 1 March 2027" in during


def test_rule5_retiring_a_source_retires_only_facts_only_it_states(business, ex):
    web(ex, "Gift cards available in store. Sourdough loaf is $8.", 0)
    source_ingest(
        kind="document",
        ref="flyer.txt",
        content="Gift cards available in store.",
        read_at=at(1),
        extractor=ex,
    )
    doc = source_ingest(
        kind="document",
        ref="menu.txt",
        content="Delivery within 5 miles for $5.",
        read_at=at(2),
        extractor=ex,
    )
    source_retire(source=doc.version.source, reason="Old menu")
    source_retire(source=Fact.objects.get(topic__name="Gift cards").origin.source)
    assert live("Delivery") == []
    assert live("Gift cards") == ["Gift cards are available in store."]  # the flyer still states it
    assert live("Sourdough") == []  # only the website stated it


def test_rule6_restore_a_wrong_replacement(business, ex):
    web(ex, "Sourdough loaf is $8.", 0)
    source_ingest(
        kind="document", ref="price.txt", content="Sourdough is now $9 a loaf.", read_at=at(1), extractor=ex
    )
    old = Fact.objects.get(statement="Sourdough loaf is $8.")
    fact_restore(fact=old, reason="The price sheet was a draft", actor="owner@sunny.example")
    assert live("Sourdough") == ["Sourdough loaf is $8."]
    kinds = list(FactEvent.objects.filter(fact=old).values_list("kind", flat=True))
    assert kinds == ["created", "retired", "restored"]


def test_rule6_fact_history_cannot_be_edited_deleted_or_truncated_in_sql(business, ex):
    web(ex, "Sourdough loaf is $8.", 0)
    fact = Fact.objects.get()
    for sql, params in [
        ("UPDATE facts_fact SET statement = 'Sourdough is free.' WHERE id = %s", [fact.pk]),
        ("UPDATE facts_fact SET valid_to = '2020-01-01' WHERE id = %s", [fact.pk]),
        ("UPDATE facts_fact SET stand_in = true WHERE id = %s", [fact.pk]),  # superseded, never edited
        ("DELETE FROM facts_fact WHERE id = %s", [fact.pk]),
        ("UPDATE facts_factevent SET reason = 'x'", []),
        ("DELETE FROM facts_factevent", []),
        ("DELETE FROM facts_evidence", []),
        ("TRUNCATE facts_factevent CASCADE", []),
        ("TRUNCATE facts_fact CASCADE", []),
        ("TRUNCATE facts_source CASCADE", []),
    ]:
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, params)
    fact.refresh_from_db()
    assert fact.statement == "Sourdough loaf is $8." and FactEvent.objects.filter(fact=fact).count() == 1
    # Retiring (status and reason) is allowed.
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE facts_fact SET status = 'retired', retired_reason = 'test' WHERE id = %s", [fact.pk]
        )


def test_several_sources_keep_all_their_evidence(business, ex):
    web(ex, "Sourdough loaf is $8.", 0)
    source_ingest(
        kind="document", ref="menu.txt", content="Sourdough loaf is $8.", read_at=at(1), extractor=ex
    )
    fact = Fact.objects.get()
    assert sorted(Evidence.objects.filter(fact=fact).values_list("kind", flat=True)) == [
        "document",
        "website",
    ]
    assert list(FactEvent.objects.filter(fact=fact).values_list("kind", flat=True)) == [
        "created",
        "confirmed",
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "empty"),
        ("   \n ", "empty"),
        ("\x00\x01\x02binary" * 10, "does not look like text"),
        ("x" * 1_000_001, "limit"),
    ],
)
def test_bad_input_gets_a_clear_error_and_writes_nothing(business, ex, content, message):
    with pytest.raises(KnowledgeInputError, match=message):
        web(ex, content, 0)
    assert SourceVersion.objects.count() == 0 and Fact.objects.count() == 0


def test_a_failing_extractor_rolls_back_the_reading_but_keeps_the_event(business, ex):
    """The event is stored before it is read (decision 0020): a crash while reading writes no fact or
    part, and the event waits as "received" with its text for the worker to read again."""

    class Exploding:
        name = "exploding"

        def extract(self, text, context):
            if "boom" in text:
                raise RuntimeError("extractor crashed")
            return ex.extract(text, context)

    with pytest.raises(RuntimeError):
        source_ingest(
            kind="website",
            ref="https://sunny.example/",
            content="Sourdough loaf is $8. boom.",
            read_at=at(0),
            extractor=Exploding(),
        )
    assert Fact.objects.count() == 0 and SourcePart.objects.count() == 0
    kept = SourceVersion.objects.get()
    assert kept.outcome == VersionOutcome.RECEIVED and kept.content == "Sourdough loaf is $8. boom."
