"""Whether two subject names (topics, or aspects) name the same thing: by meaning, not by key.

The rules (apps.facts.services) treat a candidate as being about the same subject as a live fact
when their topic and aspect keys are equal. Sources name one thing in several ways ("gift vouchers"
and "gift cards", "cleaning" and "routine cleaning", "exam" and "check-up"), and a key compares
spellings. This module compares two names with two signals:

- **Head nouns** (lemmatised, from the spaCy parse of apps.language): the head and the words that
  qualify it. Equal heads and equal qualifiers are the same subject ("brake pads" / "brake pad",
  "kids' haircuts" / "kid haircut"). A qualifier only one side has, or two different qualifiers,
  name a *variant* and keep the two apart ("small pizza" / "large pizza", "car parking" / "bike
  parking", "hours sunday" / "hours saturday", "30-minute massage" / "60-minute massage"): a
  variant is exactly what a qualifier is for, and the embedding cannot see that (MiniLM puts
  "small pizza" and "large pizza" at 0.87, above "gift vouchers" / "gift cards" at 0.72).
- **Meaning** (a text-similarity provider, the embedding model in the process): two names whose
  heads differ ("voucher" / "card") are the same subject when their similarity reaches the
  provider's calibrated threshold and their qualifiers do not mark a variant.

Layering: facts sits below retrieval, which owns the embedding model. Facts only defines the
provider's shape (``SimilarityProvider``) and where it is registered (``set_similarity``); retrieval
registers its provider when the app is ready. With no provider (a unit test of facts alone, a
process without retrieval) names are compared by head nouns only: synonyms with different heads are
then not matched.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from apps.facts.extraction.base import singular
from apps.language import lexicon
from apps.language.pipeline import parse
from apps.language.units import canonical_measures
from apps.language.words import form_key

logger = logging.getLogger(__name__)

__all__ = [
    "Phrase",
    "SimilarityProvider",
    "SubjectMatch",
    "alternatives",
    "analyse",
    "compare",
    "compare_many",
    "set_similarity",
    "similarity_provider",
]

#: Qualifiers that name the *default* kind of a thing rather than a variant of it ("a routine
#: cleaning" is the cleaning; "a deep cleaning" is another service). A closed class of English
#: adjectives, kept as data (subject_default_qualifiers.txt) beside this module.
_DEFAULTS_FILE = Path(__file__).with_name("data") / "subject_default_qualifiers.txt"
DEFAULT_QUALIFIERS = frozenset(
    w.strip().lower()
    for w in _DEFAULTS_FILE.read_text(encoding="utf-8").splitlines()
    if w.strip() and not w.startswith("#")
)

#: Nouns that, ending a name of several words, name what is said about its subject, not a thing
#: (subject_aspect_nouns.txt): "Late pick-up charge" is the late pick-up, priced.
_ASPECTS_FILE = Path(__file__).with_name("data") / "subject_aspect_nouns.txt"
ASPECT_NOUNS = frozenset(
    w.strip().lower()
    for w in _ASPECTS_FILE.read_text(encoding="utf-8").splitlines()
    if w.strip() and not w.startswith("#")
)

#: Parts of speech that carry no content in a name (spaCy's universal tags).
_FUNCTION_POS = frozenset({"DET", "ADP", "PRON", "PUNCT", "CCONJ", "SCONJ", "PART", "AUX", "SYM", "SPACE"})
_NOUN_POS = frozenset({"NOUN", "PROPN"})
#: A name is parsed as the object of a determiner: alone, "cleaning" is tagged a verb and "quote" an
#: interjection; after "the" the tagger reads them as the nouns a name is made of.
_CARRIER = "the "


# ----------------------------------------------------------------------------------------------
# The provider of text similarity (registered by a higher layer)


class SimilarityProvider(Protocol):
    """Cosine-like similarity of one short text to several others, and the thresholds calibrated
    for this provider's scale (bench/subjects.py): ``threshold`` for names with different heads,
    ``qualifier_threshold`` for one head qualified on one side only ("whitening" / "teeth whitening"),
    ``synonym_threshold`` for two different qualifiers that mean the same ("car" / "vehicle")."""

    name: str
    threshold: float
    qualifier_threshold: float
    synonym_threshold: float

    def similarities(self, text: str, others: Sequence[str]) -> list[float]: ...


_provider: SimilarityProvider | None = None


def set_similarity(provider: SimilarityProvider | None) -> SimilarityProvider | None:
    """Register the process's similarity provider (None: head nouns only); returns the previous."""
    global _provider
    previous, _provider = _provider, provider
    return previous


