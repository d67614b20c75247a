"""Tests of retrieval's spelling repair (apps.retrieval.repair: the language layer's speller with
only the commonest English words left alone): hand-made cases, and real misspellings (codespell)
planted into real questions (DSTC9) when the shared evaluation data is present. The data is read
from its shared path at test time and never copied into the repository."""

from __future__ import annotations

import gzip
import json
import random
import re
import statistics
import string
import time
from collections import defaultdict

import pytest

from apps.language.spelling import Correction, Speller, english_words, max_edits
from apps.retrieval.repair import REPAIR_ENGLISH_MIN_COUNT, misspelt, repair_speller
from tests.helpers import eval_path, needs_eval

CODESPELL = eval_path("spelling", "codespell", "dictionary.txt.gz")
DSTC9 = eval_path("dstc9")

BAKERY = [
    "Sunny Bakery bakes fresh sourdough bread every day. Our sourdough loaf is $8.50.",
    "Wedding cakes start at $250 and we need 4 weeks notice. Reservations for the tasting room by phone.",
    "Delivery within 10 miles; delivery is free on orders over $50. Croissants and baguettes daily.",
    "Gluten-free brownies on Saturdays. Free Wi-Fi for customers. Check-in for workshops at 9 AM.",
    "Allergens: our kitchen handles nuts, sesame and dairy. Vegan options available.",
]


@pytest.fixture(scope="module")
def bakery() -> Speller:
    return repair_speller(BAKERY)


def test_vocabulary_counts(bakery: Speller) -> None:
    assert bakery.counts["sourdough"] == 2
    assert {"gluten-free", "gluten", "free", "wi-fi"} <= set(bakery.counts)
    assert "at" not in bakery.counts  # fewer than 3 letters


def test_max_edits() -> None:
    assert [max_edits(n) for n in (2, 3, 4, 5, 6, 9)] == [0, 0, 1, 1, 2, 2]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("How much is the sordough?", "How much is the sourdough?"),
        ("How much is the sourdoguh?", "How much is the sourdough?"),  # transposition = 1 edit
        ("Do you do weding cakes?", "Do you do wedding cakes?"),
        ("Can I make a resevation", "Can I make a reservation"),  # singular of "reservations"
        ("SOURDOGH please", "SOURDOUGH please"),
        ("Sordough loaf price", "Sourdough loaf price"),
        ("is the Sourdogh's crust crunchy", "is the Sourdough's crust crunchy"),
        ("do you have crossants", "do you have croissants"),
        ("what time is delivrey", "what time is delivery"),
        ("any alergens in the brownies?", "any allergens in the brownies?"),
    ],
)
def test_corrects_misspellings(bakery: Speller, message: str, expected: str) -> None:
    result = bakery.correct(message)
    assert result.text == expected
    assert result.changed and misspelt(result)


@pytest.mark.parametrize(
    ("message", "expected", "corrections"),
    [
        ("Do you have wifi?", "Do you have wi-fi?", [("wifi", "wi-fi")]),
        ("Do you have wi fi?", "Do you have wi-fi?", [("wi fi", "wi-fi")]),
        ("Do you have WiFi?", "Do you have Wi-fi?", [("WiFi", "Wi-fi")]),
        ("Do you have Wi-Fi?", "Do you have Wi-Fi?", []),  # already the business's form
        ("what time is check in", "what time is check-in", [("check in", "check-in")]),
        ("what time is checkin", "what time is check-in", [("checkin", "check-in")]),
        ("glutenfree cakes?", "gluten-free cakes?", [("glutenfree", "gluten-free")]),
    ],
)
def test_split_and_joined_forms(
    bakery: Speller, message: str, expected: str, corrections: list[tuple[str, str]]
) -> None:
    result = bakery.correct(message)
    assert result == Correction(expected, tuple(corrections))
    # Joining two words the visitor wrote apart is no misspelling; a glued form is a changed word.
    assert misspelt(result) == any(" " not in a and "-" not in a for a, _ in corrections)


