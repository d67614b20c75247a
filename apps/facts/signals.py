"""What the knowledge layer announces. Higher layers (retrieval) listen; facts never import them."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection
from django.dispatch import Signal

# Sent inside the transaction that changed the topics, so that derived data (the retrieval index)
# commits or rolls back together with the facts it was derived from.
# kwargs: schema_name (str), topic_ids (frozenset[int])
topics_changed = Signal()


def announce_topics_changed(topic_ids: Iterable[int]) -> None:
    ids = frozenset(topic_ids)
    if ids:
        topics_changed.send(sender="facts", schema_name=connection.schema_name, topic_ids=ids)
