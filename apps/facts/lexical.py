"""Content words: the lexical signal beside the vector one.

Used by the rules (whether two owner answers to yes/no questions are about the same thing), by
retrieval's confidence (how much of what the visitor asked the kept knowledge actually mentions) and by
gap merging (two questions about the same things). It lives in the lowest app that needs it. Words
meet on the language layer's key (lemma, derivation, spelling), as they do in the answerer.
"""

from __future__ import annotations

import re

from apps.language.words import word_key

STOP_WORDS = frozenset(
    "a an the do does did doing you your yours we our ours us i me my mine is are was were be been being "
    "can could would will shall should may might must have has had having there their theirs they them "
    "it its of for to in on at by with from and or but if so than then any some near what when where "
    "which who whom whose why how much many this that these those please about get got tell know like "
    "want need also just there's what's it's i'm you're we're don't doesn't isn't aren't not no yes "
    "ok okay thanks thank hi hello hey really very more most other another all each every one same "
    "such only own into over under again further once here up down out off".split()
)
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def stem(word: str) -> str:
    """The key a word meets its other forms on (the language layer's: lemma, derivation, spelling)."""
    return word_key(word)


def content_words(text: str) -> set[str]:
    """Stemmed words that carry meaning: no stop words, no one- or two-letter words."""
    return {stem(w) for w in _WORD.findall(text.lower()) if w not in STOP_WORDS and len(w) >= 3}


def coverage(question: str, passage: str) -> float:
    """Share of the question's content words found in the passage (0 when the question has none)."""
    asked = content_words(question)
    if not asked:
        return 0.0
    return len(asked & content_words(passage)) / len(asked)


def overlap(a: str, b: str) -> float:
    """Shared content words over the smaller side's (1.0: one question's words are all in the other)."""
    left, right = content_words(a), content_words(b)
    if not left or not right:
        return 0.0
    return len(left & right) / min(len(left), len(right))
