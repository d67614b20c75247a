"""A cheap gate in front of retrieval: greetings, thanks, goodbyes and social filler get a short friendly
reply without an embedding, a search or a model call.

Seed 004: a greeting answered from an empty (or irrelevant) context block teaches the model to invent
structure, and an LLM-based gate puts its own model call in front of the first token. So this is a
heuristic, and it is deliberately biased toward retrieving: a message is gated only when *every* word in
it is social vocabulary. One word of content ("hi, are you open sunday?") sends it on to retrieval.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from apps.language.shorthand import written_out
from apps.language.wordlists import categories

GREETING_REPLY = "Hello! How can I help you today?"
HOW_ARE_YOU_REPLY = "I'm doing well, thanks for asking! How can I help you today?"
THANKS_REPLY = "You're welcome! Is there anything else I can help with?"
GOODBYE_REPLY = "Thanks for stopping by. Have a great day!"
FILLER_REPLY = "Great! Let me know if there's anything else you'd like to know."

# The social words by kind are data (apps/language/data/social.txt); the kinds are tried in the
# order goodbye > thanks > how-are-you > greeting > filler.
_TABLE = "social.txt"


@cache
def _words(kind: str) -> frozenset[str]:
    return frozenset(
        word for item in categories(_TABLE, separator="|").get(kind, ()) for word in item.split()
    )


@cache
def _phrases(kind: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(item.split()) for item in categories(_TABLE, separator="|").get(kind, ()))


@cache
def _vocabulary() -> frozenset[str]:
    every = [_words(kind) for kind in categories(_TABLE, separator="|") if kind.endswith(" words")]
    every += [frozenset(word for phrase in _phrases(kind) for word in phrase) for kind in _PHRASE_KINDS]
    return frozenset().union(*every)


_PHRASE_KINDS = ("goodbye phrases", "how are you phrases", "greeting phrases")

# Longer than this and it is almost never only social talk; the gate would rather retrieve.
_MAX_WORDS = 10


def gate(message: str) -> str | None:
    """A short friendly reply for a purely social message, or None to send it on to retrieval."""
    text = _normalise(message)
    words = re.findall(r"[a-z]+", text)
    emoji_only = not words and _has_emoji(message)
    if emoji_only:
        return THANKS_REPLY if any(ch in message for ch in "🙏❤♥😍🥰") else FILLER_REPLY
    if not words or len(words) > _MAX_WORDS:
        return None
    # Digits, currency or an @ mean content ("ok, 3 loaves", "hi $8?"): retrieve.
    if re.search(r"[0-9$£€@/]", text):
        return None
    words = written_out(" ".join(_canonical(w) for w in words)).split()  # "thank u" -> "thank you"
    if any(w not in _vocabulary() for w in words):
        return None
    present = set(words)
    if present & _words("goodbye words") or _has_any(words, "goodbye phrases"):
        return GOODBYE_REPLY
    if present & _words("thanks words"):
        return THANKS_REPLY
    if _has_any(words, "how are you phrases"):
        return HOW_ARE_YOU_REPLY
    if present & _words("greeting words") or _has_any(words, "greeting phrases"):
        return GREETING_REPLY
    if present <= _words("filler words"):
        return FILLER_REPLY
    # Only weak words from different kinds ("you there", "for the"): nothing social to answer, and
    # nothing to retrieve either, but retrieval plus the unknown reply is the honest path.
    return None


def _normalise(message: str) -> str:
    text = unicodedata.normalize("NFKC", message or "").lower()
    text = text.replace("\u2019", "'")
    # "what's", "that's", "how's": drop the apostrophe so they are one vocabulary word each.
    return re.sub(r"'", "", text)


def _canonical(word: str) -> str:
    """Collapse stretched spelling ("hiiii", "thanksss", "okkk", "coooool") onto the vocabulary.
    Written by hand: no library squeezes repeated letters towards a word list."""
    vocabulary = _vocabulary()
    if word in vocabulary:
        return word
    for repeat in (r"\1", r"\1\1"):
        squeezed = re.sub(r"(.)\1{2,}", repeat, word)
        if squeezed in vocabulary:
            return squeezed
        squeezed = re.sub(r"(.)\1+", repeat, word)
        if squeezed in vocabulary:
            return squeezed
    return word


def _has_any(words: list[str], kind: str) -> bool:
    """Whether one of the table's phrases of this kind occurs in ``words``."""
    return any(
        tuple(words[i : i + len(phrase)]) == phrase
        for phrase in _phrases(kind)
        for i in range(len(words) - len(phrase) + 1)
    )


def _has_emoji(message: str) -> bool:
    return any(unicodedata.category(ch) == "So" for ch in message)
