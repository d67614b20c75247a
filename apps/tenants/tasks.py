"""Background tasks that carry their business (django-q2 runs every task in the public schema).

Enqueue with ``enqueue_for_business(schema, "apps.x.tasks.func", ...)``: the worker calls
``run_for_business`` which enters the schema before importing and calling the function, and the task
is only enqueued once the surrounding transaction commits.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from typing import Any

from django.db import reset_queries, transaction
from django.utils.module_loading import import_string
from django_q.models import Schedule
from django_q.tasks import async_task
from django_tenants.utils import schema_context

from apps.tenants.models import Business


def run_for_business(schema_name: str, func_path: str, *args: Any, **kwargs: Any) -> Any:
    func = import_string(func_path)
    reset_queries()  # a task is a unit of work: no query log carried over from the previous one (DEBUG)
    # The task decides its own transactions (a crawl commits page by page so progress is visible).
    with schema_context(schema_name):
        return func(*args, **kwargs)


def enqueue_for_business(
    schema_name: str, func_path: str, *args: Any, task_name: str | None = None, **kwargs: Any
) -> None:
    def _enqueue() -> None:
        q_options = {"task_name": task_name} if task_name else {}
        async_task(
            "apps.tenants.tasks.run_for_business",
            schema_name,
            func_path,
            *args,
            q_options=q_options,
            **kwargs,
        )

    transaction.on_commit(_enqueue)


def enqueue_for_every_business(func_path: str, *, task_prefix: str) -> int:
    """Scheduled work of every business: ``func_path`` enqueued once per active business, each run in
    its own schema. Returns how many were enqueued."""
    count = 0
    for schema_name in Business.objects.filter(is_active=True).values_list("schema_name", flat=True):
        enqueue_for_business(schema_name, func_path, task_name=f"{task_prefix}:{schema_name}")
        count += 1
    return count


def daily_schedule_ensure(*, name: str, func: str, at: time) -> None:
    """A django-q2 schedule (public schema) that calls ``func`` every day at ``at`` UTC, from tomorrow.
    Idempotent: an existing schedule keeps its next run."""
    first = datetime.combine(datetime.now(UTC).date() + timedelta(days=1), at, tzinfo=UTC)
    Schedule.objects.update_or_create(
        name=name,
        defaults={"func": func, "schedule_type": Schedule.DAILY, "repeats": -1},
        create_defaults={"func": func, "schedule_type": Schedule.DAILY, "repeats": -1, "next_run": first},
    )
