"""Each retrieval step on small hand-made knowledge (real embedding model, real pgvector)."""

from __future__ import annotations

import io
from datetime import date, timedelta

import pytest
from django_tenants.utils import tenant_context

from apps.facts.models import Fact
from apps.facts.services import fact_retire, owner_fact_add
from apps.facts.signals import topics_batched
from apps.retrieval.index import index_check, index_rebuild, index_state
from apps.retrieval.models import Piece
from apps.retrieval.search import RetrievalOptions, has_identifier, retrieve
from apps.tenants.services import business_delete

TODAY = date(2026, 11, 2)

KNOWLEDGE = [
    ("Opening hours", "Open Monday to Friday, 7 AM to 3 PM.", "hours weekdays", None, None, "public"),
    (
        "Opening hours",
        "Open until 6 PM Monday to Friday.",
        "hours weekdays",
        None,
        date(2026, 12, 24),
        "public",
    ),
    ("Sourdough", "A sourdough loaf is $8.50.", "price", None, None, "public"),
    (
        "Sourdough",
        "Sourdough is baked fresh every morning with organic flour.",
        "baking",
        None,
        None,
        "public",
    ),
    ("Croissants", "Butter croissants are $3.50 each.", "price", None, None, "public"),
    ("Wedding cakes", "Wedding cakes start at $250 and need 4 weeks notice.", "price", None, None, "public"),
    ("Delivery", "Delivery is available within 10 miles.", "radius", None, None, "public"),
    ("Delivery", "Delivery is free on orders over $50, otherwise $5.", "fee", None, None, "public"),
    (
        "Gluten-free",
        "Gluten-free bread is available on Saturdays only.",
        "availability",
        None,
        None,
        "public",
    ),
    ("Parking", "Free customer parking is behind the shop on Elm Street.", "parking", None, None, "public"),
    ("Catering", "Catering order form code is CAT-4471.", "form", None, None, "public"),
    ("Staff notes", "The alarm code for the back door is 9931.", "alarm", None, None, "internal"),
    (
        "Christmas market",
        "Our Christmas market stall runs until Dec 20.",
        "market",
        None,
        date(2026, 12, 20),
        "public",
    ),
]


@pytest.fixture
def kb(business):
    with topics_batched():
        for topic, statement, aspect, vf, vt, visibility in KNOWLEDGE:
            owner_fact_add(
                topic=topic,
                statement=statement,
                aspect=aspect,
                valid_from=vf,
                valid_to=vt,
                visibility=visibility,
            )
    return business


def topics(result) -> list[str]:
    return [t.name for t in result.context]


def test_index_holds_rendered_topics_with_titles(kb):
    pieces = Piece.objects.filter(audience="visitor")
    assert {p.title for p in pieces} >= {"Opening hours", "Sourdough", "Delivery"}
    assert "Staff notes" not in {p.title for p in pieces}
    assert Piece.objects.filter(audience="staff", title="Staff notes").count() == 1


def test_a_changed_fact_reindexes_only_its_topic(kb):
    before = {p.title: p.pk for p in Piece.objects.filter(audience="visitor")}
    fact_retire(fact=Fact.objects.get(statement__startswith="Free customer parking"), reason="moved")
    after = {p.title: p.pk for p in Piece.objects.filter(audience="visitor")}
    assert "Parking" not in after
    assert all(after[t] == before[t] for t in after)  # untouched topics keep their rows


def test_price_of_a_named_product(kb):
    result = retrieve("How much does a sourdough cost?", on=TODAY)
    assert topics(result)[0] == "Sourdough"
    assert "$8.50" in result.context_text()
    assert result.log["kind"] == "prices"


def test_follow_up_that_names_nothing_uses_the_conversation(kb):
    history = ["Do you deliver?", "Yes, delivery is available within 10 miles."]
    plain = retrieve("is it free?", on=TODAY, options=RetrievalOptions(two_pass=False))
    contextual = retrieve("is it free?", on=TODAY, history=history)
    assert "Delivery is free on orders over $50" in contextual.context_text()
    assert any(v["leg"] == "contextual" for v in contextual.log["variants"])
    assert contextual.log["variants"] != plain.log["variants"]


