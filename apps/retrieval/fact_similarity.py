"""How close each fact handed to the answerer is to the question, by the model retrieval searched with.

Retrieval ranks topics; a topic holds several facts, and only one of them may be the answer. The
built-in answerer words its replies from word overlap, and when the words differ ("how long till I
get the photos?" / "Edited galleries within 2 weeks") it needs a second signal that a fact is about
what was asked. Each fact is embedded as "topic: statement" with the query encoder (the same side as
the question: MiniLM is symmetric, and the query encoder is the fast one), a few milliseconds for a
context of twenty facts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from apps.retrieval import embedding

if TYPE_CHECKING:
    from apps.facts.selectors import RenderedTopic


def fact_similarity(question: str, context: Sequence[RenderedTopic]) -> dict[int, float]:
    """Cosine similarity of the question to each fact of the context, by fact id."""
    facts = [(fact.id, f"{topic.name}: {fact.statement}") for topic in context for fact in topic.facts]
    if not question.strip() or not facts:
        return {}
    question_vector = np.asarray(embedding.embed_query_kept(question), dtype=np.float32)
    fact_vectors = np.asarray(embedding.embed_queries([line for _id, line in facts]), dtype=np.float32)
    scores = fact_vectors @ question_vector
    return {fact_id: float(score) for (fact_id, _line), score in zip(facts, scores, strict=True)}
