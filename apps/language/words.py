"""The form two words meet on when the product asks "is this the same word?": one function for the
answerer, the knowledge rules and retrieval's confidence, instead of a suffix stripper each.

A word's key is, in order:

1. its lemma, from lemminflect's dictionary (``children`` -> ``child``, ``sold`` -> ``sell``,
   ``closing`` -> ``close``): an inflected verb form takes its verb, any other word its first noun
   lemma, else its first adjective or adverb lemma;
2. for a noun of an act or event, the verb WordNet derives it from when the two share their first
   letters (``delivery`` -> ``deliver``, ``booking`` -> ``book``, ``cancellation`` -> ``cancel``):
   a visitor asks "do you deliver?" of a fact about delivery. Nouns of persons and things keep their
   own key (``teacher`` is not ``teach``);
3. for a noun whose commonest sense is another word's commonest sense, that word (``kid`` ->
   ``child``, ``store`` -> ``shop``): WordNet's synset, shared only where both words mean it first;
4. for an adjective made from a unit of time, that unit (``hourly`` -> ``hour``, ``weekly`` ->
   ``week``): "what's your hourly rate?" asks about a fact's "first hour";
5. its American spelling, from spaCy's lexeme-norm table (``colour`` -> ``color``, ``tyre`` ->
   ``tire``, ``cheque`` -> ``check``): a visitor in one country asks about a page written in another.

Each step is a dictionary lookup, cached per word, so keying a text costs no parse. An abbreviated
unit no dictionary lists takes pint's name for it ("hrs" -> "hour"). A word none of the tables knows
(a brand, a misspelling, a number) is its own key, lower-cased.
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from typing import Any

from apps.language.lexicon import event_verb, synonym_head, time_noun
from apps.language.units import unit_name

__all__ = ["american", "form_key", "noun_key", "without_notes", "word_key"]

logger = logging.getLogger(__name__)


@lru_cache(maxsize=65536)
def word_key(word: str) -> str:
    """The key ``word`` meets other forms of itself on (see the module docstring)."""
    lemma = _base(word)
    if not lemma.isalpha():
        return lemma
    return american(event_verb(lemma) or synonym_head(lemma) or time_noun(lemma) or lemma)


@lru_cache(maxsize=65536)
def form_key(word: str) -> str:
    """Step 1 of ``word_key`` only, the lemma: the inflections of one word meet ("charged",
    "charges" -> "charge"), but no derivation, synonym or spelling norm joins two words, for tables
    of trigger words where that would join two triggers ("cheque" is not "check", an "opener" is
    not "open")."""
    return _base(word)


def _base(word: str) -> str:
    """The word's lemma (step 1), or the word as written when it is no word (a number, a code)."""
    w = word.lower().replace("\u2019", "'").strip("'")
    if w.endswith("'s"):
        w = w[:-2]
    if not w.isalpha():
        return w  # a number, a code, a hyphenated or joined form: compared as written
    lemma = _lemma(w)
    if lemma == w and not _known(w):
        if (unit := unit_name(w)) is not None:
            return unit  # an abbreviated unit no dictionary lists: "hrs" is "hour", "mins" "minute"
        lemma = _plural_rules(w)  # a plural no dictionary lists: "cleanings", "cappuccinos"
    if lemma != w:
        lemma = _lemma(lemma)  # "piercings" -> "piercing" -> "pierce", as "piercing" is
    return lemma


@lru_cache(maxsize=65536)
def noun_key(word: str) -> str:
    """A noun's singular in American spelling ("loaves" -> "loaf", "Tyres" -> "tire"), for comparing
    names: unlike ``word_key``, a noun keeps its own meaning ("Bookings" is not "Books")."""
    w = word.lower().replace("\u2019", "'").strip("'")
    if not w.isalpha():
        return w
    # Lazy: lemminflect imports spaCy, which the language layer loads anyway, never at start-up.
    import lemminflect

    nouns = lemminflect.getAllLemmas(w).get("NOUN", ())
    return american(nouns[0].lower() if nouns else w)


def _known(word: str) -> bool:
    import lemminflect  # lazy, as in _lemma

    return bool(lemminflect.getAllLemmas(word))


def _plural_rules(word: str) -> str:
    import lemminflect  # lazy, as in _lemma

    nouns = lemminflect.getAllLemmasOOV(word, "NOUN").get("NOUN", ())
    return nouns[0].lower() if nouns else word


def _lemma(word: str) -> str:
    # Lazy: lemminflect imports spaCy; the language layer loads it anyway, but never at start-up.
    import lemminflect

    lemmas: dict[str, tuple[str, ...]] = lemminflect.getAllLemmas(word)
    verb = lemmas.get("VERB", ()) + lemmas.get("AUX", ())
    if verb and verb[0] != word:
        return verb[0].lower()  # an inflected verb: "closing", "sold", "was"
    for pos in ("NOUN", "VERB", "ADJ", "ADV", "PROPN"):
        if lemmas.get(pos):
            return lemmas[pos][0].lower()
    return word


@lru_cache(maxsize=65536)
def american(word: str) -> str:
    """A lower-case word in its American spelling ("colour" -> "color"), nothing else changed; also
    for keys made of several words, where each word's spelling must meet the other country's."""
    norms = _norm_table()
    return str(norms.get(word, word)) if norms is not None else word


@lru_cache(maxsize=1)
def _norm_table() -> Any:
    from apps.language.pipeline import nlp  # the pinned pipeline carries the table; loaded once

    try:
        return nlp().vocab.lookups.get_table("lexeme_norm")
    except KeyError:  # a pipeline without the table: spellings are compared as written
        logger.warning("The spaCy pipeline has no lexeme_norm table; British and American spellings differ")
        return None


#: A note in brackets ("(whey or pea)", "(Sat & Sun)").
_NOTE = re.compile(r"\s*\([^)]*\)")


def note_spans(text: str) -> list[tuple[int, int]]:
    """Where a text's notes in brackets are, as (start, end) offsets."""
    return [(m.start(), m.end()) for m in _NOTE.finditer(text)]


def without_notes(text: str) -> str:
    """A text without its notes in brackets ("Class schedule (main studio)" -> "Class schedule")."""
    return _NOTE.sub("", text).strip()
