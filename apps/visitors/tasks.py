"""Scheduled retention: once a day, every active business applies its own retention period, each in
its own schema (enqueued through apps.tenants.tasks.enqueue_for_business)."""

from __future__ import annotations

from datetime import time

from apps.tenants.tasks import daily_schedule_ensure, enqueue_for_every_business

SCHEDULE_NAME = "visitors-retention"


def retention_all() -> int:
    return enqueue_for_every_business("apps.visitors.services.retention_apply", task_prefix="retention")


def retention_schedule_ensure() -> None:
    """The daily schedule (django-q2, public schema). Idempotent: `manage.py up` ensures it."""
    daily_schedule_ensure(name=SCHEDULE_NAME, func="apps.visitors.tasks.retention_all", at=time(3, 30))
