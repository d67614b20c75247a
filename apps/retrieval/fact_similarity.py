"""How close each fact handed to the answerer is to the question, by the model retrieval searched with.

Retrieval ranks topics; a topic holds several facts, and only one of them may be the answer. The
built-in answerer words its replies from word overlap, and when the words differ ("how long till I
get the photos?" / "Edited galleries within 2 weeks") it needs a second signal that a fact is about
what was asked. Each fact is embedded as "topic: statement" with the query encoder (the same side as
the question: MiniLM is symmetric).

Embedding a fact costs about 7 ms on two cores, so a context of twenty facts would add some 140 ms
to a turn. Facts change rarely and the same ones come back turn after turn, so their vectors are kept
per process (keyed by the text itself, so an edited fact is simply a new key); only facts not seen
since the process started cost anything.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from apps.retrieval import embedding

if TYPE_CHECKING:
    from apps.facts.selectors import RenderedTopic

#: Fact vectors kept per process (384 float32 each: 8,192 of them are 12 MB).
RECENT_FACTS = 8192

_lock = threading.Lock()
_recent: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()


def fact_similarity(question: str, context: Sequence[RenderedTopic]) -> dict[int, float]:
    """Cosine similarity of the question to each fact of the context, by fact id: the closer of the
    fact read under its topic ("topic: statement") and the statement alone. A topic is a name the
    extractor chose, and a poorly chosen one ("Gel manicure + classic pedicure combo" for a line
    about a Mother's Day special) must not hide a statement that says what was asked."""
    facts = [
        (fact.id, line)
        for topic in context
        for fact in topic.facts
        for line in _readings(topic.name, fact.statement)
    ]
    if not question.strip() or not facts:
        return {}
    question_vector = np.asarray(embedding.embed_query_kept(question), dtype=np.float32)
    vectors = _fact_vectors([line for _id, line in facts])
    scores = vectors @ question_vector
    best: dict[int, float] = {}
    for (fact_id, _line), score in zip(facts, scores, strict=True):
        best[fact_id] = max(best.get(fact_id, -1.0), float(score))
    return best


def _readings(topic: str, statement: str) -> list[str]:
    return [f"{topic}: {statement}", statement]


def forget_fact_vectors() -> None:
    """Drop the kept fact vectors (benchmarks time a cold turn; tests start clean)."""
    with _lock:
        _recent.clear()


def _fact_vectors(lines: list[str]) -> np.ndarray:
    model = embedding.model_id()  # a different model is a different vector space
    with _lock:
        known = {line: _recent[(model, line)] for line in lines if (model, line) in _recent}
        for line in known:
            _recent.move_to_end((model, line))
    missing = list(dict.fromkeys(line for line in lines if line not in known))
    if missing:
        fresh = np.asarray(embedding.embed_queries(missing), dtype=np.float32)
        with _lock:
            for line, vector in zip(missing, fresh, strict=True):
                vector.setflags(write=False)
                _recent[(model, line)] = vector
                known[line] = vector
            while len(_recent) > RECENT_FACTS:
                _recent.popitem(last=False)
    return np.stack([known[line] for line in lines])
