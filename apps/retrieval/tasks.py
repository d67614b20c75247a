"""Background work of the retrieval layer (django-q2).

``index_reconcile_all`` runs in the public schema and enters each business's schema itself (the worker runs
every task in public; docs/architecture.md, tenancy rules)."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator

from django_tenants.utils import schema_context

from apps.retrieval.index import ReindexOutcome, index_reconcile
from apps.tenants.models import Business

logger = logging.getLogger(__name__)


def businesses_with_index() -> Iterable[Business]:
    return Business.objects.filter(is_active=True).exclude(schema_name="public").order_by("slug")


def reconcile_each(
    businesses: Iterable[Business], *, rebuild: str
) -> Iterator[tuple[Business, ReindexOutcome]]:
    """``index_reconcile`` for each business, inside its own schema (also used by `manage.py reindex`)."""
    for business in businesses:
        with schema_context(business.schema_name):
            outcome = index_reconcile(rebuild=rebuild)
        yield business, outcome


def index_reconcile_all() -> str:
    """At start-up: does the loaded model still reproduce each business's golden vector, and is each
    index in the configured space (model, question weight)? A stale index is re-embedded beside the
    old one and switched at once; until then retrieval refuses it with the command to run. After a
    model change on a large install, `manage.py reindex` does the same from a terminal."""
    stale = []
    for business, outcome in reconcile_each(businesses_with_index(), rebuild="stale"):
        if outcome.was == "stale":
            stale.append(business.slug)
            logger.warning(
                "search index of %s was stale (%s): re-embedded %d pieces in %.1f s",
                business.slug, outcome.reason, outcome.pieces, outcome.seconds,
            )  # fmt: skip
    return f"{len(stale)} stale search indexes re-embedded" + (f": {', '.join(stale[:20])}" if stale else "")
