"""The social gate: friendly replies without retrieval for purely social messages, None for anything
with content (the gate is biased toward retrieving)."""

from __future__ import annotations

import pytest

from apps.chat.answering.base import HEDGE_RE
from apps.chat.answering.gate import (
    FILLER_REPLY,
    GOODBYE_REPLY,
    GREETING_REPLY,
    HOW_ARE_YOU_REPLY,
    THANKS_REPLY,
    gate,
)


@pytest.mark.parametrize(
    "message",
    ["hi", "Hi!", "hello there", "Hello?", "hey", "heyyy", "hiii :)", "good morning", "Good evening!", "Howdy",
     "hi there!", "Hey guys", "yo", "hello anyone there?", "Bonjour", "  HELLO  "],
)  # fmt: skip
def test_greetings(message: str) -> None:
    assert gate(message) == GREETING_REPLY


@pytest.mark.parametrize(
    "message",
    ["thanks!", "Thank you so much", "thx", "ty", "thanks a lot", "ok thanks", "great, thanks for the help",
     "Cheers!", "much appreciated", "thank u", "Thanksss", "thank you very much 🙏", "🙏"],
)  # fmt: skip
def test_thanks(message: str) -> None:
    assert gate(message) == THANKS_REPLY


@pytest.mark.parametrize(
    "message",
    ["bye", "Goodbye!", "see you", "see ya later", "take care", "have a nice day", "good night",
     "thanks, bye!", "ok bye", "that's all for now, bye"],
)  # fmt: skip
def test_goodbyes(message: str) -> None:
    assert gate(message) == GOODBYE_REPLY


@pytest.mark.parametrize(
    "message", ["how are you?", "hi, how are you doing today?", "what's up", "How's it going?"]
)
def test_how_are_you(message: str) -> None:
    assert gate(message) == HOW_ARE_YOU_REPLY


@pytest.mark.parametrize(
    "message",
    ["ok", "OK.", "okay", "cool", "great", "Great!", "👍", "nice", "got it", "sounds good", "perfect", "lol",
     "i see", "alright", "😊", "k", "okkk", "cooool", "makes sense", "no problem"],
)  # fmt: skip
def test_filler(message: str) -> None:
    assert gate(message) == FILLER_REPLY


@pytest.mark.parametrize(
    "message",
    [
        "hi, are you open sunday?",
        "hello, how much is the sourdough?",
        "thanks! and do you deliver?",
        "ok what about saturdays",
        "good morning, are you open today",
        "great, can I pay by card?",
        "hours?",
        "sourdough",
        "price",
        "bye? are you closing at 3",
        "yes",
        "no, the other one",
        "Is that all you sell?",
        "thanks for the info on delivery",
        "ok, 3 loaves please",
        "hi $8?",
        "how are your prices",
        "say that again, shorter",
        "hello " * 20,
        "",
        "   ",
        "?",
        "are you there",
    ],
)
def test_anything_with_content_goes_to_retrieval(message: str) -> None:
    assert gate(message) is None


def test_replies_are_short_and_never_hedge() -> None:
    for reply in (GREETING_REPLY, HOW_ARE_YOU_REPLY, THANKS_REPLY, GOODBYE_REPLY, FILLER_REPLY):
        assert len(reply) < 80 and not HEDGE_RE.search(reply)