def test_a_new_question_keeps_its_own_results_after_a_conversation(kb):
    history = ["Do you deliver?", "Yes, delivery is available within 10 miles."]
    result = retrieve("Where can I park my car near the bakery?", on=TODAY, history=history)
    assert topics(result)[0] == "Parking"


def test_misspelling_is_repaired_against_the_business_vocabulary(kb):
    result = retrieve("do you have glutten-free braed?", on=TODAY)
    assert "Gluten-free" in topics(result)
    if result.log["repaired"]:
        assert "gluten" in result.log["repaired"].lower()


def test_repair_learns_a_word_added_after_earlier_turns(kb):
    """The repair's vocabulary is cached per index revision: a topic added after a turn has
    warmed the cache is a correction target on the next turn."""
    before = index_state().revision
    assert not retrieve("do you sell focacia?", on=TODAY).log["repaired"]
    owner_fact_add(topic="Focaccia", statement="Rosemary focaccia is $6.", aspect="price")
    assert index_state().revision > before
    result = retrieve("do you sell focacia?", on=TODAY)
    assert "focaccia" in result.log["repaired"].lower()
    assert "Focaccia" in topics(result)


def kind_leg(message: str) -> list[str]:
    result = retrieve(message, on=TODAY)
    return [c["topic"] for v in result.log["variants"] if v["leg"] == "kind" for c in v["candidates"]]


def test_the_kind_legs_pieces_follow_the_index(kb):
    """The kind leg's pieces are kept per index revision (they do not depend on the message): a
    fact of that kind added after a turn has warmed them is in the next turn's kind leg."""
    assert "Price list" not in kind_leg("what are your prices?")
    owner_fact_add(topic="Price list", statement="Prices: loaves from $6, cakes from $25.", aspect="prices")
    assert "Price list" in kind_leg("what are your prices?")


@pytest.mark.django_db(transaction=True)
def test_a_business_made_again_under_its_old_name_never_meets_the_old_ones_pieces(make_business):
    # Same schema name, same generation and revision counts: only the index's build time differs.
    first = make_business("again", "First Bakery")
    with tenant_context(first):
        owner_fact_add(topic="Price list", statement="Loaves from $6.", aspect="prices")
        assert "Price list" in kind_leg("what are your prices?")
    business_delete(business=first)
    second = make_business("again", "Second Bakery")
    with tenant_context(second):
        owner_fact_add(topic="Tariff", statement="Cakes from $25.", aspect="prices")
        assert kind_leg("what are your prices?") == ["Tariff"]


def test_exact_code_uses_the_keyword_leg(kb):
    assert has_identifier("what is form CAT-4471 for?")
    assert not has_identifier("are you open at 7am on the 3rd?")
    result = retrieve("CAT-4471", on=TODAY)
    assert result.log["keyword"] is True
    assert topics(result)[0] == "Catering"


def test_internal_fact_is_never_returned_to_a_visitor(kb):
    for question in ["What is the alarm code for the back door?", "staff notes", "9931"]:
        result = retrieve(question, on=TODAY, options=RetrievalOptions(keyword="on"))
        assert "9931" not in result.context_text()
        assert "Staff notes" not in topics(result)
    staff = retrieve("What is the alarm code for the back door?", on=TODAY, audience="staff")
    assert "9931" in staff.context_text()


