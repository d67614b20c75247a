"""WordNet through apps.language.lexicon: pinned data, and kinds of one thing told from synonyms."""

from __future__ import annotations

import shutil

import pytest

from apps.language import lexicon
from apps.language.lexicon import LexiconError


@pytest.mark.parametrize(
    ("a", "b"),
    [("tea", "coffee"), ("car", "bike"), ("mouse", "rat"), ("manicure", "pedicure"), ("breakfast", "lunch")],
)
def test_kinds_of_one_thing_are_co_hyponyms(a, b):
    assert lexicon.co_hyponyms(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("exam", "examination"),  # one synset
        ("treatment", "massage"),  # one is a kind of the other
        ("price", "fee"),  # too far apart in the graph to call kin
        ("invisalign", "aligner"),  # not in WordNet: the embedding decides
    ],
)
def test_synonyms_kinds_and_unknown_words_are_not(a, b):
    assert not lexicon.co_hyponyms(a, b)


@pytest.mark.parametrize(
    ("specific", "general", "expected"),
    [
        ("crate", "box", True),  # "plastic crate hire" answers "can I hire plastic boxes?"
        ("hatchback", "car", True),
        ("kayak", "boat", True),  # three steps up: kayak, canoe, small boat, boat
        ("box", "crate", False),  # a box is not a kind of crate
        ("cat", "dog", False),  # kin, not kinds
        ("exam", "examination", False),  # one sense: sense_mates, not a kind
        ("dog", "entity", False),  # far up the hierarchy: a category nobody asks for
        ("zzzblorf", "box", False),
    ],
)
def test_a_kind_of_a_thing_is_found_a_few_steps_below_it(specific, general, expected):
    assert lexicon.kind_of(specific, general) is expected


@pytest.mark.parametrize(
    ("specific", "general", "expected"),
    [
        ("house", "home", True),  # a house is a dwelling, which "home" names in its third sense
        ("christmas", "holiday", True),  # Christmas Day, a legal holiday
        ("rat", "rodent", True),
        ("exam", "examination", True),  # one sense
        ("home", "house", False),  # the wider word is not a kind of the narrower
        ("flea", "dog", False),
        ("space", "room", False),
        ("zzzblorf", "box", False),
    ],
)
def test_a_kind_in_any_of_a_nouns_first_senses(specific, general, expected):
    assert lexicon.one_of_a_kind(specific, general) is expected


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("cat", "dog", True),  # they meet at carnivore, two steps above each
        ("baby", "toddler", True),
        ("pet", "dog", False),  # "pet" is one step below animal: a wider word, not another kind
        ("puppy", "dog", False),  # a kind of dog
        ("cot", "crib", False),  # one sense (a baby's bed)
        ("zzzblorf", "dog", False),
    ],
)
def test_separate_kinds_of_one_thing(a, b, expected):
    assert lexicon.separate_kinds(a, b) is expected


def test_the_years_seasons_are_told_from_other_periods():
    assert all(lexicon.is_season(w) for w in ("summer", "winter", "autumn", "fall", "spring"))
    assert not any(lexicon.is_season(w) for w in ("term", "week", "christmas", "season", "fling"))


def test_time_away_from_work_is_told_by_wordnet():
    assert all(lexicon.names_time_off(w) for w in ("holiday", "break", "vacation", "leave"))
    assert not any(lexicon.names_time_off(w) for w in ("refit", "lunch", "party", "tools", "zzzblorf"))


def test_specific_verbs_have_few_senses_and_light_verbs_many():
    assert lexicon.verb_senses("expire") <= 6 < lexicon.verb_senses("come")
    assert lexicon.verb_senses("shrink") <= 6 < lexicon.verb_senses("take")
    assert lexicon.verb_senses("zzzblorf") is None


def test_a_changed_data_file_is_refused_with_a_clear_message(tmp_path):
    source = lexicon._package_folder()
    for name in lexicon._pins()["files"]:
        shutil.copy(source / name, tmp_path / name)
    lexicon.verify_data(tmp_path)  # the installed copy is the pinned one
    with (tmp_path / "lexnames").open("ab") as handle:
        handle.write(b"45\tnoun.extra\t1\r\n")
    with pytest.raises(LexiconError, match=r"lexnames has sha256 .* expected"):
        lexicon.verify_data(tmp_path)
    (tmp_path / "noun.exc").unlink()
    with pytest.raises(LexiconError, match=r"noun\.exc is missing"):
        lexicon.verify_data(tmp_path)


def test_the_reader_gets_unix_line_endings_the_index_offsets_assume():
    folder = lexicon.data_dir()
    assert b"\r\n" not in (folder / "index.noun").read_bytes()[:100_000]


def test_the_copy_lives_in_the_data_folder_and_an_altered_copy_is_rewritten(settings, tmp_path):
    settings.DATA_DIR = tmp_path
    folder = lexicon.data_dir()
    assert folder.parent == tmp_path / "models"
    pristine = (folder / "lexnames").read_bytes()
    (folder / "lexnames").write_bytes(pristine + b"45\tnoun.planted\t1\n")
    again = lexicon.data_dir()
    assert (again / "lexnames").read_bytes() == pristine


def test_same_sense_joins_synonyms_and_words_for_one_doing():
    assert lexicon.same_sense("booking", "reservation")  # one noun sense
    assert lexicon.same_sense("collection", "pick-up")  # collect / pick up: one verb sense
    assert lexicon.same_sense("hire", "rental")
    assert not lexicon.same_sense("collection", "delivery")
    assert not lexicon.same_sense("pickup", "delivery")
    assert not lexicon.same_sense("towel", "towel")  # one word is no synonym of itself
    assert not lexicon.same_sense("qwzx", "booking")  # not in WordNet
