"""The django-q2 schedules of the knowledge layer: the website re-sync (one Schedule row per business)
and the re-reading of parts the language model failed on.

django-q2's tables live in the public schema and its scheduler runs there, so the schedule calls
``apps.tenants.tasks.run_for_business`` with the schema name as its first argument: the worker enters
the business's schema before the re-sync runs (stack.md: tasks run in public otherwise).
"""

from __future__ import annotations

import zlib
from datetime import UTC, datetime, time, timedelta

from django.utils import timezone
from django_q.models import Schedule

from apps.facts.models import SyncSchedule

RESYNC_TASK = "apps.facts.tasks.website_resync_task"
SCHEDULE_FUNC = "apps.tenants.tasks.run_for_business"


def schedule_name(schema_name: str) -> str:
    return f"website-resync:{schema_name}"


def _first_run(schema_name: str, every: SyncSchedule, now: datetime) -> datetime:
    """Tomorrow (or in a week) at a time between 01:00 and 05:59 UTC derived from the schema name.

    Spreading businesses over the night keeps one install from crawling every site at the same second,
    and keeps a business's sync at the same hour from one change of settings to the next."""
    seed = zlib.crc32(schema_name.encode("utf-8"))
    at = time(hour=1 + seed % 5, minute=(seed // 5) % 60)
    days = 7 if every == SyncSchedule.WEEKLY else 1
    day = now.astimezone(UTC).date() + timedelta(days=days)
    return datetime.combine(day, at, tzinfo=UTC)


def resync_schedule_set(*, schema_name: str, every: SyncSchedule | str, enabled: bool) -> object | None:
    """Create, update or remove the business's re-sync schedule. Returns the Schedule (or None)."""
    name = schedule_name(schema_name)
    every = SyncSchedule(every)
    if not enabled or every == SyncSchedule.OFF:
        Schedule.objects.filter(name=name).delete()
        return None
    schedule_type = Schedule.WEEKLY if every == SyncSchedule.WEEKLY else Schedule.DAILY
    args = repr((schema_name, RESYNC_TASK))
    existing = Schedule.objects.filter(name=name).first()
    if existing is not None and existing.schedule_type == schedule_type and existing.args == args:
        return existing  # unchanged: keep its next run rather than pushing it back a day
    schedule, _ = Schedule.objects.update_or_create(
        name=name,
        defaults={
            "func": SCHEDULE_FUNC,
            "args": args,
            "kwargs": None,
            "schedule_type": schedule_type,
            "repeats": -1,
            "next_run": _first_run(schema_name, every, timezone.now()),
        },
    )
    return schedule


def resync_schedule_get(schema_name: str) -> object | None:
    return Schedule.objects.filter(name=schedule_name(schema_name)).first()


# ----------------------------------------------------------------------------------------------
# Re-reading parts the language model failed on (decision 0020): one ONCE schedule per business, set
# to the earliest due retry; the task sets it again for whatever is still waiting.

REREAD_TASK = "apps.facts.tasks.parts_reread_task"


def reread_schedule_name(schema_name: str) -> str:
    return f"model-reread:{schema_name}"


def reread_schedule_set(*, schema_name: str, at: datetime) -> object:
    """Make sure the worker re-reads this business's due parts no later than ``at``."""
    name = reread_schedule_name(schema_name)
    existing = Schedule.objects.filter(name=name).first()
    if existing is not None and existing.next_run is not None and existing.next_run <= at:
        return existing  # an earlier run is set: it re-reads these too, or sets the next one
    schedule, _ = Schedule.objects.update_or_create(
        name=name,
        defaults={
            "func": SCHEDULE_FUNC,
            "args": repr((schema_name, REREAD_TASK)),
            "kwargs": None,
            "schedule_type": Schedule.ONCE,
            "repeats": -1,  # django-q2 deletes a ONCE schedule with negative repeats once it has run
            "next_run": at,
        },
    )
    return schedule


def reread_schedule_get(schema_name: str) -> object | None:
    return Schedule.objects.filter(name=reread_schedule_name(schema_name)).first()
