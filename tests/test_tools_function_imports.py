"""tools/function_imports.py finds a function-level import without a reason and accepts one with it."""

from __future__ import annotations

from pathlib import Path

from tools.function_imports import findings

SOURCE = """\
import json


def plain():
    from decimal import Decimal

    return Decimal(json.dumps(1))


def heavy():
    # Lazy: spaCy loads its model (3 s); only the first parse needs it.
    import spacy
    from spacy.tokens import Token

    import statistics  # the same line says why too

    return spacy, Token, statistics


def pragma_only():
    import fractions  # noqa: F401


def separated():
    # A comment with a blank line under it covers nothing.

    import string
"""


def test_finds_the_imports_without_a_reason_only(tmp_path: Path) -> None:
    path = tmp_path / "module.py"
    path.write_text(SOURCE, encoding="utf-8")

    found = list(findings([path]))

    assert [line.split(": ", 1)[1] for line in found] == [
        "from decimal import Decimal",
        "import fractions  # noqa: F401",
        "import string",
    ]
    assert found[0].startswith(f"{path}:5: ")