def similarity_provider() -> SimilarityProvider | None:
    return _provider


# ----------------------------------------------------------------------------------------------
# Head nouns


@dataclass(frozen=True)
class Phrase:
    """A subject name as the matcher sees it."""

    text: str
    head: str  # lemma of the head noun ("" when the name has no content word)
    qualifiers: frozenset[str]  # lemmas of the other content words, default qualifiers dropped
    numbers: frozenset[str]  # numbers in the name ("12" of "12-inch pizza")
    proper: frozenset[str] = frozenset()  # qualifiers tagged as proper nouns ("sunday", a brand)
    nouns: frozenset[str] = frozenset()  # words that can only be nouns, a number's unit aside
    units: frozenset[str] = frozenset()  # a number's unit ("min" of "60 min")

    @property
    def words(self) -> frozenset[str]:
        return self.qualifiers | {self.head}


def _units(text: str) -> list[tuple[list[str], str, bool, bool]]:
    """(lemmas, part of speech, is the parse's root, is a number) per word of a name, hyphenated
    compounds joined into one word ("check-up", "30-minute", "e-bikes"): spaCy splits them, and
    their parts alone are not the name's words."""
    groups: list[list[tuple[str, str, str, str]]] = []
    for tok in _tokens(text):
        prev = groups[-1][-1] if groups else None
        if prev is not None and not prev[3] and (tok[0] == "-" or prev[0] == "-"):
            groups[-1].append(tok)
        else:
            groups.append([tok])
    out: list[tuple[list[str], str, bool, bool]] = []
    for group in groups:
        pieces = [t for t in group if t[0] != "-"]
        if not pieces:
            continue
        number = any(t[1] == "NUM" or any(ch.isdigit() for ch in t[0]) for t in pieces)
        pos = "NOUN" if len(pieces) > 1 else pieces[0][1]
        out.append(([t[0] for t in pieces], pos, any(t[2] == "ROOT" for t in group), number))
    return out


def _letter_names(text: str) -> frozenset[str]:
    """Capital letters written alone after a name's first word: names by letter ("Zone A", "Plan B"),
    which tell variants apart as numbers do. The first word is left alone ("A haircut")."""
    return frozenset(w.lower() for w in text.split()[1:] if len(w) == 1 and w.isupper() and w != "I")


def analyse(text: str) -> Phrase:
    """The head noun and qualifiers of a subject name."""
    cached = _phrases.get(text)
    if cached is not None:
        return cached
    # Measures by their canonical forms: "60 min", "one-hour" and "1 hr" are one number and unit.
    letters = _letter_names(text)
    words = [
        u
        for u in _units(canonical_measures(text))
        if u[1] not in _FUNCTION_POS and not (len(u[0]) == 1 and u[0][0] in letters)
    ]
    if not words:
        phrase = Phrase(text=text, head="", qualifiers=frozenset(), numbers=frozenset())
    else:
        # The head: the parse's root unless it is an adjective or adverb ("hours" of "hours sunday",
        # "cut" of "cut & style", "insurance" of "insurance: cigna"), else the last word: English
        # compounds end in their head ("gift vouchers"; "small tattoo", where the root is "small").
        # A number's unit measures the thing and is never its head ("60 minute facial").
        unit = {i for i in range(1, len(words)) if words[i - 1][3] and not words[i][3]}
        named = [i for i, u in enumerate(words) if i not in unit and not u[3]]
        roots = [i for i in named if words[i][2] and words[i][1] not in ("ADJ", "ADV")]
        others = named or [len(words) - 1]
        at = roots[0] if roots else others[-1]
        lemmas = list(words[at][0])
        if words[at][1] not in _NOUN_POS:  # a name's head is a noun whatever the tagger says ("cleanings")
            lemmas[-1] = _noun_lemma(lemmas[-1])
        head = "-".join(lemmas)
        # Qualifiers word by word, hyphenated or not ("deep-tissue" and "deep tissue" are one
        # qualifier); default qualifiers name no variant and are dropped.
        pieces = {p for i, u in enumerate(words) if i != at for p in u[0]}
        phrase = Phrase(
            text=text,
            head=head,
            qualifiers=frozenset(pieces - DEFAULT_QUALIFIERS),
            numbers=frozenset("-".join(u[0]) for u in words if u[3]) | letters,
            proper=frozenset(p for i, u in enumerate(words) if i != at and u[1] == "PROPN" for p in u[0]),
            nouns=frozenset(
                p
                for i, u in enumerate(words)
                if u[1] in _NOUN_POS and not u[3] and i not in unit and not _can_modify(u[0])
                for p in u[0]
            ),
            units=frozenset(p for i in unit for p in words[i][0]),
        )
    _phrases.put(text, phrase)
    return phrase


