"""Misspelling correction towards a business's own vocabulary, on symspellpy.

    speller = Speller(["sourdough", "rye", "delivery", "wi-fi", ...])
    speller.correct("how much is the sourdogh").text   # "how much is the sourdough"

- Candidates come from a SymSpell index of the business's words (symmetric-delete lookup, optimal
  string alignment distance: a swap of two letters is one edit) within a length-aware budget:
  nothing under 4 letters, 1 edit for 4-5 letters, 2 for 6 or more; ties go to the more frequent
  word. A candidate must start with the same letter (or be a swap of the first two).
- "Is this a real word" is symspellpy's shipped English frequency dictionary (82,765 words) above
  a minimum count, plus lemminflect's lemmas and inflections, so "opening" (open), "booked"
  (book) and "parties" (party) are known and left alone; a real word is never corrected.
- An English word closer than every business word blocks the correction (the writer may well have
  meant it), unless it is the stem of a business word ("delver" -> "deliver" for a business that
  writes "delivery").
- Joined and hyphenated forms map to the vocabulary's form: "wifi" / "wi fi" -> "wi-fi",
  "checkin" -> "check-in"; and a glued pair of business words is split ("giftcard" -> "gift card").
- URLs, e-mail addresses, numbers, acronyms and contractions are left alone; the case of the
  original word is kept.

Written by hand (no library does it): the budget, the first-letter rule, the blocking rule, the
joined forms and the case keeping. Two callers: the built-in answerer (every dictionary word left
alone) and retrieval's repair (apps/retrieval/repair.py: only the commonest English words left alone).
"""

from __future__ import annotations

import importlib.resources
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from string import ascii_lowercase
from typing import Any

from symspellpy import SymSpell, Verbosity

from apps.language.lexicon import sense_mates
from apps.language.pipeline import nlp

__all__ = ["ENGLISH_MIN_COUNT", "Correction", "Speller", "english_words", "max_edits", "splice"]

#: Words of the English frequency dictionary seen at least this often count as real words. Rarer
#: entries are mostly misspellings or obscure words ("delver": 14,044); 50,000 keeps about 64,600.
ENGLISH_MIN_COUNT = 50_000
_MIN_LETTERS = 3  # vocabulary words shorter than this are ignored
_MIN_CORRECTABLE = 4  # message words shorter than this are never corrected
_DICTIONARY = "frequency_dictionary_en_82_765.txt"


@dataclass(frozen=True)
class Correction:
    text: str
    corrections: tuple[tuple[str, str], ...] = ()  # (as written, as corrected)

    @property
    def changed(self) -> bool:
        return bool(self.corrections)


def max_edits(length: int) -> int:
    """Edit budget for a word of ``length`` letters: 0 under 4, 1 for 4-5, 2 for 6 or more."""
    if length < _MIN_CORRECTABLE:
        return 0
    return 1 if length <= 5 else 2


@cache
def english_words(min_count: int = ENGLISH_MIN_COUNT) -> frozenset[str]:
    """The words of symspellpy's English frequency dictionary seen at least ``min_count`` times."""
    path = importlib.resources.files("symspellpy") / _DICTIONARY
    known: set[str] = set()
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            word, _, count = line.partition(" ")
            if count and int(count) >= min_count:
                known.add(word)
    return frozenset(known)


