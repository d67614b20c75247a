"""The key two words meet on (apps/language/words.py): the answerer, the knowledge rules and
retrieval's confidence compare words by it, so every form a visitor or an owner writes of one word
must meet, and two different words must not."""

from __future__ import annotations

import threading

import pytest

from apps.language import lexicon
from apps.language.words import noun_key, word_key


@pytest.mark.parametrize(
    ("forms", "key"),
    [
        # Inflections, regular and not, from the dictionary.
        (("child", "children", "kids", "kid"), "child"),
        (("close", "closes", "closed", "closing"), "close"),
        (("sell", "sells", "selling", "sold"), "sell"),
        (("loaf", "loaves"), "loaf"),
        (("tooth", "teeth"), "tooth"),
        # An act and its verb (WordNet's derivations).
        (("deliver", "delivers", "delivery", "deliveries"), "deliver"),
        (("book", "booking", "bookings"), "book"),
        (("cancel", "cancelled", "canceled", "cancellation"), "cancel"),
        (("pay", "paid", "payment", "payments"), "pay"),
        (("pierce", "pierced", "piercing", "piercings"), "pierce"),
        # British and American spellings (spaCy's norm table).
        (("colour", "colours", "color", "colors"), "color"),
        (("tyre", "tyres", "tire", "tires"), "tire"),
        (("flavour", "flavours", "flavor"), "flavor"),
        # Abbreviated units (pint) and plurals no dictionary lists (lemminflect's rules).
        (("hrs", "hr", "hour", "hours"), "hour"),
        (("mins", "min", "minute", "minutes"), "minute"),
        (("cleaning", "cleanings"), "clean"),
        (("cappuccino", "cappuccinos"), "cappuccino"),
        # One everyday sense named by two words, both attested in it.
        (("store", "stores", "shop", "shops"), "shop"),
        (("photo", "photos", "photograph"), "photograph"),
        # ... or one word in every sense of either, attested or not.
        (("courgette", "courgettes", "zucchini"), "zucchini"),
        (("grownup", "grownups", "adult", "adults"), "adult"),
        # An adjective made from a unit of time is that unit ("hourly rate" / "first hour").
        (("hourly", "hour", "hours"), "hour"),
        (("weekly", "week", "weeks"), "week"),
        (("daily", "day", "days"), "day"),
    ],
)
def test_forms_of_one_word_meet(forms: tuple[str, ...], key: str) -> None:
    assert {word_key(form) for form in forms} == {key}


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("bike", "motorcycle"),  # WordNet lists the motorcycle sense first, with no count for either
        ("teacher", "teach"),  # a person is not the act
        ("news", "new"),
        ("tea", "coffee"),
        ("exam", "cleaning"),
        ("vet", "veteran"),
        ("personal", "person"),  # an adjective keeps its key unless it is made from a unit of time
    ],
)
def test_different_words_stay_apart(one: str, other: str) -> None:
    assert word_key(one) != word_key(other)


def test_numbers_and_codes_are_compared_as_written() -> None:
    assert word_key("10") == "10"
    assert word_key("e-bike") == "e-bike"
    assert word_key("Sourdough's") == "sourdough"


def test_a_name_keeps_its_own_noun() -> None:
    """Topic names compare nouns only: "Bookings" is not "Books", though a visitor who books asks
    about bookings."""
    assert noun_key("Bookings") == "booking" != noun_key("Books") == "book"
    assert noun_key("Loaves") == "loaf"
    assert noun_key("Tyres") == noun_key("tire") == "tire"


def test_wordnet_is_read_by_one_thread_at_a_time() -> None:
    """NLTK's WordNet reader shares one file handle per data file: two threads reading at once got
    each other's lines (a WordNetError under fifty concurrent chat turns). Every query holds a lock."""
    nouns = [
        "appointment", "garden", "haircut", "lesson", "ticket", "voucher", "repair", "delivery",
        "massage", "pizza", "kennel", "licence", "mortgage", "invoice", "refund", "estimate",
    ]  # fmt: skip
    for function in (lexicon.event_verb, lexicon.synonym_head, lexicon.lexical_file):
        function.cache_clear()
    errors: list[BaseException] = []

    def read(offset: int) -> None:
        try:
            for noun in nouns[offset:] + nouns[:offset]:
                lexicon.event_verb(noun)
                lexicon.synonym_head(noun)
                lexicon.lexical_file(noun)
        except Exception as exc:  # any reader error fails the test below
            errors.append(exc)

    threads = [threading.Thread(target=read, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
