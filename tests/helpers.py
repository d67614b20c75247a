"""Small helpers shared by test modules (fixtures live in conftest.py)."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def fresh_rate_window(seconds: int = 60, needed: float = 20.0) -> None:
    """Wait, if need be, until the rate limits' current fixed window has ``needed`` seconds left.

    The limits count per fixed window (apps/chat/limits.py), so a flood that straddles a window's end is
    counted in two windows and may pass: tests that expect an exact refusal point start early in one.
    """
    import time

    left = seconds - (time.time() % seconds)
    if left < needed:
        time.sleep(left + 0.05)


def run_queued_tasks() -> int:
    """Run the tasks waiting in django-q2's ORM queue as a cluster worker would, in this process.

    The cluster's worker takes each signed package off the queue and calls its function with its
    arguments (django_q.worker.worker); here the same package runs the same function, so a test sees
    what the worker would do (apps.tenants.tasks.run_for_business entering the business's schema)
    without starting a cluster. Returns how many tasks ran.
    """
    import pydoc

    from django_q.models import OrmQ

    ran = 0
    for row in OrmQ.objects.order_by("id"):
        task = row.task
        row.delete()
        func = task["func"] if callable(task["func"]) else pydoc.locate(task["func"])
        func(*task["args"], **task["kwargs"])
        ran += 1
    return ran


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Run a test's coroutine (websocket sessions, ASGI requests) to the end, then close the database
    connections its thread-pool calls opened: left open, they keep the test database from being dropped."""
    import asyncio

    from asgiref.sync import sync_to_async
    from django.db import connections

    async def wrapped() -> T:
        try:
            return await coro
        finally:
            await sync_to_async(connections.close_all)()

    return asyncio.run(wrapped())
