"""What the knowledge layer announces. Higher layers (retrieval) listen; facts never import them."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from contextvars import ContextVar

from django.dispatch import Signal

from apps.tenants.db import current_schema

# Sent inside the transaction that changed the topics, so that derived data (the retrieval index)
# commits or rolls back together with the facts it was derived from.
# kwargs: schema_name (str), topic_ids (frozenset[int])
topics_changed = Signal()

_batch: ContextVar[set[int] | None] = ContextVar("facts_topics_batch", default=None)


def announce_topics_changed(topic_ids: Iterable[int]) -> None:
    ids = frozenset(topic_ids)
    if not ids:
        return
    batch = _batch.get()
    if batch is not None:
        batch.update(ids)
        return
    topics_changed.send(sender="facts", schema_name=current_schema(), topic_ids=ids)


@contextlib.contextmanager
def topics_batched() -> Iterator[set[int]]:
    """Bulk ingestion (a crawl, an evaluation load): announce each changed topic once, at the end.

    If the block fails, what it committed is still announced, so listeners never miss a change."""
    if _batch.get() is not None:  # nested: the outermost block announces
        yield _batch.get() or set()
        return
    pending: set[int] = set()
    token = _batch.set(pending)
    try:
        yield pending
    finally:
        _batch.reset(token)
        if pending:
            topics_changed.send(sender="facts", schema_name=current_schema(), topic_ids=frozenset(pending))