def test_split_form_when_business_writes_two_words() -> None:
    speller = repair_speller(["Check in from 3 PM. Late check out on request."])
    assert speller.correct("what time is checkin").text == "what time is check in"
    assert speller.correct("can I check in early").text == "can I check in early"  # left alone


def test_leaves_correct_and_common_words_alone(bakery: Speller) -> None:
    untouched = [
        "What time do you open on Saturday and how much is it?",
        "Do you sell gift cards?",  # not in the vocabulary but common words
        "Are you opening later this week?",  # inflection of a common word
        "I booked two cakes yesterday",  # inflections
        "Is the cake vegan?",  # singular of a vocabulary plural
        "Email me at info@sunny-bakry.com or see www.sunnybakry.co.uk/prices",
        "Do you take AMEX?",  # acronym
        "I'd like 3 loaves at 5pm, isn't that fine?",
        "",
    ]
    for message in untouched:
        assert bakery.correct(message) == Correction(message), message


def test_vocabulary_words_are_never_changed(bakery: Speller) -> None:
    for word in bakery.counts:
        for form in (word, word.upper(), word.capitalize()):
            message = f"tell me about {form} please"
            assert bakery.correct(message).text == message


def test_first_letter_rule_and_budget(bakery: Speller) -> None:
    assert bakery.correct("bourdough").text == "bourdough"  # different first letter, not a swap
    assert bakery.correct("srdogh").text == "srdogh"  # 3 edits away
    assert bakery.correct("cke").text == "cke"  # too short to correct


def test_empty_vocabulary_corrects_nothing() -> None:
    speller = repair_speller([])
    assert len(speller) == 0
    assert speller.correct("How much is the sordough?").corrections == ()


def test_a_rarer_real_word_near_a_business_word_is_repaired() -> None:
    """Only the commonest English words are left alone: a visitor's "margarita" at a pizzeria that
    writes "Margherita" is tried as the business's word (the answerer's speller would keep it)."""
    texts = ["Margherita pizza: small $11, medium $14. Diavola $16."]
    assert repair_speller(texts).correct("a medium margarita pizza?").text == "a medium margherita pizza?"
    assert Speller.from_texts(texts).correct("a medium margarita pizza?").text == "a medium margarita pizza?"
    assert "margarita" not in english_words(REPAIR_ENGLISH_MIN_COUNT)
    assert {"what", "open", "much", "when", "where", "price"} <= english_words(REPAIR_ENGLISH_MIN_COUNT)


def _pseudo_words(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    words: set[str] = set()
    while len(words) < n:
        words.add("".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 11))))
    return sorted(words)


def test_speed_on_5000_word_vocabulary() -> None:
    words = _pseudo_words(5000, seed=1)
    speller = repair_speller([" ".join(words)])
    assert len(speller) == 5000
    rng = random.Random(2)
    messages = []
    for _ in range(60):
        chosen = [rng.choice(words) for _ in range(15)]
        for i in rng.sample(range(15), 3):  # three misspelt words per message
            w = chosen[i]
            cut = rng.randrange(1, len(w))
            chosen[i] = w[:cut] + w[cut + 1 :]
        messages.append(" ".join(chosen))
    timings = []
    for message in messages:
        start = time.perf_counter()
        speller.correct(message)
        timings.append((time.perf_counter() - start) * 1000)
    assert statistics.median(timings) < 2.0, statistics.median(timings)


# ---------------------------------------------------------------------------------------------
# Real misspellings (codespell) planted into real questions (DSTC9), per business
# ---------------------------------------------------------------------------------------------


def _codespell_pairs() -> list[tuple[str, str]]:
    pairs = []
    with gzip.open(CODESPELL, "rt", encoding="utf-8") as handle:
        for line in handle:
            wrong, _, right = line.strip().partition("->")
            rights = [r.strip() for r in right.split(",") if r.strip()]
            if len(rights) == 1 and wrong.isalpha() and rights[0].isalpha():
                pairs.append((wrong.lower(), rights[0].lower()))
    return pairs


