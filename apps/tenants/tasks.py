"""Background tasks that carry their business (django-q2 runs every task in the public schema).

Enqueue with ``enqueue_for_business(schema, "apps.x.tasks.func", ...)``: the worker calls
``run_for_business`` which enters the schema before importing and calling the function, and the task
is only enqueued once the surrounding transaction commits.
"""

from __future__ import annotations

from typing import Any

from django.db import reset_queries, transaction
from django.utils.module_loading import import_string
from django_tenants.utils import schema_context


def run_for_business(schema_name: str, func_path: str, *args: Any, **kwargs: Any) -> Any:
    func = import_string(func_path)
    reset_queries()  # a task is a unit of work: no query log carried over from the previous one (DEBUG)
    # The task decides its own transactions (a crawl commits page by page so progress is visible).
    with schema_context(schema_name):
        return func(*args, **kwargs)


def enqueue_for_business(
    schema_name: str, func_path: str, *args: Any, task_name: str | None = None, **kwargs: Any
) -> None:
    from django_q.tasks import async_task

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
