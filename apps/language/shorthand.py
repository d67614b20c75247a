"""Chat shorthand written out ("r u open 2day?" -> "are you open today?"), so the question's form,
its date and its words read as meant. The table is data (data/shorthand.txt); spaCy's tokenizer
decides what a token is, so only a whole token typed in lower case is replaced ("U2", "Studio R",
"n/a" stay as written)."""

from __future__ import annotations

from functools import cache

from apps.language.pipeline import nlp
from apps.language.wordlists import categories

__all__ = ["written_out"]


@cache
def _table() -> dict[str, str]:
    return {short: " ".join(words) for short, words in categories("shorthand.txt").items()}


def written_out(text: str) -> str:
    """``text`` with every chat shorthand token replaced by the words it stands for."""
    table = _table()
    if not table.keys() & {word.strip("?!.,;:") for word in text.split()}:
        return text  # the common case: nothing to replace, no tokenizer call
    out: list[str] = []
    for token in nlp().tokenizer(text):
        out.append(
            table.get(token.text, token.text) if token.text.islower() or token.is_digit else token.text
        )
        out.append(token.whitespace_)
    return "".join(out)
