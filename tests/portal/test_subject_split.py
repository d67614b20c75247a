"""The owner sees a merge by meaning on the topic page and splits it with the button there."""

from __future__ import annotations

from apps.facts.extraction.builtin import BuiltinExtractor


def test_the_topic_page_shows_the_merge_and_its_split_button_splits(bakery, in_sunny):
    from apps.facts.models import Fact, FactStatus
    from apps.facts.services import owner_answer_record, source_ingest

    with in_sunny():
        source_ingest(
            kind="website",
            ref="https://sunny.example/",
            content="Gift vouchers are available for $25.",
            extractor=BuiltinExtractor(),
        )
        owner_answer_record(
            question="How much are gift cards?", answer="They are $30.", extractor=BuiltinExtractor()
        )
        merged = Fact.objects.get(status=FactStatus.LIVE, value="$30")
    client = bakery.client(bakery.owner)
    page = client.get(f"/t/sunny/knowledge/topics/{merged.topic_id}/").content.decode()
    assert "treated as the same subject as" in page and "similarity" in page
    assert f"/t/sunny/knowledge/facts/{merged.pk}/split/" in page

    assert client.post(f"/t/sunny/knowledge/facts/{merged.pk}/split/", {"reason": ""}).status_code == 302
    with in_sunny():
        assert Fact.objects.get(pk=merged.pk).status == FactStatus.LIVE  # no reason, no split

    response = client.post(
        f"/t/sunny/knowledge/facts/{merged.pk}/split/", {"reason": "Cards are not vouchers."}
    )
    assert response.status_code == 302
    with in_sunny():
        live = sorted(Fact.objects.filter(status=FactStatus.LIVE).values_list("value", flat=True))
        assert live == ["$25", "$30"]
        assert Fact.objects.get(pk=merged.pk).status == FactStatus.RETIRED
    assert "Split:" in client.get(response["Location"]).content.decode()


def test_the_disagreements_page_shows_a_match_and_splits_it(bakery, in_sunny):
    from apps.facts.models import Disagreement, Fact, FactStatus
    from apps.facts.services import owner_answer_record, source_ingest

    with in_sunny():
        owner_answer_record(
            question="How much are gift cards?", answer="They are $30.", extractor=BuiltinExtractor()
        )
        source_ingest(
            kind="document", ref="flyer.txt", content="Gift vouchers cost $20.", extractor=BuiltinExtractor()
        )
        disagreement = Disagreement.objects.get()
    client = bakery.client(bakery.owner)
    page = client.get("/t/sunny/knowledge/disagreements/").content.decode()
    assert "treated as the same subject as" in page
    assert f"/t/sunny/knowledge/disagreements/{disagreement.pk}/split/" in page
    assert client.post(f"/t/sunny/knowledge/disagreements/{disagreement.pk}/split/").status_code == 302
    with in_sunny():
        assert sorted(Fact.objects.filter(status=FactStatus.LIVE).values_list("value", flat=True)) == [
            "$20",
            "$30",
        ]
