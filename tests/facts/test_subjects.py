"""Subjects matched by meaning (apps.facts.subjects, the rules in apps.facts.services).

Through the real path: text from a website, a document or the owner goes through the built-in
extractor and the rules, with the embedding model registered by retrieval as in the product. The
merge of "gift vouchers" and "gift cards" fails on the exact-key rules (two live subjects); the near
misses guard against the matcher merging too much."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from apps.facts.extraction.builtin import BuiltinExtractor
from apps.facts.models import Disagreement, EventKind, Evidence, Fact, FactEvent, FactStatus
from apps.facts.services import (
    KnowledgeInputError,
    disagreement_split,
    fact_subject_split,
    owner_answer_record,
    source_ingest,
)
from apps.facts.subjects import (
    analyse,
    compare,
    compare_many,
    set_similarity,
    similarity_provider,
    without_aspect,
)

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def website(text: str, minutes: int, ref: str = "https://sunny.example/") -> object:
    return source_ingest(
        kind="website", ref=ref, content=text, read_at=at(minutes), extractor=BuiltinExtractor()
    )


def document(text: str, minutes: int, ref: str = "prices.txt") -> object:
    return source_ingest(
        kind="document", ref=ref, content=text, read_at=at(minutes), extractor=BuiltinExtractor()
    )


def owner(question: str, answer: str, minutes: int) -> object:
    return owner_answer_record(
        question=question, answer=answer, read_at=at(minutes), extractor=BuiltinExtractor()
    )


def live_about(word: str) -> list[Fact]:
    return [
        f
        for f in Fact.objects.filter(status=FactStatus.LIVE).select_related("topic")
        if word in f.statement.lower()
    ]


@pytest.fixture
def no_provider():
    previous = set_similarity(None)
    yield
    set_similarity(previous)


# ----------------------------------------------------------------------------------------------
# Through ingestion


def test_synonyms_are_one_subject_the_owner_wins_and_a_document_disagrees(business):
    assert similarity_provider() is not None  # retrieval registered the embedding model
    website("Gift vouchers are available for $25.", 0)
    owner("How much are gift cards?", "They are $30.", 10)

    [fact] = live_about("gift")  # one live subject: before, the $25 stayed beside the $30
    assert fact.value == "$30" and fact.source_kind == "owner_answer"
    match = fact.matched_subject
    assert match["own_topic"] == "Gift cards" and match["topic"] == "Gift vouchers"
    assert match["method"] == "embedding" and 0 < match["similarity"] < 1
    old = Fact.objects.get(value="$25")
    assert old.status == FactStatus.RETIRED and old.retired_by_id == fact.pk
    created = FactEvent.objects.get(fact=fact, kind=EventKind.CREATED)
    assert "treated as the same subject as" in created.reason and "similarity" in created.reason

    document("Gift vouchers cost $20.", 20)  # the document is weaker than the owner's answer
    assert [f.value for f in live_about("gift")] == ["$30"]
    [disagreement] = Disagreement.objects.all()
    assert disagreement.fact_id == fact.pk and "$20" in disagreement.statement

    document("Gift cards cost $22.", 30, ref="flyer.txt")  # its own name: matched by meaning, then disagrees
    assert [f.value for f in live_about("gift")] == ["$30"]
    second = Disagreement.objects.get(statement__contains="$22")
    assert second.fact_id == fact.pk and second.candidate["matched_subject"]["topic"] == "Gift vouchers"


def test_a_qualifier_naming_the_default_kind_is_the_same_subject(business):
    website("A cleaning costs $95.", 0)
    owner("How much is a routine cleaning?", "It's $110.", 10)
    [fact] = live_about("cleaning")
    assert fact.value == "$110" and fact.matched_subject["method"] == "head-noun"


def test_two_insurers_stay_apart(business, scripted):
    # Topics as a language model names them (its candidates go through the same step as the
    # built-in extractor's). The built-in extractor files insurers under one list aspect, which the
    # exact-key rules compare as before (not this matcher's decision).
    extractor = scripted(
        {
            "We accept Delta Dental.": [
                {
                    "topic": "Delta Dental",
                    "aspect": "accepted",
                    "statement": "Delta Dental is accepted.",
                    "value": "yes",
                }
            ],
            "Yes, we take Cigna.": [
                {"topic": "Cigna", "aspect": "accepted", "statement": "Cigna is accepted.", "value": "yes"}
            ],
        }
    )
    source_ingest(
        kind="website",
        ref="https://s.example/",
        content="We accept Delta Dental.",
        read_at=at(0),
        extractor=extractor,
    )
    owner_answer_record(
        question="Do you take Cigna?", answer="Yes, we take Cigna.", read_at=at(10), extractor=extractor
    )
    live = sorted(Fact.objects.filter(status=FactStatus.LIVE).values_list("statement", flat=True))
    assert live == ["Cigna is accepted.", "Delta Dental is accepted."]


def test_two_sizes_stay_apart(business):
    website("A small pizza is $12.", 0)
    owner("How much is a large pizza?", "$18.", 10)
    assert sorted(f.value for f in live_about("pizza")) == ["$12", "$18"]
    assert all(not f.matched_subject for f in live_about("pizza"))


def test_two_kinds_of_one_thing_stay_apart_though_the_embedding_puts_them_close(business):
    # "tea" / "coffee" sit at 0.62 in MiniLM, above the threshold for different heads: WordNet's
    # co-hyponyms keep them apart, so the owner's answer about one does not retire the other.
    website("Tea: $3.", 0)
    owner("How much is a coffee?", "Coffee is $4.", 10)
    assert sorted(f.value for f in live_about("tea") + live_about("coffee")) == ["$3", "$4"]
    assert all(not f.matched_subject for f in live_about("tea") + live_about("coffee"))


def test_a_hyphenated_kind_stays_apart_from_another_kind_of_its_head(business):
    # "e-scooters" is a kind of scooter: beside "folding scooters" it is another variant, so the owner's
    # answer about one neither corroborates nor retires the other (the two heads had been compared as
    # different words, at 0.6 in the embedding: one subject).
    website("We sell folding scooters.", 0)
    owner("Do you repair e-scooters?", "yes we repair e-scooters, a check-up is $30", 10)
    folding = live_about("folding")
    kinds = set(Evidence.objects.filter(fact__in=folding).values_list("part__source__kind", flat=True))
    assert folding and kinds == {"website"}, kinds
    assert all(not f.matched_subject for f in folding)


def test_two_services_on_one_page_are_two_subjects(business):
    # A source that names two things separately means two things, however close their names.
    website("A cleaning is $95.\n\nA deep cleaning is $200.", 0)
    assert sorted(f.value for f in live_about("cleaning")) == ["$200", "$95"]


def test_the_owner_splits_a_merge_and_both_subjects_are_live_again(business):
    website("Gift vouchers are available for $25.", 0)
    owner("How much are gift cards?", "They are $30.", 10)
    [merged] = live_about("gift")

    with pytest.raises(KnowledgeInputError):
        fact_subject_split(fact=merged, reason="  ")
    split = fact_subject_split(
        fact=merged, reason="Vouchers are paper, cards are plastic.", actor="o@x.example"
    )

    assert sorted((f.topic.name, f.value) for f in live_about("gift")) == [
        ("Gift cards", "$30"),
        ("Gift vouchers", "$25"),
    ]
    merged.refresh_from_db()
    assert merged.status == FactStatus.RETIRED and merged.retired_by_id == split.pk  # kept, not deleted
    assert "Split by the owner" in merged.retired_reason and "plastic" in merged.retired_reason
    restored = Fact.objects.get(value="$25")
    event = FactEvent.objects.filter(fact=restored, kind=EventKind.RESTORED).get()
    assert "split" in event.reason and event.actor == "o@x.example"
    assert split.evidence.filter(withdrawn_at__isnull=True).count() == 1  # the owner's answer still states it
    with pytest.raises(KnowledgeInputError):
        fact_subject_split(fact=split, reason="again")  # nothing to split any more

    owner("How much are gift cards?", "Now $35.", 20)  # the split stays: its own subject is live now
    assert sorted(f.value for f in live_about("gift")) == ["$25", "$35"]


# ----------------------------------------------------------------------------------------------
# The matcher on its own


def test_head_nouns_decide_variants_and_inflections():
    assert analyse("Gift Cards").head == "card" and analyse("kids' haircuts").qualifiers == {"kid"}
    assert analyse("30-minute massage").numbers == {"30"} and analyse("30-minute massage").units == {"minute"}
    assert compare("brake pads", "brake pad").same
    assert not compare("small pizza", "large pizza").same
    assert compare("hours sunday", "hours saturday").method == "variant"
    assert not compare("12-inch pizza", "16-inch pizza").same
    # One length of time, written two ways, is one subject; two lengths are two.
    assert compare("One-hour lesson", "60-minute lesson").same
    assert compare("Half-hour lesson", "30 min lesson").same
    assert not compare("Half-hour lesson", "One-hour lesson").same
    # A letter names a variant as a number does ("Zone A" / "Zone B"); "A" opening a name is the article.
    assert not compare("Zone A", "Zone B").same and not compare("Plan A", "Plan B").same
    assert compare("Zone B", "zone B").same and analyse("A haircut").head == "haircut"


def test_without_a_provider_only_head_nouns_match(no_provider):
    assert similarity_provider() is None
    assert compare("basic cleaning", "routine cleaning").same  # default qualifiers: the same head
    found = compare("gift vouchers", "gift cards")
    assert not found.same and found.similarity is None and "no similarity provider" in found.reason


def test_without_a_provider_ingestion_still_merges_by_head_noun(business, no_provider):
    website("Teeth cleanings are $90.", 0)
    owner("How much is a basic teeth cleaning?", "$100.", 10)
    [fact] = live_about("cleaning")
    assert fact.value == "$100" and fact.matched_subject["similarity"] is None


def test_the_owner_splits_a_disagreement_that_was_about_another_thing(business):
    owner("How much are gift cards?", "They are $30.", 0)
    document("Gift vouchers cost $20.", 10)  # matched by meaning to the owner's subject: a disagreement
    disagreement = Disagreement.objects.get()
    assert disagreement.candidate["matched_subject"]["topic"] == "Gift cards"

    fact = disagreement_split(disagreement=disagreement, actor="o@x.example")
    assert sorted((f.topic.name, f.value) for f in live_about("gift")) == [
        ("Gift cards", "$30"),
        ("Gift vouchers", "$20"),
    ]
    disagreement.refresh_from_db()
    assert disagreement.status == "accepted" and disagreement.resulting_fact_id == fact.pk
    assert "split" in FactEvent.objects.get(fact=fact, kind=EventKind.CREATED).reason
    with pytest.raises(KnowledgeInputError):
        disagreement_split(disagreement=disagreement)


def test_the_language_model_extractors_candidates_go_through_the_same_step(business):
    import json

    from apps.facts.extraction.llm import LLMExtractor
    from tests.facts.test_llm_extractor import FakeServer, completion

    record = {"topic": "Gift Cards", "aspect": "price", "statement": "Gift cards are $30.", "value": "$30"}
    fake = FakeServer()
    fake.reply = completion(
        json.dumps({"records": [{**record, "valid_from": None, "valid_to": None, "replaces": []}]})
    )
    fake.thread.start()
    try:
        website("Gift vouchers are available for $25.", 0)
        owner_answer_record(
            question="How much are gift cards?",
            answer="They're thirty dollars.",
            read_at=at(10),
            extractor=LLMExtractor(fake.config),
        )
    finally:
        fake.httpd.shutdown()
        fake.httpd.server_close()
    [fact] = live_about("gift")
    assert fact.value == "$30" and fact.matched_subject["own_topic"] == "Gift Cards"
    assert fact.topic.name == "Gift vouchers"


TABLE = """Prices