def test_an_ended_fact_is_never_presented_as_current_without_reindexing(kb):
    during = retrieve("How late are you open on weekdays?", on=date(2026, 12, 1))
    assert "6 PM" in during.context_text()
    assert "Usually, and again from 25 December 2026" in during.context_text()
    # The longer hours ended: the question is about today's hours, closer to them than to the old.
    after = retrieve("How late are you open on weekdays?", on=date(2026, 12, 27))
    assert "6 PM" not in after.context_text() and "3 PM" in after.context_text()
    assert "Usually" not in after.context_text()  # an ended change pauses nothing
    # The stall ended a week ago and is what the question is about: it is read as over, by its end.
    market = retrieve("Do you have a Christmas market stall?", on=date(2026, 12, 27))
    (stall,) = [t for t in market.context if t.name == "Christmas market"]
    assert [f.state for f in stall.facts] == ["ended"]
    assert "Ended 20 December 2026 (over): Our Christmas market stall" in stall.text
    assert any(
        reason.startswith("added: ended recently") for reason in [k["why"] for k in market.log["kept"]]
    )
    # Long over, or with the window closed: not seen at all.
    later = retrieve("Do you have a Christmas market stall?", on=date(2027, 3, 25))
    closed = retrieve(
        "Do you have a Christmas market stall?", on=date(2026, 12, 27), options=RetrievalOptions(ended_days=0)
    )
    assert "Christmas market" not in topics(later) + topics(closed)


def test_an_ended_piece_is_added_beside_the_k_pieces_and_only_as_the_best_match(kb):
    """What is over never pushes out what is in force: the ended piece comes on top of the k kept
    pieces, and only for a question closer to it than to anything in force."""
    market = retrieve("Do you have a Christmas market stall?", on=date(2026, 12, 27))
    assert len(market.hits) == RetrievalOptions().k + 1
    bread = retrieve("How much is a sourdough loaf?", on=date(2026, 12, 27))
    assert "Christmas market" not in topics(bread) and len(bread.hits) == RetrievalOptions().k


def test_an_ended_fact_of_a_topic_in_force_is_read_only_when_asked_about(kb):
    owner_fact_add(
        topic="Delivery",
        statement="Christmas offer: free delivery on every order, however small.",
        aspect="offer",
        valid_to=date(2026, 12, 24),
    )
    asked = retrieve("is the christmas delivery offer still on?", on=date(2027, 1, 5))
    (delivery,) = [t for t in asked.context if t.name == "Delivery"]
    assert "ended" in [f.state for f in delivery.facts], delivery.text
    radius = retrieve("How far do you deliver?", on=date(2027, 1, 5))
    (delivery,) = [t for t in radius.context if t.name == "Delivery"]
    assert "Christmas offer" not in delivery.text and "10 miles" in delivery.text


def test_diversity_caps_pieces_per_topic(kb):
    for i in range(12):
        owner_fact_add(
            topic="Sourdough",
            statement=f"Sourdough variety {i} is a long descriptive sentence " * 6,
            aspect=f"variety {i}",
        )
    result = retrieve("Tell me about your sourdough", on=TODAY, options=RetrievalOptions(k=6))
    assert sum(1 for h in result.hits if h.title == "Sourdough") <= 3


def test_confidence_and_decisions_are_returned_and_logged(kb):
    good = retrieve("How much is a sourdough loaf?", on=TODAY)
    bad = retrieve("Do you repair motorcycles?", on=TODAY)
    assert good.top_similarity > bad.top_similarity
    assert set(good.decisions) == {"record_gap", "new_question", "ask_owner", "repair", "web_lookup"}
    for result in (good, bad):
        assert {"variants", "kept", "decisions", "timings_ms", "thresholds"} <= set(result.log)


def test_model_change_rebuilds_atomically_and_golden_vector_guards_drift(kb):
    state = index_state()
    count = Piece.objects.count()
    state.golden = [0.0] * 383 + [1.0]
    state.save()
    assert index_check().status == "stale"
    rebuilt = index_rebuild()
    assert rebuilt.generation == state.generation + 1 and rebuilt.status == "ready"
    assert Piece.objects.count() == count
    assert set(Piece.objects.values_list("generation", flat=True)) == {rebuilt.generation}
    assert index_check().status == "ready"


