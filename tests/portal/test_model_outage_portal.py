"""The owner's answer forms while the language model is down or reads nothing (issue 19; decision 0020).

Posted through the portal as an owner would, with extractor=llm pointed at a real local server
(tests.fake_model) that is stopped: never a 500; the answer is saved, live at once (the built-in
reader's records), and the owner is told it will be read again. A sentence no reader can use is
flagged on the Sources page instead of passing silently.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import timezone

from apps.portal.reading import SAVED_READ_AGAIN, SAVED_UNREAD
from tests.fake_model import ModelServer, serve_model


@pytest.fixture
def model(settings: Any) -> Iterator[ModelServer]:
    yield from serve_model(settings)


@pytest.fixture
def owner(bakery: Any) -> Any:
    return bakery.client(bakery.owner)


def test_an_owner_answer_during_an_outage_is_saved_live_and_never_a_500(
    owner: Any, in_sunny: Any, model: ModelServer
) -> None:
    from apps.facts.models import Fact, PartReading, SourcePart
    from apps.facts.selectors import knowledge_text

    model.stop()
    response = owner.post(
        "/t/sunny/sources/answers/",
        {"question": "Do you make wedding cakes?", "answer": "Yes, wedding cakes start at $250."},
        follow=True,
    )
    assert response.status_code == 200 and response.redirect_chain[0][1] == 302
    page = response.content.decode()
    assert SAVED_READ_AGAIN.split(",")[0] in page and "read again when the model is back" in page
    assert "Read by the built-in reader for now" in page  # the Sources page says so beside the answer
    with in_sunny():
        part = SourcePart.objects.get()
        assert part.reading == PartReading.RETRY
        assert Fact.objects.filter(stand_in=True, status="live").exists()
        assert "$250" in knowledge_text(on=timezone.localdate())  # visitors get it at once


def test_a_gap_answered_during_an_outage_says_it_will_be_read_again(
    owner: Any, in_sunny: Any, model: ModelServer
) -> None:
    from apps.gaps.services import gap_record

    with in_sunny():
        ticket = gap_record(question="Do you deliver?", top_similarity=0.1).ticket
    assert ticket is not None
    model.stop()
    response = owner.post(
        f"/t/sunny/gaps/{ticket.pk}/answer/",
        {"answer": "Yes, we deliver within 5 miles for $5."},
        follow=True,
    )
    assert response.status_code == 200
    assert "read again when the model is back" in response.content.decode()


def test_an_answer_with_no_detail_we_could_read_is_flagged(
    owner: Any, in_sunny: Any, model: ModelServer
) -> None:
    response = owner.post(
        "/t/sunny/sources/answers/",
        {"question": "Anything else?", "answer": "Ask Maria about that when she is in."},
        follow=True,
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert SAVED_UNREAD.split(",")[0] in page
    assert "We could not read a detail here" in page and "Ask Maria about that when she is in." in page