| Service | Terraced | Detached |
|---|---|---|
| Window clean | $25 | $40 |
| Gutter clear | $60 | $90 |
"""


def test_a_table_cell_and_prose_naming_its_variant_are_one_subject(business):
    # The cell is filed as "Window clean" / "price for detached"; the owner says "detached window
    # cleans": read with its variant in the name, it is the same subject, and the newer answer wins.
    website(TABLE, 0)
    owner("How much is a detached window clean?", "Detached window cleans are $45 now.", 10)
    values = sorted(f.value for f in live_about("window clean"))
    assert "$40" not in values and "$45" in values and "$25" in values, values
    (merged,) = [f for f in live_about("window clean") if f.value == "$45"]
    assert merged.matched_subject.get("method") == "variant"
    assert merged.matched_subject.get("aspect") == "price for detached"


def test_a_bare_name_over_two_variants_replaces_neither(business):
    website(TABLE, 0)
    document("Window clean: $30.", 10)  # terraced or detached? not the matcher's guess
    values = sorted(f.value for f in live_about("window clean"))
    assert {"$25", "$40", "$30"} <= set(values), values


def test_a_price_word_ending_a_name_names_its_aspect_not_another_thing(business):
    # "Emergency call out fee" is the emergency call-out, priced: the newer owner answer replaces the
    # page's price instead of standing beside it under a second subject.
    website("After-hours emergency call-out: $210 plus labour.", 0)
    owner("How much is the emergency call out fee?", "Emergency call out fee is $195 after hours now.", 10)
    prices = [f.value for f in live_about("call") if "$" in (f.value or "")]
    assert prices == ["$195"], [(f.topic.name, f.statement) for f in live_about("call")]


def test_a_price_word_ending_a_name_is_dropped_by_lemma_and_never_empties_a_name():
    assert without_aspect("Late pick-up charges") == "Late pick-up"
    assert without_aspect("Fee") == "Fee"  # a name of one word is what it says
    assert without_aspect("Price list") == "Price list"  # only a last word
    assert compare("Delivery fee", "Delivery charge").same  # both the delivery, priced
    assert not compare("Test fee", "Lesson fee").same  # two things, each priced


def test_a_number_that_measures_stays_in_the_subject_and_the_newer_price_wins(business):
    # "The 4 hour block": the number measures the block (kept), where "3 croissants" counts them.
    website("Block of 4 hours: $180.", 0)
    owner("How much is the 4 hour block?", "The 4 hour block is $170 now.", 10)
    (live,) = live_about("block")
    assert live.value == "$170", [(f.topic.name, f.statement) for f in live_about("block")]


def test_a_length_of_time_written_in_words_is_the_number_of_minutes(business):
    website("60-minute lesson: £58.", 0)
    owner("How much is a one-hour lesson?", "£60 now.", 10)
    (live,) = live_about("lesson")
    assert live.value == "£60", [(f.topic.name, f.statement) for f in live_about("lesson")]


def test_a_run_of_days_the_owner_has_answered_for_day_by_day_is_replaced(business):
    # Newer beats older per day: "closed Monday & Tuesday" is two days' hours, and once the owner
    # has given both, nothing in it is still so. One day alone leaves the run live.
    website("Opening hours: Wednesday to Sunday 9am-5pm. Closed Monday & Tuesday.", 0)
    owner("Are you open on Mondays?", "yes we open mondays now, 9-5", 10)
    assert any("Monday & Tuesday" in f.statement for f in live_about("closed"))
    owner("And Tuesdays?", "still closed on tuesdays", 20)
    assert not any("Monday & Tuesday" in f.statement for f in live_about("closed"))
    old = Fact.objects.get(statement__contains="Monday & Tuesday")
    assert old.status == FactStatus.RETIRED and "Each of its days" in old.retired_reason
    assert old.retired_by.source_kind == "owner_answer"
    assert any("Wednesday to Sunday" in f.statement for f in live_about("open"))  # no day of it answered


def test_hours_for_every_day_replace_no_run_of_days(business):
    # The reading most often wrong: someone else's "open 24/7" filed as the business's every day.
    owner("What are your opening hours?", "Monday to Friday 8am-7pm, Saturday 9am-3pm. Closed Sundays.", 0)
    owner(
        "What if my pet is ill at night?", "Outside our hours call the county animal hospital, open 24/7.", 10
    )
    assert live_about("8am-7pm") and live_about("closed sundays")


def test_a_weaker_newer_source_does_not_replace_the_owners_days(business):
    owner("What are your hours on weekends?", "Saturday and Sunday 10-2", 0)
    website("Open Saturday 9am-5pm. Open Sunday 9am-5pm.", 10)
    assert any("10-2" in f.statement for f in live_about("10-2"))


PHYSIO_LIST = """Treatments
Sports / injury rehab
  30 min ..... $70
  60 min ..... $120