def test_a_stale_index_answers_nothing_and_says_how_to_re_embed(kb):
    """After a model change the stored vectors are in another space: searching them would rank by
    noise. Retrieval refuses with the command to run, an edit made meanwhile is not indexed into the
    old space, and `reindex` re-embeds the business and serves again (with the edit)."""
    from django.core.management import call_command
    from django.db import connection

    from apps.retrieval.index import IndexStaleError

    state = index_state()
    state.model_id = "someone/another-model@rev sha256:0000"
    state.save()
    with pytest.raises(IndexStaleError, match=r"manage\.py reindex --business"):
        retrieve("How much is a sourdough loaf?", on=TODAY)
    owner_fact_add(topic="Bagels", statement="Sesame bagels are $2 each.", aspect="price")
    assert not Piece.objects.filter(title="Bagels").exists()

    out = io.StringIO()
    schema = connection.schema_name
    call_command("reindex", "--check", stdout=out)
    assert "stale (the index was built with someone/another-model" in out.getvalue()
    assert "1 stale, 0 re-embedded" in out.getvalue()
    connection.set_schema(schema)
    with pytest.raises(IndexStaleError):  # --check changes nothing
        retrieve("How much is a sourdough loaf?", on=TODAY)

    out = io.StringIO()
    call_command("reindex", stdout=out)
    assert "re-embedded" in out.getvalue() and "1 re-embedded" in out.getvalue()
    connection.set_schema(schema)
    assert "Bagels" in topics(retrieve("how much are bagels?", on=TODAY))
    out = io.StringIO()
    call_command("reindex", stdout=out)  # nothing left to do
    assert "0 stale, 0 re-embedded" in out.getvalue()


def test_reindex_names_unknown_businesses(business):
    from django.core.management import call_command
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="No business nosuch"):
        call_command("reindex", "--business", "nosuch")


def test_question_weight_is_part_of_the_index_space(business, settings):
    """An owner answer's pieces move towards the question they answer by the configured weight; a
    change of weight makes the index stale until it is re-embedded (the vectors depend on it)."""
    import numpy as np

    from apps.facts.services import owner_answer_record
    from apps.retrieval import embedding
    from apps.retrieval.index import IndexStaleError, embedding_text, index_reconcile

    owner_answer_record(question="Do you take walk-ins?", answer="Yes, walk-ins are welcome before noon.")
    piece = Piece.objects.get()
    plain = embedding.embed_passages([embedding_text(piece.title, piece.text)])[0]
    key = embedding.embed_passages(["Do you take walk-ins?"])[0]
    stored = np.asarray(piece.embedding)
    weight = settings.XORVENTA_QUESTION_KEY_WEIGHT
    expected = (plain + weight * key) / np.linalg.norm(plain + weight * key)
    assert float(stored @ expected) > 0.9999

    settings.XORVENTA_QUESTION_KEY_WEIGHT = weight + 0.25
    with pytest.raises(IndexStaleError, match="question weight"):
        retrieve("can I just walk in?", on=TODAY)
    assert index_reconcile().rebuilt
    moved = np.asarray(Piece.objects.get().embedding)
    expected = (plain + (weight + 0.25) * key) / np.linalg.norm(plain + (weight + 0.25) * key)
    assert float(moved @ expected) > 0.9999
    assert retrieve("can I just walk in?", on=TODAY).hits


def test_the_start_up_task_re_embeds_stale_indexes(kb):
    from django.db import connection

    from apps.retrieval.tasks import index_reconcile_all

    schema = connection.schema_name
    assert index_reconcile_all() == "0 stale search indexes re-embedded"
    connection.set_schema(schema)
    state = index_state()
    state.golden = [0.0] * 383 + [1.0]  # the model no longer reproduces it
    state.save()
    assert index_reconcile_all() == "1 stale search indexes re-embedded: sunny"
    connection.set_schema(schema)
    assert index_state().status == "ready"
    assert "Sourdough" in topics(retrieve("How much is a sourdough loaf?", on=TODAY))


def test_a_misspelt_word_is_repaired_even_when_the_rest_matches_well(business):
    """ "family maners course" matched the business's "family dog manners" well enough that the weak
    match repair never ran, and the course itself was not retrieved. A word neither the business nor
    English knows is repaired whatever the match."""
    with topics_batched():
        for topic, statement in [
            ("About", "Puppy classes, family dog manners, recall workshops and 1:1 help with reactive dogs."),
            (
                "Family Manners",
                "Family Manners (adolescent and adult dogs, 5 months+): 6 weekly classes, €155.",
            ),
            ("Puppy Foundations", "Puppy Foundations (puppies 8-16 weeks): 5 weekly classes, €120."),
            ("Recall Workshop", "Recall Workshop: one Saturday morning, 3 hours, €55."),
            ("Home visit", "1:1 home visit (90 minutes): €85 within 20km."),
        ]:
            owner_fact_add(topic=topic, statement=statement, aspect="detail")
    result = retrieve("how much is the family maners course now?", on=TODAY)
    assert "Family Manners" in topics(result)
    assert "manners" in result.log["repaired"].lower()