def _can_modify(lemmas: list[str]) -> bool:
    """Whether a word the tagger read as a noun can be an adjective: at the end of a short name the
    tagger takes most words for nouns ("remedial" of "45 min remedial"); the dictionary knows better."""
    return len(lemmas) == 1 and "ADJ" in lexicon.word_classes(lemmas[0])


def _noun_lemma(word: str) -> str:
    # Lazy: lemminflect imports spaCy (about 2 s), which this module leaves to the language pipeline.
    from lemminflect import getLemma

    found = getLemma(word, upos="NOUN")
    return found[0].lower() if found else word


def _spacy_tokens(text: str) -> list[tuple[str, str, str, str]]:
    # Names are parsed in lower case: topics are title-cased ("Gift Cards"), which the tagger reads as
    # proper nouns and does not lemmatise. Only nouns take their lemma ("teeth" -> "tooth"); a lone
    # "cleaning" is tagged a verb, whose lemma "clean" would no longer be the noun's.
    return [
        (t.lemma_.lower() if t.pos_ in _NOUN_POS else t.lower_, t.pos_, t.dep_, t.whitespace_)
        for t in parse(_CARRIER + text.lower())[1:]
    ]


def _plain_tokens(text: str) -> list[tuple[str, str, str, str]]:
    """Used only when the language layer cannot load: words, a crude singular, every word a noun."""
    words = re.findall(r"[\w']+|-", text.lower())
    return [(singular(w.strip("'")), "NOUN" if w != "-" else "PUNCT", "", " ") for w in words]


def _tokens(text: str) -> list[tuple[str, str, str, str]]:
    """(lemma, part of speech, dependency, trailing space) of each token: the one place that
    switches between the language layer and the fallback."""
    global _tokeniser
    try:
        return _tokeniser(text)
    except Exception as exc:  # the language layer is missing or its model refused to load
        if _tokeniser is _plain_tokens:
            raise
        logger.warning("subject names compared without the spaCy parse: %s", exc)
        _tokeniser = _plain_tokens
        return _tokeniser(text)


_tokeniser: Callable[[str], list[tuple[str, str, str, str]]] = _spacy_tokens


class _Recent:
    """A small thread-safe LRU of analysed names (a business's subjects are compared again on every
    candidate that has no exact match)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[str, Phrase] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: str) -> Phrase | None:
        with self.lock:
            found = self.items.get(key)
            if found is not None:
                self.items.move_to_end(key)
            return found

    def put(self, key: str, value: Phrase) -> None:
        with self.lock:
            self.items[key] = value
            while len(self.items) > self.size:
                self.items.popitem(last=False)


_phrases = _Recent(8192)


# ----------------------------------------------------------------------------------------------
# The decision

#: The least similarity at which two heads WordNet gives one sense are taken as one subject
#: (bench/subjects.py measures it: below it, the sense WordNet shares is one nobody meant).
SAME_SENSE_FLOOR = 0.40


@dataclass(frozen=True)
class SubjectMatch:
    same: bool
    similarity: float | None  # the provider's similarity (None without a provider)
    method: str  # "head-noun" | "embedding" | "variant" | "different"
    reason: str


@dataclass(frozen=True)
class Thresholds:
    """A provider's calibrated thresholds (bench/subjects.py writes them)."""

    names: float  # names whose heads differ ("gift vouchers" / "gift cards")
    qualified: float  # one head, qualified on one side only ("whitening" / "teeth whitening")
    synonyms: float  # two qualifiers that mean the same thing ("car wash" / "vehicle wash")


@dataclass(frozen=True)
class PairSimilarity:
    """The provider's similarities for one pair of names."""

    names: float
    heads: float | None = None  # of the two heads alone (names with different heads)
    qualifiers: float | None = None  # of the qualifiers only one side has, side by side


def _only(a: Phrase, b: Phrase) -> tuple[str, str]:
    """The qualifiers each name has and the other has not, as text ("small" / "large")."""
    return " ".join(sorted(a.qualifiers - b.qualifiers)), " ".join(sorted(b.qualifiers - a.qualifiers))


