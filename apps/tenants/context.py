"""Entering a business's schema from code that is not an HTTP request: consumers and tasks.

Rule (docs/architecture.md): every sync function called from async code, and every background task,
enters the business's schema itself. The schema is a property of a database connection, and
``database_sync_to_async`` runs on a thread pool whose connections are shared by all businesses, so
setting it once (on connect, or when enqueueing) leaks data between tenants under concurrency.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

from channels.db import database_sync_to_async
from django.db import reset_queries
from django_tenants.utils import schema_context

P = ParamSpec("P")
R = TypeVar("R")


def run_in_schema(schema_name: str, func: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    # Each call is a unit of work like a request, so start its query log afresh as Django does per
    # request: with DEBUG on, a pool thread's connection otherwise keeps its last 9,000 queries (each
    # vector query is ~8 KB of SQL), which showed as steady memory growth in the load test.
    reset_queries()
    with schema_context(schema_name):
        return func(*args, **kwargs)


async def call_in_schema(schema_name: str, func: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """Run a sync ORM function for one business from async code, inside that business's schema.

    On the executor's thread pool, not the single thread-sensitive thread that
    ``database_sync_to_async`` uses by default: one chat turn (retrieval, rendering, storing) is a
    whole unit of work with its own transaction, so turns of different visitors need not queue behind
    each other (measured: 100 sessions on one process waited seconds for that one thread). Each pool
    thread has its own connection; the schema is entered per call, as the rule above requires.
    """
    return await database_sync_to_async(run_in_schema, thread_sensitive=False)(
        schema_name, func, *args, **kwargs
    )
