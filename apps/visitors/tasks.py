"""Scheduled retention: once a day, every active business applies its own retention period, each in
its own schema (enqueued through apps.tenants.tasks.enqueue_for_business)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from apps.tenants.models import Business
from apps.tenants.tasks import enqueue_for_business

SCHEDULE_NAME = "visitors-retention"


def retention_all() -> int:
    count = 0
    for schema_name in Business.objects.filter(is_active=True).values_list("schema_name", flat=True):
        enqueue_for_business(
            schema_name, "apps.visitors.services.retention_apply", task_name=f"retention:{schema_name}"
        )
        count += 1
    return count


def retention_schedule_ensure() -> None:
    """The daily schedule (django-q2, public schema). Idempotent: `manage.py up` ensures it."""
    from django_q.models import Schedule

    first = datetime.combine(datetime.now(UTC).date() + timedelta(days=1), time(3, 30), tzinfo=UTC)
    Schedule.objects.update_or_create(
        name=SCHEDULE_NAME,
        defaults={
            "func": "apps.visitors.tasks.retention_all",
            "schedule_type": Schedule.DAILY,
            "repeats": -1,
        },
        create_defaults={
            "func": "apps.visitors.tasks.retention_all",
            "schedule_type": Schedule.DAILY,
            "repeats": -1,
            "next_run": first,
        },
    )
