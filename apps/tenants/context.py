"""Entering a business's schema from code that is not an HTTP request: consumers and tasks.

Rule (docs/architecture.md): every sync function called from async code, and every background task,
enters the business's schema itself. The schema is a property of a database connection, and
``database_sync_to_async`` runs on a thread pool whose connections are shared by all businesses, so
setting it once (on connect, or when enqueueing) leaks data between tenants under concurrency.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from typing import ParamSpec, TypeVar

from channels.db import database_sync_to_async
from django.db import reset_queries
from django_tenants.utils import schema_context

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


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


async def iterate_in_schema(schema_name: str, make: Callable[[], Iterator[T]], /) -> AsyncIterator[T]:
    """Consume a synchronous iterator (a chat turn: its events and the answer's chunks) from async
    code, item by item as it produces them, on one pool thread inside that business's schema.

    The iterator runs to its end even if the caller stops reading (a visitor who closes the page still
    gets the reply stored); an exception inside it is re-raised here.
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[object] = asyncio.Queue()
    done = object()

    def work() -> None:
        try:
            for item in make():
                loop.call_soon_threadsafe(queue.put_nowait, item)
        except Exception as exc:  # handed to the event loop and re-raised there
            loop.call_soon_threadsafe(queue.put_nowait, _Raised(exc))
        finally:
            loop.call_soon_threadsafe(queue.put_nowait, done)

    future = asyncio.ensure_future(call_in_schema(schema_name, work))
    while True:
        item = await queue.get()
        if item is done:
            break
        if isinstance(item, _Raised):
            raise item.exc
        yield item  # type: ignore[misc]
    await future


class _Raised:
    def __init__(self, exc: Exception) -> None:
        self.exc = exc
