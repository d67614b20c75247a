"""Chat shorthand written out before a question or an owner's answer is read (apps/language/shorthand.py)."""

from __future__ import annotations

import datetime as dt

import pytest

from apps.language.analysis import analyse
from apps.language.shorthand import written_out


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("r u open 2day?", "are you open today?"),
        ("wat time do u close tmrw", "what time do you close tomorrow"),
        ("can i bring ur dog n my cat", "can i bring your dog and my cat"),
        ("we r closed b4 xmas", "we are closed before christmas"),
        ("how much is a bday cake", "how much is a birthday cake"),
    ],
)
def test_shorthand_is_written_out(typed: str, meant: str) -> None:
    assert written_out(typed) == meant


@pytest.mark.parametrize("text", ["Studio R is open late", "a U2 tribute night", "n/a", "Open 9-5, Mon-Fri."])
def test_names_and_other_text_stay_as_written(text: str) -> None:
    assert written_out(text) == text


def test_the_question_reads_as_meant() -> None:
    """ "r u open today?" is a question about today once written out."""
    base = dt.date(2027, 12, 30)
    assert analyse(written_out("r u open 2day?"), base_date=base).day == base


def test_xmas_is_christmas_and_its_days_are_dates() -> None:
    """ "xmas eve" is Christmas Eve once written out (it had named no day, and the usual hours were
    given for it)."""
    base = dt.date(2026, 12, 16)
    asked = written_out("what time do you shut on xmas eve")
    assert analyse(asked, base_date=base).day == dt.date(2026, 12, 24)
