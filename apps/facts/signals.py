"""What the knowledge layer announces. Higher layers (retrieval) listen; facts never import them."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection, transaction
from django.dispatch import Signal

# Sent after the transaction that changed the topics commits.
# kwargs: schema_name (str), topic_ids (frozenset[int])
topics_changed = Signal()


def announce_topics_changed(topic_ids: Iterable[int]) -> None:
    ids = frozenset(topic_ids)
    if not ids:
        return
    schema_name = connection.schema_name
    transaction.on_commit(lambda: topics_changed.send(sender="facts", schema_name=schema_name, topic_ids=ids))