def test_a_noun_the_business_never_writes_is_searched_in_its_own_words(business):
    """ "do I need to bring diapers?" at a nursery that writes "nappies": the embedding puts the two far
    apart, and the fees line that says nappies are included was not retrieved. The question is
    searched again with a name WordNet gives the same sense that the business writes."""
    with topics_batched():
        for topic, statement in [
            (
                "Fees",
                "All fees include breakfast, hot lunch and snacks, plus nappies, wipes and nappy cream.",
            ),
            ("Closure days", "Fees are not charged for closure days."),
            ("Contact", "Call us on 0161 496 0000."),
            ("Location", "We are at 14 Elm Road, next to the park."),
            ("Vegan meals", "Our cook makes vegan, halal and allergy-safe meals fresh on site."),
            ("Outdoor play", "Children play outside every day: bring wellies and a waterproof."),
            ("Settling in", "Two free settling-in sessions before your child starts."),
        ]:
            owner_fact_add(topic=topic, statement=statement, aspect="detail")
    question = "do I have to bring my own diapers?"
    plain = retrieve(question, on=TODAY, options=RetrievalOptions(synonyms=False))
    result = retrieve(question, on=TODAY)
    own_words = [v for v in result.log["variants"] if v["leg"] == "own words"]
    assert own_words and "nappy" in own_words[0]["query"]
    assert own_words[0]["candidates"][0]["topic"] == "Fees"
    assert "nappies" in result.hits[0].text, [h.text for h in result.hits]
    assert "nappies" not in plain.hits[0].text, [h.text for h in plain.hits]
    assert result.top_similarity > plain.top_similarity


def test_a_question_about_offers_keeps_what_is_on_for_a_while(kb):
    """An offer is in force only for a while and need not call itself one ("Autumn loyalty week: a free
    coffee with any loaf"): a question about offers keeps a place for what is temporary that day."""
    owner_fact_add(
        topic="Loyalty week",
        statement="Loyalty week: a free filter coffee with any loaf.",
        aspect="loyalty",
        valid_from=None,
        valid_to=TODAY + timedelta(days=5),
    )
    result = retrieve("got any deals on at the moment?", on=TODAY)
    assert result.log["kind"] == "offers"
    kept = {k["topic"]: k for k in result.log["kept"]}
    assert "Loyalty week" in kept, result.log["kept"]
    assert "dated" in kept["Loyalty week"]["scores"]  # the search of what is in force for a while ran
    ended = retrieve("got any deals on at the moment?", on=TODAY + timedelta(days=6))
    assert "Loyalty week" not in topics(ended)


def test_a_superlative_sees_every_row_of_what_it_ranks(kb):
    """ "the cheapest loaf" is answered by comparing the loaves: the pieces that write the noun are added
    beside the k kept, whatever their similarity to the whole question."""
    loaves = {
        "Rye loaf": 7,
        "Pumpkin loaf": 6,
        "Seeded loaf": 9,
        "Brioche loaf": 5,
        "Malt loaf": 4,
        "Spelt loaf": 8,
    }
    with topics_batched():
        for name, price in loaves.items():
            owner_fact_add(topic=name, statement=f"A {name.lower()} is ${price}.", aspect="price")
    result = retrieve("what's your cheapest loaf?", on=TODAY)
    assert set(loaves) <= set(topics(result))  # six loaves, more than the k = 4 kept
    plain = retrieve("what's your cheapest loaf?", on=TODAY, options=RetrievalOptions(superlative_rows=False))
    assert len(plain.hits) == RetrievalOptions().k and not set(loaves) <= set(topics(plain))
