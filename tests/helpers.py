"""Small helpers shared by test modules (fixtures live in conftest.py)."""

from __future__ import annotations

import os
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest

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


def eval_path(*parts: str) -> Path:
    """A path inside the evaluation data (XORVENTA_EVAL_DIR, default ../shared/eval beside the checkout)."""
    from django.conf import settings

    return Path(settings.XORVENTA_EVAL_DIR).joinpath(*parts)


def needs_eval(*paths: Path) -> pytest.MarkDecorator:
    """Skip where the evaluation data is absent, except under CI (CI=true), where the test runs and fails
    on the missing file: CI must never go green without running what depends on it."""
    missing = [str(p) for p in paths if not p.exists()]
    return pytest.mark.skipif(
        bool(missing) and not os.environ.get("CI"),
        reason=f"evaluation data absent ({', '.join(missing)}; set XORVENTA_EVAL_DIR)",
    )
