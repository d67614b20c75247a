"""Misspelling repair against a business's own vocabulary.

When a message retrieves poorly, a likely cause is a misspelt key word ("sourdogh", "resevation").
This module corrects such words towards the words the business's knowledge actually uses, in
process (rapidfuzz), without pg_trgm:

- a word is left alone when the vocabulary or a compact list of common English words knows it
  (including simple inflections: "opening" is known when "open" is);
- otherwise it is replaced by the closest known word within a length-aware edit budget (optimal
  string alignment distance, so a swap of two letters is one edit): none for words under 4 letters,
  1 edit for 4-5 letters, 2 for 6 or more; ties go to the candidate with the same first letter,
  then the more frequent word; a closer common English word wins only when it is another form of a
  word the business uses ("delver" -> "deliver" for a business that writes "delivery"), and
  otherwise blocks the correction;
- split and joined forms are mapped to the vocabulary's form: "check in" / "check-in" / "checkin",
  "wifi" / "wi-fi" / "wi fi";
- the case pattern of the original word is kept.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from rapidfuzz import process
from rapidfuzz.distance import OSA

from apps.language.spelling import splice

__all__ = ["COMMON_WORDS", "RepairResult", "Vocabulary", "max_edits"]

# Common English words that are never corrected (and are valid correction targets themselves).
# Question words, function words, everyday verbs/adjectives of customer messages, times and days.
_COMMON_TEXT = """
    a about above across actually after again against ago all almost along already also although
    always am among an and another any anybody anyone anything anyway anywhere are area aren arent
    around as ask asked asking at available away back bad be because been before being below best
    better between big bit both bring but buy by call came can cannot cant cheap cheaper check
    close closed closes closing come coming could couldn couldnt cost costs day days deal did didn
    didnt different do does doesn doesnt doing don done dont down during each early either else
    enough even evening ever every everyone everything exactly example except far few find fine
    first for free friday friend friends from full get gets getting give go goes going gone good
    got great had has hasn have haven havent having he hello help her here hers hey hi high him his
    hold home hour hours how however if im in include included includes including inside instead
    into is isn isnt it its itself ive just keep kind know last late later least left less let
    like little long look looking lot lots love low made make many may maybe me mean might mine
    minute minutes monday month months more morning most much must my myself name near need needed
    needs never new next nice night no none nor not nothing now number of off offer offered offers
    often ok okay old on once one only open opened opening opens or order ordered orders other
    others our ours out outside over own part people per perhaps person place please possible
    pretty price prices probably put question questions quite rather really right same saturday
    saw say says see seem sell sells send set several shall she should shouldn show since small so
    some someone something sometime sometimes soon sorry still stop such sunday sure take taken
    takes tell than thank thanks that thats the their theirs them then there theres these they
    theyre thing things think this those though through thursday till time times to today together
    told tomorrow tonight too took total tuesday under until up upon us use used using usually very
    want wanted wants was wasn way ways we wednesday week weekday weekdays weekend weekends weeks
    well went were weren what whats when where whether which while who whole whom whose why will
    with within without won wont work works would wouldn wouldnt yeah year years yes yet you youd
    youll your youre yours yourself youve able add again allowed allow answer anymore arrive asap
    book booked booking called care cash children come contact could day deliver delivery did
    email enjoy ever extra family fast find food friendly got group guest guests happen happy hear
    hope idea info information interested january february march april june july august september
    october november december job kids kid leave link live located location lunch dinner breakfast
    meet member message mind miss money move near nearby needed online options other page paid pay
    paying payment phone pick picked plan plus point post problem quick ready reason recommend
    reply request reserve return run safe saturday second service services site sit size special
    staff start started stay store sunday support sure table team text thing trip true try trying
    type under understand update wait waiting walk wanted water website welcome wish without wrong
    hotel restaurant room rooms shop shops menu item items visit cafe coffee tea drink drinks
    able accept accepted account actual address adult adults advance afternoon age agree air amount
    animal apartment appointment arrival art bag bank bar bath bathroom beach bed bedroom beer bike bill
    birthday black blue board boat body box boy bread break brother brought build building bus business
    busy cake car card carry case catch cause center centre chair chance change changed changes charge
    child choose church city class clean clear client closer clothes club coat cold color colour company
    computer connect connected connection cook cool corner correct country couple course cover cream
    credit cup customer cut dance dark date daughter dear decide deposit design desk detail details
    direct dog door double dress drive driver dry east easy eat egg eggs end enter entrance event exact
    exit expect expensive experience eye face fact fair fall farm father fee feel feet field fill film
    final finish fire fish fit fix floor flower fly follow foot form forward fresh front fruit fun game
    garden gas gift girl glass gold green ground grow guess hair half hall hand hang hard hat head health
    heard heart heat heavy hire holiday horse hospital hot house huge hungry husband ice ill inch issue
    join key kitchen lady land language large law lead learn letter level lie life light line list
    listen local lock lose lost loud lower machine mail main man map mark market married match matter
    meal meat medium meeting men middle milk million mobile moment mother mountain mouth movie music
    nature neck north note notice office oil paper parent parents park parking party pass past pet photo
    picture piece pink plane plant plate play played player playing pool poor popular power present
    print private prize product public pull push quiet race radio rain reach read real receive record
    red remember rent repeat rest result rich ride ring river road rock roof round rule sale salt sample
    save school sea seat secret sense sent separate serve shape share sheet ship shirt shoe shoes short
    shower sick side sign simple sing single sister sleep slow smoke snow soft song south space speak
    spend sport spring square stairs star station step stone story street strong student study style
    subject sugar summer sun system talk tall taste tax teach teacher test thin third ticket tired top
    touch tour town toy track train travel tree trouble turn twice unit upstairs view voice vote wall
    war warm wash watch wear weather wedding west wet white wide wife wild win window wine winter woman
    women wonder wood word world worry write young sound sounds
    zero two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty
    hundred thousand half quarter fourth fifth
