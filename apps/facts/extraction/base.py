"""Types and the interface shared by every fact extractor.

An extractor turns one piece of source text (a part of a page, a document, an owner's answer) into
candidate fact records. It never decides precedence: the facts app compares candidates with the live
facts and applies the rules. Extractors must not infer: a day, price or policy the text does not state
is unknown.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date
from typing import Protocol

from pydantic import BaseModel, Field

from apps.language.words import noun_key

from .tables import RowCell

# One extract() call handles at most this many characters. Callers split long sources with
# apps.facts.extraction.parts.split_parts() first; a part is at most a few hundred characters, so only a
# pasted blob without paragraph breaks can reach this. Larger input raises ExtractionError.
MAX_EXTRACT_CHARS = 200_000


class Candidate(BaseModel):
    topic: str
    aspect: str
    statement: str
    valid_from: date | None = None
    valid_to: date | None = None
    value: str | None = None
    # Ids of live facts (from ExtractionContext.live_facts) that this record makes no longer true.
    # Only the LLM extractor fills it; the rules engine decides on its own when it is empty.
    replaces: list[str] = Field(default_factory=list)


class ExtractionContext(BaseModel):
    business_name: str
    source_kind: str  # "website" | "document" | "owner_answer" | "profile"
    learned_on: date
    question: str | None = None
    heading: str = ""
    existing_topics: list[str] = Field(default_factory=list)
    live_facts: list[dict[str, str]] = Field(default_factory=list)
    # The part is a priced cell of a list or table (parts.split_parts): its item, variant and value.
    row: RowCell | None = None
    # The parts just before and after this one in the same source: read-only context (what "it" or
    # "this" refers to, which product a price row is under), never extracted from.
    before: str = ""
    after: str = ""


class ExtractionError(Exception):
    """The input cannot be extracted (not text, too large) or a model returned malformed output."""


class ModelOutputError(ExtractionError):
    """A language model answered, but not with valid records (not JSON, refused, cut off, off-schema).

    Unlike bad input this is worth asking again: the caller lets the built-in extractor's records stand
    in and retries the part later, instead of treating the part as read."""


class Extractor(Protocol):
    name: str

    def extract(self, text: str, context: ExtractionContext) -> list[Candidate]: ...


def check_text(text: str, *, limit: int = MAX_EXTRACT_CHARS) -> str:
    """Return ``text`` stripped, '' for empty input; raise ExtractionError for binary junk or oversize."""
    if not isinstance(text, str):
        raise ExtractionError(f"extractor input is not text (got {type(text).__name__})")
    stripped = text.strip()
    if not stripped:
        return ""
    if len(stripped) > limit:
        raise ExtractionError(
            f"input is too large to extract in one call: {len(stripped):,} characters "
            f"(limit {limit:,}); split it into parts first"
        )
    sample = stripped[:20_000]
    if "\x00" in sample:
        raise ExtractionError("input is not text: it contains NUL bytes (binary data?)")
    bad = 0
    letters = 0
    for ch in sample:
        if ch.isalpha():
            letters += 1
            continue
        if ch in "\n\r\t":
            continue
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cs", "Co", "Cn") or ch == "\ufffd":
            bad += 1
    if bad > max(2, len(sample) // 20) or (len(sample) >= 40 and letters < len(sample) // 10):
        raise ExtractionError("input is not text: it is mostly control or non-printable characters")
    return stripped


def normalise_aspect(aspect: str) -> str:
    return re.sub(r"\s+", " ", aspect).strip().lower()


def singular(word: str) -> str:
    """A noun's singular for topic matching ("loaves" -> "loaf", "cakes" -> "cake"), by the language
    layer's dictionary."""
    return noun_key(word)


def topic_key(topic: str) -> str:
    # "Cover-ups" and "Cover ups" are one name: a hyphen joins what a space separates.
    words = re.findall(r"[\w'&+]+", topic.lower().replace("-", " "))
    return " ".join(singular(w) for w in words)


def match_topic(name: str, existing: list[str]) -> str:
    """Reuse an existing topic naming the same thing (case-insensitive, simple singular/plural)."""
    key = topic_key(name)
    if not key:
        return name
    for topic in existing:
        if topic_key(topic) == key:
            return topic
    return name