Dry needling add-on ..... $20
"""


def test_a_name_of_alternatives_with_its_noun_left_out_is_the_row_it_names(business):
    # The list's row "Sports / injury rehab" at "60 min"; the owner writes "injury 60" (the noun and
    # the unit left out), a later document "injury rehab 1 hour" (the unit in other words). One subject:
    # the owner's answer wins and the document's conflicting value is a disagreement.
    website(PHYSIO_LIST, 0)
    owner("how much is an hour of injury rehab?", "injury 60 is $125 now", 10)
    document("Price list: injury rehab 60 minutes $128, injury rehab 30 minutes $72.", 20)
    sixty = sorted(
        f.value for f in live_about("60") + live_about("1 hour") if "rehab" in f.topic.name.lower()
    )
    live = {f.value for f in Fact.objects.filter(status=FactStatus.LIVE) if f.value}
    assert "$125" in live and "$120" not in live and "$128" not in live, (sixty, live)
    assert "$72" in live and "$70" not in live, live  # the newer document's 30 min replaces the list's
    assert Disagreement.objects.exists()


def test_ellipsis_needs_a_name_of_modifiers_only():
    assert compare("Deluxe", "Deluxe car wash").same
    assert compare("private 45", "private lesson 45 min").same
    assert not compare("Car", "Car wash").same  # a noun of its own: another thing
    assert not compare("Deluxe", "Basic wash").same
    assert not compare("private 45", "private lesson 60 min").same
    assert compare("60 min", "Relaxation massage 60 min").same  # a measure alone: the one of its measure
    two = compare_many("60 min", ["Relaxation massage 60 min", "Deep tissue massage 60 min", "Facial 30 min"])
    assert not any(m.same for m in two)  # beside two of that measure it names neither
    assert not compare("60 min", "Relaxation massage 90 min").same
    assert compare("60-minute facial", "Facial 60 mins").same  # units by their canonical names


def test_an_owners_answer_with_a_price_per_variant_meets_each_row(business):
    website("Season pass: $300 adult, $180 child\n", 0)
    owner("how much is the season pass?", "season is $320 now for adults, kids still $180", 10)
    live = {f.value for f in Fact.objects.filter(status=FactStatus.LIVE) if f.value}
    assert "$320" in live and "$300" not in live and "$180" in live, live


# ----------------------------------------------------------------------------------------------
# WordNet as a second signal, initialisms, a heading named again


def test_words_for_one_doing_are_one_subject_where_the_embedding_alone_is_unsure(business):
    # "late collection" / "late pick-up" sit at 0.47, below the threshold for different heads;
    # WordNet has "collect" and "pick up" as one doing, so the newer price replaces the older.
    website("Late collection: £12 per 15 minutes after 6pm.", 0)
    document("Late pick-up is £15 for every 15 minutes after 6pm.", 10)
    [fact] = live_about("£")
    assert "£15" in fact.statement and fact.matched_subject["method"] == "wordnet", fact.matched_subject
    [old] = [f for f in Fact.objects.all() if "£12" in f.statement]
    assert old.status == FactStatus.RETIRED and old.retired_by_id == fact.pk


def test_wordnet_alone_merges_nothing_the_embedding_puts_far_apart():
    # "cut" and "trim" share a WordNet sense; with unrelated qualifiers they stay variants, and two
    # nouns WordNet does not join stay apart whatever their shared qualifier.
    assert not compare("late collection", "late delivery").same
    assert not compare("pickup", "delivery").same
    assert not compare("bike hire", "bike repair").same
    assert compare("towel hire", "towel rental").same
    assert compare("eyebrow threading", "brow threading").same  # one-word qualifiers of one sense


def test_an_initialism_is_the_words_it_stands_for():
    match = compare("B&W copies", "Copy, black & white")
    assert match.same, match
    assert not compare("B&W copies", "Colour copies").same
    assert not compare("B&W copies", "Copy, black & gold").same  # the letters must all be there


def test_a_heading_named_again_after_a_dash_is_the_headings_thing():
    assert compare("Towels", "Towels - towel hire").same
    assert compare("Towels \u2013 towel hire", "Towels").same  # an en dash
    # Two rows under one heading are two variants of it, not the heading twice.
    assert not compare("Haircuts - men's haircut", "Haircuts - women's haircut").same
    # A tail that does not name the heading again is a variant of it.
    assert not compare("Hair - Men", "Hair").same


def test_an_owner_answer_naming_a_fuller_subject_replaces_its_price(business):
    # "Is protein still $2 extra?" files the answer under "Protein"; the answer itself says which
    # protein thing it prices ("a protein scoop"), so the page's "Protein scoop" price is replaced.
    website("Protein scoop (whey or pea) ........ +$2.00", 0)
    owner("Is protein still $2 extra?", "Protein is $2.50 now for a protein scoop (whey or pea).", 10)
    values = [f.value for f in live_about("protein")]
    assert values == ["$2.50"], [(f.topic.name, f.statement) for f in live_about("protein")]
    (live,) = live_about("protein")
    assert live.matched_subject.get("method") == "named"


def test_a_bare_name_beside_two_of_its_variants_replaces_neither(business):
    # The table prices each package by days; a later list gives a price per package with no days: which
    # column it replaces is not the matcher's guess, however close one of them scores.
    website("| Package | Mon-Fri | Sat & Sun |\n|---|---|---|\n| Mini Bee | £175 | £210 |", 0)
    document("Mini Bee (up to 10 children) ........ £220", 10)
    values = sorted(f.value for f in live_about("mini bee"))
    assert values == ["£175", "£210", "£220"], values


def test_a_list_under_a_caption_naming_its_days_replaces_that_days_column(business):
    website("| Package | Mon-Fri | Sat & Sun |\n|---|---|---|\n| Mini Bee | £175 | £210 |", 0)
    document("Weekend parties (Sat & Sun):\nMini Bee (up to 10 children) ........ £220", 10)
    values = sorted(f.value for f in live_about("mini bee"))
    assert values == ["£175", "£220"], [(f.aspect, f.statement) for f in live_about("mini bee")]


def test_things_of_one_kind_stay_apart_whatever_qualifies_them():
    # A qualifier does not make a drink another drink, or an animal another animal; abstract heads
    # under one qualifier are one thing named loosely.
    assert not compare("hot chocolate", "coffee").same
    assert not compare("iced tea", "coffee").same
    assert compare("opening hours", "opening times").same
    assert compare("delivery area", "delivery zone").same


def test_hours_written_again_without_am_pm_change_nothing(business):
    # A leaflet's "Fri-Sat 5-11" says what the page's "5pm - 11pm" said, less plainly: the page's
    # fact stays, confirmed; new hours for the same days still replace it.
    website("Fri & Sat: 5pm - 11pm", 0)
    document("Fri-Sat 5-11 · Sun 4-10", 10)
    saturday = [f for f in Fact.objects.filter(status=FactStatus.LIVE) if f.aspect == "hours friday-saturday"]
    assert [f.statement for f in saturday] == ["Sunny Bakery is open Fri & Sat, 5pm - 11pm."]
    document("Fri-Sat 5-10", 20, ref="leaflet-2.txt")
    saturday = [f for f in Fact.objects.filter(status=FactStatus.LIVE) if f.aspect == "hours friday-saturday"]
    assert [f.value for f in saturday] == ["5-10"]
