"""Does the visitor ask for a person? ("Can I talk to a human?", "get me the owner", "speak to staff")

Two signals, both from components the product already runs, and no list of trigger words:
1. meaning: the message's embedding (the retrieval model) is close to a few sentences that *define*
   the intent; a word list would grow by one entry per miss, these describe what is asked;
2. form (apps/language's parse): the visitor makes the request themselves: an imperative ("put me
   through to..."), a first-person subject ("can I speak to..."), "is there ...", or a fragment
   ("a real person please"). A question *about* the business's people ("Is the owner friendly?", "Do
   your staff speak French?") has another subject and is answered from the knowledge instead; on
   meaning alone it scores close to a request.
Measured on tests/chat/test_person_request.py's examples (written before the threshold was set): the
requests score 0.52-0.69, questions about people at most 0.49 and fail the form test as well.
The widget's "Talk to a person" button is the sure way; this catches the visitor who types it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from django.utils import timezone

from apps.language.analysis import analyse
from apps.retrieval.embedding import embed_queries, embed_query_kept, model_id

# What the intent is, in a few plain sentences (not examples of misses).
_INTENT = (
    "I want to talk to a real person, not a bot.",
    "Can a human member of your staff chat with me?",
    "Please connect me to someone who works there.",
    "Put me through to an agent, a representative or a manager.",
    "Let me speak with the owner.",
)
THRESHOLD = 0.50
_MAX_WORDS = 16  # longer messages carry a question of their own: answer it (the button still works)
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})


@lru_cache(maxsize=4)
def _intent_vectors(model_id: str) -> Any:
    return np.asarray(embed_queries(list(_INTENT)))


def intent_similarity(text: str) -> float:
    # Kept: retrieval embeds the same message next and finds its vector ready.
    return float((_intent_vectors(model_id()) @ embed_query_kept(text)).max())


def visitor_requests(text: str) -> bool:
    """The message is the visitor's own request, not a question about someone (see the module)."""
    # The day the turn analyses the question with, so this reads the same cached parse.
    tokens = analyse(text, base_date=timezone.localdate()).tokens
    roots = [t for t in tokens if t.dep == "ROOT"]
    for root in roots:
        subjects = [t for t in tokens if t.head == root.i and t.i != root.i and t.dep in _SUBJECT_DEPS]
        if any(t.dep == "expl" and t.head == root.i for t in tokens):
            return True  # "is there a person I can chat with?"
        if not subjects:
            return True  # an imperative or a fragment
        if any(t.tag == "PRP" and t.lemma in {"i", "we"} for t in subjects):
            return True  # the first person (the grammar's, not a topic word)
    return False


def asks_for_person(text: str) -> bool:
    words = text.split()
    if not words or len(words) > _MAX_WORDS:
        return False
    # The form first: its parse is the one the turn reads anyway (cached); most questions ("Do you...?")
    # stop there, before an embedding.
    return visitor_requests(text) and intent_similarity(text) >= THRESHOLD
