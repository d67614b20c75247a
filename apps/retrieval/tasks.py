"""Background work of the retrieval layer (django-q2).

``index_check_all`` runs in the public schema and enters each business's schema itself (the worker runs
every task in public; docs/architecture.md, tenancy rules)."""

from __future__ import annotations

import logging

from django_tenants.utils import schema_context

from apps.retrieval.index import REINDEX_HINT, index_reconcile
from apps.tenants.models import Business

logger = logging.getLogger(__name__)


def index_check_all() -> str:
    """At start-up: does the loaded model still reproduce each business's golden vector, and is each
    index in the configured model's space? Stale indexes are marked (retrieval then refuses them with
    the command to run) and logged; nothing is re-embedded without the operator."""
    stale = []
    schemas = Business.objects.filter(is_active=True).exclude(schema_name="public")
    for slug, schema_name in schemas.values_list("slug", "schema_name"):
        with schema_context(schema_name):
            outcome = index_reconcile(rebuild="none")
        if outcome.was == "stale":
            stale.append(slug)
            logger.warning(
                "search index of %s is stale (%s): %s", slug, outcome.reason, REINDEX_HINT.format(slug=slug)
            )
    return f"{len(stale)} stale search indexes" + (f": {', '.join(stale[:20])}" if stale else "")
