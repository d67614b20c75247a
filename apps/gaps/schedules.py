"""The daily digest schedule (django-q2, public schema). Idempotent: `manage.py up` ensures it."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from django_q.models import Schedule


def digest_schedule_ensure() -> None:
    tomorrow = datetime.combine(datetime.now(UTC).date() + timedelta(days=1), time(7, 0), tzinfo=UTC)
    Schedule.objects.update_or_create(
        name="gaps-daily-digest",
        defaults={"func": "apps.gaps.tasks.digest_all", "schedule_type": Schedule.DAILY, "repeats": -1},
        create_defaults={
            "func": "apps.gaps.tasks.digest_all",
            "schedule_type": Schedule.DAILY,
            "repeats": -1,
            "next_run": tomorrow,
        },
    )
