"""Misspelling repair against a business's own vocabulary, for retrieval.

When a message retrieves poorly, a likely cause is a misspelt key word ("sourdogh", "resevation").
The correcting is the language layer's (apps.language.spelling.Speller: symspellpy over the
business's words, symspellpy's English frequency dictionary and lemminflect for "is this a real
word", split and joined forms, case kept); this module only adapts it to what retrieval keeps per
business and index generation (apps.retrieval.search._vocabulary) and to the result retrieval
reads. It used to hold its own matcher (rapidfuzz, a stemmer and a list of about 1,000 common
words); the speller corrects the same planted misspellings (decision 0011) without them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from apps.language.spelling import Speller, max_edits

__all__ = ["RepairResult", "Vocabulary", "max_edits"]


@dataclass(frozen=True)
class RepairResult:
    text: str
    corrections: list[tuple[str, str]] = field(default_factory=list)  # (as written, as corrected)

    @property
    def changed(self) -> bool:
        return bool(self.corrections)


class Vocabulary:
    """One business's words, as the speller that corrects messages towards them."""

    def __init__(self, speller: Speller) -> None:
        self.speller = speller

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> Vocabulary:
        """The words of a business's knowledge texts (see ``Speller.from_texts``)."""
        return cls(Speller.from_texts(list(texts)))

    @property
    def counts(self) -> dict[str, int]:
        return self.speller.counts

    def __len__(self) -> int:
        return len(self.speller)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.lower() in self.speller.counts

    def repair(self, message: str) -> RepairResult:
        """Correct likely misspellings in ``message`` towards this vocabulary."""
        corrected = self.speller.correct(message)
        return RepairResult(corrected.text, list(corrected.corrections))
