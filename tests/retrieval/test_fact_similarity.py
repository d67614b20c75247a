"""Each fact's own similarity to the question (the built-in answerer's closest-fact signal), with the
real embedding model: the fact that answers scores highest, and a fact's vector is embedded once per
process, not once per turn."""

from __future__ import annotations

from datetime import date, datetime

from apps.facts.selectors import RenderedFact, RenderedTopic
from apps.retrieval import embedding
from apps.retrieval.fact_similarity import fact_similarity, forget_fact_vectors


def _topic(topic_id: int, name: str, *statements: tuple[int, str]) -> RenderedTopic:
    facts = tuple(
        RenderedFact(
            id=fact_id,
            statement=text,
            state="current",
            learned_at=datetime(2026, 11, 1),
            valid_from=None,
            valid_to=None,
            sources=(),
            line=text,
        )
        for fact_id, text in statements
    )
    return RenderedTopic(topic_id=topic_id, name=name, on=date(2026, 12, 1), text="", facts=facts)


CONTEXT = [
    _topic(1, "Tuning", (1, "A standard tuning takes about 90 minutes."), (2, "Tuning: $140 per visit.")),
    _topic(2, "Area", (3, "Harbour Piano Tuning covers addresses within 25 miles.")),
]


def test_the_fact_that_answers_is_the_closest() -> None:
    scores = fact_similarity("how long does tuning a piano take?", CONTEXT)
    assert set(scores) == {1, 2, 3}
    assert max(scores, key=scores.__getitem__) == 1
    assert all(-1.0 <= s <= 1.0 for s in scores.values())


def test_a_fact_is_embedded_once_per_process(monkeypatch) -> None:
    forget_fact_vectors()
    embedded: list[str] = []
    real = embedding.embed_queries

    def counting(texts):
        embedded.extend(texts)
        return real(texts)

    monkeypatch.setattr(embedding, "embed_queries", counting)
    first = fact_similarity("how much is a tuning?", CONTEXT)
    again = fact_similarity("do you cover my town?", CONTEXT)
    # The three facts, each once under its topic and once alone; the questions go elsewhere.
    assert len(embedded) == 6, embedded
    assert first.keys() == again.keys()


def test_no_question_or_no_facts_gives_nothing() -> None:
    assert fact_similarity("  ", CONTEXT) == {}
    assert fact_similarity("how much?", []) == {}


def test_a_poorly_named_topic_does_not_hide_its_statement() -> None:
    """The extractor names topics, and a name can miss what the line is about: the statement read
    alone counts as much as under its topic, so a Mother's Day special filed under the combo it sells
    is as close to a question about a Mother's Day deal as the statement is."""
    misnamed = [
        _topic(
            1,
            "Gel manicure + classic pedicure combo",
            (1, "Mother's Day special: gel manicure + classic pedicure combo for $70, May 4-10."),
        )
    ]
    question = "is there a mothers day deal"
    alone = float(
        embedding.embed_queries([misnamed[0].facts[0].statement])[0] @ embedding.embed_query(question)
    )
    assert fact_similarity(question, misnamed)[1] >= alone - 1e-6
