"""What every answerer shares: the result type, the streaming interface and the fixed wording.

An answerer turns a visitor's question plus the rendered knowledge that retrieval kept (topic documents
for the question's date) into a reply in the business's name. It never reads the fact table and never
decides confidence: the service decides whether to answer at all; the answerer may still conclude that
the context does not answer the question and say so with the unknown reply.

The fixed wording lives here so that both answerers, the service and the tests use the same sentences:
the hedging phrases a normal answer must never contain ("don't know", "no information", ...) are kept
out of every sentence in this module, including the unknown reply.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from apps.facts.selectors import RenderedTopic

Decision = Literal["answer", "unknown", "gate"]
DECISIONS: tuple[str, ...] = ("answer", "unknown", "gate")


@dataclass(frozen=True)
class Answer:
    text: str
    decision: str  # "answer" | "unknown" | "gate"
    used_fact_ids: list[int] = field(default_factory=list)
    # Things the service should log but the visitor never sees: "partial" (an unknown reply that also
    # gives related facts), "canary" (the model tried to print the system prompt's canary and was cut
    # off), "fallback:builtin" with "llm-failed:<kind>" (the model failed: no text, a cut or HTML
    # stream, a refusal, an error or a time-out; the built-in answerer spoke), "llm-interrupted" (it
    # failed after some of its text was sent: that text stays and the built-in answer follows).
    flags: tuple[str, ...] = ()


class AnswerStream(Iterator[str]):
    """Text chunks as they are produced; after exhaustion ``answer`` holds the complete result.

    The Answerer interface promises an iterator of strings (what a websocket or SSE loop needs); the
    decision and the facts used are only known once the text is complete (for a model they are derived
    from the text), so they ride on the iterator instead of a second call.
    """

    def __init__(
        self,
        chunks: Iterable[str],
        finish: Callable[[str], Answer],
        close: Callable[[], None] | None = None,
    ) -> None:
        self._chunks = iter(chunks)
        self._finish = finish
        self._close = close
        self._parts: list[str] = []
        self._answer: Answer | None = None

    def __iter__(self) -> AnswerStream:
        return self

    def __next__(self) -> str:
        if self._answer is not None:
            raise StopIteration
        try:
            chunk = next(self._chunks)
        except StopIteration:
            self._answer = self._finish("".join(self._parts))
            raise
        self._parts.append(chunk)
        return chunk

    @property
    def done(self) -> bool:
        return self._answer is not None

    @property
    def answer(self) -> Answer:
        """The final Answer; drains the stream first if the caller has not (e.g. a non-streaming API)."""
        if self._answer is None:
            for _ in self:
                pass
        assert self._answer is not None
        return self._answer

    def close(self) -> None:
        """Stop early (the visitor left): releases the model's HTTP stream if there is one."""
        if self._close is not None:
            self._close()
        closer = getattr(self._chunks, "close", None)
        if callable(closer):
            closer()


@dataclass(frozen=True)
class RetrievalHints:
    """What retrieval learned about the question that the answerer should not work out again: the
    misspelling-repaired form it searched with ("sourdogh" -> "sourdough"), each kept topic's best
    similarity to the question (or to its repaired form), by topic id, and each handed fact's own
    similarity to the question, by fact id."""

    repaired: str = ""
    similarity: dict[int, float] = field(default_factory=dict)
    fact_similarity: dict[int, float] = field(default_factory=dict)


class Answerer(Protocol):
    name: str

    def stream(
        self,
        *,
        question: str,
        history: list[tuple[str, str]],
        context: list[RenderedTopic],
        business_name: str,
        on: date,
        hints: RetrievalHints | None = None,
    ) -> AnswerStream:
        """Yield the reply in chunks. ``history`` is (role, text) with role "user" or "assistant", oldest
        first, without the current question. ``context`` is what retrieval kept, rendered for ``on``.
        ``hints`` carries retrieval's repaired question and similarities (an answerer may ignore them)."""
        ...


# --- fixed wording -----------------------------------------------------------------------------------

PASSED_ON = "so I've passed your question on to them."


def unknown_reply(business_name: str) -> str:
    """The reply when the business's knowledge does not answer the question: plain, no guess, and it
    tells the visitor the question went to the business (the service records it as a gap for the owner).
    """
    return f"{_name(business_name)} hasn't provided that information yet, {PASSED_ON}"


def partial_unknown_reply(business_name: str, *, whether: str | None = None, about: str | None = None) -> str:
    """The closing sentence when related facts were given but the question itself is not answered:
    "Sunny Bakery hasn't said whether Amex is accepted, so I've passed your question on to them."."""
    name = _name(business_name)
    if whether:
        return f"{name} hasn't said whether {whether}, {PASSED_ON}"
    if about:
        return f"{name} hasn't said anything about {about}, {PASSED_ON}"
    return f"{name} hasn't said anything more on that, {PASSED_ON}"


def is_unknown_text(text: str, business_name: str) -> bool:
    """Whether a reply (e.g. a model's) is, or ends with, the unknown wording: its decision is then
    "unknown" and the service records a gap. Compared loosely (case, spacing, quotes, apostrophes)."""
    got = _loose(text)
    return _loose(unknown_reply(business_name)) in got or _loose(PASSED_ON) in got


def _loose(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    return re.sub(r"[\s\"“”]+", " ", text).strip().lower()


def _name(business_name: str) -> str:
    name = " ".join((business_name or "").split())
    return name or "The business"


# The hedges the shared scenario forbids in answers to answerable questions. Kept here so the tests and
# the answerers check against one definition.
HEDGE_RE = re.compile(
    r"(?i)\b(don't|do not|doesn't|does not|cannot|can't) (know|say|find|tell)|\bnot (sure|known|available to me)"
    r"|no information|not have (that|this|any) information"
)


def chunk_text(text: str) -> Iterator[str]:
    """Split a finished reply into word-sized chunks (each word with its following whitespace), so a
    widget shows it progressively even when it was composed all at once."""
    for match in re.finditer(r"\S+\s*|\s+", text):
        yield match.group(0)
