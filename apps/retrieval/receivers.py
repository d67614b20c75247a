"""Listening to the knowledge layer: re-index the topics whose facts changed."""

from __future__ import annotations

import logging
from typing import Any

from django_tenants.utils import schema_context

from apps.retrieval.index import index_topics

logger = logging.getLogger(__name__)


def reindex_changed_topics(
    sender: Any, *, schema_name: str, topic_ids: frozenset[int], **kwargs: Any
) -> None:
    # Enter the business's schema explicitly: the signal may be delivered after the request or task
    # that changed the facts has left it.
    with schema_context(schema_name):
        index_topics(topic_ids)
