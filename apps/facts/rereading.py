"""The worker's second reading of what the language model failed on (decision 0020).

When the model cannot be reached, times out or answers with something that is not valid records, the
part is read by the built-in extractor at once (its records stand in, ``Fact.stand_in``) and marked
for a retry (``SourcePart.reading == "retry"``, ``retry_at``). ``parts_reread_due`` runs in the worker
(apps.facts.tasks.parts_reread_task, from a ONCE schedule per business set in apps.facts.schedules):
it asks the configured extractor again for every due part, one transaction per part
(``services.source_part_reread``), reads any event that was stored but never read, and sets the next
run for whatever is still waiting.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import Min
from django.utils import timezone

from apps.facts.extraction.base import Extractor
from apps.facts.extraction.factory import get_extractor
from apps.facts.models import PartReading, SourcePart, SourceVersion, VersionOutcome
from apps.facts.schedules import reread_schedule_set
from apps.facts.services import (
    REREAD_RECEIVED_AFTER_SECONDS,
    RETRY_BASE_SECONDS,
    STAND_IN_EXTRACTOR,
    source_part_reread,
    source_version_read,
)
from apps.tenants.db import current_schema

logger = logging.getLogger(__name__)

#: Parts re-read per run: a run holds one worker, and a slow CPU model takes a minute per part.
REREAD_BATCH = 20


@dataclass
class RereadSummary:
    outcomes: Counter[str] = field(default_factory=Counter)
    versions_read: int = 0
    next_run: datetime | None = None

    def __str__(self) -> str:
        done = ", ".join(f"{n} {k}" for k, n in sorted(self.outcomes.items())) or "nothing due"
        after = f"; next {self.next_run:%Y-%m-%d %H:%M:%S}" if self.next_run else ""
        return f"re-read: {done}; {self.versions_read} stored event(s) read{after}"


def parts_reread_due(
    *, now: datetime | None = None, extractor: Extractor | None = None, limit: int = REREAD_BATCH
) -> RereadSummary:
    """Re-read the due parts and unread events of the current business; schedule the next run."""
    now = now or timezone.now()
    extractor = extractor or get_extractor()
    summary = RereadSummary()
    summary.versions_read = _received_read(now, extractor, limit)
    if extractor.name == STAND_IN_EXTRACTOR:
        _settle_without_model()
        return summary
    due = list(
        SourcePart.objects.filter(reading=PartReading.RETRY, retry_at__lte=now, removed_in__isnull=True)
        .order_by("retry_at", "id")
        .values_list("pk", flat=True)[:limit]
    )
    for index, pk in enumerate(due):
        outcome = source_part_reread(part_id=pk, extractor=extractor, now=now)
        summary.outcomes[outcome] += 1
        if outcome == "unreachable":
            # The model is still down: the other due parts wait with this one instead of each trying.
            later = SourcePart.objects.filter(pk=pk).values_list("retry_at", flat=True).first()
            SourcePart.objects.filter(pk__in=due[index + 1 :], reading=PartReading.RETRY).update(
                retry_at=later
            )
            break
    summary.next_run = _next_run(now)
    return summary


def _received_read(now: datetime, extractor: Extractor, limit: int) -> int:
    """Read the events that were stored but whose reading failed (they wait as "received")."""
    stale = SourceVersion.objects.filter(
        outcome=VersionOutcome.RECEIVED,
        created_at__lte=now - timedelta(seconds=REREAD_RECEIVED_AFTER_SECONDS),
    ).order_by("id")[:limit]
    read = 0
    for version in stale:
        try:
            source_version_read(version=version, extractor=extractor)
        except Exception:  # one event that cannot be read never stops the others
            logger.exception("stored event %s could not be read again", version.pk)
        else:
            read += 1
    return read


def _settle_without_model() -> None:
    """No language model is configured any more: the built-in reader's records are the reading."""
    SourcePart.objects.filter(reading=PartReading.RETRY).update(
        reading=PartReading.READ,
        read_error="no language model is configured any more: the built-in reader's records stand",
        retry_at=None,
    )


def _next_run(now: datetime) -> datetime | None:
    waiting = SourcePart.objects.filter(reading=PartReading.RETRY, removed_in__isnull=True).aggregate(
        at=Min("retry_at")
    )["at"]
    received = SourceVersion.objects.filter(outcome=VersionOutcome.RECEIVED).aggregate(at=Min("created_at"))[
        "at"
    ]
    if received is not None:
        received += timedelta(seconds=REREAD_RECEIVED_AFTER_SECONDS)
        waiting = min(waiting, received) if waiting else received
    if waiting is None:
        return None
    at = max(waiting, now + timedelta(seconds=RETRY_BASE_SECONDS))  # never a tight loop
    reread_schedule_set(schema_name=current_schema(), at=at)
    return at