def _dstc9_questions() -> list[tuple[str, list[str]]]:
    knowledge = json.loads((DSTC9 / "knowledge.json").read_text())
    logs = json.loads((DSTC9 / "val_subset" / "logs.json").read_text())
    labels = json.loads((DSTC9 / "val_subset" / "labels.json").read_text())
    out = []
    for log, label in zip(logs, labels, strict=True):
        gold = label["knowledge"][0]
        entities = knowledge[gold["domain"]]
        entity = entities.get(str(gold["entity_id"])) or entities["*"]
        docs = [f"{d['title']}\n{d['body']}" for d in entity["docs"].values()]
        out.append((log[-1]["text"], docs))
    return out


@needs_eval(CODESPELL, DSTC9)
def test_real_misspellings_planted_in_real_questions() -> None:
    pairs = _codespell_pairs()
    misspellings: dict[str, list[str]] = defaultdict(list)
    aliases: dict[str, set[str]] = defaultdict(set)  # a misspelling the business itself uses
    for wrong, right in pairs:
        misspellings[right].append(wrong)
        aliases[wrong].add(right)

    from spacy.lang.en.stop_words import STOP_WORDS  # content words: not spaCy's stop words

    planted = corrected = content_planted = content_corrected = 0
    words_seen = words_changed = 0
    vocabulary_words = vocabulary_changed = 0
    for question, docs in _dstc9_questions():
        speller = repair_speller(docs)
        tokens = re.findall(r"[^\W\d_]+", question)
        words_seen += len(tokens)
        words_changed += len(speller.correct(question).corrections)
        for token in set(tokens):
            lower = token.lower()
            if lower in speller.counts:
                vocabulary_words += 1
                vocabulary_changed += any(
                    a.lower() == lower for a, _ in speller.correct(question).corrections
                )
            if len(lower) < 4 or lower not in speller.counts:
                continue
            for wrong in misspellings.get(lower, []):
                if len(wrong) < 4:
                    continue
                result = speller.correct(re.sub(rf"\b{re.escape(token)}\b", wrong, question))
                fixed = {
                    a.lower().removesuffix("'s"): b.lower().removesuffix("'s") for a, b in result.corrections
                }
                ok = fixed.get(wrong) == lower or lower in aliases.get(fixed.get(wrong, ""), set())
                planted += 1
                corrected += ok
                if lower not in STOP_WORDS:
                    content_planted += 1
                    content_corrected += ok

    assert planted > 1000
    rate = corrected / planted
    content_rate = content_corrected / content_planted
    false_rate = words_changed / words_seen
    print(
        f"\nplanted {planted}: corrected {rate:.3f}; content words {content_planted}: {content_rate:.3f}; "
        f"words changed in unmodified questions {words_changed}/{words_seen} = {false_rate:.4f}; "
        f"vocabulary words changed {vocabulary_changed}/{vocabulary_words}"
    )
    assert rate >= 0.85
    assert content_rate >= 0.85
    assert vocabulary_changed == 0
    assert false_rate <= 0.01


def test_a_closer_common_word_that_is_a_form_of_a_business_word_is_the_correction() -> None:
    speller = repair_speller(["Franciscan Crab does not offer delivery service. Takeout is available."])
    assert speller.correct("do they delver food").text == "do they deliver food"
    # A closer common word unrelated to the business still blocks: the writer may have typed a name.
    bakery = repair_speller(["We bake sourdough and rye. Cakes need 48 hours notice."])
    assert bakery.correct("is Mika in today").text == "is Mika in today"


def test_a_noun_the_business_never_writes_becomes_its_word_for_the_same_thing() -> None:
    speller = repair_speller(["Courgettes, per kg: $7.", "Plus nappies and wipes.", "Peaches per kg $8."])
    assert speller.in_own_words("price of zucchini?").text == "price of courgette?"
    assert speller.in_own_words("bring my own diapers?").text == "bring my own nappy?"
    # Words the business writes, and nouns with no name it writes, stay.
    assert not speller.in_own_words("how much are peaches").changed
    assert not speller.in_own_words("do you sell eggplant?").changed