"""
COMMON_WORDS: frozenset[str] = frozenset(_COMMON_TEXT.split())

_MIN_LETTERS = 3  # vocabulary tokens shorter than this are ignored
_MIN_CORRECTABLE = 4  # message words shorter than this are never corrected

_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)?")
_VOCAB_WORD = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)*")
_URLISH = re.compile(
    r"[@/\\]|://|www\.|[a-z0-9]\.(?:com|net|org|co|uk|io|us|au|ca|ie|nz|de|fr|es|it|nl|info|biz|shop)\b",
    re.IGNORECASE,
)


def _stems(word: str) -> list[str]:
    """Candidate base forms of a regularly inflected word (nothing for irregular forms)."""
    stems: list[str] = []
    if word.endswith(("ies", "ied")) and len(word) >= 5:
        stems.append(word[:-3] + "y")
    if word.endswith("es") and word[:-2].endswith(("s", "x", "z", "ch", "sh", "o")):
        stems.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss") and len(word) >= 4:
        stems.append(word[:-1])
    for suffix in ("ing", "est", "ed", "er", "ly"):
        if not word.endswith(suffix):
            continue
        stem = word[: -len(suffix)]
        if len(stem) >= 4:
            stems.append(stem)
        if suffix != "ly" and len(stem) >= 3:
            stems.append(stem + "e")  # closing -> close, baked -> bake
            # doubled final consonant, not a tripled one: shipped -> ship, but not offfer -> off
            if stem[-1] == stem[-2] and stem[-1] not in "aeiou" and stem[-3] != stem[-1]:
                stems.append(stem[:-1])
    return stems


_VARIANT_TAILS = frozenset(
    ["", "s", "es", "d", "ed", "ing", "er", "ers", "al", "ally", "ly", "ion", "ions", "ment", "ments"]
)


def _variant(word: str, candidate: str) -> bool:
    """True when two words differ only by a derivational/inflectional ending ("require" and
    "required", "seasonal" and "season", "limits" and "limited"): another form, not a misspelling."""
    shared = 0
    for a, b in zip(word, candidate, strict=False):
        if a != b:
            break
        shared += 1
    return shared >= 4 and word[shared:] in _VARIANT_TAILS and candidate[shared:] in _VARIANT_TAILS


def max_edits(length: int) -> int:
    """Edit budget for a word of ``length`` letters: 0 under 4, 1 for 4-5, 2 for 6 or more."""
    if length < _MIN_CORRECTABLE:
        return 0
    return 1 if length <= 5 else 2


@dataclass(frozen=True)
class RepairResult:
    text: str
    corrections: list[tuple[str, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.corrections)

    @property
    def misspelt(self) -> bool:
        """Whether a correction replaced a word (not only joined two: "check in" -> "checkin")."""
        return any(" " not in original and "-" not in original for original, _fixed in self.corrections)


def _singular(word: str) -> str | None:
    if len(word) > 4 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-3] + "y" if word.endswith("ies") else word[:-1]
    return None


def _match_case(original: str, replacement: str) -> str:
    if len(original) > 1 and original.isupper():
        return replacement.upper()
    if original[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


class Vocabulary:
    """Word frequencies of one business's knowledge, with an index for fast correction."""

    def __init__(self, counts: Mapping[str, int], bigrams: Iterable[tuple[str, str]] = ()) -> None:
        self.counts: dict[str, int] = {w.lower(): int(n) for w, n in counts.items() if len(w) >= _MIN_LETTERS}
        self.bigrams: frozenset[tuple[str, str]] = frozenset(bigrams)
        # Spelling without hyphens -> the vocabulary's own form ("wifi" -> "wi-fi").
        self._canonical: dict[str, str] = {}
        for word in sorted(self.counts, key=lambda w: (-self.counts[w], w)):
            self._canonical.setdefault(word.replace("-", ""), word)
        # Correction candidates by length: vocabulary words and common words.
        self._frequency: dict[str, int] = dict.fromkeys(COMMON_WORDS, 0)
        for word, n in self.counts.items():
            if "-" in word:
                continue
            self._frequency[word] = self._frequency.get(word, 0) + n
            singular = _singular(word)
            if singular is not None:  # "reservations" also offers "reservation"
                self._frequency[singular] = self._frequency.get(singular, 0) + n
        self._by_length: dict[int, list[str]] = {}
        for word in sorted(self._frequency):
            self._by_length.setdefault(len(word), []).append(word)

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> Vocabulary:
        """Count the words (lowercased, 3+ letters) of a business's knowledge texts.

        Hyphenated words count whole and by part ("gluten-free", "gluten", "free"); a possessive
        's is dropped; pairs of adjacent words are remembered so that "check in" is not joined into
        "checkin" for a business that writes both.
        """
        counts: Counter[str] = Counter()
        bigrams: set[tuple[str, str]] = set()
        for text in texts:
            lowered = text.lower().replace("\u2019", "'")
            previous: str | None = None
            previous_end = 0
            for match in _VOCAB_WORD.finditer(lowered):
                token = match.group()
                if token.endswith("'s"):
                    token = token[:-2]
                parts = token.split("-")
                if "'" not in token:
                    if len(token.replace("-", "")) >= _MIN_LETTERS:
                        counts[token] += 1
                    if len(parts) > 1:
                        counts.update(p for p in parts if len(p) >= _MIN_LETTERS)
                if previous is not None and not lowered[previous_end : match.start()].strip():
                    bigrams.add((previous, parts[0]))
                previous, previous_end = parts[-1], match.end()
        return cls(counts, bigrams)

    def __len__(self) -> int:
        return len(self.counts)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.lower() in self.counts

    # -- knowledge of words -------------------------------------------------------------------

    def _known_exact(self, word: str) -> bool:
        return word in self.counts or word in COMMON_WORDS

    def known(self, word: str) -> bool:
        """True when ``word`` (lowercase) or a regular inflection of it is known: "opening" (open),
        "booked" (book), "shipped" (ship), "cafes" (cafe), "parties" (party), and a singular whose
        plural is in the vocabulary ("cake" when the business writes "cakes")."""
        if self._known_exact(word) or word + "s" in self.counts or word + "es" in self.counts:
            return True
        return any(self._known_exact(stem) for stem in _stems(word))

    def closest(self, word: str) -> str | None:
        """The closest vocabulary word within the edit budget, or None.

        Candidates must start with the same letter as ``word`` (a swap of the first two letters,
        "htis", is allowed). A common English word closer than every vocabulary word blocks the
        correction (the writer may well have meant it), and so does a candidate that is only
        another form of the word ("require" / "required").
        """
        budget = max_edits(len(word))
        if budget == 0:
            return None
        best: tuple[int, int, int, str] | None = None
        for length in range(len(word) - budget, len(word) + budget + 1):
            choices = self._by_length.get(length)
            if not choices:
                continue
            for candidate, distance, _ in process.extract(
                word, choices, scorer=OSA.distance, score_cutoff=budget, limit=None
            ):
                if candidate[0] != word[0] and not (
                    distance == 1 and candidate[:2] == word[1::-1] and candidate[2:] == word[2:]
                ):
                    continue
                frequency = self._frequency[candidate]
                key = (int(distance), int(frequency == 0), -frequency, candidate)
                if best is None or key < best:
                    best = key
        if best is None or _variant(word, best[3]):
            return None
        if self._frequency[best[3]] == 0 and not self._form_of_business_word(best[3]):
            return None
        return best[3]

    def _form_of_business_word(self, common: str) -> bool:
        """True when a common word is another form of a word this business uses ("deliver" for a
        business that writes "delivery"): correcting "delver" to it helps retrieval, whereas a common
        word unrelated to the business ("make" for "Mike") more likely means the writer typed a name."""
        for length in range(len(common), len(common) + 3):
            for candidate in self._by_length.get(length, ()):
                if self._frequency[candidate] > 0 and (
                    candidate.startswith(common) or _variant(common, candidate)
                ):
                    return True
        return False

    # -- repair -------------------------------------------------------------------------------

    def repair(self, message: str) -> RepairResult:
        """Correct likely misspellings in ``message`` towards this vocabulary."""
        matches = [m for m in _WORD.finditer(message) if not self._in_url(message, m.start(), m.end())]
        edits: list[tuple[int, int, str]] = []  # (start, end, replacement)
        corrections: list[tuple[str, str]] = []
        index = 0
        while index < len(matches):
            match = matches[index]
            word = match.group()
            lower = word.lower()
            following = matches[index + 1] if index + 1 < len(matches) else None
            # Joined forms: "check in" / "check-in" -> "checkin" when that is the vocabulary's word.
            if following is not None and "'" not in word and "'" not in following.group():
                gap = message[match.end() : following.start()]
                if gap in (" ", "-"):
                    joined = self._join(lower, following.group().lower(), hyphenated=gap == "-")
                    if joined is not None:
                        original = message[match.start() : following.end()]
                        joined_form = _match_case(word, joined)
                        if joined_form.lower() != original.lower():
                            edits.append((match.start(), following.end(), joined_form))
                            corrections.append((original, joined_form))
                        index += 2
                        continue
            replacement = self._fix_word(word)
            if replacement is not None:
                edits.append((match.start(), match.end(), replacement))
                corrections.append((word, replacement))
            index += 1
        if not edits:
            return RepairResult(message, [])
        return RepairResult(splice(message, edits), corrections)

    @staticmethod
    def _in_url(message: str, start: int, end: int) -> bool:
        left = message.rfind(" ", 0, start) + 1
        right = message.find(" ", end)
        chunk = message[left : right if right >= 0 else len(message)]
        return bool(_URLISH.search(chunk.rstrip(".,!?;:)")))

    def _join(self, left: str, right: str, hyphenated: bool) -> str | None:
        """The vocabulary's form of two adjacent words that it writes as one word, if any."""
        canonical = self._canonical.get(left + right)
        if canonical is None or canonical in COMMON_WORDS or len(left) + len(right) < 4:
            return None
        if not hyphenated and (left, right) in self.bigrams:
            return None  # the business also writes them apart
        return canonical

    def _fix_word(self, word: str) -> str | None:
        base, suffix = word, ""
        if "'" in word or "\u2019" in word:
            head, _, tail = word.replace("\u2019", "'").partition("'")
            if tail.lower() != "s":
                return None  # contractions (don't, we'll) are left alone
            base, suffix = head, word[len(head) :]
        lower = base.lower()
        if len(lower) < _MIN_CORRECTABLE or self.known(lower):
            return None
        canonical = self._canonical.get(lower)
        if canonical is not None:  # the business writes it with a hyphen ("wifi" -> "wi-fi")
            return _match_case(base, canonical) + suffix
        if base.isupper() and len(base) <= 5:
            return None  # an acronym the business does not use (AMEX, NHS)
        # Split forms: "checkin" -> "check in" when the business writes the two words.
        for cut in range(2, len(lower) - 1):
            left, right = lower[:cut], lower[cut:]
            if max(len(left), len(right)) >= _MIN_LETTERS and (left, right) in self.bigrams:
                return _match_case(base, f"{left} {right}") + suffix
        closest = self.closest(lower)
        if closest is None or closest == lower:
            return None
        return _match_case(base, closest) + suffix
