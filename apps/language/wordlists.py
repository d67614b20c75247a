"""Readers for the word tables in ``apps/language/data/`` (data, not code: a table grows by editing
a text file, never by adding a branch)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

__all__ = ["DATA_DIR", "categories", "words"]

DATA_DIR = Path(__file__).with_name("data")


def _lines(name: str) -> list[str]:
    text = (DATA_DIR / name).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


@cache
def words(name: str) -> frozenset[str]:
    """A one-word-a-line table, lowercased."""
    return frozenset(line.lower() for line in _lines(name))


@cache
def categories(name: str, *, separator: str | None = None) -> dict[str, tuple[str, ...]]:
    """A ``category: item item ...`` table; items are split on whitespace, or on ``separator``
    (for tables of multi-word phrases)."""
    table: dict[str, tuple[str, ...]] = {}
    for line in _lines(name):
        category, _, rest = line.partition(":")
        items = rest.split(separator) if separator else rest.split()
        table[category.strip()] = tuple(i.strip().lower() for i in items if i.strip())
    return table