def decide(a: Phrase, b: Phrase, sim: PairSimilarity | None, limits: Thresholds | None) -> SubjectMatch:
    """Same subject or not, for two analysed names and their similarities (None: no provider)."""
    similarity = sim.names if sim is not None else None
    if not a.head or not b.head:
        return SubjectMatch(False, similarity, "different", "a name without a content word")
    if a.numbers != b.numbers:
        return SubjectMatch(False, similarity, "variant", "different numbers")
    # A hyphenated compound ending in the other's head is a kind of it ("e-bikes" of "bikes"): its
    # first part qualifies that head, so "e-bikes" / "Specialized bikes" are two variants.
    if a.head != b.head and a.head.endswith("-" + b.head):
        kind = replace(a, head=b.head, qualifiers=a.qualifiers | {a.head[: -len(b.head) - 1]})
        return decide(kind, b, sim, limits)
    if a.head != b.head and b.head.endswith("-" + a.head):
        return decide(b, a, sim, limits)
    for short, long in ((a, b), (b, a)):
        if _elliptical(short, long):
            return SubjectMatch(
                True, similarity, "ellipsis", f'"{short.text}" is "{long.text}" with its noun left out'
            )
    only_a, only_b = _only(a, b)
    synonyms = False
    if only_a and only_b:  # two qualifiers: two variants, unless they mean the same ("car" / "vehicle")
        q = sim.qualifiers if sim is not None else None
        # A proper noun names one thing (a day, a brand): another is never its synonym, however
        # close the embedding puts them ("sunday" / "saturday" at 0.81).
        named = (a.qualifiers ^ b.qualifiers) & (a.proper | b.proper)
        # An initialism is tagged a proper noun, as capitals are, and is still its words' synonym.
        initialism = _initialism(only_a, only_b) or _initialism(only_b, only_a)
        if (
            (named and not initialism)
            or q is None
            or limits is None
            or not (initialism or _synonyms(only_a, only_b, q, limits))
        ):
            return SubjectMatch(False, similarity, "variant", f"different qualifiers ({only_a} / {only_b})")
        synonyms = True
    if a.head == b.head and not only_a and not only_b:
        return SubjectMatch(True, similarity, "head-noun", f"the same head noun ({a.head})")
    if sim is None or limits is None:
        return SubjectMatch(False, similarity, "different", "different names and no similarity provider")
    if a.head == b.head:
        if synonyms:  # "car wash" / "vehicle wash"
            return SubjectMatch(
                True, sim.names, "embedding", f"qualifiers that mean the same ({only_a} / {only_b})"
            )
        # One name qualifies the head, the other does not ("whitening" / "teeth whitening").
        extra = only_a or only_b
        if sim.names >= limits.qualified:
            return SubjectMatch(
                True, sim.names, "embedding", f"the same head noun, similar in meaning ({extra})"
            )
        return SubjectMatch(False, sim.names, "variant", f"a qualifier only one names ({extra})")
    # Different heads ("vouchers" / "cards"): a qualifier both share ("gift") raises the names'
    # similarity without saying anything about the heads, so the heads' own similarity counts half.
    score = sim.names if sim.heads is None else (sim.names + sim.heads) / 2
    bare = not a.qualifiers and not b.qualifiers
    if (bare or _things(a.head, b.head)) and _kinds_of_one_thing(a.head, b.head):
        # Nouns of one kind sit as close in the embedding as true synonyms (car / bike 0.56, tea /
        # coffee 0.62); WordNet tells them apart (apps.language.lexicon). A qualifier does not make
        # two things or beings one ("new dog" / "cat"); abstract heads under one qualifier are
        # often one thing named loosely ("delivery area" / "delivery zone", "opening times").
        return SubjectMatch(False, score, "variant", f"two kinds of one thing ({a.head} / {b.head})")
    if score >= limits.names:
        return SubjectMatch(True, score, "embedding", f"similar in meaning ({score:.2f})")
    if not only_a and not only_b and score >= SAME_SENSE_FLOOR and _one_sense(a.head, b.head):
        # Two signals that agree: WordNet has the heads as words for one thing or one doing, and the
        # embedding, below its own threshold, does not put them apart ("late collection" / "late
        # pick-up" at 0.47; "towel hire" / "towel rental").
        return SubjectMatch(True, score, "wordnet", f"one sense in WordNet ({a.head} / {b.head})")
    return SubjectMatch(False, score, "different", f"different head nouns ({a.head} / {b.head})")


