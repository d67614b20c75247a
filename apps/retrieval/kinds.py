"""The kind-of-fact leg (seed 003): which kind of information a message asks for, in the plain words
a document would use as a heading, with the subject left out.

"How much is the sourdough?" asks for *prices*; the sourdough is the subject. A vector search on the
whole question is pulled towards the subject's own passage, so retrieval also searches for the kind
on its own ("prices"), which finds a price list that names the product only in passing.

The table is data (apps/language/data/kinds.txt): kind -> the words and phrases that ask for it,
compared by the language layer's word forms (``form_key``), so one form of a word stands for all of its forms
("charge" for "charged" and "charges", "deliver" for "delivery"). When several kinds match, the
first kind in table order wins.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache

from apps.language.wordlists import categories
from apps.language.words import form_key

__all__ = ["KINDS", "TIME_LIMITED_KIND", "kind_of_fact", "kinds_of_fact", "without_kind_words"]

_TABLE = "kinds.txt"
_NOT = "not"  # the table's line of subjects that are no kind of question

# Words as the table and a message are compared: letters and digits, so that "wi-fi", "24/7" and
# "e-mail" are the phrases "wi fi", "24 7" and "e mail".
_WORD = re.compile(r"[^\W_]+")

KINDS: Mapping[str, tuple[str, ...]] = {
    kind: phrases for kind, phrases in categories(_TABLE, separator="|").items() if kind != _NOT
}

Phrase = tuple[str, ...]


def _keyed(phrase: str) -> Phrase:
    return tuple(form_key(word) for word in _WORD.findall(phrase.lower()))


@cache
def _keyed_table() -> tuple[dict[str, frozenset[Phrase]], frozenset[Phrase]]:
    """Each kind's phrases and the excluded subjects, by word key (keyed on first use: word keys
    read lemminflect and WordNet, which are loaded lazily)."""
    kinds = {kind: frozenset(_keyed(p) for p in phrases) for kind, phrases in KINDS.items()}
    excluded = frozenset(_keyed(p) for p in categories(_TABLE, separator="|").get(_NOT, ()))
    return kinds, excluded


def _spans(keys: list[str], phrases: frozenset[Phrase]) -> list[tuple[int, int]]:
    """Where any of ``phrases`` occurs in ``keys``, as (start, end) word positions."""
    longest = max((len(p) for p in phrases), default=0)
    return [
        (start, start + size)
        for start in range(len(keys))
        for size in range(1, longest + 1)
        if tuple(keys[start : start + size]) in phrases
    ]


def _words(message: str) -> tuple[list[str], list[str]]:
    """The message's words and their keys, without the excluded subjects ("gift card")."""
    words = _WORD.findall(message.lower().replace("\u2019", "'"))
    keys = [form_key(w) for w in words]
    _, excluded = _keyed_table()
    for start, end in reversed(_spans(keys, excluded)):
        del words[start:end], keys[start:end]
    return words, keys


def kinds_of_fact(message: str) -> list[str]:
    """Every kind the message triggers, in priority order."""
    _, keys = _words(message)
    kinds, _ = _keyed_table()
    return [kind for kind, phrases in kinds.items() if _spans(keys, phrases)]


def kind_of_fact(message: str) -> str | None:
    """The kind of information asked for ("prices", "opening hours", ...), or None."""
    found = kinds_of_fact(message)
    return found[0] if found else None


# The kind whose facts hold only for a while ("a spring offer until 30 September"): a question about
# it asks what is in force on its day, so retrieval also searches the facts dated that way.
TIME_LIMITED_KIND = "offers"

# Kinds that say what is asked about a subject, never the subject itself ("parking" or "delivery" can
# be the whole subject of a question; "how much" or "open" cannot).
ASKED_KINDS = ("notice", "prices", "opening hours")


def without_kind_words(message: str, kinds: tuple[str, ...] = ASKED_KINDS) -> str:
    """The message's words without those that ask for these kinds ("how much is it?" -> "is it")."""
    words, keys = _words(message)
    table, _ = _keyed_table()
    asked = {i for kind in kinds for start, end in _spans(keys, table[kind]) for i in range(start, end)}
    return " ".join(word for i, word in enumerate(words) if i not in asked)
