"""Misspelling repair for retrieval: the language layer's speller over one business's knowledge.

"sourdogh" is corrected to the business's "sourdough", "wifi" to its "wi-fi", "checkin" to its
"check-in" (rules in apps/language/spelling.py). What retrieval sets is which English words are
never corrected: only the commonest ones (``REPAIR_ENGLISH_MIN_COUNT``), where the answerer's
speller leaves every dictionary word alone. A visitor writes the commonest words on purpose; a
rarer real word a letter or two from one of the business's words is a slip for it often enough
to try ("margarita pizza" at a pizzeria that writes "Margherita"), and retrieval keeps the repaired
search only when it matches better than the message's own.
"""

from __future__ import annotations

from collections.abc import Iterable

from apps.language.spelling import Correction, Speller

__all__ = ["REPAIR_ENGLISH_MIN_COUNT", "misspelt", "repair_speller"]

#: Words of symspellpy's English frequency dictionary seen at least this often (about the 10,000
#: commonest) are never corrected by retrieval's repair. Measured on the planted-misspelling set of
#: tests/retrieval/test_repair.py: 0.902 corrected at 1M or 4M, 0.894 at the speller's own 50,000,
#: the same 6 of 1,950 words changed in unmodified questions at each; 4M, not 1M, so that a word
#: like "margarita" (1.6M) is still a candidate for a business's "margherita".
REPAIR_ENGLISH_MIN_COUNT = 4_000_000


def repair_speller(texts: Iterable[str]) -> Speller:
    """The speller of a business whose knowledge is ``texts`` (topic names and piece texts)."""
    return Speller.from_texts(texts, english_min_count=REPAIR_ENGLISH_MIN_COUNT)


def misspelt(correction: Correction) -> bool:
    """Whether a correction replaced a word, not only joined two ("check in" -> "check-in"): a
    replaced word is one neither the business nor common English knows."""
    return any(" " not in original and "-" not in original for original, _ in correction.corrections)