def _elliptical(short: Phrase, long: Phrase) -> bool:
    """Whether ``short`` is ``long`` with its noun left out: a name of modifiers only, every word of
    it in the other name ("Remedial 60" of "Remedial massage 60 min", "Monthly" of "Monthly
    membership"). Prose drops the noun the page's list already said; a name that keeps a noun of its
    own ("Dog" / "Dog food") is a thing, not an ellipsis. A measure alone ("30 min" of "30-minute weekly
    lesson") is such a name too: its unit is no noun of its own."""
    modifiers = short.words - short.numbers - short.units
    return (
        (bool(modifiers) or _measure_only(short))
        and not short.nouns
        and long.head not in short.words
        and short.words < long.words
    )


def _measure_only(phrase: Phrase) -> bool:
    """A name that is a measure and nothing else ("30 min", "2 hours")."""
    return bool(phrase.numbers) and phrase.words <= phrase.numbers | phrase.units


def _synonyms(only_a: str, only_b: str, similarity: float, limits: Thresholds) -> bool:
    """Whether two qualifiers mean the same: the embedding says so alone, or two single words that
    WordNet gives one sense ("eyebrow" / "brow", "kid" / "child") are not put apart by it."""
    if similarity >= limits.synonyms:
        return True
    single = " " not in only_a and " " not in only_b
    return single and similarity >= SAME_SENSE_FLOOR and _one_sense(only_a, only_b)


#: An initialism written with its letters apart ("b&w", "b/w", "a.c."). Hand-written: no library
#: expands a business's own abbreviations, and only letters joined so can be read as one.
_SPLIT_INITIALS = re.compile(r"^[a-z](?:[&/.][a-z])+\.?$")


def _initialism(short: str, words: str) -> bool:
    """Whether one qualifier is the other's words by their first letters ("b&w" of "black white").
    The matcher's qualifiers are sorted, so the letters are compared as sets of one letter each."""
    if " " in short or not _SPLIT_INITIALS.match(short):
        return False
    letters = [c for c in short if c.isalpha()]
    initials = [w[0] for w in words.split()]
    return len(initials) >= 2 and sorted(letters) == sorted(initials)


def _one_sense(a: str, b: str) -> bool:
    return lexicon.is_available() and lexicon.same_sense(a, b)


def _things(a: str, b: str) -> bool:
    """Whether both nouns name things or beings (WordNet's files of artifacts, foods, animals...)."""
    return lexicon.is_available() and all(lexicon.lexical_file(n) in lexicon.THING_FILES for n in (a, b))


def _kinds_of_one_thing(a: str, b: str) -> bool:
    """WordNet's co-hyponym test, or False (the embedding alone decides) where WordNet is unavailable."""
    return lexicon.is_available() and lexicon.co_hyponyms(a, b)


def similarities(provider: SimilarityProvider, a: Phrase, bs: Sequence[Phrase]) -> list[PairSimilarity]:
    """The similarities ``decide`` needs for ``a`` against each of ``bs``. The first call embeds every
    text at once (names, heads, qualifiers); the later ones find them in the provider's cache."""
    names = [b.text.lower() for b in bs]
    heads = [b.head or a.head for b in bs]
    pairs = [_only(a, b) for b in bs]
    extra = [*heads, *(x for pair in pairs for x in pair if x)]
    found = provider.similarities(a.text.lower(), [*names, a.head, *extra])[: len(bs)]
    head_sims = provider.similarities(a.head, heads) if a.head else [None] * len(bs)
    out = []
    for name_sim, head_sim, (qa, qb) in zip(found, head_sims, pairs, strict=True):
        q = provider.similarities(qa, [qb])[0] if qa and qb else None
        out.append(PairSimilarity(names=name_sim, heads=head_sim, qualifiers=q))
    return out


