"""Contractions typed without their apostrophe ("dont", "cant", "thats", "youre"): the apostrophe put
back, so every rule that reads a negation or "'s" sees what was meant. "we dont do rabbits" had been
stored as "<business> does rabbits".

spaCy's English tokenizer already knows these forms: its exceptions split "dont" into "do" + "nt"
(normalised "not"), "thats" into "that" + "s". This writes the apostrophe into the split it made and
nothing else, so words that only look like a contraction stay ("its", "ill", "well", "shell"). The
"d" split is left alone: the tokenizer also splits "id" ("photo id") and "wed" (Wednesday) so.
"""

from __future__ import annotations

from apps.language.pipeline import nlp

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
    return "".join(out)
