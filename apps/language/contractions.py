"""Contractions typed without their apostrophe ("dont", "cant", "thats", "youre"): the apostrophe put
back, so every rule that reads a negation or "'s" sees what was meant. "we dont do rabbits" had been
stored as "<business> does rabbits".

spaCy's English tokenizer already knows these forms: its exceptions split "dont" into "do" + "nt"
(normalised "not"), "thats" into "that" + "s". This writes the apostrophe into the split it made and
nothing else, so words that only look like a contraction stay ("ill", "well", "shell"). The "d"
split is left alone: the tokenizer also splits "id" ("photo id") and "wed" (Wednesday) so.

"its" is a word of its own, and "it's" typed without the apostrophe; the parse tells them apart: a
possessive owns a noun, so "its" before a determiner or a negation, or tagged as owning a number, an
adjective or a verb ("nope its $75 now", "its free for kids", "its a 10 min walk"), is "it's".
"""

from __future__ import annotations

from apps.language.pipeline import nlp, parse

__all__ = ["with_apostrophes"]

#: The suffixes the tokenizer splits off a contraction written without its apostrophe.
_SUFFIXES = frozenset({"nt", "s", "m", "re", "ve", "ll"})


def with_apostrophes(text: str) -> str:
    """``text`` with the apostrophe of every contraction the tokenizer splits put back."""
    if not any(ch.isalpha() for ch in text):
        return text
    doc = nlp().tokenizer(text)
    out: list[str] = []
    for i, token in enumerate(doc):
        glued = i > 0 and not doc[i - 1].whitespace_ and doc[i - 1].is_alpha
        if glued and token.lower_ in _SUFFIXES:
            out.append(("n'" + token.text[1:]) if token.lower_ == "nt" else "'" + token.text)
        else:
            out.append(token.text)
        out.append(token.whitespace_)
    text = "".join(out)
    return _it_is(text) if " its " in f" {text.lower()} " else text


def _it_is(text: str) -> str:
    """``text`` with every "its" that cannot be a possessive written "it's" (see the module's note)."""
    doc = parse(text)
    cuts = [
        token.idx
        for token in doc
        if token.lower_ == "its"
        and (
            token.head.pos_ not in ("NOUN", "PROPN")
            or (token.i + 1 < len(doc) and (doc[token.i + 1].tag_ == "DT" or doc[token.i + 1].dep_ == "neg"))
        )
    ]
    for start in reversed(cuts):
        text = f"{text[: start + 2]}'{text[start + 2 :]}"
    return text
