"""Hesitations and opening pleasantries are not what the visitor asks about."""

from __future__ import annotations

import pytest

from apps.retrieval.search import RetrievalOptions, retrieve, without_fillers
from tests.retrieval.test_search import TODAY, kb, topics  # noqa: F401 - the fixture is used by name


@pytest.mark.parametrize(
    ("said", "asked"),
    [
        ("ok great thanks, and do you deliver?", "do you deliver?"),
        ("Hmm, what time do you open?", "what time do you open?"),
        ("perfect umm by the way do you know if they have parking", "do you know if they have parking"),
        ("uh so is the sourdough vegan", "is the sourdough vegan"),
        ("Thanks!", "Thanks!"),  # nothing else: left as it was
        ("Okay", "Okay"),
        ("Good morning, are you open today?", "Good morning, are you open today?"),  # not an opener list
        ("Is the great hall available?", "Is the great hall available?"),  # "great" only at the start
    ],
)
def test_fillers_are_removed_and_nothing_else(said, asked):
    assert without_fillers(said) == asked


def test_a_chatty_message_retrieves_like_the_plain_question(kb):  # noqa: F811
    chatty = retrieve("ok perfect thanks umm and uh is there parking", on=TODAY)
    plain = retrieve("is there parking", on=TODAY)
    assert topics(chatty)[0] == topics(plain)[0] == "Parking"
    assert chatty.log["variants"][0]["query"] == "is there parking"
    raw = retrieve(
        "ok perfect thanks umm and uh is there parking",
        on=TODAY,
        options=RetrievalOptions(clean_fillers=False),
    )
    assert raw.top_similarity < chatty.top_similarity
