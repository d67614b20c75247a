"""Scheduled work of the gap loop. Each business's digest runs in its own schema (via the tenant task
runner), never in public."""

from __future__ import annotations

from apps.tenants.models import Business
from apps.tenants.tasks import enqueue_for_business


def digest_all() -> int:
    """Daily: enqueue every active business's digest (new gaps and open disagreements to its owners)."""
    count = 0
    for schema_name in Business.objects.filter(is_active=True).values_list("schema_name", flat=True):
        enqueue_for_business(
            schema_name, "apps.gaps.services.gap_digest_send", task_name=f"digest:{schema_name}"
        )
        count += 1
    return count
