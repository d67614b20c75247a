"""Contractions typed without their apostrophe get it back (apps/language/contractions.py)."""

from __future__ import annotations

import pytest

from apps.language.contractions import with_apostrophes


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("we dont do rabbits, sorry", "we don't do rabbits, sorry"),
        ("cant deliver on sundays", "can't deliver on sundays"),
        ("we wont be open, it isnt ready", "we won't be open, it isn't ready"),
        ("thats the grooming", "that's the grooming"),
        ("Im off mondays, youll love it", "I'm off mondays, you'll love it"),
        ("whats the price", "what's the price"),
        # "its" owning no noun is "it's" (read on the parse); a possessive stays.
        ("its €18 a day", "it's €18 a day"),
        ("nope its a 10 min walk", "nope it's a 10 min walk"),
        ("its not open on sundays", "it's not open on sundays"),
        (
            "the shop and its garden are open, its price is fair",
            "the shop and its garden are open, its price is fair",
        ),
        # Words that only look like a contraction stay as written.
        ("bring photo id on wed", "bring photo id on wed"),
        ("I feel ill, well done", "I feel ill, well done"),
        ("don't change what is already right", "don't change what is already right"),
    ],
)
def test_a_contraction_typed_without_its_apostrophe_gets_it_back(typed: str, meant: str) -> None:
    assert with_apostrophes(typed) == meant
