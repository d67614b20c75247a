"""A cheap gate in front of retrieval: greetings, thanks, goodbyes and social filler get a short friendly
reply without an embedding, a search or a model call.

Seed 004: a greeting answered from an empty (or irrelevant) context block teaches the model to invent
structure, and an LLM-based gate puts its own model call in front of the first token. So this is a
heuristic, and it is deliberately biased toward retrieving: a message is gated only when *every* word in
it is social vocabulary. One word of content ("hi, are you open sunday?") sends it on to retrieval.
"""

from __future__ import annotations

import re
import unicodedata

GREETING_REPLY = "Hello! How can I help you today?"
HOW_ARE_YOU_REPLY = "I'm doing well, thanks for asking! How can I help you today?"
THANKS_REPLY = "You're welcome! Is there anything else I can help with?"
GOODBYE_REPLY = "Thanks for stopping by. Have a great day!"
FILLER_REPLY = "Great! Let me know if there's anything else you'd like to know."

# Each word a social message may consist of, by the kind of message it signals. Words shared by several
# kinds ("good" in "good morning" and "good bye") are in the weakest kind; the strongest kind present
# picks the reply (goodbye > thanks > how-are-you > greeting > filler).
# fmt: off
_GREETING = {
    "hi", "hii", "hello", "hey", "heya", "hiya", "howdy", "yo", "greetings", "morning", "afternoon",
    "evening", "hola", "bonjour", "ciao", "salut", "hallo", "aloha", "sup", "there", "everyone", "all",
    "folks", "team", "guys", "anyone", "anybody",
}
_HOW_ARE_YOU = {"how", "are", "you", "doing", "is", "it", "going", "whats", "up", "u", "ya", "r", "hows", "today"}
_THANKS = {
    "thanks", "thank", "thx", "thnx", "ty", "tysm", "tyvm", "cheers", "appreciate", "appreciated",
    "grateful", "merci", "gracias", "danke", "much", "so", "very", "a", "lot", "for", "the", "help",
    "your", "it", "that", "this", "info", "information", "answer", "answers", "reply",
}
_GOODBYE = {
    "bye", "goodbye", "byebye", "cya", "see", "ya", "you", "later", "soon", "take", "care", "have", "a",
    "nice", "good", "great", "day", "night", "evening", "weekend", "one", "thats", "all", "for", "now",
    "ttyl", "farewell", "adios", "goodnight",
}
_FILLER = {
    "ok", "okay", "okey", "k", "kk", "okie", "cool", "great", "nice", "good", "awesome", "perfect", "sure",
    "alright", "right", "fine", "fab", "lovely", "excellent", "amazing", "wonderful", "got", "it", "gotcha",
    "understood", "noted", "lol", "haha", "hahaha", "hehe", "wow", "oh", "ah", "ahh", "i", "see",
    "sounds", "makes", "sense", "will", "do", "super", "brilliant", "neat", "np", "no", "problem",
    "worries", "thats", "that", "is", "very", "really", "so", "well", "hmm", "mm", "ooh", "yay",
}

_STRONG_GOODBYE = {"bye", "goodbye", "byebye", "cya", "later", "ttyl", "farewell", "adios", "goodnight", "care"}
_STRONG_THANKS = {
    "thanks", "thank", "thx", "thnx", "ty", "tysm", "tyvm", "cheers", "appreciate", "appreciated", "grateful",
    "merci", "gracias", "danke",
}
_STRONG_GREETING = {
    "hi", "hii", "hello", "hey", "heya", "hiya", "howdy", "yo", "greetings", "morning", "afternoon", "hola",
    "bonjour", "ciao", "salut", "hallo", "aloha", "sup",
}
# fmt: on
_VOCAB = _GREETING | _HOW_ARE_YOU | _THANKS | _GOODBYE | _FILLER | {"good", "and", "again", "oh", "well"}

# Longer than this and it is almost never only social talk; the gate would rather retrieve.
_MAX_WORDS = 10


def gate(message: str) -> str | None:
    """A short friendly reply for a purely social message, or None to send it on to retrieval."""
    text = _normalise(message)
    words = re.findall(r"[a-z]+", text)
    emoji_only = not words and _has_emoji(message)
    if emoji_only:
        return THANKS_REPLY if any(ch in message for ch in "🙏❤♥😍🥰") else FILLER_REPLY
    if not words or len(words) > _MAX_WORDS:
        return None
    # Digits, currency or an @ mean content ("ok, 3 loaves", "hi $8?"): retrieve.
    if re.search(r"[0-9$£€@/]", text):
        return None
    words = [_canonical(w) for w in words]
    if any(w not in _VOCAB for w in words):
        return None
    present = set(words)
    if present & _STRONG_GOODBYE or any(
        _has_phrase(words, phrase)
        for phrase in (("have", "a"), ("good", "night"), ("see", "you"), ("see", "ya"))
    ):
        return GOODBYE_REPLY
    if present & _STRONG_THANKS:
        return THANKS_REPLY
    if _is_how_are_you(words):
        return HOW_ARE_YOU_REPLY
    if (
        present & _STRONG_GREETING
        or _has_phrase(words, ("good", "morning"))
        or _has_phrase(words, ("good", "evening"))
    ):
        return GREETING_REPLY
    if present <= _FILLER | {"and", "again", "oh", "well"}:
        return FILLER_REPLY
    # Only weak words from different kinds ("you there", "for the"): nothing social to answer, and
    # nothing to retrieve either, but retrieval plus the unknown reply is the honest path.
    return None


def _normalise(message: str) -> str:
    text = unicodedata.normalize("NFKC", message or "").lower()
    text = text.replace("\u2019", "'")
    # "what's", "that's", "how's": drop the apostrophe so they are one vocabulary word each.
    return re.sub(r"'", "", text)


def _canonical(word: str) -> str:
    """Collapse stretched spelling ("hiiii", "thanksss", "okkk", "coooool") onto the vocabulary."""
    if word in _VOCAB:
        return word
    for repeat in (r"\1", r"\1\1"):
        squeezed = re.sub(r"(.)\1{2,}", repeat, word)
        if squeezed in _VOCAB:
            return squeezed
        squeezed = re.sub(r"(.)\1+", repeat, word)
        if squeezed in _VOCAB:
            return squeezed
    return word


def _has_phrase(words: list[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(tuple(words[i : i + n]) == phrase for i in range(len(words) - n + 1))


def _is_how_are_you(words: list[str]) -> bool:
    return (
        _has_phrase(words, ("how", "are", "you"))
        or _has_phrase(words, ("how", "r", "u"))
        or _has_phrase(words, ("how", "are", "u"))
        or _has_phrase(words, ("hows", "it", "going"))
        or _has_phrase(words, ("whats", "up"))
        or "sup" in words
    )


def _has_emoji(message: str) -> bool:
    return any(unicodedata.category(ch) == "So" for ch in message)
