"""Background work of the retrieval layer (django-q2).

``index_reconcile_all`` runs in the public schema and enters each business's schema itself (the worker runs
every task in public; docs/architecture.md, tenancy rules)."""

from __future__ import annotations

import logging

from django_tenants.utils import schema_context

from apps.retrieval.index import index_reconcile
from apps.tenants.models import Business

logger = logging.getLogger(__name__)


def index_reconcile_all() -> str:
    """At start-up: does the loaded model still reproduce each business's golden vector, and is each
    index in the configured space (model, question weight)? A stale index is re-embedded beside the
    old one and switched at once; until then retrieval refuses it with the command to run. After a
    model change on a large install, `manage.py reindex` does the same from a terminal."""
    stale = []
    schemas = Business.objects.filter(is_active=True).exclude(schema_name="public")
    for slug, schema_name in schemas.values_list("slug", "schema_name"):
        with schema_context(schema_name):
            outcome = index_reconcile(rebuild="stale")
        if outcome.was == "stale":
            stale.append(slug)
            logger.warning(
                "search index of %s was stale (%s): re-embedded %d pieces in %.1f s",
                slug, outcome.reason, outcome.pieces, outcome.seconds,
            )  # fmt: skip
    return f"{len(stale)} stale search indexes re-embedded" + (f": {', '.join(stale[:20])}" if stale else "")