def _edits1(word: str) -> set[str]:
    """Every string one edit (delete, swap, replace, insert) from ``word``: a few hundred, so a
    membership test against the English words replaces a second SymSpell index of 64,000 words
    (2.2 s and about 100 MB to build)."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    deletes = {a + b[1:] for a, b in splits if b}
    swaps = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    replaces = {a + c + b[1:] for a, b in splits if b for c in ascii_lowercase}
    inserts = {a + c + b for a, b in splits for c in ascii_lowercase}
    return deletes | swaps | replaces | inserts


def _words_of(doc: Any) -> Iterator[tuple[str, bool]]:
    """(lowercased word, followed by one space) for each word of a tokenised text; spaCy splits
    "gluten-free" at the hyphen, so hyphenated words are joined back."""
    index = 0
    while index < len(doc):
        token = doc[index]
        if not token.is_alpha:
            index += 1
            continue
        word, end = token.lower_, index
        while (
            end + 2 < len(doc)
            and not doc[end].whitespace_
            and doc[end + 1].text == "-"
            and not doc[end + 1].whitespace_
            and doc[end + 2].is_alpha
        ):
            word, end = f"{word}-{doc[end + 2].lower_}", end + 2
        yield word, doc[end].whitespace_ == " " and end + 1 < len(doc) and doc[end + 1].is_alpha
        index = end + 1


def splice(text: str, edits: Iterable[tuple[int, int, str]]) -> str:
    """``text`` with each (start, end, replacement) edit applied; edits are in order and apart."""
    out: list[str] = []
    position = 0
    for start, end, replacement in edits:
        out.append(text[position:start])
        out.append(replacement)
        position = end
    out.append(text[position:])
    return "".join(out)


def _match_case(original: str, replacement: str) -> str:
    if len(original) > 1 and original.isupper():
        return replacement.upper()
    if original[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


def _lemmas(word: str) -> set[str]:
    # Lazy: lemminflect imports spaCy (about 2 s); only a speller being built or asked needs it.
    from lemminflect import getAllLemmas, getAllLemmasOOV

    found = {lemma for forms in getAllLemmas(word).values() for lemma in forms}
    if not found:
        found = {lemma for forms in getAllLemmasOOV(word, "NOUN").values() for lemma in forms}
    return found


class Speller:
    """Corrects text towards one business's vocabulary (words, or word -> frequency)."""

    def __init__(
        self,
        vocabulary: Iterable[str] | Mapping[str, int],
        *,
        pairs: Iterable[tuple[str, str]] = (),
        english_min_count: int = ENGLISH_MIN_COUNT,
    ):
        """``pairs`` are adjacent words the business writes apart ("check in"): a visitor's
        "checkin" is split into them, and their "check in" is not joined."""
        self.pairs = frozenset((a.lower(), b.lower()) for a, b in pairs)

        counts: Counter[str] = Counter()
        if isinstance(vocabulary, Mapping):
            for word, n in vocabulary.items():
                counts[str(word).lower()] += int(n)
        else:
            counts.update(str(w).lower() for w in vocabulary)
        self.counts = {w: n for w, n in counts.items() if len(w.replace("-", "")) >= _MIN_LETTERS}
        self.english = english_words(english_min_count)
        # Spelling without hyphens or spaces -> the vocabulary's own form ("wifi" -> "wi-fi").
        self._canonical: dict[str, str] = {}
        for word in sorted(self.counts, key=lambda w: (-self.counts[w], w)):
            self._canonical.setdefault(word.replace("-", "").replace(" ", ""), word)
        # A prefix of 5 (symspellpy's default is 7) indexes a word in a quarter of the time, with
        # the same results: candidates are checked on the whole word.
        self._index = SymSpell(max_dictionary_edit_distance=2, prefix_length=5)
        self._known: set[str] = set()
        for word, n in self.counts.items():
            for part in word.replace("-", " ").split():
                self._known.add(part)
                if part.isalpha():
                    self._index.create_dictionary_entry(part, n)
                    for lemma in _lemmas(part) - {part}:  # "reservations" also offers "reservation"
                        self._index.create_dictionary_entry(lemma, n)
                        self._known.add(lemma)

    @classmethod
    def from_texts(cls, texts: Iterable[str], **options: int) -> Speller:
        """A speller from a business's knowledge texts: every word of 3+ letters, a hyphenated word
        whole and by part ("gluten-free", "gluten", "free"), and the pairs of adjacent words."""
        counts: Counter[str] = Counter()
        pairs: set[tuple[str, str]] = set()
        tokenizer = nlp().tokenizer
        for text in texts:
            previous: str | None = None
            for word, spaced in _words_of(tokenizer(text)):
                counts[word] += 1
                parts = word.split("-")
                if len(parts) > 1:
                    counts.update(parts)
                if previous is not None:
                    pairs.add((previous, parts[0]))
                previous = parts[-1] if spaced else None
        return cls(counts, pairs=pairs, **options)

    def __len__(self) -> int:
        return len(self.counts)

    def known(self, word: str) -> bool:
        """True when ``word`` (lowercase) is a business word, an English word, or an inflection of
        either ("opening", "booked", "sourdoughs", and "cake" for a business that writes "cakes"):
        the word's lemmas are compared with the vocabulary's words and lemmas."""
        if word in self._known or word in self.english:
            return True
        return any(lemma in self._known or lemma in self.english for lemma in _lemmas(word))

    def closest(self, word: str) -> str | None:
        """The best business word within the edit budget, or None (see the module's rules)."""
        budget = max_edits(len(word))
        if budget == 0:
            return None
        suggestions = self._index.lookup(word, Verbosity.ALL, max_edit_distance=budget)
        eligible = [
            s
            for s in suggestions
            if s.term[0] == word[0]
            or (s.distance == 1 and s.term[:2] == word[1::-1] and s.term[2:] == word[2:])
        ]
        if not eligible:
            return None
        best = min(eligible, key=lambda s: (s.distance, -s.count, s.term))
        if best.distance > 1:
            closer = sorted(w for w in _edits1(word) if w in self.english)
            if closer:
                # A closer real word blocks, unless it is the stem of a business word.
                stems = [
                    w for w in closer if any(b.startswith(w) and b != w for b in self._known if b[0] == w[0])
                ]
                return stems[0] if stems else None
        return str(best.term)

    def correct(self, text: str) -> Correction:
        """``text`` with likely misspellings corrected towards the vocabulary."""
        doc = nlp().tokenizer(text)
        edits: list[tuple[int, int, str]] = []  # (start, end, replacement)
        corrections: list[tuple[str, str]] = []
        index = 0
        while index < len(doc):
            token = doc[index]
            following = doc[index + 1] if index + 1 < len(doc) else None
            joined = self._joined(token, following)
            if joined is not None and following is not None:
                original = text[token.idx : following.idx + len(following.text)]
                edits.append((token.idx, following.idx + len(following.text), joined))
                corrections.append((original, joined))
                index += 2
                continue
            replacement = self._fix(token.text) if self._correctable(token) else None
            if replacement is not None:
                edits.append((token.idx, token.idx + len(token.text), replacement))
                corrections.append((token.text, replacement))
            index += 1
        if not edits:
            return Correction(text)
        return Correction(splice(text, edits), tuple(corrections))

    def in_own_words(self, text: str) -> Correction:
        """``text`` with each noun the business never writes replaced by a name WordNet gives the
        same sense that it does write ("price of zucchini" -> "price of courgette" for a shop that
        writes "Courgettes", "diapers" -> "nappy"). Words the business writes, stop words and words
        under four letters stay."""
        doc = nlp().tokenizer(text)
        edits: list[tuple[int, int, str]] = []
        corrections: list[tuple[str, str]] = []
        for token in doc:
            lower = token.lower_
            if not self._correctable(token) or token.is_stop or len(lower) < _MIN_CORRECTABLE:
                continue
            if lower in self._known or _lemmas(lower) & self._known:
                continue
            mate = next(
                (
                    m
                    for lemma in sorted(_lemmas(lower) | {lower})
                    for m in sense_mates(lemma)
                    if m in self._known
                ),
                None,
            )
            if mate is not None:
                edits.append((token.idx, token.idx + len(token.text), _match_case(token.text, mate)))
                corrections.append((token.text, mate))
        if not edits:
            return Correction(text)
        return Correction(splice(text, edits), tuple(corrections))

    @staticmethod
    def _correctable(token: object) -> bool:
        # Lazy: importing spaCy costs about 2 s; a token passed in means the pipeline has loaded it.
        from spacy.tokens import Token

        assert isinstance(token, Token)
        return token.is_alpha and not (token.like_url or token.like_email)

    def _joined(self, token: object, following: object) -> str | None:
        """The vocabulary's one-word form of two adjacent words ("wi fi" -> "wi-fi")."""
        # Lazy: importing spaCy costs about 2 s; see _correctable.
        from spacy.tokens import Token

        if not isinstance(token, Token) or not isinstance(following, Token):
            return None
        if not (token.is_alpha and following.is_alpha) or token.whitespace_ != " ":
            return None
        pair = f"{token.lower_}{following.lower_}"
        canonical = self._canonical.get(pair)
        if (
            canonical is None
            or len(pair) < _MIN_CORRECTABLE
            or canonical == f"{token.lower_} {following.lower_}"
        ):
            return None
        if (token.lower_, following.lower_) in self.pairs:
            return None  # the business also writes them apart
        if "-" not in canonical and self.known(token.lower_) and self.known(following.lower_):
            return None  # "every day" stays two words even for a business that writes "everyday"
        return _match_case(token.text, canonical)

    def _fix(self, word: str) -> str | None:
        lower = word.lower()
        if len(lower) < _MIN_CORRECTABLE or lower in self._known:
            return None
        canonical = self._canonical.get(lower)
        if canonical is not None and canonical != lower:  # "wifi" -> "wi-fi", "checkin" -> "check-in"
            return _match_case(word, canonical)
        for cut in range(2, len(lower) - 1):  # "checkin" -> "check in" when the business writes that
            if (lower[:cut], lower[cut:]) in self.pairs and max(cut, len(lower) - cut) >= _MIN_LETTERS:
                return _match_case(word, f"{lower[:cut]} {lower[cut:]}")
        if self.known(lower) or (word.isupper() and len(word) <= 5):
            return None  # a real word, or an acronym the business does not use (AMEX, NHS)
        for cut in range(_MIN_LETTERS, len(lower) - _MIN_LETTERS + 1):
            left, right = lower[:cut], lower[cut:]
            if left in self.counts and right in self.counts:  # "giftcard" -> "gift card"
                return _match_case(word, f"{left} {right}")
        closest = self.closest(lower)
        if closest is None or closest == lower:
            return None
        return _match_case(word, closest)