def compare_many(
    text: str,
    others: Sequence[str],
    *,
    provider: SimilarityProvider | None = None,
    use_provider: bool = True,
    aspects: bool = False,
) -> list[SubjectMatch]:
    """Compare one name with several: subject names, or with ``aspects`` the names of what is said
    about one subject ("price", "sunday hours"), where a price word is the name, not its aspect."""
    if not others:
        return []
    provider = (provider or _provider) if use_provider else None
    found = _compare_names(text, others, provider)
    if not aspects:  # and as the names of what their price is said of ("Emergency call out" fee)
        bare = without_aspect(text)
        # Only the pairs a price word was dropped from: the others were compared just above.
        again = [i for i, o in enumerate(others) if bare != text or without_aspect(o) != o]
        if again:
            bare_found = _compare_names(bare, [without_aspect(others[i]) for i in again], provider)
            for i, g in zip(again, bare_found, strict=True):
                found[i] = _better(found[i], g)
    # A name of alternatives ("Remedial / deep tissue") is the same subject as either of them.
    lefts = alternatives(text)
    for left in lefts[1:]:
        found = [_better(f, g) for f, g in zip(found, _compare_names(left, others, provider), strict=True)]
    for i, other in enumerate(others):
        rights = alternatives(other)
        for right in rights if len(rights) > 1 else []:
            for left in lefts:
                found[i] = _better(found[i], _compare_names(left, [right], provider)[0])
    # A heading and the row under it ("Towels - towel hire") is the heading's thing, named again.
    text_lead = elaborated(text)
    for i, other in enumerate(others):
        other_lead = elaborated(other)
        for plain, lead in ((text, other_lead), (other, text_lead)):
            if lead and not (text_lead and other_lead):
                found[i] = _better(found[i], _compare_names(plain, [lead], provider)[0])
    return _one_measured(text, found)


#: A name in two parts joined by a spaced dash, hyphen, en or em ("Towels - towel hire"): a page's
#: heading and its row.
_HEADED = re.compile(r"^(?P<lead>[^\u2013\u2014-]+?)\s+[\u2013\u2014-]\s+(?P<tail>.+)$")


def elaborated(name: str) -> str | None:
    """The heading of a name that names its heading's thing again after a dash ("Towels - towel
    hire" -> "Towels"), or None: a tail that does not repeat the heading's head noun ("Hair -
    Men") names a variant of it, not it."""
    found = _HEADED.match(name.strip())
    if not found:
        return None
    lead, tail = analyse(found["lead"]), analyse(found["tail"])
    return found["lead"] if lead.head and lead.head in tail.words else None


def _one_measured(text: str, found: list[SubjectMatch]) -> list[SubjectMatch]:
    """A measure alone ("60 min") names the one thing of that measure ("Facial 60 min"); beside two
    ("Relaxation massage 60 min", "Deep tissue 60 min") it names neither, and stays a name of its own."""
    if not _measure_only(analyse(" ".join(text.split()))):
        return found
    if sum(f.same and f.method == "ellipsis" for f in found) < 2:
        return found
    return [
        SubjectMatch(False, f.similarity, "variant", "a measure alone fits several names")
        if f.same and f.method == "ellipsis"
        else f
        for f in found
    ]


def without_aspect(name: str) -> str:
    """The name without a last word that names what is said about the subject ("Emergency call out
    fee" -> "Emergency call out"): two names of one service, one of them with "fee", are one subject."""
    words = name.split()
    if len(words) > 1 and form_key(words[-1].strip(".,:;!?").lower()) in ASPECT_NOUNS:
        return " ".join(words[:-1])
    return name


def _compare_names(
    text: str, others: Sequence[str], provider: SimilarityProvider | None
) -> list[SubjectMatch]:
    a = analyse(" ".join(text.split()))
    bs = [analyse(" ".join(o.split())) for o in others]
    if provider is None:
        return [decide(a, b, None, None) for b in bs]
    limits = Thresholds(provider.threshold, provider.qualifier_threshold, provider.synonym_threshold)
    return [decide(a, b, sim, limits) for b, sim in zip(bs, similarities(provider, a, bs), strict=True)]


def _better(a: SubjectMatch, b: SubjectMatch) -> SubjectMatch:
    if a.same != b.same:
        return a if a.same else b
    return a if (a.similarity or 0.0) >= (b.similarity or 0.0) else b


#: "Remedial / deep tissue", "Cut/blow-dry": a slash after a word offers two names for one thing
#: ("24/7", "1/2 price" are not names: the slash must follow a letter).
_ALTERNATIVES = re.compile(r"(?<=[^\W\d_])\s*/\s*(?=\w)")


def alternatives(name: str) -> list[str]:
    """The names a name offers ("Remedial / deep tissue" -> ["Remedial", "deep tissue"])."""
    parts = [p.strip() for p in _ALTERNATIVES.split(name) if p.strip()]
    return parts or [name]


def compare(a: str, b: str, *, provider: SimilarityProvider | None = None) -> SubjectMatch:
    return compare_many(a, [b], provider=provider)[0]
