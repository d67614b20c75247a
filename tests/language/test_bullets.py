"""List markers at the start of a line, whatever the writer typed or pasted (apps/language/bullets.py)."""

from __future__ import annotations

import pytest

from apps.language.bullets import bullet_body, strip_bullet


@pytest.mark.parametrize(
    "line",
    [
        "- Gel polish $35",
        "* Gel polish $35",
        "+ Gel polish $35",
        "\u2022 Gel polish $35",  # a website's bullet
        "\u2022Gel polish $35",  # pasted without its space
        "  \u25aa Gel polish $35",
        "\u2605 Gel polish $35",  # a flyer's star
        "\u2714\ufe0f Gel polish $35",  # an emoji with its variation selector
        "\u27a4 Gel polish $35",
        "\uf0b7 Gel polish $35",  # Word's Symbol-font bullet, a private-use character
        "3. Gel polish $35",
        "12) Gel polish $35",
    ],
)
def test_a_marker_opens_a_list_item(line: str) -> None:
    assert bullet_body(line) == "Gel polish $35"
    assert strip_bullet(line) == "Gel polish $35"


@pytest.mark.parametrize(
    "line",
    [
        "-5\u00b0C in the cold store",  # a minus sign
        "*Terms apply",
        "+\u00a35 for delivery",
        "2.5 hours per session",
        "$35 for a gel polish",  # a currency sign opens text
        "\u00a335 for a gel polish",
        "(closed Mondays)",
        "Gel polish $35",
        "\u2605",
    ],
)
def test_text_that_only_starts_with_a_sign_is_no_list_item(line: str) -> None:
    assert bullet_body(line) is None
    assert strip_bullet(f"  {line} ") == line
