"""Sync work called from async code: each call is a unit of work, like a request."""

from __future__ import annotations

import asyncio

from django.db import connection

from apps.tenants.context import call_in_schema, run_in_schema


def _queries(n: int) -> int:
    from apps.facts.models import Fact

    for _ in range(n):
        Fact.objects.count()
    return len(connection.queries)


def test_each_call_starts_with_an_empty_query_log(business, settings):
    # With DEBUG on, Django keeps the last 9,000 queries of a connection and clears them only when an
    # HTTP request starts; consumer calls and tasks never start one (the load test's memory growth).
    settings.DEBUG = True
    logged = [run_in_schema(business.schema_name, _queries, 5) for _ in range(20)]
    assert max(logged) <= 10, logged


def test_calls_from_async_code_run_on_the_pool_in_their_schema(business, transactional_db):
    from django_tenants.utils import schema_context

    def schema() -> str:
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_schema()")
            return str(cursor.fetchone()[0])

    async def many() -> list[str]:
        return await asyncio.gather(*(call_in_schema(business.schema_name, schema) for _ in range(12)))

    with schema_context("public"):
        assert set(asyncio.run(many())) == {business.schema_name}
